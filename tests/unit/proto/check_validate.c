/* SPDX-License-Identifier: MIT */
/* check_validate.c - unit tests for api/proto/validate.c (request shape
 * checks with DynamoDB's messages), api/proto/error.c (wire form of
 * errors) and api/api.c (operation lookup, the request-only checks). */

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "api/proto/error.h"
#include "api/proto/validate.h"
#include "storage/util.h"

#define ENVELOPE "1 validation error detected: "

/* What dispatch answers first, before an operation's own checks report
 * anything: the request's shape, and the errors of PutItem, UpdateItem
 * and DeleteItem that DynamoDB wraps in its validation envelope, which
 * their own checks (the item operation's prepare step) find along with
 * the rest they report after these, in the same order. */
static int
check_request(const char *op, const json_t *req, struct ddb_err *err)
{
    const struct api_op *o = api_lookup(op);
    struct api_ctx ctx = { 0 };
    void *st;
    int rc;

    rc = validate_request(o->schema, req, err);
    if (rc != 0 || o->item == NULL)
        return rc;
    st = xcalloc(1, o->item->state_size);
    rc = o->item->prepare(&ctx, req, st, err);
    if (rc != 0 && strncmp(err->msg, ENVELOPE, strlen(ENVELOPE)) != 0) {
        ddb_err_clear(err);
        rc = 0;
    }
    o->item->fini(st);
    free(st);
    return rc;
}

struct vcase {
    const char *op;
    const char *json;
    enum ddb_errtype type;              /* DDB_OK: passes */
    const char *msg;                    /* exact message, or NULL */
};

