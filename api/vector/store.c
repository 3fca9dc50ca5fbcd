/* SPDX-License-Identifier: MIT */
/* store.c - the in-memory vector indexes: the registry of tables, each
 * index's shards of rows (vectors, keys, filter values), the rows brought
 * in line with an item after every write, indexes built from a table's
 * items (start-up, UpdateTable's backfill), and the background thread
 * that builds the graphs of large shards and compacts the others. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/vector/vector_int.h"
#include "storage/util.h"

/* A graph is built in steps of at most this long under the write lock,
 * so searches and writes wait at most about that. */
#define BUILD_STEP_MS   20
/* A shard is compacted once this many of its rows are dead (and more
 * than are alive). */
#define COMPACT_DEAD    256

struct vector_registry {
    pthread_mutex_t mu;             /* the list, refs, the builder's flags */
    pthread_cond_t cv;
    struct vector_table *head;
    struct storage *st;
    unsigned exact_max;
    pthread_t thr;
    bool started, stop, work;
};

/* ------------------------------------------------------------------------
 * Byte-string maps
 * ---------------------------------------------------------------------- */

static uint64_t
hash_bytes(const uint8_t *k, size_t len)
{
    uint64_t h = 1469598103934665603ULL;   /* FNV-1a */
    size_t i;

    for (i = 0; i < len; i++) {
        h ^= k[i];
        h *= 1099511628211ULL;
    }
    return h ^ (h >> 29);
}

static bool
bmap_slot_is(const struct bmap_slot *s, uint64_t h, const uint8_t *k,
             size_t len)
{
    return s->k != NULL && s->h == h && s->len == len &&
           memcmp(s->k, k, len) == 0;
}

static bool
bmap_get(const struct bmap *m, const uint8_t *k, size_t len, uint64_t *v)
{
    uint64_t h = hash_bytes(k, len);
    size_t i;

    if (m->cap == 0)
        return false;
    for (i = h & (m->cap - 1); m->s[i].k != NULL; i = (i + 1) & (m->cap - 1))
        if (bmap_slot_is(&m->s[i], h, k, len)) {
            *v = m->s[i].v;
            return true;
        }
    return false;
}

static void bmap_put(struct bmap *m, const uint8_t *k, size_t len,
                     uint64_t v);

static void
bmap_grow(struct bmap *m)
{
    struct bmap_slot *old = m->s;
    size_t oldcap = m->cap, i;

    m->cap = m->cap ? m->cap * 2 : 64;
    m->s = xcalloc(m->cap, sizeof(*m->s));
    m->n = 0;
    for (i = 0; i < oldcap; i++)
        if (old[i].k != NULL)
            bmap_put(m, old[i].k, old[i].len, old[i].v);
    free(old);
}

/* Insert or replace; k must outlive its entry. */
static void
bmap_put(struct bmap *m, const uint8_t *k, size_t len, uint64_t v)
{
    uint64_t h = hash_bytes(k, len);
    size_t i;

    if ((m->n + 1) * 4 > m->cap * 3)
        bmap_grow(m);
    for (i = h & (m->cap - 1); m->s[i].k != NULL; i = (i + 1) & (m->cap - 1))
        if (bmap_slot_is(&m->s[i], h, k, len)) {
            m->s[i].k = k;
            m->s[i].v = v;
            return;
        }
    m->s[i].h = h;
    m->s[i].k = k;
    m->s[i].len = (uint32_t)len;
    m->s[i].v = v;
    m->n++;
}

/* Remove k (backward shift: no tombstones). */
static void
bmap_del(struct bmap *m, const uint8_t *k, size_t len)
{
    uint64_t h = hash_bytes(k, len);
    size_t i, j, home, mask = m->cap - 1;

    if (m->cap == 0)
        return;
    for (i = h & mask; m->s[i].k != NULL; i = (i + 1) & mask)
        if (bmap_slot_is(&m->s[i], h, k, len))
            break;
    if (m->s[i].k == NULL)
        return;
    m->s[i].k = NULL;
    m->n--;
    for (j = (i + 1) & mask; m->s[j].k != NULL; j = (j + 1) & mask) {
        home = m->s[j].h & mask;
        /* Move j back to i unless its home lies in (i, j]. */
        if ((j > i && (home <= i || home > j)) ||
            (j < i && (home <= i && home > j))) {
            m->s[i] = m->s[j];
            m->s[j].k = NULL;
            i = j;
        }
    }
}

