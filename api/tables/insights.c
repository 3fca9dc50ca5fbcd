/* SPDX-License-Identifier: MIT */
/* insights.c - DescribeContributorInsights, UpdateContributorInsights
 * and ListContributorInsights. The state of each table and GSI lives in
 * the table's description under the private member "_slInsights"; the
 * data behind it (most accessed and most throttled keys) is the throttle
 * engine's hot-key sketches, shown by GET /shardlocal/.../hotkeys. */

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/proto/context.h"
#include "api/index/index.h"
#include "api/tables/tables.h"
#include "api/tables/tables_int.h"

#define CI_PRIV         "_slInsights"   /* {"": {...}, "<gsi>": {...}} */
#define CI_RULE_PREFIX  "DynamoDBContributorInsights-"
#define CI_MODE_ALL     "ACCESSED_AND_THROTTLED_KEYS"
#define CI_MODE_THR     "THROTTLED_KEYS"
#define CI_LIST_MAX     100             /* ListContributorInsightsLimit */
#define CI_TOKEN_PREFIX "ci1:"
#define CI_NAME_MAX     1100

/* One table's or GSI's settled view at some time. */
struct ci_view {
    bool configured;                    /* ever enabled */
    const char *status;                 /* ENABLING, ENABLED, DISABLING,
                                           DISABLED */
    const char *mode;                   /* NULL if never configured */
    double last_update;                 /* epoch seconds */
    json_int_t rule_ms;                 /* rule names' timestamp suffix */
};

/* ------------------------------------------------------------------------
 * Helpers
 * ---------------------------------------------------------------------- */

/* The table name of a TableName parameter: the value, or the part after
 * ":table/" of a table ARN. Writes into out. */
static void
name_of(const char *param, char *out, size_t outsz)
{
    const char *p = NULL;

    if (strncmp(param, "arn:", 4) == 0)
        p = strstr(param, ":table/");
    if (p != NULL) {
        p += strlen(":table/");
        snprintf(out, outsz, "%.*s", (int)strcspn(p, "/"), p);
    } else {
        snprintf(out, outsz, "%s", param);
    }
}

/* DynamoDB names the missing table in these operations' messages
 * (DescribeContributorInsights after DeleteTable: "Requested resource not
 * found: Table: T not found"). */
static int
table_not_found(const char *name, struct ddb_err *err)
{
    return ddb_err_set(err, DDB_RESOURCE_NOT_FOUND,
                       "Requested resource not found: Table: %.*s not found",
                       1024, name);
}

/* Open TableName of req: *t and *desc (a deep copy) are the caller's. */
static int
open_table(struct api_ctx *ctx, const json_t *req, char *name,
           size_t namesz, struct stable **t, json_t **desc,
           struct ddb_err *err)
{
    const char *param = json_string_value(json_object_get(req,
                                                          "TableName"));

    name_of(param != NULL ? param : "", name, namesz);
    if (api_open_table_desc(ctx, req, t, desc, err) == 0)
        return 0;
    if (err->type == DDB_RESOURCE_NOT_FOUND) {
        ddb_err_clear(err);
        return table_not_found(name, err);
    }
    return -1;
}

/* The GSI entry named index of table (desc, borrowed), or NULL with err
 * set to DynamoDB's ResourceNotFoundException for a missing index (LSIs
 * included). */
static const json_t *
find_gsi(const json_t *desc, const char *index, const char *table,
         struct ddb_err *err)
{
    const json_t *gsi = index_desc_gsi(desc, index);

    if (gsi == NULL)
        ddb_err_set(err, DDB_RESOURCE_NOT_FOUND,
                    "Requested resource not found: Index: %s not found "
                    "for table: %s", index, table);
    return gsi;
}

/* The table, and the GSI when the request names IndexName, that one
 * Describe- or UpdateContributorInsights call is about. */
struct ci_target {
    char name[CI_NAME_MAX];             /* the table as named (name_of) */
    const char *index;                  /* IndexName (borrowed), or NULL */
    struct stable *t;                   /* owned */
    json_t *desc;                       /* owned: a copy of its description */
    const json_t *gsi;                  /* index's entry in desc, or NULL */
};

