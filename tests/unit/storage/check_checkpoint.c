/* SPDX-License-Identifier: MIT */
/* check_checkpoint.c - WAL checkpoints on the store's background thread
 * (storage/checkpoint.c): a partition whose WAL passes checkpoint_pages
 * is checkpointed without the writer doing it, the WAL stays bounded, and
 * every write is still there after the store is closed and reopened,
 * split, or deleted while its partitions are queued; while the thread
 * holds a partition the store says so (for that partition only), and it
 * starts the WAL over itself before letting go. */
#include <check.h>
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "storage/partition_int.h"
#include "tests/unit/storage/fixture.h"

#define PAGES 8                         /* checkpoint_pages in these tests */

static void
open_store(unsigned pages)
{
    struct ddb_err err;

    ddb_err_init(&err);
    st = storage_open_opts(tmpdir,
                           &(struct storage_opts){ .checkpoint_pages = pages },
                           &err);
    ck_assert_msg(st != NULL, "%s", err.msg);
}

/* An item of about 1 KB: every write dirties a page of its own. */
static void
put(struct stable *t, int i)
{
    char pk[32], pad[1024];
    struct item_key k;
    struct ddb_err err;
    json_t *item;

    snprintf(pk, sizeof(pk), "k%05d", i);
    memset(pad, 'p', sizeof(pad) - 1);
    pad[sizeof(pad) - 1] = '\0';
    item = json_pack("{s{ss}s{ss}s{si}}", "pk", "S", pk, "pad", "S", pad,
                     "n", "N", "1");
    json_object_set_new(json_object_get(item, "n"), "N",
                        json_sprintf("%d", i));
    ddb_err_init(&err);
    fixture_skey(&k, pk, NULL);
    ck_assert_int_eq(stable_mutate(t, &k, fixture_put_fn, item, &err), 0);
    json_decref(item);
}

static long
get(struct stable *t, int i)
{
    char pk[32];

    snprintf(pk, sizeof(pk), "k%05d", i);
    return fixture_get_num(t, pk, NULL, "n");
}

/* Calls fn with the path of each *.db-wal under tmpdir/tables/<id>/. */
static void
each_wal(void (*fn)(const char *path, void *arg), void *arg)
{
    char path[512];
    DIR *top, *d;
    struct dirent *e, *f;

    snprintf(path, sizeof(path), "%s/tables", tmpdir);
    top = opendir(path);
    ck_assert_ptr_nonnull(top);
    while ((e = readdir(top)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof(path), "%s/tables/%s", tmpdir, e->d_name);
        if ((d = opendir(path)) == NULL)
            continue;
        while ((f = readdir(d)) != NULL) {
            size_t n = strlen(f->d_name);

            if (n < 7 || strcmp(f->d_name + n - 7, ".db-wal") != 0)
                continue;
            snprintf(path, sizeof(path), "%s/tables/%s/%s", tmpdir,
                     e->d_name, f->d_name);
            fn(path, arg);
        }
        closedir(d);
    }
    closedir(top);
}

/* Size of the file at path, in bytes. */
static long
file_size(const char *path)
{
    struct stat sb;

    return stat(path, &sb) == 0 ? (long)sb.st_size : -1;
}

static void
wal_size_max(const char *path, void *arg)
{
    long *max = arg, size = file_size(path);

    if (size > *max)
        *max = size;
}

/* The largest *.db-wal under tmpdir/tables/<id>/, in bytes. */
static long
max_wal(void)
{
    long max = 0;

    each_wal(wal_size_max, &max);
    return max;
}

/* Wait (at most 5 s) until the thread has run more than n checkpoints. */
static bool
wait_checkpoints(uint64_t n)
{
    for (int i = 0; i < 500; i++) {
        if (ckpt_count(st->ckpt) > n)
            return true;
        usleep(10000);
    }
    return false;
}

