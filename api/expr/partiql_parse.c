/* SPDX-License-Identifier: MIT */
/* partiql_parse.c - the recursive-descent PartiQL parser. Statements are
 * terms of one expression grammar, as in the PartiQL reference parser
 * DynamoDB runs (a Pratt loop over operator precedence, paths, literals,
 * SELECT / INSERT / UPDATE / DELETE / FROM-first DML), so a malformed
 * statement fails at the same token with the same detail ("Unexpected
 * term", "Unexpected keyword", "Unexpected token after expression", ...). */

#include <stdio.h>
#include <string.h>

#include "api/expr/partiql_int.h"
#include "storage/util.h"

/* Precedence of the infix operators, the PartiQL reference's groups. */
enum {
    PREC_SELECT = 6,                /* a clause's expression */
    PREC_OR = 10, PREC_AND = 20, PREC_NOT = 30, PREC_EQUITY = 40,
    PREC_COMPARISON = 50, PREC_OTHER = 60, PREC_ADD = 70, PREC_MUL = 80
};

struct parser {
    struct arena *a;
    struct pql_token *toks;
    int n;                          /* tokens, the final PT_EOF included */
    int pos;
    int depth;
    int nparams;
    bool failed;
    struct ddb_err *err;
};

static struct pn *parse_expr(struct parser *p, int prec);
static struct pn *parse_path_term(struct parser *p, bool simple);

/* ------------------------------------------------------------------------
 * Tokens and errors
 * ---------------------------------------------------------------------- */

static struct pql_token *
cur(struct parser *p)
{
    return &p->toks[p->pos];
}

static struct pql_token *
peek(struct parser *p, int k)
{
    int i = p->pos + k;

    return &p->toks[i < p->n ? i : p->n - 1];
}

static void
next(struct parser *p)
{
    if (p->pos < p->n - 1)
        p->pos++;
}

/* Whether t is keyword (or keyword operator) kw. */
static bool
is_kw(const struct pql_token *t, enum pql_kw kw)
{
    return (t->type == PT_KW || t->type == PT_OP) && t->kw == kw;
}

static bool
is_op(const struct pql_token *t, const char *op)
{
    return t->type == PT_OP && t->kw == KW_NONE && strcmp(t->text, op) == 0;
}

/* Record the first error: DynamoDB's envelope and the parser's detail.
 * Returns NULL so a parse function fails in one line. */
static void *
fail(struct parser *p, const char *detail)
{
    if (!p->failed) {
        p->failed = true;
        ddb_err_set(p->err, DDB_VALIDATION, "%s%s", PQL_NOT_WELL_FORMED,
                    detail);
    }
    return NULL;
}

/* The current token must be type (named name in the message). */
static bool
expect(struct parser *p, enum pql_tok type, const char *name)
{
    char msg[64];

    if (p->failed)
        return false;
    if (cur(p)->type == type) {
        next(p);
        return true;
    }
    snprintf(msg, sizeof(msg), "Expected %s", name);
    fail(p, msg);
    return false;
}

static struct pn *
node(struct parser *p, enum pn_kind k, const struct pql_token *t)
{
    struct pn *n = arena_alloc(p->a, sizeof(*n));

    n->k = k;
    n->pos = t->pos;
    n->text = t->text;
    n->len = t->len;
    return n;
}

/* Append kid to n's kids (arena vector with capacity *cap). */
static void
add_kid(struct parser *p, struct pn *n, int *cap, struct pn *kid)
{
    n->kids = arena_grow(p->a, n->kids, n->nkids, cap, sizeof(*n->kids));
    n->kids[n->nkids++] = kid;
}

static struct pn *
unary_node(struct parser *p, enum pn_kind k, const struct pql_token *t,
           struct pn *kid)
{
    struct pn *n = node(p, k, t);
    int cap = 0;

    add_kid(p, n, &cap, kid);
    return n;
}

/* ------------------------------------------------------------------------
 * Terms
 * ---------------------------------------------------------------------- */

/* Comma-separated expressions up to the closing token (not consumed). */
static struct pn *
parse_list(struct parser *p, enum pn_kind k, const struct pql_token *t,
           enum pql_tok close)
{
    struct pn *n = node(p, k, t), *e;
    int cap = 0;

    if (cur(p)->type == close)
        return n;
    for (;;) {
        e = parse_expr(p, -1);
        if (e == NULL)
            return NULL;
        add_kid(p, n, &cap, e);
        if (cur(p)->type != PT_COMMA)
            return n;
        next(p);
    }
}

