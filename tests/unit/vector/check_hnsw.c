/* SPDX-License-Identifier: MIT */
/* check_hnsw.c - the numbers and the graph of vector indexes
 * (api/vector/f32.c, hnsw.c): numbers as floats and back to the text the
 * index hands out, the three distances and scores, top-k selection, and
 * the graph's recall against exact search, with removed nodes never
 * returned. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "api/vector/vector_int.h"

/* ------------------------------------------------------------------------
 * Numbers
 * ---------------------------------------------------------------------- */

/* The index's float copy as text (eu-west-2, 2026-08: nubo-db/
 * dynamodb-conformance vectorSearch/search.test.ts: '1' comes back as
 * "1.0", 0.1 as "0.1", 16777217 as 16777216). */
START_TEST(test_f32_format)
{
    static const struct { float f; const char *want; } cases[] = {
        { 1.0f, "1.0" }, { 0.0f, "0.0" }, { 0.1f, "0.1" },
        { 16777217.0f, "16777216.0" }, { -2.5f, "-2.5" },
        { 0.6f, "0.6" }, { 123.456f, "123.456" }, { 1e-7f, "1e-7" },
        { 1.5e-7f, "1.5e-7" }, { 1e20f, "1e20" }, { 0.0001f, "0.0001" },
        { 1234567.0f, "1234567.0" }, { 3.4028235e38f, "3.4028235e38" },
    };
    char buf[F32_TEXT_MAX];
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        f32_format(cases[i].f, buf);
        ck_assert_str_eq(buf, cases[i].want);
    }
}
END_TEST

START_TEST(test_f32_parse)
{
    float f;

    ck_assert_int_eq(f32_parse("0.1", &f), 0);
    ck_assert(f == 0.1f);
    ck_assert_int_eq(f32_parse("1.000000059604644775390625", &f), 0);
    ck_assert(f == 1.0f);                          /* a tie: to even */
    ck_assert_int_eq(f32_parse("1e-60", &f), 0);   /* underflows to 0 */
    ck_assert(f == 0.0f);
    ck_assert_int_eq(f32_parse("1e39", &f), -1);   /* beyond the floats */
    ck_assert_int_eq(f32_parse("-1e39", &f), -1);
    ck_assert_int_eq(f32_parse("abc", &f), -1);
    ck_assert_int_eq(f32_parse("", &f), -1);
}
END_TEST

/* The analytic scores of the recorded fixture (a = query, b orthogonal,
 * c opposite, d a unit mix; nubo-db vectorSearch/search.test.ts). */
START_TEST(test_scores)
{
    const float a[3] = { 1, 0, 0 }, b[3] = { 0, 1, 0 }, c[3] = { -1, 0, 0 };
    const float d[3] = { 0.6f, 0.8f, 0 };

    ck_assert(vec_score(VEC_COSINE, a, a, 3) == 0.0);
    ck_assert(vec_score(VEC_COSINE, a, b, 3) == 1.0);
    ck_assert(vec_score(VEC_COSINE, a, c, 3) == 2.0);
    ck_assert(fabs(vec_score(VEC_COSINE, a, d, 3) - 0.4) < 1e-6);
    ck_assert(vec_score(VEC_EUCLIDEAN, a, a, 3) == 0.0);
    ck_assert(vec_score(VEC_EUCLIDEAN, a, c, 3) == 2.0);
    ck_assert(fabs(vec_score(VEC_EUCLIDEAN, a, b, 3) - sqrt(2)) < 1e-6);
    ck_assert(vec_score(VEC_DOT, a, a, 3) == 1.0);
    ck_assert(vec_score(VEC_DOT, a, c, 3) == -1.0);
    ck_assert(fabs(vec_score(VEC_DOT, a, d, 3) - 0.6) < 1e-6);
    /* The ranking distance agrees in order with the scores. */
    ck_assert(vec_dist(VEC_DOT, a, 1, d, 1, 3) <
              vec_dist(VEC_DOT, a, 1, b, 1, 3));
    ck_assert(vec_dist(VEC_EUCLIDEAN, a, 1, d, 1, 3) <
              vec_dist(VEC_EUCLIDEAN, a, 1, b, 1, 3));
}
END_TEST

