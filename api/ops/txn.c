/* SPDX-License-Identifier: MIT */
/* txn.c - TransactWriteItems and TransactGetItems: each action's checks in
 * DynamoDB's order (the same plumbing as ops/item.c), then the transaction
 * core (txn_core.c) resolves them against their tables and commits them
 * all or nothing. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "api/expr/expr.h"
#include "api/expr/request.h"
#include "api/ops/ops.h"
#include "api/ops/txn.h"
#include "api/ops/write.h"
#include "api/proto/av.h"
#include "storage/util.h"

static int
take_key(struct txn_item *ti, struct ddb_err *err)
{
    if (write_take_key(&ti->w, err) != 0)
        return -1;
    if (ti->w.key == NULL)
        return ddb_err_set(err, DDB_VALIDATION, "1 validation error "
                           "detected: Value null at 'key' failed to "
                           "satisfy constraint: Member must not be null");
    return 0;
}

/* The same item twice (same table, same key)? */
/* ------------------------------------------------------------------------
 * TransactWriteItems
 * ---------------------------------------------------------------------- */

/* TransactItems (n entries) must be a list of 1 to TXN_ITEMS_MAX, else
 * -1 with DynamoDB's "Member must not be null". */
static int
check_items_list(const json_t *list, size_t n, struct ddb_err *err)
{
    if (!json_is_array(list) || n == 0 || n > TXN_ITEMS_MAX)
        return ddb_err_set(err, DDB_VALIDATION, "1 validation error "
                           "detected: Value null at 'transactItems' failed "
                           "to satisfy constraint: Member must not be null");
    return 0;
}

/* The write path's kind of a write action. */
static enum write_kind
write_kind_of(enum txn_kind k)
{
    switch (k) {
    case TK_PUT:    return WRITE_PUT;
    case TK_UPDATE: return WRITE_UPDATE;
    case TK_DELETE: return WRITE_DELETE;
    default:        return WRITE_CHECK;
    }
}

/* Which action a TransactWriteItem holds; -1 unless exactly one. */
static int
write_action(const json_t *e, enum txn_kind *kind, const json_t **op)
{
    static const struct { const char *name; enum txn_kind kind; } acts[] = {
        { "ConditionCheck", TK_CHECK }, { "Put", TK_PUT },
        { "Delete", TK_DELETE }, { "Update", TK_UPDATE },
    };
    int found = 0;

    for (size_t i = 0; i < sizeof(acts) / sizeof(acts[0]); i++) {
        const json_t *v = json_object_get(e, acts[i].name);

        if (v == NULL || json_is_null(v))
            continue;
        *kind = acts[i].kind;
        *op = v;
        found++;
    }
    return found == 1 && json_is_object(*op) ? 0 : -1;
}

/* Levels of M/L nesting below the AttributeValues of map m (a value
 * nested n times counts n); stops counting past `cap`. */
static int
nest_depth(const json_t *m, int cap)
{
    const char *k;
    json_t *av, *v, *e;
    size_t i;
    int best = 0, d;

    if (!json_is_object(m) || cap <= 0)
        return 0;
    json_object_foreach((json_t *)m, k, av) {
        if ((v = json_object_get(av, "M")) != NULL && json_is_object(v))
            d = 1 + nest_depth(v, cap - 1);
        else if ((v = json_object_get(av, "L")) != NULL &&
                 json_is_array(v)) {
            json_t *wrap = json_object();

            d = 1;
            json_array_foreach(v, i, e) {
                int x;

                json_object_set(wrap, "e", e);
                x = 1 + nest_depth(wrap, cap - 1);
                d = x > d ? x : d;
            }
            json_decref(wrap);
        } else
            continue;
        best = d > best ? d : best;
        if (best > cap)
            break;
    }
    return best;
}

/* Past about 62 levels DynamoDB reads a value differently, and a Key
 * that deep is checked after the action's expressions (syntax, size),
 * where a shallower one is checked before them (us-east-1 and eu-west-2,
 * 2026-10: paritysuite/dynamodb-conformance validation-ordering/
 * deepRequests.test.ts). */
#define TXN_LATE_DEPTH 62

/* "Empty attribute name": a Put item with a "" attribute, reported ahead
 * of the item's values, however deep (deepRequests.test.ts, 2026-10). */
static int
check_empty_names(const json_t *item, struct ddb_err *err)
{
    if (json_is_object(item) && json_object_get(item, "") != NULL)
        return ddb_err_set(err, DDB_VALIDATION, "Empty attribute name");
    return 0;
}

/* The request-only checks of one write action, in ops/item.c's order. */
static int
prepare_write(struct txn_item *ti, struct ddb_err *err)
{
    const json_t *op = ti->op;
    bool late_key = false;

    if (ti->kind == TK_PUT) {
        if (check_empty_names(json_object_get(op, "Item"), err) != 0 ||
            write_take_item(&ti->w, err) != 0)
            return -1;
        if (ti->w.item == NULL)
            return ddb_err_set(err, DDB_VALIDATION, "1 validation error "
                               "detected: Value null at 'item' failed to "
                               "satisfy constraint: Member must not be "
                               "null");
        if (ti->w.size > ITEM_SIZE_MAX)
            return ddb_err_set(err, DDB_VALIDATION, "Item size has exceeded "
                               "the maximum allowed size");
    } else if (nest_depth(json_object_get(op, "Key"), TXN_LATE_DEPTH + 1) >
               TXN_LATE_DEPTH) {
        late_key = true;
    } else if (take_key(ti, err) != 0) {
        return -1;
    }
    if (write_parse_exprs(&ti->w, err) != 0)
        return -1;
    if (late_key && take_key(ti, err) != 0)
        return -1;
    if (ti->kind == TK_UPDATE && ti->w.upd == NULL)
        return ddb_err_set(err, DDB_VALIDATION, "1 validation error "
                           "detected: Value null at 'updateExpression' "
                           "failed to satisfy constraint: Member must not "
                           "be null");
    if (ti->kind == TK_CHECK && ti->w.cond == NULL)
        return ddb_err_set(err, DDB_VALIDATION, "1 validation error "
                           "detected: Value null at 'conditionExpression' "
                           "failed to satisfy constraint: Member must not "
                           "be null");
    return 0;
}

