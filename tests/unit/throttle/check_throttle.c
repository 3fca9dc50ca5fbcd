/* SPDX-License-Identifier: MIT */
/* check_throttle.c - the throttling engine's model (api/throttle/
 * throttle.c, bucket.c): the partition ceiling and the burst it absorbs,
 * a hot key held to the ceiling over 10 s, the bursts a suite makes on a
 * new table served, large requests and reservations, adaptive capacity,
 * the burst bank, on-demand instant capacity and peaks, the exceptions,
 * the knobs, splits and threads. All time is virtual: nothing sleeps. */
#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/proto/error.h"
#include "api/throttle/throttle.h"
#include "tests/unit/throttle/fixture.h"

/* ------------------------------------------------------------------------
 * The partition ceiling: 1,000 WCU / 3,000 RCU a second, with a burst of
 * 2.5 seconds of it absorbed at once (partition-burst-seconds).
 * ---------------------------------------------------------------------- */

START_TEST(test_throttle_ceiling_burst)
{
    struct throttle_limits lim;
    struct throttle_table *t;
    struct throttle_table_stats st;

    throttle_limits_default(&lim);
    ck_assert_uint_eq(throttle_limits_partitions(&lim, 300, 900), 1);
    ck_assert_uint_eq(throttle_limits_partitions(&lim, 1000, 500), 1);
    ck_assert_uint_eq(throttle_limits_partitions(&lim, 1000, 1000), 2);
    ck_assert_uint_eq(throttle_limits_partitions(&lim, 5000, 2000), 4);
    ck_assert_uint_eq(throttle_limits_partitions(&lim, 1, 1), 1);

    /* 300 RCU / 900 WCU, one partition, its bank full (270,000): 4,000
     * 1 KB writes to one key at one instant, 2,500 served, the rest
     * KeyRange; a millisecond refills one unit */
    t = mk(&lim, false, 300, 900, 1, T0);
    ck_assert_uint_eq(burst_of(t, 1, THROTTLE_WRITE, 4000, 1, T0), 2500);
    ck_assert_int_eq(req(t, 0, THROTTLE_WRITE, 1, 1, T0),
                     THROTTLE_KEY_RANGE);
    ck_assert_int_eq(req(t, 0, THROTTLE_WRITE, 1, 1, T0 + 1), THROTTLE_OK);
    ck_assert_int_eq(req(t, 0, THROTTLE_WRITE, 1, 1, T0 + 1),
                     THROTTLE_KEY_RANGE);
    throttle_table_stats(t, T0 + 1, &st);
    ck_assert_uint_eq(st.op[THROTTLE_WRITE].admitted, 2501);
    ck_assert_uint_eq(st.op[THROTTLE_WRITE].throttled[THROTTLE_KEY_RANGE],
                      1502);
    ck_assert(st.op[THROTTLE_WRITE].ceiling_capacity == 2500.0);
    ck_assert(st.op[THROTTLE_WRITE].ceiling_level == 0.0);
    ck_assert(st.op[THROTTLE_WRITE].level > 267000.0);  /* the bank */
    /* reads have their own ceiling: 3,000/s, 7,500 at once */
    ck_assert_uint_eq(burst_of(t, 1, THROTTLE_READ, 9000, 1, T0 + 1), 7500);
    throttle_table_free(t);

    /* the knob: 1 s of burst is the plain ceiling */
    lim.partition_burst_s = 1;
    t = mk(&lim, false, 300, 900, 1, T0);
    ck_assert_uint_eq(burst_of(t, 1, THROTTLE_WRITE, 1500, 1, T0), 1000);
    throttle_table_free(t);
}
END_TEST

/* One hot key flooded at 2,000 WCU/s for 10 s (provisioned and on-demand
 * alike): 2,500 of burst, then exactly 1,000 a second; over the 10 s
 * (9.999 s of refill), 12,499 units, about 1,000 WCU/s. Reads: 3,000 a
 * second. */
static void
hot_key_10s(bool od, enum throttle_op op, unsigned rate, unsigned want_s)
{
    struct throttle_limits lim;
    struct throttle_table *t;
    unsigned total = 0, per[10];

    throttle_limits_default(&lim);
    t = od ? mk(&lim, true, 0, 0, 4, T0) : mk(&lim, false, 3000, 1000, 2, T0);
    for (unsigned s = 0; s < 10; s++) {
        per[s] = second_of(t, 1, op, rate, 1, T0 + s * 1000,
                           THROTTLE_KEY_RANGE);
        total += per[s];
    }
    ck_assert_uint_eq(total, (unsigned)(2.5 * want_s + 9.999 * want_s));
    for (unsigned s = 3; s < 10; s++)
        ck_assert_uint_eq(per[s], want_s);
    throttle_table_free(t);
}

START_TEST(test_throttle_hot_key_sustained)
{
    hot_key_10s(false, THROTTLE_WRITE, 2000, 1000);
    hot_key_10s(true, THROTTLE_WRITE, 2000, 1000);
    hot_key_10s(true, THROTTLE_READ, 6000, 3000);
}
END_TEST

/* 3 KB items (admission knows the cost: 3 units): after the burst, 333 a
 * second, every second. */
START_TEST(test_throttle_3kb_items)
{
    struct throttle_limits lim;
    struct throttle_table *t;
    unsigned total = 0;

    throttle_limits_default(&lim);
    ck_assert_uint_eq(throttle_limits_partitions(&lim, 0, 1000), 1);
    t = mk(&lim, false, 0, 1000, 1, T0);
    for (unsigned s = 0; s < 10; s++) {
        unsigned got = second_of(t, 1, THROTTLE_WRITE, 1000, 3,
                                 T0 + s * 1000, THROTTLE_KEY_RANGE);

        if (s >= 2) {
            ck_assert_uint_ge(got, 333);
            ck_assert_uint_le(got, 334);
        }
        total += got;
    }
    /* (2,500 + 10 x 1,000) / 3 */
    ck_assert_uint_ge(total, 4165);
    ck_assert_uint_le(total, 4167);
    throttle_table_free(t);
}
END_TEST

/* ------------------------------------------------------------------------
 * Bursts a suite written against DynamoDB makes on a new on-demand table,
 * all at one instant (the clock does not move): served.
 * ---------------------------------------------------------------------- */

