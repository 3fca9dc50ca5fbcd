/* SPDX-License-Identifier: MIT */
/* write.h - the one read-modify-write path every write shares (PutItem,
 * UpdateItem, DeleteItem, BatchWriteItem, TransactWriteItems): one item's
 * write as data (struct write_req), the step run under the partition lock
 * (write_apply), the checks against the table, the single-item run with
 * index upkeep, and the gates before a write commits (GSI back-pressure,
 * the item collection limit). */
#ifndef SHARDLOCAL_OPS_WRITE_H
#define SHARDLOCAL_OPS_WRITE_H

#include <stdbool.h>
#include <jansson.h>

#include "api/expr/request.h"
#include "api/index/index.h"
#include "api/proto/context.h"
#include "api/tables/tables.h"
#include "api/throttle/gate.h"
#include "api/vector/vector.h"
#include "storage/storage.h"

/* ------------------------------------------------------------------------
 * One item's write.
 *
 * The caller fills a write_req from its request in DynamoDB's order of
 * checks (write_take_item / write_take_key / write_parse_exprs: single
 * writes, batches and transactions order them differently), resolves it
 * against the table (write_resolve), then runs write_apply under the
 * partition lock: through write_single() for PutItem, UpdateItem and
 * DeleteItem, or as the stable_mutate_fn of a batch or a transaction.
 * ---------------------------------------------------------------------- */

enum write_kind { WRITE_PUT, WRITE_UPDATE, WRITE_DELETE, WRITE_CHECK };

/* ReturnValues. */
enum write_rv { RV_NONE, RV_ALL_OLD, RV_UPDATED_OLD, RV_UPDATED_NEW,
                RV_ALL_NEW };

struct write_req {
    enum write_kind kind;
    const json_t *params;           /* borrowed: the action's members (the
                                       request, a TransactItems entry's
                                       action, a WriteRequest's) */
    struct req_exprs x;             /* its expressions' names and values */
    struct expr *cond;              /* owned; NULL: unconditional */
    struct expr *upd;               /* owned: UPDATE's update, or NULL */
    json_t *item;                   /* owned: PUT's validated item */
    json_t *key;                    /* owned: the validated Key map */
    size_t size;                    /* PUT: the item's size */
    bool own_params;                /* params is a single-item request,
                                       validated in place, not copied
                                       (item_take_validate) */
    enum write_rv rv;               /* ReturnValues */
    struct index_set *set;          /* owned by write_resolve when the
                                       table has secondary indexes */
    struct vector_write *vec;       /* owned by write_resolve when the
                                       table has vector indexes */
    /* set by write_apply(), under the partition lock: */
    json_t *attrs;                  /* owned: the reply's Attributes */
    size_t old_size, new_size;      /* the item before and after */
    bool cond_failed;               /* the condition did not hold */
    bool gsi_refused;               /* write_run: a GSI had no capacity */
};

/* Start w for a write of this kind on params (borrowed, outliving w). */
void write_req_init(struct write_req *w, enum write_kind kind,
                    const json_t *params);
void write_req_fini(struct write_req *w);

/*
 * Take params' member (Item for PUT, Key otherwise) into w, validated
 * (numbers canonical). A missing or null member leaves w->item / w->key
 * NULL and returns 0: the caller words that error. A PUT item's size goes
 * to w->size.
 */
int write_take_item(struct write_req *w, struct ddb_err *err);
int write_take_key(struct write_req *w, struct ddb_err *err);
/* Parse UPDATE's update expression (or legacy AttributeUpdates), then the
 * condition (or Expected), then the unused names/values checks, in that
 * order. */
int write_parse_exprs(struct write_req *w, struct ddb_err *err);
/* ReturnValues from params (NONE when absent). */
enum write_rv write_rv_of(const json_t *params);

/*
 * The checks that need the table tr, in DynamoDB's order: the key against
 * the schema (from the PUT item, or the Key map), the item's index key
 * attributes, an update's key attributes (not updatable, scalars), and
 * the table's secondary indexes opened into w->set (unless CHECK), its
 * vector indexes into w->vec (a PUT item checked against them). *k is
 * the storage key. A transaction's own items are checked against other
 * transactions elsewhere; single writes call write_check_held().
 */
int write_resolve(struct api_ctx *ctx, struct write_req *w,
                  const struct table_ref *tr, struct item_key *k,
                  struct ddb_err *err);

/* After a write committed: the vector indexes' upkeep and their
 * VectorWriteRequestBytes (vector.h); nothing without w->vec. */
void write_vector_done(struct api_ctx *ctx, struct write_req *w,
                       const struct table_ref *tr, const struct item_key *k);

/*
 * The read-modify-write step (a stable_mutate_fn; arg is the write_req):
 * evaluate the condition on old (ConditionalCheckFailedException, with
 * the old item when ReturnValuesOnConditionCheckFailure is ALL_OLD), then
 * compute the new item: PUT's item, UPDATE's applied expression (the key
 * attributes added; a REMOVE-only update of a missing item creates
 * nothing), nothing for DELETE (the row goes) and CHECK (the row stays).
 * Sets w's sizes and Attributes. May run more than once (retries): every
 * output is reset first.
 */
int write_apply(void *arg, const json_t *old, size_t old_size,
                json_t **new_item, size_t *new_size, bool *keep,
                struct ddb_err *err);

/* A single write on an item an ongoing transaction holds:
 * TransactionConflictException (txn_inflight.h). */
