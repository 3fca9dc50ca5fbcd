/* SPDX-License-Identifier: MIT */
/* check.c - the request checks of CreateTable, in DynamoDB's order and
 * with its messages: name, billing mode and throughput, key schema and
 * attribute definitions, secondary indexes, on-demand limits. UpdateTable
 * and its GSI Create reuse the throughput and index checks. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "api/proto/context.h"
#include "api/index/index.h"
#include "api/tables/tables_int.h"
#include "api/vector/vector.h"
#include "storage/util.h"

/* Limits DynamoDB applies after the request shape checks. */
#define THROUGHPUT_MAX  1000000000000LL /* "Given value ... is out of bounds" */
#define PROJECTED_MAX   100             /* NonKeyAttributes, all indexes */

/* ------------------------------------------------------------------------
 * Small helpers
 * ---------------------------------------------------------------------- */

/* The AttributeName of element i of a KeySchema, or NULL. */
static const char *
key_name(const json_t *ks, size_t i)
{
    return tables_str(json_array_get(ks, i), "AttributeName");
}

/* The KeyType of element i of a KeySchema (borrowed), or NULL. */
static const json_t *
key_type(const json_t *ks, size_t i)
{
    return json_object_get(json_array_get(ks, i), "KeyType");
}

/* "[a, b]" from the AttributeName members of a list of objects. */
static void
join_names(const json_t *list, char *out, size_t outsz)
{
    size_t i, len = 0;
    const json_t *el;
    const char *n;

    len += (size_t)snprintf(out, outsz, "[");
    json_array_foreach(list, i, el) {
        n = tables_str(el, "AttributeName");
        if (len < outsz)
            len += (size_t)snprintf(out + len, outsz - len, "%s%s",
                                    i ? ", " : "", n ? n : "null");
    }
    if (len < outsz)
        snprintf(out + len, outsz - len, "]");
}

static bool
list_has_name(const json_t *list, const char *name)
{
    size_t i;
    const json_t *el;
    const char *n;

    json_array_foreach(list, i, el) {
        n = tables_str(el, "AttributeName");
        if (n != NULL && strcmp(n, name) == 0)
            return true;
    }
    return false;
}

static bool
req_has_indexes(const json_t *req)
{
    return json_has(req, "GlobalSecondaryIndexes") ||
           json_has(req, "LocalSecondaryIndexes") ||
           json_has(req, "VectorIndexes");
}

/* ------------------------------------------------------------------------
 * Key schemas: the table's and its indexes'
 * ---------------------------------------------------------------------- */

/* Every attribute of the KeySchema ks must be in defs. */
static int
check_keys_defined(const json_t *ks, const json_t *defs, struct ddb_err *err)
{
    char kbuf[1024], dbuf[1024];
    const char *n;
    size_t i;

    for (i = 0; i < json_array_size(ks); i++) {
        n = key_name(ks, i);
        if (n == NULL || !list_has_name(defs, n)) {
            join_names(ks, kbuf, sizeof(kbuf));
            join_names(defs, dbuf, sizeof(dbuf));
            return ddb_err_set(err, DDB_VALIDATION,
                               "One or more parameter values were invalid: "
                               "Some index key attributes are not defined in "
                               "AttributeDefinitions. Keys: %s, "
                               "AttributeDefinitions: %s", kbuf, dbuf);
        }
    }
    return 0;
}

/*
 * A multi-attribute GSI key (more than one HASH or RANGE attribute; only
 * GSIs get here, LSI KeySchemas are at most 2 long): up to 4 HASH
 * attributes, then up to 4 RANGE attributes, no name twice. The first
 * element is already known to be HASH. DynamoDB's messages (a catalogue
 * of ValidationException texts recorded in us-east-1 and us-west-2,
 * 2026-10-09; the Alternator suite's test_gsi_composite_keys.py, run
 * against DynamoDB, matches "HASH.*precede.*RANGE" and ".*same name").
 */