START_TEST(test_throttle_bursts_served)
{
    struct throttle_limits lim;
    struct throttle_table *t;
    struct throttle_ticket tk[50];
    unsigned n;

    throttle_limits_default(&lim);

    /* 200 items of 10 KB (11 units) under one partition key */
    t = mk(&lim, true, 0, 0, 4, T0);
    ck_assert_uint_eq(burst_of(t, 1, THROTTLE_WRITE, 200, 11, T0), 200);
    throttle_table_free(t);

    /* 30 items of 49 KB (50 units) under one key, then read back (13
     * units eventually consistent: 6.5) */
    t = mk(&lim, true, 0, 0, 4, T0);
    ck_assert_uint_eq(burst_of(t, 1, THROTTLE_WRITE, 30, 50, T0), 30);
    ck_assert_uint_eq(burst_of(t, 1, THROTTLE_READ, 30, 6.5, T0), 30);
    throttle_table_free(t);

    /* 50 items of 100 KB (5,000 units) over the table's 4 partitions:
     * more than the 4,000 a second the table starts with, served at once;
     * then one transaction deleting them, 200 units each (known before it
     * runs), is refused part way: the 2,500 units a partition has left
     * cannot take it whole. Every admission is given back, and the small
     * requests that follow are served. */
    t = mk(&lim, true, 0, 0, 4, T0);
    ck_assert_uint_eq(burst_of(t, 4, THROTTLE_WRITE, 50, 100, T0), 50);
    for (n = 0; n < 50; n++)
        if (throttle_admit(t, n % 4, THROTTLE_WRITE, 200, NULL, 0, T0,
                           &tk[n]) != THROTTLE_OK)
            break;
    ck_assert_uint_lt(n, 50);
    for (unsigned i = 0; i < n; i++)
        throttle_charge(t, &tk[i], 0, NULL, 0, T0);     /* cancelled */
    ck_assert_uint_eq(burst_of(t, 4, THROTTLE_WRITE, 20, 1, T0), 20);
    throttle_table_free(t);
}
END_TEST

/* A request costing more than its admission knew (a delete of a 400 KB
 * item asks for 1) leaves its partition in debt for as long as the rate
 * takes to pay it back, no longer; one bigger than a full bucket runs once
 * the bucket is full, and is never starved. */
START_TEST(test_throttle_large_request)
{
    struct throttle_limits lim;
    struct throttle_table *t;
    struct throttle_part_stats ps;

    throttle_limits_default(&lim);
    t = mk(&lim, true, 0, 0, 4, T0);
    ck_assert_uint_eq(burst_of(t, 1, THROTTLE_WRITE, 2499, 1, T0), 2499);
    /* 1 unit left: the delete is admitted, costs 400 */
    ck_assert_int_eq(req(t, 0, THROTTLE_WRITE, 1, 400, T0), THROTTLE_OK);
    ck_assert_int_eq(throttle_part_stats(t, 0, T0, &ps, NULL), 0);
    ck_assert(ps.op[THROTTLE_WRITE].ceiling_level == -399.0);
    ck_assert_int_eq(req(t, 0, THROTTLE_WRITE, 1, 1, T0 + 399),
                     THROTTLE_KEY_RANGE);
    ck_assert_int_eq(req(t, 0, THROTTLE_WRITE, 1, 1, T0 + 400), THROTTLE_OK);
    /* other partitions never noticed */
    ck_assert_int_eq(req(t, 1, THROTTLE_WRITE, 1, 1, T0), THROTTLE_OK);
    throttle_table_free(t);

    /* 1 WCU provisioned, bank empty: a 400-unit write (its bank holds
     * 300) runs once the bank is full, 300 s later */
    lim.burst_start_full = false;
    t = mk(&lim, false, 1, 1, 1, T0);
    ck_assert_int_eq(req(t, 0, THROTTLE_WRITE, 400, 400, T0 + 299999),
                     THROTTLE_PROVISIONED);
    ck_assert_int_eq(req(t, 0, THROTTLE_WRITE, 400, 400, T0 + 300000),
                     THROTTLE_OK);
    /* then it has paid 100 units ahead: 101 s until the next write */
    ck_assert_int_eq(req(t, 0, THROTTLE_WRITE, 1, 1, T0 + 400999),
                     THROTTLE_PROVISIONED);
    ck_assert_int_eq(req(t, 0, THROTTLE_WRITE, 1, 1, T0 + 401000),
                     THROTTLE_OK);
    throttle_table_free(t);
}
END_TEST

/* Admission takes its need at once: what a transaction's items asked is
 * seen by the next item; a charge of 0 gives it back; a charge without
 * admission (a Scan page's other partitions) pays the ceiling and the
 * table. */
START_TEST(test_throttle_reservation)
{
    struct throttle_limits lim;
    struct throttle_table *t;
    struct throttle_ticket a, b, c;
    struct throttle_part_stats ps;
    struct throttle_table_stats st;

    throttle_limits_default(&lim);
    t = mk(&lim, true, 0, 0, 4, T0);
    ck_assert_int_eq(throttle_admit(t, 0, THROTTLE_WRITE, 2000, NULL, 0, T0,
                                    &a), THROTTLE_OK);
    ck_assert_int_eq(throttle_admit(t, 0, THROTTLE_WRITE, 600, NULL, 0, T0,
                                    &b), THROTTLE_KEY_RANGE);
    ck_assert_int_eq(throttle_admit(t, 0, THROTTLE_WRITE, 500, NULL, 0, T0,
                                    &b), THROTTLE_OK);
    throttle_part_stats(t, 0, T0, &ps, NULL);
    ck_assert(ps.op[THROTTLE_WRITE].ceiling_level == 0.0);
    ck_assert(ps.op[THROTTLE_WRITE].last_1s == 0.0);    /* nothing ran yet */
    throttle_charge(t, &a, 0, NULL, 0, T0);             /* given back */
    throttle_charge(t, &b, 300, NULL, 0, T0);           /* cost less */
    throttle_part_stats(t, 0, T0, &ps, NULL);
    ck_assert(ps.op[THROTTLE_WRITE].ceiling_level == 2200.0);
    ck_assert(ps.op[THROTTLE_WRITE].last_1s == 300.0);
    throttle_ticket_init(&c, 1, THROTTLE_WRITE);
    throttle_charge(t, &c, 100, NULL, 0, T0);
    throttle_part_stats(t, 1, T0, &ps, NULL);
    ck_assert(ps.op[THROTTLE_WRITE].ceiling_level == 2400.0);
    throttle_table_stats(t, T0, &st);
    ck_assert(st.table_capacity[THROTTLE_WRITE] == 10000.0);
    ck_assert(st.table_level[THROTTLE_WRITE] == 9600.0);
    throttle_table_free(t);
}
END_TEST

/* ------------------------------------------------------------------------
 * Adaptive capacity: 400 WCU over 4 partitions (the developer guide's
 * example).
 * ---------------------------------------------------------------------- */

/* One partition at 150 WCU/s for 700 s: served in full with adaptive
 * capacity; without it the 30,000-unit bank drains at 50/s and from
 * about t=600 s the partition gets only its 100/s share. */
static unsigned
hot_partition(bool adaptive, unsigned seconds, uint64_t *first_throttle_s,
              struct throttle_table_stats *st)
{
    struct throttle_limits lim;
    struct throttle_table *t;
    unsigned ok = 0;

