/* SPDX-License-Identifier: MIT */
/* throttle.h - DynamoDB's throttling model as pure logic: per-partition
 * token buckets, ceilings, adaptive capacity, on-demand limits, counters
 * and hot keys (bucket.c, throttle.c, registry.c). Time is always an
 * argument; nothing here reads a clock. docs/throttling.md explains it. */
#ifndef SHARDLOCAL_THROTTLE_H
#define SHARDLOCAL_THROTTLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "conf/limits.h"
#include "storage/storage.h"

enum throttle_op { THROTTLE_READ = 0, THROTTLE_WRITE = 1 };

/* Why a request was (or would have been) rejected. */
enum throttle_cause {
    THROTTLE_OK = 0,
    THROTTLE_KEY_RANGE,             /* partition ceiling or partition share;
                                       on-demand: also "still scaling" */
    THROTTLE_PROVISIONED,           /* the table's provisioned rate is
                                       used up */
    THROTTLE_MAX_ON_DEMAND,         /* OnDemandThroughput maximum */
    THROTTLE_ACCOUNT_LIMIT,         /* on-demand per-table quota (40,000) */
    THROTTLE_CAUSE_COUNT
};

/* The limits (struct throttle_limits, conf/limits.h) of the model:
 * DynamoDB's numbers, the defaults of conf/'s settings table. */
void throttle_limits_default(struct throttle_limits *lim);
/* The partition ceiling (units/s) after scaling. */
double throttle_limits_ceiling(const struct throttle_limits *lim,
                               enum throttle_op op);
/* Initial partition count of a provisioned table with the scaled ceilings:
 * ceil(rcu/partition_rcu + wcu/partition_wcu), at least 1. */
unsigned throttle_limits_partitions(const struct throttle_limits *lim,
                                    double rcu, double wcu);
/* The partitions a warm throughput of wr reads and ww writes a second
 * needs at once: on demand, the initial 4 serve the initial throughput (a
 * quarter each) and more serve more in proportion; provisioned, each
 * serves its (scaled) ceiling of reads and of writes. At least 1 (4 on
 * demand). */
unsigned throttle_limits_warm_partitions(const struct throttle_limits *lim,
                                         bool on_demand, double wr,
                                         double ww);

/* Apply the "shardlocal:<knob>" entries of a Tags list ([{"Key", "Value"}],
 * borrowed, may be NULL) to lim, each knob parsed by conf/'s settings
 * table (conf_limits_set); other tags are ignored, and so are bad values.
 * Returns how many knobs were set. */
int throttle_limits_apply_tags(struct throttle_limits *lim,
                               const json_t *tags);

/* What a table (or one GSI) is provisioned with. */
struct throttle_table_conf {
    bool on_demand;                 /* PAY_PER_REQUEST */
    double rcu, wcu;                /* provisioned units/s (provisioned) */
    double od_max_rru, od_max_wru;  /* OnDemandThroughput; <= 0 means none */
    double warm_rru, warm_wru;      /* WarmThroughput, units/s (0: none):
                                       on demand, the least instant
                                       capacity (scaled like the initial) */
    unsigned nparts;                /* partitions, at least 1 */
    const char *arn;                /* table or index ARN (copied) */
    bool is_index;                  /* a GSI: reasons say Index..., GSI msg */
};

/*
 * Fill tc from a table description (DescribeTable's TableDescription,
 * borrowed): BillingModeSummary, ProvisionedThroughput, OnDemandThroughput
 * and TableArn, or, when index is not NULL, those of that entry of
 * GlobalSecondaryIndexes (IndexArn; an on-demand table's GSIs are
 * on-demand). tc->arn points into desc. Returns 0, or -1 if the index is
 * not in the description.
 */
int throttle_conf_from_desc(const json_t *desc, const char *index,
                            unsigned nparts, struct throttle_table_conf *tc);

struct throttle_table;

/* Create the throttle state of one table or GSI at time now_ms. lim and
 * tc are copied. Never NULL (aborts on OOM). */
struct throttle_table *throttle_table_new(const struct throttle_limits *lim,
                                          const struct throttle_table_conf *tc,
                                          uint64_t now_ms);
