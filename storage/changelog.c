/* SPDX-License-Identifier: MIT */
/* changelog.c - the change log's bookkeeping (docs/design.md, "The change
 * log"): per table, the switch, the sequence counter and the last birth
 * time (catalog table logs); per partition, its lineage (part_history);
 * switching logging on and off with a description, reading and trimming a
 * partition's log. The records themselves are written by partition.c in
 * the transaction of their change. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "storage/storage_int.h"
#include "storage/util.h"

static const char log_schema[] =
    "CREATE TABLE IF NOT EXISTS logs ("
    " table_id TEXT PRIMARY KEY, enabled INTEGER NOT NULL,"
    " seq INTEGER NOT NULL, stamp INTEGER NOT NULL);"
    "CREATE TABLE IF NOT EXISTS part_history ("
    " table_id TEXT NOT NULL, part_id TEXT NOT NULL,"
    " parent_id TEXT NOT NULL, start INTEGER NOT NULL,"
    " born_seq INTEGER NOT NULL, born_ms INTEGER NOT NULL,"
    " end_seq INTEGER NOT NULL, end_ms INTEGER NOT NULL,"
    " PRIMARY KEY (table_id, part_id));"
    "DELETE FROM logs WHERE table_id NOT IN (SELECT id FROM tables);"
    "DELETE FROM part_history WHERE table_id NOT IN (SELECT id FROM tables);";

int
changelog_schema(struct storage *s, struct ddb_err *err)
{
    return catalog_exec(s, "catalog", log_schema, err);
}

/* ------------------------------------------------------------------------
 * The clock, counters and birth times
 * ---------------------------------------------------------------------- */

void
storage_set_clock(struct storage *s, storage_clock_fn *fn, void *arg)
{
    s->clock = fn;
    s->clock_arg = arg;
}

uint64_t
changelog_now(const struct storage *s)
{
    return s->clock != NULL ? s->clock(s->clock_arg) : wall_ms();
}

bool
stable_log_on(struct stable *t)
{
    return atomic_load(&t->log_on);
}

uint64_t
stable_log_seq(struct stable *t)
{
    return atomic_load(&t->seq);
}

const struct plog *
changelog_plog(struct stable *t, enum storage_origin origin, struct plog *l)
{
    l->on = &t->log_on;
    l->seq = &t->seq;
    l->ms = changelog_now(t->s);
    l->origin = origin;
    return l;
}

void
changelog_seen(struct stable *t, uint64_t seq)
{
    uint64_t cur = atomic_load(&t->seq);

    while (cur < seq && !atomic_compare_exchange_weak(&t->seq, &cur, seq))
        ;
}

/* A birth time for t (split_mu held): the clock, but after every one t
 * gave before and at least min_ms, so births along a lineage (and stream
 * labels) are strictly increasing even when the clock stands still. */
static uint64_t
next_stamp(struct stable *t, uint64_t min_ms)
{
    uint64_t v = changelog_now(t->s);

    if (v <= t->stamp)
        v = t->stamp + 1;
    if (v < min_ms)
        v = min_ms;
    t->stamp = v;
    return v;
}

/* ------------------------------------------------------------------------
 * Catalog rows (cat_mu held: inside the caller's catalog transaction)
 * ---------------------------------------------------------------------- */

/* Run sql with integer parameters ints[0..n) bound to ?2.. and text id to
 * ?1 (and text[0..ntext) after the integers). */
static int
cat_exec_ints(struct storage *s, const char *sql, const char *id,
              const char *const *texts, size_t ntext, const uint64_t *ints,
              size_t nint, struct ddb_err *err)
{
    sqlite3_stmt *st = NULL;
    int rc = -1, i = 1;

    if (sqlite3_prepare_v2(s->cat, sql, -1, &st, NULL) != SQLITE_OK ||
        sqlite3_bind_text(st, i++, id, -1, SQLITE_STATIC) != SQLITE_OK)
        goto out;
    for (size_t j = 0; j < nint; j++)
        if (sqlite3_bind_int64(st, i++, (sqlite3_int64)ints[j]) != SQLITE_OK)
            goto out;
    for (size_t j = 0; j < ntext; j++)
        if (sqlite3_bind_text(st, i++, texts[j], -1, SQLITE_STATIC) !=
            SQLITE_OK)
            goto out;
    if (sqlite3_step(st) == SQLITE_DONE)
        rc = 0;
out:
    if (rc != 0)
        catalog_err(s, "catalog", err);
    sqlite3_finalize(st);
    return rc;
}

