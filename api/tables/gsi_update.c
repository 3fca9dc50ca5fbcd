/* SPDX-License-Identifier: MIT */
/* gsi_update.c - UpdateTable's GlobalSecondaryIndexUpdates: Create (with a
 * synchronous backfill of the new index), Delete, and Update (the index's
 * throughput), each checked against the table's description, which
 * update.c then writes back. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/proto/context.h"
#include "api/index/index.h"
#include "api/tables/tables_int.h"
#include "api/throttle/throttle.h"
#include "storage/util.h"

/* The action object of one GlobalSecondaryIndexUpdate element and its
 * kind ("Create", "Update", "Delete"), or NULL (kind ""). */
static const json_t *
gsiu_action(const json_t *u, const char **kind)
{
    static const char *const kinds[3] = { "Create", "Update", "Delete" };
    size_t i;

    for (i = 0; i < 3; i++) {
        if (json_has(u, kinds[i])) {
            *kind = kinds[i];
            return json_object_get(u, kinds[i]);
        }
    }
    *kind = "";
    return NULL;
}

/* dynalite validations/updateTable.js order. */
int
tables_gsi_updates_check(const json_t *gsiu, struct ddb_err *err)
{
    const json_t *u, *a, *o;
    const char *kind, *n, *n2;
    size_t i, j, nact;

    if (json_array_size(gsiu) == 0)
        return ddb_err_set(err, DDB_VALIDATION,
                           "One or more parameter values were invalid: List "
                           "of GlobalSecondaryIndexUpdates is empty");
    json_array_foreach(gsiu, i, u) {
        nact = json_has(u, "Create") + json_has(u, "Update") +
               json_has(u, "Delete");
        if (nact == 0)
            return ddb_err_set(err, DDB_VALIDATION,
                               "One or more parameter values were invalid: "
                               "One of GlobalSecondaryIndexUpdate.Update, "
                               "GlobalSecondaryIndexUpdate.Create, "
                               "GlobalSecondaryIndexUpdate.Delete must not "
                               "be null");
        if (nact > 1)
            return ddb_err_set(err, DDB_VALIDATION,
                               "One or more parameter values were invalid: "
                               "Only one global secondary index action is "
                               "allowed per GlobalSecondaryIndexUpdate "
                               "object");
        a = gsiu_action(u, &kind);
        n = tables_str(a, "IndexName");
        if (strcmp(kind, "Update") == 0 &&
            json_is_object(json_object_get(a, "WarmThroughput")) &&
            tables_warm_check_spec(json_object_get(a, "WarmThroughput"), n,
                                   err) != 0)
            return -1;
        for (j = 0; j < i; j++) {
            o = gsiu_action(json_array_get(gsiu, j), &kind);
            n2 = tables_str(o, "IndexName");
            if (n != NULL && n2 != NULL && strcmp(n, n2) == 0)
                return ddb_err_set(err, DDB_VALIDATION,
                                   "One or more parameter values were "
                                   "invalid: Only one global secondary index "
                                   "update per index is allowed "
                                   "simultaneously. Index: %s", n);
        }
    }
    return 0;
}

static bool
is_lsi(const json_t *desc, const char *name)
{
    const json_t *l;
    size_t i;

    json_array_foreach(json_object_get(desc, "LocalSecondaryIndexes"), i, l)
        if (json_str_is(json_object_get(l, "IndexName"), name))
            return true;
    return false;
}

/* The GSI of desc (ours to change) that a Delete or Update (verb) names,
 * or NULL with err set. */
static json_t *
gsi_target(json_t *desc, const char *iname, const char *verb,
           struct ddb_err *err)
{
    const json_t *g;

    if (is_lsi(desc, iname)) {
        ddb_err_set(err, DDB_VALIDATION,
                    "Cannot %s an index that is not a "
                    "GlobalSecondaryIndex: %s", verb, iname);
        return NULL;
    }
    g = index_desc_gsi(desc, iname);
    if (g == NULL)
        ddb_err_set(err, DDB_RESOURCE_NOT_FOUND,
                    "Requested resource not found: Index: %s not "
                    "found", iname);
    return (json_t *)g;
}

/* ------------------------------------------------------------------------
 * Create
 * ---------------------------------------------------------------------- */

/* The checks of a Create a against the table (desc): the index is new,
 * there is room, and its throughput fits the billing mode. */
static int
gsi_create_check(const json_t *desc, const json_t *a, bool on_demand,
                 struct ddb_err *err)
{
    const char *iname = tables_str(a, "IndexName");

