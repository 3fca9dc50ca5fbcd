/* SPDX-License-Identifier: MIT */
/* describe.c - the table description: the stored one a CreateTable (or a
 * GSI Create) request makes, the public one clients see (private "_sl"
 * members stripped, its public name, live counts), and DescribeTable and
 * ListTables (the caller's account's tables), which show it. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/rand.h>

#include "api/proto/context.h"
#include "api/index/index.h"
#include "api/tables/tables.h"
#include "api/tables/tables_int.h"
#include "api/throttle/throttle.h"
#include "api/vector/vector.h"
#include "storage/util.h"

#define PARTS_MAX       256u            /* our cap on initial partitions */
#define LIST_LIMIT_MAX  100

/* ------------------------------------------------------------------------
 * Members of a stored description
 * ---------------------------------------------------------------------- */

json_t *
tables_epoch(uint64_t ms)
{
    return json_real((double)(ms / 1000u) + (double)(ms % 1000u) / 1000.0);
}

/* A random (version 4) UUID into out (37 bytes). */
static void
uuid4(char *out)
{
    unsigned char b[16];
    size_t i;

    if (RAND_bytes(b, sizeof(b)) != 1)
        for (i = 0; i < sizeof(b); i++)
            b[i] = (unsigned char)(rand() & 0xff);
    b[6] = (unsigned char)((b[6] & 0x0f) | 0x40);
    b[8] = (unsigned char)((b[8] & 0x3f) | 0x80);
    snprintf(out, 37,
             "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
             "%02x%02x%02x%02x%02x%02x",
             b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9],
             b[10], b[11], b[12], b[13], b[14], b[15]);
}

/* Encryption with a KMS key shows the key's ARN; DynamoDB shows no
 * SSEDescription for the default AWS owned key. */
json_t *
tables_sse_desc(const struct api_ctx *ctx, const json_t *spec)
{
    const char *key;
    char arn[512], id[37];

    if (!json_is_true(json_object_get(spec, "Enabled")))
        return NULL;
    key = tables_str(spec, "KMSMasterKeyId");
    if (key != NULL && strncmp(key, "arn:", 4) == 0) {
        snprintf(arn, sizeof(arn), "%s", key);
    } else if (key != NULL && strncmp(key, "alias/", 6) != 0) {
        snprintf(arn, sizeof(arn), "arn:aws:kms:%s:%s:key/%s",
                 tables_region(ctx), tables_account(ctx), key);
    } else {
        /* The AWS managed key (alias/aws/dynamodb): one key id per
         * account and region would be right; a fresh id is close enough. */
        uuid4(id);
        snprintf(arn, sizeof(arn), "arn:aws:kms:%s:%s:key/%s",
                 tables_region(ctx), tables_account(ctx), id);
    }
    return json_pack("{s:s, s:s, s:s}", "Status", "ENABLED", "SSEType", "KMS",
                     "KMSMasterKeyArn", arn);
}

/* A copy of a KeySchema or AttributeDefinitions list keeping only
 * AttributeName and the member `second` of each element. */
static json_t *
clean_list(const json_t *list, const char *second)
{
    json_t *out = json_array();
    const json_t *el;
    size_t i;

    json_array_foreach(list, i, el)
        json_array_append_new(out, json_pack("{s:O, s:O}", "AttributeName",
                                             json_object_get(el,
                                                             "AttributeName"),
                                             second,
                                             json_object_get(el, second)));
    return out;
}

/* A ProvisionedThroughput description: r/w, no decreases yet. */
static json_t *
throughput_new(long long r, long long w)
{
    return json_pack("{s:I, s:I, s:I}", "NumberOfDecreasesToday",
                     (json_int_t)0, "ReadCapacityUnits", (json_int_t)r,
                     "WriteCapacityUnits", (json_int_t)w);
}

