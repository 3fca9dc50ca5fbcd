/* SPDX-License-Identifier: MIT */
/* hnsw.c - the approximate index of large vector indexes: a Hierarchical
 * Navigable Small World graph (Malkov and Yashunin, "Efficient and robust
 * approximate nearest neighbor search using Hierarchical Navigable Small
 * World graphs", 2016): layered proximity graphs, a greedy descent from
 * the top layer, a beam search on the bottom one, and the neighbour
 * selection heuristic that keeps links spread out. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "api/vector/vector_int.h"
#include "storage/util.h"

#define LEVEL_MAX 16
#define M_MAX     32                /* links per node; m0 is twice m */

struct hnsw {
    struct vec_rows rows;           /* the caller's vectors */
    unsigned m, m0, efc;            /* links per node (m0 on layer 0) */
    double ml;                      /* level draw: -ln(U) * ml */
    uint64_t rng;
    size_t n, cap;                  /* nodes */
    uint32_t *slot;                 /* node -> the caller's row */
    uint8_t *level;                 /* node -> its top layer */
    uint8_t *dead;                  /* node -> removed */
    uint32_t *l0;                   /* node -> [count, m0 links] */
    uint32_t **up;                  /* node -> layers 1..level, each
                                       [count, m links]; NULL at level 0 */
    long entry;                     /* the top node, -1 when empty */
    int top;                        /* its level */
    size_t ndead;
};

/* ------------------------------------------------------------------------
 * Nodes
 * ---------------------------------------------------------------------- */

static inline const float *
row(const struct hnsw *g, uint32_t node)
{
    return *g->rows.vec + (size_t)g->slot[node] * g->rows.dim;
}

static inline float
row_inv(const struct hnsw *g, uint32_t node)
{
    return (*g->rows.inv)[g->slot[node]];
}

/* The link list of node on layer lv: [count, ids...]. */
static inline uint32_t *
links(const struct hnsw *g, uint32_t node, int lv)
{
    if (lv == 0)
        return g->l0 + (size_t)node * (g->m0 + 1);
    return g->up[node] + (size_t)(lv - 1) * (g->m + 1);
}

/* Ask for node's row ahead of its distance: a graph search reads rows
 * in no order the hardware prefetcher can guess, and waiting on memory
 * row after row dominated its time. */
static inline void
prefetch_row(const struct hnsw *g, uint32_t node)
{
    const char *p = (const char *)row(g, node);
    size_t i, len = g->rows.dim * sizeof(float);

    for (i = 0; i < len; i += 64)
        __builtin_prefetch(p + i);
}

static inline float
dist_q(const struct hnsw *g, const float *q, float iq, uint32_t node)
{
    return vec_dist(g->rows.metric, q, iq, row(g, node), row_inv(g, node),
                    g->rows.dim);
}

