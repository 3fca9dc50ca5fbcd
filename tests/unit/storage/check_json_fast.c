/* SPDX-License-Identifier: MIT */
/* check_json_fast.c - storage/json_fast.c: every tree it builds is the
 * one jansson's json_loadb(JSON_ALLOW_NUL) builds (same dump, same types,
 * same order), strings decoded as jansson decodes them, keys holding NUL
 * kept whole (which jansson refuses), it declines what it does not
 * handle, and a seeded differential fuzz over grammar-built and corrupted
 * inputs never finds a difference. */

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "storage/json_fast.h"
#include "storage/util.h"

/* A key jansson refused for its NUL: the fast tree must survive a round
 * trip through jansson's encoder (which writes such keys) and itself. */
static void
nul_key_round_trip(const json_t *fast)
{
    char *a = json_text(fast, JSON_COMPACT);
    json_t *back;

    ck_assert_ptr_nonnull(a);
    back = json_fast_loadb(a, strlen(a));
    ck_assert_msg(back != NULL && json_same(back, fast), "%s", a);
    json_decref(back);
    free(a);
}

/* Compare fast and jansson on s (len bytes). Returns 1 if fast parsed
 * it, 0 if it declined; fails the test on any difference. */
static int
same_as_jansson(const char *s, size_t len, size_t flags)
{
    json_error_t jerr;
    json_t *fast = json_fast_loadb(s, len);
    json_t *slow = json_loadb(s, len, flags, &jerr);
    char *a, *b;

    if (fast == NULL) {
        json_decref(slow);
        return 0;
    }
    if (slow == NULL &&
        json_error_code(&jerr) == json_error_null_byte_in_key) {
        nul_key_round_trip(fast);
        json_decref(fast);
        return 1;
    }
    ck_assert_msg(slow != NULL, "fast accepted what jansson rejects: %.*s",
                  (int)len, s);
    a = json_text(fast, JSON_COMPACT | JSON_ENCODE_ANY);
    b = json_text(slow, JSON_COMPACT | JSON_ENCODE_ANY);
    ck_assert_ptr_nonnull(a);
    ck_assert_ptr_nonnull(b);
    ck_assert_msg(strcmp(a, b) == 0, "differ on %.*s: %s vs %s", (int)len,
                  s, a, b);
    ck_assert(json_same(fast, slow));
    free(a);
    free(b);
    json_decref(fast);
    json_decref(slow);
    return 1;
}

static int
same(const char *s)
{
    return same_as_jansson(s, strlen(s), JSON_ALLOW_NUL);
}

/* json_fast_dump() of v is json_dumps(v, JSON_COMPACT), or declines.
 * Returns 1 if it encoded. */
static int
dump_same(const json_t *v)
{
    struct json_fast_buf b = { NULL, 0, 0 };
    char *want = json_text(v, JSON_COMPACT);
    int rc = json_fast_dump(v, &b);

    if (rc == 0) {
        ck_assert_ptr_nonnull(want);
        ck_assert_uint_eq(b.len, strlen(want));
        ck_assert_msg(memcmp(b.p, want, b.len) == 0 && b.p[b.len] == '\0',
                      "dump differs: %s vs %s", b.p, want);
    }
    free(b.p);
    free(want);
    return rc == 0;
}

START_TEST(test_requests)
{
    ck_assert(same("{\"TableName\":\"bench_hash\",\"Item\":{\"pk\":{\"S\":"
                   "\"k1\"},\"v\":{\"S\":\"vvvv\"},\"n\":{\"N\":\"1\"}}}"));
    ck_assert(same(" {\n\t\"a\" : [ 1 , -2 , 0 , -0 , true , false , null ,"
                   " [ ] , { } ] ,\r\n \"\" : \"\" } \n"));
    ck_assert(same("{\"Limit\":123456789012345678}"));
    ck_assert(same("{\"Limit\":-123456789012345678}"));
    ck_assert(same("[]"));
    ck_assert(same("{}"));
    ck_assert(same("[\"~\x7f\"]"));
}
END_TEST

/* Strings as Python clients send them (everything outside ASCII
 * escaped) and as JS sends them (raw UTF-8), decoded as jansson does. */
