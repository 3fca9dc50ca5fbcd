/* SPDX-License-Identifier: MIT */
/* catalog.c - <data_dir>/catalog.db, the store's truth: which tables exist
 * (name, id, description) and their partitions (start hash, file). Loading
 * it at open, creating and deleting tables, persisting descriptions and
 * the partition lists a split writes. The files themselves are store.c's,
 * the open tables table.c's; txn.c keeps its journal here too. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "storage/storage_int.h"
#include "storage/util.h"

#define CAT_STR_(x) #x
#define CAT_STR(x) CAT_STR_(x)

static const char cat_schema[] =
    "CREATE TABLE IF NOT EXISTS tables ("
    " name TEXT PRIMARY KEY, id TEXT NOT NULL UNIQUE, desc TEXT NOT NULL,"
    " keyhash INTEGER NOT NULL DEFAULT 0);"
    "CREATE TABLE IF NOT EXISTS partitions ("
    " table_id TEXT NOT NULL, part_id TEXT NOT NULL,"
    " start INTEGER NOT NULL, file TEXT NOT NULL,"
    " PRIMARY KEY (table_id, start));";

/* ------------------------------------------------------------------------
 * Statements and transactions
 * ---------------------------------------------------------------------- */

int
catalog_err(struct storage *s, const char *what, struct ddb_err *err)
{
    return storage_sql_err(s->cat, what, err);
}

int
catalog_exec(struct storage *s, const char *what, const char *sql,
             struct ddb_err *err)
{
    if (sqlite3_exec(s->cat, sql, NULL, NULL, NULL) != SQLITE_OK)
        return catalog_err(s, what, err);
    return 0;
}

static sqlite3_stmt *
cat_vprepare(struct storage *s, struct ddb_err *err, const char *sql,
             va_list ap)
{
    sqlite3_stmt *st = NULL;
    const char *text;
    int i = 1;

    if (sqlite3_prepare_v2(s->cat, sql, -1, &st, NULL) != SQLITE_OK)
        goto fail;
    while ((text = va_arg(ap, const char *)) != NULL)
        if (sqlite3_bind_text(st, i++, text, -1, SQLITE_STATIC) != SQLITE_OK)
            goto fail;
    return st;
fail:
    catalog_err(s, "catalog", err);
    sqlite3_finalize(st);
    return NULL;
}

/* Prepare sql on the catalog with the texts that follow, up to a NULL,
 * bound to ?1, ?2, ... (borrowed until the statement is finalized). The
 * caller finalizes the statement; NULL with err set on failure. */
static sqlite3_stmt * __attribute__((sentinel))
cat_prepare(struct storage *s, struct ddb_err *err, const char *sql, ...)
{
    sqlite3_stmt *st;
    va_list ap;

    va_start(ap, sql);
    st = cat_vprepare(s, err, sql, ap);
    va_end(ap);
    return st;
}

/* Run sql, which returns no row, with texts bound as cat_prepare() does.
 * 0, or -1 with err set. */
int
catalog_run(struct storage *s, struct ddb_err *err, const char *sql, ...)
{
    sqlite3_stmt *st;
    va_list ap;
    int rc;

    va_start(ap, sql);
    st = cat_vprepare(s, err, sql, ap);
    va_end(ap);
    if (st == NULL)
        return -1;
    rc = sqlite3_step(st) == SQLITE_DONE ? 0 : catalog_err(s, "catalog", err);
    sqlite3_finalize(st);
    return rc;
}

/* Take cat_mu and BEGIN IMMEDIATE on the catalog. 0 with cat_mu held and
 * the transaction open, or -1 with err set and cat_mu released. */
int
catalog_begin(struct storage *s, struct ddb_err *err)
{
    pthread_mutex_lock(&s->cat_mu);
    if (catalog_exec(s, "catalog", "BEGIN IMMEDIATE", err) != 0) {
        pthread_mutex_unlock(&s->cat_mu);
        return -1;
    }
    return 0;
}

/* End what catalog_begin() started: COMMIT if rc is 0 (all went well so
 * far), else, or if the commit fails, ROLLBACK; then release cat_mu.
 * Returns 0 once committed, or -1 with err set. */
int
catalog_finish(struct storage *s, int rc, struct ddb_err *err)
{
    if (rc == 0)
        rc = catalog_exec(s, "catalog", "COMMIT", err);
    if (rc != 0)
        catalog_exec(s, "catalog", "ROLLBACK", NULL);
    pthread_mutex_unlock(&s->cat_mu);
    return rc;
}

