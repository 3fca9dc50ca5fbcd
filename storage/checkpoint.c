/* SPDX-License-Identifier: MIT */
/* checkpoint.c - WAL checkpoints off the request path. SQLite's own
 * policy checkpoints inside the COMMIT that takes the WAL past 1,000
 * pages: that request copies the WAL into the database file and syncs
 * both, a multi-millisecond stall for whoever waits behind it. Here the
 * WAL hook of a partition that passes --checkpoint-pages only queues it,
 * and one thread per store checkpoints it on a connection of its own
 * while the partition's requests go on, then once more under the
 * partition's lock for what they committed meanwhile, and starts the log
 * over. Should that thread fall behind, the commit that takes a WAL past
 * four times the threshold checkpoints inline, as SQLite would, so the
 * WAL stays bounded. A failed checkpoint loses nothing: the frames stay
 * in the WAL and the next commit past the threshold queues the partition
 * again. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "storage/partition_int.h"
#include "storage/util.h"

/* A commit that finds its WAL this many times past --checkpoint-pages
 * checkpoints inline (the thread fell behind); the WAL file is cut back
 * to that bound when the log starts over. */
#define CKPT_INLINE_FACTOR 4

/* WAL pages (512 KB of 2 KB pages) whose writeback a commit starts at
 * once; see wal_writeback(). */
#define CKPT_TRICKLE_PAGES 256

struct ckpt {
    pthread_t th;
    pthread_mutex_t mu;                 /* guards everything below */
    pthread_cond_t cv;                  /* work queued, stop, or idle */
    struct partition **q;               /* queued partitions, FIFO */
    size_t n, cap;
    struct partition *busy;             /* being checkpointed (unlocked) */
    bool stop;
    uint64_t done;                      /* checkpoints run (tests) */
    void (*wake)(void *);               /* called as a partition is let go */
    void *wake_arg;
    atomic_bool holding;                /* busy's lock held or awaited
                                           (read without mu) */
};

/* A new read-only descriptor of p's database file with suffix appended
 * to its name ("-wal": its WAL), or -1. */
static int
file_open(const struct partition *p, const char *suffix)
{
    char name[4096];

    if (p->path == NULL ||
        snprintf(name, sizeof(name), "%s%s", p->path, suffix) >=
            (int)sizeof(name))
        return -1;
    return open(name, O_RDONLY | O_CLOEXEC);
}

/* fdatasync() the file of p named by suffix (see file_open()); best
 * effort. */
static void
file_sync(const struct partition *p, const char *suffix)
{
    sync_close(file_open(p, suffix), true);
}

/* Writes p's WAL out to disk without p's lock. A checkpoint under
 * synchronous=NORMAL first syncs the WAL, then copies it into the
 * database file and syncs that; when all of it ran under the lock the
 * requests wait for, most of the wait was the WAL's sync (7 of 10 ms for
 * 1,024 frames on ext4). Synced here first, a checkpoint's own sync only
 * writes the frames committed since: the cycle's frames (most already on
 * their way: wal_writeback()) go here, those committed meanwhile with
 * the sync of copy_unlocked()'s checkpoint, and what is left with the
 * hold's. Best effort: a failure leaves that sync to the checkpoint. */
static void
presync_wal(const struct partition *p)
{
    file_sync(p, "-wal");
}

/*
 * p locked: checkpoint its WAL; once every frame is in the database file,
 * start the log over here, with one write of the header page (the value
 * SQLite keeps there for applications, which the store leaves at 0).
 * Otherwise the next commit starts it over, and its sync of the new WAL
 * header (1 to 3 ms on a slow disk) would hold up every request of its
 * thread, not only those of this partition (see ckpt_holding()). Not
 * inside a transaction: a split or a transaction that holds p keeps it
 * locked, so p is idle here, but the check costs nothing.
 */
static void
checkpoint_locked(struct partition *p)
{
    int log = 0, done = 0;

    if (sqlite3_wal_checkpoint_v2(p->db, NULL, SQLITE_CHECKPOINT_PASSIVE,
                                  &log, &done) == SQLITE_OK &&
        log > 0 && done == log && sqlite3_get_autocommit(p->db))
        (void)sqlite3_exec(p->db, "PRAGMA user_version=0", NULL, NULL,
                           NULL);
}