    if (index_desc_gsi(desc, iname) != NULL || is_lsi(desc, iname))
        return ddb_err_set(err, DDB_VALIDATION,
                           "Attempting to create an index which already "
                           "exists");
    if (json_array_size(json_object_get(desc, "GlobalSecondaryIndexes")) >=
        INDEX_GSI_MAX)
        return tables_err_gsi_count(DDB_LIMIT_EXCEEDED, err);
    return tables_check_gsi_billing(a, on_demand, "must be", err);
}

/* The table's AttributeDefinitions plus the request's new ones (a
 * redefinition keeps the table's). New reference. */
json_t *
tables_merged_defs(const json_t *desc, const json_t *req)
{
    json_t *defs = json_clone(json_object_get(desc,
                                                  "AttributeDefinitions"));
    const json_t *el, *d;
    size_t i, j;
    bool have;

    json_array_foreach(json_object_get(req, "AttributeDefinitions"), i, el) {
        have = false;
        json_array_foreach(defs, j, d)
            if (json_equal(json_object_get(d, "AttributeName"),
                           json_object_get(el, "AttributeName")))
                have = true;
        if (!have)
            json_array_append_new(defs,
                                  json_pack("{s:O, s:O}", "AttributeName",
                                            json_object_get(el,
                                                            "AttributeName"),
                                            "AttributeType",
                                            json_object_get(el,
                                                            "AttributeType")));
    }
    return defs;
}

/* The AttributeType defs gives attribute name, or NULL. */
static const char *
def_type_of(const json_t *defs, const char *name)
{
    const json_t *d;
    size_t i;

    json_array_foreach(defs, i, d)
        if (json_str_is(json_object_get(d, "AttributeName"), name))
            return tables_str(d, "AttributeType");
    return NULL;
}

/* "Schema:[SchemaElement: key{a:S:HASH}, ...]" of KeySchema ks, the types
 * from defs, appended to b. */
static void
schema_put(struct strbuf *b, const json_t *ks, const json_t *defs)
{
    const json_t *e;
    const char *n, *t;
    size_t i;

    strbuf_puts(b, "Schema:[");
    json_array_foreach(ks, i, e) {
        n = tables_str(e, "AttributeName");
        t = n != NULL ? def_type_of(defs, n) : NULL;
        strbuf_printf(b, "%sSchemaElement: key{%s:%s:%s}", i ? ", " : "",
                      n != NULL ? n : "", t != NULL ? t : "",
                      tables_str(e, "KeyType") ? tables_str(e, "KeyType")
                                               : "");
    }
    strbuf_puts(b, "]");
}

/* The key schema of the table or of one of its indexes that uses attribute
 * name (the table's first, then the LSIs', then the GSIs'), or NULL. */
static const json_t *
schema_using(const json_t *desc, const char *name)
{
    static const char *const lists[] = { "LocalSecondaryIndexes",
                                         "GlobalSecondaryIndexes" };
    const json_t *ks = json_object_get(desc, "KeySchema"), *x, *e;
    size_t i, j, l;

    json_array_foreach(ks, i, e)
        if (json_str_is(json_object_get(e, "AttributeName"), name))
            return ks;
    for (l = 0; l < 2; l++)
        json_array_foreach(json_object_get(desc, lists[l]), j, x) {
            ks = json_object_get(x, "KeySchema");
            json_array_foreach(ks, i, e)
                if (json_str_is(json_object_get(e, "AttributeName"), name))
                    return ks;
        }
    return NULL;
}

/*
 * A new GSI's key attribute keeps the type the table already gives it:
 * DynamoDB answers "One or more parameter values were invalid: Attributes
 * cannot be redefined. Please check that your attribute has the same type
 * as previously defined. Existing schema: Schema:[SchemaElement:
 * key{xyz:S:HASH}] New schema: Schema:[SchemaElement: key{xyz:N:HASH}]"
 * (recorded in Alternator's test_gsi_updatetable.py,
 * test_gsi_key_type_conflict_on_update). How several elements are joined
 * (", ", Java's list form) and which existing schema is named when more
 * than one uses the attribute (the table's first) are our choice.
 */
static int
check_redefined(const json_t *desc, const json_t *req, const json_t *a,
                struct ddb_err *err)
{
    const json_t *defs = json_object_get(desc, "AttributeDefinitions");
    const json_t *ks = json_object_get(a, "KeySchema"), *e, *used;
    const json_t *rdefs = json_object_get(req, "AttributeDefinitions");
    const char *n, *old, *new_type;
    struct strbuf b = { 0 };
    size_t i;

