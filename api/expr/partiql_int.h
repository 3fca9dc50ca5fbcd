/* SPDX-License-Identifier: MIT */
/* partiql_int.h - private to the PartiQL front end (partiql_*.c): the
 * tokens (partiql_lex.c), the syntax tree the recursive-descent parser
 * builds (partiql_parse.c), and the statement lowering turns it into
 * (partiql_lower.c, partiql_cond.c), over the expression engine's arena
 * and AST (expr_int.h). */
#ifndef SHARDLOCAL_PARTIQL_INT_H
#define SHARDLOCAL_PARTIQL_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>

#include "api/expr/expr_int.h"
#include "api/expr/partiql.h"

/* Nested terms (parentheses, lists, maps, NOT, unary signs) a statement
 * may hold. DynamoDB's Java parser has no documented bound; a deeper
 * statement is refused as not well formed instead of exhausting the stack
 * (shardlocal's choice; a statement is at most 8192 characters). */
#define PQL_DEPTH_MAX 256

/* DynamoDB's wording for a statement its parser cannot read: the parser's
 * own detail follows the colon, or nothing for a token the lexer cannot
 * read (paritysuite/dynamodb-conformance error-messages/
 * partiqlGrammar.test.ts, eu-west-2, 2026-10). */
#define PQL_NOT_WELL_FORMED "Statement wasn't well formed, can't be processed: "

/* ------------------------------------------------------------------------
 * Tokens (partiql_lex.c)
 * ---------------------------------------------------------------------- */

enum pql_tok {
    PT_EOF,
    PT_ID,                          /* identifier (not a keyword) */
    PT_QID,                         /* "quoted identifier" */
    PT_STR,                         /* 'string' */
    PT_NUM,                         /* number literal */
    PT_KW,                          /* keyword (kw says which) */
    PT_OP,                          /* = <> != < <= > >= + - / % || and the
                                       keyword operators AND OR NOT IS IN
                                       LIKE BETWEEN (kw set) */
    PT_PARAM,                       /* ? */
    PT_LPAREN, PT_RPAREN, PT_LBRACKET, PT_RBRACKET, PT_LCURLY, PT_RCURLY,
    PT_LBAG, PT_RBAG,               /* << >> */
    PT_COMMA, PT_DOT, PT_COLON, PT_SEMI, PT_STAR
};

/* The keywords the grammar acts on; every other reserved word is
 * KW_OTHER (still a keyword: it cannot name an attribute unquoted). */
enum pql_kw {
    KW_NONE, KW_OTHER,
    KW_ALL, KW_AND, KW_AS, KW_ASC, KW_AT, KW_BETWEEN, KW_BY, KW_CONFLICT,
    KW_DELETE, KW_DESC, KW_DISTINCT, KW_ESCAPE, KW_FALSE, KW_FIRST,
    KW_FROM, KW_GROUP, KW_HAVING, KW_IN, KW_INSERT, KW_INTO, KW_IS,
    KW_JOIN, KW_LAST, KW_LET, KW_LIKE, KW_LIMIT, KW_MISSING, KW_MODIFIED,
    KW_NEW, KW_NOT, KW_NULL, KW_NULLS, KW_OFFSET, KW_OLD, KW_ON, KW_OR,
    KW_ORDER, KW_REMOVE, KW_RETURNING, KW_SELECT, KW_SET, KW_TRUE,
    KW_UPDATE, KW_VALUE, KW_VALUES, KW_WHERE,
    KW_FUNC                         /* a function-name keyword: EXISTS,
                                       SIZE, COUNT, ... */
};

/* Where a token or node starts: 1-based line and column in characters,
 * and its length in characters ("at 1:32:7" in DynamoDB's messages). */
struct pql_pos {
    unsigned line, col, len;
};

struct pql_token {
    enum pql_tok type;
    enum pql_kw kw;
    const char *text;               /* arena: the decoded identifier or
                                       string, the number as written, the
                                       operator, the keyword in lower case */
    size_t len;                     /* bytes of text */
    struct pql_pos pos;
};

/* Tokenize text into *toks (arena memory), ending with PT_EOF. Returns
 * the count, or -1 with err set to DynamoDB's not-well-formed message
 * with no detail (an unterminated string or comment, a character no
 * token starts with, a number BigDecimal cannot hold). */
int pql_lex(struct arena *a, const char *text, size_t len,
            struct pql_token **toks, struct ddb_err *err);
/* Whether the identifier (len bytes) is one of PartiQL's reserved words
 * (case-insensitive); *kw tells which. */
bool pql_keyword(const char *s, size_t len, enum pql_kw *kw);

/* ------------------------------------------------------------------------
 * Syntax tree (partiql_parse.c)
 * ---------------------------------------------------------------------- */

enum pn_kind {
    PN_STR, PN_NUM, PN_TRUE, PN_FALSE, PN_NULL, PN_MISSING,
    PN_PARAM,                       /* ?: param is its index */
    PN_ID,                          /* text; quoted */
    PN_PATH,                        /* kids[0] the root, then steps */
    PN_DOT,                         /* step: .text (quoted) */
    PN_INDEX,                       /* step: [kids[0]] */
    PN_WILD,                        /* step .* or [*]; alone: SELECT * */
    PN_CALL,                        /* text (lower case), kids the args */
    PN_NOT, PN_NEG, PN_POS,         /* kids[0] */
    PN_BIN,                         /* kids[0] op kids[1] */
    PN_BETWEEN,                     /* kids[0..2]; neg: NOT BETWEEN */
    PN_IN,                          /* kids[0] IN kids[1]; neg */
    PN_LIKE,                        /* neg */
    PN_IS,                          /* kids[0] IS text (type); neg */
    PN_LIST, PN_BAG,                /* kids the members */
    PN_STRUCT,                      /* kids key, value, key, value, ... */
    PN_SELECT, PN_INSERT, PN_DML    /* stmt */
};

