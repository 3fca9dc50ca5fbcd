/* SPDX-License-Identifier: MIT */
/* write.c - the one read-modify-write path (write.h): an item's write
 * taken from its request, resolved against the table, applied under the
 * partition lock, and run on its own with index upkeep; the gates every
 * write passes before it commits (GSI back-pressure, the LSI item
 * collection limit). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/expr/expr.h"
#include "api/ops/txn_inflight.h"
#include "api/ops/write.h"
#include "api/proto/av.h"
#include "api/proto/capacity.h"
#include "storage/util.h"

/* ------------------------------------------------------------------------
 * GSI back-pressure for every write path, and the item collection limit
 * ---------------------------------------------------------------------- */

void
gsi_gate_init(struct gsi_gate *g)
{
    memset(g, 0, sizeof(*g));
}

/* Forget every admission, giving back what it took (nothing paid). */
static void
gate_reset(struct gsi_gate *g)
{
    size_t i;

    for (i = 0; g->th != NULL && i < g->n; i++)
        gate_release(&g->th[i]);
    g->n = 0;
    g->refused = NULL;
    g->cause = THROTTLE_OK;
}

int
gsi_gate_admit(struct api_ctx *ctx, const char *table,
               const struct index_set *s, const struct index_plan *p,
               double mult, struct gsi_gate *g, struct ddb_err *err)
{
    double puts[INDEX_MAX];
    size_t i, j;

    gate_reset(g);
    if (ctx->srv->throttle == NULL || s == NULL || p == NULL)
        return 0;
    memset(puts, 0, sizeof(puts));
    /* The put rows' units per index: a delete pays the rest of the
     * index's units (index_plan charges the old row's size for it). */
    for (j = 0; j < p->nops; j++)
        for (i = 0; i < s->n; i++)
            if (s->idx[i].t == p->ops[j].t && p->args[j].row != NULL)
                puts[i] += capacity_write_units(p->args[j].size);
    for (j = 0; j < p->nops; j++) {
        const struct stxn_op *op = &p->ops[j];
        const struct index_def *d = NULL;
        struct gate_ticket *th;
        enum throttle_cause c;
        double u;

        for (i = 0; i < s->n; i++)
            if (s->idx[i].t == op->t) {
                d = &s->idx[i];
                break;
            }
        if (d == NULL || !d->global || p->units[i] <= 0)
            continue;
        u = p->args[j].row != NULL ? capacity_write_units(p->args[j].size)
                                   : p->units[i] - puts[i];
        if (u < 1)
            u = 1;
        if (g->th == NULL)
            g->th = xcalloc(2 * INDEX_MAX, sizeof(*g->th));
        if (g->n >= 2 * INDEX_MAX)
            break;
        th = &g->th[g->n];
        gate_init(th);
        c = gate_try_index(ctx, table, d, s->desc, op->k.hash, op->k.pk,
                           op->k.pk_len, THROTTLE_WRITE, u, th);
        if (c != THROTTLE_OK) {
            struct throttle_table *tt = th->tt;

            gate_reset(g);
            g->refused = tt;
            g->cause = c;
            return throttle_err(tt, THROTTLE_WRITE, c, err);
        }
        if (!th->admitted)
            continue;                   /* no throttle state: nothing due */
        g->units[g->n] = u * mult;
        g->n++;
    }
    return 0;
}

void
gsi_gate_charge(struct api_ctx *ctx, struct gsi_gate *g)
{
    size_t i;

    for (i = 0; g->th != NULL && i < g->n; i++)
        if (g->th[i].admitted) {
            g->th[i].admitted = false;
            throttle_charge(g->th[i].tt, &g->th[i].tk, g->units[i],
                            g->th[i].pk, g->th[i].pk_len, ctx->now_ms);
        }
    g->n = 0;
}

void
gsi_gate_fini(struct gsi_gate *g)
{
    gate_reset(g);
    free(g->th);
    g->th = NULL;
}

uint64_t
write_collection_limit(const struct api_ctx *ctx)
{
    if (ctx->srv == NULL || ctx->srv->conf == NULL)
        return 0;
    return ctx->srv->conf->item_collection_limit;
}

