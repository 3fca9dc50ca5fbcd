/* SPDX-License-Identifier: MIT */
/* tags.c - TagResource, UntagResource and ListTagsOfResource: a table's
 * tags live in its description (PRIV_TAGS, in the order they were first
 * set), checked as DynamoDB checks them (also CreateTable's, check.c).
 * A "shardlocal:<knob>" tag set or removed here changes the table's
 * throttling at once (throttle/gate.c gate_table_retag). DynamoDB applies
 * tag changes asynchronously since August 2024 (ListTagsOfResource shows
 * the old set for about two seconds, ack-api-quirks DDB-TABLE-102); here
 * the change is visible as soon as the call returns, as it was before. */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

#include "api/proto/context.h"
#include "api/proto/validate.h"
#include "api/tables/tables.h"
#include "api/tables/tables_int.h"
#include "api/throttle/gate.h"
#include "storage/util.h"

#define TAG_KEY_MAX   128               /* characters (UTF-16 units) */
#define TAG_VALUE_MAX 256

/* ------------------------------------------------------------------------
 * Checking tags
 * ---------------------------------------------------------------------- */

/*
 * Is code point c allowed in a tag: AWS's tag pattern
 * [\p{L}\p{Z}\p{N}_.:/=+\-@]*, letters, separators (spaces) and numbers of
 * any script and seven punctuation characters. Outside ASCII, the blocks
 * of punctuation, symbols, controls, combining marks, private use and
 * emoji are refused and the rest taken for letters and numbers: an
 * approximation of the Unicode categories that agrees with every case
 * recorded (ack-api-quirks DDB-TABLE-106 and DDB-TABLE-372, 2026-10:
 * Cyrillic, Latin-1, CJK, NBSP and the ideographic space accepted; emoji,
 * '%', ',', quotes, brackets, '&', '*', ';', '?', '|', '\', '<>', '~', '#'
 * refused).
 */
static bool
tag_char_ok(uint32_t c)
{
    static const struct {
        uint32_t lo, hi;
    } refused[] = {
        { 0x80, 0xA0 - 1 }, { 0xA1, 0xA9 }, { 0xAB, 0xB1 }, { 0xB4, 0xB4 },
        { 0xB6, 0xB8 }, { 0xBB, 0xBB }, { 0xBF, 0xBF }, { 0xD7, 0xD7 },
        { 0xF7, 0xF7 }, { 0x0300, 0x036F }, { 0x200B, 0x2027 },
        { 0x202A, 0x202E }, { 0x2030, 0x205E }, { 0x2060, 0x206F },
        { 0x20A0, 0x20FF }, { 0x2190, 0x245F }, { 0x249C, 0x24E9 },
        { 0x2500, 0x2775 }, { 0x2794, 0x2BFF }, { 0x2E00, 0x2E7F },
        { 0x3001, 0x3004 }, { 0x3008, 0x3020 }, { 0x302A, 0x3030 },
        { 0x3036, 0x3037 }, { 0x303D, 0x303F }, { 0xE000, 0xF8FF },
        { 0xFE00, 0xFE6F }, { 0xFF01, 0xFF0F }, { 0xFF1A, 0xFF20 },
        { 0xFF3B, 0xFF40 }, { 0xFF5B, 0xFF65 }, { 0xFFE0, 0xFFFF },
        { 0x1F000, 0x1FAFF }, { 0xE0000, 0x10FFFF },
    };

    if (c < 0x80)
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
               (c >= '0' && c <= '9') || c == ' ' ||
               (c != 0 && strchr("_.:/=+-@", (int)c) != NULL);
    for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
        if (c >= refused[i].lo && c <= refused[i].hi)
            return false;
    return true;
}

/* Does the string v (length limits in characters) hold only allowed
 * characters, between min and max of them? jansson's strings are valid
 * UTF-8; a NUL byte (U+0000) is a control and refused. */
