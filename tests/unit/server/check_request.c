/* SPDX-License-Identifier: MIT */
/* check_request.c - reading HTTP/1.1 requests from bytes: the head and
 * DynamoDB's 16 KB limits, framing (Content-Length, chunked, both at
 * once), malformed input, pipelining, feeding a byte at a time, and the
 * body budget. */
#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/request.h"
#include "storage/util.h"

/* Feed all of s (n bytes) at once; returns the bytes used. */
static size_t
feed(struct http_request *rq, const char *s, size_t n)
{
    return request_feed(rq, s, n);
}

static size_t
feed_str(struct http_request *rq, const char *s)
{
    return feed(rq, s, strlen(s));
}

/* Expect s to end in RQ_ERROR with status. */
static void
expect_error(const char *s, size_t n, unsigned status, const char *msg)
{
    struct http_request rq;

    request_init(&rq, NULL);
    feed(&rq, s, n);
    ck_assert_msg(rq.state == RQ_ERROR, "%.60s: state %d", s, rq.state);
    ck_assert_uint_eq(rq.err_status, status);
    if (msg != NULL)
        ck_assert_str_eq(rq.err_msg, msg);
    ck_assert(!rq.keep_alive);
    request_fini(&rq);
}

static void
expect_error_str(const char *s, unsigned status, const char *msg)
{
    expect_error(s, strlen(s), status, msg);
}

START_TEST(test_request_simple_get)
{
    struct http_request rq;
    const char *s = "GET /shardlocal?n=3 HTTP/1.1\r\nHost: 127.0.0.1:8000\r\n"
                    "X-Empty:\r\nAccept-Encoding:  gzip ,deflate \r\n\r\n";

    request_init(&rq, NULL);
    ck_assert_uint_eq(feed_str(&rq, s), strlen(s));
    ck_assert_int_eq(rq.state, RQ_DONE);
    ck_assert_str_eq(rq.method, "GET");
    ck_assert_str_eq(rq.target, "/shardlocal?n=3");
    ck_assert_uint_eq(rq.minor, 1);
    ck_assert(rq.keep_alive);
    ck_assert_str_eq(request_header(&rq, "host"), "127.0.0.1:8000");
    ck_assert_str_eq(request_header(&rq, "x-empty"), "");
    ck_assert_str_eq(request_header(&rq, "ACCEPT-ENCODING"), "gzip ,deflate");
    ck_assert(request_header_has(&rq, "Accept-Encoding", "deflate"));
    ck_assert(!request_header_has(&rq, "Accept-Encoding", "br"));
    ck_assert_ptr_null(request_header(&rq, "Content-Length"));
    ck_assert_uint_eq(rq.body_len, 0);
    request_fini(&rq);
}
END_TEST

/* Bare LF line ends and a blank line before the request (RFC 9112 2.2);
 * HTTP/1.0 closes unless asked to keep alive. */
START_TEST(test_request_lenient_and_http10)
{
    struct http_request rq;

    request_init(&rq, NULL);
    feed_str(&rq, "\r\nGET / HTTP/1.0\nConnection: Keep-Alive\n\n");
    ck_assert_int_eq(rq.state, RQ_DONE);
    ck_assert_uint_eq(rq.minor, 0);
    ck_assert(rq.keep_alive);
    request_fini(&rq);

    request_init(&rq, NULL);
    feed_str(&rq, "GET / HTTP/1.0\r\n\r\n");
    ck_assert_int_eq(rq.state, RQ_DONE);
    ck_assert(!rq.keep_alive);
    request_fini(&rq);

    request_init(&rq, NULL);
    feed_str(&rq, "GET / HTTP/1.1\r\nHost: h\r\nConnection: x, close\r\n\r\n");
    ck_assert_int_eq(rq.state, RQ_DONE);
    ck_assert(!rq.keep_alive);
    request_fini(&rq);
}
END_TEST

/* A Content-Length body; the next request's bytes are left alone. */
START_TEST(test_request_pipelined)
{
    struct http_request rq;
    const char *s = "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\n\r\n{}"
                    "GET / HTTP/1.1\r\nHost: h\r\n\r\n";
    size_t used;

    request_init(&rq, NULL);
    used = feed_str(&rq, s);
    ck_assert_int_eq(rq.state, RQ_DONE);
    ck_assert_str_eq(rq.body, "{}");
    ck_assert_uint_eq(rq.body_len, 2);
    ck_assert_str_eq(s + used, "GET / HTTP/1.1\r\nHost: h\r\n\r\n");
    request_fini(&rq);
    request_init(&rq, NULL);
    ck_assert_uint_eq(feed_str(&rq, s + used), strlen(s + used));
    ck_assert_int_eq(rq.state, RQ_DONE);
    ck_assert_str_eq(rq.method, "GET");
    request_fini(&rq);
}
END_TEST

