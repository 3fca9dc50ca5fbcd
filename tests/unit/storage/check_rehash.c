/* SPDX-License-Identifier: MIT */
/* check_rehash.c - storage/table.c's stable_rehash() and the catalog's key
 * hash column: a data directory whose rows an older version placed by MD5
 * of the key's sortable bytes (its catalog without the keyhash column) is
 * re-placed by DynamoDB's key hash, every row kept, and stays so. */

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>
#include <sqlite3.h>

#include "storage/storage.h"
#include "tests/unit/storage/fixture.h"

#define NKEYS 300

/* The key of string (S) or number (N) i, placed as the old version did:
 * by MD5 of the encoded bytes. */
static void
old_key(struct item_key *k, char type, int i)
{
    unsigned int hl = 0;
    char text[32];

    memset(k, 0, sizeof(*k));
    if (type == 'N') {
        snprintf(text, sizeof(text), "%d.5", i - NKEYS / 2);
        k->pk_len = num_sortkey(text, k->pk);
    } else {
        snprintf(text, sizeof(text), "key%d", i);
        k->pk_len = strlen(text);
        memcpy(k->pk, text, k->pk_len);
    }
    ck_assert_int_eq(EVP_Digest(k->pk, k->pk_len, k->hash, &hl, EVP_md5(),
                                NULL), 1);
}

static int
put_fn(void *arg, const json_t *old, size_t old_size, json_t **new_item,
       size_t *new_size, bool *keep, struct ddb_err *err)
{
    char v[16];

    (void)old;
    (void)keep;
    (void)err;
    snprintf(v, sizeof(v), "%d", *(const int *)arg);
    *new_item = json_pack("{s:{s:s}}", "n", "N", v);
    *new_size = 10;
    return 0;
}

/* Run sql on the closed store's catalog. */
static void
catalog_sql(const char *sql)
{
    char path[128];
    sqlite3 *db = NULL;

    snprintf(path, sizeof(path), "%s/catalog.db", tmpdir);
    ck_assert_int_eq(sqlite3_open(path, &db), SQLITE_OK);
    ck_assert_int_eq(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
}

/* Every key of type is found at its new hash, on the partition that hash
 * falls in, with its value; a scan returns each exactly once. */
static void
check_placed(struct stable *t, char type)
{
    struct ddb_err err;
    uint64_t count = 0, bytes = 0;

    ddb_err_init(&err);
    for (int i = 0; i < NKEYS; i++) {
        struct item_key old, k;
        json_t *item = NULL;

        old_key(&old, type, i);
        key_set(&k, type, old.pk, old.pk_len, NULL, 0);
        ck_assert(memcmp(k.hash, old.hash, 16) != 0);
        ck_assert_int_eq(stable_get(t, &k, &item, &err), 0);
        ck_assert_msg(item != NULL, "key %d lost", i);
        ck_assert_int_eq(fixture_num(item, "n"), i);
        json_decref(item);
        /* nothing left under the old hash */
        ck_assert_int_eq(stable_get(t, &old, &item, &err), 0);
        ck_assert_ptr_null(item);
    }
    ck_assert_int_eq(stable_stats(t, &count, &bytes, &err), 0);
    ck_assert_uint_eq(count, NKEYS);
}

START_TEST(test_rehash_old_data_dir)
{
    static const char types[2] = { 'S', 'N' };
    const char *names[2] = { "strings", "numbers" };
    struct ddb_err err;
    struct stable *t;

    ddb_err_init(&err);
    st = storage_open(tmpdir, &err);
    ck_assert_ptr_nonnull(st);
    for (int j = 0; j < 2; j++) {
        t = fixture_table(names[j], 4);
        ck_assert(!stable_needs_rehash(t));     /* new tables: new hash */
        for (int i = 0; i < NKEYS; i++) {
            struct item_key k;

            old_key(&k, types[j], i);
            ck_assert_int_eq(stable_mutate(t, &k, put_fn, &i, &err), 0);
        }
        stable_release(t);
    }
    storage_close(st);
    st = NULL;
    /* what the older version's catalog looked like */
    catalog_sql("ALTER TABLE tables DROP COLUMN keyhash");

    st = storage_open(tmpdir, &err);
    ck_assert_ptr_nonnull(st);
    for (int j = 0; j < 2; j++) {
        t = storage_table_get(st, names[j]);
        ck_assert(stable_needs_rehash(t));
        ck_assert_int_eq(stable_rehash(t, types[j], &err), 0);
        ck_assert(!stable_needs_rehash(t));
        ck_assert_uint_eq(stable_nparts(t), 4);
        check_placed(t, types[j]);
        /* twice is nothing */
        ck_assert_int_eq(stable_rehash(t, types[j], &err), 0);
        stable_release(t);
    }
    storage_close(st);
    st = NULL;

    /* reopened: recorded as re-placed, the rows where they went */
    st = storage_open(tmpdir, &err);
    ck_assert_ptr_nonnull(st);
    for (int j = 0; j < 2; j++) {
        t = storage_table_get(st, names[j]);
        ck_assert(!stable_needs_rehash(t));
        check_placed(t, types[j]);
        stable_release(t);
    }
}
END_TEST

/* A table re-placed and then written to keeps its new rows; an empty one
 * just records the new hash. */
START_TEST(test_rehash_empty_and_after)
{
    struct ddb_err err;
    struct item_key k;
    struct stable *t;
    int v = 7;

    ddb_err_init(&err);
    st = storage_open(tmpdir, &err);
    t = fixture_table("empty", 2);
    stable_release(t);
    storage_close(st);
    st = NULL;
    catalog_sql("UPDATE tables SET keyhash = 0");
    st = storage_open(tmpdir, &err);
    t = storage_table_get(st, "empty");
    ck_assert(stable_needs_rehash(t));
    ck_assert_int_eq(stable_rehash(t, 'B', &err), 0);
    key_set(&k, 'B', (const uint8_t *)"\x01\x02", 2, NULL, 0);
    ck_assert_int_eq(stable_mutate(t, &k, put_fn, &v, &err), 0);
    ck_assert_int_eq(fixture_num(NULL, "n"), -1);
    stable_release(t);
    storage_close(st);
    st = storage_open(tmpdir, &err);
    t = storage_table_get(st, "empty");
    ck_assert(!stable_needs_rehash(t));
    {
        json_t *item = NULL;

        ck_assert_int_eq(stable_get(t, &k, &item, &err), 0);
        ck_assert_int_eq(fixture_num(item, "n"), 7);
        json_decref(item);
    }
    stable_release(t);
}
END_TEST

static Suite *
rehash_suite(void)
{
    Suite *s = suite_create("rehash");
    TCase *tc = tcase_create("rehash");

    tcase_add_checked_fixture(tc, fixture_setup, fixture_teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_rehash_old_data_dir);
    tcase_add_test(tc, test_rehash_empty_and_after);
    suite_add_tcase(s, tc);
    return s;
}

int
main(void)
{
    SRunner *sr = srunner_create(rehash_suite());
    int failed;

    srunner_run_all(sr, CK_ENV);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
