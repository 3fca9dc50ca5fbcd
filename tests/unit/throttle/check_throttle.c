/* SPDX-License-Identifier: MIT */
/* check_throttle.c - the throttling engine at the bucket level: the issue's
 * acceptance numbers (ceiling, burst, adaptive, 3 KB items, on-demand),
 * the exceptions, scale factor, --throttle off, splits and hot keys. All
 * time is virtual: nothing sleeps. */
#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/proto/error.h"
#include "api/throttle/throttle.h"

#define ARN  "arn:aws:dynamodb:us-east-1:000000000000:table/T"
#define IARN "arn:aws:dynamodb:us-east-1:000000000000:table/T/index/G"
#define T0   UINT64_C(1700000000000)        /* any start time */

static struct throttle_table *
mk(const struct throttle_limits *lim, bool od, double rcu, double wcu,
   unsigned nparts, uint64_t now)
{
    struct throttle_table_conf tc = {
        .on_demand = od, .rcu = rcu, .wcu = wcu, .nparts = nparts,
        .arn = ARN, .od_max_rru = -1, .od_max_wru = -1,
    };

    return throttle_table_new(lim, &tc, now);
}

/* Ask, and pay `cost` if admitted. Returns the cause. */
static enum throttle_cause
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

/* n requests of `cost` units spread evenly over [start, start + 1000),
 * rotating over partitions [0, nparts). Counts admitted ones; every
 * rejection must have cause `want` (unless want is THROTTLE_OK). */
static unsigned
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

/* ------------------------------------------------------------------------
 * Acceptance 1: 300 RCU / 900 WCU, one partition, 1,500 1 KB writes.
 * ---------------------------------------------------------------------- */

START_TEST(test_throttle_ceiling_one_second)
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

    /* spread over the second: the share (900/s) plus the full burst bank
     * (270,000) would allow all 1,500; the ceiling allows 1,000 */
    t = mk(&lim, false, 300, 900, 1, T0);
    ck_assert_uint_eq(second_of(t, 1, THROTTLE_WRITE, 1500, 1, T0,
                                THROTTLE_KEY_RANGE), 1000);
    throttle_table_stats(t, T0 + 999, &st);
    ck_assert_uint_eq(st.op[THROTTLE_WRITE].admitted, 1000);
    ck_assert_uint_eq(st.op[THROTTLE_WRITE].throttled[THROTTLE_KEY_RANGE],
                      500);
    ck_assert(st.op[THROTTLE_WRITE].last_1s == 1000.0);
    /* the bank paid 1,000 and refilled 0.9/ms meanwhile: still huge */
    ck_assert(st.op[THROTTLE_WRITE].level > 269000.0);
    /* the next second: another 1,000, never more */
    ck_assert_uint_eq(second_of(t, 1, THROTTLE_WRITE, 1500, 1, T0 + 1000,
                                THROTTLE_KEY_RANGE), 1000);
    throttle_table_free(t);

    /* all 1,500 at one instant: the same 1,000 */
    t = mk(&lim, false, 300, 900, 1, T0);
    ck_assert_uint_eq(second_of(t, 1, THROTTLE_WRITE, 1500, 1, T0,
                                THROTTLE_KEY_RANGE) , 1000);
    throttle_table_free(t);
}
END_TEST

/* The ceiling is a sliding second, not a calendar one: 1,000 units at
 * t=995 ms block the partition until t=1,990 (10 ms slots), so no second
 * straddling a boundary ever sees 2,000. */
