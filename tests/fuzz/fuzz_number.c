/* SPDX-License-Identifier: MIT */
/* fuzz_number.c - libFuzzer target for exact decimals (storage/number.c):
 * input "a" or "a|b". Each number that parses must round-trip through its
 * sortable encoding, and for two numbers the encodings' memcmp order,
 * num_cmp and the sign of a - b must agree; a + b - b must equal a when
 * both succeed. Its hash key (DynamoDB's form, num_hashkey) is built and
 * bounded; any bytes given as an encoding are decoded, hashed or refused.
 * A finding: a crash, a sanitizer report, or a broken invariant. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "storage/storage.h"
#include "storage/util.h"

static int
sign(int v)
{
    return (v > 0) - (v < 0);
}

#define CHECK(c)                                                          \
    do {                                                                  \
        if (!(c)) {                                                       \
            fprintf(stderr, "fuzz_number: %s\n", #c);                     \
            abort();                                                      \
        }                                                                 \
    } while (0)

/* Canonical form of text into out, its encoding into key; the length of
 * the encoding, or 0 if text is not a DynamoDB number. */
static size_t
one(const char *text, char *out, uint8_t *key)
{
    char back[NUM_TEXT_MAX];
    struct ddb_err err;
    size_t n;

    ddb_err_init(&err);
    if (num_canonical(text, out, &err) != 0) {
        CHECK(err.type == DDB_VALIDATION && err.msg[0] != '\0');
        return 0;
    }
    n = num_sortkey(out, key);
    CHECK(n > 0 && n <= NUM_KEY_MAX);
    CHECK(num_from_sortkey(key, n, back) == 0);
    CHECK(strcmp(back, out) == 0);
    CHECK(num_cmp(out, out) == 0);
    {
        uint8_t hk[NUM_HASH_MAX];
        size_t h = num_hashkey(key, n, hk);

        CHECK(h > 0 && h <= NUM_HASH_MAX - 2);
        /* zero is the one byte 0x80, nothing else is one byte */
        CHECK((h == 1) == (strcmp(out, "0") == 0));
        CHECK(h > 1 || hk[0] == 0x80);
    }
    return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text, *bar, a[NUM_TEXT_MAX], b[NUM_TEXT_MAX];
    char sum[NUM_TEXT_MAX], diff[NUM_TEXT_MAX], back[NUM_TEXT_MAX];
    uint8_t ka[NUM_KEY_MAX], kb[NUM_KEY_MAX];
    struct ddb_err err;
    size_t na, nb;

    if (size > 1024)
        return -1;
    text = malloc(size + 1);
    memcpy(text, data, size);
    text[size] = '\0';
    /* any bytes as an encoding: decoded or refused, never a crash */
    (void)num_from_sortkey(data, size, back);
    {
        uint8_t hk[NUM_HASH_MAX], h[16];

        CHECK(num_hashkey(data, size, hk) <= NUM_HASH_MAX - 2);
        if (size <= KEY_BYTES_MAX)
            key_pk_hash('N', data, size, h);
    }
    bar = strchr(text, '|');
    if (bar != NULL)
        *bar = '\0';
    na = one(text, a, ka);
    if (bar != NULL && na > 0 && (nb = one(bar + 1, b, kb)) > 0) {
        int c = num_cmp(a, b);

        CHECK(sign(c) == sign(bytes_cmp(ka, na, kb, nb)));
        ddb_err_init(&err);
        if (num_sub(a, b, diff, &err) == 0)
            CHECK(sign(c) == (diff[0] == '-' ? -1 : strcmp(diff, "0") != 0));
        ddb_err_init(&err);
        if (num_add(a, b, sum, &err) == 0 &&
            num_sub(sum, b, back, &err) == 0)
            CHECK(num_cmp(back, a) == 0);
    }
    free(text);
    return 0;
}
