/* SPDX-License-Identifier: MIT */
/* check_streams.c - DynamoDB Streams' views of the change log: sequence
 * numbers in DynamoDB's digit form (text order = numeric order), shards
 * from a stream and the partition history (lineage across a split, ranges
 * between markers, ids that sort parents first), and the read limits
 * (DescribeStream's rate, readers per shard) on the request's clock. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/streams/streams.h"
#include "conf/conf.h"
#include "storage/storage.h"
#include "tests/unit/storage/fixture.h"

/* ------------------------------------------------------------------------
 * Sequence numbers
 * ---------------------------------------------------------------------- */

START_TEST(test_seq_format_and_parse)
{
    static const uint64_t v[] = { 0, 1, 42, 999, 1000, 123456789012345ull,
                                  99999999999999999ull };
    char a[STREAMS_SEQ_LEN + 1], b[STREAMS_SEQ_LEN + 1];
    uint64_t back;

    streams_seq_format(42, a);
    ck_assert_str_eq(a, "100000000000000000042");
    for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
        streams_seq_format(v[i], a);
        ck_assert_uint_eq(strlen(a), 21);
        ck_assert(streams_seq_parse(a, &back));
        ck_assert_uint_eq(back, v[i]);
        /* text order is numeric order (clients compare them as numbers) */
        if (i > 0) {
            streams_seq_format(v[i - 1], b);
            ck_assert_int_lt(strcmp(b, a), 0);
        }
    }
    ck_assert(!streams_seq_parse(NULL, &back));
    ck_assert(!streams_seq_parse("", &back));
    ck_assert(!streams_seq_parse("10000000000000000004", &back));  /* 20 */
    ck_assert(!streams_seq_parse("1000000000000000000042", &back));
    ck_assert(!streams_seq_parse("200000000000000000042", &back));
    ck_assert(!streams_seq_parse("1000000000000000000x2", &back));
    ck_assert(!streams_seq_parse("1-0000000000000000042", &back));
}
END_TEST

/* ------------------------------------------------------------------------
 * Shards from the history
 * ---------------------------------------------------------------------- */

static struct storage *store;

static void
setup(void)
{
    struct ddb_err err;

    ddb_err_init(&err);
    store = storage_open(NULL, &err);
    ck_assert_ptr_nonnull(store);
}

static void
teardown(void)
{
    storage_close(store);
    store = NULL;
}

struct marks {
    uint64_t seq, ms;
};

static void
sw(struct stable *t, bool on, struct marks *m)
{
    fixture_log_switch(t, on, &m->seq, &m->ms);
}

/* A stream view of t opened at on and closed at off (NULL: open). */
static void
stream_of(struct tables_stream *s, struct stable *t, const struct marks *on,
          const struct marks *off)
{
    memset(s, 0, sizeof(*s));
    s->t = t;
    s->start = on->seq;
    s->ms = on->ms;
    s->end = off != NULL ? off->seq : 0;
    s->end_ms = off != NULL ? off->ms : 0;
}

static void
check_id(const char *id)
{
    ck_assert_uint_eq(strlen(id), STREAMS_SHARD_ID_LEN);
    ck_assert_int_eq(strncmp(id, "shardId-", 8), 0);
    for (int i = 8; i < 28; i++)
        ck_assert(id[i] >= '0' && id[i] <= '9');
    ck_assert_int_eq(id[28], '-');
    for (int i = 29; i < STREAMS_SHARD_ID_LEN; i++)
        ck_assert(strchr("0123456789abcdef", id[i]) != NULL);
}

