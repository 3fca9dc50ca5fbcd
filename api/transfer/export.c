/* SPDX-License-Identifier: MIT */
/* export.c - ExportTableToPointInTime, DescribeExport and ListExports. An
 * export is a consistent cut of the table taken when it is asked for (a
 * snapshot: storage's backup copy), written on the job's thread into the
 * bucket's directory in DynamoDB's export format (the developer guide's
 * "DynamoDB table export output format"): under
 * <prefix>/AWSDynamoDB/<export id>/, an empty _started, data/ with one
 * gzipped DYNAMODB_JSON file per partition (a line {"Item": {...}} per
 * item), manifest-files.json, manifest-summary.json and their .md5
 * checksums. The snapshot goes once the files are written. */
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

/* The run's state. */
struct export_work {
    char *snapshot;                 /* owned: the snapshot's key */
    char *table;                    /* owned: the table's name */
    char *bucket_dir;               /* owned */
    char *key_base;                 /* owned: <prefix/>AWSDynamoDB/<id> */
    char *dir;                      /* owned: bucket_dir/key_base */
    /* while writing: */
    gzFile gz;                      /* the data file being written */
    size_t file;                    /* its partition's index */
    size_t next;                    /* the next partition's index */
    json_t *files;                  /* manifest-files.json's entries */
    char *path;                     /* owned: its path */
    char *key;                      /* owned: its S3 key */
    uint64_t file_items, items, bytes;
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

/* Close the data file being written and record it in the manifest. */
static int
data_close(struct export_work *w)
{
    char hex[2 * EVP_MAX_MD_SIZE + 1], b64[4 * EVP_MAX_MD_SIZE];
    int rc = 0;

    if (w->gz == NULL)
        return 0;
    if (gzclose(w->gz) != Z_OK)
        rc = -1;
    w->gz = NULL;
    if (rc == 0 && file_md5(w->path, hex, b64) == 0)
        json_array_append_new(w->files, json_pack(
            "{s:I, s:s, s:s, s:s}", "itemCount", (json_int_t)w->file_items,
            "md5Checksum", b64, "etag", hex, "dataFileS3Key", w->key));
    else
        rc = -1;
    free(w->path);
    free(w->key);
    w->path = w->key = NULL;
    return rc;
}

/* Start the data file of partition file (an empty partition gets an empty
 * file too, as DynamoDB writes one). */
static int
data_open(struct export_work *w, size_t file)
{
    unsigned char rnd[13];
    char name[27];

    if (RAND_bytes(rnd, sizeof(rnd)) != 1)
        memset(rnd, (int)file, sizeof(rnd));
    hex_encode(rnd, sizeof(rnd), name);
    w->key = xasprintf("%s/data/%s.json.gz", w->key_base, name);
    w->path = xasprintf("%s/%s", w->bucket_dir, w->key);
    w->gz = gzopen(w->path, "wb");
    w->file = file;
    w->file_items = 0;
    return w->gz != NULL ? 0 : -1;
}

/* Close the file being written and open the next partition's. */
static int
data_next(struct export_work *w)
{
    return data_close(w) == 0 && data_open(w, w->next++) == 0 ? 0 : -1;
}

/* storage_backup_row_fn: one item into its partition's file. */
static int
export_row(void *arg, size_t file, const char *item, size_t size,
           struct ddb_err *err)
{
    struct export_work *w = arg;
    size_t n = strlen(item);