static void
bmap_fini(struct bmap *m)
{
    free(m->s);
    memset(m, 0, sizeof(*m));
}

/* ------------------------------------------------------------------------
 * Values and rows
 * ---------------------------------------------------------------------- */

long
vector_value_encode(const json_t *av, char type, uint8_t *out)
{
    const char t[2] = { type, 0 };
    long n;

    if (json_object_get(av, t) == NULL)
        return -1;
    n = key_encode_value(av, out + 1);
    if (n < 0)
        return -1;
    out[0] = (uint8_t)type;
    return n + 1;
}

/* The SearchSchema values of item for d as a row's fv blob (a new
 * buffer, *len bytes), or NULL when d has no SearchSchema. */
static uint8_t *
fv_build(const struct vector_def *d, const json_t *item, uint32_t *len)
{
    struct strbuf b = { 0 };
    uint8_t v[1 + KEY_BYTES_MAX], hdr[4];
    long n;
    size_t i;

    *len = 0;
    if (d->nschema == 0)
        return NULL;
    for (i = 0; i < d->nschema; i++) {
        n = vector_value_encode(json_object_get(item, d->schema[i].name),
                                d->schema[i].type, v);
        hdr[0] = n > 0;
        hdr[1] = (uint8_t)d->schema[i].type;
        hdr[2] = (uint8_t)((n > 0 ? n : 0) >> 8);
        hdr[3] = (uint8_t)((n > 0 ? n : 0) & 0xff);
        strbuf_add(&b, (const char *)hdr, 4);
        if (n > 0)
            strbuf_add(&b, (const char *)v, (size_t)n);
    }
    *len = (uint32_t)b.len;
    return (uint8_t *)strbuf_take(&b);
}

bool
vector_fv_match(const struct ventry *e, size_t at, const uint8_t *v,
                size_t len)
{
    const uint8_t *p = e->fv, *end = e->fv + e->fvlen;
    size_t i, n;

    for (i = 0; p != NULL && p + 4 <= end; i++) {
        n = ((size_t)p[2] << 8) | p[3];
        if (i == at)
            return p[0] && n == len && memcmp(p + 4, v, len) == 0;
        p += 4 + n;
    }
    return false;
}

static void
entry_free(struct ventry *e)
{
    free(e->key);
    free(e->fv);
    e->key = NULL;
    e->fv = NULL;
}

/* ------------------------------------------------------------------------
 * Shards
 * ---------------------------------------------------------------------- */

static struct vshard *
shard_new(const struct vindex *x, const uint8_t *hv, size_t hvlen)
{
    struct vshard *s = xcalloc(1, sizeof(*s));

    if (hvlen > 0) {
        s->hv = xmalloc(hvlen);
        memcpy(s->hv, hv, hvlen);
        s->hvlen = hvlen;
    }
    s->rows.vec = &s->vec;
    s->rows.inv = &s->inv;
    s->rows.dim = x->def.dims;
    s->rows.metric = x->def.metric;
    return s;
}

static void
shard_free(struct vshard *s)
{
    size_t i;

    for (i = 0; i < s->n; i++)
        entry_free(&s->e[i]);
    hnsw_free(s->g);
    free(s->e);
    free(s->vec);
    free(s->inv);
    free(s->hv);
    free(s);
}

struct vshard *
vindex_shard(const struct vindex *x, const uint8_t *hv, size_t hvlen)
{
    uint64_t v;

    if (x->def.hash < 0)
        return x->nsh > 0 ? x->sh[0] : NULL;
    if (hvlen == 0 || !bmap_get(&x->by_hv, hv, hvlen, &v))
        return NULL;
    return x->sh[v];
}

/* The position of the shard for hv, made when missing. */
static size_t
shard_for(struct vindex *x, const uint8_t *hv, size_t hvlen)
{
    struct vshard *s;
    uint64_t v;

    if (x->def.hash < 0 && x->nsh > 0)
        return 0;
    if (x->def.hash >= 0 && bmap_get(&x->by_hv, hv, hvlen, &v))
        return (size_t)v;
    if (x->nsh == x->capsh) {
        x->capsh = x->capsh ? 2 * x->capsh : 4;
        x->sh = xrealloc(x->sh, x->capsh * sizeof(*x->sh));
    }
    s = shard_new(x, hv, hvlen);
    x->sh[x->nsh] = s;
    if (s->hv != NULL)
        bmap_put(&x->by_hv, s->hv, s->hvlen, x->nsh);
    return x->nsh++;
}

