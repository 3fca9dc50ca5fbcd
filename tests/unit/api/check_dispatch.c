/* SPDX-License-Identifier: MIT */
/* check_dispatch.c - api_dispatch() without HTTP: the operation table, the
 * protocol checks in DynamoDB's order, request checks before the table,
 * the item operations' steps, and ConsumedCapacity rendered from what the
 * handlers recorded, one object or a list per table. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "conf/conf.h"
#include "storage/json_fast.h"

#define TARGET "DynamoDB_20120810."
#define STREAMS "DynamoDBStreams_20120810."

static struct storage *st;
static struct conf cf;
static struct api_server srv;

static void
setup(void)
{
    struct ddb_err err;

    ddb_err_init(&err);
    st = storage_open(NULL, &err);
    ck_assert_ptr_nonnull(st);
    conf_defaults(&cf);
    api_server_init(&srv, st, &cf);
}

static void
teardown(void)
{
    api_server_fini(&srv);
    storage_close(st);
}

/* Dispatch body to a whole X-Amz-Target (any service; NULL for no
 * header); *status gets the HTTP status. The reply as JSON (caller
 * frees). */
static json_t *
call_target(const char *target, const char *body, bool signed_v4,
            unsigned *status)
{
    struct api_call call;
    struct api_reply r;
    json_error_t jerr;
    json_t *j;

    memset(&call, 0, sizeof(call));
    call.target = target;
    call.body = body;
    call.len = strlen(body);
    call.signed_v4 = signed_v4;
    call.region = "us-east-1";
    call.access_key = "AKID";
    api_dispatch(&srv, &call, &r);
    *status = r.status;
    j = json_loadb(r.body, r.len, 0, &jerr);
    ck_assert_msg(j != NULL, "reply is not JSON: %.*s", (int)r.len, r.body);
    free(r.body);
    return j;
}

/* The same to a DynamoDB operation (op NULL: no header). */
static json_t *
call_as(const char *op, const char *body, bool signed_v4, unsigned *status)
{
    char target[128];

    snprintf(target, sizeof(target), TARGET "%s", op != NULL ? op : "");
    return call_target(op != NULL ? target : NULL, body, signed_v4, status);
}

static json_t *
call(const char *op, const char *body, unsigned *status)
{
    return call_as(op, body, true, status);
}

/* The short error code of a reply ("ValidationException"), or "". */
static const char *
code_of(const json_t *reply)
{
    const char *t = json_string_value(json_object_get(reply, "__type"));
    const char *h = t != NULL ? strchr(t, '#') : NULL;

    return h != NULL ? h + 1 : "";
}

static const char *
message_of(const json_t *reply)
{
    const char *m = json_string_value(json_object_get(reply, "message"));

    return m != NULL ? m : json_string_value(json_object_get(reply,
                                                             "Message"));
}

/* A call that must succeed; its reply. */
static json_t *
ok(const char *op, const char *body)
{
    unsigned status;
    json_t *j = call(op, body, &status);

    ck_assert_msg(status == 200, "%s: %u %s %s", op, status, code_of(j),
                  message_of(j));
    return j;
}

/* A call that must fail with code; its message is checked when msg. */
static void
fails(const char *op, const char *body, unsigned want_status,
      const char *code, const char *msg)
{
    unsigned status;
    json_t *j = call(op, body, &status);

    ck_assert_uint_eq(status, want_status);
    ck_assert_str_eq(code_of(j), code);
    if (msg != NULL)
        ck_assert_str_eq(message_of(j), msg);
    json_decref(j);
}

static void
create_table(const char *name)
{
    char body[512];

    snprintf(body, sizeof(body),
             "{\"TableName\":\"%s\",\"BillingMode\":\"PAY_PER_REQUEST\","
             "\"AttributeDefinitions\":[{\"AttributeName\":\"k\","
             "\"AttributeType\":\"S\"}],\"KeySchema\":[{\"AttributeName\":"
             "\"k\",\"KeyType\":\"HASH\"}]}", name);
    json_decref(ok("CreateTable", body));
}

