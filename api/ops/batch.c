/* SPDX-License-Identifier: MIT */
/* batch.c - BatchGetItem and BatchWriteItem: DynamoDB's checks in its
 * order, every table and key resolved before the first read or write, each
 * write committed on its own by stable_mutate(), and Unprocessed* in the
 * request's own shape so a client can send them straight back. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "api/expr/expr.h"
#include "api/expr/request.h"
#include "api/index/index.h"
#include "api/ops/ops.h"
#include "api/ops/write.h"
#include "api/proto/av.h"
#include "api/proto/capacity.h"
#include "api/tables/tables.h"
#include "api/throttle/gate.h"
#include "storage/util.h"

#define BATCH_GET_MAX   100         /* keys per BatchGetItem call */
#define BATCH_WRITE_MAX 25          /* requests per BatchWriteItem call */
/*
 * BatchGetItem's response limit, "16 MB". The API reference's example
 * (100 items of 300 KB -> 52 items returned) only works out with 16,000,000
 * bytes: 52 x 307,200 fits, 53 x 307,200 does not. Counted in item sizes
 * (throttling.md 2) of the items read.
 */
#define BATCH_GET_RESPONSE_MAX 16000000u

#define MSG_KEY_SCHEMA "The provided key element does not match the schema"
#define MSG_DUP_KEYS "Provided list of item keys contains duplicates"
#define MSG_MULTI_AV "Supplied AttributeValue has more than one datatypes " \
    "set, must contain exactly one of the supported datatypes"

/* {"TableName": name}: what table_ref_open() resolves. New reference. */
static json_t *
table_req(const char *name)
{
    json_t *r = json_pack("{s:s}", "TableName", name);

    if (r == NULL)
        abort();
    return r;
}

/* Open RequestItems' table `name` into ot (ResourceNotFoundException
 * "Requested resource not found" when it does not exist or is not ready;
 * a name or a table ARN, like TableName). */
static int
batch_table_open(struct api_ctx *ctx, const char *name, struct table_ref *ot,
                 struct ddb_err *err)
{
    json_t *r = table_req(name);
    int rc = table_ref_open(ctx, r, ot, err);

    json_decref(r);
    return rc;
}

static bool
key_equal(const struct item_key *a, const struct item_key *b)
{
    return a->pk_len == b->pk_len && a->sk_len == b->sk_len &&
           memcmp(a->pk, b->pk, a->pk_len) == 0 &&
           memcmp(a->sk, b->sk, a->sk_len) == 0;
}

/*
 * How far a batch got. A batch fails for throttling only when nothing at
 * all could be processed (throttling.md 5); otherwise the refused
 * requests come back as UnprocessedKeys / UnprocessedItems.
 */
struct batch_progress {
    size_t done;                    /* requests that ran */
    size_t refused;                 /* requests the throttle refused */
    struct ddb_err refusal;         /* the last refusal's exception */
    struct api_ctx *ctx;            /* borrowed: the request (throttling) */
    struct gate_ticket th;          /* the admitted request's ticket */
};

/* Start a batch call: RequestItems (ri) must be a map (validate.c
 * guarantees it), and p counts for ctx. 0, or -1 with err set. */
static int
batch_begin(struct api_ctx *ctx, const json_t *ri, struct batch_progress *p,
            struct ddb_err *err)
{
    if (!json_is_object(ri))
        return ddb_err_set(err, DDB_VALIDATION, "1 validation error "
                           "detected: Value null at 'requestItems' failed to "
                           "satisfy constraint: Member must not be null");
    ddb_err_init(&p->refusal);
    p->ctx = ctx;
    return 0;
}

/*
 * Throttling (throttle/gate.c): may the partition of key k in table ot serve
 * this read or write now? A refusal returns false with p->refusal set to
 * the exception (throttle_batch_err: ProvisionedThroughputExceeded or
 * ThrottlingException, with its ThrottlingReasons) that the whole call
 * fails with if no request at all is admitted. need is the least the
 * request can cost. An admitted request pays through batch_charge once its
 * units are known (0 when it did not run).
 */
