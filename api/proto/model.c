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
