/* SPDX-License-Identifier: MIT */
/* status.c - table status transitions and the DDL lock. CREATING, UPDATING
 * and DELETING last the configured status delay and end lazily (no
 * timers): whoever opens the table after PRIV_UNTIL settles it, under the
 * lock that serialises every read-modify-write of a description. */
#include <pthread.h>
#include <stdbool.h>
#include <string.h>

#include "api/proto/context.h"
#include "api/index/index.h"
#include "api/tables/tables.h"
#include "api/tables/tables_int.h"
#include "api/throttle/gate.h"
#include "api/vector/vector.h"
#include "storage/util.h"

/* Serialises read-modify-write of descriptions (DDL and lazy status
 * transitions). Data operations only read, and take it only when a
 * transition has to be written. */
static pthread_mutex_t ddl_lock = PTHREAD_MUTEX_INITIALIZER;

/* The lock for a description read-modify-write outside the DDL handlers
 * (UpdateContributorInsights): without it, such a write could put back a
 * stale description over a concurrent UpdateTable's. Not recursive: never
 * call api_open_table*() while holding it. */
void
api_ddl_lock(void)
{
    pthread_mutex_lock(&ddl_lock);
}

void
api_ddl_unlock(void)
{
    pthread_mutex_unlock(&ddl_lock);
}

/* ------------------------------------------------------------------------
 * Settling a description: the transition due at some time
 * ---------------------------------------------------------------------- */

enum settle_result { SETTLE_SAME, SETTLE_CHANGED, SETTLE_GONE };

/* DynamoDB describes only the key attributes of the table and its
 * indexes, so a definition goes with the last index that used it. */
void
tables_prune_defs(json_t *desc)
{
    static const char *const lists[2] = { "GlobalSecondaryIndexes",
                                          "LocalSecondaryIndexes" };
    json_t *defs = json_object_get(desc, "AttributeDefinitions");
    const json_t *ks, *el, *idx;
    size_t i, j, k, l;
    bool used;

    for (i = 0; i < json_array_size(defs);) {
        const json_t *n = json_object_get(json_array_get(defs, i),
                                          "AttributeName");

        used = vector_desc_uses(desc, json_string_value(n));
        json_array_foreach(json_object_get(desc, "KeySchema"), j, el)
            used |= json_equal(json_object_get(el, "AttributeName"),
                               (json_t *)n);
        for (k = 0; k < 2; k++)
            json_array_foreach(json_object_get(desc, lists[k]), l, idx) {
                ks = json_object_get(idx, "KeySchema");
                json_array_foreach(ks, j, el)
                    used |= json_equal(json_object_get(el, "AttributeName"),
                                       (json_t *)n);
            }
        if (used)
            i++;
        else
            json_array_remove(defs, i);
    }
}

void
tables_index_remove(json_t *desc, const char *list, const json_t *el)
{
    json_t *arr = json_object_get(desc, list);
    size_t pos;

    for (pos = 0; pos < json_array_size(arr); pos++)
        if (json_array_get(arr, pos) == el) {
            json_array_remove(arr, pos);
            break;
        }
    if (arr != NULL && json_array_size(arr) == 0)
        json_object_del(desc, list);
    tables_prune_defs(desc);
}

/* The end of a table transition also ends its GSIs' ones: CREATING and
 * UPDATING indexes become ACTIVE (backfill over), DELETING ones go. */
static void
settle_indexes(json_t *desc)
{
    json_t *gsis = json_object_get(desc, "GlobalSecondaryIndexes");
    json_t *g, *wt;
    const char *st;
    size_t i;

    for (i = 0; i < json_array_size(gsis);) {
        g = json_array_get(gsis, i);
        st = tables_str(g, "IndexStatus");
        if (st != NULL && strcmp(st, "DELETING") == 0) {
            json_array_remove(gsis, i);
            continue;
        }
        json_object_set_new(g, "IndexStatus", json_string("ACTIVE"));
        json_object_del(g, "Backfilling");
        wt = json_object_get(g, "WarmThroughput");
        if (json_is_object(wt))
            json_object_set_new(wt, "Status", json_string("ACTIVE"));
        i++;
    }
    if (gsis != NULL && json_array_size(gsis) == 0)
        json_object_del(desc, "GlobalSecondaryIndexes");
    tables_prune_defs(desc);
}

