/* SPDX-License-Identifier: MIT */
/* check_registry.c - api/throttle/registry.c and what sits around the
 * model: space-saving hot-key sketches, a table's hot keys, knobs from
 * tags, a table's provisioning from its description, warm throughput (the
 * partitions it needs, an on-demand table's instant capacity), and the
 * registry of every table's state. All time is virtual. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/throttle/throttle.h"
#include "tests/unit/throttle/fixture.h"

/* Exact counts for a stream over 200 keys with a few heavy ones: every
 * key above total/k is reported; count >= true >= count - error. */
START_TEST(test_throttle_sketch)
{
    enum { NKEYS = 200, K = 16 };
    static unsigned truth[NKEYS];
    struct throttle_sketch *s = throttle_sketch_new(K);
    struct throttle_hotkey top[K];
    unsigned total = 0;
    size_t n;
    char key[16];

    memset(truth, 0, sizeof(truth));
    srand(42);
    for (unsigned i = 0; i < 20000; i++) {
        unsigned k;

        if (i % 10 < 3)
            k = 0;                      /* 30% */
        else if (i % 10 < 5)
            k = 1 + (i / 10) % 2;       /* 10% each */
        else
            k = 3 + (unsigned)rand() % (NKEYS - 3);
        truth[k]++;
        total++;
        snprintf(key, sizeof(key), "key%u", k);
        throttle_sketch_add(s, (const uint8_t *)key, strlen(key), 1);
    }
    n = throttle_sketch_top(s, top, K);
    ck_assert_uint_eq(n, K);
    ck_assert_uint_eq(top[0].key_len, 4);
    ck_assert(memcmp(top[0].key, "key0", 4) == 0);
    ck_assert(top[0].count >= truth[0]);
    ck_assert(top[0].count - top[0].error <= truth[0]);
    for (size_t i = 0; i < n; i++) {
        unsigned k;

        ck_assert(top[i].key_len < sizeof(key));
        memcpy(key, top[i].key, top[i].key_len);
        key[top[i].key_len] = '\0';
        ck_assert_int_eq(sscanf(key, "key%u", &k), 1);
        ck_assert(top[i].count >= truth[k]);
        ck_assert(top[i].count - top[i].error <= truth[k]);
        if (i > 0)
            ck_assert(top[i - 1].count >= top[i].count);
    }
    /* keys 1 and 2 (10% each > 1/16) are guaranteed present */
    for (unsigned want = 1; want <= 2; want++) {
        bool found = false;

        snprintf(key, sizeof(key), "key%u", want);
        for (size_t i = 0; i < n; i++)
            found |= top[i].key_len == strlen(key) &&
                     memcmp(top[i].key, key, top[i].key_len) == 0;
        ck_assert(found);
    }
    throttle_hotkeys_free(top, n);
    (void)total;
    throttle_sketch_free(s);
}
END_TEST

