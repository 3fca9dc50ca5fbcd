/* SPDX-License-Identifier: MIT */
/* check_conf.c - unit tests for conf/: defaults, flags, the config file,
 * precedence (command line over file), the one-line errors, the throttling
 * knobs by name, and the settings table against the docs that list it. */

#include <check.h>
#include <ctype.h>
#include <stdbool.h>
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

/* ------------------------------------------------------------------------
 * The throttling knobs (settings with CONF_TABLE) by name.
 * ---------------------------------------------------------------------- */

START_TEST(test_conf_limits_default)
{
    struct throttle_limits lim;
    struct conf c;

    conf_limits_default(&lim);
    ck_assert(lim.partition_rcu == 3000);
    ck_assert(lim.partition_wcu == 1000);
    ck_assert(lim.burst_s == 300);
    ck_assert(lim.burst_start_full);
    ck_assert(lim.adaptive);
    ck_assert(lim.enforce);
    ck_assert(lim.od_initial_rru == 12000);
    ck_assert(lim.od_initial_wru == 4000);
    ck_assert(lim.od_peak_mult == 2);
    ck_assert(lim.od_peak_window_s == 1800);
    ck_assert(lim.od_table_max_rru == 40000);
    ck_assert(lim.od_table_max_wru == 40000);
    ck_assert(lim.scale == 1.0);
    conf_defaults(&c);
    ck_assert(memcmp(&c.throttle, &lim, sizeof(lim)) == 0);
    ck_assert(!c.virtual_clock);
    ck_assert_uint_eq(c.split_size, (uint64_t)10 << 30);
    ck_assert_uint_eq(c.item_collection_limit, (uint64_t)10 << 30);
}
END_TEST

START_TEST(test_conf_limits_set)
{
    struct throttle_limits lim, before;

    conf_limits_default(&lim);
    ck_assert_int_eq(conf_limits_set(&lim, "throttle", "off"), 0);
    ck_assert(!lim.enforce);
    ck_assert_int_eq(conf_limits_set(&lim, "throttle", "on"), 0);
    ck_assert(lim.enforce);
    ck_assert_int_eq(conf_limits_set(&lim, "throttle-scale", "0.01"), 0);
    ck_assert(lim.scale == 0.01);
    ck_assert_int_eq(conf_limits_set(&lim, "partition-wcu", "250"), 0);
    ck_assert(lim.partition_wcu == 250);
    ck_assert_int_eq(conf_limits_set(&lim, "adaptive-capacity", "false"),
                     0);
    ck_assert(!lim.adaptive);
    ck_assert_int_eq(conf_limits_set(&lim, "burst-seconds", "0"), 0);
    ck_assert(lim.burst_s == 0);
    ck_assert_int_eq(conf_limits_set(&lim, "ondemand-peak-multiplier",
                                     "3"), 0);
    ck_assert(lim.od_peak_mult == 3);
    before = lim;
    ck_assert_int_eq(conf_limits_set(&lim, "nope", "1"), -1);
    ck_assert_int_eq(conf_limits_set(&lim, NULL, "1"), -1);
    ck_assert_int_eq(conf_limits_set(&lim, "port", "1"), -1); /* no knob */
    ck_assert_int_eq(conf_limits_set(&lim, "partition-wcu", "0"), -2);
    ck_assert_int_eq(conf_limits_set(&lim, "partition-wcu", "-5"), -2);
    ck_assert_int_eq(conf_limits_set(&lim, "partition-wcu", "12abc"), -2);
    ck_assert_int_eq(conf_limits_set(&lim, "partition-wcu", ""), -2);
    ck_assert_int_eq(conf_limits_set(&lim, "partition-wcu", "nan"), -2);
    ck_assert_int_eq(conf_limits_set(&lim, "partition-wcu", "2e12"), -2);
    ck_assert_int_eq(conf_limits_set(&lim, "throttle", "maybe"), -2);
    ck_assert_int_eq(conf_limits_set(&lim, "ondemand-peak-multiplier",
                                     "0.5"), -2);
    ck_assert_int_eq(conf_limits_set(&lim, "throttle", NULL), -2);
    ck_assert(memcmp(&lim, &before, sizeof(lim)) == 0);
}
END_TEST

/* ------------------------------------------------------------------------
 * The settings table against conf/shardlocal.conf and README.md's options
 * table, so that neither drifts from it.
 * ---------------------------------------------------------------------- */

#define MAX_NAMES 128

struct names {
    char name[MAX_NAMES][64];
    char def[MAX_NAMES][64];            /* README's default column */
    size_t n;
};

