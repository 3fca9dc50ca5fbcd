/* SPDX-License-Identifier: MIT */
/* check_index.c - secondary index rows (api/index/index.c): the composite sort
 * key's order, sparse and mistyped index keys, projections, the per-index
 * write plan and its units, and the ConsumedCapacity maps. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/index/index.h"

/* Table pk (S) / sk (S); index "gi" on g (S) / n (N). */
static struct index_set set;

static void
setup(void)
{
    struct index_def *d = &set.idx[0];

    memset(&set, 0, sizeof(set));
    strcpy(set.base.hash_name, "pk");
    set.base.hash_type = 'S';
    strcpy(set.base.range_name, "sk");
    set.base.range_type = 'S';
    set.n = 1;
    d->name = "gi";
    d->global = true;
    d->readable = true;
    strcpy(d->ks.hash_name, "g");
    d->ks.hash_type = 'S';
    strcpy(d->ks.range_name, "n");
    d->ks.range_type = 'N';
    d->proj = INDEX_PROJ_ALL;
}

static json_t *
item(const char *pk, const char *sk, const char *g, const char *n)
{
    json_t *it = json_pack("{s:{s:s}, s:{s:s}}", "pk", "S", pk, "sk", "S",
                           sk);

    if (g != NULL)
        json_object_set_new(it, "g", json_pack("{s:s}", "S", g));
    if (n != NULL)
        json_object_set_new(it, "n", json_pack("{s:s}", "N", n));
    return it;
}

static int
key_cmp(const struct item_key *a, const struct item_key *b)
{
    size_t m = a->sk_len < b->sk_len ? a->sk_len : b->sk_len;
    int c = memcmp(a->sk, b->sk, m);

    if (c != 0)
        return c;
    return a->sk_len < b->sk_len ? -1 : a->sk_len > b->sk_len;
}

START_TEST(test_index_order_by_index_key_then_table_key)
{
    /* Sorted as DynamoDB orders them: n first, ties by table key. */
    static const char *const rows[][3] = {
        { "b", "1", "-5" }, { "a", "2", "0" }, { "a", "3", "0" },
        { "b", "0", "0" }, { "a", "0", "2" }, { "a", "0", "10" },
    };
    struct item_key k[6];
    struct ddb_err err;
    size_t i;

    ddb_err_init(&err);
    for (i = 0; i < 6; i++) {
        json_t *it = item(rows[i][0], rows[i][1], "G", rows[i][2]);

        ck_assert_int_eq(index_row_key(&set.idx[0], &set.base, it, &k[i],
                                       &err), 1);
        json_decref(it);
    }
    for (i = 1; i < 6; i++) {
        ck_assert_int_lt(key_cmp(&k[i - 1], &k[i]), 0);
        ck_assert_mem_eq(k[i].hash, k[0].hash, 16);    /* same index pk */
    }
}
END_TEST

START_TEST(test_index_bounds)
{
    /* LE 0 sorts after every n = 0 row and before n = 2; GT 0 likewise. */
    uint8_t v[NUM_KEY_MAX], b[KEY_BYTES_MAX];
    struct item_key k0, k2;
    struct ddb_err err;
    json_t *a = item("zz", "zz", "G", "0"), *c = item("a", "a", "G", "2");
    size_t n, bl;
    char canon[NUM_TEXT_MAX];

    ddb_err_init(&err);
    ck_assert_int_eq(index_row_key(&set.idx[0], &set.base, a, &k0, &err), 1);
    ck_assert_int_eq(index_row_key(&set.idx[0], &set.base, c, &k2, &err), 1);
    ck_assert_int_eq(num_canonical("0", canon, &err), 0);
    n = num_sortkey(canon, v);
    bl = index_sk_bound(v, n, 0x01, b);
    ck_assert_int_gt(memcmp(b, k0.sk, bl < k0.sk_len ? bl : k0.sk_len), 0);
    ck_assert_int_lt(memcmp(b, k2.sk, bl < k2.sk_len ? bl : k2.sk_len), 0);
    bl = index_sk_bound(v, n, 0x00, b);
    ck_assert_int_le(memcmp(b, k0.sk, bl), 0);     /* EQ prefix */
    ck_assert_mem_eq(b, k0.sk, bl);
    json_decref(a);
    json_decref(c);
}
END_TEST

