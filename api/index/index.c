/* SPDX-License-Identifier: MIT */
/* index.c - global and local secondary indexes: index definitions from a
 * table description, index row keys and projections, keeping index rows in
 * step with base-table writes, backfill, and index capacity reporting.
 *
 * Design.
 * - Each index is its own hidden storage table "<table>/index/<index>"
 *   ('/' cannot appear in a table name, so no user table collides; the
 *   ARN-like name also reads well in a data directory listing). It has its
 *   own partitions hashed by MD5 of the INDEX partition key, exactly like a
 *   table, so a GSI is partitioned (and can later be metered) on its own.
 *   An LSI shares the table's partition key, so its rows hash like the
 *   base items.
 * - An index row's storage key: pk = the index partition key's encoding;
 *   sk = a composite of the index sort key (if any), the base partition
 *   key and the base sort key (if any). Each component is escaped (0x00 ->
 *   0x00 0xFF) and terminated by 0x00 0x00, so memcmp order sorts by the
 *   index sort key first and breaks ties by the base key, and two items
 *   with the same index key never collide. A composite longer than
 *   KEY_BYTES_MAX (only with near-maximal binary keys) keeps its first
 *   KEY_BYTES_MAX - 16 bytes followed by the MD5 of the whole composite:
 *   still unique, ordered by that prefix.
 * - The stored row is the projected item (ALL: the item; KEYS_ONLY: base
 *   and index keys; INCLUDE: those plus NonKeyAttributes). An item lacking
 *   an index key attribute is absent from the index (sparse index); a key
 *   attribute of the wrong type or empty is a ValidationException, as in
 *   DynamoDB.
 * - Writes: the old item is only known under the partition lock, but the
 *   index rows to touch depend on it, and stable_txn() needs every key up
 *   front. index_mutate() therefore reads the item, runs the caller's
 *   stable_mutate function on it to get the new item, plans the index ops,
 *   and runs one stable_txn() whose base op first checks that the item is
 *   still the one it read; if not, nothing was written and it starts over
 *   (optimistic concurrency). Every committed write thus moves the base
 *   row and all its index rows together, atomically. Tables without
 *   indexes never come here: they keep the plain stable_mutate() path.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/proto/capacity.h"
#include "api/index/index.h"
#include "storage/util.h"

#define HIDDEN_SEP      "/index/"
#define MUTATE_RETRIES  10000
#define BACKFILL_CHUNK  256u

/* ------------------------------------------------------------------------
 * Names and definitions
 * ---------------------------------------------------------------------- */

/* The members of a table description that list its indexes, GSIs
 * first. */
static const char *const index_lists[2] = { "GlobalSecondaryIndexes",
                                            "LocalSecondaryIndexes" };

bool
index_desc_has(const json_t *desc)
{
    for (size_t i = 0; i < 2; i++)
        if (json_array_size(json_object_get(desc, index_lists[i])) > 0)
            return true;
    return false;
}

const json_t *
index_desc_gsi(const json_t *desc, const char *name)
{
    const json_t *el;
    size_t i;

    json_array_foreach(json_object_get(desc, "GlobalSecondaryIndexes"), i,
                       el) {
        const char *n = json_string_value(json_object_get(el, "IndexName"));

        if (n != NULL && strcmp(n, name) == 0)
            return el;
    }
    return NULL;
}

void
index_table_name(const char *table, const char *index, char *out,
                 size_t outsz)
{
    snprintf(out, outsz, "%s" HIDDEN_SEP "%s", table, index);
}

bool
index_is_hidden_name(const char *name)
{
    return name != NULL && strchr(name, '/') != NULL;
}

/* The AttributeType of attribute name in AttributeDefinitions, or 0. */
static char
def_type(const json_t *defs, const char *name)
{
    const json_t *e;
    const char *t;
    size_t i;

    json_array_foreach(defs, i, e) {
        const char *n = json_string_value(json_object_get(e,
                                                          "AttributeName"));

        if (n == NULL || strcmp(n, name) != 0)
            continue;
        t = json_string_value(json_object_get(e, "AttributeType"));
        return t != NULL ? t[0] : 0;
    }
    return 0;
}

/* Every HASH and RANGE attribute of an index KeySchema into d->hash and
 * d->range, in order. */
static int
keys_parse(const json_t *schema, const json_t *defs, struct index_def *d,
           struct ddb_err *err)
{
    const json_t *e;
    size_t i;

    json_array_foreach(schema, i, e) {
        const char *n = json_string_value(json_object_get(e,
                                                          "AttributeName"));
        const char *kt = json_string_value(json_object_get(e, "KeyType"));
        struct index_key_attr *a;

        if (n == NULL || kt == NULL || strlen(n) >= sizeof(a->name))
            return ddb_err_set(err, DDB_INTERNAL, "malformed key schema");
        if (strcmp(kt, "HASH") == 0 && d->nhash < INDEX_KEY_ATTRS_MAX)
            a = &d->hash[d->nhash++];
        else if (strcmp(kt, "RANGE") == 0 && d->nrange < INDEX_KEY_ATTRS_MAX)
            a = &d->range[d->nrange++];
        else
            return ddb_err_set(err, DDB_INTERNAL, "malformed key schema");
        strcpy(a->name, n);
        a->type = def_type(defs, n);
        if (a->type == 0)
            return ddb_err_set(err, DDB_INTERNAL,
                               "key attribute %s has no definition", n);
    }
    if (d->nhash == 0)
        return ddb_err_set(err, DDB_INTERNAL, "key schema has no HASH key");
    return 0;
}

