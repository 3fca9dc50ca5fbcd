/* SPDX-License-Identifier: MIT */
/* txn.c - multi-item transactions across partitions and tables: lock every
 * partition involved in one global order, read and decide, then make the
 * after-images durable in a journal in catalog.db before applying them to
 * each partition; storage_open() replays what a crash left in the journal. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "storage/storage_int.h"
#include "storage/util.h"

static const char journal_schema[] =
    "CREATE TABLE IF NOT EXISTS txn_journal ("
    " id INTEGER PRIMARY KEY, body TEXT NOT NULL)";

/* ------------------------------------------------------------------------
 * Partition sets: resolve, sort by address (the global lock order), lock.
 * ---------------------------------------------------------------------- */

struct pset {
    struct partition **p;               /* owned array; distinct, sorted */
    size_t n;
    struct partition **of;              /* owned: partition of each key */
};

static int
ptr_cmp(const void *a, const void *b)
{
    uintptr_t x = (uintptr_t)*(struct partition *const *)a;
    uintptr_t y = (uintptr_t)*(struct partition *const *)b;

    return x < y ? -1 : x > y;
}

static void
pset_unlock(struct pset *ps)
{
    for (size_t i = ps->n; i > 0; i--)
        partition_unlock(ps->p[i - 1]);
}

/*
 * Resolve the partition of each (tables[i], keys[i]) and lock them all in
 * address order, so two transactions never wait on each other in a cycle.
 * A split may retire a partition between the lookup and the lock: then
 * unlock everything and look again. A split holds its parent locked from
 * the copy to the retirement, so once every partition is locked and none
 * is retired, the set is current and stays so until we unlock.
 */
static void
pset_lock(struct pset *ps, struct stable *const *tables,
          const struct item_key *const *keys, size_t n)
{
    ps->p = xcalloc(n ? n : 1, sizeof(*ps->p));
    ps->of = xcalloc(n ? n : 1, sizeof(*ps->of));
    for (;;) {
        bool stale = false;
        size_t m = 0;

        for (size_t i = 0; i < n; i++) {
            ps->of[i] = stable_partition(tables[i], keys[i]->hash);
            ps->p[i] = ps->of[i];
        }
        qsort(ps->p, n, sizeof(*ps->p), ptr_cmp);
        for (size_t i = 0; i < n; i++)
            if (m == 0 || ps->p[m - 1] != ps->p[i])
                ps->p[m++] = ps->p[i];
        ps->n = m;
        for (size_t i = 0; i < m; i++)
            partition_lock(ps->p[i]);
        for (size_t i = 0; i < m && !stale; i++)
            stale = partition_retired_locked(ps->p[i]);
        if (!stale)
            return;
        pset_unlock(ps);
    }
}

static void
pset_free(struct pset *ps)
{
    free(ps->p);
    free(ps->of);
    ps->p = ps->of = NULL;
    ps->n = 0;
}

/* ------------------------------------------------------------------------
 * Journal: one row per multi-partition transaction, a JSON list of
 * {"t": table id, "h"/"pk"/"sk": hex, "i": item or null, "z": size}, with
 * the change's log record when its table logs: "q" its sequence number,
 * "ms", "o" the origin, "old" the item before (or null).
 * ---------------------------------------------------------------------- */

static json_t *
hex_of(const uint8_t *b, size_t len)
{
    char *s = xmalloc(2 * len + 1);
    json_t *j;

    hex_encode(b, len, s);
    j = json_string(s);
    free(s);
    return j;
}

static int
hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

/* Decode hex string j into out (max bytes); returns the length or -1. */
static long
unhex(const json_t *j, uint8_t *out, size_t max)
{
    const char *s = json_string_value(j);
    size_t len;

    if (s == NULL || (len = strlen(s)) % 2 != 0 || len / 2 > max)
        return -1;
    for (size_t i = 0; i < len / 2; i++) {
        int hi = hexval(s[2 * i]), lo = hexval(s[2 * i + 1]);

        if (hi < 0 || lo < 0)
            return -1;
        out[i] = (uint8_t)(hi << 4 | lo);
    }
    return (long)(len / 2);
}

