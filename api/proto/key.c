/* SPDX-License-Identifier: MIT */
/* key.c - a table's key schema (read from its description) and the
 * storage keys built from an item or a Key map against it, checked with
 * DynamoDB's messages. Declared in av.h with the AttributeValues they
 * read. */

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "api/proto/av.h"
#include "storage/util.h"

#define MSG_KEY_SCHEMA "The provided key element does not match the schema"

char
key_def_type(const json_t *defs, const char *name)
{
    size_t i;
    const json_t *d;

    json_array_foreach(defs, i, d) {
        const char *n = json_string_value(json_object_get(d, "AttributeName"));
        const char *t = json_string_value(json_object_get(d, "AttributeType"));

        if (n != NULL && t != NULL && strcmp(n, name) == 0 &&
            (strcmp(t, "S") == 0 || strcmp(t, "N") == 0 ||
             strcmp(t, "B") == 0))
            return t[0];
    }
    return 0;
}

/*
 * Read KeySchema and AttributeDefinitions from a DescribeTable-shaped
 * description (desc borrowed) into ks. -1 with an InternalServerError if
 * the description is malformed (it is written by us, so that is a bug).
 */
int
key_schema_from_desc(const json_t *desc, struct key_schema *ks,
                     struct ddb_err *err)
{
    const json_t *schema = json_object_get(desc, "KeySchema");
    const json_t *defs = json_object_get(desc, "AttributeDefinitions");
    const json_t *e;
    size_t i;

    memset(ks, 0, sizeof(*ks));
    if (!json_is_array(schema) || !json_is_array(defs))
        return ddb_err_set(err, DDB_INTERNAL,
                           "table description has no key schema");
    json_array_foreach(schema, i, e) {
        const char *n = json_string_value(json_object_get(e, "AttributeName"));
        const char *kt = json_string_value(json_object_get(e, "KeyType"));
        char t;

        if (n == NULL || kt == NULL || strlen(n) >= sizeof(ks->hash_name))
            return ddb_err_set(err, DDB_INTERNAL, "malformed key schema");
        t = key_def_type(defs, n);
        if (t == 0)
            return ddb_err_set(err, DDB_INTERNAL,
                               "key attribute %s has no definition", n);
        if (strcmp(kt, "HASH") == 0 && ks->hash_type == 0) {
            strcpy(ks->hash_name, n);
            ks->hash_type = t;
        } else if (strcmp(kt, "RANGE") == 0 && ks->range_type == 0) {
            strcpy(ks->range_name, n);
            ks->range_type = t;
        } else {
            return ddb_err_set(err, DDB_INTERNAL, "malformed key schema");
        }
    }
    if (ks->hash_type == 0)
        return ddb_err_set(err, DDB_INTERNAL, "key schema has no HASH key");
    return 0;
}

/*
 * Every item operation reads its table's key schema: 1,800 instructions of
 * JSON lookups in the description. Descriptions are immutable once
 * published, so each thread remembers the schema of the last
 * KS_CACHE_SLOTS descriptions it read, each held by a reference (an
 * address in the cache cannot come back as another description's). The
 * references go with the thread.
 */
#define KS_CACHE_SLOTS 4

struct ks_cache {
    unsigned next;                      /* the slot replaced next */
    struct {
        json_t *desc;
        struct key_schema ks;
    } slot[KS_CACHE_SLOTS];
};

static pthread_key_t ks_key;
static pthread_once_t ks_once = PTHREAD_ONCE_INIT;
static bool ks_key_ok;

static void
ks_cache_free(void *p)
{
    struct ks_cache *c = p;

    for (unsigned i = 0; i < KS_CACHE_SLOTS; i++)
        json_decref(c->slot[i].desc);
    free(c);
}

static void
ks_key_create(void)
{
    ks_key_ok = pthread_key_create(&ks_key, ks_cache_free) == 0;
}

/* This thread's cache, made on first use; NULL if that failed. */
static struct ks_cache *
ks_cache(void)
{
    struct ks_cache *c;

    pthread_once(&ks_once, ks_key_create);
    if (!ks_key_ok)
        return NULL;
    c = pthread_getspecific(ks_key);
    if (c == NULL && (c = calloc(1, sizeof(*c))) != NULL &&
        pthread_setspecific(ks_key, c) != 0) {
        free(c);
        c = NULL;
    }
    return c;
}

int
key_schema_of(const json_t *desc, struct key_schema *ks, struct ddb_err *err)
{
    struct ks_cache *c = ks_cache();
    unsigned i;

    if (c != NULL)
        for (i = 0; i < KS_CACHE_SLOTS; i++)
            if (c->slot[i].desc == desc) {
                *ks = c->slot[i].ks;
                return 0;
            }
    if (key_schema_from_desc(desc, ks, err) != 0)
        return -1;
    if (c != NULL) {
        i = c->next++ % KS_CACHE_SLOTS;
        json_decref(c->slot[i].desc);
        c->slot[i].desc = json_incref((json_t *)desc);
        c->slot[i].ks = *ks;
    }
    return 0;
}

