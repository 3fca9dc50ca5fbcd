/* SPDX-License-Identifier: MIT */
/* fuzz_dispatch.c - libFuzzer target for the request JSON and its
 * validation: one call through api_dispatch() against a fresh in-memory
 * store with tables (a hash key; a hash and range key with a GSI and an
 * LSI; one with vector indexes) and a few items, made again after any
 * input that changes a table and every 64 inputs. Input: the operation
 * name, a newline, the body. A finding: a crash, a sanitizer report, a leak, a reply that is not a
 * JSON object, or a 5xx (bad input must get DynamoDB's 4xx error).
 * Another table has a stream: an operation named "Streams.<Name>" goes to
 * the DynamoDB Streams service, and in any body "@A" stands for that
 * stream's ARN, "@S" for its shard, "@I" for a valid shard iterator and
 * "@P" for an iterator's prefix (the ARN and "|1|": the input gives the
 * encoded rest), so that mutations reach past the ARN checks. jansson
 * allocates through the server's allocator (storage/json_alloc.c). */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "conf/conf.h"
#include "storage/util.h"

#define TARGET "DynamoDB_20120810."
#define STREAMS_TARGET "DynamoDBStreams_20120810."
#define STREAMS_OP "Streams."

static const char *const setup_calls[][2] = {
    { "CreateTable",
      "{\"TableName\":\"fzh\",\"BillingMode\":\"PAY_PER_REQUEST\","
      "\"AttributeDefinitions\":[{\"AttributeName\":\"pk\","
      "\"AttributeType\":\"S\"}],\"KeySchema\":[{\"AttributeName\":\"pk\","
      "\"KeyType\":\"HASH\"}]}" },
    { "CreateTable",
      "{\"TableName\":\"fzr\",\"BillingMode\":\"PAY_PER_REQUEST\","
      "\"AttributeDefinitions\":[{\"AttributeName\":\"pk\","
      "\"AttributeType\":\"S\"},{\"AttributeName\":\"sk\","
      "\"AttributeType\":\"N\"},{\"AttributeName\":\"g\","
      "\"AttributeType\":\"S\"},{\"AttributeName\":\"l\","
      "\"AttributeType\":\"B\"}],\"KeySchema\":[{\"AttributeName\":\"pk\","
      "\"KeyType\":\"HASH\"},{\"AttributeName\":\"sk\",\"KeyType\":"
      "\"RANGE\"}],\"GlobalSecondaryIndexes\":[{\"IndexName\":\"gix\","
      "\"KeySchema\":[{\"AttributeName\":\"g\",\"KeyType\":\"HASH\"}],"
      "\"Projection\":{\"ProjectionType\":\"ALL\"}}],"
      "\"LocalSecondaryIndexes\":[{\"IndexName\":\"lix\",\"KeySchema\":["
      "{\"AttributeName\":\"pk\",\"KeyType\":\"HASH\"},{\"AttributeName\":"
      "\"l\",\"KeyType\":\"RANGE\"}],\"Projection\":{\"ProjectionType\":"
      "\"KEYS_ONLY\"}}]}" },
    { "PutItem",
      "{\"TableName\":\"fzh\",\"Item\":{\"pk\":{\"S\":\"a\"},\"n\":{\"N\":"
      "\"1\"},\"m\":{\"M\":{\"x\":{\"L\":[{\"S\":\"y\"},{\"NS\":[\"1\","
      "\"2\"]}]}}}}}" },
    { "PutItem",
      "{\"TableName\":\"fzr\",\"Item\":{\"pk\":{\"S\":\"a\"},\"sk\":{\"N\":"
      "\"1\"},\"g\":{\"S\":\"g1\"},\"l\":{\"B\":\"AQI=\"},\"s\":{\"SS\":"
      "[\"p\",\"q\"]}}}" },
    { "PutItem",
      "{\"TableName\":\"fzr\",\"Item\":{\"pk\":{\"S\":\"a\"},\"sk\":{\"N\":"
      "\"2.5\"},\"g\":{\"S\":\"g1\"},\"b\":{\"BOOL\":true}}}" },
    { "CreateTable",
      "{\"TableName\":\"fzs\",\"BillingMode\":\"PAY_PER_REQUEST\","
      "\"AttributeDefinitions\":[{\"AttributeName\":\"pk\","
      "\"AttributeType\":\"S\"}],\"KeySchema\":[{\"AttributeName\":\"pk\","
      "\"KeyType\":\"HASH\"}],\"StreamSpecification\":{\"StreamEnabled\":"
      "true,\"StreamViewType\":\"NEW_AND_OLD_IMAGES\"}}" },
    { "PutItem",
      "{\"TableName\":\"fzs\",\"Item\":{\"pk\":{\"S\":\"a\"},\"n\":{\"N\":"
      "\"1\"}}}" },
    { "UpdateItem",
      "{\"TableName\":\"fzs\",\"Key\":{\"pk\":{\"S\":\"a\"}},"
      "\"UpdateExpression\":\"ADD n :one\",\"ExpressionAttributeValues\":"
      "{\":one\":{\"N\":\"1\"}}}" },
    { "DeleteItem",
      "{\"TableName\":\"fzs\",\"Key\":{\"pk\":{\"S\":\"a\"}}}" },
    /* A table with vector indexes: plain, and one with a SearchSchema. */
    { "CreateTable",
      "{\"TableName\":\"fzv\",\"BillingMode\":\"PAY_PER_REQUEST\","
      "\"AttributeDefinitions\":[{\"AttributeName\":\"pk\","
      "\"AttributeType\":\"S\"},{\"AttributeName\":\"t\","
      "\"AttributeType\":\"S\"}],\"KeySchema\":[{\"AttributeName\":\"pk\","
      "\"KeyType\":\"HASH\"}],\"VectorIndexes\":[{\"IndexName\":\"vix\","
      "\"VectorAttribute\":{\"AttributeName\":\"e\"},\"Dimensions\":3,"
      "\"DistanceFunction\":\"COSINE\",\"Projection\":{\"ProjectionType\":"
      "\"ALL\"}},{\"IndexName\":\"vsc\",\"VectorAttribute\":{"
      "\"AttributeName\":\"e\"},\"Dimensions\":3,\"DistanceFunction\":"
      "\"DOT_PRODUCT\",\"Projection\":{\"ProjectionType\":\"KEYS_ONLY\"},"
      "\"SearchSchema\":[{\"AttributeName\":\"t\","
      "\"SearchSchemaElementType\":\"HASH\"}]}]}" },
    { "PutItem",
      "{\"TableName\":\"fzv\",\"Item\":{\"pk\":{\"S\":\"a\"},\"t\":{\"S\":"
      "\"t1\"},\"e\":{\"L\":[{\"N\":\"1\"},{\"N\":\"0.5\"},{\"N\":"
      "\"-2\"}]}}}" },
};

