/* SPDX-License-Identifier: MIT */
/* vector_update.c - vector indexes in the control plane: CreateTable's
 * VectorIndexes (checked and described), UpdateTable's VectorIndexUpdates
 * (Create with a synchronous build from the table's items, Delete), and
 * what DeleteTable refuses while one is being created. The indexes
 * themselves live in api/vector/. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "api/index/index.h"
#include "api/tables/tables.h"
#include "api/tables/tables_int.h"
#include "api/vector/vector.h"
#include "storage/util.h"

#define INVALID "One or more parameter values were invalid: "
#define PROJECTED_MAX 100
#define MSG_ONE_ONLINE \
    "Subscriber limit exceeded: Only 1 online index can be created or " \
    "deleted simultaneously per table"

/* The IndexName of every GSI and LSI of obj (a request or a
 * description). New reference. */
static json_t *
other_index_names(const json_t *obj)
{
    static const char *const lists[2] = { "GlobalSecondaryIndexes",
                                          "LocalSecondaryIndexes" };
    json_t *names = json_array();
    const json_t *idx;
    size_t i, j;

    for (i = 0; i < 2; i++)
        json_array_foreach(json_object_get(obj, lists[i]), j, idx)
            if (json_is_string(json_object_get(idx, "IndexName")))
                json_array_append(names, json_object_get(idx, "IndexName"));
    return names;
}

/* The stored description of one vector index request element. */
static json_t *
entry_new(const struct api_ctx *ctx, const char *table, const json_t *vi,
          const char *status)
{
    const json_t *schema = json_object_get(vi, "SearchSchema"), *el;
    const char *iname = tables_str(vi, "IndexName");
    json_t *e, *ss;
    char arn[2400];
    size_t i;

    api_table_arn(ctx, table, arn, sizeof(arn));
    snprintf(arn + strlen(arn), sizeof(arn) - strlen(arn), "/index/%s",
             iname);
    e = json_pack("{s:s, s:{s:O}, s:O, s:O, s:o, s:s, s:i, s:i, s:s}",
                  "IndexName", iname, "VectorAttribute", "AttributeName",
                  json_object_get(json_object_get(vi, "VectorAttribute"),
                                  "AttributeName"),
                  "Dimensions", json_object_get(vi, "Dimensions"),
                  "DistanceFunction", json_object_get(vi, "DistanceFunction"),
                  "Projection",
                  tables_projection_desc(json_object_get(vi, "Projection")),
                  "IndexStatus", status, "IndexSizeBytes", 0, "ItemCount", 0,
                  "IndexArn", arn);
    if (json_is_array(schema)) {
        ss = json_array();
        json_array_foreach(schema, i, el)
            json_array_append_new(ss, json_pack(
                "{s:O, s:O}", "AttributeName",
                json_object_get(el, "AttributeName"),
                "SearchSchemaElementType",
                json_object_get(el, "SearchSchemaElementType")));
        json_object_set_new(e, "SearchSchema", ss);
    }
    return e;
}

/* Each element of list against defs and keys: the vector rules, then its
 * projection. */
static int
check_each(const json_t *list, const json_t *defs, const json_t *keys,
           struct ddb_err *err)
{
    const json_t *vi;
    size_t i;

    json_array_foreach(list, i, vi)
        if (vector_check_index(vi, defs, keys, err) != 0 ||
            tables_check_projection(vi, err) != 0)
            return -1;
    return 0;
}

/* ------------------------------------------------------------------------
 * CreateTable
 * ---------------------------------------------------------------------- */

int
tables_check_vector_create(const json_t *req, bool on_demand,
                           struct ddb_err *err)
{
    const json_t *list = json_object_get(req, "VectorIndexes");
    json_t *others = other_index_names(req);
    int rc;

    rc = vector_check_list(list, on_demand, others, err);
    json_decref(others);
    if (rc != 0)
        return -1;
    return check_each(list, json_object_get(req, "AttributeDefinitions"),
                      json_object_get(req, "KeySchema"), err);
}

/* An index made with its table is CREATING for as long as the table and
 * never reports Backfilling (eu-west-2, 2026-08: nubo-db/
 * dynamodb-conformance vectorSearch/lifecycle.test.ts). */
void
tables_vector_descs_add(const struct api_ctx *ctx, const json_t *req,
                        json_t *desc)
{
    const char *status = tables_str(desc, "TableStatus");
    const json_t *vi, *until = json_object_get(desc, PRIV_UNTIL);
    json_t *out = json_array(), *e;
    size_t i;

    json_array_foreach(json_object_get(req, "VectorIndexes"), i, vi) {
        e = entry_new(ctx, tables_str(desc, "TableName"), vi,
                      status != NULL && strcmp(status, "CREATING") == 0
                          ? "CREATING" : "ACTIVE");
        if (json_is_integer(until))
            json_object_set(e, "_slBackfillUntil", (json_t *)until);
        json_array_append_new(out, e);
    }
    json_object_set_new(desc, "VectorIndexes", out);
}

