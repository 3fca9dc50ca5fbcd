/* SPDX-License-Identifier: MIT */
/* compress.c - content codings with zlib, shaped after what DynamoDB was
 * seen to do: which request bodies it decodes and how it treats broken
 * ones, which Accept-Encoding values make it compress a response, and with
 * what. The sources are named beside each rule. */

#include <ctype.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <zlib.h>

#include "server/compress.h"
#include "storage/util.h"

#define GZIP_WBITS    (16 + MAX_WBITS)  /* zlib: a gzip wrapper */
#define ZLIB_WBITS    MAX_WBITS         /* zlib: a zlib wrapper ("deflate") */
#define DECODE_FIRST  HTTP_BODY_FREE    /* first output buffer; it doubles */
#define GZ_FEXTRA     4
#define GZ_FNAME      8
#define GZ_FCOMMENT   16
#define GZ_FHCRC      2

const char *
compress_name(enum http_coding c)
{
    return c == CODING_GZIP ? "gzip" : c == CODING_DEFLATE ? "deflate"
                                                           : NULL;
}

/* ------------------------------------------------------------------------
 * Accept-Encoding
 *
 * DynamoDB's choices, recorded by scylladb's test_compressed_response.py
 * (test_accept_encoding_header, run against DynamoDB, 2025-12): it offers
 * gzip and deflate; tokens match without case, other tokens (br, x-gzip,
 * identity, "gzip" in quotes) count for nothing; the highest q wins, a tie
 * goes to the coding listed first, and a coding named outright beats one
 * that only "*" covers ("*, deflate" is deflate, "*" alone gzip). A
 * parameter counts as q when it contains "q=" ("gzip;nq=0" refuses gzip,
 * "gzip;q =0;q=1" accepts it) and only the first one does; its value is
 * read like Java's Float.parseFloat: unreadable means 1 ("q=0.x"), above
 * 1 means 1, zero or below refuses ("q=-0.5"). Only the first
 * Accept-Encoding header is read (the caller passes that one).
 * ---------------------------------------------------------------------- */

/* Java's Float.parseFloat on s[0..n): white space around it, a sign,
 * digits with an optional point, an exponent, a type suffix. false when
 * it would throw (NaN and Infinity are not taken either). */
static bool
java_float(const char *s, size_t n, double *out)
{
    char buf[64];
    size_t i = 0, j, digits = 0;

    while (n > 0 && (unsigned char)s[n - 1] <= ' ')
        n--;
    while (i < n && (unsigned char)s[i] <= ' ')
        i++;
    if (n - i == 0 || n - i >= sizeof(buf))
        return false;
    j = i;
    if (s[j] == '+' || s[j] == '-')
        j++;
    while (j < n && isdigit((unsigned char)s[j])) {
        j++;
        digits++;
    }
    if (j < n && s[j] == '.') {
        j++;
        while (j < n && isdigit((unsigned char)s[j])) {
            j++;
            digits++;
        }
    }
    if (digits == 0)
        return false;
    if (j < n && (s[j] == 'e' || s[j] == 'E')) {
        size_t e;

        j++;
        if (j < n && (s[j] == '+' || s[j] == '-'))
            j++;
        e = j;
        while (j < n && isdigit((unsigned char)s[j]))
            j++;
        if (j == e)
            return false;
    }
    memcpy(buf, s + i, j - i);
    buf[j - i] = '\0';
    if (j < n && strchr("fFdD", s[j]) != NULL)
        j++;
    if (j != n)
        return false;
    *out = strtod(buf, NULL);
    return true;
}

/* The q of one list element's parameters (after the first ';'). */
static double
element_q(const char *p, const char *end)
{
    while (p < end) {
        const char *semi = memchr(p, ';', (size_t)(end - p));
        const char *pend = semi != NULL ? semi : end;
        const char *q;
        double v;

        for (q = p; q + 1 < pend; q++) {
            if (q[0] != 'q' || q[1] != '=')
                continue;
            if (!java_float(q + 2, (size_t)(pend - q - 2), &v))
                return 1;
            return v > 1 ? 1 : v;
        }
        p = semi != NULL ? semi + 1 : end;
    }
    return 1;
}

