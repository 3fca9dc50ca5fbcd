/* SPDX-License-Identifier: MIT */
/* sweep.c - the background sweep: deletes items whose Time to Live has
 * passed (through the shared write path, ops/write.c write_expire), trims
 * change logs and partition history older than 24 hours, and forgets
 * streams (and deleted tables kept for them) whose 24 hours are over. A
 * thread runs a pass every --ttl-sweep-seconds; with --virtual-clock,
 * POST /shardlocal/clock runs one too, so tests expire items and trim logs
 * by moving the clock. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/index/index.h"
#include "api/ops/write.h"
#include "api/streams/streams.h"

struct streams_sweeper {
    pthread_t th;
    pthread_mutex_t mu;             /* guards stop, with cv */
    pthread_cond_t cv;
    bool stop;
    pthread_mutex_t pass_mu;        /* one pass at a time, from the thread
                                       or the clock */
};

/* ------------------------------------------------------------------------
 * Time to Live
 * ---------------------------------------------------------------------- */

/* Expired keys are gathered and deleted this many at a time, the scan
 * resuming after the last row it looked at, so a table with millions of
 * expired items costs a sweep a batch of keys in memory, not all of them
 * (DynamoDB too deletes expired items gradually: developer guide, "Time
 * to Live"). */
#define SWEEP_BATCH 1000

/* A batch of the expired items' keys of one table, found by a scan. */
struct expired {
    const struct key_schema *ks;
    const char *attr;
    const char *lo, *hi;            /* lo <= value < hi: expired */
    json_t *keys;                   /* owned: Key maps */
    struct item_key last;           /* where a full batch stopped */
    bool more;                      /* stopped at a full batch */
};

static int
find_expired(void *arg, const struct item_key *k, const json_t *item,
             size_t size, struct ddb_err *err)
{
    struct expired *x = arg;
    const json_t *v = json_object_get(item, x->attr);
    const char *n = json_string_value(json_object_get(v, "N"));

    (void)size;
    (void)err;
    /* a TTL attribute that is missing, not a Number, in the future or
     * more than five years old is ignored, as DynamoDB ignores it */
    if (n != NULL && json_object_size(v) == 1 && num_cmp(n, x->hi) < 0 &&
        num_cmp(n, x->lo) >= 0)
        json_array_append_new(x->keys, item_key_map(x->ks, item));
    if (json_array_size(x->keys) < SWEEP_BATCH)
        return 0;
    x->last = *k;                   /* resume after it */
    x->more = true;
    return 1;
}

/* Delete table name's expired items; the number deleted. */
static uint64_t
expire_table(struct api_ctx *ctx, const char *name, const char *attr)
{
    char lo[NUM_TEXT_MAX], hi[NUM_TEXT_MAX];
    struct table_ref tr;
    struct expired x;
    struct ddb_err err;
    json_t *req = json_pack("{s:s}", "TableName", name);
    uint64_t gone = 0;
    bool deleted, first = true;
    size_t i;

    ddb_err_init(&err);
    memset(&x, 0, sizeof(x));
    if (table_ref_open(ctx, req, &tr, &err) != 0)
        goto out;
    write_ttl_bounds(ctx->now_ms, lo, hi);
    x.ks = &tr.ks;
    x.attr = attr;
    x.lo = lo;
    x.hi = hi;
    x.keys = json_array();
    do {
        struct item_key from = x.last;

        x.more = false;
        json_array_clear(x.keys);
        if (stable_scan(tr.t, 0, UINT64_MAX, first ? NULL : &from,
                        find_expired, &x, &err) != 0)
            goto out;
        first = false;
        for (i = 0; i < json_array_size(x.keys); i++) {
            if (write_expire(ctx, &tr, json_array_get(x.keys, i), attr,
                             ctx->now_ms, &deleted, &err) != 0) {
                ddb_err_clear(&err);
                continue;
            }
            gone += deleted;
        }
    } while (x.more);
out:
    json_decref(x.keys);
    json_decref(req);
    table_ref_close(&tr);
    ddb_err_clear(&err);
    return gone;
}

/* ------------------------------------------------------------------------
 * A pass
 * ---------------------------------------------------------------------- */

