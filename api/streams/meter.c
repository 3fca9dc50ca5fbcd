/* SPDX-License-Identifier: MIT */
/* meter.c - what DynamoDB Streams' readers did, per stream, and the read
 * limits DynamoDB Streams documents (docs/streams.md): DescribeStream "at a
 * maximum rate of 10 times per second" (API reference; a token bucket of
 * 10 refilled at 10 per second), and no more than
 * two processes reading one shard at the same time (developer guide,
 * quotas: more "can result in throttling"). Both are settings
 * (--stream-describe-rate, --stream-shard-readers; 0 turns one off) and
 * run on the server's clock, so the virtual clock moves them too. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/streams/streams.h"

/* A refusal is a ThrottlingException "Rate exceeded", the code every SDK
 * retries on its own: what DynamoDB Streams' readers report seeing
 * (aws/aws-sdk-java-v2#470, 2018: "Rate exceeded" from the Streams client
 * as an exception the Streams model does not name, so not its
 * LimitExceededException; spiceai/spiceai#8493, 2025: ThrottlingException
 * on DescribeStream's shard discovery). No recording of DynamoDB pins the
 * wording further. */
#define MSG_LIMIT "Rate exceeded"

struct reader {
    char shard[STREAMS_SHARD_ID_LEN + 1];
    unsigned n;                     /* GetRecords in flight */
};

struct entry {
    char table[TABLES_STREAM_NAME_MAX];
    char label[TABLES_LABEL_MAX];
    struct streams_counts c;
    double tokens;                  /* DescribeStream calls available */
    uint64_t at_ms;                 /* when tokens was last brought up to
                                       date */
    bool started;                   /* tokens set (full) on first use */
    struct reader *readers;         /* owned */
    size_t nreaders;
};

struct streams_meter {
    pthread_mutex_t mu;             /* guards everything below */
    struct entry *e;                /* owned */
    size_t n, cap;
};

struct streams_meter *
streams_meter_new(void)
{
    struct streams_meter *m = xcalloc(1, sizeof(*m));

    pthread_mutex_init(&m->mu, NULL);
    return m;
}

void
streams_meter_free(struct streams_meter *m)
{
    if (m == NULL)
        return;
    for (size_t i = 0; i < m->n; i++)
        free(m->e[i].readers);
    free(m->e);
    pthread_mutex_destroy(&m->mu);
    free(m);
}

/* The entry of stream s (m->mu held), made on first use. */
static struct entry *
entry_of(struct streams_meter *m, const struct tables_stream *s)
{
    struct entry *e;

    for (size_t i = 0; i < m->n; i++)
        if (strcmp(m->e[i].table, s->table) == 0 &&
            strcmp(m->e[i].label, s->label) == 0)
            return &m->e[i];
    if (m->n == m->cap) {
        m->cap = m->cap ? m->cap * 2 : 8;
        m->e = xrealloc(m->e, m->cap * sizeof(*m->e));
    }
    e = &m->e[m->n++];
    memset(e, 0, sizeof(*e));
    snprintf(e->table, sizeof(e->table), "%s", s->table);
    snprintf(e->label, sizeof(e->label), "%s", s->label);
    return e;
}

static struct streams_meter *
meter(struct api_ctx *ctx)
{
    return ctx->srv != NULL ? ctx->srv->streams : NULL;
}

static unsigned
setting(const struct api_ctx *ctx, bool describe)
{
    if (ctx->srv == NULL || ctx->srv->conf == NULL)
        return 0;
    return describe ? ctx->srv->conf->stream_describe_rate
                    : ctx->srv->conf->stream_shard_readers;
}

/* A token bucket: rate calls banked at most, one more every 1000 / rate
 * ms; a call without a token is refused. (A burst of rate calls passes,
 * then one per 1000 / rate ms: clients that retry a refusal get through
 * soon, as they do with DynamoDB Streams.) */
int
streams_meter_describe(struct api_ctx *ctx, const struct tables_stream *s,
                       struct ddb_err *err)
{
    struct streams_meter *m = meter(ctx);
    unsigned rate = setting(ctx, true);
    struct entry *e;
    int rc = 0;

