/* SPDX-License-Identifier: MIT */
/* history.c - GET /shardlocal/tables/{table}/history: the throttle
 * engine's last seconds of a table or GSI (throttle_history), one sample
 * per second per partition, the table's consumption against its capacity,
 * the limits and the events (splits, UpdateTable, tags), written as JSON
 * text straight into a buffer: 900 seconds of many partitions would be
 * too many jansson objects. routes.c serves it; the live view draws it. */

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/admin/admin_int.h"
#include "storage/util.h"

/* ------------------------------------------------------------------------
 * Writing JSON text
 * ---------------------------------------------------------------------- */

/* v with at most `decimals` decimals, trailing zeros cut ("10", "0.5"). */
static void
put_num(struct strbuf *b, double v, int decimals)
{
    char buf[64];
    size_t n;

    if (!isfinite(v))
        v = 0;
    n = (size_t)snprintf(buf, sizeof(buf), "%.*f", decimals, v);
    if (n >= sizeof(buf))
        n = sizeof(buf) - 1;
    if (memchr(buf, '.', n) != NULL) {
        while (n > 0 && buf[n - 1] == '0')
            n--;
        if (n > 0 && buf[n - 1] == '.')
            n--;
    }
    buf[n] = '\0';
    if (strcmp(buf, "-0") == 0)
        strcpy(buf, "0");
    strbuf_puts(b, buf);
}

/* "name": with a leading comma unless first. */
static void
put_key(struct strbuf *b, const char *name, bool first)
{
    strbuf_printf(b, "%s\"%s\":", first ? "" : ",", name);
}

/* A JSON string (any bytes jansson accepts; others as null). */
static void
put_str(struct strbuf *b, const char *s)
{
    json_t *j = s != NULL ? json_string(s) : NULL;
    char *t = j != NULL ? json_text(j, JSON_ENCODE_ANY | JSON_ENSURE_ASCII)
                        : NULL;

    strbuf_puts(b, t != NULL ? t : "null");
    free(t);
    json_decref(j);
}

/* "name": number */
static void
put_numk(struct strbuf *b, const char *name, double v, int decimals)
{
    put_key(b, name, false);
    put_num(b, v, decimals);
}

/* ------------------------------------------------------------------------
 * The parts of the answer
 * ---------------------------------------------------------------------- */

_Static_assert(THROTTLE_RING_S == 900, "ADMIN_HISTORY_SECONDS_MSG says 900");

#define UNITS 6                         /* decimals of consumed units */
#define LEVEL 3                         /* decimals of bucket levels */

static const char *const split_causes[] = {
    [THROTTLE_SPLIT_SIZE] = "size",
    [THROTTLE_SPLIT_HEAT] = "heat",
    [THROTTLE_SPLIT_THROUGHPUT] = "throughput",
};

static void
put_event(struct strbuf *b, const struct throttle_event *e)
{
    strbuf_printf(b, "{\"t\":%" PRIu64 ",\"t_ms\":%" PRIu64 ",\"kind\":",
                  e->t_ms / 1000, e->t_ms);
    switch (e->kind) {
    case THROTTLE_EV_SPLIT:
        strbuf_puts(b, "\"split\",\"partition\":");
        if (e->partition < 0)
            strbuf_puts(b, "null");
        else
            strbuf_printf(b, "%d", e->partition);
        strbuf_printf(b, ",\"cause\":\"%s\"",
                      (unsigned)e->cause < 3 ? split_causes[e->cause] : "");
        break;
    case THROTTLE_EV_UPDATE_TABLE:
        strbuf_printf(b, "\"update_table\",\"billing_mode\":\"%s\"",
                      e->on_demand ? "PAY_PER_REQUEST" : "PROVISIONED");
        if (!e->on_demand) {
            put_numk(b, "read_capacity_units", e->rcu, UNITS);
            put_numk(b, "write_capacity_units", e->wcu, UNITS);
        }
        if (e->od_max_rru > 0)
            put_numk(b, "max_read_request_units", e->od_max_rru, UNITS);
        if (e->od_max_wru > 0)
            put_numk(b, "max_write_request_units", e->od_max_wru, UNITS);
        break;
    case THROTTLE_EV_TAG:
        strbuf_puts(b, "\"tag\",\"knobs\":");
        put_str(b, e->text);
        break;
    }
    strbuf_printf(b, ",\"partitions\":%u}", e->nparts);
}

