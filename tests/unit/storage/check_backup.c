/* SPDX-License-Identifier: MIT */
/* check_backup.c - backups in the store (storage/backup.c): a copy holds
 * what was written before it and nothing after, restores into any
 * partition count, survives a restart and the deletion of its table, is
 * one consistent cut under concurrent transactions, restores items only,
 * and leaves nothing behind when deleted or interrupted. */
#include <check.h>
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "storage/storage.h"
#include "storage/storage_int.h"        /* playout_of, partition_db */
#include "storage/util.h"
#include "tests/unit/storage/fixture.h"

/* ------------------------------------------------------------------------
 * Helpers
 * ---------------------------------------------------------------------- */

static void
put(struct stable *t, const char *pk, long v)
{
    fixture_put_num(t, pk, "v", v);
}

static long
get_v(struct stable *t, const char *pk)
{
    return fixture_get_num(t, pk, NULL, "v");
}

static uint64_t
count(struct stable *t)
{
    uint64_t n, bytes;
    struct ddb_err err;

    ddb_err_init(&err);
    ck_assert_int_eq(stable_stats(t, &n, &bytes, &err), 0);
    return n;
}

static void
backup(const char *key, struct stable **tabs, size_t n)
{
    struct ddb_err err;
    json_t *meta = json_pack("{s:s}", "what", key);

    ddb_err_init(&err);
    ck_assert_msg(storage_backup_create(st, key, tabs, n, meta, &err) == 0,
                  "%s", err.msg);
    json_decref(meta);
}

/* Restore member of backup key as table name over nparts partitions;
 * a new handle. */
static struct stable *
restore(const char *key, const char *member, const char *name,
        unsigned nparts)
{
    struct ddb_err err;
    json_t *desc = json_pack("{s:s}", "TableName", name);

    ddb_err_init(&err);
    ck_assert_msg(storage_backup_restore(st, key, member, name, desc, nparts,
                                         &err) == 0, "%s", err.msg);
    json_decref(desc);
    return storage_table_get(st, name);
}

static bool
exists(const char *path)
{
    struct stat sb;

    return stat(path, &sb) == 0;
}

/* The directory of the only backup on disk (after checking that key is
 * in the catalog): the one id-named entry under backups/. */
static char *
backup_dir(const char *key)
{
    char *root = xasprintf("%s/backups", tmpdir), *dir = NULL;
    json_t *b = storage_backup_get(st, key);
    struct dirent *e;
    DIR *d;

    ck_assert_ptr_nonnull(b);
    json_decref(b);
    d = opendir(root);
    ck_assert_ptr_nonnull(d);
    while ((e = readdir(d)) != NULL)
        if (strlen(e->d_name) == STORAGE_ID_LEN &&
            strspn(e->d_name, "0123456789abcdef") == STORAGE_ID_LEN) {
            ck_assert_ptr_null(dir);
            dir = xasprintf("%s/%s", root, e->d_name);
        }
    closedir(d);
    free(root);
    return dir;
}

/* ------------------------------------------------------------------------
 * Tests
 * ---------------------------------------------------------------------- */

/* The copy holds the items written before it and none after; a restore
 * over any partition count finds every item; the catalog's totals are the
 * copy's. Loop: 0 on disk, 1 in memory. */
START_TEST(test_backup_point_in_time)
{
    static const unsigned counts[] = { 1, 3, 8 };
    struct ddb_err err;
    struct stable *t, *r;
    char pk[32], name[32];
    json_t *b, *m;

    ddb_err_init(&err);
    st = storage_open(_i == 0 ? tmpdir : NULL, &err);
    ck_assert_ptr_nonnull(st);
    t = fixture_table("src", 4);
    for (int i = 0; i < 200; i++) {
        snprintf(pk, sizeof(pk), "k%d", i);
        put(t, pk, i);
    }
    backup("b1", &t, 1);
    for (int i = 0; i < 50; i++) {     /* after the copy: not in it */
        snprintf(pk, sizeof(pk), "k%d", i);
        put(t, pk, -1);
        snprintf(pk, sizeof(pk), "new%d", i);
        put(t, pk, 1);
    }
    b = storage_backup_get(st, "b1");
    ck_assert_ptr_nonnull(b);
    ck_assert_str_eq(json_string_value(json_object_get(
                         json_object_get(b, "meta"), "what")), "b1");
    m = json_array_get(json_object_get(b, "members"), 0);
    ck_assert_str_eq(json_string_value(json_object_get(m, "name")), "src");
    ck_assert_int_eq(json_integer_value(json_object_get(m, "items")), 200);
    ck_assert_int_gt(json_integer_value(json_object_get(m, "bytes")), 0);
    ck_assert_int_eq(json_array_size(json_object_get(m, "files")), 4);
    json_decref(b);
    for (size_t c = 0; c < 3; c++) {
        snprintf(name, sizeof(name), "r%u", counts[c]);
        r = restore("b1", "src", name, counts[c]);
        ck_assert_ptr_nonnull(r);
        ck_assert_uint_eq(stable_nparts(r), counts[c]);
        ck_assert_uint_eq(count(r), 200);
        for (int i = 0; i < 200; i++) {
            snprintf(pk, sizeof(pk), "k%d", i);
            ck_assert_int_eq(get_v(r, pk), i);
        }
        ck_assert_int_eq(get_v(r, "new0"), -1);  /* absent */
        stable_release(r);
    }
    stable_release(t);
}
END_TEST

