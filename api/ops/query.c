/* SPDX-License-Identifier: MIT */
/* query.c - Query: DynamoDB's checks in its order (Select, expressions or
 * legacy parameters, key conditions against the key schema, filters on
 * key attributes, ExclusiveStartKey), then one page of one partition key's
 * items in sort-key order (read.c), on the table or an index. */
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "api/expr/expr.h"
#include "api/expr/legacy.h"
#include "api/expr/request.h"
#include "api/index/index.h"
#include "api/ops/ops.h"
#include "api/ops/read.h"
#include "api/ops/write.h"
#include "api/proto/av.h"
#include "api/proto/capacity.h"
#include "api/tables/tables.h"
#include "api/throttle/gate.h"
#include "storage/util.h"

/* ------------------------------------------------------------------------
 * Checks against the key schema
 * ---------------------------------------------------------------------- */

/* A filter may not name a key attribute at all (dynalite
 * actions/query.js). */
static int
check_filter_keys(struct read_req *r, struct ddb_err *err)
{
    const char *keys[2 * INDEX_KEY_ATTRS_MAX];
    const json_t *qf = json_object_get(r->req, "QueryFilter");
    const char *fe = json_string_value(json_object_get(r->req,
                                                       "FilterExpression"));
    size_t i, nkeys = read_key_names(r, keys);

    for (i = 0; i < nkeys; i++) {
        if (fe != NULL) {
            if (expr_head_use(r->filter, keys[i]) != EXPR_HEAD_NONE)
                return ddb_err_set(err, DDB_VALIDATION,
                                   "Filter Expression can only contain "
                                   "non-primary key attributes: Primary key "
                                   "attribute: %s", keys[i]);
        } else if (json_is_object(qf) &&
                   json_object_get(qf, keys[i]) != NULL) {
            return ddb_err_set(err, DDB_VALIDATION,
                               "QueryFilter can only contain non-primary key "
                               "attributes: Primary key attribute: %s",
                               keys[i]);
        }
    }
    return 0;
}

/*
 * Legacy KeyConditions against the schema, key by key (hash first),
 * interleaved with the start key's per-attribute checks, in DynamoDB's
 * order (dynalite actions/query.js).
 */
static int
check_key_schema(struct read_req *r, struct ddb_err *err)
{
    const struct key_schema *ks = r->qks;
    const json_t *kcs = json_object_get(r->req, "KeyConditions");
    size_t ncond = json_object_size(kcs);
    size_t i, j;

    for (i = 0; i < read_key_attr_count(ks); i++) {
        bool is_hash = i == 0;
        const char *name = is_hash ? ks->hash_name : ks->range_name;
        char type = is_hash ? ks->hash_type : ks->range_type;
        const char tstr[2] = { type, 0 };
        const json_t *c, *avl;
        const char *op;

        if (r->esk != NULL &&
            read_esk_piece(r->esk, name, type, is_hash, err) != 0)
            return -1;
        if (kcs == NULL || json_is_null(kcs))
            continue;               /* KeyConditionExpression: expr_keycond */
        if (r->idx != NULL && index_is_multi(r->idx))
            continue;               /* expr_keycond_multi checks them all */
        if (is_hash && read_key_attr_count(ks) == 1 && ncond > 1)
            return ddb_err_set(err, DDB_VALIDATION,
                               "Query key condition not supported");
        c = json_object_get(kcs, name);
        if (c == NULL) {
            if (is_hash || ncond > 1)
                return ddb_err_set(err, DDB_VALIDATION,
                                   "Query condition missed key schema "
                                   "element: %s", name);
            continue;
        }
        op = json_string_value(json_object_get(c, "ComparisonOperator"));
        if (op == NULL)
            op = "";
        if (strcmp(op, "NULL") == 0 || strcmp(op, "NOT_NULL") == 0 ||
            strcmp(op, "NE") == 0 || strcmp(op, "CONTAINS") == 0 ||
            strcmp(op, "NOT_CONTAINS") == 0 || strcmp(op, "IN") == 0)
            return ddb_err_set(err, DDB_VALIDATION,
                               "Attempted conditional constraint is not an "
                               "indexable operation");
        avl = json_object_get(c, "AttributeValueList");
        for (j = 0; j < json_array_size(avl); j++)
            if (json_object_get(json_array_get(avl, j), tstr) == NULL)
                return ddb_err_set(err, DDB_VALIDATION,
                                   "One or more parameter values were "
                                   "invalid: Condition parameter type does "
                                   "not match schema type");
        if (is_hash && strcmp(op, "EQ") != 0)
            return ddb_err_set(err, DDB_VALIDATION,
                               "Query key condition not supported");
    }
    return 0;
}

