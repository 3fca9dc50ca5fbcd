/* SPDX-License-Identifier: MIT */
/* eval.c - evaluation of resolved expressions against an item:
 * conditions and filters, projections, and update application, with
 * DynamoDB's comparison rules (api/proto/av.h) and exact decimal arithmetic
 * (storage.h num_add/num_sub). */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/expr/expr_int.h"
#include "api/expr/legacy.h"
#include "storage/util.h"

#define MSG_NO_ATTR "The provided expression refers to an attribute that " \
                    "does not exist in the item"
#define MSG_BAD_TYPE "An operand in the update expression has an " \
                     "incorrect data type"
#define MSG_BAD_PATH "The document path provided in the update expression " \
                     "is invalid for update"
/* The same mismatch reached through the legacy AttributeUpdates (ADD or
 * DELETE onto an attribute of another type); the message is listed among
 * TransactionCanceledException's reasons in the API reference and was
 * recorded by dynalite's tests against DynamoDB. */
#define MSG_LEGACY_TYPE "Type mismatch for attribute to update"

/* ------------------------------------------------------------------------
 * Shared helpers
 * ---------------------------------------------------------------------- */

/* The single type key of an AttributeValue, or NULL. */
const char *
node_av_type(const json_t *av)
{
    const char *key;
    json_t *val;

    if (!json_is_object(av) || json_object_size(av) != 1)
        return NULL;
    json_object_foreach((json_t *)av, key, val)
        return key;
    return NULL;
}

/* The child of av at el: a map member or a list element. */
static json_t *
child_get(const json_t *av, const struct path_elem *el)
{
    json_t *c;

    if (el->is_index) {
        c = json_object_get(av, "L");
        if (!json_is_array(c) || el->index < 0 ||
            (size_t)el->index >= json_array_size(c))
            return NULL;
        c = json_array_get(c, (size_t)el->index);
    } else {
        c = json_object_get(av, "M");
        if (!json_is_object(c) || el->name == NULL)
            return NULL;
        c = json_object_getn(c, el->name, el->name_len);
    }
    return json_is_object(c) ? c : NULL;   /* skips list placeholders */
}

/* The first n elements of p resolved in item, NULL if absent. */
static json_t *
path_get_n(const json_t *item, const struct expr_path *p, int n)
{
    json_t *v;
    int i;

    if (item == NULL || n < 1 || p->el[0].is_index || p->el[0].name == NULL)
        return NULL;
    v = json_object_getn(item, p->el[0].name, p->el[0].name_len);
    for (i = 1; v != NULL && i < n; i++)
        v = child_get(v, &p->el[i]);
    return json_is_object(v) ? v : NULL;
}

/* The AttributeValue at p in item (borrowed), NULL if absent. */
const json_t *
path_get(const json_t *item, const struct expr_path *p)
{
    return path_get_n(item, p, p->n);
}

/* Raw bytes of an S or B value (B decoded); caller frees *buf. */
static bool
scalar_bytes(const json_t *av, const char *type, unsigned char **buf,
             size_t *len)
{
    const json_t *v = json_get_one(av, type);
    const char *s = json_string_value(v);

    if (s == NULL)
        return false;
    if (type[0] == 'B') {
        *buf = av_b64_decode(s, json_string_length(v), len);
        return true;
    }
    *len = json_string_length(v);
    *buf = xmalloc(*len + 1);
    memcpy(*buf, s, *len);
    return true;
}

/* Whether members a and b of a set of type t ("SS", "NS", "BS") are equal. */
static bool
member_equal(const char *t, const json_t *a, const json_t *b)
{
    const char *x = json_string_value(a), *y = json_string_value(b);
    unsigned char *bx, *by;
    size_t lx, ly;
    bool eq;

    if (x == NULL || y == NULL)
        return false;
    if (t[0] == 'N')
        return num_cmp(x, y) == 0;
    if (t[0] == 'S')
        return json_string_length(a) == json_string_length(b) &&
               memcmp(x, y, json_string_length(a)) == 0;
    bx = av_b64_decode(x, json_string_length(a), &lx);
    by = av_b64_decode(y, json_string_length(b), &ly);
    eq = lx == ly && memcmp(bx, by, lx) == 0;
    free(bx);
    free(by);
    return eq;
}