void throttle_table_free(struct throttle_table *t);
/* UpdateTable: new provisioned units, billing mode or OnDemandThroughput
 * (tc->nparts and tc->arn are ignored: use throttle_table_split). Bucket
 * levels are kept, clipped to the new bank size. Switching to on-demand
 * makes the previous peak at least half the provisioned rate. Recorded in
 * the history as an update_table event. */
void throttle_table_update(struct throttle_table *t,
                           const struct throttle_table_conf *tc,
                           uint64_t now_ms);
/* New limits for a live table (e.g. an admin call changed them). */
void throttle_table_set_limits(struct throttle_table *t,
                               const struct throttle_limits *lim,
                               uint64_t now_ms);
/* Partition i split in two (stable_split): it becomes i and i+1, indexes
 * above shift by one. Each child gets half of the parent's share, bank,
 * bucket level, window usage and counters (the next throttle_table_update
 * evens the shares out again). -1 with err (DDB_INTERNAL) if i is out of
 * range. */
int throttle_table_split(struct throttle_table *t, unsigned i,
                         uint64_t now_ms, struct ddb_err *err);
/* Every partition split: partition i becomes 2i and 2i+1. */
void throttle_table_double(struct throttle_table *t, uint64_t now_ms);
unsigned throttle_table_nparts(struct throttle_table *t);

/* ------------------------------------------------------------------------
 * Admission and charging. A request asks before it runs and pays after.
 * ---------------------------------------------------------------------- */

/* Filled by throttle_admit, read by throttle_charge. */
struct throttle_ticket {
    unsigned part;
    enum throttle_op op;
    bool borrowed;                  /* paid from the table's unused rate */
    int64_t reserved;               /* microunits taken at admission; the
                                       charge settles the difference */
};

/*
 * May a request on partition part run at now_ms? need is the least the
 * request can cost as known before it runs (PutItem: the new item's write
 * units; GetItem: 1, or 0.5 eventually consistent; anything unknown: 1).
 * Values <= 0 mean 1. Returns THROTTLE_OK and fills tk: need is taken
 * from the buckets at once (so the requests after it, such as the next
 * item of a batch or transaction, see it), and the request must then call
 * throttle_charge with its real cost (0 when it did not run: need is
 * given back; with tk NULL nothing is taken, it is only a question). Or
 * returns the cause of the rejection: the request must change nothing and
 * fail with throttle_err(). With lim.enforce false it always returns
 * THROTTLE_OK (counting what would have been throttled). pk (may be NULL)
 * is the partition key's bytes, for the hot-key counters of throttled
 * keys.
 */
enum throttle_cause throttle_admit(struct throttle_table *t, unsigned part,
                                   enum throttle_op op, double need,
                                   const uint8_t *pk, size_t pk_len,
                                   uint64_t now_ms, struct throttle_ticket *tk);
/* A ticket for charging without admission (e.g. a GSI write whose index
 * partition was not asked): paid from the partition's own bucket. */
void throttle_ticket_init(struct throttle_ticket *tk, unsigned part,
                          enum throttle_op op);
/* Charge the real cost (units, e.g. 0.5, 1, 11; 0 when nothing ran) of a
 * request admitted with tk: what admission took is settled against it. A
 * cost above what admission knew may drive a bucket below zero: that debt
 * delays the next admission. pk (may be NULL) feeds the consumed-capacity
 * hot keys. Call it once per admission. */
void throttle_charge(struct throttle_table *t,
                     const struct throttle_ticket *tk, double units,
                     const uint8_t *pk, size_t pk_len, uint64_t now_ms);

/*
 * Fill err with the exception DynamoDB sends for cause on this table or
 * index (throttling.md 5): ProvisionedThroughputExceededException,
 * ThrottlingException or RequestLimitExceeded, its exact message, and
 * ThrottlingReasons/throttlingReasons [{"reason", "resource"}] in
 * err->extra. Always returns -1.
 */
int throttle_err(struct throttle_table *t, enum throttle_op op,
                 enum throttle_cause cause, struct ddb_err *err);
