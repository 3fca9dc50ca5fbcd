/* SPDX-License-Identifier: MIT */
/* bucket.c - the throttling engine's arithmetic: token buckets, sliding
 * one-second windows and on-demand peaks in fixed point, and the limits a
 * table runs under (knobs from conf/, per-table tags, the table's
 * provisioning from its description). */
#include <stdint.h>
#include <string.h>

#include "api/throttle/throttle_int.h"

/* ------------------------------------------------------------------------
 * Building blocks: token bucket, sliding one-second window, on-demand
 * peak.
 * ---------------------------------------------------------------------- */

/* Add rate * dt, up to cap. Time never runs backwards here. */
void
bucket_refill(struct bucket *b, uint64_t now_ms)
{
    uint64_t dt;

    if (now_ms <= b->t_ms) {
        return;
    }
    dt = now_ms - b->t_ms;
    b->t_ms = now_ms;
    if (b->level >= b->cap) {
        b->level = b->cap;              /* a lowered cap clips the bank */
        return;
    }
    if (b->rate <= 0)
        return;
    if (dt >= (uint64_t)((b->cap - b->level) / b->rate) + 1)
        b->level = b->cap;
    else
        b->level = min64(b->cap, b->level + b->rate * (int64_t)dt);
}

/* Rate and bank: seconds of rate (0 or less: no bank). */
void
bucket_set(struct bucket *b, int64_t rate, double seconds)
{
    double ms = seconds > 0 ? seconds * 1000.0 : 0;

    b->rate = rate > 0 ? rate : 0;
    b->cap = (int64_t)((double)b->rate * ms);
    if (b->level > b->cap)
        b->level = b->cap;
}

/* An empty window whose current slot is now_ms's. */
void
win_init(struct win *w, uint64_t now_ms)
{
    memset(w, 0, sizeof(*w));
    w->idx = now_ms / SLOT_MS;
}

/* Move to now_ms's slot, emptying the slots passed over. */
void
win_advance(struct win *w, uint64_t now_ms)
{
    uint64_t i = now_ms / SLOT_MS, d;

    if (i <= w->idx)
        return;
    d = i - w->idx;
    if (d >= WIN_SLOTS) {
        memset(w->slot, 0, sizeof(w->slot));
        w->sum = 0;
    } else {
        for (uint64_t k = 1; k <= d; k++) {
            unsigned s = (unsigned)((w->idx + k) % WIN_SLOTS);

            w->sum -= w->slot[s];
            w->slot[s] = 0;
        }
    }
    w->idx = i;
}

/* Count mu in the current slot. */
void
win_add(struct win *w, int64_t mu)
{
    w->slot[w->idx % WIN_SLOTS] += mu;
    w->sum += mu;
}

/* Halve w into a (rounded up) and b (the rest). */
void
win_split(const struct win *w, struct win *a, struct win *b)
{
    *a = *w;
    *b = *w;
    a->sum = b->sum = 0;
    for (unsigned s = 0; s < WIN_SLOTS; s++) {
        a->slot[s] = w->slot[s] - w->slot[s] / 2;
        b->slot[s] = w->slot[s] / 2;
        a->sum += a->slot[s];
        b->sum += b->slot[s];
    }
}

/* An empty ring whose buckets are a thirtieth of lim's peak window
 * (settled is left alone). */
void
peak_init(struct peak *pk, const struct throttle_limits *lim)
{
    double w = lim->od_peak_window_s > 0 ? lim->od_peak_window_s : 0;
    uint64_t width = (uint64_t)(w * 1000.0 / PEAK_STEPS);

    memset(pk->ring, 0, sizeof(pk->ring));
    pk->width_ms = width == 0 ? 1 : width;
}

/* Fold buckets that ended at least a window ago into the settled peak. */
void
peak_advance(struct peak *pk, uint64_t now_ms)
{
    uint64_t cur = now_ms / pk->width_ms;

    for (unsigned i = 0; i < PEAK_RING; i++) {
        if (pk->ring[i].used && pk->ring[i].b + PEAK_STEPS + 1 <= cur) {
            pk->settled = max64(pk->settled, pk->ring[i].max);
            pk->ring[i].used = false;
        }
    }
}

