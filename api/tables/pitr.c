/* SPDX-License-Identifier: MIT */
/* pitr.c - point-in-time recovery: UpdateContinuousBackups,
 * DescribeContinuousBackups, and a table's items as they were at a time
 * (tables_pitr_items_at), which RestoreTableToPointInTime (restore.c) and
 * an export of a past time read. While PITR is on the table's change log
 * is on (as for a stream) and kept for the recovery period; the state at a
 * time is a base copy (a hidden backup taken when PITR was turned on, and
 * again each day) with the logged changes after it replayed up to that
 * time (docs/design.md, "Point-in-time recovery"). The table's private
 * member _slPitr holds the period, when PITR was turned on and the bases
 * (oldest first): {"days", "sinceMs", "bases": [{"key", "ms", "seq"}]}. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/index/index.h"
#include "api/proto/av.h"
#include "api/proto/context.h"
#include "api/tables/tables.h"
#include "api/tables/tables_int.h"
#include "storage/util.h"

#define DAY_MS 86400000ULL
/* A new base once the newest is this old: the log kept behind the
 * recovery period is at most a day long. */
#define PITR_REBASE_MS DAY_MS
/* Log records are trimmed this long before the oldest base at the latest
 * (a record's time and its base's may differ by a clock tick). */
#define PITR_TRIM_MARGIN_MS 60000ULL
/* Default and bounds of RecoveryPeriodInDays (UpdateContinuousBackups API
 * reference: 1 to 35, 35 when not given). */
#define PITR_DAYS_DEFAULT 35

/* ------------------------------------------------------------------------
 * The private member
 * ---------------------------------------------------------------------- */

static const json_t *
pitr_of(const json_t *desc)
{
    const json_t *p = json_object_get(desc, PRIV_PITR);

    return json_is_object(p) ? p : NULL;
}

bool
tables_pitr_on(const json_t *desc)
{
    return pitr_of(desc) != NULL;
}

static uint64_t
u64_of(const json_t *obj, const char *key)
{
    uint64_t v = 0;

    return json_get_uint(obj, key, &v) == 1 ? v : 0;
}

/* The recovery window at now: [*earliest, now]; false without a base. */
static bool
window_of(const json_t *p, uint64_t now, uint64_t *earliest)
{
    const json_t *b0 = json_array_get(json_object_get(p, "bases"), 0);
    uint64_t days = u64_of(p, "days");
    uint64_t floor = now > days * DAY_MS ? now - days * DAY_MS : 0;
    uint64_t first;

    if (b0 == NULL)
        return false;
    first = u64_of(b0, "ms");
    *earliest = first > floor ? first : floor;
    return *earliest <= now;
}

uint64_t
tables_pitr_trim_ms(const json_t *desc, uint64_t cutoff)
{
    const json_t *p = pitr_of(desc);
    const json_t *b0;
    uint64_t ms;

    if (p == NULL)
        return cutoff;
    b0 = json_array_get(json_object_get(p, "bases"), 0);
    if (b0 == NULL)                     /* a base is on its way: keep all */
        return 0;
    ms = u64_of(b0, "ms");
    ms = ms > PITR_TRIM_MARGIN_MS ? ms - PITR_TRIM_MARGIN_MS : 0;
    return ms < cutoff ? ms : cutoff;
}

/* ------------------------------------------------------------------------
 * Bases: hidden backups of the table alone (indexes are rebuilt from the
 * items on a restore)
 * ---------------------------------------------------------------------- */

/* Take a base of t now (the DDL lock held): its log is on, so every
 * change after seq (read before the copy starts) is logged. Appends
 * {"key", "ms", "seq"} to p's bases. */
