/* SPDX-License-Identifier: MIT */
/* av_current.c - DynamoDB's current value layer: malformed numbers and
 * repeated set members anywhere in a request's values, in the wording the
 * newer operations use. validate_request() runs it after the shape checks
 * for the operations whose schema names it; av.c holds the older layer. */

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/proto/av.h"
#include "storage/util.h"

/* ------------------------------------------------------------------------
 * DynamoDB checks attribute values in one of two layers, and the
 * operation decides which: PutItem, UpdateItem and DeleteItem run the
 * current one inside the "1 validation error detected: " envelope,
 * wherever the value sits (item, key, expression value, AttributeUpdates,
 * Expected, set member, nested); GetItem, BatchGetItem and Query run it
 * bare, expression values without the "ExpressionAttributeValues contains
 * invalid value: " wrapper. Scan, BatchWriteItem and the transactions keep
 * the older layer (av.c, from the handlers). The two differ for malformed
 * numbers and duplicate set members only (captured in four regions,
 * 2026-10: paritysuite/dynamodb-conformance
 * tests/tier3/error-messages/valueLayers.test.ts):
 *   current "The parameter cannot be converted to a numeric value: " even
 *           for "", an exponent past an int is an overflow or underflow;
 *           SS ["a", "b", "b"] / BS ["AA==","/w==","AA=="] quoted, in byte
 *           order up to the first repeat, then the repeat, then the rest
 *           as sent; NS "One or more parameter values were invalid:
 *           Input collection contains duplicates."
 * Other AttributeValue errors are left to the handlers.
 * ---------------------------------------------------------------------- */

#define MSG_NOT_NUMERIC "The parameter cannot be converted to a numeric value"
#define MSG_NUM_OVERFLOW "Number overflow. Attempting to store a number " \
    "with magnitude larger than supported range"
#define MSG_NUM_UNDERFLOW "Number underflow. Attempting to store a number " \
    "with magnitude smaller than supported range"

/* Whether s is [+-]digits[.digits] with a nonzero digit, then e/E,
 * [+-] and digits: a number BigDecimal refuses only for its exponent.
 * *eneg tells the exponent's sign. */
static bool
huge_exponent(const char *s, bool *eneg)
{
    struct av_num_text t;
    const char *d;
    size_t n;

    av_num_scan(s, &t);
    if (!t.nonzero || !t.has_exp || t.nexp == 0)
        return false;
    *eneg = t.eneg;
    /* An exponent past a 64-bit integer cannot be converted at all (not
     * numeric); up to there it is read in full (eu-west-2, 2026-10:
     * paritysuite/dynamodb-conformance limits/numberExponent.test.ts). */
    for (d = t.exp, n = t.nexp; n > 1 && *d == '0'; d++, n--)
        ;
    if (n > 19 || (n == 19 && strncmp(d, "9223372036854775807", 19) > 0))
        return false;
    return t.end;
}

/* A zero written with an exponent ("0e126", "0.0e-131") is range-checked
 * by that exponent as BigDecimal keeps it: exponent - fraction digits
 * must lie in -130..125 (numberExponent.test.ts, 2026-10). Returns 1 for
 * an overflow, -1 for an underflow, 0 otherwise. */
static int
zero_exponent_range(const char *s)
{
    struct av_num_text t;
    long long e;

    av_num_scan(s, &t);
    if (!t.digit || t.nonzero || !t.has_exp || t.nexp == 0 || !t.end)
        return 0;
    e = t.exp_value - t.frac;
    return e > 125 ? 1 : e < -130 ? -1 : 0;
}