START_TEST(test_background_checkpoint)
{
    struct stable *t;

    open_store(PAGES);
    ck_assert_ptr_nonnull(st->ckpt);
    t = fixture_table("T", 1);
    ck_assert_uint_eq(ckpt_count(st->ckpt), 0);
    for (int i = 0; i < 3 * PAGES; i++)
        put(t, i);
    /* the thread did it, not the writer */
    ck_assert(wait_checkpoints(0));
    for (int i = 0; i < 3 * PAGES; i++)
        ck_assert_int_eq(get(t, i), i);
    stable_release(t);
}
END_TEST

/* Many writes in a row: the WAL never grows much past the threshold
 * (SQLite's own policy would let it reach 1,000 pages), even while the
 * thread copies it beside the writes, and everything is there after a
 * reopen. */
START_TEST(test_wal_bounded_and_reopen)
{
    struct stable *t;

    open_store(PAGES);
    t = fixture_table("T", 1);
    for (int i = 0; i < 600; i++) {
        put(t, i);
        ck_assert_int_le(max_wal(), 8 * PAGES * 4200);
    }
    stable_release(t);
    storage_close(st);
    st = NULL;
    open_store(PAGES);
    t = storage_table_get(st, "T");
    ck_assert_ptr_nonnull(t);
    for (int i = 0; i < 600; i++)
        ck_assert_int_eq(get(t, i), i);
    stable_release(t);
}
END_TEST

/* checkpoint_pages 0: SQLite's inline checkpoints, no thread. */
START_TEST(test_off)
{
    struct stable *t;

    open_store(0);
    ck_assert_ptr_null(st->ckpt);
    t = fixture_table("T", 1);
    for (int i = 0; i < 50; i++)
        put(t, i);
    for (int i = 0; i < 50; i++)
        ck_assert_int_eq(get(t, i), i);
    stable_release(t);
}
END_TEST

/* Partitions queued for a checkpoint go away (a split retires one, a
 * delete closes them) without the thread touching a closed connection. */
START_TEST(test_split_and_delete_while_queued)
{
    struct ddb_err err;
    struct stable *t;

    open_store(PAGES);
    ddb_err_init(&err);
    for (int round = 0; round < 20; round++) {
        t = fixture_table("T", 2);
        for (int i = 0; i < 4 * PAGES; i++)
            put(t, i);
        if (round % 2 == 0) {
            ck_assert_int_eq(stable_split_at(t, 0, 1ull << 62, &err), 0);
            for (int i = 0; i < 4 * PAGES; i++)
                ck_assert_int_eq(get(t, i), i);
        }
        stable_release(t);
        ck_assert_int_eq(storage_table_delete(st, "T", &err), 0);
    }
}
END_TEST

/* cachestat(2) (Linux 6.5): a file's page cache, with its dirty pages. */
#define SYS_CACHESTAT 451

struct cstat_range {
    uint64_t off, len;
};

struct cstat {
    uint64_t nr_cache, nr_dirty, nr_writeback, nr_evicted,
        nr_recently_evicted;
};

/* Dirty pages of the file at path (nr_dirty), or -1 without cachestat. */
static long
file_dirty(const char *path)
{
    struct cstat_range r = { 0, 0 };
    struct cstat cs;
    int fd = open(path, O_RDONLY);
    long n = -1;

    ck_assert_int_ge(fd, 0);
    if (syscall(SYS_CACHESTAT, fd, &r, &cs, 0) == 0)
        n = (long)cs.nr_dirty;
    close(fd);
    return n;
}

static void
wal_dirty_add(const char *path, void *arg)
{
    long *dirty = arg;

    *dirty += file_dirty(path);
}

/* Pages of the WAL files not yet on their way to disk. */
static long
wal_dirty(void)
{
    long dirty = 0;

    each_wal(wal_dirty_add, &dirty);
    return dirty;
}

/* Does this file system keep written pages dirty until written out, and
 * can cachestat tell? A 64 KB file written here says. */
static bool
dirty_pages_seen(void)
{
    char path[512], buf[65536];
    int fd;
    long n;

    snprintf(path, sizeof(path), "%s/probe", tmpdir);
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ck_assert_int_ge(fd, 0);
    memset(buf, 'x', sizeof(buf));
    ck_assert_int_eq(write(fd, buf, sizeof(buf)), (int)sizeof(buf));
    close(fd);
    n = file_dirty(path);
    unlink(path);
    return n >= 8;
}

