/* SPDX-License-Identifier: MIT */
/* check_history.c - api/throttle/history.c: the per-second samples of a
 * partition (consumed, refused, bank and ceiling levels at each second's
 * end), the 900-second ring forgetting what is older, the table's
 * capacity per second, splits sharing the past between the children, and
 * the event ring. All time is virtual and every number exact. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "api/throttle/throttle.h"
#include "tests/unit/throttle/fixture.h"

#define S0 (T0 / 1000)                      /* T0's second */

/* The history of every partition of t over the last `seconds` at now. */
static void
hist(struct throttle_table *t, uint64_t now, unsigned seconds,
     struct throttle_history *h)
{
    struct ddb_err e;

    ddb_err_init(&e);
    ck_assert_int_eq(throttle_history(t, now, seconds, -1, h, &e), 0);
}

/* Sample k of partition i (all partitions copied). */
static const struct throttle_sample *
at(const struct throttle_history *h, unsigned i, unsigned k)
{
    ck_assert_uint_lt(k, h->nsec);
    return &h->s[(size_t)i * h->nsec + k];
}

/* A flood at one instant: the ceiling absorbs 2,500 of 3,000 writes and
 * refuses 500; the ceiling then refills at 1,000 a second (at most its
 * 2,500), the bank at the share (100 a second). Each sample holds the
 * levels the buckets had when its second ended. */
START_TEST(test_history_samples)
{
    struct throttle_limits lim;
    struct throttle_table *t;
    struct throttle_history h;
    const struct throttle_sample *s;

    throttle_limits_default(&lim);
    t = mk(&lim, false, 100, 100, 1, T0);
    hist(t, T0 + 100, 10, &h);              /* the first second runs */
    ck_assert_uint_eq(h.nsec, 0);
    throttle_history_free(&h);
    ck_assert_uint_eq(burst_of(t, 1, THROTTLE_WRITE, 3000, 1, T0 + 100),
                      2500);
    ck_assert_uint_eq(burst_of(t, 1, THROTTLE_READ, 4, 0.5, T0 + 1500), 4);
    hist(t, T0 + 3000, 60, &h);
    ck_assert_uint_eq(h.first_s, S0);       /* not before the state */
    ck_assert_uint_eq(h.nsec, 3);           /* whole seconds only */
    ck_assert_uint_eq(h.nparts, 1);
    s = at(&h, 0, 0);
    ck_assert(s->consumed[THROTTLE_WRITE] == 2500);
    ck_assert_uint_eq(s->throttled[THROTTLE_WRITE], 500);
    ck_assert(s->bucket[THROTTLE_WRITE] == 30000 - 2500 + 90);
    ck_assert(s->burst[THROTTLE_WRITE] == 900);
    ck_assert(s->consumed[THROTTLE_READ] == 0);
    ck_assert(s->bucket[THROTTLE_READ] == 30000);
    s = at(&h, 0, 1);
    ck_assert(s->consumed[THROTTLE_WRITE] == 0);
    ck_assert_uint_eq(s->throttled[THROTTLE_WRITE], 0);
    ck_assert(s->bucket[THROTTLE_WRITE] == 27690);
    ck_assert(s->burst[THROTTLE_WRITE] == 1900);
    ck_assert(s->consumed[THROTTLE_READ] == 2);
    ck_assert(s->burst[THROTTLE_READ] == 7500);
    s = at(&h, 0, 2);
    ck_assert(s->bucket[THROTTLE_WRITE] == 27790);
    ck_assert(s->burst[THROTTLE_WRITE] == 2500);   /* full again */
    for (unsigned k = 0; k < 3; k++) {
        ck_assert(h.ts[k].capacity[THROTTLE_WRITE] == 100);
        ck_assert(h.ts[k].consumed[THROTTLE_WRITE] ==
                  at(&h, 0, k)->consumed[THROTTLE_WRITE]);
    }
    ck_assert_uint_eq(h.ts[0].throttled[THROTTLE_WRITE], 500);
    ck_assert_uint_eq(h.nev, 0);
    throttle_history_free(&h);
    /* a second ago only; the current second is never a sample */
    hist(t, T0 + 3999, 1, &h);
    ck_assert_uint_eq(h.first_s, S0 + 2);
    ck_assert_uint_eq(h.nsec, 1);
    throttle_history_free(&h);
    throttle_table_free(t);
}
END_TEST

