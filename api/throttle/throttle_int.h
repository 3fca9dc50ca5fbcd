/* SPDX-License-Identifier: MIT */
/* throttle_int.h - the engine's inside, shared by bucket.c, throttle.c
 * and registry.c only: fixed-point units, the building blocks (bucket.c),
 * and the state of a table and its partitions (throttle.c) that the
 * counters (registry.c) read. Everyone else includes throttle.h. */
#ifndef SHARDLOCAL_THROTTLE_INT_H
#define SHARDLOCAL_THROTTLE_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "api/throttle/throttle.h"

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

/* v (> 0, at most 9e12) in fixed point of per_unit parts; 0 if not > 0. */
static inline int64_t
to_fixed(double v, double per_unit)
{
    if (!(v > 0))
        return 0;
    if (v > 9e12)
        v = 9e12;
    return (int64_t)(v * per_unit + 0.5);
}

/* units -> microunits */
static inline int64_t
to_mu(double units)
{
    return to_fixed(units, (double)MU_PER_UNIT);
}

/* units/s -> milliunits/s */
static inline int64_t
to_rate(double units_per_s)
{
    return to_fixed(units_per_s, 1000.0);
}

static inline double
mu_units(int64_t mu)
{
    return (double)mu / (double)MU_PER_UNIT;
}

static inline int64_t
min64(int64_t a, int64_t b)
{
    return a < b ? a : b;
}

static inline int64_t
max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

/* ------------------------------------------------------------------------
 * Building blocks (bucket.c): token bucket, sliding one-second window,
 * on-demand peak; per-second history (history.c).
 * ---------------------------------------------------------------------- */

struct bucket {
    int64_t level;                      /* microunits; < 0 is debt */
    int64_t rate;                       /* milliunits/s */
    int64_t cap;                        /* microunits: rate x burst */
    uint64_t t_ms;                      /* last refill */
};

/* Does b hold enough for a request of need microunits? A need larger than
 * the whole bucket is clipped to it, so a request bigger than the bucket
 * runs once the bucket is full (and leaves it in debt) instead of never. */
static inline bool
bucket_has(const struct bucket *b, int64_t need)
{
    return b->level >= (need < b->cap ? need : (b->cap > 0 ? b->cap : 0));
}

/* Consumption over the last second: 100 slots of 10 ms. The sum counts the
 * current slot and the 99 before it. */
struct win {
    int64_t slot[WIN_SLOTS];
    uint64_t idx;                       /* slot number of now (ms / 10) */
    int64_t sum;
};

/* The per-second history of one partition (history.c): the current
 * second and the THROTTLE_RING_S whole seconds before it, slot sec %
 * RING_SLOTS. The bucket levels of a second are written when it ends. */
#define RING_SLOTS (THROTTLE_RING_S + 1)

struct hist {
    uint64_t sec;                       /* second number of now */
    int64_t mu[2][RING_SLOTS];          /* consumed, microunits */
    uint32_t rej[2][RING_SLOTS];        /* requests refused */
    float bank[2][RING_SLOTS];          /* share bucket level, units */
    float burst[2][RING_SLOTS];         /* ceiling bucket level, units */
};

/* The table's side of the same seconds: its rate (provisioned, or an
 * on-demand table's instant capacity) when each second ended. */
struct thist {
    uint64_t sec;                       /* second number of now */
    float cap[2][RING_SLOTS];           /* units/s */
};

/* An on-demand table's previous peak: the highest one-second consumption
 * that is at least a peak window old. */
struct peak {
    int64_t settled;                    /* mu/s: peak older than the window */
    uint64_t width_ms;                  /* bucket width: window / 30 */
    struct {
        uint64_t b;                     /* bucket number */
        int64_t max;                    /* highest 1-second sum seen in it */
        bool used;
    } ring[PEAK_RING];
};

void bucket_refill(struct bucket *b, uint64_t now_ms);
/* New rate (milliunits/s) and a bank of seconds of it; the level is kept,
 * clipped to the new bank. */
void bucket_set(struct bucket *b, int64_t rate, double seconds);
void win_init(struct win *w, uint64_t now_ms);
void win_advance(struct win *w, uint64_t now_ms);
void win_add(struct win *w, int64_t mu);
void win_split(const struct win *w, struct win *a, struct win *b);
/* history.c: move h to now_ms's second. The seconds that end take the
 * levels of bank and burst ([2] each, not yet refilled to now_ms) at
 * their ends. */
void hist_advance(struct hist *h, const struct bucket bank[2],
                  const struct bucket burst[2], uint64_t now_ms);
/* The same for the table: cap from tb ([2], its rate). */
void thist_advance(struct thist *h, const struct bucket tb[2],
                   uint64_t now_ms);
