/* SPDX-License-Identifier: MIT */
/* context.h - the context of a DynamoDB call, shared by dispatch and every
 * handler: the server state (one per server, no hidden globals), the
 * per-request context (caller, region, time) and the handler signature.
 * Every folder of api/ includes it; it includes nothing of api/. */
#ifndef SHARDLOCAL_PROTO_CONTEXT_H
#define SHARDLOCAL_PROTO_CONTEXT_H

#include <jansson.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "conf/conf.h"
#include "storage/storage.h"

struct capacity;
struct api_ctx;

/* Shared by every request: one per server (no hidden globals). */
struct throttle_registry;
struct faults;
struct transfer;
struct vector_registry;
struct streams_meter;
struct streams_sweeper;

/*
 * Resource policies: may the caller (ctx->account, running ctx->op) use
 * the table stored as `table`, owned by account `owner`, whose ARN is
 * `arn`? 0 to allow; -1 with err set (AccessDeniedException) to refuse.
 * The resource-policy code installs one in api_server.policy; without
 * it, a table is its owner's alone (tables/lookup.c: tables_check_access).
 */
typedef int api_policy_fn(const struct api_ctx *ctx, const char *owner,
                          const char *table, const char *arn,
                          struct ddb_err *err);

struct api_server {
    struct storage *st;
    const struct conf *conf;
    struct throttle_registry *throttle; /* every table's buckets (owned by
                                           main.c: registry_new/free) */
    bool virtual_clock;             /* --virtual-clock: time moves only
                                       through POST /shardlocal/clock */
    _Atomic uint64_t vclock_ms;     /* the virtual clock's time, in ms */
    struct faults *faults;          /* fault-injection rules
                                       (throttle/faults.c) */
    struct vector_registry *vectors; /* the in-memory vector indexes
                                       (vector/store.c) */
    api_policy_fn *policy;          /* resource policies; NULL: none */
    struct transfer *transfer;      /* export and import jobs
                                       (transfer/jobs.c) */
    struct streams_meter *streams;  /* DynamoDB Streams' read limits and
                                       meters (streams/meter.c) */
    struct streams_sweeper *sweeper; /* the TTL/trim thread, or NULL
                                       (streams/sweep.c) */
};

/* The server's "now" in ms: the virtual clock when enabled, else the wall
 * clock (CLOCK_REALTIME). dispatch stores it in ctx->now_ms once per
 * request; handlers use ctx->now_ms. */
uint64_t api_now_ms(struct api_server *srv);

/* Per request. */
struct api_ctx {
    struct api_server *srv;
    struct capacity *cap;           /* what the request consumed, rendered
                                       as ConsumedCapacity by dispatch
                                       (capacity.h); NULL: not recorded */
    const char *region;             /* from the credential scope */
    const char *access_key;
    const char *account;            /* the caller's account (12 digits): its
                                       key's (--auth signature), else
                                       --account-id; NULL means the latter */
    const char *op;                 /* the operation ("GetItem"), or NULL */
    uint64_t now_ms;                /* wall clock at request start */
    const char *host;               /* the Host header the caller used, or
                                       NULL (DescribeEndpoints) */
    size_t body_len;                /* the request body's bytes, 0: not
                                       known */
    char *reply_item;               /* the reply's Item as stored JSON text
                                       (owned), put first in the reply:
                                       GetItem sends an item whole without
                                       parsing it; NULL: none */
    size_t reply_item_len;
    bool reply_items;               /* reply_item is the "Items" list of
                                       a Query or Scan, not an "Item" */
};

/*
 * Accounts' tables share one store. A table of the configured account
 * (--account-id) is stored under its own name, as every data directory
 * written before accounts holds it; another account's table under
 * "<account>:<name>" (':' is never in a table name). Inside api/ a table
 * is known by its stored name; clients see the public one.
 */
/* The stored name of account's table name into out; false when it does
 * not fit. account NULL: the caller's (ctx->account). */
bool api_table_stored(const struct api_ctx *ctx, const char *account,
                      const char *name, char *out, size_t outsz);
/* The name clients see for a stored one (a suffix of it, borrowed). */
const char *api_table_public(const char *stored);
/* The account owning a stored name: its prefix, else --account-id.
 * Borrowed from stored or the settings, or buf (13 bytes). */
const char *api_table_owner(const struct api_ctx *ctx, const char *stored,
                            char buf[13]);
/* The caller's account: ctx->account, else --account-id. */
const char *api_account(const struct api_ctx *ctx);

/* req is borrowed; on success *resp is a new reference the caller owns and
 * the return is 0. On failure -1 with err set and *resp untouched. */
typedef int api_handler(struct api_ctx *ctx, const json_t *req,
                        json_t **resp, struct ddb_err *err);

struct table_ref;                   /* tables/tables.h */

/* The item an item operation works on, and what it asks the throttle
 * for before it runs. Lives on dispatch's stack (a key is 4 KB: not
 * worth zeroing per call). */
struct api_admit {
    struct item_key key;            /* the item's storage key */
    bool write;                     /* a write (else a read) */
    double need;                    /* the least the call can cost */
};

/*
 * An operation on one item of one table (GetItem, PutItem, UpdateItem,
 * DeleteItem): dispatch runs the steps between these callbacks (tmux's
 * command entries, resolved by its queue before exec). st is the
 * operation's state, state_size bytes, zeroed, freed by dispatch after
 * fini.
 */
struct api_item_op {
    size_t state_size;
    /* The request's own checks, in DynamoDB's order, before the table. */
    int (*prepare)(struct api_ctx *ctx, const json_t *req, void *st,
                   struct ddb_err *err);
    /* The checks against the table tr; fill the admission (its key
     * first). */
    int (*resolve)(struct api_ctx *ctx, void *st, const struct table_ref *tr,
                   struct api_admit *adm, struct ddb_err *err);
    /* Do it, once admitted. */
    int (*run)(struct api_ctx *ctx, void *st, const struct table_ref *tr,
               const struct api_admit *adm, struct ddb_err *err);
    /* The units the table's own partition consumed, charged and recorded
     * for ConsumedCapacity; asked after run whatever it returned (a failed
     * condition still consumes). 0 when nothing ran. */
    double (*units)(const void *st);
    /* The reply after a successful run: *resp a new reference. */
    int (*reply)(struct api_ctx *ctx, void *st, const struct table_ref *tr,
                 const struct api_admit *adm, json_t **resp,
                 struct ddb_err *err);
    void (*fini)(void *st);
};

#endif
