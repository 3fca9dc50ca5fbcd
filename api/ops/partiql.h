/* SPDX-License-Identifier: MIT */
/* partiql.h - what the PartiQL operations share: ExecuteStatement
 * (partiql.c, its SELECT in partiql_select.c), BatchExecuteStatement and
 * ExecuteTransaction (partiql_multi.c). A statement of a request compiled
 * (api/expr/partiql.h), its writes as the write path's requests
 * (write.h), its single-item reads. Private to api/ops/. */
#ifndef SHARDLOCAL_OPS_PARTIQL_H
#define SHARDLOCAL_OPS_PARTIQL_H

#include <stdbool.h>
#include <jansson.h>

#include "api/expr/partiql.h"
#include "api/index/index.h"
#include "api/ops/write.h"
#include "api/proto/context.h"
#include "api/tables/tables.h"

/* One statement of a request and its members (Statement, Parameters,
 * ConsistentRead, ReturnValuesOnConditionCheckFailure). */
struct pql_call {
    const json_t *m;                /* borrowed: the statement's members */
    struct pql_stmt *s;             /* owned once compiled */
    json_t *tn;                     /* owned: {"TableName": its table}, as
                                       table_ref_open() reads a request */
    json_t *params;                 /* owned: the write path's params
                                       (ReturnValuesOnConditionCheckFailure) */
    size_t pos;                     /* its index in the request's list */
};

void pql_call_init(struct pql_call *c, const json_t *m);
/* Compile c's statement with its parameters (pql_compile()). */
int pql_call_compile(struct pql_call *c, struct ddb_err *err);
void pql_call_fini(struct pql_call *c);
/* Whether the statement reads (SELECT) rather than writes. */
bool pql_call_reads(const struct pql_call *c);

/*
 * Fill w from c's INSERT, UPDATE, DELETE or EXISTS on the table whose key
 * schema is ks: the item or the key (the WHERE clause's equalities), the
 * condition (the rest of the WHERE, with the statement's guard), the
 * update (taken from the statement), RETURNING as ReturnValues. w's
 * params are c's. -1 with err set ("Where clause does not contain a
 * mandatory equality on all key attributes", ...).
 */
int pql_write_setup(struct pql_call *c, const struct key_schema *ks,
                    struct write_req *w, struct ddb_err *err);

/* One PartiQL write on its own (ExecuteStatement, BatchExecuteStatement). */
struct pql_write {
    struct write_req w;
    struct table_ref tr;
    struct item_key k;
    double idx_units[INDEX_MAX];
    bool insert;
};

void pql_write_init(struct pql_write *pw);
/* Open c's table and resolve its write against it (write_resolve()). */
int pql_write_prepare(struct api_ctx *ctx, struct pql_call *c,
                      struct pql_write *pw, struct ddb_err *err);
/*
 * Run a prepared write as PutItem, UpdateItem and DeleteItem run theirs:
 * an item an ongoing transaction holds, admission on the item's partition,
 * the write path with index upkeep and GSI back-pressure, the charge, the
 * units recorded. An INSERT onto an existing item fails with
 * DuplicateItemException (or, asked for ALL_OLD, the failed condition and
 * the item, as DynamoDB Local answers).
 */
int pql_write_run(struct api_ctx *ctx, struct pql_write *pw,
                  struct ddb_err *err);
void pql_write_fini(struct pql_write *pw);

/*
 * A SELECT of a batch or a transaction: one item by its whole primary key
 * and nothing else. Opens c's table into tr and returns the key in *key
 * (new). -1 with err set: DynamoDB's "Select statements within <op> must
 * specify the primary key in the where clause." (op "BatchExecuteStatement"
 * or "ExecuteTransaction"), an index refused.
 */
int pql_item_read_prepare(struct api_ctx *ctx, struct pql_call *c,
                          const char *op, struct table_ref *tr, json_t **key,
                          struct ddb_err *err);

/* ExecuteStatement's SELECT (partiql_select.c): Queries or a Scan of the
 * table or index, Limit and NextToken over them, the PartiQL projection.
 * req (borrowed) is the request. */
int pql_select_run(struct api_ctx *ctx, struct pql_call *c,
                   const json_t *req, json_t **resp, struct ddb_err *err);

/* "PartiQL statements cannot be executed on tables with multi-attribute
 * ..." when the index named is one (paritysuite/dynamodb-conformance
 * error-messages/partiqlMultiAttributeIndex.test.ts, 2026-10). */
#define PQL_MSG_MULTI "PartiQL statements cannot be executed on tables " \
    "with multi-attribute HASH keys or multi-attribute RANGE keys."

#endif
