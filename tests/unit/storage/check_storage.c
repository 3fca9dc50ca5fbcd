/* SPDX-License-Identifier: MIT */
/* check_storage.c - the partitioned store: catalog persistence across
 * reopen, in-memory mode, atomic mutate, query ranges, scan order and
 * resumption across partitions, table deletion with live handles and
 * concurrent writers. */
#include <check.h>
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "storage/storage.h"
#include "storage/storage_int.h"         /* stable_split */
#include "tests/unit/storage/fixture.h"

/* ------------------------------------------------------------------------
 * Helpers (the directory, keys and tables: fixture.c)
 * ---------------------------------------------------------------------- */

static uint64_t
top64(const uint8_t h[16])
{
    uint64_t v = 0;

    for (int i = 0; i < 8; i++)
        v = v << 8 | h[i];
    return v;
}

static json_t *
mk_item(const char *pk, const char *sk, long n)
{
    char num[32];

    snprintf(num, sizeof(num), "%ld", n);
    if (sk != NULL)
        return json_pack("{s{ss}s{ss}s{ss}}", "pk", "S", pk, "sk", "S", sk,
                         "n", "N", num);
    return json_pack("{s{ss}s{ss}}", "pk", "S", pk, "n", "N", num);
}

static long
item_n(const json_t *item)
{
    return fixture_num(item, "n");
}

/* Increment attribute n (creating the item at 1). */
static int
incr_fn(void *arg, const json_t *old, size_t old_size, json_t **new_item,
        size_t *new_size, bool *keep, struct ddb_err *err)
{
    const char *pk = arg;

    (void)keep;
    (void)err;
    *new_item = mk_item(pk, NULL, old ? item_n(old) + 1 : 1);
    *new_size = 12;
    return 0;
}

static void
put(struct stable *t, const char *pk, const char *sk, long n)
{
    struct item_key k;
    struct ddb_err err;
    json_t *item = mk_item(pk, sk, n);

    ddb_err_init(&err);
    fixture_skey(&k, pk, sk);
    ck_assert_int_eq(stable_mutate(t, &k, fixture_put_fn, item, &err), 0);
    json_decref(item);
}

/* Returns n of the item, or -1 if absent. */
static long
get_n(struct stable *t, const char *pk, const char *sk)
{
    return fixture_get_num(t, pk, sk, "n");
}

/* Collects rows: their keys (pk|sk as "pk/sk") and stops after limit. */
struct collect {
    int count, limit;
    char keys[4096][64];
    struct item_key last;
    uint64_t last_h;
};

static int
collect_fn(void *arg, const struct item_key *k, const json_t *item,
           size_t size, struct ddb_err *err)
{
    struct collect *c = arg;

    (void)item;
    (void)size;
    (void)err;
    ck_assert(c->count < 4096);
    snprintf(c->keys[c->count], sizeof(c->keys[0]), "%.*s/%.*s",
             (int)k->pk_len, (const char *)k->pk, (int)k->sk_len,
             (const char *)k->sk);
    c->count++;
    c->last = *k;
    c->last_h = top64(k->hash);
    return c->limit > 0 && c->count >= c->limit ? 1 : 0;
}

static struct collect *
collect_new(int limit)
{
    struct collect *c = calloc(1, sizeof(*c));

    c->limit = limit;
    return c;
}

static int
count_dir(const char *path)
{
    DIR *d = opendir(path);
    struct dirent *e;
    int n = 0;

    if (d == NULL)
        return -1;
    while ((e = readdir(d)) != NULL)
        if (e->d_name[0] != '.')
            n++;
    closedir(d);
    return n;
}

/* ------------------------------------------------------------------------
 * Catalog
 * ---------------------------------------------------------------------- */

START_TEST(test_storage_persists_across_reopen)
{
    struct ddb_err err;
    struct stable *t;
    json_t *desc = json_pack("{ss si}", "TableName", "T", "x", 7), *d, *names;
    uint64_t starts[4], count, bytes;
    char pk[32];

    ddb_err_init(&err);
    st = storage_open(tmpdir, &err);
    ck_assert_ptr_nonnull(st);
    ck_assert_int_eq(storage_table_create(st, "T", desc, 4, &err), 0);
    ck_assert_int_eq(storage_table_create(st, "A", desc, 1, &err), 0);
    t = storage_table_get(st, "T");
    ck_assert_ptr_nonnull(t);
    ck_assert_uint_eq(stable_nparts(t), 4);
    for (unsigned i = 0; i < 4; i++)
        starts[i] = stable_part_start(t, i);
    for (int i = 0; i < 100; i++) {
        snprintf(pk, sizeof(pk), "key%d", i);
        put(t, pk, NULL, i);
    }
    json_object_set_new(desc, "x", json_integer(8));
    ck_assert_int_eq(stable_set_desc(t, desc, &err), 0);
    stable_release(t);
    storage_close(st);

    st = storage_open(tmpdir, &err);
    ck_assert_ptr_nonnull(st);
    names = storage_table_names(st);
    ck_assert_uint_eq(json_array_size(names), 2);
    ck_assert_str_eq(json_string_value(json_array_get(names, 0)), "A");
    ck_assert_str_eq(json_string_value(json_array_get(names, 1)), "T");
    json_decref(names);
    t = storage_table_get(st, "T");
    ck_assert_ptr_nonnull(t);
    ck_assert_str_eq(stable_name(t), "T");
    ck_assert_uint_eq(stable_nparts(t), 4);
    for (unsigned i = 0; i < 4; i++)
        ck_assert_uint_eq(stable_part_start(t, i), starts[i]);
    d = stable_desc(t);
    ck_assert(json_equal(d, desc));
    json_decref(d);
    for (int i = 0; i < 100; i++) {
        snprintf(pk, sizeof(pk), "key%d", i);
        ck_assert_int_eq(get_n(t, pk, NULL), i);
    }
    ck_assert_int_eq(stable_stats(t, &count, &bytes, &err), 0);
    ck_assert_uint_eq(count, 100);
    ck_assert_uint_eq(bytes, 1000);
    stable_release(t);
    json_decref(desc);
}
END_TEST

