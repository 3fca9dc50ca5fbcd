/* SPDX-License-Identifier: MIT */
/* partiql_cond.c - a PartiQL WHERE clause lowered into the expression
 * engine's condition nodes (expr_int.h), so it is checked (resolve.c) and
 * evaluated (eval.c) exactly as a ConditionExpression: IS [NOT] MISSING is
 * attribute_not_exists / attribute_exists, IS NULL and IS <type> are
 * attribute_type. Then what the data operations read from it: the key of
 * a single-item statement, the Queries a SELECT becomes. */

#include <stdlib.h>
#include <string.h>

#include "api/expr/partiql_int.h"
#include "storage/util.h"

#define MSG_KEY_EQ "Where clause does not contain a mandatory equality on " \
                   "all key attributes"
#define MSG_KEY_TYPE "Key attribute's data type should match its data " \
                     "type in table's schema: Key %s"

struct lower {
    struct pql_stmt *s;
    struct arena *a;                /* s->arena */
    const json_t *params;
    struct ddb_err *err;
};

static struct expr_node *cond(struct lower *L, const struct pn *n);

/* ------------------------------------------------------------------------
 * Operands and conditions
 * ---------------------------------------------------------------------- */

/* The condition functions of a WHERE clause (PartiQL's names are the
 * expression engine's). */
static enum expr_func
func_of(const char *name)
{
    static const struct { const char *name; enum expr_func f; } funcs[] = {
        { "attribute_exists", F_ATTRIBUTE_EXISTS },
        { "attribute_not_exists", F_ATTRIBUTE_NOT_EXISTS },
        { "attribute_type", F_ATTRIBUTE_TYPE },
        { "begins_with", F_BEGINS_WITH },
        { "contains", F_CONTAINS }, { "size", F_SIZE },
    };
    size_t i;

    for (i = 0; i < sizeof(funcs) / sizeof(funcs[0]); i++)
        if (strcmp(name, funcs[i].name) == 0)
            return funcs[i].f;
    return F_UNKNOWN;
}

static struct expr_node *
value_node(struct lower *L, json_t *av)
{
    struct expr_node *x;

    if (av == NULL)
        return NULL;
    x = pql_node(L->a, NODE_VALUE, 0);
    x->value = pql_keep(L->s, av);
    return x;
}

static struct expr_node *
unsupported(struct lower *L, const struct pn *n)
{
    ddb_err_set(L->err, DDB_VALIDATION, "Unsupported operation: %s",
                pql_node_name(n));
    return NULL;
}

/* A function call: only the condition functions are known here (EXISTS
 * and set_add are not: "Unrecognized function: exists at 1:58:6",
 * error-messages/partiqlFunctions.test.ts, eu-west-2, 2026-10). */
static struct expr_node *
call(struct lower *L, const struct pn *n)
{
    enum expr_func f = func_of(n->text);
    struct expr_node *x;
    int i;

    if (f == F_UNKNOWN) {
        pql_err_at(L->err, &n->pos, "Unrecognized function: %s", n->text);
        return NULL;
    }
    x = pql_node(L->a, NODE_FUNC, n->nkids);
    x->op = f;
    x->fname = n->text;
    for (i = 0; i < n->nkids; i++) {
        const struct pn *k = n->kids[i];

        if (pql_is_value(k)) {
            x->args[i] = value_node(L, pql_value(k, L->params, L->err));
        } else if (k->k == PN_ID || k->k == PN_PATH) {
            x->args[i] = pql_node(L->a, NODE_PATH, 0);
            if (pql_path(L->s, k, &x->args[i]->path, L->err) != 0)
                return NULL;
        } else if (k->k == PN_CALL) {
            x->args[i] = call(L, k);
        } else {
            x->args[i] = unsupported(L, k);
        }
        if (x->args[i] == NULL)
            return NULL;
    }
    return x;
}

/* An operand of a comparison: a value, a path, or size(path). */
static struct expr_node *
operand(struct lower *L, const struct pn *n)
{
    struct expr_node *x;

    if (pql_is_value(n))
        return value_node(L, pql_value(n, L->params, L->err));
    if (n->k == PN_ID || n->k == PN_PATH) {
        x = pql_node(L->a, NODE_PATH, 0);
        return pql_path(L->s, n, &x->path, L->err) == 0 ? x : NULL;
    }
    if (n->k == PN_CALL)
        return call(L, n);
    return unsupported(L, n);
}

