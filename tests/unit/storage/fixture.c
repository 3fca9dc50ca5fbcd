/* SPDX-License-Identifier: MIT */
/* fixture.c - the store suites' shared set-up and helpers (fixture.h): a
 * temporary directory named after the suite, removed with its contents
 * after each test, and keys, tables and items built without api/. */
#include <check.h>
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "storage/partition_int.h"
#include "tests/unit/storage/fixture.h"

char tmpdir[64];
struct storage *st;

static int
rm_cb(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path);
}

void
fixture_setup(void)
{
    snprintf(tmpdir, sizeof(tmpdir), "/tmp/%s.XXXXXX",
             program_invocation_short_name);
    ck_assert_ptr_nonnull(mkdtemp(tmpdir));
    st = NULL;
}

void
fixture_teardown(void)
{
    storage_close(st);
    st = NULL;
    nftw(tmpdir, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
}

void
fixture_key(struct item_key *k, const void *pk, size_t pk_len,
            const void *sk, size_t sk_len)
{
    memset(k, 0, sizeof(*k));
    key_set(k, 'S', pk, pk_len, sk, sk_len);
}

void
fixture_skey(struct item_key *k, const char *pk, const char *sk)
{
    fixture_key(k, pk, strlen(pk), sk, sk ? strlen(sk) : 0);
}

struct stable *
fixture_table(const char *name, unsigned nparts)
{
    struct ddb_err err;
    json_t *desc = json_pack("{s:s}", "TableName", name);

    ddb_err_init(&err);
    ck_assert_int_eq(storage_table_create(st, name, desc, nparts, &err), 0);
    json_decref(desc);
    return storage_table_get(st, name);
}

void
fixture_skey_elsewhere(struct stable *t, const uint8_t hash[16], char *pk,
                       size_t cap, struct item_key *k)
{
    for (int i = 0; i < 100; i++) {
        snprintf(pk, cap, "b%d", i);
        fixture_skey(k, pk, NULL);
        if (stable_part_of(t, k->hash) != stable_part_of(t, hash))
            return;
    }
    ck_abort_msg("no key on another partition");
}

long
fixture_num(const json_t *item, const char *attr)
{
    if (item == NULL)
        return -1;
    return atol(json_string_value(
        json_object_get(json_object_get(item, attr), "N")));
}

long
fixture_get_num(struct stable *t, const char *pk, const char *sk,
                const char *attr)
{
    struct item_key k;
    struct ddb_err err;
    json_t *item = NULL;
    long n;

    ddb_err_init(&err);
    fixture_skey(&k, pk, sk);
    ck_assert_int_eq(stable_get(t, &k, &item, &err), 0);
    n = fixture_num(item, attr);
    json_decref(item);
    return n;
}

int
fixture_put_num_fn(void *arg, const json_t *old, size_t old_size,
                   json_t **new_item, size_t *new_size, bool *keep,
                   struct ddb_err *err)
{
    const struct fixture_num_arg *a = arg;
    char num[32];

    (void)old;
    (void)keep;
    (void)err;
    snprintf(num, sizeof(num), "%ld", a->v);
    *new_item = json_pack("{s:{s:s}, s:{s:s}}", "pk", "S", a->pk, a->attr,
                          "N", num);
    *new_size = 2 + strlen(a->pk) + strlen(a->attr) + strlen(num);
    return 0;
}

int
fixture_add_num_fn(void *arg, const json_t *old, size_t old_size,
                   json_t **new_item, size_t *new_size, bool *keep,
                   struct ddb_err *err)
{
    const struct fixture_num_arg *a = arg;
    struct fixture_num_arg sum = { a->pk, a->attr, a->v };

    if (old != NULL)
        sum.v += fixture_num(old, a->attr);
    return fixture_put_num_fn(&sum, old, old_size, new_item, new_size, keep,
                              err);
}

void
fixture_put_num(struct stable *t, const char *pk, const char *attr, long v)
{
    struct fixture_num_arg a = { pk, attr, v };
    struct item_key k;
    struct ddb_err err;

    ddb_err_init(&err);
    fixture_skey(&k, pk, NULL);
    ck_assert_int_eq(stable_mutate(t, &k, fixture_put_num_fn, &a, &err), 0);
}

int
fixture_del_fn(void *arg, const json_t *old, size_t old_size,
               json_t **new_item, size_t *new_size, bool *keep,
               struct ddb_err *err)
{
    (void)arg;
    (void)old;
    (void)new_item;
    (void)new_size;
    (void)keep;
    (void)err;
    return 0;
}

int
fixture_put_fn(void *arg, const json_t *old, size_t old_size,
               json_t **new_item, size_t *new_size, bool *keep,
               struct ddb_err *err)
{
    (void)old;
    (void)keep;
    (void)err;
    if (arg != NULL) {
        *new_item = json_incref((json_t *)arg);
        *new_size = 10;
    }
    return 0;
}

int
fixture_keep_fn(void *arg, const json_t *old, size_t old_size,
                json_t **new_item, size_t *new_size, bool *keep,
                struct ddb_err *err)
{
    (void)arg;
    (void)old;
    (void)new_item;
    (void)new_size;
    (void)err;
    *keep = true;
    return 0;
}

int
fixture_fail_fn(void *arg, const json_t *old, size_t old_size,
                json_t **new_item, size_t *new_size, bool *keep,
                struct ddb_err *err)
{
    (void)old;
    (void)keep;
    *new_item = json_incref((json_t *)arg);
    *new_size = 10;
    return ddb_err_set(err, DDB_CONDITIONAL_CHECK_FAILED,
                       "The conditional request failed");
}

/* The switch's description: its marker, and the marks for the caller. */
struct marks {
    uint64_t seq, ms;
};

static json_t *
mark_fn(void *arg, uint64_t seq, uint64_t ms, struct ddb_err *err)
{
    struct marks *m = arg;

    (void)err;
    m->seq = seq;
    m->ms = ms;
    return json_pack("{s:I}", "marker", (json_int_t)seq);
}

void
fixture_log_switch(struct stable *t, bool on, uint64_t *seq, uint64_t *ms)
{
    struct marks m = { 0, 0 };
    struct ddb_err err;

    ddb_err_init(&err);
    ck_assert_int_eq(stable_log_switch(t, on, 0, mark_fn, &m, &err), 0);
    ck_assert(stable_log_on(t) == on);
    if (seq != NULL)
        *seq = m.seq;
    if (ms != NULL)
        *ms = m.ms;
}

struct partition *
fixture_checkpoint_hold(struct stable *t, const uint8_t hash[16])
{
    struct partition *p = stable_partition(t, hash);

    partition_lock(p);
    /* commits of the test's own on the partition's connection, until the
     * WAL hook queues it (the flag is set on this thread, and the thread
     * clears it only with the lock this thread holds) */
    for (int i = 0; i < 10000 && !p->ckpt_queued; i++) {
        char sql[96];

        snprintf(sql, sizeof(sql), "INSERT OR REPLACE INTO log_meta "
                 "VALUES ('fixture', %d)", i);
        ck_assert_int_eq(sqlite3_exec(p->db, sql, NULL, NULL, NULL),
                         SQLITE_OK);
    }
    ck_assert_msg(p->ckpt_queued, "the WAL was never queued");
    for (int i = 0; i < 500 && !partition_checkpointing(p); i++)
        usleep(10000);                  /* the thread's presync */
    ck_assert_msg(partition_checkpointing(p),
                  "the checkpoint thread never came for the lock");
    return p;
}

void
fixture_checkpoint_release(struct partition *p)
{
    partition_unlock(p);
}
