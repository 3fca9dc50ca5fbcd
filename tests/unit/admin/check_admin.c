/* SPDX-License-Identifier: MIT */
/* check_admin.c - the admin API and /metrics without HTTP: an in-memory
 * store with one two-partition table, a throttle registry charged by hand
 * on a virtual clock, then admin_get()/admin_metrics() and their JSON or
 * Prometheus text. */
#include <check.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/admin/admin.h"
#include "api/throttle/throttle.h"
#include "conf/conf.h"

#define T0 UINT64_C(1700000000000)

static struct storage *st;
static struct throttle_registry *reg;
static struct conf cf;
static struct api_server srv;

static const char desc_text[] =
    "{\"TableName\":\"Tab\",\"TableStatus\":\"ACTIVE\","
    "\"KeySchema\":[{\"AttributeName\":\"pk\",\"KeyType\":\"HASH\"}],"
    "\"AttributeDefinitions\":[{\"AttributeName\":\"pk\","
    "\"AttributeType\":\"N\"}],"
    "\"BillingModeSummary\":{\"BillingMode\":\"PROVISIONED\"},"
    "\"ProvisionedThroughput\":{\"ReadCapacityUnits\":10,"
    "\"WriteCapacityUnits\":20},"
    "\"TableArn\":\"arn:aws:dynamodb:us-east-1:000000000000:table/Tab\"}";

static int
put_fn(void *arg, const json_t *old, size_t old_size, json_t **new_item,
       size_t *new_size, bool *keep, struct ddb_err *err)
{
    (void)old;
    (void)keep;
    (void)err;
    *new_item = json_deep_copy(arg);
    *new_size = 10;
    return 0;
}

/* The key of number n ("-12.5", ...) as encoded by storage. */
static void
num_key(const char *n, struct item_key *k)
{
    char canon[NUM_TEXT_MAX];
    uint8_t pk[KEY_BYTES_MAX];
    json_t *av;
    long len;
    struct ddb_err e;

    ddb_err_init(&e);
    ck_assert_int_eq(num_canonical(n, canon, &e), 0);
    av = json_pack("{s:s}", "N", canon);
    len = key_encode_value(av, pk);
    ck_assert_int_gt(len, 0);
    key_set(k, 'N', pk, (size_t)len, NULL, 0);
    json_decref(av);
}

static void
setup(void)
{
    struct ddb_err e;
    struct throttle_limits lim;
    json_t *desc = json_loads(desc_text, 0, NULL);

    ddb_err_init(&e);
    st = storage_open(NULL, &e);
    ck_assert_ptr_nonnull(st);
    ck_assert_int_eq(storage_table_create(st, "Tab", desc, 2, &e), 0);
    json_decref(desc);
    throttle_limits_default(&lim);
    reg = throttle_registry_new(&lim);
    conf_defaults(&cf);
    memset(&srv, 0, sizeof(srv));
    srv.st = st;
    srv.conf = &cf;
    srv.throttle = reg;
    srv.virtual_clock = true;
    atomic_store(&srv.vclock_ms, T0);
}

static void
teardown(void)
{
    throttle_registry_free(reg);
    storage_close(st);
}

/* Put item {"pk": n} and charge `units` write units for it; returns its
 * partition. */
static unsigned
write_key(const char *n, double units)
{
    struct stable *t = storage_table_get(st, "Tab");
    struct throttle_table_conf tc;
    struct throttle_table *tt;
    struct throttle_ticket tk;
    struct item_key k;
    struct ddb_err e;
    json_t *item, *desc = stable_desc_ref(t);
    unsigned part;

    ddb_err_init(&e);
    num_key(n, &k);
    ck_assert_int_eq(throttle_conf_from_desc(desc, NULL, stable_nparts(t),
                                             &tc), 0);
    tt = throttle_registry_get(reg, "Tab", NULL, &tc, NULL, T0);
    part = stable_part_of(t, k.hash);
    ck_assert_int_eq(throttle_admit(tt, part, THROTTLE_WRITE, units, k.pk,
                                    k.pk_len, T0, &tk), THROTTLE_OK);
    throttle_charge(tt, &tk, units, k.pk, k.pk_len, T0);
    item = json_pack("{s:{s:s}}", "pk", "N", n);
    ck_assert_int_eq(stable_mutate(t, &k, put_fn, item, &e), 0);
    json_decref(item);
    json_decref(desc);
    stable_release(t);
    return part;
}

