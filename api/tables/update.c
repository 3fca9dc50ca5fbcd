/* SPDX-License-Identifier: MIT */
/* update.c - UpdateTable: the request-only checks, then, under the DDL
 * lock, one member after another against the table's description
 * (billing mode and throughput, GlobalSecondaryIndexUpdates in
 * gsi_update.c, table class, deletion protection, encryption), and the
 * description written back as UPDATING. */
#include <stdbool.h>
#include <string.h>

#include "api/proto/context.h"
#include "api/tables/tables.h"
#include "api/tables/tables_int.h"
#include "api/throttle/gate.h"
#include "api/vector/vector.h"
#include "storage/util.h"

/* One UpdateTable call. */
struct update {
    uint64_t now;                   /* the request's time, ms */
    json_t *now_j;                  /* owned: now in epoch seconds */
    /* The request's members (borrowed; NULL when absent or null). */
    const char *mode;               /* BillingMode */
    const json_t *pt;               /* ProvisionedThroughput ... */
    long long r, w;                 /* ... and its values */
    const json_t *odt_req;          /* OnDemandThroughput */
    const json_t *dp;               /* DeletionProtectionEnabled (bool) */
    const json_t *sse;              /* SSESpecification (object) */
    const char *cls;                /* TableClass */
    const json_t *gsiu;             /* GlobalSecondaryIndexUpdates */
    const json_t *vu;               /* VectorIndexUpdates */
    const json_t *warm;             /* WarmThroughput */
    struct tables_stream_req stream; /* StreamSpecification */
    /* Billing, once the table is open. */
    const char *cur_mode;           /* the table's billing mode now */
    const char *eff_mode;           /* and after this call */
    json_t *tpt;                    /* the description's
                                       ProvisionedThroughput (borrowed) */
    long long cr, cw;               /* its current values */
    json_t *odt;                    /* owned: OnDemandThroughput to store */
};

static bool
is_on_demand(const char *mode)
{
    return strcmp(mode, "PAY_PER_REQUEST") == 0;
}

/* Days since the epoch (UTC) of an epoch-seconds JSON number. */
static long long
utc_day(const json_t *secs)
{
    if (!json_is_number(secs))
        return -1;
    return (long long)json_number_value(secs) / 86400;
}

/* ------------------------------------------------------------------------
 * The request alone, before the table is looked up
 * ---------------------------------------------------------------------- */

/* The table's WarmThroughput goes alone (the same catalogue: "WarmThroughput
 * must be the only operation in the request", "Create global secondary
 * index cannot be specified when updating WarmThroughput"). */
static int
warm_alone(const struct update *u, const json_t *req, struct ddb_err *err)
{
    const json_t *el;
    size_t i;

    json_array_foreach(u->gsiu, i, el)
        if (json_has(el, "Create"))
            return ddb_err_set(err, DDB_VALIDATION,
                               "One or more parameter values were invalid: "
                               "Create global secondary index cannot be "
                               "specified when updating WarmThroughput");
    if (u->pt != NULL || u->mode != NULL || u->sse != NULL ||
        u->dp != NULL || u->cls != NULL || u->odt_req != NULL ||
        u->gsiu != NULL || u->vu != NULL ||
        json_has(req, "StreamSpecification"))
        return ddb_err_set(err, DDB_VALIDATION,
                           "One or more parameter values were invalid: "
                           "WarmThroughput must be the only operation in the "
                           "request");
    return 0;
}

