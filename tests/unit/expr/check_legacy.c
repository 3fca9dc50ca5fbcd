/* SPDX-License-Identifier: MIT */
/* check_legacy.c - api/expr/legacy*.c: the expression/legacy mix checks, the
 * legacy parameters' DynamoDB messages, their translation into expression
 * text, and that the text parses (expr_parse) and evaluates with the
 * legacy semantics (expr_eval). */

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/expr/expr.h"
#include "api/expr/legacy.h"

/* Test JSON is written with ' for ", which no case needs literally. */
static json_t *
js(const char *text)
{
    json_error_t jerr;
    char *s = strdup(text), *p;
    json_t *v;

    ck_assert_ptr_nonnull(s);
    for (p = s; *p; p++)
        if (*p == '\'')
            *p = '"';
    v = json_loads(s, JSON_DECODE_ANY, &jerr);
    ck_assert_msg(v != NULL, "bad test json: %s (%s)", text, jerr.text);
    free(s);
    return v;
}

static void
assert_json(const json_t *got, const char *want_text, const char *what)
{
    json_t *want;

    if (strcmp(want_text, "{}") == 0 && got == NULL)
        return;                     /* legacy_expr leaves empty maps NULL */
    ck_assert_msg(got != NULL, "%s: NULL, want %s", what, want_text);
    want = js(want_text);
    char *g = json_dumps(got, JSON_SORT_KEYS | JSON_ENCODE_ANY);

    ck_assert_msg(json_equal(got, want), "%s: got %s, want %s", what,
                  g != NULL ? g : "(null)", want_text);
    free(g);
    json_decref(want);
}

/* ------------------------------------------------------------------------
 * legacy_check_mix
 * ---------------------------------------------------------------------- */

static const struct {
    const char *req;
    const char *op;                 /* NULL: guessed from the request */
    const char *msg;                /* NULL: accepted */
} mix_cases[] = {
    /* Accepted. */
    { "{'TableName': 'abc', 'Key': {}, 'AttributesToGet': ['a']}", NULL,
      NULL },
    { "{'TableName': 'abc', 'Key': {}, 'ProjectionExpression': 'a',"
      " 'ExpressionAttributeNames': {'#a': 'a'}}", NULL, NULL },
    /* KeyConditions mix only with KeyConditionExpression. */
    { "{'TableName': 'abc', 'KeyConditions': {}, 'FilterExpression': 'a',"
      " 'ProjectionExpression': 'b'}", NULL, NULL },
    { "{'TableName': 'abc', 'Expected': null, 'ConditionExpression': 'x'}",
      NULL, NULL },
    { "{'TableName': 'abc', 'ScanFilter': {'a': {}, 'b': {}},"
      " 'ConditionalOperator': 'OR'}", NULL, NULL },
    /* A member the operation does not have is not looked at. */
    { "{'TableName': 'abc', 'Key': {}, 'ConditionalOperator': 'OR'}",
      "GetItem", NULL },
    { "{'TableName': 'abc', 'Key': {}, 'UpdateExpression': 'SET a = b',"
      " 'AttributesToGet': ['a']}", "DeleteItem", NULL },

    /* The mix, with DynamoDB's member order on each side. */
    { "{'TableName': 'abc', 'Key': {}, 'AttributesToGet': ['a'],"
      " 'ProjectionExpression': 'a'}", NULL,
      "Can not use both expression and non-expression parameters in the "
      "same request: Non-expression parameters: {AttributesToGet} "
      "Expression parameters: {ProjectionExpression}" },
    { "{'TableName': 'abc', 'ScanFilter': {}, 'AttributesToGet': ['a'],"
      " 'ConditionalOperator': 'OR', 'FilterExpression': '',"
      " 'ProjectionExpression': '', 'ExpressionAttributeNames': {},"
      " 'ExpressionAttributeValues': {}}", NULL,
      "Can not use both expression and non-expression parameters in the "
      "same request: Non-expression parameters: {AttributesToGet, "
      "ScanFilter, ConditionalOperator} Expression parameters: "
      "{ProjectionExpression, FilterExpression}" },
    { "{'TableName': 'abc', 'AttributesToGet': ['a'], 'QueryFilter': {},"
      " 'ConditionalOperator': 'OR', 'KeyConditions': {},"
      " 'ProjectionExpression': '', 'FilterExpression': '',"
      " 'KeyConditionExpression': ''}", NULL,
      "Can not use both expression and non-expression parameters in the "
      "same request: Non-expression parameters: {AttributesToGet, "
      "QueryFilter, ConditionalOperator, KeyConditions} Expression "
      "parameters: {ProjectionExpression, FilterExpression, "
      "KeyConditionExpression}" },
    { "{'TableName': 'abc', 'Key': {}, 'AttributeUpdates': {},"
      " 'Expected': {}, 'ConditionalOperator': 'AND',"
      " 'UpdateExpression': 'SET a = :v', 'ConditionExpression': 'x'}",
      NULL,
      "Can not use both expression and non-expression parameters in the "
      "same request: Non-expression parameters: {AttributeUpdates, "
      "Expected, ConditionalOperator} Expression parameters: "
      "{UpdateExpression, ConditionExpression}" },
    { "{'TableName': 'abc', 'Item': {}, 'ConditionalOperator': 'AND',"
      " 'ConditionExpression': 'attribute_exists(pk)'}", NULL,
      "Can not use both expression and non-expression parameters in the "
      "same request: Non-expression parameters: {ConditionalOperator} "
      "Expression parameters: {ConditionExpression}" },
    { "{'TableName': 'abc', 'ConditionalOperator': 'AND',"
      " 'KeyConditionExpression': 'pk = :p'}", "Query",
      "Can not use both expression and non-expression parameters in the "
      "same request: Non-expression parameters: {ConditionalOperator} "
      "Expression parameters: {KeyConditionExpression}" },
    /* A member the operation does not have is ignored. */
    { "{'TableName': 'abc', 'Item': {}, 'AttributesToGet': ['a'],"
      " 'ConditionExpression': 'x'}", "PutItem", NULL },

    /* Names and values without expressions. */
    { "{'TableName': 'abc', 'Key': {}, 'ExpressionAttributeNames': {}}",
      NULL, "ExpressionAttributeNames can only be specified when using "
      "expressions" },
    { "{'TableName': 'abc', 'Key': {}, 'Expected': {},"
      " 'ExpressionAttributeValues': {}}", NULL,
      "ExpressionAttributeValues can only be specified when using "
      "expressions: ConditionExpression is null" },
    { "{'TableName': 'abc', 'Key': {'a': {}}, 'Expected': {'a': {}},"
      " 'ExpressionAttributeValues': {}}", "UpdateItem",
      "ExpressionAttributeValues can only be specified when using "
      "expressions: UpdateExpression and ConditionExpression are null" },
    { "{'TableName': 'abc', 'Key': {}, 'ReturnValues': 'UPDATED_NEW',"
      " 'ExpressionAttributeValues': {}}", NULL,
      "ExpressionAttributeValues can only be specified when using "
      "expressions: UpdateExpression and ConditionExpression are null" },
    { "{'TableName': 'abc', 'Key': {}, 'AttributeUpdates': {},"
      " 'ExpressionAttributeValues': {}}", NULL,
      "ExpressionAttributeValues can only be specified when using "
      "expressions: UpdateExpression and ConditionExpression are null" },
    { "{'TableName': 'abc', 'Item': {}, 'ExpressionAttributeValues': {}}",
      NULL, "ExpressionAttributeValues can only be specified when using "
      "expressions: ConditionExpression is null" },
    { "{'TableName': 'abc', 'KeyConditions': {},"
      " 'ExpressionAttributeValues': {}, 'ProjectionExpression': 'a'}", NULL,
      "ExpressionAttributeValues can only be specified when using "
      "expressions: FilterExpression and KeyConditionExpression are null" },
    { "{'TableName': 'abc', 'Segment': 1, 'ExpressionAttributeValues': {}}",
      NULL, "ExpressionAttributeValues can only be specified when using "
      "expressions: FilterExpression is null" },
    { "{'TableName': 'abc', 'ExpressionAttributeValues': {}}", "Scan",
      "ExpressionAttributeValues can only be specified when using "
      "expressions: FilterExpression is null" },

    /* ConditionalOperator needs two or more conditions. */
    { "{'TableName': 'abc', 'ConditionalOperator': 'AND'}", "Scan",
      "ConditionalOperator cannot be used without Filter or Expected" },
    { "{'TableName': 'abc', 'ConditionalOperator': 'OR', 'ScanFilter': {}}",
      NULL, "ConditionalOperator cannot be used without Filter or "
      "Expected" },
    { "{'TableName': 'abc', 'ConditionalOperator': 'AND',"
      " 'KeyConditions': {'pk': {}}}", NULL,
      "ConditionalOperator cannot be used without Filter or Expected" },
    { "{'TableName': 'abc', 'ConditionalOperator': 'AND',"
      " 'KeyConditions': {'pk': {}}, 'QueryFilter': {'a': {}}}", NULL,
      "ConditionalOperator can only be used when Filter or Expected has "
      "two or more elements" },
    { "{'TableName': 'abc', 'Item': {}, 'ConditionalOperator': 'AND',"
      " 'Expected': {'a': {}}}", NULL,
      "ConditionalOperator can only be used when Filter or Expected has "
      "two or more elements" },
    { "{'TableName': 'abc', 'Key': {}, 'ConditionalOperator': 'AND',"
      " 'AttributeUpdates': {'a': {}}}", NULL,
      "ConditionalOperator cannot be used without Filter or Expected" },
};