/* ------------------------------------------------------------------------
 * Partition lists
 * ---------------------------------------------------------------------- */

/*
 * Replace the partition rows of table id with layout l, inside the caller's
 * catalog transaction (cat_mu held). Create and split both use it, so the
 * list changes atomically.
 */
int
catalog_put_partitions(struct storage *s, const char *id,
                       const struct playout *l, struct ddb_err *err)
{
    sqlite3_stmt *ins;
    int rc = -1;

    if (catalog_run(s, err, "DELETE FROM partitions WHERE table_id = ?1", id,
                NULL) != 0)
        return -1;
    ins = cat_prepare(s, err, "INSERT INTO partitions (table_id, part_id, "
                      "start, file) VALUES (?1, ?2, ?3, ?4)", id, NULL);
    if (ins == NULL)
        return -1;
    for (unsigned i = 0; i < l->map.n; i++) {
        sqlite3_reset(ins);
        if (sqlite3_bind_text(ins, 2, l->files[i], -1, SQLITE_STATIC) ||
            sqlite3_bind_int64(ins, 3,
                               partmap_to_sql(l->map.starts[i])) ||
            sqlite3_bind_text(ins, 4, l->files[i], -1, SQLITE_STATIC) ||
            sqlite3_step(ins) != SQLITE_DONE) {
            catalog_err(s, "catalog", err);
            goto out;
        }
    }
    rc = 0;
out:
    sqlite3_finalize(ins);
    return rc;
}

/* Is table id still in the catalog? (cat_mu held.) false with err set if
 * not, e.g. when a delete won the race with a split. */
bool
catalog_table_exists(struct storage *s, const char *id, struct ddb_err *err)
{
    sqlite3_stmt *st = cat_prepare(s, err, "SELECT 1 FROM tables WHERE "
                                   "id = ?1", id, NULL);
    bool found;

    if (st == NULL)
        return false;
    found = sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    if (!found)
        ddb_err_set(err, DDB_INTERNAL, "storage: table was deleted");
    return found;
}

/* The partition rows of table id become l, the rows of a rehash of its
 * layout old (stable_rehash), its history follows them (changelog.c), and
 * its key hash becomes keyhash: one catalog transaction. */
int
catalog_set_rehashed(struct storage *s, const char *id,
                     const struct playout *old, const struct playout *l,
                     int keyhash, struct ddb_err *err)
{
    char kh[16];
    int rc;

    snprintf(kh, sizeof(kh), "%d", keyhash);
    if (catalog_begin(s, err) != 0)
        return -1;
    rc = catalog_table_exists(s, id, err) &&
                 catalog_put_partitions(s, id, l, err) == 0 &&
                 changelog_rehashed(s, id, old, l, err) == 0 &&
                 catalog_run(s, err, "UPDATE tables SET keyhash = ?1 WHERE "
                             "id = ?2", kh, id, NULL) == 0
             ? 0
             : -1;
    return catalog_finish(s, rc, err);
}

/* Load the partition layout of table id from the catalog (not opened). */
static struct playout *
cat_load_layout(struct storage *s, const char *id, struct ddb_err *err)
{
    sqlite3_stmt *st;
    struct playout *l = NULL;
    uint64_t *starts = NULL;
    char (*files)[STORAGE_ID_LEN + 1] = NULL;
    size_t n = 0, cap = 0;
    struct partmap map;
    int step;

    st = cat_prepare(s, err, "SELECT start, file FROM partitions WHERE "
                     "table_id = ?1 ORDER BY start", id, NULL);
    if (st == NULL)
        return NULL;
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
        catalog_err(s, "catalog", err);
        goto out;
    }
    if (n == 0 || starts[0] != 0 || n > UINT32_MAX) {
        ddb_err_set(err, DDB_INTERNAL,
                    "storage: catalog: bad partition list for table %s", id);
        goto out;
    }
    partmap_init_take(&map, starts, (unsigned)n);
    starts = NULL;
    l = playout_new(&map);
    memcpy(l->files, files, n * sizeof(*files));
out:
    sqlite3_finalize(st);
    free(starts);
    free(files);
    return l;
}

/* ------------------------------------------------------------------------
 * Open: load every table
 * ---------------------------------------------------------------------- */

