/* SPDX-License-Identifier: MIT */
/* av.c - AttributeValues as DynamoDB sees them: validation with its
 * exact messages in the older value layer (N canonicalised in place),
 * item size, equality and ordering. The pieces the request checks
 * (validate.c, av_current.c) share are exported in av.h. */

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "api/proto/av.h"
#include "storage/util.h"

#define MSG_EMPTY_AV "Supplied AttributeValue is empty, must contain " \
    "exactly one of the supported datatypes"
#define MSG_MULTI_AV "Supplied AttributeValue has more than one datatypes " \
    "set, must contain exactly one of the supported datatypes"
#define MSG_NESTING "Nesting Levels have exceeded supported limits: " \
    "Attributes in the item have nested levels beyond supported limit"
#define MSG_MAP_CLASS "Unrecognized collection type java.util.Map<" \
    "java.lang.String, com.amazonaws.dynamodb.v20120810.AttributeValue>"
#define SER_DEPTH_MAX 4096
#define MSG_START_STRUCT "Start of structure or map found where not expected"

/* ------------------------------------------------------------------------
 * Base64 (standard alphabet, padded), as DynamoDB accepts it
 * ---------------------------------------------------------------------- */

/*
 * Check that s is base64 DynamoDB accepts: a multiple of 4 long, only the
 * standard alphabet, at most two '=' and only at the end, and no stray bits
 * in the last character (so the text round-trips). Returns the decoded
 * length, or -1 with DynamoDB's SerializationException message.
 */
static long
b64_check(const char *s, size_t len, struct ddb_err *err)
{
    size_t i, pad = 0;
    int v;

    if (len % 4 != 0)
        return ddb_err_set(err, DDB_SERIALIZATION,
                           "Base64 encoded length is expected a multiple of "
                           "4 bytes but found: %zu", len);
    if (len == 0)
        return 0;
    if (s[len - 1] == '=')
        pad = s[len - 2] == '=' ? 2 : 1;
    for (i = 0; i < len - pad; i++)
        if (item_b64_val((unsigned char)s[i]) < 0)
            goto bad;
    v = item_b64_val((unsigned char)s[len - pad - 1]);
    if ((pad == 1 && (v & 0x03) != 0) || (pad == 2 && (v & 0x0f) != 0))
        goto bad;
    return (long)(len / 4 * 3 - pad);
bad:
    /* DynamoDB's spelling. */
    return ddb_err_set(err, DDB_SERIALIZATION,
                       "Invalid last non-pad Base64 character dectected");
}

/* Decode validated base64 (av.h). */
uint8_t *
av_b64_decode(const char *s, size_t len, size_t *outlen)
{
    uint8_t *out = xmalloc(len / 4 * 3 + 3);
    long n;

    n = item_b64_decode(s, len, out, len / 4 * 3 + 3);
    *outlen = n < 0 ? 0 : (size_t)n;
    return out;
}

/* ------------------------------------------------------------------------
 * Types
 * ---------------------------------------------------------------------- */

/* k (klen bytes: a key may hold NUL, which no type name does) is a type
 * name. */
static bool
is_av_type(const char *k, size_t klen)
{
    static const char *const types[] = {
        "S", "N", "B", "SS", "NS", "BS", "M", "L", "NULL", "BOOL"
    };
    size_t i;

    if (strlen(k) != klen)
        return false;
    for (i = 0; i < sizeof(types) / sizeof(types[0]); i++)
        if (strcmp(k, types[i]) == 0)
            return true;
    return false;
}

/* The single type key of an AttributeValue ("S", "N", "M", ...), or NULL
 * when av is not an object with exactly one known, non-null type key. */
const char *
av_type(const json_t *av)
{
    const char *k, *found = NULL;
    size_t klen;
    json_t *v;

    if (!json_is_object(av))
        return NULL;
    json_object_keylen_foreach((json_t *)av, k, klen, v) {
        if (!is_av_type(k, klen) || json_is_null(v))
            continue;
        if (found != NULL)
            return NULL;
        found = k;
    }
    return found;
}

/* ------------------------------------------------------------------------
 * Validation, pass 1: JSON types (SerializationException). DynamoDB
 * deserializes the whole request before validating it, so these errors
 * win over any ValidationException elsewhere in the value.
 * ---------------------------------------------------------------------- */