    json_array_foreach(ks, i, e) {
        n = tables_str(e, "AttributeName");
        if (n == NULL)
            continue;
        old = def_type_of(defs, n);
        new_type = def_type_of(rdefs, n);
        used = schema_using(desc, n);
        if (old == NULL || new_type == NULL || used == NULL ||
            strcmp(old, new_type) == 0)
            continue;
        strbuf_puts(&b, "One or more parameter values were invalid: "
                    "Attributes cannot be redefined. Please check that "
                    "your attribute has the same type as previously "
                    "defined. Existing schema: ");
        schema_put(&b, used, defs);
        strbuf_puts(&b, " New schema: ");
        schema_put(&b, ks, rdefs);
        ddb_err_set(err, DDB_VALIDATION, "%s", b.s);
        strbuf_free(&b);
        return -1;
    }
    return 0;
}

/* Create the hidden table of the new index gd (nparts partitions), publish
 * the index (CREATING) with defs as the table's definitions so that every
 * write from now on maintains it, then backfill it. On failure the hidden
 * table is dropped again. */
static int
gsi_build(struct api_ctx *ctx, struct stable *t, json_t *desc, json_t *gd,
          json_t *defs, unsigned nparts, struct ddb_err *err)
{
    const char *table = tables_str(desc, "TableName");
    const char *iname = tables_str(gd, "IndexName");
    struct index_set *s = NULL;
    const struct index_def *d;
    char hidden[1200];
    json_t *meta, *gsis;
    int rc;

    index_table_name(table, iname, hidden, sizeof(hidden));
    meta = json_pack("{s:s, s:s, s:s}", "TableName", hidden, "_slIndexOf",
                     table, "IndexName", iname);
    rc = storage_table_create(ctx->srv->st, hidden, meta, nparts, err);
    json_decref(meta);
    if (rc != 0)
        return -1;
    rc = -1;
    /* The definitions some key uses (the new index's included). */
    json_object_set(desc, "AttributeDefinitions", defs);
    gsis = json_object_get(desc, "GlobalSecondaryIndexes");
    if (!json_is_array(gsis)) {
        gsis = json_array();
        json_object_set_new(desc, "GlobalSecondaryIndexes", gsis);
    }
    json_array_append(gsis, gd);
    tables_prune_defs(desc);
    if (stable_set_desc(t, desc, err) != 0)
        goto out;
    /* The backfill writes each row in a transaction that checks the item
     * is unchanged. */
    s = xcalloc(1, sizeof(*s));
    if (index_set_open(ctx->srv->st, desc, s, err) != 0)
        goto out;
    d = index_find(s, iname);
    if (d == NULL) {
        ddb_err_set(err, DDB_INTERNAL, "index %s did not open", iname);
        goto out;
    }
    if (index_backfill(t, &s->base, d, err) != 0)
        goto out;
    rc = 0;
out:
    if (rc != 0) {
        struct ddb_err e;

        ddb_err_init(&e);
        storage_table_delete(ctx->srv->st, hidden, &e);
        ddb_err_clear(&e);
    }
    if (s != NULL) {
        index_set_close(s);
        free(s);
    }
    return rc;
}

/* A GSI Create: validate against the table, add the description (with
 * any new AttributeDefinitions), create and backfill the hidden table.
 * The index stays CREATING (and Backfilling) for the status delay, so
 * queries never see a half-built index. */
static int
gsi_create(struct api_ctx *ctx, const json_t *req, struct stable *t,
           json_t *desc, const json_t *a, bool on_demand, bool delayed,
           struct ddb_err *err)
{
    const char *iname = tables_str(a, "IndexName");
    const json_t *pt = json_object_get(a, "ProvisionedThroughput");
    json_t *defs = NULL, *gd = NULL;
    struct throttle_limits lim;
    unsigned nparts;
    long long r, w;
    int rc = -1;

