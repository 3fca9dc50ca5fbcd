/* SPDX-License-Identifier: MIT */
/* check_warm.c - WarmThroughput in the control plane (api/tables/warm.c):
 * CreateTable's minimums and quota, what a table or GSI is warmed to
 * without asking and after billing changes, UpdateTable's increases
 * (refused decreases, UPDATING then ACTIVE with the old values shown
 * meanwhile), each with DynamoDB's message. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "api/tables/tables_int.h"
#include "api/throttle/throttle.h"
#include "conf/conf.h"

static struct conf cf;
static struct api_server srv;
static struct api_ctx ctx;
static struct throttle_limits lim;
static struct ddb_err err;

static void
setup(void)
{
    conf_defaults(&cf);
    memset(&srv, 0, sizeof(srv));
    srv.conf = &cf;
    memset(&ctx, 0, sizeof(ctx));
    ctx.srv = &srv;
    ctx.region = "eu-west-2";
    throttle_limits_default(&lim);
    ddb_err_init(&err);
}

static void
teardown(void)
{
    ddb_err_clear(&err);
}

static json_t *
J(const char *text)
{
    json_error_t je;
    json_t *j = json_loads(text, 0, &je);

    ck_assert_msg(j != NULL, "bad JSON %s: %s", text, je.text);
    return j;
}

/* tables_warm_check_new on spec (JSON text); 0, or the message in msg. */
static int
check_new(const char *spec, bool od, long long r, long long w,
          const char *iname, enum ddb_errtype type, const char *msg)
{
    json_t *s = J(spec);
    int rc = tables_warm_check_new(&ctx, &lim, s, od, r, w, iname, &err);

    json_decref(s);
    if (msg == NULL) {
        ck_assert_msg(rc == 0, "%s: %s", spec, err.msg);
        return 0;
    }
    ck_assert_int_eq(rc, -1);
    ck_assert_int_eq(err.type, type);
    ck_assert_str_eq(err.msg, msg);
    ddb_err_clear(&err);
    return -1;
}

#define OD_LOW "One or more parameter values were invalid: Requested %s " \
    "for WarmThroughput for %s is lower than initial throughput for " \
    "OnDemand. See: https://docs.aws.amazon.com/amazondynamodb/latest/" \
    "developerguide/on-demand-capacity-mode.html" \
    "#on-demand-capacity-mode-initial"

/* CreateTable: at least what the table gets anyway, reads checked first
 * (a catalogue of recorded messages, 2026-10-08; Alternator's
 * test_warm_throughput.py, run against DynamoDB, names the low member). */
START_TEST(test_warm_create_minimums)
{
    char m[512];

    check_new("{}", true, 0, 0, NULL, DDB_OK, NULL);
    check_new("{\"ReadUnitsPerSecond\": 12000, \"WriteUnitsPerSecond\": 4000}",
              true, 0, 0, NULL, DDB_OK, NULL);
    check_new("{\"WriteUnitsPerSecond\": 40000}", true, 0, 0, NULL, DDB_OK,
              NULL);
    snprintf(m, sizeof(m), OD_LOW, "ReadUnitsPerSecond", "table");
    check_new("{\"ReadUnitsPerSecond\": 1, \"WriteUnitsPerSecond\": 1}", true,
              0, 0, NULL, DDB_VALIDATION, m);
    check_new("{\"ReadUnitsPerSecond\": -1}", true, 0, 0, NULL,
              DDB_VALIDATION, m);
    snprintf(m, sizeof(m), OD_LOW, "WriteUnitsPerSecond", "table");
    check_new("{\"ReadUnitsPerSecond\": 12000, \"WriteUnitsPerSecond\": 3999}",
              true, 0, 0, NULL, DDB_VALIDATION, m);
    snprintf(m, sizeof(m), OD_LOW, "ReadUnitsPerSecond", "index gix");
    check_new("{\"ReadUnitsPerSecond\": 11999}", true, 0, 0, "gix",
              DDB_VALIDATION, m);
    /* provisioned: not below the capacity units */
    check_new("{\"ReadUnitsPerSecond\": 100, \"WriteUnitsPerSecond\": 100}",
              false, 10, 10, NULL, DDB_OK, NULL);
    check_new("{\"ReadUnitsPerSecond\": 5, \"WriteUnitsPerSecond\": 5}",
              false, 10, 10, NULL, DDB_VALIDATION,
              "One or more parameter values were invalid: Requested "
              "ReadUnitsPerSecond for WarmThroughput for table is lower "
              "than ReadCapacityUnits of ProvisionedThroughput");
    check_new("{\"WriteUnitsPerSecond\": 9}", false, 10, 10, "gix",
              DDB_VALIDATION,
              "One or more parameter values were invalid: Requested "
              "WriteUnitsPerSecond for WarmThroughput for index gix is "
              "lower than WriteCapacityUnits of ProvisionedThroughput");
    /* above the per-table quota (40,000): LimitExceededException */
    check_new("{\"ReadUnitsPerSecond\": 40001}", true, 0, 0, NULL,
              DDB_LIMIT_EXCEEDED,
              "Subscriber limit exceeded: Requested ReadUnitsPerSecond for "
              "WarmThroughput for table exceeds TableMaxReadCapacityUnits "
              "of the account in region eu-west-2");
    check_new("{\"WriteUnitsPerSecond\": 40001}", false, 1, 1, "gix",
              DDB_LIMIT_EXCEEDED,
              "Subscriber limit exceeded: Requested WriteUnitsPerSecond for "
              "WarmThroughput for index gix exceeds TableMaxWriteCapacityUnits "
              "of the account in region eu-west-2");
}
END_TEST

