/* SPDX-License-Identifier: MIT */
/* check_csv.c - ImportTable's CSV lines (api/transfer/csv.c): RFC 4180
 * fields and quotes, the delimiter and HeaderList options, key attributes
 * typed from AttributeDefinitions and the others strings (developer
 * guide, "Import from S3: format quotas and validation"), empty fields
 * left out, and the lines refused. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "api/transfer/csv.h"

static json_t *
tcp(void)
{
    return json_loads("{\"AttributeDefinitions\": ["
                      "{\"AttributeName\": \"pk\", \"AttributeType\": \"S\"},"
                      "{\"AttributeName\": \"n\", \"AttributeType\": \"N\"},"
                      "{\"AttributeName\": \"b\", \"AttributeType\": \"B\"}]}",
                      0, NULL);
}

/* The item of line under header (a line, or NULL for HeaderList hl). */
static json_t *
item_of(const char *csvopts, const char *header, const char *line,
        struct ddb_err *err)
{
    json_t *o = csvopts != NULL ? json_loads(csvopts, 0, NULL) : NULL;
    json_t *t = tcp(), *keys = NULL, *item;
    struct csv_opts co;
    struct csv_header h;

    ck_assert_int_eq(csv_opts_init(&co, o, err), 0);
    csv_header_init(&h, &co);
    if (header != NULL)
        ck_assert_int_eq(csv_header_parse(&co, header, strlen(header), &h,
                                          err), 0);
    ck_assert_int_eq(csv_key_types(t, &keys, err), 0);
    item = csv_item(&co, &h, keys, line, strlen(line), err);
    csv_header_fini(&h);
    csv_opts_fini(&co);
    json_decref(keys);
    json_decref(t);
    json_decref(o);
    return item;
}

static void
expect(json_t *item, const char *want)
{
    json_t *w = json_loads(want, 0, NULL);
    char *got = json_dumps(item, JSON_SORT_KEYS | JSON_COMPACT);

    ck_assert_ptr_nonnull(w);
    ck_assert_msg(json_equal(item, w), "got %s", got);
    free(got);
    json_decref(w);
    json_decref(item);
}

START_TEST(test_csv_types_and_quotes)
{
    struct ddb_err err;

    ddb_err_init(&err);
    expect(item_of(NULL, "pk,n,b,note", "a,12,AAE=,plain", &err),
           "{\"pk\": {\"S\": \"a\"}, \"n\": {\"N\": \"12\"},"
           " \"b\": {\"B\": \"AAE=\"}, \"note\": {\"S\": \"plain\"}}");
    /* quotes: a delimiter and a doubled quote inside, an empty field */
    expect(item_of(NULL, "pk,note,n", "\"a,b\",\"say \"\"hi\"\"\",",
                   &err),
           "{\"pk\": {\"S\": \"a,b\"}, \"note\": {\"S\": \"say \\\"hi\\\"\"},"
           " \"n\": {\"N\": \"\"}}");
    /* an empty non-key field is left out; a number-looking value that is
     * no key stays a string */
    expect(item_of(NULL, "pk,x,y", "a,,7", &err),
           "{\"pk\": {\"S\": \"a\"}, \"y\": {\"S\": \"7\"}}");
}
END_TEST

START_TEST(test_csv_options)
{
    struct ddb_err err;

    ddb_err_init(&err);
    expect(item_of("{\"Delimiter\": \";\", \"HeaderList\": [\"pk\", \"v\"]}",
                   NULL, "a;b,c", &err),
           "{\"pk\": {\"S\": \"a\"}, \"v\": {\"S\": \"b,c\"}}");
    expect(item_of("{\"Delimiter\": \"|\"}", "pk|v", "x|\"|\"", &err),
           "{\"pk\": {\"S\": \"x\"}, \"v\": {\"S\": \"|\"}}");
}
END_TEST

START_TEST(test_csv_refused)
{
    struct ddb_err err;
    struct csv_opts co;
    json_t *o = json_loads("{\"Delimiter\": \"\\\"\"}", 0, NULL);

    ddb_err_init(&err);
    /* too few and too many fields */
    ck_assert_ptr_null(item_of(NULL, "pk,v", "a", &err));
    ck_assert_int_eq(err.type, DDB_VALIDATION);
    ddb_err_clear(&err);
    ck_assert_ptr_null(item_of(NULL, "pk,v", "a,b,c", &err));
    ddb_err_clear(&err);
    /* a quote left open, text after a closing quote */
    ck_assert_ptr_null(item_of(NULL, "pk,v", "a,\"b", &err));
    ddb_err_clear(&err);
    ck_assert_ptr_null(item_of(NULL, "pk,v", "a,\"b\"c", &err));
    ddb_err_clear(&err);
    /* a quote cannot delimit */
    ck_assert_int_eq(csv_opts_init(&co, o, &err), -1);
    ck_assert_int_eq(err.type, DDB_VALIDATION);
    json_decref(o);
}
END_TEST

static Suite *
csv_suite(void)
{
    Suite *s = suite_create("csv");
    TCase *tc = tcase_create("csv");

    tcase_add_test(tc, test_csv_types_and_quotes);
    tcase_add_test(tc, test_csv_options);
    tcase_add_test(tc, test_csv_refused);
    suite_add_tcase(s, tc);
    return s;
}

int
main(void)
{
    SRunner *sr = srunner_create(csv_suite());
    int failed;

    srunner_run_all(sr, CK_ENV);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
