/* SPDX-License-Identifier: MIT */
/* check_av.c - api/proto/av.c and key.c: AttributeValue validation with
 * DynamoDB's messages and in-place canonicalisation, item size, equality
 * and order, key schema parsing and storage key building. */

#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/proto/av.h"

static json_t *
js(const char *text)
{
    json_error_t jerr;
    json_t *v = json_loads(text, JSON_DECODE_ANY | JSON_ALLOW_NUL, &jerr);

    ck_assert_msg(v != NULL, "bad test json: %s (%s)", text, jerr.text);
    return v;
}

/* ------------------------------------------------------------------------
 * validate: accepted values and in-place canonical form
 * ---------------------------------------------------------------------- */

static const struct { const char *in, *out; } ok_cases[] = {
    { "{\"S\": \"x\"}", "{\"S\": \"x\"}" },
    { "{\"S\": \"\"}", "{\"S\": \"\"}" },           /* empty non-key: ok */
    { "{\"B\": \"\"}", "{\"B\": \"\"}" },
    { "{\"B\": \"YWJj\"}", "{\"B\": \"YWJj\"}" },
    { "{\"N\": \"1E+2\"}", "{\"N\": \"100\"}" },
    { "{\"N\": \"-0.50\"}", "{\"N\": \"-0.5\"}" },
    /* Set members come back in DynamoDB's order: by value for NS, by
     * bytes for SS and BS (paritysuite/dynamodb-conformance tier1
     * updateItem/basic.test.ts, 2026-10). */
    { "{\"NS\": [\"1.0\", \"2e0\", \"-0\"]}", "{\"NS\": [\"0\", \"1\", \"2\"]}" },
    { "{\"NS\": [\"10\", \"9\", \"-1\"]}", "{\"NS\": [\"-1\", \"9\", \"10\"]}" },
    { "{\"SS\": [\"a\", \"\"]}", "{\"SS\": [\"\", \"a\"]}" },
    { "{\"SS\": [\"b\", \"B\", \"\u00e9\"]}",
      "{\"SS\": [\"B\", \"b\", \"\u00e9\"]}" },
    { "{\"BS\": [\"YQ==\", \"\"]}", "{\"BS\": [\"\", \"YQ==\"]}" },
    { "{\"BS\": [\"/w==\", \"AA==\"]}", "{\"BS\": [\"AA==\", \"/w==\"]}" },
    { "{\"BOOL\": false}", "{\"BOOL\": false}" },
    { "{\"BOOL\": \"TRUE\"}", "{\"BOOL\": true}" },
    { "{\"BOOL\": \"no\"}", "{\"BOOL\": false}" },
    { "{\"NULL\": true}", "{\"NULL\": true}" },
    { "{\"NULL\": \"1\"}", "{\"NULL\": true}" },
    { "{\"L\": []}", "{\"L\": []}" },
    { "{\"M\": {}}", "{\"M\": {}}" },
    { "{\"M\": {\"a\": {\"N\": \"1.10\"}, \"b\": {\"L\": [{\"N\": \"0.0\"}]}}}",
      "{\"M\": {\"a\": {\"N\": \"1.1\"}, \"b\": {\"L\": [{\"N\": \"0\"}]}}}" },
    /* Unknown members and nulls are ignored, then dropped. */
    { "{\"S\": \"x\", \"X\": 5}", "{\"S\": \"x\"}" },
    { "{\"S\": \"x\", \"N\": null}", "{\"S\": \"x\"}" },
};

START_TEST(test_item_validate_ok)
{
    struct ddb_err err;
    json_t *av = js(ok_cases[_i].in), *want = js(ok_cases[_i].out);

    ddb_err_init(&err);
    ck_assert_msg(av_validate(av, 0, &err) == 0, "%s: %s", ok_cases[_i].in,
                  err.msg);
    ck_assert_msg(json_equal(av, want), "%s -> %s", ok_cases[_i].in,
                  json_dumps(av, 0));
    json_decref(av);
    json_decref(want);
}
END_TEST

/* ------------------------------------------------------------------------
 * errors: DynamoDB's exact types and messages
 * ---------------------------------------------------------------------- */

#define V DDB_VALIDATION
#define SER DDB_SERIALIZATION
#define EMPTY "Supplied AttributeValue is empty, must contain exactly one " \
    "of the supported datatypes"
#define MULTI "Supplied AttributeValue has more than one datatypes set, " \
    "must contain exactly one of the supported datatypes"
#define NAN_MSG "The parameter cannot be converted to a numeric value"
#define INV "One or more parameter values were invalid: "
#define START "Start of structure or map found where not expected"

