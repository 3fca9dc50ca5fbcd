/* SPDX-License-Identifier: MIT */
/* expr_int.h - private to the expression engine: the arena, tokens, the
 * AST shared by lex.c (tokens), parse.c (syntax), resolve.c
 * (names, values, semantic checks, key conditions) and eval.c. */
#ifndef SHARDLOCAL_EXPR_INT_H
#define SHARDLOCAL_EXPR_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>

#include "api/expr/expr.h"

#define EXPR_TEXT_MAX    4096       /* bytes of one expression string */
#define EXPR_OPS_MAX     300        /* operators + functions */
#define EXPR_IN_MAX      100        /* operands on the right of IN */

/* ------------------------------------------------------------------------
 * Arena: every AST node and string of one expression, freed at once.
 * ---------------------------------------------------------------------- */

struct arena_chunk;
struct arena {
    struct arena_chunk *head;       /* newest chunk first */
};

void arena_init(struct arena *a);
void arena_fini(struct arena *a);
/* Zeroed memory that lives until arena_fini(); aborts on OOM. */
void *arena_alloc(struct arena *a, size_t n);
/* v with room for element n (see lex.c); grows *cap. */
void *arena_grow(struct arena *a, void *v, int n, int *cap, size_t size);
char *arena_strndup(struct arena *a, const char *s, size_t n);
char *arena_printf(struct arena *a, const char *fmt, ...)
    __attribute__((format(printf, 2, 3), nonnull(1, 2)));

/* ------------------------------------------------------------------------
 * Tokens (lex.c).
 * ---------------------------------------------------------------------- */

enum tok_type {
    T_EOF,
    T_IDENT,                        /* [A-Za-z_][A-Za-z0-9_]* (keywords too) */
    T_NAME,                         /* #name */
    T_VALUE,                        /* :value */
    T_NUMBER,                       /* [0-9]+ (list indexes) */
    T_LPAREN, T_RPAREN, T_LBRACKET, T_RBRACKET, T_COMMA, T_DOT,
    T_EQ, T_NE, T_LT, T_LE, T_GT, T_GE, T_PLUS, T_MINUS,
    T_BAD                           /* a character no token starts with */
};

struct tok {
    enum tok_type type;
    size_t start;                   /* byte offset in the text */
    size_t len;
};

/* Character classes of the tokenizer, for anything else that reads
 * expression text or placeholders (ExpressionAttributeNames keys). */
bool lex_is_space(char c);
bool lex_is_name_start(char c);     /* [A-Za-z] */
bool lex_is_name_char(char c);      /* [A-Za-z0-9_] */
/* Split text into tokens, always ending with T_EOF. Returns the count;
 * *toks is arena memory. */
int lex_tokens(struct arena *a, const char *text, size_t len,
               struct tok **toks);
/* Whether the identifier (len bytes) is one of DynamoDB's reserved words
 * (case-insensitive). */
bool lex_is_reserved(const char *s, size_t len);
/* Case-insensitive keyword test for an identifier token. */
bool lex_tok_is(const char *text, const struct tok *t, const char *kw);

/* ------------------------------------------------------------------------
 * AST.
 * ---------------------------------------------------------------------- */

struct path_elem {
    bool is_index;
    long index;                     /* list index when is_index */
    const char *name;               /* attribute name (after resolution) */
    size_t name_len;                /* its bytes: a name may hold NUL */
    const char *ref;                /* "#n" when written as a name ref */
};

/* paths.c: el is the attribute called s (a C string), compared by its
 * whole name. */
bool path_elem_is(const struct path_elem *el, const char *s);

/*
 * A document path: at most 32 levels, the attribute itself counted, and
 * list indexes up to 4294967294. DynamoDB answers "The document path has
 * too many nesting levels; nesting levels: 33" (Alternator's
 * test_projection_expression.py records it) and "List index is not within
 * the allowable range; index: [4294967295]" (as written; floci's
 * ProjectionEvaluator, checked against DynamoDB in us-east-1, 2026-09;
 * DynamoDB Local's DbValidationError has both texts), in every kind of
 * expression (and, assumed alike, PartiQL's paths), before its names and
 * values are looked at.
 */
#define PATH_LEVELS_MAX  32
#define LIST_INDEX_MAX   4294967294L

struct expr_path {
    int n;
    struct path_elem *el;
};

