/* SPDX-License-Identifier: MIT */
/* parse.c - recursive-descent parser for condition, key condition,
 * projection and update expressions into an arena AST (expr_int.h), and
 * expr_parse(), which runs lex -> parse -> resolve (resolve.c). */

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/expr/expr_int.h"
#include "storage/util.h"

struct parser {
    const char *text;
    struct tok *toks;
    int ntoks;
    int pos;                        /* current token */
    int depth;                      /* open parentheses */
    int nops;                       /* operators and functions so far */
    struct arena *arena;
    struct expr *e;
    bool failed;                    /* err holds the first error */
    struct ddb_err *err;
};

/* The request parameter an expression kind comes from. */
const char *
expr_kind_param(enum expr_kind kind)
{
    switch (kind) {
    case EXPR_CONDITION: return "ConditionExpression";
    case EXPR_FILTER: return "FilterExpression";
    case EXPR_KEY_CONDITION: return "KeyConditionExpression";
    case EXPR_PROJECTION: return "ProjectionExpression";
    case EXPR_UPDATE: return "UpdateExpression";
    }
    return "Expression";
}

/* ------------------------------------------------------------------------
 * Errors
 * ---------------------------------------------------------------------- */

static struct tok *
cur(struct parser *p)
{
    return &p->toks[p->pos];
}

/*
 * DynamoDB's syntax error names the offending token and quotes the text
 * from the token before it to the token after it:
 *   ADD hits : incr    -> token: ":", near: "hits : incr"
 *   a b                -> token: "b", near: "a b"
 * and at the end of input the token before: SET a = a + -> token: "<EOF>",
 * near: "+" (test_expr_syntax_errors).
 */
static struct expr_node *
syntax_error(struct parser *p, int i)
{
    const struct tok *t = &p->toks[i];
    size_t from, to;

    if (p->failed)
        return NULL;
    p->failed = true;
    if (t->type == T_EOF) {
        if (i == 0) {
            from = to = 0;
        } else {
            from = p->toks[i - 1].start;
            to = from + p->toks[i - 1].len;
        }
        ddb_err_set(p->err, DDB_VALIDATION,
                    "Syntax error; token: \"<EOF>\", near: \"%.*s\"",
                    (int)(to - from), p->text + from);
        return NULL;
    }
    from = i > 0 ? p->toks[i - 1].start : t->start;
    if (p->toks[i + 1].type != T_EOF)
        to = p->toks[i + 1].start + p->toks[i + 1].len;
    else
        to = t->start + t->len;
    ddb_err_set(p->err, DDB_VALIDATION,
                "Syntax error; token: \"%.*s\", near: \"%.*s\"", (int)t->len,
                p->text + t->start, (int)(to - from), p->text + from);
    return NULL;
}