static const struct {
    const char *in;
    enum ddb_errtype type;
    const char *msg;
} err_cases[] = {
    { "{}", V, EMPTY },
    { "{\"a\": \"\"}", V, EMPTY },
    { "{\"S\": null}", V, EMPTY },
    { "{\"S\": \"a\", \"N\": \"1\"}", V, MULTI },
    { "{\"S\": \"a\", \"N\": \"b\"}", V, NAN_MSG ": b" },
    { "{\"N\": \"b\", \"S\": \"a\"}", V, NAN_MSG ": b" },
    { "{\"NULL\": false, \"SS\": []}", V,
      INV "An string set  may not be empty" },
    { "{\"SS\": [\"a\", null]}", V,
      INV "An string set may not have a null string as a member" },
    { "{\"BS\": [\"YQ==\", null]}", V,
      "The supplied Item contains a null AttributeValue" },
    { "{\"NS\": [\"1\", null]}", V, NAN_MSG },
    { "{\"N\": \"\"}", V, NAN_MSG },
    { "{\"N\": \"b\"}", V, NAN_MSG ": b" },
    /* The older layer (Scan, BatchWriteItem, transactions): Java's int
     * precision - scale wraps, so this overflow reads as an underflow
     * (valueLayers.test.ts, "BatchWriteItem ... older wording"). */
    { "{\"N\": \"1e2147483647\"}", V, "Number underflow. Attempting to store "
      "a number with magnitude smaller than supported range" },
    { "{\"N\": \"1e2147483646\"}", V, "Number overflow. Attempting to store a "
      "number with magnitude larger than supported range" },
    { "{\"N\": \"1e126\"}", V, "Number overflow. Attempting to store a number "
      "with magnitude larger than supported range" },
    { "{\"N\": \"1e-131\"}", V, "Number underflow. Attempting to store a "
      "number with magnitude smaller than supported range" },
    { "{\"N\": \"123456789012345678901234567890123456789\"}", V,
      "Attempting to store more than 38 significant digits in a Number" },
    { "{\"NS\": [\"1\", \"\"]}", V, NAN_MSG },
    { "{\"NS\": [\"1\", \"b\", \"a\"]}", V, NAN_MSG ": b" },
    { "{\"SS\": []}", V, INV "An string set  may not be empty" },
    { "{\"NS\": []}", V, INV "An number set  may not be empty" },
    { "{\"BS\": []}", V, INV "Binary sets should not be empty" },
    { "{\"SS\": [\"a\", \"a\"]}", V,
      INV "Input collection [a, a] contains duplicates." },
    { "{\"SS\": [\"b\", \"a\", \"c\", \"a\"]}", V,
      INV "Input collection [b, a, c, a] contains duplicates." },
    { "{\"NS\": [\"1\", \"1\"]}", V, "Input collection contains duplicates" },
    { "{\"NS\": [\"1\", \"2\", \"1.0\"]}", V,
      "Input collection contains duplicates" },
    { "{\"NS\": [\"100\", \"1e2\"]}", V, "Input collection contains duplicates" },
    { "{\"BS\": [\"Yg==\", \"Yg==\"]}", V,
      INV "Input collection [Yg==, Yg==]of type BS contains duplicates." },
    { "{\"NULL\": false}", V,
      INV "Null attribute value types must have the value of true" },
    { "{\"M\": {\"a\": {}}}", V, EMPTY },
    { "{\"L\": [{\"S\": \"a\"}, {\"N\": \"x\"}]}", V, NAN_MSG ": x" },
    /* SerializationException: JSON types, found before any validation. */
    { "{\"S\": 5}", SER, "NUMBER_VALUE cannot be converted to String" },
    { "{\"S\": 5.5}", SER, "DECIMAL_VALUE cannot be converted to String" },
    { "{\"S\": true}", SER, "TRUE_VALUE cannot be converted to String" },
    { "{\"S\": false}", SER, "FALSE_VALUE cannot be converted to String" },
    { "{\"S\": {}}", SER, START },
    { "{\"S\": []}", SER, "Unrecognized collection type class java.lang.String" },
    { "{\"N\": 123}", SER, "NUMBER_VALUE cannot be converted to String" },
    { "{\"B\": 5}", SER, "only base-64-encoded strings are convertible to bytes" },
    { "{\"B\": true}", SER, "only base-64-encoded strings are convertible to bytes" },
    { "{\"B\": []}", SER, "Unrecognized collection type class java.nio.ByteBuffer" },
    { "{\"B\": \"abc\"}", SER,
      "Base64 encoded length is expected a multiple of 4 bytes but found: 3" },
    { "{\"B\": \"YR==\"}", SER, "Invalid last non-pad Base64 character dectected" },
    { "{\"B\": \"a!bc\"}", SER, "Invalid last non-pad Base64 character dectected" },
    { "{\"B\": \"a=bc\"}", SER, "Invalid last non-pad Base64 character dectected" },
    { "{\"BS\": [\"YQ==\", 5]}", SER,
      "only base-64-encoded strings are convertible to bytes" },
    { "{\"BOOL\": 1}", SER, "NUMBER_VALUE cannot be converted to Boolean" },
    { "{\"BOOL\": \"maybe\"}", SER, "Unexpected token received from parser" },
    { "{\"BOOL\": []}", SER, "Unrecognized collection type class java.lang.Boolean" },
    { "{\"NULL\": {}}", SER, START },
    { "{\"SS\": \"a\"}", SER, "Unexpected field type" },
    { "{\"SS\": {}}", SER, START },
    { "{\"SS\": [\"a\", 1]}", SER, "NUMBER_VALUE cannot be converted to String" },
    { "{\"NS\": [1]}", SER, "NUMBER_VALUE cannot be converted to String" },
    { "{\"L\": 5}", SER, "Unexpected field type" },
    { "{\"L\": [5]}", SER, "Unexpected value type in payload" },
    { "{\"L\": [[]]}", SER, "Unrecognized collection type class "
      "com.amazonaws.dynamodb.v20120810.AttributeValue" },
    { "{\"M\": []}", SER, "Unrecognized collection type java.util.Map<"
      "java.lang.String, com.amazonaws.dynamodb.v20120810.AttributeValue>" },
    { "{\"M\": \"x\"}", SER, "Unexpected field type" },
    { "{\"M\": {\"a\": \"x\"}}", SER, "Unexpected value type in payload" },
    { "\"x\"", SER, "Unexpected value type in payload" },
    { "[]", SER, "Unrecognized collection type class "
      "com.amazonaws.dynamodb.v20120810.AttributeValue" },
    /* A type error anywhere beats a validation error before it. */
    { "{\"M\": {\"a\": {\"N\": \"x\"}, \"b\": {\"S\": 1}}}", SER,
      "NUMBER_VALUE cannot be converted to String" },
};

