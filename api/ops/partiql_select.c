/* SPDX-License-Identifier: MIT */
/* partiql_select.c - ExecuteStatement's SELECT: the table or index read,
 * DynamoDB's checks on it (index projections, ORDER BY, consistency),
 * then the read path (read.c): one Query per partition key value the
 * WHERE clause fixes, else a Scan, each page admitted, charged and
 * recorded as Query and Scan are; Limit and the 1 MB page across them,
 * NextToken to go on, the PartiQL projection of what the WHERE kept. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/expr/partiql.h"
#include "api/index/index.h"
#include "api/ops/partiql.h"
#include "api/ops/read.h"
#include "api/proto/av.h"
#include "storage/util.h"

/* The statement's index does not exist (no name appended, unlike Query's
 * message: error-messages/partiql.test.ts, eu-west-2). */
#define MSG_NO_INDEX "The table does not have the specified index"
/* A NextToken this statement did not mint (DynamoDB's wording of this
 * refusal was not recorded; shardlocal's). */
#define MSG_TOKEN "Invalid NextToken"
#define ATTRS_MAX 256               /* attributes named, for the checks */

struct sel {
    struct api_ctx *ctx;
    struct pql_call *c;
    struct table_ref tr;
    bool has_set;
    struct index_set set;
    const struct index_def *d;      /* the index read, or NULL */
    const struct key_schema *qks;   /* the key read by */
    const char *range;              /* its sort key, or NULL */
    struct pql_plan plan;
    bool consistent, forward;
    long long limit;                /* 0: none */
    bool fetch;                     /* an LSI read reaching back for the
                                       SELECT list */
    char fp[17];                    /* the statement's fingerprint */
};

/* ------------------------------------------------------------------------
 * Checks on the table and index
 * ---------------------------------------------------------------------- */

/* The attributes of names (n) d does not project, as "[a, b]" (each once,
 * in order) into out; 0 when it projects them all. */
static int
unprojected(const struct sel *q, const char **names, size_t n,
            struct strbuf *out)
{
    size_t i, j;
    int cnt = 0;

    for (i = 0; i < n && i < ATTRS_MAX; i++) {
        if (read_index_projects(q->d, &q->tr.ks, names[i]))
            continue;
        for (j = 0; j < i && strcmp(names[j], names[i]) != 0; j++)
            ;
        if (j < i)
            continue;
        strbuf_printf(out, "%s%s", cnt++ ? ", " : "[", names[i]);
    }
    if (cnt > 0)
        strbuf_putc(out, ']');
    return cnt;
}

/* The index of "table"."index": DynamoDB's refusals in its order
 * (partiqlMultiAttributeIndex.test.ts, partiql.test.ts). */
static int
open_index(struct sel *q, const char *name, struct ddb_err *err)
{
    json_t *desc = stable_desc_ref(q->tr.t);
    int rc;

    q->has_set = true;
    rc = desc != NULL ? index_set_open(q->ctx->srv->st, desc, &q->set, err)
                      : ddb_err_set(err, DDB_INTERNAL, "no description");
    json_decref(desc);
    if (rc != 0)
        return -1;
    q->d = index_find(&q->set, name);
    if (q->d == NULL)
        return ddb_err_set(err, DDB_VALIDATION, MSG_NO_INDEX);
    if (index_is_multi(q->d))
        return ddb_err_set(err, DDB_VALIDATION, PQL_MSG_MULTI);
    if (q->d->global && q->consistent)
        return ddb_err_set(err, DDB_VALIDATION, "Strongly consistent read is "
                           "not supported on Global Secondary Indexes");
    return 0;
}

/*
 * What an index read may name: a GSI cannot reach back for attributes it
 * does not project ("Global secondary index gsi2 does not project
 * [alternate, mymap]"), an LSI can (a fetch from the table); a read keyed
 * on the index partition key cannot filter on them ("Secondary index X
 * does not project one or more filter attributes: [a]"): indexQualifier
 * and executeStatementIndex tests, eu-west-1 and eu-west-2.
 */
static int
check_index_reads(struct sel *q, struct ddb_err *err)
{
    const struct pql_stmt *s = q->c->s;
    const char *names[ATTRS_MAX];
    struct strbuf b = { 0 };
    size_t n;
    int rc = 0;

    if (q->d == NULL || q->d->proj == INDEX_PROJ_ALL)
        return 0;
    if (!pql_star(s)) {
        n = pql_select_heads(s, names, ATTRS_MAX);
        if (unprojected(q, names, n, &b) > 0) {
            if (q->d->global)
                rc = ddb_err_set(err, DDB_VALIDATION, "One or more parameter "
                                 "values were invalid: Global secondary "
                                 "index %s does not project %s", q->d->name,
                                 b.s);
            else
                q->fetch = true;
        }
        strbuf_free(&b);
        if (rc != 0)
            return -1;
    }
    if (!q->plan.keyed)
        return 0;
    n = pql_where_heads(s, names, ATTRS_MAX);
    if (unprojected(q, names, n, &b) > 0)
        rc = ddb_err_set(err, DDB_VALIDATION, "One or more parameter values "
                         "were invalid: Secondary index %s does not project "
                         "one or more filter attributes: %s", q->d->name,
                         b.s);
    strbuf_free(&b);
    return rc;
}

