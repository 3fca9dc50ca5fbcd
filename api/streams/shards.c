/* SPDX-License-Identifier: MIT */
/* shards.c - a stream's shards as a view of its table's change log
 * (docs/design.md): one shard per partition whose lifetime overlaps the
 * stream's, a split's children naming their parent, ranges of sequence
 * numbers between the log's markers; and sequence numbers in DynamoDB's
 * digit form. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/streams/streams.h"

/* ------------------------------------------------------------------------
 * Sequence numbers
 * ---------------------------------------------------------------------- */

/* DynamoDB's are decimal digits, 21 to 40 of them ("300000000000000499659"
 * in the API reference's GetRecords example), that clients compare as
 * numbers (the KCL's BigInteger; Alternator issue #7424). */
void
streams_seq_format(uint64_t seq, char out[STREAMS_SEQ_LEN + 1])
{
    snprintf(out, STREAMS_SEQ_LEN + 1, "1%020llu", (unsigned long long)seq);
}

bool
streams_seq_parse(const char *text, uint64_t *seq)
{
    uint64_t v = 0;

    if (text == NULL || strlen(text) != STREAMS_SEQ_LEN || text[0] != '1')
        return false;
    for (const char *p = text + 1; *p != '\0'; p++) {
        if (*p < '0' || *p > '9' || v > (UINT64_MAX - 9) / 10)
            return false;
        v = v * 10 + (uint64_t)(*p - '0');
    }
    *seq = v;
    return true;
}

/* ------------------------------------------------------------------------
 * Shards
 * ---------------------------------------------------------------------- */

/* The overlap of partition p's lifetime with stream s's, [*first, *last]
 * (last 0: open); false when they do not overlap. Markers are distinct
 * numbers, so an overlap is never empty. */
static bool
overlap(const struct spart *p, const struct tables_stream *s,
        uint64_t *first, uint64_t *last)
{
    uint64_t lo = p->born_seq > s->start ? p->born_seq : s->start;
    uint64_t hi = p->end_seq;

    if (s->end != 0 && (hi == 0 || s->end < hi))
        hi = s->end;
    if (hi != 0 && hi <= lo)
        return false;
    *first = lo;
    *last = hi;
    return true;
}

/* DynamoDB's shard ids look like "shardId-00000001414562045508-2bac9cd2":
 * a 20-digit number (a time in ms) and 8 hex digits. Ours: the shard's
 * birth (the later of the partition's and the stream's, strictly
 * increasing along a lineage) and the top 32 bits of the partition's
 * first ring position, unique among partitions born together (siblings
 * and a new table's partitions, whose ranges are disjoint), so ids are
 * unique in a stream and sort parents first, then in ring order. */
static void
shard_id(const struct spart *p, const struct tables_stream *s, char *out)
{
    uint64_t born = p->born_ms > s->ms ? p->born_ms : s->ms;

    snprintf(out, STREAMS_SHARD_ID_LEN + 1, "shardId-%020llu-%08x",
             (unsigned long long)born, (unsigned)(p->start >> 32));
}

static int
shard_cmp(const void *a, const void *b)
{
    return strcmp(((const struct streams_shard *)a)->id,
                  ((const struct streams_shard *)b)->id);
}

int
streams_shards(const struct tables_stream *s, struct streams_shard **out,
               size_t *n, struct ddb_err *err)
{
    struct spart *h = NULL;
    struct streams_shard *sh;
    size_t nh = 0, m = 0;
    int rc = -1;

    *out = NULL;
    *n = 0;
    if (stable_part_history(s->t, &h, &nh, err) != 0)
        return -1;
    sh = xcalloc(nh ? nh : 1, sizeof(*sh));
    for (size_t i = 0; i < nh; i++) {
        uint64_t first, last;

        if (!overlap(&h[i], s, &first, &last))
            continue;
        shard_id(&h[i], s, sh[m].id);
        sh[m].start = h[i].start;
        sh[m].first = first;
        sh[m].last = last;
        /* the parent is listed when its own shard is in this stream */
        for (size_t j = 0; h[i].parent[0] != '\0' && j < nh; j++) {
            uint64_t f, l;

            if (strcmp(h[j].id, h[i].parent) == 0 &&
                overlap(&h[j], s, &f, &l))
                shard_id(&h[j], s, sh[m].parent);
        }
        m++;
    }
    qsort(sh, m, sizeof(*sh), shard_cmp);
    *out = sh;
    *n = m;
    rc = 0;
    free(h);
    return rc;
}

const struct streams_shard *
streams_shard_find(const struct streams_shard *shards, size_t n,
                   const char *id)
{
    struct streams_shard key;

    if (id == NULL || strlen(id) > STREAMS_SHARD_ID_LEN)
        return NULL;
    snprintf(key.id, sizeof(key.id), "%s", id);
    return bsearch(&key, shards, n, sizeof(*shards), shard_cmp);
}
