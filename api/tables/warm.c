/* SPDX-License-Identifier: MIT */
/* warm.c - WarmThroughput: what a table or GSI is warmed to (its
 * WarmThroughput in DescribeTable), the checks of CreateTable and
 * UpdateTable with DynamoDB's messages, its rise with provisioned
 * throughput and billing switches, and its UPDATING-then-ACTIVE change.
 * The throttling engine reads it from the description: partitions and
 * instant capacity for that many units a second (docs/throttling.md). */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "api/proto/context.h"
#include "api/tables/tables_int.h"
#include "api/throttle/throttle.h"
#include "storage/util.h"

/* While an increase is UPDATING, DescribeTable shows the values before it
 * (DynamoDB: "PT, billing and Warm responses echo the OLD values with
 * UPDATING", and so does DescribeTable until the increase is done; a
 * catalogue of recorded behaviours, us-east-1 and us-west-2, 2026-10-08):
 * {"": [r, w] for the table, "<index>": [r, w]} until WARM_UNTIL. */
#define WARM_OLD    PRIV_PREFIX "WarmOld"
#define WARM_UNTIL  PRIV_PREFIX "WarmUntilMs"

static const char *const members[2] = { "ReadUnitsPerSecond",
                                        "WriteUnitsPerSecond" };

void
tables_limits(const struct api_ctx *ctx, const json_t *tags,
              struct throttle_limits *lim)
{
    if (ctx->srv != NULL && ctx->srv->throttle != NULL)
        throttle_registry_limits(ctx->srv->throttle, lim);
    else
        throttle_limits_default(lim);
    throttle_limits_apply_tags(lim, tags);
}

/* What a table or GSI is warmed to without asking: an on-demand one's
 * initial throughput (12,000 reads and 4,000 writes a second), a
 * provisioned one's capacity units (a catalogue of recorded behaviours,
 * 2026-10-08: "WarmThroughput always present in DescribeTable: 12000/4000
 * default for PAY_PER_REQUEST, equals RCU/WCU for PROVISIONED"). */
static void
warm_default(const struct throttle_limits *lim, bool on_demand, long long r,
             long long w, long long out[2])
{
    out[0] = on_demand ? (long long)lim->od_initial_rru : r;
    out[1] = on_demand ? (long long)lim->od_initial_wru : w;
}

/* "table" or "index <name>", as the messages name what is warmed. */
static void
who(const char *iname, char *out, size_t cap)
{
    if (iname == NULL)
        snprintf(out, cap, "table");
    else
        snprintf(out, cap, "index %s", iname);
}

/* Member i of spec into *v: 1 when given (a JSON integer), 0 when not. */
static int
spec_value(const json_t *spec, int i, long long *v)
{
    const json_t *j = json_object_get(spec, members[i]);

    if (!json_is_integer(j))
        return 0;
    *v = (long long)json_integer_value(j);
    return 1;
}

/* Above the account's per-table quota: LimitExceededException (DynamoDB's
 * wording for a GSI, and for OnDemandThroughput on a table: a catalogue of
 * recorded messages, us-west-2, 2026-10-08). */
static int
check_quota(const struct api_ctx *ctx, const struct throttle_limits *lim,
            const json_t *spec, const char *iname, struct ddb_err *err)
{
    static const char *const quota[2] = { "TableMaxReadCapacityUnits",
                                          "TableMaxWriteCapacityUnits" };
    double max[2] = { lim->od_table_max_rru, lim->od_table_max_wru };
    char w[300];
    long long v;
    int i;

    who(iname, w, sizeof(w));
    for (i = 0; i < 2; i++)
        if (spec_value(spec, i, &v) && max[i] > 0 && (double)v > max[i])
            return ddb_err_set(err, DDB_LIMIT_EXCEEDED,
                               "Subscriber limit exceeded: Requested %s for "
                               "WarmThroughput for %s exceeds %s of the "
                               "account in region %s", members[i], w,
                               quota[i], tables_region(ctx));
    return 0;
}

/*
 * A new table's or GSI's WarmThroughput (spec, may be NULL or {}): each
 * member given at least the default, reads checked first (a catalogue of
 * recorded messages, us-east-1 and us-west-2, 2026-10-08; the Alternator
 * suite's test_warm_throughput.py, run against DynamoDB, names the member
 * that is too low), then the quota.
 */
