/* SPDX-License-Identifier: MIT */
/* write.c - vector indexes in the one write path (ops/write.c): the
 * checks a vector-indexed item must pass, what each index's stored entry
 * changes by (VectorWriteRequestBytes), the size a vector is billed at,
 * and the in-memory indexes brought in line once the write committed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/proto/av.h"
#include "api/proto/capacity.h"
#include "api/vector/vector_int.h"
#include "storage/util.h"

#define INVALID_DOT "One or more parameter values were invalid. "

struct vector_write {
    struct vector_table *vt;        /* owned reference */
    size_t n;
    struct vector_def *defs;        /* owned copies of vt's indexes */
    double bytes[VECTOR_INDEX_MAX]; /* each index's VectorWriteRequestBytes
                                       in the last check */
    float *vbuf;                    /* room for the largest vector */
};

/* ------------------------------------------------------------------------
 * An item against one index
 * ---------------------------------------------------------------------- */

/* The messages below are DynamoDB's (eu-west-2, 2026-08:
 * nubo-db/dynamodb-conformance tier3 vectorWrites.test.ts); the one for a
 * number beyond the float range is ours, worded like its neighbours. */
int
vector_item_vector(const struct vector_def *d, const json_t *item,
                   float *out, struct ddb_err *err)
{
    const json_t *av = json_object_get(item, d->attr), *l, *el, *n;
    size_t i;

    if (av == NULL)
        return 0;
    l = json_object_get(av, "L");
    if (!json_is_array(l) || json_object_size(av) != 1)
        return ddb_err_set(err, DDB_VALIDATION,
                           INVALID_DOT "Invalid type for parameter %s, "
                           "Expected: 32-bit floating point number list "
                           "IndexName: %s", d->attr, d->name);
    if (json_array_size(l) != d->dims)
        return ddb_err_set(err, DDB_VALIDATION,
                           INVALID_DOT "Invalid size for parameter %s, "
                           "Expected: %u, Actual: %zu IndexName: %s",
                           d->attr, d->dims, json_array_size(l), d->name);
    json_array_foreach(l, i, el) {
        n = json_object_get(el, "N");
        if (n == NULL || !json_is_string(n) || json_object_size(el) != 1 ||
            f32_parse(json_string_value(n), &out[i]) != 0) {
            const char *t = av_type(el);

            return ddb_err_set(err, DDB_VALIDATION,
                               INVALID_DOT "Invalid type for parameter "
                               "%s[%zu], Expected: 32-bit floating point "
                               "number, Actual: %s. IndexName: %s", d->attr,
                               i, t != NULL ? t : "NULL", d->name);
        }
    }
    return 1;
}

/* The SearchSchema attributes of item for d: of their defined type and
 * not empty, as secondary index keys (DynamoDB's GSI messages; the empty
 * string case recorded on a HASH element, eu-west-2, 2026-08). */
static int
check_schema(const struct vector_def *d, const json_t *item,
             struct ddb_err *err)
{
    const struct vector_schema_attr *s;
    const json_t *av;
    const char *actual, *v;
    char t[2] = { 0, 0 };
    size_t i;

    for (i = 0; i < d->nschema; i++) {
        s = &d->schema[i];
        av = json_object_get(item, s->name);
        if (av == NULL)
            continue;
        t[0] = s->type;
        if (json_object_get(av, t) == NULL) {
            actual = av_type(av);
            return ddb_err_set(err, DDB_VALIDATION,
                               "One or more parameter values were invalid: "
                               "Type mismatch for Index Key %s Expected: %c "
                               "Actual: %s IndexName: %s", s->name, s->type,
                               actual != NULL ? actual : "NULL", d->name);
        }
        v = json_string_value(json_object_get(av, t));
        if (s->type != 'N' && v != NULL && v[0] == '\0')
            return ddb_err_set(err, DDB_VALIDATION,
                               "One or more parameter values are not valid. "
                               "A value specified for a secondary index key "
                               "is not supported. The AttributeValue for a "
                               "key attribute cannot contain an empty %s "
                               "value. IndexName: %s, IndexKey: %s",
                               s->type == 'S' ? "string" : "binary", d->name,
                               s->name);
    }
    return 0;
}

