/* SPDX-License-Identifier: MIT */
/* defs.c - vector index definitions: read from a table's description,
 * checked in CreateTable and UpdateTable requests with DynamoDB's
 * messages, and the description's lifecycle (allocation, backfilling,
 * ACTIVE, deletion) settled as time passes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/proto/av.h"
#include "api/vector/vector_int.h"
#include "storage/util.h"

#define INVALID "One or more parameter values were invalid: "

/* Private members of a stored VectorIndexes entry: when its phases end
 * (ms). tables/vector_update.c sets them. */
#define PRIV_ALLOC      "_slAllocUntil"     /* allocation -> backfilling */
#define PRIV_BACKFILL   "_slBackfillUntil"  /* -> ACTIVE */
#define PRIV_DELETE     "_slDeleteUntil"    /* DELETING -> gone */

static const char *const metric_names[] = {
    [VEC_COSINE] = "COSINE", [VEC_EUCLIDEAN] = "EUCLIDEAN",
    [VEC_DOT] = "DOT_PRODUCT",
};

const char *
vector_metric_name(enum vec_metric m)
{
    return metric_names[m];
}

static const char *
str(const json_t *o, const char *key)
{
    return json_string_value(json_object_get(o, key));
}

/* The VectorAttribute.AttributeName of an index element, or NULL. */
static const char *
vec_attr(const json_t *vi)
{
    return str(json_object_get(vi, "VectorAttribute"), "AttributeName");
}

/* ------------------------------------------------------------------------
 * Definitions from a description
 * ---------------------------------------------------------------------- */

bool
vector_desc_has(const json_t *desc)
{
    return json_array_size(json_object_get(desc, "VectorIndexes")) > 0;
}

json_t *
vector_desc_find(const json_t *desc, const char *name)
{
    const json_t *vi;
    size_t i;

    json_array_foreach(json_object_get(desc, "VectorIndexes"), i, vi)
        if (json_str_is(json_object_get(vi, "IndexName"), name))
            return (json_t *)vi;
    return NULL;
}

bool
vector_desc_uses(const json_t *desc, const char *attr)
{
    const json_t *vi, *el;
    size_t i, j;

    json_array_foreach(json_object_get(desc, "VectorIndexes"), i, vi)
        json_array_foreach(json_object_get(vi, "SearchSchema"), j, el)
            if (json_str_is(json_object_get(el, "AttributeName"), attr))
                return true;
    return false;
}

static enum vector_state
state_of(const json_t *vi)
{
    const char *st = str(vi, "IndexStatus");

    if (st == NULL || strcmp(st, "ACTIVE") == 0)
        return VEC_ACTIVE;
    if (strcmp(st, "DELETING") == 0)
        return VEC_DELETING;
    return json_is_true(json_object_get(vi, "Backfilling"))
               ? VEC_BACKFILLING : VEC_ALLOCATING;
}

static int
def_parse(const json_t *vi, const json_t *defs, const json_t *keys,
          struct vector_def *d, struct ddb_err *err)
{
    const json_t *el, *proj = json_object_get(vi, "Projection");
    const char *n = str(vi, "IndexName"), *a = vec_attr(vi);
    const char *f = str(vi, "DistanceFunction"), *pt = str(proj,
                                                          "ProjectionType");
    const json_t *schema = json_object_get(vi, "SearchSchema");
    struct vector_schema_attr *s;
    size_t i;

