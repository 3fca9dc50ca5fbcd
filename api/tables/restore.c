/* SPDX-License-Identifier: MIT */
/* restore.c - RestoreTableFromBackup: a new table with the backup's items,
 * keys, indexes, billing mode, throughput and encryption, with the
 * overrides DynamoDB allows (billing mode, throughput, on-demand maxima,
 * a subset of the indexes, possibly renamed, and encryption). The restore
 * amounts to a CreateTable request checked and described by check.c and
 * describe.c, whose partitions storage fills from the backup before the
 * catalog names them (storage/backup.c). What DynamoDB drops on a restore
 * is dropped here too: tags, streams, TTL, the resource policy, table
 * class, deletion protection (ack-api-quirks DDB-TABLE-215, 2026-10). */
#include <stdio.h>
#include <string.h>

#include "api/index/index.h"
#include "api/proto/context.h"
#include "api/proto/validate.h"
#include "api/tables/tables.h"
#include "api/tables/tables_int.h"
#include "api/throttle/gate.h"
#include "storage/util.h"

/* One restore. */
struct rst {
    const json_t *req;                  /* borrowed: the request */
    const char *arn;                    /* borrowed: its BackupArn */
    const char *target;                 /* borrowed: TargetTableName */
    struct tables_arn a;                /* the ARN taken apart */
    json_t *row;                        /* owned: the backup's entry */
    const json_t *src;                  /* its table's description */
    const char *mode;                   /* BillingModeOverride, or NULL */
    bool on_demand;                     /* the restored table's billing */
    json_t *creq;                       /* owned: the CreateTable request
                                           the restore amounts to */
    json_t *imap;                       /* owned: [{"from", "to"}], each
                                           index restored */
    /* RestoreTableToPointInTime: */
    bool pitr;                          /* restoring a time, not a backup */
    char source[TABLES_NAME_MAX];       /* the source table */
    uint64_t at_ms;                     /* the time restored */
    uint64_t shown_ms;                  /* the time asked for */
    json_t *src_own;                    /* owned: r->src */
};

#define INVALID "Invalid Request: "

/* ------------------------------------------------------------------------
 * The request's own checks
 * ---------------------------------------------------------------------- */

/* TargetTableName: its length with DynamoDB's own words, before the
 * pattern in the framework's (DDB-TABLE-457, DDB-TABLE-100). */
static int
check_target(const json_t *req, struct ddb_err *err)
{
    const json_t *v = json_object_get(req, "TargetTableName");
    long long n = validate_utf16_len(json_string_value(v),
                                     json_string_length(v));

    if (n < 3 || n > 255)
        return ddb_err_set(err, DDB_VALIDATION, "TableName must be at least "
                           "3 characters long and at most 255 characters "
                           "long");
    if (!validate_is_name(json_string_value(v), json_string_length(v)))
        return ddb_err_set(err, DDB_VALIDATION, "1 validation error "
                           "detected: Value '%s' at 'targetTableName' failed "
                           "to satisfy constraint: Member must satisfy "
                           "regular expression pattern: [a-zA-Z0-9_.-]+",
                           json_string_value(v));
    return 0;
}

/* An OnDemandThroughputOverride's maxima: -1 (none) or at least 1. An
 * empty one is taken as absent (DynamoDB answers it with a self-inflicted
 * TableInUseException yet restores: DDB-TABLE-463; we do not copy that). */
static int
check_odt(const json_t *odt, struct ddb_err *err)
{
    static const char *const m[2] = { "MaxReadRequestUnits",
                                      "MaxWriteRequestUnits" };

    for (int i = 0; i < 2; i++) {
        const json_t *v = json_object_get(odt, m[i]);

        if (v != NULL && (!json_is_integer(v) ||
                          (json_integer_value(v) != -1 &&
                           json_integer_value(v) < 1)))
            return ddb_err_set(err, DDB_VALIDATION, INVALID "Requested %s "
                               "for OnDemandThroughput is outside of valid "
                               "range", m[i]);
    }
    return 0;
}

/* ------------------------------------------------------------------------
 * Indexes: which ones, under which names
 * ---------------------------------------------------------------------- */

/* An index's shape for matching: its keys and projection, as they are
 * described (names, key types; projection type and attributes). */