    if (m == NULL)
        return 0;
    pthread_mutex_lock(&m->mu);
    e = entry_of(m, s);
    if (!e->started || ctx->now_ms < e->at_ms) {
        e->tokens = rate;
        e->started = true;
    } else {
        e->tokens += (double)(ctx->now_ms - e->at_ms) * rate / 1000.0;
    }
    if (e->tokens > rate)
        e->tokens = rate;
    e->at_ms = ctx->now_ms;
    if (rate > 0 && e->tokens < 1.0) {
        e->c.throttled++;
        rc = ddb_err_set(err, DDB_THROTTLING, MSG_LIMIT);
    } else {
        if (rate > 0)
            e->tokens -= 1.0;
        e->c.describe++;
    }
    pthread_mutex_unlock(&m->mu);
    return rc;
}

/* The reader count of shard in e, made on first use. */
static struct reader *
reader_of(struct entry *e, const char *shard)
{
    for (size_t i = 0; i < e->nreaders; i++)
        if (strcmp(e->readers[i].shard, shard) == 0)
            return &e->readers[i];
    e->readers = xrealloc(e->readers,
                          (e->nreaders + 1) * sizeof(*e->readers));
    memset(&e->readers[e->nreaders], 0, sizeof(*e->readers));
    snprintf(e->readers[e->nreaders].shard,
             sizeof(e->readers[e->nreaders].shard), "%s", shard);
    return &e->readers[e->nreaders++];
}

int
streams_meter_enter(struct api_ctx *ctx, const struct tables_stream *s,
                    const char *shard, struct ddb_err *err)
{
    struct streams_meter *m = meter(ctx);
    unsigned max = setting(ctx, false);
    struct entry *e;
    struct reader *r;
    int rc = 0;

    if (m == NULL)
        return 0;
    pthread_mutex_lock(&m->mu);
    e = entry_of(m, s);
    r = reader_of(e, shard);
    if (max > 0 && r->n >= max) {
        e->c.throttled++;
        rc = ddb_err_set(err, DDB_THROTTLING, MSG_LIMIT);
    } else {
        r->n++;
    }
    pthread_mutex_unlock(&m->mu);
    return rc;
}

void
streams_meter_leave(struct api_ctx *ctx, const struct tables_stream *s,
                    const char *shard, uint64_t records, uint64_t bytes)
{
    struct streams_meter *m = meter(ctx);
    struct entry *e;
    struct reader *r;

    if (m == NULL)
        return;
    pthread_mutex_lock(&m->mu);
    e = entry_of(m, s);
    r = reader_of(e, shard);
    if (r->n > 0)
        r->n--;
    e->c.get_records++;
    e->c.records += records;
    e->c.bytes += bytes;
    pthread_mutex_unlock(&m->mu);
}

void
streams_meter_iterator(struct api_ctx *ctx, const struct tables_stream *s)
{
    struct streams_meter *m = meter(ctx);

    if (m == NULL)
        return;
    pthread_mutex_lock(&m->mu);
    entry_of(m, s)->c.iterators++;
    pthread_mutex_unlock(&m->mu);
}

static json_t *
counts_json(const struct streams_counts *c)
{
    return json_pack("{s:I, s:I, s:I, s:I, s:I, s:I}", "DescribeStream",
                     (json_int_t)c->describe, "GetShardIterator",
                     (json_int_t)c->iterators, "GetRecords",
                     (json_int_t)c->get_records, "ReturnedRecordsCount",
                     (json_int_t)c->records, "ReturnedBytes",
                     (json_int_t)c->bytes, "Throttled",
                     (json_int_t)c->throttled);
}

json_t *
streams_meter_json(struct api_server *srv, const char *table)
{
    struct streams_meter *m = srv->streams;
    json_t *out = json_object();

    if (m == NULL)
        return out;
    pthread_mutex_lock(&m->mu);
    for (size_t i = 0; i < m->n; i++)
        if (strcmp(m->e[i].table, table) == 0)
            json_object_set_new(out, m->e[i].label, counts_json(&m->e[i].c));
    pthread_mutex_unlock(&m->mu);
    return out;
}

void
streams_meter_each(struct api_server *srv, streams_meter_fn *fn, void *arg)
{
    struct streams_meter *m = srv->streams;

    if (m == NULL)
        return;
    pthread_mutex_lock(&m->mu);
    for (size_t i = 0; i < m->n; i++)
        fn(arg, m->e[i].table, m->e[i].label, &m->e[i].c);
    pthread_mutex_unlock(&m->mu);
}
