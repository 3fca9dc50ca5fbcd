/* SPDX-License-Identifier: MIT */
/* throttle.c - the throttling engine's state of one table or GSI: its
 * partitions' shares and burst banks, updates and splits, the admission
 * decision (ceiling, burst, adaptive capacity, on-demand limits) and
 * charging, and the exceptions DynamoDB sends (docs/throttling.md). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "api/throttle/throttle_int.h"
#include "storage/util.h"

/* ------------------------------------------------------------------------
 * Table state: partitions' shares and burst banks, updates and splits.
 * ---------------------------------------------------------------------- */

/*
 * Rates and banks from the limits and the provisioning (docs/throttling.md
 * 2): each partition's share of the provisioned rate with burst_s seconds
 * of it banked, and its ceiling with partition_burst_s seconds of it
 * absorbed at once; the table's provisioned rate with the sum of the
 * banks (what adaptive capacity lends from), or an on-demand table's
 * instant capacity with od_burst_s seconds of it absorbed at once. Levels
 * are kept, clipped to the new banks.
 */
static void
set_rates(struct throttle_table *t)
{
    for (int op = 0; op < 2; op++) {
        /* mu/s / 1000 = milliunits/s, the buckets' rate unit */
        int64_t share = t->on_demand ? 0 : t->prov[op] / 1000 / t->n;
        int64_t ceil = ceiling_mu(t, op) / 1000;

        for (unsigned i = 0; i < t->n; i++) {
            bucket_set(&t->p[i].b[op], share, t->lim.burst_s);
            bucket_set(&t->p[i].c[op], ceil, t->lim.partition_burst_s);
        }
        if (t->on_demand)
            bucket_set(&t->tb[op], od_limit(t, op) / 1000,
                       t->lim.od_burst_s);
        else
            bucket_set(&t->tb[op], t->prov[op] / 1000, t->lim.burst_s);
    }
}

static void
part_init(struct tpart *p, uint64_t now_ms)
{
    memset(p, 0, sizeof(*p));
    for (int op = 0; op < 2; op++) {
        p->b[op].t_ms = now_ms;
        p->c[op].t_ms = now_ms;
        win_init(&p->w[op], now_ms);
        win_init(&p->rej[op], now_ms);
    }
    p->h = xcalloc(1, sizeof(*p->h));
    p->h->sec = now_ms / 1000;
}

static void
apply_conf(struct throttle_table *t, const struct throttle_table_conf *tc)
{
    t->on_demand = tc->on_demand;
    t->prov[THROTTLE_READ] = tc->on_demand ? 0 : to_mu(tc->rcu);
    t->prov[THROTTLE_WRITE] = tc->on_demand ? 0 : to_mu(tc->wcu);
    t->odmax[THROTTLE_READ] = tc->od_max_rru > 0 ? to_mu(tc->od_max_rru) : 0;
    t->odmax[THROTTLE_WRITE] = tc->od_max_wru > 0 ? to_mu(tc->od_max_wru) : 0;
    t->warm[THROTTLE_READ] = tc->on_demand ? tc->warm_rru : 0;
    t->warm[THROTTLE_WRITE] = tc->on_demand ? tc->warm_wru : 0;
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
    for (int op = 0; op < 2; op++) {
        win_init(&t->tw[op], now_ms);
        peak_init(&t->pk[op], lim);
        t->tb[op].t_ms = now_ms;
    }
    set_rates(t);
    /* A new partition is idle: its ceiling's burst is there at once, and
     * so is an on-demand table's instant capacity. The provisioned banks
     * start full unless burst-start-full is off. */
    for (int op = 0; op < 2; op++) {
        for (unsigned i = 0; i < t->n; i++) {
            t->p[i].c[op].level = t->p[i].c[op].cap;
            if (lim->burst_start_full)
                t->p[i].b[op].level = t->p[i].b[op].cap;
        }
        if (t->on_demand || lim->burst_start_full)
            t->tb[op].level = t->tb[op].cap;
    }
    for (int k = 0; k < THROTTLE_HK_COUNT; k++)
        t->hk[k] = throttle_sketch_new(THROTTLE_HOTKEYS);
    t->last_ms = now_ms;
    t->born_s = now_ms / 1000;
    t->th = xcalloc(1, sizeof(*t->th));
    t->th->sec = t->born_s;
    for (int op = 0; op < 2; op++)
        t->th->cap[op][t->born_s % RING_SLOTS] = (float)t->tb[op].rate /
                                                 1000.0f;
    return t;
}