/* A partition's birth: its history row (kept if one exists). */
static int
hist_born(struct storage *s, const char *id, const char *part,
          const char *parent, uint64_t start, uint64_t seq, uint64_t ms,
          struct ddb_err *err)
{
    const char *texts[2] = { part, parent };
    uint64_t ints[3] = { (uint64_t)partmap_to_sql(start), seq, ms };

    return cat_exec_ints(s, "INSERT OR IGNORE INTO part_history (table_id, "
                         "start, born_seq, born_ms, part_id, parent_id, "
                         "end_seq, end_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6, "
                         "0, 0)", id, texts, 2, ints, 3, err);
}

static int
logs_put(struct storage *s, const char *id, bool on, uint64_t seq,
         uint64_t ms, struct ddb_err *err)
{
    uint64_t ints[3] = { on ? 1u : 0u, seq, ms };

    return cat_exec_ints(s, "INSERT OR REPLACE INTO logs (table_id, enabled, "
                         "seq, stamp) VALUES (?1, ?2, ?3, ?4)", id, NULL, 0,
                         ints, 3, err);
}

int
changelog_created(struct storage *s, const char *id,
                  const struct playout *l, bool log_on, uint64_t seq,
                  uint64_t ms, struct ddb_err *err)
{
    for (unsigned i = 0; i < l->map.n; i++)
        if (hist_born(s, id, l->files[i], "", partmap_start(&l->map, i), 0,
                      ms, err) != 0)
            return -1;
    return logs_put(s, id, log_on, log_on ? seq : 0, ms, err);
}

int
changelog_dropped(struct storage *s, const char *id, struct ddb_err *err)
{
    if (catalog_run(s, err, "DELETE FROM logs WHERE table_id = ?1", id,
                    NULL) != 0)
        return -1;
    return catalog_run(s, err, "DELETE FROM part_history WHERE table_id = ?1",
                       id, NULL);
}

/* ------------------------------------------------------------------------
 * Open: resume the counter above every number stored
 * ---------------------------------------------------------------------- */

int
changelog_load(struct stable *t, struct ddb_err *err)
{
    struct storage *s = t->s;
    const struct playout *l = playout_of(t);
    sqlite3_stmt *st = NULL;
    uint64_t seq = 0, stamp = 0, v;
    bool on = false, found = false;
    int rc = -1, step;

    if (sqlite3_prepare_v2(s->cat, "SELECT enabled, seq, stamp FROM logs "
                           "WHERE table_id = ?1", -1, &st, NULL) !=
            SQLITE_OK ||
        sqlite3_bind_text(st, 1, t->id, -1, SQLITE_STATIC) != SQLITE_OK)
        goto sqlfail;
    step = sqlite3_step(st);
    if (step == SQLITE_ROW) {
        found = true;
        on = sqlite3_column_int(st, 0) != 0;
        seq = (uint64_t)sqlite3_column_int64(st, 1);
        stamp = (uint64_t)sqlite3_column_int64(st, 2);
    } else if (step != SQLITE_DONE) {
        goto sqlfail;
    }
    sqlite3_finalize(st);
    st = NULL;
    /* A catalog from before the change log: rows for what is there now. */
    for (unsigned i = 0; i < l->map.n; i++)
        if (hist_born(s, t->id, l->files[i], "", partmap_start(&l->map, i),
                      0, 0, err) != 0)
            goto out;
    if (!found && logs_put(s, t->id, false, 0, 0, err) != 0)
        goto out;
    if (sqlite3_prepare_v2(s->cat, "SELECT coalesce(max(max(born_seq, "
                           "end_seq)), 0), coalesce(max(max(born_ms, "
                           "end_ms)), 0) FROM part_history WHERE "
                           "table_id = ?1", -1, &st, NULL) != SQLITE_OK ||
        sqlite3_bind_text(st, 1, t->id, -1, SQLITE_STATIC) != SQLITE_OK ||
        sqlite3_step(st) != SQLITE_ROW)
        goto sqlfail;
    if ((v = (uint64_t)sqlite3_column_int64(st, 0)) > seq)
        seq = v;
    if ((v = (uint64_t)sqlite3_column_int64(st, 1)) > stamp)
        stamp = v;
    for (unsigned i = 0; i < l->map.n; i++) {
        if (partition_log_max(l->parts[i], &v, err) != 0)
            goto out;
        if (v > seq)
            seq = v;
    }
    atomic_store(&t->seq, seq);
    atomic_store(&t->log_on, on);
    t->stamp = stamp;
    rc = 0;
    goto out;
sqlfail:
    catalog_err(s, "catalog", err);
out:
    sqlite3_finalize(st);
    return rc;
}

