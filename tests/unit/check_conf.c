/* SPDX-License-Identifier: MIT */
/* check_conf.c - unit tests for conf/conf.c: defaults, flags, the config
 * file, precedence (command line over file) and the one-line errors. */

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conf/conf.h"

static char tmpdir[64];
static char cfgpath[128];

static void
setup(void)
{
    strcpy(tmpdir, "/tmp/check_conf.XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(tmpdir));
    snprintf(cfgpath, sizeof(cfgpath), "%s/test.conf", tmpdir);
}

static void
teardown(void)
{
    unlink(cfgpath);
    rmdir(tmpdir);
}

static void
write_file(const char *text)
{
    FILE *f = fopen(cfgpath, "w");

    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

/* Run conf_parse_args on a NULL-terminated list of arguments. */
static int
parse(struct conf *c, const char *const *args)
{
    char *argv[32];
    int argc = 0;

    argv[argc++] = (char *)"shardlocal";
    while (*args != NULL && argc < 31)
        argv[argc++] = (char *)*args++;
    argv[argc] = NULL;
    return conf_parse_args(c, argc, argv);
}

START_TEST(test_conf_defaults)
{
    struct conf c;

    conf_defaults(&c);
    ck_assert_uint_eq(c.port, 8000);
    ck_assert_str_eq(c.host, "127.0.0.1");
    ck_assert_str_eq(c.data_dir, "./data");
    ck_assert(!c.in_memory);
    ck_assert_uint_ge(c.threads, 1);
    ck_assert_int_eq(c.log_level, LOG_INFO);
    ck_assert_str_eq(c.account_id, "000000000000");
    ck_assert_str_eq(c.default_region, "us-east-1");
    ck_assert_uint_eq(c.status_delay_ms, 0);
    ck_assert_str_eq(c.port_file, "");
}
END_TEST

START_TEST(test_conf_flags)
{
    struct conf c;
    const char *args[] = { "--port", "0", "--host=0.0.0.0", "--in-memory",
                           "--threads", "3", "--log-level", "debug",
                           "--account-id", "123456789012", "--region",
                           "eu-west-1", "--status-delay-ms=250",
                           "--port-file", "/tmp/p", "--data-dir", "/var/x",
                           NULL };

    conf_defaults(&c);
    ck_assert_int_eq(parse(&c, args), 0);
    ck_assert_uint_eq(c.port, 0);
    ck_assert_str_eq(c.host, "0.0.0.0");
    ck_assert(c.in_memory);
    ck_assert_uint_eq(c.threads, 3);
    ck_assert_int_eq(c.log_level, LOG_DEBUG);
    ck_assert_str_eq(c.account_id, "123456789012");
    ck_assert_str_eq(c.default_region, "eu-west-1");
    ck_assert_uint_eq(c.status_delay_ms, 250);
    ck_assert_str_eq(c.port_file, "/tmp/p");
    ck_assert_str_eq(c.data_dir, "/var/x");
}
END_TEST

START_TEST(test_conf_file)
{
    struct conf c;

    write_file("# comment\n\nport = 9001   # trailing comment\n"
               "  host=::1\nin-memory = yes\nlog-level = WARN\n"
               "region = ap-south-1\n");
    conf_defaults(&c);
    ck_assert_int_eq(conf_load_file(&c, cfgpath), 0);
    ck_assert_uint_eq(c.port, 9001);
    ck_assert_str_eq(c.host, "::1");
    ck_assert(c.in_memory);
    ck_assert_int_eq(c.log_level, LOG_WARN);
    ck_assert_str_eq(c.default_region, "ap-south-1");
}
END_TEST

START_TEST(test_conf_cmdline_wins)
{
    struct conf c;
    const char *args[] = { "--port", "7000", "--config", cfgpath, NULL };

    write_file("port = 9001\nthreads = 5\n");
    conf_defaults(&c);
    ck_assert_int_eq(parse(&c, args), 0);
    ck_assert_uint_eq(c.port, 7000);    /* flag beats file, whatever order */
    ck_assert_uint_eq(c.threads, 5);    /* file beats default */
}
END_TEST

START_TEST(test_conf_help_version)
{
    struct conf c;
    const char *help[] = { "--port", "1", "--help", NULL };
    const char *version[] = { "--version", NULL };

    conf_defaults(&c);
    ck_assert_int_eq(parse(&c, help), 1);
    ck_assert_int_eq(parse(&c, version), 1);
}
END_TEST

/* Each of these must be refused with status 2. */
static const char *const bad_args[][3] = {
    { "--bogus", NULL, NULL },
    { "--port", "65536", NULL },
    { "--port", "-1", NULL },
    { "--port", "80x", NULL },
    { "--port", NULL, NULL },           /* missing value */
    { "--threads", "0", NULL },
    { "--log-level", "verbose", NULL },
    { "--account-id", "123", NULL },
    { "--account-id", "12345678901a", NULL },
    { "--in-memory=maybe", NULL, NULL },
    { "--host", "", NULL },
    { "--config", "/nonexistent/shardlocal.conf", NULL },
    { "port", "8000", NULL },           /* not a flag */
    { "--status-delay-ms", "", NULL },
};

START_TEST(test_conf_bad_flags)
{
    struct conf c;
    const char *args[4] = { bad_args[_i][0], bad_args[_i][1],
                            bad_args[_i][2], NULL };

    conf_defaults(&c);
    ck_assert_int_eq(parse(&c, args), 2);
}
END_TEST

static const char *const bad_files[] = {
    "nosuchkey = 1\n",
    "port = abc\n",
    "port\n",                           /* not key = value, not a bool */
    "config = other.conf\n",            /* only on the command line */
    "log-level = \n",
};

START_TEST(test_conf_bad_file)
{
    struct conf c;

    write_file(bad_files[_i]);
    conf_defaults(&c);
    ck_assert_int_eq(conf_load_file(&c, cfgpath), 2);
}
END_TEST

static Suite *
conf_suite(void)
{
    Suite *s = suite_create("conf");
    TCase *tc;

    tc = tcase_create("parse");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_conf_defaults);
    tcase_add_test(tc, test_conf_flags);
    tcase_add_test(tc, test_conf_file);
    tcase_add_test(tc, test_conf_cmdline_wins);
    tcase_add_test(tc, test_conf_help_version);
    suite_add_tcase(s, tc);

    tc = tcase_create("errors");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_loop_test(tc, test_conf_bad_flags, 0,
                        sizeof(bad_args) / sizeof(bad_args[0]));
    tcase_add_loop_test(tc, test_conf_bad_file, 0,
                        sizeof(bad_files) / sizeof(bad_files[0]));
    suite_add_tcase(s, tc);
    return s;
}

int
main(void)
{
    SRunner *sr = srunner_create(conf_suite());
    int failed;

    srunner_run_all(sr, CK_ENV);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
