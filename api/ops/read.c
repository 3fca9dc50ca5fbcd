/* SPDX-License-Identifier: MIT */
/* read.c - what Query and Scan share (read.h): the request's options,
 * Select, ExclusiveStartKey and IndexName checks in DynamoDB's order, and
 * reading one page through storage/ (Limit, 1 MB, the filter, the
 * projection, LSI item fetches), with Count, ScannedCount and
 * LastEvaluatedKey. */
#include <stdint.h>
#include <stddef.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "api/expr/expr.h"
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
 * KeyConditions) through req_exprs_parse() when the request has it: DynamoDB
 * checks these at their own points in its order, apart from the
 * expressions. *out is NULL when the member is absent.
 */
int
read_parse_legacy(struct req_exprs *x, const json_t *req,
                  enum expr_kind kind, const char *member, struct expr **out,
                  struct ddb_err *err)
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

int
read_parse_exprs(struct read_req *r, const char *filter_param,
                 struct ddb_err *err)
{
    const json_t *req = r->req;

    if (json_has(req, "FilterExpression") &&
        req_exprs_parse(&r->x, req, EXPR_FILTER, filter_param, &r->filter,
                        err) != 0)
        return -1;
    if (json_has(req, "ProjectionExpression") &&
        req_exprs_parse(&r->x, req, EXPR_PROJECTION, NULL, &r->proj,
                        err) != 0)
        return -1;
    return req_exprs_check_unused(&r->x, req, err);
}

/*
 * DynamoDB's rules for Select with ProjectionExpression/AttributesToGet.
 * Query reports them inside "1 validation error detected: ", Scan bare
 * (AWS-verified in moto's tests/test_dynamodb/test_dynamodb_select.py).
 */