static struct pn *
parse_struct(struct parser *p, const struct pql_token *t)
{
    struct pn *n = node(p, PN_STRUCT, t), *k, *v;
    int cap = 0;

    if (cur(p)->type == PT_RCURLY) {
        next(p);
        return n;
    }
    for (;;) {
        if ((k = parse_expr(p, -1)) == NULL ||
            !expect(p, PT_COLON, "COLON") ||
            (v = parse_expr(p, -1)) == NULL)
            return NULL;
        add_kid(p, n, &cap, k);
        add_kid(p, n, &cap, v);
        if (cur(p)->type != PT_COMMA)
            break;
        next(p);
    }
    return expect(p, PT_RCURLY, "RIGHT_CURLY") ? n : NULL;
}

/* name(args): the name token is current, '(' next. */
static struct pn *
parse_call(struct parser *p)
{
    const struct pql_token *t = cur(p);
    struct pn *n = node(p, PN_CALL, t), *args;
    char *low = arena_strndup(p->a, t->text, t->len);
    size_t i;

    for (i = 0; i < t->len; i++)
        if (low[i] >= 'A' && low[i] <= 'Z')
            low[i] = (char)(low[i] + 32);
    n->text = low;
    next(p);
    next(p);                        /* '(' */
    if (cur(p)->type == PT_STAR) {
        char msg[96];

        if (strcmp(low, "count") != 0) {
            snprintf(msg, sizeof(msg), "%.40s(*) is not allowed", low);
            return fail(p, msg);
        }
        args = node(p, PN_WILD, cur(p));
        next(p);
        n->kids = arena_alloc(p->a, sizeof(*n->kids));
        n->kids[n->nkids++] = args;
        return expect(p, PT_RPAREN, "RIGHT_PAREN") ? n : NULL;
    }
    args = parse_list(p, PN_LIST, t, PT_RPAREN);
    if (args == NULL || !expect(p, PT_RPAREN, "RIGHT_PAREN"))
        return NULL;
    n->kids = args->kids;
    n->nkids = args->nkids;
    return n;
}

/* VALUES (a, b), (c, d): a bag of lists. */
static struct pn *
parse_values(struct parser *p)
{
    const struct pql_token *t = cur(p);
    struct pn *bag = node(p, PN_BAG, t), *row;
    int cap = 0;

    next(p);
    for (;;) {
        const struct pql_token *lp = cur(p);

        if (!expect(p, PT_LPAREN, "LEFT_PAREN"))
            return NULL;
        row = parse_list(p, PN_LIST, lp, PT_RPAREN);
        if (row == NULL || !expect(p, PT_RPAREN, "RIGHT_PAREN"))
            return NULL;
        add_kid(p, bag, &cap, row);
        if (cur(p)->type != PT_COMMA)
            return bag;
        next(p);
    }
}

static struct pn *parse_select(struct parser *p);
static struct pn *parse_insert(struct parser *p);
static struct pn *parse_update(struct parser *p);
static struct pn *parse_delete(struct parser *p);
static struct pn *parse_from_first(struct parser *p);

static struct pn *
parse_keyword_term(struct parser *p, const struct pql_token *t)
{
    switch (t->kw) {
    case KW_SELECT:
        return parse_select(p);
    case KW_INSERT:
        if (is_kw(peek(p, 1), KW_INTO))
            return parse_insert(p);
        break;
    case KW_UPDATE:
        return parse_update(p);
    case KW_DELETE:
        return parse_delete(p);
    case KW_FROM:
        return parse_from_first(p);
    case KW_VALUES:
        return parse_values(p);
    case KW_TRUE:
    case KW_FALSE:
    case KW_NULL:
    case KW_MISSING:
        next(p);
        return node(p, t->kw == KW_TRUE ? PN_TRUE :
                       t->kw == KW_FALSE ? PN_FALSE :
                       t->kw == KW_NULL ? PN_NULL : PN_MISSING, t);
    case KW_FUNC:
        if (peek(p, 1)->type == PT_LPAREN)
            return parse_call(p);
        break;
    default:
        break;
    }
    return fail(p, "Unexpected keyword");
}

static struct pn *
parse_term(struct parser *p)
{
    const struct pql_token *t = cur(p);
    struct pn *n;

    switch (t->type) {
    case PT_OP:
        return fail(p, "Unexpected operator");
    case PT_KW:
        return parse_keyword_term(p, t);
    case PT_LPAREN:
        next(p);
        if (cur(p)->type == PT_RPAREN)
            return fail(p, "Expression group cannot be empty");
        n = parse_list(p, PN_LIST, t, PT_RPAREN);
        if (n == NULL || !expect(p, PT_RPAREN, "RIGHT_PAREN"))
            return NULL;
        return n->nkids == 1 ? n->kids[0] : n;
    case PT_LBRACKET:
        next(p);
        n = parse_list(p, PN_LIST, t, PT_RBRACKET);
        return n != NULL && expect(p, PT_RBRACKET, "RIGHT_BRACKET") ? n
                                                                    : NULL;
    case PT_LBAG:
        next(p);
        n = parse_list(p, PN_BAG, t, PT_RBAG);
        return n != NULL && expect(p, PT_RBAG, "RIGHT_DOUBLE_ANGLE_BRACKET")
                   ? n : NULL;
    case PT_LCURLY:
        next(p);
        return parse_struct(p, t);
    case PT_ID:
    case PT_QID:
        if (peek(p, 1)->type == PT_LPAREN)
            return parse_call(p);
        next(p);
        n = node(p, PN_ID, t);
        n->quoted = t->type == PT_QID;
        return n;
    case PT_PARAM:
        next(p);
        n = node(p, PN_PARAM, t);
        n->param = p->nparams++;
        return n;
    case PT_STR:
    case PT_NUM:
        next(p);
        return node(p, t->type == PT_STR ? PN_STR : PN_NUM, t);
    default:
        return fail(p, "Unexpected term");
    }
}

