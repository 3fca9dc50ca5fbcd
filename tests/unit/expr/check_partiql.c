/* SPDX-License-Identifier: MIT */
/* check_partiql.c - unit tests for the PartiQL front end
 * (api/expr/partiql_*.c): the grammar and DynamoDB's messages for what it
 * refuses, literals and parameters as AttributeValues, the WHERE clause
 * evaluated as a condition, keys and Query plans, updates, projections,
 * and the limits on nesting. Expected messages are DynamoDB's as
 * paritysuite/dynamodb-conformance recorded them (eu-west-2, 2026-10)
 * unless a case says otherwise. JSON uses ' for ". */

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/expr/partiql.h"
#include "tests/unit/expr/jlit.h"
#include "storage/util.h"

static struct ddb_err err;

/* Compile text with params (JSON with ' for ", or NULL). */
static struct pql_stmt *
compile(const char *text, const char *params)
{
    json_t *p = params != NULL ? J(params) : NULL;
    struct pql_stmt *s = NULL;

    ddb_err_clear(&err);
    if (pql_compile(text, strlen(text), p, &s, &err) != 0)
        s = NULL;
    json_decref(p);
    return s;
}

static void
setup(void)
{
    ddb_err_init(&err);
}

static void
teardown(void)
{
    ddb_err_clear(&err);
}

#define NWF "Statement wasn't well formed, can't be processed: "
#define KEY "Where clause does not contain a mandatory equality on all key " \
            "attributes"

/* ------------------------------------------------------------------------
 * Grammar: what runs, and the messages of what does not
 * ---------------------------------------------------------------------- */

static const struct { const char *text, *msg; } refused[] = {
    /* partiqlGrammar.test.ts */
    { "SELECT * FROM \"N\" WHERE pk = 1 foo",
      NWF "Unexpected token after expression" },
    { "SELECT * FROM \"N\" WHERE pk = 1 e5",
      NWF "Unexpected token after expression" },
    { "INSERT INTO \"N\" VALUE {'pk': 1} foo",
      NWF "Unexpected token after expression" },
    { "UPDATE \"N\" SET a = 9 WHERE pk = 2 foo",
      NWF "Unexpected token after expression" },
    { "SELECT * FROM \"N\" WHERE pk = 1)",
      NWF "Unexpected token after expression" },
    { "DELETE FROM \"N\" WHERE pk = 3 ORDER BY pk",
      NWF "Unexpected token after expression" },
    { "SELECT * FROM \"N\" ORDER BY pk WHERE pk = 1",
      NWF "Unexpected token after expression" },
    { "SELECT * FROM \"N\" WHERE pk = 1e2147483648", NWF },
    { "SELECT * FROM \"N\" WHERE pk = 1e99999999999", NWF },
    { "SELECT * FROM \"N\" WHERE pk = 1.5e-2147483647", NWF },
    { "SELECT * FROM \"N\" WHERE pk = 1 # note", NWF },
    { "SELECT * FROM \"N\" WHERE pk = 1 /* note", NWF },
    { "SELECT * FROM \"N", NWF },
    { "SELECT * FROM \"S\" t WHERE pk = 'x'", "Aliasing is not supported" },
    { "SELECT * FROM \"S\" AS t WHERE pk = 'x'",
      "Aliasing is not supported" },
    { "UPDATE \"S\" t SET a = 3 WHERE pk = 'x'",
      "Aliasing is not supported" },
    { "DELETE FROM \"S\" t WHERE pk = 'x'", "Aliasing is not supported" },
    { "INSERT INTO \"S\" t VALUE {'pk': 'x'}",
      NWF "Unexpected token after expression" },
    { "SELECT * FROM \"S\" WHERE", NWF "Unexpected term" },
    { "SELECT * FROM \"S\" WHERE;", NWF "Unexpected term" },
    { "SELECT pk FROM \"S\" WHERE", NWF "Unexpected term" },
    { "UPDATE \"S\" SET a = 1 WHERE", NWF "Unexpected term" },
    { "DELETE FROM \"S\" WHERE", NWF "Unexpected term" },
    { "SELECT * FROM \"S\" WHERE NOT", NWF "Unexpected term" },
    { "SELECT * FROM \"S\" WHERE (", NWF "Unexpected term" },
    { "SELECT * FROM \"S\" WHERE pk = 'p1' AND",
      NWF "Missing right-hand side expression of infix operator" },
    { "SELECT * FROM \"S\" WHERE pk = 'p1' OR",
      NWF "Missing right-hand side expression of infix operator" },
    { "SELECT * FROM \"S\" WHERE ORDER BY pk", NWF "Unexpected keyword" },
    { "x IS INT4", "Unsupported operation: IsType" },
    { "x IS DOUBLE PRECISION", "Unsupported operation: IsType" },
    { "x IS CHARACTER VARYING", "Unsupported operation: IsType" },
    { "SELECT * FROM \"S\" WHERE pk = 'a' AND x IS FOO",
      NWF "Expected type name" },
    { "SELECT * FROM \"S\" WHERE IS NULL", NWF "Unexpected operator" },
    { "SELECT * FROM \"S\" WHERE pk = LIKE", NWF "Unexpected operator" },
    { "DELETE FROM", NWF "Expected identifier for simple path" },
    { "DELETE FROM;", NWF "Expected identifier for simple path" },
    { "DELETE FROM WHERE pk = 'a'",
      NWF "Expected identifier for simple path" },
    { "SELECT * FROM", NWF "Unexpected term" },
    { "FROM \"S\" SET c = 1 WHERE pk = 'x'",
      NWF "Unexpected token after expression" },
    /* batchExecuteStatement.test.ts: SLECT reads as an expression whose
     * FROM wants a data manipulation */
    { "SLECT * FROM \"S\" WHERE pk = 'x'", NWF "Expected data manipulation" },
    /* literals: "... under root<path>" */
    { "SELECT * FROM \"N\" WHERE pk = 1e126",
      "Number overflow. Attempting to store a number with magnitude larger "
      "than supported range under root" },
    { "SELECT * FROM \"N\" WHERE pk = 1e-131",
      "Number underflow. Attempting to store a number with magnitude "
      "smaller than supported range under root" },
    { "SELECT * FROM \"N\" WHERE pk = "
      "123456789012345678901234567890123456789",
      "Attempting to store more than 38 significant digits in a Number "
      "under root" },
    { "INSERT INTO \"N\" VALUE {'pk': 9, 'm': {'x': 1e126}}",
      "Number overflow. Attempting to store a number with magnitude larger "
      "than supported range under root.x" },
    { "INSERT INTO \"N\" VALUE {'pk': 7, 'l': [1, 1e126]}",
      "Number overflow. Attempting to store a number with magnitude larger "
      "than supported range under root[1]" },
    /* partiql.test.ts (nubo-db/dynamodb-conformance, eu-west-2) */
    { "DELETE FROM \"T\" WHERE pk = 'x' RETURNING MODIFIED OLD *",
      "Invalid returning clause: RETURNING MODIFIED OLD *. Only RETURNING "
      "ALL OLD * is allowed in DELETE statements." },
    { "DELETE FROM \"T\" WHERE pk = 'x' RETURNING ALL NEW *",
      "Invalid returning clause: RETURNING ALL NEW *. Only RETURNING ALL "
      "OLD * is allowed in DELETE statements." },
    { "SELECT * FROM \"T\".\"g\".\"extra\" WHERE pk = 'p'",
      "A path may contain at most 2 components in the FROM clause" },
    { "SELECT * FROM \"T\".\"\" WHERE pk = 'p'",
      "Path component cannot be an empty string" },
    { "SELECT * FROM \"\" WHERE pk = 'p'",
      "Path component cannot be an empty string" },
    /* indexQualifier.test.ts */
    { "INSERT INTO \"T\".\"g\" VALUE {'pk': 'w'}",
      "FROM clause may only contain a single table name" },
    { "UPDATE \"T\".\"g\" SET a = 'z' WHERE pk = 'p'",
      "This operation is not supported on an index" },
    { "DELETE FROM \"T\".\"g\" WHERE pk = 'p'",
      "This operation is not supported on an index" },
    /* DynamoDB Local's statement translator */
    { "INSERT INTO \"T\" VALUE {'pk': 'a'} RETURNING ALL OLD *",
      "RETURNING is not supported in INSERT" },
    { "UPDATE \"T\" SET a = 1 WHERE pk = 'a' RETURNING ALL NEW a",
      "Expected '*' after ( MODIFIED | ALL ) ( NEW | OLD ) in RETURNING "
      "clause" },
    { "UPDATE \"T\" SET a = 1 WHERE pk = 'a' RETURNING ALL NEW *, "
      "ALL OLD *",
      "Invalid syntax with multiple returning elements in RETURNING "
      "clause" },
    { "SELECT * FROM \"T\" WHERE pk = ?",
      "Number of parameters in request and statement don't match." },
    { "SELECT DISTINCT a FROM \"T\"",
      "Unsupported token in expression: DISTINCT" },
    { "SELECT * FROM \"T\" GROUP BY a", "Unsupported clause: GROUP BY" },
};