/* request_reset() between a connection's requests: the next one starts
 * from nothing (no header, body or framing of the last) in the head buffer
 * it keeps, unless that buffer grew past 4 KB. */
START_TEST(test_request_reset)
{
    struct http_request rq;
    const char *first = "POST /a HTTP/1.1\r\nHost: h\r\nX-One: 1\r\n"
                        "Content-Length: 2\r\n\r\n{}";
    const char *second = "GET / HTTP/1.0\r\n\r\n";
    char *head, big[6000];

    request_init(&rq, NULL);
    ck_assert_uint_eq(feed_str(&rq, first), strlen(first));
    ck_assert_int_eq(rq.state, RQ_DONE);
    head = rq.head;
    request_reset(&rq);
    ck_assert_ptr_eq(rq.head, head);
    ck_assert_uint_eq(feed_str(&rq, second), strlen(second));
    ck_assert_int_eq(rq.state, RQ_DONE);
    ck_assert_str_eq(rq.method, "GET");
    ck_assert_str_eq(rq.target, "/");
    ck_assert_uint_eq(rq.minor, 0);
    ck_assert_uint_eq(rq.nhdr, 0);
    ck_assert_ptr_null(request_header(&rq, "X-One"));
    ck_assert_ptr_null(rq.body);
    ck_assert_uint_eq(rq.body_len, 0);
    ck_assert(!rq.keep_alive);
    request_reset(&rq);
    snprintf(big, sizeof(big), "GET / HTTP/1.1\r\nHost: h\r\nX-Big: %0*d"
             "\r\n\r\n", 5000, 0);
    ck_assert_uint_eq(feed_str(&rq, big), strlen(big));
    ck_assert_int_eq(rq.state, RQ_DONE);
    request_reset(&rq);
    ck_assert_ptr_null(rq.head);
    ck_assert_uint_eq(feed_str(&rq, second), strlen(second));
    ck_assert_int_eq(rq.state, RQ_DONE);
    request_fini(&rq);
}
END_TEST

/* The same request fed whole and a byte at a time reads the same. */
START_TEST(test_request_byte_at_a_time)
{
    static const char s[] =
        "POST /x HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n"
        "Expect: 100-continue\r\n\r\n"
        "4;name=value\r\nabcd\r\n1\r\ne\r\n0\r\nTrailer: t\r\n\r\nNEXT";
    struct http_request whole, slow;
    size_t i, used = 0;

    request_init(&whole, NULL);
    ck_assert_uint_eq(feed(&whole, s, sizeof(s) - 1), sizeof(s) - 5);
    ck_assert_int_eq(whole.state, RQ_DONE);
    ck_assert_str_eq(whole.body, "abcde");
    ck_assert(whole.chunked);
    ck_assert(whole.expect_continue);

    request_init(&slow, NULL);
    for (i = 0; i < sizeof(s) - 1 && slow.state != RQ_DONE; i++) {
        used += feed(&slow, s + i, 1);
        if (slow.state == RQ_HEAD)
            ck_assert(!request_wants_body(&slow));
    }
    ck_assert_int_eq(slow.state, RQ_DONE);
    ck_assert_uint_eq(used, sizeof(s) - 5);
    ck_assert_str_eq(slow.body, whole.body);
    request_fini(&whole);
    request_fini(&slow);
}
END_TEST

/* A request line and a header section of exactly 16 KB pass; a byte more
 * is 400 (DynamoDB: 400 for a 17,000-byte URL or header). */
