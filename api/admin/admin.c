/* SPDX-License-Identifier: MIT */
/* admin.c - the admin API (GET /shardlocal/..., JSON) and GET /metrics
 * (Prometheus text, CloudWatch's metric names): per-partition hash
 * ranges, item counts and bytes from the store, consumption, bucket levels
 * and throttle counts from the throttle engine, and hot keys from its
 * space-saving sketches. Read-only; never creates throttle state. */

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"

#include "api/admin/admin.h"
#include "api/proto/error.h"
#include "api/index/index.h"
#include "api/throttle/throttle.h"
#include "storage/util.h"

#define ADMIN_PREFIX      "/shardlocal"
#define ADMIN_HOTKEYS_DEF 10            /* ?n= default */
#define ADMIN_JSON_TYPE   "application/json"
#define ADMIN_PROM_TYPE   "text/plain; version=0.0.4; charset=utf-8"
#define ADMIN_HTML_TYPE   "text/html; charset=utf-8"
#define ADMIN_NAME_MAX    1100

/* ------------------------------------------------------------------------
 * Helpers: a growable text buffer, replies
 * ---------------------------------------------------------------------- */

struct sbuf {
    char *s;                            /* owned, NUL-terminated */
    size_t len, cap;
};

static void
sb_reserve(struct sbuf *b, size_t extra)
{
    size_t cap = b->cap ? b->cap : 4096;
    char *ns;

    if (b->len + extra + 1 <= b->cap)
        return;
    while (cap < b->len + extra + 1)
        cap *= 2;
    ns = xrealloc(b->s, cap);
    b->s = ns;
    b->cap = cap;
}

