/* SPDX-License-Identifier: MIT */
/* op_query.c - Query and Scan: DynamoDB's semantic checks in its order
 * (Select, expressions or legacy parameters, ExclusiveStartKey, segments,
 * key conditions), then one page read through storage/ (Limit, 1 MB),
 * filtered and projected, with Count/ScannedCount/LastEvaluatedKey. */
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "api/ops/ops.h"
#include "api/proto/capacity.h"
#include "api/expr/expr.h"
#include "api/index/index.h"
#include "api/proto/av.h"
#include "api/ops/common.h"
#include "storage/util.h"

/* A page stops once the items read reach 1 MB (measured before the
 * filter), as DynamoDB's does. */
#define PAGE_BYTES_MAX (1024u * 1024u)

enum read_op { OP_QUERY, OP_SCAN };

/* One parsed Query or Scan request. */
struct read_req {
    enum read_op op;
    const json_t *req;              /* borrowed */
    struct req_exprs x;              /* names/values and legacy translations */
    struct table_ref ot;             /* the table (open after validation) */
    struct expr *keycond;           /* Query only */
    struct expr *filter;            /* FilterExpression / Query|ScanFilter */
    struct expr *proj;              /* ProjectionExpression / AttributesToGet */
    bool count_only;                /* Select: COUNT */
    long long limit;                /* 0: no Limit */
    bool consistent;                /* ConsistentRead */
    bool forward;                   /* ScanIndexForward (Query) */
    json_t *esk;                    /* owned: validated ExclusiveStartKey */
    struct item_key start;          /* encoded ExclusiveStartKey */
    uint64_t lo, hi;                /* Scan: the segment's hash range */
    /* IndexName: the index read instead of the table. */
    const struct key_schema *qks;   /* the key read by: table's or index's */
    bool has_iset;
    struct index_set iset;          /* the table's indexes (IndexName) */
    const struct index_def *idx;    /* the index read, or NULL */
    struct stable *src;             /* what is read: ot.t or idx->t */
    bool fetch;                     /* LSI: read the items from the table */
    uint8_t start_isk[KEY_BYTES_MAX]; /* start key's index sort key */
    size_t start_isk_len;
    struct api_ctx *ctx;            /* borrowed: for throttling */
    struct gate_ticket th;          /* the page's admission (op_common.c) */
};

/* State of the page being read (the row callback's argument). */
struct page {
    struct read_req *r;
    json_t *items;                  /* owned; NULL for Select COUNT */
    json_t *lek;                    /* owned: LastEvaluatedKey or NULL */
    long long count;                /* items that passed the filter */
    long long scanned;              /* items read */
    size_t bytes;                   /* sum of item sizes read */
    json_t *pending;                /* owned: LSI rows whose items are
                                       fetched after the read */
    size_t fetched;                 /* bytes of items fetched (table) */
    /* Scan throttling: bytes read on partitions other than the admitted
     * one are charged to those partitions run by run. */
    bool run_on;                    /* a run is open */
    unsigned run_part;              /* its partition */
    size_t run_bytes;               /* its bytes so far */
    size_t other_bytes;             /* bytes charged to other partitions */
};

static const char *
member_str(const json_t *req, const char *name)
{
    return json_string_value(json_object_get(req, name));
}

/* ------------------------------------------------------------------------
 * Legacy parameters
 * ---------------------------------------------------------------------- */

/*
 * Parse a legacy parameter (QueryFilter / ScanFilter, AttributesToGet,
 * KeyConditions) through op_common when the request has it: DynamoDB
 * checks these at their own points in its order, apart from the
 * expressions. *out is NULL when the member is absent.
 */
static int
parse_legacy(struct req_exprs *x, const json_t *req, enum expr_kind kind,
             const char *member, struct expr **out, struct ddb_err *err)
{
    *out = NULL;
    if (!json_has(req, member))
        return 0;
    return req_exprs_parse(x, req, kind, kind == EXPR_FILTER ? member : NULL,
                           out, err);
}

/* ------------------------------------------------------------------------
 * Select and its projections
 * ---------------------------------------------------------------------- */

/*
 * DynamoDB's rules for Select with ProjectionExpression/AttributesToGet.
 * Query reports them inside "1 validation error detected: ", Scan bare
 * (AWS-verified in moto's tests/test_dynamodb/test_dynamodb_select.py).
 */