START_TEST(test_legacy_mix)
{
    json_t *req = js(mix_cases[_i].req);
    struct ddb_err err;
    int rc;

    ddb_err_init(&err);
    rc = mix_cases[_i].op != NULL ?
         legacy_check_mix_op(req, mix_cases[_i].op, &err) :
         legacy_check_mix(req, &err);
    if (mix_cases[_i].msg == NULL) {
        ck_assert_msg(rc == 0, "%s: %s", mix_cases[_i].req, err.msg);
    } else {
        ck_assert_msg(rc == -1, "%s: accepted", mix_cases[_i].req);
        ck_assert_int_eq(err.type, DDB_VALIDATION);
        ck_assert_str_eq(err.msg, mix_cases[_i].msg);
    }
    json_decref(req);
}
END_TEST

/* ------------------------------------------------------------------------
 * Translations
 * ---------------------------------------------------------------------- */

enum which { W_EXPECTED, W_QUERY_FILTER, W_SCAN_FILTER, W_KEYCOND,
             W_ATG, W_UPDATES };

static int
translate(enum which w, const json_t *in, const json_t *cop,
          struct legacy_expr *out, struct ddb_err *err)
{
    switch (w) {
    case W_EXPECTED:     return legacy_expected(in, cop, out, err);
    case W_QUERY_FILTER: return legacy_filter(in, cop, "QueryFilter", out,
                                              err);
    case W_SCAN_FILTER:  return legacy_filter(in, cop, "ScanFilter", out,
                                              err);
    case W_KEYCOND:      return legacy_key_conditions(in, out, err);
    case W_ATG:          return legacy_attributes_to_get(in, out, err);
    case W_UPDATES:      return legacy_attribute_updates(in, out, err);
    }
    return -1;
}

static enum expr_kind
kind_of(enum which w)
{
    switch (w) {
    case W_EXPECTED:     return EXPR_CONDITION;
    case W_QUERY_FILTER:
    case W_SCAN_FILTER:  return EXPR_FILTER;
    case W_KEYCOND:      return EXPR_KEY_CONDITION;
    case W_ATG:          return EXPR_PROJECTION;
    case W_UPDATES:      return EXPR_UPDATE;
    }
    return EXPR_CONDITION;
}