static const struct vcase vcases[] = {
    /* Valid requests pass; unknown members are ignored. */
    { "GetItem", "{\"TableName\":\"tbl\",\"Key\":{\"k\":{\"S\":\"x\"}},"
                 "\"Bogus\":1}", DDB_OK, NULL },
    { "ListTables", "{}", DDB_OK, NULL },
    { "DescribeTable", "{\"TableName\":\"arn:aws:dynamodb:us-east-1:"
                       "000000000000:table/t\"}", DDB_OK, NULL },
    { "Scan", "{\"TableName\":\"tbl\",\"Segment\":0,\"TotalSegments\":1,"
              "\"Limit\":1,\"ConsistentRead\":\"true\"}", DDB_OK, NULL },
    { "PutItem", "{\"TableName\":\"tbl\",\"Item\":{\"b\":{\"B\":\"AQI=\"},"
                 "\"l\":{\"L\":[{\"M\":{\"x\":{\"NULL\":true}}}]}}}",
      DDB_OK, NULL },
    { "CreateTable", "{\"TableName\":\"tbl\",\"AttributeDefinitions\":[{"
                     "\"AttributeName\":\"k\",\"AttributeType\":\"S\"}],"
                     "\"KeySchema\":[{\"AttributeName\":\"k\",\"KeyType\":"
                     "\"HASH\"}],\"BillingMode\":\"PAY_PER_REQUEST\"}",
      DDB_OK, NULL },
    /* Required members. */
    { "DescribeTable", "{}", DDB_VALIDATION,
      "1 validation error detected: Value null at 'tableName' failed to "
      "satisfy constraint: Member must not be null" },
    { "GetItem", "{}", DDB_VALIDATION,
      "2 validation errors detected: Value null at 'tableName' failed to "
      "satisfy constraint: Member must not be null; Value null at 'key' "
      "failed to satisfy constraint: Member must not be null" },
    /* Lengths, enums, ranges, patterns, in DynamoDB's order. */
    { "DeleteTable", "{\"TableName\":\"\"}", DDB_VALIDATION,
      "1 validation error detected: Value '' at 'tableName' failed to "
      "satisfy constraint: Member must have length greater than or equal "
      "to 1" },
    { "PutItem", "{\"TableName\":\"tbl\",\"Item\":{},\"ReturnValues\":"
                 "\"BAD\"}", DDB_VALIDATION,
      "1 validation error detected: Value 'BAD' at 'returnValues' failed to "
      "satisfy constraint: Member must satisfy enum value set: [ALL_NEW, "
      "UPDATED_OLD, ALL_OLD, NONE, UPDATED_NEW]" },
    { "ListTables", "{\"Limit\":101,\"ExclusiveStartTableName\":\"a b\"}",
      DDB_VALIDATION,
      "2 validation errors detected: Value '101' at 'limit' failed to "
      "satisfy constraint: Member must have value less than or equal to "
      "100; Value 'a b' at 'exclusiveStartTableName' failed to satisfy "
      "constraint: Member must satisfy regular expression pattern: "
      "[a-zA-Z0-9_.-]+" },
    { "Query", "{\"TableName\":\"tbl\",\"Limit\":0,\"Select\":\"X\"}",
      DDB_VALIDATION,
      "2 validation errors detected: Value 'X' at 'select' failed to "
      "satisfy constraint: Member must satisfy enum value set: "
      "[SPECIFIC_ATTRIBUTES, COUNT, ALL_ATTRIBUTES, "
      "ALL_PROJECTED_ATTRIBUTES]; Value '0' at 'Limit' failed to satisfy "
      "constraint: Member must have value greater than or equal to 1" },
    { "Scan", "{\"TableName\":\"tbl\",\"Segment\":1000000,\"TotalSegments\""
              ":0}", DDB_VALIDATION,
      "2 validation errors detected: Value '0' at 'totalSegments' failed to "
      "satisfy constraint: Member must have value greater than or equal to "
      "1; Value '1000000' at 'segment' failed to satisfy constraint: Member "
      "must have value less than or equal to 999999" },
    { "CreateTable", "{\"TableName\":\"tbl\",\"AttributeDefinitions\":[],"
                     "\"KeySchema\":[{\"AttributeName\":\"k\",\"KeyType\":"
                     "\"X\"}]}", DDB_VALIDATION,
      "1 validation error detected: Value 'X' at 'keySchema.1.member."
      "keyType' failed to satisfy constraint: Member must satisfy enum "
      "value set: [HASH, RANGE]" },
    { "Query", "{\"TableName\":\"tbl\",\"KeyConditions\":{\"h\":{}}}",
      DDB_VALIDATION,
      "1 validation error detected: Value null at 'keyConditions.h.member."
      "comparisonOperator' failed to satisfy constraint: Member must not "
      "be null" },
    /* JSON types: SerializationException. */
    { "ListTables", "{\"Limit\":\"5\"}", DDB_SERIALIZATION,
      "STRING_VALUE cannot be converted to Integer" },
    { "DescribeTable", "{\"TableName\":5}", DDB_SERIALIZATION,
      "NUMBER_VALUE cannot be converted to String" },
    { "DescribeTable", "{\"TableName\":true}", DDB_SERIALIZATION,
      "TRUE_VALUE cannot be converted to String" },
    { "DescribeTable", "{\"TableName\":[]}", DDB_SERIALIZATION,
      "Unrecognized collection type class java.lang.String" },
    { "DescribeTable", "{\"TableName\":{}}", DDB_SERIALIZATION,
      "Start of structure or map found where not expected" },
    { "GetItem", "{\"TableName\":\"tbl\",\"Key\":[]}", DDB_SERIALIZATION,
      "Unrecognized collection type java.util.Map<java.lang.String, "
      "com.amazonaws.dynamodb.v20120810.AttributeValue>" },
    { "GetItem", "{\"TableName\":\"tbl\",\"Key\":{\"k\":\"x\"}}",
      DDB_SERIALIZATION, "Unexpected value type in payload" },
    { "GetItem", "{\"ConsistentRead\":\"maybe\"}", DDB_SERIALIZATION,
      "Unexpected token received from parser" },
    { "CreateTable", "{\"KeySchema\":{}}", DDB_SERIALIZATION,
      "Start of structure or map found where not expected" },
    { "CreateTable", "{\"KeySchema\":[5]}", DDB_SERIALIZATION,
      "Unexpected value type in payload" },
    { "CreateTable", "{\"ProvisionedThroughput\":[]}", DDB_SERIALIZATION,
      "Unrecognized collection type class com.amazonaws.dynamodb."
      "v20120810.ProvisionedThroughput" },
    { "PutItem", "{\"Item\":{\"b\":{\"B\":\"abc\"}}}", DDB_SERIALIZATION,
      "Base64 encoded length is expected a multiple of 4 bytes but found: "
      "3" },
    { "PutItem", "{\"Item\":{\"b\":{\"B\":\"AQJ=\"}}}", DDB_SERIALIZATION,
      "Invalid last non-pad Base64 character dectected" },
    { "PutItem", "{\"Item\":{\"l\":{\"L\":[{\"S\":1.5}]}}}",
      DDB_SERIALIZATION, "DECIMAL_VALUE cannot be converted to String" },
    { "GetItem", "{\"ExpressionAttributeNames\":[]}", DDB_SERIALIZATION,
      "Unrecognized collection type java.util.Map<java.lang.String, "
      "java.lang.String>" },
    /* Key attribute names: KeySchemaAttributeName, 1..255 (Alternator
     * test_limits.py test_limit_attribute_length_key_bad). */
    { "CreateTable", "{\"TableName\":\"tbl\",\"AttributeDefinitions\":[{"
                     "\"AttributeName\":\"\",\"AttributeType\":\"S\"}],"
                     "\"KeySchema\":[{\"AttributeName\":\"k\",\"KeyType\":"
                     "\"HASH\"}],\"BillingMode\":\"PAY_PER_REQUEST\"}",
      DDB_VALIDATION,
      "1 validation error detected: Value '' at "
      "'attributeDefinitions.1.member.attributeName' failed to satisfy "
      "constraint: Member must have length greater than or equal to 1" },
    { "CreateTable", "{\"TableName\":\"tbl\",\"AttributeDefinitions\":[{"
                     "\"AttributeName\":\"k\",\"AttributeType\":\"S\"}],"
                     "\"KeySchema\":[{\"AttributeName\":\"k\",\"KeyType\":"
                     "\"HASH\"},{\"AttributeName\":\""
                     "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk"
                     "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk"
                     "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk"
                     "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk"
                     "kkkkkkkkkkkkkkkk\",\"KeyType\":\"RANGE\"}],"
                     "\"BillingMode\":\"PAY_PER_REQUEST\"}",
      DDB_VALIDATION, NULL },
    { "CreateTable", "{\"TableName\":\"tbl\",\"AttributeDefinitions\":[{"
                     "\"AttributeName\":\"k\",\"AttributeType\":\"S\"}],"
                     "\"KeySchema\":[{\"AttributeName\":\"k\",\"KeyType\":"
                     "\"HASH\"},{\"AttributeName\":\""
                     "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk"
                     "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk"
                     "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk"
                     "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk"
                     "kkkkkkkkkkkkkkk\",\"KeyType\":\"RANGE\"}],"
                     "\"BillingMode\":\"PAY_PER_REQUEST\"}",
      DDB_OK, NULL },
    /* NonKeyAttributes' names are 1..255 characters: one entry for the
     * list, naming the element type's constraints (test_index_keys.py
     * ProjectionNameTest). */
    { "CreateTable", "{\"TableName\":\"tbl\",\"AttributeDefinitions\":[{"
                     "\"AttributeName\":\"k\",\"AttributeType\":\"S\"}],"
                     "\"KeySchema\":[{\"AttributeName\":\"k\",\"KeyType\":"
                     "\"HASH\"}],\"GlobalSecondaryIndexes\":[{\"IndexName\":"
                     "\"gsi\",\"KeySchema\":[{\"AttributeName\":\"k\","
                     "\"KeyType\":\"HASH\"}],\"Projection\":{\"ProjectionType\":"
                     "\"INCLUDE\",\"NonKeyAttributes\":[\"a\",\"\",\"\"]}}]}",
      DDB_VALIDATION, "1 validation error detected: Value '[a, , ]' at "
      "'globalSecondaryIndexes.1.member.projection.nonKeyAttributes' failed "
      "to satisfy constraint: Member must satisfy constraint: [Member must "
      "have length less than or equal to 255, Member must have length "
      "greater than or equal to 1]" },
    /* PutItem, UpdateItem and DeleteItem envelope what they find before
     * the table (item.c). */
    { "UpdateItem", "{\"TableName\":\"tbl\",\"Key\":{\"k\":{\"S\":\"a\"}},"
                    "\"UpdateExpression\":\"SET a = :v\","
                    "\"ExpressionAttributeValues\":{\":v\":{\"S\":\"x\"},"
                    "\":u\":{\"S\":\"y\"}}}", DDB_VALIDATION,
      ENVELOPE "Value provided in ExpressionAttributeValues unused in "
      "expressions: keys: {:u}" },
    { "PutItem", "{\"TableName\":\"tbl\",\"Item\":{\"k\":{\"S\":\"a\"},"
                 "\"s\":{\"SS\":[]}}}", DDB_VALIDATION,
      ENVELOPE "One or more parameter values were invalid: An string set  "
      "may not be empty" },
    /* UpdateItem without a Key joins every failure, the conditional
     * operator before the key; with a Key it stops at the first,
     * ReturnValues first (validation-ordering/updateItem.test.ts). */
    { "UpdateItem", "{\"TableName\":\"tbl\",\"ConditionalOperator\":"
                    "\"XOR\"}", DDB_VALIDATION,
      "2 validation errors detected: Value 'XOR' at 'conditionalOperator' "
      "failed to satisfy constraint: Member must satisfy enum value set: "
      "[OR, AND]; Value null at 'key' failed to satisfy constraint: Member "
      "must not be null" },
    { "UpdateItem", "{\"TableName\":\"tbl\",\"Key\":{\"k\":{\"S\":\"x\"}},"
                    "\"ReturnConsumedCapacity\":\"BAD\",\"ReturnValues\":"
                    "\"BAD\"}", DDB_VALIDATION,
      "1 validation error detected: Value 'BAD' at 'returnValues' failed to "
      "satisfy constraint: Member must satisfy enum value set: [ALL_NEW, "
      "UPDATED_OLD, ALL_OLD, NONE, UPDATED_NEW]" },
    { "UpdateItem", "{\"TableName\":\"\",\"ReturnConsumedCapacity\":\"BAD\","
                    "\"ReturnValues\":\"BAD\"}", DDB_VALIDATION,
      "4 validation errors detected: Value 'BAD' at 'returnConsumedCapacity' "
      "failed to satisfy constraint: Member must satisfy enum value set: "
      "[INDEXES, TOTAL, NONE]; Value '' at 'tableName' failed to satisfy "
      "constraint: Member must have length greater than or equal to 1; "
      "Value 'BAD' at 'returnValues' failed to satisfy constraint: Member "
      "must satisfy enum value set: [ALL_NEW, UPDATED_OLD, ALL_OLD, NONE, "
      "UPDATED_NEW]; Value null at 'key' failed to satisfy constraint: "
      "Member must not be null" },
    /* Query: Limit keeps its capital; an unknown ConditionalOperator is
     * reported alone (validation-ordering/query.test.ts). */
    { "Query", "{\"TableName\":\"tbl\",\"Limit\":0}", DDB_VALIDATION,
      "1 validation error detected: Value '0' at 'Limit' failed to satisfy "
      "constraint: Member must have value greater than or equal to 1" },
    { "Query", "{\"TableName\":\"tbl\",\"ConditionalOperator\":\"XOR\","
               "\"Select\":\"BOGUS\"}", DDB_VALIDATION,
      "Failed to satisfy constraint: Member must satisfy enum value set: "
      "[ALL, OR]" },
    /* The write operations' request validation envelope
     * (error-messages/{putItem,updateItem,deleteItem}.test.ts) */
    { "DeleteItem", "{\"TableName\":\"tbl\",\"Key\":{\"k\":{\"S\":\"x\"}},"
                    "\"ExpressionAttributeValues\":{\":v\":{\"S\":\"x\"}}}",
      DDB_VALIDATION, "1 validation error detected: ExpressionAttributeValues "
      "can only be specified when using expressions" },
    { "PutItem", "{\"TableName\":\"tbl\",\"Item\":{\"k\":{\"S\":\"x\"}},"
                 "\"ConditionExpression\":\"\"}", DDB_VALIDATION,
      "1 validation error detected: Invalid ConditionExpression: The "
      "expression can not be empty;" },
    { "DeleteItem", "{\"TableName\":\"tbl\",\"Key\":{\"k\":{\"S\":\"x\"}},"
                    "\"ReturnValues\":\"UPDATED_NEW\"}", DDB_VALIDATION,
      "1 validation error detected: ReturnValues can only be ALL_OLD or "
      "NONE" },
    { "PutItem", "{\"TableName\":\"tbl\",\"Item\":{\"k\":{\"S\":\"x\"}},"
                 "\"Expected\":{\"a\":{\"ComparisonOperator\":\"EQ\"}}}",
      DDB_VALIDATION, "1 validation error detected: One or more parameter "
      "values were invalid: Value or AttributeValueList must be used with "
      "ComparisonOperator: EQ for Attribute: a" },
    { "UpdateItem", "{\"TableName\":\"tbl\",\"Key\":{\"k\":{\"S\":\"x\"}},"
                    "\"UpdateExpression\":\"SET b = :w\",\"ConditionExpression\":"
                    "\"a = :v\",\"ExpressionAttributeValues\":{\":w\":{\"S\":"
                    "\"x\"}}}", DDB_VALIDATION,
      "1 validation error detected: Invalid ConditionExpression: An "
      "expression attribute value used in expression is not defined; "
      "attribute value: :v" },
    { "UpdateItem", "{\"TableName\":\"tbl\",\"Key\":{\"k\":{\"S\":\"x\"}},"
                    "\"UpdateExpression\":\"SET b = :w\",\"ExpressionAttribute"
                    "Names\":{}}", DDB_VALIDATION,
      "1 validation error detected: ExpressionAttributeNames must not be "
      "empty" },
    /* ... as every error found before the table (us-east-1, 2026-09-20:
     * paritysuite captures/cross-region-latest.json), the item's values
     * before the expressions; GetItem's stay bare. */
    { "UpdateItem", "{\"TableName\":\"tbl\",\"Key\":{\"k\":{\"S\":\"x\"}},"
                    "\"UpdateExpression\":\"SET b = :w\"}", DDB_VALIDATION,
      "1 validation error detected: Invalid UpdateExpression: An "
      "expression attribute value used in expression is not defined; "
      "attribute value: :w" },
    { "PutItem", "{\"TableName\":\"tbl\",\"Item\":{\"k\":{\"SS\":[]}},"
                 "\"ConditionExpression\":\"\"}", DDB_VALIDATION,
      "1 validation error detected: One or more parameter values were "
      "invalid: An string set  may not be empty" },
    { "GetItem", "{\"TableName\":\"tbl\",\"Key\":{\"k\":{\"S\":\"x\"}},"
                 "\"ProjectionExpression\":\"\"}", DDB_OK, NULL },
    /* DynamoDB's current value layer (valueLayers.test.ts, 2026-10):
     * PutItem, UpdateItem and DeleteItem inside the envelope... */
    { "PutItem", "{\"TableName\":\"tbl\",\"Item\":{\"k\":{\"S\":\"x\"},"
                 "\"n\":{\"N\":\"abc\"}}}", DDB_VALIDATION,
      "1 validation error detected: The parameter cannot be converted to a "
      "numeric value: abc" },
    { "PutItem", "{\"TableName\":\"tbl\",\"Item\":{\"n\":{\"NS\":[\"1\","
                 "\"\"]}}}", DDB_VALIDATION,
      "1 validation error detected: The parameter cannot be converted to a "
      "numeric value: " },
    { "PutItem", "{\"TableName\":\"tbl\",\"Item\":{\"n\":{\"M\":{\"x\":{"
                 "\"L\":[{\"N\":\"1e2147483647\"}]}}}}}", DDB_VALIDATION,
      "1 validation error detected: Number overflow. Attempting to store a "
      "number with magnitude larger than supported range" },
    { "PutItem", "{\"TableName\":\"tbl\",\"Item\":{\"n\":{\"N\":"
                 "\"-1e99999999999\"}}}", DDB_VALIDATION,
      "1 validation error detected: Number overflow. Attempting to store a "
      "number with magnitude larger than supported range" },
    { "DeleteItem", "{\"TableName\":\"tbl\",\"Key\":{\"k\":{\"N\":"
                    "\"1e-99999999999\"}}}", DDB_VALIDATION,
      "1 validation error detected: Number underflow. Attempting to store a "
      "number with magnitude smaller than supported range" },
    { "PutItem", "{\"TableName\":\"tbl\",\"Item\":{\"k\":{\"S\":\"x\"}},"
                 "\"ConditionExpression\":\"s = :t\",\"ExpressionAttribute"
                 "Values\":{\":t\":{\"SS\":[\"b\",\"a\",\"b\"]}}}",
      DDB_VALIDATION,
      "1 validation error detected: One or more parameter values were "
      "invalid: Input collection [\"a\", \"b\", \"b\"] contains duplicates." },
    { "UpdateItem", "{\"TableName\":\"tbl\",\"Key\":{\"k\":{\"S\":\"x\"}},"
                    "\"AttributeUpdates\":{\"s\":{\"Action\":\"PUT\","
                    "\"Value\":{\"BS\":[\"/w==\",\"AA==\",\"AA==\"]}}}}",
      DDB_VALIDATION,
      "1 validation error detected: One or more parameter values were "
      "invalid: Input collection [\"AA==\",\"/w==\",\"AA==\"]of type BS "
      "contains duplicates." },
    { "PutItem", "{\"TableName\":\"tbl\",\"Item\":{\"k\":{\"S\":\"x\"}},"
                 "\"Expected\":{\"s\":{\"Value\":{\"NS\":[\"2\",\"1\","
                 "\"2.0\"]}}}}", DDB_VALIDATION,
      "1 validation error detected: One or more parameter values were "
      "invalid: Input collection contains duplicates." },
    /* ... GetItem, BatchGetItem and Query bare, without the
     * ExpressionAttributeValues wrapper ... */
    { "GetItem", "{\"TableName\":\"tbl\",\"Key\":{\"k\":{\"N\":\"\"}}}",
      DDB_VALIDATION,
      "The parameter cannot be converted to a numeric value: " },
    { "BatchGetItem", "{\"RequestItems\":{\"tbl\":{\"Keys\":[{\"k\":{"
                      "\"S\":\"a\"}},{\"k\":{\"N\":\"1e126\"}}]}}}",
      DDB_VALIDATION, "Number overflow. Attempting to store a number with "
      "magnitude larger than supported range" },
    { "Query", "{\"TableName\":\"tbl\",\"KeyConditionExpression\":\"k = :p\","
               "\"ExpressionAttributeValues\":{\":p\":{\"SS\":[\"b\",\"b\"]}}}",
      DDB_VALIDATION, "One or more parameter values were invalid: Input "
      "collection [\"b\", \"b\"] contains duplicates." },
    { "Query", "{\"TableName\":\"tbl\",\"KeyConditions\":{\"k\":{"
               "\"ComparisonOperator\":\"EQ\",\"AttributeValueList\":[{"
               "\"N\":\"x1\"}]}}}", DDB_VALIDATION,
      "The parameter cannot be converted to a numeric value: x1" },
    /* ... and the rest keep the older layer, in their handlers. */
    { "Scan", "{\"TableName\":\"tbl\",\"ExclusiveStartKey\":{\"k\":{\"N\":"
              "\"abc\"}}}", DDB_OK, NULL },
    { "BatchWriteItem", "{\"RequestItems\":{\"tbl\":[{\"PutRequest\":{"
                        "\"Item\":{\"k\":{\"SS\":[\"a\",\"a\"]}}}}]}}",
      DDB_OK, NULL },
    /* Valid values pass. */
    { "PutItem", "{\"TableName\":\"tbl\",\"Item\":{\"n\":{\"NS\":[\"1\","
                 "\"1.5\"]},\"s\":{\"SS\":[\"a\",\"b\"]},\"m\":{\"M\":{"
                 "\"x\":{\"N\":\"-0\"}}}}}", DDB_OK, NULL },
    /* Types are checked before constraints. */
    { "Query", "{\"Select\":\"BAD\",\"Limit\":true}", DDB_SERIALIZATION,
      "TRUE_VALUE cannot be converted to Integer" },
};

