/* SPDX-License-Identifier: MIT */
/* space.c - a full disk: SQLite failures classified as "disk full"
 * (DDB_STORAGE_FULL, a message without server paths), <data_dir>/RESERVE
 * (space set aside at open and given back when the disk fills, so that
 * DeleteTable can still commit), and the full state that refuses writes
 * needing new space until statvfs shows room again. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "storage/storage_int.h"
#include "storage/util.h"

/* Room beyond the reserve's own size that must be free before writes
 * resume, so that the first one does not fill the disk again at once. */
#define SPACE_RESUME_MIN (1u << 20)

/* Does this errno mean "no room"? A quota (EDQUOT) and a file size limit
 * (EFBIG, RLIMIT_FSIZE) are a full disk to the user too. */
static bool
errno_is_full(int e)
{
    return e == ENOSPC || e == EDQUOT || e == EFBIG;
}

int
storage_sql_err(sqlite3 *db, const char *what, struct ddb_err *err)
{
    int code = db != NULL ? sqlite3_errcode(db) : SQLITE_NOMEM;

    /* SQLite reports a short write as SQLITE_FULL, and a failed write,
     * fsync or truncate as SQLITE_IOERR_* with the errno kept aside. */
    if (code == SQLITE_FULL ||
        (code == SQLITE_IOERR && errno_is_full(sqlite3_system_errno(db))))
        return ddb_err_set(err, DDB_STORAGE_FULL, STORAGE_FULL_MSG);
    return ddb_err_set(err, DDB_INTERNAL, "storage: %s: %s", what,
                       db != NULL ? sqlite3_errmsg(db) : "out of memory");
}

/* Give the reserve's space back (s->space_mu held or at open). */
static void
reserve_release(struct storage *s)
{
    if (s->reserve_fd >= 0 && ftruncate(s->reserve_fd, 0) != 0) {
        (void)close(s->reserve_fd);     /* cannot shrink it: stop using it */
        s->reserve_fd = -1;
    }
}

/* Allocate the reserve (s->space_mu held or at open). 0 once its blocks
 * are on disk, -1 (and nothing kept) when they do not fit. */
static int
reserve_fill(struct storage *s)
{
    int rc;

    if (s->reserve_fd < 0 || s->opts.disk_reserve == 0)
        return 0;
    rc = posix_fallocate(s->reserve_fd, 0, (off_t)s->opts.disk_reserve);
    if (rc == EOPNOTSUPP || rc == EINVAL) {
        /* no fallocate here: write zeros, which takes the blocks too */
        static const char zero[65536];
        uint64_t off = 0;

        rc = 0;
        while (off < s->opts.disk_reserve && rc == 0) {
            size_t n = s->opts.disk_reserve - off < sizeof(zero)
                           ? (size_t)(s->opts.disk_reserve - off)
                           : sizeof(zero);
            ssize_t w = pwrite(s->reserve_fd, zero, n, (off_t)off);

            if (w <= 0)
                rc = w < 0 ? errno : ENOSPC;
            else
                off += (uint64_t)w;
        }
        if (rc == 0 && fdatasync(s->reserve_fd) != 0)
            rc = errno;
    }
    if (rc != 0) {
        reserve_release(s);
        return -1;
    }
    return 0;
}

/*
 * Open or create <data_dir>/RESERVE and allocate it. A disk already too
 * full for it starts the store in the full state (reads and DeleteTable
 * work; writes wait for room), rather than refusing to start: freeing
 * space through the API needs a running server.
 */
void
space_open(struct storage *s)
{
    char *path;

    s->reserve_fd = -1;
    if (s->data_dir == NULL || s->opts.disk_reserve == 0)
        return;
    path = xasprintf("%s/RESERVE", s->data_dir);
    s->reserve_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    free(path);
    if (s->reserve_fd >= 0 && reserve_fill(s) != 0)
        atomic_store(&s->full, true);
}

void
space_close(struct storage *s)
{
    if (s->reserve_fd >= 0)
        (void)close(s->reserve_fd);
    s->reserve_fd = -1;
}

/* Bytes an unprivileged writer may still use on the data directory's file
 * system; UINT64_MAX when statvfs cannot tell. */
static uint64_t
space_free(const struct storage *s)
{
    struct statvfs sv;

    if (s->data_dir == NULL || statvfs(s->data_dir, &sv) != 0)
        return UINT64_MAX;
    return (uint64_t)sv.f_bavail * (uint64_t)sv.f_frsize;
}

int
space_admit(struct storage *s, struct ddb_err *err)
{
    bool full;

    if (!atomic_load_explicit(&s->full, memory_order_relaxed))
        return 0;
    pthread_mutex_lock(&s->space_mu);
    if (atomic_load(&s->full) &&
        space_free(s) >= 2 * s->opts.disk_reserve + SPACE_RESUME_MIN &&
        reserve_fill(s) == 0)
        atomic_store(&s->full, false);
    full = atomic_load(&s->full);
    pthread_mutex_unlock(&s->space_mu);
    return full ? ddb_err_set(err, DDB_STORAGE_FULL, STORAGE_FULL_MSG) : 0;
}

int
space_note(struct storage *s, const struct ddb_err *err)
{
    if (err == NULL || err->type != DDB_STORAGE_FULL)
        return -1;
    pthread_mutex_lock(&s->space_mu);
    if (!atomic_load(&s->full)) {
        atomic_store(&s->full, true);
        reserve_release(s);
    }
    pthread_mutex_unlock(&s->space_mu);
    return -1;
}
