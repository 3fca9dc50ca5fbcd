/* SPDX-License-Identifier: MIT */
/* check_tags.c - tags.c and arn.c: DynamoDB's tag checks (lengths, the
 * character set, the aws: prefix in any case, duplicates, 50 at most) on
 * their own, ARNs taken apart, and TagResource, UntagResource and
 * ListTagsOfResource through api_dispatch(): upserts, the limit on the
 * merged set, the ARN errors of the tag family; and DescribeLimits and
 * DescribeEndpoints (limits.c). Expected messages: ack-api-quirks'
 * DDB-TABLE-105..108, -442, -457 (2026-10) and dynalite's tagResource
 * tests, both recorded against DynamoDB. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "api/tables/tables_int.h"
#include "storage/util.h"
#include "tests/unit/tables/tcall.h"

/* ------------------------------------------------------------------------
 * The checks alone
 * ---------------------------------------------------------------------- */

/* tables_check_tags on the JSON text tags: NULL when accepted, else the
 * message (static buffer). */
static const char *
check(const char *tags, bool create)
{
    static char msg[4096];
    json_t *t = json_loads(tags, JSON_ALLOW_NUL, NULL);
    struct ddb_err err;
    int rc;

    ck_assert_ptr_nonnull(t);
    ddb_err_init(&err);
    rc = tables_check_tags(t, create, &err);
    json_decref(t);
    if (rc == 0)
        return NULL;
    ck_assert_int_eq(err.type, DDB_VALIDATION);
    snprintf(msg, sizeof(msg), "%s", err.msg);
    ddb_err_clear(&err);
    return msg;
}

/* A JSON string of n copies of c. */
static char *
repeat(char c, size_t n)
{
    char *s = xmalloc(n + 3);

    s[0] = '"';
    memset(s + 1, c, n);
    s[n + 1] = '"';
    s[n + 2] = '\0';
    return s;
}

START_TEST(test_tag_rules)
{
    char buf[1024], *k128 = repeat('k', 128), *k129 = repeat('k', 129);
    char *v256 = repeat('v', 256), *v257 = repeat('v', 257);

    ck_assert_ptr_null(check("[{\"Key\": \"env\", \"Value\": \"t\"}]", false));
    ck_assert_str_eq(check("[]", false),
                     "Atleast one Tag needs to be provided as Input.");
    ck_assert_ptr_null(check("[]", true));          /* CreateTable */
    ck_assert_str_eq(check("[{\"Value\": \"v\"}]", false),
                     "The Tag Key provided is invalid, Key: null");
    ck_assert_str_eq(check("[{\"Key\": \"k\"}]", false),
                     "The Tag Value provided is invalid, Value: null");
    snprintf(buf, sizeof(buf), "[{\"Key\": %s, \"Value\": %s}]", k128, v256);
    ck_assert_ptr_null(check(buf, false));
    snprintf(buf, sizeof(buf), "[{\"Key\": %s, \"Value\": \"\"}]", k129);
    ck_assert_ptr_nonnull(strstr(check(buf, false),
                                 "The Tag Key provided is invalid, Key: kkk"));
    snprintf(buf, sizeof(buf), "[{\"Key\": \"k\", \"Value\": %s}]", v257);
    ck_assert_ptr_nonnull(strstr(check(buf, false), "The Tag Value provided "
                                                    "is invalid, Value: vvv"));
    /* letters in any script, digits, spaces and _.:/=+-@ only */
    ck_assert_ptr_null(check("[{\"Key\": \"cl\\u00e9 _.:/=+-@ 9\", "
                             "\"Value\": \"\\u65e5\\u672c\"}]", false));
    ck_assert_str_eq(check("[{\"Key\": \"a#b\", \"Value\": \"\"}]", false),
                     "The Tag Key provided is invalid, Key: a#b");
    ck_assert_str_eq(check("[{\"Key\": \"a\", \"Value\": \"x\\u0000\"}]",
                           false),
                     "The Tag Value provided is invalid, Value: x");
    /* aws: is reserved in any case (DDB-TABLE-105) */
    ck_assert_str_eq(check("[{\"Key\": \"AWS:x\", \"Value\": \"\"}]", false),
                     "Tag Key cannot be prefixed with aws:, Key: AWS:x");
    ck_assert_ptr_null(check("[{\"Key\": \"awsx\", \"Value\": \"\"}]",
                             false));
    ck_assert_str_eq(check("[{\"Key\": \"d\", \"Value\": \"1\"}, "
                           "{\"Key\": \"d\", \"Value\": \"2\"}]", false),
                     "Duplicate Tag Keys provided as input: Duplicate Tag "
                     "Key found d");
    free(k128);
    free(k129);
    free(v256);
    free(v257);
}
END_TEST

