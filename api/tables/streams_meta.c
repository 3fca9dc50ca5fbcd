/* SPDX-License-Identifier: MIT */
/* streams_meta.c - a table's DynamoDB Streams as its description keeps
 * them: StreamSpecification on CreateTable and UpdateTable (DynamoDB's
 * checks and messages), the streams list (private member _slStreams:
 * label, view type, the log markers that opened and closed each), the
 * public LatestStreamArn/LatestStreamLabel, stream ARNs and their lookup
 * for the Streams API (api/streams/), and a deleted table's streams kept
 * readable for 24 hours under a hidden name. The log itself is storage's
 * (stable_log_switch: docs/design.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/index/index.h"
#include "api/proto/context.h"
#include "api/tables/tables.h"
#include "api/tables/tables_int.h"
#include "api/throttle/gate.h"
#include "storage/util.h"

#define PRIV_STREAMS    "_slStreams"    /* the streams, oldest first */
#define PRIV_RETIRED    "_slRetiredMs"  /* a deleted table kept: when */
#define RETIRED_SEP     "/stream/"      /* "<table>/stream/<n>" */
#define PARAM_INVALID   "One or more parameter values were invalid: "

/* ------------------------------------------------------------------------
 * Labels and ARNs
 * ---------------------------------------------------------------------- */

void
tables_stream_label(uint64_t ms, char out[TABLES_LABEL_MAX])
{
    time_t secs = (time_t)(ms / 1000u);
    struct tm tm;
    char buf[96];
    int n;

    gmtime_r(&secs, &tm);
    n = snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02d.%03u",
                 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
                 tm.tm_min, tm.tm_sec, (unsigned)(ms % 1000u));
    if (n < 0 || n >= TABLES_LABEL_MAX)
        n = n < 0 ? 0 : TABLES_LABEL_MAX - 1;
    memcpy(out, buf, (size_t)n);
    out[n] = '\0';
}

/* The ARN of desc's stream labelled label: the table's ARN (as created,
 * with its region) + "/stream/" + label. */
static void
stream_arn(const json_t *desc, const char *label, char *out, size_t outsz)
{
    const char *tarn = tables_str(desc, "TableArn");

    snprintf(out, outsz, "%s/stream/%s", tarn != NULL ? tarn : "", label);
}

/*
 * Split a stream ARN, arn:aws:dynamodb:<region>:<account>:table/<name>/
 * stream/<label>, into the table's stored name (context.h: <name> in
 * <account>) and the label. False when arn is not one (ValidationException
 * "Invalid StreamArn": DescribeStream with "fake-stream", aws-sdk-js v2
 * integration tests against DynamoDB). Whether the caller may read it is
 * tables_check_access()'s question.
 */
static bool
stream_arn_parse(const struct api_ctx *ctx, const char *arn, char *name,
                 size_t namesz, char *label, size_t labelsz)
{
    const char *tname, *sep;
    char account[13], pub[TABLES_NAME_MAX];

    tname = tables_arn_table(arn, account);
    if (tname == NULL)
        return false;
    sep = strstr(tname, "/stream/");
    if (sep == NULL || sep == tname || (size_t)(sep - tname) >= sizeof(pub) ||
        memchr(tname, '/', (size_t)(sep - tname)) != NULL ||
        memchr(tname, ':', (size_t)(sep - tname)) != NULL ||
        sep[8] == '\0' || strlen(sep + 8) >= labelsz ||
        strchr(sep + 8, '/') != NULL)
        return false;
    memcpy(pub, tname, (size_t)(sep - tname));
    pub[sep - tname] = '\0';
    snprintf(label, labelsz, "%s", sep + 8);
    return api_table_stored(ctx, account, pub, name, namesz);
}

/* ------------------------------------------------------------------------
 * StreamSpecification in CreateTable and UpdateTable
 * ---------------------------------------------------------------------- */

/*
 * The request's StreamSpecification, checked alone (recorded DynamoDB
 * messages, 2026-10: ack-api-quirks DDB-TABLE-050 and its ValidationException
 * catalogue). CreateTable with StreamEnabled false and no view type is no
 * stream at all (DDB-TABLE-029: StreamSpecification absent afterwards).
 */
int
tables_stream_parse(const json_t *req, bool create,
                    struct tables_stream_req *sr, struct ddb_err *err)
{
    const json_t *ss = json_object_get(req, "StreamSpecification");