/* ------------------------------------------------------------------------
 * Conditions
 * ---------------------------------------------------------------------- */

struct val {
    const json_t *v;                /* NULL when missing */
    json_t *owned;                  /* computed values (size) */
};

static void
val_fini(struct val *v)
{
    json_decref(v->owned);
    v->owned = NULL;
    v->v = NULL;
}

static json_t *
size_of(const json_t *av)
{
    const char *t = node_av_type(av);
    const json_t *x;
    char buf[32];
    size_t n;

    if (t == NULL)
        return NULL;
    x = json_get_one(av, t);
    if (strcmp(t, "S") == 0) {
        /* DynamoDB counts UTF-16 code units: size("é𝄞") is 3
         * (test_expr_eval). */
        const unsigned char *p = (const unsigned char *)json_string_value(x);
        size_t i, len = json_string_length(x);

        n = 0;
        for (i = 0; p != NULL && i < len; i++) {
            if ((p[i] & 0xC0) != 0x80)
                n++;
            if (p[i] >= 0xF0)
                n++;                /* outside the BMP: a surrogate pair */
        }
    } else if (strcmp(t, "B") == 0) {
        if (!json_is_string(x))
            return NULL;
        n = item_b64_len(json_string_value(x), json_string_length(x));
    } else if (strcmp(t, "SS") == 0 || strcmp(t, "NS") == 0 ||
               strcmp(t, "BS") == 0 || strcmp(t, "L") == 0) {
        n = json_array_size(x);
    } else if (strcmp(t, "M") == 0) {
        n = json_object_size(x);
    } else {
        return NULL;                /* N, BOOL, NULL have no size */
    }
    snprintf(buf, sizeof(buf), "%zu", n);
    return json_pack("{s:s}", "N", buf);
}

static void
eval_operand(const struct expr_node *n, const json_t *item, struct val *out)
{
    out->v = NULL;
    out->owned = NULL;
    switch (n->type) {
    case NODE_PATH:
        out->v = path_get(item, &n->path);
        break;
    case NODE_VALUE:
        out->v = n->value;
        break;
    case NODE_FUNC:
        if (n->op == F_SIZE && n->nargs == 1) {
            struct val a;

            eval_operand(n->args[0], item, &a);
            if (a.v != NULL)
                out->owned = size_of(a.v);
            out->v = out->owned;
            val_fini(&a);
        }
        break;
    default:
        break;
    }
}

static bool
cmp_values(int op, const json_t *a, const json_t *b)
{
    bool comparable = false;
    int c;

    if (op == CMP_EQ)
        return a != NULL && b != NULL && av_equal(a, b);
    if (op == CMP_NE)
        return !(a != NULL && b != NULL && av_equal(a, b));
    if (a == NULL || b == NULL)
        return false;
    c = av_compare(a, b, &comparable);
    if (!comparable)
        return false;
    switch (op) {
    case CMP_LT: return c < 0;
    case CMP_LE: return c <= 0;
    case CMP_GT: return c > 0;
    case CMP_GE: return c >= 0;
    default: return false;
    }
}

static bool
fn_begins_with(const json_t *a, const json_t *b)
{
    const char *ta = node_av_type(a), *tb = node_av_type(b);
    unsigned char *x = NULL, *y = NULL;
    size_t lx, ly;
    bool r = false;

    if (ta == NULL || tb == NULL || strcmp(ta, tb) != 0 ||
        (strcmp(ta, "S") != 0 && strcmp(ta, "B") != 0))
        return false;
    if (scalar_bytes(a, ta, &x, &lx) && scalar_bytes(b, tb, &y, &ly))
        r = ly <= lx && memcmp(x, y, ly) == 0;
    free(x);
    free(y);
    return r;
}

