/* SPDX-License-Identifier: MIT */
/* txn.h - the transaction core (txn_core.c) that TransactWriteItems and
 * TransactGetItems (txn.c) and PartiQL's ExecuteTransaction
 * (partiql_multi.c) share: actions resolved against their tables,
 * committed all or nothing in one stable_txn() with DynamoDB's conflict
 * rules, cancellation reasons, throttling, GSI back-pressure and
 * ClientRequestToken idempotency. Private to api/ops/. */
#ifndef SHARDLOCAL_OPS_TXN_H
#define SHARDLOCAL_OPS_TXN_H

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>

#include "api/index/index.h"
#include "api/ops/write.h"
#include "api/proto/context.h"
#include "api/tables/tables.h"

#define TXN_ITEMS_MAX    100

enum txn_kind { TK_CHECK, TK_PUT, TK_DELETE, TK_UPDATE, TK_GET };

/* One action of a transaction: its parsed request and, after the call,
 * what it read and wrote. */
struct txn_item {
    enum txn_kind kind;
    const json_t *op;               /* borrowed: the action's members (its
                                       TableName, ...) */
    struct write_req w;             /* the action (ops/write.h); for a Get,
                                       its key and expressions */
    struct table_ref ot;
    struct expr *proj;              /* owned: a Get's projection */
    const char *ccf_code;           /* a failed condition's cancellation
                                       code and message instead of
                                       ConditionalCheckFailed (PartiQL's
                                       INSERT: DuplicateItem); NULL */
    const char *ccf_msg;
    const void *user;               /* the caller's (ExecuteTransaction:
                                       the action's statement) */
    /* tables with secondary indexes: the index rows are written in the
     * same stable_txn(), planned from a snapshot that a guard re-checks */
    struct index_plan *plan;        /* owned; this round's index writes */
    json_t *snap;                   /* owned: the snapshot of the item */
    bool stale;                     /* the guard found the item changed */
    /* GSI back-pressure and the item collection limit, checked on this
     * round's plan before anything is written */
    struct gsi_gate gate;           /* admitted GSI partitions */
    enum { TG_OK, TG_THROTTLED, TG_COLLECTION } gate_fail;
};

/* n actions, each's write_req started as a CHECK on nothing. */
struct txn_item *txn_items_new(size_t n);
void txn_items_free(struct txn_item *ti, size_t n);

/* A resolve step: the checks that need the action's table, and its key
 * into *k. */
typedef int txn_resolve_fn(struct api_ctx *ctx, struct txn_item *ti,
                           struct item_key *k, struct ddb_err *err);
/* A write action's table (its op's TableName, unless ti->ot is already
 * open) and write_resolve(). */
int txn_resolve_write(struct api_ctx *ctx, struct txn_item *ti,
                      struct item_key *k, struct ddb_err *err);
/* Resolve every action in order. The first error that is not a key
 * schema mismatch is returned as is; the first key that does not match
 * cancels the transaction: ValidationError for that action, None for
 * every other. */
int txn_resolve_all(struct api_ctx *ctx, struct txn_item *ti,
                    struct item_key *keys, size_t n, txn_resolve_fn *fn,
                    struct ddb_err *err);

/*
 * Commit n resolved write actions (keys[i] each one's item) all or
 * nothing: no two on one item, at most 4 MB of items, the request's
 * ClientRequestToken (a replay within 10 minutes answers again without
 * running; the same token with another request is
 * IdempotentParameterMismatch), every action admitted on its partition,
 * in-flight conflicts, GSI back-pressure, then one stable_txn(). A failed
 * condition cancels everything: TransactionCanceledException with one
 * reason per action. Consumption (doubled) is recorded per table. req
 * (borrowed) is the whole request: its token, ReturnConsumedCapacity and
 * ReturnItemCollectionMetrics. *resp is new on success.
 */
int txn_write_commit(struct api_ctx *ctx, const json_t *req,
                     struct txn_item *ti, struct item_key *keys, size_t n,
                     json_t **resp, struct ddb_err *err);
/*
 * Read n resolved Get actions under one snapshot: no two on one item,
 * admitted, cancelled when an in-flight transaction holds one, at most
 * 4 MB read. items[i] is each item (new reference) or NULL; the reads are
 * recorded per table (transactional, doubled).
 */
int txn_get_commit(struct api_ctx *ctx, struct txn_item *ti,
                   const struct item_key *keys, size_t n, json_t **items,
                   struct ddb_err *err);

#endif
