/* SPDX-License-Identifier: MIT */
/* table_desc.h - extras from op_table.c for the data operations: open a
 * table and get its (settled) description in one step, so a handler that
 * needs the key schema does not deep-copy the description twice. */
#ifndef SHARDLOCAL_TABLE_DESC_H
#define SHARDLOCAL_TABLE_DESC_H

#include <jansson.h>

#include "api/api.h"
#include "api/proto/av.h"

/*
 * api_open_table() plus the table's description: *desc (may be NULL if not
 * wanted) is a new reference the caller frees, with the status transitions
 * that are due applied. It may hold private members whose names start with
 * "_sl": never send it to a client as is. Same errors as api_open_table().
 */
int api_open_table_desc(struct api_ctx *ctx, const json_t *req,
                        struct stable **t, json_t **desc,
                        struct ddb_err *err);
/* The same, but *desc is a read-only reference to the store's description
 * (no copy when no status transition is due): never modify it. */
int api_open_table_ref(struct api_ctx *ctx, const json_t *req,
                       struct stable **t, json_t **desc,
                       struct ddb_err *err);
/* Serialise a read-modify-write of a description (stable_desc, change,
 * stable_set_desc) with DDL: re-read the description after locking. Not
 * recursive; do not open tables (api_open_table*) while holding it. */
void api_ddl_lock(void);
void api_ddl_unlock(void);

/* ------------------------------------------------------------------------
 * The table of a request.
 * ---------------------------------------------------------------------- */

struct table_ref {
    struct stable *t;               /* owned handle (released by close) */
    struct key_schema ks;           /* the table's primary key */
    const char *name;               /* stable_name(t), valid while open */
};

/* api_open_table() + the key schema. On failure -1 with err set and
 * nothing to close (table_ref_close is still safe). */
int table_ref_open(struct api_ctx *ctx, const json_t *req,
                  struct table_ref *ot, struct ddb_err *err);
void table_ref_close(struct table_ref *ot);


#endif
