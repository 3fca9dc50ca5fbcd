/* SPDX-License-Identifier: MIT */
/* catalog.c - the store: <data_dir>/catalog.db lists tables (name, id,
 * description) and their partitions (start hash, file); each partition is
 * <data_dir>/tables/<table id>/<partition id>.db (partition.c). Tables are
 * refcounted handles kept in a sorted map; stable_* route item requests to
 * partitions through the partition map (partmap.c). */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <openssl/evp.h>
#include <openssl/rand.h>

#include "storage/storage_int.h"
#include "storage/util.h"

static const char cat_schema[] =
    "CREATE TABLE IF NOT EXISTS tables ("
    " name TEXT PRIMARY KEY, id TEXT NOT NULL UNIQUE, desc TEXT NOT NULL);"
    "CREATE TABLE IF NOT EXISTS partitions ("
    " table_id TEXT NOT NULL, part_id TEXT NOT NULL,"
    " start INTEGER NOT NULL, file TEXT NOT NULL,"
    " PRIMARY KEY (table_id, start));";

/* ------------------------------------------------------------------------
 * Small helpers
 * ---------------------------------------------------------------------- */

/* A fresh random id: STORAGE_ID_LEN hex characters. */
static void
new_id(char out[STORAGE_ID_LEN + 1])
{
    static atomic_uint counter;
    uint8_t b[STORAGE_ID_LEN / 2];

    if (RAND_bytes(b, (int)sizeof(b)) != 1) {
        uint64_t v = (uint64_t)time(NULL) << 20 ^
                     atomic_fetch_add(&counter, 1) ^ (uint64_t)getpid() << 40;

        for (size_t i = 0; i < sizeof(b); i++)
            b[i] = (uint8_t)(v >> (8 * (i % 8)));
    }
    for (size_t i = 0; i < sizeof(b); i++)
        snprintf(out + 2 * i, 3, "%02x", b[i]);
}

static int
mkdir_p(const char *path, struct ddb_err *err)
{
    char *p = xstrdup(path);
    int rc = -1;

    for (char *c = p + 1; *c; c++) {
        if (*c != '/')
            continue;
        *c = '\0';
        if (mkdir(p, 0755) != 0 && errno != EEXIST)
            goto out;
        *c = '/';
    }
    if (mkdir(p, 0755) != 0 && errno != EEXIST)
        goto out;
    rc = 0;
out:
    if (rc != 0)
        ddb_err_set(err, DDB_INTERNAL, "storage: mkdir %s: %s", p,
                    strerror(errno));
    free(p);
    return rc;
}

/* Remove every file in dir (one level) and dir itself. */
static void
remove_dir(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;

    if (d != NULL) {
        while ((e = readdir(d)) != NULL) {
            char *f;

            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            f = xasprintf("%s/%s", dir, e->d_name);
            (void)unlink(f);
            free(f);
        }
        closedir(d);
    }
    (void)rmdir(dir);
}

static char *
part_file_path(const char *dir, const char *part_id)
{
    return xasprintf("%s/%s.db", dir, part_id);
}

/* Run sql on the catalog (cat_mu held). */
static int
cat_exec(struct storage *s, const char *sql, struct ddb_err *err)
{
    char *emsg = NULL;

    if (sqlite3_exec(s->cat, sql, NULL, NULL, &emsg) != SQLITE_OK) {
        ddb_err_set(err, DDB_INTERNAL, "storage: catalog: %s",
                    emsg ? emsg : sqlite3_errmsg(s->cat));
        sqlite3_free(emsg);
        return -1;
    }
    return 0;
}

/* Take cat_mu and BEGIN IMMEDIATE on the catalog. 0 with cat_mu held and
 * the transaction open, or -1 with err set and cat_mu released. */
static int
cat_begin(struct storage *s, struct ddb_err *err)
{
    pthread_mutex_lock(&s->cat_mu);
    if (cat_exec(s, "BEGIN IMMEDIATE", err) != 0) {
        pthread_mutex_unlock(&s->cat_mu);
        return -1;
    }
    return 0;
}

/* End what cat_begin() started: ROLLBACK if the transaction is still open
 * (in_txn: not committed), then release cat_mu. */
static void
cat_end(struct storage *s, bool in_txn)
{
    if (in_txn)
        cat_exec(s, "ROLLBACK", NULL);
    pthread_mutex_unlock(&s->cat_mu);
}

static int
cat_err(struct storage *s, struct ddb_err *err)
{
    return ddb_err_set(err, DDB_INTERNAL, "storage: catalog: %s",
                       sqlite3_errmsg(s->cat));
}

/* ------------------------------------------------------------------------
 * Layouts and table handles
 * ---------------------------------------------------------------------- */

/* Free l; its partitions are not closed (see layout_close_parts). */
static void
layout_free(struct playout *l)
{
    if (l == NULL)
        return;
    free(l->parts);
    free(l->files);
    partmap_fini(&l->map);
    free(l);
}

static void
layout_close_parts(struct playout *l)
{
    for (unsigned i = 0; l != NULL && i < l->map.n; i++) {
        partition_close(l->parts[i]);
        l->parts[i] = NULL;
    }
}

/* The current layout: a plain atomic load, no lock. */
static struct playout *
layout_of(const struct stable *t)
{
    return atomic_load_explicit(&((struct stable *)t)->layout,
                                memory_order_acquire);
}