/* Load every table of the catalog into the map and open its partitions. */
static int
cat_load(struct storage *s, struct ddb_err *err)
{
    sqlite3_stmt *st;
    int rc = -1, step;

    st = cat_prepare(s, err, "SELECT name, id, desc, keyhash FROM tables",
                     NULL);
    if (st == NULL)
        return -1;
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
        t->keyhash = sqlite3_column_int(st, 3);
        pthread_rwlock_wrlock(&s->map_mu);
        storage_map_insert(s, t);
        pthread_rwlock_unlock(&s->map_mu);
        if (playout_open(s, l, t->dir, err) != 0 ||
            changelog_load(t, err) != 0)
            goto out;
    }
    rc = step == SQLITE_DONE ? 0 : catalog_err(s, "catalog", err);
out:
    sqlite3_finalize(st);
    return rc;
}

/* A catalog written before tables had a key hash gets the column, every
 * table in it at 0 (MD5 of the sortable bytes) until stable_rehash. */
static int
cat_add_keyhash(struct storage *s, struct ddb_err *err)
{
    sqlite3_stmt *st = cat_prepare(s, err, "SELECT 1 FROM pragma_table_info"
                                   "('tables') WHERE name = 'keyhash'", NULL);
    int step;

    if (st == NULL)
        return -1;
    step = sqlite3_step(st);
    sqlite3_finalize(st);
    if (step == SQLITE_ROW)
        return 0;
    if (step != SQLITE_DONE)
        return catalog_err(s, "catalog", err);
    return catalog_exec(s, "catalog", "ALTER TABLE tables ADD COLUMN "
                        "keyhash INTEGER NOT NULL DEFAULT 0", err);
}

int
catalog_open(struct storage *s, const char *path, struct ddb_err *err)
{
    s->cat = storage_db_open(path, SQLITE_OPEN_READWRITE |
                             SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX, err);
    if (s->cat == NULL ||
        catalog_exec(s, "catalog", "PRAGMA journal_mode=WAL; "
                     "PRAGMA synchronous=FULL;", err) != 0 ||
        catalog_exec(s, "catalog", cat_schema, err) != 0 ||
        changelog_schema(s, err) != 0 ||
        cat_add_keyhash(s, err) != 0 ||
        catalog_exec(s, "catalog", "DELETE FROM partitions WHERE table_id "
                     "NOT IN (SELECT id FROM tables)", err) != 0)
        return -1;
    return cat_load(s, err);
}

/* ------------------------------------------------------------------------
 * Create and delete
 * ---------------------------------------------------------------------- */

/* Run fill over the new partitions of l, each held locked meanwhile: the
 * fill's commits may queue them for the checkpoint thread (checkpoint.c),
 * which takes a partition's lock before it touches its connection, as a
 * split holds its children while it fills them. Nobody else knows these
 * partitions yet, so holding them all cannot deadlock. */
static int
playout_fill(struct playout *l, catalog_fill_fn *fill, void *arg,
             struct ddb_err *err)
{
    unsigned i;
    int rc;

    for (i = 0; i < l->map.n; i++)
        partition_lock(l->parts[i]);
    rc = fill(arg, l, err);
    for (i = 0; i < l->map.n; i++)
        partition_unlock(l->parts[i]);
    return rc;
}

/*
 * Create table name with nparts partitions evenly over the ring, with desc
 * (copied) or, when fn is given, the description fn builds from the first
 * log marker and birth time (the table then logs from its creation).
 * Partition files are made first (and filled by fill, when given, while
 * nobody else can see them), then the catalog names them in one
 * transaction; a crash in between leaves an orphan directory that the
 * next storage_open() removes. ResourceInUseException if name exists.
 */
static int
table_create(struct storage *s, const char *name, const json_t *desc,
             unsigned nparts, uint64_t min_ms, stable_switch_fn *fn,
             void *arg, catalog_fill_fn *fill, void *fill_arg,
             struct ddb_err *err)
{
    struct playout *l = NULL;
    struct stable *t = NULL;
    struct partmap map;
    char id[STORAGE_ID_LEN + 1];
    char *dir = NULL, *dtext = NULL;
    json_t *built = NULL;
    uint64_t ms = changelog_now(s);
    int rc = -1;