START_TEST(test_throttle_ceiling_sliding)
{
    struct throttle_limits lim;
    struct throttle_table *t;

    throttle_limits_default(&lim);
    t = mk(&lim, false, 300, 900, 1, T0);
    for (int i = 0; i < 1000; i++)
        ck_assert_int_eq(req(t, 0, THROTTLE_WRITE, 1, 1, T0 + 995),
                         THROTTLE_OK);
    ck_assert_int_eq(req(t, 0, THROTTLE_WRITE, 1, 1, T0 + 1000),
                     THROTTLE_KEY_RANGE);
    ck_assert_int_eq(req(t, 0, THROTTLE_WRITE, 1, 1, T0 + 1989),
                     THROTTLE_KEY_RANGE);
    ck_assert_int_eq(req(t, 0, THROTTLE_WRITE, 1, 1, T0 + 1990),
                     THROTTLE_OK);
    /* reads have their own ceiling (3,000) and bucket */
    ck_assert_uint_eq(second_of(t, 1, THROTTLE_READ, 4000, 1, T0 + 2000,
                                THROTTLE_KEY_RANGE), 3000);
    throttle_table_free(t);
}
END_TEST

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
 * Acceptance 3: adaptive capacity, 400 WCU over 4 partitions.
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
    for (unsigned s = 0; s < 10; s++) {
        unsigned got = second_of(t, 4, THROTTLE_WRITE, 600, 1,
                                 T0 + s * 1000, THROTTLE_OK);

        /* the first second may also lend the shares nobody has used yet
         * (at most 300); after that the table gets its 400/s */
        if (s >= 2)
            ok += got;
    }
    ck_assert_uint_le(ok, 8 * 400 + 4);
    ck_assert_uint_ge(ok, 8 * 400 - 4);
    throttle_table_stats(t, T0 + 10000, &st);
    ck_assert(st.op[THROTTLE_WRITE].throttled[THROTTLE_PROVISIONED] > 0);
    throttle_table_free(t);
}
END_TEST

/* ------------------------------------------------------------------------
 * Acceptance 4: burst. A 100 WCU table idle for 300 s.
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
 * Acceptance 5: 3 KB items, 333 writes per second per partition.
 * ---------------------------------------------------------------------- */

START_TEST(test_throttle_3kb_items)
{
    struct throttle_limits lim;
    struct throttle_table *t;

    throttle_limits_default(&lim);
    ck_assert_uint_eq(throttle_limits_partitions(&lim, 0, 1000), 1);
    t = mk(&lim, false, 0, 1000, 1, T0);
    for (unsigned s = 0; s < 10; s++)
        ck_assert_uint_eq(second_of(t, 1, THROTTLE_WRITE, 1000, 3,
                                    T0 + s * 1000, THROTTLE_KEY_RANGE), 333);
    throttle_table_free(t);
}
END_TEST

/* Admission knows only a lower bound; the charge is the real cost and may
 * overshoot (debt), which the next second pays back. */
START_TEST(test_throttle_debt)
{
    struct throttle_limits lim;
    struct throttle_table *t;
    struct throttle_part_stats ps;
    unsigned ok = 0;

    throttle_limits_default(&lim);
    t = mk(&lim, false, 0, 1000, 1, T0);
    /* asks for 1, costs 3: 334 fit in the first second (1,002 units) */
    for (unsigned i = 0; i < 1000; i++)
        if (req(t, 0, THROTTLE_WRITE, 1, 3, T0 + i) == THROTTLE_OK)
            ok++;
    ck_assert_uint_eq(ok, 334);
    ck_assert_int_eq(throttle_part_stats(t, 0, T0 + 999, &ps, NULL), 0);
    ck_assert(ps.op[THROTTLE_WRITE].last_1s == 1002.0);
    throttle_table_free(t);

    /* a bucket in debt admits nothing until it is paid back */
    lim.burst_start_full = false;
    t = mk(&lim, false, 0, 10, 1, T0 + 0);
    ck_assert_int_eq(req(t, 0, THROTTLE_WRITE, 1, 1, T0 + 100), THROTTLE_OK);
    /* 400 KB item: costs 400 units, admitted on a 1-unit lower bound */
    ck_assert_int_eq(req(t, 0, THROTTLE_WRITE, 1, 400, T0 + 200),
                     THROTTLE_OK);
    ck_assert_int_eq(throttle_part_stats(t, 0, T0 + 200, &ps, NULL), 0);
    ck_assert(ps.op[THROTTLE_WRITE].level < -398.0);
    ck_assert_int_ne(req(t, 0, THROTTLE_WRITE, 1, 1, T0 + 30000),
                     THROTTLE_OK);
    ck_assert_int_eq(req(t, 0, THROTTLE_WRITE, 1, 1, T0 + 41000),
                     THROTTLE_OK);
    /* a need bigger than the bank (3,000) and the ceiling (1,000) is
     * admitted once both are full and idle, and never starves */
    ck_assert_int_eq(req(t, 0, THROTTLE_WRITE, 5000, 5000, T0 + 400000),
                     THROTTLE_OK);
    ck_assert_int_eq(req(t, 0, THROTTLE_WRITE, 1, 1, T0 + 401000),
                     THROTTLE_PROVISIONED);
    throttle_table_free(t);
}
END_TEST

