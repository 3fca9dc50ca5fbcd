/* SPDX-License-Identifier: MIT */
/* model.c - the service model's shared shapes (the AttributeValue, the
 * enumerations several operations take) and the lookup of an operation's
 * schema by name. The operations' schemas live in model_items.c (single
 * items, Query, Scan), model_batch.c (batches and transactions) and
 * model_tables.c (the control plane). */

#include <string.h>

#include "api/proto/model.h"

const char *const model_e_consumed[] = { "INDEXES", "TOTAL", "NONE", NULL };
const char *const model_e_metrics[] = { "SIZE", "NONE", NULL };
const char *const model_e_rvcf[] = { "ALL_OLD", "NONE", NULL };

const struct vfield model_av_elem = { .name = "member", .type = T_AV,
                                      .cls = "AttributeValue" };
const struct vfield model_str_elem = { .name = "member", .type = T_STR };
static const struct vfield blob_elem = { .name = "member", .type = T_BLOB };

/* The members of an AttributeValue, in DynamoDB's order. */
const struct vfield model_av_fields[] = {
    { .name = "S", .type = T_STR },
    { .name = "B", .type = T_BLOB },
    { .name = "N", .type = T_STR },
    { .name = "BOOL", .type = T_BOOL },
    { .name = "NULL", .type = T_BOOL },
    { .name = "BS", .type = T_LIST, .sub = &blob_elem },
    { .name = "NS", .type = T_LIST, .sub = &model_str_elem },
    { .name = "SS", .type = T_LIST, .sub = &model_str_elem },
    { .name = "L", .type = T_LIST, .sub = &model_av_elem },
    { .name = "M", .type = T_MAP, .sub = &model_av_elem,
      .cls = "AttributeValue" },
    END
};

/* Sorted by name. */
static const struct {
    const char *op;
    const struct api_schema *schema;
} op_schemas[] = {
    { "BatchGetItem", &schema_batch_get_item },
    { "BatchWriteItem", &schema_batch_write_item },
    { "CreateTable", &schema_create_table },
    { "DeleteItem", &schema_delete_item },
    { "DeleteTable", &schema_delete_table },
    { "DescribeContributorInsights", &schema_describe_contributor_insights },
    { "DescribeTable", &schema_describe_table },
    { "GetItem", &schema_get_item },
    { "ListContributorInsights", &schema_list_contributor_insights },
    { "ListTables", &schema_list_tables },
    { "PutItem", &schema_put_item },
    { "Query", &schema_query },
    { "Scan", &schema_scan },
    { "TransactGetItems", &schema_transact_get_items },
    { "TransactWriteItems", &schema_transact_write_items },
    { "UpdateContributorInsights", &schema_update_contributor_insights },
    { "UpdateItem", &schema_update_item },
    { "UpdateTable", &schema_update_table },
};

/* The schema of the operation named op (borrowed, static), or NULL. */
const struct api_schema *
validate_schema(const char *op)
{
    size_t i;

    for (i = 0; i < sizeof(op_schemas) / sizeof(op_schemas[0]); i++)
        if (strcmp(op_schemas[i].op, op) == 0)
            return op_schemas[i].schema;
    return NULL;
}
