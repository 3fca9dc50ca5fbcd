/* SPDX-License-Identifier: MIT */
/* delete.c - DeleteTable: DELETING for the status delay, after which the
 * next lookup drops the table (status.c), or dropped at once when the
 * delay is 0. */
#include <string.h>

#include "api/proto/context.h"
#include "api/tables/tables.h"
#include "api/tables/tables_int.h"
#include "storage/util.h"

/*
 * The description of a deleting table holds less than DescribeTable's: its
 * name and status, throughput, sizes, identity and billing, and no key
 * schema, attribute definitions, creation time or indexes. Every recorded
 * DeleteTable answer of DynamoDB shows that shape (the AWS CLI getting
 * started tutorial's delete-table output, on demand, with
 * BillingModeSummary, TableClassSummary and DeletionProtectionEnabled;
 * provisioned tables' outputs quoted by the AWS CDK workshop and the WSO2
 * DynamoDB connector docs), and without WarmThroughput too (a catalogue
 * of recorded behaviours, 2026-10-09: "DeleteTable returns a reduced
 * TableDescription (no KeySchema, AttributeDefinitions, indexes,
 * CreationDateTime, WarmThroughput)").
 */
static const char *const deleting_members[] = {
    "TableName", "TableStatus", "ProvisionedThroughput", "TableSizeBytes",
    "ItemCount", "TableArn", "TableId", "BillingModeSummary",
    "TableClassSummary", "DeletionProtectionEnabled",
};

/* pub (taken) cut down to deleting_members, in its own order. */
static json_t *
deleting_desc(json_t *pub)
{
    json_t *out = json_object(), *v;
    const char *k;
    size_t i;

    json_object_foreach(pub, k, v)
        for (i = 0; i < sizeof(deleting_members) /
                        sizeof(deleting_members[0]); i++)
            if (strcmp(k, deleting_members[i]) == 0) {
                json_object_set(out, k, v);
                break;
            }
    json_decref(pub);
    return out;
}

int
api_delete_table(struct api_ctx *ctx, const json_t *req, json_t **resp,
                 struct ddb_err *err)
{
    struct tables_ddl d;
    const char *status;
    json_t *pub = NULL, *wt;
    uint64_t now = tables_now_ms(ctx);
    unsigned delay = tables_status_delay(ctx);
    int rc = -1;

    if (tables_ddl_begin_req(ctx, req, &d, err) != 0)
        goto out;
    status = tables_str(d.desc, "TableStatus");
    /* DynamoDB: "If table is already in the DELETING state, no error is
     * returned." CREATING and UPDATING are ResourceInUseException. */
    if (status != NULL && strcmp(status, "DELETING") == 0) {
        pub = deleting_desc(tables_public_desc(ctx->srv->st, d.t, d.desc));
        rc = 0;
        goto out;
    }
    /* While a stream is being enabled or disabled (DDB-TABLE-002,
     * recorded 2026-10). */
    if (tables_stream_busy(ctx, d.desc, now)) {
        ddb_err_set(err, DDB_RESOURCE_IN_USE, "Attempt to change a resource "
                    "which is still in use: Cannot delete table while "
                    "stream is being enabled/disabled.");
        goto out;
    }
    if (tables_check_in_use(d.desc, d.name, err) != 0 ||
        tables_vector_check_delete(d.desc, err) != 0)
        goto out;
    if (json_is_true(json_object_get(d.desc, "DeletionProtectionEnabled"))) {
        ddb_err_set(err, DDB_VALIDATION,
                    "Resource cannot be deleted as it is currently protected "
                    "against deletion. Disable deletion protection first.");
        goto out;
    }
    json_object_set_new(d.desc, "TableStatus", json_string("DELETING"));
    wt = json_object_get(d.desc, "WarmThroughput");
    if (json_is_object(wt))
        json_object_set_new(wt, "Status", json_string("DELETING"));
    /* The reply shows the table as it was (counts included). */
    pub = deleting_desc(tables_public_desc(ctx->srv->st, d.t, d.desc));
    if (delay == 0) {
        stable_release(d.t);
        d.t = NULL;
        if (tables_drop(ctx, d.name, err) != 0)
            goto out;
    } else {
        json_object_set_new(d.desc, PRIV_UNTIL,
                            json_integer((json_int_t)(now + delay)));
        if (stable_set_desc(d.t, d.desc, err) != 0)
            goto out;
    }
    rc = 0;
out:
    return tables_ddl_end(&d, rc, pub, resp);
}
