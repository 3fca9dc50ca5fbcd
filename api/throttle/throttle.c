/* SPDX-License-Identifier: MIT */
/* throttle.c - the throttling engine: per-partition token buckets with a
 * 300 s burst bank, a sliding one-second ceiling per partition, adaptive
 * capacity, on-demand peak tracking, counters and space-saving hot keys.
 * The handlers call throttle_admit before a request and throttle_charge
 * after it; docs/throttling.md explains the model and its numbers. */
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/throttle/throttle.h"
#include "storage/util.h"

/*
 * Fixed point, so that a test's numbers are exact: amounts are in
 * microunits (1e-6 capacity unit) and rates in milliunits per second, so a
 * refill over dt milliseconds is rate * dt microunits with no rounding.
 */
#define MU_PER_UNIT 1000000LL
#define SLOT_MS     10                  /* sliding-window slot width */
#define WIN_SLOTS   100                 /* 100 x 10 ms = one second */
#define PEAK_RING   32                  /* peak buckets: window / 30 each */
#define PEAK_STEPS  30

static int64_t
to_mu(double units)
{
    if (!(units > 0))
        return 0;
    if (units > 9e12)
        units = 9e12;
    return (int64_t)(units * (double)MU_PER_UNIT + 0.5);
}

/* units/s -> milliunits/s */
static int64_t
to_rate(double units_per_s)
{
    if (!(units_per_s > 0))
        return 0;
    if (units_per_s > 9e12)
        units_per_s = 9e12;
    return (int64_t)(units_per_s * 1000.0 + 0.5);
}

static double
mu_units(int64_t mu)
{
    return (double)mu / (double)MU_PER_UNIT;
}

static int64_t
min64(int64_t a, int64_t b)
{
    return a < b ? a : b;
}

static int64_t
max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

/* ------------------------------------------------------------------------
 * Building blocks: token bucket, sliding one-second window, per-second
 * history.
 * ---------------------------------------------------------------------- */

struct bucket {
    int64_t level;                      /* microunits; < 0 is debt */
    int64_t rate;                       /* milliunits/s */
    int64_t cap;                        /* microunits: rate x burst */
    uint64_t t_ms;                      /* last refill */
};

/* Add rate * dt, up to cap. Time never runs backwards here. */
static void
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

/* Consumption over the last second: 100 slots of 10 ms. The sum counts the
 * current slot and the 99 before it. */
struct win {
    int64_t slot[WIN_SLOTS];
    uint64_t idx;                       /* slot number of now (ms / 10) */
    int64_t sum;
};

static void
win_init(struct win *w, uint64_t now_ms)
{
    memset(w, 0, sizeof(*w));
    w->idx = now_ms / SLOT_MS;
}

static void
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

static void
win_add(struct win *w, int64_t mu)
{
    w->slot[w->idx % WIN_SLOTS] += mu;
    w->sum += mu;
}

/* Halve w into a (rounded up) and b (the rest). */
static void
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

/* Consumption per whole second, for the last THROTTLE_HISTORY_S seconds. */
struct hist {
    int64_t v[THROTTLE_HISTORY_S];
    uint64_t sec;                       /* second number of now */
};

static void
hist_advance(struct hist *h, uint64_t now_ms)
{
    uint64_t s = now_ms / 1000, d;

    if (s <= h->sec)
        return;
    d = s - h->sec;
    if (d >= THROTTLE_HISTORY_S) {
        memset(h->v, 0, sizeof(h->v));
    } else {
        for (uint64_t k = 1; k <= d; k++)
            h->v[(h->sec + k) % THROTTLE_HISTORY_S] = 0;
    }
    h->sec = s;
}

/* ------------------------------------------------------------------------
 * Space-saving hot-key summary (Metwally, Agrawal, El Abbadi 2005): k
 * counters; an unseen key replaces the smallest counter and inherits its
 * count as its error bound. Every key heavier than total/k is present.
 * ---------------------------------------------------------------------- */

struct ss_entry {
    uint8_t *key;                       /* owned */
    size_t len;
    uint64_t hash;
    int64_t count;                      /* microunits */
    int64_t err;
};

struct throttle_sketch {
    size_t k, n;
    struct ss_entry *e;                 /* owned: k entries, n used */
};

static uint64_t
fnv1a(const uint8_t *p, size_t n)
{
    uint64_t h = UINT64_C(14695981039346656037);

    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= UINT64_C(1099511628211);
    }
    return h;
}

struct throttle_sketch *
throttle_sketch_new(size_t k)
{
    struct throttle_sketch *s = xcalloc(1, sizeof(*s));

    s->k = k == 0 ? 1 : k;
    s->e = xcalloc(s->k, sizeof(*s->e));
    return s;
}

void
throttle_sketch_free(struct throttle_sketch *s)
{
    if (s == NULL)
        return;
    for (size_t i = 0; i < s->n; i++)
        free(s->e[i].key);
    free(s->e);
    free(s);
}

