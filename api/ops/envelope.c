/* SPDX-License-Identifier: MIT */
/* envelope.c - the write operations' request validation envelope:
 * server/http.c runs it right after validate_request() for PutItem,
 * UpdateItem and DeleteItem, parsing their expressions early to decide
 * which errors DynamoDB reports inside "1 validation error detected: ". */

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "api/expr/expr.h"
#include "api/expr/request.h"
#include "api/ops/envelope.h"
#include "api/proto/av.h"
#include "storage/util.h"

/* ------------------------------------------------------------------------
 * The write operations' request validation envelope. PutItem, UpdateItem
 * and DeleteItem report these request-validation errors inside "1
 * validation error detected: ", and ExpressionAttributeValues/Names
 * without an expression lose their ": ConditionExpression is null" suffix;
 * DeleteItem's (and PutItem's) ReturnValues now reads "ReturnValues can
 * only be ALL_OLD or NONE" (eu-west-2 and us-east-1, 2026-10-09:
 * paritysuite/dynamodb-conformance tests/tier3/error-messages/
 * {putItem,updateItem,deleteItem}.test.ts). The checks run here in the
 * handlers' order (ops/item.c: mix, Item/Key, ReturnValues, size,
 * expressions, unused); an error outside that list is left for the
 * handler to report as before, so ordering does not change.
 * ---------------------------------------------------------------------- */

static const char *const enveloped_prefixes[] = {
    "ExpressionAttributeValues must not be empty",
    "ExpressionAttributeNames must not be empty",
    "Invalid ConditionExpression: The expression can not be empty;",
    "Invalid ConditionExpression: An expression attribute value used in "
    "expression is not defined",
    "Invalid ConditionExpression: An expression attribute name used in the "
    "document path is not defined",
    AV_MSG_INVALID "Value must be provided when Exists is",
    AV_MSG_INVALID "Value cannot be used when Exists is false",
    AV_MSG_INVALID "Value and AttributeValueList cannot be used together",
    AV_MSG_INVALID "Value or AttributeValueList must be used with",
    AV_MSG_INVALID "Invalid number of argument(s) for the",
    NULL
};

static bool
starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* Put err's message into the envelope; always -1. */
static int
envelope(struct ddb_err *err, const char *msg)
{
    char copy[DDB_ERR_MSG_MAX];

    snprintf(copy, sizeof(copy), "%s", msg);
    ddb_err_clear(err);
    return ddb_err_set(err, DDB_VALIDATION, "1 validation error detected: "
                       "%.3000s", copy);
}

#define OLDER_FORM_DEPTH 62

/* Levels of M/L nesting anywhere in v (an AttributeValue nested n times
 * counts n). */
static int
av_nesting(const json_t *v, int depth)
{
    const char *k;
    json_t *x;
    size_t i;
    int best = 0, d;

    if (depth > 1000)
        return best;
    if (json_is_object(v)) {
        json_object_foreach((json_t *)v, k, x) {
            d = av_nesting(x, depth + 1) +
                ((strcmp(k, "M") == 0 || strcmp(k, "L") == 0) ? 1 : 0);
            best = d > best ? d : best;
        }
    } else if (json_is_array(v)) {
        json_array_foreach(v, i, x) {
            d = av_nesting(x, depth + 1);
            best = d > best ? d : best;
        }
    }
    return best;
}

/* What envelope_check() built for an UpdateItem without finding an
 * error, kept for the handler (envelope_take_update()). Per thread: MHD
 * runs envelope_check() and the handler of one request on one thread. */
static _Thread_local struct {
    const json_t *req;                  /* borrowed; NULL: nothing kept */
    struct req_exprs x;
    struct expr *upd, *cond;
    json_t *key;
} kept;

/* Drop what envelope_check() kept (envelope.h). */
void
envelope_forget(void)
{
    if (kept.req == NULL)
        return;
    expr_free(kept.upd);
    expr_free(kept.cond);
    req_exprs_fini(&kept.x);
    json_decref(kept.key);
    kept.req = NULL;
    kept.upd = kept.cond = NULL;
    kept.key = NULL;
}

/* Hand what envelope_check() kept for req to UpdateItem's handler
 * (envelope.h). */