/* Kill row i of shard si: out of the key map, the graph and the counts. */
static void
row_kill(struct vindex *x, size_t si, size_t i)
{
    struct vshard *s = x->sh[si];
    struct ventry *e = &s->e[i];

    if (!e->alive)
        return;
    bmap_del(&x->by_key, e->key, (size_t)e->pklen + e->sklen);
    if (e->node != NO_NODE && s->g != NULL)
        hnsw_remove(s->g, e->node);
    e->alive = false;
    s->live--;
    x->count--;
    x->bytes -= e->size;
    entry_free(e);
}

/* Append a live row to shard si (key takes ownership of its buffer). */
static void
row_add(struct vindex *x, size_t si, uint8_t *key, size_t pklen,
        size_t sklen, const float *v, uint8_t *fv, uint32_t fvlen,
        uint32_t size)
{
    struct vshard *s = x->sh[si];
    size_t dim = x->def.dims, i;
    struct ventry *e;

    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 16;
        s->vec = xrealloc(s->vec, s->cap * dim * sizeof(float));
        s->inv = xrealloc(s->inv, s->cap * sizeof(float));
        s->e = xrealloc(s->e, s->cap * sizeof(*s->e));
    }
    i = s->n++;
    memcpy(s->vec + i * dim, v, dim * sizeof(float));
    s->inv[i] = vec_inv_norm(v, dim);
    e = &s->e[i];
    memset(e, 0, sizeof(*e));
    e->key = key;
    e->pklen = (uint16_t)pklen;
    e->sklen = (uint16_t)sklen;
    e->fv = fv;
    e->fvlen = fvlen;
    e->size = size;
    e->node = NO_NODE;
    e->alive = true;
    s->live++;
    x->count++;
    x->bytes += size;
    bmap_put(&x->by_key, e->key, pklen + sklen, ((uint64_t)si << 32) | i);
}

/* Rewrite shard si with its live rows only (the graph starts over). */
static void
shard_compact(struct vindex *x, size_t si)
{
    struct vshard *s = x->sh[si];
    size_t dim = x->def.dims, i, j = 0;

    hnsw_free(s->g);
    s->g = NULL;
    s->graphed = 0;
    for (i = 0; i < s->n; i++) {
        if (!s->e[i].alive) {
            entry_free(&s->e[i]);
            continue;
        }
        if (i != j) {
            memcpy(s->vec + j * dim, s->vec + i * dim, dim * sizeof(float));
            s->inv[j] = s->inv[i];
            s->e[j] = s->e[i];
        }
        s->e[j].node = NO_NODE;
        bmap_put(&x->by_key, s->e[j].key,
                 (size_t)s->e[j].pklen + s->e[j].sklen,
                 ((uint64_t)si << 32) | j);
        j++;
    }
    s->n = j;
}

/* ------------------------------------------------------------------------
 * Indexes
 * ---------------------------------------------------------------------- */

static void
vindex_free(struct vindex *x)
{
    size_t i;

    if (x == NULL)
        return;
    for (i = 0; i < x->nsh; i++)
        shard_free(x->sh[i]);
    free(x->sh);
    bmap_fini(&x->by_hv);
    bmap_fini(&x->by_key);
    free(x->def.schema);
    json_decref(x->def.nonkey);
    free(x);
}

/* A copy of d that owns its own arrays. */
static void
def_copy(struct vector_def *to, const struct vector_def *d)
{
    *to = *d;
    to->schema = xcalloc(d->nschema + 1, sizeof(*to->schema));
    memcpy(to->schema, d->schema, d->nschema * sizeof(*to->schema));
    to->nonkey = d->nonkey != NULL ? json_deep_copy(d->nonkey) : NULL;
}

/* What shard s of vt needs (the caller holds the lock): 2 compaction, 1
 * graph insertions, 0 nothing. */
static int
shard_work(const struct vector_registry *r, const struct vshard *s)
{
    size_t dead = s->n - s->live;

    if (dead >= COMPACT_DEAD && dead > s->live)
        return 2;
    if (s->g != NULL && hnsw_removed(s->g) > COMPACT_DEAD &&
        hnsw_removed(s->g) > hnsw_size(s->g) / 2)
        return 2;
    if (s->live > r->exact_max && s->graphed < s->n)
        return 1;
    return 0;
}