/* ------------------------------------------------------------------------
 * The operation table
 * ---------------------------------------------------------------------- */

START_TEST(test_dispatch_table)
{
    static const char *const names[] = {
        "BatchGetItem", "BatchWriteItem", "CreateTable", "DeleteItem",
        "DeleteTable", "DescribeTable", "DescribeTimeToLive", "GetItem",
        "ListTables", "PutItem", "Query", "Scan", "TransactGetItems",
        "TransactWriteItems", "UpdateItem", "UpdateTable",
        "UpdateTimeToLive",
    };
    static const char *const streams[] = {
        "DescribeStream", "GetRecords", "GetShardIterator", "ListStreams",
    };
    char target[96];

    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        const struct api_op *op = api_lookup(names[i]);

        ck_assert_msg(op != NULL, "%s missing", names[i]);
        ck_assert_str_eq(op->name, names[i]);
        ck_assert_ptr_nonnull(op->schema);
        /* exactly one of a handler and an item operation's steps */
        ck_assert((op->handler == NULL) != (op->item == NULL));
    }
    ck_assert_ptr_nonnull(api_lookup("GetItem")->item);
    ck_assert_ptr_null(api_lookup("getitem"));
    ck_assert_ptr_null(api_lookup("Nope"));
    ck_assert_ptr_null(api_lookup(NULL));
    /* the target's prefix picks the service: DynamoDB Streams' operations
     * only under DynamoDBStreams_20120810., and not the other way round */
    for (size_t i = 0; i < sizeof(streams) / sizeof(streams[0]); i++) {
        snprintf(target, sizeof(target), "DynamoDBStreams_20120810.%s",
                 streams[i]);
        ck_assert_ptr_nonnull(api_lookup_target(target));
        ck_assert_str_eq(api_lookup_target(target)->name, streams[i]);
        ck_assert_ptr_null(api_lookup(streams[i]));
    }
    ck_assert_ptr_null(api_lookup_target("DynamoDBStreams_20120810.GetItem"));
    ck_assert_ptr_nonnull(api_lookup_target("DynamoDB_20120810.GetItem"));
    ck_assert_ptr_null(api_lookup_target("DynamoDBStreams_20120810"));
    ck_assert_ptr_null(api_lookup_target(NULL));
}
END_TEST

START_TEST(test_dispatch_streams_service)
{
    unsigned status;
    json_t *j;

    j = call_target(STREAMS "ListStreams", "{}", true, &status);
    ck_assert_uint_eq(status, 200);
    ck_assert_uint_eq(json_array_size(json_object_get(j, "Streams")), 0);
    json_decref(j);
    j = call_target(TARGET "ListStreams", "{}", true, &status);
    ck_assert_str_eq(code_of(j), "UnknownOperationException");
    json_decref(j);
    /* the shared steps run for the second service too: shape checks */
    j = call_target(STREAMS "DescribeStream", "{}", true, &status);
    ck_assert_uint_eq(status, 400);
    ck_assert_str_eq(code_of(j), "ValidationException");
    json_decref(j);
    j = call_target(STREAMS "GetRecords",
                    "{\"ShardIterator\":\"x\",\"Limit\":1001}", true, &status);
    ck_assert_str_eq(message_of(j), "1 validation error detected: Value "
                     "'1001' at 'limit' failed to satisfy constraint: "
                     "Member must have value less than or equal to 1000");
    json_decref(j);
    /* a table created with a stream is listed by the other service */
    json_decref(ok("CreateTable",
                   "{\"TableName\":\"withstream\",\"BillingMode\":"
                   "\"PAY_PER_REQUEST\",\"AttributeDefinitions\":[{"
                   "\"AttributeName\":\"k\",\"AttributeType\":\"S\"}],"
                   "\"KeySchema\":[{\"AttributeName\":\"k\",\"KeyType\":"
                   "\"HASH\"}],\"StreamSpecification\":{\"StreamEnabled\":"
                   "true,\"StreamViewType\":\"KEYS_ONLY\"}}"));
    j = call_target(STREAMS "ListStreams", "{}", true, &status);
    ck_assert_uint_eq(status, 200);
    ck_assert_uint_eq(json_array_size(json_object_get(j, "Streams")), 1);
    ck_assert_str_eq(json_string_value(json_object_get(
                         json_array_get(json_object_get(j, "Streams"), 0),
                         "TableName")),
                     "withstream");
    json_decref(j);
}
END_TEST

