/* SPDX-License-Identifier: MIT */
/* capacity.h - capacity units from item sizes (throttling.md 2) and the
 * ConsumedCapacity member of responses (throttling.md 3). */
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
/* The ConsumedCapacity object for ReturnConsumedCapacity mode (the request's
 * member, borrowed, may be NULL): NULL for absent/NONE, else
 * {"TableName": t, "CapacityUnits": u} plus "Table" for INDEXES.
 * New reference. */
json_t *capacity_json(const json_t *mode, const char *table, double units);

#endif
