/* SPDX-License-Identifier: MIT */
/* check_compress.c - content codings: the coding DynamoDB picks for each
 * Accept-Encoding it was tried with, compressing a response, and decoding
 * request bodies the way DynamoDB does (concatenated gzip members, junk
 * after a member, broken and empty streams, unknown codings), within the
 * 16 MB cap and the body budget. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "server/compress.h"
#include "storage/util.h"

/* Accept-Encoding -> DynamoDB's choice, as recorded by scylladb's
 * test_compressed_response.py (test_accept_encoding_header, run against
 * DynamoDB, 2025-12). */
static const struct {
    const char *ae;
    enum http_coding want;
} choose_cases[] = {
    { "identity", CODING_NONE },
    { "", CODING_NONE },
    { "br", CODING_NONE },
    { "zstd", CODING_NONE },
    { "compress", CODING_NONE },
    { "x-gzip", CODING_NONE },
    { "gzip", CODING_GZIP },
    { "deflate", CODING_DEFLATE },
    { "gzip, deflate", CODING_GZIP },
    { "br, identity, deflate, gzip", CODING_DEFLATE },
    { "GZIP, identity", CODING_GZIP },
    { "dog, gzip ,, cat", CODING_GZIP },
    { "gzip;q=0.8, deflate;q=0.5", CODING_GZIP },
    { "br, gzip;q=0, deflate; q = 0.5 , identity;q=0", CODING_DEFLATE },
    { "*", CODING_GZIP },
    { "*, deflate;q=0.5", CODING_GZIP },
    { "*, deflate", CODING_DEFLATE },
    { "*, identity", CODING_GZIP },
    { "*, gzip;q=0.5", CODING_DEFLATE },
    { "gzip ;q=0", CODING_NONE },
    { "identity;q=0", CODING_NONE },
    { "*;q=0", CODING_NONE },
    { "*;q=0.5,identity", CODING_GZIP },
    { "gzip;q=0.5,identity;q=0.8", CODING_GZIP },
    { "br;q=0.8,identity;q=0.5,*;q=0", CODING_NONE },
    { "\"gzip\"", CODING_NONE },
    { "gzip br", CODING_NONE },
    { "gzip:q=1", CODING_NONE },
    { "deflate;q=0.5, gzip;q=31", CODING_GZIP },
    { "gzip;q=31,deflate;q=51", CODING_GZIP },
    { "deflate;q=0.5, gzip;q=0.2", CODING_DEFLATE },
    { "deflate;q=0.5, gzip;q=1;q=0.2", CODING_GZIP },
    { "deflate;q=0.5,gzip;q=0.", CODING_DEFLATE },
    { "deflate;q=0.5,gzip;q=0.x", CODING_GZIP },
    { "deflate;q=0.5,gzip;q=0. x", CODING_GZIP },
    { "deflate;q=-0.5,gzip;q=0.2", CODING_GZIP },
    { "gzip;q= 0;q=1", CODING_NONE },
    { "gzip;q =0;q=1", CODING_GZIP },
    { "gzip; q=0;q=1", CODING_NONE },
    { "gzip;nq=0;q=1", CODING_NONE },
    { "gzip;q=0, gzip;q=1, gzip;q=0", CODING_GZIP },
    { "br,identity;q=0.5,gzip;q=0.0001", CODING_GZIP },
};

START_TEST(test_compress_choose)
{
    enum http_coding got = compress_choose(choose_cases[_i].ae);

    ck_assert_msg(got == choose_cases[_i].want, "Accept-Encoding '%s': got "
                  "%d, DynamoDB chose %d", choose_cases[_i].ae, got,
                  choose_cases[_i].want);
}
END_TEST

START_TEST(test_compress_choose_null)
{
    ck_assert_int_eq(compress_choose(NULL), CODING_NONE);
    ck_assert_str_eq(compress_name(CODING_GZIP), "gzip");
    ck_assert_str_eq(compress_name(CODING_DEFLATE), "deflate");
    ck_assert_ptr_null(compress_name(CODING_NONE));
}
END_TEST

