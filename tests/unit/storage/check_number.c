/* SPDX-License-Identifier: MIT */
/* check_number.c - storage/number.c: parsing and canonical form, DynamoDB's
 * limits and messages, exact add/subtract, comparison, size, and the
 * order-preserving sort key checked against a GMP rational oracle and
 * decoded back (num_from_sortkey). */

#include <check.h>
#include <gmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "storage/storage.h"

#define MSG_NAN "The parameter cannot be converted to a numeric value"
#define MSG_DIGITS "Attempting to store more than 38 significant digits in a Number"
#define MSG_OVERFLOW "Number overflow. Attempting to store a number with " \
    "magnitude larger than supported range"
#define MSG_UNDERFLOW "Number underflow. Attempting to store a number with " \
    "magnitude smaller than supported range"

/* "1" followed by n zeros, or "0." n-1 zeros "1" for negative n. */
static const char *
pow10_text(int n)
{
    static char buf[256];
    int i, o = 0;

    if (n >= 0) {
        buf[o++] = '1';
        for (i = 0; i < n; i++)
            buf[o++] = '0';
    } else {
        buf[o++] = '0';
        buf[o++] = '.';
        for (i = 0; i < -n - 1; i++)
            buf[o++] = '0';
        buf[o++] = '1';
    }
    buf[o] = '\0';
    return buf;
}

/* ------------------------------------------------------------------------
 * parse: canonical form
 * ---------------------------------------------------------------------- */

static const struct { const char *in, *out; } canon_cases[] = {
    { "0", "0" },
    { "-0", "0" },
    { "+0", "0" },
    { "0.000", "0" },
    { "0e1000", "0" },
    { "-0.0e-99999", "0" },
    { "1E+2", "100" },
    { "-0.50", "-0.5" },
    { "1e-3", "0.001" },
    { "+3", "3" },
    { ".123", "0.123" },
    { "5.", "5" },
    { "0001.23", "1.23" },
    { "1e+5", "100000" },
    { "123.4500", "123.45" },
    { "00100", "100" },
    { "-1.5e1", "-15" },
    { "1.234e2", "123.4" },
    { "1234e-2", "12.34" },
    { "-7.1234", "-7.1234" },
    { "-17e5", "-1700000" },
    { "12.5E-1", "1.25" },
    { "100e-2", "1" },
    { "0.00012300", "0.000123" },
    { "3.1415926535897932384626433832795028841",
      "3.1415926535897932384626433832795028841" },
    { "31415926535897932384626433832795028841e30",
      "31415926535897932384626433832795028841000000000000000000000000000000" },
    { "12345678901234567890123456789012345678000000",
      "12345678901234567890123456789012345678000000" },
    { "-9.9999999999999999999999999999999999999E-130",
      "-0.0000000000000000000000000000000000000000000000000000000000000000"
      "00000000000000000000000000000000000000000000000000000000000000000"
      "99999999999999999999999999999999999999" },
};

START_TEST(test_number_canonical)
{
    struct ddb_err err;
    char out[NUM_TEXT_MAX];

    ddb_err_init(&err);
    ck_assert_msg(num_canonical(canon_cases[_i].in, out, &err) == 0,
                  "%s: %s", canon_cases[_i].in, err.msg);
    ck_assert_str_eq(out, canon_cases[_i].out);
    /* Canonical text is a fixed point. */
    ck_assert_int_eq(num_canonical(out, out, &err), 0);
    ck_assert_str_eq(out, canon_cases[_i].out);
}
END_TEST

