/* SPDX-License-Identifier: MIT */
/* records.c - GetShardIterator and GetRecords: iterators (a position in a
 * shard, valid 15 minutes), and the change log's records in DynamoDB
 * Streams' shape for the stream's view type, at most 1,000 or 1 MB per
 * call, with no NextShardIterator once a closed shard is drained. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "storage/util.h"
#include "api/proto/av.h"
#include "api/streams/streams.h"

#define ITER_TTL_MS      (15u * 60u * 1000u)  /* "expires 15 minutes after
                                                 it is returned" */
#define RECORDS_MAX      1000u                /* GetRecords' Limit */
#define RECORDS_BYTES    (1024u * 1024u)      /* "a maximum of 1 MB" */
#define ITER_VERSION     1
#define ITER_RAW         33                   /* payload bytes */
#define ITER_B64         44                   /* its base64 */

/* Messages: DynamoDB's where documented (API reference error sections);
 * the rest are ours, as no recording of them was found. */
#define MSG_EXPIRED  "The provided iterator exceeds the maximum age allowed."
#define MSG_TRIMMED  "The data you are trying to access has been trimmed."
#define MSG_BAD_ITER "Invalid ShardIterator"
#define MSG_NO_SHARD "Requested resource not found: Shard does not exist"

/* ------------------------------------------------------------------------
 * Iterators: "<stream ARN>|1|<base64 payload>", the shape DynamoDB's have
 * (API reference, GetShardIterator example). The payload: version, the
 * shard id's number and hex, the position (the last sequence number
 * read), when it was issued, and a check over all that and the ARN.
 * ---------------------------------------------------------------------- */

struct iter {
    char arn[TABLES_STREAM_NAME_MAX + 512];
    char shard[STREAMS_SHARD_ID_LEN + 1];
    uint64_t after;                 /* records with a greater number next */
    uint64_t issued;                /* ms */
};

static void
put64(uint8_t *p, uint64_t v)
{
    for (int i = 7; i >= 0; i--, v >>= 8)
        p[i] = (uint8_t)v;
}

static uint64_t
get64(const uint8_t *p)
{
    uint64_t v = 0;

    for (int i = 0; i < 8; i++)
        v = v << 8 | p[i];
    return v;
}

/* The check: the first 4 bytes of MD5(payload without it, ARN). */
static void
iter_check(const uint8_t *raw, const char *arn, uint8_t out[4])
{
    size_t alen = strlen(arn);
    uint8_t md[16], *buf = xmalloc(ITER_RAW - 4 + alen);

    memcpy(buf, raw, ITER_RAW - 4);
    memcpy(buf + ITER_RAW - 4, arn, alen);
    md5_bytes(buf, ITER_RAW - 4 + alen, md);
    free(buf);
    memcpy(out, md, 4);
}

/* Shard ids are ours, "shardId-<20 digits>-<8 hex>" (shards.c). */
static bool
shard_split(const char *id, uint64_t *num, uint32_t *hex)
{
    char *end;

    if (strlen(id) != STREAMS_SHARD_ID_LEN || strncmp(id, "shardId-", 8) ||
        id[28] != '-')
        return false;
    *num = strtoull(id + 8, &end, 10);
    if (end != id + 28)
        return false;
    *hex = (uint32_t)strtoul(id + 29, &end, 16);
    return end == id + STREAMS_SHARD_ID_LEN;
}

static json_t *
iter_encode(const struct iter *it)
{
    uint8_t raw[ITER_RAW];
    char b64[ITER_B64 + 1];
    uint64_t num = 0;
    uint32_t hex = 0;
    char *s;
    json_t *j;

    (void)shard_split(it->shard, &num, &hex);
    raw[0] = ITER_VERSION;
    put64(raw + 1, num);
    raw[9] = (uint8_t)(hex >> 24);
    raw[10] = (uint8_t)(hex >> 16);
    raw[11] = (uint8_t)(hex >> 8);
    raw[12] = (uint8_t)hex;
    put64(raw + 13, it->after);
    put64(raw + 21, it->issued);
    iter_check(raw, it->arn, raw + ITER_RAW - 4);
    item_b64_encode(raw, ITER_RAW, b64);
    s = xasprintf("%s|1|%s", it->arn, b64);
    j = json_string(s);
    free(s);
    return j;
}