static json_t *
shape_of(const json_t *idx)
{
    const json_t *proj = json_object_get(idx, "Projection"), *el;
    json_t *keys = json_array(), *nka;
    size_t i;

    json_array_foreach(json_object_get(idx, "KeySchema"), i, el)
        json_array_append_new(keys, json_pack("{s:O?, s:O?}",
                                              "AttributeName",
                                              json_object_get(
                                                  el, "AttributeName"),
                                              "KeyType",
                                              json_object_get(el,
                                                              "KeyType")));
    nka = json_clone(json_object_get(proj, "NonKeyAttributes"));
    return json_pack("{s:o, s:O?, s:o}", "keys", keys, "type",
                     json_object_get(proj, "ProjectionType"), "nka",
                     nka != NULL ? nka : json_array());
}

/* The source index (in list, borrowed) an override matches: the one of
 * the same name if its shape matches, else any of the same shape (a
 * rename, DDB-TABLE-273); NULL when none does. */
static const json_t *
match_index(const json_t *list, const json_t *ov)
{
    json_t *want = shape_of(ov), *have;
    const json_t *idx, *found = NULL;
    size_t i;

    json_array_foreach(list, i, idx) {
        have = shape_of(idx);
        if (json_same(have, want) &&
            (found == NULL || json_same(json_object_get(idx, "IndexName"),
                                        json_object_get(ov, "IndexName"))))
            found = idx;
        json_decref(have);
    }
    json_decref(want);
    return found;
}

/* The CreateTable entry of one restored index: src (the source's
 * description of it) under the override's name, with the throughput the
 * restored table's billing needs. */
static json_t *
index_entry(struct rst *r, const json_t *src, const json_t *ov, bool global,
            struct ddb_err *err)
{
    const char *name = tables_str(ov != NULL ? ov : src, "IndexName");
    const json_t *pt = json_object_get(ov, "ProvisionedThroughput");
    const json_t *spt = json_object_get(src, "ProvisionedThroughput");
    json_t *e = json_pack("{s:s, s:O, s:O}", "IndexName", name, "KeySchema",
                          json_object_get(src, "KeySchema"), "Projection",
                          json_object_get(src, "Projection"));

    if (!global)
        return e;
    if (r->on_demand && json_is_object(pt)) {
        json_decref(e);
        ddb_err_set(err, DDB_VALIDATION, INVALID "Cannot override "
                    "ProvisionedThroughput if BillingMode is overridden to "
                    "PAY_PER_REQUEST for index %s", name);
        return NULL;
    }
    if (!r->on_demand) {
        if (!json_is_object(pt) && tables_uint(spt, "ReadCapacityUnits") > 0)
            pt = spt;
        if (!json_is_object(pt)) {
            json_decref(e);
            ddb_err_set(err, DDB_VALIDATION, INVALID "Must specify "
                        "provisioned throughput for index %s", name);
            return NULL;
        }
        json_object_set_new(e, "ProvisionedThroughput",
                            json_pack("{s:O, s:O}", "ReadCapacityUnits",
                                      json_object_get(pt,
                                                      "ReadCapacityUnits"),
                                      "WriteCapacityUnits",
                                      json_object_get(pt,
                                                      "WriteCapacityUnits")));
    } else if (json_has(ov != NULL ? ov : src, "OnDemandThroughput")) {
        json_object_set(e, "OnDemandThroughput",
                        json_object_get(ov != NULL ? ov : src,
                                        "OnDemandThroughput"));
    }
    return e;
}

/* The indexes of one kind the restore makes: every source index when the
 * request has no override list, else those the list names (an empty list
 * drops them all, DDB-TABLE-279). Appends to creq's list and r->imap. */
static int
map_indexes(struct rst *r, bool global, struct ddb_err *err)
{
    const char *list = global ? "GlobalSecondaryIndexes"
                              : "LocalSecondaryIndexes";
    const json_t *srcl = json_object_get(r->src, list);
    const json_t *ovl = json_object_get(r->req,
                                        global ? "GlobalSecondaryIndexOverride"
                                               : "LocalSecondaryIndexOverride");
    json_t *out = json_array(), *e;
    const json_t *el, *from;
    size_t i;

    json_array_foreach(json_is_array(ovl) ? ovl : srcl, i, el) {
        from = json_is_array(ovl) ? match_index(srcl, el) : el;
        if (from == NULL) {
            json_decref(out);
            return ddb_err_set(err, DDB_VALIDATION, INVALID "Index %s does "
                               "not match a secondary index that existed in "
                               "the source table and cannot be created "
                               "during the restore operation",
                               tables_str(el, "IndexName"));
        }
        e = index_entry(r, from, json_is_array(ovl) ? el : NULL, global,
                        err);
        if (e == NULL) {
            json_decref(out);
            return -1;
        }
        json_array_append_new(r->imap, json_pack("{s:O, s:O}", "from",
                                                 json_object_get(from,
                                                                 "IndexName"),
                                                 "to",
                                                 json_object_get(e,
                                                                 "IndexName")));
        json_array_append_new(out, e);
    }
    if (json_array_size(out) > 0)
        json_object_set(r->creq, list, out);
    json_decref(out);
    return 0;
}