static int
check_multi_key(const json_t *ks, struct ddb_err *err)
{
    size_t i, j, nhash = 0, nrange = 0;

    for (i = 0; i < json_array_size(ks); i++) {
        for (j = 0; j < i; j++)
            if (key_name(ks, i) != NULL && key_name(ks, j) != NULL &&
                strcmp(key_name(ks, i), key_name(ks, j)) == 0)
                return ddb_err_set(err, DDB_VALIDATION,
                                   "The KeySchema contains multiple key "
                                   "attributes with the same name");
        if (json_str_is(key_type(ks, i), "HASH")) {
            if (nrange > 0)
                return ddb_err_set(err, DDB_VALIDATION,
                                   "One or more parameter values were "
                                   "invalid: All HASH key attributes must "
                                   "precede RANGE key attributes in the "
                                   "KeySchema");
            nhash++;
        } else if (json_str_is(key_type(ks, i), "RANGE")) {
            nrange++;
        } else {
            return ddb_err_set(err, DDB_VALIDATION,
                               "Invalid KeySchema: KeySchemaElement %zu is "
                               "not a HASH or RANGE key type", i + 1);
        }
    }
    if (nhash > INDEX_KEY_ATTRS_MAX || nrange > INDEX_KEY_ATTRS_MAX)
        return ddb_err_set(err, DDB_VALIDATION,
                           "One or more parameter values were invalid: The "
                           "KeySchema exceeds the maximum allowed number of "
                           "%s key attributes",
                           nhash > INDEX_KEY_ATTRS_MAX ? "HASH" : "RANGE");
    return 0;
}

/* A HASH key, then an optional RANGE key of another name; with multi (a
 * GSI) several of each. */
static int
check_key_order(const json_t *ks, bool multi, struct ddb_err *err)
{
    size_t n = json_array_size(ks);

    /* Two HASH elements of one name (a GSI's multi-attribute key) are
     * check_multi_key's "multiple key attributes with the same name". */
    if (n == 2 && key_name(ks, 0) != NULL && key_name(ks, 1) != NULL &&
        strcmp(key_name(ks, 0), key_name(ks, 1)) == 0 &&
        !(multi && json_str_is(key_type(ks, 0), "HASH") &&
          json_str_is(key_type(ks, 1), "HASH")))
        return ddb_err_set(err, DDB_VALIDATION,
                           "Both the Hash Key and the Range Key element in "
                           "the KeySchema have the same name");
    if (!json_str_is(key_type(ks, 0), "HASH"))
        return ddb_err_set(err, DDB_VALIDATION,
                           "Invalid KeySchema: The first KeySchemaElement is "
                           "not a HASH key type");
    if (multi && (n > 2 || (n == 2 && json_str_is(key_type(ks, 1), "HASH"))))
        return check_multi_key(ks, err);
    if (n == 2 && !json_str_is(key_type(ks, 1), "RANGE"))
        return ddb_err_set(err, DDB_VALIDATION,
                           "Invalid KeySchema: The second KeySchemaElement "
                           "is not a RANGE key type");
    return 0;
}

/*
 * Check KeySchema against AttributeDefinitions in the order DynamoDB does,
 * with its messages. Only the table's own key schema: the indexes come
 * next (check_indexes).
 */
static int
check_key_schema(const json_t *ks, const json_t *defs, bool has_indexes,
                 struct ddb_err *err)
{
    size_t i, j, nk, nd;
    const json_t *el;
    const char *n, *n2, *kt;