/* The SerializationException for v (not null, not a string) where a Java
 * scalar of class cls ("String", "Boolean", "Integer", "Long") belongs;
 * always -1. */
int
av_scalar_err(const json_t *v, const char *cls, struct ddb_err *err)
{
    if (json_is_true(v) || json_is_false(v))
        return ddb_err_set(err, DDB_SERIALIZATION,
                           "%s cannot be converted to %s",
                           json_is_true(v) ? "TRUE_VALUE" : "FALSE_VALUE", cls);
    if (json_is_integer(v))
        return ddb_err_set(err, DDB_SERIALIZATION,
                           "NUMBER_VALUE cannot be converted to %s", cls);
    if (json_is_real(v))
        return ddb_err_set(err, DDB_SERIALIZATION,
                           "DECIMAL_VALUE cannot be converted to %s", cls);
    if (json_is_object(v))
        return ddb_err_set(err, DDB_SERIALIZATION, MSG_START_STRUCT);
    return ddb_err_set(err, DDB_SERIALIZATION,
                       "Unrecognized collection type class java.lang.%s", cls);
}

/* A String member (S, N, SS/NS element). json null means "absent". */
static int
ser_string(const json_t *v, struct ddb_err *err)
{
    if (json_is_string(v) || json_is_null(v))
        return 0;
    return av_scalar_err(v, "String", err);
}

/* A Blob member (B, BS element): a base64 string; json null means
 * "absent". 0, or -1 with DynamoDB's SerializationException. */
int
av_ser_blob(const json_t *v, struct ddb_err *err)
{
    if (json_is_null(v))
        return 0;
    if (json_is_string(v))
        return b64_check(json_string_value(v), json_string_length(v),
                         err) < 0 ? -1 : 0;
    if (json_is_object(v))
        return ddb_err_set(err, DDB_SERIALIZATION, MSG_START_STRUCT);
    if (json_is_array(v))
        return ddb_err_set(err, DDB_SERIALIZATION,
                           "Unrecognized collection type class "
                           "java.nio.ByteBuffer");
    return ddb_err_set(err, DDB_SERIALIZATION,
                       "only base-64-encoded strings are convertible to bytes");
}

/* A Boolean member (BOOL, NULL). Strings DynamoDB's parser converts
 * ("true", "1", "yes", any case) are replaced by the boolean in place. */
static int
ser_bool(json_t *av, const char *key, json_t *v, struct ddb_err *err)
{
    if (json_is_boolean(v) || json_is_null(v))
        return 0;
    if (json_is_string(v)) {
        const char *s = json_string_value(v);

        if (strcasecmp(s, "true") == 0 || strcmp(s, "1") == 0 ||
            strcasecmp(s, "yes") == 0) {
            json_object_set_new(av, key, json_true());
            return 0;
        }
        if (strcasecmp(s, "false") == 0 || strcmp(s, "0") == 0 ||
            strcasecmp(s, "no") == 0) {
            json_object_set_new(av, key, json_false());
            return 0;
        }
        return ddb_err_set(err, DDB_SERIALIZATION,
                           "Unexpected token received from parser");
    }
    return av_scalar_err(v, "Boolean", err);
}

/* A List member (SS, NS, BS, L). */
static int
ser_list(const json_t *v, struct ddb_err *err)
{
    if (json_is_array(v) || json_is_null(v))
        return 0;
    if (json_is_object(v))
        return ddb_err_set(err, DDB_SERIALIZATION, MSG_START_STRUCT);
    return ddb_err_set(err, DDB_SERIALIZATION, "Unexpected field type");
}

static int ser_av(json_t *av, int depth, struct ddb_err *err);

/* A Map<String, AttributeValue> (M, or an item). */
static int
ser_map(json_t *m, int depth, struct ddb_err *err)
{
    const char *k;
    json_t *v;

    if (json_is_null(m))
        return 0;
    if (json_is_array(m))
        return ddb_err_set(err, DDB_SERIALIZATION, MSG_MAP_CLASS);
    if (!json_is_object(m))
        return ddb_err_set(err, DDB_SERIALIZATION, "Unexpected field type");
    json_object_foreach(m, k, v) {
        if (ser_av(v, depth, err) != 0)
            return -1;
    }
    return 0;
}

/* One AttributeValue structure and everything below it, at any depth:
 * DynamoDB deserializes the whole request before it checks nesting. The
 * cap only bounds recursion (jansson's parser stops at 2048 levels). */