START_TEST(test_shards_follow_partitions)
{
    struct stable *t;
    struct tables_stream s1, s2, s3;
    struct streams_shard *sh;
    struct marks on1, off1, on2, on3;
    struct ddb_err err;
    size_t n;

    ddb_err_init(&err);
    ck_assert_int_eq(storage_table_create(store, "tbl", NULL, 2, &err), 0);
    t = storage_table_get(store, "tbl");
    /* a stream opened and closed before any split: 2 closed shards */
    sw(t, true, &on1);
    sw(t, false, &off1);
    stream_of(&s1, t, &on1, &off1);
    ck_assert_int_eq(streams_shards(&s1, &sh, &n, &err), 0);
    ck_assert_uint_eq(n, 2);
    for (size_t i = 0; i < n; i++) {
        check_id(sh[i].id);
        ck_assert_str_eq(sh[i].parent, "");
        ck_assert_uint_eq(sh[i].first, on1.seq);
        ck_assert_uint_eq(sh[i].last, off1.seq);
    }
    ck_assert_int_lt(strcmp(sh[0].id, sh[1].id), 0);
    free(sh);

    /* a stream open across a split of partition 0: parent closed at the
     * split, two children naming it, parents first */
    sw(t, true, &on2);
    ck_assert_int_eq(stable_split(t, 0, &err), 0);
    stream_of(&s2, t, &on2, NULL);
    ck_assert_int_eq(streams_shards(&s2, &sh, &n, &err), 0);
    ck_assert_uint_eq(n, 4);
    {
        const struct streams_shard *parent = NULL;
        size_t kids = 0;

        for (size_t i = 0; i < n; i++)
            if (sh[i].last != 0)
                parent = &sh[i];
        ck_assert_ptr_nonnull(parent);
        for (size_t i = 0; i < n; i++) {
            if (strcmp(sh[i].parent, parent->id) != 0)
                continue;
            kids++;
            ck_assert_uint_gt(sh[i].first, parent->last);
            ck_assert_uint_eq(sh[i].last, 0);
            /* id order lists the parent first */
            ck_assert_int_lt(strcmp(parent->id, sh[i].id), 0);
            ck_assert_ptr_eq(streams_shard_find(sh, n, sh[i].id), &sh[i]);
        }
        ck_assert_uint_eq(kids, 2);
        ck_assert_uint_eq(parent->first, on2.seq);
    }
    ck_assert_ptr_null(streams_shard_find(sh, n, "shardId-nope"));
    free(sh);

    /* the first stream never saw the children */
    ck_assert_int_eq(streams_shards(&s1, &sh, &n, &err), 0);
    ck_assert_uint_eq(n, 2);
    free(sh);

    /* a stream opened after the split: the live partitions only, no
     * parent listed (its shard is not in this stream) */
    sw(t, false, &off1);
    sw(t, true, &on3);
    stream_of(&s3, t, &on3, NULL);
    ck_assert_int_eq(streams_shards(&s3, &sh, &n, &err), 0);
    ck_assert_uint_eq(n, 3);
    for (size_t i = 0; i < n; i++) {
        ck_assert_str_eq(sh[i].parent, "");
        ck_assert_uint_eq(sh[i].first, on3.seq);
    }
    free(sh);
    stable_release(t);
}
END_TEST

/* ------------------------------------------------------------------------
 * Read limits
 * ---------------------------------------------------------------------- */