static bool
fn_contains(const json_t *a, const json_t *b)
{
    const char *ta = node_av_type(a), *tb = node_av_type(b);
    const json_t *arr;
    size_t i;

    if (ta == NULL || tb == NULL)
        return false;
    if ((strcmp(ta, "S") == 0 || strcmp(ta, "B") == 0) &&
        strcmp(ta, tb) == 0) {
        unsigned char *x = NULL, *y = NULL;
        size_t lx, ly;
        bool r = false;

        if (scalar_bytes(a, ta, &x, &lx) && scalar_bytes(b, tb, &y, &ly))
            r = ly == 0 || memmem(x, lx, y, ly) != NULL;
        free(x);
        free(y);
        return r;
    }
    arr = json_object_get(a, ta);
    if (strcmp(ta, "L") == 0) {
        for (i = 0; i < json_array_size(arr); i++)
            if (av_equal(json_array_get(arr, i), b))
                return true;
        return false;
    }
    if (strlen(ta) == 2 && ta[1] == 'S' && tb[1] == '\0' && ta[0] == tb[0]) {
        const json_t *m = json_object_get(b, tb);

        for (i = 0; i < json_array_size(arr); i++)
            if (member_equal(ta, json_array_get(arr, i), m))
                return true;
    }
    return false;
}

/* ------------------------------------------------------------------------
 * Long IN lists: constants in order, searched by bisection
 * ---------------------------------------------------------------------- */

/* IN lists shorter than this are compared one by one. */
#define IN_SORT_MIN 16

/* The order of S, N and B constants: by type, then by value. */
static int
in_cmp(const json_t *a, const json_t *b)
{
    const char *ta = node_av_type(a), *tb = node_av_type(b);
    bool comparable = false;
    int c = strcmp(ta, tb);

    if (c != 0)
        return c;
    c = av_compare(a, b, &comparable);
    return comparable ? c : 0;
}

static int
in_qsort_cmp(const void *x, const void *y)
{
    const struct expr_node *const *a = x, *const *b = y;

    return in_cmp((*a)->value, (*b)->value);
}

static bool
is_sortable(const json_t *av)
{
    const char *t = node_av_type(av);

    return t != NULL && t[1] == '\0' && (t[0] == 'S' || t[0] == 'N' ||
                                         t[0] == 'B');
}

/* Sort the operands of every long IN list under n whose right side is
 * all S, N and B constants (a legacy IN has up to tens of thousands);
 * IN is membership, so their order means nothing else. */
static void
prepare_node(struct expr_node *n)
{
    int i;

    if (n == NULL)
        return;
    if (n->type == NODE_IN && n->nargs > IN_SORT_MIN) {
        for (i = 1; i < n->nargs; i++)
            if (n->args[i]->type != NODE_VALUE ||
                !is_sortable(n->args[i]->value))
                break;
        if (i == n->nargs) {
            qsort(n->args + 1, (size_t)n->nargs - 1, sizeof(*n->args),
                  in_qsort_cmp);
            n->sorted = true;
        }
        return;
    }
    if (n->type == NODE_AND || n->type == NODE_OR || n->type == NODE_NOT)
        for (i = 0; i < n->nargs; i++)
            prepare_node(n->args[i]);
}

void
eval_prepare(struct expr *e)
{
    if (e != NULL && (e->kind == EXPR_CONDITION || e->kind == EXPR_FILTER))
        prepare_node(e->root);
}

/* Whether v (NULL: missing) equals one of n's sorted operands. */
static bool
in_sorted(const struct expr_node *n, const json_t *v)
{
    size_t lo = 1, hi = (size_t)n->nargs;

    if (v == NULL || !is_sortable(v))
        return false;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = in_cmp(v, n->args[mid]->value);

        if (c == 0)
            return true;
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return false;
}

