/* SPDX-License-Identifier: MIT */
/* expr.h - DynamoDB expressions: parse (lex.c, parse.c), resolve
 * #names and :values against the request (resolve.c), evaluate
 * (eval.c). Every error carries DynamoDB's exact message, e.g.
 * "Invalid UpdateExpression: Syntax error; token: ...". */
#ifndef SHARDLOCAL_EXPR_H
#define SHARDLOCAL_EXPR_H

#include <stdbool.h>
#include <jansson.h>

#include "api/proto/av.h"
#include "storage/storage.h"

enum expr_kind {
    EXPR_CONDITION,                 /* ConditionExpression */
    EXPR_FILTER,                    /* FilterExpression */
    EXPR_KEY_CONDITION,             /* KeyConditionExpression */
    EXPR_PROJECTION,                /* ProjectionExpression */
    EXPR_UPDATE                     /* UpdateExpression */
};

/* The request member an expression of this kind is written in
 * ("ConditionExpression", ...), also the "Invalid X: " of its errors. */
const char *expr_kind_param(enum expr_kind kind);

/* The ExpressionAttributeNames/Values of one request (both borrowed, may be
 * NULL), and which of them the request's expressions used. */
struct expr_env;

/* Validate the maps themselves (value AttributeValues are validated and
 * canonicalised in place, hence non-const) and make an env. -1 with
 * DynamoDB's message on a bad map. */
int expr_env_new(const json_t *names, json_t *values, struct expr_env **env,
                 struct ddb_err *err);
void expr_env_free(struct expr_env *env);
/* After every expression of the request has been parsed: the
 * "Value provided in ExpressionAttributeValues unused in expressions:
 * keys: {:v}" / "... ExpressionAttributeNames unused ..." errors. */
int expr_env_check_unused(const struct expr_env *env, struct ddb_err *err);

/* A parsed and resolved expression. Nodes live in an arena freed at once. */
struct expr;

/* Parse text as kind, resolving names and values through env (marking them
 * used). NULL with err set on a syntax or semantic error. */
struct expr *expr_parse(struct expr_env *env, enum expr_kind kind,
                        const char *text, struct ddb_err *err);
/* expr_parse() for the text a legacy parameter was translated into
 * (legacy.h). The 4 KB text limit and the 100 IN operands are limits of
 * the expression parameters: DynamoDB takes a ScanFilter or QueryFilter IN
 * with tens of thousands of values (issue 18: 27,500 accepted). */
struct expr *expr_parse_legacy(struct expr_env *env, enum expr_kind kind,
                               const char *text, struct ddb_err *err);
void expr_free(struct expr *e);
/* expr_parse() of a member another operation names differently: kind's
 * grammar and checks, its errors saying "Invalid <param>: " (SearchVectors'
 * SearchConditionExpression is a condition). */
struct expr *expr_parse_as(struct expr_env *env, enum expr_kind kind,
                           const char *param, const char *text,
                           struct ddb_err *err);

/*
 * A condition read as clauses joined by AND (parentheses dropped): what
 * each clause is, the top-level attribute it tests and, for a comparison
 * of an attribute with a :value, that value. fn is called on each clause
 * in text order; a non-zero return stops the walk and is returned.
 */
enum expr_clause_op {
    EXPR_CLAUSE_EQ,                 /* attr = :v (or :v = attr) */
    EXPR_CLAUSE_CMP,                /* another comparator: <>, <, <=, >, >= */
    EXPR_CLAUSE_BETWEEN,
    EXPR_CLAUSE_IN,
    EXPR_CLAUSE_FUNC,               /* attribute_exists(...), ... */
    EXPR_CLAUSE_OR,
    EXPR_CLAUSE_NOT
};
struct expr_clause {
    enum expr_clause_op op;
    const char *attr;               /* the first attribute path's head, or
                                       NULL when the clause names none */
    bool nested;                    /* that path reaches into it */
    bool two_paths;                 /* it compares two attributes */
    const json_t *value;            /* EQ: the value (borrowed), or NULL */
};
typedef int expr_clause_fn(void *arg, const struct expr_clause *c,
                           struct ddb_err *err);
