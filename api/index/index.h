/* SPDX-License-Identifier: MIT */
/* index.h - global and local secondary indexes: each index is a hidden
 * storage table kept in step with its base table by stable_txn(); this
 * header is what the write paths (ops/item.c, ops/batch.c, ops/txn.c), the
 * readers (ops/query.c) and the control plane (tables/) share. */
#ifndef SHARDLOCAL_INDEX_H
#define SHARDLOCAL_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#include "api/proto/av.h"
#include "api/proto/capacity.h"
#include "storage/storage.h"

#define INDEX_GSI_MAX   20
#define INDEX_LSI_MAX   5
#define INDEX_MAX       (INDEX_GSI_MAX + INDEX_LSI_MAX)
/* Storage ops a single base-item write can need: the base row plus, per
 * index, the old row's delete and the new row's put. */
#define INDEX_OPS_MAX   (1 + 2 * INDEX_MAX)

enum index_proj { INDEX_PROJ_ALL, INDEX_PROJ_KEYS_ONLY, INDEX_PROJ_INCLUDE };

/* Multi-attribute keys: a GSI's KeySchema may name up to 4 HASH and 4
 * RANGE attributes (DynamoDB's "multi-attribute keys"). */
#define INDEX_KEY_ATTRS_MAX 4

/* One attribute of an index key. */
struct index_key_attr {
    char name[256];
    char type;                      /* 'S', 'N' or 'B' */
};

/* One index of a table, parsed from the table's description. */
struct index_def {
    const char *name;               /* borrowed from the set's desc */
    bool global;                    /* GSI (else LSI) */
    bool readable;                  /* ACTIVE (a GSI being created or
                                       deleted cannot be queried) */
    struct key_schema ks;           /* the index's own key */
    enum index_proj proj;
    const json_t *nonkey;           /* borrowed: NonKeyAttributes or NULL */
    struct stable *t;               /* owned handle on the hidden table */
    /* Every key attribute in KeySchema order (ks holds the first HASH and
     * the first RANGE one): nhash >= 1, nrange >= 0. */
    size_t nhash, nrange;
    struct index_key_attr hash[INDEX_KEY_ATTRS_MAX];
    struct index_key_attr range[INDEX_KEY_ATTRS_MAX];
};

/* True when d's key has more than one HASH or more than one RANGE
 * attribute (a multi-attribute key). */
bool index_is_multi(const struct index_def *d);
/* The index key attributes of item (every HASH and RANGE attribute of d
 * that item has) as a new map. */
json_t *index_key_map(const struct index_def *d, const json_t *item);
/* Encode the index partition key of d from values[0..d->nhash-1] (one
 * AttributeValue per HASH attribute, in KeySchema order) into out
 * (KEY_BYTES_MAX): the plain encoding for one attribute, else an escaped
 * composite of all of them. -1 if a value does not encode. */
long index_pk_encode(const struct index_def *d, const json_t *const *values,
                     uint8_t *out);
/* Append the composite component for the encoded value v (n bytes) to
 * out at *len (out has KEY_BYTES_MAX bytes; the escaped value and its
 * 0x00 0x00 terminator, truncated at KEY_BYTES_MAX). */
void index_sk_append(uint8_t *out, size_t *len, const uint8_t *v, size_t n);

/* The indexes of one table (those whose hidden table exists). */
struct index_set {
    json_t *desc;                   /* owned reference to the description */
    struct key_schema base;         /* the table's primary key */
    size_t n;
    struct index_def idx[INDEX_MAX];
};

/* True when the description declares any secondary index: the cheap test
 * that keeps tables without indexes on the plain stable_mutate() path. */
bool index_desc_has(const json_t *desc);
/* The GlobalSecondaryIndexes entry of desc named name (borrowed), or NULL.
 * LSIs are not looked at (Contributor Insights answers ResourceNotFound
 * for them, as DynamoDB does). */
const json_t *index_desc_gsi(const json_t *desc, const char *name);

/* The hidden storage table of index `index` of table `table`. Table names
 * cannot contain '/', so these never collide with a user table. */