START_TEST(test_request_head_limits)
{
    struct http_request rq;
    struct strbuf b = { 0 };
    size_t pad;

    /* "GET /xxx HTTP/1.1" of exactly HTTP_LINE_MAX bytes */
    strbuf_puts(&b, "GET /");
    for (pad = strlen("GET /") + strlen(" HTTP/1.1"); pad < HTTP_LINE_MAX;
         pad++)
        strbuf_putc(&b, 'x');
    strbuf_puts(&b, " HTTP/1.1\r\nHost: h\r\n\r\n");
    request_init(&rq, NULL);
    feed(&rq, b.s, b.len);
    ck_assert_int_eq(rq.state, RQ_DONE);
    request_fini(&rq);
    /* one more byte in the URL */
    strbuf_free(&b);
    strbuf_puts(&b, "GET /");
    for (pad = 0; pad < HTTP_LINE_MAX; pad++)
        strbuf_putc(&b, 'x');
    strbuf_puts(&b, " HTTP/1.1\r\nHost: h\r\n\r\n");
    expect_error(b.s, b.len, 400, "Request line too long");
    /* ... even before its end arrives */
    expect_error(b.s, HTTP_LINE_MAX + 10, 400, "Request line too long");
    strbuf_free(&b);

    /* headers: "Host: h\r\n" + "X: vvv\r\n" = exactly HTTP_HEADERS_MAX */
    strbuf_puts(&b, "GET / HTTP/1.1\r\nHost: h\r\nX: ");
    for (pad = strlen("Host: h\r\nX: \r\n"); pad < HTTP_HEADERS_MAX; pad++)
        strbuf_putc(&b, 'v');
    strbuf_puts(&b, "\r\n\r\n");
    request_init(&rq, NULL);
    feed(&rq, b.s, b.len);
    ck_assert_int_eq(rq.state, RQ_DONE);
    request_fini(&rq);
    strbuf_free(&b);
    strbuf_puts(&b, "GET / HTTP/1.1\r\nHost: h\r\nX: ");
    for (pad = strlen("Host: h\r\nX: \r\n"); pad <= HTTP_HEADERS_MAX; pad++)
        strbuf_putc(&b, 'v');
    strbuf_puts(&b, "\r\n\r\n");
    expect_error(b.s, b.len, 400, "Request header fields too large");
    strbuf_free(&b);
    /* many small headers add up */
    strbuf_puts(&b, "GET / HTTP/1.1\r\nHost: h\r\n");
    for (pad = 0; pad < 4000; pad++)
        strbuf_puts(&b, "a: b\r\n");
    strbuf_puts(&b, "\r\n");
    expect_error(b.s, b.len, 400, "Request header fields too large");
    strbuf_free(&b);
}
END_TEST

START_TEST(test_request_malformed)
{
    static const char nul_header[] = "GET / HTTP/1.1\r\nHost: h\r\nX: a\0b\r\n"
                                     "\r\n";

    expect_error_str("GARBAGE\r\n\r\n", 400, "Malformed request line");
    expect_error_str("GET\r\n\r\n", 400, "Malformed request line");
    expect_error_str("GET /\r\n\r\n", 400, "Malformed request line");
    expect_error_str("\x01\x02 / HTTP/1.1\r\n\r\n", 400,
                     "Malformed request line");
    expect_error_str("GET  / HTTP/1.1\r\nHost: h\r\n\r\n", 400,
                     "Malformed request line");
    expect_error_str("GET /a\x7f HTTP/1.1\r\nHost: h\r\n\r\n", 400,
                     "Malformed request line");
    expect_error_str("GET / HTTP/2.0\r\nHost: h\r\n\r\n", 400,
                     "Unsupported HTTP version");
    expect_error_str("GET / http/1.1\r\nHost: h\r\n\r\n", 400,
                     "Unsupported HTTP version");
    expect_error_str("GET / HTTP/1.1\rX\r\nHost: h\r\n\r\n", 400,
                     "Malformed request line");
    expect_error_str("GET / HTTP/1.1\r\n\r\n", 400, "Missing Host header");
    expect_error_str("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400,
                     "More than one Host header");
    expect_error_str("GET / HTTP/1.1\r\nHost : h\r\n\r\n", 400,
                     "Malformed header line");
    expect_error_str("GET / HTTP/1.1\r\nHost: h\r\nNoColon\r\n\r\n", 400,
                     "Malformed header line");
    expect_error_str("GET / HTTP/1.1\r\nHost: h\r\nX: a\r\n b\r\n\r\n", 400,
                     "Obsolete line folding");
    expect_error(nul_header, sizeof(nul_header) - 1, 400,
                 "Malformed header line");
    expect_error_str("GET / HTTP/1.1\r\nHost: h\r\nX: a\x01\r\n\r\n", 400,
                     "Malformed header line");
    expect_error_str("\r\n\r\n\r\n\r\n\r\n\r\n\r\n\r\n\r\nGET / HTTP/1.1\r\n"
                     "Host: h\r\n\r\n", 400, "Malformed request line");
}
END_TEST

