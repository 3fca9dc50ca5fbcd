/* SPDX-License-Identifier: MIT */
/* check_vfs.c - the VFS that writes each WAL frame with one system call
 * (storage/vfs.c): a short write is held until the next call on its
 * file, goes out joined with a write that continues it, and before
 * anything else; a COMMIT leaves nothing held, so the files as a kill -9
 * would leave them hold every committed row. A write that reaches the end
 * of the log is padded with zeros to the end of its block, so the kernel
 * never reads a block from the disk to take a frame. Registering the VFS
 * also turns SQLite's memory statistics off. */
#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "storage/storage_int.h"
#include "tests/unit/storage/fixture.h"

#define ROWS 200

static sqlite3 *
open_wal_db(const char *path)
{
    struct ddb_err err;
    sqlite3 *db;

    ddb_err_init(&err);
    db = storage_db_open(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
                         SQLITE_OPEN_NOMUTEX, &err);
    ck_assert_msg(db != NULL, "%s", err.msg);
    ck_assert_int_eq(sqlite3_exec(db, "PRAGMA locking_mode=EXCLUSIVE;"
                                  "PRAGMA journal_mode=WAL;"
                                  "PRAGMA synchronous=NORMAL;"
                                  "CREATE TABLE t (k INTEGER PRIMARY KEY,"
                                  " v BLOB NOT NULL)", NULL, NULL, NULL),
                     SQLITE_OK);
    return db;
}

static long long
file_size(const char *path)
{
    struct stat sb;

    ck_assert_int_eq(stat(path, &sb), 0);
    return (long long)sb.st_size;
}

static void
copy_file(const char *from, const char *to)
{
    FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
    char buf[8192];
    size_t n;

    ck_assert_ptr_nonnull(in);
    ck_assert_ptr_nonnull(out);
    while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
        ck_assert_uint_eq(fwrite(buf, 1, n, out), n);
    fclose(in);
    ck_assert_int_eq(fclose(out), 0);
}

/* The file size a write ending at end leaves: padded to its block. */
static long long
padded(long long end)
{
    return (end + 4095) / 4096 * 4096;
}

static long long
query_int(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *stmt;
    long long v;

    ck_assert_int_eq(sqlite3_prepare_v2(db, sql, -1, &stmt, NULL),
                     SQLITE_OK);
    ck_assert_int_eq(sqlite3_step(stmt), SQLITE_ROW);
    v = sqlite3_column_int64(stmt, 0);
    sqlite3_finalize(stmt);
    return v;
}

/* A database tmpdir/name with one row committed; its WAL's path in wal
 * (of cap bytes) and *db. Returns the WAL file SQLite writes through. */
static sqlite3_file *
wal_file_of(const char *name, char *wal, size_t cap, sqlite3 **db)
{
    char path[128];
    sqlite3_file *f = NULL;

    snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
    snprintf(wal, cap, "%s-wal", path);
    *db = open_wal_db(path);
    ck_assert_int_eq(sqlite3_exec(*db, "INSERT INTO t VALUES (1, x'00')",
                                  NULL, NULL, NULL), SQLITE_OK);
    ck_assert_int_eq(sqlite3_file_control(*db, "main",
                                          SQLITE_FCNTL_JOURNAL_POINTER, &f),
                     SQLITE_OK);
    ck_assert_ptr_nonnull(f);
    return f;
}

/* Every COMMIT returns with nothing held, and a copy of the database and
 * its WAL taken while the connection is still open (what kill -9 leaves)
 * holds every committed row, intact. */
