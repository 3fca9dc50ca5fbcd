/* SPDX-License-Identifier: MIT */
/* av.h - AttributeValues: validation with DynamoDB's messages in its two
 * value layers (av.c, with N canonicalisation in place; av_current.c),
 * item size, comparison (av.c), and building storage keys from a table's
 * key schema (key.c). */
#ifndef SHARDLOCAL_AV_H
#define SHARDLOCAL_AV_H

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>

#include "storage/storage.h"

#define ITEM_SIZE_MAX    409600     /* 400 KB */
#define ITEM_DEPTH_MAX   32
#define KEY_HASH_MAX     2048       /* partition key value bytes */
#define KEY_RANGE_MAX    1024       /* sort key value bytes */
#define ATTR_NAME_MAX    65535

#define AV_MSG_INVALID "One or more parameter values were invalid: "

/* A table's (or index's) key schema, parsed from its description. */
struct key_schema {
    char hash_name[256];
    char hash_type;                 /* 'S', 'N' or 'B' */
    char range_name[256];           /* "" when there is no sort key */
    char range_type;                /* 0 when there is no sort key */
};

/* The type ('S', 'N' or 'B') AttributeDefinitions (defs) gives attribute
 * name, or 0 when it gives none. */
char key_def_type(const json_t *defs, const char *name);
/* Read KeySchema + AttributeDefinitions from a table description. */
int key_schema_from_desc(const json_t *desc, struct key_schema *ks,
                         struct ddb_err *err);
/* The same for a published description (one nothing changes again: a
 * table's change installs a new object), remembered per thread for the
 * last few such descriptions. */
int key_schema_of(const json_t *desc, struct key_schema *ks,
                  struct ddb_err *err);

/*
 * Validate one AttributeValue the way DynamoDB does (exactly one type key,
 * well-formed N/B, no empty sets, no duplicate set members, nesting depth)
 * and canonicalise every N and NS member in place. depth starts at 0.
 * ValidationException with DynamoDB's message on failure.
 */
int av_validate(json_t *av, int depth, struct ddb_err *err);
/* Validate every attribute of an item map ("Item", "Key", ...) with
 * av_validate. */
int item_validate(json_t *item, struct ddb_err *err);

/*
 * Put the members of a set (the array under SS, NS or BS; type 'S', 'N'
 * or 'B') in the order DynamoDB returns them: strings and binaries by
 * their bytes, numbers by value. Members must be validated.
 */
void item_set_sort(json_t *arr, char type);

/* Size in bytes as DynamoDB counts it (throttling.md 2). */
size_t av_size(const json_t *av);
size_t item_size(const json_t *item);

/* Equality of two validated AttributeValues (sets compare as sets). */
bool av_equal(const json_t *a, const json_t *b);
/* Ordering for scalar values of the same type (S, N, B): <0, 0, >0.
 * Returns 0 and sets *comparable = false when types differ or are not
 * ordered. */
int av_compare(const json_t *a, const json_t *b, bool *comparable);
/* The bytes of a B value's validated base64 text (len bytes) in a new
 * buffer (caller frees), their count in *outlen. Text that is not valid
 * base64 (never the case: values are validated first) decodes to
 * nothing. */
uint8_t *av_b64_decode(const char *s, size_t len, size_t *outlen);
/* The single type key of an AttributeValue ("S", "N", "M", ...) or NULL. */
const char *av_type(const json_t *av);

/*
 * Build the storage key from an item or a Key map, checking it against the
 * schema with DynamoDB's messages: missing key attributes, wrong types,
 * empty key values, key sizes, and (when is_key_map) extra attributes
 * ("The provided key element does not match the schema").
 */
int item_key_build(const struct key_schema *ks, const json_t *item,
                   bool is_key_map, struct item_key *k, struct ddb_err *err);
/* The key attributes of item as a new Key map. */
json_t *item_key_map(const struct key_schema *ks, const json_t *item);

/* Copy a request map member (Item, Key, ...) and validate it with
 * item_validate() (numbers canonicalised in the copy). *out is a new
 * reference (caller frees). */
int item_copy_validate(const json_t *req, const char *member,
                       json_t **out, struct ddb_err *err);
/* The same without the copy, for a request the caller owns: the member
 * itself is validated, canonicalised in place, and *out is a new
 * reference to it (a single-item call's Item or Key, which nothing
 * echoes back as sent). */
int item_take_validate(const json_t *req, const char *member,
                       json_t **out, struct ddb_err *err);

/*
 * DynamoDB's current value layer, which validate_request() runs after the
 * shape checks for the operations whose schema asks for it: malformed
 * numbers and repeated set members anywhere in the request's values, in
 * the current wording. req borrowed. Returns 0, or -1 with the message
 * (no envelope) in msg (cap bytes).
 *   av_current_request:   Item, Key, ExclusiveStartKey,
 *                         ExpressionAttributeValues, and the values of
 *                         KeyConditions, Expected, QueryFilter and
 *                         AttributeUpdates;
 *   av_current_batch_get: every Keys entry of RequestItems.
 */
int av_current_request(const json_t *req, char *msg, size_t cap);
int av_current_batch_get(const json_t *req, char *msg, size_t cap);

/* ------------------------------------------------------------------------
 * Pieces the request checks (validate.c, av_current.c) share with av.c.
 * ---------------------------------------------------------------------- */

/* A Blob member: null, or base64 text as DynamoDB's decoder takes it. 0,
 * or -1 with its SerializationException. */
int av_ser_blob(const json_t *v, struct ddb_err *err);
/* The SerializationException for v (not null, not a string) where a Java
 * scalar of class cls ("String", "Boolean", ...) belongs; always -1. */
int av_scalar_err(const json_t *v, const char *cls, struct ddb_err *err);
/* The position of the first of arr's first n (string) members that
 * repeats an earlier one, by bytes or by numeric value; 0 when none. */
size_t av_set_repeat(const json_t *arr, size_t n, bool numeric);

/* A number's text as BigDecimal reads it, for its range checks. */
struct av_num_text {
    bool digit;                     /* a digit before any exponent */
    bool nonzero;                   /* a nonzero one */
    long long prec;                 /* digits from the first nonzero one */
    long long frac;                 /* digits after the point */
    bool has_exp;                   /* an 'e' or 'E' follows them */
    bool eneg;                      /* the exponent's sign is '-' */
    const char *exp;                /* the exponent's digits */
    size_t nexp;                    /* how many (0: none) */
    long long exp_value;            /* their value, signed; past 2^31 it
                                       stops growing (read no further) */
    bool end;                       /* nothing follows those digits */
};
void av_num_scan(const char *s, struct av_num_text *t);

#endif
