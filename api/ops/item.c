/* SPDX-License-Identifier: MIT */
/* op_item.c - PutItem, GetItem, UpdateItem and DeleteItem: DynamoDB's
 * semantic checks in its order, resolve the table, check any condition
 * atomically inside stable_mutate(), then build the reply. */
#include <stdbool.h>
#include <string.h>

#include "api/ops/ops.h"
#include "api/proto/capacity.h"
#include "api/expr/expr.h"
#include "api/index/index.h"
#include "api/proto/av.h"
#include "api/ops/common.h"
#include "api/ops/txn_inflight.h"
#include "api/ops/envelope.h"
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

/* PutItem and DeleteItem accept only NONE and ALL_OLD. */
static int
check_return_values_old_only(const json_t *req, struct ddb_err *err)
{
    const json_t *rv = json_object_get(req, "ReturnValues");

    if (rv == NULL || json_is_null(rv) || json_str_is(rv, "NONE") ||
        json_str_is(rv, "ALL_OLD"))
        return 0;
    return ddb_err_set(err, DDB_VALIDATION,
                       "Return values set to invalid value");
}

/* Evaluate cond (may be NULL) against old; ConditionalCheckFailed when it
 * does not hold. */
static int
check_condition(const json_t *req, const struct expr *cond,
                const json_t *old, struct ddb_err *err)
{
    bool ok = true;

    if (cond == NULL)
        return 0;
    if (expr_eval(cond, old, &ok, err) != 0)
        return -1;
    if (!ok)
        return op_condition_failed(req, old, err);
    return 0;
}

/* ------------------------------------------------------------------------
 * Secondary indexes: tables that have them write through index_mutate()
 * (base row and index rows in one transaction); all others keep the plain
 * stable_mutate() path.
 * ---------------------------------------------------------------------- */

struct idx_state {
    bool has;                       /* the table has secondary indexes */
    struct index_set set;           /* opened when has */
    double units[INDEX_MAX];        /* index write units of the write */
    struct write_gate gate;      /* GSI back-pressure and the item
                                       collection limit (op_common.h) */
};

/* Make is safe for idx_close(). Only has and gate are set: set and units are
 * read only when has, and idx_open() zeroes them then (the struct is
 * ~15 KB, too much to clear on every plain write). */
static void
idx_init(struct idx_state *is)
{
    is->has = false;
    memset(&is->gate, 0, sizeof(is->gate));
}

static int
idx_open(struct api_ctx *ctx, const struct table_ref *ot, struct idx_state *is,
         struct ddb_err *err)
{
    json_t *d = stable_desc_ref(ot->t);
    int rc = 0;

    if (d != NULL && index_desc_has(d)) {
        is->has = true;
        memset(&is->set, 0, sizeof(is->set));
        memset(is->units, 0, sizeof(is->units));
        rc = index_set_open(ctx->srv->st, d, &is->set, err);
    }
    json_decref(d);
    return rc;
}

static void
idx_close(struct idx_state *is)
{
    gsi_gate_fini(&is->gate.g);
    if (is->has)
        index_set_close(&is->set);
}

/*
 * Write key k through fn. With indexes, the write is planned from the
 * current item and, before it commits, every GSI partition it would
 * change must have write capacity (throttling.md 5, GSI back-pressure)
 * and an LSI item collection must stay under the limit: a refusal
 * changes nothing. th is the request's base-table admission: a GSI
 * refusal cancels it (the request consumed nothing). The GSI units are
 * paid here once the write happened.
 */
static int
idx_mutate(struct api_ctx *ctx, struct idx_state *is,
           const struct table_ref *ot, const struct item_key *k,
           stable_mutate_fn *fn, void *arg, struct gate_ticket *th,
           struct ddb_err *err)
{
    int rc;

    if (!is->has)
        return stable_mutate(ot->t, k, fn, arg, err);
    write_gate_init(&is->gate, ctx, ot->name, &is->set, ot->t, k);
    rc = index_mutate_gated(&is->set, ot->t, k, fn, arg, write_gate_fn,
                            &is->gate, is->units, err);
    if (rc == 0)
        gsi_gate_charge(ctx, &is->gate.g);
    else if (is->gate.throttled)
        th->admitted = false;       /* throttled: nothing ran, no charge */
    gsi_gate_fini(&is->gate.g);
    return rc;
}