START_TEST(test_partiql_refused)
{
    struct pql_stmt *s = compile(refused[_i].text, NULL);

    ck_assert_msg(s == NULL, "accepted: %s", refused[_i].text);
    ck_assert_int_eq(err.type, DDB_VALIDATION);
    ck_assert_str_eq(err.msg, refused[_i].msg);
}
END_TEST

static const struct {
    const char *text;
    enum pql_kind kind;
    const char *table, *index;
} accepted[] = {
    { "SELECT * FROM \"Music\" WHERE Artist = 'a'", PQL_SELECT, "Music",
      NULL },
    { "select * from Music", PQL_SELECT, "Music", NULL },
    { "SELECT a, b.c[2] FROM \"T\".\"gsi1\" WHERE h = 1", PQL_SELECT, "T",
      "gsi1" },
    { "-- a note\nSELECT * FROM \"S\" WHERE pk = 'a' -- after", PQL_SELECT,
      "S", NULL },
    { "SELECT * FROM \"S\" /* a note */ WHERE pk = 'c';", PQL_SELECT, "S",
      NULL },
    { "SELECT * FROM \"a\"\"b\" WHERE pk = 'it''s'", PQL_SELECT, "a\"b",
      NULL },
    { "INSERT INTO \"T\" VALUE {'pk': 'a', 'n': .5e1, 'l': [TRUE, NULL]}",
      PQL_INSERT, "T", NULL },
    { "UPDATE \"T\" SET a = 1, b = a + 2 REMOVE c WHERE pk = 'a' "
      "RETURNING MODIFIED NEW *", PQL_UPDATE, "T", NULL },
    { "FROM \"T\" WHERE pk = 'a' SET c = 2 REMOVE a", PQL_UPDATE, "T",
      NULL },
    { "from \"T\" where pk = 'a' set e = 4", PQL_UPDATE, "T", NULL },
    { "DELETE FROM \"T\" WHERE pk = 'a' RETURNING ALL OLD *", PQL_DELETE,
      "T", NULL },
    { "EXISTS(SELECT * FROM \"T\" WHERE pk = 'a' AND v = 1)", PQL_EXISTS,
      "T", NULL },
};

