/* SPDX-License-Identifier: MIT */
/* gate.c - the per-request gates between the operations and the throttling
 * engine: admit before running (fault rules, then the token buckets of the
 * key's partition, or of a GSI partition), charge what was consumed after,
 * split partitions that outgrew --split-size, and keep each table's
 * throttle state in step with CreateTable, UpdateTable and DeleteTable. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/index/index.h"
#include "api/proto/capacity.h"
#include "api/throttle/faults.h"
#include "api/throttle/gate.h"
#include "storage/util.h"

/* ------------------------------------------------------------------------
 * Throttle log: at most one line per table per second, with the count of
 * throttles since the last line.
 * ---------------------------------------------------------------------- */

#define TLOG_SLOTS 64

static struct {
    char table[256];
    uint64_t last_ms;               /* monotonic */
    uint64_t pending;               /* throttles not logged yet */
} tlog[TLOG_SLOTS];
static pthread_mutex_t tlog_mu = PTHREAD_MUTEX_INITIALIZER;

/* Printable form of key bytes (truncated, non-printables as \xNN). */
static void
key_text(const uint8_t *pk, size_t len, char *out, size_t outsz)
{
    size_t i, o = 0;

    for (i = 0; i < len && o + 5 < outsz; i++) {
        if (pk[i] >= 0x20 && pk[i] < 0x7f && pk[i] != '"' && pk[i] != '\\')
            out[o++] = (char)pk[i];
        else
            o += (size_t)snprintf(out + o, outsz - o, "\\x%02x", pk[i]);
    }
    if (i < len && o + 4 < outsz) {
        memcpy(out + o, "...", 3);
        o += 3;
    }
    out[o] = '\0';
}

static void
throttle_log(struct api_ctx *ctx, const char *table, unsigned part,
             const uint8_t *pk, size_t pk_len, const char *reason,
             bool injected)
{
    uint64_t now = mono_ms(), count = 0;
    unsigned h = 5381;
    const char *p;
    char key[200];
    size_t slot;
    bool emit = false;

    if (ctx->srv->conf == NULL || ctx->srv->conf->log_level < LOG_INFO)
        return;
    for (p = table; *p != '\0'; p++)
        h = h * 33u + (unsigned char)*p;
    slot = h % TLOG_SLOTS;
    pthread_mutex_lock(&tlog_mu);
    if (strcmp(tlog[slot].table, table) != 0) {
        snprintf(tlog[slot].table, sizeof(tlog[slot].table), "%s", table);
        tlog[slot].last_ms = 0;
        tlog[slot].pending = 0;
    }
    tlog[slot].pending++;
    if (tlog[slot].last_ms == 0 || now - tlog[slot].last_ms >= 1000) {
        emit = true;
        count = tlog[slot].pending;
        tlog[slot].pending = 0;
        tlog[slot].last_ms = now;
    }
    pthread_mutex_unlock(&tlog_mu);
    if (!emit)
        return;
    key_text(pk, pk != NULL ? pk_len : 0, key, sizeof(key));
    fprintf(stderr, "shardlocal: throttled table=%s partition=%u key=\"%s\" "
            "reason=%s%s count=%llu (in the last second)\n", table, part,
            key, reason, injected ? " (fault injection)" : "",
            (unsigned long long)count);
}

/* ------------------------------------------------------------------------
 * Admission and charging
 * ---------------------------------------------------------------------- */

/* Serialises size and throughput splits (storage splits one at a time
 * anyway, and the throttle state must follow the same order). */
static pthread_mutex_t split_mu = PTHREAD_MUTEX_INITIALIZER;

/* A split in tt's history: partition part (-1: every one) split for
 * cause. */
static void
split_event(struct api_ctx *ctx, struct throttle_table *tt, int part,
            enum throttle_split_cause cause)
{
    struct throttle_event ev = { .kind = THROTTLE_EV_SPLIT,
                                 .partition = part, .cause = cause };

    if (tt != NULL)
        throttle_event_add(tt, &ev, ctx->now_ms);
}

void
gate_init(struct gate_ticket *th)
{
    memset(th, 0, sizeof(*th));
}