/*
 * ceil(RCU/partition_rcu + WCU/partition_wcu), at least 1 (throttling.md
 * 1), 4 on demand, or more for a warm throughput (its WarmThroughput
 * description) above that; capped. With the server's throttle limits (so
 * --throttle-scale 0.01 makes a 10 WCU partition and a 20 WCU table starts
 * with 2 partitions, the same ceilings splits use) and any "shardlocal:"
 * knobs among tags (a Tags list, borrowed, may be NULL).
 * test_seeds.py test_initial_partitions_scaled shows it.
 */
static unsigned
initial_parts(const struct api_ctx *ctx, const json_t *tags, bool on_demand,
              long long r, long long w, const json_t *warm)
{
    struct throttle_limits lim;
    unsigned n, nw;

    tables_limits(ctx, tags, &lim);
    n = on_demand ? 4 : throttle_limits_partitions(&lim, (double)r,
                                                   (double)w);
    nw = throttle_limits_warm_partitions(
        &lim, on_demand, (double)tables_uint(warm, "ReadUnitsPerSecond"),
        (double)tables_uint(warm, "WriteUnitsPerSecond"));
    if (nw > n)
        n = nw;
    if (n < 1)
        n = 1;
    if (n > PARTS_MAX)
        n = PARTS_MAX;
    return n;
}

/* ------------------------------------------------------------------------
 * Index descriptions
 * ---------------------------------------------------------------------- */

/* The Projection as DynamoDB describes it. New reference. */
json_t *
tables_projection_desc(const json_t *proj)
{
    const json_t *nka = json_object_get(proj, "NonKeyAttributes");
    json_t *out = json_pack("{s:O}", "ProjectionType",
                            json_object_get(proj, "ProjectionType"));

    if (json_is_array(nka))
        json_object_set_new(out, "NonKeyAttributes", json_clone(nka));
    return out;
}

/* A GSI gets its own ProvisionedThroughput (0/0 on demand), WarmThroughput
 * and status; an LSI shares the table's. */
json_t *
tables_index_desc_new(const struct api_ctx *ctx, const char *table,
                      const json_t *idx, bool global, bool on_demand,
                      const char *status, const json_t *tags,
                      unsigned *nparts)
{
    const char *iname = tables_str(idx, "IndexName");
    const json_t *pt = json_object_get(idx, "ProvisionedThroughput");
    struct throttle_limits lim;
    char arn[2400];
    long long r = 0, w = 0;
    json_t *d, *odt, *warm;
    struct ddb_err e;

    api_table_arn(ctx, table, arn, sizeof(arn));
    snprintf(arn + strlen(arn), sizeof(arn) - strlen(arn), "/index/%s",
             iname);
    d = json_pack("{s:s, s:o, s:o}", "IndexName", iname, "KeySchema",
                  clean_list(json_object_get(idx, "KeySchema"), "KeyType"),
                  "Projection",
                  tables_projection_desc(json_object_get(idx, "Projection")));
    *nparts = 1;
    if (global) {
        ddb_err_init(&e);
        if (json_is_object(pt))
            tables_read_throughput(pt, &r, &w, &e);
        ddb_err_clear(&e);
        json_object_set_new(d, "IndexStatus", json_string(status));
        json_object_set_new(d, "ProvisionedThroughput",
                            throughput_new(r, w));
        tables_limits(ctx, tags, &lim);
        warm = tables_warm_new(&lim, json_object_get(idx, "WarmThroughput"),
                               on_demand, r, w);
        json_object_set_new(warm, "Status", json_string(status));
        *nparts = initial_parts(ctx, tags, on_demand, r, w, warm);
        if (on_demand && json_has(idx, "OnDemandThroughput")) {
            ddb_err_init(&e);
            odt = tables_read_on_demand(
                json_object_get(idx, "OnDemandThroughput"), &e);
            ddb_err_clear(&e);
            if (odt != NULL)
                json_object_set_new(d, "OnDemandThroughput", odt);
        }
        json_object_set_new(d, "WarmThroughput", warm);
    }
    json_object_set_new(d, "IndexSizeBytes", json_integer(0));
    json_object_set_new(d, "ItemCount", json_integer(0));
    json_object_set_new(d, "IndexArn", json_string(arn));
    return d;
}