static const struct {
    enum which w;
    const char *in, *cop;
    const char *text, *names, *values;
} tr_cases[] = {
    /* Expected: Value / Exists */
    { W_EXPECTED, "{'a': {'Value': {'S': 'x'}}}", NULL,
      "#l0 = :l0", "{'#l0': 'a'}", "{':l0': {'S': 'x'}}" },
    { W_EXPECTED, "{'a': {'Value': {'N': '1.50'}, 'Exists': true}}", NULL,
      "#l0 = :l0", "{'#l0': 'a'}", "{':l0': {'N': '1.5'}}" },
    { W_EXPECTED, "{'a.b': {'Exists': false}}", NULL,
      "attribute_not_exists(#l0)", "{'#l0': 'a.b'}", "{}" },
    { W_EXPECTED, "{}", NULL, "", "{}", "{}" },
    { W_EXPECTED, "{'a': {'Exists': 'no'}}", NULL,
      "attribute_not_exists(#l0)", "{'#l0': 'a'}", "{}" },
    { W_EXPECTED, "{'a': {'Exists': false}, 'b': {'Value': {'S': 'y'}}}",
      "OR", "(attribute_not_exists(#l0)) OR (#l1 = :l0)",
      "{'#l0': 'a', '#l1': 'b'}", "{':l0': {'S': 'y'}}" },
    /* Expected: every operator */
    { W_EXPECTED, "{'a': {'ComparisonOperator': 'EQ', 'Value': {'L': []}}}",
      NULL, "#l0 = :l0", "{'#l0': 'a'}", "{':l0': {'L': []}}" },
    { W_EXPECTED, "{'a': {'ComparisonOperator': 'NE',"
      " 'AttributeValueList': [{'SS': ['x']}]}}", NULL,
      "#l0 <> :l0", "{'#l0': 'a'}", "{':l0': {'SS': ['x']}}" },
    { W_EXPECTED, "{'a': {'ComparisonOperator': 'LE',"
      " 'AttributeValueList': [{'N': '1'}]}}", NULL,
      "#l0 <= :l0", "{'#l0': 'a'}", "{':l0': {'N': '1'}}" },
    { W_EXPECTED, "{'a': {'ComparisonOperator': 'LT', 'Value': {'S': 'm'}}}",
      NULL, "#l0 < :l0", "{'#l0': 'a'}", "{':l0': {'S': 'm'}}" },
    { W_EXPECTED, "{'a': {'ComparisonOperator': 'GE',"
      " 'AttributeValueList': [{'B': 'YQ=='}]}}", NULL,
      "#l0 >= :l0", "{'#l0': 'a'}", "{':l0': {'B': 'YQ=='}}" },
    { W_EXPECTED, "{'a': {'ComparisonOperator': 'GT',"
      " 'AttributeValueList': [{'N': '2'}]}}", NULL,
      "#l0 > :l0", "{'#l0': 'a'}", "{':l0': {'N': '2'}}" },
    { W_EXPECTED, "{'a': {'ComparisonOperator': 'NOT_NULL'}}", NULL,
      "attribute_exists(#l0)", "{'#l0': 'a'}", "{}" },
    { W_EXPECTED, "{'a': {'ComparisonOperator': 'NULL',"
      " 'AttributeValueList': []}}", NULL,
      "attribute_not_exists(#l0)", "{'#l0': 'a'}", "{}" },
    { W_EXPECTED, "{'a': {'ComparisonOperator': 'CONTAINS',"
      " 'AttributeValueList': [{'BOOL': true}]}}", NULL,
      "contains(#l0, :l0)", "{'#l0': 'a'}", "{':l0': {'BOOL': true}}" },
    { W_EXPECTED, "{'a': {'ComparisonOperator': 'NOT_CONTAINS',"
      " 'AttributeValueList': [{'S': 'x'}]}}", NULL,
      "attribute_exists(#l0) AND NOT contains(#l0, :l0)", "{'#l0': 'a'}",
      "{':l0': {'S': 'x'}}" },
    { W_EXPECTED, "{'a': {'ComparisonOperator': 'BEGINS_WITH',"
      " 'AttributeValueList': [{'S': 'x'}]}}", NULL,
      "begins_with(#l0, :l0)", "{'#l0': 'a'}", "{':l0': {'S': 'x'}}" },
    { W_EXPECTED, "{'a': {'ComparisonOperator': 'IN',"
      " 'AttributeValueList': [{'N': '1'}, {'N': '2'}, {'N': '3'}]}}", NULL,
      "#l0 IN (:l0, :l1, :l2)", "{'#l0': 'a'}",
      "{':l0': {'N': '1'}, ':l1': {'N': '2'}, ':l2': {'N': '3'}}" },
    { W_EXPECTED, "{'a': {'ComparisonOperator': 'BETWEEN',"
      " 'AttributeValueList': [{'N': '1'}, {'N': '10'}]}}", NULL,
      "#l0 BETWEEN :l0 AND :l1", "{'#l0': 'a'}",
      "{':l0': {'N': '1'}, ':l1': {'N': '10'}}" },
    { W_EXPECTED, "{'a': {'ComparisonOperator': 'BETWEEN',"
      " 'AttributeValueList': [{'N': '1'}, {'N': '10'}]},"
      " 'b': {'ComparisonOperator': 'NOT_CONTAINS', 'Value': {'N': '5'}}}",
      "AND",
      "(#l0 BETWEEN :l0 AND :l1) AND "
      "(attribute_exists(#l1) AND NOT contains(#l1, :l2))",
      "{'#l0': 'a', '#l1': 'b'}",
      "{':l0': {'N': '1'}, ':l1': {'N': '10'}, ':l2': {'N': '5'}}" },

    /* Filters */
    { W_SCAN_FILTER, "{'a': {'ComparisonOperator': 'EQ',"
      " 'AttributeValueList': [{'S': 'x'}]}, 'b': {'ComparisonOperator':"
      " 'NULL'}}", "OR", "(#l0 = :l0) OR (attribute_not_exists(#l1))",
      "{'#l0': 'a', '#l1': 'b'}", "{':l0': {'S': 'x'}}" },
    { W_QUERY_FILTER, "{'x y': {'ComparisonOperator': 'NE',"
      " 'AttributeValueList': [{'NULL': true}]}}", NULL, "#l0 <> :l0",
      "{'#l0': 'x y'}", "{':l0': {'NULL': true}}" },
    { W_SCAN_FILTER, "{}", NULL, "", "{}", "{}" },

    /* KeyConditions */
    { W_KEYCOND, "{'pk': {'ComparisonOperator': 'EQ',"
      " 'AttributeValueList': [{'S': 'h'}]}}", NULL, "#l0 = :l0",
      "{'#l0': 'pk'}", "{':l0': {'S': 'h'}}" },
    { W_KEYCOND, "{'pk': {'ComparisonOperator': 'EQ',"
      " 'AttributeValueList': [{'S': 'h'}]}, 'sk': {'ComparisonOperator':"
      " 'BETWEEN', 'AttributeValueList': [{'N': '1'}, {'N': '2'}]}}", NULL,
      "(#l0 = :l0) AND (#l1 BETWEEN :l1 AND :l2)",
      "{'#l0': 'pk', '#l1': 'sk'}",
      "{':l0': {'S': 'h'}, ':l1': {'N': '1'}, ':l2': {'N': '2'}}" },
    { W_KEYCOND, "{'pk': {'ComparisonOperator': 'EQ',"
      " 'AttributeValueList': [{'S': 'h'}]}, 'sk': {'ComparisonOperator':"
      " 'BEGINS_WITH', 'AttributeValueList': [{'S': 'p'}]}}", NULL,
      "(#l0 = :l0) AND (begins_with(#l1, :l1))",
      "{'#l0': 'pk', '#l1': 'sk'}",
      "{':l0': {'S': 'h'}, ':l1': {'S': 'p'}}" },

    /* Operators the schema check rejects later still translate (and
     * parse), so ops/query.c can report "not an indexable operation". */
    { W_KEYCOND, "{'pk': {'ComparisonOperator': 'NE',"
      " 'AttributeValueList': [{'S': 'h'}]}}", NULL, "#l0 <> :l0",
      "{'#l0': 'pk'}", "{':l0': {'S': 'h'}}" },
    { W_KEYCOND, "{'pk': {'ComparisonOperator': 'IN',"
      " 'AttributeValueList': [{'S': 'h'}]}, 'sk': {'ComparisonOperator':"
      " 'NOT_CONTAINS', 'AttributeValueList': [{'S': 'p'}]}}", NULL,
      "(#l0 IN (:l0)) AND "
      "(attribute_exists(#l1) AND NOT contains(#l1, :l1))",
      "{'#l0': 'pk', '#l1': 'sk'}",
      "{':l0': {'S': 'h'}, ':l1': {'S': 'p'}}" },
    { W_KEYCOND, "{'pk': {'ComparisonOperator': 'NULL'}, 'sk':"
      " {'ComparisonOperator': 'CONTAINS', 'AttributeValueList':"
      " [{'S': 'p'}]}}", NULL,
      "(attribute_not_exists(#l0)) AND (contains(#l1, :l0))",
      "{'#l0': 'pk', '#l1': 'sk'}", "{':l0': {'S': 'p'}}" },

    /* AttributesToGet */
    { W_ATG, "['a', 'b.c', 'd[0]']", NULL, "#l0, #l1, #l2",
      "{'#l0': 'a', '#l1': 'b.c', '#l2': 'd[0]'}", "{}" },

    /* AttributeUpdates */
    { W_UPDATES, "{'a': {'Value': {'S': 'x'}}}", NULL, "SET #l0 = :l0",
      "{'#l0': 'a'}", "{':l0': {'S': 'x'}}" },
    { W_UPDATES, "{'a': {'Action': 'PUT', 'Value': {'M': {}}},"
      " 'b': {'Action': 'DELETE'}, 'c': {'Action': 'ADD',"
      " 'Value': {'N': '1'}}, 'd': {'Action': 'DELETE',"
      " 'Value': {'SS': ['x']}}, 'e': {'Action': 'ADD',"
      " 'Value': {'NS': ['2']}}}", NULL,
      "SET #l0 = :l0 REMOVE #l1 ADD #l2 :l1, #l4 :l3 DELETE #l3 :l2",
      "{'#l0': 'a', '#l1': 'b', '#l2': 'c', '#l3': 'd', '#l4': 'e'}",
      "{':l0': {'M': {}}, ':l1': {'N': '1'}, ':l2': {'SS': ['x']},"
      " ':l3': {'NS': ['2']}}" },
    { W_UPDATES, "{'a': {'Action': 'ADD', 'Value': {'L': [{'S': 'x'}]}},"
      " 'b': {'Action': 'ADD', 'Value': {'L': []}}}", NULL,
      "SET #l0 = list_append(if_not_exists(#l0, :l1), :l0), "
      "#l1 = list_append(if_not_exists(#l1, :l1), :l2)",
      "{'#l0': 'a', '#l1': 'b'}",
      "{':l0': {'L': [{'S': 'x'}]}, ':l1': {'L': []}, ':l2': {'L': []}}" },
    { W_UPDATES, "{}", NULL, "", "{}", "{}" },
};

