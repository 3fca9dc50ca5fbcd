/* SPDX-License-Identifier: MIT */
/* rehash.c - at start-up, before serving: tables of a data directory
 * written before items were placed by DynamoDB's key hash are re-placed
 * by it (storage's stable_rehash), each table and index with the type of
 * its partition key, read from the table's description. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "api/index/index.h"
#include "api/proto/av.h"
#include "api/tables/tables.h"
#include "storage/util.h"

/* Re-place t (a table, or the hidden table of an index) whose partition
 * key is of type pk_type, when its rows are placed by the old hash. */
static int
rehash_one(struct stable *t, char pk_type, bool verbose, struct ddb_err *err)
{
    uint64_t count = 0, bytes = 0;

    if (t == NULL || !stable_needs_rehash(t))
        return 0;
    if (stable_rehash(t, pk_type, err) != 0)
        return -1;
    if (verbose && stable_stats(t, &count, &bytes, err) == 0)
        fprintf(stderr, "shardlocal: table %s: %llu items re-placed by "
                "DynamoDB's key hash (data written by an older version)\n",
                stable_name(t), (unsigned long long)count);
    ddb_err_clear(err);
    return 0;
}

/* Table name and its indexes. */
static int
rehash_table(struct storage *st, const char *name, bool verbose,
             struct ddb_err *err)
{
    struct stable *t = storage_table_get(st, name);
    struct index_set *is = NULL;
    struct key_schema ks;
    json_t *desc;
    int rc = -1;

    if (t == NULL)
        return 0;
    desc = stable_desc_ref(t);
    if (stable_needs_rehash(t) &&
        (key_schema_from_desc(desc, &ks, err) != 0 ||
         rehash_one(t, ks.hash_type, verbose, err) != 0))
        goto out;
    if (desc != NULL && index_desc_has(desc)) {
        is = xcalloc(1, sizeof(*is));
        if (index_set_open(st, desc, is, err) != 0)
            goto out;
        for (size_t i = 0; i < is->n; i++) {
            const struct index_def *d = &is->idx[i];

            /* a multi-attribute key is hashed as its composite bytes */
            if (rehash_one(d->t, d->nhash > 1 ? 0 : d->ks.hash_type,
                           verbose, err) != 0)
                goto out;
        }
    }
    rc = 0;
out:
    if (is != NULL)
        index_set_close(is);
    free(is);
    json_decref(desc);
    stable_release(t);
    return rc;
}

int
tables_rehash_all(struct storage *st, bool verbose, struct ddb_err *err)
{
    json_t *names = storage_table_names(st), *v;
    size_t i;
    int rc = 0;

    json_array_foreach(names, i, v) {
        const char *name = json_string_value(v);

        if (rc == 0 && !index_is_hidden_name(name))
            rc = rehash_table(st, name, verbose, err);
    }
    /* what no table's description names (an index whose table is gone,
     * dropped at the next CreateTable of that name) keeps its bytes */
    json_array_foreach(names, i, v) {
        struct stable *t = storage_table_get(st, json_string_value(v));

        if (rc == 0)
            rc = rehash_one(t, 0, false, err);
        if (t != NULL)
            stable_release(t);
    }
    json_decref(names);
    return rc;
}