/* Header value bytes, checked eight at a time: each byte value at each
 * position of a 40-byte value (every offset within a word, and the tail)
 * is refused exactly when it is a control character other than tab, or
 * DEL. */
START_TEST(test_request_field_bytes)
{
    static const unsigned char bytes[] = {
        0x01, 0x08, 0x09, 0x0b, 0x1f, 0x20, 0x21, 0x7e, 0x7f, 0x80, 0xa0,
        0xff,
    };

    for (size_t b = 0; b < sizeof(bytes); b++) {
        bool ok = bytes[b] == 0x09 || (bytes[b] >= 0x20 && bytes[b] != 0x7f);

        for (int pos = 0; pos < 40; pos++) {
            char buf[128], value[41];
            struct http_request rq;

            memset(value, 'v', 40);
            value[40] = '\0';
            value[pos] = (char)bytes[b];
            snprintf(buf, sizeof(buf), "GET / HTTP/1.1\r\nHost: h\r\n"
                     "X: %s\r\n\r\n", value);
            request_init(&rq, NULL);
            feed_str(&rq, buf);
            if (ok) {
                ck_assert_msg(rq.state == RQ_DONE, "byte 0x%02x at %d: %d",
                              bytes[b], pos, rq.state);
            } else {
                ck_assert_msg(rq.state == RQ_ERROR, "byte 0x%02x at %d",
                              bytes[b], pos);
                ck_assert_str_eq(rq.err_msg, "Malformed header line");
            }
            request_fini(&rq);
        }
    }
}
END_TEST

/* Header name bytes: each of the 256 is taken exactly when it is one of
 * RFC 9110's tchar (letters, digits and !#$%&'*+-.^_`|~). */
START_TEST(test_request_name_bytes)
{
    static const char symbols[] = "!#$%&'*+-.^_`|~";

    for (int c = 0; c < 256; c++) {
        bool ok = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
                  (c >= 'A' && c <= 'Z') ||
                  (c != 0 && strchr(symbols, c) != NULL);
        char buf[64];
        struct http_request rq;
        int n;

        if (c == ':' || c == '\r' || c == '\n')
            continue;                   /* they end the name or the line */
        n = snprintf(buf, sizeof(buf), "GET / HTTP/1.1\r\nHost: h\r\n"
                     "X%cY: v\r\n\r\n", c == 0 ? '@' : c);
        if (c == 0)
            buf[n - 9] = '\0';          /* X\0Y, fed by length */
        request_init(&rq, NULL);
        feed(&rq, buf, (size_t)n);
        if (ok)
            ck_assert_msg(rq.state == RQ_DONE, "byte 0x%02x: %d", c,
                          rq.state);
        else
            ck_assert_msg(rq.state == RQ_ERROR, "byte 0x%02x", c);
        request_fini(&rq);
    }
}
END_TEST

/* RFC 9112 6.1: both framings at once are refused and the connection
 * closed; so are other transfer codings and a bad Content-Length. */
START_TEST(test_request_framing)
{
    struct http_request rq;
    char big[96];

    expect_error_str("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\n"
                     "Transfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n",
                     400, "Content-Length with Transfer-Encoding");
    expect_error_str("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip, "
                     "chunked\r\n\r\n", 400, "Unsupported Transfer-Encoding");
    expect_error_str("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: "
                     "chunked\r\nTransfer-Encoding: chunked\r\n\r\n", 400,
                     "Unsupported Transfer-Encoding");
    expect_error_str("POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n",
                     400, "Transfer-Encoding in an HTTP/1.0 request");
    expect_error_str("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1x\r\n"
                     "\r\n", 400, "Malformed Content-Length");
    expect_error_str("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: -1\r\n"
                     "\r\n", 400, "Malformed Content-Length");
    expect_error_str("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\n"
                     "Content-Length: 3\r\n\r\n", 400,
                     "Conflicting Content-Length headers");
    /* over 16 MB: 413 before any of the body is read */
    snprintf(big, sizeof(big), "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: "
             "%u\r\n\r\n", HTTP_BODY_MAX + 1);
    expect_error_str(big, 413, "Request entity too large");
    expect_error_str("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: "
                     "99999999999999999999999999\r\n\r\n", 413, NULL);
    /* exactly 16 MB is taken (the same value twice is fine too) */
    snprintf(big, sizeof(big), "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: "
             "%u\r\ncontent-length: %u\r\n\r\n", HTTP_BODY_MAX, HTTP_BODY_MAX);
    request_init(&rq, NULL);
    feed_str(&rq, big);
    ck_assert_int_eq(rq.state, RQ_BODY);
    ck_assert(request_wants_body(&rq));
    ck_assert_uint_eq(rq.expected, HTTP_BODY_MAX);
    request_fini(&rq);
}
END_TEST