/* member i of warm (an object) */
static long long
unit(const json_t *warm, const char *m)
{
    return tables_uint(warm, m);
}

#define R "ReadUnitsPerSecond"
#define W "WriteUnitsPerSecond"

/* Without asking: on demand 12,000 / 4,000, provisioned its units; it
 * follows raises and never drops (a catalogue of recorded behaviours,
 * 2026-10-08). */
START_TEST(test_warm_defaults_and_billing)
{
    json_t *w = tables_warm_new(&lim, NULL, true, 0, 0), *s;

    ck_assert_int_eq(unit(w, R), 12000);
    ck_assert_int_eq(unit(w, W), 4000);
    ck_assert_str_eq(tables_str(w, "Status"), "ACTIVE");
    json_decref(w);
    s = J("{\"WriteUnitsPerSecond\": 5000}");
    w = tables_warm_new(&lim, s, true, 0, 0);
    ck_assert_int_eq(unit(w, R), 12000);
    ck_assert_int_eq(unit(w, W), 5000);
    json_decref(w);
    w = tables_warm_new(&lim, NULL, false, 5, 3);
    ck_assert_int_eq(unit(w, R), 5);
    ck_assert_int_eq(unit(w, W), 3);
    tables_warm_raise(w, &lim, false, 10, 2);
    ck_assert_int_eq(unit(w, R), 10);
    ck_assert_int_eq(unit(w, W), 3);
    tables_warm_raise(w, &lim, false, 1, 1);
    ck_assert_int_eq(unit(w, R), 10);
    tables_warm_raise(w, &lim, true, 0, 0);
    ck_assert_int_eq(unit(w, R), 12000);
    ck_assert_int_eq(unit(w, W), 4000);
    json_decref(w);
    json_decref(s);
}
END_TEST

/* A description with a table and one GSI warmed to 12,000 / 4,000. */
static json_t *
desc_new(void)
{
    return J("{\"TableName\": \"T\", \"TableStatus\": \"ACTIVE\","
             " \"WarmThroughput\": {\"ReadUnitsPerSecond\": 12000,"
             " \"WriteUnitsPerSecond\": 4000, \"Status\": \"ACTIVE\"},"
             " \"GlobalSecondaryIndexes\": [{\"IndexName\": \"gix\","
             " \"WarmThroughput\": {\"ReadUnitsPerSecond\": 12000,"
             " \"WriteUnitsPerSecond\": 4000, \"Status\": \"ACTIVE\"}}]}");
}

static int
update(json_t *desc, const char *iname, const char *spec, uint64_t now)
{
    json_t *s = J(spec);
    int rc = tables_warm_check_spec(s, iname, &err);

    if (rc == 0)
        rc = tables_warm_update(&ctx, desc, iname, s, now, &err);
    json_decref(s);
    return rc;
}

/* UpdateTable: an increase, the same value, a decrease refused, naming
 * the member (the recordings: "decreasing WarmThroughput is not
 * supported", "{WriteUnitsPerSecond: 2000} -> same rejection, naming
 * WriteUnitsPerSecond"); an empty one. */