static json_t *
get_json(const char *path, unsigned want_status)
{
    struct admin_reply r;
    json_t *j;

    admin_get(&srv, path, NULL, NULL, &r);
    ck_assert_uint_eq(r.status, want_status);
    ck_assert_str_eq(r.content_type, "application/json");
    j = json_loadb(r.body, r.len, 0, NULL);
    ck_assert_ptr_nonnull(j);
    free(r.body);
    return j;
}

/* Query arguments for admin_get(): cls is a NULL-terminated array of
 * name, value pairs. */
static const char *
args_of(void *cls, const char *name)
{
    const char *const *kv = cls;

    for (; kv != NULL && kv[0] != NULL; kv += 2)
        if (strcmp(kv[0], name) == 0)
            return kv[1];
    return NULL;
}

/* GET path with query arguments kv; the answer's JSON. */
static json_t *
get_args(const char *path, const char *const *kv, unsigned want_status)
{
    struct admin_reply r;
    json_t *j;

    admin_get(&srv, path, args_of, (void *)kv, &r);
    ck_assert_uint_eq(r.status, want_status);
    ck_assert_str_eq(r.content_type, "application/json");
    j = json_loadb(r.body, r.len, 0, NULL);
    ck_assert_msg(j != NULL, "not JSON: %.*s", (int)r.len, r.body);
    free(r.body);
    return j;
}

START_TEST(test_admin_index)
{
    json_t *j = get_json("/shardlocal", 200);

    ck_assert_str_eq(json_string_value(json_object_get(
                         json_object_get(j, "clock"), "mode")), "virtual");
    ck_assert_int_eq(json_integer_value(json_object_get(
                         json_object_get(j, "clock"), "now_ms")),
                     (json_int_t)T0);
    ck_assert_int_gt(json_array_size(json_object_get(j, "endpoints")), 8);
    json_decref(j);
}
END_TEST

START_TEST(test_admin_not_found)
{
    json_t *j = get_json("/shardlocal/tables/Nope/partitions", 404);

    ck_assert_str_eq(json_string_value(json_object_get(j, "message")),
                     "Requested resource not found: Table: Nope not found");
    json_decref(j);
    j = get_json("/shardlocal/tables/Tab/indexes/G1x/hotkeys", 404);
    ck_assert_str_eq(json_string_value(json_object_get(j, "message")),
                     "Requested resource not found: Index: G1x not found "
                     "for table: Tab");
    json_decref(j);
    json_decref(get_json("/shardlocal/tables/Tab/what", 404));
    json_decref(get_json("/shardlocal/tables/Tab/partitions/x", 404));
    json_decref(get_json("/shardlocalx", 404));
}
END_TEST

START_TEST(test_admin_partitions)
{
    unsigned hp = write_key("7", 3), i;
    json_t *j, *parts, *p;
    uint64_t sum_items = 0;
    double sum_w = 0;

    for (i = 0; i < 6; i++) {
        char n[8];

        snprintf(n, sizeof(n), "%u", 100 + i);
        write_key(n, 1);
    }
    j = get_json("/shardlocal/tables/Tab/partitions", 200);
    ck_assert_int_eq(json_integer_value(json_object_get(j,
                                                        "partition_count")),
                     2);
    parts = json_object_get(j, "partitions");
    ck_assert_uint_eq(json_array_size(parts), 2);
    ck_assert_str_eq(json_string_value(json_object_get(
                         json_array_get(parts, 0), "hash_start")),
                     "0000000000000000");
    ck_assert_str_eq(json_string_value(json_object_get(
                         json_array_get(parts, 1), "hash_end")),
                     "ffffffffffffffff");
    json_array_foreach(parts, i, p) {
        json_t *w = json_object_get(p, "write");

        sum_items += (uint64_t)json_integer_value(json_object_get(
            p, "item_count"));
        sum_w += json_real_value(json_object_get(w, "consumed_total"));
        ck_assert(json_real_value(json_object_get(w, "share_per_second")) ==
                  10.0);
        ck_assert(json_real_value(json_object_get(w, "bucket_capacity")) ==
                  3000.0);
    }
    ck_assert_uint_eq(sum_items, 7);
    ck_assert(sum_w == 9.0);
    p = json_object_get(json_array_get(parts, hp), "write");
    ck_assert(json_real_value(json_object_get(p, "consumed_last_second")) >=
              3.0);
    ck_assert_int_eq(json_integer_value(json_object_get(j, "item_count")), 7);
    json_decref(j);
}
END_TEST