static int
ser_av(json_t *av, int depth, struct ddb_err *err)
{
    const char *k;
    json_t *v;
    size_t i, klen;

    if (json_is_null(av))
        return 0;
    if (json_is_array(av))
        return ddb_err_set(err, DDB_SERIALIZATION,
                           "Unrecognized collection type class "
                           "com.amazonaws.dynamodb.v20120810.AttributeValue");
    if (!json_is_object(av))
        return ddb_err_set(err, DDB_SERIALIZATION,
                           "Unexpected value type in payload");
    if (depth > SER_DEPTH_MAX)
        return 0;
    json_object_keylen_foreach(av, k, klen, v) {
        if (strlen(k) != klen)
            continue;                   /* not a member DynamoDB knows */
        if (strcmp(k, "S") == 0 || strcmp(k, "N") == 0) {
            if (ser_string(v, err) != 0)
                return -1;
        } else if (strcmp(k, "B") == 0) {
            if (av_ser_blob(v, err) != 0)
                return -1;
        } else if (strcmp(k, "BOOL") == 0 || strcmp(k, "NULL") == 0) {
            if (ser_bool(av, k, v, err) != 0)
                return -1;
        } else if (strcmp(k, "SS") == 0 || strcmp(k, "NS") == 0 ||
                   strcmp(k, "BS") == 0 || strcmp(k, "L") == 0) {
            if (ser_list(v, err) != 0)
                return -1;
            for (i = 0; json_is_array(v) && i < json_array_size(v); i++) {
                json_t *e = json_array_get(v, i);
                int rc;

                if (k[0] == 'L')
                    rc = ser_av(e, depth + 1, err);
                else if (k[0] == 'B')
                    rc = av_ser_blob(e, err);
                else
                    rc = ser_string(e, err);
                if (rc != 0)
                    return -1;
            }
        } else if (strcmp(k, "M") == 0) {
            if (ser_map(v, depth + 1, err) != 0)
                return -1;
        }
    }
    return 0;
}

/* ------------------------------------------------------------------------
 * Validation, pass 2: DynamoDB's ValidationExceptions, N canonicalised
 * ---------------------------------------------------------------------- */

struct member {
    const char *s;
    size_t len;
    size_t i;                           /* position in the set */
};

static int
member_cmp(const void *pa, const void *pb)
{
    const struct member *a = pa, *b = pb;
    size_t n = a->len < b->len ? a->len : b->len;
    int c = memcmp(a->s, b->s, n);

    if (c != 0)
        return c;
    return a->len < b->len ? -1 : a->len > b->len;
}

/* By bytes, then by position: equal members keep the order sent. */
static int
member_pos_cmp(const void *pa, const void *pb)
{
    const struct member *a = pa, *b = pb;
    int c = member_cmp(a, b);

    return c != 0 ? c : (a->i > b->i) - (a->i < b->i);
}

/* By numeric value ("1" equals "1.0"), then by position. */
static int
member_num_cmp(const void *pa, const void *pb)
{
    const struct member *a = pa, *b = pb;
    int c = num_cmp(a->s, b->s);

    return c != 0 ? c : (a->i > b->i) - (a->i < b->i);
}

/*
 * The position of the first of arr's first n members that repeats an
 * earlier one, by bytes or, when numeric, by value (members must then be
 * valid numbers). Members that are not strings are passed over. Returns 0
 * when none repeats. Sorts rather than compares pairs: sets can be large.
 */
size_t
av_set_repeat(const json_t *arr, size_t n, bool numeric)
{
    struct member *m;
    size_t i, k = 0, first = 0;

    if (n > json_array_size(arr))
        n = json_array_size(arr);
    if (n < 2)
        return 0;
    m = xcalloc(n, sizeof(*m));
    for (i = 0; i < n; i++) {
        const json_t *e = json_array_get(arr, i);

        if (!json_is_string(e))
            continue;
        m[k].s = json_string_value(e);
        m[k].len = json_string_length(e);
        m[k++].i = i;
    }
    qsort(m, k, sizeof(*m), numeric ? member_num_cmp : member_pos_cmp);
    /* In a run of equal members the second is the first repeat. */
    for (i = 1; i < k; i++) {
        bool same = numeric ? num_cmp(m[i - 1].s, m[i].s) == 0
                            : member_cmp(&m[i - 1], &m[i]) == 0;

        if (same && (first == 0 || m[i].i < first))
            first = m[i].i;
    }
    free(m);
    return first;
}

