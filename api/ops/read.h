/* SPDX-License-Identifier: MIT */
/* read.h - what Query (query.c) and Scan (scan.c) share: one parsed read
 * request, the page being read, and the checks and page steps both run
 * (read.c). Private to api/ops/. */
#ifndef SHARDLOCAL_OPS_READ_H
#define SHARDLOCAL_OPS_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#include "api/expr/request.h"
#include "api/index/index.h"
#include "api/proto/context.h"
#include "api/tables/tables.h"
#include "api/throttle/gate.h"
#include "storage/util.h"

/* A page stops once the items read reach 1 MB (measured before the
 * filter), as DynamoDB's does. */
#define PAGE_BYTES_MAX (1024u * 1024u)

enum read_op { OP_QUERY, OP_SCAN };

/* One parsed Query or Scan request. */
struct read_req {
    enum read_op op;
    const json_t *req;              /* borrowed */
    struct req_exprs x;              /* names/values and legacy translations */
    struct table_ref ot;             /* the table (open after validation) */
    struct expr *keycond;           /* Query only */
    struct expr *filter;            /* FilterExpression / Query|ScanFilter */
    struct expr *proj;              /* ProjectionExpression / AttributesToGet */
    bool count_only;                /* Select: COUNT */
    long long limit;                /* 0: no Limit */
    bool consistent;                /* ConsistentRead */
    bool forward;                   /* ScanIndexForward (Query) */
    json_t *esk;                    /* owned: validated ExclusiveStartKey */
    struct item_key start;          /* encoded ExclusiveStartKey */
    uint64_t lo, hi;                /* Scan: the segment's hash range */
    /* IndexName: the index read instead of the table. */
    const struct key_schema *qks;   /* the key read by: table's or index's */
    bool has_iset;                  /* iset is open */
    const struct index_def *idx;    /* the index read, or NULL */
    struct stable *src;             /* what is read: ot.t or idx->t */
    bool fetch;                     /* LSI: read the items from the table */
    uint8_t start_isk[KEY_BYTES_MAX]; /* start key's index sort key */
    size_t start_isk_len;
    bool reply;                     /* the page is the reply (Query and
                                       Scan themselves, not PartiQL's
                                       reads): its items may go out as
                                       stored, past the response object */
    struct api_ctx *ctx;            /* borrowed: for throttling */
    struct gate_ticket th;          /* the page's admission (throttle/gate.c) */
    /* Last and left out of read_req_init()'s zeroing (64 KB, more
     * than the rest of a Query's work to clear): index_set_open() fills
     * it, has_iset says when; read_req_init() clears only what
     * index_set_close() reads. */
    struct index_set iset;          /* the table's indexes (IndexName) */
};

/* State of the page being read (the row callback's argument). */
struct page {
    struct read_req *r;
    json_t *items;                  /* owned; NULL for Select COUNT */
    json_t *lek;                    /* owned: LastEvaluatedKey or NULL */
    long long count;                /* items that passed the filter */
    long long scanned;              /* items read */
    size_t bytes;                   /* sum of item sizes read */
    json_t *pending;                /* owned: LSI rows whose items are
                                       fetched after the read */
    size_t fetched;                 /* bytes of items fetched (table) */
    /* Scan throttling: the partitions read, in order, with the bytes each
     * returned; the page's units are spread over them (read.c). */
    struct page_run {
        unsigned part;
        size_t bytes;
    } *runs;                        /* owned */
    size_t nruns, runs_cap;
    /* Items as stored (read_page_rows): the list's text so far, "[" and
     * the items comma-separated, sent without parsing an item. */
    bool raw;
    struct strbuf text;
};

/* ------------------------------------------------------------------------
 * The one read path: Query and Scan are its steps.
 * ---------------------------------------------------------------------- */

struct read_steps {
    enum read_op op;
    /* The request-only checks, in DynamoDB's order. */
    int (*validate)(struct read_req *r, struct ddb_err *err);
    /* The checks against the table (and index), once it is open. */
    int (*check)(struct read_req *r, struct ddb_err *err);
    /* Admit the page's read on its partition, then read the page. */
    int (*run)(struct read_req *r, struct page *pg, struct ddb_err *err);
};

