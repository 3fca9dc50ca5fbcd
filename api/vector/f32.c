/* SPDX-License-Identifier: MIT */
/* f32.c - the numbers a vector index holds: DynamoDB numbers as 32-bit
 * floats and back to text, the distances of the three distance functions,
 * and the top-k selection every search ends with. */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/vector/vector_int.h"
#include "storage/util.h"

/* ------------------------------------------------------------------------
 * Numbers
 * ---------------------------------------------------------------------- */

int
f32_parse(const char *text, float *out)
{
    char *end;
    float f;

    if (text == NULL || text[0] == '\0')
        return -1;
    errno = 0;
    f = strtof(text, &end);
    if (*end != '\0' || isnan(f) || isinf(f))
        return -1;
    /* ERANGE also flags an underflow, which rounds to a float (maybe
     * zero) as the index stores it; only an overflow is out of range. */
    *out = f;
    return 0;
}

/* The fewest significant digits (1..9) that name f exactly, as "%.*e"
 * text into buf (F32_TEXT_MAX bytes). */
static void
shortest_digits(float f, char *buf)
{
    int p;

    for (p = 1; p <= 9; p++) {
        snprintf(buf, F32_TEXT_MAX, "%.*e", p - 1, (double)f);
        if (strtof(buf, NULL) == f)
            return;
    }
}

void
f32_format(float f, char *out)
{
    char buf[F32_TEXT_MAX], digits[16];
    const char *e;
    size_t nd = 0, i;
    int exp, pos;
    bool neg = signbit(f);
    size_t o = 0;

    if (f == 0.0f) {
        snprintf(out, F32_TEXT_MAX, "%s0.0", neg ? "-" : "");
        return;
    }
    shortest_digits(fabsf(f), buf);
    /* buf is "d.ddde+XX": the digits, then the decimal exponent. */
    for (i = 0; buf[i] != 'e' && buf[i] != '\0'; i++)
        if (buf[i] != '.')
            digits[nd++] = buf[i];
    while (nd > 1 && digits[nd - 1] == '0')
        nd--;
    digits[nd] = '\0';
    e = strchr(buf, 'e');
    exp = e != NULL ? atoi(e + 1) : 0;
    if (neg)
        out[o++] = '-';
    if (exp < -4 || exp >= 16) {
        out[o++] = digits[0];
        if (nd > 1) {
            out[o++] = '.';
            for (i = 1; i < nd; i++)
                out[o++] = digits[i];
        }
        snprintf(out + o, F32_TEXT_MAX - o, "e%d", exp);
        return;
    }
    if (exp < 0) {
        out[o++] = '0';
        out[o++] = '.';
        for (pos = -1; pos > exp; pos--)
            out[o++] = '0';
        for (i = 0; i < nd; i++)
            out[o++] = digits[i];
        out[o] = '\0';
        return;
    }
    for (pos = 0; pos <= exp; pos++)
        out[o++] = (size_t)pos < nd ? digits[pos] : '0';
    out[o++] = '.';
    if ((size_t)exp + 1 >= nd)
        out[o++] = '0';
    for (i = (size_t)exp + 1; i < nd; i++)
        out[o++] = digits[i];
    out[o] = '\0';
}

/* ------------------------------------------------------------------------
 * Distances. Four float lanes twice over, so the compiler keeps them in
 * vector registers without being allowed to reorder float sums; on x86
 * CPUs with AVX2 and FMA, eight lanes twice over, chosen once at start.
 * ---------------------------------------------------------------------- */

typedef float v4sf __attribute__((vector_size(16)));

static inline v4sf
load4(const float *p)
{
    v4sf v;

    memcpy(&v, p, sizeof(v));
    return v;
}

static inline float
hsum(v4sf a, v4sf b)
{
    v4sf s = a + b;

    return (s[0] + s[1]) + (s[2] + s[3]);
}

static float
dot_base(const float *a, const float *b, size_t dim)
{
    v4sf s0 = { 0 }, s1 = { 0 };
    size_t i = 0;
    float r;

    for (; i + 8 <= dim; i += 8) {
        s0 += load4(a + i) * load4(b + i);
        s1 += load4(a + i + 4) * load4(b + i + 4);
    }
    r = hsum(s0, s1);
    for (; i < dim; i++)
        r += a[i] * b[i];
    return r;
}

static float
l2sq_base(const float *a, const float *b, size_t dim)
{
    v4sf s0 = { 0 }, s1 = { 0 }, d0, d1;
    size_t i = 0;
    float r, d;

    for (; i + 8 <= dim; i += 8) {
        d0 = load4(a + i) - load4(b + i);
        d1 = load4(a + i + 4) - load4(b + i + 4);
        s0 += d0 * d0;
        s1 += d1 * d1;
    }
    r = hsum(s0, s1);
    for (; i < dim; i++) {
        d = a[i] - b[i];
        r += d * d;
    }
    return r;
}

typedef float kernel_fn(const float *a, const float *b, size_t dim);
static kernel_fn *dot = dot_base, *l2sq = l2sq_base;

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

__attribute__((target("avx2,fma"))) static inline float
hsum8(__m256 v)
{
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v),
                          _mm256_extractf128_ps(v, 1));

    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_shuffle_ps(s, s, 1));
    return _mm_cvtss_f32(s);
}