/*
 * Bring x in line with item (NULL: gone) for the item key pk/sk: the row
 * is dropped, replaced, or (same vector, shard and filter values) only
 * resized. Items whose vector or HASH value the index cannot take are not
 * in it (rows of items written before the index existed may be anything).
 * Returns whether the shard touched now wants the builder.
 */
static bool
vindex_apply(const struct vector_registry *r, struct vindex *x,
             const uint8_t *pk, size_t pklen, const uint8_t *sk,
             size_t sklen, const json_t *item, float *vbuf)
{
    uint8_t hv[1 + KEY_BYTES_MAX], kb[2 * KEY_BYTES_MAX];
    const struct vector_def *d = &x->def;
    struct vshard *s = NULL;
    struct ventry *e = NULL;
    uint8_t *fv = NULL, *key;
    uint32_t fvlen = 0, size;
    long hvlen = 0;
    uint64_t at;
    size_t si = 0;
    bool in;

    memcpy(kb, pk, pklen);
    memcpy(kb + pklen, sk, sklen);
    in = item != NULL && vector_item_vector(d, item, vbuf, NULL) == 1;
    if (in && d->hash >= 0) {
        hvlen = vector_value_encode(json_object_get(item,
                                                    d->schema[d->hash].name),
                                    d->schema[d->hash].type, hv);
        in = hvlen > 1;
    }
    if (bmap_get(&x->by_key, kb, pklen + sklen, &at)) {
        si = (size_t)(at >> 32);
        s = x->sh[si];
        e = &s->e[at & 0xffffffffu];
    }
    if (!in) {
        if (e != NULL)
            row_kill(x, si, (size_t)(e - s->e));
        return s != NULL && shard_work(r, s) != 0;
    }
    fv = fv_build(d, item, &fvlen);
    size = (uint32_t)vector_entry_size(d, item);
    if (e != NULL && s == vindex_shard(x, hv, (size_t)hvlen) &&
        memcmp(s->vec + (size_t)(e - s->e) * d->dims, vbuf,
               d->dims * sizeof(float)) == 0 &&
        e->fvlen == fvlen && (fvlen == 0 || memcmp(e->fv, fv, fvlen) == 0)) {
        x->bytes += (uint64_t)size - e->size;
        e->size = size;
        free(fv);
        return false;
    }
    if (e != NULL)
        row_kill(x, si, (size_t)(e - s->e));
    si = shard_for(x, hv, (size_t)hvlen);
    key = xmalloc(pklen + sklen + 1);
    memcpy(key, kb, pklen + sklen);
    row_add(x, si, key, pklen, sklen, vbuf, fv, fvlen, size);
    return shard_work(r, x->sh[si]) != 0;
}

struct vindex *
vtable_index(const struct vector_table *vt, const char *name)
{
    size_t i;

    for (i = 0; i < vt->n; i++)
        if (strcmp(vt->idx[i]->def.name, name) == 0)
            return vt->idx[i];
    return NULL;
}

unsigned
vector_exact_max(const struct vector_table *vt)
{
    return vt->reg->exact_max;
}

/* ------------------------------------------------------------------------
 * Tables
 * ---------------------------------------------------------------------- */

/* Apply item (under key k) to index `only` of vt, or to all when -1; the
 * caller holds the write lock. Returns whether the builder has work. */
static bool
vtable_apply(struct vector_table *vt, int only, const struct item_key *k,
             const json_t *item)
{
    bool work = false;
    float *vbuf;
    size_t i;

    for (i = 0; i < vt->n; i++) {
        if (only >= 0 && (size_t)only != i)
            continue;
        vbuf = xmalloc((vt->idx[i]->def.dims + 1) * sizeof(float));
        work |= vindex_apply(vt->reg, vt->idx[i], k->pk, k->pk_len, k->sk,
                             k->sk_len, item, vbuf);
        free(vbuf);
    }
    return work;
}

struct load_arg {
    struct vector_table *vt;
    int only;
    bool work;                      /* the builder has work */
};

static int
load_row(void *arg, const struct item_key *k, const json_t *item,
         size_t size, struct ddb_err *err)
{
    struct load_arg *a = arg;

    (void)size;
    (void)err;
    a->work |= vtable_apply(a->vt, a->only, k, item);
    return 0;
}

