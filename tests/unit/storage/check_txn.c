/* SPDX-License-Identifier: MIT */
/* check_txn.c - multi-item transactions in the store (storage/txn.c):
 * all-or-nothing across tables and partitions, every fn called on failure,
 * read-only ops, journal replay at open, and isolation under concurrent
 * transfers, snapshot reads and splits. */
#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "storage/storage.h"
#include "storage/storage_int.h"         /* stable_split, table ids */
#include "tests/unit/storage/fixture.h"

/* ------------------------------------------------------------------------
 * Helpers (the directory, keys and tables: fixture.c)
 * ---------------------------------------------------------------------- */

/* A key of partition key pk alone. */
static void
mk_key(struct item_key *k, const char *pk)
{
    fixture_skey(k, pk, NULL);
}

/* Put {"pk": pk, "v": N} directly. */
struct put_arg {
    const char *pk;
    long v;
    bool fail;                      /* fail with a condition error */
    int calls;
};

static int
put_fn(void *arg, const json_t *old, size_t old_size, json_t **new_item,
       size_t *new_size, bool *keep, struct ddb_err *err)
{
    struct put_arg *a = arg;
    char num[32];

    (void)old;
    (void)keep;
    a->calls++;
    if (a->fail)
        return ddb_err_set(err, DDB_CONDITIONAL_CHECK_FAILED,
                           "The conditional request failed");
    snprintf(num, sizeof(num), "%ld", a->v);
    *new_item = json_pack("{s:{s:s}, s:{s:s}}", "pk", "S", a->pk, "v", "N",
                          num);
    *new_size = 10;
    return 0;
}

/* v of the stored item, or -1 if absent. */
static long
get_v(struct stable *t, const char *pk)
{
    return fixture_get_num(t, pk, NULL, "v");
}

static long
item_v(const json_t *item)
{
    return fixture_num(item, "v");
}

static int journal_rows(void);

/* ------------------------------------------------------------------------
 * Commit and cancel
 * ---------------------------------------------------------------------- */

START_TEST(test_txn_commit_across_tables)
{
    struct stable *a, *b;
    struct stxn_op *ops = calloc(6, sizeof(*ops));
    struct put_arg pa[6];
    struct ddb_err err;
    char name[8];
    uint64_t count, bytes;

    ddb_err_init(&err);
    st = storage_open(_i == 0 ? tmpdir : NULL, &err);
    ck_assert_ptr_nonnull(st);
    a = fixture_table("ta", 4);
    b = fixture_table("tb", 3);
    for (int i = 0; i < 6; i++) {
        snprintf(name, sizeof(name), "k%d", i);
        pa[i] = (struct put_arg){ .pk = strdup(name), .v = 7 };
        ops[i].t = i % 2 ? b : a;
        mk_key(&ops[i].k, name);
        ops[i].fn = put_fn;
        ops[i].arg = &pa[i];
    }
    ck_assert_int_eq(stable_txn(ops, 6, &err), 0);
    for (int i = 0; i < 6; i++) {
        snprintf(name, sizeof(name), "k%d", i);
        ck_assert_int_eq(get_v(i % 2 ? b : a, name), 7);
        ck_assert_int_eq(get_v(i % 2 ? a : b, name), -1);
        ck_assert_int_eq(ops[i].rc, 0);
        free((char *)pa[i].pk);
    }
    ck_assert_int_eq(stable_stats(a, &count, &bytes, &err), 0);
    ck_assert_uint_eq(count, 3);
    ck_assert_uint_eq(bytes, 30);
    /* delete two, keep the rest; stats follow */
    ops[0].fn = fixture_del_fn;
    ops[1].fn = fixture_del_fn;
    ck_assert_int_eq(stable_txn(ops, 2, &err), 0);
    ck_assert_int_eq(get_v(a, "k0"), -1);
    ck_assert_int_eq(get_v(b, "k1"), -1);
    ck_assert_int_eq(stable_stats(a, &count, &bytes, &err), 0);
    ck_assert_uint_eq(count, 2);
    ck_assert_uint_eq(bytes, 20);
    stable_release(a);
    stable_release(b);
    storage_close(st);
    st = NULL;
    if (_i == 0)
        ck_assert_int_eq(journal_rows(), 0);
    free(ops);
}
END_TEST