/* A backup outlives its table and a restart; deleting it removes its
 * files and its entry, and a second delete finds nothing. */
START_TEST(test_backup_survives_restart_and_table_delete)
{
    struct ddb_err err;
    struct stable *t, *r;
    char *dir;
    json_t *list;

    ddb_err_init(&err);
    st = storage_open(tmpdir, &err);
    ck_assert_ptr_nonnull(st);
    t = fixture_table("gone", 2);
    put(t, "a", 1);
    put(t, "b", 2);
    backup("b1", &t, 1);
    stable_release(t);
    ck_assert_int_eq(storage_table_delete(st, "gone", &err), 0);
    dir = backup_dir("b1");
    ck_assert_ptr_nonnull(dir);
    storage_close(st);
    st = storage_open(tmpdir, &err);
    ck_assert_ptr_nonnull(st);
    list = storage_backup_list(st);
    ck_assert_int_eq(json_array_size(list), 1);
    json_decref(list);
    r = restore("b1", "gone", "gone", 1);      /* same name, new table */
    ck_assert_int_eq(get_v(r, "a"), 1);
    ck_assert_int_eq(get_v(r, "b"), 2);
    stable_release(r);
    ck_assert(exists(dir));
    ck_assert_int_eq(storage_backup_delete(st, "b1", &err), 0);
    ck_assert(!exists(dir));
    ck_assert_ptr_null(storage_backup_get(st, "b1"));
    ck_assert_int_eq(storage_backup_delete(st, "b1", &err), -1);
    ck_assert_int_eq(err.type, DDB_RESOURCE_NOT_FOUND);
    ddb_err_clear(&err);
    ck_assert_int_eq(storage_backup_restore(st, "b1", "gone", "x", NULL, 1,
                                            &err), -1);
    ck_assert_int_eq(err.type, DDB_RESOURCE_NOT_FOUND);
    free(dir);
}
END_TEST

/* Files a crash left unnamed (a copy interrupted before its catalog row)
 * are removed at the next open; named backups and foreign files stay. */
START_TEST(test_backup_interrupted_copy_is_swept)
{
    struct ddb_err err;
    struct stable *t;
    char *orphan, *file, *dir, *foreign;
    FILE *f;

    ddb_err_init(&err);
    st = storage_open(tmpdir, &err);
    ck_assert_ptr_nonnull(st);
    t = fixture_table("t", 1);
    put(t, "a", 1);
    backup("kept", &t, 1);
    stable_release(t);
    dir = backup_dir("kept");
    storage_close(st);
    st = NULL;
    orphan = xasprintf("%s/backups/0123456789abcdef", tmpdir);
    ck_assert_int_eq(mkdir(orphan, 0700), 0);
    file = xasprintf("%s/fedcba9876543210.db", orphan);
    f = fopen(file, "w");
    ck_assert_ptr_nonnull(f);
    fputs("half a copy", f);
    fclose(f);
    foreign = xasprintf("%s/backups/notes", tmpdir);
    ck_assert_int_eq(mkdir(foreign, 0700), 0);
    st = storage_open(tmpdir, &err);
    ck_assert_ptr_nonnull(st);
    ck_assert(!exists(orphan));
    ck_assert(exists(dir));
    ck_assert(exists(foreign));
    free(orphan);
    free(file);
    free(dir);
    free(foreign);
}
END_TEST

/* A restore copies items and nothing else a partition holds (rows a
 * change log keeps in its own table there). */