/* splitmix64: a repeatable stream for the level draws. */
static uint64_t
next_rand(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static int
draw_level(struct hnsw *g)
{
    double u = ((double)(next_rand(&g->rng) >> 11) + 1.0) /
               9007199254740993.0;          /* (0, 1] */
    double l = -log(u) * g->ml;

    return l >= LEVEL_MAX ? LEVEL_MAX : (int)l;
}

struct hnsw *
hnsw_new(const struct vec_rows *rows, unsigned m, unsigned efc,
         uint64_t seed)
{
    struct hnsw *g = xcalloc(1, sizeof(*g));

    g->rows = *rows;
    g->m = m < 2 ? 2 : m > M_MAX ? M_MAX : m;
    g->m0 = 2 * g->m;
    g->efc = efc < g->m ? g->m : efc;
    g->ml = 1.0 / log((double)g->m);
    g->rng = seed;
    g->entry = -1;
    return g;
}

void
hnsw_free(struct hnsw *g)
{
    size_t i;

    if (g == NULL)
        return;
    for (i = 0; i < g->n; i++)
        free(g->up[i]);
    free(g->up);
    free(g->l0);
    free(g->slot);
    free(g->level);
    free(g->dead);
    free(g);
}

size_t
hnsw_size(const struct hnsw *g)
{
    return g->n;
}

size_t
hnsw_removed(const struct hnsw *g)
{
    return g->ndead;
}

size_t
hnsw_bytes(const struct hnsw *g)
{
    size_t b = g->cap * (sizeof(uint32_t) * (g->m0 + 2) + 2 +
                         sizeof(uint32_t *));
    size_t i;

    for (i = 0; i < g->n; i++)
        b += (size_t)g->level[i] * (g->m + 1) * sizeof(uint32_t);
    return b;
}

void
hnsw_remove(struct hnsw *g, uint32_t node)
{
    if (node < g->n && !g->dead[node]) {
        g->dead[node] = 1;
        g->ndead++;
    }
}

/* ------------------------------------------------------------------------
 * Heaps of (distance, node)
 * ---------------------------------------------------------------------- */

struct cand {
    float d;
    uint32_t id;
};

struct heap {
    struct cand *a;
    size_t n, cap;
    bool max;                       /* max-heap (else min-heap) */
};

static void
heap_init(struct heap *h, bool max, size_t cap)
{
    h->n = 0;
    h->cap = cap ? cap : 16;
    h->a = xmalloc(h->cap * sizeof(*h->a));
    h->max = max;
}

static inline bool
above(const struct heap *h, const struct cand *x, const struct cand *y)
{
    return h->max ? x->d > y->d : x->d < y->d;
}

static void
heap_push(struct heap *h, float d, uint32_t id)
{
    struct cand x = { d, id };
    size_t i, p;

    if (h->n == h->cap) {
        h->cap *= 2;
        h->a = xrealloc(h->a, h->cap * sizeof(*h->a));
    }
    i = h->n++;
    while (i > 0) {
        p = (i - 1) / 2;
        if (!above(h, &x, &h->a[p]))
            break;
        h->a[i] = h->a[p];
        i = p;
    }
    h->a[i] = x;
}

static struct cand
heap_pop(struct heap *h)
{
    struct cand top = h->a[0], x = h->a[--h->n];
    size_t i = 0, c;

    while ((c = 2 * i + 1) < h->n) {
        if (c + 1 < h->n && above(h, &h->a[c + 1], &h->a[c]))
            c++;
        if (!above(h, &h->a[c], &x))
            break;
        h->a[i] = h->a[c];
        i = c;
    }
    if (h->n > 0)
        h->a[i] = x;
    return top;
}

/* ------------------------------------------------------------------------
 * Search of one layer
 * ---------------------------------------------------------------------- */

struct visited {
    uint8_t *bits;
    size_t count;                   /* distances computed */
};

static inline bool
visit(struct visited *v, uint32_t id)
{
    uint8_t b = (uint8_t)(1u << (id & 7));

    if (v->bits[id >> 3] & b)
        return false;
    v->bits[id >> 3] |= b;
    return true;
}

/*
 * The beam search of layer lv from the entry points in w (a max-heap of
 * found nodes, at most ef kept): returns with w holding the ef nearest
 * that take() accepts (when take is NULL every node counts). Nodes that
 * are not taken still route the search.
 */
typedef bool take_fn(const struct hnsw *g, uint32_t node, void *arg);

static void
search_layer(const struct hnsw *g, const float *q, float iq, int lv,
             size_t ef, struct heap *w, struct heap *c, struct visited *vis,
             take_fn *take, void *arg)
{
    struct cand cur;
    uint32_t *ln, nb, todo[2 * M_MAX];
    size_t i, n;
    float d, bar;

    while (c->n > 0) {
        cur = heap_pop(c);
        bar = w->n > 0 ? w->a[0].d : INFINITY;
        if (cur.d > bar && w->n >= ef)
            break;
        ln = links(g, cur.id, lv);
        n = 0;
        for (i = 1; i <= ln[0]; i++)
            if (visit(vis, ln[i]))
                todo[n++] = ln[i];
        if (n > 0)
            prefetch_row(g, todo[0]);
        for (i = 0; i < n; i++) {
            nb = todo[i];
            if (i + 1 < n)
                prefetch_row(g, todo[i + 1]);
            d = dist_q(g, q, iq, nb);
            vis->count++;
            bar = w->n > 0 ? w->a[0].d : INFINITY;
            if (w->n < ef || d < bar) {
                heap_push(c, d, nb);
                if (take == NULL || take(g, nb, arg)) {
                    heap_push(w, d, nb);
                    if (w->n > ef)
                        heap_pop(w);
                }
            }
        }
    }
}

/* The nearest node to q on layer lv, walking greedily from *best. */
static void
greedy(const struct hnsw *g, const float *q, float iq, int lv,
       uint32_t *best, float *bd, size_t *count)
{
    bool moved = true;
    uint32_t *ln;
    size_t i;
    float d;

    while (moved) {
        moved = false;
        ln = links(g, *best, lv);
        for (i = 1; i <= ln[0]; i++) {
            d = dist_q(g, q, iq, ln[i]);
            (*count)++;
            if (d < *bd) {
                *bd = d;
                *best = ln[i];
                moved = true;
            }
        }
    }
}

/* ------------------------------------------------------------------------
 * Insertion
 * ---------------------------------------------------------------------- */

static int
cand_cmp(const void *a, const void *b)
{
    const struct cand *x = a, *y = b;

    if (x->d != y->d)
        return x->d < y->d ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

/* The neighbour heuristic (the paper's algorithm 4): of cands (sorted
 * nearest first), keep one only when it is nearer to the new node than to
 * every neighbour kept so far, up to max. The ones it drops are not
 * brought back to fill the list (the paper's keepPrunedConnections, off
 * as in hnswlib): a full list would be pruned again on the next link,
 * and bench/vector.c measured the build 1.3 times slower with them for
 * the same recall. Returns how many of cands' first entries now hold the
 * choice. */
static size_t
select_neighbours(const struct hnsw *g, struct cand *cands, size_t n,
                  size_t max)
{
    struct cand *keep = xmalloc((n ? n : 1) * sizeof(*keep));
    size_t nk = 0, i, j;
    bool good;

    for (i = 0; i < n && nk < max; i++) {
        good = true;
        for (j = 0; j < nk && good; j++)
            if (vec_dist(g->rows.metric, row(g, cands[i].id),
                         row_inv(g, cands[i].id), row(g, keep[j].id),
                         row_inv(g, keep[j].id), g->rows.dim) < cands[i].d)
                good = false;
        if (good)
            keep[nk++] = cands[i];
    }
    memcpy(cands, keep, nk * sizeof(*cands));
    free(keep);
    return nk;
}

/* Link from -> to on layer lv; when from's list is full, re-choose its
 * neighbours among the old ones and the new one. */
static void
link_to(struct hnsw *g, uint32_t from, uint32_t to, int lv)
{
    uint32_t *ln = links(g, from, lv);
    unsigned max = lv == 0 ? g->m0 : g->m;
    struct cand c[2 * M_MAX + 1];
    const float *v = row(g, from);
    float iv = row_inv(g, from);
    size_t i, n;

    if (ln[0] < max) {
        ln[++ln[0]] = to;
        return;
    }
    n = 0;
    for (i = 1; i <= ln[0]; i++) {
        c[n].id = ln[i];
        c[n++].d = vec_dist(g->rows.metric, v, iv, row(g, ln[i]),
                            row_inv(g, ln[i]), g->rows.dim);
    }
    c[n].id = to;
    c[n++].d = vec_dist(g->rows.metric, v, iv, row(g, to), row_inv(g, to),
                        g->rows.dim);
    /* The heuristic again, not "keep the nearest": that one halves the
     * build time but leaves clusters without links between them
     * (check_hnsw's clustered vectors: recall 0.67 for EUCLIDEAN). */
    qsort(c, n, sizeof(*c), cand_cmp);
    n = select_neighbours(g, c, n, max);
    ln[0] = (uint32_t)n;
    for (i = 0; i < n; i++)
        ln[i + 1] = c[i].id;
}

static void
grow(struct hnsw *g)
{
    size_t cap = g->cap ? g->cap * 2 : 64;

    g->slot = xrealloc(g->slot, cap * sizeof(*g->slot));
    g->level = xrealloc(g->level, cap);
    g->dead = xrealloc(g->dead, cap);
    g->up = xrealloc(g->up, cap * sizeof(*g->up));
    g->l0 = xrealloc(g->l0, cap * (g->m0 + 1) * sizeof(*g->l0));
    g->cap = cap;
}

uint32_t
hnsw_add(struct hnsw *g, uint32_t slot)
{
    uint32_t node, ep;
    struct heap w, c;
    struct visited vis;
    struct cand *found;
    const float *q;
    float iq, d;
    size_t i, n, nsel;
    int lv, l;

    if (g->n == g->cap)
        grow(g);
    node = (uint32_t)g->n++;
    lv = draw_level(g);
    g->slot[node] = slot;
    g->level[node] = (uint8_t)lv;
    g->dead[node] = 0;
    g->l0[(size_t)node * (g->m0 + 1)] = 0;
    g->up[node] = NULL;
    if (lv > 0) {
        g->up[node] = xmalloc((size_t)lv * (g->m + 1) * sizeof(uint32_t));
        for (l = 1; l <= lv; l++)
            links(g, node, l)[0] = 0;
    }
    if (g->entry < 0) {
        g->entry = node;
        g->top = lv;
        return node;
    }
    q = row(g, node);
    iq = row_inv(g, node);
    ep = (uint32_t)g->entry;
    d = dist_q(g, q, iq, ep);
    vis.count = 0;
    for (l = g->top; l > lv; l--)
        greedy(g, q, iq, l, &ep, &d, &vis.count);
    vis.bits = xcalloc((g->n + 7) / 8, 1);
    heap_init(&w, true, g->efc + 1);
    heap_init(&c, false, g->efc + 1);
    found = xmalloc((g->efc + 1) * sizeof(*found));
    heap_push(&w, d, ep);
    for (l = lv < g->top ? lv : g->top; l >= 0; l--) {
        memset(vis.bits, 0, (g->n + 7) / 8);
        visit(&vis, node);
        c.n = 0;
        for (i = 0; i < w.n; i++) {
            visit(&vis, w.a[i].id);
            heap_push(&c, w.a[i].d, w.a[i].id);
        }
        search_layer(g, q, iq, l, g->efc, &w, &c, &vis, NULL, NULL);
        n = w.n;
        memcpy(found, w.a, n * sizeof(*found));
        qsort(found, n, sizeof(*found), cand_cmp);
        /* m links of its own on every layer, m0 on layer 0 left for
         * the links others make to it (as hnswlib). Choosing m0 here
         * made twice the links to re-choose: bench/vector.c on 20,000 x
         * 256 took 2.2 times the CPU to build, for the same recall per
         * distance a search computes. */
        nsel = select_neighbours(g, found, n, g->m);
        for (i = 0; i < nsel; i++) {
            uint32_t *ln = links(g, node, l);

            ln[++ln[0]] = found[i].id;
            link_to(g, found[i].id, node, l);
        }
    }
    free(found);
    free(vis.bits);
    free(w.a);
    free(c.a);
    if (lv > g->top) {
        g->top = lv;
        g->entry = node;
    }
    return node;
}

/* ------------------------------------------------------------------------
 * Search
 * ---------------------------------------------------------------------- */

struct take_arg {
    hnsw_accept_fn *accept;
    void *arg;
};

static bool
take_live(const struct hnsw *g, uint32_t node, void *arg)
{
    struct take_arg *t = arg;

    if (g->dead[node])
        return false;
    return t->accept == NULL || t->accept(t->arg, g->slot[node]);
}

size_t
hnsw_search(const struct hnsw *g, const float *q, float iq, size_t k,
            size_t ef, hnsw_accept_fn *accept, void *arg,
            struct vec_hit *hits, size_t *visited)
{
    struct take_arg ta = { accept, arg };
    struct vec_topk top;
    struct heap w, c;
    struct visited vis;
    uint32_t ep;
    size_t i, n;
    float d;
    int l;

    if (visited != NULL)
        *visited = 0;
    if (g->entry < 0 || k == 0)
        return 0;
    if (ef < k)
        ef = k;
    ep = (uint32_t)g->entry;
    vis.count = 1;
    d = dist_q(g, q, iq, ep);
    for (l = g->top; l > 0; l--)
        greedy(g, q, iq, l, &ep, &d, &vis.count);
    vis.bits = xcalloc((g->n + 7) / 8, 1);
    heap_init(&w, true, ef + 1);
    heap_init(&c, false, ef + 1);
    visit(&vis, ep);
    heap_push(&c, d, ep);
    if (take_live(g, ep, &ta))
        heap_push(&w, d, ep);
    search_layer(g, q, iq, 0, ef, &w, &c, &vis, take_live, &ta);
    vec_topk_init(&top, k);
    for (i = 0; i < w.n; i++)
        vec_topk_offer(&top, g->slot[w.a[i].id], w.a[i].d);
    n = vec_topk_take(&top, hits);
    vec_topk_fini(&top);
    if (visited != NULL)
        *visited = vis.count;
    free(vis.bits);
    free(w.a);
    free(c.a);
    return n;
}