struct throttle_table *
gate_table(struct api_ctx *ctx, struct stable *t)
{
    struct throttle_registry *reg = ctx->srv->throttle;
    struct throttle_table *tt;
    struct throttle_table_conf tc;
    struct throttle_limits lim;
    const char *name = stable_name(t);
    json_t *desc;

    if (reg == NULL)
        return NULL;
    tt = throttle_registry_find(reg, name, NULL);
    if (tt != NULL)
        return tt;
    desc = stable_desc_ref(t);
    memset(&tc, 0, sizeof(tc));
    if (desc == NULL ||
        throttle_conf_from_desc(desc, NULL, stable_nparts(t), &tc) != 0) {
        tc.on_demand = true;
        tc.nparts = stable_nparts(t);
        tc.arn = "";
    }
    throttle_registry_limits(reg, &lim);
    if (desc != NULL)
        throttle_limits_apply_tags(&lim, json_object_get(desc, "_slTags"));
    tt = throttle_registry_get(reg, name, NULL, &tc, &lim, ctx->now_ms);
    json_decref(desc);
    return tt;
}

/* Split for heat (throttle_heat_note): partition part of t (and of its
 * throttle state tt) has run hot on two keys at least; split it at ring
 * position at, between them, unless a split already moved it. */
static void
heat_split(struct api_ctx *ctx, struct throttle_table *tt, struct stable *t,
           unsigned part, uint64_t at)
{
    struct ddb_err e;

    ddb_err_init(&e);
    pthread_mutex_lock(&split_mu);
    /* in step with storage, and at still inside partition part (else the
     * split refuses) */
    if (throttle_table_nparts(tt) == stable_nparts(t) &&
        stable_split_at(t, part, at, &e) == 0) {
        throttle_table_split(tt, part, ctx->now_ms, &e);
        split_event(ctx, tt, (int)part, THROTTLE_SPLIT_HEAT);
        if (ctx->srv->conf != NULL && ctx->srv->conf->log_level >= LOG_INFO)
            fprintf(stderr, "shardlocal: table %s: partition %u split for "
                    "heat at %016llx, its hot keys apart (%u partitions)\n",
                    stable_name(t), part, (unsigned long long)at,
                    stable_nparts(t));
    }
    pthread_mutex_unlock(&split_mu);
    ddb_err_clear(&e);
}

/* Admission on partition part of tt (name: the table, for fault rules and
 * the log; t: the storage table read or written); the cause, with th
 * filled either way. */
static enum throttle_cause
admit_tt(struct api_ctx *ctx, struct throttle_table *tt, const char *name,
         bool is_index, struct stable *t, unsigned part, const uint8_t *pk,
         size_t pk_len, enum throttle_op op, double need,
         struct gate_ticket *th, bool *injected)
{
    enum throttle_cause c = THROTTLE_OK;

    th->admitted = false;
    th->t = t;
    th->pk = NULL;
    th->pk_len = 0;
    if (pk != NULL && pk_len <= sizeof(th->pkbuf)) {
        if (pk != th->pkbuf)
            memcpy(th->pkbuf, pk, pk_len);
        th->pk = th->pkbuf;
        th->pk_len = pk_len;
    }
    th->tt = tt;
    *injected = false;
    if (th->tt == NULL)
        return THROTTLE_OK;
    if (!is_index)
        c = faults_check(ctx->srv->faults, name, pk, pk_len, op);
    if (c != THROTTLE_OK) {
        *injected = true;
    } else {
        uint64_t at;

        c = throttle_admit(th->tt, part, op, need, pk, pk_len, ctx->now_ms,
                           &th->tk);
        if (pk != NULL && t != NULL &&
            throttle_heat_note(th->tt, part, key_hash64(th->hash), need,
                               ctx->now_ms, &at))
            heat_split(ctx, th->tt, t, part, at);
        if (c == THROTTLE_OK) {
            th->admitted = true;
            return c;
        }
    }
    throttle_log(ctx, name, part, pk, pk_len,
                 throttle_reason(is_index, op, c), *injected);
    return c;
}

static enum throttle_cause
admit_part(struct api_ctx *ctx, struct stable *t, unsigned part,
           const uint8_t *pk, size_t pk_len, enum throttle_op op,
           double need, struct gate_ticket *th, bool *injected)
{
    return admit_tt(ctx, gate_table(ctx, t), stable_name(t), false, t,
                    part, pk, pk_len, op, need, th, injected);
}

int
gate_admit_part(struct api_ctx *ctx, struct stable *t, unsigned part,
                       const uint8_t *pk, size_t pk_len, enum throttle_op op,
                       double need, struct gate_ticket *th,
                       struct ddb_err *err)
{
    enum throttle_cause c;
    bool injected;

