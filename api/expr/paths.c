/* SPDX-License-Identifier: MIT */
/* paths.c - the document paths of a parsed expression: printed as
 * DynamoDB's messages print them, walked in text order, and DynamoDB's
 * rules about key attributes in them: a key is not updated, not reached
 * into with '.' or '[]', and not named by a Query filter (api/ops/). */

#include <stdio.h>
#include <string.h>

#include "api/expr/expr_int.h"

/* A path as DynamoDB prints it in messages, "[a, b, [2]]", in arena a. */
char *
path_str(struct arena *a, const struct expr_path *p)
{
    size_t cap = 3, n = 0;
    char *s;
    int i;

    for (i = 0; i < p->n; i++)
        cap += 2 + (p->el[i].is_index ? 24 :
                    (p->el[i].name ? strlen(p->el[i].name) :
                     strlen(p->el[i].ref)));
    s = arena_alloc(a, cap);
    s[n++] = '[';
    for (i = 0; i < p->n; i++) {
        const struct path_elem *el = &p->el[i];

        if (i > 0) {
            memcpy(s + n, ", ", 2);
            n += 2;
        }
        if (el->is_index)
            n += (size_t)snprintf(s + n, cap - n, "[%ld]", el->index);
        else
            n += (size_t)snprintf(s + n, cap - n, "%s",
                                  el->name ? el->name : el->ref);
    }
    s[n++] = ']';
    s[n] = '\0';
    return s;
}

/* ------------------------------------------------------------------------
 * Walking the paths
 * ---------------------------------------------------------------------- */

static bool
walk_node(const struct expr_node *n, path_fn *fn, void *arg)
{
    int i;

    if (n == NULL)
        return true;
    if (n->type == NODE_PATH)
        return fn(&n->path, arg);
    for (i = 0; i < n->nargs; i++)
        if (!walk_node(n->args[i], fn, arg))
            return false;
    return true;
}

/*
 * Call fn on every document path of e in the order the text has them:
 * the operands of a condition, the paths of a projection, each update
 * action's target and then its operands. Returns false as soon as fn
 * does (the walk stops there), true otherwise or when e is NULL.
 */
bool
path_walk(const struct expr *e, path_fn *fn, void *arg)
{
    int i;

    if (e == NULL)
        return true;
    if (!walk_node(e->root, fn, arg))
        return false;
    for (i = 0; i < e->npaths; i++)
        if (!walk_node(e->paths[i], fn, arg))
            return false;
    for (i = 0; i < e->nacts; i++)
        if (!walk_node(e->acts[i].path, fn, arg) ||
            !walk_node(e->acts[i].value, fn, arg))
            return false;
    return true;
}

/* The attribute path p starts at: its name, or for a #name the
 * resolution left alone (path_check_key_scalars() on a syntax-only parse)
 * its value in names. NULL if there is none; its bytes in *len. */
static const char *
head_name(const struct expr_path *p, const json_t *names, size_t *len)
{
    const struct path_elem *el = &p->el[0];
    const json_t *v;

    if (el->is_index)
        return NULL;
    if (el->name != NULL) {
        *len = el->name_len;
        return el->name;
    }
    v = json_object_get(names, el->ref);
    *len = json_string_length(v);
    return json_string_value(v);
}

/* name (len bytes) is the attribute called s. */
static bool
name_is(const char *name, size_t len, const char *s)
{
    return len == strlen(s) && memcmp(name, s, len) == 0;
}

bool
path_elem_is(const struct path_elem *el, const char *s)
{
    return !el->is_index && el->name != NULL &&
           name_is(el->name, el->name_len, s);
}

/* ------------------------------------------------------------------------
 * Key attributes
 * ---------------------------------------------------------------------- */

/*
 * Reject updates of key attributes, partition key first, as DynamoDB
 * does (overlapping and conflicting paths were rejected by expr_parse).
 */
int
expr_update_check(const struct expr *e, const struct key_schema *ks,
                  struct ddb_err *err)
{
    const char *keys[2] = { ks->hash_name, ks->range_name };
    int k, i;

    if (e == NULL)
        return 0;
    for (k = 0; k < 2; k++) {
        if (keys[k][0] == '\0')
            continue;
        for (i = 0; i < e->nacts; i++) {
            const struct path_elem *el = &e->acts[i].path->path.el[0];

            if (path_elem_is(el, keys[k]))
                return ddb_err_set(err, DDB_VALIDATION,
                                   "One or more parameter values were "
                                   "invalid: Cannot update attribute %s. "
                                   "This attribute is part of the key",
                                   keys[k]);
        }
    }
    return 0;
}

struct key_scan {
    const struct key_schema *ks;
    const json_t *names;            /* for unresolved #names, or NULL */
    const char *key;                /* the key attribute found */
};

/* A path_fn: stop at a path reaching into a key attribute. */
static bool
nested_key(const struct expr_path *p, void *arg)
{
    struct key_scan *k = arg;
    const char *name;
    size_t len;

    if (p->n < 2)
        return true;
    name = head_name(p, k->names, &len);
    if (name == NULL)
        return true;
    if (name_is(name, len, k->ks->hash_name) ||
        (k->ks->range_name[0] != '\0' &&
         name_is(name, len, k->ks->range_name))) {
        k->key = name;
        return false;
    }
    return true;
}

