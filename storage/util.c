/* SPDX-License-Identifier: MIT */
/* util.c - the shared helpers of util.h: aborting allocation, the string
 * buffer, JSON member helpers, hex, byte comparison, MD5 and the clocks. */
#include <openssl/evp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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
    char d[20];
    size_t n = 0;

    do
        d[sizeof(d) - ++n] = (char)('0' + v % 10);
    while ((v /= 10) != 0);
    strbuf_add(b, d + sizeof(d) - n, n);
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
    void *it;
    size_t n;

    if (json_object_size(o) != 1)
        return json_object_get(o, name);
    it = json_object_iter((json_t *)o);
    n = json_object_iter_key_len(it);
    return strlen(name) == n &&
                   memcmp(json_object_iter_key(it), name, n) == 0
               ? json_object_iter_value(it)
               : NULL;
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

static EVP_MD *md5_md;
static pthread_once_t md5_once = PTHREAD_ONCE_INIT;

static void
md5_fetch(void)
{
    md5_md = EVP_MD_fetch(NULL, "MD5", NULL);
}

void
md5_bytes(const void *p, size_t n, uint8_t out[16])
{
    unsigned int len = 0;

    pthread_once(&md5_once, md5_fetch);
    if (md5_md == NULL || EVP_Digest(p, n, out, &len, md5_md, NULL) != 1)
        memset(out, 0, 16);
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
 * Clocks
 * ---------------------------------------------------------------------- */

static uint64_t
clock_ms(clockid_t id)
{
    struct timespec ts;

    clock_gettime(id, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

uint64_t
wall_ms(void)
{
    return clock_ms(CLOCK_REALTIME);
}

uint64_t
mono_ms(void)
{
    return clock_ms(CLOCK_MONOTONIC);
}
