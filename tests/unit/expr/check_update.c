/* SPDX-License-Identifier: MIT */
/* check_update.c - expr_update_apply() (api/expr/eval.c) on the cases
 * where an update's result depends on more than one action: an item that
 * does not exist yet starting from its key, and several list indexes past
 * the end of a list in one expression. JSON uses ' for ". */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/expr/expr.h"
#include "tests/unit/expr/jlit.h"

struct key_case {
    const char *text;
    const char *old;                /* NULL: the item does not exist */
    const char *key;
    const char *want;               /* the new item */
    const char *updated_new;        /* UPDATED_NEW's projection */
};

#define VALS "{':a':{'N':'2'},':b':{'SS':['a']},':one':{'N':'1'}," \
    "':ten':{'N':'10'},':zero':{'N':'0'}}"

static const struct key_case key_cases[] = {
    /* A missing item starts from its key (dynalite updateItem "should
     * update values from other attributes", recorded against DynamoDB). */
    { "SET b = if_not_exists(b, a)", NULL, "{'a':{'S':'k'}}",
      "{'a':{'S':'k'},'b':{'S':'k'}}", "{'b':{'S':'k'}}" },
    { "SET c = a, d = b", NULL, "{'a':{'S':'h'},'b':{'N':'7'}}",
      "{'a':{'S':'h'},'b':{'N':'7'},'c':{'S':'h'},'d':{'N':'7'}}",
      "{'c':{'S':'h'},'d':{'N':'7'}}" },
    { "SET n = b + :one", NULL, "{'a':{'S':'h'},'b':{'N':'7'}}",
      "{'a':{'S':'h'},'b':{'N':'7'},'n':{'N':'8'}}", "{'n':{'N':'8'}}" },
    /* an existing item is what it is; the key changes nothing */
    { "SET b = if_not_exists(b, :one)", "{'a':{'S':'k'},'b':{'N':'3'}}",
      "{'a':{'S':'k'}}", "{'a':{'S':'k'},'b':{'N':'3'}}",
      "{'b':{'N':'3'}}" },
    /* REMOVE on a missing item is a no-op: only the key comes out */
    { "REMOVE x, y.z", NULL, "{'a':{'S':'k'}}", "{'a':{'S':'k'}}", "{}" },
    /* Past the end: SETs and ADDs append in index order, operands from
     * the old item (dynalite updateItem "should update nested
     * attributes"). */
    { "SET b.c = ((c[1]) + (b.a)), b.a = a, c[1] = a, c[4] = b.a - b.b, "
      "c[2] = b.c ADD c[8] :b, c[6] :a",
      "{'a':{'S':'k'},'b':{'M':{'a':{'N':'1'},'b':{'N':'2'},'c':{'N':'3'}}},"
      "'c':{'L':[{'N':'1'},{'N':'3'}]}}", "{'a':{'S':'k'}}",
      "{'a':{'S':'k'},'b':{'M':{'a':{'S':'k'},'b':{'N':'2'},"
      "'c':{'N':'4'}}},'c':{'L':[{'N':'1'},{'S':'k'},{'N':'3'},{'N':'-1'},"
      "{'N':'2'},{'SS':['a']}]}}",
      "{'b':{'M':{'a':{'S':'k'},'c':{'N':'4'}}},"
      "'c':{'L':[{'S':'k'},{'N':'3'},{'N':'2'}]}}" },
    { "ADD l[5] :ten, l[3] :one SET l[4] = :zero", "{'l':{'L':[]}}", NULL,
      "{'l':{'L':[{'N':'1'},{'N':'0'},{'N':'10'}]}}", "{}" },
};

START_TEST(test_update_key_cases)
{
    const struct key_case *c = &key_cases[_i];
    json_t *values = J(VALS), *old = c->old ? J(c->old) : NULL;
    json_t *key = c->key ? J(c->key) : NULL, *got = NULL, *want, *proj;
    struct expr_env *env = NULL;
    struct ddb_err err;
    struct expr *e;
    char *s, *before = old != NULL ? json_dumps(old, JSON_SORT_KEYS) : NULL;

    ddb_err_init(&err);
    ck_assert_int_eq(expr_env_new(NULL, values, &env, &err), 0);
    e = expr_parse(env, EXPR_UPDATE, c->text, &err);
    ck_assert_msg(e != NULL, "%s: %s", c->text, err.msg);
    ck_assert_msg(expr_update_apply(e, old, key, &got, &err) == 0,
                  "%s: %s", c->text, err.msg);
    if (old != NULL) {                  /* storage's item, left as it was */
        s = json_dumps(old, JSON_SORT_KEYS);
        ck_assert_msg(strcmp(s, before) == 0, "%s: old item changed: %s",
                      c->text, s);
        free(s);
        free(before);
    }
    want = J(c->want);
    s = json_dumps(got, JSON_SORT_KEYS | JSON_COMPACT);
    ck_assert_msg(json_equal(got, want), "%s: got %s", c->text, s);
    free(s);
    json_decref(want);
    proj = expr_project(expr_update_targets(e), got);
    want = J(c->updated_new);
    s = json_dumps(proj, JSON_SORT_KEYS | JSON_COMPACT);
    ck_assert_msg(json_equal(proj, want), "%s: UPDATED_NEW %s", c->text,
                  s);
    free(s);
    json_decref(want);
    json_decref(proj);
    json_decref(got);
    expr_free(e);
    expr_env_free(env);
    json_decref(key);
    json_decref(old);
    json_decref(values);
}
END_TEST

/* Without a key a missing item starts empty: a key attribute named as an
 * operand is then missing, as for any other attribute. */
START_TEST(test_update_no_key)
{
    json_t *got = NULL;
    struct expr_env *env = NULL;
    struct ddb_err err;
    struct expr *e;

    ddb_err_init(&err);
    ck_assert_int_eq(expr_env_new(NULL, NULL, &env, &err), 0);
    e = expr_parse(env, EXPR_UPDATE, "SET b = a", &err);
    ck_assert_ptr_nonnull(e);
    ck_assert_int_eq(expr_update_apply(e, NULL, NULL, &got, &err), -1);
    ck_assert_ptr_null(got);
    ck_assert_str_eq(err.msg, "The provided expression refers to an "
                     "attribute that does not exist in the item");
    expr_free(e);
    expr_env_free(env);
}
END_TEST

static Suite *
update_suite(void)
{
    Suite *s = suite_create("update");
    TCase *tc = tcase_create("apply");

    tcase_add_loop_test(tc, test_update_key_cases, 0,
                        (int)(sizeof(key_cases) / sizeof(key_cases[0])));
    tcase_add_test(tc, test_update_no_key);
    suite_add_tcase(s, tc);
    return s;
}

int
main(void)
{
    SRunner *sr = srunner_create(update_suite());
    int failed;

    srunner_run_all(sr, CK_ENV);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