/* The stream's ARN, its shard and an iterator, for "@A", "@S", "@I". */
static char stream_arn[256], shard_id[128], shard_iter[1024];

static void
call(struct api_server *srv_, const char *op, size_t oplen, const char *body,
     size_t len, struct api_reply *r)
{
    const char *prefix = TARGET;
    char target[160];
    struct api_call c;

    if (oplen > strlen(STREAMS_OP) &&
        memcmp(op, STREAMS_OP, strlen(STREAMS_OP)) == 0) {
        prefix = STREAMS_TARGET;
        op += strlen(STREAMS_OP);
        oplen -= strlen(STREAMS_OP);
    }
    snprintf(target, sizeof(target), "%s%.*s", prefix, (int)oplen, op);
    memset(&c, 0, sizeof(c));
    c.target = target;
    c.body = body;
    c.len = len;
    c.signed_v4 = true;
    c.region = "us-east-1";
    c.access_key = "AKIDFUZZ";
    api_dispatch(srv_, &c, r);
}

/* The server the inputs run against. A fresh one (storage, tables, items)
 * costs tens of milliseconds, so it is kept: rebuilt after any input that
 * changed a table (DDL) and every RESET_EVERY inputs, so that items
 * written by earlier inputs stay few. */
#define RESET_EVERY 64

static struct storage *st;
static struct api_server srv;
static struct conf cf;
static unsigned uses;

static void
server_down(void)
{
    if (st == NULL)
        return;
    api_server_fini(&srv);
    storage_close(st);
    st = NULL;
}

/* One set-up call whose answer must be 200: the string at PATH in it
 * (a list of keys, "0" for an array's first element) copied to OUT. */
static void
setup_fetch(const char *op, const char *body, const char *const *path,
            char *out, size_t outlen)
{
    struct api_reply r;
    json_t *reply, *v;

    call(&srv, op, strlen(op), body, strlen(body), &r);
    reply = json_loadb(r.body, r.len, 0, NULL);
    v = reply;
    for (; v != NULL && *path != NULL; path++)
        v = json_is_array(v) ? json_array_get(v, 0) : json_object_get(v, *path);
    if (r.status != 200 || !json_is_string(v) ||
        json_string_length(v) >= outlen) {
        fprintf(stderr, "fuzz_dispatch: set-up %s: %.*s\n", op, (int)r.len,
                r.body);
        abort();
    }
    snprintf(out, outlen, "%s", json_string_value(v));
    json_decref(reply);
    free(r.body);
}

