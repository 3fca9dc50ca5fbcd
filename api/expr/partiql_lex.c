/* SPDX-License-Identifier: MIT */
/* partiql_lex.c - the PartiQL tokenizer: identifiers and PartiQL's
 * reserved words (SQL-92's and PartiQL's own, as the PartiQL reference
 * lists them), quoted identifiers, strings, numbers within BigDecimal's
 * limits, operators, comments; every token with its line and column. The
 * character classes are the expression lexer's (lex.c). */

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "api/expr/partiql_int.h"
#include "storage/util.h"

/* ------------------------------------------------------------------------
 * Reserved words, sorted. PartiQL reserves every SQL-92 keyword and its
 * own (the reserved-keyword list of the PartiQL reference, which DynamoDB
 * uses): a bare reserved word is no attribute name ("WHERE pad = 1" is a
 * syntax error, '"pad"' is the attribute).
 * ---------------------------------------------------------------------- */

struct kwent {
    const char *name;
    enum pql_kw kw;
};

#define O KW_OTHER
#define F KW_FUNC
static const struct kwent keywords[] = {
    { "absolute", O }, { "action", O }, { "add", O }, { "all", KW_ALL },
    { "allocate", O }, { "alter", O }, { "and", KW_AND }, { "any", O },
    { "are", O }, { "as", KW_AS }, { "asc", KW_ASC },
    { "assertion", O }, { "at", KW_AT }, { "authorization", O },
    { "avg", F }, { "bag", O }, { "begin", O }, { "between", KW_BETWEEN },
    { "bit", O }, { "bit_length", F }, { "blob", O }, { "bool", O },
    { "boolean", O }, { "both", O }, { "by", KW_BY }, { "can_cast", O },
    { "can_lossless_cast", O }, { "cascade", O }, { "cascaded", O },
    { "case", O }, { "cast", O }, { "catalog", O }, { "char", O },
    { "char_length", F }, { "character", O }, { "character_length", F },
    { "check", O }, { "clob", O }, { "close", O }, { "coalesce", F },
    { "collate", O }, { "collation", O }, { "column", O }, { "commit", O },
    { "conflict", KW_CONFLICT }, { "connect", O }, { "connection", O },
    { "constraint", O }, { "constraints", O }, { "continue", O },
    { "convert", O }, { "corresponding", O }, { "count", F },
    { "create", O }, { "cross", O }, { "current", O },
    { "current_date", O }, { "current_time", O },
    { "current_timestamp", O }, { "current_user", O }, { "cursor", O },
    { "date", O }, { "date_add", F }, { "date_diff", F }, { "day", O },
    { "deallocate", O }, { "dec", O }, { "decimal", O }, { "declare", O },
    { "default", O }, { "deferrable", O }, { "deferred", O },
    { "delete", KW_DELETE }, { "desc", KW_DESC }, { "describe", O },
    { "descriptor", O }, { "diagnostics", O }, { "disconnect", O },
    { "distinct", KW_DISTINCT }, { "do", O }, { "domain", O },
    { "double", O }, { "drop", O }, { "else", O }, { "end", O },
    { "escape", KW_ESCAPE }, { "except", O }, { "exception", O },
    { "excluded", O }, { "exec", O }, { "execute", O }, { "exists", F },
    { "external", O }, { "extract", F }, { "false", KW_FALSE },
    { "fetch", O }, { "first", KW_FIRST }, { "float", O }, { "for", O },
    { "foreign", O }, { "found", O }, { "from", KW_FROM }, { "full", O },
    { "get", O }, { "global", O }, { "go", O }, { "goto", O },
    { "grant", O }, { "group", KW_GROUP }, { "having", KW_HAVING },
    { "hour", O }, { "identity", O }, { "immediate", O }, { "in", KW_IN },
    { "index", O }, { "indicator", O }, { "initially", O }, { "inner", O },
    { "input", O }, { "insensitive", O }, { "insert", KW_INSERT },
    { "int", O }, { "integer", O }, { "intersect", O }, { "interval", O },
    { "into", KW_INTO }, { "is", KW_IS }, { "isolation", O },
    { "join", KW_JOIN }, { "key", O }, { "language", O },
    { "last", KW_LAST }, { "leading", O }, { "left", O }, { "let", KW_LET },
    { "level", O }, { "like", KW_LIKE }, { "limit", KW_LIMIT },
    { "list", O }, { "local", O }, { "lower", F }, { "match", O },
    { "max", F }, { "min", F }, { "minute", O }, { "missing", KW_MISSING },
    { "modified", KW_MODIFIED }, { "module", O }, { "month", O },
    { "names", O }, { "national", O }, { "natural", O }, { "nchar", O },
    { "new", KW_NEW }, { "next", O }, { "no", O }, { "not", KW_NOT },
    { "nothing", O }, { "null", KW_NULL }, { "nullif", F },
    { "nulls", KW_NULLS }, { "numeric", O }, { "octet_length", F },
    { "of", O }, { "offset", KW_OFFSET }, { "old", KW_OLD }, { "on", KW_ON },
    { "only", O }, { "open", O }, { "option", O }, { "or", KW_OR },
    { "order", KW_ORDER }, { "outer", O }, { "output", O },
    { "overlaps", O }, { "pad", O }, { "partial", O }, { "pivot", O },
    { "position", O }, { "precision", O }, { "prepare", O },
    { "preserve", O }, { "primary", O }, { "prior", O },
    { "privileges", O }, { "procedure", O }, { "public", O },
    { "read", O }, { "real", O }, { "references", O }, { "relative", O },
    { "remove", KW_REMOVE }, { "restrict", O },
    { "returning", KW_RETURNING }, { "revoke", O }, { "right", O },
    { "rollback", O }, { "rows", O }, { "schema", O }, { "scroll", O },
    { "second", O }, { "section", O }, { "select", KW_SELECT },
    { "session", O }, { "session_user", O }, { "set", KW_SET },
    { "sexp", O }, { "size", F }, { "smallint", O }, { "some", O },
    { "space", O }, { "sql", O }, { "sqlcode", O }, { "sqlerror", O },
    { "sqlstate", O }, { "string", O }, { "struct", O },
    { "substring", F }, { "sum", F }, { "symbol", O },
    { "system_user", O }, { "table", O }, { "temporary", O },
    { "then", O }, { "time", O }, { "timestamp", O },
    { "timezone_hour", O }, { "timezone_minute", O }, { "to", O },
    { "trailing", O }, { "transaction", O }, { "translate", O },
    { "translation", O }, { "trim", F }, { "true", KW_TRUE },
    { "tuple", O }, { "union", O }, { "unique", O }, { "unknown", O },
    { "unpivot", O }, { "update", KW_UPDATE }, { "upper", F },
    { "usage", O }, { "user", O }, { "using", O }, { "value", KW_VALUE },
    { "values", KW_VALUES }, { "varchar", O }, { "varying", O },
    { "view", O }, { "when", O }, { "whenever", O }, { "where", KW_WHERE },
    { "with", O }, { "work", O }, { "write", O }, { "year", O },
    { "zone", O },
};
#undef O
#undef F