/* Wake the builder: some shard may want a graph or a compaction. */
static void
kick(struct vector_registry *r)
{
    pthread_mutex_lock(&r->mu);
    r->work = true;
    pthread_cond_signal(&r->cv);
    pthread_mutex_unlock(&r->mu);
}

/*
 * Bring vt in line with desc, the table's stored description: an index it
 * lacks is built from t's items with the write lock held (a write
 * committed meanwhile waits, then applies itself: vector_write_done); an
 * index no longer described (or DELETING) goes. Always the stored
 * description, never a caller's copy, so a writer that read an older one
 * cannot bring back an index that was just deleted.
 */
static int
vtable_reconcile(struct vector_table *vt, struct stable *t,
                 const json_t *desc, struct ddb_err *err)
{
    struct vector_def *defs = NULL;
    struct load_arg la;
    struct vindex *x;
    size_t n = 0, i, j;
    int rc = 0;

    if (vector_defs_parse(desc, false, &defs, &n, err) != 0)
        return -1;
    for (i = 0; i < vt->n;) {
        for (j = 0; j < n; j++)
            if (strcmp(defs[j].name, vt->idx[i]->def.name) == 0)
                break;
        if (j < n) {
            i++;
            continue;
        }
        vindex_free(vt->idx[i]);
        memmove(&vt->idx[i], &vt->idx[i + 1],
                (vt->n - i - 1) * sizeof(vt->idx[0]));
        vt->n--;
    }
    for (i = 0; i < n && rc == 0; i++) {
        x = vtable_index(vt, defs[i].name);
        if (x != NULL) {
            x->def.state = defs[i].state;
            continue;
        }
        if (vt->n >= VECTOR_INDEX_MAX)
            break;
        x = xcalloc(1, sizeof(*x));
        def_copy(&x->def, &defs[i]);
        vt->idx[vt->n++] = x;
        la.vt = vt;
        la.only = (int)vt->n - 1;
        la.work = false;
        rc = stable_scan(t, 0, UINT64_MAX, NULL, load_row, &la, err);
        if (la.work)
            kick(vt->reg);
    }
    vector_defs_free(defs, n);
    if (rc == 0) {
        json_decref(vt->seen);
        vt->seen = json_incref((json_t *)desc);
    }
    return rc;
}

struct vector_table *
vector_table_open(struct vector_registry *r, struct stable *t,
                  struct ddb_err *err)
{
    json_t *desc = stable_desc_ref(t);
    const char *id = json_string_value(json_object_get(desc, "TableId"));
    struct vector_table *vt;
    bool same;
    int rc = 0;

    if (id == NULL) {
        ddb_err_set(err, DDB_INTERNAL, "table has no id");
        json_decref(desc);
        return NULL;
    }
    pthread_mutex_lock(&r->mu);
    for (vt = r->head; vt != NULL; vt = vt->next)
        if (strcmp(vt->id, id) == 0)
            break;
    if (vt == NULL) {
        vt = xcalloc(1, sizeof(*vt));
        vt->reg = r;
        snprintf(vt->id, sizeof(vt->id), "%s", id);
        snprintf(vt->name, sizeof(vt->name), "%s", stable_name(t));
        pthread_rwlock_init(&vt->lock, NULL);
        vt->next = r->head;
        r->head = vt;
    }
    vt->refs++;
    pthread_mutex_unlock(&r->mu);
    pthread_rwlock_rdlock(&vt->lock);
    same = vt->seen == desc;
    pthread_rwlock_unlock(&vt->lock);
    if (!same) {
        pthread_rwlock_wrlock(&vt->lock);
        json_decref(desc);          /* the latest, now under the lock */
        desc = stable_desc_ref(t);
        if (vt->seen != desc)
            rc = vtable_reconcile(vt, t, desc, err);
        pthread_rwlock_unlock(&vt->lock);
    }
    json_decref(desc);
    if (rc != 0) {
        vector_table_close(vt);
        return NULL;
    }
    return vt;
}

static void
vtable_free(struct vector_table *vt)
{
    size_t i;

    for (i = 0; i < vt->n; i++)
        vindex_free(vt->idx[i]);
    json_decref(vt->seen);
    pthread_rwlock_destroy(&vt->lock);
    free(vt);
}

void
vector_table_close(struct vector_table *vt)
{
    struct vector_registry *r;
    bool last;

    if (vt == NULL)
        return;
    r = vt->reg;
    pthread_mutex_lock(&r->mu);
    last = --vt->refs == 0 && vt->next == vt; /* dropped: self-linked */
    pthread_mutex_unlock(&r->mu);
    if (last)
        vtable_free(vt);
}