bool
index_is_multi(const struct index_def *d)
{
    return d->nhash > 1 || d->nrange > 1;
}

/* Parse one index description into d (hidden table not opened yet). */
static int
def_parse(const json_t *idx, const json_t *defs, bool global,
          struct index_def *d, struct ddb_err *err)
{
    json_t *tmp;
    const json_t *proj = json_object_get(idx, "Projection");
    const char *pt = json_string_value(json_object_get(proj,
                                                       "ProjectionType"));
    const char *status = json_string_value(json_object_get(idx,
                                                           "IndexStatus"));
    int rc;

    memset(d, 0, sizeof(*d));
    d->name = json_string_value(json_object_get(idx, "IndexName"));
    if (d->name == NULL)
        return ddb_err_set(err, DDB_INTERNAL, "index without a name");
    d->global = global;
    d->readable = !global || status == NULL ||
                  strcmp(status, "ACTIVE") == 0 ||
                  strcmp(status, "UPDATING") == 0;
    if (keys_parse(json_object_get(idx, "KeySchema"), defs, d, err) != 0)
        return -1;
    /* ks: the first HASH and the first RANGE attribute, as for a
     * one-attribute key. */
    tmp = json_pack("{s:[{s:s, s:s}], s:O}", "KeySchema",
                    "AttributeName", d->hash[0].name, "KeyType", "HASH",
                    "AttributeDefinitions", defs);
    if (tmp != NULL && d->nrange > 0)
        json_array_append_new(json_object_get(tmp, "KeySchema"),
                              json_pack("{s:s, s:s}", "AttributeName",
                                        d->range[0].name, "KeyType",
                                        "RANGE"));
    if (tmp == NULL)
        return ddb_err_set(err, DDB_INTERNAL, "malformed index %s", d->name);
    rc = key_schema_from_desc(tmp, &d->ks, err);
    json_decref(tmp);
    if (rc != 0)
        return -1;
    if (pt != NULL && strcmp(pt, "KEYS_ONLY") == 0)
        d->proj = INDEX_PROJ_KEYS_ONLY;
    else if (pt != NULL && strcmp(pt, "INCLUDE") == 0)
        d->proj = INDEX_PROJ_INCLUDE;
    else
        d->proj = INDEX_PROJ_ALL;
    d->nonkey = json_object_get(proj, "NonKeyAttributes");
    return 0;
}

int
index_set_open(struct storage *st, const json_t *desc, struct index_set *s,
               struct ddb_err *err)
{
    const char *table = json_string_value(json_object_get(desc, "TableName"));
    const json_t *defs = json_object_get(desc, "AttributeDefinitions");
    char hidden[1200];
    size_t i, j;
    const json_t *idx;

    /* not the whole set (64 KB): def_parse() clears each entry it fills,
     * key_schema_from_desc() the base */
    s->n = 0;
    s->desc = json_incref((json_t *)desc);
    if (table == NULL)
        return ddb_err_set(err, DDB_INTERNAL, "description has no name");
    if (key_schema_from_desc(desc, &s->base, err) != 0)
        return -1;
    for (i = 0; i < 2; i++) {
        json_array_foreach(json_object_get(desc, index_lists[i]), j, idx) {
            struct index_def *d;
            const char *status = json_string_value(
                json_object_get(idx, "IndexStatus"));

            if (s->n >= INDEX_MAX)
                break;
            if (status != NULL && strcmp(status, "DELETING") == 0)
                continue;
            d = &s->idx[s->n];
            if (def_parse(idx, defs, i == 0, d, err) != 0)
                return -1;
            index_table_name(table, d->name, hidden, sizeof(hidden));
            d->t = storage_table_get(st, hidden);
            if (d->t == NULL)
                continue;           /* being dropped: not maintained */
            s->n++;
        }
    }
    return 0;
}

void
index_set_close(struct index_set *s)
{
    size_t i;

    for (i = 0; i < s->n; i++)
        if (s->idx[i].t != NULL)
            stable_release(s->idx[i].t);
    s->n = 0;
    json_decref(s->desc);
    s->desc = NULL;
}

const struct index_def *
index_find(const struct index_set *s, const char *name)
{
    size_t i;

    for (i = 0; i < s->n; i++)
        if (strcmp(s->idx[i].name, name) == 0)
            return &s->idx[i];
    return NULL;
}

/* ------------------------------------------------------------------------
 * Row keys
 * ---------------------------------------------------------------------- */

/* Composite sort key under construction (worst case: every component
 * escaped to twice its size). */
