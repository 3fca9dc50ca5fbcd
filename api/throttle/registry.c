/* SPDX-License-Identifier: MIT */
/* registry.c - what the throttling engine shows and where it keeps tables:
 * space-saving hot-key sketches, counter snapshots of partitions and
 * tables (/metrics, the admin API), and the registry of every table's and
 * GSI's state, read by gate.c, tables/ and admin/. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "api/throttle/throttle_int.h"
#include "storage/util.h"

/* ------------------------------------------------------------------------
 * Space-saving hot-key summary (Metwally, Agrawal, El Abbadi 2005): k
 * counters; an unseen key replaces the smallest counter and inherits its
 * count as its error bound. Every key heavier than total/k is present.
 * ---------------------------------------------------------------------- */

struct ss_entry {
    uint8_t *key;                       /* owned */
    size_t len;
    uint64_t hash;
    int64_t count;                      /* microunits */
    int64_t err;
};

struct throttle_sketch {
    size_t k, n;
    struct ss_entry *e;                 /* owned: k entries, n used */
};

static uint64_t
fnv1a(const uint8_t *p, size_t n)
{
    uint64_t h = UINT64_C(14695981039346656037);

    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= UINT64_C(1099511628211);
    }
    return h;
}

struct throttle_sketch *
throttle_sketch_new(size_t k)
{
    struct throttle_sketch *s = xcalloc(1, sizeof(*s));

    s->k = k == 0 ? 1 : k;
    s->e = xcalloc(s->k, sizeof(*s->e));
    return s;
}

void
throttle_sketch_free(struct throttle_sketch *s)
{
    if (s == NULL)
        return;
    for (size_t i = 0; i < s->n; i++)
        free(s->e[i].key);
    free(s->e);
    free(s);
}

void
sketch_add_mu(struct throttle_sketch *s, const uint8_t *key, size_t len,
              int64_t w)
{
    uint64_t h;
    struct ss_entry *e, *min = NULL;

    if (s == NULL || w <= 0 || (key == NULL && len > 0))
        return;
    h = fnv1a(key, len);
    for (size_t i = 0; i < s->n; i++) {
        e = &s->e[i];
        if (e->hash == h && e->len == len &&
            (len == 0 || memcmp(e->key, key, len) == 0)) {
            e->count += w;
            return;
        }
        if (min == NULL || e->count < min->count)
            min = e;
    }
    if (s->n < s->k) {
        e = &s->e[s->n++];
        e->err = 0;
        e->count = w;
    } else {
        e = min;
        free(e->key);
        e->err = e->count;
        e->count += w;
    }
    e->key = xmalloc(len);
    if (len > 0)
        memcpy(e->key, key, len);
    e->len = len;
    e->hash = h;
}

void
throttle_sketch_add(struct throttle_sketch *s, const uint8_t *key,
                    size_t len, double weight)
{
    sketch_add_mu(s, key, len, to_mu(weight));
}

static int
cmp_entry_desc(const void *a, const void *b)
{
    const struct ss_entry *x = *(const struct ss_entry *const *)a;
    const struct ss_entry *y = *(const struct ss_entry *const *)b;

    if (x->count != y->count)
        return x->count < y->count ? 1 : -1;
    if (x->len != y->len)
        return x->len < y->len ? -1 : 1;
    return x->len == 0 ? 0 : memcmp(x->key, y->key, x->len);
}

/* Top n of s, largest first, keys copied (caller frees). */
size_t
throttle_sketch_top(struct throttle_sketch *s, struct throttle_hotkey *out,
                    size_t n)
{
    struct ss_entry **v;
    size_t m;

    if (s == NULL || out == NULL || n == 0 || s->n == 0)
        return 0;
    v = xmalloc(s->n * sizeof(*v));
    for (size_t i = 0; i < s->n; i++)
        v[i] = &s->e[i];
    qsort(v, s->n, sizeof(*v), cmp_entry_desc);
    m = s->n < n ? s->n : n;
    for (size_t i = 0; i < m; i++) {
        out[i].key = xmalloc(v[i]->len);
        if (v[i]->len > 0)
            memcpy(out[i].key, v[i]->key, v[i]->len);
        out[i].key_len = v[i]->len;
        out[i].count = mu_units(v[i]->count);
        out[i].error = mu_units(v[i]->err);
    }
    free(v);
    return m;
}

void
throttle_hotkeys_free(struct throttle_hotkey *hk, size_t n)
{
    if (hk == NULL)
        return;
    for (size_t i = 0; i < n; i++) {
        free(hk[i].key);
        hk[i].key = NULL;
    }
}

/* ------------------------------------------------------------------------
 * Counters: snapshots of a partition and of a table, hot keys.
 * ---------------------------------------------------------------------- */

