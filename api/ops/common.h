/* SPDX-License-Identifier: MIT */
/* common.h - what the data-plane operations share: the request's
 * expressions (expr/request.h), its table (tables/tables.h), the gates
 * (throttle/gate.h, ops/write.h) and the reply members below. */
#ifndef SHARDLOCAL_OPS_COMMON_H
#define SHARDLOCAL_OPS_COMMON_H

#include <stdbool.h>
#include <jansson.h>

#include "api/proto/context.h"
#include "api/expr/request.h"
#include "api/index/index.h"
#include "api/ops/write.h"
#include "api/proto/av.h"
#include "api/tables/tables.h"
#include "api/throttle/gate.h"
#include "storage/storage.h"

/* ------------------------------------------------------------------------
 * Reply members.
 * ---------------------------------------------------------------------- */

/* Add "ConsumedCapacity" to resp per the request's ReturnConsumedCapacity
 * (nothing for absent/NONE). */
void op_add_capacity(json_t *resp, const json_t *req, const char *table,
                     double units);
/* Fill err with ConditionalCheckFailedException "The conditional request
 * failed", attaching old (borrowed, copied; may be NULL) as the error's
 * "Item" when the request has ReturnValuesOnConditionCheckFailure ALL_OLD.
 * Returns -1. */
int op_condition_failed(const json_t *req, const json_t *old,
                        struct ddb_err *err);
#endif