/* ORDER BY: on a key attribute of what is read, with the partition key
 * fixed (DynamoDB Local's SelectStatementTranslator messages). */
static int
check_order(struct sel *q, struct ddb_err *err)
{
    const char *name;
    bool desc;

    if (!pql_order(q->c->s, &name, &desc))
        return 0;
    if (!pql_has_where(q->c->s))
        return ddb_err_set(err, DDB_VALIDATION, "Must have WHERE clause in "
                           "the statement when using ORDER BY clause.");
    if (q->plan.n == 0)
        return ddb_err_set(err, DDB_VALIDATION, "Must have at least one "
                           "non-optional hash key condition in WHERE clause "
                           "when using ORDER BY clause.");
    if (strcmp(name, q->qks->hash_name) != 0 &&
        (q->range == NULL || strcmp(name, q->range) != 0))
        return ddb_err_set(err, DDB_VALIDATION, "Order by is only supported "
                           "on the key attributes of the table or index");
    q->forward = !desc;
    return 0;
}

/* ------------------------------------------------------------------------
 * NextToken: which Query (branch) goes on, from which key
 * ---------------------------------------------------------------------- */

/* FNV-1a of the statement's text: a token only goes on its own
 * statement (and index). */
static void
fingerprint(const json_t *statement, char out[17])
{
    const unsigned char *p = (const unsigned char *)json_string_value(
        statement);
    size_t i, n = json_string_length(statement);
    uint64_t h = 14695981039346656037ULL;

    for (i = 0; p != NULL && i < n; i++)
        h = (h ^ p[i]) * 1099511628211ULL;
    snprintf(out, 17, "%016llx", (unsigned long long)h);
}

static json_t *
token_encode(const struct sel *q, size_t branch, const json_t *lek)
{
    json_t *t = json_pack("{s:s, s:I, s:O}", "f", q->fp, "b",
                          (json_int_t)branch, "k",
                          lek != NULL ? (json_t *)lek : json_null());
    char *text = json_text(t, JSON_COMPACT | JSON_SORT_KEYS);
    size_t n = strlen(text);
    char *b64 = xmalloc(4 * ((n + 2) / 3) + 1);
    json_t *out;

    item_b64_encode((const uint8_t *)text, n, b64);
    out = json_string(b64);
    free(b64);
    free(text);
    json_decref(t);
    return out;
}

/* The token's branch and start key (*esk new or NULL). */
static int
token_decode(const struct sel *q, const char *tok, size_t *branch,
             json_t **esk, struct ddb_err *err)
{
    size_t len = strlen(tok);
    uint8_t *raw = xmalloc(len + 1);
    long n = item_b64_decode(tok, len, raw, len + 1);
    json_t *t = n > 0 ? json_loadb((const char *)raw, (size_t)n, 0, NULL)
                      : NULL;
    const json_t *k = json_object_get(t, "k");
    json_int_t b = json_integer_value(json_object_get(t, "b"));
    size_t nb = q->plan.n > 0 ? q->plan.n : 1;
    int rc = -1;

    free(raw);
    if (t == NULL || !json_str_is(json_object_get(t, "f"), q->fp) ||
        !json_is_integer(json_object_get(t, "b")) || b < 0 ||
        (size_t)b >= nb || (!json_is_object(k) && !json_is_null(k))) {
        ddb_err_set(err, DDB_VALIDATION, MSG_TOKEN);
        goto out;
    }
    *branch = (size_t)b;
    *esk = json_is_object(k) ? json_incref((json_t *)k) : NULL;
    rc = 0;
out:
    json_decref(t);
    return rc;
}

/* ------------------------------------------------------------------------
 * Reading
 * ---------------------------------------------------------------------- */

/* One page of Query branch (or the Scan) from esk (may be NULL), at most
 * limit items evaluated (0: no limit). *resp: Query's answer. */