/* A term and its path steps (.name, ."name", [expr], .*, [*]). A simple
 * path (DML targets, SET and REMOVE) starts with a name and indexes with
 * literals only. */
static struct pn *
parse_path_term(struct parser *p, bool simple)
{
    struct pn *term, *path = NULL, *step, *e;
    int cap = 0;

    if (simple) {
        const struct pql_token *t = cur(p);

        if (t->type != PT_ID && t->type != PT_QID)
            return fail(p, "Expected identifier for simple path");
        next(p);
        term = node(p, PN_ID, t);
        term->quoted = t->type == PT_QID;
    } else if ((term = parse_term(p)) == NULL) {
        return NULL;
    }
    for (;;) {
        const struct pql_token *t = cur(p);

        if (t->type == PT_DOT) {
            const struct pql_token *c = peek(p, 1);

            next(p);
            if (c->type == PT_ID || c->type == PT_QID) {
                step = node(p, PN_DOT, c);
                step->quoted = c->type == PT_QID;
            } else if (c->type == PT_STAR) {
                if (simple)
                    return fail(p, "Invalid path dot component for simple "
                                   "path");
                step = node(p, PN_WILD, c);
            } else {
                return fail(p, "Invalid path dot component");
            }
            next(p);
        } else if (t->type == PT_LBRACKET) {
            next(p);
            if (cur(p)->type == PT_STAR) {
                step = node(p, PN_WILD, cur(p));
                next(p);
            } else {
                if ((e = parse_expr(p, -1)) == NULL)
                    return NULL;
                if (simple && e->k != PN_NUM && e->k != PN_STR)
                    return fail(p, "Invalid path component for simple "
                                   "path");
                step = unary_node(p, PN_INDEX, t, e);
            }
            if (!expect(p, PT_RBRACKET, "RIGHT_BRACKET"))
                return NULL;
        } else {
            break;
        }
        if (path == NULL) {
            path = node(p, PN_PATH, cur(p));
            path->pos = term->pos;
            add_kid(p, path, &cap, term);
        }
        add_kid(p, path, &cap, step);
    }
    return path != NULL ? path : term;
}

/* Unary +, - (a number literal takes the sign) and NOT. */
static struct pn *
parse_unary(struct parser *p)
{
    const struct pql_token *t = cur(p);
    struct pn *term, *n;

    if (is_kw(t, KW_NOT)) {
        next(p);
        term = parse_expr(p, PREC_NOT);
        return term != NULL ? unary_node(p, PN_NOT, t, term) : NULL;
    }
    if (!is_op(t, "+") && !is_op(t, "-"))
        return parse_path_term(p, false);
    if (++p->depth > PQL_DEPTH_MAX)
        return fail(p, "Expression nesting is too deep");
    next(p);
    term = parse_unary(p);
    p->depth--;
    if (term == NULL)
        return NULL;
    if (term->k == PN_NUM) {
        if (t->text[0] == '-') {
            n = node(p, PN_NUM, t);
            n->pos = term->pos;
            if (term->text[0] == '-') {
                n->text = term->text + 1;
                n->len = term->len - 1;
            } else {
                n->text = arena_printf(p->a, "-%s", term->text);
                n->len = term->len + 1;
            }
            return n;
        }
        return term;
    }
    return unary_node(p, t->text[0] == '-' ? PN_NEG : PN_POS, t, term);
}

/* ------------------------------------------------------------------------
 * Operators
 * ---------------------------------------------------------------------- */