/* Add the GlobalSecondaryIndexes / LocalSecondaryIndexes descriptions of
 * a (checked) CreateTable request to desc; gparts[i] receives GSI i's
 * partition count. */
static void
add_index_descs(const struct api_ctx *ctx, const json_t *req, json_t *desc,
                bool on_demand, unsigned *gparts)
{
    static const char *const lists[2] = { "GlobalSecondaryIndexes",
                                          "LocalSecondaryIndexes" };
    const char *table = tables_str(desc, "TableName");
    const char *status = tables_str(desc, "TableStatus");
    const json_t *idx;
    json_t *out;
    unsigned lp;
    size_t i, j;

    for (i = 0; i < 2; i++) {
        const json_t *list = json_object_get(req, lists[i]);

        if (!json_is_array(list))
            continue;
        out = json_array();
        json_array_foreach(list, j, idx)
            json_array_append_new(out, tables_index_desc_new(
                ctx, table, idx, i == 0, on_demand,
                status != NULL ? status : "ACTIVE",
                json_object_get(req, "Tags"),
                i == 0 && j < INDEX_GSI_MAX ? &gparts[j] : &lp));
        json_object_set_new(desc, lists[i], out);
    }
}

/* ------------------------------------------------------------------------
 * The table's description
 * ---------------------------------------------------------------------- */

/* Members in DynamoDB's order; CREATING for the status delay. */
json_t *
tables_desc_new(const struct api_ctx *ctx, const json_t *req,
                struct tables_create *c, uint64_t now, unsigned *nparts,
                unsigned *gparts)
{
    const char *cls = tables_str(req, "TableClass");
    const json_t *sse = json_object_get(req, "SSESpecification");
    const json_t *tags = json_object_get(req, "Tags");
    const json_t *spec = json_object_get(req, "WarmThroughput");
    struct throttle_limits lim;
    char arn[2048], id[37];
    json_t *desc, *ssed, *warm;

    tables_limits(ctx, tags, &lim);
    warm = tables_warm_new(&lim, spec, c->on_demand, c->r, c->w);
    *nparts = initial_parts(ctx, tags, c->on_demand, c->r, c->w, warm);
    api_table_arn(ctx, c->name, arn, sizeof(arn));
    uuid4(id);
    desc = json_object();
    json_object_set_new(desc, "AttributeDefinitions",
                        clean_list(json_object_get(req, "AttributeDefinitions"),
                                   "AttributeType"));
    json_object_set_new(desc, "TableName", json_string(c->name));
    json_object_set_new(desc, "KeySchema",
                        clean_list(json_object_get(req, "KeySchema"),
                                   "KeyType"));
    json_object_set_new(desc, "TableStatus", json_string("CREATING"));
    json_object_set_new(desc, "CreationDateTime", tables_epoch(now));
    json_object_set_new(desc, "ProvisionedThroughput",
                        throughput_new(c->r, c->w));
    json_object_set_new(desc, "TableSizeBytes", json_integer(0));
    json_object_set_new(desc, "ItemCount", json_integer(0));
    json_object_set_new(desc, "TableArn", json_string(arn));
    json_object_set_new(desc, "TableId", json_string(id));
    if (c->on_demand)
        json_object_set_new(desc, "BillingModeSummary",
                            json_pack("{s:s}", "BillingMode",
                                      "PAY_PER_REQUEST"));
    if (cls != NULL)
        json_object_set_new(desc, "TableClassSummary",
                            json_pack("{s:s}", "TableClass", cls));
    if (json_is_object(sse)) {
        ssed = tables_sse_desc(ctx, sse);
        if (ssed != NULL)
            json_object_set_new(desc, "SSEDescription", ssed);
    }
    json_object_set_new(desc, "DeletionProtectionEnabled",
                        json_boolean(json_is_true(json_object_get(
                            req, "DeletionProtectionEnabled"))));
    if (c->odt != NULL) {
        json_object_set_new(desc, "OnDemandThroughput", c->odt);
        c->odt = NULL;
    }
    json_object_set_new(desc, "WarmThroughput", warm);
    if (json_is_array(tags))
        json_object_set_new(desc, PRIV_TAGS, json_clone(tags));
    if (c->policy != NULL) {
        tables_policy_store(ctx, desc, c->policy);
        c->policy = NULL;
    }
    tables_set_status(ctx, desc, "CREATING", now);
    /* A warm throughput asked for shows UPDATING while the table is
     * created (a catalogue of recorded behaviours, 2026-10-08: "Explicit
     * WarmThroughput at create ... shows Status=UPDATING in the
     * CreateTable response"). */
    if (json_has(spec, "ReadUnitsPerSecond") ||
        json_has(spec, "WriteUnitsPerSecond"))
        if (strcmp(tables_str(desc, "TableStatus"), "CREATING") == 0)
            json_object_set_new(warm, "Status", json_string("UPDATING"));
    add_index_descs(ctx, req, desc, c->on_demand, gparts);
    if (json_has(req, "VectorIndexes"))
        tables_vector_descs_add(ctx, req, desc);
    if (strcmp(tables_str(desc, "TableStatus"), "ACTIVE") == 0 &&
        c->on_demand)
        json_object_set(json_object_get(desc, "BillingModeSummary"),
                        "LastUpdateToPayPerRequestDateTime",
                        json_object_get(desc, "CreationDateTime"));
    return desc;
}