void
write_gate_init(struct write_gate *w, struct api_ctx *ctx,
                const char *table, const struct index_set *s,
                struct stable *base, const struct item_key *k)
{
    memset(w, 0, sizeof(*w));
    w->ctx = ctx;
    w->table = table;
    w->s = s;
    w->base = base;
    w->k = k;
    gsi_gate_init(&w->g);
}

int
write_gate_fn(void *arg, const json_t *old, const json_t *new_item,
              const struct index_plan *p, struct ddb_err *err)
{
    struct write_gate *w = arg;

    w->throttled = false;
    if (gsi_gate_admit(w->ctx, w->table, w->s, p, 1.0, &w->g,
                       err) != 0) {
        w->throttled = true;
        return -1;
    }
    if (index_collection_check(w->s, w->base, w->k, old, new_item,
                               write_collection_limit(w->ctx),
                               err) != 0) {
        gate_reset(&w->g);
        return -1;
    }
    return 0;
}


/* ------------------------------------------------------------------------
 * One item's write
 * ---------------------------------------------------------------------- */

void
write_req_init(struct write_req *w, enum write_kind kind,
               const json_t *params)
{
    memset(w, 0, sizeof(*w));
    w->kind = kind;
    w->params = params;
    req_exprs_init(&w->x);
}

void
write_req_fini(struct write_req *w)
{
    expr_free(w->cond);
    expr_free(w->upd);
    req_exprs_fini(&w->x);
    json_decref(w->item);
    json_decref(w->key);
    json_decref(w->attrs);
    if (w->set != NULL) {
        index_set_close(w->set);
        free(w->set);
    }
    vector_write_free(w->vec);
    memset(w, 0, sizeof(*w));
}

int
write_take_item(struct write_req *w, struct ddb_err *err)
{
    if ((w->own_params ? item_take_validate : item_copy_validate)(
            w->params, "Item", &w->item, err) != 0)
        return -1;
    w->size = w->item != NULL ? item_size(w->item) : 0;
    return 0;
}

int
write_take_key(struct write_req *w, struct ddb_err *err)
{
    return (w->own_params ? item_take_validate : item_copy_validate)(
        w->params, "Key", &w->key, err);
}

int
write_parse_exprs(struct write_req *w, struct ddb_err *err)
{
    if (w->kind == WRITE_UPDATE &&
        req_exprs_parse(&w->x, w->params, EXPR_UPDATE, NULL, &w->upd,
                        err) != 0)
        return -1;
    if (req_exprs_parse(&w->x, w->params, EXPR_CONDITION, NULL, &w->cond,
                        err) != 0)
        return -1;
    return req_exprs_check_unused(&w->x, w->params, err);
}

enum write_rv
write_rv_of(const json_t *params)
{
    static const char *const names[] = {
        [RV_NONE] = "NONE", [RV_ALL_OLD] = "ALL_OLD",
        [RV_UPDATED_OLD] = "UPDATED_OLD", [RV_UPDATED_NEW] = "UPDATED_NEW",
        [RV_ALL_NEW] = "ALL_NEW",
    };
    const json_t *rv = json_object_get(params, "ReturnValues");

    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (json_str_is(rv, names[i]))
            return (enum write_rv)i;
    return RV_NONE;
}

int
write_resolve(struct api_ctx *ctx, struct write_req *w,
              const struct table_ref *tr, struct item_key *k,
              struct ddb_err *err)
{
    json_t *d;
    int rc = 0;

    if (w->kind == WRITE_PUT) {
        if (item_key_build(&tr->ks, w->item, false, k, err) != 0)
            return -1;
    } else {
        if (item_key_build(&tr->ks, w->key, true, k, err) != 0)
            return -1;
        if (w->upd != NULL &&
            (expr_update_check(w->upd, &tr->ks, err) != 0 ||
             expr_check_key_scalars(w->upd, &tr->ks, err) != 0))
            return -1;
    }
    if (w->kind == WRITE_CHECK)
        return 0;
    d = stable_desc_ref(tr->t);
    if (d != NULL && index_desc_has(d)) {
        w->set = xcalloc(1, sizeof(*w->set));
        rc = index_set_open(ctx->srv->st, d, w->set, err);
    }
    if (rc == 0 && d != NULL && vector_desc_has(d)) {
        w->vec = vector_write_new(ctx->srv, tr->t, err);
        rc = w->vec != NULL ? 0 : -1;
    }
    json_decref(d);
    if (rc == 0 && w->kind == WRITE_PUT && w->set != NULL)
        rc = index_check_item(w->set, w->item, err);
    if (rc == 0 && w->kind == WRITE_PUT && w->vec != NULL)
        rc = vector_write_check(w->vec, NULL, w->item, NULL, NULL, err);
    return rc;
}