/* ------------------------------------------------------------------------
 * Key conditions on encoded sort keys
 * ---------------------------------------------------------------------- */

/* Does the encoded sort key sk satisfy the key condition (v1, v2 are the
 * encoded operands)? */
static bool
sk_matches(const struct keycond *kc, const uint8_t *sk, size_t sk_len,
           const uint8_t *v1, size_t l1, const uint8_t *v2, size_t l2)
{
    size_t m = sk_len < l1 ? sk_len : l1;
    int c = memcmp(sk, v1, m);

    if (c == 0)
        c = sk_len < l1 ? -1 : sk_len > l1 ? 1 : 0;
    switch (kc->op) {
    case KC_NONE:        return true;
    case KC_EQ:          return c == 0;
    case KC_LT:          return c < 0;
    case KC_LE:          return c <= 0;
    case KC_GT:          return c > 0;
    case KC_GE:          return c >= 0;
    case KC_BEGINS_WITH: return sk_len >= l1 && memcmp(sk, v1, l1) == 0;
    case KC_BETWEEN: {
        size_t m2 = sk_len < l2 ? sk_len : l2;
        int c2 = memcmp(sk, v2, m2);

        if (c2 == 0)
            c2 = sk_len < l2 ? -1 : sk_len > l2 ? 1 : 0;
        return c >= 0 && c2 <= 0;
    }
    }
    return false;
}

/* An empty S or B key value. */
static bool
av_empty_key(const json_t *av)
{
    const json_t *s = json_object_get(av, "S");

    if (!json_is_string(s))
        s = json_object_get(av, "B");
    return json_is_string(s) && json_string_length(s) == 0;
}

/* ------------------------------------------------------------------------
 * Query
 * ---------------------------------------------------------------------- */

/*
 * Checks that need no table, in DynamoDB's order (dynalite
 * validations/query.js): Select, expression/legacy mix, QueryFilter,
 * AttributesToGet, ExclusiveStartKey values, a key condition at all, the
 * expressions, KeyConditions.
 */
static int
query_validate(struct read_req *r, struct ddb_err *err)
{
    const json_t *req = r->req;
    bool kce = json_has(req, "KeyConditionExpression");
    size_t n;

    if (read_check_select(r, err) != 0 ||
        req_exprs_begin(&r->x, req, err) != 0)
        return -1;
    if (read_parse_legacy(&r->x, req, EXPR_FILTER, "QueryFilter", &r->filter,
                          err) != 0 ||
        read_parse_legacy(&r->x, req, EXPR_PROJECTION, "AttributesToGet",
                          &r->proj, err) != 0)
        return -1;
    if (read_esk_validate_values(r, err) != 0)
        return -1;
    if (!kce && !json_has(req, "KeyConditions"))
        return ddb_err_set(err, DDB_VALIDATION,
                           "Either the KeyConditions or "
                           "KeyConditionExpression parameter must be "
                           "specified in the request.");
    if (kce && req_exprs_parse(&r->x, req, EXPR_KEY_CONDITION, NULL,
                               &r->keycond, err) != 0)
        return -1;
    if (read_parse_exprs(r, "QueryFilter", err) != 0)
        return -1;
    if (!kce) {
        if (read_parse_legacy(&r->x, req, EXPR_KEY_CONDITION,
                              "KeyConditions", &r->keycond, err) != 0)
            return -1;
        n = json_object_size(json_object_get(req, "KeyConditions"));
        if (n < 1 || n > 2 * LEGACY_KEY_ATTRS_MAX)
            return ddb_err_set(err, DDB_VALIDATION,
                               "Conditions can be of length 1 or 2 only");
        if (r->keycond == NULL)
            return ddb_err_set(err, DDB_VALIDATION,
                               "Conditions can be of length 1 or 2 only");
    }
    read_req_options(r);
    return 0;
}

/* The start key against the key condition (dynalite actions/query.js). */
static int
query_check_start(struct read_req *r, const struct keycond *kc,
                  const uint8_t *pk, size_t pk_len, const uint8_t *v1,
                  size_t l1, const uint8_t *v2, size_t l2,
                  struct ddb_err *err)
{
    bool same_pk = r->start.pk_len == pk_len &&
                   memcmp(r->start.pk, pk, pk_len) == 0;