void
throttle_table_free(struct throttle_table *t)
{
    if (t == NULL)
        return;
    for (int k = 0; k < THROTTLE_HK_COUNT; k++)
        throttle_sketch_free(t->hk[k]);
    for (unsigned i = 0; i < t->n; i++)
        free(t->p[i].h);
    free(t->p);
    free(t->th);
    free(t->arn);
    pthread_mutex_destroy(&t->mu);
    free(t);
}

/* Bring partition p (all of it) and the table windows up to now. The
 * engine's clock never runs backwards: an earlier now counts as the latest
 * time seen. Returns the time to use. Caller holds t->mu. */
uint64_t
table_advance(struct throttle_table *t, struct tpart *p, uint64_t now_ms)
{
    if (now_ms < t->last_ms)
        now_ms = t->last_ms;
    t->last_ms = now_ms;
    /* the seconds that end take the levels and rates they ended with */
    thist_advance(t->th, t->tb, now_ms);
    if (p != NULL)
        hist_advance(p->h, p->b, p->c, now_ms);
    for (int op = 0; op < 2; op++) {
        win_advance(&t->tw[op], now_ms);
        peak_advance(&t->pk[op], now_ms);
        /* a peak settled: the new rate refills the time since the last
         * request too (an idle table's bucket is full at the new size) */
        if (t->on_demand && t->tb[op].rate != od_limit(t, op) / 1000)
            bucket_set(&t->tb[op], od_limit(t, op) / 1000,
                       t->lim.od_burst_s);
        bucket_refill(&t->tb[op], now_ms);
        if (p == NULL)
            continue;
        bucket_refill(&p->b[op], now_ms);
        bucket_refill(&p->c[op], now_ms);
        win_advance(&p->w[op], now_ms);
        win_advance(&p->rej[op], now_ms);
    }
    return now_ms;
}

/* Lock t and bring every partition up to now_ms; returns the time to
 * use. */
uint64_t
table_lock_all(struct throttle_table *t, uint64_t now_ms)
{
    pthread_mutex_lock(&t->mu);
    for (unsigned i = 0; i < t->n; i++)
        now_ms = table_advance(t, &t->p[i], now_ms);
    return now_ms;
}

/* Lock t and bring partition part up to now_ms. Returns it, or NULL (t
 * unlocked, err set) if part is out of range. */
struct tpart *
table_lock_part(struct throttle_table *t, unsigned part, uint64_t now_ms,
                struct ddb_err *err)
{
    pthread_mutex_lock(&t->mu);
    if (part >= t->n) {
        unsigned n = t->n;

        pthread_mutex_unlock(&t->mu);
        ddb_err_set(err, DDB_INTERNAL, "throttle: no partition %u of %u",
                    part, n);
        return NULL;
    }
    table_advance(t, &t->p[part], now_ms);
    return &t->p[part];
}

void
throttle_table_update(struct throttle_table *t,
                      const struct throttle_table_conf *tc, uint64_t now_ms)
{
    struct throttle_event ev = {
        .kind = THROTTLE_EV_UPDATE_TABLE, .partition = -1,
        .on_demand = tc->on_demand, .rcu = tc->on_demand ? 0 : tc->rcu,
        .wcu = tc->on_demand ? 0 : tc->wcu, .od_max_rru = tc->od_max_rru,
        .od_max_wru = tc->od_max_wru,
    };
    double warm[2];
    int64_t cap[2];

    table_lock_all(t, now_ms);
    for (int op = 0; op < 2; op++) {
        warm[op] = t->on_demand ? t->warm[op] : 0;
        cap[op] = t->tb[op].cap;
    }
    if (!t->on_demand && tc->on_demand) {
        /* DynamoDB: a table switched to on-demand has a previous peak of
         * at least half its provisioned throughput. */
        for (int op = 0; op < 2; op++)
            t->pk[op].settled = max64(t->pk[op].settled, t->prov[op] / 2);
    }
    apply_conf(t, tc);
    set_rates(t);
    /* A warm throughput raised is there at once: what the instant
     * capacity's bucket grew by is added to it. */
    for (int op = 0; op < 2; op++)
        if (t->on_demand && t->warm[op] > warm[op] && t->tb[op].cap > cap[op])
            t->tb[op].level += t->tb[op].cap - cap[op];
    event_push(t, &ev, now_ms);         /* the history's update_table */
    pthread_mutex_unlock(&t->mu);
}