START_TEST(test_partiql_accepted)
{
    struct pql_stmt *s = compile(accepted[_i].text, NULL);

    ck_assert_msg(s != NULL, "%s: %s", accepted[_i].text, err.msg);
    ck_assert_int_eq(pql_kind(s), accepted[_i].kind);
    ck_assert_str_eq(pql_table(s), accepted[_i].table);
    if (accepted[_i].index == NULL)
        ck_assert_ptr_null(pql_index(s));
    else
        ck_assert_str_eq(pql_index(s), accepted[_i].index);
    pql_free(s);
}
END_TEST

/* ------------------------------------------------------------------------
 * Functions, operands and their positions
 * ---------------------------------------------------------------------- */

#define W "SELECT * FROM \"T\" WHERE pk = 'i' AND "
#define U(set) "UPDATE \"T\" SET " set " WHERE pk = 'i'"

static const struct { const char *text, *params, *msg; } fn_errors[] = {
    /* error-messages/partiqlFunctions.test.ts */
    { W "attribute_exists('ss')", NULL,
      "Operator or function requires a document path; operator or "
      "function: attribute_exists" },
    { W "attribute_exists(?)", "[{'S': 'ss'}]",
      "Operator or function requires a document path; operator or "
      "function: attribute_exists" },
    { W "attribute_exists()", NULL,
      "Incorrect number of operands for operator or function; operator or "
      "function: attribute_exists, number of operands: 0" },
    { W "attribute_exists(ss, ns)", NULL,
      "Incorrect number of operands for operator or function; operator or "
      "function: attribute_exists, number of operands: 2" },
    { "SELECT attribute_exists(ss) FROM \"T\" WHERE pk = 'i'", NULL,
      "Unexpected path component at 1:8:16" },
    { W "EXISTS(ss)", NULL, "Unrecognized function: exists at 1:38:6" },
    { W "attribute_exists(m.inner)", NULL, NWF "Invalid path dot component" },
    /* the expression engine's document path limits (expr_int.h) */
    { W "l[4294967295] = 1", NULL,
      "List index is not within the allowable range; index: [4294967295]" },
    { "SELECT x1.x2.x3.x4.x5.x6.x7.x8.x9.x10.x11.x12.x13.x14.x15"
      ".x16.x17.x18.x19.x20.x21.x22.x23.x24.x25.x26.x27"
      ".x28.x29.x30.x31.x32.x33"
      " FROM \"T\" WHERE pk = 'i'", NULL,
      "The document path has too many nesting levels; nesting levels: 33" },
    { U("t = set_add(ss, <<'x'>>)"), NULL,
      "The first argument to SET_ADD must equal the assignment value at "
      "1:20:7" },
    { U("ss = set_add(<<'a'>>, <<'b'>>)"), NULL,
      "The first argument to SET_ADD must equal the assignment value at "
      "1:21:7" },
    { U("ss = set_add(ss, 'x')"), NULL,
      "The second argument to SET_ADD must be a value with type SET at "
      "1:29:2" },
    { U("ss = set_add(ss, ['x'])"), NULL,
      "The second argument to SET_ADD must be a value with type SET at "
      "1:29:2" },
    { U("ss = set_add(ss)"), NULL,
      "SET_ADD must have exactly two arguments at 1:21:7" },
    { U("ss = set_add(ss, <<'x'>>, <<'y'>>)"), NULL,
      "SET_ADD must have exactly two arguments at 1:21:7" },
    { U("ss = set_add(ss, <<'x', 'x'>>)"), NULL,
      "One or more parameter values were invalid: Input collection [x, x] "
      "contains duplicates." },
    { U("ss = set_add(ss, <<>>)"), NULL, "Empty bags are not supported" },
    { W "set_add(ss, <<'x'>>) = ss", NULL,
      "Unrecognized function: set_add at 1:38:7" },
    { "INSERT INTO \"T\" VALUE {'pk': 'i', 'ss': set_add(<<'a'>>, "
      "<<'b'>>)}", NULL,
      "Unsupported data type: set_add under key root at 1:41:7" },
    { U("t = set_delete(ss, <<'a'>>)"), NULL,
      "The first argument to SET_DELETE must equal the assignment value at "
      "1:20:10" },
    { U("ss = set_delete(ss, 'a')"), NULL,
      "The second argument to SET_DELETE must be a value with type SET at "
      "1:32:2" },
    /* comparison.test.ts */
    { W "val < ?", "[{'BOOL': true}]",
      "Incorrect operand type for operator or function; operator or "
      "function: <, operand type: BOOL" },
    { W "val >= ?", "[{'L': [{'S': 'a'}]}]",
      "Incorrect operand type for operator or function; operator or "
      "function: >=, operand type: L" },
    { W "val BETWEEN ? AND ?", "[{'BOOL': true}, {'BOOL': false}]",
      "Incorrect operand type for operator or function; operator or "
      "function: BETWEEN, operand type: BOOL" },
    /* partiqlParameterNumbers.test.ts */
    { W "n = ?", "[{'N': '1e99999999999'}]",
      "The parameter cannot be converted to a numeric value: "
      "1e99999999999" },
    { W "n = ?", "[{'N': '1e2147483647'}]",
      "Number underflow. Attempting to store a number with magnitude "
      "smaller than supported range" },
    { W "n = ?", "[{'N': ''}]",
      "The parameter cannot be converted to a numeric value" },
    { W "n = ?", "[{'L': [{'N': '1'}, {'N': '1e99999999999'}]}]",
      "The parameter cannot be converted to a numeric value: "
      "1e99999999999" },
    /* DynamoDB Local's ("a ? inside a set") */
    { "INSERT INTO \"T\" VALUE {'pk': 'i', 'v': <<?>>}", "[{'S': 'a'}]",
      "Unsupported data type in Bag" },
    /* the update engine's checks, unprefixed */
    { "UPDATE \"T\" SET a = 1 REMOVE a WHERE pk = 'i'", NULL,
      "Two document paths overlap with each other; must remove or rewrite "
      "one of these paths; path one: [a], path two: [a]" },
};

