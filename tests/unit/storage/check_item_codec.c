/* SPDX-License-Identifier: MIT */
/* check_item_codec.c - storage/item_codec.c: key value encoding (S, B, N),
 * base64, DynamoDB's key hash (and the scan orders recorded from
 * DynamoDB that it gives), and the property that memcmp order of
 * encodings is DynamoDB's order (av_compare) for random S, B and N values. */

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "api/proto/av.h"
#include "storage/storage.h"
#include "storage/util.h"

static long
enc(const char *json, uint8_t *out)
{
    json_error_t jerr;
    json_t *av = json_loads(json, JSON_ALLOW_NUL, &jerr);
    long n;

    ck_assert_msg(av != NULL, "bad test json %s", json);
    n = key_encode_value(av, out);
    json_decref(av);
    return n;
}

/* ------------------------------------------------------------------------
 * encode
 * ---------------------------------------------------------------------- */

START_TEST(test_item_codec_encode_s)
{
    uint8_t out[KEY_BYTES_MAX];

    ck_assert_int_eq(enc("{\"S\": \"abc\"}", out), 3);
    ck_assert_int_eq(memcmp(out, "abc", 3), 0);
    /* UTF-8 bytes, not characters: e-acute is 2 bytes, the emoji 4. */
    ck_assert_int_eq(enc("{\"S\": \"\\u00e9\\ud83d\\ude00\"}", out), 6);
    ck_assert_int_eq(out[0], 0xc3);
    ck_assert_int_eq(out[1], 0xa9);
    ck_assert_int_eq(out[2], 0xf0);
    /* Embedded NUL survives. */
    ck_assert_int_eq(enc("{\"S\": \"a\\u0000b\"}", out), 3);
    ck_assert_int_eq(out[1], 0);
}
END_TEST

START_TEST(test_item_codec_encode_b)
{
    uint8_t out[KEY_BYTES_MAX];

    ck_assert_int_eq(enc("{\"B\": \"YWJj\"}", out), 3);
    ck_assert_int_eq(memcmp(out, "abc", 3), 0);
    ck_assert_int_eq(enc("{\"B\": \"Yg==\"}", out), 1);
    ck_assert_int_eq(out[0], 'b');
    ck_assert_int_eq(enc("{\"B\": \"YWI=\"}", out), 2);
    ck_assert_int_eq(enc("{\"B\": \"/+8A\"}", out), 3);
    ck_assert_int_eq(out[0], 0xff);
    ck_assert_int_eq(out[1], 0xef);
    ck_assert_int_eq(out[2], 0x00);
    ck_assert_int_eq(enc("{\"B\": \"YWJ\"}", out), -1);
    ck_assert_int_eq(enc("{\"B\": \"Y!Jj\"}", out), -1);
}
END_TEST

/* item_b64_encode: RFC 4648's vectors, and every length back through the
 * decoder. */
START_TEST(test_item_codec_b64_encode)
{
    static const char *const vec[][2] = {
        { "", "" }, { "f", "Zg==" }, { "fo", "Zm8=" }, { "foo", "Zm9v" },
        { "foob", "Zm9vYg==" }, { "fooba", "Zm9vYmE=" },
        { "foobar", "Zm9vYmFy" },
    };
    uint8_t raw[64], back[64];
    char text[4 * sizeof(raw) / 3 + 8];
    size_t i, n;

    for (i = 0; i < sizeof(vec) / sizeof(vec[0]); i++) {
        item_b64_encode((const uint8_t *)vec[i][0], strlen(vec[i][0]), text);
        ck_assert_str_eq(text, vec[i][1]);
    }
    for (i = 0; i < sizeof(raw); i++)
        raw[i] = (uint8_t)(255 - i * 7);
    for (n = 0; n <= sizeof(raw); n++) {
        item_b64_encode(raw, n, text);
        ck_assert_uint_eq(strlen(text), 4 * ((n + 2) / 3));
        ck_assert_uint_eq(item_b64_len(text, strlen(text)), n);
        ck_assert_int_eq(item_b64_decode(text, strlen(text), back,
                                         sizeof(back)), (long)n);
        ck_assert_int_eq(memcmp(raw, back, n), 0);
    }
}
END_TEST