static bool
batch_admit(struct table_ref *ot, const struct item_key *k, bool write,
            double need, struct batch_progress *p)
{
    enum throttle_op op = write ? THROTTLE_WRITE : THROTTLE_READ;
    enum throttle_cause c;

    if (p->ctx == NULL)
        return true;
    c = gate_try(p->ctx, ot->t, k, op, need, &p->th);
    if (c == THROTTLE_OK)
        return true;
    ddb_err_clear(&p->refusal);
    throttle_batch_err(p->th.tt, op, c, &p->refusal);
    return false;
}

/* Pay the admitted request's units (no-op without an admission). */
static double
batch_charge(struct batch_progress *p, double units)
{
    if (p->ctx != NULL)
        gate_charge(p->ctx, &p->th, units);
    return units;
}

/* The call's result once every request was tried: 0, or -1 with the
 * throttling exception when every request was refused. */
static int
batch_outcome(struct batch_progress *p, struct ddb_err *err)
{
    if (p->done > 0 || p->refused == 0)
        return 0;
    if (err != NULL) {
        ddb_err_clear(err);
        *err = p->refusal;          /* moves refusal.extra */
        ddb_err_init(&p->refusal);
    }
    return -1;
}

/* ------------------------------------------------------------------------
 * BatchGetItem
 * ---------------------------------------------------------------------- */

struct bg_table {
    const char *key;                /* RequestItems key (borrowed) */
    json_t *spec;                   /* owned: shallow copy of its
                                       KeysAndAttributes, NULL if null */
    struct req_exprs x;
    struct expr *proj;              /* owned; NULL: whole items */
    struct table_ref ot;
    bool consistent;
    size_t nkeys;
    json_t *keys;                   /* owned: validated copies (N canonical) */
    char **canon;                   /* owned: canonical text per key, for
                                       the duplicate check */
    struct item_key *k;             /* nkeys storage keys */
    double units;
};

static void
bg_table_fini(struct bg_table *bt)
{
    size_t i;

    expr_free(bt->proj);
    req_exprs_fini(&bt->x);
    table_ref_close(&bt->ot);
    if (bt->canon != NULL)
        for (i = 0; i < bt->nkeys; i++)
            free(bt->canon[i]);
    free(bt->canon);
    free(bt->k);
    json_decref(bt->keys);
    json_decref(bt->spec);
}

/* A Boolean member: JSON true, or a string DynamoDB's parser takes as
 * true ("true", "1", "yes" in any case; validate.c rejects other
 * strings). */
static bool
bool_member(const json_t *o, const char *name)
{
    const json_t *v = json_object_get(o, name);
    const char *s = json_string_value(v);

    if (s != NULL)
        return strcasecmp(s, "true") == 0 || strcmp(s, "1") == 0 ||
               strcasecmp(s, "yes") == 0;
    return json_is_true(v);
}

/*
 * The checks DynamoDB makes on one table's KeysAndAttributes before it
 * looks the table up (dynalite's validations/batchGetItem.js records the
 * order): the expression/legacy mix, AttributesToGet duplicates, the
 * names and the ProjectionExpression, unused names; then each key's
 * AttributeValues, duplicate keys and the 100-key total (*total runs over
 * all tables).
 */