    if (!json_is_array(ks) || !json_is_array(defs))
        return ddb_err_set(err, DDB_VALIDATION,
                           "1 validation error detected: Value null at "
                           "'%s' failed to satisfy constraint: Member must "
                           "not be null",
                           json_is_array(ks) ? "attributeDefinitions"
                                             : "keySchema");
    nk = json_array_size(ks);
    nd = json_array_size(defs);
    if (nk < 1 || nk > 2)
        return ddb_err_set(err, DDB_VALIDATION,
                           "1 validation error detected: Value '%s' at "
                           "'keySchema' failed to satisfy constraint: Member "
                           "must have length %s",
                           nk ? "[...]" : "[]",
                           nk ? "less than or equal to 2"
                              : "greater than or equal to 1");
    json_array_foreach(ks, i, el) {
        if (tables_str(el, "AttributeName") == NULL ||
            tables_str(el, "KeyType") == NULL)
            return ddb_err_set(err, DDB_VALIDATION,
                               "1 validation error detected: Value null at "
                               "'keySchema.%zu.member.%s' failed to satisfy "
                               "constraint: Member must not be null", i + 1,
                               json_object_get(el, "AttributeName")
                                   ? "keyType" : "attributeName");
    }
    json_array_foreach(defs, i, el) {
        n = tables_str(el, "AttributeName");
        kt = tables_str(el, "AttributeType");
        if (n == NULL || kt == NULL)
            return ddb_err_set(err, DDB_VALIDATION,
                               "1 validation error detected: Value null at "
                               "'attributeDefinitions.%zu.member.%s' failed "
                               "to satisfy constraint: Member must not be "
                               "null", i + 1,
                               n ? "attributeType" : "attributeName");
        for (j = 0; j < i; j++) {
            n2 = tables_str(json_array_get(defs, j), "AttributeName");
            if (n2 != NULL && strcmp(n, n2) == 0)
                return ddb_err_set(err, DDB_VALIDATION,
                                   "Attribute Name is duplicated: %s", n);
        }
    }
    if (nk > nd)
        return ddb_err_set(err, DDB_VALIDATION,
                           "Invalid KeySchema: Some index key attribute have "
                           "no definition");
    if (check_keys_defined(ks, defs, err) != 0 ||
        check_key_order(ks, false, err) != 0)
        return -1;
    if (nk != nd && !has_indexes)
        return ddb_err_set(err, DDB_VALIDATION,
                           "One or more parameter values were invalid: "
                           "Number of attributes in KeySchema does not "
                           "exactly match number of attributes defined in "
                           "AttributeDefinitions");
    json_array_foreach(defs, i, el) {
        kt = tables_str(el, "AttributeType");
        if (strcmp(kt, "S") != 0 && strcmp(kt, "N") != 0 &&
            strcmp(kt, "B") != 0)
            return ddb_err_set(err, DDB_VALIDATION,
                               "1 validation error detected: Value '%s' at "
                               "'attributeDefinitions.%zu.member."
                               "attributeType' failed to satisfy constraint: "
                               "Member must satisfy enum value set: [B, N, S]",
                               kt, i + 1);
    }
    return 0;
}

/* ------------------------------------------------------------------------
 * Throughput
 * ---------------------------------------------------------------------- */

/*
 * ReadCapacityUnits/WriteCapacityUnits of a ProvisionedThroughput object
 * into *r and *w, with DynamoDB's range messages (the shape checks are
 * repeated defensively in case a request reaches us unvalidated).
 */
int
tables_read_throughput(const json_t *pt, long long *r, long long *w,
                       struct ddb_err *err)
{
    static const char *const names[2] = { "ReadCapacityUnits",
                                          "WriteCapacityUnits" };
    static const char *const paths[2] = { "readCapacityUnits",
                                          "writeCapacityUnits" };
    long long v[2];
    int i;

    for (i = 0; i < 2; i++) {
        const json_t *j = json_object_get(pt, names[i]);

        if (j == NULL || json_is_null(j))
            return ddb_err_set(err, DDB_VALIDATION,
                               "1 validation error detected: Value null at "
                               "'provisionedThroughput.%s' failed to satisfy "
                               "constraint: Member must not be null",
                               paths[i]);
        if (!json_is_integer(j))
            return ddb_err_set(err, DDB_SERIALIZATION,
                               "NUMBER_VALUE cannot be converted to Long");
        v[i] = (long long)json_integer_value(j);
        if (v[i] < 1)
            return ddb_err_set(err, DDB_VALIDATION,
                               "1 validation error detected: Value '%lld' at "
                               "'provisionedThroughput.%s' failed to satisfy "
                               "constraint: Member must have value greater "
                               "than or equal to 1", v[i], paths[i]);
    }
    for (i = 0; i < 2; i++)
        if (v[i] > THROUGHPUT_MAX)
            return ddb_err_set(err, DDB_VALIDATION,
                               "Given value %lld for %s is out of bounds",
                               v[i], names[i]);
    *r = v[0];
    *w = v[1];
    return 0;
}