START_TEST(test_throttle_hotkeys_table)
{
    struct throttle_limits lim;
    struct throttle_table *t;
    struct throttle_hotkey top[4];
    struct throttle_ticket tk;
    char key[16];
    size_t n;

    throttle_limits_default(&lim);
    t = mk(&lim, false, 300, 900, 1, T0);
    /* "hot": 1,500 writes of 2 units in one instant (the partition takes
     * 2,500 units at once: 1,250 of them); 50 cold keys once */
    for (unsigned i = 0; i < 1500; i++) {
        if (throttle_admit(t, 0, THROTTLE_WRITE, 2, (const uint8_t *)"hot",
                           3, T0, &tk) == THROTTLE_OK)
            throttle_charge(t, &tk, 2, (const uint8_t *)"hot", 3, T0);
    }
    for (unsigned i = 0; i < 50; i++) {
        snprintf(key, sizeof(key), "cold%u", i);
        if (throttle_admit(t, 0, THROTTLE_READ, 1, (const uint8_t *)key,
                           strlen(key), T0, &tk) == THROTTLE_OK)
            throttle_charge(t, &tk, 0.5, (const uint8_t *)key, strlen(key),
                            T0);
    }
    n = throttle_hotkeys(t, THROTTLE_HK_WRITE, top, 4);
    ck_assert_uint_eq(n, 1);
    ck_assert(top[0].count == 2500.0);          /* 1,250 admitted x 2 */
    ck_assert(top[0].error == 0.0);
    throttle_hotkeys_free(top, n);
    n = throttle_hotkeys(t, THROTTLE_HK_WRITE_THROTTLED, top, 4);
    ck_assert_uint_eq(n, 1);
    ck_assert_uint_eq(top[0].key_len, 3);
    ck_assert(memcmp(top[0].key, "hot", 3) == 0);
    ck_assert(top[0].count == 250.0);           /* 250 rejections */
    throttle_hotkeys_free(top, n);
    n = throttle_hotkeys(t, THROTTLE_HK_READ, top, 4);
    ck_assert_uint_eq(n, 4);
    ck_assert(top[0].count == 0.5);
    throttle_hotkeys_free(top, n);
    ck_assert_uint_eq(throttle_hotkeys(t, THROTTLE_HK_READ_THROTTLED, top, 4),
                      0);
    throttle_table_free(t);
}
END_TEST

START_TEST(test_throttle_knob_tags)
{
    struct throttle_limits lim;
    json_t *tags;

    /* Knobs by name and their ranges: check_conf's test_conf_limits_set. */
    throttle_limits_default(&lim);
    tags = json_loads("[{\"Key\": \"shardlocal:partition-wcu\", "
                      "\"Value\": \"10\"}, {\"Key\": \"env\", \"Value\": "
                      "\"dev\"}, {\"Key\": \"shardlocal:throttle\", "
                      "\"Value\": \"bogus\"}, {\"Key\": "
                      "\"shardlocal:burst-seconds\", \"Value\": \"60\"}]",
                      0, NULL);
    ck_assert_int_eq(throttle_limits_apply_tags(&lim, tags), 2);
    ck_assert(lim.partition_wcu == 10);
    ck_assert(lim.burst_s == 60);
    ck_assert(lim.enforce);
    ck_assert_int_eq(throttle_limits_apply_tags(&lim, NULL), 0);
    json_decref(tags);
}
END_TEST

START_TEST(test_throttle_conf_from_desc)
{
    struct throttle_table_conf tc;
    json_t *d;

    d = json_loads("{\"TableName\": \"T\", \"TableArn\": \"" ARN "\","
                   "\"ProvisionedThroughput\": {\"ReadCapacityUnits\": 300,"
                   " \"WriteCapacityUnits\": 900},"
                   "\"GlobalSecondaryIndexes\": [{\"IndexName\": \"G\","
                   " \"IndexArn\": \"" IARN "\", \"ProvisionedThroughput\":"
                   " {\"ReadCapacityUnits\": 5, \"WriteCapacityUnits\": 7}}]"
                   "}", 0, NULL);
    ck_assert_ptr_nonnull(d);
    ck_assert_int_eq(throttle_conf_from_desc(d, NULL, 1, &tc), 0);
    ck_assert(!tc.on_demand && !tc.is_index);
    ck_assert(tc.rcu == 300 && tc.wcu == 900);
    ck_assert(tc.od_max_rru < 0 && tc.od_max_wru < 0);
    ck_assert_str_eq(tc.arn, ARN);
    ck_assert_uint_eq(tc.nparts, 1);
    ck_assert_int_eq(throttle_conf_from_desc(d, "G", 2, &tc), 0);
    ck_assert(tc.is_index);
    ck_assert(tc.rcu == 5 && tc.wcu == 7);
    ck_assert_str_eq(tc.arn, IARN);
    ck_assert_int_eq(throttle_conf_from_desc(d, "H", 2, &tc), -1);
    json_decref(d);

    d = json_loads("{\"TableArn\": \"" ARN "\", \"BillingModeSummary\":"
                   " {\"BillingMode\": \"PAY_PER_REQUEST\"},"
                   "\"ProvisionedThroughput\": {\"ReadCapacityUnits\": 0,"
                   " \"WriteCapacityUnits\": 0}, \"OnDemandThroughput\":"
                   " {\"MaxReadRequestUnits\": -1, \"MaxWriteRequestUnits\":"
                   " 50}}", 0, NULL);
    ck_assert_int_eq(throttle_conf_from_desc(d, NULL, 4, &tc), 0);
    ck_assert(tc.on_demand);
    ck_assert(tc.od_max_rru < 0);
    ck_assert(tc.od_max_wru == 50);
    json_decref(d);
}
END_TEST