    if (kc->op == KC_NONE) {
        if (!same_pk)
            return ddb_err_set(err, DDB_VALIDATION,
                               "The provided starting key is outside query "
                               "boundaries based on provided conditions");
        return 0;
    }
    if (r->idx != NULL ? !sk_matches(kc, r->start_isk, r->start_isk_len, v1,
                                     l1, v2, l2)
                       : !sk_matches(kc, r->start.sk, r->start.sk_len, v1,
                                     l1, v2, l2))
        return ddb_err_set(err, DDB_VALIDATION,
                           "The provided starting key does not match the "
                           "range key predicate");
    if (!same_pk)
        return ddb_err_set(err, DDB_VALIDATION,
                           "The query can return at most one row and "
                           "cannot be restarted");
    return 0;
}

/* Rewrite the encoded index sort key value v (l bytes) in place as its
 * bound on the composite sort key (index_sk_bound); tmp is scratch
 * (KEY_BYTES_MAX). Returns the new length. */
static size_t
rebound(uint8_t *v, size_t l, uint8_t tail, uint8_t *tmp)
{
    size_t n = index_sk_bound(v, l, tail, tmp);

    memcpy(v, tmp, n);
    return n;
}

/*
 * The sort-key range on an index's composite sort key for the key
 * condition on the index sort key (index.c design note): v1/v2 are
 * re-encoded in place as composite bounds (v1, v2 have KEY_BYTES_MAX
 * bytes). An equality is a prefix: the value and its terminator.
 */
static int
index_range(const struct keycond *kc, struct sk_range *range, uint8_t *v1,
            size_t l1, uint8_t *v2, size_t l2)
{
    uint8_t *tmp = xmalloc(KEY_BYTES_MAX);

    memset(range, 0, sizeof(*range));
    switch (kc->op) {
    case KC_NONE:
        break;
    case KC_EQ:
        range->prefix = v1;
        range->prefix_len = rebound(v1, l1, 0x00, tmp);
        break;
    case KC_LT:
    case KC_LE:
        range->hi = v1;
        range->hi_len = rebound(v1, l1, kc->op == KC_LT ? 0x00 : 0x01, tmp);
        break;
    case KC_GT:
    case KC_GE:
    case KC_BETWEEN:
        range->lo = v1;
        range->lo_len = rebound(v1, l1, kc->op == KC_GT ? 0x01 : 0x00, tmp);
        range->lo_incl = true;
        if (kc->op == KC_BETWEEN) {
            range->hi = v2;
            range->hi_len = rebound(v2, l2, 0x01, tmp);
        }
        break;
    case KC_BEGINS_WITH:
        range->prefix = v1;
        range->prefix_len = index_sk_prefix(v1, l1, tmp);
        memcpy(v1, tmp, range->prefix_len);
        break;
    }
    free(tmp);
    return 0;
}

/* ------------------------------------------------------------------------
 * Query on a multi-attribute index key
 * ---------------------------------------------------------------------- */

/* Append index_sk_bound(v, n, tail) to the prefix pre (plen bytes) into
 * out. Returns the length. */
static size_t
mk_bound(uint8_t *out, const uint8_t *pre, size_t plen, const uint8_t *v,
         size_t n, uint8_t tail)
{
    uint8_t *tmp = xmalloc(KEY_BYTES_MAX);
    size_t len = plen, b;

    memcpy(out, pre, plen);
    b = index_sk_bound(v, n, tail, tmp);
    if (len + b > KEY_BYTES_MAX)
        b = KEY_BYTES_MAX - len;
    memcpy(out + len, tmp, b);
    free(tmp);
    return len + b;
}

/* Is the composite sort key sk inside range? */
static bool
in_range(const struct sk_range *range, const uint8_t *sk, size_t len)
{
    int c;

    if (range->prefix != NULL &&
        (len < range->prefix_len ||
         memcmp(sk, range->prefix, range->prefix_len) != 0))
        return false;
    if (range->lo != NULL) {
        c = bytes_cmp(sk, len, range->lo, range->lo_len);
        if (c < 0 || (c == 0 && !range->lo_incl))
            return false;
    }
    if (range->hi != NULL) {
        c = bytes_cmp(sk, len, range->hi, range->hi_len);
        if (c > 0 || (c == 0 && !range->hi_incl))
            return false;
    }
    return true;
}