struct comp {
    uint8_t b[4 * KEY_BYTES_MAX + 64];
    size_t len;
};

static void
comp_add(struct comp *c, const uint8_t *v, size_t n)
{
    size_t i;

    for (i = 0; i < n && c->len + 4 < sizeof(c->b); i++) {
        c->b[c->len++] = v[i];
        if (v[i] == 0)
            c->b[c->len++] = 0xff;
    }
    c->b[c->len++] = 0;
    c->b[c->len++] = 0;
}

/* Fit the composite into KEY_BYTES_MAX (see the design note). */
static size_t
comp_finish(struct comp *c)
{
    uint8_t md[16];

    if (c->len <= KEY_BYTES_MAX)
        return c->len;
    md5_bytes(c->b, c->len, md);
    memcpy(c->b + KEY_BYTES_MAX - 16, md, 16);
    c->len = KEY_BYTES_MAX;
    return c->len;
}

size_t
index_sk_bound(const uint8_t *v, size_t n, uint8_t tail, uint8_t *out)
{
    struct comp c;

    c.len = 0;
    comp_add(&c, v, n);
    c.b[c.len - 1] = tail;
    if (c.len > KEY_BYTES_MAX)
        c.len = KEY_BYTES_MAX;
    memcpy(out, c.b, c.len);
    return c.len;
}

size_t
index_sk_prefix(const uint8_t *v, size_t n, uint8_t *out)
{
    struct comp c;

    c.len = 0;
    comp_add(&c, v, n);
    c.len -= 2;                     /* no terminator: a prefix */
    if (c.len > KEY_BYTES_MAX)
        c.len = KEY_BYTES_MAX;
    memcpy(out, c.b, c.len);
    return c.len;
}

/* One index key attribute (a partition key one when is_hash): 1 and its
 * encoding in out, 0 if absent, -1 on a wrong type, an empty value or a
 * value over the key size limits. */
static int
idx_attr(const struct index_def *d, const json_t *item, const char *name,
         char type, bool is_hash, uint8_t *out, long *len,
         struct ddb_err *err)
{
    const json_t *av = json_object_get(item, name);
    const char tstr[2] = { type, 0 };
    const char *actual, *s;
    size_t size, max = is_hash ? KEY_HASH_MAX : KEY_RANGE_MAX;

    if (av == NULL)
        return 0;
    if (json_object_get(av, tstr) == NULL) {
        actual = json_object_iter_key(json_object_iter((json_t *)av));
        return ddb_err_set(err, DDB_VALIDATION,
                           "One or more parameter values were invalid: Type "
                           "mismatch for Index Key %s Expected: %c Actual: "
                           "%s IndexName: %s", name, type,
                           actual != NULL ? actual : "NULL", d->name);
    }
    s = json_string_value(json_object_get(av, tstr));
    if (type != 'N' && s != NULL &&
        json_string_length(json_object_get(av, tstr)) == 0)
        return ddb_err_set(err, DDB_VALIDATION,
                           INDEX_EMPTY_KEY_MSG "%s value. IndexName: %s, "
                           "IndexKey: %s",
                           type == 'S' ? "string" : "binary", d->name, name);
    /* An index key value over 2048 bytes (partition) or 1024 (sort):
     * "Size limit exceeded for Index Key componentId Actual Size: 2175
     * bytes Max Size: 2048 bytes IndexName: work-sets-index" (DynamoDB,
     * quoted in wellcomecollection/platform#2285, 2018, and in dynalite
     * issue #35, 2015; the sort key's 1024 assumed to read alike). Numbers
     * are never that long. */
    if (type != 'N' && s != NULL) {
        size = json_string_length(json_object_get(av, tstr));
        if (type == 'B')
            size = item_b64_len(s, size);
        if (size > max)
            return ddb_err_set(err, DDB_VALIDATION,
                               "One or more parameter values were invalid: "
                               "Size limit exceeded for Index Key %s Actual "
                               "Size: %zu bytes Max Size: %zu bytes "
                               "IndexName: %s", name, size, max, d->name);
    }
    *len = key_encode_value(av, out);
    if (*len < 0)
        return ddb_err_set(err, DDB_VALIDATION,
                           "One or more parameter values were invalid: Type "
                           "mismatch for Index Key %s Expected: %c Actual: "
                           "%c IndexName: %s", name, type, type, d->name);
    return 1;
}

/* d's key attributes in KeySchema order, the HASH ones first: names
 * (borrowed from d) and types into the arrays (2 * INDEX_KEY_ATTRS_MAX
 * each), how many are HASH into *nhash. Returns how many in all. A
 * definition without the lists (nhash 0, built from ks alone) has ks's one
 * or two. */
