/* SPDX-License-Identifier: MIT */
/* check_vector.c - vector indexes above the graph (api/vector/defs.c,
 * write.c, store.c, search.c): definitions and their checks, the
 * lifecycle settled in the description, the write hook's checks, bytes
 * and billed sizes, and indexes built from a real store, kept in step,
 * searched exactly and through the graph, filtered by SearchSchema. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/proto/av.h"
#include "api/proto/capacity.h"
#include "api/vector/vector_int.h"
#include "tests/unit/storage/fixture.h"

/* A description with one vector index on "embedding" (3 dimensions,
 * COSINE, ALL) plus, with schema, a HASH "tenant" and an INLINE_FILTER
 * "category". */
static json_t *
desc_new(bool schema, const char *status)
{
    json_t *d = json_pack(
        "{s:s, s:s, s:[{s:s, s:s}, {s:s, s:s}, {s:s, s:s}], "
        "s:[{s:s, s:s}], s:[{s:s, s:{s:s}, s:i, s:s, s:{s:s}, s:s}]}",
        "TableName", "vt", "TableId", "tid-1", "AttributeDefinitions",
        "AttributeName", "pk", "AttributeType", "S", "AttributeName",
        "tenant", "AttributeType", "S", "AttributeName", "category",
        "AttributeType", "S", "KeySchema", "AttributeName", "pk", "KeyType",
        "HASH", "VectorIndexes", "IndexName", "vix", "VectorAttribute",
        "AttributeName", "embedding", "Dimensions", 3, "DistanceFunction",
        "COSINE", "Projection", "ProjectionType", "ALL", "IndexStatus",
        status);

    if (schema)
        json_object_set_new(json_array_get(json_object_get(d,
                                                           "VectorIndexes"),
                                           0),
                            "SearchSchema",
                            json_pack("[{s:s, s:s}, {s:s, s:s}]",
                                      "AttributeName", "tenant",
                                      "SearchSchemaElementType", "HASH",
                                      "AttributeName", "category",
                                      "SearchSchemaElementType",
                                      "INLINE_FILTER"));
    return d;
}

static json_t *
vec3(double a, double b, double c)
{
    char t[3][32];

    snprintf(t[0], 32, "%g", a);
    snprintf(t[1], 32, "%g", b);
    snprintf(t[2], 32, "%g", c);
    return json_pack("{s:[{s:s}, {s:s}, {s:s}]}", "L", "N", t[0], "N", t[1],
                     "N", t[2]);
}

static json_t *
item_new(const char *pk, json_t *embedding)
{
    json_t *it = json_pack("{s:{s:s}}", "pk", "S", pk);

    if (embedding != NULL)
        json_object_set_new(it, "embedding", embedding);
    return it;
}

/* ------------------------------------------------------------------------
 * Definitions and the lifecycle
 * ---------------------------------------------------------------------- */

START_TEST(test_defs_parse)
{
    json_t *d = desc_new(true, "CREATING");
    struct vector_def *defs;
    struct ddb_err err;
    size_t n;

    ddb_err_init(&err);
    ck_assert_int_eq(vector_defs_parse(d, false, &defs, &n, &err), 0);
    ck_assert_uint_eq(n, 1);
    ck_assert_str_eq(defs[0].name, "vix");
    ck_assert_str_eq(defs[0].attr, "embedding");
    ck_assert_uint_eq(defs[0].dims, 3);
    ck_assert_int_eq(defs[0].metric, VEC_COSINE);
    ck_assert_int_eq(defs[0].state, VEC_ALLOCATING);
    ck_assert_uint_eq(defs[0].nschema, 2);
    ck_assert_int_eq(defs[0].hash, 0);
    ck_assert_int_eq(defs[0].schema[1].type, 'S');
    ck_assert_str_eq(defs[0].table_hash, "pk");
    ck_assert(vector_desc_uses(d, "category"));
    ck_assert(!vector_desc_uses(d, "embedding"));
    vector_defs_free(defs, n);
    json_decref(d);
}
END_TEST

/* The walk recorded against DynamoDB (nubo-db vectorSearch/
 * updateLifecycle.test.ts): CREATING with Backfilling false, then true,
 * then ACTIVE without the member; DELETING, then gone. */