/* ------------------------------------------------------------------------
 * Splits and switches
 * ---------------------------------------------------------------------- */

int
changelog_split(struct stable *t, const struct playout *old,
                const struct playout *nl, unsigned i, struct ddb_err *err)
{
    struct storage *s = t->s;
    uint64_t end = atomic_fetch_add(&t->seq, 2) + 1, born = end + 1;
    uint64_t ms = next_stamp(t, 0), ints[2] = { end, ms };
    const char *parent = old->files[i];
    int rc;

    if (catalog_begin(s, err) != 0)
        return -1;
    rc = catalog_table_exists(s, t->id, err) &&
                 catalog_put_partitions(s, t->id, nl, err) == 0 &&
                 cat_exec_ints(s, "UPDATE part_history SET end_seq = ?2, "
                               "end_ms = ?3 WHERE table_id = ?1 AND "
                               "part_id = ?4", t->id, &parent, 1, ints, 2,
                               err) == 0 &&
                 hist_born(s, t->id, nl->files[i], parent,
                           partmap_start(&nl->map, i), born, ms, err) == 0 &&
                 hist_born(s, t->id, nl->files[i + 1], parent,
                           partmap_start(&nl->map, i + 1), born, ms,
                           err) == 0 &&
                 logs_put(s, t->id, atomic_load(&t->log_on), born, ms,
                          err) == 0
             ? 0
             : -1;
    return catalog_finish(s, rc, err);
}

int
changelog_rehashed(struct storage *s, const char *id,
                   const struct playout *old, const struct playout *nl,
                   struct ddb_err *err)
{
    for (unsigned i = 0; i < old->map.n && i < nl->map.n; i++) {
        const char *texts[2] = { nl->files[i], old->files[i] };

        if (cat_exec_ints(s, "UPDATE part_history SET part_id = ?2 WHERE "
                          "table_id = ?1 AND part_id = ?3", id, texts, 2,
                          NULL, 0, err) != 0)
            return -1;
    }
    return 0;
}

static int
part_addr_cmp(const void *a, const void *b)
{
    uintptr_t x = (uintptr_t)*(struct partition *const *)a;
    uintptr_t y = (uintptr_t)*(struct partition *const *)b;

    return x < y ? -1 : x > y;
}

/*
 * Every partition of the current layout locked, in address order (the
 * global order stable_txn uses), with split_mu held so the layout stays:
 * no write is in flight while the switch is taken.
 */
int
stable_log_switch(struct stable *t, bool on, uint64_t min_ms,
                  stable_switch_fn *fn, void *arg, struct ddb_err *err)
{
    struct storage *s = t->s;
    const struct playout *l;
    struct partition **ps;
    json_t *desc = NULL;
    uint64_t seq, ms;
    unsigned n;
    int rc = -1;

    pthread_mutex_lock(&t->split_mu);
    l = playout_of(t);
    n = l->map.n;
    ps = xmalloc(n * sizeof(*ps));
    memcpy(ps, l->parts, n * sizeof(*ps));
    qsort(ps, n, sizeof(*ps), part_addr_cmp);
    for (unsigned i = 0; i < n; i++)
        partition_lock(ps[i]);
    seq = atomic_fetch_add(&t->seq, 1) + 1;
    ms = next_stamp(t, min_ms);
    desc = fn(arg, seq, ms, err);
    if (desc == NULL)
        goto out;
    if (catalog_begin(s, err) != 0)
        goto out;
    rc = catalog_table_exists(s, t->id, err) &&
                 catalog_put_desc(s, t->id, desc, err) == 0 &&
                 logs_put(s, t->id, on, seq, ms, err) == 0
             ? 0
             : -1;
    rc = catalog_finish(s, rc, err);
    if (rc == 0) {
        catalog_install_desc(t, desc);
        desc = NULL;
        atomic_store(&t->log_on, on);
    } else {
        space_note(s, err);
    }
out:
    for (unsigned i = n; i > 0; i--)
        partition_unlock(ps[i - 1]);
    pthread_mutex_unlock(&t->split_mu);
    json_decref(desc);
    free(ps);
    return rc;
}

/* ------------------------------------------------------------------------
 * History, reading, trimming
 * ---------------------------------------------------------------------- */