static void
sketch_add_mu(struct throttle_sketch *s, const uint8_t *key, size_t len,
              int64_t w)
{
    uint64_t h;
    struct ss_entry *e, *min = NULL;

    if (s == NULL || w <= 0 || (key == NULL && len > 0))
        return;
    h = fnv1a(key, len);
    for (size_t i = 0; i < s->n; i++) {
        e = &s->e[i];
        if (e->hash == h && e->len == len &&
            (len == 0 || memcmp(e->key, key, len) == 0)) {
            e->count += w;
            return;
        }
        if (min == NULL || e->count < min->count)
            min = e;
    }
    if (s->n < s->k) {
        e = &s->e[s->n++];
        e->err = 0;
        e->count = w;
    } else {
        e = min;
        free(e->key);
        e->err = e->count;
        e->count += w;
    }
    e->key = xmalloc(len);
    if (len > 0)
        memcpy(e->key, key, len);
    e->len = len;
    e->hash = h;
}

void
throttle_sketch_add(struct throttle_sketch *s, const uint8_t *key,
                    size_t len, double weight)
{
    sketch_add_mu(s, key, len, to_mu(weight));
}

static int
cmp_entry_desc(const void *a, const void *b)
{
    const struct ss_entry *x = *(const struct ss_entry *const *)a;
    const struct ss_entry *y = *(const struct ss_entry *const *)b;

    if (x->count != y->count)
        return x->count < y->count ? 1 : -1;
    if (x->len != y->len)
        return x->len < y->len ? -1 : 1;
    return x->len == 0 ? 0 : memcmp(x->key, y->key, x->len);
}

/* Top n of s, largest first, keys copied (caller frees). */
size_t
throttle_sketch_top(struct throttle_sketch *s, struct throttle_hotkey *out,
                    size_t n)
{
    struct ss_entry **v;
    size_t m;

    if (s == NULL || out == NULL || n == 0 || s->n == 0)
        return 0;
    v = xmalloc(s->n * sizeof(*v));
    for (size_t i = 0; i < s->n; i++)
        v[i] = &s->e[i];
    qsort(v, s->n, sizeof(*v), cmp_entry_desc);
    m = s->n < n ? s->n : n;
    for (size_t i = 0; i < m; i++) {
        out[i].key = xmalloc(v[i]->len);
        if (v[i]->len > 0)
            memcpy(out[i].key, v[i]->key, v[i]->len);
        out[i].key_len = v[i]->len;
        out[i].count = mu_units(v[i]->count);
        out[i].error = mu_units(v[i]->err);
    }
    free(v);
    return m;
}

void
throttle_hotkeys_free(struct throttle_hotkey *hk, size_t n)
{
    if (hk == NULL)
        return;
    for (size_t i = 0; i < n; i++) {
        free(hk[i].key);
        hk[i].key = NULL;
    }
}

/* ------------------------------------------------------------------------
 * Limits.
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

/* ------------------------------------------------------------------------
 * Table state.
 * ---------------------------------------------------------------------- */

struct tpart {
    struct bucket b[2];                 /* share + burst bank */
    struct win w[2];                    /* all consumption: the ceiling */
    struct win bw[2];                   /* consumption paid by borrowing */
    struct hist h[2];
    struct win rej[2];                  /* rejections, last second (count) */
    int64_t total[2];                   /* consumed since creation, mu */
    uint64_t admitted[2], borrowed[2], would[2];
    uint64_t throttled[2][THROTTLE_CAUSE_COUNT];
};

struct peak {
    int64_t settled;                    /* mu/s: peak older than the window */
    uint64_t width_ms;                  /* bucket width: window / 30 */
    struct {
        uint64_t b;                     /* bucket number */
        int64_t max;                    /* highest 1-second sum seen in it */
        bool used;
    } ring[PEAK_RING];
};

struct throttle_table {
    pthread_mutex_t mu;                 /* guards everything below */
    struct throttle_limits lim;
    bool on_demand;
    bool is_index;
    char *arn;                          /* owned */
    int64_t prov[2];                    /* provisioned, mu per second */
    int64_t odmax[2];                   /* OnDemandThroughput, mu/s; 0 none */
    unsigned n;
    struct tpart *p;                    /* owned: n entries */
    struct win tw[2];                   /* table consumption, last second */
    struct peak pk[2];
    struct throttle_sketch *hk[THROTTLE_HK_COUNT]; /* owned */
    uint64_t last_ms;                   /* latest time seen */
};

static int64_t
ceiling_mu(const struct throttle_table *t, int op)
{
    return to_mu(throttle_limits_ceiling(&t->lim, (enum throttle_op)op));
}

static int64_t
bank_cap(const struct throttle_limits *lim, int64_t rate)
{
    double ms = lim->burst_s > 0 ? lim->burst_s * 1000.0 : 0;

    return (int64_t)((double)rate * ms);
}

/* Set every partition's share to provisioned / n and resize its bank. */
static void
spread_shares(struct throttle_table *t)
{
    for (int op = 0; op < 2; op++) {
        /* prov is mu/s; rate is milliunits/s = mu/s / 1000 */
        int64_t rate = t->on_demand ? 0 : t->prov[op] / 1000 / t->n;

        for (unsigned i = 0; i < t->n; i++) {
            struct bucket *b = &t->p[i].b[op];

            b->rate = rate;
            b->cap = bank_cap(&t->lim, rate);
            if (b->level > b->cap)
                b->level = b->cap;
        }
    }
}

