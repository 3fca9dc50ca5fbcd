/* SPDX-License-Identifier: MIT */
/* partition.c - one SQLite database per partition: a connection with its own
 * mutex (MHD calls us from several threads), WAL + synchronous=NORMAL
 * (FULL with --durability power-loss), cached statements, items kept as compact JSON text. table.c routes
 * requests here through the partition map. The change log each partition
 * keeps is part_log.c; what both share, partition_int.h. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "storage/partition_int.h"
#include "storage/json_fast.h"
#include "storage/util.h"

static const char *const stmt_sql[ST_COUNT] = {
    [ST_GET] = "SELECT item, size FROM items WHERE h = ?1 AND pk = ?2 AND "
               "sk = ?3",
    [ST_PUT] = "INSERT OR REPLACE INTO items (h, pk, sk, size, item) "
               "VALUES (?1, ?2, ?3, ?4, ?5)",
    [ST_DEL] = "DELETE FROM items WHERE h = ?1 AND pk = ?2 AND sk = ?3",
    [ST_BEGIN] = "BEGIN IMMEDIATE",
    [ST_COMMIT] = "COMMIT",
    [ST_ROLLBACK] = "ROLLBACK",
    [ST_QUERY_FWD] = "SELECT sk, size, item FROM items WHERE h = ?1 AND "
                     "pk = ?2 AND sk >= ?3 AND sk < ?4 ORDER BY sk ASC",
    [ST_QUERY_REV] = "SELECT sk, size, item FROM items WHERE h = ?1 AND "
                     "pk = ?2 AND sk >= ?3 AND sk < ?4 ORDER BY sk DESC",
    [ST_SCAN] = "SELECT h, pk, sk, size, item FROM items WHERE h >= ?1 AND "
                "h < ?2 ORDER BY h, pk, sk",
    [ST_SCAN_FROM] = "SELECT h, pk, sk, size, item FROM items WHERE "
                     "(h, pk, sk) > (?3, ?4, ?5) AND h < ?2 "
                     "ORDER BY h, pk, sk",
    [ST_STATS] = "SELECT count(*), coalesce(sum(size), 0) FROM items",
    /* The change log: a replayed journal entry may bring a record that is
     * already there, hence OR IGNORE. */
    [ST_LOG_PUT] = "INSERT OR IGNORE INTO changes (seq, ms, origin, old, "
                   "new) VALUES (?1, ?2, ?3, ?4, ?5)",
    [ST_LOG_MAX] = "SELECT coalesce(max(seq), 0) FROM changes",
    [ST_LOG_READ] = "SELECT seq, ms, origin, old, new FROM changes WHERE "
                    "seq > ?1 AND seq <= ?2 ORDER BY seq",
    [ST_LOG_AGES] = "SELECT seq, ms FROM changes ORDER BY seq",
    [ST_LOG_DROP] = "DELETE FROM changes WHERE seq <= ?1",
    [ST_META_GET] = "SELECT v FROM log_meta WHERE k = ?1",
    [ST_META_PUT] = "INSERT OR REPLACE INTO log_meta (k, v) VALUES (?1, ?2)",
    [ST_SIZE] = "SELECT size FROM items WHERE h = ?1 AND pk = ?2 AND "
                "sk = ?3",
};

/* The page size of a new partition's database (a string: it goes into
 * SQL). A write commits the pages it changed to the WAL whole, and a
 * PutItem or UpdateItem of a small item changes one leaf: 2 KB pages halve
 * the bytes each write sends to the disk, and with them the pauses the
 * bench machine's host makes it take at the end of 100 ms periods in
 * proportion to its disk writes. PutItem p99 5.3 -> 4.1 ms, UpdateItem
 * 5.3 -> 4.2 ms (bench/README.md, tenth round). Smaller pages go the
 * wrong way: a 1 KB leaf of a WITHOUT ROWID table keeps at most 231 bytes
 * of a row, so the row of a 100-byte item spills to an overflow page,
 * writes change two pages, and checkpoints copy more and hold their
 * partition longer. */
#define PART_PAGE_SIZE "2048"

/* Items, and the change log (docs/design.md, "The change log"): one row
 * per change with the images before and after (NULL: absent), and the
 * last sequence number trimmed ("trimmed" in log_meta). */