static struct expr_node *
unary(struct lower *L, enum node_type t, struct expr_node *kid)
{
    struct expr_node *x;

    if (kid == NULL)
        return NULL;
    x = pql_node(L->a, t, 1);
    x->args[0] = kid;
    return x;
}

static struct expr_node *
pair(struct lower *L, enum node_type t, struct expr_node *a,
     struct expr_node *b)
{
    struct expr_node *x;

    if (a == NULL || b == NULL)
        return NULL;
    x = pql_node(L->a, t, 2);
    x->args[0] = a;
    x->args[1] = b;
    return x;
}

/* f(p, 'T'): attribute_type with a type name. */
static struct expr_node *
type_test(struct lower *L, struct expr_node *p, const char *type)
{
    struct expr_node *x = pql_node(L->a, NODE_FUNC, 2);

    x->op = F_ATTRIBUTE_TYPE;
    x->fname = "attribute_type";
    x->args[0] = p;
    x->args[1] = value_node(L, json_pack("{s:s}", "S", type));
    return x;
}

static struct expr_node *
exists_test(struct lower *L, struct expr_node *p, bool exists)
{
    struct expr_node *x = pql_node(L->a, NODE_FUNC, 1);

    x->op = exists ? F_ATTRIBUTE_EXISTS : F_ATTRIBUTE_NOT_EXISTS;
    x->fname = exists ? "attribute_exists" : "attribute_not_exists";
    x->args[0] = p;
    return x;
}

/*
 * x IS [NOT] type. MISSING tests presence; the other types test the
 * stored type as attribute_type does, each PartiQL type name read as the
 * DynamoDB type it holds (whereFunctions.test.ts runs IS NULL, IS BOOL,
 * IS STRING as filters; the mapping of the other names is shardlocal's):
 * numbers N, strings S, BLOB B, LIST/SEXP L, STRUCT/TUPLE M, BAG any set.
 * Types DynamoDB cannot hold (DATE, TIMESTAMP, ...) match nothing.
 */
static struct expr_node *
is_type(struct lower *L, const struct pn *n)
{
    static const struct { const char *name; const char *t; } map[] = {
        { "null", "NULL" }, { "bool", "BOOL" }, { "boolean", "BOOL" },
        { "string", "S" }, { "varchar", "S" }, { "char", "S" },
        { "character", "S" }, { "character varying", "S" },
        { "symbol", "S" }, { "blob", "B" }, { "list", "L" },
        { "sexp", "L" }, { "struct", "M" }, { "tuple", "M" },
        { "smallint", "N" }, { "int", "N" }, { "integer", "N" },
        { "int2", "N" }, { "int4", "N" }, { "int8", "N" },
        { "integer2", "N" }, { "integer4", "N" }, { "integer8", "N" },
        { "bigint", "N" }, { "float", "N" }, { "real", "N" },
        { "double precision", "N" }, { "decimal", "N" }, { "dec", "N" },
        { "numeric", "N" },
    };
    struct expr_node *p = operand(L, n->kids[0]), *x = NULL;
    size_t i;

    if (p == NULL)
        return NULL;
    if (strcmp(n->text, "missing") == 0)
        return exists_test(L, p, n->neg);
    if (strcmp(n->text, "any") == 0)
        x = exists_test(L, p, true);
    else if (strcmp(n->text, "bag") == 0)
        x = pair(L, NODE_OR, pair(L, NODE_OR, type_test(L, p, "SS"),
                                  type_test(L, p, "NS")),
                 type_test(L, p, "BS"));
    for (i = 0; x == NULL && i < sizeof(map) / sizeof(map[0]); i++)
        if (strcmp(n->text, map[i].name) == 0)
            x = type_test(L, p, map[i].t);
    if (x == NULL)                  /* exists and does not: never */
        x = pair(L, NODE_AND, exists_test(L, p, true),
                 exists_test(L, p, false));
    return n->neg ? unary(L, NODE_NOT, x) : x;
}