    memset(sr, 0, sizeof(*sr));
    if (!json_is_object(ss))
        return 0;
    sr->present = true;
    sr->enable = json_is_true(json_object_get(ss, "StreamEnabled"));
    sr->view = tables_str(ss, "StreamViewType");
    if (sr->enable && sr->view == NULL)
        return ddb_err_set(err, DDB_VALIDATION, PARAM_INVALID "%s",
                           create ? "Table is being created with a stream "
                                    "enabled, UpdateViewType is required"
                                  : "If stream is being enabled then "
                                    "UpdateViewType is required");
    if (!sr->enable && sr->view != NULL)
        return ddb_err_set(err, DDB_VALIDATION, PARAM_INVALID "%s",
                           create ? "Table is being created with a stream "
                                    "disabled, UpdateViewType should not be "
                                    "specified"
                                  : "If stream is being disabled, then "
                                    "UpdateViewType must not be specified");
    if (create && !sr->enable)
        sr->present = false;
    return 0;
}

/* Is desc's newest stream enabled? */
static bool
stream_enabled(const json_t *desc)
{
    const json_t *list = json_object_get(desc, PRIV_STREAMS);
    const json_t *last = json_array_get(list, json_array_size(list) - 1);

    return json_is_object(last) && json_object_get(last, "end") == NULL;
}

int
tables_stream_check(const struct tables_stream_req *sr, const json_t *desc,
                    const char *name, struct ddb_err *err)
{
    if (!sr->present)
        return 0;
    if (sr->enable && stream_enabled(desc))
        return ddb_err_set(err, DDB_VALIDATION, "Table already has an "
                           "enabled stream: TableName: %s", name);
    if (!sr->enable && !stream_enabled(desc))
        return ddb_err_set(err, DDB_VALIDATION, "Table has no stream to "
                           "disable: TableName: %s", name);
    return 0;
}

/* The switch's work on the description (stable_switch_fn): open a stream
 * at marker seq, born at ms, or close the open one; returns a copy for
 * storage to commit. */
struct switch_arg {
    json_t *desc;                   /* borrowed: updated in place */
    const char *view;               /* the new stream's, or NULL: close */
    bool retire;                    /* closing for a deleted table */
};

static json_t *
switch_fn(void *arg, uint64_t seq, uint64_t ms, struct ddb_err *err)
{
    struct switch_arg *a = arg;
    json_t *list = json_object_get(a->desc, PRIV_STREAMS), *last;
    char label[TABLES_LABEL_MAX], arn[TABLES_NAME_MAX + 512];

    (void)err;
    if (!json_is_array(list)) {
        list = json_array();
        json_object_set_new(a->desc, PRIV_STREAMS, list);
    }
    if (a->view != NULL) {
        tables_stream_label(ms, label);
        stream_arn(a->desc, label, arn, sizeof(arn));
        json_array_append_new(list,
                              json_pack("{s:s, s:s, s:I, s:I}", "label",
                                        label, "view", a->view, "start",
                                        (json_int_t)seq, "ms",
                                        (json_int_t)ms));
        json_object_set_new(a->desc, "StreamSpecification",
                            json_pack("{s:b, s:s}", "StreamEnabled", 1,
                                      "StreamViewType", a->view));
        json_object_set_new(a->desc, "LatestStreamLabel", json_string(label));
        json_object_set_new(a->desc, "LatestStreamArn", json_string(arn));
    } else {
        last = json_array_get(list, json_array_size(list) - 1);
        if (json_is_object(last) && json_object_get(last, "end") == NULL) {
            json_object_set_new(last, "end", json_integer((json_int_t)seq));
            json_object_set_new(last, "endMs", json_integer((json_int_t)ms));
        }
        /* disabled: no StreamSpecification (as never enabled), the last
         * ARN and label stay (DDB-TABLE-050) */
        json_object_del(a->desc, "StreamSpecification");
        if (a->retire)
            json_object_set_new(a->desc, PRIV_RETIRED,
                                json_integer((json_int_t)ms));
    }
    return json_clone(a->desc);
}

/* Call fn with each kept (deleted) incarnation of table name, the
 * storage tables "<name>/stream/<n>", until it returns true. */
typedef bool retired_fn(void *arg, const char *storage_name);

static void
each_retired(struct api_ctx *ctx, const char *name, retired_fn *fn,
             void *arg)
{
    json_t *names = storage_table_names(ctx->srv->st);
    char prefix[TABLES_NAME_MAX + 16];
    size_t i, plen;

    snprintf(prefix, sizeof(prefix), "%s" RETIRED_SEP, name);
    plen = strlen(prefix);
    for (i = 0; i < json_array_size(names); i++) {
        const char *n = json_string_value(json_array_get(names, i));

        if (n != NULL && strncmp(n, prefix, plen) == 0 && fn(arg, n))
            break;
    }
    json_decref(names);
}