/* p locked: checkpoint p->db in mode once a copy of the thread's beside
 * the requests is over (SQLite would fail this one at once). An SQLite
 * result code. */
static int
db_checkpoint(struct partition *p, int mode)
{
    int rc;

    pthread_mutex_lock(&p->ckpt_mu);
    rc = sqlite3_wal_checkpoint_v2(p->db, NULL, mode, NULL, NULL);
    pthread_mutex_unlock(&p->ckpt_mu);
    return rc;
}

/*
 * Copies p's WAL into its database file and syncs that without p's lock,
 * on the thread's own connection (opened on first use): SQLite lets a
 * checkpoint run beside the writer of a WAL database, which only needs
 * the two connections to share the WAL's index, as they do in this
 * process (storage/vfs.c). The copy and the database file's sync grow
 * with the pages a cycle changed, up to the cycle's 4,096 frames: with
 * items of 1,000 bytes they held the partition 13 to 17 ms (median), and
 * its requests waited; now 4 to 5 ms, for what was committed meanwhile
 * (bench/README.md, tenth round). SQLite syncs the database file only
 * when its checkpoint has caught up with the end of the WAL, which
 * writers beside it rarely let it do, so the sync is made here:
 * otherwise the hold's sync wrote every page copied here (6 to 7 ms).
 * p->db is not used here; a split, a rehash or a restore filling p
 * checkpoints it under ckpt_mu too (ckpt_full_locked()), and SQLite runs
 * one checkpoint at a time (another fails at once with SQLITE_BUSY).
 */
static void
copy_unlocked(struct partition *p)
{
    struct ddb_err err;

    if (atomic_load(&p->retired))
        return;
    pthread_mutex_lock(&p->ckpt_mu);
    if (p->ckdb == NULL && !atomic_load(&p->retired)) {
        ddb_err_init(&err);
        p->ckdb = storage_part_db_open(p->path, SQLITE_OPEN_READWRITE |
                                       SQLITE_OPEN_NOMUTEX, &err);
        /* the checkpoint syncs the WAL before it copies it and the
         * database file after; the durability does not change that */
        if (p->ckdb != NULL &&
            sqlite3_exec(p->ckdb, "PRAGMA synchronous=NORMAL", NULL, NULL,
                         NULL) != SQLITE_OK) {
            sqlite3_close(p->ckdb);
            p->ckdb = NULL;
        }
    }
    if (p->ckdb != NULL &&
        sqlite3_wal_checkpoint_v2(p->ckdb, NULL, SQLITE_CHECKPOINT_PASSIVE,
                                  NULL, NULL) == SQLITE_OK)
        file_sync(p, "");
    pthread_mutex_unlock(&p->ckpt_mu);
}

static void *
ckpt_main(void *arg)
{
    struct ckpt *ck = arg;

    pthread_mutex_lock(&ck->mu);
    for (;;) {
        struct partition *p;

        while (ck->n == 0 && !ck->stop)
            pthread_cond_wait(&ck->cv, &ck->mu);
        if (ck->stop)
            break;
        p = ck->q[0];
        memmove(ck->q, ck->q + 1, --ck->n * sizeof(*ck->q));
        ck->busy = p;
        pthread_mutex_unlock(&ck->mu);
        /* partition_close() waits while p is busy, so p stays valid */
        presync_wal(p);
        copy_unlocked(p);
        atomic_store(&p->ckpt_holding, true);
        atomic_store(&ck->holding, true);
        pthread_mutex_lock(&p->mu);
        p->ckpt_queued = false;
        if (!p->retired)
            checkpoint_locked(p);
        pthread_mutex_unlock(&p->mu);
        atomic_store(&p->ckpt_holding, false);
        atomic_store(&ck->holding, false);
        pthread_mutex_lock(&ck->mu);
        if (ck->wake != NULL)           /* under mu: see ckpt_set_wake() */
            ck->wake(ck->wake_arg);
        ck->busy = NULL;
        ck->done++;
        pthread_cond_broadcast(&ck->cv);
    }
    pthread_mutex_unlock(&ck->mu);
    return NULL;
}

