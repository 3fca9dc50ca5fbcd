/* SPDX-License-Identifier: MIT */
/* csv.h - ImportTable's CSV input (csv.c): the delimiter and header
 * (InputFormatOptions.Csv), and a line made an item as DynamoDB's import
 * makes it: the key attributes typed as AttributeDefinitions declare
 * them, every other attribute a string (developer guide, "Import from S3:
 * format quotas and validation"). */
#ifndef SHARDLOCAL_TRANSFER_CSV_H
#define SHARDLOCAL_TRANSFER_CSV_H

#include <stddef.h>
#include <jansson.h>

#include "storage/storage.h"

struct csv_opts {
    char delim;                     /* Delimiter, ',' by default */
    json_t *header_list;            /* HeaderList (new reference) or NULL:
                                       the object's first line is it */
};

/* From the Csv member (may be NULL). -1 with a ValidationException for a
 * delimiter that cannot be one (a quote, CR or LF). */
int csv_opts_init(struct csv_opts *o, const json_t *csv, struct ddb_err *err);
void csv_opts_fini(struct csv_opts *o);

/* One object's column names. */
struct csv_header {
    size_t n;                       /* 0: not read yet */
    char **names;                   /* owned */
};
/* From HeaderList when o has one, else empty (the first line fills it). */
void csv_header_init(struct csv_header *h, const struct csv_opts *o);
int csv_header_parse(const struct csv_opts *o, const char *line, size_t n,
                     struct csv_header *h, struct ddb_err *err);
void csv_header_fini(struct csv_header *h);

/* {"attr": "S"|"N"|"B"} of TableCreationParameters' AttributeDefinitions
 * into *keys (new reference). */
int csv_key_types(const json_t *tcp, json_t **keys, struct ddb_err *err);
/* The item of one line (new reference), or NULL with err set when its
 * fields do not match the header. Empty non-key fields are left out. */
json_t *csv_item(const struct csv_opts *o, const struct csv_header *h,
                 const json_t *keys, const char *line, size_t n,
                 struct ddb_err *err);

#endif