START_TEST(test_legacy_translate)
{
    json_t *in = js(tr_cases[_i].in);
    json_t *cop = tr_cases[_i].cop != NULL ?
                  json_string(tr_cases[_i].cop) : NULL;
    struct legacy_expr le;
    struct ddb_err err;

    ddb_err_init(&err);
    ck_assert_msg(translate(tr_cases[_i].w, in, cop, &le, &err) == 0,
                  "%s: %s", tr_cases[_i].in, err.msg);
    ck_assert_str_eq(le.text, tr_cases[_i].text);
    assert_json(le.names, tr_cases[_i].names, "names");
    assert_json(le.values, tr_cases[_i].values, "values");
    legacy_expr_fini(&le);
    legacy_expr_fini(&le);          /* safe twice */
    json_decref(cop);
    json_decref(in);
}
END_TEST

/* The generated text is valid expression text of its kind. */
START_TEST(test_legacy_translate_parses)
{
    json_t *in = js(tr_cases[_i].in);
    json_t *cop = tr_cases[_i].cop != NULL ?
                  json_string(tr_cases[_i].cop) : NULL;
    struct legacy_expr le;
    struct expr_env *env = NULL;
    struct expr *e;
    struct ddb_err err;

    ddb_err_init(&err);
    ck_assert_int_eq(translate(tr_cases[_i].w, in, cop, &le, &err), 0);
    if (le.text[0] != '\0') {
        ck_assert_msg(expr_env_new(le.names, le.values, &env, &err) == 0,
                      "%s: %s", le.text, err.msg);
        e = expr_parse(env, kind_of(tr_cases[_i].w), le.text, &err);
        ck_assert_msg(e != NULL, "%s: %s", le.text, err.msg);
        ck_assert_msg(expr_env_check_unused(env, &err) == 0, "%s: %s",
                      le.text, err.msg);
        expr_free(e);
        expr_env_free(env);
    }
    legacy_expr_fini(&le);
    json_decref(cop);
    json_decref(in);
}
END_TEST

/* ------------------------------------------------------------------------
 * Messages
 * ---------------------------------------------------------------------- */

#define INVALID "One or more parameter values were invalid: "