START_TEST(test_backup_restores_items_only)
{
    struct ddb_err err;
    struct stable *t, *r;
    sqlite3 *db;
    sqlite3_stmt *q = NULL;
    struct partition *p;

    ddb_err_init(&err);
    st = storage_open(tmpdir, &err);
    ck_assert_ptr_nonnull(st);
    t = fixture_table("t", 1);
    put(t, "a", 1);
    p = playout_of(t)->parts[0];
    partition_lock(p);
    db = partition_db_locked(p);
    ck_assert_int_eq(sqlite3_exec(db, "CREATE TABLE side (x); "
                                  "INSERT INTO side VALUES (1)", NULL, NULL,
                                  NULL), SQLITE_OK);
    partition_unlock(p);
    backup("b", &t, 1);
    r = restore("b", "t", "r", 1);
    ck_assert_int_eq(get_v(r, "a"), 1);
    p = playout_of(r)->parts[0];
    partition_lock(p);
    db = partition_db_locked(p);
    ck_assert_int_ne(sqlite3_prepare_v2(db, "SELECT x FROM side", -1, &q,
                                        NULL), SQLITE_OK);
    sqlite3_finalize(q);
    partition_unlock(p);
    stable_release(r);
    stable_release(t);
}
END_TEST

/* What point-in-time recovery builds on: storage_backup_scan visits every
 * item of a backup's member (keys and sizes as stored), and
 * storage_table_create_rows makes a table of what its function puts, the
 * last put of a key winning, placed over any partition count. Loop: 0 on
 * disk, 1 in memory. */
struct scan_sum {
    long sum, n;
    size_t bytes;
};

static int
scan_fn(void *arg, const struct item_key *k, const json_t *item, size_t size,
        struct ddb_err *err)
{
    struct scan_sum *s = arg;

    (void)k;
    (void)err;
    s->sum += fixture_num(item, "v");
    s->n++;
    s->bytes += size;
    return 0;
}

static int
rows_fn(void *arg, struct storage_rows *rows, struct ddb_err *err)
{
    char pk[16];
    struct item_key k;
    json_t *item;
    int rc = 0;

    (void)arg;
    for (int i = 0; i < 40 && rc == 0; i++) {
        snprintf(pk, sizeof(pk), "r%02d", i % 20);
        fixture_skey(&k, pk, NULL);
        item = json_pack("{s:{s:s}, s:{s:s}}", "pk", "S", pk, "v", "N",
                         i < 20 ? "1" : "2");
        rc = storage_rows_put(rows, &k, item, 10, err);
        json_decref(item);
    }
    return rc;
}

START_TEST(test_backup_scan_and_rows)
{
    struct ddb_err err;
    struct stable *t, *r;
    struct scan_sum s = { 0, 0, 0 };
    json_t *desc = json_pack("{s:s}", "TableName", "rows");

    ddb_err_init(&err);
    st = storage_open(_i == 0 ? tmpdir : NULL, &err);
    ck_assert_ptr_nonnull(st);
    t = fixture_table("t", 3);
    for (int i = 1; i <= 30; i++) {
        char pk[16];

        snprintf(pk, sizeof(pk), "k%d", i);
        put(t, pk, i);
    }
    backup("b", &t, 1);
    put(t, "after", 1000);
    ck_assert_int_eq(storage_backup_scan(st, "b", "t", scan_fn, &s, &err),
                     0);
    ck_assert_int_eq(s.n, 30);
    ck_assert_int_eq(s.sum, 30 * 31 / 2);
    ck_assert_uint_gt(s.bytes, 0);
    ck_assert_int_eq(storage_backup_scan(st, "nope", "t", scan_fn, &s, &err),
                     -1);
    ck_assert_int_eq(err.type, DDB_RESOURCE_NOT_FOUND);
    ddb_err_clear(&err);
    ck_assert_int_eq(storage_table_create_rows(st, "rows", desc, 4, rows_fn,
                                               NULL, &err), 0);
    r = storage_table_get(st, "rows");
    ck_assert_ptr_nonnull(r);
    ck_assert_uint_eq(count(r), 20);
    ck_assert_int_eq(get_v(r, "r07"), 2);
    stable_release(r);
    stable_release(t);
    json_decref(desc);
}
END_TEST

/* ------------------------------------------------------------------------
 * One consistent cut across tables while transactions run
 * ---------------------------------------------------------------------- */

#define NKEYS 8
#define TOTAL 8000

struct cut {
    struct stable *a, *b;
    int stop;
};

static const char *const keys[NKEYS] = { "c0", "c1", "c2", "c3",
                                         "c4", "c5", "c6", "c7" };

