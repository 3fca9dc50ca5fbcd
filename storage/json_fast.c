/* SPDX-License-Identifier: MIT */
/* json_fast.c - a fast path in front of json_loadb(). jansson's decoder
 * reads through a per-character stream with a string buffer and UTF-8
 * checks: around 200 instructions a byte, the largest single cost of a
 * PutItem or GetItem after the kernel. Requests and stored items are
 * nearly always JSON without reals, so we parse that subset directly
 * (strings decoded and checked as jansson does) and hand everything
 * else, valid or not, to jansson, which stays the one judge of what is
 * invalid and what error it is. One difference is wanted: an object key
 * may hold U+0000 here, which jansson refuses and DynamoDB attribute
 * names may hold. The encoder is the same idea for json_dumps(JSON_COMPACT), whose
 * loop check costs an snprintf("%p") and a hash insert per container. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "storage/json_fast.h"
#include "storage/util.h"

struct fast {
    const char *p;                      /* next byte */
    const char *end;
};

static void
skip_ws(struct fast *f)
{
    while (f->p < f->end &&
           (*f->p == ' ' || *f->p == '\t' || *f->p == '\n' || *f->p == '\r'))
        f->p++;
}

/* The length of the valid UTF-8 sequence at p (before end), 0 if it is
 * not one: jansson's utf8_check_first() and utf8_check_full() (no
 * overlong forms, no surrogates, nothing above U+10FFFF). */
static size_t
utf8_len(const unsigned char *p, const unsigned char *end)
{
    unsigned c = p[0];
    size_t need, i;
    unsigned long v;

    if (c < 0x80)
        return 1;
    if (c < 0xC2 || c > 0xF4)
        return 0;
    need = c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    if ((size_t)(end - p) < need)
        return 0;
    v = c & (need == 2 ? 0x1F : need == 3 ? 0x0F : 0x07);
    for (i = 1; i < need; i++) {
        if ((p[i] & 0xC0) != 0x80)
            return 0;
        v = (v << 6) | (p[i] & 0x3F);
    }
    if (v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF) ||
        (need == 3 && v < 0x800) || (need == 4 && v < 0x10000))
        return 0;
    return need;
}

/* Four hex digits at p (before end), or -1. */
static long
hex4(const char *p, const char *end)
{
    long v = 0;
    int i;

    if (end - p < 4)
        return -1;
    for (i = 0; i < 4; i++) {
        char c = p[i];

        v <<= 4;
        if (c >= '0' && c <= '9')
            v |= c - '0';
        else if (c >= 'a' && c <= 'f')
            v |= c - 'a' + 10;
        else if (c >= 'A' && c <= 'F')
            v |= c - 'A' + 10;
        else
            return -1;
    }
    return v;
}

