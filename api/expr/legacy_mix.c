/* SPDX-License-Identifier: MIT */
/* legacy_mix.c - which expression and pre-expression members a request may
 * have together, and ConditionalOperator's need of two or more conditions,
 * with DynamoDB's messages for the operation at hand (request.c runs these
 * checks before any expression is parsed). */
#include <stdbool.h>
#include <string.h>

#include "api/expr/legacy_int.h"

/* The members DynamoDB lists in the mix message, in the order it lists
 * them (DynamoDB Local's InputConverter, confirmed against the service by
 * dynalite's recorded messages): bit i of a mask is mix_members[i], the
 * non-expression members first, then the expressions. */
static const char *const mix_members[] = {
    "AttributeUpdates", "AttributesToGet", "Expected", "QueryFilter",
    "ScanFilter", "ConditionalOperator", "KeyConditions",
    "UpdateExpression", "ProjectionExpression", "ConditionExpression",
    "FilterExpression", "KeyConditionExpression"
};

enum {
    NX_ATTRIBUTE_UPDATES = 1 << 0,
    NX_ATTRIBUTES_TO_GET = 1 << 1,
    NX_EXPECTED = 1 << 2,
    NX_QUERY_FILTER = 1 << 3,
    NX_SCAN_FILTER = 1 << 4,
    NX_CONDITIONAL_OPERATOR = 1 << 5,
    NX_KEY_CONDITIONS = 1 << 6,
    EX_UPDATE = 1 << 7,
    EX_PROJECTION = 1 << 8,
    EX_CONDITION = 1 << 9,
    EX_FILTER = 1 << 10,
    EX_KEY_CONDITION = 1 << 11,
    NX_ALL = EX_UPDATE - 1,                         /* every non-expression */
    EX_ALL = ((1 << 12) - 1) & ~NX_ALL              /* every expression */
};

/* What each operation accepts, and how it words "ExpressionAttributeValues
 * can only be specified when using expressions: ..." (NULL: the operation
 * has no ExpressionAttributeValues). */
struct mix_op {
    const char *name;
    unsigned members;               /* the members it has (NX_ and EX_) */
    unsigned value_exprs;           /* expressions that use values */
    const char *values_msg;
};

static const struct mix_op mix_ops[] = {
    { "GetItem", NX_ATTRIBUTES_TO_GET | EX_PROJECTION, 0, NULL },
    { "BatchGetItem", NX_ATTRIBUTES_TO_GET | EX_PROJECTION, 0, NULL },
    { "PutItem", NX_EXPECTED | NX_CONDITIONAL_OPERATOR | EX_CONDITION,
      EX_CONDITION, "ConditionExpression is null" },
    { "DeleteItem", NX_EXPECTED | NX_CONDITIONAL_OPERATOR | EX_CONDITION,
      EX_CONDITION, "ConditionExpression is null" },
    { "UpdateItem",
      NX_ATTRIBUTE_UPDATES | NX_EXPECTED | NX_CONDITIONAL_OPERATOR |
      EX_UPDATE | EX_CONDITION, EX_UPDATE | EX_CONDITION,
      "UpdateExpression and ConditionExpression are null" },
    { "Query",
      NX_ATTRIBUTES_TO_GET | NX_QUERY_FILTER | NX_CONDITIONAL_OPERATOR |
      NX_KEY_CONDITIONS | EX_PROJECTION | EX_FILTER | EX_KEY_CONDITION,
      EX_FILTER | EX_KEY_CONDITION,
      "FilterExpression and KeyConditionExpression are null" },
    { "Scan",
      NX_ATTRIBUTES_TO_GET | NX_SCAN_FILTER | NX_CONDITIONAL_OPERATOR |
      EX_PROJECTION | EX_FILTER, EX_FILTER, "FilterExpression is null" },
};

/* Every member, no values message: an operation we cannot tell. */
static const struct mix_op mix_any = { NULL, NX_ALL | EX_ALL, 0, NULL };