START_TEST(test_storage_in_memory)
{
    struct ddb_err err;
    struct stable *t;
    json_t *names;
    uint64_t count, bytes;

    ddb_err_init(&err);
    st = storage_open(NULL, &err);
    ck_assert_ptr_nonnull(st);
    ck_assert_int_eq(storage_table_create(st, "mem", NULL, 3, &err), 0);
    ck_assert_ptr_null(storage_table_get(st, "other"));
    t = storage_table_get(st, "mem");
    ck_assert_ptr_nonnull(t);
    put(t, "a", "1", 1);
    put(t, "b", "1", 2);
    ck_assert_int_eq(get_n(t, "a", "1"), 1);
    ck_assert_int_eq(get_n(t, "b", "1"), 2);
    ck_assert_int_eq(get_n(t, "a", "2"), -1);
    ck_assert_int_eq(stable_stats(t, &count, &bytes, &err), 0);
    ck_assert_uint_eq(count, 2);
    stable_release(t);
    names = storage_table_names(st);
    ck_assert_uint_eq(json_array_size(names), 1);
    json_decref(names);
    /* nothing on disk */
    ck_assert_int_eq(count_dir(tmpdir), 0);
}
END_TEST

/* stable_desc copies, stable_desc_ref shares an object that a later
 * stable_set_desc does not modify. */
START_TEST(test_storage_desc)
{
    struct ddb_err err;
    struct stable *t;
    json_t *d1 = json_pack("{si}", "v", 1), *d2 = json_pack("{si}", "v", 2);
    json_t *ref, *ref2, *copy;

    ddb_err_init(&err);
    st = storage_open(NULL, &err);
    ck_assert_int_eq(storage_table_create(st, "T", d1, 1, &err), 0);
    t = storage_table_get(st, "T");
    copy = stable_desc(t);
    ref = stable_desc_ref(t);
    ck_assert(json_equal(copy, d1));
    ck_assert(json_equal(ref, d1));
    ck_assert_ptr_ne(copy, ref);
    json_object_set_new(copy, "v", json_integer(9));    /* ours to change */
    ck_assert_int_eq(stable_set_desc(t, d2, &err), 0);
    ck_assert(json_equal(ref, d1));                     /* unchanged */
    ref2 = stable_desc_ref(t);
    ck_assert(json_equal(ref2, d2));
    json_decref(ref);
    json_decref(ref2);
    json_decref(copy);
    json_decref(d1);
    json_decref(d2);
    stable_release(t);
}
END_TEST

/* One store per data directory. */
START_TEST(test_storage_dir_locked)
{
    struct ddb_err err;
    struct storage *s2;

    ddb_err_init(&err);
    st = storage_open(tmpdir, &err);
    ck_assert_ptr_nonnull(st);
    s2 = storage_open(tmpdir, &err);
    ck_assert_ptr_null(s2);
    ck_assert_int_eq(err.type, DDB_INTERNAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "in use"));
    storage_close(st);
    st = storage_open(tmpdir, &err);                /* free again */
    ck_assert_ptr_nonnull(st);
}
END_TEST

START_TEST(test_storage_create_duplicate)
{
    struct ddb_err err;
    json_t *names;

    ddb_err_init(&err);
    st = storage_open(tmpdir, &err);
    ck_assert_int_eq(storage_table_create(st, "dup", NULL, 1, &err), 0);
    ck_assert_int_eq(storage_table_create(st, "dup", NULL, 2, &err), -1);
    ck_assert_int_eq(err.type, DDB_RESOURCE_IN_USE);
    ck_assert_str_eq(err.msg, "Table already exists: dup");
    ddb_err_clear(&err);
    ck_assert_int_eq(storage_table_delete(st, "nope", &err), -1);
    ck_assert_int_eq(err.type, DDB_RESOURCE_NOT_FOUND);
    names = storage_table_names(st);
    ck_assert_uint_eq(json_array_size(names), 1);
    json_decref(names);
}
END_TEST

/* A table deleted while a handle is held: the name is free at once, the
 * handle keeps working, the files go with the last release. */
START_TEST(test_storage_delete_with_handle)
{
    struct ddb_err err;
    struct stable *old, *fresh;
    char tables[128];

    ddb_err_init(&err);
    st = storage_open(tmpdir, &err);
    snprintf(tables, sizeof(tables), "%s/tables", tmpdir);
    ck_assert_int_eq(storage_table_create(st, "T", NULL, 2, &err), 0);
    old = storage_table_get(st, "T");
    put(old, "k", NULL, 5);
    ck_assert_int_eq(count_dir(tables), 1);

    ck_assert_int_eq(storage_table_delete(st, "T", &err), 0);
    ck_assert_ptr_null(storage_table_get(st, "T"));
    ck_assert_int_eq(get_n(old, "k", NULL), 5);     /* handle still works */
    put(old, "k2", NULL, 6);

    ck_assert_int_eq(storage_table_create(st, "T", NULL, 2, &err), 0);
    fresh = storage_table_get(st, "T");
    ck_assert_ptr_nonnull(fresh);
    ck_assert_ptr_ne(fresh, old);
    ck_assert_int_eq(get_n(fresh, "k", NULL), -1);
    ck_assert_int_eq(count_dir(tables), 2);

    stable_release(old);                            /* files removed now */
    ck_assert_int_eq(count_dir(tables), 1);
    ck_assert_int_eq(get_n(fresh, "k", NULL), -1);
    stable_release(fresh);

    /* reopen: only the new table */
    storage_close(st);
    st = storage_open(tmpdir, &err);
    ck_assert_ptr_nonnull(st);
    fresh = storage_table_get(st, "T");
    ck_assert_ptr_nonnull(fresh);
    ck_assert_int_eq(get_n(fresh, "k", NULL), -1);
    stable_release(fresh);
}
END_TEST

/* Files no catalog row names (an interrupted create or split) are removed
 * at open. */
START_TEST(test_storage_sweeps_orphans)
{
    struct ddb_err err;
    struct stable *t;
    char path[256], tables[128];
    FILE *f;

    ddb_err_init(&err);
    st = storage_open(tmpdir, &err);
    ck_assert_int_eq(storage_table_create(st, "T", NULL, 1, &err), 0);
    t = storage_table_get(st, "T");
    put(t, "k", NULL, 1);
    stable_release(t);
    storage_close(st);
    st = NULL;

    snprintf(tables, sizeof(tables), "%s/tables", tmpdir);
    snprintf(path, sizeof(path), "%s/deadbeefdeadbeef", tables);
    ck_assert_int_eq(mkdir(path, 0755), 0);
    snprintf(path, sizeof(path), "%s/deadbeefdeadbeef/x.db", tables);
    f = fopen(path, "w");
    fclose(f);
    snprintf(path, sizeof(path), "%s/notes", tables);   /* not ours */
    ck_assert_int_eq(mkdir(path, 0755), 0);
    ck_assert_int_eq(count_dir(tables), 3);

    st = storage_open(tmpdir, &err);
    ck_assert_ptr_nonnull(st);
    ck_assert_int_eq(count_dir(tables), 2);
    ck_assert_int_eq(access(path, F_OK), 0);
    t = storage_table_get(st, "T");
    ck_assert_int_eq(get_n(t, "k", NULL), 1);
    stable_release(t);
}
END_TEST