    memset(d, 0, sizeof(*d));
    d->hash = -1;
    if (n == NULL || a == NULL || f == NULL ||
        strlen(n) >= sizeof(d->name) || strlen(a) >= sizeof(d->attr))
        return ddb_err_set(err, DDB_INTERNAL, "malformed vector index");
    snprintf(d->name, sizeof(d->name), "%s", n);
    snprintf(d->attr, sizeof(d->attr), "%s", a);
    d->dims = (unsigned)json_integer_value(json_object_get(vi,
                                                           "Dimensions"));
    d->metric = strcmp(f, "COSINE") == 0      ? VEC_COSINE
                : strcmp(f, "EUCLIDEAN") == 0 ? VEC_EUCLIDEAN
                                              : VEC_DOT;
    d->state = state_of(vi);
    d->proj = pt != NULL && strcmp(pt, "KEYS_ONLY") == 0 ? INDEX_PROJ_KEYS_ONLY
              : pt != NULL && strcmp(pt, "INCLUDE") == 0 ? INDEX_PROJ_INCLUDE
                                                         : INDEX_PROJ_ALL;
    if (d->proj == INDEX_PROJ_INCLUDE)
        d->nonkey = json_deep_copy(json_object_get(proj, "NonKeyAttributes"));
    d->schema = xcalloc(json_array_size(schema) + 1, sizeof(*d->schema));
    json_array_foreach(schema, i, el) {
        n = str(el, "AttributeName");
        if (n == NULL || strlen(n) >= sizeof(s->name))
            continue;
        s = &d->schema[d->nschema];
        snprintf(s->name, sizeof(s->name), "%s", n);
        s->type = key_def_type(defs, n);
        s->hash = json_str_is(json_object_get(el, "SearchSchemaElementType"),
                              "HASH");
        if (s->hash && d->hash < 0)
            d->hash = (int)d->nschema;
        d->nschema++;
    }
    json_array_foreach(keys, i, el) {
        n = str(el, "AttributeName");
        if (n == NULL || strlen(n) >= sizeof(d->table_hash))
            continue;
        if (json_str_is(json_object_get(el, "KeyType"), "HASH"))
            snprintf(d->table_hash, sizeof(d->table_hash), "%s", n);
        else
            snprintf(d->table_range, sizeof(d->table_range), "%s", n);
    }
    return 0;
}

int
vector_defs_parse(const json_t *desc, bool with_deleting,
                  struct vector_def **defs, size_t *n, struct ddb_err *err)
{
    const json_t *list = json_object_get(desc, "VectorIndexes");
    const json_t *adefs = json_object_get(desc, "AttributeDefinitions");
    const json_t *keys = json_object_get(desc, "KeySchema");
    const json_t *vi;
    size_t i;

    *n = 0;
    *defs = xcalloc(json_array_size(list) + 1, sizeof(**defs));
    json_array_foreach(list, i, vi) {
        if (!with_deleting && state_of(vi) == VEC_DELETING)
            continue;
        if (def_parse(vi, adefs, keys, &(*defs)[*n], err) != 0) {
            vector_defs_free(*defs, *n);
            *defs = NULL;
            *n = 0;
            return -1;
        }
        (*n)++;
    }
    return 0;
}

void
vector_defs_free(struct vector_def *defs, size_t n)
{
    size_t i;

    for (i = 0; defs != NULL && i < n; i++) {
        free(defs[i].schema);
        json_decref(defs[i].nonkey);
    }
    free(defs);
}

/* ------------------------------------------------------------------------
 * Request checks
 * ---------------------------------------------------------------------- */

int
vector_check_index(const json_t *vi, const json_t *defs, const json_t *keys,
                   struct ddb_err *err)
{
    const json_t *schema = json_object_get(vi, "SearchSchema");
    const json_t *dims = json_object_get(vi, "Dimensions");
    const char *attr = vec_attr(vi), *n, *m;
    const json_t *el, *k;
    size_t i, j, nhash = 0;