static void
target_close(struct ci_target *tg)
{
    json_decref(tg->desc);
    stable_release(tg->t);
}

/* Open the table of req and find the GSI it names, in DynamoDB's order
 * (no table, then no index). On success the caller ends with
 * target_close(); on failure nothing is left open. */
static int
target_open(struct api_ctx *ctx, const json_t *req, struct ci_target *tg,
            struct ddb_err *err)
{
    memset(tg, 0, sizeof(*tg));
    tg->index = json_string_value(json_object_get(req, "IndexName"));
    if (open_table(ctx, req, tg->name, sizeof(tg->name), &tg->t, &tg->desc,
                   err) != 0)
        return -1;
    if (tg->index == NULL)
        return 0;
    tg->gsi = find_gsi(tg->desc, tg->index, tg->name, err);
    if (tg->gsi != NULL)
        return 0;
    target_close(tg);
    return -1;
}

/* {"TableName": table} plus "IndexName" when index is not NULL: the start
 * of every reply and summary (new reference). */
static json_t *
named_new(const char *table, const char *index)
{
    json_t *out = json_pack("{s:s}", "TableName", api_table_public(table));

    if (index != NULL)
        json_object_set_new(out, "IndexName", json_string(index));
    return out;
}

/* True when the key schema (a KeySchema list) has a RANGE key. */
static bool
has_range(const json_t *ks)
{
    const json_t *el;
    size_t i;

    json_array_foreach(ks, i, el) {
        const char *kt = json_string_value(json_object_get(el, "KeyType"));

        if (kt != NULL && strcmp(kt, "RANGE") == 0)
            return true;
    }
    return false;
}

/*
 * The view of the state rec (borrowed, may be NULL) at now: ENABLING or
 * DISABLING until the transition's end (the server's status delay), then
 * ENABLED or DISABLED. Never configured reads DISABLED with no mode.
 */
static void
view_of(const json_t *rec, uint64_t now, struct ci_view *v)
{
    const char *target = json_string_value(json_object_get(rec, "Target"));
    json_int_t changed = json_integer_value(json_object_get(rec,
                                                            "ChangedMs"));
    json_int_t until = json_integer_value(json_object_get(rec, "UntilMs"));
    bool settled = (json_int_t)now >= until;
    bool on;

    memset(v, 0, sizeof(*v));
    if (target == NULL) {
        v->status = "DISABLED";
        return;
    }
    on = strcmp(target, "ENABLED") == 0;
    v->configured = true;
    v->status = on ? (settled ? "ENABLED" : "ENABLING")
                   : (settled ? "DISABLED" : "DISABLING");
    v->mode = json_string_value(json_object_get(rec, "Mode"));
    v->last_update = (double)(settled ? until : changed) / 1000.0;
    v->rule_ms = json_integer_value(json_object_get(rec, "RuleMs"));
}

static const json_t *
state_rec(const json_t *desc, const char *index)
{
    return json_object_get(json_object_get(desc, CI_PRIV),
                           index != NULL ? index : "");
}

/*
 * ContributorInsightsRuleList (new reference): "DynamoDBContributorInsights-
 * {PKC|PKT|SKC|SKT}-<table>[-<index>]-<ms>"; PKC/SKC (most accessed) only
 * in ACCESSED_AND_THROTTLED_KEYS mode, SKC/SKT only with a sort key.
 */
static json_t *
rule_list(const char *table, const char *index, bool range,
          const struct ci_view *v)
{
    static const char *const kinds[] = { "PKC", "PKT", "SKC", "SKT" };
    bool all = v->mode == NULL || strcmp(v->mode, CI_MODE_THR) != 0;
    json_t *out = json_array();
    char buf[2 * CI_NAME_MAX + 96];
    size_t i;

    for (i = 0; i < 4; i++) {
        if (i >= 2 && !range)
            break;
        if (kinds[i][2] == 'C' && !all)
            continue;
        snprintf(buf, sizeof(buf), CI_RULE_PREFIX "%s-%s%s%s-%lld",
                 kinds[i], api_table_public(table),
                 index != NULL ? "-" : "",
                 index != NULL ? index : "", (long long)v->rule_ms);
        json_array_append_new(out, json_string(buf));
    }
    return out;
}

