/* SPDX-License-Identifier: MIT */
/* history.c - what the throttling engine remembers: per partition, one
 * sample a second (consumed, refused, bucket levels) in a ring of
 * THROTTLE_RING_S seconds; per table, its capacity over the same seconds
 * and the events that changed it (splits, UpdateTable, tags). Filled as
 * time passes on the engine's clock; read by the admin API's history. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "api/throttle/throttle_int.h"
#include "storage/util.h"

/* ------------------------------------------------------------------------
 * The rings
 * ---------------------------------------------------------------------- */

/* The level of b at at_ms, in units, had nothing taken from it since its
 * last refill: what bucket_refill would find then. */
static float
level_at(const struct bucket *b, uint64_t at_ms)
{
    int64_t lv = b->level;

    if (lv >= b->cap)
        lv = b->cap;
    else if (at_ms > b->t_ms && b->rate > 0) {
        uint64_t dt = at_ms - b->t_ms;

        if (dt >= (uint64_t)((b->cap - lv) / b->rate) + 1)
            lv = b->cap;
        else
            lv = min64(b->cap, lv + b->rate * (int64_t)dt);
    }
    return (float)mu_units(lv);
}

/* Empty slot i of h: a second nothing happened in yet. */
static void
hist_clear(struct hist *h, unsigned i)
{
    for (int op = 0; op < 2; op++) {
        h->mu[op][i] = 0;
        h->rej[op][i] = 0;
        h->bank[op][i] = 0;
        h->burst[op][i] = 0;
    }
}

/*
 * Seconds h->sec .. s - 1 end (only the last RING_SLOTS of a longer gap
 * matter: the ring forgets the rest). Nothing touched the partition's
 * buckets after their last refill in those seconds (every change advances
 * the history first), so their levels at each second's end follow from
 * the refill rate alone.
 */
void
hist_advance(struct hist *h, const struct bucket bank[2],
             const struct bucket burst[2], uint64_t now_ms)
{
    uint64_t s = now_ms / 1000, k;

    if (s <= h->sec)
        return;
    k = s - h->sec > RING_SLOTS ? s - RING_SLOTS : h->sec;
    for (; k < s; k++) {
        unsigned i = (unsigned)(k % RING_SLOTS);

        if (k > h->sec)
            hist_clear(h, i);
        for (int op = 0; op < 2; op++) {
            h->bank[op][i] = level_at(&bank[op], (k + 1) * 1000);
            h->burst[op][i] = level_at(&burst[op], (k + 1) * 1000);
        }
    }
    hist_clear(h, (unsigned)(s % RING_SLOTS));
    h->sec = s;
}

void
thist_advance(struct thist *h, const struct bucket tb[2], uint64_t now_ms)
{
    uint64_t s = now_ms / 1000, k;

    if (s <= h->sec)
        return;
    k = s - h->sec > RING_SLOTS ? s - RING_SLOTS : h->sec;
    for (; k <= s; k++)
        for (int op = 0; op < 2; op++)
            h->cap[op][k % RING_SLOTS] = (float)tb[op].rate / 1000.0f;
    h->sec = s;
}

void
hist_split(const struct hist *parent, struct hist **a, struct hist **b)
{
    struct hist *x = xmalloc(sizeof(*x)), *y = xmalloc(sizeof(*y));

    *x = *parent;
    *y = *parent;
    for (int op = 0; op < 2; op++) {
        for (unsigned i = 0; i < RING_SLOTS; i++) {
            y->mu[op][i] = parent->mu[op][i] / 2;
            x->mu[op][i] = parent->mu[op][i] - y->mu[op][i];
            y->rej[op][i] = parent->rej[op][i] / 2;
            x->rej[op][i] = parent->rej[op][i] - y->rej[op][i];
            y->bank[op][i] = parent->bank[op][i] / 2;
            x->bank[op][i] = parent->bank[op][i] - y->bank[op][i];
        }
    }
    *a = x;
    *b = y;
}

/* ------------------------------------------------------------------------
 * Events
 * ---------------------------------------------------------------------- */

