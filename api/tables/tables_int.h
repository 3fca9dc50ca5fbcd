/* SPDX-License-Identifier: MIT */
/* tables_int.h - what the files of api/tables/ share and nothing outside
 * includes: the private members of a stored description, the request
 * checks, the description builders, the status transitions and the DDL
 * lock. Each section names the file that defines it. */
#ifndef SHARDLOCAL_TABLES_INT_H
#define SHARDLOCAL_TABLES_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <jansson.h>

#include "api/proto/context.h"
#include "storage/storage.h"

/*
 * The stored description is DynamoDB's TableDescription plus a few private
 * members whose names start with "_sl"; tables_public_desc() strips them
 * before a description leaves the server.
 */
#define PRIV_PREFIX     "_sl"
#define PRIV_UNTIL      "_slUntilMs"    /* end of CREATING/UPDATING/DELETING */
#define PRIV_TAGS       "_slTags"       /* the table's tags (tags.c) */
#define PRIV_POLICY     "_slPolicy"     /* resource policies (policy.c) */
#define PRIV_PITR       "_slPitr"       /* point-in-time recovery (pitr.c) */
/* The hidden name a point-in-time restore builds its table under before
 * renaming it (restore.c): "<target>/restoring". */
#define TABLES_RESTORING "/restoring"

#define TABLES_NAME_MAX 1100            /* a table name buffer, with room */

/* ------------------------------------------------------------------------
 * Small helpers, and the request's table (lookup.c)
 * ---------------------------------------------------------------------- */

/* The request's time: ctx->now_ms, or the wall clock when it is unset. */
uint64_t tables_now_ms(const struct api_ctx *ctx);
/* The request's region and the caller's account (borrowed strings). */
const char *tables_region(const struct api_ctx *ctx);
const char *tables_account(const struct api_ctx *ctx);
/* The configured status delay (how long CREATING etc. last), in ms. */
unsigned tables_status_delay(const struct api_ctx *ctx);
/* The string member key of obj (borrowed), or NULL. */
const char *tables_str(const json_t *obj, const char *key);
/* The non-negative integer member key of obj (throughput values), or -1. */
long long tables_uint(const json_t *obj, const char *key);

/* TableName of req (borrowed), or NULL with DynamoDB's ValidationException
 * for a missing one. */
const char *tables_req_name(const json_t *req, struct ddb_err *err);
/* The part after "table/" of a table ARN (arn:aws...:dynamodb:<region>:
 * <account>:table/...), its account into account; NULL when arn is not
 * one. */
const char *tables_arn_table(const char *arn, char account[13]);
/* The stored name (context.h) of the table param (a name of the caller's,
 * or a table ARN of any account) refers to, into out (outsz bytes). False
 * when param is no such name. */
bool tables_name_from_param(const struct api_ctx *ctx, const char *param,
                            char *out, size_t outsz);
/* May the caller use the table stored as `stored`? Its own account's,
 * yes; another's, only when a resource policy (srv->policy) allows: else
 * AccessDeniedException. With srv->policy set, it decides both. 0, or -1
 * with err set. */
int tables_check_access(const struct api_ctx *ctx, const char *stored,
                        struct ddb_err *err);
/*
 * Open the table param names (name or ARN; name receives the stored name)
 * with its settled description, like tables_open_settled(). On failure -1,
 * with ResourceNotFoundException "Table: <param> not found" when there is
 * no such table, AccessDeniedException for another account's table no
 * policy opens. with_lock: the caller holds the DDL lock.
 */
int tables_open_named(struct api_ctx *ctx, const char *param, bool with_lock,
                      char *name, size_t namesz, struct stable **t,
                      json_t **desc, struct ddb_err *err);

/* ------------------------------------------------------------------------
 * ARNs (arn.c): tables, their indexes, streams and backups
 * ---------------------------------------------------------------------- */

enum tables_arn_kind {
    ARN_TABLE,                          /* table/<name> */
    ARN_INDEX,                          /* table/<name>/index/<index> */
    ARN_STREAM,                         /* table/<name>/stream/<label> */
    ARN_BACKUP,                         /* table/<name>/backup/<id> */
    ARN_OTHER                           /* anything else */
};

/* arn:<partition>:<service>:<region>:<account>:<resource>, taken apart. */
struct tables_arn {
    enum tables_arn_kind kind;
    char partition[32];
    char service[32];
    char region[64];
    char account[32];
    char table[TABLES_NAME_MAX];        /* table/<table>: "" when none */
    char sub[TABLES_NAME_MAX];          /* the index name, stream label or
                                           backup id */
    char stored[TABLES_NAME_MAX];       /* the table's stored name (set by
                                           tables_resource_arn) */
};