static int
check_select(const struct read_req *r, struct ddb_err *err)
{
    const char *sel = member_str(r->req, "Select");
    const char *pre = r->op == OP_QUERY ? "1 validation error detected: "
                                        : "";
    bool pe = json_has(r->req, "ProjectionExpression");
    bool atg = json_has(r->req, "AttributesToGet");
    const char *what;

    if (sel == NULL)
        return 0;
    if (strcmp(sel, "SPECIFIC_ATTRIBUTES") == 0) {
        if (!pe && !atg)
            return ddb_err_set(err, DDB_VALIDATION,
                               "%sMust specify the AttributesToGet or "
                               "ProjectionExpression when choosing to get "
                               "SPECIFIC_ATTRIBUTES", pre);
        return 0;
    }
    if (strcmp(sel, "ALL_PROJECTED_ATTRIBUTES") == 0 &&
        !json_has(r->req, "IndexName"))
        return ddb_err_set(err, DDB_VALIDATION,
                           "%sALL_PROJECTED_ATTRIBUTES can be used only "
                           "when Querying using an IndexName", pre);
    what = strcmp(sel, "COUNT") == 0 ? "only the Count" : sel;
    if (pe)
        return ddb_err_set(err, DDB_VALIDATION,
                           "%sCannot specify the ProjectionExpression when "
                           "choosing to get %s", pre, what);
    if (atg)
        return ddb_err_set(err, DDB_VALIDATION,
                           "%sCannot specify the AttributesToGet when "
                           "choosing to get %s", pre, what);
    return 0;
}

/* ------------------------------------------------------------------------
 * ExclusiveStartKey
 * ---------------------------------------------------------------------- */

/*
 * Validate the start key's AttributeValues (a canonicalised copy goes to
 * r->esk). DynamoDB prefixes "The provided starting key is invalid: " to
 * every message except the number ones (dynalite validations/query.js).
 */
static int
esk_validate_values(struct read_req *r, struct ddb_err *err)
{
    static const char *const bare[] = {
        "contains duplicates", "number set", "numeric value",
        "significant digits", "number with magnitude",
    };
    const json_t *esk = json_object_get(r->req, "ExclusiveStartKey");
    char msg[DDB_ERR_MSG_MAX];
    size_t i;

    if (esk == NULL || json_is_null(esk))
        return 0;
    r->esk = json_deep_copy(esk);
    if (r->esk == NULL)
        return ddb_err_set(err, DDB_INTERNAL, "out of memory");
    if (item_validate(r->esk, err) == 0)
        return 0;
    if (err == NULL || err->type != DDB_VALIDATION)
        return -1;
    for (i = 0; i < sizeof(bare) / sizeof(bare[0]); i++)
        if (strstr(err->msg, bare[i]) != NULL)
            return -1;
    snprintf(msg, sizeof(msg), "%s", err->msg);
    return ddb_err_set(err, DDB_VALIDATION,
                       "The provided starting key is invalid: %s", msg);
}

/* DynamoDB's per-key-attribute checks on a start key (dynalite
 * db/index.js validateKeyPiece), run while walking the key schema. */
static int
esk_piece(const json_t *esk, const char *name, char type, bool is_hash,
          struct ddb_err *err)
{
    const json_t *av = json_object_get(esk, name);
    const char tstr[2] = { type, 0 };
    const json_t *v;
    const char *s;
    size_t len;

    if (av == NULL)
        return ddb_err_set(err, DDB_VALIDATION,
                           "The provided starting key is invalid");
    v = json_object_get(av, tstr);
    if (v == NULL)
        return ddb_err_set(err, DDB_VALIDATION,
                           "The provided key element does not match the "
                           "schema");
    if (type == 'N')
        return 0;
    s = json_string_value(v);
    if (s == NULL)
        return 0;
    if (s[0] == '\0')
        return ddb_err_set(err, DDB_VALIDATION,
                           "One or more parameter values were invalid: The "
                           "AttributeValue for a key attribute cannot "
                           "contain an empty %s value. Key: %s",
                           type == 'S' ? "string" : "binary", name);
    /* r->esk passed item_validate(): B is valid base64 */
    len = type == 'B' ? item_b64_len(s, strlen(s)) : strlen(s);
    if (is_hash && len > KEY_HASH_MAX)
        return ddb_err_set(err, DDB_VALIDATION,
                           "One or more parameter values were invalid: Size "
                           "of hashkey has exceeded the maximum size limit "
                           "of2048 bytes");
    if (!is_hash && len > KEY_RANGE_MAX)
        return ddb_err_set(err, DDB_VALIDATION,
                           "One or more parameter values were invalid: "
                           "Aggregated size of all range keys has exceeded "
                           "the size limit of 1024 bytes");
    return 0;
}

/* The start key against the table's schema: the whole key, as GetItem
 * would check it, under "The provided starting key is invalid: ". */
