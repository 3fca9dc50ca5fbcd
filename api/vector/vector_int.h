/* SPDX-License-Identifier: MIT */
/* vector_int.h - shared inside api/vector/ and nothing outside includes
 * it: 32-bit float numbers and distances (f32.c), the approximate
 * nearest-neighbour graph (hnsw.c), and the in-memory index a table's
 * vector indexes live in (store.c), which write.c and search.c use. */
#ifndef SHARDLOCAL_VECTOR_INT_H
#define SHARDLOCAL_VECTOR_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#include "api/vector/vector.h"

/* ------------------------------------------------------------------------
 * 32-bit floats and distances (f32.c)
 * ---------------------------------------------------------------------- */

/* A DynamoDB number (its text) as the nearest 32-bit float: 0, or -1 when
 * it is not a number or lies beyond the float range (an infinity). */
int f32_parse(const char *text, float *out);
/*
 * The shortest decimal text naming f exactly as a float, as the index
 * hands its copy back (eu-west-2, 2026-08: '1' comes back as "1.0", 0.1f
 * as "0.1", 16777217 as "16777216.0"; nubo-db/dynamodb-conformance
 * vectorSearch/search.test.ts): positional with ".0" for whole numbers
 * from 1e-4 up to 1e16, exponent form ("1e-7", "2.5e20") outside that.
 * out has F32_TEXT_MAX bytes.
 */
#define F32_TEXT_MAX 32
void f32_format(float f, char *out);

/* The length's reciprocal of v (0 for a zero vector): what COSINE scales
 * dot products by. */
float vec_inv_norm(const float *v, size_t dim);
/*
 * How far b is from a for metric m, smaller being closer (the graph and
 * every ranking use it): COSINE 1 - cos (ia, ib: inverse lengths),
 * EUCLIDEAN the squared distance, DOT_PRODUCT the negated product.
 */
float vec_dist(enum vec_metric m, const float *a, float ia, const float *b,
               float ib, size_t dim);
/* The Score DynamoDB reports, from the same two vectors, computed in
 * double and rounded through a float (the index's precision): COSINE
 * 1 - cos in [0, 2], EUCLIDEAN the distance, DOT_PRODUCT the product. */
double vec_score(enum vec_metric m, const float *a, const float *b,
                 size_t dim);

/* ------------------------------------------------------------------------
 * The graph (hnsw.c): Hierarchical Navigable Small World (Malkov and
 * Yashunin, 2016) over rows of a matrix the caller owns and may grow
 * between calls. Nodes are numbered from 0 in insertion order; each names
 * the caller's row (slot) holding its vector. A removed node stays in the
 * graph as a waypoint and is never returned.
 * ---------------------------------------------------------------------- */

/* The rows a graph reads, through pointers to the caller's own (so they
 * may be reallocated between calls). */
struct vec_rows {
    float *const *vec;              /* *vec: rows of dim floats */
    float *const *inv;              /* *inv: their inverse lengths */
    size_t dim;
    enum vec_metric metric;
};

struct hnsw;

/* Build parameters: M links per node (2M on the bottom layer) and the
 * candidate list of insertion; seed makes the level draws repeatable. */
#define HNSW_M      16
#define HNSW_EFC    100
struct hnsw *hnsw_new(const struct vec_rows *rows, unsigned m, unsigned efc,
                      uint64_t seed);
void hnsw_free(struct hnsw *g);
/* Nodes (removed ones included) and removed nodes. */
size_t hnsw_size(const struct hnsw *g);
size_t hnsw_removed(const struct hnsw *g);
/* Insert the vector in row slot; returns its node. */
uint32_t hnsw_add(struct hnsw *g, uint32_t slot);
/* Take node out of results (it still routes searches). */
void hnsw_remove(struct hnsw *g, uint32_t node);
/* The bytes the graph holds (the vectors are the caller's). */
size_t hnsw_bytes(const struct hnsw *g);

/* Whether a node's row may be returned (inline filters); NULL: all. */
typedef bool hnsw_accept_fn(void *arg, uint32_t slot);

/* One hit: the row and its distance (vec_dist). */
struct vec_hit {
    uint32_t slot;
    float dist;
};

/*
 * The k rows nearest q (iq: its inverse length) among the live nodes that
 * accept() takes, best first, searching with a candidate list of ef (at
 * least k). Returns how many were found (<= k) into hits; *visited
 * (may be NULL) receives how many distances were computed.
 */
size_t hnsw_search(const struct hnsw *g, const float *q, float iq, size_t k,
                   size_t ef, hnsw_accept_fn *accept, void *arg,
                   struct vec_hit *hits, size_t *visited);

/* The candidate list a graph search of the k best in a graph of nodes
 * nodes uses (search.c): what the server searches with, and
 * bench/vector.c measures. */
size_t vector_search_ef(size_t k, size_t nodes);

/* ------------------------------------------------------------------------
 * Top-k selection shared by exact and graph search (f32.c): a bounded
 * max-heap of hits by distance, ties broken by slot.
 * ---------------------------------------------------------------------- */