/* ------------------------------------------------------------------------
 * Acceptance 6: on-demand.
 * ---------------------------------------------------------------------- */

START_TEST(test_throttle_ondemand_hot_key)
{
    struct throttle_limits lim;
    struct throttle_table *t;
    struct ddb_err err;
    json_t *body, *r;

    throttle_limits_default(&lim);
    t = mk(&lim, true, 0, 0, 4, T0);
    ck_assert_uint_eq(second_of(t, 1, THROTTLE_WRITE, 1500, 1, T0,
                                THROTTLE_KEY_RANGE), 1000);
    ck_assert_uint_eq(second_of(t, 1, THROTTLE_READ, 4000, 1, T0,
                                THROTTLE_KEY_RANGE), 3000);
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

/* A new table: 4,000 WRU and 12,000 RRU at once. A peak counts after the
 * 30-minute window: then 2x it is served at once, more is not. */
START_TEST(test_throttle_ondemand_peak)
{
    struct throttle_limits lim;
    struct throttle_table *t;
    struct throttle_table_stats st;
    uint64_t t1, t2;

    throttle_limits_default(&lim);
    t = mk(&lim, true, 0, 0, 16, T0);
    ck_assert_uint_eq(second_of(t, 16, THROTTLE_WRITE, 5000, 1, T0,
                                THROTTLE_KEY_RANGE), 4000);
    ck_assert_uint_eq(second_of(t, 16, THROTTLE_READ, 13000, 1, T0,
                                THROTTLE_KEY_RANGE), 12000);
    throttle_table_free(t);

    t = mk(&lim, true, 0, 0, 16, T0);
    ck_assert_uint_eq(second_of(t, 16, THROTTLE_WRITE, 3000, 1, T0,
                                THROTTLE_OK), 3000);
    /* a minute later 2 x 3,000 would fit but the peak is not yet
     * "previous": the new-table 4,000 still applies */
    ck_assert_uint_eq(second_of(t, 16, THROTTLE_WRITE, 7000, 1,
                                T0 + 60000, THROTTLE_KEY_RANGE), 4000);
    /* cold for 31 minutes: up to 2 x the peak, 4,000 (that minute's
     * 4,000 is the peak now) -> 8,000 */
    t1 = T0 + 60000 + 31 * 60000;
    ck_assert_uint_eq(second_of(t, 16, THROTTLE_WRITE, 9000, 1, t1,
                                THROTTLE_KEY_RANGE), 8000);
    throttle_table_stats(t, t1 + 1000, &st);
    ck_assert(st.peak[THROTTLE_WRITE] == 4000.0);
    ck_assert(st.limit[THROTTLE_WRITE] == 8000.0);
    /* more than double within 30 minutes: still 8,000 */
    t2 = t1 + 10 * 60000;
    ck_assert_uint_eq(second_of(t, 16, THROTTLE_WRITE, 16000, 1, t2,
                                THROTTLE_KEY_RANGE), 8000);
    /* and 16,000 once 8,000 has been the peak for 30 minutes */
    ck_assert_uint_eq(second_of(t, 16, THROTTLE_WRITE, 16000, 1,
                                t2 + 32 * 60000, THROTTLE_OK), 16000);
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
 * provisioned rate, so the table keeps serving what it was provisioned. */
START_TEST(test_throttle_switch_to_ondemand)
{
    struct throttle_limits lim;
    struct throttle_table_conf tc = { .on_demand = true, .nparts = 20,
                                      .od_max_rru = -1, .od_max_wru = -1 };
    struct throttle_table *t;
    struct throttle_table_stats st;

    throttle_limits_default(&lim);
    t = mk(&lim, false, 0, 20000, 20, T0);
    throttle_table_update(t, &tc, T0 + 1000);
    throttle_table_stats(t, T0 + 1000, &st);
    ck_assert(st.on_demand);
    ck_assert(st.limit[THROTTLE_WRITE] == 20000.0);
    ck_assert(st.limit[THROTTLE_READ] == 12000.0);  /* initial is higher */
    ck_assert(st.provisioned[THROTTLE_WRITE] == 0.0);
    ck_assert_uint_eq(second_of(t, 20, THROTTLE_WRITE, 21000, 1, T0 + 2000,
                                THROTTLE_KEY_RANGE), 20000);
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
    /* a 9 WCU table, one partition: 10 writes a second, not 1,000 */
    t = mk(&lim, false, 3, 9, 1, T0);
    ck_assert_uint_eq(second_of(t, 1, THROTTLE_WRITE, 1500, 1, T0,
                                THROTTLE_KEY_RANGE), 10);
    throttle_table_free(t);
    /* on-demand: new-table capacity 40 WRU, quota 400 */
    t = mk(&lim, true, 0, 0, 8, T0);
    ck_assert_uint_eq(second_of(t, 8, THROTTLE_WRITE, 100, 1, T0,
                                THROTTLE_KEY_RANGE), 40);
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
    ck_assert_uint_eq(second_of(t, 1, THROTTLE_WRITE, 1500, 1, T0,
                                THROTTLE_OK), 1500);
    throttle_table_stats(t, T0 + 999, &st);
    ck_assert(st.op[THROTTLE_WRITE].last_1s == 1500.0);   /* still metered */
    ck_assert(st.op[THROTTLE_WRITE].consumed_total == 1500.0);
    ck_assert_uint_eq(st.op[THROTTLE_WRITE].would_throttle, 500);
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

    throttle_limits_default(&lim);
    t = mk(&lim, false, 0, 200, 2, T0);
    throttle_part_stats(t, 0, T0, &ps, NULL);
    ck_assert(ps.op[THROTTLE_WRITE].share == 100.0);
    ck_assert(ps.op[THROTTLE_WRITE].level == 30000.0);
    /* 500 units on partition 0, then split it: children get half each */
    ck_assert_uint_eq(second_of(t, 1, THROTTLE_WRITE, 500, 1, T0,
                                THROTTLE_OK), 500);
    ck_assert_int_eq(throttle_table_split(t, 0, T0 + 999, NULL), 0);
    ck_assert_uint_eq(throttle_table_nparts(t), 3);
    for (unsigned i = 0; i < 2; i++) {
        throttle_part_stats(t, i, T0 + 999, &ps, NULL);
        ck_assert(ps.op[THROTTLE_WRITE].share == 50.0);
        ck_assert(ps.op[THROTTLE_WRITE].capacity == 15000.0);
        ck_assert(ps.op[THROTTLE_WRITE].last_1s == 250.0);
        ck_assert_uint_eq(ps.op[THROTTLE_WRITE].admitted, 250);
    }
    throttle_part_stats(t, 2, T0 + 999, &ps, NULL);
    ck_assert(ps.op[THROTTLE_WRITE].share == 100.0);
    ck_assert(ps.op[THROTTLE_WRITE].last_1s == 0.0);
    /* each child's ceiling window holds 250: 750 more fit in each */
    for (unsigned i = 0; i < 2; i++) {
        unsigned ok = 0;

        for (unsigned k = 0; k < 2000; k++)
            ok += req(t, i, THROTTLE_WRITE, 1, 1, T0 + 999) == THROTTLE_OK;
        ck_assert_uint_eq(ok, 750);
    }
    ddb_err_init(&err);
    ck_assert_int_eq(throttle_table_split(t, 3, T0 + 999, &err), -1);
    ck_assert_int_eq(err.type, DDB_INTERNAL);

    /* doubling: 3 -> 6, totals preserved */
    throttle_table_stats(t, T0 + 1000, &st);
    ck_assert(st.op[THROTTLE_WRITE].share == 200.0);
    throttle_table_double(t, T0 + 1000);
    ck_assert_uint_eq(throttle_table_nparts(t), 6);
    throttle_table_stats(t, T0 + 1000, &st);
    ck_assert(st.op[THROTTLE_WRITE].share == 200.0);
    ck_assert_uint_eq(st.op[THROTTLE_WRITE].admitted, 2000);

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
    ck_assert_uint_eq(second_of(t, 1, THROTTLE_WRITE, 1000, 1, T0 + 5000,
                                THROTTLE_OK), 1000);
    ck_assert_int_eq(req(t, 0, THROTTLE_WRITE, 1, 1, T0),
                     THROTTLE_KEY_RANGE);
    ck_assert_int_eq(req(t, 0, THROTTLE_WRITE, 1, 1, 0), THROTTLE_KEY_RANGE);
    /* a stale partition index is clamped, never out of bounds */
    ck_assert_int_eq(req(t, 7, THROTTLE_READ, 1, 1, T0 + 7000), THROTTLE_OK);
    throttle_table_free(t);
}
END_TEST

/* ------------------------------------------------------------------------
 * Hot keys (space-saving).
 * ---------------------------------------------------------------------- */

/* Exact counts for a stream over 200 keys with a few heavy ones: every
 * key above total/k is reported; count >= true >= count - error. */
START_TEST(test_throttle_sketch)
{
    enum { NKEYS = 200, K = 16 };
    static unsigned truth[NKEYS];
    struct throttle_sketch *s = throttle_sketch_new(K);
    struct throttle_hotkey top[K];
    unsigned total = 0;
    size_t n;
    char key[16];

    memset(truth, 0, sizeof(truth));
    srand(42);
    for (unsigned i = 0; i < 20000; i++) {
        unsigned k;

        if (i % 10 < 3)
            k = 0;                      /* 30% */
        else if (i % 10 < 5)
            k = 1 + (i / 10) % 2;       /* 10% each */
        else
            k = 3 + (unsigned)rand() % (NKEYS - 3);
        truth[k]++;
        total++;
        snprintf(key, sizeof(key), "key%u", k);
        throttle_sketch_add(s, (const uint8_t *)key, strlen(key), 1);
    }
    n = throttle_sketch_top(s, top, K);
    ck_assert_uint_eq(n, K);
    ck_assert_uint_eq(top[0].key_len, 4);
    ck_assert(memcmp(top[0].key, "key0", 4) == 0);
    ck_assert(top[0].count >= truth[0]);
    ck_assert(top[0].count - top[0].error <= truth[0]);
    for (size_t i = 0; i < n; i++) {
        unsigned k;

        ck_assert(top[i].key_len < sizeof(key));
        memcpy(key, top[i].key, top[i].key_len);
        key[top[i].key_len] = '\0';
        ck_assert_int_eq(sscanf(key, "key%u", &k), 1);
        ck_assert(top[i].count >= truth[k]);
        ck_assert(top[i].count - top[i].error <= truth[k]);
        if (i > 0)
            ck_assert(top[i - 1].count >= top[i].count);
    }
    /* keys 1 and 2 (10% each > 1/16) are guaranteed present */
    for (unsigned want = 1; want <= 2; want++) {
        bool found = false;

        snprintf(key, sizeof(key), "key%u", want);
        for (size_t i = 0; i < n; i++)
            found |= top[i].key_len == strlen(key) &&
                     memcmp(top[i].key, key, top[i].key_len) == 0;
        ck_assert(found);
    }
    throttle_hotkeys_free(top, n);
    (void)total;
    throttle_sketch_free(s);
}
END_TEST

START_TEST(test_throttle_hotkeys_table)
{
    struct throttle_limits lim;
    struct throttle_table *t;
    struct throttle_hotkey top[4];
    struct throttle_ticket tk;
    char key[16];
    size_t n;

    throttle_limits_default(&lim);
    t = mk(&lim, false, 300, 900, 1, T0);
    /* "hot": 1,500 writes of 2 units in one instant; 50 cold keys once */
    for (unsigned i = 0; i < 1500; i++) {
        if (throttle_admit(t, 0, THROTTLE_WRITE, 2, (const uint8_t *)"hot",
                           3, T0, &tk) == THROTTLE_OK)
            throttle_charge(t, &tk, 2, (const uint8_t *)"hot", 3, T0);
    }
    for (unsigned i = 0; i < 50; i++) {
        snprintf(key, sizeof(key), "cold%u", i);
        if (throttle_admit(t, 0, THROTTLE_READ, 1, (const uint8_t *)key,
                           strlen(key), T0, &tk) == THROTTLE_OK)
            throttle_charge(t, &tk, 0.5, (const uint8_t *)key, strlen(key),
                            T0);
    }
    n = throttle_hotkeys(t, THROTTLE_HK_WRITE, top, 4);
    ck_assert_uint_eq(n, 1);
    ck_assert(top[0].count == 1000.0);          /* 500 admitted x 2 */
    ck_assert(top[0].error == 0.0);
    throttle_hotkeys_free(top, n);
    n = throttle_hotkeys(t, THROTTLE_HK_WRITE_THROTTLED, top, 4);
    ck_assert_uint_eq(n, 1);
    ck_assert_uint_eq(top[0].key_len, 3);
    ck_assert(memcmp(top[0].key, "hot", 3) == 0);
    ck_assert(top[0].count == 1000.0);          /* 1,000 rejections */
    throttle_hotkeys_free(top, n);
    n = throttle_hotkeys(t, THROTTLE_HK_READ, top, 4);
    ck_assert_uint_eq(n, 4);
    ck_assert(top[0].count == 0.5);
    throttle_hotkeys_free(top, n);
    ck_assert_uint_eq(throttle_hotkeys(t, THROTTLE_HK_READ_THROTTLED, top, 4),
                      0);
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

/* ------------------------------------------------------------------------
 * Integration helpers: knobs by name, tags, descriptions, the registry.
 * ---------------------------------------------------------------------- */

START_TEST(test_throttle_knob_tags)
{
    struct throttle_limits lim;
    json_t *tags;

    /* Knobs by name and their ranges: check_conf's test_conf_limits_set. */
    throttle_limits_default(&lim);
    tags = json_loads("[{\"Key\": \"shardlocal:partition-wcu\", "
                      "\"Value\": \"10\"}, {\"Key\": \"env\", \"Value\": "
                      "\"dev\"}, {\"Key\": \"shardlocal:throttle\", "
                      "\"Value\": \"bogus\"}, {\"Key\": "
                      "\"shardlocal:burst-seconds\", \"Value\": \"60\"}]",
                      0, NULL);
    ck_assert_int_eq(throttle_limits_apply_tags(&lim, tags), 2);
    ck_assert(lim.partition_wcu == 10);
    ck_assert(lim.burst_s == 60);
    ck_assert(lim.enforce);
    ck_assert_int_eq(throttle_limits_apply_tags(&lim, NULL), 0);
    json_decref(tags);
}
END_TEST

START_TEST(test_throttle_conf_from_desc)
{
    struct throttle_table_conf tc;
    json_t *d;

    d = json_loads("{\"TableName\": \"T\", \"TableArn\": \"" ARN "\","
                   "\"ProvisionedThroughput\": {\"ReadCapacityUnits\": 300,"
                   " \"WriteCapacityUnits\": 900},"
                   "\"GlobalSecondaryIndexes\": [{\"IndexName\": \"G\","
                   " \"IndexArn\": \"" IARN "\", \"ProvisionedThroughput\":"
                   " {\"ReadCapacityUnits\": 5, \"WriteCapacityUnits\": 7}}]"
                   "}", 0, NULL);
    ck_assert_ptr_nonnull(d);
    ck_assert_int_eq(throttle_conf_from_desc(d, NULL, 1, &tc), 0);
    ck_assert(!tc.on_demand && !tc.is_index);
    ck_assert(tc.rcu == 300 && tc.wcu == 900);
    ck_assert(tc.od_max_rru < 0 && tc.od_max_wru < 0);
    ck_assert_str_eq(tc.arn, ARN);
    ck_assert_uint_eq(tc.nparts, 1);
    ck_assert_int_eq(throttle_conf_from_desc(d, "G", 2, &tc), 0);
    ck_assert(tc.is_index);
    ck_assert(tc.rcu == 5 && tc.wcu == 7);
    ck_assert_str_eq(tc.arn, IARN);
    ck_assert_int_eq(throttle_conf_from_desc(d, "H", 2, &tc), -1);
    json_decref(d);

    d = json_loads("{\"TableArn\": \"" ARN "\", \"BillingModeSummary\":"
                   " {\"BillingMode\": \"PAY_PER_REQUEST\"},"
                   "\"ProvisionedThroughput\": {\"ReadCapacityUnits\": 0,"
                   " \"WriteCapacityUnits\": 0}, \"OnDemandThroughput\":"
                   " {\"MaxReadRequestUnits\": -1, \"MaxWriteRequestUnits\":"
                   " 50}}", 0, NULL);
    ck_assert_int_eq(throttle_conf_from_desc(d, NULL, 4, &tc), 0);
    ck_assert(tc.on_demand);
    ck_assert(tc.od_max_rru < 0);
    ck_assert(tc.od_max_wru == 50);
    json_decref(d);
}
END_TEST

static void
count_visit(void *arg, const char *table, const char *index,
            struct throttle_table *t)
{
    (void)table;
    (void)index;
    (void)t;
    (*(unsigned *)arg)++;
}

START_TEST(test_throttle_registry)
{
    struct throttle_limits lim, got;
    struct throttle_registry *r;
    struct throttle_table_conf tc = { .wcu = 900, .rcu = 300, .nparts = 1,
                                      .arn = ARN };
    struct throttle_table *a, *b, *g, *a2;
    unsigned n = 0;

    throttle_limits_default(&lim);
    r = throttle_registry_new(&lim);
    ck_assert_ptr_null(throttle_registry_find(r, "T", NULL));
    ck_assert_ptr_null(throttle_registry_get(r, "T", NULL, NULL, NULL, T0));
    a = throttle_registry_get(r, "T", NULL, &tc, NULL, T0);
    ck_assert_ptr_nonnull(a);
    ck_assert_ptr_eq(throttle_registry_get(r, "T", NULL, &tc, NULL, T0), a);
    ck_assert_ptr_eq(throttle_registry_find(r, "T", NULL), a);
    g = throttle_registry_get(r, "T", "G", &tc, NULL, T0);
    ck_assert_ptr_ne(g, a);
    ck_assert_ptr_eq(throttle_registry_find(r, "T", "G"), g);
    b = throttle_registry_get(r, "U", NULL, &tc, NULL, T0);
    ck_assert_ptr_ne(b, a);
    throttle_registry_foreach(r, count_visit, &n);
    ck_assert_uint_eq(n, 3);

    /* 1,000 in the second, then the server goes to scale 0.01 */
    ck_assert_uint_eq(second_of(a, 1, THROTTLE_WRITE, 1500, 1, T0,
                                THROTTLE_KEY_RANGE), 1000);
    lim.scale = 0.01;
    throttle_registry_set_limits(r, &lim, T0 + 5000);
    throttle_registry_limits(r, &got);
    ck_assert(got.scale == 0.01);
    ck_assert_uint_eq(second_of(b, 1, THROTTLE_WRITE, 1500, 1, T0 + 5000,
                                THROTTLE_KEY_RANGE), 10);

    /* DeleteTable: the table and its GSI go; a fresh one comes back, the
     * old pointer stays valid */
    throttle_registry_drop(r, "T", NULL);
    ck_assert_ptr_null(throttle_registry_find(r, "T", NULL));
    ck_assert_ptr_null(throttle_registry_find(r, "T", "G"));
    ck_assert_ptr_eq(throttle_registry_find(r, "U", NULL), b);
    ck_assert_int_eq(req(a, 0, THROTTLE_WRITE, 1, 1, T0 + 9000),
                     THROTTLE_OK);
    a2 = throttle_registry_get(r, "T", NULL, &tc, NULL, T0 + 9000);
    ck_assert_ptr_ne(a2, a);
    n = 0;
    throttle_registry_foreach(r, count_visit, &n);
    ck_assert_uint_eq(n, 2);
    throttle_registry_drop(r, "U", "nope");
    ck_assert_ptr_eq(throttle_registry_find(r, "U", NULL), b);
    throttle_registry_free(r);
}
END_TEST

static Suite *
throttle_suite(void)
{
    Suite *s = suite_create("throttle");
    TCase *tc;

    tc = tcase_create("provisioned");
    tcase_add_test(tc, test_throttle_ceiling_one_second);
    tcase_add_test(tc, test_throttle_ceiling_sliding);
    tcase_add_test(tc, test_throttle_adaptive_docs_example);
    tcase_add_test(tc, test_throttle_adaptive_pool);
    tcase_add_test(tc, test_throttle_burst_then_rate);
    tcase_add_test(tc, test_throttle_burst_cause);
    tcase_add_test(tc, test_throttle_3kb_items);
    tcase_add_test(tc, test_throttle_debt);
    tcase_set_timeout(tc, 60);
    suite_add_tcase(s, tc);

    tc = tcase_create("ondemand");
    tcase_add_test(tc, test_throttle_ondemand_hot_key);
    tcase_add_test(tc, test_throttle_ondemand_peak);
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
    suite_add_tcase(s, tc);

    tc = tcase_create("hotkeys");
    tcase_add_test(tc, test_throttle_sketch);
    tcase_add_test(tc, test_throttle_hotkeys_table);
    suite_add_tcase(s, tc);

    tc = tcase_create("integration");
    tcase_add_test(tc, test_throttle_knob_tags);
    tcase_add_test(tc, test_throttle_conf_from_desc);
    tcase_add_test(tc, test_throttle_registry);
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
