/* SPDX-License-Identifier: MIT */
/* scan.c - Scan: the checks, parallel scan segments over the hash ring,
 * then one page in hash order (read.c), on the table or an index; reads
 * on partitions past the admitted one are charged to them. */
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "api/expr/expr.h"
#include "api/expr/request.h"
#include "api/index/index.h"
#include "api/ops/ops.h"
#include "api/ops/read.h"
#include "api/ops/write.h"
#include "api/proto/av.h"
#include "api/proto/capacity.h"
#include "api/tables/tables.h"
#include "api/throttle/gate.h"
#include "storage/util.h"

/* ------------------------------------------------------------------------
 * Scan
 * ---------------------------------------------------------------------- */

/* Segment i of n covers [i * 2^64 / n, (i + 1) * 2^64 / n - 1] of the ring
 * (the top 64 bits of MD5 of the partition key). */
static void
segment_range(uint64_t seg, uint64_t total, uint64_t *lo, uint64_t *hi)
{
    unsigned __int128 ring = (unsigned __int128)1 << 64;

    *lo = (uint64_t)(ring * seg / total);
    *hi = (uint64_t)(ring * (seg + 1) / total - 1);
}

static int
scan_segments(struct read_req *r, struct ddb_err *err)
{
    const json_t *seg = json_object_get(r->req, "Segment");
    const json_t *tot = json_object_get(r->req, "TotalSegments");
    bool has_seg = seg != NULL && !json_is_null(seg);
    bool has_tot = tot != NULL && !json_is_null(tot);
    json_int_t s, n;

    if (has_seg && !has_tot)
        return ddb_err_set(err, DDB_VALIDATION,
                           "The TotalSegments parameter is required but was "
                           "not present in the request when Segment "
                           "parameter is present");
    if (!has_tot)
        return 0;
    if (!has_seg)
        return ddb_err_set(err, DDB_VALIDATION,
                           "The Segment parameter is required but was not "
                           "present in the request when parameter "
                           "TotalSegments is present");
    s = json_integer_value(seg);
    n = json_integer_value(tot);
    if (s >= n)
        return ddb_err_set(err, DDB_VALIDATION,
                           "The Segment parameter is zero-based and must be "
                           "less than parameter TotalSegments: Segment: %lld "
                           "is not less than TotalSegments: %lld",
                           (long long)s, (long long)n);
    if (s < 0 || n < 1)             /* validate.c rejects these first */
        return ddb_err_set(err, DDB_VALIDATION, "Invalid Segment");
    segment_range((uint64_t)s, (uint64_t)n, &r->lo, &r->hi);
    return 0;
}

/* Checks that need no table (dynalite validations/scan.js order). */
static int
scan_validate(struct read_req *r, struct ddb_err *err)
{
    const json_t *req = r->req;

    if (read_check_select(r, err) != 0 ||
        req_exprs_begin(&r->x, req, err) != 0)
        return -1;
    if (read_parse_legacy(&r->x, req, EXPR_PROJECTION, "AttributesToGet",
                          &r->proj, err) != 0 ||
        read_parse_legacy(&r->x, req, EXPR_FILTER, "ScanFilter", &r->filter,
                          err) != 0)
        return -1;
    if (read_esk_validate_values(r, err) != 0 || scan_segments(r, err) != 0)
        return -1;
    if (read_parse_exprs(r, "ScanFilter", err) != 0)
        return -1;
    read_req_options(r);
    return 0;
}

static int
scan_check_start(struct read_req *r, struct ddb_err *err)
{
    uint64_t h;

    if (json_object_size(r->esk) != read_esk_attr_count(r))
        return ddb_err_set(err, DDB_VALIDATION,
                           "The provided starting key is invalid: The "
                           "provided key element does not match the schema");
    if (read_esk_build(r, err) != 0)
        return -1;
    h = key_hash64(r->start.hash);
    if (h < r->lo || h > r->hi)
        return ddb_err_set(err, DDB_VALIDATION,
                           "The provided starting key is invalid: Invalid "
                           "ExclusiveStartKey. Please use ExclusiveStartKey "
                           "with correct Segment. TotalSegments: %lld "
                           "Segment: %lld",
                           (long long)json_integer_value(
                               json_object_get(r->req, "TotalSegments")),
                           (long long)json_integer_value(
                               json_object_get(r->req, "Segment")));
    return 0;
}

/* The checks against the table: the start key, key attributes reached
 * into by the projection or the filter. */
static int
scan_check(struct read_req *r, struct ddb_err *err)
{
    if ((r->esk != NULL && scan_check_start(r, err) != 0) ||
        read_check_nested_keys(r, "ProjectionExpression", err) != 0 ||
        read_check_nested_keys(r, "FilterExpression", err) != 0 ||
        read_check_projected(r, err) != 0)
        return -1;
    return 0;
}

/* The page asks the partition it starts in (a GSI's own, else the table's)
 * and pays all it read there; reads past it are charged to their own
 * partitions run by run. */
static int
scan_run(struct read_req *r, struct page *pg, struct ddb_err *err)
{
    uint8_t h[16] = { 0 };
    struct stable_rows rows;
    int i, rc;

    if (r->esk != NULL)
        memcpy(h, r->start.hash, sizeof(h));
    else
        for (i = 0; i < 8; i++)
            h[i] = (uint8_t)(r->lo >> (56 - 8 * i));
    if (r->idx != NULL && r->idx->global
            ? gate_admit_index(r->ctx, r->ot.name, r->idx, r->iset.desc, h,
                               NULL, 0, THROTTLE_READ,
                               r->consistent ? 1 : 0.5, &r->th, err) != 0
            : gate_admit_hash(r->ctx, r->ot.t, h, NULL, 0, THROTTLE_READ,
                              r->consistent ? 1 : 0.5, &r->th, err) != 0)
        return -1;
    read_page_rows(r, pg, &rows);
    rc = stable_scan_rows(r->src, r->lo, r->hi,
                          r->esk != NULL ? &r->start : NULL, &rows, err);
    return rc > 0 ? 0 : rc;
}

const struct read_steps read_scan_steps = {
    OP_SCAN, scan_validate, scan_check, scan_run
};

/* Scan: validate, resolve the table, read one page of the segment's hash
 * range in (hash, partition key, sort key) order. */
int
api_scan(struct api_ctx *ctx, const json_t *req, json_t **resp,
         struct ddb_err *err)
{
    return read_run(&read_scan_steps, ctx, req, resp, err);
}