static int
kw_cmp(const void *key, const void *elem)
{
    return strcmp((const char *)key, ((const struct kwent *)elem)->name);
}

bool
pql_keyword(const char *s, size_t len, enum pql_kw *kw)
{
    char low[24];
    const struct kwent *e;
    size_t i;

    if (len == 0 || len >= sizeof(low))
        return false;
    for (i = 0; i < len; i++)
        low[i] = (char)((s[i] >= 'A' && s[i] <= 'Z') ? s[i] + 32 : s[i]);
    low[len] = '\0';
    e = bsearch(low, keywords, sizeof(keywords) / sizeof(keywords[0]),
                sizeof(keywords[0]), kw_cmp);
    if (e == NULL)
        return false;
    if (kw != NULL)
        *kw = e->kw;
    return true;
}

/* ------------------------------------------------------------------------
 * The tokenizer
 * ---------------------------------------------------------------------- */

struct lexer {
    struct arena *a;
    const char *s;
    size_t len, i;
    unsigned line, col;             /* of s[i] */
    struct pql_token *toks;
    int n, cap;
};

static bool
is_ident_start(char c)
{
    return lex_is_name_start(c) || c == '_' || c == '$';
}

static bool
is_ident_char(char c)
{
    return lex_is_name_char(c) || c == '$';
}

static bool
is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* Move past n bytes, keeping the line and (character) column. */
static void
advance(struct lexer *lx, size_t n)
{
    for (; n > 0 && lx->i < lx->len; n--, lx->i++) {
        unsigned char c = (unsigned char)lx->s[lx->i];

        if (c == '\n') {
            lx->line++;
            lx->col = 1;
        } else if ((c & 0xC0) != 0x80) {
            lx->col++;
        }
    }
}

