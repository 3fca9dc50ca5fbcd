/* SPDX-License-Identifier: MIT */
/* request.h - one HTTP/1.1 request read off a connection, without sockets:
 * the request line and headers (16 KB each, DynamoDB's limits), the body's
 * framing (Content-Length or chunked, at most 16 MB) and the memory budget
 * that every body being received shares. server/httpd.c feeds it bytes. */
#ifndef SHARDLOCAL_REQUEST_H
#define SHARDLOCAL_REQUEST_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HTTP_LINE_MAX    16384u     /* request line: DynamoDB answers 400
                                       beyond 16 KB (see request.c) */
#define HTTP_HEADERS_MAX 16384u     /* all header lines together, likewise */
#define HTTP_BODY_MAX    (16u * 1024u * 1024u)  /* DynamoDB's 16 MB */

#define HTTP_BODY_FREE   65536u     /* what a body may hold uncharged */

/* Bytes of request bodies held at once, over every connection, beyond the
 * first HTTP_BODY_FREE of each (small calls always pass). */
struct http_budget {
    atomic_size_t used;
    size_t limit;                   /* 0: no limit */
};

/* Charge n bytes; false (nothing charged) when that would pass limit. */
bool http_budget_take(struct http_budget *b, size_t n);
void http_budget_give(struct http_budget *b, size_t n);
/* Charge a buffer growing from old_cap to new_cap bytes (what passes
 * HTTP_BODY_FREE), adding to *charged; false (nothing charged) when the
 * budget is spent. */
bool http_budget_grow(struct http_budget *b, size_t old_cap, size_t new_cap,
                      size_t *charged);

enum http_rq_state {
    RQ_HEAD = 0,                    /* request line and headers */
    RQ_BODY,                        /* a Content-Length body */
    RQ_CHUNK_SIZE,                  /* chunked: a chunk-size line */
    RQ_CHUNK_DATA,                  /* chunked: chunk data */
    RQ_CHUNK_END,                   /* chunked: the CRLF after the data */
    RQ_TRAILER,                     /* chunked: trailer lines */
    RQ_DONE,                        /* complete: answer it */
    RQ_ERROR                        /* refuse with err_status, then close */
};

struct http_header {
    const char *name;               /* into the request's head buffer */
    size_t name_len;                /* compared first by the lookups */
    const char *value;              /* without surrounding white space */
};

struct http_request {
    enum http_rq_state state;
    unsigned err_status;            /* RQ_ERROR: 400, 413 or 503 */
    const char *err_msg;            /* RQ_ERROR: static text */

    /* The head, kept NUL-split once complete. */
    char *head;                     /* owned */
    size_t head_len, head_cap;
    size_t scan;                    /* where the search for its end resumes */
    size_t line_start;              /* start of the line being read */
    size_t hdr_bytes;               /* header section bytes so far */
    unsigned blank_lines;           /* empty lines before the request line */
    bool have_line;                 /* the request line has ended */
    const char *method, *target;    /* into head */
    unsigned minor;                 /* HTTP/1.<minor> */
    struct http_header *hdr;        /* owned array */
    unsigned nhdr, hdr_cap;

    /* Framing, known once the head is complete. */
    bool chunked;
    bool keep_alive;                /* the connection may serve another */
    bool expect_continue;           /* "Expect: 100-continue" with a body */
    uint64_t expected;              /* Content-Length */

    /* The body: decoded (chunked framing removed), NUL-terminated. */
    char *body;                     /* owned, NULL when empty */
    size_t body_len, body_cap;
    uint64_t chunk_left;            /* chunk data still to come */
    unsigned digits;                /* chunk-size hex digits read */
    size_t line_len;                /* chunk-size or trailer line length */
    bool in_ext;                    /* inside a chunk extension */
    bool cr;                        /* a CR was read; an LF must follow */

    struct http_budget *budget;     /* borrowed; may be NULL */
    size_t charged;                 /* bytes of budget held (body_cap) */
};

/* A new, empty request charging budget (borrowed, may be NULL). */
void request_init(struct http_request *rq, struct http_budget *budget);
/* Free everything (and give the budget back); rq may be re-initialised. */
void request_fini(struct http_request *rq);
/* Ready rq for its connection's next request: as request_fini() then
 * request_init() with the same budget, but the head and header buffers
 * are kept (a head buffer past HEAD_KEEP_MAX is not). A buffer of 1,024
 * bytes or more from malloc() costs glibc a consolidation of its freed
 * small chunks, once per request were it not kept. */
void request_reset(struct http_request *rq);

/*
 * Feed n bytes of the connection's input. Returns how many were used; the
 * rest belong to the next request (pipelining) and are left alone once
 * rq->state is RQ_DONE or RQ_ERROR.
 */
size_t request_feed(struct http_request *rq, const char *p, size_t n);

/* True once the head is complete and a body is still to be read. */
bool request_wants_body(const struct http_request *rq);

/* The first header called name (any case), or NULL. */
const char *request_header(const struct http_request *rq, const char *name);
/* True when the comma-separated header name lists token (any case). */
bool request_header_has(const struct http_request *rq, const char *name,
                        const char *token);

#endif
