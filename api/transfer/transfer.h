/* SPDX-License-Identifier: MIT */
/* transfer.h - exports to and imports from the local stand-in for S3
 * (--s3-dir, a bucket per subdirectory): the handlers for api.c's
 * operation table, and the jobs they start, which run on their own thread
 * and are described while they run (jobs.c, export.c, import.c). */
#ifndef SHARDLOCAL_TRANSFER_H
#define SHARDLOCAL_TRANSFER_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <jansson.h>

#include "api/proto/context.h"

api_handler api_export_table_to_point_in_time, api_describe_export,
    api_list_exports;
api_handler api_import_table, api_describe_import, api_list_imports;

/* The server's jobs: made by api_server_init, freed (after every running
 * job has finished) by api_server_fini. s3_dir is where buckets are. */
struct transfer *transfer_new(const char *s3_dir);
void transfer_free(struct transfer *x);

/* ------------------------------------------------------------------------
 * Jobs (jobs.c), shared by export.c and import.c
 * ---------------------------------------------------------------------- */

enum transfer_kind { TRANSFER_EXPORT, TRANSFER_IMPORT };

/* What a job's thread runs: fills job->result (the final description's
 * changes: status, counts, failure) and returns. */
struct transfer_job;
typedef void transfer_run_fn(struct transfer_job *job);

struct transfer_job {
    enum transfer_kind kind;
    char *arn;                      /* owned: ExportArn / ImportArn */
    char *table_arn;                /* owned */
    char *token;                    /* owned: ClientToken, or NULL */
    json_t *params;                 /* owned: the request, for a replayed
                                       ClientToken */
    json_t *desc;                   /* owned: the description while it
                                       runs (IN_PROGRESS) */
    json_t *result;                 /* owned: members the run sets in the
                                       final description (its thread
                                       writes it before done) */
    uint64_t start_ms;              /* the request's time */
    bool done;                      /* the run is over (under x->mu) */
    struct api_server *srv;         /* borrowed */
    char *region;                   /* owned: the request's region */
    void *work;                     /* the run's own state (it frees it) */
    pthread_t thread;               /* runs run (joined at the end) */
    transfer_run_fn *run;
    struct transfer *x;             /* borrowed: its registry */
    struct transfer_job *next;      /* the registry's list, oldest first */
};

/* A new job of kind for the request's table ARN (table_arn: borrowed,
 * copied), its id ("<14-digit ms>-<8 hex>") appended to the table ARN
 * after "/export/" or "/import/". */
struct transfer_job *transfer_job_new(const struct api_ctx *ctx,
                                      enum transfer_kind kind,
                                      const char *table_arn,
                                      const json_t *req);
/* Free a job that never started (NULL: nothing); not its work. */
void transfer_job_free(struct transfer_job *job);
/* Register job and start its thread (the registry owns it from then on).
 * -1 with err set when no thread can be started (the caller still owns
 * job and its work). */
int transfer_job_start(struct api_ctx *ctx, struct transfer_job *job,
                       struct ddb_err *err);
/* At most this many jobs of a kind show IN_PROGRESS at once. */
#define TRANSFER_EXPORTS_MAX 300u
#define TRANSFER_IMPORTS_MAX 50u
/* LimitExceededException when as many jobs of kind as DynamoDB allows
 * are IN_PROGRESS. */
int transfer_job_admit(struct api_ctx *ctx, enum transfer_kind kind,
                       struct ddb_err *err);
/* The job of this kind with ClientToken token (NULL: none), or NULL. A
 * job is borrowed from the registry, which keeps every job until the
 * server stops. */
struct transfer_job *transfer_job_by_token(struct api_ctx *ctx,
                                           enum transfer_kind kind,
                                           const char *token);
/* The description of job as of ctx->now_ms (new reference). */
json_t *transfer_job_describe(struct api_ctx *ctx, struct transfer_job *job);
/* The job whose ARN is arn, or NULL with the kind's not-found error. */
struct transfer_job *transfer_job_find(struct api_ctx *ctx,
                                       enum transfer_kind kind,
                                       const char *arn, struct ddb_err *err);
/* DescribeExport / DescribeImport: {member: the description} of the job
 * whose ARN is req's arn_member, or the kind's not-found error. */
int transfer_describe_call(struct api_ctx *ctx, enum transfer_kind kind,
                           const json_t *req, const char *arn_member,
                           const char *member, json_t **resp,
                           struct ddb_err *err);
/* List jobs of kind (TableArn filter, page size, NextToken) into
 * *resp: {member: [summary(desc)...], "NextToken"}. */
typedef json_t *transfer_summary_fn(const json_t *desc);
int transfer_job_list(struct api_ctx *ctx, enum transfer_kind kind,
                      const json_t *req, const char *page_member,
                      const char *member, transfer_summary_fn *summary,
                      json_t **resp, struct ddb_err *err);

/* The directory of bucket (caller frees), or NULL with a
 * ValidationException when bucket is no S3 bucket name (3 to 63 of
 * [a-z0-9.-], starting and ending with a letter or digit). */
char *transfer_bucket_dir(const struct api_ctx *ctx, const char *bucket,
                          struct ddb_err *err);
/* An S3 key prefix is usable as a path: no "." or ".." segment, no NUL.
 * -1 with a ValidationException naming member otherwise. */
int transfer_check_prefix(const char *prefix, const char *member,
                          struct ddb_err *err);
/* ISO 8601 with milliseconds (the manifests' date-times), into out. */
void transfer_iso8601(uint64_t ms, char out[64]);

#endif