/* The sentence of TransactWriteItems' Update captured from DynamoDB
 * (paritysuite/dynamodb-conformance tests/tier3/error-messages/
 * transactWriteItems.test.ts, "Update empty-string index key"); UpdateItem
 * shares the path, the binary form is assumed to read alike. PutItem,
 * BatchWriteItem and the legacy AttributeUpdates keep the sentence that
 * names the index. */
void
write_index_error(const struct write_req *w, struct ddb_err *err)
{
    const size_t n = strlen(INDEX_EMPTY_KEY_MSG);
    bool binary;

    if (err == NULL || err->type != DDB_VALIDATION ||
        w->kind != WRITE_UPDATE ||
        json_object_get(w->params, "UpdateExpression") == NULL ||
        strncmp(err->msg, INDEX_EMPTY_KEY_MSG, n) != 0)
        return;
    binary = strncmp(err->msg + n, "binary", 6) == 0;
    ddb_err_clear(err);
    ddb_err_set(err, DDB_VALIDATION, "One or more parameter values are not "
                "valid. The update expression attempted to update a "
                "secondary index key to a value that is not supported. The "
                "AttributeValue for a key attribute cannot contain an empty "
                "%s value.", binary ? "binary" : "string");
}

int
write_condition_failed(const json_t *params, const json_t *old,
                       struct ddb_err *err)
{
    ddb_err_set(err, DDB_CONDITIONAL_CHECK_FAILED,
                "The conditional request failed");
    if (err != NULL && old != NULL &&
        json_str_is(json_object_get(params,
                                    "ReturnValuesOnConditionCheckFailure"),
                    "ALL_OLD"))
        ddb_err_extra_set_new(err, "Item", json_clone(old));
    return -1;
}

/* The reply's Attributes for ReturnValues from old/new (either may be
 * NULL); NULL when there is nothing to return. UPDATED_* project the
 * paths the update wrote. */
static json_t *
return_values(const struct write_req *w, const json_t *old,
              const json_t *new_item)
{
    const struct expr *targets;
    json_t *r = NULL;

    switch (w->rv) {
    case RV_NONE:
        return NULL;
    case RV_ALL_OLD:
        return old != NULL ? json_clone(old) : NULL;
    case RV_ALL_NEW:
        return new_item != NULL ? json_clone(new_item) : NULL;
    case RV_UPDATED_OLD:
    case RV_UPDATED_NEW:
        targets = w->upd != NULL ? expr_update_targets(w->upd) : NULL;
        if (targets == NULL)
            return NULL;
        if (w->rv == RV_UPDATED_OLD && old != NULL)
            r = expr_project(targets, old);
        else if (w->rv == RV_UPDATED_NEW && new_item != NULL)
            r = expr_project(targets, new_item);
        break;
    }
    if (r != NULL && json_object_size(r) == 0) {
        json_decref(r);
        r = NULL;
    }
    return r;
}

/* UPDATE's new item from old (may be NULL). *n NULL with *keep set when
 * nothing is to be written. */