/* a [NOT] IN (list): the list's members, or the members of a list-valued
 * parameter. */
static struct expr_node *
in_list(struct lower *L, const struct pn *n)
{
    const struct pn *r = n->kids[1];
    struct expr_node *x, *left = operand(L, n->kids[0]);
    const json_t *l = NULL;
    int i, cnt;

    if (left == NULL)
        return NULL;
    if (r->k == PN_PARAM) {
        l = json_object_get(json_array_get(L->params, (size_t)r->param),
                            "L");
        if (!json_is_array(l))
            return unsupported(L, n);
        cnt = (int)json_array_size(l);
    } else if (r->k == PN_LIST || r->k == PN_BAG) {
        cnt = r->nkids;
    } else {
        return unsupported(L, n);
    }
    x = pql_node(L->a, NODE_IN, cnt + 1);
    x->args[0] = left;
    for (i = 0; i < cnt; i++) {
        x->args[i + 1] = l != NULL
            ? value_node(L, json_clone(json_array_get(l, (size_t)i)))
            : operand(L, r->kids[i]);
        if (x->args[i + 1] == NULL)
            return NULL;
    }
    return n->neg ? unary(L, NODE_NOT, x) : x;
}

/* A condition function compared with TRUE or FALSE: the function itself
 * or its negation ("attribute_exists(ss) = true", whereFunctions.test.ts);
 * NULL when n is no such comparison. */
static const struct pn *
bool_compare(const struct pn *n, bool *negate)
{
    const struct pn *a = n->kids[0], *b = n->kids[1];

    if (n->op != OP_EQ && n->op != OP_NE)
        return NULL;
    if (b->k == PN_CALL && (a->k == PN_TRUE || a->k == PN_FALSE)) {
        const struct pn *t = a;

        a = b;
        b = t;
    }
    if (a->k != PN_CALL || (b->k != PN_TRUE && b->k != PN_FALSE) ||
        func_of(a->text) == F_SIZE || func_of(a->text) == F_UNKNOWN)
        return NULL;
    *negate = (n->op == OP_EQ) != (b->k == PN_TRUE);
    return a;
}

static struct expr_node *
compare(struct lower *L, const struct pn *n)
{
    static const int cmp[] = {
        [OP_EQ] = CMP_EQ, [OP_NE] = CMP_NE, [OP_LT] = CMP_LT,
        [OP_LE] = CMP_LE, [OP_GT] = CMP_GT, [OP_GE] = CMP_GE,
    };
    const struct pn *f;
    struct expr_node *x;
    bool negate;

    if ((f = bool_compare(n, &negate)) != NULL) {
        x = call(L, f);
        return negate ? unary(L, NODE_NOT, x) : x;
    }
    x = pair(L, NODE_CMP, operand(L, n->kids[0]), operand(L, n->kids[1]));
    if (x != NULL)
        x->op = cmp[n->op];
    return x;
}

static struct expr_node *
cond(struct lower *L, const struct pn *n)
{
    struct expr_node *x;

    switch (n->k) {
    case PN_BIN:
        switch (n->op) {
        case OP_AND:
        case OP_OR:
            return pair(L, n->op == OP_AND ? NODE_AND : NODE_OR,
                        cond(L, n->kids[0]), cond(L, n->kids[1]));
        case OP_EQ: case OP_NE: case OP_LT: case OP_LE: case OP_GT:
        case OP_GE:
            return compare(L, n);
        default:
            return unsupported(L, n);
        }
    case PN_NOT:
        return unary(L, NODE_NOT, cond(L, n->kids[0]));
    case PN_BETWEEN:
        x = pql_node(L->a, NODE_BETWEEN, 3);
        if ((x->args[0] = operand(L, n->kids[0])) == NULL ||
            (x->args[1] = operand(L, n->kids[1])) == NULL ||
            (x->args[2] = operand(L, n->kids[2])) == NULL)
            return NULL;
        return n->neg ? unary(L, NODE_NOT, x) : x;
    case PN_IN:
        return in_list(L, n);
    case PN_IS:
        return is_type(L, n);
    case PN_CALL:
        return call(L, n);
    default:
        return unsupported(L, n);
    }
}

