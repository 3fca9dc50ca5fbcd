/* SPDX-License-Identifier: MIT */
/* partiql_multi.c - BatchExecuteStatement (up to 25 statements, each run
 * on its own and answered with its own Item or Error, as BatchGetItem and
 * BatchWriteItem meter and throttle theirs) and ExecuteTransaction (up to
 * 100 statements, reads or writes, all or nothing through the transaction
 * core, txn_core.c, with TransactWriteItems' conflict rules and
 * ClientRequestToken). */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "api/expr/partiql.h"
#include "api/ops/ops.h"
#include "api/ops/partiql.h"
#include "api/ops/txn.h"
#include "api/ops/write.h"
#include "api/proto/av.h"
#include "api/proto/capacity.h"
#include "api/tables/tables.h"
#include "api/throttle/gate.h"
#include "storage/util.h"

#define MSG_DUPLICATE "Duplicate primary key exists in table"

/* Compile every statement of list into calls (n, zeroed by the caller). */
static void
calls_init(struct pql_call *calls, const json_t *list, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        pql_call_init(&calls[i], json_array_get(list, i));
        calls[i].pos = i;
    }
}

static void
calls_free(struct pql_call *calls, size_t n)
{
    for (size_t i = 0; calls != NULL && i < n; i++)
        pql_call_fini(&calls[i]);
    free(calls);
}

/* ------------------------------------------------------------------------
 * BatchExecuteStatement
 * ---------------------------------------------------------------------- */

/* A statement's error code (the API reference's BatchStatementError
 * codes). */
static const char *
batch_code(enum ddb_errtype t)
{
    switch (t) {
    case DDB_CONDITIONAL_CHECK_FAILED: return "ConditionalCheckFailed";
    case DDB_ITEM_COLLECTION_SIZE_LIMIT:
        return "ItemCollectionSizeLimitExceeded";
    case DDB_REQUEST_LIMIT_EXCEEDED: return "RequestLimitExceeded";
    case DDB_VALIDATION: return "ValidationError";
    case DDB_THROUGHPUT_EXCEEDED: return "ProvisionedThroughputExceeded";
    case DDB_TRANSACTION_CONFLICT: return "TransactionConflict";
    case DDB_THROTTLING: return "ThrottlingError";
    case DDB_RESOURCE_NOT_FOUND: return "ResourceNotFound";
    case DDB_ACCESS_DENIED: return "AccessDenied";
    case DDB_DUPLICATE_ITEM: return "DuplicateItem";
    default: return "InternalServerError";
    }
}

/* A statement's answer when it failed: its Error, and its TableName when
 * it reached its table and ran (batchExecuteStatement.test.ts,
 * eu-west-2: a failed condition and a duplicate key carry it, a statement
 * refused before it ran does not). Clears err. */
static json_t *
batch_error(struct ddb_err *err, const char *table)
{
    json_t *r = json_pack("{s:{s:s, s:s}}", "Error", "Code",
                          batch_code(err->type), "Message", err->msg);

    if (table != NULL)
        json_object_set_new(r, "TableName",
                            json_string(api_table_public(table)));
    ddb_err_clear(err);
    return r;
}

/* A SELECT of the batch: GetItem's read, metered and throttled as one. */
static json_t *
batch_read(struct api_ctx *ctx, struct pql_call *c, struct ddb_err *err)
{
    bool consistent = json_is_true(json_object_get(c->m, "ConsistentRead"));
    struct table_ref tr = { 0 };
    struct item_key k;
    struct gate_ticket th;
    json_t *key = NULL, *item = NULL, *r = NULL;
    double units;

    gate_init(&th);
    if (pql_item_read_prepare(ctx, c, "BatchExecuteStatement", &tr, &key,
                              err) != 0 ||
        item_key_build(&tr.ks, key, true, &k, err) != 0) {
        r = batch_error(err, NULL);
        goto out;
    }
    if (gate_admit(ctx, tr.t, &k, THROTTLE_READ,
                   capacity_read_units(0, consistent), &th, err) != 0 ||
        stable_get(tr.t, &k, &item, err) != 0) {
        r = batch_error(err, tr.name);
        goto out;
    }
    units = capacity_read_units(item != NULL ? item_size(item) : 0,
                                consistent);
    gate_charge(ctx, &th, units);
    capacity_add(ctx->cap, tr.name, units, 0);
    r = json_pack("{s:s}", "TableName", api_table_public(tr.name));
    if (item != NULL)
        json_object_set_new(r, "Item", pql_project(c->s, item));
out:
    gate_charge(ctx, &th, 0);
    json_decref(item);
    json_decref(key);
    table_ref_close(&tr);
    return r;
}