    if (gsi_create_check(desc, a, on_demand, err) != 0 ||
        check_redefined(desc, req, a, err) != 0)
        return -1;
    defs = tables_merged_defs(desc, req);
    if (!json_has(req, "AttributeDefinitions")) {
        ddb_err_set(err, DDB_VALIDATION,
                    "One or more parameter values were invalid: "
                    "AttributeDefinitions is not specified for index: %s",
                    iname);
        goto out;
    }
    if (tables_check_index_key(a, defs, true, err) != 0 ||
        tables_check_projection(a, err) != 0)
        goto out;
    r = w = 0;
    if (json_has(a, "ProvisionedThroughput") &&
        tables_read_throughput(pt, &r, &w, err) != 0)
        goto out;
    tables_limits(ctx, json_object_get(desc, PRIV_TAGS), &lim);
    if (tables_warm_check_new(ctx, &lim, json_object_get(a, "WarmThroughput"),
                              on_demand, r, w, iname, err) != 0)
        goto out;
    gd = tables_index_desc_new(ctx, tables_str(desc, "TableName"), a, true,
                               on_demand, "CREATING",
                               json_object_get(desc, PRIV_TAGS), &nparts);
    json_object_set_new(gd, "Backfilling", json_true());
    if (gsi_build(ctx, t, desc, gd, defs, nparts, err) != 0)
        goto out;
    if (!delayed) {
        json_object_set_new(gd, "IndexStatus", json_string("ACTIVE"));
        json_object_del(gd, "Backfilling");
        json_object_set_new(json_object_get(gd, "WarmThroughput"), "Status",
                            json_string("ACTIVE"));
    }
    rc = 0;
out:
    json_decref(gd);
    json_decref(defs);
    return rc;
}

/* ------------------------------------------------------------------------
 * Delete and Update
 * ---------------------------------------------------------------------- */

/* A GSI Delete: DELETING for the status delay (or gone at once); the
 * hidden table is dropped now, so writes stop maintaining it. */
static int
gsi_delete(struct api_ctx *ctx, json_t *desc, const json_t *a, bool delayed,
           struct ddb_err *err)
{
    const char *iname = tables_str(a, "IndexName");
    json_t *g;
    char hidden[1200];
    struct ddb_err e;

    g = gsi_target(desc, iname, "delete", err);
    if (g == NULL)
        return -1;
    index_table_name(tables_str(desc, "TableName"), iname, hidden,
                     sizeof(hidden));
    ddb_err_init(&e);
    storage_table_delete(ctx->srv->st, hidden, &e);
    ddb_err_clear(&e);
    if (delayed) {
        json_object_set_new(g, "IndexStatus", json_string("DELETING"));
        return 0;
    }
    tables_index_remove(desc, "GlobalSecondaryIndexes", g);
    return 0;
}

/* A GSI Update: new ProvisionedThroughput (or OnDemandThroughput), or
 * WarmThroughput (warm.c). */
static int
gsi_update(const struct api_ctx *ctx, json_t *desc, const json_t *a,
           bool on_demand, uint64_t now, struct ddb_err *err)
{
    const char *iname = tables_str(a, "IndexName");
    const json_t *pt = json_object_get(a, "ProvisionedThroughput");
    const json_t *odr = json_object_get(a, "OnDemandThroughput");
    const json_t *warm = json_object_get(a, "WarmThroughput");
    json_t *g, *gpt, *odt;
    long long r, w, cr, cw;

    g = gsi_target(desc, iname, "update", err);
    if (g == NULL)
        return -1;
    if (json_is_null(pt))
        pt = NULL;
    if (json_is_null(odr))
        odr = NULL;
    if (json_is_object(warm)) {
        if (tables_warm_update(ctx, desc, iname, warm, now, err) != 0)
            return -1;
        if (pt == NULL && odr == NULL)
            return 0;
    }
    if (on_demand && pt != NULL)
        return ddb_err_set(err, DDB_VALIDATION,
                           "One or more parameter values were invalid: The "
                           "only Updates for index: %s when "
                           "TableThroughputMode is PAY_PER_REQUEST can be "
                           "to OnDemandThroughput, WarmThroughput", iname);
    if (odr != NULL) {
        if (!on_demand)
            return ddb_err_set(err, DDB_VALIDATION,
                               "One or more parameter values were invalid: "
                               "MaxReadRequestUnits for OnDemandThroughput "
                               "cannot be specified when the table "
                               "BillingMode is PROVISIONED");
        odt = tables_read_on_demand(odr, err);
        if (odt == NULL)
            return -1;
        json_object_set_new(g, "OnDemandThroughput", odt);
        return 0;
    }
    if (pt == NULL)
        return ddb_err_set(err, DDB_VALIDATION,
                           "One or more parameter values were invalid: "
                           "ProvisionedThroughput must be specified for "
                           "index: %s", iname);
    if (tables_read_throughput(pt, &r, &w, err) != 0)
        return -1;
    gpt = json_object_get(g, "ProvisionedThroughput");
    cr = tables_uint(gpt, "ReadCapacityUnits");
    cw = tables_uint(gpt, "WriteCapacityUnits");
    if (cr == r && cw == w)
        return ddb_err_set(err, DDB_VALIDATION,
                           "The provisioned throughput for the index %s will "
                           "not change. The requested value equals the "
                           "current value. Current ReadCapacityUnits "
                           "provisioned for the index: %lld. Requested "
                           "ReadCapacityUnits: %lld. Current "
                           "WriteCapacityUnits provisioned for the index: "
                           "%lld. Requested WriteCapacityUnits: %lld. Refer "
                           "to the Amazon DynamoDB Developer Guide for "
                           "current limits and how to request higher "
                           "limits.", iname, cr, r, cw, w);
    if (r > cr || w > cw)
        json_object_set_new(gpt, "LastIncreaseDateTime", tables_epoch(now));
    if (r < cr || w < cw) {
        json_object_set_new(gpt, "LastDecreaseDateTime", tables_epoch(now));
        json_object_set_new(gpt, "NumberOfDecreasesToday",
                            json_integer(tables_uint(
                                gpt, "NumberOfDecreasesToday") + 1));
    }
    json_object_set_new(gpt, "ReadCapacityUnits", json_integer(r));
    json_object_set_new(gpt, "WriteCapacityUnits", json_integer(w));
    return 0;
}