/*
 * Run one journal statement under cat_mu: sql with ?1 bound to body, or to
 * id when body is NULL. *rowid (if not NULL) gets the inserted row's id.
 */
static int
journal_stmt(struct storage *s, const char *sql, const char *body,
             sqlite3_int64 id, sqlite3_int64 *rowid, struct ddb_err *err)
{
    sqlite3_stmt *st = NULL;
    int rc = -1;

    pthread_mutex_lock(&s->cat_mu);
    if (sqlite3_prepare_v2(s->cat, sql, -1, &st, NULL) != SQLITE_OK ||
        (body != NULL ? sqlite3_bind_text(st, 1, body, -1, SQLITE_STATIC)
                      : sqlite3_bind_int64(st, 1, id)) != SQLITE_OK ||
        sqlite3_step(st) != SQLITE_DONE) {
        catalog_err(s, "journal", err);
        goto out;
    }
    if (rowid != NULL)
        *rowid = sqlite3_last_insert_rowid(s->cat);
    rc = 0;
out:
    sqlite3_finalize(st);
    pthread_mutex_unlock(&s->cat_mu);
    return rc;
}

/* Make body durable in the journal (catalog.db is synchronous=FULL).
 * *id gets the row id. */
static int
journal_put(struct storage *s, const char *body, sqlite3_int64 *id,
            struct ddb_err *err)
{
    return journal_stmt(s, "INSERT INTO txn_journal (body) VALUES (?1)",
                        body, 0, id, err);
}

static int
journal_drop(struct storage *s, sqlite3_int64 id, struct ddb_err *err)
{
    return journal_stmt(s, "DELETE FROM txn_journal WHERE id = ?1", NULL,
                        id, NULL, err);
}

/* ------------------------------------------------------------------------
 * Writes grouped by partition
 * ---------------------------------------------------------------------- */

struct twrite {
    struct stable *t;                   /* borrowed */
    struct partition *p;
    const struct item_key *k;           /* borrowed (the op's) */
    json_t *item;                       /* owned; NULL: delete */
    size_t size;
    uint64_t seq;                       /* its log record; 0: none */
    uint64_t ms;
    enum storage_origin origin;
    json_t *old;                        /* owned: the item before, when
                                           logged */
};

static int
write_cmp(const void *a, const void *b)
{
    const struct twrite *x = a, *y = b;
    uintptr_t px = (uintptr_t)x->p, py = (uintptr_t)y->p;

    return px < py ? -1 : px > py;
}

/* Apply w[0..n) (sorted by partition), one SQLite transaction per
 * partition. Every partition is locked by the caller. */
static int
apply_writes(struct twrite *w, size_t n, struct ddb_err *err)
{
    struct part_write *pw = xcalloc(n ? n : 1, sizeof(*pw));
    int rc = 0;

    for (size_t i = 0; i < n && rc == 0;) {
        size_t j = i, m = 0;

        while (j < n && w[j].p == w[i].p) {
            pw[m].k = w[j].k;
            pw[m].item = w[j].item;
            pw[m].size = w[j].size;
            pw[m].seq = w[j].seq;
            pw[m].ms = w[j].ms;
            pw[m].origin = w[j].origin;
            pw[m].old = w[j].old;
            m++;
            j++;
        }
        rc = partition_apply_locked(w[i].p, pw, m, err);
        i = j;
    }
    free(pw);
    return rc;
}

