/* SPDX-License-Identifier: MIT */
/* table.c - open tables: refcounted handles kept in a map sorted by name,
 * each with its partition layout (partmap.c, partition.c). stable_* route
 * item requests to the partition owning the key's hash and retry when a
 * split (also here) replaced it; create, delete and the description's
 * persistence are the catalog's (catalog.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


#include "storage/storage_int.h"
#include "storage/util.h"

/* ------------------------------------------------------------------------
 * Layouts and table handles
 * ---------------------------------------------------------------------- */

/* Free l; its partitions are not closed (see playout_close_parts). */
void
playout_free(struct playout *l)
{
    if (l == NULL)
        return;
    free(l->parts);
    free(l->files);
    partmap_fini(&l->map);
    free(l);
}

void
playout_close_parts(struct playout *l)
{
    for (unsigned i = 0; l != NULL && i < l->map.n; i++) {
        partition_close(l->parts[i]);
        l->parts[i] = NULL;
    }
}

struct playout *
playout_new(struct partmap *map)
{
    struct playout *l = xcalloc(1, sizeof(*l));

    l->map = *map;
    l->parts = xcalloc(map->n, sizeof(*l->parts));
    l->files = xcalloc(map->n, sizeof(*l->files));
    return l;
}

int
playout_open(struct storage *s, struct playout *l, const char *dir,
             struct ddb_err *err)
{
    for (unsigned i = 0; i < l->map.n; i++) {
        char *path = dir ? storage_part_path(dir, l->files[i]) : NULL;

        l->parts[i] = partition_open(s, path, err);
        free(path);
        if (l->parts[i] == NULL)
            return -1;
    }
    return 0;
}

struct stable *
stable_new(struct storage *s, const char *name, const char *id,
           json_t *desc_take, struct playout *layout_take)
{
    struct stable *t = xcalloc(1, sizeof(*t));

    atomic_init(&t->refs, 1);          /* the map's reference */
    atomic_init(&t->deleted, false);
    atomic_init(&t->log_on, false);
    atomic_init(&t->seq, 0);
    t->s = s;
    atomic_init(&t->name, xstrdup(name));
    snprintf(t->id, sizeof(t->id), "%s", id);
    t->dir = s->data_dir ? xasprintf("%s/tables/%s", s->data_dir, id) : NULL;
    pthread_mutex_init(&t->desc_mu, NULL);
    pthread_mutex_init(&t->split_mu, NULL);
    t->keyhash = STORAGE_KEYHASH;       /* cat_load sets a stored one */
    t->desc = desc_take;
    atomic_init(&t->layout, layout_take);
    return t;
}

/* Free t; if it was deleted, remove its files too. */
static void
stable_destroy(struct stable *t)
{
    struct playout *l = playout_of(t);

    playout_close_parts(l);
    playout_free(l);
    for (size_t i = 0; i < t->nold; i++)
        playout_free(t->old_layouts[i]);
    for (size_t i = 0; i < t->nretired; i++)
        partition_close(t->retired[i]);
    free(t->old_layouts);
    free(t->retired);
    pthread_mutex_destroy(&t->split_mu);
    if (atomic_load(&t->deleted) && t->dir != NULL)
        storage_remove_dir(t->dir);
    json_decref(t->desc);
    pthread_mutex_destroy(&t->desc_mu);
    free(atomic_load(&t->name));
    for (size_t i = 0; i < t->nold_names; i++)
        free(t->old_names[i]);
    free(t->old_names);
    free(t->dir);
    free(t);
}

/*
 * Drop one reference to t. The last one closes the partitions and, if the
 * table was deleted, removes its files.
 */
void
stable_release(struct stable *t)
{
    if (t == NULL)
        return;
    if (atomic_fetch_sub(&t->refs, 1) == 1)
        stable_destroy(t);
}

/* ------------------------------------------------------------------------
 * The table map: sorted by name; lookups under a read lock.
 * ---------------------------------------------------------------------- */

long
storage_map_find(struct storage *s, const char *name)
{
    size_t lo = 0, hi = s->ntables;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(stable_name(s->tables[mid]), name);

        if (c == 0)
            return (long)mid;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -(long)lo - 1;
}