static const char part_schema[] =
    "CREATE TABLE IF NOT EXISTS items ("
    " h BLOB NOT NULL, pk BLOB NOT NULL, sk BLOB NOT NULL,"
    " size INTEGER NOT NULL, item TEXT NOT NULL,"
    " PRIMARY KEY (h, pk, sk)) WITHOUT ROWID;"
    "CREATE TABLE IF NOT EXISTS changes ("
    " seq INTEGER PRIMARY KEY, ms INTEGER NOT NULL,"
    " origin INTEGER NOT NULL, old TEXT, new TEXT);"
    "CREATE TABLE IF NOT EXISTS log_meta ("
    " k TEXT PRIMARY KEY, v INTEGER NOT NULL)";

/* ------------------------------------------------------------------------
 * Helpers (the small ones are in partition_int.h)
 * ---------------------------------------------------------------------- */

json_t *
stable_item_parse(const char *text, size_t len, struct ddb_err *err)
{
    json_error_t jerr;
    json_t *item = json_fast_or_loadb(text, len, &jerr);

    if (item == NULL)
        ddb_err_set(err, DDB_INTERNAL, "storage: corrupt item: %s",
                    jerr.text);
    return item;
}

json_t *
part_item_parse(sqlite3_stmt *st, int col, struct ddb_err *err)
{
    const char *text = (const char *)sqlite3_column_text(st, col);

    if (text == NULL) {
        ddb_err_set(err, DDB_INTERNAL, "storage: item missing");
        return NULL;
    }
    return stable_item_parse(text, (size_t)sqlite3_column_bytes(st, col),
                             err);
}

/* The stored item text in column col of st's row and its length, or NULL
 * with err set when the column is empty. */
static const char *
item_text(sqlite3_stmt *st, int col, size_t *len, struct ddb_err *err)
{
    const char *t = (const char *)sqlite3_column_text(st, col);
    int n = sqlite3_column_bytes(st, col);

    if (t == NULL || n <= 0) {
        ddb_err_set(err, DDB_INTERNAL, "storage: empty item");
        return NULL;
    }
    *len = (size_t)n;
    return t;
}

/* Copy a blob column into out (at most max bytes); returns its length. */
static size_t
col_blob(sqlite3_stmt *st, int col, uint8_t *out, size_t max)
{
    const void *b = sqlite3_column_blob(st, col);
    size_t len = (size_t)sqlite3_column_bytes(st, col);

    if (len > max)
        len = max;
    if (len > 0 && b != NULL)
        memcpy(out, b, len);
    return len;
}

long
part_item_encode(struct partition *p, const json_t *item)
{
    struct json_fast_buf b = { p->buf, 0, p->bufcap };
    int fast = json_fast_dump(item, &b);    /* same bytes as json_dumpb */
    size_t need;

    p->buf = b.p;                       /* it may have grown */
    p->bufcap = b.cap;
    if (fast == 0 && b.len <= (size_t)LONG_MAX)
        return (long)b.len;
    need = json_dumpb(item, p->buf, p->bufcap, JSON_COMPACT);
    if (need == 0)
        return -1;
    if (need > p->bufcap) {
        size_t cap = p->bufcap ? p->bufcap : 4096;
        char *nb;

        while (cap < need)
            cap *= 2;
        nb = xrealloc(p->buf, cap);
        p->buf = nb;
        p->bufcap = cap;
        need = json_dumpb(item, p->buf, p->bufcap, JSON_COMPACT);
        if (need == 0 || need > p->bufcap)
            return -1;
    }
    return (long)need;
}

/* ------------------------------------------------------------------------
 * Open and close
 * ---------------------------------------------------------------------- */

/*
 * Open the partition at path (created if missing), or an in-memory
 * database when path is NULL. Returns a new partition (caller closes with
 * partition_close) or NULL with err set.
 */