START_TEST(test_warm_update_rules)
{
    json_t *d = desc_new();

    ck_assert_int_eq(update(d, NULL, "{\"ReadUnitsPerSecond\": 24000}", 1),
                     0);
    ck_assert_int_eq(unit(json_object_get(d, "WarmThroughput"), R), 24000);
    ck_assert_str_eq(tables_str(json_object_get(d, "WarmThroughput"),
                                "Status"), "ACTIVE");
    ck_assert_int_eq(update(d, NULL, "{\"ReadUnitsPerSecond\": 24000}", 2),
                     0);
    ck_assert_int_eq(update(d, NULL, "{\"WriteUnitsPerSecond\": 3999}", 3),
                     -1);
    ck_assert_str_eq(err.msg, "One or more parameter values were invalid: "
                     "Requested WriteUnitsPerSecond for WarmThroughput for "
                     "table is lower than current WarmThroughput, decreasing "
                     "WarmThroughput is not supported");
    ddb_err_clear(&err);
    ck_assert_int_eq(update(d, "gix", "{\"ReadUnitsPerSecond\": 100}", 3),
                     -1);
    ck_assert_str_eq(err.msg, "One or more parameter values were invalid: "
                     "Requested ReadUnitsPerSecond for WarmThroughput for "
                     "index gix is lower than current WarmThroughput, "
                     "decreasing WarmThroughput is not supported");
    ddb_err_clear(&err);
    ck_assert_int_eq(update(d, "gix", "{}", 3), -1);
    ck_assert_str_eq(err.msg, "One or more parameter values were invalid: "
                     "WarmThroughput must have at least one of "
                     "ReadUnitsPerSecond or WriteUnitsPerSecond specified "
                     "for index: gix");
    ddb_err_clear(&err);
    ck_assert_int_eq(update(d, "gix", "{\"WriteUnitsPerSecond\": 40001}", 3),
                     -1);
    ck_assert_int_eq(err.type, DDB_LIMIT_EXCEEDED);
    ddb_err_clear(&err);
    ck_assert_int_eq(update(d, NULL, "{}", 3), -1);
    ddb_err_clear(&err);
    json_decref(d);
}
END_TEST

/* With a status delay: UPDATING for it, the table untouched, the old
 * values shown (and compared with) until it is over, then ACTIVE; a
 * second increase meanwhile replaces the first ("last-writer-wins"). */
START_TEST(test_warm_update_transition)
{
    json_t *d = desc_new(), *pub, *w;

    cf.status_delay_ms = 1000;
    ck_assert_int_eq(update(d, "gix", "{\"WriteUnitsPerSecond\": 8000}",
                            100), 0);
    ck_assert_str_eq(tables_str(d, "TableStatus"), "ACTIVE");
    pub = json_deep_copy(d);
    tables_warm_public(pub, d);
    w = json_object_get(json_array_get(json_object_get(
        pub, "GlobalSecondaryIndexes"), 0), "WarmThroughput");
    ck_assert_int_eq(unit(w, W), 4000);
    ck_assert_str_eq(tables_str(w, "Status"), "UPDATING");
    json_decref(pub);
    /* the old value is current: an equal one is no decrease */
    ck_assert_int_eq(update(d, "gix", "{\"WriteUnitsPerSecond\": 4000}",
                            200), 0);
    ck_assert_int_eq(update(d, "gix", "{\"WriteUnitsPerSecond\": 9000}",
                            300), 0);
    ck_assert(!tables_warm_settle(d, 1299));
    ck_assert(tables_warm_settle(d, 1300));
    pub = json_deep_copy(d);
    tables_warm_public(pub, d);
    w = json_object_get(json_array_get(json_object_get(
        pub, "GlobalSecondaryIndexes"), 0), "WarmThroughput");
    ck_assert_int_eq(unit(w, W), 9000);
    ck_assert_str_eq(tables_str(w, "Status"), "ACTIVE");
    ck_assert_ptr_null(json_object_get(d, "_slWarmOld"));
    json_decref(pub);
    json_decref(d);
}
END_TEST

static Suite *
warm_suite(void)
{
    Suite *s = suite_create("tables_warm");
    TCase *tc = tcase_create("warm");

    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_warm_create_minimums);
    tcase_add_test(tc, test_warm_defaults_and_billing);
    tcase_add_test(tc, test_warm_update_rules);
    tcase_add_test(tc, test_warm_update_transition);
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