/* Take s apart into *a: 0, -1 when s does not start with "arn:", -2 when
 * it has fewer than six ':'-separated parts (or one too long). */
int tables_arn_parse(const char *s, struct tables_arn *a);
/* a's table name is one (3..255 of [a-zA-Z0-9_.-]). */
bool tables_arn_name_ok(const struct tables_arn *a);
/* region is one of AWS's. */
bool tables_region_known(const char *region);
/*
 * The ResourceArn s of a tag operation (policy false) or a resource policy
 * operation (policy true): 0 when it names a table or a stream of this
 * account and region (*a filled), else -1 with the error DynamoDB gives
 * that family for it.
 */
int tables_resource_arn(const struct api_ctx *ctx, const char *s,
                        bool policy, struct tables_arn *a,
                        struct ddb_err *err);

/* ------------------------------------------------------------------------
 * Tags (tags.c)
 * ---------------------------------------------------------------------- */

#define TABLES_TAGS_MAX 50              /* tags per resource */

/* A Tags list (borrowed) as DynamoDB checks it, each tag's key and value,
 * the reserved aws: prefix, duplicates and the 50-tag limit; for
 * TagResource (create false) an empty list is refused too. */
int tables_check_tags(const json_t *tags, bool create, struct ddb_err *err);

/* ------------------------------------------------------------------------
 * Resource policies (policy.c)
 * ---------------------------------------------------------------------- */

/* Evaluating a policy for another account's caller (policy_eval.c). */
enum policy_effect { POLICY_NONE, POLICY_ALLOW, POLICY_DENY };
/* Does pattern ('*' and '?' wildcards) match s (nocase: ignoring case)? */
bool tables_policy_glob(const char *pattern, const char *s, bool nocase);
/* What the canonical policy doc says to account's root user doing action
 * ("dynamodb:GetItem") on arn: an explicit Deny, an Allow, or nothing. */
enum policy_effect tables_policy_eval(const json_t *doc, const char *account,
                                      const char *action, const char *arn);
/* AccessDeniedException in IAM's wording for ctx->op on arn: implicit
 * (no policy allows) or explicit_deny. Returns -1. */
int tables_access_denied(const struct api_ctx *ctx, const char *arn,
                         bool explicit_deny, struct ddb_err *err);
/* May the caller (another account) run ctx->op on the table stored as
 * `stored` (ARN arn)? Its table policy decides: 0, or -1 with err set. */
int tables_policy_access(const struct api_ctx *ctx, const char *stored,
                         const char *arn, struct ddb_err *err);
/* Check a table's policy document (CreateTable's ResourcePolicy) as
 * PutResourcePolicy does: 0 with *entry a new policy entry for
 * tables_policy_store(), or -1 with DynamoDB's error. */
int tables_policy_check(const struct api_ctx *ctx, const char *text,
                        json_t **entry, struct ddb_err *err);
/* Make entry (taken) desc's table policy, with a new RevisionId. */
void tables_policy_store(const struct api_ctx *ctx, json_t *desc,
                         json_t *entry);

/* ------------------------------------------------------------------------
 * Backups (backup.c), for RestoreTableFromBackup (restore.c)
 * ---------------------------------------------------------------------- */

/* The backup a BackupArn s names (*a: s taken apart): the store's entry
 * (storage_backup_get, a new reference), or NULL with DynamoDB's error. */
json_t *tables_backup_find(const struct api_ctx *ctx, const char *s,
                           struct tables_arn *a, struct ddb_err *err);
/* A table is being restored from the backup with id key (CREATING, its
 * name into table). Under the DDL lock (api_ddl_lock). */
bool tables_restoring_from(struct api_ctx *ctx, const char *key,
                           char *table, size_t tablesz);
/* desc describes an on-demand (PAY_PER_REQUEST) table. */
bool tables_on_demand(const json_t *desc);
/* The table's description as a backup keeps it, and a point-in-time
 * restore starts from it: public members and the Time to Live (new
 * reference). */
json_t *tables_backup_source(const json_t *desc);
/* The date-time member name of req as epoch ms (clamped to 0 ..
 * 9e15), or -1 when absent. */
long long tables_time_ms(const json_t *req, const char *name);