int
pql_cond_lower(struct pql_stmt *s, const struct pn *where,
               const json_t *params, struct ddb_err *err)
{
    struct lower L = { s, &s->arena, params, err };
    struct expr *e;
    struct expr_node *root = cond(&L, where);
    int rc;

    if (root == NULL)
        return -1;
    /* The expression engine's checks: operand types ("Incorrect operand
     * type for operator or function; operator or function: <, operand
     * type: BOOL"), function operands, BETWEEN bounds: DynamoDB reports
     * them as for a ConditionExpression, without the "Invalid ...:"
     * prefix (comparison.test.ts, partiqlFunctions.test.ts). */
    e = expr_new(EXPR_CONDITION);
    e->raw_names = true;
    e->root = root;
    rc = resolve_expr(e, NULL, err);
    expr_free(e);
    if (rc == 0)
        s->where = root;
    return rc;
}

/* ------------------------------------------------------------------------
 * Reading the lowered clause: conjuncts, key equalities
 * ---------------------------------------------------------------------- */

struct nodes {
    const struct expr_node **v;
    int n, cap;
};

static void
nodes_push(struct nodes *l, const struct expr_node *x)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 8;
        l->v = xrealloc(l->v, (size_t)l->cap * sizeof(*l->v));
    }
    l->v[l->n++] = x;
}

/* The operands of the top-level chain of t (NODE_AND or NODE_OR). */
static void
flatten(const struct expr_node *x, enum node_type t, struct nodes *out)
{
    if (x->type == t) {
        flatten(x->args[0], t, out);
        flatten(x->args[1], t, out);
    } else {
        nodes_push(out, x);
    }
}

static bool
is_attr(const struct expr_node *x, const char *name)
{
    return name != NULL && x->type == NODE_PATH && x->path.n == 1 &&
           !x->path.el[0].is_index && strcmp(x->path.el[0].name, name) == 0;
}

/* x is "name = value" (either way round): the value, else NULL. */
static const json_t *
key_eq(const struct expr_node *x, const char *name)
{
    if (x->type != NODE_CMP || x->op != CMP_EQ)
        return NULL;
    if (is_attr(x->args[0], name) && x->args[1]->type == NODE_VALUE)
        return x->args[1]->value;
    if (is_attr(x->args[1], name) && x->args[0]->type == NODE_VALUE)
        return x->args[0]->value;
    return NULL;
}

/* A key value's type against the schema's ('S', 'N' or 'B'). */
static int
check_key_type(const json_t *v, const char *name, char type,
               struct ddb_err *err)
{
    const char *t = av_type(v);

    if (t == NULL || t[1] != '\0' || (t[0] != 'S' && t[0] != 'N' &&
                                      t[0] != 'B'))
        return ddb_err_set(err, DDB_VALIDATION, "Key value must be of type "
                           "S, N, or B. Key name: %s, Key type: %s", name,
                           t != NULL ? t : "");
    if (t[0] != type)
        return ddb_err_set(err, DDB_VALIDATION, MSG_KEY_TYPE, name);
    return 0;
}

/* A condition expression over the nodes (ANDed), borrowing them. */
static struct expr *
and_expr(const struct nodes *l)
{
    struct expr *e = expr_new(EXPR_CONDITION);
    struct expr_node *root = (struct expr_node *)l->v[0];
    int i;

    e->raw_names = true;
    for (i = 1; i < l->n; i++) {
        struct expr_node *x = pql_node(&e->arena, NODE_AND, 2);

        x->args[0] = root;
        x->args[1] = (struct expr_node *)l->v[i];
        root = x;
    }
    e->root = root;
    return e;
}