int
read_check_select(const struct read_req *r, struct ddb_err *err)
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
int
read_esk_validate_values(struct read_req *r, struct ddb_err *err)
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
    r->esk = json_clone(esk);
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
int
read_esk_piece(const json_t *esk, const char *name, char type, bool is_hash,
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
    v = json_get_one(av, tstr);
    if (v == NULL)
        return ddb_err_set(err, DDB_VALIDATION,
                           "The provided key element does not match the "
                           "schema");
    if (type == 'N')
        return 0;
    s = json_string_value(v);
    if (s == NULL)
        return 0;
    if (json_string_length(v) == 0)     /* "\u0000" is not empty */
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
int
read_esk_build(struct read_req *r, struct ddb_err *err)
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

size_t
read_key_attr_count(const struct key_schema *ks)
{
    return ks->range_name[0] != '\0' ? 2 : 1;
}

/* Attributes a start key has: the table key, plus the index key when
 * reading an index (DynamoDB's LastEvaluatedKey for an index). */
size_t
read_esk_attr_count(const struct read_req *r)
{
    const struct key_schema *t = &r->ot.ks;
    const struct key_schema *x;
    size_t n = read_key_attr_count(t);

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

bool
read_index_projects(const struct index_def *d, const struct key_schema *base,
                    const char *attr)
{
    const json_t *n;
    size_t i;

    if (d->proj == INDEX_PROJ_ALL || strcmp(attr, base->hash_name) == 0 ||
        (base->range_name[0] != '\0' && strcmp(attr, base->range_name) == 0))
        return true;
    for (i = 0; i < d->nhash; i++)
        if (strcmp(attr, d->hash[i].name) == 0)
            return true;
    for (i = 0; i < d->nrange; i++)
        if (strcmp(attr, d->range[i].name) == 0)
            return true;
    if (d->proj == INDEX_PROJ_INCLUDE)
        json_array_foreach(d->nonkey, i, n)
            if (json_str_is(n, attr))
                return true;
    return false;
}

/* The attributes heading e's paths that r's index does not store, as
 * "a, b" into out (empty when all are stored). */
static void
unprojected(const struct read_req *r, const struct expr *e, char *out,
            size_t cap)
{
    json_t *names = expr_head_names(e), *n;
    size_t i, len = 0;

    out[0] = '\0';
    json_array_foreach(names, i, n) {
        if (read_index_projects(r->idx, &r->ot.ks, json_string_value(n)))
            continue;
        if (len < cap)
            len += (size_t)snprintf(out + len, cap - len, "%s%s",
                                    len > 0 ? ", " : "",
                                    json_string_value(n));
    }
    json_decref(names);
}

/*
 * A projection (ProjectionExpression, AttributesToGet) on a GSI, and a
 * filter (FilterExpression, QueryFilter, ScanFilter) on any index, may use
 * only what the index stores; for the filter LSIs included, even with Select
 * ALL_ATTRIBUTES: "One or more parameter values were invalid: Secondary
 * index gs1 does not project one or more filter attributes:
 * [friendRequestUserId]" (DynamoDB's reply to a Query of a KEYS_ONLY GSI,
 * quoted in sensedeep/dynamodb-onetable issue 377, 2022-07); the
 * Alternator suite's test_lsi.py (run against DynamoDB) refuses it on
 * KEYS_ONLY and INCLUDE LSIs, matching "hello.*does not project.*filter.*d".
 */
int
read_check_projected(const struct read_req *r, struct ddb_err *err)
{
    char miss[1024];

    if (r->idx == NULL || r->idx->proj == INDEX_PROJ_ALL)
        return 0;
    /* A GSI cannot fetch from the table: what a projection names must be
     * stored ("One or more parameter values were invalid: Global
     * secondary index my_index does not project [table_column]":
     * DynamoDB's reply quoted in localstack/localstack issue 478, 2017). */
    if (r->idx->global) {
        unprojected(r, r->proj, miss, sizeof(miss));
        if (miss[0] != '\0')
            return ddb_err_set(err, DDB_VALIDATION,
                               "One or more parameter values were invalid: "
                               "Global secondary index %s does not project "
                               "[%s]", r->idx->name, miss);
    }
    if (r->filter == NULL)
        return 0;
    unprojected(r, r->filter, miss, sizeof(miss));
    if (miss[0] == '\0')
        return 0;
    return ddb_err_set(err, DDB_VALIDATION,
                       "One or more parameter values were invalid: Secondary "
                       "index %s does not project one or more filter "
                       "attributes: [%s]", r->idx->name, miss);
}

/*
 * Resolve IndexName (after the table): the index's key schema becomes the
 * one key conditions, start keys and filters are checked against. GSIs
 * reject ConsistentRead and, unless they project ALL, Select
 * ALL_ATTRIBUTES. An LSI that does not project everything fetches the
 * items from the table for Select ALL_ATTRIBUTES and for a projection of
 * attributes it does not store ("If any of the requested attributes are
 * not projected into the local secondary index, DynamoDB fetches each of
 * these attributes from the parent table": API reference, Query), only
 * for the rows its filter kept.
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
    if (!r->idx->global && r->idx->proj != INDEX_PROJ_ALL) {
        char miss[8];

        unprojected(r, r->proj, miss, sizeof(miss));
        if ((sel != NULL && strcmp(sel, "ALL_ATTRIBUTES") == 0) ||
            miss[0] != '\0')
            r->fetch = true;
    }
    return 0;
}

/* ------------------------------------------------------------------------
 * Filters on key attributes (Query only)
 * ---------------------------------------------------------------------- */

/* Query: a filter may not name a key attribute at all (dynalite
 * actions/query.js). */
/* The key attributes of what is read: the table's or the index's (every
 * attribute of a multi-attribute index key). Returns the count. */
size_t
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
    return read_key_attr_count(r->qks);
}


/* Key attributes are scalars: an expression (ProjectionExpression or
 * FilterExpression) may not reach into one with '.' or '[]'. */
int
read_check_nested_keys(struct read_req *r, const char *member,
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
 * Reading a page
 * ---------------------------------------------------------------------- */

/* Scan throttling: row k (size bytes) was read; rows come in hash order,
 * so each partition read is one run. An LSI's rows are laid out by its own
 * table: they all count on the admitted partition. */
static void
scan_note(struct read_req *r, struct page *pg, const struct item_key *k,
          size_t size)
{
    unsigned part;

    if (!r->th.admitted || (r->idx != NULL && !r->idx->global))
        return;
    part = stable_part_of(r->src, k->hash);
    if (pg->nruns == 0 || pg->runs[pg->nruns - 1].part != part) {
        if (pg->nruns == pg->runs_cap) {
            pg->runs_cap = pg->runs_cap ? 2 * pg->runs_cap : 4;
            pg->runs = xrealloc(pg->runs, pg->runs_cap * sizeof(*pg->runs));
        }
        pg->runs[pg->nruns].part = part;
        pg->runs[pg->nruns].bytes = 0;
        pg->nruns++;
    }
    pg->runs[pg->nruns - 1].bytes += size;
}

/* The units of the page read so far, rounded once over the page as
 * DynamoDB rounds Query and Scan (all items' sizes summed, then 4 KB
 * steps): an index's rows, plus the table's items an LSI read fetched. */
static double
page_units(const struct read_req *r, const struct page *pg)
{
    return capacity_read_units(pg->bytes, r->consistent) +
           (pg->fetched > 0 ? capacity_read_units(pg->fetched,
                                                  r->consistent)
                            : 0.0);
}

/*
 * Pay for the page: the units its ConsumedCapacity reports, not one
 * rounding per partition (a Scan of ten small items on four partitions
 * costs 1 unit, as on DynamoDB), spread over the partitions it read in
 * proportion to the bytes each returned. The admitted partition pays for
 * an empty page.
 */
static void
read_page_charge(struct read_req *r, struct page *pg)
{
    int64_t total = (int64_t)(page_units(r, pg) * 1e6 + 0.5), done = 0;
    int64_t mine = 0;
    size_t seen = 0;

    if (!r->th.admitted)
        return;
    if (pg->bytes == 0 || pg->nruns == 0) {
        gate_charge(r->ctx, &r->th, (double)total / 1e6);
        return;
    }
    for (size_t i = 0; i < pg->nruns; i++) {
        int64_t upto, share;

        seen += pg->runs[i].bytes;
        upto = (int64_t)((long double)total * (long double)seen /
                         (long double)pg->bytes);
        share = upto - done;
        done = upto;
        if (pg->runs[i].part == r->th.tk.part)
            mine += share;
        else if (share > 0)
            gate_charge_other(r->ctx, &r->th, pg->runs[i].part,
                              (double)share / 1e6);
    }
    gate_charge(r->ctx, &r->th, (double)mine / 1e6);
}

/* Has the page read its Limit or 1 MB? */
static bool
page_full(const struct read_req *r, const struct page *pg)
{
    return (r->limit > 0 && pg->scanned >= r->limit) ||
           pg->bytes >= PAGE_BYTES_MAX;
}

/* After a row (item, borrowed): 0 to read on, or 1 with the page's
 * LastEvaluatedKey taken from item when the page is full. */
static int
page_end(struct read_req *r, struct page *pg, const json_t *item,
         struct ddb_err *err)
{
    if (!page_full(r, pg))
        return 0;
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

int
read_page_row(void *arg, const struct item_key *k, const json_t *item,
         size_t size, struct ddb_err *err)
{
    struct page *pg = arg;
    struct read_req *r = pg->r;
    bool keep = true;

    if (r->op == OP_SCAN)
        scan_note(r, pg, k, size);
    pg->scanned++;
    pg->bytes += size;
    /* The filter sees only what the index stores (see
     * read_check_filter_projected), so it runs on the row. */
    if (r->filter != NULL && expr_eval(r->filter, item, &keep, err) != 0)
        return -1;
    if (r->fetch && keep) {
        /* The item comes from the table after the read (the partition
         * lock is held here). */
        json_array_append(pg->pending, (json_t *)item);
        keep = false;
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
    return page_end(r, pg, item, err);
}

/* The stable_text_fn of a page whose items go out as stored: the text
 * joins the list, and only a page's last item is parsed, for its key. */
static int
read_page_text(void *arg, const struct item_key *k, const char *text,
               size_t len, size_t size, struct ddb_err *err)
{
    struct page *pg = arg;
    struct read_req *r = pg->r;
    json_t *item;
    int rc;

    if (r->op == OP_SCAN)
        scan_note(r, pg, k, size);
    pg->scanned++;
    pg->bytes += size;
    if (pg->count++ > 0)
        strbuf_putc(&pg->text, ',');
    strbuf_add(&pg->text, text, len);
    if (!page_full(r, pg))
        return 0;
    if ((item = stable_item_parse(text, len, err)) == NULL)
        return -1;
    rc = page_end(r, pg, item, err);
    json_decref(item);
    return rc;
}

void
read_page_rows(struct read_req *r, struct page *pg, struct stable_rows *rows)
{
    rows->arg = pg;
    rows->fn = read_page_row;
    rows->text = NULL;
    if (r->reply && pg->items != NULL && r->filter == NULL &&
        r->proj == NULL && !r->fetch) {
        rows->text = read_page_text;
        pg->raw = true;
        strbuf_putc(&pg->text, '[');
    }
}

/* Build the reply from a finished page. */
json_t *
read_page_reply(struct read_req *r, struct page *pg)
{
    json_t *resp = json_object();

    json_object_set_new(resp, "Count", json_integer(pg->count));
    if (pg->raw) {                      /* spliced in by the dispatcher */
        strbuf_putc(&pg->text, ']');
        free(r->ctx->reply_item);
        r->ctx->reply_item_len = pg->text.len;
        r->ctx->reply_item = strbuf_take(&pg->text);
        r->ctx->reply_items = true;
    } else if (pg->items != NULL) {
        json_object_set(resp, "Items", pg->items);
    }
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
 * LSI reads that need more than the projection: fetch the item of each
 * row the filter kept from the table (after the index read released its
 * partition), then project it. An item deleted in between is skipped.
 */
int
read_page_fetch(struct read_req *r, struct page *pg, struct ddb_err *err)
{
    struct item_key *bk;
    const json_t *row;
    json_t *item = NULL, *out;
    size_t i;
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
        pg->count++;
        out = r->proj != NULL ? expr_project(r->proj, item)
                              : json_incref(item);   /* ALL_ATTRIBUTES */
        if (pg->items != NULL)
            json_array_append(pg->items, out);
        json_decref(out);
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
int
read_page_begin(struct read_req *r, struct page *pg, struct ddb_err *err)
{
    pg->r = r;
    if (!r->count_only && (pg->items = json_array()) == NULL)
        return ddb_err_set(err, DDB_INTERNAL, "out of memory");
    if (r->fetch && (pg->pending = json_array()) == NULL)
        return ddb_err_set(err, DDB_INTERNAL, "out of memory");
    return 0;
}

void
read_page_fini(struct page *pg)
{
    json_decref(pg->items);
    json_decref(pg->lek);
    json_decref(pg->pending);
    free(pg->runs);
    strbuf_free(&pg->text);
}

/* ------------------------------------------------------------------------
 * Common request parts
 * ---------------------------------------------------------------------- */

/* r for one Query or Scan request (ctx and req borrowed). */
void
read_req_init(struct read_req *r, enum read_op op, struct api_ctx *ctx,
              const json_t *req)
{
    memset(r, 0, offsetof(struct read_req, iset));
    r->iset.n = 0;                      /* closable before it is opened */
    r->iset.desc = NULL;
    r->op = op;
    r->ctx = ctx;
    r->req = req;
    req_exprs_init(&r->x);
    r->forward = true;
    r->hi = UINT64_MAX;
}

/* Resolve the table and the index a validated r reads. */
int
read_open(struct read_req *r, struct ddb_err *err)
{
    if (table_ref_open(r->ctx, r->req, &r->ot, err) != 0)
        return -1;
    return check_index(r->ctx, r, err);
}

void
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

void
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
 * The read path
 * ---------------------------------------------------------------------- */

int
read_exec(const struct read_steps *s, struct read_req *r, json_t **resp,
          struct ddb_err *err)
{
    struct page pg;
    int rc = -1;

    memset(&pg, 0, sizeof(pg));
    if (read_open(r, err) != 0 || s->check(r, err) != 0 ||
        read_page_begin(r, &pg, err) != 0 || s->run(r, &pg, err) != 0 ||
        read_page_fetch(r, &pg, err) != 0)
        goto out;
    *resp = read_page_reply(r, &pg);
    rc = 0;
out:
    read_page_charge(r, &pg);
    read_page_fini(&pg);
    return rc;
}

int
read_run(const struct read_steps *s, struct api_ctx *ctx, const json_t *req,
         json_t **resp, struct ddb_err *err)
{
    struct read_req r;
    int rc;

    read_req_init(&r, s->op, ctx, req);
    r.reply = true;
    rc = s->validate(&r, err) == 0 ? read_exec(s, &r, resp, err) : -1;
    read_req_fini(&r);
    return rc;
}