    c = admit_part(ctx, t, part, pk, pk_len, op, need, th, &injected);
    if (c == THROTTLE_OK)
        return 0;
    return throttle_err(th->tt, op, c, err);
}

int
gate_admit(struct api_ctx *ctx, struct stable *t,
                  const struct item_key *k, enum throttle_op op, double need,
                  struct gate_ticket *th, struct ddb_err *err)
{
    if (ctx->srv->throttle == NULL) {
        th->admitted = false;
        th->tt = NULL;
        return 0;
    }
    memcpy(th->hash, k->hash, sizeof(th->hash));
    return gate_admit_part(ctx, t, stable_part_of(t, k->hash), k->pk,
                                  k->pk_len, op, need, th, err);
}

int
gate_admit_hash(struct api_ctx *ctx, struct stable *t,
                       const uint8_t hash[16], const uint8_t *pk,
                       size_t pk_len, enum throttle_op op, double need,
                       struct gate_ticket *th, struct ddb_err *err)
{
    if (ctx->srv->throttle == NULL) {
        th->admitted = false;
        th->tt = NULL;
        return 0;
    }
    memcpy(th->hash, hash, sizeof(th->hash));
    return gate_admit_part(ctx, t, stable_part_of(t, hash), pk,
                                  pk_len, op, need, th, err);
}

enum throttle_cause
gate_try(struct api_ctx *ctx, struct stable *t,
                const struct item_key *k, enum throttle_op op, double need,
                struct gate_ticket *th)
{
    bool injected;

    if (ctx->srv->throttle == NULL) {
        th->admitted = false;
        th->tt = NULL;
        return THROTTLE_OK;
    }
    memcpy(th->hash, k->hash, sizeof(th->hash));
    return admit_part(ctx, t, stable_part_of(t, k->hash), k->pk, k->pk_len,
                      op, need, th, &injected);
}

double
gate_write_need(struct api_ctx *ctx, struct stable *t,
                const struct item_key *k, size_t new_size, double mult)
{
    size_t old = 0;
    struct ddb_err e;

    if (ctx->srv->throttle == NULL)
        return mult;
    ddb_err_init(&e);
    if (stable_size_of(t, k, &old, &e) != 0)
        old = 0;                    /* the write reports the error */
    ddb_err_clear(&e);
    return mult * capacity_write_units(old > new_size ? old : new_size);
}

/* ------------------------------------------------------------------------
 * Global secondary indexes: their own throttle state (registry entry
 * (table, index)) over their hidden table's partitions.
 * ---------------------------------------------------------------------- */

/* The throttle state of GSI d of table, from desc (the base table's
 * description, borrowed). NULL without a registry. */
static struct throttle_table *
index_tt(struct api_ctx *ctx, const char *table, const struct index_def *d,
         const json_t *desc)
{
    struct throttle_registry *reg = ctx->srv->throttle;
    struct throttle_table *tt;
    struct throttle_table_conf tc;
    struct throttle_limits lim;

    if (reg == NULL || d->t == NULL)
        return NULL;
    tt = throttle_registry_find(reg, table, d->name);
    if (tt != NULL)
        return tt;
    if (desc == NULL ||
        throttle_conf_from_desc(desc, d->name, stable_nparts(d->t), &tc) != 0)
        return NULL;
    throttle_registry_limits(reg, &lim);
    throttle_limits_apply_tags(&lim, json_object_get(desc, "_slTags"));
    return throttle_registry_get(reg, table, d->name, &tc, &lim,
                                 ctx->now_ms);
}

enum throttle_cause
gate_try_index(struct api_ctx *ctx, const char *table,
               const struct index_def *d, const json_t *desc,
               const uint8_t hash[16], const uint8_t *pk, size_t pk_len,
               enum throttle_op op, double need, struct gate_ticket *th)
{
    struct throttle_table *tt;
    bool injected;

    th->admitted = false;
    th->tt = NULL;
    if (ctx->srv->throttle == NULL || !d->global)
        return THROTTLE_OK;
    tt = index_tt(ctx, table, d, desc);
    if (tt == NULL)
        return THROTTLE_OK;
    memcpy(th->hash, hash, sizeof(th->hash));
    return admit_tt(ctx, tt, table, true, d->t, stable_part_of(d->t, hash),
                    pk, pk_len, op, need, th, &injected);
}