/* The whole of top_srcdir/rel (caller frees). */
static char *
read_src(const char *rel)
{
    const char *top = getenv("top_srcdir");
    char path[4096];
    FILE *f;
    char *buf;
    long len;

    snprintf(path, sizeof(path), "%s/%s", top != NULL ? top : ".", rel);
    f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    len = ftell(f);
    fseek(f, 0, SEEK_SET);
    buf = malloc((size_t)len + 1);
    ck_assert_ptr_nonnull(buf);
    ck_assert_uint_eq(fread(buf, 1, (size_t)len, f), (size_t)len);
    buf[len] = '\0';
    fclose(f);
    return buf;
}

static void
add_name(struct names *nm, const char *name, size_t len, const char *def,
         size_t dlen)
{
    ck_assert_uint_lt(nm->n, MAX_NAMES);
    ck_assert_uint_lt(len, sizeof(nm->name[0]));
    ck_assert_uint_lt(dlen, sizeof(nm->def[0]));
    memcpy(nm->name[nm->n], name, len);
    nm->name[nm->n][len] = '\0';
    memcpy(nm->def[nm->n], def, dlen);
    nm->def[nm->n][dlen] = '\0';
    nm->n++;
}

static const char *
def_of(const struct names *nm, const char *name)
{
    for (size_t i = 0; i < nm->n; i++)
        if (strcmp(nm->name[i], name) == 0)
            return nm->def[i];
    return NULL;
}

static const struct conf_option *
option(const char *name)
{
    for (size_t i = 0; i < conf_noptions; i++)
        if (strcmp(conf_options[i].name, name) == 0)
            return &conf_options[i];
    return NULL;
}

/* The keys shardlocal.conf sets or shows commented out: "name = ..." or
 * "# name = ...". */
static void
conf_file_keys(const char *text, struct names *nm)
{
    const char *line = text;

    while (*line != '\0') {
        const char *p = line, *name, *nl = strchr(line, '\n');

        while (*p == '#' || *p == ' ')
            p++;
        name = p;
        while (islower((unsigned char)*p) || isdigit((unsigned char)*p) ||
               *p == '-')
            p++;
        if (p > name && strncmp(p, " =", 2) == 0)
            add_name(nm, name, (size_t)(p - name), "", 0);
        if (nl == NULL)
            break;
        line = nl + 1;
    }
}

/* The flags in the first column of README's "## Options" table ("| `--name
 * ARG` | default | meaning |"), with their defaults. */
static void
readme_flags(const char *text, struct names *nm)
{
    const char *sec = strstr(text, "\n## Options\n"), *end, *row;

    ck_assert_ptr_nonnull(sec);
    end = strstr(sec + 1, "\n## ");
    ck_assert_ptr_nonnull(end);
    for (row = strstr(sec, "\n| `--"); row != NULL && row < end;
         row = strstr(row + 1, "\n| `--")) {
        const char *name = row + 6, *p = name, *cell, *cend;

        while (*p != ' ' && *p != '`')
            p++;
        cell = strstr(p, " | ");
        ck_assert_ptr_nonnull(cell);
        cell += 3;
        cend = *cell == '|' ? cell : strstr(cell, " |"); /* "| |": empty */
        ck_assert_ptr_nonnull(cend);
        add_name(nm, name, (size_t)(p - name), cell, (size_t)(cend - cell));
    }
}