static void
peak_init(struct peak *pk, const struct throttle_limits *lim)
{
    double w = lim->od_peak_window_s > 0 ? lim->od_peak_window_s : 0;
    uint64_t width = (uint64_t)(w * 1000.0 / PEAK_STEPS);

    memset(pk->ring, 0, sizeof(pk->ring));
    pk->width_ms = width == 0 ? 1 : width;
}

/* Fold buckets that ended at least a window ago into the settled peak. */
static void
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

static void
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

static void
part_init(struct tpart *p, uint64_t now_ms)
{
    memset(p, 0, sizeof(*p));
    for (int op = 0; op < 2; op++) {
        p->b[op].t_ms = now_ms;
        win_init(&p->w[op], now_ms);
        win_init(&p->bw[op], now_ms);
        win_init(&p->rej[op], now_ms);
        p->h[op].sec = now_ms / 1000;
    }
}

static void
apply_conf(struct throttle_table *t, const struct throttle_table_conf *tc)
{
    t->on_demand = tc->on_demand;
    t->prov[THROTTLE_READ] = tc->on_demand ? 0 : to_mu(tc->rcu);
    t->prov[THROTTLE_WRITE] = tc->on_demand ? 0 : to_mu(tc->wcu);
    t->odmax[THROTTLE_READ] = tc->od_max_rru > 0 ? to_mu(tc->od_max_rru) : 0;
    t->odmax[THROTTLE_WRITE] = tc->od_max_wru > 0 ? to_mu(tc->od_max_wru) : 0;
}

struct throttle_table *
throttle_table_new(const struct throttle_limits *lim,
                   const struct throttle_table_conf *tc, uint64_t now_ms)
{
    struct throttle_table *t = xcalloc(1, sizeof(*t));

    pthread_mutex_init(&t->mu, NULL);
    t->lim = *lim;
    t->is_index = tc->is_index;
    t->arn = xstrdup(tc->arn != NULL ? tc->arn : "");
    apply_conf(t, tc);
    t->n = tc->nparts == 0 ? 1 : tc->nparts;
    t->p = xcalloc(t->n, sizeof(*t->p));
    for (unsigned i = 0; i < t->n; i++)
        part_init(&t->p[i], now_ms);
    spread_shares(t);
    if (lim->burst_start_full)
        for (unsigned i = 0; i < t->n; i++)
            for (int op = 0; op < 2; op++)
                t->p[i].b[op].level = t->p[i].b[op].cap;
    for (int op = 0; op < 2; op++) {
        win_init(&t->tw[op], now_ms);
        peak_init(&t->pk[op], lim);
    }
    for (int k = 0; k < THROTTLE_HK_COUNT; k++)
        t->hk[k] = throttle_sketch_new(THROTTLE_HOTKEYS);
    t->last_ms = now_ms;
    return t;
}

void
throttle_table_free(struct throttle_table *t)
{
    if (t == NULL)
        return;
    for (int k = 0; k < THROTTLE_HK_COUNT; k++)
        throttle_sketch_free(t->hk[k]);
    free(t->p);
    free(t->arn);
    pthread_mutex_destroy(&t->mu);
    free(t);
}

/* Bring partition i (all of it) and the table windows up to now. The
 * engine's clock never runs backwards: an earlier now counts as the latest
 * time seen. Returns the time to use. Caller holds t->mu. */
static uint64_t
advance(struct throttle_table *t, struct tpart *p, uint64_t now_ms)
{
    if (now_ms < t->last_ms)
        now_ms = t->last_ms;
    t->last_ms = now_ms;
    for (int op = 0; op < 2; op++) {
        win_advance(&t->tw[op], now_ms);
        peak_advance(&t->pk[op], now_ms);
        if (p == NULL)
            continue;
        bucket_refill(&p->b[op], now_ms);
        win_advance(&p->w[op], now_ms);
        win_advance(&p->bw[op], now_ms);
        win_advance(&p->rej[op], now_ms);
        hist_advance(&p->h[op], now_ms);
    }
    return now_ms;
}

void
throttle_table_update(struct throttle_table *t,
                      const struct throttle_table_conf *tc, uint64_t now_ms)
{
    pthread_mutex_lock(&t->mu);
    for (unsigned i = 0; i < t->n; i++)
        now_ms = advance(t, &t->p[i], now_ms);
    if (!t->on_demand && tc->on_demand) {
        /* DynamoDB: a table switched to on-demand has a previous peak of
         * at least half its provisioned throughput. */
        for (int op = 0; op < 2; op++)
            t->pk[op].settled = max64(t->pk[op].settled, t->prov[op] / 2);
    }
    apply_conf(t, tc);
    spread_shares(t);
    pthread_mutex_unlock(&t->mu);
}