/* Characters in s[from, to). */
static unsigned
chars(const char *s, size_t from, size_t to)
{
    unsigned n = 0;

    for (; from < to; from++)
        if (((unsigned char)s[from] & 0xC0) != 0x80)
            n++;
    return n;
}

static struct pql_token *
push(struct lexer *lx, enum pql_tok type, size_t start, unsigned line,
     unsigned col)
{
    struct pql_token *t;

    lx->toks = arena_grow(lx->a, lx->toks, lx->n, &lx->cap,
                          sizeof(*lx->toks));
    t = &lx->toks[lx->n++];
    memset(t, 0, sizeof(*t));
    t->type = type;
    t->pos.line = line;
    t->pos.col = col;
    t->pos.len = chars(lx->s, start, lx->i);
    t->text = arena_strndup(lx->a, lx->s + start, lx->i - start);
    t->len = lx->i - start;
    return t;
}

/* A quoted string or identifier from s[i] (the quote q): the text with
 * doubled quotes undone. -1 when it is not terminated. */
static int
quoted(struct lexer *lx, char q, char **out, size_t *outlen)
{
    size_t j = lx->i + 1, n = 0;
    char *buf = arena_alloc(lx->a, lx->len - lx->i + 1);

    for (;;) {
        if (j >= lx->len)
            return -1;
        /* an identifier with U+0000 would name another table or
         * attribute once read as a C string: refused (a string literal
         * keeps it, by its length) */
        if (q == '"' && lx->s[j] == '\0')
            return -1;
        if (lx->s[j] == q) {
            if (j + 1 < lx->len && lx->s[j + 1] == q) {
                buf[n++] = q;
                j += 2;
                continue;
            }
            break;
        }
        buf[n++] = lx->s[j++];
    }
    buf[n] = '\0';
    *out = buf;
    *outlen = n;
    advance(lx, j + 1 - lx->i);
    return 0;
}

/*
 * A number from s[i]: digits, an optional fraction, an optional exponent
 * ([eE][+-]digits). It must fit BigDecimal (the exponent, and the scale,
 * fraction digits less the exponent, in a 32-bit int): past that DynamoDB
 * cannot convert the literal and answers with the envelope alone
 * (partiqlGrammar.test.ts: 1e2147483648, 1.5e-2147483647). Returns the
 * bytes read, or 0 when the text is no number that fits.
 */
static size_t
number(const char *s, size_t len)
{
    size_t j = 0, frac = 0;
    long long e = 0;
    bool digits = false, eneg = false;

    while (j < len && is_digit(s[j])) {
        j++;
        digits = true;
    }
    if (j < len && s[j] == '.') {
        j++;
        while (j < len && is_digit(s[j])) {
            j++;
            frac++;
            digits = true;
        }
    }
    if (!digits)
        return 0;
    if (j < len && (s[j] == 'e' || s[j] == 'E')) {
        size_t k = j + 1;
        bool edigits = false;

        if (k < len && (s[k] == '+' || s[k] == '-'))
            eneg = s[k++] == '-';
        while (k < len && is_digit(s[k])) {
            if (e <= (long long)INT_MAX + 1)
                e = e * 10 + (s[k] - '0');
            k++;
            edigits = true;
        }
        if (!edigits)
            return 0;
        if (eneg)
            e = -e;
        if (e > INT_MAX || e < INT_MIN ||
            (long long)frac - e > INT_MAX || (long long)frac - e < INT_MIN)
            return 0;
        j = k;
    }
    return j;
}

/* Skip blanks and comments. -1 on an unterminated block comment. */
static int
skip_blank(struct lexer *lx)
{
    while (lx->i < lx->len) {
        const char *p = lx->s + lx->i;
        size_t rest = lx->len - lx->i;

        if (lex_is_space(*p) || *p == '\f' || *p == '\v') {
            advance(lx, 1);
        } else if (rest >= 2 && p[0] == '-' && p[1] == '-') {
            while (lx->i < lx->len && lx->s[lx->i] != '\n')
                advance(lx, 1);
        } else if (rest >= 2 && p[0] == '/' && p[1] == '*') {
            const char *end = NULL;
            size_t k;

            for (k = 2; k + 1 < rest; k++)
                if (p[k] == '*' && p[k + 1] == '/') {
                    end = p + k;
                    break;
                }
            if (end == NULL)
                return -1;
            advance(lx, (size_t)(end - p) + 2);
        } else {
            break;
        }
    }
    return 0;
}

