/* SPDX-License-Identifier: MIT */
/* vfs.c - the WAL written in whole blocks, one system call per frame.
 *
 * SQLite appends a frame to the WAL as two writes: its 24-byte header,
 * then the page. Each is a pwrite(), and a PutItem commits one frame, so
 * half of its WAL system calls carry 24 bytes. This VFS wraps SQLite's
 * own (see below) and, for WAL files only, holds a write of at most
 * HOLD_MAX bytes until the next call on that file: a write that continues
 * it goes out with it as one pwrite(), anything else (a read, a sync, a
 * size, a lock, a close, a write elsewhere) first writes the held bytes
 * as they came. The file sees the same bytes in the same order; they only
 * reach the OS one call later. SQLite's last write of a commit is always a page (the
 * WAL header and a frame header are followed by more of the same frame),
 * so a COMMIT that returns has nothing held: what kill -9 can lose is
 * unchanged. storage_vfs_held() lets the tests check that.
 *
 * A frame (24 bytes and a page) ends inside a file block, and after a
 * checkpoint the log starts over at the front of the file, over the last
 * cycle's frames. When the block it ends in has left the page cache, the
 * kernel reads that block from the disk before it takes the write: the
 * request thread waits for a disk read (0.5 ms on average, 30 ms at
 * worst, about 60 times a second under load; bench/README.md, ninth
 * round). Past the end of the log the bytes are dead (an old cycle's
 * frames, which recovery already rejects for their salt), so a write
 * that reaches the end of the log goes out padded with zeros to the end
 * of its block, and the kernel has nothing to read. The end of the log
 * is the end of this file's furthest write since its header (offset 0)
 * was last written: only a partition's own connection writes its WAL (the
 * checkpoint thread's only reads it), and SQLite only ever writes behind
 * that end to rewrite frames of the transaction it is writing. Writes
 * behind it go out as they came.
 *
 * Other files pass straight to the wrapped VFS: their sqlite3_file is the
 * wrapped VFS's own. Partitions' databases are opened through a second
 * instance wrapping SQLite's "unix-excl" (storage_vfs_excl()): it locks a
 * database for this process alone (one server per data directory), and
 * keeps a WAL's index in this process's memory instead of a -shm file
 * whose locks cost fcntl() calls at every transaction, so a partition's
 * two connections (checkpoint.c) share it for free. The catalog and the
 * backups' files keep SQLite's default, which other processes may read
 * while the server runs. */
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "storage/storage_int.h"

#define HOLD_MAX 32                     /* the WAL header: 32, a frame's: 24 */

/* The file system block a write ending inside it would have the kernel
 * read first (4 KB on ext4 and XFS; a smaller block needs less padding). */
#define PAD_BLOCK 4096

struct wal_file {
    sqlite3_file base;                  /* pMethods = &wal_methods */
    sqlite3_file *real;                 /* the wrapped file, just after */
    sqlite3_int64 off;                  /* the held write's offset */
    int len;                            /* its length, 0: nothing held */
    unsigned char held[HOLD_MAX];
    sqlite3_int64 end;                  /* the end of the log: past it,
                                           the file's bytes are dead */
    unsigned char *buf;                 /* a write joined or padded */
    size_t cap;
};

/* The wrapped file's place in the allocation SQLite gives xOpen. */
#define REAL_OFFSET ((sizeof(struct wal_file) + 7) & ~(size_t)7)

/* Two of them: one wrapping SQLite's default VFS, one its "unix-excl"
 * (partitions'). */
static sqlite3_vfs vfs, vfs_excl;
static pthread_once_t vfs_once = PTHREAD_ONCE_INIT;

/* The VFS v wraps. */
static sqlite3_vfs *
wrapped(sqlite3_vfs *v)
{
    return (sqlite3_vfs *)v->pAppData;
}

/* w->buf with room for n bytes, or NULL. */
static unsigned char *
room(struct wal_file *w, size_t n)
{
    if (n > w->cap) {
        unsigned char *nb = realloc(w->buf, n);

        if (nb == NULL)
            return NULL;
        w->buf = nb;
        w->cap = n;
    }
    return w->buf;
}

/* Write n bytes of p at off: padded with zeros to the end of its block
 * when it reaches the end of the log (see the top of the file), as it
 * came otherwise. p may be w->buf only with room for the padding behind
 * the n bytes (room() would move it). */
static int
put(struct wal_file *w, const void *p, int n, sqlite3_int64 off)
{
    sqlite3_int64 end = off + n;
    size_t pad = (size_t)(PAD_BLOCK - end % PAD_BLOCK) % PAD_BLOCK;
    unsigned char *b;
    int rc;

    if (off == 0)
        w->end = 0;                     /* the header: the log starts over */
    if (end < w->end || pad == 0 ||
        (b = room(w, (size_t)n + pad)) == NULL)
        rc = w->real->pMethods->xWrite(w->real, p, n, off);
    else {
        if (b != p)
            memcpy(b, p, (size_t)n);
        memset(b + n, 0, pad);
        rc = w->real->pMethods->xWrite(w->real, b, n + (int)pad, off);
    }
    if (rc == SQLITE_OK && end > w->end)
        w->end = end;
    return rc;
}