START_TEST(test_index_sparse_and_mistyped)
{
    struct item_key k;
    struct ddb_err err;
    json_t *no_g = item("a", "b", NULL, "1");
    json_t *bad = item("a", "b", "G", NULL);
    json_t *empty = item("a", "b", "", "1");

    ddb_err_init(&err);
    ck_assert_int_eq(index_row_key(&set.idx[0], &set.base, no_g, &k, &err),
                     0);
    json_object_set_new(bad, "n", json_pack("{s:s}", "S", "x"));
    ck_assert_int_eq(index_row_key(&set.idx[0], &set.base, bad, &k, &err),
                     -1);
    ck_assert_str_eq(err.msg, "One or more parameter values were invalid: "
                     "Type mismatch for Index Key n Expected: N Actual: S "
                     "IndexName: gi");
    ddb_err_clear(&err);
    ck_assert_int_eq(index_row_key(&set.idx[0], &set.base, empty, &k, &err),
                     -1);
    ck_assert_ptr_nonnull(strstr(err.msg, "IndexName: gi, IndexKey: g"));
    ddb_err_clear(&err);
    json_decref(no_g);
    json_decref(bad);
    json_decref(empty);
}
END_TEST

/* Index key values over 2048 bytes (partition) and 1024 (sort) are
 * refused with DynamoDB's "Size limit exceeded for Index Key" message;
 * numbers and values at the limit are fine, and a value that is not an
 * S is never measured. */
START_TEST(test_index_key_sizes)
{
    struct index_def *d = &set.idx[0];
    struct item_key k;
    struct ddb_err err;
    char *big = malloc(2050);
    json_t *it;

    memset(big, 'x', 2049);
    big[2049] = '\0';
    ddb_err_init(&err);
    it = item("a", "b", big, "1");
    ck_assert_int_eq(index_row_key(d, &set.base, it, &k, &err), -1);
    ck_assert_str_eq(err.msg, "One or more parameter values were invalid: "
                     "Size limit exceeded for Index Key g Actual Size: 2049 "
                     "bytes Max Size: 2048 bytes IndexName: gi");
    ddb_err_clear(&err);
    json_decref(it);
    big[2048] = '\0';
    it = item("a", "b", big, "1");
    ck_assert_int_eq(index_row_key(d, &set.base, it, &k, &err), 1);
    json_decref(it);
    /* a sort key: 1024 bytes */
    d->ks.range_type = 'S';
    big[1025] = '\0';
    it = item("a", "b", "g", NULL);
    json_object_set_new(it, "n", json_pack("{s:s}", "S", big));
    ck_assert_int_eq(index_row_key(d, &set.base, it, &k, &err), -1);
    ck_assert_str_eq(err.msg, "One or more parameter values were invalid: "
                     "Size limit exceeded for Index Key n Actual Size: 1025 "
                     "bytes Max Size: 1024 bytes IndexName: gi");
    ddb_err_clear(&err);
    json_decref(it);
    big[1024] = '\0';
    it = item("a", "b", "g", NULL);
    json_object_set_new(it, "n", json_pack("{s:s}", "S", big));
    ck_assert_int_eq(index_row_key(d, &set.base, it, &k, &err), 1);
    json_decref(it);
    free(big);
}
END_TEST

START_TEST(test_index_projection)
{
    json_t *it = item("a", "b", "G", "1"), *p;
    json_t *nka = json_pack("[s]", "x");

    json_object_set_new(it, "x", json_pack("{s:s}", "S", "1"));
    json_object_set_new(it, "y", json_pack("{s:s}", "S", "2"));
    set.idx[0].proj = INDEX_PROJ_KEYS_ONLY;
    p = index_project(&set.idx[0], &set.base, it);
    ck_assert_int_eq(json_object_size(p), 4);
    ck_assert_ptr_null(json_object_get(p, "x"));
    json_decref(p);
    set.idx[0].proj = INDEX_PROJ_INCLUDE;
    set.idx[0].nonkey = nka;
    p = index_project(&set.idx[0], &set.base, it);
    ck_assert_int_eq(json_object_size(p), 5);
    ck_assert_ptr_nonnull(json_object_get(p, "x"));
    json_decref(p);
    json_decref(nka);
    json_decref(it);
}
END_TEST

