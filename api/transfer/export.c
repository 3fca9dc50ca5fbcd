/* SPDX-License-Identifier: MIT */
/* export.c - ExportTableToPointInTime, DescribeExport and ListExports. An
 * export is a consistent cut of the table taken when it is asked for (a
 * snapshot: storage's backup copy), written on the job's thread into the
 * bucket's directory in DynamoDB's export format (the developer guide's
 * "DynamoDB table export output format"): under
 * <prefix>/AWSDynamoDB/<export id>/, an empty _started, data/ with one
 * gzipped DYNAMODB_JSON file per partition (a line {"Item": {...}} per
 * item), manifest-files.json, manifest-summary.json and their .md5
 * checksums. The snapshot goes once the files are written. An ExportTime
 * in the past is served by point-in-time recovery's table state at that
 * time (tables_pitr_items_at) instead of a snapshot. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <openssl/evp.h>
#include <openssl/rand.h>
#include <zlib.h>

#include "api/proto/context.h"
#include "api/tables/tables.h"
#include "api/tables/tables_int.h"
#include "api/transfer/transfer.h"
#include "storage/util.h"

/* ExportTime may be this far from the request's time and still be "now"
 * (a client's clock and a rounded second). */
#define EXPORT_NOW_SLACK_MS 60000u

/* One partition's data file. */
struct export_file {
    gzFile gz;
    char *path;                     /* owned */
    char *key;                      /* owned: its S3 key */
    uint64_t items;
};

/* The run's state. */
struct export_work {
    char *snapshot;                 /* owned: the snapshot's key, or NULL
                                       for a past time (PITR) */
    uint64_t at_ms;                 /* the export's time */
    char *table;                    /* owned: the table's name */
    char *bucket_dir;               /* owned */
    char *key_base;                 /* owned: <prefix/>AWSDynamoDB/<id> */
    char *dir;                      /* owned: bucket_dir/key_base */
    unsigned nparts;                /* the table's partitions at the call */
    uint64_t *starts;               /* owned: their first hashes */
    struct export_file *files;      /* owned: one per partition */
    uint64_t items, bytes;
};

/* The MD5 of the file at path as hex (out[33]) and base64 (b64[25]). */
static int
file_md5(const char *path, char *hex, char *b64)
{
    FILE *f = fopen(path, "rb");
    EVP_MD_CTX *m;
    unsigned char buf[65536], md[EVP_MAX_MD_SIZE];
    unsigned len = 0;
    size_t n;

    if (f == NULL)
        return -1;
    m = EVP_MD_CTX_new();
    EVP_DigestInit_ex(m, EVP_md5(), NULL);
    while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
        EVP_DigestUpdate(m, buf, n);
    EVP_DigestFinal_ex(m, md, &len);
    EVP_MD_CTX_free(m);
    fclose(f);
    hex_encode(md, len, hex);
    EVP_EncodeBlock((unsigned char *)b64, md, (int)len);
    return 0;
}

/* Write text to path; with md5 true also path's .md5 beside it (its
 * checksum, hex). */
static int
write_text(const char *path, const char *text, bool md5)
{
    FILE *f = fopen(path, "wb");
    char hex[2 * EVP_MAX_MD_SIZE + 1], b64[4 * EVP_MAX_MD_SIZE];
    size_t n = strlen(text);
    char *sum;
    int rc;

    if (f == NULL)
        return -1;
    rc = fwrite(text, 1, n, f) == n ? 0 : -1;
    if (fclose(f) != 0)
        rc = -1;
    if (rc != 0 || !md5)
        return rc;
    if (file_md5(path, hex, b64) != 0)
        return -1;
    sum = xasprintf("%.*s.md5", (int)(strlen(path) - 5), path);
    rc = write_text(sum, hex, false);
    free(sum);
    return rc;
}

/* Open every partition's data file (an empty partition keeps an empty
 * file, as DynamoDB writes one). */