    throttle_limits_default(&lim);
    lim.adaptive = adaptive;
    t = mk(&lim, false, 0, 400, 4, T0);
    *first_throttle_s = 0;
    for (unsigned s = 0; s < seconds; s++) {
        unsigned got = second_of(t, 1, THROTTLE_WRITE, 150, 1,
                                 T0 + (uint64_t)s * 1000,
                                 THROTTLE_KEY_RANGE);

        if (got < 150 && *first_throttle_s == 0)
            *first_throttle_s = s;
        ok += got;
    }
    throttle_table_stats(t, T0 + (uint64_t)seconds * 1000, st);
    throttle_table_free(t);
    return ok;
}

START_TEST(test_throttle_adaptive_docs_example)
{
    struct throttle_table_stats st;
    uint64_t first;
    unsigned ok;

    ok = hot_partition(true, 700, &first, &st);
    ck_assert_uint_eq(ok, 700 * 150);
    ck_assert_uint_eq(first, 0);
    ck_assert(st.op[THROTTLE_WRITE].borrowed > 0);
    ck_assert_uint_eq(st.op[THROTTLE_WRITE].throttled[THROTTLE_KEY_RANGE],
                      0);

    ok = hot_partition(false, 700, &first, &st);
    /* bank 30,000 + 100/s x 700 s = 100,000 (one unit of rounding) */
    ck_assert_uint_ge(ok, 99999);
    ck_assert_uint_le(ok, 100001);
    ck_assert_uint_ge(first, 598);
    ck_assert_uint_le(first, 600);
    ck_assert_uint_eq(st.op[THROTTLE_WRITE].borrowed, 0);
    ck_assert_uint_eq(st.op[THROTTLE_WRITE].throttled[THROTTLE_KEY_RANGE],
                      700 * 150 - ok);
}
END_TEST

/* With empty banks the difference is immediate; when every partition is
 * hot the table as a whole is out of capacity: ProvisionedThroughput. */
START_TEST(test_throttle_adaptive_pool)
{
    struct throttle_limits lim;
    struct throttle_table *t;
    struct throttle_table_stats st;
    unsigned ok = 0;

    throttle_limits_default(&lim);
    lim.burst_start_full = false;
    t = mk(&lim, false, 0, 400, 4, T0);
    /* partition 0 at 150/s, second 10..19: served (100 own + 50 lent) */
    for (unsigned s = 10; s < 20; s++)
        ck_assert_uint_eq(second_of(t, 1, THROTTLE_WRITE, 150, 1,
                                    T0 + s * 1000, THROTTLE_OK), 150);
    throttle_table_free(t);

    lim.adaptive = false;
    t = mk(&lim, false, 0, 400, 4, T0);
    for (unsigned s = 10; s < 20; s++)
        ok += second_of(t, 1, THROTTLE_WRITE, 300, 1, T0 + s * 1000,
                        THROTTLE_KEY_RANGE);
    /* the bank of 10 idle seconds (1,000) + 100/s for 10 s */
    ck_assert_uint_le(ok, 2000);
    ck_assert_uint_ge(ok, 1999);
    throttle_table_free(t);

    /* all four partitions at 150/s with adaptive on, empty banks: 400/s
     * in total, rejections say the table is out of provisioned capacity */
    lim.adaptive = true;
    t = mk(&lim, false, 0, 400, 4, T0);
    ok = 0;
    for (unsigned s = 0; s < 10; s++)
        ok += second_of(t, 4, THROTTLE_WRITE, 600, 1, T0 + s * 1000,
                        THROTTLE_OK);
    ck_assert_uint_le(ok, 10 * 400 + 4);
    ck_assert_uint_ge(ok, 10 * 400 - 8);
    throttle_table_stats(t, T0 + 10000, &st);
    ck_assert(st.op[THROTTLE_WRITE].throttled[THROTTLE_PROVISIONED] > 0);
    ck_assert_uint_eq(st.op[THROTTLE_WRITE].throttled[THROTTLE_KEY_RANGE],
                      0);
    throttle_table_free(t);
}
END_TEST

/* ------------------------------------------------------------------------
 * Burst capacity: a 100 WCU table idle for 300 s.
 * ---------------------------------------------------------------------- */

/* Bank starts empty; idle `idle_s`; then 1,000 writes/s (one per ms) for
 * 60 s. Returns the total served, per_sec[] the per-second counts. */
static unsigned
burst_run(unsigned idle_s, unsigned per_sec[60])
{
    struct throttle_limits lim;
    struct throttle_table *t;
    unsigned total = 0;
    uint64_t start = T0 + (uint64_t)idle_s * 1000;

    throttle_limits_default(&lim);
    lim.burst_start_full = false;
    t = mk(&lim, false, 0, 100, 1, T0);
    for (unsigned s = 0; s < 60; s++) {
        per_sec[s] = 0;
        for (unsigned ms = 0; ms < 1000; ms++) {
            enum throttle_cause c = req(t, 0, THROTTLE_WRITE, 1, 1,
                                        start + s * 1000 + ms);

            if (c == THROTTLE_OK)
                per_sec[s]++;
            else
                ck_assert(c == THROTTLE_KEY_RANGE ||
                          c == THROTTLE_PROVISIONED);
        }
        total += per_sec[s];
    }
    throttle_table_free(t);
    return total;
}

START_TEST(test_throttle_burst_then_rate)
{
    unsigned per[60], total;

    total = burst_run(300, per);
    /* the bank (300 s x 100 = 30,000) plus 60 s of refill */
    ck_assert_uint_ge(total, 30000 + 6000 - 1);
    ck_assert_uint_le(total, 30000 + 6000 + 1);
    ck_assert_uint_eq(per[0], 1000);            /* the ceiling, not 100 */
    ck_assert_uint_eq(per[30], 1000);           /* 30,000/(1000-100) s */
    for (unsigned s = 35; s < 60; s++)
        ck_assert_uint_eq(per[s], 100);         /* back to the rate */

    /* a bank older than 300 s is not bigger */
    total = burst_run(1000, per);
    ck_assert_uint_le(total, 36001);

    /* idle 100 s: a third of the bank */
    total = burst_run(100, per);
    ck_assert_uint_ge(total, 10000 + 6000 - 1);
    ck_assert_uint_le(total, 10000 + 6000 + 1);
    ck_assert_uint_eq(per[59], 100);
}
END_TEST

/* Past the bank, a single-partition table has nothing to borrow: the
 * table's provisioned rate is what ran out. */