uint64_t
streams_sweep(struct api_server *srv, uint64_t now)
{
    struct api_ctx ctx;
    struct ddb_err err;
    json_t *names, *desc;
    struct stable *t;
    char attr[256], acct[13];
    uint64_t gone = 0;
    size_t i;

    memset(&ctx, 0, sizeof(ctx));
    ctx.srv = srv;
    ctx.now_ms = now;
    ddb_err_init(&err);
    /* without the thread (unit tests), passes need no ordering: each step
     * is safe to repeat */
    if (srv->sweeper != NULL)
        pthread_mutex_lock(&srv->sweeper->pass_mu);
    names = storage_table_names(srv->st);
    for (i = 0; i < json_array_size(names); i++) {
        const char *n = json_string_value(json_array_get(names, i));

        if (n == NULL || strstr(n, "/index/") != NULL ||
            (t = storage_table_get(srv->st, n)) == NULL)
            continue;
        desc = stable_desc_ref(t);
        /* TTL for the tables requests can see (ACTIVE or UPDATING) */
        if (!index_is_hidden_name(n) && tables_ttl_attr(desc, attr,
                                                        sizeof(attr)) &&
            (json_str_is(json_object_get(desc, "TableStatus"), "ACTIVE") ||
             json_str_is(json_object_get(desc, "TableStatus"), "UPDATING"))) {
            /* as its owner would delete it (context.h: stored names) */
            ctx.account = api_table_owner(&ctx, n, acct);
            gone += expire_table(&ctx, api_table_public(n), attr);
            ctx.account = NULL;
        }
        json_decref(desc);
        if (now > TABLES_STREAM_RETENTION_MS &&
            stable_log_trim(t, now - TABLES_STREAM_RETENTION_MS, &err) != 0)
            ddb_err_clear(&err);
        stable_release(t);
        if (tables_streams_expire(&ctx, n, now, &err) != 0)
            ddb_err_clear(&err);
    }
    json_decref(names);
    if (srv->sweeper != NULL)
        pthread_mutex_unlock(&srv->sweeper->pass_mu);
    return gone;
}

/* ------------------------------------------------------------------------
 * The thread
 * ---------------------------------------------------------------------- */

static void *
sweeper_main(void *arg)
{
    struct api_server *srv = arg;
    struct streams_sweeper *sw = srv->sweeper;
    unsigned period = srv->conf != NULL && srv->conf->ttl_sweep_seconds > 0
                          ? srv->conf->ttl_sweep_seconds
                          : 60;
    struct timespec until;

    pthread_mutex_lock(&sw->mu);
    while (!sw->stop) {
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += (time_t)period;
        while (!sw->stop &&
               pthread_cond_timedwait(&sw->cv, &sw->mu, &until) == 0)
            ;
        if (sw->stop)
            break;
        pthread_mutex_unlock(&sw->mu);
        streams_sweep(srv, api_now_ms(srv));
        pthread_mutex_lock(&sw->mu);
    }
    pthread_mutex_unlock(&sw->mu);
    return NULL;
}

void
streams_sweeper_start(struct api_server *srv)
{
    struct streams_sweeper *sw = xcalloc(1, sizeof(*sw));

    pthread_mutex_init(&sw->mu, NULL);
    pthread_mutex_init(&sw->pass_mu, NULL);
    pthread_cond_init(&sw->cv, NULL);
    srv->sweeper = sw;
    if (pthread_create(&sw->th, NULL, sweeper_main, srv) != 0) {
        srv->sweeper = NULL;
        pthread_cond_destroy(&sw->cv);
        pthread_mutex_destroy(&sw->pass_mu);
        pthread_mutex_destroy(&sw->mu);
        free(sw);
    }
}

void
streams_sweeper_stop(struct api_server *srv)
{
    struct streams_sweeper *sw = srv->sweeper;

    if (sw == NULL)
        return;
    pthread_mutex_lock(&sw->mu);
    sw->stop = true;
    pthread_cond_signal(&sw->cv);
    pthread_mutex_unlock(&sw->mu);
    pthread_join(sw->th, NULL);
    /* a clock move may be in a pass: wait for it before the struct goes */
    pthread_mutex_lock(&sw->pass_mu);
    srv->sweeper = NULL;
    pthread_mutex_unlock(&sw->pass_mu);
    pthread_cond_destroy(&sw->cv);
    pthread_mutex_destroy(&sw->pass_mu);
    pthread_mutex_destroy(&sw->mu);
    free(sw);
}