/* Set members in DynamoDB's order: GetItem returns SS and BS members by
 * their bytes and NS members by value, not as written (eu-west-2,
 * 2026-10: paritysuite/dynamodb-conformance tier1/updateItem/
 * basic.test.ts, "ADD of an empty string member"). */
struct set_ent {
    json_t *v;
    uint8_t *bytes;                     /* decoded B, or NULL */
    size_t len;
    char type;                          /* 'S', 'N' or 'B' */
};

static int
set_ent_cmp(const void *pa, const void *pb)
{
    const struct set_ent *a = pa, *b = pb;
    const char *sa = json_string_value(a->v), *sb = json_string_value(b->v);
    size_t n;
    int c;

    if (a->type == 'N')
        return num_cmp(sa, sb);
    n = a->len < b->len ? a->len : b->len;
    c = memcmp(a->bytes != NULL ? (const void *)a->bytes : (const void *)sa,
               b->bytes != NULL ? (const void *)b->bytes : (const void *)sb,
               n);
    if (c != 0)
        return c;
    return a->len < b->len ? -1 : a->len > b->len;
}

void
item_set_sort(json_t *arr, char type)
{
    size_t i, n = json_array_size(arr);
    struct set_ent *e;

    if (n < 2)
        return;
    for (i = 0; i < n; i++)
        if (!json_is_string(json_array_get(arr, i)))
            return;
    e = xcalloc(n, sizeof(*e));
    for (i = 0; i < n; i++) {
        e[i].v = json_incref(json_array_get(arr, i));
        e[i].len = json_string_length(e[i].v);
        e[i].type = type;
        if (type == 'B')
            e[i].bytes = av_b64_decode(
                json_string_value(e[i].v), e[i].len, &e[i].len);
    }
    qsort(e, n, sizeof(*e), set_ent_cmp);
    for (i = 0; i < n; i++) {
        json_array_set_new(arr, i, e[i].v);
        free(e[i].bytes);
    }
    free(e);
}

/* "[a, b, c]" as DynamoDB quotes a set in its duplicate message. */
static void
set_str(const json_t *arr, char *out, size_t outsz)
{
    size_t i, o = 0;
    int w;

    w = snprintf(out, outsz, "[");
    o = w > 0 ? (size_t)w : 0;
    for (i = 0; i < json_array_size(arr) && o < outsz; i++) {
        const json_t *e = json_array_get(arr, i);

        w = snprintf(out + o, outsz - o, "%s%s", i ? ", " : "",
                     json_is_string(e) ? json_string_value(e) : "null");
        if (w < 0)
            break;
        o += (size_t)w;
    }
    if (o < outsz)
        snprintf(out + o, outsz - o, "]");
}

/* A set with a repeated member, as the older layer reports it: quoted as
 * sent, "Input collection [a, b, a]<of_type> contains duplicates." (of_type
 * is "of type BS" for binary sets). 0 when no member repeats. */
static int
set_duplicates(const json_t *v, const char *of_type, struct ddb_err *err)
{
    char buf[DDB_ERR_MSG_MAX];

    if (av_set_repeat(v, json_array_size(v), false) == 0)
        return 0;
    set_str(v, buf, sizeof(buf));
    return ddb_err_set(err, DDB_VALIDATION, AV_MSG_INVALID "Input collection "
                       "%.3900s%s contains duplicates.", buf, of_type);
}

/*
 * Split a number's text, [+-]digits[.digits][(e|E)[+-]digits], into the
 * parts BigDecimal's range checks read (av.h struct av_num_text). Text
 * that stops early leaves the later parts unset.
 */