/* n distinct tags k<from>..k<from+n-1> as a JSON list (new reference). */
static json_t *
tags(int from, int n)
{
    json_t *l = json_array();
    char k[16];

    for (int i = from; i < from + n; i++) {
        snprintf(k, sizeof(k), "k%d", i);
        json_array_append_new(l, json_pack("{s:s, s:s}", "Key", k, "Value",
                                           "v"));
    }
    return l;
}

START_TEST(test_fifty_at_most)
{
    json_t *t = tags(0, 50), *u = tags(0, 51);
    struct ddb_err err;

    ddb_err_init(&err);
    ck_assert_int_eq(tables_check_tags(t, false, &err), 0);
    ck_assert_int_eq(tables_check_tags(u, false, &err), -1);
    ck_assert_str_eq(err.msg, "Number of Tags exceed the current limit for "
                              "the provided ResourceArn");
    ddb_err_clear(&err);
    json_decref(t);
    json_decref(u);
}
END_TEST

START_TEST(test_arn_parse)
{
    struct tables_arn a;

    ck_assert_int_eq(tables_arn_parse("arn:aws:dynamodb:us-east-1:"
                                      "123456789012:table/Music", &a), 0);
    ck_assert_int_eq(a.kind, ARN_TABLE);
    ck_assert_str_eq(a.region, "us-east-1");
    ck_assert_str_eq(a.account, "123456789012");
    ck_assert_str_eq(a.table, "Music");
    ck_assert(tables_arn_name_ok(&a));
    ck_assert_int_eq(tables_arn_parse("arn:aws:dynamodb:r:1:table/T1x/index/"
                                      "byg", &a), 0);
    ck_assert_int_eq(a.kind, ARN_INDEX);
    ck_assert_str_eq(a.table, "T1x");
    ck_assert_str_eq(a.sub, "byg");
    ck_assert_int_eq(tables_arn_parse("arn:aws:dynamodb:r:1:table/T1x/stream/"
                                      "2024-01-01T00:00:00.000", &a), 0);
    ck_assert_int_eq(a.kind, ARN_STREAM);
    ck_assert_str_eq(a.sub, "2024-01-01T00:00:00.000");
    ck_assert_int_eq(tables_arn_parse("arn:aws:dynamodb:r:1:table/T1x/backup/"
                                      "01700000000000-0a1b2c3d", &a), 0);
    ck_assert_int_eq(a.kind, ARN_BACKUP);
    ck_assert_str_eq(a.sub, "01700000000000-0a1b2c3d");
    ck_assert_int_eq(tables_arn_parse("arn:aws:s3:::bucket", &a), 0);
    ck_assert_int_eq(a.kind, ARN_OTHER);
    ck_assert_int_eq(tables_arn_parse("Music", &a), -1);
    ck_assert_int_eq(tables_arn_parse("arn:aws:dynamodb", &a), -2);
    ck_assert_int_eq(tables_arn_parse("arn:aws:dynamodb:r:1:", &a), -2);
    ck_assert_int_eq(tables_arn_parse("arn:aws:dynamodb:r:1:table/ab", &a),
                     0);
    ck_assert(!tables_arn_name_ok(&a));             /* too short */
    ck_assert(tables_region_known("eu-west-3"));
    ck_assert(!tables_region_known("mars-north-1"));
}
END_TEST

/* ------------------------------------------------------------------------
 * Through the API
 * ---------------------------------------------------------------------- */

static json_t *
listed(const char *arn)
{
    json_t *r = tcall("ListTagsOfResource",
                      json_pack("{s:s}", "ResourceArn", arn), NULL);
    json_t *t = json_incref(json_object_get(r, "Tags"));

    json_decref(r);
    return t;
}

START_TEST(test_upsert_and_untag)
{
    const char *arn = tcall_table("tagged");
    json_t *t;

    tcall_ok("TagResource", json_pack("{s:s, s:[{s:s, s:s}, {s:s, s:s}]}",
                                      "ResourceArn", arn, "Tags", "Key", "a",
                                      "Value", "1", "Key", "b", "Value",
                                      "2"));
    tcall_ok("TagResource", json_pack("{s:s, s:[{s:s, s:s}]}", "ResourceArn",
                                      arn, "Tags", "Key", "a", "Value",
                                      "9"));
    t = listed(arn);
    ck_assert_int_eq(json_array_size(t), 2);
    /* in its place, not appended */
    ck_assert(json_str_is(json_object_get(json_array_get(t, 0), "Value"),
                          "9"));
    json_decref(t);
    /* keys that are not there are no error */
    tcall_ok("UntagResource", json_pack("{s:s, s:[s, s]}", "ResourceArn",
                                        arn, "TagKeys", "a", "zzz"));
    t = listed(arn);
    ck_assert_int_eq(json_array_size(t), 1);
    ck_assert(json_str_is(json_object_get(json_array_get(t, 0), "Key"),
                          "b"));
    json_decref(t);
    tcall_msg("UntagResource", json_pack("{s:s, s:[]}", "ResourceArn", arn,
                                         "TagKeys"),
              "ValidationException",
              "Atleast one Tag Key needs to be provided as Input.");
}
END_TEST

