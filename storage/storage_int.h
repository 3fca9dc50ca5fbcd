/* SPDX-License-Identifier: MIT */
/* storage_int.h - private to storage/: the partition map (partmap.c), one
 * SQLite database per partition (partition.c), the structures the store
 * builds from them and the calls between its files (store.c, catalog.c,
 * table.c, txn.c). api/ never includes this file. */
#ifndef SHARDLOCAL_STORAGE_INT_H
#define SHARDLOCAL_STORAGE_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

#include "storage/storage.h"

/* ------------------------------------------------------------------------
 * Partition map (partmap.c): the sorted start hashes of a table's
 * partitions. starts[0] is always 0; partition i owns
 * [starts[i], starts[i+1]) and the last one owns up to 2^64 - 1.
 * ---------------------------------------------------------------------- */

struct partmap {
    uint64_t *starts;                   /* owned, ascending, starts[0] == 0 */
    unsigned n;                         /* number of partitions, >= 1 */
};

/* Lay nparts (>= 1) equal ranges over the 2^64 ring: partition i starts at
 * floor(i * 2^64 / nparts). Any previous content of m is not freed. */
void partmap_init_even(struct partmap *m, unsigned nparts);
/* Take starts (malloc'd, n entries, ascending, starts[0] == 0). */
void partmap_init_take(struct partmap *m, uint64_t *starts, unsigned n);
void partmap_fini(struct partmap *m);
/* Index of the partition owning the ring position h (binary search). */
unsigned partmap_find(const struct partmap *m, uint64_t h);
/* First position owned by partition i (i < m->n). */
uint64_t partmap_start(const struct partmap *m, unsigned i);
/* Last position owned by partition i (inclusive). */
uint64_t partmap_end(const struct partmap *m, unsigned i);
/* The catalog keeps starts in an INTEGER column: flip the top bit so that
 * signed int64 order equals unsigned ring order. */
int64_t partmap_to_sql(uint64_t start);
uint64_t partmap_from_sql(int64_t v);

/* Big-endian top 64 bits of a 16-byte key hash (same as key_hash64(), kept
 * local so the store does not depend on item_codec.c). */
static inline uint64_t
storage_be64(const uint8_t *b)
{
    uint64_t v = 0;

    for (int i = 0; i < 8; i++)
        v = (v << 8) | b[i];
    return v;
}

/* ------------------------------------------------------------------------
 * Partition (partition.c): one SQLite connection guarded by its own mutex,
 * WAL, synchronous=NORMAL, cached statements (reset, never finalized per
 * call). Schema:
 *   items(h BLOB, pk BLOB, sk BLOB, size INTEGER, item TEXT,
 *         PRIMARY KEY (h, pk, sk)) WITHOUT ROWID
 * ---------------------------------------------------------------------- */

struct partition;

/* Returned (instead of 0/1/-1) by partition_* item calls when a split
 * retired the partition before the call got its lock; nothing was done and
 * err is untouched: look the partition up again in the new layout. */
#define PART_RETIRED 2

/* Open (creating if needed, mode 0600 under the umask) the partition
 * database at path, or an in-memory database when path is NULL, for s:
 * commits are fsynced (synchronous=FULL) with s's power-loss durability,
 * and its WAL is checkpointed by s's checkpoint thread (checkpoint.c).
 * Returns NULL with err set on failure. */
struct partition *partition_open(struct storage *s, const char *path,
                                 struct ddb_err *err);
/* Close the connection and free p (NULL is fine). Files are kept. */
void partition_close(struct partition *p);
/* Path given to partition_open (borrowed), NULL for in-memory. */
const char *partition_path(const struct partition *p);
/* p's SQLite connection, for backup.c's copies, which use it only with p
 * locked (partition_lock) or before anyone else can see p; NULL once a
 * split retired p. */
sqlite3 *partition_db_locked(struct partition *p);
/* Remove a partition's files: path, path-wal, path-shm. Missing files are
 * not an error. */
void partition_unlink_files(const char *path);