static bool
tag_text_ok(const json_t *v, long long min, long long max)
{
    const unsigned char *s = (const unsigned char *)json_string_value(v);
    size_t n = json_string_length(v), i = 0;
    long long len = validate_utf16_len((const char *)s, n);

    if (len < min || len > max)
        return false;
    while (i < n) {
        uint32_t c = s[i];
        int extra = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : c >= 0xC0 ? 1 : 0;

        if (extra > 0)
            c &= 0x3Fu >> extra;
        for (int k = 1; k <= extra && i + (size_t)k < n; k++)
            c = c << 6 | (s[i + (size_t)k] & 0x3Fu);
        if (!tag_char_ok(c))
            return false;
        i += (size_t)extra + 1;
    }
    return true;
}

/* One tag key as TagResource, UntagResource and CreateTable check it. */
static int
check_key(const json_t *key, struct ddb_err *err)
{
    if (!json_is_string(key))
        return ddb_err_set(err, DDB_VALIDATION, "The Tag Key provided is "
                           "invalid, Key: null");
    if (!tag_text_ok(key, 1, TAG_KEY_MAX))
        return ddb_err_set(err, DDB_VALIDATION, "The Tag Key provided is "
                           "invalid, Key: %s", json_string_value(key));
    /* Reserved for AWS, in any case (DDB-TABLE-105: "AWS:foo" too). */
    if (strncasecmp(json_string_value(key), "aws:", 4) == 0)
        return ddb_err_set(err, DDB_VALIDATION, "Tag Key cannot be prefixed "
                           "with aws:, Key: %s", json_string_value(key));
    return 0;
}

/* The tag with key (a JSON string) in list, or NULL. */
static json_t *
tag_find(const json_t *list, const json_t *key)
{
    const json_t *t;
    size_t i;

    json_array_foreach(list, i, t)
        if (json_same(json_object_get(t, "Key"), key))
            return (json_t *)t;
    return NULL;
}

/*
 * DynamoDB's tag checks and messages (ack-api-quirks DDB-TABLE-107,
 * DDB-TABLE-108 and the degenerate-input catalogue DDB-TABLE-457,
 * 2026-10): every tag's key and value, then duplicate keys, then the
 * count, all ValidationException, nothing applied on any failure.
 */
int
tables_check_tags(const json_t *tags, bool create, struct ddb_err *err)
{
    const json_t *t, *v;
    size_t i;

    if (!create && json_array_size(tags) == 0)
        return ddb_err_set(err, DDB_VALIDATION, "Atleast one Tag needs to "
                           "be provided as Input.");
    json_array_foreach(tags, i, t) {
        if (check_key(json_object_get(t, "Key"), err) != 0)
            return -1;
        v = json_object_get(t, "Value");
        if (!json_is_string(v))
            return ddb_err_set(err, DDB_VALIDATION, "The Tag Value provided "
                               "is invalid, Value: null");
        if (!tag_text_ok(v, 0, TAG_VALUE_MAX))
            return ddb_err_set(err, DDB_VALIDATION, "The Tag Value provided "
                               "is invalid, Value: %s",
                               json_string_value(v));
    }
    for (i = 1; i < json_array_size(tags); i++) {
        const json_t *key = json_object_get(json_array_get(tags, i), "Key");

        for (size_t j = 0; j < i; j++)
            if (json_same(json_object_get(json_array_get(tags, j), "Key"),
                          key))
                return ddb_err_set(err, DDB_VALIDATION, "Duplicate Tag Keys "
                                   "provided as input: Duplicate Tag Key "
                                   "found %s", json_string_value(key));
    }
    if (json_array_size(tags) > TABLES_TAGS_MAX)
        return ddb_err_set(err, DDB_VALIDATION, "Number of Tags exceed the "
                           "current limit for the provided ResourceArn");
    return 0;
}

/* ------------------------------------------------------------------------
 * The table a ResourceArn names
 * ---------------------------------------------------------------------- */

/* The members every tag call requires, in the order DynamoDB reports them
 * missing (dynalite's tests, recorded against DynamoDB: no ResourceArn is
 * "Invalid TableArn" whatever else is missing; then the framework's form
 * for list). */
static int
check_members(const json_t *req, const char *list, struct ddb_err *err)
{
    if (!json_has(req, "ResourceArn"))
        return ddb_err_set(err, DDB_VALIDATION, "Invalid TableArn");
    if (list != NULL && !json_has(req, list))
        return ddb_err_set(err, DDB_VALIDATION, "1 validation error "
                           "detected: Value null at '%c%s' failed to satisfy "
                           "constraint: Member must not be null",
                           list[0] - 'A' + 'a', list + 1);
    return 0;
}