START_TEST(test_validate_cases)
{
    const struct vcase *c = &vcases[_i];
    json_error_t jerr;
    json_t *req = json_loads(c->json, 0, &jerr);
    struct ddb_err err;
    int rc;

    ck_assert_msg(req != NULL, "bad test JSON: %s", c->json);
    ddb_err_init(&err);
    rc = check_request(c->op, req, &err);
    if (c->type == DDB_OK) {
        ck_assert_msg(rc == 0, "%s %s: %s", c->op, c->json, err.msg);
    } else {
        ck_assert_int_eq(rc, -1);
        ck_assert_int_eq(err.type, c->type);
        if (c->msg != NULL)
            ck_assert_str_eq(err.msg, c->msg);
    }
    ddb_err_clear(&err);
    json_decref(req);
}
END_TEST

/* Attribute names of 65536 bytes or more, wherever a request carries
 * one; 65535 is fine (ExtendDB issue #365, measured against DynamoDB). */
START_TEST(test_validate_attribute_name_size)
{
    static const char *const shapes[][2] = {
        { "{\"TableName\":\"tbl\",\"Item\":{\"k\":{\"S\":\"x\"},\"",
          "\":{\"S\":\"v\"}}}" },
        { "{\"TableName\":\"tbl\",\"Item\":{\"m\":{\"M\":{\"",
          "\":{\"N\":\"1\"}}}}}" },
        { "{\"TableName\":\"tbl\",\"Item\":{\"k\":{\"S\":\"x\"}},"
          "\"ConditionExpression\":\"#n = :v\",\"ExpressionAttributeNames\":"
          "{\"#n\":\"", "\"},\"ExpressionAttributeValues\":{\":v\":{\"S\":"
          "\"x\"}}}" },
    };
    size_t len, i;
    char *name, *text;
    struct ddb_err err;

    for (len = 65535; len <= 65536; len++) {
        name = malloc(len + 1);
        ck_assert_ptr_nonnull(name);
        memset(name, 'a', len);
        name[len] = '\0';
        text = malloc(len + 400);
        ck_assert_ptr_nonnull(text);
        for (i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
            json_error_t jerr;
            json_t *req;

            snprintf(text, len + 400, "%s%s%s", shapes[i][0], name,
                     shapes[i][1]);
            req = json_loads(text, 0, &jerr);
            ck_assert_ptr_nonnull(req);
            ddb_err_init(&err);
            if (len == 65535) {
                ck_assert_msg(check_request("PutItem", req, &err) == 0,
                              "shape %zu: %s", i, err.msg);
            } else {
                ck_assert_int_eq(check_request("PutItem", req, &err), -1);
                ck_assert_str_eq(err.msg, "1 validation error detected: "
                                 "Attribute name is too large, must be less "
                                 "than 65536 bytes");
            }
            ddb_err_clear(&err);
            json_decref(req);
        }
        free(text);
        free(name);
    }
}
END_TEST