static int
base_take(struct api_ctx *ctx, struct stable *t, const json_t *desc,
          json_t *p, struct ddb_err *err)
{
    uint64_t seq = stable_log_seq(t), now = tables_now_ms(ctx);
    const json_t *bases = json_object_get(p, "bases");
    const json_t *last = json_array_get(bases, json_array_size(bases) - 1);
    char key[160];
    json_t *meta;
    int rc;

    if (last != NULL && u64_of(last, "ms") >= now)
        now = u64_of(last, "ms") + 1;   /* bases in time order */
    snprintf(key, sizeof(key), "pitr-%s-%014llu",
             tables_str(desc, "TableId") ? tables_str(desc, "TableId") : "",
             (unsigned long long)now);
    meta = json_pack("{s:b, s:s, s:O, s:I}", "_slPitr", 1, "TableName",
                     stable_name(t), "TableId",
                     json_object_get(desc, "TableId"), "CreatedMs",
                     (json_int_t)now);
    rc = storage_backup_create(ctx->srv->st, key, &t, 1, meta, err);
    json_decref(meta);
    if (rc != 0)
        return -1;
    if (!json_is_array(bases))
        json_object_set_new(p, "bases", json_array());
    json_array_append_new(json_object_get(p, "bases"),
                          json_pack("{s:s, s:I, s:I}", "key", key, "ms",
                                    (json_int_t)now, "seq",
                                    (json_int_t)seq));
    return 0;
}

static void
bases_delete(struct api_ctx *ctx, const json_t *bases)
{
    const json_t *b;
    struct ddb_err e;
    size_t i;

    ddb_err_init(&e);
    json_array_foreach(bases, i, b) {
        (void)storage_backup_delete(ctx->srv->st, tables_str(b, "key"), &e);
        ddb_err_clear(&e);
    }
}

/* ------------------------------------------------------------------------
 * Turning PITR on and off
 * ---------------------------------------------------------------------- */

struct pitr_switch {
    json_t *desc;                       /* borrowed: changed in place */
    json_t *pitr;                       /* borrowed: the new member, or
                                           NULL to remove it */
};

/* stable_switch_fn: the description with the log's new state. */
static json_t *
pitr_switch_fn(void *arg, uint64_t seq, uint64_t ms, struct ddb_err *err)
{
    struct pitr_switch *a = arg;

    (void)seq;
    (void)err;
    if (a->pitr != NULL) {
        json_object_set_new(a->pitr, "sinceMs", json_integer((json_int_t)ms));
        json_object_set(a->desc, PRIV_PITR, a->pitr);
    } else {
        json_object_del(a->desc, PRIV_PITR);
    }
    return json_clone(a->desc);
}

/* Does desc have an enabled stream (which keeps the log on)? */
static bool
stream_on(const json_t *desc)
{
    return json_is_true(json_object_get(
        json_object_get(desc, "StreamSpecification"), "StreamEnabled"));
}

/* PITR on with days (the DDL lock held): the log on, then the first base,
 * then the description naming it. A crash between leaves PITR on without
 * a base: the sweep takes it (tables_pitr_sweep). */
static int
pitr_enable(struct api_ctx *ctx, struct stable *t, json_t *desc,
            long long days, struct ddb_err *err)
{
    struct pitr_switch a = { desc, NULL };
    json_t *p = (json_t *)pitr_of(desc);
    json_t *cur;
    int rc;

    if (p != NULL) {                    /* on already: the period only */
        json_object_set_new(p, "days", json_integer(days));
        return stable_set_desc(t, desc, err);
    }
    a.pitr = json_pack("{s:I, s:[]}", "days", (json_int_t)days, "bases");
    rc = stable_log_switch(t, true, 0, pitr_switch_fn, &a, err);
    json_decref(a.pitr);
    if (rc != 0)
        return -1;
    cur = stable_desc(t);
    p = (json_t *)pitr_of(cur);
    rc = p != NULL && base_take(ctx, t, cur, p, err) == 0 &&
                 stable_set_desc(t, cur, err) == 0
             ? 0
             : -1;
    if (rc == 0) {
        json_object_clear(desc);
        json_object_update(desc, cur);
    }
    json_decref(cur);
    return rc;
}

static int
pitr_disable(struct api_ctx *ctx, struct stable *t, json_t *desc,
             struct ddb_err *err)
{
    struct pitr_switch a = { desc, NULL };
    json_t *bases;
    int rc;