int expr_clauses(const struct expr *e, expr_clause_fn *fn, void *arg,
                 struct ddb_err *err);

/* Condition or filter: *result = whether item (borrowed, NULL = no item)
 * satisfies e. -1 only on evaluation errors DynamoDB reports. */
int expr_eval(const struct expr *e, const json_t *item, bool *result,
              struct ddb_err *err);

/* Projection: a new item holding only the projected paths of item (nested
 * paths and list elements included, as DynamoDB builds them). */
json_t *expr_project(const struct expr *e, const json_t *item);

/* Update: reject updates of key attributes ("Cannot update attribute X.
 * This attribute is part of the key") and overlapping/conflicting paths. */
int expr_update_check(const struct expr *e, const struct key_schema *ks,
                      struct ddb_err *err);
/* Key attributes are scalars: "Key attributes must be scalars; list random
 * access '[]' and map lookup '.' are not allowed: Key: k" for the first
 * path in e's text that reaches into a key attribute with '.' or '[]'. */
int expr_check_key_scalars(const struct expr *e, const struct key_schema *ks,
                           struct ddb_err *err);
/* How e uses an attribute as the head of its document paths (a Query
 * filter may not name a key attribute at all). */
enum expr_head_use {
    EXPR_HEAD_NONE,                 /* not at all */
    EXPR_HEAD_SCALAR,               /* alone: "k = :v" */
    EXPR_HEAD_NESTED                /* reached into: "k.a", "k[0]" */
};
enum expr_head_use expr_head_use(const struct expr *e, const char *attr);
/* The attributes heading e's document paths, each once, in the order of
 * the text (an empty array for NULL). New reference. */
json_t *expr_head_names(const struct expr *e);
/* Apply an update to old (borrowed, NULL when the item does not exist
 * yet). A new item starts from key (the request's Key, borrowed, may be
 * NULL), whose attributes the update's operands see, as in DynamoDB.
 * *new_item is a new reference. -1 with DynamoDB's message when an
 * operand is missing or of the wrong type. */
int expr_update_apply(const struct expr *e, const json_t *old,
                      const json_t *key, json_t **new_item,
                      struct ddb_err *err);
/* A projection over the top-level-or-nested paths the update writes, for
 * ReturnValues UPDATED_OLD / UPDATED_NEW. Owned by e. */
const struct expr *expr_update_targets(const struct expr *e);

/* Key condition, checked against the schema: the partition key value and
 * the sort key condition. Values are borrowed from the env. */
enum keycond_op {
    KC_NONE, KC_EQ, KC_LT, KC_LE, KC_GT, KC_GE, KC_BETWEEN, KC_BEGINS_WITH
};
struct keycond {
    const json_t *pk;               /* partition key AttributeValue */
    enum keycond_op op;             /* on the sort key */
    const json_t *v1, *v2;          /* operands (v2 for BETWEEN) */
};
int expr_keycond(const struct expr *e, const struct key_schema *ks,
                 struct keycond *kc, struct ddb_err *err);

/*
 * The key condition of a query on an index with a multi-attribute key
 * (index.h: up to 4 HASH and 4 RANGE attributes). names/types list the
 * HASH attributes (nhash) followed by the RANGE attributes (nrange), in
 * KeySchema order. DynamoDB's rules: equality on every HASH attribute and
 * on a gap-free prefix of the RANGE attributes; only the last RANGE
 * attribute named may carry a range condition; clauses in any order.
 * On success kc->pk[i] is HASH attribute i's value, kc->eq[0..neq-1] the
 * leading RANGE equalities and kc->op/v1/v2 the condition on RANGE
 * attribute neq (KC_NONE: none). Values are borrowed from the env.
 */
#define KEYCOND_ATTRS_MAX 4
struct keycond_multi {
    const json_t *pk[KEYCOND_ATTRS_MAX];
    size_t neq;
    const json_t *eq[KEYCOND_ATTRS_MAX];
    enum keycond_op op;
    const json_t *v1, *v2;
};
int expr_keycond_multi(const struct expr *e, const char *const *names,
                       const char *types, size_t nhash, size_t nrange,
                       struct keycond_multi *kc, struct ddb_err *err);

#endif
