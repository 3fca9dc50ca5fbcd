/* SPDX-License-Identifier: MIT */
/* part_log.c - a partition's change log (docs/design.md, "The change
 * log"): the record of each change, written by partition.c inside the
 * transaction of the change; copying it into a split's first child;
 * reading and trimming it (changelog.c). */
#include <stdint.h>
#include <string.h>

#include "storage/partition_int.h"
#include "storage/util.h"

/* ------------------------------------------------------------------------
 * The change log: records written in the transaction of their change
 * ---------------------------------------------------------------------- */

/* Does old -> new_item (either NULL when absent) change the item? A write
 * that leaves it as it was logs nothing (DynamoDB Streams: no record for
 * an unchanged item; Alternator test_streams.py do_updates_1). */
bool
part_log_is_change(const json_t *old, const json_t *new_item)
{
    if (old == NULL || new_item == NULL)
        return old != new_item;
    return !json_same(old, new_item);
}

/* Bind image (NULL: SQL NULL) to column i of st, copied (p->buf is
 * reused for the next image). */
static int
bind_image(struct partition *p, sqlite3_stmt *st, int i, const json_t *img)
{
    long len;

    if (img == NULL)
        return sqlite3_bind_null(st, i);
    len = part_item_encode(p, img);
    if (len < 0)
        return SQLITE_ERROR;
    return sqlite3_bind_text(st, i, p->buf, (int)len, SQLITE_TRANSIENT);
}

/* In p's open transaction: the record of one change. */
int
part_log_put_locked(struct partition *p, uint64_t seq, uint64_t ms,
               enum storage_origin origin, const json_t *old,
               const json_t *new_item, struct ddb_err *err)
{
    sqlite3_stmt *st = p->st[ST_LOG_PUT];

    return step_done(p, st,
                     sqlite3_bind_int64(st, 1, (sqlite3_int64)seq) ||
                         sqlite3_bind_int64(st, 2, (sqlite3_int64)ms) ||
                         sqlite3_bind_int(st, 3, (int)origin) ||
                         bind_image(p, st, 4, old) ||
                         bind_image(p, st, 5, new_item),
                     "log", err);
}

/* The last trimmed sequence number of p's log (p locked), read once. */
static int
trimmed_locked(struct partition *p, uint64_t *out, struct ddb_err *err)
{
    sqlite3_stmt *st = p->st[ST_META_GET];
    int step, rc = 0;

    if (!p->trimmed_valid) {
        if (sqlite3_bind_text(st, 1, META_TRIMMED, -1, SQLITE_STATIC) !=
            SQLITE_OK)
            rc = sql_err(p, err, "log meta");
        else if ((step = sqlite3_step(st)) == SQLITE_ROW)
            p->trimmed = (uint64_t)sqlite3_column_int64(st, 0);
        else if (step == SQLITE_DONE)
            p->trimmed = 0;
        else
            rc = sql_err(p, err, "log meta");
        stmt_done(st);
        if (rc != 0)
            return -1;
        p->trimmed_valid = true;
    }
    *out = p->trimmed;
    return 0;
}

/* In p's open transaction: the trimmed mark becomes v (in memory once
 * committed: the caller sets p->trimmed). */
static int
trimmed_put_locked(struct partition *p, uint64_t v, struct ddb_err *err)
{
    sqlite3_stmt *st = p->st[ST_META_PUT];

    return step_done(p, st,
                     sqlite3_bind_text(st, 1, META_TRIMMED, -1,
                                       SQLITE_STATIC) ||
                         sqlite3_bind_int64(st, 2, (sqlite3_int64)v),
                     "log meta", err);
}

/* Copy parent's whole log and trimmed mark into a's open transaction (the
 * first child hosts the parent's records: design.md). */
int
part_log_copy_locked(struct partition *parent, struct partition *a,
                     struct ddb_err *err)
{
    sqlite3_stmt *src = parent->st[ST_LOG_READ];
    sqlite3_stmt *dst = a->st[ST_LOG_PUT];
    uint64_t trimmed;
    int step, rc = -1;

    if (trimmed_locked(parent, &trimmed, err) != 0)
        return -1;
    if (sqlite3_bind_int64(src, 1, 0) != SQLITE_OK ||
        sqlite3_bind_int64(src, 2, INT64_MAX) != SQLITE_OK) {
        sql_err(parent, err, "split log");
        goto out;
    }
    while ((step = sqlite3_step(src)) == SQLITE_ROW) {
        int bound = SQLITE_OK;

        for (int c = 0; c < 3 && bound == SQLITE_OK; c++)
            bound = sqlite3_bind_int64(dst, c + 1,
                                       sqlite3_column_int64(src, c));
        for (int c = 3; c < 5 && bound == SQLITE_OK; c++)
            bound = sqlite3_column_type(src, c) == SQLITE_NULL
                        ? sqlite3_bind_null(dst, c + 1)
                        : sqlite3_bind_text(
                              dst, c + 1,
                              (const char *)sqlite3_column_text(src, c),
                              sqlite3_column_bytes(src, c), SQLITE_STATIC);
        if (step_done(a, dst, bound, "split log", err) != 0)
            goto out;
    }
    if (step != SQLITE_DONE) {
        sql_err(parent, err, "split log");
        goto out;
    }
    if (trimmed > 0 && trimmed_put_locked(a, trimmed, err) != 0)
        goto out;
    a->trimmed = trimmed;
    a->trimmed_valid = true;
    rc = 0;
out:
    stmt_done(src);
    return rc;
}