    if (pitr_of(desc) == NULL)
        return 0;
    bases = json_incref(json_object_get(pitr_of(desc), "bases"));
    if (stream_on(desc)) {              /* the stream keeps the log on */
        json_object_del(desc, PRIV_PITR);
        rc = stable_set_desc(t, desc, err);
    } else {
        rc = stable_log_switch(t, false, 0, pitr_switch_fn, &a, err);
    }
    if (rc == 0)
        bases_delete(ctx, bases);
    json_decref(bases);
    return rc;
}

/* ------------------------------------------------------------------------
 * The answers
 * ---------------------------------------------------------------------- */

/* ContinuousBackupsDescription of desc at now. Continuous backups are on
 * for every table once ACTIVE (DISABLED while it is CREATING,
 * DDB-TABLE-115); a disabled PITR shows its status alone. */
static json_t *
continuous_desc(const json_t *desc, uint64_t now)
{
    const json_t *p = pitr_of(desc);
    bool creating = json_str_is(json_object_get(desc, "TableStatus"),
                                "CREATING");
    json_t *pd = json_pack("{s:s}", "PointInTimeRecoveryStatus",
                           p != NULL ? "ENABLED" : "DISABLED");
    uint64_t earliest;

    if (p != NULL) {
        json_object_set_new(pd, "RecoveryPeriodInDays",
                            json_integer((json_int_t)u64_of(p, "days")));
        if (window_of(p, now, &earliest)) {
            json_object_set_new(pd, "EarliestRestorableDateTime",
                                tables_epoch(earliest));
            json_object_set_new(pd, "LatestRestorableDateTime",
                                tables_epoch(now));
        }
    }
    return json_pack("{s:s, s:o}", "ContinuousBackupsStatus",
                     creating ? "DISABLED" : "ENABLED",
                     "PointInTimeRecoveryDescription", pd);
}

/* The table of the request's TableName (name or ARN); TableNotFound when
 * there is none. */
static int
open_table(struct api_ctx *ctx, const json_t *req, bool locked,
           char *name, struct stable **t, json_t **desc, struct ddb_err *err)
{
    const char *param = tables_req_name(req, err);
    int o;

    if (param == NULL)
        return -1;
    if (!tables_name_from_param(ctx, param, name, TABLES_NAME_MAX))
        return ddb_err_set(err, DDB_TABLE_NOT_FOUND, "Table not found: %s",
                           param);
    o = tables_open_settled(ctx, name, locked, t, desc, err);
    if (o > 0)
        return ddb_err_set(err, DDB_TABLE_NOT_FOUND, "Table not found: %s",
                           name);
    return o;
}

int
api_describe_continuous_backups(struct api_ctx *ctx, const json_t *req,
                                json_t **resp, struct ddb_err *err)
{
    char name[TABLES_NAME_MAX];
    struct stable *t;
    json_t *desc;

    if (open_table(ctx, req, false, name, &t, &desc, err) != 0)
        return -1;
    *resp = json_pack("{s:o}", "ContinuousBackupsDescription",
                      continuous_desc(desc, tables_now_ms(ctx)));
    json_decref(desc);
    stable_release(t);
    return 0;
}

/*
 * PointInTimeRecoverySpecification: PointInTimeRecoveryEnabled, and
 * RecoveryPeriodInDays (1 to 35, the schema's check) with it. A table
 * still CREATING answers ContinuousBackupsUnavailableException (the
 * API reference's "Backups have not yet been enabled for this table").
 * Enabling again changes the period only.
 */