START_TEST(test_strings)
{
    static const char *const yes[] = {
        "{\"a\":\"\\n\"}", "{\"a\\u0041\":1}",
        "{\"a\":\"\xc3\xa9\"}", "{\"\xc3\xa9\":\"x\"}",
        "[\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"]",
        "[\"\\u00e9\\u00E9\\u20ac\\uffff\\ud83d\\ude00\"]",
        "[\"\\u0000\", \"a\\u0000b\"]",
        "[\"\xe2\x82\xac\xf0\x9f\x98\x80\xef\xbf\xbf\xf4\x8f\xbf\xbf\"]",
        "[\"x\\u0041y\xc3\xa9z\\n\"]",
        "{\"Item\":{\"\\u00e9t\\u00e9\":{\"S\":\"\\ud834\\udd1e\"}}}",
    };
    size_t i;

    for (i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
        ck_assert_msg(same(yes[i]), "declined %s", yes[i]);
}
END_TEST

/* Strings are read and written a word at a time while their bytes are
 * plain: one byte of each kind (an escape, a quote, a control byte, UTF-8,
 * a stray 0x80, the plain bytes at the ends of the range) at every offset
 * of strings 0 to 40 bytes long, so at every place in a word and across
 * words, in keys and values, with the text cut short inside the string
 * too; each parse is jansson's, each dump jansson's. */
START_TEST(test_string_words)
{
    static const char *const text_bytes[] = {
        "\\\"", "\\\\", "\\n", "\\u00e9", "\xc3\xa9", "\xe2\x82\xac",
        "\x01", "\x1f", "\x80", "\"", " ", "~", "\x7f",
    };
    static const char raw_bytes[] = "\"\\\n\x01\x1f \x7f~";
    char str[64], text[256];
    size_t len, at, k, cut, n;
    int parsed = 0, dumped = 0;

    for (len = 0; len <= 40; len++) {
        for (at = 0; at <= len; at++) {
            for (k = 0; k < sizeof(text_bytes) / sizeof(text_bytes[0]); k++) {
                memset(str, 'a' + (int)(len % 26), len);
                str[len] = '\0';
                n = (size_t)snprintf(text, sizeof(text),
                                     "{\"%.*s%s%s\":[\"%.*s%s%s\"]}",
                                     (int)at, str, text_bytes[k], str + at,
                                     (int)at, str, text_bytes[k], str + at);
                parsed += same_as_jansson(text, n, JSON_ALLOW_NUL);
                for (cut = n - 3; cut > n / 2; cut--)
                    same_as_jansson(text, cut, JSON_ALLOW_NUL);
            }
            for (k = 0; k < sizeof(raw_bytes) - 1; k++) {
                json_t *o = json_object();

                memset(str, 'b', len);
                str[at] = raw_bytes[k];
                json_object_set_new(o, "v", json_stringn(str, len + 1));
                json_object_setn_new(o, str, len + 1, json_integer(1));
                dumped += dump_same(o);
                json_decref(o);
            }
        }
    }
    /* 861 (length, offset) pairs: the fast path takes each valid text
     * (all but the control bytes, the stray 0x80 and the bare quote) and
     * encodes each ASCII string */
    ck_assert_int_eq(parsed, 861 * 9);
    ck_assert_int_eq(dumped, 861 * (int)(sizeof(raw_bytes) - 1));
}
END_TEST

/* Keys holding NUL: jansson refuses them; here they stay whole (DynamoDB
 * attribute names may hold U+0000), two such keys apart, a repeated one
 * replaced in place. */
START_TEST(test_nul_keys)
{
    static const char in[] = "{\"a\\u0000b\":1,\"a\\u0000c\":2,"
                             "\"\\u0000\":{\"x\\u0000\":[]},"
                             "\"a\\u0000b\":3}";
    json_t *v = json_fast_loadb(in, strlen(in)), *x;
    json_error_t jerr;

    ck_assert_ptr_nonnull(v);
    ck_assert_uint_eq(json_object_size(v), 3);
    ck_assert_int_eq(json_integer_value(json_object_getn(v, "a\0b", 3)), 3);
    ck_assert_int_eq(json_integer_value(json_object_getn(v, "a\0c", 3)), 2);
    x = json_object_getn(v, "\0", 1);
    ck_assert(json_is_array(json_object_getn(x, "x\0", 2)));
    ck_assert_ptr_null(json_object_getn(v, "a", 1));
    /* in the order written, the repeated key where it first stood */
    ck_assert_uint_eq(json_object_iter_key_len(json_object_iter(v)), 3);
    ck_assert_ptr_null(json_loadb(in, strlen(in), JSON_ALLOW_NUL, &jerr));
    ck_assert_int_eq(json_error_code(&jerr), json_error_null_byte_in_key);
    nul_key_round_trip(v);
    ck_assert(same_as_jansson(in, strlen(in), JSON_ALLOW_NUL));
    /* the copies of util.c keep such keys whole too */
    x = json_copy_members(v);
    ck_assert(json_same(x, v));
    ck_assert_ptr_eq(json_object_getn(x, "\0", 1),
                     json_object_getn(v, "\0", 1));        /* shared */
    json_decref(x);
    x = json_clone(v);
    ck_assert(json_same(x, v));
    ck_assert_ptr_ne(json_object_getn(x, "\0", 1),
                     json_object_getn(v, "\0", 1));        /* its own */
    json_decref(x);
    json_decref(v);
}
END_TEST

