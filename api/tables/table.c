/* SPDX-License-Identifier: MIT */
/* op_table.c - the control plane: CreateTable, DescribeTable, ListTables,
 * UpdateTable and DeleteTable, plus table ARNs and api_open_table(), which
 * every data operation uses to resolve TableName (name or ARN) to a table.
 * The stored description is DynamoDB's TableDescription plus a few private
 * "_sl" bookkeeping members that never leave this file. */
#include <ctype.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/rand.h>

#include "api/proto/context.h"
#include "api/index/index.h"
#include "api/ops/common.h"
#include "api/tables/tables.h"
#include "storage/util.h"

/* Private members of a stored description (stripped before replying). */
#define PRIV_PREFIX     "_sl"
#define PRIV_UNTIL      "_slUntilMs"    /* end of CREATING/UPDATING/DELETING */
#define PRIV_TAGS       "_slTags"       /* Tags given to CreateTable */

/* Limits DynamoDB applies after the request shape checks. */
#define THROUGHPUT_MAX  1000000000000LL /* "Given value ... is out of bounds" */
#define PARTS_MAX       256u            /* our cap on initial partitions */
#define LIST_LIMIT_MAX  100

/* Serialises read-modify-write of descriptions (DDL and lazy status
 * transitions). Data operations only read, and take it only when a
 * transition has to be written. */
static pthread_mutex_t ddl_lock = PTHREAD_MUTEX_INITIALIZER;

/* ddl_lock for a description read-modify-write done outside this file
 * (UpdateContributorInsights): without it, such a write could put back a
 * stale description over a concurrent UpdateTable's. Not recursive: never
 * call api_open_table*() while holding it. */
void
api_ddl_lock(void)
{
    pthread_mutex_lock(&ddl_lock);
}

void
api_ddl_unlock(void)
{
    pthread_mutex_unlock(&ddl_lock);
}

/* ------------------------------------------------------------------------
 * Small helpers
 * ---------------------------------------------------------------------- */

static uint64_t
req_now_ms(const struct api_ctx *ctx)
{
    return ctx->now_ms != 0 ? ctx->now_ms : wall_ms();
}

/* Epoch seconds with a fraction, as DynamoDB sends CreationDateTime. */
static json_t *
epoch_json(uint64_t ms)
{
    return json_real((double)(ms / 1000u) + (double)(ms % 1000u) / 1000.0);
}

static const char *
region_of(const struct api_ctx *ctx)
{
    if (ctx->region != NULL && ctx->region[0] != '\0')
        return ctx->region;
    if (ctx->srv != NULL && ctx->srv->conf != NULL &&
        ctx->srv->conf->default_region[0] != '\0')
        return ctx->srv->conf->default_region;
    return "us-east-1";
}

static const char *
account_of(const struct api_ctx *ctx)
{
    if (ctx->srv != NULL && ctx->srv->conf != NULL &&
        ctx->srv->conf->account_id[0] != '\0')
        return ctx->srv->conf->account_id;
    return "000000000000";
}