START_TEST(test_item_validate_errors)
{
    struct ddb_err err;
    json_t *av = js(err_cases[_i].in);

    ddb_err_init(&err);
    ck_assert_msg(av_validate(av, 0, &err) == -1, "accepted %s",
                  err_cases[_i].in);
    ck_assert_msg(err.type == err_cases[_i].type, "%s: type %d",
                  err_cases[_i].in, err.type);
    ck_assert_str_eq(err.msg, err_cases[_i].msg);
    json_decref(av);
}
END_TEST

/* {"M": {"n": ... }} wrapped depth times around {"S": "leaf"}. */
static json_t *
deep_map(int depth)
{
    json_t *v = json_pack("{s:s}", "S", "leaf");
    int i;

    for (i = 0; i < depth; i++)
        v = json_pack("{s:{s:o}}", "M", "n", v);
    return v;
}

START_TEST(test_item_validate_nesting)
{
    struct ddb_err err;
    json_t *v, *item;

    ddb_err_init(&err);
    /* 31 wraps: the leaf is level 32, accepted by DynamoDB. */
    v = deep_map(31);
    ck_assert_int_eq(av_validate(v, 0, &err), 0);
    json_decref(v);
    /* 32 wraps: leaf at level 33, refused. */
    v = deep_map(32);
    ck_assert_int_eq(av_validate(v, 0, &err), -1);
    ck_assert_int_eq(err.type, DDB_VALIDATION);
    ck_assert_str_eq(err.msg, "Nesting Levels have exceeded supported limits: "
                     "Attributes in the item have nested levels beyond "
                     "supported limit");
    json_decref(v);
    /* Lists count the same way, and so does item_validate. */
    v = json_pack("{s:s}", "S", "x");
    {
        int i;

        for (i = 0; i < 32; i++)
            v = json_pack("{s:[o]}", "L", v);
    }
    item = json_pack("{s:{s:s}, s:o}", "pk", "S", "a", "deep", v);
    ck_assert_int_eq(item_validate(item, &err), -1);
    ck_assert_str_eq(err.msg, "Nesting Levels have exceeded supported limits: "
                     "Attributes in the item have nested levels beyond "
                     "supported limit");
    json_decref(item);
    /* A container at level 32 is too deep even when empty. */
    v = json_pack("{s:{}}", "M");
    {
        int i;

        for (i = 0; i < 31; i++)
            v = json_pack("{s:{s:o}}", "M", "n", v);
    }
    ck_assert_int_eq(av_validate(v, 0, &err), -1);
    ck_assert_int_eq(err.type, DDB_VALIDATION);
    json_decref(v);
    v = json_pack("{s:{}}", "M");
    {
        int i;

        for (i = 0; i < 30; i++)
            v = json_pack("{s:{s:o}}", "M", "n", v);
    }
    ck_assert_int_eq(av_validate(v, 0, &err), 0);
    json_decref(v);
    /* A JSON type error below the limit is still a SerializationException:
     * the whole request is deserialized before nesting is checked. */
    v = json_pack("{s:i}", "S", 5);
    {
        int i;

        for (i = 0; i < 40; i++)
            v = json_pack("{s:[o]}", "L", v);
    }
    ck_assert_int_eq(av_validate(v, 0, &err), -1);
    ck_assert_int_eq(err.type, DDB_SERIALIZATION);
    json_decref(v);
    /* Very deep input neither crashes nor passes. */
    v = deep_map(1000);
    ck_assert_int_eq(av_validate(v, 0, &err), -1);
    json_decref(v);
}
END_TEST

START_TEST(test_item_validate_item)
{
    struct ddb_err err;
    json_t *item;

    ddb_err_init(&err);
    item = js("{\"a\": {\"N\": \"01.0\"}, \"b\": {\"NS\": [\"5e1\"]}}");
    ck_assert_int_eq(item_validate(item, &err), 0);
    ck_assert_str_eq(json_string_value(json_object_get(
        json_object_get(item, "a"), "N")), "1");
    ck_assert_str_eq(json_string_value(json_array_get(json_object_get(
        json_object_get(item, "b"), "NS"), 0)), "50");
    json_decref(item);
    /* Serialization errors in a later attribute beat validation errors in
     * an earlier one. */
    item = js("{\"a\": {\"N\": \"x\"}, \"b\": {\"S\": 5}}");
    ck_assert_int_eq(item_validate(item, &err), -1);
    ck_assert_int_eq(err.type, DDB_SERIALIZATION);
    json_decref(item);
    item = js("[]");
    ck_assert_int_eq(item_validate(item, &err), -1);
    ck_assert_int_eq(err.type, DDB_SERIALIZATION);
    json_decref(item);
    item = js("{\"a\": 5}");
    ck_assert_int_eq(item_validate(item, &err), -1);
    ck_assert_str_eq(err.msg, "Unexpected value type in payload");
    json_decref(item);
}
END_TEST