int
tables_warm_check_new(const struct api_ctx *ctx,
                      const struct throttle_limits *lim, const json_t *spec,
                      bool on_demand, long long r, long long w,
                      const char *iname, struct ddb_err *err)
{
    static const char *const units[2] = { "ReadCapacityUnits",
                                          "WriteCapacityUnits" };
    long long def[2], v;
    char wh[300];
    int i;

    if (spec == NULL || json_is_null(spec))
        return 0;
    warm_default(lim, on_demand, r, w, def);
    who(iname, wh, sizeof(wh));
    for (i = 0; i < 2; i++) {
        if (!spec_value(spec, i, &v) || v >= def[i])
            continue;
        if (on_demand)
            return ddb_err_set(err, DDB_VALIDATION,
                               "One or more parameter values were invalid: "
                               "Requested %s for WarmThroughput for %s is "
                               "lower than initial throughput for OnDemand. "
                               "See: https://docs.aws.amazon.com/"
                               "amazondynamodb/latest/developerguide/"
                               "on-demand-capacity-mode.html"
                               "#on-demand-capacity-mode-initial",
                               members[i], wh);
        return ddb_err_set(err, DDB_VALIDATION,
                           "One or more parameter values were invalid: "
                           "Requested %s for WarmThroughput for %s is lower "
                           "than %s of ProvisionedThroughput", members[i],
                           wh, units[i]);
    }
    return check_quota(ctx, lim, spec, iname, err);
}

int
tables_warm_check_create(const struct api_ctx *ctx, const json_t *req,
                         const struct tables_create *c, struct ddb_err *err)
{
    struct throttle_limits lim;
    const json_t *g;
    long long r, w;
    size_t i;

    tables_limits(ctx, json_object_get(req, "Tags"), &lim);
    if (tables_warm_check_new(ctx, &lim, json_object_get(req,
                                                         "WarmThroughput"),
                              c->on_demand, c->r, c->w, NULL, err) != 0)
        return -1;
    json_array_foreach(json_object_get(req, "GlobalSecondaryIndexes"), i, g) {
        r = w = 0;
        if (json_has(g, "ProvisionedThroughput") &&
            tables_read_throughput(json_object_get(g, "ProvisionedThroughput"),
                                   &r, &w, err) != 0)
            return -1;
        if (tables_warm_check_new(ctx, &lim,
                                  json_object_get(g, "WarmThroughput"),
                                  c->on_demand, r, w,
                                  tables_str(g, "IndexName"), err) != 0)
            return -1;
    }
    return 0;
}

json_t *
tables_warm_new(const struct throttle_limits *lim, const json_t *spec,
                bool on_demand, long long r, long long w)
{
    long long v[2];
    int i;

    warm_default(lim, on_demand, r, w, v);
    for (i = 0; i < 2; i++)
        spec_value(spec, i, &v[i]);
    return json_pack("{s:I, s:I, s:s}", members[0], (json_int_t)v[0],
                     members[1], (json_int_t)v[1], "Status", "ACTIVE");
}

void
tables_warm_raise(json_t *warm, const struct throttle_limits *lim,
                  bool on_demand, long long r, long long w)
{
    long long def[2];
    int i;

    if (!json_is_object(warm))
        return;
    warm_default(lim, on_demand, r, w, def);
    for (i = 0; i < 2; i++)
        if (tables_uint(warm, members[i]) < def[i])
            json_object_set_new(warm, members[i],
                                json_integer((json_int_t)def[i]));
}

/* The WarmThroughput object of desc's table (iname NULL) or GSI, or NULL. */
static json_t *
warm_of(json_t *desc, const char *iname)
{
    json_t *g;
    size_t i;

    if (iname == NULL)
        return json_object_get(desc, "WarmThroughput");
    json_array_foreach(json_object_get(desc, "GlobalSecondaryIndexes"), i,
                       g)
        if (json_str_is(json_object_get(g, "IndexName"), iname))
            return json_object_get(g, "WarmThroughput");
    return NULL;
}

/*
 * UpdateTable's WarmThroughput (spec) must name a member, before the table
 * is looked up: DynamoDB's message for a GSI, "... specified for index:
 * gsi1", also for a missing index or table; for the table's own it
 * answers HTTP 500 InternalFailure (a catalogue of recorded behaviours,
 * 2026-10-09), for which this is our wording.
 */