int
stable_part_history(struct stable *t, struct spart **out, size_t *n,
                    struct ddb_err *err)
{
    struct storage *s = t->s;
    sqlite3_stmt *st = NULL;
    struct spart *a = NULL;
    size_t cnt = 0, cap = 0;
    int rc = -1, step;

    *out = NULL;
    *n = 0;
    pthread_mutex_lock(&s->cat_mu);
    if (sqlite3_prepare_v2(s->cat, "SELECT part_id, parent_id, start, "
                           "born_seq, born_ms, end_seq, end_ms FROM "
                           "part_history WHERE table_id = ?1 ORDER BY "
                           "born_seq, born_ms, start", -1, &st, NULL) !=
            SQLITE_OK ||
        sqlite3_bind_text(st, 1, t->id, -1, SQLITE_STATIC) != SQLITE_OK) {
        catalog_err(s, "catalog", err);
        goto out;
    }
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        const char *id = (const char *)sqlite3_column_text(st, 0);
        const char *parent = (const char *)sqlite3_column_text(st, 1);
        struct spart *p;

        if (cnt == cap) {
            cap = cap ? cap * 2 : 8;
            a = xrealloc(a, cap * sizeof(*a));
        }
        p = &a[cnt++];
        snprintf(p->id, sizeof(p->id), "%s", id ? id : "");
        snprintf(p->parent, sizeof(p->parent), "%s", parent ? parent : "");
        p->start = partmap_from_sql(sqlite3_column_int64(st, 2));
        p->born_seq = (uint64_t)sqlite3_column_int64(st, 3);
        p->born_ms = (uint64_t)sqlite3_column_int64(st, 4);
        p->end_seq = (uint64_t)sqlite3_column_int64(st, 5);
        p->end_ms = (uint64_t)sqlite3_column_int64(st, 6);
    }
    if (step != SQLITE_DONE) {
        catalog_err(s, "catalog", err);
        goto out;
    }
    *out = a;
    *n = cnt;
    a = NULL;
    rc = 0;
out:
    sqlite3_finalize(st);
    pthread_mutex_unlock(&s->cat_mu);
    free(a);
    return rc;
}

/* The live partition of l whose range starts exactly at start, or NULL. */
static struct partition *
log_host(const struct playout *l, uint64_t start)
{
    unsigned i = partmap_find(&l->map, start);

    return partmap_start(&l->map, i) == start ? l->parts[i] : NULL;
}

int
stable_log_read(struct stable *t, uint64_t start, uint64_t after,
                uint64_t upto, stable_log_fn *fn, void *arg,
                uint64_t *trimmed, struct ddb_err *err)
{
    struct partition *p;
    int rc;

    *trimmed = 0;
    do {
        p = log_host(playout_of(t), start);
        if (p == NULL)
            return ddb_err_set(err, DDB_INTERNAL,
                               "storage: no log starts at %016llx",
                               (unsigned long long)start);
        rc = partition_log_read(p, after, upto, fn, arg, trimmed, err);
    } while (rc == PART_RETIRED);
    return rc;
}

uint64_t
stable_log_tip(struct stable *t, uint64_t start)
{
    struct partition *p;
    uint64_t v;

    for (;;) {
        p = log_host(playout_of(t), start);
        if (p == NULL)
            return atomic_load(&t->seq);
        partition_lock(p);
        if (!partition_retired_locked(p))
            break;
        partition_unlock(p);
    }
    v = atomic_load(&t->seq);
    partition_unlock(p);
    return v;
}

int
stable_log_trim(struct stable *t, uint64_t cutoff_ms, struct ddb_err *err)
{
    const struct playout *l;
    uint64_t dropped, ints[1] = { cutoff_ms };
    int rc;

    for (unsigned i = 0;; i++) {
        l = playout_of(t);
        if (i >= l->map.n)
            break;
        rc = partition_log_trim(l->parts[i], cutoff_ms, &dropped, err);
        if (rc == PART_RETIRED) {
            i--;                        /* same index, new layout */
            continue;
        }
        if (rc != 0)
            return -1;
    }
    pthread_mutex_lock(&t->s->cat_mu);
    rc = cat_exec_ints(t->s, "DELETE FROM part_history WHERE table_id = ?1 "
                       "AND end_seq != 0 AND end_ms < ?2", t->id, NULL, 0,
                       ints, 1, err);
    pthread_mutex_unlock(&t->s->cat_mu);
    return rc;
}