enum node_type {
    NODE_PATH,                      /* document path */
    NODE_VALUE,                     /* :value */
    NODE_FUNC,                      /* fname(args) */
    NODE_ARITH,                     /* args[0] op args[1], op '+' or '-' */
    NODE_CMP,                       /* args[0] op args[1] */
    NODE_BETWEEN,                   /* args[0] BETWEEN args[1] AND args[2] */
    NODE_IN,                        /* args[0] IN (args[1..]) */
    NODE_AND, NODE_OR, NODE_NOT
};

enum cmp_op { CMP_EQ, CMP_NE, CMP_LT, CMP_LE, CMP_GT, CMP_GE };

enum expr_func {
    F_UNKNOWN,
    F_ATTRIBUTE_EXISTS, F_ATTRIBUTE_NOT_EXISTS, F_ATTRIBUTE_TYPE,
    F_BEGINS_WITH, F_CONTAINS, F_SIZE,              /* conditions */
    F_IF_NOT_EXISTS, F_LIST_APPEND                  /* updates */
};

struct expr_node {
    enum node_type type;
    int op;                         /* enum cmp_op, enum expr_func, '+'/'-' */
    int nargs;
    struct expr_node **args;
    struct expr_path path;          /* NODE_PATH */
    const char *ref;                /* NODE_VALUE: ":v" as written */
    const json_t *value;            /* NODE_VALUE: borrowed from the env */
    const char *fname;              /* NODE_FUNC: name as written */
    int parens;                     /* parentheses directly around it */
    bool sorted;                    /* NODE_IN: args[1..] are S/N/B
                                       constants in eval_prepare()'s order,
                                       searched by bisection */
};

enum upd_kind { UPD_SET, UPD_REMOVE, UPD_ADD, UPD_DELETE };

struct upd_action {
    enum upd_kind kind;
    struct expr_node *path;         /* NODE_PATH target */
    struct expr_node *value;        /* NULL for REMOVE */
};

struct expr {
    enum expr_kind kind;
    struct arena arena;
    struct expr_node *root;         /* condition, filter, key condition */
    struct expr_node **paths;       /* projection */
    int npaths;
    struct upd_action *acts;        /* update, in written order */
    int nacts;
    bool dup_section;               /* a SET/REMOVE/ADD/DELETE repeated */
    const char *dup_section_name;
    struct expr *targets;           /* update: projection of written paths */
    bool legacy;                    /* translated from a legacy parameter:
                                       no text size or IN operand limit */
    bool raw_names;                 /* paths hold names as written and
                                       values are set (PartiQL): nothing
                                       to resolve, no reserved words */
};

/* ------------------------------------------------------------------------
 * Stages.
 * ---------------------------------------------------------------------- */

/* parse.c: an empty expression of kind (caller frees with expr_free). */
struct expr *expr_new(enum expr_kind kind);
/* parse.c: an update's written paths as e->targets (ReturnValues
 * UPDATED_OLD / UPDATED_NEW). */
void expr_build_targets(struct expr *e);
/* parse.c: syntax only. Fills e->root / paths / acts, or returns -1
 * with err set to the syntax (or operator count) message, unprefixed. */
int parse_syntax(struct expr *e, const char *text, size_t len,
                 struct ddb_err *err);

/* resolve.c: resolve names and values through env (marking them
 * used) and run DynamoDB's semantic checks in its order. -1 with the
 * unprefixed message on error. */
int resolve_expr(struct expr *e, struct expr_env *env, struct ddb_err *err);

/* paths.c: the document paths of an expression. */
/* "[a, b, [2]]" as DynamoDB prints paths in messages. */
char *path_str(struct arena *a, const struct expr_path *p);
/* Called on each path in text order; false stops the walk. */
typedef bool path_fn(const struct expr_path *p, void *arg);
bool path_walk(const struct expr *e, path_fn *fn, void *arg);
/* expr_check_key_scalars() on an expression that may hold unresolved
 * #names (a syntax-only parse), looked up in names (borrowed). */
int path_check_key_scalars(const struct expr *e, const json_t *names,
                           const struct key_schema *ks, struct ddb_err *err);

/* eval.c helpers shared with resolve.c. */
/* The type key of a validated AttributeValue ("S", "NS", ...) or NULL. */
const char *node_av_type(const json_t *av);
/* Value at path in item (borrowed), NULL if absent. */
const json_t *path_get(const json_t *item, const struct expr_path *p);
/* Once e is resolved: order the constant operands of long IN lists so
 * that evaluation bisects them instead of comparing each one. */
void eval_prepare(struct expr *e);

#endif