/* A sample's first members: its second, the units consumed and the
 * requests refused, write and read. */
static void
put_second(struct strbuf *b, uint64_t t, const double consumed[2],
           uint64_t thr_w, uint64_t thr_r)
{
    strbuf_printf(b, "{\"t\":%" PRIu64, t);
    put_numk(b, "consumed_wcu", consumed[THROTTLE_WRITE], UNITS);
    put_numk(b, "consumed_rcu", consumed[THROTTLE_READ], UNITS);
    strbuf_printf(b, ",\"write_throttles\":%" PRIu64 ",\"read_throttles\":%"
                  PRIu64, thr_w, thr_r);
}

static void
put_sample(struct strbuf *b, uint64_t t, const struct throttle_sample *s)
{
    put_second(b, t, s->consumed, s->throttled[THROTTLE_WRITE],
               s->throttled[THROTTLE_READ]);
    put_numk(b, "write_bucket", s->bucket[THROTTLE_WRITE], LEVEL);
    put_numk(b, "read_bucket", s->bucket[THROTTLE_READ], LEVEL);
    put_numk(b, "write_burst", s->burst[THROTTLE_WRITE], LEVEL);
    put_numk(b, "read_burst", s->burst[THROTTLE_READ], LEVEL);
    strbuf_putc(b, '}');
}

static void
put_table_sample(struct strbuf *b, uint64_t t,
                 const struct throttle_table_sample *s)
{
    put_second(b, t, s->consumed, s->throttled[THROTTLE_WRITE],
               s->throttled[THROTTLE_READ]);
    put_numk(b, "write_capacity", s->capacity[THROTTLE_WRITE], LEVEL);
    put_numk(b, "read_capacity", s->capacity[THROTTLE_READ], LEVEL);
    strbuf_putc(b, '}');
}

/* "limits": what every partition and the table run under now. */
static void
put_limits(struct strbuf *b, struct admin_src *s, uint64_t now)
{
    struct throttle_table_stats ts;
    struct throttle_part_stats ps;
    struct ddb_err e;
    json_int_t rcu, wcu;
    bool od = strcmp(admin_src_billing(s), "PAY_PER_REQUEST") == 0;

    strbuf_printf(b, ",\"limits\":{\"billing_mode\":\"%s\"",
                  admin_src_billing(s));
    admin_src_units(s, &rcu, &wcu);
    if (!od)
        strbuf_printf(b, ",\"write_provisioned\":%" JSON_INTEGER_FORMAT
                      ",\"read_provisioned\":%" JSON_INTEGER_FORMAT, wcu,
                      rcu);
    ddb_err_init(&e);
    if (s->tt != NULL && throttle_part_stats(s->tt, 0, now, &ps, &e) == 0) {
        throttle_table_stats(s->tt, now, &ts);
        put_numk(b, "write_ceiling", ps.op[THROTTLE_WRITE].ceiling, UNITS);
        put_numk(b, "read_ceiling", ps.op[THROTTLE_READ].ceiling, UNITS);
        put_numk(b, "write_ceiling_burst",
                 ps.op[THROTTLE_WRITE].ceiling_capacity, LEVEL);
        put_numk(b, "read_ceiling_burst",
                 ps.op[THROTTLE_READ].ceiling_capacity, LEVEL);
        put_numk(b, "write_capacity", ts.limit[THROTTLE_WRITE], LEVEL);
        put_numk(b, "read_capacity", ts.limit[THROTTLE_READ], LEVEL);
        if (ts.on_demand) {
            put_numk(b, "write_previous_peak", ts.peak[THROTTLE_WRITE],
                     LEVEL);
            put_numk(b, "read_previous_peak", ts.peak[THROTTLE_READ],
                     LEVEL);
        }
    }
    ddb_err_clear(&e);
    strbuf_putc(b, '}');
}

/* One partition's entry: its hash range, share and bank now, and its
 * samples (h->s row i - h->part0). */