START_TEST(test_item_codec_encode_n)
{
    uint8_t a[KEY_BYTES_MAX], b[KEY_BYTES_MAX];
    long na, nb;

    na = enc("{\"N\": \"1.50\"}", a);
    nb = enc("{\"N\": \"1.5\"}", b);
    ck_assert_int_gt(na, 0);
    ck_assert_int_eq(na, nb);
    ck_assert_int_eq(memcmp(a, b, (size_t)na), 0);
    ck_assert_int_le(enc("{\"N\": \"-1.2345678901234567890123456789012345678e-130\"}", a),
                     NUM_KEY_MAX);
    ck_assert_int_eq(enc("{\"N\": \"abc\"}", a), -1);
}
END_TEST

START_TEST(test_item_codec_encode_bad)
{
    uint8_t out[KEY_BYTES_MAX];
    static const char *const bad[] = {
        "{}", "{\"SS\": [\"a\"]}", "{\"BOOL\": true}", "{\"S\": 5}",
        "{\"S\": \"a\", \"N\": \"1\"}", "[]", "{\"M\": {}}",
    };
    size_t i;

    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        ck_assert_msg(enc(bad[i], out) == -1, "%s", bad[i]);
    ck_assert_int_eq(key_encode_value(NULL, out), -1);
}
END_TEST

START_TEST(test_item_codec_encode_too_long)
{
    uint8_t out[KEY_BYTES_MAX];
    char *s = malloc(KEY_BYTES_MAX + 2);
    json_t *av;

    memset(s, 'x', KEY_BYTES_MAX + 1);
    s[KEY_BYTES_MAX + 1] = '\0';
    av = json_pack("{s:s}", "S", s);
    ck_assert_int_eq(key_encode_value(av, out), -1);
    json_decref(av);
    s[KEY_BYTES_MAX] = '\0';
    av = json_pack("{s:s}", "S", s);
    ck_assert_int_eq(key_encode_value(av, out), KEY_BYTES_MAX);
    json_decref(av);
    free(s);
}
END_TEST

/* ------------------------------------------------------------------------
 * hash
 * ---------------------------------------------------------------------- */

/* md5_bytes() is MD5: RFC 1321's test suite, and OpenSSL's digest of
 * every length from 0 to 300 bytes (one, two and several blocks, and
 * each padding case around 55, 56 and 64 bytes). */
START_TEST(test_item_codec_md5)
{
    static const struct { const char *in, *hex; } rfc[] = {
        { "", "d41d8cd98f00b204e9800998ecf8427e" },
        { "a", "0cc175b9c0f1b6a831c399e269772661" },
        { "abc", "900150983cd24fb0d6963f7d28e17f72" },
        { "message digest", "f96b697d7cb7938d525a2f31aaf161d0" },
        { "abcdefghijklmnopqrstuvwxyz", "c3fcd3d76192e4007dfb496cca67e13b" },
        { "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
          "d174ab98d277d9f5a5611c2c9f419d9f" },
        { "1234567890123456789012345678901234567890123456789012345678901234"
          "5678901234567890", "57edf4a22be3c955ac49da2e2107b67a" },
    };
    uint8_t buf[300], got[16], want[16];
    char hex[33];
    unsigned int len;

    for (size_t i = 0; i < sizeof(rfc) / sizeof(rfc[0]); i++) {
        md5_bytes(rfc[i].in, strlen(rfc[i].in), got);
        hex_encode(got, 16, hex);
        ck_assert_str_eq(hex, rfc[i].hex);
    }
    for (size_t i = 0; i < sizeof(buf); i++)
        buf[i] = (uint8_t)(i * 131 + 7);
    for (size_t n = 0; n <= sizeof(buf); n++) {
        ck_assert_int_eq(EVP_Digest(buf, n, want, &len, EVP_md5(), NULL), 1);
        md5_bytes(buf, n, got);
        ck_assert_msg(memcmp(got, want, 16) == 0, "length %zu", n);
    }
}
END_TEST

