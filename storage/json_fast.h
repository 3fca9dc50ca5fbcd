/* SPDX-License-Identifier: MIT */
/* json_fast.h - a fast path in front of jansson's json_loadb() for the
 * common, simple JSON of requests and stored items. */

#ifndef SHARDLOCAL_JSON_FAST_H
#define SHARDLOCAL_JSON_FAST_H

#include <stddef.h>

#include <jansson.h>

/*
 * Parse buf[0..len) when it is "simple": an object or array at the top,
 * strings (escapes, surrogate pairs and raw UTF-8 decoded and checked as
 * jansson does), integers of at most 18 digits, true/false/null, at most
 * JSON_FAST_MAX_DEPTH levels of nesting. The tree is exactly what
 * json_loadb(buf, len, JSON_ALLOW_NUL, ...) builds for the same bytes
 * (insertion order, a repeated key replacing the earlier value in place),
 * and one more: an object key may hold NUL ("\u0000"), which jansson
 * refuses but DynamoDB attribute names may hold (such keys need
 * json_object_getn() and json_clone(), storage/util.h). Anything else,
 * valid or not, returns NULL: the caller then calls json_loadb(), which
 * decides and reports. The result is a new reference.
 */
json_t *json_fast_loadb(const char *buf, size_t len);
/* json_fast_loadb(), else json_loadb(buf, len, JSON_ALLOW_NUL, jerr):
 * what a request body or a stored item parses to, NULL (jerr set by
 * jansson) when it is not JSON. */
json_t *json_fast_or_loadb(const char *buf, size_t len, json_error_t *jerr);

#define JSON_FAST_MAX_DEPTH 64

/* A growable output buffer: p is malloc'd (or NULL with cap 0) and owned
 * by whoever owns the struct; json_fast_dump() may realloc it. */
struct json_fast_buf {
    char *p;
    size_t len, cap;
};

/*
 * Append the encoding json_dumps(json, JSON_COMPACT) would give to b, and
 * keep b->p NUL-terminated (the NUL is not counted in b->len). Only for
 * "simple" trees: an object or array on top, integers, strings and keys
 * of bytes below 0x80 (escaped as jansson escapes them), true/false/null,
 * at most JSON_FAST_MAX_DEPTH levels. Returns 0, or -1 for anything else
 * (a real, non-ASCII text): b->len is then unspecified and the caller
 * uses jansson. Aborts when out of memory, like the rest of the server.
 */
int json_fast_dump(const json_t *json, struct json_fast_buf *b);

#endif