/* One N in the current layer's words; 0 when it is a valid number. */
static int
cur_number(const json_t *v, char *msg, size_t cap)
{
    char canon[NUM_TEXT_MAX];
    const char *text;
    struct ddb_err e;
    bool eneg = false;

    if (!json_is_string(v))
        return 0;                       /* the handler reports it */
    text = json_string_value(v);
    ddb_err_init(&e);
    if (strlen(text) == json_string_length(v) &&
        zero_exponent_range(text) != 0) {
        snprintf(msg, cap, "%s", zero_exponent_range(text) > 0
                 ? MSG_NUM_OVERFLOW : MSG_NUM_UNDERFLOW);
        return -1;
    }
    if (strlen(text) == json_string_length(v) &&
        num_canonical(text, canon, &e) == 0)
        return 0;
    if (strlen(text) == json_string_length(v) && *text != '\0' &&
        strncmp(e.msg, MSG_NOT_NUMERIC, strlen(MSG_NOT_NUMERIC)) == 0 &&
        huge_exponent(text, &eneg))
        snprintf(msg, cap, "%s", eneg ? MSG_NUM_UNDERFLOW : MSG_NUM_OVERFLOW);
    else if (strncmp(e.msg, MSG_NOT_NUMERIC, strlen(MSG_NOT_NUMERIC)) == 0)
        snprintf(msg, cap, "%s: %.3000s", MSG_NOT_NUMERIC, text);
    else
        snprintf(msg, cap, "%.3000s", e.msg);
    ddb_err_clear(&e);
    return -1;
}

/* Compare two base64 strings by their decoded bytes (unsigned); any
 * character outside the alphabet is passed over. */
static int
b64_order(const char *a, const char *b)
{
    unsigned long acc_a = 0, acc_b = 0;
    int bits_a = 0, bits_b = 0, da, db;

    for (;;) {
        while (bits_a < 8 && *a != '\0' && *a != '=') {
            if ((da = item_b64_val((unsigned char)*a++)) < 0)
                continue;
            acc_a = (acc_a << 6) | (unsigned long)da;
            bits_a += 6;
        }
        while (bits_b < 8 && *b != '\0' && *b != '=') {
            if ((db = item_b64_val((unsigned char)*b++)) < 0)
                continue;
            acc_b = (acc_b << 6) | (unsigned long)db;
            bits_b += 6;
        }
        if (bits_a < 8 || bits_b < 8)
            return (bits_a >= 8) - (bits_b >= 8);
        da = (int)((acc_a >> (bits_a - 8)) & 0xff);
        db = (int)((acc_b >> (bits_b - 8)) & 0xff);
        bits_a -= 8;
        bits_b -= 8;
        if (da != db)
            return da < db ? -1 : 1;
    }
}

/* A set whose member rep repeats an earlier one, as the current layer
 * prints it: the members before rep in byte order, then the rest as
 * sent. */
static void
cur_duplicates(const json_t *arr, bool binary, size_t rep, char *msg,
               size_t cap)
{
    int (*order)(const char *, const char *) = binary ? b64_order : strcmp;
    const char **sorted = xcalloc(rep + 1, sizeof(*sorted));
    const char *sep = binary ? "," : ", ";
    size_t i, j, n = 0, len;

    for (i = 0; i < rep; i++) {         /* insertion sort, as sent */
        const char *m = json_string_value(json_array_get(arr, i));

        for (j = n; j > 0 && order(sorted[j - 1], m) > 0; j--)
            sorted[j] = sorted[j - 1];
        sorted[j] = m;
        n++;
    }
    len = (size_t)snprintf(msg, cap, AV_MSG_INVALID "Input collection [");
    for (i = 0; i < json_array_size(arr) && len < cap; i++) {
        const char *m = i < n ? sorted[i]
                              : json_string_value(json_array_get(arr, i));

        len += (size_t)snprintf(msg + len, cap - len, "%s\"%.200s\"",
                                i ? sep : "", m);
    }
    if (len < cap)
        snprintf(msg + len, cap - len, "]%s contains duplicates.",
                 binary ? "of type BS" : "");
    free(sorted);
}

/* A set's members: numbers, then the first repeat among the members
 * before any that is not a string. */
static int
cur_set(const json_t *arr, char type, char *msg, size_t cap)
{
    size_t i, n, rep;

    if (!json_is_array(arr))
        return 0;
    if (type == 'N')
        for (i = 0; i < json_array_size(arr); i++)
            if (cur_number(json_array_get(arr, i), msg, cap) != 0)
                return -1;
    for (n = 0; n < json_array_size(arr); n++)
        if (!json_is_string(json_array_get(arr, n)))
            break;
    rep = av_set_repeat(arr, n, type == 'N');
    if (rep == 0)
        return 0;
    if (type == 'N')
        snprintf(msg, cap, AV_MSG_INVALID "Input collection contains "
                 "duplicates.");
    else
        cur_duplicates(arr, type == 'B', rep, msg, cap);
    return -1;
}