/* The reason string, e.g. "TableWriteKeyRangeThroughputExceeded" (NULL
 * for THROTTLE_OK). */
const char *throttle_reason(bool is_index, enum throttle_op op,
                            enum throttle_cause cause);
/* The exception type for cause (DDB_THROUGHPUT_EXCEEDED, DDB_THROTTLING or
 * DDB_REQUEST_LIMIT_EXCEEDED): what a batch that could process nothing
 * fails with, and whether a transaction reason is
 * "ProvisionedThroughputExceeded" or "ThrottlingError". */
enum ddb_errtype throttle_errtype(struct throttle_table *t,
                                  enum throttle_cause cause);

/* BatchGetItem/BatchWriteItem when not one item could be processed
 * (throttling.md 5): a partition-level cause (KeyRange) fails with
 * ThrottlingException, a table-level one as throttle_err() does. Always
 * returns -1. */
int throttle_batch_err(struct throttle_table *t, enum throttle_op op,
                       enum throttle_cause cause, struct ddb_err *err);
/* The CancellationReasons code of a throttled transaction item:
 * "ProvisionedThroughputExceeded" (provisioned table or index) or
 * "ThrottlingError" (on-demand). */
const char *throttle_txn_code(struct throttle_table *t,
                              enum throttle_cause cause);

/*
 * Split for heat (adaptive capacity isolating frequently accessed items,
 * heat.c): note that a request asked for need units at ring position pos
 * (the top 64 bits of its partition key's hash) on partition part. Returns
 * true, with *split_at set, when that partition's ceiling has been
 * refusing requests for lim.heat_split_s seconds and its demand comes from
 * at least two positions: split it at *split_at, between its two hottest
 * keys, so that each gets a partition (and a ceiling) of its own. One key
 * alone (one item, or one item collection) is never split.
 */
bool throttle_heat_note(struct throttle_table *t, unsigned part,
                        uint64_t pos, double need, uint64_t now_ms,
                        uint64_t *split_at);

/* ------------------------------------------------------------------------
 * Observability: per-partition and per-table counters, hot keys.
 * ---------------------------------------------------------------------- */

#define THROTTLE_HISTORY_S 60       /* per_second: the last minute */
#define THROTTLE_RING_S 900         /* seconds of history kept per partition
                                       (history.c): at most 15 minutes */

struct throttle_op_stats {
    double share;                   /* refill rate, units/s (0 on-demand) */
    double level;                   /* bucket level, units (may be < 0) */
    double capacity;                /* bank size, units */
    double ceiling;                 /* partition ceiling, units/s */
    double ceiling_level;           /* what the ceiling's burst holds now,
                                       units (may be < 0) */
    double ceiling_capacity;        /* the burst it absorbs at once */
    double last_1s;                 /* consumed in the last second */
    double last_60s;                /* consumed in the last 60 seconds */
    double consumed_total;          /* since creation */
    double per_second[THROTTLE_HISTORY_S]; /* [0] = current second, [1] the
                                              one before, ... */
    uint64_t admitted;              /* requests admitted */
    uint64_t borrowed;              /* of those, paid by adaptive capacity */
    uint64_t throttled[THROTTLE_CAUSE_COUNT]; /* rejections by cause */
    uint64_t would_throttle;        /* enforce off: not rejected */
};

struct throttle_part_stats {
    struct throttle_op_stats op[2]; /* [THROTTLE_READ], [THROTTLE_WRITE] */
};

struct throttle_table_stats {
    unsigned nparts;
    bool on_demand;
    double provisioned[2];          /* rcu, wcu (0 on-demand) */
    double limit[2];                /* on-demand: current instant capacity */
    double table_level[2];          /* the table's bucket: provisioned bank
                                       or on-demand instant capacity left */
    double table_capacity[2];       /* its size */
    double peak[2];                 /* settled previous peak, units/s */
    struct throttle_op_stats op[2]; /* sums over partitions; share, level,
                                       capacity and ceiling summed too */
};

/* Snapshot of partition part at now_ms. -1 with err if out of range. */
int throttle_part_stats(struct throttle_table *t, unsigned part,
                        uint64_t now_ms, struct throttle_part_stats *out,
                        struct ddb_err *err);
