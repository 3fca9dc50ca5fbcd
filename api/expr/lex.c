/* SPDX-License-Identifier: MIT */
/* lex.c - the expression engine's arena, its character classes and
 * tokenizer, and DynamoDB's reserved words (developer guide, "Reserved
 * words in DynamoDB"): a path element written as a bare reserved word is an
 * error. parse.c reads the tokens; a PartiQL parser can share them. */

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/expr/expr_int.h"
#include "storage/util.h"

/* ------------------------------------------------------------------------
 * Arena
 * ---------------------------------------------------------------------- */

/* The first chunk stays under 1,008 bytes with its header: glibc serves
 * a larger request from its large bins after consolidating every freed
 * small chunk, a cost per expression that short ones (most) need not
 * pay. Later chunks are larger. */
#define ARENA_FIRST 960
#define ARENA_CHUNK 4096

struct arena_chunk {
    struct arena_chunk *next;
    size_t used, size;
    max_align_t data[];             /* aligned storage */
};

/* An empty arena; nothing is allocated until the first arena_alloc(). */
void
arena_init(struct arena *a)
{
    a->head = NULL;
}

/* Free every chunk: all nodes and strings of the expression at once. */
void
arena_fini(struct arena *a)
{
    struct arena_chunk *c, *next;

    for (c = a->head; c != NULL; c = next) {
        next = c->next;
        free(c);
    }
    a->head = NULL;
}

/* Zeroed, max-aligned memory owned by the arena; aborts on OOM. */
void *
arena_alloc(struct arena *a, size_t n)
{
    struct arena_chunk *c = a->head;
    size_t al = sizeof(max_align_t);
    void *p;

    n = (n + al - 1) / al * al;
    if (n == 0)
        n = al;
    if (c == NULL || c->size - c->used < n) {
        size_t unit = c == NULL ? ARENA_FIRST : ARENA_CHUNK;
        size_t size = n > unit ? n : unit;

        c = xmalloc(sizeof(*c) + size);
        c->size = size;
        c->used = 0;
        c->next = a->head;
        a->head = c;
    }
    p = (char *)c->data + c->used;
    c->used += n;
    memset(p, 0, n);
    return p;
}

/* Room for one more element in the arena array v of n elements of size
 * bytes and capacity *cap (0 while v is NULL): v itself, or a copy twice
 * as large (the old one stays in the arena until arena_fini()). */
void *
arena_grow(struct arena *a, void *v, int n, int *cap, size_t size)
{
    void *bigger;

    if (n < *cap)
        return v;
    *cap = *cap == 0 ? 4 : *cap * 2;
    bigger = arena_alloc(a, (size_t)*cap * size);
    if (n > 0)
        memcpy(bigger, v, (size_t)n * size);
    return bigger;
}