static const struct {
    enum which w;
    const char *in, *cop;
    const char *msg;
} err_cases[] = {
    /* Expected: the structural rules, in DynamoDB's order */
    { W_EXPECTED, "{'a': null}", NULL,
      INVALID "ExpectedAttributeValue must not be null for Attribute: a" },
    { W_EXPECTED, "{'a': {'Exists': true, 'ComparisonOperator': 'EQ',"
      " 'Value': {'S': 'x'}, 'AttributeValueList': []}}", NULL,
      INVALID "Exists and ComparisonOperator cannot be used together for "
      "Attribute: a" },
    { W_EXPECTED, "{'a': {'ComparisonOperator': 'EQ', 'Value': {'S': 'x'},"
      " 'AttributeValueList': [{'S': 'x'}]}}", NULL,
      INVALID "Value and AttributeValueList cannot be used together for "
      "Attribute: a" },
    { W_EXPECTED, "{'a': {'AttributeValueList': [{'S': 'x'}]}}", NULL,
      INVALID "AttributeValueList can only be used with a "
      "ComparisonOperator for Attribute: a" },
    { W_EXPECTED, "{'a': {'Exists': false, 'Value': {'S': 'x'}}}", NULL,
      INVALID "Value cannot be used when Exists is false for Attribute: a" },
    { W_EXPECTED, "{'a': {'ComparisonOperator': 'GT'}}", NULL,
      INVALID "Value or AttributeValueList must be used with "
      "ComparisonOperator: GT for Attribute: a" },
    { W_EXPECTED, "{'a': {}}", NULL,
      INVALID "Value must be provided when Exists is null for Attribute: a" },
    { W_EXPECTED, "{'a': {'Exists': true}}", NULL,
      INVALID "Value must be provided when Exists is true for Attribute: a" },
    /* Expected: values, then the operator's arguments */
    { W_EXPECTED, "{'a': {'Value': {}}}", NULL,
      "Supplied AttributeValue is empty, must contain exactly one of the "
      "supported datatypes" },
    { W_EXPECTED, "{'a': {'ComparisonOperator': 'EQ',"
      " 'AttributeValueList': [{'S': 'x', 'N': '1'}]}}", NULL,
      "Supplied AttributeValue has more than one datatypes set, must "
      "contain exactly one of the supported datatypes" },
    { W_EXPECTED, "{'a': {'ComparisonOperator': 'EQ',"
      " 'AttributeValueList': [{'S': 'x'}, {'S': 'y'}]}}", NULL,
      INVALID "Invalid number of argument(s) for the EQ ComparisonOperator" },
    { W_EXPECTED, "{'a': {'ComparisonOperator': 'NULL',"
      " 'AttributeValueList': [{'S': 'x'}]}}", NULL,
      INVALID "Invalid number of argument(s) for the NULL "
      "ComparisonOperator" },
    { W_EXPECTED, "{'a': {'ComparisonOperator': 'NOT_NULL',"
      " 'Value': {'S': 'x'}}}", NULL,
      INVALID "Invalid number of argument(s) for the NOT_NULL "
      "ComparisonOperator" },
    { W_EXPECTED, "{'a': {'ComparisonOperator': 'BETWEEN',"
      " 'Value': {'S': 'x'}}}", NULL,
      INVALID "Invalid number of argument(s) for the BETWEEN "
      "ComparisonOperator" },
    { W_EXPECTED, "{'a': {'ComparisonOperator': 'IN',"
      " 'AttributeValueList': []}}", NULL,
      INVALID "Invalid number of argument(s) for the IN ComparisonOperator" },
    { W_EXPECTED, "{'a': {'ComparisonOperator': 'IN'}}", NULL,
      INVALID "Value or AttributeValueList must be used with "
      "ComparisonOperator: IN for Attribute: a" },
    { W_EXPECTED, "{'a': {'ComparisonOperator': 'BEGINS_WITH',"
      " 'AttributeValueList': [{'N': '1'}]}}", NULL,
      INVALID "ComparisonOperator BEGINS_WITH is not valid for N "
      "AttributeValue type" },
    { W_EXPECTED, "{'a': {'ComparisonOperator': 'LT',"
      " 'AttributeValueList': [{'SS': ['x']}]}}", NULL,
      INVALID "ComparisonOperator LT is not valid for SS AttributeValue "
      "type" },
    { W_EXPECTED, "{'a': {'ComparisonOperator': 'CONTAINS',"
      " 'AttributeValueList': [{'L': []}]}}", NULL,
      INVALID "ComparisonOperator CONTAINS is not valid for L "
      "AttributeValue type" },
    { W_EXPECTED, "{'a': {'ComparisonOperator': 'IN',"
      " 'AttributeValueList': [{'S': 'x'}, {'N': '1'}]}}", NULL,
      INVALID "AttributeValues inside AttributeValueList must be of same "
      "type" },
    { W_EXPECTED, "{'a': {'ComparisonOperator': 'BETWEEN',"
      " 'AttributeValueList': [{'N': '10'}, {'N': '9'}]}}", NULL,
      "The BETWEEN condition was provided a range where the lower bound is "
      "greater than the upper bound" },
    { W_EXPECTED, "{'a': {'ComparisonOperator': 'XX', 'Value': {'S': 'x'}}}",
      NULL, "1 validation error detected: Value 'XX' at "
      "'expected.a.member.comparisonOperator' failed to satisfy constraint: "
      "Member must satisfy enum value set: [IN, NULL, BETWEEN, LT, "
      "NOT_CONTAINS, EQ, GT, NOT_NULL, NE, LE, BEGINS_WITH, GE, CONTAINS]" },
    /* ConditionalOperator */
    { W_EXPECTED, "{'a': {'Exists': false}}", "AND",
      "ConditionalOperator can only be used when Filter or Expected has "
      "two or more elements" },
    { W_EXPECTED, "{}", "OR",
      "ConditionalOperator cannot be used without Filter or Expected" },
    { W_SCAN_FILTER, "{'a': {'ComparisonOperator': 'NULL'},"
      " 'b': {'ComparisonOperator': 'NULL'}}", "XOR",
      "1 validation error detected: Value 'XOR' at 'conditionalOperator' "
      "failed to satisfy constraint: Member must satisfy enum value set: "
      "[OR, AND]" },

    /* Filters */
    { W_SCAN_FILTER, "{'a': {'ComparisonOperator': 'NOT_CONTAINS'}}", NULL,
      INVALID "Invalid number of argument(s) for the NOT_CONTAINS "
      "ComparisonOperator" },
    { W_SCAN_FILTER, "{'a': {'ComparisonOperator': 'CONTAINS',"
      " 'AttributeValueList': [{'NS': ['1']}]}}", NULL,
      INVALID "ComparisonOperator CONTAINS is not valid for NS "
      "AttributeValue type" },
    { W_QUERY_FILTER, "{'a': {'ComparisonOperator': 'EQ',"
      " 'AttributeValueList': [{}]}}", NULL,
      "Supplied AttributeValue is empty, must contain exactly one of the "
      "supported datatypes" },
    { W_QUERY_FILTER, "{'a': {'AttributeValueList': []}}", NULL,
      "1 validation error detected: Value null at "
      "'queryFilter.a.member.comparisonOperator' failed to satisfy "
      "constraint: Member must not be null" },
    { W_SCAN_FILTER, "{'a': null}", NULL,
      "The filter condition for an attribute cannot be null: a" },
    { W_QUERY_FILTER, "{'a': {'ComparisonOperator': 'EQ',"
      " 'AttributeValueList': [{'N': 'x'}]}}", NULL,
      "The parameter cannot be converted to a numeric value: x" },

    /* KeyConditions */
    { W_KEYCOND, "{}", NULL, "Conditions can be of length 1 or 2 only" },
    /* Up to 8 (a multi-attribute GSI key: api/ops/query.c checks the
     * number against the key queried); 9 fit no key. */
    { W_KEYCOND, "{'a': {'ComparisonOperator': 'NULL'}, 'b':"
      " {'ComparisonOperator': 'NULL'}, 'c': {'ComparisonOperator':"
      " 'NULL'}, 'd': {'ComparisonOperator': 'NULL'}, 'e':"
      " {'ComparisonOperator': 'NULL'}, 'f': {'ComparisonOperator':"
      " 'NULL'}, 'g': {'ComparisonOperator': 'NULL'}, 'h':"
      " {'ComparisonOperator': 'NULL'}, 'i': {'ComparisonOperator':"
      " 'NULL'}}", NULL, "Conditions can be of length 1 or 2 only" },
    { W_KEYCOND, "{'a': {'ComparisonOperator': 'EQ'}}", NULL,
      INVALID "Invalid number of argument(s) for the EQ ComparisonOperator" },
    { W_KEYCOND, "{'a': {'ComparisonOperator': 'BEGINS_WITH',"
      " 'AttributeValueList': [{'N': '1'}]}}", NULL,
      INVALID "ComparisonOperator BEGINS_WITH is not valid for N "
      "AttributeValue type" },

    /* AttributesToGet */
    { W_ATG, "['a', 'b', 'a']", NULL,
      INVALID "Duplicate value in attribute name: a" },
    { W_ATG, "[]", NULL, "1 validation error detected: Value '[]' at "
      "'attributesToGet' failed to satisfy constraint: Member must have "
      "length greater than or equal to 1" },

    /* AttributeUpdates */
    { W_UPDATES, "{'a': {'Action': 'PUT'}}", NULL,
      INVALID "Only DELETE action is allowed when no attribute value is "
      "specified" },
    { W_UPDATES, "{'a': {}}", NULL,
      INVALID "Only DELETE action is allowed when no attribute value is "
      "specified" },
    { W_UPDATES, "{'a': {'Action': 'ADD'}}", NULL,
      INVALID "Only DELETE action is allowed when no attribute value is "
      "specified" },
    { W_UPDATES, "{'a': {'Action': 'DELETE', 'Value': {'S': '1'}}}", NULL,
      INVALID "DELETE action with value is not supported for the type S" },
    { W_UPDATES, "{'a': {'Action': 'DELETE', 'Value': {'L': []}}}", NULL,
      INVALID "DELETE action with value is not supported for the type L" },
    { W_UPDATES, "{'a': {'Action': 'DELETE', 'Value': {'NULL': true}}}", NULL,
      INVALID "DELETE action with value is not supported for the type "
      "NULL" },
    { W_UPDATES, "{'a': {'Action': 'ADD', 'Value': {'S': '1'}}}", NULL,
      INVALID "ADD action is not supported for the type S" },
    { W_UPDATES, "{'a': {'Action': 'ADD', 'Value': {'M': {}}}}", NULL,
      INVALID "ADD action is not supported for the type M" },
    { W_UPDATES, "{'a': {'Action': 'ADD', 'Value': {'BOOL': true}}}", NULL,
      INVALID "ADD action is not supported for the type BOOL" },
    { W_UPDATES, "{'a': {'Action': 'ADD', 'Value': {'SS': []}}}", NULL,
      INVALID "An string set  may not be empty" },
    { W_UPDATES, "{'a': {'Action': 'XX', 'Value': {'S': '1'}}}", NULL,
      "1 validation error detected: Value 'XX' at "
      "'attributeUpdates.a.member.action' failed to satisfy constraint: "
      "Member must satisfy enum value set: [ADD, PUT, DELETE]" },
    { W_UPDATES, "{'a': null}", NULL,
      "Supplied AttributeValueUpdate is empty, must contain one of the "
      "supported actions: a is null" },
};

START_TEST(test_legacy_errors)
{
    json_t *in = js(err_cases[_i].in);
    json_t *cop = err_cases[_i].cop != NULL ?
                  json_string(err_cases[_i].cop) : NULL;
    struct legacy_expr le;
    struct ddb_err err;

    ddb_err_init(&err);
    ck_assert_msg(translate(err_cases[_i].w, in, cop, &le, &err) == -1,
                  "%s: accepted: %s", err_cases[_i].in,
                  le.text != NULL ? le.text : "");
    ck_assert_int_eq(err.type, DDB_VALIDATION);
    ck_assert_str_eq(err.msg, err_cases[_i].msg);
    ck_assert_ptr_null(le.text);
    ck_assert_ptr_null(le.names);
    ck_assert_ptr_null(le.values);
    legacy_expr_fini(&le);
    json_decref(cop);
    json_decref(in);
}
END_TEST

/* Wrong JSON types are SerializationExceptions, never a crash. */
static const struct {
    enum which w;
    const char *in;
} ser_cases[] = {
    { W_EXPECTED, "[]" }, { W_EXPECTED, "'x'" }, { W_EXPECTED, "{'a': 1}" },
    { W_EXPECTED, "{'a': {'Exists': 1, 'Value': {'S': 'x'}}}" },
    { W_EXPECTED, "{'a': {'Exists': 'maybe', 'Value': {'S': 'x'}}}" },
    { W_EXPECTED, "{'a': {'ComparisonOperator': 'EQ',"
      " 'AttributeValueList': {}}}" },
    { W_SCAN_FILTER, "5" }, { W_SCAN_FILTER, "{'a': []}" },
    { W_KEYCOND, "true" }, { W_ATG, "{}" }, { W_ATG, "[1]" },
    { W_UPDATES, "[]" }, { W_UPDATES, "{'a': {'Action': 1}}" },
    { W_UPDATES, "{'a': {'Value': []}}" },
};