int
gate_admit_index(struct api_ctx *ctx, const char *table,
                 const struct index_def *d, const json_t *desc,
                 const uint8_t hash[16], const uint8_t *pk, size_t pk_len,
                 enum throttle_op op, double need, struct gate_ticket *th,
                 struct ddb_err *err)
{
    enum throttle_cause c = gate_try_index(ctx, table, d, desc, hash, pk,
                                           pk_len, op, need, th);

    if (c == THROTTLE_OK)
        return 0;
    return throttle_err(th->tt, op, c, err);
}

/* A write made partition part of t bigger than --split-size: split it (and
 * its throttle state). Cheap when it did not: one in-memory stats read. */
static void
maybe_split_size(struct api_ctx *ctx, struct gate_ticket *th)
{
    uint64_t limit = ctx->srv->conf != NULL ? ctx->srv->conf->split_size : 0;
    uint64_t count, bytes;
    struct ddb_err e;
    unsigned part;

    if (limit == 0)
        return;
    ddb_err_init(&e);
    part = stable_part_of(th->t, th->hash);
    if (stable_part_stats(th->t, part, &count, &bytes, &e) != 0 ||
        bytes <= limit || count < 2)
        goto out;
    pthread_mutex_lock(&split_mu);
    part = stable_part_of(th->t, th->hash);
    if (stable_part_stats(th->t, part, &count, &bytes, &e) == 0 &&
        bytes > limit && count >= 2 && stable_split(th->t, part, &e) == 0) {
        if (th->tt != NULL &&
            throttle_table_nparts(th->tt) + 1 == stable_nparts(th->t)) {
            throttle_table_split(th->tt, part, ctx->now_ms, &e);
            split_event(ctx, th->tt, (int)part, THROTTLE_SPLIT_SIZE);
        }
        if (ctx->srv->conf->log_level >= LOG_INFO)
            fprintf(stderr, "shardlocal: table %s: partition %u passed "
                    "%llu bytes, split in two (%u partitions)\n",
                    stable_name(th->t), part, (unsigned long long)limit,
                    stable_nparts(th->t));
    }
    pthread_mutex_unlock(&split_mu);
out:
    ddb_err_clear(&e);
}

void
gate_charge(struct api_ctx *ctx, struct gate_ticket *th, double units)
{
    if (!th->admitted)
        return;
    th->admitted = false;
    throttle_charge(th->tt, &th->tk, units, th->pk, th->pk_len, ctx->now_ms);
    if (th->tk.op == THROTTLE_WRITE && th->pk != NULL)
        maybe_split_size(ctx, th);
}

void
gate_release(struct gate_ticket *th)
{
    if (!th->admitted)
        return;
    th->admitted = false;
    /* time 0: the engine's clock never runs backwards, so this is now */
    throttle_charge(th->tt, &th->tk, 0, NULL, 0, 0);
}

void
gate_charge_other(struct api_ctx *ctx, const struct gate_ticket *th,
                         unsigned part, double units)
{
    struct throttle_ticket tk;

    if (th->tt == NULL)
        return;
    throttle_ticket_init(&tk, part, th->tk.op);
    throttle_charge(th->tt, &tk, units, NULL, 0, ctx->now_ms);
}

void
gate_charge_part(struct api_ctx *ctx, struct stable *t, unsigned part,
                        enum throttle_op op, double units)
{
    struct throttle_table *tt = gate_table(ctx, t);
    struct throttle_ticket tk;

    if (tt == NULL)
        return;
    throttle_ticket_init(&tk, part, op);
    throttle_charge(tt, &tk, units, NULL, 0, ctx->now_ms);
}

/* The GSIs with throttle state of one table (registry foreach). */
struct gsi_list {
    const char *table;
    size_t n;
    char *names[INDEX_GSI_MAX * 2];
};

static void
gsi_collect(void *arg, const char *table, const char *index,
            struct throttle_table *t)
{
    struct gsi_list *l = arg;

    (void)t;
    if (index != NULL && strcmp(table, l->table) == 0 &&
        l->n < sizeof(l->names) / sizeof(l->names[0])) {
        l->names[l->n] = xstrdup(index);
        l->n++;
    }
}

/* UpdateTable: each GSI's new throughput from desc; the state of GSIs no
 * longer in desc (deleted) is dropped. */
