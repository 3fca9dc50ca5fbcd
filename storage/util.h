/* SPDX-License-Identifier: MIT */
/* util.h - the small helpers every layer shares, defined once: allocation
 * that aborts on out-of-memory (tmux's xmalloc.c), a growable string buffer
 * (jansson's strbuffer), JSON member helpers, hex, byte comparison,
 * best-effort file syncs and the clocks. storage/ is the bottom layer, so
 * server/ and api/ include it too; conf/ stays free of it. */
#ifndef SHARDLOCAL_UTIL_H
#define SHARDLOCAL_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <jansson.h>

/* ------------------------------------------------------------------------
 * Allocation. An emulator cannot recover from running out of memory, so
 * these abort instead of returning NULL; error paths stay for user input
 * and I/O. A size of 0 allocates 1 byte.
 * ---------------------------------------------------------------------- */

void *xmalloc(size_t size);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* A new string formatted like printf (caller frees). */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ------------------------------------------------------------------------
 * Growable text, always NUL-terminated once anything was added. Start
 * from `struct strbuf b = { 0 };` (or strbuf_init).
 * ---------------------------------------------------------------------- */

struct strbuf {
    char *s;                        /* malloc'd; NULL until first use */
    size_t len, cap;
};

void strbuf_init(struct strbuf *b);
/* Make room for extra more bytes (plus the NUL). */
void strbuf_reserve(struct strbuf *b, size_t extra);
void strbuf_add(struct strbuf *b, const char *s, size_t n);
void strbuf_puts(struct strbuf *b, const char *s);
void strbuf_putc(struct strbuf *b, char c);
/* Append v in decimal (what "%llu" would print, without printf's cost on
 * the per-request paths). */
void strbuf_put_uint(struct strbuf *b, uint64_t v);
/* v in decimal into out (UINT_DEC_MAX bytes, NUL included); returns the
 * digits' count. */
#define UINT_DEC_MAX 21
size_t uint_dec(uint64_t v, char *out);
void strbuf_printf(struct strbuf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void strbuf_vprintf(struct strbuf *b, const char *fmt, va_list ap);
/* Hand the text over (an empty string when nothing was added); b is
 * empty afterwards. The caller frees the result. */
char *strbuf_take(struct strbuf *b);
void strbuf_free(struct strbuf *b);

/* ------------------------------------------------------------------------
 * jansson's allocator (storage/json_alloc.c): small blocks come from and
 * go back to a per-thread cache. json_alloc_init() must run before any
 * json_t exists (a value goes back to the allocator that made it), so
 * main() calls it first; programs that do not call it keep jansson's
 * malloc.
 * json_alloc_cached() counts the blocks this thread's cache holds.
 * json_dumps()' text comes from that allocator too, so it would not go
 * to free(): json_text() is the same text in malloc'd memory, and
 * json_dumps is poisoned below to keep it that way.
 * ---------------------------------------------------------------------- */

void json_alloc_init(void);
size_t json_alloc_cached(void);
/* json_dumps(j, flags), but malloc'd (the caller free()s it). */
char *json_text(const json_t *j, size_t flags);
#pragma GCC poison json_dumps

/* ------------------------------------------------------------------------
 * JSON members (jansson). All take borrowed values and accept NULL.
 * ---------------------------------------------------------------------- */

/* v is a JSON string equal to s. */
bool json_str_is(const json_t *v, const char *s);
/* o has member name with a value other than JSON null. */
bool json_has(const json_t *o, const char *name);
/* json_object_get(o, name), quicker on an object of one member (an
 * AttributeValue, whose one key is probed for each type name): that key
 * is compared instead of name hashed and looked up. */
json_t *json_get_one(const json_t *o, const char *name);
/* One object probed for many names (an AttributeValue for each type
 * name): its only member is read once, each probe compares that key.
 * json_probe_get() is json_object_get(o, name) as o was at
 * json_probe_init(); a member replaced since is not to be probed again. */
struct json_probe {
    const json_t *o;
    const char *key;                /* the only member's, or NULL */
    size_t key_len;
    json_t *val;
};

void json_probe_init(struct json_probe *p, const json_t *o);

static inline json_t *
json_probe_get(const struct json_probe *p, const char *name)
{
    size_t n = strlen(name);

    if (p->key == NULL)
        return json_object_get(p->o, name);
    return n == p->key_len && memcmp(p->key, name, n) == 0 ? p->val : NULL;
}

/* An object key k (klen bytes, NUL-terminated as jansson keeps them) is
 * name: the first letters rule most names out before they are measured
 * (for walks that test each member against a list of names). */
static inline bool
json_key_is(const char *name, const char *k, size_t klen)
{
    return name[0] == k[0] && strlen(name) == klen &&
           memcmp(name, k, klen) == 0;
}

/* out[i] = json_object_get(o, names[i]) for each of the n names, in one
 * pass over o's members instead of n hashed lookups (for objects of a
 * few members, such as requests, probed for many names). */
void json_pick(const json_t *o, const char *const *names, size_t n,
               json_t **out);
/*
 * Read a non-negative integer member. Returns 0 if absent, 1 if read into
 * *out, -1 if present but not a non-negative JSON integer.
 */
int json_get_uint(const json_t *o, const char *name, uint64_t *out);
/*
 * A deep copy of v (a new reference; NULL only for NULL). Unlike jansson
 * 2.14's json_deep_copy(), json_copy() and json_equal(), which cut an
 * object key at its first NUL byte, these three keep whole keys: DynamoDB
 * attribute names may hold U+0000 (json_fast.c reads such keys).
 */
json_t *json_clone(const json_t *v);
/* A new object holding object o's members, their values shared. */
json_t *json_copy_members(const json_t *o);
/* a and b hold the same JSON, whole keys compared (NULL equals NULL). */
bool json_same(const json_t *a, const json_t *b);

/* ------------------------------------------------------------------------
 * Bytes
 * ---------------------------------------------------------------------- */

/* Lower-case hex of n bytes into out (2n + 1 bytes, NUL-terminated). */
void hex_encode(const uint8_t *p, size_t n, char *out);
/* The value of one hex digit (either case), or -1. */
int hex_digit(int c);
/* Unsigned byte order, a proper prefix first: <0, 0, >0 (-1, 0, 1). */
int bytes_cmp(const void *a, size_t alen, const void *b, size_t blen);
/* MD5 (RFC 1321) of n bytes into out. */
void md5_bytes(const void *p, size_t n, uint8_t out[16]);

/* ------------------------------------------------------------------------
 * Files
 * ---------------------------------------------------------------------- */

/* fsync() fd (fdatasync() when data_only) and close it; nothing when fd is
 * negative. Best effort: errors are ignored. */
void sync_close(int fd, bool data_only);

/* ------------------------------------------------------------------------
 * Clocks
 * ---------------------------------------------------------------------- */

uint64_t wall_ms(void);             /* CLOCK_REALTIME: epoch ms */
uint64_t mono_ms(void);             /* CLOCK_MONOTONIC */
uint64_t mono_us(void);             /* CLOCK_MONOTONIC, microseconds */

#endif