static int
apply_update(struct write_req *w, const json_t *old, json_t **n,
             bool *keep, struct ddb_err *err)
{
    const char *name;
    json_t *v;

    *n = NULL;
    if (w->upd != NULL) {
        /* A missing item starts from its key, which the update's
         * operands see (expr_update_apply). */
        if (expr_update_apply(w->upd, old, w->key, n, err) != 0)
            return -1;
        if (*n == NULL)
            return ddb_err_set(err, DDB_INTERNAL, "update produced no item");
        /* An update that only REMOVEs/DELETEs on a missing item does not
         * create it (the AttributeUpdates DELETE action: "Nothing
         * happens"): nothing but the key came out. */
        if (old == NULL &&
            json_object_size(*n) == json_object_size(w->key)) {
            json_decref(*n);
            *n = NULL;
            *keep = true;
            return 0;
        }
    } else if (old != NULL) {
        /* Nothing to update on an existing item: leave the row alone. */
        *keep = true;
        return 0;
    } else {
        *n = json_object();         /* no update at all: the key alone */
    }
    json_object_foreach(w->key, name, v)    /* shared: nothing changes them */
        json_object_set(*n, name, v);
    return 0;
}

int
write_apply(void *arg, const json_t *old, size_t old_size, json_t **new_item,
            size_t *new_size, bool *keep, struct ddb_err *err)
{
    struct write_req *w = arg;
    json_t *n = NULL;
    bool ok = true;

    json_decref(w->attrs);          /* in case storage calls us again */
    w->attrs = NULL;
    w->old_size = old_size;
    w->new_size = 0;
    w->cond_failed = false;
    if (w->cond != NULL) {
        if (expr_eval(w->cond, old, &ok, err) != 0)
            return -1;
        if (!ok) {
            w->cond_failed = true;
            return write_condition_failed(w->params, old, err);
        }
    }
    switch (w->kind) {
    case WRITE_CHECK:
        *keep = true;
        return 0;
    case WRITE_DELETE:
        *keep = old == NULL;
        w->attrs = return_values(w, old, NULL);
        if (w->vec != NULL && old != NULL)
            return vector_write_check(w->vec, old, NULL, &w->old_size, NULL,
                                      err);
        return 0;
    case WRITE_PUT:
        n = json_incref(w->item);
        break;
    case WRITE_UPDATE:
        if (apply_update(w, old, &n, keep, err) != 0)
            return -1;
        if (n == NULL) {            /* nothing written */
            w->new_size = *keep && old != NULL ? w->old_size : 0;
            w->attrs = old != NULL ? return_values(w, old, old) : NULL;
            return 0;
        }
        break;
    }
    w->new_size = w->kind == WRITE_PUT ? w->size : item_size(n);
    if (w->kind == WRITE_UPDATE && w->new_size > ITEM_SIZE_MAX) {
        json_decref(n);
        return ddb_err_set(err, DDB_VALIDATION, "Item size to update has "
                           "exceeded the maximum allowed size");
    }
    *new_size = w->new_size;        /* stored as it is: reads size it */
    if (w->vec != NULL &&
        vector_write_check(w->vec, old, n, &w->old_size, &w->new_size,
                           err) != 0) {
        json_decref(n);
        return -1;
    }
    w->attrs = return_values(w, old, n);
    *new_item = n;
    return 0;
}

double
write_units(const struct write_req *w)
{
    size_t big = w->new_size > w->old_size ? w->new_size : w->old_size;

    if (w->gsi_refused)
        return 0;
    if (w->cond_failed)
        return w->kind == WRITE_PUT ? capacity_write_units(w->size) : 1.0;
    return capacity_write_units(big);
}

int
write_check_held(struct api_ctx *ctx, const struct table_ref *tr,
                 const struct item_key *k, struct ddb_err *err)
{
    return txn_inflight_check(ctx, tr->name, k, err);
}

void
write_vector_done(struct api_ctx *ctx, struct write_req *w,
                  const struct table_ref *tr, const struct item_key *k)
{
    if (w->vec != NULL)
        vector_write_done(w->vec, ctx, tr->name, tr->t, k);
}

/* Does w's outcome not depend on the item it replaces (beyond its size)?
 * Then storage need not read it (stable_mutate_blind). */
static bool
write_is_blind(const struct write_req *w)
{
    return (w->kind == WRITE_PUT || w->kind == WRITE_DELETE) &&
           w->cond == NULL && w->rv == RV_NONE && w->vec == NULL;
}