START_TEST(test_throttle_burst_cause)
{
    struct throttle_limits lim;
    struct throttle_table *t;

    throttle_limits_default(&lim);
    lim.burst_start_full = false;
    t = mk(&lim, false, 0, 100, 1, T0);
    ck_assert_int_eq(req(t, 0, THROTTLE_WRITE, 1, 1, T0),
                     THROTTLE_PROVISIONED);
    ck_assert_int_eq(req(t, 0, THROTTLE_WRITE, 1, 1, T0 + 9),
                     THROTTLE_PROVISIONED);
    ck_assert_int_eq(req(t, 0, THROTTLE_WRITE, 1, 1, T0 + 10), THROTTLE_OK);
    ck_assert_int_eq(req(t, 0, THROTTLE_WRITE, 1, 1, T0 + 10),
                     THROTTLE_PROVISIONED);
    throttle_table_free(t);
}
END_TEST
/* ------------------------------------------------------------------------
 * On-demand: the partition ceilings, and the table's instant capacity
 * (4,000 WRU / 12,000 RRU a second for a new table, then 2 x the previous
 * peak), 2.5 seconds of it absorbed at once.
 * ---------------------------------------------------------------------- */

START_TEST(test_throttle_ondemand_hot_key)
{
    struct throttle_limits lim;
    struct throttle_table *t;
    struct ddb_err err;
    json_t *body, *r;

    throttle_limits_default(&lim);
    t = mk(&lim, true, 0, 0, 4, T0);
    ck_assert_uint_eq(burst_of(t, 1, THROTTLE_WRITE, 1500, 1, T0), 1500);
    ck_assert_uint_eq(burst_of(t, 1, THROTTLE_WRITE, 1500, 1, T0), 1000);
    ck_assert_uint_eq(burst_of(t, 1, THROTTLE_READ, 9000, 1, T0), 7500);
    ck_assert_int_eq(req(t, 0, THROTTLE_WRITE, 1, 1, T0),
                     THROTTLE_KEY_RANGE);
    ddb_err_init(&err);
    throttle_err(t, THROTTLE_WRITE, THROTTLE_KEY_RANGE, &err);
    ck_assert_int_eq(err.type, DDB_THROTTLING);
    ck_assert_str_eq(err.msg,
        "Throughput exceeds the current capacity of your table or index. "
        "DynamoDB is automatically scaling your table or index so please "
        "try again shortly. If exceptions persist, check if you have a hot "
        "key: https://docs.aws.amazon.com/amazondynamodb/latest/"
        "developerguide/bp-partition-key-design.html");
    body = error_body(&err);
    ck_assert_str_eq(json_string_value(json_object_get(body, "__type")),
                     "com.amazon.coral.availability#ThrottlingException");
    ck_assert_ptr_null(json_object_get(body, "ThrottlingReasons"));
    r = json_array_get(json_object_get(body, "throttlingReasons"), 0);
    ck_assert_str_eq(json_string_value(json_object_get(r, "reason")),
                     "TableWriteKeyRangeThroughputExceeded");
    ck_assert_str_eq(json_string_value(json_object_get(r, "resource")), ARN);
    json_decref(body);
    ddb_err_clear(&err);
    throttle_table_free(t);
}
END_TEST

/* A new table takes 10,000 WRU at once (2.5 s of its 4,000) and then
 * 4,000 a second; a second's peak counts after the 30-minute window:
 * then twice it is the rate, and 2.5 s of that at once. */
START_TEST(test_throttle_ondemand_instant_capacity)
{
    struct throttle_limits lim;
    struct throttle_table *t;
    struct throttle_table_stats st;
    uint64_t t1;
    unsigned total = 0;

    throttle_limits_default(&lim);
    t = mk(&lim, true, 0, 0, 16, T0);
    ck_assert_uint_eq(burst_of(t, 16, THROTTLE_WRITE, 12000, 1, T0), 10000);
    ck_assert_int_eq(req(t, 5, THROTTLE_WRITE, 1, 1, T0),
                     THROTTLE_KEY_RANGE);
    ck_assert_uint_eq(burst_of(t, 16, THROTTLE_READ, 40000, 1, T0), 30000);
    /* then 4,000 a second, spread over the table (the first of these
     * seconds also has what the idle second before it refilled) */
    total = second_of(t, 16, THROTTLE_WRITE, 9000, 1, T0 + 1000,
                      THROTTLE_KEY_RANGE);
    ck_assert_uint_ge(total, 8000 - 4);
    ck_assert_uint_le(total, 8000);
    total = 0;
    for (unsigned s = 2; s < 6; s++)
        total += second_of(t, 16, THROTTLE_WRITE, 6000, 1, T0 + s * 1000,
                           THROTTLE_KEY_RANGE);
    ck_assert_uint_ge(total, 4 * 4000 - 4);
    ck_assert_uint_le(total, 4 * 4000);
    throttle_table_free(t);

    t = mk(&lim, true, 0, 0, 16, T0);
    ck_assert_uint_eq(second_of(t, 16, THROTTLE_WRITE, 3000, 1, T0,
                                THROTTLE_OK), 3000);
    /* a minute later twice 3,000 would be 6,000/s, but the peak is not
     * yet "previous": the new table's 4,000 (and its burst) still apply */
    throttle_table_stats(t, T0 + 60000, &st);
    ck_assert(st.limit[THROTTLE_WRITE] == 4000.0);
    ck_assert(st.peak[THROTTLE_WRITE] == 0.0);
    /* 31 minutes on: 2 x 3,000 a second, 15,000 at once */
    t1 = T0 + 31 * 60000 + 60000;
    throttle_table_stats(t, t1, &st);
    ck_assert(st.peak[THROTTLE_WRITE] == 3000.0);
    ck_assert(st.limit[THROTTLE_WRITE] == 6000.0);
    ck_assert(st.table_capacity[THROTTLE_WRITE] == 15000.0);
    ck_assert_uint_eq(burst_of(t, 16, THROTTLE_WRITE, 20000, 1, t1), 15000);
    /* that instant (15,000 in one second) is a peak too, once it is 30
     * minutes old; before, the rate stays 6,000 */
    throttle_table_stats(t, t1 + 10 * 60000, &st);
    ck_assert(st.limit[THROTTLE_WRITE] == 6000.0);
    throttle_table_stats(t, t1 + 32 * 60000, &st);
    ck_assert(st.limit[THROTTLE_WRITE] == 30000.0);
    throttle_table_free(t);
}
END_TEST

