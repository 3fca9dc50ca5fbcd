/* SPDX-License-Identifier: MIT */
/* check_snapshot.c - snapshots in the store (storage/backup.c, the
 * STORAGE_SNAPSHOT_PREFIX keys an export copies its table into): they
 * hold the table as it was when taken and are read back with
 * storage_backup_scan; ListBackups' storage_backup_list() never shows
 * them; a restart drops any a crash left, files and all. On disk and in
 * memory. */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "storage/storage.h"
#include "storage/util.h"
#include "tests/unit/storage/fixture.h"

#define SNAP STORAGE_SNAPSHOT_PREFIX "e1"

struct seen {
    size_t n;
    uint64_t bytes;
    json_t *pks;                    /* every pk seen */
};

static int
on_row(void *arg, const struct item_key *k, const json_t *item, size_t size,
       struct ddb_err *err)
{
    struct seen *s = arg;

    (void)k;
    (void)err;
    s->n++;
    s->bytes += size;
    json_array_append(s->pks, json_object_get(json_object_get(item, "pk"),
                                              "S"));
    return 0;
}

static void
snapshot(struct stable *t, const char *key)
{
    struct ddb_err err;
    json_t *meta = json_object();

    ddb_err_init(&err);
    ck_assert_msg(storage_backup_create(st, key, &t, 1, meta, &err) == 0,
                  "%s", err.msg);
    json_decref(meta);
}

static size_t
entries(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    size_t n = 0;

    if (d == NULL)
        return 0;
    while ((e = readdir(d)) != NULL)
        if (e->d_name[0] != '.' && strcmp(e->d_name, "backups.db") != 0 &&
            strncmp(e->d_name, "backups.db-", 11) != 0)
            n++;
    closedir(d);
    return n;
}

/* _i: 0 on disk, 1 in memory */
START_TEST(test_snapshot_read_back)
{
    struct ddb_err err;
    struct stable *t;
    struct seen s = { 0 };
    size_t i;
    json_t *list;
    char pk[16];

    ddb_err_init(&err);
    st = storage_open(_i == 0 ? tmpdir : NULL, &err);
    ck_assert_ptr_nonnull(st);
    t = fixture_table("t", 3);
    for (i = 0; i < 40; i++) {
        snprintf(pk, sizeof(pk), "k%02zu", i);
        fixture_put_num(t, pk, "v", (long)i);
    }
    snapshot(t, SNAP);
    fixture_put_num(t, "after", "v", 1);        /* not in the snapshot */
    s.pks = json_array();
    ck_assert_int_eq(storage_backup_scan(st, SNAP, "t", on_row, &s, &err),
                     0);
    ck_assert_uint_eq(s.n, 40);
    ck_assert_uint_gt(s.bytes, 0);
    for (i = 0; i < json_array_size(s.pks); i++)
        ck_assert_str_ne(json_string_value(json_array_get(s.pks, i)),
                         "after");
    json_decref(s.pks);
    /* not a backup: ListBackups never sees it */
    list = storage_backup_list(st);
    ck_assert_uint_eq(json_array_size(list), 0);
    json_decref(list);
    list = storage_backup_get(st, SNAP);        /* but it is there */
    ck_assert_ptr_nonnull(list);
    json_decref(list);
    ck_assert_int_eq(storage_backup_delete(st, SNAP, &err), 0);
    ck_assert_int_eq(storage_backup_scan(st, SNAP, "t", on_row, &s, &err),
                     -1);
    ck_assert_int_eq(err.type, DDB_RESOURCE_NOT_FOUND);
    stable_release(t);
}
END_TEST

START_TEST(test_snapshot_dropped_at_open)
{
    struct ddb_err err;
    struct stable *t;
    json_t *list, *got;
    char *root = xasprintf("%s/backups", tmpdir);

    ddb_err_init(&err);
    st = storage_open(tmpdir, &err);
    ck_assert_ptr_nonnull(st);
    t = fixture_table("t", 2);
    fixture_put_num(t, "a", "v", 1);
    snapshot(t, SNAP);                  /* a crash leaves it */
    snapshot(t, "user-backup");         /* a backup stays */
    stable_release(t);
    ck_assert_uint_eq(entries(root), 2);
    storage_close(st);
    st = storage_open(tmpdir, &err);
    ck_assert_ptr_nonnull(st);
    got = storage_backup_get(st, SNAP);
    ck_assert_ptr_null(got);
    list = storage_backup_list(st);
    ck_assert_uint_eq(json_array_size(list), 1);
    json_decref(list);
    ck_assert_uint_eq(entries(root), 1);        /* its files went */
    free(root);
}
END_TEST

static Suite *
snapshot_suite(void)
{
    Suite *s = suite_create("snapshot");
    TCase *tc = tcase_create("snapshot");

    tcase_add_checked_fixture(tc, fixture_setup, fixture_teardown);
    tcase_add_loop_test(tc, test_snapshot_read_back, 0, 2);
    tcase_add_test(tc, test_snapshot_dropped_at_open);
    suite_add_tcase(s, tc);
    return s;
}

int
main(void)
{
    SRunner *sr = srunner_create(snapshot_suite());
    int failed;

    srunner_run_all(sr, CK_ENV);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
