/* SPDX-License-Identifier: MIT */
/* check_write.c - the shared read-modify-write path (api/ops/write.c):
 * taking a write from its request, write_apply() for every kind (put,
 * update, delete, condition check) with conditions and ReturnValues, the
 * units a write consumes, and an update's empty index key sentence. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "api/ops/write.h"
#include "api/proto/capacity.h"

/* A write of kind from the request text req_text; the request is kept in
 * w->params' owner, *req (caller frees after write_req_fini). */
static void
take(struct write_req *w, enum write_kind kind, const char *req_text,
     json_t **req)
{
    struct ddb_err err;
    json_error_t jerr;

    *req = json_loads(req_text, 0, &jerr);
    ck_assert_msg(*req != NULL, "bad test JSON: %s", jerr.text);
    ddb_err_init(&err);
    write_req_init(w, kind, *req);
    ck_assert_int_eq(kind == WRITE_PUT ? write_take_item(w, &err)
                                       : write_take_key(w, &err), 0);
    ck_assert_msg(write_parse_exprs(w, &err) == 0, "%s", err.msg);
    w->rv = write_rv_of(*req);
}

/* Apply w to old (text or NULL): its return, the new item in *out (new
 * reference or NULL) and *keep. */
static int
apply(struct write_req *w, const char *old_text, json_t **out, bool *keep,
      struct ddb_err *err)
{
    json_t *old = old_text != NULL ? json_loads(old_text, 0, NULL) : NULL;
    size_t size = 0;
    int rc;

    *out = NULL;
    *keep = false;
    rc = write_apply(w, old, old != NULL ? item_size(old) : 0, out, &size,
                     keep, err);
    if (*out != NULL)
        ck_assert_uint_eq(size, w->new_size);
    json_decref(old);
    return rc;
}

static const char *
s_of(const json_t *item, const char *attr)
{
    return json_string_value(json_object_get(json_object_get(item, attr),
                                             "S"));
}

START_TEST(test_write_put)
{
    struct write_req w;
    struct ddb_err err;
    json_t *req, *n;
    bool keep;

    ddb_err_init(&err);
    take(&w, WRITE_PUT, "{\"Item\":{\"k\":{\"S\":\"a\"},\"v\":{\"S\":\"new\"}},"
         "\"ReturnValues\":\"ALL_OLD\"}", &req);
    ck_assert_uint_eq(w.size, item_size(w.item));
    /* replacing an item: the old one comes back (ALL_OLD) */
    ck_assert_int_eq(apply(&w, "{\"k\":{\"S\":\"a\"},\"v\":{\"S\":\"old\"}}",
                           &n, &keep, &err), 0);
    ck_assert(!keep);
    ck_assert_str_eq(s_of(n, "v"), "new");
    ck_assert_str_eq(s_of(w.attrs, "v"), "old");
    ck_assert(write_units(&w) == 1.0);
    json_decref(n);
    /* a new item: nothing to return */
    ck_assert_int_eq(apply(&w, NULL, &n, &keep, &err), 0);
    ck_assert_ptr_null(w.attrs);
    ck_assert_uint_eq(w.old_size, 0);
    json_decref(n);
    write_req_fini(&w);
    json_decref(req);
}
END_TEST

START_TEST(test_write_condition)
{
    struct write_req w;
    struct ddb_err err;
    json_t *req, *n;
    bool keep;

    ddb_err_init(&err);
    take(&w, WRITE_PUT, "{\"Item\":{\"k\":{\"S\":\"a\"}},"
         "\"ConditionExpression\":\"attribute_not_exists(k)\","
         "\"ReturnValuesOnConditionCheckFailure\":\"ALL_OLD\"}", &req);
    ck_assert_int_eq(apply(&w, "{\"k\":{\"S\":\"a\"},\"big\":{\"S\":\"xxxxx"
                           "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
                           "\"}}", &n, &keep, &err), -1);
    ck_assert_ptr_null(n);
    ck_assert_int_eq(err.type, DDB_CONDITIONAL_CHECK_FAILED);
    ck_assert_str_eq(err.msg, "The conditional request failed");
    ck_assert_str_eq(s_of(json_object_get(err.extra, "Item"), "k"), "a");
    ck_assert(w.cond_failed);
    /* a failed put consumes its own item's units */
    ck_assert(write_units(&w) == capacity_write_units(w.size));
    ddb_err_clear(&err);
    /* the condition holds on a missing item */
    ck_assert_int_eq(apply(&w, NULL, &n, &keep, &err), 0);
    ck_assert(!w.cond_failed);
    json_decref(n);
    write_req_fini(&w);
    json_decref(req);

    /* a failed delete consumes 1 */
    take(&w, WRITE_DELETE, "{\"Key\":{\"k\":{\"S\":\"a\"}},"
         "\"ConditionExpression\":\"v = :v\",\"ExpressionAttributeValues\":"
         "{\":v\":{\"S\":\"x\"}}}", &req);
    ck_assert_int_eq(apply(&w, "{\"k\":{\"S\":\"a\"},\"v\":{\"S\":\"y\"}}",
                           &n, &keep, &err), -1);
    ck_assert_ptr_null(err.extra);
    ck_assert(write_units(&w) == 1.0);
    ddb_err_clear(&err);
    write_req_fini(&w);
    json_decref(req);
}
END_TEST