enum http_coding
compress_choose(const char *ae)
{
    /* Per coding: the best q named outright and where; "*"'s q. */
    double q[3] = { -1, -1, -1 }, star = -1;
    int pos[3] = { 0, 0, 0 }, n = 0, c;
    const char *p = ae;

    if (ae == NULL)
        return CODING_NONE;
    while (*p != '\0') {
        const char *end = p + strcspn(p, ","), *tok = p, *tend;
        double v;

        tend = memchr(tok, ';', (size_t)(end - tok));
        if (tend == NULL)
            tend = end;
        while (tok < tend && (*tok == ' ' || *tok == '\t'))
            tok++;
        while (tend > tok && (tend[-1] == ' ' || tend[-1] == '\t'))
            tend--;
        v = element_q(tend, end);
        c = -1;
        if (tend - tok == 4 && strncasecmp(tok, "gzip", 4) == 0)
            c = CODING_GZIP;
        else if (tend - tok == 7 && strncasecmp(tok, "deflate", 7) == 0)
            c = CODING_DEFLATE;
        else if (tend - tok == 1 && *tok == '*' && star < 0)
            star = v;
        if (c > 0 && v > q[c]) {
            q[c] = v;
            pos[c] = n;
        }
        n++;
        p = *end != '\0' ? end + 1 : end;
    }
    /* "*" stands for the codings not named, after every named one. */
    for (c = CODING_GZIP; c <= CODING_DEFLATE; c++) {
        if (q[c] < 0 && star >= 0) {
            q[c] = star;
            pos[c] = n + c;
        }
    }
    if (q[CODING_GZIP] <= 0 && q[CODING_DEFLATE] <= 0)
        return CODING_NONE;
    if (q[CODING_GZIP] > q[CODING_DEFLATE] ||
        (q[CODING_GZIP] == q[CODING_DEFLATE] &&
         pos[CODING_GZIP] < pos[CODING_DEFLATE]))
        return CODING_GZIP;
    return CODING_DEFLATE;
}

/* ------------------------------------------------------------------------
 * Compressing a response
 * ---------------------------------------------------------------------- */

char *
compress_body(enum http_coding c, const char *in, size_t len, size_t *outlen)
{
    z_stream z;
    char *out;
    uLong bound;
    int rc;

    memset(&z, 0, sizeof(z));
    if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED,
                     c == CODING_GZIP ? GZIP_WBITS : ZLIB_WBITS, 8,
                     Z_DEFAULT_STRATEGY) != Z_OK)
        abort();                        /* only out of memory */
    bound = deflateBound(&z, (uLong)len);
    out = xmalloc(bound);
    z.next_in = (Bytef *)(uintptr_t)in;
    z.avail_in = (uInt)len;
    z.next_out = (Bytef *)out;
    z.avail_out = (uInt)bound;
    rc = deflate(&z, Z_FINISH);
    if (rc != Z_STREAM_END)
        abort();                        /* deflateBound() is a bound */
    *outlen = z.total_out;
    deflateEnd(&z);
    return out;
}

/* ------------------------------------------------------------------------
 * Decoding a request body
 *
 * DynamoDB (scylladb's test_compressed_request.py, run against DynamoDB,
 * 2025-11 and 2025-12): "gzip" and "deflate" are decoded; any other
 * Content-Encoding, an empty body, a body that is not of the coding, or a
 * stream cut short are answered 500 InternalServerError; gzip members
 * concatenated are one body, and junk after a gzip member is ignored (as
 * Java's GZIPInputStream ignores what does not start another member);
 * deflate is a zlib stream, and what follows its end is ignored (two
 * zlib streams back to back are not one body there). Two codings stacked
 * ("gzip, gzip") are a Content-Encoding it does not know: 500 as well (our
 * reading: no recording shows it). DynamoDB itself decodes past 16 MB;
 * shardlocal holds the decoded body to the same 16 MB as any other, so a
 * small compressed request cannot make it allocate without bound.
 * ---------------------------------------------------------------------- */

struct out {
    char *p;                        /* malloc'd */
    size_t len, cap;
    size_t max;                     /* decoded bytes allowed */
    size_t charged;                 /* budget held */
    struct http_budget *budget;
};

/* Room to decode more: the buffer doubles, up to max + 1 bytes of data (a
 * byte past max tells it is too large) and the NUL. */