static size_t
key_attrs(const struct index_def *d, const char **names, char *types,
          size_t *nhash)
{
    size_t i, n = 0;

    for (i = 0; i < d->nhash; i++, n++) {
        names[n] = d->hash[i].name;
        types[n] = d->hash[i].type;
    }
    if (d->nhash == 0) {
        names[n] = d->ks.hash_name;
        types[n++] = d->ks.hash_type;
    }
    *nhash = n;
    for (i = 0; i < d->nrange; i++, n++) {
        names[n] = d->range[i].name;
        types[n] = d->range[i].type;
    }
    if (d->nrange == 0 && d->ks.range_type != 0) {
        names[n] = d->ks.range_name;
        types[n++] = d->ks.range_type;
    }
    return n;
}

int
index_row_key(const struct index_def *d, const struct key_schema *base,
              const json_t *item, struct item_key *k, struct ddb_err *err)
{
    uint8_t ipk[KEY_BYTES_MAX], v[KEY_BYTES_MAX];
    const char *bnames[2] = { base->hash_name, base->range_name };
    const char *names[2 * INDEX_KEY_ATTRS_MAX];
    char types[2 * INDEX_KEY_ATTRS_MAX];
    struct comp *c = NULL, *pc = NULL;
    long pk_len = 0, len = 0;
    const json_t *av;
    bool absent = false;
    int r, rc = -1;
    size_t i, nhash, nkeys = key_attrs(d, names, types, &nhash);

    /* Multi-attribute keys: the partition key is every HASH attribute
     * (escaped composite, hashed as one value), the sort key every RANGE
     * attribute in KeySchema order, compared one after another. One
     * HASH attribute keeps its plain encoding. */
    c = xmalloc(sizeof(*c));
    c->len = 0;
    if (nhash > 1) {
        pc = xmalloc(sizeof(*pc));
        pc->len = 0;
    }
    for (i = 0; i < nkeys; i++) {
        struct comp *to = i < nhash ? pc : c;   /* NULL: the plain pk */

        r = idx_attr(d, item, names[i], types[i], i < nhash,
                     to != NULL ? v : ipk, to != NULL ? &len : &pk_len, err);
        if (r < 0)
            goto out;
        if (r == 0)
            absent = true;
        else if (to != NULL)
            comp_add(to, v, (size_t)len);
    }
    rc = 0;
    if (absent)
        goto out;                   /* sparse: not in the index */
    for (i = 0; i < 2; i++) {
        if (bnames[i][0] == '\0')
            continue;
        av = json_object_get(item, bnames[i]);
        len = av != NULL ? key_encode_value(av, v) : -1;
        if (len < 0)
            goto out;               /* not a whole base item */
        comp_add(c, v, (size_t)len);
    }
    comp_finish(c);
    if (pc != NULL) {
        comp_finish(pc);
        key_set(k, 0, pc->b, pc->len, c->b, c->len);
    } else {
        key_set(k, types[0], ipk, (size_t)pk_len, c->b, c->len);
    }
    rc = 1;
out:
    free(c);
    free(pc);
    return rc;
}

long
index_pk_encode(const struct index_def *d, const json_t *const *values,
                uint8_t *out)
{
    uint8_t v[KEY_BYTES_MAX];
    struct comp *c;
    long len;
    size_t i;

    if (d->nhash <= 1)
        return values[0] != NULL ? key_encode_value(values[0], out) : -1;
    c = xmalloc(sizeof(*c));
    c->len = 0;
    for (i = 0; i < d->nhash; i++) {
        len = values[i] != NULL ? key_encode_value(values[i], v) : -1;
        if (len < 0) {
            free(c);
            return -1;
        }
        comp_add(c, v, (size_t)len);
    }
    comp_finish(c);
    memcpy(out, c->b, c->len);
    len = (long)c->len;
    free(c);
    return len;
}

void
index_sk_append(uint8_t *out, size_t *len, const uint8_t *v, size_t n)
{
    struct comp *c = xmalloc(sizeof(*c));
    size_t take;

    c->len = 0;
    comp_add(c, v, n);
    take = c->len;
    if (*len + take > KEY_BYTES_MAX)
        take = KEY_BYTES_MAX - *len;
    memcpy(out + *len, c->b, take);
    *len += take;
    free(c);
}

json_t *
index_key_map(const struct index_def *d, const json_t *item)
{
    json_t *out = json_object();
    const json_t *v;
    size_t i;

    for (i = 0; i < d->nhash; i++)
        if ((v = json_object_get(item, d->hash[i].name)) != NULL)
            json_object_set(out, d->hash[i].name, (json_t *)v);
    for (i = 0; i < d->nrange; i++)
        if ((v = json_object_get(item, d->range[i].name)) != NULL)
            json_object_set(out, d->range[i].name, (json_t *)v);
    if (d->nhash == 0) {
        if ((v = json_object_get(item, d->ks.hash_name)) != NULL)
            json_object_set(out, d->ks.hash_name, (json_t *)v);
        if (d->ks.range_name[0] != '\0' &&
            (v = json_object_get(item, d->ks.range_name)) != NULL)
            json_object_set(out, d->ks.range_name, (json_t *)v);
    }
    return out;
}

int
index_check_item(const struct index_set *s, const json_t *item,
                 struct ddb_err *err)
{
    struct item_key *k = xmalloc(sizeof(*k));
    size_t i;
    int rc = 0;