/* ------------------------------------------------------------------------
 * Protocol checks, in DynamoDB's order
 * ---------------------------------------------------------------------- */

START_TEST(test_dispatch_protocol_order)
{
    unsigned status;
    json_t *j;

    /* bad JSON comes before an unknown target */
    j = call("Nope", "{", &status);
    ck_assert_uint_eq(status, 400);
    ck_assert_str_eq(code_of(j), "SerializationException");
    json_decref(j);
    fails("Nope", "{}", 400, "UnknownOperationException", NULL);
    j = call(NULL, "{}", &status);
    ck_assert_str_eq(code_of(j), "UnknownOperationException");
    json_decref(j);
    /* an unknown target comes before a missing signature */
    j = call_as("Nope", "{}", false, &status);
    ck_assert_str_eq(code_of(j), "UnknownOperationException");
    json_decref(j);
    j = call_as("ListTables", "{}", false, &status);
    ck_assert_uint_eq(status, 400);
    ck_assert_str_eq(code_of(j), "MissingAuthenticationTokenException");
    json_decref(j);
    /* then the body's type */
    fails("ListTables", "", 400, "SerializationException", NULL);
    fails("ListTables", "[]", 400, "SerializationException",
          "Start of list found where not expected");
    fails("ListTables", "1", 400, "SerializationException", NULL);
    /* then the shape */
    fails("ListTables", "{\"Limit\":0}", 400, "ValidationException",
          NULL);
    json_decref(ok("ListTables", "{}"));
}
END_TEST

/* ------------------------------------------------------------------------
 * Item operations: request checks before the table, then the steps
 * ---------------------------------------------------------------------- */

START_TEST(test_dispatch_item_steps)
{
    json_t *j;

    /* A bad expression is found before the missing table. */
    fails("PutItem", "{\"TableName\":\"missing\",\"Item\":{\"k\":{\"S\":"
          "\"a\"}},\"ConditionExpression\":\"a =\"}", 400,
          "ValidationException", NULL);
    fails("PutItem", "{\"TableName\":\"missing\",\"Item\":{\"k\":{\"S\":"
          "\"a\"}}}", 400, "ResourceNotFoundException",
          "Requested resource not found");
    create_table("tab");
    /* then the key against the schema */
    fails("GetItem", "{\"TableName\":\"tab\",\"Key\":{\"x\":{\"S\":\"a\"}}}",
          400, "ValidationException",
          "The provided key element does not match the schema");
    json_decref(ok("PutItem", "{\"TableName\":\"tab\",\"Item\":{\"k\":{\"S\":"
                   "\"a\"},\"v\":{\"N\":\"1\"}}}"));
    j = ok("GetItem", "{\"TableName\":\"tab\",\"Key\":{\"k\":{\"S\":\"a\"}}}");
    ck_assert_str_eq(json_string_value(json_object_get(json_object_get(
                         json_object_get(j, "Item"), "v"), "N")), "1");
    json_decref(j);
    /* a failed condition answers the error, not a reply */
    fails("DeleteItem", "{\"TableName\":\"tab\",\"Key\":{\"k\":{\"S\":\"a\"}},"
          "\"ConditionExpression\":\"attribute_not_exists(k)\"}", 400,
          "ConditionalCheckFailedException",
          "The conditional request failed");
    j = ok("UpdateItem", "{\"TableName\":\"tab\",\"Key\":{\"k\":{\"S\":"
           "\"a\"}},\"UpdateExpression\":\"ADD v :one\","
           "\"ExpressionAttributeValues\":{\":one\":{\"N\":\"1\"}},"
           "\"ReturnValues\":\"UPDATED_NEW\"}");
    ck_assert_str_eq(json_string_value(json_object_get(json_object_get(
                         json_object_get(j, "Attributes"), "v"), "N")), "2");
    json_decref(j);
}
END_TEST