START_TEST(test_number_limits_accepted)
{
    struct ddb_err err;
    char out[NUM_TEXT_MAX], want[300];

    ddb_err_init(&err);
    ck_assert_int_eq(num_canonical("1e125", out, &err), 0);
    ck_assert_str_eq(out, pow10_text(125));
    ck_assert_uint_eq(strlen(out), 126);
    ck_assert_int_eq(num_canonical("-1E125", out, &err), 0);
    snprintf(want, sizeof(want), "-%s", pow10_text(125));
    ck_assert_str_eq(out, want);
    ck_assert_int_eq(num_canonical("1e-130", out, &err), 0);
    ck_assert_str_eq(out, pow10_text(-130));
    ck_assert_int_eq(num_canonical("-1e-130", out, &err), 0);
    ck_assert_int_eq(num_canonical(
        "9.9999999999999999999999999999999999999E+125", out, &err), 0);
    ck_assert_uint_eq(strlen(out), 126);
    ck_assert_int_eq(num_canonical("9.99999999e125", out, &err), 0);
    /* 38 significant digits at the bottom of the range: the longest text. */
    ck_assert_int_eq(num_canonical(
        "-1.2345678901234567890123456789012345678e-130", out, &err), 0);
    ck_assert_uint_lt(strlen(out), NUM_TEXT_MAX);
    /* Leading and trailing zeros are not significant. */
    ck_assert_int_eq(num_canonical(
        "000000000012345678901234567890123456789012345678000000000", out,
        &err), 0);
    ck_assert_int_eq(num_canonical(
        "0.0000000012345678901234567890123456789012345678", out, &err), 0);
}
END_TEST

/* ------------------------------------------------------------------------
 * errors: DynamoDB's messages
 * ---------------------------------------------------------------------- */

static const struct { const char *in, *msg; } error_cases[] = {
    { "", MSG_NAN },
    { "abc", MSG_NAN ": abc" },
    { "dog", MSG_NAN ": dog" },
    { "-dog", MSG_NAN ": -dog" },
    { "NaN", MSG_NAN ": NaN" },
    { "-NaN", MSG_NAN ": -NaN" },
    { "Infinity", MSG_NAN ": Infinity" },
    { "-Infinity", MSG_NAN ": -Infinity" },
    { " 1", MSG_NAN ":  1" },
    { "1 ", MSG_NAN ": 1 " },
    { "1e", MSG_NAN ": 1e" },
    { "e5", MSG_NAN ": e5" },
    { ".", MSG_NAN ": ." },
    { "-", MSG_NAN ": -" },
    { "+", MSG_NAN ": +" },
    { "+-1", MSG_NAN ": +-1" },
    { "1..2", MSG_NAN ": 1..2" },
    { "1.2.3", MSG_NAN ": 1.2.3" },
    { "1e5.5", MSG_NAN ": 1e5.5" },
    { "1e+-5", MSG_NAN ": 1e+-5" },
    { "0x10", MSG_NAN ": 0x10" },
    { "1,000", MSG_NAN ": 1,000" },
    { "1e99999999999", MSG_NAN ": 1e99999999999" },
    { "1e-99999999999", MSG_NAN ": 1e-99999999999" },
    { "1e126", MSG_OVERFLOW },
    { "-1e126", MSG_OVERFLOW },
    { "11e125", MSG_OVERFLOW },
    { "10e125", MSG_OVERFLOW },
    { "1e2147483647", MSG_OVERFLOW },
    { "1e2147483648", MSG_NAN ": 1e2147483648" },
    { "1e-2147483647", MSG_UNDERFLOW },
    { "1e-2147483648", MSG_NAN ": 1e-2147483648" },     /* scale */
    { "10e-2147483648", MSG_NAN ": 10e-2147483648" },
    { "1e-2147483649", MSG_NAN ": 1e-2147483649" },
    { "0.1e-2147483647", MSG_NAN ": 0.1e-2147483647" },   /* scale */
    { "0e99999999999", MSG_NAN ": 0e99999999999" },
    { "1e-131", MSG_UNDERFLOW },
    { "-1e-131", MSG_UNDERFLOW },
    { "0.9e-130", MSG_UNDERFLOW },
    { "9.9999e-131", MSG_UNDERFLOW },
    { "123456789012345678901234567890123456789", MSG_DIGITS },
    { "-1.23456789012345678901234567890123456789", MSG_DIGITS },
    { "3.14159265358979323846264338327950288419", MSG_DIGITS },
    { "314159265358979323846.264338327950288419", MSG_DIGITS },
    { "314159265358979323846264338327950288419e30", MSG_DIGITS },
    { "1.00000000000000000000000000000000000001", MSG_DIGITS },
    /* Digits are checked before range, as DynamoDB does. */
    { "123456789012345678901234567890123456789e126", MSG_DIGITS },
    { "-123456789012345678901234567890123456789e-200", MSG_DIGITS },
};

