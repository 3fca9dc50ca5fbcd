/* SPDX-License-Identifier: MIT */
/* check_paths.c - the document path limits every expression kind shares
 * (api/expr/parse.c): at most 32 levels, list indexes up to 4294967294,
 * refused with DynamoDB's texts before names and values are resolved. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "api/expr/expr.h"

static struct ddb_err err;
static struct expr_env *env;

static void
teardown(void)
{
    expr_env_free(env);
    env = NULL;
}

/* Parse text as kind with no names or values. */
static struct expr *
P(enum expr_kind kind, const char *text)
{
    teardown();
    ddb_err_init(&err);
    ck_assert_int_eq(expr_env_new(NULL, NULL, &env, &err), 0);
    return expr_parse(env, kind, text, &err);
}

/* levels path elements: "a" then ".a" or "[0]" */
static char *
path(char *buf, int levels, const char *step)
{
    char *p = buf + sprintf(buf, "a");
    int i;

    for (i = 1; i < levels; i++)
        p += sprintf(p, "%s", step);
    return buf;
}

START_TEST(test_nesting_levels)
{
    char text[512], want[256];
    const char *steps[] = { ".a", "[0]" };
    struct expr *e;
    int s;

    for (s = 0; s < 2; s++) {
        e = P(EXPR_PROJECTION, path(text, 32, steps[s]));
        ck_assert_msg(e != NULL, "%s: %s", text, err.msg);
        expr_free(e);
        ck_assert_ptr_null(P(EXPR_PROJECTION, path(text, 33, steps[s])));
        ck_assert_str_eq(err.msg, "Invalid ProjectionExpression: The "
                         "document path has too many nesting levels; "
                         "nesting levels: 33");
    }
    /* every kind; the path is refused before #n and :v are looked up */
    strcpy(text, "SET ");
    path(text + 4, 40, ".#n");
    strcat(text, " = :v");
    ck_assert_ptr_null(P(EXPR_UPDATE, text));
    snprintf(want, sizeof(want), "Invalid UpdateExpression: The document "
             "path has too many nesting levels; nesting levels: 40");
    ck_assert_str_eq(err.msg, want);
    path(text, 33, ".b");
    strcat(text, " = :v");
    ck_assert_ptr_null(P(EXPR_CONDITION, text));
    ck_assert_str_eq(err.msg, "Invalid ConditionExpression: The document "
                     "path has too many nesting levels; nesting levels: 33");
}
END_TEST

START_TEST(test_list_index_range)
{
    struct expr *e;

    e = P(EXPR_PROJECTION, "a[4294967294], b[0][0]");
    ck_assert_msg(e != NULL, "%s", err.msg);
    expr_free(e);
    ck_assert_ptr_null(P(EXPR_PROJECTION, "a[4294967295]"));
    ck_assert_str_eq(err.msg, "Invalid ProjectionExpression: List index is "
                     "not within the allowable range; index: [4294967295]");
    /* the digits as written, however many */
    ck_assert_ptr_null(P(EXPR_FILTER,
                         "a[000099999999999999999999999999] = :v"));
    ck_assert_str_eq(err.msg, "Invalid FilterExpression: List index is not "
                     "within the allowable range; index: "
                     "[000099999999999999999999999999]");
    e = P(EXPR_PROJECTION, "a[0004294967294]");
    ck_assert_msg(e != NULL, "%s", err.msg);
    expr_free(e);
}
END_TEST

int
main(void)
{
    Suite *s = suite_create("paths");
    TCase *tc = tcase_create("core");
    SRunner *sr;
    int failed;

    tcase_add_checked_fixture(tc, NULL, teardown);
    tcase_add_test(tc, test_nesting_levels);
    tcase_add_test(tc, test_list_index_range);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_ENV);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
