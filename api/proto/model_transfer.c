/* SPDX-License-Identifier: MIT */
/* model_transfer.c - the service model of the export and import calls
 * (ExportTableToPointInTime, DescribeExport, ListExports, ImportTable,
 * DescribeImport, ListImports), their request members in the order the
 * API reference lists them. Data only; api/transfer/ does the rest. */

#include "api/proto/model.h"

static const char *const e_sse[] = { "AES256", "KMS", NULL };
static const char *const e_export_format[] = { "DYNAMODB_JSON", "ION",
                                               NULL };
static const char *const e_export_type[] = { "FULL_EXPORT",
                                             "INCREMENTAL_EXPORT", NULL };
static const char *const e_view[] = { "NEW_IMAGE", "NEW_AND_OLD_IMAGES",
                                      NULL };
static const char *const e_input_format[] = { "DYNAMODB_JSON", "ION", "CSV",
                                              NULL };
static const char *const e_compression[] = { "GZIP", "ZSTD", "NONE",
                                             NULL };

#define ARN_FIELD(n, fl) { .name = n, .type = T_STR, \
                           .flags = (fl) | F_MINLEN | F_MAXLEN, \
                           .minlen = 1, .maxlen = 1024 }
#define JOB_ARN(n) { .name = n, .type = T_STR, \
                     .flags = F_NOTNULL | F_MINLEN | F_MAXLEN, \
                     .minlen = 37, .maxlen = 1024 }
#define PAGE(n) { .name = n, .type = T_INT, .flags = F_MINVAL | F_MAXVAL, \
                  .minval = 1, .maxval = 25 }
#define NEXT_TOKEN { .name = "NextToken", .type = T_STR, \
                     .flags = F_MAXLEN, .maxlen = 1024 }
#define CLIENT_TOKEN { .name = "ClientToken", .type = T_STR, \
                       .flags = F_MAXLEN, .maxlen = 64 }

static const struct vfield incremental_fields[] = {
    { .name = "ExportFromTime", .type = T_TIME },
    { .name = "ExportToTime", .type = T_TIME },
    ENUM("ExportViewType", e_view),
    END
};

static const struct vfield export_table[] = {
    ARN_FIELD("TableArn", F_NOTNULL),
    { .name = "ExportTime", .type = T_TIME },
    CLIENT_TOKEN,
    { .name = "S3Bucket", .type = T_STR, .flags = F_NOTNULL | F_MAXLEN,
      .maxlen = 255 },
    { .name = "S3BucketOwner", .type = T_STR, .flags = F_MAXLEN,
      .maxlen = 12 },
    { .name = "S3Prefix", .type = T_STR, .flags = F_MAXLEN,
      .maxlen = 1024 },
    ENUM("S3SseAlgorithm", e_sse),
    { .name = "S3SseKmsKeyId", .type = T_STR,
      .flags = F_MINLEN | F_MAXLEN, .minlen = 1, .maxlen = 2048 },
    ENUM("ExportFormat", e_export_format),
    ENUM("ExportType", e_export_type),
    STRUCT("IncrementalExportSpecification", incremental_fields,
           "IncrementalExportSpecification"),
    END
};
static const struct vfield describe_export[] = { JOB_ARN("ExportArn"), END };
static const struct vfield list_exports[] = {
    ARN_FIELD("TableArn", 0),
    PAGE("MaxResults"),
    NEXT_TOKEN,
    END
};

static const struct vfield bucket_fields[] = {
    { .name = "S3BucketOwner", .type = T_STR, .flags = F_MAXLEN,
      .maxlen = 12 },
    { .name = "S3Bucket", .type = T_STR, .flags = F_NOTNULL | F_MAXLEN,
      .maxlen = 255 },
    { .name = "S3KeyPrefix", .type = T_STR, .flags = F_MAXLEN,
      .maxlen = 1024 },
    END
};
static const struct vfield csv_fields[] = {
    { .name = "Delimiter", .type = T_STR, .flags = F_MINLEN | F_MAXLEN,
      .minlen = 1, .maxlen = 1 },
    { .name = "HeaderList", .type = T_LIST, .flags = F_MINLEN | F_MAXLEN,
      .minlen = 1, .maxlen = 255, .sub = &model_str_elem },
    END
};
static const struct vfield format_options_fields[] = {
    STRUCT("Csv", csv_fields, "CsvOptions"),
    END
};
/* TableCreationParameters' members are CreateTable's: ImportTable checks
 * them with CreateTable's own checks (api/transfer/import.c). */
static const struct vfield creation_fields[] = { END };

static const struct vfield import_table[] = {
    CLIENT_TOKEN,
    { .name = "S3BucketSource", .type = T_STRUCT, .flags = F_NOTNULL,
      .sub = bucket_fields, .cls = "S3BucketSource" },
    { .name = "InputFormat", .type = T_STR, .flags = F_NOTNULL,
      .enums = e_input_format },
    STRUCT("InputFormatOptions", format_options_fields,
           "InputFormatOptions"),
    ENUM("InputCompressionType", e_compression),
    { .name = "TableCreationParameters", .type = T_STRUCT,
      .flags = F_NOTNULL, .sub = creation_fields,
      .cls = "TableCreationParameters" },
    END
};
static const struct vfield describe_import[] = { JOB_ARN("ImportArn"), END };
static const struct vfield list_imports[] = {
    ARN_FIELD("TableArn", 0),
    PAGE("PageSize"),
    NEXT_TOKEN,
    END
};

const struct api_schema schema_export_table_to_point_in_time = {
    .fields = export_table };
const struct api_schema schema_describe_export = {
    .fields = describe_export };
const struct api_schema schema_list_exports = { .fields = list_exports };
const struct api_schema schema_import_table = { .fields = import_table };
const struct api_schema schema_describe_import = {
    .fields = describe_import };
const struct api_schema schema_list_imports = { .fields = list_imports };
