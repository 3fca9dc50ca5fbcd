/* SPDX-License-Identifier: MIT */
/* http.h - the HTTP front end: httpd.c's threads and connections with
 * http.c's answers: DynamoDB's JSON 1.0 protocol on POST /, the health
 * check on GET /, the admin paths. */
#ifndef SHARDLOCAL_HTTP_H
#define SHARDLOCAL_HTTP_H

#include "api/api.h"
#include "conf/conf.h"

struct http_server;

/* Start listening. NULL (message on stderr) on failure. */
struct http_server *http_start(struct api_server *srv, const struct conf *c);
/* The bound port (useful with port 0). */
unsigned http_port(const struct http_server *h);
/* Stop accepting, finish in-flight requests, free. */
void http_stop(struct http_server *h);

#endif
