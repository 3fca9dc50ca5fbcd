/* SPDX-License-Identifier: MIT */
/* partmap.c - key hash -> partition: the sorted start positions of a
 * table's partitions on the 2^64 ring (top 64 bits of key_pk_hash(pk)), with
 * the initial even layout and a binary search for lookups. */
#include <assert.h>
#include <stdlib.h>

#include "storage/storage_int.h"
#include "storage/util.h"

/*
 * Lay nparts equal ranges over the ring. Partition i starts at
 * floor(i * 2^64 / n), computed without 128-bit arithmetic: with
 * 2^64 = n*q + r (0 <= r < n), i * 2^64 / n = i*q + i*r/n, and
 * i*r < n*n < 2^64 because n < 2^32.
 */
void
partmap_init_even(struct partmap *m, unsigned nparts)
{
    uint64_t n = nparts ? nparts : 1;
    uint64_t q = UINT64_MAX / n;
    uint64_t r = UINT64_MAX % n + 1;    /* 2^64 mod n, or n */

    if (r == n) {
        q++;
        r = 0;
    }
    m->n = (unsigned)n;
    m->starts = xmalloc(n * sizeof(*m->starts));
    for (uint64_t i = 0; i < n; i++)
        m->starts[i] = i * q + i * r / n;
}

/* Take ownership of starts (n entries, ascending, starts[0] == 0). */
void
partmap_init_take(struct partmap *m, uint64_t *starts, unsigned n)
{
    assert(n >= 1 && starts[0] == 0);
    m->starts = starts;
    m->n = n;
}

void
partmap_fini(struct partmap *m)
{
    free(m->starts);
    m->starts = NULL;
    m->n = 0;
}

/* Largest i with starts[i] <= h. starts[0] == 0, so there always is one. */
unsigned
partmap_find(const struct partmap *m, uint64_t h)
{
    unsigned lo = 0, hi = m->n;         /* answer in [lo, hi) */

    while (hi - lo > 1) {
        unsigned mid = lo + (hi - lo) / 2;

        if (m->starts[mid] <= h)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

uint64_t
partmap_start(const struct partmap *m, unsigned i)
{
    assert(i < m->n);
    return m->starts[i];
}

uint64_t
partmap_end(const struct partmap *m, unsigned i)
{
    assert(i < m->n);
    return i + 1 < m->n ? m->starts[i + 1] - 1 : UINT64_MAX;
}

int64_t
partmap_to_sql(uint64_t start)
{
    uint64_t v = start ^ UINT64_C(0x8000000000000000);
    int64_t out;

    /* Two's-complement reinterpretation without implementation-defined
     * conversion. */
    if (v <= (uint64_t)INT64_MAX)
        out = (int64_t)v;
    else
        out = -(int64_t)(UINT64_MAX - v) - 1;
    return out;
}

uint64_t
partmap_from_sql(int64_t v)
{
    return (uint64_t)v ^ UINT64_C(0x8000000000000000);
}
