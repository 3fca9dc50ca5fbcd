/* SPDX-License-Identifier: MIT */
/* vector.h - vector indexes (CreateTable's VectorIndexes, UpdateTable's
 * VectorIndexUpdates, SearchVectors): what the control plane (tables/)
 * and the data plane (ops/) use. A vector index lives in memory, kept in
 * step with its table after every write and rebuilt from the table when
 * the server starts: exact search while a partition of it is small, an
 * HNSW graph once it grows. */
#ifndef SHARDLOCAL_VECTOR_H
#define SHARDLOCAL_VECTOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#include "api/expr/expr.h"
#include "api/index/index.h"
#include "api/proto/context.h"
#include "storage/storage.h"

/* DynamoDB's limits (nubo-db/dynamodb-conformance tier3 vectorIndexes and
 * searchVectors tests, eu-west-2, 2026-08). */
#define VECTOR_INDEX_MAX    5       /* vector indexes per table */
#define VECTOR_DIMS_MAX     4096
#define VECTOR_TOPK_MAX     100
/* SearchSchema elements an index may have: every INLINE_FILTER counts
 * toward the 100 projected attributes of a table's indexes, so 1 HASH and
 * at most 100 of them. */
#define VECTOR_SCHEMA_MAX   101
/* A write's VectorWriteRequestBytes is at least this per index
 * (paritysuite/dynamodb-conformance vectorSearch/consumedCapacity). */
#define VECTOR_WRITE_FLOOR  1024

enum vec_metric { VEC_COSINE, VEC_EUCLIDEAN, VEC_DOT };

/* Where an index is in its life, as its description says. */
enum vector_state {
    VEC_ALLOCATING,                 /* CREATING, Backfilling false (or,
                                       made with the table, absent) */
    VEC_BACKFILLING,                /* CREATING, Backfilling true */
    VEC_ACTIVE,
    VEC_DELETING
};

/* One SearchSchema element. */
struct vector_schema_attr {
    char name[256];
    char type;                      /* its AttributeDefinitions type:
                                       'S', 'N' or 'B' */
    bool hash;                      /* HASH (else INLINE_FILTER) */
};

/* One vector index, parsed from the table's description. */
struct vector_def {
    char name[256];                 /* IndexName */
    char attr[256];                 /* VectorAttribute.AttributeName */
    unsigned dims;
    enum vec_metric metric;
    enum vector_state state;
    size_t nschema;
    struct vector_schema_attr *schema; /* owned: nschema elements */
    int hash;                       /* the HASH element's position, or -1 */
    enum index_proj proj;
    json_t *nonkey;                 /* owned: INCLUDE's NonKeyAttributes */
    char table_hash[256];           /* the table's key attributes */
    char table_range[256];          /* "" without a sort key */
};

/* ------------------------------------------------------------------------
 * Definitions and descriptions (defs.c)
 * ---------------------------------------------------------------------- */

/* desc declares a vector index (in any state). */
bool vector_desc_has(const json_t *desc);
/* The VectorIndexes entry of desc named name (borrowed), or NULL. */
json_t *vector_desc_find(const json_t *desc, const char *name);
/* Some vector index of desc has attr in its SearchSchema (so the
 * attribute's definition stays in AttributeDefinitions). */
bool vector_desc_uses(const json_t *desc, const char *attr);
/*
 * The indexes of desc into *defs (a new array of *n, freed with
 * vector_defs_free), in the description's order; DELETING ones are left
 * out unless with_deleting.
 */
int vector_defs_parse(const json_t *desc, bool with_deleting,
                      struct vector_def **defs, size_t *n,
                      struct ddb_err *err);
void vector_defs_free(struct vector_def *defs, size_t n);
/* The distance function's name in DynamoDB's enumeration. */
const char *vector_metric_name(enum vec_metric m);

/*
 * The request checks of one VectorIndex (CreateTable) or
 * CreateVectorIndexAction (UpdateTable) element vi against defs (the
 * AttributeDefinitions the table will have) and keys (its KeySchema),
 * with DynamoDB's messages: the dimensions' range, the SearchSchema
 * (defined attributes, one HASH), the projection.
 */
int vector_check_index(const json_t *vi, const json_t *defs,
                       const json_t *keys, struct ddb_err *err);
/*
 * The checks across all of a table's vector indexes (list: the request's
 * VectorIndexes, or the table's plus a new one): on-demand tables only,
 * at most VECTOR_INDEX_MAX, no name twice (also among other_names, a list
 * of the table's other index names, may be NULL), and indexes on one
 * attribute sharing their dimensions.
 */
int vector_check_list(const json_t *list, bool on_demand,
                      const json_t *other_names, struct ddb_err *err);
/* What list's indexes add to the 100 projected attributes of a table's
 * indexes: the vector attribute and every INLINE_FILTER count 1 each,
 * beside their NonKeyAttributes. */