    /* eu-west-2, 2026-08: nubo-db/dynamodb-conformance tier3
     * vectorIndexes.test.ts (4097 dimensions). */
    if (!json_is_integer(dims) || json_integer_value(dims) < 1 ||
        json_integer_value(dims) > VECTOR_DIMS_MAX)
        return ddb_err_set(err, DDB_VALIDATION,
                           INVALID "Number of dimensions must be between 1 "
                           "and %d inclusive.", VECTOR_DIMS_MAX);
    json_array_foreach(schema, i, el) {
        n = str(el, "AttributeName");
        if (n == NULL || key_def_type(defs, n) == 0)
            return ddb_err_set(err, DDB_VALIDATION,
                               INVALID "One element in SearchSchema is not "
                               "defined in attribute definitions");
    }
    /* The rest of this function is our wording: DynamoDB's messages for
     * these cases are not recorded yet. */
    json_array_foreach(schema, i, el) {
        n = str(el, "AttributeName");
        if (json_str_is(json_object_get(el, "SearchSchemaElementType"),
                        "HASH") && ++nhash > 1)
            return ddb_err_set(err, DDB_VALIDATION,
                               INVALID "SearchSchema can have at most one "
                               "HASH element");
        for (j = 0; j < i; j++) {
            m = str(json_array_get(schema, j), "AttributeName");
            if (m != NULL && strcmp(m, n) == 0)
                return ddb_err_set(err, DDB_VALIDATION,
                                   INVALID "Duplicate attribute in "
                                   "SearchSchema: %s", n);
        }
        if (attr != NULL && strcmp(attr, n) == 0)
            return ddb_err_set(err, DDB_VALIDATION,
                               INVALID "The vector attribute cannot be a "
                               "SearchSchema attribute: %s", n);
    }
    json_array_foreach(keys, i, k)
        if (attr != NULL && json_str_is(json_object_get(k, "AttributeName"),
                                        attr))
            return ddb_err_set(err, DDB_VALIDATION,
                               INVALID "The vector attribute cannot be a key "
                               "attribute: %s", attr);
    return 0;
}

int
vector_check_list(const json_t *list, bool on_demand,
                  const json_t *other_names, struct ddb_err *err)
{
    const json_t *a, *b, *o;
    const char *an, *bn;
    size_t i, j;

    /* eu-west-2, 2026-08: nubo-db/dynamodb-conformance tier3
     * vectorIndexes.test.ts, each message below. */
    if (!on_demand)
        return ddb_err_set(err, DDB_VALIDATION,
                           INVALID "Vector indexes are only supported for "
                           "PAY_PER_REQUEST tables");
    if (json_array_size(list) == 0)   /* our wording, as for GSIs */
        return ddb_err_set(err, DDB_VALIDATION,
                           INVALID "List of VectorIndexes is empty");
    if (json_array_size(list) > VECTOR_INDEX_MAX)
        return ddb_err_set(err, DDB_VALIDATION,
                           INVALID "VectorIndex count exceeds the per-table "
                           "limit of %d", VECTOR_INDEX_MAX);
    json_array_foreach(list, i, a) {
        an = str(a, "IndexName");
        json_array_foreach(other_names, j, o)
            if (an != NULL && json_str_is(o, an))
                return ddb_err_set(err, DDB_VALIDATION,
                                   INVALID "Duplicate index name: %s", an);
        for (j = 0; j < i; j++) {
            b = json_array_get(list, j);
            bn = str(b, "IndexName");
            if (an != NULL && bn != NULL && strcmp(an, bn) == 0)
                return ddb_err_set(err, DDB_VALIDATION,
                                   INVALID "Duplicate index name: %s", an);
            if (vec_attr(a) != NULL && vec_attr(b) != NULL &&
                strcmp(vec_attr(a), vec_attr(b)) == 0 &&
                !json_equal(json_object_get(a, "Dimensions"),
                            json_object_get(b, "Dimensions")))
                return ddb_err_set(err, DDB_VALIDATION,
                                   INVALID "Conflicting attribute definition "
                                   "for '%s'. All VectorIndexes on the same "
                                   "vector attribute must use the same "
                                   "dimensions.", vec_attr(a));
        }
    }
    return 0;
}