START_TEST(test_duplicates)
{
    /* the later value wins, in the earlier key's place */
    ck_assert(same("{\"a\":1,\"b\":2,\"a\":3}"));
    ck_assert(same("{\"a\":{\"x\":1},\"b\":[],\"a\":\"s\",\"c\":null}"));
}
END_TEST

START_TEST(test_declines)
{
    static const char *const no[] = {
        "", " ", "1", "\"s\"", "true", "null",         /* not on top */
        "{\"a\":\"\x01\"}",                            /* control char */
        "[\"\\x\"]", "[\"\\u12\"]", "[\"\\u12g4\"]", "[\"\\\"]",
        "[\"\\ud800\"]", "[\"\\udc00\"]", "[\"\\ud800\\u0041\"]",
        "[\"\\ud800x\"]", "[\"\\ud800\\ud800\"]",  /* bad surrogates */
        "[\"\xc3\"]", "[\"\xc0\x80\"]", "[\"\xed\xa0\x80\"]",  /* bad UTF-8 */
        "[\"\xf4\x90\x80\x80\"]", "[\"\xff\"]", "[\"\x80\"]",
        "[\"\xe0\x80\x80\"]", "[\"\xf0\x80\x80\x80\"]", "[\"\xc3x\"]",
        "{\"a\":1.5}", "{\"a\":1e3}", "{\"a\":1E3}",   /* reals */
        "{\"a\":01}", "{\"a\":-}", "{\"a\":+1}",
        "{\"a\":1234567890123456789}",                 /* 19 digits */
        "{\"a\":1}x", "{\"a\":1}}", "[1,]", "{\"a\":1,}", "{,}",
        "{\"a\"}", "{\"a\":}", "{a:1}", "{\"a\":tru}", "{\"a\":truex}",
        "{\"a\":nul}", "{\"a\":1 2}", "[1 2]", "{\"a\":1", "[", "{",
        "{\"a\":\"x", "{'a':1}", "{\"a\":true1}", "[0x1]",
    };
    size_t i;

    for (i = 0; i < sizeof(no) / sizeof(no[0]); i++)
        ck_assert_msg(json_fast_loadb(no[i], strlen(no[i])) == NULL,
                      "accepted %s", no[i]);
    ck_assert_ptr_null(json_fast_loadb(NULL, 0));
    /* an embedded NUL byte is never simple */
    ck_assert_ptr_null(json_fast_loadb("{\"a\":\"x\0y\"}", 11));
    ck_assert_ptr_null(json_fast_loadb("{}\0", 3));
}
END_TEST

START_TEST(test_depth)
{
    char buf[2 * JSON_FAST_MAX_DEPTH + 8];
    int d, i, n;

    /* up to the limit: parsed; one deeper: left to jansson */
    for (d = JSON_FAST_MAX_DEPTH; d <= JSON_FAST_MAX_DEPTH + 1; d++) {
        n = 0;
        for (i = 0; i < d; i++)
            buf[n++] = '[';
        for (i = 0; i < d; i++)
            buf[n++] = ']';
        buf[n] = '\0';
        ck_assert_int_eq(same_as_jansson(buf, (size_t)n, 0),
                         d <= JSON_FAST_MAX_DEPTH);
    }
}
END_TEST

/* ---- differential fuzz ------------------------------------------------ */

static unsigned long long rng = 0x2545F4914F6CDD1Dull;

