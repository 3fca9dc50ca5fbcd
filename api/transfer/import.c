/* SPDX-License-Identifier: MIT */
/* import.c - ImportTable, DescribeImport and ListImports. ImportTable
 * creates the table of TableCreationParameters with CreateTable's own
 * checks, then the job's thread loads every object under the bucket's key
 * prefix (DYNAMODB_JSON: a line {"Item": {...}} per item, as an export
 * writes; CSV: a header and a line per item; each object gzip, zstd or
 * plain, as InputCompressionType says) through the one write path,
 * so indexes are written with their items. A line that is not an item of
 * the table counts in ErrorCount and is skipped, as DynamoDB does (which
 * logs it to CloudWatch; here the first errors are kept in the server's
 * log). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <zlib.h>
#include <zstd.h>

#include "api/ops/write.h"
#include "api/proto/av.h"
#include "api/proto/context.h"
#include "api/tables/tables.h"
#include "api/tables/tables_int.h"
#include "api/transfer/csv.h"
#include "api/transfer/transfer.h"
#include "storage/util.h"

/* A line longer than this is an error, not an item (an item is at most
 * 400 KB; its JSON, with base64 binaries, stays far below). */
#define IMPORT_LINE_MAX (8u << 20)

/* One object being read, decompressed as InputCompressionType says:
 * GZIP and NONE through zlib (which reads plain text as it is), ZSTD
 * through libzstd's streaming decoder. */
struct obj_reader {
    gzFile gz;                      /* GZIP, NONE */
    FILE *f;                        /* ZSTD: the file */
    ZSTD_DStream *zs;
    ZSTD_inBuffer in;
    unsigned char ibuf[65536];
    bool eof, frame_open;           /* the file's end; a frame unfinished */
};

static int
reader_open(struct obj_reader *r, const char *path, bool zstd)
{
    memset(r, 0, sizeof(*r));
    if (!zstd) {
        r->gz = gzopen(path, "rb");
        return r->gz != NULL ? 0 : -1;
    }
    r->f = fopen(path, "rb");
    if (r->f == NULL)
        return -1;
    r->zs = ZSTD_createDStream();
    r->in.src = r->ibuf;
    return r->zs != NULL && !ZSTD_isError(ZSTD_initDStream(r->zs)) ? 0 : -1;
}

/* Up to n bytes into buf: the count, 0 at the end, -1 on a bad stream. */
static long
reader_read(struct obj_reader *r, char *buf, size_t n)
{
    ZSTD_outBuffer out = { buf, n, 0 };

    if (r->gz != NULL)
        return gzread(r->gz, buf, (unsigned)n);
    while (out.pos == 0) {
        size_t ret;

        if (r->in.pos == r->in.size) {
            if (r->eof)
                return r->frame_open ? -1 : 0;  /* cut short */
            r->in.size = fread(r->ibuf, 1, sizeof(r->ibuf), r->f);
            r->in.pos = 0;
            if (r->in.size == 0) {
                r->eof = true;
                continue;
            }
        }
        ret = ZSTD_decompressStream(r->zs, &out, &r->in);
        if (ZSTD_isError(ret))
            return -1;
        r->frame_open = ret != 0;
    }
    return (long)out.pos;
}

/* 0, or -1 when the stream was bad. */
static int
reader_close(struct obj_reader *r)
{
    int rc = 0;

    if (r->gz != NULL)
        rc = gzclose(r->gz) == Z_OK ? 0 : -1;
    if (r->f != NULL)
        fclose(r->f);
    ZSTD_freeDStream(r->zs);
    return rc;
}

/* The run's state. */
struct import_work {
    char *table;                    /* owned: the new table's name */
    char *bucket_dir;               /* owned */
    char *prefix;                   /* owned: S3KeyPrefix ("" for none) */
    bool csv;                       /* InputFormat CSV */
    bool zstd;                      /* InputCompressionType ZSTD */
    struct csv_opts csvo;           /* its options */
    json_t *keys;                   /* the CSV key attributes' types */
    json_t *files;                  /* the keys of the objects to read */
    struct table_ref tr;            /* the table being loaded */
    struct api_ctx ctx;             /* the write path's context */
    uint64_t processed, imported, errors, bytes;
};

/* Every object key of the bucket under dir (rel: its key so far) that
 * starts with prefix, into keys. */