/* Operators and punctuation of two then one character. */
static const struct {
    const char *text;
    enum pql_tok type;
} punct[] = {
    { "<>", PT_OP }, { "!=", PT_OP }, { "<=", PT_OP }, { ">=", PT_OP },
    { "||", PT_OP }, { "<<", PT_LBAG }, { ">>", PT_RBAG },
    { "=", PT_OP }, { "<", PT_OP }, { ">", PT_OP }, { "+", PT_OP },
    { "-", PT_OP }, { "/", PT_OP }, { "%", PT_OP }, { "@", PT_OP },
    { "(", PT_LPAREN }, { ")", PT_RPAREN }, { "[", PT_LBRACKET },
    { "]", PT_RBRACKET }, { "{", PT_LCURLY }, { "}", PT_RCURLY },
    { ",", PT_COMMA }, { ".", PT_DOT }, { ":", PT_COLON }, { ";", PT_SEMI },
    { "*", PT_STAR }, { "?", PT_PARAM },
};

/* One token from s[i] (not blank). -1 when none starts here. */
static int
token(struct lexer *lx)
{
    const char *p = lx->s + lx->i;
    size_t rest = lx->len - lx->i, start = lx->i, n, k;
    unsigned line = lx->line, col = lx->col;
    struct pql_token *t;
    char *text;

    if (*p == '\'' || *p == '"') {
        if (quoted(lx, *p, &text, &n) != 0)
            return -1;
        t = push(lx, *p == '"' ? PT_QID : PT_STR, start, line, col);
        t->text = text;
        t->len = n;
        return 0;
    }
    if (is_digit(*p) || (*p == '.' && rest > 1 && is_digit(p[1]))) {
        n = number(p, rest);
        if (n == 0)
            return -1;
        advance(lx, n);
        push(lx, PT_NUM, start, line, col);
        return 0;
    }
    if (is_ident_start(*p)) {
        for (n = 1; n < rest && is_ident_char(p[n]); n++)
            ;
        advance(lx, n);
        t = push(lx, PT_ID, start, line, col);
        if (pql_keyword(t->text, t->len, &t->kw)) {
            for (k = 0; k < t->len; k++)
                if (t->text[k] >= 'A' && t->text[k] <= 'Z')
                    ((char *)t->text)[k] = (char)(t->text[k] + 32);
            t->type = (t->kw == KW_AND || t->kw == KW_OR ||
                       t->kw == KW_NOT || t->kw == KW_IS ||
                       t->kw == KW_IN || t->kw == KW_LIKE ||
                       t->kw == KW_BETWEEN) ? PT_OP : PT_KW;
        }
        return 0;
    }
    for (k = 0; k < sizeof(punct) / sizeof(punct[0]); k++) {
        n = strlen(punct[k].text);
        if (rest >= n && memcmp(p, punct[k].text, n) == 0) {
            advance(lx, n);
            push(lx, punct[k].type, start, line, col);
            return 0;
        }
    }
    return -1;                      /* '#', '`', '!', '|', non-ASCII, ... */
}

int
pql_lex(struct arena *a, const char *text, size_t len,
        struct pql_token **toks, struct ddb_err *err)
{
    struct lexer lx;
    json_t *utf8;

    /* The Statement member is a JSON string, so UTF-8; other callers
     * (tests, the fuzzer) may hand any bytes. */
    if ((utf8 = json_stringn(text, len)) == NULL)
        return ddb_err_set(err, DDB_VALIDATION, "%s", PQL_NOT_WELL_FORMED);
    json_decref(utf8);
    memset(&lx, 0, sizeof(lx));
    lx.a = a;
    lx.s = text;
    lx.len = len;
    lx.line = lx.col = 1;
    for (;;) {
        if (skip_blank(&lx) != 0)
            break;
        if (lx.i >= lx.len) {
            push(&lx, PT_EOF, lx.i, lx.line, lx.col);
            *toks = lx.toks;
            return lx.n;
        }
        if (token(&lx) != 0)
            break;
    }
    return ddb_err_set(err, DDB_VALIDATION, "%s", PQL_NOT_WELL_FORMED);
}