/* Partition p's counters for op, in units. Caller holds t->mu. */
static void
op_stats(const struct throttle_table *t, const struct tpart *p, int op,
         struct throttle_op_stats *s)
{
    int64_t sum60 = 0;

    memset(s, 0, sizeof(*s));
    s->share = (double)p->b[op].rate / 1000.0;
    s->level = mu_units(p->b[op].level);
    s->capacity = mu_units(p->b[op].cap);
    s->ceiling = mu_units(ceiling_mu(t, op));
    s->ceiling_level = mu_units(p->c[op].level);
    s->ceiling_capacity = mu_units(p->c[op].cap);
    s->last_1s = mu_units(p->w[op].sum);
    for (unsigned k = 0; k < THROTTLE_HISTORY_S; k++) {
        uint64_t sec = p->h->sec - k;
        int64_t v = k <= p->h->sec ? p->h->mu[op][sec % RING_SLOTS] : 0;

        s->per_second[k] = mu_units(v);
        sum60 += v;
    }
    s->last_60s = mu_units(sum60);
    s->consumed_total = mu_units(p->total[op]);
    s->admitted = p->admitted[op];
    s->borrowed = p->borrowed[op];
    s->would_throttle = p->would[op];
    memcpy(s->throttled, p->throttled[op], sizeof(s->throttled));
}

int
throttle_part_stats(struct throttle_table *t, unsigned part, uint64_t now_ms,
                    struct throttle_part_stats *out, struct ddb_err *err)
{
    struct tpart *p = table_lock_part(t, part, now_ms, err);

    if (p == NULL)
        return -1;
    for (int op = 0; op < 2; op++)
        op_stats(t, p, op, &out->op[op]);
    pthread_mutex_unlock(&t->mu);
    return 0;
}

int
throttle_part_throttled_1s(struct throttle_table *t, unsigned part,
                           uint64_t now_ms, uint64_t out[2],
                           struct ddb_err *err)
{
    struct tpart *p = table_lock_part(t, part, now_ms, err);

    if (p == NULL)
        return -1;
    for (int op = 0; op < 2; op++)
        out[op] = (uint64_t)p->rej[op].sum;
    pthread_mutex_unlock(&t->mu);
    return 0;
}

void
throttle_table_stats(struct throttle_table *t, uint64_t now_ms,
                     struct throttle_table_stats *out)
{
    memset(out, 0, sizeof(*out));
    table_lock_all(t, now_ms);
    out->nparts = t->n;
    out->on_demand = t->on_demand;
    for (int op = 0; op < 2; op++) {
        struct throttle_op_stats *s = &out->op[op];

        out->provisioned[op] = mu_units(t->prov[op]);
        out->limit[op] = t->on_demand ? mu_units(od_limit(t, op))
                                      : mu_units(t->prov[op]);
        out->peak[op] = mu_units(t->pk[op].settled);
        out->table_level[op] = mu_units(t->tb[op].level);
        out->table_capacity[op] = mu_units(t->tb[op].cap);
        for (unsigned i = 0; i < t->n; i++) {
            struct throttle_op_stats ps;

            op_stats(t, &t->p[i], op, &ps);
            s->share += ps.share;
            s->level += ps.level;
            s->capacity += ps.capacity;
            s->ceiling += ps.ceiling;
            s->ceiling_level += ps.ceiling_level;
            s->ceiling_capacity += ps.ceiling_capacity;
            s->last_60s += ps.last_60s;
            s->consumed_total += ps.consumed_total;
            for (unsigned k = 0; k < THROTTLE_HISTORY_S; k++)
                s->per_second[k] += ps.per_second[k];
            s->admitted += ps.admitted;
            s->borrowed += ps.borrowed;
            s->would_throttle += ps.would_throttle;
            for (int c = 0; c < THROTTLE_CAUSE_COUNT; c++)
                s->throttled[c] += ps.throttled[c];
        }
        s->last_1s = mu_units(t->tw[op].sum);
    }
    pthread_mutex_unlock(&t->mu);
}

size_t
throttle_hotkeys(struct throttle_table *t, enum throttle_hk_kind kind,
                 struct throttle_hotkey *out, size_t n)
{
    size_t m;

    if ((int)kind < 0 || kind >= THROTTLE_HK_COUNT)
        return 0;
    pthread_mutex_lock(&t->mu);
    m = throttle_sketch_top(t->hk[kind], out, n);
    pthread_mutex_unlock(&t->mu);
    return m;
}

/* ------------------------------------------------------------------------
 * Registry: every table's and GSI's state, by name.
 * ---------------------------------------------------------------------- */