static int
eval_cond(const struct expr_node *n, const json_t *item, bool *res)
{
    struct val a, b, c;
    bool x;
    int i;

    switch (n->type) {
    case NODE_AND:
        eval_cond(n->args[0], item, &x);
        if (x)
            eval_cond(n->args[1], item, &x);
        *res = x;
        return 0;
    case NODE_OR:
        eval_cond(n->args[0], item, &x);
        if (!x)
            eval_cond(n->args[1], item, &x);
        *res = x;
        return 0;
    case NODE_NOT:
        eval_cond(n->args[0], item, &x);
        *res = !x;
        return 0;
    case NODE_CMP:
        eval_operand(n->args[0], item, &a);
        eval_operand(n->args[1], item, &b);
        *res = cmp_values(n->op, a.v, b.v);
        val_fini(&a);
        val_fini(&b);
        return 0;
    case NODE_BETWEEN:
        eval_operand(n->args[0], item, &a);
        eval_operand(n->args[1], item, &b);
        eval_operand(n->args[2], item, &c);
        *res = cmp_values(CMP_GE, a.v, b.v) && cmp_values(CMP_LE, a.v, c.v);
        val_fini(&a);
        val_fini(&b);
        val_fini(&c);
        return 0;
    case NODE_IN:
        eval_operand(n->args[0], item, &a);
        *res = false;
        if (n->sorted) {
            *res = in_sorted(n, a.v);
            val_fini(&a);
            return 0;
        }
        for (i = 1; i < n->nargs && !*res; i++) {
            eval_operand(n->args[i], item, &b);
            *res = cmp_values(CMP_EQ, a.v, b.v);
            val_fini(&b);
        }
        val_fini(&a);
        return 0;
    case NODE_FUNC:
        *res = false;
        eval_operand(n->args[0], item, &a);
        b.v = NULL;
        b.owned = NULL;
        if (n->nargs > 1)
            eval_operand(n->args[1], item, &b);
        switch (n->op) {
        case F_ATTRIBUTE_EXISTS:
            *res = a.v != NULL;
            break;
        case F_ATTRIBUTE_NOT_EXISTS:
            *res = a.v == NULL;
            break;
        case F_ATTRIBUTE_TYPE:
            if (a.v != NULL && b.v != NULL) {
                const char *want = json_string_value(
                    json_object_get(b.v, "S"));
                const char *have = node_av_type(a.v);

                *res = want != NULL && have != NULL &&
                       strcmp(want, have) == 0;
            }
            break;
        case F_BEGINS_WITH:
            *res = a.v != NULL && b.v != NULL && fn_begins_with(a.v, b.v);
            break;
        case F_CONTAINS:
            *res = a.v != NULL && b.v != NULL && fn_contains(a.v, b.v);
            break;
        default:
            break;
        }
        val_fini(&a);
        val_fini(&b);
        return 0;
    default:
        *res = false;
        return 0;
    }
}

/*
 * Whether item (borrowed; NULL = no item) satisfies the condition or
 * filter e. A missing attribute compares unequal to everything, so
 * "a <> :v" holds when a is absent, and values of different types are
 * neither less nor greater (test_expr_eval_compare).
 */
int
expr_eval(const struct expr *e, const json_t *item, bool *result,
          struct ddb_err *err)
{
    (void)err;
    if (e == NULL || e->root == NULL) {
        *result = true;
        return 0;
    }
    return eval_cond(e->root, item, result);
}

/* ------------------------------------------------------------------------
 * Projection
 * ---------------------------------------------------------------------- */

/* Place v (taken) at el in container (an attribute map, or the array of
 * an "L" when el is an index), padding lists with null placeholders. */
static void
slot_set(json_t *container, const struct path_elem *el, json_t *v)
{
    if (el->is_index) {
        while (json_array_size(container) < (size_t)el->index)
            json_array_append_new(container, json_null());
        if (json_array_size(container) == (size_t)el->index)
            json_array_append_new(container, v);
        else
            json_array_set_new(container, (size_t)el->index, v);
    } else {
        json_object_setn_new_nocheck(container, el->name, el->name_len, v);
    }
}

