/* SPDX-License-Identifier: MIT */
/* legacy_cond.c - the legacy conditions: Expected (with ConditionalOperator),
 * QueryFilter/ScanFilter and KeyConditions, each {attribute: condition}
 * checked with DynamoDB's messages and its ComparisonOperator rewritten as
 * expression text (legacy_int.h's translation state). */
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "api/proto/av.h"
#include "api/expr/legacy_int.h"

#define MSG_BETWEEN "The BETWEEN condition was provided a range where the " \
                    "lower bound is greater than the upper bound"
#define MSG_ITEM_SIZE "Item size has exceeded the maximum allowed size"

/* ------------------------------------------------------------------------
 * Comparison operators
 * ---------------------------------------------------------------------- */

enum cmp_types {
    CT_ANY,                         /* EQ, NE: every type */
    CT_SORTABLE,                    /* S, N, B */
    CT_SCALAR,                      /* S, N, B, BOOL, NULL */
    CT_STRING_BINARY                /* S, B */
};

enum cmp_op {
    OP_EQ, OP_NE, OP_LE, OP_LT, OP_GE, OP_GT, OP_NOT_NULL, OP_NULL,
    OP_CONTAINS, OP_NOT_CONTAINS, OP_BEGINS_WITH, OP_IN, OP_BETWEEN
};

/* Argument counts and operand types per operator (DynamoDB Local's
 * LocalDBComparisonOperator; the API reference's "Legacy conditional
 * parameters" pages). */
static const struct {
    const char *name;
    enum cmp_op op;
    int min, max;                   /* AttributeValueList length */
    enum cmp_types types;
} cmp_ops[] = {
    { "EQ", OP_EQ, 1, 1, CT_ANY },
    { "NE", OP_NE, 1, 1, CT_ANY },
    { "LE", OP_LE, 1, 1, CT_SORTABLE },
    { "LT", OP_LT, 1, 1, CT_SORTABLE },
    { "GE", OP_GE, 1, 1, CT_SORTABLE },
    { "GT", OP_GT, 1, 1, CT_SORTABLE },
    { "NOT_NULL", OP_NOT_NULL, 0, 0, CT_ANY },
    { "NULL", OP_NULL, 0, 0, CT_ANY },
    { "CONTAINS", OP_CONTAINS, 1, 1, CT_SCALAR },
    { "NOT_CONTAINS", OP_NOT_CONTAINS, 1, 1, CT_SCALAR },
    { "BEGINS_WITH", OP_BEGINS_WITH, 1, 1, CT_STRING_BINARY },
    { "IN", OP_IN, 1, INT_MAX, CT_SORTABLE },
    { "BETWEEN", OP_BETWEEN, 2, 2, CT_SORTABLE },
};

#define CMP_COUNT (sizeof(cmp_ops) / sizeof(cmp_ops[0]))

static int
cmp_find(const char *name)
{
    size_t i;

    for (i = 0; name != NULL && i < CMP_COUNT; i++)
        if (strcmp(cmp_ops[i].name, name) == 0)
            return (int)i;
    return -1;
}

static bool
type_ok(enum cmp_types types, const char *t)
{
    switch (types) {
    case CT_ANY:
        return true;
    case CT_SORTABLE:
        return strcmp(t, "S") == 0 || strcmp(t, "N") == 0 ||
               strcmp(t, "B") == 0;
    case CT_SCALAR:
        return strcmp(t, "S") == 0 || strcmp(t, "N") == 0 ||
               strcmp(t, "B") == 0 || strcmp(t, "BOOL") == 0 ||
               strcmp(t, "NULL") == 0;
    case CT_STRING_BINARY:
        return strcmp(t, "S") == 0 || strcmp(t, "B") == 0;
    }
    return false;
}

/*
 * DynamoDB's checks of an operator's arguments (already validated
 * AttributeValues, keys[] into t->values): their number, each one's type,
 * all of one type, and BETWEEN's bounds in order.
 */
