/* SPDX-License-Identifier: MIT */
/* tables.c - the admin API's JSON views of tables and GSIs (GET
 * /shardlocal/tables/...): sizes and per-partition hash ranges from the
 * store; consumption, bucket levels, throttles and hot keys from the
 * throttle engine. Read-only; never creates throttle state. routes.c
 * serves these views, metrics.c reads the same tables and GSIs. */

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/admin/admin_int.h"
#include "api/index/index.h"
#include "api/streams/streams.h"
#include "storage/util.h"

/* ------------------------------------------------------------------------
 * One table or GSI as the admin API sees it
 * ---------------------------------------------------------------------- */

void
admin_src_fini(struct admin_src *s)
{
    if (s->t != NULL)
        stable_release(s->t);
    json_decref(s->desc);
    s->t = NULL;
    s->desc = NULL;
}

int
admin_src_open(struct api_server *srv, const char *table, const char *index,
               struct admin_src *s, struct ddb_err *err)
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
            admin_src_fini(s);
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

/* Open each GSI of table s (borrowed) in turn and call fn with it. */
static void
gsi_each(struct api_server *srv, const struct admin_src *s,
         admin_src_fn *fn, void *arg)
{
    const json_t *el;
    struct ddb_err e;
    size_t i;

    ddb_err_init(&e);
    json_array_foreach(json_object_get(s->desc, "GlobalSecondaryIndexes"),
                       i, el) {
        const char *name = json_string_value(json_object_get(el,
                                                             "IndexName"));
        struct admin_src g;

        if (name == NULL)
            continue;
        if (admin_src_open(srv, s->table, name, &g, &e) != 0) {
            ddb_err_clear(&e);
            continue;
        }
        fn(arg, &g);
        admin_src_fini(&g);
    }
}

void
admin_src_each(struct api_server *srv, admin_src_fn *fn, void *arg)
{
    json_t *names = storage_table_names(srv->st), *n;
    struct ddb_err e;
    size_t i;

    ddb_err_init(&e);
    json_array_foreach(names, i, n) {
        struct admin_src s;

        if (admin_src_open(srv, json_string_value(n), NULL, &s, &e) != 0) {
            ddb_err_clear(&e);
            continue;
        }
        fn(arg, &s);
        gsi_each(srv, &s, fn, arg);
        admin_src_fini(&s);
    }
    json_decref(names);
}

const char *
admin_src_billing(const struct admin_src *s)
{
    const char *b = json_string_value(json_object_get(
        json_object_get(s->desc, "BillingModeSummary"), "BillingMode"));

    return b != NULL ? b : "PROVISIONED";
}

void
admin_src_units(const struct admin_src *s, json_int_t *rcu, json_int_t *wcu)
{
    const json_t *pt = json_object_get(s->desc, "ProvisionedThroughput");

    if (s->index[0] != '\0')
        pt = json_object_get(index_desc_gsi(s->desc, s->index),
                             "ProvisionedThroughput");
    *rcu = json_integer_value(json_object_get(pt, "ReadCapacityUnits"));
    *wcu = json_integer_value(json_object_get(pt, "WriteCapacityUnits"));
}

uint64_t
admin_throttled_sum(const struct throttle_op_stats *o)
{
    uint64_t n = 0;
    int c;

    for (c = THROTTLE_OK + 1; c < THROTTLE_CAUSE_COUNT; c++)
        n += o->throttled[c];
    return n;
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
    if (index != NULL)
        ks = json_object_get(index_desc_gsi(desc, index), "KeySchema");
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
               num_from_sortkey(k, len, buf) == 0) {
        json_object_set_new(obj, "key", json_pack("{s:s}", "N", buf));
        json_object_set_new(obj, "key_text", json_string(buf));
        goto out;
    }
    item_b64_encode(k, len, buf);
    json_object_set_new(obj, "key", json_pack("{s:s}", "B", buf));
    hex_encode(k, len, buf);
    json_object_set_new(obj, "key_text", json_string(buf));