struct vec_topk {
    size_t k, n;
    struct vec_hit *h;              /* k entries, heap order */
};
void vec_topk_init(struct vec_topk *t, size_t k);
void vec_topk_fini(struct vec_topk *t);
/* Offer a hit; kept when among the k best so far. */
void vec_topk_offer(struct vec_topk *t, uint32_t slot, float dist);
/* The worst distance kept (the bar to beat), +inf while not full. */
float vec_topk_bar(const struct vec_topk *t);
/* Sort the kept hits best first into out (t->n entries); t is emptied. */
size_t vec_topk_take(struct vec_topk *t, struct vec_hit *out);

/* ------------------------------------------------------------------------
 * The in-memory index (store.c). A table's vector indexes hang off one
 * struct vector_table, read-locked by searches and write-locked by
 * writes, loads and the graph builder. An index is split into shards,
 * one per value of its SearchSchema HASH attribute (one in all without
 * one): DynamoDB partitions the index by it, and every search names one.
 * A shard keeps its rows in insertion order; a removed row stays dead
 * until the shard is compacted.
 * ---------------------------------------------------------------------- */

/* A hash map from byte strings (borrowed: they live in the entries and
 * shards they name) to a number. */
struct bmap_slot {
    uint64_t h;
    const uint8_t *k;               /* NULL: empty */
    uint32_t len;
    uint64_t v;
};
struct bmap {
    size_t cap, n;
    struct bmap_slot *s;
};

/* One row: an item in an index. */
struct ventry {
    uint8_t *key;                   /* owned: the item's partition key
                                       bytes, then its sort key bytes */
    uint16_t pklen, sklen;
    uint8_t *fv;                    /* owned: the SearchSchema values
                                       (vector_fv_*), NULL when none */
    uint32_t fvlen;
    uint32_t size;                  /* bytes it adds to IndexSizeBytes */
    uint32_t node;                  /* its graph node, or NO_NODE */
    bool alive;
};
#define NO_NODE UINT32_MAX

struct vshard {
    uint8_t *hv;                    /* owned: the HASH value's encoding
                                       (vector_value_encode), or NULL */
    size_t hvlen;
    size_t n, cap, live;            /* rows; live ones */
    float *vec;                     /* cap rows of dims floats */
    float *inv;                     /* their inverse lengths */
    struct ventry *e;               /* cap rows */
    struct hnsw *g;                 /* the graph, or NULL */
    struct vec_rows rows;           /* g's view of vec and inv */
    size_t graphed;                 /* rows [0, graphed) were offered to g */
};

struct vindex {
    struct vector_def def;
    struct vshard **sh;             /* owned shards */
    size_t nsh, capsh;
    struct bmap by_hv;              /* HASH value -> shard */
    struct bmap by_key;             /* item key -> shard << 32 | row */
    uint64_t count, bytes;          /* live rows and their sizes */
};

struct vector_table {
    struct vector_table *next;      /* the registry's list */
    struct vector_registry *reg;
    char id[64];                    /* TableId */
    char name[1100];                /* the table's name */
    int refs;                       /* under the registry's mutex */
    pthread_rwlock_t lock;          /* the indexes below */
    json_t *seen;                   /* the description last brought in */
    size_t n;
    struct vindex *idx[VECTOR_INDEX_MAX + 1];
};

/* The values a row is filtered on: each SearchSchema attribute as
 * [present][type][length (2 bytes)][key encoding]. The encoding of one
 * value (type byte first) into out (1 + KEY_BYTES_MAX bytes): its
 * length, or -1 when av is not of type (or not encodable). */
long vector_value_encode(const json_t *av, char type, uint8_t *out);
/* Whether row e's SearchSchema attribute at is the encoded value v. */
bool vector_fv_match(const struct ventry *e, size_t at, const uint8_t *v,
                     size_t len);
/* The shard of x for an encoded HASH value (NULL, 0 without HASH), or
 * NULL. */
struct vshard *vindex_shard(const struct vindex *x, const uint8_t *hv,
                            size_t hvlen);
/* The index of vt named name, or NULL (the caller holds vt's lock). */
struct vindex *vtable_index(const struct vector_table *vt, const char *name);
/* Bring vt in line with the item under key k of table t as it is stored
 * now (write.c, after a write committed). */
void vector_table_sync(struct vector_table *vt, struct stable *t,
                       const struct item_key *k);
/* The largest shard searched exactly. */
unsigned vector_exact_max(const struct vector_table *vt);

/* ------------------------------------------------------------------------
 * An item against an index (write.c)
 * ---------------------------------------------------------------------- */

/*
 * The vector of item for d into out (d->dims floats): 1, 0 when item has
 * no such attribute, -1 when it is no vector d takes (not a list of
 * numbers that fit a float, or the wrong length; err, when not NULL,
 * gets DynamoDB's message naming d).
 */
int vector_item_vector(const struct vector_def *d, const json_t *item,
                       float *out, struct ddb_err *err);
/* The bytes item's entry in d weighs: its projection's item size, the
 * vector counted as its name plus 4 bytes per dimension. */
size_t vector_entry_size(const struct vector_def *d, const json_t *item);

#endif