/* ------------------------------------------------------------------------
 * The public description
 * ---------------------------------------------------------------------- */

/*
 * The live ItemCount and size of t (a table's or an index's store) into
 * obj, its description: "TableSizeBytes" after the count for a table,
 * "IndexSizeBytes" before it for an index (the order DescribeTable has
 * always answered with). Nothing is added when the store cannot say.
 */
static void
add_stats(json_t *obj, struct stable *t, bool is_index)
{
    uint64_t count = 0, bytes = 0;
    struct ddb_err e;

    ddb_err_init(&e);
    if (stable_stats(t, &count, &bytes, &e) == 0) {
        if (is_index)
            json_object_set_new(obj, "IndexSizeBytes",
                                json_integer((json_int_t)bytes));
        json_object_set_new(obj, "ItemCount",
                            json_integer((json_int_t)count));
        if (!is_index)
            json_object_set_new(obj, "TableSizeBytes",
                                json_integer((json_int_t)bytes));
    }
    ddb_err_clear(&e);
}

/* Live ItemCount and IndexSizeBytes of every index in out (a public
 * description being built) of the table stored as table. */
static void
index_stats(struct storage *st, json_t *out, const char *table)
{
    static const char *const lists[2] = { "GlobalSecondaryIndexes",
                                          "LocalSecondaryIndexes" };
    char hidden[1200];
    struct stable *it;
    json_t *idx;
    size_t i, j;

    if (st == NULL || table == NULL)
        return;
    for (i = 0; i < 2; i++) {
        json_array_foreach(json_object_get(out, lists[i]), j, idx) {
            const char *iname = tables_str(idx, "IndexName");

            if (iname == NULL)
                continue;
            index_table_name(table, iname, hidden, sizeof(hidden));
            it = storage_table_get(st, hidden);
            if (it == NULL)
                continue;
            add_stats(idx, it, true);
            stable_release(it);
        }
    }
}

/* The stored description less its private members, with the table's
 * public name (context.h: another account's table is stored under
 * "<account>:<name>") and live counts. */
