/* SPDX-License-Identifier: MIT */
/* item.h - AttributeValues: validation with DynamoDB's messages (and N
 * canonicalisation in place), item size, comparison, and building storage
 * keys from a table's key schema. */
#ifndef SHARDLOCAL_ITEM_H
#define SHARDLOCAL_ITEM_H

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>

#include "storage/storage.h"

#define ITEM_SIZE_MAX    409600     /* 400 KB */
#define ITEM_DEPTH_MAX   32
#define KEY_HASH_MAX     2048       /* partition key value bytes */
#define KEY_RANGE_MAX    1024       /* sort key value bytes */
#define ATTR_NAME_MAX    65535

/* A table's (or index's) key schema, parsed from its description. */
struct key_schema {
    char hash_name[256];
    char hash_type;                 /* 'S', 'N' or 'B' */
    char range_name[256];           /* "" when there is no sort key */
    char range_type;                /* 0 when there is no sort key */
};

/* Read KeySchema + AttributeDefinitions from a table description. */
int key_schema_from_desc(const json_t *desc, struct key_schema *ks,
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


#endif