/* A NUL-terminated copy of n bytes of s, owned by the arena. */
char *
arena_strndup(struct arena *a, const char *s, size_t n)
{
    char *p = arena_alloc(a, n + 1);

    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

/* A formatted string owned by the arena (error messages). */
char *
arena_printf(struct arena *a, const char *fmt, ...)
{
    char small[256];
    va_list ap;
    int n;
    char *p;

    va_start(ap, fmt);
    n = vsnprintf(small, sizeof(small), fmt, ap);
    va_end(ap);
    if (n < 0)
        n = 0;
    p = arena_alloc(a, (size_t)n + 1);
    if ((size_t)n < sizeof(small)) {
        memcpy(p, small, (size_t)n + 1);
        return p;
    }
    va_start(ap, fmt);
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return p;
}

/* ------------------------------------------------------------------------
 * Reserved words (all 573 of the developer guide's list), sorted, matched
 * case-insensitively with bsearch().
 * ---------------------------------------------------------------------- */

static const char *const reserved[] = {
    "ABORT", "ABSOLUTE", "ACTION", "ADD", "AFTER", "AGENT", "AGGREGATE",
    "ALL", "ALLOCATE", "ALTER", "ANALYZE", "AND", "ANY", "ARCHIVE", "ARE",
    "ARRAY", "AS", "ASC", "ASCII", "ASENSITIVE", "ASSERTION", "ASYMMETRIC",
    "AT", "ATOMIC", "ATTACH", "ATTRIBUTE", "AUTH", "AUTHORIZATION",
    "AUTHORIZE", "AUTO", "AVG", "BACK", "BACKUP", "BASE", "BATCH", "BEFORE",
    "BEGIN", "BETWEEN", "BIGINT", "BINARY", "BIT", "BLOB", "BLOCK", "BOOLEAN",
    "BOTH", "BREADTH", "BUCKET", "BULK", "BY", "BYTE", "CALL", "CALLED",
    "CALLING", "CAPACITY", "CASCADE", "CASCADED", "CASE", "CAST", "CATALOG",
    "CHAR", "CHARACTER", "CHECK", "CLASS", "CLOB", "CLOSE", "CLUSTER",
    "CLUSTERED", "CLUSTERING", "CLUSTERS", "COALESCE", "COLLATE", "COLLATION",
    "COLLECTION", "COLUMN", "COLUMNS", "COMBINE", "COMMENT", "COMMIT",
    "COMPACT", "COMPILE", "COMPRESS", "CONDITION", "CONFLICT", "CONNECT",
    "CONNECTION", "CONSISTENCY", "CONSISTENT", "CONSTRAINT", "CONSTRAINTS",
    "CONSTRUCTOR", "CONSUMED", "CONTINUE", "CONVERT", "COPY", "CORRESPONDING",
    "COUNT", "COUNTER", "CREATE", "CROSS", "CUBE", "CURRENT", "CURSOR",
    "CYCLE", "DATA", "DATABASE", "DATE", "DATETIME", "DAY", "DEALLOCATE",
    "DEC", "DECIMAL", "DECLARE", "DEFAULT", "DEFERRABLE", "DEFERRED",
    "DEFINE", "DEFINED", "DEFINITION", "DELETE", "DELIMITED", "DEPTH",
    "DEREF", "DESC", "DESCRIBE", "DESCRIPTOR", "DETACH", "DETERMINISTIC",
    "DIAGNOSTICS", "DIRECTORIES", "DISABLE", "DISCONNECT", "DISTINCT",
    "DISTRIBUTE", "DO", "DOMAIN", "DOUBLE", "DROP", "DUMP", "DURATION",
    "DYNAMIC", "EACH", "ELEMENT", "ELSE", "ELSEIF", "EMPTY", "ENABLE", "END",
    "EQUAL", "EQUALS", "ERROR", "ESCAPE", "ESCAPED", "EVAL", "EVALUATE",
    "EXCEEDED", "EXCEPT", "EXCEPTION", "EXCEPTIONS", "EXCLUSIVE", "EXEC",
    "EXECUTE", "EXISTS", "EXIT", "EXPLAIN", "EXPLODE", "EXPORT", "EXPRESSION",
    "EXTENDED", "EXTERNAL", "EXTRACT", "FAIL", "FALSE", "FAMILY", "FETCH",
    "FIELDS", "FILE", "FILTER", "FILTERING", "FINAL", "FINISH", "FIRST",
    "FIXED", "FLATTERN", "FLOAT", "FOR", "FORCE", "FOREIGN", "FORMAT",
    "FORWARD", "FOUND", "FREE", "FROM", "FULL", "FUNCTION", "FUNCTIONS",
    "GENERAL", "GENERATE", "GET", "GLOB", "GLOBAL", "GO", "GOTO", "GRANT",
    "GREATER", "GROUP", "GROUPING", "HANDLER", "HASH", "HAVE", "HAVING",
    "HEAP", "HIDDEN", "HOLD", "HOUR", "IDENTIFIED", "IDENTITY", "IF",
    "IGNORE", "IMMEDIATE", "IMPORT", "IN", "INCLUDING", "INCLUSIVE",
    "INCREMENT", "INCREMENTAL", "INDEX", "INDEXED", "INDEXES", "INDICATOR",
    "INFINITE", "INITIALLY", "INLINE", "INNER", "INNTER", "INOUT", "INPUT",
    "INSENSITIVE", "INSERT", "INSTEAD", "INT", "INTEGER", "INTERSECT",
    "INTERVAL", "INTO", "INVALIDATE", "IS", "ISOLATION", "ITEM", "ITEMS",
    "ITERATE", "JOIN", "KEY", "KEYS", "LAG", "LANGUAGE", "LARGE", "LAST",
    "LATERAL", "LEAD", "LEADING", "LEAVE", "LEFT", "LENGTH", "LESS", "LEVEL",
    "LIKE", "LIMIT", "LIMITED", "LINES", "LIST", "LOAD", "LOCAL", "LOCALTIME",
    "LOCALTIMESTAMP", "LOCATION", "LOCATOR", "LOCK", "LOCKS", "LOG", "LOGED",
    "LONG", "LOOP", "LOWER", "MAP", "MATCH", "MATERIALIZED", "MAX", "MAXLEN",
    "MEMBER", "MERGE", "METHOD", "METRICS", "MIN", "MINUS", "MINUTE",
    "MISSING", "MOD", "MODE", "MODIFIES", "MODIFY", "MODULE", "MONTH",
    "MULTI", "MULTISET", "NAME", "NAMES", "NATIONAL", "NATURAL", "NCHAR",
    "NCLOB", "NEW", "NEXT", "NO", "NONE", "NOT", "NULL", "NULLIF", "NUMBER",
    "NUMERIC", "OBJECT", "OF", "OFFLINE", "OFFSET", "OLD", "ON", "ONLINE",
    "ONLY", "OPAQUE", "OPEN", "OPERATOR", "OPTION", "OR", "ORDER",
    "ORDINALITY", "OTHER", "OTHERS", "OUT", "OUTER", "OUTPUT", "OVER",
    "OVERLAPS", "OVERRIDE", "OWNER", "PAD", "PARALLEL", "PARAMETER",
    "PARAMETERS", "PARTIAL", "PARTITION", "PARTITIONED", "PARTITIONS", "PATH",
    "PERCENT", "PERCENTILE", "PERMISSION", "PERMISSIONS", "PIPE", "PIPELINED",
    "PLAN", "POOL", "POSITION", "PRECISION", "PREPARE", "PRESERVE", "PRIMARY",
    "PRIOR", "PRIVATE", "PRIVILEGES", "PROCEDURE", "PROCESSED", "PROJECT",
    "PROJECTION", "PROPERTY", "PROVISIONING", "PUBLIC", "PUT", "QUERY",
    "QUIT", "QUORUM", "RAISE", "RANDOM", "RANGE", "RANK", "RAW", "READ",
    "READS", "REAL", "REBUILD", "RECORD", "RECURSIVE", "REDUCE", "REF",
    "REFERENCE", "REFERENCES", "REFERENCING", "REGEXP", "REGION", "REINDEX",
    "RELATIVE", "RELEASE", "REMAINDER", "RENAME", "REPEAT", "REPLACE",
    "REQUEST", "RESET", "RESIGNAL", "RESOURCE", "RESPONSE", "RESTORE",
    "RESTRICT", "RESULT", "RETURN", "RETURNING", "RETURNS", "REVERSE",
    "REVOKE", "RIGHT", "ROLE", "ROLES", "ROLLBACK", "ROLLUP", "ROUTINE",
    "ROW", "ROWS", "RULE", "RULES", "SAMPLE", "SATISFIES", "SAVE",
    "SAVEPOINT", "SCAN", "SCHEMA", "SCOPE", "SCROLL", "SEARCH", "SECOND",
    "SECTION", "SEGMENT", "SEGMENTS", "SELECT", "SELF", "SEMI", "SENSITIVE",
    "SEPARATE", "SEQUENCE", "SERIALIZABLE", "SESSION", "SET", "SETS", "SHARD",
    "SHARE", "SHARED", "SHORT", "SHOW", "SIGNAL", "SIMILAR", "SIZE", "SKEWED",
    "SMALLINT", "SNAPSHOT", "SOME", "SOURCE", "SPACE", "SPACES", "SPARSE",
    "SPECIFIC", "SPECIFICTYPE", "SPLIT", "SQL", "SQLCODE", "SQLERROR",
    "SQLEXCEPTION", "SQLSTATE", "SQLWARNING", "START", "STATE", "STATIC",
    "STATUS", "STORAGE", "STORE", "STORED", "STREAM", "STRING", "STRUCT",
    "STYLE", "SUB", "SUBMULTISET", "SUBPARTITION", "SUBSTRING", "SUBTYPE",
    "SUM", "SUPER", "SYMMETRIC", "SYNONYM", "SYSTEM", "TABLE", "TABLESAMPLE",
    "TEMP", "TEMPORARY", "TERMINATED", "TEXT", "THAN", "THEN", "THROUGHPUT",
    "TIME", "TIMESTAMP", "TIMEZONE", "TINYINT", "TO", "TOKEN", "TOTAL",
    "TOUCH", "TRAILING", "TRANSACTION", "TRANSFORM", "TRANSLATE",
    "TRANSLATION", "TREAT", "TRIGGER", "TRIM", "TRUE", "TRUNCATE", "TTL",
    "TUPLE", "TYPE", "UNDER", "UNDO", "UNION", "UNIQUE", "UNIT", "UNKNOWN",
    "UNLOGGED", "UNNEST", "UNPROCESSED", "UNSIGNED", "UNTIL", "UPDATE",
    "UPPER", "URL", "USAGE", "USE", "USER", "USERS", "USING", "UUID",
    "VACUUM", "VALUE", "VALUED", "VALUES", "VARCHAR", "VARIABLE", "VARIANCE",
    "VARINT", "VARYING", "VIEW", "VIEWS", "VIRTUAL", "VOID", "WAIT", "WHEN",
    "WHENEVER", "WHERE", "WHILE", "WINDOW", "WITH", "WITHIN", "WITHOUT",
    "WORK", "WRAPPED", "WRITE", "YEAR", "ZONE",
};

/* Compare the len bytes at s with the NUL-terminated word w, ignoring ASCII
 * case: <0, 0 or >0 as strcmp() would. */
static int
word_casecmp(const char *s, size_t len, const char *w)
{
    size_t i;

    for (i = 0; i < len && w[i] != '\0'; i++) {
        int c = toupper((unsigned char)s[i]) - toupper((unsigned char)w[i]);

        if (c != 0)
            return c;
    }
    if (i < len)
        return 1;
    return w[i] == '\0' ? 0 : -1;
}

struct keybuf {
    const char *s;
    size_t len;
};

static int
reserved_cmp(const void *key, const void *elem)
{
    const struct keybuf *k = key;

    return word_casecmp(k->s, k->len, *(const char *const *)elem);
}

/* Whether the len bytes at s spell a reserved word, in any case. */
bool
lex_is_reserved(const char *s, size_t len)
{
    struct keybuf k = { s, len };

    return bsearch(&k, reserved, sizeof(reserved) / sizeof(reserved[0]),
                   sizeof(reserved[0]), reserved_cmp) != NULL;
}

/* Whether identifier token t (in text) is keyword kw, in any case:
 * keywords like AND and SET are case-insensitive, function names are not. */
bool
lex_tok_is(const char *text, const struct tok *t, const char *kw)
{
    return t->type == T_IDENT &&
           word_casecmp(text + t->start, t->len, kw) == 0;
}

/* ------------------------------------------------------------------------
 * Tokenizer
 * ---------------------------------------------------------------------- */

/* White space between tokens: the C locale's isspace(). */
bool
lex_is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' ||
           c == '\v';
}