static void
list_objects(const char *root, const char *rel, const char *prefix,
             json_t *keys)
{
    char *path = rel[0] != '\0' ? xasprintf("%s/%s", root, rel)
                                : xstrdup(root);
    DIR *d = opendir(path);
    struct dirent *e;
    struct stat sb;

    free(path);
    if (d == NULL)
        return;
    while ((e = readdir(d)) != NULL) {
        char *key, *full;
        size_t n;

        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        key = rel[0] != '\0' ? xasprintf("%s/%s", rel, e->d_name)
                             : xstrdup(e->d_name);
        full = xasprintf("%s/%s", root, key);
        n = strlen(key);
        if (stat(full, &sb) == 0 && S_ISDIR(sb.st_mode)) {
            /* a folder can hold keys with the prefix when its key is the
             * prefix's beginning, or has the whole prefix */
            if (strncmp(key, prefix, n < strlen(prefix) ? n
                                                        : strlen(prefix)) ==
                0)
                list_objects(root, key, prefix, keys);
        } else if (S_ISREG(sb.st_mode) &&
                   strncmp(key, prefix, strlen(prefix)) == 0) {
            json_array_append_new(keys, json_string(key));
        }
        free(full);
        free(key);
    }
    closedir(d);
}

static int
key_cmp(const void *a, const void *b)
{
    return strcmp(json_string_value(*(json_t *const *)a),
                  json_string_value(*(json_t *const *)b));
}

/* Put item (taken) into the table through the write path. */
static int
put_item(struct import_work *w, json_t *item, struct ddb_err *err)
{
    json_t *params = json_pack("{s:s, s:o}", "TableName", w->table, "Item",
                               item);
    struct write_req wr;
    struct item_key k;
    int rc = -1;

    write_req_init(&wr, WRITE_PUT, params);
    if (write_take_item(&wr, err) != 0)
        goto out;
    if (wr.item == NULL) {
        ddb_err_set(err, DDB_VALIDATION, "Item is not a map");
        goto out;
    }
    if (write_resolve(&w->ctx, &wr, &w->tr, &k, err) != 0)
        goto out;
    /* the import's writes are the caller's, as PutItem's (the change
     * log; the new table has no stream) */
    rc = wr.set != NULL
             ? index_mutate(wr.set, w->tr.t, &k, STORAGE_ORIGIN_REQUEST,
                            write_apply, &wr, NULL, err)
             : stable_mutate(w->tr.t, &k, write_apply, &wr, err);
out:
    write_req_fini(&wr);
    json_decref(params);
    return rc;
}

/* One line of a DYNAMODB_JSON object: {"Item": {...}}. */
static int
json_line(struct import_work *w, const char *line, size_t n,
          struct ddb_err *err)
{
    json_t *v = json_loadb(line, n, JSON_REJECT_DUPLICATES, NULL);
    json_t *item = json_object_get(v, "Item");
    int rc;

    if (!json_is_object(item) || json_object_size(v) != 1) {
        json_decref(v);
        return ddb_err_set(err, DDB_VALIDATION, "not a DynamoDB JSON item "
                           "line");
    }
    rc = put_item(w, json_incref(item), err);
    json_decref(v);
    return rc;
}

/* One line of the object (without its newline); the first line of a CSV
 * object without HeaderList is its header. */
static void
one_line(struct import_work *w, const char *obj, size_t lineno,
         struct strbuf *line, struct csv_header *hdr)
{
    struct ddb_err e;
    json_t *item;
    int rc;

    if (line->len > 0 && line->s[line->len - 1] == '\r')
        line->len--;
    if (line->len == 0)
        return;
    ddb_err_init(&e);
    if (w->csv && hdr->n == 0) {
        rc = csv_header_parse(&w->csvo, line->s, line->len, hdr, &e);
    } else {
        w->processed++;
        if (w->csv) {
            item = csv_item(&w->csvo, hdr, w->keys, line->s, line->len,
                            &e);
            rc = item != NULL ? put_item(w, item, &e) : -1;
        } else {
            rc = json_line(w, line->s, line->len, &e);
        }
        if (rc == 0)
            w->imported++;
    }
    if (rc != 0) {
        w->errors++;
        if (w->errors <= 10)
            fprintf(stderr, "import into %s: %s line %zu: %s\n", w->table,
                    obj, lineno, e.msg);
    }
    ddb_err_clear(&e);
}

