/* SPDX-License-Identifier: MIT */
/* http.h - the HTTP front end: httpd.c's threads and connections with
 * http.c's answers: DynamoDB's JSON 1.0 protocol on POST /, the health
 * check on GET /, the admin paths; who may call them (sigv4.h, cidr.h). */
#ifndef SHARDLOCAL_HTTP_H
#define SHARDLOCAL_HTTP_H

#include "api/api.h"
#include "conf/conf.h"
#include "server/cidr.h"

struct http_server;
struct sigv4_keys;

/* Who may call: read from the settings before anything starts. */
struct http_access {
    struct sigv4_keys *keys;        /* --auth signature: the credentials
                                       file's keys; NULL: any credentials */
    struct cidr_list admin_from;    /* may change state when --host is not
                                       loopback */
};

/* Read c's --auth, --credentials and --admin-from into *a. 0, or -1 with
 * one line in msg: a bad setting (the server exits with status 2). */
int http_access_load(const struct conf *c, struct http_access *a, char *msg,
                     size_t msgsz);
void http_access_free(struct http_access *a);

/* Start listening, taking a's contents (freed by http_stop, or here on
 * failure). NULL (message on stderr) on failure. */
struct http_server *http_start(struct api_server *srv, const struct conf *c,
                               struct http_access *a);
/* The bound port (useful with port 0). */
unsigned http_port(const struct http_server *h);
/* Stop accepting, finish in-flight requests, free. */
void http_stop(struct http_server *h);

#endif
