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

/* Shared by every request: one per server (no hidden globals). */
struct throttle_registry;
struct faults;

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
    uint64_t now_ms;                /* wall clock at request start */
};

/* req is borrowed; on success *resp is a new reference the caller owns and
 * the return is 0. On failure -1 with err set and *resp untouched. */
typedef int api_handler(struct api_ctx *ctx, const json_t *req,
                        json_t **resp, struct ddb_err *err);

#endif