void
throttle_table_set_limits(struct throttle_table *t,
                          const struct throttle_limits *lim, uint64_t now_ms)
{
    table_lock_all(t, now_ms);
    t->lim = *lim;
    for (int op = 0; op < 2; op++) {
        int64_t settled = t->pk[op].settled;

        peak_init(&t->pk[op], lim);
        t->pk[op].settled = settled;
    }
    set_rates(t);
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
    hist_split(parent->h, &a->h, &b->h);
    memset(&a->heat, 0, sizeof(a->heat));       /* a new spell each */
    memset(&b->heat, 0, sizeof(b->heat));
    for (int op = 0; op < 2; op++) {
        /* each child: half the share, half the bank and half the level;
         * its own ceiling, with what the parent's had left (a hot key is
         * as throttled on its child as it was) */
        b->b[op].rate = parent->b[op].rate / 2;
        a->b[op].rate = parent->b[op].rate - b->b[op].rate;
        b->b[op].cap = parent->b[op].cap / 2;
        a->b[op].cap = parent->b[op].cap - b->b[op].cap;
        b->b[op].level = parent->b[op].level / 2;
        a->b[op].level = parent->b[op].level - b->b[op].level;
        win_split(&parent->w[op], &a->w[op], &b->w[op]);
        win_split(&parent->rej[op], &a->rej[op], &b->rej[op]);
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

    now_ms = table_advance(t, &t->p[i], now_ms);
    memcpy(np, t->p, i * sizeof(*np));
    part_split(&t->p[i], &np[i], &np[i + 1]);
    free(t->p[i].h);
    memcpy(np + i + 2, t->p + i + 1, (t->n - i - 1) * sizeof(*np));
    free(t->p);
    t->p = np;
    t->n++;
}

int
throttle_table_split(struct throttle_table *t, unsigned i, uint64_t now_ms,
                     struct ddb_err *err)
{
    if (table_lock_part(t, i, now_ms, err) == NULL)
        return -1;
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

/* Would a charge of need fit under limit given used (a one-second window:
 * the OnDemandThroughput maximum and the per-table quota)? A need larger
 * than the whole limit fits when nothing is used, so a big item is never
 * starved. */
static bool
fits(int64_t used, int64_t need, int64_t limit)
{
    return used + min64(need, limit) <= limit;
}

/*
 * The decision, with the partition and table brought up to now (caller
 * holds mu). Sets *borrow when the table's rate pays instead of the
 * partition's own share. Every bucket is asked for need, clipped to its
 * size (bucket_has):
 *
 * 1. the partition's ceiling (with the burst it absorbs at once): else
 *    KeyRange; nothing lifts it;
 * 2. on-demand: the OnDemandThroughput maximum and the per-table quota
 *    (one-second windows), then the table's instant capacity (KeyRange,
 *    "DynamoDB is automatically scaling");
 * 3. provisioned: the partition's share and bank; else, with adaptive
 *    capacity, the table's unused rate and bank. When the table has some
 *    left but adaptive capacity is off, the partition is the limit
 *    (KeyRange); when the table has none, the table is (Provisioned).
 */
static enum throttle_cause
decide(struct throttle_table *t, struct tpart *p, int op, int64_t need,
       bool *borrow)
{
    *borrow = false;
    if (!bucket_has(&p->c[op], need))
        return THROTTLE_KEY_RANGE;
    if (t->on_demand) {
        int64_t tw = t->tw[op].sum;

        if (t->odmax[op] > 0 && !fits(tw, need, t->odmax[op]))
            return THROTTLE_MAX_ON_DEMAND;
        if (!fits(tw, need, od_quota(t, op)))
            return THROTTLE_ACCOUNT_LIMIT;
        if (!bucket_has(&t->tb[op], need))
            return THROTTLE_KEY_RANGE;  /* "still scaling" */
        return THROTTLE_OK;
    }
    if (bucket_has(&p->b[op], need))
        return THROTTLE_OK;
    if (!bucket_has(&t->tb[op], need) || t->tb[op].cap <= 0)
        return THROTTLE_PROVISIONED;
    if (!t->lim.adaptive)
        return THROTTLE_KEY_RANGE;
    *borrow = true;
    return THROTTLE_OK;
}

/* Take mu (< 0: give back) from the buckets tk pays from: the partition's
 * ceiling, the table, and the partition's share unless the table's rate
 * paid (borrowed) or the table is on-demand. Caller holds mu. */
static void
settle(struct throttle_table *t, struct tpart *p,
       const struct throttle_ticket *tk, int o, int64_t mu)
{
    p->c[o].level -= mu;
    t->tb[o].level -= mu;
    if (!t->on_demand && !tk->borrowed)
        p->b[o].level -= mu;
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
    table_advance(t, p, now_ms);
    c = decide(t, p, o, need_mu, &borrow);
    if (c == THROTTLE_OK)
        heat_admitted(p);
    else if (!bucket_has(&p->c[o], need_mu))
        heat_refused(p, t->last_ms);    /* the ceiling itself refused */
    if (c != THROTTLE_OK && !t->lim.enforce) {
        p->would[o]++;
        c = THROTTLE_OK;
        borrow = false;
    }
    if (c == THROTTLE_OK) {
        if (tk != NULL) {
            tk->part = part;
            tk->op = (enum throttle_op)o;
            tk->borrowed = borrow;
            /* Taken now, so the requests that follow see it; the charge
             * settles the difference with the real cost. */
            tk->reserved = need_mu;
            settle(t, p, tk, o, need_mu);
        }
        p->admitted[o]++;
        if (borrow)
            p->borrowed[o]++;
    } else {
        p->throttled[o][c]++;
        win_add(&p->rej[o], 1);
        p->h->rej[o][p->h->sec % RING_SLOTS]++;
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
    tk->reserved = 0;
}

void
throttle_charge(struct throttle_table *t, const struct throttle_ticket *tk,
                double units, const uint8_t *pk, size_t pk_len,
                uint64_t now_ms)
{
    int64_t mu = units > 0 ? to_mu(units) : 0;
    int o = tk->op == THROTTLE_READ ? THROTTLE_READ : THROTTLE_WRITE;
    struct tpart *p;

    if (mu == 0 && tk->reserved == 0)
        return;
    pthread_mutex_lock(&t->mu);
    p = &t->p[tk->part < t->n ? tk->part : t->n - 1];
    now_ms = table_advance(t, p, now_ms);
    settle(t, p, tk, o, mu - tk->reserved);  /* may leave debt */
    if (mu > 0) {
        win_add(&p->w[o], mu);
        win_add(&t->tw[o], mu);
        p->h->mu[o][p->h->sec % RING_SLOTS] += mu;
        p->total[o] += mu;
        peak_note(&t->pk[o], now_ms, t->tw[o].sum);
        sketch_add_mu(t->hk[o == THROTTLE_READ ? THROTTLE_HK_READ
                                               : THROTTLE_HK_WRITE],
                      pk, pk_len, mu);
    }
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

/* The reasons are <Table|Index><Read|Write><cause>, e.g.
 * "IndexWriteKeyRangeThroughputExceeded"; REASONS spells one row. */
#define REASONS(who, op) {                                                  \
    [THROTTLE_KEY_RANGE]     = who op "KeyRangeThroughputExceeded",         \
    [THROTTLE_PROVISIONED]   = who op "ProvisionedThroughputExceeded",      \
    [THROTTLE_MAX_ON_DEMAND] = who op "MaxOnDemandThroughputExceeded",      \
    [THROTTLE_ACCOUNT_LIMIT] = who op "AccountLimitExceeded" }

static const char *const reasons[2][2][THROTTLE_CAUSE_COUNT] = {
    [0][THROTTLE_READ]  = REASONS("Table", "Read"),
    [0][THROTTLE_WRITE] = REASONS("Table", "Write"),
    [1][THROTTLE_READ]  = REASONS("Index", "Read"),
    [1][THROTTLE_WRITE] = REASONS("Index", "Write"),
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
