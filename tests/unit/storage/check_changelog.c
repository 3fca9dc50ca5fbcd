/* SPDX-License-Identifier: MIT */
/* check_changelog.c - the change log (storage/changelog.c, the records in
 * partition.c and txn.c): what is recorded and what is not, the switch
 * and its markers, sequence numbers across writes, reopen, transactions,
 * journal replay and splits, the partition history, the trim, a rehash
 * of an older data directory, and table renames. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "storage/storage.h"
#include "storage/storage_int.h"         /* stable_split, a->id */
#include "tests/unit/storage/fixture.h"

/* ------------------------------------------------------------------------
 * Helpers
 * ---------------------------------------------------------------------- */

/* The store's clock in these tests: moved by hand. */
static uint64_t clock_ms;

static uint64_t
test_clock(void *arg)
{
    (void)arg;
    return clock_ms;
}

static void
open_store(void)
{
    struct ddb_err err;

    ddb_err_init(&err);
    st = storage_open(tmpdir, &err);
    ck_assert_msg(st != NULL, "%s", err.msg);
    storage_set_clock(st, test_clock, NULL);
}

static void
reopen_store(void)
{
    storage_close(st);
    st = NULL;
    open_store();
}

static json_t *
mk_item(const char *pk, long n)
{
    char num[32];

    snprintf(num, sizeof(num), "%ld", n);
    return json_pack("{s{ss}s{ss}}", "pk", "S", pk, "n", "N", num);
}

static void
put_n(struct stable *t, const char *pk, long n)
{
    struct item_key k;
    struct ddb_err err;
    json_t *item = mk_item(pk, n);

    ddb_err_init(&err);
    fixture_skey(&k, pk, NULL);
    ck_assert_int_eq(stable_mutate(t, &k, fixture_put_fn, item, &err), 0);
    json_decref(item);
}

static void
del(struct stable *t, const char *pk)
{
    struct item_key k;
    struct ddb_err err;

    ddb_err_init(&err);
    fixture_skey(&k, pk, NULL);
    ck_assert_int_eq(stable_mutate(t, &k, fixture_put_fn, NULL, &err), 0);
}

/* One record as read back. */
struct rec {
    uint64_t seq, ms;
    enum storage_origin origin;
    char pk[32];
    long old_n, new_n;              /* -1: image absent */
};

struct recs {
    size_t n;
    struct rec r[256];
};

static int
collect_fn(void *arg, const struct slog_rec *r, struct ddb_err *err)
{
    struct recs *c = arg;
    struct rec *o = &c->r[c->n++];
    const json_t *img = r->new_item != NULL ? r->new_item : r->old;

    (void)err;
    ck_assert_uint_lt(c->n, 256);
    o->seq = r->seq;
    o->ms = r->ms;
    o->origin = r->origin;
    snprintf(o->pk, sizeof(o->pk), "%s",
             json_string_value(json_object_get(json_object_get(img, "pk"),
                                               "S")));
    o->old_n = fixture_num(r->old, "n");
    o->new_n = fixture_num(r->new_item, "n");
    return 0;
}

/* Every record of t, partition history order (parents first), each log
 * read over its partition's own lifetime; sorted by sequence number. */