static int
bg_table_check(struct bg_table *bt, size_t *total, struct ddb_err *err)
{
    const json_t *keys = json_object_get(bt->spec, "Keys");
    size_t i, j;

    if (req_exprs_begin_op(&bt->x, bt->spec, "BatchGetItem", err) != 0 ||
        req_exprs_parse(&bt->x, bt->spec, EXPR_PROJECTION, NULL, &bt->proj,
                        err) != 0 ||
        req_exprs_check_unused(&bt->x, bt->spec, err) != 0)
        return -1;
    bt->consistent = bool_member(bt->spec, "ConsistentRead");
    if (!json_is_array(keys))       /* a null KeysAndAttributes */
        return ddb_err_set(err, DDB_VALIDATION, "1 validation error "
                           "detected: Value null at 'requestItems.%s.member."
                           "keys' failed to satisfy constraint: Member must "
                           "not be null", bt->key);
    bt->nkeys = json_array_size(keys);
    bt->keys = json_array();
    bt->canon = xcalloc(bt->nkeys, sizeof(*bt->canon));
    for (i = 0; i < bt->nkeys; i++) {
        const json_t *key = json_array_get(keys, i);
        json_t *copy = json_is_object(key) ? json_clone(key)
                                           : json_object();

        json_array_append_new(bt->keys, copy);
        if (item_validate(copy, err) != 0)
            return -1;
        bt->canon[i] = json_text(copy, JSON_COMPACT | JSON_SORT_KEYS);
        if (bt->canon[i] == NULL)
            return ddb_err_set(err, DDB_INTERNAL, "out of memory");
        for (j = 0; j < i; j++)
            if (strcmp(bt->canon[i], bt->canon[j]) == 0)
                return ddb_err_set(err, DDB_VALIDATION, MSG_DUP_KEYS);
        if (++*total > BATCH_GET_MAX)
            return ddb_err_set(err, DDB_VALIDATION, "Too many items "
                               "requested for the BatchGetItem call");
    }
    return 0;
}

/*
 * AttributesToGet on one table and ProjectionExpression on another is the
 * expression/legacy mix across the request: DynamoDB refuses it as a
 * whole (paritysuite/dynamodb-conformance error-messages/
 * batchGetItem.test.ts, 2026-10), in the words of the one-table case.
 */
static int
bg_check_cross_mix(const struct bg_table *tabs, size_t n,
                   struct ddb_err *err)
{
    bool atg = false, pe = false;
    size_t i;

    for (i = 0; i < n; i++) {
        const json_t *a = json_object_get(tabs[i].spec, "AttributesToGet");
        const json_t *p = json_object_get(tabs[i].spec,
                                          "ProjectionExpression");

        atg = atg || (a != NULL && !json_is_null(a));
        pe = pe || (p != NULL && !json_is_null(p));
    }
    if (atg && pe)
        return ddb_err_set(err, DDB_VALIDATION, "Can not use both "
                           "expression and non-expression parameters in the "
                           "same request: Non-expression parameters: "
                           "{AttributesToGet} Expression parameters: "
                           "{ProjectionExpression}");
    return 0;
}

/* Resolve the table and check every key against its schema. */
static int
bg_table_resolve(struct api_ctx *ctx, struct bg_table *bt,
                 struct ddb_err *err)
{
    size_t i;

    if (batch_table_open(ctx, bt->key, &bt->ot, err) != 0)
        return -1;
    bt->k = xcalloc(bt->nkeys, sizeof(*bt->k));
    for (i = 0; i < bt->nkeys; i++)
        if (item_key_build(&bt->ot.ks, json_array_get(bt->keys, i), true,
                           &bt->k[i], err) != 0)
            return -1;
    return expr_check_key_scalars(bt->proj, &bt->ot.ks, err);
}

/* The UnprocessedKeys entry of a table: its request members, with Keys
 * to be filled. New reference. */
static json_t *
bg_unprocessed_entry(const struct bg_table *bt)
{
    static const char *const members[] = {
        "AttributesToGet", "ConsistentRead", "ProjectionExpression",
        "ExpressionAttributeNames" };
    json_t *e = json_object(), *v;
    size_t i;

    json_object_set_new(e, "Keys", json_array());
    for (i = 0; i < sizeof(members) / sizeof(members[0]); i++) {
        v = json_object_get(bt->spec, members[i]);
        if (v != NULL && !json_is_null(v))
            json_object_set_new(e, members[i], json_clone(v));
    }
    return e;
}

/* Add key i of bt to UnprocessedKeys (as the client sent it), creating
 * the table's entry on first use in *entry. */
