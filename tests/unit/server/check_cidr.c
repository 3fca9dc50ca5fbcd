/* SPDX-License-Identifier: MIT */
/* check_cidr.c - --admin-from's address ranges (server/cidr.c): blocks
 * parsed or refused with a message naming the bad one, addresses matched
 * bit by bit (IPv4 through an IPv6 socket too), loopback binds told from
 * the rest. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/cidr.h"

START_TEST(test_cidr_match)
{
    struct cidr_list l;
    char msg[128] = "";

    ck_assert_int_eq(cidr_parse("10.0.0.0/8, 192.168.1.128/25,::1/128,"
                                "2001:db8::/33,203.0.113.9", &l, msg,
                                sizeof(msg)), 0);
    ck_assert_uint_eq(l.n, 5);
    ck_assert(cidr_match(&l, "10.255.1.2"));
    ck_assert(!cidr_match(&l, "11.0.0.1"));
    ck_assert(cidr_match(&l, "192.168.1.200"));
    ck_assert(!cidr_match(&l, "192.168.1.127"));
    ck_assert(cidr_match(&l, "::1"));
    ck_assert(!cidr_match(&l, "::2"));
    ck_assert(cidr_match(&l, "2001:db8:7fff::1"));
    ck_assert(!cidr_match(&l, "2001:db8:8000::1"));
    ck_assert(cidr_match(&l, "203.0.113.9"));
    ck_assert(!cidr_match(&l, "203.0.113.10"));
    ck_assert(cidr_match(&l, "::ffff:10.1.2.3"));   /* dual-stack socket */
    ck_assert(!cidr_match(&l, "127.0.0.1"));
    ck_assert(!cidr_match(&l, "not an address"));
    ck_assert(!cidr_match(&l, NULL));
    cidr_free(&l);
    ck_assert_int_eq(cidr_parse("0.0.0.0/0", &l, msg, sizeof(msg)), 0);
    ck_assert(cidr_match(&l, "198.51.100.1"));
    ck_assert(!cidr_match(&l, "fe80::1"));
    cidr_free(&l);
}
END_TEST

START_TEST(test_cidr_refused)
{
    static const char *const bad[][2] = {
        { "10.0.0.0/33", "10.0.0.0/33" },
        { "10.0.0.0/", "10.0.0.0/" },
        { "10.0.0.0/-1", "10.0.0.0/-1" },
        { "::1/129", "::1/129" },
        { "10.0.0.1,,10.0.0.2", "" },
        { "localhost", "localhost" },
        { "10.0.0.0/8x", "10.0.0.0/8x" },
        { "", "" },
    };
    struct cidr_list l;
    char msg[128], want[128];
    size_t i;

    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        ck_assert_int_eq(cidr_parse(bad[i][0], &l, msg, sizeof(msg)), -1);
        ck_assert_uint_eq(l.n, 0);
        snprintf(want, sizeof(want), "--admin-from: '%s' is not an address "
                 "or CIDR block (10.0.0.0/8, ::1/128)", bad[i][1]);
        ck_assert_str_eq(msg, want);
    }
}
END_TEST

START_TEST(test_cidr_loopback_host)
{
    ck_assert(cidr_host_is_loopback("127.0.0.1"));
    ck_assert(cidr_host_is_loopback("127.8.9.10"));
    ck_assert(cidr_host_is_loopback("::1"));
    ck_assert(cidr_host_is_loopback("LOCALHOST"));
    ck_assert(!cidr_host_is_loopback("0.0.0.0"));
    ck_assert(!cidr_host_is_loopback("::"));
    ck_assert(!cidr_host_is_loopback("192.168.1.2"));
    ck_assert(!cidr_host_is_loopback("example.com"));
    ck_assert(!cidr_host_is_loopback(NULL));
}
END_TEST

static Suite *
cidr_suite(void)
{
    Suite *s = suite_create("cidr");
    TCase *tc = tcase_create("cidr");

    tcase_add_test(tc, test_cidr_match);
    tcase_add_test(tc, test_cidr_refused);
    tcase_add_test(tc, test_cidr_loopback_host);
    suite_add_tcase(s, tc);
    return s;
}

int
main(void)
{
    SRunner *sr = srunner_create(cidr_suite());
    int failed;

    srunner_run_all(sr, CK_ENV);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