    for (i = 0; i < s->n && rc == 0; i++)
        if (index_row_key(&s->idx[i], &s->base, item, k, err) < 0)
            rc = -1;
    free(k);
    return rc;
}

/* ------------------------------------------------------------------------
 * Projection
 * ---------------------------------------------------------------------- */

static void
copy_attr(json_t *out, const json_t *item, const char *name)
{
    json_t *v;

    if (name == NULL || name[0] == '\0')
        return;
    v = json_object_get(item, name);
    if (v != NULL)
        json_object_set(out, name, v);
}

json_t *
index_project(const struct index_def *d, const struct key_schema *base,
              const json_t *item)
{
    json_t *out;
    const json_t *n;
    size_t i;

    if (d->proj == INDEX_PROJ_ALL)
        return json_clone(item);
    out = json_object();
    copy_attr(out, item, base->hash_name);
    copy_attr(out, item, base->range_name);
    copy_attr(out, item, d->ks.hash_name);
    copy_attr(out, item, d->ks.range_name);
    for (i = 0; i < d->nhash; i++)
        copy_attr(out, item, d->hash[i].name);
    for (i = 0; i < d->nrange; i++)
        copy_attr(out, item, d->range[i].name);
    if (d->proj == INDEX_PROJ_INCLUDE)
        json_array_foreach(d->nonkey, i, n)
            copy_attr(out, item, json_string_value(n));
    /* Deep copy: the caller may store it while item is still in use. */
    {
        json_t *cp = json_clone(out);

        json_decref(out);
        return cp;
    }
}

/* ------------------------------------------------------------------------
 * Planning index writes
 * ---------------------------------------------------------------------- */

static int
row_fn(void *arg, const json_t *old, size_t old_size, json_t **new_item,
       size_t *new_size, bool *keep, struct ddb_err *err)
{
    struct index_row_arg *a = arg;

    (void)err;
    if (a->row == NULL) {
        if (old == NULL)
            *keep = true;
        return 0;                   /* new_item left NULL: delete */
    }
    *new_item = json_incref(a->row);
    *new_size = a->size;
    return 0;
}

static void
plan_add(struct index_plan *p, const struct index_def *d,
         const struct item_key *k, json_t *row)
{
    struct stxn_op *op = &p->ops[p->nops];
    struct index_row_arg *a = &p->args[p->nops];

    memset(op, 0, sizeof(*op));
    a->row = row;
    a->size = row != NULL ? item_size(row) : 0;
    op->t = d->t;
    op->k = *k;
    op->fn = row_fn;
    op->arg = a;
    ddb_err_init(&op->err);
    p->nops++;
}

static bool
key_same(const struct item_key *a, const struct item_key *b)
{
    return a->pk_len == b->pk_len && a->sk_len == b->sk_len &&
           memcmp(a->pk, b->pk, a->pk_len) == 0 &&
           memcmp(a->sk, b->sk, a->sk_len) == 0;
}

int
index_plan(const struct index_set *s, const json_t *old,
           const json_t *new_item, struct index_plan *p, struct ddb_err *err)
{
    struct item_key *ok = NULL, *nk = NULL;
    struct ddb_err ignore;
    size_t i;
    int rc = -1;

    p->nops = 0;
    memset(p->units, 0, sizeof(p->units));
    ok = xmalloc(sizeof(*ok));
    nk = xmalloc(sizeof(*nk));
    ddb_err_init(&ignore);
    for (i = 0; i < s->n; i++) {
        const struct index_def *d = &s->idx[i];
        int oin = 0, nin = 0;
        json_t *orow = NULL, *nrow = NULL;

        if (old != NULL) {
            oin = index_row_key(d, &s->base, old, ok, &ignore);
            if (oin < 0)
                oin = 0;
            ddb_err_clear(&ignore);
        }
        if (new_item != NULL) {
            nin = index_row_key(d, &s->base, new_item, nk, err);
            if (nin < 0)
                goto out;
        }
        if (oin)
            orow = index_project(d, &s->base, old);
        if (nin)
            nrow = index_project(d, &s->base, new_item);
        if (oin && nin && key_same(ok, nk)) {
            if (json_same(orow, nrow)) {
                json_decref(nrow);
            } else {
                p->units[i] = capacity_write_units(item_size(nrow));
                plan_add(p, d, nk, nrow);
            }
        } else {
            if (oin) {
                p->units[i] += capacity_write_units(item_size(orow));
                plan_add(p, d, ok, NULL);
            }
            if (nin) {
                p->units[i] += capacity_write_units(item_size(nrow));
                plan_add(p, d, nk, nrow);
            }
        }
        json_decref(orow);
    }
    rc = 0;
out:
    if (rc != 0)
        index_plan_fini(p);
    free(ok);
    free(nk);
    return rc;
}

void
index_plan_fini(struct index_plan *p)
{
    size_t i;

    for (i = 0; i < p->nops; i++) {
        json_decref(p->args[i].row);
        p->args[i].row = NULL;
        ddb_err_clear(&p->ops[i].err);
    }
    p->nops = 0;
}

