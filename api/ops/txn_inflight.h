/* SPDX-License-Identifier: MIT */
/* txn_inflight.h - the items in-flight TransactWriteItems hold, so that
 * overlapping requests fail as DynamoDB's do ("Transaction conflict
 * handling"): a single-item write with TransactionConflictException, a
 * transaction with a TransactionConflict cancellation reason. */
#ifndef SHARDLOCAL_TXN_INFLIGHT_H
#define SHARDLOCAL_TXN_INFLIGHT_H

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>

#include "api/proto/context.h"
#include "storage/storage.h"

/* DynamoDB's text, both for TransactionConflictException and for the
 * TransactionConflict cancellation reason's Message. */
#define TXN_INFLIGHT_MSG "Transaction is ongoing for the item"

/* One item of a transaction: its table's name and its key (borrowed). */
struct txn_inflight_item {
    const char *table;
    const struct item_key *k;
};

struct txn_inflight_ent;

/* What one transaction registered; zero it (or txn_inflight_hold_init)
 * so txn_inflight_release is always safe. */
struct txn_inflight_hold {
    size_t n;
    struct txn_inflight_ent **ents;     /* owned */
};

void txn_inflight_hold_init(struct txn_inflight_hold *h);

/*
 * Register every item for owner (the server: ctx->srv), all or none,
 * just before a TransactWriteItems commits. Returns 0 with h holding them
 * (txn_inflight_release once the commit ended), or 1 when some item is
 * held by another in-flight transaction of the same owner: nothing is
 * registered and conflict[i] (conflict may be NULL) says which.
 */
int txn_inflight_acquire(const void *owner,
                         const struct txn_inflight_item *items, size_t n,
                         bool *conflict, struct txn_inflight_hold *h);
/* Forget what h registered (safe on an empty or released hold). */
void txn_inflight_release(struct txn_inflight_hold *h);

/* Is the item held by an in-flight transaction? Lock-free (an atomic
 * load) while no transaction is in flight anywhere. */
bool txn_inflight_is_held(const void *owner, const char *table,
                          const struct item_key *k);
/* Items held now, over every owner (tests, diagnostics). */
size_t txn_inflight_count(void);

/* For single-item writes (PutItem, UpdateItem, DeleteItem): -1 with
 * TransactionConflictException "Transaction is ongoing for the item" when
 * a transaction holds the item, else 0. */
int txn_inflight_check(struct api_ctx *ctx, const char *table,
                       const struct item_key *k, struct ddb_err *err);

/* ------------------------------------------------------------------------
 * Test hook: pause rules. A TransactWriteItems touching a table with a
 * rule sleeps pause_ms after registering its items and before its commit,
 * which makes conflicts deterministic in end-to-end tests.
 * ---------------------------------------------------------------------- */

/*
 * POST /shardlocal/faults with a "pause_ms" member (admin_faults
 * passes it here): {"table": T, "pause_ms": N (1..60000), "count": C
 * (optional, default 1)} adds a rule for the next C transactions on T;
 * {"pause_ms": 0} only lists; {"pause_ms": 0, "clear": true} (optionally
 * with "table") clears. *resp is {"pauses": [{"table", "pause_ms",
 * "count" (left), "fired", "paused" (sleeping now)}]}.
 */
int txn_inflight_pause_admin(struct api_server *srv, const json_t *req,
                             json_t **resp, struct ddb_err *err);
/* Called by a transaction holding its items: sleep as the first matching
 * rule of owner for one of tables (n names, borrowed) says, if any. */
void txn_inflight_pause(const void *owner, const char *const *tables,
                        size_t n);

#endif