START_TEST(test_validate_max_ten_errors)
{
    json_t *req = json_loads("{\"KeySchema\":[{},{},{},{},{},{}]}", 0, NULL);
    struct ddb_err err;

    ddb_err_init(&err);
    ck_assert_int_eq(check_request("CreateTable", req, &err), -1);
    ck_assert(strncmp(err.msg, "10 validation errors detected: ", 31) == 0);
    json_decref(req);
}
END_TEST

START_TEST(test_error_bodies)
{
    struct ddb_err err;
    json_t *body;

    ddb_err_init(&err);
    ddb_err_set(&err, DDB_VALIDATION, "bad");
    body = error_body(&err);
    ck_assert_str_eq(json_string_value(json_object_get(body, "__type")),
                     "com.amazon.coral.validate#ValidationException");
    ck_assert_str_eq(json_string_value(json_object_get(body, "message")),
                     "bad");
    ck_assert_uint_eq(error_http_status(err.type), 400);
    json_decref(body);

    ddb_err_set(&err, DDB_SERIALIZATION, "%s", "");
    body = error_body(&err);
    ck_assert_uint_eq(json_object_size(body), 1);     /* no message at all */
    json_decref(body);

    ddb_err_set(&err, DDB_TRANSACTION_CANCELED, "Transaction cancelled");
    ddb_err_extra_set_new(&err, "CancellationReasons", json_array());
    body = error_body(&err);
    ck_assert_ptr_nonnull(json_object_get(body, "Message"));
    ck_assert_ptr_null(json_object_get(body, "message"));
    ck_assert_ptr_nonnull(json_object_get(body, "CancellationReasons"));
    json_decref(body);
    ddb_err_clear(&err);

    ck_assert_str_eq(error_code(DDB_THROTTLING), "ThrottlingException");
    ck_assert_uint_eq(error_http_status(DDB_INTERNAL), 500);
    ck_assert_uint_eq(error_http_status(DDB_HTTP_NOT_FOUND), 404);
    ck_assert_uint_eq(error_http_status(DDB_REQUEST_TOO_LARGE), 413);
}
END_TEST

