/* SPDX-License-Identifier: MIT */
/* txn_inflight.c - a mutex-protected hash set of the item keys (owner,
 * table, encoded partition and sort key) that in-flight TransactWriteItems
 * hold from just before their commit until it ends; ops/txn.c registers,
 * ops/item.c and TransactGetItems look up. Plus the tests' pause rules. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/ops/txn_inflight.h"
#include "storage/util.h"

#define INFLIGHT_BUCKETS 1024           /* power of two */
#define PAUSE_MAX        16
#define PAUSE_MS_MAX     60000

/* One held item; key bytes (pk then sk) and the table name follow. */
struct txn_inflight_ent {
    struct txn_inflight_ent *next;      /* bucket chain */
    uint64_t hash;
    const void *owner;
    size_t pk_len, sk_len;
    char *table;                        /* points into data */
    uint8_t data[];                     /* pk, sk, table + '\0' */
};

/* Process-wide, entries tagged by owner (the token registry in ops/txn.c
 * does the same): two servers in one process never see each other's. */
static pthread_mutex_t inflight_mu = PTHREAD_MUTEX_INITIALIZER;
static struct txn_inflight_ent *buckets[INFLIGHT_BUCKETS];
static atomic_size_t inflight_n;        /* entries held, for the fast path */

/* ------------------------------------------------------------------------
 * Hashing
 * ---------------------------------------------------------------------- */

