/* SPDX-License-Identifier: MIT */
/* vector.c - the vector index benchmark: N vectors of D dimensions built
 * into the HNSW graph large vector index partitions use (api/vector/
 * hnsw.c, with the server's parameters), then Q searches of the TopK
 * nearest timed and checked against exact search: build time, memory,
 * p50/p99 latency of both, recall. bench/vector.sh runs it.
 *
 * The vectors look like embeddings: a low-rank signal (-l latent
 * dimensions, default 64) plus a little noise in every dimension, the
 * queries drawn the same way. Uniform random vectors in hundreds of
 * dimensions have no meaningful nearest neighbours, and no approximate
 * index does well on them.
 *
 * Usage: bench/vector [-n 100000] [-d 768] [-q 200] [-k 10] [-l 64]
 *                     [-m cosine|euclidean|dot] [-s SEED] [-e EF,EF...] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "api/vector/vector_int.h"

static uint64_t rng = 1;

static double
gauss(void)
{
    double u, v;

    rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
    u = ((double)(rng >> 11) + 1.0) / 9007199254740993.0;
    rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
    v = (double)(rng >> 11) / 9007199254740992.0;
    return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

static double
now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Resident memory of this process, in MB. */
static double
rss_mb(void)
{
    char line[256];
    double kb = 0;
    FILE *f = fopen("/proc/self/status", "r");

    while (f != NULL && fgets(line, sizeof(line), f) != NULL)
        if (strncmp(line, "VmRSS:", 6) == 0)
            kb = atof(line + 6);
    if (f != NULL)
        fclose(f);
    return kb / 1024.0;
}

/* rows of dim floats: basis (dim x latent) times a random latent vector,
 * plus noise. */
static void
fill(float *v, size_t rows, size_t dim, const float *basis, size_t latent)
{
    double *z = malloc(latent * sizeof(double)), s;
    size_t i, j, l;

    for (i = 0; i < rows; i++) {
        for (l = 0; l < latent; l++)
            z[l] = gauss();
        for (j = 0; j < dim; j++) {
            s = 0;
            for (l = 0; l < latent; l++)
                s += basis[j * latent + l] * z[l];
            v[i * dim + j] = (float)(s + 0.05 * gauss());
        }
    }
    free(z);
}

static int
cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

static double
percentile(double *v, size_t n, double p)
{
    qsort(v, n, sizeof(*v), cmp_double);
    return v[(size_t)(p * (double)(n - 1) + 0.5)];
}