START_TEST(test_txn_cancel_calls_every_fn)
{
    struct stable *a;
    struct stxn_op *ops = calloc(4, sizeof(*ops));
    struct put_arg pa[4] = {
        { .pk = "c0", .v = 1 }, { .pk = "c1", .v = 1, .fail = true },
        { .pk = "c2", .v = 1 }, { .pk = "c3", .v = 1, .fail = true },
    };
    struct ddb_err err;

    ddb_err_init(&err);
    st = storage_open(tmpdir, &err);
    ck_assert_ptr_nonnull(st);
    a = fixture_table("tc", 4);
    for (int i = 0; i < 4; i++) {
        ops[i].t = a;
        mk_key(&ops[i].k, pa[i].pk);
        ops[i].fn = put_fn;
        ops[i].arg = &pa[i];
    }
    ck_assert_int_eq(stable_txn(ops, 4, &err), -1);
    ck_assert_int_eq(err.type, DDB_CONDITIONAL_CHECK_FAILED);
    for (int i = 0; i < 4; i++) {
        ck_assert_int_eq(pa[i].calls, 1);
        ck_assert_int_eq(ops[i].rc, pa[i].fail ? -1 : 0);
        ck_assert_int_eq(ops[i].err.type, pa[i].fail
                                              ? DDB_CONDITIONAL_CHECK_FAILED
                                              : DDB_OK);
        ck_assert_int_eq(get_v(a, pa[i].pk), -1);
        ddb_err_clear(&ops[i].err);
    }
    ddb_err_clear(&err);
    stable_release(a);
    free(ops);
}
END_TEST

START_TEST(test_txn_read_only_and_get)
{
    struct stable *a, *b;
    struct stxn_op *ops = calloc(2, sizeof(*ops));
    struct put_arg pa = { .pk = "w", .v = 3 };
    struct item_key k[3];
    const struct item_key *kp[3] = { &k[0], &k[1], &k[2] };
    struct stable *tabs[3];
    json_t *items[3];
    struct ddb_err err;

    ddb_err_init(&err);
    st = storage_open(NULL, &err);
    ck_assert_ptr_nonnull(st);
    a = fixture_table("tr", 2);
    b = fixture_table("ts", 1);
    ops[0].t = a;
    mk_key(&ops[0].k, "r");         /* read-only: locks, writes nothing */
    ops[1].t = b;
    mk_key(&ops[1].k, "w");
    ops[1].fn = put_fn;
    ops[1].arg = &pa;
    ck_assert_int_eq(stable_txn(ops, 2, &err), 0);
    ck_assert_int_eq(get_v(a, "r"), -1);
    ck_assert_int_eq(get_v(b, "w"), 3);

    mk_key(&k[0], "w");
    mk_key(&k[1], "r");
    mk_key(&k[2], "w");
    tabs[0] = b;
    tabs[1] = a;
    tabs[2] = a;
    ck_assert_int_eq(stable_txn_get(tabs, kp, 3, items, &err), 0);
    ck_assert_int_eq(item_v(items[0]), 3);
    ck_assert_ptr_null(items[1]);
    ck_assert_ptr_null(items[2]);
    json_decref(items[0]);
    stable_release(a);
    stable_release(b);
    free(ops);
}
END_TEST

/* ------------------------------------------------------------------------
 * Journal replay
 * ---------------------------------------------------------------------- */

static int
journal_rows(void)
{
    char path[128];
    sqlite3 *db;
    sqlite3_stmt *q;
    int n;

    snprintf(path, sizeof(path), "%s/catalog.db", tmpdir);
    ck_assert_int_eq(sqlite3_open(path, &db), SQLITE_OK);
    ck_assert_int_eq(sqlite3_prepare_v2(db, "SELECT count(*) FROM "
                                            "txn_journal", -1, &q, NULL),
                     SQLITE_OK);
    ck_assert_int_eq(sqlite3_step(q), SQLITE_ROW);
    n = sqlite3_column_int(q, 0);
    sqlite3_finalize(q);
    sqlite3_close(db);
    return n;
}

static void
insert_journal(const char *body)
{
    char path[128];
    sqlite3 *db;
    sqlite3_stmt *q;

    snprintf(path, sizeof(path), "%s/catalog.db", tmpdir);
    ck_assert_int_eq(sqlite3_open(path, &db), SQLITE_OK);
    ck_assert_int_eq(sqlite3_prepare_v2(db, "INSERT INTO txn_journal (body) "
                                            "VALUES (?1)", -1, &q, NULL),
                     SQLITE_OK);
    sqlite3_bind_text(q, 1, body, -1, SQLITE_STATIC);
    ck_assert_int_eq(sqlite3_step(q), SQLITE_DONE);
    sqlite3_finalize(q);
    sqlite3_close(db);
}

