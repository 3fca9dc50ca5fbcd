/* SPDX-License-Identifier: MIT */
/* number.c - DynamoDB's decimal Number type: parsing with DynamoDB's limits
 * and messages, canonical text, exact add/subtract (GMP integers plus a
 * decimal exponent, never double), comparison, size and an order-preserving
 * byte encoding for sort keys. */

#include <gmp.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "storage/storage.h"
#include "storage/util.h"

/* Range of the adjusted exponent E, where |v| = d.ddd x 10^E. */
#define NUM_EXP_MIN (-130)
#define NUM_EXP_MAX 125

#define MSG_DIGITS \
    "Attempting to store more than 38 significant digits in a Number"
#define MSG_OVERFLOW "Number overflow. Attempting to store a number with " \
    "magnitude larger than supported range"
#define MSG_UNDERFLOW "Number underflow. Attempting to store a number with " \
    "magnitude smaller than supported range"
#define MSG_NAN "The parameter cannot be converted to a numeric value"

/*
 * A parsed decimal: value = sign * 0.d1 d2 ... dn * 10^(exp + 1), i.e. the
 * first digit has weight 10^exp. digits holds only significant digits (no
 * leading or trailing zeros); n == 0 means zero. When a number has more
 * than NUM_MAX_DIGITS significant digits, n is the true count but only
 * the first NUM_MAX_DIGITS + 1 are stored.
 */
struct dec {
    int neg;                        /* 1 if negative (never for zero) */
    long exp;                       /* weight of the first digit */
    int n;                          /* significant digits (true count) */
    char digits[NUM_MAX_DIGITS + 2];
};

/* ------------------------------------------------------------------------
 * Parsing
 * ---------------------------------------------------------------------- */

/*
 * Parse text the way Java's BigDecimal does (DynamoDB accepts "+3", ".5",
 * "5.", "1e+5", "0001.23", "0e1000"; it refuses "NaN", "Infinity", spaces;
 * Alternator test_number.py test_invalid_numbers):
 * [+-] digits [. digits] [(e|E) [+-] digits], at least one mantissa digit.
 * An exponent outside int range, or a scale (fraction digits minus
 * exponent) outside int range, is not a number, as in BigDecimal
 * ("Exponent overflow", "Scale out of range"). Returns 0, or -1.
 */
static int
dec_parse(const char *text, struct dec *d)
{
    const char *p = text;
    long long e = 0;                /* explicit exponent */
    long pos = 0;                   /* digits seen before '.' */
    long first = -1;                /* index (from the left) of first nonzero */
    long last = -1;                 /* index of last nonzero digit */
    long idx = 0;                   /* digit index over the whole mantissa */
    int seen_digit = 0, seen_point = 0, eneg = 0, n = 0;

    memset(d, 0, sizeof(*d));
    if (p == NULL)
        return -1;
    if (*p == '+' || *p == '-') {
        d->neg = (*p == '-');
        p++;
    }
    for (;; p++) {
        if (*p >= '0' && *p <= '9') {
            seen_digit = 1;
            if (*p != '0') {
                if (first < 0)
                    first = idx;
                last = idx;
            }
            if (!seen_point)
                pos++;
            idx++;
        } else if (*p == '.' && !seen_point) {
            seen_point = 1;
        } else {
            break;
        }
    }
    if (!seen_digit)
        return -1;
    if (*p == 'e' || *p == 'E') {
        int edigits = 0;

        p++;
        if (*p == '+' || *p == '-') {
            eneg = (*p == '-');
            p++;
        }
        for (; *p >= '0' && *p <= '9'; p++) {
            e = e * 10 + (*p - '0');
            if (e > (long long)INT_MAX + 1)
                return -1;          /* BigDecimal: exponent overflow */
            edigits++;
        }
        if (edigits == 0)
            return -1;
        if (eneg)
            e = -e;
        if (e > INT_MAX)
            return -1;
    }
    if (*p != '\0')
        return -1;
    /* BigDecimal's scale (fraction digits - exponent) must fit an int. */
    if ((long long)(idx - pos) - e > INT_MAX ||
        (long long)(idx - pos) - e < INT_MIN)
        return -1;
    if (first < 0) {                /* zero, whatever its exponent */
        d->neg = 0;
        d->n = 0;
        d->exp = 0;
        return 0;
    }
    /* Second pass: collect the significant digits. */
    idx = 0;
    for (p = text; *p != '\0' && *p != 'e' && *p != 'E'; p++) {
        if (*p < '0' || *p > '9')
            continue;
        if (idx >= first && idx <= last) {
            if (n < NUM_MAX_DIGITS + 1)
                d->digits[n] = *p;
            n++;
        }
        idx++;
    }
    d->n = n;
    d->digits[n < NUM_MAX_DIGITS + 1 ? n : NUM_MAX_DIGITS + 1] = '\0';
    /* Digit at mantissa index first has weight 10^(pos - 1 - first). */
    d->exp = (long)(pos - 1 - first) + (long)e;
    return 0;
}