void
throttle_table_set_limits(struct throttle_table *t,
                          const struct throttle_limits *lim, uint64_t now_ms)
{
    pthread_mutex_lock(&t->mu);
    for (unsigned i = 0; i < t->n; i++)
        now_ms = advance(t, &t->p[i], now_ms);
    t->lim = *lim;
    for (int op = 0; op < 2; op++) {
        int64_t settled = t->pk[op].settled;

        peak_init(&t->pk[op], lim);
        t->pk[op].settled = settled;
    }
    spread_shares(t);
    pthread_mutex_unlock(&t->mu);
}

unsigned
throttle_table_nparts(struct throttle_table *t)
{
    unsigned n;

    pthread_mutex_lock(&t->mu);
    n = t->n;
    pthread_mutex_unlock(&t->mu);
    return n;
}

/* Parent into children a (gets the odd halves) and b. Caller holds mu. */
static void
part_split(const struct tpart *parent, struct tpart *a, struct tpart *b)
{
    *a = *parent;
    *b = *parent;
    for (int op = 0; op < 2; op++) {
        /* each child: half the share, half the bank and half the level */
        b->b[op].rate = parent->b[op].rate / 2;
        a->b[op].rate = parent->b[op].rate - b->b[op].rate;
        b->b[op].cap = parent->b[op].cap / 2;
        a->b[op].cap = parent->b[op].cap - b->b[op].cap;
        b->b[op].level = parent->b[op].level / 2;
        a->b[op].level = parent->b[op].level - b->b[op].level;
        win_split(&parent->w[op], &a->w[op], &b->w[op]);
        win_split(&parent->bw[op], &a->bw[op], &b->bw[op]);
        win_split(&parent->rej[op], &a->rej[op], &b->rej[op]);
        for (unsigned s = 0; s < THROTTLE_HISTORY_S; s++) {
            b->h[op].v[s] = parent->h[op].v[s] / 2;
            a->h[op].v[s] = parent->h[op].v[s] - b->h[op].v[s];
        }
        b->total[op] = parent->total[op] / 2;
        a->total[op] = parent->total[op] - b->total[op];
        b->admitted[op] = parent->admitted[op] / 2;
        a->admitted[op] = parent->admitted[op] - b->admitted[op];
        b->borrowed[op] = parent->borrowed[op] / 2;
        a->borrowed[op] = parent->borrowed[op] - b->borrowed[op];
        b->would[op] = parent->would[op] / 2;
        a->would[op] = parent->would[op] - b->would[op];
        for (int c = 0; c < THROTTLE_CAUSE_COUNT; c++) {
            b->throttled[op][c] = parent->throttled[op][c] / 2;
            a->throttled[op][c] = parent->throttled[op][c] -
                                  b->throttled[op][c];
        }
    }
}

static void
split_locked(struct throttle_table *t, unsigned i, uint64_t now_ms)
{
    struct tpart *np = xcalloc(t->n + 1, sizeof(*np));

    now_ms = advance(t, &t->p[i], now_ms);
    memcpy(np, t->p, i * sizeof(*np));
    part_split(&t->p[i], &np[i], &np[i + 1]);
    memcpy(np + i + 2, t->p + i + 1, (t->n - i - 1) * sizeof(*np));
    free(t->p);
    t->p = np;
    t->n++;
}

int
throttle_table_split(struct throttle_table *t, unsigned i, uint64_t now_ms,
                     struct ddb_err *err)
{
    pthread_mutex_lock(&t->mu);
    if (i >= t->n) {
        unsigned n = t->n;

        pthread_mutex_unlock(&t->mu);
        return ddb_err_set(err, DDB_INTERNAL,
                           "throttle: no partition %u of %u", i, n);
    }
    split_locked(t, i, now_ms);
    pthread_mutex_unlock(&t->mu);
    return 0;
}

void
throttle_table_double(struct throttle_table *t, uint64_t now_ms)
{
    pthread_mutex_lock(&t->mu);
    for (unsigned i = t->n; i-- > 0;)
        split_locked(t, i, now_ms);
    pthread_mutex_unlock(&t->mu);
}

/* ------------------------------------------------------------------------
 * Admission and charging.
 * ---------------------------------------------------------------------- */

/* The on-demand table's instant capacity now: max(initial, mult x peak). */
static int64_t
od_limit(const struct throttle_table *t, int op)
{
    double init = op == THROTTLE_READ ? t->lim.od_initial_rru
                                      : t->lim.od_initial_wru;
    double mult = t->lim.od_peak_mult > 0 ? t->lim.od_peak_mult : 2;
    int64_t a = to_mu(init * scale_of(&t->lim));
    int64_t b = (int64_t)((double)t->pk[op].settled * mult);

    return max64(a, b);
}

static int64_t
od_quota(const struct throttle_table *t, int op)
{
    double q = op == THROTTLE_READ ? t->lim.od_table_max_rru
                                   : t->lim.od_table_max_wru;

    return q > 0 ? to_mu(q * scale_of(&t->lim)) : INT64_MAX / 4;
}

/* Would a charge of need fit under limit given used? A need larger than
 * the whole limit fits when nothing is used, so a big item is never
 * starved (it then runs into debt). */
static bool
fits(int64_t used, int64_t need, int64_t limit)
{
    return used + min64(need, limit) <= limit;
}