/* Read one object line by line. */
static int
read_object(struct import_work *w, const char *key)
{
    char *path = xasprintf("%s/%s", w->bucket_dir, key);
    struct obj_reader *r = xmalloc(sizeof(*r));
    struct strbuf line = { 0 };
    struct csv_header hdr;
    char buf[65536];
    struct stat sb;
    size_t lineno = 0;
    bool skipping = false;
    long n;
    int rc;

    if (stat(path, &sb) == 0)
        w->bytes += (uint64_t)sb.st_size;
    rc = reader_open(r, path, w->zstd);
    free(path);
    if (rc != 0) {
        reader_close(r);
        free(r);
        return -1;
    }
    csv_header_init(&hdr, &w->csvo);
    strbuf_init(&line);
    while ((n = reader_read(r, buf, sizeof(buf))) > 0) {
        const char *p = buf, *end = buf + n, *nl;

        while (p < end) {
            nl = memchr(p, '\n', (size_t)(end - p));
            if (!skipping)
                strbuf_add(&line, p, nl != NULL ? (size_t)(nl - p)
                                                : (size_t)(end - p));
            if (line.len > IMPORT_LINE_MAX) {
                skipping = true;        /* counted once, at its end */
                line.len = 0;
            }
            if (nl == NULL)
                break;
            lineno++;
            if (skipping) {
                w->processed++;
                w->errors++;
                skipping = false;
            } else {
                one_line(w, key, lineno, &line, &hdr);
            }
            line.len = 0;
            p = nl + 1;
        }
    }
    if (skipping) {                     /* a last line too long */
        w->processed++;
        w->errors++;
    } else if (line.len > 0) {          /* a last line without newline */
        one_line(w, key, lineno + 1, &line, &hdr);
    }
    strbuf_free(&line);
    csv_header_fini(&hdr);
    rc = reader_close(r) == 0 && n == 0 ? 0 : -1;
    free(r);
    return rc;
}

static void
import_failed(struct transfer_job *job, const char *code, const char *msg)
{
    json_object_set_new(job->result, "ImportStatus", json_string("FAILED"));
    json_object_set_new(job->result, "FailureCode", json_string(code));
    json_object_set_new(job->result, "FailureMessage", json_string(msg));
}

/* Free the run's state (NULL: nothing); its table handle goes first. */
static void
work_free(struct import_work *w)
{
    if (w == NULL)
        return;
    json_decref(w->files);
    json_decref(w->keys);
    csv_opts_fini(&w->csvo);
    free(w->table);
    free(w->bucket_dir);
    free(w->prefix);
    free(w);
}

