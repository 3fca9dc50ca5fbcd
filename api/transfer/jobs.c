/* SPDX-License-Identifier: MIT */
/* jobs.c - the export and import jobs of a server: their ARNs, the
 * registry that keeps them (in memory, for the server's life), the thread
 * each runs on, how they are described while they run and after, listed,
 * and found by ARN or ClientToken; and where buckets are. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/rand.h>

#include "api/proto/context.h"
#include "api/tables/tables_int.h"
#include "api/transfer/transfer.h"
#include "storage/util.h"

struct transfer {
    pthread_mutex_t mu;             /* guards jobs and each job's done */
    char *s3_dir;                   /* owned */
    struct transfer_job *jobs;      /* oldest first */
    struct transfer_job **tail;
};

struct transfer *
transfer_new(const char *s3_dir)
{
    struct transfer *x = xcalloc(1, sizeof(*x));

    pthread_mutex_init(&x->mu, NULL);
    x->s3_dir = xstrdup(s3_dir);
    x->tail = &x->jobs;
    return x;
}

void
transfer_job_free(struct transfer_job *job)
{
    if (job == NULL)
        return;
    free(job->arn);
    free(job->table_arn);
    free(job->token);
    free(job->region);
    json_decref(job->params);
    json_decref(job->desc);
    json_decref(job->result);
    free(job);
}

/* Wait for every job's thread (they are joinable), then free them. */
void
transfer_free(struct transfer *x)
{
    struct transfer_job *job, *next;

    if (x == NULL)
        return;
    for (job = x->jobs; job != NULL; job = next) {
        next = job->next;
        pthread_join(job->thread, NULL);
        transfer_job_free(job);
    }
    pthread_mutex_destroy(&x->mu);
    free(x->s3_dir);
    free(x);
}

/* ------------------------------------------------------------------------
 * Making and running jobs
 * ---------------------------------------------------------------------- */

struct transfer_job *
transfer_job_new(const struct api_ctx *ctx, enum transfer_kind kind,
                 const char *table_arn, const json_t *req)
{
    struct transfer_job *job = xcalloc(1, sizeof(*job));
    const char *token = tables_str(req, "ClientToken");
    unsigned char rnd[4];
    char hex[9];
    uint64_t now = tables_now_ms(ctx);

    if (RAND_bytes(rnd, sizeof(rnd)) != 1)
        memset(rnd, 0, sizeof(rnd));
    hex_encode(rnd, sizeof(rnd), hex);
    job->kind = kind;
    /* DynamoDB's form: <table ARN>/export/01234567890123-a1b2c3d4 (the
     * export output format page of the developer guide) */
    job->arn = xasprintf("%s/%s/%014llu-%s", table_arn,
                         kind == TRANSFER_EXPORT ? "export" : "import",
                         (unsigned long long)now, hex);
    job->table_arn = xstrdup(table_arn);
    job->token = token != NULL ? xstrdup(token) : NULL;
    job->params = json_deep_copy(req);
    job->start_ms = now;
    job->srv = ctx->srv;
    job->region = xstrdup(tables_region(ctx));
    job->result = json_object();
    return job;
}

static void *
job_thread(void *arg)
{
    struct transfer_job *job = arg;

    job->run(job);
    pthread_mutex_lock(&job->x->mu);
    job->done = true;
    pthread_mutex_unlock(&job->x->mu);
    return NULL;
}

int
transfer_job_start(struct api_ctx *ctx, struct transfer_job *job,
                   struct ddb_err *err)
{
    struct transfer *x = ctx->srv->transfer;

    job->x = x;
    pthread_mutex_lock(&x->mu);
    if (pthread_create(&job->thread, NULL, job_thread, job) != 0) {
        pthread_mutex_unlock(&x->mu);
        return ddb_err_set(err, DDB_INTERNAL, "Internal server error: no "
                           "thread for the job");
    }
    *x->tail = job;
    x->tail = &job->next;
    pthread_mutex_unlock(&x->mu);
    return 0;
}

/* ------------------------------------------------------------------------
 * Finding and describing jobs
 * ---------------------------------------------------------------------- */

/* Is job the caller's account's? Its table ARN's fifth field
 * (arn:aws:dynamodb:<region>:<account>:table/...) names the account. */