/*
 * Apply the transition that is due at now_ms to desc (modified in place):
 * CREATING/UPDATING become ACTIVE, DELETING means the table is gone.
 */
static enum settle_result
settle_desc(json_t *desc, uint64_t now_ms)
{
    const char *status = tables_str(desc, "TableStatus");
    json_t *until = json_object_get(desc, PRIV_UNTIL);
    json_t *bms, *wt;
    /* Vector indexes move through their phases on their own clock. */
    bool vec = vector_desc_settle(desc, now_ms);
    bool warm = tables_warm_settle(desc, now_ms);

    if (status == NULL || !json_is_integer(until) ||
        (uint64_t)json_integer_value(until) > now_ms)
        return vec || warm ? SETTLE_CHANGED : SETTLE_SAME;
    if (strcmp(status, "DELETING") == 0)
        return SETTLE_GONE;
    if (strcmp(status, "CREATING") == 0) {
        /* DynamoDB stamps an on-demand table's billing summary once the
         * table is ACTIVE, with the creation time. */
        bms = json_object_get(desc, "BillingModeSummary");
        if (json_is_object(bms) &&
            json_object_get(bms, "LastUpdateToPayPerRequestDateTime") == NULL)
            json_object_set(bms, "LastUpdateToPayPerRequestDateTime",
                            json_object_get(desc, "CreationDateTime"));
    }
    json_object_set_new(desc, "TableStatus", json_string("ACTIVE"));
    wt = json_object_get(desc, "WarmThroughput");
    if (json_is_object(wt))
        json_object_set_new(wt, "Status", json_string("ACTIVE"));
    json_object_del(desc, PRIV_UNTIL);
    /* A restored table shows no trace of its restore once ACTIVE
     * (ack-api-quirks DDB-TABLE-216). */
    json_object_del(desc, "RestoreSummary");
    settle_indexes(desc);
    return SETTLE_CHANGED;
}

/* A table with a stream is kept (hidden) for its stream's 24 hours
 * (streams_meta.c); the rest goes at once. */
int
tables_drop(struct api_ctx *ctx, const char *name, struct ddb_err *err)
{
    struct storage *st = ctx->srv->st;
    int kept = tables_stream_retire(ctx, name, err);

    if (kept < 0)
        return -1;
    if (kept == 0 && storage_table_delete(st, name, err) != 0 &&
        err != NULL && err->type != DDB_OK &&
        err->type != DDB_RESOURCE_NOT_FOUND)
        return -1;
    if (err != NULL)
        ddb_err_clear(err);
    index_drop_all(st, name);
    gate_table_dropped(ctx, name);
    vector_table_drop(ctx->srv->vectors, name);
    return 0;
}

/*
 * The first read is without the lock: a transition is rarely due. When
 * one is, the second read, under the lock and on a fresh copy, decides
 * and writes it.
 */
int
tables_open_settled(struct api_ctx *ctx, const char *name, bool with_lock,
                    struct stable **t, json_t **desc, struct ddb_err *err)
{
    struct storage *st = ctx->srv->st;
    struct stable *tab = NULL;
    json_t *d = NULL;
    enum settle_result r;
    bool locked = false;            /* we took the lock */
    int pass, rc = 1;