/* A character an identifier starts with: [A-Za-z]. Not "_"
 * (test_expr_errors). */
bool
lex_is_name_start(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* A character of an identifier, #name or :value after its first:
 * [A-Za-z0-9_]. */
bool
lex_is_name_char(char c)
{
    return lex_is_name_start(c) || (c >= '0' && c <= '9') || c == '_';
}

/*
 * Split text into tokens ending with T_EOF. Whitespace separates tokens.
 * "#" and ":" must be followed by at least one [A-Za-z0-9_]; otherwise
 * they, like any other stray character, become a one-byte T_BAD that the
 * parser reports as the offending token.
 */
int
lex_tokens(struct arena *a, const char *text, size_t len, struct tok **toks)
{
    struct tok *v = arena_alloc(a, (len + 1) * sizeof(*v));
    size_t i = 0;
    int n = 0;

    while (i < len) {
        char c = text[i];
        size_t s = i;
        enum tok_type type;

        if (lex_is_space(c)) {
            i++;
            continue;
        }
        if (lex_is_name_start(c)) {
            while (i < len && lex_is_name_char(text[i]))
                i++;
            type = T_IDENT;
        } else if (c >= '0' && c <= '9') {
            while (i < len && text[i] >= '0' && text[i] <= '9')
                i++;
            type = T_NUMBER;
        } else if ((c == '#' || c == ':') && i + 1 < len &&
                   lex_is_name_char(text[i + 1])) {
            i++;
            while (i < len && lex_is_name_char(text[i]))
                i++;
            type = c == '#' ? T_NAME : T_VALUE;
        } else {
            i++;
            switch (c) {
            case '(': type = T_LPAREN; break;
            case ')': type = T_RPAREN; break;
            case '[': type = T_LBRACKET; break;
            case ']': type = T_RBRACKET; break;
            case ',': type = T_COMMA; break;
            case '.': type = T_DOT; break;
            case '=': type = T_EQ; break;
            case '+': type = T_PLUS; break;
            case '-': type = T_MINUS; break;
            case '<':
                type = T_LT;
                if (i < len && text[i] == '>') {
                    type = T_NE;
                    i++;
                } else if (i < len && text[i] == '=') {
                    type = T_LE;
                    i++;
                }
                break;
            case '>':
                type = T_GT;
                if (i < len && text[i] == '=') {
                    type = T_GE;
                    i++;
                }
                break;
            default:
                type = T_BAD;
                /* keep a UTF-8 sequence together */
                while (((unsigned char)c & 0xC0) == 0xC0 && i < len &&
                       ((unsigned char)text[i] & 0xC0) == 0x80)
                    i++;
                break;
            }
        }
        v[n].type = type;
        v[n].start = s;
        v[n].len = i - s;
        n++;
    }
    v[n].type = T_EOF;
    v[n].start = len;
    v[n].len = 0;
    *toks = v;
    return n + 1;
}