static bool
job_mine(const struct api_ctx *ctx, const struct transfer_job *job)
{
    const char *p = job->table_arn, *acct = api_account(ctx);
    size_t n = strlen(acct);

    for (int field = 0; field < 4 && p != NULL; field++) {
        p = strchr(p, ':');
        if (p != NULL)
            p++;
    }
    return p != NULL && strncmp(p, acct, n) == 0 && p[n] == ':';
}

struct transfer_job *
transfer_job_by_token(struct api_ctx *ctx, enum transfer_kind kind,
                      const char *token)
{
    struct transfer *x = ctx->srv->transfer;
    struct transfer_job *job, *found = NULL;

    if (token == NULL)
        return NULL;
    pthread_mutex_lock(&x->mu);
    for (job = x->jobs; job != NULL; job = job->next)
        if (job->kind == kind && job->token != NULL &&
            strcmp(job->token, token) == 0 && job_mine(ctx, job))
            found = job;
    pthread_mutex_unlock(&x->mu);
    return found;
}

/* Whether job shows IN_PROGRESS at now: its run is not over, or the
 * status delay since its start has not passed. x->mu held. */
static bool
shows_running(const struct api_ctx *ctx, const struct transfer_job *job)
{
    return !job->done ||
           tables_now_ms(ctx) < job->start_ms + tables_status_delay(ctx);
}

json_t *
transfer_job_describe(struct api_ctx *ctx, struct transfer_job *job)
{
    struct transfer *x = ctx->srv->transfer;
    json_t *d = json_deep_copy(job->desc);
    bool over;

    /* A job shows its end once its run is over and the status delay
     * (--status-delay-ms) has passed since it started, so the virtual
     * clock can hold it IN_PROGRESS as it holds a table CREATING. */
    pthread_mutex_lock(&x->mu);
    over = !shows_running(ctx, job);
    pthread_mutex_unlock(&x->mu);
    if (over)
        json_object_update(d, job->result);
    return d;
}

int
transfer_job_admit(struct api_ctx *ctx, enum transfer_kind kind,
                   struct ddb_err *err)
{
    struct transfer *x = ctx->srv->transfer;
    struct transfer_job *job;
    size_t running = 0;

    pthread_mutex_lock(&x->mu);
    for (job = x->jobs; job != NULL; job = job->next)
        if (job->kind == kind && shows_running(ctx, job))
            running++;
    pthread_mutex_unlock(&x->mu);
    /* DynamoDB's quotas: up to 300 exports at a time (the service quotas
     * page) and up to 50 imports (LimitExceededException's text in the
     * API reference); the wording of the answer is chosen, no recording
     * of it was found */
    if (kind == TRANSFER_EXPORT && running >= TRANSFER_EXPORTS_MAX)
        return ddb_err_set(err, DDB_LIMIT_EXCEEDED, "Too many exports in "
                           "progress: up to %u may run at a time",
                           TRANSFER_EXPORTS_MAX);
    if (kind == TRANSFER_IMPORT && running >= TRANSFER_IMPORTS_MAX)
        return ddb_err_set(err, DDB_LIMIT_EXCEEDED, "Too many imports in "
                           "progress: up to %u may run at a time",
                           TRANSFER_IMPORTS_MAX);
    return 0;
}

struct transfer_job *
transfer_job_find(struct api_ctx *ctx, enum transfer_kind kind,
                  const char *arn, struct ddb_err *err)
{
    struct transfer *x = ctx->srv->transfer;
    struct transfer_job *job, *found = NULL;

    pthread_mutex_lock(&x->mu);
    for (job = x->jobs; job != NULL; job = job->next)
        if (job->kind == kind && strcmp(job->arn, arn) == 0 &&
            job_mine(ctx, job))
            found = job;
    pthread_mutex_unlock(&x->mu);
    if (found == NULL) {
        /* chosen wording: no recording of these messages was found */
        if (kind == TRANSFER_EXPORT)
            ddb_err_set(err, DDB_EXPORT_NOT_FOUND, "Export not found: %s",
                        arn);
        else
            ddb_err_set(err, DDB_IMPORT_NOT_FOUND, "Import not found: %s",
                        arn);
    }
    return found;
}

