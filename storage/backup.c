/* SPDX-License-Identifier: MIT */
/* backup.c - backups: consistent copies of a set of tables (a table and its
 * hidden index tables) taken with SQLite's online backup while writes go
 * on, kept as one database file per partition under <backup dir>/<id>/ and
 * named in <backup dir>/backups.db (in memory for an in-memory store), and
 * restored into a new table before the catalog names it. A backup's
 * metadata is opaque here, as a table's description is. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "storage/json_fast.h"
#include "storage/partition_int.h"
#include "storage/storage_int.h"
#include "storage/util.h"

/* Pages copied per partition lock while writes go on: a lock is held for
 * about a millisecond (4 KB pages). */
#define BACKUP_STEP_PAGES 64

static const char bk_schema[] =
    "CREATE TABLE IF NOT EXISTS backups ("
    " seq INTEGER PRIMARY KEY AUTOINCREMENT, key TEXT NOT NULL UNIQUE,"
    " dir TEXT NOT NULL, meta TEXT NOT NULL, members TEXT NOT NULL)";

/* The databases of one in-memory backup, by file id. */
struct mem_backup {
    char dir[STORAGE_ID_LEN + 1];       /* the backup's id */
    char (*ids)[STORAGE_ID_LEN + 1];    /* owned: file ids, n */
    sqlite3 **dbs;                      /* owned: their connections */
    size_t n;
    struct mem_backup *next;
};

struct backups {
    pthread_mutex_t mu;                 /* guards db and mem */
    sqlite3 *db;                        /* backups.db, or in memory */
    char *dir;                          /* owned: the backup directory, NULL
                                           for an in-memory store */
    struct mem_backup *mem;             /* in-memory store: every backup's
                                           databases */
};

/* ------------------------------------------------------------------------
 * Files
 * ---------------------------------------------------------------------- */

/* fsync path (a file or a directory); errors are ignored: the catalog row
 * written after is what makes a backup exist. */
static void
sync_path(const char *path)
{
    sync_close(open(path, O_RDONLY | O_CLOEXEC), false);
}

static char *
file_path(const struct backups *b, const char *dir, const char *id)
{
    return xasprintf("%s/%s/%s.db", b->dir, dir, id);
}

static bool
is_id(const char *name)
{
    size_t i;

    for (i = 0; i < STORAGE_ID_LEN; i++)
        if (!((name[i] >= '0' && name[i] <= '9') ||
              (name[i] >= 'a' && name[i] <= 'f')))
            return false;
    return name[STORAGE_ID_LEN] == '\0';
}

/* Is dir the directory of a backup in the catalog? (At open.) */
static bool
dir_known(struct backups *b, const char *dir)
{
    sqlite3_stmt *st = NULL;
    bool known = true;              /* on error keep the files */

    if (sqlite3_prepare_v2(b->db, "SELECT 1 FROM backups WHERE dir = ?1",
                           -1, &st, NULL) == SQLITE_OK &&
        sqlite3_bind_text(st, 1, dir, -1, SQLITE_STATIC) == SQLITE_OK)
        known = sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    return known;
}

/*
 * Remove the directories of backups that never reached the catalog: a
 * backup is copied first and named last, so a crash (kill -9) while
 * copying leaves a directory nobody names, and the backup is absent.
 */
static void
sweep(struct backups *b)
{
    DIR *d = opendir(b->dir);
    struct dirent *e;

    if (d == NULL)
        return;
    while ((e = readdir(d)) != NULL) {
        char *path;

        if (!is_id(e->d_name) || dir_known(b, e->d_name))
            continue;
        path = xasprintf("%s/%s", b->dir, e->d_name);
        storage_remove_dir(path);
        free(path);
    }
    closedir(d);
}

/* ------------------------------------------------------------------------
 * Open and close
 * ---------------------------------------------------------------------- */

