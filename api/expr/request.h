/* SPDX-License-Identifier: MIT */
/* request.h - the expressions of one request: each expression member, or
 * its legacy counterpart translated by legacy.c, parsed in the request's
 * ExpressionAttributeNames/Values, plus the unused-name/value checks and
 * the key-scalar rule. Every data operation reads its expressions here. */
#ifndef SHARDLOCAL_EXPR_REQUEST_H
#define SHARDLOCAL_EXPR_REQUEST_H

#include <stdbool.h>
#include <jansson.h>

#include "api/expr/expr.h"
#include "api/expr/legacy.h"
#include "api/proto/av.h"
#include "storage/storage.h"

/* ------------------------------------------------------------------------
 * Expressions of one request.
 *
 * Usage, in DynamoDB's order of checks:
 *
 *     struct req_exprs x;
 *     req_exprs_init(&x);
 *     if (req_exprs_begin_op(&x, req, "UpdateItem", err) != 0)    mix check
 *         goto out;
 *     ... validate Item / Key AttributeValues ...
 *     if (req_exprs_parse(&x, req, EXPR_UPDATE, NULL, &upd, err) != 0 ||
 *         req_exprs_parse(&x, req, EXPR_CONDITION, NULL, &cond, err) != 0 ||
 *         req_exprs_check_unused(&x, req, err) != 0)
 *         goto out;
 *     ...
 * out:
 *     expr_free(cond); expr_free(upd);
 *     req_exprs_fini(&x);
 *
 * Call req_exprs_parse in DynamoDB's order: UpdateExpression,
 * ConditionExpression, KeyConditionExpression, FilterExpression,
 * ProjectionExpression. Each returns *out = NULL (and 0) when the request
 * has neither the expression nor its legacy counterpart.
 * ---------------------------------------------------------------------- */

#define REQ_LEGACY_MAX 4

struct req_exprs {
    json_t *values;                 /* owned: deep copy (or, with
                                       own_values, a reference) of
                                       ExpressionAttributeValues, validated
                                       and canonicalised; NULL if absent */
    struct expr_env *env;           /* the request's names/values */
    bool own_values;                /* the request is the caller's own:
                                       values validated in place, not
                                       copied (item_take_validate) */
    unsigned nlegacy;
    struct legacy_expr le[REQ_LEGACY_MAX];   /* translated legacy params */
    struct expr_env *lenv[REQ_LEGACY_MAX];   /* one env per translation, so
                                               synthetic #l0/:l0 never clash */
};

/* Zero x so req_exprs_fini() is always safe. */
void req_exprs_init(struct req_exprs *x);
/* The expression/legacy mix checks (legacy_check_mix()). The names/values
 * maps themselves are validated later, by the first req_exprs_parse() or
 * req_exprs_check_unused(), which is DynamoDB's order. */
int req_exprs_begin(struct req_exprs *x, const json_t *req,
                    struct ddb_err *err);
/* The same for a known operation ("PutItem", "Query", ...; see
 * legacy_check_mix_op()): prefer this one, the messages name exactly that
 * operation's parameters. */
int req_exprs_begin_op(struct req_exprs *x, const json_t *req, const char *op,
                       struct ddb_err *err);
/*
 * Parse the request's expression of this kind: the member
 * ConditionExpression / FilterExpression / KeyConditionExpression /
 * ProjectionExpression / UpdateExpression if present, else its legacy
 * counterpart Expected (+ ConditionalOperator) / legacy_param (+
 * ConditionalOperator; "QueryFilter" or "ScanFilter", required for
 * EXPR_FILTER) / KeyConditions / AttributesToGet / AttributeUpdates,
 * translated by legacy.c. *out is owned by the caller (expr_free), NULL
 * when neither member is present. The expr borrows from x: free it before
 * req_exprs_fini(x).
 */
int req_exprs_parse(struct req_exprs *x, const json_t *req,
                    enum expr_kind kind, const char *legacy_param,
                    struct expr **out, struct ddb_err *err);
/* Parse the request's member `member` (a string, absent: *out NULL) as an
 * expression of kind, its errors naming member (expr_parse_as). */
int req_exprs_parse_as(struct req_exprs *x, const json_t *req,
                       const char *member, enum expr_kind kind,
                       struct expr **out, struct ddb_err *err);
/* The "... unused in expressions" checks on the request's own maps (which
 * are validated here if no expression needed them yet). Call once, after
 * every req_exprs_parse(). */
int req_exprs_check_unused(struct req_exprs *x, const json_t *req,
                           struct ddb_err *err);
void req_exprs_fini(struct req_exprs *x);

#endif