/* A write of the batch: PutItem's, UpdateItem's or DeleteItem's. */
static json_t *
batch_write(struct api_ctx *ctx, struct pql_call *c, struct ddb_err *err)
{
    struct pql_write pw;
    json_t *r;

    pql_write_init(&pw);
    if (pql_kind(c->s) == PQL_EXISTS) {
        ddb_err_set(err, DDB_VALIDATION, "Unsupported operation: Call");
        r = batch_error(err, NULL);
    } else if (pql_write_prepare(ctx, c, &pw, err) != 0) {
        r = batch_error(err, NULL);
    } else if (pql_write_run(ctx, &pw, err) != 0) {
        r = batch_error(err, pw.tr.name);
    } else {
        r = json_pack("{s:s}", "TableName", api_table_public(pw.tr.name));
        if (pw.w.attrs != NULL)
            json_object_set(r, "Item", pw.w.attrs);
    }
    pql_write_fini(&pw);
    return r;
}

/*
 * BatchExecuteStatement: each statement compiled and run on its own, in
 * order; a statement that fails answers with its Error, the others with
 * their Item (a SELECT's, or RETURNING's) and TableName. The batch is
 * reads or writes, not both (API reference).
 */
int
api_batch_execute_statement(struct api_ctx *ctx, const json_t *req,
                            json_t **resp, struct ddb_err *err)
{
    const json_t *list = json_object_get(req, "Statements");
    size_t n = json_array_size(list), reads = 0, writes = 0;
    struct pql_call *calls = xcalloc(n ? n : 1, sizeof(*calls));
    json_t **out = xcalloc(n ? n : 1, sizeof(*out)), *responses;
    struct ddb_err e;
    int rc = -1;

    calls_init(calls, list, n);
    ddb_err_init(&e);
    for (size_t i = 0; i < n; i++) {
        if (pql_call_compile(&calls[i], &e) != 0)
            out[i] = batch_error(&e, NULL);
        else if (pql_call_reads(&calls[i]))
            reads++;
        else
            writes++;
    }
    /* Not recorded from DynamoDB; DynamoDB Local's ExecuteTransaction
     * wording for the same rule. */
    if (reads > 0 && writes > 0) {
        ddb_err_set(err, DDB_VALIDATION, "BatchExecuteStatement API does "
                    "not support both read and write operations in the same "
                    "request.");
        goto out;
    }
    for (size_t i = 0; i < n; i++)
        if (out[i] == NULL)
            out[i] = pql_call_reads(&calls[i]) ? batch_read(ctx, &calls[i],
                                                            &e)
                                               : batch_write(ctx, &calls[i],
                                                             &e);
    responses = json_array();
    for (size_t i = 0; i < n; i++) {
        json_array_append_new(responses, out[i]);
        out[i] = NULL;
    }
    *resp = json_pack("{s:o}", "Responses", responses);
    rc = 0;
out:
    for (size_t i = 0; i < n; i++)
        json_decref(out[i]);
    free(out);
    ddb_err_clear(&e);
    calls_free(calls, n);
    return rc;
}

/* ------------------------------------------------------------------------
 * ExecuteTransaction
 * ---------------------------------------------------------------------- */

/* A statement's validation error as DynamoDB words it in a transaction:
 * "Validation failed in TransactStatements[0]: ..." (partiqlGrammar,
 * partiqlFunctions, partiql tests). Returns -1. */
static int
in_statement(const struct pql_call *c, struct ddb_err *err)
{
    char msg[DDB_ERR_MSG_MAX - 64];

    if (err->type != DDB_VALIDATION)
        return -1;
    snprintf(msg, sizeof(msg), "%.3900s", err->msg);
    ddb_err_clear(err);
    return ddb_err_set(err, DDB_VALIDATION, "Validation failed in "
                       "TransactStatements[%zu]: %s", c->pos, msg);
}

static int
resolve_read(struct api_ctx *ctx, struct txn_item *ti, struct item_key *k,
             struct ddb_err *err)
{
    struct pql_call *c = (struct pql_call *)ti->user;

    if (pql_item_read_prepare(ctx, c, "ExecuteTransaction", &ti->ot,
                              &ti->w.key, err) != 0)
        return in_statement(c, err);
    return item_key_build(&ti->ot.ks, ti->w.key, true, k, err);
}

static int
resolve_write(struct api_ctx *ctx, struct txn_item *ti, struct item_key *k,
              struct ddb_err *err)
{
    struct pql_call *c = (struct pql_call *)ti->user;

    if (table_ref_open(ctx, c->tn, &ti->ot, err) != 0)
        return -1;
    if (pql_write_setup(c, &ti->ot.ks, &ti->w, err) != 0)
        return in_statement(c, err);
    return txn_resolve_write(ctx, ti, k, err);
}