START_TEST(test_write_update)
{
    struct write_req w;
    struct ddb_err err;
    json_t *req, *n;
    bool keep;

    ddb_err_init(&err);
    /* a missing item is created from its key */
    take(&w, WRITE_UPDATE, "{\"Key\":{\"k\":{\"S\":\"a\"}},"
         "\"UpdateExpression\":\"SET v = :v\",\"ExpressionAttributeValues\":"
         "{\":v\":{\"S\":\"x\"}},\"ReturnValues\":\"UPDATED_NEW\"}", &req);
    ck_assert_int_eq(apply(&w, NULL, &n, &keep, &err), 0);
    ck_assert_str_eq(s_of(n, "k"), "a");
    ck_assert_str_eq(s_of(n, "v"), "x");
    ck_assert_uint_eq(json_object_size(w.attrs), 1);
    ck_assert_str_eq(s_of(w.attrs, "v"), "x");
    json_decref(n);
    write_req_fini(&w);
    json_decref(req);

    /* REMOVE alone on a missing item creates nothing */
    take(&w, WRITE_UPDATE, "{\"Key\":{\"k\":{\"S\":\"a\"}},"
         "\"UpdateExpression\":\"REMOVE v\"}", &req);
    ck_assert_int_eq(apply(&w, NULL, &n, &keep, &err), 0);
    ck_assert(keep);
    ck_assert_ptr_null(n);
    ck_assert_uint_eq(w.new_size, 0);
    write_req_fini(&w);
    json_decref(req);

    /* no update at all: an existing row stays, a missing one gets its key */
    take(&w, WRITE_UPDATE, "{\"Key\":{\"k\":{\"S\":\"a\"}},"
         "\"ReturnValues\":\"ALL_NEW\"}", &req);
    ck_assert_int_eq(apply(&w, "{\"k\":{\"S\":\"a\"},\"v\":{\"S\":\"y\"}}",
                           &n, &keep, &err), 0);
    ck_assert(keep);
    ck_assert_uint_eq(w.new_size, w.old_size);
    ck_assert_str_eq(s_of(w.attrs, "v"), "y");
    ck_assert_int_eq(apply(&w, NULL, &n, &keep, &err), 0);
    ck_assert(!keep);
    ck_assert_uint_eq(json_object_size(n), 1);
    json_decref(n);
    write_req_fini(&w);
    json_decref(req);
}
END_TEST

START_TEST(test_write_delete_and_check)
{
    struct write_req w;
    struct ddb_err err;
    json_t *req, *n;
    bool keep;

    ddb_err_init(&err);
    take(&w, WRITE_DELETE, "{\"Key\":{\"k\":{\"S\":\"a\"}},"
         "\"ReturnValues\":\"ALL_OLD\"}", &req);
    ck_assert_int_eq(apply(&w, NULL, &n, &keep, &err), 0);
    ck_assert(keep);                        /* nothing to delete */
    ck_assert_ptr_null(w.attrs);
    ck_assert_int_eq(apply(&w, "{\"k\":{\"S\":\"a\"},\"v\":{\"S\":\"y\"}}",
                           &n, &keep, &err), 0);
    ck_assert(!keep);
    ck_assert_ptr_null(n);                  /* the row goes */
    ck_assert_str_eq(s_of(w.attrs, "v"), "y");
    ck_assert(write_units(&w) == 1.0);
    write_req_fini(&w);
    json_decref(req);

    take(&w, WRITE_CHECK, "{\"Key\":{\"k\":{\"S\":\"a\"}},"
         "\"ConditionExpression\":\"attribute_exists(k)\"}", &req);
    ck_assert_int_eq(apply(&w, "{\"k\":{\"S\":\"a\"}}", &n, &keep, &err), 0);
    ck_assert(keep);
    ck_assert_ptr_null(n);
    ck_assert_int_eq(apply(&w, NULL, &n, &keep, &err), -1);
    ck_assert_int_eq(err.type, DDB_CONDITIONAL_CHECK_FAILED);
    ddb_err_clear(&err);
    write_req_fini(&w);
    json_decref(req);
}
END_TEST