/* ------------------------------------------------------------------------
 * ConsumedCapacity, rendered once by dispatch
 * ---------------------------------------------------------------------- */

static double
units_of(const json_t *cc, const char *member)
{
    return json_number_value(json_object_get(cc, member));
}

START_TEST(test_dispatch_capacity)
{
    json_t *j, *cc;

    create_table("cap");
    /* one object: TOTAL, then INDEXES with "Table" */
    j = ok("PutItem", "{\"TableName\":\"cap\",\"Item\":{\"k\":{\"S\":\"a\"}},"
           "\"ReturnConsumedCapacity\":\"TOTAL\"}");
    cc = json_object_get(j, "ConsumedCapacity");
    ck_assert_str_eq(json_string_value(json_object_get(cc, "TableName")),
                     "cap");
    ck_assert(units_of(cc, "CapacityUnits") == 1.0);
    ck_assert_ptr_null(json_object_get(cc, "Table"));
    json_decref(j);
    j = ok("GetItem", "{\"TableName\":\"cap\",\"Key\":{\"k\":{\"S\":\"a\"}},"
           "\"ReturnConsumedCapacity\":\"INDEXES\"}");
    cc = json_object_get(j, "ConsumedCapacity");
    ck_assert(units_of(cc, "CapacityUnits") == 0.5);
    ck_assert(units_of(json_object_get(cc, "Table"), "CapacityUnits") ==
              0.5);
    json_decref(j);
    /* none asked, none given */
    j = ok("GetItem", "{\"TableName\":\"cap\",\"Key\":{\"k\":{\"S\":\"a\"}},"
           "\"ReturnConsumedCapacity\":\"NONE\"}");
    ck_assert_ptr_null(json_object_get(j, "ConsumedCapacity"));
    json_decref(j);
    /* a list per table for batches */
    j = ok("BatchGetItem", "{\"RequestItems\":{\"cap\":{\"Keys\":[{\"k\":{"
           "\"S\":\"a\"}},{\"k\":{\"S\":\"b\"}}]}},"
           "\"ReturnConsumedCapacity\":\"TOTAL\"}");
    cc = json_object_get(j, "ConsumedCapacity");
    ck_assert(json_is_array(cc));
    ck_assert_uint_eq(json_array_size(cc), 1);
    ck_assert(units_of(json_array_get(cc, 0), "CapacityUnits") == 1.0);
    json_decref(j);
    /* transactions split read and write units, doubled */
    j = ok("TransactWriteItems", "{\"TransactItems\":[{\"Put\":{"
           "\"TableName\":\"cap\",\"Item\":{\"k\":{\"S\":\"t\"}}}}],"
           "\"ReturnConsumedCapacity\":\"TOTAL\"}");
    cc = json_array_get(json_object_get(j, "ConsumedCapacity"), 0);
    ck_assert(units_of(cc, "CapacityUnits") == 2.0);
    ck_assert(units_of(cc, "WriteCapacityUnits") == 2.0);
    ck_assert_ptr_null(json_object_get(cc, "ReadCapacityUnits"));
    json_decref(j);
    /* an error carries no capacity */
    fails("PutItem", "{\"TableName\":\"cap\",\"Item\":{\"k\":{\"S\":\"a\"}},"
          "\"ConditionExpression\":\"attribute_not_exists(k)\","
          "\"ReturnConsumedCapacity\":\"TOTAL\"}", 400,
          "ConditionalCheckFailedException", NULL);
}
END_TEST

/* GetItem without a projection sends the item as stored, put first in
 * the reply: the same value PutItem stored (an escaped name, a nested
 * map, a set, a long string), alone, before ConsumedCapacity (units from
 * its stored size), and nothing for a missing item. */