/* OnDemandThroughput {MaxReadRequestUnits, MaxWriteRequestUnits}: each
 * absent (stored as -1), -1 (no limit) or >= 1. */
json_t *
tables_read_on_demand(const json_t *odt, struct ddb_err *err)
{
    static const char *const names[2] = { "MaxReadRequestUnits",
                                          "MaxWriteRequestUnits" };
    json_t *out = json_object();
    int i;

    for (i = 0; i < 2; i++) {
        const json_t *j = json_object_get(odt, names[i]);
        long long v;

        if (j == NULL || json_is_null(j)) {
            json_object_set_new(out, names[i], json_integer(-1));
            continue;
        }
        if (!json_is_integer(j)) {
            json_decref(out);
            ddb_err_set(err, DDB_SERIALIZATION,
                        "NUMBER_VALUE cannot be converted to Long");
            return NULL;
        }
        v = (long long)json_integer_value(j);
        if (v == 0 || v < -1 || v > THROUGHPUT_MAX) {
            json_decref(out);
            ddb_err_set(err, DDB_VALIDATION,
                        "One or more parameter values were invalid: "
                        "%s must be -1 or a positive value, got %lld",
                        names[i], v);
            return NULL;
        }
        json_object_set_new(out, names[i], json_integer((json_int_t)v));
    }
    return out;
}

/* BillingMode and ProvisionedThroughput of a CreateTable request into c. */
static int
check_billing(const json_t *req, struct tables_create *c,
              struct ddb_err *err)
{
    const char *mode = tables_str(req, "BillingMode");
    const json_t *pt = json_object_get(req, "ProvisionedThroughput");

    c->on_demand = mode != NULL && strcmp(mode, "PAY_PER_REQUEST") == 0;
    if (json_is_null(pt))
        pt = NULL;
    if (c->on_demand) {
        if (pt != NULL)
            return ddb_err_set(err, DDB_VALIDATION,
                               "One or more parameter values were invalid: "
                               "Neither ReadCapacityUnits nor "
                               "WriteCapacityUnits can be specified when "
                               "BillingMode is PAY_PER_REQUEST");
        return 0;
    }
    if (pt == NULL && mode == NULL)
        return ddb_err_set(err, DDB_VALIDATION,
                           "No provisioned throughput specified for the "
                           "table");
    if (pt == NULL)
        return ddb_err_set(err, DDB_VALIDATION,
                           "One or more parameter values were invalid: "
                           "ReadCapacityUnits and WriteCapacityUnits "
                           "must both be specified when BillingMode is "
                           "PROVISIONED");
    return tables_read_throughput(pt, &c->r, &c->w, err);
}

/* An OnDemandThroughput member of obj (a request or a GSI element), only
 * with on-demand billing; *out (may be NULL: check only) receives the
 * stored form, or NULL when the member is absent. */
static int
check_on_demand(const json_t *obj, bool on_demand, json_t **out,
                struct ddb_err *err)
{
    json_t *odt;

    if (!json_has(obj, "OnDemandThroughput"))
        return 0;
    if (!on_demand)
        return ddb_err_set(err, DDB_VALIDATION,
                           "One or more parameter values were invalid: "
                           "OnDemandThroughput cannot be specified when "
                           "BillingMode is PROVISIONED");
    odt = tables_read_on_demand(json_object_get(obj, "OnDemandThroughput"),
                                err);
    if (odt == NULL)
        return -1;
    if (out != NULL)
        *out = odt;
    else
        json_decref(odt);
    return 0;
}

/* ------------------------------------------------------------------------
 * Secondary indexes
 * ---------------------------------------------------------------------- */

/* DynamoDB's order (dynalite validations/createTable.js, which records
 * its messages). */