void
storage_map_insert(struct storage *s, struct stable *t)
{
    long at = storage_map_find(s, stable_name(t));
    size_t pos = (size_t)(-at - 1);

    if (s->ntables == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 16;
        struct stable **nt = xrealloc(s->tables, cap * sizeof(*nt));

        s->tables = nt;
        s->cap = cap;
    }
    memmove(s->tables + pos + 1, s->tables + pos,
            (s->ntables - pos) * sizeof(*s->tables));
    s->tables[pos] = t;
    s->ntables++;
}

bool
storage_map_remove(struct storage *s, const char *name, struct stable *t)
{
    long at = storage_map_find(s, name);

    if (at < 0 || s->tables[at] != t)
        return false;
    memmove(s->tables + at, s->tables + at + 1,
            (s->ntables - (size_t)at - 1) * sizeof(*s->tables));
    s->ntables--;
    return true;
}

struct stable *
storage_table_by_id(struct storage *s, const char *id)
{
    for (size_t i = 0; i < s->ntables; i++)
        if (strcmp(s->tables[i]->id, id) == 0)
            return s->tables[i];
    return NULL;
}

/*
 * Look a table up by name: a new handle (release with stable_release()),
 * or NULL if there is no such table. On every request's path: a read lock,
 * a binary search and an atomic increment.
 */
struct stable *
storage_table_get(struct storage *s, const char *name)
{
    struct stable *t = NULL;
    long at;

    if (name == NULL)
        return NULL;
    pthread_rwlock_rdlock(&s->map_mu);
    at = storage_map_find(s, name);
    if (at >= 0) {
        t = s->tables[at];
        atomic_fetch_add(&t->refs, 1);
    }
    pthread_rwlock_unlock(&s->map_mu);
    return t;
}

json_t *
storage_table_names(struct storage *s)
{
    json_t *a = json_array();

    pthread_rwlock_rdlock(&s->map_mu);
    for (size_t i = 0; i < s->ntables; i++)
        json_array_append_new(a, json_string(stable_name(s->tables[i])));
    pthread_rwlock_unlock(&s->map_mu);
    return a;
}

/* ------------------------------------------------------------------------
 * Table handles: description, partitions, stats
 * ---------------------------------------------------------------------- */

/*
 * The current description without copying: a new reference (caller
 * decrefs) to an object the store never modifies again (stable_set_desc
 * installs a fresh copy instead), so it is safe to read from any thread.
 * The caller must not modify it. Cheaper than stable_desc() on hot paths.
 */
json_t *
stable_desc_ref(struct stable *t)
{
    json_t *d;

    pthread_mutex_lock(&t->desc_mu);
    d = json_incref(t->desc);
    pthread_mutex_unlock(&t->desc_mu);
    return d;
}

/* A deep copy of the current description (caller frees): copied from
 * stable_desc_ref()'s object, which nothing modifies. */
json_t *
stable_desc(struct stable *t)
{
    json_t *ref = stable_desc_ref(t);
    json_t *d = json_clone(ref);

    json_decref(ref);
    return d;
}

/* The name, borrowed: a rename keeps the old string alive with the
 * handle, so a request may go on using the name it read. */
const char *
stable_name(const struct stable *t)
{
    return atomic_load(&((struct stable *)t)->name);
}

unsigned
stable_nparts(struct stable *t)
{
    return playout_of(t)->map.n;
}

unsigned
stable_part_of(struct stable *t, const uint8_t hash[16])
{
    return partmap_find(&playout_of(t)->map, storage_be64(hash));
}

/* First hash of partition i; UINT64_MAX if i is out of range (the layout
 * may have changed under a caller that read stable_nparts earlier). */
uint64_t
stable_part_start(struct stable *t, unsigned i)
{
    const struct playout *l = playout_of(t);

    return i < l->map.n ? partmap_start(&l->map, i) : UINT64_MAX;
}

int
stable_stats(struct stable *t, uint64_t *count, uint64_t *bytes,
             struct ddb_err *err)
{
    const struct playout *l;
    int rc;

retry:
    l = playout_of(t);
    *count = 0;
    *bytes = 0;
    for (unsigned i = 0; i < l->map.n; i++) {
        rc = partition_stats(l->parts[i], count, bytes, err);
        if (rc == PART_RETIRED)
            goto retry;
        if (rc != 0)
            return -1;
    }
    return 0;
}

/* Live count and bytes of partition i alone (e.g. to decide a size split).
 * -1 with err set if i is out of range. */