/* DynamoDB's key hash: MD5 of "Outliers" and the key's bytes (the values
 * below are MD5 itself, computed apart from the code). */
START_TEST(test_item_codec_hash)
{
    static const uint8_t md5_abc[16] = {        /* MD5("Outliersabc") */
        0x12, 0xdb, 0x4f, 0x35, 0x6e, 0xd3, 0x52, 0x85,
        0x1d, 0x5c, 0xa6, 0x98, 0xec, 0xe1, 0x90, 0x84,
    };
    static const uint8_t md5_empty[16] = {      /* MD5("Outliers") */
        0x65, 0xa4, 0xc0, 0x52, 0x94, 0xbe, 0x89, 0x32,
        0x05, 0x70, 0x45, 0x2e, 0xd0, 0x24, 0xfd, 0x8c,
    };
    struct item_key *k = calloc(1, sizeof(*k));
    uint8_t h[16];

    key_set(k, 'S', (const uint8_t *)"abc", 3, (const uint8_t *)"zz", 2);
    ck_assert_int_eq(memcmp(k->hash, md5_abc, 16), 0);
    ck_assert_uint_eq(k->pk_len, 3);
    ck_assert_uint_eq(k->sk_len, 2);
    ck_assert_int_eq(memcmp(k->pk, "abc", 3), 0);
    ck_assert_int_eq(memcmp(k->sk, "zz", 2), 0);
    ck_assert(key_hash64(k->hash) == UINT64_C(0x12db4f356ed35285));
    /* The sort key does not move the item; S, B and raw bytes hash the
     * same bytes. */
    key_set(k, 'S', (const uint8_t *)"abc", 3, NULL, 0);
    ck_assert_int_eq(memcmp(k->hash, md5_abc, 16), 0);
    ck_assert_uint_eq(k->sk_len, 0);
    key_pk_hash('B', (const uint8_t *)"abc", 3, h);
    ck_assert_int_eq(memcmp(h, md5_abc, 16), 0);
    key_pk_hash(0, (const uint8_t *)"abc", 3, h);
    ck_assert_int_eq(memcmp(h, md5_abc, 16), 0);
    key_set(k, 'S', (const uint8_t *)"", 0, NULL, 5);
    ck_assert_int_eq(memcmp(k->hash, md5_empty, 16), 0);
    ck_assert_uint_eq(k->sk_len, 0);
    free(k);
}
END_TEST

/* Number keys are hashed in DynamoDB's internal decimal form (base 100,
 * an exponent byte, a 102 terminator on short negatives): the bytes for
 * numbers across the range, written down from that description. */
static const struct {
    const char *n;
    size_t len;
    uint8_t b[NUM_HASH_MAX];
} num_hash_cases[] = {
    { "0", 1, { 0x80 } },
    { "1", 2, { 0xc1, 0x02 } },
    { "-1", 3, { 0x3e, 0x64, 0x66 } },
    { "10", 2, { 0xc1, 0x0b } },
    { "100", 2, { 0xc2, 0x02 } },
    { "-100", 3, { 0x3d, 0x64, 0x66 } },
    { "0.5", 2, { 0xc0, 0x33 } },
    { "999.9", 4, { 0xc2, 0x0a, 0x64, 0x5b } },
    { "-999.9", 5, { 0x3d, 0x5c, 0x02, 0x0b, 0x66 } },
    { "0.012345", 4, { 0xc0, 0x02, 0x18, 0x2e } },
    { "-0.09", 3, { 0x3f, 0x5c, 0x66 } },
    { "1E-130", 2, { 0x80, 0x02 } },
    { "-1E-130", 3, { 0x7f, 0x64, 0x66 } },
    { "12345678901234567890123456789012345678", 20,
      { 0xd3, 0x0d, 0x23, 0x39, 0x4f, 0x5b, 0x0d, 0x23, 0x39, 0x4f, 0x5b,
        0x0d, 0x23, 0x39, 0x4f, 0x5b, 0x0d, 0x23, 0x39, 0x4f } },
    { "-12345678901234567890123456789012345678", 21,
      { 0x2c, 0x59, 0x43, 0x2d, 0x17, 0x0b, 0x59, 0x43, 0x2d, 0x17, 0x0b,
        0x59, 0x43, 0x2d, 0x17, 0x0b, 0x59, 0x43, 0x2d, 0x17, 0x66 } },
    { "9.9999999999999999999999999999999999999E+125", 20,
      { 0xff, 0x64, 0x64, 0x64, 0x64, 0x64, 0x64, 0x64, 0x64, 0x64, 0x64,
        0x64, 0x64, 0x64, 0x64, 0x64, 0x64, 0x64, 0x64, 0x64 } },
    { "-9.9999999999999999999999999999999999999E+125", 21,
      { 0x00, 0x02, 0x02, 0x02, 0x02, 0x02, 0x02, 0x02, 0x02, 0x02, 0x02,
        0x02, 0x02, 0x02, 0x02, 0x02, 0x02, 0x02, 0x02, 0x02, 0x66 } },
};

