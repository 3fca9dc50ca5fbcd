/* SPDX-License-Identifier: MIT */
/* model_streams.c - the service model of the DynamoDB Streams operations
 * (ListStreams, DescribeStream, GetShardIterator, GetRecords) and of the
 * Time to Live calls (UpdateTimeToLive, DescribeTimeToLive): their request
 * members in service-model order. Data only; validate.c checks requests
 * against it. Limits from the service model and the API reference
 * (ListStreams and DescribeStream: "The upper limit is 100"; GetRecords:
 * "The upper limit is 1000", a ValidationException on 1001: Alternator
 * test_streams.py test_get_records_too_high_limit, run against DynamoDB). */

#include "api/proto/model.h"

static const char *const e_iterator[] = { "TRIM_HORIZON", "LATEST",
                                          "AT_SEQUENCE_NUMBER",
                                          "AFTER_SEQUENCE_NUMBER", NULL };
static const char *const e_shardfilter[] = { "CHILD_SHARDS", NULL };

#define LIMIT(max) { .name = "Limit", .type = T_INT, \
                     .flags = F_MINVAL | F_MAXVAL, .minval = 1, \
                     .maxval = (max) }
/* A stream ARN's syntax is the handler's check ("Invalid StreamArn"): a
 * short one such as "fake-stream" gets that message, not the length
 * constraint (aws-sdk-js v2 integration tests against DynamoDB Streams). */
#define STREAM_ARN(n, fl) { .name = n, .type = T_STR, \
                            .flags = (fl) | F_MAXLEN, .maxlen = 1024 }
#define SHARD_ID(n, fl) { .name = n, .type = T_STR, \
                          .flags = (fl) | F_MINLEN | F_MAXLEN, \
                          .minlen = 28, .maxlen = 65 }

static const struct vfield list_streams[] = {
    { .name = "TableName", .type = T_STR,
      .flags = F_PATTERN | F_MINLEN | F_MAXLEN, .minlen = 3, .maxlen = 255 },
    LIMIT(100),
    STREAM_ARN("ExclusiveStartStreamArn", 0),
    END
};

static const struct vfield shard_filter_fields[] = {
    ENUM("Type", e_shardfilter),
    SHARD_ID("ShardId", 0),
    END
};

static const struct vfield describe_stream[] = {
    STREAM_ARN("StreamArn", F_NOTNULL),
    LIMIT(100),
    SHARD_ID("ExclusiveStartShardId", 0),
    STRUCT("ShardFilter", shard_filter_fields, "ShardFilter"),
    END
};

static const struct vfield get_shard_iterator[] = {
    STREAM_ARN("StreamArn", F_NOTNULL),
    SHARD_ID("ShardId", F_NOTNULL),
    { .name = "ShardIteratorType", .type = T_STR, .flags = F_NOTNULL,
      .enums = e_iterator },
    { .name = "SequenceNumber", .type = T_STR, .flags = F_MINLEN | F_MAXLEN,
      .minlen = 21, .maxlen = 40 },
    END
};

static const struct vfield get_records[] = {
    { .name = "ShardIterator", .type = T_STR,
      .flags = F_NOTNULL | F_MINLEN | F_MAXLEN, .minlen = 1, .maxlen = 2048 },
    LIMIT(1000),
    END
};

/* Time to Live */
static const struct vfield ttl_spec_fields[] = {
    { .name = "Enabled", .type = T_BOOL, .flags = F_NOTNULL },
    { .name = "AttributeName", .type = T_STR,
      .flags = F_NOTNULL | F_MINLEN | F_MAXLEN, .minlen = 1, .maxlen = 255 },
    END
};

static const struct vfield update_ttl[] = {
    TABLENAME,
    { .name = "TimeToLiveSpecification", .type = T_STRUCT,
      .flags = F_NOTNULL, .sub = ttl_spec_fields,
      .cls = "TimeToLiveSpecification" },
    END
};

static const struct vfield describe_ttl[] = { TABLENAME, END };

const struct api_schema schema_list_streams = { .fields = list_streams };
const struct api_schema schema_describe_stream = {
    .fields = describe_stream };
const struct api_schema schema_get_shard_iterator = {
    .fields = get_shard_iterator };
const struct api_schema schema_get_records = { .fields = get_records };
const struct api_schema schema_update_time_to_live = {
    .fields = update_ttl };
const struct api_schema schema_describe_time_to_live = {
    .fields = describe_ttl };