static void
put_partition(struct strbuf *b, struct admin_src *s,
              const struct throttle_history *h, unsigned i, uint64_t now)
{
    unsigned n = stable_nparts(s->t);
    uint64_t start, end;
    struct throttle_part_stats ps;
    struct ddb_err e;

    strbuf_printf(b, "{\"partition\":%u", i);
    if (i < n) {
        start = stable_part_start(s->t, i);
        end = i + 1 < n ? stable_part_start(s->t, i + 1) - 1 : UINT64_MAX;
        strbuf_printf(b, ",\"hash_start\":\"%016" PRIx64 "\",\"hash_end\":"
                      "\"%016" PRIx64 "\"", start, end);
    }
    ddb_err_init(&e);
    if (s->tt != NULL && throttle_part_stats(s->tt, i, now, &ps, &e) == 0) {
        put_numk(b, "write_share", ps.op[THROTTLE_WRITE].share, UNITS);
        put_numk(b, "read_share", ps.op[THROTTLE_READ].share, UNITS);
        put_numk(b, "write_bucket_capacity",
                 ps.op[THROTTLE_WRITE].capacity, LEVEL);
        put_numk(b, "read_bucket_capacity", ps.op[THROTTLE_READ].capacity,
                 LEVEL);
    }
    ddb_err_clear(&e);
    strbuf_puts(b, ",\"seconds\":[");
    for (unsigned k = 0; k < h->nsec; k++) {
        if (k > 0)
            strbuf_putc(b, ',');
        put_sample(b, h->first_s + k,
                   &h->s[(size_t)(i - h->part0) * h->nsec + k]);
    }
    strbuf_puts(b, "]}");
}

/* ------------------------------------------------------------------------
 * The view
 * ---------------------------------------------------------------------- */

int
admin_history(struct admin_src *s, uint64_t now, unsigned seconds,
              long part, struct strbuf *out, struct ddb_err *err)
{
    struct throttle_history h;
    unsigned n = s->tt != NULL ? throttle_table_nparts(s->tt)
                               : stable_nparts(s->t);
    unsigned nsel = part < 0 ? n : 1;

    if (seconds < 1 || seconds > THROTTLE_RING_S)
        return ddb_err_set(err, DDB_VALIDATION, ADMIN_HISTORY_SECONDS_MSG);
    if (part >= (long)n)
        return ddb_err_set(err, DDB_VALIDATION, "partition %ld does not "
                           "exist: the table has %u partitions (0 to %u)",
                           part, n, n - 1);
    if ((uint64_t)nsel * seconds > ADMIN_HISTORY_MAX_SAMPLES)
        return ddb_err_set(err, DDB_VALIDATION, "%u partitions over %u "
                           "seconds are more than %d samples: ask for fewer "
                           "seconds or for one partition (partition=N)",
                           nsel, seconds, ADMIN_HISTORY_MAX_SAMPLES);
    memset(&h, 0, sizeof(h));
    h.part0 = part < 0 ? 0 : (unsigned)part;
    h.nsel = nsel;
    h.nparts = n;
    if (s->tt != NULL &&
        throttle_history(s->tt, now, seconds, part, &h, err) != 0)
        return -1;

    strbuf_puts(out, "{\"table\":");
    put_str(out, s->table);
    strbuf_puts(out, ",\"index\":");
    put_str(out, s->index[0] != '\0' ? s->index : NULL);
    strbuf_printf(out, ",\"now_ms\":%" PRIu64 ",\"seconds\":%u,"
                  "\"throttle_state\":%s,\"partition_count\":%u", now,
                  seconds, s->tt != NULL ? "true" : "false", h.nparts);
    put_limits(out, s, now);
    strbuf_puts(out, ",\"table_seconds\":[");
    for (unsigned k = 0; k < h.nsec; k++) {
        if (k > 0)
            strbuf_putc(out, ',');
        put_table_sample(out, h.first_s + k, &h.ts[k]);
    }
    strbuf_puts(out, "],\"partitions\":[");
    for (unsigned k = 0; k < h.nsel; k++) {
        if (k > 0)
            strbuf_putc(out, ',');
        put_partition(out, s, &h, h.part0 + k, now);
    }
    strbuf_puts(out, "],\"events\":[");
    for (size_t k = 0; k < h.nev; k++) {
        if (k > 0)
            strbuf_putc(out, ',');
        put_event(out, &h.ev[k]);
    }
    strbuf_puts(out, "]}\n");
    throttle_history_free(&h);
    return 0;
}