/* Decode text into it; false when it is not an iterator of ours. */
static bool
iter_decode(const char *text, struct iter *it)
{
    const char *bar = strchr(text, '|');
    uint8_t raw[ITER_RAW], check[4];
    size_t alen;

    if (bar == NULL || strncmp(bar, "|1|", 3) != 0 ||
        strlen(bar + 3) != ITER_B64)
        return false;
    alen = (size_t)(bar - text);
    if (alen >= sizeof(it->arn))
        return false;
    memcpy(it->arn, text, alen);
    it->arn[alen] = '\0';
    if (item_b64_decode(bar + 3, ITER_B64, raw, sizeof(raw)) != ITER_RAW ||
        raw[0] != ITER_VERSION)
        return false;
    iter_check(raw, it->arn, check);
    if (memcmp(check, raw + ITER_RAW - 4, 4) != 0)
        return false;
    snprintf(it->shard, sizeof(it->shard), "shardId-%020llu-%08x",
             (unsigned long long)get64(raw + 1),
             (unsigned)raw[9] << 24 | (unsigned)raw[10] << 16 |
                 (unsigned)raw[11] << 8 | raw[12]);
    it->after = get64(raw + 13);
    it->issued = get64(raw + 21);
    return true;
}

/* ------------------------------------------------------------------------
 * The stream and shard of a call
 * ---------------------------------------------------------------------- */

struct target {
    struct tables_stream s;
    struct streams_shard *shards;   /* owned */
    size_t n;
    const struct streams_shard *sh; /* the shard, in shards */
    uint64_t trimmed;               /* its log's trim mark */
};

static void
target_close(struct target *t)
{
    free(t->shards);
    tables_stream_close(&t->s);
}

/* A stream of the log that holds nothing: its trim mark only. */
static int
no_rec(void *arg, const struct slog_rec *r, struct ddb_err *err)
{
    (void)arg;
    (void)r;
    (void)err;
    return 1;
}

static int
target_open(struct api_ctx *ctx, const char *arn, const char *shard,
            struct target *t, struct ddb_err *err)
{
    memset(t, 0, sizeof(*t));
    if (tables_stream_open(ctx, arn, &t->s, err) != 0 ||
        streams_shards(&t->s, &t->shards, &t->n, err) != 0)
        return -1;
    t->sh = streams_shard_find(t->shards, t->n, shard);
    if (t->sh == NULL)
        return ddb_err_set(err, DDB_RESOURCE_NOT_FOUND, MSG_NO_SHARD);
    return stable_log_read(t->s.t, t->sh->start, 0, 0, no_rec, NULL,
                           &t->trimmed, err);
}

/* Is position after (records above it next) in trimmed data? Records of
 * the shard between it and the trim mark are gone. */
static bool
is_trimmed(const struct target *t, uint64_t after)
{
    return t->trimmed > after && t->trimmed >= t->sh->first;
}

/* ------------------------------------------------------------------------
 * GetShardIterator
 * ---------------------------------------------------------------------- */

/* The position a request asks for, checked against the shard. */
static int
iter_position(const json_t *req, const struct target *t, uint64_t *after,
              struct ddb_err *err)
{
    const char *type = json_string_value(
        json_object_get(req, "ShardIteratorType"));
    const char *seqtext = json_string_value(
        json_object_get(req, "SequenceNumber"));
    bool at = strcmp(type, "AT_SEQUENCE_NUMBER") == 0;
    bool by_seq = at || strcmp(type, "AFTER_SEQUENCE_NUMBER") == 0;
    uint64_t seq, last = t->sh->last != 0 ? t->sh->last : UINT64_MAX;

    /* A sequence number with TRIM_HORIZON or LATEST, or none with the
     * other two, is a ValidationException (Alternator test_streams.py
     * test_get_shard_iterator, against DynamoDB); the words are ours. */
    if (by_seq && seqtext == NULL)
        return ddb_err_set(err, DDB_VALIDATION, "SequenceNumber is required "
                           "when ShardIteratorType is %s", type);
    if (!by_seq && seqtext != NULL)
        return ddb_err_set(err, DDB_VALIDATION, "SequenceNumber must not be "
                           "specified when ShardIteratorType is %s", type);
    if (by_seq) {
        if (!streams_seq_parse(seqtext, &seq) || seq < t->sh->first ||
            seq > last)
            return ddb_err_set(err, DDB_VALIDATION, "Invalid SequenceNumber "
                               "%s for shard %s", seqtext, t->sh->id);
        *after = at ? seq - 1 : seq;
        if (is_trimmed(t, *after))
            return ddb_err_set(err, DDB_TRIMMED_DATA, MSG_TRIMMED);
    } else if (strcmp(type, "TRIM_HORIZON") == 0) {
        /* the oldest record still there */
        *after = t->sh->first - 1;
        if (is_trimmed(t, *after))
            *after = t->trimmed;
    } else {                        /* LATEST */
        *after = stable_log_tip(t->s.t, t->sh->start);
        if (*after > last)
            *after = last;
        if (*after < t->sh->first - 1)
            *after = t->sh->first - 1;
    }
    return 0;
}