static json_t *
slot_get(json_t *container, const struct path_elem *el)
{
    json_t *v;

    if (el->is_index)
        v = (size_t)el->index < json_array_size(container) ?
            json_array_get(container, (size_t)el->index) : NULL;
    else
        v = json_object_getn(container, el->name, el->name_len);
    return json_is_object(v) ? v : NULL;
}

/* Drop null placeholders from every list under av (a map of AVs when
 * is_map). */
static void
compact(json_t *v, bool is_map)
{
    const char *key;
    json_t *x, *c;
    size_t i;

    if (is_map) {
        json_object_foreach(v, key, x)
            compact(x, false);
        return;
    }
    if ((c = json_object_get(v, "M")) != NULL && json_is_object(c)) {
        compact(c, true);
    } else if ((c = json_object_get(v, "L")) != NULL && json_is_array(c)) {
        for (i = 0; i < json_array_size(c);) {
            x = json_array_get(c, i);
            if (json_is_null(x)) {
                json_array_remove(c, i);
                continue;
            }
            compact(x, false);
            i++;
        }
    }
}

/* Copy the value at p in item into out, building the maps and lists on
 * the way as DynamoDB does. */
static void
project_path(json_t *out, const json_t *item, const struct expr_path *p)
{
    const json_t *v = path_get(item, p);
    json_t *container = out;
    int i;

    if (v == NULL)
        return;
    for (i = 0; i < p->n - 1; i++) {
        json_t *child = slot_get(container, &p->el[i]);
        const char *kind = p->el[i + 1].is_index ? "L" : "M";

        if (child == NULL || json_object_get(child, kind) == NULL) {
            child = json_pack("{s:o}", kind, p->el[i + 1].is_index ?
                              json_array() : json_object());
            slot_set(container, &p->el[i], child);
        }
        container = json_object_get(child, kind);
    }
    slot_set(container, &p->el[p->n - 1], json_clone(v));
}

/*
 * A new item with only the projected paths of item (borrowed). Projected
 * list elements keep their order and are compacted: "a[3], a[1]" of a
 * five-element list gives a two-element list [a[1], a[3]].
 */
json_t *
expr_project(const struct expr *e, const json_t *item)
{
    json_t *out = json_object();
    int i;

    if (e == NULL || item == NULL)
        return out;
    for (i = 0; i < e->npaths; i++)
        project_path(out, item, &e->paths[i]->path);
    compact(out, true);
    return out;
}

/* The written paths of update e as a projection (owned by e, NULL when e
 * is NULL or not an update): ReturnValues UPDATED_OLD / UPDATED_NEW. */
const struct expr *
expr_update_targets(const struct expr *e)
{
    return e != NULL ? e->targets : NULL;
}

/* ------------------------------------------------------------------------
 * Updates
 * ---------------------------------------------------------------------- */

static bool
is_type(const json_t *av, const char *t)
{
    const char *x = node_av_type(av);

    return x != NULL && strcmp(x, t) == 0;
}

static int eval_set_value(const struct expr_node *n, const json_t *old,
                          json_t **out, struct ddb_err *err);

/* The two operands of list_append() or of + and -, each computed against
 * old and required to be of type t. *a and *b are new references (set
 * even on failure; the caller releases them). */
static int
eval_set_operands(const struct expr_node *n, const json_t *old,
                  const char *t, json_t **a, json_t **b, struct ddb_err *err)
{
    if (eval_set_value(n->args[0], old, a, err) != 0)
        return -1;
    if (!is_type(*a, t))
        return ddb_err_set(err, DDB_VALIDATION, MSG_BAD_TYPE);
    if (eval_set_value(n->args[1], old, b, err) != 0)
        return -1;
    if (!is_type(*b, t))
        return ddb_err_set(err, DDB_VALIDATION, MSG_BAD_TYPE);
    return 0;
}

/* The value of a SET right-hand side, computed against the old item.
 * *out is a new reference. */