START_TEST(test_topk)
{
    struct vec_topk t;
    struct vec_hit out[3];
    uint32_t i;

    vec_topk_init(&t, 3);
    for (i = 0; i < 10; i++)
        vec_topk_offer(&t, i, (float)((i * 7) % 10));  /* 0 7 4 1 8 5 2 */
    vec_topk_offer(&t, 99, 1.0f);                      /* ties by slot */
    ck_assert_uint_eq(vec_topk_take(&t, out), 3);
    ck_assert_uint_eq(out[0].slot, 0);
    ck_assert_uint_eq(out[1].slot, 3);
    ck_assert_uint_eq(out[2].slot, 99);
    vec_topk_fini(&t);
}
END_TEST

/* ------------------------------------------------------------------------
 * The graph
 * ---------------------------------------------------------------------- */

#define N       4000
#define DIM     32
#define NQ      100
#define K       10

static uint64_t rng = 42;

static double
gauss(void)
{
    double u, v;

    rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
    u = ((double)(rng >> 11) + 1.0) / 9007199254740993.0;
    rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
    v = (double)(rng >> 11) / 9007199254740992.0;
    return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

/* Clustered vectors, as embeddings are: 40 centres, a spread around each
 * (uniform random vectors in 32 dimensions have no near neighbours to
 * find). */
static void
fill(float *v, size_t n, const float *centres)
{
    size_t i, j, c;

    for (i = 0; i < n; i++) {
        c = (size_t)(fabs(gauss()) * 13) % 40;
        for (j = 0; j < DIM; j++)
            v[i * DIM + j] = centres[c * DIM + j] + 0.35f * (float)gauss();
    }
}

static float *vecs, *invs, *queries;

static void
graph_setup(void)
{
    float centres[40 * DIM];
    size_t i;

    rng = 42;
    for (i = 0; i < 40 * DIM; i++)
        centres[i] = (float)gauss();
    vecs = malloc(N * DIM * sizeof(float));
    invs = malloc(N * sizeof(float));
    queries = malloc(NQ * DIM * sizeof(float));
    fill(vecs, N, centres);
    fill(queries, NQ, centres);
    for (i = 0; i < N; i++)
        invs[i] = vec_inv_norm(vecs + i * DIM, DIM);
}

static void
graph_teardown(void)
{
    free(vecs);
    free(invs);
    free(queries);
}

/* The exact k nearest of q among rows not removed. */
static size_t
brute(enum vec_metric m, const float *q, const bool *removed,
      struct vec_hit *out)
{
    struct vec_topk t;
    float iq = vec_inv_norm(q, DIM);
    size_t i, n;

    vec_topk_init(&t, K);
    for (i = 0; i < N; i++)
        if (!removed[i])
            vec_topk_offer(&t, (uint32_t)i,
                           vec_dist(m, q, iq, vecs + i * DIM, invs[i], DIM));
    n = vec_topk_take(&t, out);
    vec_topk_fini(&t);
    return n;
}

/* Recall at K of the graph over the queries, with removed rows out. */
static double
recall(struct hnsw *g, enum vec_metric m, const bool *removed)
{
    struct vec_hit want[K], got[K];
    size_t q, i, j, n, hit = 0, total = 0;

    for (q = 0; q < NQ; q++) {
        const float *qv = queries + q * DIM;

        brute(m, qv, removed, want);
        n = hnsw_search(g, qv, vec_inv_norm(qv, DIM), K, vector_search_ef(K, hnsw_size(g)),
                        NULL, NULL, got, NULL);
        for (i = 0; i < n; i++) {
            ck_assert(!removed[got[i].slot]);
            for (j = 0; j < K; j++)
                if (got[i].slot == want[j].slot)
                    hit++;
        }
        total += K;
    }
    return (double)hit / (double)total;
}

/* The bar: recall of at least 0.95 at TopK 10, for each distance
 * function; removed rows are never returned and recall holds after. */
START_TEST(test_hnsw_recall)
{
    const enum vec_metric metrics[3] = { VEC_COSINE, VEC_EUCLIDEAN,
                                         VEC_DOT };
    enum vec_metric m = metrics[_i];
    struct vec_rows rows = { &vecs, &invs, DIM, m };
    bool *removed = calloc(N, sizeof(bool));
    struct hnsw *g = hnsw_new(&rows, HNSW_M, HNSW_EFC, 7);
    uint32_t i;
    double r;

    for (i = 0; i < N; i++)
        ck_assert_uint_eq(hnsw_add(g, i), i);
    ck_assert_uint_eq(hnsw_size(g), N);
    r = recall(g, m, removed);
    ck_assert_msg(r >= 0.95, "recall %.3f for metric %d", r, (int)m);
    for (i = 0; i < N; i += 3) {
        hnsw_remove(g, i);
        removed[i] = true;
    }
    ck_assert_uint_eq(hnsw_removed(g), (N + 2) / 3);
    r = recall(g, m, removed);
    ck_assert_msg(r >= 0.95, "recall after removals %.3f", r);
    hnsw_free(g);
    free(removed);
}
END_TEST

static bool
even_only(void *arg, uint32_t slot)
{
    (void)arg;
    return slot % 2 == 0;
}

START_TEST(test_hnsw_filter)
{
    struct vec_rows rows = { &vecs, &invs, DIM, VEC_COSINE };
    struct hnsw *g = hnsw_new(&rows, HNSW_M, HNSW_EFC, 7);
    struct vec_hit got[K];
    size_t n, i;

    for (i = 0; i < 500; i++)
        hnsw_add(g, (uint32_t)i);
    n = hnsw_search(g, queries, vec_inv_norm(queries, DIM), K, 96,
                    even_only, NULL, got, NULL);
    ck_assert_uint_eq(n, K);
    for (i = 0; i < n; i++)
        ck_assert_uint_eq(got[i].slot % 2, 0);
    for (i = 1; i < n; i++)
        ck_assert(got[i - 1].dist <= got[i].dist);
    hnsw_free(g);
}
END_TEST

/* The server's candidate list: EF_MIN or 16 per result up to 20,000
 * nodes, then growing with the square root of the graph (bench/vector.c
 * measured 100,000 nodes needing about twice the list of 20,000). */
START_TEST(test_search_ef)
{
    ck_assert_uint_eq(vector_search_ef(10, 0), 256);
    ck_assert_uint_eq(vector_search_ef(10, 20000), 256);
    ck_assert_uint_eq(vector_search_ef(100, 500), 1600);
    ck_assert_uint_eq(vector_search_ef(10, 80000), 512);
    ck_assert_uint_eq(vector_search_ef(10, 100000), 573);
}
END_TEST

static Suite *
hnsw_suite(void)
{
    Suite *s = suite_create("hnsw");
    TCase *tc = tcase_create("numbers");
    TCase *tg = tcase_create("graph");

    tcase_add_test(tc, test_f32_format);
    tcase_add_test(tc, test_f32_parse);
    tcase_add_test(tc, test_scores);
    tcase_add_test(tc, test_topk);
    tcase_add_test(tc, test_search_ef);
    suite_add_tcase(s, tc);
    tcase_add_checked_fixture(tg, graph_setup, graph_teardown);
    tcase_set_timeout(tg, 120);
    tcase_add_loop_test(tg, test_hnsw_recall, 0, 3);
    tcase_add_test(tg, test_hnsw_filter);
    suite_add_tcase(s, tg);
    return s;
}

int
main(void)
{
    SRunner *sr = srunner_create(hnsw_suite());
    int failed;

    srunner_run_all(sr, CK_ENV);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