/* The current token's infix precedence, 0 when it is no infix operator. */
static int
infix_prec(struct parser *p)
{
    const struct pql_token *t = cur(p);
    static const struct { const char *op; int prec; } ops[] = {
        { "=", PREC_EQUITY }, { "<>", PREC_EQUITY }, { "!=", PREC_EQUITY },
        { "<", PREC_COMPARISON }, { "<=", PREC_COMPARISON },
        { ">", PREC_COMPARISON }, { ">=", PREC_COMPARISON },
        { "||", PREC_OTHER }, { "+", PREC_ADD }, { "-", PREC_ADD },
        { "/", PREC_MUL }, { "%", PREC_MUL },
    };
    const struct pql_token *n2;
    size_t i;

    if (t->type == PT_STAR)
        return PREC_MUL;
    if (t->type != PT_OP)
        return 0;
    switch (t->kw) {
    case KW_OR: return PREC_OR;
    case KW_AND: return PREC_AND;
    case KW_IS: return PREC_EQUITY;
    case KW_IN: case KW_LIKE: case KW_BETWEEN: return PREC_COMPARISON;
    case KW_NOT:
        n2 = peek(p, 1);
        return is_kw(n2, KW_IN) || is_kw(n2, KW_LIKE) ||
               is_kw(n2, KW_BETWEEN) ? PREC_COMPARISON : 0;
    default:
        break;
    }
    for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
        if (strcmp(t->text, ops[i].op) == 0)
            return ops[i].prec;
    return 0;
}

/* The right operand of the operator at the current token, which is
 * consumed. The PartiQL parser wants the operator and at least two more
 * tokens (the end included) before it reads one. */
static struct pn *
parse_rhs(struct parser *p, int prec)
{
    if (p->n - p->pos < 3)
        return fail(p, "Missing right-hand side expression of infix "
                       "operator");
    next(p);
    return parse_expr(p, prec);
}

/* IS's type name: PartiQL's types, DOUBLE PRECISION and CHARACTER
 * VARYING as two words, optional (n[, m]). The lower-case name, or NULL. */
static const char *
parse_type(struct parser *p)
{
    static const char *const types[] = {
        "any", "bag", "bigint", "blob", "bool", "boolean", "char",
        "character", "clob", "date", "dec", "decimal", "float", "int",
        "int2", "int4", "int8", "integer", "integer2", "integer4",
        "integer8", "list", "missing", "null", "numeric", "real", "sexp",
        "smallint", "string", "struct", "symbol", "time", "timestamp",
        "tuple", "varchar",
    };
    const struct pql_token *t = cur(p);
    char low[24];
    const char *name = NULL;
    size_t i;

    if ((t->type == PT_ID || t->type == PT_KW) && t->len < sizeof(low)) {
        for (i = 0; i < t->len; i++)
            low[i] = (char)((t->text[i] >= 'A' && t->text[i] <= 'Z')
                            ? t->text[i] + 32 : t->text[i]);
        low[t->len] = '\0';
        if (strcmp(low, "double") == 0 &&
            pql_keyword(peek(p, 1)->text, peek(p, 1)->len, NULL) &&
            strcmp(peek(p, 1)->text, "precision") == 0) {
            next(p);
            name = "double precision";
        } else if (strcmp(low, "character") == 0 &&
                   strcmp(peek(p, 1)->text, "varying") == 0) {
            next(p);
            name = "character varying";
        }
        for (i = 0; name == NULL && i < sizeof(types) / sizeof(types[0]);
             i++)
            if (strcmp(low, types[i]) == 0)
                name = types[i];
    }
    if (name == NULL)
        return fail(p, "Expected type name");
    next(p);
    if (cur(p)->type == PT_LPAREN) {
        next(p);
        while (cur(p)->type == PT_NUM || cur(p)->type == PT_COMMA)
            next(p);
        if (!expect(p, PT_RPAREN, "RIGHT_PAREN"))
            return NULL;
    }
    return name;
}

static struct pn *
binary(struct parser *p, enum pn_kind k, const struct pql_token *t,
       struct pn *a, struct pn *b, bool neg)
{
    struct pn *n = node(p, k, t);
    int cap = 0;

    n->pos = a->pos;
    n->neg = neg;
    add_kid(p, n, &cap, a);
    add_kid(p, n, &cap, b);
    return n;
}