struct floor_arg {
    struct api_ctx *ctx;
    uint64_t floor;
};

static bool
floor_fn(void *arg, const char *storage_name)
{
    struct floor_arg *a = arg;
    struct stable *t = storage_table_get(a->ctx->srv->st, storage_name);
    json_t *d, *e;
    uint64_t v;
    size_t j;

    if (t == NULL)
        return false;
    d = stable_desc_ref(t);
    json_array_foreach(json_object_get(d, PRIV_STREAMS), j, e)
        if (json_get_uint(e, "ms", &v) == 1 && v + 1 > a->floor)
            a->floor = v + 1;
    json_decref(d);
    stable_release(t);
    return false;
}

/* The newest label a kept (deleted) incarnation of table name used, in ms
 * plus one: a new stream of the name must not reuse one (its ARN would
 * name two streams). */
static uint64_t
label_floor(struct api_ctx *ctx, const char *name)
{
    struct floor_arg a = { ctx, 0 };

    each_retired(ctx, name, floor_fn, &a);
    return a.floor;
}

int
tables_stream_commit(struct api_ctx *ctx, const struct tables_stream_req *sr,
                     struct stable *t, json_t *desc, struct ddb_err *err)
{
    struct switch_arg a = { desc, NULL, false };

    if (!sr->present)
        return stable_set_desc(t, desc, err);
    a.view = sr->enable ? sr->view : NULL;
    return stable_log_switch(t, sr->enable,
                             label_floor(ctx, stable_name(t)), switch_fn,
                             &a, err);
}

int
tables_stream_create(struct api_ctx *ctx, const struct tables_stream_req *sr,
                     const char *name, json_t *desc, unsigned nparts,
                     struct ddb_err *err)
{
    struct switch_arg a = { desc, sr->view, false };

    if (!sr->present)
        return storage_table_create(ctx->srv->st, name, desc, nparts, err);
    return storage_table_create_logged(ctx->srv->st, name, nparts,
                                       label_floor(ctx, name), switch_fn,
                                       &a, err);
}

bool
tables_stream_busy(const struct api_ctx *ctx, const json_t *desc,
                   uint64_t now)
{
    const json_t *list = json_object_get(desc, PRIV_STREAMS);
    const json_t *last = json_array_get(list, json_array_size(list) - 1);
    uint64_t at = 0;

    if (!json_str_is(json_object_get(desc, "TableStatus"), "UPDATING") ||
        (json_get_uint(last, "endMs", &at) != 1 &&
         json_get_uint(last, "ms", &at) != 1))
        return false;
    return now < at + tables_status_delay(ctx);
}

/* ------------------------------------------------------------------------
 * A deleted table's streams: kept readable for 24 hours
 * ---------------------------------------------------------------------- */

/* Does desc hold a stream still within its 24 hours at now? */
static bool
has_live_stream(const json_t *desc, uint64_t now)
{
    const json_t *e;
    uint64_t end_ms;
    size_t i;

    json_array_foreach(json_object_get(desc, PRIV_STREAMS), i, e) {
        if (json_get_uint(e, "endMs", &end_ms) != 1 ||
            end_ms + TABLES_STREAM_RETENTION_MS > now)
            return true;
    }
    return false;
}

/*
 * DeleteTable of a table with a stream: "the stream goes into the DISABLED
 * state, and the stream is automatically deleted after 24 hours" (DeleteTable
 * API reference); the old stream stays listable and readable (DDB-TABLE-378).
 * The table's storage is kept under a hidden name with its open stream
 * closed, so the name is free at once. Returns 1 when kept, 0 when there
 * is nothing to keep, -1 on error.
 */
int
tables_stream_retire(struct api_ctx *ctx, const char *name,
                     struct ddb_err *err)
{
    struct stable *t = storage_table_get(ctx->srv->st, name);
    char hidden[TABLES_NAME_MAX + 32];
    struct switch_arg a = { NULL, NULL, true };
    json_t *desc = NULL;
    int rc = 0;