bool
envelope_take_update(const json_t *req, struct req_exprs *x,
                     struct expr **upd, struct expr **cond, json_t **key)
{
    if (req == NULL || kept.req != req)
        return false;
    *x = kept.x;                        /* moved: nothing points into it */
    *upd = kept.upd;
    *cond = kept.cond;
    *key = kept.key;
    req_exprs_init(&kept.x);
    kept.req = NULL;
    kept.upd = kept.cond = NULL;
    kept.key = NULL;
    return true;
}

/*
 * The envelope checks for op's request (borrowed), run once
 * validate_request() has passed it (envelope.h). Returns 0 (the handler
 * reports whatever else is wrong), or -1 with err set.
 */
int
envelope_check(const char *op, const json_t *req, struct ddb_err *err)
{
    static const char *const no_expr[] = {
        "ExpressionAttributeValues can only be specified when using "
        "expressions",
        "ExpressionAttributeNames can only be specified when using "
        "expressions",
    };
    bool put = strcmp(op, "PutItem") == 0, upd = strcmp(op, "UpdateItem") == 0;
    const json_t *rv = json_object_get(req, "ReturnValues");
    struct expr *a = NULL, *b = NULL;
    struct req_exprs x;
    struct ddb_err e;
    json_t *copy = NULL;
    size_t i;
    int rc = 0;

    envelope_forget();                  /* a previous request's, unused */
    if (!put && !upd && strcmp(op, "DeleteItem") != 0)
        return 0;
    /* nothing to check: the plain-write hot path */
    if (json_object_get(req, "ExpressionAttributeValues") == NULL &&
        json_object_get(req, "ExpressionAttributeNames") == NULL &&
        json_object_get(req, "ConditionExpression") == NULL &&
        json_object_get(req, "UpdateExpression") == NULL &&
        json_object_get(req, "Expected") == NULL && rv == NULL)
        return 0;
    ddb_err_init(&e);
    req_exprs_init(&x);
    if (req_exprs_begin_op(&x, req, op, &e) != 0) {
        for (i = 0; i < sizeof(no_expr) / sizeof(no_expr[0]); i++)
            if (e.type == DDB_VALIDATION && starts_with(e.msg, no_expr[i]))
                rc = envelope(err, no_expr[i]);
        goto out;
    }
    if (item_copy_validate(req, put ? "Item" : "Key", &copy, &e) != 0 ||
        copy == NULL)
        goto out;                       /* the handler's to report */
    if (!upd && json_is_string(rv) && strcmp(json_string_value(rv), "NONE") &&
        strcmp(json_string_value(rv), "ALL_OLD")) {
        /* Past about 62 levels of nesting anywhere in the request,
         * DynamoDB reads the request in its older form and says this bare
         * (DeleteItem, us-east-1 and eu-west-2, 2026-10:
         * paritysuite/dynamodb-conformance validation-ordering/
         * deepRequests.test.ts); at 40 levels it stays enveloped. */
        if (av_nesting(req, 0) > OLDER_FORM_DEPTH) {
            ddb_err_clear(err);
            rc = ddb_err_set(err, DDB_VALIDATION, "ReturnValues can only be "
                             "ALL_OLD or NONE");
        } else {
            rc = envelope(err, "ReturnValues can only be ALL_OLD or NONE");
        }
        goto out;
    }
    if (put && item_size(copy) > ITEM_SIZE_MAX)
        goto out;
    if ((upd && req_exprs_parse(&x, req, EXPR_UPDATE, NULL, &a, &e) != 0) ||
        req_exprs_parse(&x, req, EXPR_CONDITION, NULL, &b, &e) != 0 ||
        req_exprs_check_unused(&x, req, &e) != 0) {
        for (i = 0; enveloped_prefixes[i] != NULL; i++)
            if (e.type == DDB_VALIDATION &&
                starts_with(e.msg, enveloped_prefixes[i])) {
                rc = envelope(err, e.msg);
                break;
            }
    } else if (upd && x.nlegacy == 0) {
        /* The handler would redo exactly this, with the same result:
         * keep it (envelope_take_update()). Legacy translations live
         * inside x, so those are not moved. */
        envelope_forget();
        kept.req = req;
        kept.x = x;
        kept.upd = a;
        kept.cond = b;
        kept.key = copy;
        req_exprs_init(&x);
        a = b = NULL;
        copy = NULL;
    }
out:
    expr_free(a);
    expr_free(b);
    req_exprs_fini(&x);
    json_decref(copy);
    ddb_err_clear(&e);
    return rc;
}