/* How a write to a table logs its change (NULL: never, e.g. a split
 * copy). The switch is read with the partition locked, which is what makes
 * stable_log_switch() exact. */
struct plog {
    atomic_bool *on;                    /* the table's switch */
    _Atomic uint64_t *seq;              /* the table's counter */
    uint64_t ms;                        /* the change's time */
    enum storage_origin origin;
};

int partition_get(struct partition *p, const struct item_key *k,
                  json_t **item, struct ddb_err *err);
int partition_size_of(struct partition *p, const struct item_key *k,
                      size_t *size, struct ddb_err *err);
int partition_get_text(struct partition *p, const struct item_key *k,
                       char **text, size_t *len, size_t *size,
                       struct ddb_err *err);
/* blind: fn does not look at the old item (stable_mutate_blind) */
int partition_mutate(struct partition *p, const struct item_key *k,
                     const struct plog *log, bool blind, stable_mutate_fn *fn,
                     void *arg, struct ddb_err *err);
/* Rows of (h, pk) with lo <= sk < hi (memcmp order; hi NULL = unbounded),
 * ascending or descending. Calls rows' callback with the partition
 * locked: it must not call back into this table's store. Returns 0
 * (done), 1 (the callback stopped), -1 or PART_RETIRED. */
int partition_query(struct partition *p, const uint8_t h[16],
                    const uint8_t *pk, size_t pk_len,
                    const uint8_t *lo, size_t lo_len,
                    const uint8_t *hi, size_t hi_len, bool forward,
                    const struct stable_rows *rows, struct ddb_err *err);
/* Rows with lo8 <= h < hi8 (8-byte big-endian ring positions; hi_open
 * means no upper bound) and, if start is not NULL, (h, pk, sk) > start,
 * in (h, pk, sk) order. Returns 0 (done), 1 (the callback stopped), -1
 * or PART_RETIRED. */
int partition_scan(struct partition *p, uint64_t lo, uint64_t hi_excl,
                   bool hi_open, const struct item_key *start,
                   const struct stable_rows *rows, struct ddb_err *err);
/* count(*) and sum(size), added to *count and *bytes. Once loaded, read
 * without p's lock: a checkpoint holding it does not hold this up. */
int partition_stats(struct partition *p, uint64_t *count, uint64_t *bytes,
                     struct ddb_err *err);

/* Is checkpoint.c holding p's lock, or waiting for it? (No lock taken.) */
bool partition_checkpointing(struct partition *p);

/* Split support (used by stable_split). */
void partition_lock(struct partition *p);
void partition_unlock(struct partition *p);
/* parent locked: copy rows with top-64 hash < mid to a, the rest to b,
 * the whole change log to a (the child that starts where parent starts),
 * and make a and b durable. parent is unchanged. */
int partition_split_copy_locked(struct partition *parent, uint64_t mid,
                                struct partition *a, struct partition *b,
                                struct ddb_err *err);
/* Rehash support (used by stable_rehash, defined below with struct
 * playout): every src locked; copy their rows into dst's partitions, each
 * placed by key_pk_hash of its partition key of type pk_type, and make
 * dst durable. */
struct playout;
int partition_rehash_copy_locked(struct partition *const *src, unsigned nsrc,
                                 char pk_type, const struct playout *dst,
                                 struct ddb_err *err);
/* p locked: close its database; later calls return PART_RETIRED. */
void partition_retire_locked(struct partition *p);

/* Transaction support (used by txn.c), all with p locked: is p retired;
 * read k; write after-images (item NULL deletes) in one SQLite transaction,
 * keeping the in-memory stats. */
struct part_write {
    const struct item_key *k;           /* borrowed */
    const json_t *item;                 /* borrowed; NULL: delete */
    size_t size;                        /* item's size */
    uint64_t seq;                       /* its log record's number; 0: no
                                           record */
    uint64_t ms;                        /* the record's time */
    enum storage_origin origin;
    const json_t *old;                  /* borrowed: the record's before
                                           image (NULL: absent) */
};
bool partition_retired_locked(const struct partition *p);
/* p locked: p holds part of a transaction whose journal entry could not be
 * applied in full (a full disk even after the reserve was given back), or
 * dropped. Its item calls then fail with DDB_STORAGE_FULL, so that no
 * reader sees half of the transaction and no write lands that the replay
 * at the next start would overwrite; that replay completes it. */
