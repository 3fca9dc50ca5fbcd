/* SPDX-License-Identifier: MIT */
/* metrics.c - GET /metrics: Prometheus text (exposition format 0.0.4) with
 * CloudWatch's metric names, one series per partition of every table and
 * GSI, from the same sources as the JSON views (tables.c): the store's
 * item counts and bytes, the throttle engine's counters and buckets. */

#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "api/admin/admin_int.h"
#include "api/streams/streams.h"
#include "storage/util.h"

#define ADMIN_PROM_TYPE   "text/plain; version=0.0.4; charset=utf-8"

/* ------------------------------------------------------------------------
 * The metrics
 *
 * CloudWatch's names are kept as the metric names (the issue asks for
 * them; Prometheus allows CamelCase): cumulative counters since the table
 * (or its throttle state) was created, labelled {table, index,
 * partition}; index is "" for the table itself. CloudWatch's 1-minute
 * sums are rate()/increase() over these. Extras are shardlocal_*.
 * ---------------------------------------------------------------------- */

enum mval {
    MV_CONSUMED,                        /* consumed_total */
    MV_EVENTS,                          /* throttled, all causes */
    MV_REQUESTS,                        /* throttled, reads + writes */
    MV_CAUSE,                           /* throttled[cause] */
    MV_PROVISIONED,                     /* per table/GSI, provisioned only */
    MV_PARTITIONS,                      /* per table/GSI */
    MV_ITEMS,
    MV_BYTES,
    MV_LEVEL,
    MV_CAPACITY,
    MV_LAST1S,
    MV_WOULD,
};

struct mdef {
    const char *name;
    const char *type;                   /* counter | gauge */
    const char *help;
    enum mval what;
    int op;                             /* THROTTLE_READ / WRITE, or -1 */
    int cause;
};

#define CAUSE_METRICS(RW, OP) \
    { RW "ProvisionedThroughputThrottleEvents", "counter", \
      RW " requests throttled because the table's provisioned " \
      "throughput was used up", MV_CAUSE, OP, THROTTLE_PROVISIONED }, \
    { RW "KeyRangeThroughputThrottleEvents", "counter", \
      RW " requests throttled by the partition (hot key range, partition " \
      "ceiling or share)", MV_CAUSE, OP, THROTTLE_KEY_RANGE }, \
    { RW "MaxOnDemandThroughputThrottleEvents", "counter", \
      RW " requests throttled by the OnDemandThroughput maximum", \
      MV_CAUSE, OP, THROTTLE_MAX_ON_DEMAND }, \
    { RW "AccountLimitThrottleEvents", "counter", \
      RW " requests throttled by the per-table on-demand quota", \
      MV_CAUSE, OP, THROTTLE_ACCOUNT_LIMIT }

static const struct mdef mdefs[] = {
    { "ConsumedReadCapacityUnits", "counter",
      "Read capacity units consumed", MV_CONSUMED, THROTTLE_READ, 0 },
    { "ConsumedWriteCapacityUnits", "counter",
      "Write capacity units consumed", MV_CONSUMED, THROTTLE_WRITE, 0 },
    { "ProvisionedReadCapacityUnits", "gauge",
      "Provisioned read capacity units (provisioned tables and GSIs)",
      MV_PROVISIONED, THROTTLE_READ, 0 },
    { "ProvisionedWriteCapacityUnits", "gauge",
      "Provisioned write capacity units (provisioned tables and GSIs)",
      MV_PROVISIONED, THROTTLE_WRITE, 0 },
    { "ReadThrottleEvents", "counter",
      "Read requests throttled (every cause)", MV_EVENTS, THROTTLE_READ, 0 },
    { "WriteThrottleEvents", "counter",
      "Write requests throttled (every cause)", MV_EVENTS, THROTTLE_WRITE,
      0 },
    { "ThrottledRequests", "counter",
      "Requests throttled (reads and writes, every cause)", MV_REQUESTS, -1,
      0 },
    CAUSE_METRICS("Read", THROTTLE_READ),
    CAUSE_METRICS("Write", THROTTLE_WRITE),
    { "shardlocal_partitions", "gauge",
      "Partitions of the table or GSI", MV_PARTITIONS, -1, 0 },
    { "shardlocal_partition_items", "gauge",
      "Items stored in the partition", MV_ITEMS, -1, 0 },
    { "shardlocal_partition_size_bytes", "gauge",
      "Item bytes stored in the partition", MV_BYTES, -1, 0 },
    { "shardlocal_read_bucket_level", "gauge",
      "Read token bucket level in units (negative: debt)", MV_LEVEL,
      THROTTLE_READ, 0 },
    { "shardlocal_write_bucket_level", "gauge",
      "Write token bucket level in units (negative: debt)", MV_LEVEL,
      THROTTLE_WRITE, 0 },
    { "shardlocal_read_bucket_capacity", "gauge",
      "Read token bucket size in units (burst bank)", MV_CAPACITY,
      THROTTLE_READ, 0 },
    { "shardlocal_write_bucket_capacity", "gauge",
      "Write token bucket size in units (burst bank)", MV_CAPACITY,
      THROTTLE_WRITE, 0 },
    { "shardlocal_read_consumed_last_second", "gauge",
      "Read units consumed in the last second", MV_LAST1S, THROTTLE_READ,
      0 },
    { "shardlocal_write_consumed_last_second", "gauge",
      "Write units consumed in the last second", MV_LAST1S, THROTTLE_WRITE,
      0 },
    { "shardlocal_would_throttle_events_total", "counter",
      "Requests that would have been throttled with --throttle off",
      MV_WOULD, -1, 0 },
};