START_TEST(test_item_codec_num_hashkey)
{
    uint8_t key[KEY_BYTES_MAX], out[NUM_HASH_MAX], h[16], want[16];
    uint8_t buf[8 + NUM_HASH_MAX];
    char json[NUM_TEXT_MAX + 16], canon[NUM_TEXT_MAX];
    size_t i = (size_t)_i, n;
    struct ddb_err e;
    long len;

    ddb_err_init(&e);
    ck_assert_int_eq(num_canonical(num_hash_cases[i].n, canon, &e), 0);
    snprintf(json, sizeof(json), "{\"N\": \"%s\"}", canon);
    len = enc(json, key);
    ck_assert_int_gt(len, 0);
    n = num_hashkey(key, (size_t)len, out);
    ck_assert_uint_eq(n, num_hash_cases[i].len);
    ck_assert_int_eq(memcmp(out, num_hash_cases[i].b, n), 0);
    /* and the key hash is MD5 of the prefix and these bytes */
    memcpy(buf, "Outliers", 8);
    memcpy(buf + 8, out, n);
    key_pk_hash(0, buf + 8, n, want);
    key_pk_hash('N', key, (size_t)len, h);
    ck_assert_int_eq(memcmp(h, want, 16), 0);
    /* not an encoding: hashed as raw bytes, never read past len */
    ck_assert_uint_eq(num_hashkey((const uint8_t *)"\x05", 1, out), 0);
}
END_TEST

/* The recorded scan orders (dynalite's test/scan.js "should return items
 * in string hash order" and "... number hash order", run against
 * DynamoDB): sorting by the top 64 bits of the key hash gives them. */