static void
bg_unprocessed_add(const struct bg_table *bt, size_t i, json_t *unprocessed,
                   json_t **entry)
{
    if (*entry == NULL) {
        *entry = bg_unprocessed_entry(bt);
        json_object_set_new(unprocessed, bt->key, *entry);
    }
    json_array_append_new(json_object_get(*entry, "Keys"),
                          json_clone(json_array_get(
                              json_object_get(bt->spec, "Keys"), i)));
}

/*
 * Read one table's keys in request order into its Responses list. Once
 * the response would pass BATCH_GET_RESPONSE_MAX (*used counts over all
 * tables), that key and every later one go to UnprocessedKeys unread and
 * uncharged; so does a key the throttle refuses. A missing item still
 * costs one read step.
 */
static int
bg_table_read(struct bg_table *bt, size_t *used, bool *full, json_t *items,
              json_t *unprocessed, struct batch_progress *p,
              struct ddb_err *err)
{
    json_t *entry = NULL;
    size_t i;

    for (i = 0; i < bt->nkeys; i++) {
        json_t *item = NULL;
        size_t size = 0;

        if (!*full &&
            !batch_admit(&bt->ot, &bt->k[i], false,
                         capacity_read_units(0, bt->consistent), p)) {
            p->refused++;
            bg_unprocessed_add(bt, i, unprocessed, &entry);
            continue;
        }
        if (!*full && stable_get(bt->ot.t, &bt->k[i], &item, err) != 0) {
            batch_charge(p, 0);
            return -1;
        }
        if (item != NULL) {
            size = item_size(item);
            if (size > BATCH_GET_RESPONSE_MAX - *used)
                *full = true;
        }
        if (*full) {
            batch_charge(p, 0);         /* read, but not returned */
            json_decref(item);
            bg_unprocessed_add(bt, i, unprocessed, &entry);
            continue;
        }
        p->done++;
        bt->units += batch_charge(p, capacity_read_units(size,
                                                         bt->consistent));
        if (item != NULL) {
            *used += size;
            json_array_append_new(items, bt->proj != NULL
                                             ? expr_project(bt->proj, item)
                                             : json_incref(item));
        }
        json_decref(item);
    }
    return 0;
}

/*
 * BatchGetItem: up to 100 keys over one or more tables. The reply always
 * has Responses (a list per requested table, possibly empty) and
 * UnprocessedKeys ({} when everything was read, as DynamoDB sends it);
 * ConsumedCapacity is a list with one entry per table, each item rounded
 * on its own (throttling.md 2).
 */
int
api_batch_get_item(struct api_ctx *ctx, const json_t *req, json_t **resp,
                   struct ddb_err *err)
{
    const json_t *ri = json_object_get(req, "RequestItems");
    struct bg_table *tabs = NULL;
    size_t ntabs = 0, i, total = 0, used = 0;
    json_t *out = NULL, *responses, *unprocessed;
    const char *name;
    json_t *spec;
    struct batch_progress p = { 0 };
    bool full = false;
    int rc = -1;

    if (batch_begin(ctx, ri, &p, err) != 0)
        return -1;
    /* An empty map, once the framework's checks passed: us-east-1 answers
     * this sentence (paritysuite/dynamodb-conformance
     * captures/2026-10-07-batch-empty-request-items.json, the most recent
     * recording; a few regions give the generic length message). */
    if (json_object_size(ri) == 0)
        return ddb_err_set(err, DDB_VALIDATION, "The requestItems parameter "
                           "is required for BatchWriteItem");
    tabs = xcalloc(json_object_size(ri), sizeof(*tabs));
    json_object_foreach((json_t *)ri, name, spec) {
        struct bg_table *bt = &tabs[ntabs++];

        bt->key = name;
        req_exprs_init(&bt->x);
        if (!json_is_object(spec))
            continue;
        /* KeysAndAttributes has no ExpressionAttributeValues: DynamoDB
         * ignores the member, as it ignores any unknown one. */
        bt->spec = json_copy(spec);
        if (bt->spec == NULL)
            abort();
        json_object_del(bt->spec, "ExpressionAttributeValues");
    }
    for (i = 0; i < ntabs; i++)
        if (bg_table_check(&tabs[i], &total, err) != 0)
            goto out;
    if (bg_check_cross_mix(tabs, ntabs, err) != 0)
        goto out;
    for (i = 0; i < ntabs; i++)
        if (bg_table_resolve(ctx, &tabs[i], err) != 0)
            goto out;

