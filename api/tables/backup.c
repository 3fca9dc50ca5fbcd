/* SPDX-License-Identifier: MIT */
/* backup.c - on-demand backups: CreateBackup (a consistent copy of the
 * table and its indexes, storage/backup.c), DescribeBackup, ListBackups,
 * DeleteBackup, what RestoreTableFromBackup (restore.c) shares with them,
 * and DescribeContinuousBackups. A backup is named by its ARN,
 * <table ARN>/backup/<14-digit creation ms>-<8 hex>, keeps what DynamoDB
 * records of its table (ack-api-quirks DDB-BACKUP-009, 2026-10: keys,
 * indexes, throughput, stream, TTL and encryption; not tags, policies,
 * table class or deletion protection) and outlives the table. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/rand.h>

#include "api/index/index.h"
#include "api/proto/context.h"
#include "api/tables/tables.h"
#include "api/tables/tables_int.h"
#include "storage/util.h"

#define BACKUP_LIST_MAX 100

/* ------------------------------------------------------------------------
 * Backup ARNs
 * ---------------------------------------------------------------------- */

/*
 * The backup BackupArn s names, as DynamoDB finds it (DDB-BACKUP-012): a
 * table ARN or something else is "Invalid Backup ARN", an unknown
 * partition, service or region "not valid", another account denied; the
 * region is otherwise ignored (the backup is the account's, table's and
 * id's). A new reference to the store's entry, or NULL with err set.
 */
json_t *
tables_backup_find(const struct api_ctx *ctx, const char *s,
                   struct tables_arn *a, struct ddb_err *err)
{
    int parsed = tables_arn_parse(s, a);
    char stored[TABLES_NAME_MAX];
    json_t *row;

    if (parsed == 0 && strstr(s, "/backup/") != NULL &&
        (strcmp(a->service, "dynamodb") != 0 ||
         strcmp(a->partition, "aws") != 0 ||
         (a->region[0] != '\0' && !tables_region_known(a->region)))) {
        ddb_err_set(err, DDB_VALIDATION, "Invalid Request: BackupArn is not "
                    "valid");
        return NULL;
    }
    if (parsed != 0 || a->kind != ARN_BACKUP || !tables_arn_name_ok(a)) {
        ddb_err_set(err, DDB_VALIDATION, "Invalid Backup ARN");
        return NULL;
    }
    if (a->region[0] == '\0' || strcmp(a->account, tables_account(ctx)) != 0) {
        ddb_err_set(err, DDB_ACCESS_DENIED, "Access is denied");
        return NULL;
    }
    row = storage_backup_get(ctx->srv->st, a->sub);
    if (row == NULL ||
        !api_table_stored(ctx, a->account, a->table, stored,
                          sizeof(stored)) ||
        json_is_true(json_object_get(json_object_get(row, "meta"),
                                     "_slPitr")) ||
        !json_str_is(json_object_get(json_object_get(row, "meta"),
                                     "TableName"), stored)) {
        json_decref(row);
        ddb_err_set(err, DDB_BACKUP_NOT_FOUND, "Backup not found: %s", s);
        return NULL;
    }
    return row;
}

/* ------------------------------------------------------------------------
 * Descriptions
 * ---------------------------------------------------------------------- */

/* A member of the stored entry row: the table's own (first) copy. */
static const json_t *
base_member(const json_t *row)
{
    return json_array_get(json_object_get(row, "members"), 0);
}

/* BackupDetails for row with status, the ARN shown being arn. */
static json_t *
details(const json_t *row, const char *arn, const char *status)
{
    const json_t *meta = json_object_get(row, "meta");

    return json_pack("{s:s, s:O, s:O, s:s, s:O, s:o}", "BackupArn", arn,
                     "BackupName", json_object_get(meta, "BackupName"),
                     "BackupSizeBytes", json_object_get(base_member(row),
                                                        "bytes"),
                     "BackupStatus", status, "BackupType",
                     json_object_get(meta, "BackupType"),
                     "BackupCreationDateTime",
                     tables_epoch((uint64_t)json_integer_value(
                         json_object_get(meta, "CreatedMs"))));
}