START_TEST(test_commits_reach_the_file)
{
    char path[128], wal[140], cpath[128], cwal[140];
    sqlite3 *db, *copy;
    char sql[128];

    snprintf(path, sizeof(path), "%s/a.db", tmpdir);
    snprintf(wal, sizeof(wal), "%s-wal", path);
    snprintf(cpath, sizeof(cpath), "%s/copy.db", tmpdir);
    snprintf(cwal, sizeof(cwal), "%s-wal", cpath);
    db = open_wal_db(path);
    for (int i = 0; i < ROWS; i++) {
        snprintf(sql, sizeof(sql), "INSERT INTO t VALUES (%d, "
                 "randomblob(%d))", i, 100 + i * 10);
        ck_assert_int_eq(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
        ck_assert_int_eq(storage_vfs_held(db), 0);
    }
    copy_file(path, cpath);
    copy_file(wal, cwal);
    ck_assert_int_eq(sqlite3_open_v2(cpath, &copy, SQLITE_OPEN_READWRITE,
                                     NULL), SQLITE_OK);
    ck_assert_int_eq(query_int(copy, "SELECT count(*) FROM t"), ROWS);
    ck_assert_int_eq(query_int(copy, "SELECT sum(length(v)) FROM t"),
                     100LL * ROWS + 10LL * ROWS * (ROWS - 1) / 2);
    ck_assert_int_eq(query_int(copy, "SELECT count(*) FROM "
                               "pragma_integrity_check WHERE "
                               "integrity_check = 'ok'"), 1);
    sqlite3_close(copy);
    sqlite3_close(db);
}
END_TEST

/* The mechanism, through the WAL file's own methods: a 24-byte write
 * stays in memory, a write that continues it goes out with it, and a
 * write elsewhere or a sync first writes what is held. */
START_TEST(test_short_write_held_until_next_call)
{
    char wal[140], frame[24], page[100];
    sqlite3_file *f;
    long long end;
    sqlite3 *db;

    f = wal_file_of("b.db", wal, sizeof(wal), &db);
    memset(frame, 'h', sizeof(frame));
    memset(page, 'p', sizeof(page));
    end = file_size(wal);

    /* held, then joined with the write that continues it */
    ck_assert_int_eq(f->pMethods->xWrite(f, frame, 24, end), SQLITE_OK);
    ck_assert_int_eq(storage_vfs_held(db), 24);
    ck_assert_int_eq(file_size(wal), end);
    ck_assert_int_eq(f->pMethods->xWrite(f, page, 100, end + 24), SQLITE_OK);
    ck_assert_int_eq(storage_vfs_held(db), 0);
    ck_assert_int_eq(file_size(wal), padded(end + 124));

    /* a write elsewhere writes the held bytes first, where they belong */
    ck_assert_int_eq(f->pMethods->xWrite(f, frame, 24, end + 124),
                     SQLITE_OK);
    ck_assert_int_eq(f->pMethods->xWrite(f, page, 100, end + 200),
                     SQLITE_OK);
    ck_assert_int_eq(file_size(wal), padded(end + 300));
    {
        char back[24];

        ck_assert_int_eq(f->pMethods->xRead(f, back, 24, end + 124),
                         SQLITE_OK);
        ck_assert_mem_eq(back, frame, 24);
    }

    /* a sync (and any other call) writes what is held */
    ck_assert_int_eq(f->pMethods->xWrite(f, frame, 24, end + 300),
                     SQLITE_OK);
    ck_assert_int_eq(storage_vfs_held(db), 24);
    ck_assert_int_eq(f->pMethods->xSync(f, SQLITE_SYNC_NORMAL), SQLITE_OK);
    ck_assert_int_eq(storage_vfs_held(db), 0);
    ck_assert_int_eq(file_size(wal), padded(end + 324));
    sqlite3_close(db);
}
END_TEST

/* Files other than a WAL are the wrapped VFS's own: a database file has
 * the methods of one opened through the default VFS (so shared memory and
 * mmap work as without this VFS). */
START_TEST(test_database_file_not_wrapped)
{
    char path[128], plain[128];
    sqlite3_file *f = NULL, *g = NULL;
    sqlite3 *db, *pdb;

    snprintf(path, sizeof(path), "%s/c.db", tmpdir);
    snprintf(plain, sizeof(plain), "%s/d.db", tmpdir);
    db = open_wal_db(path);
    ck_assert_int_eq(sqlite3_open_v2(plain, &pdb, SQLITE_OPEN_READWRITE |
                                     SQLITE_OPEN_CREATE, NULL), SQLITE_OK);
    ck_assert_int_eq(sqlite3_exec(pdb, "CREATE TABLE t (k)", NULL, NULL,
                                  NULL), SQLITE_OK);
    ck_assert_int_eq(sqlite3_file_control(db, "main",
                                          SQLITE_FCNTL_FILE_POINTER, &f),
                     SQLITE_OK);
    ck_assert_int_eq(sqlite3_file_control(pdb, "main",
                                          SQLITE_FCNTL_FILE_POINTER, &g),
                     SQLITE_OK);
    ck_assert_ptr_nonnull(f);
    ck_assert_ptr_nonnull(g);
    ck_assert_ptr_eq(f->pMethods, g->pMethods);
    sqlite3_close(pdb);
    sqlite3_close(db);
}
END_TEST

/* The store turns SQLite's memory statistics off before SQLite starts
 * (they cost a global mutex per allocation): with an open database and
 * rows written, SQLite counts no memory in use. */
START_TEST(test_no_memory_statistics)
{
    char path[128];
    sqlite3 *db;

    snprintf(path, sizeof(path), "%s/e.db", tmpdir);
    db = open_wal_db(path);
    ck_assert_int_eq(sqlite3_exec(db, "INSERT INTO t VALUES (1, x'00')",
                                  NULL, NULL, NULL), SQLITE_OK);
    ck_assert_int_eq(sqlite3_memory_used(), 0);
    sqlite3_close(db);
}
END_TEST

/* Through the WAL file's own methods: past the end of the log the block
 * is zeros; a write behind that end (SQLite rewriting a frame of the
 * transaction it is writing) leaves what follows it alone; a write at
 * offset 0 (the header of a new log) starts the log over. */
START_TEST(test_log_end_padded)
{
    char wal[140], a[10000], b[100], c[50], back[12288];
    sqlite3_file *f;
    long long base;
    sqlite3 *db;

    f = wal_file_of("f.db", wal, sizeof(wal), &db);
    base = file_size(wal);
    ck_assert_int_eq(base % 4096, 0);
    memset(a, 'a', sizeof(a));
    memset(b, 'b', sizeof(b));
    memset(c, 'c', sizeof(c));

    /* an old cycle's frames where the log will end */
    memset(back, 'o', sizeof(back));
    ck_assert_int_eq(f->pMethods->xWrite(f, back, sizeof(back), base),
                     SQLITE_OK);
    /* the log starts over with a header (the front block, as it was):
     * then a write ending inside the old frames is padded over them */
    ck_assert_int_eq(f->pMethods->xRead(f, back, 4096, 0), SQLITE_OK);
    ck_assert_int_eq(f->pMethods->xWrite(f, back, 4096, 0), SQLITE_OK);
    ck_assert_int_eq(f->pMethods->xWrite(f, a, sizeof(a), base),
                     SQLITE_OK);
    ck_assert_int_eq(f->pMethods->xRead(f, back, sizeof(back), base),
                     SQLITE_OK);
    ck_assert_mem_eq(back, a, sizeof(a));
    for (size_t i = sizeof(a); i < sizeof(back); i++)
        ck_assert_int_eq(back[i], 0);

    /* behind the end: what follows stays */
    ck_assert_int_eq(f->pMethods->xWrite(f, b, sizeof(b), base + 5000),
                     SQLITE_OK);
    ck_assert_int_eq(f->pMethods->xRead(f, back, sizeof(back), base),
                     SQLITE_OK);
    ck_assert_mem_eq(back + 5000, b, sizeof(b));
    ck_assert_mem_eq(back + 5100, a, sizeof(a) - 5100);

    /* at the end again: padded */
    ck_assert_int_eq(f->pMethods->xWrite(f, c, sizeof(c), base + 10000),
                     SQLITE_OK);
    ck_assert_int_eq(f->pMethods->xRead(f, back, sizeof(back), base),
                     SQLITE_OK);
    ck_assert_mem_eq(back + 10000, c, sizeof(c));
    for (size_t i = 10050; i < sizeof(back); i++)
        ck_assert_int_eq(back[i], 0);
    ck_assert_int_eq(file_size(wal), base + 12288);
    sqlite3_close(db);
}
END_TEST

/* Bytes this process has had read from the disk (/proc/self/io). */
static long long
read_bytes(void)
{
    FILE *io = fopen("/proc/self/io", "r");
    char line[128];
    long long v = -1;

    if (io == NULL)
        return -1;
    while (fgets(line, sizeof(line), io) != NULL)
        if (strncmp(line, "read_bytes:", 11) == 0)
            v = atoll(line + 11);
    fclose(io);
    return v;
}

/* Write path out, then drop its pages from the page cache. */
static void
evict(const char *path)
{
    int fd = open(path, O_RDONLY);

    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(fdatasync(fd), 0);
    ck_assert_int_eq(posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED), 0);
    close(fd);
}