out:
    free(buf);
}

/* ------------------------------------------------------------------------
 * Summaries and partitions
 * ---------------------------------------------------------------------- */

static const char *const cause_keys[THROTTLE_CAUSE_COUNT] = {
    [THROTTLE_OK] = NULL,
    [THROTTLE_KEY_RANGE] = "key_range",
    [THROTTLE_PROVISIONED] = "provisioned",
    [THROTTLE_MAX_ON_DEMAND] = "max_on_demand",
    [THROTTLE_ACCOUNT_LIMIT] = "account_limit",
};

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
                        json_integer((json_int_t)admin_throttled_sum(o)));
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
set_recent(json_t *j, struct throttle_table *tt, long part, unsigned nparts,
           uint64_t now)
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

/* The summary of one table or GSI (new reference): sizes, mode,
 * provisioned units, table-wide consumption and throttles. */
static json_t *
summary_json(struct admin_src *s, uint64_t now, bool history)
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
                        json_string(admin_src_billing(s)));
    admin_src_units(s, &rcu, &wcu);
    if (strcmp(admin_src_billing(s), "PAY_PER_REQUEST") != 0)
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
        set_recent(j, s->tt, -1, ts.nparts, now);
    }
    return j;
}

/* Where admin_table_json() and admin_tables_json() collect summaries:
 * the list they go to and the clock. */
struct summaries {
    json_t *list;                       /* borrowed array */
    uint64_t now;
};

static void
gsi_add(void *arg, struct admin_src *g)
{
    struct summaries *l = arg;

    json_array_append_new(l->list, summary_json(g, l->now, false));
}

json_t *
admin_table_json(struct api_server *srv, struct admin_src *s, uint64_t now,
                 bool history)
{
    json_t *j = summary_json(s, now, history);
    struct summaries l = { json_array(), now };

    if (s->index[0] != '\0') {
        json_decref(l.list);
        return j;
    }
    gsi_each(srv, s, gsi_add, &l);
    json_object_set_new(j, "indexes", l.list);
    /* DynamoDB Streams: per stream label, its readers' calls, records and
     * bytes returned, and calls refused by a read limit */
    json_object_set_new(j, "streams", streams_meter_json(srv, s->table));
    return j;
}

/* admin_src_each() callback of admin_tables_json(): a table's summary
 * opens a new entry, its GSIs' summaries follow in its "indexes". */
static void
tables_add(void *arg, struct admin_src *s)
{
    struct summaries *l = arg;
    json_t *sum = summary_json(s, l->now, false), *last;

    if (s->index[0] == '\0') {
        json_object_set_new(sum, "indexes", json_array());
        json_array_append_new(l->list, sum);
        return;
    }
    last = json_array_get(l->list, json_array_size(l->list) - 1);
    json_array_append_new(json_object_get(last, "indexes"), sum);
}

json_t *
admin_tables_json(struct api_server *srv, uint64_t now)
{
    struct summaries l = { json_array(), now };

    admin_src_each(srv, tables_add, &l);
    return json_pack("{s:I,s:o}", "now_ms", (json_int_t)now, "tables",
                     l.list);
}

json_t *
admin_partitions_json(struct admin_src *s, uint64_t now, bool history)
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
            set_recent(p, s->tt, (long)i, n, now);
        }
        ddb_err_clear(&e);
        json_array_append_new(parts, p);
    }
    json_object_set_new(j, "partitions", parts);
    return j;
}

/* ------------------------------------------------------------------------
 * Hot keys
 * ---------------------------------------------------------------------- */

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
hotkeys_list(struct admin_src *s, enum throttle_hk_kind kind, size_t n,
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
            key_set(k, type != NULL ? type[0] : 0, hk[i].key,
                    hk[i].key_len, NULL, 0);
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

json_t *
admin_hotkeys_json(struct admin_src *s, size_t n)
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