/* Run a read: validate, open the table, check, read one page, fetch LSI
 * items, reply; the admitted partition is charged what was read there,
 * whatever happened. */
int read_run(const struct read_steps *s, struct api_ctx *ctx,
             const json_t *req, json_t **resp, struct ddb_err *err);
/* The same for a request r its caller validated and filled (PartiQL's
 * SELECT: its key condition, filter and projection already parsed): open,
 * check, one page, reply. The caller still owns r (read_req_fini). */
int read_exec(const struct read_steps *s, struct read_req *r, json_t **resp,
              struct ddb_err *err);
/* Query's and Scan's steps (query.c, scan.c). */
extern const struct read_steps read_query_steps, read_scan_steps;

/* ------------------------------------------------------------------------
 * The request (read.c)
 * ---------------------------------------------------------------------- */

void read_req_init(struct read_req *r, enum read_op op, struct api_ctx *ctx,
                   const json_t *req);
void read_req_fini(struct read_req *r);
/* Limit, ConsistentRead, ScanIndexForward and Select COUNT from the
 * request. */
void read_req_options(struct read_req *r);
/* Open the table (after the request-only checks), and IndexName's index. */
int read_open(struct read_req *r, struct ddb_err *err);
/* A legacy parameter (QueryFilter/ScanFilter, AttributesToGet,
 * KeyConditions) through req_exprs_parse() when the request has it. */
int read_parse_legacy(struct req_exprs *x, const json_t *req,
                      enum expr_kind kind, const char *member,
                      struct expr **out, struct ddb_err *err);
/* FilterExpression (or filter_param, QueryFilter / ScanFilter), then
 * ProjectionExpression, then the unused names/values checks. */
int read_parse_exprs(struct read_req *r, const char *filter_param,
                     struct ddb_err *err);
/* DynamoDB's rules for Select with ProjectionExpression/AttributesToGet. */
int read_check_select(const struct read_req *r, struct ddb_err *err);
/* Key attributes may not be reached into ('.', '[]') by member's
 * expression. */
int read_check_nested_keys(struct read_req *r, const char *member,
                           struct ddb_err *err);
/* Whether index d stores attribute attr: a key attribute of the table
 * (base) or of d, a NonKeyAttribute of an INCLUDE projection, anything
 * for ALL. */
bool read_index_projects(const struct index_def *d,
                         const struct key_schema *base, const char *attr);
/* A filter on an index, and a projection on a GSI, may name only
 * attributes the index stores. */
int read_check_projected(const struct read_req *r, struct ddb_err *err);
/* The key attribute names of what is read (table, or index plus table). */
size_t read_key_names(const struct read_req *r, const char **keys);
/* Key attributes in a key schema: 1 or 2. */
size_t read_key_attr_count(const struct key_schema *ks);

/* ------------------------------------------------------------------------
 * ExclusiveStartKey (read.c)
 * ---------------------------------------------------------------------- */

int read_esk_validate_values(struct read_req *r, struct ddb_err *err);
size_t read_esk_attr_count(const struct read_req *r);
/* One attribute of the start key against its key schema element. */
int read_esk_piece(const json_t *esk, const char *name, char type,
                   bool is_hash, struct ddb_err *err);
/* Encode the validated start key into r->start. */
int read_esk_build(struct read_req *r, struct ddb_err *err);

/* ------------------------------------------------------------------------
 * The page (read.c)
 * ---------------------------------------------------------------------- */

int read_page_begin(struct read_req *r, struct page *pg, struct ddb_err *err);
/* LSI rows read without their projected attributes: fetch their items from
 * the table, then filter and project them. */
int read_page_fetch(struct read_req *r, struct page *pg, struct ddb_err *err);
/* The reply of a finished page; its units recorded for ConsumedCapacity. */
json_t *read_page_reply(struct read_req *r, struct page *pg);
void read_page_fini(struct page *pg);
/* The stable_row_fn that fills a page. */
int read_page_row(void *arg, const struct item_key *k, const json_t *item,
                  size_t size, struct ddb_err *err);
/* Where a page's rows go: as stored text when the page is the reply and
 * nothing needs the parsed item (no filter, no projection, no fetch from
 * the table, not Select COUNT), else parsed to read_page_row. */
void read_page_rows(struct read_req *r, struct page *pg,
                    struct stable_rows *rows);

#endif