/* ------------------------------------------------------------------------
 * UpdateTable: VectorIndexUpdates
 * ---------------------------------------------------------------------- */

/* The action of one VectorIndexUpdate and its kind, or NULL. */
static const json_t *
action(const json_t *u, bool *create)
{
    *create = json_has(u, "Create");
    return json_object_get(u, *create ? "Create" : "Delete");
}

/* Our wording throughout: DynamoDB's messages for malformed lists are
 * not recorded; they follow its GlobalSecondaryIndexUpdates ones. */
int
tables_vector_updates_check(const json_t *vu, struct ddb_err *err)
{
    const json_t *u;
    size_t i;

    if (json_array_size(vu) == 0)
        return ddb_err_set(err, DDB_VALIDATION,
                           INVALID "List of VectorIndexUpdates is empty");
    json_array_foreach(vu, i, u) {
        if (!json_has(u, "Create") && !json_has(u, "Delete"))
            return ddb_err_set(err, DDB_VALIDATION,
                               INVALID "One of VectorIndexUpdate.Create, "
                               "VectorIndexUpdate.Delete must not be null");
        if (json_has(u, "Create") && json_has(u, "Delete"))
            return ddb_err_set(err, DDB_VALIDATION,
                               INVALID "Only one vector index action is "
                               "allowed per VectorIndexUpdate object");
    }
    return 0;
}

/* An index (GSI or vector) of desc being created or deleted. */
static bool
index_busy(const json_t *desc)
{
    static const char *const lists[2] = { "GlobalSecondaryIndexes",
                                          "VectorIndexes" };
    const json_t *idx;
    const char *st;
    size_t i, j;

    for (i = 0; i < 2; i++)
        json_array_foreach(json_object_get(desc, lists[i]), j, idx) {
            st = tables_str(idx, "IndexStatus");
            if (st != NULL && (strcmp(st, "CREATING") == 0 ||
                               strcmp(st, "DELETING") == 0))
                return true;
        }
    return false;
}

/*
 * A Delete: DynamoDB refuses it while the index's resources are still
 * allocated and takes it once it backfills (eu-west-2, 2026-08-23:
 * nubo-db/dynamodb-conformance vectorSearch/updateLifecycle.test.ts,
 * whose message this is, naming the bare table and index). The index is
 * DELETING for the status delay and leaves memory at once.
 */
static int
vector_delete(struct api_ctx *ctx, json_t *desc, const char *table,
              const json_t *a, uint64_t now, struct ddb_err *err)
{
    const char *iname = tables_str(a, "IndexName");
    json_t *vi = vector_desc_find(desc, iname);
    const char *st = tables_str(vi, "IndexStatus");
    unsigned delay = tables_status_delay(ctx);

    if (vi == NULL)
        return ddb_err_set(err, DDB_RESOURCE_NOT_FOUND,
                           "Requested resource not found: Index: %s not "
                           "found", iname);
    if (st != NULL && strcmp(st, "DELETING") == 0)   /* our wording */
        return ddb_err_set(err, DDB_RESOURCE_IN_USE,
                           "Attempt to change a resource which is still in "
                           "use: Index is being deleted. Table: %s Index: %s",
                           table, iname);
    if (st != NULL && strcmp(st, "CREATING") == 0 &&
        !json_is_true(json_object_get(vi, "Backfilling")))
        return ddb_err_set(err, DDB_RESOURCE_IN_USE,
                           "Attempt to change a resource which is still in "
                           "use: Index creation is in resource allocation "
                           "phase. Retry deletion during backfilling phase "
                           "or when the index is active. Table: %s Index: %s",
                           table, iname);
    vector_index_drop(ctx->srv->vectors, tables_str(desc, "TableId"), iname);
    if (delay > 0) {
        json_object_set_new(vi, "IndexStatus", json_string("DELETING"));
        json_object_del(vi, "Backfilling");
        json_object_del(vi, "_slAllocUntil");
        json_object_del(vi, "_slBackfillUntil");
        json_object_set_new(vi, "_slDeleteUntil",
                            json_integer((json_int_t)(now + delay)));
        return 0;
    }
    tables_index_remove(desc, "VectorIndexes", vi);
    return 0;
}

/* The projected attributes of every index of desc plus list's. */
static size_t
projected_total(const json_t *desc)
{
    static const char *const lists[2] = { "GlobalSecondaryIndexes",
                                          "LocalSecondaryIndexes" };
    const json_t *idx;
    size_t i, j, n = 0;

    for (i = 0; i < 2; i++)
        json_array_foreach(json_object_get(desc, lists[i]), j, idx)
            n += json_array_size(json_object_get(
                json_object_get(idx, "Projection"), "NonKeyAttributes"));
    return n + vector_projected_count(json_object_get(desc,
                                                      "VectorIndexes"));
}

/*
 * A Create: checked against the table, published CREATING (Backfilling
 * false while its resources are allocated, true while it backfills, each
 * for the status delay; at once ACTIVE without one), then built from the
 * table's items before UpdateTable answers, under the DDL lock: writes
 * from the moment it is published keep it in step.
 */