    if (t == NULL)
        return 0;
    desc = stable_desc(t);
    if (desc == NULL || !has_live_stream(desc, tables_now_ms(ctx)))
        goto out;
    a.desc = desc;
    rc = -1;
    if (stable_log_switch(t, false, 0, switch_fn, &a, err) != 0)
        goto out;
    for (unsigned n = 1;; n++) {
        snprintf(hidden, sizeof(hidden), "%s" RETIRED_SEP "%u", name, n);
        if (storage_table_rename(ctx->srv->st, name, hidden, err) == 0)
            break;
        if (err == NULL || err->type != DDB_RESOURCE_IN_USE)
            goto out;
        ddb_err_clear(err);
    }
    rc = 1;
out:
    json_decref(desc);
    stable_release(t);
    return rc;
}

/*
 * The 24 hours: drop streams of table name (live or kept) whose 24 hours
 * after disabling are over, and a kept table once none is left. Under the
 * DDL lock; the caller trims the log itself.
 */
int
tables_streams_expire(struct api_ctx *ctx, const char *name, uint64_t now,
                      struct ddb_err *err)
{
    struct stable *t = storage_table_get(ctx->srv->st, name);
    json_t *desc, *list, *e;
    uint64_t end_ms;
    bool changed = false, retired;
    size_t i;
    int rc = 0;

    if (t == NULL)
        return 0;
    api_ddl_lock();
    desc = stable_desc(t);
    list = json_object_get(desc, PRIV_STREAMS);
    for (i = 0; i < json_array_size(list);) {
        e = json_array_get(list, i);
        if (json_get_uint(e, "endMs", &end_ms) == 1 &&
            end_ms + TABLES_STREAM_RETENTION_MS <= now) {
            json_array_remove(list, i);
            changed = true;
        } else {
            i++;
        }
    }
    retired = json_object_get(desc, PRIV_RETIRED) != NULL;
    if (retired && json_array_size(list) == 0) {
        stable_release(t);
        t = NULL;
        if (storage_table_delete(ctx->srv->st, name, err) != 0) {
            if (err != NULL && err->type == DDB_RESOURCE_NOT_FOUND)
                ddb_err_clear(err);
            else
                rc = -1;
        }
    } else if (changed) {
        rc = stable_set_desc(t, desc, err);
    }
    api_ddl_unlock();
    json_decref(desc);
    stable_release(t);
    return rc;
}

/* ------------------------------------------------------------------------
 * The Streams API's view: listing and opening streams
 * ---------------------------------------------------------------------- */

/* The user table a storage name belongs to (itself, or the table a kept
 * "<table>/stream/<n>" was), into out; false for other hidden names. */
static bool
stream_owner(const char *storage_name, char *out, size_t outsz)
{
    const char *sep = strstr(storage_name, RETIRED_SEP);
    size_t len = sep != NULL ? (size_t)(sep - storage_name)
                             : strlen(storage_name);

    if ((sep == NULL && strchr(storage_name, '/') != NULL) || len >= outsz)
        return false;
    memcpy(out, storage_name, len);
    out[len] = '\0';
    return true;
}

/* Fill s from stream entry e of desc (table t, user table stored as
 * name: s->table gets its public name). */
static void
stream_fill(struct tables_stream *s, const json_t *desc, const json_t *e,
            const char *name)
{
    const char *v = tables_str(e, "view");

    snprintf(s->table, sizeof(s->table), "%s", api_table_public(name));
    snprintf(s->label, sizeof(s->label), "%s", tables_str(e, "label"));
    snprintf(s->view, sizeof(s->view), "%s", v != NULL ? v : "KEYS_ONLY");
    stream_arn(desc, s->label, s->arn, sizeof(s->arn));
    s->start = s->end = s->ms = s->end_ms = 0;
    (void)json_get_uint(e, "start", &s->start);
    (void)json_get_uint(e, "end", &s->end);
    (void)json_get_uint(e, "ms", &s->ms);
    (void)json_get_uint(e, "endMs", &s->end_ms);
    s->deleted = json_object_get(desc, PRIV_RETIRED) != NULL;
}

/* Every stream of every table of the caller's account (of table name
 * only, when not NULL), as {"StreamArn", "TableName", "StreamLabel"}
 * sorted by table name, then label (creation). A new reference. */
