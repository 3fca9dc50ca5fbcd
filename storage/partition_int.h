/* SPDX-License-Identifier: MIT */
/* partition_int.h - what the two files of a partition share: partition.c
 * (items, splits, transactions) and part_log.c (its change log). Nothing
 * else includes it; the rest of the store sees storage_int.h. */
#ifndef SHARDLOCAL_STORAGE_PARTITION_INT_H
#define SHARDLOCAL_STORAGE_PARTITION_INT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>
#include <sqlite3.h>

#include "storage/storage_int.h"

/* The cached statements (stmt_sql in partition.c). */
enum {
    ST_GET,
    ST_PUT,
    ST_DEL,
    ST_BEGIN,
    ST_COMMIT,
    ST_ROLLBACK,
    ST_QUERY_FWD,
    ST_QUERY_REV,
    ST_SCAN,
    ST_SCAN_FROM,
    ST_STATS,
    ST_LOG_PUT,
    ST_LOG_MAX,
    ST_LOG_READ,
    ST_LOG_AGES,
    ST_LOG_DROP,
    ST_META_GET,
    ST_META_PUT,
    ST_SIZE,
    ST_COUNT
};

/* The last sequence number trimmed, in log_meta. */
#define META_TRIMMED "trimmed"

struct partition {
    pthread_mutex_t mu;                 /* guards everything below */
    sqlite3 *db;
    sqlite3_stmt *st[ST_COUNT];         /* cached: reset, never finalized */
    char *path;                         /* owned, NULL for in-memory */
    char *buf;                          /* reusable JSON encode buffer */
    size_t bufcap;
    /* All 0xFF and longer than any stored key column, so greater than all
     * of them: the "no upper bound" value. */
    uint8_t ff_blob[KEY_BYTES_MAX + 1];
    atomic_bool retired;                /* replaced by a split: db closed
                                           (read without mu by
                                           partition_stats()) */
    bool fenced;                        /* holds part of a transaction whose
                                           rest could not be written: item
                                           calls fail until a restart
                                           replays its journal entry */
    /* Written under mu; partition_stats() reads them without it once
     * loaded, so that a write's size check never waits for a checkpoint
     * holding mu. */
    atomic_bool stats_valid;            /* count/bytes loaded and kept */
    _Atomic uint64_t count, bytes;      /* live rows and sum(size) */
    bool trimmed_valid;                 /* trimmed loaded */
    uint64_t trimmed;                   /* the log's last trimmed number */
    struct ckpt *ckpt;                  /* checkpoint.c, NULL: SQLite's */
    unsigned ckpt_pages;                /* queue it past this WAL size */
    bool ckpt_queued;                   /* in ckpt's queue (ckpt->mu) */
    /* checkpoint.c's own connection to the database, opened by its
     * thread on first use, or NULL; it and SQLite's checkpoints of p are
     * under ckpt_mu, which is taken after mu when both are. */
    pthread_mutex_t ckpt_mu;
    sqlite3 *ckdb;
    int wal_fd;                         /* the WAL, for its writeback; -1 */
    unsigned wal_written;               /* WAL pages when it was started */
    atomic_bool ckpt_holding;           /* checkpoint.c holds mu, or waits
                                           for it (read without mu) */
};

/* ------------------------------------------------------------------------
 * Helpers
 * ---------------------------------------------------------------------- */

/* Bind a blob; a zero-length key is an empty BLOB, never NULL. */
static inline int
bind_blob(sqlite3_stmt *st, int i, const void *b, size_t len)
{
    if (len == 0)
        return sqlite3_bind_zeroblob(st, i, 0);
    return sqlite3_bind_blob(st, i, b, (int)len, SQLITE_STATIC);
}

static inline void
stmt_done(sqlite3_stmt *st)
{
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
}

static inline int
sql_err(struct partition *p, struct ddb_err *err, const char *what)
{
    return storage_sql_err(p->db, what, err);
}

