/* SPDX-License-Identifier: MIT */
/* cors.h - who may call from a web page: the DynamoDB API answers any
 * origin the way DynamoDB does (CORS preflights and headers), while the
 * admin endpoints that change state take same-origin JSON only and grant
 * no CORS at all. server/http.c asks before it routes. */
#ifndef SHARDLOCAL_CORS_H
#define SHARDLOCAL_CORS_H

#include <stdbool.h>

#include "server/httpd.h"

/* Add DynamoDB's CORS headers to r when rq carries an Origin. */
void cors_add(const struct http_request *rq, struct http_response *r);

/*
 * An OPTIONS request with an Origin is a preflight: fill r (200, no body)
 * with DynamoDB's answer and return true. false (r untouched) without an
 * Origin: DynamoDB answers such an OPTIONS like any unknown request.
 */
bool cors_preflight(const struct http_request *rq, struct http_response *r);

/*
 * May rq, a request that changes state through an admin endpoint, run?
 * 0 when it may; else the status to refuse it with (403 for a page of
 * another origin, 415 for a body that is not application/json) and *why.
 * own_host is the configured --host (borrowed).
 */
unsigned cors_admin_check(const struct http_request *rq,
                          const char *own_host, const char **why);

#endif
