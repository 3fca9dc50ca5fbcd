/* SPDX-License-Identifier: MIT */
/* fixture.h - what the store's suites (check_storage.c, check_txn.c)
 * share: a fresh temporary directory per test with the store opened in it
 * closed and removed afterwards, and keys, tables and items built without
 * api/. Linked into each of those suites (fixture.c). */
#ifndef SHARDLOCAL_TEST_FIXTURE_H
#define SHARDLOCAL_TEST_FIXTURE_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "storage/storage.h"

extern char tmpdir[64];             /* /tmp/<suite>.XXXXXX, per test */
extern struct storage *st;          /* the test opens it; tear-down closes */

/* tcase_add_checked_fixture() pair: make tmpdir (st NULL); close st and
 * remove tmpdir with everything in it. */
void fixture_setup(void);
void fixture_teardown(void);

/* k from raw partition and sort key bytes (sk_len 0: no sort key), hashed
 * as an S key (key_set); the rest of k zeroed. */
void fixture_key(struct item_key *k, const void *pk, size_t pk_len,
                 const void *sk, size_t sk_len);
/* The same from strings; sk NULL for none. */
void fixture_skey(struct item_key *k, const char *pk, const char *sk);

/* Create table name with nparts partitions in st; a new handle to it. */
struct stable *fixture_table(const char *name, unsigned nparts);
/* A partition key ("b0", "b1", ...) whose item lives in t on another
 * partition than hash's, into pk (cap bytes) and *k (an S key); fails the
 * test when none of the first hundred does. */
void fixture_skey_elsewhere(struct stable *t, const uint8_t hash[16],
                            char *pk, size_t cap, struct item_key *k);

/* N attribute attr of item as a long; -1 if item is NULL. */
long fixture_num(const json_t *item, const char *attr);
/* fixture_num() of the stored item (pk, sk) of t; -1 if absent. */
long fixture_get_num(struct stable *t, const char *pk, const char *sk,
                     const char *attr);

/* stable_mutate_fn that stores {pk: S pk, attr: N v} (arg: a struct
 * fixture_num_arg); fixture_put_num() does so in t (no sort key). */
struct fixture_num_arg {
    const char *pk, *attr;
    long v;
};
int fixture_put_num_fn(void *arg, const json_t *old, size_t old_size,
                       json_t **new_item, size_t *new_size, bool *keep,
                       struct ddb_err *err);
/* The same adding v to the stored number (to 0 when there is none). */
int fixture_add_num_fn(void *arg, const json_t *old, size_t old_size,
                       json_t **new_item, size_t *new_size, bool *keep,
                       struct ddb_err *err);
void fixture_put_num(struct stable *t, const char *pk, const char *attr,
                     long v);

/* stable_mutate_fn that deletes the item. */
int fixture_del_fn(void *arg, const json_t *old, size_t old_size,
                   json_t **new_item, size_t *new_size, bool *keep,
                   struct ddb_err *err);
/* stable_mutate_fns: store arg (an item; NULL deletes) as 10 bytes; leave
 * the row alone; propose arg, then fail with ConditionalCheckFailed (so
 * nothing may be written). */
int fixture_put_fn(void *arg, const json_t *old, size_t old_size,
                   json_t **new_item, size_t *new_size, bool *keep,
                   struct ddb_err *err);
int fixture_keep_fn(void *arg, const json_t *old, size_t old_size,
                    json_t **new_item, size_t *new_size, bool *keep,
                    struct ddb_err *err);
int fixture_fail_fn(void *arg, const json_t *old, size_t old_size,
                    json_t **new_item, size_t *new_size, bool *keep,
                    struct ddb_err *err);

/* With st opened with checkpoint_pages, lock the partition of hash (in
 * t) and commit on it until its WAL is queued for a checkpoint, then wait
 * (at most 5 s) until the checkpoint thread waits for that lock: the
 * state a checkpoint holding the partition shows everyone else. The
 * partition, still locked: fixture_checkpoint_release() lets the thread
 * in. */
struct partition *fixture_checkpoint_hold(struct stable *t,
                                          const uint8_t hash[16]);
void fixture_checkpoint_release(struct partition *p);

/* Switch t's change log on or off (stable_log_switch) with an empty
 * description; *seq and *ms (may be NULL) receive the marker and the
 * birth time. */
void fixture_log_switch(struct stable *t, bool on, uint64_t *seq,
                        uint64_t *ms);

#endif
