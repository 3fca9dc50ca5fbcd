/* SPDX-License-Identifier: MIT */
/* check_partmap.c - the partition map: even layout over the 2^64 ring,
 * lookups at range boundaries, many partitions, catalog integer mapping. */
#include <check.h>
#include <stdlib.h>

#include "storage/storage_int.h"

static const unsigned nparts_cases[] = { 1, 2, 3, 4, 5, 7, 8, 10, 16, 100,
                                         1000, 4096, 65537 };

START_TEST(test_partmap_layout_small)
{
    struct partmap m;

    partmap_init_even(&m, 1);
    ck_assert_uint_eq(m.n, 1);
    ck_assert_uint_eq(m.starts[0], 0);
    ck_assert_uint_eq(partmap_end(&m, 0), UINT64_MAX);
    partmap_fini(&m);

    partmap_init_even(&m, 2);
    ck_assert_uint_eq(m.starts[1], UINT64_C(0x8000000000000000));
    ck_assert_uint_eq(partmap_end(&m, 0), UINT64_C(0x7FFFFFFFFFFFFFFF));
    partmap_fini(&m);

    /* floor(2^64 / 3) and floor(2 * 2^64 / 3) */
    partmap_init_even(&m, 3);
    ck_assert_uint_eq(m.starts[1], UINT64_C(6148914691236517205));
    ck_assert_uint_eq(m.starts[2], UINT64_C(12297829382473034410));
    partmap_fini(&m);

    partmap_init_even(&m, 4);
    for (unsigned i = 0; i < 4; i++)
        ck_assert_uint_eq(m.starts[i], (uint64_t)i << 62);
    partmap_fini(&m);

    partmap_init_even(&m, 0);           /* treated as 1 */
    ck_assert_uint_eq(m.n, 1);
    partmap_fini(&m);
}
END_TEST

/* For every n: ascending starts, range sizes differ by at most 1, and
 * lookups at each boundary and one below land on the right side. */
START_TEST(test_partmap_lookup_boundaries)
{
    unsigned n = nparts_cases[_i];
    uint64_t min_w = UINT64_MAX, max_w = 0;
    struct partmap m;

    partmap_init_even(&m, n);
    ck_assert_uint_eq(m.n, n);
    ck_assert_uint_eq(m.starts[0], 0);
    for (unsigned i = 0; i < n; i++) {
        uint64_t s = partmap_start(&m, i), e = partmap_end(&m, i);
        uint64_t w = e - s;             /* width - 1 */

        if (i > 0) {
            ck_assert(s > m.starts[i - 1]);
            ck_assert_uint_eq(partmap_find(&m, s - 1), i - 1);
        }
        ck_assert_uint_eq(partmap_find(&m, s), i);
        ck_assert_uint_eq(partmap_find(&m, e), i);
        ck_assert_uint_eq(partmap_find(&m, s + w / 2), i);
        if (w < min_w)
            min_w = w;
        if (w > max_w)
            max_w = w;
    }
    ck_assert(max_w - min_w <= 1);
    ck_assert_uint_eq(partmap_find(&m, 0), 0);
    ck_assert_uint_eq(partmap_find(&m, UINT64_MAX), n - 1);
    partmap_fini(&m);
}
END_TEST

/* Irregular layout (as after splits) taken from the catalog. */
START_TEST(test_partmap_take_irregular)
{
    uint64_t *starts = malloc(5 * sizeof(*starts));
    struct partmap m;

    starts[0] = 0;
    starts[1] = 10;
    starts[2] = 11;
    starts[3] = UINT64_C(1) << 63;
    starts[4] = UINT64_MAX;
    partmap_init_take(&m, starts, 5);
    ck_assert_uint_eq(partmap_find(&m, 9), 0);
    ck_assert_uint_eq(partmap_find(&m, 10), 1);
    ck_assert_uint_eq(partmap_find(&m, 11), 2);
    ck_assert_uint_eq(partmap_find(&m, 12), 2);
    ck_assert_uint_eq(partmap_find(&m, (UINT64_C(1) << 63) - 1), 2);
    ck_assert_uint_eq(partmap_find(&m, UINT64_C(1) << 63), 3);
    ck_assert_uint_eq(partmap_find(&m, UINT64_MAX - 1), 3);
    ck_assert_uint_eq(partmap_find(&m, UINT64_MAX), 4);
    ck_assert_uint_eq(partmap_end(&m, 1), 10);
    ck_assert_uint_eq(partmap_end(&m, 4), UINT64_MAX);
    partmap_fini(&m);
}
END_TEST

/* The catalog's INTEGER column: round trip and order preserved. */
START_TEST(test_partmap_sql_mapping)
{
    static const uint64_t v[] = { 0, 1, UINT64_C(0x7FFFFFFFFFFFFFFF),
                                  UINT64_C(0x8000000000000000),
                                  UINT64_C(0x8000000000000001),
                                  UINT64_MAX - 1, UINT64_MAX };
    size_t n = sizeof(v) / sizeof(v[0]);

    for (size_t i = 0; i < n; i++) {
        ck_assert_uint_eq(partmap_from_sql(partmap_to_sql(v[i])), v[i]);
        if (i > 0)
            ck_assert(partmap_to_sql(v[i - 1]) < partmap_to_sql(v[i]));
    }
    ck_assert(partmap_to_sql(0) == INT64_MIN);
    ck_assert(partmap_to_sql(UINT64_MAX) == INT64_MAX);
}
END_TEST

/* Dense lookups against a linear search on a big map. */
START_TEST(test_partmap_many_partitions)
{
    struct partmap m;
    uint64_t x = UINT64_C(0x9E3779B97F4A7C15);

    partmap_init_even(&m, 100000);
    for (int i = 0; i < 20000; i++) {
        unsigned p;

        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        p = partmap_find(&m, x);
        ck_assert(m.starts[p] <= x);
        ck_assert(p + 1 == m.n || m.starts[p + 1] > x);
    }
    partmap_fini(&m);
}
END_TEST

static Suite *
partmap_suite(void)
{
    Suite *s = suite_create("partmap");
    TCase *tc = tcase_create("layout");

    tcase_add_test(tc, test_partmap_layout_small);
    tcase_add_loop_test(tc, test_partmap_lookup_boundaries, 0,
                        (int)(sizeof(nparts_cases) / sizeof(nparts_cases[0])));
    tcase_add_test(tc, test_partmap_take_irregular);
    tcase_add_test(tc, test_partmap_many_partitions);
    suite_add_tcase(s, tc);
    tc = tcase_create("catalog");
    tcase_add_test(tc, test_partmap_sql_mapping);
    suite_add_tcase(s, tc);
    return s;
}

int
main(void)
{
    SRunner *sr = srunner_create(partmap_suite());
    int failed;

    srunner_run_all(sr, CK_ENV);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