START_TEST(test_legacy_serialization)
{
    json_t *in = js(ser_cases[_i].in);
    struct legacy_expr le;
    struct ddb_err err;

    ddb_err_init(&err);
    ck_assert_int_eq(translate(ser_cases[_i].w, in, NULL, &le, &err), -1);
    ck_assert_msg(err.type == DDB_SERIALIZATION, "%s: %s", ser_cases[_i].in,
                  err.msg);
    legacy_expr_fini(&le);
    json_decref(in);
}
END_TEST

/* Sizes: Expected and AttributeUpdates count names and values. */
START_TEST(test_legacy_size_limits)
{
    size_t len = 300 * 1024;
    char *big = malloc(len + 1);
    json_t *ex = json_object(), *up = json_object();
    struct legacy_expr le;
    struct ddb_err err;

    memset(big, 'x', len);
    big[len] = '\0';
    json_object_set_new(ex, "a", json_pack("{s:{s:s}}", "Value", "S", big));
    json_object_set_new(ex, "b", json_pack("{s:{s:s}}", "Value", "S", big));
    json_object_set_new(up, "a", json_pack("{s:{s:s}}", "Value", "S", big));
    json_object_set_new(up, "b", json_pack("{s:{s:s}}", "Value", "S", big));
    ddb_err_init(&err);
    ck_assert_int_eq(legacy_expected(ex, NULL, &le, &err), -1);
    ck_assert_str_eq(err.msg, "Item size has exceeded the maximum allowed "
                     "size");
    ck_assert_int_eq(legacy_attribute_updates(up, &le, &err), -1);
    ck_assert_str_eq(err.msg, "Item size to update has exceeded the "
                     "maximum allowed size");
    /* DELETE values do not count. */
    json_object_set_new(up, "a", json_pack("{s:s,s:{s:[s]}}", "Action",
                                           "DELETE", "Value", "SS", big));
    ck_assert_int_eq(legacy_attribute_updates(up, &le, &err), 0);
    legacy_expr_fini(&le);
    json_decref(ex);
    json_decref(up);
    free(big);
}
END_TEST

/* ------------------------------------------------------------------------
 * Semantics: the translation evaluated against items
 * ---------------------------------------------------------------------- */

static const struct {
    enum which w;
    const char *cond, *cop;
    const char *item;               /* "null": no item */
    bool want;
} eval_cases[] = {
    /* Exists/Value */
    { W_EXPECTED, "{'a': {'Exists': false}}", NULL, "null", true },
    { W_EXPECTED, "{'a': {'Exists': false}}", NULL, "{'a': {'S': 'x'}}",
      false },
    { W_EXPECTED, "{'a': {'Value': {'S': 'x'}}}", NULL, "{'a': {'S': 'x'}}",
      true },
    { W_EXPECTED, "{'a': {'Value': {'S': 'x'}}}", NULL, "{}", false },
    { W_EXPECTED, "{'a.b': {'Value': {'S': 'x'}}}", NULL,
      "{'a.b': {'S': 'x'}, 'a': {'M': {'b': {'S': 'y'}}}}", true },
    { W_EXPECTED, "{'a': {'Value': {'N': '1.0'}}}", NULL, "{'a': {'N': '1'}}",
      true },
    /* NE: true for a missing attribute and for another type */
    { W_SCAN_FILTER, "{'a': {'ComparisonOperator': 'NE',"
      " 'AttributeValueList': [{'S': 'x'}]}}", NULL, "{}", true },
    { W_SCAN_FILTER, "{'a': {'ComparisonOperator': 'NE',"
      " 'AttributeValueList': [{'S': '1'}]}}", NULL, "{'a': {'N': '1'}}",
      true },
    { W_SCAN_FILTER, "{'a': {'ComparisonOperator': 'NE',"
      " 'AttributeValueList': [{'S': 'x'}]}}", NULL, "{'a': {'S': 'x'}}",
      false },
    /* NOT_CONTAINS: false for a missing attribute, true for another type */
    { W_SCAN_FILTER, "{'a': {'ComparisonOperator': 'NOT_CONTAINS',"
      " 'AttributeValueList': [{'S': 'bde'}]}}", NULL, "{}", false },
    { W_SCAN_FILTER, "{'a': {'ComparisonOperator': 'NOT_CONTAINS',"
      " 'AttributeValueList': [{'S': 'bde'}]}}", NULL,
      "{'a': {'B': 'YWJkZWY='}}", true },
    { W_SCAN_FILTER, "{'a': {'ComparisonOperator': 'NOT_CONTAINS',"
      " 'AttributeValueList': [{'S': 'bde'}]}}", NULL,
      "{'a': {'SS': ['abd', 'bde']}}", false },
    { W_SCAN_FILTER, "{'a': {'ComparisonOperator': 'NOT_CONTAINS',"
      " 'AttributeValueList': [{'S': 'bde'}]}}", NULL,
      "{'a': {'S': 'abd'}}", true },
    /* CONTAINS */
    { W_SCAN_FILTER, "{'a': {'ComparisonOperator': 'CONTAINS',"
      " 'AttributeValueList': [{'N': '2'}]}}", NULL,
      "{'a': {'NS': ['1', '2']}}", true },
    { W_SCAN_FILTER, "{'a': {'ComparisonOperator': 'CONTAINS',"
      " 'AttributeValueList': [{'S': 'b'}]}}", NULL,
      "{'a': {'L': [{'S': 'b'}]}}", true },
    { W_SCAN_FILTER, "{'a': {'ComparisonOperator': 'CONTAINS',"
      " 'AttributeValueList': [{'S': 'b'}]}}", NULL, "{}", false },
    /* NULL / NOT_NULL */
    { W_SCAN_FILTER, "{'a': {'ComparisonOperator': 'NULL'}}", NULL,
      "{'a': {'NULL': true}}", false },
    { W_SCAN_FILTER, "{'a': {'ComparisonOperator': 'NOT_NULL'}}", NULL,
      "{'a': {'NULL': true}}", true },
    /* Ordering, IN, BETWEEN, BEGINS_WITH: false across types */
    { W_SCAN_FILTER, "{'a': {'ComparisonOperator': 'LT',"
      " 'AttributeValueList': [{'N': '10'}]}}", NULL, "{'a': {'N': '9'}}",
      true },
    { W_SCAN_FILTER, "{'a': {'ComparisonOperator': 'LT',"
      " 'AttributeValueList': [{'N': '10'}]}}", NULL, "{'a': {'S': '1'}}",
      false },
    { W_SCAN_FILTER, "{'a': {'ComparisonOperator': 'IN',"
      " 'AttributeValueList': [{'N': '1'}, {'N': '2'}]}}", NULL,
      "{'a': {'N': '2'}}", true },
    { W_SCAN_FILTER, "{'a': {'ComparisonOperator': 'IN',"
      " 'AttributeValueList': [{'N': '1'}, {'N': '2'}]}}", NULL,
      "{'a': {'NS': ['2']}}", false },
    { W_SCAN_FILTER, "{'a': {'ComparisonOperator': 'BETWEEN',"
      " 'AttributeValueList': [{'S': 'b'}, {'S': 'd'}]}}", NULL,
      "{'a': {'S': 'd'}}", true },
    { W_SCAN_FILTER, "{'a': {'ComparisonOperator': 'BEGINS_WITH',"
      " 'AttributeValueList': [{'S': 'ab'}]}}", NULL,
      "{'a': {'S': 'abc'}}", true },
    /* AND / OR */
    { W_SCAN_FILTER, "{'a': {'ComparisonOperator': 'NULL'},"
      " 'b': {'ComparisonOperator': 'NOT_NULL'}}", "OR",
      "{'a': {'S': 'x'}}", false },
    { W_SCAN_FILTER, "{'a': {'ComparisonOperator': 'NULL'},"
      " 'b': {'ComparisonOperator': 'NOT_NULL'}}", "OR",
      "{'a': {'S': 'x'}, 'b': {'S': 'x'}}", true },
    { W_SCAN_FILTER, "{'a': {'ComparisonOperator': 'NULL'},"
      " 'b': {'ComparisonOperator': 'NOT_NULL'}}", NULL,
      "{'a': {'S': 'x'}, 'b': {'S': 'x'}}", false },
    { W_EXPECTED, "{'a': {'ComparisonOperator': 'NOT_CONTAINS',"
      " 'Value': {'S': 'z'}}, 'b': {'Exists': false}}", "AND",
      "{'a': {'S': 'xy'}}", true },
    { W_EXPECTED, "{'a': {'ComparisonOperator': 'NOT_CONTAINS',"
      " 'Value': {'S': 'z'}}, 'b': {'Exists': false}}", "OR",
      "{'b': {'S': 'xy'}}", false },
};