static int
files_open(struct export_work *w)
{
    unsigned char rnd[13];
    char name[27];
    unsigned i;

    w->files = xcalloc(w->nparts, sizeof(*w->files));
    for (i = 0; i < w->nparts; i++) {
        struct export_file *f = &w->files[i];

        if (RAND_bytes(rnd, sizeof(rnd)) != 1)
            memset(rnd, (int)i, sizeof(rnd));
        hex_encode(rnd, sizeof(rnd), name);
        f->key = xasprintf("%s/data/%s.json.gz", w->key_base, name);
        f->path = xasprintf("%s/%s", w->bucket_dir, f->key);
        f->gz = gzopen(f->path, "wb");
        if (f->gz == NULL)
            return -1;
    }
    return 0;
}

/* Close the data files; with manifest, record each in it (the entries of
 * manifest-files.json). -1 if one could not be written. */
static int
files_close(struct export_work *w, json_t *manifest)
{
    char hex[2 * EVP_MAX_MD_SIZE + 1], b64[4 * EVP_MAX_MD_SIZE];
    int rc = 0;

    for (unsigned i = 0; w->files != NULL && i < w->nparts; i++) {
        struct export_file *f = &w->files[i];

        if (f->gz != NULL && gzclose(f->gz) != Z_OK)
            rc = -1;
        f->gz = NULL;
        if (manifest != NULL && rc == 0 && file_md5(f->path, hex, b64) == 0)
            json_array_append_new(manifest, json_pack(
                "{s:I, s:s, s:s, s:s}", "itemCount", (json_int_t)f->items,
                "md5Checksum", b64, "etag", hex, "dataFileS3Key", f->key));
        else if (manifest != NULL)
            rc = -1;
        free(f->path);
        free(f->key);
    }
    free(w->files);
    w->files = NULL;
    return rc;
}

/* stable_row_fn: one item into the file of the partition owning it. */
static int
export_row(void *arg, const struct item_key *k, const json_t *item,
           size_t size, struct ddb_err *err)
{
    struct export_work *w = arg;
    uint64_t h = 0;
    unsigned lo = 0, hi = w->nparts;
    struct export_file *f;
    char *text;
    size_t n;
    int ok;

    for (int i = 0; i < 8; i++)
        h = h << 8 | k->hash[i];
    while (hi - lo > 1) {               /* the last start at or below h */
        unsigned mid = lo + (hi - lo) / 2;

        if (w->starts[mid] <= h)
            lo = mid;
        else
            hi = mid;
    }
    f = &w->files[lo];
    text = json_text(item, JSON_COMPACT);
    n = strlen(text);
    ok = gzwrite(f->gz, "{\"Item\":", 8) == 8 &&
         gzwrite(f->gz, text, (unsigned)n) == (int)n &&
         gzwrite(f->gz, "}\n", 2) == 2;
    free(text);
    if (!ok)
        return ddb_err_set(err, DDB_INTERNAL, "write");
    f->items++;
    w->items++;
    w->bytes += size;
    return 0;
}

/* The job's result when it fails: FAILED with code and message. */
static void
export_failed(struct transfer_job *job, const char *code, const char *msg)
{
    json_object_set_new(job->result, "ExportStatus", json_string("FAILED"));
    json_object_set_new(job->result, "FailureCode", json_string(code));
    json_object_set_new(job->result, "FailureMessage", json_string(msg));
    json_object_set_new(job->result, "EndTime",
                        tables_epoch(job->start_ms));
}