int
backups_open(struct storage *s, struct ddb_err *err)
{
    struct backups *b = xcalloc(1, sizeof(*b));
    char *path = NULL;
    int rc = -1;

    pthread_mutex_init(&b->mu, NULL);
    s->bk = b;
    if (s->data_dir != NULL) {
        b->dir = s->opts.backup_dir != NULL && s->opts.backup_dir[0] != '\0'
                     ? xstrdup(s->opts.backup_dir)
                     : xasprintf("%s/backups", s->data_dir);
        if (storage_mkdir_p(b->dir, err) != 0)
            goto out;
        path = xasprintf("%s/backups.db", b->dir);
    }
    b->db = storage_db_open(path, SQLITE_OPEN_READWRITE |
                            SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX, err);
    if (b->db == NULL)
        goto out;
    if (sqlite3_exec(b->db, "PRAGMA journal_mode=WAL; "
                     "PRAGMA synchronous=FULL;", NULL, NULL, NULL) !=
            SQLITE_OK ||
        sqlite3_exec(b->db, bk_schema, NULL, NULL, NULL) != SQLITE_OK) {
        storage_sql_err(b->db, "backups", err);
        goto out;
    }
    /* snapshots are passing copies: one a crash left goes (its files
     * with the sweep, as a directory no row names) */
    if (sqlite3_exec(b->db, "DELETE FROM backups WHERE substr(key, 1, "
                     "length('" STORAGE_SNAPSHOT_PREFIX "')) = '"
                     STORAGE_SNAPSHOT_PREFIX "'", NULL, NULL, NULL) !=
        SQLITE_OK) {
        storage_sql_err(b->db, "backups", err);
        goto out;
    }
    if (b->dir != NULL)
        sweep(b);
    rc = 0;
out:
    free(path);
    return rc;
}

static void
mem_free(struct mem_backup *m)
{
    for (size_t i = 0; i < m->n; i++)
        sqlite3_close(m->dbs[i]);
    free(m->dbs);
    free(m->ids);
    free(m);
}

void
backups_close(struct storage *s)
{
    struct backups *b = s->bk;

    if (b == NULL)
        return;
    while (b->mem != NULL) {
        struct mem_backup *m = b->mem;

        b->mem = m->next;
        mem_free(m);
    }
    sqlite3_close(b->db);
    pthread_mutex_destroy(&b->mu);
    free(b->dir);
    free(b);
    s->bk = NULL;
}

/* ------------------------------------------------------------------------
 * The catalog
 * ---------------------------------------------------------------------- */

/* One row of the catalog as JSON: {"key", "dir", "meta", "members"}, or
 * NULL when a stored text does not parse. */
static json_t *
row_json(sqlite3_stmt *st)
{
    const char *key = (const char *)sqlite3_column_text(st, 0);
    const char *dir = (const char *)sqlite3_column_text(st, 1);
    json_t *meta = json_loads((const char *)sqlite3_column_text(st, 2), 0,
                              NULL);
    json_t *members = json_loads((const char *)sqlite3_column_text(st, 3),
                                 0, NULL);

    if (key == NULL || dir == NULL || meta == NULL || members == NULL) {
        json_decref(meta);
        json_decref(members);
        return NULL;
    }
    return json_pack("{s:s, s:s, s:o, s:o}", "key", key, "dir", dir,
                     "meta", meta, "members", members);
}

/* The catalog rows whose key is key (NULL: all), oldest first, as a JSON
 * array (new reference); b->mu held. */
static json_t *
rows(struct backups *b, const char *key)
{
    sqlite3_stmt *st = NULL;
    json_t *out = json_array(), *r;

    if (sqlite3_prepare_v2(b->db, key != NULL
                                      ? "SELECT key, dir, meta, members "
                                        "FROM backups WHERE key = ?1"
                                      : "SELECT key, dir, meta, members "
                                        "FROM backups ORDER BY seq",
                           -1, &st, NULL) != SQLITE_OK ||
        (key != NULL &&
         sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC) != SQLITE_OK)) {
        sqlite3_finalize(st);
        return out;
    }
    while (sqlite3_step(st) == SQLITE_ROW)
        if ((r = row_json(st)) != NULL)
            json_array_append_new(out, r);
    sqlite3_finalize(st);
    return out;
}

/* The public view of a catalog row: the row without its directory. */
static json_t *
public_row(const json_t *row)
{
    json_t *out = json_clone(row);

    json_object_del(out, "dir");
    return out;
}

json_t *
storage_backup_list(struct storage *s)
{
    struct backups *b = s->bk;
    json_t *all, *out = json_array(), *r;
    size_t i;

    pthread_mutex_lock(&b->mu);
    all = rows(b, NULL);
    pthread_mutex_unlock(&b->mu);
    json_array_foreach(all, i, r)
        if (strncmp(json_string_value(json_object_get(r, "key")),
                    STORAGE_SNAPSHOT_PREFIX,
                    strlen(STORAGE_SNAPSHOT_PREFIX)) != 0)
            json_array_append_new(out, public_row(r));
    json_decref(all);
    return out;
}

/* The catalog row of key (new reference), or NULL. */
static json_t *
row_of(struct backups *b, const char *key)
{
    json_t *all, *r;

    pthread_mutex_lock(&b->mu);
    all = rows(b, key);
    pthread_mutex_unlock(&b->mu);
    r = json_incref(json_array_get(all, 0));
    json_decref(all);
    return r;
}