void partition_fence_locked(struct partition *p);
/* p locked: cap its database at pages pages (PRAGMA max_page_count), so
 * that it finds the disk full past them: how tests fill one partition's
 * disk without a file system of their own. -1 on failure. */
int partition_max_pages_locked(struct partition *p, unsigned pages);
int partition_get_locked(struct partition *p, const struct item_key *k,
                         json_t **item, size_t *size, struct ddb_err *err);
int partition_apply_locked(struct partition *p, const struct part_write *w,
                           size_t n, struct ddb_err *err);

/* The change log of one partition (changelog.c reads it through these),
 * each returning PART_RETIRED as the item calls do: the newest sequence
 * number it holds; its records in (after, upto] in order, and the last
 * number trimmed (*trimmed); the trim of records older than cutoff_ms
 * (*dropped: how many went); with p locked, the counter read under the
 * lock (tip); the trimmed mark alone. */
int partition_log_max(struct partition *p, uint64_t *max,
                      struct ddb_err *err);
int partition_log_read(struct partition *p, uint64_t after, uint64_t upto,
                       stable_log_fn *fn, void *arg, uint64_t *trimmed,
                       struct ddb_err *err);
int partition_log_trim(struct partition *p, uint64_t cutoff_ms,
                       uint64_t *dropped, struct ddb_err *err);

/* txn.c: create the transaction journal in the catalog and replay what a
 * crash left there (storage_open, before serving). */
struct storage;
int txn_journal_replay(struct storage *s, struct ddb_err *err);

/* ------------------------------------------------------------------------
 * The store's structures: a table's partition layouts, the table handle,
 * the store with its map of tables by name.
 * ---------------------------------------------------------------------- */

#define STORAGE_ID_LEN 16               /* hex chars of a table/partition id */

/* How a table's rows are placed on the ring, kept per table in the
 * catalog: 0 = MD5 of the key's sortable bytes (data directories written
 * before DynamoDB's hash), 1 = key_pk_hash, DynamoDB's. stable_rehash()
 * moves a table from 0 to 1. */
#define STORAGE_KEYHASH 1

/* The partition layout of a table. Immutable once published: a split
 * (stable_split) builds a new layout, replaces the catalog's partition rows
 * in one transaction, then swaps the table's layout pointer. Old layouts
 * and retired partitions stay allocated until the table is destroyed, so a
 * reader never needs a lock to follow the pointer. */
struct playout {
    struct partmap map;
    struct partition **parts;           /* map.n entries; the table owns them */
    char (*files)[STORAGE_ID_LEN + 1];  /* owned: partition ids, map.n */
};

struct stable {
    atomic_uint refs;                   /* the map's reference + handles */
    struct storage *s;                  /* borrowed: outlives all handles */
    _Atomic(char *) name;               /* owned; a rename keeps the old
                                           string in old_names */
    char id[STORAGE_ID_LEN + 1];
    char *dir;                          /* owned: tables/<id>, NULL in memory */
    atomic_bool deleted;                /* drop files at last release */
    pthread_mutex_t desc_mu;            /* guards desc */
    json_t *desc;                       /* owned */
    _Atomic(struct playout *) layout;   /* owned: the current layout */
    pthread_mutex_t split_mu;           /* serializes splits; guards below */
    int keyhash;                        /* STORAGE_KEYHASH, or older */
    struct playout **old_layouts;       /* owned: replaced layouts */
    size_t nold;
    struct partition **retired;         /* owned: split parents */
    size_t nretired;
    char **old_names;                   /* owned: names before renames */
    size_t nold_names;
    /* The change log (changelog.c). */
    atomic_bool log_on;                 /* changes are logged */
    _Atomic uint64_t seq;               /* the last sequence number taken */
    uint64_t stamp;                     /* the last birth time given (ms);
                                           under split_mu */
};