START_TEST(test_index_plan_units)
{
    struct index_plan *p = calloc(1, sizeof(*p));
    struct ddb_err err;
    json_t *a = item("a", "b", "G", "1"), *a2 = item("a", "b", "H", "1");
    json_t *sparse = item("a", "b", NULL, NULL), *a3;

    ddb_err_init(&err);
    ck_assert_int_eq(index_plan(&set, NULL, a, p, &err), 0);   /* new */
    ck_assert_uint_eq(p->nops, 1);
    ck_assert(p->units[0] == 1.0);
    index_plan_fini(p);
    ck_assert_int_eq(index_plan(&set, a, a2, p, &err), 0);     /* moved */
    ck_assert_uint_eq(p->nops, 2);
    ck_assert_ptr_null(p->args[0].row);                       /* delete */
    ck_assert(p->units[0] == 2.0);
    index_plan_fini(p);
    ck_assert_int_eq(index_plan(&set, a, sparse, p, &err), 0); /* removed */
    ck_assert_uint_eq(p->nops, 1);
    ck_assert(p->units[0] == 1.0);
    index_plan_fini(p);
    ck_assert_int_eq(index_plan(&set, sparse, sparse, p, &err), 0);
    ck_assert_uint_eq(p->nops, 0);
    ck_assert(p->units[0] == 0.0);
    /* KEYS_ONLY: a non-key change leaves the row alone. */
    set.idx[0].proj = INDEX_PROJ_KEYS_ONLY;
    a3 = json_deep_copy(a);
    json_object_set_new(a3, "z", json_pack("{s:s}", "S", "z"));
    ck_assert_int_eq(index_plan(&set, a, a3, p, &err), 0);
    ck_assert_uint_eq(p->nops, 0);
    ck_assert(p->units[0] == 0.0);
    index_plan_fini(p);
    json_decref(a);
    json_decref(a2);
    json_decref(a3);
    json_decref(sparse);
    free(p);
}
END_TEST

/* The ConsumedCapacity of a request that consumed table_units on T and
 * units[i] on index i of set, for mode (the ledger's call form). */
static json_t *
index_capacity_json(const json_t *mode, const char *table,
                    double table_units, const struct index_set *s,
                    const double *units)
{
    struct capacity c;
    json_t *cc;

    capacity_init(&c);
    capacity_add(&c, table, 0, table_units);
    index_capacity_add(&c, table, s, units);
    cc = capacity_report(&c, mode, 0);
    capacity_fini(&c);
    return cc;
}

START_TEST(test_index_capacity_json)
{
    double units[INDEX_MAX] = { 2.0 };
    json_t *mode = json_string("INDEXES"), *total = json_string("TOTAL");
    json_t *cc;

    cc = index_capacity_json(mode, "T", 1.0, &set, units);
    ck_assert(json_real_value(json_object_get(cc, "CapacityUnits")) == 3.0);
    ck_assert(json_real_value(json_object_get(
                  json_object_get(json_object_get(cc,
                                                  "GlobalSecondaryIndexes"),
                                  "gi"), "CapacityUnits")) == 2.0);
    ck_assert_ptr_null(json_object_get(cc, "LocalSecondaryIndexes"));
    json_decref(cc);
    cc = index_capacity_json(total, "T", 1.0, &set, units);
    ck_assert_int_eq(json_object_size(cc), 2);
    json_decref(cc);
    units[0] = 0.0;
    cc = index_capacity_json(mode, "T", 1.0, &set, units);
    ck_assert_ptr_null(json_object_get(cc, "GlobalSecondaryIndexes"));
    json_decref(cc);
    ck_assert_ptr_null(index_capacity_json(NULL, "T", 1.0, &set, units));
    json_decref(mode);
    json_decref(total);
}
END_TEST