void throttle_table_stats(struct throttle_table *t, uint64_t now_ms,
                          struct throttle_table_stats *out);
/* Requests of partition part rejected (throttled, every cause) in the
 * last second, the same sliding window as last_1s: out[THROTTLE_READ],
 * out[THROTTLE_WRITE]. With enforce off nothing is rejected (0). -1 with
 * err if part is out of range. */
int throttle_part_throttled_1s(struct throttle_table *t, unsigned part,
                               uint64_t now_ms, uint64_t out[2],
                               struct ddb_err *err);

/* ------------------------------------------------------------------------
 * History (history.c): one sample per second per partition for the last
 * THROTTLE_RING_S seconds, the table's capacity over the same seconds, and
 * the events that changed the table (splits, UpdateTable, tags).
 * ---------------------------------------------------------------------- */

/* One second of one partition. */
struct throttle_sample {
    double consumed[2];             /* units consumed ([THROTTLE_READ], ...) */
    uint32_t throttled[2];          /* requests refused */
    double bucket[2];               /* burst bank (the share's bucket) level
                                       when the second ended; 0 on-demand */
    double burst[2];                /* what the partition's ceiling could
                                       still absorb at once, then */
};

/* One second of the whole table or GSI. */
struct throttle_table_sample {
    double consumed[2];             /* every partition's, summed */
    uint64_t throttled[2];
    double capacity[2];             /* units/s: provisioned, or an on-demand
                                       table's instant capacity */
};

enum throttle_event_kind {
    THROTTLE_EV_SPLIT = 0,          /* partitions split */
    THROTTLE_EV_UPDATE_TABLE,       /* new throughput or billing mode */
    THROTTLE_EV_TAG                 /* "shardlocal:" knob tags set */
};

enum throttle_split_cause {
    THROTTLE_SPLIT_SIZE = 0,        /* a partition passed --split-size */
    THROTTLE_SPLIT_HEAT,            /* two hot keys kept it at its ceiling */
    THROTTLE_SPLIT_THROUGHPUT       /* UpdateTable raised the throughput:
                                       every partition split */
};

#define THROTTLE_EVENTS 64          /* events kept per table or GSI */
#define THROTTLE_EVENT_TEXT 200     /* tag events: the knobs, as text */

struct throttle_event {
    uint64_t t_ms;                  /* when (throttle_event_add sets it) */
    enum throttle_event_kind kind;
    unsigned nparts;                /* partitions after it (set too) */
    int partition;                  /* split: which one, numbered as before
                                       the split; -1: every partition */
    enum throttle_split_cause cause; /* split */
    bool on_demand;                 /* update_table: the new billing mode */
    double rcu, wcu;                /* update_table: provisioned units/s */
    double od_max_rru, od_max_wru;  /* update_table: OnDemandThroughput, or
                                       <= 0 for none */
    char text[THROTTLE_EVENT_TEXT]; /* tag: the knob tags now in force,
                                       "partition-wcu=10 ..." */
};

/* Record ev (copied) at now_ms on t, with t's partition count; the oldest
 * of THROTTLE_EVENTS goes. UpdateTable's events are recorded by
 * throttle_table_update itself. */
void throttle_event_add(struct throttle_table *t,
                        const struct throttle_event *ev, uint64_t now_ms);

/* A window of history, copied out under one lock (throttle_history). */
struct throttle_history {
    uint64_t first_s;               /* epoch second of the first sample */
    unsigned nsec;                  /* samples per partition (and table) */
    unsigned nparts;                /* the table's partitions now */
    unsigned part0, nsel;           /* the partitions copied: [part0,
                                       part0 + nsel) */
    struct throttle_sample *s;      /* owned: nsel x nsec, partition by
                                       partition, oldest second first */
    struct throttle_table_sample *ts; /* owned: nsec */
    size_t nev;                     /* events in the window, oldest first */
    struct throttle_event ev[THROTTLE_EVENTS];
};

