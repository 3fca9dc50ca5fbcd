/* SPDX-License-Identifier: MIT */
/* partiql.c - ExecuteStatement, and what the PartiQL operations share
 * (partiql.h): a statement compiled with its parameters, its INSERT,
 * UPDATE, DELETE as the write path's requests run like PutItem,
 * UpdateItem and DeleteItem (metered, throttled, indexes kept), the
 * single-item SELECTs of batches and transactions. A SELECT's reads are
 * partiql_select.c's. */
#include <stdbool.h>
#include <string.h>

#include "api/expr/partiql.h"
#include "api/index/index.h"
#include "api/ops/ops.h"
#include "api/ops/partiql.h"
#include "api/ops/write.h"
#include "api/proto/av.h"
#include "api/proto/capacity.h"
#include "api/tables/tables.h"
#include "api/throttle/gate.h"
#include "storage/util.h"

/* DynamoDB's answer to an INSERT whose key exists (Running PartiQL
 * statements; paritysuite/dynamodb-conformance
 * tier2/partiql/executeStatement.test.ts). */
#define MSG_DUPLICATE "Duplicate primary key exists in table"

/* ------------------------------------------------------------------------
 * A statement of a request
 * ---------------------------------------------------------------------- */

void
pql_call_init(struct pql_call *c, const json_t *m)
{
    const json_t *rv = json_object_get(m, "ReturnValuesOnConditionCheckFailure");

    memset(c, 0, sizeof(*c));
    c->m = m;
    c->params = json_object();
    if (json_is_string(rv))
        json_object_set_new(c->params, "ReturnValuesOnConditionCheckFailure",
                            json_copy((json_t *)rv));
}

int
pql_call_compile(struct pql_call *c, struct ddb_err *err)
{
    const json_t *st = json_object_get(c->m, "Statement");
    const char *text = json_string_value(st);

    if (text == NULL)
        return ddb_err_set(err, DDB_VALIDATION, "1 validation error "
                           "detected: Value null at 'statement' failed to "
                           "satisfy constraint: Member must not be null");
    if (pql_compile(text, json_string_length(st),
                    json_object_get(c->m, "Parameters"), &c->s, err) != 0)
        return -1;
    c->tn = json_object();
    json_object_set_new(c->tn, "TableName", json_string(pql_table(c->s)));
    return 0;
}

void
pql_call_fini(struct pql_call *c)
{
    json_decref(c->tn);
    json_decref(c->params);
    pql_free(c->s);
    memset(c, 0, sizeof(*c));
}

bool
pql_call_reads(const struct pql_call *c)
{
    return pql_kind(c->s) == PQL_SELECT;
}

/* ------------------------------------------------------------------------
 * Writes
 * ---------------------------------------------------------------------- */

/* Split the WHERE clause into w's key and the condition on the rest. */
static int
take_key(struct pql_call *c, const struct key_schema *ks,
         struct write_req *w, struct expr **cond, struct ddb_err *err)
{
    return pql_key_split(c->s, ks, &w->key, cond, err);
}

int
pql_write_setup(struct pql_call *c, const struct key_schema *ks,
                struct write_req *w, struct ddb_err *err)
{
    static const enum write_rv rv[] = {
        [PQL_RET_NONE] = RV_NONE, [PQL_RET_ALL_OLD] = RV_ALL_OLD,
        [PQL_RET_MODIFIED_OLD] = RV_UPDATED_OLD,
        [PQL_RET_ALL_NEW] = RV_ALL_NEW,
        [PQL_RET_MODIFIED_NEW] = RV_UPDATED_NEW,
    };
    struct expr *cond = NULL;

