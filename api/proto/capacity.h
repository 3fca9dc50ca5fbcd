/* SPDX-License-Identifier: MIT */
/* capacity.h - capacity units from item sizes (throttling.md 2), and what
 * one request consumed, per table and index, as the ConsumedCapacity
 * member of its reply (throttling.md 3). Handlers record units as they
 * go; dispatch renders the member once the handler succeeded. */
#ifndef SHARDLOCAL_CAPACITY_H
#define SHARDLOCAL_CAPACITY_H

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>

/* Read units for bytes read in one request: 4 KB steps, at least one step;
 * half when eventually consistent. */
double capacity_read_units(size_t bytes, bool consistent);
/* Write units: 1 KB steps, at least 1. */
double capacity_write_units(size_t bytes);

/* One table's line of a request's consumption. */
struct capacity_index {
    char *name;                     /* owned */
    bool global;                    /* GSI (else LSI) */
    double units;
};

/* One vector index's VectorWriteRequestBytes (not capacity units: they
 * are reported beside them, never summed in). */
struct capacity_vector {
    char *name;                     /* owned */
    double bytes;
};

struct capacity_line {
    char *table;                    /* owned */
    double read, write;             /* the table's own units */
    size_t nidx;
    struct capacity_index *idx;     /* owned: its indexes' units */
    size_t nvec;
    struct capacity_vector *vec;    /* owned: its vector indexes' bytes */
};

/* What a request consumed: lines in the order tables first appear. */
struct capacity {
    size_t n;
    struct capacity_line *line;     /* owned */
};

/* How the ConsumedCapacity member is shaped. */
enum {
    CAPACITY_LIST = 1 << 0,         /* a list, one entry per table (batches,
                                       transactions); else one object */
    CAPACITY_SPLIT = 1 << 1,        /* Read/WriteCapacityUnits beside
                                       CapacityUnits (transactions) */
};

void capacity_init(struct capacity *c);
void capacity_fini(struct capacity *c);
/* Record read and write units on table (its line is created, even for 0
 * units, so a table the request touched is listed). c may be NULL (no
 * record kept), here and in capacity_add_index. */
void capacity_add(struct capacity *c, const char *table, double read,
                  double write);
/* Record units on an index of table; an index is listed only once it has
 * units above 0. */
void capacity_add_index(struct capacity *c, const char *table,
                        const char *index, bool global, double units);
/* Record VectorWriteRequestBytes on a vector index of table; listed, under
 * INDEXES only, once above 0 (a write that left the index's entry as it
 * was reports none). */
void capacity_add_vector(struct capacity *c, const char *table,
                         const char *index, double bytes);
/*
 * The ConsumedCapacity member for mode (the request's
 * ReturnConsumedCapacity, borrowed, may be NULL): NULL for absent, NONE
 * or nothing recorded; else per table {"TableName", "CapacityUnits" (the
 * table's and its indexes' units)}, with INDEXES also "Table" and the
 * "GlobalSecondaryIndexes" / "LocalSecondaryIndexes" / "VectorIndexes"
 * maps. flags:
 * CAPACITY_*. New reference.
 */
json_t *capacity_report(const struct capacity *c, const json_t *mode,
                        unsigned flags);

#endif