/* ------------------------------------------------------------------------
 * size (throttling.md 2)
 * ---------------------------------------------------------------------- */

static const struct { const char *item; size_t size; } size_cases[] = {
    { "{}", 0 },
    { "{\"id\": {\"S\": \"abc\"}}", 5 },
    { "{\"id\": {\"S\": \"\\u00e9\"}}", 4 },                /* UTF-8 bytes */
    { "{\"n\": {\"N\": \"12345\"}}", 5 },
    { "{\"n\": {\"N\": \"-1\"}}", 4 },
    { "{\"n\": {\"N\": \"0\"}}", 2 },
    { "{\"flag\": {\"BOOL\": true}}", 5 },
    { "{\"nil\": {\"NULL\": true}}", 4 },
    { "{\"b\": {\"B\": \"YWJj\"}}", 4 },
    { "{\"b\": {\"B\": \"YQ==\"}}", 2 },
    { "{\"b\": {\"B\": \"\"}}", 1 },
    { "{\"ss\": {\"SS\": [\"a\", \"bc\"]}}", 5 },
    { "{\"ns\": {\"NS\": [\"1\", \"-1\", \"123.45\"]}}", 11 },
    { "{\"bs\": {\"BS\": [\"YWJj\", \"Yg==\"]}}", 6 },
    { "{\"m\": {\"M\": {}}}", 4 },
    { "{\"l\": {\"L\": []}}", 4 },
    { "{\"m\": {\"M\": {\"a\": {\"S\": \"xy\"}}}}", 8 },
    { "{\"l\": {\"L\": [{\"N\": \"1\"}, {\"NULL\": true}]}}", 9 },
    { "{\"m\": {\"M\": {\"l\": {\"L\": [{\"S\": \"ab\"}]}}}}",
      1 + 3 + 1 + 1 + (3 + 1 + 2) },
    { "{\"id\": {\"S\": \"abc\"}, \"n\": {\"N\": \"12345\"}, "
      "\"flag\": {\"BOOL\": true}}", 15 },
};

START_TEST(test_item_size)
{
    json_t *item = js(size_cases[_i].item);

    ck_assert_msg(item_size(item) == size_cases[_i].size, "%s: %zu != %zu",
                  size_cases[_i].item, item_size(item), size_cases[_i].size);
    json_decref(item);
}
END_TEST

START_TEST(test_item_size_limit)
{
    /* An item of exactly ITEM_SIZE_MAX bytes, and one byte more. */
    char *s = malloc(ITEM_SIZE_MAX + 1);
    json_t *item;

    memset(s, 'a', ITEM_SIZE_MAX);
    s[ITEM_SIZE_MAX - 1 - 2] = '\0';                 /* name "pk" + "a" */
    item = json_pack("{s:{s:s}}", "pk", "S", s);
    ck_assert_uint_eq(item_size(item), ITEM_SIZE_MAX - 1);
    json_object_set_new(item, "x", json_pack("{s:s}", "S", ""));
    ck_assert_uint_eq(item_size(item), ITEM_SIZE_MAX);
    json_object_set_new(item, "x", json_pack("{s:s}", "S", "z"));
    ck_assert_uint_gt(item_size(item), ITEM_SIZE_MAX);
    json_decref(item);
    free(s);
}
END_TEST

/* ------------------------------------------------------------------------
 * compare
 * ---------------------------------------------------------------------- */

static const struct { const char *a, *b; bool equal; } eq_cases[] = {
    { "{\"S\": \"a\"}", "{\"S\": \"a\"}", true },
    { "{\"S\": \"a\"}", "{\"S\": \"b\"}", false },
    { "{\"S\": \"1\"}", "{\"N\": \"1\"}", false },
    { "{\"N\": \"1\"}", "{\"N\": \"1.0\"}", true },
    { "{\"B\": \"YQ==\"}", "{\"B\": \"YQ==\"}", true },
    { "{\"BOOL\": true}", "{\"BOOL\": false}", false },
    { "{\"NULL\": true}", "{\"NULL\": true}", true },
    { "{\"SS\": [\"a\", \"b\"]}", "{\"SS\": [\"b\", \"a\"]}", true },
    { "{\"SS\": [\"a\", \"b\"]}", "{\"SS\": [\"a\", \"c\"]}", false },
    { "{\"SS\": [\"a\"]}", "{\"SS\": [\"a\", \"b\"]}", false },
    { "{\"NS\": [\"1\", \"2.0\"]}", "{\"NS\": [\"2\", \"1\"]}", true },
    { "{\"BS\": [\"YQ==\", \"Yg==\"]}", "{\"BS\": [\"Yg==\", \"YQ==\"]}", true },
    { "{\"L\": [{\"S\": \"a\"}, {\"N\": \"1\"}]}",
      "{\"L\": [{\"S\": \"a\"}, {\"N\": \"1\"}]}", true },
    { "{\"L\": [{\"S\": \"a\"}, {\"N\": \"1\"}]}",
      "{\"L\": [{\"N\": \"1\"}, {\"S\": \"a\"}]}", false },
    { "{\"M\": {\"a\": {\"N\": \"1\"}, \"b\": {\"S\": \"x\"}}}",
      "{\"M\": {\"b\": {\"S\": \"x\"}, \"a\": {\"N\": \"1\"}}}", true },
    { "{\"M\": {\"a\": {\"N\": \"1\"}}}", "{\"M\": {\"a\": {\"N\": \"2\"}}}",
      false },
    { "{\"M\": {\"a\": {\"N\": \"1\"}}}", "{\"M\": {}}", false },
    { "{\"L\": []}", "{\"M\": {}}", false },
};