static int
out_grow(struct out *o)
{
    size_t cap = o->cap ? o->cap * 2 : DECODE_FIRST;

    if (cap > o->max + 2)
        cap = o->max + 2;
    if (cap <= o->cap)
        return DECODE_TOO_LARGE;
    if (!http_budget_grow(o->budget, o->cap, cap, &o->charged))
        return DECODE_BUDGET;
    o->p = xrealloc(o->p, cap);
    o->cap = cap;
    return DECODE_OK;
}

/* Inflate one stream (wbits says which wrapper) from in[0..len) onto o.
 * Returns DECODE_OK and *used, the input bytes the stream took. */
static int
inflate_one(struct out *o, const char *in, size_t len, int wbits,
            size_t *used)
{
    z_stream z;
    int rc, ret = DECODE_OK;

    memset(&z, 0, sizeof(z));
    if (inflateInit2(&z, wbits) != Z_OK)
        abort();                        /* only out of memory */
    z.next_in = (Bytef *)(uintptr_t)in;
    z.avail_in = (uInt)len;
    for (;;) {
        if (o->cap - o->len <= 1 && (ret = out_grow(o)) != DECODE_OK)
            break;
        z.next_out = (Bytef *)o->p + o->len;
        z.avail_out = (uInt)(o->cap - o->len - 1);
        rc = inflate(&z, Z_NO_FLUSH);
        o->len = (size_t)((char *)z.next_out - o->p);
        if (o->len > o->max) {
            ret = DECODE_TOO_LARGE;
            break;
        }
        if (rc == Z_STREAM_END)
            break;
        if ((rc != Z_OK && rc != Z_BUF_ERROR) ||
            (z.avail_out != 0 && z.avail_in == 0)) {
            ret = DECODE_BROKEN;        /* corrupt, or cut short */
            break;
        }
    }
    *used = len - z.avail_in;
    inflateEnd(&z);
    return ret;
}

/* Would Java's GZIPInputStream read p[0..n) as another member's header?
 * (magic, method 8, the optional fields complete, the header CRC right) */
static bool
gzip_header_ok(const unsigned char *p, size_t n)
{
    size_t i = 10;
    unsigned flg;

    if (n < 10 || p[0] != 0x1f || p[1] != 0x8b || p[2] != 8)
        return false;
    flg = p[3];
    if (flg & GZ_FEXTRA) {
        if (n < i + 2)
            return false;
        i += 2 + (size_t)(p[i] | (p[i + 1] << 8));
        if (i > n)
            return false;
    }
    if (flg & GZ_FNAME) {
        const unsigned char *z = memchr(p + i, 0, n - i);

        if (z == NULL)
            return false;
        i = (size_t)(z - p) + 1;
    }
    if (flg & GZ_FCOMMENT) {
        const unsigned char *z = memchr(p + i, 0, n - i);

        if (z == NULL)
            return false;
        i = (size_t)(z - p) + 1;
    }
    if (flg & GZ_FHCRC) {
        uLong crc = crc32(0L, p, (uInt)i);

        if (n < i + 2 || (crc & 0xffff) != (uLong)(p[i] | (p[i + 1] << 8)))
            return false;
    }
    return true;
}

int
compress_decode(const char *enc, const char *in, size_t len, size_t max,
                struct http_budget *budget, char **out, size_t *outlen,
                size_t *charged)
{
    struct out o = { NULL, 0, 0, max, 0, budget };
    size_t n = strlen(enc), pos = 0, used;
    int rc;

    while (n > 0 && (enc[n - 1] == ' ' || enc[n - 1] == '\t'))
        n--;
    while (n > 0 && (*enc == ' ' || *enc == '\t')) {
        enc++;
        n--;
    }
    if (n == 4 && strncasecmp(enc, "gzip", 4) == 0) {
        do {
            rc = inflate_one(&o, in + pos, len - pos, GZIP_WBITS, &used);
            pos += used;
        } while (rc == DECODE_OK && pos < len &&
                 gzip_header_ok((const unsigned char *)in + pos, len - pos));
    } else if (n == 7 && strncasecmp(enc, "deflate", 7) == 0) {
        rc = inflate_one(&o, in, len, ZLIB_WBITS, &used);
    } else {
        return DECODE_UNSUPPORTED;
    }
    if (rc != DECODE_OK) {
        http_budget_give(budget, o.charged);
        free(o.p);
        return rc;
    }
    o.p[o.len] = '\0';
    *out = o.p;
    *outlen = o.len;
    *charged = o.charged;
    return DECODE_OK;
}