int
stable_part_stats(struct stable *t, unsigned i, uint64_t *count,
                  uint64_t *bytes, struct ddb_err *err)
{
    const struct playout *l;
    int rc;

    do {
        l = playout_of(t);
        if (i >= l->map.n)
            return ddb_err_set(err, DDB_INTERNAL,
                               "storage: no partition %u", i);
        *count = 0;
        *bytes = 0;
        rc = partition_stats(l->parts[i], count, bytes, err);
    } while (rc == PART_RETIRED);
    return rc;
}

/* ------------------------------------------------------------------------
 * Items. Each call looks its partition up in the current layout and, if a
 * split retired that partition meanwhile (PART_RETIRED), looks again.
 * ---------------------------------------------------------------------- */

struct partition *
stable_partition(struct stable *t, const uint8_t hash[16])
{
    const struct playout *l = playout_of(t);

    return l->parts[partmap_find(&l->map, storage_be64(hash))];
}

bool
stable_key_checkpointing(struct stable *t, const struct item_key *k)
{
    return partition_checkpointing(stable_partition(t, k->hash));
}

int
stable_get(struct stable *t, const struct item_key *k, json_t **item,
           struct ddb_err *err)
{
    int rc;

    do
        rc = partition_get(stable_partition(t, k->hash), k, item, err);
    while (rc == PART_RETIRED);
    return rc;
}

int
stable_get_text(struct stable *t, const struct item_key *k, char **text,
                size_t *len, size_t *size, struct ddb_err *err)
{
    int rc;

    do
        rc = partition_get_text(stable_partition(t, k->hash), k, text, len,
                                size, err);
    while (rc == PART_RETIRED);
    return rc;
}

int
stable_size_of(struct stable *t, const struct item_key *k, size_t *size,
               struct ddb_err *err)
{
    int rc;

    do
        rc = partition_size_of(stable_partition(t, k->hash), k, size, err);
    while (rc == PART_RETIRED);
    return rc;
}

/* Writes are refused while the disk is full (space.c); a write that
 * finds it full enters that state. */
static int
mutate(struct stable *t, const struct item_key *k, enum storage_origin origin,
       bool blind, stable_mutate_fn *fn, void *arg, struct ddb_err *err)
{
    struct plog l;
    const struct plog *log = changelog_plog(t, origin, &l);
    int rc;

    if (space_admit(t->s, err) != 0)
        return -1;
    do
        rc = partition_mutate(stable_partition(t, k->hash), k, log, blind,
                              fn, arg, err);
    while (rc == PART_RETIRED);
    if (rc != 0)
        space_note(t->s, err);
    return rc;
}

int
stable_mutate_as(struct stable *t, const struct item_key *k,
                 enum storage_origin origin, stable_mutate_fn *fn, void *arg,
                 struct ddb_err *err)
{
    return mutate(t, k, origin, false, fn, arg, err);
}

int
stable_mutate(struct stable *t, const struct item_key *k,
              stable_mutate_fn *fn, void *arg, struct ddb_err *err)
{
    return mutate(t, k, STORAGE_ORIGIN_REQUEST, false, fn, arg, err);
}

int
stable_mutate_blind(struct stable *t, const struct item_key *k,
                    stable_mutate_fn *fn, void *arg, struct ddb_err *err)
{
    return mutate(t, k, STORAGE_ORIGIN_REQUEST, true, fn, arg, err);
}

/* A bound buffer: one more byte than a key, for "key + 0x00". */
struct bound {
    uint8_t b[KEY_BYTES_MAX + 1];
    size_t len;
    bool set;
};

/* Set bound to v (+ a 0x00 byte when succ, the smallest string above v),
 * if that is tighter: larger for a lower bound, smaller for an upper. */
static void
bound_tighten(struct bound *bd, bool lower, const uint8_t *v, size_t len,
              bool succ)
{
    uint8_t tmp[KEY_BYTES_MAX + 1];
    size_t tl;
    int c;

    if (len > KEY_BYTES_MAX)
        len = KEY_BYTES_MAX;
    if (len > 0)
        memcpy(tmp, v, len);
    tl = len;
    if (succ)
        tmp[tl++] = 0;
    if (bd->set) {
        c = bytes_cmp(tmp, tl, bd->b, bd->len);
        if (lower ? c <= 0 : c >= 0)
            return;
    }
    memcpy(bd->b, tmp, tl);
    bd->len = tl;
    bd->set = true;
}