json_t *
tables_public_desc(struct storage *st, struct stable *t, const json_t *desc)
{
    const char *table = tables_str(desc, "TableName");
    json_t *out = json_object();
    const char *key;
    json_t *val;

    json_object_foreach((json_t *)desc, key, val) {
        if (strncmp(key, PRIV_PREFIX, strlen(PRIV_PREFIX)) == 0)
            continue;
        json_object_set_new(out, key, json_clone(val));
    }
    if (table != NULL)
        json_object_set_new(out, "TableName",
                            json_string(api_table_public(table)));
    tables_warm_public(out, desc);
    if (t != NULL) {
        add_stats(out, t, false);
        if (table != NULL)
            index_stats(st, out, table);
    }
    vector_desc_public(NULL, out);
    return out;
}

/* ------------------------------------------------------------------------
 * DescribeTable, ListTables
 * ---------------------------------------------------------------------- */

int
api_describe_table(struct api_ctx *ctx, const json_t *req, json_t **resp,
                   struct ddb_err *err)
{
    const char *param;
    char name[TABLES_NAME_MAX];
    struct stable *t = NULL;
    json_t *desc = NULL, *pub;

    param = tables_req_name(req, err);
    if (param == NULL)
        return -1;
    if (tables_open_named(ctx, param, false, name, sizeof(name), &t, &desc,
                          err) != 0)
        return -1;
    pub = tables_public_desc(ctx->srv->st, t, desc);
    vector_desc_public(ctx->srv, pub);      /* live counts and sizes */
    *resp = json_pack("{s:o}", "Table", pub);
    json_decref(desc);
    stable_release(t);
    return 0;
}

int
api_list_tables(struct api_ctx *ctx, const json_t *req, json_t **resp,
                struct ddb_err *err)
{
    const json_t *lim = json_object_get(req, "Limit");
    const char *start = tables_str(req, "ExclusiveStartTableName");
    json_t *names = NULL, *out = NULL, *el;
    long long limit = LIST_LIMIT_MAX;
    size_t i, total;
    const char *n;
    struct stable *t;
    json_t *desc;
    int o;

    if (lim != NULL && !json_is_null(lim)) {
        if (!json_is_integer(lim))
            return ddb_err_set(err, DDB_SERIALIZATION,
                               "NUMBER_VALUE cannot be converted to Integer");
        limit = (long long)json_integer_value(lim);
        if (limit < 1 || limit > LIST_LIMIT_MAX)
            return ddb_err_set(err, DDB_VALIDATION,
                               "1 validation error detected: Value '%lld' at "
                               "'limit' failed to satisfy constraint: Member "
                               "must have value %s", limit,
                               limit < 1 ? "greater than or equal to 1"
                                         : "less than or equal to 100");
    }
    names = storage_table_names(ctx->srv->st);
    if (names == NULL)
        return ddb_err_set(err, DDB_INTERNAL, "ListTables: storage failed");
    out = json_array();
    total = json_array_size(names);
    for (i = 0; i < total; i++) {
        char buf[13];

        n = json_string_value(json_array_get(names, i));
        /* The caller's account's tables only, by their public names (in
         * the same order: one account's stored names share a prefix). */
        if (n == NULL || index_is_hidden_name(n) ||
            strcmp(api_table_owner(ctx, n, buf), tables_account(ctx)) != 0 ||
            (start != NULL && strcmp(api_table_public(n), start) <= 0))
            continue;
        /* Drop tables whose DELETING period is over. */
        t = NULL;
        desc = NULL;
        o = tables_open_settled(ctx, n, false, &t, &desc, err);
        if (o < 0) {
            json_decref(out);
            json_decref(names);
            return -1;
        }
        if (o > 0)
            continue;
        json_decref(desc);
        stable_release(t);
        if ((long long)json_array_size(out) == limit) {
            /* More remain: the page ends at the last name returned. */
            el = json_array_get(out, json_array_size(out) - 1);
            *resp = json_pack("{s:o, s:O}", "TableNames", out,
                              "LastEvaluatedTableName", el);
            json_decref(names);
            return 0;
        }
        json_array_append_new(out, json_string(api_table_public(n)));
    }
    json_decref(names);
    *resp = json_pack("{s:o}", "TableNames", out);
    return 0;
}