/* ------------------------------------------------------------------------
 * The list of updates
 * ---------------------------------------------------------------------- */

/* dynalite actions/updateTable.js records the message. */
int
tables_gsi_updates_cover(const json_t *desc, const json_t *gsiu,
                         struct ddb_err *err)
{
    char names[2048];
    size_t i, j, len = 0;
    const json_t *g, *u, *a;
    const char *kind, *gn;
    bool covered;

    names[0] = '\0';
    json_array_foreach(json_object_get(desc, "GlobalSecondaryIndexes"), i,
                       g) {
        gn = tables_str(g, "IndexName");
        covered = false;
        json_array_foreach(gsiu, j, u) {
            a = gsiu_action(u, &kind);
            if (a != NULL && strcmp(kind, "Update") == 0 &&
                json_str_is(json_object_get(a, "IndexName"), gn) &&
                json_has(a, "ProvisionedThroughput"))
                covered = true;
        }
        if (!covered && gn != NULL && len < sizeof(names))
            len += (size_t)snprintf(names + len, sizeof(names) - len, "%s%s",
                                    len ? "," : "", gn);
    }
    if (len == 0)
        return 0;
    return ddb_err_set(err, DDB_VALIDATION,
                       "One or more parameter values were invalid: "
                       "ProvisionedThroughput must be specified for index: "
                       "%s", names);
}

/* At most one Create or Delete per call, and none while another index is
 * being created or deleted (LimitExceededException, as DynamoDB). */
int
tables_gsi_updates_apply(struct api_ctx *ctx, const json_t *req,
                         struct stable *t, json_t *desc, bool on_demand,
                         bool table_pt, uint64_t now, struct ddb_err *err)
{
    const json_t *gsiu = json_object_get(req, "GlobalSecondaryIndexUpdates");
    const json_t *u, *a, *g;
    const char *kind, *st;
    bool delayed = tables_status_delay(ctx) != 0;
    size_t i, ncd = 0;

    json_array_foreach(gsiu, i, u) {
        gsiu_action(u, &kind);
        if (strcmp(kind, "Update") != 0)
            ncd++;
    }
    if (ncd > 0 && table_pt)
        return ddb_err_set(err, DDB_VALIDATION,
                           "One or more parameter values were invalid: You "
                           "cannot create or delete index while updating "
                           "table IOPS");
    json_array_foreach(json_object_get(desc, "GlobalSecondaryIndexes"), i,
                       g) {
        st = tables_str(g, "IndexStatus");
        if (ncd > 0 && st != NULL && (strcmp(st, "CREATING") == 0 ||
                                      strcmp(st, "DELETING") == 0))
            ncd = 99;
    }
    if (ncd > 1)
        return ddb_err_set(err, DDB_LIMIT_EXCEEDED,
                           "Subscriber limit exceeded: Only 1 online index "
                           "can be created or deleted simultaneously per "
                           "table");
    json_array_foreach(gsiu, i, u) {
        a = gsiu_action(u, &kind);
        if (strcmp(kind, "Create") == 0) {
            if (gsi_create(ctx, req, t, desc, a, on_demand, delayed,
                           err) != 0)
                return -1;
        } else if (strcmp(kind, "Delete") == 0) {
            if (gsi_delete(ctx, desc, a, delayed, err) != 0)
                return -1;
        } else if (gsi_update(ctx, desc, a, on_demand, now, err) != 0) {
            return -1;
        }
    }
    return 0;
}