static int
hash_order(const char *const *keys, size_t n, char type,
           const char *const *want)
{
    uint64_t pos[16];
    size_t order[16];

    for (size_t i = 0; i < n; i++) {
        char json[160];
        uint8_t b[KEY_BYTES_MAX], h[16];
        long len;

        snprintf(json, sizeof(json), "{\"%c\": \"%s\"}", type, keys[i]);
        len = enc(json, b);
        ck_assert_int_gt(len, 0);
        key_pk_hash(type, b, (size_t)len, h);
        pos[i] = key_hash64(h);
        order[i] = i;
    }
    for (size_t i = 1; i < n; i++)          /* insertion sort by position */
        for (size_t j = i; j > 0 && pos[order[j]] < pos[order[j - 1]]; j--) {
            size_t t = order[j];

            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    for (size_t i = 0; i < n; i++)
        if (strcmp(keys[order[i]], want[i]) != 0)
            return (int)i + 1;
    return 0;
}

START_TEST(test_item_codec_recorded_order)
{
    static const char *const s[] = { "0", "1", "2", "3", "4", "5", "6", "7",
                                     "8", "9", "aardman", "hello", "zapf",
                                     "\u00e4\u00e1\u00f6\u00fc" };
    static const char *const s_want[] = {
        "2", "8", "9", "1", "6", "hello", "0", "5", "4",
        "\u00e4\u00e1\u00f6\u00fc", "aardman", "7", "3", "zapf" };
    static const char *const n[] = { "0", "1", "2", "3", "4", "5", "6", "7",
                                     "8", "9", "-0.09", "999.9", "0.012345",
                                     "-999.9" };
    static const char *const n_want[] = {
        "7", "999.9", "8", "3", "2", "-999.9", "9", "4", "-0.09", "6", "1",
        "0", "0.012345", "5" };

    ck_assert_int_eq(hash_order(s, 14, 'S', s_want), 0);
    ck_assert_int_eq(hash_order(n, 14, 'N', n_want), 0);
}
END_TEST

/* ------------------------------------------------------------------------
 * order: memcmp of encodings == av_compare
 * ---------------------------------------------------------------------- */

static const char b64chars[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static void
b64_encode(const uint8_t *in, size_t len, char *out)
{
    size_t i, o = 0;

    for (i = 0; i + 2 < len; i += 3) {
        out[o++] = b64chars[in[i] >> 2];
        out[o++] = b64chars[((in[i] & 3) << 4) | (in[i + 1] >> 4)];
        out[o++] = b64chars[((in[i + 1] & 15) << 2) | (in[i + 2] >> 6)];
        out[o++] = b64chars[in[i + 2] & 63];
    }
    if (len - i == 1) {
        out[o++] = b64chars[in[i] >> 2];
        out[o++] = b64chars[(in[i] & 3) << 4];
        out[o++] = '=';
        out[o++] = '=';
    } else if (len - i == 2) {
        out[o++] = b64chars[in[i] >> 2];
        out[o++] = b64chars[((in[i] & 3) << 4) | (in[i + 1] >> 4)];
        out[o++] = b64chars[(in[i + 1] & 15) << 2];
        out[o++] = '=';
    }
    out[o] = '\0';
}

/* Append the UTF-8 encoding of code point cp. */
static size_t
utf8_put(unsigned cp, char *o)
{
    if (cp < 0x80) {
        o[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        o[0] = (char)(0xc0 | (cp >> 6));
        o[1] = (char)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        o[0] = (char)(0xe0 | (cp >> 12));
        o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
        o[2] = (char)(0x80 | (cp & 0x3f));
        return 3;
    }
    o[0] = (char)(0xf0 | (cp >> 18));
    o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
    o[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
    o[3] = (char)(0x80 | (cp & 0x3f));
    return 4;
}

/* A random AttributeValue of type t ('S', 'B', 'N'). Small alphabets and
 * short lengths, so that prefixes and ties are common. */
static json_t *
random_av(char t, unsigned *seed)
{
    char buf[512];
    size_t len = (size_t)(rand_r(seed) % 6), i, o = 0;

    if (t == 'S') {
        for (i = 0; i < len; i++) {
            unsigned r = (unsigned)rand_r(seed) % 8, cp;

            if (r < 4)
                cp = 'a' + (unsigned)rand_r(seed) % 3;
            else if (r == 4)
                cp = 0x7f + (unsigned)rand_r(seed) % 3;     /* 1 and 2 bytes */
            else if (r == 5)
                cp = 0xe9;
            else if (r == 6)
                cp = 0xfff0 + (unsigned)rand_r(seed) % 8;   /* 3 bytes */
            else
                cp = 0x1f600 + (unsigned)rand_r(seed) % 3;  /* 4 bytes */
            o += utf8_put(cp, buf + o);
        }
        return json_pack("{s:s%}", "S", buf, o);
    }
    if (t == 'B') {
        uint8_t raw[16];

        len += 1;
        for (i = 0; i < len; i++) {
            unsigned r = (unsigned)rand_r(seed) % 4;

            raw[i] = r == 0 ? 0x00 : r == 1 ? 0xff : r == 2 ? 0x7f
                : (uint8_t)rand_r(seed);
        }
        b64_encode(raw, len, buf);
        return json_pack("{s:s}", "B", buf);
    }
    {
        char digits[40], canon[NUM_TEXT_MAX];
        int k = rand_r(seed) % 3 ? 1 + rand_r(seed) % 4 : 1 + rand_r(seed) % 38;
        int x, lo, hi;

        for (i = 0; i < (size_t)k; i++)
            digits[i] = (char)('0' + rand_r(seed) % 10);
        digits[k] = '\0';
        lo = -130 - (k - 1);
        hi = 125 - (k - 1);
        x = rand_r(seed) % 2 ? -3 + rand_r(seed) % 7
            : lo + rand_r(seed) % (hi - lo + 1);
        snprintf(buf, sizeof(buf), "%s%se%d", rand_r(seed) % 2 ? "-" : "",
                 digits, x);
        if (num_canonical(buf, canon, NULL) != 0)
            strcpy(canon, "0");     /* leading zeros pushed it out of range */
        return json_pack("{s:s}", "N", canon);
    }
}

static const char order_types[] = { 'S', 'B', 'N' };

START_TEST(test_item_codec_order_property)
{
    enum { N = 600 };
    char t = order_types[_i];
    json_t *av[N];
    uint8_t (*key)[KEY_BYTES_MAX] = malloc(N * sizeof(*key));
    long len[N];
    unsigned seed = 777u + (unsigned)_i;
    int i, j, ties = 0, neg = 0;

    ck_assert_ptr_nonnull(key);
    for (i = 0; i < N; i++) {
        av[i] = random_av(t, &seed);
        ck_assert_ptr_nonnull(av[i]);
        len[i] = key_encode_value(av[i], key[i]);
        ck_assert_int_ge(len[i], 0);
    }
    for (i = 0; i < N; i++) {
        for (j = 0; j < N; j++) {
            size_t n = (size_t)(len[i] < len[j] ? len[i] : len[j]);
            int c = n ? memcmp(key[i], key[j], n) : 0;
            bool ok;
            int want = av_compare(av[i], av[j], &ok);

            if (c == 0)
                c = len[i] < len[j] ? -1 : len[i] > len[j];
            c = c < 0 ? -1 : c > 0;
            ck_assert(ok);
            ck_assert_msg(c == want, "%s vs %s: memcmp %d, av_compare %d",
                          json_text(av[i], 0), json_text(av[j], 0), c, want);
            /* Equal encodings iff equal values. */
            ck_assert_int_eq(c == 0, av_equal(av[i], av[j]));
            if (i != j && c == 0)
                ties++;
            if (want < 0)
                neg++;
        }
    }
    ck_assert_int_gt(ties, 0);      /* the generator does produce ties */
    ck_assert_int_gt(neg, 0);
    for (i = 0; i < N; i++)
        json_decref(av[i]);
    free(key);
}
END_TEST

static Suite *
item_codec_suite(void)
{
    Suite *s = suite_create("item_codec");
    TCase *tc;

    tc = tcase_create("encode");
    tcase_add_test(tc, test_item_codec_encode_s);
    tcase_add_test(tc, test_item_codec_encode_b);
    tcase_add_test(tc, test_item_codec_b64_encode);
    tcase_add_test(tc, test_item_codec_encode_n);
    tcase_add_test(tc, test_item_codec_encode_bad);
    tcase_add_test(tc, test_item_codec_encode_too_long);
    suite_add_tcase(s, tc);

    tc = tcase_create("hash");
    tcase_add_test(tc, test_item_codec_md5);
    tcase_add_test(tc, test_item_codec_hash);
    tcase_add_loop_test(tc, test_item_codec_num_hashkey, 0,
                        (int)(sizeof(num_hash_cases) /
                              sizeof(num_hash_cases[0])));
    tcase_add_test(tc, test_item_codec_recorded_order);
    suite_add_tcase(s, tc);

    tc = tcase_create("order");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, test_item_codec_order_property, 0,
                        sizeof(order_types));
    suite_add_tcase(s, tc);
    return s;
}

int
main(void)
{
    SRunner *sr = srunner_create(item_codec_suite());
    int failed;

    srunner_run_all(sr, CK_ENV);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