    for (pass = 0;; pass++) {
        tab = storage_table_get(st, name);
        if (tab == NULL)
            goto out;
        d = stable_desc(tab);
        if (d == NULL)
            goto out;
        r = settle_desc(d, tables_now_ms(ctx));
        if (r == SETTLE_SAME || pass == 1)
            break;
        json_decref(d);
        d = NULL;
        stable_release(tab);
        tab = NULL;
        if (!with_lock) {
            api_ddl_lock();
            locked = true;
        }
    }
    rc = -1;
    if (r == SETTLE_GONE) {
        stable_release(tab);
        tab = NULL;
        if (tables_drop(ctx, name, err) == 0)
            rc = 1;
        goto out;
    }
    if (r == SETTLE_CHANGED && stable_set_desc(tab, d, err) != 0)
        goto out;
    *t = tab;
    *desc = d;
    tab = NULL;
    d = NULL;
    rc = 0;
out:
    if (locked)
        api_ddl_unlock();
    json_decref(d);
    if (tab != NULL)
        stable_release(tab);
    return rc;
}

/* ------------------------------------------------------------------------
 * Entering a transition
 * ---------------------------------------------------------------------- */

int
tables_check_in_use(const json_t *desc, const char *name,
                    struct ddb_err *err)
{
    const char *status = tables_str(desc, "TableStatus");
    const char *what = NULL;

    if (status == NULL)
        return 0;
    if (strcmp(status, "CREATING") == 0)
        what = "created";
    else if (strcmp(status, "UPDATING") == 0)
        what = "updated";
    else if (strcmp(status, "DELETING") == 0)
        what = "deleted";
    if (what == NULL)
        return 0;
    return ddb_err_set(err, DDB_RESOURCE_IN_USE,
                       "Attempt to change a resource which is still in use: "
                       "Table is being %s: %s", what,
                       api_table_public(name));
}

/* DELETING is not set here: DeleteTable drops the table at once when the
 * delay is 0. */
void
tables_set_status(const struct api_ctx *ctx, json_t *desc,
                  const char *transitional, uint64_t now)
{
    unsigned delay = tables_status_delay(ctx);
    json_t *wt = json_object_get(desc, "WarmThroughput");

    if (delay == 0) {
        json_object_set_new(desc, "TableStatus", json_string("ACTIVE"));
        json_object_del(desc, PRIV_UNTIL);
        return;
    }
    json_object_set_new(desc, "TableStatus", json_string(transitional));
    json_object_set_new(desc, PRIV_UNTIL,
                        json_integer((json_int_t)(now + delay)));
    if (json_is_object(wt) && strcmp(transitional, "CREATING") == 0)
        json_object_set_new(wt, "Status", json_string("CREATING"));
}

/* ------------------------------------------------------------------------
 * One DDL call on an existing table
 * ---------------------------------------------------------------------- */

int
tables_ddl_begin(struct api_ctx *ctx, const char *param,
                 struct tables_ddl *d, struct ddb_err *err)
{
    d->ctx = ctx;
    d->t = NULL;
    d->desc = NULL;
    d->name[0] = '\0';
    api_ddl_lock();
    if (param == NULL)
        return -1;
    return tables_open_named(ctx, param, true, d->name, sizeof(d->name),
                             &d->t, &d->desc, err);
}

int
tables_ddl_begin_req(struct api_ctx *ctx, const json_t *req,
                     struct tables_ddl *d, struct ddb_err *err)
{
    return tables_ddl_begin(ctx, tables_req_name(req, err), d, err);
}

int
tables_ddl_end(struct tables_ddl *d, int rc, json_t *pub, json_t **resp)
{
    api_ddl_unlock();
    if (rc == 0) {
        if (pub == NULL)
            pub = tables_public_desc(d->ctx->srv->st, d->t, d->desc);
        *resp = json_pack("{s:o}", "TableDescription", pub);
    } else {
        json_decref(pub);
    }
    json_decref(d->desc);
    d->desc = NULL;
    if (d->t != NULL)
        stable_release(d->t);
    d->t = NULL;
    return rc;
}