/* Unlink vt from the registry (the caller holds the mutex); it is freed
 * when its last user closes it. Returns true when it can go now. */
static bool
unlink_locked(struct vector_registry *r, struct vector_table *vt)
{
    struct vector_table **p;

    for (p = &r->head; *p != NULL; p = &(*p)->next)
        if (*p == vt) {
            *p = vt->next;
            break;
        }
    vt->next = vt;                  /* marks it dropped */
    return vt->refs == 0;
}

void
vector_table_drop(struct vector_registry *r, const char *name)
{
    struct vector_table *vt, *next, *gone = NULL;

    if (r == NULL)
        return;
    pthread_mutex_lock(&r->mu);
    for (vt = r->head; vt != NULL; vt = next) {
        next = vt->next;
        if (strcmp(vt->name, name) != 0)
            continue;
        if (unlink_locked(r, vt)) {
            vt->next = gone;        /* free below, outside the mutex */
            gone = vt;
        }
    }
    pthread_mutex_unlock(&r->mu);
    for (vt = gone; vt != NULL; vt = next) {
        next = vt->next;
        vtable_free(vt);
    }
}

/* The table whose TableId is id, with a reference (close it), or NULL. */
static struct vector_table *
vtable_find(struct vector_registry *r, const char *id)
{
    struct vector_table *vt;

    pthread_mutex_lock(&r->mu);
    for (vt = r->head; vt != NULL; vt = vt->next)
        if (strcmp(vt->id, id) == 0)
            break;
    if (vt != NULL)
        vt->refs++;
    pthread_mutex_unlock(&r->mu);
    return vt;
}

void
vector_index_drop(struct vector_registry *r, const char *table_id,
                  const char *index)
{
    struct vector_table *vt;
    size_t i;

    if (r == NULL || table_id == NULL ||
        (vt = vtable_find(r, table_id)) == NULL)
        return;
    pthread_rwlock_wrlock(&vt->lock);
    for (i = 0; i < vt->n; i++)
        if (strcmp(vt->idx[i]->def.name, index) == 0) {
            vindex_free(vt->idx[i]);
            memmove(&vt->idx[i], &vt->idx[i + 1],
                    (vt->n - i - 1) * sizeof(vt->idx[0]));
            vt->n--;
            break;
        }
    pthread_rwlock_unlock(&vt->lock);
    vector_table_close(vt);
}

void
vector_index_stats(struct vector_registry *r, const char *table_id,
                   const char *index, uint64_t *count, uint64_t *bytes)
{
    struct vector_table *vt;
    struct vindex *x;

    *count = *bytes = 0;
    if (r == NULL || table_id == NULL || index == NULL ||
        (vt = vtable_find(r, table_id)) == NULL)
        return;
    pthread_rwlock_rdlock(&vt->lock);
    x = vtable_index(vt, index);
    if (x != NULL) {
        *count = x->count;
        *bytes = x->bytes;
    }
    pthread_rwlock_unlock(&vt->lock);
    vector_table_close(vt);
}

/* Bring vt in line with the item under k as storage has it now. Reading
 * it again under the write lock orders concurrent writers of one item:
 * whichever applies last applies the last committed state. */
void
vector_table_sync(struct vector_table *vt, struct stable *t,
                  const struct item_key *k)
{
    struct ddb_err e;
    json_t *item = NULL;
    bool work = false;

    ddb_err_init(&e);
    pthread_rwlock_wrlock(&vt->lock);
    if (stable_get(t, k, &item, &e) == 0)
        work = vtable_apply(vt, -1, k, item);
    pthread_rwlock_unlock(&vt->lock);
    json_decref(item);
    ddb_err_clear(&e);
    if (work)
        kick(vt->reg);
}

/* ------------------------------------------------------------------------
 * The builder: graphs for large shards, compaction of dead rows
 * ---------------------------------------------------------------------- */

/* One step of work on vt, under its write lock: at most BUILD_STEP_MS of
 * graph insertions, or one compaction. Returns whether work was done. */