json_t *
storage_backup_get(struct storage *s, const char *key)
{
    json_t *r = row_of(s->bk, key), *out;

    if (r == NULL)
        return NULL;
    out = public_row(r);
    json_decref(r);
    return out;
}

/* ------------------------------------------------------------------------
 * Copying a set of tables
 * ---------------------------------------------------------------------- */

/* One partition being copied. */
struct copy_job {
    struct partition *p;                /* borrowed: the source */
    unsigned member;                    /* its table, in the caller's list */
    char id[STORAGE_ID_LEN + 1];        /* the copy's file id */
    sqlite3 *dest;                      /* owned until handed over */
    sqlite3_backup *bk;                 /* owned until finished */
};

struct copy {
    struct storage *s;
    struct stable **tables;             /* owned array, borrowed handles,
                                           sorted by address */
    size_t ntables;
    struct copy_job *jobs;              /* owned */
    size_t njobs;
    char dir[STORAGE_ID_LEN + 1];       /* the backup's id */
    char *path;                         /* owned: its directory, or NULL */
};

static int
ptr_cmp(const void *a, const void *b)
{
    uintptr_t x = (uintptr_t)*(void *const *)a;
    uintptr_t y = (uintptr_t)*(void *const *)b;

    return x < y ? -1 : x > y;
}

/* Open the destination of job j and start its backup (the source locked
 * for the start). */
static int
job_start(struct copy *c, struct copy_job *j, struct ddb_err *err)
{
    char *path = NULL;
    sqlite3 *src;

    storage_new_id(j->id);
    if (c->path != NULL)
        path = file_path(c->s->bk, c->dir, j->id);
    j->dest = storage_db_open(path, SQLITE_OPEN_READWRITE |
                              SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX,
                              err);
    free(path);
    if (j->dest == NULL)
        return -1;
    /* No fsync while the sources are locked: job_seal() makes the file
     * durable once they are not. */
    if (sqlite3_exec(j->dest, "PRAGMA synchronous=OFF", NULL, NULL,
                     NULL) != SQLITE_OK)
        return storage_sql_err(j->dest, "backup", err);
    partition_lock(j->p);
    src = partition_db_locked(j->p);
    if (src != NULL)
        j->bk = sqlite3_backup_init(j->dest, "main", src, "main");
    /* Copy nothing yet: from now on, writes to pages already copied reach
     * the copy too (SQLite's backup follows its source connection). */
    if (j->bk != NULL)
        (void)sqlite3_backup_step(j->bk, 0);
    partition_unlock(j->p);
    if (j->bk == NULL)
        return ddb_err_set(err, DDB_INTERNAL, "storage: backup: %s",
                           src != NULL ? sqlite3_errmsg(j->dest)
                                       : "partition retired");
    return 0;
}

/*
 * Copy all but the last page of job j, a few pages per lock, while writes
 * to the partition go on between the steps. SQLite restarts the backup of
 * an in-memory source at each commit, so under a steady write load this
 * gives up after twice the steps the source needs and leaves the rest to
 * finish_all().
 */
static int
job_bulk(struct copy_job *j, struct ddb_err *err)
{
    int budget = 2 * (sqlite3_backup_pagecount(j->bk) / BACKUP_STEP_PAGES +
                      1) + 8;

    for (;;) {
        int left, rc;

        partition_lock(j->p);
        left = sqlite3_backup_remaining(j->bk);
        if (left <= 1 || budget-- <= 0) {
            partition_unlock(j->p);
            return 0;
        }
        rc = sqlite3_backup_step(j->bk, left - 1 < BACKUP_STEP_PAGES
                                            ? left - 1
                                            : BACKUP_STEP_PAGES);
        partition_unlock(j->p);
        if (rc != SQLITE_OK && rc != SQLITE_DONE)
            return storage_sql_err(j->dest, "backup", err);
        if (rc == SQLITE_DONE)
            return 0;
    }
}

/*
 * The consistent cut: every source partition locked at once, in address
 * order (the order stable_txn locks in, so neither waits on the other),
 * each copy finished, then all unlocked. A transaction holds all of its
 * partitions locked while it writes, so it is in every copy or in none.
 */
static int
finish_all(struct copy *c, struct ddb_err *err)
{
    struct partition **ps = xcalloc(c->njobs + 1, sizeof(*ps));
    size_t n = 0, i;
    int rc = 0;

    for (i = 0; i < c->njobs; i++)
        ps[n++] = c->jobs[i].p;
    qsort(ps, n, sizeof(*ps), ptr_cmp);
    for (i = 0; i < n; i++)
        if (i == 0 || ps[i] != ps[i - 1])
            partition_lock(ps[i]);
    for (i = 0; i < c->njobs && rc == 0; i++)
        if (sqlite3_backup_step(c->jobs[i].bk, -1) != SQLITE_DONE)
            rc = storage_sql_err(c->jobs[i].dest, "backup", err);
    for (i = n; i > 0; i--)
        if (i == 1 || ps[i - 1] != ps[i - 2])
            partition_unlock(ps[i - 1]);
    free(ps);
    return rc;
}