START_TEST(test_request_chunked)
{
    struct http_request rq;
    const char *head = "POST / HTTP/1.1\r\nHost: h\r\n"
                       "Transfer-Encoding: Chunked\r\n\r\n";
    char buf[256];

    /* a chunk size of 2^64-1: over 16 MB, refused as soon as it is read */
    snprintf(buf, sizeof(buf), "%sFFFFFFFFFFFFFFFF\r\nabc", head);
    expect_error_str(buf, 413, "Request entity too large");
    /* 17 digits cannot be a size at all */
    snprintf(buf, sizeof(buf), "%s00000000000000001\r\na\r\n", head);
    expect_error_str(buf, 400, "Malformed chunked encoding");
    snprintf(buf, sizeof(buf), "%sZZ\r\n", head);
    expect_error_str(buf, 400, "Malformed chunked encoding");
    snprintf(buf, sizeof(buf), "%s\r\n", head);
    expect_error_str(buf, 400, "Malformed chunked encoding");
    snprintf(buf, sizeof(buf), "%s;ext\r\n", head);
    expect_error_str(buf, 400, "Malformed chunked encoding");
    snprintf(buf, sizeof(buf), "%s2\r\nabc\r\n", head);      /* no CRLF */
    expect_error_str(buf, 400, "Malformed chunked encoding");
    snprintf(buf, sizeof(buf), "%s2\rX", head);
    expect_error_str(buf, 400, "Malformed chunked encoding");
    snprintf(buf, sizeof(buf), "%s0\r\nBad\x01: x\r\n\r\n", head);
    expect_error_str(buf, 400, "Malformed header line");

    /* upper- and lower-case hex, an extension, a bare LF */
    request_init(&rq, NULL);
    snprintf(buf, sizeof(buf), "%sa\r\n0123456789\r\nB ; x=\"y\"\n"
             "abcdefghijk\n0\r\n\r\n", head);
    ck_assert_uint_eq(feed_str(&rq, buf), strlen(buf));
    ck_assert_int_eq(rq.state, RQ_DONE);
    ck_assert_str_eq(rq.body, "0123456789abcdefghijk");
    request_fini(&rq);
}
END_TEST

/* Chunks that add up past 16 MB: 413 at the chunk that would cross. */
START_TEST(test_request_chunked_total)
{
    struct http_request rq;
    const char *head = "POST / HTTP/1.1\r\nHost: h\r\n"
                       "Transfer-Encoding: chunked\r\n\r\n";
    char line[32];
    char *data = xcalloc(1, 1 << 20);
    int i;

    memset(data, 'a', 1 << 20);
    request_init(&rq, NULL);
    feed_str(&rq, head);
    for (i = 0; i < 16; i++) {
        snprintf(line, sizeof(line), "%x\r\n", 1 << 20);
        feed_str(&rq, line);
        feed(&rq, data, 1 << 20);
        feed_str(&rq, "\r\n");
        ck_assert_int_eq(rq.state, RQ_CHUNK_SIZE);
    }
    ck_assert_uint_eq(rq.body_len, HTTP_BODY_MAX);
    feed_str(&rq, "1\r\n");
    ck_assert_int_eq(rq.state, RQ_ERROR);
    ck_assert_uint_eq(rq.err_status, 413);
    request_fini(&rq);
    free(data);
}
END_TEST

/* Bodies are charged to the budget as their buffer grows past its first
 * 64 KB; past the limit the request is refused with 503; the budget comes
 * back on fini. */