/* Open file descriptors of this process. */
static int
open_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    int n = 0;

    ck_assert_ptr_nonnull(d);
    while (readdir(d) != NULL)
        n++;
    closedir(d);
    return n;
}

/* Commits start writing the WAL out 256 pages at a time (it is not left
 * for the sync before a checkpoint to write all at once): of the 1,300 or
 * so pages that 300 commits of 1 KB items add, no more than the last
 * 256 and a commit's worth are still dirty. Skipped where the kernel
 * cannot tell (no cachestat) or the file system keeps no dirty pages
 * (tmpfs). */
START_TEST(test_wal_written_out)
{
    struct stable *t;
    long dirty;

    if (!dirty_pages_seen())
        return;
    open_store(4096);                   /* no checkpoint in this test */
    t = fixture_table("T", 1);
    for (int i = 0; i < 300; i++)
        put(t, i);
    dirty = wal_dirty();
    ck_assert_msg(dirty >= 0 && dirty < 300,
                  "%ld WAL pages dirty after 300 commits", dirty);
    stable_release(t);
}
END_TEST

/* The WAL descriptor those writes use goes with its partition: a table
 * written, split and deleted twenty times leaves no descriptor open. */
START_TEST(test_wal_fd_closed)
{
    struct ddb_err err;
    struct stable *t;
    int fds;

    open_store(PAGES);
    ddb_err_init(&err);
    fds = open_fds();
    for (int round = 0; round < 20; round++) {
        t = fixture_table("T", 2);
        for (int i = 0; i < 8 * PAGES; i++)
            put(t, i);
        ck_assert_int_eq(stable_split_at(t, 0, 1ull << 62, &err), 0);
        for (int i = 0; i < 8 * PAGES; i++)
            put(t, i);
        stable_release(t);
        ck_assert_int_eq(storage_table_delete(st, "T", &err), 0);
    }
    ck_assert_int_eq(open_fds(), fds);
}
END_TEST

static void
count_wake(void *arg)
{
    atomic_int *n = arg;

    atomic_fetch_add(n, 1);
}

/* While the thread waits for, then holds, a partition's lock, the store
 * says so, for that partition's keys only; once it lets go, the wake
 * callback has run, nothing is held, and the WAL has started over with no
 * commit of anyone else's: its header's sync was the thread's, under its
 * hold, not the next request's. */
START_TEST(test_hold_seen)
{
    struct item_key in, out;
    struct partition *p;
    struct stable *t;
    char other[16];
    atomic_int woken = 0;
    int log = -1, done = -1;
    uint64_t n;

    open_store(PAGES);
    t = fixture_table("T", 2);
    fixture_skey(&in, "a", NULL);
    fixture_skey_elsewhere(t, in.hash, other, sizeof(other), &out);
    storage_on_checkpoint_done(st, count_wake, &woken);
    ck_assert(!storage_checkpointing(st));
    ck_assert(!stable_key_checkpointing(t, &in));
    n = ckpt_count(st->ckpt);

    p = fixture_checkpoint_hold(t, in.hash);
    ck_assert(storage_checkpointing(st));
    ck_assert(stable_key_checkpointing(t, &in));
    ck_assert(!stable_key_checkpointing(t, &out));
    ck_assert_int_eq(atomic_load(&woken), 0);
    fixture_checkpoint_release(p);

    ck_assert(wait_checkpoints(n));
    ck_assert(!storage_checkpointing(st));
    ck_assert(!stable_key_checkpointing(t, &in));
    ck_assert_int_ge(atomic_load(&woken), 1);
    partition_lock(p);
    ck_assert_int_eq(sqlite3_wal_checkpoint_v2(p->db, NULL,
                                               SQLITE_CHECKPOINT_PASSIVE,
                                               &log, &done), SQLITE_OK);
    partition_unlock(p);
    ck_assert_int_le(log, 1);           /* the header page's frame only */
    storage_on_checkpoint_done(st, NULL, NULL);
    stable_release(t);
}
END_TEST

struct stats_call {
    struct stable *t;
    unsigned part;
    uint64_t count, bytes;
    atomic_bool done;
};