START_TEST(test_throttle_ondemand_limits)
{
    struct throttle_limits lim;
    struct throttle_table_conf tc = {
        .on_demand = true, .nparts = 8, .arn = ARN,
        .od_max_rru = -1, .od_max_wru = 100,
    };
    struct throttle_table *t;
    struct ddb_err err;
    json_t *r;

    throttle_limits_default(&lim);
    t = throttle_table_new(&lim, &tc, T0);
    ck_assert_uint_eq(second_of(t, 8, THROTTLE_WRITE, 500, 1, T0,
                                THROTTLE_MAX_ON_DEMAND), 100);
    ck_assert_uint_eq(second_of(t, 8, THROTTLE_READ, 500, 1, T0,
                                THROTTLE_OK), 500);
    ddb_err_init(&err);
    throttle_err(t, THROTTLE_WRITE, THROTTLE_MAX_ON_DEMAND, &err);
    ck_assert_int_eq(err.type, DDB_THROTTLING);
    ck_assert_str_eq(err.msg, "Throughput exceeds the maximum "
                     "OnDemandThroughput configured on table or index");
    r = json_array_get(json_object_get(err.extra, "throttlingReasons"), 0);
    ck_assert_str_eq(json_string_value(json_object_get(r, "reason")),
                     "TableWriteMaxOnDemandThroughputExceeded");
    ddb_err_clear(&err);
    throttle_table_free(t);

    /* the per-table quota (40,000 by default; 3,000 here) */
    lim.od_table_max_wru = 3000;
    t = mk(&lim, true, 0, 0, 8, T0);
    ck_assert_uint_eq(second_of(t, 8, THROTTLE_WRITE, 5000, 1, T0,
                                THROTTLE_ACCOUNT_LIMIT), 3000);
    throttle_err(t, THROTTLE_WRITE, THROTTLE_ACCOUNT_LIMIT, &err);
    ck_assert_int_eq(err.type, DDB_REQUEST_LIMIT_EXCEEDED);
    ck_assert_str_eq(err.msg, "Throughput exceeds the current throughput "
                     "limit for your account. To request a limit increase, "
                     "contact AWS Support at https://aws.amazon.com/support.");
    r = json_array_get(json_object_get(err.extra, "ThrottlingReasons"), 0);
    ck_assert_str_eq(json_string_value(json_object_get(r, "reason")),
                     "TableWriteAccountLimitExceeded");
    ddb_err_clear(&err);
    throttle_table_free(t);

    /* default quota: 40,000 even with a settled peak of 30,000 */
    throttle_limits_default(&lim);
    t = mk(&lim, true, 0, 0, 64, T0);
    ck_assert_uint_eq(second_of(t, 64, THROTTLE_WRITE, 4000, 1, T0,
                                THROTTLE_OK), 4000);
    ck_assert_uint_eq(second_of(t, 64, THROTTLE_WRITE, 8000, 1,
                                T0 + 40 * 60000, THROTTLE_OK), 8000);
    ck_assert_uint_eq(second_of(t, 64, THROTTLE_WRITE, 16000, 1,
                                T0 + 80 * 60000, THROTTLE_OK), 16000);
    ck_assert_uint_eq(second_of(t, 64, THROTTLE_WRITE, 30000, 1,
                                T0 + 120 * 60000, THROTTLE_OK), 30000);
    ck_assert_uint_eq(second_of(t, 64, THROTTLE_WRITE, 50000, 1,
                                T0 + 160 * 60000, THROTTLE_ACCOUNT_LIMIT),
                      40000);
    throttle_table_free(t);
}
END_TEST

/* UpdateTable to on-demand: the previous peak is at least half the old
 * provisioned rate, so the table keeps serving what it was provisioned
 * for, and a burst of it at once. */
START_TEST(test_throttle_switch_to_ondemand)
{
    struct throttle_limits lim;
    struct throttle_table_conf tc = { .on_demand = true, .nparts = 20,
                                      .od_max_rru = -1, .od_max_wru = -1 };
    struct throttle_table *t;
    struct throttle_table_stats st;
    unsigned total = 0;

    throttle_limits_default(&lim);
    t = mk(&lim, false, 0, 20000, 20, T0);
    throttle_table_update(t, &tc, T0 + 1000);
    throttle_table_stats(t, T0 + 1000, &st);
    ck_assert(st.on_demand);
    ck_assert(st.limit[THROTTLE_WRITE] == 20000.0);
    ck_assert(st.limit[THROTTLE_READ] == 12000.0);  /* initial is higher */
    ck_assert(st.provisioned[THROTTLE_WRITE] == 0.0);
    /* at once: 2.5 s of 20,000, but no more than the per-table quota
     * (40,000 a second) */
    ck_assert_uint_eq(burst_of(t, 20, THROTTLE_WRITE, 60000, 1, T0 + 2000),
                      40000);
    /* then, the burst left over spent, 20,000 a second */
    for (unsigned s = 3; s < 6; s++)
        second_of(t, 20, THROTTLE_WRITE, 30000, 1, T0 + s * 1000,
                  THROTTLE_OK);
    for (unsigned s = 6; s < 9; s++)
        total += second_of(t, 20, THROTTLE_WRITE, 30000, 1, T0 + s * 1000,
                           THROTTLE_KEY_RANGE);
    ck_assert_uint_ge(total, 3 * 20000 - 20);
    ck_assert_uint_le(total, 3 * 20000);
    throttle_table_free(t);
}
END_TEST

/* ------------------------------------------------------------------------
 * Knobs: scale factor, --throttle off.
 * ---------------------------------------------------------------------- */

START_TEST(test_throttle_scale)
{
    struct throttle_limits lim;
    struct throttle_table *t;

    throttle_limits_default(&lim);
    lim.scale = 0.01;
    ck_assert(throttle_limits_ceiling(&lim, THROTTLE_WRITE) == 10.0);
    ck_assert(throttle_limits_ceiling(&lim, THROTTLE_READ) == 30.0);
    ck_assert_uint_eq(throttle_limits_partitions(&lim, 3, 9), 1);
    ck_assert_uint_eq(throttle_limits_partitions(&lim, 30, 10), 2);
    /* a 9 WCU table, one partition: 25 writes at once, then 10 a second,
     * not 1,000 */
    t = mk(&lim, false, 3, 9, 1, T0);
    ck_assert_uint_eq(burst_of(t, 1, THROTTLE_WRITE, 1500, 1, T0), 25);
    ck_assert_uint_le(second_of(t, 1, THROTTLE_WRITE, 100, 1, T0 + 1000,
                                THROTTLE_KEY_RANGE), 20);
    for (unsigned s = 2; s < 5; s++)
        ck_assert_uint_eq(second_of(t, 1, THROTTLE_WRITE, 100, 1,
                                    T0 + s * 1000, THROTTLE_KEY_RANGE), 10);
    throttle_table_free(t);
    /* on-demand: a new table's 40 WRU a second, 100 at once */
    t = mk(&lim, true, 0, 0, 8, T0);
    ck_assert_uint_eq(burst_of(t, 8, THROTTLE_WRITE, 300, 1, T0), 100);
    throttle_table_free(t);
}
END_TEST