/* Release a job's backup object (source locked: finishing detaches it
 * from the source connection). */
static void
job_finish(struct copy_job *j)
{
    if (j->bk == NULL)
        return;
    partition_lock(j->p);
    sqlite3_backup_finish(j->bk);
    partition_unlock(j->p);
    j->bk = NULL;
}

/* Count job j's items and bytes into the member's totals. */
static int
job_count(struct copy_job *j, json_t *m, struct ddb_err *err)
{
    sqlite3_stmt *st = NULL;
    int rc = -1;

    if (sqlite3_prepare_v2(j->dest, "SELECT count(*), coalesce(sum(size),"
                           " 0) FROM items", -1, &st, NULL) != SQLITE_OK ||
        sqlite3_step(st) != SQLITE_ROW) {
        storage_sql_err(j->dest, "backup", err);
        goto out;
    }
    json_object_set_new(m, "items",
                        json_integer(json_integer_value(json_object_get(
                                         m, "items")) +
                                     sqlite3_column_int64(st, 0)));
    json_object_set_new(m, "bytes",
                        json_integer(json_integer_value(json_object_get(
                                         m, "bytes")) +
                                     sqlite3_column_int64(st, 1)));
    rc = 0;
out:
    sqlite3_finalize(st);
    return rc;
}

/* A finished file copy made a plain (rollback-journal) database file and
 * durable, then closed. */
static int
job_seal(struct copy *c, struct copy_job *j, struct ddb_err *err)
{
    char *path = file_path(c->s->bk, c->dir, j->id);
    int rc = 0;

    if (sqlite3_exec(j->dest, "PRAGMA journal_mode=DELETE", NULL, NULL,
                     NULL) != SQLITE_OK)
        rc = storage_sql_err(j->dest, "backup", err);
    sqlite3_close(j->dest);
    j->dest = NULL;
    if (rc == 0)
        sync_path(path);
    free(path);
    return rc;
}

/* The members list stored in the catalog: per table its name, file ids
 * and totals. */
static json_t *
members_json(struct copy *c, struct stable *const *tables, size_t n)
{
    json_t *out = json_array();

    for (size_t m = 0; m < n; m++)
        json_array_append_new(out, json_pack("{s:s, s:[], s:I, s:I}",
                                             "name", stable_name(tables[m]),
                                             "files", "items",
                                             (json_int_t)0, "bytes",
                                             (json_int_t)0));
    for (size_t i = 0; i < c->njobs; i++)
        json_array_append_new(json_object_get(json_array_get(out,
                                                             c->jobs[i].member),
                                              "files"),
                              json_string(c->jobs[i].id));
    return out;
}

/* Name the backup in the catalog: the step that makes it exist. */
static int
catalog_add(struct backups *b, const char *key, const char *dir,
            const json_t *meta, const json_t *members, struct ddb_err *err)
{
    sqlite3_stmt *st = NULL;
    char *mt = json_text(meta, JSON_COMPACT);
    char *mb = json_text(members, JSON_COMPACT);
    int rc = -1;

    if (mt == NULL || mb == NULL) {
        ddb_err_set(err, DDB_INTERNAL, "storage: backup: cannot encode");
        goto out;
    }
    if (sqlite3_prepare_v2(b->db, "INSERT INTO backups (key, dir, meta, "
                           "members) VALUES (?1, ?2, ?3, ?4)", -1, &st,
                           NULL) != SQLITE_OK ||
        sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC) != SQLITE_OK ||
        sqlite3_bind_text(st, 2, dir, -1, SQLITE_STATIC) != SQLITE_OK ||
        sqlite3_bind_text(st, 3, mt, -1, SQLITE_STATIC) != SQLITE_OK ||
        sqlite3_bind_text(st, 4, mb, -1, SQLITE_STATIC) != SQLITE_OK) {
        storage_sql_err(b->db, "backups", err);
        goto out;
    }
    if (sqlite3_step(st) != SQLITE_DONE) {
        if (sqlite3_extended_errcode(b->db) == SQLITE_CONSTRAINT_UNIQUE)
            ddb_err_set(err, DDB_RESOURCE_IN_USE, "Backup already exists");
        else
            storage_sql_err(b->db, "backups", err);
        goto out;
    }
    rc = 0;