static void *
stats_main(void *arg)
{
    struct stats_call *c = arg;
    struct ddb_err err;

    ddb_err_init(&err);
    ck_assert_int_eq(stable_part_stats(c->t, c->part, &c->count, &c->bytes,
                                       &err), 0);
    atomic_store(&c->done, true);
    return NULL;
}

/* A write's size check reads its partition's item count and bytes: while
 * a checkpoint holds the partition, it gets them at once, as they were,
 * instead of waiting for the hold to end. */
START_TEST(test_stats_while_held)
{
    struct stats_call c = { 0 };
    uint64_t count = 0, bytes = 0;
    struct item_key in;
    struct ddb_err err;
    struct partition *p;
    pthread_t th;

    ddb_err_init(&err);
    open_store(PAGES);
    c.t = fixture_table("T", 2);
    for (int i = 0; i < 20; i++)
        put(c.t, i);
    fixture_skey(&in, "a", NULL);
    c.part = stable_part_of(c.t, in.hash);
    ck_assert_int_eq(stable_part_stats(c.t, c.part, &count, &bytes, &err),
                     0);
    ck_assert_uint_gt(count, 0);

    p = fixture_checkpoint_hold(c.t, in.hash);
    ck_assert_int_eq(pthread_create(&th, NULL, stats_main, &c), 0);
    for (int i = 0; i < 200 && !atomic_load(&c.done); i++)
        usleep(10000);
    ck_assert_msg(atomic_load(&c.done), "the stats waited for the hold");
    fixture_checkpoint_release(p);
    pthread_join(th, NULL);
    ck_assert_uint_eq(c.count, count);
    ck_assert_uint_eq(c.bytes, bytes);
    stable_release(c.t);
}
END_TEST

/* The thread copies a WAL into its database file while someone else
 * holds the partition (a request, here the test): by the time it waits
 * for the lock, the pages are in the file. Once let in, it copies what
 * was committed meanwhile and starts the log over, and every row is
 * there. */
START_TEST(test_copy_beside_writes)
{
    char key[1100], sql[1200];
    struct item_key in;
    struct partition *p;
    struct stable *t;
    sqlite3_stmt *q;
    long before;
    int log = -1, done = -1;
    uint64_t n;

    open_store(PAGES);
    t = fixture_table("T", 1);
    fixture_skey(&in, "a", NULL);
    p = stable_partition(t, in.hash);
    n = ckpt_count(st->ckpt);
    before = file_size(partition_path(p));
    ck_assert_int_gt(before, 0);

    partition_lock(p);
    memset(key, 'k', 1000);
    /* one commit of rows whose key spills to an overflow page in the
     * table and in its index (four pages a row): past PAGES frames (the
     * thread is asked, once, for all of them), under the 4 * PAGES where
     * a commit checkpoints itself */
    ck_assert_int_eq(sqlite3_exec(p->db, "BEGIN", NULL, NULL, NULL),
                     SQLITE_OK);
    for (int i = 0; i < 5; i++) {
        snprintf(key + 1000, sizeof(key) - 1000, "%03d", i);
        snprintf(sql, sizeof(sql), "INSERT INTO log_meta VALUES ('%s', %d)",
                 key, i);
        ck_assert_int_eq(sqlite3_exec(p->db, sql, NULL, NULL, NULL),
                         SQLITE_OK);
    }
    ck_assert_int_eq(sqlite3_exec(p->db, "COMMIT", NULL, NULL, NULL),
                     SQLITE_OK);
    for (int i = 0; i < 500 && !partition_checkpointing(p); i++)
        usleep(10000);
    ck_assert_msg(partition_checkpointing(p),
                  "the checkpoint thread never came for the lock");
    ck_assert_msg(file_size(partition_path(p)) >= before + 6 * 2048,
                  "database file %ld bytes, %ld before the writes",
                  file_size(partition_path(p)), before);
    ck_assert_int_eq(sqlite3_exec(p->db, "INSERT INTO log_meta VALUES "
                                  "('late', 1)", NULL, NULL, NULL),
                     SQLITE_OK);
    partition_unlock(p);

    ck_assert(wait_checkpoints(n));
    partition_lock(p);
    ck_assert_int_eq(sqlite3_prepare_v2(p->db, "SELECT count(*) FROM "
                                        "log_meta WHERE length(k) = 1003 "
                                        "OR k = 'late'", -1, &q, NULL),
                     SQLITE_OK);
    ck_assert_int_eq(sqlite3_step(q), SQLITE_ROW);
    ck_assert_int_eq(sqlite3_column_int(q, 0), 6);
    sqlite3_finalize(q);
    ck_assert_int_eq(sqlite3_wal_checkpoint_v2(p->db, NULL,
                                               SQLITE_CHECKPOINT_PASSIVE,
                                               &log, &done), SQLITE_OK);
    partition_unlock(p);
    ck_assert_int_le(log, 1);           /* started over */
    stable_release(t);
}
END_TEST

