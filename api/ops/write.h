/* SPDX-License-Identifier: MIT */
/* write.h - what every write path shares (PutItem, UpdateItem, DeleteItem,
 * BatchWriteItem, TransactWriteItems): GSI back-pressure on the planned
 * index rows and the item collection limit, checked before a write
 * commits. */
#ifndef SHARDLOCAL_OPS_WRITE_H
#define SHARDLOCAL_OPS_WRITE_H

#include <stdbool.h>
#include <jansson.h>

#include "api/proto/context.h"
#include "api/index/index.h"
#include "api/throttle/gate.h"
#include "storage/storage.h"

/*
 * GSI back-pressure of one planned base-item write, for every write path
 * (PutItem, UpdateItem, DeleteItem, BatchWriteItem, TransactWriteItems):
 * each index row the plan writes (index_plan: the old row's delete on its
 * partition, the new row's put on its) must find write capacity on its
 * GSI partition; LSIs share the table's capacity and admit nothing here.
 * gsi_gate_admit forgets any earlier admission (a retried plan), then
 * admits; on a refusal -1 with err set to the GSI's throttling exception
 * (Index... reason, index ARN), g->refused/g->cause naming it (for batch
 * and transaction reasons), and nothing pending. gsi_gate_charge pays
 * what was admitted: each row's write units (index_plan's per-index units)
 * times mult (2 in transactions). gsi_gate_fini frees; it pays nothing.
 */
struct gsi_gate {
    size_t n;                       /* tickets in th */
    struct gate_ticket *th;         /* owned: 2 * INDEX_MAX tickets */
    double units[2 * INDEX_MAX];    /* what each ticket pays */
    struct throttle_table *refused; /* borrowed: the GSI that refused */
    enum throttle_cause cause;      /* its cause (THROTTLE_OK: none) */
};
void gsi_gate_init(struct gsi_gate *g);
int gsi_gate_admit(struct api_ctx *ctx, const char *table,
                      const struct index_set *s, const struct index_plan *p,
                      double mult, struct gsi_gate *g,
                      struct ddb_err *err);
void gsi_gate_charge(struct api_ctx *ctx, struct gsi_gate *g);
void gsi_gate_fini(struct gsi_gate *g);

/*
 * The index_gate_fn of single-item writes (op_item.c, op_batch.c): GSI
 * back-pressure (gsi_gate_admit into w->g), then the item collection
 * limit (--item-collection-limit, tables with LSIs). Fill the inputs,
 * gsi_gate_init(&w->g), pass it to index_mutate_gated(); afterwards
 * gsi_gate_charge (the write happened) and gsi_gate_fini.
 * w->throttled tells a GSI refusal (the request then changed nothing and
 * must not pay its base-table admission either) from other failures.
 */
struct write_gate {
    struct api_ctx *ctx;            /* borrowed */
    const char *table;              /* borrowed: the base table's name */
    const struct index_set *s;      /* borrowed */
    struct stable *base;            /* borrowed */
    const struct item_key *k;       /* borrowed: the base item's key */
    struct gsi_gate g;
    bool throttled;                 /* out: a GSI refused the write */
};
void write_gate_init(struct write_gate *w, struct api_ctx *ctx,
                        const char *table, const struct index_set *s,
                        struct stable *base, const struct item_key *k);
int write_gate_fn(void *arg, const json_t *old, const json_t *new_item,
                     const struct index_plan *p, struct ddb_err *err);
/* The --item-collection-limit in bytes (0: none). */
uint64_t write_collection_limit(const struct api_ctx *ctx);

#endif