START_TEST(test_settle)
{
    json_t *d = desc_new(false, "CREATING");
    json_t *vi = json_array_get(json_object_get(d, "VectorIndexes"), 0);

    json_object_set_new(vi, "Backfilling", json_false());
    json_object_set_new(vi, "_slAllocUntil", json_integer(100));
    json_object_set_new(vi, "_slBackfillUntil", json_integer(200));
    ck_assert(!vector_desc_settle(d, 99));
    ck_assert(vector_desc_settle(d, 100));
    ck_assert(json_is_true(json_object_get(vi, "Backfilling")));
    ck_assert_str_eq(json_string_value(json_object_get(vi, "IndexStatus")),
                     "CREATING");
    ck_assert(vector_desc_settle(d, 250));
    ck_assert_str_eq(json_string_value(json_object_get(vi, "IndexStatus")),
                     "ACTIVE");
    ck_assert_ptr_null(json_object_get(vi, "Backfilling"));
    ck_assert(!vector_desc_settle(d, 1000));
    json_object_set_new(vi, "IndexStatus", json_string("DELETING"));
    json_object_set_new(vi, "_slDeleteUntil", json_integer(300));
    vector_desc_public(NULL, d);            /* private members go */
    ck_assert_ptr_null(json_object_get(vi, "_slDeleteUntil"));
    json_object_set_new(vi, "_slDeleteUntil", json_integer(300));
    ck_assert(vector_desc_settle(d, 300));
    ck_assert(!vector_desc_has(d));
    json_decref(d);
}
END_TEST

/* nubo-db tier3 vectorIndexes.test.ts: the request checks' messages. */
START_TEST(test_checks)
{
    json_t *defs = json_pack("[{s:s, s:s}]", "AttributeName", "pk",
                             "AttributeType", "S");
    json_t *keys = json_pack("[{s:s, s:s}]", "AttributeName", "pk",
                             "KeyType", "HASH");
    json_t *d = desc_new(true, "ACTIVE");
    json_t *vi = json_array_get(json_object_get(d, "VectorIndexes"), 0);
    json_t *list = json_pack("[O, O]", vi, vi);
    struct ddb_err err;

    ddb_err_init(&err);
    ck_assert_int_eq(vector_check_index(vi, defs, keys, &err), -1);
    ck_assert_str_eq(err.msg, "One or more parameter values were invalid: "
                     "One element in SearchSchema is not defined in "
                     "attribute definitions");
    json_object_set_new(vi, "Dimensions", json_integer(4097));
    ck_assert_int_eq(vector_check_index(vi, defs, keys, &err), -1);
    ck_assert_str_eq(err.msg, "One or more parameter values were invalid: "
                     "Number of dimensions must be between 1 and 4096 "
                     "inclusive.");
    ck_assert_int_eq(vector_check_list(list, false, NULL, &err), -1);
    ck_assert(strstr(err.msg, "only supported for PAY_PER_REQUEST") != NULL);
    ck_assert_int_eq(vector_check_list(list, true, NULL, &err), -1);
    ck_assert_str_eq(err.msg, "One or more parameter values were invalid: "
                     "Duplicate index name: vix");
    ck_assert_uint_eq(vector_projected_count(list), 4);  /* 2 x (1 + 1) */
    json_decref(list);
    json_decref(defs);
    json_decref(keys);
    json_decref(d);
}
END_TEST

/* ------------------------------------------------------------------------
 * The write hook, against a store
 * ---------------------------------------------------------------------- */

static struct vector_registry *reg;
static struct api_server srv;
static struct stable *tab;

static void
store_setup(void)
{
    struct ddb_err err;

    fixture_setup();
    ddb_err_init(&err);
    st = storage_open(tmpdir, &err);
    ck_assert_ptr_nonnull(st);
    tab = fixture_table("vt", 4);
    reg = vector_registry_new(st, 10000);
    memset(&srv, 0, sizeof(srv));
    srv.st = st;
    srv.vectors = reg;
}

static void
store_teardown(void)
{
    vector_registry_free(reg);
    stable_release(tab);
    fixture_teardown();
}

static int
put_fn(void *arg, const json_t *old, size_t old_size, json_t **new_item,
       size_t *new_size, bool *keep, struct ddb_err *err)
{
    (void)old;
    (void)keep;
    (void)err;
    *new_item = json_incref(arg);
    *new_size = item_size(arg);
    return 0;
}

/* Store item under pk (NULL: delete pk), as a committed write; takes
 * item. With vt, bring it in line as the write path does. */
static void
store(struct vector_table *vt, const char *pk, json_t *item)
{
    struct item_key k;
    struct ddb_err err;

    ddb_err_init(&err);
    fixture_skey(&k, pk, NULL);
    ck_assert_int_eq(stable_mutate(tab, &k, item != NULL ? put_fn
                                                         : fixture_del_fn,
                                   item, &err), 0);
    json_decref(item);
    if (vt != NULL)
        vector_table_sync(vt, tab, &k);
}