/* The value of "PRAGMA name" on p's connection. */
static long long
pragma_of(struct partition *p, const char *name)
{
    char sql[64];
    sqlite3_stmt *q;
    long long v;

    snprintf(sql, sizeof(sql), "PRAGMA %s", name);
    partition_lock(p);
    ck_assert_int_eq(sqlite3_prepare_v2(partition_db_locked(p), sql, -1, &q,
                                        NULL), SQLITE_OK);
    ck_assert_int_eq(sqlite3_step(q), SQLITE_ROW);
    v = sqlite3_column_int64(q, 0);
    sqlite3_finalize(q);
    partition_unlock(p);
    return v;
}

/* A new partition's database has 2 KB pages, and its WAL's size limit
 * counts frames of that size; one made with 4 KB pages (SQLite's default,
 * the earlier releases') opens with them and a limit of their size. */
START_TEST(test_page_size)
{
    struct item_key in;
    struct ddb_err err;
    struct partition *p;
    struct stable *t;
    char path[128];
    sqlite3 *db;

    open_store(PAGES);
    t = fixture_table("T", 1);
    put(t, 1);
    fixture_skey(&in, "a", NULL);
    p = stable_partition(t, in.hash);
    ck_assert_int_eq(pragma_of(p, "page_size"), 2048);
    ck_assert_int_eq(pragma_of(p, "journal_size_limit"),
                     4LL * PAGES * (2048 + 24) + 32);
    stable_release(t);

    snprintf(path, sizeof(path), "%s/old.db", tmpdir);
    ck_assert_int_eq(sqlite3_open(path, &db), SQLITE_OK);
    ck_assert_int_eq(sqlite3_exec(db, "PRAGMA page_size=4096; "
                                  "PRAGMA journal_mode=WAL; "
                                  "CREATE TABLE x (y)", NULL, NULL, NULL),
                     SQLITE_OK);
    sqlite3_close(db);
    ddb_err_init(&err);
    p = partition_open(st, path, &err);
    ck_assert_msg(p != NULL, "%s", err.msg);
    ck_assert_int_eq(pragma_of(p, "page_size"), 4096);
    ck_assert_int_eq(pragma_of(p, "journal_size_limit"),
                     4LL * PAGES * (4096 + 24) + 32);
    partition_close(p);
}
END_TEST

static Suite *
checkpoint_suite(void)
{
    Suite *s = suite_create("checkpoint");
    TCase *tc = tcase_create("checkpoint");

    tcase_add_checked_fixture(tc, fixture_setup, fixture_teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_background_checkpoint);
    tcase_add_test(tc, test_wal_bounded_and_reopen);
    tcase_add_test(tc, test_off);
    tcase_add_test(tc, test_split_and_delete_while_queued);
    tcase_add_test(tc, test_wal_written_out);
    tcase_add_test(tc, test_wal_fd_closed);
    tcase_add_test(tc, test_hold_seen);
    tcase_add_test(tc, test_stats_while_held);
    tcase_add_test(tc, test_page_size);
    tcase_add_test(tc, test_copy_beside_writes);
    suite_add_tcase(s, tc);
    return s;
}

int
main(void)
{
    SRunner *sr = srunner_create(checkpoint_suite());
    int failed;

    srunner_run_all(sr, CK_ENV);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