START_TEST(test_legacy_eval)
{
    json_t *in = js(eval_cases[_i].cond);
    json_t *cop = eval_cases[_i].cop != NULL ?
                  json_string(eval_cases[_i].cop) : NULL;
    json_t *item = js(eval_cases[_i].item);
    struct legacy_expr le;
    struct expr_env *env = NULL;
    struct expr *e;
    struct ddb_err err;
    bool res = !eval_cases[_i].want;

    ddb_err_init(&err);
    ck_assert_int_eq(translate(eval_cases[_i].w, in, cop, &le, &err), 0);
    ck_assert_int_eq(expr_env_new(le.names, le.values, &env, &err), 0);
    e = expr_parse(env, kind_of(eval_cases[_i].w), le.text, &err);
    ck_assert_msg(e != NULL, "%s: %s", le.text, err.msg);
    ck_assert_int_eq(expr_eval(e, json_is_null(item) ? NULL : item, &res,
                               &err), 0);
    ck_assert_msg(res == eval_cases[_i].want, "%s on %s: got %d",
                  le.text, eval_cases[_i].item, res);
    expr_free(e);
    expr_env_free(env);
    legacy_expr_fini(&le);
    json_decref(item);
    json_decref(cop);
    json_decref(in);
}
END_TEST

/* A legacy IN takes tens of thousands of values (issue 18: DynamoDB
 * accepts 27,500) where FilterExpression stops at 100 operands; the long
 * list is searched by bisection, with the same answers as comparing each
 * value (numbers by value, nothing across types, a missing attribute
 * never in). The values are all of one type, as the legacy API wants. */
START_TEST(test_legacy_long_in)
{
    static const struct {
        const char *item;
        bool want;
    } probes[] = {
        { "{'a': {'N': '0'}}", true },
        { "{'a': {'N': '3'}}", true },
        { "{'a': {'N': '82497'}}", true },      /* the last, 27499 * 3 */
        { "{'a': {'N': '82500'}}", false },
        { "{'a': {'N': '30.000'}}", true },
        { "{'a': {'N': '4'}}", false },
        { "{'a': {'N': '-3'}}", false },
        { "{'a': {'S': '3'}}", false },         /* not across types */
        { "{'a': {'NS': ['3']}}", false },
        { "{}", false },
    };
    json_t *avl = json_array(), *filter;
    struct legacy_expr le;
    struct expr_env *env = NULL;
    struct expr *e;
    struct ddb_err err;
    char num[16];
    size_t i;

    for (i = 0; i < 27500; i++) {
        snprintf(num, sizeof(num), "%zu", (27499 - i) * 3);
        json_array_append_new(avl, json_pack("{s:s}", "N", num));
    }
    filter = json_pack("{s:{s:s,s:o}}", "a", "ComparisonOperator", "IN",
                       "AttributeValueList", avl);
    ddb_err_init(&err);
    ck_assert_int_eq(legacy_filter(filter, NULL, "ScanFilter", &le, &err),
                     0);
    ck_assert_int_eq(expr_env_new(le.names, le.values, &env, &err), 0);
    ck_assert_ptr_null(expr_parse(env, EXPR_FILTER, le.text, &err));
    ck_assert_str_eq(err.msg, "Invalid FilterExpression: Expression size has "
                     "exceeded the maximum allowed size; expression size: "
                     "236397");
    ddb_err_clear(&err);
    e = expr_parse_legacy(env, EXPR_FILTER, le.text, &err);
    ck_assert_msg(e != NULL, "%s", err.msg);
    for (i = 0; i < sizeof(probes) / sizeof(probes[0]); i++) {
        json_t *item = js(probes[i].item);
        bool res = !probes[i].want;

        ck_assert_int_eq(expr_eval(e, item, &res, &err), 0);
        ck_assert_msg(res == probes[i].want, "%s: got %d", probes[i].item,
                      res);
        json_decref(item);
    }
    expr_free(e);
    expr_env_free(env);
    legacy_expr_fini(&le);
    json_decref(filter);
}
END_TEST

/* AttributeUpdates applied to an item: the legacy actions' effects. */
static const struct {
    const char *updates, *old, *want;
} upd_cases[] = {
    { "{'a': {'Value': {'S': 'x'}}, 'b': {'Action': 'DELETE'}}",
      "{'b': {'N': '1'}, 'c': {'N': '2'}}",
      "{'a': {'S': 'x'}, 'c': {'N': '2'}}" },
    { "{'n': {'Action': 'ADD', 'Value': {'N': '5'}}}", "{'n': {'N': '2'}}",
      "{'n': {'N': '7'}}" },
    { "{'n': {'Action': 'ADD', 'Value': {'N': '5'}}}", "null",
      "{'n': {'N': '5'}}" },
    { "{'s': {'Action': 'ADD', 'Value': {'SS': ['b']}}}",
      "{'s': {'SS': ['a']}}", "{'s': {'SS': ['a', 'b']}}" },
    { "{'s': {'Action': 'DELETE', 'Value': {'SS': ['a']}}}",
      "{'s': {'SS': ['a', 'b']}}", "{'s': {'SS': ['b']}}" },
    { "{'l': {'Action': 'ADD', 'Value': {'L': [{'N': '2'}]}}}",
      "{'l': {'L': [{'N': '1'}]}}", "{'l': {'L': [{'N': '1'}, {'N': '2'}]}}" },
    { "{'l': {'Action': 'ADD', 'Value': {'L': [{'N': '2'}]}}}", "{}",
      "{'l': {'L': [{'N': '2'}]}}" },
    { "{'x.y': {'Value': {'S': 'v'}}}", "{'x': {'M': {}}}",
      "{'x': {'M': {}}, 'x.y': {'S': 'v'}}" },
};

START_TEST(test_legacy_update_apply)
{
    json_t *in = js(upd_cases[_i].updates), *old = js(upd_cases[_i].old);
    json_t *got = NULL;
    struct legacy_expr le;
    struct expr_env *env = NULL;
    struct expr *e;
    struct ddb_err err;

    ddb_err_init(&err);
    ck_assert_int_eq(legacy_attribute_updates(in, &le, &err), 0);
    ck_assert_int_eq(expr_env_new(le.names, le.values, &env, &err), 0);
    e = expr_parse(env, EXPR_UPDATE, le.text, &err);
    ck_assert_msg(e != NULL, "%s: %s", le.text, err.msg);
    ck_assert_msg(expr_update_apply(e, json_is_null(old) ? NULL : old, NULL,
                                    &got, &err) == 0, "%s: %s", le.text,
                  err.msg);
    assert_json(got, upd_cases[_i].want, le.text);
    json_decref(got);
    expr_free(e);
    expr_env_free(env);
    legacy_expr_fini(&le);
    json_decref(old);
    json_decref(in);
}
END_TEST