static int
rec_cmp(const void *a, const void *b)
{
    const struct rec *x = a, *y = b;

    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void
read_all(struct stable *t, struct recs *c)
{
    struct spart *h;
    struct ddb_err err;
    uint64_t trimmed;
    size_t n;

    ddb_err_init(&err);
    c->n = 0;
    ck_assert_int_eq(stable_part_history(t, &h, &n, &err), 0);
    for (size_t i = 0; i < n; i++)
        ck_assert_int_eq(stable_log_read(t, h[i].start, h[i].born_seq,
                                         h[i].end_seq ? h[i].end_seq
                                                      : UINT64_MAX,
                                         collect_fn, c, &trimmed, &err),
                         0);
    free(h);
    qsort(c->r, c->n, sizeof(c->r[0]), rec_cmp);
}

/* The markers a switch took. */
struct marks {
    uint64_t seq, ms;
};

static json_t *
refuse_fn(void *arg, uint64_t seq, uint64_t ms, struct ddb_err *err)
{
    (void)arg;
    (void)seq;
    (void)ms;
    ddb_err_set(err, DDB_VALIDATION, "refused");
    return NULL;
}

static void
switch_log(struct stable *t, bool on, struct marks *m)
{
    fixture_log_switch(t, on, &m->seq, &m->ms);
}

/* ------------------------------------------------------------------------
 * What is recorded
 * ---------------------------------------------------------------------- */

START_TEST(test_log_records_changes_only)
{
    struct stable *t;
    struct marks on, off;
    struct recs c;
    struct item_key k;
    struct ddb_err err;
    json_t *item, *d;

    ddb_err_init(&err);
    clock_ms = 1000;
    open_store();
    t = fixture_table("log", 2);
    put_n(t, "before", 1);              /* not logging yet */
    read_all(t, &c);
    ck_assert_uint_eq(c.n, 0);

    switch_log(t, true, &on);
    d = stable_desc(t);                 /* the new description is in */
    ck_assert_int_eq(json_integer_value(json_object_get(d, "marker")),
                     (json_int_t)on.seq);
    json_decref(d);
    clock_ms = 2000;
    put_n(t, "b", 1);                   /* INSERT */
    put_n(t, "b", 1);                   /* unchanged: nothing */
    put_n(t, "b", 2);                   /* MODIFY */
    fixture_skey(&k, "b", NULL);
    item = mk_item("b", 3);
    ck_assert_int_eq(stable_mutate(t, &k, fixture_fail_fn, item, &err), -1);
    ddb_err_clear(&err);
    ck_assert_int_eq(stable_mutate(t, &k, fixture_keep_fn, NULL, &err), 0);
    json_decref(item);
    del(t, "b");                        /* REMOVE */
    del(t, "b");                        /* absent already: nothing */
    del(t, "before");                   /* REMOVE of an older item */
    switch_log(t, false, &off);
    put_n(t, "after", 1);               /* not logging any more */

    read_all(t, &c);
    ck_assert_uint_eq(c.n, 4);
    ck_assert_str_eq(c.r[0].pk, "b");
    ck_assert_int_eq(c.r[0].old_n, -1);
    ck_assert_int_eq(c.r[0].new_n, 1);
    ck_assert_int_eq(c.r[1].old_n, 1);
    ck_assert_int_eq(c.r[1].new_n, 2);
    ck_assert_int_eq(c.r[2].old_n, 2);
    ck_assert_int_eq(c.r[2].new_n, -1);
    ck_assert_str_eq(c.r[3].pk, "before");
    ck_assert_int_eq(c.r[3].old_n, 1);
    for (size_t i = 0; i < c.n; i++) {
        ck_assert_uint_gt(c.r[i].seq, on.seq);
        ck_assert_uint_lt(c.r[i].seq, off.seq);
        ck_assert_uint_eq(c.r[i].ms, 2000);
        ck_assert_int_eq(c.r[i].origin, STORAGE_ORIGIN_REQUEST);
        if (i > 0)
            ck_assert_uint_gt(c.r[i].seq, c.r[i - 1].seq);
    }
    /* births are strictly increasing even when the clock stands still */
    ck_assert_uint_gt(off.ms, on.ms);
    stable_release(t);
}
END_TEST

START_TEST(test_log_origin_and_refused_switch)
{
    struct stable *t;
    struct marks on;
    struct recs c;
    struct item_key k;
    struct ddb_err err;
    uint64_t seq;

    ddb_err_init(&err);
    open_store();
    t = fixture_table("origin", 1);
    seq = stable_log_seq(t);
    ck_assert_int_eq(stable_log_switch(t, true, 0, refuse_fn, NULL, &err),
                     -1);
    ck_assert(!stable_log_on(t));
    ck_assert_str_eq(err.msg, "refused");
    ddb_err_clear(&err);
    switch_log(t, true, &on);
    ck_assert_uint_gt(on.seq, seq);
    put_n(t, "x", 1);
    fixture_skey(&k, "x", NULL);
    ck_assert_int_eq(stable_mutate_as(t, &k, STORAGE_ORIGIN_SERVICE,
                                      fixture_put_fn, NULL, &err),
                     0);
    read_all(t, &c);
    ck_assert_uint_eq(c.n, 2);
    ck_assert_int_eq(c.r[0].origin, STORAGE_ORIGIN_REQUEST);
    ck_assert_int_eq(c.r[1].origin, STORAGE_ORIGIN_SERVICE);
    ck_assert_int_eq(c.r[1].new_n, -1);
    ck_assert_uint_eq(stable_log_tip(t, 0), c.r[1].seq);
    stable_release(t);
}
END_TEST

/* A table created logging: the first marker is 1 and the min_ms floor
 * holds. */
static json_t *
created_fn(void *arg, uint64_t seq, uint64_t ms, struct ddb_err *err)
{
    struct marks *m = arg;

    (void)err;
    m->seq = seq;
    m->ms = ms;
    return json_pack("{s:I}", "marker", (json_int_t)seq);
}

START_TEST(test_log_created_logged)
{
    struct stable *t;
    struct marks m;
    struct recs c;
    struct ddb_err err;

    ddb_err_init(&err);
    clock_ms = 500;
    open_store();
    ck_assert_int_eq(storage_table_create_logged(st, "born", 2, 9000,
                                                 created_fn, &m, &err),
                     0);
    ck_assert_uint_eq(m.seq, 1);
    ck_assert_uint_eq(m.ms, 9000);
    t = storage_table_get(st, "born");
    ck_assert(stable_log_on(t));
    put_n(t, "a", 1);
    read_all(t, &c);
    ck_assert_uint_eq(c.n, 1);
    ck_assert_uint_eq(c.r[0].seq, 2);
    stable_release(t);
}
END_TEST

/* ------------------------------------------------------------------------
 * Across a reopen, in transactions, through journal replay
 * ---------------------------------------------------------------------- */

START_TEST(test_log_survives_reopen)
{
    struct stable *t;
    struct marks on;
    struct recs c;
    uint64_t last;

    open_store();
    t = fixture_table("reo", 3);
    switch_log(t, true, &on);
    for (int i = 0; i < 20; i++) {
        char pk[16];

        snprintf(pk, sizeof(pk), "k%d", i);
        put_n(t, pk, i);
    }
    last = stable_log_seq(t);
    stable_release(t);
    reopen_store();
    t = storage_table_get(st, "reo");
    ck_assert(stable_log_on(t));
    ck_assert_uint_eq(stable_log_seq(t), last);
    put_n(t, "k0", 100);
    read_all(t, &c);
    ck_assert_uint_eq(c.n, 21);
    ck_assert_uint_eq(c.r[20].seq, last + 1);
    ck_assert_int_eq(c.r[20].old_n, 0);
    ck_assert_int_eq(c.r[20].new_n, 100);
    stable_release(t);
}
END_TEST

START_TEST(test_log_txn_and_replay)
{
    struct stable *a, *b;
    struct marks m;
    struct stxn_op ops[3];
    struct ddb_err err;
    struct recs c;
    json_t *i1 = mk_item("t1", 1), *i2 = mk_item("t2", 2);
    char body[4096], h[33], p[16];
    struct item_key k;
    char ida[STORAGE_ID_LEN + 1];

    ddb_err_init(&err);
    clock_ms = 7000;
    open_store();
    a = fixture_table("ta", 4);
    b = fixture_table("tb", 1);         /* does not log */
    switch_log(a, true, &m);
    memset(ops, 0, sizeof(ops));
    ops[0].t = a;
    fixture_skey(&ops[0].k, "t1", NULL);
    ops[0].fn = fixture_put_fn;
    ops[0].arg = i1;
    ops[1].t = a;
    fixture_skey(&ops[1].k, "t2", NULL);
    ops[1].fn = fixture_put_fn;
    ops[1].arg = i2;
    ops[1].origin = STORAGE_ORIGIN_SERVICE;
    ops[2].t = b;
    fixture_skey(&ops[2].k, "t3", NULL);
    ops[2].fn = fixture_put_fn;
    ops[2].arg = i1;
    ck_assert_int_eq(stable_txn(ops, 3, &err), 0);
    read_all(a, &c);
    ck_assert_uint_eq(c.n, 2);
    ck_assert_int_eq(c.r[0].origin + c.r[1].origin, STORAGE_ORIGIN_SERVICE);
    read_all(b, &c);
    ck_assert_uint_eq(c.n, 0);

    /* A journal entry left by a crash: its record goes in once, and the
     * counter moves above it. */
    memcpy(ida, a->id, sizeof(ida));
    stable_release(a);
    stable_release(b);
    storage_close(st);
    st = NULL;
    fixture_skey(&k, "j1", NULL);
    for (int i = 0; i < 16; i++)
        sprintf(h + 2 * i, "%02x", k.hash[i]);
    for (size_t i = 0; i < k.pk_len; i++)
        sprintf(p + 2 * i, "%02x", k.pk[i]);
    snprintf(body, sizeof(body),
             "[{\"t\":\"%s\",\"h\":\"%s\",\"pk\":\"%s\",\"sk\":\"\","
             "\"i\":{\"pk\":{\"S\":\"j1\"},\"n\":{\"N\":\"5\"}},\"z\":10,"
             "\"q\":500,\"ms\":4242,\"o\":1,\"old\":null}]",
             ida, h, p);
    for (int rep = 0; rep < 2; rep++) {
        sqlite3 *db;
        sqlite3_stmt *q;
        char path[128];

        snprintf(path, sizeof(path), "%s/catalog.db", tmpdir);
        ck_assert_int_eq(sqlite3_open(path, &db), SQLITE_OK);
        ck_assert_int_eq(sqlite3_prepare_v2(db, "INSERT INTO txn_journal "
                                                "(body) VALUES (?1)",
                                            -1, &q, NULL),
                         SQLITE_OK);
        sqlite3_bind_text(q, 1, body, -1, SQLITE_STATIC);
        ck_assert_int_eq(sqlite3_step(q), SQLITE_DONE);
        sqlite3_finalize(q);
        sqlite3_close(db);
    }
    open_store();
    a = storage_table_get(st, "ta");
    ck_assert_uint_ge(stable_log_seq(a), 500);
    read_all(a, &c);
    ck_assert_uint_eq(c.n, 3);
    ck_assert_uint_eq(c.r[2].seq, 500);
    ck_assert_uint_eq(c.r[2].ms, 4242);
    ck_assert_int_eq(c.r[2].origin, STORAGE_ORIGIN_SERVICE);
    ck_assert_int_eq(c.r[2].new_n, 5);
    stable_release(a);
    json_decref(i1);
    json_decref(i2);
}
END_TEST

/* ------------------------------------------------------------------------
 * Splits: the first child hosts the parent's log; history and markers
 * ---------------------------------------------------------------------- */

START_TEST(test_log_split_lineage)
{
    struct stable *t;
    struct marks m;
    struct spart *h;
    struct recs c;
    struct ddb_err err;
    size_t n;
    uint64_t trimmed, parent_end;
    char pk[16];

    ddb_err_init(&err);
    clock_ms = 100;
    open_store();
    t = fixture_table("spl", 1);
    switch_log(t, true, &m);
    for (int i = 0; i < 40; i++) {
        snprintf(pk, sizeof(pk), "p%d", i);
        put_n(t, pk, i);
    }
    clock_ms = 200;
    ck_assert_int_eq(stable_split(t, 0, &err), 0);
    for (int i = 0; i < 40; i++) {
        snprintf(pk, sizeof(pk), "p%d", i);
        put_n(t, pk, 1000 + i);
    }
    ck_assert_int_eq(stable_part_history(t, &h, &n, &err), 0);
    ck_assert_uint_eq(n, 3);
    ck_assert_str_eq(h[0].parent, "");
    ck_assert_uint_ne(h[0].end_seq, 0);
    ck_assert_uint_eq(h[0].end_ms, 200);
    parent_end = h[0].end_seq;
    for (int i = 1; i < 3; i++) {
        ck_assert_str_eq(h[i].parent, h[0].id);
        ck_assert_uint_gt(h[i].born_seq, parent_end);
        ck_assert_uint_eq(h[i].end_seq, 0);
        ck_assert_uint_gt(h[i].born_ms, h[0].born_ms);
    }
    ck_assert_uint_eq(h[1].start, h[0].start);  /* first child */
    ck_assert_uint_gt(h[2].start, h[0].start);
    /* the parent's range, read where it started: its 40 records */
    c.n = 0;
    ck_assert_int_eq(stable_log_read(t, h[0].start, h[0].born_seq,
                                     h[0].end_seq, collect_fn, &c, &trimmed,
                                     &err),
                     0);
    ck_assert_uint_eq(c.n, 40);
    for (size_t i = 0; i < c.n; i++)
        ck_assert_uint_lt(c.r[i].seq, parent_end);
    /* the children hold the 40 later ones between them, after the split */
    c.n = 0;
    for (int i = 1; i < 3; i++)
        ck_assert_int_eq(stable_log_read(t, h[i].start, h[i].born_seq,
                                         UINT64_MAX, collect_fn, &c,
                                         &trimmed, &err),
                         0);
    ck_assert_uint_eq(c.n, 40);
    for (size_t i = 0; i < c.n; i++) {
        ck_assert_uint_gt(c.r[i].seq, parent_end);
        ck_assert_int_ge(c.r[i].new_n, 1000);
    }
    free(h);
    /* the same after a reopen */
    stable_release(t);
    reopen_store();
    t = storage_table_get(st, "spl");
    read_all(t, &c);
    ck_assert_uint_eq(c.n, 80);
    stable_release(t);
}
END_TEST

/* ------------------------------------------------------------------------
 * Trim
 * ---------------------------------------------------------------------- */

START_TEST(test_log_trim)
{
    struct stable *t;
    struct marks m;
    struct recs c;
    struct spart *h;
    struct ddb_err err;
    uint64_t trimmed;
    size_t n;

    ddb_err_init(&err);
    clock_ms = 1000;
    open_store();
    t = fixture_table("trim", 1);
    switch_log(t, true, &m);
    put_n(t, "a", 1);
    clock_ms = 2000;
    put_n(t, "a", 2);
    clock_ms = 3000;
    ck_assert_int_eq(stable_split(t, 0, &err), 0);
    put_n(t, "a", 3);
    /* nothing old enough */
    ck_assert_int_eq(stable_log_trim(t, 500, &err), 0);
    read_all(t, &c);
    ck_assert_uint_eq(c.n, 3);
    /* the two oldest go; the parent, retired at 3000, stays */
    ck_assert_int_eq(stable_log_trim(t, 2500, &err), 0);
    read_all(t, &c);
    ck_assert_uint_eq(c.n, 1);
    ck_assert_int_eq(c.r[0].new_n, 3);
    ck_assert_int_eq(stable_part_history(t, &h, &n, &err), 0);
    ck_assert_uint_eq(n, 3);
    c.n = 0;
    ck_assert_int_eq(stable_log_read(t, h[0].start, 0, UINT64_MAX,
                                     collect_fn, &c, &trimmed, &err),
                     0);
    ck_assert_uint_gt(trimmed, m.seq);
    ck_assert_uint_lt(trimmed, h[0].end_seq);
    free(h);
    /* later: the retired parent's history goes too; the mark survives a
     * reopen */
    ck_assert_int_eq(stable_log_trim(t, 3500, &err), 0);
    ck_assert_int_eq(stable_part_history(t, &h, &n, &err), 0);
    ck_assert_uint_eq(n, 2);
    free(h);
    stable_release(t);
    reopen_store();
    t = storage_table_get(st, "trim");
    c.n = 0;
    ck_assert_int_eq(stable_log_read(t, 0, 0, UINT64_MAX, collect_fn, &c,
                                     &trimmed, &err),
                     0);
    ck_assert_uint_eq(c.n, 0);
    ck_assert_uint_gt(trimmed, m.seq);
    stable_release(t);
}
END_TEST

/* A data directory whose rows an older version placed by another hash is
 * re-placed at start-up (stable_rehash): each partition's records and
 * trimmed mark go to the new file at its place on the ring, its history
 * follows, numbering goes on. */
START_TEST(test_log_rehash)
{
    struct stable *t;
    struct marks m;
    struct recs before, after;
    struct spart *h;
    struct ddb_err err;
    uint64_t trimmed, marks[4];
    size_t n;
    sqlite3 *db = NULL;
    char path[256], pk[16];
    int nmarked = 0;

    ddb_err_init(&err);
    clock_ms = 1000;
    open_store();
    t = fixture_table("rh", 4);
    switch_log(t, true, &m);
    put_n(t, "gone", 0);
    clock_ms = 2000;
    for (int i = 0; i < 30; i++) {
        snprintf(pk, sizeof(pk), "k%d", i);
        put_n(t, pk, i);
    }
    ck_assert_int_eq(stable_log_trim(t, 1500, &err), 0);
    read_all(t, &before);
    ck_assert_uint_eq(before.n, 30);
    for (unsigned i = 0; i < 4; i++) {
        after.n = 0;
        ck_assert_int_eq(stable_log_read(t, partmap_start(&playout_of(t)->map,
                                                          i),
                                         0, UINT64_MAX, collect_fn, &after,
                                         &marks[i], &err),
                         0);
        nmarked += marks[i] > m.seq;
    }
    ck_assert_int_eq(nmarked, 1);       /* where "gone" was */
    stable_release(t);
    storage_close(st);
    st = NULL;
    snprintf(path, sizeof(path), "%s/catalog.db", tmpdir);
    ck_assert_int_eq(sqlite3_open(path, &db), SQLITE_OK);
    ck_assert_int_eq(sqlite3_exec(db, "UPDATE tables SET keyhash = 0", NULL,
                                  NULL, NULL),
                     SQLITE_OK);
    sqlite3_close(db);

    open_store();
    t = storage_table_get(st, "rh");
    ck_assert(stable_needs_rehash(t));
    ck_assert_int_eq(stable_rehash(t, 'S', &err), 0);
    ck_assert_int_eq(stable_part_history(t, &h, &n, &err), 0);
    ck_assert_uint_eq(n, 4);
    for (unsigned i = 0; i < 4; i++) {  /* the history names the new files */
        ck_assert_str_eq(h[i].id, playout_of(t)->files[i]);
        ck_assert_uint_eq(h[i].start, partmap_start(&playout_of(t)->map, i));
        ck_assert_uint_eq(h[i].end_seq, 0);
    }
    free(h);
    read_all(t, &after);
    ck_assert_uint_eq(after.n, before.n);
    for (size_t i = 0; i < after.n; i++) {
        ck_assert_uint_eq(after.r[i].seq, before.r[i].seq);
        ck_assert_str_eq(after.r[i].pk, before.r[i].pk);
    }
    /* the trimmed marks came along, each to its place */
    for (unsigned i = 0; i < 4; i++) {
        after.n = 0;
        ck_assert_int_eq(stable_log_read(t, partmap_start(&playout_of(t)->map,
                                                          i),
                                         0, UINT64_MAX, collect_fn, &after,
                                         &trimmed, &err),
                         0);
        ck_assert_uint_eq(trimmed, marks[i]);
    }
    put_n(t, "k0", 100);
    read_all(t, &after);
    ck_assert_uint_eq(after.n, 31);
    ck_assert_uint_gt(after.r[30].seq, before.r[29].seq);
    stable_release(t);
    reopen_store();
    t = storage_table_get(st, "rh");
    ck_assert(!stable_needs_rehash(t));
    read_all(t, &after);
    ck_assert_uint_eq(after.n, 31);
    stable_release(t);
}
END_TEST

/* ------------------------------------------------------------------------
 * Renames
 * ---------------------------------------------------------------------- */

START_TEST(test_rename)
{
    struct stable *t, *u;
    struct ddb_err err;
    const char *before;

    ddb_err_init(&err);
    open_store();
    t = fixture_table("old", 1);
    put_n(t, "x", 7);
    before = stable_name(t);
    ck_assert_int_eq(storage_table_rename(st, "old", "old/stream/1", &err),
                     0);
    ck_assert_str_eq(before, "old");    /* still readable */
    ck_assert_str_eq(stable_name(t), "old/stream/1");
    ck_assert_ptr_null(storage_table_get(st, "old"));
    u = fixture_table("old", 1);        /* the name is free */
    ck_assert_int_eq(storage_table_rename(st, "old", "old/stream/1", &err),
                     -1);
    ck_assert_int_eq(err.type, DDB_RESOURCE_IN_USE);
    ddb_err_clear(&err);
    stable_release(u);
    stable_release(t);
    reopen_store();
    t = storage_table_get(st, "old/stream/1");
    ck_assert_ptr_nonnull(t);
    ck_assert_int_eq(fixture_get_num(t, "x", NULL, "n"), 7);
    stable_release(t);
}
END_TEST

/* What a blind write's fn sees (stable_mutate_blind): an empty map with
 * the stored size for an existing item, NULL for an absent one, and the
 * whole item when the change log records the image. */
struct seen {
    bool old;
    size_t members, old_size;
    long old_n;
};

static int
seen_fn(void *arg, const json_t *old, size_t old_size, json_t **new_item,
        size_t *new_size, bool *keep, struct ddb_err *err)
{
    struct seen *v = arg;

    (void)keep;
    (void)err;
    v->old = old != NULL;
    v->members = json_object_size(old);
    v->old_size = old_size;
    v->old_n = json_object_get(old, "n") != NULL ? fixture_num(old, "n")
                                                 : -1;
    *new_item = mk_item("w", 5);
    *new_size = 10;
    return 0;
}

START_TEST(test_blind_mutate)
{
    struct stable *t;
    struct marks on;
    struct recs c;
    struct item_key k;
    struct ddb_err err;
    struct seen v;
    uint64_t count, bytes;

    ddb_err_init(&err);
    open_store();
    t = fixture_table("blind", 1);
    fixture_skey(&k, "w", NULL);
    ck_assert_int_eq(stable_mutate_blind(t, &k, seen_fn, &v, &err), 0);
    ck_assert(!v.old);
    ck_assert_uint_eq(v.old_size, 0);
    ck_assert_int_eq(stable_mutate_blind(t, &k, seen_fn, &v, &err), 0);
    ck_assert(v.old);                   /* there, unread */
    ck_assert_uint_eq(v.members, 0);
    ck_assert_uint_eq(v.old_size, 10);
    ck_assert_int_eq(fixture_get_num(t, "w", NULL, "n"), 5);
    ck_assert_int_eq(stable_stats(t, &count, &bytes, &err), 0);
    ck_assert_uint_eq(count, 1);
    ck_assert_uint_eq(bytes, 10);

    switch_log(t, true, &on);           /* the log needs the image */
    put_n(t, "w", 4);
    ck_assert_int_eq(stable_mutate_blind(t, &k, seen_fn, &v, &err), 0);
    ck_assert_int_eq(v.old_n, 4);
    ck_assert_uint_eq(v.old_size, 10);
    read_all(t, &c);
    ck_assert_uint_eq(c.n, 2);
    ck_assert_int_eq(c.r[1].old_n, 4);
    ck_assert_int_eq(c.r[1].new_n, 5);
    stable_release(t);
}
END_TEST

static Suite *
changelog_suite(void)
{
    Suite *s = suite_create("changelog");
    TCase *tc;

    tc = tcase_create("records");
    tcase_add_checked_fixture(tc, fixture_setup, fixture_teardown);
    tcase_add_test(tc, test_log_records_changes_only);
    tcase_add_test(tc, test_log_origin_and_refused_switch);
    tcase_add_test(tc, test_log_created_logged);
    tcase_add_test(tc, test_blind_mutate);
    suite_add_tcase(s, tc);

    tc = tcase_create("durability");
    tcase_add_checked_fixture(tc, fixture_setup, fixture_teardown);
    tcase_add_test(tc, test_log_survives_reopen);
    tcase_add_test(tc, test_log_txn_and_replay);
    suite_add_tcase(s, tc);

    tc = tcase_create("lineage");
    tcase_add_checked_fixture(tc, fixture_setup, fixture_teardown);
    tcase_add_test(tc, test_log_split_lineage);
    tcase_add_test(tc, test_log_trim);
    tcase_add_test(tc, test_log_rehash);
    tcase_add_test(tc, test_rename);
    suite_add_tcase(s, tc);
    return s;
}

int
main(void)
{
    SRunner *sr = srunner_create(changelog_suite());
    int failed;

    srunner_run_all(sr, CK_ENV);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