START_TEST(test_admin_hotkeys_numbers)
{
    static const char *const vals[] = { "-12.5", "0", "1000", "0.001",
                                        "-0.0004", "98765432109876543210" };
    json_t *j, *cw, *e;
    size_t i, n = sizeof(vals) / sizeof(vals[0]);
    bool seen[6] = { false };

    write_key("42", 5);
    for (i = 0; i < n; i++)
        write_key(vals[i], 1);
    j = get_json("/shardlocal/tables/Tab/hotkeys", 200);
    cw = json_object_get(j, "consumed_write");
    ck_assert_uint_eq(json_array_size(cw), n + 1);
    e = json_array_get(cw, 0);
    ck_assert_str_eq(json_string_value(json_object_get(
                         json_object_get(e, "key"), "N")), "42");
    ck_assert(json_real_value(json_object_get(e, "count")) == 5.0);
    json_array_foreach(cw, i, e) {
        const char *t = json_string_value(json_object_get(e, "key_text"));
        size_t k;

        for (k = 0; k < n; k++)
            if (strcmp(t, vals[k]) == 0)
                seen[k] = true;
    }
    for (i = 0; i < n; i++)
        ck_assert_msg(seen[i], "%s not rendered back", vals[i]);
    ck_assert_uint_eq(json_array_size(json_object_get(j, "throttled_write")),
                      0);
    json_decref(j);
}
END_TEST

START_TEST(test_admin_metrics)
{
    struct admin_reply r;
    char line[256];

    write_key("1", 2);
    admin_metrics(&srv, &r);
    ck_assert_uint_eq(r.status, 200);
    ck_assert_ptr_nonnull(strstr(r.content_type, "version=0.0.4"));
    ck_assert_ptr_nonnull(strstr(r.body, "# TYPE ConsumedWriteCapacityUnits "
                                         "counter\n"));
    ck_assert_ptr_nonnull(strstr(r.body, "# TYPE ProvisionedReadCapacityUnits"
                                         " gauge\n"));
    ck_assert_ptr_nonnull(strstr(r.body, "ProvisionedWriteCapacityUnits{"
                                         "table=\"Tab\",index=\"\"} 20\n"));
    ck_assert_ptr_nonnull(strstr(r.body, "shardlocal_partitions{table=\"Tab\""
                                         ",index=\"\"} 2\n"));
    ck_assert_ptr_nonnull(strstr(r.body,
                                 "# TYPE WriteKeyRangeThroughputThrottleEvents"
                                 " counter\n"));
    snprintf(line, sizeof(line), "ConsumedWriteCapacityUnits{table=\"Tab\","
             "index=\"\",partition=\"%u\"} 2\n",
             (unsigned)(strstr(r.body, "ConsumedWriteCapacityUnits{table="
                               "\"Tab\",index=\"\",partition=\"0\"} 2\n")
                        ? 0 : 1));
    ck_assert_ptr_nonnull(strstr(r.body, line));
    ck_assert_uint_eq(r.len, strlen(r.body));
    ck_assert_int_eq(r.body[r.len - 1], '\n');
    free(r.body);
}
END_TEST

/* GET .../history: whole seconds since the state began, one entry per
 * partition with its samples, the table's consumption against its
 * capacity, the limits; one partition alone; bad arguments are a 400
 * before the table is looked up. */