void
av_num_scan(const char *s, struct av_num_text *t)
{
    bool point = false;

    memset(t, 0, sizeof(*t));
    if (*s == '+' || *s == '-')
        s++;
    for (; (*s >= '0' && *s <= '9') || (*s == '.' && !point); s++) {
        if (*s == '.') {
            point = true;
            continue;
        }
        t->digit = true;
        if (*s != '0')
            t->nonzero = true;
        if (t->nonzero)
            t->prec++;
        if (point)
            t->frac++;
    }
    t->exp = s;
    if (*s != 'e' && *s != 'E')
        return;
    s++;
    t->has_exp = true;
    t->eneg = *s == '-';
    if (*s == '+' || *s == '-')
        s++;
    t->exp = s;
    for (; *s >= '0' && *s <= '9'; s++)
        if (t->exp_value <= (long long)INT_MAX + 1)
            t->exp_value = t->exp_value * 10 + (*s - '0');
    t->nexp = (size_t)(s - t->exp);
    t->end = *s == '\0';
    if (t->eneg)
        t->exp_value = -t->exp_value;
}

/*
 * Whether Java's int arithmetic on BigDecimal's precision and scale wraps
 * for text (precision - scale > INT_MAX, e.g. "1e2147483647"): the older
 * value layer (Scan, BatchWriteItem, transactions) then reports an
 * underflow where the magnitude overflows (paritysuite/dynamodb-conformance
 * valueLayers.test.ts, "BatchWriteItem ... older wording").
 */
static bool
java_magnitude_wraps(const char *text)
{
    struct av_num_text t;

    av_num_scan(text, &t);
    return t.has_exp && t.nonzero &&
           t.prec - (t.frac - t.exp_value) > INT_MAX;
}

/* Canonicalise one N string in place (arr index i, or av key "N"). */
static int
canon_number(json_t *holder, const char *key, size_t idx, json_t *v,
             struct ddb_err *err)
{
    char canon[NUM_TEXT_MAX];
    const char *s = json_is_string(v) ? json_string_value(v) : "";

    if (json_is_string(v) && strlen(s) != json_string_length(v))
        return ddb_err_set(err, DDB_VALIDATION,
                           "The parameter cannot be converted to a numeric "
                           "value: %s", s);
    if (num_canonical(s, canon, err) != 0) {
        if (strncmp(err->msg, "Number overflow.", 16) == 0 &&
            java_magnitude_wraps(s))
            ddb_err_set(err, DDB_VALIDATION, "Number underflow. Attempting "
                        "to store a number with magnitude smaller than "
                        "supported range");
        return -1;
    }
    if (strcmp(canon, s) == 0)
        return 0;
    if (key != NULL)
        json_object_set_new(holder, key, json_string(canon));
    else
        json_array_set_new(holder, idx, json_string(canon));
    return 0;
}

/* Drop unknown members and explicit nulls, which DynamoDB's parser
 * ignores, so the stored value is clean. */
static void
drop_junk(json_t *av)
{
    const char *k;
    json_t *v, *junk = json_array();
    size_t i, klen;

    if (junk == NULL)
        abort();
    json_object_keylen_foreach(av, k, klen, v) {
        if (!is_av_type(k, klen) || json_is_null(v))
            json_array_append_new(junk, json_stringn_nocheck(k, klen));
    }
    json_array_foreach(junk, i, v)
        json_object_deln(av, json_string_value(v), json_string_length(v));
    json_decref(junk);
}

static int val_av(json_t *av, int depth, struct ddb_err *err);

/* Validate the members of an L or M one level down. */
static int
val_children(json_t *v, bool is_map, int depth, struct ddb_err *err)
{
    const char *mk;
    json_t *e;
    size_t i;

    /* A container's members sit one level deeper: a container at level
     * 32 (depth 31) is already too deep, even when empty. */
    if (depth + 1 >= ITEM_DEPTH_MAX)
        return ddb_err_set(err, DDB_VALIDATION, MSG_NESTING);
    if (is_map) {
        json_object_foreach(v, mk, e) {
            if (val_av(e, depth + 1, err) != 0)
                return -1;
        }
    } else {
        json_array_foreach(v, i, e) {
            if (val_av(e, depth + 1, err) != 0)
                return -1;
        }
    }
    return 0;
}

/*
 * The rules, per type in DynamoDB's order (S, SS, N, NS, B, BS, M, L,
 * BOOL, NULL; e.g. {"S": "a", "N": "b"} reports the bad number), then
 * the count of types. Pass 1 has checked the JSON types.
 */