/*
 * Query an index whose key has several HASH or RANGE attributes
 * (index.c: the partition key is the composite of the HASH values, the
 * sort key that of the RANGE values and the base key). The equalities on
 * the leading RANGE attributes are a composite prefix; the condition on
 * the next one becomes bounds below that prefix.
 */
static int
query_run_multi(struct read_req *r, struct page *pg, struct ddb_err *err)
{
    const struct index_def *d = r->idx;
    const char *names[2 * INDEX_KEY_ATTRS_MAX];
    char types[2 * INDEX_KEY_ATTRS_MAX];
    struct keycond_multi kc;
    struct sk_range range;
    uint8_t *pk = NULL, *pre = NULL, *v = NULL, *v2 = NULL, *lo = NULL,
            *hi = NULL, h[16];
    size_t i, plen = 0;
    long pk_len, l1 = 0, l2 = 0;
    bool use_range = false;
    int rc = -1;

    for (i = 0; i < d->nhash; i++) {
        names[i] = d->hash[i].name;
        types[i] = d->hash[i].type;
    }
    for (i = 0; i < d->nrange; i++) {
        names[d->nhash + i] = d->range[i].name;
        types[d->nhash + i] = d->range[i].type;
    }
    if (expr_keycond_multi(r->keycond, names, types, d->nhash, d->nrange,
                           &kc, err) != 0)
        return -1;
    for (i = 0; i < d->nhash; i++)
        if (av_empty_key(kc.pk[i]))
            return ddb_err_set(err, DDB_VALIDATION,
                               "One or more parameter values are not valid. "
                               "The AttributeValue for a key attribute "
                               "cannot contain an empty %s value. Key: %s",
                               json_object_get(kc.pk[i], "S") != NULL
                                   ? "string" : "binary", names[i]);
    pk = xmalloc(KEY_BYTES_MAX);
    pre = xmalloc(KEY_BYTES_MAX);
    v = xmalloc(KEY_BYTES_MAX);
    v2 = xmalloc(KEY_BYTES_MAX);
    lo = xmalloc(KEY_BYTES_MAX);
    hi = xmalloc(KEY_BYTES_MAX);
    memset(&range, 0, sizeof(range));
    pk_len = index_pk_encode(d, kc.pk, pk);
    if (pk_len < 0)
        goto badtype;
    for (i = 0; i < kc.neq; i++) {
        l1 = key_encode_value(kc.eq[i], v);
        if (l1 < 0)
            goto badtype;
        index_sk_append(pre, &plen, v, (size_t)l1);
    }
    l1 = 0;
    if (kc.op != KC_NONE) {
        l1 = key_encode_value(kc.v1, v);
        if (kc.op == KC_BETWEEN)
            l2 = key_encode_value(kc.v2, v2);
        if (l1 < 0 || l2 < 0)
            goto badtype;
    }
    /* The bounds. hi: the end of the prefix (its last terminator byte
     * 0x00 -> 0x01 sorts after every composite beginning with it). */
    switch (kc.op) {
    case KC_NONE:
    case KC_EQ:
        if (plen > 0) {
            range.prefix = pre;
            range.prefix_len = plen;
            use_range = true;
        }
        break;
    case KC_LT:
    case KC_LE:
        range.hi_len = mk_bound(hi, pre, plen, v, (size_t)l1,
                                kc.op == KC_LT ? 0x00 : 0x01);
        range.hi = hi;
        if (plen > 0) {
            range.lo = pre;
            range.lo_len = plen;
            range.lo_incl = true;
        }
        use_range = true;
        break;
    case KC_GT:
    case KC_GE:
        range.lo_len = mk_bound(lo, pre, plen, v, (size_t)l1,
                                kc.op == KC_GE ? 0x00 : 0x01);
        range.lo = lo;
        range.lo_incl = true;
        if (plen > 0) {
            memcpy(hi, pre, plen);
            hi[plen - 1] = 0x01;
            range.hi = hi;
            range.hi_len = plen;
        }
        use_range = true;
        break;
    case KC_BETWEEN:
        range.lo_len = mk_bound(lo, pre, plen, v, (size_t)l1, 0x00);
        range.lo = lo;
        range.lo_incl = true;
        range.hi_len = mk_bound(hi, pre, plen, v2, (size_t)l2, 0x01);
        range.hi = hi;
        use_range = true;
        break;
    case KC_BEGINS_WITH:
        memcpy(lo, pre, plen);
        range.prefix_len = plen + index_sk_prefix(v, (size_t)l1, v2);
        if (range.prefix_len > KEY_BYTES_MAX)
            range.prefix_len = KEY_BYTES_MAX;
        memcpy(lo + plen, v2, range.prefix_len - plen);
        range.prefix = lo;
        use_range = range.prefix_len > 0;
        break;
    }
    if (r->esk != NULL) {
        if (read_esk_build(r, err) != 0)
            goto out;
        if (r->start.pk_len != (size_t)pk_len ||
            memcmp(r->start.pk, pk, (size_t)pk_len) != 0) {
            ddb_err_set(err, DDB_VALIDATION,
                        "The provided starting key is outside query "
                        "boundaries based on provided conditions");
            goto out;
        }
        if (use_range && !in_range(&range, r->start.sk, r->start.sk_len)) {
            ddb_err_set(err, DDB_VALIDATION,
                        "The provided starting key does not match the "
                        "range key predicate");
            goto out;
        }
    }
    if (read_check_nested_keys(r, "ProjectionExpression", err) != 0 ||
        check_filter_keys(r, err) != 0 ||
        read_check_nested_keys(r, "FilterExpression", err) != 0 ||
        read_check_projected(r, err) != 0)
        goto out;
    key_pk_hash(r->idx->nhash > 1 ? 0 : r->idx->hash[0].type, pk,
                (size_t)pk_len, h);
    rc = gate_admit_index(r->ctx, r->ot.name, r->idx, r->iset.desc, h, pk,
                          (size_t)pk_len, THROTTLE_READ, 0.5, &r->th, err);
    if (rc != 0)
        goto out;
    rc = stable_query(r->src, h, pk, (size_t)pk_len,
                      use_range ? &range : NULL,
                      r->forward, r->esk != NULL ? r->start.sk : NULL,
                      r->esk != NULL ? r->start.sk_len : 0, read_page_row, pg,
                      err);
    if (rc > 0)
        rc = 0;
    goto out;
badtype:
    ddb_err_set(err, DDB_VALIDATION,
                "One or more parameter values were invalid: Condition "
                "parameter type does not match schema type");
out:
    free(pk);
    free(pre);
    free(v);
    free(v2);
    free(lo);
    free(hi);
    return rc;
}