/* 1,000 seconds of writes, a different cost each second: the ring keeps
 * the last 900, each at its own second, and the minute of per_second
 * (the partitions view) reads the same ring. */
START_TEST(test_history_ring)
{
    struct throttle_limits lim;
    struct throttle_table *t;
    struct throttle_history h;
    struct throttle_part_stats ps;
    struct ddb_err e;

    throttle_limits_default(&lim);
    t = mk(&lim, true, 0, 0, 2, T0);
    for (unsigned k = 0; k < 1000; k++)
        ck_assert_int_eq(req(t, k % 2, THROTTLE_WRITE, 1, k % 7 + 1,
                             T0 + k * 1000 + 500), THROTTLE_OK);
    ddb_err_init(&e);
    ck_assert_int_eq(throttle_part_stats(t, 1, T0 + 999 * 1000 + 600, &ps,
                                         &e), 0);
    ck_assert(ps.op[THROTTLE_WRITE].per_second[0] == 999 % 7 + 1);
    ck_assert(ps.op[THROTTLE_WRITE].per_second[1] == 0);
    ck_assert(ps.op[THROTTLE_WRITE].per_second[2] == 997 % 7 + 1);
    hist(t, T0 + 1000 * 1000, 900, &h);
    ck_assert_uint_eq(h.nsec, THROTTLE_RING_S);
    ck_assert_uint_eq(h.first_s, S0 + 100);
    for (unsigned j = 0; j < h.nsec; j++) {
        unsigned k = 100 + j;

        ck_assert(at(&h, k % 2, j)->consumed[THROTTLE_WRITE] == k % 7 + 1);
        ck_assert(at(&h, (k + 1) % 2, j)->consumed[THROTTLE_WRITE] == 0);
        ck_assert(h.ts[j].consumed[THROTTLE_WRITE] == k % 7 + 1);
        ck_assert(h.ts[j].capacity[THROTTLE_WRITE] == 4000);  /* on-demand */
    }
    throttle_history_free(&h);
    /* asking for more than the ring holds gets the ring */
    hist(t, T0 + 1000 * 1000, 5000, &h);
    ck_assert_uint_eq(h.nsec, THROTTLE_RING_S);
    throttle_history_free(&h);
    throttle_table_free(t);
}
END_TEST

/* A clock that jumps a year ahead: the ring is idle seconds with full
 * buckets, computed without walking the year. */
START_TEST(test_history_jump)
{
    struct throttle_limits lim;
    struct throttle_table *t;
    struct throttle_history h;
    const uint64_t year = UINT64_C(365) * 86400 * 1000;

    throttle_limits_default(&lim);
    t = mk(&lim, false, 10, 10, 1, T0);
    ck_assert_uint_eq(burst_of(t, 1, THROTTLE_WRITE, 5000, 1, T0), 2500);
    hist(t, T0 + year, 900, &h);
    ck_assert_uint_eq(h.nsec, THROTTLE_RING_S);
    for (unsigned k = 0; k < h.nsec; k++) {
        ck_assert(at(&h, 0, k)->consumed[THROTTLE_WRITE] == 0);
        ck_assert_uint_eq(at(&h, 0, k)->throttled[THROTTLE_WRITE], 0);
        ck_assert(at(&h, 0, k)->bucket[THROTTLE_WRITE] == 3000);
        ck_assert(at(&h, 0, k)->burst[THROTTLE_WRITE] == 2500);
    }
    throttle_history_free(&h);
    throttle_table_free(t);
}
END_TEST