static int
val_av(json_t *av, int depth, struct ddb_err *err)
{
    struct json_probe pr;
    json_t *v;
    size_t i, ntypes = 0;

    if (depth >= ITEM_DEPTH_MAX)
        return ddb_err_set(err, DDB_VALIDATION, MSG_NESTING);
    if (!json_is_object(av))
        return ddb_err_set(err, DDB_VALIDATION, MSG_EMPTY_AV);

    json_probe_init(&pr, av);
#define MEMBER(name) ((v = json_probe_get(&pr, name)) != NULL && \
                      !json_is_null(v) && ++ntypes)
    if (MEMBER("S")) {
        /* any string, even empty, is fine outside keys */
    }
    if (MEMBER("SS")) {
        if (json_array_size(v) == 0)
            return ddb_err_set(err, DDB_VALIDATION, AV_MSG_INVALID
                               "An string set  may not be empty");
        if (set_duplicates(v, "", err) != 0)
            return -1;
        for (i = 0; i < json_array_size(v); i++)
            if (json_is_null(json_array_get(v, i)))
                return ddb_err_set(err, DDB_VALIDATION, AV_MSG_INVALID
                                   "An string set may not have a null "
                                   "string as a member");
        item_set_sort(v, 'S');
    }
    if (MEMBER("N")) {
        if (canon_number(av, "N", 0, v, err) != 0)
            return -1;
    }
    if (MEMBER("NS")) {
        if (json_array_size(v) == 0)
            return ddb_err_set(err, DDB_VALIDATION, AV_MSG_INVALID
                               "An number set  may not be empty");
        for (i = 0; i < json_array_size(v); i++)
            if (canon_number(v, NULL, i, json_array_get(v, i), err) != 0)
                return -1;
        /* Members are canonical now: "1" and "1.0" collide. */
        if (av_set_repeat(v, json_array_size(v), false) != 0)
            return ddb_err_set(err, DDB_VALIDATION,
                               "Input collection contains duplicates");
        item_set_sort(v, 'N');
    }
    if (MEMBER("B")) {
        /* base64 checked in pass 1; empty is fine outside keys */
    }
    if (MEMBER("BS")) {
        if (json_array_size(v) == 0)
            return ddb_err_set(err, DDB_VALIDATION, AV_MSG_INVALID
                               "Binary sets should not be empty");
        for (i = 0; i < json_array_size(v); i++)
            if (json_is_null(json_array_get(v, i)))
                return ddb_err_set(err, DDB_VALIDATION,
                                   "The supplied Item contains a null "
                                   "AttributeValue");
        if (set_duplicates(v, "of type BS", err) != 0)
            return -1;
        item_set_sort(v, 'B');
    }
    if (MEMBER("M")) {
        if (val_children(v, true, depth, err) != 0)
            return -1;
    }
    if (MEMBER("L")) {
        if (val_children(v, false, depth, err) != 0)
            return -1;
    }
    if (MEMBER("BOOL")) {
        /* converted to a boolean in pass 1 */
    }
    if (MEMBER("NULL")) {
        if (!json_is_true(v))
            return ddb_err_set(err, DDB_VALIDATION, AV_MSG_INVALID
                               "Null attribute value types must have "
                               "the value of true");
    }
#undef MEMBER
    if (ntypes == 0)
        return ddb_err_set(err, DDB_VALIDATION, MSG_EMPTY_AV);
    if (ntypes > 1)
        return ddb_err_set(err, DDB_VALIDATION, MSG_MULTI_AV);
    if (json_object_size(av) != 1)
        drop_junk(av);
    return 0;
}

/*
 * Validate one AttributeValue as DynamoDB does, first the JSON types of the
 * whole value (SerializationException), then the rules (ValidationException):
 * exactly one type, well-formed numbers (canonicalised in place), NULL true,
 * no empty sets, no duplicate set members, nesting at most ITEM_DEPTH_MAX
 * levels counting av as level depth + 1. BOOL/NULL given as "true"/"false"
 * strings are converted, unknown members dropped.
 */
int
av_validate(json_t *av, int depth, struct ddb_err *err)
{
    if (ser_av(av, depth, err) != 0)
        return -1;
    return val_av(av, depth, err);
}

/* Validate every attribute of an item map ("Item", "Key", ...): JSON types
 * of all attributes first, then the rules, as DynamoDB orders them. */
int
item_validate(json_t *item, struct ddb_err *err)
{
    const char *k;
    json_t *v;

    if (ser_map(item, 0, err) != 0)
        return -1;
    if (!json_is_object(item))
        return 0;
    json_object_foreach(item, k, v) {
        if (val_av(v, 0, err) != 0)
            return -1;
    }
    return 0;
}