int
tables_check_index_key(const json_t *idx, const json_t *defs, bool global,
                       struct ddb_err *err)
{
    const json_t *ks = json_object_get(idx, "KeySchema");

    if (check_keys_defined(ks, defs, err) != 0)
        return -1;
    return check_key_order(ks, global, err);
}

/* The Projection rules (for LSIs, after the LSI-only key checks). */
int
tables_check_projection(const json_t *idx, struct ddb_err *err)
{
    const json_t *proj = json_object_get(idx, "Projection");
    const json_t *nka = json_object_get(proj, "NonKeyAttributes");
    const char *pt = tables_str(proj, "ProjectionType");
    const json_t *a, *b;
    size_t i, j;

    if (pt == NULL)
        return ddb_err_set(err, DDB_VALIDATION,
                           "One or more parameter values were invalid: "
                           "Unknown ProjectionType: null");
    if (json_is_null(nka))
        nka = NULL;
    if (nka != NULL && strcmp(pt, "INCLUDE") != 0)
        return ddb_err_set(err, DDB_VALIDATION,
                           "One or more parameter values were invalid: "
                           "ProjectionType is %s, but NonKeyAttributes is "
                           "specified", pt);
    if (nka == NULL && strcmp(pt, "INCLUDE") == 0)
        return ddb_err_set(err, DDB_VALIDATION,
                           "One or more parameter values were invalid: "
                           "ProjectionType is INCLUDE, but NonKeyAttributes "
                           "is not specified");
    json_array_foreach(nka, i, a) {
        for (j = 0; j < i; j++) {
            b = json_array_get(nka, j);
            if (json_equal((json_t *)a, (json_t *)b))
                return ddb_err_set(err, DDB_VALIDATION,
                                   "One or more parameter values were "
                                   "invalid: Duplicate element in "
                                   "NonKeyAttributes: %s",
                                   json_string_value(a));
        }
    }
    return 0;
}

/* DynamoDB says ProvisionedThroughput "is not" specified in CreateTable,
 * "must be" in UpdateTable's GSI Create: missing is that wording. */
int
tables_check_gsi_billing(const json_t *idx, bool on_demand,
                         const char *missing, struct ddb_err *err)
{
    const char *iname = tables_str(idx, "IndexName");
    bool has_pt = json_has(idx, "ProvisionedThroughput");

    if (on_demand && has_pt)
        return ddb_err_set(err, DDB_VALIDATION,
                           "One or more parameter values were invalid: "
                           "ProvisionedThroughput should not be specified "
                           "for index: %s when BillingMode is "
                           "PAY_PER_REQUEST", iname);
    if (!on_demand && !has_pt)
        return ddb_err_set(err, DDB_VALIDATION,
                           "One or more parameter values were invalid: "
                           "ProvisionedThroughput %s specified for index: "
                           "%s", missing, iname);
    return 0;
}

/* CreateTable and UpdateTable word the GSI limit alike; only the
 * exception differs. */
int
tables_err_gsi_count(enum ddb_errtype type, struct ddb_err *err)
{
    return ddb_err_set(err, type,
                       "One or more parameter values were invalid: "
                       "GlobalSecondaryIndex count exceeds the per-table "
                       "limit of %d", INDEX_GSI_MAX);
}

/* Index upto of list (LSIs, then GSIs) must not reuse the name of one
 * before it. */
static int
check_duplicate_name(const json_t *req, const char *list, size_t upto,
                     const char *name, struct ddb_err *err)
{
    static const char *const lists[2] = { "LocalSecondaryIndexes",
                                          "GlobalSecondaryIndexes" };
    size_t i, j, n;

    for (i = 0; i < 2; i++) {
        const json_t *a = json_object_get(req, lists[i]);

        n = strcmp(lists[i], list) == 0 ? upto : json_array_size(a);
        if (strcmp(lists[i], list) != 0 && i == 1)
            n = 0;                  /* GSIs come after the LSIs */
        for (j = 0; j < n; j++) {
            const char *o = tables_str(json_array_get(a, j), "IndexName");

            if (o != NULL && name != NULL && strcmp(o, name) == 0)
                return ddb_err_set(err, DDB_VALIDATION,
                                   "One or more parameter values were "
                                   "invalid: Duplicate index name: %s",
                                   name);
        }
        if (strcmp(lists[i], list) == 0)
            break;
    }
    return 0;
}