/* Code point v as UTF-8 at out; returns the bytes written. */
static size_t
utf8_put(char *out, unsigned long v)
{
    if (v < 0x80) {
        out[0] = (char)v;
        return 1;
    }
    if (v < 0x800) {
        out[0] = (char)(0xC0 | (v >> 6));
        out[1] = (char)(0x80 | (v & 0x3F));
        return 2;
    }
    if (v < 0x10000) {
        out[0] = (char)(0xE0 | (v >> 12));
        out[1] = (char)(0x80 | ((v >> 6) & 0x3F));
        out[2] = (char)(0x80 | (v & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | (v >> 18));
    out[1] = (char)(0x80 | ((v >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((v >> 6) & 0x3F));
    out[3] = (char)(0x80 | (v & 0x3F));
    return 4;
}

/*
 * The rest of a string whose first escape is at q (f->p is just past the
 * opening quote), decoded as jansson decodes it: the two-character
 * escapes, \uXXXX with surrogate pairs joined (a lone surrogate is
 * jansson's error), raw UTF-8 checked. \u0000 is kept, as with
 * JSON_ALLOW_NUL. The text goes to a new buffer, *owned (caller frees).
 */
static bool
decode_string(struct fast *f, const char *q, const char **s, size_t *n,
              char **owned)
{
    char *out = xmalloc((size_t)(f->end - f->p) + 1);   /* never longer */
    size_t o = (size_t)(q - f->p), l;
    long v, w;

    memcpy(out, f->p, o);
    while (q < f->end) {
        unsigned char c = (unsigned char)*q;

        if (c == '"') {
            *s = *owned = out;
            *n = o;
            f->p = q + 1;
            return true;
        }
        if (c < 0x20)
            break;
        if (c >= 0x80) {
            l = utf8_len((const unsigned char *)q,
                         (const unsigned char *)f->end);
            if (l == 0)
                break;
            memcpy(out + o, q, l);
            o += l;
            q += l;
            continue;
        }
        if (c != '\\') {
            out[o++] = (char)c;
            q++;
            continue;
        }
        if (f->end - q < 2)
            break;
        switch (q[1]) {
        case '"': case '\\': case '/': out[o++] = q[1]; break;
        case 'b': out[o++] = '\b'; break;
        case 'f': out[o++] = '\f'; break;
        case 'n': out[o++] = '\n'; break;
        case 'r': out[o++] = '\r'; break;
        case 't': out[o++] = '\t'; break;
        case 'u':
            v = hex4(q + 2, f->end);
            if (v < 0 || (v >= 0xDC00 && v <= 0xDFFF))
                goto fail;
            if (v >= 0xD800 && v <= 0xDBFF) {
                if (f->end - q < 12 || q[6] != '\\' || q[7] != 'u')
                    goto fail;
                w = hex4(q + 8, f->end);
                if (w < 0xDC00 || w > 0xDFFF)
                    goto fail;
                v = ((v - 0xD800) << 10) + (w - 0xDC00) + 0x10000;
                q += 6;
            }
            o += utf8_put(out + o, (unsigned long)v);
            q += 6;
            continue;
        default:
            goto fail;
        }
        q += 2;
    }
fail:
    free(out);
    return false;
}

/*
 * Are the eight bytes at p all "plain" string bytes, ones that a JSON
 * string holds as they are and that both directions copy untouched:
 * 0x20 to 0x7f except '"' and '\\'? A word at a time (a 100-byte value
 * was 100 turns of either loop): a byte below 0x20, or a zero byte of
 * w ^ '"' or w ^ '\\', sets that byte's high bit in the borrow test,
 * which is exact for the word as a whole (a borrow only reaches bytes
 * above the byte that sets it), and a byte from 0x80 has it already.
 */
static inline bool
plain8(const char *p)
{
    const uint64_t ones = UINT64_C(0x0101010101010101);
    const uint64_t highs = UINT64_C(0x8080808080808080);
    uint64_t w, q, b;

    memcpy(&w, p, 8);
    q = w ^ (ones * '"');
    b = w ^ (ones * '\\');
    return ((((w - ones * 0x20) & ~w) | ((q - ones) & ~q) |
             ((b - ones) & ~b) | w) & highs) == 0;
}

/* A string at f->p (the opening quote), read as jansson reads it with
 * JSON_ALLOW_NUL; control characters and anything invalid decline.
 * Sets (*s, *n) to the text: the bytes between the quotes when nothing
 * needs decoding (the common case), else a decoded copy in *owned
 * (caller frees; NULL otherwise). */
static bool
scan_string(struct fast *f, const char **s, size_t *n, char **owned)
{
    const char *q;
    size_t l;

    *owned = NULL;
    if (f->p >= f->end || *f->p != '"')
        return false;
    q = ++f->p;
    while (q < f->end) {
        const char *stop;

        if (f->end - q >= 8 && plain8(q)) {
            q += 8;
            continue;
        }
        /* the word holds something else: its bytes one by one */
        stop = f->end - q > 8 ? q + 8 : f->end;
        while (q < stop) {
            unsigned char c = (unsigned char)*q;

            if (c == '"') {
                *s = f->p;
                *n = (size_t)(q - f->p);
                f->p = q + 1;
                return true;
            }
            if (c < 0x20)
                return false;
            if (c == '\\')
                return decode_string(f, q, s, n, owned);
            if (c >= 0x80) {
                l = utf8_len((const unsigned char *)q,
                             (const unsigned char *)f->end);
                if (l == 0)
                    return false;
                q += l;
                continue;
            }
            q++;
        }
    }
    return false;
}

static bool
match(struct fast *f, const char *lit, size_t n)
{
    size_t i;

    if ((size_t)(f->end - f->p) < n)
        return false;
    for (i = 0; i < n; i++)
        if (f->p[i] != lit[i])
            return false;
    f->p += n;
    return true;
}

/* -?(0|[1-9][0-9]*) with at most 18 digits, not followed by a fraction
 * or exponent (reals are jansson's). */
static json_t *
parse_integer(struct fast *f)
{
    bool neg = false;
    long long v = 0;
    int digits = 0;

    if (f->p < f->end && *f->p == '-') {
        neg = true;
        f->p++;
    }
    if (f->p >= f->end || *f->p < '0' || *f->p > '9')
        return NULL;
    if (*f->p == '0' && f->p + 1 < f->end && f->p[1] >= '0' && f->p[1] <= '9')
        return NULL;                    /* leading zero: jansson's error */
    while (f->p < f->end && *f->p >= '0' && *f->p <= '9') {
        if (++digits > 18)
            return NULL;
        v = v * 10 + (*f->p - '0');
        f->p++;
    }
    if (f->p < f->end && (*f->p == '.' || *f->p == 'e' || *f->p == 'E'))
        return NULL;
    return json_integer(neg ? -v : v);
}

static json_t *parse_value(struct fast *f, int depth);

/*
 * Step through an object or array whose opening bracket is at f->p (first)
 * or whose last member was just read: skip whitespace and the ',' between
 * members. Returns 1 past the closing bracket close, 0 before the next
 * member, -1 on bad syntax.
 */
static int
next_member(struct fast *f, char close, bool first)
{
    if (first)
        f->p++;                         /* '{' or '[' */
    skip_ws(f);
    if (f->p < f->end && *f->p == close) {
        f->p++;
        return 1;
    }
    if (first)
        return 0;
    if (f->p >= f->end || *f->p != ',')
        return -1;
    f->p++;
    skip_ws(f);
    return 0;
}

/* An object member's key and the ':' after it, at f->p: sets (*k, *kn),
 * a decoded key in *owned (scan_string()). */
static bool
scan_key(struct fast *f, const char **k, size_t *kn, char **owned)
{
    if (!scan_string(f, k, kn, owned))
        return false;
    skip_ws(f);
    if (f->p >= f->end || *f->p != ':')
        return false;
    f->p++;
    skip_ws(f);
    return true;
}

/* An object or array whose opening bracket is at f->p; NULL: decline. */
static json_t *
parse_container(struct fast *f, int depth)
{
    bool is_object = *f->p == '{';
    char close = is_object ? '}' : ']';
    json_t *c = is_object ? json_object() : json_array(), *v;
    const char *k = NULL;
    char *owned = NULL;
    size_t kn = 0;
    int r;

    if (c == NULL)
        return NULL;
    for (r = next_member(f, close, true); r == 0;
         r = next_member(f, close, false)) {
        if (is_object && !scan_key(f, &k, &kn, &owned))
            goto fail;
        v = parse_value(f, depth + 1);
        if (v == NULL)
            goto fail;
        /* for objects, what jansson's parse_object() calls: a repeated
         * key replaces the earlier value where it stands. Unlike jansson,
         * a key may hold NUL: DynamoDB attribute names may. */
        if ((is_object ? json_object_setn_new_nocheck(c, k, kn, v)
                       : json_array_append_new(c, v)) != 0)
            goto fail;
        free(owned);
        owned = NULL;
    }
    if (r > 0)
        return c;
fail:
    free(owned);
    json_decref(c);
    return NULL;
}

/* A value at f->p (whitespace already skipped); NULL: decline. */
static json_t *
parse_value(struct fast *f, int depth)
{
    const char *s;
    char *owned;
    size_t n;
    json_t *v;

    if (f->p >= f->end || depth >= JSON_FAST_MAX_DEPTH)
        return NULL;
    switch (*f->p) {
    case '{':
    case '[':
        return parse_container(f, depth);
    case '"':
        if (!scan_string(f, &s, &n, &owned))
            return NULL;
        v = json_stringn_nocheck(s, n);
        free(owned);
        return v;
    case 't':
        return match(f, "true", 4) ? json_true() : NULL;
    case 'f':
        return match(f, "false", 5) ? json_false() : NULL;
    case 'n':
        return match(f, "null", 4) ? json_null() : NULL;
    default:
        return parse_integer(f);
    }
}

json_t *
json_fast_loadb(const char *buf, size_t len)
{
    struct fast f;
    json_t *v;

    if (buf == NULL)
        return NULL;
    f.p = buf;
    f.end = buf + len;
    skip_ws(&f);
    /* without JSON_DECODE_ANY jansson wants an array or object on top */
    if (f.p >= f.end || (*f.p != '{' && *f.p != '['))
        return NULL;
    v = parse_value(&f, 0);
    if (v == NULL)
        return NULL;
    skip_ws(&f);
    if (f.p != f.end) {                 /* trailing bytes: jansson's call */
        json_decref(v);
        return NULL;
    }
    return v;
}

json_t *
json_fast_or_loadb(const char *buf, size_t len, json_error_t *jerr)
{
    json_t *v = json_fast_loadb(buf, len);

    return v != NULL ? v : json_loadb(buf, len, JSON_ALLOW_NUL, jerr);
}

/* ------------------------------------------------------------------------
 * Encoder
 * ---------------------------------------------------------------------- */

/* Grow b to hold n more bytes plus the NUL: the rare path, kept out of
 * line so that put_bytes() stays small enough to inline everywhere. */
static void __attribute__((noinline))
grow(struct json_fast_buf *b, size_t n)
{
    size_t cap = b->cap ? b->cap : 256;

    while (cap < b->len + n + 1)
        cap *= 2;
    b->p = xrealloc(b->p, cap);
    b->cap = cap;
}

/* Room for n more bytes plus the NUL. */
static inline void
reserve(struct json_fast_buf *b, size_t n)
{
    if (b->len + n + 1 > b->cap)
        grow(b, n);
}

static inline void
put_bytes(struct json_fast_buf *b, const char *s, size_t n)
{
    reserve(b, n);
    memcpy(b->p + b->len, s, n);
    b->len += n;
}

/* A string as jansson's dump_string() writes it without flags: '"', '\\'
 * and control characters escaped, everything else raw. Declines bytes
 * from 0x80 (jansson would check the UTF-8). */
static int
dump_str(struct json_fast_buf *b, const char *s, size_t n)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t i, run = 0;

    reserve(b, n + 2);
    b->p[b->len++] = '"';
    for (i = 0; i < n;) {
        size_t stop;

        if (n - i >= 8 && plain8(s + i)) {
            run += 8;
            i += 8;
            continue;
        }
        /* the word holds something else: its bytes one by one */
        stop = n - i > 8 ? i + 8 : n;
        for (; i < stop; i++) {
            unsigned char c = (unsigned char)s[i];
            char esc[6];
            size_t en = 2;

            if (c >= 0x80)
                return -1;
            if (c >= 0x20 && c != '"' && c != '\\') {
                run++;
                continue;
            }
            if (run > 0)
                put_bytes(b, s + i - run, run);
            run = 0;
            esc[0] = '\\';
            switch (c) {
            case '"':  esc[1] = '"';  break;
            case '\\': esc[1] = '\\'; break;
            case '\b': esc[1] = 'b';  break;
            case '\f': esc[1] = 'f';  break;
            case '\n': esc[1] = 'n';  break;
            case '\r': esc[1] = 'r';  break;
            case '\t': esc[1] = 't';  break;
            default:                        /* "\\u%04X" */
                esc[1] = 'u';
                esc[2] = '0';
                esc[3] = '0';
                esc[4] = hex[c >> 4];
                esc[5] = hex[c & 15];
                en = 6;
                break;
            }
            put_bytes(b, esc, en);
        }
    }
    if (run > 0)
        put_bytes(b, s + n - run, run);
    put_bytes(b, "\"", 1);
    return 0;
}

static void
dump_int(struct json_fast_buf *b, json_int_t v)
{
    char tmp[24];
    size_t i = sizeof(tmp);
    unsigned long long u = v < 0 ? 0ull - (unsigned long long)v
                                 : (unsigned long long)v;

    do {
        tmp[--i] = (char)('0' + u % 10);
        u /= 10;
    } while (u != 0);
    if (v < 0)
        tmp[--i] = '-';
    put_bytes(b, tmp + i, sizeof(tmp) - i);
}

static int
dump_value(const json_t *v, struct json_fast_buf *b, int depth)
{
    const char *k;
    json_t *x;
    size_t i;
    void *it;

    if (depth >= JSON_FAST_MAX_DEPTH)
        return -1;
    switch (json_typeof(v)) {
    case JSON_OBJECT:
        put_bytes(b, "{", 1);
        i = 0;
        for (it = json_object_iter((json_t *)v); it != NULL;
             it = json_object_iter_next((json_t *)v, it)) {
            k = json_object_iter_key(it);
            if (i++ > 0)
                put_bytes(b, ",", 1);
            if (dump_str(b, k, json_object_iter_key_len(it)) != 0)
                return -1;
            put_bytes(b, ":", 1);
            if (dump_value(json_object_iter_value(it), b, depth + 1) != 0)
                return -1;
        }
        put_bytes(b, "}", 1);
        return 0;
    case JSON_ARRAY:
        put_bytes(b, "[", 1);
        json_array_foreach(v, i, x) {
            if (i > 0)
                put_bytes(b, ",", 1);
            if (dump_value(x, b, depth + 1) != 0)
                return -1;
        }
        put_bytes(b, "]", 1);
        return 0;
    case JSON_STRING:
        return dump_str(b, json_string_value(v), json_string_length(v));
    case JSON_INTEGER:
        dump_int(b, json_integer_value(v));
        return 0;
    case JSON_TRUE:
        put_bytes(b, "true", 4);
        return 0;
    case JSON_FALSE:
        put_bytes(b, "false", 5);
        return 0;
    case JSON_NULL:
        put_bytes(b, "null", 4);
        return 0;
    default:                            /* JSON_REAL: jansson's format */
        return -1;
    }
}

int
json_fast_dump(const json_t *json, struct json_fast_buf *b)
{
    /* json_dumps() without JSON_ENCODE_ANY wants a container on top */
    if (json == NULL || (!json_is_object(json) && !json_is_array(json)))
        return -1;
    reserve(b, 0);
    if (dump_value(json, b, 0) != 0)
        return -1;
    b->p[b->len] = '\0';
    return 0;
}