void
event_push(struct throttle_table *t, const struct throttle_event *ev,
           uint64_t now_ms)
{
    struct throttle_event *e = &t->ev[t->ev_n % THROTTLE_EVENTS];

    *e = *ev;
    e->t_ms = table_advance(t, NULL, now_ms);
    e->nparts = t->n;
    e->text[sizeof(e->text) - 1] = '\0';
    t->ev_n++;
}

void
throttle_event_add(struct throttle_table *t, const struct throttle_event *ev,
                   uint64_t now_ms)
{
    pthread_mutex_lock(&t->mu);
    event_push(t, ev, now_ms);
    pthread_mutex_unlock(&t->mu);
}

/* ------------------------------------------------------------------------
 * Reading a window
 * ---------------------------------------------------------------------- */

/* Copy second k of partition p into out. */
static void
sample_of(const struct tpart *p, uint64_t k, struct throttle_sample *out)
{
    unsigned i = (unsigned)(k % RING_SLOTS);

    for (int op = 0; op < 2; op++) {
        out->consumed[op] = mu_units(p->h->mu[op][i]);
        out->throttled[op] = p->h->rej[op][i];
        out->bucket[op] = p->h->bank[op][i];
        out->burst[op] = p->h->burst[op][i];
    }
}

int
throttle_history(struct throttle_table *t, uint64_t now_ms, unsigned seconds,
                 long part, struct throttle_history *out, struct ddb_err *err)
{
    uint64_t now_s, first, k;
    unsigned n;

    memset(out, 0, sizeof(*out));
    if (seconds > THROTTLE_RING_S)
        seconds = THROTTLE_RING_S;
    now_s = table_lock_all(t, now_ms) / 1000;
    n = t->n;
    if (part >= (long)n) {
        pthread_mutex_unlock(&t->mu);
        return ddb_err_set(err, DDB_INTERNAL, "throttle: no partition %ld "
                           "of %u", part, n);
    }
    /* whole seconds only: [now_s - seconds, now_s), not before the state */
    first = now_s > seconds ? now_s - seconds : 0;
    if (first < t->born_s)
        first = t->born_s;
    out->first_s = first;
    out->nsec = now_s > first ? (unsigned)(now_s - first) : 0;
    out->nparts = n;
    out->part0 = part < 0 ? 0 : (unsigned)part;
    out->nsel = part < 0 ? n : 1;
    out->s = xcalloc((size_t)out->nsel * out->nsec + 1, sizeof(*out->s));
    out->ts = xcalloc((size_t)out->nsec + 1, sizeof(*out->ts));
    for (unsigned i = 0; i < n; i++) {
        const struct tpart *p = &t->p[i];
        bool sel = i >= out->part0 && i < out->part0 + out->nsel;

        for (k = 0; k < out->nsec; k++) {
            struct throttle_sample sm;
            struct throttle_table_sample *ts = &out->ts[k];

            sample_of(p, first + k, &sm);
            if (sel)
                out->s[(size_t)(i - out->part0) * out->nsec + k] = sm;
            for (int op = 0; op < 2; op++) {
                ts->consumed[op] += sm.consumed[op];
                ts->throttled[op] += sm.throttled[op];
            }
        }
    }
    for (k = 0; k < out->nsec; k++)
        for (int op = 0; op < 2; op++)
            out->ts[k].capacity[op] =
                t->th->cap[op][(first + k) % RING_SLOTS];
    k = t->ev_n > THROTTLE_EVENTS ? t->ev_n - THROTTLE_EVENTS : 0;
    for (; k < t->ev_n; k++) {
        const struct throttle_event *e = &t->ev[k % THROTTLE_EVENTS];

        if (e->t_ms / 1000 >= first)
            out->ev[out->nev++] = *e;
    }
    pthread_mutex_unlock(&t->mu);
    return 0;
}

void
throttle_history_free(struct throttle_history *h)
{
    if (h == NULL)
        return;
    free(h->s);
    free(h->ts);
    h->s = NULL;
    h->ts = NULL;
}
