/* SPDX-License-Identifier: MIT */
/* op_common.h - request plumbing shared by the data-plane handlers
 * (op_item.c, op_query.c, op_batch.c, op_txn.c): the request's expression
 * environment (expression or legacy style), the table plus its key schema,
 * and the ConsumedCapacity / ReturnValuesOnConditionCheckFailure members. */
#ifndef SHARDLOCAL_OP_COMMON_H
#define SHARDLOCAL_OP_COMMON_H

#include <stdbool.h>
#include <jansson.h>

#include "api/api.h"
#include "api/expr/expr.h"
#include "api/index/index.h"
#include "api/proto/av.h"
#include "api/expr/legacy.h"
#include "api/throttle/throttle.h"
#include "storage/storage.h"

/* ------------------------------------------------------------------------
 * Expressions of one request.
 *
 * Usage, in DynamoDB's order of checks:
 *
 *     struct op_exprs x;
 *     op_exprs_init(&x);
 *     if (op_exprs_begin_op(&x, req, "UpdateItem", err) != 0)    mix check
 *         goto out;
 *     ... validate Item / Key AttributeValues ...
 *     if (op_exprs_parse(&x, req, EXPR_UPDATE, NULL, &upd, err) != 0 ||
 *         op_exprs_parse(&x, req, EXPR_CONDITION, NULL, &cond, err) != 0 ||
 *         op_exprs_check_unused(&x, req, err) != 0)
 *         goto out;
 *     ...
 * out:
 *     expr_free(cond); expr_free(upd);
 *     op_exprs_fini(&x);
 *
 * Call op_exprs_parse in DynamoDB's order: UpdateExpression,
 * ConditionExpression, KeyConditionExpression, FilterExpression,
 * ProjectionExpression. Each returns *out = NULL (and 0) when the request
 * has neither the expression nor its legacy counterpart.
 * ---------------------------------------------------------------------- */

#define OP_LEGACY_MAX 4

struct op_exprs {
    json_t *values;                 /* owned: deep copy of
                                       ExpressionAttributeValues, validated
                                       and canonicalised; NULL if absent */
    struct expr_env *env;           /* the request's names/values */
    unsigned nlegacy;
    struct legacy_expr le[OP_LEGACY_MAX];   /* translated legacy params */
    struct expr_env *lenv[OP_LEGACY_MAX];   /* one env per translation, so
                                               synthetic #l0/:l0 never clash */
};

/* Zero x so op_exprs_fini() is always safe. */
void op_exprs_init(struct op_exprs *x);
/* The expression/legacy mix checks (legacy_check_mix()). The names/values
 * maps themselves are validated later, by the first op_exprs_parse() or
 * op_exprs_check_unused(), which is DynamoDB's order. */
int op_exprs_begin(struct op_exprs *x, const json_t *req,
                   struct ddb_err *err);
/* The same for a known operation ("PutItem", "Query", ...; see
 * legacy_check_mix_op()): prefer this one, the messages name exactly that
 * operation's parameters. */
int op_exprs_begin_op(struct op_exprs *x, const json_t *req, const char *op,
                      struct ddb_err *err);
/*
 * Parse the request's expression of this kind: the member
 * ConditionExpression / FilterExpression / KeyConditionExpression /
 * ProjectionExpression / UpdateExpression if present, else its legacy
 * counterpart Expected (+ ConditionalOperator) / legacy_param (+
 * ConditionalOperator; "QueryFilter" or "ScanFilter", required for
 * EXPR_FILTER) / KeyConditions / AttributesToGet / AttributeUpdates,
 * translated by legacy.c. *out is owned by the caller (expr_free), NULL
 * when neither member is present. The expr borrows from x: free it before
 * op_exprs_fini(x).
 */
int op_exprs_parse(struct op_exprs *x, const json_t *req,
                   enum expr_kind kind, const char *legacy_param,
                   struct expr **out, struct ddb_err *err);