__attribute__((target("avx2,fma"))) static float
dot_avx2(const float *a, const float *b, size_t dim)
{
    __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps();
    size_t i = 0;
    float r;

    for (; i + 16 <= dim; i += 16) {
        s0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i),
                             s0);
        s1 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 8),
                             _mm256_loadu_ps(b + i + 8), s1);
    }
    r = hsum8(_mm256_add_ps(s0, s1));
    for (; i < dim; i++)
        r += a[i] * b[i];
    return r;
}

__attribute__((target("avx2,fma"))) static float
l2sq_avx2(const float *a, const float *b, size_t dim)
{
    __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps(), d0, d1;
    size_t i = 0;
    float r, d;

    for (; i + 16 <= dim; i += 16) {
        d0 = _mm256_sub_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i));
        d1 = _mm256_sub_ps(_mm256_loadu_ps(a + i + 8),
                           _mm256_loadu_ps(b + i + 8));
        s0 = _mm256_fmadd_ps(d0, d0, s0);
        s1 = _mm256_fmadd_ps(d1, d1, s1);
    }
    r = hsum8(_mm256_add_ps(s0, s1));
    for (; i < dim; i++) {
        d = a[i] - b[i];
        r += d * d;
    }
    return r;
}

__attribute__((constructor)) static void
pick_kernels(void)
{
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
        dot = dot_avx2;
        l2sq = l2sq_avx2;
    }
}
#endif

float
vec_inv_norm(const float *v, size_t dim)
{
    double s = 0;
    size_t i;

    for (i = 0; i < dim; i++)
        s += (double)v[i] * v[i];
    return s > 0 ? (float)(1.0 / sqrt(s)) : 0.0f;
}

float
vec_dist(enum vec_metric m, const float *a, float ia, const float *b,
         float ib, size_t dim)
{
    switch (m) {
    case VEC_COSINE:
        return 1.0f - dot(a, b, dim) * ia * ib;
    case VEC_EUCLIDEAN:
        return l2sq(a, b, dim);
    case VEC_DOT:
        break;
    }
    return -dot(a, b, dim);
}

double
vec_score(enum vec_metric m, const float *a, const float *b, size_t dim)
{
    double d = 0, na = 0, nb = 0, t, c;
    size_t i;

    for (i = 0; i < dim; i++) {
        t = (double)a[i] - b[i];
        if (m == VEC_EUCLIDEAN)
            d += t * t;
        else
            d += (double)a[i] * b[i];
        na += (double)a[i] * a[i];
        nb += (double)b[i] * b[i];
    }
    switch (m) {
    case VEC_COSINE:
        /* A zero vector has no direction: DynamoDB's own answer is not
         * recorded; it scores 1 (orthogonal) here. */
        if (na == 0 || nb == 0)
            return 1.0;
        c = d / (sqrt(na) * sqrt(nb));
        if (c > 1)
            c = 1;
        if (c < -1)
            c = -1;
        /* The similarity rounds to a float first, so a vector scores
         * exactly 0 against itself and 2 against its opposite. */
        return (double)(1.0f - (float)c);
    case VEC_EUCLIDEAN:
        return (double)(float)sqrt(d);
    case VEC_DOT:
        break;
    }
    return (double)(float)d;
}

/* ------------------------------------------------------------------------
 * Top k
 * ---------------------------------------------------------------------- */

/* a ranks after b: farther, or as far with a higher slot. */
static bool
worse(const struct vec_hit *a, const struct vec_hit *b)
{
    return a->dist > b->dist || (a->dist == b->dist && a->slot > b->slot);
}

void
vec_topk_init(struct vec_topk *t, size_t k)
{
    t->k = k;
    t->n = 0;
    t->h = xmalloc((k ? k : 1) * sizeof(*t->h));
}

void
vec_topk_fini(struct vec_topk *t)
{
    free(t->h);
    t->h = NULL;
    t->n = t->k = 0;
}

static void
sift_down(struct vec_hit *h, size_t n, size_t i)
{
    struct vec_hit x = h[i];
    size_t c;

    while ((c = 2 * i + 1) < n) {
        if (c + 1 < n && worse(&h[c + 1], &h[c]))
            c++;
        if (!worse(&h[c], &x))
            break;
        h[i] = h[c];
        i = c;
    }
    h[i] = x;
}

void
vec_topk_offer(struct vec_topk *t, uint32_t slot, float dist)
{
    struct vec_hit x = { slot, dist };
    size_t i, p;

    if (t->k == 0)
        return;
    if (t->n < t->k) {
        i = t->n++;
        while (i > 0) {             /* sift up: the worst on top */
            p = (i - 1) / 2;
            if (!worse(&x, &t->h[p]))
                break;
            t->h[i] = t->h[p];
            i = p;
        }
        t->h[i] = x;
        return;
    }
    if (!worse(&t->h[0], &x))
        return;
    t->h[0] = x;
    sift_down(t->h, t->n, 0);
}

float
vec_topk_bar(const struct vec_topk *t)
{
    return t->n < t->k ? INFINITY : t->h[0].dist;
}

size_t
vec_topk_take(struct vec_topk *t, struct vec_hit *out)
{
    size_t n = t->n, i;

    for (i = n; i > 0; i--) {       /* pop the worst to the back */
        out[i - 1] = t->h[0];
        t->h[0] = t->h[--t->n];
        sift_down(t->h, t->n, 0);
    }
    return n;
}