struct storage {
    char *data_dir;                     /* owned, NULL = in-memory */
    storage_clock_fn *clock;            /* the change log's clock */
    void *clock_arg;
    struct storage_opts opts;           /* durability, disk reserve */
    int lock_fd;                        /* flock'd <data_dir>/LOCK, or -1 */
    int reserve_fd;                     /* <data_dir>/RESERVE, or -1 */
    atomic_bool full;                   /* the disk was found full: writes
                                           needing space are refused */
    pthread_mutex_t space_mu;           /* guards leaving the full state */
    sqlite3 *cat;                       /* catalog connection */
    pthread_mutex_t cat_mu;             /* guards cat */
    pthread_mutex_t ddl_mu;             /* serializes create/delete */
    pthread_rwlock_t map_mu;            /* guards tables/ntables */
    struct ckpt *ckpt;                  /* checkpoint.c's thread, or NULL */
    struct stable **tables;             /* sorted by name (strcmp) */
    size_t ntables, cap;
    struct backups *bk;                 /* owned: the backups (backup.c) */
};

/* ------------------------------------------------------------------------
 * The data directory (store.c): <data_dir>/LOCK, catalog.db and
 * tables/<table id>/<partition id>.db; storage_open() and the start-up
 * recovery live there too.
 * ---------------------------------------------------------------------- */

#define STORAGE_BUSY_TIMEOUT_MS 5000

/* checkpoint.c: the thread that checkpoints partitions' WALs (NULL if it
 * cannot start: SQLite's inline checkpoints then), its stop, and how many
 * checkpoints it has run. */
struct ckpt;
struct ckpt *ckpt_start(void);
void ckpt_stop(struct ckpt *ck);
uint64_t ckpt_count(struct ckpt *ck);
/* Is the thread holding (or about to hold) a partition's lock? Read
 * without locks: a hint for scheduling, never for correctness. */
bool ckpt_holding(struct ckpt *ck);
/* Have fn(arg) called, on the thread, each time it lets a partition go. */
void ckpt_set_wake(struct ckpt *ck, void (*fn)(void *), void *arg);

/* A fresh random id: STORAGE_ID_LEN hex characters. */
void storage_new_id(char out[STORAGE_ID_LEN + 1]);
/* storage_mkdir_p: storage.h */
/* Create the file path if missing, mode 0600 under the umask, so that
 * SQLite (whose WAL copies the database's mode) never makes it 0644. */
int storage_touch(const char *path, struct ddb_err *err);
/* With --durability power-loss, fsync the directory dir so that the
 * names of files just created in it survive a power cut. */
void storage_sync_dir(const struct storage *s, const char *dir);
/* Remove every file in dir (one level) and dir itself. */
void storage_remove_dir(const char *dir);
/* The file of partition part_id in table directory dir (caller frees). */
char *storage_part_path(const char *dir, const char *part_id);
/* Open the SQLite database at path, in memory when NULL, with flags and
 * the busy timeout. NULL with err set on failure (nothing left open). */
sqlite3 *storage_db_open(const char *path, int flags, struct ddb_err *err);
/* The same for a partition's database: through storage_vfs_excl(). */
sqlite3 *storage_part_db_open(const char *path, int flags,
                              struct ddb_err *err);

/* The VFS storage_db_open() uses (vfs.c): the default one, with each WAL
 * frame written by one system call instead of two. NULL when it could
 * not be registered (SQLite's default then). */
#define STORAGE_VFS_NAME "shardlocal"
const char *storage_vfs(void);
/* The one storage_part_db_open() uses: the same over SQLite's
 * "unix-excl", which locks a database for this process alone and keeps
 * its WAL index in this process's memory (storage_vfs() where there is
 * none). */
#define STORAGE_VFS_EXCL_NAME "shardlocal-excl"
const char *storage_vfs_excl(void);
/* Bytes db's WAL file holds back for its next write (0 after a COMMIT
 * returns; tests). */
int storage_vfs_held(sqlite3 *db);

