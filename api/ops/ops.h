/* SPDX-License-Identifier: MIT */
/* ops.h - the data-plane operations' handlers (api/ops/). */
#ifndef SHARDLOCAL_OPS_OPS_H
#define SHARDLOCAL_OPS_OPS_H

#include "api/proto/context.h"

api_handler api_put_item, api_get_item, api_update_item, api_delete_item;
api_handler api_query, api_scan;
api_handler api_batch_get_item, api_batch_write_item;
api_handler api_transact_get_items, api_transact_write_items;

#endif