static int
check_args(const struct tr *t, int ci, char (*keys)[TR_KEY_MAX], int n,
           struct ddb_err *err)
{
    const char *first = NULL;
    int i;

    if (n < cmp_ops[ci].min || n > cmp_ops[ci].max)
        return ddb_err_set(err, DDB_VALIDATION, MSG_INVALID
                           "Invalid number of argument(s) for the %s "
                           "ComparisonOperator", cmp_ops[ci].name);
    for (i = 0; i < n; i++) {
        const char *ty = av_type(tr_value_get(t, keys[i]));

        if (ty == NULL)
            ty = "";
        if (first == NULL)
            first = ty;
        if (!type_ok(cmp_ops[ci].types, ty))
            return ddb_err_set(err, DDB_VALIDATION, MSG_INVALID
                               "ComparisonOperator %s is not valid for %s "
                               "AttributeValue type", cmp_ops[ci].name, ty);
        if (strcmp(ty, first) != 0)
            return ddb_err_set(err, DDB_VALIDATION, MSG_INVALID
                               "AttributeValues inside AttributeValueList "
                               "must be of same type");
    }
    if (cmp_ops[ci].op == OP_BETWEEN) {
        bool comparable = false;
        int c = av_compare(tr_value_get(t, keys[0]),
                           tr_value_get(t, keys[1]), &comparable);

        if (comparable && c > 0)
            return ddb_err_set(err, DDB_VALIDATION, MSG_BETWEEN);
    }
    return 0;
}

/*
 * Append one condition on the attribute named name with the legacy
 * semantics, as expression text. paren wraps it (it is one of several).
 * Legacy and expression semantics agree except NOT_CONTAINS, which is
 * false for a missing attribute in the legacy API (DynamoDB Local's
 * LocalDBComparisonOperator.NOT_CONTAINS) but true for "NOT contains()".
 * NE is true for a missing attribute in both.
 */
static void
emit_cond(struct tr *t, int ci, const char *name,
          char (*keys)[TR_KEY_MAX], int n, bool paren)
{
    static const char *const rel[] = {
        [OP_EQ] = "=", [OP_NE] = "<>", [OP_LE] = "<=", [OP_LT] = "<",
        [OP_GE] = ">=", [OP_GT] = ">"
    };
    struct strbuf *b = &t->text;
    int i;

    if (paren)
        strbuf_putc(b, '(');
    switch (cmp_ops[ci].op) {
    case OP_EQ: case OP_NE: case OP_LE: case OP_LT: case OP_GE: case OP_GT:
        strbuf_printf(b, "%s %s %s", name, rel[cmp_ops[ci].op], keys[0]);
        break;
    case OP_NOT_NULL:
        strbuf_printf(b, "attribute_exists(%s)", name);
        break;
    case OP_NULL:
        strbuf_printf(b, "attribute_not_exists(%s)", name);
        break;
    case OP_CONTAINS:
        strbuf_printf(b, "contains(%s, %s)", name, keys[0]);
        break;
    case OP_NOT_CONTAINS:
        strbuf_printf(b, "attribute_exists(%s) AND NOT contains(%s, %s)",
                      name, name, keys[0]);
        break;
    case OP_BEGINS_WITH:
        strbuf_printf(b, "begins_with(%s, %s)", name, keys[0]);
        break;
    case OP_IN:
        strbuf_printf(b, "%s IN (", name);
        for (i = 0; i < n; i++)
            strbuf_printf(b, "%s%s", i ? ", " : "", keys[i]);
        strbuf_putc(b, ')');
        break;
    case OP_BETWEEN:
        strbuf_printf(b, "%s BETWEEN %s AND %s", name, keys[0], keys[1]);
        break;
    }
    if (paren)
        strbuf_putc(b, ')');
}

/* The joiner for ConditionalOperator (validate.c checks the enum; this
 * repeats it for callers that did not run it). */