/* Write the manifests once every data file is closed. */
static int
write_manifests(struct transfer_job *job, struct export_work *w,
                const json_t *files, uint64_t end_ms)
{
    struct strbuf lines = { 0 };
    json_t *sum, *f;
    char *path, *text, start[64], end[64], at[64];
    size_t i;
    int rc;

    json_array_foreach(files, i, f) {
        text = json_text(f, JSON_COMPACT);
        strbuf_puts(&lines, text);
        strbuf_putc(&lines, '\n');
        free(text);
    }
    path = xasprintf("%s/manifest-files.json", w->dir);
    rc = write_text(path, lines.s != NULL ? lines.s : "", true);
    free(path);
    strbuf_free(&lines);
    if (rc != 0)
        return -1;
    transfer_iso8601(job->start_ms, start);
    transfer_iso8601(end_ms, end);
    transfer_iso8601(w->at_ms, at);
    sum = json_pack("{s:s, s:s, s:s, s:s, s:s, s:O, s:s, s:O, s:O, s:O, "
                    "s:O, s:s, s:I, s:I, s:s, s:s}",
                    "version", "2020-06-30", "exportArn", job->arn,
                    "startTime", start, "endTime", end,
                    "tableArn", job->table_arn,
                    "tableId", json_object_get(job->desc, "TableId"),
                    "exportTime", at,
                    "s3Bucket", json_object_get(job->desc, "S3Bucket"),
                    "s3Prefix", json_object_get(job->desc, "S3Prefix") != NULL
                                    ? json_object_get(job->desc, "S3Prefix")
                                    : json_null(),
                    "s3SseAlgorithm",
                    json_object_get(job->desc, "S3SseAlgorithm"),
                    "s3SseKmsKeyId",
                    json_object_get(job->desc, "S3SseKmsKeyId") != NULL
                        ? json_object_get(job->desc, "S3SseKmsKeyId")
                        : json_null(),
                    "manifestFilesS3Key", "", "billedSizeBytes",
                    (json_int_t)w->bytes, "itemCount", (json_int_t)w->items,
                    "outputFormat", "DYNAMODB_JSON", "exportType",
                    "FULL_EXPORT");
    text = xasprintf("%s/manifest-files.json", w->key_base);
    json_object_set_new(sum, "manifestFilesS3Key", json_string(text));
    free(text);
    text = json_text(sum, JSON_COMPACT);
    json_decref(sum);
    path = xasprintf("%s/manifest-summary.json", w->dir);
    rc = write_text(path, text, true);
    free(path);
    free(text);
    return rc;
}

/* Free the run's state (the snapshot is dropped before). */
static void
work_free(struct export_work *w)
{
    if (w == NULL)
        return;
    files_close(w, NULL);
    free(w->snapshot);
    free(w->starts);
    free(w->table);
    free(w->bucket_dir);
    free(w->key_base);
    free(w->dir);
    free(w);
}

/* transfer_run_fn: write the snapshot (or, for a past time, the table as
 * point-in-time recovery rebuilds it then) out, then drop the snapshot. */