int
write_run(struct api_ctx *ctx, struct write_req *w,
          const struct table_ref *tr, const struct item_key *k,
          double *idx_units, struct ddb_err *err)
{
    struct write_gate gate;
    int rc;

    memset(idx_units, 0, sizeof(double) * INDEX_MAX);
    w->gsi_refused = false;
    if (w->set == NULL) {
        rc = write_is_blind(w)
                 ? stable_mutate_blind(tr->t, k, write_apply, w, err)
                 : stable_mutate(tr->t, k, write_apply, w, err);
        if (rc == 0)
            write_vector_done(ctx, w, tr, k);
        return rc;
    }
    /* The write is planned from the current item; before it commits,
     * every GSI partition it changes must have write capacity
     * (throttling.md 5) and an LSI item collection must stay under the
     * limit: a refusal changes nothing. */
    write_gate_init(&gate, ctx, tr->name, w->set, tr->t, k);
    rc = index_mutate_gated(w->set, tr->t, k, write_apply, w, write_gate_fn,
                            &gate, idx_units, err);
    if (rc == 0) {
        gsi_gate_charge(ctx, &gate.g);
        write_vector_done(ctx, w, tr, k);
    } else if (gate.throttled) {
        w->gsi_refused = true;
    } else {
        write_index_error(w, err);
    }
    gsi_gate_fini(&gate.g);
    return rc;
}

/* ------------------------------------------------------------------------
 * Time to Live deletes
 * ---------------------------------------------------------------------- */

/* DynamoDB deletes items whose TTL attribute is a Number of epoch seconds
 * below the current time, but not one more than five years in the past
 * (developer guide, "Time to Live": "the TTL can't be more than five years
 * in the past"); five years taken as 5 x 365 days. */
#define TTL_MAX_AGE_S (5ull * 365u * 86400u)

void
write_ttl_bounds(uint64_t now_ms, char *lo, char *hi)
{
    char text[64];
    struct ddb_err e;
    uint64_t s = now_ms / 1000u, floor_s;

    ddb_err_init(&e);
    snprintf(text, sizeof(text), "%llu.%03u", (unsigned long long)s,
             (unsigned)(now_ms % 1000u));
    if (num_canonical(text, hi, &e) != 0)
        snprintf(hi, NUM_TEXT_MAX, "%llu", (unsigned long long)s);
    floor_s = s > TTL_MAX_AGE_S ? s - TTL_MAX_AGE_S : 0;
    snprintf(lo, NUM_TEXT_MAX, "%llu", (unsigned long long)floor_s);
    ddb_err_clear(&e);
}

int
write_expire(struct api_ctx *ctx, const struct table_ref *tr,
             const json_t *key, const char *attr, uint64_t now_ms,
             bool *deleted, struct ddb_err *err)
{
    char lo[NUM_TEXT_MAX], hi[NUM_TEXT_MAX];
    struct write_req w;
    struct item_key *k = xmalloc(sizeof(*k));
    json_t *params;
    int rc = -1;

    *deleted = false;
    write_ttl_bounds(now_ms, lo, hi);
    params = json_pack("{s:O, s:s, s:{s:s}, s:{s:{s:s}, s:{s:s}}}", "Key",
                       key, "ConditionExpression",
                       "#ttl < :hi AND #ttl >= :lo",
                       "ExpressionAttributeNames", "#ttl", attr,
                       "ExpressionAttributeValues", ":hi", "N", hi, ":lo",
                       "N", lo);
    write_req_init(&w, WRITE_DELETE, params);
    if (write_take_key(&w, err) != 0 || write_parse_exprs(&w, err) != 0 ||
        write_resolve(ctx, &w, tr, k, err) != 0)
        goto out;
    if (w.set != NULL)
        rc = index_mutate(w.set, tr->t, k, STORAGE_ORIGIN_SERVICE,
                          write_apply, &w, NULL, err);
    else
        rc = stable_mutate_as(tr->t, k, STORAGE_ORIGIN_SERVICE, write_apply,
                              &w, err);
    if (rc != 0 && w.cond_failed) {
        ddb_err_clear(err);         /* no longer expired: it stays */
        rc = 0;
    } else if (rc == 0) {
        *deleted = true;
        write_vector_done(ctx, &w, tr, k);
    }
out:
    write_req_fini(&w);
    json_decref(params);
    free(k);
    return rc;
}