/* Check DynamoDB's limits on a parsed number, in DynamoDB's order
 * (DynamoDB Local's validateNumericValue: precision, then overflow, then
 * underflow). */
static int
dec_check(const struct dec *d, struct ddb_err *err)
{
    if (d->n == 0)
        return 0;
    if (d->n > NUM_MAX_DIGITS)
        return ddb_err_set(err, DDB_VALIDATION, "%s", MSG_DIGITS);
    if (d->exp > NUM_EXP_MAX)
        return ddb_err_set(err, DDB_VALIDATION, "%s", MSG_OVERFLOW);
    if (d->exp < NUM_EXP_MIN)
        return ddb_err_set(err, DDB_VALIDATION, "%s", MSG_UNDERFLOW);
    return 0;
}

/* Write d (within limits) in canonical plain notation to out. */
static void
dec_format(const struct dec *d, char *out)
{
    char *o = out;
    long i;

    if (d->n == 0) {
        strcpy(out, "0");
        return;
    }
    if (d->neg)
        *o++ = '-';
    if (d->exp < 0) {
        *o++ = '0';
        *o++ = '.';
        for (i = 0; i < -d->exp - 1; i++)
            *o++ = '0';
        memcpy(o, d->digits, (size_t)d->n);
        o += d->n;
    } else {
        for (i = 0; i <= d->exp; i++)
            *o++ = i < d->n ? d->digits[i] : '0';
        if (d->n > d->exp + 1) {
            *o++ = '.';
            for (i = d->exp + 1; i < d->n; i++)
                *o++ = d->digits[i];
        }
    }
    *o = '\0';
}

/*
 * Parse text (the JSON string of an N), check DynamoDB's limits and write
 * the canonical form to out (NUM_TEXT_MAX bytes). Returns 0, or -1 with a
 * ValidationException carrying DynamoDB's message. The empty string gets
 * the message without the ": <text>" suffix, as DynamoDB sends it.
 */
int
num_canonical(const char *text, char *out, struct ddb_err *err)
{
    struct dec d;

    if (text == NULL || *text == '\0')
        return ddb_err_set(err, DDB_VALIDATION, "%s", MSG_NAN);
    if (dec_parse(text, &d) != 0)
        return ddb_err_set(err, DDB_VALIDATION, "%s: %.3800s", MSG_NAN, text);
    if (dec_check(&d, err) != 0)
        return -1;
    dec_format(&d, out);
    return 0;
}

/* ------------------------------------------------------------------------
 * Comparison
 * ---------------------------------------------------------------------- */

/* Compare magnitudes of two parsed nonzero numbers. */
static int
dec_cmp_abs(const struct dec *a, const struct dec *b)
{
    int i, c;

    if (a->exp != b->exp)
        return a->exp < b->exp ? -1 : 1;
    for (i = 0; i < a->n && i < b->n && i <= NUM_MAX_DIGITS; i++) {
        c = (unsigned char)a->digits[i] - (unsigned char)b->digits[i];
        if (c != 0)
            return c < 0 ? -1 : 1;
    }
    if (a->n == b->n)
        return 0;
    return a->n < b->n ? -1 : 1;
}

/*
 * Compare two numbers: <0, 0, >0. Meant for canonical text but accepts any
 * number syntax; text that is not a number falls back to strcmp order so
 * the result is still a total order.
 */