/* The history of a split's children: a gets the parent's rounded-up half
 * of consumption, throttles and bank, b the rest; both keep the parent's
 * ceiling levels (each has its own ceiling). New allocations. */
void hist_split(const struct hist *parent, struct hist **a, struct hist **b);
/* throttle_event_add with t->mu held. */
void event_push(struct throttle_table *t, const struct throttle_event *ev,
                uint64_t now_ms);
void peak_init(struct peak *pk, const struct throttle_limits *lim);
void peak_advance(struct peak *pk, uint64_t now_ms);
void peak_note(struct peak *pk, uint64_t now_ms, int64_t sample);

/* ------------------------------------------------------------------------
 * The state of one table or GSI (throttle.c).
 * ---------------------------------------------------------------------- */

/* Split for heat (heat.c): demand on a partition by ring position while
 * its ceiling keeps refusing requests. */
#define HEAT_KEYS 4

struct heat {
    uint64_t since_ms;                  /* hot since (the ceiling refused a
                                           request); 0: not hot */
    unsigned n;
    struct {
        uint64_t pos;                   /* top 64 bits of a key's hash */
        int64_t mu;                     /* demand asked for there */
    } top[HEAT_KEYS];                   /* space-saving, n used */
};

struct tpart {
    struct heat heat;                   /* split for heat (heat.c) */
    struct bucket b[2];                 /* provisioned share + burst bank */
    struct bucket c[2];                 /* the partition maximum and the
                                           burst it absorbs at once */
    struct win w[2];                    /* consumption, last second */
    struct hist *h;                     /* owned: per-second history */
    struct win rej[2];                  /* rejections, last second (count) */
    int64_t total[2];                   /* consumed since creation, mu */
    uint64_t admitted[2], borrowed[2], would[2];
    uint64_t throttled[2][THROTTLE_CAUSE_COUNT];
};

struct throttle_table {
    pthread_mutex_t mu;                 /* guards everything below */
    struct throttle_limits lim;
    bool on_demand;
    bool is_index;
    char *arn;                          /* owned */
    int64_t prov[2];                    /* provisioned, mu per second */
    int64_t odmax[2];                   /* OnDemandThroughput, mu/s; 0 none */
    double warm[2];                     /* WarmThroughput, units/s (on
                                           demand; 0: none), unscaled */
    unsigned n;
    struct tpart *p;                    /* owned: n entries */
    struct bucket tb[2];                /* the table: provisioned rate and
                                           bank (adaptive capacity), or an
                                           on-demand table's instant
                                           capacity */
    struct win tw[2];                   /* table consumption, last second */
    struct peak pk[2];
    struct throttle_sketch *hk[THROTTLE_HK_COUNT]; /* owned */
    uint64_t last_ms;                   /* latest time seen */
    uint64_t born_s;                    /* second the state was created */
    struct thist *th;                   /* owned: the table's history */
    struct throttle_event ev[THROTTLE_EVENTS]; /* ring, ev_n % EVENTS */
    uint64_t ev_n;                      /* events recorded so far */
};

/* The limits in force on t (bucket.c), in microunits per second: the
 * partition ceiling, an on-demand table's instant capacity now
 * (max(initial, mult x peak)) and its per-table quota. */
int64_t ceiling_mu(const struct throttle_table *t, int op);
int64_t od_limit(const struct throttle_table *t, int op);
int64_t od_quota(const struct throttle_table *t, int op);

/* Bring partition p (NULL: none) and the table's windows up to now_ms;
 * returns the time to use (never earlier than the latest seen). Caller
 * holds t->mu. */
uint64_t table_advance(struct throttle_table *t, struct tpart *p,
                       uint64_t now_ms);
/* Lock t and bring every partition up to now_ms; returns the time to use
 * (as table_advance). */
uint64_t table_lock_all(struct throttle_table *t, uint64_t now_ms);
/* Lock t and bring partition part up to now_ms. Returns it, or NULL (t
 * unlocked, err set to DDB_INTERNAL) if part is out of range. */
struct tpart *table_lock_part(struct throttle_table *t, unsigned part,
                              uint64_t now_ms, struct ddb_err *err);

/* heat.c, caller holds t->mu: the ceiling of p refused (hot since now)
 * or admitted a request (cooled down once its burst is half back). */
void heat_refused(struct tpart *p, uint64_t now_ms);
void heat_admitted(struct tpart *p);

/* Add w microunits to key (copied) in s (registry.c). */
void sketch_add_mu(struct throttle_sketch *s, const uint8_t *key, size_t len,
                   int64_t w);

#endif