START_TEST(test_partiql_function_errors)
{
    struct pql_stmt *s = compile(fn_errors[_i].text, fn_errors[_i].params);

    ck_assert_msg(s == NULL, "accepted: %s", fn_errors[_i].text);
    ck_assert_int_eq(err.type, DDB_VALIDATION);
    ck_assert_str_eq(err.msg, fn_errors[_i].msg);
}
END_TEST

/* Parameters too deep: the first problem in document order wins. */
START_TEST(test_partiql_deep_parameters)
{
    struct strbuf b = { 0 };
    struct pql_stmt *s;
    int i;

    strbuf_puts(&b, "[");
    for (i = 0; i < 40; i++)
        strbuf_puts(&b, "{'M': {'n': ");
    strbuf_puts(&b, "{'S': 'leaf'}");
    for (i = 0; i < 40; i++)
        strbuf_puts(&b, "}}");
    strbuf_puts(&b, ", {'N': 'abc'}]");
    s = compile(W "x = ? AND y = ?", b.s);
    ck_assert_ptr_null(s);
    ck_assert_str_eq(err.msg, "Nesting Levels have exceeded supported "
                     "limits: Attributes in the item have nested levels "
                     "beyond supported limit");
    strbuf_free(&b);
    s = compile(W "x = ? AND y = ?", "[{'N': 'abc'}, {'S': 'x'}]");
    ck_assert_ptr_null(s);
    ck_assert_str_eq(err.msg, "The parameter cannot be converted to a "
                     "numeric value: abc");
}
END_TEST

/* ------------------------------------------------------------------------
 * Limits: nesting and length never crash or hang
 * ---------------------------------------------------------------------- */

START_TEST(test_partiql_nesting_limit)
{
    struct strbuf b = { 0 };
    struct pql_stmt *s;
    int i;

    strbuf_puts(&b, "SELECT * FROM \"T\" WHERE ");
    for (i = 0; i < 4000; i++)
        strbuf_putc(&b, '(');
    strbuf_puts(&b, "a = 1");
    for (i = 0; i < 4000; i++)
        strbuf_putc(&b, ')');
    s = compile(b.s, NULL);
    ck_assert_ptr_null(s);
    ck_assert_str_eq(err.msg, NWF "Expression nesting is too deep");
    strbuf_free(&b);
    /* NOT NOT ... and - - - recurse too */
    strbuf_puts(&b, "SELECT * FROM \"T\" WHERE ");
    for (i = 0; i < 3000; i++)
        strbuf_puts(&b, "NOT ");
    strbuf_puts(&b, "a = 1");
    ck_assert_ptr_null(compile(b.s, NULL));
    strbuf_free(&b);
    strbuf_puts(&b, "SELECT * FROM \"T\" WHERE a = ");
    for (i = 0; i < 3000; i++)
        strbuf_puts(&b, "- ");
    strbuf_puts(&b, "1");
    ck_assert_ptr_null(compile(b.s, NULL));
    strbuf_free(&b);
    /* 100 levels are fine */
    strbuf_puts(&b, "SELECT * FROM \"T\" WHERE ");
    for (i = 0; i < 100; i++)
        strbuf_putc(&b, '(');
    strbuf_puts(&b, "a = 1");
    for (i = 0; i < 100; i++)
        strbuf_putc(&b, ')');
    s = compile(b.s, NULL);
    ck_assert_msg(s != NULL, "%s", err.msg);
    pql_free(s);
    strbuf_free(&b);
}
END_TEST

/* A value nested past DynamoDB's 32 levels is refused as an item's. */
START_TEST(test_partiql_deep_value)
{
    struct strbuf b = { 0 };
    int i;

    strbuf_puts(&b, "INSERT INTO \"T\" VALUE {'pk': 'a', 'd': ");
    for (i = 0; i < 40; i++)
        strbuf_puts(&b, "{'n': ");
    strbuf_puts(&b, "1");
    for (i = 0; i < 40; i++)
        strbuf_puts(&b, "}");
    strbuf_puts(&b, "}");
    ck_assert_ptr_null(compile(b.s, NULL));
    ck_assert_str_eq(err.msg, "Nesting Levels have exceeded supported "
                     "limits: Attributes in the item have nested levels "
                     "beyond supported limit");
    strbuf_free(&b);
}
END_TEST