/* ------------------------------------------------------------------------
 * DescribeContributorInsights
 * ---------------------------------------------------------------------- */

int
api_describe_contributor_insights(struct api_ctx *ctx, const json_t *req,
                                  json_t **resp, struct ddb_err *err)
{
    struct ci_target tg;
    const json_t *ks;
    struct ci_view v;
    json_t *out;

    if (target_open(ctx, req, &tg, err) != 0)
        return -1;
    ks = json_object_get(tg.gsi != NULL ? tg.gsi : tg.desc, "KeySchema");
    view_of(state_rec(tg.desc, tg.index), ctx->now_ms, &v);
    out = named_new(stable_name(tg.t), tg.index);
    if (strcmp(v.status, "ENABLED") == 0 || strcmp(v.status, "ENABLING") == 0)
        json_object_set_new(out, "ContributorInsightsRuleList",
                            rule_list(stable_name(tg.t), tg.index,
                                      has_range(ks), &v));
    json_object_set_new(out, "ContributorInsightsStatus",
                        json_string(v.status));
    if (v.configured) {
        json_object_set_new(out, "LastUpdateDateTime",
                            json_real(v.last_update));
        if (v.mode != NULL)
            json_object_set_new(out, "ContributorInsightsMode",
                                json_string(v.mode));
    }
    *resp = out;
    target_close(&tg);
    return 0;
}

/* ------------------------------------------------------------------------
 * UpdateContributorInsights
 * ---------------------------------------------------------------------- */

/*
 * DynamoDB's transitions (measured): ENABLE answers ENABLING and settles
 * later; ENABLE on ENABLED with the same mode is a no-op answering
 * ENABLED; ENABLE with another mode (no mode means ACCESSED_AND_THROTTLED_
 * KEYS) goes through ENABLING again and keeps the rules' timestamp;
 * DISABLE answers DISABLING; DISABLE on a disabled or never-configured
 * table answers DISABLED; a mode sent with DISABLE is ignored (the
 * current one is echoed). The transition lasts the server's status delay.
 */