    switch (pql_kind(c->s)) {
    case PQL_INSERT:
        write_req_init(w, WRITE_PUT, c->params);
        w->item = json_clone(pql_item(c->s));
        w->size = item_size(w->item);
        if (w->size > ITEM_SIZE_MAX)
            return ddb_err_set(err, DDB_VALIDATION, "Item size has exceeded "
                               "the maximum allowed size");
        w->cond = pql_guard(NULL, ks->hash_name, PQL_GUARD_ABSENT);
        break;
    case PQL_UPDATE:
        write_req_init(w, WRITE_UPDATE, c->params);
        if (take_key(c, ks, w, &cond, err) != 0)
            return -1;
        w->cond = pql_guard(cond, ks->hash_name, PQL_GUARD_EXISTS);
        w->upd = pql_take_update(c->s);
        break;
    case PQL_DELETE:
        write_req_init(w, WRITE_DELETE, c->params);
        if (take_key(c, ks, w, &cond, err) != 0)
            return -1;
        w->cond = pql_guard(cond, ks->hash_name, PQL_GUARD_IF_EXISTS);
        break;
    case PQL_EXISTS:
        write_req_init(w, WRITE_CHECK, c->params);
        if (take_key(c, ks, w, &cond, err) != 0)
            return -1;
        /* EXISTS(SELECT ... WHERE key) alone checks nothing: DynamoDB
         * wants a condition beside the key (error-messages/
         * partiqlFunctions.test.ts, eu-west-2, 2026-10). */
        if (cond == NULL)
            return ddb_err_set(err, DDB_VALIDATION, "EXISTS() must contain "
                               "a single item read with additional "
                               "condition");
        w->cond = pql_guard(cond, ks->hash_name, PQL_GUARD_EXISTS);
        break;
    case PQL_SELECT:
        return ddb_err_set(err, DDB_INTERNAL, "a SELECT is no write");
    }
    w->rv = rv[pql_returning(c->s)];
    return 0;
}

void
pql_write_init(struct pql_write *pw)
{
    memset(pw, 0, sizeof(*pw));
    write_req_init(&pw->w, WRITE_CHECK, NULL);
}

int
pql_write_prepare(struct api_ctx *ctx, struct pql_call *c,
                  struct pql_write *pw, struct ddb_err *err)
{
    if (table_ref_open(ctx, c->tn, &pw->tr, err) != 0 ||
        pql_write_setup(c, &pw->tr.ks, &pw->w, err) != 0)
        return -1;
    pw->insert = pql_kind(c->s) == PQL_INSERT;
    return write_resolve(ctx, &pw->w, &pw->tr, &pw->k, err);
}

int
pql_write_run(struct api_ctx *ctx, struct pql_write *pw,
              struct ddb_err *err)
{
    struct write_req *w = &pw->w;
    struct gate_ticket th;
    double units;
    int rc;

    gate_init(&th);
    if (write_check_held(ctx, &pw->tr, &pw->k, err) != 0 ||
        gate_admit(ctx, pw->tr.t, &pw->k, THROTTLE_WRITE,
                   w->kind == WRITE_PUT ? capacity_write_units(w->size) : 1,
                   &th, err) != 0)
        return -1;
    rc = write_run(ctx, w, &pw->tr, &pw->k, pw->idx_units, err);
    units = write_units(w);
    gate_charge(ctx, &th, units);
    if (rc == 0) {
        capacity_add(ctx->cap, pw->tr.name, 0, units);
        index_capacity_add(ctx->cap, pw->tr.name, w->set, pw->idx_units);
        return 0;
    }
    /* An INSERT's failed guard is a duplicate key; asked for the old item,
     * DynamoDB Local answers the failed condition with it instead
     * (InsertStatementProcessor), which is followed here. */
    if (pw->insert && w->cond_failed &&
        !json_str_is(json_object_get(w->params,
                                     "ReturnValuesOnConditionCheckFailure"),
                     "ALL_OLD")) {
        ddb_err_clear(err);
        ddb_err_set(err, DDB_DUPLICATE_ITEM, MSG_DUPLICATE);
    }
    return -1;
}

void
pql_write_fini(struct pql_write *pw)
{
    write_req_fini(&pw->w);         /* its guard borrows tr's key names */
    table_ref_close(&pw->tr);
}

/* ------------------------------------------------------------------------
 * Single-item reads of batches and transactions
 * ---------------------------------------------------------------------- */