/* {"ReadCapacityUnits", "WriteCapacityUnits"} of a description's
 * ProvisionedThroughput (0/0 on demand). */
static json_t *
throughput_of(const json_t *d)
{
    const json_t *pt = json_object_get(d, "ProvisionedThroughput");

    return json_pack("{s:I, s:I}", "ReadCapacityUnits",
                     (json_int_t)(tables_uint(pt, "ReadCapacityUnits") > 0
                                      ? tables_uint(pt, "ReadCapacityUnits")
                                      : 0),
                     "WriteCapacityUnits",
                     (json_int_t)(tables_uint(pt, "WriteCapacityUnits") > 0
                                      ? tables_uint(pt, "WriteCapacityUnits")
                                      : 0));
}

/* The indexes as a backup records them (DDB-BACKUP-021): name, keys,
 * projection, and a GSI's throughput. */
static json_t *
index_infos(const json_t *src, bool global)
{
    json_t *out = json_array(), *info;
    const json_t *idx;
    size_t i;

    json_array_foreach(json_object_get(src, global ? "GlobalSecondaryIndexes"
                                                   : "LocalSecondaryIndexes"),
                       i, idx) {
        info = json_pack("{s:O, s:O, s:O}", "IndexName",
                         json_object_get(idx, "IndexName"), "KeySchema",
                         json_object_get(idx, "KeySchema"), "Projection",
                         json_object_get(idx, "Projection"));
        if (global) {
            json_object_set_new(info, "ProvisionedThroughput",
                                throughput_of(idx));
            if (json_has(idx, "OnDemandThroughput"))
                json_object_set(info, "OnDemandThroughput",
                                json_object_get(idx, "OnDemandThroughput"));
        }
        json_array_append_new(out, info);
    }
    return out;
}

/* SourceTableFeatureDetails: each feature only when the table had it
 * (DDB-BACKUP-004: {} for a plain table). */
static json_t *
features(const json_t *src)
{
    const json_t *ss = json_object_get(src, "StreamSpecification");
    const json_t *ttl = json_object_get(src, "_slTtl");
    const json_t *sse = json_object_get(src, "SSEDescription");
    json_t *out = json_object(), *l;

    l = index_infos(src, false);
    if (json_array_size(l) > 0)
        json_object_set(out, "LocalSecondaryIndexes", l);
    json_decref(l);
    l = index_infos(src, true);
    if (json_array_size(l) > 0)
        json_object_set(out, "GlobalSecondaryIndexes", l);
    json_decref(l);
    if (json_is_true(json_object_get(ss, "StreamEnabled")))
        json_object_set_new(out, "StreamDescription", json_clone(ss));
    if (json_is_true(json_object_get(ttl, "enabled")))
        json_object_set_new(out, "TimeToLiveDescription",
                            json_pack("{s:s, s:O}", "TimeToLiveStatus",
                                      "ENABLED", "AttributeName",
                                      json_object_get(ttl, "attr")));
    if (json_is_object(sse))
        json_object_set_new(out, "SSEDescription",
                            json_pack("{s:O, s:O, s:O}", "Status",
                                      json_object_get(sse, "Status"),
                                      "SSEType",
                                      json_object_get(sse, "SSEType"),
                                      "KMSMasterKeyArn",
                                      json_object_get(sse,
                                                      "KMSMasterKeyArn")));
    return out;
}

bool
tables_on_demand(const json_t *desc)
{
    return json_str_is(json_object_get(json_object_get(desc,
                                                       "BillingModeSummary"),
                                       "BillingMode"),
                       "PAY_PER_REQUEST");
}

/* The name clients know a backup's table by (meta keeps the stored one). */
static const char *
public_name(const json_t *meta)
{
    const char *n = tables_str(meta, "TableName");

    return api_table_public(n != NULL ? n : "");
}