int
pql_key_split(const struct pql_stmt *s, const struct key_schema *ks,
              json_t **key, struct expr **cond_out, struct ddb_err *err)
{
    const char *names[2] = { ks->hash_name, ks->range_name };
    const char types[2] = { ks->hash_type, ks->range_type };
    struct nodes all = { 0 }, rest = { 0 };
    bool *used = NULL;
    int i, k, rc = -1;

    *key = NULL;
    *cond_out = NULL;
    if (s->where == NULL)
        return ddb_err_set(err, DDB_VALIDATION, MSG_KEY_EQ);
    flatten(s->where, NODE_AND, &all);
    used = xcalloc((size_t)all.n, sizeof(*used));
    *key = json_object();
    for (k = 0; k < 2; k++) {
        const json_t *v = NULL;

        if (names[k][0] == '\0')
            continue;
        for (i = 0; i < all.n && v == NULL; i++)
            if (!used[i] && (v = key_eq(all.v[i], names[k])) != NULL)
                used[i] = true;
        if (v == NULL) {
            ddb_err_set(err, DDB_VALIDATION, MSG_KEY_EQ);
            goto out;
        }
        if (check_key_type(v, names[k], types[k], err) != 0)
            goto out;
        json_object_set_new(*key, names[k], json_clone(v));
    }
    for (i = 0; i < all.n; i++)
        if (!used[i])
            nodes_push(&rest, all.v[i]);
    if (rest.n > 0)
        *cond_out = and_expr(&rest);
    rc = 0;
out:
    if (rc != 0) {
        json_decref(*key);
        *key = NULL;
    }
    free(used);
    free(all.v);
    free(rest.v);
    return rc;
}

struct expr *
pql_filter(const struct pql_stmt *s)
{
    struct nodes one = { 0 };
    struct expr *e;

    if (s->where == NULL)
        return NULL;
    nodes_push(&one, s->where);
    e = and_expr(&one);
    free(one.v);
    return e;
}

/* ------------------------------------------------------------------------
 * SELECT: the Queries of a WHERE clause
 * ---------------------------------------------------------------------- */

/* Whether x names only the key attributes (hash, range). */
static bool
keys_only(const struct expr_node *x, const char *hash, const char *range)
{
    int i;

    if (x->type == NODE_PATH)
        return strcmp(x->path.el[0].name, hash) == 0 ||
               (range != NULL && strcmp(x->path.el[0].name, range) == 0);
    for (i = 0; i < x->nargs; i++)
        if (!keys_only(x->args[i], hash, range))
            return false;
    return true;
}

/* x is a condition on the sort key DynamoDB's Query takes (=, <, <=, >,
 * >=, BETWEEN, begins_with, with values); fills b's sort-key part. */
static bool
sk_cond(const struct expr_node *x, const char *range,
        struct pql_branch *b)
{
    static const enum keycond_op ops[] = {
        [CMP_EQ] = KC_EQ, [CMP_LT] = KC_LT, [CMP_LE] = KC_LE,
        [CMP_GT] = KC_GT, [CMP_GE] = KC_GE,
    };
    static const enum keycond_op flip[] = {
        [CMP_EQ] = KC_EQ, [CMP_LT] = KC_GT, [CMP_LE] = KC_GE,
        [CMP_GT] = KC_LT, [CMP_GE] = KC_LE,
    };

    if (x->type == NODE_CMP && x->op != CMP_NE) {
        if (is_attr(x->args[0], range) && x->args[1]->type == NODE_VALUE) {
            b->op = ops[x->op];
            b->v1 = x->args[1]->value;
            return true;
        }
        if (is_attr(x->args[1], range) && x->args[0]->type == NODE_VALUE) {
            b->op = flip[x->op];
            b->v1 = x->args[0]->value;
            return true;
        }
        return false;
    }
    if (x->type == NODE_BETWEEN && is_attr(x->args[0], range) &&
        x->args[1]->type == NODE_VALUE && x->args[2]->type == NODE_VALUE) {
        b->op = KC_BETWEEN;
        b->v1 = x->args[1]->value;
        b->v2 = x->args[2]->value;
        return true;
    }
    if (x->type == NODE_FUNC && x->op == F_BEGINS_WITH && x->nargs == 2 &&
        is_attr(x->args[0], range) && x->args[1]->type == NODE_VALUE) {
        b->op = KC_BEGINS_WITH;
        b->v1 = x->args[1]->value;
        return true;
    }
    return false;
}

/* One OR branch as DynamoDB reads it. */
struct branch {
    struct nodes pk;                /* partition key values (NODE_VALUE) */
    struct pql_branch sk;           /* its sort-key condition, if any */
    bool nonkey;                    /* a condition on another attribute */
};