/* ------------------------------------------------------------------------
 * Mutate
 * ---------------------------------------------------------------------- */

START_TEST(test_storage_mutate)
{
    struct ddb_err err;
    struct item_key k;
    struct stable *t;
    json_t *v2 = mk_item("p", "s", 2);
    uint64_t count, bytes;

    ddb_err_init(&err);
    st = storage_open(_i ? NULL : tmpdir, &err);
    ck_assert_int_eq(storage_table_create(st, "T", NULL, 4, &err), 0);
    t = storage_table_get(st, "T");
    fixture_skey(&k, "p", "s");

    /* failing fn on an absent row: still absent */
    ck_assert_int_eq(stable_mutate(t, &k, fixture_fail_fn, v2, &err), -1);
    ck_assert_int_eq(err.type, DDB_CONDITIONAL_CHECK_FAILED);
    ddb_err_clear(&err);
    ck_assert_int_eq(get_n(t, "p", "s"), -1);

    put(t, "p", "s", 1);
    ck_assert_int_eq(get_n(t, "p", "s"), 1);
    /* failing fn on a present row: untouched */
    ck_assert_int_eq(stable_mutate(t, &k, fixture_fail_fn, v2, &err), -1);
    ddb_err_clear(&err);
    ck_assert_int_eq(get_n(t, "p", "s"), 1);
    /* keep */
    ck_assert_int_eq(stable_mutate(t, &k, fixture_keep_fn, NULL, &err), 0);
    ck_assert_int_eq(get_n(t, "p", "s"), 1);
    /* replace */
    ck_assert_int_eq(stable_mutate(t, &k, fixture_put_fn, v2, &err), 0);
    ck_assert_int_eq(get_n(t, "p", "s"), 2);
    /* the store works after a failure (no transaction left open) */
    ck_assert_int_eq(stable_stats(t, &count, &bytes, &err), 0);
    ck_assert_uint_eq(count, 1);
    ck_assert_uint_eq(bytes, 10);
    /* delete, and delete of an absent row */
    ck_assert_int_eq(stable_mutate(t, &k, fixture_del_fn, NULL, &err), 0);
    ck_assert_int_eq(get_n(t, "p", "s"), -1);
    ck_assert_int_eq(stable_mutate(t, &k, fixture_del_fn, NULL, &err), 0);
    ck_assert_int_eq(stable_stats(t, &count, &bytes, &err), 0);
    ck_assert_uint_eq(count, 0);
    ck_assert_uint_eq(bytes, 0);
    stable_release(t);
    json_decref(v2);
}
END_TEST

/* Keys with no sort key (empty sk), binary keys with NUL and 0xFF bytes,
 * and strings with NUL characters survive the round trip. */
START_TEST(test_storage_binary_keys)
{
    static const uint8_t pk[] = { 0x00, 0xFF, 0x00 }, sk[] = { 0xFF, 0xFF };
    struct ddb_err err;
    struct item_key k;
    struct stable *t;
    json_t *item = json_pack("{s{s s#}}", "a", "S", "x\0y", (int)3), *got;

    ddb_err_init(&err);
    st = storage_open(NULL, &err);
    ck_assert_int_eq(storage_table_create(st, "T", NULL, 2, &err), 0);
    t = storage_table_get(st, "T");
    fixture_key(&k, pk, sizeof(pk), sk, sizeof(sk));
    ck_assert_int_eq(stable_mutate(t, &k, fixture_put_fn, item, &err), 0);
    ck_assert_int_eq(stable_get(t, &k, &got, &err), 0);
    ck_assert_ptr_nonnull(got);
    ck_assert(json_equal(got, item));
    json_decref(got);
    k.sk_len = 1;                                   /* a different key */
    ck_assert_int_eq(stable_get(t, &k, &got, &err), 0);
    ck_assert_ptr_null(got);
    stable_release(t);
    json_decref(item);
}
END_TEST

/* ------------------------------------------------------------------------
 * Query
 * ---------------------------------------------------------------------- */

static struct stable *
query_table(void)
{
    struct ddb_err err;
    struct stable *t;
    char sk[16];

    ddb_err_init(&err);
    st = storage_open(NULL, &err);
    ck_assert_int_eq(storage_table_create(st, "Q", NULL, 4, &err), 0);
    t = storage_table_get(st, "Q");
    for (int i = 0; i < 100; i++) {
        snprintf(sk, sizeof(sk), "k%03d", i);
        put(t, "p", sk, i);
    }
    put(t, "other", "k050", 0);                     /* another pk */
    return t;
}

#define B(s) (const uint8_t *)(s), strlen(s)

/* The hash of S partition key s (valid until the next call). */
static const uint8_t *
h_of(const char *s)
{
    static uint8_t h[16];

    key_pk_hash('S', (const uint8_t *)s, strlen(s), h);
    return h;
}

static int
run_query(struct stable *t, const struct sk_range *r, bool fwd,
          const char *start, struct collect *c)
{
    struct ddb_err err;
    int rc;

    ddb_err_init(&err);
    rc = stable_query(t, h_of("p"), (const uint8_t *)"p", 1, r, fwd,
                      (const uint8_t *)start, start ? strlen(start) : 0,
                      collect_fn, c, &err);
    ck_assert_int_eq(rc, 0);
    return c->count;
}