static unsigned
rnd(unsigned n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (unsigned)(rng % n);
}

/* Append a random value (object, list or atom) at out[*n]. */
static void
gen(char *out, size_t *n, size_t cap, int depth)
{
    static const char *const atoms[] = {
        "0", "-0", "7", "-42", "123456789012345678", "1.5", "1e2", "true",
        "false", "null", "\"\"", "\"S\"", "\"k12\"", "\"a b\"", "\"\\n\"",
        "\"\xc3\xa9\"", "01", "1234567890123456789", "-",
        "\"a\\\\b\"", "\"\\u0000x\"", "\"\\u001f\\\"\\/\\t\"",
        "\"\\u00e9\\ud83d\\ude00\"", "\"\xe2\x82\xac\"", "\"\\ud800\"",
        "\"\\uDBFF\\uDFFF\"", "\"\xf0\x9f\x98\x80\"",
    };
    static const char *const keys[] = {
        "S", "N", "pk", "Item", "", "a", "\\u0000", "a\\u0000b", "\\u00e9",
        "\xc3\xa9", "\\n", "\\ud83d\\ude00",
    };
    const char *s;
    unsigned kind, m, j;

    if (*n + 64 >= cap)
        return;
    kind = depth > 6 ? 2 : rnd(4);
    if (kind <= 1) {
        out[(*n)++] = kind == 0 ? '{' : '[';
        m = rnd(4);
        for (j = 0; j < m && *n + 64 < cap; j++) {
            if (j > 0)
                out[(*n)++] = ',';
            if (rnd(8) == 0)
                out[(*n)++] = ' ';
            if (kind == 0) {
                s = keys[rnd(sizeof(keys) / sizeof(keys[0]))];
                *n += (size_t)snprintf(out + *n, cap - *n, "\"%s\":", s);
            }
            gen(out, n, cap, depth + 1);
        }
        out[(*n)++] = kind == 0 ? '}' : ']';
        out[*n] = '\0';
        return;
    }
    s = atoms[rnd(sizeof(atoms) / sizeof(atoms[0]))];
    *n += (size_t)snprintf(out + *n, cap - *n, "%s", s);
}

START_TEST(test_dump)
{
    json_t *o = json_object(), *a = json_array();
    struct json_fast_buf b = { NULL, 0, 0 };
    static const char nul[] = "a\0b";

    json_object_set_new(o, "z", json_string("q\"\\/\b\f\n\r\t\x01\x1f\x7f ~"));
    json_object_set_new(o, "a", json_integer(-9223372036854775807LL - 1));
    json_object_set_new(o, "m", json_integer(9223372036854775807LL));
    json_object_set_new(o, "k\"\n", json_integer(0));
    json_object_set_new(o, "n", json_stringn(nul, 3));
    json_array_append_new(a, json_true());
    json_array_append_new(a, json_false());
    json_array_append_new(a, json_null());
    json_array_append_new(a, json_object());
    json_array_append_new(a, json_array());
    json_array_append_new(a, json_integer(-5));
    json_object_set_new(o, "l", a);
    json_object_set_new(o, "z", json_string("replaced in place"));
    ck_assert(dump_same(o));
    ck_assert(dump_same(json_object_get(o, "l")));
    /* declined: reals, non-ASCII, scalars on top */
    json_object_set_new(o, "r", json_real(1.5));
    ck_assert(!dump_same(o));
    json_object_del(o, "r");
    json_object_set_new(o, "u", json_string("\xc3\xa9"));
    ck_assert(!dump_same(o));
    json_object_del(o, "u");
    json_object_set_new(o, "\xc3\xa9", json_null());
    ck_assert(!dump_same(o));
    ck_assert_int_eq(json_fast_dump(json_object_get(o, "m"), &b), -1);
    ck_assert_int_eq(json_fast_dump(NULL, &b), -1);
    free(b.p);
    /* appends to what the buffer holds */
    b.p = NULL;
    b.len = b.cap = 0;
    ck_assert_int_eq(json_fast_dump(json_object_get(o, "l"), &b), 0);
    ck_assert_int_eq(json_fast_dump(json_object_get(o, "l"), &b), 0);
    ck_assert_str_eq(b.p, "[true,false,null,{},[],-5][true,false,null,{},[],-5]");
    free(b.p);
    json_decref(o);
}
END_TEST