static int
update_parse(struct update *u, const json_t *req, struct ddb_err *err)
{
    u->mode = tables_str(req, "BillingMode");
    u->pt = json_object_get(req, "ProvisionedThroughput");
    if (json_is_null(u->pt))
        u->pt = NULL;
    u->odt_req = json_object_get(req, "OnDemandThroughput");
    if (json_is_null(u->odt_req))
        u->odt_req = NULL;
    u->dp = json_object_get(req, "DeletionProtectionEnabled");
    if (!json_is_boolean(u->dp))
        u->dp = NULL;
    u->sse = json_object_get(req, "SSESpecification");
    if (!json_is_object(u->sse))
        u->sse = NULL;
    u->cls = tables_str(req, "TableClass");
    u->gsiu = json_object_get(req, "GlobalSecondaryIndexUpdates");
    if (json_is_null(u->gsiu))
        u->gsiu = NULL;
    u->vu = json_object_get(req, "VectorIndexUpdates");
    if (json_is_null(u->vu))
        u->vu = NULL;
    u->warm = json_object_get(req, "WarmThroughput");
    if (!json_is_object(u->warm))
        u->warm = NULL;
    /* DynamoDB's list (us-east-1 and us-west-2, 2026-10-09: a catalogue of
     * recorded ValidationException texts). */
    if (u->pt == NULL && u->mode == NULL && u->sse == NULL &&
        u->dp == NULL && u->cls == NULL && u->odt_req == NULL &&
        u->gsiu == NULL && u->vu == NULL && u->warm == NULL &&
        json_object_get(req, "StreamSpecification") == NULL)
        return ddb_err_set(err, DDB_VALIDATION,
                           "At least one of ProvisionedThroughput, "
                           "BillingMode, UpdateStreamEnabled, "
                           "GlobalSecondaryIndexUpdates, SSESpecification, "
                           "ReplicaUpdates, MultiAccountReplicaReady, "
                           "ReplicaTransitRoleArn, MultiRegionConsistency, "
                           "DeletionProtectionEnabled, OnDemandThroughput, "
                           "WarmThroughput or TableClass is required");
    if (u->warm != NULL && (warm_alone(u, req, err) != 0 ||
                            tables_warm_check_spec(u->warm, NULL, err) != 0))
        return -1;
    if (tables_check_table_class(req, err) != 0)
        return -1;
    if (u->mode != NULL && strcmp(u->mode, "PROVISIONED") == 0 &&
        u->pt == NULL)
        return ddb_err_set(err, DDB_VALIDATION,
                           "One or more parameter values were invalid: "
                           "ProvisionedThroughput must be specified when "
                           "BillingMode is PROVISIONED");
    if (u->pt != NULL &&
        tables_read_throughput(u->pt, &u->r, &u->w, err) != 0)
        return -1;
    if (u->gsiu != NULL && tables_gsi_updates_check(u->gsiu, err) != 0)
        return -1;
    if (u->vu != NULL && tables_vector_updates_check(u->vu, err) != 0)
        return -1;
    if (tables_stream_parse(req, false, &u->stream, err) != 0)
        return -1;
    /* A stream change goes with BillingMode PAY_PER_REQUEST only
     * (DDB-TABLE-433, DDB-TABLE-442, recorded 2026-10). */
    if (u->stream.present &&
        (u->pt != NULL ||
         (u->mode != NULL && strcmp(u->mode, "PROVISIONED") == 0)))
        return ddb_err_set(err, DDB_VALIDATION,
                           "One or more parameter values were invalid: You "
                           "cannot modify stream status while updating "
                           "table IOPS");
    /* A vector index update is held to the GSI rule: no recording shows
     * DynamoDB's answer, and an index changing beside a stream change is
     * what that rule refuses (our choice). */
    if (u->stream.present && (u->gsiu != NULL || u->vu != NULL))
        return ddb_err_set(err, DDB_VALIDATION,
                           "One or more parameter values were invalid: You "
                           "cannot create or delete index while changing "
                           "stream status");
    return 0;
}

/* The request changes vector indexes and nothing else. */
static bool
vector_only(const struct update *u)
{
    return u->vu != NULL && u->pt == NULL && u->mode == NULL &&
           u->sse == NULL && u->dp == NULL && u->cls == NULL &&
           u->odt_req == NULL && u->gsiu == NULL;
}