START_TEST(test_storage_query_ranges)
{
    struct stable *t = query_table();
    struct collect *c;
    struct sk_range r;

    c = collect_new(0);                             /* all, forward */
    ck_assert_int_eq(run_query(t, NULL, true, NULL, c), 100);
    ck_assert_str_eq(c->keys[0], "p/k000");
    ck_assert_str_eq(c->keys[99], "p/k099");
    free(c);

    c = collect_new(0);                             /* all, reverse */
    ck_assert_int_eq(run_query(t, NULL, false, NULL, c), 100);
    ck_assert_str_eq(c->keys[0], "p/k099");
    ck_assert_str_eq(c->keys[99], "p/k000");
    free(c);

    memset(&r, 0, sizeof(r));                       /* sk > k010 */
    r.lo = (const uint8_t *)"k010";
    r.lo_len = 4;
    c = collect_new(0);
    ck_assert_int_eq(run_query(t, &r, true, NULL, c), 89);
    ck_assert_str_eq(c->keys[0], "p/k011");
    free(c);
    r.lo_incl = true;                               /* sk >= k010 */
    c = collect_new(0);
    ck_assert_int_eq(run_query(t, &r, true, NULL, c), 90);
    ck_assert_str_eq(c->keys[0], "p/k010");
    free(c);

    memset(&r, 0, sizeof(r));                       /* sk < k010 */
    r.hi = (const uint8_t *)"k010";
    r.hi_len = 4;
    c = collect_new(0);
    ck_assert_int_eq(run_query(t, &r, false, NULL, c), 10);
    ck_assert_str_eq(c->keys[0], "p/k009");
    free(c);
    r.hi_incl = true;                               /* sk <= k010 */
    c = collect_new(0);
    ck_assert_int_eq(run_query(t, &r, false, NULL, c), 11);
    ck_assert_str_eq(c->keys[0], "p/k010");
    free(c);

    /* BETWEEN k020 AND k029 (both inclusive) */
    r.lo = (const uint8_t *)"k020";
    r.lo_len = 4;
    r.lo_incl = true;
    r.hi = (const uint8_t *)"k029";
    r.hi_incl = true;
    c = collect_new(0);
    ck_assert_int_eq(run_query(t, &r, true, NULL, c), 10);
    ck_assert_str_eq(c->keys[9], "p/k029");
    free(c);
    /* with exclusive start, both directions */
    c = collect_new(0);
    ck_assert_int_eq(run_query(t, &r, true, "k025", c), 4);
    ck_assert_str_eq(c->keys[0], "p/k026");
    free(c);
    c = collect_new(0);
    ck_assert_int_eq(run_query(t, &r, false, "k025", c), 5);
    ck_assert_str_eq(c->keys[0], "p/k024");
    ck_assert_str_eq(c->keys[4], "p/k020");
    free(c);
    /* empty range: lo > hi */
    r.lo = (const uint8_t *)"k030";
    c = collect_new(0);
    ck_assert_int_eq(run_query(t, &r, true, NULL, c), 0);
    free(c);

    /* begins_with */
    memset(&r, 0, sizeof(r));
    r.prefix = (const uint8_t *)"k01";
    r.prefix_len = 3;
    c = collect_new(0);
    ck_assert_int_eq(run_query(t, &r, true, NULL, c), 10);
    ck_assert_str_eq(c->keys[0], "p/k010");
    ck_assert_str_eq(c->keys[9], "p/k019");
    free(c);
    c = collect_new(0);
    ck_assert_int_eq(run_query(t, &r, false, "k015", c), 5);
    ck_assert_str_eq(c->keys[0], "p/k014");
    free(c);
    r.prefix = (const uint8_t *)"k";
    r.prefix_len = 1;
    c = collect_new(0);
    ck_assert_int_eq(run_query(t, &r, true, NULL, c), 100);
    free(c);

    /* paging: stop after 7, resume from the last key */
    c = collect_new(7);
    ck_assert_int_eq(run_query(t, NULL, true, NULL, c), 7);
    ck_assert_str_eq(c->keys[6], "p/k006");
    free(c);
    c = collect_new(0);
    ck_assert_int_eq(run_query(t, NULL, true, "k006", c), 93);
    free(c);

    /* absent partition key */
    {
        struct ddb_err err;

        c = collect_new(0);
        ck_assert_int_eq(stable_query(t, h_of("nope"), B("nope"), NULL, true, NULL, 0,
                                      collect_fn, c, &err), 0);
        ck_assert_int_eq(c->count, 0);
        free(c);
    }
    stable_release(t);
}
END_TEST

/* Items written with item_codec's key_set() are found by stable_query()
 * given the same hash. */
START_TEST(test_storage_query_key_set_compat)
{
    struct ddb_err err;
    struct item_key k;
    struct stable *t;
    struct collect *c = collect_new(0);
    json_t *item = mk_item("user#1", "a", 1);

    ddb_err_init(&err);
    st = storage_open(NULL, &err);
    ck_assert_int_eq(storage_table_create(st, "T", NULL, 8, &err), 0);
    t = storage_table_get(st, "T");
    key_set(&k, 'S', (const uint8_t *)"user#1", 6, (const uint8_t *)"a", 1);
    ck_assert_uint_eq(stable_part_of(t, k.hash),
                      (unsigned)(key_hash64(k.hash) >> 61));
    ck_assert_int_eq(stable_mutate(t, &k, fixture_put_fn, item, &err), 0);
    ck_assert_int_eq(stable_query(t, h_of("user#1"), B("user#1"), NULL, true, NULL, 0,
                                  collect_fn, c, &err), 0);
    ck_assert_int_eq(c->count, 1);
    ck_assert_str_eq(c->keys[0], "user#1/a");
    free(c);
    json_decref(item);
    stable_release(t);
}
END_TEST

/* begins_with on binary sort keys around 0xFF. */
START_TEST(test_storage_query_prefix_ff)
{
    static const uint8_t sks[][3] = {
        { 0x01, 0xFE, 0x00 }, { 0x01, 0xFF, 0x00 }, { 0x01, 0xFF, 0xFF },
        { 0x02, 0x00, 0x00 }, { 0xFF, 0xFF, 0x00 }, { 0xFF, 0xFF, 0xFF },
    };
    static const uint8_t pfx1[] = { 0x01, 0xFF }, pfx2[] = { 0xFF, 0xFF };
    struct ddb_err err;
    struct stable *t;
    struct collect *c;
    struct sk_range r;

    ddb_err_init(&err);
    st = storage_open(NULL, &err);
    ck_assert_int_eq(storage_table_create(st, "T", NULL, 1, &err), 0);
    t = storage_table_get(st, "T");
    for (size_t i = 0; i < sizeof(sks) / sizeof(sks[0]); i++) {
        struct item_key k;
        json_t *item = mk_item("p", "x", (long)i);

        fixture_key(&k, "p", 1, sks[i], 3);
        ck_assert_int_eq(stable_mutate(t, &k, fixture_put_fn, item, &err), 0);
        json_decref(item);
    }
    memset(&r, 0, sizeof(r));
    r.prefix = pfx1;
    r.prefix_len = 2;
    c = collect_new(0);
    ck_assert_int_eq(stable_query(t, h_of("p"), B("p"), &r, true, NULL, 0, collect_fn,
                                  c, &err), 0);
    ck_assert_int_eq(c->count, 2);
    free(c);
    r.prefix = pfx2;                                /* all 0xFF: no upper */
    c = collect_new(0);
    ck_assert_int_eq(stable_query(t, h_of("p"), B("p"), &r, false, NULL, 0, collect_fn,
                                  c, &err), 0);
    ck_assert_int_eq(c->count, 2);
    ck_assert_int_eq(c->last.sk[2], 0x00);          /* reverse: FFFF00 last */
    free(c);
    stable_release(t);
}
END_TEST

