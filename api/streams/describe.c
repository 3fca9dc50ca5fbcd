/* SPDX-License-Identifier: MIT */
/* describe.c - ListStreams and DescribeStream: the streams of every table
 * (deleted tables' for their 24 hours), paged by stream ARN, and one
 * stream's status and shards, paged by shard id, as DynamoDB Streams
 * answers them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/streams/streams.h"
#include "api/tables/tables.h"

#define LIST_LIMIT_DEF 100              /* ListStreams, DescribeStream */

static size_t
limit_of(const json_t *req)
{
    uint64_t v;

    return json_get_uint(req, "Limit", &v) == 1 && v > 0 ? (size_t)v
                                                          : LIST_LIMIT_DEF;
}

/* ------------------------------------------------------------------------
 * ListStreams
 * ---------------------------------------------------------------------- */

/* Does the caller's table name exist, live or kept for its streams? */
static bool
table_known(struct api_ctx *ctx, const char *name, const json_t *all)
{
    char stored[1200];
    struct stable *t = api_table_stored(ctx, NULL, name, stored,
                                        sizeof(stored))
                           ? storage_table_get(ctx->srv->st, stored)
                           : NULL;

    if (t != NULL) {
        stable_release(t);
        return true;
    }
    return json_array_size(all) > 0;
}

int
api_list_streams(struct api_ctx *ctx, const json_t *req, json_t **resp,
                 struct ddb_err *err)
{
    const char *table = json_string_value(json_object_get(req, "TableName"));
    const char *start = json_string_value(
        json_object_get(req, "ExclusiveStartStreamArn"));
    size_t limit = limit_of(req), i = 0, n;
    json_t *all, *out, *probe;
    int bad;

    if (start != NULL) {
        probe = json_pack("{s:s, s:s}", "TableName", "", "StreamLabel", "");
        bad = tables_stream_cmp(ctx, start, probe) == -2;
        json_decref(probe);
        if (bad)
            return ddb_err_set(err, DDB_VALIDATION, "Invalid StreamArn");
    }
    all = tables_stream_list(ctx, table);
    if (table != NULL && !table_known(ctx, table, all)) {
        json_decref(all);
        return ddb_err_set(err, DDB_RESOURCE_NOT_FOUND,
                           "Requested resource not found: Table: %s not "
                           "found", table);
    }
    n = json_array_size(all);
    /* resume after the given ARN's place, even if that stream is gone */
    while (start != NULL && i < n &&
           tables_stream_cmp(ctx, start, json_array_get(all, i)) >= 0)
        i++;
    out = json_array();
    for (; i < n && json_array_size(out) < limit; i++)
        json_array_append(out, json_array_get(all, i));
    *resp = json_pack("{s:o}", "Streams", out);
    if (i < n && json_array_size(out) > 0)
        json_object_set(*resp, "LastEvaluatedStreamArn",
                        json_object_get(json_array_get(out,
                                                       json_array_size(out)
                                                           - 1),
                                        "StreamArn"));
    json_decref(all);
    return 0;
}

/* ------------------------------------------------------------------------
 * DescribeStream
 * ---------------------------------------------------------------------- */

/* ENABLING/DISABLING for the status delay after the switch, as the table
 * is UPDATING meanwhile. */
static const char *
stream_status(const struct api_ctx *ctx, const struct tables_stream *s)
{
    uint64_t delay = ctx->srv != NULL && ctx->srv->conf != NULL
                         ? ctx->srv->conf->status_delay_ms
                         : 0;

    if (s->end == 0)
        return ctx->now_ms < s->ms + delay ? "ENABLING" : "ENABLED";
    return ctx->now_ms < s->end_ms + delay ? "DISABLING" : "DISABLED";
}

static json_t *
shard_json(const struct streams_shard *sh)
{
    char seq[STREAMS_SEQ_LEN + 1];
    json_t *j = json_object(), *range = json_object();

    if (sh->parent[0] != '\0')
        json_object_set_new(j, "ParentShardId", json_string(sh->parent));
    streams_seq_format(sh->first, seq);
    json_object_set_new(range, "StartingSequenceNumber", json_string(seq));
    if (sh->last != 0) {
        streams_seq_format(sh->last, seq);
        json_object_set_new(range, "EndingSequenceNumber", json_string(seq));
    }
    json_object_set_new(j, "SequenceNumberRange", range);
    json_object_set_new(j, "ShardId", json_string(sh->id));
    return j;
}

/* ShardFilter {"Type": "CHILD_SHARDS", "ShardId": id}: the shards whose
 * parent is id. */
static int
child_filter(const json_t *req, const char **parent, struct ddb_err *err)
{
    const json_t *f = json_object_get(req, "ShardFilter");

    *parent = NULL;
    if (!json_is_object(f))
        return 0;
    *parent = json_string_value(json_object_get(f, "ShardId"));
    if (*parent == NULL || !json_str_is(json_object_get(f, "Type"),
                                        "CHILD_SHARDS"))
        return ddb_err_set(err, DDB_VALIDATION, "ShardFilter requires both "
                           "Type CHILD_SHARDS and ShardId");
    return 0;
}

int
api_describe_stream(struct api_ctx *ctx, const json_t *req, json_t **resp,
                    struct ddb_err *err)
{
    const char *arn = json_string_value(json_object_get(req, "StreamArn"));
    const char *after = json_string_value(
        json_object_get(req, "ExclusiveStartShardId"));
    const char *parent;
    struct streams_shard *shards = NULL;
    struct tables_stream s;
    size_t limit = limit_of(req), n = 0, i, listed = 0;
    json_t *list, *d;
    int rc = -1;

    memset(&s, 0, sizeof(s));
    if (child_filter(req, &parent, err) != 0 ||
        tables_stream_open(ctx, arn, &s, err) != 0 ||
        streams_meter_describe(ctx, &s, err) != 0 ||
        streams_shards(&s, &shards, &n, err) != 0)
        goto out;
    list = json_array();
    /* ExclusiveStartShardId need not exist: listing goes on after its
     * place in id order (Alternator test_streams.py
     * test_describe_stream_with_nonexistent_last_shard, against DynamoDB) */
    for (i = 0; i < n; i++) {
        if ((after != NULL && strcmp(shards[i].id, after) <= 0) ||
            (parent != NULL && strcmp(shards[i].parent, parent) != 0))
            continue;
        if (listed == limit)
            break;
        json_array_append_new(list, shard_json(&shards[i]));
        listed++;
    }
    d = json_pack("{s:s, s:s, s:s, s:s, s:o, s:s, s:O, s:o}", "StreamArn",
                  s.arn, "StreamLabel", s.label, "StreamStatus",
                  stream_status(ctx, &s), "StreamViewType", s.view,
                  "CreationRequestDateTime",
                  json_real((double)s.ms / 1000.0), "TableName", s.table,
                  "KeySchema", s.key_schema, "Shards", list);
    if (i < n && listed > 0)
        json_object_set(d, "LastEvaluatedShardId",
                        json_object_get(json_array_get(list, listed - 1),
                                        "ShardId"));
    *resp = json_pack("{s:o}", "StreamDescription", d);
    rc = 0;
out:
    free(shards);
    tables_stream_close(&s);
    return rc;
}