/* ------------------------------------------------------------------------
 * Status transitions and the DDL lock (status.c)
 * ---------------------------------------------------------------------- */

/*
 * Open table name and return its settled description (a new reference the
 * caller frees) in *desc and the handle (the caller releases) in *t. A due
 * transition is written back; a table whose DELETING period is over is
 * dropped. Returns 0, 1 when there is no such table (err untouched) or -1
 * on error. with_lock: the caller holds the DDL lock.
 */
int tables_open_settled(struct api_ctx *ctx, const char *name,
                        bool with_lock, struct stable **t, json_t **desc,
                        struct ddb_err *err);
/* Enter the transitional status (CREATING or UPDATING) for the status
 * delay, or go straight to ACTIVE when the delay is 0. */
void tables_set_status(const struct api_ctx *ctx, json_t *desc,
                       const char *transitional, uint64_t now);
/* ResourceInUseException when the table (desc) is CREATING, UPDATING or
 * DELETING; else 0. */
int tables_check_in_use(const json_t *desc, const char *name,
                        struct ddb_err *err);
/* Drop AttributeDefinitions that no key of the table or an index uses. */
void tables_prune_defs(json_t *desc);
/* Remove index el (borrowed, an element of desc's list `list`) from desc:
 * the list goes when empty, and the definitions only it used. */
void tables_index_remove(json_t *desc, const char *list, const json_t *el);
/* Drop table name now: its storage, its index tables and its throttle
 * state. A table already gone is no error. */
int tables_drop(struct api_ctx *ctx, const char *name, struct ddb_err *err);

/* One UpdateTable or DeleteTable call: its table, opened under the DDL
 * lock, which tables_ddl_end() releases. */
struct tables_ddl {
    struct api_ctx *ctx;
    struct stable *t;               /* owned; NULL once dropped */
    json_t *desc;                   /* owned: the settled description */
    char name[TABLES_NAME_MAX];     /* the table's plain name */
};

/* Take the DDL lock and open the table param names, as
 * tables_open_named(). The lock is held on failure too: always end with
 * tables_ddl_end(). */
int tables_ddl_begin(struct api_ctx *ctx, const char *param,
                     struct tables_ddl *d, struct ddb_err *err);
/* The same for the request's TableName (ValidationException when it has
 * none). */
int tables_ddl_begin_req(struct api_ctx *ctx, const json_t *req,
                         struct tables_ddl *d, struct ddb_err *err);
/*
 * Release the lock and the table. When rc is 0, *resp becomes
 * {"TableDescription": pub}, pub (taken) being the public description
 * built now from the table when NULL; otherwise pub is freed. Returns rc.
 */
int tables_ddl_end(struct tables_ddl *d, int rc, json_t *pub,
                   json_t **resp);

/* ------------------------------------------------------------------------
 * Request checks (check.c): DynamoDB's order and messages
 * ---------------------------------------------------------------------- */

/* A request's StreamSpecification (streams_meta.c). */
struct tables_stream_req {
    bool present;                   /* a change to make */
    bool enable;                    /* StreamEnabled */
    const char *view;               /* StreamViewType (borrowed) or NULL */
};

/* A CreateTable request, once checked. */
struct tables_create {
    char name[TABLES_NAME_MAX];     /* the table (TableName may be an ARN) */
    bool on_demand;                 /* BillingMode PAY_PER_REQUEST */
    long long r, w;                 /* ProvisionedThroughput (0 on demand) */
    json_t *odt;                    /* owned: OnDemandThroughput to store,
                                       or NULL */
    json_t *policy;                 /* owned: the ResourcePolicy entry to
                                       store (policy.c), or NULL */
    struct tables_stream_req stream; /* a stream to create it with */
};

/* Check a whole CreateTable request into *c (c->odt and c->policy are
 * the caller's to free, also after a failure). */
int tables_check_create(const struct api_ctx *ctx, const json_t *req,
                        struct tables_create *c, struct ddb_err *err);
/* TableClass, when present, must be one of DynamoDB's two (its own
 * message, after the request's shape). */
int tables_check_table_class(const json_t *req, struct ddb_err *err);
/* Members not supported yet (op names the operation in the message). */
int tables_reject_unsupported(const json_t *req, const char *op,
                              struct ddb_err *err);
/* ReadCapacityUnits and WriteCapacityUnits of a ProvisionedThroughput. */
int tables_read_throughput(const json_t *pt, long long *r, long long *w,
                           struct ddb_err *err);