/* transfer_run_fn: load every object under the prefix. */
static void
import_run(struct transfer_job *job)
{
    struct import_work *w = job->work;
    struct storage *st = job->srv->st;
    struct ddb_err e;
    struct stat sb;
    json_t *desc = NULL, *k;
    size_t i, n;
    uint64_t end;

    ddb_err_init(&e);
    w->ctx.srv = job->srv;
    w->ctx.region = job->region;
    w->ctx.now_ms = job->start_ms;
    w->files = json_array();
    memset(&w->tr, 0, sizeof(w->tr));
    if (stat(w->bucket_dir, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
        /* chosen code and message: S3's NoSuchBucket */
        import_failed(job, "S3NoSuchBucket",
                      "The specified bucket does not exist");
        goto out;
    }
    list_objects(w->bucket_dir, "", w->prefix, w->files);
    n = json_array_size(w->files);
    if (n == 0) {
        /* chosen code and message: nothing to import is a failure */
        import_failed(job, "S3NoSuchKey", "No objects found under the "
                      "S3 key prefix");
        goto out;
    }
    {
        json_t **v = xcalloc(n, sizeof(*v));

        json_array_foreach(w->files, i, k)
            v[i] = json_incref(k);
        qsort(v, n, sizeof(*v), key_cmp);
        json_array_clear(w->files);
        for (i = 0; i < n; i++)
            json_array_append_new(w->files, v[i]);
        free(v);
    }
    w->tr.t = storage_table_get(st, w->table);
    if (w->tr.t == NULL) {
        import_failed(job, "TableNotFound", "The table was deleted "
                      "during the import");
        goto out;
    }
    desc = stable_desc_ref(w->tr.t);
    if (key_schema_from_desc(desc, &w->tr.ks, &e) != 0) {
        import_failed(job, "InternalServerError", e.msg);
        goto out;
    }
    w->tr.name = stable_name(w->tr.t);
    json_array_foreach(w->files, i, k)
        if (read_object(w, json_string_value(k)) != 0) {
            /* an unreadable or corrupt object: its lines so far count,
             * the object counts as one error */
            w->errors++;
        }
    json_object_set_new(job->result, "ImportStatus",
                        json_string("COMPLETED"));
out:
    end = wall_ms();
    json_object_set_new(job->result, "EndTime",
                        tables_epoch(end > job->start_ms ? end
                                                          : job->start_ms));
    json_object_set_new(job->result, "ProcessedSizeBytes",
                        json_integer((json_int_t)w->bytes));
    json_object_set_new(job->result, "ProcessedItemCount",
                        json_integer((json_int_t)w->processed));
    json_object_set_new(job->result, "ImportedItemCount",
                        json_integer((json_int_t)w->imported));
    json_object_set_new(job->result, "ErrorCount",
                        json_integer((json_int_t)w->errors));
    ddb_err_clear(&e);
    json_decref(desc);
    if (w->tr.t != NULL)
        stable_release(w->tr.t);
    work_free(w);
    job->work = NULL;
}

/* ------------------------------------------------------------------------
 * The request
 * ---------------------------------------------------------------------- */

/* CreateTable's request from TableCreationParameters (new reference). */
static json_t *
create_request(const json_t *tcp)
{
    static const char *const members[] = {
        "TableName", "AttributeDefinitions", "KeySchema", "BillingMode",
        "ProvisionedThroughput", "OnDemandThroughput", "SSESpecification",
        "GlobalSecondaryIndexes", NULL };
    json_t *req = json_object();

    for (size_t i = 0; members[i] != NULL; i++)
        if (json_object_get(tcp, members[i]) != NULL)
            json_object_set(req, members[i], json_object_get(tcp,
                                                             members[i]));
    return req;
}

/* The checks of the request's own members. */
static int
check_import(const json_t *req, struct ddb_err *err)
{
    const json_t *src = json_object_get(req, "S3BucketSource");
    const char *prefix = tables_str(src, "S3KeyPrefix");

    if (json_str_is(json_object_get(req, "InputFormat"), "ION"))
        return ddb_err_set(err, DDB_VALIDATION, "InputFormat ION is not "
                           "available locally: use DYNAMODB_JSON or CSV");
    if (json_has(req, "InputFormatOptions") &&
        !json_str_is(json_object_get(req, "InputFormat"), "CSV"))
        return ddb_err_set(err, DDB_VALIDATION, "InputFormatOptions is "
                           "only valid with InputFormat CSV");
    if (prefix != NULL &&
        transfer_check_prefix(prefix, "S3KeyPrefix", err) != 0)
        return -1;
    return 0;
}

/* The IN_PROGRESS description of a new import. */
static json_t *
import_desc(const struct transfer_job *job, const json_t *req,
            const json_t *tdesc)
{
    static const char *const copied[] = { "ClientToken", "S3BucketSource",
                                          "InputFormat",
                                          "InputFormatOptions",
                                          "TableCreationParameters", NULL };
    const char *comp = tables_str(req, "InputCompressionType");
    json_t *d = json_pack("{s:s, s:s, s:s, s:O, s:o, s:i, s:i, s:i, s:i}",
                          "ImportArn", job->arn, "ImportStatus",
                          "IN_PROGRESS", "TableArn", job->table_arn,
                          "TableId", json_object_get(tdesc, "TableId"),
                          "StartTime", tables_epoch(job->start_ms),
                          "ErrorCount", 0, "ProcessedSizeBytes", 0,
                          "ProcessedItemCount", 0, "ImportedItemCount", 0);

    for (size_t i = 0; copied[i] != NULL; i++)
        if (json_object_get(req, copied[i]) != NULL)
            json_object_set(d, copied[i], json_object_get(req, copied[i]));
    json_object_set_new(d, "InputCompressionType",
                        json_string(comp != NULL ? comp : "NONE"));
    return d;
}

int
api_import_table(struct api_ctx *ctx, const json_t *req, json_t **resp,
                 struct ddb_err *err)
{
    const json_t *tcp = json_object_get(req, "TableCreationParameters");
    const json_t *src = json_object_get(req, "S3BucketSource");
    struct transfer_job *job = NULL, *same;
    struct import_work *w = NULL;
    json_t *creq = NULL, *cresp = NULL, *tdesc;
    const char *prefix = tables_str(src, "S3KeyPrefix");
    int rc = -1;

    if (check_import(req, err) != 0)
        return -1;
    same = transfer_job_by_token(ctx, TRANSFER_IMPORT,
                                 tables_str(req, "ClientToken"));
    if (same != NULL) {
        /* the same ClientToken: the same import again, or a conflict
         * (API reference, ImportTable: ClientToken) */
        if (!json_equal(same->params, (json_t *)req))
            return ddb_err_set(err, DDB_IMPORT_CONFLICT, "Import with "
                               "the same client token and different "
                               "parameters already exists");
        *resp = json_pack("{s:o}", "ImportTableDescription",
                          transfer_job_describe(ctx, same));
        return 0;
    }
    if (transfer_job_admit(ctx, TRANSFER_IMPORT, err) != 0)
        return -1;
    w = xcalloc(1, sizeof(*w));
    w->bucket_dir = transfer_bucket_dir(ctx, tables_str(src, "S3Bucket"),
                                        err);
    if (w->bucket_dir == NULL)
        goto out;
    w->csv = json_str_is(json_object_get(req, "InputFormat"), "CSV");
    w->zstd = json_str_is(json_object_get(req, "InputCompressionType"),
                          "ZSTD");
    if (csv_opts_init(&w->csvo, json_object_get(json_object_get(
                                    req, "InputFormatOptions"), "Csv"),
                      err) != 0)
        goto out;
    if (w->csv && csv_key_types(tcp, &w->keys, err) != 0)
        goto out;
    creq = create_request(tcp);
    if (api_create_table(ctx, creq, &cresp, err) != 0)
        goto out;
    tdesc = json_object_get(cresp, "TableDescription");
    {
        /* the worker opens the table by its stored name (context.h) */
        char stored[TABLES_NAME_MAX];

        if (!api_table_stored(ctx, NULL, tables_str(tdesc, "TableName"),
                              stored, sizeof(stored))) {
            ddb_err_set(err, DDB_INTERNAL, "table name too long");
            goto out;
        }
        w->table = xstrdup(stored);
    }
    w->prefix = xstrdup(prefix != NULL ? prefix : "");
    job = transfer_job_new(ctx, TRANSFER_IMPORT, tables_str(tdesc,
                                                            "TableArn"),
                           req);
    job->desc = import_desc(job, req, tdesc);
    job->work = w;
    job->run = import_run;
    *resp = json_pack("{s:o}", "ImportTableDescription",
                      json_deep_copy(job->desc));
    if (transfer_job_start(ctx, job, err) != 0) {
        json_decref(*resp);
        *resp = NULL;
        goto out;
    }
    job = NULL;
    w = NULL;
    rc = 0;
out:
    work_free(w);
    transfer_job_free(job);
    json_decref(creq);
    json_decref(cresp);
    return rc;
}

int
api_describe_import(struct api_ctx *ctx, const json_t *req, json_t **resp,
                    struct ddb_err *err)
{
    return transfer_describe_call(ctx, TRANSFER_IMPORT, req, "ImportArn",
                                  "ImportTableDescription", resp, err);
}

/* ImportSummary: the import's ARN, status, table, source, format and
 * times. */
static json_t *
import_summary(const json_t *d)
{
    static const char *const members[] = { "ImportArn", "ImportStatus",
                                           "TableArn", "S3BucketSource",
                                           "InputFormat", "StartTime",
                                           "EndTime", NULL };
    json_t *s = json_object();

    for (size_t i = 0; members[i] != NULL; i++)
        if (json_object_get(d, members[i]) != NULL)
            json_object_set(s, members[i], json_object_get(d, members[i]));
    return s;
}

int
api_list_imports(struct api_ctx *ctx, const json_t *req, json_t **resp,
                 struct ddb_err *err)
{
    return transfer_job_list(ctx, TRANSFER_IMPORT, req, "PageSize",
                             "ImportSummaryList", import_summary, resp, err);
}