/* The transaction's reads: {"Responses": [{"Item": ...} or {}, ...]}. */
static int
run_reads(struct api_ctx *ctx, struct pql_call *calls, struct txn_item *ti,
          struct item_key *keys, size_t n, json_t **resp,
          struct ddb_err *err)
{
    json_t **items = xcalloc(n, sizeof(*items)), *responses;
    int rc = -1;

    for (size_t i = 0; i < n; i++) {
        ti[i].kind = TK_GET;
        ti[i].user = &calls[i];
    }
    if (txn_resolve_all(ctx, ti, keys, n, resolve_read, err) != 0 ||
        txn_get_commit(ctx, ti, keys, n, items, err) != 0)
        goto out;
    responses = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(responses,
                              items[i] != NULL
                                  ? json_pack("{s:o}", "Item",
                                              pql_project(calls[i].s,
                                                          items[i]))
                                  : json_object());
    *resp = json_pack("{s:o}", "Responses", responses);
    rc = 0;
out:
    for (size_t i = 0; i < n; i++)
        json_decref(items[i]);
    free(items);
    return rc;
}

/* The transaction's writes: {"Responses": []} (writeResponses.test.ts). */
static int
run_writes(struct api_ctx *ctx, const json_t *req, struct pql_call *calls,
           struct txn_item *ti, struct item_key *keys, size_t n,
           json_t **resp, struct ddb_err *err)
{
    static const enum txn_kind kinds[] = {
        [PQL_INSERT] = TK_PUT, [PQL_UPDATE] = TK_UPDATE,
        [PQL_DELETE] = TK_DELETE, [PQL_EXISTS] = TK_CHECK,
    };

    for (size_t i = 0; i < n; i++) {
        ti[i].kind = kinds[pql_kind(calls[i].s)];
        ti[i].user = &calls[i];
        ti[i].op = calls[i].tn;
        /* A duplicate key cancels with its own code (the BatchStatement
         * and CancellationReason code DuplicateItem; the reason's wording
         * is not recorded, DynamoDB's DuplicateItemException message). */
        if (ti[i].kind == TK_PUT) {
            ti[i].ccf_code = "DuplicateItem";
            ti[i].ccf_msg = MSG_DUPLICATE;
        }
    }
    if (txn_resolve_all(ctx, ti, keys, n, resolve_write, err) != 0 ||
        txn_write_commit(ctx, req, ti, keys, n, resp, err) != 0)
        return -1;
    if (json_object_get(*resp, "Responses") == NULL)
        json_object_set_new(*resp, "Responses", json_array());
    return 0;
}

/*
 * ExecuteTransaction: up to 100 statements, all reads (SELECTs of one item
 * each, read under one snapshot) or all writes (INSERT, UPDATE, DELETE and
 * EXISTS conditions, applied all or nothing), through the transaction core
 * TransactGetItems and TransactWriteItems use: the same conflict rules,
 * cancellation reasons, throttling and ClientRequestToken.
 */
int
api_execute_transaction(struct api_ctx *ctx, const json_t *req,
                        json_t **resp, struct ddb_err *err)
{
    const json_t *list = json_object_get(req, "TransactStatements");
    size_t n = json_array_size(list), reads = 0;
    struct pql_call *calls = xcalloc(n ? n : 1, sizeof(*calls));
    struct txn_item *ti = NULL;
    struct item_key *keys = NULL;
    int rc = -1;

    calls_init(calls, list, n);
    /* Parameters' values first, bare (partiqlParameterNumbers.test.ts). */
    for (size_t i = 0; i < n; i++)
        if (pql_check_params(json_object_get(calls[i].m, "Parameters"),
                             err) != 0)
            goto out;
    for (size_t i = 0; i < n; i++) {
        if (pql_call_compile(&calls[i], err) != 0) {
            in_statement(&calls[i], err);
            goto out;
        }
        if (pql_returning(calls[i].s) != PQL_RET_NONE) {
            ddb_err_set(err, DDB_VALIDATION, "RETURNING clause is not "
                        "supported in ExecuteTransaction.");
            in_statement(&calls[i], err);
            goto out;
        }
        reads += pql_call_reads(&calls[i]);
    }
    /* DynamoDB Local's recorded wording ("a transaction of a read and a
     * write"). */
    if (reads > 0 && reads < n) {
        ddb_err_set(err, DDB_VALIDATION, "ExecuteTransaction API does not "
                    "support both read and write operations in the same "
                    "request.");
        goto out;
    }
    ti = txn_items_new(n);
    keys = xcalloc(n ? n : 1, sizeof(*keys));
    rc = reads > 0 ? run_reads(ctx, calls, ti, keys, n, resp, err)
                   : run_writes(ctx, req, calls, ti, keys, n, resp, err);
out:
    free(keys);
    if (ti != NULL)
        txn_items_free(ti, n);      /* before the statements they borrow */
    calls_free(calls, n);
    return rc;
}
