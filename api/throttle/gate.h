/* SPDX-License-Identifier: MIT */
/* gate.h - per-request admission and charging over the throttling engine
 * (throttle.h), with fault injection first; the table-level hooks that
 * keep throttle state in step with DDL. */
#ifndef SHARDLOCAL_THROTTLE_GATE_H
#define SHARDLOCAL_THROTTLE_GATE_H

#include <stdbool.h>
#include <jansson.h>

#include "api/proto/context.h"
#include "api/index/index.h"
#include "api/throttle/throttle.h"
#include "storage/storage.h"

/* ------------------------------------------------------------------------
 * Throttling (docs/throttling.md 8). A data request asks before it runs and
 * pays after:
 *
 *     struct gate_ticket th;
 *     gate_init(&th);
 *     ... table opened, key built ...
 *     if (gate_admit(ctx, ot.t, &k, THROTTLE_WRITE, need, &th,
 *                           err) != 0)
 *         goto out;                        nothing changed: PTEE etc.
 *     ... run it (a failed condition still pays) ...
 * out:
 *     gate_charge(ctx, &th, units); no-op unless admitted
 *     table_ref_close(&ot);                 after the charge
 *
 * Without a registry (ctx->srv->throttle NULL, e.g. unit tests) every call
 * admits and charges nothing.
 * ---------------------------------------------------------------------- */

struct gate_ticket {
    struct throttle_table *tt;      /* borrowed from the registry */
    struct stable *t;               /* borrowed: the admitted table */
    struct throttle_ticket tk;
    bool admitted;                  /* charge pending */
    const uint8_t *pk;              /* the key's bytes (pkbuf) or NULL */
    size_t pk_len;
    uint8_t hash[16];               /* the key's hash (size splits) */
    uint8_t pkbuf[KEY_BYTES_MAX];   /* copy of the key's bytes */
};

void gate_init(struct gate_ticket *th);
/* The throttle state of table t (index NULL), created on first use from
 * its description and "shardlocal:" tags. NULL when the server has no
 * registry. Borrowed: valid until the server stops. */
struct throttle_table *gate_table(struct api_ctx *ctx,
                                         struct stable *t);
/*
 * May a request on key k of table t run? need
 * is the least it can cost (<= 0: 1). Applies fault-injection rules first.
 * Returns 0 (th admitted: call gate_charge later), or -1 with err
 * set to DynamoDB's throttling exception; the request must then change
 * nothing. Every throttle is logged (rate-limited) at level info.
 */
int gate_admit(struct api_ctx *ctx, struct stable *t,
                      const struct item_key *k, enum throttle_op op,
                      double need, struct gate_ticket *th,
                      struct ddb_err *err);
/* The same on partition part (Query/Scan pages, whose key may be
 * unknown); pk may be NULL. */
int gate_admit_part(struct api_ctx *ctx, struct stable *t,
                           unsigned part, const uint8_t *pk, size_t pk_len,
                           enum throttle_op op, double need,
                           struct gate_ticket *th, struct ddb_err *err);
/* Query/Scan: admit on the partition owning hash (the queried key's, or
 * where a Scan page starts); pk (copied, may be NULL) feeds the hot keys. */
int gate_admit_hash(struct api_ctx *ctx, struct stable *t,
                           const uint8_t hash[16], const uint8_t *pk,
                           size_t pk_len, enum throttle_op op, double need,
                           struct gate_ticket *th, struct ddb_err *err);
/*
 * Global secondary indexes have their own throttle state over their
 * hidden table's partitions. Reads of GSI d (Query/Scan with IndexName)
 * admit here: hash/pk are the index key's; desc is the base table's
 * description (borrowed). A rejection fails with the Index... reason and
 * the GSI message. LSIs (d->global false) share the table's capacity:
 * this admits nothing, use gate_admit_hash on the base table.
 */
int gate_admit_index(struct api_ctx *ctx, const char *table,
                     const struct index_def *d, const json_t *desc,
                     const uint8_t hash[16], const uint8_t *pk,
                     size_t pk_len, enum throttle_op op, double need,
                     struct gate_ticket *th, struct ddb_err *err);