/* The decision, with the partition and table brought up to now. Sets
 * *borrow when the table's unused rate pays. Caller holds mu. */
static enum throttle_cause
decide(struct throttle_table *t, struct tpart *p, int op, int64_t need,
       bool *borrow)
{
    int64_t tw = t->tw[op].sum;

    *borrow = false;
    if (!fits(p->w[op].sum, need, ceiling_mu(t, op)))
        return THROTTLE_KEY_RANGE;
    if (t->on_demand) {
        if (t->odmax[op] > 0 && !fits(tw, need, t->odmax[op]))
            return THROTTLE_MAX_ON_DEMAND;
        if (!fits(tw, need, od_quota(t, op)))
            return THROTTLE_ACCOUNT_LIMIT;
        if (!fits(tw, need, od_limit(t, op)))
            return THROTTLE_KEY_RANGE;  /* "still scaling" */
        return THROTTLE_OK;
    }
    if (p->b[op].level >= min64(need, max64(p->b[op].cap, 0)))
        return THROTTLE_OK;
    /* Adaptive capacity lends what the other partitions' shares leave
     * unused in the last second, less what this partition already
     * borrowed in it. When there is something to lend but adaptive
     * capacity is off, the partition's key range is the limit; when there
     * is nothing, the table's provisioned throughput is. */
    {
        int64_t share = p->b[op].rate * 1000;       /* mu/s */
        int64_t pool = t->prov[op] - share;
        int64_t used = (tw - p->w[op].sum) + p->bw[op].sum;

        if (pool <= 0 || !fits(used, need, pool))
            return THROTTLE_PROVISIONED;
        if (!t->lim.adaptive)
            return THROTTLE_KEY_RANGE;
        *borrow = true;
        return THROTTLE_OK;
    }
}

enum throttle_cause
throttle_admit(struct throttle_table *t, unsigned part, enum throttle_op op,
               double need, const uint8_t *pk, size_t pk_len,
               uint64_t now_ms, struct throttle_ticket *tk)
{
    enum throttle_cause c;
    struct tpart *p;
    int64_t need_mu = need > 0 ? to_mu(need) : MU_PER_UNIT;
    bool borrow;
    int o = op == THROTTLE_READ ? THROTTLE_READ : THROTTLE_WRITE;

    pthread_mutex_lock(&t->mu);
    if (part >= t->n)
        part = t->n - 1;                /* a stale index after a split */
    p = &t->p[part];
    advance(t, p, now_ms);
    c = decide(t, p, o, need_mu, &borrow);
    if (c != THROTTLE_OK && !t->lim.enforce) {
        p->would[o]++;
        c = THROTTLE_OK;
        borrow = false;
    }
    if (c == THROTTLE_OK) {
        p->admitted[o]++;
        if (borrow)
            p->borrowed[o]++;
        if (tk != NULL) {
            tk->part = part;
            tk->op = (enum throttle_op)o;
            tk->borrowed = borrow;
        }
    } else {
        p->throttled[o][c]++;
        win_add(&p->rej[o], 1);
        sketch_add_mu(t->hk[o == THROTTLE_READ ? THROTTLE_HK_READ_THROTTLED
                                               : THROTTLE_HK_WRITE_THROTTLED],
                      pk, pk_len, MU_PER_UNIT);
    }
    pthread_mutex_unlock(&t->mu);
    return c;
}

void
throttle_ticket_init(struct throttle_ticket *tk, unsigned part,
                     enum throttle_op op)
{
    tk->part = part;
    tk->op = op;
    tk->borrowed = false;
}

void
throttle_charge(struct throttle_table *t, const struct throttle_ticket *tk,
                double units, const uint8_t *pk, size_t pk_len,
                uint64_t now_ms)
{
    int64_t mu = to_mu(units);
    int o = tk->op == THROTTLE_READ ? THROTTLE_READ : THROTTLE_WRITE;
    struct tpart *p;

    if (mu <= 0)
        return;
    pthread_mutex_lock(&t->mu);
    p = &t->p[tk->part < t->n ? tk->part : t->n - 1];
    now_ms = advance(t, p, now_ms);
    if (tk->borrowed)
        win_add(&p->bw[o], mu);
    else
        p->b[o].level -= mu;            /* may go below zero: debt */
    win_add(&p->w[o], mu);
    win_add(&t->tw[o], mu);
    p->h[o].v[p->h[o].sec % THROTTLE_HISTORY_S] += mu;
    p->total[o] += mu;
    peak_note(&t->pk[o], now_ms, t->tw[o].sum);
    sketch_add_mu(t->hk[o == THROTTLE_READ ? THROTTLE_HK_READ
                                           : THROTTLE_HK_WRITE],
                  pk, pk_len, mu);
    pthread_mutex_unlock(&t->mu);
}

/* ------------------------------------------------------------------------
 * The exceptions (throttling.md 5).
 * ---------------------------------------------------------------------- */

#define MSG_PROVISIONED                                                      \
    "The level of configured provisioned throughput for the table was "     \
    "exceeded. Consider increasing your provisioning level with the "       \
    "UpdateTable API."
