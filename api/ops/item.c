/* SPDX-License-Identifier: MIT */
/* item.c - PutItem, GetItem, UpdateItem and DeleteItem. The three writes
 * are thin over the shared write path (write.h): DynamoDB's request checks
 * in its order, then the table, then one read-modify-write. */
#include <stdbool.h>
#include <string.h>

#include "api/expr/expr.h"
#include "api/index/index.h"
#include "api/ops/common.h"
#include "api/ops/ops.h"
#include "api/ops/write.h"
#include "api/proto/av.h"
#include "api/proto/capacity.h"
#include "api/proto/validate.h"
#include "storage/util.h"

/*
 * Order of checks (DynamoDB, as modelled by dynalite's validations/ and
 * actions/): expression/legacy mix; the Item/Key AttributeValues;
 * ReturnValues (Put/Delete); item size (Put); legacy conditions and
 * updates; ExpressionAttributeNames/Values; the expressions in the order
 * Update, Condition, Projection; unused names/values. Only then the table
 * (ResourceNotFoundException), the key against the schema, key updates,
 * and finally the condition against the stored item.
 */

/* ------------------------------------------------------------------------
 * PutItem, UpdateItem, DeleteItem
 * ---------------------------------------------------------------------- */

static const char *const write_op_names[] = {
    [WRITE_PUT] = "PutItem", [WRITE_UPDATE] = "UpdateItem",
    [WRITE_DELETE] = "DeleteItem",
};

/* The request-only checks of a single-item write, in DynamoDB's order. */
static int
prepare(struct write_req *w, struct ddb_err *err)
{
    const json_t *rv = json_object_get(w->params, "ReturnValues");

    if (req_exprs_begin_op(&w->x, w->params, write_op_names[w->kind],
                           err) != 0)
        return -1;
    if ((w->kind == WRITE_PUT ? write_take_item(w, err)
                              : write_take_key(w, err)) != 0)
        return -1;
    if ((w->kind == WRITE_PUT ? w->item : w->key) == NULL)
        return ddb_err_set(err, DDB_VALIDATION, "1 validation error "
                           "detected: Value null at '%s' failed to satisfy "
                           "constraint: Member must not be null",
                           w->kind == WRITE_PUT ? "item" : "key");
    /* PutItem and DeleteItem accept only NONE and ALL_OLD. */
    if (w->kind != WRITE_UPDATE && rv != NULL && !json_is_null(rv) &&
        !json_str_is(rv, "NONE") && !json_str_is(rv, "ALL_OLD"))
        return ddb_err_set(err, DDB_VALIDATION,
                           "Return values set to invalid value");
    if (w->kind == WRITE_PUT && w->size > ITEM_SIZE_MAX)
        return ddb_err_set(err, DDB_VALIDATION,
                           "Item size has exceeded the maximum allowed size");
    return write_parse_exprs(w, err);
}

/*
 * The reply of a single-item write: Attributes (ReturnValues), the table's
 * write units plus its indexes' recorded for ConsumedCapacity
 * (throttling.md 2-3),
 * ItemCollectionMetrics (ReturnItemCollectionMetrics SIZE, tables with
 * LSIs). *resp is a new reference.
 */
static int
reply(struct api_ctx *ctx, struct write_req *w, const struct table_ref *tr,
      const struct item_key *k, const double *idx_units, json_t **resp,
      struct ddb_err *err)
{
    const json_t *req = w->params;
    json_t *out = json_object(), *m;

    if (w->attrs != NULL) {
        json_object_set_new(out, "Attributes", w->attrs);
        w->attrs = NULL;
    }
    capacity_add(ctx->cap, tr->name, 0, write_units(w));
    index_capacity_add(ctx->cap, tr->name, w->set, idx_units);
    if (w->set != NULL &&
        json_str_is(json_object_get(req, "ReturnItemCollectionMetrics"),
                    "SIZE")) {
        ddb_err_clear(err);
        m = index_collection_metrics(w->set, tr->t, k,
                                     w->item != NULL ? w->item : w->key,
                                     err);
        if (m == NULL && err->type != DDB_OK) {
            json_decref(out);
            return -1;
        }
        if (m != NULL)
            json_object_set_new(out, "ItemCollectionMetrics", m);
    }
    *resp = out;
    return 0;
}

/* A prepared single-item write: the table, then the write itself. */
static int
write_item(struct api_ctx *ctx, struct write_req *w, json_t **resp,
           struct ddb_err *err)
{
    struct table_ref tr = { 0 };
    double idx_units[INDEX_MAX];
    struct item_key k;
    int rc = -1;