/* nubo-db tier3 vectorWrites.test.ts (messages) and paritysuite
 * consumedCapacity.test.ts (bytes and billed sizes). */
START_TEST(test_write_check)
{
    json_t *d = desc_new(true, "ACTIVE");
    struct vector_write *vw;
    struct ddb_err err;
    json_t *a, *b, *bad;
    size_t os, ns;

    ddb_err_init(&err);
    ck_assert_int_eq(stable_set_desc(tab, d, &err), 0);
    vw = vector_write_new(&srv, tab, &err);
    ck_assert_ptr_nonnull(vw);
    bad = item_new("x", json_pack("{s:[{s:s}]}", "L", "N", "1"));
    ck_assert_int_eq(vector_write_check(vw, NULL, bad, NULL, NULL, &err), -1);
    ck_assert_str_eq(err.msg, "One or more parameter values were invalid. "
                     "Invalid size for parameter embedding, Expected: 3, "
                     "Actual: 1 IndexName: vix");
    json_decref(bad);
    bad = item_new("x", json_pack("{s:[{s:s}, {s:s}, {s:s}]}", "L", "N", "1",
                                  "S", "oops", "N", "0"));
    ck_assert_int_eq(vector_write_check(vw, NULL, bad, NULL, NULL, &err), -1);
    ck_assert_str_eq(err.msg, "One or more parameter values were invalid. "
                     "Invalid type for parameter embedding[1], Expected: "
                     "32-bit floating point number, Actual: S. IndexName: "
                     "vix");
    json_decref(bad);
    bad = item_new("x", vec3(1e39, 0, 0));      /* beyond the floats */
    ck_assert_int_eq(vector_write_check(vw, NULL, bad, NULL, NULL, &err), -1);
    json_decref(bad);
    bad = item_new("x", vec3(1, 0, 0));
    json_object_set_new(bad, "tenant", json_pack("{s:s}", "N", "1"));
    ck_assert_int_eq(vector_write_check(vw, NULL, bad, NULL, NULL, &err), -1);
    ck_assert_str_eq(err.msg, "One or more parameter values were invalid: "
                     "Type mismatch for Index Key tenant Expected: S "
                     "Actual: N IndexName: vix");
    json_decref(bad);

    /* Bytes: the floor, nothing for an identical entry, the removal. */
    a = item_new("x", vec3(1, 0, 0));
    json_object_set_new(a, "tenant", json_pack("{s:s}", "S", "t1"));
    b = json_deep_copy(a);
    os = ns = item_size(a);
    ck_assert_int_eq(vector_write_check(vw, NULL, a, NULL, &ns, &err), 0);
    /* Billed: "embedding" plus 4 bytes a dimension, not the numbers. */
    ck_assert_uint_eq(ns, item_size(a) - av_size(json_object_get(
                                              a, "embedding")) + 12);
    ck_assert_int_eq(vector_write_check(vw, a, b, &os, &ns, &err), 0);
    json_decref(b);
    b = item_new("x", vec3(1, 0, 0));           /* no tenant: out of it */
    ck_assert_int_eq(vector_write_check(vw, a, b, NULL, NULL, &err), 0);
    ck_assert_int_eq(vector_write_check(vw, a, NULL, NULL, NULL, &err), 0);
    json_decref(a);
    json_decref(b);
    vector_write_free(vw);
    json_decref(d);
}
END_TEST

/* A search through the public entry point, as SearchVectors runs it.
 * Returns the results' pks joined by commas into out. */
static void
run_search(const json_t *desc, const float *q, size_t topk,
           struct expr *cond, char *out, size_t cap, double *bytes)
{
    struct api_ctx ctx = { .srv = &srv };
    struct vector_query vq = { .index = "vix", .dims = 3, .topk = topk,
                               .cond = cond };
    struct ddb_err err;
    json_t *res = NULL, *r;
    size_t i, len = 0;
    double b;

    ddb_err_init(&err);
    vq.q = malloc(3 * sizeof(float));
    memcpy(vq.q, q, 3 * sizeof(float));
    ck_assert_msg(vector_search(&ctx, tab, desc, &vq, &res, &b, &err) == 0,
                  "%s", err.msg);
    out[0] = '\0';
    json_array_foreach(res, i, r)
        len += (size_t)snprintf(out + len, cap - len, "%s%s", i ? "," : "",
                                json_string_value(json_object_get(
                                    json_object_get(json_object_get(r,
                                                                    "Item"),
                                                    "pk"), "S")));
    if (bytes != NULL)
        *bytes = b;
    json_decref(res);
    vq.cond = NULL;
    vector_query_fini(&vq);
}

