/* SPDX-License-Identifier: MIT */
/* check_txn_inflight.c - the registry of items held by in-flight
 * transactions (api/ops/txn_inflight.c): all-or-none registration, conflict
 * flags, owners kept apart, release, the single-item check's error, and
 * the tests' pause rules. */
#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/proto/error.h"
#include "api/ops/txn_inflight.h"

/* ------------------------------------------------------------------------
 * Helpers
 * ---------------------------------------------------------------------- */

static void
mk_key(struct item_key *k, const char *pk, const char *sk)
{
    memset(k, 0, sizeof(*k));
    memcpy(k->pk, pk, strlen(pk));
    k->pk_len = strlen(pk);
    if (sk != NULL) {
        memcpy(k->sk, sk, strlen(sk));
        k->sk_len = strlen(sk);
    }
}

static int owner_a, owner_b;            /* their addresses are owners */

/* ------------------------------------------------------------------------
 * registry
 * ---------------------------------------------------------------------- */

START_TEST(test_txn_inflight_acquire_release)
{
    struct item_key k1, k2, k3;
    struct txn_inflight_item it[2];
    struct txn_inflight_hold h;

    mk_key(&k1, "a", NULL);
    mk_key(&k2, "b", "x");
    mk_key(&k3, "b", "y");
    it[0] = (struct txn_inflight_item){ "t1", &k1 };
    it[1] = (struct txn_inflight_item){ "t1", &k2 };
    ck_assert(!txn_inflight_is_held(&owner_a, "t1", &k1));
    ck_assert_int_eq(txn_inflight_acquire(&owner_a, it, 2, NULL, &h), 0);
    ck_assert_uint_eq(txn_inflight_count(), 2);
    ck_assert(txn_inflight_is_held(&owner_a, "t1", &k1));
    ck_assert(txn_inflight_is_held(&owner_a, "t1", &k2));
    ck_assert(!txn_inflight_is_held(&owner_a, "t1", &k3));  /* other sk */
    ck_assert(!txn_inflight_is_held(&owner_a, "t2", &k1));  /* other table */
    ck_assert(!txn_inflight_is_held(&owner_b, "t1", &k1));  /* other owner */
    txn_inflight_release(&h);
    ck_assert_uint_eq(txn_inflight_count(), 0);
    ck_assert(!txn_inflight_is_held(&owner_a, "t1", &k1));
    txn_inflight_release(&h);                               /* twice: safe */
}
END_TEST

START_TEST(test_txn_inflight_conflict_all_or_none)
{
    struct item_key k1, k2, k3;
    struct txn_inflight_item first[2], second[3];
    struct txn_inflight_hold h1, h2;
    bool conflict[3];

    mk_key(&k1, "a", NULL);
    mk_key(&k2, "b", NULL);
    mk_key(&k3, "c", NULL);
    first[0] = (struct txn_inflight_item){ "t", &k1 };
    first[1] = (struct txn_inflight_item){ "t", &k2 };
    second[0] = (struct txn_inflight_item){ "t", &k3 };
    second[1] = (struct txn_inflight_item){ "t", &k2 };
    second[2] = (struct txn_inflight_item){ "u", &k1 };
    ck_assert_int_eq(txn_inflight_acquire(&owner_a, first, 2, NULL, &h1), 0);
    ck_assert_int_eq(txn_inflight_acquire(&owner_a, second, 3, conflict,
                                          &h2), 1);
    ck_assert(!conflict[0]);
    ck_assert(conflict[1]);
    ck_assert(!conflict[2]);
    /* nothing of the refused transaction was registered */
    ck_assert(!txn_inflight_is_held(&owner_a, "t", &k3));
    ck_assert(!txn_inflight_is_held(&owner_a, "u", &k1));
    ck_assert_uint_eq(txn_inflight_count(), 2);
    txn_inflight_release(&h2);                  /* empty hold: no-op */
    ck_assert_uint_eq(txn_inflight_count(), 2);
    /* another owner (server) does not conflict */
    ck_assert_int_eq(txn_inflight_acquire(&owner_b, second, 3, conflict,
                                          &h2), 0);
    ck_assert_uint_eq(txn_inflight_count(), 5);
    txn_inflight_release(&h1);
    txn_inflight_release(&h2);
    ck_assert_uint_eq(txn_inflight_count(), 0);
    /* once released, the same items register again */
    ck_assert_int_eq(txn_inflight_acquire(&owner_a, second, 3, conflict,
                                          &h2), 0);
    txn_inflight_release(&h2);
}
END_TEST