static int
query_run(struct read_req *r, struct page *pg, struct ddb_err *err)
{
    static const uint8_t none[1] = { 0 };
    struct keycond kc;
    struct sk_range range;
    struct stable_rows rows;
    uint8_t pk[KEY_BYTES_MAX], v1[KEY_BYTES_MAX], v2[KEY_BYTES_MAX], h[16];
    long pk_len, l1 = 0, l2 = 0;
    int rc = -1;

    if (r->idx != NULL && index_is_multi(r->idx))
        return query_run_multi(r, pg, err);
    memset(&kc, 0, sizeof(kc));
    memset(&range, 0, sizeof(range));
    if (expr_keycond(r->keycond, r->qks, &kc, err) != 0)
        return -1;
    if (kc.pk == NULL)
        return ddb_err_set(err, DDB_VALIDATION,
                           "Query condition missed key schema element: %s",
                           r->qks->hash_name);
    if (av_empty_key(kc.pk))
        return ddb_err_set(err, DDB_VALIDATION,
                           "One or more parameter values are not valid. The "
                           "AttributeValue for a key attribute cannot "
                           "contain an empty %s value. Key: %s",
                           json_object_get(kc.pk, "S") != NULL ? "string"
                                                               : "binary",
                           r->qks->hash_name);
    pk_len = key_encode_value(kc.pk, pk);
    if (pk_len < 0) {
        ddb_err_set(err, DDB_VALIDATION,
                    "One or more parameter values were invalid: Condition "
                    "parameter type does not match schema type");
        goto out;
    }
    if (kc.op != KC_NONE) {
        l1 = key_encode_value(kc.v1, v1);
        if (kc.op == KC_BETWEEN)
            l2 = key_encode_value(kc.v2, v2);
        if (l1 < 0 || l2 < 0) {
            ddb_err_set(err, DDB_VALIDATION,
                        "One or more parameter values were invalid: "
                        "Condition parameter type does not match schema "
                        "type");
            goto out;
        }
    }
    if (r->esk != NULL) {
        if (read_esk_build(r, err) != 0 ||
            query_check_start(r, &kc, pk, (size_t)pk_len, v1, (size_t)l1,
                              v2, (size_t)l2, err) != 0)
            goto out;
    }
    if (read_check_nested_keys(r, "ProjectionExpression", err) != 0 ||
        check_filter_keys(r, err) != 0 ||
        read_check_nested_keys(r, "FilterExpression", err) != 0 ||
        read_check_projected(r, err) != 0)
        goto out;

    switch (kc.op) {
    case KC_NONE:
        break;
    case KC_EQ:
        range.lo = range.hi = v1;
        range.lo_len = range.hi_len = (size_t)l1;
        range.lo_incl = range.hi_incl = true;
        break;
    case KC_LT:
    case KC_LE:
        range.hi = v1;
        range.hi_len = (size_t)l1;
        range.hi_incl = kc.op == KC_LE;
        break;
    case KC_GT:
    case KC_GE:
        range.lo = v1;
        range.lo_len = (size_t)l1;
        range.lo_incl = kc.op == KC_GE;
        break;
    case KC_BETWEEN:
        range.lo = v1;
        range.lo_len = (size_t)l1;
        range.hi = v2;
        range.hi_len = (size_t)l2;
        range.lo_incl = range.hi_incl = true;
        break;
    case KC_BEGINS_WITH:
        range.prefix = l1 > 0 ? v1 : none;
        range.prefix_len = (size_t)l1;
        break;
    }

    if (r->idx != NULL && index_range(&kc, &range, v1, (size_t)l1, v2,
                                      (size_t)l2) != 0) {
        ddb_err_set(err, DDB_INTERNAL, "out of memory");
        goto out;
    }
    if (r->esk != NULL && r->idx == NULL && r->ot.ks.range_name[0] == '\0') {
        rc = 0;                     /* one item per key: nothing after it */
        goto out;
    }
    /* Throttling: the page asks the key's partition first: a GSI's own
     * partition, else the table's (an LSI shares the table's capacity and
     * its partition key). */
    key_pk_hash(r->qks->hash_type, pk, (size_t)pk_len, h);
    if (r->idx != NULL && r->idx->global)
        rc = gate_admit_index(r->ctx, r->ot.name, r->idx, r->iset.desc, h,
                              pk, (size_t)pk_len, THROTTLE_READ,
                              r->consistent ? 1 : 0.5, &r->th, err);
    else
        rc = gate_admit_hash(r->ctx, r->ot.t, h, pk, (size_t)pk_len,
                             THROTTLE_READ, r->consistent ? 1 : 0.5, &r->th,
                             err);
    if (rc != 0)
        goto out;
    read_page_rows(r, pg, &rows);
    rc = stable_query_rows(r->src, h, pk, (size_t)pk_len,
                           kc.op == KC_NONE ? NULL : &range, r->forward,
                           r->esk != NULL ? r->start.sk : NULL,
                           r->esk != NULL ? r->start.sk_len : 0, &rows, err);
    if (rc > 0)
        rc = 0;
out:
    return rc;
}

/* The checks against the table: the start key's size, then the legacy
 * key conditions against the key schema: more than 2 only on an index
 * with a multi-attribute key, one per key attribute at most. */
static int
query_check(struct read_req *r, struct ddb_err *err)
{
    const json_t *kcs = json_object_get(r->req, "KeyConditions");
    size_t n = json_is_object(kcs) ? json_object_size(kcs) : 0;

    if (r->esk != NULL && json_object_size(r->esk) != read_esk_attr_count(r))
        return ddb_err_set(err, DDB_VALIDATION,
                           "The provided starting key is invalid");
    if (n > 2 && (r->idx == NULL || !index_is_multi(r->idx) ||
                  n > r->idx->nhash + r->idx->nrange))
        return ddb_err_set(err, DDB_VALIDATION,
                           "Conditions can be of length 1 or 2 only");
    return check_key_schema(r, err);
}

const struct read_steps read_query_steps = {
    OP_QUERY, query_validate, query_check, query_run
};

/* Query: validate, resolve the table, check the key condition and start
 * key against the schema, read one page of the partition key's items. */
int
api_query(struct api_ctx *ctx, const json_t *req, json_t **resp,
          struct ddb_err *err)
{
    return read_run(&read_query_steps, ctx, req, resp, err);
}