out:
    sqlite3_finalize(st);
    free(mt);
    free(mb);
    return rc;
}

/* Keep an in-memory backup's databases (taken from the jobs). */
static void
mem_keep(struct backups *b, struct copy *c)
{
    struct mem_backup *m = xcalloc(1, sizeof(*m));

    snprintf(m->dir, sizeof(m->dir), "%s", c->dir);
    m->n = c->njobs;
    m->ids = xcalloc(c->njobs + 1, sizeof(*m->ids));
    m->dbs = xcalloc(c->njobs + 1, sizeof(*m->dbs));
    for (size_t i = 0; i < c->njobs; i++) {
        memcpy(m->ids[i], c->jobs[i].id, sizeof(m->ids[i]));
        m->dbs[i] = c->jobs[i].dest;
        c->jobs[i].dest = NULL;
    }
    m->next = b->mem;
    b->mem = m;
}

/*
 * Copy tables[0..n) as backup key (see storage.h). Each table's layout is
 * pinned (its split_mu, taken in address order) while it is copied, so
 * the partitions copied are the table's partitions throughout.
 */
int
storage_backup_create(struct storage *s, const char *key,
                      struct stable *const *tables, size_t n,
                      const json_t *meta, struct ddb_err *err)
{
    struct backups *b = s->bk;
    struct copy c;
    json_t *members = NULL;
    size_t i, m;
    int rc = -1;

    memset(&c, 0, sizeof(c));
    c.s = s;
    if (n == 0)
        return ddb_err_set(err, DDB_INTERNAL, "storage: empty backup");
    if (space_admit(s, err) != 0)
        return -1;
    c.tables = xcalloc(n, sizeof(*c.tables));
    memcpy(c.tables, tables, n * sizeof(*c.tables));
    c.ntables = n;
    qsort(c.tables, n, sizeof(*c.tables), ptr_cmp);
    for (i = 0; i < n; i++)
        pthread_mutex_lock(&c.tables[i]->split_mu);
    storage_new_id(c.dir);
    if (b->dir != NULL) {
        c.path = xasprintf("%s/%s", b->dir, c.dir);
        if (storage_mkdir_p(c.path, err) != 0)
            goto out;
    }
    for (m = 0; m < n; m++)
        c.njobs += playout_of(tables[m])->map.n;
    c.jobs = xcalloc(c.njobs, sizeof(*c.jobs));
    c.njobs = 0;
    for (m = 0; m < n; m++) {
        const struct playout *l = playout_of(tables[m]);

        for (i = 0; i < l->map.n; i++) {
            c.jobs[c.njobs].p = l->parts[i];
            c.jobs[c.njobs].member = (unsigned)m;
            c.njobs++;
            if (job_start(&c, &c.jobs[c.njobs - 1], err) != 0)
                goto out;
        }
    }
    for (i = 0; i < c.njobs; i++)
        if (job_bulk(&c.jobs[i], err) != 0)
            goto out;
    if (finish_all(&c, err) != 0)
        goto out;
    for (i = 0; i < c.njobs; i++)
        job_finish(&c.jobs[i]);
    for (i = n; i > 0; i--)             /* the copy is whole: splits may go */
        pthread_mutex_unlock(&c.tables[i - 1]->split_mu);
    n = 0;
    members = members_json(&c, tables, c.ntables);
    for (i = 0; i < c.njobs; i++) {
        if (job_count(&c.jobs[i], json_array_get(members,
                                                  c.jobs[i].member),
                      err) != 0)
            goto out;
        if (c.path != NULL && job_seal(&c, &c.jobs[i], err) != 0)
            goto out;
    }
    if (c.path != NULL) {
        sync_path(c.path);
        sync_path(b->dir);
    }
    pthread_mutex_lock(&b->mu);
    rc = catalog_add(b, key, c.dir, meta, members, err);
    if (rc == 0 && c.path == NULL)
        mem_keep(b, &c);
    pthread_mutex_unlock(&b->mu);
out:
    for (i = 0; i < c.njobs; i++) {
        job_finish(&c.jobs[i]);
        sqlite3_close(c.jobs[i].dest);
    }
    for (i = n; i > 0; i--)
        pthread_mutex_unlock(&c.tables[i - 1]->split_mu);
    if (rc != 0 && c.path != NULL)
        storage_remove_dir(c.path);
    if (rc != 0)
        space_note(s, err);
    json_decref(members);
    free(c.jobs);
    free(c.tables);
    free(c.path);
    return rc;
}

/* ------------------------------------------------------------------------
 * Deleting
 * ---------------------------------------------------------------------- */