struct partition *
partition_open(struct storage *s, const char *path, struct ddb_err *err)
{
    struct partition *p = xcalloc(1, sizeof(*p));
    bool power = s->opts.durability == STORAGE_DURABLE_POWER;

    pthread_mutex_init(&p->mu, NULL);
    pthread_mutex_init(&p->ckpt_mu, NULL);
    p->wal_fd = -1;
    memset(p->ff_blob, 0xFF, sizeof(p->ff_blob));
    if (path != NULL)
        p->path = xstrdup(path);
    p->db = storage_part_db_open(path, SQLITE_OPEN_READWRITE |
                                 SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                                 err);
    if (p->db == NULL)
        goto fail;
    /* synchronous=NORMAL: a commit is in the WAL, in the OS, before we
     * answer (survives kill -9); FULL also fsyncs the WAL at each commit
     * (survives a power cut). The page size only takes on a new file
     * (one made with SQLite's 4 KB keeps it): see PART_PAGE_SIZE. */
    if (sqlite3_exec(p->db,
                     power ? "PRAGMA page_size=" PART_PAGE_SIZE "; "
                             "PRAGMA journal_mode=WAL; "
                             "PRAGMA synchronous=FULL;"
                           : "PRAGMA page_size=" PART_PAGE_SIZE "; "
                             "PRAGMA journal_mode=WAL; "
                             "PRAGMA synchronous=NORMAL;",
                     NULL, NULL, NULL) != SQLITE_OK ||
        sqlite3_exec(p->db, part_schema, NULL, NULL, NULL) != SQLITE_OK) {
        sql_err(p, err, "init");
        goto fail;
    }
    for (int i = 0; i < ST_COUNT; i++) {
        if (sqlite3_prepare_v3(p->db, stmt_sql[i], -1,
                               SQLITE_PREPARE_PERSISTENT, &p->st[i],
                               NULL) != SQLITE_OK) {
            sql_err(p, err, "prepare");
            goto fail;
        }
    }
    if (ckpt_attach(s->ckpt, p, s->opts.checkpoint_pages) != 0) {
        sql_err(p, err, "init");
        goto fail;
    }
    return p;
fail:
    partition_close(p);
    return NULL;
}

void
partition_close(struct partition *p)
{
    if (p == NULL)
        return;
    ckpt_detach(p);
    for (int i = 0; i < ST_COUNT; i++)
        sqlite3_finalize(p->st[i]);
    sqlite3_close(p->db);
    pthread_mutex_destroy(&p->ckpt_mu);
    pthread_mutex_destroy(&p->mu);
    free(p->path);
    free(p->buf);
    free(p);
}

const char *
partition_path(const struct partition *p)
{
    return p->path;
}

sqlite3 *
partition_db_locked(struct partition *p)
{
    return p->retired ? NULL : p->db;
}

void
partition_unlink_files(const char *path)
{
    static const char *const sfx[] = { "", "-wal", "-shm", "-journal" };
    size_t len = strlen(path);
    char *buf = xmalloc(len + 16);

    for (size_t i = 0; i < sizeof(sfx) / sizeof(sfx[0]); i++) {
        snprintf(buf, len + 16, "%s%s", path, sfx[i]);
        (void)unlink(buf);
    }
    free(buf);
}

/* ------------------------------------------------------------------------
 * Single items
 * ---------------------------------------------------------------------- */

static int
bind_key(sqlite3_stmt *st, const struct item_key *k)
{
    return bind_blob(st, 1, k->hash, sizeof(k->hash)) ||
           bind_blob(st, 2, k->pk, k->pk_len) ||
           bind_blob(st, 3, k->sk, k->sk_len);
}

/* Look up the row of k with statement which (ST_GET or ST_SIZE): 1 with
 * the statement on the row (the caller reads its columns, then calls
 * stmt_done), 0 when there is none, -1 with err set. The caller holds
 * p->mu. */
static int
row_locked(struct partition *p, int which, const struct item_key *k,
           struct ddb_err *err)
{
    sqlite3_stmt *st = p->st[which];
    int step;

    if (bind_key(st, k) == SQLITE_OK) {
        step = sqlite3_step(st);
        if (step == SQLITE_ROW)
            return 1;
        if (step == SQLITE_DONE)
            return 0;
    }
    sql_err(p, err, which == ST_SIZE ? "size" : "get");
    return -1;
}

/* Read the row of k into *item (new reference, NULL if absent) and its
 * size into *size if not NULL. The caller holds p->mu. */
static int
get_locked(struct partition *p, const struct item_key *k, json_t **item,
           size_t *size, struct ddb_err *err)
{
    sqlite3_stmt *st = p->st[ST_GET];
    int rc = row_locked(p, ST_GET, k, err);

    *item = NULL;
    if (rc == 1) {
        *item = part_item_parse(st, 0, err);
        rc = *item != NULL ? 0 : -1;
        if (size != NULL)
            *size = (size_t)sqlite3_column_int64(st, 1);
    }
    stmt_done(st);
    return rc;
}

/* The stored text of item k (a copy) and its size; *text NULL when
 * absent. 0, -1 or PART_RETIRED. */