START_TEST(test_describe_rate_and_readers)
{
    struct conf cf;
    struct api_server srv;
    struct api_ctx ctx;
    struct tables_stream s;
    struct streams_counts got = { 0 };
    struct ddb_err err;
    json_t *all, *j;

    conf_defaults(&cf);
    ck_assert_uint_eq(cf.stream_describe_rate, 10);
    ck_assert_uint_eq(cf.stream_shard_readers, 2);
    cf.stream_describe_rate = 3;
    memset(&srv, 0, sizeof(srv));
    srv.conf = &cf;
    srv.streams = streams_meter_new();
    memset(&ctx, 0, sizeof(ctx));
    ctx.srv = &srv;
    ctx.now_ms = 10000;
    memset(&s, 0, sizeof(s));
    snprintf(s.table, sizeof(s.table), "tbl");
    snprintf(s.label, sizeof(s.label), "2026-01-01T00:00:00.000");
    ddb_err_init(&err);

    /* 3 per second: a burst of 3, then one every 333 ms */
    for (int i = 0; i < 3; i++)
        ck_assert_int_eq(streams_meter_describe(&ctx, &s, &err), 0);
    ck_assert_int_eq(streams_meter_describe(&ctx, &s, &err), -1);
    ck_assert_int_eq(err.type, DDB_THROTTLING);
    ck_assert_str_eq(err.msg, "Rate exceeded");
    ddb_err_clear(&err);
    ctx.now_ms = 10300;                 /* 0.9 of a call banked */
    ck_assert_int_eq(streams_meter_describe(&ctx, &s, &err), -1);
    ddb_err_clear(&err);
    ctx.now_ms = 10334;                 /* 1.002 */
    ck_assert_int_eq(streams_meter_describe(&ctx, &s, &err), 0);
    ck_assert_int_eq(streams_meter_describe(&ctx, &s, &err), -1);
    ddb_err_clear(&err);
    ctx.now_ms = 20000;                 /* idle: the bank holds 3, no more */
    for (int i = 0; i < 3; i++)
        ck_assert_int_eq(streams_meter_describe(&ctx, &s, &err), 0);
    ck_assert_int_eq(streams_meter_describe(&ctx, &s, &err), -1);
    ddb_err_clear(&err);
    cf.stream_describe_rate = 0;        /* off */
    for (int i = 0; i < 50; i++)
        ck_assert_int_eq(streams_meter_describe(&ctx, &s, &err), 0);

    /* two readers of one shard at once; another shard is its own */
    ck_assert_int_eq(streams_meter_enter(&ctx, &s, "shard-a", &err), 0);
    ck_assert_int_eq(streams_meter_enter(&ctx, &s, "shard-a", &err), 0);
    ck_assert_int_eq(streams_meter_enter(&ctx, &s, "shard-a", &err), -1);
    ck_assert_int_eq(err.type, DDB_THROTTLING);
    ddb_err_clear(&err);
    ck_assert_int_eq(streams_meter_enter(&ctx, &s, "shard-b", &err), 0);
    streams_meter_leave(&ctx, &s, "shard-a", 7, 700);
    ck_assert_int_eq(streams_meter_enter(&ctx, &s, "shard-a", &err), 0);
    streams_meter_leave(&ctx, &s, "shard-a", 0, 0);
    streams_meter_leave(&ctx, &s, "shard-a", 0, 0);
    streams_meter_leave(&ctx, &s, "shard-b", 3, 30);

    all = streams_meter_json(&srv, "tbl");
    j = json_object_get(all, s.label);
    ck_assert_ptr_nonnull(j);
    got.get_records = (uint64_t)json_integer_value(
        json_object_get(j, "GetRecords"));
    got.records = (uint64_t)json_integer_value(
        json_object_get(j, "ReturnedRecordsCount"));
    got.bytes = (uint64_t)json_integer_value(
        json_object_get(j, "ReturnedBytes"));
    got.throttled = (uint64_t)json_integer_value(
        json_object_get(j, "Throttled"));
    got.describe = (uint64_t)json_integer_value(
        json_object_get(j, "DescribeStream"));
    ck_assert_uint_eq(got.get_records, 4);
    ck_assert_uint_eq(got.records, 10);
    ck_assert_uint_eq(got.bytes, 730);
    ck_assert_uint_eq(got.throttled, 5);
    ck_assert_uint_eq(got.describe, 57);
    json_decref(all);
    streams_meter_free(srv.streams);
}
END_TEST

static Suite *
streams_suite(void)
{
    Suite *s = suite_create("streams");
    TCase *tc;

    tc = tcase_create("sequence");
    tcase_add_test(tc, test_seq_format_and_parse);
    suite_add_tcase(s, tc);
    tc = tcase_create("shards");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_shards_follow_partitions);
    suite_add_tcase(s, tc);
    tc = tcase_create("limits");
    tcase_add_test(tc, test_describe_rate_and_readers);
    suite_add_tcase(s, tc);
    return s;
}

int
main(void)
{
    SRunner *sr = srunner_create(streams_suite());
    int failed;

    srunner_run_all(sr, CK_ENV);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
