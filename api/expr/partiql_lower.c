/* SPDX-License-Identifier: MIT */
/* partiql_lower.c - a parsed PartiQL statement checked and lowered into
 * what the data operations run (partiql.h): parameters bound and
 * validated, literals converted to AttributeValues with DynamoDB's
 * messages ("... under root.a[1]"), the FROM path, the SELECT list,
 * INSERT's item, UPDATE's SET / REMOVE as an update expression (checked by
 * the expression engine, resolve.c), RETURNING. The WHERE clause is
 * partiql_cond.c's. */

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/expr/partiql_int.h"
#include "storage/util.h"

#define MSG_ALIAS "Aliasing is not supported"

/* ------------------------------------------------------------------------
 * Helpers
 * ---------------------------------------------------------------------- */

int
pql_err_at(struct ddb_err *err, const struct pql_pos *pos, const char *fmt,
           ...)
{
    char msg[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return ddb_err_set(err, DDB_VALIDATION, "%s at %u:%u:%u", msg, pos->line,
                       pos->col, pos->len);
}

const json_t *
pql_keep(struct pql_stmt *s, json_t *av)
{
    json_array_append_new(s->values, av);
    return av;
}

/* ------------------------------------------------------------------------
 * Values: literals, lists, maps, bags and parameters as AttributeValues
 * ---------------------------------------------------------------------- */

bool
pql_is_value(const struct pn *n)
{
    switch (n->k) {
    case PN_STR: case PN_NUM: case PN_TRUE: case PN_FALSE: case PN_NULL:
    case PN_PARAM: case PN_LIST: case PN_BAG: case PN_STRUCT:
        return true;
    default:
        return false;
    }
}

/* A number literal as an N (canonical); DynamoDB appends where in the
 * value it sits: "Number overflow. ... under root.x". */
static json_t *
conv_number(const struct pn *n, const char *path, struct ddb_err *err)
{
    const char *t = n->text;
    bool neg = t[0] == '-';
    char *text;
    json_t *av;
    struct ddb_err e;

    if (neg)
        t++;
    /* ".5": BigDecimal's reading of a number with no leading digit */
    text = xmalloc(strlen(t) + 3);
    snprintf(text, strlen(t) + 3, "%s%s%s", neg ? "-" : "", t[0] == '.' ? "0"
                                                                        : "",
             t);
    av = json_pack("{s:s}", "N", text);
    free(text);
    ddb_err_init(&e);
    if (av_validate(av, 0, &e) != 0) {
        ddb_err_set(err, DDB_VALIDATION, "%s under %s", e.msg, path);
        ddb_err_clear(&e);
        json_decref(av);
        return NULL;
    }
    return av;
}

static int
unsupported_value(const struct pn *n, const char *path, struct ddb_err *err)
{
    const char *name = n->k == PN_CALL || n->k == PN_ID ? n->text
                                                       : pql_node_name(n);

    return pql_err_at(err, &n->pos, "Unsupported data type: %s under key %s",
                      name, path);
}

static json_t *conv(const struct pn *n, const json_t *params,
                    const char *path, struct ddb_err *err);

/* <<a, b>>: a string or number set of literal members. */
static json_t *
conv_bag(const struct pn *n, const json_t *params, const char *path,
         struct ddb_err *err)
{
    enum pn_kind k;
    json_t *arr, *av;
    int i;

    (void)params;
    if (n->nkids == 0) {
        ddb_err_set(err, DDB_VALIDATION, "Empty bags are not supported");
        return NULL;
    }
    k = n->kids[0]->k;
    arr = json_array();
    for (i = 0; i < n->nkids; i++) {
        const struct pn *m = n->kids[i];

        if ((m->k != PN_STR && m->k != PN_NUM) || m->k != k) {
            json_decref(arr);
            ddb_err_set(err, DDB_VALIDATION, "Unsupported data type in Bag");
            return NULL;
        }
        if (m->k == PN_STR) {
            json_array_append_new(arr, json_stringn(m->text, m->len));
        } else {
            json_t *num = conv_number(m, path, err);

            if (num == NULL) {
                json_decref(arr);
                return NULL;
            }
            json_array_append(arr, json_object_get(num, "N"));
            json_decref(num);
        }
    }
    av = json_object();
    json_object_set_new(av, k == PN_STR ? "SS" : "NS", arr);
    return av;
}

/* A container's member, its path extended by ext. */
static json_t *
conv_member(const struct pn *n, const json_t *params, const char *path,
            const char *ext, struct ddb_err *err)
{
    size_t len = strlen(path) + strlen(ext) + 1;
    char *sub = xmalloc(len);
    json_t *v;

    snprintf(sub, len, "%s%s", path, ext);
    v = conv(n, params, sub, err);
    free(sub);
    return v;
}

static json_t *
conv(const struct pn *n, const json_t *params, const char *path,
     struct ddb_err *err)
{
    json_t *c, *v, *out;
    char ext[32];
    int i;

    switch (n->k) {
    case PN_STR:
        return json_pack("{s:s%}", "S", n->text, n->len);
    case PN_NUM:
        return conv_number(n, path, err);
    case PN_TRUE:
    case PN_FALSE:
        return json_pack("{s:b}", "BOOL", n->k == PN_TRUE);
    case PN_NULL:
        return json_pack("{s:b}", "NULL", 1);
    case PN_PARAM:
        return json_clone(json_array_get(params, (size_t)n->param));
    case PN_BAG:
        return conv_bag(n, params, path, err);
    case PN_LIST:
        c = json_array();
        for (i = 0; i < n->nkids; i++) {
            snprintf(ext, sizeof(ext), "[%d]", i);
            if ((v = conv_member(n->kids[i], params, path, ext, err)) ==
                NULL) {
                json_decref(c);
                return NULL;
            }
            json_array_append_new(c, v);
        }
        out = json_object();
        json_object_set_new(out, "L", c);
        return out;
    case PN_STRUCT:
        c = json_object();
        for (i = 0; i + 1 < n->nkids; i += 2) {
            const struct pn *k = n->kids[i];
            char *ext2;

            if (k->k != PN_STR) {
                json_decref(c);
                unsupported_value(k, path, err);
                return NULL;
            }
            ext2 = xmalloc(k->len + 2);
            snprintf(ext2, k->len + 2, ".%s", k->text);
            v = conv_member(n->kids[i + 1], params, path, ext2, err);
            free(ext2);
            if (v == NULL) {
                json_decref(c);
                return NULL;
            }
            json_object_setn_new_nocheck(c, k->text, k->len, v);
        }
        out = json_object();
        json_object_set_new(out, "M", c);
        return out;
    default:
        unsupported_value(n, path, err);
        return NULL;
    }
}

json_t *
pql_value(const struct pn *n, const json_t *params, struct ddb_err *err)
{
    json_t *av = conv(n, params, "root", err);

    /* Sets, nesting and sizes as any AttributeValue (numbers are already
     * canonical). */
    if (av != NULL && av_validate(av, 0, err) != 0) {
        json_decref(av);
        return NULL;
    }
    return av;
}

/* ------------------------------------------------------------------------
 * Paths
 * ---------------------------------------------------------------------- */

/* A list index written as an unsigned integer literal, or -1; beyond
 * LIST_INDEX_MAX, LIST_INDEX_MAX + 1. */
static long
index_of(const struct pn *n)
{
    long v = 0;
    const char *c;

    if (n->k != PN_NUM || n->text[0] == '\0')
        return -1;
    for (c = n->text; *c != '\0'; c++) {
        if (*c < '0' || *c > '9')
            return -1;
        if (v <= LIST_INDEX_MAX)
            v = v * 10 + (*c - '0');
    }
    return v > LIST_INDEX_MAX ? LIST_INDEX_MAX + 1 : v;
}

int
pql_path(struct pql_stmt *s, const struct pn *n, struct expr_path *out,
         struct ddb_err *err)
{
    const struct pn *root = n->k == PN_PATH ? n->kids[0] : n;
    int i, cnt = n->k == PN_PATH ? n->nkids : 1;

    if (root->k != PN_ID)
        return pql_err_at(err, &root->pos, "Unexpected path component");
    /* the expression engine's document path limits (expr_int.h) */
    if (cnt > PATH_LEVELS_MAX)
        return ddb_err_set(err, DDB_VALIDATION, "The document path has too "
                           "many nesting levels; nesting levels: %d", cnt);
    out->n = cnt;
    out->el = arena_alloc(&s->arena, (size_t)cnt * sizeof(*out->el));
    out->el[0].name = root->text;
    out->el[0].name_len = strlen(root->text);
    for (i = 1; i < cnt; i++) {
        const struct pn *st = n->kids[i];
        struct path_elem *el = &out->el[i];

        if (st->k == PN_DOT) {
            el->name = st->text;
            el->name_len = strlen(el->name);
        } else if (st->k == PN_INDEX && st->kids[0]->k == PN_STR) {
            el->name = st->kids[0]->text;
            el->name_len = strlen(el->name);
        } else if (st->k == PN_INDEX && index_of(st->kids[0]) >= 0) {
            el->is_index = true;
            el->index = index_of(st->kids[0]);
            if (el->index > LIST_INDEX_MAX)
                return ddb_err_set(err, DDB_VALIDATION, "List index is not "
                                   "within the allowable range; index: "
                                   "[%s]", st->kids[0]->text);
        } else {
            return pql_err_at(err, &st->pos, "Unexpected path component");
        }
    }
    return 0;
}

static bool
is_path(const struct pn *n)
{
    return n->k == PN_ID || n->k == PN_PATH;
}

static bool
same_path(const struct expr_path *a, const struct expr_path *b)
{
    int i;

    if (a->n != b->n)
        return false;
    for (i = 0; i < a->n; i++) {
        if (a->el[i].is_index != b->el[i].is_index)
            return false;
        if (a->el[i].is_index ? a->el[i].index != b->el[i].index
                              : strcmp(a->el[i].name, b->el[i].name) != 0)
            return false;
    }
    return true;
}

/* ------------------------------------------------------------------------
 * FROM
 * ---------------------------------------------------------------------- */

/* The table (and index) a FROM path names: "table" or "table"."index". */
static int
lower_from(struct pql_stmt *s, const struct pn *n, struct ddb_err *err)
{
    const char *comp[2] = { NULL, NULL };
    int i, ncomp = 0;

    if (n->k == PN_ID) {
        comp[ncomp++] = n->text;
    } else if (n->k == PN_PATH && n->kids[0]->k == PN_ID) {
        for (i = 0; i < n->nkids; i++) {
            const struct pn *c = n->kids[i];

            if (i > 0 && c->k != PN_DOT)
                return pql_err_at(err, &c->pos, "Unexpected path "
                                  "component");
            if (ncomp == 2)
                return ddb_err_set(err, DDB_VALIDATION, "A path may contain "
                                   "at most 2 components in the FROM clause");
            comp[ncomp++] = c->text;
        }
    } else {
        /* A subquery or a literal: DynamoDB reads tables only (no
         * recording of its wording; shardlocal's). */
        return pql_err_at(err, &n->pos, "Unsupported FROM source");
    }
    for (i = 0; i < ncomp; i++)
        if (comp[i][0] == '\0')
            return ddb_err_set(err, DDB_VALIDATION, "Path component cannot "
                               "be an empty string");
    s->table = (char *)comp[0];
    s->index = ncomp > 1 ? (char *)comp[1] : NULL;
    return 0;
}

/* ------------------------------------------------------------------------
 * SELECT
 * ---------------------------------------------------------------------- */

/* Unsupported clauses, as DynamoDB names them. */
static int
select_clauses(const struct pa_stmt *st, struct ddb_err *err)
{
    const char *clause = st->group ? "GROUP BY" : st->having ? "HAVING" :
                         st->limit ? "LIMIT" : st->let ? "LET" :
                         st->join ? "JOIN" : NULL;

    if (st->alias || st->proj_alias)
        return ddb_err_set(err, DDB_VALIDATION, MSG_ALIAS);
    if (st->distinct)
        return ddb_err_set(err, DDB_VALIDATION, "Unsupported token in "
                           "expression: DISTINCT");
    if (st->select_value)
        clause = "SELECT VALUE";
    if (clause != NULL)
        return ddb_err_set(err, DDB_VALIDATION, "Unsupported clause: %s",
                           clause);
    return 0;
}

/* The output name of a selected path: its last name with the indexes
 * after it ("a.b[2]" -> "b[2]"), as DynamoDB unnests a projection. */
static const char *
out_name(struct pql_stmt *s, const struct expr_path *p)
{
    struct strbuf b = { 0 };
    char *name;
    int i, last = 0;

    for (i = 0; i < p->n; i++)
        if (!p->el[i].is_index)
            last = i;
    strbuf_printf(&b, "%s", p->el[last].name);
    for (i = last + 1; i < p->n; i++)
        strbuf_printf(&b, "[%ld]", p->el[i].index);
    name = arena_strndup(&s->arena, b.s != NULL ? b.s : "", b.len);
    strbuf_free(&b);
    return name;
}

static int
lower_select(struct pql_stmt *s, const struct pa_stmt *st,
             const json_t *params, struct ddb_err *err)
{
    int i;

    s->kind = PQL_SELECT;
    if (select_clauses(st, err) != 0 || lower_from(s, st->from, err) != 0)
        return -1;
    if (st->nproj == 1 && st->proj[0]->k == PN_WILD) {
        s->star = true;
    } else {
        s->proj = arena_alloc(&s->arena, (size_t)st->nproj *
                                         sizeof(*s->proj));
        s->proj_out = arena_alloc(&s->arena, (size_t)st->nproj *
                                             sizeof(*s->proj_out));
        for (i = 0; i < st->nproj; i++) {
            const struct pn *n = st->proj[i];

            if (!is_path(n))
                return pql_err_at(err, &n->pos, "Unexpected path "
                                  "component");
            if (pql_path(s, n, &s->proj[i], err) != 0)
                return -1;
            s->proj_out[i] = out_name(s, &s->proj[i]);
        }
        s->nproj = st->nproj;
    }
    if (st->norder > 0) {
        const struct pn *o = st->order[0];

        if (o->k != PN_ID)
            return pql_err_at(err, &o->pos, "Unexpected path component");
        s->has_order = true;
        s->order_name = o->text;
        s->order_desc = st->order_desc[0];
    }
    return st->where != NULL ? pql_cond_lower(s, st->where, params, err)
                             : 0;
}

/* ------------------------------------------------------------------------
 * INSERT
 * ---------------------------------------------------------------------- */

static int
lower_insert(struct pql_stmt *s, const struct pa_stmt *st,
             const json_t *params, struct ddb_err *err)
{
    const struct pn *v = st->value;
    int i;

    s->kind = PQL_INSERT;
    if (st->from->k != PN_ID)
        return ddb_err_set(err, DDB_VALIDATION, "FROM clause may only "
                           "contain a single table name");
    s->table = (char *)st->from->text;
    if (s->table[0] == '\0')
        return ddb_err_set(err, DDB_VALIDATION, "Path component cannot be "
                           "an empty string");
    /* INSERT INTO t <expr> without VALUE and ON CONFLICT: the PartiQL
     * forms DynamoDB does not run (its generic refusal; the wording of
     * ON CONFLICT's is shardlocal's). */
    if (st->insert_values)
        return ddb_err_set(err, DDB_VALIDATION, "Unsupported operation: "
                           "Insert");
    if (st->on_conflict)
        return ddb_err_set(err, DDB_VALIDATION, "Unsupported clause: ON "
                           "CONFLICT");
    if (st->nret > 0)
        return ddb_err_set(err, DDB_VALIDATION, "RETURNING is not supported "
                           "in INSERT");
    if (v->k != PN_STRUCT)
        return ddb_err_set(err, DDB_VALIDATION, "%sExpected a tuple in "
                           "VALUE", PQL_NOT_WELL_FORMED);
    s->item = json_object();
    for (i = 0; i + 1 < v->nkids; i += 2) {
        const struct pn *k = v->kids[i];
        json_t *av;

        if (k->k != PN_STR)
            return unsupported_value(k, "root", err);
        if ((av = pql_value(v->kids[i + 1], params, err)) == NULL)
            return -1;
        json_object_setn_new_nocheck(s->item, k->text, k->len, av);
    }
    return 0;
}

/* ------------------------------------------------------------------------
 * UPDATE, DELETE, FROM-first UPDATE
 * ---------------------------------------------------------------------- */

struct expr_node *
pql_node(struct arena *a, enum node_type type, int nargs)
{
    struct expr_node *n = arena_alloc(a, sizeof(*n));

    n->type = type;
    n->nargs = nargs;
    if (nargs > 0)
        n->args = arena_alloc(a, (size_t)nargs * sizeof(*n->args));
    return n;
}

static struct expr_node *set_value(struct pql_stmt *s, struct arena *a,
                                   const struct pn *n, const json_t *params,
                                   struct ddb_err *err);

/* A SET operand: a value, a path, a + b, a - b, list_append(a, b). */
static struct expr_node *
set_value(struct pql_stmt *s, struct arena *a, const struct pn *n,
          const json_t *params, struct ddb_err *err)
{
    struct expr_node *x;
    json_t *av;
    int i;

    if (pql_is_value(n)) {
        if ((av = pql_value(n, params, err)) == NULL)
            return NULL;
        x = pql_node(a, NODE_VALUE, 0);
        x->value = pql_keep(s, av);
        return x;
    }
    if (is_path(n)) {
        x = pql_node(a, NODE_PATH, 0);
        return pql_path(s, n, &x->path, err) == 0 ? x : NULL;
    }
    if (n->k == PN_BIN && (n->op == OP_ADD || n->op == OP_SUB)) {
        x = pql_node(a, NODE_ARITH, 2);
        x->op = n->op == OP_ADD ? '+' : '-';
    } else if (n->k == PN_CALL && strcmp(n->text, "list_append") == 0) {
        x = pql_node(a, NODE_FUNC, n->nkids);
        x->op = F_LIST_APPEND;
        x->fname = n->text;
    } else if (n->k == PN_CALL) {
        pql_err_at(err, &n->pos, "Unrecognized function: %s", n->text);
        return NULL;
    } else {
        ddb_err_set(err, DDB_VALIDATION, "Unsupported operation: %s",
                    pql_node_name(n));
        return NULL;
    }
    for (i = 0; i < x->nargs; i++)
        if ((x->args[i] = set_value(s, a, n->kids[i], params, err)) == NULL)
            return NULL;
    return x;
}

/* SET p = set_add(p, <<...>>) / set_delete(p, ...): an ADD or DELETE of
 * the set's members, DynamoDB's checks with their positions (error-
 * messages/partiqlFunctions.test.ts, eu-west-2, 2026-10). */
static int
set_function(struct pql_stmt *s, struct upd_action *act,
             const struct pn *call, const json_t *params,
             struct ddb_err *err)
{
    const char *fn = strcmp(call->text, "set_add") == 0 ? "SET_ADD"
                                                        : "SET_DELETE";
    struct expr_path first;
    const struct pn *v;
    const char *t;
    json_t *av;

    if (call->nkids != 2)
        return pql_err_at(err, &call->pos, "%s must have exactly two "
                          "arguments", fn);
    if (!is_path(call->kids[0]) ||
        pql_path(s, call->kids[0], &first, err) != 0 ||
        !same_path(&first, &act->path->path)) {
        ddb_err_clear(err);
        return pql_err_at(err, &call->pos, "The first argument to %s must "
                          "equal the assignment value", fn);
    }
    v = call->kids[1];
    if (v->k != PN_BAG && v->k != PN_PARAM)
        return pql_err_at(err, &call->kids[0]->pos, "The second argument to "
                          "%s must be a value with type SET", fn);
    if ((av = pql_value(v, params, err)) == NULL)
        return -1;
    t = av_type(av);
    if (t == NULL || strlen(t) != 2 || t[1] != 'S') {
        json_decref(av);
        return pql_err_at(err, &call->kids[0]->pos, "The second argument to "
                          "%s must be a value with type SET", fn);
    }
    act->kind = fn[4] == 'A' ? UPD_ADD : UPD_DELETE;
    act->value = pql_node(&s->upd->arena, NODE_VALUE, 0);
    act->value->value = pql_keep(s, av);
    return 0;
}

static int
lower_update(struct pql_stmt *s, const struct pa_stmt *st,
             const json_t *params, struct ddb_err *err)
{
    struct expr *e = expr_new(EXPR_UPDATE);
    int i;

    e->raw_names = true;
    s->upd = e;
    e->acts = arena_alloc(&e->arena, (size_t)st->nops * sizeof(*e->acts));
    for (i = 0; i < st->nops; i++) {
        const struct pa_op *op = &st->ops[i];
        struct upd_action *act = &e->acts[e->nacts++];
        const struct pn *r = op->rhs;

        act->path = pql_node(&e->arena, NODE_PATH, 0);
        if (pql_path(s, op->lhs, &act->path->path, err) != 0)
            return -1;
        switch (op->kind) {
        case DOP_REMOVE:
            act->kind = UPD_REMOVE;
            break;
        case DOP_SET:
            if (r->k == PN_CALL && (strcmp(r->text, "set_add") == 0 ||
                                    strcmp(r->text, "set_delete") == 0)) {
                if (set_function(s, act, r, params, err) != 0)
                    return -1;
                break;
            }
            act->kind = UPD_SET;
            act->value = set_value(s, &e->arena, r, params, err);
            if (act->value == NULL)
                return -1;
            break;
        case DOP_INSERT:
            return ddb_err_set(err, DDB_VALIDATION, "Unsupported operation: "
                               "InsertValue");
        }
    }
    if (resolve_expr(e, NULL, err) != 0)
        return -1;
    expr_build_targets(e);
    return 0;
}

/* RETURNING, as DynamoDB checks it (its messages; DELETE takes ALL OLD *
 * only: error-messages/partiql.test.ts, eu-west-2). */
static int
lower_returning(struct pql_stmt *s, const struct pa_stmt *st,
                struct ddb_err *err)
{
    static const enum pql_returning ret[] = {
        [RET_MODIFIED_OLD] = PQL_RET_MODIFIED_OLD,
        [RET_MODIFIED_NEW] = PQL_RET_MODIFIED_NEW,
        [RET_ALL_OLD] = PQL_RET_ALL_OLD, [RET_ALL_NEW] = PQL_RET_ALL_NEW,
    };
    static const char *const text[] = {
        [RET_MODIFIED_OLD] = "MODIFIED OLD *",
        [RET_MODIFIED_NEW] = "MODIFIED NEW *",
        [RET_ALL_OLD] = "ALL OLD *", [RET_ALL_NEW] = "ALL NEW *",
    };

    if (st->nret == 0)
        return 0;
    if (st->nret > 1)
        return ddb_err_set(err, DDB_VALIDATION, "Invalid syntax with "
                           "multiple returning elements in RETURNING "
                           "clause");
    if (!st->ret_star)
        return ddb_err_set(err, DDB_VALIDATION, "Expected '*' after ( "
                           "MODIFIED | ALL ) ( NEW | OLD ) in RETURNING "
                           "clause");
    if (st->form == FORM_DELETE && st->ret_map != RET_ALL_OLD)
        return ddb_err_set(err, DDB_VALIDATION, "Invalid returning clause: "
                           "RETURNING %s. Only RETURNING ALL OLD * is "
                           "allowed in DELETE statements.",
                           text[st->ret_map]);
    s->ret = ret[st->ret_map];
    return 0;
}

static int
lower_dml(struct pql_stmt *s, const struct pa_stmt *st,
          const json_t *params, struct ddb_err *err)
{
    s->kind = st->form == FORM_DELETE ? PQL_DELETE : PQL_UPDATE;
    if (st->alias)
        return ddb_err_set(err, DDB_VALIDATION, MSG_ALIAS);
    if (lower_from(s, st->from, err) != 0)
        return -1;
    /* "UPDATE "t"."i"": grammatical, refused (indexQualifier.test.ts) */
    if (s->index != NULL)
        return ddb_err_set(err, DDB_VALIDATION, "This operation is not "
                           "supported on an index");
    if (lower_returning(s, st, err) != 0)
        return -1;
    if (s->kind == PQL_UPDATE && lower_update(s, st, params, err) != 0)
        return -1;
    return st->where != NULL ? pql_cond_lower(s, st->where, params, err)
                             : 0;
}

/* ------------------------------------------------------------------------
 * The statement
 * ---------------------------------------------------------------------- */

/* Bind the parameters: as many as the statement's '?' at least (more are
 * ignored, as DynamoDB Local does), each validated in order as any
 * AttributeValue ("The parameter cannot be converted to a numeric value:
 * 1e99999999999", "Nesting Levels have exceeded ...": partiql
 * ParameterNumbers.test.ts, eu-west-2, 2026-10). */
static json_t *
bind_params(const json_t *params, int nparams, struct ddb_err *err)
{
    json_t *out = json_array(), *v;
    size_t i;

    if ((int)json_array_size(params) < nparams) {
        json_decref(out);
        ddb_err_set(err, DDB_VALIDATION, "Number of parameters in request "
                    "and statement don't match.");
        return NULL;
    }
    json_array_foreach(params, i, v) {
        json_t *c = json_clone(v);

        json_array_append_new(out, c);
        if (av_validate(c, 0, err) != 0) {
            json_decref(out);
            return NULL;
        }
    }
    return out;
}

int
pql_check_params(const json_t *params, struct ddb_err *err)
{
    json_t *bound = bind_params(params, 0, err);

    json_decref(bound);
    return bound != NULL ? 0 : -1;
}

int
pql_compile(const char *text, size_t len, const json_t *params,
            struct pql_stmt **out, struct ddb_err *err)
{
    struct pql_stmt *s = xcalloc(1, sizeof(*s));
    json_t *bound = NULL;
    struct pn *root;
    int nparams, rc = -1;

    arena_init(&s->arena);
    s->values = json_array();
    if (pql_parse_tree(&s->arena, text, len, &root, &nparams, err) != 0 ||
        (bound = bind_params(params, nparams, err)) == NULL)
        goto out;
    switch (root->k) {
    case PN_SELECT:
        rc = lower_select(s, root->stmt, bound, err);
        break;
    case PN_INSERT:
        rc = lower_insert(s, root->stmt, bound, err);
        break;
    case PN_DML:
        rc = lower_dml(s, root->stmt, bound, err);
        break;
    case PN_CALL:
        /* EXISTS(SELECT ...): a transaction's condition check */
        if (strcmp(root->text, "exists") == 0 && root->nkids == 1 &&
            root->kids[0]->k == PN_SELECT) {
            rc = lower_select(s, root->kids[0]->stmt, bound, err);
            s->kind = PQL_EXISTS;
            break;
        }
        /* fall through */
    default:
        rc = ddb_err_set(err, DDB_VALIDATION, "Unsupported operation: %s",
                         pql_node_name(root));
        break;
    }
out:
    json_decref(bound);
    if (rc != 0) {
        pql_free(s);
        return -1;
    }
    *out = s;
    return 0;
}

void
pql_free(struct pql_stmt *s)
{
    if (s == NULL)
        return;
    expr_free(s->upd);
    json_decref(s->item);
    json_decref(s->values);
    arena_fini(&s->arena);
    free(s);
}

enum pql_kind
pql_kind(const struct pql_stmt *s)
{
    return s->kind;
}

const char *
pql_table(const struct pql_stmt *s)
{
    return s->table;
}

const char *
pql_index(const struct pql_stmt *s)
{
    return s->index;
}

enum pql_returning
pql_returning(const struct pql_stmt *s)
{
    return s->ret;
}

const json_t *
pql_item(const struct pql_stmt *s)
{
    return s->item;
}

struct expr *
pql_take_update(struct pql_stmt *s)
{
    struct expr *e = s->upd;

    s->upd = NULL;
    return e;
}

const struct pql_stmt *
pql_exists_select(const struct pql_stmt *s)
{
    return s->kind == PQL_EXISTS ? s : NULL;
}

bool
pql_has_where(const struct pql_stmt *s)
{
    return s->where != NULL;
}

bool
pql_star(const struct pql_stmt *s)
{
    return s->star;
}

bool
pql_order(const struct pql_stmt *s, const char **name, bool *desc)
{
    if (!s->has_order)
        return false;
    *name = s->order_name;
    *desc = s->order_desc;
    return true;
}

size_t
pql_select_heads(const struct pql_stmt *s, const char **out, size_t cap)
{
    int i;

    for (i = 0; i < s->nproj; i++)
        if ((size_t)i < cap)
            out[i] = s->proj[i].el[0].name;
    return (size_t)s->nproj;
}

json_t *
pql_project(const struct pql_stmt *s, const json_t *item)
{
    json_t *out;
    int i;

    if (s->star)
        return json_clone(item);
    out = json_object();
    for (i = 0; i < s->nproj; i++) {
        const json_t *v = path_get(item, &s->proj[i]);

        if (v != NULL)
            json_object_set_new(out, s->proj_out[i], json_clone(v));
    }
    return out;
}

struct expr *
pql_projection(const struct pql_stmt *s, bool where)
{
    const char *heads[256];
    size_t nh = where ? pql_where_heads(s, heads, 256) : 0;
    struct expr *e;
    size_t i;

    if (s->star || s->nproj == 0)
        return NULL;
    if (nh > 256)
        nh = 256;
    e = expr_new(EXPR_PROJECTION);
    e->raw_names = true;
    e->paths = arena_alloc(&e->arena, ((size_t)s->nproj + nh) *
                                      sizeof(*e->paths));
    for (i = 0; i < (size_t)s->nproj + nh; i++) {
        struct expr_node *x = pql_node(&e->arena, NODE_PATH, 0);

        if (i < (size_t)s->nproj) {
            x->path = s->proj[i];
        } else {
            x->path.n = 1;
            x->path.el = arena_alloc(&e->arena, sizeof(*x->path.el));
            x->path.el[0].name = heads[i - (size_t)s->nproj];
            x->path.el[0].name_len = strlen(x->path.el[0].name);
        }
        e->paths[e->npaths++] = x;
    }
    return e;
}