/* The "... unused in expressions" checks on the request's own maps (which
 * are validated here if no expression needed them yet). Call once, after
 * every op_exprs_parse(). */
int op_exprs_check_unused(struct op_exprs *x, const json_t *req,
                          struct ddb_err *err);
void op_exprs_fini(struct op_exprs *x);

/* ------------------------------------------------------------------------
 * The table of a request.
 * ---------------------------------------------------------------------- */

struct op_table {
    struct stable *t;               /* owned handle (released by close) */
    struct key_schema ks;           /* the table's primary key */
    const char *name;               /* stable_name(t), valid while open */
};

/* api_open_table() + the key schema. On failure -1 with err set and
 * nothing to close (op_table_close is still safe). */
int op_table_open(struct api_ctx *ctx, const json_t *req,
                  struct op_table *ot, struct ddb_err *err);
void op_table_close(struct op_table *ot);

/*
 * Key attributes are scalars: DynamoDB rejects an expression that reaches
 * into one with '.' or '[]' (e.g. ProjectionExpression "#k.a" or "k[0]")
 * with "Key attributes must be scalars; list random access '[]' and map
 * lookup '.' are not allowed: Key: k". Checks the request's member (an
 * expression string; absent is fine) against ks, resolving #names through
 * ExpressionAttributeNames. Run it after the key itself was checked.
 */
int op_check_key_scalars(const json_t *req, const char *member,
                         const struct key_schema *ks, struct ddb_err *err);

/* ------------------------------------------------------------------------
 * Reply members.
 * ---------------------------------------------------------------------- */

/* Add "ConsumedCapacity" to resp per the request's ReturnConsumedCapacity
 * (nothing for absent/NONE). */
void op_add_capacity(json_t *resp, const json_t *req, const char *table,
                     double units);
/* Fill err with ConditionalCheckFailedException "The conditional request
 * failed", attaching old (borrowed, copied; may be NULL) as the error's
 * "Item" when the request has ReturnValuesOnConditionCheckFailure ALL_OLD.
 * Returns -1. */
int op_condition_failed(const json_t *req, const json_t *old,
                        struct ddb_err *err);
/* Copy a request map member (Item, Key, ...) and validate it with
 * item_validate() (numbers canonicalised in the copy). *out is a new
 * reference (caller frees). */
int op_item_copy_validate(const json_t *req, const char *member,
                          json_t **out, struct ddb_err *err);

/* ------------------------------------------------------------------------
 * Throttling (docs/throttling.md 8). A data request asks before it runs and
 * pays after:
 *
 *     struct op_throttle th;
 *     op_throttle_init(&th);
 *     ... table opened, key built ...
 *     if (op_throttle_admit(ctx, ot.t, &k, THROTTLE_WRITE, need, &th,
 *                           err) != 0)
 *         goto out;                        nothing changed: PTEE etc.
 *     ... run it (a failed condition still pays) ...
 * out:
 *     op_throttle_charge(ctx, &th, units); no-op unless admitted
 *     op_table_close(&ot);                 after the charge
 *
 * Without a registry (ctx->srv->throttle NULL, e.g. unit tests) every call
 * admits and charges nothing.
 * ---------------------------------------------------------------------- */

struct op_throttle {
    struct throttle_table *tt;      /* borrowed from the registry */
    struct stable *t;               /* borrowed: the admitted table */
    struct throttle_ticket tk;
    bool admitted;                  /* charge pending */
    const uint8_t *pk;              /* the key's bytes (pkbuf) or NULL */
    size_t pk_len;
    uint8_t hash[16];               /* the key's hash (size splits) */
    uint8_t pkbuf[KEY_BYTES_MAX];   /* copy of the key's bytes */
};

void op_throttle_init(struct op_throttle *th);
/* The throttle state of table t (index NULL), created on first use from
 * its description and "shardlocal:" tags. NULL when the server has no
 * registry. Borrowed: valid until the server stops. */
