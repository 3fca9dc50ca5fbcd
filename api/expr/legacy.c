/* SPDX-License-Identifier: MIT */
/* legacy.c - the pre-expression API: Expected, ConditionalOperator,
 * QueryFilter/ScanFilter, KeyConditions, AttributesToGet and
 * AttributeUpdates are checked with DynamoDB's messages, then rewritten as
 * expression text over synthetic "#lN" names and ":lN" values, so
 * expr_parse()/expr_eval() serve both styles (op_common.c glues them). */
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "api/proto/av.h"
#include "api/expr/legacy.h"
#include "storage/util.h"

#define MSG_INVALID "One or more parameter values were invalid: "
#define MSG_MIXED "Can not use both expression and non-expression " \
                  "parameters in the same request: "
#define MSG_CONDOP_NONE "ConditionalOperator cannot be used without " \
                        "Filter or Expected"
#define MSG_CONDOP_ONE "ConditionalOperator can only be used when Filter " \
                       "or Expected has two or more elements"
#define MSG_BETWEEN "The BETWEEN condition was provided a range where the " \
                    "lower bound is greater than the upper bound"
#define MSG_ITEM_SIZE "Item size has exceeded the maximum allowed size"
#define MSG_UPD_SIZE "Item size to update has exceeded the maximum allowed " \
                     "size"

/* ------------------------------------------------------------------------
 * Growable text. Like tmux's xmalloc, running out of memory aborts: an
 * emulator cannot recover from it, and error paths stay for user input.
 * ---------------------------------------------------------------------- */

struct sbuf {
    char *s;                        /* NUL-terminated, malloc'd */
    size_t len, cap;
};