static int
vector_create(struct api_ctx *ctx, const json_t *req, struct stable *t,
              json_t *desc, const json_t *a, bool on_demand, uint64_t now,
              struct ddb_err *err)
{
    const char *iname = tables_str(a, "IndexName");
    unsigned delay = tables_status_delay(ctx);
    json_t *defs = NULL, *list = NULL, *others = NULL, *e;
    struct vector_table *vt;
    int rc = -1;

    if (index_desc_gsi(desc, iname) != NULL ||
        vector_desc_find(desc, iname) != NULL) {
        ddb_err_set(err, DDB_VALIDATION, "Attempting to create an index "
                    "which already exists");
        goto out;
    }
    others = other_index_names(desc);
    list = json_deep_copy(json_object_get(desc, "VectorIndexes"));
    if (list == NULL)
        list = json_array();
    json_array_append(list, (json_t *)a);
    defs = tables_merged_defs(desc, req);
    if (vector_check_list(list, on_demand, others, err) != 0 ||
        check_each(json_array_get(list, json_array_size(list) - 1), defs,
                   json_object_get(desc, "KeySchema"), err) != 0)
        goto out;
    e = entry_new(ctx, tables_str(desc, "TableName"), a,
                  delay > 0 ? "CREATING" : "ACTIVE");
    if (delay > 0) {
        json_object_set_new(e, "Backfilling", json_false());
        json_object_set_new(e, "_slAllocUntil",
                            json_integer((json_int_t)(now + delay)));
        json_object_set_new(e, "_slBackfillUntil",
                            json_integer((json_int_t)(now + 2u * delay)));
    }
    if (!json_is_array(json_object_get(desc, "VectorIndexes")))
        json_object_set_new(desc, "VectorIndexes", json_array());
    json_array_append_new(json_object_get(desc, "VectorIndexes"), e);
    if (projected_total(desc) > PROJECTED_MAX) {
        ddb_err_set(err, DDB_VALIDATION,
                    INVALID "Number of projected attributes in all indexes "
                    "exceeds limit of %d, provided: %zu", PROJECTED_MAX,
                    projected_total(desc));
        goto out;
    }
    json_object_set(desc, "AttributeDefinitions", defs);
    tables_prune_defs(desc);
    if (stable_set_desc(t, desc, err) != 0)
        goto out;
    vt = vector_table_open(ctx->srv->vectors, t, err);
    if (vt == NULL)
        goto out;
    vector_table_close(vt);
    rc = 0;
out:
    json_decref(defs);
    json_decref(list);
    json_decref(others);
    return rc;
}

/* One online index action per call and per table, as for GSIs (the
 * limit's message is DynamoDB's, eu-west-2, 2026-08: updateLifecycle);
 * a Delete cancelling the index being built is the exception. */
int
tables_vector_updates_apply(struct api_ctx *ctx, const json_t *req,
                            struct stable *t, json_t *desc, bool on_demand,
                            uint64_t now, struct ddb_err *err)
{
    const json_t *vu = json_object_get(req, "VectorIndexUpdates");
    const char *table = tables_str(desc, "TableName");
    const json_t *u, *a, *vi;
    size_t i, n = json_array_size(vu) +
                  json_array_size(json_object_get(
                      req, "GlobalSecondaryIndexUpdates"));
    bool create, cancel;

    json_array_foreach(vu, i, u) {
        a = action(u, &create);
        vi = create ? NULL
                    : vector_desc_find(desc, tables_str(a, "IndexName"));
        /* The Delete of the index being built words its own answer. */
        cancel = vi != NULL &&
                 json_str_is(json_object_get(vi, "IndexStatus"), "CREATING");
        if (n > 1 || (index_busy(desc) && !cancel))
            return ddb_err_set(err, DDB_LIMIT_EXCEEDED, MSG_ONE_ONLINE);
    }
    json_array_foreach(vu, i, u) {
        a = action(u, &create);
        if (create ? vector_create(ctx, req, t, desc, a, on_demand, now,
                                   err) != 0
                   : vector_delete(ctx, desc, table, a, now, err) != 0)
            return -1;
    }
    return 0;
}

/* eu-west-2, 2026-08-21: nubo-db vectorSearch/updateLifecycle.test.ts
 * ("refuses to delete the table while a vector index is still being
 * created"), the message whole. */
int
tables_vector_check_delete(const json_t *desc, struct ddb_err *err)
{
    const json_t *vi;
    const char *st;
    size_t i;

    json_array_foreach(json_object_get(desc, "VectorIndexes"), i, vi) {
        st = tables_str(vi, "IndexStatus");
        if (st != NULL && (strcmp(st, "CREATING") == 0 ||
                           strcmp(st, "DELETING") == 0))
            return ddb_err_set(err, DDB_RESOURCE_IN_USE,
                               "Attempt to change a resource which is still "
                               "in use: Cannot delete table while indexes "
                               "are being created, updated, or deleted.");
    }
    return 0;
}