static int
esk_build(struct read_req *r, struct ddb_err *err)
{
    char msg[DDB_ERR_MSG_MAX];
    int in;

    if (r->idx != NULL) {
        /* An index start key: the table key and the index key. */
        if (item_key_build(&r->ot.ks, r->esk, false, &r->start, err) != 0)
            goto invalid;
        in = index_row_key(r->idx, &r->ot.ks, r->esk, &r->start, err);
        if (in < 0)
            goto invalid;
        if (in == 0)
            return ddb_err_set(err, DDB_VALIDATION,
                               "The provided starting key is invalid");
        r->start_isk_len = 0;
        if (r->idx->ks.range_type != 0) {
            long l = key_encode_value(
                json_object_get(r->esk, r->idx->ks.range_name),
                r->start_isk);

            r->start_isk_len = l > 0 ? (size_t)l : 0;
        }
        return 0;
    }
    if (item_key_build(&r->ot.ks, r->esk, true, &r->start, err) == 0)
        return 0;
invalid:
    if (err == NULL || err->type != DDB_VALIDATION)
        return -1;
    snprintf(msg, sizeof(msg), "%s", err->msg);
    return ddb_err_set(err, DDB_VALIDATION,
                       "The provided starting key is invalid: %s", msg);
}

static size_t
key_attr_count(const struct key_schema *ks)
{
    return ks->range_name[0] != '\0' ? 2 : 1;
}

/* Attributes a start key has: the table key, plus the index key when
 * reading an index (DynamoDB's LastEvaluatedKey for an index). */
static size_t
esk_attr_count(const struct read_req *r)
{
    const struct key_schema *t = &r->ot.ks;
    const struct key_schema *x;
    size_t n = key_attr_count(t);

    if (r->idx == NULL)
        return n;
    if (index_is_multi(r->idx)) {
        const struct index_def *d = r->idx;
        size_t i;

        for (i = 0; i < d->nhash + d->nrange; i++) {
            const char *a = i < d->nhash ? d->hash[i].name
                                         : d->range[i - d->nhash].name;

            if (strcmp(a, t->hash_name) != 0 && strcmp(a, t->range_name) != 0)
                n++;
        }
        return n;
    }
    x = &r->idx->ks;
    if (strcmp(x->hash_name, t->hash_name) != 0 &&
        strcmp(x->hash_name, t->range_name) != 0)
        n++;
    if (x->range_name[0] != '\0' && strcmp(x->range_name, t->hash_name) != 0
        && strcmp(x->range_name, t->range_name) != 0)
        n++;
    return n;
}

/* ------------------------------------------------------------------------
 * IndexName: read a secondary index instead of the table
 * ---------------------------------------------------------------------- */

/*
 * Resolve IndexName (after the table): the index's key schema becomes the
 * one key conditions, start keys and filters are checked against. GSIs
 * reject ConsistentRead and, unless they project ALL, Select
 * ALL_ATTRIBUTES; an LSI that does not project everything fetches the
 * items from the table when more than its projection may be needed.
 */
static int
check_index(struct api_ctx *ctx, struct read_req *r, struct ddb_err *err)
{
    const char *name = member_str(r->req, "IndexName");
    const char *sel = member_str(r->req, "Select");
    json_t *desc;
    int rc;

    r->qks = &r->ot.ks;
    r->src = r->ot.t;
    if (name == NULL)
        return 0;
    desc = stable_desc_ref(r->ot.t);
    r->has_iset = true;
    rc = desc != NULL ? index_set_open(ctx->srv->st, desc, &r->iset, err)
                      : ddb_err_set(err, DDB_INTERNAL, "no description");
    json_decref(desc);
    if (rc != 0)
        return -1;
    r->idx = index_find(&r->iset, name);
    if (r->idx == NULL)
        return ddb_err_set(err, DDB_VALIDATION,
                           "The table does not have the specified index: %s",
                           name);
    if (r->idx->global && r->consistent)
        return ddb_err_set(err, DDB_VALIDATION,
                           "Consistent reads are not supported on global "
                           "secondary indexes");
    if (!r->idx->readable)
        return ddb_err_set(err, DDB_VALIDATION,
                           "Cannot read from backfilling global secondary "
                           "index: %s", name);
    if (r->idx->global && r->idx->proj != INDEX_PROJ_ALL && sel != NULL &&
        strcmp(sel, "ALL_ATTRIBUTES") == 0)
        return ddb_err_set(err, DDB_VALIDATION,
                           "One or more parameter values were invalid: "
                           "Select type ALL_ATTRIBUTES is not supported for "
                           "global secondary index %s because its "
                           "projection type is not ALL", name);
    r->qks = &r->idx->ks;
    r->src = r->idx->t;
    if (!r->idx->global && r->idx->proj != INDEX_PROJ_ALL &&
        ((sel != NULL && strcmp(sel, "ALL_ATTRIBUTES") == 0) ||
         r->proj != NULL || r->filter != NULL))
        r->fetch = true;
    return 0;
}

/* ------------------------------------------------------------------------
 * Filters on key attributes (Query only)
 * ---------------------------------------------------------------------- */

/* Query: a filter may not name a key attribute at all (dynalite
 * actions/query.js). */
/* The key attributes of what is read: the table's or the index's (every
 * attribute of a multi-attribute index key). Returns the count. */