/* A split: each child inherits half of its parent's past (so the
 * partitions still add up to the table) and its own ceiling's levels;
 * the partitions after it are renumbered. One partition's history alone,
 * and a partition out of range. */
START_TEST(test_history_split)
{
    struct throttle_limits lim;
    struct throttle_table *t;
    struct throttle_history h;
    struct throttle_event ev = { .kind = THROTTLE_EV_SPLIT, .partition = 0,
                                 .cause = THROTTLE_SPLIT_HEAT };
    struct ddb_err e;

    throttle_limits_default(&lim);
    t = mk(&lim, false, 100, 200, 2, T0);
    ck_assert_uint_eq(burst_of(t, 1, THROTTLE_WRITE, 2507, 1, T0 + 10),
                      2500);                /* 7 refused */
    ck_assert_int_eq(req(t, 1, THROTTLE_WRITE, 4, 4, T0 + 20), THROTTLE_OK);
    ddb_err_init(&e);
    ck_assert_int_eq(throttle_table_split(t, 0, T0 + 1500, &e), 0);
    throttle_event_add(t, &ev, T0 + 1500);
    hist(t, T0 + 1999, 60, &h);
    ck_assert_uint_eq(h.nparts, 3);
    ck_assert_uint_eq(h.nsec, 1);
    ck_assert(at(&h, 0, 0)->consumed[THROTTLE_WRITE] == 1250);
    ck_assert(at(&h, 1, 0)->consumed[THROTTLE_WRITE] == 1250);
    ck_assert_uint_eq(at(&h, 0, 0)->throttled[THROTTLE_WRITE], 4);
    ck_assert_uint_eq(at(&h, 1, 0)->throttled[THROTTLE_WRITE], 3);
    ck_assert(at(&h, 2, 0)->consumed[THROTTLE_WRITE] == 4);   /* was 1 */
    ck_assert(at(&h, 0, 0)->bucket[THROTTLE_WRITE] ==
              at(&h, 1, 0)->bucket[THROTTLE_WRITE]);
    ck_assert(at(&h, 0, 0)->burst[THROTTLE_WRITE] ==
              at(&h, 1, 0)->burst[THROTTLE_WRITE]);
    ck_assert(h.ts[0].consumed[THROTTLE_WRITE] == 2504);
    ck_assert_uint_eq(h.ts[0].throttled[THROTTLE_WRITE], 7);
    ck_assert_uint_eq(h.nev, 1);
    ck_assert_int_eq(h.ev[0].kind, THROTTLE_EV_SPLIT);
    ck_assert_int_eq(h.ev[0].partition, 0);
    ck_assert_int_eq(h.ev[0].cause, THROTTLE_SPLIT_HEAT);
    ck_assert_uint_eq(h.ev[0].nparts, 3);
    ck_assert_uint_eq(h.ev[0].t_ms, T0 + 1500);
    throttle_history_free(&h);
    ck_assert_int_eq(throttle_history(t, T0 + 1999, 60, 2, &h, &e), 0);
    ck_assert_uint_eq(h.part0, 2);
    ck_assert_uint_eq(h.nsel, 1);
    ck_assert(h.s[0].consumed[THROTTLE_WRITE] == 4);
    ck_assert(h.ts[0].consumed[THROTTLE_WRITE] == 2504);  /* still all */
    throttle_history_free(&h);
    ck_assert_int_eq(throttle_history(t, T0 + 1999, 60, 3, &h, &e), -1);
    ck_assert_int_eq(e.type, DDB_INTERNAL);
    ddb_err_clear(&e);
    throttle_table_free(t);
}
END_TEST

/* UpdateTable is an update_table event with the new provisioning, and
 * the table's capacity per second follows it from the second it
 * happened in; to on-demand, the capacity is the instant capacity. */