/* A layout for map (taken) with n partition ids; partitions not open. */
static struct playout *
layout_new(struct partmap *map)
{
    struct playout *l = xcalloc(1, sizeof(*l));

    l->map = *map;
    l->parts = xcalloc(map->n, sizeof(*l->parts));
    l->files = xcalloc(map->n, sizeof(*l->files));
    return l;
}

/* Open every partition of l (under dir, or in memory when dir is NULL). */
static int
layout_open(struct playout *l, const char *dir, struct ddb_err *err)
{
    for (unsigned i = 0; i < l->map.n; i++) {
        char *path = dir ? part_file_path(dir, l->files[i]) : NULL;

        l->parts[i] = partition_open(path, err);
        free(path);
        if (l->parts[i] == NULL)
            return -1;
    }
    return 0;
}

static struct stable *
stable_new(struct storage *s, const char *name, const char *id,
           json_t *desc_take, struct playout *layout_take)
{
    struct stable *t = xcalloc(1, sizeof(*t));

    atomic_init(&t->refs, 1);          /* the map's reference */
    atomic_init(&t->deleted, false);
    t->s = s;
    t->name = xstrdup(name);
    snprintf(t->id, sizeof(t->id), "%s", id);
    t->dir = s->data_dir ? xasprintf("%s/tables/%s", s->data_dir, id) : NULL;
    pthread_mutex_init(&t->desc_mu, NULL);
    pthread_mutex_init(&t->split_mu, NULL);
    t->desc = desc_take;
    atomic_init(&t->layout, layout_take);
    return t;
}

/* Free t; if it was deleted, remove its files too. */
static void
stable_destroy(struct stable *t)
{
    struct playout *l = layout_of(t);

    layout_close_parts(l);
    layout_free(l);
    for (size_t i = 0; i < t->nold; i++)
        layout_free(t->old_layouts[i]);
    for (size_t i = 0; i < t->nretired; i++)
        partition_close(t->retired[i]);
    free(t->old_layouts);
    free(t->retired);
    pthread_mutex_destroy(&t->split_mu);
    if (atomic_load(&t->deleted) && t->dir != NULL)
        remove_dir(t->dir);
    json_decref(t->desc);
    pthread_mutex_destroy(&t->desc_mu);
    free(t->name);
    free(t->dir);
    free(t);
}

/*
 * Drop one reference to t. The last one closes the partitions and, if the
 * table was deleted, removes its files.
 */
void
stable_release(struct stable *t)
{
    if (t == NULL)
        return;
    if (atomic_fetch_sub(&t->refs, 1) == 1)
        stable_destroy(t);
}

/* ------------------------------------------------------------------------
 * The table map: sorted by name; lookups under a read lock.
 * ---------------------------------------------------------------------- */

/* Index of name in the map, or -(insertion point) - 1. map_mu held. */
static long
map_find(struct storage *s, const char *name)
{
    size_t lo = 0, hi = s->ntables;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(s->tables[mid]->name, name);

        if (c == 0)
            return (long)mid;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -(long)lo - 1;
}

/* Insert t (takes the map reference). map_mu write-held; name absent. */
static void
map_insert(struct storage *s, struct stable *t)
{
    long at = map_find(s, t->name);
    size_t pos = (size_t)(-at - 1);

    if (s->ntables == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 16;
        struct stable **nt = xrealloc(s->tables, cap * sizeof(*nt));

        s->tables = nt;
        s->cap = cap;
    }
    memmove(s->tables + pos + 1, s->tables + pos,
            (s->ntables - pos) * sizeof(*s->tables));
    s->tables[pos] = t;
    s->ntables++;
}

/*
 * Look a table up by name: a new handle (release with stable_release()),
 * or NULL if there is no such table. On every request's path: a read lock,
 * a binary search and an atomic increment.
 */
struct stable *
storage_table_get(struct storage *s, const char *name)
{
    struct stable *t = NULL;
    long at;

    if (name == NULL)
        return NULL;
    pthread_rwlock_rdlock(&s->map_mu);
    at = map_find(s, name);
    if (at >= 0) {
        t = s->tables[at];
        atomic_fetch_add(&t->refs, 1);
    }
    pthread_rwlock_unlock(&s->map_mu);
    return t;
}

json_t *
storage_table_names(struct storage *s)
{
    json_t *a = json_array();

    pthread_rwlock_rdlock(&s->map_mu);
    for (size_t i = 0; i < s->ntables; i++)
        json_array_append_new(a, json_string(s->tables[i]->name));
    pthread_rwlock_unlock(&s->map_mu);
    return a;
}

/* ------------------------------------------------------------------------
 * Catalog persistence
 * ---------------------------------------------------------------------- */

/*
 * Replace the partition rows of table id with layout l, inside the caller's
 * catalog transaction (cat_mu held). A split uses the same function, so
 * the list changes atomically.
 */