/*
 * TransactWriteItems: up to 100 Put / Update / Delete / ConditionCheck
 * actions on distinct items, across tables and partitions, all or nothing.
 * A failed condition (or a per-item error found while evaluating against
 * the stored item) cancels everything: TransactionCanceledException with
 * one reason per action in request order.
 */
int
api_transact_write_items(struct api_ctx *ctx, const json_t *req,
                         json_t **resp, struct ddb_err *err)
{
    const json_t *list = json_object_get(req, "TransactItems");
    size_t n = json_array_size(list);
    struct txn_item *ti = txn_items_new(n);
    struct item_key *keys = xcalloc(n ? n : 1, sizeof(*keys));
    int rc = -1;

    if (check_items_list(list, n, err) != 0)
        goto out;
    for (size_t i = 0; i < n; i++) {
        if (write_action(json_array_get(list, i), &ti[i].kind,
                         &ti[i].op) != 0) {
            /* None at all is its own sentence (us-east-1, 2026-10:
             * paritysuite/dynamodb-conformance error-messages/
             * transactWriteItems.test.ts, "action with no operation"). */
            if (ti[i].op == NULL)
                ddb_err_set(err, DDB_VALIDATION, "Invalid Request: "
                            "TransactWriteRequest should contain Delete or "
                            "Put or Update request");
            else
                ddb_err_set(err, DDB_VALIDATION, "TransactItems can only "
                            "contain one of Check, Put, Update or Delete");
            goto out;
        }
        ti[i].w.kind = write_kind_of(ti[i].kind);
        ti[i].w.params = ti[i].op;
    }
    for (size_t i = 0; i < n; i++)
        if (prepare_write(&ti[i], err) != 0)
            goto out;
    if (txn_resolve_all(ctx, ti, keys, n, txn_resolve_write, err) != 0)
        goto out;
    rc = txn_write_commit(ctx, req, ti, keys, n, resp, err);
out:
    free(keys);
    txn_items_free(ti, n);
    return rc;
}

/* ------------------------------------------------------------------------
 * TransactGetItems
 * ---------------------------------------------------------------------- */

/* A Get's table, key and projection against the key schema. */
static int
resolve_get(struct api_ctx *ctx, struct txn_item *ti, struct item_key *k,
            struct ddb_err *err)
{
    if (table_ref_open(ctx, ti->op, &ti->ot, err) != 0 ||
        item_key_build(&ti->ot.ks, ti->w.key, true, k, err) != 0 ||
        expr_check_key_scalars(ti->proj, &ti->ot.ks, err) != 0)
        return -1;
    return 0;
}

/*
 * TransactGetItems: up to 100 Get actions read under one snapshot (every
 * partition involved locked together), so no transaction is seen half
 * applied. Responses are in request order, {} for a missing item.
 */
int
api_transact_get_items(struct api_ctx *ctx, const json_t *req,
                       json_t **resp, struct ddb_err *err)
{
    const json_t *list = json_object_get(req, "TransactItems");
    size_t n = json_array_size(list);
    struct txn_item *ti = txn_items_new(n);
    struct item_key *keys = xcalloc(n ? n : 1, sizeof(*keys));
    json_t **items = xcalloc(n ? n : 1, sizeof(*items));
    json_t *out, *responses;
    int rc = -1;

    if (check_items_list(list, n, err) != 0)
        goto out;
    for (size_t i = 0; i < n; i++) {
        ti[i].kind = TK_GET;
        ti[i].op = json_object_get(json_array_get(list, i), "Get");
        ti[i].w.params = ti[i].op;
        if (!json_is_object(ti[i].op)) {
            ddb_err_set(err, DDB_VALIDATION, "1 validation error detected: "
                        "Value null at 'transactItems.%zu.member.get' "
                        "failed to satisfy constraint: Member must not be "
                        "null", i + 1);
            goto out;
        }
        if (take_key(&ti[i], err) != 0 ||
            req_exprs_parse(&ti[i].w.x, ti[i].op, EXPR_PROJECTION, NULL,
                            &ti[i].proj, err) != 0 ||
            req_exprs_check_unused(&ti[i].w.x, ti[i].op, err) != 0)
            goto out;
    }
    if (txn_resolve_all(ctx, ti, keys, n, resolve_get, err) != 0 ||
        txn_get_commit(ctx, ti, keys, n, items, err) != 0)
        goto out;
    responses = json_array();
    for (size_t i = 0; i < n; i++) {
        json_t *r = json_object();

        if (items[i] != NULL)
            json_object_set_new(r, "Item",
                                ti[i].proj != NULL
                                    ? expr_project(ti[i].proj, items[i])
                                    : json_incref(items[i]));
        json_array_append_new(responses, r);
    }
    out = json_object();
    json_object_set_new(out, "Responses", responses);
    *resp = out;
    rc = 0;
out:
    for (size_t i = 0; i < n; i++)
        json_decref(items[i]);
    free(items);
    free(keys);
    txn_items_free(ti, n);
    return rc;
}