int
api_update_contributor_insights(struct api_ctx *ctx, const json_t *req,
                                json_t **resp, struct ddb_err *err)
{
    const char *action = json_string_value(json_object_get(
        req, "ContributorInsightsAction"));
    const char *mode = json_string_value(json_object_get(
        req, "ContributorInsightsMode"));
    bool enable = action != NULL && strcmp(action, "ENABLE") == 0;
    struct ci_target tg;
    json_t *all, *rec = NULL, *out;
    const char *status;
    struct ci_view v;
    uint64_t now = ctx->now_ms;
    unsigned delay = tables_status_delay(ctx);
    int rc = -1;

    if (target_open(ctx, req, &tg, err) != 0)
        return -1;
    if (tg.gsi != NULL) {
        status = json_string_value(json_object_get(tg.gsi, "IndexStatus"));
        if (enable && status != NULL && strcmp(status, "ACTIVE") != 0) {
            ddb_err_set(err, DDB_VALIDATION,
                        "Table or Index is not in a valid state to update "
                        "Key Access Insights: IndexStatus must be ACTIVE to "
                        "enable ContributorInsights.");
            goto out;
        }
    }
    if (mode == NULL || !enable)
        mode = CI_MODE_ALL;
    view_of(state_rec(tg.desc, tg.index), now, &v);
    out = named_new(stable_name(tg.t), tg.index);

    if (enable) {
        bool on = strcmp(v.status, "ENABLED") == 0 ||
                  strcmp(v.status, "ENABLING") == 0;

        if (on && v.mode != NULL && strcmp(v.mode, mode) == 0) {
            status = v.status;          /* no-op */
        } else {
            rec = json_pack("{s:s,s:s,s:I,s:I,s:I}", "Target", "ENABLED",
                            "Mode", mode, "ChangedMs", (json_int_t)now,
                            "UntilMs", (json_int_t)(now + delay),
                            "RuleMs", on ? v.rule_ms : (json_int_t)now);
            status = "ENABLING";
        }
        json_object_set_new(out, "ContributorInsightsStatus",
                            json_string(status));
        json_object_set_new(out, "ContributorInsightsMode",
                            json_string(mode));
    } else {
        bool off = strcmp(v.status, "DISABLED") == 0 ||
                   strcmp(v.status, "DISABLING") == 0;

        status = v.status;
        if (!off) {
            rec = json_pack("{s:s,s:s?,s:I,s:I,s:I}", "Target", "DISABLED",
                            "Mode", v.mode, "ChangedMs", (json_int_t)now,
                            "UntilMs", (json_int_t)(now + delay),
                            "RuleMs", v.rule_ms);
            status = "DISABLING";
        }
        json_object_set_new(out, "ContributorInsightsStatus",
                            json_string(status));
        if (v.mode != NULL)
            json_object_set_new(out, "ContributorInsightsMode",
                                json_string(v.mode));
    }
    if (rec != NULL) {
        /* Write our record into the current description under the DDL
         * lock: writing back the copy read above would undo an UpdateTable
         * that committed meanwhile (a lost update). */
        api_ddl_lock();
        json_decref(tg.desc);
        tg.desc = stable_desc(tg.t);
        tg.gsi = NULL;                  /* it was in the old copy */
        all = json_object_get(tg.desc, CI_PRIV);
        if (!json_is_object(all)) {
            all = json_object();
            json_object_set_new(tg.desc, CI_PRIV, all);
        }
        json_object_set_new(all, tg.index != NULL ? tg.index : "", rec);
        rec = NULL;
        if (stable_set_desc(tg.t, tg.desc, err) != 0) {
            api_ddl_unlock();
            json_decref(out);
            goto out;
        }
        api_ddl_unlock();
    }
    *resp = out;
    rc = 0;
out:
    json_decref(rec);
    target_close(&tg);
    return rc;
}

/* ------------------------------------------------------------------------
 * ListContributorInsights
 * ---------------------------------------------------------------------- */

/* Compare candidates (table, index; "" is the table itself, first). */
static int
cand_cmp(const char *t1, const char *i1, const char *t2, const char *i2)
{
    int c = strcmp(t1, t2);

    return c != 0 ? c : strcmp(i1, i2);
}