static void
count_visit(void *arg, const char *table, const char *index,
            struct throttle_table *t)
{
    (void)table;
    (void)index;
    (void)t;
    (*(unsigned *)arg)++;
}

START_TEST(test_throttle_registry)
{
    struct throttle_limits lim, got;
    struct throttle_registry *r;
    struct throttle_table_conf tc = { .wcu = 900, .rcu = 300, .nparts = 1,
                                      .arn = ARN };
    struct throttle_table *a, *b, *g, *a2;
    unsigned n = 0;

    throttle_limits_default(&lim);
    r = throttle_registry_new(&lim);
    ck_assert_ptr_null(throttle_registry_find(r, "T", NULL));
    ck_assert_ptr_null(throttle_registry_get(r, "T", NULL, NULL, NULL, T0));
    a = throttle_registry_get(r, "T", NULL, &tc, NULL, T0);
    ck_assert_ptr_nonnull(a);
    ck_assert_ptr_eq(throttle_registry_get(r, "T", NULL, &tc, NULL, T0), a);
    ck_assert_ptr_eq(throttle_registry_find(r, "T", NULL), a);
    g = throttle_registry_get(r, "T", "G", &tc, NULL, T0);
    ck_assert_ptr_ne(g, a);
    ck_assert_ptr_eq(throttle_registry_find(r, "T", "G"), g);
    b = throttle_registry_get(r, "U", NULL, &tc, NULL, T0);
    ck_assert_ptr_ne(b, a);
    throttle_registry_foreach(r, count_visit, &n);
    ck_assert_uint_eq(n, 3);

    /* 2,500 at once (2.5 s of the ceiling), then the server goes to
     * scale 0.01: 25 at once */
    ck_assert_uint_eq(burst_of(a, 1, THROTTLE_WRITE, 3000, 1, T0), 2500);
    lim.scale = 0.01;
    throttle_registry_set_limits(r, &lim, T0 + 5000);
    throttle_registry_limits(r, &got);
    ck_assert(got.scale == 0.01);
    ck_assert_uint_eq(burst_of(b, 1, THROTTLE_WRITE, 1500, 1, T0 + 5000),
                      25);

    /* DeleteTable: the table and its GSI go; a fresh one comes back, the
     * old pointer stays valid */
    throttle_registry_drop(r, "T", NULL);
    ck_assert_ptr_null(throttle_registry_find(r, "T", NULL));
    ck_assert_ptr_null(throttle_registry_find(r, "T", "G"));
    ck_assert_ptr_eq(throttle_registry_find(r, "U", NULL), b);
    ck_assert_int_eq(req(a, 0, THROTTLE_WRITE, 1, 1, T0 + 9000),
                     THROTTLE_OK);
    a2 = throttle_registry_get(r, "T", NULL, &tc, NULL, T0 + 9000);
    ck_assert_ptr_ne(a2, a);
    n = 0;
    throttle_registry_foreach(r, count_visit, &n);
    ck_assert_uint_eq(n, 2);
    throttle_registry_drop(r, "U", "nope");
    ck_assert_ptr_eq(throttle_registry_find(r, "U", NULL), b);
    throttle_registry_free(r);
}
END_TEST

/* Warm throughput (docs/throttling.md, "Warm throughput"): the partitions
 * it needs at once, and an on-demand table's instant capacity of at
 * least that much, there as soon as it is raised. */