/* ------------------------------------------------------------------------
 * BillingMode, ProvisionedThroughput, OnDemandThroughput
 * ---------------------------------------------------------------------- */

/* The billing change against the table's (desc): allowed, and a change. */
static int
billing_check(struct update *u, json_t *desc, struct ddb_err *err)
{
    const char *cur = tables_str(json_object_get(desc, "BillingModeSummary"),
                                 "BillingMode");

    u->cur_mode = cur != NULL ? cur : "PROVISIONED";
    u->eff_mode = u->mode != NULL ? u->mode : u->cur_mode;
    if (u->pt != NULL && is_on_demand(u->eff_mode))
        return ddb_err_set(err, DDB_VALIDATION,
                           "One or more parameter values were invalid: "
                           "Neither ReadCapacityUnits nor WriteCapacityUnits "
                           "can be specified when BillingMode is "
                           "PAY_PER_REQUEST");
    if (is_on_demand(u->cur_mode) &&
        strcmp(u->eff_mode, "PROVISIONED") == 0 && u->pt == NULL)
        return ddb_err_set(err, DDB_VALIDATION,
                           "One or more parameter values were invalid: "
                           "ProvisionedThroughput must be specified when "
                           "BillingMode is PROVISIONED");
    if (u->odt_req != NULL) {
        if (!is_on_demand(u->eff_mode))
            return ddb_err_set(err, DDB_VALIDATION,
                               "One or more parameter values were invalid: "
                               "OnDemandThroughput cannot be specified when "
                               "BillingMode is PROVISIONED");
        u->odt = tables_read_on_demand(u->odt_req, err);
        if (u->odt == NULL)
            return -1;
    }
    u->tpt = json_object_get(desc, "ProvisionedThroughput");
    if (!json_is_object(u->tpt)) {
        u->tpt = json_pack("{s:I, s:I, s:I}", "NumberOfDecreasesToday",
                           (json_int_t)0, "ReadCapacityUnits", (json_int_t)0,
                           "WriteCapacityUnits", (json_int_t)0);
        json_object_set_new(desc, "ProvisionedThroughput", u->tpt);
    }
    u->cr = tables_uint(u->tpt, "ReadCapacityUnits");
    u->cw = tables_uint(u->tpt, "WriteCapacityUnits");
    if (u->pt != NULL && strcmp(u->cur_mode, "PROVISIONED") == 0 &&
        u->cr == u->r && u->cw == u->w)
        return ddb_err_set(err, DDB_VALIDATION,
                           "The provisioned throughput for the table will "
                           "not change. The requested value equals the "
                           "current value. Current ReadCapacityUnits "
                           "provisioned for the table: %lld. Requested "
                           "ReadCapacityUnits: %lld. Current "
                           "WriteCapacityUnits provisioned for the table: "
                           "%lld. Requested WriteCapacityUnits: %lld. Refer "
                           "to the Amazon DynamoDB Developer Guide for "
                           "current limits and how to request higher "
                           "limits.", u->cr, u->r, u->cw, u->w);
    /* To provisioned: every GSI needs throughput too (an Update in the
     * same request); vector indexes stay on demand (our wording, as
     * CreateTable's). */
    if (is_on_demand(u->cur_mode) &&
        strcmp(u->eff_mode, "PROVISIONED") == 0 && vector_desc_has(desc))
        return ddb_err_set(err, DDB_VALIDATION,
                           "One or more parameter values were invalid: "
                           "Vector indexes are only supported for "
                           "PAY_PER_REQUEST tables");
    if (is_on_demand(u->cur_mode) &&
        strcmp(u->eff_mode, "PROVISIONED") == 0)
        return tables_gsi_updates_cover(desc, u->gsiu, err);
    return 0;
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

/* To on-demand: throughput shows 0/0 from now on (GSIs too). */
static void
billing_to_on_demand(struct update *u, json_t *desc)
{
    json_t *bms;

    gsis_zero_throughput(desc);
    json_object_set_new(u->tpt, "ReadCapacityUnits", json_integer(0));
    json_object_set_new(u->tpt, "WriteCapacityUnits", json_integer(0));
    bms = json_object_get(desc, "BillingModeSummary");
    if (!json_is_object(bms)) {
        bms = json_object();
        json_object_set_new(desc, "BillingModeSummary", bms);
    }
    json_object_set_new(bms, "BillingMode", json_string("PAY_PER_REQUEST"));
    json_object_set(bms, "LastUpdateToPayPerRequestDateTime", u->now_j);
}

/* New provisioned throughput: back from on-demand, or an increase or
 * decrease (NumberOfDecreasesToday counts per UTC day). */
static void
billing_set_throughput(struct update *u, json_t *desc)
{
    json_t *tpt = u->tpt;
    long long dec;

    if (is_on_demand(u->cur_mode)) {
        json_object_set_new(json_object_get(desc, "BillingModeSummary"),
                            "BillingMode", json_string("PROVISIONED"));
        json_object_del(desc, "OnDemandThroughput");
    } else {
        if (u->r > u->cr || u->w > u->cw)
            json_object_set(tpt, "LastIncreaseDateTime", u->now_j);
        if (u->r < u->cr || u->w < u->cw) {
            dec = tables_uint(tpt, "NumberOfDecreasesToday");
            if (dec < 0 ||
                utc_day(json_object_get(tpt, "LastDecreaseDateTime")) !=
                    (long long)(u->now / 1000u / 86400u))
                dec = 0;
            json_object_set(tpt, "LastDecreaseDateTime", u->now_j);
            json_object_set_new(tpt, "NumberOfDecreasesToday",
                                json_integer((json_int_t)dec + 1));
        }
    }
    json_object_set_new(tpt, "ReadCapacityUnits",
                        json_integer((json_int_t)u->r));
    json_object_set_new(tpt, "WriteCapacityUnits",
                        json_integer((json_int_t)u->w));
}

/* WarmThroughput never drops and follows the billing: at least the
 * highest provisioned units, or on-demand's initial throughput once
 * switched (a catalogue of recorded behaviours, 2026-10-08: "tracks the
 * highest RCU/WCU ever provisioned, never decreases; 12000/4000 after
 * switch to PPR"). The table's and every GSI's. */
static void
warm_follow(const struct api_ctx *ctx, json_t *desc, bool on_demand)
{
    struct throttle_limits lim;
    const json_t *pt;
    json_t *g;
    size_t i;

    tables_limits(ctx, json_object_get(desc, PRIV_TAGS), &lim);
    pt = json_object_get(desc, "ProvisionedThroughput");
    tables_warm_raise(json_object_get(desc, "WarmThroughput"), &lim,
                      on_demand, tables_uint(pt, "ReadCapacityUnits"),
                      tables_uint(pt, "WriteCapacityUnits"));
    json_array_foreach(json_object_get(desc, "GlobalSecondaryIndexes"), i,
                       g) {
        pt = json_object_get(g, "ProvisionedThroughput");
        tables_warm_raise(json_object_get(g, "WarmThroughput"), &lim,
                          on_demand, tables_uint(pt, "ReadCapacityUnits"),
                          tables_uint(pt, "WriteCapacityUnits"));
    }
}

static void
billing_apply(const struct api_ctx *ctx, struct update *u, json_t *desc)
{
    if (is_on_demand(u->eff_mode) && !is_on_demand(u->cur_mode))
        billing_to_on_demand(u, desc);
    else if (u->pt != NULL)
        billing_set_throughput(u, desc);
    if (u->odt != NULL) {
        json_object_set_new(desc, "OnDemandThroughput", u->odt);
        u->odt = NULL;
    }
    warm_follow(ctx, desc, is_on_demand(u->eff_mode));
}

/* ------------------------------------------------------------------------
 * TableClass, DeletionProtectionEnabled, SSESpecification
 * ---------------------------------------------------------------------- */

static void
table_class_apply(struct update *u, json_t *desc)
{
    if (u->cls != NULL)
        json_object_set_new(desc, "TableClassSummary",
                            json_pack("{s:s, s:O}", "TableClass", u->cls,
                                      "LastUpdateDateTime", u->now_j));
}

static void
deletion_protection_apply(struct update *u, json_t *desc)
{
    if (u->dp != NULL)
        json_object_set(desc, "DeletionProtectionEnabled", (json_t *)u->dp);
}

/* Enabled with a KMS key shows the key; Enabled false drops it. */
static void
sse_apply(const struct api_ctx *ctx, struct update *u, json_t *desc)
{
    json_t *ssed;

    if (u->sse == NULL)
        return;
    ssed = tables_sse_desc(ctx, u->sse);
    if (ssed != NULL)
        json_object_set_new(desc, "SSEDescription", ssed);
    else if (json_is_false(json_object_get(u->sse, "Enabled")))
        json_object_del(desc, "SSEDescription");
}

/* ------------------------------------------------------------------------
 * UpdateTable
 * ---------------------------------------------------------------------- */

int
api_update_table(struct api_ctx *ctx, const json_t *req, json_t **resp,
                 struct ddb_err *err)
{
    struct update u = { 0 };
    struct tables_ddl d;
    const char *param;
    int rc = -1;

    u.now = tables_now_ms(ctx);
    param = tables_req_name(req, err);
    if (param == NULL || tables_reject_unsupported(req, "UpdateTable",
                                                   err) != 0 ||
        update_parse(&u, req, err) != 0)
        return -1;

    /* A vector index update answers for the index even while the table
     * is UPDATING (eu-west-2, 2026-08: nubo-db/dynamodb-conformance
     * vectorSearch/updateLifecycle.test.ts: the allocation-phase and
     * one-online-index refusals, not the table's status). */
    if (tables_ddl_begin(ctx, param, &d, err) != 0 ||
        (!vector_only(&u) && tables_check_in_use(d.desc, d.name, err) != 0))
        goto out;
    if (u.warm != NULL) {
        /* Alone in the request; the table stays ACTIVE meanwhile. */
        if (tables_warm_update(ctx, d.desc, NULL, u.warm, u.now, err) != 0 ||
            stable_set_desc(d.t, d.desc, err) != 0 ||
            gate_table_resize(ctx, d.t, d.desc, err) != 0)
            goto out;
        rc = 0;
        goto out;
    }
    if (tables_stream_check(&u.stream, d.desc, d.name, err) != 0 ||
        billing_check(&u, d.desc, err) != 0)
        goto out;
    /* Index updates first: they can still fail. */
    if (u.gsiu != NULL &&
        tables_gsi_updates_apply(ctx, req, d.t, d.desc,
                                 is_on_demand(u.eff_mode), u.pt != NULL,
                                 u.now, err) != 0)
        goto out;
    if (u.vu != NULL &&
        tables_vector_updates_apply(ctx, req, d.t, d.desc,
                                    is_on_demand(u.eff_mode), u.now,
                                    err) != 0)
        goto out;
    u.now_j = tables_epoch(u.now);
    billing_apply(ctx, &u, d.desc);
    table_class_apply(&u, d.desc);
    deletion_protection_apply(&u, d.desc);
    sse_apply(ctx, &u, d.desc);

    tables_set_status(ctx, d.desc, "UPDATING", u.now);
    if (tables_stream_commit(ctx, &u.stream, d.t, d.desc, err) != 0)
        goto out;
    /* Throttling: more partitions for more throughput (splits), new
     * bucket rates (throttle/gate.c). */
    if (gate_table_resize(ctx, d.t, d.desc, err) != 0)
        goto out;
    rc = 0;
out:
    rc = tables_ddl_end(&d, rc, NULL, resp);
    json_decref(u.now_j);
    json_decref(u.odt);
    return rc;
}