/* A request map member validated, copied first when copy (av.h). */
static int
member_validate(const json_t *req, const char *member, bool copy,
                json_t **out, struct ddb_err *err)
{
    json_t *m = json_object_get(req, member);

    *out = NULL;
    if (m == NULL || json_is_null(m))
        return 0;
    *out = copy ? json_clone(m) : json_incref(m);
    if (*out == NULL)
        return ddb_err_set(err, DDB_INTERNAL, "out of memory");
    if (item_validate(*out, err) != 0) {
        json_decref(*out);
        *out = NULL;
        return -1;
    }
    return 0;
}

int
item_copy_validate(const json_t *req, const char *member, json_t **out,
                   struct ddb_err *err)
{
    return member_validate(req, member, true, out, err);
}

int
item_take_validate(const json_t *req, const char *member, json_t **out,
                   struct ddb_err *err)
{
    return member_validate(req, member, false, out, err);
}

/* ------------------------------------------------------------------------
 * Size (throttling.md 2)
 * ---------------------------------------------------------------------- */

/* Bytes av counts toward item size: S UTF-8 bytes, B raw bytes, N per
 * num_size, BOOL/NULL 1, sets the sum of their members, L and M 3 plus 1
 * per element plus the elements (M elements include their names). */
size_t
av_size(const json_t *av)
{
    const char *t = av_type(av), *k;
    const json_t *v, *e;
    size_t i, klen, size = 0;

    if (t == NULL)
        return 0;
    v = json_get_one(av, t);
    switch (t[0]) {
    case 'S':
        if (t[1] == '\0')
            return json_string_length(v);
        json_array_foreach(v, i, e)
            size += json_string_length(e);
        return size;
    case 'N':
        if (t[1] == '\0')
            return num_size(json_string_value(v));
        if (t[1] == 'S') {
            json_array_foreach(v, i, e)
                size += num_size(json_string_value(e));
            return size;
        }
        return 1;                   /* NULL */
    case 'B':
        if (t[1] == '\0')
            return item_b64_len(json_string_value(v),
                                json_string_length(v));
        if (t[1] == 'S') {
            json_array_foreach(v, i, e)
                size += item_b64_len(json_string_value(e),
                                     json_string_length(e));
            return size;
        }
        return 1;                   /* BOOL */
    case 'L':
        size = 3;
        json_array_foreach(v, i, e)
            size += 1 + av_size(e);
        return size;
    case 'M':
        size = 3;
        json_object_keylen_foreach((json_t *)v, k, klen, e)
            size += 1 + klen + av_size(e);
        return size;
    }
    return 0;
}

/* Bytes an item counts: for each attribute its name's UTF-8 bytes plus
 * av_size of its value. Compare with ITEM_SIZE_MAX. */
size_t
item_size(const json_t *item)
{
    const char *k;
    json_t *v;
    size_t klen, size = 0;

    if (!json_is_object(item))
        return 0;
    json_object_keylen_foreach((json_t *)item, k, klen, v)
        size += klen + av_size(v);
    return size;
}

/* ------------------------------------------------------------------------
 * Equality and order
 * ---------------------------------------------------------------------- */

static int
b64_cmp(const json_t *a, const json_t *b)
{
    size_t alen, blen;
    uint8_t *da = av_b64_decode(json_string_value(a),
                                json_string_length(a), &alen);
    uint8_t *db = av_b64_decode(json_string_value(b),
                                json_string_length(b), &blen);
    int c = bytes_cmp((const char *)da, alen, (const char *)db, blen);

    free(da);
    free(db);
    return c;
}

static bool
str_equal(const json_t *a, const json_t *b)
{
    return json_is_string(a) && json_is_string(b) &&
        json_string_length(a) == json_string_length(b) &&
        memcmp(json_string_value(a), json_string_value(b),
               json_string_length(a)) == 0;
}

/*
 * The members of a set as a sorted array (caller frees *buf and the
 * result). NS members are canonicalised first, so numerically equal
 * members compare equal as bytes ("2.0" and "2").
 */