static int
read_branch(const struct expr_node *x, const char *hash, char htype,
            const char *range, char rtype, struct branch *br,
            struct ddb_err *err)
{
    struct nodes conj = { 0 };
    int i, j, rc = -1;
    bool pk_seen = false, sk_seen = false;

    flatten(x, NODE_AND, &conj);
    for (i = 0; i < conj.n; i++) {
        const struct expr_node *c = conj.v[i];
        const json_t *v;

        if (!pk_seen && (v = key_eq(c, hash)) != NULL) {
            pk_seen = true;
            nodes_push(&br->pk, c->args[0]->type == NODE_VALUE ? c->args[0]
                                                               : c->args[1]);
            if (check_key_type(v, hash, htype, err) != 0)
                goto out;
            continue;
        }
        if (!pk_seen && c->type == NODE_IN && is_attr(c->args[0], hash)) {
            for (j = 1; j < c->nargs && c->args[j]->type == NODE_VALUE; j++)
                ;
            if (j == c->nargs) {
                pk_seen = true;
                for (j = 1; j < c->nargs; j++) {
                    nodes_push(&br->pk, c->args[j]);
                    if (check_key_type(c->args[j]->value, hash, htype,
                                       err) != 0)
                        goto out;
                }
                continue;
            }
        }
        if (!sk_seen && range != NULL && sk_cond(c, range, &br->sk)) {
            sk_seen = true;
            if (check_key_type(br->sk.v1, range, rtype, err) != 0 ||
                (br->sk.v2 != NULL &&
                 check_key_type(br->sk.v2, range, rtype, err) != 0))
                goto out;
            continue;
        }
        if (!keys_only(c, hash, range))
            br->nonkey = true;
    }
    rc = 0;
out:
    free(conj.v);
    return rc;
}

int
pql_plan(const struct pql_stmt *s, const char *hash, char htype,
         const char *range, char rtype, struct pql_plan *plan,
         struct ddb_err *err)
{
    struct nodes ors = { 0 };
    struct branch *br = NULL;
    int i, j, k;
    size_t m;
    int rc = -1;

    memset(plan, 0, sizeof(*plan));
    if (s->where == NULL)
        return 0;
    flatten(s->where, NODE_OR, &ors);
    br = xcalloc((size_t)ors.n, sizeof(*br));
    for (i = 0; i < ors.n; i++)
        if (read_branch(ors.v[i], hash, htype, range, rtype, &br[i],
                        err) != 0)
            goto out;
    for (i = 0; i < ors.n; i++)
        if (br[i].pk.n == 0) {      /* some branch reads every key: Scan */
            rc = 0;
            goto out;
        }
    plan->keyed = ors.n == 1;
    /* Branches that share a partition key value, one with a sort-key
     * condition and another with a condition on another attribute,
     * overlap (whereOverlap.test.ts, partiqlGrammar.test.ts, 2026-10). */
    for (i = 0; i < ors.n; i++)
        for (j = 0; j < ors.n; j++)
            if (i != j && br[i].sk.op != KC_NONE && br[j].nonkey)
                for (k = 0; k < br[i].pk.n; k++)
                    for (m = 0; m < (size_t)br[j].pk.n; m++)
                        if (av_equal(br[i].pk.v[k]->value,
                                     br[j].pk.v[m]->value)) {
                            ddb_err_set(err, DDB_VALIDATION, "Overlapping "
                                        "conditions with range keys are "
                                        "not supported in where clause");
                            goto out;
                        }
    /* One Query per partition key value, in order of appearance; a value
     * two branches share reads its whole partition. */
    for (i = 0; i < ors.n; i++)
        for (k = 0; k < br[i].pk.n; k++) {
            const json_t *v = br[i].pk.v[k]->value;

            for (m = 0; m < plan->n && !av_equal(plan->b[m].pk, v); m++)
                ;
            if (m < plan->n) {
                plan->b[m].op = KC_NONE;
                plan->b[m].v1 = plan->b[m].v2 = NULL;
                continue;
            }
            plan->b = xrealloc(plan->b, (plan->n + 1) * sizeof(*plan->b));
            plan->b[plan->n] = br[i].sk;
            plan->b[plan->n].pk = v;
            plan->n++;
        }
    rc = 0;
out:
    for (i = 0; br != NULL && i < ors.n; i++)
        free(br[i].pk.v);
    free(br);
    free(ors.v);
    if (rc != 0 || (plan->n == 0 && plan->b != NULL))
        pql_plan_fini(plan);
    return rc;
}