static void
hex(const uint8_t *b, size_t n, char *out)
{
    for (size_t i = 0; i < n; i++)
        sprintf(out + 2 * i, "%02x", b[i]);
    out[2 * n] = '\0';
}

START_TEST(test_txn_journal_replay)
{
    struct stable *a, *b;
    struct ddb_err err;
    struct item_key k;
    char ida[STORAGE_ID_LEN + 1], idb[STORAGE_ID_LEN + 1];
    char h1[33], p1[16], h2[33], p2[16], h3[33], p3[16], body[2048];
    struct put_arg pa = { .pk = "gone", .v = 1 };
    uint64_t count, bytes;

    ddb_err_init(&err);
    st = storage_open(tmpdir, &err);
    ck_assert_ptr_nonnull(st);
    a = fixture_table("ja", 4);
    b = fixture_table("jb", 2);
    memcpy(ida, a->id, sizeof(ida));
    memcpy(idb, b->id, sizeof(idb));
    /* an item the replayed transaction deletes */
    mk_key(&k, "gone");
    ck_assert_int_eq(stable_mutate(b, &k, put_fn, &pa, &err), 0);
    stable_release(a);
    stable_release(b);
    storage_close(st);
    st = NULL;
    ck_assert_int_eq(journal_rows(), 0);

    mk_key(&k, "x1");
    hex(k.hash, 16, h1);
    hex(k.pk, k.pk_len, p1);
    mk_key(&k, "x2");
    hex(k.hash, 16, h2);
    hex(k.pk, k.pk_len, p2);
    mk_key(&k, "gone");
    hex(k.hash, 16, h3);
    hex(k.pk, k.pk_len, p3);
    snprintf(body, sizeof(body),
             "[{\"t\":\"%s\",\"h\":\"%s\",\"pk\":\"%s\",\"sk\":\"\","
             "\"i\":{\"pk\":{\"S\":\"x1\"},\"v\":{\"N\":\"41\"}},\"z\":10},"
             "{\"t\":\"%s\",\"h\":\"%s\",\"pk\":\"%s\",\"sk\":\"\","
             "\"i\":{\"pk\":{\"S\":\"x2\"},\"v\":{\"N\":\"42\"}},\"z\":10},"
             "{\"t\":\"%s\",\"h\":\"%s\",\"pk\":\"%s\",\"sk\":\"\","
             "\"i\":null,\"z\":0},"
             "{\"t\":\"ffffffffffffffff\",\"h\":\"%s\",\"pk\":\"%s\","
             "\"sk\":\"\",\"i\":null,\"z\":0}]",
             ida, h1, p1, idb, h2, p2, idb, h3, p3, h3, p3);
    insert_journal(body);
    insert_journal(body);           /* twice: replay is idempotent */
    ck_assert_int_eq(journal_rows(), 2);

    st = storage_open(tmpdir, &err);
    ck_assert_ptr_nonnull(st);
    a = storage_table_get(st, "ja");
    b = storage_table_get(st, "jb");
    ck_assert_int_eq(get_v(a, "x1"), 41);
    ck_assert_int_eq(get_v(b, "x2"), 42);
    ck_assert_int_eq(get_v(b, "gone"), -1);
    ck_assert_int_eq(stable_stats(b, &count, &bytes, &err), 0);
    ck_assert_uint_eq(count, 1);
    ck_assert_uint_eq(bytes, 10);
    stable_release(a);
    stable_release(b);
    storage_close(st);
    st = NULL;
    ck_assert_int_eq(journal_rows(), 0);
}
END_TEST

/* ------------------------------------------------------------------------
 * A full disk after the journal: the transaction's partitions are fenced
 * until a restart replays it, so nobody sees half of it.
 * ---------------------------------------------------------------------- */

/* put_fn with a 20 KB attribute: a write that needs new pages. */
static int
big_fn(void *arg, const json_t *old, size_t old_size, json_t **new_item,
       size_t *new_size, bool *keep, struct ddb_err *err)
{
    static char pad[20001];

    if (put_fn(arg, old, old_size, new_item, new_size, keep, err) != 0)
        return -1;
    memset(pad, 'p', sizeof(pad) - 1);
    json_object_set_new(*new_item, "pad", json_pack("{s:s}", "S", pad));
    *new_size = 20010;
    return 0;
}