/* Bytes no token starts with, NUL included, are refused whole. */
START_TEST(test_partiql_bad_bytes)
{
    static const char text[] = "SELECT * FROM \"T\" WHERE a = \0 1";
    struct pql_stmt *s = NULL;

    ck_assert_int_eq(pql_compile(text, sizeof(text) - 1, NULL, &s, &err),
                     -1);
    ck_assert_str_eq(err.msg, NWF);
    ck_assert_ptr_null(compile("SELECT * FROM \"T\" WHERE a = `1`", NULL));
    ck_assert_ptr_null(compile("SELECT * FROM 'T", NULL));
    ck_assert_ptr_null(compile("", NULL));
    ck_assert_str_eq(err.msg, NWF "Unexpected term");
}
END_TEST

/* U+0000 in a quoted identifier would name another table once read as a C
 * string, and bytes that are not UTF-8 cannot come from the wire's JSON:
 * both refused (fuzz_partiql.c found the second without a message). A
 * string literal keeps its NUL. */
START_TEST(test_partiql_nul_and_utf8)
{
    static const char qid[] = "SELECT * FROM \"T\0x\" WHERE pk = 'k'";
    static const char str[] = "SELECT * FROM \"T\" WHERE pk = 'k\0x'";
    static const char bad[] = "SELECT * FROM \"T\" WHERE pk = '\xc3'";
    struct pql_stmt *s = NULL;

    ck_assert_int_eq(pql_compile(qid, sizeof(qid) - 1, NULL, &s, &err), -1);
    ck_assert_str_eq(err.msg, NWF);
    ddb_err_clear(&err);
    ck_assert_int_eq(pql_compile(bad, sizeof(bad) - 1, NULL, &s, &err), -1);
    ck_assert_str_eq(err.msg, NWF);
    ddb_err_clear(&err);
    ck_assert_int_eq(pql_compile(str, sizeof(str) - 1, NULL, &s, &err), 0);
    ck_assert_str_eq(pql_table(s), "T");
    pql_free(s);
}
END_TEST

/* ------------------------------------------------------------------------
 * Values
 * ---------------------------------------------------------------------- */

START_TEST(test_partiql_insert_item)
{
    struct pql_stmt *s = compile(
        "INSERT INTO \"T\" VALUE {'pk': ?, 'n': -.73e1, 'e': 7.31E6, "
        "'s': 'it''s', 'b': TRUE, 'z': NULL, 'l': [1, 'a'], "
        "'m': {'k': <<3, 1>>}, 'ss': <<'b', 'a'>>}",
        "[{'S': 'key'}]");
    json_t *want = J("{'pk': {'S': 'key'}, 'n': {'N': '-7.3'}, "
                     "'e': {'N': '7310000'}, 's': {'S': 'it\\u0027s'}, "
                     "'b': {'BOOL': true}, 'z': {'NULL': true}, "
                     "'l': {'L': [{'N': '1'}, {'S': 'a'}]}, "
                     "'m': {'M': {'k': {'NS': ['1', '3']}}}, "
                     "'ss': {'SS': ['a', 'b']}}");

    ck_assert_msg(s != NULL, "%s", err.msg);
    ck_assert_msg(json_equal(want, (json_t *)pql_item(s)), "%s",
                  json_text(pql_item(s), 0));
    json_decref(want);
    pql_free(s);
}
END_TEST

/* ------------------------------------------------------------------------
 * The WHERE clause as a condition
 * ---------------------------------------------------------------------- */

static const char *const where_item =
    "{'pk': {'S': 'a'}, 'sk': {'S': 'prefix-1'}, 'n': {'N': '5'}, "
    "'s': {'S': 'str'}, 'nul': {'NULL': true}, 'flag': {'BOOL': true}, "
    "'ss': {'SS': ['a', 'b']}, 'm': {'M': {'sub': {'S': 'x'}}}, "
    "'l': {'L': [{'S': 'a'}, {'N': '2'}]}}";

static const struct { const char *where, *params; bool want; } wheres[] = {
    { "pk = 'a'", NULL, true },
    { "pk <> 'a'", NULL, false },
    { "pk != 'b'", NULL, true },
    { "n > 4 AND n <= 5", NULL, true },
    { "n BETWEEN 6 AND 9", NULL, false },
    { "NOT n BETWEEN 6 AND 9", NULL, true },
    { "n NOT BETWEEN 1 AND 9", NULL, false },
    { "n IN [1, 5]", NULL, true },
    { "n IN (1, 2)", NULL, false },
    { "n NOT IN [1, 2]", NULL, true },
    { "n IN ?", "[{'L': [{'N': '4'}, {'N': '5'}]}]", true },
    { "begins_with(sk, 'prefix-')", NULL, true },
    { "BEGINS_WITH(\"sk\", 'x')", NULL, false },
    { "contains(ss, 'b')", NULL, true },
    { "contains(s, 'tr')", NULL, true },
    { "size(s) = 3", NULL, true },
    { "size(l) > 2", NULL, false },
    { "attribute_type(ss, 'SS')", NULL, true },
    { "attribute_exists(m.sub)", NULL, true },
    { "attribute_exists(m.nope)", NULL, false },
    { "attribute_not_exists(nope)", NULL, true },
    { "attribute_exists(ss) = true", NULL, true },
    { "attribute_exists(ss) = false", NULL, false },
    { "attribute_exists(nope) <> true", NULL, true },
    { "(attribute_exists(nope) OR attribute_exists(ss))", NULL, true },
    { "nul IS NULL", NULL, true },
    { "s IS NULL", NULL, false },
    { "s IS NOT NULL", NULL, true },
    { "flag IS BOOL", NULL, true },
    { "s IS STRING", NULL, true },
    { "s IS BOOL", NULL, false },
    { "n IS INT", NULL, true },
    { "ss IS BAG", NULL, true },
    { "m IS STRUCT", NULL, true },
    { "l IS LIST", NULL, true },
    { "s IS TIMESTAMP", NULL, false },
    { "nope IS MISSING", NULL, true },
    { "s IS NOT MISSING", NULL, true },
    { "\"kind\" IS NOT MISSING", NULL, false },
    { "l[1] = 2", NULL, true },
    { "m['sub'] = 'x'", NULL, true },
    { "ss = ?", "[{'SS': ['b', 'a']}]", true },
    { "nope <> 'x'", NULL, true },
    { "NOT nope = 'x'", NULL, true },
    { "s < ?", "[{'N': '5'}]", false },
};

