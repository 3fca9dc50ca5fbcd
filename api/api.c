/* SPDX-License-Identifier: MIT */
/* api.c - the operation tables, every DynamoDB and DynamoDB Streams
 * operation shardlocal serves sorted by its X-Amz-Target name, and
 * api_dispatch(), which takes one call from its body's bytes to its reply's
 * through the steps every operation shares. The handlers live in api/ops/,
 * api/tables/ and api/streams/. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "api/ops/ops.h"
#include "api/proto/capacity.h"
#include "api/proto/error.h"
#include "api/proto/validate.h"
#include "api/streams/streams.h"
#include "api/tables/tables.h"
#include "api/transfer/transfer.h"
#include "api/throttle/gate.h"
#include "storage/json_fast.h"
#include "storage/util.h"

/*
 * Every operation, sorted by name (strcmp order: api_lookup() bsearches).
 * OP names a handler, api_<op>; ITEM an item operation's steps,
 * item_op_<kind>; both the request schema, schema_<op> (validate.h).
 */
#define OP(name, op, flags) { name, &schema_##op, api_##op, NULL, flags }
#define ITEM(name, op, kind, flags) \
    { name, &schema_##op, NULL, &item_op_##kind, flags }
#define CAP      API_CAPACITY
#define CAP_LIST API_CAPACITY_LIST
#define CAP_TXN  (API_CAPACITY_LIST | API_CAPACITY_SPLIT)

static const struct api_op api_ops[] = {
    OP("BatchExecuteStatement", batch_execute_statement,
       API_READ | API_WRITE | CAP_LIST),
    OP("BatchGetItem", batch_get_item, API_READ | CAP_LIST),
    OP("BatchWriteItem", batch_write_item, API_WRITE | CAP_LIST),
    OP("CreateBackup", create_backup, API_DDL),
    OP("CreateGlobalTable", create_global_table, API_DDL),
    OP("CreateTable", create_table, API_DDL),
    OP("DeleteBackup", delete_backup, API_DDL),
    ITEM("DeleteItem", delete_item, delete, API_WRITE | CAP),
    OP("DeleteResourcePolicy", delete_resource_policy, API_DDL),
    OP("DeleteTable", delete_table, API_DDL),
    OP("DescribeBackup", describe_backup, API_DDL),
    OP("DescribeContinuousBackups", describe_continuous_backups, API_DDL),
    OP("DescribeContributorInsights", describe_contributor_insights,
       API_DDL),
    OP("DescribeEndpoints", describe_endpoints, API_DDL),
    OP("DescribeExport", describe_export, API_DDL),
    OP("DescribeGlobalTable", describe_global_table, API_DDL),
    OP("DescribeGlobalTableSettings", describe_global_table_settings,
       API_DDL),
    OP("DescribeImport", describe_import, API_DDL),
    OP("DescribeKinesisStreamingDestination",
       describe_kinesis_streaming_destination, API_DDL),
    OP("DescribeLimits", describe_limits, API_DDL),
    OP("DescribeTable", describe_table, API_DDL),
    OP("DescribeTableReplicaAutoScaling",
       describe_table_replica_auto_scaling, API_DDL),
    OP("DescribeTimeToLive", describe_time_to_live, API_DDL),
    OP("DisableKinesisStreamingDestination",
       disable_kinesis_streaming_destination, API_DDL),
    OP("EnableKinesisStreamingDestination",
       enable_kinesis_streaming_destination, API_DDL),
    OP("ExecuteStatement", execute_statement, API_READ | API_WRITE | CAP),
    OP("ExecuteTransaction", execute_transaction,
       API_READ | API_WRITE | CAP_TXN),
    OP("ExportTableToPointInTime", export_table_to_point_in_time, API_DDL),
    ITEM("GetItem", get_item, get, API_READ | CAP),
    OP("GetResourcePolicy", get_resource_policy, API_DDL),
    OP("ImportTable", import_table, API_DDL),
    OP("ListBackups", list_backups, API_DDL),
    OP("ListContributorInsights", list_contributor_insights, API_DDL),
    OP("ListExports", list_exports, API_DDL),
    OP("ListGlobalTables", list_global_tables, API_DDL),
    OP("ListImports", list_imports, API_DDL),
    OP("ListTables", list_tables, API_DDL),
    OP("ListTagsOfResource", list_tags_of_resource, API_DDL),
    ITEM("PutItem", put_item, put, API_WRITE | CAP),
    OP("PutResourcePolicy", put_resource_policy, API_DDL),
    OP("Query", query, API_READ | CAP),
    OP("RestoreTableFromBackup", restore_table_from_backup, API_DDL),
    OP("RestoreTableToPointInTime", restore_table_to_point_in_time, API_DDL),
    OP("Scan", scan, API_READ | CAP),
    /* Its own deserialiser runs before the model's checks: no schema
     * here (ops/search.c); it answers its ConsumedCapacity itself. */
    { "SearchVectors", NULL, api_search_vectors, NULL, API_READ },
    OP("TagResource", tag_resource, API_DDL),
    OP("TransactGetItems", transact_get_items, API_READ | CAP_TXN),
    OP("TransactWriteItems", transact_write_items, API_WRITE | CAP_TXN),
    OP("UntagResource", untag_resource, API_DDL),
    OP("UpdateContinuousBackups", update_continuous_backups, API_DDL),
    OP("UpdateContributorInsights", update_contributor_insights, API_DDL),
    OP("UpdateGlobalTable", update_global_table, API_DDL),
    OP("UpdateGlobalTableSettings", update_global_table_settings, API_DDL),
    ITEM("UpdateItem", update_item, update, API_WRITE | CAP),
    OP("UpdateKinesisStreamingDestination",
       update_kinesis_streaming_destination, API_DDL),
    OP("UpdateTable", update_table, API_DDL),
    OP("UpdateTableReplicaAutoScaling", update_table_replica_auto_scaling,
       API_DDL),
    OP("UpdateTimeToLive", update_time_to_live, API_DDL),
};

/* DynamoDB Streams: a second JSON service on the same port, signed for
 * the service "dynamodb" (botocore's dynamodbstreams model: targetPrefix
 * DynamoDBStreams_20120810, signingName dynamodb). */
static const struct api_op streams_ops[] = {
    OP("DescribeStream", describe_stream, API_READ),
    OP("GetRecords", get_records, API_READ),
    OP("GetShardIterator", get_shard_iterator, API_READ),
    OP("ListStreams", list_streams, API_READ),
};

/* The services, by X-Amz-Target prefix. */
static const struct {
    const char *prefix;             /* up to and with the '.' */
    const struct api_op *ops;       /* sorted by name */
    size_t n;
} services[] = {
    { "DynamoDB_20120810.", api_ops, sizeof(api_ops) / sizeof(api_ops[0]) },
    { "DynamoDBStreams_20120810.", streams_ops,
      sizeof(streams_ops) / sizeof(streams_ops[0]) },
};

static int
op_cmp(const void *key, const void *elem)
{
    return strcmp((const char *)key, ((const struct api_op *)elem)->name);
}

/* Find an operation of service svc by its exact (case-sensitive) name;
 * NULL if none. */
static const struct api_op *
service_lookup(size_t svc, const char *name)
{
    if (name == NULL)
        return NULL;
    return bsearch(name, services[svc].ops, services[svc].n,
                   sizeof(services[svc].ops[0]), op_cmp);
}

const struct api_op *
api_lookup(const char *name)
{
    return service_lookup(0, name);
}

const struct api_op *
api_lookup_target(const char *target)
{
    size_t i, len;

    for (i = 0; target != NULL && i < sizeof(services) / sizeof(services[0]);
         i++) {
        len = strlen(services[i].prefix);
        if (strncmp(target, services[i].prefix, len) == 0)
            return service_lookup(i, target + len);
    }
    return NULL;
}

/* ------------------------------------------------------------------------
 * Replies
 * ---------------------------------------------------------------------- */

void
api_reply_json(struct api_reply *out, unsigned status, const json_t *body)
{
    struct json_fast_buf b = { 0 };
    char *s;

    if (json_fast_dump(body, &b) == 0) {    /* same bytes as json_dumps */
        out->status = status;
        out->body = b.p;
        out->len = b.len;
        return;
    }
    free(b.p);
    s = json_text(body, JSON_COMPACT);
    if (s == NULL) {
        s = xstrdup("{\"__type\":\"com.amazonaws.dynamodb.v20120810#"
                    "InternalServerError\",\"message\":\"Internal server "
                    "error\"}");
        status = 500;
    }
    out->status = status;
    out->body = s;
    out->len = strlen(s);
}

/* out's body, a JSON object, with member "Item" (or "Items" when items)
 * = the JSON text text (n bytes) put first: {"Item":TEXT} or
 * {"Item":TEXT,...}; GetItem's item, or a Query or Scan page's list. */
static void
reply_put_item(struct api_reply *out, bool items, const char *text, size_t n)
{
    const char *head = items ? "{\"Items\":" : "{\"Item\":";
    size_t hl = strlen(head), rest = out->len - 1, pos;
    char *b = xmalloc(hl + n + 1 + rest + 1);

    memcpy(b, head, hl);
    memcpy(b + hl, text, n);
    pos = hl + n;
    if (out->len > 2)                   /* not "{}" */
        b[pos++] = ',';
    memcpy(b + pos, out->body + 1, rest);       /* through the '}' */
    pos += rest;
    b[pos] = '\0';
    free(out->body);
    out->body = b;
    out->len = pos;
}

void
api_reply_error(struct api_reply *out, const struct ddb_err *err)
{
    json_t *body = error_body(err);

    api_reply_json(out, error_http_status(err->type), body);
    json_decref(body);
}

/* An error of type with msg (NULL: DynamoDB's bare form). */
static void
reply_error_type(struct api_reply *out, enum ddb_errtype type,
                 const char *msg)
{
    struct ddb_err err;

    ddb_err_init(&err);
    ddb_err_set(&err, type, "%s", msg != NULL ? msg : "");
    api_reply_error(out, &err);
}

/* ------------------------------------------------------------------------
 * Dispatch
 * ---------------------------------------------------------------------- */

/* The request body as JSON, or NULL when it is none. \u0000 is legal in
 * DynamoDB strings, so NUL is allowed; handlers use json_string_length(). */
static json_t *
parse_body(const struct api_call *call)
{
    json_error_t jerr;

    return json_fast_or_loadb(call->body, call->len, &jerr);
}

/* The checks before any handler, in DynamoDB's order. Returns the
 * operation, or NULL with out filled. */
static const struct api_op *
admit_call(const struct api_call *call, json_t *req, bool have_body,
           struct api_reply *out)
{
    const struct api_op *op;

    if (have_body && req == NULL) {
        reply_error_type(out, DDB_SERIALIZATION, NULL);
        return NULL;
    }
    op = api_lookup_target(call->target);
    if (op == NULL) {
        reply_error_type(out, DDB_UNKNOWN_OPERATION, NULL);
        return NULL;
    }
    out->op = op->name;
    if (call->auth != NULL && call->auth->type != DDB_OK) {
        api_reply_error(out, call->auth);
        return NULL;
    }
    if (!call->signed_v4) {
        reply_error_type(out, DDB_MISSING_AUTH_TOKEN,
                         "Request is missing Authentication Token");
        return NULL;
    }
    if (req == NULL) {
        reply_error_type(out, DDB_SERIALIZATION, NULL);
        return NULL;
    }
    if (!json_is_object(req)) {
        reply_error_type(out, DDB_SERIALIZATION,
                         json_is_array(req)
                             ? "Start of list found where not expected"
                             : "Unexpected value type in payload");
        return NULL;
    }
    return op;
}

int
api_check(const struct api_op *op, struct api_ctx *ctx, const json_t *req,
          void *st, struct ddb_err *err)
{
    if (validate_request_sized(op->schema, req, ctx->body_len, err) != 0)
        return -1;
    if (op->item != NULL)
        return op->item->prepare(ctx, req, st, err);
    return 0;
}

/*
 * An item operation's steps after its checks (proto/context.h): the table,
 * the checks against it, admission on the item's partition, the run, the
 * charge (a failed run consumes too), the table's units recorded for
 * ConsumedCapacity, then the reply.
 */
static int
run_item_op(struct api_ctx *ctx, const struct api_item_op *io,
            const json_t *req, void *st, json_t **resp, struct ddb_err *err)
{
    struct table_ref tr = { 0 };
    struct api_admit adm;
    struct gate_ticket th;
    double units;
    int rc = -1;

    gate_init(&th);
    if (table_ref_open(ctx, req, &tr, err) != 0 ||
        io->resolve(ctx, st, &tr, &adm, err) != 0 ||
        gate_admit(ctx, tr.t, &adm.key,
                   adm.write ? THROTTLE_WRITE : THROTTLE_READ, adm.need, &th,
                   err) != 0)
        goto out;
    rc = io->run(ctx, st, &tr, &adm, err);
    units = io->units(st);
    gate_charge(ctx, &th, units);
    if (rc == 0) {
        capacity_add(ctx->cap, tr.name, adm.write ? 0 : units,
                     adm.write ? units : 0);
        rc = io->reply(ctx, st, &tr, &adm, resp, err);
    }
out:
    table_ref_close(&tr);
    return rc;
}

/* The capacity flags of op as capacity_report() takes them. */
static unsigned
capacity_flags(const struct api_op *op)
{
    return ((op->flags & API_CAPACITY_LIST) ? CAPACITY_LIST : 0) |
           ((op->flags & API_CAPACITY_SPLIT) ? CAPACITY_SPLIT : 0);
}

/* ctx for op on call's behalf. */
static void
ctx_init(struct api_ctx *ctx, struct api_server *srv,
         const struct api_call *call, const struct api_op *op,
         struct capacity *cap)
{
    memset(ctx, 0, sizeof(*ctx));
    ctx->srv = srv;
    ctx->region = call->region;
    ctx->access_key = call->access_key;
    ctx->host = call->host;
    ctx->account = call->account;
    ctx->op = op->name;
    ctx->now_ms = api_now_ms(srv);
    ctx->cap = cap;
    ctx->body_len = call->len;
}

bool
api_would_wait(struct api_server *srv, const struct api_call *call)
{
    const struct api_op *op;
    struct table_ref tr = { 0 };
    struct api_admit adm;
    struct capacity cap;
    struct api_ctx ctx;
    struct ddb_err err;
    json_t *req;
    void *st;
    bool wait = false;

    if (!api_checkpointing(srv) || call->len == 0 ||
        (op = api_lookup_target(call->target)) == NULL || op->item == NULL)
        return false;
    if ((req = parse_body(call)) == NULL || !json_is_object(req) ||
        !call->signed_v4 ||
        (call->auth != NULL && call->auth->type != DDB_OK)) {
        json_decref(req);
        return false;                   /* dispatch answers the error */
    }
    ddb_err_init(&err);
    capacity_init(&cap);
    ctx_init(&ctx, srv, call, op, &cap);
    st = xcalloc(1, op->item->state_size);
    /* run_item_op()'s steps up to the admission, which is not taken */
    if (api_check(op, &ctx, req, st, &err) == 0 &&
        table_ref_open(&ctx, req, &tr, &err) == 0 &&
        op->item->resolve(&ctx, st, &tr, &adm, &err) == 0)
        wait = stable_key_checkpointing(tr.t, &adm.key);
    table_ref_close(&tr);
    op->item->fini(st);
    free(st);
    capacity_fini(&cap);
    ddb_err_clear(&err);
    json_decref(req);
    return wait;
}

bool
api_checkpointing(struct api_server *srv)
{
    return storage_checkpointing(srv->st);
}

void
api_on_checkpoint_done(struct api_server *srv, void (*fn)(void *), void *arg)
{
    storage_on_checkpoint_done(srv->st, fn, arg);
}

void
api_dispatch(struct api_server *srv, const struct api_call *call,
             struct api_reply *out)
{
    const struct api_op *op;
    struct capacity cap;
    struct api_ctx ctx;
    struct ddb_err err;
    json_t *req = NULL, *resp = NULL, *cc;
    void *st = NULL;
    int rc;

    memset(out, 0, sizeof(*out));
    memset(&ctx, 0, sizeof(ctx));       /* the exit frees its reply_item */
    ddb_err_init(&err);
    capacity_init(&cap);
    if (call->len > 0)
        req = parse_body(call);
    op = admit_call(call, req, call->len > 0, out);
    if (op == NULL)
        goto out;

    ctx_init(&ctx, srv, call, op, &cap);
    if (op->item != NULL)
        st = xcalloc(1, op->item->state_size);
    rc = api_check(op, &ctx, req, st, &err);
    if (rc == 0)
        rc = op->item != NULL
                 ? run_item_op(&ctx, op->item, req, st, &resp, &err)
                 : op->handler(&ctx, req, &resp, &err);
    if (rc != 0) {
        if (err.type == DDB_OK)
            ddb_err_set(&err, DDB_INTERNAL, "Internal server error");
        api_reply_error(out, &err);
        goto out;
    }
    if (resp == NULL)
        resp = json_object();
    if ((op->flags & (API_CAPACITY | API_CAPACITY_LIST)) &&
        json_object_get(resp, "ConsumedCapacity") == NULL) {
        cc = capacity_report(&cap, json_object_get(req,
                                                   "ReturnConsumedCapacity"),
                             capacity_flags(op));
        if (cc != NULL)
            json_object_set_new(resp, "ConsumedCapacity", cc);
    }
    api_reply_json(out, 200, resp);
    if (ctx.reply_item != NULL && out->status == 200 && out->len >= 2)
        reply_put_item(out, ctx.reply_items, ctx.reply_item,
                       ctx.reply_item_len);
out:
    free(ctx.reply_item);
    if (st != NULL) {
        op->item->fini(st);
        free(st);
    }
    capacity_fini(&cap);
    json_decref(resp);
    json_decref(req);
    ddb_err_clear(&err);
}
