/* SPDX-License-Identifier: MIT */
/* check_warm.c - warm throughput in the throttling engine: the partitions
 * a warm throughput needs at once (throttle_limits_warm_partitions) and an
 * on-demand table's instant capacity of at least that much, there as soon
 * as it is raised (docs/throttling.md, "Warm throughput"). */
#include <check.h>
#include <stdlib.h>

#include "tests/unit/throttle/fixture.h"

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
warm_suite(void)
{
    Suite *s = suite_create("throttle_warm");
    TCase *tc = tcase_create("warm");

    tcase_add_test(tc, test_throttle_warm);
    suite_add_tcase(s, tc);
    return s;
}

int
main(void)
{
    SRunner *sr = srunner_create(warm_suite());
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