START_TEST(test_number_errors)
{
    struct ddb_err err;
    char out[NUM_TEXT_MAX];

    ddb_err_init(&err);
    ck_assert_int_eq(num_canonical(error_cases[_i].in, out, &err), -1);
    ck_assert_int_eq(err.type, DDB_VALIDATION);
    ck_assert_str_eq(err.msg, error_cases[_i].msg);
}
END_TEST

START_TEST(test_number_errors_null_err)
{
    char out[NUM_TEXT_MAX];

    /* err may be NULL; NULL text is not a number, never a crash. */
    ck_assert_int_eq(num_canonical("x", out, NULL), -1);
    ck_assert_int_eq(num_canonical("1e200", out, NULL), -1);
    ck_assert_int_eq(num_canonical(NULL, out, NULL), -1);
    ck_assert_int_eq(num_add(NULL, "1", out, NULL), -1);
    ck_assert_int_eq(num_sub("1", NULL, out, NULL), -1);
    ck_assert_int_ne(num_cmp(NULL, "1"), 0);
    ck_assert_uint_eq(num_size(NULL), 1);
    ck_assert_uint_eq(num_sortkey(NULL, (uint8_t *)out), 1);
}
END_TEST

START_TEST(test_number_errors_huge_input)
{
    struct ddb_err err;
    char out[NUM_TEXT_MAX];
    size_t n = 200000, i;
    char *s = malloc(n + 16);

    ddb_err_init(&err);
    /* 200000 zeros then 1: tiny, underflow; never overflows an int. */
    strcpy(s, "0.");
    for (i = 2; i < n; i++)
        s[i] = '0';
    s[n] = '1';
    s[n + 1] = '\0';
    ck_assert_int_eq(num_canonical(s, out, &err), -1);
    ck_assert_str_eq(err.msg, MSG_UNDERFLOW);
    /* 1 followed by zeros: overflow. */
    s[0] = '1';
    for (i = 1; i <= n; i++)
        s[i] = '0';
    s[n + 1] = '\0';
    ck_assert_int_eq(num_canonical(s, out, &err), -1);
    ck_assert_str_eq(err.msg, MSG_OVERFLOW);
    /* ...unless the exponent brings it back. */
    strcpy(s + n + 1, "e-200000");
    ck_assert_int_eq(num_canonical(s, out, &err), 0);
    ck_assert_str_eq(out, "1");
    free(s);
}
END_TEST

/* ------------------------------------------------------------------------
 * compare
 * ---------------------------------------------------------------------- */

static const struct { const char *a, *b; int want; } cmp_cases[] = {
    { "0", "0", 0 },
    { "1", "1.0", 0 },
    { "1", "2", -1 },
    { "-1", "1", -1 },
    { "-1", "0", -1 },
    { "0", "0.0000001", -1 },
    { "-0.0000001", "0", -1 },
    { "10", "9", 1 },
    { "100", "99.999", 1 },
    { "-100", "-99.999", -1 },
    { "1.2", "1.23", -1 },
    { "-1.2", "-1.23", 1 },
    { "0.1", "0.09", 1 },
    { "123456789012345678901234567890", "123456789012345678901234567891", -1 },
    { "1e125", "9.9999999999999999999999999999999999999e124", 1 },
    { "1e-130", "2e-130", -1 },
    { "-1e-130", "-2e-130", 1 },
};

START_TEST(test_number_cmp)
{
    int c = num_cmp(cmp_cases[_i].a, cmp_cases[_i].b);
    int r = num_cmp(cmp_cases[_i].b, cmp_cases[_i].a);

    ck_assert_int_eq(c < 0 ? -1 : c > 0, cmp_cases[_i].want);
    ck_assert_int_eq(r < 0 ? -1 : r > 0, -cmp_cases[_i].want);
}
END_TEST

/* ------------------------------------------------------------------------
 * arithmetic
 * ---------------------------------------------------------------------- */