int
storage_backup_delete(struct storage *s, const char *key,
                      struct ddb_err *err)
{
    struct backups *b = s->bk;
    sqlite3_stmt *st = NULL;
    json_t *row = row_of(b, key);
    const char *dir;
    char *path;
    int rc = -1;

    if (row == NULL)
        return ddb_err_set(err, DDB_RESOURCE_NOT_FOUND, "Backup not found");
    dir = json_string_value(json_object_get(row, "dir"));
    pthread_mutex_lock(&b->mu);
    if (sqlite3_prepare_v2(b->db, "DELETE FROM backups WHERE key = ?1", -1,
                           &st, NULL) != SQLITE_OK ||
        sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC) != SQLITE_OK ||
        sqlite3_step(st) != SQLITE_DONE) {
        storage_sql_err(b->db, "backups", err);
        goto out;
    }
    if (sqlite3_changes(b->db) == 0) {  /* another delete won */
        ddb_err_set(err, DDB_RESOURCE_NOT_FOUND, "Backup not found");
        goto out;
    }
    /* forgotten: the files go now (or, after a crash, at the next open) */
    if (b->dir != NULL) {
        path = xasprintf("%s/%s", b->dir, dir);
        storage_remove_dir(path);
        free(path);
    } else {
        for (struct mem_backup **pm = &b->mem; *pm != NULL;
             pm = &(*pm)->next) {
            struct mem_backup *mb = *pm;

            if (strcmp(mb->dir, dir) == 0) {
                *pm = mb->next;
                mem_free(mb);
                break;
            }
        }
    }
    rc = 0;
out:
    pthread_mutex_unlock(&b->mu);
    sqlite3_finalize(st);
    json_decref(row);
    return rc;
}

/* ------------------------------------------------------------------------
 * Restoring one member into a new table
 * ---------------------------------------------------------------------- */

struct restore {
    struct backups *b;
    const char *dir;                    /* the backup's id */
    const json_t *files;                /* the member's file ids */
    struct mem_backup *mem;             /* in memory: its databases */
};

/* The source database of file id (file: opened read-only, the caller
 * closes it; memory: borrowed, *owned false). */
static sqlite3 *
source_open(struct restore *r, const char *id, bool *owned,
            struct ddb_err *err)
{
    char *path;
    sqlite3 *db;

    *owned = false;
    if (r->mem != NULL) {
        for (size_t i = 0; i < r->mem->n; i++)
            if (strcmp(r->mem->ids[i], id) == 0)
                return r->mem->dbs[i];
        ddb_err_set(err, DDB_INTERNAL, "storage: backup file missing");
        return NULL;
    }
    path = file_path(r->b, r->dir, id);
    db = storage_db_open(path, SQLITE_OPEN_READONLY | SQLITE_OPEN_FULLMUTEX,
                         err);
    free(path);
    *owned = db != NULL;
    return db;
}

/* Copy the items of src into the partitions of l, each row to the
 * partition owning its hash. The inserts run in l's open transactions. */
static int
copy_items(sqlite3 *src, struct playout *l, sqlite3_stmt **ins,
           struct ddb_err *err)
{
    sqlite3_stmt *st = NULL;
    int rc = -1, step;

    if (sqlite3_prepare_v2(src, "SELECT h, pk, sk, size, item FROM items",
                           -1, &st, NULL) != SQLITE_OK) {
        storage_sql_err(src, "restore", err);
        goto out;
    }
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        const uint8_t *h = sqlite3_column_blob(st, 0);
        unsigned i = h != NULL && sqlite3_column_bytes(st, 0) >= 8
                         ? partmap_find(&l->map, storage_be64(h))
                         : 0;
        sqlite3_stmt *in = ins[i];
        int bound = SQLITE_OK;

        for (int c = 0; c < 5 && bound == SQLITE_OK; c++)
            bound = sqlite3_bind_value(in, c + 1, sqlite3_column_value(st,
                                                                       c));
        if (bound != SQLITE_OK || sqlite3_step(in) != SQLITE_DONE) {
            storage_sql_err(sqlite3_db_handle(in), "restore", err);
            sqlite3_reset(in);
            goto out;
        }
        sqlite3_reset(in);
    }
    if (step != SQLITE_DONE) {
        storage_sql_err(src, "restore", err);
        goto out;
    }
    rc = 0;
out:
    sqlite3_finalize(st);
    return rc;
}

/* Rows being loaded into a new table's partitions (l: open, seen by
 * nobody yet), one open transaction and insert statement per partition. */
struct storage_rows {
    struct playout *l;
    sqlite3_stmt **ins;
    struct json_fast_buf buf;           /* an item's text */
};

/* What fills a new table: fn with its argument. */
struct rows_job {
    storage_rows_fn *fn;
    void *arg;
};