int
num_cmp(const char *a, const char *b)
{
    struct dec da, db;
    int sa, sb, c;

    if (dec_parse(a, &da) != 0 || dec_parse(b, &db) != 0)
        return strcmp(a ? a : "", b ? b : "");
    sa = da.n == 0 ? 0 : da.neg ? -1 : 1;
    sb = db.n == 0 ? 0 : db.neg ? -1 : 1;
    if (sa != sb)
        return sa < sb ? -1 : 1;
    if (sa == 0)
        return 0;
    c = dec_cmp_abs(&da, &db);
    return sa < 0 ? -c : c;
}

/* ------------------------------------------------------------------------
 * Arithmetic (GMP integer coefficient, decimal exponent)
 * ---------------------------------------------------------------------- */

/* Set z = signed coefficient of d, with *scale = exponent of its last
 * digit (value = z * 10^scale). */
static void
dec_to_mpz(const struct dec *d, mpz_t z, long *scale)
{
    if (d->n == 0) {
        mpz_set_ui(z, 0);
        *scale = 0;
        return;
    }
    mpz_set_str(z, d->digits, 10);
    if (d->neg)
        mpz_neg(z, z);
    *scale = d->exp - (d->n - 1);
}

/*
 * out = a + sign*b exactly. A result outside DynamoDB's range, or one
 * that needs more than 38 significant digits, is refused: DynamoDB answers
 * both with the overflow message (e.g. 1e50 + 1: "Number overflow...",
 * see Alternator test_number.py test_update_expression_plus_imprecise),
 * and a result below 1E-130 with the underflow message.
 */
static int
num_addsub(const char *a, const char *b, int negate_b, char *out,
           struct ddb_err *err)
{
    struct dec da, db, r;
    mpz_t za, zb, p;
    long sa, sb, s;
    char *txt = NULL;
    size_t len;
    int rc = -1;

    if (dec_parse(a, &da) != 0)
        return ddb_err_set(err, DDB_VALIDATION, "%s: %.3800s", MSG_NAN,
                           a ? a : "null");
    if (dec_parse(b, &db) != 0)
        return ddb_err_set(err, DDB_VALIDATION, "%s: %.3800s", MSG_NAN,
                           b ? b : "null");
    if (dec_check(&da, err) != 0 || dec_check(&db, err) != 0)
        return -1;
    mpz_inits(za, zb, p, NULL);
    dec_to_mpz(&da, za, &sa);
    dec_to_mpz(&db, zb, &sb);
    if (negate_b)
        mpz_neg(zb, zb);
    /* Align to the smaller scale; operands are in range, so the shift is
     * at most a few hundred digits. */
    if (da.n == 0)
        sa = sb;
    if (db.n == 0)
        sb = sa;
    s = sa < sb ? sa : sb;
    mpz_ui_pow_ui(p, 10, (unsigned long)(sa - s));
    mpz_mul(za, za, p);
    mpz_ui_pow_ui(p, 10, (unsigned long)(sb - s));
    mpz_mul(zb, zb, p);
    mpz_add(za, za, zb);

    memset(&r, 0, sizeof(r));
    if (mpz_sgn(za) == 0) {
        strcpy(out, "0");
        rc = 0;
        goto out;
    }
    r.neg = mpz_sgn(za) < 0;
    mpz_abs(za, za);
    txt = mpz_get_str(NULL, 10, za);
    len = strlen(txt);
    while (len > 1 && txt[len - 1] == '0') {
        txt[--len] = '\0';
        s++;
    }
    r.exp = s + (long)len - 1;
    r.n = (int)(len > INT_MAX ? INT_MAX : len);
    if (r.exp > NUM_EXP_MAX || r.n > NUM_MAX_DIGITS) {
        ddb_err_set(err, DDB_VALIDATION, "%s", MSG_OVERFLOW);
        goto out;
    }
    if (r.exp < NUM_EXP_MIN) {
        ddb_err_set(err, DDB_VALIDATION, "%s", MSG_UNDERFLOW);
        goto out;
    }
    memcpy(r.digits, txt, len + 1);
    dec_format(&r, out);
    rc = 0;
out:
    if (txt != NULL) {
        void (*freefn)(void *, size_t);

        mp_get_memory_functions(NULL, NULL, &freefn);
        freefn(txt, strlen(txt) + 1);
    }
    mpz_clears(za, zb, p, NULL);
    return rc;
}

/*
 * Counters: both operands canonical integers of at most 18 digits ("0",
 * "-42"), whose sum fits an int64_t and is a valid Number, written as
 * dec_format() would. *v gets the value; false for any other text (GMP
 * then decides).
 */