/* LocalSecondaryIndexes (lsis, not NULL): each shares the table's hash
 * key and has a range key of its own. */
static int
check_lsis(const json_t *req, const json_t *lsis, struct ddb_err *err)
{
    const json_t *ks = json_object_get(req, "KeySchema");
    const json_t *defs = json_object_get(req, "AttributeDefinitions");
    const char *thash = key_name(ks, 0);
    const json_t *idx;
    size_t i;

    if (json_array_size(lsis) == 0)
        return ddb_err_set(err, DDB_VALIDATION,
                           "One or more parameter values were invalid: "
                           "List of LocalSecondaryIndexes is empty");
    if (json_array_size(ks) != 2)
        return ddb_err_set(err, DDB_VALIDATION,
                           "One or more parameter values were invalid: "
                           "Table KeySchema does not have a range key, "
                           "which is required when specifying a "
                           "LocalSecondaryIndex");
    json_array_foreach(lsis, i, idx) {
        const json_t *iks = json_object_get(idx, "KeySchema");
        const char *iname = tables_str(idx, "IndexName");

        if (tables_check_index_key(idx, defs, false, err) != 0)
            return -1;
        if (json_array_size(iks) != 2)
            return ddb_err_set(err, DDB_VALIDATION,
                               "One or more parameter values were "
                               "invalid: Index KeySchema does not have a "
                               "range key for index: %s", iname);
        if (key_name(iks, 0) == NULL || thash == NULL ||
            strcmp(key_name(iks, 0), thash) != 0)
            return ddb_err_set(err, DDB_VALIDATION,
                               "One or more parameter values were "
                               "invalid: Index KeySchema does not have "
                               "the same leading hash key as table "
                               "KeySchema for index: %s. index hash key: "
                               "%s, table hash key: %s", iname,
                               key_name(iks, 0), thash);
        if (tables_check_projection(idx, err) != 0 ||
            check_duplicate_name(req, "LocalSecondaryIndexes", i, iname,
                                 err) != 0)
            return -1;
    }
    if (json_array_size(lsis) > INDEX_LSI_MAX)
        return ddb_err_set(err, DDB_VALIDATION,
                           "One or more parameter values were invalid: "
                           "Number of LocalSecondaryIndexes exceeds "
                           "per-table limit of %d", INDEX_LSI_MAX);
    return 0;
}

/* GlobalSecondaryIndexes (gsis, not NULL): key, projection, and the
 * throughput the table's billing mode asks for. */
static int
check_gsis(const json_t *req, const json_t *gsis, bool on_demand,
           struct ddb_err *err)
{
    const json_t *defs = json_object_get(req, "AttributeDefinitions");
    const json_t *idx, *pt;
    long long r, w;
    size_t i;

    if (json_array_size(gsis) == 0)
        return ddb_err_set(err, DDB_VALIDATION,
                           "One or more parameter values were invalid: "
                           "List of GlobalSecondaryIndexes is empty");
    json_array_foreach(gsis, i, idx) {
        const char *iname = tables_str(idx, "IndexName");

        if (tables_check_index_key(idx, defs, true, err) != 0 ||
            tables_check_projection(idx, err) != 0)
            return -1;
        if (tables_check_gsi_billing(idx, on_demand, "is not", err) != 0)
            return -1;
        pt = json_object_get(idx, "ProvisionedThroughput");
        if (json_has(idx, "ProvisionedThroughput") &&
            tables_read_throughput(pt, &r, &w, err) != 0)
            return -1;
        if (check_on_demand(idx, on_demand, NULL, err) != 0 ||
            check_duplicate_name(req, "GlobalSecondaryIndexes", i, iname,
                                 err) != 0)
            return -1;
    }
    if (json_array_size(gsis) > INDEX_GSI_MAX)
        return tables_err_gsi_count(DDB_VALIDATION, err);
    return 0;
}

