/* SPDX-License-Identifier: MIT */
/* capacity.c - capacity units from item sizes, and the ledger of what a
 * request consumed that becomes its ConsumedCapacity member. */
#include <stdlib.h>
#include <string.h>

#include "api/proto/capacity.h"
#include "api/proto/context.h"
#include "storage/util.h"

double
capacity_read_units(size_t bytes, bool consistent)
{
    size_t steps = (bytes + 4095) / 4096;
    double units;

    if (steps == 0)
        steps = 1;
    units = (double)steps;
    return consistent ? units : units / 2.0;
}

double
capacity_write_units(size_t bytes)
{
    size_t steps = (bytes + 1023) / 1024;

    return steps == 0 ? 1.0 : (double)steps;
}

/* ------------------------------------------------------------------------
 * The ledger
 * ---------------------------------------------------------------------- */

void
capacity_init(struct capacity *c)
{
    c->n = 0;
    c->line = NULL;
}

void
capacity_fini(struct capacity *c)
{
    for (size_t i = 0; i < c->n; i++) {
        for (size_t j = 0; j < c->line[i].nidx; j++)
            free(c->line[i].idx[j].name);
        free(c->line[i].idx);
        for (size_t j = 0; j < c->line[i].nvec; j++)
            free(c->line[i].vec[j].name);
        free(c->line[i].vec);
        free(c->line[i].table);
    }
    free(c->line);
    capacity_init(c);
}

/* table's line, created at the end on first use. */
static struct capacity_line *
line_of(struct capacity *c, const char *table)
{
    struct capacity_line *l;

    for (size_t i = 0; i < c->n; i++)
        if (strcmp(c->line[i].table, table) == 0)
            return &c->line[i];
    c->line = xrealloc(c->line, (c->n + 1) * sizeof(*c->line));
    l = &c->line[c->n++];
    memset(l, 0, sizeof(*l));
    l->table = xstrdup(table);
    return l;
}

void
capacity_add(struct capacity *c, const char *table, double read,
             double write)
{
    struct capacity_line *l;

    if (c == NULL)
        return;
    l = line_of(c, table);
    l->read += read;
    l->write += write;
}

void
capacity_add_index(struct capacity *c, const char *table, const char *index,
                   bool global, double units)
{
    struct capacity_line *l;
    struct capacity_index *x;

    if (c == NULL || !(units > 0))
        return;
    l = line_of(c, table);
    for (size_t j = 0; j < l->nidx; j++)
        if (strcmp(l->idx[j].name, index) == 0) {
            l->idx[j].units += units;
            return;
        }
    l->idx = xrealloc(l->idx, (l->nidx + 1) * sizeof(*l->idx));
    x = &l->idx[l->nidx++];
    x->name = xstrdup(index);
    x->global = global;
    x->units = units;
}

void
capacity_add_vector(struct capacity *c, const char *table, const char *index,
                    double bytes)
{
    struct capacity_line *l;

    if (c == NULL || !(bytes > 0))
        return;
    l = line_of(c, table);
    for (size_t j = 0; j < l->nvec; j++)
        if (strcmp(l->vec[j].name, index) == 0) {
            l->vec[j].bytes += bytes;
            return;
        }
    l->vec = xrealloc(l->vec, (l->nvec + 1) * sizeof(*l->vec));
    l->vec[l->nvec].name = xstrdup(index);
    l->vec[l->nvec++].bytes = bytes;
}

/* {"CapacityUnits": read + write + extra}, with the split when asked. */
static json_t *
units_json(double read, double write, double extra, unsigned flags)
{
    json_t *o = json_pack("{s:f}", "CapacityUnits", read + write + extra);

    if (flags & CAPACITY_SPLIT) {
        if (read > 0)
            json_object_set_new(o, "ReadCapacityUnits", json_real(read));
        if (write > 0)
            json_object_set_new(o, "WriteCapacityUnits", json_real(write));
    }
    return o;
}

static json_t *
line_json(const struct capacity_line *l, bool indexes, unsigned flags)
{
    json_t *o, *gsi = NULL, *lsi = NULL;
    double idx = 0;

    for (size_t j = 0; j < l->nidx; j++)
        idx += l->idx[j].units;
    o = units_json(l->read, l->write, idx, flags);
    json_object_set_new(o, "TableName",
                        json_string(api_table_public(l->table)));
    if (!indexes)
        return o;
    json_object_set_new(o, "Table", units_json(l->read, l->write, 0, flags));
    for (size_t j = 0; j < l->nidx; j++) {
        json_t **map = l->idx[j].global ? &gsi : &lsi;

        if (*map == NULL)
            *map = json_object();
        json_object_set_new(*map, l->idx[j].name,
                            json_pack("{s:f}", "CapacityUnits",
                                      l->idx[j].units));
    }
    if (gsi != NULL)
        json_object_set_new(o, "GlobalSecondaryIndexes", gsi);
    if (lsi != NULL)
        json_object_set_new(o, "LocalSecondaryIndexes", lsi);
    if (l->nvec > 0) {
        json_t *vec = json_object();

        for (size_t j = 0; j < l->nvec; j++)
            json_object_set_new(vec, l->vec[j].name,
                                json_pack("{s:f}", "VectorWriteRequestBytes",
                                          l->vec[j].bytes));
        json_object_set_new(o, "VectorIndexes", vec);
    }
    return o;
}

json_t *
capacity_report(const struct capacity *c, const json_t *mode,
                unsigned flags)
{
    bool indexes = json_str_is(mode, "INDEXES");
    json_t *list;

    if (c->n == 0 || (!indexes && !json_str_is(mode, "TOTAL")))
        return NULL;
    if (!(flags & CAPACITY_LIST))
        return line_json(&c->line[0], indexes, flags);
    list = json_array();
    for (size_t i = 0; i < c->n; i++)
        json_array_append_new(list, line_json(&c->line[i], indexes, flags));
    return list;
}