int
partition_get_text(struct partition *p, const struct item_key *k, char **text,
                   size_t *len, size_t *size, struct ddb_err *err)
{
    sqlite3_stmt *st = p->st[ST_GET];
    int rc = lock_item(p, err);

    *text = NULL;
    *len = 0;
    *size = 0;
    if (rc != 0)
        return rc;
    rc = row_locked(p, ST_GET, k, err);
    if (rc == 1) {
        size_t n;
        const char *t = item_text(st, 0, &n, err);

        rc = -1;
        if (t != NULL) {
            *text = xmalloc(n + 1);
            memcpy(*text, t, n + 1);
            *len = n;
            *size = (size_t)sqlite3_column_int64(st, 1);
            rc = 0;
        }
    }
    stmt_done(st);
    pthread_mutex_unlock(&p->mu);
    return rc;
}

/* Whether the row of k exists, and its stored size (0 when absent),
 * without reading the item. The caller holds p->mu. */
static int
size_locked(struct partition *p, const struct item_key *k, bool *exists,
            size_t *size, struct ddb_err *err)
{
    sqlite3_stmt *st = p->st[ST_SIZE];
    int rc = row_locked(p, ST_SIZE, k, err);

    *exists = rc == 1;
    *size = rc == 1 ? (size_t)sqlite3_column_int64(st, 0) : 0;
    stmt_done(st);
    return rc < 0 ? -1 : 0;
}

/* The stored size of item k, 0 when absent. 0, -1 or PART_RETIRED. */
int
partition_size_of(struct partition *p, const struct item_key *k,
                  size_t *size, struct ddb_err *err)
{
    bool exists;
    int rc = lock_item(p, err);

    if (rc != 0)
        return rc;
    rc = size_locked(p, k, &exists, size, err);
    pthread_mutex_unlock(&p->mu);
    return rc;
}

/* Read one item: *item is a new reference, or NULL if absent. Like every
 * partition_* call on items, returns PART_RETIRED (nothing done) if a split
 * replaced p meanwhile: the caller looks the partition up again. */
int
partition_get(struct partition *p, const struct item_key *k, json_t **item,
              struct ddb_err *err)
{
    int rc = lock_item(p, err);

    if (rc != 0)
        return rc;
    rc = get_locked(p, k, item, NULL, err);
    pthread_mutex_unlock(&p->mu);
    return rc;
}

static int
put_locked(struct partition *p, const struct item_key *k,
           const json_t *item, size_t size, struct ddb_err *err)
{
    sqlite3_stmt *st = p->st[ST_PUT];
    long len = part_item_encode(p, item);

    if (len < 0)
        return ddb_err_set(err, DDB_INTERNAL, "storage: cannot encode item");
    return step_done(p, st,
                     bind_key(st, k) ||
                         sqlite3_bind_int64(st, 4, (sqlite3_int64)size) ||
                         sqlite3_bind_text(st, 5, p->buf, (int)len,
                                           SQLITE_STATIC),
                     "put", err);
}

static int
del_locked(struct partition *p, const struct item_key *k,
           struct ddb_err *err)
{
    sqlite3_stmt *st = p->st[ST_DEL];

    return step_done(p, st, bind_key(st, k), "delete", err);
}

/*
 * Atomic read-modify-write (see stable_mutate in storage.h): lock, BEGIN
 * IMMEDIATE, read, call fn, write/delete/keep, log the change (when log
 * is given), COMMIT. Any failure rolls back, so the row is untouched and
 * no record is left.
 */
int
partition_mutate(struct partition *p, const struct item_key *k,
                 const struct plog *log, bool blind, stable_mutate_fn *fn,
                 void *arg, struct ddb_err *err)
{
    json_t *old = NULL, *new_item = NULL;
    size_t new_size = 0, old_size = 0;
    bool keep = false, exists;
    int rc = lock_item(p, err);

    if (rc != 0)
        return rc;
    rc = -1;
    if (run_simple(p, ST_BEGIN, "begin", err) != 0)
        goto out;
    /* the change log records the image: only without it is the item
     * left unread */
    if (blind && !(log != NULL && atomic_load(log->on))) {
        if (size_locked(p, k, &exists, &old_size, err) != 0)
            goto out;
        if (exists && (old = json_object()) == NULL) {
            ddb_err_set(err, DDB_INTERNAL, "out of memory");
            goto out;
        }
    } else if (get_locked(p, k, &old, &old_size, err) != 0) {
        goto out;
    }
    if (fn(arg, old, old_size, &new_item, &new_size, &keep, err) != 0)
        goto out;
    if (!keep) {
        if (new_item != NULL) {
            if (put_locked(p, k, new_item, new_size, err) != 0)
                goto out;
        } else if (old != NULL) {
            if (del_locked(p, k, err) != 0)
                goto out;
        }
        /* the number is taken under the partition lock: records of one
         * partition are numbered in commit order */
        if (log != NULL && atomic_load(log->on) &&
            part_log_is_change(old, new_item) &&
            part_log_put_locked(p, atomic_fetch_add(log->seq, 1) + 1, log->ms,
                           log->origin, old, new_item, err) != 0)
            goto out;
    }
    if (run_simple(p, ST_COMMIT, "commit", err) != 0)
        goto out;
    if (!keep && (old != NULL || new_item != NULL)) {   /* committed */
        if (old != NULL) {
            p->count--;
            p->bytes -= old_size;
        }
        if (new_item != NULL) {
            p->count++;
            p->bytes += new_size;
        }
    }
    rc = 0;
out:
    if (rc != 0)
        rollback(p);
    pthread_mutex_unlock(&p->mu);
    json_decref(old);
    json_decref(new_item);
    return rc;
}