static int
conditional_op_check(const json_t *cop, size_t nconds, const char **joiner,
                     struct ddb_err *err)
{
    const char *s;

    *joiner = " AND ";
    if (legacy_absent(cop))
        return 0;
    s = json_string_value(cop);
    if (s == NULL)
        return ddb_err_set(err, DDB_SERIALIZATION,
                           json_is_boolean(cop) ?
                           (json_is_true(cop) ?
                            "TRUE_VALUE cannot be converted to String" :
                            "FALSE_VALUE cannot be converted to String") :
                           json_is_number(cop) ?
                           "NUMBER_VALUE cannot be converted to String" :
                           "Unexpected field type");
    if (strcmp(s, "AND") != 0 && strcmp(s, "OR") != 0)
        return ddb_err_set(err, DDB_VALIDATION,
                           "1 validation error detected: Value '%.1000s' at "
                           "'conditionalOperator' failed to satisfy "
                           "constraint: Member must satisfy enum value set: "
                           "[OR, AND]", s);
    if (nconds == 0)
        return ddb_err_set(err, DDB_VALIDATION, MSG_CONDOP_NONE);
    if (nconds == 1)
        return ddb_err_set(err, DDB_VALIDATION, MSG_CONDOP_ONE);
    if (strcmp(s, "OR") == 0)
        *joiner = " OR ";
    return 0;
}

/* Member name of the condition c (borrowed), or NULL when it is absent
 * or null. */
static const json_t *
get_member(const json_t *c, const char *name)
{
    const json_t *v = json_object_get(c, name);

    return legacy_absent(v) ? NULL : v;
}

/* The AttributeValueList member: absent (NULL), or an array. */
static int
get_avl(const json_t *c, const json_t **avl, struct ddb_err *err)
{
    *avl = get_member(c, "AttributeValueList");
    if (*avl != NULL && !json_is_array(*avl))
        return ddb_err_set(err, DDB_SERIALIZATION,
                           json_is_object(*avl) ?
                           "Start of structure or map found where not "
                           "expected" : "Unexpected field type");
    return 0;
}

/* A condition's n operands, Expected's Value alone (value) or the
 * elements of avl, validated into new values (keys, room for n), their
 * size counted. */
static int
add_values(struct tr *t, const json_t *value, const json_t *avl, size_t n,
           char (*keys)[TR_KEY_MAX], struct ddb_err *err)
{
    size_t i;

    for (i = 0; i < n; i++) {
        if (tr_value(t, value != NULL ? value : json_array_get(avl, i),
                     keys[i], err) != 0)
            return -1;
        t->size += av_size(tr_value_get(t, keys[i]));
    }
    return 0;
}

/* A ComparisonOperator (ops, may be NULL) that is not one of DynamoDB's:
 * the Coral enum message for member (e.g. "scanFilter", "expected") and
 * attr. Returns -1. */
static int
cop_enum_err(const char *ops, const char *member, const char *attr,
             struct ddb_err *err)
{
    return ddb_err_set(err, DDB_VALIDATION,
                       "1 validation error detected: Value '%.1000s' at "
                       "'%s.%.1000s.member.comparisonOperator' failed to "
                       "satisfy constraint: Member must satisfy enum "
                       "value set: [IN, NULL, BETWEEN, LT, NOT_CONTAINS, "
                       "EQ, GT, NOT_NULL, NE, LE, BEGINS_WITH, GE, "
                       "CONTAINS]", ops != NULL ? ops : "", member, attr);
}

/* ------------------------------------------------------------------------
 * Filters: QueryFilter, ScanFilter, KeyConditions
 * ---------------------------------------------------------------------- */

/* One Condition {ComparisonOperator, AttributeValueList}: validated and
 * appended. param names the member for Coral-style messages. */