static int
read_page(struct sel *q, size_t branch, const json_t *esk, long long limit,
          json_t **resp, struct ddb_err *err)
{
    json_t *rq = json_pack("{s:O, s:b}", "TableName",
                           json_object_get(q->c->tn, "TableName"),
                           "ConsistentRead", q->consistent);
    bool query = q->plan.n > 0;
    struct read_req r;
    int rc;

    if (q->d != NULL)
        json_object_set_new(rq, "IndexName", json_string(q->d->name));
    if (limit > 0)
        json_object_set_new(rq, "Limit", json_integer(limit));
    if (esk != NULL)
        json_object_set(rq, "ExclusiveStartKey", (json_t *)esk);
    if (!q->forward)
        json_object_set_new(rq, "ScanIndexForward", json_false());
    read_req_init(&r, query ? OP_QUERY : OP_SCAN, q->ctx, rq);
    read_req_options(&r);
    if (query)
        r.keycond = pql_keycond(&q->plan.b[branch], q->qks->hash_name,
                                q->range);
    /* The WHERE clause is applied to what the page returns (below); only
     * an LSI's reach-back for the SELECT list fetches from the table. */
    if (q->fetch)
        r.proj = pql_projection(q->c->s, true);
    rc = read_esk_validate_values(&r, err);
    if (rc == 0)
        rc = read_exec(query ? &read_query_steps : &read_scan_steps, &r,
                       resp, err);
    read_req_fini(&r);
    json_decref(rq);
    return rc;
}

/* The items of a page the WHERE clause keeps, projected, into out; their
 * stored sizes add to *bytes. */
static int
keep_items(struct sel *q, const struct expr *filter, const json_t *page,
           json_t *out, size_t *bytes, struct ddb_err *err)
{
    const json_t *item;
    size_t i;
    bool keep;

    json_array_foreach(json_object_get(page, "Items"), i, item) {
        *bytes += item_size(item);
        keep = true;
        if (filter != NULL && expr_eval(filter, item, &keep, err) != 0)
            return -1;
        if (keep)
            json_array_append_new(out, pql_project(q->c->s, item));
    }
    return 0;
}

/*
 * The pages: the Queries in order from the token's (or the Scan), as long
 * as Limit leaves items to evaluate and the answer stays under 1 MB; the
 * NextToken names the Query and key to go on from.
 */
static int
read_all(struct sel *q, const json_t *req, json_t **resp,
         struct ddb_err *err)
{
    const char *tok = json_string_value(json_object_get(req, "NextToken"));
    struct expr *filter = pql_filter(q->c->s);
    json_t *items = json_array(), *page = NULL, *esk = NULL, *next = NULL,
           *lek = NULL;
    size_t branch = 0, nb = q->plan.n > 0 ? q->plan.n : 1, bytes = 0;
    long long scanned = 0;
    int rc = -1;

    if (tok != NULL && token_decode(q, tok, &branch, &esk, err) != 0)
        goto out;
    for (;;) {
        long long left = q->limit > 0 ? q->limit - scanned : 0;

        json_decref(page);
        page = NULL;
        if (read_page(q, branch, esk, left, &page, err) != 0 ||
            keep_items(q, filter, page, items, &bytes, err) != 0)
            goto out;
        json_decref(esk);
        esk = NULL;
        scanned += json_integer_value(json_object_get(page, "ScannedCount"));
        lek = json_object_get(page, "LastEvaluatedKey");
        if (lek != NULL) {
            next = token_encode(q, branch, lek);
            break;
        }
        if (++branch >= nb)
            break;
        if ((q->limit > 0 && scanned >= q->limit) ||
            bytes >= PAGE_BYTES_MAX) {
            next = token_encode(q, branch, NULL);
            break;
        }
    }
    *resp = json_pack("{s:O}", "Items", items);
    if (next != NULL) {
        json_object_set_new(*resp, "NextToken", next);
        next = NULL;
        if (lek != NULL)
            json_object_set(*resp, "LastEvaluatedKey", lek);
    }
    rc = 0;
out:
    json_decref(next);
    json_decref(page);
    json_decref(esk);
    json_decref(items);
    expr_free(filter);
    return rc;
}

int
pql_select_run(struct api_ctx *ctx, struct pql_call *c, const json_t *req,
               json_t **resp, struct ddb_err *err)
{
    const json_t *limit = json_object_get(req, "Limit");
    struct sel q;
    int rc = -1;

    memset(&q, 0, sizeof(q));
    q.ctx = ctx;
    q.c = c;
    q.consistent = json_is_true(json_object_get(req, "ConsistentRead"));
    q.forward = true;
    q.limit = json_is_integer(limit) ? json_integer_value(limit) : 0;
    fingerprint(json_object_get(req, "Statement"), q.fp);
    if (table_ref_open(ctx, c->tn, &q.tr, err) != 0 ||
        (pql_index(c->s) != NULL &&
         open_index(&q, pql_index(c->s), err) != 0))
        goto out;
    q.qks = q.d != NULL ? &q.d->ks : &q.tr.ks;
    q.range = q.qks->range_name[0] != '\0' ? q.qks->range_name : NULL;
    if (pql_plan(c->s, q.qks->hash_name, q.qks->hash_type, q.range,
                 q.qks->range_type, &q.plan, err) != 0 ||
        check_index_reads(&q, err) != 0 || check_order(&q, err) != 0)
        goto out;
    rc = read_all(&q, req, resp, err);
out:
    pql_plan_fini(&q.plan);
    if (q.has_set)
        index_set_close(&q.set);
    table_ref_close(&q.tr);
    return rc;
}