    if (name == NULL)
        return ddb_err_set(err, DDB_INTERNAL, "storage: table without name");
    pthread_mutex_lock(&s->ddl_mu);
    pthread_rwlock_rdlock(&s->map_mu);
    if (storage_map_find(s, name) >= 0) {
        pthread_rwlock_unlock(&s->map_mu);
        ddb_err_set(err, DDB_RESOURCE_IN_USE, "Table already exists: %s",
                    name);
        goto out;
    }
    pthread_rwlock_unlock(&s->map_mu);

    storage_new_id(id);
    partmap_init_even(&map, nparts ? nparts : 1);
    l = playout_new(&map);
    for (unsigned i = 0; i < l->map.n; i++)
        storage_new_id(l->files[i]);
    if (space_admit(s, err) != 0)
        goto out;
    if (s->data_dir != NULL) {
        dir = xasprintf("%s/tables/%s", s->data_dir, id);
        if (storage_mkdir_p(dir, err) != 0)
            goto out;
    }
    if (playout_open(s, l, dir, err) != 0)
        goto out;
    if (fill != NULL && playout_fill(l, fill, fill_arg, err) != 0)
        goto out;
    if (dir != NULL) {                  /* the names, before the catalog
                                           points at them */
        char *tdir = xasprintf("%s/tables", s->data_dir);

        storage_sync_dir(s, dir);
        storage_sync_dir(s, tdir);
        free(tdir);
    }
    if (ms < min_ms)
        ms = min_ms;
    if (fn != NULL && (desc = built = fn(arg, 1, ms, err)) == NULL)
        goto out;
    dtext = desc ? json_text(desc, JSON_COMPACT) : strdup("{}");
    if (dtext == NULL) {
        ddb_err_set(err, DDB_INTERNAL, "storage: cannot encode description");
        goto out;
    }

    if (catalog_begin(s, err) != 0)
        goto out;
    rc = catalog_run(s, err, "INSERT INTO tables (name, id, desc, keyhash) "
                     "VALUES (?1, ?2, ?3, " CAT_STR(STORAGE_KEYHASH) ")",
                     name, id, dtext, NULL);
    if (rc == 0)
        rc = catalog_put_partitions(s, id, l, err);
    if (rc == 0)
        rc = changelog_created(s, id, l, fn != NULL, 1, ms, err);
    rc = catalog_finish(s, rc, err);
    if (rc == 0) {
        t = stable_new(s, name, id,
                       desc ? json_clone(desc) : json_object(), l);
        l = NULL;
        t->stamp = ms;
        if (fn != NULL) {
            atomic_store(&t->seq, 1);
            atomic_store(&t->log_on, true);
        }
        pthread_rwlock_wrlock(&s->map_mu);
        storage_map_insert(s, t);
        pthread_rwlock_unlock(&s->map_mu);
    }
out:
    json_decref(built);
    pthread_mutex_unlock(&s->ddl_mu);
    if (l != NULL) {                    /* failed: undo the files */
        playout_close_parts(l);
        playout_free(l);
        if (dir != NULL)
            storage_remove_dir(dir);
    }
    free(dir);
    free(dtext);
    if (rc != 0)
        space_note(s, err);
    return rc;
}

int
storage_table_create(struct storage *s, const char *name,
                     const json_t *desc, unsigned nparts,
                     struct ddb_err *err)
{
    return table_create(s, name, desc, nparts, 0, NULL, NULL, NULL, NULL,
                        err);
}

int
catalog_table_create(struct storage *s, const char *name,
                     const json_t *desc, unsigned nparts,
                     catalog_fill_fn *fill, void *arg, struct ddb_err *err)
{
    return table_create(s, name, desc, nparts, 0, NULL, NULL, fill, arg,
                        err);
}

int
storage_table_create_logged(struct storage *s, const char *name,
                            unsigned nparts, uint64_t min_ms,
                            stable_switch_fn *fn, void *arg,
                            struct ddb_err *err)
{
    return table_create(s, name, NULL, nparts, min_ms, fn, arg, NULL, NULL,
                        err);
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
    bool removed;
    int rc = -1;