int
api_get_shard_iterator(struct api_ctx *ctx, const json_t *req,
                       json_t **resp, struct ddb_err *err)
{
    struct target t;
    struct iter it;
    int rc = -1;

    if (target_open(ctx, json_string_value(json_object_get(req, "StreamArn")),
                    json_string_value(json_object_get(req, "ShardId")), &t,
                    err) != 0 ||
        iter_position(req, &t, &it.after, err) != 0)
        goto out;
    streams_meter_iterator(ctx, &t.s);
    snprintf(it.arn, sizeof(it.arn), "%s", t.s.arn);
    snprintf(it.shard, sizeof(it.shard), "%s", t.sh->id);
    it.issued = ctx->now_ms;
    *resp = json_pack("{s:o}", "ShardIterator", iter_encode(&it));
    rc = 0;
out:
    target_close(&t);
    return rc;
}

/* ------------------------------------------------------------------------
 * GetRecords
 * ---------------------------------------------------------------------- */

struct page {
    const struct tables_stream *s;
    char region[64];
    json_t *records;                /* the Records array */
    size_t limit;
    uint64_t bytes;                 /* SizeBytes so far */
    uint64_t last;                  /* the last number returned */
    bool stopped;                   /* a limit ended the page early */
};

/* The key attributes of image, in KeySchema order. */
static json_t *
keys_of(const json_t *ks, const json_t *image)
{
    json_t *keys = json_object(), *el;
    size_t i;

    json_array_foreach(ks, i, el) {
        const char *name = json_string_value(
            json_object_get(el, "AttributeName"));
        json_t *v = json_object_get(image, name);

        if (name != NULL && v != NULL)
            json_object_set(keys, name, v);
    }
    return keys;
}

/* An eventID: 32 hex digits (the API reference's examples), the same for
 * the same record on every read. */
static json_t *
event_id(const struct tables_stream *s, uint64_t seq)
{
    char buf[TABLES_STREAM_NAME_MAX + 64], hex[33];
    uint8_t md[16];

    snprintf(buf, sizeof(buf), "%s/%s/%llu", s->table, s->label,
             (unsigned long long)seq);
    md5_bytes(buf, strlen(buf), md);
    hex_encode(md, sizeof(md), hex);
    return json_string(hex);
}

/* One record in DynamoDB Streams' shape (the API reference's Record and
 * StreamRecord), images per the view type; SizeBytes counts the keys and
 * the images shown (the reference's KEYS_ONLY example: 41 bytes for its
 * two keys). */
static int
add_record(void *arg, const struct slog_rec *r, struct ddb_err *err)
{
    struct page *pg = arg;
    const char *view = pg->s->view;
    bool new_img = strcmp(view, "NEW_IMAGE") == 0 ||
                   strcmp(view, "NEW_AND_OLD_IMAGES") == 0;
    bool old_img = strcmp(view, "OLD_IMAGE") == 0 ||
                   strcmp(view, "NEW_AND_OLD_IMAGES") == 0;
    const json_t *img = r->new_item != NULL ? r->new_item : r->old;
    char seq[STREAMS_SEQ_LEN + 1];
    json_t *keys = keys_of(pg->s->key_schema, img), *d, *rec;
    size_t size = item_size(keys);

    (void)err;
    if (new_img && r->new_item != NULL)
        size += item_size(r->new_item);
    if (old_img && r->old != NULL)
        size += item_size(r->old);
    if (json_array_size(pg->records) > 0 &&
        pg->bytes + size > RECORDS_BYTES) {
        json_decref(keys);
        pg->stopped = true;
        return 1;
    }
    streams_seq_format(r->seq, seq);
    d = json_pack("{s:I, s:o}", "ApproximateCreationDateTime",
                  (json_int_t)(r->ms / 1000u), "Keys", keys);
    if (new_img && r->new_item != NULL)
        json_object_set_new(d, "NewImage", json_clone(r->new_item));
    if (old_img && r->old != NULL)
        json_object_set_new(d, "OldImage", json_clone(r->old));
    json_object_set_new(d, "SequenceNumber", json_string(seq));
    json_object_set_new(d, "SizeBytes",
                        json_integer((json_int_t)(size ? size : 1)));
    json_object_set_new(d, "StreamViewType", json_string(view));
    rec = json_pack("{s:o, s:s, s:s, s:s, s:s, s:o}", "eventID",
                    event_id(pg->s, r->seq), "eventName",
                    r->old == NULL ? "INSERT"
                    : r->new_item == NULL ? "REMOVE" : "MODIFY",
                    "eventVersion", "1.1", "eventSource", "aws:dynamodb",
                    "awsRegion", pg->region, "dynamodb", d);
    /* a TTL delete is the service's (Time to Live and DynamoDB Streams,
     * developer guide) */
    if (r->origin == STORAGE_ORIGIN_SERVICE)
        json_object_set_new(rec, "userIdentity",
                            json_pack("{s:s, s:s}", "PrincipalId",
                                      "dynamodb.amazonaws.com", "Type",
                                      "Service"));
    json_array_append_new(pg->records, rec);
    pg->bytes += size;
    pg->last = r->seq;
    if (json_array_size(pg->records) >= pg->limit) {
        pg->stopped = true;
        return 1;
    }
    return 0;
}