START_TEST(test_write_units)
{
    struct write_req w;

    write_req_init(&w, WRITE_UPDATE, NULL);
    w.old_size = 1500;
    w.new_size = 900;
    ck_assert(write_units(&w) == 2.0);      /* the larger, 1 KB steps */
    w.old_size = 0;
    w.new_size = 0;
    ck_assert(write_units(&w) == 1.0);      /* at least 1 */
    w.cond_failed = true;
    w.new_size = 5000;
    ck_assert(write_units(&w) == 1.0);
    w.gsi_refused = true;                   /* nothing ran */
    ck_assert(write_units(&w) == 0.0);
    write_req_fini(&w);
}
END_TEST

/* An UpdateExpression making an index key empty gets its own sentence;
 * a put and the legacy AttributeUpdates keep the one naming the index. */
START_TEST(test_write_index_error)
{
    static const char *const reqs[] = {
        "{\"Key\":{\"k\":{\"S\":\"a\"}},\"UpdateExpression\":\"SET g = :e\","
        "\"ExpressionAttributeValues\":{\":e\":{\"B\":\"\"}}}",
        "{\"Key\":{\"k\":{\"S\":\"a\"}},\"AttributeUpdates\":{\"g\":{"
        "\"Action\":\"PUT\",\"Value\":{\"S\":\"\"}}}}",
        "{\"Item\":{\"k\":{\"S\":\"a\"},\"g\":{\"S\":\"\"}}}",
    };
    static const enum write_kind kinds[] = {
        WRITE_UPDATE, WRITE_UPDATE, WRITE_PUT,
    };
    const char *put_form = INDEX_EMPTY_KEY_MSG "binary value. IndexName: "
                           "gi, IndexKey: g";
    struct write_req w;
    struct ddb_err err;
    json_t *req;
    size_t i;

    for (i = 0; i < 3; i++) {
        take(&w, kinds[i], reqs[i], &req);
        ddb_err_init(&err);
        ddb_err_set(&err, DDB_VALIDATION, "%s", put_form);
        write_index_error(&w, &err);
        if (i == 0)
            ck_assert_str_eq(err.msg, "One or more parameter values are not "
                             "valid. The update expression attempted to "
                             "update a secondary index key to a value that "
                             "is not supported. The AttributeValue for a key "
                             "attribute cannot contain an empty binary "
                             "value.");
        else
            ck_assert_str_eq(err.msg, put_form);
        ddb_err_clear(&err);
        /* other errors pass unchanged */
        ddb_err_set(&err, DDB_VALIDATION, "Item size has exceeded the "
                    "maximum allowed size");
        write_index_error(&w, &err);
        ck_assert_str_eq(err.msg, "Item size has exceeded the maximum "
                         "allowed size");
        ddb_err_clear(&err);
        write_req_fini(&w);
        json_decref(req);
    }
}
END_TEST

static Suite *
write_suite(void)
{
    Suite *s = suite_create("write");
    TCase *tc = tcase_create("apply");

    tcase_add_test(tc, test_write_put);
    tcase_add_test(tc, test_write_condition);
    tcase_add_test(tc, test_write_update);
    tcase_add_test(tc, test_write_delete_and_check);
    tcase_add_test(tc, test_write_units);
    tcase_add_test(tc, test_write_index_error);
    suite_add_tcase(s, tc);
    return s;
}

int
main(void)
{
    SRunner *sr = srunner_create(write_suite());
    int failed;

    srunner_run_all(sr, CK_ENV);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
