/* SPDX-License-Identifier: MIT */
/* csv.c - ImportTable's CSV lines: fields split at the delimiter, RFC
 * 4180 quotes ("" inside a quoted field is a quote), the header, and an
 * item made of a line. A quoted field cannot span lines here. */
#include <stdlib.h>
#include <string.h>

#include "api/transfer/csv.h"
#include "storage/util.h"

int
csv_opts_init(struct csv_opts *o, const json_t *csv, struct ddb_err *err)
{
    const char *d = json_string_value(json_object_get(csv, "Delimiter"));
    const json_t *hl = json_object_get(csv, "HeaderList");

    o->delim = d != NULL && d[0] != '\0' ? d[0] : ',';
    o->header_list = json_is_array(hl) ? json_incref((json_t *)hl) : NULL;
    if (o->delim == '"' || o->delim == '\n' || o->delim == '\r') {
        json_decref(o->header_list);
        o->header_list = NULL;
        /* chosen wording: DynamoDB's was not found */
        return ddb_err_set(err, DDB_VALIDATION, "Invalid CSV delimiter");
    }
    return 0;
}

void
csv_opts_fini(struct csv_opts *o)
{
    json_decref(o->header_list);
    o->header_list = NULL;
}

/* Split line into fields (new array of strings), or NULL for a quote
 * left open or text after a closing quote. */
static json_t *
split(const struct csv_opts *o, const char *line, size_t n)
{
    json_t *out = json_array();
    struct strbuf f = { 0 };
    size_t i = 0;

    for (;;) {
        strbuf_init(&f);
        if (i < n && line[i] == '"') {
            for (i++;; i++) {
                if (i >= n)
                    goto bad;
                if (line[i] == '"') {
                    if (i + 1 < n && line[i + 1] == '"') {
                        strbuf_putc(&f, '"');
                        i++;
                        continue;
                    }
                    i++;
                    break;
                }
                strbuf_putc(&f, line[i]);
            }
            if (i < n && line[i] != o->delim)
                goto bad;
        } else {
            while (i < n && line[i] != o->delim)
                strbuf_putc(&f, line[i++]);
        }
        json_array_append_new(out, json_stringn(f.s != NULL ? f.s : "",
                                                f.len));
        strbuf_free(&f);
        if (i >= n)
            return out;
        i++;                            /* the delimiter */
    }
bad:
    strbuf_free(&f);
    json_decref(out);
    return NULL;
}

void
csv_header_init(struct csv_header *h, const struct csv_opts *o)
{
    const json_t *v;
    size_t i;

    h->n = 0;
    h->names = NULL;
    if (o->header_list == NULL)
        return;
    h->names = xcalloc(json_array_size(o->header_list) + 1,
                       sizeof(*h->names));
    json_array_foreach(o->header_list, i, v)
        h->names[h->n++] = xstrdup(json_is_string(v) ? json_string_value(v)
                                                     : "");
}

int
csv_header_parse(const struct csv_opts *o, const char *line, size_t n,
                 struct csv_header *h, struct ddb_err *err)
{
    json_t *f = split(o, line, n), *v;
    size_t i;

    if (f == NULL)
        return ddb_err_set(err, DDB_VALIDATION, "malformed CSV header");
    h->names = xcalloc(json_array_size(f) + 1, sizeof(*h->names));
    json_array_foreach(f, i, v)
        h->names[h->n++] = xstrdup(json_string_value(v));
    json_decref(f);
    return 0;
}

void
csv_header_fini(struct csv_header *h)
{
    for (size_t i = 0; i < h->n; i++)
        free(h->names[i]);
    free(h->names);
    h->names = NULL;
    h->n = 0;
}

int
csv_key_types(const json_t *tcp, json_t **keys, struct ddb_err *err)
{
    const json_t *def;
    size_t i;

    (void)err;
    *keys = json_object();
    json_array_foreach(json_object_get(tcp, "AttributeDefinitions"), i,
                       def) {
        const char *name = json_string_value(json_object_get(
            def, "AttributeName"));
        const json_t *type = json_object_get(def, "AttributeType");

        if (name != NULL && json_is_string(type))
            json_object_set(*keys, name, (json_t *)type);
    }
    return 0;
}

json_t *
csv_item(const struct csv_opts *o, const struct csv_header *h,
         const json_t *keys, const char *line, size_t n,
         struct ddb_err *err)
{
    json_t *f = split(o, line, n), *item, *v;
    size_t i;

    if (f == NULL || json_array_size(f) != h->n) {
        json_decref(f);
        ddb_err_set(err, DDB_VALIDATION, "the line's fields do not match "
                    "the CSV header");
        return NULL;
    }
    item = json_object();
    json_array_foreach(f, i, v) {
        const char *type = json_string_value(json_object_get(keys,
                                                             h->names[i]));

        if (type == NULL && json_string_length(v) == 0)
            continue;
        json_object_set_new(item, h->names[i],
                            json_pack("{s:O}", type != NULL ? type : "S",
                                      v));
    }
    json_decref(f);
    return item;
}