/* Text that compresses: a JSON-ish repetition. */
static char *
sample(size_t n)
{
    char *s = xmalloc(n + 1);
    size_t i;

    for (i = 0; i < n; i++)
        s[i] = "{\"pk\": {\"S\": \"abc\"}}"[i % 20];
    s[n] = '\0';
    return s;
}

/* Compress with c, decode with enc, compare. */
static void
roundtrip(enum http_coding c, const char *enc, size_t n)
{
    char *in = sample(n), *z, *out;
    size_t zlen, outlen, charged;

    z = compress_body(c, in, n, &zlen);
    ck_assert_uint_lt(zlen, n);
    if (c == CODING_GZIP)
        ck_assert(zlen >= 2 && (unsigned char)z[0] == 0x1f &&
                  (unsigned char)z[1] == 0x8b);
    ck_assert_int_eq(compress_decode(enc, z, zlen, HTTP_BODY_MAX, NULL,
                                     &out, &outlen, &charged), DECODE_OK);
    ck_assert_uint_eq(outlen, n);
    ck_assert(memcmp(out, in, n) == 0);
    ck_assert_int_eq(out[n], '\0');
    free(out);
    free(z);
    free(in);
}

START_TEST(test_compress_roundtrip)
{
    roundtrip(CODING_GZIP, "gzip", 5000);
    roundtrip(CODING_GZIP, " GZIP ", 300000);   /* several buffers */
    roundtrip(CODING_DEFLATE, "deflate", 5000);
    roundtrip(CODING_DEFLATE, "Deflate", 300000);
}
END_TEST

static int
decode(const char *enc, const char *in, size_t len, char **out,
       size_t *outlen)
{
    size_t charged;

    *out = NULL;
    return compress_decode(enc, in, len, HTTP_BODY_MAX, NULL, out, outlen,
                           &charged);
}

/* DynamoDB: 500 for these (scylladb test_compressed_request.py). */
START_TEST(test_compress_decode_refused)
{
    const char *json = "{\"TableName\": \"t\"}";
    char *z, *out;
    size_t zlen, outlen;

    z = compress_body(CODING_GZIP, json, strlen(json), &zlen);
    ck_assert_int_eq(decode("garbage", z, zlen, &out, &outlen),
                     DECODE_UNSUPPORTED);
    ck_assert_int_eq(decode("gzip, gzip", z, zlen, &out, &outlen),
                     DECODE_UNSUPPORTED);
    ck_assert_int_eq(decode("x-gzip", z, zlen, &out, &outlen),
                     DECODE_UNSUPPORTED);
    ck_assert_int_eq(decode("br", z, zlen, &out, &outlen),
                     DECODE_UNSUPPORTED);
    /* not compressed at all, empty, cut short by a byte */
    ck_assert_int_eq(decode("gzip", json, strlen(json), &out, &outlen),
                     DECODE_BROKEN);
    ck_assert_int_eq(decode("deflate", json, strlen(json), &out, &outlen),
                     DECODE_BROKEN);
    ck_assert_int_eq(decode("gzip", "", 0, &out, &outlen), DECODE_BROKEN);
    ck_assert_int_eq(decode("deflate", "", 0, &out, &outlen), DECODE_BROKEN);
    ck_assert_int_eq(decode("gzip", z, zlen - 1, &out, &outlen),
                     DECODE_BROKEN);
    /* a corrupt CRC in the gzip trailer */
    z[zlen - 8] ^= 0x55;
    ck_assert_int_eq(decode("gzip", z, zlen, &out, &outlen), DECODE_BROKEN);
    free(z);
    z = compress_body(CODING_DEFLATE, json, strlen(json), &zlen);
    ck_assert_int_eq(decode("deflate", z, zlen - 1, &out, &outlen),
                     DECODE_BROKEN);
    ck_assert_int_eq(decode("gzip", z, zlen, &out, &outlen), DECODE_BROKEN);
    free(z);
}
END_TEST

/* DynamoDB: two gzip members are one body; junk after a member is ignored
 * (its test_gzip_request_with_extra_junk "fails" on DynamoDB: 200); what
 * follows a zlib stream is ignored (two deflates are not one body). */
