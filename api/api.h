/* SPDX-License-Identifier: MIT */
/* api.h - the DynamoDB operation table and the state handlers share.
 * server/ calls api_dispatch(); every handler validates, resolves the
 * table, acts through storage/, then builds the reply. */
#ifndef SHARDLOCAL_API_H
#define SHARDLOCAL_API_H

#include <jansson.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "conf/conf.h"
#include "storage/storage.h"

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

/*
 * Fill srv for the store st and settings c (both borrowed, outliving srv):
 * the throttle registry, the fault rules and the clock (the virtual clock
 * starts at the wall clock, then moves only through POST
 * /shardlocal/clock). api_server_fini frees what init made.
 */
void api_server_init(struct api_server *srv, struct storage *st,
                     const struct conf *c);
void api_server_fini(struct api_server *srv);

/* The server's "now" in ms: the virtual clock when enabled, else the wall
 * clock (CLOCK_REALTIME). http.c stores it in ctx->now_ms once per
 * request; handlers use ctx->now_ms. */
uint64_t api_now_ms(struct api_server *srv);

/* Per request. */
struct api_ctx {
    struct api_server *srv;
    const char *region;             /* from the credential scope */
    const char *access_key;
    uint64_t now_ms;                /* wall clock at request start */
};

/* req is borrowed; on success *resp is a new reference the caller owns and
 * the return is 0. On failure -1 with err set and *resp untouched. */
typedef int api_handler(struct api_ctx *ctx, const json_t *req,
                        json_t **resp, struct ddb_err *err);

enum { API_READ = 1, API_WRITE = 2, API_DDL = 4 };

struct api_op {
    const char *name;               /* X-Amz-Target suffix: "PutItem" */
    api_handler *handler;
    unsigned flags;
};

/* Find an operation by name (bsearch over the sorted table); NULL if none. */
const struct api_op *api_lookup(const char *name);

/* Handlers (api/op_*.c). */
api_handler api_create_table, api_describe_table, api_list_tables,
    api_update_table, api_delete_table;
api_handler api_put_item, api_get_item, api_update_item, api_delete_item;
api_handler api_query, api_scan;
api_handler api_batch_get_item, api_batch_write_item;
api_handler api_transact_get_items, api_transact_write_items;
api_handler api_describe_contributor_insights,
    api_update_contributor_insights, api_list_contributor_insights;

/* The table's ARN for the request's region and the configured account. */
void api_table_arn(const struct api_ctx *ctx, const char *table, char *out,
                   size_t outsz);
/* Resolve TableName (a name or a table ARN) to an open table. On failure
 * -1 with ResourceNotFoundException "Requested resource not found" (or the
 * validation error for a bad name). The caller releases *t. */
int api_open_table(struct api_ctx *ctx, const json_t *req,
                   struct stable **t, struct ddb_err *err);

#endif