#define SMALL_INT_DIGITS 18

static bool
small_int(const char *s, int64_t *v)
{
    const char *d = s + (*s == '-');
    int64_t n = 0;
    size_t i;

    if (d[0] == '0') {                 /* "0" alone: no "-0", no "01" */
        if (d[1] != '\0' || d != s)
            return false;
        *v = 0;
        return true;
    }
    for (i = 0; d[i] >= '0' && d[i] <= '9'; i++) {
        if (i == SMALL_INT_DIGITS)
            return false;
        n = n * 10 + (d[i] - '0');
    }
    if (i == 0 || d[i] != '\0')
        return false;
    *v = d == s ? n : -n;
    return true;
}

static void
small_int_format(int64_t v, char *out)
{
    if (v < 0)
        *out++ = '-';
    uint_dec(v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v, out);
}

/* out = a + b exactly (canonical in, canonical out); -1 with DynamoDB's
 * message when the result is not a storable Number. */
int
num_add(const char *a, const char *b, char *out, struct ddb_err *err)
{
    int64_t x, y;

    if (a != NULL && b != NULL && small_int(a, &x) && small_int(b, &y)) {
        small_int_format(x + y, out);
        return 0;
    }
    return num_addsub(a, b, 0, out, err);
}

/* out = a - b exactly; see num_add. */
int
num_sub(const char *a, const char *b, char *out, struct ddb_err *err)
{
    int64_t x, y;

    if (a != NULL && b != NULL && small_int(a, &x) && small_int(b, &y)) {
        small_int_format(x - y, out);
        return 0;
    }
    return num_addsub(a, b, 1, out, err);
}

/* ------------------------------------------------------------------------
 * Size and sort key
 * ---------------------------------------------------------------------- */

/* Floor division by 2 for negative exponents too. */
static long
floor_half(long x)
{
    return x >= 0 ? x / 2 : -((-x + 1) / 2);
}

/*
 * Bytes a number counts toward item size (throttling.md 2). DynamoDB stores
 * the digits in base 100, pairs aligned on the decimal point, without
 * leading or trailing zero pairs: 1 byte of exponent + 1 per pair, +1
 * terminator when negative unless the mantissa already has 20 pairs; zero
 * is 1 byte (DynamoDB Local's encodeBigDecimal; zaccharles's measured
 * calculator agrees). For plain numbers this is the measured
 * 1 + ceil(int_digits/2) + ceil(frac_digits/2) (+1 if negative): "123.45"
 * is 4, "-1" is 3, "0.001" is 2; at most 21.
 */
size_t
num_size(const char *canon)
{
    struct dec d;
    long pairs;
    size_t size;

    if (dec_parse(canon, &d) != 0 || d.n == 0)
        return 1;
    pairs = floor_half(d.exp) - floor_half(d.exp - (d.n - 1)) + 1;
    size = 1 + (size_t)pairs + (d.neg && pairs < 20 ? 1 : 0);
    return size;
}

/*
 * Order-preserving encoding: memcmp order of encodings == numeric order.
 *   negative: 0x01, 255 - (E + 130), each digit as 10 - d, then 0xFF
 *   zero:     0x02
 *   positive: 0x03, E + 130, each digit as d + 1
 * E (the exponent of the first digit) is in [-130, 125], so E + 130 fits a
 * byte. Digit bytes are 1..10; a shorter positive number that is a prefix
 * of a longer one sorts first (smaller), and the negative terminator 0xFF
 * sorts after every digit byte, so the prefix sorts last (larger) among
 * negatives. At most 2 + 38 + 1 = 41 bytes.
 */
size_t
num_sortkey(const char *canon, uint8_t *out)
{
    struct dec d;
    size_t len = 0;
    int i, n;

    if (dec_parse(canon, &d) != 0 || d.n == 0) {
        out[0] = 0x02;
        return 1;
    }
    if (d.exp > NUM_EXP_MAX)
        d.exp = NUM_EXP_MAX;
    if (d.exp < NUM_EXP_MIN)
        d.exp = NUM_EXP_MIN;
    n = d.n > NUM_MAX_DIGITS ? NUM_MAX_DIGITS : d.n;
    if (d.neg) {
        out[len++] = 0x01;
        out[len++] = (uint8_t)(255 - (d.exp - NUM_EXP_MIN));
        for (i = 0; i < n; i++)
            out[len++] = (uint8_t)(10 - (d.digits[i] - '0'));
        out[len++] = 0xFF;
    } else {
        out[len++] = 0x03;
        out[len++] = (uint8_t)(d.exp - NUM_EXP_MIN);
        for (i = 0; i < n; i++)
            out[len++] = (uint8_t)(d.digits[i] - '0' + 1);
    }
    return len;
}