/* An OnDemandThroughput as it is stored (new reference), or NULL with err
 * set. */
json_t *tables_read_on_demand(const json_t *odt, struct ddb_err *err);
/* One index's KeySchema against defs (global: a GSI, whose key may have
 * several attributes), then its Projection. */
int tables_check_index_key(const json_t *idx, const json_t *defs,
                           bool global, struct ddb_err *err);
int tables_check_projection(const json_t *idx, struct ddb_err *err);
/* A GSI's ProvisionedThroughput: required unless on_demand (missing is the
 * message's wording: "is not" or "must be"), not allowed when it is. */
int tables_check_gsi_billing(const json_t *idx, bool on_demand,
                             const char *missing, struct ddb_err *err);
/* DynamoDB's error for one GSI more than INDEX_GSI_MAX: type is
 * DDB_VALIDATION in CreateTable, DDB_LIMIT_EXCEEDED in UpdateTable. Always
 * returns -1. */
int tables_err_gsi_count(enum ddb_errtype type, struct ddb_err *err);

/* ------------------------------------------------------------------------
 * Descriptions (describe.c): built from requests, shown to clients
 * ---------------------------------------------------------------------- */

/* Epoch seconds with a fraction, as DynamoDB sends date-times. */
json_t *tables_epoch(uint64_t ms);
/* SSEDescription for an SSESpecification, or NULL when there is none to
 * show. New reference. */
json_t *tables_sse_desc(const struct api_ctx *ctx, const json_t *spec);
/*
 * The stored description of the table a checked CreateTable request
 * creates (new reference; takes c->odt). *nparts receives the table's
 * initial partition count, gparts[i] that of GSI i.
 */
json_t *tables_desc_new(const struct api_ctx *ctx, const json_t *req,
                        struct tables_create *c, uint64_t now,
                        unsigned *nparts, unsigned *gparts);
/* The description of one index from its request element (new reference);
 * *nparts receives its initial partition count. */
json_t *tables_index_desc_new(const struct api_ctx *ctx, const char *table,
                              const json_t *idx, bool global, bool on_demand,
                              const char *status, const json_t *tags,
                              unsigned *nparts);
/* The description as clients see it (new reference): private members
 * removed and, when t is given, live counts and sizes from st. */
json_t *tables_public_desc(struct storage *st, struct stable *t,
                           const json_t *desc);

/* The Projection of an index request element as descriptions show it.
 * New reference. */
json_t *tables_projection_desc(const json_t *proj);

/* ------------------------------------------------------------------------
 * StreamSpecification (streams_meta.c)
 * ---------------------------------------------------------------------- */

/* The request's own checks (create: CreateTable's messages, else
 * UpdateTable's). */
int tables_stream_parse(const json_t *req, bool create,
                        struct tables_stream_req *sr, struct ddb_err *err);
/* UpdateTable's checks against the table desc (name for the message). */
int tables_stream_check(const struct tables_stream_req *sr,
                        const json_t *desc, const char *name,
                        struct ddb_err *err);
/* Store desc (modified in place) as t's description, with the stream
 * opened or closed in the same commit when sr asks for it. */
int tables_stream_commit(struct api_ctx *ctx,
                         const struct tables_stream_req *sr,
                         struct stable *t, json_t *desc,
                         struct ddb_err *err);
/* Create table name (desc updated in place), logging from its creation
 * when sr enables a stream. */
int tables_stream_create(struct api_ctx *ctx,
                         const struct tables_stream_req *sr,
                         const char *name, json_t *desc, unsigned nparts,
                         struct ddb_err *err);
/* Keep a deleted table's streams readable: 1 kept (renamed), 0 nothing
 * to keep, -1 on error. */
int tables_stream_retire(struct api_ctx *ctx, const char *name,
                         struct ddb_err *err);
/* Is desc UPDATING for a stream being enabled or disabled (the status
 * delay since the stream's change not over at now)? */
bool tables_stream_busy(const struct api_ctx *ctx, const json_t *desc,
                        uint64_t now);

/* ------------------------------------------------------------------------
 * WarmThroughput (warm.c)
 * ---------------------------------------------------------------------- */

struct throttle_limits;

/* The server's throttle limits with the "shardlocal:" knobs among tags (a
 * Tags list, borrowed, may be NULL) applied. */
void tables_limits(const struct api_ctx *ctx, const json_t *tags,
                   struct throttle_limits *lim);