static void
gsi_update(struct api_ctx *ctx, const char *table, const json_t *desc)
{
    struct throttle_registry *reg = ctx->srv->throttle;
    struct throttle_table_conf tc;
    struct throttle_table *tt;
    struct gsi_list l;
    size_t i;

    memset(&l, 0, sizeof(l));
    l.table = table;
    throttle_registry_foreach(reg, gsi_collect, &l);
    for (i = 0; i < l.n; i++) {
        tt = throttle_registry_find(reg, table, l.names[i]);
        if (throttle_conf_from_desc(desc, l.names[i], 1, &tc) != 0)
            throttle_registry_drop(reg, table, l.names[i]);
        else if (tt != NULL)
            throttle_table_update(tt, &tc, ctx->now_ms);
        free(l.names[i]);
    }
}

/* The "shardlocal:" tags of desc (borrowed) as "knob=value ..." text in
 * out (cut to fit). Returns how many there are. */
static int
knob_text(const json_t *desc, char *out, size_t outsz)
{
    const json_t *tag;
    size_t i, o = 0;
    int n = 0;

    out[0] = '\0';
    json_array_foreach(json_object_get(desc, "_slTags"), i, tag) {
        const char *k = json_string_value(json_object_get(tag, "Key"));
        const char *v = json_string_value(json_object_get(tag, "Value"));
        int w;

        if (k == NULL || v == NULL || strncmp(k, "shardlocal:", 11) != 0)
            continue;
        n++;
        if (o + 1 >= outsz)
            continue;
        w = snprintf(out + o, outsz - o, "%s%s=%s", o > 0 ? " " : "",
                     k + 11, v);
        o = w < 0 ? o : o + (size_t)w < outsz ? o + (size_t)w : outsz - 1;
    }
    return n;
}

void
gate_table_tagged(struct api_ctx *ctx, const char *table, const json_t *desc)
{
    struct throttle_registry *reg = ctx->srv->throttle;
    struct throttle_event ev = { .kind = THROTTLE_EV_TAG, .partition = -1 };
    struct throttle_table *tt;
    struct gsi_list l;
    size_t i;

    if (reg == NULL)
        return;
    knob_text(desc, ev.text, sizeof(ev.text));
    tt = throttle_registry_find(reg, table, NULL);
    if (tt != NULL)
        throttle_event_add(tt, &ev, ctx->now_ms);
    memset(&l, 0, sizeof(l));
    l.table = table;
    throttle_registry_foreach(reg, gsi_collect, &l);
    for (i = 0; i < l.n; i++) {
        tt = throttle_registry_find(reg, table, l.names[i]);
        if (tt != NULL)
            throttle_event_add(tt, &ev, ctx->now_ms);
        free(l.names[i]);
    }
}

void
gate_table_update(struct api_ctx *ctx, struct stable *t, const json_t *desc)
{
    struct throttle_registry *reg = ctx->srv->throttle;
    struct throttle_table *tt;
    struct throttle_table_conf tc;

    if (reg == NULL)
        return;
    tt = throttle_registry_find(reg, stable_name(t), NULL);
    if (tt != NULL &&               /* else created from desc on use */
        throttle_conf_from_desc(desc, NULL, stable_nparts(t), &tc) == 0)
        throttle_table_update(tt, &tc, ctx->now_ms);
    gsi_update(ctx, stable_name(t), desc);
}

/* The partitions the table (index NULL) or GSI of desc needs: for its
 * provisioned throughput and its warm throughput; 0 if not described. */
static unsigned
parts_needed(struct throttle_registry *reg, const json_t *desc,
             const char *index, struct throttle_table_conf *tc)
{
    struct throttle_limits lim;
    unsigned need = 1, warm;

    if (throttle_conf_from_desc(desc, index, 1, tc) != 0)
        return 0;
    throttle_registry_limits(reg, &lim);
    throttle_limits_apply_tags(&lim, json_object_get(desc, "_slTags"));
    if (!tc->on_demand)
        need = throttle_limits_partitions(&lim, tc->rcu, tc->wcu);
    warm = throttle_limits_warm_partitions(&lim, tc->on_demand, tc->warm_rru,
                                           tc->warm_wru);
    return warm > need ? warm : need;
}

/* Every partition of t split (the last first), and the throttle state tt
 * (may be NULL) with it, until t has need of them. */