void index_table_name(const char *table, const char *index, char *out,
                      size_t outsz);
/* True for hidden index table names (ListTables leaves them out). */
bool index_is_hidden_name(const char *name);

/* Parse desc's indexes and open their hidden tables. desc is borrowed (a
 * reference is kept). s is always safe to close afterwards. */
int index_set_open(struct storage *st, const json_t *desc,
                   struct index_set *s, struct ddb_err *err);
void index_set_close(struct index_set *s);
/* The index called name, or NULL. */
const struct index_def *index_find(const struct index_set *s,
                                   const char *name);

/*
 * The storage key of an item's row in index d (d->ks gives the index
 * partition key; the sort key is an order-preserving composite of the
 * index sort key and the base table key). Returns 1 when the item belongs
 * in the index, 0 when it is absent from it (a key attribute missing: a
 * sparse index), -1 when an index key attribute has the wrong type or an
 * empty value (ValidationException with DynamoDB's message).
 */
int index_row_key(const struct index_def *d, const struct key_schema *base,
                  const json_t *item, struct item_key *k,
                  struct ddb_err *err);
/* Sort-key bounds on an index's composite sort key for an encoded index
 * sort key value v (n bytes): the escaped value followed by 0x00 and tail.
 * With tail 0x00 it is the least composite whose index sort key is v, with
 * 0x01 it sorts after every composite whose index sort key is v. Returns
 * the length written to out (KEY_BYTES_MAX bytes). */
size_t index_sk_bound(const uint8_t *v, size_t n, uint8_t tail,
                      uint8_t *out);
/* The composite prefix shared by every index sort key beginning with v
 * (begins_with). Returns the length. */
size_t index_sk_prefix(const uint8_t *v, size_t n, uint8_t *out);
/* Check every index key attribute of item (a PutItem item) for its type
 * and emptiness; the ValidationException index_row_key() would give. */
int index_check_item(const struct index_set *s, const json_t *item,
                     struct ddb_err *err);
/* The item as stored in index d (its projection). New reference. */
json_t *index_project(const struct index_def *d,
                      const struct key_schema *base, const json_t *item);

/*
 * The index side of one base-item write. index_plan() fills ops[] with the
 * stable_txn() operations that bring every index row in line with the
 * change old -> new_item (either may be NULL) and units[i] with the write
 * units index i costs (throttling.md 2: 0 when it is untouched). The ops
 * borrow from p (p must outlive the stable_txn() call); index_plan_fini()
 * releases what the plan holds.
 */
struct index_row_arg {
    json_t *row;                    /* owned: projected item, NULL = delete */
    size_t size;
};
struct index_plan {
    size_t nops;
    struct stxn_op ops[2 * INDEX_MAX];
    struct index_row_arg args[2 * INDEX_MAX];
    double units[INDEX_MAX];        /* per index of the set, in set order */
};
int index_plan(const struct index_set *s, const json_t *old,
               const json_t *new_item, struct index_plan *p,
               struct ddb_err *err);
void index_plan_fini(struct index_plan *p);

/*
 * A single-item write on a table with indexes, with the semantics of
 * stable_mutate(): fn (the same function a plain table passes to
 * stable_mutate) decides the new item from the current one; the base row
 * and every index row are then written in one stable_txn(). The current
 * item is read first and fn runs on it; the transaction re-checks that the
 * item has not changed in between and starts over if it has (optimistic
 * concurrency), so fn may run more than once (it must reset its outputs,
 * as stable_mutate callers already do). units (may be NULL) receives the
 * per-index write units of the write that happened. origin is what the
 * change log records for the base item (index rows are never logged).
 */
int index_mutate(const struct index_set *s, struct stable *base,
                 const struct item_key *k, enum storage_origin origin,
                 stable_mutate_fn *fn, void *arg, double *units,
                 struct ddb_err *err);