static struct member *
set_sorted(const json_t *arr, bool numeric, char **buf)
{
    size_t i, n = json_array_size(arr);
    struct member *m = xcalloc(n ? n : 1, sizeof(*m));
    const json_t *e;

    *buf = numeric ? xcalloc(n ? n : 1, NUM_TEXT_MAX) : NULL;
    json_array_foreach(arr, i, e) {
        m[i].s = json_is_string(e) ? json_string_value(e) : "";
        m[i].len = json_is_string(e) ? json_string_length(e) : 0;
        if (numeric) {
            char *c = *buf + i * NUM_TEXT_MAX;

            if (num_canonical(m[i].s, c, NULL) == 0) {
                m[i].s = c;
                m[i].len = strlen(c);
            }
        }
    }
    qsort(m, n, sizeof(*m), member_cmp);
    return m;
}

/* Whether sets a and b (arrays of strings) hold the same members. */
static bool
set_equal(const json_t *a, const json_t *b, bool numeric)
{
    size_t i, n = json_array_size(a);
    struct member *ma, *mb;
    char *bufa, *bufb;
    bool eq = true;

    if (json_array_size(b) != n)
        return false;
    ma = set_sorted(a, numeric, &bufa);
    mb = set_sorted(b, numeric, &bufb);
    for (i = 0; i < n && eq; i++)
        eq = member_cmp(&ma[i], &mb[i]) == 0;
    free(ma);
    free(mb);
    free(bufa);
    free(bufb);
    return eq;
}

/* Equality of two validated AttributeValues: same type and value; sets
 * compare as sets, N numerically ("1" equals "1.0"), L in order, M by key. */
bool
av_equal(const json_t *a, const json_t *b)
{
    const char *ta = av_type(a), *tb = av_type(b), *k;
    const json_t *va, *vb, *e;
    size_t i, klen;

    if (ta == NULL || tb == NULL || strcmp(ta, tb) != 0)
        return false;
    va = json_object_get(a, ta);
    vb = json_object_get(b, tb);
    if (strcmp(ta, "S") == 0 || strcmp(ta, "B") == 0)
        return str_equal(va, vb);
    if (strcmp(ta, "N") == 0)
        return json_is_string(va) && json_is_string(vb) &&
            num_cmp(json_string_value(va), json_string_value(vb)) == 0;
    if (strcmp(ta, "BOOL") == 0 || strcmp(ta, "NULL") == 0)
        return json_is_true(va) == json_is_true(vb);
    if (ta[1] == 'S')               /* SS, NS, BS */
        return json_is_array(va) && json_is_array(vb) &&
            set_equal(va, vb, ta[0] == 'N');
    if (strcmp(ta, "L") == 0) {
        if (json_array_size(va) != json_array_size(vb))
            return false;
        json_array_foreach(va, i, e)
            if (!av_equal(e, json_array_get(vb, i)))
                return false;
        return true;
    }
    if (strcmp(ta, "M") == 0) {
        if (json_object_size(va) != json_object_size(vb))
            return false;
        json_object_keylen_foreach((json_t *)va, k, klen, e) {
            const json_t *o = json_object_getn(vb, k, klen);

            if (o == NULL || !av_equal(e, o))
                return false;
        }
        return true;
    }
    return false;
}

/*
 * Order of two scalar values of the same type: S by UTF-8 bytes (unsigned),
 * B by decoded bytes (unsigned), N numerically. Returns <0, 0, >0 with
 * *comparable = true; 0 with *comparable = false when the types differ or
 * are not S, N or B.
 */
int
av_compare(const json_t *a, const json_t *b, bool *comparable)
{
    const char *ta = av_type(a), *tb = av_type(b);
    const json_t *va, *vb;
    bool ok = false;
    int c = 0;

    if (ta != NULL && tb != NULL && strcmp(ta, tb) == 0 && ta[1] == '\0' &&
        (ta[0] == 'S' || ta[0] == 'N' || ta[0] == 'B')) {
        va = json_object_get(a, ta);
        vb = json_object_get(b, tb);
        if (json_is_string(va) && json_is_string(vb)) {
            ok = true;
            if (ta[0] == 'S')
                c = bytes_cmp(json_string_value(va), json_string_length(va),
                              json_string_value(vb), json_string_length(vb));
            else if (ta[0] == 'N')
                c = num_cmp(json_string_value(va), json_string_value(vb));
            else
                c = b64_cmp(va, vb);
        }
    }
    if (comparable != NULL)
        *comparable = ok;
    return ok ? (c < 0 ? -1 : c > 0) : 0;
}