START_TEST(test_throttle_off)
{
    struct throttle_limits lim;
    struct throttle_table *t;
    struct throttle_table_stats st;

    throttle_limits_default(&lim);
    lim.enforce = false;
    t = mk(&lim, false, 300, 900, 1, T0);
    ck_assert_uint_eq(burst_of(t, 1, THROTTLE_WRITE, 4000, 1, T0), 4000);
    throttle_table_stats(t, T0, &st);
    ck_assert(st.op[THROTTLE_WRITE].last_1s == 4000.0);   /* still metered */
    ck_assert(st.op[THROTTLE_WRITE].consumed_total == 4000.0);
    ck_assert_uint_eq(st.op[THROTTLE_WRITE].would_throttle, 1500);
    ck_assert_uint_eq(st.op[THROTTLE_WRITE].throttled[THROTTLE_KEY_RANGE],
                      0);
    throttle_table_free(t);
}
END_TEST

/* ------------------------------------------------------------------------
 * Splits and updates.
 * ---------------------------------------------------------------------- */

START_TEST(test_throttle_split)
{
    struct throttle_limits lim;
    struct throttle_table *t;
    struct throttle_part_stats ps;
    struct throttle_table_stats st;
    struct ddb_err err;
    double left;

    throttle_limits_default(&lim);
    t = mk(&lim, false, 0, 200, 2, T0);
    throttle_part_stats(t, 0, T0, &ps, NULL);
    ck_assert(ps.op[THROTTLE_WRITE].share == 100.0);
    ck_assert(ps.op[THROTTLE_WRITE].level == 30000.0);
    /* 2,000 units on partition 0 at once, then split it: the children
     * get half the share, bank and counters each, and what the parent's
     * ceiling had left */
    ck_assert_uint_eq(burst_of(t, 1, THROTTLE_WRITE, 2000, 1, T0), 2000);
    throttle_part_stats(t, 0, T0, &ps, NULL);
    left = ps.op[THROTTLE_WRITE].ceiling_level;
    ck_assert(left == 500.0);
    ck_assert_int_eq(throttle_table_split(t, 0, T0, NULL), 0);
    ck_assert_uint_eq(throttle_table_nparts(t), 3);
    for (unsigned i = 0; i < 2; i++) {
        throttle_part_stats(t, i, T0, &ps, NULL);
        ck_assert(ps.op[THROTTLE_WRITE].share == 50.0);
        ck_assert(ps.op[THROTTLE_WRITE].capacity == 15000.0);
        ck_assert(ps.op[THROTTLE_WRITE].last_1s == 1000.0);
        ck_assert_uint_eq(ps.op[THROTTLE_WRITE].admitted, 1000);
        ck_assert(ps.op[THROTTLE_WRITE].ceiling_capacity == 2500.0);
        ck_assert(ps.op[THROTTLE_WRITE].ceiling_level == left);
        ck_assert_uint_eq(burst_of(t, 1, THROTTLE_WRITE, 0, 1, T0), 0);
    }
    throttle_part_stats(t, 2, T0, &ps, NULL);
    ck_assert(ps.op[THROTTLE_WRITE].share == 100.0);
    ck_assert(ps.op[THROTTLE_WRITE].last_1s == 0.0);
    /* each child has its own ceiling: 500 more at once in each */
    for (unsigned i = 0; i < 2; i++) {
        unsigned ok = 0;

        for (unsigned k = 0; k < 2000; k++)
            ok += req(t, i, THROTTLE_WRITE, 1, 1, T0) == THROTTLE_OK;
        ck_assert_uint_eq(ok, 500);
    }
    ddb_err_init(&err);
    ck_assert_int_eq(throttle_table_split(t, 3, T0, &err), -1);
    ck_assert_int_eq(err.type, DDB_INTERNAL);

    /* doubling: 3 -> 6, totals preserved */
    throttle_table_stats(t, T0 + 1000, &st);
    ck_assert(st.op[THROTTLE_WRITE].share == 200.0);
    throttle_table_double(t, T0 + 1000);
    ck_assert_uint_eq(throttle_table_nparts(t), 6);
    throttle_table_stats(t, T0 + 1000, &st);
    ck_assert(st.op[THROTTLE_WRITE].share == 200.0);
    ck_assert_uint_eq(st.op[THROTTLE_WRITE].admitted, 3000);

    /* UpdateTable: raise to 1,200 WCU, shares even out (6 x 200) */
    {
        struct throttle_table_conf tc = { .wcu = 1200, .rcu = 0 };

        throttle_table_update(t, &tc, T0 + 2000);
        for (unsigned i = 0; i < 6; i++) {
            throttle_part_stats(t, i, T0 + 2000, &ps, NULL);
            ck_assert(ps.op[THROTTLE_WRITE].share == 200.0);
        }
        /* lowering keeps the partitions with thinner shares; the banks
         * are clipped to the new size */
        tc.wcu = 60;
        throttle_table_update(t, &tc, T0 + 3000);
        ck_assert_uint_eq(throttle_table_nparts(t), 6);
        throttle_part_stats(t, 5, T0 + 3000, &ps, NULL);
        ck_assert(ps.op[THROTTLE_WRITE].share == 10.0);
        ck_assert(ps.op[THROTTLE_WRITE].level <= 3000.0);
        throttle_table_stats(t, T0 + 3000, &st);
        ck_assert(st.table_capacity[THROTTLE_WRITE] == 60.0 * 300);
    }
    throttle_table_free(t);
}
END_TEST

/* The engine's clock never runs backwards: an earlier now refunds
 * nothing and does not crash. */
START_TEST(test_throttle_time_backwards)
{
    struct throttle_limits lim;
    struct throttle_table *t;

    throttle_limits_default(&lim);
    t = mk(&lim, false, 0, 1000, 1, T0);
    ck_assert_uint_eq(burst_of(t, 1, THROTTLE_WRITE, 2500, 1, T0 + 5000),
                      2500);
    ck_assert_int_eq(req(t, 0, THROTTLE_WRITE, 1, 1, T0),
                     THROTTLE_KEY_RANGE);
    ck_assert_int_eq(req(t, 0, THROTTLE_WRITE, 1, 1, 0), THROTTLE_KEY_RANGE);
    /* a stale partition index is clamped, never out of bounds */
    ck_assert_int_eq(req(t, 7, THROTTLE_READ, 1, 1, T0 + 7000), THROTTLE_OK);
    throttle_table_free(t);
}
END_TEST

/* ------------------------------------------------------------------------
 * Split for heat: two hot keys on one partition are split apart once its
 * ceiling has refused for heat_split_s; one key never is.
 * ---------------------------------------------------------------------- */

/* Each of the keys at positions pos[0..n) asks for 1 unit, 600 times, at
 * now on partition 0; returns whether a split came due (and where), and
 * counts the refusals in *refused. */