/* ------------------------------------------------------------------------
 * Writing: optimistic read, plan, transaction
 * ---------------------------------------------------------------------- */

int
index_guard_fn(void *arg, const json_t *old, size_t old_size,
               json_t **new_item, size_t *new_size, bool *keep,
               struct ddb_err *err)
{
    struct index_guard *b = arg;

    (void)keep;
    if ((old == NULL) != (b->snap == NULL) ||
        (old != NULL && !json_same(old, b->snap))) {
        b->changed = true;
        return ddb_err_set(err, DDB_TRANSACTION_CONFLICT,
                           "item changed: retry");
    }
    if (b->keep_row)
        *keep = true;
    else if (b->new_item != NULL) {
        *new_item = json_incref(b->new_item);
        *new_size = b->new_size;
    }
    return 0;
}

static int mutate_run(const struct index_set *s, struct stable *base,
                      const struct item_key *k, enum storage_origin origin,
                      stable_mutate_fn *fn, void *arg, index_gate_fn *gate,
                      void *gate_arg, double *units, struct ddb_err *err);

int
index_mutate(const struct index_set *s, struct stable *base,
             const struct item_key *k, enum storage_origin origin,
             stable_mutate_fn *fn, void *arg, double *units,
             struct ddb_err *err)
{
    return mutate_run(s, base, k, origin, fn, arg, NULL, NULL, units, err);
}

int
index_mutate_gated(const struct index_set *s, struct stable *base,
                   const struct item_key *k, stable_mutate_fn *fn,
                   void *arg, index_gate_fn *gate, void *gate_arg,
                   double *units, struct ddb_err *err)
{
    return mutate_run(s, base, k, STORAGE_ORIGIN_REQUEST, fn, arg, gate,
                      gate_arg, units, err);
}

/* The optimistic read, plan, gate and transaction of index_mutate*(). */
static int
mutate_run(const struct index_set *s, struct stable *base,
           const struct item_key *k, enum storage_origin origin,
           stable_mutate_fn *fn, void *arg, index_gate_fn *gate,
           void *gate_arg, double *units, struct ddb_err *err)
{
    struct index_plan *p = NULL;
    struct stxn_op *ops = NULL;
    struct index_guard b;
    json_t *snap = NULL;
    size_t i, n;
    int attempt, rc = -1;

    if (units != NULL)
        memset(units, 0, sizeof(double) * INDEX_MAX);
    p = xcalloc(1, sizeof(*p));
    ops = xcalloc(INDEX_OPS_MAX, sizeof(*ops));
    for (attempt = 0; attempt < MUTATE_RETRIES; attempt++) {
        json_t *nitem = NULL;
        size_t nsize = 0;
        bool keep = false;

        json_decref(snap);
        snap = NULL;
        if (stable_get(base, k, &snap, err) != 0)
            goto out;
        if (fn(arg, snap, snap != NULL ? item_size(snap) : 0, &nitem,
               &nsize, &keep, err) != 0) {
            json_decref(nitem);
            goto out;
        }
        if (keep) {
            json_decref(nitem);
            rc = 0;                 /* nothing written */
            goto out;
        }
        if (index_plan(s, snap, nitem, p, err) != 0) {
            json_decref(nitem);
            goto out;
        }
        if (gate != NULL && gate(gate_arg, snap, nitem, p, err) != 0) {
            json_decref(nitem);
            index_plan_fini(p);
            goto out;
        }
        memset(&b, 0, sizeof(b));
        b.snap = snap;
        b.new_item = nitem;
        b.new_size = nsize;
        memset(&ops[0], 0, sizeof(ops[0]));
        ops[0].t = base;
        ops[0].k = *k;
        ops[0].fn = index_guard_fn;
        ops[0].arg = &b;
        ops[0].origin = origin;
        ddb_err_init(&ops[0].err);
        memcpy(&ops[1], p->ops, p->nops * sizeof(ops[0]));
        n = 1 + p->nops;
        rc = stable_txn(ops, n, err);
        for (i = 0; i < n; i++)
            ddb_err_clear(&ops[i].err);
        /* p->ops' errors were copied by value: reset before fini. */
        for (i = 0; i < p->nops; i++)
            ddb_err_init(&p->ops[i].err);
        json_decref(nitem);
        if (rc == 0) {
            if (units != NULL)
                memcpy(units, p->units, sizeof(p->units));
            index_plan_fini(p);
            goto out;
        }
        index_plan_fini(p);
        if (!b.changed)
            goto out;
        ddb_err_clear(err);
        rc = -1;
    }
    ddb_err_set(err, DDB_INTERNAL, "index write kept conflicting");
out:
    json_decref(snap);
    free(ops);
    free(p);
    return rc;
}

/* ------------------------------------------------------------------------
 * Item collections (tables with LSIs)
 * ---------------------------------------------------------------------- */

static int
sum_row(void *arg, const struct item_key *k, const json_t *item, size_t size,
        struct ddb_err *err)
{
    uint64_t *total = arg;