/* ------------------------------------------------------------------------
 * Scan
 * ---------------------------------------------------------------------- */

static struct stable *
scan_table(unsigned nparts, int nitems)
{
    struct ddb_err err;
    struct stable *t;
    char pk[16];

    ddb_err_init(&err);
    st = storage_open(tmpdir, &err);
    ck_assert_int_eq(storage_table_create(st, "S", NULL, nparts, &err), 0);
    t = storage_table_get(st, "S");
    for (int i = 0; i < nitems; i++) {
        snprintf(pk, sizeof(pk), "pk%d", i);
        put(t, pk, "a", i);
        if (i % 10 == 0)
            put(t, pk, "b", i);
    }
    return t;
}

static int
key_cmp(const struct item_key *a, const struct item_key *b)
{
    int c = memcmp(a->hash, b->hash, 16);

    if (c == 0) {
        size_t n = a->pk_len < b->pk_len ? a->pk_len : b->pk_len;

        c = memcmp(a->pk, b->pk, n);
        if (c == 0 && a->pk_len != b->pk_len)
            c = a->pk_len < b->pk_len ? -1 : 1;
    }
    if (c == 0) {
        size_t n = a->sk_len < b->sk_len ? a->sk_len : b->sk_len;

        c = memcmp(a->sk, b->sk, n);
        if (c == 0 && a->sk_len != b->sk_len)
            c = a->sk_len < b->sk_len ? -1 : 1;
    }
    return c;
}

/* Checks order and partition monotonicity. */
struct order {
    struct stable *t;
    int count, limit;
    bool have;
    struct item_key prev;
    unsigned prev_part;
    uint64_t lo, hi;
};

static int
order_fn(void *arg, const struct item_key *k, const json_t *item,
         size_t size, struct ddb_err *err)
{
    struct order *o = arg;
    unsigned part = stable_part_of(o->t, k->hash);

    (void)item;
    (void)err;
    ck_assert(size == 10 || size == 12);
    ck_assert(top64(k->hash) >= o->lo && top64(k->hash) <= o->hi);
    if (o->have) {
        ck_assert_int_lt(key_cmp(&o->prev, k), 0);
        ck_assert_uint_ge(part, o->prev_part);
    }
    o->have = true;
    o->prev = *k;
    o->prev_part = part;
    o->count++;
    return o->limit > 0 && o->count % o->limit == 0 ? 1 : 0;
}

START_TEST(test_storage_scan_order_and_resume)
{
    struct stable *t = scan_table(4, 300);          /* 330 rows */
    struct ddb_err err;
    struct order *o = calloc(1, sizeof(*o));
    int pages = 0, prev;

    ddb_err_init(&err);
    o->t = t;
    o->hi = UINT64_MAX;
    ck_assert_int_eq(stable_scan(t, 0, UINT64_MAX, NULL, order_fn, o, &err),
                     0);
    ck_assert_int_eq(o->count, 330);
    ck_assert_uint_eq(o->prev_part, 3);

    /* pages of 37 rows, resumed from the last key, same order */
    memset(o, 0, sizeof(*o));
    o->t = t;
    o->hi = UINT64_MAX;
    o->limit = 37;
    ck_assert_int_eq(stable_scan(t, 0, UINT64_MAX, NULL, order_fn, o, &err),
                     0);
    do {
        struct item_key start = o->prev;

        prev = o->count;
        pages++;
        ck_assert_int_eq(stable_scan(t, 0, UINT64_MAX, &start, order_fn, o,
                                     &err), 0);
    } while (o->count != prev);
    ck_assert_int_eq(o->count, 330);
    ck_assert_int_eq(pages, 9);                     /* 8 full + 1 empty */
    free(o);
    stable_release(t);
}
END_TEST

/* Parallel-scan style segments: [lo, hi] slices that do not match
 * partition boundaries cover every row exactly once. */
START_TEST(test_storage_scan_segments)
{
    struct stable *t = scan_table(3, 200);          /* 220 rows */
    struct ddb_err err;
    uint64_t cut[6] = { 0 };
    int total = 0;

    ddb_err_init(&err);
    for (int i = 1; i < 5; i++)
        cut[i] = UINT64_MAX / 5 * (uint64_t)i + 12345;
    cut[5] = UINT64_MAX;
    for (int i = 0; i < 5; i++) {
        struct order o;
        uint64_t lo = cut[i] + (i ? 1 : 0), hi = cut[i + 1];

        memset(&o, 0, sizeof(o));
        o.t = t;
        o.lo = lo;
        o.hi = hi;
        ck_assert_int_eq(stable_scan(t, lo, hi, NULL, order_fn, &o, &err), 0);
        /* and resumed from the middle of the segment */
        if (o.count > 2) {
            struct order o2;
            struct order o3;
            struct item_key start;

            memset(&o2, 0, sizeof(o2));
            o2.t = t;
            o2.lo = lo;
            o2.hi = hi;
            o2.limit = o.count / 2;
            ck_assert_int_eq(stable_scan(t, lo, hi, NULL, order_fn, &o2,
                                         &err), 0);
            start = o2.prev;
            memset(&o3, 0, sizeof(o3));
            o3.t = t;
            o3.lo = lo;
            o3.hi = hi;
            ck_assert_int_eq(stable_scan(t, lo, hi, &start, order_fn, &o3,
                                         &err), 0);
            ck_assert_int_eq(o2.count + o3.count, o.count);
        }
        total += o.count;
    }
    ck_assert_int_eq(total, 220);
    stable_release(t);
}
END_TEST

/* ------------------------------------------------------------------------
 * Concurrency
 * ---------------------------------------------------------------------- */

#define NTHREADS 8
#define NINCR 200