/* ConsumedCapacity: the table's write units plus, with indexes, theirs
 * (throttling.md 2-3). */
static void
idx_add_capacity(json_t *out, const json_t *req, const struct table_ref *ot,
                 const struct idx_state *is, double units)
{
    json_t *cc;

    if (!is->has) {
        op_add_capacity(out, req, ot->name, units);
        return;
    }
    cc = index_capacity_json(json_object_get(req, "ReturnConsumedCapacity"),
                             ot->name, units, &is->set, is->units);
    if (cc != NULL)
        json_object_set_new(out, "ConsumedCapacity", cc);
}

/* ItemCollectionMetrics (ReturnItemCollectionMetrics SIZE, tables with
 * LSIs only); item or key map carries the partition key. */
static int
idx_add_metrics(json_t *out, const json_t *req, const struct table_ref *ot,
                const struct idx_state *is, const struct item_key *k,
                const json_t *keyed, struct ddb_err *err)
{
    json_t *m;

    if (!is->has || !json_str_is(json_object_get(req,
                                            "ReturnItemCollectionMetrics"),
                            "SIZE"))
        return 0;
    if (err != NULL)
        ddb_err_clear(err);
    m = index_collection_metrics(&is->set, ot->t, k, keyed, err);
    if (m == NULL)
        return err != NULL && err->type != DDB_OK ? -1 : 0;
    json_object_set_new(out, "ItemCollectionMetrics", m);
    return 0;
}

/* ------------------------------------------------------------------------
 * PutItem
 * ---------------------------------------------------------------------- */

struct put_arg {
    const json_t *req;
    const struct expr *cond;
    json_t *item;                   /* borrowed: the new item */
    size_t size;                    /* its size */
    bool want_old;                  /* ReturnValues ALL_OLD */
    json_t *old;                    /* owned: the replaced item */
    size_t old_size;
};

static int
put_fn(void *arg, const json_t *old, json_t **new_item, size_t *new_size,
       bool *keep, struct ddb_err *err)
{
    struct put_arg *a = arg;

    (void)keep;
    json_decref(a->old);            /* in case storage calls us again */
    a->old = NULL;
    a->old_size = 0;
    if (check_condition(a->req, a->cond, old, err) != 0)
        return -1;
    if (old != NULL) {
        a->old_size = item_size(old);
        if (a->want_old)
            a->old = json_deep_copy(old);
    }
    *new_item = json_incref(a->item);
    *new_size = a->size;
    return 0;
}

/*
 * PutItem: replace the whole item, optionally under a condition. The
 * reply has Attributes (ReturnValues ALL_OLD, only when an item was
 * replaced) and ConsumedCapacity (write units of the larger of the old and
 * new item).
 */
int
api_put_item(struct api_ctx *ctx, const json_t *req, json_t **resp,
             struct ddb_err *err)
{
    struct req_exprs x;
    struct table_ref ot = { 0 };
    struct expr *cond = NULL;
    struct item_key k;
    struct put_arg a = { 0 };
    struct idx_state is;
    struct gate_ticket th;
    json_t *item = NULL, *out = NULL;
    size_t size = 0;
    int rc = -1;

    gate_init(&th);
    idx_init(&is);

    req_exprs_init(&x);
    if (req_exprs_begin_op(&x, req, "PutItem", err) != 0)
        goto out;
    if (item_copy_validate(req, "Item", &item, err) != 0)
        goto out;
    if (item == NULL) {
        ddb_err_set(err, DDB_VALIDATION, "1 validation error detected: "
                    "Value null at 'item' failed to satisfy constraint: "
                    "Member must not be null");
        goto out;
    }
    if (check_return_values_old_only(req, err) != 0)
        goto out;
    size = item_size(item);
    if (size > ITEM_SIZE_MAX) {
        ddb_err_set(err, DDB_VALIDATION,
                    "Item size has exceeded the maximum allowed size");
        goto out;
    }
    if (req_exprs_parse(&x, req, EXPR_CONDITION, NULL, &cond, err) != 0 ||
        req_exprs_check_unused(&x, req, err) != 0)
        goto out;

