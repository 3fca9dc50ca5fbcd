/* SPDX-License-Identifier: MIT */
/* fuzz_codec.c - libFuzzer target for the byte codecs: the JSON fast path
 * (storage/json_fast.c: when it parses, the tree must equal jansson's and
 * its dump must equal json_dumps' bytes), base64 (decode, encode, decode
 * again gives the same bytes) and key encoding (storage/item_codec.c) of
 * any AttributeValue the input parses to. A finding: a crash, a sanitizer
 * report, or a broken invariant. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "storage/json_fast.h"
#include "storage/util.h"
#include "storage/storage.h"

#define CHECK(c)                                                          \
    do {                                                                  \
        if (!(c)) {                                                       \
            fprintf(stderr, "fuzz_codec: %s\n", #c);                      \
            abort();                                                      \
        }                                                                 \
    } while (0)

/* Does v hold an object key with a NUL in it? jansson refuses those even
 * with JSON_ALLOW_NUL; the fast path keeps them (DynamoDB accepts NUL in
 * attribute names). */
static bool
has_nul_key(const json_t *v)
{
    const char *k;
    json_t *x;
    size_t i;

    if (json_is_object(v)) {
        void *it = json_object_iter((json_t *)v);

        for (; it != NULL; it = json_object_iter_next((json_t *)v, it)) {
            k = json_object_iter_key(it);
            if (strlen(k) != json_object_iter_key_len(it) ||
                has_nul_key(json_object_iter_value(it)))
                return true;
        }
    } else if (json_is_array(v)) {
        json_array_foreach(v, i, x)
            if (has_nul_key(x))
                return true;
    }
    return false;
}

static void
json_paths(const char *in, size_t size)
{
    json_t *fast = json_fast_loadb(in, size), *slow;
    struct json_fast_buf b = { NULL, 0, 0 };
    json_error_t jerr;
    uint8_t key[KEY_BYTES_MAX];

    slow = json_loadb(in, size, JSON_ALLOW_NUL, &jerr);
    if (fast != NULL) {
        /* jansson refuses NUL in a key; a later duplicate may have
         * replaced the value that held it, so its error says why */
        CHECK(slow != NULL ? json_same(fast, slow)
                           : has_nul_key(fast) ||
                                 strstr(jerr.text, "NUL byte in object key")
                                     != NULL);
        if (json_fast_dump(fast, &b) == 0) {
            char *ref = json_text(fast, JSON_COMPACT);

            CHECK(ref != NULL && strlen(ref) == b.len &&
                  memcmp(ref, b.p, b.len) == 0);
            free(ref);
        }
        free(b.p);
    }
    if (json_is_object(slow))
        (void)key_encode_value(slow, key);  /* any shape: no crash */
    json_decref(fast);
    json_decref(slow);
}

static void
base64(const char *in, size_t size)
{
    size_t cap = size + 4;
    uint8_t *raw = malloc(cap), *again = malloc(cap);
    char *text;
    long n, m;

    n = item_b64_decode(in, size, raw, cap);
    if (n >= 0) {
        CHECK((size_t)n == item_b64_len(in, size));
        text = malloc(4 * (((size_t)n + 2) / 3) + 1);
        item_b64_encode(raw, (size_t)n, text);
        m = item_b64_decode(text, strlen(text), again, cap);
        CHECK(m == n && memcmp(raw, again, (size_t)n) == 0);
        free(text);
    }
    free(raw);
    free(again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 65536)
        return -1;
    json_paths((const char *)data, size);
    base64((const char *)data, size);
    return 0;
}