    pthread_mutex_lock(&s->ddl_mu);
    t = storage_table_get(s, name);
    if (t == NULL) {
        ddb_err_set(err, DDB_RESOURCE_NOT_FOUND,
                    "Requested resource not found: Table: %s not found",
                    name ? name : "");
        goto out;
    }
    if (catalog_begin(s, err) != 0)
        goto out;
    rc = catalog_run(s, err, "DELETE FROM tables WHERE id = ?1", t->id, NULL);
    if (rc == 0)
        rc = catalog_run(s, err, "DELETE FROM partitions WHERE table_id = ?1",
                     t->id, NULL);
    if (rc == 0)
        rc = changelog_dropped(s, t->id, err);
    rc = catalog_finish(s, rc, err);
    if (rc == 0) {
        atomic_store(&t->deleted, true);
        pthread_rwlock_wrlock(&s->map_mu);
        removed = storage_map_remove(s, name, t);
        pthread_rwlock_unlock(&s->map_mu);
        if (removed)
            stable_release(t);          /* the map's reference */
    }
out:
    pthread_mutex_unlock(&s->ddl_mu);
    stable_release(t);                  /* our lookup reference: the last
                                           one removes the files */
    if (rc != 0)
        space_note(s, err);
    return rc;
}

/* Write desc as table id's description (cat_mu held). The row is matched
 * by table id, so a handle to a deleted table cannot touch a new table of
 * the same name. */
int
catalog_put_desc(struct storage *s, const char *id, const json_t *desc,
                 struct ddb_err *err)
{
    char *dtext = json_text(desc, JSON_COMPACT);
    int rc;

    if (dtext == NULL)
        return ddb_err_set(err, DDB_INTERNAL,
                           "storage: cannot encode description");
    rc = catalog_run(s, err, "UPDATE tables SET desc = ?1 WHERE id = ?2",
                     dtext, id, NULL);
    free(dtext);
    return rc;
}

/* Make desc_take the description readers see. */
void
catalog_install_desc(struct stable *t, json_t *desc_take)
{
    pthread_mutex_lock(&t->desc_mu);
    json_decref(t->desc);
    t->desc = desc_take;
    pthread_mutex_unlock(&t->desc_mu);
}

/* Replace the description with a copy of desc and persist it. */
int
stable_set_desc(struct stable *t, const json_t *desc, struct ddb_err *err)
{
    struct storage *s = t->s;
    json_t *copy = json_clone(desc);
    int rc;

    if (copy == NULL)
        return ddb_err_set(err, DDB_INTERNAL,
                           "storage: cannot copy description");
    pthread_mutex_lock(&s->cat_mu);
    rc = catalog_put_desc(s, t->id, copy, err);
    pthread_mutex_unlock(&s->cat_mu);
    if (rc == 0) {
        catalog_install_desc(t, copy);
    } else {
        space_note(s, err);
        json_decref(copy);
    }
    return rc;
}

/*
 * Rename table name to new_name in the catalog and the map. The handle's
 * old name stays allocated (requests in flight may be using it).
 */
int
storage_table_rename(struct storage *s, const char *name,
                     const char *new_name, struct ddb_err *err)
{
    struct stable *t = NULL;
    char *old;
    bool exists;
    int rc = -1;

    pthread_mutex_lock(&s->ddl_mu);
    pthread_rwlock_rdlock(&s->map_mu);
    exists = storage_map_find(s, new_name) >= 0;
    pthread_rwlock_unlock(&s->map_mu);
    if (exists) {
        ddb_err_set(err, DDB_RESOURCE_IN_USE, "Table already exists: %s",
                    new_name);
        goto out;
    }
    t = storage_table_get(s, name);
    if (t == NULL) {
        ddb_err_set(err, DDB_RESOURCE_NOT_FOUND,
                    "Requested resource not found: Table: %s not found",
                    name);
        goto out;
    }
    if (catalog_begin(s, err) != 0)
        goto out;
    rc = catalog_run(s, err, "UPDATE tables SET name = ?1 WHERE id = ?2",
                     new_name, t->id, NULL);
    rc = catalog_finish(s, rc, err);
    if (rc != 0) {
        space_note(s, err);
        goto out;
    }
    pthread_rwlock_wrlock(&s->map_mu);
    storage_map_remove(s, name, t);
    pthread_mutex_lock(&t->split_mu);
    t->old_names = xrealloc(t->old_names,
                            (t->nold_names + 1) * sizeof(*t->old_names));
    old = atomic_exchange(&t->name, xstrdup(new_name));
    t->old_names[t->nold_names++] = old;
    pthread_mutex_unlock(&t->split_mu);
    storage_map_insert(s, t);
    pthread_rwlock_unlock(&s->map_mu);
out:
    pthread_mutex_unlock(&s->ddl_mu);
    stable_release(t);
    return rc;
}