/* The AttributeDefinitions the restored keys use (CreateTable refuses
 * unused ones). */
static void
add_definitions(struct rst *r)
{
    static const char *const lists[2] = { "GlobalSecondaryIndexes",
                                          "LocalSecondaryIndexes" };
    json_t *defs = json_array();
    const json_t *d, *el, *idx;
    size_t i, j, k, l;

    json_array_foreach(json_object_get(r->src, "AttributeDefinitions"), i,
                       d) {
        bool used = false;

        json_array_foreach(json_object_get(r->creq, "KeySchema"), j, el)
            used |= json_same(json_object_get(el, "AttributeName"),
                              json_object_get(d, "AttributeName"));
        for (k = 0; k < 2; k++)
            json_array_foreach(json_object_get(r->creq, lists[k]), l, idx)
                json_array_foreach(json_object_get(idx, "KeySchema"), j, el)
                    used |= json_same(json_object_get(el, "AttributeName"),
                                      json_object_get(d, "AttributeName"));
        if (used)
            json_array_append(defs, (json_t *)d);
    }
    json_object_set_new(r->creq, "AttributeDefinitions", defs);
}

/* ------------------------------------------------------------------------
 * The CreateTable request a restore amounts to
 * ---------------------------------------------------------------------- */

/*
 * Billing and throughput: the source's unless overridden; a throughput
 * override needs PROVISIONED, on-demand maxima PAY_PER_REQUEST, and a
 * switch to PROVISIONED a throughput (DDB-TABLE-273's messages).
 */
static int
build_billing(struct rst *r, struct ddb_err *err)
{
    const json_t *pt = json_object_get(r->req,
                                       "ProvisionedThroughputOverride");
    const json_t *odt = json_object_get(r->req, "OnDemandThroughputOverride");
    bool src_od = tables_on_demand(r->src);

    if (json_object_size(odt) == 0)
        odt = NULL;
    r->on_demand = r->mode != NULL ? strcmp(r->mode, "PAY_PER_REQUEST") == 0
                                   : src_od;
    if (r->on_demand && json_is_object(pt))
        return ddb_err_set(err, DDB_VALIDATION, INVALID "%s",
                           r->mode != NULL
                               ? "Cannot override ProvisionedThroughput if "
                                 "BillingMode is overridden to "
                                 "PAY_PER_REQUEST"
                               : "Cannot override ProvisionedThroughput "
                                 "unless BillingMode is PROVISIONED");
    if (!r->on_demand && odt != NULL)
        return ddb_err_set(err, DDB_VALIDATION, INVALID "Cannot override "
                           "MaxReadRequestUnits for OnDemandThroughput "
                           "unless BillingModeOverride is PAY_PER_REQUEST");
    if (odt != NULL && check_odt(odt, err) != 0)
        return -1;
    if (r->on_demand) {
        json_object_set_new(r->creq, "BillingMode",
                            json_string("PAY_PER_REQUEST"));
        if (odt == NULL && !src_od)
            return 0;
        odt = odt != NULL ? odt
                          : json_object_get(r->src, "OnDemandThroughput");
        if (json_is_object(odt)) {
            /* -1 is "no maximum": CreateTable takes it as absent */
            json_t *keep = json_object();
            const char *k;
            json_t *v;

            json_object_foreach((json_t *)odt, k, v)
                if (!json_is_integer(v) || json_integer_value(v) != -1)
                    json_object_set(keep, k, v);
            if (json_object_size(keep) > 0)
                json_object_set(r->creq, "OnDemandThroughput", keep);
            json_decref(keep);
        }
        return 0;
    }
    if (!json_is_object(pt) && src_od)
        return ddb_err_set(err, DDB_VALIDATION, INVALID "Must override "
                           "ProvisionedThroughput if BillingMode is "
                           "overridden to PROVISIONED");
    if (!json_is_object(pt))
        pt = json_object_get(r->src, "ProvisionedThroughput");
    json_object_set_new(r->creq, "BillingMode", json_string("PROVISIONED"));
    json_object_set_new(r->creq, "ProvisionedThroughput",
                        json_pack("{s:O, s:O}", "ReadCapacityUnits",
                                  json_object_get(pt, "ReadCapacityUnits"),
                                  "WriteCapacityUnits",
                                  json_object_get(pt, "WriteCapacityUnits")));
    return 0;
}

