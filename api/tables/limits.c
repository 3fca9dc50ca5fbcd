/* SPDX-License-Identifier: MIT */
/* limits.c - DescribeLimits (the per-table throughput quota the server
 * enforces, and the account's) and DescribeEndpoints (where to send the
 * next requests: this server, at the address the caller used). */
#include <stdio.h>

#include "api/proto/context.h"
#include "api/tables/tables.h"
#include "api/tables/tables_int.h"
#include "api/throttle/throttle.h"

/* DynamoDB's default account quota, per region, reads and writes alike
 * (the AWS CLI reference's describe-limits example: 80,000 account, 40,000
 * per table). */
#define ACCOUNT_MAX_UNITS 80000.0
/* How long a client may keep an endpoint: DynamoDB answers 1440
 * (Alternator test_describe_endpoints.py, run against DynamoDB, requires
 * the member). */
#define ENDPOINT_CACHE_MINUTES 1440

/* A quota in whole units, at least 1 (the model's PositiveLongObject). */
static json_int_t
units(double v)
{
    return v < 1 ? 1 : v > 9e15 ? (json_int_t)9e15 : (json_int_t)v;
}

static double
larger(double a, double b)
{
    return a > b ? a : b;
}

/*
 * The per-table maximums are the server's on-demand per-table quotas
 * (--ondemand-table-max-rru/-wru, times --throttle-scale): what a table is
 * refused beyond (RequestLimitExceeded). shardlocal serves one account and
 * meters no account total; it reports DynamoDB's default account quota,
 * scaled the same way and never below a table's.
 */
int
api_describe_limits(struct api_ctx *ctx, const json_t *req, json_t **resp,
                    struct ddb_err *err)
{
    struct throttle_limits lim;
    double scale, tr, tw;

    (void)req;
    (void)err;
    if (ctx->srv != NULL && ctx->srv->throttle != NULL)
        throttle_registry_limits(ctx->srv->throttle, &lim);
    else
        throttle_limits_default(&lim);
    scale = lim.scale > 0 ? lim.scale : 1.0;
    tr = lim.od_table_max_rru * scale;
    tw = lim.od_table_max_wru * scale;
    *resp = json_pack("{s:I, s:I, s:I, s:I}",
                      "AccountMaxReadCapacityUnits",
                      units(larger(ACCOUNT_MAX_UNITS * scale, tr)),
                      "AccountMaxWriteCapacityUnits",
                      units(larger(ACCOUNT_MAX_UNITS * scale, tw)),
                      "TableMaxReadCapacityUnits", units(tr),
                      "TableMaxWriteCapacityUnits", units(tw));
    return 0;
}

/*
 * One endpoint, as DynamoDB answers: the address without a scheme. It is
 * this server, as the caller reached it (its Host header), so that a
 * client doing endpoint discovery keeps talking to it; without one, the
 * configured address.
 */
int
api_describe_endpoints(struct api_ctx *ctx, const json_t *req,
                       json_t **resp, struct ddb_err *err)
{
    char addr[300];

    (void)req;
    (void)err;
    if (ctx->host != NULL && ctx->host[0] != '\0')
        snprintf(addr, sizeof(addr), "%s", ctx->host);
    else if (ctx->srv != NULL && ctx->srv->conf != NULL)
        snprintf(addr, sizeof(addr), "%s:%u", ctx->srv->conf->host,
                 ctx->srv->conf->port);
    else
        snprintf(addr, sizeof(addr), "dynamodb.%s.amazonaws.com",
                 tables_region(ctx));
    *resp = json_pack("{s:[{s:s, s:i}]}", "Endpoints", "Address", addr,
                      "CachePeriodInMinutes", ENDPOINT_CACHE_MINUTES);
    return 0;
}
