/* SPDX-License-Identifier: MIT */
/* admin_int.h - private to api/admin/: one table or GSI as the admin views
 * see it and the JSON views of it (tables.c), which routes.c serves and
 * metrics.c reads, and the live view's page (ui.c, compiled in from
 * api/admin/ui/ by ui_embed.sh as ui_page.c). */
#ifndef SHARDLOCAL_ADMIN_INT_H
#define SHARDLOCAL_ADMIN_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "api/admin/admin.h"
#include "api/throttle/throttle.h"
#include "storage/util.h"

#define ADMIN_NAME_MAX 1100             /* table and index names, + NUL */

/* ------------------------------------------------------------------------
 * One table or GSI (tables.c)
 * ---------------------------------------------------------------------- */

struct admin_src {
    char table[ADMIN_NAME_MAX];
    char index[ADMIN_NAME_MAX];         /* "" for the table itself */
    struct stable *t;                   /* owned: the table, or the GSI's
                                           hidden table */
    json_t *desc;                       /* owned ref: the base table's */
    struct throttle_table *tt;          /* borrowed; NULL if no traffic yet */
};

/*
 * Open table (index NULL or "") or its GSI index into s; release it with
 * admin_src_fini(). Returns 0, or -1 with err: ResourceNotFoundException
 * naming what is missing, in the words DescribeContributorInsights uses.
 */
int admin_src_open(struct api_server *srv, const char *table,
                   const char *index, struct admin_src *s,
                   struct ddb_err *err);
void admin_src_fini(struct admin_src *s);

/* Called with each table or GSI, open for the call (s borrowed). */
typedef void admin_src_fn(void *arg, struct admin_src *s);
/* Every table in name order, each followed by its GSIs; what cannot be
 * opened (deleted meanwhile) is skipped. */
void admin_src_each(struct api_server *srv, admin_src_fn *fn, void *arg);

/* "PROVISIONED" or "PAY_PER_REQUEST" (GSIs share the table's mode). */
const char *admin_src_billing(const struct admin_src *s);
/* Provisioned read and write units of the table or GSI (0 if none). */
void admin_src_units(const struct admin_src *s, json_int_t *rcu,
                     json_int_t *wcu);
/* Requests of one direction throttled, every cause. */
uint64_t admin_throttled_sum(const struct throttle_op_stats *o);

/* ------------------------------------------------------------------------
 * JSON views (tables.c): each a new reference the caller owns.
 * ---------------------------------------------------------------------- */

/* GET /shardlocal/tables: every table with its GSIs, summaries only. */
json_t *admin_tables_json(struct api_server *srv, uint64_t now);
/* GET .../{table} or .../indexes/{index}: the summary, and for a table
 * its GSIs' summaries ("indexes"). history adds per-second counters. */
json_t *admin_table_json(struct api_server *srv, struct admin_src *s,
                         uint64_t now, bool history);
/* GET .../partitions: the summary plus one entry per partition. */
json_t *admin_partitions_json(struct admin_src *s, uint64_t now,
                              bool history);
/* GET .../hotkeys: the top n keys of every sketch. */
json_t *admin_hotkeys_json(struct admin_src *s, size_t n);

/* ------------------------------------------------------------------------
 * History (history.c)
 * ---------------------------------------------------------------------- */

/* At most this many partition samples in one answer (some 35 MB of
 * JSON): past it, fewer seconds or one partition must be asked for. */
#define ADMIN_HISTORY_MAX_SAMPLES 250000
#define ADMIN_HISTORY_SECONDS_MSG "seconds must be a whole number from 1 " \
                                  "to 900"

/*
 * GET .../history: the last `seconds` (1 to THROTTLE_RING_S) of s, every
 * partition (part < 0) or one, appended to out as JSON text. -1 with err
 * (ValidationException) for seconds or a partition out of range, or too
 * many samples.
 */
int admin_history(struct admin_src *s, uint64_t now, unsigned seconds,
                  long part, struct strbuf *out, struct ddb_err *err);

/* ------------------------------------------------------------------------
 * The live view (ui.c)
 * ---------------------------------------------------------------------- */

/* The page, ui/index.html with live.css and live.js inlined; generated
 * into ui_page.c by ui_embed.sh. NUL-terminated; the length excludes it. */
extern const unsigned char admin_ui_html[];
extern const size_t admin_ui_html_len;

/* GET /shardlocal/ui: the page, 200 text/html. */
void admin_ui_page(struct admin_reply *out);

#endif