json_t *
tables_stream_list(struct api_ctx *ctx, const char *table)
{
    json_t *names = storage_table_names(ctx->srv->st), *out = json_array();
    char owner[TABLES_NAME_MAX], stored[TABLES_NAME_MAX], acct[13];
    struct tables_stream s;
    struct stable *t;
    json_t *d, *e, *row;
    size_t i, j, k;

    if (table != NULL &&
        !api_table_stored(ctx, NULL, table, stored, sizeof(stored)))
        stored[0] = '\0';
    for (i = 0; i < json_array_size(names); i++) {
        const char *n = json_string_value(json_array_get(names, i));

        if (n == NULL || !stream_owner(n, owner, sizeof(owner)) ||
            strcmp(api_table_owner(ctx, owner, acct),
                   tables_account(ctx)) != 0 ||
            (table != NULL && strcmp(owner, stored) != 0) ||
            (t = storage_table_get(ctx->srv->st, n)) == NULL)
            continue;
        d = stable_desc_ref(t);
        json_array_foreach(json_object_get(d, PRIV_STREAMS), j, e) {
            stream_fill(&s, d, e, owner);
            row = json_pack("{s:s, s:s, s:s}", "StreamArn", s.arn,
                            "TableName", s.table, "StreamLabel", s.label);
            /* insertion sort: few streams, and names come sorted */
            for (k = json_array_size(out); k > 0; k--) {
                const json_t *p = json_array_get(out, k - 1);
                int c = strcmp(tables_str(p, "TableName"), s.table);

                if (c < 0 || (c == 0 && strcmp(tables_str(p, "StreamLabel"),
                                               s.label) <= 0))
                    break;
            }
            json_array_insert_new(out, k, row);
        }
        json_decref(d);
        stable_release(t);
    }
    json_decref(names);
    return out;
}

/* The (table, label) order of tables_stream_list() for a stream ARN; -2
 * when arn is not a stream ARN. */
int
tables_stream_cmp(const struct api_ctx *ctx, const char *arn,
                  const json_t *row)
{
    char name[TABLES_NAME_MAX], label[TABLES_LABEL_MAX];
    int c;

    if (!stream_arn_parse(ctx, arn, name, sizeof(name), label,
                          sizeof(label)))
        return -2;
    c = strcmp(api_table_public(name), tables_str(row, "TableName"));
    if (c == 0)
        c = strcmp(label, tables_str(row, "StreamLabel"));
    return c < 0 ? -1 : c > 0;
}

/* Look label up in the streams of storage table n (owner: its user
 * table); 1 found (s filled, s->t a handle), 0 not, with the table's
 * key schema. */
static int
stream_find(struct api_ctx *ctx, const char *n, const char *owner,
            const char *label, struct tables_stream *s)
{
    struct stable *t = storage_table_get(ctx->srv->st, n);
    json_t *d, *e;
    size_t i;

    if (t == NULL)
        return 0;
    d = stable_desc_ref(t);
    json_array_foreach(json_object_get(d, PRIV_STREAMS), i, e) {
        if (!json_str_is(json_object_get(e, "label"), label))
            continue;
        stream_fill(s, d, e, owner);
        s->key_schema = json_clone(json_object_get(d, "KeySchema"));
        s->t = t;
        json_decref(d);
        return 1;
    }
    json_decref(d);
    stable_release(t);
    return 0;
}

struct find_arg {
    struct api_ctx *ctx;
    const char *name, *label;
    struct tables_stream *s;
    int found;
};

static bool
find_fn(void *arg, const char *storage_name)
{
    struct find_arg *a = arg;

    a->found = stream_find(a->ctx, storage_name, a->name, a->label, a->s);
    return a->found != 0;
}

int
tables_stream_open(struct api_ctx *ctx, const char *arn,
                   struct tables_stream *s, struct ddb_err *err)
{
    char name[TABLES_NAME_MAX], label[TABLES_LABEL_MAX];
    struct find_arg a = { ctx, name, label, s, 0 };

    memset(s, 0, sizeof(*s));
    if (!stream_arn_parse(ctx, arn, name, sizeof(name), label,
                          sizeof(label)))
        return ddb_err_set(err, DDB_VALIDATION, "Invalid StreamArn");
    if (tables_check_access(ctx, name, err) != 0)
        return -1;
    a.found = stream_find(ctx, name, name, label, s);
    if (!a.found)
        each_retired(ctx, name, find_fn, &a);
    if (!a.found)
        return ddb_err_set(err, DDB_RESOURCE_NOT_FOUND,
                           "Requested resource not found: Stream: %s not "
                           "found", arn);
    return 0;
}

void
tables_stream_close(struct tables_stream *s)
{
    json_decref(s->key_schema);
    if (s->t != NULL)
        stable_release(s->t);
    s->key_schema = NULL;
    s->t = NULL;
}