/* One infix operation on left, the operator current. */
static struct pn *
parse_infix(struct parser *p, struct pn *left)
{
    static const struct { const char *op; enum pn_op code; } ops[] = {
        { "=", OP_EQ }, { "<>", OP_NE }, { "!=", OP_NE }, { "<", OP_LT },
        { "<=", OP_LE }, { ">", OP_GT }, { ">=", OP_GE }, { "+", OP_ADD },
        { "-", OP_SUB }, { "/", OP_DIV }, { "%", OP_MOD },
        { "||", OP_CONCAT },
    };
    const struct pql_token *t = cur(p);
    int prec = infix_prec(p), cap;
    bool neg = false;
    struct pn *r, *n;
    size_t i;

    if (is_kw(t, KW_NOT)) {
        neg = true;
        next(p);
        t = cur(p);
    }
    if (is_kw(t, KW_IS)) {
        const char *type;

        next(p);
        if (is_kw(cur(p), KW_NOT)) {
            neg = true;
            next(p);
        }
        if ((type = parse_type(p)) == NULL)
            return NULL;
        n = unary_node(p, PN_IS, t, left);
        n->pos = left->pos;
        n->text = type;
        n->neg = neg;
        return n;
    }
    if (is_kw(t, KW_IN) && peek(p, 1)->type == PT_LPAREN &&
        !is_kw(peek(p, 2), KW_SELECT) && !is_kw(peek(p, 2), KW_VALUES)) {
        next(p);
        next(p);
        r = parse_list(p, PN_LIST, t, PT_RPAREN);
        if (r == NULL || !expect(p, PT_RPAREN, "RIGHT_PAREN"))
            return NULL;
        return binary(p, PN_IN, t, left, r, neg);
    }
    if ((r = parse_rhs(p, prec)) == NULL)
        return NULL;
    if (is_kw(t, KW_BETWEEN)) {
        struct pn *hi;

        if (!is_kw(cur(p), KW_AND))
            return fail(p, "Expected AND");
        if (p->n - p->pos < 3)
            return fail(p, "Expected expression after AND");
        next(p);
        if ((hi = parse_expr(p, prec)) == NULL)
            return NULL;
        n = binary(p, PN_BETWEEN, t, left, r, neg);
        cap = n->nkids;             /* grow: a third operand */
        add_kid(p, n, &cap, hi);
        return n;
    }
    if (is_kw(t, KW_LIKE)) {
        n = binary(p, PN_LIKE, t, left, r, neg);
        if (is_kw(cur(p), KW_ESCAPE)) {
            struct pn *esc = parse_rhs(p, prec);

            if (esc == NULL)
                return NULL;
            cap = n->nkids;
            add_kid(p, n, &cap, esc);
        }
        return n;
    }
    if (is_kw(t, KW_IN))
        return binary(p, PN_IN, t, left, r, neg);
    n = binary(p, PN_BIN, t, left, r, false);
    if (t->type == PT_STAR)
        n->op = OP_MUL;
    else if (is_kw(t, KW_AND))
        n->op = OP_AND;
    else if (is_kw(t, KW_OR))
        n->op = OP_OR;
    else
        for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
            if (strcmp(t->text, ops[i].op) == 0)
                n->op = ops[i].code;
    return n;
}

/* An expression whose operators bind tighter than prec. */
static struct pn *
parse_expr(struct parser *p, int prec)
{
    struct pn *left;

    if (++p->depth > PQL_DEPTH_MAX)
        return fail(p, "Expression nesting is too deep");
    left = parse_unary(p);
    while (left != NULL && infix_prec(p) > 0 && prec < infix_prec(p))
        left = parse_infix(p, left);
    p->depth--;
    return p->failed ? NULL : left;
}

/* ------------------------------------------------------------------------
 * Statements
 * ---------------------------------------------------------------------- */

static struct pn *
stmt_node(struct parser *p, enum pn_kind k, enum pa_form form)
{
    struct pn *n = node(p, k, cur(p));

    n->stmt = arena_alloc(p->a, sizeof(*n->stmt));
    n->stmt->form = form;
    n->stmt->pos = cur(p)->pos;
    return n;
}

/* An alias name after AS, AT or BY. */
static bool
alias_name(struct parser *p, const char *after)
{
    char msg[64];

    if (cur(p)->type == PT_ID || cur(p)->type == PT_QID) {
        next(p);
        return true;
    }
    snprintf(msg, sizeof(msg), "Expected identifier for %s-alias", after);
    fail(p, msg);
    return false;
}

/* [AS] alias, AT alias, BY alias after a table; true when any was
 * written (DynamoDB refuses them). */
static bool
parse_aliases(struct parser *p, bool *alias)
{
    if (is_kw(cur(p), KW_AS)) {
        next(p);
        if (!alias_name(p, "AS"))
            return false;
        *alias = true;
    } else if (cur(p)->type == PT_ID) {
        next(p);
        *alias = true;
    }
    if (is_kw(cur(p), KW_AT)) {
        next(p);
        if (!alias_name(p, "AT"))
            return false;
        *alias = true;
    }
    if (is_kw(cur(p), KW_BY)) {
        next(p);
        if (!alias_name(p, "BY"))
            return false;
        *alias = true;
    }
    return true;
}

/* FROM's source: an expression ("table" or "table"."index"), its aliases,
 * and any join (DynamoDB refuses joins). */