static size_t
read_key_names(const struct read_req *r, const char **keys)
{
    const struct index_def *d = r->idx;
    size_t i, n = 0;

    if (d != NULL && index_is_multi(d)) {
        for (i = 0; i < d->nhash; i++)
            keys[n++] = d->hash[i].name;
        for (i = 0; i < d->nrange; i++)
            keys[n++] = d->range[i].name;
        return n;
    }
    keys[0] = r->qks->hash_name;
    keys[1] = r->qks->range_name;
    return key_attr_count(r->qks);
}

static int
check_filter_keys(struct read_req *r, struct ddb_err *err)
{
    const char *keys[2 * INDEX_KEY_ATTRS_MAX];
    const json_t *qf = json_object_get(r->req, "QueryFilter");
    const char *fe = member_str(r->req, "FilterExpression");
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

/* Key attributes are scalars: an expression (ProjectionExpression or
 * FilterExpression) may not reach into one with '.' or '[]'. */
static int
check_nested_keys(struct read_req *r, const char *member,
                  struct ddb_err *err)
{
    const char *keys[2 * INDEX_KEY_ATTRS_MAX];
    const struct expr *e = strcmp(member, "FilterExpression") == 0
                           ? r->filter : r->proj;
    size_t i, nkeys = read_key_names(r, keys);

    if (member_str(r->req, member) == NULL)
        return 0;
    for (i = 0; i < nkeys; i++)
        if (expr_head_use(e, keys[i]) == EXPR_HEAD_NESTED)
            return ddb_err_set(err, DDB_VALIDATION,
                               "Key attributes must be scalars; list random "
                               "access '[]' and map lookup '.' are not "
                               "allowed: Key: %s", keys[i]);
    return 0;
}

/* ------------------------------------------------------------------------
 * Query key conditions
 * ---------------------------------------------------------------------- */

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

    for (i = 0; i < key_attr_count(ks); i++) {
        bool is_hash = i == 0;
        const char *name = is_hash ? ks->hash_name : ks->range_name;
        char type = is_hash ? ks->hash_type : ks->range_type;
        const char tstr[2] = { type, 0 };
        const json_t *c, *avl;
        const char *op;

        if (r->esk != NULL && esk_piece(r->esk, name, type, is_hash, err) != 0)
            return -1;
        if (kcs == NULL || json_is_null(kcs))
            continue;               /* KeyConditionExpression: expr_keycond */
        if (r->idx != NULL && index_is_multi(r->idx))
            continue;               /* expr_keycond_multi checks them all */
        if (is_hash && key_attr_count(ks) == 1 && ncond > 1)
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
        op = member_str(c, "ComparisonOperator");
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

static bool
av_empty_key(const json_t *av)
{
    const char *s = json_string_value(json_object_get(av, "S"));

    if (s == NULL)
        s = json_string_value(json_object_get(av, "B"));
    return s != NULL && s[0] == '\0';
}

/* ------------------------------------------------------------------------
 * Reading a page
 * ---------------------------------------------------------------------- */

/* Scan throttling: close the open run, charging it to its partition when
 * that is not the admitted one (whose bytes the final charge pays). */
static void
scan_run_flush(struct read_req *r, struct page *pg)
{
    if (pg->run_on && r->th.admitted && pg->run_part != r->th.tk.part) {
        gate_charge_other(r->ctx, &r->th, pg->run_part,
                                 capacity_read_units(pg->run_bytes,
                                                     r->consistent));
        pg->other_bytes += pg->run_bytes;
    }
    pg->run_on = false;
    pg->run_bytes = 0;
}

/* Scan throttling: row k (size bytes) was read; rows come in hash order,
 * so each partition is one run. */
static void
scan_run(struct read_req *r, struct page *pg, const struct item_key *k,
         size_t size)
{
    unsigned part;

    /* An LSI's rows are laid out by its own table: all to the admitted
     * partition. */
    if (!r->th.admitted || (r->idx != NULL && !r->idx->global))
        return;
    part = stable_part_of(r->src, k->hash);
    if (pg->run_on && part != pg->run_part)
        scan_run_flush(r, pg);
    pg->run_on = true;
    pg->run_part = part;
    pg->run_bytes += size;
}

static int
page_row(void *arg, const struct item_key *k, const json_t *item,
         size_t size, struct ddb_err *err)
{
    struct page *pg = arg;
    struct read_req *r = pg->r;
    bool keep = true;

    if (r->op == OP_SCAN)
        scan_run(r, pg, k, size);
    pg->scanned++;
    pg->bytes += size;
    if (r->fetch) {
        /* The item comes from the table after the read (the partition
         * lock is held here). */
        json_array_append(pg->pending, (json_t *)item);
        keep = false;
    } else if (r->filter != NULL &&
               expr_eval(r->filter, item, &keep, err) != 0) {
        return -1;
    }
    if (keep) {
        pg->count++;
        if (pg->items != NULL) {
            /* storage parses a fresh object for every row and drops its
             * reference after the call (partition.c stream_rows), so
             * keeping one is safe and saves a deep copy per item. */
            json_t *out = r->proj != NULL ? expr_project(r->proj, item)
                                          : json_incref((json_t *)item);

            if (out == NULL)
                return ddb_err_set(err, DDB_INTERNAL, "out of memory");
            json_array_append_new(pg->items, out);
        }
    }
    if ((r->limit > 0 && pg->scanned >= r->limit) ||
        pg->bytes >= PAGE_BYTES_MAX) {
        pg->lek = item_key_map(&r->ot.ks, item);
        if (pg->lek == NULL)
            return ddb_err_set(err, DDB_INTERNAL, "out of memory");
        if (r->idx != NULL) {
            json_t *ik = index_key_map(r->idx, item);

            json_object_update(pg->lek, ik);
            json_decref(ik);
        }
        return 1;
    }
    return 0;
}

/* Build the reply from a finished page. */
static json_t *
page_reply(struct read_req *r, struct page *pg)
{
    json_t *resp = json_object();

    json_object_set_new(resp, "Count", json_integer(pg->count));
    if (pg->items != NULL)
        json_object_set(resp, "Items", pg->items);
    if (pg->lek != NULL)
        json_object_set(resp, "LastEvaluatedKey", pg->lek);
    json_object_set_new(resp, "ScannedCount", json_integer(pg->scanned));
    if (r->idx == NULL) {
        capacity_add(r->ctx->cap, r->ot.name,
                     capacity_read_units(pg->bytes, r->consistent), 0);
    } else {
        capacity_add(r->ctx->cap, r->ot.name,
                     pg->fetched > 0 ? capacity_read_units(pg->fetched,
                                                           r->consistent)
                                     : 0.0,
                     0);
        capacity_add_index(r->ctx->cap, r->ot.name, r->idx->name,
                           r->idx->global,
                           capacity_read_units(pg->bytes, r->consistent));
    }
    return resp;
}

/*
 * LSI reads that need more than the projection: fetch each row's item from
 * the table (after the index read released its partition), then filter
 * and project it. An item deleted in between is skipped.
 */
static int
page_fetch(struct read_req *r, struct page *pg, struct ddb_err *err)
{
    struct item_key *bk;
    const json_t *row;
    json_t *item = NULL;
    size_t i;
    bool keep;
    int rc = -1;

    if (!r->fetch || pg->pending == NULL)
        return 0;
    bk = xmalloc(sizeof(*bk));
    json_array_foreach(pg->pending, i, row) {
        item = NULL;
        if (item_key_build(&r->ot.ks, row, false, bk, err) != 0 ||
            stable_get(r->ot.t, bk, &item, err) != 0)
            goto out;
        if (item == NULL)
            continue;
        pg->fetched += item_size(item);
        keep = true;
        if (r->filter != NULL && expr_eval(r->filter, item, &keep, err) != 0)
            goto out;
        if (keep) {
            const char *sel = member_str(r->req, "Select");

            json_t *out;

            pg->count++;
            if (r->proj != NULL)
                out = expr_project(r->proj, item);
            else if (sel != NULL && strcmp(sel, "ALL_ATTRIBUTES") == 0)
                out = json_incref(item);
            else                    /* fetched only to filter */
                out = index_project(r->idx, &r->ot.ks, item);
            if (pg->items != NULL)
                json_array_append(pg->items, out);
            json_decref(out);
        }
        json_decref(item);
        item = NULL;
    }
    rc = 0;
out:
    json_decref(item);
    free(bk);
    return rc;
}

/* Ready pg for one page of r: an Items list unless only counting, and the
 * list of rows still to fetch from the table when r->fetch. */
static int
page_begin(struct read_req *r, struct page *pg, struct ddb_err *err)
{
    pg->r = r;
    if (!r->count_only && (pg->items = json_array()) == NULL)
        return ddb_err_set(err, DDB_INTERNAL, "out of memory");
    if (r->fetch && (pg->pending = json_array()) == NULL)
        return ddb_err_set(err, DDB_INTERNAL, "out of memory");
    return 0;
}

static void
page_fini(struct page *pg)
{
    json_decref(pg->items);
    json_decref(pg->lek);
    json_decref(pg->pending);
}

/* ------------------------------------------------------------------------
 * Common request parts
 * ---------------------------------------------------------------------- */

/* r for one Query or Scan request (ctx and req borrowed). */
static void
read_req_init(struct read_req *r, enum read_op op, struct api_ctx *ctx,
              const json_t *req)
{
    memset(r, 0, sizeof(*r));
    r->op = op;
    r->ctx = ctx;
    r->req = req;
    req_exprs_init(&r->x);
    r->forward = true;
    r->hi = UINT64_MAX;
}

/* Resolve the table and the index a validated r reads. */
static int
read_open(struct read_req *r, struct ddb_err *err)
{
    if (table_ref_open(r->ctx, r->req, &r->ot, err) != 0)
        return -1;
    return check_index(r->ctx, r, err);
}

static void
read_req_fini(struct read_req *r)
{
    expr_free(r->keycond);
    expr_free(r->filter);
    expr_free(r->proj);
    req_exprs_fini(&r->x);
    if (r->has_iset)
        index_set_close(&r->iset);
    table_ref_close(&r->ot);
    json_decref(r->esk);
}

static void
read_req_options(struct read_req *r)
{
    const json_t *v;

    r->count_only = member_str(r->req, "Select") != NULL &&
                    strcmp(member_str(r->req, "Select"), "COUNT") == 0;
    v = json_object_get(r->req, "Limit");
    if (json_is_integer(v) && json_integer_value(v) > 0)
        r->limit = json_integer_value(v);
    r->consistent = json_is_true(json_object_get(r->req, "ConsistentRead"));
    v = json_object_get(r->req, "ScanIndexForward");
    r->forward = !json_is_false(v);
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

    if (check_select(r, err) != 0 || req_exprs_begin(&r->x, req, err) != 0)
        return -1;
    if (parse_legacy(&r->x, req, EXPR_FILTER, "QueryFilter", &r->filter,
                     err) != 0 ||
        parse_legacy(&r->x, req, EXPR_PROJECTION, "AttributesToGet",
                     &r->proj, err) != 0)
        return -1;
    if (esk_validate_values(r, err) != 0)
        return -1;
    if (!kce && !json_has(req, "KeyConditions"))
        return ddb_err_set(err, DDB_VALIDATION,
                           "Either the KeyConditions or "
                           "KeyConditionExpression parameter must be "
                           "specified in the request.");
    if (kce && req_exprs_parse(&r->x, req, EXPR_KEY_CONDITION, NULL,
                               &r->keycond, err) != 0)
        return -1;
    if (json_has(req, "FilterExpression") &&
        req_exprs_parse(&r->x, req, EXPR_FILTER, "QueryFilter", &r->filter,
                        err) != 0)
        return -1;
    if (json_has(req, "ProjectionExpression") &&
        req_exprs_parse(&r->x, req, EXPR_PROJECTION, NULL, &r->proj,
                        err) != 0)
        return -1;
    if (req_exprs_check_unused(&r->x, req, err) != 0)
        return -1;
    if (!kce) {
        if (parse_legacy(&r->x, req, EXPR_KEY_CONDITION, "KeyConditions",
                         &r->keycond, err) != 0)
            return -1;
        n = json_object_size(json_object_get(req, "KeyConditions"));
        if (n != 1 && n != 2)
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
    size_t n1 = 0, n2 = 0;

    memset(range, 0, sizeof(*range));
    switch (kc->op) {
    case KC_NONE:
        break;
    case KC_EQ:
        n1 = index_sk_bound(v1, l1, 0x00, tmp);
        memcpy(v1, tmp, n1);
        range->prefix = v1;
        range->prefix_len = n1;
        break;
    case KC_LT:
    case KC_LE:
        n1 = index_sk_bound(v1, l1, kc->op == KC_LT ? 0x00 : 0x01, tmp);
        memcpy(v1, tmp, n1);
        range->hi = v1;
        range->hi_len = n1;
        break;
    case KC_GT:
    case KC_GE:
        n1 = index_sk_bound(v1, l1, kc->op == KC_GE ? 0x00 : 0x01, tmp);
        memcpy(v1, tmp, n1);
        range->lo = v1;
        range->lo_len = n1;
        range->lo_incl = true;
        break;
    case KC_BETWEEN:
        n1 = index_sk_bound(v1, l1, 0x00, tmp);
        memcpy(v1, tmp, n1);
        n2 = index_sk_bound(v2, l2, 0x01, tmp);
        memcpy(v2, tmp, n2);
        range->lo = v1;
        range->lo_len = n1;
        range->lo_incl = true;
        range->hi = v2;
        range->hi_len = n2;
        break;
    case KC_BEGINS_WITH:
        n1 = index_sk_prefix(v1, l1, tmp);
        memcpy(v1, tmp, n1);
        range->prefix = v1;
        range->prefix_len = n1;
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
            *hi = NULL;
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
        if (esk_build(r, err) != 0)
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
    if (check_nested_keys(r, "ProjectionExpression", err) != 0 ||
        check_filter_keys(r, err) != 0 ||
        check_nested_keys(r, "FilterExpression", err) != 0)
        goto out;
    {
        struct item_key *hk = xmalloc(sizeof(*hk));

        key_set(hk, pk, (size_t)pk_len, NULL, 0);
        rc = gate_admit_index(r->ctx, r->ot.name, r->idx,
                                     r->iset.desc, hk->hash, pk,
                                     (size_t)pk_len, THROTTLE_READ, 0.5,
                                     &r->th, err);
        free(hk);
        if (rc != 0)
            goto out;
        rc = -1;
    }
    rc = stable_query(r->src, pk, (size_t)pk_len, use_range ? &range : NULL,
                      r->forward, r->esk != NULL ? r->start.sk : NULL,
                      r->esk != NULL ? r->start.sk_len : 0, page_row, pg,
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
    uint8_t pk[KEY_BYTES_MAX], v1[KEY_BYTES_MAX], v2[KEY_BYTES_MAX];
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
        if (esk_build(r, err) != 0 ||
            query_check_start(r, &kc, pk, (size_t)pk_len, v1, (size_t)l1,
                              v2, (size_t)l2, err) != 0)
            goto out;
    }
    if (check_nested_keys(r, "ProjectionExpression", err) != 0 ||
        check_filter_keys(r, err) != 0 ||
        check_nested_keys(r, "FilterExpression", err) != 0)
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
    {
        struct item_key *hk = xmalloc(sizeof(*hk));

        key_set(hk, pk, (size_t)pk_len, NULL, 0);
        if (r->idx != NULL && r->idx->global)
            rc = gate_admit_index(r->ctx, r->ot.name, r->idx,
                                         r->iset.desc, hk->hash, pk,
                                         (size_t)pk_len, THROTTLE_READ,
                                         r->consistent ? 1 : 0.5, &r->th,
                                         err);
        else
            rc = gate_admit_hash(r->ctx, r->ot.t, hk->hash, pk,
                                        (size_t)pk_len, THROTTLE_READ,
                                        r->consistent ? 1 : 0.5, &r->th,
                                        err);
        free(hk);
        if (rc != 0)
            goto out;
        rc = -1;
    }
    rc = stable_query(r->src, pk, (size_t)pk_len,
                      kc.op == KC_NONE ? NULL : &range, r->forward,
                      r->esk != NULL ? r->start.sk : NULL,
                      r->esk != NULL ? r->start.sk_len : 0,
                      page_row, pg, err);
    if (rc > 0)
        rc = 0;
out:
    return rc;
}

/* Query: validate, resolve the table, check the key condition and start
 * key against the schema, read one page of the partition key's items. */
int
api_query(struct api_ctx *ctx, const json_t *req, json_t **resp,
          struct ddb_err *err)
{
    struct read_req rr;
    struct read_req *r = &rr;
    struct page pg;
    int rc = -1;

    memset(&pg, 0, sizeof(pg));
    read_req_init(r, OP_QUERY, ctx, req);
    if (query_validate(r, err) != 0 || read_open(r, err) != 0)
        goto out;
    if (r->esk != NULL && json_object_size(r->esk) != esk_attr_count(r)) {
        ddb_err_set(err, DDB_VALIDATION,
                    "The provided starting key is invalid");
        goto out;
    }
    if (check_key_schema(r, err) != 0)
        goto out;
    if (page_begin(r, &pg, err) != 0)
        goto out;
    if (query_run(r, &pg, err) != 0 || page_fetch(r, &pg, err) != 0)
        goto out;
    *resp = page_reply(r, &pg);
    rc = 0;
out:
    gate_charge(ctx, &r->th, capacity_read_units(pg.bytes,
                                                        r->consistent));
    page_fini(&pg);
    read_req_fini(r);
    return rc;
}

/* ------------------------------------------------------------------------
 * Scan
 * ---------------------------------------------------------------------- */

/* Segment i of n covers [i * 2^64 / n, (i + 1) * 2^64 / n - 1] of the ring
 * (the top 64 bits of MD5 of the partition key). */
static void
segment_range(uint64_t seg, uint64_t total, uint64_t *lo, uint64_t *hi)
{
    unsigned __int128 ring = (unsigned __int128)1 << 64;

    *lo = (uint64_t)(ring * seg / total);
    *hi = (uint64_t)(ring * (seg + 1) / total - 1);
}

static int
scan_segments(struct read_req *r, struct ddb_err *err)
{
    const json_t *seg = json_object_get(r->req, "Segment");
    const json_t *tot = json_object_get(r->req, "TotalSegments");
    bool has_seg = seg != NULL && !json_is_null(seg);
    bool has_tot = tot != NULL && !json_is_null(tot);
    json_int_t s, n;

    if (has_seg && !has_tot)
        return ddb_err_set(err, DDB_VALIDATION,
                           "The TotalSegments parameter is required but was "
                           "not present in the request when Segment "
                           "parameter is present");
    if (!has_tot)
        return 0;
    if (!has_seg)
        return ddb_err_set(err, DDB_VALIDATION,
                           "The Segment parameter is required but was not "
                           "present in the request when parameter "
                           "TotalSegments is present");
    s = json_integer_value(seg);
    n = json_integer_value(tot);
    if (s >= n)
        return ddb_err_set(err, DDB_VALIDATION,
                           "The Segment parameter is zero-based and must be "
                           "less than parameter TotalSegments: Segment: %lld "
                           "is not less than TotalSegments: %lld",
                           (long long)s, (long long)n);
    if (s < 0 || n < 1)             /* validate.c rejects these first */
        return ddb_err_set(err, DDB_VALIDATION, "Invalid Segment");
    segment_range((uint64_t)s, (uint64_t)n, &r->lo, &r->hi);
    return 0;
}

/* Checks that need no table (dynalite validations/scan.js order). */
static int
scan_validate(struct read_req *r, struct ddb_err *err)
{
    const json_t *req = r->req;

    if (check_select(r, err) != 0 || req_exprs_begin(&r->x, req, err) != 0)
        return -1;
    if (parse_legacy(&r->x, req, EXPR_PROJECTION, "AttributesToGet",
                     &r->proj, err) != 0 ||
        parse_legacy(&r->x, req, EXPR_FILTER, "ScanFilter", &r->filter,
                     err) != 0)
        return -1;
    if (esk_validate_values(r, err) != 0 || scan_segments(r, err) != 0)
        return -1;
    if (json_has(req, "FilterExpression") &&
        req_exprs_parse(&r->x, req, EXPR_FILTER, "ScanFilter", &r->filter,
                        err) != 0)
        return -1;
    if (json_has(req, "ProjectionExpression") &&
        req_exprs_parse(&r->x, req, EXPR_PROJECTION, NULL, &r->proj,
                        err) != 0)
        return -1;
    if (req_exprs_check_unused(&r->x, req, err) != 0)
        return -1;
    read_req_options(r);
    return 0;
}

static int
scan_check_start(struct read_req *r, struct ddb_err *err)
{
    uint64_t h;

    if (json_object_size(r->esk) != esk_attr_count(r))
        return ddb_err_set(err, DDB_VALIDATION,
                           "The provided starting key is invalid: The "
                           "provided key element does not match the schema");
    if (esk_build(r, err) != 0)
        return -1;
    h = key_hash64(r->start.hash);
    if (h < r->lo || h > r->hi)
        return ddb_err_set(err, DDB_VALIDATION,
                           "The provided starting key is invalid: Invalid "
                           "ExclusiveStartKey. Please use ExclusiveStartKey "
                           "with correct Segment. TotalSegments: %lld "
                           "Segment: %lld",
                           (long long)json_integer_value(
                               json_object_get(r->req, "TotalSegments")),
                           (long long)json_integer_value(
                               json_object_get(r->req, "Segment")));
    return 0;
}

/* Scan: validate, resolve the table, read one page of the segment's hash
 * range in (hash, partition key, sort key) order. */
int
api_scan(struct api_ctx *ctx, const json_t *req, json_t **resp,
         struct ddb_err *err)
{
    struct read_req rr;
    struct read_req *r = &rr;
    struct page pg;
    int rc = -1;

    memset(&pg, 0, sizeof(pg));
    read_req_init(r, OP_SCAN, ctx, req);
    if (scan_validate(r, err) != 0 || read_open(r, err) != 0)
        goto out;
    if ((r->esk != NULL && scan_check_start(r, err) != 0) ||
        check_nested_keys(r, "ProjectionExpression", err) != 0 ||
        check_nested_keys(r, "FilterExpression", err) != 0)
        goto out;
    if (page_begin(r, &pg, err) != 0)
        goto out;
    /* Throttling: the page asks the partition it starts in (a GSI's own,
     * else the table's) and pays all it read there. */
    {
        uint8_t h[16] = { 0 };
        int i;

        if (r->esk != NULL)
            memcpy(h, r->start.hash, sizeof(h));
        else
            for (i = 0; i < 8; i++)
                h[i] = (uint8_t)(r->lo >> (56 - 8 * i));
        if (r->idx != NULL && r->idx->global
                ? gate_admit_index(ctx, r->ot.name, r->idx,
                                          r->iset.desc, h, NULL, 0,
                                          THROTTLE_READ,
                                          r->consistent ? 1 : 0.5, &r->th,
                                          err) != 0
                : gate_admit_hash(ctx, r->ot.t, h, NULL, 0,
                                         THROTTLE_READ,
                                         r->consistent ? 1 : 0.5, &r->th,
                                         err) != 0)
            goto out;
    }
    rc = stable_scan(r->src, r->lo, r->hi,
                     r->esk != NULL ? &r->start : NULL, page_row, &pg, err);
    if (rc > 0)
        rc = 0;
    if (rc == 0 && page_fetch(r, &pg, err) != 0)
        rc = -1;
    if (rc != 0) {
        rc = -1;
        goto out;
    }
    *resp = page_reply(r, &pg);
out:
    scan_run_flush(r, &pg);
    gate_charge(ctx, &r->th, capacity_read_units(
                                        pg.bytes - pg.other_bytes,
                                        r->consistent));
    page_fini(&pg);
    read_req_fini(r);
    return rc;
}