static bool
vtable_step(struct vector_table *vt)
{
    uint64_t start = mono_ms();
    struct vshard *s;
    struct vindex *x;
    bool did = false, any = false;
    size_t i, j;
    int w;

    pthread_rwlock_rdlock(&vt->lock);
    for (i = 0; i < vt->n && !any; i++)
        for (j = 0; j < vt->idx[i]->nsh && !any; j++)
            any = shard_work(vt->reg, vt->idx[i]->sh[j]) != 0;
    pthread_rwlock_unlock(&vt->lock);
    if (!any)
        return false;
    pthread_rwlock_wrlock(&vt->lock);
    for (i = 0; i < vt->n && !did; i++) {
        x = vt->idx[i];
        for (j = 0; j < x->nsh && !did; j++) {
            s = x->sh[j];
            w = shard_work(vt->reg, s);
            if (w == 2) {
                shard_compact(x, j);
                did = true;
            } else if (w == 1) {
                if (s->g == NULL)
                    s->g = hnsw_new(&s->rows, HNSW_M, HNSW_EFC,
                                    0x5eed + (uint64_t)j);
                while (s->graphed < s->n &&
                       mono_ms() - start < BUILD_STEP_MS) {
                    if (s->e[s->graphed].alive)
                        s->e[s->graphed].node =
                            hnsw_add(s->g, (uint32_t)s->graphed);
                    s->graphed++;
                }
                did = true;
            }
        }
    }
    pthread_rwlock_unlock(&vt->lock);
    return did;
}

/* One pass over every table; returns whether any work was done. */
static bool
registry_pass(struct vector_registry *r)
{
    struct vector_table *vt, **list;
    size_t n = 0, i;
    bool did = false;

    pthread_mutex_lock(&r->mu);
    for (vt = r->head; vt != NULL; vt = vt->next)
        n++;
    list = xcalloc(n + 1, sizeof(*list));
    n = 0;
    for (vt = r->head; vt != NULL; vt = vt->next) {
        vt->refs++;
        list[n++] = vt;
    }
    pthread_mutex_unlock(&r->mu);
    for (i = 0; i < n; i++) {
        while (!r->stop && vtable_step(list[i]))
            did = true;
        vector_table_close(list[i]);
    }
    free(list);
    return did;
}

static void *
builder(void *arg)
{
    struct vector_registry *r = arg;

    for (;;) {
        pthread_mutex_lock(&r->mu);
        while (!r->stop && !r->work)
            pthread_cond_wait(&r->cv, &r->mu);
        r->work = false;
        if (r->stop) {
            pthread_mutex_unlock(&r->mu);
            return NULL;
        }
        pthread_mutex_unlock(&r->mu);
        registry_pass(r);
    }
}

void
vector_registry_settle(struct vector_registry *r)
{
    while (registry_pass(r))
        ;
}

/* ------------------------------------------------------------------------
 * The registry
 * ---------------------------------------------------------------------- */

struct vector_registry *
vector_registry_new(struct storage *st, unsigned exact_max)
{
    struct vector_registry *r = xcalloc(1, sizeof(*r));

    pthread_mutex_init(&r->mu, NULL);
    pthread_cond_init(&r->cv, NULL);
    r->st = st;
    r->exact_max = exact_max;
    r->started = pthread_create(&r->thr, NULL, builder, r) == 0;
    return r;
}

void
vector_registry_free(struct vector_registry *r)
{
    struct vector_table *vt, *next;

    if (r == NULL)
        return;
    pthread_mutex_lock(&r->mu);
    r->stop = true;
    pthread_cond_signal(&r->cv);
    pthread_mutex_unlock(&r->mu);
    if (r->started)
        pthread_join(r->thr, NULL);
    for (vt = r->head; vt != NULL; vt = next) {
        next = vt->next;
        vtable_free(vt);
    }
    pthread_cond_destroy(&r->cv);
    pthread_mutex_destroy(&r->mu);
    free(r);
}

int
vector_registry_load(struct vector_registry *r, struct ddb_err *err)
{
    json_t *names = storage_table_names(r->st), *desc;
    struct vector_table *vt;
    struct stable *t;
    size_t i;
    int rc = 0;

    for (i = 0; i < json_array_size(names) && rc == 0; i++) {
        t = storage_table_get(r->st,
                              json_string_value(json_array_get(names, i)));
        if (t == NULL)
            continue;
        desc = stable_desc_ref(t);
        if (vector_desc_has(desc)) {
            vt = vector_table_open(r, t, err);
            if (vt == NULL)
                rc = -1;
            vector_table_close(vt);
        }
        json_decref(desc);
        stable_release(t);
    }
    json_decref(names);
    return rc;
}