START_TEST(test_partiql_where_eval)
{
    char text[512];
    struct pql_stmt *s;
    struct expr *f;
    json_t *item = J(where_item);
    bool ok = false;

    snprintf(text, sizeof(text), "SELECT * FROM \"T\" WHERE %s",
             wheres[_i].where);
    s = compile(text, wheres[_i].params);
    ck_assert_msg(s != NULL, "%s: %s", text, err.msg);
    f = pql_filter(s);
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(expr_eval(f, item, &ok, &err), 0);
    ck_assert_msg(ok == wheres[_i].want, "%s", text);
    expr_free(f);
    pql_free(s);
    json_decref(item);
}
END_TEST

/* ------------------------------------------------------------------------
 * Keys and Query plans
 * ---------------------------------------------------------------------- */

START_TEST(test_partiql_key_split)
{
    struct key_schema ks = { "pk", 'S', "sk", 'N' };
    struct pql_stmt *s;
    struct expr *cond;
    json_t *key, *want;
    bool ok;

    s = compile("DELETE FROM \"T\" WHERE 5 = sk AND pk = 'a' AND v > 1",
                NULL);
    ck_assert_ptr_nonnull(s);
    ck_assert_int_eq(pql_key_split(s, &ks, &key, &cond, &err), 0);
    want = J("{'pk': {'S': 'a'}, 'sk': {'N': '5'}}");
    ck_assert(json_equal(key, want));
    ck_assert_ptr_nonnull(cond);
    json_decref(want);
    want = J("{'v': {'N': '2'}}");
    ck_assert_int_eq(expr_eval(cond, want, &ok, &err), 0);
    ck_assert(ok);
    json_decref(want);
    json_decref(key);
    expr_free(cond);
    pql_free(s);

    s = compile("DELETE FROM \"T\" WHERE pk = 'a'", NULL);
    ck_assert_int_eq(pql_key_split(s, &ks, &key, &cond, &err), -1);
    ck_assert_str_eq(err.msg, KEY);
    pql_free(s);
    s = compile("UPDATE \"T\" SET a = 1 WHERE pk = 'a' OR sk = 1", NULL);
    ck_assert_int_eq(pql_key_split(s, &ks, &key, &cond, &err), -1);
    ck_assert_str_eq(err.msg, KEY);
    pql_free(s);
    s = compile("UPDATE \"T\" SET a = 1 WHERE pk = 5 AND sk = 1", NULL);
    ck_assert_int_eq(pql_key_split(s, &ks, &key, &cond, &err), -1);
    ck_assert_str_eq(err.msg, "Key attribute's data type should match its "
                     "data type in table's schema: Key pk");
    pql_free(s);
    s = compile("FROM \"T\" SET c = 1", NULL);
    ck_assert_int_eq(pql_key_split(s, &ks, &key, &cond, &err), -1);
    ck_assert_str_eq(err.msg, KEY);
    pql_free(s);
}
END_TEST

/* Branches of a SELECT: Queries, a Scan, or an overlap
 * (whereOverlap.test.ts, partiqlGrammar.test.ts). */
static const struct {
    const char *where;
    int n;                          /* Queries; 0: Scan; -1: refused */
    int op;                         /* the first one's sort-key operator */
    bool keyed;
} plans[] = {
    { "pk = 'a'", 1, KC_NONE, true },
    { "pk = 'a' AND sk > '1'", 1, KC_GT, true },
    { "'1' < sk AND pk = 'a'", 1, KC_GT, true },
    { "pk = 'a' AND sk BETWEEN '1' AND '3'", 1, KC_BETWEEN, true },
    { "pk = 'a' AND begins_with(sk, 'x')", 1, KC_BEGINS_WITH, true },
    { "pk = 'a' AND NOT sk = '1'", 1, KC_NONE, true },
    { "pk IN ['a', 'b', 'a']", 2, KC_NONE, true },
    { "pk = 'a' OR pk = 'b'", 2, KC_NONE, false },
    { "pk = 'a' AND sk = '1' OR pk = 'a' AND sk = '2'", 1, KC_NONE, false },
    { "pk = 'a' AND NOT sk = '1' OR pk = 'a' AND sk = '2'", 1, KC_NONE,
      false },
    { "pk = 'a' OR pk = 'a' AND NOT sk = '1'", 1, KC_NONE, false },
    { "pk = 'a' AND x = '1' OR pk = 'a' AND sk = '2'", -1, 0, false },
    { "pk = 'a' AND x <> '1' OR pk = 'a' AND sk = '2'", -1, 0, false },
    { "pk = 'a' AND x = '1' OR pk = 'b' AND sk = '2'", 2, KC_NONE, false },
    { "pk > 'a'", 0, 0, false },
    { "pk = 'a' OR x = 1", 0, 0, false },
    { "x = 1", 0, 0, false },
};