void
pql_plan_fini(struct pql_plan *plan)
{
    free(plan->b);
    memset(plan, 0, sizeof(*plan));
}

/* A path node for one attribute name (borrowed). */
static struct expr_node *
attr_node(struct arena *a, const char *name)
{
    struct expr_node *x = pql_node(a, NODE_PATH, 0);

    x->path.n = 1;
    x->path.el = arena_alloc(a, sizeof(*x->path.el));
    x->path.el[0].name = name;
    x->path.el[0].name_len = strlen(name);
    return x;
}

static struct expr_node *
val(struct arena *a, const json_t *v)
{
    struct expr_node *x = pql_node(a, NODE_VALUE, 0);

    x->value = v;
    return x;
}

struct expr *
pql_keycond(const struct pql_branch *b, const char *hash, const char *range)
{
    static const int cmp[] = {
        [KC_EQ] = CMP_EQ, [KC_LT] = CMP_LT, [KC_LE] = CMP_LE,
        [KC_GT] = CMP_GT, [KC_GE] = CMP_GE,
    };
    struct expr *e = expr_new(EXPR_KEY_CONDITION);
    struct arena *a = &e->arena;
    struct expr_node *pk = pql_node(a, NODE_CMP, 2), *sk, *root;

    e->raw_names = true;
    pk->op = CMP_EQ;
    pk->args[0] = attr_node(a, hash);
    pk->args[1] = val(a, b->pk);
    root = pk;
    if (b->op != KC_NONE && range != NULL) {
        if (b->op == KC_BETWEEN) {
            sk = pql_node(a, NODE_BETWEEN, 3);
            sk->args[2] = val(a, b->v2);
        } else if (b->op == KC_BEGINS_WITH) {
            sk = pql_node(a, NODE_FUNC, 2);
            sk->op = F_BEGINS_WITH;
            sk->fname = "begins_with";
        } else {
            sk = pql_node(a, NODE_CMP, 2);
            sk->op = cmp[b->op];
        }
        sk->args[0] = attr_node(a, range);
        sk->args[1] = val(a, b->v1);
        root = pql_node(a, NODE_AND, 2);
        root->args[0] = pk;
        root->args[1] = sk;
    }
    e->root = root;
    return e;
}

/* The top-level attribute names x's paths start with. */
static void
heads(const struct expr_node *x, const char **out, size_t cap, size_t *n)
{
    int i;

    if (x->type == NODE_PATH) {
        if (*n < cap)
            out[*n] = x->path.el[0].name;
        (*n)++;
        return;
    }
    for (i = 0; i < x->nargs; i++)
        heads(x->args[i], out, cap, n);
}

size_t
pql_where_heads(const struct pql_stmt *s, const char **out, size_t cap)
{
    size_t n = 0;

    if (s->where != NULL)
        heads(s->where, out, cap, &n);
    return n;
}

struct expr *
pql_guard(struct expr *cond, const char *attr, enum pql_guard g)
{
    struct expr *e;
    struct expr_node *x, *root;

    if (cond == NULL && g == PQL_GUARD_IF_EXISTS)
        return NULL;
    e = cond != NULL ? cond : expr_new(EXPR_CONDITION);
    e->raw_names = true;
    x = pql_node(&e->arena, NODE_FUNC, 1);
    x->op = g == PQL_GUARD_EXISTS ? F_ATTRIBUTE_EXISTS
                                  : F_ATTRIBUTE_NOT_EXISTS;
    x->fname = g == PQL_GUARD_EXISTS ? "attribute_exists"
                                     : "attribute_not_exists";
    x->args[0] = attr_node(&e->arena, attr);
    if (cond == NULL) {
        e->root = x;
        return e;
    }
    root = pql_node(&e->arena, g == PQL_GUARD_IF_EXISTS ? NODE_OR : NODE_AND,
                    2);
    root->args[0] = x;
    root->args[1] = e->root;
    e->root = root;
    return e;
}