/*
 * index_mutate() with a gate: gate (may be NULL) runs under the same
 * optimistic read, after index_plan() and before the stable_txn(), with
 * the current item old, the new item and the plan; a non-zero return
 * aborts the write with err as the gate set it, nothing written. It runs
 * again on every retry (so it must reset what it admitted), and not at
 * all when fn fails (a failed condition) or leaves the item alone. GSI
 * back-pressure and the item collection limit use it (ops/write.c
 * write_gate_fn).
 */
typedef int index_gate_fn(void *arg, const json_t *old,
                          const json_t *new_item, const struct index_plan *p,
                          struct ddb_err *err);
int index_mutate_gated(const struct index_set *s, struct stable *base,
                       const struct item_key *k, stable_mutate_fn *fn,
                       void *arg, index_gate_fn *gate, void *gate_arg,
                       double *units, struct ddb_err *err);

/*
 * The 10 GB item collection limit of tables with LSIs: would the write
 * old -> new_item (either may be NULL) of base key k grow its item
 * collection (base items plus their LSI rows) past limit bytes (0: no
 * limit)? -1 with ItemCollectionSizeLimitExceededException "Collection
 * size exceeded." if so; shrinking writes always pass. Cheap unless the
 * partitions holding the collection are near the limit.
 */
#define INDEX_COLLECTION_MSG "Collection size exceeded."

/* The start of the refusal of an empty S or B index key value in a
 * written item; "string value. IndexName: ..." or "binary ..." follows. */
#define INDEX_EMPTY_KEY_MSG "One or more parameter values are not valid. " \
    "A value specified for a secondary index key is not supported. The " \
    "AttributeValue for a key attribute cannot contain an empty "
int index_collection_check(const struct index_set *s, struct stable *base,
                           const struct item_key *k, const json_t *old,
                           const json_t *new_item, uint64_t limit,
                           struct ddb_err *err);
/* True when s has a local secondary index. */
bool index_set_has_lsi(const struct index_set *s);

/*
 * For writers that batch several items into one stable_txn() themselves
 * (TransactWriteItems): read each item first (stable_txn_get), decide its
 * new item, append index_plan()'s ops for it, and give the base item's op
 * index_guard_fn with a struct index_guard: under the locks it checks the
 * item is still snap (else sets changed and fails with
 * TransactionConflictException "item changed: retry", nothing written: read
 * again and retry), then stores new_item (NULL: delete; keep_row: leave
 * the row as it is, a pure check).
 */
struct index_guard {
    const json_t *snap;             /* the item as read (NULL: absent) */
    json_t *new_item;               /* borrowed: what to store; NULL delete */
    size_t new_size;
    bool keep_row;                  /* only check, do not write */
    bool changed;                   /* out: the item moved on: retry */
};
int index_guard_fn(void *arg, const json_t *old, size_t old_size,
                   json_t **new_item, size_t *new_size, bool *keep,
                   struct ddb_err *err);

/* Record each index's write or read units (units[i] for index i of s)
 * on table in the request's consumption (proto/capacity.h); indexes
 * without units are not listed. */
void index_capacity_add(struct capacity *c, const char *table,
                        const struct index_set *s, const double *units);

/*
 * ItemCollectionMetrics for a write to a table with LSIs (the request had
 * ReturnItemCollectionMetrics SIZE): the item collection of partition key
 * k->pk (base items plus their LSI rows) as {"ItemCollectionKey": {pk},
 * "SizeEstimateRangeGB": [lo, hi]}. item carries the partition key value.
 * NULL (no error) when the table has no LSI. New reference.
 */
json_t *index_collection_metrics(const struct index_set *s,
                                 struct stable *base,
                                 const struct item_key *k,
                                 const json_t *item, struct ddb_err *err);

/* Copy every item of base into the (new, empty) index d: the backfill of
 * UpdateTable's Create. */
int index_backfill(struct stable *base, const struct key_schema *bks,
                   const struct index_def *d, struct ddb_err *err);

/* Delete every hidden index table of table `table` (DeleteTable, and
 * before CreateTable as a safety net). */
void index_drop_all(struct storage *st, const char *table);

#endif