/* Built from the table's items (what a restart does), then kept in step
 * by writes: a removed vector and a deleted item leave it. */
START_TEST(test_load_sync_search)
{
    const float q[3] = { 1, 0, 0 };
    json_t *d = desc_new(false, "ACTIVE");
    struct vector_table *vt;
    struct ddb_err err;
    char got[256];
    uint64_t count, bytes;

    ddb_err_init(&err);
    store(NULL, "a", item_new("a", vec3(1, 0, 0)));
    store(NULL, "b", item_new("b", vec3(0, 1, 0)));
    store(NULL, "c", item_new("c", vec3(-1, 0, 0)));
    store(NULL, "d", item_new("d", vec3(0.6, 0.8, 0)));
    store(NULL, "n", item_new("n", NULL));              /* no vector */
    store(NULL, "w", item_new("w", vec3(1, 1, 1)));
    json_object_set_new(json_array_get(json_object_get(d, "VectorIndexes"),
                                       0), "Dimensions", json_integer(3));
    ck_assert_int_eq(stable_set_desc(tab, d, &err), 0);
    vt = vector_table_open(reg, tab, &err);
    ck_assert_ptr_nonnull(vt);
    run_search(d, q, 10, NULL, got, sizeof(got), NULL);
    ck_assert_str_eq(got, "a,d,w,b,c");
    run_search(d, q, 2, NULL, got, sizeof(got), NULL);
    ck_assert_str_eq(got, "a,d");
    vector_index_stats(reg, "tid-1", "vix", &count, &bytes);
    ck_assert_uint_eq(count, 5);
    ck_assert_uint_gt(bytes, 0);
    store(vt, "w", item_new("w", NULL));                /* vector removed */
    store(vt, "a", NULL);                               /* item deleted */
    store(vt, "e", item_new("e", vec3(2, 0, 0)));
    run_search(d, q, 10, NULL, got, sizeof(got), NULL);
    ck_assert_str_eq(got, "e,d,b,c");
    vector_index_stats(reg, "tid-1", "vix", &count, &bytes);
    ck_assert_uint_eq(count, 4);
    vector_table_close(vt);
    vector_table_drop(reg, "vt");
    vector_index_stats(reg, "tid-1", "vix", &count, &bytes);
    ck_assert_uint_eq(count, 0);
    json_decref(d);
}
END_TEST

/* A condition as SearchVectors parses it. */
static struct expr *
cond_new(const char *text, json_t *values, struct expr_env **env)
{
    struct ddb_err err;
    struct expr *e;

    ddb_err_init(&err);
    ck_assert_int_eq(expr_env_new(NULL, values, env, &err), 0);
    e = expr_parse_as(*env, EXPR_CONDITION, "SearchConditionExpression",
                      text, &err);
    ck_assert_msg(e != NULL, "%s", err.msg);
    return e;
}

/* A HASH element splits the index (one search, one value), an
 * INLINE_FILTER element filters with equality (nubo-db vectorSearch/
 * writeValidation.test.ts: an item without the HASH value is in no
 * partition of that index). */
START_TEST(test_search_schema)
{
    const float q[3] = { 1, 0, 0 };
    json_t *d = desc_new(true, "ACTIVE"), *it, *v1, *v2;
    struct expr_env *env1, *env2;
    struct expr *c1, *c2;
    struct vector_table *vt;
    struct ddb_err err;
    char got[256];
    const char *rows[][4] = {
        { "a", "t1", "c1", "1" }, { "b", "t1", "c2", "0.9" },
        { "c", "t2", "c1", "0.8" }, { "d", NULL, "c1", "0.7" },
    };
    size_t i;

    ddb_err_init(&err);
    ck_assert_int_eq(stable_set_desc(tab, d, &err), 0);
    vt = vector_table_open(reg, tab, &err);
    ck_assert_ptr_nonnull(vt);
    for (i = 0; i < 4; i++) {
        it = item_new(rows[i][0], vec3(atof(rows[i][3]), 0.1, 0));
        if (rows[i][1] != NULL)
            json_object_set_new(it, "tenant",
                                json_pack("{s:s}", "S", rows[i][1]));
        json_object_set_new(it, "category",
                            json_pack("{s:s}", "S", rows[i][2]));
        store(vt, rows[i][0], it);
    }
    v1 = json_pack("{s:{s:s}}", ":t", "S", "t1");
    c1 = cond_new("tenant = :t", v1, &env1);
    run_search(d, q, 10, c1, got, sizeof(got), NULL);
    ck_assert_str_eq(got, "a,b");
    v2 = json_pack("{s:{s:s}, s:{s:s}}", ":t", "S", "t1", ":c", "S", "c2");
    c2 = cond_new("category = :c AND tenant = :t", v2, &env2);
    run_search(d, q, 10, c2, got, sizeof(got), NULL);
    ck_assert_str_eq(got, "b");
    expr_free(c1);
    expr_free(c2);
    expr_env_free(env1);
    expr_env_free(env2);
    json_decref(v1);
    json_decref(v2);
    vector_table_close(vt);
    json_decref(d);
}
END_TEST