static int
filter_cond(struct tr *t, const char *param, const char *attr,
            size_t attr_len, const json_t *c, bool paren,
            struct ddb_err *err)
{
    char name[TR_KEY_MAX];
    char (*keys)[TR_KEY_MAX] = NULL;
    const json_t *avl, *cop;
    const char *ops;
    size_t n;
    int ci, rc = -1;
    char lparam[64];

    snprintf(lparam, sizeof(lparam), "%s", param);
    lparam[0] = (char)(lparam[0] >= 'A' && lparam[0] <= 'Z' ?
                       lparam[0] - 'A' + 'a' : lparam[0]);
    if (legacy_absent(c))
        return ddb_err_set(err, DDB_VALIDATION,
                           "The filter condition for an attribute cannot be "
                           "null: %s", attr);
    if (!json_is_object(c))
        return ddb_err_set(err, DDB_SERIALIZATION, "Unexpected field type");
    cop = get_member(c, "ComparisonOperator");
    if (cop == NULL)
        return ddb_err_set(err, DDB_VALIDATION,
                           "1 validation error detected: Value null at "
                           "'%s.%.1000s.member.comparisonOperator' failed to "
                           "satisfy constraint: Member must not be null",
                           lparam, attr);
    ops = json_string_value(cop);
    ci = cmp_find(ops);
    if (ci < 0)
        return cop_enum_err(ops, lparam, attr, err);
    if (get_avl(c, &avl, err) != 0)
        return -1;
    n = avl != NULL ? json_array_size(avl) : 0;
    keys = xcalloc(n + 1, sizeof(*keys));
    if (add_values(t, NULL, avl, n, keys, err) != 0 ||
        check_args(t, ci, keys, (int)n, err) != 0)
        goto out;
    tr_name(t, attr, attr_len, name);
    emit_cond(t, ci, name, keys, (int)n, paren);
    rc = 0;
out:
    free(keys);
    return rc;
}

/* Checks one condition of a map ({attr: condition}) and appends it to t
 * (filter_cond, expected_one); paren when the map has several. */
typedef int cond_one_fn(struct tr *t, const char *param, const char *attr,
                        size_t attr_len, const json_t *c, bool paren,
                        struct ddb_err *err);

/* The conditions of a map (a filter, KeyConditions, Expected), each run
 * through one, joined by joiner, translated into out (zeroed by the
 * caller). */
static int
cond_map(const char *param, const json_t *map, const char *joiner,
         cond_one_fn *one, struct legacy_expr *out, struct ddb_err *err)
{
    size_t n = json_object_size(map), i = 0, attr_len;
    const char *attr;
    json_t *c;
    struct tr t;
    int rc = -1;

    tr_init(&t);
    json_object_keylen_foreach((json_t *)map, attr, attr_len, c) {
        if (i > 0)
            strbuf_puts(&t.text, joiner);
        if (one(&t, param, attr, attr_len, c, n > 1, err) != 0)
            goto out;
        i++;
    }
    tr_finish(&t, out);
    rc = 0;
out:
    tr_fini(&t);
    return rc;
}

/*
 * A condition map with its ConditionalOperator (ScanFilter, QueryFilter,
 * Expected): absent is fine, else a map whose size the operator accepts;
 * each condition goes through one into out.
 */
static int
cond_map_op(const json_t *map, const json_t *conditional_op,
            const char *param, cond_one_fn *one, struct legacy_expr *out,
            struct ddb_err *err)
{
    const char *joiner;

    memset(out, 0, sizeof(*out));
    if (legacy_absent(map))
        return conditional_op_check(conditional_op, 0, &joiner, err);
    if (legacy_require_map(map, err) != 0 ||
        conditional_op_check(conditional_op, json_object_size(map),
                             &joiner, err) != 0)
        return -1;
    return cond_map(param, map, joiner, one, out, err);
}