START_TEST(test_admin_history)
{
    static const char *const none[] = { NULL };
    static const char *const one[] = { "seconds", "5", "partition", "1",
                                       NULL };
    static const char *const bad[][5] = {
        { "seconds", "0", NULL }, { "seconds", "901", NULL },
        { "seconds", "1e2", NULL }, { "seconds", "", NULL },
        { "seconds", "-3", NULL }, { "partition", "x", NULL },
        { "partition", "2", NULL },
    };
    unsigned hp = write_key("7", 3), k;
    json_t *j, *parts, *p, *secs, *lim;
    double sum = 0;

    write_key("8", 2);
    write_key("9", 1);
    atomic_store(&srv.vclock_ms, T0 + 2500);
    j = get_args("/shardlocal/tables/Tab/history", none, 200);
    ck_assert_int_eq(json_integer_value(json_object_get(j, "seconds")), 60);
    ck_assert(json_is_true(json_object_get(j, "throttle_state")));
    lim = json_object_get(j, "limits");
    ck_assert_str_eq(json_string_value(json_object_get(lim, "billing_mode")),
                     "PROVISIONED");
    ck_assert_int_eq(json_integer_value(json_object_get(
                         lim, "write_provisioned")), 20);
    ck_assert_int_eq(json_integer_value(json_object_get(lim,
                                                        "write_ceiling")),
                     1000);
    parts = json_object_get(j, "partitions");
    ck_assert_uint_eq(json_array_size(parts), 2);
    json_array_foreach(parts, k, p) {
        secs = json_object_get(p, "seconds");
        ck_assert_int_eq(json_integer_value(json_object_get(p, "partition")),
                         (json_int_t)k);
        ck_assert_uint_eq(json_array_size(secs), 2);   /* T0, T0 + 1 s */
        ck_assert_int_eq(json_integer_value(json_object_get(
                             json_array_get(secs, 0), "t")),
                         (json_int_t)(T0 / 1000));
        sum += json_number_value(json_object_get(json_array_get(secs, 0),
                                                 "consumed_wcu"));
        ck_assert(json_number_value(json_object_get(
                      json_array_get(secs, 1), "write_bucket")) == 3000);
        ck_assert(json_number_value(json_object_get(p, "write_share")) ==
                  10);
    }
    ck_assert(sum == 6);
    secs = json_object_get(json_array_get(parts, hp), "seconds");
    ck_assert(json_number_value(json_object_get(json_array_get(secs, 0),
                                                "consumed_wcu")) >= 3);
    secs = json_object_get(j, "table_seconds");
    ck_assert_uint_eq(json_array_size(secs), 2);
    ck_assert(json_number_value(json_object_get(json_array_get(secs, 0),
                                                "consumed_wcu")) == 6);
    ck_assert(json_number_value(json_object_get(json_array_get(secs, 0),
                                                "write_capacity")) == 20);
    ck_assert_uint_eq(json_array_size(json_object_get(j, "events")), 0);
    json_decref(j);

    j = get_args("/shardlocal/tables/Tab/history", one, 200);
    parts = json_object_get(j, "partitions");
    ck_assert_uint_eq(json_array_size(parts), 1);
    ck_assert_int_eq(json_integer_value(json_object_get(
                         json_array_get(parts, 0), "partition")), 1);
    ck_assert_int_eq(json_integer_value(json_object_get(j,
                                                        "partition_count")),
                     2);
    json_decref(j);
    for (k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
        j = get_args("/shardlocal/tables/Tab/history", bad[k], 400);
        ck_assert_ptr_nonnull(strstr(json_string_value(json_object_get(
                                         j, "__type")),
                                     "ValidationException"));
        json_decref(j);
    }
    j = get_args("/shardlocal/tables/Tab/history", bad[1], 400);
    ck_assert_str_eq(json_string_value(json_object_get(j, "message")),
                     "seconds must be a whole number from 1 to 900");
    json_decref(j);
    j = get_args("/shardlocal/tables/Tab/history", bad[6], 400);
    ck_assert_str_eq(json_string_value(json_object_get(j, "message")),
                     "partition 2 does not exist: the table has 2 "
                     "partitions (0 to 1)");
    json_decref(j);
    json_decref(get_args("/shardlocal/tables/Nope/history", none, 404));
    json_decref(get_args("/shardlocal/tables/Tab/history/x", none, 404));
    {
        static const char *const ix[] = { "index", "G1x", NULL };

        json_decref(get_args("/shardlocal/tables/Tab/history", ix, 404));
    }
}
END_TEST

/* One answer holds at most ADMIN_HISTORY_MAX_SAMPLES partition samples:
 * 280 partitions over 900 s are refused, over 890 s or one partition
 * served (the test's time is mostly the 280 in-memory databases). */