struct worker {
    struct stable *t;
    int id;
};

static void *
worker_run(void *arg)
{
    struct worker *w = arg;
    char own[16];

    snprintf(own, sizeof(own), "own%d", w->id);
    for (int i = 0; i < NINCR; i++) {
        struct item_key k;
        struct ddb_err err;
        const char *pk = (i % 2) ? own : "shared";

        ddb_err_init(&err);
        fixture_skey(&k, pk, NULL);
        if (stable_mutate(w->t, &k, incr_fn, (void *)pk, &err) != 0)
            return (void *)1;
    }
    return NULL;
}

START_TEST(test_storage_concurrent_writers)
{
    struct ddb_err err;
    struct stable *t;
    pthread_t th[NTHREADS];
    struct worker w[NTHREADS];
    uint64_t count, bytes;

    ddb_err_init(&err);
    st = storage_open(_i ? NULL : tmpdir, &err);
    ck_assert_int_eq(storage_table_create(st, "C", NULL, 2, &err), 0);
    t = storage_table_get(st, "C");
    for (int i = 0; i < NTHREADS; i++) {
        w[i].t = t;
        w[i].id = i;
        ck_assert_int_eq(pthread_create(&th[i], NULL, worker_run, &w[i]), 0);
    }
    for (int i = 0; i < NTHREADS; i++) {
        void *res;

        pthread_join(th[i], &res);
        ck_assert_ptr_null(res);
    }
    ck_assert_int_eq(get_n(t, "shared", NULL), NTHREADS * NINCR / 2);
    for (int i = 0; i < NTHREADS; i++) {
        char own[16];

        snprintf(own, sizeof(own), "own%d", i);
        ck_assert_int_eq(get_n(t, own, NULL), NINCR / 2);
    }
    ck_assert_int_eq(stable_stats(t, &count, &bytes, &err), 0);
    ck_assert_uint_eq(count, NTHREADS + 1);
    stable_release(t);
}
END_TEST

/* Lookups and table create/delete racing: handles stay valid. */
static void *
lookup_run(void *arg)
{
    struct storage *s = arg;

    for (int i = 0; i < 2000; i++) {
        struct stable *t = storage_table_get(s, "R");

        if (t != NULL) {
            (void)get_n(t, "k", NULL);
            stable_release(t);
        }
    }
    return NULL;
}

START_TEST(test_storage_concurrent_ddl)
{
    struct ddb_err err;
    pthread_t th[4];

    ddb_err_init(&err);
    st = storage_open(tmpdir, &err);
    for (int i = 0; i < 4; i++)
        pthread_create(&th[i], NULL, lookup_run, st);
    for (int i = 0; i < 20; i++) {
        ck_assert_int_eq(storage_table_create(st, "R", NULL, 2, &err), 0);
        ck_assert_int_eq(storage_table_delete(st, "R", &err), 0);
    }
    for (int i = 0; i < 4; i++)
        pthread_join(th[i], NULL);
}
END_TEST

/* ------------------------------------------------------------------------
 * Durability: a write acknowledged before kill -9 is there after reopen.
 * ---------------------------------------------------------------------- */

START_TEST(test_storage_survives_kill9)
{
    struct ddb_err err;
    struct stable *t;
    int fds[2], acked = 0, n;
    pid_t pid;

    ddb_err_init(&err);
    ck_assert_int_eq(pipe(fds), 0);
    pid = fork();
    ck_assert_int_ne(pid, -1);
    if (pid == 0) {                     /* writer: ack each committed put */
        struct storage *cs = storage_open(tmpdir, &err);
        struct stable *ct;
        char pk[32];

        close(fds[0]);
        if (cs == NULL || storage_table_create(cs, "K", NULL, 4, &err) != 0)
            _exit(1);
        ct = storage_table_get(cs, "K");
        for (int i = 0;; i++) {
            snprintf(pk, sizeof(pk), "k%d", i);
            put(ct, pk, NULL, i);
            if (write(fds[1], &i, sizeof(i)) != sizeof(i))
                _exit(1);
        }
    }
    close(fds[1]);
    while (acked < 300 && read(fds[0], &n, sizeof(n)) == sizeof(n))
        acked = n + 1;
    kill(pid, SIGKILL);
    while (read(fds[0], &n, sizeof(n)) == sizeof(n))
        acked = n + 1;                  /* acks sent before the kill */
    waitpid(pid, NULL, 0);
    close(fds[0]);
    ck_assert_int_ge(acked, 300);

    st = storage_open(tmpdir, &err);
    ck_assert_ptr_nonnull(st);
    t = storage_table_get(st, "K");
    ck_assert_ptr_nonnull(t);
    for (int i = 0; i < acked; i++) {
        char pk[32];

        snprintf(pk, sizeof(pk), "k%d", i);
        ck_assert_int_eq(get_n(t, pk, NULL), i);
    }
    stable_release(t);
}
END_TEST

/* ------------------------------------------------------------------------
 * Stats
 * ---------------------------------------------------------------------- */

/* Counts kept by mutate agree with a fresh SQL count after reopen. */
START_TEST(test_storage_stats)
{
    struct ddb_err err;
    struct stable *t;
    struct item_key k;
    uint64_t count, bytes, c2, b2;
    char pk[16];

    ddb_err_init(&err);
    st = storage_open(tmpdir, &err);
    ck_assert_int_eq(storage_table_create(st, "T", NULL, 3, &err), 0);
    t = storage_table_get(st, "T");
    ck_assert_int_eq(stable_stats(t, &count, &bytes, &err), 0);
    ck_assert_uint_eq(count, 0);
    ck_assert_uint_eq(bytes, 0);
    for (int i = 0; i < 50; i++) {
        snprintf(pk, sizeof(pk), "s%d", i);
        put(t, pk, NULL, i);                        /* size 10 */
        if (i % 2) {                                /* replace: size 12 */
            fixture_skey(&k, pk, NULL);
            ck_assert_int_eq(stable_mutate(t, &k, incr_fn, pk, &err), 0);
        }
        if (i % 5 == 0) {
            fixture_skey(&k, pk, NULL);
            ck_assert_int_eq(stable_mutate(t, &k, fixture_del_fn, NULL,
                                           &err), 0);
        }
    }
    /* 50 - 10 deleted = 40 rows; odd ones (25, of which 5 deleted) are 12 */
    ck_assert_int_eq(stable_stats(t, &count, &bytes, &err), 0);
    ck_assert_uint_eq(count, 40);
    ck_assert_uint_eq(bytes, 20 * 12 + 20 * 10);
    stable_release(t);
    storage_close(st);
    st = storage_open(tmpdir, &err);
    t = storage_table_get(st, "T");
    ck_assert_int_eq(stable_stats(t, &c2, &b2, &err), 0);
    ck_assert_uint_eq(c2, count);
    ck_assert_uint_eq(b2, bytes);
    stable_release(t);
}
END_TEST