/* ------------------------------------------------------------------------
 * Query, scan, stats
 * ---------------------------------------------------------------------- */

/*
 * The rest of a query or scan, p locked (lock_live) and st bound (bound:
 * the binding calls' result; what names the call in an error): step st
 * and hand each row to fn, then reset st and unlock p. Columns: h, pk, sk,
 * size, item when full; else sk, size, item (h and pk already in *k).
 * Returns 0 (no more rows), 1 (fn stopped) or -1.
 */
static int
stream_rows(struct partition *p, sqlite3_stmt *st, int bound,
            const char *what, bool full, struct item_key *k,
            const struct stable_rows *rows, struct ddb_err *err)
{
    int rc = bound == SQLITE_OK ? 0 : sql_err(p, err, what);

    while (rc == 0) {
        int step = sqlite3_step(st), c = 0;
        size_t size;
        json_t *item;

        if (step == SQLITE_DONE)
            break;
        if (step != SQLITE_ROW) {
            rc = sql_err(p, err, "read");
            break;
        }
        if (full) {
            size_t hl = col_blob(st, c++, k->hash, sizeof(k->hash));

            if (hl < sizeof(k->hash))
                memset(k->hash + hl, 0, sizeof(k->hash) - hl);
            k->pk_len = col_blob(st, c++, k->pk, sizeof(k->pk));
        }
        k->sk_len = col_blob(st, c++, k->sk, sizeof(k->sk));
        size = (size_t)sqlite3_column_int64(st, c++);
        if (rows->text != NULL) {
            size_t n;
            const char *t = item_text(st, c, &n, err);

            if (t == NULL) {
                rc = -1;
                break;
            }
            rc = rows->text(rows->arg, k, t, n, size, err);
        } else {
            item = part_item_parse(st, c, err);
            if (item == NULL) {
                rc = -1;
                break;
            }
            rc = rows->fn(rows->arg, k, item, size, err);
            json_decref(item);
        }
        if (rc != 0)
            rc = rc < 0 ? -1 : 1;
    }
    stmt_done(st);
    pthread_mutex_unlock(&p->mu);
    return rc;
}

int
partition_query(struct partition *p, const uint8_t h[16],
                const uint8_t *pk, size_t pk_len,
                const uint8_t *lo, size_t lo_len,
                const uint8_t *hi, size_t hi_len, bool forward,
                const struct stable_rows *rows, struct ddb_err *err)
{
    sqlite3_stmt *st;
    struct item_key k;                  /* on the stack: a 4 KB malloc per
                                           call costs glibc a consolidation */
    int rc;

    if (pk_len > sizeof(k.pk))
        return ddb_err_set(err, DDB_INTERNAL, "storage: key too long");
    memcpy(k.hash, h, sizeof(k.hash));
    memcpy(k.pk, pk, pk_len);
    k.pk_len = pk_len;
    if (hi == NULL) {
        hi = p->ff_blob;
        hi_len = sizeof(p->ff_blob);
    }
    if ((rc = lock_item(p, err)) != 0)
        return rc;
    st = p->st[forward ? ST_QUERY_FWD : ST_QUERY_REV];
    return stream_rows(p, st,
                       bind_blob(st, 1, h, 16) ||
                           bind_blob(st, 2, pk, pk_len) ||
                           bind_blob(st, 3, lo, lo_len) ||
                           bind_blob(st, 4, hi, hi_len),
                       "query", false, &k, rows, err);
}