START_TEST(test_item_equal)
{
    json_t *a = js(eq_cases[_i].a), *b = js(eq_cases[_i].b);

    ck_assert_int_eq(av_equal(a, b), eq_cases[_i].equal);
    ck_assert_int_eq(av_equal(b, a), eq_cases[_i].equal);
    json_decref(a);
    json_decref(b);
}
END_TEST

static const struct { const char *a, *b; int want; bool comparable; }
cmp_cases[] = {
    { "{\"S\": \"a\"}", "{\"S\": \"b\"}", -1, true },
    { "{\"S\": \"a\"}", "{\"S\": \"ab\"}", -1, true },
    { "{\"S\": \"Z\"}", "{\"S\": \"a\"}", -1, true },
    { "{\"S\": \"\\u00e9\"}", "{\"S\": \"z\"}", 1, true },   /* unsigned */
    { "{\"S\": \"\\uffff\"}", "{\"S\": \"\\ud83d\\ude00\"}", -1, true },
    { "{\"N\": \"10\"}", "{\"N\": \"9\"}", 1, true },
    { "{\"N\": \"-10\"}", "{\"N\": \"9\"}", -1, true },
    { "{\"N\": \"1.0\"}", "{\"N\": \"1\"}", 0, true },
    { "{\"B\": \"/w==\"}", "{\"B\": \"AA==\"}", 1, true },  /* 0xff > 0x00 */
    { "{\"B\": \"+w==\"}", "{\"B\": \"AA==\"}", 1, true },  /* 0xfb > 0x00 */
    { "{\"B\": \"AA==\"}", "{\"B\": \"AAA=\"}", -1, true },
    { "{\"S\": \"1\"}", "{\"N\": \"1\"}", 0, false },
    { "{\"BOOL\": true}", "{\"BOOL\": true}", 0, false },
    { "{\"SS\": [\"a\"]}", "{\"SS\": [\"a\"]}", 0, false },
};

START_TEST(test_item_compare)
{
    json_t *a = js(cmp_cases[_i].a), *b = js(cmp_cases[_i].b);
    bool ok = !cmp_cases[_i].comparable;
    int c = av_compare(a, b, &ok);

    ck_assert_int_eq(ok, cmp_cases[_i].comparable);
    ck_assert_int_eq(c < 0 ? -1 : c > 0, cmp_cases[_i].want);
    c = av_compare(b, a, &ok);
    ck_assert_int_eq(c < 0 ? -1 : c > 0, -cmp_cases[_i].want);
    json_decref(a);
    json_decref(b);
}
END_TEST

START_TEST(test_item_equal_large_sets)
{
    enum { N = 20000 };
    json_t *a = json_array(), *b = json_array(), *x, *y;
    char buf[32];
    int i;

    for (i = 0; i < N; i++) {
        snprintf(buf, sizeof(buf), "%d.0", i);
        json_array_append_new(a, json_string(buf));
        snprintf(buf, sizeof(buf), "%d", N - 1 - i);
        json_array_append_new(b, json_string(buf));
    }
    x = json_pack("{s:o}", "NS", a);
    y = json_pack("{s:o}", "NS", b);
    ck_assert(av_equal(x, y));          /* fast: sorted, not N^2 */
    json_array_set_new(b, 0, json_string("-1"));
    ck_assert(!av_equal(x, y));
    json_decref(x);
    json_decref(y);
}
END_TEST

START_TEST(test_item_type)
{
    json_t *v = js("{\"SS\": [\"a\"]}");

    ck_assert_str_eq(av_type(v), "SS");
    json_decref(v);
    v = js("{\"S\": \"a\", \"N\": \"1\"}");
    ck_assert_ptr_null(av_type(v));
    json_decref(v);
    v = js("{}");
    ck_assert_ptr_null(av_type(v));
    json_decref(v);
    ck_assert_ptr_null(av_type(NULL));
}
END_TEST

/* ------------------------------------------------------------------------
 * keys
 * ---------------------------------------------------------------------- */

static const char *desc_hash_range =
    "{\"TableName\": \"t\", \"KeySchema\": ["
    "{\"AttributeName\": \"pk\", \"KeyType\": \"HASH\"},"
    "{\"AttributeName\": \"sk\", \"KeyType\": \"RANGE\"}],"
    "\"AttributeDefinitions\": ["
    "{\"AttributeName\": \"sk\", \"AttributeType\": \"N\"},"
    "{\"AttributeName\": \"pk\", \"AttributeType\": \"S\"}]}";

