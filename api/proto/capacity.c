/* SPDX-License-Identifier: MIT */
/* capacity.c - capacity units from item sizes and the ConsumedCapacity
 * reply member. Enforcement (token buckets) builds on these numbers. */
#include <string.h>

#include "api/proto/capacity.h"

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

json_t *
capacity_json(const json_t *mode, const char *table, double units)
{
    const char *m = json_string_value(mode);
    json_t *cc;

    if (m == NULL || strcmp(m, "NONE") == 0)
        return NULL;
    cc = json_pack("{s:s, s:f}", "TableName", table, "CapacityUnits", units);
    if (strcmp(m, "INDEXES") == 0)
        json_object_set_new(cc, "Table",
                            json_pack("{s:f}", "CapacityUnits", units));
    return cc;
}