static const struct { const char *a, *op, *b, *out; } arith_cases[] = {
    { "1", "+", "10000000000000000000000", "10000000000000000000001" },
    { "10000000000000000000000", "-", "1", "9999999999999999999999" },
    { "0.1", "+", "0.2", "0.3" },
    { "-5", "+", "5", "0" },
    { "5", "-", "5", "0" },
    { "0", "+", "0", "0" },
    { "0", "-", "7.5", "-7.5" },
    { "1.5", "+", "1.5", "3" },
    { "-1.25", "-", "0.75", "-2" },
    { "100", "-", "0.001", "99.999" },
    { "123.456", "+", "-123.456", "0" },
    { "0.0000000001", "+", "10000000000", "10000000000.0000000001" },
    { "99999999999999999999999999999999999999", "-", "1",
      "99999999999999999999999999999999999998" },
    { "9999999999999999999999999999999999999", "+", "1",
      "10000000000000000000000000000000000000" },
};

START_TEST(test_number_arith)
{
    struct ddb_err err;
    char a[NUM_TEXT_MAX], b[NUM_TEXT_MAX], out[NUM_TEXT_MAX];
    int rc;

    ddb_err_init(&err);
    ck_assert_int_eq(num_canonical(arith_cases[_i].a, a, &err), 0);
    ck_assert_int_eq(num_canonical(arith_cases[_i].b, b, &err), 0);
    if (arith_cases[_i].op[0] == '+')
        rc = num_add(a, b, out, &err);
    else
        rc = num_sub(a, b, out, &err);
    ck_assert_msg(rc == 0, "%s %s %s: %s", a, arith_cases[_i].op, b, err.msg);
    ck_assert_str_eq(out, arith_cases[_i].out);
}
END_TEST

/* Integer operands (counters), the small ones added without GMP: every
 * sign and size around the 18-digit cut, compared with GMP's integer
 * sums, and text that is not a canonical integer ("-0", "007", "1.5",
 * "1E+2") still right. */
START_TEST(test_number_arith_integers)
{
    static const char *const ints[] = {
        "0", "1", "-1", "9", "10", "-10", "99", "12345",
        "999999999999999999", "-999999999999999999",
        "100000000000000000", "1000000000000000000", "-1000000000000000000",
        "9999999999999999999", "123456789012345678901234567890",
    };
    struct ddb_err err;
    char out[NUM_TEXT_MAX];
    mpz_t x, y, r;

    mpz_inits(x, y, r, NULL);
    for (size_t i = 0; i < sizeof(ints) / sizeof(ints[0]); i++)
        for (size_t j = 0; j < sizeof(ints) / sizeof(ints[0]); j++)
            for (int sub = 0; sub < 2; sub++) {
                char *want;

                ddb_err_init(&err);
                ck_assert_int_eq(sub ? num_sub(ints[i], ints[j], out, &err)
                                     : num_add(ints[i], ints[j], out, &err),
                                 0);
                mpz_set_str(x, ints[i], 10);
                mpz_set_str(y, ints[j], 10);
                if (sub)
                    mpz_sub(r, x, y);
                else
                    mpz_add(r, x, y);
                want = mpz_get_str(NULL, 10, r);
                ck_assert_msg(strcmp(out, want) == 0, "%s %c %s = %s, not %s",
                              ints[i], sub ? '-' : '+', ints[j], out, want);
                free(want);
            }
    mpz_clears(x, y, r, NULL);
    ddb_err_init(&err);
    ck_assert_int_eq(num_add("-0", "5", out, &err), 0);
    ck_assert_str_eq(out, "5");
    ck_assert_int_eq(num_add("007", "1", out, &err), 0);
    ck_assert_str_eq(out, "8");
    ck_assert_int_eq(num_add("1.5", "1", out, &err), 0);
    ck_assert_str_eq(out, "2.5");
    ck_assert_int_eq(num_sub("1E+2", "1", out, &err), 0);
    ck_assert_str_eq(out, "99");
    ck_assert_int_eq(num_add("1-", "1", out, &err), -1);
    ck_assert_int_eq(num_add("-", "1", out, &err), -1);
    ck_assert_int_eq(num_add("", "1", out, &err), -1);
}
END_TEST

static const struct { const char *a, *op, *b, *msg; } arith_err_cases[] = {
    { "9e125", "+", "9e125", MSG_OVERFLOW },
    { "9e125", "-", "-9e125", MSG_OVERFLOW },
    { "-9e125", "-", "9e125", MSG_OVERFLOW },
    /* More than 38 digits: DynamoDB says overflow (Alternator
     * test_update_expression_plus_imprecise). */
    { "1e50", "+", "1", MSG_OVERFLOW },
    { "1e50", "-", "1", MSG_OVERFLOW },
    { "99999999999999999999999999999999999999", "+", "0.1", MSG_OVERFLOW },
    { "2e-130", "-", "1.5e-130", MSG_UNDERFLOW },
};