static void
put_be64(uint8_t *b, uint64_t v)
{
    for (int i = 7; i >= 0; i--) {
        b[i] = (uint8_t)v;
        v >>= 8;
    }
}

int
partition_scan(struct partition *p, uint64_t lo, uint64_t hi_excl,
               bool hi_open, const struct item_key *start,
               const struct stable_rows *rows, struct ddb_err *err)
{
    sqlite3_stmt *st;
    struct item_key k;                  /* as in partition_query */
    uint8_t lo8[8], hi8[8];
    int rc, brc;

    put_be64(lo8, lo);
    put_be64(hi8, hi_excl);
    if ((rc = lock_item(p, err)) != 0)
        return rc;
    st = p->st[start ? ST_SCAN_FROM : ST_SCAN];
    if (hi_open)
        brc = bind_blob(st, 2, p->ff_blob, 17);
    else
        brc = bind_blob(st, 2, hi8, 8);
    if (start == NULL)
        brc = brc || bind_blob(st, 1, lo8, 8);
    else
        brc = brc || bind_blob(st, 3, start->hash, 16) ||
              bind_blob(st, 4, start->pk, start->pk_len) ||
              bind_blob(st, 5, start->sk, start->sk_len);
    return stream_rows(p, st, brc, "scan", true, &k, rows, err);
}

/*
 * Add the partition's live row count and total size to *count and *bytes.
 * The first call counts with SQL; partition_mutate keeps the figures from
 * then on, so DescribeTable does not walk the table each time.
 */
int
partition_stats(struct partition *p, uint64_t *count, uint64_t *bytes,
                struct ddb_err *err)
{
    sqlite3_stmt *st;
    int rc = -1;

    if (atomic_load(&p->stats_valid)) { /* kept up to date: no lock */
        uint64_t c = atomic_load(&p->count), b = atomic_load(&p->bytes);

        if (atomic_load(&p->retired))
            return PART_RETIRED;
        *count += c;
        *bytes += b;
        return 0;
    }
    if (!lock_live(p))
        return PART_RETIRED;
    st = p->st[ST_STATS];
    if (!p->stats_valid) {
        if (sqlite3_step(st) != SQLITE_ROW) {
            sql_err(p, err, "stats");
            goto out;
        }
        p->count = (uint64_t)sqlite3_column_int64(st, 0);
        p->bytes = (uint64_t)sqlite3_column_int64(st, 1);
        p->stats_valid = true;
    }
    *count += p->count;
    *bytes += p->bytes;
    rc = 0;
out:
    stmt_done(st);
    pthread_mutex_unlock(&p->mu);
    return rc;
}

bool
partition_checkpointing(struct partition *p)
{
    return atomic_load_explicit(&p->ckpt_holding, memory_order_relaxed);
}

/* ------------------------------------------------------------------------
 * Split support: copy a locked parent's rows into two fresh partitions,
 * then retire the parent.
 * ---------------------------------------------------------------------- */

void
partition_lock(struct partition *p)
{
    pthread_mutex_lock(&p->mu);
}

void
partition_unlock(struct partition *p)
{
    pthread_mutex_unlock(&p->mu);
}

/* Copy one parent row (ST_SCAN columns) into c's open transaction, with
 * the hash h instead of its own when h is not NULL. */
static int
copy_row(struct partition *c, sqlite3_stmt *src, const uint8_t *h,
         struct ddb_err *err)
{
    sqlite3_stmt *st = c->st[ST_PUT];
    int bound = SQLITE_OK;

    for (int i = 0; i < 3 && bound == SQLITE_OK; i++)
        bound = i == 0 && h != NULL
                    ? bind_blob(st, 1, h, 16)
                    : bind_blob(st, i + 1, sqlite3_column_blob(src, i),
                                (size_t)sqlite3_column_bytes(src, i));
    bound = bound ||
            sqlite3_bind_int64(st, 4, sqlite3_column_int64(src, 3)) ||
            sqlite3_bind_text(st, 5,
                              (const char *)sqlite3_column_text(src, 4),
                              sqlite3_column_bytes(src, 4), SQLITE_STATIC);
    if (step_done(c, st, bound, "split copy", err) != 0)
        return -1;
    c->count++;
    c->bytes += (uint64_t)sqlite3_column_int64(src, 3);
    return 0;
}

/*
 * With parent locked (partition_lock), copy its rows with top-64 hash below
 * mid into a and the rest into b (both fresh, not yet visible to others),
 * and its change log into a, each in one transaction, then checkpoint a
 * and b so their data is in the database files before the catalog names
 * them.
 */