static int
eval_set_value(const struct expr_node *n, const json_t *old, json_t **out,
               struct ddb_err *err)
{
    const json_t *v;
    json_t *a = NULL, *b = NULL;
    int rc = -1;

    *out = NULL;
    switch (n->type) {
    case NODE_VALUE:
        *out = json_clone(n->value);
        return 0;
    case NODE_PATH:
        v = path_get(old, &n->path);
        if (v == NULL)
            return ddb_err_set(err, DDB_VALIDATION, MSG_NO_ATTR);
        *out = json_clone(v);
        return 0;
    case NODE_FUNC:
        if (n->op == F_IF_NOT_EXISTS) {
            v = path_get(old, &n->args[0]->path);
            if (v != NULL) {
                *out = json_clone(v);
                return 0;
            }
            return eval_set_value(n->args[1], old, out, err);
        }
        if (n->op != F_LIST_APPEND)
            return ddb_err_set(err, DDB_VALIDATION, MSG_BAD_TYPE);
        if (eval_set_operands(n, old, "L", &a, &b, err) != 0)
            goto out;
        json_array_extend(json_object_get(a, "L"), json_object_get(b, "L"));
        *out = a;
        a = NULL;
        rc = 0;
        goto out;
    case NODE_ARITH: {
        char res[NUM_TEXT_MAX];
        int r;

        if (eval_set_operands(n, old, "N", &a, &b, err) != 0)
            goto out;
        r = n->op == '+' ?
            num_add(json_string_value(json_object_get(a, "N")),
                    json_string_value(json_object_get(b, "N")), res, err) :
            num_sub(json_string_value(json_object_get(a, "N")),
                    json_string_value(json_object_get(b, "N")), res, err);
        if (r != 0)
            goto out;
        *out = json_pack("{s:s}", "N", res);
        rc = 0;
        goto out;
    }
    default:
        return ddb_err_set(err, DDB_VALIDATION, MSG_BAD_TYPE);
    }
out:
    json_decref(a);
    json_decref(b);
    return rc;
}

/* Where path p lives in item: *container is the attribute map (for a
 * top-level path) or the parent's "M" object or "L" array. */
static int
locate(json_t *item, const struct expr_path *p, json_t **container,
       struct ddb_err *err)
{
    json_t *parent;
    const struct path_elem *last = &p->el[p->n - 1];

    if (p->n == 1) {
        *container = item;
        return 0;
    }
    parent = path_get_n(item, p, p->n - 1);
    *container = parent != NULL ?
                 json_object_get(parent, last->is_index ? "L" : "M") : NULL;
    if (*container == NULL ||
        (last->is_index ? !json_is_array(*container) :
                          !json_is_object(*container)))
        return ddb_err_set(err, DDB_VALIDATION, MSG_BAD_PATH);
    return 0;
}

/* Remove the element at el from container: a map member goes away, a list
 * element becomes a placeholder compacted at the end (so the indexes of
 * one expression all refer to the list as it was). */
static void
slot_remove(json_t *container, const struct path_elem *el)
{
    if (!el->is_index)
        json_object_deln(container, el->name, el->name_len);
    else if ((size_t)el->index < json_array_size(container))
        json_array_set_new(container, (size_t)el->index, json_null());
}

static int
apply_add(json_t *container, const struct path_elem *el, const json_t *val,
          struct ddb_err *err)
{
    json_t *cur = slot_get(container, el);
    const char *t = node_av_type(val);
    json_t *arr, *add;
    size_t i, j;