static void sb_printf(struct sbuf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
sb_printf(struct sbuf *b, const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n <= 0)
        return;
    sb_reserve(b, (size_t)n);
    va_start(ap, fmt);
    vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

/* Serialize json (takes it) into out with status. */
static void
reply_json_new(struct admin_reply *out, unsigned status, json_t *json)
{
    char *s = json_dumps(json, JSON_INDENT(2) | JSON_ENSURE_ASCII);

    json_decref(json);
    if (s == NULL) {
        s = xstrdup("{\"message\":\"Internal server error\"}");
        status = 500;
    }
    out->status = status;
    out->body = s;
    out->len = strlen(s);
    out->content_type = ADMIN_JSON_TYPE;
}

/* A JSON error body in DynamoDB's shape, with an HTTP status of our own
 * (404 for a path or table that does not exist). */
static void
reply_err(struct admin_reply *out, unsigned status, enum ddb_errtype type,
          const char *msg)
{
    struct ddb_err err;

    ddb_err_init(&err);
    ddb_err_set(&err, type, "%s", msg);
    reply_json_new(out, status, error_body(&err));
    ddb_err_clear(&err);
}

static uint64_t
now_of(struct api_server *srv)
{
    return api_now_ms(srv);
}

/* ------------------------------------------------------------------------
 * Keys: partition key bytes back to an AttributeValue
 * ---------------------------------------------------------------------- */

/* The partition key attribute of the table (index NULL) or of its GSI in
 * desc (borrowed): its name and type ("S", "N", "B"). false if unknown. */
static bool
pk_attr(const json_t *desc, const char *index, const char **name,
        const char **type)
{
    const json_t *ks = json_object_get(desc, "KeySchema"), *el, *defs;
    size_t i;

    *name = NULL;
    *type = NULL;
    if (index != NULL) {
        const json_t *gsis = json_object_get(desc, "GlobalSecondaryIndexes");

        ks = NULL;
        json_array_foreach(gsis, i, el) {
            const char *n = json_string_value(json_object_get(el,
                                                              "IndexName"));

            if (n != NULL && strcmp(n, index) == 0)
                ks = json_object_get(el, "KeySchema");
        }
    }
    json_array_foreach(ks, i, el) {
        const char *kt = json_string_value(json_object_get(el, "KeyType"));

        if (kt != NULL && strcmp(kt, "HASH") == 0)
            *name = json_string_value(json_object_get(el, "AttributeName"));
    }
    if (*name == NULL)
        return false;
    defs = json_object_get(desc, "AttributeDefinitions");
    json_array_foreach(defs, i, el) {
        const char *n = json_string_value(json_object_get(el,
                                                          "AttributeName"));

        if (n != NULL && strcmp(n, *name) == 0)
            *type = json_string_value(json_object_get(el, "AttributeType"));
    }
    return *type != NULL;
}

/*
 * Decode num_sortkey()'s encoding back to canonical text (out holds
 * NUM_TEXT_MAX). 0x02 is zero; 0x03 E+130 digits+1 is positive; 0x01
 * 255-(E+130) (10-digit)... 0xFF is negative; E is the exponent of the
 * first digit. Returns false on bytes that are not such an encoding.
 */
static bool
num_from_sortkey(const uint8_t *k, size_t len, char *out)
{
    char digits[NUM_MAX_DIGITS + 1];
    size_t nd = 0, i, o = 0;
    bool neg;
    long e;

    if (len == 1 && k[0] == 0x02) {
        strcpy(out, "0");
        return true;
    }
    if (len < 3 || (k[0] != 0x01 && k[0] != 0x03))
        return false;
    neg = k[0] == 0x01;
    e = neg ? (long)(255 - k[1]) - 130 : (long)k[1] - 130;
    for (i = 2; i < len && nd < NUM_MAX_DIGITS; i++) {
        int d;

        if (neg && k[i] == 0xFF)
            break;
        d = neg ? 10 - (int)k[i] : (int)k[i] - 1;
        if (d < 0 || d > 9)
            return false;
        digits[nd++] = (char)('0' + d);
    }
    if (nd == 0)
        return false;
    if (neg)
        out[o++] = '-';
    if (e < 0) {
        long z;

        out[o++] = '0';
        out[o++] = '.';
        for (z = -1; z > e; z--)
            out[o++] = '0';
        for (i = 0; i < nd; i++)
            out[o++] = digits[i];
    } else {
        long p;

        for (p = 0; p <= e; p++)
            out[o++] = (size_t)p < nd ? digits[p] : '0';
        if ((size_t)e + 1 < nd) {
            out[o++] = '.';
            for (i = (size_t)e + 1; i < nd; i++)
                out[o++] = digits[i];
        }
    }
    out[o] = '\0';
    return true;
}

static void
b64_of(const uint8_t *p, size_t n, char *out)
{
    static const char tab[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t i, o = 0;

    for (i = 0; i + 2 < n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];

        out[o++] = tab[v >> 18];
        out[o++] = tab[(v >> 12) & 63];
        out[o++] = tab[(v >> 6) & 63];
        out[o++] = tab[v & 63];
    }
    if (i < n) {
        uint32_t v = (uint32_t)p[i] << 16;

        if (i + 1 < n)
            v |= (uint32_t)p[i + 1] << 8;
        out[o++] = tab[v >> 18];
        out[o++] = tab[(v >> 12) & 63];
        out[o++] = i + 1 < n ? tab[(v >> 6) & 63] : '=';
        out[o++] = '=';
    }
    out[o] = '\0';
}

/*
 * Add "key" (the AttributeValue, e.g. {"S": "user#1"}) and "key_text" (a
 * readable form) for partition key bytes of the given type to obj. Bytes
 * that do not decode (unknown type, invalid UTF-8) fall back to
 * {"B": base64} and hex text.
 */
static void
key_render(json_t *obj, const char *type, const uint8_t *k, size_t len)
{
    char *buf = xmalloc(len * 2 + NUM_TEXT_MAX + 8);

    if (type != NULL && strcmp(type, "S") == 0) {
        json_t *s = json_stringn((const char *)k, len); /* NULL: not UTF-8 */
        if (s != NULL) {
            json_object_set_new(obj, "key", json_pack("{s:O}", "S", s));
            json_object_set_new(obj, "key_text", s);
            goto out;
        }
    } else if (type != NULL && strcmp(type, "N") == 0 &&
               num_from_sortkey(k, len, buf)) {
        json_object_set_new(obj, "key", json_pack("{s:s}", "N", buf));
        json_object_set_new(obj, "key_text", json_string(buf));
        goto out;
    }
    b64_of(k, len, buf);
    json_object_set_new(obj, "key", json_pack("{s:s}", "B", buf));
    hex_encode(k, len, buf);
    json_object_set_new(obj, "key_text", json_string(buf));
out:
    free(buf);
}

/* ------------------------------------------------------------------------
 * One table or GSI as the admin API sees it
 * ---------------------------------------------------------------------- */

struct src {
    char table[ADMIN_NAME_MAX];
    char index[ADMIN_NAME_MAX];         /* "" for the table itself */
    struct stable *t;                   /* owned: the table, or the GSI's
                                           hidden table */
    json_t *desc;                       /* owned ref: the base table's */
    struct throttle_table *tt;          /* borrowed; NULL if no traffic yet */
};

static void
src_fini(struct src *s)
{
    if (s->t != NULL)
        stable_release(s->t);
    json_decref(s->desc);
    s->t = NULL;
    s->desc = NULL;
}

/*
 * Open table (index NULL or "") or its GSI index into s. Returns 0, or -1
 * with err: ResourceNotFoundException naming what is missing, in the
 * words DescribeContributorInsights uses.
 */
static int
src_open(struct api_server *srv, const char *table, const char *index,
         struct src *s, struct ddb_err *err)
{
    struct stable *base;
    char hidden[2 * ADMIN_NAME_MAX + 8];

    memset(s, 0, sizeof(*s));
    if (index != NULL && index[0] == '\0')
        index = NULL;
    if (strlen(table) >= sizeof(s->table) ||
        (index != NULL && strlen(index) >= sizeof(s->index)) ||
        index_is_hidden_name(table) ||
        (base = storage_table_get(srv->st, table)) == NULL)
        return ddb_err_set(err, DDB_RESOURCE_NOT_FOUND,
                           "Requested resource not found: Table: %.*s not "
                           "found", 1024, table);
    snprintf(s->table, sizeof(s->table), "%s", table);
    s->desc = stable_desc_ref(base);
    if (index == NULL) {
        s->t = base;
    } else {
        stable_release(base);
        snprintf(s->index, sizeof(s->index), "%s", index);
        index_table_name(table, index, hidden, sizeof(hidden));
        if (index_desc_gsi(s->desc, index) == NULL ||
            (s->t = storage_table_get(srv->st, hidden)) == NULL) {
            src_fini(s);
            return ddb_err_set(err, DDB_RESOURCE_NOT_FOUND,
                               "Requested resource not found: Index: %.*s "
                               "not found for table: %.*s", 255, index, 255,
                               table);
        }
    }
    if (srv->throttle != NULL)
        s->tt = throttle_registry_find(srv->throttle, table, index);
    return 0;
}

/* ------------------------------------------------------------------------
 * JSON views
 * ---------------------------------------------------------------------- */

static const char *const cause_keys[THROTTLE_CAUSE_COUNT] = {
    [THROTTLE_OK] = NULL,
    [THROTTLE_KEY_RANGE] = "key_range",
    [THROTTLE_PROVISIONED] = "provisioned",
    [THROTTLE_MAX_ON_DEMAND] = "max_on_demand",
    [THROTTLE_ACCOUNT_LIMIT] = "account_limit",
};

static uint64_t
throttled_sum(const struct throttle_op_stats *o)
{
    uint64_t n = 0;
    int c;

    for (c = THROTTLE_OK + 1; c < THROTTLE_CAUSE_COUNT; c++)
        n += o->throttled[c];
    return n;
}

/* One direction's counters as JSON (new reference). */
static json_t *
op_json(const struct throttle_op_stats *o, bool history)
{
    json_t *j = json_object(), *th = json_object();
    int c;

    json_object_set_new(j, "consumed_last_second", json_real(o->last_1s));
    json_object_set_new(j, "consumed_last_minute", json_real(o->last_60s));
    json_object_set_new(j, "consumed_total", json_real(o->consumed_total));
    json_object_set_new(j, "share_per_second", json_real(o->share));
    json_object_set_new(j, "bucket_level", json_real(o->level));
    json_object_set_new(j, "bucket_capacity", json_real(o->capacity));
    json_object_set_new(j, "ceiling_per_second", json_real(o->ceiling));
    json_object_set_new(j, "admitted", json_integer((json_int_t)o->admitted));
    json_object_set_new(j, "borrowed",
                        json_integer((json_int_t)o->borrowed));
    for (c = THROTTLE_OK + 1; c < THROTTLE_CAUSE_COUNT; c++)
        json_object_set_new(th, cause_keys[c],
                            json_integer((json_int_t)o->throttled[c]));
    json_object_set_new(j, "throttled", th);
    json_object_set_new(j, "throttled_total",
                        json_integer((json_int_t)throttled_sum(o)));
    json_object_set_new(j, "would_throttle",
                        json_integer((json_int_t)o->would_throttle));
    if (history) {
        json_t *h = json_array();
        int i;

        for (i = 0; i < THROTTLE_HISTORY_S; i++)
            json_array_append_new(h, json_real(o->per_second[i]));
        json_object_set_new(j, "per_second", h);
    }
    return j;
}

/*
 * Add "throttled_last_second" (requests rejected in the last second) to
 * the "read" and "write" objects of j: of partition part, or summed over
 * all nparts partitions when part is -1. The live view colours partitions
 * by it, so a partition turns back to normal once throttling stops.
 */
static void
set_recent_part(json_t *j, struct throttle_table *tt, long part,
                unsigned nparts, uint64_t now)
{
    uint64_t sum[2] = { 0, 0 }, one[2];
    unsigned i = part < 0 ? 0 : (unsigned)part;
    unsigned end = part < 0 ? nparts : (unsigned)part + 1;
    struct ddb_err e;

    ddb_err_init(&e);
    for (; i < end; i++) {
        if (throttle_part_throttled_1s(tt, i, now, one, &e) != 0) {
            ddb_err_clear(&e);
            continue;
        }
        sum[THROTTLE_READ] += one[THROTTLE_READ];
        sum[THROTTLE_WRITE] += one[THROTTLE_WRITE];
    }
    json_object_set_new(json_object_get(j, "read"), "throttled_last_second",
                        json_integer((json_int_t)sum[THROTTLE_READ]));
    json_object_set_new(json_object_get(j, "write"), "throttled_last_second",
                        json_integer((json_int_t)sum[THROTTLE_WRITE]));
}

static void
set_recent(json_t *j, struct throttle_table *tt, unsigned nparts,
           uint64_t now)
{
    set_recent_part(j, tt, -1, nparts, now);
}

static const char *
billing_of(const json_t *desc, const char *index)
{
    const char *b = json_string_value(json_object_get(
        json_object_get(desc, "BillingModeSummary"), "BillingMode"));

    (void)index;                        /* GSIs share the table's mode */
    return b != NULL ? b : "PROVISIONED";
}

/* Provisioned units of the table (index NULL) or GSI from desc. */
static void
provisioned_of(const json_t *desc, const char *index, json_int_t *rcu,
               json_int_t *wcu)
{
    const json_t *pt = json_object_get(desc, "ProvisionedThroughput"), *el;
    size_t i;

    if (index != NULL && index[0] != '\0') {
        pt = NULL;
        json_array_foreach(json_object_get(desc, "GlobalSecondaryIndexes"),
                           i, el) {
            const char *n = json_string_value(json_object_get(el,
                                                              "IndexName"));

            if (n != NULL && strcmp(n, index) == 0)
                pt = json_object_get(el, "ProvisionedThroughput");
        }
    }
    *rcu = json_integer_value(json_object_get(pt, "ReadCapacityUnits"));
    *wcu = json_integer_value(json_object_get(pt, "WriteCapacityUnits"));
}

/* The summary of one table or GSI (new reference): sizes, mode,
 * provisioned units, table-wide consumption and throttles. */
static json_t *
summary_json(struct src *s, uint64_t now, bool history)
{
    json_t *j = json_object();
    uint64_t count = 0, bytes = 0;
    struct throttle_table_stats ts;
    struct ddb_err e;
    json_int_t rcu, wcu;
    const char *status;

    json_object_set_new(j, "table", json_string(s->table));
    json_object_set_new(j, "index", s->index[0] ? json_string(s->index)
                                                : json_null());
    status = json_string_value(json_object_get(s->desc, "TableStatus"));
    if (status != NULL)
        json_object_set_new(j, "table_status", json_string(status));
    json_object_set_new(j, "billing_mode",
                        json_string(billing_of(s->desc, s->index)));
    provisioned_of(s->desc, s->index, &rcu, &wcu);
    if (strcmp(billing_of(s->desc, s->index), "PAY_PER_REQUEST") != 0)
        json_object_set_new(j, "provisioned",
                            json_pack("{s:I,s:I}", "read_capacity_units",
                                      rcu, "write_capacity_units", wcu));
    json_object_set_new(j, "partition_count",
                        json_integer((json_int_t)stable_nparts(s->t)));
    ddb_err_init(&e);
    if (stable_stats(s->t, &count, &bytes, &e) == 0) {
        json_object_set_new(j, "item_count", json_integer((json_int_t)count));
        json_object_set_new(j, "size_bytes", json_integer((json_int_t)bytes));
    }
    ddb_err_clear(&e);
    json_object_set_new(j, "throttle_state", json_boolean(s->tt != NULL));
    if (s->tt != NULL) {
        throttle_table_stats(s->tt, now, &ts);
        if (ts.on_demand)
            json_object_set_new(
                j, "on_demand",
                json_pack("{s:f,s:f,s:f,s:f}", "instant_read_limit",
                          ts.limit[THROTTLE_READ], "instant_write_limit",
                          ts.limit[THROTTLE_WRITE], "previous_read_peak",
                          ts.peak[THROTTLE_READ], "previous_write_peak",
                          ts.peak[THROTTLE_WRITE]));
        json_object_set_new(j, "read", op_json(&ts.op[THROTTLE_READ],
                                               history));
        json_object_set_new(j, "write", op_json(&ts.op[THROTTLE_WRITE],
                                                history));
        set_recent(j, s->tt, ts.nparts, now);
    }
    return j;
}

/* GET .../partitions: the summary plus one entry per partition. */
static json_t *
partitions_json(struct src *s, uint64_t now, bool history)
{
    json_t *j = summary_json(s, now, history), *parts = json_array();
    unsigned i, n = stable_nparts(s->t);
    char hex[24];

    for (i = 0; i < n; i++) {
        json_t *p = json_object();
        uint64_t start = stable_part_start(s->t, i), end, count, bytes;
        struct throttle_part_stats ps;
        struct ddb_err e;

        end = i + 1 < n ? stable_part_start(s->t, i + 1) - 1 : UINT64_MAX;
        json_object_set_new(p, "partition", json_integer(i));
        snprintf(hex, sizeof(hex), "%016" PRIx64, start);
        json_object_set_new(p, "hash_start", json_string(hex));
        snprintf(hex, sizeof(hex), "%016" PRIx64, end);
        json_object_set_new(p, "hash_end", json_string(hex));
        ddb_err_init(&e);
        if (stable_part_stats(s->t, i, &count, &bytes, &e) == 0) {
            json_object_set_new(p, "item_count",
                                json_integer((json_int_t)count));
            json_object_set_new(p, "size_bytes",
                                json_integer((json_int_t)bytes));
        }
        ddb_err_clear(&e);
        if (s->tt != NULL &&
            throttle_part_stats(s->tt, i, now, &ps, &e) == 0) {
            json_object_set_new(p, "read",
                                op_json(&ps.op[THROTTLE_READ], history));
            json_object_set_new(p, "write",
                                op_json(&ps.op[THROTTLE_WRITE], history));
            set_recent_part(p, s->tt, (long)i, n, now);
        }
        ddb_err_clear(&e);
        json_array_append_new(parts, p);
    }
    json_object_set_new(j, "partitions", parts);
    return j;
}

static const struct {
    const char *key;
    enum throttle_hk_kind kind;
} hk_kinds[] = {
    { "consumed_read", THROTTLE_HK_READ },
    { "consumed_write", THROTTLE_HK_WRITE },
    { "throttled_read", THROTTLE_HK_READ_THROTTLED },
    { "throttled_write", THROTTLE_HK_WRITE_THROTTLED },
};

/*
 * The top n keys of one sketch kind (new reference): a list, largest
 * first, of {key, key_text, partition, count, error}. count is capacity
 * units for the consumed kinds and requests for the throttled ones.
 */
static json_t *
hotkeys_list(struct src *s, enum throttle_hk_kind kind, size_t n,
             const char *type)
{
    struct throttle_hotkey hk[THROTTLE_HOTKEYS];
    struct item_key *k;
    json_t *list = json_array();
    size_t i, got;

    if (s->tt == NULL)
        return list;
    k = xmalloc(sizeof(*k));
    got = throttle_hotkeys(s->tt, kind, hk, n);
    for (i = 0; i < got; i++) {
        json_t *e = json_object();

        key_render(e, type, hk[i].key, hk[i].key_len);
        if (hk[i].key_len <= KEY_BYTES_MAX) {
            key_set(k, hk[i].key, hk[i].key_len, NULL, 0);
            json_object_set_new(e, "partition",
                                json_integer(stable_part_of(s->t, k->hash)));
        }
        json_object_set_new(e, "count", json_real(hk[i].count));
        json_object_set_new(e, "error", json_real(hk[i].error));
        json_array_append_new(list, e);
    }
    throttle_hotkeys_free(hk, got);
    free(k);
    return list;
}

static json_t *
hotkeys_json(struct src *s, size_t n)
{
    json_t *j = json_object();
    const char *aname = NULL, *atype = NULL;
    size_t i;

    pk_attr(s->desc, s->index[0] ? s->index : NULL, &aname, &atype);
    json_object_set_new(j, "table", json_string(s->table));
    json_object_set_new(j, "index", s->index[0] ? json_string(s->index)
                                                : json_null());
    json_object_set_new(j, "partition_key",
                        json_pack("{s:s?,s:s?}", "name", aname, "type",
                                  atype));
    json_object_set_new(j, "top", json_integer((json_int_t)n));
    json_object_set_new(j, "throttle_state", json_boolean(s->tt != NULL));
    for (i = 0; i < sizeof(hk_kinds) / sizeof(hk_kinds[0]); i++)
        json_object_set_new(j, hk_kinds[i].key,
                            hotkeys_list(s, hk_kinds[i].kind, n, atype));
    return j;
}

/* The names of the table's GSIs (new reference, list of strings). */
static json_t *
gsi_names(const json_t *desc)
{
    json_t *out = json_array();
    const json_t *el;
    size_t i;

    json_array_foreach(json_object_get(desc, "GlobalSecondaryIndexes"), i,
                       el) {
        const json_t *n = json_object_get(el, "IndexName");

        if (json_is_string(n))
            json_array_append(out, (json_t *)n);
    }
    return out;
}

/* GET /shardlocal/tables: every table with its GSIs, summaries only. */
static json_t *
tables_json(struct api_server *srv, uint64_t now)
{
    json_t *names = storage_table_names(srv->st), *list = json_array();
    json_t *n, *gn;
    size_t i, j;

    json_array_foreach(names, i, n) {
        struct src s;
        struct ddb_err e;
        json_t *sum, *idx, *gl;

        ddb_err_init(&e);
        if (src_open(srv, json_string_value(n), NULL, &s, &e) != 0) {
            ddb_err_clear(&e);
            continue;
        }
        sum = summary_json(&s, now, false);
        idx = json_array();
        gl = gsi_names(s.desc);
        json_array_foreach(gl, j, gn) {
            struct src g;

            if (src_open(srv, s.table, json_string_value(gn), &g, &e) != 0) {
                ddb_err_clear(&e);
                continue;
            }
            json_array_append_new(idx, summary_json(&g, now, false));
            src_fini(&g);
        }
        json_decref(gl);
        json_object_set_new(sum, "indexes", idx);
        json_array_append_new(list, sum);
        src_fini(&s);
    }
    json_decref(names);
    return json_pack("{s:I,s:o}", "now_ms", (json_int_t)now, "tables", list);
}

/* GET /shardlocal: what is here, the version and the clock. */
static json_t *
index_json(struct api_server *srv, uint64_t now)
{
    json_t *j = json_object(), *eps = json_array(), *th = json_object();
    struct throttle_limits lim;
    static const char *const endpoints[][3] = {
        { "GET", "/shardlocal", "this index: version, clock, limits" },
        { "GET", "/shardlocal/tables", "every table and GSI: sizes, "
          "consumption, throttles" },
        { "GET", "/shardlocal/tables/{table}", "one table and its GSIs" },
        { "GET", "/shardlocal/tables/{table}/partitions",
          "per partition: hash range, items, bytes, consumed RCU/WCU, "
          "bucket levels, throttles by cause and in the last second "
          "(?history=1: per second)" },
        { "GET", "/shardlocal/tables/{table}/hotkeys",
          "top partition keys by consumed capacity and by throttles "
          "(?n=10, at most 64)" },
        { "GET", "/shardlocal/tables/{table}/indexes/{index}/partitions",
          "the same for a GSI" },
        { "GET", "/shardlocal/tables/{table}/indexes/{index}/hotkeys",
          "the same for a GSI" },
        { "GET", "/shardlocal/ui", "live view of partitions and hot keys "
          "(?table=T&index=G picks the table or GSI)" },
        { "GET", "/metrics", "Prometheus text, CloudWatch metric names" },
        { "GET", "/shardlocal/clock", "the clock (virtual or wall)" },
        { "POST", "/shardlocal/clock", "advance or set the virtual clock" },
        { "GET", "/shardlocal/faults", "fault-injection rules" },
        { "POST", "/shardlocal/faults", "add or clear fault-injection rules" },
    };
    size_t i;

    for (i = 0; i < sizeof(endpoints) / sizeof(endpoints[0]); i++)
        json_array_append_new(eps, json_pack("{s:s,s:s,s:s}", "method",
                                             endpoints[i][0], "path",
                                             endpoints[i][1], "description",
                                             endpoints[i][2]));
    json_object_set_new(j, "name", json_string(PACKAGE_NAME));
    json_object_set_new(j, "version", json_string(PACKAGE_VERSION));
    json_object_set_new(j, "clock",
                        json_pack("{s:s,s:I}", "mode",
                                  srv->virtual_clock ? "virtual" : "wall",
                                  "now_ms", (json_int_t)now));
    if (srv->throttle != NULL) {
        throttle_registry_limits(srv->throttle, &lim);
        json_object_set_new(th, "enforce", json_boolean(lim.enforce));
        json_object_set_new(th, "adaptive_capacity",
                            json_boolean(lim.adaptive));
        json_object_set_new(th, "scale", json_real(lim.scale));
        json_object_set_new(th, "partition_rcu",
                            json_real(throttle_limits_ceiling(
                                &lim, THROTTLE_READ)));
        json_object_set_new(th, "partition_wcu",
                            json_real(throttle_limits_ceiling(
                                &lim, THROTTLE_WRITE)));
        json_object_set_new(th, "burst_seconds", json_real(lim.burst_s));
    }
    json_object_set_new(j, "throttle", th);
    json_object_set_new(j, "endpoints", eps);
    return j;
}

/* ------------------------------------------------------------------------
 * The live view (one static page, polls the JSON above)
 * ---------------------------------------------------------------------- */

static const char *ui_html(void);

/* ------------------------------------------------------------------------
 * Routing under /shardlocal
 * ---------------------------------------------------------------------- */

/* Copy the next path segment of *p (after a '/') into out; false if
 * there is none or it is too long. */
static bool
segment(const char **p, char *out, size_t outsz)
{
    const char *s = *p, *e;

    if (*s != '/')
        return false;
    s++;
    e = s + strcspn(s, "/");
    if (e == s || (size_t)(e - s) >= outsz)
        return false;
    memcpy(out, s, (size_t)(e - s));
    out[e - s] = '\0';
    *p = e;
    return true;
}

static bool
arg_true(admin_arg_fn *arg, void *cls, const char *name)
{
    const char *v = arg != NULL ? arg(cls, name) : NULL;

    return v != NULL && (strcmp(v, "1") == 0 || strcmp(v, "true") == 0 ||
                         v[0] == '\0');
}

static size_t
arg_top(admin_arg_fn *arg, void *cls)
{
    const char *v = arg != NULL ? arg(cls, "n") : NULL;
    long n;

    if (v == NULL)
        return ADMIN_HOTKEYS_DEF;
    n = strtol(v, NULL, 10);
    if (n < 1)
        return 1;
    return n > THROTTLE_HOTKEYS ? THROTTLE_HOTKEYS : (size_t)n;
}

void
admin_get(struct api_server *srv, const char *path, admin_arg_fn *arg,
          void *arg_cls, struct admin_reply *out)
{
    char table[ADMIN_NAME_MAX], index[ADMIN_NAME_MAX], what[32];
    const char *p;
    uint64_t now = now_of(srv);
    struct ddb_err err;
    struct src s;
    size_t plen = strcspn(path, "?");

    memset(out, 0, sizeof(*out));
    if (strncmp(path, ADMIN_PREFIX, strlen(ADMIN_PREFIX)) != 0)
        goto notfound;
    p = path + strlen(ADMIN_PREFIX);
    plen -= strlen(ADMIN_PREFIX);
    if (plen == 0 || (plen == 1 && p[0] == '/')) {
        reply_json_new(out, 200, index_json(srv, now));
        return;
    }
    if ((plen == 3 && strncmp(p, "/ui", 3) == 0) ||
        (plen == 4 && strncmp(p, "/ui/", 4) == 0)) {
        out->status = 200;
        out->body = xstrdup(ui_html());
        out->len = strlen(out->body);
        out->content_type = ADMIN_HTML_TYPE;
        return;
    }
    if (strncmp(p, "/tables", 7) != 0 || (p[7] != '\0' && p[7] != '/' &&
                                          p[7] != '?'))
        goto notfound;
    p += 7;
    if (*p == '\0' || *p == '?' || strcmp(p, "/") == 0) {
        reply_json_new(out, 200, tables_json(srv, now));
        return;
    }
    if (!segment(&p, table, sizeof(table)))
        goto notfound;
    index[0] = '\0';
    what[0] = '\0';
    if (strncmp(p, "/indexes/", 9) == 0) {
        p += 8;
        if (!segment(&p, index, sizeof(index)))
            goto notfound;
    }
    if (*p != '\0' && *p != '?' && !segment(&p, what, sizeof(what)))
        goto notfound;
    if (*p == '/')
        p++;
    if (*p != '\0' && *p != '?')
        goto notfound;
    if (what[0] != '\0' && strcmp(what, "partitions") != 0 &&
        strcmp(what, "hotkeys") != 0)
        goto notfound;

    ddb_err_init(&err);
    if (src_open(srv, table, index, &s, &err) != 0) {
        reply_err(out, 404, err.type, err.msg);
        ddb_err_clear(&err);
        return;
    }
    if (strcmp(what, "hotkeys") == 0) {
        reply_json_new(out, 200, hotkeys_json(&s, arg_top(arg, arg_cls)));
    } else if (strcmp(what, "partitions") == 0) {
        json_t *j = partitions_json(&s, now, arg_true(arg, arg_cls,
                                                      "history"));

        json_object_set_new(j, "now_ms", json_integer((json_int_t)now));
        reply_json_new(out, 200, j);
    } else {
        json_t *j = summary_json(&s, now, arg_true(arg, arg_cls, "history"));
        json_t *idx = json_array(), *gl = gsi_names(s.desc), *gn;
        size_t i;

        if (index[0] == '\0') {
            json_array_foreach(gl, i, gn) {
                struct src g;

                if (src_open(srv, table, json_string_value(gn), &g,
                             &err) != 0) {
                    ddb_err_clear(&err);
                    continue;
                }
                json_array_append_new(idx, summary_json(&g, now, false));
                src_fini(&g);
            }
            json_object_set_new(j, "indexes", idx);
        } else {
            json_decref(idx);
        }
        json_decref(gl);
        json_object_set_new(j, "now_ms", json_integer((json_int_t)now));
        reply_json_new(out, 200, j);
    }
    src_fini(&s);
    ddb_err_clear(&err);
    return;
notfound:
    reply_err(out, 404, DDB_HTTP_NOT_FOUND, "Not Found");
}

/* ------------------------------------------------------------------------
 * GET /metrics
 *
 * CloudWatch's names are kept as the metric names (the issue asks for
 * them; Prometheus allows CamelCase): cumulative counters since the table
 * (or its throttle state) was created, labelled {table, index,
 * partition}; index is "" for the table itself. CloudWatch's 1-minute
 * sums are rate()/increase() over these. Extras are shardlocal_*.
 * ---------------------------------------------------------------------- */

enum mval {
    MV_CONSUMED,                        /* consumed_total */
    MV_EVENTS,                          /* throttled, all causes */
    MV_REQUESTS,                        /* throttled, reads + writes */
    MV_CAUSE,                           /* throttled[cause] */
    MV_PROVISIONED,                     /* per table/GSI, provisioned only */
    MV_PARTITIONS,                      /* per table/GSI */
    MV_ITEMS,
    MV_BYTES,
    MV_LEVEL,
    MV_CAPACITY,
    MV_LAST1S,
    MV_WOULD,
};

struct mdef {
    const char *name;
    const char *type;                   /* counter | gauge */
    const char *help;
    enum mval what;
    int op;                             /* THROTTLE_READ / WRITE, or -1 */
    int cause;
};

#define CAUSE_METRICS(RW, OP) \
    { RW "ProvisionedThroughputThrottleEvents", "counter", \
      RW " requests throttled because the table's provisioned " \
      "throughput was used up", MV_CAUSE, OP, THROTTLE_PROVISIONED }, \
    { RW "KeyRangeThroughputThrottleEvents", "counter", \
      RW " requests throttled by the partition (hot key range, partition " \
      "ceiling or share)", MV_CAUSE, OP, THROTTLE_KEY_RANGE }, \
    { RW "MaxOnDemandThroughputThrottleEvents", "counter", \
      RW " requests throttled by the OnDemandThroughput maximum", \
      MV_CAUSE, OP, THROTTLE_MAX_ON_DEMAND }, \
    { RW "AccountLimitThrottleEvents", "counter", \
      RW " requests throttled by the per-table on-demand quota", \
      MV_CAUSE, OP, THROTTLE_ACCOUNT_LIMIT }

static const struct mdef mdefs[] = {
    { "ConsumedReadCapacityUnits", "counter",
      "Read capacity units consumed", MV_CONSUMED, THROTTLE_READ, 0 },
    { "ConsumedWriteCapacityUnits", "counter",
      "Write capacity units consumed", MV_CONSUMED, THROTTLE_WRITE, 0 },
    { "ProvisionedReadCapacityUnits", "gauge",
      "Provisioned read capacity units (provisioned tables and GSIs)",
      MV_PROVISIONED, THROTTLE_READ, 0 },
    { "ProvisionedWriteCapacityUnits", "gauge",
      "Provisioned write capacity units (provisioned tables and GSIs)",
      MV_PROVISIONED, THROTTLE_WRITE, 0 },
    { "ReadThrottleEvents", "counter",
      "Read requests throttled (every cause)", MV_EVENTS, THROTTLE_READ, 0 },
    { "WriteThrottleEvents", "counter",
      "Write requests throttled (every cause)", MV_EVENTS, THROTTLE_WRITE,
      0 },
    { "ThrottledRequests", "counter",
      "Requests throttled (reads and writes, every cause)", MV_REQUESTS, -1,
      0 },
    CAUSE_METRICS("Read", THROTTLE_READ),
    CAUSE_METRICS("Write", THROTTLE_WRITE),
    { "shardlocal_partitions", "gauge",
      "Partitions of the table or GSI", MV_PARTITIONS, -1, 0 },
    { "shardlocal_partition_items", "gauge",
      "Items stored in the partition", MV_ITEMS, -1, 0 },
    { "shardlocal_partition_size_bytes", "gauge",
      "Item bytes stored in the partition", MV_BYTES, -1, 0 },
    { "shardlocal_read_bucket_level", "gauge",
      "Read token bucket level in units (negative: debt)", MV_LEVEL,
      THROTTLE_READ, 0 },
    { "shardlocal_write_bucket_level", "gauge",
      "Write token bucket level in units (negative: debt)", MV_LEVEL,
      THROTTLE_WRITE, 0 },
    { "shardlocal_read_bucket_capacity", "gauge",
      "Read token bucket size in units (burst bank)", MV_CAPACITY,
      THROTTLE_READ, 0 },
    { "shardlocal_write_bucket_capacity", "gauge",
      "Write token bucket size in units (burst bank)", MV_CAPACITY,
      THROTTLE_WRITE, 0 },
    { "shardlocal_read_consumed_last_second", "gauge",
      "Read units consumed in the last second", MV_LAST1S, THROTTLE_READ,
      0 },
    { "shardlocal_write_consumed_last_second", "gauge",
      "Write units consumed in the last second", MV_LAST1S, THROTTLE_WRITE,
      0 },
    { "shardlocal_would_throttle_events_total", "counter",
      "Requests that would have been throttled with --throttle off",
      MV_WOULD, -1, 0 },
};

/* One table or GSI with its snapshot, for /metrics. */
struct msrc {
    struct src s;
    bool provisioned;
    json_int_t prov[2];                 /* rcu, wcu */
    unsigned nparts;
    struct throttle_part_stats *ps;     /* owned, nparts entries */
    uint64_t *items, *bytes;            /* owned, nparts entries */
};

/* Prometheus label value: escape \, " and newline. */
static void
sb_label(struct sbuf *b, const char *v)
{
    for (; *v; v++) {
        if (*v == '\\' || *v == '"')
            sb_printf(b, "\\%c", *v);
        else if (*v == '\n')
            sb_printf(b, "\\n");
        else
            sb_printf(b, "%c", *v);
    }
}

static void
sb_value(struct sbuf *b, double v)
{
    sb_printf(b, " %.15g\n", v);
}

static void
msrc_snapshot(struct msrc *m, uint64_t now)
{
    unsigned i;
    struct ddb_err e;

    m->provisioned = strcmp(billing_of(m->s.desc, m->s.index),
                            "PAY_PER_REQUEST") != 0;
    provisioned_of(m->s.desc, m->s.index, &m->prov[0], &m->prov[1]);
    m->nparts = stable_nparts(m->s.t);
    m->ps = xcalloc(m->nparts ? m->nparts : 1, sizeof(*m->ps));
    m->items = xcalloc(m->nparts ? m->nparts : 1, sizeof(*m->items));
    m->bytes = xcalloc(m->nparts ? m->nparts : 1, sizeof(*m->bytes));
    ddb_err_init(&e);
    for (i = 0; i < m->nparts; i++) {
        if (stable_part_stats(m->s.t, i, &m->items[i], &m->bytes[i],
                              &e) != 0)
            ddb_err_clear(&e);
        if (m->s.tt != NULL &&
            throttle_part_stats(m->s.tt, i, now, &m->ps[i], &e) != 0) {
            memset(&m->ps[i], 0, sizeof(m->ps[i]));
            ddb_err_clear(&e);
        }
    }
}

static void
msrc_fini(struct msrc *m)
{
    src_fini(&m->s);
    free(m->ps);
    free(m->items);
    free(m->bytes);
}

/* The value of metric d for partition i of m. */
static double
mvalue(const struct mdef *d, const struct msrc *m, unsigned i)
{
    const struct throttle_part_stats *ps = &m->ps[i];

    switch (d->what) {
    case MV_CONSUMED:
        return ps->op[d->op].consumed_total;
    case MV_EVENTS:
        return (double)throttled_sum(&ps->op[d->op]);
    case MV_REQUESTS:
        return (double)(throttled_sum(&ps->op[THROTTLE_READ]) +
                        throttled_sum(&ps->op[THROTTLE_WRITE]));
    case MV_CAUSE:
        return (double)ps->op[d->op].throttled[d->cause];
    case MV_ITEMS:
        return (double)m->items[i];
    case MV_BYTES:
        return (double)m->bytes[i];
    case MV_LEVEL:
        return ps->op[d->op].level;
    case MV_CAPACITY:
        return ps->op[d->op].capacity;
    case MV_LAST1S:
        return ps->op[d->op].last_1s;
    case MV_WOULD:
        return (double)(ps->op[THROTTLE_READ].would_throttle +
                        ps->op[THROTTLE_WRITE].would_throttle);
    default:
        return 0;
    }
}

static void
sb_labels(struct sbuf *b, const struct msrc *m, long part)
{
    sb_printf(b, "{table=\"");
    sb_label(b, m->s.table);
    sb_printf(b, "\",index=\"");
    sb_label(b, m->s.index);
    if (part >= 0)
        sb_printf(b, "\",partition=\"%ld\"}", part);
    else
        sb_printf(b, "\"}");
}

/* Open every table and GSI into a new array of *n snapshots. */
static struct msrc *
gather(struct api_server *srv, uint64_t now, size_t *n)
{
    json_t *names = storage_table_names(srv->st), *nm, *gl, *gn;
    struct msrc *ms = NULL;
    size_t cap = 0, i, j;
    struct ddb_err e;

    *n = 0;
    ddb_err_init(&e);
    json_array_foreach(names, i, nm) {
        struct src s;

        if (src_open(srv, json_string_value(nm), NULL, &s, &e) != 0) {
            ddb_err_clear(&e);
            continue;
        }
        gl = gsi_names(s.desc);
        if (*n + 1 + json_array_size(gl) > cap) {
            cap = (*n + 1 + json_array_size(gl)) * 2;
            ms = xrealloc(ms, cap * sizeof(*ms));
        }
        memset(&ms[*n], 0, sizeof(ms[*n]));
        ms[*n].s = s;
        msrc_snapshot(&ms[*n], now);
        (*n)++;
        json_array_foreach(gl, j, gn) {
            memset(&ms[*n], 0, sizeof(ms[*n]));
            if (src_open(srv, s.table, json_string_value(gn), &ms[*n].s,
                         &e) != 0) {
                ddb_err_clear(&e);
                continue;
            }
            msrc_snapshot(&ms[*n], now);
            (*n)++;
        }
        json_decref(gl);
    }
    json_decref(names);
    return ms;
}

void
admin_metrics(struct api_server *srv, struct admin_reply *out)
{
    struct sbuf b = { NULL, 0, 0 };
    size_t n, i, k;
    struct msrc *ms = gather(srv, now_of(srv), &n);
    unsigned p;

    for (k = 0; k < sizeof(mdefs) / sizeof(mdefs[0]); k++) {
        const struct mdef *d = &mdefs[k];

        sb_printf(&b, "# HELP %s %s\n# TYPE %s %s\n", d->name, d->help,
                  d->name, d->type);
        for (i = 0; i < n; i++) {
            const struct msrc *m = &ms[i];

            if (d->what == MV_PROVISIONED) {
                if (!m->provisioned)
                    continue;
                sb_printf(&b, "%s", d->name);
                sb_labels(&b, m, -1);
                sb_value(&b, (double)m->prov[d->op]);
                continue;
            }
            if (d->what == MV_PARTITIONS) {
                sb_printf(&b, "%s", d->name);
                sb_labels(&b, m, -1);
                sb_value(&b, (double)m->nparts);
                continue;
            }
            for (p = 0; p < m->nparts; p++) {
                sb_printf(&b, "%s", d->name);
                sb_labels(&b, m, p);
                sb_value(&b, mvalue(d, m, p));
            }
        }
    }
    for (i = 0; i < n; i++)
        msrc_fini(&ms[i]);
    free(ms);
    if (b.s == NULL)
        sb_reserve(&b, 1);
    memset(out, 0, sizeof(*out));
    out->status = 200;
    out->body = b.s;
    out->len = b.len;
    out->content_type = ADMIN_PROM_TYPE;
}

/* ------------------------------------------------------------------------
 * The live view: GET /shardlocal/ui
 * ---------------------------------------------------------------------- */

static const char *
ui_html(void)
{
    /* One page, no dependencies: polls /shardlocal/tables, then the
     * selected table's (or GSI's) partitions and hot keys every second.
     * ?table=T&index=G picks the view (the menu keeps the URL in step); a
     * partition is red while it throttled in the last second
     * (throttled_last_second), totals are shown beside it; a selected
     * table that disappears shows "was deleted" and empty views instead
     * of its last numbers, and comes back if it is created again. */
    static const char page[] =
        "<!doctype html>\n"
        "<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
        "<title>shardlocal: partitions and hot keys</title>\n"
        "<style>\n"
        "body{font:14px system-ui,sans-serif;margin:16px;background:#fafafa;col"
        "or:#222}\n"
        "h1{font-size:20px;margin:0 0 8px}h2{font-size:16px;margin:16px 0 6px}"
        "\n"
        "#meta{color:#666;margin-bottom:8px}select{font-size:14px}\n"
        "#state{display:none;margin:10px 0;padding:8px 12px;border-radius:4px;f"
        "ont-weight:bold;background:#fdecea;color:#a93226;border:1px solid #e6b"
        "0aa}\n"
        "table{border-collapse:collapse;background:#fff}\n"
        "td,th{border:1px solid #ddd;padding:3px 7px;text-align:right;white-spa"
        "ce:nowrap}\n"
        "th{background:#f0f0f0}td.l,th.l{text-align:left}\n"
        "tr.hot td{background:#fdecea}\n"
        ".bar{position:relative;display:inline-block;vertical-align:middle;widt"
        "h:130px;height:14px;background:#eee;border-radius:3px}\n"
        ".bar span{position:absolute;left:0;top:0;bottom:0;border-radius:3px}\n"
        ".bar i{position:absolute;top:-2px;bottom:-2px;width:2px;background:#33"
        "3}\n"
        ".w{background:#e67e22}.r{background:#3498db}\n"
        ".thr{color:#c0392b;font-weight:bold}.z{color:#aaa}.t{color:#888;font-s"
        "ize:12px}\n"
        ".dn{color:#c0392b}.up{color:#1e8449}\n"
        "#hk{display:grid;grid-template-columns:repeat(4,minmax(0,1fr));gap:12p"
        "x;align-items:start}\n"
        "#hk table{width:100%;table-layout:fixed}\n"
        "#hk td.l{overflow:hidden;text-overflow:ellipsis}\n"
        "#hk th.p{width:34px}#hk th.c{width:60px}\n"
        "#hk caption{text-align:left;font-weight:bold;padding:2px 0 4px;white-s"
        "pace:nowrap}\n"
        "</style></head><body>\n"
        "<h1>shardlocal &mdash; partitions and hot keys</h1>\n"
        "<div id=\"meta\">loading&hellip;</div>\n"
        "<label>Table <select id=\"tsel\"></select></label>\n"
        "<div id=\"state\"></div>\n"
        "<h2>Partitions <small id=\"psum\"></small></h2>\n"
        "<table id=\"parts\"><thead><tr><th>#</th><th class=\"l\">hash range</t"
        "h>\n"
        "<th>items</th><th>bytes</th><th class=\"l\">write/s (of ceiling)</th>"
        "\n"
        "<th class=\"l\">read/s (of ceiling)</th><th class=\"l\">write bucket</"
        "th>\n"
        "<th title=\"write requests throttled in the last second (total since t"
        "he first request)\">write throttles/s</th>\n"
        "<th title=\"read requests throttled in the last second (total since th"
        "e first request)\">read throttles/s</th></tr></thead>\n"
        "<tbody></tbody></table>\n"
        "<h2>Hot keys <small class=\"t\">(cumulative since the table's first re"
        "quest)</small></h2><div id=\"hk\"></div>\n"
        "<script>\n"
        "\"use strict\";\n"
        "var sel=document.getElementById(\"tsel\"),q=new URLSearchParams(locati"
        "on.search);\n"
        "var want=q.get(\"table\")?{t:q.get(\"table\"),i:q.get(\"index\")||\"\""
        "}:null,seen={},gone=null;\n"
        "function $(id){return document.getElementById(id)}\n"
        "function key(w){return w?w.t+(w.i?\"/\"+w.i:\"\"):\"\"}\n"
        "function j(u){return fetch(u,{cache:\"no-store\"}).then(function(r){\n"
        " if(r.status==404){var e=new Error(\"not found\");e.nf=true;throw e}re"
        "turn r.json()})}\n"
        "function esc(s){return String(s).replace(/[&<>\"]/g,function(c){return"
        "{\"&\":\"&amp;\",\"<\":\"&lt;\",\">\":\"&gt;\",\"\\\"\":\"&quot;\"}[c]"
        "})}\n"
        "function num(x){return x==null?\"\":(Math.round(x*10)/10).toLocaleStri"
        "ng(\"en-US\")}\n"
        "function pl(n,w,p){return num(n)+\" \"+(n==1?w:(p||w+\"s\"))}\n"
        "function bar(v,max,cls,mark){var p=max>0?Math.max(0,Math.min(100,100*v"
        "/max)):0;\n"
        " var m=mark>0&&max>0&&mark<max?'<i style=\"left:'+(100*mark/max)+'%\" "
        "title=\"share '+num(mark)+'/s\"></i>':\"\";\n"
        " return '<div class=\"bar\" title=\"'+num(v)+' / '+num(max)+'\"><span "
        "class=\"'+cls+'\" style=\"width:'+p+'%\"></span>'+m+'</div> '+num(v)}"
        "\n"
        "function bucket(w,od){if(od)return '<span class=\"z\">on-demand</span>"
        "';\n"
        " if(!(w.bucket_capacity>0))return '<span class=\"z\">-</span>';\n"
        " var lv=w.bucket_level||0,net=(w.share_per_second||0)-(w.consumed_last"
        "_second||0),s=num(lv)+' <span class=\"t\">/ '+num(w.bucket_capacity)+'"
        "</span> ';\n"
        " if(net<-0.05)s+='<span class=\"dn\" title=\"consuming faster than the"
        " share: the bank drains\">&#9660; '+num(-net)+'/s'+(lv>0?' <span class"
        "=\"t\">empty in '+dur(lv/-net)+'</span>':'')+'</span>';\n"
        " else if(lv<w.bucket_capacity-0.05)s+='<span class=\"up\" title=\"refi"
        "lling at the unused share\">&#9650; '+num(net)+'/s</span>';\n"
        " else s+='<span class=\"t\">full</span>';return s}\n"
        "function dur(s){s=Math.round(s);return s<90?s+\" s\":Math.round(s/60)+"
        "\" min\"}\n"
        "function thr(o){if(!o)return '<span class=\"z\">-</span>';var r=o.thro"
        "ttled_last_second||0,t=o.throttled_total||0,c=o.throttled,d=[];\n"
        " for(var k in c)if(c[k])d.push(k+\" \"+c[k]);\n"
        " return '<span class=\"'+(r?\"thr\":\"z\")+'\">'+r+'</span> <span clas"
        "s=\"t\" title=\"'+esc(d.join(\", \"))+'\">('+num(t)+')</span>'}\n"
        "function setUrl(){if(!want)return;var u=new URLSearchParams(location.s"
        "earch);u.set(\"table\",want.t);\n"
        " if(want.i)u.set(\"index\",want.i);else u.delete(\"index\");history.re"
        "placeState(null,\"\",\"?\"+u.toString())}\n"
        "function clear(msg){gone=msg;$(\"psum\").textContent=\"\";document.que"
        "rySelector(\"#parts tbody\").innerHTML=\"\";$(\"hk\").innerHTML=\"\";"
        "\n"
        " var s=$(\"state\");s.textContent=msg;s.style.display=\"block\"}\n"
        "function tables(){return j(\"/shardlocal/tables\").then(function(d){\n"
        " var names=[],nt=0,ni=0;d.tables.forEach(function(t){names.push({t:t.t"
        "able,i:\"\"});nt++;\n"
        "  (t.indexes||[]).forEach(function(i){names.push({t:t.table,i:i.index}"
        ");ni++})});\n"
        " names.forEach(function(n){seen[key(n)]=true});\n"
        " if(!want&&names.length){want=names[0];setUrl()}\n"
        " var k=key(want),have=names.some(function(n){return key(n)==k});\n"
        " var opts=names.map(function(n){return '<option value=\"'+esc(key(n))+"
        "'\">'+esc(key(n))+\"</option>\"});\n"
        " if(want&&!have)opts.unshift('<option value=\"'+esc(k)+'\">'+esc(k)+(s"
        "een[k]?\" (deleted)\":\" (not found)\")+\"</option>\");\n"
        " var h=opts.join(\"\");if(sel.innerHTML!=h)sel.innerHTML=h;if(want)sel"
        ".value=k;\n"
        " $(\"meta\").textContent=\"clock \"+new Date(d.now_ms).toISOString()+"
        "\" \\u00b7 \"+pl(nt,\"table\")+\", \"+pl(ni,\"index\",\"indexes\");\n"
        " return have})}\n"
        "function missing(){var k=key(want);clear(want.i?(seen[k]?\"Index \"+wa"
        "nt.i+\" of table \"+want.t+\" was deleted.\":\"Index \"+want.i+\" of t"
        "able \"+want.t+\" does not exist (yet): waiting for it.\"):\n"
        " (seen[k]?\"Table \"+want.t+\" was deleted.\":\"Table \"+want.t+\" doe"
        "s not exist (yet): waiting for it.\"))}\n"
        "function base(){return \"/shardlocal/tables/\"+encodeURIComponent(want"
        ".t)+(want.i?\"/indexes/\"+encodeURIComponent(want.i):\"\")}\n"
        "function mine(d){return d.table==want.t&&(d.index||\"\")==want.i}\n"
        "function parts(){return j(base()+\"/partitions\").then(function(d){if("
        "!mine(d))return;\n"
        " var od=d.billing_mode==\"PAY_PER_REQUEST\",pr=d.provisioned,w=d.write"
        "||{},r=d.read||{};\n"
        " $(\"psum\").innerHTML=esc(\"(\"+pl(d.partition_count,\"partition\")+"
        "\", \"+pl(d.item_count||0,\"item\")+\", \"+d.billing_mode+\n"
        "  (pr?\" \"+pr.write_capacity_units+\" WCU / \"+pr.read_capacity_units"
        "+\" RCU\":\"\")+\")\")+\n"
        "  ' &middot; throttled in the last second: <span class=\"'+(w.throttle"
        "d_last_second?\"thr\":\"z\")+'\">'+pl(w.throttled_last_second||0,\"wri"
        "te\")+'</span>, <span class=\"'+(r.throttled_last_second?\"thr\":\"z\""
        ")+'\">'+pl(r.throttled_last_second||0,\"read\")+\"</span>\";\n"
        " document.querySelector(\"#parts tbody\").innerHTML=d.partitions.map(f"
        "unction(p){\n"
        "  var w=p.write||{},r=p.read||{},hot=w.throttled_last_second||r.thrott"
        "led_last_second;\n"
        "  return \"<tr\"+(hot?' class=\"hot\"':\"\")+\"><td>\"+p.partition+'</"
        "td><td class=\"l\"><code>'+p.hash_start.slice(0,8)+\"&hellip;\"+p.hash"
        "_end.slice(0,8)+\"</code></td><td>\"+num(p.item_count||0)+\"</td><td>"
        "\"+num(p.size_bytes||0)+\n"
        "   '</td><td class=\"l\">'+bar(w.consumed_last_second||0,w.ceiling_per"
        "_second||0,\"w\",w.share_per_second)+\n"
        "   '</td><td class=\"l\">'+bar(r.consumed_last_second||0,r.ceiling_per"
        "_second||0,\"r\",r.share_per_second)+\n"
        "   '</td><td class=\"l\">'+bucket(w,od)+\"</td><td>\"+thr(p.write)+\"<"
        "/td><td>\"+thr(p.read)+\"</td></tr>\"}).join(\"\")})}\n"
        "function hot(){return j(base()+\"/hotkeys?n=8\").then(function(d){if(!"
        "mine(d))return;var out=\"\";\n"
        " [[\"consumed_write\",\"most written (WCU)\"],[\"consumed_read\",\"mos"
        "t read (RCU)\"],[\"throttled_write\",\"most throttled writes\"],[\"thr"
        "ottled_read\",\"most throttled reads\"]].forEach(function(k){\n"
        "  var l=d[k[0]]||[];out+='<table><caption>'+k[1]+'</caption><thead><tr"
        "><th class=\"l\">key</th><th class=\"p\" title=\"partition\">#</th><th"
        " class=\"c\">count</th></tr></thead><tbody>'+\n"
        "  (l.length?l.map(function(e){return '<tr><td class=\"l\" title=\"'+es"
        "c(e.key_text)+'\">'+esc(e.key_text)+\"</td><td>\"+(e.partition==null?"
        "\"\":e.partition)+\"</td><td>\"+num(e.count)+\"</td></tr>\"}).join(\""
        "\"):'<tr><td class=\"l z\" colspan=\"3\">none</td></tr>')+\"</tbody></"
        "table>\"});\n"
        " $(\"hk\").innerHTML=out})}\n"
        "function refresh(){if(!want)return Promise.resolve();var w0=key(want);"
        "\n"
        " return Promise.all([parts(),hot()]).then(function(){if(key(want)==w0&"
        "&gone){gone=null;$(\"state\").style.display=\"none\"}})\n"
        " .catch(function(e){if(e.nf&&key(want)==w0)missing();else throw e})}\n"
        "function tick(){tables().then(function(have){if(!want)return clear(\"N"
        "o tables yet: waiting for one.\");if(!have)return missing();return ref"
        "resh()})\n"
        " .catch(function(e){$(\"meta\").textContent=\"error: \"+e}).then(funct"
        "ion(){setTimeout(tick,1000)})}\n"
        "sel.onchange=function(){var v=sel.value,p=v.indexOf(\"/\");want=p<0?{t"
        ":v,i:\"\"}:{t:v.slice(0,p),i:v.slice(p+1)};setUrl();\n"
        " tables().then(function(have){if(have)return refresh();missing()})};\n"
        "tick();\n"
        "</script></body></html>\n";

    return page;
}
