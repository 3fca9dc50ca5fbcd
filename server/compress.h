/* SPDX-License-Identifier: MIT */
/* compress.h - HTTP content codings as DynamoDB handles them (zlib):
 * request bodies sent with Content-Encoding gzip or deflate, decoded with
 * a cap; the coding for a response from Accept-Encoding; and compressing
 * responses of 4 KB and more. server/http.c uses all three. */
#ifndef SHARDLOCAL_COMPRESS_H
#define SHARDLOCAL_COMPRESS_H

#include <stddef.h>

#include "server/request.h"

/* DynamoDB compresses a response of this many bytes or more when the
 * client accepts it (scylladb test_compressed_response.py, run against
 * DynamoDB: "The threshold for response compression in DynamoDB is 4KB"). */
#define COMPRESS_MIN 4096

enum http_coding {
    CODING_NONE = 0,
    CODING_GZIP,
    CODING_DEFLATE
};

/* What compress_decode() found wrong. */
enum {
    DECODE_OK = 0,
    DECODE_UNSUPPORTED = -1,        /* a coding DynamoDB does not know */
    DECODE_BROKEN = -2,             /* not a valid (or a truncated) stream */
    DECODE_TOO_LARGE = -3,          /* decodes to more than max bytes */
    DECODE_BUDGET = -4              /* the body budget is spent */
};

/* The token for a coding ("gzip", "deflate"), or NULL for none. */
const char *compress_name(enum http_coding c);

/*
 * The coding to answer a request with, from its Accept-Encoding value
 * (NULL: none), following what DynamoDB does: see compress.c.
 */
enum http_coding compress_choose(const char *accept_encoding);

/*
 * Compress len bytes of in with c (gzip or deflate). Returns a malloc'd
 * buffer (*outlen bytes; the caller frees it).
 */
char *compress_body(enum http_coding c, const char *in, size_t len,
                    size_t *outlen);

/*
 * Decode a request body sent with "Content-Encoding: enc": gzip (one or
 * more members) or deflate (a zlib stream), into at most max bytes. The
 * output's memory is charged to budget (may be NULL) and *charged says
 * how much; the caller gives it back when it frees *out. Returns DECODE_OK
 * with *out (malloc'd, NUL-terminated, *outlen bytes), or a DECODE_ error
 * with nothing to free.
 */
int compress_decode(const char *enc, const char *in, size_t len, size_t max,
                    struct http_budget *budget, char **out, size_t *outlen,
                    size_t *charged);

#endif