int
partition_split_copy_locked(struct partition *parent, uint64_t mid,
                            struct partition *a, struct partition *b,
                            struct ddb_err *err)
{
    struct partition *half[2] = { a, b };
    sqlite3_stmt *st = parent->st[ST_SCAN];
    uint8_t zero8[8] = { 0 };
    int rc = -1, step;

    if (parent->retired)
        return ddb_err_set(err, DDB_INTERNAL, "storage: split of a retired "
                                              "partition");
    if (parent->fenced)                 /* its copies would not be */
        return ddb_err_set(err, DDB_STORAGE_FULL, STORAGE_FULL_MSG);
    for (int i = 0; i < 2; i++)         /* from the checkpoint thread */
        pthread_mutex_lock(&half[i]->mu);
    for (int i = 0; i < 2; i++)
        if (run_simple(half[i], ST_BEGIN, "split begin", err) != 0)
            goto out;
    a->count = a->bytes = b->count = b->bytes = 0;
    if (bind_blob(st, 1, zero8, 8) != SQLITE_OK ||
        bind_blob(st, 2, parent->ff_blob, 17) != SQLITE_OK) {
        sql_err(parent, err, "split read");
        goto out;
    }
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        const uint8_t *h = sqlite3_column_blob(st, 0);
        uint64_t pos = h != NULL && sqlite3_column_bytes(st, 0) >= 8
                           ? storage_be64(h)
                           : 0;

        if (copy_row(pos < mid ? a : b, st, NULL, err) != 0)
            goto out;
    }
    if (step != SQLITE_DONE) {
        sql_err(parent, err, "split read");
        goto out;
    }
    if (part_log_copy_locked(parent, a, err) != 0)
        goto out;
    for (int i = 0; i < 2; i++)
        if (run_simple(half[i], ST_COMMIT, "split commit", err) != 0)
            goto out;
    for (int i = 0; i < 2; i++) {
        if (ckpt_full_locked(half[i]) != SQLITE_OK) {
            ddb_err_set(err, DDB_INTERNAL, "storage: split checkpoint failed");
            goto out;
        }
    }
    a->stats_valid = b->stats_valid = true;
    rc = 0;
out:
    stmt_done(st);
    for (int i = 0; i < 2; i++) {
        rollback(half[i]);              /* where a transaction is open */
        pthread_mutex_unlock(&half[i]->mu);
    }
    return rc;
}

/*
 * Every src partition locked: copy all their rows into the partitions of
 * dst (open, empty, the same ring), each row placed by the hash of its
 * partition key of type pk_type (key_pk_hash) instead of the hash it was
 * stored under, and each src's change log into the dst partition at the
 * same place (nsrc == n, the same ring); then make dst durable. The
 * sources are unchanged.
 */
int
partition_rehash_copy_locked(struct partition *const *src, unsigned nsrc,
                             char pk_type, const struct playout *dst,
                             struct ddb_err *err)
{
    uint8_t zero8[8] = { 0 }, h[16];
    unsigned i, n = dst->map.n;
    int rc = -1, step;

    for (i = 0; i < n; i++)             /* from the checkpoint thread */
        pthread_mutex_lock(&dst->parts[i]->mu);
    for (i = 0; i < n; i++) {
        dst->parts[i]->count = dst->parts[i]->bytes = 0;
        if (run_simple(dst->parts[i], ST_BEGIN, "rehash begin", err) != 0)
            goto out;
    }
    for (unsigned j = 0; j < nsrc; j++) {
        struct partition *p = src[j];
        sqlite3_stmt *st = p->st[ST_SCAN];

        if (p->retired) {
            ddb_err_set(err, DDB_INTERNAL, "storage: rehash of a retired "
                                           "partition");
            goto out;
        }
        if (bind_blob(st, 1, zero8, 8) != SQLITE_OK ||
            bind_blob(st, 2, p->ff_blob, 17) != SQLITE_OK) {
            sql_err(p, err, "rehash read");
            stmt_done(st);
            goto out;
        }
        while ((step = sqlite3_step(st)) == SQLITE_ROW) {
            key_pk_hash(pk_type, sqlite3_column_blob(st, 1),
                        (size_t)sqlite3_column_bytes(st, 1), h);
            if (copy_row(dst->parts[partmap_find(&dst->map,
                                                 storage_be64(h))],
                         st, h, err) != 0) {
                stmt_done(st);
                goto out;
            }
        }
        stmt_done(st);
        if (step != SQLITE_DONE) {
            sql_err(p, err, "rehash read");
            goto out;
        }
        /* its log to the partition at its place on the ring (design.md) */
        if (nsrc == n && part_log_copy_locked(p, dst->parts[j], err) != 0)
            goto out;
    }
    for (i = 0; i < n; i++)
        if (run_simple(dst->parts[i], ST_COMMIT, "rehash commit", err) != 0)
            goto out;
    for (i = 0; i < n; i++) {
        if (ckpt_full_locked(dst->parts[i]) != SQLITE_OK) {
            ddb_err_set(err, DDB_INTERNAL, "storage: rehash checkpoint "
                                           "failed");
            goto out;
        }
        dst->parts[i]->stats_valid = true;
    }
    rc = 0;
out:
    for (i = 0; i < n; i++) {
        rollback(dst->parts[i]);        /* where a transaction is open */
        pthread_mutex_unlock(&dst->parts[i]->mu);
    }
    return rc;
}