/* json_pick(): what json_object_get() gives for each name (present,
 * null, absent, a name that is another's prefix, a key with U+0000). */
START_TEST(test_pick)
{
    static const char *const names[] = { "KeyX", "Ke", "Item", "Gone",
                                          "TableName", "Key" };
    static const char text[] = "{\"TableName\":\"t\",\"Key\":{},"
                               "\"Item\":null,\"K\\u0000y\":1,\"KeyX\":2}";
    json_t *o = json_fast_loadb(text, sizeof(text) - 1), *a = json_array();
    json_t *got[6];

    ck_assert_ptr_nonnull(o);
    json_pick(o, names, 6, got);
    for (int i = 0; i < 6; i++)
        ck_assert_ptr_eq(got[i], json_object_get(o, names[i]));
    ck_assert_ptr_nonnull(got[5]);
    ck_assert_ptr_null(got[1]);
    ck_assert(json_is_null(got[2]));
    ck_assert_ptr_null(got[3]);
    json_pick(a, names, 6, got);                /* not an object: none */
    for (int i = 0; i < 6; i++)
        ck_assert_ptr_null(got[i]);
    json_decref(a);
    json_decref(o);
}
END_TEST

/* json_probe_get(): json_object_get() for an object of one member (its
 * key compared), of none and of several (looked up). */
START_TEST(test_probe)
{
    static const char *const names[] = { "N", "NS", "", "S", "SS", "NULL" };
    static const char *const texts[] = {
        "{\"NS\":[\"1\"]}", "{\"N\":\"1\"}", "{}", "{\"S\":\"a\",\"N\":\"1\"}",
        "{\"\":1}", "{\"N\\u0000\":1}",
    };

    for (size_t t = 0; t < sizeof(texts) / sizeof(texts[0]); t++) {
        json_t *o = json_fast_loadb(texts[t], strlen(texts[t]));
        struct json_probe pr;

        ck_assert_ptr_nonnull(o);
        json_probe_init(&pr, o);
        for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
            ck_assert_msg(json_probe_get(&pr, names[i]) ==
                          json_object_get(o, names[i]), "%s in %s", names[i],
                          texts[t]);
        json_decref(o);
    }
}
END_TEST

START_TEST(test_fuzz)
{
    char buf[4096];
    size_t n;
    int i, parsed = 0, declined = 0, dumped = 0;

    for (i = 0; i < 20000; i++) {
        n = 0;
        buf[0] = '\0';
        while (n == 0 || (buf[0] != '{' && buf[0] != '[')) {
            n = 0;
            gen(buf, &n, sizeof(buf) - 600, 0);
        }
        if (rnd(3) == 0 && n > 0) {     /* corrupt one byte */
            static const char junk[] = "{}[],:\"\\ 01-.eEtfnx\x01\x80";

            buf[rnd((unsigned)n)] = junk[rnd(sizeof(junk) - 1)];
        }
        if (rnd(10) == 0 && n > 1)      /* truncate */
            n = rnd((unsigned)n);
        if (same_as_jansson(buf, n, JSON_ALLOW_NUL))
            parsed++;
        else
            declined++;
        {
            json_error_t jerr;
            json_t *v = json_loadb(buf, n, JSON_ALLOW_NUL, &jerr);

            if (v != NULL)
                dumped += dump_same(v);
            json_decref(v);
        }
    }
    /* both sides exercised */
    ck_assert_int_gt(parsed, 1000);
    ck_assert_int_gt(declined, 1000);
    ck_assert_int_gt(dumped, 1000);
}
END_TEST

static Suite *
json_fast_suite(void)
{
    Suite *s = suite_create("json_fast");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, test_requests);
    tcase_add_test(tc, test_strings);
    tcase_add_test(tc, test_string_words);
    tcase_add_test(tc, test_nul_keys);
    tcase_add_test(tc, test_duplicates);
    tcase_add_test(tc, test_declines);
    tcase_add_test(tc, test_depth);
    tcase_add_test(tc, test_dump);
    tcase_add_test(tc, test_pick);
    tcase_add_test(tc, test_probe);
    tcase_add_test(tc, test_fuzz);
    tcase_set_timeout(tc, 60);          /* make check runs the fuzz and
                                           soak scripts beside it */
    suite_add_tcase(s, tc);
    return s;
}

int
main(void)
{
    SRunner *sr = srunner_create(json_fast_suite());
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