/* ResourceNotFoundException as the tag calls word it (DDB-TABLE-070). */
static int
arn_not_found(const char *arn, struct ddb_err *err)
{
    return ddb_err_set(err, DDB_RESOURCE_NOT_FOUND, "Requested resource not "
                       "found: ResourceArn: %s not found", arn);
}

/*
 * Open the table of a checked ResourceArn a (arn: its text) with its
 * settled description, under the DDL lock when locked. A stream, a missing
 * table and a table still CREATING are all ResourceNotFoundException to
 * the tag calls (DDB-TABLE-071, DDB-TABLE-101).
 */
static int
tag_open(struct api_ctx *ctx, const char *arn, const struct tables_arn *a,
         bool locked, struct stable **t, json_t **desc, struct ddb_err *err)
{
    int o;

    if (a->kind != ARN_TABLE)
        return arn_not_found(arn, err);
    o = tables_open_settled(ctx, a->stored, locked, t, desc, err);
    if (o < 0)
        return -1;
    if (o == 0 && json_str_is(json_object_get(*desc, "TableStatus"),
                              "CREATING")) {
        json_decref(*desc);
        stable_release(*t);
        o = 1;
    }
    return o == 0 ? 0 : arn_not_found(arn, err);
}

/* The "shardlocal:" knob tags among tags (a new array). */
static json_t *
knob_tags(const json_t *tags)
{
    json_t *out = json_array();
    const json_t *tag;
    size_t i;

    json_array_foreach(tags, i, tag) {
        const char *k = json_string_value(json_object_get(tag, "Key"));

        if (k != NULL && strncmp(k, "shardlocal:", 11) == 0)
            json_array_append(out, (json_t *)tag);
    }
    return out;
}

/*
 * Store tags (taken) as t's under the DDL lock: refused while the table
 * is DELETING unless nothing changes (DDB-TABLE-374: re-sending a tag it
 * has passes), then the knobs among them take effect.
 */
static int
tags_store(struct api_ctx *ctx, const char *name, struct stable *t,
           json_t *desc, json_t *tags, struct ddb_err *err)
{
    json_t *before = json_object_get(desc, PRIV_TAGS);
    json_t *kb = NULL, *ka = NULL;
    struct ddb_err e;
    int rc = -1;

    if (json_same(before, tags) ||
        (before == NULL && json_array_size(tags) == 0)) {
        rc = 0;                         /* nothing changes */
        goto out;
    }
    if (json_str_is(json_object_get(desc, "TableStatus"), "DELETING")) {
        ddb_err_set(err, DDB_RESOURCE_IN_USE, "Attempt to change a resource "
                    "which is still in use: Table is being deleted: %s",
                    api_table_public(name));
        goto out;
    }
    kb = knob_tags(before);
    ka = knob_tags(tags);
    json_object_set(desc, PRIV_TAGS, tags);
    if (stable_set_desc(t, desc, err) != 0)
        goto out;
    gate_table_retag(ctx, t, desc);
    if (!json_equal(kb, ka))            /* the history's tag event */
        gate_table_tagged(ctx, name, desc);
    /* more partitions when a lower ceiling needs them, as UpdateTable
     * does; a failed split leaves the table as it was */
    ddb_err_init(&e);
    (void)gate_table_resize(ctx, t, desc, &e);
    ddb_err_clear(&e);
    rc = 0;
out:
    json_decref(kb);
    json_decref(ka);
    json_decref(tags);
    return rc;
}

/* ------------------------------------------------------------------------
 * The operations
 * ---------------------------------------------------------------------- */

/* The table's tags with list applied: upserted (add: a key already there
 * takes the new value in its place) or removed (keys). A new array. */
static json_t *
tags_apply(const json_t *have, const json_t *list, bool add)
{
    json_t *out = json_array(), *tag, *old;
    const json_t *e;
    size_t i, j;

    json_array_foreach(have, i, tag) {
        bool drop = false;

        json_array_foreach(list, j, e)
            drop = drop || (!add && json_same(json_object_get(tag, "Key"),
                                              e));
        if (!drop)
            json_array_append_new(out, json_deep_copy(tag));
    }
    json_array_foreach(add ? list : NULL, i, e) {
        old = tag_find(out, json_object_get(e, "Key"));
        if (old != NULL)
            json_object_set(old, "Value", json_object_get(e, "Value"));
        else
            json_array_append_new(out, json_pack("{s:O, s:O}", "Key",
                                                 json_object_get(e, "Key"),
                                                 "Value",
                                                 json_object_get(e,
                                                                 "Value")));
    }
    return out;
}

