/* SPDX-License-Identifier: MIT */
/* validate.h - request shape checks every operation gets before its
 * handler runs: JSON types per the service model (SerializationException),
 * then constraints (required members, lengths, ranges, enums, patterns)
 * aggregated into DynamoDB's "N validation error(s) detected: ...". */
#ifndef SHARDLOCAL_VALIDATE_H
#define SHARDLOCAL_VALIDATE_H

#include <jansson.h>
#include "storage/storage.h"

/* One operation's request schema (the service model, api/proto/model*.c);
 * the operation table points at these. */
struct api_schema;

extern const struct api_schema schema_batch_execute_statement;
extern const struct api_schema schema_batch_get_item;
extern const struct api_schema schema_batch_write_item;
extern const struct api_schema schema_create_table;
extern const struct api_schema schema_delete_item;
extern const struct api_schema schema_delete_table;
extern const struct api_schema schema_describe_contributor_insights;
extern const struct api_schema schema_describe_table;
extern const struct api_schema schema_execute_statement;
extern const struct api_schema schema_execute_transaction;
extern const struct api_schema schema_get_item;
extern const struct api_schema schema_list_contributor_insights;
extern const struct api_schema schema_list_tables;
extern const struct api_schema schema_put_item;
extern const struct api_schema schema_query;
extern const struct api_schema schema_scan;
extern const struct api_schema schema_search_vectors;
extern const struct api_schema schema_transact_get_items;
extern const struct api_schema schema_transact_write_items;
extern const struct api_schema schema_update_contributor_insights;
extern const struct api_schema schema_update_item;
extern const struct api_schema schema_update_table;
extern const struct api_schema schema_update_time_to_live;
extern const struct api_schema schema_describe_time_to_live;
/* DynamoDB Streams (model_streams.c) */
extern const struct api_schema schema_list_streams;
extern const struct api_schema schema_describe_stream;
extern const struct api_schema schema_get_shard_iterator;
extern const struct api_schema schema_get_records;

/*
 * Check req (borrowed) against schema s. Returns 0, or -1 with a
 * SerializationException (wrong JSON type, first found) or a
 * ValidationException (up to 10 constraint failures, then attribute name
 * sizes and the current value layer). A NULL s passes.
 */
int validate_request(const struct api_schema *s, const json_t *req,
                     struct ddb_err *err);

#endif