    if (table_ref_open(ctx, req, &ot, err) != 0)
        goto out;
    if (item_key_build(&ot.ks, item, false, &k, err) != 0)
        goto out;
    if (idx_open(ctx, &ot, &is, err) != 0 ||
        (is.has && index_check_item(&is.set, item, err) != 0))
        goto out;

    a.req = req;
    a.cond = cond;
    a.item = item;
    a.size = size;
    a.want_old = json_str_is(json_object_get(req, "ReturnValues"), "ALL_OLD");
    /* Throttling: the table, then (planned from the current item) the
     * GSI partitions the write changes. An item an ongoing transaction
     * holds: TransactionConflictException (txn_inflight.c). */
    if (txn_inflight_check(ctx, ot.name, &k, err) != 0 ||
        gate_admit(ctx, ot.t, &k, THROTTLE_WRITE,
                          capacity_write_units(size), &th, err) != 0 ||
        idx_mutate(ctx, &is, &ot, &k, put_fn, &a, &th, err) != 0)
        goto out;

    out = json_object();
    if (a.old != NULL)
        json_object_set(out, "Attributes", a.old);
    idx_add_capacity(out, req, &ot, &is,
                     capacity_write_units(size > a.old_size ? size
                                                            : a.old_size));
    if (idx_add_metrics(out, req, &ot, &is, &k, item, err) != 0)
        goto out;
    *resp = out;
    out = NULL;
    rc = 0;
out:
    /* A failed condition still consumed (throttling.md 2). */
    gate_charge(ctx, &th, capacity_write_units(
                                     size > a.old_size ? size : a.old_size));
    json_decref(out);
    json_decref(a.old);
    json_decref(item);
    expr_free(cond);
    req_exprs_fini(&x);
    idx_close(&is);
    table_ref_close(&ot);
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
    op_add_capacity(out, req, ot.name, capacity_read_units(size, consistent));
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

/* ------------------------------------------------------------------------
 * UpdateItem
 * ---------------------------------------------------------------------- */

enum rv_mode { RV_NONE, RV_ALL_OLD, RV_UPDATED_OLD, RV_UPDATED_NEW,
               RV_ALL_NEW };

static enum rv_mode
rv_mode_of(const json_t *req)
{
    const json_t *rv = json_object_get(req, "ReturnValues");

    if (json_str_is(rv, "ALL_OLD"))
        return RV_ALL_OLD;
    if (json_str_is(rv, "UPDATED_OLD"))
        return RV_UPDATED_OLD;
    if (json_str_is(rv, "UPDATED_NEW"))
        return RV_UPDATED_NEW;
    if (json_str_is(rv, "ALL_NEW"))
        return RV_ALL_NEW;
    return RV_NONE;
}

struct update_arg {
    const json_t *req;
    const struct expr *cond;
    const struct expr *upd;         /* NULL: no UpdateExpression */
    json_t *key;                    /* borrowed: the validated Key map */
    enum rv_mode rv;
    json_t *attrs;                  /* owned: the reply's Attributes */
    size_t old_size, new_size;
};

/* The reply's Attributes for rv from old/new (either may be NULL). NULL
 * when there is nothing to return. */
static json_t *
update_attrs(const struct update_arg *a, const json_t *old,
             const json_t *new_item)
{
    const struct expr *targets;
    json_t *r = NULL;

    switch (a->rv) {
    case RV_NONE:
        return NULL;
    case RV_ALL_OLD:
        return old != NULL ? json_deep_copy(old) : NULL;
    case RV_ALL_NEW:
        return new_item != NULL ? json_deep_copy(new_item) : NULL;
    case RV_UPDATED_OLD:
    case RV_UPDATED_NEW:
        targets = a->upd != NULL ? expr_update_targets(a->upd) : NULL;
        if (targets == NULL)
            return NULL;
        if (a->rv == RV_UPDATED_OLD && old != NULL)
            r = expr_project(targets, old);
        else if (a->rv == RV_UPDATED_NEW && new_item != NULL)
            r = expr_project(targets, new_item);
        break;
    }
    if (r != NULL && json_object_size(r) == 0) {
        json_decref(r);
        r = NULL;
    }
    return r;
}

static int
update_fn(void *arg, const json_t *old, json_t **new_item, size_t *new_size,
          bool *keep, struct ddb_err *err)
{
    struct update_arg *a = arg;
    json_t *n = NULL;
    const char *name;
    json_t *v;
    int rc = -1;

    json_decref(a->attrs);          /* in case storage calls us again */
    a->attrs = NULL;
    a->old_size = a->new_size = 0;
    if (check_condition(a->req, a->cond, old, err) != 0)
        return -1;
    if (old != NULL)
        a->old_size = item_size(old);
    if (a->upd != NULL) {
        if (expr_update_apply(a->upd, old, &n, err) != 0)
            goto out;
    } else if (old != NULL) {
        /* Nothing to update on an existing item: leave the row alone. */
        *keep = true;
        a->new_size = a->old_size;
        a->attrs = update_attrs(a, old, old);
        return 0;
    } else {
        n = json_object();
    }
    if (n == NULL) {
        ddb_err_set(err, DDB_INTERNAL, "update produced no item");
        goto out;
    }
    /*
     * An update that only REMOVEs/DELETEs on a missing item does not
     * create it (the AttributeUpdates DELETE action: "Nothing happens").
     * With no update at all, the item is created with just its key.
     */
    if (old == NULL && a->upd != NULL && json_object_size(n) == 0) {
        *keep = true;
        a->new_size = 0;
        rc = 0;
        goto out;
    }
    json_object_foreach(a->key, name, v)
        json_object_set_new(n, name, json_deep_copy(v));
    a->new_size = item_size(n);
    if (a->new_size > ITEM_SIZE_MAX) {
        ddb_err_set(err, DDB_VALIDATION, "Item size to update has exceeded "
                    "the maximum allowed size");
        goto out;
    }
    a->attrs = update_attrs(a, old, n);
    *new_item = n;
    *new_size = a->new_size;
    n = NULL;
    rc = 0;
out:
    json_decref(n);
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
    struct req_exprs x;
    struct table_ref ot = { 0 };
    struct expr *upd = NULL, *cond = NULL;
    struct item_key k;
    struct update_arg a = { 0 };
    struct idx_state is;
    struct gate_ticket th;
    json_t *key = NULL, *out = NULL;
    size_t units_size;
    int rc = -1;

    gate_init(&th);
    idx_init(&is);

    req_exprs_init(&x);
    /* envelope_check() already did the steps below without an error:
     * take its results rather than redo them. */
    if (envelope_take_update(req, &x, &upd, &cond, &key))
        goto parsed;
    if (req_exprs_begin_op(&x, req, "UpdateItem", err) != 0)
        goto out;
    if (item_copy_validate(req, "Key", &key, err) != 0)
        goto out;
    if (key == NULL) {
        ddb_err_set(err, DDB_VALIDATION, "1 validation error detected: "
                    "Value null at 'key' failed to satisfy constraint: "
                    "Member must not be null");
        goto out;
    }
    if (req_exprs_parse(&x, req, EXPR_UPDATE, NULL, &upd, err) != 0 ||
        req_exprs_parse(&x, req, EXPR_CONDITION, NULL, &cond, err) != 0 ||
        req_exprs_check_unused(&x, req, err) != 0)
        goto out;

parsed:
    if (table_ref_open(ctx, req, &ot, err) != 0)
        goto out;
    if (item_key_build(&ot.ks, key, true, &k, err) != 0)
        goto out;
    if (upd != NULL && (expr_update_check(upd, &ot.ks, err) != 0 ||
                        req_check_key_scalars(req, "UpdateExpression",
                                             &ot.ks, err) != 0))
        goto out;

    a.req = req;
    a.cond = cond;
    a.upd = upd;
    a.key = key;
    a.rv = rv_mode_of(req);
    if (idx_open(ctx, &ot, &is, err) != 0 ||
        txn_inflight_check(ctx, ot.name, &k, err) != 0 ||
        gate_admit(ctx, ot.t, &k, THROTTLE_WRITE, 1, &th, err) != 0 ||
        idx_mutate(ctx, &is, &ot, &k, update_fn, &a, &th, err) != 0)
        goto out;

    out = json_object();
    if (a.attrs != NULL) {
        json_object_set_new(out, "Attributes", a.attrs);
        a.attrs = NULL;
    }
    units_size = a.new_size > a.old_size ? a.new_size : a.old_size;
    idx_add_capacity(out, req, &ot, &is, capacity_write_units(units_size));
    if (idx_add_metrics(out, req, &ot, &is, &k, key, err) != 0)
        goto out;
    *resp = out;
    out = NULL;
    rc = 0;
out:
    gate_charge(ctx, &th, capacity_write_units(
        a.new_size > a.old_size ? a.new_size : a.old_size));
    json_decref(out);
    json_decref(a.attrs);
    json_decref(key);
    expr_free(cond);
    expr_free(upd);
    req_exprs_fini(&x);
    idx_close(&is);
    table_ref_close(&ot);
    return rc;
}

/* ------------------------------------------------------------------------
 * DeleteItem
 * ---------------------------------------------------------------------- */

struct delete_arg {
    const json_t *req;
    const struct expr *cond;
    bool want_old;
    json_t *old;                    /* owned: the deleted item */
    size_t old_size;
};

static int
delete_fn(void *arg, const json_t *old, json_t **new_item, size_t *new_size,
          bool *keep, struct ddb_err *err)
{
    struct delete_arg *a = arg;

    json_decref(a->old);            /* in case storage calls us again */
    a->old = NULL;
    a->old_size = 0;
    if (check_condition(a->req, a->cond, old, err) != 0)
        return -1;
    *new_item = NULL;
    *new_size = 0;
    if (old == NULL) {
        *keep = true;
        return 0;
    }
    a->old_size = item_size(old);
    if (a->want_old)
        a->old = json_deep_copy(old);
    return 0;
}

/*
 * DeleteItem: remove one item by key, optionally under a condition.
 * Attributes (ReturnValues ALL_OLD) only when an item was deleted.
 */
int
api_delete_item(struct api_ctx *ctx, const json_t *req, json_t **resp,
                struct ddb_err *err)
{
    struct req_exprs x;
    struct table_ref ot = { 0 };
    struct expr *cond = NULL;
    struct item_key k;
    struct delete_arg a = { 0 };
    struct idx_state is;
    struct gate_ticket th;
    json_t *key = NULL, *out = NULL;
    int rc = -1;