    if (table_ref_open(ctx, w->params, &tr, err) != 0)
        goto out;
    if (write_resolve(ctx, w, &tr, &k, err) != 0)
        goto out;
    w->rv = write_rv_of(w->params);
    if (write_single(ctx, w, &tr, &k, idx_units, err) != 0 ||
        reply(ctx, w, &tr, &k, idx_units, resp, err) != 0)
        goto out;
    rc = 0;
out:
    table_ref_close(&tr);
    return rc;
}

/* PutItem: replace the whole item, optionally under a condition;
 * Attributes (ReturnValues ALL_OLD) only when an item was replaced. */
int
api_put_item(struct api_ctx *ctx, const json_t *req, json_t **resp,
             struct ddb_err *err)
{
    struct write_req w;
    int rc;

    write_req_init(&w, WRITE_PUT, req);
    rc = prepare(&w, err) == 0 ? write_item(ctx, &w, resp, err) : -1;
    write_req_fini(&w);
    return rc;
}

/*
 * UpdateItem: edit (or create) one item with UpdateExpression or the
 * legacy AttributeUpdates, optionally under a condition. ReturnValues may
 * be any of the five modes; UPDATED_* project the written paths.
 */
int
api_update_item(struct api_ctx *ctx, const json_t *req, json_t **resp,
                struct ddb_err *err)
{
    struct write_req w;
    int rc = -1;

    write_req_init(&w, WRITE_UPDATE, req);
    /* validate_request() already did the request checks without an
     * error: take its results rather than redo them. */
    if (validate_take_update(req, &w.x, &w.upd, &w.cond, &w.key) ||
        prepare(&w, err) == 0)
        rc = write_item(ctx, &w, resp, err);
    write_req_fini(&w);
    return rc;
}

/* DeleteItem: remove one item by key, optionally under a condition;
 * Attributes (ReturnValues ALL_OLD) only when an item was deleted. */
int
api_delete_item(struct api_ctx *ctx, const json_t *req, json_t **resp,
                struct ddb_err *err)
{
    struct write_req w;
    int rc;

    write_req_init(&w, WRITE_DELETE, req);
    rc = prepare(&w, err) == 0 ? write_item(ctx, &w, resp, err) : -1;
    write_req_fini(&w);
    return rc;
}

/* ------------------------------------------------------------------------
 * GetItem
 * ---------------------------------------------------------------------- */

/*
 * GetItem: one item by its full primary key, optionally projected. A
 * missing item gives {} (no Item member) and still costs one read step
 * (half when eventually consistent).
 */
int
api_get_item(struct api_ctx *ctx, const json_t *req, json_t **resp,
             struct ddb_err *err)
{
    struct req_exprs x;
    struct table_ref ot = { 0 };
    struct expr *proj = NULL;
    struct item_key k;
    json_t *key = NULL, *item = NULL, *out = NULL;
    struct gate_ticket th;
    bool consistent;
    size_t size = 0;
    int rc = -1;

    gate_init(&th);
    consistent = json_is_true(json_object_get(req, "ConsistentRead"));

    req_exprs_init(&x);
    if (req_exprs_begin_op(&x, req, "GetItem", err) != 0)
        goto out;
    if (item_copy_validate(req, "Key", &key, err) != 0)
        goto out;
    if (key == NULL) {
        ddb_err_set(err, DDB_VALIDATION, "1 validation error detected: "
                    "Value null at 'key' failed to satisfy constraint: "
                    "Member must not be null");
        goto out;
    }
    if (req_exprs_parse(&x, req, EXPR_PROJECTION, NULL, &proj, err) != 0 ||
        req_exprs_check_unused(&x, req, err) != 0)
        goto out;

    if (table_ref_open(ctx, req, &ot, err) != 0)
        goto out;
    if (item_key_build(&ot.ks, key, true, &k, err) != 0 ||
        req_check_key_scalars(req, "ProjectionExpression", &ot.ks, err) != 0)
        goto out;
    if (gate_admit(ctx, ot.t, &k, THROTTLE_READ,
                          capacity_read_units(0, consistent), &th,
                          err) != 0 ||
        stable_get(ot.t, &k, &item, err) != 0)
        goto out;

    out = json_object();
    if (item != NULL) {
        size = item_size(item);
        if (proj != NULL)
            json_object_set_new(out, "Item", expr_project(proj, item));
        else
            json_object_set(out, "Item", item);
    }
    capacity_add(ctx->cap, ot.name, capacity_read_units(size, consistent), 0);
    *resp = out;
    out = NULL;
    rc = 0;
out:
    gate_charge(ctx, &th, capacity_read_units(size, consistent));
    json_decref(out);
    json_decref(item);
    json_decref(key);
    expr_free(proj);
    req_exprs_fini(&x);
    table_ref_close(&ot);
    return rc;
}

