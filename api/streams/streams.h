/* SPDX-License-Identifier: MIT */
/* streams.h - DynamoDB Streams (docs/streams.md): the API's handlers for
 * api.c's second operation table, shards and sequence numbers as views of
 * the change log (shards.c), the read limits and meters (meter.c) that the
 * admin API and /metrics show, and the background sweep (sweep.c: TTL
 * expiry, the 24-hour trim). */
#ifndef SHARDLOCAL_STREAMS_H
#define SHARDLOCAL_STREAMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#include "api/proto/context.h"
#include "api/tables/tables.h"
#include "storage/util.h"

/* Handlers: ListStreams, DescribeStream (describe.c), GetShardIterator,
 * GetRecords (records.c). */
api_handler api_list_streams, api_describe_stream, api_get_shard_iterator,
    api_get_records;

/* ------------------------------------------------------------------------
 * Shards and sequence numbers (shards.c)
 * ---------------------------------------------------------------------- */

/* A sequence number as sent: "1" then the counter on 20 digits (21
 * digits, so text and numeric order agree; the API allows 21 to 40). */
#define STREAMS_SEQ_LEN 21
#define STREAMS_SHARD_ID_LEN 37         /* shardId-<20 digits>-<8 hex> */

void streams_seq_format(uint64_t seq, char out[STREAMS_SEQ_LEN + 1]);
/* The counter of a sequence number text; false when it is not one of
 * ours. */
bool streams_seq_parse(const char *text, uint64_t *seq);

/* One shard of a stream: a partition's lifetime within the stream's. */
struct streams_shard {
    char id[STREAMS_SHARD_ID_LEN + 1];
    char parent[STREAMS_SHARD_ID_LEN + 1]; /* "" when none is listed */
    uint64_t start;                 /* where its log is read (ring) */
    uint64_t first;                 /* StartingSequenceNumber */
    uint64_t last;                  /* EndingSequenceNumber; 0: open */
};
/* The shards of stream s, ordered by id (parents first). *out: caller
 * frees. */
int streams_shards(const struct tables_stream *s,
                   struct streams_shard **out, size_t *n,
                   struct ddb_err *err);
/* The shard called id in shards[0..n), or NULL. */
const struct streams_shard *streams_shard_find(
    const struct streams_shard *shards, size_t n, const char *id);

/* ------------------------------------------------------------------------
 * Read limits and meters (meter.c; docs/streams.md lists the limits and
 * their sources)
 * ---------------------------------------------------------------------- */

struct streams_meter;
struct streams_meter *streams_meter_new(void);
void streams_meter_free(struct streams_meter *m);

/* What a stream's readers did, cumulative. */
struct streams_counts {
    uint64_t describe;              /* DescribeStream calls */
    uint64_t iterators;             /* GetShardIterator calls */
    uint64_t get_records;           /* GetRecords calls (read request
                                       units) */
    uint64_t records;               /* records returned */
    uint64_t bytes;                 /* SizeBytes returned */
    uint64_t throttled;             /* calls refused by a limit */
};

/* DescribeStream: admit one more call on stream (table, label) at now,
 * or refuse it (ThrottlingException) past the configured rate. */
int streams_meter_describe(struct api_ctx *ctx, const struct tables_stream *s,
                           struct ddb_err *err);
/* GetRecords on a shard: a reader enters (refused past the configured
 * number of concurrent readers), then leaves with what it returned. */
int streams_meter_enter(struct api_ctx *ctx, const struct tables_stream *s,
                        const char *shard, struct ddb_err *err);
void streams_meter_leave(struct api_ctx *ctx, const struct tables_stream *s,
                         const char *shard, uint64_t records,
                         uint64_t bytes);
/* A GetShardIterator call. */
void streams_meter_iterator(struct api_ctx *ctx,
                            const struct tables_stream *s);
/* The counts of table's streams: a JSON object {label: counts} (admin
 * API), or a visit of every stream for /metrics. */
json_t *streams_meter_json(struct api_server *srv, const char *table);
typedef void streams_meter_fn(void *arg, const char *table,
                              const char *label,
                              const struct streams_counts *c);
void streams_meter_each(struct api_server *srv, streams_meter_fn *fn,
                        void *arg);

/* ------------------------------------------------------------------------
 * The sweep (sweep.c): TTL expiry, the trim, expired streams
 * ---------------------------------------------------------------------- */

/* One pass at now over every table; the number of items TTL deleted. */
uint64_t streams_sweep(struct api_server *srv, uint64_t now);
/* The background thread: a pass every --ttl-sweep-seconds (wall time).
 * With --virtual-clock, POST /shardlocal/clock also runs a pass. */
void streams_sweeper_start(struct api_server *srv);
void streams_sweeper_stop(struct api_server *srv);

#endif