/*
 * The last `seconds` (1 to THROTTLE_RING_S) whole seconds before now_ms's
 * second, clipped to the time since t's state was created: samples of
 * every partition (part < 0) or of partition part only, the table's
 * samples, and the events of the same seconds and of the current one.
 * Returns 0 (free out with throttle_history_free), or -1 with err
 * (DDB_INTERNAL) if part is out of range.
 */
int throttle_history(struct throttle_table *t, uint64_t now_ms,
                     unsigned seconds, long part,
                     struct throttle_history *out, struct ddb_err *err);
void throttle_history_free(struct throttle_history *h);

/* Hot keys: a space-saving summary per kind, THROTTLE_HOTKEYS entries. */
#define THROTTLE_HOTKEYS 64

enum throttle_hk_kind {
    THROTTLE_HK_READ = 0,           /* consumed read units by key */
    THROTTLE_HK_WRITE,              /* consumed write units by key */
    THROTTLE_HK_READ_THROTTLED,     /* throttled reads by key */
    THROTTLE_HK_WRITE_THROTTLED,    /* throttled writes by key */
    THROTTLE_HK_COUNT
};

struct throttle_hotkey {
    uint8_t *key;                   /* caller frees (throttle_hotkeys_free) */
    size_t key_len;
    double count;                   /* estimate, >= the true value */
    double error;                   /* count - error <= the true value */
};

/* The top n keys of kind, largest count first, into out (n entries).
 * Returns how many were filled; free them with throttle_hotkeys_free. */
size_t throttle_hotkeys(struct throttle_table *t, enum throttle_hk_kind kind,
                        struct throttle_hotkey *out, size_t n);
void throttle_hotkeys_free(struct throttle_hotkey *hk, size_t n);

/* ------------------------------------------------------------------------
 * Registry: the throttle state of every table and GSI of one server.
 * ---------------------------------------------------------------------- */

struct throttle_registry;

/* lim (copied) is the server-wide default. */
struct throttle_registry *throttle_registry_new(
    const struct throttle_limits *lim);
/* Frees every table, dropped ones too. */
void throttle_registry_free(struct throttle_registry *r);
/* The server-wide limits (copied into *out). */
void throttle_registry_limits(struct throttle_registry *r,
                              struct throttle_limits *out);
/* New server-wide limits, applied to every live table (e.g. an admin call
 * or the virtual-clock tests). Per-table tag overrides are lost. */
void throttle_registry_set_limits(struct throttle_registry *r,
                                  const struct throttle_limits *lim,
                                  uint64_t now_ms);
/*
 * The state of table (index NULL) or its GSI index. If absent it is
 * created from tc and lim (NULL: the server-wide limits). The pointer
 * stays valid until throttle_registry_free, even after a drop, so a
 * request in flight never touches freed memory.
 */
struct throttle_table *throttle_registry_get(
    struct throttle_registry *r, const char *table, const char *index,
    const struct throttle_table_conf *tc, const struct throttle_limits *lim,
    uint64_t now_ms);
/* Look up only: NULL if absent. */
struct throttle_table *throttle_registry_find(struct throttle_registry *r,
                                              const char *table,
                                              const char *index);
/* DeleteTable (or a GSI deleted: index not NULL): forget the state; the
 * next get creates a fresh one. index NULL drops the table's GSIs too. */
void throttle_registry_drop(struct throttle_registry *r, const char *table,
                            const char *index);
/* Visit every live entry (for /metrics and the admin API), under the
 * registry's read lock: fn must not call back into the registry. */
typedef void throttle_visit_fn(void *arg, const char *table,
                               const char *index, struct throttle_table *t);
void throttle_registry_foreach(struct throttle_registry *r,
                               throttle_visit_fn *fn, void *arg);

/* Standalone space-saving counter (exposed for tests and other uses). */
struct throttle_sketch;
struct throttle_sketch *throttle_sketch_new(size_t k);
void throttle_sketch_free(struct throttle_sketch *s);
/* Add weight (> 0) to key (copied). */
void throttle_sketch_add(struct throttle_sketch *s, const uint8_t *key,
                         size_t len, double weight);
size_t throttle_sketch_top(struct throttle_sketch *s,
                           struct throttle_hotkey *out, size_t n);

#endif
