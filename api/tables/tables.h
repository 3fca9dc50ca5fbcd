/* SPDX-License-Identifier: MIT */
/* tables.h - the control plane's handlers (CreateTable ... DeleteTable,
 * Contributor Insights) for api.c's operation table, and what the data
 * operations use to resolve a request's TableName to an open table and
 * its (settled) description. */
#ifndef SHARDLOCAL_TABLES_H
#define SHARDLOCAL_TABLES_H

#include <stdbool.h>
#include <stdint.h>
#include <jansson.h>
#include <stdbool.h>

#include "api/proto/context.h"
#include "api/proto/av.h"

/* Handlers: the control plane, Time to Live and Contributor Insights. */
api_handler api_create_table, api_describe_table, api_list_tables,
    api_update_table, api_delete_table;
api_handler api_update_time_to_live, api_describe_time_to_live;
api_handler api_describe_contributor_insights,
    api_update_contributor_insights, api_list_contributor_insights;

/* At start-up (rehash.c): re-place by DynamoDB's key hash every table and
 * index of st whose rows an older version placed by its own hash, each by
 * the type of its partition key; verbose logs one line per table moved.
 * 0, or -1 with err set (the table stays as it was: start again). */
int tables_rehash_all(struct storage *st, bool verbose, struct ddb_err *err);

/* The ARN of a table (its stored name) in the request's region and its
 * owner's account. */
void api_table_arn(const struct api_ctx *ctx, const char *table, char *out,
                   size_t outsz);
/* Resolve TableName (a name or a table ARN) to an open table. On failure
 * -1 with ResourceNotFoundException "Requested resource not found" (or the
 * validation error for a bad name). The caller releases *t. */
int api_open_table(struct api_ctx *ctx, const json_t *req,
                   struct stable **t, struct ddb_err *err);

/*
 * api_open_table() plus the table's description: *desc (may be NULL if not
 * wanted) is a new reference the caller frees, with the status transitions
 * that are due applied. It may hold private members whose names start with
 * "_sl": never send it to a client as is. Same errors as api_open_table().
 */
int api_open_table_desc(struct api_ctx *ctx, const json_t *req,
                        struct stable **t, json_t **desc,
                        struct ddb_err *err);
/* The same, but *desc is a read-only reference to the store's description
 * (no copy when no status transition is due): never modify it. */
int api_open_table_ref(struct api_ctx *ctx, const json_t *req,
                       struct stable **t, json_t **desc,
                       struct ddb_err *err);
/* Serialise a read-modify-write of a description (stable_desc, change,
 * stable_set_desc) with DDL: re-read the description after locking. Not
 * recursive; do not open tables (api_open_table*) while holding it. */
void api_ddl_lock(void);
void api_ddl_unlock(void);

/* ------------------------------------------------------------------------
 * The table of a request.
 * ---------------------------------------------------------------------- */

struct table_ref {
    struct stable *t;               /* owned handle (released by close) */
    struct key_schema ks;           /* the table's primary key */
    const char *name;               /* stable_name(t), valid while open */
};

/* api_open_table() + the key schema. On failure -1 with err set and
 * nothing to close (table_ref_close is still safe). */
int table_ref_open(struct api_ctx *ctx, const json_t *req,
                   struct table_ref *ot, struct ddb_err *err);
void table_ref_close(struct table_ref *ot);


/* ------------------------------------------------------------------------
 * DynamoDB Streams and Time to Live as a table keeps them (streams_meta.c,
 * ttl.c), for the Streams API and the sweep (api/streams/).
 * ---------------------------------------------------------------------- */

#define TABLES_LABEL_MAX 32             /* "2026-10-08T23:07:31.275" */
#define TABLES_STREAM_NAME_MAX 1100     /* a table name, with room */
/* Records, and disabled streams, are kept 24 hours (DynamoDB Streams:
 * "All data in DynamoDB Streams is subject to a 24 hour lifetime"). */
#define TABLES_STREAM_RETENTION_MS (24ull * 3600u * 1000u)

/* A stream's label (its creation time, ms) in DynamoDB's form. */
void tables_stream_label(uint64_t ms, char out[TABLES_LABEL_MAX]);

/* One stream, opened for the Streams API. */
struct tables_stream {
    char table[TABLES_STREAM_NAME_MAX]; /* the table it belongs to */
    char label[TABLES_LABEL_MAX];
    char arn[TABLES_STREAM_NAME_MAX + 512];
    char view[24];                  /* StreamViewType */
    uint64_t start, end;            /* its log markers; end 0: enabled */
    uint64_t ms, end_ms;            /* created, disabled (0: not) */
    bool deleted;                   /* its table was deleted */
    json_t *key_schema;             /* owned: the table's KeySchema */
    struct stable *t;               /* owned: the storage holding its log */
};
/* Open the stream arn names: ValidationException "Invalid StreamArn" for
 * a malformed ARN, ResourceNotFoundException "Requested resource not
 * found: Stream: <arn> not found" for an unknown one. Close it after,
 * whatever this returned. */
int tables_stream_open(struct api_ctx *ctx, const char *arn,
                       struct tables_stream *s, struct ddb_err *err);
void tables_stream_close(struct tables_stream *s);
/* Every stream (of table only, when not NULL), deleted tables' included,
 * as {"StreamArn", "TableName", "StreamLabel"} ordered by table name, then
 * label: a new reference. */
json_t *tables_stream_list(struct api_ctx *ctx, const char *table);
/* Where stream arn sorts against a row of that list: -1, 0, 1; -2 when arn
 * is not a stream ARN. */
int tables_stream_cmp(const struct api_ctx *ctx, const char *arn,
                      const json_t *row);
/* Drop storage table name's streams whose 24 hours are over at now (and
 * the table, if it is a deleted one kept for them). */
int tables_streams_expire(struct api_ctx *ctx, const char *name,
                          uint64_t now, struct ddb_err *err);
/* The TTL attribute of the table described by desc into out (outsz
 * bytes): true when Time to Live is enabled. */
bool tables_ttl_attr(const json_t *desc, char *out, size_t outsz);

#endif