struct throttle_table *op_throttle_table(struct api_ctx *ctx,
                                         struct stable *t);
/*
 * May a request on key k of table t run? need
 * is the least it can cost (<= 0: 1). Applies fault-injection rules first.
 * Returns 0 (th admitted: call op_throttle_charge later), or -1 with err
 * set to DynamoDB's throttling exception; the request must then change
 * nothing. Every throttle is logged (rate-limited) at level info.
 */
int op_throttle_admit(struct api_ctx *ctx, struct stable *t,
                      const struct item_key *k, enum throttle_op op,
                      double need, struct op_throttle *th,
                      struct ddb_err *err);
/* The same on partition part (Query/Scan pages, whose key may be
 * unknown); pk may be NULL. */
int op_throttle_admit_part(struct api_ctx *ctx, struct stable *t,
                           unsigned part, const uint8_t *pk, size_t pk_len,
                           enum throttle_op op, double need,
                           struct op_throttle *th, struct ddb_err *err);
/* Query/Scan: admit on the partition owning hash (the queried key's, or
 * where a Scan page starts); pk (copied, may be NULL) feeds the hot keys. */
int op_throttle_admit_hash(struct api_ctx *ctx, struct stable *t,
                           const uint8_t hash[16], const uint8_t *pk,
                           size_t pk_len, enum throttle_op op, double need,
                           struct op_throttle *th, struct ddb_err *err);
/*
 * Global secondary indexes have their own throttle state over their
 * hidden table's partitions. Reads of GSI d (Query/Scan with IndexName)
 * admit here: hash/pk are the index key's; desc is the base table's
 * description (borrowed). A rejection fails with the Index... reason and
 * the GSI message. LSIs (d->global false) share the table's capacity:
 * this admits nothing, use op_throttle_admit_hash on the base table.
 */
int op_throttle_admit_index(struct api_ctx *ctx, const char *table,
                            const struct index_def *d, const json_t *desc,
                            const uint8_t hash[16], const uint8_t *pk,
                            size_t pk_len, enum throttle_op op, double need,
                            struct op_throttle *th, struct ddb_err *err);
/*
 * GSI back-pressure of one planned base-item write, for every write path
 * (PutItem, UpdateItem, DeleteItem, BatchWriteItem, TransactWriteItems):
 * each index row the plan writes (index_plan: the old row's delete on its
 * partition, the new row's put on its) must find write capacity on its
 * GSI partition; LSIs share the table's capacity and admit nothing here.
 * op_gsi_gate_admit forgets any earlier admission (a retried plan), then
 * admits; on a refusal -1 with err set to the GSI's throttling exception
 * (Index... reason, index ARN), g->refused/g->cause naming it (for batch
 * and transaction reasons), and nothing pending. op_gsi_gate_charge pays
 * what was admitted: each row's write units (index_plan's per-index units)
 * times mult (2 in transactions). op_gsi_gate_fini frees; it pays nothing.
 */
struct op_gsi_gate {
    size_t n;                       /* tickets in th */
    struct op_throttle *th;         /* owned: 2 * INDEX_MAX tickets */
    double units[2 * INDEX_MAX];    /* what each ticket pays */
    struct throttle_table *refused; /* borrowed: the GSI that refused */
    enum throttle_cause cause;      /* its cause (THROTTLE_OK: none) */
};
void op_gsi_gate_init(struct op_gsi_gate *g);
int op_gsi_gate_admit(struct api_ctx *ctx, const char *table,
                      const struct index_set *s, const struct index_plan *p,
                      double mult, struct op_gsi_gate *g,
                      struct ddb_err *err);
void op_gsi_gate_charge(struct api_ctx *ctx, struct op_gsi_gate *g);
void op_gsi_gate_fini(struct op_gsi_gate *g);