/* One table or GSI with its snapshot, for /metrics. */
struct msrc {
    char table[ADMIN_NAME_MAX];
    char index[ADMIN_NAME_MAX];         /* "" for the table itself */
    bool provisioned;
    json_int_t prov[2];                 /* rcu, wcu */
    unsigned nparts;
    struct throttle_part_stats *ps;     /* owned, nparts entries */
    uint64_t *items, *bytes;            /* owned, nparts entries */
};

/* Every table and GSI's snapshot, gathered by admin_src_each(). */
struct mset {
    struct msrc *m;                     /* owned, n entries */
    size_t n, cap;
    uint64_t now;
};

/* admin_src_each() callback: snapshot s into a new entry of the set. */
static void
msrc_add(void *arg, struct admin_src *s)
{
    struct mset *set = arg;
    struct msrc *m;
    unsigned i;
    struct ddb_err e;

    if (set->n == set->cap) {
        set->cap = set->cap ? set->cap * 2 : 16;
        set->m = xrealloc(set->m, set->cap * sizeof(*set->m));
    }
    m = &set->m[set->n++];
    memset(m, 0, sizeof(*m));
    memcpy(m->table, s->table, sizeof(m->table));
    memcpy(m->index, s->index, sizeof(m->index));
    m->provisioned = strcmp(admin_src_billing(s), "PAY_PER_REQUEST") != 0;
    admin_src_units(s, &m->prov[0], &m->prov[1]);
    m->nparts = stable_nparts(s->t);
    m->ps = xcalloc(m->nparts ? m->nparts : 1, sizeof(*m->ps));
    m->items = xcalloc(m->nparts ? m->nparts : 1, sizeof(*m->items));
    m->bytes = xcalloc(m->nparts ? m->nparts : 1, sizeof(*m->bytes));
    ddb_err_init(&e);
    for (i = 0; i < m->nparts; i++) {
        if (stable_part_stats(s->t, i, &m->items[i], &m->bytes[i],
                              &e) != 0)
            ddb_err_clear(&e);
        if (s->tt != NULL &&
            throttle_part_stats(s->tt, i, set->now, &m->ps[i], &e) != 0) {
            memset(&m->ps[i], 0, sizeof(m->ps[i]));
            ddb_err_clear(&e);
        }
    }
}

static void
msrc_fini(struct msrc *m)
{
    free(m->ps);
    free(m->items);
    free(m->bytes);
}

/* The value of metric d for partition i of m. */
static double
mvalue(const struct mdef *d, const struct msrc *m, unsigned i)
{
    const struct throttle_part_stats *ps = &m->ps[i];

    switch (d->what) {
    case MV_CONSUMED:
        return ps->op[d->op].consumed_total;
    case MV_EVENTS:
        return (double)admin_throttled_sum(&ps->op[d->op]);
    case MV_REQUESTS:
        return (double)(admin_throttled_sum(&ps->op[THROTTLE_READ]) +
                        admin_throttled_sum(&ps->op[THROTTLE_WRITE]));
    case MV_CAUSE:
        return (double)ps->op[d->op].throttled[d->cause];
    case MV_ITEMS:
        return (double)m->items[i];
    case MV_BYTES:
        return (double)m->bytes[i];
    case MV_LEVEL:
        return ps->op[d->op].level;
    case MV_CAPACITY:
        return ps->op[d->op].capacity;
    case MV_LAST1S:
        return ps->op[d->op].last_1s;
    case MV_WOULD:
        return (double)(ps->op[THROTTLE_READ].would_throttle +
                        ps->op[THROTTLE_WRITE].would_throttle);
    default:
        return 0;
    }
}

/* ------------------------------------------------------------------------
 * The exposition format
 * ---------------------------------------------------------------------- */