struct ckpt *
ckpt_start(void)
{
    struct ckpt *ck = xcalloc(1, sizeof(*ck));

    pthread_mutex_init(&ck->mu, NULL);
    pthread_cond_init(&ck->cv, NULL);
    if (pthread_create(&ck->th, NULL, ckpt_main, ck) != 0) {
        pthread_cond_destroy(&ck->cv);
        pthread_mutex_destroy(&ck->mu);
        free(ck);
        return NULL;                    /* SQLite's inline checkpoints */
    }
    return ck;
}

void
ckpt_stop(struct ckpt *ck)
{
    if (ck == NULL)
        return;
    pthread_mutex_lock(&ck->mu);
    ck->stop = true;
    pthread_cond_broadcast(&ck->cv);
    pthread_mutex_unlock(&ck->mu);
    pthread_join(ck->th, NULL);
    pthread_cond_destroy(&ck->cv);
    pthread_mutex_destroy(&ck->mu);
    free(ck->q);
    free(ck);
}

/* p locked (its WAL hook): queue p once. */
static void
ckpt_queue(struct ckpt *ck, struct partition *p)
{
    pthread_mutex_lock(&ck->mu);
    if (!p->ckpt_queued && !ck->stop) {
        if (ck->n == ck->cap) {
            ck->cap = ck->cap ? ck->cap * 2 : 16;
            ck->q = xrealloc(ck->q, ck->cap * sizeof(*ck->q));
        }
        ck->q[ck->n++] = p;
        p->ckpt_queued = true;
        pthread_cond_signal(&ck->cv);
    }
    pthread_mutex_unlock(&ck->mu);
}

/*
 * p locked: start writing out the WAL pages committed since the last
 * call (sync_file_range() without waiting), once CKPT_TRICKLE_PAGES of
 * them have collected. Otherwise they all go out at once when the thread
 * syncs the WAL before a checkpoint: 16 MB of writeback with the 4 KB
 * pages of then, about 7 ms of kernel time on the thread, which on a
 * server pinned to one core preempts the request thread (UpdateItem p99
 * 8-33 ms; 5-7 ms with the thread moved to another core, and 5-7 ms on
 * one core with this; bench/README.md, seventh round). In slices of 256
 * pages the work fits between requests, and that sync finds the pages
 * written. Done here rather than on the thread: handing each slice to
 * the thread measured worse (the same section). It only moves when pages
 * reach the disk, which the kernel is free to do at any time anyway, so
 * durability is unchanged; a failure leaves the pages to that sync.
 */
static void
wal_writeback(struct partition *p, unsigned pages)
{
    unsigned step = p->ckpt_pages / 4 < CKPT_TRICKLE_PAGES
                        ? p->ckpt_pages / 4 + 1 : CKPT_TRICKLE_PAGES;

    if (pages < p->wal_written)
        p->wal_written = 0;             /* the log started over */
    if (pages - p->wal_written < step)
        return;
    p->wal_written = pages;
    if (p->wal_fd < 0 && (p->wal_fd = file_open(p, "-wal")) < 0)
        return;
    (void)sync_file_range(p->wal_fd, 0, 0, SYNC_FILE_RANGE_WRITE);
}

/* The WAL hook: SQLite calls it, p locked, after each commit with the
 * WAL's size in pages. The commit has happened whatever this returns, so
 * it returns SQLITE_OK always (an error would make COMMIT report one). */
static int
wal_hook(void *arg, sqlite3 *db, const char *name, int pages)
{
    struct partition *p = arg;

    (void)db;                           /* p->db */
    (void)name;
    if (pages > 0)
        wal_writeback(p, (unsigned)pages);
    if (pages >= CKPT_INLINE_FACTOR * (int)p->ckpt_pages)
        /* after the thread's copy, if one is running: otherwise the WAL
         * would grow for as long as that copy and its syncs take */
        (void)db_checkpoint(p, SQLITE_CHECKPOINT_PASSIVE);
    else if (pages >= (int)p->ckpt_pages)
        ckpt_queue(p->ckpt, p);
    return SQLITE_OK;
}