/* Attribute name of item is part of d's entry. */
static bool
projected(const struct vector_def *d, const char *name)
{
    const json_t *n;
    size_t i;

    if (d->proj == INDEX_PROJ_ALL || strcmp(name, d->attr) == 0 ||
        strcmp(name, d->table_hash) == 0 ||
        (d->table_range[0] != '\0' && strcmp(name, d->table_range) == 0))
        return true;
    for (i = 0; i < d->nschema; i++)
        if (strcmp(name, d->schema[i].name) == 0)
            return true;
    if (d->proj == INDEX_PROJ_INCLUDE)
        json_array_foreach(d->nonkey, i, n)
            if (json_str_is(n, name))
                return true;
    return false;
}

/* eu-west-2, 2026-08-18 (paritysuite/dynamodb-conformance
 * vectorSearch/consumedCapacity.test.ts): the projected entry's item size
 * with the vector counted as its name plus 4 bytes per dimension. */
size_t
vector_entry_size(const struct vector_def *d, const json_t *item)
{
    const char *name;
    json_t *v;
    size_t n = 0;

    json_object_foreach((json_t *)item, name, v) {
        if (!projected(d, name))
            continue;
        n += strlen(name);
        n += strcmp(name, d->attr) == 0 ? 4u * d->dims : av_size(v);
    }
    return n;
}

/* The entry item has in d (its projected attributes), or NULL when item
 * is not in d: no item, no vector d takes, or no HASH value. */
static json_t *
entry_of(const struct vector_def *d, const json_t *item, float *vbuf)
{
    uint8_t hv[1 + KEY_BYTES_MAX];
    const char *name;
    json_t *v, *e;

    if (item == NULL || vector_item_vector(d, item, vbuf, NULL) != 1)
        return NULL;
    if (d->hash >= 0 &&
        vector_value_encode(json_object_get(item, d->schema[d->hash].name),
                            d->schema[d->hash].type, hv) <= 1)
        return NULL;
    e = json_object();
    json_object_foreach((json_t *)item, name, v)
        if (projected(d, name))
            json_object_set(e, name, v);
    return e;
}

static double
floor_bytes(size_t n)
{
    return n < VECTOR_WRITE_FLOOR ? VECTOR_WRITE_FLOOR : (double)n;
}

/*
 * What d's stored entry changes by when old becomes new_item: nothing when
 * the entry is the same (DynamoDB replicates deltas: an identical
 * overwrite reports no vector write), else the entry's size with a 1024
 * byte floor (paritysuite consumedCapacity.test.ts). A removed entry is
 * charged its old size; an entry that moves to another HASH value is a
 * delete and a put, as a GSI row that changes key (our choice: DynamoDB's
 * figure for that is not recorded).
 */
static double
write_bytes(const struct vector_def *d, const json_t *old,
            const json_t *new_item, float *vbuf)
{
    json_t *a = entry_of(d, old, vbuf), *b = entry_of(d, new_item, vbuf);
    double r = 0;

    if (a != NULL && b != NULL && json_equal(a, b))
        r = 0;
    else if (b != NULL)
        r = floor_bytes(vector_entry_size(d, new_item));
    else if (a != NULL)
        r = floor_bytes(vector_entry_size(d, old));
    if (a != NULL && b != NULL && r > 0 && d->hash >= 0 &&
        !json_equal(json_object_get(a, d->schema[d->hash].name),
                    json_object_get(b, d->schema[d->hash].name)))
        r += floor_bytes(vector_entry_size(d, old));
    json_decref(a);
    json_decref(b);
    return r;
}