/* Record sample (the table's consumption over the last second, mu) at
 * now_ms. */
void
peak_note(struct peak *pk, uint64_t now_ms, int64_t sample)
{
    uint64_t b = now_ms / pk->width_ms;
    unsigned i = (unsigned)(b % PEAK_RING);

    if (pk->ring[i].used && pk->ring[i].b != b) {
        /* an old bucket still here: settle it (it ended long enough ago,
         * or the clock jumped) */
        pk->settled = max64(pk->settled, pk->ring[i].max);
        pk->ring[i].used = false;
    }
    if (!pk->ring[i].used) {
        pk->ring[i].used = true;
        pk->ring[i].b = b;
        pk->ring[i].max = 0;
    }
    pk->ring[i].max = max64(pk->ring[i].max, sample);
}

/* ------------------------------------------------------------------------
 * Limits: the server's, per-table tags, and those in force on a table.
 * ---------------------------------------------------------------------- */

/* DynamoDB's numbers: the defaults of conf/'s settings table. */
void
throttle_limits_default(struct throttle_limits *lim)
{
    conf_limits_default(lim);
}

static double
scale_of(const struct throttle_limits *lim)
{
    return lim->scale > 0 ? lim->scale : 1.0;
}

double
throttle_limits_ceiling(const struct throttle_limits *lim,
                        enum throttle_op op)
{
    double c = op == THROTTLE_READ ? lim->partition_rcu : lim->partition_wcu;

    return c * scale_of(lim);
}

unsigned
throttle_limits_partitions(const struct throttle_limits *lim, double rcu,
                           double wcu)
{
    /* In milliunits, so 300/3000 + 900/1000 is exactly 1. */
    int64_t cr = to_rate(throttle_limits_ceiling(lim, THROTTLE_READ));
    int64_t cw = to_rate(throttle_limits_ceiling(lim, THROTTLE_WRITE));
    int64_t r = to_rate(rcu), w = to_rate(wcu);
    long double q;
    uint64_t n;

    if (cr <= 0 || cw <= 0)
        return 1;
    /* ceil(r/cr + w/cw) = ceil((r*cw + w*cr) / (cr*cw)); the products are
     * exact in long double for any sane rate */
    q = ((long double)r * cw + (long double)w * cr) / ((long double)cr * cw);
    if (!(q > 1))
        return 1;
    if (q > 1e6)
        return 1000000;
    n = (uint64_t)q;
    if ((long double)n < q)
        n++;
    return (unsigned)n;
}

/* ceil(v / per), at least 1 (at most a million). */
static unsigned
parts_for(double v, double per)
{
    double q;
    unsigned n;

    if (!(per > 0) || !(v > per))
        return 1;
    q = v / per;
    if (q > 1e6)
        return 1000000;
    n = (unsigned)q;
    return (double)n < q ? n + 1 : n;
}

unsigned
throttle_limits_warm_partitions(const struct throttle_limits *lim,
                                bool on_demand, double wr, double ww)
{
    unsigned r, w, min = 1;

    if (on_demand) {
        /* A new on-demand table's 4 partitions serve its initial
         * throughput, a quarter each. */
        r = parts_for(wr, lim->od_initial_rru / 4);
        w = parts_for(ww, lim->od_initial_wru / 4);
        min = 4;
    } else {
        r = parts_for(wr, throttle_limits_ceiling(lim, THROTTLE_READ));
        w = parts_for(ww, throttle_limits_ceiling(lim, THROTTLE_WRITE));
    }
    r = r > w ? r : w;
    return r > min ? r : min;
}

/* The partition ceiling of t, mu/s. */
int64_t
ceiling_mu(const struct throttle_table *t, int op)
{
    return to_mu(throttle_limits_ceiling(&t->lim, (enum throttle_op)op));
}

/* The on-demand table's instant capacity now: max(initial, mult x peak,
 * warm throughput). */