START_TEST(test_index_hidden_names)
{
    char buf[64];

    index_table_name("Orders", "byStatus", buf, sizeof(buf));
    ck_assert_str_eq(buf, "Orders/index/byStatus");
    ck_assert(index_is_hidden_name(buf));
    ck_assert(!index_is_hidden_name("Orders"));
}
END_TEST


/* ------------------------------------------------------------------------
 * Item collections and gated writes, on real (in-memory) storage: table
 * "c" pk (S) / sk (S) with LSI "li" on pk / l (S), KEYS_ONLY.
 * ---------------------------------------------------------------------- */

static struct storage *cst;
static struct stable *cbase;
static struct index_set cset;

static void
coll_setup(void)
{
    struct ddb_err err;
    json_t *desc = json_pack(
        "{s:s, s:[{s:s, s:s}, {s:s, s:s}, {s:s, s:s}],"
        " s:[{s:s, s:s}, {s:s, s:s}],"
        " s:[{s:s, s:[{s:s, s:s}, {s:s, s:s}], s:{s:s}}]}",
        "TableName", "c",
        "AttributeDefinitions", "AttributeName", "pk", "AttributeType", "S",
        "AttributeName", "sk", "AttributeType", "S",
        "AttributeName", "l", "AttributeType", "S",
        "KeySchema", "AttributeName", "pk", "KeyType", "HASH",
        "AttributeName", "sk", "KeyType", "RANGE",
        "LocalSecondaryIndexes", "IndexName", "li", "KeySchema",
        "AttributeName", "pk", "KeyType", "HASH", "AttributeName", "l",
        "KeyType", "RANGE", "Projection", "ProjectionType", "KEYS_ONLY");
    char hidden[64];

    ddb_err_init(&err);
    cst = storage_open(NULL, &err);
    ck_assert_ptr_nonnull(cst);
    ck_assert_int_eq(storage_table_create(cst, "c", desc, 2, &err), 0);
    index_table_name("c", "li", hidden, sizeof(hidden));
    ck_assert_int_eq(storage_table_create(cst, hidden, desc, 2, &err), 0);
    cbase = storage_table_get(cst, "c");
    ck_assert_ptr_nonnull(cbase);
    ck_assert_int_eq(index_set_open(cst, desc, &cset, &err), 0);
    ck_assert_uint_eq(cset.n, 1);
    ck_assert(index_set_has_lsi(&cset));
    json_decref(desc);
}

static void
coll_teardown(void)
{
    index_set_close(&cset);
    stable_release(cbase);
    storage_close(cst);
}

/* An item of about `size` bytes in collection pk. */
static json_t *
citem(const char *pk, const char *sk, size_t size)
{
    char *d = malloc(size + 1);
    json_t *it;

    memset(d, 'x', size);
    d[size] = '\0';
    it = json_pack("{s:{s:s}, s:{s:s}, s:{s:s}, s:{s:s}}", "pk", "S", pk,
                   "sk", "S", sk, "l", "S", sk, "d", "S", d);
    free(d);
    return it;
}

static int
cput_fn(void *arg, const json_t *old, size_t old_size, json_t **new_item,
        size_t *new_size, bool *keep, struct ddb_err *err)
{
    json_t *it = arg;

    (void)old;
    (void)keep;
    (void)err;
    *new_item = json_incref(it);
    *new_size = item_size(it);
    return 0;
}

struct cgate {
    int calls;
    bool refuse;
    uint64_t limit;
    const struct item_key *k;
};

static int
cgate_fn(void *arg, const json_t *old, const json_t *new_item,
         const struct index_plan *p, struct ddb_err *err)
{
    struct cgate *g = arg;

    g->calls++;
    ck_assert_uint_le(p->nops, 1);  /* at most the LSI row's put */
    if (g->refuse)
        return ddb_err_set(err, DDB_THROUGHPUT_EXCEEDED, "refused");
    return index_collection_check(&cset, cbase, g->k, old, new_item,
                                  g->limit, err);
}