static bool
heat_round(struct throttle_table *t, const uint64_t *pos, unsigned n,
           uint64_t now, uint64_t *at, unsigned *refused)
{
    bool due = false;

    for (unsigned r = 0; r < 600; r++)
        for (unsigned k = 0; k < n; k++) {
            *refused += req(t, 0, THROTTLE_WRITE, 1, 1, now) != THROTTLE_OK;
            due |= throttle_heat_note(t, 0, pos[k], 1, now, at);
        }
    return due;
}

START_TEST(test_throttle_split_for_heat)
{
    static const uint64_t two[2] = { UINT64_C(0x1000000000000000),
                                     UINT64_C(0x3000000000000000) };
    struct throttle_limits lim;
    struct throttle_table *t;
    uint64_t at = 0;
    unsigned s, first = 0, refused = 0;

    throttle_limits_default(&lim);
    lim.heat_split_s = 10;
    /* two keys, 600 units a second each, on one 1,000 WCU/s partition:
     * once the burst is spent (second 7) its ceiling refuses; 10 s later
     * the split is due, at the middle of the two keys */
    t = mk(&lim, true, 0, 0, 1, T0);
    for (s = 0; s < 40; s++) {
        unsigned before = refused;

        if (heat_round(t, two, 2, T0 + s * 1000, &at, &refused))
            break;
        if (refused > 0 && before == 0)
            first = s;
    }
    ck_assert_uint_eq(first, 7);
    ck_assert_uint_eq(s, first + 10);
    ck_assert(at == UINT64_C(0x2000000000000001));
    /* a cooled partition (its burst half back) forgets its spell */
    ck_assert_int_eq(req(t, 0, THROTTLE_WRITE, 1, 1, T0 + 90000),
                     THROTTLE_OK);
    ck_assert(!throttle_heat_note(t, 0, two[0], 1, T0 + 90000, &at));
    ck_assert(!heat_round(t, two, 1, T0 + 90000, &at, &refused));
    throttle_table_free(t);

    /* one key alone (an item, or an item collection) is never split */
    t = mk(&lim, true, 0, 0, 1, T0);
    for (s = 0; s < 40; s++)
        ck_assert(!heat_round(t, two, 1, T0 + s * 1000, &at, &refused));
    throttle_table_free(t);

    /* 0: never */
    lim.heat_split_s = 0;
    t = mk(&lim, true, 0, 0, 1, T0);
    for (s = 0; s < 40; s++)
        ck_assert(!heat_round(t, two, 2, T0 + s * 1000, &at, &refused));
    throttle_table_free(t);
}
END_TEST

/* ------------------------------------------------------------------------
 * The exceptions.
 * ---------------------------------------------------------------------- */

/* The exception for acceptance 1: PTEE, the table message, and
 * ThrottlingReasons [{TableWriteKeyRangeThroughputExceeded, table ARN}]. */
START_TEST(test_throttle_err_provisioned)
{
    struct throttle_limits lim;
    struct throttle_table *t;
    struct ddb_err err;
    json_t *body, *r;

    throttle_limits_default(&lim);
    t = mk(&lim, false, 300, 900, 1, T0);
    ddb_err_init(&err);
    ck_assert_int_eq(throttle_err(t, THROTTLE_WRITE, THROTTLE_KEY_RANGE,
                                  &err), -1);
    ck_assert_int_eq(err.type, DDB_THROUGHPUT_EXCEEDED);
    ck_assert_str_eq(err.msg,
        "The level of configured provisioned throughput for the table was "
        "exceeded. Consider increasing your provisioning level with the "
        "UpdateTable API.");
    body = error_body(&err);
    ck_assert_str_eq(json_string_value(json_object_get(body, "__type")),
        "com.amazonaws.dynamodb.v20120810#"
        "ProvisionedThroughputExceededException");
    ck_assert_ptr_null(json_object_get(body, "throttlingReasons"));
    r = json_array_get(json_object_get(body, "ThrottlingReasons"), 0);
    ck_assert_str_eq(json_string_value(json_object_get(r, "reason")),
                     "TableWriteKeyRangeThroughputExceeded");
    ck_assert_str_eq(json_string_value(json_object_get(r, "resource")), ARN);
    ck_assert_uint_eq(json_array_size(json_object_get(body,
                                                      "ThrottlingReasons")),
                      1);
    json_decref(body);
    ddb_err_clear(&err);

    throttle_err(t, THROTTLE_READ, THROTTLE_PROVISIONED, &err);
    ck_assert_int_eq(err.type, DDB_THROUGHPUT_EXCEEDED);
    r = json_array_get(json_object_get(err.extra, "ThrottlingReasons"), 0);
    ck_assert_str_eq(json_string_value(json_object_get(r, "reason")),
                     "TableReadProvisionedThroughputExceeded");
    ddb_err_clear(&err);
    throttle_table_free(t);
}
END_TEST

/* Batches that processed nothing; transaction reason codes. */
START_TEST(test_throttle_err_batch_txn)
{
    struct throttle_limits lim;
    struct throttle_table *t, *od;
    struct ddb_err err;
    json_t *r;

    throttle_limits_default(&lim);
    t = mk(&lim, false, 300, 900, 1, T0);
    od = mk(&lim, true, 0, 0, 4, T0);
    ddb_err_init(&err);
    throttle_batch_err(t, THROTTLE_WRITE, THROTTLE_KEY_RANGE, &err);
    ck_assert_int_eq(err.type, DDB_THROTTLING);
    ck_assert(strncmp(err.msg, "Throughput exceeds the current capacity", 39)
              == 0);
    r = json_array_get(json_object_get(err.extra, "throttlingReasons"), 0);
    ck_assert_str_eq(json_string_value(json_object_get(r, "reason")),
                     "TableWriteKeyRangeThroughputExceeded");
    ck_assert_str_eq(json_string_value(json_object_get(r, "resource")), ARN);
    ddb_err_clear(&err);
    throttle_batch_err(t, THROTTLE_READ, THROTTLE_PROVISIONED, &err);
    ck_assert_int_eq(err.type, DDB_THROUGHPUT_EXCEEDED);
    ck_assert_ptr_nonnull(json_object_get(err.extra, "ThrottlingReasons"));
    ddb_err_clear(&err);
    ck_assert_str_eq(throttle_txn_code(t, THROTTLE_KEY_RANGE),
                     "ProvisionedThroughputExceeded");
    ck_assert_str_eq(throttle_txn_code(t, THROTTLE_PROVISIONED),
                     "ProvisionedThroughputExceeded");
    ck_assert_str_eq(throttle_txn_code(od, THROTTLE_KEY_RANGE),
                     "ThrottlingError");
    ck_assert_str_eq(throttle_txn_code(od, THROTTLE_MAX_ON_DEMAND),
                     "ThrottlingError");
    throttle_table_free(t);
    throttle_table_free(od);
}
END_TEST