/* BackupDescription: details, SourceTableDetails, features. */
static json_t *
description(const json_t *row, const char *arn, const char *status)
{
    const json_t *meta = json_object_get(row, "meta");
    const json_t *src = json_object_get(meta, "Source");
    const json_t *m = base_member(row);
    json_t *std;

    std = json_pack("{s:s, s:O, s:O, s:O, s:O, s:O, s:o}", "TableName",
                    public_name(meta), "TableId",
                    json_object_get(meta, "TableId"), "TableArn",
                    json_object_get(meta, "TableArn"), "TableSizeBytes",
                    json_object_get(m, "bytes"), "KeySchema",
                    json_object_get(src, "KeySchema"),
                    "TableCreationDateTime",
                    json_object_get(src, "CreationDateTime"),
                    "ProvisionedThroughput", throughput_of(src));
    if (json_has(src, "OnDemandThroughput"))
        json_object_set(std, "OnDemandThroughput",
                        json_object_get(src, "OnDemandThroughput"));
    json_object_set(std, "ItemCount", json_object_get(m, "items"));
    json_object_set_new(std, "BillingMode",
                        json_string(tables_on_demand(src) ? "PAY_PER_REQUEST"
                                                          : "PROVISIONED"));
    return json_pack("{s:o, s:o, s:o}", "BackupDetails",
                     details(row, arn, status), "SourceTableDetails", std,
                     "SourceTableFeatureDetails", features(src));
}

/* ------------------------------------------------------------------------
 * Restores in progress (restore.c sets RestoreSummary while CREATING)
 * ---------------------------------------------------------------------- */

/*
 * Is a table being restored from the backup with id key (its restore still
 * CREATING)? Then its name goes to table and the answer is true: one
 * backup feeds one restore at a time (DDB-BACKUP-010). Under the DDL
 * lock, so that a restore starting or DeleteBackup cannot slip between.
 */
bool
tables_restoring_from(struct api_ctx *ctx, const char *key, char *table,
                      size_t tablesz)
{
    json_t *names = storage_table_names(ctx->srv->st), *desc;
    const char *n, *src;
    struct stable *t;
    struct ddb_err e;
    bool found = false;
    size_t i;

    ddb_err_init(&e);
    for (i = 0; i < json_array_size(names) && !found; i++) {
        n = json_string_value(json_array_get(names, i));
        if (n == NULL || index_is_hidden_name(n) ||
            tables_open_settled(ctx, n, true, &t, &desc, &e) != 0) {
            ddb_err_clear(&e);
            continue;
        }
        src = tables_str(json_object_get(desc, "RestoreSummary"),
                         "SourceBackupArn");
        found = src != NULL && json_str_is(json_object_get(desc,
                                                           "TableStatus"),
                                           "CREATING") &&
                strlen(src) > strlen(key) &&
                strcmp(src + strlen(src) - strlen(key), key) == 0;
        if (found)
            snprintf(table, tablesz, "%s", n);
        json_decref(desc);
        stable_release(t);
    }
    json_decref(names);
    return found;
}

/* ------------------------------------------------------------------------
 * CreateBackup
 * ---------------------------------------------------------------------- */

/* The table's description as a backup keeps it: public members, and of
 * the private ones its Time to Live. */
json_t *
tables_backup_source(const json_t *desc)
{
    json_t *out = json_object();
    const char *k;
    json_t *v;

    json_object_foreach((json_t *)desc, k, v)
        if (strncmp(k, PRIV_PREFIX, strlen(PRIV_PREFIX)) != 0 ||
            strcmp(k, "_slTtl") == 0)
            json_object_set_new(out, k, json_clone(v));
    json_object_del(out, "RestoreSummary");
    return out;
}

/* Handles on table t and its indexes' hidden tables into tabs (at most
 * max), their names' order being the backup's members'. Returns how many;
 * the caller releases tabs[1..]. An index on its way out is left out. */