static int
build_request(struct rst *r, struct ddb_err *err)
{
    r->creq = json_pack("{s:s, s:O}", "TableName", r->target, "KeySchema",
                        json_object_get(r->src, "KeySchema"));
    r->imap = json_array();
    if (build_billing(r, err) != 0 || map_indexes(r, true, err) != 0 ||
        map_indexes(r, false, err) != 0)
        return -1;
    add_definitions(r);
    return 0;
}

/* ------------------------------------------------------------------------
 * Making the table
 * ---------------------------------------------------------------------- */

/* The number of partition files of the backup's copy of table member. */
static unsigned
member_parts(const struct rst *r, const char *member)
{
    const json_t *m;
    size_t i;

    json_array_foreach(json_object_get(r->row, "members"), i, m)
        if (json_str_is(json_object_get(m, "name"), member))
            return (unsigned)json_array_size(json_object_get(m, "files"));
    return 1;
}

static unsigned
at_least(unsigned a, unsigned b)
{
    return a > b ? a : b;
}

/* The indexes' hidden tables, filled from the backup's copies, then the
 * table itself: a visible table always has its indexes (as create.c). */
static int
make_tables(struct api_ctx *ctx, struct rst *r, const json_t *desc,
            unsigned nparts, const unsigned *gparts, struct ddb_err *err)
{
    struct storage *st = ctx->srv->st;
    const char *key = r->a.sub;
    const char *source = tables_str(json_object_get(r->row, "meta"),
                                    "TableName");
    char from[TABLES_NAME_MAX + 300], to[TABLES_NAME_MAX + 300];
    size_t ngsi = json_array_size(json_object_get(desc,
                                                  "GlobalSecondaryIndexes"));
    const json_t *m;
    json_t *meta;
    size_t i;
    int rc;

    index_drop_all(st, r->target);
    json_array_foreach(r->imap, i, m) {
        index_table_name(source, tables_str(m, "from"), from, sizeof(from));
        index_table_name(r->target, tables_str(m, "to"), to, sizeof(to));
        meta = json_pack("{s:s, s:s, s:O}", "TableName", to, "_slIndexOf",
                         r->target, "IndexName", json_object_get(m, "to"));
        rc = storage_backup_restore(st, key, from, to, meta,
                                    at_least(member_parts(r, from),
                                             i < ngsi ? gparts[i] : 1),
                                    err);
        json_decref(meta);
        if (rc != 0) {
            index_drop_all(st, r->target);
            return -1;
        }
    }
    if (storage_backup_restore(st, key, source, r->target, desc,
                               at_least(member_parts(r, source), nparts),
                               err) != 0) {
        index_drop_all(st, r->target);
        return -1;
    }
    gate_table_created(ctx, r->target);
    return 0;
}

static int make_tables_at(struct api_ctx *ctx, struct rst *r,
                          const json_t *desc, unsigned nparts,
                          const unsigned *gparts, struct ddb_err *err);

/*
 * The name must be free: a table there (DELETING too) is
 * TableAlreadyExists, one being restored TableInUse (DDB-TABLE-219,
 * -275). Under the DDL lock.
 */
static int
check_name_free(struct api_ctx *ctx, const char *name, struct ddb_err *err)
{
    const char *from;
    struct stable *t;
    json_t *desc;
    int o = tables_open_settled(ctx, name, true, &t, &desc, err);

    if (o != 0)
        return o < 0 ? -1 : 0;
    from = tables_str(json_object_get(desc, "RestoreSummary"),
                      "SourceBackupArn");
    if (from != NULL && json_str_is(json_object_get(desc, "TableStatus"),
                                    "CREATING"))
        ddb_err_set(err, DDB_TABLE_IN_USE, "Table: %s is already being "
                    "restored from backup: %s", api_table_public(name), from);
    else
        ddb_err_set(err, DDB_TABLE_ALREADY_EXISTS, "Table already exists: %s",
                    api_table_public(name));
    json_decref(desc);
    stable_release(t);
    return -1;
}

