/* SPDX-License-Identifier: MIT */
/* ops.h - the data-plane operations' handlers (api/ops/). */
#ifndef SHARDLOCAL_OPS_OPS_H
#define SHARDLOCAL_OPS_OPS_H

#include "api/proto/context.h"

/* Item operations: dispatch runs their steps (proto/context.h). */
extern const struct api_item_op item_op_get, item_op_put, item_op_update,
    item_op_delete;

api_handler api_query, api_scan, api_search_vectors;
api_handler api_batch_get_item, api_batch_write_item;
api_handler api_transact_get_items, api_transact_write_items;
/* PartiQL (partiql.c, partiql_multi.c). */
api_handler api_execute_statement, api_batch_execute_statement,
    api_execute_transaction;

#endif