/* Prometheus label value: escape \, " and newline. */
static void
put_label(struct strbuf *b, const char *v)
{
    for (; *v; v++) {
        if (*v == '\\' || *v == '"')
            strbuf_putc(b, '\\');
        if (*v == '\n')
            strbuf_puts(b, "\\n");
        else
            strbuf_putc(b, *v);
    }
}

/* One sample: name{table="...",index="...",partition="p"} value; the
 * partition label only when part >= 0. */
static void
put_sample(struct strbuf *b, const char *name, const struct msrc *m,
           long part, double v)
{
    strbuf_printf(b, "%s{table=\"", name);
    put_label(b, m->table);
    strbuf_puts(b, "\",index=\"");
    put_label(b, m->index);
    if (part >= 0)
        strbuf_printf(b, "\",partition=\"%ld\"}", part);
    else
        strbuf_puts(b, "\"}");
    strbuf_printf(b, " %.15g\n", v);
}

/* ------------------------------------------------------------------------
 * DynamoDB Streams: CloudWatch's ReturnedRecordsCount and ReturnedBytes
 * (dimensions TableName, StreamLabel, Operation GetRecords), and the
 * calls per operation and refusals by a read limit (shardlocal_*)
 * ---------------------------------------------------------------------- */

struct sdef {
    const char *name, *help;
    size_t off;                         /* in struct streams_counts */
    const char *op;                     /* operation label, or NULL */
};

#define SC(f) offsetof(struct streams_counts, f)
static const struct sdef sdefs[] = {
    { "ReturnedRecordsCount", "Stream records returned by GetRecords",
      SC(records), "GetRecords" },
    { "ReturnedBytes", "Bytes of stream records returned by GetRecords",
      SC(bytes), "GetRecords" },
    { "shardlocal_stream_requests_total", "DynamoDB Streams calls",
      SC(get_records), "GetRecords" },
    { "shardlocal_stream_requests_total", NULL, SC(describe),
      "DescribeStream" },
    { "shardlocal_stream_requests_total", NULL, SC(iterators),
      "GetShardIterator" },
    { "shardlocal_stream_throttled_total",
      "DynamoDB Streams calls refused by a read limit (LimitExceeded)",
      SC(throttled), NULL },
};

struct sline {
    struct strbuf *b;
    const struct sdef *d;
};

static void
stream_sample(void *arg, const char *table, const char *label,
              const struct streams_counts *c)
{
    struct sline *l = arg;

    strbuf_printf(l->b, "%s{table=\"", l->d->name);
    put_label(l->b, table);
    strbuf_puts(l->b, "\",stream_label=\"");
    put_label(l->b, label);
    if (l->d->op != NULL)
        strbuf_printf(l->b, "\",operation=\"%s", l->d->op);
    strbuf_printf(l->b, "\"} %llu\n",
                  (unsigned long long)*(const uint64_t *)(
                      (const char *)c + l->d->off));
}

static void
put_streams(struct api_server *srv, struct strbuf *b)
{
    struct sline l = { b, NULL };

    for (size_t k = 0; k < sizeof(sdefs) / sizeof(sdefs[0]); k++) {
        l.d = &sdefs[k];
        if (l.d->help != NULL)
            strbuf_printf(b, "# HELP %s %s\n# TYPE %s counter\n",
                          l.d->name, l.d->help, l.d->name);
        streams_meter_each(srv, stream_sample, &l);
    }
}

void
admin_metrics(struct api_server *srv, struct admin_reply *out)
{
    struct strbuf b = { 0 };
    struct mset set = { NULL, 0, 0, api_now_ms(srv) };
    size_t i, k;
    unsigned p;

    admin_src_each(srv, msrc_add, &set);
    for (k = 0; k < sizeof(mdefs) / sizeof(mdefs[0]); k++) {
        const struct mdef *d = &mdefs[k];

        strbuf_printf(&b, "# HELP %s %s\n# TYPE %s %s\n", d->name, d->help,
                      d->name, d->type);
        for (i = 0; i < set.n; i++) {
            const struct msrc *m = &set.m[i];

            if (d->what == MV_PROVISIONED) {
                if (m->provisioned)
                    put_sample(&b, d->name, m, -1, (double)m->prov[d->op]);
            } else if (d->what == MV_PARTITIONS) {
                put_sample(&b, d->name, m, -1, (double)m->nparts);
            } else {
                for (p = 0; p < m->nparts; p++)
                    put_sample(&b, d->name, m, p, mvalue(d, m, p));
            }
        }
    }
    for (i = 0; i < set.n; i++)
        msrc_fini(&set.m[i]);
    free(set.m);
    put_streams(srv, &b);
    memset(out, 0, sizeof(*out));
    out->status = 200;
    out->len = b.len;
    out->body = strbuf_take(&b);
    out->content_type = ADMIN_PROM_TYPE;
}