static bool
parse_source(struct parser *p, struct pa_stmt *s)
{
    if ((s->from = parse_expr(p, PREC_SELECT)) == NULL ||
        !parse_aliases(p, &s->alias))
        return false;
    while (cur(p)->type == PT_COMMA || is_kw(cur(p), KW_JOIN) ||
           ((cur(p)->type == PT_KW && cur(p)->kw == KW_OTHER) &&
            (strcmp(cur(p)->text, "cross") == 0 ||
             strcmp(cur(p)->text, "inner") == 0 ||
             strcmp(cur(p)->text, "left") == 0 ||
             strcmp(cur(p)->text, "right") == 0 ||
             strcmp(cur(p)->text, "full") == 0 ||
             strcmp(cur(p)->text, "outer") == 0))) {
        bool dummy = false;

        s->join = true;
        while (cur(p)->type != PT_COMMA && !is_kw(cur(p), KW_JOIN) &&
               cur(p)->type == PT_KW)
            next(p);
        next(p);
        if (parse_expr(p, PREC_SELECT) == NULL ||
            !parse_aliases(p, &dummy))
            return false;
        if (is_kw(cur(p), KW_ON)) {
            next(p);
            if (parse_expr(p, PREC_SELECT) == NULL)
                return false;
        }
    }
    return !p->failed;
}

static bool
parse_where(struct parser *p, struct pa_stmt *s, int prec)
{
    if (!is_kw(cur(p), KW_WHERE))
        return true;
    next(p);
    s->where = parse_expr(p, prec);
    return s->where != NULL;
}

/* RETURNING (MODIFIED | ALL) (OLD | NEW) (* | expr), ... */
static bool
parse_returning(struct parser *p, struct pa_stmt *s)
{
    if (!is_kw(cur(p), KW_RETURNING))
        return true;
    next(p);
    for (;;) {
        bool modified = is_kw(cur(p), KW_MODIFIED);
        bool is_new;

        if (!modified && !is_kw(cur(p), KW_ALL)) {
            fail(p, "Expected ( MODIFIED | ALL ) ( NEW | OLD ) in "
                    "RETURNING clause");
            return false;
        }
        next(p);
        if (!is_kw(cur(p), KW_OLD) && !is_kw(cur(p), KW_NEW)) {
            fail(p, "Expected ( MODIFIED | ALL ) ( NEW | OLD ) in "
                    "RETURNING clause");
            return false;
        }
        is_new = is_kw(cur(p), KW_NEW);
        next(p);
        if (s->nret == 0) {
            s->ret_map = modified ? (is_new ? RET_MODIFIED_NEW
                                            : RET_MODIFIED_OLD)
                                  : (is_new ? RET_ALL_NEW : RET_ALL_OLD);
            s->ret_star = cur(p)->type == PT_STAR;
        }
        s->nret++;
        if (cur(p)->type == PT_STAR)
            next(p);
        else if (parse_expr(p, -1) == NULL)
            return false;
        if (cur(p)->type != PT_COMMA)
            return true;
        next(p);
    }
}

static void
add_op(struct parser *p, struct pa_stmt *s, int *cap, enum pa_op_kind k,
       struct pn *lhs, struct pn *rhs)
{
    s->ops = arena_grow(p->a, s->ops, s->nops, cap, sizeof(*s->ops));
    s->ops[s->nops].kind = k;
    s->ops[s->nops].lhs = lhs;
    s->ops[s->nops].rhs = rhs;
    s->nops++;
}

/* One or more SET assignments, REMOVE paths, INSERT INTO ... VALUE. */
static bool
parse_dml_ops(struct parser *p, struct pa_stmt *s)
{
    struct pn *lhs, *rhs;
    int cap = 0;

    for (;;) {
        if (is_kw(cur(p), KW_SET)) {
            next(p);
            for (;;) {
                if ((lhs = parse_path_term(p, true)) == NULL)
                    return false;
                if (!is_op(cur(p), "=")) {
                    fail(p, "Expected '='");
                    return false;
                }
                next(p);
                if ((rhs = parse_expr(p, -1)) == NULL)
                    return false;
                add_op(p, s, &cap, DOP_SET, lhs, rhs);
                if (cur(p)->type != PT_COMMA)
                    break;
                next(p);
            }
        } else if (is_kw(cur(p), KW_REMOVE)) {
            next(p);
            if ((lhs = parse_path_term(p, true)) == NULL)
                return false;
            add_op(p, s, &cap, DOP_REMOVE, lhs, NULL);
        } else if (is_kw(cur(p), KW_INSERT) &&
                   is_kw(peek(p, 1), KW_INTO)) {
            next(p);
            next(p);
            if ((lhs = parse_path_term(p, true)) == NULL)
                return false;
            if (is_kw(cur(p), KW_VALUE))
                next(p);
            if ((rhs = parse_expr(p, -1)) == NULL)
                return false;
            add_op(p, s, &cap, DOP_INSERT, lhs, rhs);
        } else {
            break;
        }
    }
    if (s->nops == 0) {
        fail(p, "Expected data manipulation");
        return false;
    }
    return true;
}

/* SELECT [DISTINCT | ALL] (* | VALUE e | e [AS a], ...) FROM source
 * [LET ...] [WHERE c] [GROUP BY ...] [HAVING c] [ORDER BY k [ASC | DESC]
 * [NULLS FIRST | LAST], ...] [LIMIT n] [OFFSET n] */