int64_t
od_limit(const struct throttle_table *t, int op)
{
    double init = op == THROTTLE_READ ? t->lim.od_initial_rru
                                      : t->lim.od_initial_wru;
    double mult = t->lim.od_peak_mult > 0 ? t->lim.od_peak_mult : 2;
    int64_t a = to_mu(init * scale_of(&t->lim));
    int64_t b = (int64_t)((double)t->pk[op].settled * mult);
    int64_t c = to_mu(t->warm[op] * scale_of(&t->lim));

    return max64(max64(a, b), c);
}

/* The on-demand per-table quota, mu/s (none: a huge number). */
int64_t
od_quota(const struct throttle_table *t, int op)
{
    double q = op == THROTTLE_READ ? t->lim.od_table_max_rru
                                   : t->lim.od_table_max_wru;

    return q > 0 ? to_mu(q * scale_of(&t->lim)) : INT64_MAX / 4;
}

#define TAG_PREFIX "shardlocal:"

/* Each "shardlocal:<knob>" tag sets its knob through conf/'s table. */
int
throttle_limits_apply_tags(struct throttle_limits *lim, const json_t *tags)
{
    size_t i;
    json_t *tag;
    int n = 0;

    if (!json_is_array(tags))
        return 0;
    json_array_foreach(tags, i, tag) {
        const char *k = json_string_value(json_object_get(tag, "Key"));
        const char *v = json_string_value(json_object_get(tag, "Value"));

        if (k == NULL || strncmp(k, TAG_PREFIX, strlen(TAG_PREFIX)) != 0)
            continue;
        if (conf_limits_set(lim, k + strlen(TAG_PREFIX), v) == 0)
            n++;
    }
    return n;
}

/* ------------------------------------------------------------------------
 * What a table is provisioned with, from its description.
 * ---------------------------------------------------------------------- */

static double
num_member(const json_t *obj, const char *key)
{
    const json_t *v = json_object_get(obj, key);

    /* unit counts are whole numbers in descriptions; JSON reals tolerated */
    if (json_is_integer(v))
        return (double)json_integer_value(v);
    if (json_is_real(v))
        return json_real_value(v);
    return 0;
}

int
throttle_conf_from_desc(const json_t *desc, const char *index,
                        unsigned nparts, struct throttle_table_conf *tc)
{
    const json_t *src = desc, *pt, *odt;
    const char *mode;

    memset(tc, 0, sizeof(*tc));
    mode = json_string_value(json_object_get(
        json_object_get(desc, "BillingModeSummary"), "BillingMode"));
    tc->on_demand = mode != NULL && strcmp(mode, "PAY_PER_REQUEST") == 0;
    tc->arn = json_string_value(json_object_get(desc, "TableArn"));
    if (index != NULL) {
        const json_t *gsis = json_object_get(desc, "GlobalSecondaryIndexes");
        json_t *g;
        size_t i;

        src = NULL;
        json_array_foreach(gsis, i, g) {
            const char *n = json_string_value(json_object_get(g,
                                                              "IndexName"));

            if (n != NULL && strcmp(n, index) == 0)
                src = g;
        }
        if (src == NULL)
            return -1;
        tc->is_index = true;
        tc->arn = json_string_value(json_object_get(src, "IndexArn"));
    }
    pt = json_object_get(src, "ProvisionedThroughput");
    tc->rcu = num_member(pt, "ReadCapacityUnits");
    tc->wcu = num_member(pt, "WriteCapacityUnits");
    tc->warm_rru = num_member(json_object_get(src, "WarmThroughput"),
                              "ReadUnitsPerSecond");
    tc->warm_wru = num_member(json_object_get(src, "WarmThroughput"),
                              "WriteUnitsPerSecond");
    odt = json_object_get(src, "OnDemandThroughput");
    tc->od_max_rru = odt != NULL ? num_member(odt, "MaxReadRequestUnits")
                                 : -1;
    tc->od_max_wru = odt != NULL ? num_member(odt, "MaxWriteRequestUnits")
                                 : -1;
    if (tc->od_max_rru == 0)
        tc->od_max_rru = -1;
    if (tc->od_max_wru == 0)
        tc->od_max_wru = -1;
    tc->nparts = nparts == 0 ? 1 : nparts;
    if (tc->arn == NULL)
        tc->arn = "";
    return 0;
}