static char *
journal_body(const struct twrite *w, size_t n)
{
    json_t *a = json_array();
    char *body;

    for (size_t i = 0; i < n; i++) {
        json_t *e = json_pack("{s:s, s:o, s:o, s:o, s:O, s:I}", "t",
                              w[i].t->id, "h",
                              hex_of(w[i].k->hash, sizeof(w[i].k->hash)),
                              "pk", hex_of(w[i].k->pk, w[i].k->pk_len),
                              "sk", hex_of(w[i].k->sk, w[i].k->sk_len), "i",
                              w[i].item ? w[i].item : json_null(), "z",
                              (json_int_t)w[i].size);

        if (w[i].seq != 0)
            json_object_update_new(
                e, json_pack("{s:I, s:I, s:i, s:O}", "q",
                             (json_int_t)w[i].seq, "ms", (json_int_t)w[i].ms,
                             "o", (int)w[i].origin, "old",
                             w[i].old ? w[i].old : json_null()));
        json_array_append_new(a, e);
    }
    body = json_text(a, JSON_COMPACT);
    json_decref(a);
    return body;
}

/* ------------------------------------------------------------------------
 * stable_txn / stable_txn_get
 * ---------------------------------------------------------------------- */

/* Copy src (type, message, extra) into dst. */
static void
err_copy(struct ddb_err *dst, const struct ddb_err *src)
{
    if (dst == NULL)
        return;
    ddb_err_set(dst, src->type, "%s", src->msg);
    if (src->extra != NULL) {
        json_decref(dst->extra);
        dst->extra = json_clone(src->extra);
    }
}

int
stable_txn(struct stxn_op *ops, size_t n, struct ddb_err *err)
{
    struct stable **tables = xcalloc(n ? n : 1, sizeof(*tables));
    const struct item_key **keys = xcalloc(n ? n : 1, sizeof(*keys));
    struct twrite *w = xcalloc(n ? n : 1, sizeof(*w));
    struct pset ps = { 0 };
    size_t nw = 0, nparts = 0, first_fail = n;
    sqlite3_int64 jid = 0;
    bool journaled = false;
    struct storage *s = NULL;           /* set when some op writes */
    char *body = NULL;
    int rc = -1;

    for (size_t i = 0; i < n; i++) {
        tables[i] = ops[i].t;
        keys[i] = &ops[i].k;
        ops[i].rc = 0;
        ddb_err_init(&ops[i].err);
        if (ops[i].fn != NULL && s == NULL)
            s = ops[i].t->s;            /* it writes: needs room */
    }
    if (s != NULL && space_admit(s, err) != 0) {
        s = NULL;                       /* refused: nothing to note */
        goto out;
    }
    pset_lock(&ps, tables, keys, n);

    /* read and decide: every fn is called, so all reasons are known */
    for (size_t i = 0; i < n; i++) {
        json_t *old = NULL, *new_item = NULL;
        size_t new_size = 0, old_size = 0;
        bool keep = false;

        if (partition_get_locked(ps.of[i], &ops[i].k, &old, &old_size,
                                 err) != 0)
            goto out;
        if (ops[i].fn != NULL &&
            ops[i].fn(ops[i].arg, old, old_size, &new_item, &new_size, &keep,
                      &ops[i].err) != 0) {
            ops[i].rc = -1;
            if (first_fail == n)
                first_fail = i;
            json_decref(new_item);
            json_decref(old);
            continue;
        }
        if (ops[i].fn != NULL && !keep && (old != NULL || new_item != NULL)) {
            struct plog l;

            w[nw].t = ops[i].t;
            w[nw].p = ps.of[i];
            w[nw].k = &ops[i].k;
            w[nw].item = new_item;
            w[nw].size = new_size;
            /* with every partition locked: the log switch is settled, and
             * numbers follow commit order */
            changelog_plog(ops[i].t, ops[i].origin, &l);
            if (atomic_load(l.on) &&
                (old == NULL || new_item == NULL ||
                 !json_same(old, new_item))) {
                w[nw].seq = atomic_fetch_add(l.seq, 1) + 1;
                w[nw].ms = l.ms;
                w[nw].origin = l.origin;
                w[nw].old = json_incref(old);
            }
            new_item = NULL;
            nw++;
        }
        json_decref(new_item);
        json_decref(old);
    }
    if (first_fail < n) {
        err_copy(err, &ops[first_fail].err);
        goto out;
    }

    /* commit: journal first when more than one partition is written */
    qsort(w, nw, sizeof(*w), write_cmp);
    for (size_t i = 0; i < nw; i++)
        if (i == 0 || w[i].p != w[i - 1].p)
            nparts++;
    if (nparts > 1) {
        body = journal_body(w, nw);
        if (body == NULL) {
            ddb_err_set(err, DDB_INTERNAL, "storage: cannot encode journal");
            goto out;
        }
        if (journal_put(s, body, &jid, err) != 0)
            goto out;
        journaled = true;
    }
    /* Once journaled, the transaction is decided: if the disk filled up
     * meanwhile, the reserve is given back (space.c) and the rest is
     * applied with it, so that no reader sees half of the transaction.
     * Applying an after-image twice is harmless. Without a journal, SQLite
     * rolled the one partition back: nothing was written. */
    if (apply_writes(w, nw, err) != 0) {
        if (!journaled)
            goto out;                   /* SQLite rolled it back */
        space_note(s, err);
        if (apply_writes(w, nw, err) != 0)
            goto fence;
    }
    /* drop the entry before unlocking: a later write to these keys must
     * never be overwritten by a replay */
    if (journaled && journal_drop(s, jid, err) != 0 &&
        (space_note(s, err), journal_drop(s, jid, err) != 0))
        goto fence;
    rc = 0;
    goto out;
fence:
    /* The journal keeps the transaction, and the next start replays it.
     * Until then its partitions refuse item calls: none may show half of
     * it or take a write that the replay would overwrite. */
    for (size_t i = 0; i < nw; i++)
        partition_fence_locked(w[i].p);
out:
    if (ps.p != NULL)
        pset_unlock(&ps);
    pset_free(&ps);
    if (rc != 0 && s != NULL)
        space_note(s, err);
    for (size_t i = 0; i < nw; i++) {
        json_decref(w[i].item);
        json_decref(w[i].old);
    }
    free(body);
    free(w);
    free(keys);
    free(tables);
    return rc;
}