static struct pn *
parse_select(struct parser *p)
{
    struct pn *n = stmt_node(p, PN_SELECT, FORM_SELECT), *e;
    struct pa_stmt *s = n->stmt;
    int cap = 0, star = -1;

    next(p);
    if (is_kw(cur(p), KW_DISTINCT)) {
        s->distinct = true;
        next(p);
    } else if (is_kw(cur(p), KW_ALL)) {
        next(p);
    }
    if (is_kw(cur(p), KW_VALUE)) {
        next(p);
        s->select_value = true;
        if ((e = parse_expr(p, -1)) == NULL)
            return NULL;
    } else {
        for (;;) {
            if (cur(p)->type == PT_STAR) {
                e = node(p, PN_WILD, cur(p));
                star = s->nproj;
                next(p);
            } else if ((e = parse_expr(p, -1)) == NULL) {
                return NULL;
            } else if (is_kw(cur(p), KW_AS)) {
                next(p);
                if (!alias_name(p, "AS"))
                    return NULL;
                s->proj_alias = true;
            } else if (cur(p)->type == PT_ID) {
                next(p);
                s->proj_alias = true;
            }
            s->proj = arena_grow(p->a, s->proj, s->nproj, &cap,
                                 sizeof(*s->proj));
            s->proj[s->nproj++] = e;
            if (cur(p)->type != PT_COMMA)
                break;
            next(p);
        }
        if (star >= 0 && s->nproj > 1)
            return fail(p, "Other expressions may not be present in the "
                           "select list when '*' is used without dot "
                           "notation.");
    }
    if (!is_kw(cur(p), KW_FROM))
        return fail(p, "Expected FROM after SELECT list");
    next(p);
    if (!parse_source(p, s))
        return NULL;
    if (is_kw(cur(p), KW_LET)) {
        s->let = true;
        do {
            next(p);
            if (parse_expr(p, PREC_SELECT) == NULL)
                return NULL;
            if (!is_kw(cur(p), KW_AS))
                return fail(p, "Expected AS following LET expr");
            next(p);
            if (!alias_name(p, "AS"))
                return NULL;
        } while (cur(p)->type == PT_COMMA);
    }
    if (!parse_where(p, s, PREC_SELECT))
        return NULL;
    if (is_kw(cur(p), KW_GROUP)) {
        s->group = true;
        next(p);
        if (!is_kw(cur(p), KW_BY))
            return fail(p, "Expected BY");
        do {
            next(p);
            if (parse_expr(p, PREC_SELECT) == NULL)
                return NULL;
        } while (cur(p)->type == PT_COMMA);
    }
    if (is_kw(cur(p), KW_HAVING)) {
        s->having = true;
        next(p);
        if (parse_expr(p, PREC_SELECT) == NULL)
            return NULL;
    }
    if (is_kw(cur(p), KW_ORDER)) {
        int ocap = 0, dcap = 0;

        next(p);
        if (!is_kw(cur(p), KW_BY))
            return fail(p, "Expected BY");
        do {
            next(p);
            if ((e = parse_expr(p, PREC_SELECT)) == NULL)
                return NULL;
            s->order = arena_grow(p->a, s->order, s->norder, &ocap,
                                  sizeof(*s->order));
            s->order_desc = arena_grow(p->a, s->order_desc, s->norder,
                                       &dcap, sizeof(*s->order_desc));
            s->order[s->norder] = e;
            s->order_desc[s->norder] = false;
            if (is_kw(cur(p), KW_ASC) || is_kw(cur(p), KW_DESC)) {
                s->order_desc[s->norder] = is_kw(cur(p), KW_DESC);
                next(p);
            }
            s->norder++;
            if (is_kw(cur(p), KW_NULLS)) {
                next(p);
                if (!is_kw(cur(p), KW_FIRST) && !is_kw(cur(p), KW_LAST))
                    return fail(p, "Expected FIRST or LAST");
                next(p);
            }
        } while (cur(p)->type == PT_COMMA);
    }
    if (is_kw(cur(p), KW_LIMIT)) {
        s->limit = true;
        next(p);
        if (parse_expr(p, PREC_SELECT) == NULL)
            return NULL;
    }
    if (is_kw(cur(p), KW_OFFSET)) {
        s->limit = true;
        next(p);
        if (parse_expr(p, PREC_SELECT) == NULL)
            return NULL;
    }
    return n;
}