/*
 * Visit one partition key's items in sort-key order. Every restriction is
 * turned into one half-open range lo <= sk < hi: an exclusive lower bound v
 * becomes v+0x00, an inclusive upper bound v becomes v+0x00, begins_with p
 * becomes [p, p with its last non-0xFF byte incremented), and the
 * exclusive start key tightens the bound on the side we start from.
 */
int
stable_query_rows(struct stable *t, const uint8_t hash[16],
                  const uint8_t *pk, size_t pk_len,
                  const struct sk_range *r, bool forward,
                  const uint8_t *start, size_t start_len,
                  const struct stable_rows *rows, struct ddb_err *err)
{
    struct bound *lo = xcalloc(2, sizeof(*lo)), *hi;
    int rc = -1;

    hi = lo + 1;
    if (pk_len > KEY_BYTES_MAX) {
        ddb_err_set(err, DDB_INTERNAL, "storage: key too long");
        goto out;
    }
    lo->set = true;                     /* empty: below every key */
    if (r != NULL) {
        if (r->lo != NULL)
            bound_tighten(lo, true, r->lo, r->lo_len, !r->lo_incl);
        if (r->hi != NULL)
            bound_tighten(hi, false, r->hi, r->hi_len, r->hi_incl);
        if (r->prefix != NULL && r->prefix_len > 0) {
            uint8_t succ[KEY_BYTES_MAX];
            size_t sl = r->prefix_len > KEY_BYTES_MAX ? KEY_BYTES_MAX
                                                      : r->prefix_len;

            bound_tighten(lo, true, r->prefix, sl, false);
            memcpy(succ, r->prefix, sl);
            while (sl > 0 && succ[sl - 1] == 0xFF)
                sl--;
            if (sl > 0) {               /* else: no upper bound */
                succ[sl - 1]++;
                bound_tighten(hi, false, succ, sl, false);
            }
        }
    }
    if (start != NULL) {
        if (forward)
            bound_tighten(lo, true, start, start_len, true);
        else
            bound_tighten(hi, false, start, start_len, false);
    }
    if (hi->set && bytes_cmp(lo->b, lo->len, hi->b, hi->len) >= 0) {
        rc = 0;                         /* empty range */
        goto out;
    }
    do
        rc = partition_query(stable_partition(t, hash), hash, pk, pk_len,
                             lo->b, lo->len, hi->set ? hi->b : NULL,
                             hi->len, forward, rows, err);
    while (rc == PART_RETIRED);
    if (rc > 0)
        rc = 0;
out:
    free(lo);
    return rc;
}

int
stable_query(struct stable *t, const uint8_t hash[16], const uint8_t *pk,
             size_t pk_len, const struct sk_range *r, bool forward,
             const uint8_t *start, size_t start_len,
             stable_row_fn *fn, void *arg, struct ddb_err *err)
{
    const struct stable_rows rows = { fn, NULL, arg };

    return stable_query_rows(t, hash, pk, pk_len, r, forward, start,
                             start_len, &rows, err);
}

/*
 * Visit items with top-64 hash in [lo, hi] in (h, pk, sk) order, after
 * start (exclusive) if given, partition by partition in ring order. The
 * walk is by ring position, so a split during the scan only makes it look
 * the partition up again.
 */
int
stable_scan_rows(struct stable *t, uint64_t lo, uint64_t hi,
                 const struct item_key *start,
                 const struct stable_rows *rows, struct ddb_err *err)
{
    uint64_t pos = lo, sh = 0;

    if (lo > hi)
        return 0;
    if (start != NULL) {
        sh = storage_be64(start->hash);
        if (sh > hi)
            return 0;
        if (sh < lo)
            start = NULL;               /* every row in range is after it */
        else
            pos = sh;
    }
    for (;;) {
        const struct playout *l = playout_of(t);
        unsigned i = partmap_find(&l->map, pos);
        uint64_t end = partmap_end(&l->map, i);
        int rc;

        if (end > hi)
            end = hi;
        rc = partition_scan(l->parts[i], pos,
                            end == UINT64_MAX ? 0 : end + 1,
                            end == UINT64_MAX,
                            start != NULL && sh <= end ? start : NULL, rows,
                            err);
        if (rc == PART_RETIRED)
            continue;
        if (rc < 0)
            return -1;
        if (rc > 0 || end >= hi)
            return 0;
        pos = end + 1;
        start = NULL;                   /* rows from here on are after it */
    }
}