START_TEST(test_compress_decode_concatenated)
{
    const char *a = "{\"TableName\": ", *b = "\"t\"}";
    char *za, *zb, *buf, *out;
    size_t la, lb, outlen;

    za = compress_body(CODING_GZIP, a, strlen(a), &la);
    zb = compress_body(CODING_GZIP, b, strlen(b), &lb);
    buf = xmalloc(la + lb + 4);
    memcpy(buf, za, la);
    memcpy(buf + la, zb, lb);
    ck_assert_int_eq(decode("gzip", buf, la + lb, &out, &outlen), DECODE_OK);
    ck_assert_str_eq(out, "{\"TableName\": \"t\"}");
    free(out);
    memcpy(buf + la, "junk", 4);
    ck_assert_int_eq(decode("gzip", buf, la + 4, &out, &outlen), DECODE_OK);
    ck_assert_str_eq(out, a);
    free(out);
    /* another member's header, then broken data: refused */
    memcpy(buf + la, zb, lb);
    buf[la + 12] ^= 0x7f;
    buf[la + 13] ^= 0x7f;
    ck_assert_int_eq(decode("gzip", buf, la + lb, &out, &outlen),
                     DECODE_BROKEN);
    free(za);
    free(zb);
    za = compress_body(CODING_DEFLATE, a, strlen(a), &la);
    zb = compress_body(CODING_DEFLATE, b, strlen(b), &lb);
    memcpy(buf, za, la);
    memcpy(buf + la, zb, lb);
    ck_assert_int_eq(decode("deflate", buf, la + lb, &out, &outlen),
                     DECODE_OK);
    ck_assert_str_eq(out, a);
    free(out);
    free(za);
    free(zb);
    free(buf);
}
END_TEST

/* A small body that decodes to more than 16 MB is refused without ever
 * holding more than the cap (a decompression bomb); the budget holds. */
START_TEST(test_compress_decode_bomb)
{
    size_t n = 20u << 20, zlen, outlen, charged;
    char *zeros = xcalloc(1, n), *z, *out;
    struct http_budget b;

    z = compress_body(CODING_GZIP, zeros, n, &zlen);
    free(zeros);
    ck_assert_uint_lt(zlen, 64 * 1024);
    ck_assert_int_eq(compress_decode("gzip", z, zlen, HTTP_BODY_MAX, NULL,
                                     &out, &outlen, &charged),
                     DECODE_TOO_LARGE);
    ck_assert_int_eq(compress_decode("gzip", z, zlen, n, NULL, &out,
                                     &outlen, &charged), DECODE_OK);
    ck_assert_uint_eq(outlen, n);
    free(out);
    atomic_init(&b.used, 0);
    b.limit = 1 << 20;
    ck_assert_int_eq(compress_decode("gzip", z, zlen, HTTP_BODY_MAX, &b,
                                     &out, &outlen, &charged),
                     DECODE_BUDGET);
    ck_assert_uint_eq(atomic_load(&b.used), 0);
    b.limit = 0;
    ck_assert_int_eq(compress_decode("gzip", z, zlen, n, &b, &out, &outlen,
                                     &charged), DECODE_OK);
    ck_assert_uint_eq(atomic_load(&b.used), charged);
    ck_assert_uint_ge(charged + HTTP_BODY_FREE, n + 1);
    http_budget_give(&b, charged);
    free(out);
    free(z);
}
END_TEST

static Suite *
compress_suite(void)
{
    Suite *s = suite_create("compress");
    TCase *tc = tcase_create("accept-encoding");

    tcase_add_loop_test(tc, test_compress_choose, 0,
                        (int)(sizeof(choose_cases) / sizeof(choose_cases[0])));
    tcase_add_test(tc, test_compress_choose_null);
    suite_add_tcase(s, tc);
    tc = tcase_create("codings");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_compress_roundtrip);
    tcase_add_test(tc, test_compress_decode_refused);
    tcase_add_test(tc, test_compress_decode_concatenated);
    tcase_add_test(tc, test_compress_decode_bomb);
    suite_add_tcase(s, tc);
    return s;
}

int
main(void)
{
    SRunner *sr = srunner_create(compress_suite());
    int failed;

    srunner_run_all(sr, CK_ENV);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