START_TEST(test_txn_inflight_many)
{
    enum { N = 3000 };
    struct item_key *keys = calloc(N, sizeof(*keys));
    struct txn_inflight_item *it = calloc(N, sizeof(*it));
    struct txn_inflight_hold h;
    char buf[32];

    ck_assert_ptr_nonnull(keys);
    ck_assert_ptr_nonnull(it);
    for (int i = 0; i < N; i++) {
        snprintf(buf, sizeof(buf), "k%d", i);
        mk_key(&keys[i], buf, "s");
        it[i] = (struct txn_inflight_item){ "big", &keys[i] };
    }
    ck_assert_int_eq(txn_inflight_acquire(&owner_a, it, N, NULL, &h), 0);
    for (int i = 0; i < N; i++)
        ck_assert(txn_inflight_is_held(&owner_a, "big", &keys[i]));
    txn_inflight_release(&h);
    for (int i = 0; i < N; i++)
        ck_assert(!txn_inflight_is_held(&owner_a, "big", &keys[i]));
    free(keys);
    free(it);
}
END_TEST

START_TEST(test_txn_inflight_check_error)
{
    struct api_server srv;
    struct api_ctx ctx;
    struct item_key k;
    struct txn_inflight_item it;
    struct txn_inflight_hold h;
    struct ddb_err err;
    json_t *body;

    memset(&srv, 0, sizeof(srv));
    memset(&ctx, 0, sizeof(ctx));
    ctx.srv = &srv;
    mk_key(&k, "a", NULL);
    it = (struct txn_inflight_item){ "t", &k };
    ddb_err_init(&err);
    ck_assert_int_eq(txn_inflight_check(&ctx, "t", &k, &err), 0);
    ck_assert_int_eq(txn_inflight_acquire(&srv, &it, 1, NULL, &h), 0);
    ck_assert_int_eq(txn_inflight_check(&ctx, "t", &k, &err), -1);
    ck_assert_int_eq(err.type, DDB_TRANSACTION_CONFLICT);
    ck_assert_str_eq(err.msg, "Transaction is ongoing for the item");
    body = error_body(&err);
    ck_assert_str_eq(json_string_value(json_object_get(body, "__type")),
                     "com.amazonaws.dynamodb.v20120810#"
                     "TransactionConflictException");
    ck_assert_str_eq(json_string_value(json_object_get(body, "message")),
                     "Transaction is ongoing for the item");
    ck_assert_uint_eq(error_http_status(err.type), 400);
    json_decref(body);
    ddb_err_clear(&err);
    txn_inflight_release(&h);
    ck_assert_int_eq(txn_inflight_check(&ctx, "t", &k, &err), 0);
}
END_TEST

/* Threads racing for the same item: at any time at most one holds it. */
static _Atomic int holders, max_holders, wins;
static struct item_key race_key;

static void *
racer(void *arg)
{
    struct txn_inflight_item it = { "race", &race_key };

    (void)arg;
    for (int i = 0; i < 2000; i++) {
        struct txn_inflight_hold h;

        if (txn_inflight_acquire(&owner_a, &it, 1, NULL, &h) != 0)
            continue;
        int now = ++holders;
        if (now > max_holders)
            max_holders = now;
        wins++;
        --holders;
        txn_inflight_release(&h);
    }
    return NULL;
}