/* expr_check_key_scalars() over e, whose unresolved #names (if any) are
 * looked up in names. */
int
path_check_key_scalars(const struct expr *e, const json_t *names,
                       const struct key_schema *ks, struct ddb_err *err)
{
    struct key_scan k = { ks, names, NULL };

    if (path_walk(e, nested_key, &k))
        return 0;
    return ddb_err_set(err, DDB_VALIDATION, "Key attributes must be "
                       "scalars; list random access '[]' and map lookup "
                       "'.' are not allowed: Key: %s", k.key);
}

/*
 * Key attributes are scalars: DynamoDB rejects an expression that reaches
 * into one with '.' or '[]' (ProjectionExpression "#k.a" or "k[0]",
 * UpdateExpression "SET k.a = :v") with "Key attributes must be scalars;
 * list random access '[]' and map lookup '.' are not allowed: Key: k",
 * naming the first such path in the text. 0 when e is NULL.
 */
int
expr_check_key_scalars(const struct expr *e, const struct key_schema *ks,
                       struct ddb_err *err)
{
    return path_check_key_scalars(e, NULL, ks, err);
}

struct head_scan {
    const char *attr;
    enum expr_head_use use;
};

/* A path_fn: how this path uses h->attr as its head; stop once nested. */
static bool
head_use(const struct expr_path *p, void *arg)
{
    struct head_scan *h = arg;
    size_t len;
    const char *name = head_name(p, NULL, &len);

    if (name == NULL || !name_is(name, len, h->attr))
        return true;
    if (p->n > 1) {
        h->use = EXPR_HEAD_NESTED;
        return false;
    }
    h->use = EXPR_HEAD_SCALAR;
    return true;
}

/* How e (resolved; NULL uses nothing) uses attribute attr as the head of
 * its document paths: not at all, only alone, or reaching into it with
 * '.' or '[]' somewhere (which wins). */
enum expr_head_use
expr_head_use(const struct expr *e, const char *attr)
{
    struct head_scan h = { attr, EXPR_HEAD_NONE };

    path_walk(e, head_use, &h);
    return h.use;
}

/* ------------------------------------------------------------------------
 * A condition as clauses joined by AND
 * ---------------------------------------------------------------------- */

/* Describe clause n (not an AND) into c. */
static void
clause_of(const struct expr_node *n, struct expr_clause *c)
{
    int i;

    memset(c, 0, sizeof(*c));
    switch (n->type) {
    case NODE_OR: c->op = EXPR_CLAUSE_OR; break;
    case NODE_NOT: c->op = EXPR_CLAUSE_NOT; break;
    case NODE_BETWEEN: c->op = EXPR_CLAUSE_BETWEEN; break;
    case NODE_IN: c->op = EXPR_CLAUSE_IN; break;
    case NODE_CMP:
        c->op = n->op == CMP_EQ ? EXPR_CLAUSE_EQ : EXPR_CLAUSE_CMP;
        break;
    default: c->op = EXPR_CLAUSE_FUNC; break;
    }
    for (i = 0; i < n->nargs; i++) {
        const struct expr_node *a = n->args[i];

        if (a->type == NODE_PATH && a->path.n > 0 && !a->path.el[0].is_index) {
            if (c->attr != NULL) {
                c->two_paths = true;
                continue;
            }
            c->attr = a->path.el[0].name;
            c->nested = a->path.n > 1;
        } else if (a->type == NODE_VALUE && c->op == EXPR_CLAUSE_EQ) {
            c->value = a->value;
        } else if (a->type != NODE_VALUE && c->attr == NULL &&
                   c->op != EXPR_CLAUSE_EQ && c->op != EXPR_CLAUSE_CMP) {
            struct expr_clause inner;

            clause_of(a, &inner);
            c->attr = inner.attr;
            c->nested = inner.nested;
        }
    }
}

static int
clauses_of(const struct expr_node *n, expr_clause_fn *fn, void *arg,
           struct ddb_err *err)
{
    struct expr_clause c;
    int rc;

    if (n->type == NODE_AND) {
        rc = clauses_of(n->args[0], fn, arg, err);
        return rc != 0 ? rc : clauses_of(n->args[1], fn, arg, err);
    }
    clause_of(n, &c);
    return fn(arg, &c, err);
}

int
expr_clauses(const struct expr *e, expr_clause_fn *fn, void *arg,
             struct ddb_err *err)
{
    if (e == NULL || e->root == NULL)
        return 0;
    return clauses_of(e->root, fn, arg, err);
}

/* A path_fn: append the path's head to the array arg unless it is there. */
static bool
head_collect(const struct expr_path *p, void *arg)
{
    json_t *names = arg, *n;
    size_t len, i;
    const char *name = head_name(p, NULL, &len);

    if (name == NULL)
        return true;
    json_array_foreach(names, i, n)
        if (name_is(name, len, json_string_value(n)))
            return true;
    json_array_append_new(names, json_stringn(name, len));
    return true;
}

/* The attributes heading e's document paths, each once, in the order of
 * the text (e resolved; NULL: none). New reference. */
json_t *
expr_head_names(const struct expr *e)
{
    json_t *names = json_array();

    path_walk(e, head_collect, names);
    return names;
}
