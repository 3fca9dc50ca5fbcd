/* SPDX-License-Identifier: MIT */
/* validate.h - request shape checks every operation gets before its
 * handler runs: JSON types per the service model (SerializationException),
 * then constraints (required members, lengths, ranges, enums, patterns)
 * aggregated into DynamoDB's "N validation error(s) detected: ...". */
#ifndef SHARDLOCAL_VALIDATE_H
#define SHARDLOCAL_VALIDATE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

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
/* model_resources.c, and RestoreTableFromBackup in model_tables.c */
extern const struct api_schema schema_tag_resource;
extern const struct api_schema schema_untag_resource;
extern const struct api_schema schema_list_tags_of_resource;
extern const struct api_schema schema_put_resource_policy;
extern const struct api_schema schema_get_resource_policy;
extern const struct api_schema schema_delete_resource_policy;
extern const struct api_schema schema_create_backup;
extern const struct api_schema schema_describe_backup;
extern const struct api_schema schema_delete_backup;
extern const struct api_schema schema_list_backups;
extern const struct api_schema schema_restore_table_from_backup;
extern const struct api_schema schema_describe_continuous_backups;
extern const struct api_schema schema_update_continuous_backups;
extern const struct api_schema schema_restore_table_to_point_in_time;
extern const struct api_schema schema_describe_limits;
extern const struct api_schema schema_describe_endpoints;
extern const struct api_schema schema_create_global_table;
extern const struct api_schema schema_update_global_table;
extern const struct api_schema schema_describe_global_table;
extern const struct api_schema schema_describe_global_table_settings;
extern const struct api_schema schema_update_global_table_settings;
extern const struct api_schema schema_list_global_tables;
extern const struct api_schema schema_describe_kinesis_streaming_destination;
extern const struct api_schema schema_enable_kinesis_streaming_destination;
extern const struct api_schema schema_disable_kinesis_streaming_destination;
extern const struct api_schema schema_update_kinesis_streaming_destination;
extern const struct api_schema schema_describe_table_replica_auto_scaling;
extern const struct api_schema schema_update_table_replica_auto_scaling;
/* model_transfer.c */
extern const struct api_schema schema_export_table_to_point_in_time;
extern const struct api_schema schema_describe_export;
extern const struct api_schema schema_list_exports;
extern const struct api_schema schema_import_table;
extern const struct api_schema schema_describe_import;
extern const struct api_schema schema_list_imports;

/* Characters (UTF-16 units) in n bytes of UTF-8: how DynamoDB counts a
 * string's length. */
long long validate_utf16_len(const char *s, size_t n);
/* Whether the n bytes at s are a name: [a-zA-Z0-9_.-]+, at least one. */
bool validate_is_name(const char *s, size_t n);

/*
 * Check req (borrowed) against schema s. Returns 0, or -1 with a
 * SerializationException (wrong JSON type, first found) or a
 * ValidationException (up to 10 constraint failures, then attribute name
 * sizes and the current value layer). A NULL s passes.
 */
int validate_request(const struct api_schema *s, const json_t *req,
                     struct ddb_err *err);
/* The same for a request parsed from body_len bytes (0: not known): a
 * body shorter than the longest attribute name allowed holds no name
 * too long, so its strings are not walked for one. */
int validate_request_sized(const struct api_schema *s, const json_t *req,
                           size_t body_len, struct ddb_err *err);

#endif
