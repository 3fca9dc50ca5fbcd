/* SPDX-License-Identifier: MIT */
/* external.c - what needs other regions or other AWS services: global
 * tables (the legacy 2017.11.29 calls), Kinesis streaming destinations and
 * replica auto scaling. A local server has neither, so its tables are what
 * DynamoDB calls regional tables without a destination: the Describe and
 * List calls answer what DynamoDB answers for such a table, and the calls
 * that would set one up are refused with a ValidationException saying so. */
#include <string.h>

#include "api/proto/context.h"
#include "api/proto/validate.h"
#include "api/tables/tables.h"
#include "api/tables/tables_int.h"
#include "storage/util.h"

/* The legacy global tables are gone from DynamoDB too (ack-api-quirks
 * DDB-GLOBALTABLE-002, 2026-10: refused from every endpoint). */
#define LEGACY_GT_MSG "One or more parameter values were invalid: DynamoDB " \
    "global tables version 2017.11.29 is not supported. We recommend using " \
    "DynamoDB global tables version 2019.11.21, instead of version " \
    "2017.11.29 (Legacy)."

/* ------------------------------------------------------------------------
 * Global tables, version 2017.11.29
 * ---------------------------------------------------------------------- */

/* GlobalTableName's checks, with DynamoDB's own wording for its length
 * (DDB-TABLE-457: an empty name); the pattern as the framework words it. */
static int
check_gt_name(const json_t *req, const char **name, struct ddb_err *err)
{
    const json_t *v = json_object_get(req, "GlobalTableName");
    const char *s = json_string_value(v);
    long long n = validate_utf16_len(s, json_string_length(v));

    if (n < 3 || n > 255)
        return ddb_err_set(err, DDB_VALIDATION, "TableName must be at least "
                           "3 characters long and at most 255 characters "
                           "long");
    if (!validate_is_name(s, json_string_length(v)))
        return ddb_err_set(err, DDB_VALIDATION, "1 validation error "
                           "detected: Value '%s' at 'globalTableName' failed "
                           "to satisfy constraint: Member must satisfy "
                           "regular expression pattern: [a-zA-Z0-9_.-]+", s);
    *name = s;
    return 0;
}

/* No table here is a legacy global table (DDB-GLOBALTABLE-001: a regional
 * table and a missing name alike). */
static int
gt_not_found(const char *name, struct ddb_err *err)
{
    return ddb_err_set(err, DDB_GLOBAL_TABLE_NOT_FOUND, "Global table with "
                       "name: '%s' does not exist.", name);
}

/* The 2017.11.29 calls on a checked name: a creation is the version
 * error, anything else finds no global table. */
static int
gt_answer(const json_t *req, bool create, struct ddb_err *err)
{
    const char *name;

    if (check_gt_name(req, &name, err) != 0)
        return -1;
    if (create)
        return ddb_err_set(err, DDB_VALIDATION, LEGACY_GT_MSG);
    return gt_not_found(name, err);
}

int
api_create_global_table(struct api_ctx *ctx, const json_t *req,
                        json_t **resp, struct ddb_err *err)
{
    (void)ctx;
    (void)resp;
    return gt_answer(req, true, err);
}

/* A Create among the updates is the version error; otherwise (Delete) the
 * global table is not found; an update that is neither is refused bare
 * (DDB-GLOBALTABLE-004, DDB-TABLE-457). */
int
api_update_global_table(struct api_ctx *ctx, const json_t *req,
                        json_t **resp, struct ddb_err *err)
{
    const json_t *updates = json_object_get(req, "ReplicaUpdates"), *u;
    const char *name;
    size_t i;

    (void)ctx;
    (void)resp;
    if (check_gt_name(req, &name, err) != 0)
        return -1;
    if (json_array_size(updates) == 0)
        return ddb_err_set(err, DDB_VALIDATION, "One or more parameter "
                           "values were invalid");
    json_array_foreach(updates, i, u) {
        if (!json_has(u, "Create") && !json_has(u, "Delete"))
            return ddb_err_set(err, DDB_VALIDATION, "One or more parameter "
                               "values were invalid");
        if (json_has(u, "Create"))
            return ddb_err_set(err, DDB_VALIDATION, LEGACY_GT_MSG);
    }
    return gt_not_found(name, err);
}

int
api_describe_global_table(struct api_ctx *ctx, const json_t *req,
                          json_t **resp, struct ddb_err *err)
{
    (void)ctx;
    (void)resp;
    return gt_answer(req, false, err);
}

int
api_describe_global_table_settings(struct api_ctx *ctx, const json_t *req,
                                   json_t **resp, struct ddb_err *err)
{
    return api_describe_global_table(ctx, req, resp, err);
}

int
api_update_global_table_settings(struct api_ctx *ctx, const json_t *req,
                                 json_t **resp, struct ddb_err *err)
{
    return api_describe_global_table(ctx, req, resp, err);
}

/* An empty list: there is no legacy global table to list. DynamoDB
 * answers a RegionName that is no region with an HTTP 500
 * (DDB-GLOBALTABLE-004); so does this. */
int
api_list_global_tables(struct api_ctx *ctx, const json_t *req,
                       json_t **resp, struct ddb_err *err)
{
    const char *region = tables_str(req, "RegionName");

    (void)ctx;
    if (region != NULL && !tables_region_known(region))
        return ddb_err_set(err, DDB_INTERNAL, "Internal server error");
    *resp = json_pack("{s:[]}", "GlobalTables");
    return 0;
}

/* ------------------------------------------------------------------------
 * Replica auto scaling: only global tables (version 2019.11.21) have it
 * ---------------------------------------------------------------------- */