START_TEST(test_limit_on_merged_set)
{
    const char *arn = tcall_table("many");
    const char *limit = "Number of Tags exceed the current limit for the "
                        "provided ResourceArn";
    json_t *t;

    tcall_ok("TagResource", json_pack("{s:s, s:o}", "ResourceArn", arn,
                                      "Tags", tags(0, 50)));
    /* overwriting keeps 50: accepted; one more is refused whole */
    tcall_ok("TagResource", json_pack("{s:s, s:o}", "ResourceArn", arn,
                                      "Tags", tags(40, 10)));
    tcall_msg("TagResource", json_pack("{s:s, s:o}", "ResourceArn", arn,
                                       "Tags", tags(45, 6)),
              "ValidationException", limit);
    t = listed(arn);
    ck_assert_int_eq(json_array_size(t), 50);
    json_decref(t);
}
END_TEST

START_TEST(test_tag_arn_errors)
{
    const char *inv = "One or more parameter values were invalid: ";
    char want[512];

    tcall_table("present");
    tcall_msg("TagResource", json_pack("{s:[{s:s, s:s}]}", "Tags", "Key",
                                       "k", "Value", "v"),
              "ValidationException", "Invalid TableArn");
    snprintf(want, sizeof(want), "%sARNs must start with 'arn:': present",
             inv);
    tcall_msg("ListTagsOfResource", json_pack("{s:s}", "ResourceArn",
                                              "present"),
              "ValidationException", want);
    tcall_msg("ListTagsOfResource",
              json_pack("{s:s}", "ResourceArn", "arn:aws:dynamodb:us-east-1:"
                        "111111111111:table/present"),
              "AccessDeniedException", "Access is denied");
    tcall_msg("ListTagsOfResource",
              json_pack("{s:s}", "ResourceArn", "arn:aws:dynamodb:us-east-1:"
                        "000000000000:table/absent"),
              "ResourceNotFoundException",
              "Requested resource not found: ResourceArn: arn:aws:dynamodb:"
              "us-east-1:000000000000:table/absent not found");
    tcall_msg("ListTagsOfResource",
              json_pack("{s:s}", "ResourceArn", "arn:aws:dynamodb:eu-west-1:"
                        "000000000000:table/present"),
              "ValidationException",
              "Invalid TableArn: Invalid ResourceArn provided as input "
              "arn:aws:dynamodb:eu-west-1:000000000000:table/present");
}
END_TEST

/* ------------------------------------------------------------------------
 * DescribeLimits, DescribeEndpoints
 * ---------------------------------------------------------------------- */

START_TEST(test_limits_and_endpoints)
{
    json_t *r = tcall("DescribeLimits", json_object(), NULL);

    ck_assert_int_eq(json_integer_value(json_object_get(
                         r, "AccountMaxReadCapacityUnits")), 80000);
    ck_assert_int_eq(json_integer_value(json_object_get(
                         r, "TableMaxWriteCapacityUnits")), 40000);
    json_decref(r);
    /* the Host the caller used (tcall sends localhost:8000) */
    r = tcall("DescribeEndpoints", json_object(), NULL);
    ck_assert(json_str_is(json_object_get(json_array_get(
                              json_object_get(r, "Endpoints"), 0), "Address"),
                          "localhost:8000"));
    ck_assert_int_eq(json_integer_value(json_object_get(json_array_get(
                         json_object_get(r, "Endpoints"), 0),
                                                        "CachePeriodInMinutes")),
                     1440);
    json_decref(r);
}
END_TEST

static Suite *
suite(void)
{
    Suite *s = suite_create("tags");
    TCase *pure = tcase_create("checks"), *api = tcase_create("api");

    tcase_add_test(pure, test_tag_rules);
    tcase_add_test(pure, test_fifty_at_most);
    tcase_add_test(pure, test_arn_parse);
    tcase_add_checked_fixture(api, tcall_setup, tcall_teardown);
    tcase_add_test(api, test_upsert_and_untag);
    tcase_add_test(api, test_limit_on_merged_set);
    tcase_add_test(api, test_tag_arn_errors);
    tcase_add_test(api, test_limits_and_endpoints);
    suite_add_tcase(s, pure);
    suite_add_tcase(s, api);
    return s;
}

int
main(void)
{
    SRunner *sr = srunner_create(suite());
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}