START_TEST(test_admin_history_cap)
{
    static const char *const all[] = { "seconds", "900", NULL };
    static const char *const less[] = { "seconds", "890", NULL };
    static const char *const one[] = { "seconds", "900", "partition", "279",
                                       NULL };
    struct throttle_table_conf tc = { .rcu = 1, .wcu = 1, .nparts = 280,
                                      .arn = "", .od_max_rru = -1,
                                      .od_max_wru = -1 };
    struct admin_reply r;
    struct ddb_err e;
    json_t *desc = json_loads(desc_text, 0, NULL), *j;

    ddb_err_init(&e);
    json_object_set_new(desc, "TableName", json_string("Big"));
    ck_assert_int_eq(storage_table_create(st, "Big", desc, 280, &e), 0);
    json_decref(desc);
    throttle_registry_get(reg, "Big", NULL, &tc, NULL, T0 - 1000 * 1000);
    j = get_args("/shardlocal/tables/Big/history", all, 400);
    ck_assert_str_eq(json_string_value(json_object_get(j, "message")),
                     "280 partitions over 900 seconds are more than 250000 "
                     "samples: ask for fewer seconds or for one partition "
                     "(partition=N)");
    json_decref(j);
    admin_get(&srv, "/shardlocal/tables/Big/history", args_of, (void *)less,
              &r);
    ck_assert_uint_eq(r.status, 200);           /* 249,200 samples */
    ck_assert_ptr_nonnull(strstr(r.body, "\"partition\":279,"));
    free(r.body);
    j = get_args("/shardlocal/tables/Big/history", one, 200);
    ck_assert_uint_eq(json_array_size(json_object_get(
                          json_array_get(json_object_get(j, "partitions"),
                                         0), "seconds")), 900);
    json_decref(j);
}
END_TEST

/* A table with no traffic yet has no throttle state: its partitions, no
 * samples, no limits beyond its mode and provisioning. */
START_TEST(test_admin_history_no_state)
{
    static const char *const none[] = { NULL };
    json_t *j = get_args("/shardlocal/tables/Tab/history", none, 200);
    json_t *parts = json_object_get(j, "partitions");

    ck_assert(json_is_false(json_object_get(j, "throttle_state")));
    ck_assert_uint_eq(json_array_size(parts), 2);
    ck_assert_uint_eq(json_array_size(json_object_get(
                          json_array_get(parts, 1), "seconds")), 0);
    ck_assert_str_eq(json_string_value(json_object_get(
                         json_array_get(parts, 1), "hash_end")),
                     "ffffffffffffffff");
    ck_assert_uint_eq(json_array_size(json_object_get(j, "table_seconds")),
                      0);
    ck_assert_ptr_null(json_object_get(json_object_get(j, "limits"),
                                       "write_ceiling"));
    json_decref(j);
}
END_TEST

START_TEST(test_admin_ui)
{
    struct admin_reply r;

    admin_get(&srv, "/shardlocal/ui", NULL, NULL, &r);
    ck_assert_uint_eq(r.status, 200);
    ck_assert_ptr_nonnull(strstr(r.content_type, "text/html"));
    ck_assert_ptr_nonnull(strstr(r.body, "/shardlocal/tables"));
    free(r.body);
}
END_TEST

static Suite *
admin_suite(void)
{
    Suite *s = suite_create("admin");
    TCase *tc = tcase_create("views");

    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);          /* the history cap, under ASan */
    tcase_add_test(tc, test_admin_index);
    tcase_add_test(tc, test_admin_not_found);
    tcase_add_test(tc, test_admin_partitions);
    tcase_add_test(tc, test_admin_hotkeys_numbers);
    tcase_add_test(tc, test_admin_metrics);
    tcase_add_test(tc, test_admin_history);
    tcase_add_test(tc, test_admin_history_no_state);
    tcase_add_test(tc, test_admin_history_cap);
    tcase_add_test(tc, test_admin_ui);
    suite_add_tcase(s, tc);
    return s;
}

int
main(void)
{
    SRunner *sr = srunner_create(admin_suite());
    int failed;

    srunner_run_all(sr, CK_ENV);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