int
stable_scan(struct stable *t, uint64_t lo, uint64_t hi,
            const struct item_key *start,
            stable_row_fn *fn, void *arg, struct ddb_err *err)
{
    const struct stable_rows rows = { fn, NULL, arg };

    return stable_scan_rows(t, lo, hi, start, &rows, err);
}

/* ------------------------------------------------------------------------
 * Splits
 * ---------------------------------------------------------------------- */

int
stable_split(struct stable *t, unsigned i, struct ddb_err *err)
{
    return stable_split_at(t, i, 0, err);
}

int
stable_split_at(struct stable *t, unsigned i, uint64_t at,
                struct ddb_err *err)
{
    struct playout *old, *nl = NULL;
    struct partition *parent = NULL, *a = NULL, *b = NULL;
    struct partmap map;
    uint64_t *starts, lo, hi, mid;
    char *path;
    bool locked = false;
    int rc = -1;

    if (space_admit(t->s, err) != 0)     /* two new files to fill */
        return -1;
    pthread_mutex_lock(&t->split_mu);
    old = playout_of(t);
    if (atomic_load(&t->deleted)) {
        ddb_err_set(err, DDB_INTERNAL, "storage: split of a deleted table");
        goto out;
    }
    if (i >= old->map.n) {
        ddb_err_set(err, DDB_INTERNAL, "storage: no partition %u", i);
        goto out;
    }
    lo = partmap_start(&old->map, i);
    hi = partmap_end(&old->map, i);
    if (hi == lo) {
        ddb_err_set(err, DDB_INTERNAL, "storage: partition %u is too small "
                                       "to split", i);
        goto out;
    }
    mid = lo + (hi - lo) / 2 + 1;       /* a: [lo, mid), b: [mid, hi] */
    if (at != 0) {
        if (at <= lo || at > hi) {
            ddb_err_set(err, DDB_INTERNAL, "storage: split point outside "
                                           "partition %u", i);
            goto out;
        }
        mid = at;
    }

    /* the new layout: old with entry i replaced by two */
    starts = xmalloc((old->map.n + 1) * sizeof(*starts));
    memcpy(starts, old->map.starts, (i + 1) * sizeof(*starts));
    starts[i + 1] = mid;
    memcpy(starts + i + 2, old->map.starts + i + 1,
           (old->map.n - i - 1) * sizeof(*starts));
    partmap_init_take(&map, starts, old->map.n + 1);
    nl = playout_new(&map);
    for (unsigned j = 0, k = 0; j < old->map.n; j++) {
        if (j == i) {
            storage_new_id(nl->files[k]);
            storage_new_id(nl->files[k + 1]);
            k += 2;
            continue;
        }
        nl->parts[k] = old->parts[j];
        memcpy(nl->files[k], old->files[j], sizeof(nl->files[k]));
        k++;
    }
    path = t->dir ? storage_part_path(t->dir, nl->files[i]) : NULL;
    a = partition_open(t->s, path, err);
    free(path);
    if (a == NULL)
        goto out;
    path = t->dir ? storage_part_path(t->dir, nl->files[i + 1]) : NULL;
    b = partition_open(t->s, path, err);
    free(path);
    if (b == NULL)
        goto out;

    /* copy with the parent locked: its requests wait, then retry */
    parent = old->parts[i];
    partition_lock(parent);
    locked = true;
    if (partition_split_copy_locked(parent, mid, a, b, err) != 0)
        goto out;
    storage_sync_dir(t->s, t->dir);     /* the new names, before the
                                           catalog points at them */
    if (changelog_split(t, old, nl, i, err) != 0)
        goto out;
    rc = 0;