int
stable_txn_get(struct stable *const *tables,
               const struct item_key *const *keys, size_t n,
               json_t **items, struct ddb_err *err)
{
    struct pset ps = { 0 };
    int rc = -1;

    for (size_t i = 0; i < n; i++)
        items[i] = NULL;
    pset_lock(&ps, tables, keys, n);
    for (size_t i = 0; i < n; i++)
        if (partition_get_locked(ps.of[i], keys[i], &items[i], NULL, err) != 0)
            goto out;
    rc = 0;
out:
    pset_unlock(&ps);
    pset_free(&ps);
    if (rc != 0)
        for (size_t i = 0; i < n; i++) {
            json_decref(items[i]);
            items[i] = NULL;
        }
    return rc;
}

/* ------------------------------------------------------------------------
 * Replay (storage_open, before any request): re-apply every journal entry.
 * Applying an after-image twice is harmless, and no later write to the
 * same keys can exist: the transaction held their partitions until it
 * dropped its entry.
 * ---------------------------------------------------------------------- */

/* Apply one journal body. Entries of tables deleted since are skipped. */
static int
replay_body(struct storage *s, const char *text, struct ddb_err *err)
{
    json_error_t jerr;
    json_t *a = json_loads(text, 0, &jerr), *e;
    struct item_key *keys = NULL;
    struct twrite *w = NULL;
    size_t i, nw = 0;
    int rc = -1;

    if (!json_is_array(a)) {
        ddb_err_set(err, DDB_INTERNAL, "storage: journal: corrupt entry");
        goto out;
    }
    keys = xcalloc(json_array_size(a) + 1, sizeof(*keys));
    w = xcalloc(json_array_size(a) + 1, sizeof(*w));
    json_array_foreach(a, i, e) {
        const char *tid = json_string_value(json_object_get(e, "t"));
        struct stable *t = tid != NULL ? storage_table_by_id(s, tid) : NULL;
        struct item_key *k = &keys[nw];
        const json_t *item = json_object_get(e, "i");
        long hl, pl, sl;

        if (t == NULL)
            continue;
        hl = unhex(json_object_get(e, "h"), k->hash, sizeof(k->hash));
        pl = unhex(json_object_get(e, "pk"), k->pk, sizeof(k->pk));
        sl = unhex(json_object_get(e, "sk"), k->sk, sizeof(k->sk));
        if (hl != (long)sizeof(k->hash) || pl < 0 || sl < 0 ||
            (item != NULL && !json_is_null(item) && !json_is_object(item))) {
            ddb_err_set(err, DDB_INTERNAL, "storage: journal: bad write");
            goto out;
        }
        k->pk_len = (size_t)pl;
        k->sk_len = (size_t)sl;
        w[nw].t = t;
        w[nw].p = stable_partition(t, k->hash);
        w[nw].k = k;
        w[nw].item = json_is_object(item) ? json_incref((json_t *)item)
                                          : NULL;
        w[nw].size = (size_t)json_integer_value(json_object_get(e, "z"));
        if (json_get_uint(e, "q", &w[nw].seq) == 1) {
            const json_t *old = json_object_get(e, "old");

            (void)json_get_uint(e, "ms", &w[nw].ms);
            w[nw].origin = json_integer_value(json_object_get(e, "o")) ==
                                   STORAGE_ORIGIN_SERVICE
                               ? STORAGE_ORIGIN_SERVICE
                               : STORAGE_ORIGIN_REQUEST;
            w[nw].old = json_is_object(old) ? json_incref((json_t *)old)
                                            : NULL;
            changelog_seen(t, w[nw].seq);
        }
        nw++;
    }
    qsort(w, nw, sizeof(*w), write_cmp);
    for (i = 0; i < nw; i++)
        if (i == 0 || w[i].p != w[i - 1].p)
            partition_lock(w[i].p);
    rc = apply_writes(w, nw, err);
    for (i = nw; i > 0; i--)
        if (i == 1 || w[i - 1].p != w[i - 2].p)
            partition_unlock(w[i - 1].p);
out:
    for (i = 0; i < nw; i++) {
        json_decref(w[i].item);
        json_decref(w[i].old);
    }
    free(w);
    free(keys);
    json_decref(a);
    return rc;
}