START_TEST(test_number_arith_errors)
{
    struct ddb_err err;
    char a[NUM_TEXT_MAX], b[NUM_TEXT_MAX], out[NUM_TEXT_MAX];
    int rc;

    ddb_err_init(&err);
    ck_assert_int_eq(num_canonical(arith_err_cases[_i].a, a, &err), 0);
    ck_assert_int_eq(num_canonical(arith_err_cases[_i].b, b, &err), 0);
    if (arith_err_cases[_i].op[0] == '+')
        rc = num_add(a, b, out, &err);
    else
        rc = num_sub(a, b, out, &err);
    ck_assert_int_eq(rc, -1);
    ck_assert_int_eq(err.type, DDB_VALIDATION);
    ck_assert_str_eq(err.msg, arith_err_cases[_i].msg);
}
END_TEST

START_TEST(test_number_arith_extremes)
{
    struct ddb_err err;
    char a[NUM_TEXT_MAX], b[NUM_TEXT_MAX], out[NUM_TEXT_MAX];

    ddb_err_init(&err);
    /* Operands at opposite ends of the range: exact, not lost. */
    ck_assert_int_eq(num_canonical("1e125", a, &err), 0);
    ck_assert_int_eq(num_canonical("1e-130", b, &err), 0);
    ck_assert_int_eq(num_add(a, b, out, &err), -1);   /* 256 digits */
    ck_assert_str_eq(err.msg, MSG_OVERFLOW);
    ck_assert_int_eq(num_sub(a, a, out, &err), 0);
    ck_assert_str_eq(out, "0");
    ck_assert_int_eq(num_add(b, b, out, &err), 0);
    ck_assert_int_eq(num_canonical("2e-130", a, &err), 0);
    ck_assert_str_eq(out, a);
}
END_TEST

/* ------------------------------------------------------------------------
 * size (throttling.md 2)
 * ---------------------------------------------------------------------- */

static const struct { const char *n; size_t size; } size_cases[] = {
    { "0", 1 },
    { "1", 2 },
    { "-1", 3 },
    { "9", 2 },
    { "12", 2 },
    { "27", 2 },
    { "123", 3 },
    { "1234", 3 },
    { "12345", 4 },
    { "123.45", 4 },
    { "-123.45", 5 },
    { "1.5", 3 },
    { "0.1", 2 },
    { "0.01", 2 },
    { "0.001", 2 },
    { "0.123", 3 },
    { "100", 2 },
    { "1000", 2 },
    { "1000000", 2 },
    { "1001000", 4 },
    { "12345678901234567890123456789012345678", 20 },
    { "-12345678901234567890123456789012345678", 21 },
    { "1.2345678901234567890123456789012345678", 21 },
    { "-1.2345678901234567890123456789012345678", 21 },  /* capped */
};

START_TEST(test_number_size)
{
    char canon[NUM_TEXT_MAX];

    ck_assert_int_eq(num_canonical(size_cases[_i].n, canon, NULL), 0);
    ck_assert_msg(num_size(canon) == size_cases[_i].size, "%s: %zu != %zu",
                  size_cases[_i].n, num_size(canon), size_cases[_i].size);
}
END_TEST

/* ------------------------------------------------------------------------
 * sort key: memcmp order == numeric order, against a GMP oracle
 * ---------------------------------------------------------------------- */

struct sample {
    char canon[NUM_TEXT_MAX];
    uint8_t key[NUM_KEY_MAX];
    size_t keylen;
    mpq_t q;                        /* exact value, built independently */
};

static int
key_cmp(const struct sample *a, const struct sample *b)
{
    size_t n = a->keylen < b->keylen ? a->keylen : b->keylen;
    int c = memcmp(a->key, b->key, n);

    if (c != 0)
        return c < 0 ? -1 : 1;
    return a->keylen < b->keylen ? -1 : a->keylen > b->keylen;
}

static int
sgn(int c)
{
    return c < 0 ? -1 : c > 0;
}