    /* committed: publish, retire the parent, drop its files */
    nl->parts[i] = a;
    nl->parts[i + 1] = b;
    a = b = NULL;
    atomic_store_explicit(&t->layout, nl, memory_order_release);
    nl = NULL;
    t->old_layouts = xrealloc(t->old_layouts,
                              (t->nold + 1) * sizeof(*t->old_layouts));
    t->retired = xrealloc(t->retired,
                          (t->nretired + 1) * sizeof(*t->retired));
    t->old_layouts[t->nold++] = old;
    t->retired[t->nretired++] = parent;
    partition_retire_locked(parent);
    if (partition_path(parent) != NULL)
        partition_unlink_files(partition_path(parent));
out:
    if (locked)
        partition_unlock(parent);
    if (nl != NULL) {                   /* failed: drop the new files */
        const char *pa = a ? partition_path(a) : NULL;
        const char *pb = b ? partition_path(b) : NULL;
        char *fa = pa ? xstrdup(pa) : NULL, *fb = pb ? xstrdup(pb) : NULL;

        partition_close(a);
        partition_close(b);
        if (fa != NULL)
            partition_unlink_files(fa);
        if (fb != NULL)
            partition_unlink_files(fb);
        free(fa);
        free(fb);
        playout_free(nl);
    }
    pthread_mutex_unlock(&t->split_mu);
    if (rc != 0)
        space_note(t->s, err);
    return rc;
}

/* ------------------------------------------------------------------------
 * Re-placing rows by DynamoDB's key hash (data written by older versions)
 * ---------------------------------------------------------------------- */

bool
stable_needs_rehash(struct stable *t)
{
    bool r;

    pthread_mutex_lock(&t->split_mu);
    r = t->keyhash < STORAGE_KEYHASH;
    pthread_mutex_unlock(&t->split_mu);
    return r;
}

/*
 * Crash-safe as a split is: new partition files on the same ring get every
 * row, each placed by key_pk_hash of its partition key, and are made
 * durable; then one catalog transaction names them and records the key
 * hash; then the layout is swapped and the old files go. A crash before
 * the commit leaves the old files and key hash (the new files are swept
 * at the next open and the rehash runs again); after it, the new ones.
 */
int
stable_rehash(struct stable *t, char pk_type, struct ddb_err *err)
{
    struct playout *old, *nl = NULL;
    struct partmap map;
    uint64_t *starts;
    unsigned n, locked = 0;
    int rc = -1;

    pthread_mutex_lock(&t->split_mu);
    old = playout_of(t);
    if (t->keyhash >= STORAGE_KEYHASH) {
        rc = 0;
        goto out;
    }
    if (atomic_load(&t->deleted)) {
        ddb_err_set(err, DDB_INTERNAL, "storage: rehash of a deleted table");
        goto out;
    }
    n = old->map.n;
    starts = xmalloc(n * sizeof(*starts));
    memcpy(starts, old->map.starts, n * sizeof(*starts));
    partmap_init_take(&map, starts, n);
    nl = playout_new(&map);
    for (unsigned i = 0; i < n; i++)
        storage_new_id(nl->files[i]);
    if (playout_open(t->s, nl, t->dir, err) != 0)
        goto out;
    for (; locked < n; locked++)
        partition_lock(old->parts[locked]);
    if (partition_rehash_copy_locked(old->parts, n, pk_type, nl, err) != 0 ||
        catalog_set_rehashed(t->s, t->id, old, nl, STORAGE_KEYHASH,
                             err) != 0)
        goto out;
    rc = 0;

    /* committed: publish, retire the old partitions, drop their files */
    atomic_store_explicit(&t->layout, nl, memory_order_release);
    nl = NULL;
    t->keyhash = STORAGE_KEYHASH;
    t->old_layouts = xrealloc(t->old_layouts,
                              (t->nold + 1) * sizeof(*t->old_layouts));
    t->old_layouts[t->nold++] = old;
    t->retired = xrealloc(t->retired,
                          (t->nretired + n) * sizeof(*t->retired));
    for (unsigned i = 0; i < n; i++) {
        struct partition *p = old->parts[i];

        t->retired[t->nretired++] = p;
        partition_retire_locked(p);
        if (partition_path(p) != NULL)
            partition_unlink_files(partition_path(p));
    }
out:
    while (locked > 0)
        partition_unlock(old->parts[--locked]);
    if (nl != NULL) {                   /* failed: drop the new files */
        for (unsigned i = 0; i < nl->map.n; i++) {
            char *f = nl->parts[i] != NULL && partition_path(nl->parts[i])
                          ? xstrdup(partition_path(nl->parts[i]))
                          : NULL;

            partition_close(nl->parts[i]);
            nl->parts[i] = NULL;
            if (f != NULL)
                partition_unlink_files(f);
            free(f);
        }
        playout_free(nl);
    }
    pthread_mutex_unlock(&t->split_mu);
    return rc;
}
