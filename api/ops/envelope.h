/* SPDX-License-Identifier: MIT */
/* envelope.h - the write operations' request validation envelope, run by
 * server/http.c after validate_request(): which PutItem, UpdateItem and
 * DeleteItem errors DynamoDB reports inside "1 validation error detected:
 * ", and the hand-off of UpdateItem's early parse to its handler. */
#ifndef SHARDLOCAL_OPS_ENVELOPE_H
#define SHARDLOCAL_OPS_ENVELOPE_H

#include <stdbool.h>
#include <jansson.h>

#include "api/expr/request.h"
#include "storage/storage.h"

/*
 * For PutItem, UpdateItem and DeleteItem (op, the X-Amz-Target name),
 * run the handler's first checks (expression/legacy mix, Item/Key,
 * ReturnValues, item size, expressions, unused names and values) in its
 * order and report the errors DynamoDB puts inside "1 validation error
 * detected: ". Call it once validate_request() has passed req (borrowed).
 * Returns 0 (other errors are left to the handler), or -1 with err set.
 * Other operations pass.
 */
int envelope_check(const char *op, const json_t *req, struct ddb_err *err);

/*
 * For UpdateItem, envelope_check() already parses the expressions and
 * validates the Key exactly as the handler then does. When that run found
 * no error, this hands its results to the handler instead of redoing
 * them: true, with *x (an req_exprs_init()ed x is overwritten), *upd,
 * *cond and *key (a validated copy of Key) now the caller's, to free as if
 * it had built them. False (nothing changed) when there is nothing for
 * this req on this thread. Only valid between envelope_check(req) and
 * envelope_forget() in the same thread (server/http.c route_api).
 */
bool envelope_take_update(const json_t *req, struct req_exprs *x,
                          struct expr **upd, struct expr **cond,
                          json_t **key);
/* Drop what envelope_check() kept for envelope_take_update(). */
void envelope_forget(void);

#endif