#define MIX_MEMBERS (sizeof(mix_members) / sizeof(mix_members[0]))

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
    if (json_has(req, "Item"))
        return mix_op_find("PutItem");
    if (json_has(req, "AttributeUpdates") || json_has(req, "UpdateExpression"))
        return mix_op_find("UpdateItem");
    if (json_has(req, "Key")) {
        const char *rv = json_string_value(json_object_get(req,
                                                           "ReturnValues"));

        if (rv != NULL && (strcmp(rv, "ALL_NEW") == 0 ||
                           strcmp(rv, "UPDATED_OLD") == 0 ||
                           strcmp(rv, "UPDATED_NEW") == 0))
            return mix_op_find("UpdateItem");
        if (json_has(req, "ConsistentRead") ||
            json_has(req, "ProjectionExpression") ||
            json_has(req, "AttributesToGet"))
            return mix_op_find("GetItem");
        return mix_op_find("DeleteItem");
    }
    if (json_has(req, "Keys"))
        return mix_op_find("BatchGetItem");
    if (json_has(req, "KeyConditions") ||
        json_has(req, "KeyConditionExpression") ||
        json_has(req, "QueryFilter") || json_has(req, "ScanIndexForward"))
        return mix_op_find("Query");
    if (json_has(req, "TableName"))
        return mix_op_find("Scan");
    return &mix_any;
}

/* "{A, B}" of the members in mask. */
static void
member_set(struct strbuf *b, unsigned mask)
{
    size_t i;
    bool first = true;

    strbuf_putc(b, '{');
    for (i = 0; i < MIX_MEMBERS; i++) {
        if (!(mask & (1u << i)))
            continue;
        strbuf_printf(b, "%s%s", first ? "" : ", ", mix_members[i]);
        first = false;
    }
    strbuf_putc(b, '}');
}

int
legacy_check_mix_op(const json_t *req, const char *op, struct ddb_err *err)
{
    const struct mix_op *m = op != NULL ? mix_op_find(op) : NULL;
    unsigned has = 0, nx, ex;
    size_t i, nconds;

    if (!json_is_object(req))
        return 0;
    if (m == NULL)
        m = op != NULL ? &mix_any : mix_op_guess(req);

    for (i = 0; i < MIX_MEMBERS; i++)
        if ((m->members & (1u << i)) && json_has(req, mix_members[i]))
            has |= 1u << i;
    nx = has & NX_ALL;
    ex = has & EX_ALL;
    /* KeyConditions mixes only with KeyConditionExpression: KeyConditions
     * plus FilterExpression/ProjectionExpression is a valid Query. */
    if (!(ex & EX_KEY_CONDITION))
        nx &= ~(unsigned)NX_KEY_CONDITIONS;

    if (nx != 0 && ex != 0) {
        struct strbuf b = { 0 };

        member_set(&b, nx);
        strbuf_puts(&b, " Expression parameters: ");
        member_set(&b, ex);
        ddb_err_set(err, DDB_VALIDATION, "Can not use both expression and "
                    "non-expression parameters in the same request: "
                    "Non-expression parameters: %s", b.s);
        strbuf_free(&b);
        return -1;
    }
    if (json_has(req, "ExpressionAttributeNames") && ex == 0)
        return ddb_err_set(err, DDB_VALIDATION,
                           "ExpressionAttributeNames can only be specified "
                           "when using expressions");
    if (json_has(req, "ExpressionAttributeValues") && m->values_msg != NULL &&
        (ex & m->value_exprs) == 0)
        return ddb_err_set(err, DDB_VALIDATION,
                           "ExpressionAttributeValues can only be specified "
                           "when using expressions: %s", m->values_msg);

    /* ConditionalOperator needs an Expected/QueryFilter/ScanFilter with two
     * or more conditions; KeyConditions do not count. */
    if (json_has(req, "ConditionalOperator") &&
        (m->members & NX_CONDITIONAL_OPERATOR)) {
        nconds = 0;
        if (m->members & NX_EXPECTED)
            nconds += json_object_size(json_object_get(req, "Expected"));
        if (m->members & NX_QUERY_FILTER)
            nconds += json_object_size(json_object_get(req, "QueryFilter"));
        if (m->members & NX_SCAN_FILTER)
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
