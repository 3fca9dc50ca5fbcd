/* SPDX-License-Identifier: MIT */
/* check_json_alloc.c - jansson's allocator (storage/json_alloc.c): a
 * small block freed goes to its thread's cache and is handed out again
 * for its size class, each class keeps at most 64, larger blocks are
 * glibc's, every block keeps malloc's alignment, and a value made in one
 * thread may be freed in another. Like the server, this program routes
 * jansson's allocations through it before making any value. */
#include <check.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "storage/util.h"

#define KEEP 64                         /* JA_KEEP */

static json_malloc_t ja_malloc;
static json_free_t ja_free;

START_TEST(test_block_reused_within_class)
{
    size_t base = json_alloc_cached();
    void *p = ja_malloc(24), *q, *r;

    ck_assert_ptr_nonnull(p);
    memset(p, 0xab, 24);
    ja_free(p);
    ck_assert_uint_eq(json_alloc_cached(), base + 1);
    q = ja_malloc(17);                  /* 17..32 share p's class */
    ck_assert_ptr_eq(q, p);
    ck_assert_uint_eq(json_alloc_cached(), base);
    r = ja_malloc(16);                  /* another class: a new block */
    ck_assert_ptr_ne(r, q);
    ja_free(q);
    ja_free(r);
    ck_assert_uint_eq(json_alloc_cached(), base + 2);
}
END_TEST

START_TEST(test_class_keeps_at_most_64)
{
    void *b[KEEP + 20];
    size_t base;

    for (size_t i = 0; i < KEEP + 20; i++)
        b[i] = ja_malloc(200);          /* the class's list is empty now */
    base = json_alloc_cached();
    for (size_t i = 0; i < KEEP + 20; i++)
        ja_free(b[i]);
    ck_assert_uint_eq(json_alloc_cached(), base + KEEP);
}
END_TEST

/* Each block keeps malloc's alignment; one of up to 256 bytes goes to
 * the cache when freed, a larger one to free(). */
START_TEST(test_large_and_odd_sizes)
{
    size_t sizes[] = { 0, 1, 15, 16, 255, 256, 257, 4096, 100000 };

    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        unsigned char *p = ja_malloc(sizes[i]);
        size_t before;

        ck_assert_ptr_nonnull(p);
        ck_assert_uint_eq((uintptr_t)p % 16, 0);
        memset(p, 0x5a, sizes[i]);      /* ASan: the whole size is ours */
        before = json_alloc_cached();
        ja_free(p);
        ck_assert_uint_eq(json_alloc_cached(),
                          before + (sizes[i] <= 256 ? 1 : 0));
    }
    ja_free(NULL);
}
END_TEST

static void *
make_values(void *arg)
{
    json_t **out = arg;

    for (int i = 0; i < 100; i++) {
        json_t *v = json_pack("{s:s, s:[i, i]}", "k", "some text", "l", i,
                              i + 1);

        if (i < 50)
            out[i] = v;                 /* freed by the main thread */
        else
            json_decref(v);             /* into this thread's cache */
    }
    return json_alloc_cached() > 0 ? out : NULL;
}

START_TEST(test_values_cross_threads)
{
    json_t *v[50];
    pthread_t th;
    void *ret;

    ck_assert_int_eq(pthread_create(&th, NULL, make_values, v), 0);
    ck_assert_int_eq(pthread_join(th, &ret), 0);
    ck_assert_ptr_eq(ret, v);           /* that thread cached its frees */
    for (int i = 0; i < 50; i++) {
        ck_assert_int_eq(json_integer_value(json_array_get(
                             json_object_get(v[i], "l"), 1)), i + 1);
        json_decref(v[i]);
    }
}
END_TEST

START_TEST(test_json_text_is_malloced)
{
    const char *src = "{\"b\":[1,2,{\"c\":\"\\u00e9\"}],\"a\":null}";
    json_t *j = json_loads(src, 0, NULL), *one = json_integer(1);
    char *t;

    ck_assert_ptr_nonnull(j);
    for (int i = 0; i < 1000; i++) {    /* churn the cache */
        t = json_text(j, JSON_COMPACT);
        ck_assert_str_eq(t, "{\"b\":[1,2,{\"c\":\"\xc3\xa9\"}],\"a\":null}");
        free(t);                        /* glibc's, not the cache's */
    }
    t = json_text(j, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENSURE_ASCII);
    ck_assert_str_eq(t, "{\"a\":null,\"b\":[1,2,{\"c\":\"\\u00E9\"}]}");
    free(t);
    ck_assert_ptr_null(json_text(one, 0));  /* as json_dumps */
    json_decref(one);
    json_decref(j);
}
END_TEST

static Suite *
json_alloc_suite(void)
{
    Suite *s = suite_create("json_alloc");
    TCase *tc = tcase_create("json_alloc");

    tcase_add_test(tc, test_block_reused_within_class);
    tcase_add_test(tc, test_class_keeps_at_most_64);
    tcase_add_test(tc, test_large_and_odd_sizes);
    tcase_add_test(tc, test_values_cross_threads);
    tcase_add_test(tc, test_json_text_is_malloced);
    suite_add_tcase(s, tc);
    return s;
}

int
main(void)
{
    SRunner *sr;
    int failed;

    json_alloc_init();
    json_get_alloc_funcs(&ja_malloc, &ja_free);
    sr = srunner_create(json_alloc_suite());
    srunner_run_all(sr, CK_ENV);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