#define MSG_PROVISIONED_GSI                                                  \
    "The level of configured provisioned throughput for one or more "       \
    "global secondary indexes of the table was exceeded. Consider "         \
    "increasing your provisioning level for the under-provisioned global "  \
    "secondary indexes with the UpdateTable API"
#define MSG_SCALING                                                          \
    "Throughput exceeds the current capacity of your table or index. "      \
    "DynamoDB is automatically scaling your table or index so please try "  \
    "again shortly. If exceptions persist, check if you have a hot key: "   \
    "https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/"     \
    "bp-partition-key-design.html"
#define MSG_MAX_ON_DEMAND                                                    \
    "Throughput exceeds the maximum OnDemandThroughput configured on table " \
    "or index"
#define MSG_ACCOUNT                                                          \
    "Throughput exceeds the current throughput limit for your account. To " \
    "request a limit increase, contact AWS Support at "                     \
    "https://aws.amazon.com/support."

static const char *const reasons[2][2][THROTTLE_CAUSE_COUNT] = {
    [0][THROTTLE_READ] = {
        NULL, "TableReadKeyRangeThroughputExceeded",
        "TableReadProvisionedThroughputExceeded",
        "TableReadMaxOnDemandThroughputExceeded",
        "TableReadAccountLimitExceeded" },
    [0][THROTTLE_WRITE] = {
        NULL, "TableWriteKeyRangeThroughputExceeded",
        "TableWriteProvisionedThroughputExceeded",
        "TableWriteMaxOnDemandThroughputExceeded",
        "TableWriteAccountLimitExceeded" },
    [1][THROTTLE_READ] = {
        NULL, "IndexReadKeyRangeThroughputExceeded",
        "IndexReadProvisionedThroughputExceeded",
        "IndexReadMaxOnDemandThroughputExceeded",
        "IndexReadAccountLimitExceeded" },
    [1][THROTTLE_WRITE] = {
        NULL, "IndexWriteKeyRangeThroughputExceeded",
        "IndexWriteProvisionedThroughputExceeded",
        "IndexWriteMaxOnDemandThroughputExceeded",
        "IndexWriteAccountLimitExceeded" },
};

const char *
throttle_reason(bool is_index, enum throttle_op op, enum throttle_cause cause)
{
    if ((int)cause <= 0 || (int)cause >= THROTTLE_CAUSE_COUNT)
        return NULL;
    return reasons[is_index ? 1 : 0][op == THROTTLE_READ ? 0 : 1][cause];
}

static enum ddb_errtype
errtype_of(bool on_demand, enum throttle_cause cause)
{
    switch (cause) {
    case THROTTLE_MAX_ON_DEMAND:
        return DDB_THROTTLING;
    case THROTTLE_ACCOUNT_LIMIT:
        return DDB_REQUEST_LIMIT_EXCEEDED;
    case THROTTLE_KEY_RANGE:
        return on_demand ? DDB_THROTTLING : DDB_THROUGHPUT_EXCEEDED;
    default:
        return DDB_THROUGHPUT_EXCEEDED;
    }
}

enum ddb_errtype
throttle_errtype(struct throttle_table *t, enum throttle_cause cause)
{
    bool od;

    pthread_mutex_lock(&t->mu);
    od = t->on_demand;
    pthread_mutex_unlock(&t->mu);
    return errtype_of(od, cause);
}

int
throttle_err(struct throttle_table *t, enum throttle_op op,
             enum throttle_cause cause, struct ddb_err *err)
{
    enum ddb_errtype type;
    const char *msg, *reason;
    json_t *list;

    if (cause == THROTTLE_OK)
        cause = THROTTLE_KEY_RANGE;     /* misuse: still a throttle */
    type = throttle_errtype(t, cause);
    switch (type) {
    case DDB_THROTTLING:
        msg = cause == THROTTLE_MAX_ON_DEMAND ? MSG_MAX_ON_DEMAND
                                              : MSG_SCALING;
        break;
    case DDB_REQUEST_LIMIT_EXCEEDED:
        msg = MSG_ACCOUNT;
        break;
    default:
        msg = t->is_index ? MSG_PROVISIONED_GSI : MSG_PROVISIONED;
        break;
    }
    if (err == NULL)
        return -1;
    reason = throttle_reason(t->is_index, op, cause);
    list = json_pack("[{s:s, s:s}]", "reason", reason, "resource", t->arn);
    /* ThrottlingException spells the member in lower camel case. */
    ddb_err_extra_set_new(err, type == DDB_THROTTLING ? "throttlingReasons"
                                                      : "ThrottlingReasons",
                          list);
    return ddb_err_set(err, type, "%s", msg);
}

int
throttle_batch_err(struct throttle_table *t, enum throttle_op op,
                   enum throttle_cause cause, struct ddb_err *err)
{
    json_t *list;

    if (cause != THROTTLE_KEY_RANGE)
        return throttle_err(t, op, cause, err);
    if (err == NULL)
        return -1;
    list = json_pack("[{s:s, s:s}]", "reason",
                     throttle_reason(t->is_index, op, cause), "resource",
                     t->arn);
    ddb_err_extra_set_new(err, "throttlingReasons", list);
    return ddb_err_set(err, DDB_THROTTLING, "%s", MSG_SCALING);
}

