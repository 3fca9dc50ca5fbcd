/* SPDX-License-Identifier: MIT */
/* util.c - the shared helpers of util.h: aborting allocation, the string
 * buffer, JSON member helpers, hex, byte comparison, MD5 and the clocks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "storage/util.h"

/* ------------------------------------------------------------------------
 * Allocation
 * ---------------------------------------------------------------------- */

void *
xmalloc(size_t size)
{
    void *p = malloc(size == 0 ? 1 : size);

    if (p == NULL)
        abort();
    return p;
}

void *
xcalloc(size_t n, size_t size)
{
    void *p = calloc(n == 0 ? 1 : n, size == 0 ? 1 : size);

    if (p == NULL)
        abort();
    return p;
}

void *
xrealloc(void *p, size_t size)
{
    p = realloc(p, size == 0 ? 1 : size);
    if (p == NULL)
        abort();
    return p;
}

char *
xstrdup(const char *s)
{
    return xstrndup(s, strlen(s));
}

char *
xstrndup(const char *s, size_t n)
{
    char *p = xmalloc(n + 1);

    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *
xasprintf(const char *fmt, ...)
{
    struct strbuf b = { 0 };
    va_list ap;

    va_start(ap, fmt);
    strbuf_vprintf(&b, fmt, ap);
    va_end(ap);
    return strbuf_take(&b);
}

/* ------------------------------------------------------------------------
 * String buffer
 * ---------------------------------------------------------------------- */

void
strbuf_init(struct strbuf *b)
{
    b->s = NULL;
    b->len = b->cap = 0;
}

void
strbuf_reserve(struct strbuf *b, size_t extra)
{
    size_t cap;

    if (b->len + extra + 1 <= b->cap)
        return;
    cap = b->cap != 0 ? b->cap : 64;
    while (cap < b->len + extra + 1)
        cap *= 2;
    b->s = xrealloc(b->s, cap);
    b->cap = cap;
}

void
strbuf_add(struct strbuf *b, const char *s, size_t n)
{
    strbuf_reserve(b, n);
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}

void
strbuf_puts(struct strbuf *b, const char *s)
{
    strbuf_add(b, s, strlen(s));
}

void
strbuf_put_uint(struct strbuf *b, uint64_t v)
{
    char d[UINT_DEC_MAX];

    strbuf_add(b, d, uint_dec(v, d));
}

size_t
uint_dec(uint64_t v, char *out)
{
    char d[20];
    size_t n = 0;

    do
        d[sizeof(d) - ++n] = (char)('0' + v % 10);
    while ((v /= 10) != 0);
    memcpy(out, d + sizeof(d) - n, n);
    out[n] = '\0';
    return n;
}

void
strbuf_putc(struct strbuf *b, char c)
{
    strbuf_add(b, &c, 1);
}

void
strbuf_vprintf(struct strbuf *b, const char *fmt, va_list ap)
{
    va_list again;
    int n;

    va_copy(again, ap);
    n = vsnprintf(NULL, 0, fmt, ap);
    if (n < 0)
        abort();
    strbuf_reserve(b, (size_t)n);
    vsnprintf(b->s + b->len, b->cap - b->len, fmt, again);
    va_end(again);
    b->len += (size_t)n;
}

void
strbuf_printf(struct strbuf *b, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    strbuf_vprintf(b, fmt, ap);
    va_end(ap);
}

char *
strbuf_take(struct strbuf *b)
{
    char *s = b->s != NULL ? b->s : xstrdup("");

    strbuf_init(b);
    return s;
}

void
strbuf_free(struct strbuf *b)
{
    free(b->s);
    strbuf_init(b);
}

/* ------------------------------------------------------------------------
 * JSON members
 * ---------------------------------------------------------------------- */

bool
json_str_is(const json_t *v, const char *s)
{
    const char *t = json_string_value(v);

    return t != NULL && strcmp(t, s) == 0;
}

json_t *
json_get_one(const json_t *o, const char *name)
{
    struct json_probe p;

    json_probe_init(&p, o);
    return json_probe_get(&p, name);
}

void
json_probe_init(struct json_probe *p, const json_t *o)
{
    void *it;

    p->o = o;
    p->key = NULL;
    if (json_object_size(o) != 1)
        return;                         /* probed by lookup */
    it = json_object_iter((json_t *)o);
    p->key = json_object_iter_key(it);
    p->key_len = json_object_iter_key_len(it);
    p->val = json_object_iter_value(it);
}

void
json_pick(const json_t *o, const char *const *names, size_t n, json_t **out)
{
    size_t klen, i;
    const char *k;
    json_t *v;

    for (i = 0; i < n; i++)
        out[i] = NULL;
    if (!json_is_object(o))
        return;
    json_object_keylen_foreach((json_t *)o, k, klen, v) {
        for (i = 0; i < n; i++)
            if (out[i] == NULL && json_key_is(names[i], k, klen)) {
                out[i] = v;
                break;
            }
    }
}

bool
json_has(const json_t *o, const char *name)
{
    const json_t *v = json_object_get(o, name);

    return v != NULL && !json_is_null(v);
}

int
json_get_uint(const json_t *o, const char *name, uint64_t *out)
{
    const json_t *v = json_object_get(o, name);

    if (v == NULL)
        return 0;
    if (json_is_integer(v) && json_integer_value(v) >= 0) {
        *out = (uint64_t)json_integer_value(v);
        return 1;
    }
    return -1;
}

json_t *
json_copy_members(const json_t *o)
{
    json_t *c = json_object(), *x;
    const char *k;
    size_t klen;

    if (c == NULL)
        abort();                        /* out of memory, as xmalloc */
    json_object_keylen_foreach((json_t *)o, k, klen, x)
        json_object_setn_nocheck(c, k, klen, x);
    return c;
}

json_t *
json_clone(const json_t *v)
{
    const char *k;
    size_t klen, i;
    json_t *c, *x;

    if (v == NULL)
        return NULL;
    switch (json_typeof(v)) {
    case JSON_OBJECT:
        c = json_object();
        json_object_keylen_foreach((json_t *)v, k, klen, x)
            json_object_setn_new_nocheck(c, k, klen, json_clone(x));
        return c;
    case JSON_ARRAY:
        c = json_array();
        json_array_foreach(v, i, x)
            json_array_append_new(c, json_clone(x));
        return c;
    case JSON_STRING:
        return json_stringn_nocheck(json_string_value(v),
                                    json_string_length(v));
    default:                        /* numbers and constants */
        return json_deep_copy(v);
    }
}

bool
json_same(const json_t *a, const json_t *b)
{
    const char *k;
    size_t klen, i;
    json_t *x;

    if (a == NULL || b == NULL)
        return a == b;
    if (json_typeof(a) != json_typeof(b))
        return false;
    switch (json_typeof(a)) {
    case JSON_OBJECT:
        if (json_object_size(a) != json_object_size(b))
            return false;
        json_object_keylen_foreach((json_t *)a, k, klen, x)
            if (!json_same(x, json_object_getn(b, k, klen)))
                return false;
        return true;
    case JSON_ARRAY:
        if (json_array_size(a) != json_array_size(b))
            return false;
        json_array_foreach(a, i, x)
            if (!json_same(x, json_array_get(b, i)))
                return false;
        return true;
    default:
        return json_equal((json_t *)a, (json_t *)b);
    }
}

/* ------------------------------------------------------------------------
 * Bytes
 * ---------------------------------------------------------------------- */

void
hex_encode(const uint8_t *p, size_t n, char *out)
{
    static const char digits[] = "0123456789abcdef";
    size_t i;

    for (i = 0; i < n; i++) {
        out[2 * i] = digits[p[i] >> 4];
        out[2 * i + 1] = digits[p[i] & 15];
    }
    out[2 * n] = '\0';
}

/* ------------------------------------------------------------------------
 * MD5 (RFC 1321). Here rather than OpenSSL's: every item operation hashes
 * its key for placement, a key fits one or two blocks, and EVP_Digest()
 * spent about as much again as the hashing on its context (allocated,
 * set up and freed per call).
 * ---------------------------------------------------------------------- */

/* floor(abs(sin(i + 1)) * 2^32) */
static const uint32_t md5_k[64] = {
    0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee,
    0xf57c0faf, 0x4787c62a, 0xa8304613, 0xfd469501,
    0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be,
    0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821,
    0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa,
    0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
    0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed,
    0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a,
    0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c,
    0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70,
    0x289b7ec6, 0xeaa127fa, 0xd4ef3085, 0x04881d05,
    0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
    0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039,
    0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
    0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1,
    0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391,
};

static uint32_t
rotl32(uint32_t x, unsigned n)
{
    return (x << n) | (x >> (32 - n));
}

/* The four rounds' functions (F and G in forms with one operation
 * fewer), and one step: a = b + ((a + f(b, c, d) + x + k) <<< s). */
#define MD5_F(x, y, z) ((z) ^ ((x) & ((y) ^ (z))))
#define MD5_G(x, y, z) ((y) ^ ((z) & ((x) ^ (y))))
#define MD5_H(x, y, z) ((x) ^ (y) ^ (z))
#define MD5_I(x, y, z) ((y) ^ ((x) | ~(z)))
#define MD5_STEP(f, a, b, c, d, x, k, s) \
    ((a) += f((b), (c), (d)) + (x) + (k), (a) = rotl32((a), (s)) + (b))

/* Fold one 64-byte block into h: four rounds of 16 steps, each round
 * taking the message words in its own order. */
static void
md5_block(uint32_t h[4], const uint8_t *blk)
{
    uint32_t m[16], a = h[0], b = h[1], c = h[2], d = h[3];
    int i;

    for (i = 0; i < 16; i++)
        m[i] = (uint32_t)blk[4 * i] | (uint32_t)blk[4 * i + 1] << 8 |
               (uint32_t)blk[4 * i + 2] << 16 | (uint32_t)blk[4 * i + 3] << 24;
    for (i = 0; i < 16; i += 4) {
        MD5_STEP(MD5_F, a, b, c, d, m[i], md5_k[i], 7);
        MD5_STEP(MD5_F, d, a, b, c, m[i + 1], md5_k[i + 1], 12);
        MD5_STEP(MD5_F, c, d, a, b, m[i + 2], md5_k[i + 2], 17);
        MD5_STEP(MD5_F, b, c, d, a, m[i + 3], md5_k[i + 3], 22);
    }
    for (i = 16; i < 32; i += 4) {
        MD5_STEP(MD5_G, a, b, c, d, m[(5 * i + 1) & 15], md5_k[i], 5);
        MD5_STEP(MD5_G, d, a, b, c, m[(5 * i + 6) & 15], md5_k[i + 1], 9);
        MD5_STEP(MD5_G, c, d, a, b, m[(5 * i + 11) & 15], md5_k[i + 2], 14);
        MD5_STEP(MD5_G, b, c, d, a, m[(5 * i + 16) & 15], md5_k[i + 3], 20);
    }
    for (i = 32; i < 48; i += 4) {
        MD5_STEP(MD5_H, a, b, c, d, m[(3 * i + 5) & 15], md5_k[i], 4);
        MD5_STEP(MD5_H, d, a, b, c, m[(3 * i + 8) & 15], md5_k[i + 1], 11);
        MD5_STEP(MD5_H, c, d, a, b, m[(3 * i + 11) & 15], md5_k[i + 2], 16);
        MD5_STEP(MD5_H, b, c, d, a, m[(3 * i + 14) & 15], md5_k[i + 3], 23);
    }
    for (i = 48; i < 64; i += 4) {
        MD5_STEP(MD5_I, a, b, c, d, m[(7 * i) & 15], md5_k[i], 6);
        MD5_STEP(MD5_I, d, a, b, c, m[(7 * i + 7) & 15], md5_k[i + 1], 10);
        MD5_STEP(MD5_I, c, d, a, b, m[(7 * i + 14) & 15], md5_k[i + 2], 15);
        MD5_STEP(MD5_I, b, c, d, a, m[(7 * i + 21) & 15], md5_k[i + 3], 21);
    }
    h[0] += a;
    h[1] += b;
    h[2] += c;
    h[3] += d;
}

void
md5_bytes(const void *p, size_t n, uint8_t out[16])
{
    uint32_t h[4] = { 0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476 };
    const uint8_t *s = p;
    uint8_t tail[128];
    uint64_t bits = (uint64_t)n * 8;
    size_t rest, tlen;

    for (; n >= 64; s += 64, n -= 64)
        md5_block(h, s);
    /* the rest, 0x80, zeros to 56 mod 64, the length in bits (LE) */
    rest = n;
    tlen = rest < 56 ? 64 : 128;
    if (rest > 0)
        memcpy(tail, s, rest);
    tail[rest] = 0x80;
    memset(tail + rest + 1, 0, tlen - rest - 1 - 8);
    for (int i = 0; i < 8; i++)
        tail[tlen - 8 + i] = (uint8_t)(bits >> (8 * i));
    md5_block(h, tail);
    if (tlen == 128)
        md5_block(h, tail + 64);
    for (int i = 0; i < 4; i++) {
        out[4 * i] = (uint8_t)h[i];
        out[4 * i + 1] = (uint8_t)(h[i] >> 8);
        out[4 * i + 2] = (uint8_t)(h[i] >> 16);
        out[4 * i + 3] = (uint8_t)(h[i] >> 24);
    }
}

int
hex_digit(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

int
bytes_cmp(const void *a, size_t alen, const void *b, size_t blen)
{
    size_t n = alen < blen ? alen : blen;
    int c = n != 0 ? memcmp(a, b, n) : 0;

    if (c != 0)
        return c < 0 ? -1 : 1;
    return alen < blen ? -1 : alen > blen;
}

/* ------------------------------------------------------------------------
 * Files
 * ---------------------------------------------------------------------- */

void
sync_close(int fd, bool data_only)
{
    if (fd < 0)
        return;
    if (data_only)
        (void)fdatasync(fd);
    else
        (void)fsync(fd);
    (void)close(fd);
}

/* ------------------------------------------------------------------------
 * Clocks
 * ---------------------------------------------------------------------- */

static uint64_t
clock_us(clockid_t id)
{
    struct timespec ts;

    clock_gettime(id, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

uint64_t
wall_ms(void)
{
    return clock_us(CLOCK_REALTIME) / 1000u;
}

uint64_t
mono_ms(void)
{
    return clock_us(CLOCK_MONOTONIC) / 1000u;
}

uint64_t
mono_us(void)
{
    return clock_us(CLOCK_MONOTONIC);
}