int write_check_held(struct api_ctx *ctx, const struct table_ref *tr,
                     const struct item_key *k, struct ddb_err *err);

/* The write units the table's own row consumed (throttling.md 2): the
 * larger of the old and new item, 1 KB steps, at least 1. A failed
 * condition consumes what the write would have: the new item for PUT,
 * 1 otherwise; a write a GSI refused consumed nothing. */
double write_units(const struct write_req *w);

/*
 * Apply one admitted write on its own (PutItem, UpdateItem, DeleteItem):
 * with the index rows when w->set, after GSI back-pressure and the item
 * collection limit passed; a GSI refusal sets w->gsi_refused (nothing ran,
 * nothing is consumed). idx_units (INDEX_MAX entries, zeroed here)
 * receives each index's write units, which are charged to the GSIs here.
 */
int write_run(struct api_ctx *ctx, struct write_req *w,
              const struct table_ref *tr, const struct item_key *k,
              double *idx_units, struct ddb_err *err);

/*
 * A Time to Live delete (the sweep, api/streams/sweep.c): delete the item
 * with key (borrowed, validated) from table tr if its attribute attr still
 * holds a Number of epoch seconds below now_ms and at most five years old
 * (the condition is checked under the partition lock, so an item updated
 * since it was found is judged on its new value). Index rows follow; no
 * capacity is charged; the change log records the service as its origin.
 * *deleted tells whether it went. 0, or -1 with err set on failure.
 */
int write_expire(struct api_ctx *ctx, const struct table_ref *tr,
                 const json_t *key, const char *attr, uint64_t now_ms,
                 bool *deleted, struct ddb_err *err);
/* The bounds of an expired TTL value at now_ms as canonical numbers into
 * lo and hi (NUM_TEXT_MAX bytes each): expired is lo <= v < hi. */
void write_ttl_bounds(uint64_t now_ms, char *lo, char *hi);

/* An UpdateExpression that makes a secondary index key an empty string
 * or binary is refused in its own words, naming no index: rewrite err
 * (index.c's INDEX_EMPTY_KEY_MSG) so when w is such an update. */
void write_index_error(const struct write_req *w, struct ddb_err *err);

/* Fill err with ConditionalCheckFailedException "The conditional request
 * failed", attaching old (borrowed, copied; may be NULL) as the error's
 * "Item" when params has ReturnValuesOnConditionCheckFailure ALL_OLD.
 * Returns -1. */
int write_condition_failed(const json_t *params, const json_t *old,
                           struct ddb_err *err);

/*
 * GSI back-pressure of one planned base-item write, for every write path
 * (PutItem, UpdateItem, DeleteItem, BatchWriteItem, TransactWriteItems):
 * each index row the plan writes (index_plan: the old row's delete on its
 * partition, the new row's put on its) must find write capacity on its
 * GSI partition; LSIs share the table's capacity and admit nothing here.
 * gsi_gate_admit forgets any earlier admission (a retried plan), then
 * admits; on a refusal -1 with err set to the GSI's throttling exception
 * (Index... reason, index ARN), g->refused/g->cause naming it (for batch
 * and transaction reasons), and nothing pending. gsi_gate_charge pays
 * what was admitted: each row's write units (index_plan's per-index units)
 * times mult (2 in transactions). gsi_gate_fini frees; it pays nothing.
 */
struct gsi_gate {
    size_t n;                       /* tickets in th */
    struct gate_ticket *th;         /* owned: 2 * INDEX_MAX tickets */
    double units[2 * INDEX_MAX];    /* what each ticket pays */
    struct throttle_table *refused; /* borrowed: the GSI that refused */
    enum throttle_cause cause;      /* its cause (THROTTLE_OK: none) */
};
void gsi_gate_init(struct gsi_gate *g);
int gsi_gate_admit(struct api_ctx *ctx, const char *table,
                   const struct index_set *s, const struct index_plan *p,
                   double mult, struct gsi_gate *g,
                   struct ddb_err *err);
void gsi_gate_charge(struct api_ctx *ctx, struct gsi_gate *g);
void gsi_gate_fini(struct gsi_gate *g);

/*
 * The index_gate_fn of single-item writes (ops/item.c, ops/batch.c): GSI
 * back-pressure (gsi_gate_admit into w->g), then the item collection
 * limit (--item-collection-limit, tables with LSIs). Fill the inputs,
 * gsi_gate_init(&w->g), pass it to index_mutate_gated(); afterwards
 * gsi_gate_charge (the write happened) and gsi_gate_fini.
 * w->throttled tells a GSI refusal (the request then changed nothing and
 * must not pay its base-table admission either) from other failures.
 */
struct write_gate {
    struct api_ctx *ctx;            /* borrowed */
    const char *table;              /* borrowed: the base table's name */
    const struct index_set *s;      /* borrowed */
    struct stable *base;            /* borrowed */
    const struct item_key *k;       /* borrowed: the base item's key */
    struct gsi_gate g;
    bool throttled;                 /* out: a GSI refused the write */
};
void write_gate_init(struct write_gate *w, struct api_ctx *ctx,
                     const char *table, const struct index_set *s,
                     struct stable *base, const struct item_key *k);
int write_gate_fn(void *arg, const json_t *old, const json_t *new_item,
                  const struct index_plan *p, struct ddb_err *err);
/* The --item-collection-limit in bytes (0: none). */
uint64_t write_collection_limit(const struct api_ctx *ctx);

#endif