static size_t
members_of(struct storage *st, struct stable *t, const json_t *desc,
           struct stable **tabs, size_t max)
{
    static const char *const lists[2] = { "GlobalSecondaryIndexes",
                                          "LocalSecondaryIndexes" };
    const char *table = stable_name(t);
    char hidden[TABLES_NAME_MAX + 300];
    const json_t *idx;
    size_t n = 0, i, j;

    tabs[n++] = t;
    for (i = 0; i < 2; i++)
        json_array_foreach(json_object_get(desc, lists[i]), j, idx) {
            if (n == max ||
                json_str_is(json_object_get(idx, "IndexStatus"), "DELETING"))
                continue;
            index_table_name(table, tables_str(idx, "IndexName"), hidden,
                             sizeof(hidden));
            tabs[n] = storage_table_get(st, hidden);
            if (tabs[n] != NULL)
                n++;
        }
    return n;
}

/*
 * A table still CREATING is "not found" to CreateBackup, as a missing one
 * is (DDB-BACKUP-001); UPDATING and DELETING tables are backed up. The
 * backup is whole when the call returns: DynamoDB's answer still says
 * CREATING (DDB-BACKUP-003), and DescribeBackup AVAILABLE.
 */
int
api_create_backup(struct api_ctx *ctx, const json_t *req, json_t **resp,
                  struct ddb_err *err)
{
    const char *param = tables_req_name(req, err);
    struct stable *tabs[2 * INDEX_GSI_MAX + 8];
    char name[TABLES_NAME_MAX], id[9], key[40];
    uint8_t rnd[4] = { 0 };
    char arn[TABLES_NAME_MAX + 200];
    json_t *desc = NULL, *meta = NULL, *row;
    uint64_t now = tables_now_ms(ctx);
    size_t n = 0, i;
    int o, rc = -1;

    if (param == NULL)
        return -1;
    if (!tables_name_from_param(ctx, param, name, sizeof(name)))
        return ddb_err_set(err, DDB_TABLE_NOT_FOUND, "Table not found: %s",
                           param);
    if (tables_check_access(ctx, name, err) != 0)
        return -1;
    o = tables_open_settled(ctx, name, false, &tabs[0], &desc, err);
    if (o < 0)
        return -1;
    if (o > 0 || json_str_is(json_object_get(desc, "TableStatus"),
                             "CREATING")) {
        if (o == 0) {
            json_decref(desc);
            stable_release(tabs[0]);
        }
        return ddb_err_set(err, DDB_TABLE_NOT_FOUND, "Table not found: %s",
                           api_table_public(name));
    }
    n = members_of(ctx->srv->st, tabs[0], desc, tabs,
                   sizeof(tabs) / sizeof(tabs[0]));
    (void)RAND_bytes(rnd, (int)sizeof(rnd));
    hex_encode(rnd, sizeof(rnd), id);
    snprintf(key, sizeof(key), "%014llu-%s", (unsigned long long)now, id);
    snprintf(arn, sizeof(arn), "%s/backup/%s",
             tables_str(desc, "TableArn"), key);
    meta = json_pack("{s:s, s:O, s:I, s:s, s:s, s:O, s:O, s:o}", "BackupArn",
                     arn, "BackupName", json_object_get(req, "BackupName"),
                     "CreatedMs", (json_int_t)now, "BackupType", "USER",
                     "TableName", name, "TableId",
                     json_object_get(desc, "TableId"), "TableArn",
                     json_object_get(desc, "TableArn"), "Source",
                     tables_backup_source(desc));
    if (storage_backup_create(ctx->srv->st, key, tabs, n, meta, err) != 0)
        goto out;
    row = storage_backup_get(ctx->srv->st, key);
    if (row == NULL) {
        ddb_err_set(err, DDB_INTERNAL, "backup vanished");
        goto out;
    }
    *resp = json_pack("{s:o}", "BackupDetails",
                      details(row, arn, "CREATING"));
    json_decref(row);
    rc = 0;
out:
    for (i = 0; i < n; i++)
        stable_release(tabs[i]);
    json_decref(meta);
    json_decref(desc);
    return rc;
}