/* ------------------------------------------------------------------------
 * Reading and trimming the change log (changelog.c)
 * ---------------------------------------------------------------------- */

int
partition_log_max(struct partition *p, uint64_t *max, struct ddb_err *err)
{
    sqlite3_stmt *st;
    int rc = 0;

    if (!lock_live(p))
        return PART_RETIRED;
    st = p->st[ST_LOG_MAX];
    if (sqlite3_step(st) == SQLITE_ROW)
        *max = (uint64_t)sqlite3_column_int64(st, 0);
    else
        rc = sql_err(p, err, "log max");
    stmt_done(st);
    pthread_mutex_unlock(&p->mu);
    return rc;
}

/* An image column: a new reference, or NULL for SQL NULL (*bad on a
 * corrupt one, err set). */
static json_t *
image_col(sqlite3_stmt *st, int col, bool *bad, struct ddb_err *err)
{
    json_t *j;

    if (sqlite3_column_type(st, col) == SQLITE_NULL)
        return NULL;
    j = part_item_parse(st, col, err);
    if (j == NULL)
        *bad = true;
    return j;
}

int
partition_log_read(struct partition *p, uint64_t after, uint64_t upto,
                   stable_log_fn *fn, void *arg, uint64_t *trimmed,
                   struct ddb_err *err)
{
    sqlite3_stmt *st;
    int rc = lock_item(p, err), step = SQLITE_DONE;

    /* a fenced partition holds half a transaction: its records too */
    if (rc != 0)
        return rc;
    if (trimmed_locked(p, trimmed, err) != 0) {
        pthread_mutex_unlock(&p->mu);
        return -1;
    }
    if (upto > INT64_MAX)
        upto = INT64_MAX;
    st = p->st[ST_LOG_READ];
    if (after >= upto)
        goto out;
    if (sqlite3_bind_int64(st, 1, (sqlite3_int64)after) != SQLITE_OK ||
        sqlite3_bind_int64(st, 2, (sqlite3_int64)upto) != SQLITE_OK) {
        rc = sql_err(p, err, "log read");
        goto out;
    }
    while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW) {
        struct slog_rec r;
        json_t *o, *n;
        bool bad = false;

        r.seq = (uint64_t)sqlite3_column_int64(st, 0);
        r.ms = (uint64_t)sqlite3_column_int64(st, 1);
        r.origin = sqlite3_column_int(st, 2) == STORAGE_ORIGIN_SERVICE
                       ? STORAGE_ORIGIN_SERVICE
                       : STORAGE_ORIGIN_REQUEST;
        o = image_col(st, 3, &bad, err);
        n = image_col(st, 4, &bad, err);
        r.old = o;
        r.new_item = n;
        rc = bad ? -1 : fn(arg, &r, err);
        json_decref(o);
        json_decref(n);
    }
    if (rc == 0 && step != SQLITE_DONE)
        rc = sql_err(p, err, "log read");
    if (rc > 0)
        rc = 0;
out:
    stmt_done(st);
    pthread_mutex_unlock(&p->mu);
    return rc;
}

/*
 * Drop the records older than cutoff_ms. Records are walked in sequence
 * order and the walk stops at the first young one, so what goes is always
 * a prefix of the log (a clock that stepped back cannot leave a hole) and
 * the trimmed mark says exactly which numbers are gone.
 */
int
partition_log_trim(struct partition *p, uint64_t cutoff_ms,
                   uint64_t *dropped, struct ddb_err *err)
{
    sqlite3_stmt *st;
    uint64_t last = 0, n = 0, mark;
    int rc, step;

    *dropped = 0;
    rc = lock_item(p, err);
    if (rc != 0)
        return rc;
    rc = -1;
    if (trimmed_locked(p, &mark, err) != 0)
        goto out;
    st = p->st[ST_LOG_AGES];
    while ((step = sqlite3_step(st)) == SQLITE_ROW &&
           (uint64_t)sqlite3_column_int64(st, 1) < cutoff_ms) {
        last = (uint64_t)sqlite3_column_int64(st, 0);
        n++;
    }
    stmt_done(st);
    if (step != SQLITE_ROW && step != SQLITE_DONE) {
        sql_err(p, err, "log trim");
        goto out;
    }
    if (n == 0) {
        rc = 0;
        goto out;
    }
    st = p->st[ST_LOG_DROP];
    if (run_simple(p, ST_BEGIN, "begin", err) != 0 ||
        step_done(p, st, sqlite3_bind_int64(st, 1, (sqlite3_int64)last),
                  "log trim", err) != 0 ||
        trimmed_put_locked(p, last > mark ? last : mark, err) != 0 ||
        run_simple(p, ST_COMMIT, "commit", err) != 0)
        goto out;
    if (last > mark)
        p->trimmed = last;
    *dropped = n;
    rc = 0;
out:
    if (rc != 0)
        rollback(p);
    pthread_mutex_unlock(&p->mu);
    return rc;
}