static int
str_cmp(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

struct ci_page {
    const char *from_table, *from_index;    /* resume here (inclusive) */
    size_t max;
    json_t *list;                           /* summaries */
    char next_table[CI_NAME_MAX];           /* set when the page is full */
    char next_index[CI_NAME_MAX];
    bool has_next;
    uint64_t now;
};

/* Add the listed entries (status not DISABLED) of one table to pg: the
 * table first, then its GSIs by name. */
static void
list_table(struct ci_page *pg, const char *table, const json_t *desc)
{
    const char *names[64];
    size_t n = 0, i;
    const json_t *el;
    struct ci_view v;

    names[n++] = "";
    json_array_foreach(json_object_get(desc, "GlobalSecondaryIndexes"), i,
                       el) {
        const char *g = json_string_value(json_object_get(el, "IndexName"));

        if (g != NULL && n < sizeof(names) / sizeof(names[0]))
            names[n++] = g;
    }
    qsort(names + 1, n - 1, sizeof(names[0]), str_cmp);
    for (i = 0; i < n && !pg->has_next; i++) {
        json_t *s;

        if (pg->from_table != NULL &&
            cand_cmp(table, names[i], pg->from_table, pg->from_index) < 0)
            continue;
        view_of(state_rec(desc, names[i][0] ? names[i] : NULL), pg->now, &v);
        if (strcmp(v.status, "DISABLED") == 0)
            continue;
        if (json_array_size(pg->list) >= pg->max) {
            snprintf(pg->next_table, sizeof(pg->next_table), "%s", table);
            snprintf(pg->next_index, sizeof(pg->next_index), "%s", names[i]);
            pg->has_next = true;
            break;
        }
        s = named_new(table, names[i][0] ? names[i] : NULL);
        json_object_set_new(s, "ContributorInsightsStatus",
                            json_string(v.status));
        if (v.mode != NULL)
            json_object_set_new(s, "ContributorInsightsMode",
                                json_string(v.mode));
        json_array_append_new(pg->list, s);
    }
}

/*
 * Tokens are "ci1:<table>:<index>" (the next entry to return; table and
 * index names cannot hold ':'). Returns false for anything else.
 */
static bool
parse_token(const char *tok, char *table, char *index, size_t sz)
{
    const char *p, *c;

    if (strncmp(tok, CI_TOKEN_PREFIX, strlen(CI_TOKEN_PREFIX)) != 0)
        return false;
    p = tok + strlen(CI_TOKEN_PREFIX);
    c = strchr(p, ':');
    if (c == NULL || c == p || (size_t)(c - p) >= sz ||
        strlen(c + 1) >= sz || strchr(c + 1, ':') != NULL)
        return false;
    memcpy(table, p, (size_t)(c - p));
    table[c - p] = '\0';
    strcpy(index, c + 1);
    return true;
}

int
api_list_contributor_insights(struct api_ctx *ctx, const json_t *req,
                              json_t **resp, struct ddb_err *err)
{
    const json_t *jmax = json_object_get(req, "MaxResults");
    const char *tok = json_string_value(json_object_get(req, "NextToken"));
    char name[CI_NAME_MAX], ft[CI_NAME_MAX], fi[CI_NAME_MAX];
    char buf[2 * CI_NAME_MAX + 16];
    struct ci_page pg;
    struct stable *t = NULL;
    json_t *desc = NULL, *names = NULL, *n, *out;
    size_t i;

    memset(&pg, 0, sizeof(pg));
    pg.now = ctx->now_ms;
    pg.max = CI_LIST_MAX;
    if (json_is_integer(jmax) && json_integer_value(jmax) > 0 &&
        json_integer_value(jmax) < CI_LIST_MAX)
        pg.max = (size_t)json_integer_value(jmax);
    if (tok != NULL) {
        if (!parse_token(tok, ft, fi, sizeof(ft)))
            return ddb_err_set(err, DDB_VALIDATION,
                               "Invalid NextToken: %.*s", 256, tok);
        pg.from_table = ft;
        pg.from_index = fi;
    }
    pg.list = json_array();
    if (json_object_get(req, "TableName") != NULL) {
        if (open_table(ctx, req, name, sizeof(name), &t, &desc, err) != 0) {
            json_decref(pg.list);
            return -1;
        }
        list_table(&pg, api_table_public(stable_name(t)), desc);
        json_decref(desc);
        stable_release(t);
    } else {
        names = storage_table_names(ctx->srv->st);
        json_array_foreach(names, i, n) {
            const char *tn = json_string_value(n);
            char acct[13];

            if (pg.has_next)
                break;
            /* The caller's account's tables, by their public names. */
            if (tn == NULL || index_is_hidden_name(tn) ||
                strcmp(api_table_owner(ctx, tn, acct), api_account(ctx)) ||
                (pg.from_table != NULL &&
                 strcmp(api_table_public(tn), pg.from_table) < 0))
                continue;
            t = storage_table_get(ctx->srv->st, tn);
            if (t == NULL)
                continue;
            desc = stable_desc_ref(t);
            list_table(&pg, api_table_public(tn), desc);
            json_decref(desc);
            stable_release(t);
        }
        json_decref(names);
    }
    out = json_pack("{s:o}", "ContributorInsightsSummaries", pg.list);
    if (pg.has_next) {
        snprintf(buf, sizeof(buf), CI_TOKEN_PREFIX "%s:%s", pg.next_table,
                 pg.next_index);
        json_object_set_new(out, "NextToken", json_string(buf));
    }
    *resp = out;
    return 0;
}