/* ------------------------------------------------------------------------
 * DescribeBackup, DeleteBackup
 * ---------------------------------------------------------------------- */

int
api_describe_backup(struct api_ctx *ctx, const json_t *req, json_t **resp,
                    struct ddb_err *err)
{
    const char *arn = tables_str(req, "BackupArn");
    struct tables_arn a;
    json_t *row = tables_backup_find(ctx, arn, &a, err);

    if (row == NULL)
        return -1;
    *resp = json_pack("{s:o}", "BackupDescription",
                      description(row, arn, "AVAILABLE"));
    json_decref(row);
    return 0;
}

/* DELETED at once, with the full description (DDB-BACKUP-005). */
int
api_delete_backup(struct api_ctx *ctx, const json_t *req, json_t **resp,
                  struct ddb_err *err)
{
    const char *arn = tables_str(req, "BackupArn");
    char table[TABLES_NAME_MAX];
    struct tables_arn a;
    json_t *row = tables_backup_find(ctx, arn, &a, err);
    int rc = -1;

    if (row == NULL)
        return -1;
    api_ddl_lock();
    if (tables_restoring_from(ctx, a.sub, table, sizeof(table)))
        ddb_err_set(err, DDB_BACKUP_IN_USE, "Backup is being used to restore "
                    "table: %s", arn);
    else
        rc = storage_backup_delete(ctx->srv->st, a.sub, err);
    api_ddl_unlock();
    if (rc != 0) {
        if (err->type == DDB_RESOURCE_NOT_FOUND)
            ddb_err_set(err, DDB_BACKUP_NOT_FOUND, "Backup not found: %s",
                        arn);
        goto out;
    }
    *resp = json_pack("{s:o}", "BackupDescription",
                      description(row, arn, "DELETED"));
    rc = 0;
out:
    json_decref(row);
    return rc;
}

/* ------------------------------------------------------------------------
 * ListBackups
 * ---------------------------------------------------------------------- */

/* A date-time member (epoch seconds) in ms; -1 when absent. */
long long
tables_time_ms(const json_t *req, const char *name)
{
    const json_t *v = json_object_get(req, name);

    double ms;

    if (!json_is_number(v))
        return -1;
    ms = json_number_value(v) * 1000.0 + 0.5;
    /* clamped before the conversion: 1e300 seconds is no overflow */
    return ms <= 0 ? 0 : ms >= 9e15 ? 9000000000000000LL : (long long)ms;
}

/* Creation order: the time at the head of the key, then the catalog's
 * order ("pos"), which tells apart backups made in the same millisecond
 * (a virtual clock that does not move). */
static int
order_cmp(const void *a, const void *b)
{
    const json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
    int c = strncmp(tables_str(x, "key"), tables_str(y, "key"), 14);
    json_int_t d;

    if (c != 0)
        return c;
    d = json_integer_value(json_object_get(x, "pos")) -
        json_integer_value(json_object_get(y, "pos"));
    return d < 0 ? -1 : d > 0;
}

/* One summary of a stored entry. */
static json_t *
summary(const json_t *row)
{
    const json_t *meta = json_object_get(row, "meta");
    json_t *d = details(row, json_string_value(json_object_get(meta,
                                                               "BackupArn")),
                        "AVAILABLE");
    json_t *s = json_pack("{s:s, s:O, s:O}", "TableName",
                          public_name(meta), "TableId",
                          json_object_get(meta, "TableId"), "TableArn",
                          json_object_get(meta, "TableArn"));

    json_object_update(s, d);
    json_decref(d);
    return s;
}