static void
export_run(struct transfer_job *job)
{
    struct export_work *w = job->work;
    struct storage *st = job->srv->st;
    struct api_ctx ctx;
    struct ddb_err e;
    struct stat sb;
    json_t *manifest = json_array();
    char *path, *text;
    uint64_t end;
    int rc;

    ddb_err_init(&e);
    if (stat(w->bucket_dir, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
        /* chosen code and message: S3's NoSuchBucket, as an export to a
         * missing bucket fails (the call itself succeeds) */
        export_failed(job, "S3NoSuchBucket",
                      "The specified bucket does not exist");
        goto out;
    }
    path = xasprintf("%s/data", w->dir);
    rc = storage_mkdir_p(path, &e);
    free(path);
    if (rc != 0)
        goto io;
    path = xasprintf("%s/_started", w->dir);
    (void)write_text(path, "", false);
    free(path);
    if (files_open(w) != 0)
        goto io;
    if (w->snapshot != NULL) {
        rc = storage_backup_scan(st, w->snapshot, w->table, export_row, w,
                                 &e);
    } else {
        memset(&ctx, 0, sizeof(ctx));
        ctx.srv = job->srv;
        ctx.region = job->region;
        ctx.now_ms = job->start_ms;
        rc = tables_pitr_items_at(&ctx, w->table, w->at_ms, export_row, w,
                                  &e);
        if (rc != 0 && e.type != DDB_INTERNAL) {
            /* the table went, or its PITR, since the call */
            files_close(w, NULL);
            export_failed(job, "PointInTimeRecoveryUnavailable", e.msg);
            goto out;
        }
    }
    if (rc != 0 || files_close(w, manifest) != 0)
        goto io;
    end = wall_ms();
    if (end < job->start_ms)            /* the virtual clock runs ahead */
        end = job->start_ms;
    if (write_manifests(job, w, manifest, end) != 0)
        goto io;
    json_object_set_new(job->result, "ExportStatus",
                        json_string("COMPLETED"));
    json_object_set_new(job->result, "EndTime", tables_epoch(end));
    text = xasprintf("%s/manifest-summary.json", w->key_base);
    json_object_set_new(job->result, "ExportManifest", json_string(text));
    free(text);
    json_object_set_new(job->result, "ItemCount",
                        json_integer((json_int_t)w->items));
    json_object_set_new(job->result, "BilledSizeBytes",
                        json_integer((json_int_t)w->bytes));
    goto out;
io:
    files_close(w, NULL);
    /* chosen code and message: S3's AccessDenied, the bucket's directory
     * refused the files */
    export_failed(job, "S3AccessDenied", "The export could not write to "
                  "the bucket");
out:
    ddb_err_clear(&e);
    if (w->snapshot != NULL)
        (void)storage_backup_delete(st, w->snapshot, &e);
    ddb_err_clear(&e);
    json_decref(manifest);
    work_free(w);
    job->work = NULL;
}

/* ------------------------------------------------------------------------
 * The request
 * ---------------------------------------------------------------------- */

/*
 * The export's time: now, or ExportTime, which must lie in the table's
 * point-in-time recovery window (DescribeContinuousBackups' Earliest- and
 * LatestRestorableDateTime): InvalidExportTimeException otherwise (API
 * reference; the message is chosen). *past tells a time the snapshot of
 * now cannot serve (more than a second ago).
 */
static int
export_time(struct api_ctx *ctx, const json_t *req, uint64_t *at_ms,
            bool *past, struct ddb_err *err)
{
    const json_t *at = json_object_get(req, "ExportTime");
    uint64_t now = tables_now_ms(ctx);
    json_t *creq, *cresp = NULL;
    const json_t *pitr;
    double ms, lo, hi;
    int rc;

    *at_ms = now;
    *past = false;
    if (!json_is_number(at))
        return 0;
    ms = json_number_value(at) * 1000.0;
    if (ms > (double)now + EXPORT_NOW_SLACK_MS)
        return ddb_err_set(err, DDB_INVALID_EXPORT_TIME, "ExportTime must "
                           "not be in the future");
    if (ms >= (double)now - 1000.0)
        return 0;
    /* by ARN: the table may be another account's (a resource policy) */
    creq = json_pack("{s:O}", "TableName", json_object_get(req, "TableArn"));
    rc = api_describe_continuous_backups(ctx, creq, &cresp, err);
    json_decref(creq);
    if (rc != 0)
        return -1;
    pitr = json_object_get(json_object_get(cresp,
                                           "ContinuousBackupsDescription"),
                           "PointInTimeRecoveryDescription");
    lo = json_number_value(json_object_get(pitr,
                                           "EarliestRestorableDateTime"));
    hi = json_number_value(json_object_get(pitr,
                                           "LatestRestorableDateTime"));
    json_decref(cresp);
    if (ms < lo * 1000.0 - 0.5 || ms > hi * 1000.0 + 1000.0)
        return ddb_err_set(err, DDB_INVALID_EXPORT_TIME, "ExportTime must "
                           "be between EarliestRestorableDateTime and "
                           "LatestRestorableDateTime");
    *at_ms = (uint64_t)ms;
    *past = true;
    return 0;
}

/* The checks of the request's own members, in DynamoDB's order. */
static int
check_export(const json_t *req, struct ddb_err *err)
{
    const char *prefix = tables_str(req, "S3Prefix");

    if (json_str_is(json_object_get(req, "ExportFormat"), "ION"))
        return ddb_err_set(err, DDB_VALIDATION, "ExportFormat ION is not "
                           "available locally: use DYNAMODB_JSON");
    if (json_str_is(json_object_get(req, "ExportType"),
                    "INCREMENTAL_EXPORT"))
        return ddb_err_set(err, DDB_VALIDATION, "ExportType "
                           "INCREMENTAL_EXPORT is not available locally: "
                           "use FULL_EXPORT");
    if (json_has(req, "IncrementalExportSpecification"))
        return ddb_err_set(err, DDB_VALIDATION,
                           "IncrementalExportSpecification is only valid "
                           "with ExportType INCREMENTAL_EXPORT");
    if (prefix != NULL &&
        transfer_check_prefix(prefix, "S3Prefix", err) != 0)
        return -1;
    return 0;
}

/* The IN_PROGRESS description of a new export. */
static json_t *
export_desc(const struct transfer_job *job, const json_t *req,
            const json_t *tdesc, uint64_t at_ms)
{
    static const char *const copied[] = { "ClientToken", "S3Bucket",
                                          "S3BucketOwner", "S3Prefix",
                                          "S3SseKmsKeyId", NULL };
    json_t *d = json_pack("{s:s, s:s, s:o, s:s, s:O, s:o}",
                          "ExportArn", job->arn, "ExportStatus",
                          "IN_PROGRESS", "StartTime",
                          tables_epoch(job->start_ms), "TableArn",
                          job->table_arn, "TableId",
                          json_object_get(tdesc, "TableId"), "ExportTime",
                          tables_epoch(at_ms));
    const char *sse = tables_str(req, "S3SseAlgorithm");

    for (size_t i = 0; copied[i] != NULL; i++)
        if (json_is_string(json_object_get(req, copied[i])))
            json_object_set(d, copied[i], json_object_get(req, copied[i]));
    json_object_set_new(d, "S3SseAlgorithm",
                        json_string(sse != NULL ? sse : "AES256"));
    json_object_set_new(d, "ExportFormat", json_string("DYNAMODB_JSON"));
    json_object_set_new(d, "ExportType", json_string("FULL_EXPORT"));
    return d;
}

int
api_export_table_to_point_in_time(struct api_ctx *ctx, const json_t *req,
                                  json_t **resp, struct ddb_err *err)
{
    const char *arn = tables_str(req, "TableArn");
    char name[TABLES_NAME_MAX];
    struct stable *t = NULL;
    json_t *tdesc = NULL;
    struct transfer_job *job = NULL, *same;
    struct export_work *w = NULL;
    json_t *meta;
    const char *prefix = tables_str(req, "S3Prefix"), *id;
    bool past;
    int rc = -1;

    if (check_export(req, err) != 0)
        return -1;
    same = transfer_job_by_token(ctx, TRANSFER_EXPORT,
                                 tables_str(req, "ClientToken"));
    if (same != NULL) {
        /* the same ClientToken: the same export again, or a conflict
         * (API reference, ExportTableToPointInTime: ClientToken) */
        if (!json_equal(same->params, (json_t *)req))
            return ddb_err_set(err, DDB_EXPORT_CONFLICT, "Export with "
                               "the same client token and different "
                               "parameters already exists");
        *resp = json_pack("{s:o}", "ExportDescription",
                          transfer_job_describe(ctx, same));
        return 0;
    }
    if (transfer_job_admit(ctx, TRANSFER_EXPORT, err) != 0)
        return -1;
    if (strncmp(arn, "arn:", 4) != 0 ||
        tables_open_named(ctx, arn, false, name, sizeof(name), &t, &tdesc,
                          err) != 0) {
        ddb_err_clear(err);
        return ddb_err_set(err, DDB_TABLE_NOT_FOUND, "Table not found: %s",
                           arn);
    }
    /* DynamoDB exports only tables with point-in-time recovery on */
    if (!tables_pitr_on(tdesc)) {
        ddb_err_set(err, DDB_PITR_UNAVAILABLE, "Point in time recovery is "
                    "not enabled for table '%s'", name);
        goto out;
    }
    w = xcalloc(1, sizeof(*w));
    if (export_time(ctx, req, &w->at_ms, &past, err) != 0)
        goto out;
    w->bucket_dir = transfer_bucket_dir(ctx, tables_str(req, "S3Bucket"),
                                        err);
    if (w->bucket_dir == NULL)
        goto out;
    job = transfer_job_new(ctx, TRANSFER_EXPORT, tables_str(tdesc,
                                                            "TableArn"),
                           req);
    /* TableArn as the caller gave it: ListExports filters on it */
    free(job->table_arn);
    job->table_arn = xstrdup(arn);
    id = strrchr(job->arn, '/') + 1;
    w->table = xstrdup(name);
    w->nparts = stable_nparts(t);
    w->starts = xcalloc(w->nparts, sizeof(*w->starts));
    for (unsigned i = 0; i < w->nparts; i++)
        w->starts[i] = stable_part_start(t, i);
    w->key_base = prefix != NULL && prefix[0] != '\0'
                      ? xasprintf("%s%sAWSDynamoDB/%s", prefix,
                                  prefix[strlen(prefix) - 1] == '/' ? ""
                                                                   : "/",
                                  id)
                      : xasprintf("AWSDynamoDB/%s", id);
    w->dir = xasprintf("%s/%s", w->bucket_dir, w->key_base);
    if (!past) {
        /* the consistent cut, taken now: the export's time */
        w->snapshot = xasprintf("%s%s", STORAGE_SNAPSHOT_PREFIX, id);
        meta = json_object();
        rc = storage_backup_create(ctx->srv->st, w->snapshot, &t, 1, meta,
                                   err);
        json_decref(meta);
        if (rc != 0) {
            free(w->snapshot);
            w->snapshot = NULL;
            goto out;
        }
        rc = -1;
    }
    job->desc = export_desc(job, req, tdesc, w->at_ms);
    job->work = w;
    job->run = export_run;
    *resp = json_pack("{s:o}", "ExportDescription",
                      json_deep_copy(job->desc));
    w = NULL;
    if (transfer_job_start(ctx, job, err) != 0) {
        json_decref(*resp);
        *resp = NULL;
        w = job->work;
        if (w->snapshot != NULL)
            (void)storage_backup_delete(ctx->srv->st, w->snapshot, NULL);
        goto out;
    }
    job = NULL;
    rc = 0;
out:
    work_free(w);
    transfer_job_free(job);
    json_decref(tdesc);
    if (t != NULL)
        stable_release(t);
    return rc;
}

int
api_describe_export(struct api_ctx *ctx, const json_t *req, json_t **resp,
                    struct ddb_err *err)
{
    return transfer_describe_call(ctx, TRANSFER_EXPORT, req, "ExportArn",
                                  "ExportDescription", resp, err);
}

/* ExportSummary: ExportArn, ExportStatus, ExportType. */
static json_t *
export_summary(const json_t *d)
{
    return json_pack("{s:O, s:O, s:O}", "ExportArn",
                     json_object_get(d, "ExportArn"), "ExportStatus",
                     json_object_get(d, "ExportStatus"), "ExportType",
                     json_object_get(d, "ExportType"));
}

int
api_list_exports(struct api_ctx *ctx, const json_t *req, json_t **resp,
                 struct ddb_err *err)
{
    return transfer_job_list(ctx, TRANSFER_EXPORT, req, "MaxResults",
                             "ExportSummaries", export_summary, resp, err);
}