enum pn_op {
    OP_AND, OP_OR, OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE,
    OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_MOD, OP_CONCAT
};

struct pa_stmt;

struct pn {
    enum pn_kind k;
    enum pn_op op;                  /* PN_BIN */
    bool neg;                       /* NOT BETWEEN / IN / LIKE, IS NOT */
    bool quoted;                    /* PN_ID, PN_DOT: written in quotes */
    const char *text;               /* arena, NUL-terminated */
    size_t len;
    int param;                      /* PN_PARAM */
    int nkids;
    struct pn **kids;
    struct pql_pos pos;             /* its first token */
    struct pa_stmt *stmt;           /* PN_SELECT, PN_INSERT, PN_DML */
};

/* RETURNING's mapping. */
enum pql_ret_map { RET_MODIFIED_OLD, RET_MODIFIED_NEW, RET_ALL_OLD,
                   RET_ALL_NEW };

enum pa_op_kind { DOP_SET, DOP_REMOVE, DOP_INSERT };

/* One data manipulation of an UPDATE (SET a = v, REMOVE a). */
struct pa_op {
    enum pa_op_kind kind;
    struct pn *lhs, *rhs;           /* rhs: SET's value */
};

enum pa_form { FORM_SELECT, FORM_INSERT, FORM_UPDATE, FORM_DELETE,
               FORM_FROM };

/* A statement as written. */
struct pa_stmt {
    enum pa_form form;
    struct pql_pos pos;             /* its first keyword */
    /* SELECT */
    bool distinct, select_value;
    int nproj;
    struct pn **proj;               /* PN_WILD alone for '*' */
    bool proj_alias;                /* some item has AS */
    bool group, having, limit, let, join;
    int norder;
    struct pn **order;
    bool *order_desc;
    /* the table: FROM's source, or the DML target */
    struct pn *from;
    bool alias;                     /* an AS / AT / BY / bare alias */
    /* INSERT */
    struct pn *value;               /* VALUE's expression */
    bool insert_values;             /* INSERT INTO t <expr> (no VALUE) */
    bool on_conflict;
    /* UPDATE, DELETE, FROM-first */
    int nops;
    struct pa_op *ops;
    struct pn *where;
    /* RETURNING */
    int nret;
    enum pql_ret_map ret_map;       /* the first element's */
    bool ret_star;                  /* ... ends in '*' */
};

/* Parse a statement into *root (arena memory): a PN_SELECT, PN_INSERT,
 * PN_DML, or any other expression (the caller refuses it). *nparams
 * counts the '?'. -1 with err set to DynamoDB's message. */
int pql_parse_tree(struct arena *a, const char *text, size_t len,
                   struct pn **root, int *nparams, struct ddb_err *err);
/* PartiQL's name for an expression that is not a statement, as
 * DynamoDB's "Unsupported operation: IsType" names it. */
const char *pql_node_name(const struct pn *n);

/* ------------------------------------------------------------------------
 * Lowering (partiql_lower.c, partiql_cond.c)
 * ---------------------------------------------------------------------- */

/* The statement (partiql.h's opaque struct pql_stmt). */
struct pql_stmt {
    enum pql_kind kind;
    struct arena arena;             /* tree, paths, lowered nodes */
    json_t *values;                 /* owned: every AttributeValue the
                                       statement's nodes borrow */
    char *table;                    /* arena */
    char *index;                    /* arena; NULL: the table itself */
    struct expr_node *where;        /* the WHERE clause lowered into the
                                       expression engine's nodes (arena;
                                       values in values); NULL: none */
    /* SELECT */
    bool star;
    int nproj;
    struct expr_path *proj;         /* the selected paths */
    const char **proj_out;          /* each one's output name */
    bool has_order;
    const char *order_name;         /* ORDER BY's attribute */
    bool order_desc;
    /* INSERT */
    json_t *item;                   /* owned */
    /* UPDATE */
    struct expr *upd;               /* owned */
    /* RETURNING */
    enum pql_returning ret;
    /* EXISTS: the SELECT it checks */
    struct pql_stmt *exists;
};

/* Add av (taken) to s's values and return it (borrowed from s). */
const json_t *pql_keep(struct pql_stmt *s, json_t *av);
/* The message "<what> at <line>:<col>:<len>" DynamoDB appends to some
 * errors. -1, err set. */
int pql_err_at(struct ddb_err *err, const struct pql_pos *pos,
               const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* A value written in the statement (literal, list, map, bag, or ?) as a
 * new AttributeValue; NULL with err set (DynamoDB's conversion messages,
 * "... under root.a[1]"). params borrowed. */
json_t *pql_value(const struct pn *n, const json_t *params,
                  struct ddb_err *err);
/* Whether n is a value pql_value() converts (not a path or a call). */
bool pql_is_value(const struct pn *n);
/* n (PN_ID or PN_PATH) as a document path in s's arena; -1 with err set
 * when it is no path DynamoDB can read. */
int pql_path(struct pql_stmt *s, const struct pn *n, struct expr_path *out,
             struct ddb_err *err);

/* A zeroed expression node with room for nargs arguments, in a. */
struct expr_node *pql_node(struct arena *a, enum node_type type, int nargs);

/* Check and lower a WHERE clause into s->where (partiql_cond.c). */
int pql_cond_lower(struct pql_stmt *s, const struct pn *where,
                   const json_t *params, struct ddb_err *err);

#endif
