/* SPDX-License-Identifier: MIT */
/* json_alloc.c - jansson's allocations through a per-thread cache of
 * small blocks. A request builds and frees some sixty jansson values
 * (its body, the stored item, the reply), each a malloc and a free of a
 * few dozen bytes; glibc's per-thread cache holds seven blocks of a size,
 * so most of those frees took the arena's slow path (bench/README.md,
 * fifth round). Here a freed block of at most JA_MAX bytes goes onto a
 * list of its size class in the freeing thread, up to JA_KEEP blocks a
 * class, and the next allocation of that class takes it back: a few
 * pointer moves each way. Everything else, and whatever a full list
 * refuses, is glibc's. Each block carries its class in a header of
 * JA_HDR bytes, so the block after it keeps malloc's alignment. A
 * thread's lists are freed when it exits. Under AddressSanitizer a cached
 * block stays poisoned, all but its first word (the list's link), until
 * it is handed out again, so a use after free is still caught. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "storage/util.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define JA_POISON(p, n)   ASAN_POISON_MEMORY_REGION((p), (n))
#define JA_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
#define JA_POISON(p, n)   ((void)(p), (void)(n))
#define JA_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

#define JA_HDR     16                   /* malloc's alignment on x86-64 */
#define JA_STEP    16                   /* size classes 16, 32, ... */
#define JA_CLASSES 16                   /* ... up to JA_MAX */
#define JA_MAX     (JA_STEP * JA_CLASSES)
#define JA_KEEP    64                   /* blocks kept per class: 136 KB
                                         * a thread at most */
#define JA_BIG     ((size_t)-1)         /* header of a block beyond JA_MAX */

struct ja_cache {
    void *head[JA_CLASSES];             /* a free block's first word links
                                         * to the next */
    unsigned n[JA_CLASSES];
};

static pthread_key_t ja_key;
static pthread_once_t ja_once = PTHREAD_ONCE_INIT;
static bool ja_key_ok;
static _Thread_local struct ja_cache *ja_tls;

/* The thread is exiting: give its blocks back. A jansson value freed
 * after this (by a later destructor) goes straight to free(). */
static void
ja_cache_free(void *arg)
{
    struct ja_cache *c = arg;

    ja_tls = NULL;
    for (unsigned i = 0; i < JA_CLASSES; i++) {
        void *p = c->head[i];

        while (p != NULL) {
            void *next;

            JA_UNPOISON(p, (i + 1) * JA_STEP);
            next = *(void **)p;
            free((char *)p - JA_HDR);
            p = next;
        }
    }
    free(c);
}

static void
ja_key_init(void)
{
    ja_key_ok = pthread_key_create(&ja_key, ja_cache_free) == 0;
}

/* This thread's cache, made on first use; NULL when it cannot be (the
 * caller then uses malloc and free as they are). */
static struct ja_cache *
ja_cache(void)
{
    struct ja_cache *c = ja_tls;

    if (c != NULL)
        return c;
    pthread_once(&ja_once, ja_key_init);
    if (!ja_key_ok || (c = calloc(1, sizeof(*c))) == NULL)
        return NULL;
    if (pthread_setspecific(ja_key, c) != 0) {
        free(c);
        return NULL;
    }
    ja_tls = c;
    return c;
}

static void *
ja_malloc(size_t size)
{
    size_t cls = size == 0 ? 0 : (size - 1) / JA_STEP;
    struct ja_cache *c;
    char *h;

    if (cls >= JA_CLASSES) {
        if (size > SIZE_MAX - JA_HDR || (h = malloc(JA_HDR + size)) == NULL)
            return NULL;
        *(size_t *)h = JA_BIG;
        return h + JA_HDR;
    }
    c = ja_cache();
    if (c != NULL && c->n[cls] > 0) {
        void *p = c->head[cls];

        JA_UNPOISON(p, (cls + 1) * JA_STEP);
        c->head[cls] = *(void **)p;
        c->n[cls]--;
        return p;
    }
    if ((h = malloc(JA_HDR + (cls + 1) * JA_STEP)) == NULL)
        return NULL;
    *(size_t *)h = cls;
    return h + JA_HDR;
}

static void
ja_free(void *p)
{
    char *h;
    size_t cls;
    struct ja_cache *c;

    if (p == NULL)
        return;
    h = (char *)p - JA_HDR;
    cls = *(size_t *)h;
    if (cls < JA_CLASSES && (c = ja_tls) != NULL && c->n[cls] < JA_KEEP) {
        *(void **)p = c->head[cls];
        c->head[cls] = p;
        c->n[cls]++;
        /* all but the link, which LeakSanitizer must see to find the
         * rest of the list (it does not read poisoned memory) */
        JA_POISON((char *)p + sizeof(void *),
                  (cls + 1) * JA_STEP - sizeof(void *));
        return;
    }
    free(h);
}

void
json_alloc_init(void)
{
    json_set_alloc_funcs(ja_malloc, ja_free);
}

static int
json_text_put(const char *buf, size_t size, void *data)
{
    strbuf_add(data, buf, size);
    return 0;
}

char *
json_text(const json_t *j, size_t flags)
{
    struct strbuf b = { 0 };

    if (json_dump_callback(j, json_text_put, &b, flags) != 0) {
        strbuf_free(&b);
        return NULL;
    }
    return strbuf_take(&b);
}

size_t
json_alloc_cached(void)
{
    const struct ja_cache *c = ja_tls;
    size_t n = 0;

    if (c != NULL)
        for (unsigned i = 0; i < JA_CLASSES; i++)
            n += c->n[i];
    return n;
}