/* Put it through index_mutate_gated; the rc. */
static int
cput(json_t *it, struct cgate *g, struct ddb_err *err)
{
    struct item_key k;
    int rc;

    ck_assert_int_eq(item_key_build(&cset.base, it, false, &k, err), 0);
    g->k = &k;
    rc = index_mutate_gated(&cset, cbase, &k, cput_fn, it, cgate_fn, g,
                            NULL, err);
    json_decref(it);
    return rc;
}

static uint64_t
rows(struct stable *t)
{
    uint64_t count = 0, bytes = 0;
    struct ddb_err err;

    ddb_err_init(&err);
    ck_assert_int_eq(stable_stats(t, &count, &bytes, &err), 0);
    return count;
}

START_TEST(test_index_gate_refusal_writes_nothing)
{
    struct cgate g = { .refuse = true };
    struct ddb_err err;

    ddb_err_init(&err);
    ck_assert_int_eq(cput(citem("a", "1", 10), &g, &err), -1);
    ck_assert_int_eq(err.type, DDB_THROUGHPUT_EXCEEDED);
    ck_assert_int_eq(g.calls, 1);
    ck_assert_uint_eq(rows(cbase), 0);
    ck_assert_uint_eq(rows(cset.idx[0].t), 0);
    ddb_err_clear(&err);
    g.refuse = false;
    ck_assert_int_eq(cput(citem("a", "1", 10), &g, &err), 0);
    ck_assert_uint_eq(rows(cbase), 1);
    ck_assert_uint_eq(rows(cset.idx[0].t), 1);
}
END_TEST

START_TEST(test_index_collection_limit)
{
    struct cgate g = { .limit = 4096 };
    struct ddb_err err;
    int i;

    ddb_err_init(&err);
    for (i = 0; i < 4; i++) {
        char sk[8];

        snprintf(sk, sizeof(sk), "%d", i);
        ck_assert_int_eq(cput(citem("a", sk, 1000), &g, &err), 0);
    }
    ck_assert_int_eq(cput(citem("a", "4", 1000), &g, &err), -1);
    ck_assert_int_eq(err.type, DDB_ITEM_COLLECTION_SIZE_LIMIT);
    ck_assert_str_eq(err.msg, INDEX_COLLECTION_MSG);
    ddb_err_clear(&err);
    ck_assert_uint_eq(rows(cbase), 4);
    /* Another collection, and a shrinking write, pass. */
    ck_assert_int_eq(cput(citem("b", "0", 1000), &g, &err), 0);
    ck_assert_int_eq(cput(citem("a", "0", 10), &g, &err), 0);
    ck_assert_int_eq(cput(citem("a", "4", 900), &g, &err), 0);
    /* No limit. */
    g.limit = 0;
    ck_assert_int_eq(cput(citem("a", "5", 5000), &g, &err), 0);
}
END_TEST

/* Multi-attribute keys: HASH h1 (S), h2 (N); RANGE a (S), b (N). */
static void
multi_def(struct index_def *d)
{
    memset(d, 0, sizeof(*d));
    d->name = "multi";
    d->global = true;
    d->readable = true;
    d->nhash = 2;
    strcpy(d->hash[0].name, "h1");
    d->hash[0].type = 'S';
    strcpy(d->hash[1].name, "h2");
    d->hash[1].type = 'N';
    d->nrange = 2;
    strcpy(d->range[0].name, "a");
    d->range[0].type = 'S';
    strcpy(d->range[1].name, "b");
    d->range[1].type = 'N';
    d->ks = set.base;               /* first attributes, as def_parse does */
    strcpy(d->ks.hash_name, "h1");
    d->ks.hash_type = 'S';
    strcpy(d->ks.range_name, "a");
    d->ks.range_type = 'S';
    d->proj = INDEX_PROJ_KEYS_ONLY;
}