START_TEST(test_txn_full_disk_fences_until_replay)
{
    struct stable *a, *b;
    struct partition *pb;
    struct stxn_op ops[2];
    struct put_arg pa[2] = { { .pk = "x1", .v = 2 }, { .pk = "x2", .v = 2 } };
    struct put_arg one = { .pk = "x1", .v = 1 };
    struct ddb_err err;
    struct item_key k;
    json_t *item = NULL;

    ddb_err_init(&err);
    st = storage_open(tmpdir, &err);
    ck_assert_ptr_nonnull(st);
    a = fixture_table("fa", 1);
    b = fixture_table("fb", 1);
    mk_key(&k, "x1");
    ck_assert_int_eq(stable_mutate(a, &k, put_fn, &one, &err), 0);
    one.pk = "x2";
    mk_key(&k, "x2");
    ck_assert_int_eq(stable_mutate(b, &k, put_fn, &one, &err), 0);
    /* b's disk is full: its database may not grow by a page */
    pb = playout_of(b)->parts[0];
    partition_lock(pb);
    ck_assert_int_eq(partition_max_pages_locked(pb, 1), 0);
    partition_unlock(pb);

    memset(ops, 0, sizeof(ops));
    ops[0].t = a;
    mk_key(&ops[0].k, "x1");
    ops[0].fn = big_fn;
    ops[0].arg = &pa[0];
    ops[1].t = b;
    mk_key(&ops[1].k, "x2");
    ops[1].fn = big_fn;
    ops[1].arg = &pa[1];
    ck_assert_int_eq(stable_txn(ops, 2, &err), -1);
    ck_assert_int_eq(err.type, DDB_STORAGE_FULL);
    ck_assert_str_eq(err.msg, STORAGE_FULL_MSG);
    ddb_err_clear(&err);
    ck_assert_int_eq(journal_rows(), 1);
    /* a committed its half, b could not: both refuse until the replay */
    mk_key(&k, "x1");
    ck_assert_int_eq(stable_get(a, &k, &item, &err), -1);
    ck_assert_int_eq(err.type, DDB_STORAGE_FULL);
    ddb_err_clear(&err);
    ck_assert_int_eq(stable_mutate(a, &k, put_fn, &one, &err), -1);
    ck_assert_int_eq(err.type, DDB_STORAGE_FULL);
    ddb_err_clear(&err);
    mk_key(&k, "x2");
    ck_assert_int_eq(stable_get(b, &k, &item, &err), -1);
    ddb_err_clear(&err);
    ck_assert_int_eq(stable_split(a, 0, &err), -1);
    ddb_err_clear(&err);
    stable_release(a);
    stable_release(b);
    storage_close(st);

    /* the restart completes it */
    st = storage_open(tmpdir, &err);
    ck_assert_ptr_nonnull(st);
    a = storage_table_get(st, "fa");
    b = storage_table_get(st, "fb");
    ck_assert_int_eq(get_v(a, "x1"), 2);
    ck_assert_int_eq(get_v(b, "x2"), 2);
    ck_assert_int_eq(journal_rows(), 0);
    stable_release(a);
    stable_release(b);
}
END_TEST

/* ------------------------------------------------------------------------
 * Isolation: concurrent transfers keep the sum; snapshot readers and
 * single-item readers never see a half transfer; splits run meanwhile.
 * ---------------------------------------------------------------------- */

#define NKEYS 8
#define TOTAL 800

struct iso {
    struct stable *a, *b;
    int stop;
    int bad;
    pthread_mutex_t mu;
};

static const char *const iso_keys[NKEYS] = { "i0", "i1", "i2", "i3",
                                             "i4", "i5", "i6", "i7" };

static void *
transfer_thread(void *p)
{
    struct iso *s = p;
    struct stxn_op *ops = calloc(2, sizeof(*ops));
    unsigned seed = (unsigned)(uintptr_t)pthread_self();
    struct ddb_err err;

    ddb_err_init(&err);
    for (int n = 0; n < 300; n++) {
        int x = rand_r(&seed) % NKEYS, y = rand_r(&seed) % NKEYS;
        struct fixture_num_arg ax = { iso_keys[x], "v", -5 },
                               ay = { iso_keys[y], "v", 5 };

        if (x == y)
            continue;
        /* even keys live in table a, odd ones in b */
        ops[0].t = x % 2 ? s->b : s->a;
        mk_key(&ops[0].k, iso_keys[x]);
        ops[0].fn = fixture_add_num_fn;
        ops[0].arg = &ax;
        ops[1].t = y % 2 ? s->b : s->a;
        mk_key(&ops[1].k, iso_keys[y]);
        ops[1].fn = fixture_add_num_fn;
        ops[1].arg = &ay;
        ck_assert_int_eq(stable_txn(ops, 2, &err), 0);
    }
    free(ops);
    return NULL;
}