    if (cur == NULL) {
        slot_set(container, el, json_clone(val));
        return 0;
    }
    if (!is_type(cur, t))
        return ddb_err_set(err, DDB_VALIDATION, MSG_BAD_TYPE);
    if (strcmp(t, "N") == 0) {
        char res[NUM_TEXT_MAX];

        if (num_add(json_string_value(json_object_get(cur, "N")),
                    json_string_value(json_object_get(val, "N")), res,
                    err) != 0)
            return -1;
        json_object_set_new(cur, "N", json_string(res));
        return 0;
    }
    arr = json_object_get(cur, t);
    add = json_object_get(val, t);
    for (j = 0; j < json_array_size(add); j++) {
        json_t *m = json_array_get(add, j);

        for (i = 0; i < json_array_size(arr); i++)
            if (member_equal(t, json_array_get(arr, i), m))
                break;
        if (i == json_array_size(arr))
            json_array_append(arr, m);
    }
    item_set_sort(arr, t[0]);           /* DynamoDB's member order */
    return 0;
}

static int
apply_delete(json_t *container, const struct path_elem *el,
             const json_t *val, struct ddb_err *err)
{
    json_t *cur = slot_get(container, el);
    const char *t = node_av_type(val);
    json_t *arr, *del;
    size_t i, j;

    if (cur == NULL)
        return 0;
    if (!is_type(cur, t))
        return ddb_err_set(err, DDB_VALIDATION, MSG_BAD_TYPE);
    arr = json_object_get(cur, t);
    del = json_object_get(val, t);
    for (i = 0; i < json_array_size(arr);) {
        for (j = 0; j < json_array_size(del); j++)
            if (member_equal(t, json_array_get(arr, i),
                             json_array_get(del, j)))
                break;
        if (j < json_array_size(del))
            json_array_remove(arr, i);
        else
            i++;
    }
    if (json_array_size(arr) == 0)          /* empty sets do not exist */
        slot_remove(container, el);
    return 0;
}

/* An ADD or DELETE written by legacy_attribute_updates(): its path and
 * its value are both synthetic placeholders. */
static bool
is_legacy_action(const struct upd_action *a)
{
    const struct expr_node *v = a->value;

    if (a->path->path.n != 1 || !legacy_is_ref(a->path->path.el[0].ref, '#')
        || v == NULL)
        return false;
    /* ADD of a list: SET #l0 = list_append(if_not_exists(#l0, :l1), :l2) */
    if (a->kind == UPD_SET && v->type == NODE_FUNC &&
        v->op == F_LIST_APPEND && v->nargs == 2)
        v = v->args[1];
    return v->type == NODE_VALUE && legacy_is_ref(v->ref, ':');
}

/* A type mismatch of a legacy ADD/DELETE gets the legacy message. */
static int
type_mismatch(const struct upd_action *a, struct ddb_err *err)
{
    if (err->type == DDB_VALIDATION && strcmp(err->msg, MSG_BAD_TYPE) == 0 &&
        is_legacy_action(a))
        ddb_err_set(err, DDB_VALIDATION, MSG_LEGACY_TYPE);
    return -1;
}

/* A SET or ADD past the end of a list: appended after the other actions,
 * in index order, whatever the order written ("SET a[84] = :x, a[17] =
 * :y" appends y then x; dynalite's updateItem test "should update nested
 * attributes", recorded against DynamoDB, mixes SETs and ADDs). */
struct pending {
    json_t *arr;                    /* borrowed: the list's array */
    long index;
    json_t *v;                      /* owned */
};

static int
pending_cmp(const void *a, const void *b)
{
    const struct pending *x = a, *y = b;

    return x->index < y->index ? -1 : x->index > y->index;
}

/* Whether el is a list index past the end of container (its array). */
static bool
past_end(const json_t *container, const struct path_elem *el)
{
    return el->is_index && (size_t)el->index >= json_array_size(container);
}

/* The update works on a shallow copy of its starting item, whose
 * attribute values are the starting item's own (storage's, unchanged):
 * before an action changes anything under a top-level attribute that is
 * still shared, the copy gets a deep copy of that attribute. An action
 * that replaces or drops the attribute itself needs none. (jansson keeps
 * the reference count in json_t; a value only the copy holds has 1.) */