/* A path error: the parse stops with msg (printf-style). */
static struct expr_node *
path_error(struct parser *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static struct expr_node *
path_error(struct parser *p, const char *fmt, ...)
{
    char msg[256];
    va_list ap;

    if (p->failed)
        return NULL;
    p->failed = true;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    ddb_err_set(p->err, DDB_VALIDATION, "%s", msg);
    return NULL;
}

/* Count one operator or function; DynamoDB stops at the 301st. */
static bool
count_op(struct parser *p)
{
    if (p->failed)
        return false;
    if (++p->nops > EXPR_OPS_MAX) {
        p->failed = true;
        ddb_err_set(p->err, DDB_VALIDATION,
                    "The expression contains too many operators; "
                    "operator count: %d", p->nops);
        return false;
    }
    return true;
}

/* ------------------------------------------------------------------------
 * Helpers
 * ---------------------------------------------------------------------- */

static struct expr_node *
node_new(struct parser *p, enum node_type type, int nargs)
{
    struct expr_node *n = arena_alloc(p->arena, sizeof(*n));

    n->type = type;
    n->nargs = nargs;
    if (nargs > 0)
        n->args = arena_alloc(p->arena, (size_t)nargs * sizeof(*n->args));
    return n;
}

/* Append n to the arena vector *v of *len elements (capacity *cap). */
static void
vec_push(struct parser *p, struct expr_node ***v, int *len, int *cap,
         struct expr_node *n)
{
    *v = arena_grow(p->arena, *v, *len, cap, sizeof(**v));
    (*v)[(*len)++] = n;
}

static bool
is_kw(struct parser *p, const char *kw)
{
    return lex_tok_is(p->text, cur(p), kw);
}

/* Keywords that cannot start a document path. */
static bool
is_cond_keyword(struct parser *p)
{
    return is_kw(p, "AND") || is_kw(p, "OR") || is_kw(p, "NOT") ||
           is_kw(p, "BETWEEN") || is_kw(p, "IN");
}

static bool
is_update_keyword(struct parser *p)
{
    return is_kw(p, "SET") || is_kw(p, "REMOVE") || is_kw(p, "ADD") ||
           is_kw(p, "DELETE");
}

static bool
is_operand(const struct expr_node *n)
{
    return n->type == NODE_PATH || n->type == NODE_VALUE ||
           n->type == NODE_FUNC || n->type == NODE_ARITH;
}

static enum expr_func
func_id(const char *name)
{
    static const struct { const char *name; enum expr_func f; } tab[] = {
        { "attribute_exists", F_ATTRIBUTE_EXISTS },
        { "attribute_not_exists", F_ATTRIBUTE_NOT_EXISTS },
        { "attribute_type", F_ATTRIBUTE_TYPE },
        { "begins_with", F_BEGINS_WITH },
        { "contains", F_CONTAINS },
        { "size", F_SIZE },
        { "if_not_exists", F_IF_NOT_EXISTS },
        { "list_append", F_LIST_APPEND },
    };
    size_t i;

    /* Function names are case-sensitive in DynamoDB. */
    for (i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
        if (strcmp(tab[i].name, name) == 0)
            return tab[i].f;
    return F_UNKNOWN;
}

/* ------------------------------------------------------------------------
 * Paths: (ident | #name) ( . (ident | #name) | [ digits ] )*
 * ---------------------------------------------------------------------- */

static bool
is_path_start(struct parser *p)
{
    const struct tok *t = cur(p);

    if (t->type == T_NAME)
        return true;
    if (t->type != T_IDENT)
        return false;
    if (p->e->kind == EXPR_UPDATE)
        return !is_update_keyword(p);
    if (p->e->kind == EXPR_PROJECTION)
        return true;
    return !is_cond_keyword(p);
}

static void
elem_from_tok(struct parser *p, struct path_elem *el, const struct tok *t)
{
    char *s = arena_strndup(p->arena, p->text + t->start, t->len);

    if (t->type == T_NAME) {
        el->ref = s;                /* resolved later */
    } else {
        el->name = s;
        el->name_len = t->len;
    }
}

static struct expr_node *
parse_path(struct parser *p)
{
    struct expr_node *n;
    struct path_elem *el = NULL;
    int cap = 0;

    if (!is_path_start(p))
        return syntax_error(p, p->pos);
    n = node_new(p, NODE_PATH, 0);
    el = arena_grow(p->arena, el, 0, &cap, sizeof(*el));
    elem_from_tok(p, &el[0], cur(p));
    n->path.n = 1;
    p->pos++;
    for (;;) {
        struct path_elem e1;

        memset(&e1, 0, sizeof(e1));
        if (cur(p)->type == T_DOT) {
            p->pos++;
            if (cur(p)->type != T_IDENT && cur(p)->type != T_NAME)
                return syntax_error(p, p->pos);
            elem_from_tok(p, &e1, cur(p));
            p->pos++;
        } else if (cur(p)->type == T_LBRACKET) {
            const struct tok *t;
            long v = 0;
            size_t k;

            p->pos++;
            t = cur(p);
            if (t->type != T_NUMBER)
                return syntax_error(p, p->pos);
            for (k = 0; k < t->len; k++) {
                int d = p->text[t->start + k] - '0';

                v = v > (LONG_MAX - d) / 10 ? LONG_MAX : v * 10 + d;
            }
            if (v > LIST_INDEX_MAX)
                return path_error(p, "List index is not within the "
                                  "allowable range; index: [%.*s]",
                                  (int)t->len, p->text + t->start);
            e1.is_index = true;
            e1.index = v;
            p->pos++;
            if (cur(p)->type != T_RBRACKET)
                return syntax_error(p, p->pos);
            p->pos++;
        } else {
            break;
        }
        el = arena_grow(p->arena, el, n->path.n, &cap, sizeof(*el));
        el[n->path.n++] = e1;
    }
    if (n->path.n > PATH_LEVELS_MAX)
        return path_error(p, "The document path has too many nesting "
                          "levels; nesting levels: %d", n->path.n);
    n->path.el = el;
    return n;
}

/* ------------------------------------------------------------------------
 * Operands
 * ---------------------------------------------------------------------- */

static struct expr_node *parse_or(struct parser *p);
static struct expr_node *parse_set_value(struct parser *p);
static struct expr_node *parse_set_operand(struct parser *p);
static struct expr_node *parse_operand(struct parser *p);

typedef struct expr_node *parse_fn(struct parser *p);

/*
 * arg (, arg)* ) after a '(' the caller consumed and counted in p->depth:
 * each arg parsed by operand and appended to the arena vector *v (*len
 * elements, capacity *cap); the ')' is consumed and the depth lowered
 * again. false on error (p->failed set).
 */
static bool
parse_arg_list(struct parser *p, parse_fn *operand, struct expr_node ***v,
               int *len, int *cap)
{
    struct expr_node *a;

    for (;;) {
        if ((a = operand(p)) == NULL)
            return false;
        vec_push(p, v, len, cap, a);
        if (cur(p)->type != T_COMMA)
            break;
        p->pos++;
    }
    if (cur(p)->type != T_RPAREN) {
        syntax_error(p, p->pos);
        return false;
    }
    p->pos++;
    p->depth--;
    return true;
}

/* name ( arg, ... ): args are operands, never arithmetic: DynamoDB takes
 * "if_not_exists(a, :v) + :w" but not "if_not_exists(a, :v + :w)". */
static struct expr_node *
parse_function(struct parser *p)
{
    struct expr_node *n, **args = NULL;
    const struct tok *t = cur(p);
    int nargs = 0, cap = 0;

    if (!count_op(p))
        return NULL;
    n = node_new(p, NODE_FUNC, 0);
    n->fname = arena_strndup(p->arena, p->text + t->start, t->len);
    n->op = func_id(n->fname);
    p->pos += 2;                    /* name ( */
    p->depth++;
    if (!parse_arg_list(p, p->e->kind == EXPR_UPDATE ? parse_set_operand
                                                     : parse_operand,
                        &args, &nargs, &cap))
        return NULL;
    n->nargs = nargs;
    n->args = args;
    return n;
}

static struct expr_node *
parse_value(struct parser *p)
{
    struct expr_node *n = node_new(p, NODE_VALUE, 0);
    const struct tok *t = cur(p);

    n->ref = arena_strndup(p->arena, p->text + t->start, t->len);
    p->pos++;
    return n;
}

/* ( inner ), at the '(': the node inner parses, one more level of
 * parentheses around it. */
static struct expr_node *
parse_parens(struct parser *p, parse_fn *inner)
{
    struct expr_node *n;

    p->pos++;
    p->depth++;
    n = inner(p);
    if (n == NULL)
        return NULL;
    if (cur(p)->type != T_RPAREN)
        return syntax_error(p, p->pos);
    p->pos++;
    p->depth--;
    n->parens++;
    return n;
}

/*
 * path | :value | function(...) | ( inner ): an operand of a condition
 * (inner is parse_operand) or of SET (inner is parse_set_value, so
 * arithmetic may stand in parentheses). In a condition, a keyword before
 * '(' is no function name: "a IN (...)".
 */
static struct expr_node *
parse_operand_of(struct parser *p, parse_fn *inner)
{
    const struct tok *t = cur(p);

    if (p->failed)
        return NULL;
    if (t->type == T_VALUE)
        return parse_value(p);
    if (t->type == T_IDENT && p->toks[p->pos + 1].type == T_LPAREN &&
        (p->e->kind == EXPR_UPDATE || !is_cond_keyword(p)))
        return parse_function(p);
    if (t->type == T_LPAREN)
        return parse_parens(p, inner);
    return parse_path(p);
}

/* path | :value | function(...) | ( operand ) */
static struct expr_node *
parse_operand(struct parser *p)
{
    return parse_operand_of(p, parse_operand);
}

/* ------------------------------------------------------------------------
 * Conditions. Precedence, loosest first: OR, AND, NOT, then comparisons,
 * BETWEEN, IN, functions and parentheses.
 * ---------------------------------------------------------------------- */

/* A bare path or value where a condition must be: the error is at the
 * token that follows it. */
static bool
need_condition(struct parser *p, const struct expr_node *n)
{
    if (n->type == NODE_PATH || n->type == NODE_VALUE) {
        syntax_error(p, p->pos);
        return false;
    }
    return true;
}

/* At a comparison, BETWEEN or IN after x: x must be an operand (not a
 * condition); the operator is counted and consumed. false on error. */
static bool
take_operator(struct parser *p, const struct expr_node *x)
{
    if (!is_operand(x)) {
        syntax_error(p, p->pos);
        return false;
    }
    if (!count_op(p))
        return false;
    p->pos++;
    return true;
}

static struct expr_node *
parse_predicate(struct parser *p)
{
    struct expr_node *x, *n;
    enum tok_type tt;
    int op = -1;

    if (p->failed)
        return NULL;
    /* ( condition ) or ( operand ) */
    x = cur(p)->type == T_LPAREN ? parse_parens(p, parse_or)
                                 : parse_operand(p);
    if (x == NULL)
        return NULL;
    tt = cur(p)->type;
    switch (tt) {
    case T_EQ: op = CMP_EQ; break;
    case T_NE: op = CMP_NE; break;
    case T_LT: op = CMP_LT; break;
    case T_LE: op = CMP_LE; break;
    case T_GT: op = CMP_GT; break;
    case T_GE: op = CMP_GE; break;
    default: break;
    }
    if (op >= 0) {
        if (!take_operator(p, x))
            return NULL;
        n = node_new(p, NODE_CMP, 2);
        n->op = op;
        n->args[0] = x;
        n->args[1] = parse_operand(p);
        return n->args[1] ? n : NULL;
    }
    if (is_kw(p, "BETWEEN")) {
        if (!take_operator(p, x))
            return NULL;
        n = node_new(p, NODE_BETWEEN, 3);
        n->args[0] = x;
        if ((n->args[1] = parse_operand(p)) == NULL)
            return NULL;
        if (!is_kw(p, "AND"))
            return syntax_error(p, p->pos);
        p->pos++;
        n->args[2] = parse_operand(p);
        return n->args[2] ? n : NULL;
    }
    if (is_kw(p, "IN")) {
        struct expr_node **list = NULL;
        int k = 0, cap = 0;

        if (!take_operator(p, x))
            return NULL;
        if (cur(p)->type != T_LPAREN)
            return syntax_error(p, p->pos);
        p->pos++;
        p->depth++;
        vec_push(p, &list, &k, &cap, x);
        if (!parse_arg_list(p, parse_operand, &list, &k, &cap))
            return NULL;
        n = node_new(p, NODE_IN, 0);
        n->args = list;
        n->nargs = k;
        return n;
    }
    /* A bare operand: fine inside parentheses about to close, where it may
     * be the left side of a comparison: "(a) = :v". */
    if ((x->type == NODE_PATH || x->type == NODE_VALUE) &&
        !(tt == T_RPAREN && p->depth > 0))
        return syntax_error(p, p->pos);
    return x;
}

static struct expr_node *
parse_not(struct parser *p)
{
    struct expr_node *n, *x;

    if (p->failed)
        return NULL;
    if (is_kw(p, "NOT")) {
        if (!count_op(p))
            return NULL;
        p->pos++;
        x = parse_not(p);
        if (x == NULL || !need_condition(p, x))
            return NULL;
        n = node_new(p, NODE_NOT, 1);
        n->args[0] = x;
        return n;
    }
    return parse_predicate(p);
}

/* One left-associative level of conditions: operand (kw operand)*, each
 * operand a condition, joined into type nodes (AND over NOT, OR over AND). */
static struct expr_node *
parse_chain(struct parser *p, const char *kw, enum node_type type,
            parse_fn *operand)
{
    struct expr_node *l = operand(p), *n;

    while (l != NULL && is_kw(p, kw)) {
        if (!need_condition(p, l) || !count_op(p))
            return NULL;
        p->pos++;
        n = node_new(p, type, 2);
        n->args[0] = l;
        n->args[1] = operand(p);
        if (n->args[1] == NULL || !need_condition(p, n->args[1]))
            return NULL;
        l = n;
    }
    return l;
}

static struct expr_node *
parse_and(struct parser *p)
{
    return parse_chain(p, "AND", NODE_AND, parse_not);
}

static struct expr_node *
parse_or(struct parser *p)
{
    return parse_chain(p, "OR", NODE_OR, parse_and);
}

/* ------------------------------------------------------------------------
 * Update expressions
 * ---------------------------------------------------------------------- */

/* path | :value | function(...) | ( set-value ) */
static struct expr_node *
parse_set_operand(struct parser *p)
{
    return parse_operand_of(p, parse_set_value);
}

/* operand [ (+|-) operand ] */
static struct expr_node *
parse_set_value(struct parser *p)
{
    struct expr_node *l = parse_set_operand(p), *n;

    if (l == NULL)
        return NULL;
    if (cur(p)->type == T_PLUS || cur(p)->type == T_MINUS) {
        if (!count_op(p))
            return NULL;
        n = node_new(p, NODE_ARITH, 2);
        n->op = cur(p)->type == T_PLUS ? '+' : '-';
        p->pos++;
        n->args[0] = l;
        n->args[1] = parse_set_operand(p);
        return n->args[1] ? n : NULL;
    }
    return l;
}

static int
parse_update(struct parser *p)
{
    struct upd_action *acts = NULL;
    int cap = 0, n = 0;
    bool seen[4] = { false, false, false, false };
    static const char *const names[4] = { "SET", "REMOVE", "ADD", "DELETE" };

    while (cur(p)->type != T_EOF) {
        enum upd_kind kind;

        if (is_kw(p, "SET"))
            kind = UPD_SET;
        else if (is_kw(p, "REMOVE"))
            kind = UPD_REMOVE;
        else if (is_kw(p, "ADD"))
            kind = UPD_ADD;
        else if (is_kw(p, "DELETE"))
            kind = UPD_DELETE;
        else
            return syntax_error(p, p->pos), -1;
        if (seen[kind] && !p->e->dup_section) {
            p->e->dup_section = true;
            p->e->dup_section_name = names[kind];
        }
        seen[kind] = true;
        p->pos++;
        for (;;) {
            struct upd_action a;

            memset(&a, 0, sizeof(a));
            a.kind = kind;
            if ((a.path = parse_path(p)) == NULL)
                return -1;
            if (kind == UPD_SET) {
                if (cur(p)->type != T_EQ)
                    return syntax_error(p, p->pos), -1;
                p->pos++;
                if ((a.value = parse_set_value(p)) == NULL)
                    return -1;
            } else if (kind == UPD_ADD || kind == UPD_DELETE) {
                if (cur(p)->type != T_VALUE)
                    return syntax_error(p, p->pos), -1;
                a.value = parse_value(p);
            }
            acts = arena_grow(p->arena, acts, n, &cap, sizeof(*acts));
            acts[n++] = a;
            if (cur(p)->type != T_COMMA)
                break;
            p->pos++;
        }
        if (cur(p)->type != T_EOF && !is_update_keyword(p))
            return syntax_error(p, p->pos), -1;
    }
    p->e->acts = acts;
    p->e->nacts = n;
    return 0;
}

/* ------------------------------------------------------------------------
 * Projections: path, path, ...
 * ---------------------------------------------------------------------- */

static int
parse_projection(struct parser *p)
{
    struct expr_node **v = NULL;
    int cap = 0, n = 0;

    for (;;) {
        struct expr_node *x = parse_path(p);

        if (x == NULL)
            return -1;
        vec_push(p, &v, &n, &cap, x);
        if (cur(p)->type != T_COMMA)
            break;
        p->pos++;
    }
    p->e->paths = v;
    p->e->npaths = n;
    return 0;
}

/* ------------------------------------------------------------------------
 * Entry points
 * ---------------------------------------------------------------------- */

/* Tokenize and parse text (len bytes) by e->kind into e's arena. 0, or -1
 * with the unprefixed syntax / operator-count message in err. */
int
parse_syntax(struct expr *e, const char *text, size_t len,
             struct ddb_err *err)
{
    struct parser p;

    memset(&p, 0, sizeof(p));
    p.text = text;
    p.arena = &e->arena;
    p.e = e;
    p.err = err;
    p.ntoks = lex_tokens(&e->arena, text, len, &p.toks);
    switch (e->kind) {
    case EXPR_UPDATE:
        if (parse_update(&p) != 0)
            return -1;
        break;
    case EXPR_PROJECTION:
        if (parse_projection(&p) != 0)
            return -1;
        break;
    default:
        e->root = parse_or(&p);
        if (e->root == NULL)
            return -1;
        if (!need_condition(&p, e->root))
            return -1;
        break;
    }
    if (cur(&p)->type != T_EOF) {
        syntax_error(&p, p.pos);
        return -1;
    }
    return p.failed ? -1 : 0;
}

/* Rewrite err's message as "Invalid <param>: <message>". */
static int
prefix_error(const char *param, struct ddb_err *err)
{
    char msg[DDB_ERR_MSG_MAX];

    if (err == NULL)
        return -1;
    memcpy(msg, err->msg, sizeof(msg));
    msg[sizeof(msg) - 1] = '\0';
    return ddb_err_set(err, DDB_VALIDATION, "Invalid %s: %s", param, msg);
}

/* An empty expression of kind with its arena (caller frees with
 * expr_free). */
struct expr *
expr_new(enum expr_kind kind)
{
    struct expr *e = xcalloc(1, sizeof(*e));

    e->kind = kind;
    arena_init(&e->arena);
    return e;
}

/* The update's written paths as a projection, owned by e. */
void
expr_build_targets(struct expr *e)
{
    struct expr *t = expr_new(EXPR_PROJECTION);
    int i;

    t->paths = arena_alloc(&e->arena, ((size_t)e->nacts + 1) *
                                      sizeof(*t->paths));
    for (i = 0; i < e->nacts; i++)
        t->paths[t->npaths++] = e->acts[i].path;
    e->targets = t;
}

/*
 * Parse text as kind, resolving names and values through env (marking them
 * used). Returns a new expr (caller frees with expr_free) that borrows
 * values from env, so it must not outlive env; NULL with err set to
 * DynamoDB's "Invalid <param>: ..." message.
 */
static struct expr *
parse_text(struct expr_env *env, enum expr_kind kind, const char *param,
           const char *text, bool legacy, struct ddb_err *err)
{
    struct expr *e = NULL;
    size_t len, i;

    if (text == NULL)
        text = "";
    len = strlen(text);
    if (legacy)
        goto parse;
    /* An UpdateExpression's message has no size tail (TransactWriteItems,
     * us-east-1 and eu-west-2, 2026-10: paritysuite/dynamodb-conformance
     * validation-ordering/deepRequests.test.ts); the other kinds keep it. */
    if (len > EXPR_TEXT_MAX && kind == EXPR_UPDATE) {
        ddb_err_set(err, DDB_VALIDATION,
                    "Invalid %s: Expression size has exceeded the maximum "
                    "allowed size;", param);
        return NULL;
    }
    if (len > EXPR_TEXT_MAX) {
        ddb_err_set(err, DDB_VALIDATION,
                    "Invalid %s: Expression size has exceeded the maximum "
                    "allowed size; expression size: %zu", param, len);
        return NULL;
    }
    for (i = 0; i < len && lex_is_space(text[i]); i++)
        ;
    if (i == len) {
        ddb_err_set(err, DDB_VALIDATION,
                    "Invalid %s: The expression can not be empty;", param);
        return NULL;
    }
parse:
    e = expr_new(kind);
    e->legacy = legacy;
    if (parse_syntax(e, text, len, err) != 0 ||
        resolve_expr(e, env, err) != 0) {
        prefix_error(param, err);
        expr_free(e);
        return NULL;
    }
    if (kind == EXPR_UPDATE)
        expr_build_targets(e);
    eval_prepare(e);
    return e;
}

struct expr *
expr_parse(struct expr_env *env, enum expr_kind kind, const char *text,
           struct ddb_err *err)
{
    return parse_text(env, kind, expr_kind_param(kind), text, false, err);
}

struct expr *
expr_parse_as(struct expr_env *env, enum expr_kind kind, const char *param,
              const char *text, struct ddb_err *err)
{
    return parse_text(env, kind, param, text, false, err);
}

struct expr *
expr_parse_legacy(struct expr_env *env, enum expr_kind kind,
                  const char *text, struct ddb_err *err)
{
    return parse_text(env, kind, expr_kind_param(kind), text, true, err);
}

/* Free e, its arena and its update targets; accepts NULL. */
void
expr_free(struct expr *e)
{
    if (e == NULL)
        return;
    expr_free(e->targets);
    arena_fini(&e->arena);
    free(e);
}