int
storage_rows_put(struct storage_rows *r, const struct item_key *k,
                 const json_t *item, size_t size, struct ddb_err *err)
{
    sqlite3_stmt *in = r->ins[partmap_find(&r->l->map,
                                           storage_be64(k->hash))];
    char *text = NULL;
    const char *p;
    size_t n;
    int rc;

    r->buf.len = 0;
    if (json_fast_dump(item, &r->buf) == 0) {
        p = r->buf.p;
        n = r->buf.len;
    } else {
        p = text = json_text(item, JSON_COMPACT);
        if (text == NULL)
            return ddb_err_set(err, DDB_INTERNAL,
                               "storage: cannot encode item");
        n = strlen(text);
    }
    rc = sqlite3_bind_blob(in, 1, k->hash, sizeof(k->hash),
                           SQLITE_STATIC) != SQLITE_OK ||
         sqlite3_bind_blob(in, 2, k->pk, (int)k->pk_len,
                           SQLITE_STATIC) != SQLITE_OK ||
         sqlite3_bind_blob(in, 3, k->sk, (int)k->sk_len,
                           SQLITE_STATIC) != SQLITE_OK ||
         sqlite3_bind_int64(in, 4, (sqlite3_int64)size) != SQLITE_OK ||
         sqlite3_bind_text(in, 5, p, (int)n, SQLITE_STATIC) != SQLITE_OK ||
         sqlite3_step(in) != SQLITE_DONE;
    if (rc != 0)
        storage_sql_err(sqlite3_db_handle(in), "restore", err);
    sqlite3_reset(in);
    free(text);
    return rc ? -1 : 0;
}

/* catalog_fill_fn: the job's rows into the new table's partitions, in one
 * transaction each, made durable. */
static int
rows_fill(void *arg, struct playout *l, struct ddb_err *err)
{
    struct rows_job *j = arg;
    struct storage_rows r;
    unsigned i, begun = 0;
    int rc = -1;

    memset(&r, 0, sizeof(r));
    r.l = l;
    r.ins = xcalloc(l->map.n, sizeof(*r.ins));
    for (i = 0; i < l->map.n; i++) {
        sqlite3 *db = partition_db_locked(l->parts[i]);

        if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) !=
            SQLITE_OK) {
            storage_sql_err(db, "restore", err);
            goto out;
        }
        begun++;
        if (sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO items (h, pk, "
                               "sk, size, item) VALUES (?1, ?2, ?3, ?4, "
                               "?5)", -1, &r.ins[i], NULL) != SQLITE_OK) {
            storage_sql_err(db, "restore", err);
            goto out;
        }
    }
    if (j->fn(j->arg, &r, err) != 0)
        goto out;
    for (i = 0; i < l->map.n; i++) {
        sqlite3 *db = partition_db_locked(l->parts[i]);

        sqlite3_finalize(r.ins[i]);
        r.ins[i] = NULL;
        if (sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
            storage_sql_err(db, "restore", err);
            goto out;
        }
        (void)ckpt_full_locked(l->parts[i]);
    }
    rc = 0;
out:
    for (i = 0; i < l->map.n; i++) {
        sqlite3 *db = partition_db_locked(l->parts[i]);

        sqlite3_finalize(r.ins[i]);
        if (i < begun && !sqlite3_get_autocommit(db))
            sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    }
    free(r.ins);
    free(r.buf.p);
    return rc;
}

int
storage_table_create_rows(struct storage *s, const char *name,
                          const json_t *desc, unsigned nparts,
                          storage_rows_fn *fn, void *arg,
                          struct ddb_err *err)
{
    struct rows_job j = { fn, arg };

    return catalog_table_create(s, name, desc, nparts, rows_fill, &j, err);
}

/* storage_rows_fn: the member's items, from each of its files. */
static int
restore_rows(void *arg, struct storage_rows *rows, struct ddb_err *err)
{
    struct restore *r = arg;
    size_t f;

    for (f = 0; f < json_array_size(r->files); f++) {
        bool owned;
        int rc;
        sqlite3 *src = source_open(r, json_string_value(
                                          json_array_get(r->files, f)),
                                   &owned, err);

        if (src == NULL)
            return -1;
        rc = copy_items(src, rows->l, rows->ins, err);
        if (owned)
            sqlite3_close(src);
        if (rc != 0)
            return -1;
    }
    return 0;
}