    (void)k;
    (void)item;
    (void)err;
    *total += size;
    return 0;
}

json_t *
index_collection_metrics(const struct index_set *s, struct stable *base,
                         const struct item_key *k, const json_t *item,
                         struct ddb_err *err)
{
    uint64_t total = 0;
    bool any = false;
    double gb;
    size_t i;
    long lo;

    for (i = 0; i < s->n; i++)
        any |= !s->idx[i].global;
    if (!any)
        return NULL;
    if (stable_query(base, k->hash, k->pk, k->pk_len, NULL, true, NULL, 0,
                     sum_row, &total, err) < 0)
        return NULL;
    for (i = 0; i < s->n; i++)
        if (!s->idx[i].global &&
            stable_query(s->idx[i].t, k->hash, k->pk, k->pk_len, NULL, true,
                         NULL, 0, sum_row, &total, err) < 0)
            return NULL;
    /* DynamoDB gives a 1 GB-wide estimate around the size. */
    gb = (double)total / (1024.0 * 1024.0 * 1024.0);
    lo = (long)gb;
    return json_pack("{s:{s:O}, s:[f, f]}", "ItemCollectionKey",
                     s->base.hash_name,
                     json_object_get(item, s->base.hash_name),
                     "SizeEstimateRangeGB", (double)lo, (double)lo + 1.0);
}

bool
index_set_has_lsi(const struct index_set *s)
{
    size_t i;

    for (i = 0; s != NULL && i < s->n; i++)
        if (!s->idx[i].global && s->idx[i].t != NULL)
            return true;
    return false;
}

/* The size of item's row in LSI d (0 when the item is not in it). */
static int64_t
lsi_row_size(const struct index_def *d, const struct key_schema *base,
             const json_t *item, struct item_key *scratch)
{
    struct ddb_err e;
    json_t *row;
    int64_t n = 0;

    if (item == NULL)
        return 0;
    ddb_err_init(&e);
    if (index_row_key(d, base, item, scratch, &e) == 1) {
        row = index_project(d, base, item);
        n = (int64_t)item_size(row);
        json_decref(row);
    }
    ddb_err_clear(&e);
    return n;
}

/* Add to *bound the bytes stored in the partition of t that owns hash; a
 * size we cannot read makes the bound UINT64_MAX / 2 (too large to pass,
 * so the exact sum decides). */
static void
bound_add(uint64_t *bound, struct stable *t, const uint8_t hash[16])
{
    uint64_t count = 0, bytes = 0;
    struct ddb_err e;

    ddb_err_init(&e);
    if (stable_part_stats(t, stable_part_of(t, hash), &count, &bytes,
                          &e) == 0)
        *bound += bytes;
    else
        *bound = UINT64_MAX / 2;
    ddb_err_clear(&e);
}

int
index_collection_check(const struct index_set *s, struct stable *base,
                       const struct item_key *k, const json_t *old,
                       const json_t *new_item, uint64_t limit,
                       struct ddb_err *err)
{
    struct item_key *scratch = NULL;
    uint64_t bound = 0, total = 0;
    int64_t delta;
    size_t i;
    int rc = -1;

    if (limit == 0 || !index_set_has_lsi(s))
        return 0;
    scratch = xmalloc(sizeof(*scratch));
    delta = (new_item != NULL ? (int64_t)item_size(new_item) : 0) -
            (old != NULL ? (int64_t)item_size(old) : 0);
    for (i = 0; i < s->n; i++)
        if (!s->idx[i].global && s->idx[i].t != NULL)
            delta += lsi_row_size(&s->idx[i], &s->base, new_item, scratch) -
                     lsi_row_size(&s->idx[i], &s->base, old, scratch);
    if (delta <= 0) {
        rc = 0;                     /* shrinking (or same size) always fits */
        goto out;
    }
    /* Upper bound first: the collection lives inside the partitions that
     * own its key, in the table and in each LSI. */
    bound_add(&bound, base, k->hash);
    for (i = 0; i < s->n && bound < UINT64_MAX / 2; i++)
        if (!s->idx[i].global && s->idx[i].t != NULL)
            bound_add(&bound, s->idx[i].t, k->hash);
    if (bound + (uint64_t)delta <= limit) {
        rc = 0;
        goto out;
    }
    if (stable_query(base, k->hash, k->pk, k->pk_len, NULL, true, NULL, 0,
                     sum_row, &total, err) < 0)
        goto out;
    for (i = 0; i < s->n; i++)
        if (!s->idx[i].global && s->idx[i].t != NULL &&
            stable_query(s->idx[i].t, k->hash, k->pk, k->pk_len, NULL, true,
                         NULL, 0, sum_row, &total, err) < 0)
            goto out;
    if (total + (uint64_t)delta <= limit)
        rc = 0;
    else
        ddb_err_set(err, DDB_ITEM_COLLECTION_SIZE_LIMIT, "%s",
                    INDEX_COLLECTION_MSG);
out:
    free(scratch);
    return rc;
}