/* With p locked: close its database and mark it retired, so callers that
 * still hold the pointer get PART_RETIRED. The struct stays allocated
 * until partition_close(). */
void
partition_retire_locked(struct partition *p)
{
    if (p->retired)
        return;
    ckpt_retire_locked(p);
    for (int i = 0; i < ST_COUNT; i++) {
        sqlite3_finalize(p->st[i]);
        p->st[i] = NULL;
    }
    sqlite3_close(p->db);
    p->db = NULL;
    p->retired = true;
}

/* ------------------------------------------------------------------------
 * Transaction support (txn.c): the caller holds p (partition_lock) for the
 * whole transaction, so it can read every key first and write later.
 * ---------------------------------------------------------------------- */

bool
partition_retired_locked(const struct partition *p)
{
    return p->retired;
}

void
partition_fence_locked(struct partition *p)
{
    p->fenced = true;
}

int
partition_max_pages_locked(struct partition *p, unsigned pages)
{
    char sql[64];

    snprintf(sql, sizeof(sql), "PRAGMA max_page_count=%u", pages);
    return p->retired ||
                   sqlite3_exec(p->db, sql, NULL, NULL, NULL) != SQLITE_OK
               ? -1
               : 0;
}

/* p locked: read k (see partition_get), and its stored size into *size
 * when not NULL. */
int
partition_get_locked(struct partition *p, const struct item_key *k,
                     json_t **item, size_t *size, struct ddb_err *err)
{
    *item = NULL;
    if (p->retired)
        return ddb_err_set(err, DDB_INTERNAL, "storage: retired partition");
    if (p->fenced)
        return ddb_err_set(err, DDB_STORAGE_FULL, STORAGE_FULL_MSG);
    return get_locked(p, k, item, size, err);
}

/*
 * p locked: write the after-images w[0..n) (item NULL deletes) and their
 * log records (those with a sequence number) in one SQLite transaction and
 * keep the in-memory stats. Idempotent: replaying the same images gives
 * the same rows, records and figures.
 */
int
partition_apply_locked(struct partition *p, const struct part_write *w,
                       size_t n, struct ddb_err *err)
{
    int64_t dcount = 0, dbytes = 0;
    int rc = -1;

    if (p->retired)
        return ddb_err_set(err, DDB_INTERNAL, "storage: retired partition");
    if (run_simple(p, ST_BEGIN, "begin", err) != 0)
        return -1;
    for (size_t i = 0; i < n; i++) {
        json_t *old = NULL;
        size_t old_size = 0;

        if (get_locked(p, w[i].k, &old, &old_size, err) != 0)
            goto out;
        if (old != NULL) {
            dcount--;
            dbytes -= (int64_t)old_size;
            json_decref(old);
        }
        if (w[i].item != NULL) {
            if (put_locked(p, w[i].k, w[i].item, w[i].size, err) != 0)
                goto out;
            dcount++;
            dbytes += (int64_t)w[i].size;
        } else if (del_locked(p, w[i].k, err) != 0) {
            goto out;
        }
        if (w[i].seq != 0 &&
            part_log_put_locked(p, w[i].seq, w[i].ms, w[i].origin, w[i].old,
                           w[i].item, err) != 0)
            goto out;
    }
    if (run_simple(p, ST_COMMIT, "commit", err) != 0)
        goto out;
    p->count = (uint64_t)((int64_t)p->count + dcount);
    p->bytes = (uint64_t)((int64_t)p->bytes + dbytes);
    rc = 0;
out:
    if (rc != 0)
        rollback(p);
    return rc;
}