size_t vector_projected_count(const json_t *list);
/* Append to used (an array of names) each SearchSchema attribute of
 * list not in it yet: they are what AttributeDefinitions may define
 * beside keys. */
void vector_add_used(const json_t *list, json_t *used);

/*
 * Settle the vector indexes of desc at now (ms): an index being created
 * moves from allocation to backfilling to ACTIVE, a deleted one goes,
 * when its time has come (the status delay; tables/vector_update.c sets
 * the times). Returns whether desc changed.
 */
bool vector_desc_settle(json_t *desc, uint64_t now);
/* Remove the private members of the VectorIndexes of pub (a public
 * description being built); with srv, fill each index's live ItemCount
 * and IndexSizeBytes. */
void vector_desc_public(struct api_server *srv, json_t *pub);

/* ------------------------------------------------------------------------
 * The in-memory indexes (store.c)
 * ---------------------------------------------------------------------- */

struct vector_registry;
struct vector_table;

/* The registry of one server (srv->vectors): exact_max is the largest
 * index partition searched exactly (--vector-exact-max). A background
 * thread builds graphs for larger ones. */
struct vector_registry *vector_registry_new(struct storage *st,
                                            unsigned exact_max);
void vector_registry_free(struct vector_registry *r);
/* Rebuild every table's vector indexes from its items (start-up). */
int vector_registry_load(struct vector_registry *r, struct ddb_err *err);
/* Run the background work now (graphs, compaction) until none is left:
 * tests and benchmarks that measure it. */
void vector_registry_settle(struct vector_registry *r);

/*
 * The in-memory indexes of table t, brought in line with its stored
 * description first: an index missing from memory is built from the
 * table's items, one no longer described is dropped. NULL with err set
 * on failure; close with vector_table_close().
 */
struct vector_table *vector_table_open(struct vector_registry *r,
                                       struct stable *t,
                                       struct ddb_err *err);
void vector_table_close(struct vector_table *vt);
/* Forget every table named table (DeleteTable). */
void vector_table_drop(struct vector_registry *r, const char *table);
/* Forget one index of the table whose TableId is table_id (UpdateTable's
 * Delete). */
void vector_index_drop(struct vector_registry *r, const char *table_id,
                       const char *index);
/* Live ItemCount and IndexSizeBytes of one index (0 when unknown). */
void vector_index_stats(struct vector_registry *r, const char *table_id,
                        const char *index, uint64_t *count,
                        uint64_t *bytes);

/* ------------------------------------------------------------------------
 * Writes (write.c): the hook of the one write path (ops/write.c)
 * ---------------------------------------------------------------------- */

/* One item write on a table with vector indexes. */
struct vector_write;

/* Start one for table t (borrowed), or NULL with err set. */
struct vector_write *vector_write_new(struct api_server *srv,
                                      struct stable *t, struct ddb_err *err);
void vector_write_free(struct vector_write *vw);
/*
 * Under the partition lock, once the new item is known (old and new_item
 * may be NULL): refuse a new item whose vector or SearchSchema attributes
 * no index can take (ValidationException with DynamoDB's message), note
 * what each index's stored entry changes by (VectorWriteRequestBytes),
 * and turn the sizes the write is billed by (old_size, new_size; either
 * may be NULL) into DynamoDB's: an indexed vector counts its name plus 4
 * bytes per dimension. May run more than once (a retried write).
 */
int vector_write_check(struct vector_write *vw, const json_t *old,
                       const json_t *new_item, size_t *old_size,
                       size_t *new_size, struct ddb_err *err);
/*
 * After the write committed: bring the indexes in line with the item
 * (read again, so concurrent writes of one item end in order) and record
 * each changed index's VectorWriteRequestBytes in ctx's consumption.
 */
void vector_write_done(struct vector_write *vw, struct api_ctx *ctx,
                       const char *table, struct stable *t,
                       const struct item_key *k);

/* ------------------------------------------------------------------------
 * SearchVectors (search.c)
 * ---------------------------------------------------------------------- */

/* One search, checked against the request alone. */
struct vector_query {
    const char *index;              /* IndexName (borrowed) */
    float *q;                       /* owned: SearchVector */
    size_t dims;
    size_t topk;
    struct expr *cond;              /* owned: SearchConditionExpression */
    struct expr *proj;              /* owned: ProjectionExpression */
};
void vector_query_fini(struct vector_query *q);

/*
 * Check the query against the index it names in desc (its state, the
 * search vector's dimensions, the condition against the SearchSchema),
 * search, and return the SearchResults list in *results (new reference)
 * and the VectorSearchRequestBytes it consumed in *bytes. t is the open
 * table (its items are what results project).
 */
int vector_search(struct api_ctx *ctx, struct stable *t, const json_t *desc,
                  const struct vector_query *q, json_t **results,
                  double *bytes, struct ddb_err *err);

#endif