START_TEST(test_partiql_plan)
{
    char text[256];
    struct pql_stmt *s;
    struct pql_plan plan;
    int rc;

    snprintf(text, sizeof(text), "SELECT * FROM \"T\" WHERE %s",
             plans[_i].where);
    s = compile(text, NULL);
    ck_assert_msg(s != NULL, "%s", err.msg);
    rc = pql_plan(s, "pk", 'S', "sk", 'S', &plan, &err);
    if (plans[_i].n < 0) {
        ck_assert_int_eq(rc, -1);
        ck_assert_str_eq(err.msg, "Overlapping conditions with range keys "
                         "are not supported in where clause");
    } else {
        ck_assert_int_eq(rc, 0);
        ck_assert_int_eq((int)plan.n, plans[_i].n);
        if (plan.n > 0) {
            ck_assert_int_eq(plan.b[0].op, plans[_i].op);
            ck_assert_int_eq(plan.keyed, plans[_i].keyed);
        }
    }
    pql_plan_fini(&plan);
    pql_free(s);
}
END_TEST

START_TEST(test_partiql_plan_key_type)
{
    struct pql_stmt *s = compile("SELECT * FROM \"T\" WHERE pk = 5", NULL);
    struct pql_plan plan;

    ck_assert_int_eq(pql_plan(s, "pk", 'S', NULL, 0, &plan, &err), -1);
    ck_assert_str_eq(err.msg, "Key attribute's data type should match its "
                     "data type in table's schema: Key pk");
    pql_free(s);
}
END_TEST

/* A branch's key condition reads back through expr_keycond(). */
START_TEST(test_partiql_keycond)
{
    struct key_schema ks = { "pk", 'S', "sk", 'S' };
    struct pql_stmt *s = compile("SELECT * FROM \"T\" WHERE pk = 'a' AND "
                                 "sk BETWEEN 'b' AND 'c'", NULL);
    struct pql_plan plan;
    struct keycond kc;
    struct expr *e;

    ck_assert_int_eq(pql_plan(s, "pk", 'S', "sk", 'S', &plan, &err), 0);
    e = pql_keycond(&plan.b[0], "pk", "sk");
    ck_assert_int_eq(expr_keycond(e, &ks, &kc, &err), 0);
    ck_assert_int_eq(kc.op, KC_BETWEEN);
    ck_assert_str_eq(json_string_value(json_object_get(kc.pk, "S")), "a");
    ck_assert_str_eq(json_string_value(json_object_get(kc.v2, "S")), "c");
    expr_free(e);
    pql_plan_fini(&plan);
    pql_free(s);
}
END_TEST

/* ------------------------------------------------------------------------
 * Updates, guards, projections
 * ---------------------------------------------------------------------- */

START_TEST(test_partiql_update_apply)
{
    struct pql_stmt *s = compile(
        "UPDATE \"T\" SET n = n + 5 SET ss = set_add(ss, <<'c'>>) "
        "SET rm = set_delete(rm, <<'x'>>) SET l = list_append(l, [3]) "
        "SET m.k = 'v' REMOVE gone WHERE pk = 'a'", NULL);
    json_t *old = J("{'pk': {'S': 'a'}, 'n': {'N': '1'}, 'ss': {'SS': "
                    "['a']}, 'rm': {'SS': ['x']}, 'l': {'L': []}, "
                    "'m': {'M': {}}, 'gone': {'S': 'g'}}");
    json_t *want = J("{'pk': {'S': 'a'}, 'n': {'N': '6'}, 'ss': {'SS': "
                     "['a', 'c']}, 'l': {'L': [{'N': '3'}]}, "
                     "'m': {'M': {'k': {'S': 'v'}}}}");
    struct expr *u;
    json_t *got = NULL;

    ck_assert_msg(s != NULL, "%s", err.msg);
    u = pql_take_update(s);
    ck_assert_ptr_nonnull(u);
    ck_assert_ptr_null(pql_take_update(s));
    ck_assert_int_eq(expr_update_apply(u, old, NULL, &got, &err), 0);
    ck_assert_msg(json_equal(got, want), "%s", json_text(got, 0));
    json_decref(got);
    got = NULL;
    /* set_add of a number to a string set: the engine's message */
    json_object_set_new(old, "ss", J("{'NS': ['1']}"));
    ck_assert_int_eq(expr_update_apply(u, old, NULL, &got, &err), -1);
    ck_assert_str_eq(err.msg, "An operand in the update expression has an "
                     "incorrect data type");
    expr_free(u);
    pql_free(s);
    json_decref(old);
    json_decref(want);
}
END_TEST