static unsigned
status_delay(const struct api_ctx *ctx)
{
    if (ctx->srv != NULL && ctx->srv->conf != NULL)
        return ctx->srv->conf->status_delay_ms;
    return 0;
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

void
api_table_arn(const struct api_ctx *ctx, const char *table, char *out,
              size_t outsz)
{
    snprintf(out, outsz, "arn:aws:dynamodb:%s:%s:table/%s", region_of(ctx),
             account_of(ctx), table);
}

/*
 * The table name a TableName parameter refers to: the value itself, or the
 * name part of a table ARN (arn:<partition>:dynamodb:<region>:<account>:
 * table/<name>). Writes into out (outsz bytes). Returns false when the
 * value looks like an ARN but is not a table ARN of this account.
 */
static bool
name_from_param(const struct api_ctx *ctx, const char *param, char *out,
                size_t outsz)
{
    const char *p, *acct_end, *acct;
    int field;

    if (strncmp(param, "arn:", 4) != 0) {
        snprintf(out, outsz, "%s", param);
        return strlen(param) < outsz;
    }
    /* Skip arn, partition, service, region: the account starts after the
     * fourth colon. */
    p = param;
    for (field = 0; field < 4; field++) {
        p = strchr(p, ':');
        if (p == NULL)
            return false;
        p++;
    }
    if (strncmp(param, "arn:aws", 7) != 0 ||
        strstr(param, ":dynamodb:") == NULL)
        return false;
    acct = p;
    acct_end = strchr(acct, ':');
    if (acct_end == NULL || strncmp(acct_end + 1, "table/", 6) != 0)
        return false;
    if ((size_t)(acct_end - acct) != strlen(account_of(ctx)) ||
        strncmp(acct, account_of(ctx), (size_t)(acct_end - acct)) != 0)
        return false;
    p = acct_end + 7;
    if (*p == '\0' || strchr(p, '/') != NULL || strlen(p) >= outsz)
        return false;
    snprintf(out, outsz, "%s", p);
    return true;
}

/* TableName of req as a string, or NULL with a ValidationException. */
static const char *
req_table_name(const json_t *req, struct ddb_err *err)
{
    const char *name = json_string_value(json_object_get(req, "TableName"));

    if (name == NULL)
        ddb_err_set(err, DDB_VALIDATION,
                    "1 validation error detected: Value null at 'tableName' "
                    "failed to satisfy constraint: Member must not be null");
    return name;
}

static const char *
desc_str(const json_t *desc, const char *key)
{
    return json_string_value(json_object_get(desc, key));
}

static const char *
billing_mode_of(const json_t *desc)
{
    const char *m = json_string_value(
        json_object_get(json_object_get(desc, "BillingModeSummary"),
                        "BillingMode"));

    return m != NULL ? m : "PROVISIONED";
}

/* A non-negative integer member (throughput values), or -1. */
static long long
int_member(const json_t *obj, const char *key)
{
    const json_t *v = json_object_get(obj, key);

    if (!json_is_integer(v))
        return -1;
    return (long long)json_integer_value(v);
}

/* ------------------------------------------------------------------------
 * Status transitions, computed lazily from PRIV_UNTIL (no timers)
 * ---------------------------------------------------------------------- */

enum settle_result { SETTLE_SAME, SETTLE_CHANGED, SETTLE_GONE };

/* Drop AttributeDefinitions no key uses any more (after a GSI is gone):
 * DynamoDB describes only the key attributes of the table and its
 * indexes. */
static void
prune_defs(json_t *desc)
{
    static const char *const lists[2] = { "GlobalSecondaryIndexes",
                                          "LocalSecondaryIndexes" };
    json_t *defs = json_object_get(desc, "AttributeDefinitions");
    const json_t *ks, *el, *idx;
    size_t i, j, k, l;
    bool used;

    for (i = 0; i < json_array_size(defs);) {
        const json_t *n = json_object_get(json_array_get(defs, i),
                                          "AttributeName");

        used = false;
        json_array_foreach(json_object_get(desc, "KeySchema"), j, el)
            used |= json_equal(json_object_get(el, "AttributeName"),
                               (json_t *)n);
        for (k = 0; k < 2; k++)
            json_array_foreach(json_object_get(desc, lists[k]), l, idx) {
                ks = json_object_get(idx, "KeySchema");
                json_array_foreach(ks, j, el)
                    used |= json_equal(json_object_get(el, "AttributeName"),
                                       (json_t *)n);
            }
        if (used)
            i++;
        else
            json_array_remove(defs, i);
    }
}

/* The end of a table transition also ends its GSIs' ones: CREATING and
 * UPDATING indexes become ACTIVE (backfill over), DELETING ones go. */
static void
settle_indexes(json_t *desc)
{
    json_t *gsis = json_object_get(desc, "GlobalSecondaryIndexes");
    json_t *g, *wt;
    const char *st;
    size_t i;

    for (i = 0; i < json_array_size(gsis);) {
        g = json_array_get(gsis, i);
        st = json_string_value(json_object_get(g, "IndexStatus"));
        if (st != NULL && strcmp(st, "DELETING") == 0) {
            json_array_remove(gsis, i);
            continue;
        }
        json_object_set_new(g, "IndexStatus", json_string("ACTIVE"));
        json_object_del(g, "Backfilling");
        wt = json_object_get(g, "WarmThroughput");
        if (json_is_object(wt))
            json_object_set_new(wt, "Status", json_string("ACTIVE"));
        i++;
    }
    if (gsis != NULL && json_array_size(gsis) == 0)
        json_object_del(desc, "GlobalSecondaryIndexes");
    prune_defs(desc);
}

/*
 * Apply the transition that is due at now_ms to desc (modified in place):
 * CREATING/UPDATING become ACTIVE, DELETING means the table is gone.
 */
static enum settle_result
settle_desc(json_t *desc, uint64_t now_ms)
{
    const char *status = desc_str(desc, "TableStatus");
    json_t *until = json_object_get(desc, PRIV_UNTIL);
    json_t *bms, *wt;

    if (status == NULL || !json_is_integer(until) ||
        (uint64_t)json_integer_value(until) > now_ms)
        return SETTLE_SAME;
    if (strcmp(status, "DELETING") == 0)
        return SETTLE_GONE;
    if (strcmp(status, "CREATING") == 0) {
        /* DynamoDB stamps an on-demand table's billing summary once the
         * table is ACTIVE, with the creation time. */
        bms = json_object_get(desc, "BillingModeSummary");
        if (json_is_object(bms) &&
            json_object_get(bms, "LastUpdateToPayPerRequestDateTime") == NULL)
            json_object_set(bms, "LastUpdateToPayPerRequestDateTime",
                            json_object_get(desc, "CreationDateTime"));
    }
    json_object_set_new(desc, "TableStatus", json_string("ACTIVE"));
    wt = json_object_get(desc, "WarmThroughput");
    if (json_is_object(wt))
        json_object_set_new(wt, "Status", json_string("ACTIVE"));
    json_object_del(desc, PRIV_UNTIL);
    settle_indexes(desc);
    return SETTLE_CHANGED;
}

/*
 * Open table `name` and return its settled description (a new reference)
 * in *desc and the handle in *t. Writes a due transition back, or deletes
 * the table when its DELETING period is over. Returns 0, or 1 when the
 * table does not exist (nothing returned, err untouched), or -1 on error.
 * With have_lock the caller already holds ddl_lock.
 */
static int
open_settled(struct api_ctx *ctx, const char *name, bool have_lock,
             struct stable **t, json_t **desc, struct ddb_err *err)
{
    struct storage *st = ctx->srv->st;
    struct stable *tab;
    json_t *d;
    enum settle_result r;
    int rc = -1;

    tab = storage_table_get(st, name);
    if (tab == NULL)
        return 1;
    d = stable_desc(tab);
    if (d == NULL) {
        stable_release(tab);
        return 1;
    }
    r = settle_desc(d, req_now_ms(ctx));
    if (r == SETTLE_SAME) {
        *t = tab;
        *desc = d;
        return 0;
    }
    /* A transition is due: redo it under the lock on a fresh copy. */
    json_decref(d);
    d = NULL;
    stable_release(tab);
    tab = NULL;
    if (!have_lock)
        pthread_mutex_lock(&ddl_lock);
    tab = storage_table_get(st, name);
    if (tab == NULL) {
        rc = 1;
        goto out;
    }
    d = stable_desc(tab);
    if (d == NULL) {
        rc = 1;
        goto out;
    }
    r = settle_desc(d, req_now_ms(ctx));
    if (r == SETTLE_GONE) {
        stable_release(tab);
        tab = NULL;
        if (storage_table_delete(st, name, err) != 0 &&
            err != NULL && err->type != DDB_OK && err->type != DDB_RESOURCE_NOT_FOUND)
            goto out;
        if (err != NULL)
            ddb_err_clear(err);
        index_drop_all(st, name);
        gate_table_dropped(ctx, name);
        rc = 1;
        goto out;
    }
    if (r == SETTLE_CHANGED && stable_set_desc(tab, d, err) != 0)
        goto out;
    *t = tab;
    *desc = d;
    tab = NULL;
    d = NULL;
    rc = 0;
out:
    if (!have_lock)
        pthread_mutex_unlock(&ddl_lock);
    json_decref(d);
    if (tab != NULL)
        stable_release(tab);
    return rc;
}

/*
 * The description as clients see it: private members removed, ItemCount
 * and TableSizeBytes live from storage (when t is given). New reference.
 */
/* Live ItemCount and IndexSizeBytes of every index in out (a public
 * description being built). */
static void
index_stats(struct storage *st, json_t *out)
{
    static const char *const lists[2] = { "GlobalSecondaryIndexes",
                                          "LocalSecondaryIndexes" };
    const char *table = desc_str(out, "TableName");
    char hidden[1200];
    struct stable *it;
    struct ddb_err e;
    uint64_t count, bytes;
    json_t *idx;
    size_t i, j;

    if (st == NULL || table == NULL)
        return;
    ddb_err_init(&e);
    for (i = 0; i < 2; i++) {
        json_array_foreach(json_object_get(out, lists[i]), j, idx) {
            const char *iname = desc_str(idx, "IndexName");

            if (iname == NULL)
                continue;
            index_table_name(table, iname, hidden, sizeof(hidden));
            it = storage_table_get(st, hidden);
            if (it == NULL)
                continue;
            count = bytes = 0;
            if (stable_stats(it, &count, &bytes, &e) == 0) {
                json_object_set_new(idx, "IndexSizeBytes",
                                    json_integer((json_int_t)bytes));
                json_object_set_new(idx, "ItemCount",
                                    json_integer((json_int_t)count));
            }
            ddb_err_clear(&e);
            stable_release(it);
        }
    }
}

static json_t *
public_desc(struct storage *st, struct stable *t, const json_t *desc)
{
    json_t *out = json_object();
    const char *key;
    json_t *val;
    uint64_t count = 0, bytes = 0;
    struct ddb_err e;

    json_object_foreach((json_t *)desc, key, val) {
        if (strncmp(key, PRIV_PREFIX, strlen(PRIV_PREFIX)) == 0)
            continue;
        json_object_set_new(out, key, json_deep_copy(val));
    }
    if (t != NULL) {
        ddb_err_init(&e);
        if (stable_stats(t, &count, &bytes, &e) == 0) {
            json_object_set_new(out, "ItemCount",
                                json_integer((json_int_t)count));
            json_object_set_new(out, "TableSizeBytes",
                                json_integer((json_int_t)bytes));
        }
        ddb_err_clear(&e);
        index_stats(st, out);
    }
    return out;
}

static int
not_found_named(const char *param, struct ddb_err *err)
{
    return ddb_err_set(err, DDB_RESOURCE_NOT_FOUND,
                       "Requested resource not found: Table: %s not found",
                       param);
}

/* ResourceInUseException for a table in a transitional status, or 0. */
static int
check_in_use(const json_t *desc, const char *name, struct ddb_err *err)
{
    const char *status = desc_str(desc, "TableStatus");
    const char *what = NULL;

    if (status == NULL)
        return 0;
    if (strcmp(status, "CREATING") == 0)
        what = "created";
    else if (strcmp(status, "UPDATING") == 0)
        what = "updated";
    else if (strcmp(status, "DELETING") == 0)
        what = "deleted";
    if (what == NULL)
        return 0;
    return ddb_err_set(err, DDB_RESOURCE_IN_USE,
                       "Attempt to change a resource which is still in use: "
                       "Table is being %s: %s", what, name);
}

/* Enter a transitional status for status_delay_ms, or go straight to
 * ACTIVE when the delay is 0 (transitional is then only CREATING/UPDATING;
 * DELETING is handled by the caller). */
static void
set_status(struct api_ctx *ctx, json_t *desc, const char *transitional,
           uint64_t now)
{
    unsigned delay = status_delay(ctx);
    json_t *wt = json_object_get(desc, "WarmThroughput");

    if (delay == 0) {
        json_object_set_new(desc, "TableStatus", json_string("ACTIVE"));
        json_object_del(desc, PRIV_UNTIL);
        return;
    }
    json_object_set_new(desc, "TableStatus", json_string(transitional));
    json_object_set_new(desc, PRIV_UNTIL,
                        json_integer((json_int_t)(now + delay)));
    if (json_is_object(wt) && strcmp(transitional, "CREATING") == 0)
        json_object_set_new(wt, "Status", json_string("CREATING"));
}

/* ------------------------------------------------------------------------
 * CreateTable
 * ---------------------------------------------------------------------- */

/* "[a, b]" from the AttributeName members of a list of objects. */
static void
join_names(const json_t *list, char *out, size_t outsz)
{
    size_t i, len = 0;
    const json_t *el;
    const char *n;

    len += (size_t)snprintf(out, outsz, "[");
    json_array_foreach(list, i, el) {
        n = json_string_value(json_object_get(el, "AttributeName"));
        if (len < outsz)
            len += (size_t)snprintf(out + len, outsz - len, "%s%s",
                                    i ? ", " : "", n ? n : "null");
    }
    if (len < outsz)
        snprintf(out + len, outsz - len, "]");
}

static bool
list_has_name(const json_t *list, const char *name)
{
    size_t i;
    const json_t *el;
    const char *n;

    json_array_foreach(list, i, el) {
        n = json_string_value(json_object_get(el, "AttributeName"));
        if (n != NULL && strcmp(n, name) == 0)
            return true;
    }
    return false;
}

/*
 * Check KeySchema against AttributeDefinitions in the order DynamoDB does,
 * with its messages. Only the table's own key schema: requests with
 * secondary indexes were rejected before.
 */
static int
check_key_schema(const json_t *ks, const json_t *defs, bool has_indexes,
                 struct ddb_err *err)
{
    char kbuf[1024], dbuf[1024];
    size_t i, j, nk, nd;
    const json_t *el;
    const char *n, *n2, *kt;

    if (!json_is_array(ks) || !json_is_array(defs))
        return ddb_err_set(err, DDB_VALIDATION,
                           "1 validation error detected: Value null at "
                           "'%s' failed to satisfy constraint: Member must "
                           "not be null",
                           json_is_array(ks) ? "attributeDefinitions"
                                             : "keySchema");
    nk = json_array_size(ks);
    nd = json_array_size(defs);
    if (nk < 1 || nk > 2)
        return ddb_err_set(err, DDB_VALIDATION,
                           "1 validation error detected: Value '%s' at "
                           "'keySchema' failed to satisfy constraint: Member "
                           "must have length %s",
                           nk ? "[...]" : "[]",
                           nk ? "less than or equal to 2"
                              : "greater than or equal to 1");
    json_array_foreach(ks, i, el) {
        if (json_string_value(json_object_get(el, "AttributeName")) == NULL ||
            json_string_value(json_object_get(el, "KeyType")) == NULL)
            return ddb_err_set(err, DDB_VALIDATION,
                               "1 validation error detected: Value null at "
                               "'keySchema.%zu.member.%s' failed to satisfy "
                               "constraint: Member must not be null", i + 1,
                               json_object_get(el, "AttributeName")
                                   ? "keyType" : "attributeName");
    }
    json_array_foreach(defs, i, el) {
        n = json_string_value(json_object_get(el, "AttributeName"));
        kt = json_string_value(json_object_get(el, "AttributeType"));
        if (n == NULL || kt == NULL)
            return ddb_err_set(err, DDB_VALIDATION,
                               "1 validation error detected: Value null at "
                               "'attributeDefinitions.%zu.member.%s' failed "
                               "to satisfy constraint: Member must not be "
                               "null", i + 1,
                               n ? "attributeType" : "attributeName");
        for (j = 0; j < i; j++) {
            n2 = json_string_value(
                json_object_get(json_array_get(defs, j), "AttributeName"));
            if (n2 != NULL && strcmp(n, n2) == 0)
                return ddb_err_set(err, DDB_VALIDATION,
                                   "Attribute Name is duplicated: %s", n);
        }
    }
    if (nk > nd)
        return ddb_err_set(err, DDB_VALIDATION,
                           "Invalid KeySchema: Some index key attribute have "
                           "no definition");
    json_array_foreach(ks, i, el) {
        n = json_string_value(json_object_get(el, "AttributeName"));
        if (!list_has_name(defs, n)) {
            join_names(ks, kbuf, sizeof(kbuf));
            join_names(defs, dbuf, sizeof(dbuf));
            return ddb_err_set(err, DDB_VALIDATION,
                               "One or more parameter values were invalid: "
                               "Some index key attributes are not defined in "
                               "AttributeDefinitions. Keys: %s, "
                               "AttributeDefinitions: %s", kbuf, dbuf);
        }
    }
    if (nk == 2 &&
        strcmp(json_string_value(json_object_get(json_array_get(ks, 0),
                                                 "AttributeName")),
               json_string_value(json_object_get(json_array_get(ks, 1),
                                                 "AttributeName"))) == 0)
        return ddb_err_set(err, DDB_VALIDATION,
                           "Both the Hash Key and the Range Key element in "
                           "the KeySchema have the same name");
    if (strcmp(json_string_value(json_object_get(json_array_get(ks, 0),
                                                 "KeyType")), "HASH") != 0)
        return ddb_err_set(err, DDB_VALIDATION,
                           "Invalid KeySchema: The first KeySchemaElement is "
                           "not a HASH key type");
    if (nk == 2 &&
        strcmp(json_string_value(json_object_get(json_array_get(ks, 1),
                                                 "KeyType")), "RANGE") != 0)
        return ddb_err_set(err, DDB_VALIDATION,
                           "Invalid KeySchema: The second KeySchemaElement "
                           "is not a RANGE key type");
    if (nk != nd && !has_indexes)
        return ddb_err_set(err, DDB_VALIDATION,
                           "One or more parameter values were invalid: "
                           "Number of attributes in KeySchema does not "
                           "exactly match number of attributes defined in "
                           "AttributeDefinitions");
    json_array_foreach(defs, i, el) {
        kt = json_string_value(json_object_get(el, "AttributeType"));
        if (strcmp(kt, "S") != 0 && strcmp(kt, "N") != 0 &&
            strcmp(kt, "B") != 0)
            return ddb_err_set(err, DDB_VALIDATION,
                               "1 validation error detected: Value '%s' at "
                               "'attributeDefinitions.%zu.member."
                               "attributeType' failed to satisfy constraint: "
                               "Member must satisfy enum value set: [B, N, S]",
                               kt, i + 1);
    }
    return 0;
}

/*
 * ReadCapacityUnits/WriteCapacityUnits of a ProvisionedThroughput object
 * into *r and *w, with DynamoDB's range messages (the shape checks are
 * repeated defensively in case a request reaches us unvalidated).
 */
static int
read_throughput(const json_t *pt, long long *r, long long *w,
                struct ddb_err *err)
{
    static const char *const names[2] = { "ReadCapacityUnits",
                                          "WriteCapacityUnits" };
    static const char *const paths[2] = { "readCapacityUnits",
                                          "writeCapacityUnits" };
    long long v[2];
    int i;

    for (i = 0; i < 2; i++) {
        const json_t *j = json_object_get(pt, names[i]);

        if (j == NULL || json_is_null(j))
            return ddb_err_set(err, DDB_VALIDATION,
                               "1 validation error detected: Value null at "
                               "'provisionedThroughput.%s' failed to satisfy "
                               "constraint: Member must not be null",
                               paths[i]);
        if (!json_is_integer(j))
            return ddb_err_set(err, DDB_SERIALIZATION,
                               "NUMBER_VALUE cannot be converted to Long");
        v[i] = (long long)json_integer_value(j);
        if (v[i] < 1)
            return ddb_err_set(err, DDB_VALIDATION,
                               "1 validation error detected: Value '%lld' at "
                               "'provisionedThroughput.%s' failed to satisfy "
                               "constraint: Member must have value greater "
                               "than or equal to 1", v[i], paths[i]);
    }
    for (i = 0; i < 2; i++)
        if (v[i] > THROUGHPUT_MAX)
            return ddb_err_set(err, DDB_VALIDATION,
                               "Given value %lld for %s is out of bounds",
                               v[i], names[i]);
    *r = v[0];
    *w = v[1];
    return 0;
}

/* OnDemandThroughput {MaxReadRequestUnits, MaxWriteRequestUnits}: each
 * absent, -1 (no limit) or >= 1. Returns a new object to store, or NULL
 * with err set. */
static json_t *
read_on_demand(const json_t *odt, struct ddb_err *err)
{
    static const char *const names[2] = { "MaxReadRequestUnits",
                                          "MaxWriteRequestUnits" };
    json_t *out = json_object();
    int i;

    for (i = 0; i < 2; i++) {
        const json_t *j = json_object_get(odt, names[i]);
        long long v;

        if (j == NULL || json_is_null(j)) {
            json_object_set_new(out, names[i], json_integer(-1));
            continue;
        }
        if (!json_is_integer(j)) {
            json_decref(out);
            ddb_err_set(err, DDB_SERIALIZATION,
                        "NUMBER_VALUE cannot be converted to Long");
            return NULL;
        }
        v = (long long)json_integer_value(j);
        if (v == 0 || v < -1 || v > THROUGHPUT_MAX) {
            json_decref(out);
            ddb_err_set(err, DDB_VALIDATION,
                        "One or more parameter values were invalid: "
                        "%s must be -1 or a positive value, got %lld",
                        names[i], v);
            return NULL;
        }
        json_object_set_new(out, names[i], json_integer((json_int_t)v));
    }
    return out;
}

/* Features that belong to later work: a ValidationException rather than
 * silently ignoring them. Returns 0 when none is present. */
static int
reject_unsupported(const json_t *req, const char *op, struct ddb_err *err)
{
    static const char *const members[] = {
        "ResourcePolicy", "WarmThroughput", "ReplicaUpdates",
        "MultiRegionConsistency",
        "GlobalTableWitnessUpdates",
    };
    const json_t *ss = json_object_get(req, "StreamSpecification");
    size_t i;

    for (i = 0; i < sizeof(members) / sizeof(members[0]); i++) {
        const json_t *v = json_object_get(req, members[i]);

        if (v == NULL || json_is_null(v))
            continue;
        return ddb_err_set(err, DDB_VALIDATION,
                           "One or more parameter values were invalid: "
                           "%s is not supported by shardlocal yet (%s)",
                           members[i], op);
    }
    if (ss != NULL && !json_is_null(ss) &&
        json_is_true(json_object_get(ss, "StreamEnabled")))
        return ddb_err_set(err, DDB_VALIDATION,
                           "One or more parameter values were invalid: "
                           "StreamSpecification is not supported by "
                           "shardlocal yet (%s)", op);
    return 0;
}

/* SSEDescription for an SSESpecification that enables encryption with a
 * KMS key (DynamoDB shows none for the default AWS owned key). New
 * reference, or NULL when there is nothing to show. */
static json_t *
sse_description(const struct api_ctx *ctx, const json_t *spec)
{
    const char *key;
    char arn[512], id[37];

    if (!json_is_true(json_object_get(spec, "Enabled")))
        return NULL;
    key = json_string_value(json_object_get(spec, "KMSMasterKeyId"));
    if (key != NULL && strncmp(key, "arn:", 4) == 0) {
        snprintf(arn, sizeof(arn), "%s", key);
    } else if (key != NULL && strncmp(key, "alias/", 6) != 0) {
        snprintf(arn, sizeof(arn), "arn:aws:kms:%s:%s:key/%s",
                 region_of(ctx), account_of(ctx), key);
    } else {
        /* The AWS managed key (alias/aws/dynamodb): one key id per
         * account and region would be right; a fresh id is close enough. */
        uuid4(id);
        snprintf(arn, sizeof(arn), "arn:aws:kms:%s:%s:key/%s",
                 region_of(ctx), account_of(ctx), id);
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

/*
 * ceil(RCU/partition_rcu + WCU/partition_wcu), at least 1 (throttling.md
 * 1), capped: with the server's throttle limits (so --throttle-scale 0.01
 * makes a 10 WCU partition and a 20 WCU table starts with 2 partitions,
 * the same ceilings splits use) and any "shardlocal:" knobs among tags
 * (a Tags list, borrowed, may be NULL). test_seeds.py
 * test_initial_partitions_scaled shows it.
 */
static unsigned
initial_parts(const struct api_ctx *ctx, const json_t *tags, bool on_demand,
              long long r, long long w)
{
    struct throttle_limits lim;
    unsigned n;

    if (on_demand)
        return 4;
    if (ctx->srv != NULL && ctx->srv->throttle != NULL)
        throttle_registry_limits(ctx->srv->throttle, &lim);
    else
        throttle_limits_default(&lim);
    throttle_limits_apply_tags(&lim, tags);
    n = throttle_limits_partitions(&lim, (double)r, (double)w);
    if (n < 1)
        n = 1;
    if (n > PARTS_MAX)
        n = PARTS_MAX;
    return n;
}

/* WarmThroughput as DynamoDB shows it: what the partitions serve at once. */
static json_t *
warm_json(unsigned nparts, const char *status)
{
    return json_pack("{s:I, s:I, s:s}", "ReadUnitsPerSecond",
                     (json_int_t)nparts * 3000, "WriteUnitsPerSecond",
                     (json_int_t)nparts * 1000, "Status", status);
}

/* ------------------------------------------------------------------------
 * Secondary indexes in CreateTable (and UpdateTable's Create)
 * ---------------------------------------------------------------------- */

#define PROJECTED_MAX   100             /* NonKeyAttributes, all indexes */

static bool
member_present(const json_t *obj, const char *key)
{
    const json_t *v = json_object_get(obj, key);

    return v != NULL && !json_is_null(v);
}

static bool
str_is(const json_t *v, const char *s)
{
    const char *t = json_string_value(v);

    return t != NULL && strcmp(t, s) == 0;
}

static bool
req_has_indexes(const json_t *req)
{
    return member_present(req, "GlobalSecondaryIndexes") ||
           member_present(req, "LocalSecondaryIndexes");
}

/* The AttributeName of element i of a KeySchema, or NULL. */
static const char *
key_name(const json_t *ks, size_t i)
{
    return json_string_value(json_object_get(json_array_get(ks, i),
                                             "AttributeName"));
}

/*
 * A multi-attribute GSI key (more than one HASH or RANGE attribute; only
 * GSIs get here, LSI KeySchemas are at most 2 long): up to 4 HASH
 * attributes, then up to 4 RANGE attributes, no name twice. The first
 * element is already known to be HASH. These messages are our wording:
 * DynamoDB's for these cases are not recorded yet.
 */
static int
check_multi_key(const json_t *ks, struct ddb_err *err)
{
    size_t i, j, nhash = 0, nrange = 0;

    for (i = 0; i < json_array_size(ks); i++) {
        const json_t *kt = json_object_get(json_array_get(ks, i), "KeyType");

        for (j = 0; j < i; j++)
            if (key_name(ks, i) != NULL && key_name(ks, j) != NULL &&
                strcmp(key_name(ks, i), key_name(ks, j)) == 0)
                return ddb_err_set(err, DDB_VALIDATION,
                                   "Invalid KeySchema: Duplicate key "
                                   "attribute name %s in KeySchema",
                                   key_name(ks, i));
        if (str_is(kt, "HASH")) {
            if (nrange > 0)
                return ddb_err_set(err, DDB_VALIDATION,
                                   "Invalid KeySchema: HASH key attributes "
                                   "must be listed before RANGE key "
                                   "attributes");
            nhash++;
        } else if (str_is(kt, "RANGE")) {
            nrange++;
        } else {
            return ddb_err_set(err, DDB_VALIDATION,
                               "Invalid KeySchema: KeySchemaElement %zu is "
                               "not a HASH or RANGE key type", i + 1);
        }
    }
    if (nhash > INDEX_KEY_ATTRS_MAX)
        return ddb_err_set(err, DDB_VALIDATION,
                           "Invalid KeySchema: A global secondary index key "
                           "can have at most %d HASH key attributes",
                           INDEX_KEY_ATTRS_MAX);
    if (nrange > INDEX_KEY_ATTRS_MAX)
        return ddb_err_set(err, DDB_VALIDATION,
                           "Invalid KeySchema: A global secondary index key "
                           "can have at most %d RANGE key attributes",
                           INDEX_KEY_ATTRS_MAX);
    return 0;
}

/*
 * One index's KeySchema and Projection, in DynamoDB's order (dynalite
 * validations/createTable.js, which records its messages).
 */
static int
check_index_shape(const json_t *idx, const json_t *defs, bool global,
                  struct ddb_err *err)
{
    const json_t *ks = json_object_get(idx, "KeySchema");
    char kbuf[1024], dbuf[1024];
    const json_t *el;
    size_t i;

    json_array_foreach(ks, i, el) {
        const char *n = json_string_value(json_object_get(el,
                                                          "AttributeName"));

        if (n == NULL || !list_has_name(defs, n)) {
            join_names(ks, kbuf, sizeof(kbuf));
            join_names(defs, dbuf, sizeof(dbuf));
            return ddb_err_set(err, DDB_VALIDATION,
                               "One or more parameter values were invalid: "
                               "Some index key attributes are not defined in "
                               "AttributeDefinitions. Keys: %s, "
                               "AttributeDefinitions: %s", kbuf, dbuf);
        }
    }
    if (json_array_size(ks) == 2 && key_name(ks, 0) != NULL &&
        key_name(ks, 1) != NULL && strcmp(key_name(ks, 0), key_name(ks, 1))
        == 0)
        return ddb_err_set(err, DDB_VALIDATION,
                           "Both the Hash Key and the Range Key element in "
                           "the KeySchema have the same name");
    if (!str_is(json_object_get(json_array_get(ks, 0), "KeyType"), "HASH"))
        return ddb_err_set(err, DDB_VALIDATION,
                           "Invalid KeySchema: The first KeySchemaElement is "
                           "not a HASH key type");
    if (global && (json_array_size(ks) > 2 ||
        (json_array_size(ks) == 2 &&
         str_is(json_object_get(json_array_get(ks, 1), "KeyType"), "HASH"))))
        return check_multi_key(ks, err);
    if (json_array_size(ks) == 2 &&
        !str_is(json_object_get(json_array_get(ks, 1), "KeyType"), "RANGE"))
        return ddb_err_set(err, DDB_VALIDATION,
                           "Invalid KeySchema: The second KeySchemaElement "
                           "is not a RANGE key type");
    return 0;
}

/* The Projection rules (after the LSI-only key checks). */
static int
check_projection(const json_t *idx, struct ddb_err *err)
{
    const json_t *proj = json_object_get(idx, "Projection");
    const json_t *nka = json_object_get(proj, "NonKeyAttributes");
    const char *pt = json_string_value(json_object_get(proj,
                                                       "ProjectionType"));
    const json_t *a, *b;
    size_t i, j;

    if (pt == NULL)
        return ddb_err_set(err, DDB_VALIDATION,
                           "One or more parameter values were invalid: "
                           "Unknown ProjectionType: null");
    if (json_is_null(nka))
        nka = NULL;
    if (nka != NULL && strcmp(pt, "INCLUDE") != 0)
        return ddb_err_set(err, DDB_VALIDATION,
                           "One or more parameter values were invalid: "
                           "ProjectionType is %s, but NonKeyAttributes is "
                           "specified", pt);
    if (nka == NULL && strcmp(pt, "INCLUDE") == 0)
        return ddb_err_set(err, DDB_VALIDATION,
                           "One or more parameter values were invalid: "
                           "ProjectionType is INCLUDE, but NonKeyAttributes "
                           "is not specified");
    json_array_foreach(nka, i, a) {
        for (j = 0; j < i; j++) {
            b = json_array_get(nka, j);
            if (json_equal((json_t *)a, (json_t *)b))
                return ddb_err_set(err, DDB_VALIDATION,
                                   "One or more parameter values were "
                                   "invalid: Duplicate element in "
                                   "NonKeyAttributes: %s",
                                   json_string_value(a));
        }
    }
    return 0;
}

static int
check_duplicate_name(const json_t *req, const char *list, size_t upto,
                     const char *name, struct ddb_err *err)
{
    static const char *const lists[2] = { "LocalSecondaryIndexes",
                                          "GlobalSecondaryIndexes" };
    size_t i, j, n;

    for (i = 0; i < 2; i++) {
        const json_t *a = json_object_get(req, lists[i]);

        n = strcmp(lists[i], list) == 0 ? upto : json_array_size(a);
        if (strcmp(lists[i], list) != 0 && i == 1)
            n = 0;                  /* GSIs come after the LSIs */
        for (j = 0; j < n; j++) {
            const char *o = desc_str(json_array_get(a, j), "IndexName");

            if (o != NULL && name != NULL && strcmp(o, name) == 0)
                return ddb_err_set(err, DDB_VALIDATION,
                                   "One or more parameter values were "
                                   "invalid: Duplicate index name: %s",
                                   name);
        }
        if (strcmp(lists[i], list) == 0)
            break;
    }
    return 0;
}

/* Append the names of ks not yet in used (an array of strings). */
static void
add_used(json_t *used, const json_t *ks)
{
    const json_t *el, *u;
    size_t i, j;
    bool seen;

    json_array_foreach(ks, i, el) {
        const json_t *n = json_object_get(el, "AttributeName");

        seen = false;
        json_array_foreach(used, j, u)
            if (json_equal((json_t *)u, (json_t *)n))
                seen = true;
        if (!seen && json_is_string(n))
            json_array_append(used, (json_t *)n);
    }
}

/*
 * CreateTable's index checks, after the table's own key schema: LSIs,
 * then GSIs (each in DynamoDB's order), then AttributeDefinitions that no
 * key uses and the projected-attribute limit.
 */
static int
check_indexes(const json_t *req, bool on_demand, struct ddb_err *err)
{
    const json_t *ks = json_object_get(req, "KeySchema");
    const json_t *defs = json_object_get(req, "AttributeDefinitions");
    const json_t *lsis = json_object_get(req, "LocalSecondaryIndexes");
    const json_t *gsis = json_object_get(req, "GlobalSecondaryIndexes");
    const char *thash = key_name(ks, 0);
    json_t *used = NULL;
    const json_t *idx, *pt;
    size_t i, nproj = 0;
    long long r, w;
    char dbuf[2048], ubuf[2048];
    int rc = -1;

    if (!req_has_indexes(req))
        return 0;
    if (json_is_null(lsis))
        lsis = NULL;
    if (json_is_null(gsis))
        gsis = NULL;
    if (lsis != NULL) {
        if (json_array_size(lsis) == 0)
            return ddb_err_set(err, DDB_VALIDATION,
                               "One or more parameter values were invalid: "
                               "List of LocalSecondaryIndexes is empty");
        if (json_array_size(ks) != 2)
            return ddb_err_set(err, DDB_VALIDATION,
                               "One or more parameter values were invalid: "
                               "Table KeySchema does not have a range key, "
                               "which is required when specifying a "
                               "LocalSecondaryIndex");
        json_array_foreach(lsis, i, idx) {
            const json_t *iks = json_object_get(idx, "KeySchema");
            const char *iname = desc_str(idx, "IndexName");

            if (check_index_shape(idx, defs, false, err) != 0)
                return -1;
            if (json_array_size(iks) != 2)
                return ddb_err_set(err, DDB_VALIDATION,
                                   "One or more parameter values were "
                                   "invalid: Index KeySchema does not have a "
                                   "range key for index: %s", iname);
            if (key_name(iks, 0) == NULL || thash == NULL ||
                strcmp(key_name(iks, 0), thash) != 0)
                return ddb_err_set(err, DDB_VALIDATION,
                                   "One or more parameter values were "
                                   "invalid: Index KeySchema does not have "
                                   "the same leading hash key as table "
                                   "KeySchema for index: %s. index hash key: "
                                   "%s, table hash key: %s", iname,
                                   key_name(iks, 0), thash);
            if (check_projection(idx, err) != 0 ||
                check_duplicate_name(req, "LocalSecondaryIndexes", i, iname,
                                     err) != 0)
                return -1;
        }
        if (json_array_size(lsis) > INDEX_LSI_MAX)
            return ddb_err_set(err, DDB_VALIDATION,
                               "One or more parameter values were invalid: "
                               "Number of LocalSecondaryIndexes exceeds "
                               "per-table limit of %d", INDEX_LSI_MAX);
    }
    if (gsis != NULL) {
        if (json_array_size(gsis) == 0)
            return ddb_err_set(err, DDB_VALIDATION,
                               "One or more parameter values were invalid: "
                               "List of GlobalSecondaryIndexes is empty");
        json_array_foreach(gsis, i, idx) {
            const char *iname = desc_str(idx, "IndexName");

            if (check_index_shape(idx, defs, true, err) != 0 ||
                check_projection(idx, err) != 0)
                return -1;
            pt = json_object_get(idx, "ProvisionedThroughput");
            if (json_is_null(pt))
                pt = NULL;
            if (on_demand && pt != NULL)
                return ddb_err_set(err, DDB_VALIDATION,
                                   "One or more parameter values were "
                                   "invalid: ProvisionedThroughput should "
                                   "not be specified for index: %s when "
                                   "BillingMode is PAY_PER_REQUEST", iname);
            if (!on_demand && pt == NULL)
                return ddb_err_set(err, DDB_VALIDATION,
                                   "One or more parameter values were "
                                   "invalid: ProvisionedThroughput is not "
                                   "specified for index: %s", iname);
            if (pt != NULL && read_throughput(pt, &r, &w, err) != 0)
                return -1;
            if (member_present(idx, "OnDemandThroughput")) {
                json_t *odt;

                if (!on_demand)
                    return ddb_err_set(err, DDB_VALIDATION,
                                       "One or more parameter values were "
                                       "invalid: OnDemandThroughput cannot "
                                       "be specified when BillingMode is "
                                       "PROVISIONED");
                odt = read_on_demand(json_object_get(idx,
                                                     "OnDemandThroughput"),
                                     err);
                if (odt == NULL)
                    return -1;
                json_decref(odt);
            }
            if (check_duplicate_name(req, "GlobalSecondaryIndexes", i, iname,
                                     err) != 0)
                return -1;
        }
        if (json_array_size(gsis) > INDEX_GSI_MAX)
            return ddb_err_set(err, DDB_VALIDATION,
                               "One or more parameter values were invalid: "
                               "GlobalSecondaryIndex count exceeds the "
                               "per-table limit of %d", INDEX_GSI_MAX);
    }
    /* Every AttributeDefinition must be some key. */
    used = json_array();
    add_used(used, ks);
    json_array_foreach(lsis, i, idx) {
        add_used(used, json_object_get(idx, "KeySchema"));
        nproj += json_array_size(json_object_get(
            json_object_get(idx, "Projection"), "NonKeyAttributes"));
    }
    json_array_foreach(gsis, i, idx) {
        add_used(used, json_object_get(idx, "KeySchema"));
        nproj += json_array_size(json_object_get(
            json_object_get(idx, "Projection"), "NonKeyAttributes"));
    }
    if (json_array_size(used) != json_array_size(defs)) {
        json_t *uk = json_array();
        const json_t *u;

        json_array_foreach(used, i, u)
            json_array_append_new(uk, json_pack("{s:O}", "AttributeName", u));
        join_names(defs, dbuf, sizeof(dbuf));
        join_names(uk, ubuf, sizeof(ubuf));
        json_decref(uk);
        ddb_err_set(err, DDB_VALIDATION,
                    "One or more parameter values were invalid: Some "
                    "AttributeDefinitions are not used. AttributeDefinitions: "
                    "%s, keys used: %s", dbuf, ubuf);
        goto out;
    }
    if (nproj > PROJECTED_MAX) {
        ddb_err_set(err, DDB_VALIDATION,
                    "One or more parameter values were invalid: Number of "
                    "projected attributes in all indexes exceeds limit of "
                    "%d, provided: %zu", PROJECTED_MAX, nproj);
        goto out;
    }
    rc = 0;
out:
    json_decref(used);
    return rc;
}

/* The Projection as DynamoDB describes it. New reference. */
static json_t *
projection_desc(const json_t *proj)
{
    const json_t *nka = json_object_get(proj, "NonKeyAttributes");
    json_t *out = json_pack("{s:O}", "ProjectionType",
                            json_object_get(proj, "ProjectionType"));

    if (json_is_array(nka))
        json_object_set_new(out, "NonKeyAttributes", json_deep_copy(nka));
    return out;
}

/*
 * The description of one index from its request element. A GSI gets its
 * own ProvisionedThroughput (0/0 on demand), WarmThroughput and status;
 * *nparts receives its initial partition count.
 */
static json_t *
index_desc_new(const struct api_ctx *ctx, const char *table,
               const json_t *idx, bool global, bool on_demand,
               const char *status, const json_t *tags, unsigned *nparts)
{
    const char *iname = desc_str(idx, "IndexName");
    const json_t *pt = json_object_get(idx, "ProvisionedThroughput");
    char arn[2400];
    long long r = 0, w = 0;
    json_t *d, *odt;
    struct ddb_err e;

    api_table_arn(ctx, table, arn, sizeof(arn));
    snprintf(arn + strlen(arn), sizeof(arn) - strlen(arn), "/index/%s",
             iname);
    d = json_pack("{s:s, s:o, s:o}", "IndexName", iname, "KeySchema",
                  clean_list(json_object_get(idx, "KeySchema"), "KeyType"),
                  "Projection",
                  projection_desc(json_object_get(idx, "Projection")));
    *nparts = 1;
    if (global) {
        ddb_err_init(&e);
        if (json_is_object(pt))
            read_throughput(pt, &r, &w, &e);
        ddb_err_clear(&e);
        json_object_set_new(d, "IndexStatus", json_string(status));
        json_object_set_new(d, "ProvisionedThroughput",
                            json_pack("{s:I, s:I, s:I}",
                                      "NumberOfDecreasesToday", (json_int_t)0,
                                      "ReadCapacityUnits", (json_int_t)r,
                                      "WriteCapacityUnits", (json_int_t)w));
        *nparts = initial_parts(ctx, tags, on_demand, r, w);
        if (on_demand && member_present(idx, "OnDemandThroughput")) {
            ddb_err_init(&e);
            odt = read_on_demand(json_object_get(idx, "OnDemandThroughput"),
                                 &e);
            ddb_err_clear(&e);
            if (odt != NULL)
                json_object_set_new(d, "OnDemandThroughput", odt);
        }
        json_object_set_new(d, "WarmThroughput",
                            warm_json(*nparts, status));
    }
    json_object_set_new(d, "IndexSizeBytes", json_integer(0));
    json_object_set_new(d, "ItemCount", json_integer(0));
    json_object_set_new(d, "IndexArn", json_string(arn));
    return d;
}

/* Create the hidden storage table of every index in desc. On failure the
 * ones created are dropped again. */
static int
create_index_tables(struct storage *st, const json_t *desc,
                    const unsigned *gparts, unsigned lparts,
                    struct ddb_err *err)
{
    static const char *const lists[2] = { "GlobalSecondaryIndexes",
                                          "LocalSecondaryIndexes" };
    const char *table = desc_str(desc, "TableName");
    char hidden[1200];
    json_t *meta;
    const json_t *idx;
    size_t i, j;
    int rc;

    for (i = 0; i < 2; i++) {
        json_array_foreach(json_object_get(desc, lists[i]), j, idx) {
            index_table_name(table, desc_str(idx, "IndexName"), hidden,
                             sizeof(hidden));
            meta = json_pack("{s:s, s:s, s:O}", "TableName", hidden,
                             "_slIndexOf", table, "IndexName",
                             json_object_get(idx, "IndexName"));
            rc = storage_table_create(st, hidden, meta,
                                      i == 0 ? gparts[j] : lparts, err);
            json_decref(meta);
            if (rc != 0) {
                index_drop_all(st, table);
                return -1;
            }
        }
    }
    return 0;
}

/* Add the GlobalSecondaryIndexes / LocalSecondaryIndexes descriptions of
 * a (validated) CreateTable request to desc; gparts[i] receives GSI i's
 * partition count. */
static int
add_index_descs(const struct api_ctx *ctx, const json_t *req, json_t *desc,
                bool on_demand, unsigned *gparts)
{
    static const char *const lists[2] = { "GlobalSecondaryIndexes",
                                          "LocalSecondaryIndexes" };
    const char *table = desc_str(desc, "TableName");
    const char *status = desc_str(desc, "TableStatus");
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
            json_array_append_new(out, index_desc_new(
                ctx, table, idx, i == 0, on_demand,
                status != NULL ? status : "ACTIVE",
                json_object_get(req, "Tags"),
                i == 0 && j < INDEX_GSI_MAX ? &gparts[j] : &lp));
        json_object_set_new(desc, lists[i], out);
    }
    return 0;
}

int
api_create_table(struct api_ctx *ctx, const json_t *req, json_t **resp,
                 struct ddb_err *err)
{
    const char *param, *name, *mode, *cls;
    const json_t *pt, *odt_req, *sse, *dp, *tags;
    char namebuf[1100];
    json_t *desc = NULL, *odt = NULL, *ssed = NULL, *pub = NULL;
    struct stable *t = NULL;
    json_t *old = NULL;
    long long r = 0, w = 0;
    bool on_demand, locked = false;
    unsigned nparts, gparts[INDEX_GSI_MAX + 1];
    uint64_t now = req_now_ms(ctx);
    char arn[2048], id[37];
    int rc = -1, o;

    param = req_table_name(req, err);
    if (param == NULL)
        return -1;
    /* TableName may be the ARN of the table to create. */
    if (!name_from_param(ctx, param, namebuf, sizeof(namebuf)) ||
        namebuf[0] == '\0')
        return ddb_err_set(err, DDB_VALIDATION,
                           "1 validation error detected: Value '%s' at "
                           "'tableName' failed to satisfy constraint: Member "
                           "must satisfy regular expression pattern: "
                           "[a-zA-Z0-9_.-]+", param);
    name = namebuf;
    if (reject_unsupported(req, "CreateTable", err) != 0)
        return -1;

    /* Billing mode and throughput come first, as in DynamoDB. */
    mode = json_string_value(json_object_get(req, "BillingMode"));
    on_demand = mode != NULL && strcmp(mode, "PAY_PER_REQUEST") == 0;
    pt = json_object_get(req, "ProvisionedThroughput");
    if (json_is_null(pt))
        pt = NULL;
    if (on_demand) {
        if (pt != NULL)
            return ddb_err_set(err, DDB_VALIDATION,
                               "One or more parameter values were invalid: "
                               "Neither ReadCapacityUnits nor "
                               "WriteCapacityUnits can be specified when "
                               "BillingMode is PAY_PER_REQUEST");
    } else {
        if (pt == NULL && mode == NULL)
            return ddb_err_set(err, DDB_VALIDATION,
                               "No provisioned throughput specified for the "
                               "table");
        if (pt == NULL)
            return ddb_err_set(err, DDB_VALIDATION,
                               "One or more parameter values were invalid: "
                               "ReadCapacityUnits and WriteCapacityUnits "
                               "must both be specified when BillingMode is "
                               "PROVISIONED");
        if (read_throughput(pt, &r, &w, err) != 0)
            return -1;
    }

    if (check_key_schema(json_object_get(req, "KeySchema"),
                         json_object_get(req, "AttributeDefinitions"),
                         req_has_indexes(req), err) != 0)
        return -1;
    if (check_indexes(req, on_demand, err) != 0)
        return -1;

    odt_req = json_object_get(req, "OnDemandThroughput");
    if (odt_req != NULL && !json_is_null(odt_req)) {
        if (!on_demand)
            return ddb_err_set(err, DDB_VALIDATION,
                               "One or more parameter values were invalid: "
                               "OnDemandThroughput cannot be specified when "
                               "BillingMode is PROVISIONED");
        odt = read_on_demand(odt_req, err);
        if (odt == NULL)
            return -1;
    }

    /* The description. */
    nparts = initial_parts(ctx, json_object_get(req, "Tags"), on_demand,
                           r, w);
    api_table_arn(ctx, name, arn, sizeof(arn));
    uuid4(id);
    desc = json_object();
    json_object_set_new(desc, "AttributeDefinitions",
                        clean_list(json_object_get(req, "AttributeDefinitions"),
                                   "AttributeType"));
    json_object_set_new(desc, "TableName", json_string(name));
    json_object_set_new(desc, "KeySchema",
                        clean_list(json_object_get(req, "KeySchema"),
                                   "KeyType"));
    json_object_set_new(desc, "TableStatus", json_string("CREATING"));
    json_object_set_new(desc, "CreationDateTime", epoch_json(now));
    json_object_set_new(desc, "ProvisionedThroughput",
                        json_pack("{s:I, s:I, s:I}", "NumberOfDecreasesToday",
                                  (json_int_t)0, "ReadCapacityUnits",
                                  (json_int_t)r, "WriteCapacityUnits",
                                  (json_int_t)w));
    json_object_set_new(desc, "TableSizeBytes", json_integer(0));
    json_object_set_new(desc, "ItemCount", json_integer(0));
    json_object_set_new(desc, "TableArn", json_string(arn));
    json_object_set_new(desc, "TableId", json_string(id));
    if (on_demand)
        json_object_set_new(desc, "BillingModeSummary",
                            json_pack("{s:s}", "BillingMode",
                                      "PAY_PER_REQUEST"));
    cls = json_string_value(json_object_get(req, "TableClass"));
    if (cls != NULL)
        json_object_set_new(desc, "TableClassSummary",
                            json_pack("{s:s}", "TableClass", cls));
    sse = json_object_get(req, "SSESpecification");
    if (json_is_object(sse)) {
        ssed = sse_description(ctx, sse);
        if (ssed != NULL)
            json_object_set_new(desc, "SSEDescription", ssed);
    }
    dp = json_object_get(req, "DeletionProtectionEnabled");
    json_object_set_new(desc, "DeletionProtectionEnabled",
                        json_boolean(json_is_true(dp)));
    if (odt != NULL) {
        json_object_set_new(desc, "OnDemandThroughput", odt);
        odt = NULL;
    }
    json_object_set_new(desc, "WarmThroughput", warm_json(nparts, "ACTIVE"));
    tags = json_object_get(req, "Tags");
    if (json_is_array(tags))
        json_object_set_new(desc, PRIV_TAGS, json_deep_copy(tags));
    set_status(ctx, desc, "CREATING", now);
    if (add_index_descs(ctx, req, desc, on_demand, gparts) != 0) {
        ddb_err_set(err, DDB_INTERNAL, "index descriptions");
        goto out;
    }
    if (strcmp(desc_str(desc, "TableStatus"), "ACTIVE") == 0 && on_demand)
        json_object_set(json_object_get(desc, "BillingModeSummary"),
                        "LastUpdateToPayPerRequestDateTime",
                        json_object_get(desc, "CreationDateTime"));

    pthread_mutex_lock(&ddl_lock);
    locked = true;
    /* A table whose DELETING period is over is gone by now. */
    o = open_settled(ctx, name, true, &t, &old, err);
    if (o < 0)
        goto out;
    if (o == 0) {
        ddb_err_set(err, DDB_RESOURCE_IN_USE, "Table already exists: %s",
                    name);
        goto out;
    }
    /* Hidden index tables first (left over ones from a crash dropped),
     * so that a visible table always has its indexes. */
    index_drop_all(ctx->srv->st, name);
    if (create_index_tables(ctx->srv->st, desc, gparts, nparts, err) != 0)
        goto out;
    if (storage_table_create(ctx->srv->st, name, desc, nparts, err) != 0) {
        index_drop_all(ctx->srv->st, name);
        if (err != NULL && err->type == DDB_RESOURCE_IN_USE)
            ddb_err_set(err, DDB_RESOURCE_IN_USE,
                        "Table already exists: %s", name);
        goto out;
    }
    /* Throttling state from now on: burst banks fill from creation. */
    gate_table_created(ctx, name);
    pthread_mutex_unlock(&ddl_lock);
    locked = false;

    pub = public_desc(NULL, NULL, desc);
    *resp = json_pack("{s:o}", "TableDescription", pub);
    rc = 0;
out:
    if (locked)
        pthread_mutex_unlock(&ddl_lock);
    if (t != NULL)
        stable_release(t);
    json_decref(old);
    json_decref(odt);
    json_decref(desc);
    return rc;
}

/* ------------------------------------------------------------------------
 * DescribeTable, ListTables
 * ---------------------------------------------------------------------- */

int
api_describe_table(struct api_ctx *ctx, const json_t *req, json_t **resp,
                   struct ddb_err *err)
{
    const char *param;
    char name[1100];
    struct stable *t = NULL;
    json_t *desc = NULL;
    int o;

    param = req_table_name(req, err);
    if (param == NULL)
        return -1;
    if (!name_from_param(ctx, param, name, sizeof(name)))
        return not_found_named(param, err);
    o = open_settled(ctx, name, false, &t, &desc, err);
    if (o < 0)
        return -1;
    if (o > 0)
        return not_found_named(param, err);
    *resp = json_pack("{s:o}", "Table", public_desc(ctx->srv->st, t, desc));
    json_decref(desc);
    stable_release(t);
    return 0;
}

int
api_list_tables(struct api_ctx *ctx, const json_t *req, json_t **resp,
                struct ddb_err *err)
{
    const json_t *lim = json_object_get(req, "Limit");
    const char *start =
        json_string_value(json_object_get(req, "ExclusiveStartTableName"));
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
        n = json_string_value(json_array_get(names, i));
        if (n == NULL || (start != NULL && strcmp(n, start) <= 0) ||
            index_is_hidden_name(n))
            continue;
        /* Drop tables whose DELETING period is over. */
        t = NULL;
        desc = NULL;
        o = open_settled(ctx, n, false, &t, &desc, err);
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
        json_array_append_new(out, json_string(n));
    }
    json_decref(names);
    *resp = json_pack("{s:o}", "TableNames", out);
    return 0;
}

/* ------------------------------------------------------------------------
 * UpdateTable
 * ---------------------------------------------------------------------- */

/* Days since the epoch (UTC) of an epoch-seconds JSON number. */
static long long
utc_day(const json_t *secs)
{
    if (!json_is_number(secs))
        return -1;
    return (long long)json_number_value(secs) / 86400;
}

/* ------------------------------------------------------------------------
 * UpdateTable GlobalSecondaryIndexUpdates
 * ---------------------------------------------------------------------- */

/* The action object of one GlobalSecondaryIndexUpdate element and its
 * kind ("Create", "Update", "Delete"), or NULL. */
static const json_t *
gsiu_action(const json_t *u, const char **kind)
{
    static const char *const kinds[3] = { "Create", "Update", "Delete" };
    size_t i;

    for (i = 0; i < 3; i++) {
        if (member_present(u, kinds[i])) {
            *kind = kinds[i];
            return json_object_get(u, kinds[i]);
        }
    }
    return NULL;
}

/* Request-only checks of GlobalSecondaryIndexUpdates (dynalite
 * validations/updateTable.js order). */
static int
check_gsi_updates_shape(const json_t *gsiu, struct ddb_err *err)
{
    const json_t *u, *a, *o;
    const char *kind, *n, *n2;
    size_t i, j, nact;

    if (json_array_size(gsiu) == 0)
        return ddb_err_set(err, DDB_VALIDATION,
                           "One or more parameter values were invalid: List "
                           "of GlobalSecondaryIndexUpdates is empty");
    json_array_foreach(gsiu, i, u) {
        nact = member_present(u, "Create") + member_present(u, "Update") +
               member_present(u, "Delete");
        if (nact == 0)
            return ddb_err_set(err, DDB_VALIDATION,
                               "One or more parameter values were invalid: "
                               "One of GlobalSecondaryIndexUpdate.Update, "
                               "GlobalSecondaryIndexUpdate.Create, "
                               "GlobalSecondaryIndexUpdate.Delete must not "
                               "be null");
        if (nact > 1)
            return ddb_err_set(err, DDB_VALIDATION,
                               "One or more parameter values were invalid: "
                               "Only one global secondary index action is "
                               "allowed per GlobalSecondaryIndexUpdate "
                               "object");
        a = gsiu_action(u, &kind);
        n = desc_str(a, "IndexName");
        for (j = 0; j < i; j++) {
            o = gsiu_action(json_array_get(gsiu, j), &kind);
            n2 = desc_str(o, "IndexName");
            if (n != NULL && n2 != NULL && strcmp(n, n2) == 0)
                return ddb_err_set(err, DDB_VALIDATION,
                                   "One or more parameter values were "
                                   "invalid: Only one global secondary index "
                                   "update per index is allowed "
                                   "simultaneously. Index: %s", n);
        }
    }
    return 0;
}

/* The GSI description called name in desc, and its position. */
static json_t *
find_gsi(json_t *desc, const char *name, size_t *pos)
{
    json_t *g;
    size_t i;

    json_array_foreach(json_object_get(desc, "GlobalSecondaryIndexes"), i, g)
        if (str_is(json_object_get(g, "IndexName"), name)) {
            *pos = i;
            return g;
        }
    return NULL;
}

static bool
is_lsi(const json_t *desc, const char *name)
{
    const json_t *l;
    size_t i;

    json_array_foreach(json_object_get(desc, "LocalSecondaryIndexes"), i, l)
        if (str_is(json_object_get(l, "IndexName"), name))
            return true;
    return false;
}

/* A GSI Create: validate against the table, add the description (with
 * any new AttributeDefinitions), create and backfill the hidden table. */
static int
gsi_create(struct api_ctx *ctx, const json_t *req, struct stable *t,
           json_t *desc, const json_t *a, bool on_demand, bool delayed,
           struct ddb_err *err)
{
    const char *iname = desc_str(a, "IndexName");
    const char *table = desc_str(desc, "TableName");
    json_t *defs = json_object_get(desc, "AttributeDefinitions");
    const json_t *rdefs = json_object_get(req, "AttributeDefinitions");
    const json_t *pt = json_object_get(a, "ProvisionedThroughput");
    const json_t *el, *d2;
    json_t *newdefs = NULL, *gd = NULL, *gsis;
    struct index_set *s = NULL;
    const struct index_def *d;
    char hidden[1200];
    unsigned nparts;
    size_t i, j, pos;
    bool have, created = false;
    int rc = -1;

    if (find_gsi(desc, iname, &pos) != NULL || is_lsi(desc, iname))
        return ddb_err_set(err, DDB_VALIDATION,
                           "Attempting to create an index which already "
                           "exists");
    if (json_array_size(json_object_get(desc, "GlobalSecondaryIndexes")) >=
        INDEX_GSI_MAX)
        return ddb_err_set(err, DDB_LIMIT_EXCEEDED,
                           "One or more parameter values were invalid: "
                           "GlobalSecondaryIndex count exceeds the "
                           "per-table limit of %d", INDEX_GSI_MAX);
    if (json_is_null(pt))
        pt = NULL;
    if (!on_demand && pt == NULL)
        return ddb_err_set(err, DDB_VALIDATION,
                           "One or more parameter values were invalid: "
                           "ProvisionedThroughput must be specified for "
                           "index: %s", iname);
    if (on_demand && pt != NULL)
        return ddb_err_set(err, DDB_VALIDATION,
                           "One or more parameter values were invalid: "
                           "ProvisionedThroughput should not be specified "
                           "for index: %s when BillingMode is "
                           "PAY_PER_REQUEST", iname);
    /* The table's definitions plus the request's new ones (a redefinition
     * must agree). */
    newdefs = json_deep_copy(defs);
    json_array_foreach(rdefs, i, el) {
        have = false;
        json_array_foreach(newdefs, j, d2)
            if (json_equal(json_object_get(d2, "AttributeName"),
                           json_object_get(el, "AttributeName")))
                have = true;
        if (!have)
            json_array_append_new(newdefs,
                                  json_pack("{s:O, s:O}", "AttributeName",
                                            json_object_get(el,
                                                            "AttributeName"),
                                            "AttributeType",
                                            json_object_get(el,
                                                            "AttributeType")));
    }
    if (!member_present(req, "AttributeDefinitions")) {
        ddb_err_set(err, DDB_VALIDATION,
                    "One or more parameter values were invalid: "
                    "AttributeDefinitions is not specified for index: %s",
                    iname);
        goto out;
    }
    if (check_index_shape(a, newdefs, true, err) != 0 ||
        check_projection(a, err) != 0)
        goto out;
    if (pt != NULL) {
        long long r, w;

        if (read_throughput(pt, &r, &w, err) != 0)
            goto out;
    }
    /* Keep only definitions some key uses. */
    {
        json_t *used = json_array(), *kept = json_array();
        const json_t *g;

        add_used(used, json_object_get(desc, "KeySchema"));
        json_array_foreach(json_object_get(desc, "LocalSecondaryIndexes"), i,
                           g)
            add_used(used, json_object_get(g, "KeySchema"));
        json_array_foreach(json_object_get(desc, "GlobalSecondaryIndexes"),
                           i, g)
            add_used(used, json_object_get(g, "KeySchema"));
        add_used(used, json_object_get(a, "KeySchema"));
        json_array_foreach(newdefs, i, el) {
            const json_t *u;

            json_array_foreach(used, j, u)
                if (json_equal((json_t *)u,
                               json_object_get(el, "AttributeName")))
                    json_array_append(kept, (json_t *)el);
        }
        json_decref(used);
        json_decref(newdefs);
        newdefs = kept;
    }

    /* CREATING (and Backfilling) while the backfill runs, so queries
     * never see a half-built index. */
    gd = index_desc_new(ctx, table, a, true, on_demand, "CREATING",
                        json_object_get(desc, PRIV_TAGS), &nparts);
    json_object_set_new(gd, "Backfilling", json_true());
    index_table_name(table, iname, hidden, sizeof(hidden));
    {
        json_t *meta = json_pack("{s:s, s:s, s:s}", "TableName", hidden,
                                 "_slIndexOf", table, "IndexName", iname);

        rc = storage_table_create(ctx->srv->st, hidden, meta, nparts, err);
        json_decref(meta);
        if (rc != 0)
            goto out;
        rc = -1;
        created = true;
    }
    /* Publish the index (CREATING) first, so every write from now on
     * maintains it; then backfill synchronously. The backfill writes each
     * row in a transaction that checks the item is unchanged. */
    json_object_set(desc, "AttributeDefinitions", newdefs);
    gsis = json_object_get(desc, "GlobalSecondaryIndexes");
    if (!json_is_array(gsis)) {
        gsis = json_array();
        json_object_set_new(desc, "GlobalSecondaryIndexes", gsis);
    }
    json_array_append(gsis, gd);
    if (stable_set_desc(t, desc, err) != 0)
        goto out;
    s = xcalloc(1, sizeof(*s));
    if (index_set_open(ctx->srv->st, desc, s, err) != 0)
        goto out;
    d = index_find(s, iname);
    if (d == NULL) {
        ddb_err_set(err, DDB_INTERNAL, "index %s did not open", iname);
        goto out;
    }
    if (index_backfill(t, &s->base, d, err) != 0)
        goto out;
    if (!delayed) {
        json_object_set_new(gd, "IndexStatus", json_string("ACTIVE"));
        json_object_del(gd, "Backfilling");
        json_object_set_new(json_object_get(gd, "WarmThroughput"), "Status",
                            json_string("ACTIVE"));
    }
    rc = 0;
out:
    if (rc != 0 && created) {
        struct ddb_err e;

        ddb_err_init(&e);
        storage_table_delete(ctx->srv->st, hidden, &e);
        ddb_err_clear(&e);
    }
    if (s != NULL) {
        index_set_close(s);
        free(s);
    }
    json_decref(gd);
    json_decref(newdefs);
    return rc;
}

/* A GSI Delete: DELETING for the status delay (or gone at once); the
 * hidden table is dropped now, so writes stop maintaining it. */
static int
gsi_delete(struct api_ctx *ctx, json_t *desc, const json_t *a, bool delayed,
           struct ddb_err *err)
{
    const char *iname = desc_str(a, "IndexName");
    json_t *g, *gsis = json_object_get(desc, "GlobalSecondaryIndexes");
    char hidden[1200];
    struct ddb_err e;
    size_t pos;

    if (is_lsi(desc, iname))
        return ddb_err_set(err, DDB_VALIDATION,
                           "Cannot delete an index that is not a "
                           "GlobalSecondaryIndex: %s", iname);
    g = find_gsi(desc, iname, &pos);
    if (g == NULL)
        return ddb_err_set(err, DDB_RESOURCE_NOT_FOUND,
                           "Requested resource not found: Index: %s not "
                           "found", iname);
    index_table_name(desc_str(desc, "TableName"), iname, hidden,
                     sizeof(hidden));
    ddb_err_init(&e);
    storage_table_delete(ctx->srv->st, hidden, &e);
    ddb_err_clear(&e);
    if (delayed) {
        json_object_set_new(g, "IndexStatus", json_string("DELETING"));
    } else {
        json_array_remove(gsis, pos);
        if (json_array_size(gsis) == 0)
            json_object_del(desc, "GlobalSecondaryIndexes");
        prune_defs(desc);
    }
    return 0;
}

/* A GSI Update: new ProvisionedThroughput (or OnDemandThroughput). */
static int
gsi_update(json_t *desc, const json_t *a, bool on_demand, uint64_t now,
           struct ddb_err *err)
{
    const char *iname = desc_str(a, "IndexName");
    const json_t *pt = json_object_get(a, "ProvisionedThroughput");
    const json_t *odr = json_object_get(a, "OnDemandThroughput");
    json_t *g, *gpt, *odt;
    long long r, w, cr, cw;
    size_t pos;

    if (is_lsi(desc, iname))
        return ddb_err_set(err, DDB_VALIDATION,
                           "Cannot update an index that is not a "
                           "GlobalSecondaryIndex: %s", iname);
    g = find_gsi(desc, iname, &pos);
    if (g == NULL)
        return ddb_err_set(err, DDB_RESOURCE_NOT_FOUND,
                           "Requested resource not found: Index: %s not "
                           "found", iname);
    if (json_is_null(pt))
        pt = NULL;
    if (json_is_null(odr))
        odr = NULL;
    if (on_demand && pt != NULL)
        return ddb_err_set(err, DDB_VALIDATION,
                           "One or more parameter values were invalid: The "
                           "only Updates for index: %s when "
                           "TableThroughputMode is PAY_PER_REQUEST can be "
                           "to OnDemandThroughput, WarmThroughput", iname);
    if (odr != NULL) {
        if (!on_demand)
            return ddb_err_set(err, DDB_VALIDATION,
                               "One or more parameter values were invalid: "
                               "MaxReadRequestUnits for OnDemandThroughput "
                               "cannot be specified when the table "
                               "BillingMode is PROVISIONED");
        odt = read_on_demand(odr, err);
        if (odt == NULL)
            return -1;
        json_object_set_new(g, "OnDemandThroughput", odt);
        return 0;
    }
    if (pt == NULL)
        return ddb_err_set(err, DDB_VALIDATION,
                           "One or more parameter values were invalid: "
                           "ProvisionedThroughput must be specified for "
                           "index: %s", iname);
    if (read_throughput(pt, &r, &w, err) != 0)
        return -1;
    gpt = json_object_get(g, "ProvisionedThroughput");
    cr = int_member(gpt, "ReadCapacityUnits");
    cw = int_member(gpt, "WriteCapacityUnits");
    if (cr == r && cw == w)
        return ddb_err_set(err, DDB_VALIDATION,
                           "The provisioned throughput for the index %s will "
                           "not change. The requested value equals the "
                           "current value. Current ReadCapacityUnits "
                           "provisioned for the index: %lld. Requested "
                           "ReadCapacityUnits: %lld. Current "
                           "WriteCapacityUnits provisioned for the index: "
                           "%lld. Requested WriteCapacityUnits: %lld. Refer "
                           "to the Amazon DynamoDB Developer Guide for "
                           "current limits and how to request higher "
                           "limits.", iname, cr, r, cw, w);
    if (r > cr || w > cw)
        json_object_set_new(gpt, "LastIncreaseDateTime", epoch_json(now));
    if (r < cr || w < cw) {
        json_object_set_new(gpt, "LastDecreaseDateTime", epoch_json(now));
        json_object_set_new(gpt, "NumberOfDecreasesToday",
                            json_integer(int_member(
                                gpt, "NumberOfDecreasesToday") + 1));
    }
    json_object_set_new(gpt, "ReadCapacityUnits", json_integer(r));
    json_object_set_new(gpt, "WriteCapacityUnits", json_integer(w));
    return 0;
}

/* Switching to PROVISIONED: each GSI must get ProvisionedThroughput from
 * an Update in GlobalSecondaryIndexUpdates (dynalite actions/
 * updateTable.js records the message). */
static int
check_gsis_get_throughput(const json_t *desc, const json_t *gsiu,
                          struct ddb_err *err)
{
    char names[2048];
    size_t i, j, len = 0;
    const json_t *g, *u, *a;
    const char *kind, *gn;
    bool covered;

    names[0] = '\0';
    json_array_foreach(json_object_get(desc, "GlobalSecondaryIndexes"), i,
                       g) {
        gn = desc_str(g, "IndexName");
        covered = false;
        json_array_foreach(gsiu, j, u) {
            a = gsiu_action(u, &kind);
            if (a != NULL && strcmp(kind, "Update") == 0 &&
                str_is(json_object_get(a, "IndexName"), gn) &&
                member_present(a, "ProvisionedThroughput"))
                covered = true;
        }
        if (!covered && gn != NULL && len < sizeof(names))
            len += (size_t)snprintf(names + len, sizeof(names) - len, "%s%s",
                                    len ? "," : "", gn);
    }
    if (len == 0)
        return 0;
    return ddb_err_set(err, DDB_VALIDATION,
                       "One or more parameter values were invalid: "
                       "ProvisionedThroughput must be specified for index: "
                       "%s", names);
}

/* Switching to PAY_PER_REQUEST: GSIs show 0/0 throughput. */
static void
gsis_zero_throughput(json_t *desc)
{
    json_t *g, *gpt;
    size_t i;

    json_array_foreach(json_object_get(desc, "GlobalSecondaryIndexes"), i,
                       g) {
        gpt = json_object_get(g, "ProvisionedThroughput");
        if (!json_is_object(gpt))
            continue;
        json_object_set_new(gpt, "ReadCapacityUnits", json_integer(0));
        json_object_set_new(gpt, "WriteCapacityUnits", json_integer(0));
    }
}

/*
 * Apply GlobalSecondaryIndexUpdates to desc (under ddl_lock). At most one
 * Create or Delete per call, and none while another index is being
 * created or deleted (LimitExceededException, as DynamoDB).
 */
static int
apply_gsi_updates(struct api_ctx *ctx, const json_t *req, struct stable *t,
                  json_t *desc, bool on_demand, bool table_pt, uint64_t now,
                  struct ddb_err *err)
{
    const json_t *gsiu = json_object_get(req, "GlobalSecondaryIndexUpdates");
    const json_t *u, *a, *g;
    const char *kind, *st;
    bool delayed = status_delay(ctx) != 0;
    size_t i, ncd = 0;

    json_array_foreach(gsiu, i, u) {
        gsiu_action(u, &kind);
        if (strcmp(kind, "Update") != 0)
            ncd++;
    }
    if (ncd > 0 && table_pt)
        return ddb_err_set(err, DDB_VALIDATION,
                           "One or more parameter values were invalid: You "
                           "cannot create or delete index while updating "
                           "table IOPS");
    json_array_foreach(json_object_get(desc, "GlobalSecondaryIndexes"), i,
                       g) {
        st = desc_str(g, "IndexStatus");
        if (ncd > 0 && st != NULL && (strcmp(st, "CREATING") == 0 ||
                                      strcmp(st, "DELETING") == 0))
            ncd = 99;
    }
    if (ncd > 1)
        return ddb_err_set(err, DDB_LIMIT_EXCEEDED,
                           "Subscriber limit exceeded: Only 1 online index "
                           "can be created or deleted simultaneously per "
                           "table");
    json_array_foreach(gsiu, i, u) {
        a = gsiu_action(u, &kind);
        if (strcmp(kind, "Create") == 0) {
            if (gsi_create(ctx, req, t, desc, a, on_demand, delayed,
                           err) != 0)
                return -1;
        } else if (strcmp(kind, "Delete") == 0) {
            if (gsi_delete(ctx, desc, a, delayed, err) != 0)
                return -1;
        } else if (gsi_update(desc, a, on_demand, now, err) != 0) {
            return -1;
        }
    }
    return 0;
}

int
api_update_table(struct api_ctx *ctx, const json_t *req, json_t **resp,
                 struct ddb_err *err)
{
    const char *param, *mode, *cur_mode, *cls, *eff_mode;
    const json_t *pt, *odt_req, *dp, *sse, *cls_j, *gsiu;
    json_t *desc = NULL, *tpt, *odt = NULL, *bms, *ssed, *now_j = NULL;
    struct stable *t = NULL;
    long long r = 0, w = 0, cr, cw, dec;
    uint64_t now = req_now_ms(ctx);
    char name[1100];
    int rc = -1, o;

    param = req_table_name(req, err);
    if (param == NULL)
        return -1;
    if (reject_unsupported(req, "UpdateTable", err) != 0)
        return -1;
    mode = json_string_value(json_object_get(req, "BillingMode"));
    pt = json_object_get(req, "ProvisionedThroughput");
    if (json_is_null(pt))
        pt = NULL;
    odt_req = json_object_get(req, "OnDemandThroughput");
    if (json_is_null(odt_req))
        odt_req = NULL;
    dp = json_object_get(req, "DeletionProtectionEnabled");
    if (!json_is_boolean(dp))
        dp = NULL;
    sse = json_object_get(req, "SSESpecification");
    if (!json_is_object(sse))
        sse = NULL;
    cls_j = json_object_get(req, "TableClass");
    cls = json_string_value(cls_j);

    /* Request-only checks, before the table is looked up. */
    gsiu = json_object_get(req, "GlobalSecondaryIndexUpdates");
    if (json_is_null(gsiu))
        gsiu = NULL;
    if (pt == NULL && mode == NULL && sse == NULL && dp == NULL &&
        cls == NULL && odt_req == NULL && gsiu == NULL &&
        json_object_get(req, "StreamSpecification") == NULL)
        return ddb_err_set(err, DDB_VALIDATION,
                           "At least one of ProvisionedThroughput, "
                           "BillingMode, UpdateStreamEnabled, "
                           "GlobalSecondaryIndexUpdates or SSESpecification "
                           "or ReplicaUpdates is required");
    if (mode != NULL && strcmp(mode, "PROVISIONED") == 0 && pt == NULL)
        return ddb_err_set(err, DDB_VALIDATION,
                           "One or more parameter values were invalid: "
                           "ProvisionedThroughput must be specified when "
                           "BillingMode is PROVISIONED");
    if (pt != NULL && read_throughput(pt, &r, &w, err) != 0)
        return -1;
    if (gsiu != NULL && check_gsi_updates_shape(gsiu, err) != 0)
        return -1;

    if (!name_from_param(ctx, param, name, sizeof(name)))
        return not_found_named(param, err);
    pthread_mutex_lock(&ddl_lock);
    o = open_settled(ctx, name, true, &t, &desc, err);
    if (o < 0)
        goto out;
    if (o > 0) {
        not_found_named(param, err);
        goto out;
    }
    if (check_in_use(desc, name, err) != 0)
        goto out;

    cur_mode = billing_mode_of(desc);
    eff_mode = mode != NULL ? mode : cur_mode;
    if (pt != NULL && strcmp(eff_mode, "PAY_PER_REQUEST") == 0) {
        ddb_err_set(err, DDB_VALIDATION,
                    "One or more parameter values were invalid: Neither "
                    "ReadCapacityUnits nor WriteCapacityUnits can be "
                    "specified when BillingMode is PAY_PER_REQUEST");
        goto out;
    }
    if (strcmp(cur_mode, "PAY_PER_REQUEST") == 0 &&
        strcmp(eff_mode, "PROVISIONED") == 0 && pt == NULL) {
        ddb_err_set(err, DDB_VALIDATION,
                    "One or more parameter values were invalid: "
                    "ProvisionedThroughput must be specified when "
                    "BillingMode is PROVISIONED");
        goto out;
    }
    if (odt_req != NULL) {
        if (strcmp(eff_mode, "PAY_PER_REQUEST") != 0) {
            ddb_err_set(err, DDB_VALIDATION,
                        "One or more parameter values were invalid: "
                        "OnDemandThroughput cannot be specified when "
                        "BillingMode is PROVISIONED");
            goto out;
        }
        odt = read_on_demand(odt_req, err);
        if (odt == NULL)
            goto out;
    }
    tpt = json_object_get(desc, "ProvisionedThroughput");
    if (!json_is_object(tpt)) {
        tpt = json_pack("{s:I, s:I, s:I}", "NumberOfDecreasesToday",
                        (json_int_t)0, "ReadCapacityUnits", (json_int_t)0,
                        "WriteCapacityUnits", (json_int_t)0);
        json_object_set_new(desc, "ProvisionedThroughput", tpt);
    }
    cr = int_member(tpt, "ReadCapacityUnits");
    cw = int_member(tpt, "WriteCapacityUnits");
    if (pt != NULL && strcmp(cur_mode, "PROVISIONED") == 0 && cr == r &&
        cw == w) {
        ddb_err_set(err, DDB_VALIDATION,
                    "The provisioned throughput for the table will not "
                    "change. The requested value equals the current value. "
                    "Current ReadCapacityUnits provisioned for the table: "
                    "%lld. Requested ReadCapacityUnits: %lld. Current "
                    "WriteCapacityUnits provisioned for the table: %lld. "
                    "Requested WriteCapacityUnits: %lld. Refer to the Amazon "
                    "DynamoDB Developer Guide for current limits and how to "
                    "request higher limits.", cr, r, cw, w);
        goto out;
    }

    /* To provisioned: every GSI needs throughput too (an Update in the
     * same request). */
    if (strcmp(cur_mode, "PAY_PER_REQUEST") == 0 &&
        strcmp(eff_mode, "PROVISIONED") == 0 &&
        check_gsis_get_throughput(desc, gsiu, err) != 0)
        goto out;
    /* Index updates first: they can still fail. */
    if (gsiu != NULL &&
        apply_gsi_updates(ctx, req, t, desc,
                          strcmp(eff_mode, "PAY_PER_REQUEST") == 0,
                          pt != NULL, now, err) != 0)
        goto out;

    /* Apply. */
    now_j = epoch_json(now);
    if (strcmp(eff_mode, "PAY_PER_REQUEST") == 0 &&
        strcmp(cur_mode, "PAY_PER_REQUEST") != 0) {
        /* To on-demand: throughput shows 0/0 from now on (GSIs too). */
        gsis_zero_throughput(desc);
        json_object_set_new(tpt, "ReadCapacityUnits", json_integer(0));
        json_object_set_new(tpt, "WriteCapacityUnits", json_integer(0));
        bms = json_object_get(desc, "BillingModeSummary");
        if (!json_is_object(bms)) {
            bms = json_object();
            json_object_set_new(desc, "BillingModeSummary", bms);
        }
        json_object_set_new(bms, "BillingMode",
                            json_string("PAY_PER_REQUEST"));
        json_object_set(bms, "LastUpdateToPayPerRequestDateTime", now_j);
    } else if (pt != NULL) {
        if (strcmp(cur_mode, "PAY_PER_REQUEST") == 0) {
            bms = json_object_get(desc, "BillingModeSummary");
            json_object_set_new(bms, "BillingMode",
                                json_string("PROVISIONED"));
            json_object_del(desc, "OnDemandThroughput");
        } else {
            if (r > cr || w > cw)
                json_object_set(tpt, "LastIncreaseDateTime", now_j);
            if (r < cr || w < cw) {
                dec = int_member(tpt, "NumberOfDecreasesToday");
                if (dec < 0 || utc_day(json_object_get(
                                   tpt, "LastDecreaseDateTime")) !=
                                   (long long)(now / 1000u / 86400u))
                    dec = 0;
                json_object_set(tpt, "LastDecreaseDateTime", now_j);
                json_object_set_new(tpt, "NumberOfDecreasesToday",
                                    json_integer((json_int_t)dec + 1));
            }
        }
        json_object_set_new(tpt, "ReadCapacityUnits",
                            json_integer((json_int_t)r));
        json_object_set_new(tpt, "WriteCapacityUnits",
                            json_integer((json_int_t)w));
    }
    if (odt != NULL) {
        json_object_set_new(desc, "OnDemandThroughput", odt);
        odt = NULL;
    }
    if (cls != NULL)
        json_object_set_new(desc, "TableClassSummary",
                            json_pack("{s:s, s:O}", "TableClass", cls,
                                      "LastUpdateDateTime", now_j));
    if (dp != NULL)
        json_object_set(desc, "DeletionProtectionEnabled", (json_t *)dp);
    if (sse != NULL) {
        ssed = sse_description(ctx, sse);
        if (ssed != NULL)
            json_object_set_new(desc, "SSEDescription", ssed);
        else if (json_is_false(json_object_get(sse, "Enabled")))
            json_object_del(desc, "SSEDescription");
    }
    set_status(ctx, desc, "UPDATING", now);
    if (stable_set_desc(t, desc, err) != 0)
        goto out;
    /* Throttling: more partitions for more throughput (splits), new
     * bucket rates (api/op_common.c). */
    if (gate_table_resize(ctx, t, desc, err) != 0)
        goto out;
    rc = 0;
out:
    pthread_mutex_unlock(&ddl_lock);
    if (rc == 0)
        *resp = json_pack("{s:o}", "TableDescription", public_desc(ctx->srv->st, t, desc));
    json_decref(now_j);
    json_decref(odt);
    json_decref(desc);
    if (t != NULL)
        stable_release(t);
    return rc;
}

/* ------------------------------------------------------------------------
 * DeleteTable
 * ---------------------------------------------------------------------- */

int
api_delete_table(struct api_ctx *ctx, const json_t *req, json_t **resp,
                 struct ddb_err *err)
{
    const char *param, *status;
    char name[1100];
    struct stable *t = NULL;
    json_t *desc = NULL, *pub = NULL;
    uint64_t now = req_now_ms(ctx);
    unsigned delay = status_delay(ctx);
    int rc = -1, o;

    param = req_table_name(req, err);
    if (param == NULL)
        return -1;
    if (!name_from_param(ctx, param, name, sizeof(name)))
        return not_found_named(param, err);
    pthread_mutex_lock(&ddl_lock);
    o = open_settled(ctx, name, true, &t, &desc, err);
    if (o < 0)
        goto out;
    if (o > 0) {
        not_found_named(param, err);
        goto out;
    }
    status = desc_str(desc, "TableStatus");
    /* DynamoDB: "If table is already in the DELETING state, no error is
     * returned." CREATING and UPDATING are ResourceInUseException. */
    if (status != NULL && strcmp(status, "DELETING") == 0) {
        pub = public_desc(ctx->srv->st, t, desc);
        rc = 0;
        goto out;
    }
    if (check_in_use(desc, name, err) != 0)
        goto out;
    if (json_is_true(json_object_get(desc, "DeletionProtectionEnabled"))) {
        ddb_err_set(err, DDB_VALIDATION,
                    "Resource cannot be deleted as it is currently protected "
                    "against deletion. Disable deletion protection first.");
        goto out;
    }
    json_object_set_new(desc, "TableStatus", json_string("DELETING"));
    if (json_is_object(json_object_get(desc, "WarmThroughput")))
        json_object_set_new(json_object_get(desc, "WarmThroughput"),
                            "Status", json_string("DELETING"));
    pub = public_desc(ctx->srv->st, t, desc);
    if (delay == 0) {
        stable_release(t);
        t = NULL;
        if (storage_table_delete(ctx->srv->st, name, err) != 0 &&
            err != NULL && err->type != DDB_OK &&
            err->type != DDB_RESOURCE_NOT_FOUND)
            goto out;
        if (err != NULL)
            ddb_err_clear(err);
        index_drop_all(ctx->srv->st, name);
        gate_table_dropped(ctx, name);
    } else {
        json_object_set_new(desc, PRIV_UNTIL,
                            json_integer((json_int_t)(now + delay)));
        if (stable_set_desc(t, desc, err) != 0)
            goto out;
    }
    rc = 0;
out:
    pthread_mutex_unlock(&ddl_lock);
    if (rc == 0)
        *resp = json_pack("{s:o}", "TableDescription", pub);
    else
        json_decref(pub);
    json_decref(desc);
    if (t != NULL)
        stable_release(t);
    return rc;
}

/* ------------------------------------------------------------------------
 * Data operations: resolve TableName to an open table
 * ---------------------------------------------------------------------- */

/*
 * DynamoDB answers data operations on a table that is not ACTIVE yet
 * (CREATING) or is going away (DELETING) with ResourceNotFoundException
 * "Requested resource not found"; UPDATING tables stay usable. One deep
 * copy of the description per call (stable_desc); callers that need the
 * description use api_open_table_desc() so they do not copy it again.
 */
int
api_open_table_desc(struct api_ctx *ctx, const json_t *req,
                    struct stable **t, json_t **desc, struct ddb_err *err)
{
    const char *param, *status;
    char name[1100];
    struct stable *tab = NULL;
    json_t *d = NULL;
    int o;

    param = req_table_name(req, err);
    if (param == NULL)
        return -1;
    if (!name_from_param(ctx, param, name, sizeof(name)))
        return ddb_err_set(err, DDB_RESOURCE_NOT_FOUND,
                           "Requested resource not found");
    o = open_settled(ctx, name, false, &tab, &d, err);
    if (o < 0)
        return -1;
    if (o > 0)
        return ddb_err_set(err, DDB_RESOURCE_NOT_FOUND,
                           "Requested resource not found");
    status = desc_str(d, "TableStatus");
    if (status != NULL && (strcmp(status, "CREATING") == 0 ||
                           strcmp(status, "DELETING") == 0)) {
        json_decref(d);
        stable_release(tab);
        return ddb_err_set(err, DDB_RESOURCE_NOT_FOUND,
                           "Requested resource not found");
    }
    *t = tab;
    if (desc != NULL)
        *desc = d;
    else
        json_decref(d);
    return 0;
}

/*
 * The data-plane hot path: like api_open_table_desc(), but *desc is the
 * store's shared description (stable_desc_ref: read-only, no copy) when no
 * status transition is due, which is every request but the first after a
 * CREATING/UPDATING/DELETING period ends; that one takes the slow path.
 */
int
api_open_table_ref(struct api_ctx *ctx, const json_t *req,
                   struct stable **t, json_t **desc, struct ddb_err *err)
{
    const char *param, *status;
    char name[1100];
    struct stable *tab;
    json_t *d, *until;

    param = req_table_name(req, err);
    if (param == NULL)
        return -1;
    if (!name_from_param(ctx, param, name, sizeof(name)))
        return ddb_err_set(err, DDB_RESOURCE_NOT_FOUND,
                           "Requested resource not found");
    tab = storage_table_get(ctx->srv->st, name);
    if (tab == NULL)
        return ddb_err_set(err, DDB_RESOURCE_NOT_FOUND,
                           "Requested resource not found");
    d = stable_desc_ref(tab);
    until = json_object_get(d, PRIV_UNTIL);
    if (d == NULL || (json_is_integer(until) &&
                      (uint64_t)json_integer_value(until) <= req_now_ms(ctx))) {
        json_decref(d);
        stable_release(tab);
        return api_open_table_desc(ctx, req, t, desc, err);
    }
    status = desc_str(d, "TableStatus");
    if (status != NULL && (strcmp(status, "CREATING") == 0 ||
                           strcmp(status, "DELETING") == 0)) {
        json_decref(d);
        stable_release(tab);
        return ddb_err_set(err, DDB_RESOURCE_NOT_FOUND,
                           "Requested resource not found");
    }
    *t = tab;
    *desc = d;
    return 0;
}

int
api_open_table(struct api_ctx *ctx, const json_t *req, struct stable **t,
               struct ddb_err *err)
{
    return api_open_table_desc(ctx, req, t, NULL, err);
}

/* ------------------------------------------------------------------------
 * Table
 * ---------------------------------------------------------------------- */

int
table_ref_open(struct api_ctx *ctx, const json_t *req, struct table_ref *ot,
              struct ddb_err *err)
{
    json_t *desc = NULL;
    int rc = -1;

    memset(ot, 0, sizeof(*ot));
    /* No description copy per request: only the key schema is read. */
    if (api_open_table_ref(ctx, req, &ot->t, &desc, err) != 0) {
        ot->t = NULL;
        return -1;
    }
    if (desc == NULL) {
        ddb_err_set(err, DDB_INTERNAL, "table has no description");
        goto out;
    }
    if (key_schema_from_desc(desc, &ot->ks, err) != 0)
        goto out;
    ot->name = stable_name(ot->t);
    rc = 0;
out:
    json_decref(desc);
    if (rc != 0)
        table_ref_close(ot);
    return rc;
}

void
table_ref_close(struct table_ref *ot)
{
    if (ot->t != NULL)
        stable_release(ot->t);
    ot->t = NULL;
    ot->name = NULL;
}