int
legacy_filter(const json_t *filter, const json_t *conditional_op,
              const char *param, struct legacy_expr *out,
              struct ddb_err *err)
{
    if (param == NULL)
        param = "ScanFilter";
    return cond_map_op(filter, conditional_op, param, filter_cond, out, err);
}

/*
 * KeyConditions: each condition is checked like a filter's, then their
 * number. The checks against the key schema (hash key by EQ only, sort key
 * by EQ LE LT GE GT BEGINS_WITH BETWEEN, "Attempted conditional constraint
 * is not an indexable operation", "Query condition missed key schema
 * element: X") need the table: api/ops/query.c's check_key_schema() and
 * expr_keycond() make them, so every operator is translated here. So does
 * the limit of 2 conditions: a GSI with a multi-attribute key takes one
 * per key attribute, up to 8 (DynamoDB accepts KeyConditions on such a GSI
 * as on any other: scylladb/scylladb issue 31393, 2026-08, observed
 * against DynamoDB); more than 8 fit no key.
 */
int
legacy_key_conditions(const json_t *conds, struct legacy_expr *out,
                      struct ddb_err *err)
{
    size_t n = json_object_size(conds);

    memset(out, 0, sizeof(*out));
    if (legacy_absent(conds))
        return 0;
    if (legacy_require_map(conds, err) != 0 ||
        cond_map("KeyConditions", conds, " AND ", filter_cond, out,
                 err) != 0)
        return -1;
    if (n < 1 || n > 2 * LEGACY_KEY_ATTRS_MAX) {
        legacy_expr_fini(out);
        return ddb_err_set(err, DDB_VALIDATION,
                           "Conditions can be of length 1 or 2 only");
    }
    return 0;
}

/* ------------------------------------------------------------------------
 * Expected
 * ---------------------------------------------------------------------- */

/* Exists as a tri-state: -1 absent, 0 false, 1 true. */
static int
get_exists(const json_t *e, int *exists, struct ddb_err *err)
{
    const json_t *v = json_object_get(e, "Exists");

    *exists = -1;
    if (legacy_absent(v))
        return 0;
    if (json_is_boolean(v)) {
        *exists = json_is_true(v) ? 1 : 0;
        return 0;
    }
    if (json_is_string(v)) {
        /* Coral reads "true"/"1"/"yes" and "false"/"0"/"no" as booleans. */
        const char *s = json_string_value(v);

        if (strcasecmp(s, "true") == 0 || strcmp(s, "1") == 0 ||
            strcasecmp(s, "yes") == 0)
            *exists = 1;
        else if (strcasecmp(s, "false") == 0 || strcmp(s, "0") == 0 ||
                 strcasecmp(s, "no") == 0)
            *exists = 0;
        else
            return ddb_err_set(err, DDB_SERIALIZATION,
                               "Unexpected token received from parser");
        return 0;
    }
    return ddb_err_set(err, DDB_SERIALIZATION,
                       json_is_number(v) ?
                       "NUMBER_VALUE cannot be converted to Boolean" :
                       json_is_array(v) ?
                       "Unrecognized collection type class java.lang.Boolean" :
                       "Start of structure or map found where not expected");
}

/*
 * The structural rules of one ExpectedAttributeValue, in DynamoDB's order
 * (DynamoDB Local's InputConverter.validateExpectedAttribute).
 */