START_TEST(test_throttle_warm)
{
    struct throttle_limits lim;
    struct throttle_table_conf tc = {
        .on_demand = true, .nparts = 8, .arn = ARN,
        .od_max_rru = -1, .od_max_wru = -1,
    };
    struct throttle_table *t;
    struct throttle_table_stats st;

    throttle_limits_default(&lim);
    /* on demand: the initial 4 serve 12,000 / 4,000, a quarter each */
    ck_assert_uint_eq(throttle_limits_warm_partitions(&lim, true, 12000,
                                                      4000), 4);
    ck_assert_uint_eq(throttle_limits_warm_partitions(&lim, true, 0, 0), 4);
    ck_assert_uint_eq(throttle_limits_warm_partitions(&lim, true, 24000,
                                                      4000), 8);
    ck_assert_uint_eq(throttle_limits_warm_partitions(&lim, true, 12000,
                                                      4001), 5);
    /* provisioned: 3,000 reads or 1,000 writes per partition, scaled */
    ck_assert_uint_eq(throttle_limits_warm_partitions(&lim, false, 3000,
                                                      1000), 1);
    ck_assert_uint_eq(throttle_limits_warm_partitions(&lim, false, 3001,
                                                      10), 2);
    lim.scale = 0.01;
    ck_assert_uint_eq(throttle_limits_warm_partitions(&lim, false, 30, 25),
                      3);
    ck_assert_uint_eq(throttle_limits_warm_partitions(&lim, true, 24000,
                                                      8000), 8);
    lim.scale = 1;

    /* 8 partitions warmed to 20,000 writes a second: 50,000 at once,
     * then 20,000 a second */
    tc.warm_rru = 12000;
    tc.warm_wru = 20000;
    t = throttle_table_new(&lim, &tc, T0);
    throttle_table_stats(t, T0, &st);
    ck_assert(st.limit[THROTTLE_WRITE] == 20000.0);
    ck_assert(st.limit[THROTTLE_READ] == 12000.0);
    ck_assert_uint_eq(burst_of(t, 8, THROTTLE_WRITE, 60000, 1, T0), 20000);
    throttle_table_free(t);

    /* raised on a live, idle table: the larger capacity is there at once */
    tc.warm_wru = 0;
    t = throttle_table_new(&lim, &tc, T0);
    ck_assert_uint_eq(burst_of(t, 8, THROTTLE_WRITE, 5000, 1, T0), 5000);
    tc.warm_wru = 8000;
    throttle_table_update(t, &tc, T0 + 10000);
    throttle_table_stats(t, T0 + 10000, &st);
    ck_assert(st.limit[THROTTLE_WRITE] == 8000.0);
    ck_assert(st.table_capacity[THROTTLE_WRITE] == 20000.0);
    ck_assert(st.table_level[THROTTLE_WRITE] == 20000.0);
    /* a provisioned table's warm throughput gives it no instant capacity
     * of its own: its provisioned rate still binds */
    tc.on_demand = false;
    tc.wcu = 100;
    throttle_table_update(t, &tc, T0 + 20000);
    throttle_table_stats(t, T0 + 20000, &st);
    ck_assert(st.table_capacity[THROTTLE_WRITE] == 100.0 * 300);
    throttle_table_free(t);
}
END_TEST

static Suite *
registry_suite(void)
{
    Suite *s = suite_create("registry");
    TCase *tc;

    tc = tcase_create("hotkeys");
    tcase_add_test(tc, test_throttle_sketch);
    tcase_add_test(tc, test_throttle_hotkeys_table);
    suite_add_tcase(s, tc);

    tc = tcase_create("integration");
    tcase_add_test(tc, test_throttle_knob_tags);
    tcase_add_test(tc, test_throttle_conf_from_desc);
    tcase_add_test(tc, test_throttle_warm);
    tcase_add_test(tc, test_throttle_registry);
    suite_add_tcase(s, tc);
    return s;
}

int
main(void)
{
    SRunner *sr = srunner_create(registry_suite());
    int failed;

    srunner_run_all(sr, CK_ENV);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