static int
cat_put_partitions(struct storage *s, const char *id,
                   const struct playout *l, struct ddb_err *err)
{
    sqlite3_stmt *del = NULL, *ins = NULL;
    int rc = -1;

    if (sqlite3_prepare_v2(s->cat,
                           "DELETE FROM partitions WHERE table_id = ?1", -1,
                           &del, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(s->cat,
                           "INSERT INTO partitions (table_id, part_id, "
                           "start, file) VALUES (?1, ?2, ?3, ?4)",
                           -1, &ins, NULL) != SQLITE_OK) {
        cat_err(s, err);
        goto out;
    }
    sqlite3_bind_text(del, 1, id, -1, SQLITE_STATIC);
    if (sqlite3_step(del) != SQLITE_DONE) {
        cat_err(s, err);
        goto out;
    }
    for (unsigned i = 0; i < l->map.n; i++) {
        sqlite3_reset(ins);
        if (sqlite3_bind_text(ins, 1, id, -1, SQLITE_STATIC) ||
            sqlite3_bind_text(ins, 2, l->files[i], -1, SQLITE_STATIC) ||
            sqlite3_bind_int64(ins, 3,
                               partmap_to_sql(l->map.starts[i])) ||
            sqlite3_bind_text(ins, 4, l->files[i], -1, SQLITE_STATIC) ||
            sqlite3_step(ins) != SQLITE_DONE) {
            cat_err(s, err);
            goto out;
        }
    }
    rc = 0;
out:
    sqlite3_finalize(del);
    sqlite3_finalize(ins);
    return rc;
}

/* Is table id still in the catalog? (cat_mu held.) false with err set if
 * not, e.g. when a delete won the race with a split. */
static bool
cat_table_exists(struct storage *s, const char *id, struct ddb_err *err)
{
    sqlite3_stmt *st = NULL;
    bool found = false;

    if (sqlite3_prepare_v2(s->cat, "SELECT 1 FROM tables WHERE id = ?1", -1,
                           &st, NULL) != SQLITE_OK) {
        cat_err(s, err);
        return false;
    }
    sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
    found = sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    if (!found)
        ddb_err_set(err, DDB_INTERNAL, "storage: table was deleted");
    return found;
}

/* Load the partition layout of table id from the catalog (not opened). */
static struct playout *
cat_load_layout(struct storage *s, const char *id, struct ddb_err *err)
{
    sqlite3_stmt *st = NULL;
    struct playout *l = NULL;
    uint64_t *starts = NULL;
    char (*files)[STORAGE_ID_LEN + 1] = NULL;
    size_t n = 0, cap = 0;
    struct partmap map;
    int step;

    if (sqlite3_prepare_v2(s->cat,
                           "SELECT start, file FROM partitions WHERE "
                           "table_id = ?1 ORDER BY start",
                           -1, &st, NULL) != SQLITE_OK) {
        cat_err(s, err);
        goto out;
    }
    sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        const char *f = (const char *)sqlite3_column_text(st, 1);

        if (n == cap) {
            cap = cap ? cap * 2 : 8;
            starts = xrealloc(starts, cap * sizeof(*starts));
            files = xrealloc(files, cap * sizeof(*files));
        }
        starts[n] = partmap_from_sql(sqlite3_column_int64(st, 0));
        snprintf(files[n], sizeof(files[n]), "%s", f ? f : "");
        n++;
    }
    if (step != SQLITE_DONE) {
        cat_err(s, err);
        goto out;
    }
    if (n == 0 || starts[0] != 0 || n > UINT32_MAX) {
        ddb_err_set(err, DDB_INTERNAL,
                    "storage: catalog: bad partition list for table %s", id);
        goto out;
    }
    partmap_init_take(&map, starts, (unsigned)n);
    starts = NULL;
    l = layout_new(&map);
    memcpy(l->files, files, n * sizeof(*files));
out:
    sqlite3_finalize(st);
    free(starts);
    free(files);
    return l;
}

/* Load every table of the catalog into the map and open its partitions. */
static int
cat_load(struct storage *s, struct ddb_err *err)
{
    sqlite3_stmt *st = NULL;
    int rc = -1, step;

    if (sqlite3_prepare_v2(s->cat, "SELECT name, id, desc FROM tables", -1,
                           &st, NULL) != SQLITE_OK) {
        cat_err(s, err);
        goto out;
    }
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(st, 0);
        const char *id = (const char *)sqlite3_column_text(st, 1);
        const char *dtext = (const char *)sqlite3_column_text(st, 2);
        struct playout *l;
        struct stable *t;
        json_error_t jerr;
        json_t *desc;

        if (name == NULL || id == NULL || strlen(id) > STORAGE_ID_LEN) {
            ddb_err_set(err, DDB_INTERNAL, "storage: catalog: bad table row");
            goto out;
        }
        desc = json_loads(dtext ? dtext : "{}", 0, &jerr);
        if (desc == NULL) {
            ddb_err_set(err, DDB_INTERNAL,
                        "storage: catalog: bad description of %s: %s", name,
                        jerr.text);
            goto out;
        }
        l = cat_load_layout(s, id, err);
        if (l == NULL) {
            json_decref(desc);
            goto out;
        }
        t = stable_new(s, name, id, desc, l);
        pthread_rwlock_wrlock(&s->map_mu);
        map_insert(s, t);
        pthread_rwlock_unlock(&s->map_mu);
        if (layout_open(l, t->dir, err) != 0)
            goto out;
    }
    if (step != SQLITE_DONE) {
        cat_err(s, err);
        goto out;
    }
    rc = 0;
out:
    sqlite3_finalize(st);
    return rc;
}

/* Does name start with an id (STORAGE_ID_LEN lowercase hex digits) followed
 * by one of suffixes? Only such names are ever removed by the sweep. */
static bool
is_id_name(const char *name, bool dir)
{
    static const char *const sfx[] = { ".db", ".db-wal", ".db-shm",
                                       ".db-journal" };

    for (int i = 0; i < STORAGE_ID_LEN; i++)
        if (!((name[i] >= '0' && name[i] <= '9') ||
              (name[i] >= 'a' && name[i] <= 'f')))
            return false;
    if (dir)
        return name[STORAGE_ID_LEN] == '\0';
    for (size_t i = 0; i < sizeof(sfx) / sizeof(sfx[0]); i++)
        if (strcmp(name + STORAGE_ID_LEN, sfx[i]) == 0)
            return true;
    return false;
}