/* ------------------------------------------------------------------------
 * Backups (backup.c): <backup dir>/backups.db names them, <backup
 * dir>/<id>/ holds one database file per partition copied.
 * ---------------------------------------------------------------------- */

struct backups;
/* Open (creating) the backup directory and its catalog, and remove the
 * directories of backups a crash left unnamed; in memory for an
 * in-memory store. */
int backups_open(struct storage *s, struct ddb_err *err);
void backups_close(struct storage *s);

/* ------------------------------------------------------------------------
 * Disk space (space.c): SQLite failures classified as "disk full", the
 * reserve file given back when the disk fills, and the full state that
 * refuses writes needing new space until there is room again.
 * ---------------------------------------------------------------------- */

/* err from a failed SQLite call on db: DDB_STORAGE_FULL
 * (STORAGE_FULL_MSG) when the disk or a quota is full, else DDB_INTERNAL
 * "storage: <what>: <SQLite's message>". Returns -1. */
int storage_sql_err(sqlite3 *db, const char *what, struct ddb_err *err);
/* Set up the reserve at open (data directory stores only). */
void space_open(struct storage *s);
void space_close(struct storage *s);
/* Before a write that needs new space: 0 when the disk is not known to be
 * full, or no longer is (the reserve is then made again); else -1 with
 * DDB_STORAGE_FULL. */
int space_admit(struct storage *s, struct ddb_err *err);
/* After a failure: if err is DDB_STORAGE_FULL, enter the full state and
 * give the reserve back, so that deletes find room. Returns -1. */
int space_note(struct storage *s, const struct ddb_err *err);

/* ------------------------------------------------------------------------
 * Layouts, handles and the table map (table.c)
 * ---------------------------------------------------------------------- */

/* The current layout of t: a plain atomic load, no lock. */
static inline struct playout *
playout_of(const struct stable *t)
{
    return atomic_load_explicit(&((struct stable *)t)->layout,
                                memory_order_acquire);
}

/* A layout for map (taken) with map->n partition ids; partitions not
 * open. */
struct playout *playout_new(struct partmap *map);
/* Open every partition of l (under dir, or in memory when dir is NULL)
 * with s's durability. */
int playout_open(struct storage *s, struct playout *l, const char *dir,
                 struct ddb_err *err);
/* Close l's partitions (playout_free() does not). */
void playout_close_parts(struct playout *l);
void playout_free(struct playout *l);

/* A table handle holding the map's reference; takes desc and layout. */
struct stable *stable_new(struct storage *s, const char *name,
                          const char *id, json_t *desc_take,
                          struct playout *layout_take);
/* The partition of t that owns hash, in the current layout. */
struct partition *stable_partition(struct stable *t, const uint8_t hash[16]);

/* The map, map_mu held: the index of name, or -(insertion point) - 1;
 * insert t (takes the map's reference; name absent); remove t if it is
 * still the table called name (true: the caller drops the reference). */
long storage_map_find(struct storage *s, const char *name);
void storage_map_insert(struct storage *s, struct stable *t);
bool storage_map_remove(struct storage *s, const char *name,
                        struct stable *t);
/* The table with id, or NULL; no lock: for storage_open() only. */
struct stable *storage_table_by_id(struct storage *s, const char *id);

/* ------------------------------------------------------------------------
 * The catalog database (catalog.c): tables (name, id, description) and
 * their partitions (start hash, file). Statements run under cat_mu, or in
 * storage_open() before anything else can.
 * ---------------------------------------------------------------------- */

/* Open catalog.db at path (in memory when NULL), create its schema, drop
 * partition rows of tables that are gone, and load every table into the
 * map with its partitions open. */
int catalog_open(struct storage *s, const char *path, struct ddb_err *err);
/* Run sql (no rows). Errors read "storage: <what>: <SQLite's message>":
 * what is "catalog", or "journal" for txn.c's. catalog_err() sets err so
 * after any other catalog call failed, and returns -1. */
int catalog_exec(struct storage *s, const char *what, const char *sql,
                 struct ddb_err *err);