START_TEST(test_request_budget)
{
    struct http_budget b;
    struct http_request rq, rq2;
    char head[128];
    char *data = xcalloc(1, 300000);

    atomic_init(&b.used, 0);
    b.limit = 200 * 1024;
    snprintf(head, sizeof(head), "POST / HTTP/1.1\r\nHost: h\r\n"
             "Content-Length: %d\r\n\r\n", 300000);
    request_init(&rq, &b);
    feed_str(&rq, head);
    feed(&rq, data, 100000);
    ck_assert_int_eq(rq.state, RQ_BODY);
    ck_assert_uint_ge(rq.body_cap, 100001);
    ck_assert_uint_eq(atomic_load(&b.used), rq.body_cap - HTTP_BODY_FREE);
    feed(&rq, data, 200000);
    ck_assert_int_eq(rq.state, RQ_ERROR);
    ck_assert_uint_eq(rq.err_status, 503);
    /* a second request fits what the first holds no more */
    request_init(&rq2, &b);
    snprintf(head, sizeof(head), "POST / HTTP/1.1\r\nHost: h\r\n"
             "Content-Length: %d\r\n\r\n", 250000);
    feed_str(&rq2, head);
    feed(&rq2, data, 250000);
    ck_assert_int_eq(rq2.state, RQ_ERROR);
    request_fini(&rq);
    ck_assert_uint_eq(atomic_load(&b.used), 0);
    request_fini(&rq2);
    request_init(&rq2, &b);
    feed_str(&rq2, head);
    feed(&rq2, data, 250000);
    ck_assert_int_eq(rq2.state, RQ_DONE);
    ck_assert_uint_eq(rq2.body_cap, 250001);   /* never past the length */
    ck_assert_uint_eq(atomic_load(&b.used), 250001 - HTTP_BODY_FREE);
    request_fini(&rq2);
    ck_assert_uint_eq(atomic_load(&b.used), 0);
    free(data);
}
END_TEST

/* Mutated requests fed in random pieces never crash, never read past
 * what they are given, and always end in a state that says what to do
 * (run under ASan by docker/build.sh --enable-asan). */
START_TEST(test_request_mutations)
{
    static const char base[] =
        "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n"
        "Content-Type: application/x-amz-json-1.0\r\n\r\n"
        "4;e=1\r\n{\"a\"\r\n3\r\n:1}\r\n0\r\nT: x\r\n\r\n";
    static const char bytes[] = "\r\n :;0123456789abcdefABCDEF\t\x00\x7f\xff";
    unsigned seed = 12345;
    int iter;

    for (iter = 0; iter < 20000; iter++) {
        char buf[sizeof(base) + 16];
        size_t n = sizeof(base) - 1, off = 0;
        struct http_request rq;
        int m, k;

        memcpy(buf, base, n);
        for (m = 0; m < 1 + iter % 4; m++) {
            seed = seed * 1103515245 + 12345;
            k = (int)((seed >> 8) % n);
            seed = seed * 1103515245 + 12345;
            buf[k] = bytes[(seed >> 8) % (sizeof(bytes) - 1)];
        }
        if (iter % 7 == 0)
            n = (seed >> 4) % n;        /* cut short */
        request_init(&rq, NULL);
        while (off < n && rq.state != RQ_DONE && rq.state != RQ_ERROR) {
            size_t piece, used;

            seed = seed * 1103515245 + 12345;
            piece = 1 + (seed >> 8) % 9;
            if (piece > n - off)
                piece = n - off;
            used = request_feed(&rq, buf + off, piece);
            ck_assert_uint_le(used, piece);
            off += used;
            if (used < piece)
                break;
        }
        ck_assert(rq.state <= RQ_ERROR);
        if (rq.state == RQ_ERROR)
            ck_assert(rq.err_status == 400 || rq.err_status == 413);
        if (rq.state == RQ_DONE && rq.body != NULL)
            ck_assert_int_eq(rq.body[rq.body_len], '\0');
        request_fini(&rq);
    }
}
END_TEST

static Suite *
request_suite(void)
{
    Suite *s = suite_create("request");
    TCase *tc = tcase_create("parse");

    tcase_add_test(tc, test_request_simple_get);
    tcase_add_test(tc, test_request_lenient_and_http10);
    tcase_add_test(tc, test_request_pipelined);
    tcase_add_test(tc, test_request_reset);
    tcase_add_test(tc, test_request_byte_at_a_time);
    suite_add_tcase(s, tc);
    tc = tcase_create("limits");
    tcase_set_timeout(tc, 60);          /* 20,000 mutations under ASan */
    tcase_add_test(tc, test_request_head_limits);
    tcase_add_test(tc, test_request_malformed);
    tcase_add_test(tc, test_request_field_bytes);
    tcase_add_test(tc, test_request_name_bytes);
    tcase_add_test(tc, test_request_framing);
    tcase_add_test(tc, test_request_chunked);
    tcase_add_test(tc, test_request_chunked_total);
    tcase_add_test(tc, test_request_budget);
    tcase_add_test(tc, test_request_mutations);
    suite_add_tcase(s, tc);
    return s;
}

int
main(void)
{
    SRunner *sr = srunner_create(request_suite());
    int failed;

    srunner_run_all(sr, CK_ENV);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