int
api_update_continuous_backups(struct api_ctx *ctx, const json_t *req,
                              json_t **resp, struct ddb_err *err)
{
    const json_t *spec = json_object_get(req,
                                         "PointInTimeRecoverySpecification");
    bool on = json_is_true(json_object_get(spec,
                                           "PointInTimeRecoveryEnabled"));
    const json_t *dv = json_object_get(spec, "RecoveryPeriodInDays");
    long long days = json_is_integer(dv) ? json_integer_value(dv)
                                         : PITR_DAYS_DEFAULT;
    char name[TABLES_NAME_MAX];
    struct stable *t = NULL;
    json_t *desc = NULL;
    int rc = -1;

    /* Our choice of words: DynamoDB's own message for a period with PITR
     * turned off is not recorded. */
    if (!on && dv != NULL)
        return ddb_err_set(err, DDB_VALIDATION, "One or more parameter "
                           "values were invalid: RecoveryPeriodInDays can "
                           "only be set when PointInTimeRecoveryEnabled is "
                           "true");
    api_ddl_lock();
    if (open_table(ctx, req, true, name, &t, &desc, err) != 0)
        goto out;
    if (json_str_is(json_object_get(desc, "TableStatus"), "CREATING")) {
        ddb_err_set(err, DDB_CONTINUOUS_BACKUPS_UNAVAILABLE, "Backups are "
                    "being enabled for the table: %s. Please retry later",
                    name);
        goto out;
    }
    if (json_str_is(json_object_get(desc, "TableStatus"), "DELETING")) {
        ddb_err_set(err, DDB_TABLE_NOT_FOUND, "Table not found: %s", name);
        goto out;
    }
    rc = on ? pitr_enable(ctx, t, desc, days, err)
            : pitr_disable(ctx, t, desc, err);
    if (rc == 0)
        *resp = json_pack("{s:o}", "ContinuousBackupsDescription",
                          continuous_desc(desc, tables_now_ms(ctx)));
out:
    api_ddl_unlock();
    json_decref(desc);
    if (t != NULL)
        stable_release(t);
    return rc;
}

/* ------------------------------------------------------------------------
 * The state at a time
 * ---------------------------------------------------------------------- */

/* The changes after a base, up to a time: per key (hex of its storage
 * key), the last record's sequence number and image (null: deleted). */
struct replay {
    const struct key_schema *ks;
    uint64_t at_ms;
    json_t *last;                       /* owned: key -> {"seq", "item"} */
};

static void
key_text(const struct item_key *k, char *out)
{
    size_t o = 0;

    hex_encode(k->hash, sizeof(k->hash), out);
    o = 2 * sizeof(k->hash);
    out[o++] = '.';
    hex_encode(k->pk, k->pk_len, out + o);
    o += 2 * k->pk_len;
    out[o++] = '.';
    hex_encode(k->sk, k->sk_len, out + o);
}

#define KEY_TEXT_MAX (2 * (16 + 2 * KEY_BYTES_MAX) + 4)

/* stable_log_fn: keep the record when it is the key's latest up to at_ms. */
static int
replay_rec(void *arg, const struct slog_rec *r, struct ddb_err *err)
{
    struct replay *x = arg;
    const json_t *item = r->new_item != NULL ? r->new_item : r->old;
    const json_t *have;
    struct item_key k;
    char *kt;

    if (r->ms > x->at_ms || item == NULL)
        return 0;
    if (item_key_build(x->ks, item, false, &k, err) != 0)
        return -1;
    kt = xmalloc(KEY_TEXT_MAX);
    key_text(&k, kt);
    have = json_object_get(x->last, kt);
    if (have == NULL || u64_of(have, "seq") < r->seq)
        json_object_set_new(x->last, kt,
                            json_pack("{s:I, s:O?}", "seq",
                                      (json_int_t)r->seq, "item",
                                      (json_t *)r->new_item));
    free(kt);
    return 0;
}

/* Every log of t (one per distinct first ring position: a split child
 * that starts where its parent did holds the parent's records too) from
 * after seq on; its trimmed part must lie at or before seq. */
static int
replay_read(struct stable *t, uint64_t seq, struct replay *x,
            struct ddb_err *err)
{
    struct spart *parts = NULL;
    size_t n = 0, i, j;
    uint64_t trimmed;
    int rc = 0;