int
pql_item_read_prepare(struct api_ctx *ctx, struct pql_call *c,
                      const char *op, struct table_ref *tr, json_t **key,
                      struct ddb_err *err)
{
    const char *index = pql_index(c->s);
    struct expr *cond = NULL;
    int rc;

    *key = NULL;
    /* Index reads: refused in transactions, and in batches by the rule
     * below once a multi-attribute index has been refused first
     * (indexQualifier.test.ts, partiqlMultiAttributeIndex.test.ts). */
    if (index != NULL && strcmp(op, "ExecuteTransaction") == 0)
        return ddb_err_set(err, DDB_VALIDATION, "Reads on indices are not "
                           "supported within transactions.");
    if (table_ref_open(ctx, c->tn, tr, err) != 0)
        return -1;
    if (index != NULL) {
        json_t *desc = stable_desc_ref(tr->t);
        struct index_set set;
        const struct index_def *d;
        bool multi;

        memset(&set, 0, sizeof(set));
        rc = desc != NULL ? index_set_open(ctx->srv->st, desc, &set, err)
                          : 0;
        json_decref(desc);
        if (rc != 0)
            return -1;
        d = index_find(&set, index);
        multi = d != NULL && index_is_multi(d);
        index_set_close(&set);
        if (multi)
            return ddb_err_set(err, DDB_VALIDATION, PQL_MSG_MULTI);
        goto whole_key;
    }
    rc = pql_key_split(c->s, &tr->ks, key, &cond, err);
    if (rc == 0 && cond == NULL)
        return 0;
    expr_free(cond);
    json_decref(*key);
    *key = NULL;
    if (rc != 0 && strncmp(err->msg, "Where clause", 12) != 0)
        return -1;                  /* a key value of the wrong type */
    ddb_err_clear(err);
whole_key:
    return ddb_err_set(err, DDB_VALIDATION, "Select statements within %s "
                       "must specify the primary key in the where clause.",
                       op);
}

/* ------------------------------------------------------------------------
 * ExecuteStatement
 * ---------------------------------------------------------------------- */

/* A write and its answer: {"Items": []}, or the item RETURNING asked for
 * (writeResponses.test.ts; an empty MODIFIED projection is no item). */
static int
run_write(struct api_ctx *ctx, struct pql_call *c, json_t **resp,
          struct ddb_err *err)
{
    struct pql_write pw;
    json_t *items;
    int rc = -1;

    pql_write_init(&pw);
    if (pql_write_prepare(ctx, c, &pw, err) != 0 ||
        pql_write_run(ctx, &pw, err) != 0)
        goto out;
    items = json_array();
    if (pw.w.attrs != NULL)
        json_array_append(items, pw.w.attrs);
    *resp = json_pack("{s:o}", "Items", items);
    rc = 0;
out:
    pql_write_fini(&pw);
    return rc;
}

/*
 * ExecuteStatement: one PartiQL statement. A SELECT reads through Query
 * (the WHERE clause fixes the partition key) or Scan, with Limit and
 * NextToken; INSERT, UPDATE and DELETE write one item by its key through
 * the write path, as PutItem, UpdateItem and DeleteItem would.
 */
int
api_execute_statement(struct api_ctx *ctx, const json_t *req,
                      json_t **resp, struct ddb_err *err)
{
    struct pql_call c;
    int rc = -1;

    pql_call_init(&c, req);
    if (pql_call_compile(&c, err) != 0)
        goto out;
    switch (pql_kind(c.s)) {
    case PQL_SELECT:
        rc = pql_select_run(ctx, &c, req, resp, err);
        break;
    case PQL_EXISTS:
        /* a condition of ExecuteTransaction only; DynamoDB's generic
         * refusal of what it does not run (its wording for this case not
         * recorded) */
        rc = ddb_err_set(err, DDB_VALIDATION, "Unsupported operation: "
                         "Call");
        break;
    default:
        rc = run_write(ctx, &c, resp, err);
        break;
    }
out:
    pql_call_fini(&c);
    return rc;
}