/* The same without raising an error (GSI back-pressure on writes): the
 * cause, THROTTLE_OK when admitted or when d has no throttle state; on a
 * refusal th->tt names the GSI's state and nothing is pending. */
enum throttle_cause gate_try_index(struct api_ctx *ctx, const char *table,
                                   const struct index_def *d,
                                   const json_t *desc,
                                   const uint8_t hash[16], const uint8_t *pk,
                                   size_t pk_len, enum throttle_op op,
                                   double need, struct gate_ticket *th);
/* Without raising an error: the cause (THROTTLE_OK when admitted), for
 * batch and transaction items; on a rejection th->tt is set (for
 * throttle_batch_err / throttle_txn_code) and nothing else happens. */
enum throttle_cause gate_try(struct api_ctx *ctx, struct stable *t,
                                    const struct item_key *k,
                                    enum throttle_op op, double need,
                                    struct gate_ticket *th);
/* What a write of key k in t will cost, as far as it can be known before
 * it runs: the write units of the larger of the stored item and the new
 * one (new_size 0 when unknown, e.g. a delete), times mult (2 in a
 * transaction). Reads the stored item's size when there is throttle
 * state; the admission of a transaction's items asks for it, so that a
 * transaction larger than its partitions can absorb is refused whole
 * instead of leaving them in debt. */
double gate_write_need(struct api_ctx *ctx, struct stable *t,
                       const struct item_key *k, size_t new_size,
                       double mult);
/* Pay units (e.g. 0.5, 1, 11) for an admitted request, then forget the
 * ticket (safe to call twice or without an admission). A write also checks
 * whether its partition passed --split-size, and splits it. */
void gate_charge(struct api_ctx *ctx, struct gate_ticket *th,
                        double units);
/* Give back what th's admission took, nothing having run (safe without an
 * admission): a request refused further on, e.g. by a GSI. */
void gate_release(struct gate_ticket *th);
/* Charge units to partition part of th's table (th admitted: a Scan page
 * that went on into other partitions), without admission. */
void gate_charge_other(struct api_ctx *ctx,
                              const struct gate_ticket *th, unsigned part,
                              double units);
/* Charge units to partition part without admission. */
void gate_charge_part(struct api_ctx *ctx, struct stable *t,
                             unsigned part, enum throttle_op op,
                             double units);
/* UpdateTable: new throughput from desc (the new description, borrowed) on
 * the table's throttle state, if it has one. */
void gate_table_update(struct api_ctx *ctx, struct stable *t,
                       const json_t *desc);
/*
 * UpdateTable, after the new description (borrowed) was stored: when the
 * provisioned throughput or the warm throughput of the table or of one of
 * its GSIs needs more partitions than it has (throttle_limits_partitions,
 * throttle_limits_warm_partitions, with the table's limits), split every
 * partition (stable_split from the last down, each matched by
 * throttle_table_split) until they suffice; lowering keeps the
 * partitions. Then the new throughput goes to the throttle state
 * (gate_table_update). -1 with err if a split failed (the partitions split
 * so far stay split, in storage and throttle state).
 */
int gate_table_resize(struct api_ctx *ctx, struct stable *t,
                      const json_t *desc, struct ddb_err *err);
/* The table's tags changed (desc, borrowed, holds the new ones): a tag
 * event, with the "shardlocal:" knobs now in force, in the history of the
 * table and of its GSIs. CreateTable records one when it was given knob
 * tags; whatever changes a table's tags later calls it once they are
 * stored. */
void gate_table_tagged(struct api_ctx *ctx, const char *table,
                       const json_t *desc);
/* CreateTable: start the new table's throttle state now (a stale one of
 * the same name is dropped first), so its banks fill from creation. */
void gate_table_created(struct api_ctx *ctx, const char *table);
/* DeleteTable: forget the table's throttle state and fault rules. */
void gate_table_dropped(struct api_ctx *ctx, const char *table);

#endif
