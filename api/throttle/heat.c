/* SPDX-License-Identifier: MIT */
/* heat.c - split for heat: adaptive capacity isolating frequently accessed
 * items. While a partition's ceiling keeps refusing requests, the demand
 * on it is counted by ring position (the top 64 bits of each key's hash);
 * once it has run hot for heat_split_s seconds with two or more hot keys,
 * gate.c splits it between the two hottest, each then on a partition with
 * its own ceiling (docs/throttling.md, "Split for heat"). */
#include <pthread.h>
#include <string.h>

#include "api/throttle/throttle_int.h"

void
heat_refused(struct tpart *p, uint64_t now_ms)
{
    if (p->heat.since_ms == 0)
        p->heat.since_ms = now_ms != 0 ? now_ms : 1;
}

/* Cooled down once the ceiling's burst is half back, for reads and
 * writes: the spell's counts are forgotten. */
void
heat_admitted(struct tpart *p)
{
    if (p->heat.since_ms == 0)
        return;
    for (int op = 0; op < 2; op++)
        if (p->c[op].level < p->c[op].cap / 2)
            return;
    memset(&p->heat, 0, sizeof(p->heat));
}

/* Count mu of demand at pos (space-saving over HEAT_KEYS counters: an
 * unseen position takes the smallest one's place and count). */
static void
heat_add(struct heat *h, uint64_t pos, int64_t mu)
{
    unsigned i, min = 0;

    for (i = 0; i < h->n; i++) {
        if (h->top[i].pos == pos) {
            h->top[i].mu += mu;
            return;
        }
        if (h->top[i].mu < h->top[min].mu)
            min = i;
    }
    if (h->n < HEAT_KEYS) {
        h->top[h->n].pos = pos;
        h->top[h->n].mu = mu;
        h->n++;
        return;
    }
    h->top[min].pos = pos;
    h->top[min].mu += mu;
}

/* The split point between the two hottest positions, when each has at
 * least an eighth of the demand counted; false when one key (or nothing)
 * carries the heat. */
static bool
heat_point(const struct heat *h, uint64_t *split_at)
{
    int64_t total = 0;
    unsigned a = 0, b = 1;
    uint64_t lo, hi;

    if (h->n < 2)
        return false;
    for (unsigned i = 0; i < h->n; i++)
        total += h->top[i].mu;
    if (h->top[b].mu > h->top[a].mu) {
        a = 1;
        b = 0;
    }
    for (unsigned i = 2; i < h->n; i++) {
        if (h->top[i].mu > h->top[a].mu) {
            b = a;
            a = i;
        } else if (h->top[i].mu > h->top[b].mu) {
            b = i;
        }
    }
    if (h->top[b].mu * 8 < total)
        return false;
    lo = h->top[a].pos < h->top[b].pos ? h->top[a].pos : h->top[b].pos;
    hi = h->top[a].pos < h->top[b].pos ? h->top[b].pos : h->top[a].pos;
    *split_at = lo + (hi - lo) / 2 + 1;     /* lo below it, hi at or above */
    return true;
}

bool
throttle_heat_note(struct throttle_table *t, unsigned part, uint64_t pos,
                   double need, uint64_t now_ms, uint64_t *split_at)
{
    struct tpart *p;
    bool due = false;

    pthread_mutex_lock(&t->mu);
    if (part < t->n && t->lim.heat_split_s > 0) {
        p = &t->p[part];
        if (p->heat.since_ms != 0) {
            heat_add(&p->heat, pos, need > 0 ? to_mu(need) : MU_PER_UNIT);
            due = now_ms >= p->heat.since_ms &&
                  (double)(now_ms - p->heat.since_ms) >=
                      t->lim.heat_split_s * 1000.0 &&
                  heat_point(&p->heat, split_at);
        }
    }
    pthread_mutex_unlock(&t->mu);
    return due;
}