/* size as DynamoDB bills item: each attribute some index reads as a
 * vector counts its name plus 4 bytes per dimension, whatever numbers it
 * holds (eu-west-2 and us-east-1, 2026-10-09: paritysuite
 * consumedCapacity.test.ts, "billed at four bytes per dimension"). */
static size_t
billed(const struct vector_write *vw, const json_t *item, size_t size)
{
    const json_t *v;
    size_t i, j, sz;

    for (i = 0; i < vw->n; i++) {
        for (j = 0; j < i; j++)
            if (strcmp(vw->defs[j].attr, vw->defs[i].attr) == 0)
                break;
        if (j < i)                  /* that attribute counted already */
            continue;
        v = json_object_get(item, vw->defs[i].attr);
        if (v == NULL ||
            vector_item_vector(&vw->defs[i], item, vw->vbuf, NULL) != 1)
            continue;
        sz = av_size(v);
        size = size - sz + 4u * vw->defs[i].dims;
    }
    return size;
}

/* ------------------------------------------------------------------------
 * The hook
 * ---------------------------------------------------------------------- */

struct vector_write *
vector_write_new(struct api_server *srv, struct stable *t,
                 struct ddb_err *err)
{
    struct vector_write *vw;
    struct vector_table *vt;
    unsigned dmax = 1;
    size_t i;

    vt = vector_table_open(srv->vectors, t, err);
    if (vt == NULL)
        return NULL;
    vw = xcalloc(1, sizeof(*vw));
    vw->vt = vt;
    pthread_rwlock_rdlock(&vt->lock);
    vw->n = vt->n;
    vw->defs = xcalloc(vt->n + 1, sizeof(*vw->defs));
    for (i = 0; i < vt->n; i++) {
        vw->defs[i] = vt->idx[i]->def;
        vw->defs[i].schema = xcalloc(vt->idx[i]->def.nschema + 1,
                                     sizeof(*vw->defs[i].schema));
        memcpy(vw->defs[i].schema, vt->idx[i]->def.schema,
               vt->idx[i]->def.nschema * sizeof(*vw->defs[i].schema));
        vw->defs[i].nonkey = json_deep_copy(vt->idx[i]->def.nonkey);
        if (vw->defs[i].dims > dmax)
            dmax = vw->defs[i].dims;
    }
    pthread_rwlock_unlock(&vt->lock);
    vw->vbuf = xmalloc(dmax * sizeof(float));
    return vw;
}

void
vector_write_free(struct vector_write *vw)
{
    if (vw == NULL)
        return;
    vector_table_close(vw->vt);
    vector_defs_free(vw->defs, vw->n);
    free(vw->vbuf);
    free(vw);
}

int
vector_write_check(struct vector_write *vw, const json_t *old,
                   const json_t *new_item, size_t *old_size,
                   size_t *new_size, struct ddb_err *err)
{
    size_t i;

    memset(vw->bytes, 0, sizeof(vw->bytes));
    for (i = 0; new_item != NULL && i < vw->n; i++)
        if (vector_item_vector(&vw->defs[i], new_item, vw->vbuf, err) < 0 ||
            check_schema(&vw->defs[i], new_item, err) != 0)
            return -1;
    for (i = 0; i < vw->n; i++)
        vw->bytes[i] = write_bytes(&vw->defs[i], old, new_item, vw->vbuf);
    if (old != NULL && old_size != NULL)
        *old_size = billed(vw, old, *old_size);
    if (new_item != NULL && new_size != NULL)
        *new_size = billed(vw, new_item, *new_size);
    return 0;
}

void
vector_write_done(struct vector_write *vw, struct api_ctx *ctx,
                  const char *table, struct stable *t,
                  const struct item_key *k)
{
    size_t i;

    vector_table_sync(vw->vt, t, k);
    for (i = 0; ctx != NULL && i < vw->n; i++)
        if (vw->bytes[i] > 0)
            capacity_add_vector(ctx->cap, table, vw->defs[i].name,
                                vw->bytes[i]);
}