/* Is file name (as found in a table dir) one of t's partition files? */
static bool
is_live_file(const struct stable *t, const char *fname)
{
    const struct playout *l = layout_of(t);
    size_t len = strcspn(fname, ".-");

    for (unsigned i = 0; i < l->map.n; i++)
        if (strlen(l->files[i]) == len &&
            memcmp(l->files[i], fname, len) == 0 &&
            strncmp(fname + len, ".db", 3) == 0)
            return true;
    return false;
}

/*
 * Remove what an interrupted create, delete or split left behind: table
 * directories the catalog does not know and partition files no layout
 * lists. The catalog is the truth; files are created before it names them
 * and removed after it forgets them.
 */
static void
sweep_orphans(struct storage *s)
{
    char *tdir = xasprintf("%s/tables", s->data_dir);
    DIR *d = opendir(tdir);
    struct dirent *e;

    if (d == NULL)
        goto out;
    while ((e = readdir(d)) != NULL) {
        struct stable *t = NULL;
        char *path;

        if (!is_id_name(e->d_name, true))
            continue;                   /* not ours: leave it */
        path = xasprintf("%s/%s", tdir, e->d_name);
        for (size_t i = 0; i < s->ntables; i++)
            if (strcmp(s->tables[i]->id, e->d_name) == 0)
                t = s->tables[i];
        if (t == NULL) {
            remove_dir(path);
        } else {
            DIR *pd = opendir(path);
            struct dirent *pe;

            while (pd != NULL && (pe = readdir(pd)) != NULL) {
                char *f;

                if (!is_id_name(pe->d_name, false) ||
                    is_live_file(t, pe->d_name))
                    continue;
                f = xasprintf("%s/%s", path, pe->d_name);
                (void)unlink(f);
                free(f);
            }
            if (pd != NULL)
                closedir(pd);
        }
        free(path);
    }
    closedir(d);
out:
    free(tdir);
}

/* ------------------------------------------------------------------------
 * Open and close the store
 * ---------------------------------------------------------------------- */

/* Each open partition holds two descriptors (database and WAL); a test
 * suite that makes hundreds of tables would hit the usual soft limit of
 * 1024, so raise it to the hard limit. */
static void
raise_fd_limit(void)
{
    struct rlimit rl;

    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        (void)setrlimit(RLIMIT_NOFILE, &rl);
    }
}

/*
 * Open the store at data_dir (created if missing), or in memory when
 * data_dir is NULL, and reopen every table in the catalog. Returns a new
 * store (storage_close() frees it) or NULL with err set.
 */
struct storage *
storage_open(const char *data_dir, struct ddb_err *err)
{
    struct storage *s = xcalloc(1, sizeof(*s));
    char *path = NULL, *tdir = NULL;
    int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
                SQLITE_OPEN_FULLMUTEX;

    s->lock_fd = -1;
    pthread_mutex_init(&s->cat_mu, NULL);
    pthread_mutex_init(&s->ddl_mu, NULL);
    pthread_rwlock_init(&s->map_mu, NULL);
    if (data_dir != NULL) {
        raise_fd_limit();
        s->data_dir = xstrdup(data_dir);
        tdir = xasprintf("%s/tables", data_dir);
        if (mkdir_p(tdir, err) != 0)
            goto fail;
        /* one process per data directory: partitions are opened with
         * SQLite's exclusive locking mode, and the orphan sweep below
         * assumes nobody else is creating files */
        path = xasprintf("%s/LOCK", data_dir);
        s->lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        if (s->lock_fd < 0 || flock(s->lock_fd, LOCK_EX | LOCK_NB) != 0) {
            ddb_err_set(err, DDB_INTERNAL,
                        "storage: data directory %s is in use by another "
                        "process (%s)", data_dir, strerror(errno));
            goto fail;
        }
        free(path);
        path = xasprintf("%s/catalog.db", data_dir);
    }
    if (sqlite3_open_v2(path ? path : ":memory:", &s->cat, flags, NULL) !=
        SQLITE_OK) {
        ddb_err_set(err, DDB_INTERNAL, "storage: open %s: %s",
                    path ? path : ":memory:",
                    s->cat ? sqlite3_errmsg(s->cat) : "out of memory");
        goto fail;
    }
    sqlite3_busy_timeout(s->cat, 5000);
    if (cat_exec(s, "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;",
                 err) != 0 ||
        cat_exec(s, cat_schema, err) != 0 ||
        cat_exec(s, "DELETE FROM partitions WHERE table_id NOT IN "
                    "(SELECT id FROM tables)", err) != 0 ||
        cat_load(s, err) != 0 ||
        txn_journal_replay(s, err) != 0)     /* txn.c: before serving */
        goto fail;
    if (s->data_dir != NULL)
        sweep_orphans(s);
    free(path);
    free(tdir);
    return s;
fail:
    free(path);
    free(tdir);
    storage_close(s);
    return NULL;
}

/*
 * Close the store. Every handle from storage_table_get() must have been
 * released: handles point back at the store.
 */