/* TagResource (add) or UntagResource on a checked ResourceArn: the
 * change under the DDL lock. The limit holds for the tags the table
 * would have (DDB-TABLE-108). */
static int
tags_change(struct api_ctx *ctx, const char *arn, const struct tables_arn *a,
            const json_t *list, bool add, json_t **resp, struct ddb_err *err)
{
    struct stable *t = NULL;
    json_t *desc = NULL, *tags;
    int rc = -1;

    api_ddl_lock();
    if (tag_open(ctx, arn, a, true, &t, &desc, err) != 0)
        goto out;
    tags = tags_apply(json_object_get(desc, PRIV_TAGS), list, add);
    if (json_array_size(tags) > TABLES_TAGS_MAX) {
        json_decref(tags);
        ddb_err_set(err, DDB_VALIDATION, "Number of Tags exceed the current "
                    "limit for the provided ResourceArn");
        goto out;
    }
    if (tags_store(ctx, a->stored, t, desc, tags, err) != 0)
        goto out;
    *resp = json_object();
    rc = 0;
out:
    api_ddl_unlock();
    json_decref(desc);
    if (t != NULL)
        stable_release(t);
    return rc;
}

int
api_tag_resource(struct api_ctx *ctx, const json_t *req, json_t **resp,
                 struct ddb_err *err)
{
    const char *arn = tables_str(req, "ResourceArn");
    const json_t *tags = json_object_get(req, "Tags");
    struct tables_arn a;

    if (check_members(req, "Tags", err) != 0 ||
        tables_resource_arn(ctx, arn, false, &a, err) != 0 ||
        tables_check_tags(tags, false, err) != 0)
        return -1;
    return tags_change(ctx, arn, &a, tags, true, resp, err);
}

int
api_untag_resource(struct api_ctx *ctx, const json_t *req, json_t **resp,
                   struct ddb_err *err)
{
    const char *arn = tables_str(req, "ResourceArn");
    const json_t *keys = json_object_get(req, "TagKeys"), *key;
    struct tables_arn a;
    size_t i;

    if (check_members(req, "TagKeys", err) != 0 ||
        tables_resource_arn(ctx, arn, false, &a, err) != 0)
        return -1;
    if (json_array_size(keys) == 0)
        return ddb_err_set(err, DDB_VALIDATION, "Atleast one Tag Key needs "
                           "to be provided as Input.");
    json_array_foreach(keys, i, key)
        if (check_key(key, err) != 0)
            return -1;
    /* even though it removes tags (DDB-TABLE-107) */
    if (json_array_size(keys) > TABLES_TAGS_MAX)
        return ddb_err_set(err, DDB_VALIDATION, "Number of Tags exceed the "
                           "current limit for the provided ResourceArn");
    return tags_change(ctx, arn, &a, keys, false, resp, err);
}

/*
 * Every tag in one page: a table has at most 50, and DynamoDB returns 50
 * of them without a NextToken (DDB-TABLE-108), so a NextToken sent back
 * can only start from the beginning, and is not needed.
 */
int
api_list_tags_of_resource(struct api_ctx *ctx, const json_t *req,
                          json_t **resp, struct ddb_err *err)
{
    const char *arn = tables_str(req, "ResourceArn");
    struct tables_arn a;
    struct stable *t = NULL;
    json_t *desc = NULL, *tags;

    if (check_members(req, NULL, err) != 0 ||
        tables_resource_arn(ctx, arn, false, &a, err) != 0 ||
        tag_open(ctx, arn, &a, false, &t, &desc, err) != 0)
        return -1;
    tags = json_object_get(desc, PRIV_TAGS);
    *resp = json_pack("{s:o}", "Tags", json_is_array(tags) ? json_clone(tags)
                                                           : json_array());
    json_decref(desc);
    stable_release(t);
    return 0;
}