/* Visit the items of src (fn as stable_scan's). */
static int
scan_items(sqlite3 *src, stable_row_fn *fn, void *arg, struct ddb_err *err)
{
    sqlite3_stmt *st = NULL;
    int rc = -1, step, r = 0;

    if (sqlite3_prepare_v2(src, "SELECT h, pk, sk, size, item FROM items",
                           -1, &st, NULL) != SQLITE_OK) {
        storage_sql_err(src, "backup", err);
        goto out;
    }
    while (r == 0 && (step = sqlite3_step(st)) == SQLITE_ROW) {
        struct item_key k;
        json_t *item;
        int hn = sqlite3_column_bytes(st, 0);

        memset(&k, 0, sizeof(k));
        if (hn > 0)
            memcpy(k.hash, sqlite3_column_blob(st, 0),
                   (size_t)hn < sizeof(k.hash) ? (size_t)hn
                                               : sizeof(k.hash));
        k.pk_len = (size_t)sqlite3_column_bytes(st, 1);
        k.sk_len = (size_t)sqlite3_column_bytes(st, 2);
        if (k.pk_len > sizeof(k.pk) || k.sk_len > sizeof(k.sk)) {
            ddb_err_set(err, DDB_INTERNAL, "storage: backup key too long");
            goto out;
        }
        if (k.pk_len > 0)
            memcpy(k.pk, sqlite3_column_blob(st, 1), k.pk_len);
        if (k.sk_len > 0)
            memcpy(k.sk, sqlite3_column_blob(st, 2), k.sk_len);
        item = part_item_parse(st, 4, err);
        if (item == NULL)
            goto out;
        r = fn(arg, &k, item, (size_t)sqlite3_column_int64(st, 3), err);
        json_decref(item);
        if (r < 0)
            goto out;
    }
    if (r == 0 && step != SQLITE_DONE) {
        storage_sql_err(src, "backup", err);
        goto out;
    }
    rc = 0;
out:
    sqlite3_finalize(st);
    return rc;
}

/* The restore state of member of backup key: 0, or -1 with err set.
 * In memory, b->mu is taken and kept (the caller releases it). */
static int
restore_open(struct backups *b, const char *key, const char *member,
             json_t **row, struct restore *r, struct ddb_err *err)
{
    json_t *m;
    size_t i;

    memset(r, 0, sizeof(*r));
    *row = row_of(b, key);
    if (*row == NULL)
        return ddb_err_set(err, DDB_RESOURCE_NOT_FOUND, "Backup not found");
    r->b = b;
    r->dir = json_string_value(json_object_get(*row, "dir"));
    json_array_foreach(json_object_get(*row, "members"), i, m)
        if (json_str_is(json_object_get(m, "name"), member))
            r->files = json_object_get(m, "files");
    if (r->files == NULL)
        return ddb_err_set(err, DDB_INTERNAL, "storage: backup has no "
                           "table %s", member);
    if (b->dir == NULL) {
        /* in memory: the databases stay ours until the caller is done */
        pthread_mutex_lock(&b->mu);
        for (r->mem = b->mem; r->mem != NULL; r->mem = r->mem->next)
            if (strcmp(r->mem->dir, r->dir) == 0)
                break;
        if (r->mem == NULL) {
            pthread_mutex_unlock(&b->mu);
            return ddb_err_set(err, DDB_RESOURCE_NOT_FOUND,
                               "Backup not found");
        }
    }
    return 0;
}

int
storage_backup_scan(struct storage *s, const char *key, const char *member,
                    stable_row_fn *fn, void *arg, struct ddb_err *err)
{
    struct backups *b = s->bk;
    struct restore r;
    json_t *row = NULL;
    size_t f;
    int rc = -1;

    if (restore_open(b, key, member, &row, &r, err) != 0) {
        json_decref(row);
        return -1;
    }
    for (f = 0; f < json_array_size(r.files); f++) {
        bool owned;
        sqlite3 *src = source_open(&r, json_string_value(
                                           json_array_get(r.files, f)),
                                   &owned, err);

        if (src == NULL)
            goto out;
        rc = scan_items(src, fn, arg, err);
        if (owned)
            sqlite3_close(src);
        if (rc != 0)
            goto out;
        rc = -1;
    }
    rc = 0;
out:
    if (r.mem != NULL)
        pthread_mutex_unlock(&b->mu);
    json_decref(row);
    return rc;
}

int
storage_backup_restore(struct storage *s, const char *key,
                       const char *member, const char *name,
                       const json_t *desc, unsigned nparts,
                       struct ddb_err *err)
{
    struct backups *b = s->bk;
    struct restore r;
    json_t *row = NULL;
    int rc = -1;

    if (restore_open(b, key, member, &row, &r, err) == 0) {
        rc = storage_table_create_rows(s, name, desc, nparts, restore_rows,
                                       &r, err);
        if (r.mem != NULL)
            pthread_mutex_unlock(&b->mu);
    }
    json_decref(row);
    return rc;
}