size_t
vector_projected_count(const json_t *list)
{
    const json_t *vi, *el;
    size_t i, j, n = 0;

    /* The CreateTable API reference, VectorIndexes: the vector attribute
     * counts as 1, each INLINE_FILTER as 1, HASH elements not at all. */
    json_array_foreach(list, i, vi) {
        n += 1 + json_array_size(json_object_get(
                     json_object_get(vi, "Projection"), "NonKeyAttributes"));
        json_array_foreach(json_object_get(vi, "SearchSchema"), j, el)
            if (json_str_is(json_object_get(el, "SearchSchemaElementType"),
                            "INLINE_FILTER"))
                n++;
    }
    return n;
}

void
vector_add_used(const json_t *list, json_t *used)
{
    const json_t *vi, *el, *u, *n;
    size_t i, j, k;
    bool seen;

    json_array_foreach(list, i, vi)
        json_array_foreach(json_object_get(vi, "SearchSchema"), j, el) {
            n = json_object_get(el, "AttributeName");
            seen = false;
            json_array_foreach(used, k, u)
                seen |= json_equal((json_t *)u, (json_t *)n);
            if (!seen && json_is_string(n))
                json_array_append(used, (json_t *)n);
        }
}

/* ------------------------------------------------------------------------
 * The lifecycle in the description
 * ---------------------------------------------------------------------- */

/* The time member key of vi, or 0 when absent. */
static uint64_t
until(const json_t *vi, const char *key)
{
    const json_t *v = json_object_get(vi, key);

    return json_is_integer(v) ? (uint64_t)json_integer_value(v) : 0;
}

/*
 * DynamoDB's observed walk (eu-west-2, 2026-08:
 * nubo-db/dynamodb-conformance vectorSearch/updateLifecycle.test.ts): an
 * index added by UpdateTable is CREATING with Backfilling false while its
 * resources are allocated, CREATING with Backfilling true while it
 * backfills, then ACTIVE with no Backfilling member at all; one made with
 * its table is CREATING without the member, then ACTIVE.
 */
bool
vector_desc_settle(json_t *desc, uint64_t now)
{
    json_t *list = json_object_get(desc, "VectorIndexes"), *vi;
    bool changed = false;
    uint64_t t;
    size_t i;

    for (i = 0; i < json_array_size(list);) {
        vi = json_array_get(list, i);
        t = until(vi, PRIV_DELETE);
        if (t != 0 && t <= now) {
            json_array_remove(list, i);
            changed = true;
            continue;
        }
        t = until(vi, PRIV_ALLOC);
        if (t != 0 && t <= now) {
            json_object_del(vi, PRIV_ALLOC);
            json_object_set_new(vi, "Backfilling", json_true());
            changed = true;
        }
        t = until(vi, PRIV_BACKFILL);
        if (t != 0 && t <= now && until(vi, PRIV_ALLOC) == 0) {
            json_object_del(vi, PRIV_BACKFILL);
            json_object_del(vi, "Backfilling");
            json_object_set_new(vi, "IndexStatus", json_string("ACTIVE"));
            changed = true;
        }
        i++;
    }
    if (list != NULL && json_array_size(list) == 0)
        json_object_del(desc, "VectorIndexes");
    return changed;
}

void
vector_desc_public(struct api_server *srv, json_t *pub)
{
    const char *id = str(pub, "TableId"), *key;
    json_t *vi, *val;
    uint64_t count, bytes;
    void *tmp;
    size_t i;

    json_array_foreach(json_object_get(pub, "VectorIndexes"), i, vi) {
        json_object_foreach_safe(vi, tmp, key, val)
            if (strncmp(key, "_sl", 3) == 0)
                json_object_del(vi, key);
        if (srv == NULL || srv->vectors == NULL || id == NULL)
            continue;
        vector_index_stats(srv->vectors, id, str(vi, "IndexName"), &count,
                           &bytes);
        json_object_set_new(vi, "IndexSizeBytes",
                            json_integer((json_int_t)bytes));
        json_object_set_new(vi, "ItemCount", json_integer((json_int_t)count));
    }
}