    out = json_object();
    responses = json_object();
    unprocessed = json_object();
    json_object_set_new(out, "Responses", responses);
    json_object_set_new(out, "UnprocessedKeys", unprocessed);
    for (i = 0; i < ntabs; i++) {
        json_t *items = json_array();

        json_object_set_new(responses, tabs[i].key, items);
        if (bg_table_read(&tabs[i], &used, &full, items, unprocessed, &p,
                          err) != 0)
            goto out;
        capacity_add(ctx->cap, tabs[i].ot.name, tabs[i].units, 0);
    }
    if (batch_outcome(&p, err) != 0)
        goto out;
    *resp = out;
    out = NULL;
    rc = 0;
out:
    ddb_err_clear(&p.refusal);
    json_decref(out);
    for (i = 0; i < ntabs; i++)
        bg_table_fini(&tabs[i]);
    free(tabs);
    return rc;
}

/* ------------------------------------------------------------------------
 * BatchWriteItem
 * ---------------------------------------------------------------------- */

struct bw_request {
    struct write_req w;             /* a put or a delete (ops/write.h) */
    struct item_key k;
};

struct bw_table {
    const char *key;                /* RequestItems key (borrowed) */
    const json_t *list;             /* its WriteRequests (borrowed) */
    struct table_ref ot;
    size_t nreqs;
    struct bw_request *reqs;        /* owned */
    double units;                   /* the table's own write units */
    bool has_idx;                   /* secondary indexes: set is open */
    struct index_set set;
    double idx_units[INDEX_MAX];    /* per index of set, summed */
};

static void
bw_table_fini(struct bw_table *bt)
{
    size_t i;

    if (bt->has_idx)
        index_set_close(&bt->set);
    table_ref_close(&bt->ot);
    if (bt->reqs != NULL)
        for (i = 0; i < bt->nreqs; i++)
            write_req_fini(&bt->reqs[i].w);
    free(bt->reqs);
}

/*
 * The checks before any table is looked up, per table in request order
 * (dynalite's validations/batchWriteItem.js): every WriteRequest names
 * exactly one of PutRequest and DeleteRequest (DynamoDB words a violation
 * as an AttributeValue's "more than one datatypes"); then each request's
 * AttributeValues, the 400 KB item limit for puts, and the 25-request total
 * over all tables.
 */
static int
bw_table_check(struct bw_table *bt, size_t *total, struct ddb_err *err)
{
    size_t i;

    bt->nreqs = json_array_size(bt->list);
    bt->reqs = xcalloc(bt->nreqs, sizeof(*bt->reqs));
    for (i = 0; i < bt->nreqs; i++) {
        const json_t *wr = json_array_get(bt->list, i);

        if (!json_is_object(wr) ||
            json_has(wr, "PutRequest") == json_has(wr, "DeleteRequest"))
            return ddb_err_set(err, DDB_VALIDATION, MSG_MULTI_AV);
    }
    for (i = 0; i < bt->nreqs; i++) {
        const json_t *wr = json_array_get(bt->list, i);
        struct bw_request *r = &bt->reqs[i];
        bool put = json_has(wr, "PutRequest");

        write_req_init(&r->w, put ? WRITE_PUT : WRITE_DELETE,
                       json_object_get(wr, put ? "PutRequest"
                                               : "DeleteRequest"));
        if ((put ? write_take_item(&r->w, err)
             : write_take_key(&r->w, err)) != 0)
            return -1;
        if ((put ? r->w.item : r->w.key) == NULL)
            return ddb_err_set(err, DDB_VALIDATION, "1 validation error "
                               "detected: Value null at 'requestItems.%s."
                               "member.%zu.member.%s' failed to satisfy "
                               "constraint: Member must not be null",
                               bt->key, i + 1,
                               put ? "putRequest.item"
                                   : "deleteRequest.key");
        if (put && r->w.size > ITEM_SIZE_MAX)
            return ddb_err_set(err, DDB_VALIDATION, "Item size has "
                               "exceeded the maximum allowed size");
        if (++*total > BATCH_WRITE_MAX)
            return ddb_err_set(err, DDB_VALIDATION, "Too many items "
                               "requested for the BatchWriteItem call");
    }
    return 0;
}