/* Append the names of ks not yet in used (an array of strings). */
static void
add_used(json_t *used, const json_t *ks)
{
    const json_t *el, *u;
    size_t i, j;
    bool seen;

    json_array_foreach(ks, i, el) {
        const json_t *n = json_object_get(el, "AttributeName");

        seen = false;
        json_array_foreach(used, j, u)
            if (json_equal((json_t *)u, (json_t *)n))
                seen = true;
        if (!seen && json_is_string(n))
            json_array_append(used, (json_t *)n);
    }
}

/* Every AttributeDefinition must be some key, and the indexes (lsis and
 * gsis, either may be NULL) project at most PROJECTED_MAX attributes. */
static int
check_defs_used(const json_t *req, const json_t *lsis, const json_t *gsis,
                struct ddb_err *err)
{
    const json_t *defs = json_object_get(req, "AttributeDefinitions");
    const json_t *lists[2] = { lsis, gsis };
    json_t *used = json_array();
    const json_t *idx;
    char dbuf[2048], ubuf[2048];
    size_t i, k, nproj = 0;
    int rc = -1;

    add_used(used, json_object_get(req, "KeySchema"));
    for (k = 0; k < 2; k++)
        json_array_foreach(lists[k], i, idx) {
            add_used(used, json_object_get(idx, "KeySchema"));
            nproj += json_array_size(json_object_get(
                json_object_get(idx, "Projection"), "NonKeyAttributes"));
        }
    /* A vector index's SearchSchema attributes are defined too. */
    vector_add_used(json_object_get(req, "VectorIndexes"), used);
    nproj += vector_projected_count(json_object_get(req, "VectorIndexes"));
    if (json_array_size(used) != json_array_size(defs)) {
        json_t *uk = json_array();
        const json_t *u;

        json_array_foreach(used, i, u)
            json_array_append_new(uk, json_pack("{s:O}", "AttributeName", u));
        join_names(defs, dbuf, sizeof(dbuf));
        join_names(uk, ubuf, sizeof(ubuf));
        json_decref(uk);
        ddb_err_set(err, DDB_VALIDATION,
                    "One or more parameter values were invalid: Some "
                    "AttributeDefinitions are not used. AttributeDefinitions: "
                    "%s, keys used: %s", dbuf, ubuf);
        goto out;
    }
    if (nproj > PROJECTED_MAX) {
        ddb_err_set(err, DDB_VALIDATION,
                    "One or more parameter values were invalid: Number of "
                    "projected attributes in all indexes exceeds limit of "
                    "%d, provided: %zu", PROJECTED_MAX, nproj);
        goto out;
    }
    rc = 0;
out:
    json_decref(used);
    return rc;
}

/*
 * CreateTable's index checks, after the table's own key schema: LSIs,
 * then GSIs (each in DynamoDB's order), then AttributeDefinitions that no
 * key uses and the projected-attribute limit.
 */
static int
check_indexes(const json_t *req, bool on_demand, struct ddb_err *err)
{
    const json_t *lsis = json_object_get(req, "LocalSecondaryIndexes");
    const json_t *gsis = json_object_get(req, "GlobalSecondaryIndexes");

    if (!req_has_indexes(req))
        return 0;
    if (json_is_null(lsis))
        lsis = NULL;
    if (json_is_null(gsis))
        gsis = NULL;
    if (lsis != NULL && check_lsis(req, lsis, err) != 0)
        return -1;
    if (gsis != NULL && check_gsis(req, gsis, on_demand, err) != 0)
        return -1;
    if (json_has(req, "VectorIndexes") &&
        tables_check_vector_create(req, on_demand, err) != 0)
        return -1;
    return check_defs_used(req, lsis, gsis, err);
}

/* ------------------------------------------------------------------------
 * The whole request
 * ---------------------------------------------------------------------- */

