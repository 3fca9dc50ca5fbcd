/* SPDX-License-Identifier: MIT */
/* check_would_wait.c - api_would_wait(): while a checkpoint holds one
 * partition of a table, the item operations (GetItem, PutItem, UpdateItem,
 * DeleteItem) on an item of that partition would wait, those on another
 * partition's items would not, nor any other operation, nor a request that
 * dispatch would refuse; and nothing would once the checkpoint lets go. A
 * store on disk with its checkpoint thread; the hold is the fixture's. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/api.h"
#include "conf/conf.h"
#include "tests/unit/storage/fixture.h"

#define TARGET "DynamoDB_20120810."

static struct conf cf;
static struct api_server srv;

static void
setup(void)
{
    struct ddb_err err;

    fixture_setup();
    ddb_err_init(&err);
    st = storage_open_opts(tmpdir,
                           &(struct storage_opts){ .checkpoint_pages = 8 },
                           &err);
    ck_assert_msg(st != NULL, "%s", err.msg);
    conf_defaults(&cf);
    api_server_init(&srv, st, &cf);
}

static void
teardown(void)
{
    api_server_fini(&srv);
    fixture_teardown();
}

static struct api_call
call_of(const char *target, const char *body, bool signed_v4)
{
    struct api_call c;

    memset(&c, 0, sizeof(c));
    c.target = target;
    c.body = body;
    c.len = strlen(body);
    c.signed_v4 = signed_v4;
    c.region = "us-east-1";
    c.access_key = "AKID";
    return c;
}

/* Dispatch op with body; its status. */
static unsigned
dispatch(const char *op, const char *body)
{
    char target[96];
    struct api_call c;
    struct api_reply r;

    snprintf(target, sizeof(target), TARGET "%s", op);
    c = call_of(target, body, true);
    api_dispatch(&srv, &c, &r);
    free(r.body);
    return r.status;
}

static bool
waits_signed(const char *op, const char *body, bool signed_v4)
{
    char target[96];
    struct api_call c;

    snprintf(target, sizeof(target), TARGET "%s", op);
    c = call_of(target, body, signed_v4);
    return api_would_wait(&srv, &c);
}

static bool
waits(const char *op, const char *body)
{
    return waits_signed(op, body, true);
}

/* The four item operations on key pk of Tab. */
static int
item_ops_waiting(const char *pk)
{
    char body[256];
    int n = 0;

    snprintf(body, sizeof(body),
             "{\"TableName\":\"Tab\",\"Key\":{\"pk\":{\"S\":\"%s\"}}}", pk);
    n += waits("GetItem", body);
    n += waits("DeleteItem", body);
    snprintf(body, sizeof(body),
             "{\"TableName\":\"Tab\",\"Key\":{\"pk\":{\"S\":\"%s\"}},"
             "\"UpdateExpression\":\"ADD c :one\","
             "\"ExpressionAttributeValues\":{\":one\":{\"N\":\"1\"}}}", pk);
    n += waits("UpdateItem", body);
    snprintf(body, sizeof(body),
             "{\"TableName\":\"Tab\",\"Item\":{\"pk\":{\"S\":\"%s\"},"
             "\"n\":{\"N\":\"1\"}}}", pk);
    n += waits("PutItem", body);
    return n;
}

START_TEST(test_would_wait)
{
    struct item_key in, out;
    struct partition *p;
    struct stable *t;
    char other[16];

    ck_assert_uint_eq(dispatch("CreateTable",
        "{\"TableName\":\"Tab\",\"BillingMode\":\"PAY_PER_REQUEST\","
        "\"AttributeDefinitions\":[{\"AttributeName\":\"pk\","
        "\"AttributeType\":\"S\"}],\"KeySchema\":[{\"AttributeName\":\"pk\","
        "\"KeyType\":\"HASH\"}]}"), 200);
    t = storage_table_get(st, "Tab");
    ck_assert_ptr_nonnull(t);
    ck_assert_uint_gt(stable_nparts(t), 1);
    fixture_skey(&in, "a", NULL);
    fixture_skey_elsewhere(t, in.hash, other, sizeof(other), &out);
    ck_assert_int_eq(item_ops_waiting("a"), 0);   /* nothing held */

    p = fixture_checkpoint_hold(t, in.hash);
    ck_assert_int_eq(item_ops_waiting("a"), 4);
    ck_assert_int_eq(item_ops_waiting(other), 0);
    /* not item operations: they go ahead (and wait, if they must) */
    ck_assert(!waits("Query", "{\"TableName\":\"Tab\","
                     "\"KeyConditionExpression\":\"pk = :a\","
                     "\"ExpressionAttributeValues\":{\":a\":{\"S\":\"a\"}}}"));
    ck_assert(!waits("BatchGetItem", "{\"RequestItems\":{\"Tab\":{\"Keys\":"
                     "[{\"pk\":{\"S\":\"a\"}}]}}}"));
    /* what dispatch refuses, it answers at once */
    ck_assert(!waits("GetItem", "{\"TableName\":\"Tab\",\"Key\":"));
    ck_assert(!waits("GetItem", "{\"TableName\":\"Nope\",\"Key\":"
                     "{\"pk\":{\"S\":\"a\"}}}"));
    ck_assert(!waits("GetItem", "{\"TableName\":\"Tab\",\"Key\":"
                     "{\"pk\":{\"N\":\"1\"}}}"));
    ck_assert(!waits_signed("GetItem", "{\"TableName\":\"Tab\",\"Key\":"
                            "{\"pk\":{\"S\":\"a\"}}}", false));
    fixture_checkpoint_release(p);

    for (int i = 0; i < 500 && api_checkpointing(&srv); i++)
        usleep(10000);
    ck_assert(!api_checkpointing(&srv));
    ck_assert_int_eq(item_ops_waiting("a"), 0);
    stable_release(t);
}
END_TEST

static Suite *
would_wait_suite(void)
{
    Suite *s = suite_create("would_wait");
    TCase *tc = tcase_create("core");

    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_would_wait);
    suite_add_tcase(s, tc);
    return s;
}

int
main(void)
{
    SRunner *sr = srunner_create(would_wait_suite());
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