/* RestoreSummary: the backup, its table, its time, in progress. */
static json_t *
restore_summary(const struct rst *r)
{
    const json_t *meta = json_object_get(r->row, "meta");

    if (r->pitr)
        return json_pack("{s:O, s:o, s:b}", "SourceTableArn",
                         json_object_get(r->src, "TableArn"),
                         "RestoreDateTime", tables_epoch(r->shown_ms),
                         "RestoreInProgress", 1);
    return json_pack("{s:O, s:O, s:o, s:b}", "SourceBackupArn",
                     json_object_get(meta, "BackupArn"), "SourceTableArn",
                     json_object_get(meta, "TableArn"), "RestoreDateTime",
                     tables_epoch((uint64_t)json_integer_value(
                         json_object_get(meta, "CreatedMs"))),
                     "RestoreInProgress", 1);
}

/* The reply: DynamoDB's restore answer is CREATING with the restore in
 * progress, whatever the status delay (the conformance suite's
 * onDemand.test.ts; DDB-TABLE-216), its indexes without a status
 * (DDB-TABLE-282). */
static json_t *
reply_desc(const struct rst *r, const json_t *desc, uint64_t now)
{
    json_t *pub = tables_public_desc(NULL, NULL, desc), *g;
    size_t i;

    json_object_set_new(pub, "TableStatus", json_string("CREATING"));
    json_object_set_new(pub, "CreationDateTime", tables_epoch(now));
    json_array_foreach(json_object_get(pub, "GlobalSecondaryIndexes"), i, g)
        json_object_del(g, "IndexStatus");
    json_object_set_new(pub, "RestoreSummary", restore_summary(r));
    return pub;
}

/* Encryption: the override's, or the backup's key (a restore keeps it,
 * DDB-TABLE-215); an empty or disabled override means the AWS owned key
 * (DDB-TABLE-276). */
static void
set_sse(struct api_ctx *ctx, const struct rst *r, json_t *desc)
{
    const json_t *ov = json_object_get(r->req, "SSESpecificationOverride");
    json_t *sse = NULL;

    json_object_del(desc, "SSEDescription");
    if (json_is_object(ov))
        sse = tables_sse_desc(ctx, ov);
    else if (json_is_object(json_object_get(r->src, "SSEDescription")))
        sse = json_clone(json_object_get(r->src, "SSEDescription"));
    if (sse != NULL)
        json_object_set_new(desc, "SSEDescription", sse);
}

/* The common part of both restores, once r's source is known: the
 * CreateTable request, its checks, the tables made under the DDL lock,
 * the reply. */
static int
restore_run(struct api_ctx *ctx, struct rst *r, json_t **resp,
            struct ddb_err *err)
{
    struct tables_create c;
    char busy[TABLES_NAME_MAX];
    unsigned nparts = 1, gparts[INDEX_GSI_MAX + 1];
    uint64_t now = tables_now_ms(ctx);
    json_t *desc = NULL;
    int rc = -1;

    memset(&c, 0, sizeof(c));
    if (build_request(r, err) != 0 ||
        tables_check_create(ctx, r->creq, &c, err) != 0)
        goto out;
    r->target = c.name;     /* from here on, the caller's stored name */
    desc = tables_desc_new(ctx, r->creq, &c, now, &nparts, gparts);
    set_sse(ctx, r, desc);
    /* the summary shows while the table is CREATING (status.c drops it
     * when the table turns ACTIVE, DDB-TABLE-216) */
    if (json_str_is(json_object_get(desc, "TableStatus"), "CREATING"))
        json_object_set_new(desc, "RestoreSummary", restore_summary(r));
    api_ddl_lock();
    /* the target first: a replayed restore is TableInUse (DDB-TABLE-463) */
    rc = check_name_free(ctx, r->target, err);
    if (rc == 0 && !r->pitr &&
        tables_restoring_from(ctx, r->a.sub, busy, sizeof(busy)))
        rc = ddb_err_set(err, DDB_BACKUP_IN_USE, "Backup is being used to "
                         "restore another table: %s", r->arn);
    if (rc == 0)
        rc = r->pitr ? make_tables_at(ctx, r, desc, nparts, gparts, err)
                     : make_tables(ctx, r, desc, nparts, gparts, err);
    api_ddl_unlock();
    if (rc == 0)
        *resp = json_pack("{s:o}", "TableDescription",
                          reply_desc(r, desc, now));
out:
    json_decref(c.odt);
    json_decref(c.policy);
    json_decref(desc);
    return rc;
}