/* Open the table's secondary indexes, if it has any: its writes then go
 * through index_mutate(), base row and index rows in one transaction. */
static int
bw_index_open(struct api_ctx *ctx, struct bw_table *bt, struct ddb_err *err)
{
    json_t *d = stable_desc_ref(bt->ot.t);
    int rc = 0;

    if (d != NULL && index_desc_has(d)) {
        rc = index_set_open(ctx->srv->st, d, &bt->set, err);
        bt->has_idx = true;         /* index_set_close is safe either way */
    }
    json_decref(d);
    return rc;
}

/* A table with vector indexes: r's write keeps them in step, and a put's
 * item is checked against them before anything of the batch is written. */
static int
bw_vector_open(struct api_ctx *ctx, struct bw_table *bt,
               struct bw_request *r, struct ddb_err *err)
{
    json_t *d = stable_desc_ref(bt->ot.t);
    int rc = 0;

    if (d != NULL && vector_desc_has(d)) {
        r->w.vec = vector_write_new(ctx->srv, bt->ot.t, err);
        rc = r->w.vec == NULL ? -1 : 0;
        if (rc == 0 && r->w.kind == WRITE_PUT)
            rc = vector_write_check(r->w.vec, NULL, r->w.item, NULL, NULL,
                                    err);
    }
    json_decref(d);
    return rc;
}

/*
 * Resolve the table, then check each request's key against the schema
 * (and a put's index key attributes against the indexes) and against the
 * table's earlier requests. A PutRequest item missing a key attribute or
 * with a key of the wrong type gets the Key-map message ("The provided key
 * element does not match the schema"), unlike PutItem.
 */
static int
bw_table_resolve(struct api_ctx *ctx, struct bw_table *bt,
                 struct ddb_err *err)
{
    size_t i, j;

    if (batch_table_open(ctx, bt->key, &bt->ot, err) != 0 ||
        bw_index_open(ctx, bt, err) != 0)
        return -1;
    for (i = 0; i < bt->nreqs; i++) {
        struct bw_request *r = &bt->reqs[i];

        bool put = r->w.kind == WRITE_PUT;

        if (item_key_build(&bt->ot.ks, put ? r->w.item : r->w.key, !put,
                           &r->k, err) != 0) {
            if (err != NULL &&
                (strstr(err->msg, "Missing the key ") != NULL ||
                 strstr(err->msg, "Type mismatch for key ") != NULL))
                ddb_err_set(err, DDB_VALIDATION, MSG_KEY_SCHEMA);
            return -1;
        }
        if (put && bt->has_idx &&
            index_check_item(&bt->set, r->w.item, err) != 0)
            return -1;
        if (bw_vector_open(ctx, bt, r, err) != 0)
            return -1;
        for (j = 0; j < i; j++)
            if (key_equal(&r->k, &bt->reqs[j].k))
                return ddb_err_set(err, DDB_VALIDATION, MSG_DUP_KEYS);
    }
    return 0;
}

/* stable_query() callback: sum the rows' sizes. */
static int
collection_sum(void *arg, const struct item_key *k, const json_t *item,
               size_t size, struct ddb_err *err)
{
    (void)k;
    (void)item;
    (void)err;
    *(uint64_t *)arg += size;
    return 0;
}

/*
 * The ItemCollectionMetrics entry for the item collection (partition key)
 * request r wrote to: {"ItemCollectionKey": {pk: value},
 * "SizeEstimateRangeGB": [lo, lo + 1]}, lo the whole gigabytes of the
 * collection: its items in the table plus their rows in every local
 * secondary index (what DynamoDB's estimate counts). New reference, NULL
 * on a storage error (err set).
 */