/* Past --vector-exact-max items a shard is searched through its graph:
 * fewer vectors examined, the same answers as exact search for a
 * recall of at least 0.95 at TopK 10. */
START_TEST(test_graph_takes_over)
{
    json_t *d = desc_new(false, "ACTIVE");
    struct vector_table *vt;
    struct ddb_err err;
    char pk[16], got[512], want[512];
    float q[3], (*all)[3] = calloc(900, sizeof(*all));
    size_t i, j, hits = 0;
    double bytes;
    uint64_t seed = 9;

    vector_registry_free(reg);
    reg = vector_registry_new(st, 100);
    srv.vectors = reg;
    ddb_err_init(&err);
    for (i = 0; i < 900; i++) {
        for (j = 0; j < 3; j++) {
            seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
            all[i][j] = (float)((double)(seed >> 40) / 16777216.0 - 0.5);
        }
        snprintf(pk, sizeof(pk), "k%03zu", i);
        store(NULL, pk, item_new(pk, vec3(all[i][0], all[i][1],
                                          all[i][2])));
    }
    ck_assert_int_eq(stable_set_desc(tab, d, &err), 0);
    vt = vector_table_open(reg, tab, &err);
    ck_assert_ptr_nonnull(vt);
    vector_registry_settle(reg);
    for (i = 0; i < 20; i++) {
        struct vector_def defs = { .dims = 3, .metric = VEC_COSINE };
        struct vec_topk top;
        struct vec_hit h[10];
        char *tok, *save;

        memcpy(q, all[i * 7], sizeof(q));
        q[0] += 0.01f;
        run_search(d, q, 10, NULL, got, sizeof(got), &bytes);
        ck_assert(bytes < 4.0 * 3 * 900);       /* not all 900 examined */
        vec_topk_init(&top, 10);
        for (j = 0; j < 900; j++)
            vec_topk_offer(&top, (uint32_t)j,
                           vec_dist(defs.metric, q, vec_inv_norm(q, 3),
                                    all[j], vec_inv_norm(all[j], 3), 3));
        vec_topk_take(&top, h);
        vec_topk_fini(&top);
        want[0] = '\0';
        for (j = 0; j < 10; j++)
            snprintf(want + strlen(want), sizeof(want) - strlen(want),
                     ",k%03u,", h[j].slot);
        for (tok = strtok_r(got, ",", &save); tok != NULL;
             tok = strtok_r(NULL, ",", &save)) {
            char needle[24];

            snprintf(needle, sizeof(needle), ",%s,", tok);
            hits += strstr(want, needle) != NULL;
        }
    }
    ck_assert_msg(hits >= 190, "recall %zu/200", hits);
    vector_table_close(vt);
    free(all);
    json_decref(d);
}
END_TEST

static Suite *
vector_suite(void)
{
    Suite *s = suite_create("vector");
    TCase *tc = tcase_create("defs");
    TCase *ts = tcase_create("store");

    tcase_add_test(tc, test_defs_parse);
    tcase_add_test(tc, test_settle);
    tcase_add_test(tc, test_checks);
    suite_add_tcase(s, tc);
    tcase_add_checked_fixture(ts, store_setup, store_teardown);
    tcase_set_timeout(ts, 60);
    tcase_add_test(ts, test_write_check);
    tcase_add_test(ts, test_load_sync_search);
    tcase_add_test(ts, test_search_schema);
    tcase_add_test(ts, test_graph_takes_over);
    suite_add_tcase(s, ts);
    return s;
}

int
main(void)
{
    SRunner *sr = srunner_create(vector_suite());
    int failed;

    srunner_run_all(sr, CK_ENV);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
