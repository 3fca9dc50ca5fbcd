/* SPDX-License-Identifier: MIT */
/* httpd.h - the HTTP/1.1 connection engine: a listening socket served by
 * a pool of threads, each with its own epoll loop, reading requests with
 * request.c and writing the answers a handler gives, within the limits a
 * local server needs against idle, slow and oversized clients (timeouts,
 * a connection limit that evicts idle connections, a body budget). */
#ifndef SHARDLOCAL_HTTPD_H
#define SHARDLOCAL_HTTPD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "server/request.h"
#include "storage/util.h"

/* An answer, filled by the handler; the engine adds Date, Content-Length
 * and, when it closes the connection, "Connection: close". */
struct http_response {
    unsigned status;
    char *body;                     /* malloc'd, taken by the engine */
    size_t len;
    struct strbuf head;             /* more header lines, "Name: v\r\n" */
    bool close;                     /* close the connection once sent */
    bool head_only;                 /* HEAD: headers of len bytes, no body */
};

/* Add the header line "name: value" to r. */
void http_response_add(struct http_response *r, const char *name,
                       const char *value);
/* The same, for a header whose value is the decimal number v. */
void http_response_add_uint(struct http_response *r, const char *name,
                            uint64_t v);

/*
 * Called on a worker thread for each request that is complete
 * (rq->state == RQ_DONE) or refused (RQ_ERROR: answer rq->err_status;
 * the connection is closed afterwards). local is the address the client
 * connected to ("127.0.0.1:8000"), peer the client's address without its
 * port ("127.0.0.1", "::1"). rq is borrowed; resp starts zeroed.
 */
typedef void httpd_handler(void *cls, struct http_request *rq,
                           struct http_response *resp, const char *local,
                           const char *peer);

/*
 * Called on a worker thread before the handler for each complete request:
 * true holds it back. The thread serves its other connections meanwhile
 * and asks again after httpd_wake() (and at least every 100 ms); the
 * client only sees its answer come later. Must not block.
 */
typedef bool httpd_defer(void *cls, struct http_request *rq);

struct httpd_options {
    const char *host;               /* address to bind */
    unsigned port;                  /* 0: any free port */
    unsigned threads;               /* worker threads, at least 1 */
    unsigned max_conns;             /* open connections; past it the most
                                       idle one is closed for a new one */
    uint64_t idle_ms;               /* keep-alive idle timeout; 0: none */
    uint64_t header_ms;             /* a request's head must arrive within
                                       this of its first byte; 0: none */
    uint64_t body_ms;               /* a body that stops arriving for this
                                       long is dropped; 0: none */
    size_t body_budget;             /* bytes of bodies held at once over
                                       all connections; 0: no limit */
    uint64_t hold_us;               /* how long an answer may wait for
                                       the rest of its pass; 0: 300 us */
    bool debug;                     /* log connection events to stderr */
};

struct httpd;

/* Bind and start the threads. NULL (message on stderr) on failure. */
struct httpd *httpd_start(const struct httpd_options *o, httpd_handler *fn,
                          httpd_defer *defer, void *cls);
/* Have every thread ask the defer callback again about the requests it
 * holds back. Any thread; cheap (a write to each thread's eventfd). */
void httpd_wake(struct httpd *d);
/* The bound port (useful with port 0). */
unsigned httpd_port(const struct httpd *d);
/* The budget every request body (and its decoding) is charged to. */
struct http_budget *httpd_budget(struct httpd *d);
/* Stop accepting, let each thread finish the request it runs and send
 * what is queued, close every connection and free d. */
void httpd_stop(struct httpd *d);

#endif