static uint64_t
fnv(uint64_t h, const void *p, size_t len)
{
    const uint8_t *b = p;

    for (size_t i = 0; i < len; i++) {
        h ^= b[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

static uint64_t
key_hash(const void *owner, const char *table, const struct item_key *k)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    uintptr_t o = (uintptr_t)owner;

    h = fnv(h, &o, sizeof(o));
    h = fnv(h, table, strlen(table) + 1);
    h = fnv(h, &k->pk_len, sizeof(k->pk_len));
    h = fnv(h, k->pk, k->pk_len);
    h = fnv(h, &k->sk_len, sizeof(k->sk_len));
    return fnv(h, k->sk, k->sk_len);
}

static bool
ent_matches(const struct txn_inflight_ent *e, uint64_t hash,
            const void *owner, const char *table, const struct item_key *k)
{
    return e->hash == hash && e->owner == owner && e->pk_len == k->pk_len &&
           e->sk_len == k->sk_len && strcmp(e->table, table) == 0 &&
           memcmp(e->data, k->pk, k->pk_len) == 0 &&
           memcmp(e->data + k->pk_len, k->sk, k->sk_len) == 0;
}

/* inflight_mu held. */
static struct txn_inflight_ent *
ent_find(uint64_t hash, const void *owner, const char *table,
         const struct item_key *k)
{
    struct txn_inflight_ent *e = buckets[hash & (INFLIGHT_BUCKETS - 1)];

    for (; e != NULL; e = e->next)
        if (ent_matches(e, hash, owner, table, k))
            return e;
    return NULL;
}

/* ------------------------------------------------------------------------
 * Registry API
 * ---------------------------------------------------------------------- */

void
txn_inflight_hold_init(struct txn_inflight_hold *h)
{
    h->n = 0;
    h->ents = NULL;
}

int
txn_inflight_acquire(const void *owner,
                     const struct txn_inflight_item *items, size_t n,
                     bool *conflict, struct txn_inflight_hold *h)
{
    uint64_t *hashes = xcalloc(n ? n : 1, sizeof(*hashes));
    bool any = false;

    txn_inflight_hold_init(h);
    for (size_t i = 0; i < n; i++)
        hashes[i] = key_hash(owner, items[i].table, items[i].k);
    pthread_mutex_lock(&inflight_mu);
    for (size_t i = 0; i < n; i++) {
        bool held = ent_find(hashes[i], owner, items[i].table,
                             items[i].k) != NULL;

        if (conflict != NULL)
            conflict[i] = held;
        any = any || held;
    }
    if (any) {
        pthread_mutex_unlock(&inflight_mu);
        free(hashes);
        return 1;
    }
    h->ents = xcalloc(n ? n : 1, sizeof(*h->ents));
    for (size_t i = 0; i < n; i++) {
        const struct item_key *k = items[i].k;
        size_t tl = strlen(items[i].table) + 1;
        struct txn_inflight_ent *e =
            xmalloc(sizeof(*e) + k->pk_len + k->sk_len + tl);
        size_t b = hashes[i] & (INFLIGHT_BUCKETS - 1);

        e->hash = hashes[i];
        e->owner = owner;
        e->pk_len = k->pk_len;
        e->sk_len = k->sk_len;
        memcpy(e->data, k->pk, k->pk_len);
        memcpy(e->data + k->pk_len, k->sk, k->sk_len);
        e->table = (char *)e->data + k->pk_len + k->sk_len;
        memcpy(e->table, items[i].table, tl);
        e->next = buckets[b];
        buckets[b] = e;
        h->ents[h->n++] = e;
    }
    atomic_fetch_add(&inflight_n, n);
    pthread_mutex_unlock(&inflight_mu);
    free(hashes);
    return 0;
}

void
txn_inflight_release(struct txn_inflight_hold *h)
{
    if (h == NULL || h->ents == NULL)
        return;
    pthread_mutex_lock(&inflight_mu);
    for (size_t i = 0; i < h->n; i++) {
        struct txn_inflight_ent *e = h->ents[i], **pp;

        pp = &buckets[e->hash & (INFLIGHT_BUCKETS - 1)];
        while (*pp != NULL && *pp != e)
            pp = &(*pp)->next;
        if (*pp == e)
            *pp = e->next;
        free(e);
    }
    atomic_fetch_sub(&inflight_n, h->n);
    pthread_mutex_unlock(&inflight_mu);
    free(h->ents);
    txn_inflight_hold_init(h);
}

bool
txn_inflight_is_held(const void *owner, const char *table,
                     const struct item_key *k)
{
    uint64_t hash;
    bool held;

    if (atomic_load_explicit(&inflight_n, memory_order_acquire) == 0)
        return false;               /* no transaction in flight */
    hash = key_hash(owner, table, k);
    pthread_mutex_lock(&inflight_mu);
    held = ent_find(hash, owner, table, k) != NULL;
    pthread_mutex_unlock(&inflight_mu);
    return held;
}

size_t
txn_inflight_count(void)
{
    return atomic_load(&inflight_n);
}

/*
 * DynamoDB rejects a PutItem, UpdateItem or DeleteItem on an item that an
 * ongoing TransactWriteItems includes with TransactionConflictException
 * (developer guide, "Transaction conflict handling in DynamoDB";
 * tests/e2e/test_txn_conflict.py).
 */
int
txn_inflight_check(struct api_ctx *ctx, const char *table,
                   const struct item_key *k, struct ddb_err *err)
{
    if (txn_inflight_is_held(ctx->srv, table, k))
        return ddb_err_set(err, DDB_TRANSACTION_CONFLICT, "%s",
                           TXN_INFLIGHT_MSG);
    return 0;
}

/* ------------------------------------------------------------------------
 * Pause rules (tests only)
 * ---------------------------------------------------------------------- */

struct pause_rule {
    const void *owner;
    char table[256];
    unsigned ms;
    uint64_t left, fired;
    unsigned paused;                    /* transactions sleeping now */
};

static pthread_mutex_t pause_mu = PTHREAD_MUTEX_INITIALIZER;
static struct pause_rule pauses[PAUSE_MAX];
static size_t npauses;
static atomic_size_t pause_live;        /* rules with count left */

/* pause_mu held: drop rule i. */
static void
pause_remove(size_t i)
{
    if (pauses[i].left > 0)
        atomic_fetch_sub(&pause_live, 1);
    memmove(&pauses[i], &pauses[i + 1], (npauses - i - 1) * sizeof(pauses[0]));
    npauses--;
}

/* pause_mu held: make room by dropping a spent, idle rule. */
static bool
pause_room(void)
{
    if (npauses < PAUSE_MAX)
        return true;
    for (size_t i = 0; i < npauses; i++)
        if (pauses[i].left == 0 && pauses[i].paused == 0) {
            pause_remove(i);
            return true;
        }
    return false;
}

int
txn_inflight_pause_admin(struct api_server *srv, const json_t *req,
                         json_t **resp, struct ddb_err *err)
{
    const json_t *ms = json_object_get(req, "pause_ms");
    const json_t *count = json_object_get(req, "count");
    const char *table = json_string_value(json_object_get(req, "table"));
    json_t *list;

    if (!json_is_integer(ms) || json_integer_value(ms) < 0 ||
        json_integer_value(ms) > PAUSE_MS_MAX)
        return ddb_err_set(err, DDB_VALIDATION, "\"pause_ms\" must be an "
                           "integer from 0 to %d", PAUSE_MS_MAX);
    if (count != NULL && (!json_is_integer(count) ||
                          json_integer_value(count) < 1))
        return ddb_err_set(err, DDB_VALIDATION, "\"count\" must be a "
                           "positive integer");
    if (json_integer_value(ms) > 0 &&
        (table == NULL || table[0] == '\0' || strlen(table) >= 256))
        return ddb_err_set(err, DDB_VALIDATION,
                           "A pause rule needs \"table\" (a table name)");
    pthread_mutex_lock(&pause_mu);
    if (json_is_true(json_object_get(req, "clear"))) {
        for (size_t i = npauses; i-- > 0;)
            if (pauses[i].owner == srv &&
                (table == NULL || strcmp(pauses[i].table, table) == 0))
                pause_remove(i);
    }
    if (json_integer_value(ms) > 0) {
        struct pause_rule *r;

        if (!pause_room()) {
            pthread_mutex_unlock(&pause_mu);
            return ddb_err_set(err, DDB_VALIDATION, "Too many pause rules "
                               "(at most %d)", PAUSE_MAX);
        }
        r = &pauses[npauses++];
        memset(r, 0, sizeof(*r));
        r->owner = srv;
        strcpy(r->table, table);
        r->ms = (unsigned)json_integer_value(ms);
        r->left = count != NULL ? (uint64_t)json_integer_value(count) : 1;
        atomic_fetch_add(&pause_live, 1);
    }
    list = json_array();
    for (size_t i = 0; i < npauses; i++) {
        const struct pause_rule *r = &pauses[i];

        if (r->owner != srv)
            continue;
        json_array_append_new(
            list, json_pack("{s:s, s:I, s:I, s:I, s:I}", "table", r->table,
                            "pause_ms", (json_int_t)r->ms, "count",
                            (json_int_t)r->left, "fired",
                            (json_int_t)r->fired, "paused",
                            (json_int_t)r->paused));
    }
    pthread_mutex_unlock(&pause_mu);
    *resp = json_pack("{s:o}", "pauses", list);
    return 0;
}

static void
sleep_ms(unsigned ms)
{
    struct timespec ts = { .tv_sec = ms / 1000,
                           .tv_nsec = (long)(ms % 1000) * 1000000L };

    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

void
txn_inflight_pause(const void *owner, const char *const *tables, size_t n)
{
    struct pause_rule *hit = NULL;
    char table[256];
    unsigned ms = 0;

    if (atomic_load(&pause_live) == 0)
        return;
    pthread_mutex_lock(&pause_mu);
    for (size_t i = 0; i < npauses && hit == NULL; i++)
        for (size_t j = 0; j < n && hit == NULL; j++)
            if (pauses[i].owner == owner && pauses[i].left > 0 &&
                strcmp(pauses[i].table, tables[j]) == 0)
                hit = &pauses[i];
    if (hit != NULL) {
        ms = hit->ms;
        strcpy(table, hit->table);
        if (--hit->left == 0)
            atomic_fetch_sub(&pause_live, 1);
        hit->fired++;
        hit->paused++;
    }
    pthread_mutex_unlock(&pause_mu);
    if (hit == NULL)
        return;
    sleep_ms(ms);
    /* the rule may have moved (or gone) meanwhile: find it again */
    pthread_mutex_lock(&pause_mu);
    for (size_t i = 0; i < npauses; i++)
        if (pauses[i].owner == owner && pauses[i].paused > 0 &&
            strcmp(pauses[i].table, table) == 0) {
            pauses[i].paused--;
            break;
        }
    pthread_mutex_unlock(&pause_mu);
}
