/* SPDX-License-Identifier: MIT */
/* legacy.h - the pre-expression API (Expected, ConditionalOperator,
 * AttributeUpdates, AttributesToGet, KeyConditions, QueryFilter,
 * ScanFilter): validated with DynamoDB's messages, then translated into
 * expression text with synthetic #names and :values, so one evaluator
 * serves both styles. */
#ifndef SHARDLOCAL_LEGACY_H
#define SHARDLOCAL_LEGACY_H

#include <stdbool.h>
#include <jansson.h>

#include "storage/storage.h"

struct legacy_expr {
    char *text;                     /* malloc'd expression text */
    json_t *names;                  /* {"#l0": "attr", ...} (owned) */
    json_t *values;                 /* {":l0": {...}, ...} (owned) */
};

void legacy_expr_fini(struct legacy_expr *le);
/* Whether ref ("#l0", ":l3") is one of the synthetic placeholders the
 * translations use (lead '#' for names, ':' for values): eval.c words a
 * legacy AttributeUpdates type mismatch as DynamoDB does for it. */
bool legacy_is_ref(const char *ref, char lead);

/* Reject a request that mixes expression and non-expression parameters,
 * or names/values without expressions, with DynamoDB's messages. */
int legacy_check_mix(const json_t *req, struct ddb_err *err);
/* The same for a known operation ("GetItem", "BatchGetItem", "PutItem",
 * "DeleteItem", "UpdateItem", "Query", "Scan"): only that operation's
 * members count, and "ExpressionAttributeValues can only be specified when
 * using expressions: ..." names its expressions. legacy_check_mix() guesses
 * the operation from the request's members (op NULL does the same). Also
 * rejects ConditionalOperator without an Expected/QueryFilter/ScanFilter of
 * two or more conditions. */
int legacy_check_mix_op(const json_t *req, const char *op,
                        struct ddb_err *err);

/* Each fills *out (zeroed first) or returns -1 with err set. */
int legacy_expected(const json_t *expected, const json_t *conditional_op,
                    struct legacy_expr *out, struct ddb_err *err);
int legacy_filter(const json_t *filter, const json_t *conditional_op,
                  const char *param, struct legacy_expr *out,
                  struct ddb_err *err);
int legacy_attributes_to_get(const json_t *atg, struct legacy_expr *out,
                             struct ddb_err *err);
int legacy_attribute_updates(const json_t *updates, struct legacy_expr *out,
                             struct ddb_err *err);
/* KeyConditions: 1 to 2 x LEGACY_KEY_ATTRS_MAX conditions (a GSI key has
 * up to 4 HASH and 4 RANGE attributes); the caller checks the number
 * against the key it queries. */
#define LEGACY_KEY_ATTRS_MAX 4
int legacy_key_conditions(const json_t *conds, struct legacy_expr *out,
                          struct ddb_err *err);

#endif