static void
schema(const char *desc_text, struct key_schema *ks)
{
    struct ddb_err err;
    json_t *desc = js(desc_text);

    ddb_err_init(&err);
    ck_assert_msg(key_schema_from_desc(desc, ks, &err) == 0, "%s", err.msg);
    json_decref(desc);
}

START_TEST(test_item_key_schema)
{
    struct key_schema ks;
    struct ddb_err err;
    json_t *desc;

    schema(desc_hash_range, &ks);
    ck_assert_str_eq(ks.hash_name, "pk");
    ck_assert_int_eq(ks.hash_type, 'S');
    ck_assert_str_eq(ks.range_name, "sk");
    ck_assert_int_eq(ks.range_type, 'N');
    schema("{\"KeySchema\": [{\"AttributeName\": \"id\", \"KeyType\": "
           "\"HASH\"}], \"AttributeDefinitions\": [{\"AttributeName\": "
           "\"id\", \"AttributeType\": \"B\"}]}", &ks);
    ck_assert_str_eq(ks.hash_name, "id");
    ck_assert_int_eq(ks.hash_type, 'B');
    ck_assert_str_eq(ks.range_name, "");
    ck_assert_int_eq(ks.range_type, 0);
    ddb_err_init(&err);
    desc = js("{\"KeySchema\": []}");
    ck_assert_int_eq(key_schema_from_desc(desc, &ks, &err), -1);
    json_decref(desc);
}
END_TEST

/* key_schema_of(): each description's own schema, from a per-thread
 * cache that holds a reference to each description it remembers, drops
 * it when the description is pushed out, and with the thread. */
static const char desc_id_only[] =
    "{\"KeySchema\": [{\"AttributeName\": \"id\", \"KeyType\": \"HASH\"}],"
    " \"AttributeDefinitions\": [{\"AttributeName\": \"id\","
    " \"AttributeType\": \"B\"}]}";

static void *
schema_in_thread(void *desc)
{
    struct key_schema ks;
    struct ddb_err err;

    ddb_err_init(&err);
    ck_assert_int_eq(key_schema_of(desc, &ks, &err), 0);
    ck_assert_str_eq(ks.hash_name, "id");
    return NULL;
}

START_TEST(test_item_key_schema_cached)
{
    json_t *a = js(desc_hash_range), *b = js(desc_id_only), *other[4];
    struct key_schema ks;
    struct ddb_err err;
    pthread_t th;

    ddb_err_init(&err);
    for (int round = 0; round < 2; round++) {
        ck_assert_int_eq(key_schema_of(a, &ks, &err), 0);
        ck_assert_str_eq(ks.hash_name, "pk");
        ck_assert_str_eq(ks.range_name, "sk");
        ck_assert_int_eq(ks.range_type, 'N');
        ck_assert_int_eq(key_schema_of(b, &ks, &err), 0);
        ck_assert_str_eq(ks.hash_name, "id");
        ck_assert_int_eq(ks.hash_type, 'B');
        ck_assert_int_eq(ks.range_type, 0);
    }
    ck_assert_uint_eq(a->refcount, 2);          /* the cache's reference */
    ck_assert_uint_eq(b->refcount, 2);
    for (int i = 0; i < 4; i++) {               /* push a and b out */
        other[i] = js(desc_id_only);
        ck_assert_int_eq(key_schema_of(other[i], &ks, &err), 0);
    }
    ck_assert_uint_eq(a->refcount, 1);
    ck_assert_uint_eq(b->refcount, 1);
    ck_assert_int_eq(key_schema_from_desc(a, &ks, &err), 0);
    ck_assert_uint_eq(a->refcount, 1);          /* the uncached form */
    /* another thread's cache lets go when the thread ends */
    ck_assert_int_eq(pthread_create(&th, NULL, schema_in_thread, b), 0);
    ck_assert_int_eq(pthread_join(th, NULL), 0);
    ck_assert_uint_eq(b->refcount, 1);
    json_decref(a);
    json_decref(b);
    for (int i = 0; i < 4; i++)
        json_decref(other[i]);
}
END_TEST

static const struct {
    const char *item;
    bool is_key_map;
    const char *msg;
} key_err_cases[] = {
    { "{\"sk\": {\"N\": \"1\"}}", false,
      INV "Missing the key pk in the item" },
    { "{\"pk\": {\"S\": \"a\"}}", false,
      INV "Missing the key sk in the item" },
    { "{\"pk\": {\"N\": \"1\"}, \"sk\": {\"N\": \"1\"}}", false,
      INV "Type mismatch for key pk expected: S actual: N" },
    { "{\"pk\": {\"S\": \"a\"}, \"sk\": {\"SS\": [\"1\"]}}", false,
      INV "Type mismatch for key sk expected: N actual: SS" },
    { "{\"pk\": {\"S\": \"\"}, \"sk\": {\"N\": \"1\"}}", false,
      "One or more parameter values are not valid. The AttributeValue for a "
      "key attribute cannot contain an empty string value. Key: pk" },
    { "{\"pk\": {\"S\": \"\"}, \"sk\": {\"N\": \"1\"}}", true,
      "One or more parameter values are not valid. The AttributeValue for a "
      "key attribute cannot contain an empty string value. Key: pk" },
    { "{\"sk\": {\"N\": \"1\"}}", true,
      "The provided key element does not match the schema" },
    { "{\"pk\": {\"S\": \"a\"}}", true,
      "The provided key element does not match the schema" },
    { "{\"pk\": {\"N\": \"1\"}, \"sk\": {\"N\": \"1\"}}", true,
      "The provided key element does not match the schema" },
    { "{\"pk\": {\"S\": \"a\"}, \"sk\": {\"N\": \"1\"}, \"x\": {\"S\": \"a\"}}",
      true, "The provided key element does not match the schema" },
    { "{\"pk\": {\"S\": \"a\"}, \"x\": {\"N\": \"1\"}}", true,
      "The provided key element does not match the schema" },
    { "{}", true, "The provided key element does not match the schema" },
};