static int
split_to(struct api_ctx *ctx, struct stable *t, struct throttle_table *tt,
         unsigned need, struct ddb_err *err)
{
    unsigned i, n;
    int rc = 0;

    pthread_mutex_lock(&split_mu);
    while (rc == 0 && stable_nparts(t) < need && stable_nparts(t) < 4096) {
        n = stable_nparts(t);
        for (i = n; i-- > 0;) {
            if (stable_split(t, i, err) != 0) {
                rc = -1;
                break;
            }
            if (tt != NULL)
                throttle_table_split(tt, i, ctx->now_ms, err);
        }
        /* one event per doubling; a failed one names the partitions that
         * did split (n - 1 down to i + 1) */
        if (rc == 0)
            split_event(ctx, tt, -1, THROTTLE_SPLIT_THROUGHPUT);
        else
            while (++i < n)
                split_event(ctx, tt, (int)i, THROTTLE_SPLIT_THROUGHPUT);
    }
    pthread_mutex_unlock(&split_mu);
    return rc;
}

/* The GSIs of desc whose warm or provisioned throughput needs more
 * partitions than their hidden tables have. */
static int
indexes_resize(struct api_ctx *ctx, const char *table, const json_t *desc,
               struct ddb_err *err)
{
    struct throttle_registry *reg = ctx->srv->throttle;
    struct throttle_table_conf tc;
    const json_t *g;
    const char *iname;
    char hidden[1200];
    struct stable *it;
    unsigned need;
    size_t i;
    int rc = 0;

    json_array_foreach(json_object_get(desc, "GlobalSecondaryIndexes"), i,
                       g) {
        iname = json_string_value(json_object_get(g, "IndexName"));
        if (iname == NULL || rc != 0)
            continue;
        need = parts_needed(reg, desc, iname, &tc);
        index_table_name(table, iname, hidden, sizeof(hidden));
        it = storage_table_get(ctx->srv->st, hidden);
        if (it == NULL)
            continue;
        if (stable_nparts(it) < need)
            rc = split_to(ctx, it, throttle_registry_find(reg, table, iname),
                          need, err);
        stable_release(it);
    }
    return rc;
}

int
gate_table_resize(struct api_ctx *ctx, struct stable *t, const json_t *desc,
                  struct ddb_err *err)
{
    struct throttle_registry *reg = ctx->srv->throttle;
    struct throttle_table_conf tc;
    unsigned need;
    int rc = 0;

    if (reg == NULL)
        return 0;
    need = parts_needed(reg, desc, NULL, &tc);
    if (stable_nparts(t) < need) {
        rc = split_to(ctx, t, gate_table(ctx, t), need, err);
        if (rc == 0 && ctx->srv->conf != NULL &&
            ctx->srv->conf->log_level >= LOG_INFO)
            fprintf(stderr, "shardlocal: table %s: %u partitions for "
                    "%.0f RCU / %.0f WCU, warm %.0f / %.0f\n",
                    stable_name(t), stable_nparts(t), tc.rcu, tc.wcu,
                    tc.warm_rru, tc.warm_wru);
    }
    if (rc == 0)
        rc = indexes_resize(ctx, stable_name(t), desc, err);
    gate_table_update(ctx, t, desc);
    return rc;
}

void
gate_table_created(struct api_ctx *ctx, const char *table)
{
    struct stable *t;

    if (ctx->srv->throttle == NULL)
        return;
    throttle_registry_drop(ctx->srv->throttle, table, NULL);
    t = storage_table_get(ctx->srv->st, table);
    if (t == NULL)
        return;
    gate_table(ctx, t);
    {
        json_t *desc = stable_desc_ref(t);
        struct index_set *is = xcalloc(1, sizeof(*is));
        struct ddb_err e;
        char kt[8];
        size_t i;

        ddb_err_init(&e);
        if (desc != NULL && index_desc_has(desc)) {
            if (index_set_open(ctx->srv->st, desc, is, &e) == 0)
                for (i = 0; i < is->n; i++)
                    if (is->idx[i].global)
                        index_tt(ctx, table, &is->idx[i], desc);
            index_set_close(is);        /* safe after a failed open */
        }
        if (desc != NULL && knob_text(desc, kt, sizeof(kt)) > 0)
            gate_table_tagged(ctx, table, desc);  /* the history's tags */
        ddb_err_clear(&e);
        json_decref(desc);
        free(is);
    }
    stable_release(t);
}

void
gate_table_dropped(struct api_ctx *ctx, const char *table)
{
    if (ctx->srv->throttle != NULL)
        throttle_registry_drop(ctx->srv->throttle, table, NULL);
    faults_drop(ctx->srv->faults, table);
}