START_TEST(test_history_update)
{
    struct throttle_limits lim;
    struct throttle_table *t;
    struct throttle_history h;
    struct throttle_table_conf tc = { .rcu = 10, .wcu = 50, .nparts = 1,
                                      .arn = ARN, .od_max_rru = -1,
                                      .od_max_wru = -1 };

    throttle_limits_default(&lim);
    t = mk(&lim, false, 10, 20, 1, T0);
    throttle_table_update(t, &tc, T0 + 2500);
    tc.on_demand = true;
    tc.od_max_wru = 300;
    throttle_table_update(t, &tc, T0 + 4100);
    hist(t, T0 + 6000, 900, &h);
    ck_assert_uint_eq(h.nsec, 6);
    ck_assert(h.ts[0].capacity[THROTTLE_WRITE] == 20);
    ck_assert(h.ts[1].capacity[THROTTLE_WRITE] == 20);
    ck_assert(h.ts[2].capacity[THROTTLE_WRITE] == 50);
    ck_assert(h.ts[3].capacity[THROTTLE_WRITE] == 50);
    ck_assert(h.ts[4].capacity[THROTTLE_WRITE] == 4000);
    ck_assert(h.ts[5].capacity[THROTTLE_READ] == 12000);
    ck_assert_uint_eq(h.nev, 2);
    ck_assert_int_eq(h.ev[0].kind, THROTTLE_EV_UPDATE_TABLE);
    ck_assert(!h.ev[0].on_demand);
    ck_assert(h.ev[0].wcu == 50 && h.ev[0].rcu == 10);
    ck_assert_uint_eq(h.ev[0].t_ms, T0 + 2500);
    ck_assert(h.ev[1].on_demand);
    ck_assert(h.ev[1].wcu == 0 && h.ev[1].od_max_wru == 300);
    throttle_history_free(&h);
    /* events older than the window are left out */
    hist(t, T0 + 6000, 1, &h);
    ck_assert_uint_eq(h.nev, 0);
    throttle_history_free(&h);
    throttle_table_free(t);
}
END_TEST

/* The event ring keeps the last THROTTLE_EVENTS, oldest first; a tag
 * event's text is kept whole up to its size, cut beyond. */
START_TEST(test_history_events)
{
    struct throttle_limits lim;
    struct throttle_table *t;
    struct throttle_history h;
    struct throttle_event ev = { .kind = THROTTLE_EV_TAG };

    throttle_limits_default(&lim);
    t = mk(&lim, true, 0, 0, 1, T0);
    for (unsigned i = 0; i < THROTTLE_EVENTS + 6; i++) {
        ev.partition = (int)i;
        throttle_event_add(t, &ev, T0 + i * 10);
    }
    memset(ev.text, 'x', sizeof(ev.text));   /* no terminator given */
    throttle_event_add(t, &ev, T0 + 5000);
    hist(t, T0 + 9000, 900, &h);
    ck_assert_uint_eq(h.nev, THROTTLE_EVENTS);
    ck_assert_int_eq(h.ev[0].partition, 7);
    ck_assert_uint_eq(h.ev[0].t_ms, T0 + 70);
    ck_assert_int_eq(h.ev[THROTTLE_EVENTS - 2].partition,
                     THROTTLE_EVENTS + 5);
    ck_assert_uint_eq(strlen(h.ev[THROTTLE_EVENTS - 1].text),
                      THROTTLE_EVENT_TEXT - 1);
    ck_assert_uint_eq(h.ev[THROTTLE_EVENTS - 1].nparts, 1);
    throttle_history_free(&h);
    throttle_table_free(t);
}
END_TEST

static Suite *
history_suite(void)
{
    Suite *s = suite_create("history");
    TCase *tc = tcase_create("ring");

    tcase_add_test(tc, test_history_samples);
    tcase_add_test(tc, test_history_ring);
    tcase_add_test(tc, test_history_jump);
    tcase_add_test(tc, test_history_split);
    tcase_add_test(tc, test_history_update);
    tcase_add_test(tc, test_history_events);
    suite_add_tcase(s, tc);
    return s;
}

int
main(void)
{
    SRunner *sr = srunner_create(history_suite());
    int failed;

    srunner_run_all(sr, CK_ENV);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