static json_t *
bw_collection_metrics(const struct bw_table *bt, const struct bw_request *r,
                      struct ddb_err *err)
{
    const char *hash = bt->ot.ks.hash_name;
    uint64_t bytes = 0, gb;
    size_t i;

    if (stable_query(bt->ot.t, r->k.hash, r->k.pk, r->k.pk_len, NULL, true,
                     NULL, 0, collection_sum, &bytes, err) != 0)
        return NULL;
    for (i = 0; i < bt->set.n; i++) {
        const struct index_def *d = &bt->set.idx[i];

        if (!d->global && d->t != NULL &&
            stable_query(d->t, r->k.hash, r->k.pk, r->k.pk_len, NULL, true,
                         NULL, 0, collection_sum, &bytes, err) != 0)
            return NULL;
    }
    gb = bytes >> 30;
    return json_pack("{s:{s:O}, s:[f, f]}", "ItemCollectionKey", hash,
                     json_object_get(r->w.kind == WRITE_PUT ? r->w.item
                                                            : r->w.key,
                                     hash), "SizeEstimateRangeGB",
                     (double)gb, (double)(gb + 1));
}

/* True when the table has a local secondary index. */
static bool
bw_has_lsi(const struct bw_table *bt)
{
    size_t i;

    if (!bt->has_idx)
        return false;
    for (i = 0; i < bt->set.n; i++)
        if (!bt->set.idx[i].global)
            return true;
    return false;
}

/* Perform one table's requests in order, summing their write units (a
 * put: the larger of the old and new item; a delete: the deleted item,
 * at least 1). A request the throttle refuses goes to UnprocessedItems
 * as the client sent it. */
static int
bw_table_write(struct bw_table *bt, json_t *unprocessed, json_t *metrics,
               struct batch_progress *p, struct ddb_err *err)
{
    json_t *list = NULL, *mlist = NULL;
    size_t i;

    for (i = 0; i < bt->nreqs; i++) {
        struct bw_request *r = &bt->reqs[i];
        bool refused = !batch_admit(&bt->ot, &r->k, true,
                                    r->w.kind == WRITE_PUT
                                        ? capacity_write_units(r->w.size)
                                        : 1.0,
                                    p);

        if (!refused && bt->has_idx) {
            double u[INDEX_MAX];
            struct write_gate w;
            size_t j;
            int rc;

            /* GSI back-pressure (throttling.md 5): a GSI partition out of
             * write capacity sends the item to UnprocessedItems. */
            write_gate_init(&w, p->ctx, bt->ot.name, &bt->set, bt->ot.t,
                            &r->k);
            rc = index_mutate_gated(&bt->set, bt->ot.t, &r->k, write_apply,
                                    &r->w, p->ctx != NULL ? write_gate_fn
                                                          : NULL,
                                    &w, u, err);
            if (rc == 0)
                gsi_gate_charge(p->ctx, &w.g);
            if (rc != 0 && !w.throttled) {
                gsi_gate_fini(&w.g);
                batch_charge(p, 0);
                return -1;
            }
            if (rc != 0) {
                gate_release(&p->th);       /* nothing ran: no charge */
                ddb_err_clear(&p->refusal);
                throttle_batch_err(w.g.refused, THROTTLE_WRITE, w.g.cause,
                                   &p->refusal);
                ddb_err_clear(err);
                refused = true;
            }
            gsi_gate_fini(&w.g);
            if (!refused) {
                for (j = 0; j < bt->set.n && j < INDEX_MAX; j++)
                    bt->idx_units[j] += u[j];
            }
        }
        if (refused) {
            p->refused++;
            if (list == NULL) {
                list = json_array();
                json_object_set_new(unprocessed, bt->key, list);
            }
            json_array_append_new(list, json_clone(
                json_array_get(bt->list, i)));
            continue;
        }
        if (bt->has_idx) {
            /* written above */
        } else if (stable_mutate(bt->ot.t, &r->k, write_apply, &r->w,
                                 err) != 0) {
            batch_charge(p, 0);
            return -1;
        }
        p->done++;
        write_vector_done(p->ctx, &r->w, &bt->ot, &r->k);
        bt->units += batch_charge(p, write_units(&r->w));
        if (metrics != NULL) {
            json_t *m = bw_collection_metrics(bt, r, err);

            if (m == NULL)
                return -1;
            if (mlist == NULL) {
                mlist = json_array();
                json_object_set_new(metrics, bt->key, mlist);
            }
            json_array_append_new(mlist, m);
        }
    }
    return 0;
}