int
ckpt_attach(struct ckpt *ck, struct partition *p, unsigned pages)
{
    char sql[96];
    sqlite3_stmt *st;
    long long page = 4096;

    if (ck == NULL || pages == 0 || p->path == NULL)
        return 0;                       /* SQLite's own checkpoints */
    if (sqlite3_prepare_v2(p->db, "PRAGMA page_size", -1, &st, NULL) !=
        SQLITE_OK)
        return -1;
    if (sqlite3_step(st) == SQLITE_ROW)
        page = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    /* the WAL file keeps its size after a checkpoint (rewriting it costs
     * no new blocks), up to the frames (a page and its 24-byte header
     * each) of the inline bound: journal_size_limit truncates it back to
     * that when the log starts over. At the threshold itself, the commits
     * made while the thread got to the partition took it past the limit
     * every cycle, and the commit that restarted the log paid a truncate
     * (about 1 ms) and the blocks were allocated again. */
    snprintf(sql, sizeof(sql), "PRAGMA journal_size_limit=%llu",
             (unsigned long long)CKPT_INLINE_FACTOR * pages *
                 ((unsigned long long)page + 24) + 32);
    if (sqlite3_exec(p->db, sql, NULL, NULL, NULL) != SQLITE_OK)
        return -1;
    p->ckpt = ck;
    p->ckpt_pages = pages;
    sqlite3_wal_hook(p->db, wal_hook, p);   /* replaces autocheckpoint */
    return 0;
}

void
ckpt_detach(struct partition *p)
{
    struct ckpt *ck = p->ckpt;

    if (ck == NULL)
        return;
    pthread_mutex_lock(&ck->mu);
    for (size_t i = 0; i < ck->n; i++) {
        if (ck->q[i] == p) {
            memmove(ck->q + i, ck->q + i + 1,
                    (ck->n - i - 1) * sizeof(*ck->q));
            ck->n--;
            break;
        }
    }
    while (ck->busy == p)
        pthread_cond_wait(&ck->cv, &ck->mu);
    pthread_mutex_unlock(&ck->mu);
    sqlite3_close(p->ckdb);             /* before p->db: see
                                           ckpt_retire_locked() */
    p->ckdb = NULL;
    if (p->db != NULL)
        sqlite3_wal_hook(p->db, NULL, NULL);
    if (p->wal_fd >= 0)
        close(p->wal_fd);
    p->wal_fd = -1;
    p->ckpt = NULL;
}

int
ckpt_full_locked(struct partition *p)
{
    return db_checkpoint(p, SQLITE_CHECKPOINT_FULL);
}

/* Closed before p->db, ckdb finds p->db's lock on the database and leaves
 * the WAL as it is; p->db's close then checkpoints it, as a last
 * connection does. */
void
ckpt_retire_locked(struct partition *p)
{
    pthread_mutex_lock(&p->ckpt_mu);
    sqlite3_close(p->ckdb);
    p->ckdb = NULL;
    pthread_mutex_unlock(&p->ckpt_mu);
}

bool
ckpt_holding(struct ckpt *ck)
{
    return ck != NULL &&
           atomic_load_explicit(&ck->holding, memory_order_relaxed);
}

/* Under ck->mu, as the calls are: once this returns, the old fn is not
 * running and will not be called again. */
void
ckpt_set_wake(struct ckpt *ck, void (*fn)(void *), void *arg)
{
    if (ck == NULL)
        return;
    pthread_mutex_lock(&ck->mu);
    ck->wake = fn;
    ck->wake_arg = arg;
    pthread_mutex_unlock(&ck->mu);
}

uint64_t
ckpt_count(struct ckpt *ck)
{
    uint64_t n;

    if (ck == NULL)
        return 0;
    pthread_mutex_lock(&ck->mu);
    n = ck->done;
    pthread_mutex_unlock(&ck->mu);
    return n;
}