static void
own_attr(json_t *item, const struct upd_action *a)
{
    const struct expr_path *p = &a->path->path;
    json_t *v;

    if (p->n == 1 && (a->kind == UPD_SET || a->kind == UPD_REMOVE))
        return;
    v = json_object_getn(item, p->el[0].name, p->el[0].name_len);
    if (v != NULL && v->refcount > 1)
        json_object_setn_new_nocheck(item, p->el[0].name, p->el[0].name_len,
                                     json_clone(v));
}

/*
 * Apply update e to old (borrowed; NULL when the item does not exist).
 * An item that does not exist yet starts from key (the request's Key,
 * borrowed, may be NULL): DynamoDB creates it from its key, so "SET b =
 * if_not_exists(b, a)" with a the hash key gives b the key's value
 * (dynalite's updateItem tests, recorded against DynamoDB). Every SET
 * right-hand side is computed against that starting item first, then the
 * actions run in the order written; list indexes all refer to the list as
 * it was (REMOVE leaves a placeholder, compacted at the end).
 * *new_item is a new reference.
 */
int
expr_update_apply(const struct expr *e, const json_t *old,
                  const json_t *key, json_t **new_item, struct ddb_err *err)
{
    const json_t *base = old != NULL ? old : key;
    json_t **vals = NULL, *item = NULL;
    struct pending *pend = NULL;
    int rc = -1, i, npend = 0;
    bool holes = false;             /* a list element removed */

    *new_item = NULL;
    if (e == NULL)
        return ddb_err_set(err, DDB_INTERNAL, "no update expression");
    vals = xcalloc((size_t)e->nacts + 1, sizeof(*vals));
    pend = xcalloc((size_t)e->nacts + 1, sizeof(*pend));
    for (i = 0; i < e->nacts; i++)
        if (e->acts[i].kind == UPD_SET &&
            eval_set_value(e->acts[i].value, base, &vals[i], err) != 0) {
            type_mismatch(&e->acts[i], err);
            goto out;
        }
    item = base != NULL ? json_copy_members(base) : json_object();
    for (i = 0; i < e->nacts; i++) {
        const struct upd_action *a = &e->acts[i];
        const struct expr_path *p = &a->path->path;
        const struct path_elem *last = &p->el[p->n - 1];
        json_t *container;

        /* Removing anything from an item that does not exist is a
         * no-op, even under a path that could not exist. */
        if (a->kind == UPD_REMOVE && old == NULL)
            continue;
        own_attr(item, a);
        if (locate(item, p, &container, err) != 0)
            goto out;
        if ((a->kind == UPD_SET || a->kind == UPD_ADD) &&
            past_end(container, last)) {
            pend[npend].arr = container;
            pend[npend].index = last->index;
            pend[npend++].v = a->kind == UPD_SET ? vals[i] :
                              json_clone(a->value->value);
            vals[i] = NULL;
            continue;
        }
        switch (a->kind) {
        case UPD_SET:
            slot_set(container, last, vals[i]);
            vals[i] = NULL;
            break;
        case UPD_REMOVE:
            slot_remove(container, last);
            holes = holes || last->is_index;
            break;
        case UPD_ADD:
            if (apply_add(container, last, a->value->value, err) != 0) {
                type_mismatch(a, err);
                goto out;
            }
            break;
        case UPD_DELETE:
            if (apply_delete(container, last, a->value->value, err) != 0) {
                type_mismatch(a, err);
                goto out;
            }
            break;
        }
    }
    qsort(pend, (size_t)npend, sizeof(*pend), pending_cmp);
    for (i = 0; i < npend; i++) {
        json_array_append_new(pend[i].arr, pend[i].v);
        pend[i].v = NULL;
    }
    /* only a removed list element leaves a placeholder: without one
     * there is nothing to compact, and the walk visits every attribute */
    if (holes)
        compact(item, true);
    *new_item = item;
    item = NULL;
    rc = 0;
out:
    for (i = 0; i < e->nacts; i++)
        json_decref(vals[i]);
    for (i = 0; i < npend; i++)
        json_decref(pend[i].v);
    free(vals);
    free(pend);
    json_decref(item);
    return rc;
}