START_TEST(test_dispatch_item_as_stored)
{
    char big[6000], body[6400];
    json_t *want, *j, *cc;

    memset(big, 'x', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    create_table("raw");
    snprintf(body, sizeof(body), "{\"TableName\":\"raw\",\"Item\":"
             "{\"k\":{\"S\":\"w\"},\"n\\u00e9x\":{\"N\":\"-1.50\"},"
             "\"m\":{\"M\":{\"l\":{\"L\":[{\"BOOL\":true},{\"NULL\":true}]}}},"
             "\"ss\":{\"SS\":[\"b\",\"a\"]},\"big\":{\"S\":\"%s\"}}}", big);
    json_decref(ok("PutItem", body));
    /* what GetItem should give: numbers canonical, sets as stored */
    snprintf(body, sizeof(body),
             "{\"k\":{\"S\":\"w\"},\"n\\u00e9x\":{\"N\":\"-1.5\"},"
             "\"m\":{\"M\":{\"l\":{\"L\":[{\"BOOL\":true},{\"NULL\":true}]}}},"
             "\"ss\":{\"SS\":[\"a\",\"b\"]},\"big\":{\"S\":\"%s\"}}", big);
    want = json_fast_loadb(body, strlen(body));
    ck_assert_ptr_nonnull(want);

    j = ok("GetItem", "{\"TableName\":\"raw\",\"Key\":{\"k\":{\"S\":"
           "\"w\"}}}");
    ck_assert_uint_eq(json_object_size(j), 1);
    ck_assert(json_equal(json_object_get(j, "Item"), want));
    json_decref(j);
    j = ok("GetItem", "{\"TableName\":\"raw\",\"Key\":{\"k\":{\"S\":"
           "\"w\"}},\"ConsistentRead\":true,"
           "\"ReturnConsumedCapacity\":\"TOTAL\"}");
    ck_assert_uint_eq(json_object_size(j), 2);
    ck_assert(json_equal(json_object_get(j, "Item"), want));
    cc = json_object_get(j, "ConsumedCapacity");
    ck_assert(units_of(cc, "CapacityUnits") == 2.0);   /* 6 KB: 2 reads */
    json_decref(j);
    /* projected: parsed and cut as before */
    j = ok("GetItem", "{\"TableName\":\"raw\",\"Key\":{\"k\":{\"S\":"
           "\"w\"}},\"ProjectionExpression\":\"ss\"}");
    ck_assert_uint_eq(json_object_size(json_object_get(j, "Item")), 1);
    ck_assert(json_equal(json_object_get(json_object_get(j, "Item"), "ss"),
                         json_object_get(want, "ss")));
    json_decref(j);
    /* missing: no Item, capacity still reported */
    j = ok("GetItem", "{\"TableName\":\"raw\",\"Key\":{\"k\":{\"S\":"
           "\"none\"}},\"ReturnConsumedCapacity\":\"TOTAL\"}");
    ck_assert_ptr_null(json_object_get(j, "Item"));
    ck_assert(units_of(json_object_get(j, "ConsumedCapacity"),
                       "CapacityUnits") == 0.5);
    json_decref(j);
    json_decref(want);
}
END_TEST

static Suite *
dispatch_suite(void)
{
    Suite *s = suite_create("dispatch");
    TCase *tc = tcase_create("table");

    tcase_add_test(tc, test_dispatch_table);
    suite_add_tcase(s, tc);
    tc = tcase_create("pipeline");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_dispatch_protocol_order);
    tcase_add_test(tc, test_dispatch_item_steps);
    tcase_add_test(tc, test_dispatch_capacity);
    tcase_add_test(tc, test_dispatch_item_as_stored);
    tcase_add_test(tc, test_dispatch_streams_service);
    suite_add_tcase(s, tc);
    return s;
}

int
main(void)
{
    SRunner *sr = srunner_create(dispatch_suite());
    int failed;

    srunner_run_all(sr, CK_ENV);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