START_TEST(test_api_lookup)
{
    static const char *const names[] = {
        "CreateTable", "DeleteItem", "DeleteTable", "DescribeTable",
        "GetItem", "ListTables", "PutItem", "Query", "Scan", "UpdateItem",
        "UpdateTable" };
    size_t i;

    for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        const struct api_op *op = api_lookup(names[i]);

        ck_assert_ptr_nonnull(op);
        ck_assert_str_eq(op->name, names[i]);
    }
    ck_assert_ptr_null(api_lookup("getitem"));
    ck_assert_ptr_null(api_lookup("NoSuchOperation"));
    ck_assert_ptr_null(api_lookup(""));
}
END_TEST

static Suite *
validate_suite(void)
{
    Suite *s = suite_create("validate");
    TCase *tc;

    tc = tcase_create("shapes");
    tcase_add_loop_test(tc, test_validate_cases, 0,
                        sizeof(vcases) / sizeof(vcases[0]));
    tcase_add_test(tc, test_validate_max_ten_errors);
    tcase_add_test(tc, test_validate_attribute_name_size);
    suite_add_tcase(s, tc);
    tc = tcase_create("errors");
    tcase_add_test(tc, test_error_bodies);
    tcase_add_test(tc, test_api_lookup);
    suite_add_tcase(s, tc);
    return s;
}

int
main(void)
{
    SRunner *sr = srunner_create(validate_suite());
    int failed;

    srunner_run_all(sr, CK_ENV);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
