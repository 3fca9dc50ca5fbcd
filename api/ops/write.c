/* SPDX-License-Identifier: MIT */
/* write.c - the write paths' shared gates (write.h): GSI back-pressure on
 * every planned index row, and the LSI item collection limit. */
#include <stdlib.h>
#include <string.h>

#include "api/proto/capacity.h"
#include "api/ops/write.h"
#include "storage/util.h"

/* ------------------------------------------------------------------------
 * GSI back-pressure for every write path, and the item collection limit
 * ---------------------------------------------------------------------- */

void
gsi_gate_init(struct gsi_gate *g)
{
    memset(g, 0, sizeof(*g));
}

/* Forget every admission (nothing paid). */
static void
gate_reset(struct gsi_gate *g)
{
    size_t i;

    for (i = 0; g->th != NULL && i < g->n; i++)
        g->th[i].admitted = false;
    g->n = 0;
    g->refused = NULL;
    g->cause = THROTTLE_OK;
}

int
gsi_gate_admit(struct api_ctx *ctx, const char *table,
                  const struct index_set *s, const struct index_plan *p,
                  double mult, struct gsi_gate *g, struct ddb_err *err)
{
    double puts[INDEX_MAX];
    size_t i, j;

    gate_reset(g);
    if (ctx->srv->throttle == NULL || s == NULL || p == NULL)
        return 0;
    memset(puts, 0, sizeof(puts));
    /* The put rows' units per index: a delete pays the rest of the
     * index's units (index_plan charges the old row's size for it). */
    for (j = 0; j < p->nops; j++)
        for (i = 0; i < s->n; i++)
            if (s->idx[i].t == p->ops[j].t && p->args[j].row != NULL)
                puts[i] += capacity_write_units(p->args[j].size);
    for (j = 0; j < p->nops; j++) {
        const struct stxn_op *op = &p->ops[j];
        const struct index_def *d = NULL;
        struct gate_ticket *th;
        enum throttle_cause c;
        double u;

        for (i = 0; i < s->n; i++)
            if (s->idx[i].t == op->t) {
                d = &s->idx[i];
                break;
            }
        if (d == NULL || !d->global || p->units[i] <= 0)
            continue;
        u = p->args[j].row != NULL ? capacity_write_units(p->args[j].size)
                                   : p->units[i] - puts[i];
        if (u < 1)
            u = 1;
        if (g->th == NULL)
            g->th = xcalloc(2 * INDEX_MAX, sizeof(*g->th));
        if (g->n >= 2 * INDEX_MAX)
            break;
        th = &g->th[g->n];
        gate_init(th);
        c = gate_try_index(ctx, table, d, s->desc, op->k.hash, op->k.pk,
                           op->k.pk_len, THROTTLE_WRITE, u, th);
        if (c != THROTTLE_OK) {
            struct throttle_table *tt = th->tt;

            gate_reset(g);
            g->refused = tt;
            g->cause = c;
            return throttle_err(tt, THROTTLE_WRITE, c, err);
        }
        if (!th->admitted)
            continue;                   /* no throttle state: nothing due */
        g->units[g->n] = u * mult;
        g->n++;
    }
    return 0;
}

void
gsi_gate_charge(struct api_ctx *ctx, struct gsi_gate *g)
{
    size_t i;

    for (i = 0; g->th != NULL && i < g->n; i++)
        if (g->th[i].admitted) {
            g->th[i].admitted = false;
            throttle_charge(g->th[i].tt, &g->th[i].tk, g->units[i],
                            g->th[i].pk, g->th[i].pk_len, ctx->now_ms);
        }
    g->n = 0;
}

void
gsi_gate_fini(struct gsi_gate *g)
{
    gate_reset(g);
    free(g->th);
    g->th = NULL;
}

uint64_t
write_collection_limit(const struct api_ctx *ctx)
{
    if (ctx->srv == NULL || ctx->srv->conf == NULL)
        return 0;
    return ctx->srv->conf->item_collection_limit;
}

void
write_gate_init(struct write_gate *w, struct api_ctx *ctx,
                   const char *table, const struct index_set *s,
                   struct stable *base, const struct item_key *k)
{
    memset(w, 0, sizeof(*w));
    w->ctx = ctx;
    w->table = table;
    w->s = s;
    w->base = base;
    w->k = k;
    gsi_gate_init(&w->g);
}

int
write_gate_fn(void *arg, const json_t *old, const json_t *new_item,
                 const struct index_plan *p, struct ddb_err *err)
{
    struct write_gate *w = arg;

    w->throttled = false;
    if (gsi_gate_admit(w->ctx, w->table, w->s, p, 1.0, &w->g,
                          err) != 0) {
        w->throttled = true;
        return -1;
    }
    if (index_collection_check(w->s, w->base, w->k, old, new_item,
                               write_collection_limit(w->ctx),
                               err) != 0) {
        gate_reset(&w->g);
        return -1;
    }
    return 0;
}

/* A write made partition part of t bigger than --split-size: split it (and
 * its throttle state). Cheap when it did not: one in-memory stats read. */