/* Features that belong to later work: a ValidationException rather than
 * silently ignoring them. Returns 0 when none is present. */
int
tables_reject_unsupported(const json_t *req, const char *op,
                          struct ddb_err *err)
{
    static const char *const members[] = {
        "ReplicaUpdates", "MultiRegionConsistency",
        "GlobalTableWitnessUpdates",
    };
    size_t i;

    /* Replicas need other regions: global tables are not available on a
     * local server (external.c). */
    for (i = 0; i < sizeof(members) / sizeof(members[0]); i++)
        if (json_has(req, members[i]))
            return ddb_err_set(err, DDB_VALIDATION,
                               "One or more parameter values were invalid: "
                               "%s: global tables are not supported "
                               "locally: shardlocal serves one region and "
                               "has no replica to create (%s)", members[i],
                               op);
    return 0;
}

/*
 * TableClass outside [STANDARD, STANDARD_INFREQUENT_ACCESS] (case
 * sensitive): not the model's enum message but this one, for CreateTable
 * and UpdateTable alike (a catalogue of ValidationException texts recorded
 * in us-east-1 and us-west-2, 2026-10-09; the Alternator suite's
 * test_tableclass.py, run against DynamoDB, matches "table.class").
 */
int
tables_check_table_class(const json_t *req, struct ddb_err *err)
{
    const json_t *cls = json_object_get(req, "TableClass");

    if (cls == NULL || json_is_null(cls) ||
        json_str_is(cls, "STANDARD") ||
        json_str_is(cls, "STANDARD_INFREQUENT_ACCESS"))
        return 0;
    return ddb_err_set(err, DDB_VALIDATION,
                       "Invalid table-class parameter provided. Please try "
                       "again with a valid table-class value: [STANDARD, "
                       "STANDARD_INFREQUENT_ACCESS].");
}

/* Billing mode and throughput come before the key schema, as in
 * DynamoDB; OnDemandThroughput comes last. */
int
tables_check_create(const struct api_ctx *ctx, const json_t *req,
                    struct tables_create *c, struct ddb_err *err)
{
    const char *param;

    c->on_demand = false;
    c->r = c->w = 0;
    c->odt = NULL;
    c->policy = NULL;
    param = tables_req_name(req, err);
    if (param == NULL)
        return -1;
    /* TableName may be the ARN of the table to create. */
    if (!tables_name_from_param(ctx, param, c->name, sizeof(c->name)) ||
        api_table_public(c->name)[0] == '\0')
        return ddb_err_set(err, DDB_VALIDATION,
                           "1 validation error detected: Value '%s' at "
                           "'tableName' failed to satisfy constraint: Member "
                           "must satisfy regular expression pattern: "
                           "[a-zA-Z0-9_.-]+", param);
    if (tables_check_access(ctx, c->name, err) != 0)
        return -1;
    if (tables_reject_unsupported(req, "CreateTable", err) != 0 ||
        tables_check_table_class(req, err) != 0 ||
        check_billing(req, c, err) != 0)
        return -1;
    if (check_key_schema(json_object_get(req, "KeySchema"),
                         json_object_get(req, "AttributeDefinitions"),
                         req_has_indexes(req), err) != 0 ||
        check_indexes(req, c->on_demand, err) != 0 ||
        tables_stream_parse(req, true, &c->stream, err) != 0 ||
        check_on_demand(req, c->on_demand, &c->odt, err) != 0)
        return -1;
    if (tables_warm_check_create(ctx, req, c, err) != 0)
        return -1;
    /* Tags and the resource policy last (an empty Tags list is accepted
     * here, unlike TagResource's: ack-api-quirks DDB-TABLE-108). */
    if (json_is_array(json_object_get(req, "Tags")) &&
        tables_check_tags(json_object_get(req, "Tags"), true, err) != 0)
        return -1;
    if (json_is_string(json_object_get(req, "ResourcePolicy")))
        return tables_policy_check(ctx, tables_str(req, "ResourcePolicy"),
                                   &c->policy, err);
    return 0;
}