static void
sb_add(struct sbuf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
sb_add(struct sbuf *b, const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        abort();
    if (b->len + (size_t)n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 64;

        while (cap < b->len + (size_t)n + 1)
            cap *= 2;
        b->s = xrealloc(b->s, cap);
        b->cap = cap;
    }
    va_start(ap, fmt);
    vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

/* Hand the text over (an empty string when nothing was added). */
static char *
sb_take(struct sbuf *b)
{
    char *s = b->s;

    if (s == NULL) {
        s = xstrdup("");
    }
    memset(b, 0, sizeof(*b));
    return s;
}

static void
sb_free(struct sbuf *b)
{
    free(b->s);
    memset(b, 0, sizeof(*b));
}

static json_t *
obj_new(void)
{
    json_t *o = json_object();

    if (o == NULL)
        abort();
    return o;
}

/* ------------------------------------------------------------------------
 * Request members
 * ---------------------------------------------------------------------- */

/* A member is present unless absent or JSON null (DynamoDB's "!= null"). */
static bool
present(const json_t *req, const char *name)
{
    const json_t *v = json_object_get(req, name);

    return v != NULL && !json_is_null(v);
}

static bool
is_absent(const json_t *v)
{
    return v == NULL || json_is_null(v);
}

/* Members per Coral type errors, for input validate.c should already have
 * rejected (handlers called without it, e.g. from tests). */
static int
require_map(const json_t *v, struct ddb_err *err)
{
    if (json_is_object(v))
        return 0;
    if (json_is_array(v))
        return ddb_err_set(err, DDB_SERIALIZATION,
                           "Unrecognized collection type java.util.Map");
    return ddb_err_set(err, DDB_SERIALIZATION, "Unexpected field type");
}

/* ------------------------------------------------------------------------
 * Expression/legacy mix
 * ---------------------------------------------------------------------- */

/* Bits for the members DynamoDB lists in the mix message, in the order it
 * lists them (DynamoDB Local's InputConverter, confirmed against the
 * service by dynalite's recorded messages). */
enum {
    NX_ATTRIBUTE_UPDATES = 1 << 0,
    NX_ATTRIBUTES_TO_GET = 1 << 1,
    NX_EXPECTED = 1 << 2,
    NX_QUERY_FILTER = 1 << 3,
    NX_SCAN_FILTER = 1 << 4,
    NX_CONDITIONAL_OPERATOR = 1 << 5,
    NX_KEY_CONDITIONS = 1 << 6,
    NX_ALL = (1 << 7) - 1
};
static const char *const nonexpr_members[] = {
    "AttributeUpdates", "AttributesToGet", "Expected", "QueryFilter",
    "ScanFilter", "ConditionalOperator", "KeyConditions"
};

enum {
    EX_UPDATE = 1 << 0,
    EX_PROJECTION = 1 << 1,
    EX_CONDITION = 1 << 2,
    EX_FILTER = 1 << 3,
    EX_KEY_CONDITION = 1 << 4,
    EX_ALL = (1 << 5) - 1
};
static const char *const expr_members[] = {
    "UpdateExpression", "ProjectionExpression", "ConditionExpression",
    "FilterExpression", "KeyConditionExpression"
};

/* What each operation accepts, and how it words "ExpressionAttributeValues
 * can only be specified when using expressions: ..." (NULL: the operation
 * has no ExpressionAttributeValues). */
struct mix_op {
    const char *name;
    unsigned nonexpr, expr;
    unsigned value_exprs;           /* expressions that use values */
    const char *values_msg;
};

static const struct mix_op mix_ops[] = {
    { "GetItem", NX_ATTRIBUTES_TO_GET, EX_PROJECTION, 0, NULL },
    { "BatchGetItem", NX_ATTRIBUTES_TO_GET, EX_PROJECTION, 0, NULL },
    { "PutItem", NX_EXPECTED | NX_CONDITIONAL_OPERATOR, EX_CONDITION,
      EX_CONDITION, "ConditionExpression is null" },
    { "DeleteItem", NX_EXPECTED | NX_CONDITIONAL_OPERATOR, EX_CONDITION,
      EX_CONDITION, "ConditionExpression is null" },
    { "UpdateItem",
      NX_ATTRIBUTE_UPDATES | NX_EXPECTED | NX_CONDITIONAL_OPERATOR,
      EX_UPDATE | EX_CONDITION, EX_UPDATE | EX_CONDITION,
      "UpdateExpression and ConditionExpression are null" },
    { "Query",
      NX_ATTRIBUTES_TO_GET | NX_QUERY_FILTER | NX_CONDITIONAL_OPERATOR |
      NX_KEY_CONDITIONS,
      EX_PROJECTION | EX_FILTER | EX_KEY_CONDITION,
      EX_FILTER | EX_KEY_CONDITION,
      "FilterExpression and KeyConditionExpression are null" },
    { "Scan", NX_ATTRIBUTES_TO_GET | NX_SCAN_FILTER | NX_CONDITIONAL_OPERATOR,
      EX_PROJECTION | EX_FILTER, EX_FILTER, "FilterExpression is null" },
};

/* Every member, no values message: an operation we cannot tell. */
static const struct mix_op mix_any = { NULL, NX_ALL, EX_ALL, 0, NULL };

static const struct mix_op *
mix_op_find(const char *name)
{
    size_t i;

    for (i = 0; name != NULL && i < sizeof(mix_ops) / sizeof(mix_ops[0]);
         i++)
        if (strcmp(mix_ops[i].name, name) == 0)
            return &mix_ops[i];
    return NULL;
}

/*
 * The operation a request is for, from its members: legacy_check_mix()
 * gets only the request. Item -> PutItem; AttributeUpdates or
 * UpdateExpression -> UpdateItem; Key -> UpdateItem when ReturnValues is
 * one only UpdateItem has, GetItem when it reads (ConsistentRead,
 * ProjectionExpression, AttributesToGet), else DeleteItem (so an
 * UpdateItem without any update is worded as DeleteItem); Keys ->
 * BatchGetItem; Query-only members -> Query; anything else -> Scan.
 */
static const struct mix_op *
mix_op_guess(const json_t *req)
{
    if (present(req, "Item"))
        return mix_op_find("PutItem");
    if (present(req, "AttributeUpdates") || present(req, "UpdateExpression"))
        return mix_op_find("UpdateItem");
    if (present(req, "Key")) {
        const char *rv = json_string_value(json_object_get(req,
                                                           "ReturnValues"));

        if (rv != NULL && (strcmp(rv, "ALL_NEW") == 0 ||
                           strcmp(rv, "UPDATED_OLD") == 0 ||
                           strcmp(rv, "UPDATED_NEW") == 0))
            return mix_op_find("UpdateItem");
        if (present(req, "ConsistentRead") ||
            present(req, "ProjectionExpression") ||
            present(req, "AttributesToGet"))
            return mix_op_find("GetItem");
        return mix_op_find("DeleteItem");
    }
    if (present(req, "Keys"))
        return mix_op_find("BatchGetItem");
    if (present(req, "KeyConditions") ||
        present(req, "KeyConditionExpression") ||
        present(req, "QueryFilter") || present(req, "ScanIndexForward"))
        return mix_op_find("Query");
    if (present(req, "TableName"))
        return mix_op_find("Scan");
    return &mix_any;
}

/* "{A, B}" of the members in mask that are present. */
static void
member_set(struct sbuf *b, const char *const *names, size_t n, unsigned mask)
{
    size_t i;
    bool first = true;

    sb_add(b, "{");
    for (i = 0; i < n; i++) {
        if (!(mask & (1u << i)))
            continue;
        sb_add(b, "%s%s", first ? "" : ", ", names[i]);
        first = false;
    }
    sb_add(b, "}");
}

int
legacy_check_mix_op(const json_t *req, const char *op, struct ddb_err *err)
{
    const struct mix_op *m = op != NULL ? mix_op_find(op) : NULL;
    unsigned nx = 0, ex = 0;
    size_t i, nconds;

    if (!json_is_object(req))
        return 0;
    if (m == NULL)
        m = op != NULL ? &mix_any : mix_op_guess(req);

    for (i = 0; i < sizeof(expr_members) / sizeof(expr_members[0]); i++)
        if ((m->expr & (1u << i)) && present(req, expr_members[i]))
            ex |= 1u << i;
    for (i = 0; i < sizeof(nonexpr_members) / sizeof(nonexpr_members[0]);
         i++)
        if ((m->nonexpr & (1u << i)) && present(req, nonexpr_members[i]))
            nx |= 1u << i;
    /* KeyConditions mixes only with KeyConditionExpression: KeyConditions
     * plus FilterExpression/ProjectionExpression is a valid Query. */
    if (!(ex & EX_KEY_CONDITION))
        nx &= ~(unsigned)NX_KEY_CONDITIONS;

    if (nx != 0 && ex != 0) {
        struct sbuf b = { 0 };

        member_set(&b, nonexpr_members,
                   sizeof(nonexpr_members) / sizeof(nonexpr_members[0]), nx);
        sb_add(&b, " Expression parameters: ");
        member_set(&b, expr_members,
                   sizeof(expr_members) / sizeof(expr_members[0]), ex);
        ddb_err_set(err, DDB_VALIDATION,
                    MSG_MIXED "Non-expression parameters: %s", b.s);
        sb_free(&b);
        return -1;
    }
    if (present(req, "ExpressionAttributeNames") && ex == 0)
        return ddb_err_set(err, DDB_VALIDATION,
                           "ExpressionAttributeNames can only be specified "
                           "when using expressions");
    if (present(req, "ExpressionAttributeValues") && m->values_msg != NULL &&
        (ex & m->value_exprs) == 0)
        return ddb_err_set(err, DDB_VALIDATION,
                           "ExpressionAttributeValues can only be specified "
                           "when using expressions: %s", m->values_msg);

    /* ConditionalOperator needs an Expected/QueryFilter/ScanFilter with two
     * or more conditions; KeyConditions do not count. */
    if (present(req, "ConditionalOperator") &&
        (m->nonexpr & NX_CONDITIONAL_OPERATOR)) {
        nconds = 0;
        if (m->nonexpr & NX_EXPECTED)
            nconds += json_object_size(json_object_get(req, "Expected"));
        if (m->nonexpr & NX_QUERY_FILTER)
            nconds += json_object_size(json_object_get(req, "QueryFilter"));
        if (m->nonexpr & NX_SCAN_FILTER)
            nconds += json_object_size(json_object_get(req, "ScanFilter"));
        if (nconds == 0)
            return ddb_err_set(err, DDB_VALIDATION, MSG_CONDOP_NONE);
        if (nconds == 1)
            return ddb_err_set(err, DDB_VALIDATION, MSG_CONDOP_ONE);
    }
    return 0;
}

int
legacy_check_mix(const json_t *req, struct ddb_err *err)
{
    return legacy_check_mix_op(req, NULL, err);
}

/* ------------------------------------------------------------------------
 * Translation state: the text and the synthetic names and values
 * ---------------------------------------------------------------------- */

struct tr {
    struct sbuf text;
    json_t *names;                  /* owned until handed to out */
    json_t *values;
    unsigned nnames, nvalues;
    size_t size;                    /* running bytes, for the size limits */
};

#define TR_KEY_MAX 16               /* "#l4294967295" */

static void
tr_init(struct tr *t)
{
    memset(t, 0, sizeof(*t));
    t->names = obj_new();
    t->values = obj_new();
}

static void
tr_fini(struct tr *t)
{
    sb_free(&t->text);
    json_decref(t->names);
    json_decref(t->values);
    memset(t, 0, sizeof(*t));
}

/* Move the result into out (zeroed by the caller). An empty map stays
 * NULL: expr_env_new() rejects "ExpressionAttributeValues must not be
 * empty", and "attribute_exists(#l0)" needs no values. */
static void
tr_finish(struct tr *t, struct legacy_expr *out)
{
    out->text = sb_take(&t->text);
    if (json_object_size(t->names) > 0) {
        out->names = t->names;
        t->names = NULL;
    }
    if (json_object_size(t->values) > 0) {
        out->values = t->values;
        t->values = NULL;
    }
}

/* A new "#lN" for attribute name attr (key written to key). */
static void
tr_name(struct tr *t, const char *attr, char key[TR_KEY_MAX])
{
    json_t *s;

    snprintf(key, TR_KEY_MAX, "#l%u", t->nnames++);
    s = json_stringn_nocheck(attr, strlen(attr));   /* keys are UTF-8 */
    if (s == NULL)
        abort();
    json_object_set_new(t->names, key, s);
}

/* A new ":lN" holding a validated, canonicalised copy of av. */
static int
tr_value(struct tr *t, const json_t *av, char key[TR_KEY_MAX],
         struct ddb_err *err)
{
    json_t *copy;

    copy = av != NULL ? json_deep_copy(av) : json_null();
    if (copy == NULL)
        abort();
    if (av_validate(copy, 0, err) != 0) {
        json_decref(copy);
        return -1;
    }
    snprintf(key, TR_KEY_MAX, ":l%u", t->nvalues++);
    json_object_set_new(t->values, key, copy);
    return 0;
}

static const json_t *
tr_value_get(const struct tr *t, const char *key)
{
    return json_object_get(t->values, key);
}

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
    struct sbuf *b = &t->text;
    int i;

    if (paren)
        sb_add(b, "(");
    switch (cmp_ops[ci].op) {
    case OP_EQ: case OP_NE: case OP_LE: case OP_LT: case OP_GE: case OP_GT:
        sb_add(b, "%s %s %s", name, rel[cmp_ops[ci].op], keys[0]);
        break;
    case OP_NOT_NULL:
        sb_add(b, "attribute_exists(%s)", name);
        break;
    case OP_NULL:
        sb_add(b, "attribute_not_exists(%s)", name);
        break;
    case OP_CONTAINS:
        sb_add(b, "contains(%s, %s)", name, keys[0]);
        break;
    case OP_NOT_CONTAINS:
        sb_add(b, "attribute_exists(%s) AND NOT contains(%s, %s)", name,
               name, keys[0]);
        break;
    case OP_BEGINS_WITH:
        sb_add(b, "begins_with(%s, %s)", name, keys[0]);
        break;
    case OP_IN:
        sb_add(b, "%s IN (", name);
        for (i = 0; i < n; i++)
            sb_add(b, "%s%s", i ? ", " : "", keys[i]);
        sb_add(b, ")");
        break;
    case OP_BETWEEN:
        sb_add(b, "%s BETWEEN %s AND %s", name, keys[0], keys[1]);
        break;
    }
    if (paren)
        sb_add(b, ")");
}

/* The joiner for ConditionalOperator (validate.c checks the enum; this
 * repeats it for callers that did not run it). */
static int
conditional_op_check(const json_t *cop, size_t nconds, const char **joiner,
               struct ddb_err *err)
{
    const char *s;

    *joiner = " AND ";
    if (is_absent(cop))
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

/* The AttributeValueList member: absent, or an array. */
static int
get_avl(const json_t *c, const json_t **avl, struct ddb_err *err)
{
    *avl = json_object_get(c, "AttributeValueList");
    if (is_absent(*avl)) {
        *avl = NULL;
        return 0;
    }
    if (!json_is_array(*avl))
        return ddb_err_set(err, DDB_SERIALIZATION,
                           json_is_object(*avl) ?
                           "Start of structure or map found where not "
                           "expected" : "Unexpected field type");
    return 0;
}

/* Validate args[0..n-1] into new values (keys), counting their size.
 * keys has room for n entries. */
static int
add_values(struct tr *t, const json_t *const *args, size_t n,
           char (*keys)[TR_KEY_MAX], struct ddb_err *err)
{
    size_t i;

    for (i = 0; i < n; i++) {
        if (tr_value(t, args[i], keys[i], err) != 0)
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
            const json_t *c, bool paren, struct ddb_err *err)
{
    char name[TR_KEY_MAX];
    char (*keys)[TR_KEY_MAX] = NULL;
    const json_t **args = NULL;
    const json_t *avl, *cop;
    const char *ops;
    size_t n, i;
    int ci, rc = -1;
    char lparam[64];

    snprintf(lparam, sizeof(lparam), "%s", param);
    lparam[0] = (char)(lparam[0] >= 'A' && lparam[0] <= 'Z' ?
                       lparam[0] - 'A' + 'a' : lparam[0]);
    if (is_absent(c))
        return ddb_err_set(err, DDB_VALIDATION,
                           "The filter condition for an attribute cannot be "
                           "null: %s", attr);
    if (!json_is_object(c))
        return ddb_err_set(err, DDB_SERIALIZATION, "Unexpected field type");
    cop = json_object_get(c, "ComparisonOperator");
    if (is_absent(cop))
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
    args = xcalloc(n + 1, sizeof(*args));
    for (i = 0; i < n; i++)
        args[i] = json_array_get(avl, i);
    if (add_values(t, args, n, keys, err) != 0 ||
        check_args(t, ci, keys, (int)n, err) != 0)
        goto out;
    tr_name(t, attr, name);
    emit_cond(t, ci, name, keys, (int)n, paren);
    rc = 0;
out:
    free(keys);
    free(args);
    return rc;
}

/* Checks one condition of a map ({attr: condition}) and appends it to t
 * (filter_cond, expected_one); paren when the map has several. */
typedef int cond_one_fn(struct tr *t, const char *param, const char *attr,
                        const json_t *c, bool paren, struct ddb_err *err);

/* The conditions of a map (a filter, KeyConditions, Expected), each run
 * through one, joined by joiner. */
static int
cond_map(struct tr *t, const char *param, const json_t *map,
         const char *joiner, cond_one_fn *one, struct ddb_err *err)
{
    size_t n = json_object_size(map), i = 0;
    const char *attr;
    json_t *c;

    json_object_foreach((json_t *)map, attr, c) {
        if (i > 0)
            sb_add(&t->text, "%s", joiner);
        if (one(t, param, attr, c, n > 1, err) != 0)
            return -1;
        i++;
    }
    return 0;
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
    struct tr t;
    const char *joiner;
    int rc = -1;

    memset(out, 0, sizeof(*out));
    if (is_absent(map))
        return conditional_op_check(conditional_op, 0, &joiner, err);
    if (require_map(map, err) != 0 ||
        conditional_op_check(conditional_op, json_object_size(map),
                             &joiner, err) != 0)
        return -1;
    tr_init(&t);
    if (cond_map(&t, param, map, joiner, one, err) != 0)
        goto out;
    tr_finish(&t, out);
    rc = 0;
out:
    tr_fini(&t);
    return rc;
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
 * element: X") need the table: op_query.c's check_key_schema() and
 * expr_keycond() make them, so every operator is translated here.
 */
int
legacy_key_conditions(const json_t *conds, struct legacy_expr *out,
                      struct ddb_err *err)
{
    struct tr t;
    size_t n;
    int rc = -1;

    memset(out, 0, sizeof(*out));
    if (is_absent(conds))
        return 0;
    if (require_map(conds, err) != 0)
        return -1;
    tr_init(&t);
    if (cond_map(&t, "KeyConditions", conds, " AND ", filter_cond, err) != 0)
        goto out;
    n = json_object_size(conds);
    if (n != 1 && n != 2) {
        ddb_err_set(err, DDB_VALIDATION,
                    "Conditions can be of length 1 or 2 only");
        goto out;
    }
    tr_finish(&t, out);
    rc = 0;
out:
    tr_fini(&t);
    return rc;
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
    if (is_absent(v))
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
             const json_t *e, bool paren, struct ddb_err *err)
{
    char name[TR_KEY_MAX];
    char (*keys)[TR_KEY_MAX] = NULL;
    const json_t **args = NULL;
    const json_t *cop, *value, *avl;
    size_t n = 0, i;
    int exists, ci = -1, rc = -1;

    (void)param;
    if (is_absent(e))
        return ddb_err_set(err, DDB_VALIDATION, MSG_INVALID
                           "ExpectedAttributeValue must not be null for "
                           "Attribute: %s", attr);
    if (!json_is_object(e))
        return ddb_err_set(err, DDB_SERIALIZATION, "Unexpected field type");
    cop = json_object_get(e, "ComparisonOperator");
    if (is_absent(cop))
        cop = NULL;
    value = json_object_get(e, "Value");
    if (is_absent(value))
        value = NULL;
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
    args = xcalloc(n + 1, sizeof(*args));
    for (i = 0; i < n; i++)
        args[i] = value != NULL ? value : json_array_get(avl, i);
    t->size += strlen(attr);
    if (add_values(t, args, n, keys, err) != 0)
        goto out;
    if (t->size > ITEM_SIZE_MAX) {
        ddb_err_set(err, DDB_VALIDATION, MSG_ITEM_SIZE);
        goto out;
    }
    if (ci >= 0 && check_args(t, ci, keys, (int)n, err) != 0)
        goto out;

    tr_name(t, attr, name);
    if (ci >= 0)
        emit_cond(t, ci, name, keys, (int)n, paren);
    else if (exists == 0)
        emit_cond(t, cmp_find("NULL"), name, keys, 0, paren);
    else
        emit_cond(t, cmp_find("EQ"), name, keys, 1, paren);
    rc = 0;
out:
    free(keys);
    free(args);
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

/* ------------------------------------------------------------------------
 * AttributesToGet
 * ---------------------------------------------------------------------- */

/* AttributesToGet: ["a", "b"] -> "#l0, #l1", every name top-level. */
int
legacy_attributes_to_get(const json_t *atg, struct legacy_expr *out,
                         struct ddb_err *err)
{
    struct tr t;
    char name[TR_KEY_MAX];
    size_t i, j, n;
    int rc = -1;

    memset(out, 0, sizeof(*out));
    if (is_absent(atg))
        return 0;
    if (!json_is_array(atg))
        return ddb_err_set(err, DDB_SERIALIZATION,
                           json_is_object(atg) ?
                           "Start of structure or map found where not "
                           "expected" : "Unexpected field type");
    n = json_array_size(atg);
    if (n == 0)
        return ddb_err_set(err, DDB_VALIDATION,
                           "1 validation error detected: Value '[]' at "
                           "'attributesToGet' failed to satisfy constraint: "
                           "Member must have length greater than or equal "
                           "to 1");
    for (i = 0; i < n; i++) {
        const json_t *v = json_array_get(atg, i);

        if (!json_is_string(v))
            return ddb_err_set(err, DDB_SERIALIZATION,
                               json_is_number(v) ?
                               "NUMBER_VALUE cannot be converted to String" :
                               json_is_object(v) ?
                               "Start of structure or map found where not "
                               "expected" : "Unexpected field type");
    }
    for (i = 0; i < n; i++)
        for (j = 0; j < i; j++)
            if (json_equal(json_array_get(atg, i), json_array_get(atg, j)))
                return ddb_err_set(err, DDB_VALIDATION, MSG_INVALID
                                   "Duplicate value in attribute name: "
                                   "%.3000s",
                                   json_string_value(json_array_get(atg,
                                                                    i)));
    tr_init(&t);
    for (i = 0; i < n; i++) {
        tr_name(&t, json_string_value(json_array_get(atg, i)), name);
        sb_add(&t.text, "%s%s", i ? ", " : "", name);
    }
    tr_finish(&t, out);
    rc = 0;
    tr_fini(&t);
    return rc;
}

/* ------------------------------------------------------------------------
 * AttributeUpdates
 * ---------------------------------------------------------------------- */

static bool
is_set_type(const char *t)
{
    return strcmp(t, "SS") == 0 || strcmp(t, "NS") == 0 ||
           strcmp(t, "BS") == 0;
}

/*
 * AttributeUpdates: {attr: {Action, Value}} -> one UpdateExpression.
 * PUT (the default) -> SET #a = :v; DELETE without Value -> REMOVE #a;
 * DELETE with a set -> DELETE #a :v; ADD a number or set -> ADD #a :v;
 * ADD a list appends, creating the list when missing ->
 * SET #a = list_append(if_not_exists(#a, :empty), :v). Key attributes are
 * rejected later by expr_update_check() ("Cannot update attribute pk. This
 * attribute is part of the key").
 */
int
legacy_attribute_updates(const json_t *updates, struct legacy_expr *out,
                         struct ddb_err *err)
{
    struct tr t;
    struct sbuf set = { 0 }, rem = { 0 }, add = { 0 }, del = { 0 };
    char name[TR_KEY_MAX], val[TR_KEY_MAX], empty[TR_KEY_MAX] = "";
    const char *attr;
    json_t *u;
    int rc = -1;

    memset(out, 0, sizeof(*out));
    if (is_absent(updates))
        return 0;
    if (require_map(updates, err) != 0)
        return -1;
    tr_init(&t);
    json_object_foreach((json_t *)updates, attr, u) {
        const json_t *action, *value;
        const char *act, *ty = NULL;

        if (is_absent(u)) {
            ddb_err_set(err, DDB_VALIDATION,
                        "Supplied AttributeValueUpdate is empty, must "
                        "contain one of the supported actions: %.1000s is "
                        "null", attr);
            goto out;
        }
        if (!json_is_object(u)) {
            ddb_err_set(err, DDB_SERIALIZATION, "Unexpected field type");
            goto out;
        }
        action = json_object_get(u, "Action");
        act = is_absent(action) ? "PUT" : json_string_value(action);
        if (act == NULL) {
            ddb_err_set(err, DDB_SERIALIZATION,
                        json_is_number(action) ?
                        "NUMBER_VALUE cannot be converted to String" :
                        "Unexpected field type");
            goto out;
        }
        if (strcmp(act, "PUT") != 0 && strcmp(act, "ADD") != 0 &&
            strcmp(act, "DELETE") != 0) {
            ddb_err_set(err, DDB_VALIDATION,
                        "1 validation error detected: Value '%.1000s' at "
                        "'attributeUpdates.%.1000s.member.action' failed to "
                        "satisfy constraint: Member must satisfy enum value "
                        "set: [ADD, PUT, DELETE]", act, attr);
            goto out;
        }
        value = json_object_get(u, "Value");
        val[0] = '\0';
        if (!is_absent(value)) {
            if (tr_value(&t, value, val, err) != 0)
                goto out;
            ty = av_type(tr_value_get(&t, val));
            if (ty == NULL)
                ty = "";
        }
        if (ty == NULL && strcmp(act, "DELETE") != 0) {
            ddb_err_set(err, DDB_VALIDATION, MSG_INVALID
                        "Only DELETE action is allowed when no attribute "
                        "value is specified");
            goto out;
        }
        if (ty != NULL && strcmp(act, "DELETE") == 0 && !is_set_type(ty)) {
            ddb_err_set(err, DDB_VALIDATION, MSG_INVALID
                        "DELETE action with value is not supported for the "
                        "type %s", ty);
            goto out;
        }
        if (ty != NULL && strcmp(act, "ADD") == 0 && !is_set_type(ty) &&
            strcmp(ty, "N") != 0 && strcmp(ty, "L") != 0) {
            ddb_err_set(err, DDB_VALIDATION, MSG_INVALID
                        "ADD action is not supported for the type %s", ty);
            goto out;
        }
        if (strcmp(act, "DELETE") != 0) {
            t.size += strlen(attr) + av_size(tr_value_get(&t, val));
            if (t.size > ITEM_SIZE_MAX) {
                ddb_err_set(err, DDB_VALIDATION, MSG_UPD_SIZE);
                goto out;
            }
        }

        tr_name(&t, attr, name);
        if (strcmp(act, "PUT") == 0) {
            sb_add(&set, "%s%s = %s", set.len ? ", " : "", name, val);
        } else if (strcmp(act, "DELETE") == 0 && ty == NULL) {
            sb_add(&rem, "%s%s", rem.len ? ", " : "", name);
        } else if (strcmp(act, "DELETE") == 0) {
            sb_add(&del, "%s%s %s", del.len ? ", " : "", name, val);
        } else if (strcmp(ty, "L") == 0) {
            if (empty[0] == '\0') {
                json_t *l = json_pack("{s:[]}", "L");

                if (l == NULL)
                    abort();
                snprintf(empty, sizeof(empty), ":l%u", t.nvalues++);
                json_object_set_new(t.values, empty, l);
            }
            sb_add(&set, "%s%s = list_append(if_not_exists(%s, %s), %s)",
                   set.len ? ", " : "", name, name, empty, val);
        } else {
            sb_add(&add, "%s%s %s", add.len ? ", " : "", name, val);
        }
    }
    if (set.len)
        sb_add(&t.text, "SET %s", set.s);
    if (rem.len)
        sb_add(&t.text, "%sREMOVE %s", t.text.len ? " " : "", rem.s);
    if (add.len)
        sb_add(&t.text, "%sADD %s", t.text.len ? " " : "", add.s);
    if (del.len)
        sb_add(&t.text, "%sDELETE %s", t.text.len ? " " : "", del.s);
    tr_finish(&t, out);
    rc = 0;
out:
    sb_free(&set);
    sb_free(&rem);
    sb_free(&add);
    sb_free(&del);
    tr_fini(&t);
    return rc;
}

void
legacy_expr_fini(struct legacy_expr *le)
{
    if (le == NULL)
        return;
    free(le->text);
    json_decref(le->names);
    json_decref(le->values);
    memset(le, 0, sizeof(*le));
}