int
tables_warm_check_spec(const json_t *spec, const char *iname,
                       struct ddb_err *err)
{
    if (json_has(spec, members[0]) || json_has(spec, members[1]))
        return 0;
    if (iname != NULL)
        return ddb_err_set(err, DDB_VALIDATION,
                           "One or more parameter values were invalid: "
                           "WarmThroughput must have at least one of "
                           "ReadUnitsPerSecond or WriteUnitsPerSecond "
                           "specified for index: %s", iname);
    return ddb_err_set(err, DDB_VALIDATION,
                       "One or more parameter values were invalid: "
                       "WarmThroughput must have at least one of "
                       "ReadUnitsPerSecond or WriteUnitsPerSecond "
                       "specified");
}

/*
 * UpdateTable's WarmThroughput for the table (iname NULL) or a GSI (spec
 * checked by tables_warm_check_spec). A value below what DescribeTable
 * shows now is refused; the same value is accepted; a second increase
 * while one is UPDATING replaces it (the recordings: "decreasing
 * WarmThroughput is not supported", re-sends accepted,
 * "last-writer-wins"). The increase shows UPDATING for the status delay,
 * the table ACTIVE throughout (WarmThroughput.Status only).
 */
int
tables_warm_update(const struct api_ctx *ctx, json_t *desc, const char *iname,
                   const json_t *spec, uint64_t now, struct ddb_err *err)
{
    struct throttle_limits lim;
    json_t *warm = warm_of(desc, iname), *old, *shown;
    unsigned delay = tables_status_delay(ctx);
    long long cur[2], v;
    char wh[300];
    int i;

    if (!json_is_object(warm))
        return ddb_err_set(err, DDB_INTERNAL, "no WarmThroughput");
    old = json_object_get(desc, WARM_OLD);
    shown = json_object_get(old, iname != NULL ? iname : "");
    for (i = 0; i < 2; i++)
        cur[i] = json_is_array(shown)
                     ? (long long)json_integer_value(json_array_get(shown, i))
                     : tables_uint(warm, members[i]);
    who(iname, wh, sizeof(wh));
    for (i = 0; i < 2; i++)
        if (spec_value(spec, i, &v) && v < cur[i])
            return ddb_err_set(err, DDB_VALIDATION,
                               "One or more parameter values were invalid: "
                               "Requested %s for WarmThroughput for %s is "
                               "lower than current WarmThroughput, "
                               "decreasing WarmThroughput is not supported",
                               members[i], wh);
    tables_limits(ctx, json_object_get(desc, PRIV_TAGS), &lim);
    if (check_quota(ctx, &lim, spec, iname, err) != 0)
        return -1;
    for (i = 0; i < 2; i++)
        if (spec_value(spec, i, &v))
            json_object_set_new(warm, members[i], json_integer(v));
    if (delay == 0) {
        json_object_set_new(warm, "Status", json_string("ACTIVE"));
        return 0;
    }
    if (!json_is_object(old)) {
        old = json_object();
        json_object_set_new(desc, WARM_OLD, old);
    }
    if (!json_is_array(shown))
        json_object_set_new(old, iname != NULL ? iname : "",
                            json_pack("[I, I]", (json_int_t)cur[0],
                                      (json_int_t)cur[1]));
    json_object_set_new(warm, "Status", json_string("UPDATING"));
    json_object_set_new(desc, WARM_UNTIL,
                        json_integer((json_int_t)(now + delay)));
    return 0;
}

bool
tables_warm_settle(json_t *desc, uint64_t now)
{
    json_t *until = json_object_get(desc, WARM_UNTIL), *w, *v;
    const char *k;

    if (!json_is_integer(until) || (uint64_t)json_integer_value(until) > now)
        return false;
    json_object_foreach(json_object_get(desc, WARM_OLD), k, v) {
        w = warm_of(desc, k[0] != '\0' ? k : NULL);
        if (json_is_object(w))
            json_object_set_new(w, "Status", json_string("ACTIVE"));
    }
    json_object_del(desc, WARM_OLD);
    json_object_del(desc, WARM_UNTIL);
    return true;
}

void
tables_warm_public(json_t *out, const json_t *desc)
{
    const json_t *v;
    json_t *w;
    const char *k;
    int i;

    json_object_foreach(json_object_get(desc, WARM_OLD), k, v) {
        w = warm_of(out, k[0] != '\0' ? k : NULL);
        if (!json_is_object(w) ||
            !json_str_is(json_object_get(w, "Status"), "UPDATING"))
            continue;
        for (i = 0; i < 2; i++)
            json_object_set(w, members[i], json_array_get(v, i));
    }
}