void
storage_close(struct storage *s)
{
    if (s == NULL)
        return;
    for (size_t i = 0; i < s->ntables; i++)
        stable_release(s->tables[i]);
    free(s->tables);
    sqlite3_close(s->cat);
    pthread_rwlock_destroy(&s->map_mu);
    pthread_mutex_destroy(&s->ddl_mu);
    pthread_mutex_destroy(&s->cat_mu);
    free(s->data_dir);
    if (s->lock_fd >= 0)
        close(s->lock_fd);              /* releases the flock */
    free(s);
}

/* ------------------------------------------------------------------------
 * Create and delete
 * ---------------------------------------------------------------------- */

/*
 * Create table name with nparts partitions evenly over the ring. desc is
 * copied. Partition files are made first, then the catalog names them in
 * one transaction; a crash in between leaves an orphan directory that the
 * next storage_open() removes. ResourceInUseException if name exists.
 */
int
storage_table_create(struct storage *s, const char *name,
                     const json_t *desc, unsigned nparts,
                     struct ddb_err *err)
{
    struct playout *l = NULL;
    struct stable *t = NULL;
    struct partmap map;
    char id[STORAGE_ID_LEN + 1];
    char *dir = NULL, *dtext = NULL;
    sqlite3_stmt *ins = NULL;
    bool in_txn = false;
    int rc = -1;

    if (name == NULL)
        return ddb_err_set(err, DDB_INTERNAL, "storage: table without name");
    pthread_mutex_lock(&s->ddl_mu);
    pthread_rwlock_rdlock(&s->map_mu);
    if (map_find(s, name) >= 0) {
        pthread_rwlock_unlock(&s->map_mu);
        ddb_err_set(err, DDB_RESOURCE_IN_USE, "Table already exists: %s",
                    name);
        goto out;
    }
    pthread_rwlock_unlock(&s->map_mu);

    new_id(id);
    partmap_init_even(&map, nparts ? nparts : 1);
    l = layout_new(&map);
    for (unsigned i = 0; i < l->map.n; i++)
        new_id(l->files[i]);
    if (s->data_dir != NULL) {
        dir = xasprintf("%s/tables/%s", s->data_dir, id);
        if (mkdir_p(dir, err) != 0)
            goto out;
    }
    if (layout_open(l, dir, err) != 0)
        goto out;
    dtext = desc ? json_dumps(desc, JSON_COMPACT) : strdup("{}");
    if (dtext == NULL) {
        ddb_err_set(err, DDB_INTERNAL, "storage: cannot encode description");
        goto out;
    }

    if (cat_begin(s, err) != 0)
        goto out;
    in_txn = true;
    if (sqlite3_prepare_v2(s->cat,
                           "INSERT INTO tables (name, id, desc) "
                           "VALUES (?1, ?2, ?3)",
                           -1, &ins, NULL) != SQLITE_OK ||
        sqlite3_bind_text(ins, 1, name, -1, SQLITE_STATIC) ||
        sqlite3_bind_text(ins, 2, id, -1, SQLITE_STATIC) ||
        sqlite3_bind_text(ins, 3, dtext, -1, SQLITE_STATIC) ||
        sqlite3_step(ins) != SQLITE_DONE) {
        cat_err(s, err);
        goto unlock;
    }
    if (cat_put_partitions(s, id, l, err) != 0 ||
        cat_exec(s, "COMMIT", err) != 0)
        goto unlock;
    in_txn = false;
    rc = 0;
unlock:
    cat_end(s, in_txn);
    if (rc == 0) {
        t = stable_new(s, name, id,
                       desc ? json_deep_copy(desc) : json_object(), l);
        l = NULL;
        pthread_rwlock_wrlock(&s->map_mu);
        map_insert(s, t);
        pthread_rwlock_unlock(&s->map_mu);
    }
out:
    pthread_mutex_unlock(&s->ddl_mu);
    sqlite3_finalize(ins);
    if (l != NULL) {                    /* failed: undo the files */
        layout_close_parts(l);
        layout_free(l);
        if (dir != NULL)
            remove_dir(dir);
    }
    free(dir);
    free(dtext);
    return rc;
}

/*
 * Remove table name from the catalog now (so the name is free at once) and
 * drop the map's reference; the files go when the last handle is released.
 * -1 with ResourceNotFoundException ("Requested resource not found: Table:
 * <name> not found") if absent; the caller may word its own.
 */
int
storage_table_delete(struct storage *s, const char *name,
                     struct ddb_err *err)
{
    struct stable *t = NULL;
    sqlite3_stmt *d1 = NULL, *d2 = NULL;
    bool in_txn = false;
    int rc = -1;
    long at;