static json_t *
mitem(const char *pk, const char *h1, const char *h2, const char *a,
      const char *b)
{
    json_t *it = json_pack("{s:{s:s}, s:{s:s}}", "pk", "S", pk, "sk", "S",
                           "0");

    if (h1 != NULL)
        json_object_set_new(it, "h1", json_pack("{s:s}", "S", h1));
    if (h2 != NULL)
        json_object_set_new(it, "h2", json_pack("{s:s}", "N", h2));
    if (a != NULL)
        json_object_set_new(it, "a", json_pack("{s:s}", "S", a));
    if (b != NULL)
        json_object_set_new(it, "b", json_pack("{s:s}", "N", b));
    json_object_set_new(it, "x", json_pack("{s:s}", "S", "other"));
    return it;
}

START_TEST(test_index_multi_order)
{
    /* RANGE attributes compare one after another: a first (even when a
     * prefix of another value: "a" < "a\0"... < "ab"), then b by value,
     * then the table key. */
    static const char *const rows[][3] = {
        { "z", "a", "-1" }, { "y", "a", "3" }, { "x", "a", "20" },
        { "a", "ab", "-100" }, { "b", "b", "1" },
    };
    struct item_key k[5];
    struct ddb_err err;
    struct index_def d;
    size_t i;

    multi_def(&d);
    ck_assert(index_is_multi(&d));
    ddb_err_init(&err);
    for (i = 0; i < 5; i++) {
        json_t *it = mitem(rows[i][0], "H", "7", rows[i][1], rows[i][2]);

        ck_assert_int_eq(index_row_key(&d, &set.base, it, &k[i], &err), 1);
        json_decref(it);
    }
    for (i = 1; i < 5; i++) {
        ck_assert_int_lt(key_cmp(&k[i - 1], &k[i]), 0);
        ck_assert_mem_eq(k[i].hash, k[0].hash, 16);
    }
}
END_TEST

START_TEST(test_index_multi_partition_key)
{
    struct item_key k1, k2;
    struct ddb_err err;
    struct index_def d;
    json_t *a = mitem("p", "H", "7", "a", "1");
    json_t *b = mitem("p", "H", "7.0", "a", "1");
    json_t *c = mitem("p", "H7", "0", "a", "1");
    const json_t *vals[2];
    uint8_t pk[KEY_BYTES_MAX];
    long n;

    multi_def(&d);
    ddb_err_init(&err);
    ck_assert_int_eq(item_validate(b, &err), 0);    /* 7.0 -> 7 */
    ck_assert_int_eq(index_row_key(&d, &set.base, a, &k1, &err), 1);
    ck_assert_int_eq(index_row_key(&d, &set.base, b, &k2, &err), 1);
    ck_assert_uint_eq(k1.pk_len, k2.pk_len);
    ck_assert_mem_eq(k1.pk, k2.pk, k1.pk_len);
    /* The query side encodes the same partition key. */
    vals[0] = json_object_get(a, "h1");
    vals[1] = json_object_get(a, "h2");
    n = index_pk_encode(&d, vals, pk);
    ck_assert_int_eq(n, (long)k1.pk_len);
    ck_assert_mem_eq(pk, k1.pk, k1.pk_len);
    /* Values are not simply concatenated: "H7" + 0 differs. */
    ck_assert_int_eq(index_row_key(&d, &set.base, c, &k2, &err), 1);
    ck_assert(k1.pk_len != k2.pk_len ||
              memcmp(k1.pk, k2.pk, k1.pk_len) != 0);
    json_decref(a);
    json_decref(b);
    json_decref(c);
}
END_TEST