/*
 * The account's backups, oldest first: USER ones unless BackupType says
 * otherwise (SYSTEM and AWS_BACKUP ones are never made here), of one
 * table if asked (a deleted or missing table's too), created in
 * [TimeRangeLowerBound, TimeRangeUpperBound) at ms precision, after
 * ExclusiveStartBackupArn's position, Limit at a time (DDB-BACKUP-014).
 */
int
api_list_backups(struct api_ctx *ctx, const json_t *req, json_t **resp,
                 struct ddb_err *err)
{
    const char *param = tables_str(req, "TableName");
    const char *type = tables_str(req, "BackupType");
    const char *start = tables_str(req, "ExclusiveStartBackupArn");
    long long lo = tables_time_ms(req, "TimeRangeLowerBound");
    long long hi = tables_time_ms(req, "TimeRangeUpperBound");
    long long limit = tables_uint(req, "Limit");
    char name[TABLES_NAME_MAX], obuf[13];
    struct tables_arn sa;
    json_t *all, *rows, *out, *row, *after = NULL;
    const json_t *meta;
    size_t i, n;
    json_t **v;

    if (lo >= 0 && hi >= 0 && lo > hi)
        return ddb_err_set(err, DDB_VALIDATION, "One or more parameter "
                           "values were invalid: Time range lower bound "
                           "must be less than or equal to upper bound");
    if (start != NULL && tables_arn_parse(start, &sa) == 0 &&
        sa.kind == ARN_BACKUP && strcmp(sa.region, tables_region(ctx)) != 0)
        return ddb_err_set(err, DDB_VALIDATION, "Invalid Request: The "
                           "supplied ExclusiveStartBackupArn does not match "
                           "the region");
    if (param != NULL &&
        !tables_name_from_param(ctx, param, name, sizeof(name)))
        name[0] = '\0';
    if (limit <= 0)
        limit = BACKUP_LIST_MAX;
    all = storage_backup_list(ctx->srv->st);
    rows = json_array();
    json_array_foreach(all, i, row) {
        json_object_set_new(row, "pos", json_integer((json_int_t)i));
        if (start != NULL && json_str_is(json_object_get(row, "key"),
                                         sa.sub))
            after = row;
    }
    json_array_foreach(all, i, row) {
        long long at;

        meta = json_object_get(row, "meta");
        at = (long long)json_integer_value(json_object_get(meta,
                                                           "CreatedMs"));
        if (json_is_true(json_object_get(meta, "_slPitr")) ||
            strcmp(api_table_owner(ctx, tables_str(meta, "TableName") != NULL
                                            ? tables_str(meta, "TableName")
                                            : "", obuf),
                   api_account(ctx)) != 0 ||
            (type != NULL && strcmp(type, "ALL") != 0 &&
             !json_str_is(json_object_get(meta, "BackupType"), type)) ||
            (param != NULL && !json_str_is(json_object_get(meta,
                                                           "TableName"),
                                           name)) ||
            (lo >= 0 && at < lo) || (hi >= 0 && at >= hi) ||
            (start != NULL &&
             (after != NULL ? order_cmp(&row, &after) <= 0
                            : strcmp(tables_str(row, "key"), sa.sub) <= 0)))
            continue;
        json_array_append(rows, row);
    }
    json_decref(all);
    n = json_array_size(rows);
    v = xcalloc(n + 1, sizeof(*v));
    for (i = 0; i < n; i++)
        v[i] = json_array_get(rows, i);
    qsort(v, n, sizeof(*v), order_cmp);
    out = json_array();
    for (i = 0; i < n && (long long)i < limit; i++)
        json_array_append_new(out, summary(v[i]));
    *resp = json_pack("{s:o}", "BackupSummaries", out);
    if (n > (size_t)limit)
        json_object_set(*resp, "LastEvaluatedBackupArn",
                        json_object_get(json_object_get(v[limit - 1], "meta"),
                                        "BackupArn"));
    free(v);
    json_decref(rows);
    return 0;
}