/*
 * BatchWriteItem: up to 25 puts and deletes over one or more tables, no
 * two on the same key. Everything is validated, every table resolved and
 * every key checked before the first write. The reply is
 * {"UnprocessedItems": {}} when everything was written (as DynamoDB
 * sends it); the units go to ConsumedCapacity, a list per table.
 * Tables with secondary indexes keep them in step (index_mutate) and
 * report the indexes' units too; ReturnItemCollectionMetrics SIZE lists,
 * per table with a local secondary index, one entry per write performed.
 */
int
api_batch_write_item(struct api_ctx *ctx, const json_t *req, json_t **resp,
                     struct ddb_err *err)
{
    const json_t *ri = json_object_get(req, "RequestItems");
    struct bw_table *tabs = NULL;
    size_t ntabs = 0, i, total = 0;
    json_t *out = NULL, *unprocessed = NULL, *metrics = NULL;
    struct batch_progress p = { 0 };
    const char *ricm = json_string_value(
        json_object_get(req, "ReturnItemCollectionMetrics"));
    bool want_metrics = ricm != NULL && strcmp(ricm, "SIZE") == 0;
    const char *name;
    json_t *list;
    int rc = -1;

    if (batch_begin(ctx, ri, &p, err) != 0)
        return -1;
    /* An empty map, once the framework's checks passed: us-east-1 answers
     * this sentence (paritysuite/dynamodb-conformance
     * captures/2026-10-07-batch-empty-request-items.json, the most recent
     * recording; a few regions give the generic length message). */
    if (json_object_size(ri) == 0)
        return ddb_err_set(err, DDB_VALIDATION, "The requestItems parameter "
                           "is required for BatchWriteItem");
    tabs = xcalloc(json_object_size(ri), sizeof(*tabs));
    json_object_foreach((json_t *)ri, name, list) {
        struct bw_table *bt = &tabs[ntabs++];

        bt->key = name;
        bt->list = json_is_array(list) ? list : NULL;
    }
    for (i = 0; i < ntabs; i++)
        if (bw_table_check(&tabs[i], &total, err) != 0)
            goto out;
    for (i = 0; i < ntabs; i++)
        if (bw_table_resolve(ctx, &tabs[i], err) != 0)
            goto out;
    unprocessed = json_object();
    metrics = json_object();
    for (i = 0; i < ntabs; i++) {
        if (bw_table_write(&tabs[i], unprocessed,
                           want_metrics && bw_has_lsi(&tabs[i]) ? metrics
                                                                : NULL,
                           &p, err) != 0)
            goto out;
        capacity_add(ctx->cap, tabs[i].ot.name, 0, tabs[i].units);
        if (tabs[i].has_idx)
            index_capacity_add(ctx->cap, tabs[i].ot.name, &tabs[i].set,
                               tabs[i].idx_units);
    }
    if (batch_outcome(&p, err) != 0)
        goto out;

    out = json_object();
    json_object_set_new(out, "UnprocessedItems", unprocessed);
    unprocessed = NULL;
    if (json_object_size(metrics) > 0)
        json_object_set(out, "ItemCollectionMetrics", metrics);
    *resp = out;
    out = NULL;
    rc = 0;
out:
    ddb_err_clear(&p.refusal);
    json_decref(metrics);
    json_decref(unprocessed);
    json_decref(out);
    for (i = 0; i < ntabs; i++)
        bw_table_fini(&tabs[i]);
    free(tabs);
    return rc;
}
