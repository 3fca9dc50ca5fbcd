/* SPDX-License-Identifier: MIT */
/* common.c - reply members every data operation shares: ConsumedCapacity
 * and the ConditionalCheckFailedException body. */
#include <string.h>

#include "api/proto/capacity.h"
#include "api/ops/common.h"

/* ------------------------------------------------------------------------
 * Reply members
 * ---------------------------------------------------------------------- */

void
op_add_capacity(json_t *resp, const json_t *req, const char *table,
                double units)
{
    json_t *cc = capacity_json(json_object_get(req, "ReturnConsumedCapacity"),
                               table, units);

    if (cc != NULL)
        json_object_set_new(resp, "ConsumedCapacity", cc);
}

int
op_condition_failed(const json_t *req, const json_t *old,
                    struct ddb_err *err)
{
    const char *rv = json_string_value(
        json_object_get(req, "ReturnValuesOnConditionCheckFailure"));

    ddb_err_set(err, DDB_CONDITIONAL_CHECK_FAILED,
                "The conditional request failed");
    if (err != NULL && old != NULL && rv != NULL &&
        strcmp(rv, "ALL_OLD") == 0)
        ddb_err_extra_set_new(err, "Item", json_deep_copy(old));
    return -1;
}