int
main(int argc, char **argv)
{
    size_t n = 100000, dim = 768, nq = 200, k = 10, latent = 64;
    enum vec_metric m = VEC_COSINE;
    float *vec, *inv, *q, *basis;
    double t0, build, rss0, rss1, *lat, *elat, hits = 0, visited = 0;
    clock_t cpu;
    struct vec_hit *got, *want;
    struct vec_topk top;
    struct vec_rows rows;
    struct hnsw *g;
    size_t i, j, c, ng, nv, e, nef = 0, efs[8];
    char *tok;
    int opt;

    while ((opt = getopt(argc, argv, "n:d:q:k:l:m:s:e:h")) != -1) {
        switch (opt) {
        case 'n': n = strtoul(optarg, NULL, 10); break;
        case 'd': dim = strtoul(optarg, NULL, 10); break;
        case 'q': nq = strtoul(optarg, NULL, 10); break;
        case 'k': k = strtoul(optarg, NULL, 10); break;
        case 'l': latent = strtoul(optarg, NULL, 10); break;
        case 's': rng = strtoull(optarg, NULL, 10); break;
        case 'e':
            for (tok = strtok(optarg, ","); tok != NULL && nef < 8;
                 tok = strtok(NULL, ","))
                efs[nef++] = strtoul(tok, NULL, 10);
            break;
        case 'm':
            m = strcmp(optarg, "euclidean") == 0 ? VEC_EUCLIDEAN
                : strcmp(optarg, "dot") == 0     ? VEC_DOT
                                                 : VEC_COSINE;
            break;
        default:
            fprintf(stderr, "usage: %s [-n N] [-d DIM] [-q QUERIES] "
                    "[-k TOPK] [-l LATENT] [-m cosine|euclidean|dot] "
                    "[-s SEED]\n", argv[0]);
            return 2;
        }
    }
    if (n == 0 || dim == 0 || nq == 0 || k == 0 || latent == 0)
        return 2;
    /* The server's candidate list is always among those measured. */
    for (e = 0; e < nef && efs[e] != vector_search_ef(k, n); e++)
        ;
    if (e == nef && nef < 8)
        efs[nef++] = vector_search_ef(k, n);
    basis = malloc(dim * latent * sizeof(float));
    for (i = 0; i < dim * latent; i++)
        basis[i] = (float)(gauss() / sqrt((double)latent));
    rss0 = rss_mb();
    vec = malloc(n * dim * sizeof(float));
    inv = malloc(n * sizeof(float));
    q = malloc(nq * dim * sizeof(float));
    fill(vec, n, dim, basis, latent);
    fill(q, nq, dim, basis, latent);
    for (i = 0; i < n; i++)
        inv[i] = vec_inv_norm(vec + i * dim, dim);
    printf("vectors      %zu x %zu (latent %zu), %s, TopK %zu\n", n, dim,
           latent, m == VEC_COSINE ? "COSINE" :
           m == VEC_EUCLIDEAN ? "EUCLIDEAN" : "DOT_PRODUCT", k);
    fflush(stdout);

    rows.vec = &vec;
    rows.inv = &inv;
    rows.dim = dim;
    rows.metric = m;
    g = hnsw_new(&rows, HNSW_M, HNSW_EFC, 0x5eed);
    t0 = now_s();
    cpu = clock();
    for (i = 0; i < n; i++)
        hnsw_add(g, (uint32_t)i);
    build = now_s() - t0;
    cpu = clock() - cpu;
    rss1 = rss_mb();
    /* CPU time beside the wall clock: on a shared machine the wall clock
     * measures the neighbours too. */
    printf("build        %.1f s, CPU %.1f s (%.0f vectors/s of CPU, M %d, "
           "efConstruction %d)\n", build, (double)cpu / CLOCKS_PER_SEC,
           (double)n * CLOCKS_PER_SEC / (double)(cpu ? cpu : 1), HNSW_M,
           HNSW_EFC);
    printf("memory       vectors %.1f MB, graph %.1f MB, process RSS "
           "+%.1f MB\n", (double)n * dim * 4 / 1048576.0,
           (double)hnsw_bytes(g) / 1048576.0, rss1 - rss0);
    fflush(stdout);

    lat = malloc(nq * sizeof(double));
    elat = malloc(nq * sizeof(double));
    got = malloc(k * sizeof(*got));
    want = malloc(nq * k * sizeof(*want));
    for (i = 0; i < nq; i++) {
        const float *qv = q + i * dim;
        float iq = vec_inv_norm(qv, dim);

        t0 = now_s();
        vec_topk_init(&top, k);
        for (j = 0; j < n; j++)
            vec_topk_offer(&top, (uint32_t)j,
                           vec_dist(m, qv, iq, vec + j * dim, inv[j], dim));
        vec_topk_take(&top, want + i * k);
        vec_topk_fini(&top);
        elat[i] = (now_s() - t0) * 1000.0;
    }
    printf("exact search p50 %.3f ms, p99 %.3f ms\n",
           percentile(elat, nq, 0.50), percentile(elat, nq, 0.99));
    for (e = 0; e < nef; e++) {
        hits = visited = 0;
        for (i = 0; i < nq; i++) {
            const float *qv = q + i * dim;

            t0 = now_s();
            ng = hnsw_search(g, qv, vec_inv_norm(qv, dim), k, efs[e], NULL,
                             NULL, got, &nv);
            lat[i] = (now_s() - t0) * 1000.0;
            visited += (double)nv;
            for (j = 0; j < ng; j++)
                for (c = 0; c < k; c++)
                    hits += got[j].slot == want[i * k + c].slot;
        }
        printf("graph search ef %zu: p50 %.3f ms, p99 %.3f ms, %.0f "
               "distances/query, recall@%zu %.4f over %zu queries%s\n",
               efs[e], percentile(lat, nq, 0.50), percentile(lat, nq, 0.99),
               visited / (double)nq, k, hits / (double)(nq * k), nq,
               efs[e] == vector_search_ef(k, n) ? " (the server's)" : "");
    }
    hnsw_free(g);
    free(vec);
    free(inv);
    free(q);
    free(basis);
    free(lat);
    free(elat);
    free(got);
    free(want);
    return 0;
}