/*
 * The index_gate_fn of single-item writes (op_item.c, op_batch.c): GSI
 * back-pressure (op_gsi_gate_admit into w->g), then the item collection
 * limit (--item-collection-limit, tables with LSIs). Fill the inputs,
 * op_gsi_gate_init(&w->g), pass it to index_mutate_gated(); afterwards
 * op_gsi_gate_charge (the write happened) and op_gsi_gate_fini.
 * w->throttled tells a GSI refusal (the request then changed nothing and
 * must not pay its base-table admission either) from other failures.
 */
struct op_write_gate {
    struct api_ctx *ctx;            /* borrowed */
    const char *table;              /* borrowed: the base table's name */
    const struct index_set *s;      /* borrowed */
    struct stable *base;            /* borrowed */
    const struct item_key *k;       /* borrowed: the base item's key */
    struct op_gsi_gate g;
    bool throttled;                 /* out: a GSI refused the write */
};
void op_write_gate_init(struct op_write_gate *w, struct api_ctx *ctx,
                        const char *table, const struct index_set *s,
                        struct stable *base, const struct item_key *k);
int op_write_gate_fn(void *arg, const json_t *old, const json_t *new_item,
                     const struct index_plan *p, struct ddb_err *err);
/* The --item-collection-limit in bytes (0: none). */
uint64_t op_item_collection_limit(const struct api_ctx *ctx);

/* Without raising an error: the cause (THROTTLE_OK when admitted), for
 * batch and transaction items; on a rejection th->tt is set (for
 * throttle_batch_err / throttle_txn_code) and nothing else happens. */
enum throttle_cause op_throttle_try(struct api_ctx *ctx, struct stable *t,
                                    const struct item_key *k,
                                    enum throttle_op op, double need,
                                    struct op_throttle *th);
/* Pay units (e.g. 0.5, 1, 11) for an admitted request, then forget the
 * ticket (safe to call twice or without an admission). A write also checks
 * whether its partition passed --split-size, and splits it. */
void op_throttle_charge(struct api_ctx *ctx, struct op_throttle *th,
                        double units);
/* Charge units to partition part of th's table (th admitted: a Scan page
 * that went on into other partitions), without admission. */
void op_throttle_charge_other(struct api_ctx *ctx,
                              const struct op_throttle *th, unsigned part,
                              double units);
/* Charge units to partition part without admission. */
void op_throttle_charge_part(struct api_ctx *ctx, struct stable *t,
                             unsigned part, enum throttle_op op,
                             double units);
/*
 * Split every partition of t (UpdateTable raising throughput beyond what
 * the partitions can serve): stable_split from the last partition down,
 * each matched by throttle_table_split. -1 with err if a split failed
 * (the partitions split so far stay split, in storage and throttle state).
 */
int op_throttle_double(struct api_ctx *ctx, struct stable *t,
                       struct ddb_err *err);
/* UpdateTable: new throughput from desc (the new description, borrowed) on
 * the table's throttle state, if it has one. */
void op_throttle_update(struct api_ctx *ctx, struct stable *t,
                        const json_t *desc);
/*
 * UpdateTable, after the new description (borrowed) was stored: when the
 * provisioned throughput needs more partitions than t has
 * (throttle_limits_partitions with the table's limits), double the
 * partition count until it suffices (op_throttle_double); lowering keeps
 * the partitions. Then the new throughput goes to the throttle state
 * (op_throttle_update). -1 with err if a split failed.
 */
int op_throttle_resize(struct api_ctx *ctx, struct stable *t,
                       const json_t *desc, struct ddb_err *err);
/* CreateTable: start the new table's throttle state now (a stale one of
 * the same name is dropped first), so its banks fill from creation. */
void op_throttle_created(struct api_ctx *ctx, const char *table);
/* DeleteTable: forget the table's throttle state and fault rules. */
void op_throttle_drop(struct api_ctx *ctx, const char *table);

#endif