    gate_init(&th);
    idx_init(&is);

    req_exprs_init(&x);
    if (req_exprs_begin_op(&x, req, "DeleteItem", err) != 0)
        goto out;
    if (item_copy_validate(req, "Key", &key, err) != 0)
        goto out;
    if (key == NULL) {
        ddb_err_set(err, DDB_VALIDATION, "1 validation error detected: "
                    "Value null at 'key' failed to satisfy constraint: "
                    "Member must not be null");
        goto out;
    }
    if (check_return_values_old_only(req, err) != 0)
        goto out;
    if (req_exprs_parse(&x, req, EXPR_CONDITION, NULL, &cond, err) != 0 ||
        req_exprs_check_unused(&x, req, err) != 0)
        goto out;

    if (table_ref_open(ctx, req, &ot, err) != 0)
        goto out;
    if (item_key_build(&ot.ks, key, true, &k, err) != 0)
        goto out;

    a.req = req;
    a.cond = cond;
    a.want_old = json_str_is(json_object_get(req, "ReturnValues"), "ALL_OLD");
    if (idx_open(ctx, &ot, &is, err) != 0 ||
        txn_inflight_check(ctx, ot.name, &k, err) != 0 ||
        gate_admit(ctx, ot.t, &k, THROTTLE_WRITE, 1, &th, err) != 0 ||
        idx_mutate(ctx, &is, &ot, &k, delete_fn, &a, &th, err) != 0)
        goto out;

    out = json_object();
    if (a.old != NULL)
        json_object_set(out, "Attributes", a.old);
    idx_add_capacity(out, req, &ot, &is, capacity_write_units(a.old_size));
    if (idx_add_metrics(out, req, &ot, &is, &k, key, err) != 0)
        goto out;
    *resp = out;
    out = NULL;
    rc = 0;
out:
    gate_charge(ctx, &th, capacity_write_units(a.old_size));
    json_decref(out);
    json_decref(a.old);
    json_decref(key);
    expr_free(cond);
    req_exprs_fini(&x);
    idx_close(&is);
    table_ref_close(&ot);
    return rc;
}