/* A random number: sign, 1..38 digits (leading nonzero), an exponent
 * keeping it in range; q gets D * 10^x exactly. Biased to small
 * exponents and short mantissas half the time so close values collide. */
static void
sample_random(struct sample *s, unsigned *seed)
{
    char text[128], digits[40];
    int k, i, x, lo, hi, neg;
    mpz_t z, p;

    k = rand_r(seed) % 2 ? 1 + rand_r(seed) % 3 : 1 + rand_r(seed) % 38;
    for (i = 0; i < k; i++)
        digits[i] = (char)('0' + rand_r(seed) % 10);
    if (digits[0] == '0')
        digits[0] = '1';
    digits[k] = '\0';
    lo = -130 - (k - 1);
    hi = 125 - (k - 1);
    if (rand_r(seed) % 2)
        x = -4 + rand_r(seed) % 9;
    else
        x = lo + rand_r(seed) % (hi - lo + 1);
    if (x < lo)
        x = lo;
    if (x > hi)
        x = hi;
    neg = rand_r(seed) % 2;
    if (rand_r(seed) % 50 == 0) {
        strcpy(digits, "0");
        neg = 0;
    }
    snprintf(text, sizeof(text), "%s%se%d", neg ? "-" : "", digits, x);
    ck_assert_msg(num_canonical(text, s->canon, NULL) == 0, "%s", text);
    s->keylen = num_sortkey(s->canon, s->key);
    ck_assert_uint_le(s->keylen, NUM_KEY_MAX);

    mpz_inits(z, p, NULL);
    mpz_set_str(z, digits, 10);
    if (neg)
        mpz_neg(z, z);
    mpq_init(s->q);
    mpz_ui_pow_ui(p, 10, (unsigned long)abs(x));
    if (x >= 0) {
        mpz_mul(z, z, p);
        mpq_set_z(s->q, z);
    } else {
        mpq_set_num(s->q, z);
        mpq_set_den(s->q, p);
        mpq_canonicalize(s->q);
    }
    mpz_clears(z, p, NULL);
}

START_TEST(test_number_sortkey_order)
{
    enum { N = 1500 };
    struct sample *s = calloc(N, sizeof(*s));
    unsigned seed = 12345;
    int i, j, oracle;

    ck_assert_ptr_nonnull(s);
    for (i = 0; i < N; i++)
        sample_random(&s[i], &seed);
    for (i = 0; i < N; i++) {
        for (j = 0; j < N; j++) {
            oracle = sgn(mpq_cmp(s[i].q, s[j].q));
            ck_assert_msg(sgn(num_cmp(s[i].canon, s[j].canon)) == oracle,
                          "num_cmp(%s, %s)", s[i].canon, s[j].canon);
            ck_assert_msg(key_cmp(&s[i], &s[j]) == oracle,
                          "sortkey(%s) vs sortkey(%s)", s[i].canon,
                          s[j].canon);
        }
    }
    for (i = 0; i < N; i++)
        mpq_clear(s[i].q);
    free(s);
}
END_TEST

START_TEST(test_number_sortkey_edges)
{
    /* Ascending; each adjacent pair must encode in order. */
    static const char *const asc[] = {
        "-9.9999999999999999999999999999999999999e125", "-1e125",
        "-100", "-99.5", "-10", "-9", "-1.23", "-1.2", "-1.0001", "-1",
        "-0.99", "-0.1", "-1e-129", "-1e-130", "0", "1e-130", "1.1e-130",
        "1e-129", "0.1", "0.10001", "0.99", "1", "1.0001", "1.2", "1.23",
        "9", "10", "99.5", "100", "1e125",
        "9.9999999999999999999999999999999999999e125",
    };
    struct sample a, b;
    size_t i;

    for (i = 0; i + 1 < sizeof(asc) / sizeof(asc[0]); i++) {
        ck_assert_int_eq(num_canonical(asc[i], a.canon, NULL), 0);
        ck_assert_int_eq(num_canonical(asc[i + 1], b.canon, NULL), 0);
        a.keylen = num_sortkey(a.canon, a.key);
        b.keylen = num_sortkey(b.canon, b.key);
        ck_assert_msg(key_cmp(&a, &b) < 0, "%s !< %s", asc[i], asc[i + 1]);
        ck_assert_msg(num_cmp(a.canon, b.canon) < 0, "%s !< %s", asc[i],
                      asc[i + 1]);
    }
    /* Equal values encode identically. */
    ck_assert_int_eq(num_canonical("1.50", a.canon, NULL), 0);
    ck_assert_int_eq(num_canonical("15e-1", b.canon, NULL), 0);
    a.keylen = num_sortkey(a.canon, a.key);
    b.keylen = num_sortkey(b.canon, b.key);
    ck_assert_int_eq(key_cmp(&a, &b), 0);
}
END_TEST