static void *
transfers(void *arg)
{
    struct cut *c = arg;
    struct stxn_op ops[2];
    unsigned seed = (unsigned)(uintptr_t)pthread_self();
    struct ddb_err err;

    ddb_err_init(&err);
    while (!__atomic_load_n(&c->stop, __ATOMIC_ACQUIRE)) {
        int x = rand_r(&seed) % NKEYS, y = rand_r(&seed) % NKEYS;
        struct fixture_num_arg ax = { keys[x], "v", -7 },
                               ay = { keys[y], "v", 7 };

        if (x == y)
            continue;
        memset(ops, 0, sizeof(ops));
        ops[0].t = x % 2 ? c->b : c->a;       /* even in a, odd in b */
        fixture_skey(&ops[0].k, keys[x], NULL);
        ops[0].fn = fixture_add_num_fn;
        ops[0].arg = &ax;
        ops[1].t = y % 2 ? c->b : c->a;
        fixture_skey(&ops[1].k, keys[y], NULL);
        ops[1].fn = fixture_add_num_fn;
        ops[1].arg = &ay;
        ck_assert_int_eq(stable_txn(ops, 2, &err), 0);
    }
    return NULL;
}

/* Backups of two tables taken while transfers between them run: each
 * backup, restored, sums to the total. Loop: on disk, in memory. */
START_TEST(test_backup_consistent_cut)
{
    struct cut c = { 0 };
    struct stable *tabs[2], *ra, *rb;
    struct ddb_err err;
    pthread_t w[3];
    char key[16], na[16], nb[16];
    char filler[64];

    ddb_err_init(&err);
    st = storage_open(_i == 0 ? tmpdir : NULL, &err);
    ck_assert_ptr_nonnull(st);
    c.a = fixture_table("ca", 3);
    c.b = fixture_table("cb", 2);
    for (int i = 0; i < NKEYS; i++)
        put(i % 2 ? c.b : c.a, keys[i], TOTAL / NKEYS);
    for (int i = 0; i < 2000; i++) {    /* pages to copy step by step */
        snprintf(filler, sizeof(filler), "filler-%d-%040d", i, i);
        put(i % 2 ? c.b : c.a, filler, 0);
    }
    for (int i = 0; i < 3; i++)
        pthread_create(&w[i], NULL, transfers, &c);
    tabs[0] = c.a;
    tabs[1] = c.b;
    for (int n = 0; n < 4; n++) {
        snprintf(key, sizeof(key), "cut%d", n);
        backup(key, tabs, 2);
    }
    __atomic_store_n(&c.stop, 1, __ATOMIC_RELEASE);
    for (int i = 0; i < 3; i++)
        pthread_join(w[i], NULL);
    for (int n = 0; n < 4; n++) {
        long sum = 0;

        snprintf(key, sizeof(key), "cut%d", n);
        snprintf(na, sizeof(na), "ra%d", n);
        snprintf(nb, sizeof(nb), "rb%d", n);
        ra = restore(key, "ca", na, 2);
        rb = restore(key, "cb", nb, 2);
        for (int i = 0; i < NKEYS; i++)
            sum += get_v(i % 2 ? rb : ra, keys[i]);
        ck_assert_int_eq(sum, TOTAL);
        ck_assert_uint_eq(count(ra) + count(rb), NKEYS + 2000);
        stable_release(ra);
        stable_release(rb);
    }
    stable_release(c.a);
    stable_release(c.b);
}
END_TEST

static Suite *
backup_suite(void)
{
    Suite *s = suite_create("backup");
    TCase *tc = tcase_create("copy");

    tcase_add_checked_fixture(tc, fixture_setup, fixture_teardown);
    /* durable copies fsync: seconds on a loaded machine */
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, test_backup_point_in_time, 0, 2);
    tcase_add_test(tc, test_backup_survives_restart_and_table_delete);
    tcase_add_test(tc, test_backup_interrupted_copy_is_swept);
    tcase_add_test(tc, test_backup_restores_items_only);
    tcase_add_loop_test(tc, test_backup_scan_and_rows, 0, 2);
    suite_add_tcase(s, tc);
    tc = tcase_create("consistency");
    tcase_add_checked_fixture(tc, fixture_setup, fixture_teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, test_backup_consistent_cut, 0, 2);
    suite_add_tcase(s, tc);
    return s;
}

int
main(void)
{
    SRunner *sr = srunner_create(backup_suite());
    int failed;

    srunner_run_all(sr, CK_ENV);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