/* A new table's (iname NULL) or GSI's WarmThroughput request spec (may be
 * NULL) against its billing (r, w: its capacity units when provisioned):
 * not below what it gets anyway, not above the per-table quota. */
int tables_warm_check_new(const struct api_ctx *ctx,
                          const struct throttle_limits *lim,
                          const json_t *spec, bool on_demand, long long r,
                          long long w, const char *iname,
                          struct ddb_err *err);
/* CreateTable's WarmThroughput, the table's then each GSI's, after the
 * other checks (c: the checked request). */
int tables_warm_check_create(const struct api_ctx *ctx, const json_t *req,
                             const struct tables_create *c,
                             struct ddb_err *err);
/* Its WarmThroughput description (new reference): spec's members, the
 * default for the others, ACTIVE. */
json_t *tables_warm_new(const struct throttle_limits *lim, const json_t *spec,
                        bool on_demand, long long r, long long w);
/* Raise the WarmThroughput description warm to at least what the billing
 * gives (new provisioned units, a switch to on-demand): it never drops. */
void tables_warm_raise(json_t *warm, const struct throttle_limits *lim,
                       bool on_demand, long long r, long long w);
/* UpdateTable's WarmThroughput spec names ReadUnitsPerSecond or
 * WriteUnitsPerSecond (the request alone; iname NULL: the table's). */
int tables_warm_check_spec(const json_t *spec, const char *iname,
                           struct ddb_err *err);
/* UpdateTable's WarmThroughput spec for the table (iname NULL) or GSI
 * iname of desc: checked, then applied (UPDATING for the status delay). */
int tables_warm_update(const struct api_ctx *ctx, json_t *desc,
                       const char *iname, const json_t *spec, uint64_t now,
                       struct ddb_err *err);
/* End an increase that is due at now: true when desc changed. */
bool tables_warm_settle(json_t *desc, uint64_t now);
/* In out (desc's public copy), the values an increase still UPDATING
 * replaces. */
void tables_warm_public(json_t *out, const json_t *desc);

/* ------------------------------------------------------------------------
 * GlobalSecondaryIndexUpdates (gsi_update.c)
 * ---------------------------------------------------------------------- */

/* The table's AttributeDefinitions (desc) plus the request's new ones (a
 * redefinition keeps the table's). New reference. */
json_t *tables_merged_defs(const json_t *desc, const json_t *req);

/* The request-only checks of GlobalSecondaryIndexUpdates. */
int tables_gsi_updates_check(const json_t *gsiu, struct ddb_err *err);
/* Switching to PROVISIONED: every GSI of desc needs an Update with
 * ProvisionedThroughput in gsiu (may be NULL). */
int tables_gsi_updates_cover(const json_t *desc, const json_t *gsiu,
                             struct ddb_err *err);
/* Apply the request's GlobalSecondaryIndexUpdates to desc, under the DDL
 * lock. table_pt: the request changes the table's throughput too. */
int tables_gsi_updates_apply(struct api_ctx *ctx, const json_t *req,
                             struct stable *t, json_t *desc, bool on_demand,
                             bool table_pt, uint64_t now,
                             struct ddb_err *err);

/* ------------------------------------------------------------------------
 * Vector indexes (vector_update.c): CreateTable's VectorIndexes and
 * UpdateTable's VectorIndexUpdates; vector/ holds the indexes themselves
 * ---------------------------------------------------------------------- */

/* CreateTable's VectorIndexes (req has them): the list's rules, then each
 * index against the request's AttributeDefinitions and KeySchema. */
int tables_check_vector_create(const json_t *req, bool on_demand,
                               struct ddb_err *err);
/* Add the stored VectorIndexes of a checked CreateTable request to desc,
 * in the table's status (and settling with it). */
void tables_vector_descs_add(const struct api_ctx *ctx, const json_t *req,
                             json_t *desc);
/* The request-only checks of VectorIndexUpdates. */
int tables_vector_updates_check(const json_t *vu, struct ddb_err *err);
/* Apply the request's VectorIndexUpdates to desc (under the DDL lock):
 * a Create is published and built from the table's items before this
 * returns, a Delete leaves memory at once. */
int tables_vector_updates_apply(struct api_ctx *ctx, const json_t *req,
                                struct stable *t, json_t *desc,
                                bool on_demand, uint64_t now,
                                struct ddb_err *err);
/* DeleteTable while a vector index is being created or deleted:
 * ResourceInUseException, as DynamoDB. */
int tables_vector_check_delete(const json_t *desc, struct ddb_err *err);

#endif