/* One AttributeValue, nested ones included; -1 with msg set. */
static int
cur_value(const json_t *av, int depth, char *msg, size_t cap)
{
    struct json_probe pr;
    const char *k;
    json_t *x;
    size_t i;

    if (!json_is_object(av) || depth > ITEM_DEPTH_MAX + 1)
        return 0;
    json_probe_init(&pr, av);
    if ((x = json_probe_get(&pr, "N")) != NULL &&
        cur_number(x, msg, cap) != 0)
        return -1;
    if ((x = json_probe_get(&pr, "SS")) != NULL && cur_set(x, 'S', msg, cap))
        return -1;
    if ((x = json_probe_get(&pr, "NS")) != NULL && cur_set(x, 'N', msg, cap))
        return -1;
    if ((x = json_probe_get(&pr, "BS")) != NULL && cur_set(x, 'B', msg, cap))
        return -1;
    if ((x = json_probe_get(&pr, "M")) != NULL && json_is_object(x)) {
        json_t *m = x;

        json_object_foreach(m, k, x) {
            if (cur_value(x, depth + 1, msg, cap) != 0)
                return -1;
        }
    }
    if ((x = json_probe_get(&pr, "L")) != NULL && json_is_array(x)) {
        const json_t *l = x;

        json_array_foreach(l, i, x) {
            if (cur_value(x, depth + 1, msg, cap) != 0)
                return -1;
        }
    }
    return 0;
}

/* Every value of a map of AttributeValues (Item, Key, ...). */
static int
cur_avmap(const json_t *map, char *msg, size_t cap)
{
    const char *k;
    json_t *v;

    if (!json_is_object(map))
        return 0;
    json_object_foreach((json_t *)map, k, v) {
        if (cur_value(v, 0, msg, cap) != 0)
            return -1;
    }
    return 0;
}

/* Expected / QueryFilter / KeyConditions: Value and AttributeValueList. */
static int
cur_conditions(const json_t *conds, char *msg, size_t cap)
{
    const char *k;
    json_t *c, *x;
    size_t i;

    if (!json_is_object(conds))
        return 0;
    json_object_foreach((json_t *)conds, k, c) {
        if (!json_is_object(c))
            continue;
        if (cur_value(json_object_get(c, "Value"), 0, msg, cap) != 0)
            return -1;
        json_array_foreach(json_object_get(c, "AttributeValueList"), i, x) {
            if (cur_value(x, 0, msg, cap) != 0)
                return -1;
        }
    }
    return 0;
}

/* The single-table requests' values, in DynamoDB's order (av.h). */
int
av_current_request(const json_t *req, char *msg, size_t cap)
{
    /* in the order they are checked */
    static const char *const names[] = {
        "Item", "Key", "KeyConditions", "Expected", "QueryFilter",
        "AttributeUpdates", "ExpressionAttributeValues", "ExclusiveStartKey",
    };
    json_t *m[sizeof(names) / sizeof(names[0])];

    json_pick(req, names, sizeof(names) / sizeof(names[0]), m);
    return cur_avmap(m[0], msg, cap) || cur_avmap(m[1], msg, cap) ||
           cur_conditions(m[2], msg, cap) || cur_conditions(m[3], msg, cap) ||
           cur_conditions(m[4], msg, cap) || cur_conditions(m[5], msg, cap) ||
           cur_avmap(m[6], msg, cap) || cur_avmap(m[7], msg, cap)
               ? -1 : 0;
}

/* BatchGetItem's keys, table by table (av.h). */
int
av_current_batch_get(const json_t *req, char *msg, size_t cap)
{
    const char *k;
    json_t *x, *y;
    size_t i;

    json_object_foreach(json_object_get(req, "RequestItems"), k, x) {
        json_array_foreach(json_object_get(x, "Keys"), i, y) {
            if (cur_avmap(y, msg, cap) != 0)
                return -1;
        }
    }
    return 0;
}