static void
stream_setup(void)
{
    static const char *const p_arn[] = { "Table", "LatestStreamArn", NULL };
    static const char *const p_shard[] = { "StreamDescription", "Shards", "0",
                                           "ShardId", NULL };
    static const char *const p_iter[] = { "ShardIterator", NULL };
    char body[1024];

    setup_fetch("DescribeTable", "{\"TableName\":\"fzs\"}", p_arn,
                stream_arn, sizeof(stream_arn));
    snprintf(body, sizeof(body), "{\"StreamArn\":\"%s\"}", stream_arn);
    setup_fetch(STREAMS_OP "DescribeStream", body, p_shard, shard_id,
                sizeof(shard_id));
    snprintf(body, sizeof(body), "{\"StreamArn\":\"%s\",\"ShardId\":\"%s\","
             "\"ShardIteratorType\":\"TRIM_HORIZON\"}", stream_arn, shard_id);
    setup_fetch(STREAMS_OP "GetShardIterator", body, p_iter, shard_iter,
                sizeof(shard_iter));
}

/* BODY with "@A", "@S", "@I" and "@P" replaced (see the top); a new
 * string, *LEN its length. */
static char *
expand(const char *body, size_t *len)
{
    size_t cap = *len * 2 + 64, n = 0;
    char *out = malloc(cap);

    for (size_t i = 0; i < *len; i++) {
        const char *sub = NULL;
        char pre[300];

        if (body[i] == '@' && i + 1 < *len) {
            switch (body[i + 1]) {
            case 'A': sub = stream_arn; break;
            case 'S': sub = shard_id; break;
            case 'I': sub = shard_iter; break;
            case 'P':
                snprintf(pre, sizeof(pre), "%s|1|", stream_arn);
                sub = pre;
                break;
            default: break;
            }
        }
        size_t need = sub != NULL ? strlen(sub) : 1;
        if (n + need + 1 > cap) {
            cap = (n + need + 1) * 2;
            out = realloc(out, cap);
        }
        if (out == NULL)
            abort();
        if (sub != NULL) {
            memcpy(out + n, sub, need);
            i++;
        } else {
            out[n] = body[i];
        }
        n += need;
    }
    *len = n;
    return out;
}

static void
server_up(void)
{
    struct api_reply r;
    struct ddb_err err;

    ddb_err_init(&err);
    st = storage_open(NULL, &err);
    if (st == NULL)
        abort();
    conf_defaults(&cf);
    cf.virtual_clock = true;            /* the same input, the same run */
    api_server_init(&srv, st, &cf);
    for (size_t i = 0; i < sizeof(setup_calls) / sizeof(setup_calls[0]);
         i++) {
        call(&srv, setup_calls[i][0], strlen(setup_calls[i][0]),
             setup_calls[i][1], strlen(setup_calls[i][1]), &r);
        if (r.status != 200) {
            fprintf(stderr, "fuzz_dispatch: set-up %s: %.*s\n",
                    setup_calls[i][0], (int)r.len, r.body);
            abort();
        }
        free(r.body);
    }
    stream_setup();
    uses = 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* jansson's allocator as the server installs it (storage/json_alloc.c),
 * before any value exists, so the calls run over its block cache */
int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    json_alloc_init();
    return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *in = (const char *)data, *nl;
    struct api_reply r;
    json_error_t jerr;
    json_t *reply;
    size_t oplen, len;
    char *body;
    bool ddl;

    nl = memchr(in, '\n', size);
    if (nl == NULL || nl - in > 64)
        return -1;                      /* not a call: leave the corpus */
    oplen = (size_t)(nl - in);
    if (st == NULL || uses++ >= RESET_EVERY) {
        server_down();
        server_up();
    }
    len = size - oplen - 1;
    body = expand(nl + 1, &len);
    call(&srv, in, oplen, body, len, &r);
    free(body);
    reply = json_loadb(r.body, r.len, 0, &jerr);
    if (r.status >= 500 || !json_is_object(reply)) {
        fprintf(stderr, "fuzz_dispatch: %u %.*s\n", r.status, (int)r.len,
                r.body);
        abort();
    }
    json_decref(reply);
    free(r.body);
    /* Create/Update/DeleteTable and the like change the tables */
    ddl = oplen > 5 && memmem(in, oplen, "Table", 5) != NULL &&
          !(oplen > 8 && (memcmp(in, "Describe", 8) == 0)) &&
          !(oplen > 4 && memcmp(in, "List", 4) == 0);
    if (ddl || (oplen > 6 && memcmp(in, "Update", 6) == 0 &&
                memmem(in, oplen, "Item", 4) == NULL))
        server_down();
    return 0;
}