int
api_restore_table_from_backup(struct api_ctx *ctx, const json_t *req,
                              json_t **resp, struct ddb_err *err)
{
    struct rst r;
    int rc = -1;

    memset(&r, 0, sizeof(r));
    r.req = req;
    r.arn = tables_str(req, "BackupArn");
    r.target = tables_str(req, "TargetTableName");
    r.mode = tables_str(req, "BillingModeOverride");
    if (check_target(req, err) != 0)
        return -1;
    r.row = tables_backup_find(ctx, r.arn, &r.a, err);
    if (r.row == NULL)
        return -1;
    r.src = json_object_get(json_object_get(r.row, "meta"), "Source");
    if (strcmp(r.a.region, tables_region(ctx)) != 0 &&
        !json_has(req, "SSESpecificationOverride"))
        ddb_err_set(err, DDB_VALIDATION, INVALID "sseSpecificationOverride "
                    "must be provided for cross-region restores");
    else
        rc = restore_run(ctx, &r, resp, err);
    json_decref(r.creq);
    json_decref(r.imap);
    json_decref(r.row);
    return rc;
}

/* ------------------------------------------------------------------------
 * RestoreTableToPointInTime
 * ---------------------------------------------------------------------- */

/* storage_rows_fn: the source's items at the time restored. */
struct at_rows {
    struct api_ctx *ctx;
    struct rst *r;
    struct storage_rows *rows;
};

static int
at_row(void *arg, const struct item_key *k, const json_t *item, size_t size,
       struct ddb_err *err)
{
    struct at_rows *a = arg;

    return storage_rows_put(a->rows, k, item, size, err);
}

static int
at_fill(void *arg, struct storage_rows *rows, struct ddb_err *err)
{
    struct at_rows *a = arg;

    a->rows = rows;
    return tables_pitr_items_at(a->ctx, a->r->source, a->r->at_ms, at_row,
                                a, err);
}

/*
 * The restored table is built under a hidden name (<target>/restoring):
 * its indexes' hidden tables (empty), then the table with the source's
 * items at the time, then each index filled from it (index_backfill), and
 * only then renamed to the target, so a crash leaves no target (the
 * sweep drops what it left, tables_pitr_sweep).
 */
static int
make_tables_at(struct api_ctx *ctx, struct rst *r, const json_t *desc,
               unsigned nparts, const unsigned *gparts, struct ddb_err *err)
{
    struct storage *st = ctx->srv->st;
    char tmp[TABLES_NAME_MAX + 16], to[TABLES_NAME_MAX + 300];
    size_t ngsi = json_array_size(json_object_get(desc,
                                                  "GlobalSecondaryIndexes"));
    struct index_set *is = xcalloc(1, sizeof(*is));
    struct at_rows a = { ctx, r, NULL };
    struct stable *t = NULL;
    struct ddb_err e;
    const json_t *m;
    json_t *meta;
    size_t i;
    int rc = -1;

    snprintf(tmp, sizeof(tmp), "%s" TABLES_RESTORING, r->target);
    ddb_err_init(&e);
    (void)storage_table_delete(st, tmp, &e);
    ddb_err_clear(&e);
    index_drop_all(st, r->target);
    json_array_foreach(r->imap, i, m) {
        index_table_name(r->target, tables_str(m, "to"), to, sizeof(to));
        meta = json_pack("{s:s, s:s, s:O}", "TableName", to, "_slIndexOf",
                         r->target, "IndexName", json_object_get(m, "to"));
        rc = storage_table_create(st, to, meta, i < ngsi ? gparts[i] : 1,
                                  err);
        json_decref(meta);
        if (rc != 0)
            goto out;
    }
    rc = -1;
    if (storage_table_create_rows(st, tmp, desc, nparts, at_fill, &a,
                                  err) != 0 ||
        (t = storage_table_get(st, tmp)) == NULL ||
        index_set_open(st, desc, is, err) != 0)
        goto out;
    for (i = 0; i < is->n; i++)
        if (index_backfill(t, &is->base, &is->idx[i], err) != 0)
            goto out;
    stable_release(t);
    t = NULL;
    if (storage_table_rename(st, tmp, r->target, err) != 0)
        goto out;
    gate_table_created(ctx, r->target);
    rc = 0;
out:
    index_set_close(is);
    free(is);
    if (t != NULL)
        stable_release(t);
    if (rc != 0) {
        (void)storage_table_delete(st, tmp, &e);
        ddb_err_clear(&e);
        index_drop_all(st, r->target);
    }
    return rc;
}

