/* SPDX-License-Identifier: MIT */
/* admin.h - seeing the throttling: the admin API (GET /shardlocal/...,
 * JSON), GET /metrics (Prometheus text with CloudWatch's metric names) and
 * the live view (GET /shardlocal/ui). server/http.c routes the requests
 * here; everything is read-only and answers from the throttle registry and
 * the store. docs/throttling.md, "Seeing it", documents every endpoint. */
#ifndef SHARDLOCAL_ADMIN_H
#define SHARDLOCAL_ADMIN_H

#include <stddef.h>

#include "api/api.h"

/* A reply for server/http.c to send as is. */
struct admin_reply {
    unsigned status;                /* 200, 404, ... */
    char *body;                     /* malloc'd; the caller frees or hands
                                       it to MHD (MHD_RESPMEM_MUST_FREE) */
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

#endif
