/* SPDX-License-Identifier: MIT */
/* common.h - the headers every data-plane operation reads: the request's
 * expressions (expr/request.h), its table (tables/tables.h), indexes, the
 * gates (throttle/gate.h) and the write path (ops/write.h). */
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

#endif