/* INSERT INTO target (VALUE e | e) [ON CONFLICT ...] [RETURNING ...] */
static struct pn *
parse_insert(struct parser *p)
{
    struct pn *n = stmt_node(p, PN_INSERT, FORM_INSERT);
    struct pa_stmt *s = n->stmt;

    next(p);
    next(p);                        /* INTO */
    if ((s->from = parse_path_term(p, true)) == NULL)
        return NULL;
    if (is_kw(cur(p), KW_VALUE))
        next(p);
    else
        s->insert_values = true;
    if ((s->value = parse_expr(p, -1)) == NULL)
        return NULL;
    if (is_kw(cur(p), KW_AT)) {
        next(p);
        if (parse_expr(p, -1) == NULL)
            return NULL;
    }
    if (is_kw(cur(p), KW_ON) && is_kw(peek(p, 1), KW_CONFLICT)) {
        s->on_conflict = true;
        next(p);
        next(p);
        if (!parse_where(p, s, -1))
            return NULL;
        while (cur(p)->type == PT_KW || cur(p)->type == PT_ID)
            next(p);                /* DO NOTHING, DO REPLACE EXCLUDED */
    }
    return parse_returning(p, s) ? n : NULL;
}

/* UPDATE target [aliases] ops [WHERE c] [RETURNING ...] */
static struct pn *
parse_update(struct parser *p)
{
    struct pn *n = stmt_node(p, PN_DML, FORM_UPDATE);
    struct pa_stmt *s = n->stmt;

    next(p);
    if ((s->from = parse_path_term(p, true)) == NULL ||
        !parse_aliases(p, &s->alias) || !parse_dml_ops(p, s) ||
        !parse_where(p, s, -1) || !parse_returning(p, s))
        return NULL;
    return n;
}

/* DELETE FROM target [aliases] [WHERE c] [RETURNING ...] */
static struct pn *
parse_delete(struct parser *p)
{
    struct pn *n = stmt_node(p, PN_DML, FORM_DELETE);
    struct pa_stmt *s = n->stmt;

    next(p);
    if (!is_kw(cur(p), KW_FROM))
        return fail(p, "Expected FROM after DELETE");
    next(p);
    if ((s->from = parse_path_term(p, true)) == NULL ||
        !parse_aliases(p, &s->alias) || !parse_where(p, s, -1) ||
        !parse_returning(p, s))
        return NULL;
    return n;
}

/* FROM source [WHERE c] ops [RETURNING ...]: an UPDATE written FROM
 * first. */
static struct pn *
parse_from_first(struct parser *p)
{
    struct pn *n = stmt_node(p, PN_DML, FORM_FROM);
    struct pa_stmt *s = n->stmt;

    next(p);
    if (!parse_source(p, s) || !parse_where(p, s, -1) ||
        !parse_dml_ops(p, s) || !parse_returning(p, s))
        return NULL;
    return n;
}

/* ------------------------------------------------------------------------
 * Entry points
 * ---------------------------------------------------------------------- */

int
pql_parse_tree(struct arena *a, const char *text, size_t len,
               struct pn **root, int *nparams, struct ddb_err *err)
{
    struct parser p;
    struct pn *n;

    memset(&p, 0, sizeof(p));
    p.a = a;
    p.err = err;
    p.n = pql_lex(a, text, len, &p.toks, err);
    if (p.n < 0)
        return -1;
    n = parse_expr(&p, -1);
    if (n == NULL)
        return -1;
    if (cur(&p)->type == PT_SEMI)
        next(&p);
    if (cur(&p)->type != PT_EOF) {
        fail(&p, "Unexpected token after expression");
        return -1;
    }
    *root = n;
    *nparams = p.nparams;
    return 0;
}

const char *
pql_node_name(const struct pn *n)
{
    static const char *const bin[] = {
        [OP_AND] = "And", [OP_OR] = "Or", [OP_EQ] = "Eq", [OP_NE] = "Ne",
        [OP_LT] = "Lt", [OP_LE] = "Lte", [OP_GT] = "Gt", [OP_GE] = "Gte",
        [OP_ADD] = "Plus", [OP_SUB] = "Minus", [OP_MUL] = "Times",
        [OP_DIV] = "Divide", [OP_MOD] = "Modulo", [OP_CONCAT] = "Concat",
    };

    if (n->neg && n->k != PN_IS)
        return "Not";
    switch (n->k) {
    case PN_STR: case PN_NUM: case PN_TRUE: case PN_FALSE: case PN_NULL:
        return "Lit";
    case PN_MISSING: return "Missing";
    case PN_PARAM: return "Parameter";
    case PN_ID: return "Id";
    case PN_PATH: case PN_DOT: case PN_INDEX: case PN_WILD: return "Path";
    case PN_CALL: return "Call";
    case PN_NOT: return "Not";
    case PN_NEG: return "Neg";
    case PN_POS: return "Pos";
    case PN_BIN: return bin[n->op];
    case PN_BETWEEN: return "Between";
    case PN_IN: return "InCollection";
    case PN_LIKE: return "Like";
    case PN_IS: return n->neg ? "Not" : "IsType";
    case PN_LIST: return "List";
    case PN_BAG: return "Bag";
    case PN_STRUCT: return "Struct";
    case PN_SELECT: return "Select";
    case PN_INSERT: return "Insert";
    case PN_DML: return "Dml";
    }
    return "Unknown";
}