/* ------------------------------------------------------------------------
 * Splits
 * ---------------------------------------------------------------------- */

static int
count_db_files(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;

    ck_assert_ptr_nonnull(d);
    while ((e = readdir(d)) != NULL) {
        size_t l = strlen(e->d_name);

        if (l > 3 && strcmp(e->d_name + l - 3, ".db") == 0)
            n++;
    }
    closedir(d);
    return n;
}

static void
table_dir(char *out, size_t len)
{
    char tables[100];
    DIR *d;
    struct dirent *e;

    snprintf(tables, sizeof(tables), "%s/tables", tmpdir);
    d = opendir(tables);
    ck_assert_ptr_nonnull(d);
    while ((e = readdir(d)) != NULL)
        if (e->d_name[0] != '.')
            snprintf(out, len, "%s/%.64s", tables, e->d_name);
    closedir(d);
}

START_TEST(test_storage_split)
{
    struct stable *t = scan_table(2, 300);          /* 330 rows */
    struct ddb_err err;
    struct order *o = calloc(1, sizeof(*o));
    uint64_t count, bytes;
    char dir[256], pk[16];

    ddb_err_init(&err);
    table_dir(dir, sizeof(dir));
    ck_assert_int_eq(count_db_files(dir), 2);
    ck_assert_int_eq(stable_split(t, 0, &err), 0);
    ck_assert_uint_eq(stable_nparts(t), 3);
    ck_assert_uint_eq(stable_part_start(t, 0), 0);
    ck_assert_uint_eq(stable_part_start(t, 1), UINT64_C(1) << 62);
    ck_assert_uint_eq(stable_part_start(t, 2), UINT64_C(1) << 63);
    ck_assert_int_eq(count_db_files(dir), 3);
    ck_assert_int_eq(stable_split(t, 2, &err), 0);  /* last one */
    ck_assert_uint_eq(stable_nparts(t), 4);
    ck_assert_uint_eq(stable_part_start(t, 3), UINT64_C(3) << 62);
    ck_assert_int_eq(stable_split(t, 9, &err), -1);
    ddb_err_clear(&err);

    ck_assert_int_eq(stable_stats(t, &count, &bytes, &err), 0);
    ck_assert_uint_eq(count, 330);
    ck_assert_uint_eq(bytes, 3300);
    {
        uint64_t sum = 0, c, b;

        for (unsigned i = 0; i < 4; i++) {
            ck_assert_int_eq(stable_part_stats(t, i, &c, &b, &err), 0);
            ck_assert_uint_eq(b, 10 * c);
            sum += c;
        }
        ck_assert_uint_eq(sum, 330);
        ck_assert_int_eq(stable_part_stats(t, 4, &c, &b, &err), -1);
        ddb_err_clear(&err);
    }
    o->t = t;
    o->hi = UINT64_MAX;
    ck_assert_int_eq(stable_scan(t, 0, UINT64_MAX, NULL, order_fn, o, &err),
                     0);
    ck_assert_int_eq(o->count, 330);
    for (int i = 0; i < 300; i++) {
        snprintf(pk, sizeof(pk), "pk%d", i);
        ck_assert_int_eq(get_n(t, pk, "a"), i);
    }
    stable_release(t);

    /* reopen: the new layout and every row */
    storage_close(st);
    st = storage_open(tmpdir, &err);
    ck_assert_ptr_nonnull(st);
    t = storage_table_get(st, "S");
    ck_assert_uint_eq(stable_nparts(t), 4);
    for (unsigned i = 0; i < 4; i++)
        ck_assert_uint_eq(stable_part_start(t, i), (uint64_t)i << 62);
    for (int i = 0; i < 300; i++) {
        snprintf(pk, sizeof(pk), "pk%d", i);
        ck_assert_int_eq(get_n(t, pk, "a"), i);
    }
    ck_assert_int_eq(count_db_files(dir), 4);
    stable_release(t);
    free(o);
}
END_TEST

START_TEST(test_storage_split_in_memory)
{
    struct ddb_err err;
    struct stable *t;
    char pk[16];

    ddb_err_init(&err);
    st = storage_open(NULL, &err);
    ck_assert_int_eq(storage_table_create(st, "M", NULL, 1, &err), 0);
    t = storage_table_get(st, "M");
    for (int i = 0; i < 100; i++) {
        snprintf(pk, sizeof(pk), "m%d", i);
        put(t, pk, NULL, i);
    }
    for (int r = 0; r < 5; r++)
        ck_assert_int_eq(stable_split(t, 0, &err), 0);
    ck_assert_uint_eq(stable_nparts(t), 6);
    ck_assert_uint_eq(stable_part_start(t, 1), UINT64_C(1) << 59);
    for (int i = 0; i < 100; i++) {
        snprintf(pk, sizeof(pk), "m%d", i);
        ck_assert_int_eq(get_n(t, pk, NULL), i);
    }
    stable_release(t);
}
END_TEST

/* Writers, readers and scanners keep going while partitions split under
 * them: no write is lost, no scan sees a row twice. */
struct split_ctx {
    struct stable *t;
    int id;
    atomic_bool stop;
};

static void *
split_writer(void *arg)
{
    struct worker *w = arg;
    char own[16];

    snprintf(own, sizeof(own), "own%d", w->id);
    for (int i = 0; i < 400; i++) {
        struct item_key k;
        struct ddb_err err;
        const char *pk = (i % 2) ? own : "shared";

        ddb_err_init(&err);
        fixture_skey(&k, pk, NULL);
        if (stable_mutate(w->t, &k, incr_fn, (void *)pk, &err) != 0)
            return (void *)1;
    }
    return NULL;
}

static void *
split_scanner(void *arg)
{
    struct split_ctx *c = arg;

    while (!atomic_load(&c->stop)) {
        struct order o;
        struct ddb_err err;

        memset(&o, 0, sizeof(o));
        o.t = c->t;
        o.hi = UINT64_MAX;
        if (stable_scan(c->t, 0, UINT64_MAX, NULL, order_fn, &o, &err) != 0)
            return (void *)1;
        if (o.count < 100)              /* the 100 fixed rows at least */
            return (void *)2;
    }
    return NULL;
}