int catalog_err(struct storage *s, const char *what, struct ddb_err *err);
/* Catalog transactions for the other files: take cat_mu and BEGIN
 * IMMEDIATE (0, or -1 with err set and cat_mu released); COMMIT when rc
 * is 0, else ROLLBACK, and release cat_mu (0 once committed). Inside one:
 * run sql with ?1, ?2, ... bound to the texts up to NULL; replace the
 * partition rows of table id with layout l; is table id still there
 * (false with err set when a delete won a race). */
int catalog_begin(struct storage *s, struct ddb_err *err);
int catalog_finish(struct storage *s, int rc, struct ddb_err *err);
int catalog_run(struct storage *s, struct ddb_err *err, const char *sql, ...)
    __attribute__((sentinel));
int catalog_put_partitions(struct storage *s, const char *id,
                           const struct playout *l, struct ddb_err *err);
bool catalog_table_exists(struct storage *s, const char *id,
                          struct ddb_err *err);
/* Write t's new description desc (copied) inside a catalog transaction
 * and, once the caller committed, install it (catalog_install_desc). */
int catalog_put_desc(struct storage *s, const char *id, const json_t *desc,
                     struct ddb_err *err);
void catalog_install_desc(struct stable *t, json_t *desc_take);
/* Name nl, a rehash of table id's layout old, and record that its rows are
 * placed by key hash keyhash, in one catalog transaction (stable_rehash). */
int catalog_set_rehashed(struct storage *s, const char *id,
                         const struct playout *old, const struct playout *nl,
                         int keyhash, struct ddb_err *err);

/* ------------------------------------------------------------------------
 * The change log's catalog side (changelog.c): per table, whether it logs,
 * its counter and last birth time (table logs); per partition, its
 * lineage (table part_history).
 * ---------------------------------------------------------------------- */

/* Create the tables (catalog_open). */
int changelog_schema(struct storage *s, struct ddb_err *err);
/* The store's clock now. */
uint64_t changelog_now(const struct storage *s);
/* A new table's rows, inside its creation transaction: every partition
 * of l born at ms, and the log on from marker seq when log_on. */
int changelog_created(struct storage *s, const char *id,
                      const struct playout *l, bool log_on, uint64_t seq,
                      uint64_t ms, struct ddb_err *err);
/* A dropped table's rows, inside its delete transaction. */
int changelog_dropped(struct storage *s, const char *id,
                      struct ddb_err *err);
/* After t was loaded (storage_open): its switch, its counter (above every
 * number stored) and last birth time; rows for a catalog written before
 * the change log existed. */
int changelog_load(struct stable *t, struct ddb_err *err);
/* A split of partition i of t (split_mu and the parent held): take the
 * parent's end and the children's birth markers and commit the new layout
 * nl (children at i, i + 1) with their history, in one catalog
 * transaction. */
int changelog_split(struct stable *t, const struct playout *old,
                    const struct playout *nl, unsigned i,
                    struct ddb_err *err);
/* A rehash of t's layout old into nl (the same ring; stable_rehash),
 * inside the transaction that names nl: each partition's history row
 * follows it to its new file. */
int changelog_rehashed(struct storage *s, const char *id,
                       const struct playout *old, const struct playout *nl,
                       struct ddb_err *err);
/* Raise t's counter to at least seq (journal replay). */
void changelog_seen(struct stable *t, uint64_t seq);
/* The log context of a write to t now, in *l (returned). */
const struct plog *changelog_plog(struct stable *t,
                                  enum storage_origin origin,
                                  struct plog *l);
/* storage_table_create() whose new partitions (l: open, seen by nobody
 * yet) fill loads before the catalog names them (backup.c's restore);
 * fill NULL loads nothing. */
typedef int catalog_fill_fn(void *arg, struct playout *l,
                            struct ddb_err *err);
int catalog_table_create(struct storage *s, const char *name,
                         const json_t *desc, unsigned nparts,
                         catalog_fill_fn *fill, void *arg,
                         struct ddb_err *err);

#endif