START_TEST(test_item_key_errors)
{
    struct key_schema ks;
    struct ddb_err err;
    struct item_key *k = calloc(1, sizeof(*k));
    json_t *item = js(key_err_cases[_i].item);

    schema(desc_hash_range, &ks);
    ddb_err_init(&err);
    ck_assert_int_eq(item_key_build(&ks, item, key_err_cases[_i].is_key_map,
                                    k, &err), -1);
    ck_assert_int_eq(err.type, DDB_VALIDATION);
    ck_assert_str_eq(err.msg, key_err_cases[_i].msg);
    json_decref(item);
    free(k);
}
END_TEST

START_TEST(test_item_key_binary_empty)
{
    struct key_schema ks;
    struct ddb_err err;
    struct item_key *k = calloc(1, sizeof(*k));
    json_t *item;

    schema("{\"KeySchema\": [{\"AttributeName\": \"id\", \"KeyType\": "
           "\"HASH\"}], \"AttributeDefinitions\": [{\"AttributeName\": "
           "\"id\", \"AttributeType\": \"B\"}]}", &ks);
    ddb_err_init(&err);
    item = js("{\"id\": {\"B\": \"\"}}");
    ck_assert_int_eq(item_key_build(&ks, item, false, k, &err), -1);
    ck_assert_str_eq(err.msg, "One or more parameter values are not valid. "
                     "The AttributeValue for a key attribute cannot contain "
                     "an empty binary value. Key: id");
    ck_assert_int_eq(item_key_build(&ks, item, true, k, &err), -1);
    ck_assert_str_eq(err.msg, "One or more parameter values are not valid. "
                     "The AttributeValue for a key attribute cannot contain "
                     "an empty binary value. Key: id");
    json_decref(item);
    item = js("{\"id\": {\"B\": \"AAEC\"}, \"other\": {\"S\": \"x\"}}");
    ck_assert_int_eq(item_key_build(&ks, item, false, k, &err), 0);
    ck_assert_uint_eq(k->pk_len, 3);
    ck_assert_int_eq(k->pk[2], 2);
    ck_assert_uint_eq(k->sk_len, 0);
    json_decref(item);
    free(k);
}
END_TEST

/* Key values of n bytes: S of n 'x', or B of n bytes (base64). */
static json_t *
key_item(char type, size_t hash_len, size_t range_len)
{
    char *h = malloc(hash_len + 1), *r = malloc(range_len + 1);
    json_t *item;

    memset(h, 'x', hash_len);
    h[hash_len] = '\0';
    memset(r, 'y', range_len);
    r[range_len] = '\0';
    item = json_pack("{s:{s:s}, s:{s:s}}", "pk", type == 'S' ? "S" : "B", h,
                     "sk", "S", r);
    free(h);
    free(r);
    return item;
}

START_TEST(test_item_key_sizes)
{
    struct key_schema ks;
    struct ddb_err err;
    struct item_key *k = calloc(1, sizeof(*k));
    json_t *item;
    char *b64;

    schema("{\"KeySchema\": [{\"AttributeName\": \"pk\", \"KeyType\": "
           "\"HASH\"}, {\"AttributeName\": \"sk\", \"KeyType\": \"RANGE\"}],"
           "\"AttributeDefinitions\": [{\"AttributeName\": \"pk\", "
           "\"AttributeType\": \"S\"}, {\"AttributeName\": \"sk\", "
           "\"AttributeType\": \"S\"}]}", &ks);
    ddb_err_init(&err);
    item = key_item('S', 2048, 1024);
    ck_assert_int_eq(item_key_build(&ks, item, false, k, &err), 0);
    ck_assert_uint_eq(k->pk_len, 2048);
    ck_assert_uint_eq(k->sk_len, 1024);
    json_decref(item);
    item = key_item('S', 2049, 1);
    ck_assert_int_eq(item_key_build(&ks, item, false, k, &err), -1);
    ck_assert_str_eq(err.msg, INV "Size of hashkey has exceeded the maximum "
                     "size limit of2048 bytes");
    json_decref(item);
    item = key_item('S', 1, 1025);
    ck_assert_int_eq(item_key_build(&ks, item, true, k, &err), -1);
    ck_assert_str_eq(err.msg, INV "Aggregated size of all range keys has "
                     "exceeded the size limit of 1024 bytes");
    json_decref(item);

    /* Binary: the decoded size counts. 2049 bytes = 2732 base64 chars. */
    schema("{\"KeySchema\": [{\"AttributeName\": \"pk\", \"KeyType\": "
           "\"HASH\"}], \"AttributeDefinitions\": [{\"AttributeName\": "
           "\"pk\", \"AttributeType\": \"B\"}]}", &ks);
    b64 = malloc(2733 + 4);
    memset(b64, 'A', 2732);
    strcpy(b64 + 2730, "==");           /* 683 * 3 - 2 = 2047 bytes */
    item = json_pack("{s:{s:s}}", "pk", "B", b64);
    ck_assert_int_eq(item_key_build(&ks, item, false, k, &err), 0);
    ck_assert_uint_eq(k->pk_len, 2047);
    json_decref(item);
    memset(b64, 'A', 2736);
    b64[2736] = '\0';                   /* 684 * 3 = 2052 bytes */
    item = json_pack("{s:{s:s}}", "pk", "B", b64);
    ck_assert_int_eq(item_key_build(&ks, item, false, k, &err), -1);
    ck_assert_str_eq(err.msg, INV "Size of hashkey has exceeded the maximum "
                     "size limit of2048 bytes");
    json_decref(item);
    free(b64);
    free(k);
}
END_TEST