START_TEST(test_txn_inflight_threads)
{
    pthread_t t[4];

    mk_key(&race_key, "r", NULL);
    holders = max_holders = wins = 0;
    for (int i = 0; i < 4; i++)
        ck_assert_int_eq(pthread_create(&t[i], NULL, racer, NULL), 0);
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    ck_assert_int_eq(max_holders, 1);
    ck_assert_int_gt(wins, 0);
    ck_assert_uint_eq(txn_inflight_count(), 0);
}
END_TEST

/* ------------------------------------------------------------------------
 * pause
 * ---------------------------------------------------------------------- */

static uint64_t
now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static json_t *
pause_admin(struct api_server *srv, const char *json, int expect_rc)
{
    json_t *req = json_loads(json, 0, NULL), *resp = NULL;
    struct ddb_err err;

    ck_assert_ptr_nonnull(req);
    ddb_err_init(&err);
    ck_assert_int_eq(txn_inflight_pause_admin(srv, req, &resp, &err),
                     expect_rc);
    if (expect_rc != 0)
        ck_assert_int_eq(err.type, DDB_VALIDATION);
    ddb_err_clear(&err);
    json_decref(req);
    return resp;
}

START_TEST(test_txn_inflight_pause_rules)
{
    struct api_server srv, other;
    const char *tables[] = { "x", "p" };
    json_t *r, *rule;
    uint64_t t0;

    memset(&srv, 0, sizeof(srv));
    memset(&other, 0, sizeof(other));
    ck_assert_ptr_null(pause_admin(&srv, "{\"pause_ms\": -1}", -1));
    ck_assert_ptr_null(pause_admin(&srv, "{\"pause_ms\": 10}", -1));
    ck_assert_ptr_null(pause_admin(&srv, "{\"pause_ms\": 10, \"table\": "
                                         "\"p\", \"count\": 0}", -1));
    r = pause_admin(&srv, "{\"pause_ms\": 50, \"table\": \"p\"}", 0);
    ck_assert_uint_eq(json_array_size(json_object_get(r, "pauses")), 1);
    json_decref(r);

    t0 = now_ms();
    txn_inflight_pause(&other, tables, 2);  /* another server: no rule */
    txn_inflight_pause(&srv, tables, 1);    /* table x only: no rule */
    ck_assert_uint_lt(now_ms() - t0, 40);
    txn_inflight_pause(&srv, tables, 2);    /* fires once */
    ck_assert_uint_ge(now_ms() - t0, 45);
    t0 = now_ms();
    txn_inflight_pause(&srv, tables, 2);    /* count spent */
    ck_assert_uint_lt(now_ms() - t0, 40);

    r = pause_admin(&srv, "{\"pause_ms\": 0}", 0);
    rule = json_array_get(json_object_get(r, "pauses"), 0);
    ck_assert_int_eq(json_integer_value(json_object_get(rule, "fired")), 1);
    ck_assert_int_eq(json_integer_value(json_object_get(rule, "count")), 0);
    ck_assert_int_eq(json_integer_value(json_object_get(rule, "paused")), 0);
    json_decref(r);
    r = pause_admin(&srv, "{\"pause_ms\": 0, \"clear\": true}", 0);
    ck_assert_uint_eq(json_array_size(json_object_get(r, "pauses")), 0);
    json_decref(r);
}
END_TEST

static Suite *
txn_inflight_suite(void)
{
    Suite *s = suite_create("txn_inflight");
    TCase *tc = tcase_create("registry");
    TCase *tp = tcase_create("pause");

    tcase_add_test(tc, test_txn_inflight_acquire_release);
    tcase_add_test(tc, test_txn_inflight_conflict_all_or_none);
    tcase_add_test(tc, test_txn_inflight_many);
    tcase_add_test(tc, test_txn_inflight_check_error);
    tcase_add_test(tc, test_txn_inflight_threads);
    suite_add_tcase(s, tc);
    tcase_add_test(tp, test_txn_inflight_pause_rules);
    suite_add_tcase(s, tp);
    return s;
}

int
main(void)
{
    SRunner *sr = srunner_create(txn_inflight_suite());
    int failed;

    srunner_run_all(sr, CK_ENV);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
