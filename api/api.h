/* SPDX-License-Identifier: MIT */
/* api.h - what server/ calls: the server state's set-up, the DynamoDB
 * operation table and api_dispatch(), which runs one call through the
 * steps every operation shares. Handlers live in the concern folders
 * (ops/, tables/) and share the call context of proto/context.h. */
#ifndef SHARDLOCAL_API_H
#define SHARDLOCAL_API_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "api/proto/context.h"

/*
 * Fill srv for the store st and settings c (both borrowed, outliving srv):
 * the throttle registry, the fault rules and the clock (the virtual clock
 * starts at the wall clock, then moves only through POST
 * /shardlocal/clock). api_server_fini frees what init made.
 */
void api_server_init(struct api_server *srv, struct storage *st,
                     const struct conf *c);
void api_server_fini(struct api_server *srv);
/* Before serving a data directory: bring what an older version wrote up
 * to date (its items re-placed by DynamoDB's key hash; logged at info).
 * 0, or -1 with err set: the store is unchanged and the server must not
 * serve it. */
int api_storage_upgrade(struct storage *st, const struct conf *c,
                        struct ddb_err *err);

/* What an operation is; dispatch reads the capacity flags. */
enum {
    API_READ = 1 << 0,              /* reads items */
    API_WRITE = 1 << 1,             /* writes items */
    API_DDL = 1 << 2,               /* the control plane */
    API_CAPACITY = 1 << 3,          /* ConsumedCapacity: one object */
    API_CAPACITY_LIST = 1 << 4,     /* ConsumedCapacity: a list per table */
    API_CAPACITY_SPLIT = 1 << 5,    /* ... with Read/WriteCapacityUnits */
};

struct api_schema;                  /* proto/validate.h */
/* One operation: its request schema, and a handler that runs it all or
 * an item operation's steps (proto/context.h). */
struct api_op {
    const char *name;               /* X-Amz-Target suffix: "PutItem" */
    const struct api_schema *schema; /* its request's shape (validate.h) */
    api_handler *handler;           /* NULL for an item operation */
    const struct api_item_op *item; /* NULL for a handler */
    unsigned flags;                 /* API_* */
};

/* Find a DynamoDB operation by name (bsearch over the sorted table); NULL
 * if none. */
const struct api_op *api_lookup(const char *name);
/* Find the operation an X-Amz-Target names: its prefix picks the service
 * (DynamoDB_20120810. or DynamoDBStreams_20120810.), the rest the
 * operation. NULL if none. */
const struct api_op *api_lookup_target(const char *target);

/*
 * The request-only checks of op, in DynamoDB's order: the request's shape
 * (validate.h), then an item operation's own checks into st (its state,
 * op->item->state_size bytes, zeroed; NULL for a handler). The caller runs
 * op->item->fini(st) whatever this returns. 0, or -1 with err set.
 */
int api_check(const struct api_op *op, struct api_ctx *ctx,
              const json_t *req, void *st, struct ddb_err *err);

/* One DynamoDB call as server/ received it. */
struct api_call {
    const char *target;             /* X-Amz-Target, or NULL */
    const char *body;               /* the request body (len bytes) */
    size_t len;
    bool signed_v4;                 /* SigV4 credentials were sent (header
                                       or presigned query) */
    const char *region;             /* its credential scope's region, or
                                       the configured default */
    const char *access_key;         /* its access key id, or "" */
    const char *host;               /* the Host header, or NULL */
    const char *account;            /* the caller's account (12 digits):
                                       its key's under --auth signature;
                                       NULL: --account-id */
    const struct ddb_err *auth;     /* --auth signature: why the signature
                                       was refused (reported after the
                                       target, in DynamoDB's order); NULL
                                       or DDB_OK when it passed */
};

/* The answer: a JSON body (DynamoDB's compact form) and its status. */
struct api_reply {
    unsigned status;
    char *body;                     /* malloc'd; the caller frees it */
    size_t len;
    const char *op;                 /* the operation's name, or NULL */
};

/*
 * Run call through the steps every operation shares, in DynamoDB's order:
 * the body's JSON (SerializationException), the operation
 * (UnknownOperationException), the signature (MissingAuthentication
 * TokenException, or call->auth's error), the request's shape
 * (validate.h); then, with a fresh
 * context, an item operation's steps: its own checks, the table
 * (ResourceNotFoundException), the checks against it, admission on the
 * item's partition, the run, the charge; or a handler that opens its
 * tables and admits and charges each item through the same gates
 * (throttle/gate.h), because a batch's second item must see what its
 * first consumed. Every step records what it consumed; last, on success,
 * the ConsumedCapacity member is rendered from that record (unless the
 * handler answered it itself). Fills out; never fails.
 */
void api_dispatch(struct api_server *srv, const struct api_call *call,
                  struct api_reply *out);

/*
 * Would dispatching call now wait for a WAL checkpoint? True when it is an
 * item operation (GetItem, PutItem, UpdateItem, DeleteItem) whose item's
 * partition a checkpoint holds this moment (milliseconds on a slow disk).
 * A server thread can then serve its other connections and dispatch call
 * once that checkpoint lets go (api_on_checkpoint_done), rather than hold
 * every request it serves behind one partition. One atomic load while no
 * checkpoint holds a partition; otherwise dispatch's steps up to the
 * admission, none taken: nothing is charged or recorded, and any error is
 * left for dispatch to answer (false).
 */
bool api_would_wait(struct api_server *srv, const struct api_call *call);
/* Is a checkpoint holding a partition now? The load api_would_wait()
 * starts with, for a caller that would otherwise build the call first. */
bool api_checkpointing(struct api_server *srv);
/* Have fn(arg) called, from the checkpoint thread, each time a checkpoint
 * lets a partition go; fn NULL to stop (once this returns, an earlier fn
 * is neither running nor called again). */
void api_on_checkpoint_done(struct api_server *srv, void (*fn)(void *),
                            void *arg);

/* The reply for status and JSON body (borrowed), or for err (borrowed):
 * used by dispatch and by server/'s admin routes. */
void api_reply_json(struct api_reply *out, unsigned status,
                    const json_t *body);
void api_reply_error(struct api_reply *out, const struct ddb_err *err);

#endif