/* num_sortkey()'s encoding back into d (the first NUM_MAX_DIGITS digit
 * bytes; a negative's 0xFF terminator ends them early; n == 0: zero).
 * Returns 0, or -1 if key is not such an encoding. */
static int
dec_from_sortkey(const uint8_t *key, size_t len, struct dec *d)
{
    size_t i;

    memset(d, 0, sizeof(*d));
    if (len == 1 && key[0] == 0x02)
        return 0;
    if (len < 3 || (key[0] != 0x01 && key[0] != 0x03))
        return -1;
    d->neg = key[0] == 0x01;
    d->exp = (long)(d->neg ? 255 - key[1] : key[1]) + NUM_EXP_MIN;
    for (i = 2; i < len && d->n < NUM_MAX_DIGITS; i++) {
        int v;

        if (d->neg && key[i] == 0xFF)
            break;
        v = d->neg ? 10 - (int)key[i] : (int)key[i] - 1;
        if (v < 0 || v > 9)
            return -1;
        d->digits[d->n++] = (char)('0' + v);
    }
    return d->n == 0 ? -1 : 0;
}

/*
 * Decode num_sortkey()'s encoding back to canonical text in out
 * (NUM_TEXT_MAX bytes), e.g. to show a stored key. Returns 0, or -1 if
 * key is not such an encoding.
 */
int
num_from_sortkey(const uint8_t *key, size_t len, char *out)
{
    struct dec d;

    if (dec_from_sortkey(key, len, &d) != 0)
        return -1;
    dec_format(&d, out);
    return 0;
}

/*
 * The bytes DynamoDB hashes for a number partition key, from num_sortkey()'s
 * encoding: its internal decimal form, base 100. Zero is the one byte 0x80.
 * Otherwise, with the value written 0.d1 d2 ... x 10^E and a 0 digit put in
 * front when E is odd (so that the digits pair up on powers of 100), the
 * first byte is the power of 100, E / 2, biased by 192 (its bits inverted
 * for a negative), then one byte per pair of digits (the last one padded
 * with a 0): pair + 1, or 101 - pair for a negative, whose bytes end with
 * 102 when there are fewer than 20 pairs. Writes at most NUM_HASH_MAX
 * bytes to out; returns the length, or 0 if key is not an encoding.
 *
 * This is the number encoding public emulators reverse-engineered; with
 * it, the scan order of number keys equals the order DynamoDB returned
 * (tests/e2e/test_keyhash.py names the recording).
 */
size_t
num_hashkey(const uint8_t *key, size_t len, uint8_t *out)
{
    int pair[NUM_MAX_DIGITS / 2 + 2];
    struct dec d;
    long e, half;
    int i, np = 0, pad;
    uint8_t b0;
    size_t n = 0;

    if (dec_from_sortkey(key, len, &d) != 0)
        return 0;
    if (d.n == 0) {
        out[0] = 0x80;
        return 1;
    }
    e = d.exp + 1;                  /* value = 0.d1 d2 ... x 10^e */
    pad = (int)(((e % 2) + 2) % 2); /* 1 when e is odd */
    half = (e + pad) / 2;
    for (i = -pad; i < d.n; i += 2) {
        int hi = i >= 0 ? d.digits[i] - '0' : 0;
        int lo = i + 1 < d.n ? d.digits[i + 1] - '0' : 0;

        pair[np++] = hi * 10 + lo;
    }
    b0 = (uint8_t)(unsigned long)(half - 64);
    out[n++] = d.neg ? (uint8_t)~b0 : b0;
    for (i = 0; i < np; i++)
        out[n++] = (uint8_t)(d.neg ? 101 - pair[i] : pair[i] + 1);
    if (d.neg && np < 20)
        out[n++] = 102;
    return n;
}