/* Does a write into part of a block that is on the disk but not in the
 * page cache have the kernel read it here (and /proc/self/io show it)? */
static bool
partial_writes_read(void)
{
    char path[128], buf[16384];
    long long before;
    int fd;
    bool r;

    snprintf(path, sizeof(path), "%s/probe", tmpdir);
    memset(buf, 'x', sizeof(buf));
    fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(pwrite(fd, buf, sizeof(buf), 0), (ssize_t)sizeof(buf));
    close(fd);
    evict(path);
    fd = open(path, O_RDWR);
    before = read_bytes();
    ck_assert_int_eq(pwrite(fd, buf, 10, 5000), 10);
    r = before >= 0 && read_bytes() > before;
    close(fd);
    unlink(path);
    return r;
}

/* After a checkpoint the log starts over at the front of the WAL file,
 * over the old cycle's frames. With those blocks out of the page cache, a
 * commit there reads nothing from the disk. */
START_TEST(test_restarted_log_reads_nothing)
{
    char path[128], wal[140], sql[128];
    long long before;
    sqlite3 *db;

    if (!partial_writes_read()) {
        fprintf(stderr, "check_vfs: this file system or kernel does not "
                "read a block to take a partial write (or does not say "
                "so): test_restarted_log_reads_nothing skipped\n");
        return;
    }
    snprintf(path, sizeof(path), "%s/g.db", tmpdir);
    snprintf(wal, sizeof(wal), "%s-wal", path);
    db = open_wal_db(path);
    for (int i = 0; i < 50; i++) {
        snprintf(sql, sizeof(sql), "INSERT INTO t VALUES (%d, "
                 "randomblob(1000))", i);
        ck_assert_int_eq(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
    }
    ck_assert_int_eq(sqlite3_wal_checkpoint_v2(db, NULL,
                                               SQLITE_CHECKPOINT_PASSIVE,
                                               NULL, NULL), SQLITE_OK);
    ck_assert_int_gt(file_size(wal), 50 * 4096);
    evict(wal);
    before = read_bytes();
    for (int i = 0; i < 20; i++) {
        snprintf(sql, sizeof(sql), "UPDATE t SET v = randomblob(1000) "
                 "WHERE k = %d", i);
        ck_assert_int_eq(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
    }
    ck_assert_int_eq(read_bytes() - before, 0);
    ck_assert_int_eq(query_int(db, "SELECT count(*) FROM t"), 50);
    sqlite3_close(db);
}
END_TEST

static Suite *
vfs_suite(void)
{
    Suite *s = suite_create("vfs");
    TCase *tc = tcase_create("vfs");

    tcase_add_checked_fixture(tc, fixture_setup, fixture_teardown);
    tcase_add_test(tc, test_commits_reach_the_file);
    tcase_add_test(tc, test_short_write_held_until_next_call);
    tcase_add_test(tc, test_database_file_not_wrapped);
    tcase_add_test(tc, test_no_memory_statistics);
    tcase_add_test(tc, test_log_end_padded);
    tcase_add_test(tc, test_restarted_log_reads_nothing);
    suite_add_tcase(s, tc);
    return s;
}

int
main(void)
{
    SRunner *sr = srunner_create(vfs_suite());
    int failed;

    srunner_run_all(sr, CK_ENV);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