const char *
throttle_txn_code(struct throttle_table *t, enum throttle_cause cause)
{
    return throttle_errtype(t, cause) == DDB_THROUGHPUT_EXCEEDED
               ? "ProvisionedThroughputExceeded"
               : "ThrottlingError";
}

/* ------------------------------------------------------------------------
 * Observability.
 * ---------------------------------------------------------------------- */

static void
op_stats(const struct throttle_table *t, const struct tpart *p, int op,
         struct throttle_op_stats *s)
{
    int64_t sum60 = 0;

    memset(s, 0, sizeof(*s));
    s->share = (double)p->b[op].rate / 1000.0;
    s->level = mu_units(p->b[op].level);
    s->capacity = mu_units(p->b[op].cap);
    s->ceiling = mu_units(ceiling_mu(t, op));
    s->last_1s = mu_units(p->w[op].sum);
    for (unsigned k = 0; k < THROTTLE_HISTORY_S; k++) {
        uint64_t sec = p->h[op].sec - k;
        int64_t v = k <= p->h[op].sec ? p->h[op].v[sec % THROTTLE_HISTORY_S]
                                      : 0;

        s->per_second[k] = mu_units(v);
        sum60 += v;
    }
    s->last_60s = mu_units(sum60);
    s->consumed_total = mu_units(p->total[op]);
    s->admitted = p->admitted[op];
    s->borrowed = p->borrowed[op];
    s->would_throttle = p->would[op];
    memcpy(s->throttled, p->throttled[op], sizeof(s->throttled));
}

int
throttle_part_stats(struct throttle_table *t, unsigned part, uint64_t now_ms,
                    struct throttle_part_stats *out, struct ddb_err *err)
{
    pthread_mutex_lock(&t->mu);
    if (part >= t->n) {
        unsigned n = t->n;

        pthread_mutex_unlock(&t->mu);
        return ddb_err_set(err, DDB_INTERNAL,
                           "throttle: no partition %u of %u", part, n);
    }
    advance(t, &t->p[part], now_ms);
    for (int op = 0; op < 2; op++)
        op_stats(t, &t->p[part], op, &out->op[op]);
    pthread_mutex_unlock(&t->mu);
    return 0;
}

int
throttle_part_throttled_1s(struct throttle_table *t, unsigned part,
                           uint64_t now_ms, uint64_t out[2],
                           struct ddb_err *err)
{
    pthread_mutex_lock(&t->mu);
    if (part >= t->n) {
        unsigned n = t->n;

        pthread_mutex_unlock(&t->mu);
        return ddb_err_set(err, DDB_INTERNAL,
                           "throttle: no partition %u of %u", part, n);
    }
    advance(t, &t->p[part], now_ms);
    for (int op = 0; op < 2; op++)
        out[op] = (uint64_t)t->p[part].rej[op].sum;
    pthread_mutex_unlock(&t->mu);
    return 0;
}

void
throttle_table_stats(struct throttle_table *t, uint64_t now_ms,
                     struct throttle_table_stats *out)
{
    memset(out, 0, sizeof(*out));
    pthread_mutex_lock(&t->mu);
    out->nparts = t->n;
    out->on_demand = t->on_demand;
    for (unsigned i = 0; i < t->n; i++)
        now_ms = advance(t, &t->p[i], now_ms);
    for (int op = 0; op < 2; op++) {
        struct throttle_op_stats *s = &out->op[op];

        out->provisioned[op] = mu_units(t->prov[op]);
        out->limit[op] = t->on_demand ? mu_units(od_limit(t, op))
                                      : mu_units(t->prov[op]);
        out->peak[op] = mu_units(t->pk[op].settled);
        for (unsigned i = 0; i < t->n; i++) {
            struct throttle_op_stats ps;

            op_stats(t, &t->p[i], op, &ps);
            s->share += ps.share;
            s->level += ps.level;
            s->capacity += ps.capacity;
            s->ceiling += ps.ceiling;
            s->last_60s += ps.last_60s;
            s->consumed_total += ps.consumed_total;
            for (unsigned k = 0; k < THROTTLE_HISTORY_S; k++)
                s->per_second[k] += ps.per_second[k];
            s->admitted += ps.admitted;
            s->borrowed += ps.borrowed;
            s->would_throttle += ps.would_throttle;
            for (int c = 0; c < THROTTLE_CAUSE_COUNT; c++)
                s->throttled[c] += ps.throttled[c];
        }
        s->last_1s = mu_units(t->tw[op].sum);
    }
    pthread_mutex_unlock(&t->mu);
}

size_t
throttle_hotkeys(struct throttle_table *t, enum throttle_hk_kind kind,
                 struct throttle_hotkey *out, size_t n)
{
    size_t m;

    if ((int)kind < 0 || kind >= THROTTLE_HK_COUNT)
        return 0;
    pthread_mutex_lock(&t->mu);
    m = throttle_sketch_top(t->hk[kind], out, n);
    pthread_mutex_unlock(&t->mu);
    return m;
}