    while (w->gz == NULL || w->file < file)
        if (data_next(w) != 0)
            return ddb_err_set(err, DDB_INTERNAL, "write");
    if (gzwrite(w->gz, "{\"Item\":", 8) != 8 ||
        gzwrite(w->gz, item, (unsigned)n) != (int)n ||
        gzwrite(w->gz, "}\n", 2) != 2)
        return ddb_err_set(err, DDB_INTERNAL, "write");
    w->file_items++;
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
                uint64_t end_ms)
{
    struct strbuf lines = { 0 };
    json_t *sum, *f;
    char *path, *text, start[64], end[64];
    size_t i;
    int rc;

    json_array_foreach(w->files, i, f) {
        text = json_dumps(f, JSON_COMPACT);
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
    sum = json_pack("{s:s, s:s, s:s, s:s, s:s, s:O, s:s, s:O, s:O, s:O, "
                    "s:O, s:s, s:I, s:I, s:s, s:s}",
                    "version", "2020-06-30", "exportArn", job->arn,
                    "startTime", start, "endTime", end,
                    "tableArn", job->table_arn,
                    "tableId", json_object_get(job->desc, "TableId"),
                    "exportTime", start,
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
    text = json_dumps(sum, JSON_COMPACT);
    json_decref(sum);
    path = xasprintf("%s/manifest-summary.json", w->dir);
    rc = write_text(path, text, true);
    free(path);
    free(text);
    return rc;
}

/* transfer_run_fn: write the snapshot out, then drop it. */
static void
export_run(struct transfer_job *job)
{
    struct export_work *w = job->work;
    struct storage *st = job->srv->st;
    struct ddb_err e;
    struct stat sb;
    size_t nfiles = 0;
    char *path, *text;
    uint64_t end;

    ddb_err_init(&e);
    w->files = json_array();
    if (stat(w->bucket_dir, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
        /* chosen code and message: S3's NoSuchBucket, as an export to a
         * missing bucket fails (the call itself succeeds) */
        export_failed(job, "S3NoSuchBucket",
                      "The specified bucket does not exist");
        goto out;
    }
    path = xasprintf("%s/data", w->dir);
    if (storage_mkdir_p(path, &e) != 0) {
        free(path);
        export_failed(job, "S3AccessDenied", "The export could not write "
                      "to the bucket");
        goto out;
    }
    free(path);
    path = xasprintf("%s/_started", w->dir);
    (void)write_text(path, "", false);
    free(path);
    if (storage_backup_read(st, w->snapshot, w->table, export_row, w,
                            &nfiles, &e) != 0)
        goto io;
    /* the partitions after the last with items: empty files */
    while (w->next < nfiles)
        if (data_next(w) != 0)
            goto io;
    if (data_close(w) != 0)
        goto io;
    end = wall_ms();
    if (end < job->start_ms)            /* the virtual clock runs ahead */
        end = job->start_ms;
    if (write_manifests(job, w, end) != 0)
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
    data_close(w);
    export_failed(job, "S3AccessDenied", "The export could not write to "
                  "the bucket");
out:
    ddb_err_clear(&e);
    (void)storage_backup_delete(st, w->snapshot, &e);
    ddb_err_clear(&e);
    json_decref(w->files);
    free(w->path);
    free(w->key);
    free(w->snapshot);
    free(w->table);
    free(w->bucket_dir);
    free(w->key_base);
    free(w->dir);
    free(w);
    job->work = NULL;
}

/* ------------------------------------------------------------------------
 * The request
 * ---------------------------------------------------------------------- */

/*
 * Whether the table may be exported: DynamoDB requires point-in-time
 * recovery on (PointInTimeRecoveryUnavailableException otherwise). Its
 * state is the description's "_sl_pitr" once UpdateContinuousBackups
 * records it; a table that has never had it set carries none and is
 * exported as of now, since this server offered exports before
 * point-in-time recovery (docs/export-import.md).
 */
static bool
pitr_allows(const json_t *desc)
{
    const json_t *p = json_object_get(desc, "_sl_pitr");

    return p == NULL || json_is_true(json_object_get(p, "enabled"));
}

/* The checks of the request's own members, in DynamoDB's order. */
static int
check_export(struct api_ctx *ctx, const json_t *req, struct ddb_err *err)
{
    const json_t *at = json_object_get(req, "ExportTime");
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
    if (json_is_number(at)) {
        double ms = json_number_value(at) * 1000.0;
        double now = (double)tables_now_ms(ctx);

        if (ms > now + EXPORT_NOW_SLACK_MS)
            return ddb_err_set(err, DDB_VALIDATION, "ExportTime must not "
                               "be in the future");
        /* a time in the past needs the table's state then: point-in-time
         * recovery's change log, which this server does not keep yet */
        if (ms < now - EXPORT_NOW_SLACK_MS)
            return ddb_err_set(err, DDB_VALIDATION, "ExportTime in the "
                               "past is not available locally: export "
                               "the table as of now (leave ExportTime "
                               "out)");
    }
    if (prefix != NULL &&
        transfer_check_prefix(prefix, "S3Prefix", err) != 0)
        return -1;
    return 0;
}

/* The IN_PROGRESS description of a new export. */
static json_t *
export_desc(struct api_ctx *ctx, const struct transfer_job *job,
            const json_t *req, const json_t *tdesc)
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
                          tables_epoch(tables_now_ms(ctx)));
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
    int rc = -1;

    if (check_export(ctx, req, err) != 0)
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
    if (strncmp(arn, "arn:", 4) != 0 ||
        tables_open_named(ctx, arn, false, name, sizeof(name), &t, &tdesc,
                          err) != 0) {
        ddb_err_clear(err);
        return ddb_err_set(err, DDB_TABLE_NOT_FOUND, "Table not found: %s",
                           arn);
    }
    if (!pitr_allows(tdesc)) {
        ddb_err_set(err, DDB_PITR_UNAVAILABLE, "Point in time recovery is "
                    "not enabled for table '%s'", name);
        goto out;
    }
    w = xcalloc(1, sizeof(*w));
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
    w->snapshot = xasprintf("%s%s", STORAGE_SNAPSHOT_PREFIX, id);
    w->table = xstrdup(name);
    w->key_base = prefix != NULL && prefix[0] != '\0'
                      ? xasprintf("%s%sAWSDynamoDB/%s", prefix,
                                  prefix[strlen(prefix) - 1] == '/' ? ""
                                                                   : "/",
                                  id)
                      : xasprintf("AWSDynamoDB/%s", id);
    w->dir = xasprintf("%s/%s", w->bucket_dir, w->key_base);
    /* the consistent cut, taken now: the export's time */
    meta = json_object();
    rc = storage_backup_create(ctx->srv->st, w->snapshot, &t, 1, meta, err);
    json_decref(meta);
    if (rc != 0)
        goto out;
    rc = -1;
    job->desc = export_desc(ctx, job, req, tdesc);
    job->work = w;
    job->run = export_run;
    *resp = json_pack("{s:o}", "ExportDescription",
                      json_deep_copy(job->desc));
    w = NULL;
    if (transfer_job_start(ctx, job, err) != 0) {
        json_decref(*resp);
        *resp = NULL;
        w = job->work;
        (void)storage_backup_delete(ctx->srv->st, w->snapshot, NULL);
        goto out;
    }
    job = NULL;
    rc = 0;
out:
    if (w != NULL) {
        free(w->snapshot);
        free(w->table);
        free(w->bucket_dir);
        free(w->key_base);
        free(w->dir);
        free(w);
    }
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
    struct transfer_job *job = transfer_job_find(
        ctx, TRANSFER_EXPORT, tables_str(req, "ExportArn"), err);

    if (job == NULL)
        return -1;
    *resp = json_pack("{s:o}", "ExportDescription",
                      transfer_job_describe(ctx, job));
    return 0;
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