    if (stable_part_history(t, &parts, &n, err) != 0)
        return -1;
    for (i = 0; i < n && rc == 0; i++) {
        bool seen = false;

        for (j = 0; j < i; j++)
            seen |= parts[j].start == parts[i].start;
        if (seen)
            continue;
        trimmed = 0;
        rc = stable_log_read(t, parts[i].start, seq, UINT64_MAX, replay_rec,
                             x, &trimmed, err);
        if (rc == 0 && trimmed > seq)
            rc = ddb_err_set(err, DDB_INTERNAL, "point-in-time recovery: "
                             "the change log was trimmed past its base");
    }
    free(parts);
    return rc < 0 ? -1 : 0;
}

struct emit {
    struct replay *x;
    stable_row_fn *fn;
    void *arg;
};

/* stable_row_fn over the base: an item no later change touched. */
static int
emit_base(void *arg, const struct item_key *k, const json_t *item,
          size_t size, struct ddb_err *err)
{
    struct emit *e = arg;
    struct item_key own;
    char *kt;
    bool changed;

    (void)k;
    /* the key as this version places it (the copy's may predate a
     * re-placement) */
    if (item_key_build(e->x->ks, item, false, &own, err) != 0)
        return -1;
    kt = xmalloc(KEY_TEXT_MAX);
    key_text(&own, kt);
    changed = json_object_get(e->x->last, kt) != NULL;
    free(kt);
    return changed ? 0 : e->fn(e->arg, &own, item, size, err);
}

int
tables_pitr_items_at(struct api_ctx *ctx, const char *name, uint64_t at_ms,
                     stable_row_fn *fn, void *arg, struct ddb_err *err)
{
    struct stable *t = storage_table_get(ctx->srv->st, name);
    json_t *desc = NULL;
    const json_t *p, *b, *base = NULL, *v;
    struct key_schema ks;
    struct replay x;
    struct emit e;
    uint64_t earliest, now = tables_now_ms(ctx);
    const char *k;
    size_t i;
    int rc = -1;

    memset(&x, 0, sizeof(x));
    if (t == NULL)
        return ddb_err_set(err, DDB_TABLE_NOT_FOUND, "Table not found: %s",
                           name);
    desc = stable_desc_ref(t);
    p = pitr_of(desc);
    if (p == NULL) {
        ddb_err_set(err, DDB_PITR_UNAVAILABLE, "Point in time recovery is "
                    "not enabled for table '%s'", name);
        goto out;
    }
    if (!window_of(p, now, &earliest) || at_ms < earliest || at_ms > now) {
        ddb_err_set(err, DDB_INVALID_RESTORE_TIME, "Restore time must be "
                    "between EarliestRestorableDateTime and "
                    "LatestRestorableDateTime");
        goto out;
    }
    json_array_foreach(json_object_get(p, "bases"), i, b)
        if (u64_of(b, "ms") <= at_ms)
            base = b;
    if (base == NULL) {
        ddb_err_set(err, DDB_INVALID_RESTORE_TIME, "Restore time must be "
                    "between EarliestRestorableDateTime and "
                    "LatestRestorableDateTime");
        goto out;
    }
    if (key_schema_from_desc(desc, &ks, err) != 0)
        goto out;
    x.ks = &ks;
    x.at_ms = at_ms;
    x.last = json_object();
    if (replay_read(t, u64_of(base, "seq"), &x, err) != 0)
        goto out;
    e.x = &x;
    e.fn = fn;
    e.arg = arg;
    if (storage_backup_scan(ctx->srv->st, tables_str(base, "key"), name,
                            emit_base, &e, err) != 0)
        goto out;
    json_object_foreach(x.last, k, v) {
        const json_t *item = json_object_get(v, "item");
        struct item_key ik;

        if (!json_is_object(item))
            continue;                   /* deleted by then */
        if (item_key_build(&ks, item, false, &ik, err) != 0 ||
            fn(arg, &ik, item, item_size(item), err) < 0)
            goto out;
    }
    rc = 0;
out:
    json_decref(x.last);
    json_decref(desc);
    stable_release(t);
    return rc;
}

