/* SPDX-License-Identifier: MIT */
/* fixture.h - what the throttling engine's suites (check_throttle.c,
 * check_registry.c) share: a table's state on a virtual clock, one request
 * asked and paid, and a stream of requests spread over a second. */
#ifndef SHARDLOCAL_TEST_THROTTLE_FIXTURE_H
#define SHARDLOCAL_TEST_THROTTLE_FIXTURE_H

#include <check.h>

#include "api/throttle/throttle.h"

#define ARN  "arn:aws:dynamodb:us-east-1:000000000000:table/T"
#define IARN "arn:aws:dynamodb:us-east-1:000000000000:table/T/index/G"
#define T0   UINT64_C(1700000000000)        /* any start time */

/* A table (on-demand when od) with rcu/wcu provisioned over nparts. */
static inline struct throttle_table *
mk(const struct throttle_limits *lim, bool od, double rcu, double wcu,
   unsigned nparts, uint64_t now)
{
    struct throttle_table_conf tc = {
        .on_demand = od, .rcu = rcu, .wcu = wcu, .nparts = nparts,
        .arn = ARN, .od_max_rru = -1, .od_max_wru = -1,
    };

    return throttle_table_new(lim, &tc, now);
}

/* Ask for need, and pay cost if admitted. Returns the cause. */
static inline enum throttle_cause
req(struct throttle_table *t, unsigned part, enum throttle_op op, double need,
    double cost, uint64_t now)
{
    struct throttle_ticket tk;
    enum throttle_cause c;

    c = throttle_admit(t, part, op, need, (const uint8_t *)"k", 1, now, &tk);
    if (c == THROTTLE_OK)
        throttle_charge(t, &tk, cost, (const uint8_t *)"k", 1, now);
    return c;
}

/* n requests of cost units spread evenly over [start, start + 1000),
 * rotating over partitions [0, nparts). Counts admitted ones; every
 * rejection must have cause want (unless want is THROTTLE_OK). */
static inline unsigned
second_of(struct throttle_table *t, unsigned nparts, enum throttle_op op,
          unsigned n, double cost, uint64_t start, enum throttle_cause want)
{
    unsigned ok = 0;

    for (unsigned i = 0; i < n; i++) {
        uint64_t now = start + (uint64_t)i * 1000 / n;
        enum throttle_cause c = req(t, i % nparts, op, cost, cost, now);

        if (c == THROTTLE_OK)
            ok++;
        else if (want != THROTTLE_OK)
            ck_assert_int_eq(c, want);
    }
    return ok;
}

/* n requests of cost units at the one instant now, rotating over
 * partitions [0, nparts). Counts admitted ones. */
static inline unsigned
burst_of(struct throttle_table *t, unsigned nparts, enum throttle_op op,
         unsigned n, double cost, uint64_t now)
{
    unsigned ok = 0;

    for (unsigned i = 0; i < n; i++)
        ok += req(t, i % nparts, op, cost, cost, now) == THROTTLE_OK;
    return ok;
}

#endif