START_TEST(test_index_multi_sparse_mistyped_projection)
{
    struct item_key k;
    struct ddb_err err;
    struct index_def d;
    json_t *it, *p, *km;

    multi_def(&d);
    ddb_err_init(&err);
    it = mitem("p", "H", "1", "a", NULL);           /* no b: absent */
    ck_assert_int_eq(index_row_key(&d, &set.base, it, &k, &err), 0);
    json_decref(it);
    it = mitem("p", "H", NULL, "a", "1");           /* no h2: absent */
    ck_assert_int_eq(index_row_key(&d, &set.base, it, &k, &err), 0);
    json_decref(it);
    it = mitem("p", "H", "1", "a", "1");
    json_object_set_new(it, "b", json_pack("{s:s}", "S", "x"));
    ck_assert_int_eq(index_row_key(&d, &set.base, it, &k, &err), -1);
    ck_assert_str_eq(err.msg, "One or more parameter values were invalid: "
                     "Type mismatch for Index Key b Expected: N Actual: S "
                     "IndexName: multi");
    json_decref(it);
    it = mitem("p", "H", "1", "a", "2");
    p = index_project(&d, &set.base, it);
    ck_assert_uint_eq(json_object_size(p), 6);      /* pk sk h1 h2 a b */
    ck_assert_ptr_null(json_object_get(p, "x"));
    km = index_key_map(&d, it);
    ck_assert_uint_eq(json_object_size(km), 4);
    ck_assert_ptr_nonnull(json_object_get(km, "b"));
    json_decref(km);
    json_decref(p);
    json_decref(it);
}
END_TEST

START_TEST(test_index_multi_prefix_bounds)
{
    /* The composite of a = "a" is a prefix of every row with a = "a";
     * its end (last byte 0x01) sorts after them and before a = "ab". */
    struct item_key k1, k2;
    struct ddb_err err;
    struct index_def d;
    json_t *x = mitem("p", "H", "1", "a", "99"),
           *y = mitem("p", "H", "1", "ab", "0");
    uint8_t pre[KEY_BYTES_MAX];
    size_t plen = 0;

    multi_def(&d);
    ddb_err_init(&err);
    ck_assert_int_eq(index_row_key(&d, &set.base, x, &k1, &err), 1);
    ck_assert_int_eq(index_row_key(&d, &set.base, y, &k2, &err), 1);
    index_sk_append(pre, &plen, (const uint8_t *)"a", 1);
    ck_assert_uint_eq(plen, 3);
    ck_assert_mem_eq(k1.sk, pre, plen);
    ck_assert(memcmp(k2.sk, pre, plen) != 0);
    pre[plen - 1] = 0x01;
    ck_assert_int_gt(memcmp(pre, k1.sk, plen), 0);
    ck_assert_int_lt(memcmp(pre, k2.sk, plen), 0);
    json_decref(x);
    json_decref(y);
}
END_TEST

static Suite *
index_suite(void)
{
    Suite *s = suite_create("index");
    TCase *tc = tcase_create("rows");

    tcase_add_checked_fixture(tc, setup, NULL);
    tcase_add_test(tc, test_index_order_by_index_key_then_table_key);
    tcase_add_test(tc, test_index_bounds);
    tcase_add_test(tc, test_index_sparse_and_mistyped);
    tcase_add_test(tc, test_index_key_sizes);
    tcase_add_test(tc, test_index_projection);
    suite_add_tcase(s, tc);
    tc = tcase_create("multi");
    tcase_add_checked_fixture(tc, setup, NULL);
    tcase_add_test(tc, test_index_multi_order);
    tcase_add_test(tc, test_index_multi_partition_key);
    tcase_add_test(tc, test_index_multi_sparse_mistyped_projection);
    tcase_add_test(tc, test_index_multi_prefix_bounds);
    suite_add_tcase(s, tc);
    tc = tcase_create("writes");
    tcase_add_checked_fixture(tc, setup, NULL);
    tcase_add_test(tc, test_index_plan_units);
    tcase_add_test(tc, test_index_capacity_json);
    tcase_add_test(tc, test_index_hidden_names);
    suite_add_tcase(s, tc);
    tc = tcase_create("collections");
    tcase_add_checked_fixture(tc, coll_setup, coll_teardown);
    tcase_add_test(tc, test_index_gate_refusal_writes_nothing);
    tcase_add_test(tc, test_index_collection_limit);
    suite_add_tcase(s, tc);
    return s;
}

int
main(void)
{
    SRunner *sr = srunner_create(index_suite());
    int failed;

    srunner_run_all(sr, CK_ENV);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
