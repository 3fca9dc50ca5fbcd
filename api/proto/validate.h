/* SPDX-License-Identifier: MIT */
/* validate.h - request shape checks every operation gets before its
 * handler runs: JSON types per the service model (SerializationException),
 * then constraints (required members, lengths, ranges, enums, patterns)
 * aggregated into DynamoDB's "N validation error(s) detected: ..." */
#ifndef SHARDLOCAL_VALIDATE_H
#define SHARDLOCAL_VALIDATE_H

#include <stdbool.h>

#include <jansson.h>
#include "storage/storage.h"

/* Check req against the named operation's parameter schema. */
int validate_request(const char *op, const json_t *req, struct ddb_err *err);

struct req_exprs;
struct expr;

/*
 * For UpdateItem, validate_request() already parses the expressions and
 * validates the Key exactly as the handler then does (to order its
 * errors as DynamoDB does). When that run found no error, this hands its
 * results to the handler instead of redoing them: true, with *x (an
 * req_exprs_init()ed x is overwritten), *upd, *cond and *key (a validated
 * copy of Key) now the caller's, to free as if it had built them. False
 * (nothing changed) when there is nothing for this req on this thread.
 * Only valid between validate_request(req) and validate_forget() in the
 * same thread (server/http.c route_api).
 */
bool validate_take_update(const json_t *req, struct req_exprs *x,
                          struct expr **upd, struct expr **cond,
                          json_t **key);
/* Drop what validate_request() kept for validate_take_update(). */
void validate_forget(void);

#endif