START_TEST(test_conf_docs_list_every_setting)
{
    struct names file = { .n = 0 }, readme = { .n = 0 };
    char *conf_text = read_src("conf/shardlocal.conf");
    char *readme_text = read_src("README.md");
    const char *top = getenv("top_srcdir");
    struct conf c, loaded;
    char path[4096];
    size_t i;

    conf_file_keys(conf_text, &file);
    readme_flags(readme_text, &readme);
    for (i = 0; i < conf_noptions; i++) {
        const struct conf_option *o = &conf_options[i];
        const char *rdef = def_of(&readme, o->name);
        char quoted[80];

        ck_assert_msg(rdef != NULL, "README.md's options table lacks --%s",
                      o->name);
        if (o->def != NULL)
            ck_assert_msg(strcmp(rdef, o->def) == 0, "README.md: --%s "
                          "defaults to '%s', not '%s'", o->name, o->def,
                          rdef);
        if (o->type == CONF_FILE) {     /* command line only: named */
            snprintf(quoted, sizeof(quoted), "\"%s\"", o->name);
            ck_assert_msg(strstr(conf_text, quoted) != NULL,
                          "shardlocal.conf does not mention %s", o->name);
            ck_assert_msg(def_of(&file, o->name) == NULL,
                          "shardlocal.conf sets %s", o->name);
        } else {
            ck_assert_msg(def_of(&file, o->name) != NULL,
                          "shardlocal.conf lacks %s", o->name);
        }
    }
    for (i = 0; i < file.n; i++)
        ck_assert_msg(option(file.name[i]) != NULL,
                      "shardlocal.conf: no setting '%s'", file.name[i]);
    for (i = 0; i < readme.n; i++)
        ck_assert_msg(option(readme.name[i]) != NULL ||
                      strcmp(readme.name[i], "help") == 0,
                      "README.md: no setting '--%s'", readme.name[i]);

    /* The example file loads, and what it sets are the defaults. */
    conf_defaults(&c);
    conf_defaults(&loaded);
    snprintf(path, sizeof(path), "%s/conf/shardlocal.conf",
             top != NULL ? top : ".");
    ck_assert_int_eq(conf_load_file(&loaded, path), 0);
    ck_assert(memcmp(&c, &loaded, sizeof(c)) == 0);
    free(conf_text);
    free(readme_text);
}
END_TEST

/* Each setting once, with a help line. (conf_defaults parses every
 * default, and aborts on a bad one.) */
START_TEST(test_conf_table_entries)
{
    struct conf c;

    conf_defaults(&c);
    for (size_t i = 0; i < conf_noptions; i++) {
        const struct conf_option *o = &conf_options[i];

        ck_assert_msg(o->help != NULL && o->help[0] != '\0', "%s", o->name);
        ck_assert_msg(option(o->name) == o, "%s listed twice", o->name);
    }
}
END_TEST

/* The manual page (conf/man.c) is written from the table: every setting
 * appears as a flag in the OPTIONS section, with its roff-escaped name as
 * the config key, its default, and its per-table tag for the knobs. */
START_TEST(test_conf_man_lists_every_setting)
{
    char *page = NULL, *opts, want[256], name[128];
    size_t len = 0, i, j, k;
    FILE *f = open_memstream(&page, &len);

    ck_assert_ptr_nonnull(f);
    conf_man(f);
    fclose(f);
    ck_assert_msg(strncmp(page, ".\\\" Generated", 13) == 0, "%.40s", page);
    ck_assert_ptr_nonnull(strstr(page, "\n.TH SHARDLOCAL 1 "));
    opts = strstr(page, "\n.SH OPTIONS\n");
    ck_assert_ptr_nonnull(opts);
    ck_assert_ptr_nonnull(strstr(opts, "\n.SH CONFIGURATION FILE\n"));
    for (i = 0; i < conf_noptions; i++) {
        const struct conf_option *o = &conf_options[i];

        for (j = k = 0; o->name[j] != '\0' && k + 3 < sizeof(name); j++) {
            if (o->name[j] == '-')
                name[k++] = '\\';
            name[k++] = o->name[j];
        }
        name[k] = '\0';
        snprintf(want, sizeof(want), "\n.TP\n\\fB\\-\\-%s\\fR", name);
        ck_assert_msg(strstr(opts, want) != NULL, "no flag %s", o->name);
        if (o->type != CONF_FILE) {
            snprintf(want, sizeof(want), "Configuration key: \\fB%s\\fR.",
                     name);
            ck_assert_msg(strstr(opts, want) != NULL, "no key %s", o->name);
        }
        if (o->flags & CONF_TABLE) {
            snprintf(want, sizeof(want), "tag \\fBshardlocal:%s\\fR.", name);
            ck_assert_msg(strstr(opts, want) != NULL, "no tag %s", o->name);
        }
    }
    /* A bare '-' would render as a hyphen: every dash is escaped. */
    ck_assert_ptr_null(strstr(opts, " --"));
    ck_assert_ptr_nonnull(strstr(opts, "Default: 8000."));
    ck_assert_ptr_nonnull(strstr(opts, "\\fB\\-\\-help\\-man\\fR"));
    free(page);
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

    tc = tcase_create("limits");
    tcase_add_test(tc, test_conf_limits_default);
    tcase_add_test(tc, test_conf_limits_set);
    suite_add_tcase(s, tc);

    tc = tcase_create("table");
    tcase_add_test(tc, test_conf_table_entries);
    tcase_add_test(tc, test_conf_docs_list_every_setting);
    tcase_add_test(tc, test_conf_man_lists_every_setting);
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