struct reg_entry {
    char *table;                        /* owned */
    char *index;                        /* owned, NULL for the table */
    struct throttle_table *t;           /* owned */
    bool dropped;                       /* kept allocated until free */
};

struct throttle_registry {
    pthread_rwlock_t mu;                /* guards everything below */
    struct throttle_limits lim;
    struct reg_entry *e;                /* owned */
    size_t n, cap;
};

struct throttle_registry *
throttle_registry_new(const struct throttle_limits *lim)
{
    struct throttle_registry *r = xcalloc(1, sizeof(*r));

    pthread_rwlock_init(&r->mu, NULL);
    r->lim = *lim;
    return r;
}

void
throttle_registry_free(struct throttle_registry *r)
{
    if (r == NULL)
        return;
    for (size_t i = 0; i < r->n; i++) {
        free(r->e[i].table);
        free(r->e[i].index);
        throttle_table_free(r->e[i].t);
    }
    free(r->e);
    pthread_rwlock_destroy(&r->mu);
    free(r);
}

void
throttle_registry_limits(struct throttle_registry *r,
                         struct throttle_limits *out)
{
    pthread_rwlock_rdlock(&r->mu);
    *out = r->lim;
    pthread_rwlock_unlock(&r->mu);
}

void
throttle_registry_set_limits(struct throttle_registry *r,
                             const struct throttle_limits *lim,
                             uint64_t now_ms)
{
    pthread_rwlock_wrlock(&r->mu);
    r->lim = *lim;
    for (size_t i = 0; i < r->n; i++)
        if (!r->e[i].dropped)
            throttle_table_set_limits(r->e[i].t, lim, now_ms);
    pthread_rwlock_unlock(&r->mu);
}

static bool
same_index(const char *a, const char *b)
{
    if (a == NULL || b == NULL)
        return a == b;
    return strcmp(a, b) == 0;
}

/* Caller holds r->mu (either mode). */
static struct throttle_table *
reg_lookup(struct throttle_registry *r, const char *table, const char *index)
{
    for (size_t i = 0; i < r->n; i++) {
        struct reg_entry *e = &r->e[i];

        if (!e->dropped && strcmp(e->table, table) == 0 &&
            same_index(e->index, index))
            return e->t;
    }
    return NULL;
}

struct throttle_table *
throttle_registry_find(struct throttle_registry *r, const char *table,
                       const char *index)
{
    struct throttle_table *t;

    if (table == NULL)
        return NULL;
    pthread_rwlock_rdlock(&r->mu);
    t = reg_lookup(r, table, index);
    pthread_rwlock_unlock(&r->mu);
    return t;
}

struct throttle_table *
throttle_registry_get(struct throttle_registry *r, const char *table,
                      const char *index, const struct throttle_table_conf *tc,
                      const struct throttle_limits *lim, uint64_t now_ms)
{
    struct throttle_table *t = throttle_registry_find(r, table, index);
    struct reg_entry *e;

    if (t != NULL || table == NULL || tc == NULL)
        return t;
    pthread_rwlock_wrlock(&r->mu);
    t = reg_lookup(r, table, index);    /* another thread may have won */
    if (t == NULL) {
        if (r->n == r->cap) {
            size_t cap = r->cap == 0 ? 16 : r->cap * 2;
            struct reg_entry *ne = xcalloc(cap, sizeof(*ne));

            if (r->n > 0)
                memcpy(ne, r->e, r->n * sizeof(*ne));
            free(r->e);
            r->e = ne;
            r->cap = cap;
        }
        e = &r->e[r->n];
        e->table = xstrdup(table);
        e->index = index != NULL ? xstrdup(index) : NULL;
        e->t = throttle_table_new(lim != NULL ? lim : &r->lim, tc, now_ms);
        e->dropped = false;
        r->n++;
        t = e->t;
    }
    pthread_rwlock_unlock(&r->mu);
    return t;
}

void
throttle_registry_drop(struct throttle_registry *r, const char *table,
                       const char *index)
{
    if (table == NULL)
        return;
    pthread_rwlock_wrlock(&r->mu);
    for (size_t i = 0; i < r->n; i++) {
        struct reg_entry *e = &r->e[i];

        if (strcmp(e->table, table) == 0 &&
            (index == NULL || same_index(e->index, index)))
            e->dropped = true;
    }
    pthread_rwlock_unlock(&r->mu);
}

void
throttle_registry_foreach(struct throttle_registry *r, throttle_visit_fn *fn,
                          void *arg)
{
    pthread_rwlock_rdlock(&r->mu);
    for (size_t i = 0; i < r->n; i++)
        if (!r->e[i].dropped)
            fn(arg, r->e[i].table, r->e[i].index, r->e[i].t);
    pthread_rwlock_unlock(&r->mu);
}
