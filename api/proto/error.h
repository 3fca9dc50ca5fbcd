/* SPDX-License-Identifier: MIT */
/* error.h - wire form of errors: the __type namespace, HTTP status and the
 * message key casing for each enum ddb_errtype (the JSON 1.0 protocol). */
#ifndef SHARDLOCAL_ERROR_H
#define SHARDLOCAL_ERROR_H

#include <jansson.h>
#include "storage/storage.h"

/* HTTP status for the error type. */
unsigned error_http_status(enum ddb_errtype type);
/* The error body: {"__type": "...#Code", "message"|"Message": msg, extras}.
 * New reference. */
json_t *error_body(const struct ddb_err *err);
/* The short code, e.g. "ValidationException". */
const char *error_code(enum ddb_errtype type);

#endif