/* Run a cached no-row statement (BEGIN/COMMIT/ROLLBACK). -1 with err
 * set ("storage: <what>: ...") on failure. */
static inline int
run_simple(struct partition *p, int which, const char *what,
           struct ddb_err *err)
{
    sqlite3_stmt *st = p->st[which];
    int rc = sqlite3_step(st);

    sqlite3_reset(st);
    return rc == SQLITE_DONE ? 0 : sql_err(p, err, what);
}

/* Step st, a bound no-row statement (bound: the binding calls' result),
 * then reset it. -1 with err set ("storage: <what>: ...") on failure. */
static inline int
step_done(struct partition *p, sqlite3_stmt *st, int bound,
          const char *what, struct ddb_err *err)
{
    int rc = 0;

    if (bound != SQLITE_OK || sqlite3_step(st) != SQLITE_DONE)
        rc = sql_err(p, err, what);
    stmt_done(st);
    return rc;
}

static inline void
rollback(struct partition *p)
{
    if (!sqlite3_get_autocommit(p->db))
        run_simple(p, ST_ROLLBACK, "rollback", NULL);
}

/* Lock p for an item call; false (nothing locked) when a split retired
 * it meanwhile, so the call answers PART_RETIRED. */
static inline bool
lock_live(struct partition *p)
{
    pthread_mutex_lock(&p->mu);
    if (!p->retired)
        return true;
    pthread_mutex_unlock(&p->mu);
    return false;
}

/* lock_live() for an item call: 0 with p locked, PART_RETIRED, or -1
 * (nothing locked, err set) when p is fenced (partition_fence_locked). */
static inline int
lock_item(struct partition *p, struct ddb_err *err)
{
    if (!lock_live(p))
        return PART_RETIRED;
    if (!p->fenced)
        return 0;
    pthread_mutex_unlock(&p->mu);
    return ddb_err_set(err, DDB_STORAGE_FULL, STORAGE_FULL_MSG);
}

/* Parse a stored item. Returns a new reference or NULL with err set. */
json_t *part_item_parse(sqlite3_stmt *st, int col, struct ddb_err *err);
/* Encode item as compact JSON into p->buf (grown as needed). Returns the
 * length, or -1 if jansson cannot encode it. */
long part_item_encode(struct partition *p, const json_t *item);

/* ------------------------------------------------------------------------
 * The change log (part_log.c), p locked
 * ---------------------------------------------------------------------- */

/* Does old -> new_item (either NULL when absent) change the item? */
bool part_log_is_change(const json_t *old, const json_t *new_item);
/* In p's open transaction: the record of one change. */
int part_log_put_locked(struct partition *p, uint64_t seq, uint64_t ms,
                        enum storage_origin origin, const json_t *old,
                        const json_t *new_item, struct ddb_err *err);
/* Copy from's whole log and trimmed mark into to's open transaction. */
int part_log_copy_locked(struct partition *from, struct partition *to,
                         struct ddb_err *err);

/* ------------------------------------------------------------------------
 * Checkpoints off the request path (checkpoint.c)
 * ---------------------------------------------------------------------- */

/* Checkpoint p, an open on-disk partition not yet shared, on ck's thread
 * once its WAL passes pages (0 or ck NULL: SQLite's inline autocheckpoint
 * stays). -1 if the journal size cannot be set. */
int ckpt_attach(struct ckpt *ck, struct partition *p, unsigned pages);
/* Before p is closed, p unlocked: take it off the queue and wait for a
 * checkpoint of it that is running. */
void ckpt_detach(struct partition *p);
/* p locked: copy its whole WAL into its database file and sync that
 * (SQLITE_CHECKPOINT_FULL), after a checkpoint of the thread's that is
 * running. An SQLite result code. */
int ckpt_full_locked(struct partition *p);
/* p locked, as it is retired: close the thread's connection to it. */
void ckpt_retire_locked(struct partition *p);

#endif