/*
 * Create the journal table if needed and replay every entry in order,
 * dropping each once applied. Called by storage_open() after the tables
 * are loaded and before the store serves anything.
 */
int
txn_journal_replay(struct storage *s, struct ddb_err *err)
{
    sqlite3_stmt *st = NULL;
    int rc = -1, step;

    if (catalog_exec(s, "journal", journal_schema, err) != 0)
        return -1;
    for (;;) {
        sqlite3_int64 id;
        const char *text;
        char *body;

        if (sqlite3_prepare_v2(s->cat, "SELECT id, body FROM txn_journal "
                                       "ORDER BY id LIMIT 1", -1, &st,
                               NULL) != SQLITE_OK) {
            catalog_err(s, "journal", err);
            goto out;
        }
        step = sqlite3_step(st);
        if (step == SQLITE_DONE)
            break;
        if (step != SQLITE_ROW) {
            catalog_err(s, "journal", err);
            goto out;
        }
        id = sqlite3_column_int64(st, 0);
        text = (const char *)sqlite3_column_text(st, 1);
        body = xstrdup(text != NULL ? text : "[]");
        sqlite3_finalize(st);
        st = NULL;
        if (replay_body(s, body, err) != 0) {
            free(body);
            goto out;
        }
        free(body);
        if (journal_drop(s, id, err) != 0)
            goto out;
    }
    rc = 0;
out:
    sqlite3_finalize(st);
    return rc;
}