/* ------------------------------------------------------------------------
 * The sweep
 * ---------------------------------------------------------------------- */

/* One table's bases kept in step with now (the DDL lock held): a base
 * when there is none (a crash after PITR was turned on) or the newest is
 * a day old; bases no time in the window needs any more dropped. */
static void
sweep_table(struct api_ctx *ctx, const char *name, uint64_t now)
{
    struct stable *t;
    json_t *desc = NULL, *p, *bases, *gone;
    uint64_t floor;
    bool changed = false;
    struct ddb_err e;
    int o;

    ddb_err_init(&e);
    o = tables_open_settled(ctx, name, true, &t, &desc, &e);
    if (o != 0)
        goto done;
    p = json_object_get(desc, PRIV_PITR);
    if (!json_is_object(p))
        goto out;
    bases = json_object_get(p, "bases");
    if (json_array_size(bases) == 0 ||
        u64_of(json_array_get(bases, json_array_size(bases) - 1), "ms") +
                PITR_REBASE_MS <= now) {
        if (base_take(ctx, t, desc, p, &e) != 0)
            goto out;
        bases = json_object_get(p, "bases");
        changed = true;
    }
    floor = now > u64_of(p, "days") * DAY_MS ? now - u64_of(p, "days") *
                                                         DAY_MS
                                             : 0;
    gone = json_array();
    while (json_array_size(bases) > 1 &&
           u64_of(json_array_get(bases, 1), "ms") <= floor) {
        json_array_append(gone, json_array_get(bases, 0));
        json_array_remove(bases, 0);
        changed = true;
    }
    if (changed && stable_set_desc(t, desc, &e) == 0)
        bases_delete(ctx, gone);
    json_decref(gone);
out:
    json_decref(desc);
    stable_release(t);
done:
    ddb_err_clear(&e);
}

/* Is key among the bases of the table it was taken of? */
static bool
base_in_use(struct api_ctx *ctx, const json_t *meta, const char *key)
{
    struct stable *t = storage_table_get(ctx->srv->st,
                                         tables_str(meta, "TableName"));
    json_t *desc;
    const json_t *b;
    bool used = false;
    size_t i;

    if (t == NULL)
        return false;
    desc = stable_desc_ref(t);
    json_array_foreach(json_object_get(pitr_of(desc), "bases"), i, b)
        used |= json_str_is(json_object_get(b, "key"), key);
    json_decref(desc);
    stable_release(t);
    return used;
}

void
tables_pitr_sweep(struct api_ctx *ctx, uint64_t now)
{
    json_t *names, *all, *row;
    struct ddb_err e;
    size_t i;

    ddb_err_init(&e);
    api_ddl_lock();
    names = storage_table_names(ctx->srv->st);
    for (i = 0; i < json_array_size(names); i++) {
        const char *n = json_string_value(json_array_get(names, i));
        size_t len = n != NULL ? strlen(n) : 0;

        if (n == NULL)
            continue;
        /* a restore a crash cut short (restore.c) */
        if (len > strlen(TABLES_RESTORING) &&
            strcmp(n + len - strlen(TABLES_RESTORING), TABLES_RESTORING) ==
                0) {
            (void)storage_table_delete(ctx->srv->st, n, &e);
            ddb_err_clear(&e);
            continue;
        }
        if (!index_is_hidden_name(n))
            sweep_table(ctx, n, now);
    }
    json_decref(names);
    /* bases of tables deleted, or of PITR turned off, that a crash left */
    all = storage_backup_list(ctx->srv->st);
    json_array_foreach(all, i, row) {
        const json_t *meta = json_object_get(row, "meta");

        if (json_is_true(json_object_get(meta, "_slPitr")) &&
            !base_in_use(ctx, meta, tables_str(row, "key"))) {
            (void)storage_backup_delete(ctx->srv->st, tables_str(row, "key"),
                                        &e);
            ddb_err_clear(&e);
        }
    }
    json_decref(all);
    api_ddl_unlock();
}