/* The region of a stream ARN, arn:aws:dynamodb:<region>:... */
static void
arn_region(const char *arn, char *out, size_t outsz)
{
    const char *p = arn;

    snprintf(out, outsz, "us-east-1");
    for (int i = 0; i < 3 && p != NULL; i++) {
        p = strchr(p, ':');
        if (p != NULL)
            p++;
    }
    if (p != NULL && strchr(p, ':') != NULL &&
        (size_t)(strchr(p, ':') - p) < outsz)
        snprintf(out, outsz, "%.*s", (int)(strchr(p, ':') - p), p);
}

int
api_get_records(struct api_ctx *ctx, const json_t *req, json_t **resp,
                struct ddb_err *err)
{
    const char *text = json_string_value(json_object_get(req,
                                                         "ShardIterator"));
    struct page pg;
    struct target t;
    struct iter it;
    uint64_t v, upto, trimmed;
    bool entered = false;
    int rc = -1;

    memset(&t, 0, sizeof(t));
    memset(&pg, 0, sizeof(pg));
    /* a malformed iterator is a ValidationException (Alternator
     * test_get_records_nonexistent_iterator, against DynamoDB) */
    if (!iter_decode(text, &it))
        return ddb_err_set(err, DDB_VALIDATION, MSG_BAD_ITER);
    if (ctx->now_ms >= it.issued + ITER_TTL_MS)
        return ddb_err_set(err, DDB_EXPIRED_ITERATOR, MSG_EXPIRED);
    if (target_open(ctx, it.arn, it.shard, &t, err) != 0)
        goto out;
    if (streams_meter_enter(ctx, &t.s, t.sh->id, err) != 0)
        goto out;
    entered = true;
    upto = t.sh->last != 0 ? t.sh->last : UINT64_MAX;
    pg.s = &t.s;
    pg.records = json_array();
    pg.limit = json_get_uint(req, "Limit", &v) == 1 && v > 0 &&
                       v <= RECORDS_MAX
                   ? (size_t)v
                   : RECORDS_MAX;
    pg.last = it.after;
    arn_region(t.s.arn, pg.region, sizeof(pg.region));
    if (stable_log_read(t.s.t, t.sh->start, it.after, upto, add_record, &pg,
                        &trimmed, err) != 0)
        goto out;
    t.trimmed = trimmed;
    /* the records after the iterator's position are gone (trimmed after
     * it was issued: GetRecords' TrimmedDataAccessException) */
    if (is_trimmed(&t, it.after)) {
        ddb_err_set(err, DDB_TRIMMED_DATA, MSG_TRIMMED);
        goto out;
    }
    *resp = json_pack("{s:O}", "Records", pg.records);
    /* a closed shard read to its end has no next iterator (the API
     * reference: "If set to null, the shard has been closed"; DynamoDB
     * leaves the member out: Alternator test_streams_closed_read) */
    if (t.sh->last == 0 || pg.stopped) {
        it.after = pg.last;
        it.issued = ctx->now_ms;
        json_object_set_new(*resp, "NextShardIterator", iter_encode(&it));
    }
    rc = 0;
out:
    if (entered)
        streams_meter_leave(ctx, &t.s, t.sh->id,
                            rc == 0 ? json_array_size(pg.records) : 0,
                            rc == 0 ? pg.bytes : 0);
    json_decref(pg.records);
    target_close(&t);
    return rc;
}