int
transfer_describe_call(struct api_ctx *ctx, enum transfer_kind kind,
                       const json_t *req, const char *arn_member,
                       const char *member, json_t **resp,
                       struct ddb_err *err)
{
    struct transfer_job *job = transfer_job_find(
        ctx, kind, tables_str(req, arn_member), err);

    if (job == NULL)
        return -1;
    *resp = json_pack("{s:o}", member, transfer_job_describe(ctx, job));
    return 0;
}

int
transfer_job_list(struct api_ctx *ctx, enum transfer_kind kind,
                  const json_t *req, const char *page_member,
                  const char *member, transfer_summary_fn *summary,
                  json_t **resp, struct ddb_err *err)
{
    struct transfer *x = ctx->srv->transfer;
    const char *table = tables_str(req, "TableArn");
    const char *next = tables_str(req, "NextToken");
    json_t *page = json_object_get(req, page_member);
    size_t limit = json_is_integer(page) ? (size_t)json_integer_value(page)
                                         : 25;
    struct transfer_job *job;
    json_t *out = json_array(), *d;
    bool started = next == NULL, more = false;
    const char *last = NULL;

    pthread_mutex_lock(&x->mu);
    for (job = x->jobs; job != NULL; job = job->next) {
        if (job->kind != kind || !job_mine(ctx, job) ||
            (table != NULL && strcmp(job->table_arn, table) != 0))
            continue;
        if (!started) {
            started = strcmp(job->arn, next) == 0;
            continue;
        }
        if (json_array_size(out) == limit) {
            more = true;
            break;
        }
        pthread_mutex_unlock(&x->mu);
        d = transfer_job_describe(ctx, job);
        json_array_append_new(out, summary(d));
        json_decref(d);
        pthread_mutex_lock(&x->mu);
        last = job->arn;
    }
    pthread_mutex_unlock(&x->mu);
    if (!started) {
        json_decref(out);
        /* chosen wording: the token is the last ARN of the page before */
        return ddb_err_set(err, DDB_VALIDATION, "Invalid NextToken");
    }
    *resp = json_pack("{s:o}", member, out);
    if (more && last != NULL)
        json_object_set_new(*resp, "NextToken", json_string(last));
    return 0;
}

/* ------------------------------------------------------------------------
 * Buckets and keys
 * ---------------------------------------------------------------------- */

static bool
bucket_ok(const char *b)
{
    size_t n = strlen(b), i;

    if (n < 3 || n > 63)
        return false;
    for (i = 0; i < n; i++) {
        char c = b[i];

        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '-'))
            return false;
    }
    return b[0] != '.' && b[0] != '-' && b[n - 1] != '.' &&
           b[n - 1] != '-' && strstr(b, "..") == NULL;
}

char *
transfer_bucket_dir(const struct api_ctx *ctx, const char *bucket,
                    struct ddb_err *err)
{
    if (!bucket_ok(bucket)) {
        /* S3's bucket naming rules; a name breaking them cannot be a
         * bucket (chosen wording: DynamoDB's answer was not found) */
        ddb_err_set(err, DDB_VALIDATION, "Invalid S3 bucket name: %s",
                    bucket);
        return NULL;
    }
    return xasprintf("%s/%s", ctx->srv->transfer->s3_dir, bucket);
}

int
transfer_check_prefix(const char *prefix, const char *member,
                      struct ddb_err *err)
{
    const char *p = prefix, *slash;
    size_t n;

    /* S3 keys may hold "." and ".." segments; a directory standing in
     * for a bucket cannot: they are refused rather than leave it. */
    for (;;) {
        slash = strchr(p, '/');
        n = slash != NULL ? (size_t)(slash - p) : strlen(p);
        if ((n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' &&
                                        p[1] == '.'))
            return ddb_err_set(err, DDB_VALIDATION, "%s may not hold a "
                               "\".\" or \"..\" segment locally: %s",
                               member, prefix);
        if (slash == NULL)
            return 0;
        p = slash + 1;
    }
}

void
transfer_iso8601(uint64_t ms, char out[64])
{
    time_t t = (time_t)(ms / 1000u);
    struct tm tm;

    gmtime_r(&t, &tm);
    snprintf(out, 64, "%04d-%02d-%02dT%02d:%02d:%02d.%03uZ",
             tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
             tm.tm_min, tm.tm_sec, (unsigned)(ms % 1000u));
}