    pthread_mutex_lock(&s->ddl_mu);
    t = storage_table_get(s, name);
    if (t == NULL) {
        ddb_err_set(err, DDB_RESOURCE_NOT_FOUND,
                    "Requested resource not found: Table: %s not found",
                    name ? name : "");
        goto out;
    }
    if (cat_begin(s, err) != 0)
        goto out;
    in_txn = true;
    if (sqlite3_prepare_v2(s->cat, "DELETE FROM tables WHERE id = ?1", -1,
                           &d1, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(s->cat,
                           "DELETE FROM partitions WHERE table_id = ?1", -1,
                           &d2, NULL) != SQLITE_OK ||
        sqlite3_bind_text(d1, 1, t->id, -1, SQLITE_STATIC) ||
        sqlite3_bind_text(d2, 1, t->id, -1, SQLITE_STATIC) ||
        sqlite3_step(d1) != SQLITE_DONE || sqlite3_step(d2) != SQLITE_DONE) {
        cat_err(s, err);
        goto unlock;
    }
    if (cat_exec(s, "COMMIT", err) != 0)
        goto unlock;
    in_txn = false;
    rc = 0;
unlock:
    cat_end(s, in_txn);
    if (rc == 0) {
        atomic_store(&t->deleted, true);
        pthread_rwlock_wrlock(&s->map_mu);
        at = map_find(s, name);
        if (at >= 0 && s->tables[at] == t) {
            memmove(s->tables + at, s->tables + at + 1,
                    (s->ntables - (size_t)at - 1) * sizeof(*s->tables));
            s->ntables--;
            pthread_rwlock_unlock(&s->map_mu);
            stable_release(t);          /* the map's reference */
        } else {
            pthread_rwlock_unlock(&s->map_mu);
        }
    }
out:
    pthread_mutex_unlock(&s->ddl_mu);
    sqlite3_finalize(d1);
    sqlite3_finalize(d2);
    stable_release(t);                  /* our lookup reference */
    return rc;
}

/* ------------------------------------------------------------------------
 * Table handles: description, partitions, stats
 * ---------------------------------------------------------------------- */

/*
 * The current description without copying: a new reference (caller
 * decrefs) to an object the store never modifies again (stable_set_desc
 * installs a fresh copy instead), so it is safe to read from any thread.
 * The caller must not modify it. Cheaper than stable_desc() on hot paths.
 */
json_t *
stable_desc_ref(struct stable *t)
{
    json_t *d;

    pthread_mutex_lock(&t->desc_mu);
    d = json_incref(t->desc);
    pthread_mutex_unlock(&t->desc_mu);
    return d;
}

/* A deep copy of the current description (caller frees): copied from
 * stable_desc_ref()'s object, which nothing modifies. */
json_t *
stable_desc(struct stable *t)
{
    json_t *ref = stable_desc_ref(t);
    json_t *d = json_deep_copy(ref);

    json_decref(ref);
    return d;
}

/*
 * Replace the description with a copy of desc and persist it. The catalog
 * row is matched by table id, so a handle to a deleted table cannot touch a
 * new table of the same name.
 */
int
stable_set_desc(struct stable *t, const json_t *desc, struct ddb_err *err)
{
    struct storage *s = t->s;
    sqlite3_stmt *up = NULL;
    json_t *copy = json_deep_copy(desc);
    char *dtext = NULL;
    int rc = -1;

    if (copy == NULL || (dtext = json_dumps(copy, JSON_COMPACT)) == NULL) {
        ddb_err_set(err, DDB_INTERNAL, "storage: cannot encode description");
        goto out;
    }
    pthread_mutex_lock(&s->cat_mu);
    if (sqlite3_prepare_v2(s->cat, "UPDATE tables SET desc = ?1 WHERE id = ?2",
                           -1, &up, NULL) != SQLITE_OK ||
        sqlite3_bind_text(up, 1, dtext, -1, SQLITE_STATIC) ||
        sqlite3_bind_text(up, 2, t->id, -1, SQLITE_STATIC) ||
        sqlite3_step(up) != SQLITE_DONE) {
        cat_err(s, err);
        pthread_mutex_unlock(&s->cat_mu);
        goto out;
    }
    pthread_mutex_unlock(&s->cat_mu);
    pthread_mutex_lock(&t->desc_mu);
    json_decref(t->desc);
    t->desc = copy;
    copy = NULL;
    pthread_mutex_unlock(&t->desc_mu);
    rc = 0;
out:
    sqlite3_finalize(up);
    json_decref(copy);
    free(dtext);
    return rc;
}

const char *
stable_name(const struct stable *t)
{
    return t->name;
}

unsigned
stable_nparts(struct stable *t)
{
    return layout_of(t)->map.n;
}

unsigned
stable_part_of(struct stable *t, const uint8_t hash[16])
{
    return partmap_find(&layout_of(t)->map, storage_be64(hash));
}

/* First hash of partition i; UINT64_MAX if i is out of range (the layout
 * may have changed under a caller that read stable_nparts earlier). */
uint64_t
stable_part_start(struct stable *t, unsigned i)
{
    const struct playout *l = layout_of(t);

    return i < l->map.n ? partmap_start(&l->map, i) : UINT64_MAX;
}

int
stable_stats(struct stable *t, uint64_t *count, uint64_t *bytes,
             struct ddb_err *err)
{
    const struct playout *l;
    int rc;

retry:
    l = layout_of(t);
    *count = 0;
    *bytes = 0;
    for (unsigned i = 0; i < l->map.n; i++) {
        rc = partition_stats(l->parts[i], count, bytes, err);
        if (rc == PART_RETIRED)
            goto retry;
        if (rc != 0)
            return -1;
    }
    return 0;
}

/* Live count and bytes of partition i alone (e.g. to decide a size split).
 * -1 with err set if i is out of range. */
int
stable_part_stats(struct stable *t, unsigned i, uint64_t *count,
                  uint64_t *bytes, struct ddb_err *err)
{
    const struct playout *l;
    int rc;

    do {
        l = layout_of(t);
        if (i >= l->map.n)
            return ddb_err_set(err, DDB_INTERNAL,
                               "storage: no partition %u", i);
        *count = 0;
        *bytes = 0;
        rc = partition_stats(l->parts[i], count, bytes, err);
    } while (rc == PART_RETIRED);
    return rc;
}

/* ------------------------------------------------------------------------
 * Items. Each call looks its partition up in the current layout and, if a
 * split retired that partition meanwhile (PART_RETIRED), looks again.
 * ---------------------------------------------------------------------- */

static struct partition *
part_for(struct stable *t, const uint8_t hash[16])
{
    const struct playout *l = layout_of(t);

    return l->parts[partmap_find(&l->map, storage_be64(hash))];
}

int
stable_get(struct stable *t, const struct item_key *k, json_t **item,
           struct ddb_err *err)
{
    int rc;