START_TEST(test_throttle_err_gsi)
{
    struct throttle_limits lim;
    struct throttle_table_conf tc = {
        .rcu = 5, .wcu = 5, .nparts = 1, .arn = IARN, .is_index = true,
    };
    struct throttle_table *t;
    struct ddb_err err;
    json_t *r;

    throttle_limits_default(&lim);
    t = throttle_table_new(&lim, &tc, T0);
    ddb_err_init(&err);
    throttle_err(t, THROTTLE_WRITE, THROTTLE_PROVISIONED, &err);
    ck_assert_int_eq(err.type, DDB_THROUGHPUT_EXCEEDED);
    ck_assert_str_eq(err.msg,
        "The level of configured provisioned throughput for one or more "
        "global secondary indexes of the table was exceeded. Consider "
        "increasing your provisioning level for the under-provisioned "
        "global secondary indexes with the UpdateTable API");
    r = json_array_get(json_object_get(err.extra, "ThrottlingReasons"), 0);
    ck_assert_str_eq(json_string_value(json_object_get(r, "reason")),
                     "IndexWriteProvisionedThroughputExceeded");
    ck_assert_str_eq(json_string_value(json_object_get(r, "resource")),
                     IARN);
    ddb_err_clear(&err);
    ck_assert_str_eq(throttle_reason(true, THROTTLE_READ, THROTTLE_KEY_RANGE),
                     "IndexReadKeyRangeThroughputExceeded");
    ck_assert_str_eq(throttle_reason(false, THROTTLE_READ,
                                     THROTTLE_ACCOUNT_LIMIT),
                     "TableReadAccountLimitExceeded");
    ck_assert_str_eq(throttle_reason(true, THROTTLE_WRITE,
                                     THROTTLE_MAX_ON_DEMAND),
                     "IndexWriteMaxOnDemandThroughputExceeded");
    ck_assert_ptr_null(throttle_reason(false, THROTTLE_READ, THROTTLE_OK));
    throttle_table_free(t);
}
END_TEST

/* ------------------------------------------------------------------------
 * Threads: admissions and charges from several threads stay consistent.
 * ---------------------------------------------------------------------- */

struct worker {
    struct throttle_table *t;
    unsigned id, ok;
    pthread_barrier_t *tick;        /* the threads move through virtual
                                       time together, one ms at a time */
};

static void *
worker_run(void *arg)
{
    struct worker *w = arg;

    for (unsigned i = 0; i < 20000; i++) {
        uint64_t now = T0 + i / 4;      /* 5 virtual seconds */

        if (i % 4 == 0)
            pthread_barrier_wait(w->tick);
        if (req(w->t, (w->id + i) % 4, THROTTLE_WRITE, 1, 1, now) ==
            THROTTLE_OK)
            w->ok++;
    }
    return NULL;
}

START_TEST(test_throttle_threads)
{
    struct throttle_limits lim;
    struct worker w[4];
    pthread_t th[4];
    struct throttle_table_stats st;
    pthread_barrier_t tick;
    unsigned ok = 0;
    uint64_t thr = 0;

    throttle_limits_default(&lim);
    lim.burst_start_full = false;
    pthread_barrier_init(&tick, NULL, 4);
    for (unsigned i = 0; i < 4; i++) {
        w[i].t = i == 0 ? mk(&lim, false, 0, 400, 4, T0) : w[0].t;
        w[i].id = i;
        w[i].ok = 0;
        w[i].tick = &tick;
    }
    for (unsigned i = 0; i < 4; i++)
        ck_assert_int_eq(pthread_create(&th[i], NULL, worker_run, &w[i]), 0);
    for (unsigned i = 0; i < 4; i++) {
        pthread_join(th[i], NULL);
        ok += w[i].ok;
    }
    pthread_barrier_destroy(&tick);
    throttle_table_stats(w[0].t, T0 + 5000, &st);
    for (int c = 0; c < THROTTLE_CAUSE_COUNT; c++)
        thr += st.op[THROTTLE_WRITE].throttled[c];
    ck_assert_uint_eq(st.op[THROTTLE_WRITE].admitted, ok);
    ck_assert_uint_eq(ok + thr, 80000);
    ck_assert(st.op[THROTTLE_WRITE].consumed_total == (double)ok);
    /* 400/s over ~5 s of virtual time, banks empty at the start */
    ck_assert_uint_le(ok, 400 * 5 + 300 + 8);
    throttle_table_free(w[0].t);
}
END_TEST

static Suite *
throttle_suite(void)
{
    Suite *s = suite_create("throttle");
    TCase *tc;

    tc = tcase_create("ceiling");
    tcase_add_test(tc, test_throttle_ceiling_burst);
    tcase_add_test(tc, test_throttle_hot_key_sustained);
    tcase_add_test(tc, test_throttle_3kb_items);
    tcase_add_test(tc, test_throttle_bursts_served);
    tcase_add_test(tc, test_throttle_large_request);
    tcase_add_test(tc, test_throttle_reservation);
    suite_add_tcase(s, tc);

    tc = tcase_create("provisioned");
    tcase_add_test(tc, test_throttle_adaptive_docs_example);
    tcase_add_test(tc, test_throttle_adaptive_pool);
    tcase_add_test(tc, test_throttle_burst_then_rate);
    tcase_add_test(tc, test_throttle_burst_cause);
    tcase_set_timeout(tc, 60);
    suite_add_tcase(s, tc);

    tc = tcase_create("ondemand");
    tcase_add_test(tc, test_throttle_ondemand_hot_key);
    tcase_add_test(tc, test_throttle_ondemand_instant_capacity);
    tcase_add_test(tc, test_throttle_ondemand_limits);
    tcase_add_test(tc, test_throttle_switch_to_ondemand);
    suite_add_tcase(s, tc);

    tc = tcase_create("errors");
    tcase_add_test(tc, test_throttle_err_provisioned);
    tcase_add_test(tc, test_throttle_err_gsi);
    tcase_add_test(tc, test_throttle_err_batch_txn);
    suite_add_tcase(s, tc);

    tc = tcase_create("knobs");
    tcase_add_test(tc, test_throttle_scale);
    tcase_add_test(tc, test_throttle_off);
    tcase_add_test(tc, test_throttle_split);
    tcase_add_test(tc, test_throttle_time_backwards);
    tcase_add_test(tc, test_throttle_split_for_heat);
    suite_add_tcase(s, tc);

    tc = tcase_create("threads");
    tcase_add_test(tc, test_throttle_threads);
    suite_add_tcase(s, tc);
    return s;
}

int
main(void)
{
    SRunner *sr = srunner_create(throttle_suite());
    int failed;

    srunner_run_all(sr, CK_ENV);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
