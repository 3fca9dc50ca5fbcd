/* SPDX-License-Identifier: MIT */
/* fuzz_http.c - libFuzzer target for what arrives on the socket before any
 * JSON (server/request.c, server/compress.c). The first byte picks: 'r' a
 * request's bytes, fed whole and then a byte at a time, which must end the
 * same way; 'g' or 'd' a body sent gzip- or deflate-encoded, decoded under
 * a cap and a budget that must come back whole; 'a' an Accept-Encoding
 * value, and the rest compressed and decoded again. A finding: a crash, a
 * sanitizer report, or a broken invariant. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/compress.h"
#include "server/request.h"
#include "storage/util.h"

#define CHECK(c)                                                          \
    do {                                                                  \
        if (!(c)) {                                                       \
            fprintf(stderr, "fuzz_http: %s\n", #c);                       \
            abort();                                                      \
        }                                                                 \
    } while (0)

#define DECODE_MAX (1u << 20)           /* a small cap: bombs show fast */

/* Feed p in pieces of step bytes (0: whole) until the request ends;
 * returns the bytes used. */
static size_t
feed(struct http_request *rq, const char *p, size_t n, size_t step)
{
    size_t off = 0;

    while (off < n && rq->state != RQ_DONE && rq->state != RQ_ERROR) {
        size_t piece = step == 0 || step > n - off ? n - off : step;
        size_t used = request_feed(rq, p + off, piece);

        CHECK(used <= piece);
        off += used;
        if (used < piece)
            break;
    }
    return off;
}

static void
requests(const char *p, size_t n)
{
    struct http_budget b;
    struct http_request whole, slow;
    size_t used_whole, used_slow;
    unsigned i;

    atomic_init(&b.used, 0);
    b.limit = 4u << 20;
    request_init(&whole, &b);
    request_init(&slow, &b);
    used_whole = feed(&whole, p, n, 0);
    used_slow = feed(&slow, p, n, 1);
    CHECK(whole.state == slow.state);
    CHECK(whole.state <= RQ_ERROR);
    if (whole.state == RQ_ERROR) {
        CHECK(whole.err_status == slow.err_status);
        CHECK(whole.err_status == 400 || whole.err_status == 413 ||
              whole.err_status == 503);
        CHECK(whole.err_msg != NULL && !whole.keep_alive);
    }
    if (whole.state == RQ_DONE) {
        CHECK(used_whole == used_slow);
        CHECK(whole.body_len == slow.body_len);
        CHECK(whole.body_len <= HTTP_BODY_MAX);
        CHECK(whole.body_len == 0 ||
              memcmp(whole.body, slow.body, whole.body_len) == 0);
        CHECK(whole.body == NULL || whole.body[whole.body_len] == '\0');
        CHECK(whole.method != NULL && whole.target != NULL);
        for (i = 0; i < whole.nhdr; i++) {
            CHECK(whole.hdr[i].name >= whole.head &&
                  whole.hdr[i].name < whole.head + whole.head_len);
            CHECK(whole.hdr[i].name_len == strlen(whole.hdr[i].name));
            CHECK(strcmp(whole.hdr[i].name, slow.hdr[i].name) == 0);
            CHECK(strcmp(whole.hdr[i].value, slow.hdr[i].value) == 0);
        }
    }
    /* The connection's next request, read into the reset one, ends as
     * it does in a new one. */
    if (whole.state == RQ_DONE && used_whole < n) {
        struct http_request fresh;
        size_t a, c;

        request_reset(&whole);
        request_init(&fresh, &b);
        a = feed(&whole, p + used_whole, n - used_whole, 0);
        c = feed(&fresh, p + used_whole, n - used_whole, 0);
        CHECK(a == c && whole.state == fresh.state);
        CHECK(whole.nhdr == fresh.nhdr && whole.body_len == fresh.body_len);
        CHECK(whole.state != RQ_ERROR || whole.err_status == fresh.err_status);
        request_fini(&fresh);
    }
    request_fini(&whole);
    request_fini(&slow);
    CHECK(atomic_load(&b.used) == 0);
}

static void
decode(const char *enc, const char *p, size_t n)
{
    struct http_budget b;
    size_t outlen = 0, charged = 0;
    char *out = NULL;
    int rc;

    atomic_init(&b.used, 0);
    b.limit = 256u << 10;
    rc = compress_decode(enc, p, n, DECODE_MAX, &b, &out, &outlen,
                         &charged);
    CHECK(rc <= DECODE_OK && rc >= DECODE_BUDGET);
    if (rc == DECODE_OK) {
        CHECK(outlen <= DECODE_MAX && out[outlen] == '\0');
        CHECK(atomic_load(&b.used) == charged);
        http_budget_give(&b, charged);
        free(out);
    }
    CHECK(atomic_load(&b.used) == 0);
}

static void
roundtrip(const char *p, size_t n)
{
    char *ae = xstrndup(p, n);
    enum http_coding c = compress_choose(ae), k;

    CHECK(c == CODING_NONE || c == CODING_GZIP || c == CODING_DEFLATE);
    for (k = CODING_GZIP; k <= CODING_DEFLATE; k++) {
        size_t zlen, outlen, charged;
        char *z = compress_body(k, p, n, &zlen), *out;

        CHECK(compress_decode(compress_name(k), z, zlen, n, NULL, &out,
                              &outlen, &charged) == DECODE_OK);
        CHECK(outlen == n && memcmp(out, p, n) == 0);
        free(out);
        free(z);
    }
    free(ae);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *p = (const char *)data + 1;

    if (size == 0)
        return 0;
    switch (data[0]) {
    case 'r':
        requests(p, size - 1);
        break;
    case 'g':
        decode("gzip", p, size - 1);
        break;
    case 'd':
        decode("deflate", p, size - 1);
        break;
    case 'a':
        roundtrip(p, size - 1);
        break;
    default:
        break;
    }
    return 0;
}