START_TEST(test_storage_split_concurrent)
{
    struct ddb_err err;
    struct stable *t;
    pthread_t th[4], sc;
    struct worker w[4];
    struct split_ctx c;
    char pk[16];

    ddb_err_init(&err);
    st = storage_open(_i ? NULL : tmpdir, &err);
    ck_assert_int_eq(storage_table_create(st, "C", NULL, 1, &err), 0);
    t = storage_table_get(st, "C");
    for (int i = 0; i < 100; i++) {
        snprintf(pk, sizeof(pk), "fixed%d", i);
        put(t, pk, "x", i);
    }
    c.t = t;
    atomic_init(&c.stop, false);
    pthread_create(&sc, NULL, split_scanner, &c);
    for (int i = 0; i < 4; i++) {
        w[i].t = t;
        w[i].id = i;
        pthread_create(&th[i], NULL, split_writer, &w[i]);
    }
    for (int r = 0; r < 12; r++) {
        ck_assert_int_eq(stable_split(t, (unsigned)r % stable_nparts(t),
                                      &err), 0);
        usleep(1000);
    }
    for (int i = 0; i < 4; i++) {
        void *res;

        pthread_join(th[i], &res);
        ck_assert_ptr_null(res);
    }
    atomic_store(&c.stop, true);
    {
        void *res;

        pthread_join(sc, &res);
        ck_assert_ptr_null(res);
    }
    ck_assert_uint_eq(stable_nparts(t), 13);
    ck_assert_int_eq(get_n(t, "shared", NULL), 4 * 200);
    for (int i = 0; i < 4; i++) {
        snprintf(pk, sizeof(pk), "own%d", i);
        ck_assert_int_eq(get_n(t, pk, NULL), 200);
    }
    for (int i = 0; i < 100; i++) {
        snprintf(pk, sizeof(pk), "fixed%d", i);
        ck_assert_int_eq(get_n(t, pk, "x"), i);
    }
    stable_release(t);
}
END_TEST

/* A partition file the catalog does not list (a split cut short) is
 * removed at open; the live ones stay. */
START_TEST(test_storage_sweeps_stray_partition)
{
    struct ddb_err err;
    struct stable *t;
    char dir[256], path[300];
    FILE *f;

    ddb_err_init(&err);
    st = storage_open(tmpdir, &err);
    ck_assert_int_eq(storage_table_create(st, "T", NULL, 2, &err), 0);
    t = storage_table_get(st, "T");
    put(t, "k", NULL, 3);
    stable_release(t);
    storage_close(st);
    table_dir(dir, sizeof(dir));
    snprintf(path, sizeof(path), "%s/0123456789abcdef.db", dir);
    f = fopen(path, "w");
    fclose(f);
    snprintf(path, sizeof(path), "%s/0123456789abcdef.db-wal", dir);
    f = fopen(path, "w");
    fclose(f);
    st = storage_open(tmpdir, &err);
    ck_assert_ptr_nonnull(st);
    ck_assert_int_eq(count_db_files(dir), 2);
    ck_assert_int_ne(access(path, F_OK), 0);        /* stray -wal gone */
    t = storage_table_get(st, "T");
    ck_assert_int_eq(get_n(t, "k", NULL), 3);
    stable_release(t);
}
END_TEST

static Suite *
storage_suite(void)
{
    Suite *s = suite_create("storage");
    TCase *tc;

    tc = tcase_create("catalog");
    tcase_add_checked_fixture(tc, fixture_setup, fixture_teardown);
    /* catalog commits are fsynced (synchronous=FULL) and each store
     * opened makes its catalog and backup catalog durable: seconds on a
     * loaded machine */
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_storage_persists_across_reopen);
    tcase_add_test(tc, test_storage_in_memory);
    tcase_add_test(tc, test_storage_create_duplicate);
    tcase_add_test(tc, test_storage_delete_with_handle);
    tcase_add_test(tc, test_storage_sweeps_orphans);
    tcase_add_test(tc, test_storage_dir_locked);
    tcase_add_test(tc, test_storage_desc);
    suite_add_tcase(s, tc);

    tc = tcase_create("mutate");
    tcase_add_checked_fixture(tc, fixture_setup, fixture_teardown);
    tcase_add_loop_test(tc, test_storage_mutate, 0, 2);  /* disk, memory */
    tcase_add_test(tc, test_storage_binary_keys);
    suite_add_tcase(s, tc);

    tc = tcase_create("query");
    tcase_add_checked_fixture(tc, fixture_setup, fixture_teardown);
    tcase_add_test(tc, test_storage_query_ranges);
    tcase_add_test(tc, test_storage_query_prefix_ff);
    tcase_add_test(tc, test_storage_query_key_set_compat);
    suite_add_tcase(s, tc);

    tc = tcase_create("scan");
    tcase_add_checked_fixture(tc, fixture_setup, fixture_teardown);
    tcase_add_test(tc, test_storage_scan_order_and_resume);
    tcase_add_test(tc, test_storage_scan_segments);
    suite_add_tcase(s, tc);

    tc = tcase_create("concurrency");
    tcase_add_checked_fixture(tc, fixture_setup, fixture_teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, test_storage_concurrent_writers, 0, 2);
    tcase_add_test(tc, test_storage_concurrent_ddl);
    suite_add_tcase(s, tc);

    tc = tcase_create("stats");
    tcase_add_checked_fixture(tc, fixture_setup, fixture_teardown);
    tcase_add_test(tc, test_storage_stats);
    suite_add_tcase(s, tc);

    tc = tcase_create("split");
    tcase_add_checked_fixture(tc, fixture_setup, fixture_teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_storage_split);
    tcase_add_test(tc, test_storage_split_in_memory);
    tcase_add_loop_test(tc, test_storage_split_concurrent, 0, 2);
    tcase_add_test(tc, test_storage_sweeps_stray_partition);
    suite_add_tcase(s, tc);

    tc = tcase_create("durability");
    tcase_add_checked_fixture(tc, fixture_setup, fixture_teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_storage_survives_kill9);
    suite_add_tcase(s, tc);
    return s;
}

int
main(void)
{
    SRunner *sr = srunner_create(storage_suite());
    int failed;

    srunner_run_all(sr, CK_ENV);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
