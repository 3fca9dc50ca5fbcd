/* SPDX-License-Identifier: MIT */
/* request.c - the expressions of one request (request.h): expression
 * members or translated legacy parameters, parsed in DynamoDB's order. */
#include <string.h>

#include "api/expr/request.h"
#include "storage/util.h"

/* ------------------------------------------------------------------------
 * Expressions
 * ---------------------------------------------------------------------- */

void
req_exprs_init(struct req_exprs *x)
{
    memset(x, 0, sizeof(*x));
}

/*
 * Only the mix check here: DynamoDB validates the Item/Key values and the
 * legacy conditions before ExpressionAttributeNames/Values, so the env is
 * built by the first req_exprs_parse() that needs it (or by
 * req_exprs_check_unused()).
 */
int
req_exprs_begin(struct req_exprs *x, const json_t *req, struct ddb_err *err)
{
    (void)x;
    return legacy_check_mix(req, err);
}

int
req_exprs_begin_op(struct req_exprs *x, const json_t *req, const char *op,
                   struct ddb_err *err)
{
    (void)x;
    return legacy_check_mix_op(req, op, err);
}

/* Build the env over the request's own names/values once. */
static int
exprs_env(struct req_exprs *x, const json_t *req, struct ddb_err *err)
{
    const json_t *names, *values;

    if (x->env != NULL)
        return 0;
    names = json_object_get(req, "ExpressionAttributeNames");
    values = json_object_get(req, "ExpressionAttributeValues");
    if (values != NULL && !json_is_null(values)) {
        x->values = x->own_values ? json_incref((json_t *)values)
                                  : json_clone(values);
        if (x->values == NULL)
            return ddb_err_set(err, DDB_INTERNAL, "out of memory");
    }
    if (json_is_null(names))
        names = NULL;
    return expr_env_new(names, x->values, &x->env, err);
}

static const char *
legacy_member(enum expr_kind kind, const char *legacy_param)
{
    switch (kind) {
    case EXPR_CONDITION:     return "Expected";
    case EXPR_FILTER:        return legacy_param;
    case EXPR_KEY_CONDITION: return "KeyConditions";
    case EXPR_PROJECTION:    return "AttributesToGet";
    case EXPR_UPDATE:        return "AttributeUpdates";
    }
    return NULL;
}

/* Translate one legacy parameter into x->le[] and parse it in its own
 * env. */
static int
parse_legacy(struct req_exprs *x, const json_t *req, enum expr_kind kind,
             const char *member, const json_t *val, struct expr **out,
             struct ddb_err *err)
{
    const json_t *cop = json_object_get(req, "ConditionalOperator");
    struct legacy_expr *le;
    struct expr_env **env;
    int rc;

    if (x->nlegacy >= REQ_LEGACY_MAX)
        return ddb_err_set(err, DDB_INTERNAL, "too many legacy parameters");
    le = &x->le[x->nlegacy];
    env = &x->lenv[x->nlegacy];
    memset(le, 0, sizeof(*le));
    x->nlegacy++;

    switch (kind) {
    case EXPR_CONDITION:
        rc = legacy_expected(val, cop, le, err);
        break;
    case EXPR_FILTER:
        rc = legacy_filter(val, cop, member, le, err);
        break;
    case EXPR_KEY_CONDITION:
        rc = legacy_key_conditions(val, le, err);
        break;
    case EXPR_PROJECTION:
        rc = legacy_attributes_to_get(val, le, err);
        break;
    case EXPR_UPDATE:
        rc = legacy_attribute_updates(val, le, err);
        break;
    default:
        rc = ddb_err_set(err, DDB_INTERNAL, "bad expression kind");
        break;
    }
    if (rc != 0)
        return -1;
    if (le->text == NULL || le->text[0] == '\0')
        return 0;                   /* e.g. "Expected": {} */
    /* A translation may need no names or no values (Exists: false): an
     * empty synthetic map is "absent", not "must not be empty". */
    if (expr_env_new(json_object_size(le->names) ? le->names : NULL,
                     json_object_size(le->values) ? le->values : NULL, env,
                     err) != 0)
        return -1;
    *out = expr_parse_legacy(*env, kind, le->text, err);
    return *out == NULL ? -1 : 0;
}

int
req_exprs_parse(struct req_exprs *x, const json_t *req, enum expr_kind kind,
                const char *legacy_param, struct expr **out,
                struct ddb_err *err)
{
    const char *emember = expr_kind_param(kind);
    const char *lmember = legacy_member(kind, legacy_param);
    const json_t *val;

    *out = NULL;
    val = json_object_get(req, emember);
    if (val != NULL && !json_is_null(val))
        return req_exprs_parse_as(x, req, emember, kind, out, err);
    val = lmember != NULL ? json_object_get(req, lmember) : NULL;
    if (val != NULL && !json_is_null(val))
        return parse_legacy(x, req, kind, lmember, val, out, err);
    return 0;
}

int
req_exprs_parse_as(struct req_exprs *x, const json_t *req, const char *member,
                   enum expr_kind kind, struct expr **out,
                   struct ddb_err *err)
{
    const json_t *val = json_object_get(req, member);

    *out = NULL;
    if (val == NULL || json_is_null(val))
        return 0;
    if (!json_is_string(val))
        return ddb_err_set(err, DDB_SERIALIZATION,
                           "NUMBER_VALUE cannot be converted to String");
    if (exprs_env(x, req, err) != 0)
        return -1;
    *out = expr_parse_as(x->env, kind, member, json_string_value(val), err);
    return *out == NULL ? -1 : 0;
}

int
req_exprs_check_unused(struct req_exprs *x, const json_t *req,
                       struct ddb_err *err)
{
    /* The env is NULL when no expression was parsed; build it anyway so
     * bad or unused maps are reported (nothing to do without maps: the
     * GetItem hot path). */
    if (x->env == NULL &&
        json_object_get(req, "ExpressionAttributeNames") == NULL &&
        json_object_get(req, "ExpressionAttributeValues") == NULL)
        return 0;
    if (exprs_env(x, req, err) != 0)
        return -1;
    return expr_env_check_unused(x->env, err);
}

void
req_exprs_fini(struct req_exprs *x)
{
    unsigned i;

    for (i = 0; i < x->nlegacy; i++) {
        expr_env_free(x->lenv[i]);
        legacy_expr_fini(&x->le[i]);
    }
    expr_env_free(x->env);
    json_decref(x->values);
    memset(x, 0, sizeof(*x));
}