/* The table a TableName (name or ARN) names, for the message. */
static void
named(const struct api_ctx *ctx, const json_t *req, char *out, size_t outsz)
{
    const char *param = tables_str(req, "TableName");

    if (!tables_name_from_param(ctx, param != NULL ? param : "", out,
                                outsz))
        snprintf(out, outsz, "%s", param != NULL ? param : "");
}

/* DynamoDB answers a regional table and a missing one alike here
 * (DDB-TABLE-070, DDB-TABLE-231). */
static int
no_global_table(const struct api_ctx *ctx, const json_t *req,
                struct ddb_err *err)
{
    char name[TABLES_NAME_MAX];

    named(ctx, req, name, sizeof(name));
    return ddb_err_set(err, DDB_RESOURCE_NOT_FOUND, "Global table with "
                       "name: '%s' does not exist.", name);
}

int
api_describe_table_replica_auto_scaling(struct api_ctx *ctx,
                                        const json_t *req, json_t **resp,
                                        struct ddb_err *err)
{
    (void)resp;
    return no_global_table(ctx, req, err);
}

int
api_update_table_replica_auto_scaling(struct api_ctx *ctx, const json_t *req,
                                      json_t **resp, struct ddb_err *err)
{
    (void)resp;
    return no_global_table(ctx, req, err);
}

/* ------------------------------------------------------------------------
 * Kinesis streaming destinations
 * ---------------------------------------------------------------------- */

/* The table of req, open and past CREATING: the destination calls answer
 * a table still being created as a missing one (DDB-TABLE-234). *name
 * receives its name. */
static int
kinesis_table(struct api_ctx *ctx, const json_t *req, char *name,
              size_t namesz, struct ddb_err *err)
{
    const char *param = tables_req_name(req, err);
    struct stable *t = NULL;
    json_t *desc = NULL;
    bool creating;

    if (param == NULL ||
        tables_open_named(ctx, param, false, name, namesz, &t, &desc,
                          err) != 0)
        return -1;
    creating = json_str_is(json_object_get(desc, "TableStatus"), "CREATING");
    json_decref(desc);
    stable_release(t);
    if (creating)
        return ddb_err_set(err, DDB_RESOURCE_NOT_FOUND, "Requested resource "
                           "not found: Table: %s not found", name);
    return 0;
}

/* A table without a destination: an empty list (DDB-TABLE-299). */
int
api_describe_kinesis_streaming_destination(struct api_ctx *ctx,
                                           const json_t *req, json_t **resp,
                                           struct ddb_err *err)
{
    char name[TABLES_NAME_MAX];

    if (kinesis_table(ctx, req, name, sizeof(name), err) != 0)
        return -1;
    *resp = json_pack("{s:s, s:[]}", "TableName", name,
                      "KinesisDataStreamDestinations");
    return 0;
}

/* The table of req past CREATING, then a ValidationException with msg. */
static int
kinesis_refused(struct api_ctx *ctx, const json_t *req, const char *msg,
                struct ddb_err *err)
{
    char name[TABLES_NAME_MAX];

    if (kinesis_table(ctx, req, name, sizeof(name), err) != 0)
        return -1;
    return ddb_err_set(err, DDB_VALIDATION, "%s", msg);
}

/* Refused: there is no Kinesis here to stream to. The message says "is
 * not supported", as DynamoDB's refusals of unsupported features do, so
 * that clients and test suites can tell it from a bad request. */
int
api_enable_kinesis_streaming_destination(struct api_ctx *ctx,
                                         const json_t *req, json_t **resp,
                                         struct ddb_err *err)
{
    (void)resp;
    return kinesis_refused(ctx, req, "One or more parameter values were "
                           "invalid: Kinesis Data Streams for DynamoDB is "
                           "not supported locally: shardlocal has no "
                           "Kinesis data stream to deliver the table's "
                           "changes to (DynamoDB Streams is the local "
                           "change feed)", err);
}

/* With no destination, nothing is ACTIVE to disable (DDB-TABLE-302: a
 * never-attached stream ARN is refused so, never ResourceNotFound). */
int
api_disable_kinesis_streaming_destination(struct api_ctx *ctx,
                                          const json_t *req, json_t **resp,
                                          struct ddb_err *err)
{
    (void)resp;
    return kinesis_refused(ctx, req, "Table is not in a valid state to "
                           "enable Kinesis Streaming Destination: "
                           "KinesisStreamingDestination must be ACTIVE to "
                           "perform DISABLE operation.", err);
}

/* The configuration's check first, then nothing ACTIVE to update
 * (the ValidationException catalogue, DDB-TABLE-442). */
int
api_update_kinesis_streaming_destination(struct api_ctx *ctx,
                                         const json_t *req, json_t **resp,
                                         struct ddb_err *err)
{
    const json_t *conf = json_object_get(req,
                                         "UpdateKinesisStreamingConfiguration");
    char name[TABLES_NAME_MAX];

    (void)resp;
    if (!json_has(conf, "ApproximateCreationDateTimePrecision"))
        return ddb_err_set(err, DDB_VALIDATION, "Streaming destination "
                           "cannot be updated with given parameters: "
                           "UpdateKinesisStreamingConfiguration cannot be "
                           "null or contain only null values");
    if (kinesis_table(ctx, req, name, sizeof(name), err) != 0)
        return -1;
    return ddb_err_set(err, DDB_VALIDATION, "Table is not in a valid state "
                       "to enable Kinesis Streaming Destination: Kinesis "
                       "streaming is not in ACTIVE state. Updates are only "
                       "allowed in ACTIVE state. TableName: %s, kdsArn: %s",
                       name, tables_str(req, "StreamArn"));
}