/*
 * The source by SourceTableName or SourceTableArn (one of them), the time
 * by RestoreDateTime or UseLatestRestorableTime (one of them; the
 * messages for a request with both or neither are ours: DynamoDB's are
 * not recorded). The settings are the source's current ones with the
 * overrides, as RestoreTableFromBackup's (the API reference: "All these
 * settings come from the current settings of the source table at the
 * time of restore").
 */
int
api_restore_table_to_point_in_time(struct api_ctx *ctx, const json_t *req,
                                   json_t **resp, struct ddb_err *err)
{
    const char *sname = tables_str(req, "SourceTableName");
    const char *sarn = tables_str(req, "SourceTableArn");
    bool latest = json_is_true(json_object_get(req,
                                               "UseLatestRestorableTime"));
    long long at = tables_time_ms(req, "RestoreDateTime");
    struct stable *t = NULL;
    json_t *desc = NULL;
    struct rst r;
    int o, rc = -1;

    memset(&r, 0, sizeof(r));
    r.req = req;
    r.pitr = true;
    r.target = tables_str(req, "TargetTableName");
    r.mode = tables_str(req, "BillingModeOverride");
    if (check_target(req, err) != 0)
        return -1;
    if ((sname == NULL) == (sarn == NULL))
        return ddb_err_set(err, DDB_VALIDATION, INVALID "%s",
                           sname == NULL
                               ? "Either SourceTableName or SourceTableArn "
                                 "must be specified"
                               : "Only one of SourceTableName or "
                                 "SourceTableArn can be specified");
    if (latest == (at >= 0))
        return ddb_err_set(err, DDB_VALIDATION, INVALID "%s",
                           latest ? "Only one of RestoreDateTime or "
                                    "UseLatestRestorableTime can be "
                                    "specified"
                                  : "Either RestoreDateTime or "
                                    "UseLatestRestorableTime must be "
                                    "specified");
    if (!tables_name_from_param(ctx, sname != NULL ? sname : sarn,
                                r.source, sizeof(r.source)))
        return ddb_err_set(err, DDB_TABLE_NOT_FOUND, "Table not found: %s",
                           sname != NULL ? sname : sarn);
    if (tables_check_access(ctx, r.source, err) != 0)
        return -1;
    o = tables_open_settled(ctx, r.source, false, &t, &desc, err);
    if (o != 0)
        return o < 0 ? -1
                     : ddb_err_set(err, DDB_TABLE_NOT_FOUND,
                                   "Table not found: %s",
                                   api_table_public(r.source));
    /* To a second: clients send whole seconds (botocore drops the
     * fraction), and a restore to second S shows every write made before
     * S + 1 (up to now); the summary shows S. */
    r.shown_ms = latest ? tables_now_ms(ctx) : (uint64_t)at / 1000 * 1000;
    r.at_ms = r.shown_ms;
    if (!latest && r.at_ms + 999 <= tables_now_ms(ctx))
        r.at_ms += 999;
    else if (!latest && r.at_ms <= tables_now_ms(ctx))
        r.at_ms = tables_now_ms(ctx);
    r.src = r.src_own = tables_backup_source(desc);
    if (!tables_pitr_on(desc))
        ddb_err_set(err, DDB_PITR_UNAVAILABLE, "Point in time recovery is "
                    "not enabled for table '%s'", api_table_public(r.source));
    else
        rc = restore_run(ctx, &r, resp, err);
    json_decref(desc);
    stable_release(t);
    json_decref(r.src_own);
    json_decref(r.creq);
    json_decref(r.imap);
    return rc;
}