static int
expected_check(const char *attr, int exists, const json_t *cop,
               const json_t *value, const json_t *avl, struct ddb_err *err)
{
    if (exists >= 0 && cop != NULL)
        return ddb_err_set(err, DDB_VALIDATION, MSG_INVALID
                           "Exists and ComparisonOperator cannot be used "
                           "together for Attribute: %s", attr);
    if (value != NULL && avl != NULL)
        return ddb_err_set(err, DDB_VALIDATION, MSG_INVALID
                           "Value and AttributeValueList cannot be used "
                           "together for Attribute: %s", attr);
    if (cop == NULL && avl != NULL)
        return ddb_err_set(err, DDB_VALIDATION, MSG_INVALID
                           "AttributeValueList can only be used with a "
                           "ComparisonOperator for Attribute: %s", attr);
    if (exists == 0 && value != NULL)
        return ddb_err_set(err, DDB_VALIDATION, MSG_INVALID
                           "Value cannot be used when Exists is false for "
                           "Attribute: %s", attr);
    if (value == NULL && avl == NULL) {
        if (cop != NULL) {
            const char *op = json_string_value(cop);

            if (op == NULL)
                op = "";
            if (strcmp(op, "NOT_NULL") != 0 && strcmp(op, "NULL") != 0)
                return ddb_err_set(err, DDB_VALIDATION, MSG_INVALID
                                   "Value or AttributeValueList must be used "
                                   "with ComparisonOperator: %s for "
                                   "Attribute: %s", op, attr);
        } else if (exists != 0) {
            return ddb_err_set(err, DDB_VALIDATION, MSG_INVALID
                               "Value must be provided when Exists is %s "
                               "for Attribute: %s",
                               exists < 0 ? "null" : "true", attr);
        }
    }
    return 0;
}

/* One ExpectedAttributeValue: checked, its values validated, appended
 * (a cond_one_fn; param is unused: Expected's messages name no member). */
static int
expected_one(struct tr *t, const char *param, const char *attr,
             size_t attr_len, const json_t *e, bool paren,
             struct ddb_err *err)
{
    char name[TR_KEY_MAX];
    char (*keys)[TR_KEY_MAX] = NULL;
    const json_t *cop, *value, *avl;
    size_t n = 0;
    int exists, ci = -1, rc = -1;

    (void)param;
    if (legacy_absent(e))
        return ddb_err_set(err, DDB_VALIDATION, MSG_INVALID
                           "ExpectedAttributeValue must not be null for "
                           "Attribute: %s", attr);
    if (!json_is_object(e))
        return ddb_err_set(err, DDB_SERIALIZATION, "Unexpected field type");
    cop = get_member(e, "ComparisonOperator");
    value = get_member(e, "Value");
    if (get_exists(e, &exists, err) != 0 || get_avl(e, &avl, err) != 0)
        return -1;
    if (cop != NULL) {
        ci = cmp_find(json_string_value(cop));
        if (ci < 0)
            return cop_enum_err(json_string_value(cop), "expected", attr,
                                err);
    }
    if (expected_check(attr, exists, cop, value, avl, err) != 0)
        return -1;

    n = value != NULL ? 1 : avl != NULL ? json_array_size(avl) : 0;
    keys = xcalloc(n + 1, sizeof(*keys));
    t->size += attr_len;
    if (add_values(t, value, avl, n, keys, err) != 0)
        goto out;
    if (t->size > ITEM_SIZE_MAX) {
        ddb_err_set(err, DDB_VALIDATION, MSG_ITEM_SIZE);
        goto out;
    }
    if (ci >= 0 && check_args(t, ci, keys, (int)n, err) != 0)
        goto out;

    tr_name(t, attr, attr_len, name);
    if (ci >= 0)
        emit_cond(t, ci, name, keys, (int)n, paren);
    else if (exists == 0)
        emit_cond(t, cmp_find("NULL"), name, keys, 0, paren);
    else
        emit_cond(t, cmp_find("EQ"), name, keys, 1, paren);
    rc = 0;
out:
    free(keys);
    return rc;
}

/*
 * Expected: {attr: {Value, Exists, ComparisonOperator,
 * AttributeValueList}}. Value alone (or with Exists: true) means "equals";
 * Exists: false means "does not exist"; a ComparisonOperator works as in a
 * filter, with Value standing for a one-element AttributeValueList.
 */
int
legacy_expected(const json_t *expected, const json_t *conditional_op,
                struct legacy_expr *out, struct ddb_err *err)
{
    return cond_map_op(expected, conditional_op, NULL, expected_one, out,
                       err);
}