    while ((rc = partition_get(part_for(t, k->hash), k, item, err)) ==
           PART_RETIRED)
        ;
    return rc;
}

int
stable_mutate(struct stable *t, const struct item_key *k,
              stable_mutate_fn *fn, void *arg, struct ddb_err *err)
{
    int rc;

    while ((rc = partition_mutate(part_for(t, k->hash), k, fn, arg, err)) ==
           PART_RETIRED)
        ;
    return rc;
}

/* A bound buffer: one more byte than a key, for "key + 0x00". */
struct bound {
    uint8_t b[KEY_BYTES_MAX + 1];
    size_t len;
    bool set;
};

/* memcmp order of byte strings, shorter first on a common prefix. */
static int
blob_cmp(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
    int c = memcmp(a, b, alen < blen ? alen : blen);

    if (c != 0 || alen == blen)
        return c;
    return alen < blen ? -1 : 1;
}

/* Set bound to v (+ a 0x00 byte when succ, the smallest string above v),
 * if that is tighter: larger for a lower bound, smaller for an upper. */
static void
bound_tighten(struct bound *bd, bool lower, const uint8_t *v, size_t len,
              bool succ)
{
    uint8_t tmp[KEY_BYTES_MAX + 1];
    size_t tl;
    int c;

    if (len > KEY_BYTES_MAX)
        len = KEY_BYTES_MAX;
    if (len > 0)
        memcpy(tmp, v, len);
    tl = len;
    if (succ)
        tmp[tl++] = 0;
    if (bd->set) {
        c = blob_cmp(tmp, tl, bd->b, bd->len);
        if (lower ? c <= 0 : c >= 0)
            return;
    }
    memcpy(bd->b, tmp, tl);
    bd->len = tl;
    bd->set = true;
}

/*
 * Visit one partition key's items in sort-key order. Every restriction is
 * turned into one half-open range lo <= sk < hi: an exclusive lower bound v
 * becomes v+0x00, an inclusive upper bound v becomes v+0x00, begins_with p
 * becomes [p, p with its last non-0xFF byte incremented), and the
 * exclusive start key tightens the bound on the side we start from.
 */
int
stable_query(struct stable *t, const uint8_t *pk, size_t pk_len,
             const struct sk_range *r, bool forward,
             const uint8_t *start, size_t start_len,
             stable_row_fn *fn, void *arg, struct ddb_err *err)
{
    struct bound *lo = xcalloc(2, sizeof(*lo)), *hi;
    uint8_t hash[16];
    unsigned int hlen = 0;
    int rc = -1;

    hi = lo + 1;
    if (pk_len > KEY_BYTES_MAX) {
        ddb_err_set(err, DDB_INTERNAL, "storage: key too long");
        goto out;
    }
    if (EVP_Digest(pk, pk_len, hash, &hlen, EVP_md5(), NULL) != 1 ||
        hlen != 16) {
        ddb_err_set(err, DDB_INTERNAL, "storage: md5 failed");
        goto out;
    }
    lo->set = true;                     /* empty: below every key */
    if (r != NULL) {
        if (r->lo != NULL)
            bound_tighten(lo, true, r->lo, r->lo_len, !r->lo_incl);
        if (r->hi != NULL)
            bound_tighten(hi, false, r->hi, r->hi_len, r->hi_incl);
        if (r->prefix != NULL && r->prefix_len > 0) {
            uint8_t succ[KEY_BYTES_MAX];
            size_t sl = r->prefix_len > KEY_BYTES_MAX ? KEY_BYTES_MAX
                                                      : r->prefix_len;

            bound_tighten(lo, true, r->prefix, sl, false);
            memcpy(succ, r->prefix, sl);
            while (sl > 0 && succ[sl - 1] == 0xFF)
                sl--;
            if (sl > 0) {               /* else: no upper bound */
                succ[sl - 1]++;
                bound_tighten(hi, false, succ, sl, false);
            }
        }
    }
    if (start != NULL) {
        if (forward)
            bound_tighten(lo, true, start, start_len, true);
        else
            bound_tighten(hi, false, start, start_len, false);
    }
    if (hi->set && blob_cmp(lo->b, lo->len, hi->b, hi->len) >= 0) {
        rc = 0;                         /* empty range */
        goto out;
    }
    do
        rc = partition_query(part_for(t, hash), hash, pk, pk_len, lo->b,
                             lo->len, hi->set ? hi->b : NULL, hi->len,
                             forward, fn, arg, err);
    while (rc == PART_RETIRED);
    if (rc > 0)
        rc = 0;
out:
    free(lo);
    return rc;
}

/*
 * Visit items with top-64 hash in [lo, hi] in (h, pk, sk) order, after
 * start (exclusive) if given, partition by partition in ring order. The
 * walk is by ring position, so a split during the scan only makes it look
 * the partition up again.
 */
int
stable_scan(struct stable *t, uint64_t lo, uint64_t hi,
            const struct item_key *start,
            stable_row_fn *fn, void *arg, struct ddb_err *err)
{
    uint64_t pos = lo, sh = 0;

    if (lo > hi)
        return 0;
    if (start != NULL) {
        sh = storage_be64(start->hash);
        if (sh > hi)
            return 0;
        if (sh < lo)
            start = NULL;               /* every row in range is after it */
        else
            pos = sh;
    }
    for (;;) {
        const struct playout *l = layout_of(t);
        unsigned i = partmap_find(&l->map, pos);
        uint64_t end = partmap_end(&l->map, i);
        int rc;

        if (end > hi)
            end = hi;
        rc = partition_scan(l->parts[i], pos,
                            end == UINT64_MAX ? 0 : end + 1,
                            end == UINT64_MAX,
                            start != NULL && sh <= end ? start : NULL, fn,
                            arg, err);
        if (rc == PART_RETIRED)
            continue;
        if (rc < 0)
            return -1;
        if (rc > 0 || end >= hi)
            return 0;
        pos = end + 1;
        start = NULL;                   /* rows from here on are after it */
    }
}

/* ------------------------------------------------------------------------
 * Splits
 * ---------------------------------------------------------------------- */

int
stable_split(struct stable *t, unsigned i, struct ddb_err *err)
{
    struct storage *s = t->s;
    struct playout *old, *nl = NULL;
    struct partition *parent = NULL, *a = NULL, *b = NULL;
    struct partmap map;
    uint64_t *starts, lo, hi, mid;
    char *path;
    bool locked = false, in_txn = false;
    int rc = -1;

    pthread_mutex_lock(&t->split_mu);
    old = layout_of(t);
    if (atomic_load(&t->deleted)) {
        ddb_err_set(err, DDB_INTERNAL, "storage: split of a deleted table");
        goto out;
    }
    if (i >= old->map.n) {
        ddb_err_set(err, DDB_INTERNAL, "storage: no partition %u", i);
        goto out;
    }
    lo = partmap_start(&old->map, i);
    hi = partmap_end(&old->map, i);
    if (hi == lo) {
        ddb_err_set(err, DDB_INTERNAL, "storage: partition %u is too small "
                                       "to split", i);
        goto out;
    }
    mid = lo + (hi - lo) / 2 + 1;       /* a: [lo, mid), b: [mid, hi] */

    /* the new layout: old with entry i replaced by two */
    starts = xmalloc((old->map.n + 1) * sizeof(*starts));
    memcpy(starts, old->map.starts, (i + 1) * sizeof(*starts));
    starts[i + 1] = mid;
    memcpy(starts + i + 2, old->map.starts + i + 1,
           (old->map.n - i - 1) * sizeof(*starts));
    partmap_init_take(&map, starts, old->map.n + 1);
    nl = layout_new(&map);
    for (unsigned j = 0, k = 0; j < old->map.n; j++) {
        if (j == i) {
            new_id(nl->files[k]);
            new_id(nl->files[k + 1]);
            k += 2;
            continue;
        }
        nl->parts[k] = old->parts[j];
        memcpy(nl->files[k], old->files[j], sizeof(nl->files[k]));
        k++;
    }
    path = t->dir ? part_file_path(t->dir, nl->files[i]) : NULL;
    a = partition_open(path, err);
    free(path);
    if (a == NULL)
        goto out;
    path = t->dir ? part_file_path(t->dir, nl->files[i + 1]) : NULL;
    b = partition_open(path, err);
    free(path);
    if (b == NULL)
        goto out;

    /* copy with the parent locked: its requests wait, then retry */
    parent = old->parts[i];
    partition_lock(parent);
    locked = true;
    if (partition_split_copy_locked(parent, mid, a, b, err) != 0)
        goto out;
    if (cat_begin(s, err) != 0)
        goto out;
    in_txn = true;
    if (cat_table_exists(s, t->id, err) &&
        cat_put_partitions(s, t->id, nl, err) == 0 &&
        cat_exec(s, "COMMIT", err) == 0) {
        in_txn = false;
        rc = 0;
    }
    cat_end(s, in_txn);
    if (rc != 0)
        goto out;

    /* committed: publish, retire the parent, drop its files */
    nl->parts[i] = a;
    nl->parts[i + 1] = b;
    a = b = NULL;
    atomic_store_explicit(&t->layout, nl, memory_order_release);
    nl = NULL;
    t->old_layouts = xrealloc(t->old_layouts,
                              (t->nold + 1) * sizeof(*t->old_layouts));
    t->retired = xrealloc(t->retired,
                          (t->nretired + 1) * sizeof(*t->retired));
    t->old_layouts[t->nold++] = old;
    t->retired[t->nretired++] = parent;
    partition_retire_locked(parent);
    if (partition_path(parent) != NULL)
        partition_unlink_files(partition_path(parent));
out:
    if (locked)
        partition_unlock(parent);
    if (nl != NULL) {                   /* failed: drop the new files */
        const char *pa = a ? partition_path(a) : NULL;
        const char *pb = b ? partition_path(b) : NULL;
        char *fa = pa ? xstrdup(pa) : NULL, *fb = pb ? xstrdup(pb) : NULL;

        partition_close(a);
        partition_close(b);
        if (fa != NULL)
            partition_unlink_files(fa);
        if (fb != NULL)
            partition_unlink_files(fb);
        free(fa);
        free(fb);
        layout_free(nl);
    }
    pthread_mutex_unlock(&t->split_mu);
    return rc;
}
