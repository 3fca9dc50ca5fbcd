/* SPDX-License-Identifier: MIT */
/* store.c - the store on disk and its start-up: the data directory
 * (<data_dir>/LOCK, catalog.db, tables/<table id>/<partition id>.db),
 * storage_open() with the recovery it runs before serving (journal replay,
 * orphan sweep) and storage_close(). catalog.c keeps the catalog, table.c
 * the open tables. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <openssl/rand.h>

#include "storage/storage_int.h"
#include "storage/util.h"

/* ------------------------------------------------------------------------
 * Files and ids
 * ---------------------------------------------------------------------- */

void
storage_new_id(char out[STORAGE_ID_LEN + 1])
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

int
storage_mkdir_p(const char *path, struct ddb_err *err)
{
    char *p = xstrdup(path);
    int rc = -1;

    for (char *c = p + 1; *c; c++) {
        if (*c != '/')
            continue;
        *c = '\0';
        if (mkdir(p, 0700) != 0 && errno != EEXIST)
            goto out;
        *c = '/';
    }
    if (mkdir(p, 0700) != 0 && errno != EEXIST)
        goto out;
    rc = 0;
out:
    if (rc != 0) {
        if (errno == ENOSPC || errno == EDQUOT)
            ddb_err_set(err, DDB_STORAGE_FULL, STORAGE_FULL_MSG);
        else
            ddb_err_set(err, DDB_INTERNAL, "storage: cannot create a "
                        "directory: %s", strerror(errno));
    }
    free(p);
    return rc;
}

int
storage_touch(const char *path, struct ddb_err *err)
{
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);

    if (fd < 0) {
        if (errno == ENOSPC || errno == EDQUOT)
            return ddb_err_set(err, DDB_STORAGE_FULL, STORAGE_FULL_MSG);
        return ddb_err_set(err, DDB_INTERNAL, "storage: cannot create a "
                           "file: %s", strerror(errno));
    }
    (void)close(fd);
    return 0;
}

void
storage_sync_dir(const struct storage *s, const char *dir)
{
    if (s->opts.durability != STORAGE_DURABLE_POWER || dir == NULL)
        return;
    sync_close(open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), false);
}

void
storage_remove_dir(const char *dir)
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

char *
storage_part_path(const char *dir, const char *part_id)
{
    return xasprintf("%s/%s.db", dir, part_id);
}

static sqlite3 *
db_open(const char *path, int flags, const char *vfs, struct ddb_err *err)
{
    sqlite3 *db = NULL;

    if ((path != NULL && (flags & SQLITE_OPEN_CREATE) &&
         storage_touch(path, err) != 0))
        return NULL;
    if (sqlite3_open_v2(path ? path : ":memory:", &db, flags, vfs) !=
        SQLITE_OK) {
        storage_sql_err(db, "open", err);
        sqlite3_close(db);
        return NULL;
    }
    sqlite3_busy_timeout(db, STORAGE_BUSY_TIMEOUT_MS);
    return db;
}

sqlite3 *
storage_db_open(const char *path, int flags, struct ddb_err *err)
{
    return db_open(path, flags, storage_vfs(), err);
}

sqlite3 *
storage_part_db_open(const char *path, int flags, struct ddb_err *err)
{
    return db_open(path, flags, storage_vfs_excl(), err);
}

/* ------------------------------------------------------------------------
 * Start-up recovery: files nobody names
 * ---------------------------------------------------------------------- */

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
    const struct playout *l = playout_of(t);
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
        struct stable *t;
        char *path;

        if (!is_id_name(e->d_name, true))
            continue;                   /* not ours: leave it */
        path = xasprintf("%s/%s", tdir, e->d_name);
        t = storage_table_by_id(s, e->d_name);
        if (t == NULL) {
            storage_remove_dir(path);
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
storage_open_opts(const char *data_dir, const struct storage_opts *opts,
                  struct ddb_err *err)
{
    struct storage *s = xcalloc(1, sizeof(*s));
    char *path = NULL, *tdir = NULL;
    int rc = -1;

    s->lock_fd = -1;
    s->reserve_fd = -1;
    if (opts != NULL)
        s->opts = *opts;
    atomic_init(&s->full, false);
    pthread_mutex_init(&s->space_mu, NULL);
    pthread_mutex_init(&s->cat_mu, NULL);
    pthread_mutex_init(&s->ddl_mu, NULL);
    pthread_rwlock_init(&s->map_mu, NULL);
    if (data_dir != NULL) {
        raise_fd_limit();
        s->data_dir = xstrdup(data_dir);
        tdir = xasprintf("%s/tables", data_dir);
        if (storage_mkdir_p(tdir, err) != 0) {
            char why[256];

            snprintf(why, sizeof(why), "%.200s", err->msg);
            ddb_err_set(err, DDB_INTERNAL, "%s (%s)", why, tdir);
            goto out;
        }
        /* one process per data directory: partitions are opened through
         * SQLite's "unix-excl" VFS (storage/vfs.c), which locks them for
         * this process alone, and the orphan sweep below assumes nobody
         * else is creating files */
        path = xasprintf("%s/LOCK", data_dir);
        s->lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
        if (s->lock_fd < 0 || flock(s->lock_fd, LOCK_EX | LOCK_NB) != 0) {
            ddb_err_set(err, DDB_INTERNAL,
                        "storage: data directory %s is in use by another "
                        "process (%s)", data_dir, strerror(errno));
            goto out;
        }
        free(path);
        path = xasprintf("%s/catalog.db", data_dir);
        space_open(s);                  /* space.c: the reserve */
        if (s->opts.checkpoint_pages > 0)
            s->ckpt = ckpt_start();     /* before partitions open */
    }
    if (catalog_open(s, path, err) != 0)
        goto out;
    if (s->data_dir != NULL) {
        storage_sync_dir(s, tdir);
        storage_sync_dir(s, data_dir);
    }
    /* txn.c: before serving. A disk too full for the replay gets the
     * reserve back and tries once more. */
    if (txn_journal_replay(s, err) != 0 &&
        (space_note(s, err), txn_journal_replay(s, err) != 0))
        goto out;
    if (s->data_dir != NULL)
        sweep_orphans(s);
    if (backups_open(s, err) != 0)      /* backup.c */
        goto out;
    rc = 0;
out:
    free(path);
    free(tdir);
    if (rc != 0) {
        storage_close(s);
        return NULL;
    }
    return s;
}

bool
storage_checkpointing(struct storage *s)
{
    return ckpt_holding(s->ckpt);
}

void
storage_on_checkpoint_done(struct storage *s, void (*fn)(void *), void *arg)
{
    ckpt_set_wake(s->ckpt, fn, arg);
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
    backups_close(s);
    for (size_t i = 0; i < s->ntables; i++)
        stable_release(s->tables[i]);
    free(s->tables);
    ckpt_stop(s->ckpt);                 /* every partition detached */
    sqlite3_close(s->cat);
    pthread_rwlock_destroy(&s->map_mu);
    pthread_mutex_destroy(&s->ddl_mu);
    pthread_mutex_destroy(&s->cat_mu);
    space_close(s);
    pthread_mutex_destroy(&s->space_mu);
    free(s->data_dir);
    if (s->lock_fd >= 0)
        close(s->lock_fd);              /* releases the flock */
    free(s);
}

struct storage *
storage_open(const char *data_dir, struct ddb_err *err)
{
    return storage_open_opts(data_dir, NULL, err);
}
