/* SPDX-License-Identifier: MIT */
/* admin.h - seeing the throttling: the admin API (GET /shardlocal/...,
 * JSON: routes.c, tables.c), GET /metrics (metrics.c) and the live view
 * (GET /shardlocal/ui: ui.c), all read-only, plus the clock and fault
 * calls (control.c). server/http.c routes the requests here;
 * docs/throttling.md, "Seeing it", documents every endpoint. */
#ifndef SHARDLOCAL_ADMIN_H
#define SHARDLOCAL_ADMIN_H

#include <stddef.h>

#include <stdbool.h>
#include <jansson.h>

#include "api/proto/context.h"

/* A reply for server/http.c to send as is. */
struct admin_reply {
    unsigned status;                /* 200, 404, ... */
    char *body;                     /* malloc'd; the caller frees it or
                                       hands it to server/httpd.c */
    size_t len;
    const char *content_type;       /* static string */
};

/* Query-string lookup: the value of argument name, or NULL. */
typedef const char *admin_arg_fn(void *cls, const char *name);

/*
 * GET /shardlocal and everything under it. path is the URL path without
 * the query string ("/shardlocal/tables/T/partitions"); arg (may be NULL)
 * reads query arguments (n, history). Fills out (status, body, type);
 * never fails: an unknown path or table is a 404 with a JSON error body.
 */
void admin_get(struct api_server *srv, const char *path, admin_arg_fn *arg,
               void *arg_cls, struct admin_reply *out);

/* GET /metrics: Prometheus text exposition format 0.0.4. */
void admin_metrics(struct api_server *srv, struct admin_reply *out);

/*
 * The admin calls that change behaviour, JSON in and out (routes in
 * server/http.c); req (borrowed) may be NULL for GET. *resp is a new
 * reference on success; on failure -1 with a ValidationException.
 *
 * admin_clock: GET /shardlocal/clock -> {"virtual": b, "now_ms": n}; POST
 * with {"advance_ms": n} or {"set_ms": n} moves the virtual clock
 * (refused when --virtual-clock is off, or when set_ms would move it
 * backwards).
 *
 * admin_faults: GET /shardlocal/faults lists the fault-injection rules;
 * POST adds or clears them (faults_request() in throttle/faults.h), or,
 * with "pause_ms", sets a transaction pause (ops/txn_inflight.h).
 */
int admin_clock(struct api_server *srv, bool post, const json_t *req,
                json_t **resp, struct ddb_err *err);
int admin_faults(struct api_server *srv, bool post, const json_t *req,
                 json_t **resp, struct ddb_err *err);

#endif