/* Write what w holds. */
static int
flush(struct wal_file *w)
{
    int n = w->len;

    if (n == 0)
        return SQLITE_OK;
    w->len = 0;
    return put(w, w->held, n, w->off);
}

static int
wal_write(sqlite3_file *f, const void *p, int n, sqlite3_int64 off)
{
    struct wal_file *w = (struct wal_file *)f;
    int rc;

    if (w->len > 0 && off == w->off + w->len) {
        size_t total = (size_t)w->len + (size_t)n;

        if (total <= HOLD_MAX) {        /* a header after a header */
            memcpy(w->held + w->len, p, (size_t)n);
            w->len = (int)total;
            return SQLITE_OK;
        }
        /* room for the padding too, so put() pads in place */
        if (room(w, total + PAD_BLOCK) == NULL)
            return SQLITE_IOERR_NOMEM;
        memcpy(w->buf, w->held, (size_t)w->len);
        memcpy(w->buf + w->len, p, (size_t)n);
        w->len = 0;
        return put(w, w->buf, (int)total, w->off);
    }
    if ((rc = flush(w)) != SQLITE_OK)
        return rc;
    if (n > 0 && n <= HOLD_MAX) {
        memcpy(w->held, p, (size_t)n);
        w->off = off;
        w->len = n;
        return SQLITE_OK;
    }
    return put(w, p, n, off);
}

static int
wal_close(sqlite3_file *f)
{
    struct wal_file *w = (struct wal_file *)f;
    int rc = flush(w), rc2 = w->real->pMethods->xClose(w->real);

    free(w->buf);
    w->buf = NULL;
    w->cap = 0;
    return rc != SQLITE_OK ? rc : rc2;
}

/* Every other method writes what is held, then passes the call on. */
#define REAL(f) (((struct wal_file *)(f))->real)
#define FLUSHED(f)                                                    \
    do {                                                              \
        int rc_ = flush((struct wal_file *)(f));                      \
        if (rc_ != SQLITE_OK)                                         \
            return rc_;                                               \
    } while (0)

static int
wal_read(sqlite3_file *f, void *p, int n, sqlite3_int64 off)
{
    FLUSHED(f);
    return REAL(f)->pMethods->xRead(REAL(f), p, n, off);
}

static int
wal_truncate(sqlite3_file *f, sqlite3_int64 size)
{
    struct wal_file *w = (struct wal_file *)f;

    FLUSHED(f);
    if (w->end > size)
        w->end = size;
    return REAL(f)->pMethods->xTruncate(REAL(f), size);
}

static int
wal_sync(sqlite3_file *f, int flags)
{
    FLUSHED(f);
    return REAL(f)->pMethods->xSync(REAL(f), flags);
}

static int
wal_file_size(sqlite3_file *f, sqlite3_int64 *size)
{
    FLUSHED(f);
    return REAL(f)->pMethods->xFileSize(REAL(f), size);
}

static int
wal_lock(sqlite3_file *f, int level)
{
    FLUSHED(f);
    return REAL(f)->pMethods->xLock(REAL(f), level);
}

static int
wal_unlock(sqlite3_file *f, int level)
{
    FLUSHED(f);
    return REAL(f)->pMethods->xUnlock(REAL(f), level);
}

static int
wal_check_reserved(sqlite3_file *f, int *out)
{
    FLUSHED(f);
    return REAL(f)->pMethods->xCheckReservedLock(REAL(f), out);
}

static int
wal_file_control(sqlite3_file *f, int op, void *arg)
{
    FLUSHED(f);
    return REAL(f)->pMethods->xFileControl(REAL(f), op, arg);
}

static int
wal_sector_size(sqlite3_file *f)
{
    return REAL(f)->pMethods->xSectorSize(REAL(f));
}

static int
wal_device_chars(sqlite3_file *f)
{
    return REAL(f)->pMethods->xDeviceCharacteristics(REAL(f));
}

/* Version 1: a WAL file is never mapped and holds no shared memory (the
 * database file does, and is not wrapped). */
static const sqlite3_io_methods wal_methods = {
    .iVersion = 1,
    .xClose = wal_close,
    .xRead = wal_read,
    .xWrite = wal_write,
    .xTruncate = wal_truncate,
    .xSync = wal_sync,
    .xFileSize = wal_file_size,
    .xLock = wal_lock,
    .xUnlock = wal_unlock,
    .xCheckReservedLock = wal_check_reserved,
    .xFileControl = wal_file_control,
    .xSectorSize = wal_sector_size,
    .xDeviceCharacteristics = wal_device_chars,
};

