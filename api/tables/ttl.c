/* SPDX-License-Identifier: MIT */
/* ttl.c - UpdateTimeToLive and DescribeTimeToLive: the table's Time to
 * Live setting, kept in its description (private member _slTtl: the
 * attribute, on or off, when it last changed). The sweep that deletes
 * expired items is api/streams/sweep.c's. Messages as DynamoDB gives them
 * (recorded 2026-10: ack-api-quirks' ValidationException catalogue,
 * DDB-TABLE-442). */
#include <string.h>

#include "api/proto/context.h"
#include "api/tables/tables.h"
#include "api/tables/tables_int.h"
#include "storage/util.h"

#define PRIV_TTL "_slTtl"
/* "Time to live has been modified multiple times within a fixed
 * interval": a second change within about 30 minutes of the last one is
 * refused (DDB-TABLE-442 measured the cooldown at ~30 min; the API
 * reference speaks of "up to one hour"). */
#define TTL_COOLDOWN_MS (30u * 60u * 1000u)

bool
tables_ttl_attr(const json_t *desc, char *out, size_t outsz)
{
    const json_t *ttl = json_object_get(desc, PRIV_TTL);
    const char *attr = tables_str(ttl, "attr");

    if (!json_is_true(json_object_get(ttl, "enabled")) || attr == NULL)
        return false;
    snprintf(out, outsz, "%s", attr);
    return true;
}

/* ENABLING/DISABLING while the status delay since the last change runs,
 * as DynamoDB reports a change "that can take up to one hour". */
static const char *
ttl_status(const struct api_ctx *ctx, const json_t *ttl, uint64_t now)
{
    bool on = json_is_true(json_object_get(ttl, "enabled"));
    uint64_t at = 0;

    if (ttl == NULL)
        return "DISABLED";
    (void)json_get_uint(ttl, "changedMs", &at);
    if (now < at + tables_status_delay(ctx))
        return on ? "ENABLING" : "DISABLING";
    return on ? "ENABLED" : "DISABLED";
}

int
api_describe_time_to_live(struct api_ctx *ctx, const json_t *req,
                          json_t **resp, struct ddb_err *err)
{
    char name[TABLES_NAME_MAX];
    const char *param = tables_req_name(req, err), *status, *attr;
    struct stable *t = NULL;
    json_t *desc = NULL, *ttl, *out;
    int rc = -1;

    if (param == NULL ||
        tables_open_named(ctx, param, false, name, sizeof(name), &t, &desc,
                          err) != 0)
        return -1;
    status = tables_str(desc, "TableStatus");
    if (status != NULL && (strcmp(status, "CREATING") == 0 ||
                           strcmp(status, "DELETING") == 0)) {
        ddb_err_set(err, DDB_VALIDATION, "Cannot describe time to live while "
                    "table is in %s state: Current table state is %s",
                    status, status);
        goto out;
    }
    ttl = json_object_get(desc, PRIV_TTL);
    status = ttl_status(ctx, ttl, tables_now_ms(ctx));
    out = json_pack("{s:s}", "TimeToLiveStatus", status);
    attr = tables_str(ttl, "attr");
    /* the attribute shows while TTL is on (or on its way off) */
    if (attr != NULL && strcmp(status, "DISABLED") != 0)
        json_object_set_new(out, "AttributeName", json_string(attr));
    *resp = json_pack("{s:o}", "TimeToLiveDescription", out);
    rc = 0;
out:
    json_decref(desc);
    stable_release(t);
    return rc;
}

/* The change against the current setting (ttl, may be NULL): DynamoDB's
 * answers to a no-op re-send and to another attribute, then the
 * cooldown. */
static int
ttl_check(const json_t *ttl, bool enable, const char *attr, uint64_t now,
          struct ddb_err *err)
{
    bool on = json_is_true(json_object_get(ttl, "enabled"));
    const char *cur = tables_str(ttl, "attr");
    uint64_t at = 0;

    if (on && cur != NULL && strcmp(cur, attr) != 0)
        return ddb_err_set(err, DDB_VALIDATION, "TimeToLive is active on a "
                           "different AttributeName: current AttributeName "
                           "is %s", cur);
    if (enable && on)
        return ddb_err_set(err, DDB_VALIDATION,
                           "TimeToLive is already enabled");
    if (!enable && !on)
        return ddb_err_set(err, DDB_VALIDATION,
                           "TimeToLive is already disabled");
    if (ttl != NULL && json_get_uint(ttl, "changedMs", &at) == 1 &&
        now < at + TTL_COOLDOWN_MS)
        return ddb_err_set(err, DDB_VALIDATION, "Time to live has been "
                           "modified multiple times within a fixed "
                           "interval");
    return 0;
}

int
api_update_time_to_live(struct api_ctx *ctx, const json_t *req,
                        json_t **resp, struct ddb_err *err)
{
    const json_t *spec = json_object_get(req, "TimeToLiveSpecification");
    bool enable = json_is_true(json_object_get(spec, "Enabled"));
    const char *attr = tables_str(spec, "AttributeName");
    uint64_t now = tables_now_ms(ctx);
    struct tables_ddl d;
    const char *status;
    int rc = -1;

    if (tables_ddl_begin_req(ctx, req, &d, err) != 0)
        goto out;
    /* TTL changes are admitted while the table is UPDATING (DDB-TABLE-119),
     * not while it is being created or deleted. */
    status = tables_str(d.desc, "TableStatus");
    if (status != NULL && strcmp(status, "UPDATING") != 0 &&
        tables_check_in_use(d.desc, d.name, err) != 0)
        goto out;
    if (ttl_check(json_object_get(d.desc, PRIV_TTL), enable, attr, now,
                  err) != 0)
        goto out;
    json_object_set_new(d.desc, PRIV_TTL,
                        json_pack("{s:s, s:b, s:I}", "attr", attr, "enabled",
                                  enable, "changedMs", (json_int_t)now));
    if (stable_set_desc(d.t, d.desc, err) != 0)
        goto out;
    rc = 0;
out:
    tables_ddl_end(&d, -1, NULL, resp);
    if (rc == 0)
        *resp = json_pack("{s:{s:b, s:s}}", "TimeToLiveSpecification",
                          "Enabled", enable, "AttributeName", attr);
    return rc;
}