/* ------------------------------------------------------------------------
 * num_from_sortkey: the inverse of num_sortkey
 * ---------------------------------------------------------------------- */

/* num_from_sortkey(num_sortkey(c)) == c for canonical c. */
static void
assert_round_trip(const char *canon)
{
    uint8_t key[NUM_KEY_MAX];
    char back[NUM_TEXT_MAX];
    size_t len = num_sortkey(canon, key);

    ck_assert_msg(num_from_sortkey(key, len, back) == 0, "decode %s", canon);
    ck_assert_str_eq(back, canon);
}

START_TEST(test_number_from_sortkey_round_trip)
{
    static const char *const texts[] = {
        "0", "1", "-1", "10", "-10", "100", "0.1", "-0.1", "0.001",
        "-0.001", "1.5", "-1.5", "123.456", "-123.456", "1e-130",
        "-1e-130", "1.1e-130", "9.9999999999999999999999999999999999999e125",
        "-9.9999999999999999999999999999999999999e125", "1e125", "-1e125",
        "12345678901234567890123456789012345678",
        "-0.00000000000000000000000000000000000012345678901234567890123"
        "456789012345678",
        "1.0000000000000000000000000000000000001",
    };
    enum { N = 5000 };
    struct sample *s = calloc(1, sizeof(*s));
    char canon[NUM_TEXT_MAX];
    unsigned seed = 4242;
    size_t i;

    ck_assert_ptr_nonnull(s);
    for (i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
        ck_assert_msg(num_canonical(texts[i], canon, NULL) == 0, "%s",
                      texts[i]);
        assert_round_trip(canon);
    }
    for (i = 0; i < N; i++) {
        sample_random(s, &seed);
        assert_round_trip(s->canon);
        mpq_clear(s->q);
    }
    free(s);
}
END_TEST

START_TEST(test_number_from_sortkey_invalid)
{
    static const uint8_t empty[1] = { 0 }, zero2[] = { 0x02, 0x02 },
        tag[] = { 0x04, 0x82, 0x02 }, short_pos[] = { 0x03, 0x82 },
        digit0[] = { 0x03, 0x82, 0x00 }, digit11[] = { 0x03, 0x82, 0x0B },
        neg_end[] = { 0x01, 0x7D, 0xFF }, neg_digit[] = { 0x01, 0x7D, 0x0B };
    char out[NUM_TEXT_MAX];

    ck_assert_int_eq(num_from_sortkey(empty, 0, out), -1);
    ck_assert_int_eq(num_from_sortkey(empty, 1, out), -1);
    ck_assert_int_eq(num_from_sortkey(zero2, sizeof(zero2), out), -1);
    ck_assert_int_eq(num_from_sortkey(tag, sizeof(tag), out), -1);
    ck_assert_int_eq(num_from_sortkey(short_pos, sizeof(short_pos), out), -1);
    ck_assert_int_eq(num_from_sortkey(digit0, sizeof(digit0), out), -1);
    ck_assert_int_eq(num_from_sortkey(digit11, sizeof(digit11), out), -1);
    ck_assert_int_eq(num_from_sortkey(neg_end, sizeof(neg_end), out), -1);
    ck_assert_int_eq(num_from_sortkey(neg_digit, sizeof(neg_digit), out),
                     -1);
}
END_TEST