/* AttributeUpdates ADD/DELETE onto an attribute of another type: the
 * legacy message, not the UpdateExpression one (which a written
 * expression still gets). */
static const struct {
    const char *updates, *old, *want;
} upd_mismatch_cases[] = {
    { "{'n': {'Action': 'ADD', 'Value': {'SS': ['a']}}}", "{'n': {'N': '1'}}",
      "Type mismatch for attribute to update" },
    { "{'s': {'Action': 'ADD', 'Value': {'N': '1'}}}", "{'s': {'S': 'x'}}",
      "Type mismatch for attribute to update" },
    { "{'s': {'Action': 'DELETE', 'Value': {'NS': ['1']}}}",
      "{'s': {'SS': ['x']}}", "Type mismatch for attribute to update" },
    { "{'n': {'Action': 'ADD', 'Value': {'L': [{'N': '1'}]}}}",
      "{'n': {'N': '1'}}", "Type mismatch for attribute to update" },
    { "{'a': {'Value': {'S': 'x'}}, 'n': {'Action': 'ADD',"
      " 'Value': {'NS': ['2']}}}", "{'n': {'SS': ['1']}}",
      "Type mismatch for attribute to update" },
};

START_TEST(test_legacy_update_type_mismatch)
{
    json_t *in = js(upd_mismatch_cases[_i].updates);
    json_t *old = js(upd_mismatch_cases[_i].old);
    json_t *got = NULL;
    struct legacy_expr le;
    struct expr_env *env = NULL;
    struct expr *e;
    struct ddb_err err;

    ddb_err_init(&err);
    ck_assert_int_eq(legacy_attribute_updates(in, &le, &err), 0);
    ck_assert_int_eq(expr_env_new(le.names, le.values, &env, &err), 0);
    e = expr_parse(env, EXPR_UPDATE, le.text, &err);
    ck_assert_msg(e != NULL, "%s: %s", le.text, err.msg);
    ck_assert_int_eq(expr_update_apply(e, old, NULL, &got, &err), -1);
    ck_assert_ptr_null(got);
    ck_assert_int_eq(err.type, DDB_VALIDATION);
    ck_assert_str_eq(err.msg, upd_mismatch_cases[_i].want);
    expr_free(e);
    expr_env_free(env);
    legacy_expr_fini(&le);
    json_decref(old);
    json_decref(in);
}
END_TEST

/* The same mismatch in a written UpdateExpression keeps its own message. */
START_TEST(test_legacy_update_expr_mismatch_unchanged)
{
    json_t *vals = js("{':v': {'SS': ['a']}}"), *old = js("{'n': {'N': '1'}}");
    json_t *got = NULL;
    struct expr_env *env = NULL;
    struct expr *e;
    struct ddb_err err;

    ddb_err_init(&err);
    ck_assert_int_eq(expr_env_new(NULL, vals, &env, &err), 0);
    e = expr_parse(env, EXPR_UPDATE, "ADD n :v", &err);
    ck_assert_ptr_nonnull(e);
    ck_assert_int_eq(expr_update_apply(e, old, NULL, &got, &err), -1);
    ck_assert_str_eq(err.msg, "An operand in the update expression has an "
                     "incorrect data type");
    expr_free(e);
    expr_env_free(env);
    json_decref(old);
    json_decref(vals);
}
END_TEST

/* Key attributes cannot be updated (the handler's expr_update_check()). */
START_TEST(test_legacy_update_key)
{
    json_t *in = js("{'pk': {'Action': 'PUT', 'Value': {'S': 'x'}}}");
    struct key_schema ks;
    struct legacy_expr le;
    struct expr_env *env = NULL;
    struct expr *e;
    struct ddb_err err;

    memset(&ks, 0, sizeof(ks));
    strcpy(ks.hash_name, "pk");
    ks.hash_type = 'S';
    ddb_err_init(&err);
    ck_assert_int_eq(legacy_attribute_updates(in, &le, &err), 0);
    ck_assert_int_eq(expr_env_new(le.names, le.values, &env, &err), 0);
    e = expr_parse(env, EXPR_UPDATE, le.text, &err);
    ck_assert_ptr_nonnull(e);
    ck_assert_int_eq(expr_update_check(e, &ks, &err), -1);
    ck_assert_str_eq(err.msg, "One or more parameter values were invalid: "
                     "Cannot update attribute pk. This attribute is part of "
                     "the key");
    expr_free(e);
    expr_env_free(env);
    legacy_expr_fini(&le);
    json_decref(in);
}
END_TEST

/* KeyConditions reach expr_keycond() like a KeyConditionExpression. */
START_TEST(test_legacy_keycond_schema)
{
    json_t *in = js("{'sk': {'ComparisonOperator': 'GE',"
                    " 'AttributeValueList': [{'N': '3'}]},"
                    " 'pk': {'ComparisonOperator': 'EQ',"
                    " 'AttributeValueList': [{'S': 'h'}]}}");
    struct key_schema ks;
    struct keycond kc;
    struct legacy_expr le;
    struct expr_env *env = NULL;
    struct expr *e;
    struct ddb_err err;

    memset(&ks, 0, sizeof(ks));
    strcpy(ks.hash_name, "pk");
    ks.hash_type = 'S';
    strcpy(ks.range_name, "sk");
    ks.range_type = 'N';
    ddb_err_init(&err);
    ck_assert_int_eq(legacy_key_conditions(in, &le, &err), 0);
    ck_assert_int_eq(expr_env_new(le.names, le.values, &env, &err), 0);
    e = expr_parse(env, EXPR_KEY_CONDITION, le.text, &err);
    ck_assert_msg(e != NULL, "%s: %s", le.text, err.msg);
    ck_assert_msg(expr_keycond(e, &ks, &kc, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(kc.op, KC_GE);
    assert_json(kc.pk, "{'S': 'h'}", "pk");
    assert_json(kc.v1, "{'N': '3'}", "v1");
    expr_free(e);
    expr_env_free(env);
    legacy_expr_fini(&le);
    json_decref(in);
}
END_TEST

/* ------------------------------------------------------------------------ */

#define N(a) ((int)(sizeof(a) / sizeof((a)[0])))

static Suite *
legacy_suite(void)
{
    Suite *s = suite_create("legacy");
    TCase *tc;

    tc = tcase_create("mix");
    tcase_add_loop_test(tc, test_legacy_mix, 0, N(mix_cases));
    suite_add_tcase(s, tc);

    tc = tcase_create("translate");
    tcase_add_loop_test(tc, test_legacy_translate, 0, N(tr_cases));
    tcase_add_loop_test(tc, test_legacy_translate_parses, 0, N(tr_cases));
    suite_add_tcase(s, tc);

    tc = tcase_create("errors");
    tcase_add_loop_test(tc, test_legacy_errors, 0, N(err_cases));
    tcase_add_loop_test(tc, test_legacy_serialization, 0, N(ser_cases));
    tcase_add_test(tc, test_legacy_size_limits);
    suite_add_tcase(s, tc);

    tc = tcase_create("semantics");
    tcase_add_loop_test(tc, test_legacy_eval, 0, N(eval_cases));
    tcase_add_test(tc, test_legacy_long_in);
    tcase_add_loop_test(tc, test_legacy_update_apply, 0, N(upd_cases));
    tcase_add_loop_test(tc, test_legacy_update_type_mismatch, 0,
                        N(upd_mismatch_cases));
    tcase_add_test(tc, test_legacy_update_expr_mismatch_unchanged);
    tcase_add_test(tc, test_legacy_update_key);
    tcase_add_test(tc, test_legacy_keycond_schema);
    suite_add_tcase(s, tc);
    return s;
}

int
main(void)
{
    SRunner *sr = srunner_create(legacy_suite());
    int failed;

    srunner_run_all(sr, CK_ENV);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