/* ------------------------------------------------------------------------
 * Per-table knobs: "shardlocal:<name>" tags.
 * ---------------------------------------------------------------------- */

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
 * From a table description.
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

/* ------------------------------------------------------------------------
 * Registry.
 * ---------------------------------------------------------------------- */

struct reg_entry {
    char *table;                        /* owned */
    char *index;                        /* owned, NULL for the table */
    struct throttle_table *t;           /* owned */
    bool dropped;                       /* kept allocated until free */
};

struct throttle_registry {
    pthread_rwlock_t mu;                /* guards everything below */
    struct throttle_limits lim;
    struct reg_entry *e;                /* owned */
    size_t n, cap;
};

struct throttle_registry *
throttle_registry_new(const struct throttle_limits *lim)
{
    struct throttle_registry *r = xcalloc(1, sizeof(*r));

    pthread_rwlock_init(&r->mu, NULL);
    r->lim = *lim;
    return r;
}

void
throttle_registry_free(struct throttle_registry *r)
{
    if (r == NULL)
        return;
    for (size_t i = 0; i < r->n; i++) {
        free(r->e[i].table);
        free(r->e[i].index);
        throttle_table_free(r->e[i].t);
    }
    free(r->e);
    pthread_rwlock_destroy(&r->mu);
    free(r);
}

void
throttle_registry_limits(struct throttle_registry *r,
                         struct throttle_limits *out)
{
    pthread_rwlock_rdlock(&r->mu);
    *out = r->lim;
    pthread_rwlock_unlock(&r->mu);
}

void
throttle_registry_set_limits(struct throttle_registry *r,
                             const struct throttle_limits *lim,
                             uint64_t now_ms)
{
    pthread_rwlock_wrlock(&r->mu);
    r->lim = *lim;
    for (size_t i = 0; i < r->n; i++)
        if (!r->e[i].dropped)
            throttle_table_set_limits(r->e[i].t, lim, now_ms);
    pthread_rwlock_unlock(&r->mu);
}

static bool
same_index(const char *a, const char *b)
{
    if (a == NULL || b == NULL)
        return a == b;
    return strcmp(a, b) == 0;
}

/* Caller holds r->mu (either mode). */
static struct throttle_table *
reg_lookup(struct throttle_registry *r, const char *table, const char *index)
{
    for (size_t i = 0; i < r->n; i++) {
        struct reg_entry *e = &r->e[i];

        if (!e->dropped && strcmp(e->table, table) == 0 &&
            same_index(e->index, index))
            return e->t;
    }
    return NULL;
}

struct throttle_table *
throttle_registry_find(struct throttle_registry *r, const char *table,
                       const char *index)
{
    struct throttle_table *t;

    if (table == NULL)
        return NULL;
    pthread_rwlock_rdlock(&r->mu);
    t = reg_lookup(r, table, index);
    pthread_rwlock_unlock(&r->mu);
    return t;
}

struct throttle_table *
throttle_registry_get(struct throttle_registry *r, const char *table,
                      const char *index, const struct throttle_table_conf *tc,
                      const struct throttle_limits *lim, uint64_t now_ms)
{
    struct throttle_table *t = throttle_registry_find(r, table, index);
    struct reg_entry *e;

    if (t != NULL || table == NULL || tc == NULL)
        return t;
    pthread_rwlock_wrlock(&r->mu);
    t = reg_lookup(r, table, index);    /* another thread may have won */
    if (t == NULL) {
        if (r->n == r->cap) {
            size_t cap = r->cap == 0 ? 16 : r->cap * 2;
            struct reg_entry *ne = xcalloc(cap, sizeof(*ne));

            if (r->n > 0)
                memcpy(ne, r->e, r->n * sizeof(*ne));
            free(r->e);
            r->e = ne;
            r->cap = cap;
        }
        e = &r->e[r->n];
        e->table = xstrdup(table);
        e->index = index != NULL ? xstrdup(index) : NULL;
        e->t = throttle_table_new(lim != NULL ? lim : &r->lim, tc, now_ms);
        e->dropped = false;
        r->n++;
        t = e->t;
    }
    pthread_rwlock_unlock(&r->mu);
    return t;
}

void
throttle_registry_drop(struct throttle_registry *r, const char *table,
                       const char *index)
{
    if (table == NULL)
        return;
    pthread_rwlock_wrlock(&r->mu);
    for (size_t i = 0; i < r->n; i++) {
        struct reg_entry *e = &r->e[i];

        if (strcmp(e->table, table) == 0 &&
            (index == NULL || same_index(e->index, index)))
            e->dropped = true;
    }
    pthread_rwlock_unlock(&r->mu);
}

void
throttle_registry_foreach(struct throttle_registry *r, throttle_visit_fn *fn,
                          void *arg)
{
    pthread_rwlock_rdlock(&r->mu);
    for (size_t i = 0; i < r->n; i++)
        if (!r->e[i].dropped)
            fn(arg, r->e[i].table, r->e[i].index, r->e[i].t);
    pthread_rwlock_unlock(&r->mu);
}
