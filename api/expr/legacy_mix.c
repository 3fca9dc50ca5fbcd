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
 * dynalite's recorded messages): the non-expression members (NX_) first,
 * then the expressions (EX_). A mask has bit MIX(m) for member m. */
enum mix_member {
    NX_ATTRIBUTE_UPDATES, NX_ATTRIBUTES_TO_GET, NX_EXPECTED, NX_QUERY_FILTER,
    NX_SCAN_FILTER, NX_CONDITIONAL_OPERATOR, NX_KEY_CONDITIONS,
    EX_UPDATE, EX_PROJECTION, EX_CONDITION, EX_FILTER, EX_KEY_CONDITION,
    MIX_MEMBERS                                     /* how many */
};

/* The names, and two more members the checks look for (bits MIX_EAN
 * and MIX_EAV, past the mix members). */
static const char *const mix_members[MIX_MEMBERS + 2] = {
    "AttributeUpdates", "AttributesToGet", "Expected", "QueryFilter",
    "ScanFilter", "ConditionalOperator", "KeyConditions",
    "UpdateExpression", "ProjectionExpression", "ConditionExpression",
    "FilterExpression", "KeyConditionExpression",
    "ExpressionAttributeNames", "ExpressionAttributeValues",
};

#define MIX(m) (1u << (m))
#define NX_ALL (MIX(EX_UPDATE) - 1)                 /* every non-expression */
#define EX_ALL (MIX(MIX_MEMBERS) - 1 - NX_ALL)      /* every expression */
#define MIX_EAN MIX(MIX_MEMBERS)                    /* ExpressionAttributeNames */
#define MIX_EAV MIX(MIX_MEMBERS + 1)                /* ...Values */

/* What each operation accepts, and how it words "ExpressionAttributeValues
 * can only be specified when using expressions: ..." (NULL: the operation
 * has no ExpressionAttributeValues). */
struct mix_op {
    const char *name;
    unsigned members;               /* the members it has (a mask) */
    unsigned value_exprs;           /* expressions that use values */
    const char *values_msg;
};

/* The members every read has, and every conditional write. */
#define READS       (MIX(NX_ATTRIBUTES_TO_GET) | MIX(EX_PROJECTION))
#define COND_WRITES (MIX(NX_EXPECTED) | MIX(NX_CONDITIONAL_OPERATOR) | \
                     MIX(EX_CONDITION))

static const struct mix_op mix_ops[] = {
    { "GetItem", READS, 0, NULL },
    { "BatchGetItem", READS, 0, NULL },
    { "PutItem", COND_WRITES, MIX(EX_CONDITION),
      "ConditionExpression is null" },
    { "DeleteItem", COND_WRITES, MIX(EX_CONDITION),
      "ConditionExpression is null" },
    { "UpdateItem",
      COND_WRITES | MIX(NX_ATTRIBUTE_UPDATES) | MIX(EX_UPDATE),
      MIX(EX_UPDATE) | MIX(EX_CONDITION),
      "UpdateExpression and ConditionExpression are null" },
    { "Query",
      READS | MIX(NX_QUERY_FILTER) | MIX(NX_CONDITIONAL_OPERATOR) |
      MIX(NX_KEY_CONDITIONS) | MIX(EX_FILTER) | MIX(EX_KEY_CONDITION),
      MIX(EX_FILTER) | MIX(EX_KEY_CONDITION),
      "FilterExpression and KeyConditionExpression are null" },
    { "Scan",
      READS | MIX(NX_SCAN_FILTER) | MIX(NX_CONDITIONAL_OPERATOR) |
      MIX(EX_FILTER), MIX(EX_FILTER), "FilterExpression is null" },
};

/* Every member, no values message: an operation we cannot tell. */
static const struct mix_op mix_any = { NULL, NX_ALL | EX_ALL, 0, NULL };

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
    int m;
    bool first = true;

    strbuf_putc(b, '{');
    for (m = 0; m < MIX_MEMBERS; m++) {
        if (!(mask & MIX(m)))
            continue;
        strbuf_printf(b, "%s%s", first ? "" : ", ", mix_members[m]);
        first = false;
    }
    strbuf_putc(b, '}');
}

/* The members of mix_members[] that req has, not null, as a mask (one
 * pass over req's members instead of a lookup per name). */
static unsigned
mix_present(const json_t *req)
{
    json_t *v[MIX_MEMBERS + 2];
    unsigned has = 0;

    json_pick(req, mix_members, MIX_MEMBERS + 2, v);
    for (int i = 0; i < MIX_MEMBERS + 2; i++)
        if (v[i] != NULL && !json_is_null(v[i]))
            has |= MIX(i);
    return has;
}

int
legacy_check_mix_op(const json_t *req, const char *op, struct ddb_err *err)
{
    const struct mix_op *m = op != NULL ? mix_op_find(op) : NULL;
    unsigned present, has, nx, ex;
    size_t nconds;

    if (!json_is_object(req))
        return 0;
    if (m == NULL)
        m = op != NULL ? &mix_any : mix_op_guess(req);

    present = mix_present(req);
    has = present & m->members;
    nx = has & NX_ALL;
    ex = has & EX_ALL;
    /* KeyConditions mixes only with KeyConditionExpression: KeyConditions
     * plus FilterExpression/ProjectionExpression is a valid Query. */
    if (!(ex & MIX(EX_KEY_CONDITION)))
        nx &= ~MIX(NX_KEY_CONDITIONS);

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
    if ((present & MIX_EAN) && ex == 0)
        return ddb_err_set(err, DDB_VALIDATION,
                           "ExpressionAttributeNames can only be specified "
                           "when using expressions");
    if ((present & MIX_EAV) && m->values_msg != NULL &&
        (ex & m->value_exprs) == 0)
        return ddb_err_set(err, DDB_VALIDATION,
                           "ExpressionAttributeValues can only be specified "
                           "when using expressions: %s", m->values_msg);

    /* ConditionalOperator needs an Expected/QueryFilter/ScanFilter with two
     * or more conditions; KeyConditions do not count. */
    if (has & MIX(NX_CONDITIONAL_OPERATOR)) {
        nconds = 0;
        if (m->members & MIX(NX_EXPECTED))
            nconds += json_object_size(json_object_get(req, "Expected"));
        if (m->members & MIX(NX_QUERY_FILTER))
            nconds += json_object_size(json_object_get(req, "QueryFilter"));
        if (m->members & MIX(NX_SCAN_FILTER))
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
