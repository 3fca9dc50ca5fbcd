/* SPDX-License-Identifier: MIT */
/* validate.h - request shape checks every operation gets before its
 * handler runs: JSON types per the service model (SerializationException),
 * then constraints (required members, lengths, ranges, enums, patterns)
 * aggregated into DynamoDB's "N validation error(s) detected: ..." */
#ifndef SHARDLOCAL_VALIDATE_H
#define SHARDLOCAL_VALIDATE_H

#include <jansson.h>
#include "storage/storage.h"

/* Check req against the named operation's parameter schema. */
int validate_request(const char *op, const json_t *req, struct ddb_err *err);

#endif