static void *
reader_thread(void *p)
{
    struct iso *s = p;
    struct item_key *k = calloc(NKEYS, sizeof(*k));
    const struct item_key *kp[NKEYS];
    struct stable *tabs[NKEYS];
    json_t *items[NKEYS];
    struct ddb_err err;

    ddb_err_init(&err);
    for (int i = 0; i < NKEYS; i++) {
        mk_key(&k[i], iso_keys[i]);
        kp[i] = &k[i];
        tabs[i] = i % 2 ? s->b : s->a;
    }
    while (!__atomic_load_n(&s->stop, __ATOMIC_ACQUIRE)) {
        long sum = 0;

        ck_assert_int_eq(stable_txn_get(tabs, kp, NKEYS, items, &err), 0);
        for (int i = 0; i < NKEYS; i++) {
            sum += item_v(items[i]);
            json_decref(items[i]);
        }
        if (sum != TOTAL)
            __atomic_add_fetch(&s->bad, 1, __ATOMIC_RELAXED);
    }
    free(k);
    return NULL;
}

START_TEST(test_txn_isolation_with_splits)
{
    struct iso s = { 0 };
    struct put_arg pa;
    struct item_key k;
    struct ddb_err err;
    pthread_t w[4], r[2];
    long sum = 0;

    ddb_err_init(&err);
    st = storage_open(_i == 0 ? tmpdir : NULL, &err);
    ck_assert_ptr_nonnull(st);
    s.a = fixture_table("ia", 2);
    s.b = fixture_table("ib", 1);
    for (int i = 0; i < NKEYS; i++) {
        pa = (struct put_arg){ .pk = iso_keys[i], .v = TOTAL / NKEYS };
        mk_key(&k, iso_keys[i]);
        ck_assert_int_eq(stable_mutate(i % 2 ? s.b : s.a, &k, put_fn, &pa,
                                       &err), 0);
    }
    for (int i = 0; i < 2; i++)
        pthread_create(&r[i], NULL, reader_thread, &s);
    for (int i = 0; i < 4; i++)
        pthread_create(&w[i], NULL, transfer_thread, &s);
    /* split while transfers run: they must retry on the new layout */
    for (int i = 0; i < 3; i++) {
        ck_assert_int_eq(stable_split(s.a, 0, &err), 0);
        ck_assert_int_eq(stable_split(s.b, 0, &err), 0);
    }
    for (int i = 0; i < 4; i++)
        pthread_join(w[i], NULL);
    __atomic_store_n(&s.stop, 1, __ATOMIC_RELEASE);
    for (int i = 0; i < 2; i++)
        pthread_join(r[i], NULL);
    ck_assert_int_eq(s.bad, 0);
    for (int i = 0; i < NKEYS; i++)
        sum += get_v(i % 2 ? s.b : s.a, iso_keys[i]);
    ck_assert_int_eq(sum, TOTAL);
    ck_assert_uint_eq(stable_nparts(s.a), 5);
    stable_release(s.a);
    stable_release(s.b);
}
END_TEST

static Suite *
txn_suite(void)
{
    Suite *s = suite_create("txn");
    TCase *tc;

    tc = tcase_create("commit");
    tcase_add_checked_fixture(tc, fixture_setup, fixture_teardown);
    tcase_add_loop_test(tc, test_txn_commit_across_tables, 0, 2);
    tcase_add_test(tc, test_txn_cancel_calls_every_fn);
    tcase_add_test(tc, test_txn_read_only_and_get);
    suite_add_tcase(s, tc);

    tc = tcase_create("journal");
    tcase_add_checked_fixture(tc, fixture_setup, fixture_teardown);
    tcase_add_test(tc, test_txn_journal_replay);
    tcase_add_test(tc, test_txn_full_disk_fences_until_replay);
    suite_add_tcase(s, tc);

    tc = tcase_create("isolation");
    tcase_set_timeout(tc, 60);
    tcase_add_checked_fixture(tc, fixture_setup, fixture_teardown);
    tcase_add_loop_test(tc, test_txn_isolation_with_splits, 0, 2);
    suite_add_tcase(s, tc);
    return s;
}

int
main(void)
{
    SRunner *sr = srunner_create(txn_suite());
    int failed;

    srunner_run_all(sr, CK_ENV);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