START_TEST(test_number_from_sortkey_lenient)
{
    /* What num_sortkey never writes still reads as a number: digits past
     * the 38th are ignored, a negative needs no terminator, and a digit 0
     * at the end shows as written. */
    uint8_t key[2 + NUM_MAX_DIGITS + 2];
    static const uint8_t neg[] = { 0x01, 0x7D, 0x09 },
        trail0[] = { 0x03, 0x82, 0x02, 0x01 };
    char out[NUM_TEXT_MAX];
    size_t i;

    key[0] = 0x03;
    key[1] = 0x82 + 37;                 /* E = 37: a 38-digit integer */
    for (i = 2; i < sizeof(key); i++)
        key[i] = 0x02;                  /* digit 1 */
    ck_assert_int_eq(num_from_sortkey(key, sizeof(key), out), 0);
    ck_assert_str_eq(out, "11111111111111111111111111111111111111");
    ck_assert_int_eq(num_from_sortkey(neg, sizeof(neg), out), 0);
    ck_assert_str_eq(out, "-1");
    ck_assert_int_eq(num_from_sortkey(trail0, sizeof(trail0), out), 0);
    ck_assert_str_eq(out, "1.0");
}
END_TEST

/* ------------------------------------------------------------------------
 * err.c
 * ---------------------------------------------------------------------- */

START_TEST(test_number_err_struct)
{
    struct ddb_err err;

    ddb_err_init(&err);
    ck_assert_int_eq(err.type, DDB_OK);
    ck_assert_ptr_null(err.extra);
    ck_assert_int_eq(ddb_err_set(&err, DDB_VALIDATION, "x=%d %s", 5, "y"), -1);
    ck_assert_int_eq(err.type, DDB_VALIDATION);
    ck_assert_str_eq(err.msg, "x=5 y");
    ddb_err_extra_set_new(&err, "Item", json_object());
    ddb_err_extra_set_new(&err, "Other", json_integer(3));
    ck_assert_ptr_nonnull(err.extra);
    ck_assert_uint_eq(json_object_size(err.extra), 2);
    ddb_err_clear(&err);
    ck_assert_int_eq(err.type, DDB_OK);
    ck_assert_ptr_null(err.extra);
    ck_assert_str_eq(err.msg, "");
    ck_assert_int_eq(ddb_err_set(NULL, DDB_INTERNAL, "ignored"), -1);
    ddb_err_extra_set_new(NULL, "k", json_true());  /* takes, no leak */
}
END_TEST

static Suite *
number_suite(void)
{
    Suite *s = suite_create("number");
    TCase *tc;

    tc = tcase_create("parse");
    tcase_add_loop_test(tc, test_number_canonical, 0,
                        sizeof(canon_cases) / sizeof(canon_cases[0]));
    tcase_add_test(tc, test_number_limits_accepted);
    suite_add_tcase(s, tc);

    tc = tcase_create("errors");
    tcase_add_loop_test(tc, test_number_errors, 0,
                        sizeof(error_cases) / sizeof(error_cases[0]));
    tcase_add_test(tc, test_number_errors_null_err);
    tcase_add_test(tc, test_number_errors_huge_input);
    tcase_add_test(tc, test_number_err_struct);
    suite_add_tcase(s, tc);

    tc = tcase_create("compare");
    tcase_add_loop_test(tc, test_number_cmp, 0,
                        sizeof(cmp_cases) / sizeof(cmp_cases[0]));
    suite_add_tcase(s, tc);

    tc = tcase_create("arith");
    tcase_add_test(tc, test_number_arith_integers);
    tcase_add_loop_test(tc, test_number_arith, 0,
                        sizeof(arith_cases) / sizeof(arith_cases[0]));
    tcase_add_loop_test(tc, test_number_arith_errors, 0,
                        sizeof(arith_err_cases) / sizeof(arith_err_cases[0]));
    tcase_add_test(tc, test_number_arith_extremes);
    suite_add_tcase(s, tc);

    tc = tcase_create("size");
    tcase_add_loop_test(tc, test_number_size, 0,
                        sizeof(size_cases) / sizeof(size_cases[0]));
    suite_add_tcase(s, tc);

    tc = tcase_create("sortkey");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_number_sortkey_order);
    tcase_add_test(tc, test_number_sortkey_edges);
    tcase_add_test(tc, test_number_from_sortkey_round_trip);
    tcase_add_test(tc, test_number_from_sortkey_invalid);
    tcase_add_test(tc, test_number_from_sortkey_lenient);
    suite_add_tcase(s, tc);
    return s;
}

int
main(void)
{
    SRunner *sr = srunner_create(number_suite());
    int failed;

    srunner_run_all(sr, CK_ENV);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