static int
vfs_open(sqlite3_vfs *v, sqlite3_filename name, sqlite3_file *f, int flags,
         int *out_flags)
{
    struct wal_file *w = (struct wal_file *)f;
    int rc;

    if (!(flags & SQLITE_OPEN_WAL))
        return wrapped(v)->xOpen(wrapped(v), name, f, flags, out_flags);
    memset(w, 0, sizeof(*w));
    w->real = (sqlite3_file *)((char *)f + REAL_OFFSET);
    rc = wrapped(v)->xOpen(wrapped(v), name, w->real, flags, out_flags);
    /* xClose is owed whenever the wrapped open set its methods */
    if (w->real->pMethods != NULL)
        w->base.pMethods = &wal_methods;
    return rc;
}

/* The rest of the VFS is the wrapped one's. */
static int
vfs_delete(sqlite3_vfs *v, const char *name, int sync_dir)
{
    return wrapped(v)->xDelete(wrapped(v), name, sync_dir);
}

static int
vfs_access(sqlite3_vfs *v, const char *name, int flags, int *out)
{
    return wrapped(v)->xAccess(wrapped(v), name, flags, out);
}

static int
vfs_full_pathname(sqlite3_vfs *v, const char *name, int n, char *out)
{
    return wrapped(v)->xFullPathname(wrapped(v), name, n, out);
}

static void *
vfs_dlopen(sqlite3_vfs *v, const char *name)
{
    return wrapped(v)->xDlOpen(wrapped(v), name);
}

static void
vfs_dlerror(sqlite3_vfs *v, int n, char *out)
{
    wrapped(v)->xDlError(wrapped(v), n, out);
}

static void (*vfs_dlsym(sqlite3_vfs *v, void *h, const char *sym))(void)
{
    return wrapped(v)->xDlSym(wrapped(v), h, sym);
}

static void
vfs_dlclose(sqlite3_vfs *v, void *h)
{
    wrapped(v)->xDlClose(wrapped(v), h);
}

static int
vfs_randomness(sqlite3_vfs *v, int n, char *out)
{
    return wrapped(v)->xRandomness(wrapped(v), n, out);
}

static int
vfs_sleep(sqlite3_vfs *v, int us)
{
    return wrapped(v)->xSleep(wrapped(v), us);
}

static int
vfs_current_time(sqlite3_vfs *v, double *out)
{
    return wrapped(v)->xCurrentTime(wrapped(v), out);
}

static int
vfs_last_error(sqlite3_vfs *v, int n, char *out)
{
    return wrapped(v)->xGetLastError(wrapped(v), n, out);
}

static int
vfs_current_time64(sqlite3_vfs *v, sqlite3_int64 *out)
{
    return wrapped(v)->xCurrentTimeInt64(wrapped(v), out);
}

/* Fill in and register v as name, wrapping real; v's name stays NULL when
 * it cannot be. */
static void
vfs_fill(sqlite3_vfs *v, const char *name, sqlite3_vfs *real)
{
    if (real == NULL || real->iVersion < 2)
        return;                         /* then storage uses the default */
    v->iVersion = 2;
    v->szOsFile = (int)REAL_OFFSET + real->szOsFile;
    v->mxPathname = real->mxPathname;
    v->zName = name;
    v->pAppData = real;
    v->xOpen = vfs_open;
    v->xDelete = vfs_delete;
    v->xAccess = vfs_access;
    v->xFullPathname = vfs_full_pathname;
    v->xDlOpen = vfs_dlopen;
    v->xDlError = vfs_dlerror;
    v->xDlSym = vfs_dlsym;
    v->xDlClose = vfs_dlclose;
    v->xRandomness = vfs_randomness;
    v->xSleep = vfs_sleep;
    v->xCurrentTime = vfs_current_time;
    v->xGetLastError = vfs_last_error;
    v->xCurrentTimeInt64 = vfs_current_time64;
    if (sqlite3_vfs_register(v, 0) != SQLITE_OK)
        v->zName = NULL;
}

static void
vfs_register(void)
{
    /* SQLite's memory statistics take a global mutex on every malloc and
     * free; nothing here reads them. Only possible before SQLite starts
     * (sqlite3_vfs_find() starts it), and harmless when it is too late. */
    (void)sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
    vfs_fill(&vfs, STORAGE_VFS_NAME, sqlite3_vfs_find(NULL));
    vfs_fill(&vfs_excl, STORAGE_VFS_EXCL_NAME,
             sqlite3_vfs_find("unix-excl"));
}

const char *
storage_vfs(void)
{
    pthread_once(&vfs_once, vfs_register);
    return vfs.zName;
}

const char *
storage_vfs_excl(void)
{
    pthread_once(&vfs_once, vfs_register);
    return vfs_excl.zName != NULL ? vfs_excl.zName : vfs.zName;
}

int
storage_vfs_held(sqlite3 *db)
{
    sqlite3_file *f = NULL;

    if (sqlite3_file_control(db, "main", SQLITE_FCNTL_JOURNAL_POINTER,
                             &f) != SQLITE_OK ||
        f == NULL || f->pMethods != &wal_methods)
        return 0;
    return ((struct wal_file *)f)->len;
}