/* ------------------------------------------------------------------------
 * Capacity
 * ---------------------------------------------------------------------- */

void
index_capacity_add(struct capacity *c, const char *table,
                   const struct index_set *s, const double *units)
{
    for (size_t i = 0; s != NULL && units != NULL && i < s->n; i++)
        capacity_add_index(c, table, s->idx[i].name, s->idx[i].global,
                           units[i]);
}

/* ------------------------------------------------------------------------
 * Backfill and dropping
 * ---------------------------------------------------------------------- */

struct backfill {
    json_t *items;                  /* owned: this chunk's items */
    struct item_key last;
    bool have_last;
};

static int
backfill_row(void *arg, const struct item_key *k, const json_t *item,
             size_t size, struct ddb_err *err)
{
    struct backfill *bf = arg;

    (void)size;
    (void)err;
    json_array_append(bf->items, (json_t *)item);
    bf->last = *k;
    bf->have_last = true;
    return json_array_size(bf->items) >= BACKFILL_CHUNK ? 1 : 0;
}

/*
 * Index one base item: the index row is written in a transaction whose
 * base op checks that the item is still snap, so a concurrent write
 * (which maintains the index itself) is never overwritten with a stale
 * row; on a change, the current item is read again.
 */
static int
backfill_one(struct stable *base, const struct key_schema *bks,
             const struct index_def *d, const json_t *item,
             struct ddb_err *err)
{
    struct stxn_op *ops = xcalloc(2, sizeof(*ops));
    struct item_key *bk = xmalloc(sizeof(*bk));
    struct index_row_arg ra = { NULL, 0 };
    struct index_guard b;
    struct ddb_err ignore;
    json_t *snap = json_incref((json_t *)item);
    int attempt, rc = -1, in;

    ddb_err_init(&ignore);
    if (item_key_build(bks, item, false, bk, err) != 0)
        goto out;
    for (attempt = 0; attempt < MUTATE_RETRIES; attempt++) {
        if (snap == NULL) {
            rc = 0;                 /* deleted meanwhile: nothing to do */
            goto out;
        }
        in = index_row_key(d, bks, snap, &ops[1].k, &ignore);
        ddb_err_clear(&ignore);
        if (in != 1) {
            rc = 0;                 /* sparse, or unindexable value */
            goto out;
        }
        json_decref(ra.row);
        ra.row = index_project(d, bks, snap);
        ra.size = item_size(ra.row);
        memset(&b, 0, sizeof(b));
        b.snap = snap;
        b.keep_row = true;
        ops[0].t = base;
        ops[0].k = *bk;
        ops[0].fn = index_guard_fn;
        ops[0].arg = &b;
        ops[1].t = d->t;
        ops[1].fn = row_fn;
        ops[1].arg = &ra;
        ddb_err_init(&ops[0].err);
        ddb_err_init(&ops[1].err);
        rc = stable_txn(ops, 2, err);
        ddb_err_clear(&ops[0].err);
        ddb_err_clear(&ops[1].err);
        if (rc == 0 || !b.changed)
            goto out;
        ddb_err_clear(err);
        json_decref(snap);
        snap = NULL;
        if (stable_get(base, bk, &snap, err) != 0)
            goto out;
    }
    rc = ddb_err_set(err, DDB_INTERNAL, "backfill kept conflicting");
out:
    json_decref(ra.row);
    json_decref(snap);
    free(bk);
    free(ops);
    return rc;
}

int
index_backfill(struct stable *base, const struct key_schema *bks,
               const struct index_def *d, struct ddb_err *err)
{
    struct backfill bf;
    size_t i;
    int rc = -1, r;

    memset(&bf, 0, sizeof(bf));
    for (;;) {
        bf.items = json_array();
        /* Read a chunk, then write it: never hold base partitions while
         * taking index partitions. */
        r = stable_scan(base, 0, UINT64_MAX, bf.have_last ? &bf.last : NULL,
                        backfill_row, &bf, err);
        if (r < 0)
            goto out;
        for (i = 0; i < json_array_size(bf.items); i++)
            if (backfill_one(base, bks, d, json_array_get(bf.items, i),
                             err) != 0)
                goto out;
        if (json_array_size(bf.items) < BACKFILL_CHUNK)
            break;
        json_decref(bf.items);
        bf.items = NULL;
    }
    rc = 0;
out:
    json_decref(bf.items);
    return rc;
}

void
index_drop_all(struct storage *st, const char *table)
{
    json_t *names = storage_table_names(st);
    char prefix[1200];
    size_t i, plen;
    struct ddb_err e;

    snprintf(prefix, sizeof(prefix), "%s" HIDDEN_SEP, table);
    plen = strlen(prefix);
    ddb_err_init(&e);
    for (i = 0; i < json_array_size(names); i++) {
        const char *n = json_string_value(json_array_get(names, i));

        if (n != NULL && strncmp(n, prefix, plen) == 0) {
            storage_table_delete(st, n, &e);
            ddb_err_clear(&e);
        }
    }
    json_decref(names);
}
