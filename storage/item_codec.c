/* SPDX-License-Identifier: MIT */
/* item_codec.c - key attribute values to order-preserving bytes (S as
 * UTF-8, B raw, N via num_sortkey), DynamoDB's hash of the partition key
 * that places an item on the partition ring, and base64 (B values). */

#include <string.h>

#include "storage/storage.h"
#include "storage/util.h"

/* ------------------------------------------------------------------------
 * Base64 (standard alphabet, padded), as DynamoDB accepts it
 * ---------------------------------------------------------------------- */

/* Value of one base64 character, or -1. */
int
item_b64_val(unsigned char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    if (c == '+')
        return 62;
    if (c == '/')
        return 63;
    return -1;
}

/* Decoded length of validated base64 text (api/proto/av.c checks it). */
size_t
item_b64_len(const char *s, size_t len)
{
    size_t pad = 0;

    if (len < 4 || len % 4 != 0)
        return len / 4 * 3;
    if (s[len - 1] == '=')
        pad = s[len - 2] == '=' ? 2 : 1;
    return len / 4 * 3 - pad;
}

/*
 * Decode standard padded base64 (already validated by api/proto/av.c) into
 * out, writing at most cap bytes. Returns the decoded length, or -1 if the
 * text is malformed or decodes to more than cap bytes.
 */
long
item_b64_decode(const char *s, size_t len, uint8_t *out, size_t cap)
{
    size_t i, o = 0;
    unsigned acc = 0;
    int bits = 0, v;

    if (len % 4 != 0)
        return -1;
    for (i = 0; i < len; i++) {
        if (s[i] == '=') {
            if (i + 2 < len || (i + 1 < len && s[i + 1] != '='))
                return -1;
            break;
        }
        v = item_b64_val((unsigned char)s[i]);
        if (v < 0)
            return -1;
        acc = (acc << 6) | (unsigned)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            if (o >= cap)
                return -1;
            out[o++] = (uint8_t)(acc >> bits);
            acc &= (1u << bits) - 1;
        }
    }
    return (long)o;
}

/*
 * Encode n bytes as standard padded base64 into out (4 * ((n + 2) / 3) + 1
 * bytes, NUL-terminated): the inverse of item_b64_decode(), e.g. to show a
 * key as a B value.
 */
void
item_b64_encode(const uint8_t *p, size_t n, char *out)
{
    static const char tab[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t i, o = 0;

    for (i = 0; i + 2 < n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];

        out[o++] = tab[v >> 18];
        out[o++] = tab[(v >> 12) & 63];
        out[o++] = tab[(v >> 6) & 63];
        out[o++] = tab[v & 63];
    }
    if (i < n) {
        uint32_t v = (uint32_t)p[i] << 16;

        if (i + 1 < n)
            v |= (uint32_t)p[i + 1] << 8;
        out[o++] = tab[v >> 18];
        out[o++] = tab[(v >> 12) & 63];
        out[o++] = i + 1 < n ? tab[(v >> 6) & 63] : '=';
        out[o++] = '=';
    }
    out[o] = '\0';
}

/*
 * Encode one key AttributeValue into out (KEY_BYTES_MAX bytes): S as its
 * UTF-8 bytes, B as the decoded bytes, N as num_sortkey() of the number
 * (canonicalised here too, so "1.0" and "1" encode alike). Returns the
 * length, or -1 if av is not an S, N or B of at most KEY_BYTES_MAX bytes.
 */
long
key_encode_value(const json_t *av, uint8_t *out)
{
    const json_t *v;
    const char *s;
    size_t len;

    if (!json_is_object(av) || json_object_size(av) != 1)
        return -1;
    if ((v = json_get_one(av, "S")) != NULL) {
        if (!json_is_string(v))
            return -1;
        len = json_string_length(v);
        if (len > KEY_BYTES_MAX)
            return -1;
        memcpy(out, json_string_value(v), len);
        return (long)len;
    }
    if ((v = json_get_one(av, "B")) != NULL) {
        if (!json_is_string(v))
            return -1;
        return item_b64_decode(json_string_value(v), json_string_length(v),
                               out, KEY_BYTES_MAX);
    }
    if ((v = json_get_one(av, "N")) != NULL) {
        char canon[NUM_TEXT_MAX];

        if (!json_is_string(v) || (s = json_string_value(v)) == NULL ||
            strlen(s) != json_string_length(v))
            return -1;
        if (num_canonical(s, canon, NULL) != 0)
            return -1;
        return (long)num_sortkey(canon, out);
    }
    return -1;
}

/*
 * DynamoDB's key hash (docs/design.md, "Placement"): MD5 over the fixed
 * prefix "Outliers" and the partition key's bytes as DynamoDB holds them:
 * an S key's UTF-8, a B key's raw bytes, an N key's internal base-100
 * decimal form (num_hashkey). It decides the partition an item lives on
 * and the order a Scan returns items in; public emulators reverse-engineered
 * it, and the scan orders it gives are those recorded against DynamoDB
 * (tests/e2e/test_keyhash.py). type 0 hashes pk as it is (the composite key
 * of a multi-attribute GSI, whose hash DynamoDB does not publish).
 */
#define KEY_HASH_PREFIX "Outliers"

void
key_pk_hash(char type, const uint8_t *pk, size_t pk_len, uint8_t out[16])
{
    uint8_t buf[sizeof(KEY_HASH_PREFIX) - 1 + KEY_BYTES_MAX];
    size_t pre = sizeof(KEY_HASH_PREFIX) - 1, n;

    memcpy(buf, KEY_HASH_PREFIX, pre);
    n = type == 'N' ? num_hashkey(pk, pk_len, buf + pre) : 0;
    if (n == 0) {                   /* S, B, raw (or not a number) */
        n = pk_len > KEY_BYTES_MAX ? KEY_BYTES_MAX : pk_len;
        if (n > 0)
            memcpy(buf + pre, pk, n);
    }
    md5_bytes(buf, pre + n, out);
}

/*
 * Fill k from the encoded partition key (of type pk_type: 'S', 'N', 'B',
 * or 0 for raw bytes; hashed into k->hash by key_pk_hash) and sort key (sk
 * may be NULL or empty when the table has none). Lengths are clamped to
 * KEY_BYTES_MAX; callers validate key sizes first.
 */
void
key_set(struct item_key *k, char pk_type, const uint8_t *pk, size_t pk_len,
        const uint8_t *sk, size_t sk_len)
{
    if (pk_len > KEY_BYTES_MAX)
        pk_len = KEY_BYTES_MAX;
    if (sk == NULL)
        sk_len = 0;
    if (sk_len > KEY_BYTES_MAX)
        sk_len = KEY_BYTES_MAX;
    if (pk_len > 0)
        memmove(k->pk, pk, pk_len);
    k->pk_len = pk_len;
    if (sk_len > 0)
        memmove(k->sk, sk, sk_len);
    k->sk_len = sk_len;
    key_pk_hash(pk_type, k->pk, pk_len, k->hash);
}

/* The first 64 bits of a key hash, big-endian: the position on the
 * ring. */
uint64_t
key_hash64(const uint8_t hash[16])
{
    uint64_t h = 0;
    int i;

    for (i = 0; i < 8; i++)
        h = (h << 8) | hash[i];
    return h;
}