START_TEST(test_partiql_guards)
{
    json_t *some = J("{'pk': {'S': 'a'}, 'v': {'N': '1'}}");
    struct key_schema ks = { "pk", 'S', "", 0 };
    struct pql_stmt *s = compile("DELETE FROM \"T\" WHERE pk = 'a' AND "
                                 "v = 2", NULL);
    struct expr *cond, *g;
    json_t *key;
    bool ok;

    /* INSERT: only where no item is */
    g = pql_guard(NULL, "pk", PQL_GUARD_ABSENT);
    ck_assert_int_eq(expr_eval(g, NULL, &ok, &err), 0);
    ck_assert(ok);
    ck_assert_int_eq(expr_eval(g, some, &ok, &err), 0);
    ck_assert(!ok);
    expr_free(g);
    ck_assert_ptr_null(pql_guard(NULL, "pk", PQL_GUARD_IF_EXISTS));
    /* DELETE: the rest is checked only when the item is there */
    ck_assert_int_eq(pql_key_split(s, &ks, &key, &cond, &err), 0);
    g = pql_guard(cond, "pk", PQL_GUARD_IF_EXISTS);
    ck_assert_int_eq(expr_eval(g, NULL, &ok, &err), 0);
    ck_assert(ok);
    ck_assert_int_eq(expr_eval(g, some, &ok, &err), 0);
    ck_assert(!ok);
    expr_free(g);
    json_decref(key);
    /* UPDATE: the item must be there */
    ck_assert_int_eq(pql_key_split(s, &ks, &key, &cond, &err), 0);
    g = pql_guard(cond, "pk", PQL_GUARD_EXISTS);
    ck_assert_int_eq(expr_eval(g, NULL, &ok, &err), 0);
    ck_assert(!ok);
    expr_free(g);
    json_decref(key);
    pql_free(s);
    json_decref(some);
}
END_TEST

START_TEST(test_partiql_project)
{
    json_t *item = J("{'pk': {'S': 'a'}, 'mymap': {'M': {'nested': {'S': "
                     "'deep'}}}, 'l': {'L': [{'N': '1'}, {'S': 'two'}]}, "
                     "'extra': {'S': 'x'}}");
    struct pql_stmt *s = compile("SELECT pk, mymap.nested, l[1], nope "
                                 "FROM \"T\"", NULL);
    /* SELECT a.b answers under b (executeStatement.test.ts); an index
     * stays on the name (DynamoDB Local's unnesting) */
    json_t *want = J("{'pk': {'S': 'a'}, 'nested': {'S': 'deep'}, "
                     "'l[1]': {'S': 'two'}}");
    json_t *got = pql_project(s, item);
    const char *heads[4];
    struct expr *p;

    ck_assert_msg(json_equal(got, want), "%s", json_text(got, 0));
    ck_assert_int_eq(pql_select_heads(s, heads, 4), 4);
    ck_assert_str_eq(heads[1], "mymap");
    p = pql_projection(s, false);
    ck_assert_ptr_nonnull(p);
    json_decref(got);
    got = expr_project(p, item);
    ck_assert_ptr_null(json_object_get(got, "extra"));
    ck_assert_ptr_nonnull(json_object_get(got, "mymap"));
    expr_free(p);
    json_decref(got);
    pql_free(s);
    s = compile("SELECT * FROM \"T\"", NULL);
    ck_assert(pql_star(s));
    ck_assert_ptr_null(pql_projection(s, true));
    got = pql_project(s, item);
    ck_assert(json_equal(got, item));
    json_decref(got);
    pql_free(s);
    json_decref(want);
    json_decref(item);
}
END_TEST

START_TEST(test_partiql_order_and_returning)
{
    struct pql_stmt *s = compile("SELECT * FROM \"T\" WHERE pk = 'a' "
                                 "ORDER BY sk DESC", NULL);
    const char *name;
    bool desc = false;

    ck_assert(pql_order(s, &name, &desc));
    ck_assert_str_eq(name, "sk");
    ck_assert(desc);
    pql_free(s);
    s = compile("UPDATE \"T\" SET a = 1 WHERE pk = 'a' RETURNING MODIFIED "
                "OLD *", NULL);
    ck_assert_int_eq(pql_returning(s), PQL_RET_MODIFIED_OLD);
    pql_free(s);
}
END_TEST

static Suite *
partiql_suite(void)
{
    Suite *s = suite_create("partiql");
    TCase *tc;

    tc = tcase_create("grammar");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_loop_test(tc, test_partiql_refused, 0,
                        sizeof(refused) / sizeof(refused[0]));
    tcase_add_loop_test(tc, test_partiql_accepted, 0,
                        sizeof(accepted) / sizeof(accepted[0]));
    suite_add_tcase(s, tc);

    tc = tcase_create("functions");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_loop_test(tc, test_partiql_function_errors, 0,
                        sizeof(fn_errors) / sizeof(fn_errors[0]));
    tcase_add_test(tc, test_partiql_deep_parameters);
    suite_add_tcase(s, tc);

    tc = tcase_create("limits");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_partiql_nesting_limit);
    tcase_add_test(tc, test_partiql_deep_value);
    tcase_add_test(tc, test_partiql_bad_bytes);
    tcase_add_test(tc, test_partiql_nul_and_utf8);
    suite_add_tcase(s, tc);

    tc = tcase_create("values");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_partiql_insert_item);
    tcase_add_loop_test(tc, test_partiql_where_eval, 0,
                        sizeof(wheres) / sizeof(wheres[0]));
    suite_add_tcase(s, tc);

    tc = tcase_create("keys");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_partiql_key_split);
    tcase_add_loop_test(tc, test_partiql_plan, 0,
                        sizeof(plans) / sizeof(plans[0]));
    tcase_add_test(tc, test_partiql_plan_key_type);
    tcase_add_test(tc, test_partiql_keycond);
    suite_add_tcase(s, tc);

    tc = tcase_create("writes");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_partiql_update_apply);
    tcase_add_test(tc, test_partiql_guards);
    tcase_add_test(tc, test_partiql_project);
    tcase_add_test(tc, test_partiql_order_and_returning);
    suite_add_tcase(s, tc);
    return s;
}

int
main(void)
{
    SRunner *sr = srunner_create(partiql_suite());
    int failed;

    srunner_run_all(sr, CK_ENV);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