/*
 * Check one key attribute of item against its schema entry and encode it
 * into out (KEY_BYTES_MAX). Messages follow DynamoDB: an item
 * ("Missing the key", "Type mismatch for key") and a Key map ("The provided
 * key element does not match the schema") are reported differently, and
 * so is an empty value ("are not valid." for items, "were invalid:" for
 * Key maps, as DynamoDB words them).
 */
static long
key_attr(const json_t *item, const char *name, char type, bool is_hash,
         bool is_key_map, uint8_t *out, struct ddb_err *err)
{
    const json_t *av = json_object_get(item, name), *v;
    const char *actual = av_type(av);
    char tname[2] = { type, '\0' };
    size_t len;
    long n;

    if (av == NULL) {
        if (is_key_map)
            return ddb_err_set(err, DDB_VALIDATION, MSG_KEY_SCHEMA);
        return ddb_err_set(err, DDB_VALIDATION, AV_MSG_INVALID
                           "Missing the key %s in the item", name);
    }
    if (actual == NULL || strcmp(actual, tname) != 0) {
        if (is_key_map)
            return ddb_err_set(err, DDB_VALIDATION, MSG_KEY_SCHEMA);
        return ddb_err_set(err, DDB_VALIDATION, AV_MSG_INVALID
                           "Type mismatch for key %s expected: %s actual: %s",
                           name, tname, actual ? actual : "NULL");
    }
    v = json_get_one(av, tname);
    if (!json_is_string(v))
        return ddb_err_set(err, DDB_VALIDATION, MSG_KEY_SCHEMA);
    len = json_string_length(v);
    /* Items and Key maps alike: "One or more parameter values are not
     * valid." (UpdateItem and DeleteItem Keys, real DynamoDB 2026:
     * paritysuite/dynamodb-conformance error-messages/updateItem.test.ts,
     * deleteItem.test.ts; dynalite recorded "were invalid:" for Keys). */
    if (type != 'N' && len == 0)
        return ddb_err_set(err, DDB_VALIDATION,
                           "One or more parameter values are not valid. The "
                           "AttributeValue for a key attribute cannot "
                           "contain an empty %s value. Key: %s",
                           type == 'S' ? "string" : "binary", name);
    if (type == 'B')
        len = item_b64_len(json_string_value(v), len);
    if (type != 'N' && is_hash && len > KEY_HASH_MAX)
        return ddb_err_set(err, DDB_VALIDATION, AV_MSG_INVALID
                           "Size of hashkey has exceeded the maximum size "
                           "limit of2048 bytes");
    if (type != 'N' && !is_hash && len > KEY_RANGE_MAX)
        return ddb_err_set(err, DDB_VALIDATION, AV_MSG_INVALID
                           "Aggregated size of all range keys has exceeded "
                           "the size limit of 1024 bytes");
    n = key_encode_value(av, out);
    if (n < 0)
        return ddb_err_set(err, DDB_VALIDATION, MSG_KEY_SCHEMA);
    return n;
}

/*
 * Build the storage key of item (an Item, or a Key map when is_key_map)
 * from schema ks, checking it with DynamoDB's messages: missing key
 * attributes, wrong types, empty S/B values, sizes over 2048 (partition)
 * and 1024 (sort) bytes, and for Key maps any other attribute. Values must
 * have passed item_validate (N canonical). item borrowed; k filled.
 */
int
item_key_build(const struct key_schema *ks, const json_t *item,
               bool is_key_map, struct item_key *k, struct ddb_err *err)
{
    uint8_t pk[KEY_BYTES_MAX], sk[KEY_BYTES_MAX];
    size_t want = ks->range_type ? 2 : 1;
    long pklen, sklen = 0;

    if (!json_is_object(item))
        return ddb_err_set(err, DDB_VALIDATION, MSG_KEY_SCHEMA);
    if (is_key_map && json_object_size(item) != want)
        return ddb_err_set(err, DDB_VALIDATION, MSG_KEY_SCHEMA);
    pklen = key_attr(item, ks->hash_name, ks->hash_type, true, is_key_map,
                     pk, err);
    if (pklen < 0)
        return -1;
    if (ks->range_type) {
        sklen = key_attr(item, ks->range_name, ks->range_type, false,
                         is_key_map, sk, err);
        if (sklen < 0)
            return -1;
    }
    key_set(k, ks->hash_type, pk, (size_t)pklen, ks->range_type ? sk : NULL,
            (size_t)sklen);
    return 0;
}

/* The key attributes of item (borrowed) as a new Key map (caller frees);
 * attributes missing from item are left out. */
json_t *
item_key_map(const struct key_schema *ks, const json_t *item)
{
    json_t *key = json_object(), *v;

    if (key == NULL)
        abort();
    v = json_object_get(item, ks->hash_name);
    if (v != NULL)
        json_object_set_new(key, ks->hash_name, json_clone(v));
    if (ks->range_type) {
        v = json_object_get(item, ks->range_name);
        if (v != NULL)
            json_object_set_new(key, ks->range_name, json_clone(v));
    }
    return key;
}