START_TEST(test_item_key_build)
{
    struct key_schema ks;
    struct ddb_err err;
    struct item_key *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
    json_t *item, *key, *map;

    schema(desc_hash_range, &ks);
    ddb_err_init(&err);
    item = js("{\"pk\": {\"S\": \"user\"}, \"sk\": {\"N\": \"1.50\"}, "
              "\"v\": {\"S\": \"x\"}}");
    ck_assert_int_eq(item_validate(item, &err), 0);
    ck_assert_int_eq(item_key_build(&ks, item, false, a, &err), 0);
    ck_assert_uint_eq(a->pk_len, 4);
    ck_assert_int_eq(memcmp(a->pk, "user", 4), 0);
    ck_assert_uint_gt(a->sk_len, 0);

    /* The Key map of the item builds the same key. */
    map = item_key_map(&ks, item);
    ck_assert_uint_eq(json_object_size(map), 2);
    ck_assert_ptr_null(json_object_get(map, "v"));
    ck_assert_int_eq(item_key_build(&ks, map, true, b, &err), 0);
    ck_assert_int_eq(memcmp(a->hash, b->hash, 16), 0);
    ck_assert_uint_eq(a->sk_len, b->sk_len);
    ck_assert_int_eq(memcmp(a->sk, b->sk, a->sk_len), 0);
    json_decref(map);

    /* A Key written differently but equal ("15e-1") is the same key. */
    key = js("{\"pk\": {\"S\": \"user\"}, \"sk\": {\"N\": \"15e-1\"}}");
    ck_assert_int_eq(item_validate(key, &err), 0);
    ck_assert_int_eq(item_key_build(&ks, key, true, b, &err), 0);
    ck_assert_int_eq(memcmp(a->sk, b->sk, a->sk_len), 0);
    json_decref(key);

    /* A larger sort key encodes larger; another pk hashes elsewhere. */
    key = js("{\"pk\": {\"S\": \"usr\"}, \"sk\": {\"N\": \"2\"}}");
    ck_assert_int_eq(item_key_build(&ks, key, true, b, &err), 0);
    ck_assert_int_ne(memcmp(a->hash, b->hash, 16), 0);
    ck_assert_int_lt(memcmp(a->sk, b->sk, a->sk_len < b->sk_len ? a->sk_len
                                                                : b->sk_len), 0);
    json_decref(key);
    json_decref(item);
    free(a);
    free(b);
}
END_TEST

static Suite *
item_suite(void)
{
    Suite *s = suite_create("item");
    TCase *tc;

    tc = tcase_create("validate");
    tcase_add_loop_test(tc, test_item_validate_ok, 0,
                        sizeof(ok_cases) / sizeof(ok_cases[0]));
    tcase_add_test(tc, test_item_validate_nesting);
    tcase_add_test(tc, test_item_validate_item);
    suite_add_tcase(s, tc);

    tc = tcase_create("errors");
    tcase_add_loop_test(tc, test_item_validate_errors, 0,
                        sizeof(err_cases) / sizeof(err_cases[0]));
    suite_add_tcase(s, tc);

    tc = tcase_create("size");
    tcase_add_loop_test(tc, test_item_size, 0,
                        sizeof(size_cases) / sizeof(size_cases[0]));
    tcase_add_test(tc, test_item_size_limit);
    suite_add_tcase(s, tc);

    tc = tcase_create("compare");
    tcase_add_loop_test(tc, test_item_equal, 0,
                        sizeof(eq_cases) / sizeof(eq_cases[0]));
    tcase_add_loop_test(tc, test_item_compare, 0,
                        sizeof(cmp_cases) / sizeof(cmp_cases[0]));
    tcase_add_test(tc, test_item_equal_large_sets);
    tcase_add_test(tc, test_item_type);
    suite_add_tcase(s, tc);

    tc = tcase_create("keys");
    tcase_add_test(tc, test_item_key_schema);
    tcase_add_test(tc, test_item_key_schema_cached);
    tcase_add_loop_test(tc, test_item_key_errors, 0,
                        sizeof(key_err_cases) / sizeof(key_err_cases[0]));
    tcase_add_test(tc, test_item_key_binary_empty);
    tcase_add_test(tc, test_item_key_sizes);
    tcase_add_test(tc, test_item_key_build);
    suite_add_tcase(s, tc);
    return s;
}

int
main(void)
{
    SRunner *sr = srunner_create(item_suite());
    int failed;

    srunner_run_all(sr, CK_ENV);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
