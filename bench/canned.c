/* SPDX-License-Identifier: MIT */
/* canned.c - the HTTP ceiling for benchmarks: a minimal libmicrohttpd
 * server with shardlocal's threading setup (thread pool + epoll) that
 * reads each request body and answers with the same canned GetItem
 * response and headers. Whatever it reaches, shardlocal cannot beat.
 *
 * With --sqlite FILE it is the HTTP+SQLite write ceiling instead: every
 * request also runs one prepared INSERT OR REPLACE of its body, under a
 * key taken from the body (at most BENCH_KEYS distinct ones), in its own
 * transaction on one connection (WAL, synchronous=NORMAL, exclusive
 * locking, SQLite's default cache and checkpoints): what one durable
 * write per request costs with nothing else, the bound for PutItem.
 *
 *   bench/canned [--port N] [--threads N] [--port-file FILE]
 *                [--sqlite FILE]
 */

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <microhttpd.h>
#include <sqlite3.h>

static const char canned_body[] =
    "{\"Item\":{\"pk\":{\"S\":\"k42\"},\"v\":{\"S\":\""
    "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
    "vvvvvvvvvvvvvvvvvvvvvvvvvvv\"},\"n\":{\"N\":\"42\"}}}";

/* 52 upper-case alphanumerics, like DynamoDB's. */
#define CANNED_REQUEST_ID \
    "CANNEDCANNEDCANNEDCANNEDCANNEDCANNEDCANNEDCANNEDCANN"

static char canned_crc[16];

/* --sqlite: the connection, its one statement and the lock around both. */
static sqlite3 *sq_db;
static sqlite3_stmt *sq_put;
static pthread_mutex_t sq_mu = PTHREAD_MUTEX_INITIALIZER;
static unsigned long sq_keys = 10000;

/* A request's body, gathered when --sqlite writes it. */
struct body {
    size_t len;
    char data[4096];                    /* the rest is cut: keys differ early */
};

/* One write of b under a key hashed from it (FNV-1a), as PutItem would. */
static int
sq_write(const struct body *b)
{
    uint64_t h = 1469598103934665603ull;
    int ok;

    for (size_t i = 0; i < b->len; i++)
        h = (h ^ (unsigned char)b->data[i]) * 1099511628211ull;
    pthread_mutex_lock(&sq_mu);
    ok = sqlite3_bind_int64(sq_put, 1, (sqlite3_int64)(h % sq_keys)) ==
             SQLITE_OK &&
         sqlite3_bind_text(sq_put, 2, b->data, (int)b->len,
                           SQLITE_STATIC) == SQLITE_OK &&
         sqlite3_step(sq_put) == SQLITE_DONE;
    sqlite3_reset(sq_put);
    pthread_mutex_unlock(&sq_mu);
    return ok;
}

static int
sq_open(const char *path)
{
    const char *keys = getenv("BENCH_KEYS");

    if (keys != NULL && strtoul(keys, NULL, 10) > 0)
        sq_keys = strtoul(keys, NULL, 10);
    if (sqlite3_open(path, &sq_db) != SQLITE_OK ||
        sqlite3_exec(sq_db, "PRAGMA locking_mode=EXCLUSIVE;"
                            "PRAGMA journal_mode=WAL;"
                            "PRAGMA synchronous=NORMAL;"
                            "CREATE TABLE IF NOT EXISTS kv (k INTEGER "
                            "PRIMARY KEY, v TEXT NOT NULL)",
                     NULL, NULL, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(sq_db, "INSERT OR REPLACE INTO kv (k, v) "
                                  "VALUES (?1, ?2)",
                           -1, &sq_put, NULL) != SQLITE_OK) {
        fprintf(stderr, "canned: %s: %s\n", path, sqlite3_errmsg(sq_db));
        return -1;
    }
    return 0;
}

static void
done_cb(void *cls, struct MHD_Connection *conn, void **req_cls,
        enum MHD_RequestTerminationCode toe)
{
    (void)cls;
    (void)conn;
    (void)toe;
    if (sq_db != NULL)
        free(*req_cls);
    *req_cls = NULL;
}

/* CRC-32 (IEEE, as zlib's crc32()), bitwise: computed once at start. */
static uint32_t
crc32_ieee(const unsigned char *p, size_t n)
{
    uint32_t c = 0xFFFFFFFFu;
    size_t i;
    int k;

    for (i = 0; i < n; i++) {
        c ^= p[i];
        for (k = 0; k < 8; k++)
            c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
    }
    return c ^ 0xFFFFFFFFu;
}

static enum MHD_Result
access_cb(void *cls, struct MHD_Connection *conn, const char *url,
          const char *method, const char *version, const char *upload_data,
          size_t *upload_data_size, void **req_cls)
{
    static int marker;
    struct MHD_Response *resp;
    enum MHD_Result ret;

    (void)cls;
    (void)url;
    (void)method;
    (void)version;
    if (*req_cls == NULL) {             /* headers only: wait for the body */
        *req_cls = sq_db != NULL ? calloc(1, sizeof(struct body)) : &marker;
        return *req_cls != NULL ? MHD_YES : MHD_NO;
    }
    if (*upload_data_size != 0) {       /* discard body chunks, or keep */
        if (sq_db != NULL) {
            struct body *b = *req_cls;
            size_t n = *upload_data_size;

            if (n > sizeof(b->data) - b->len)
                n = sizeof(b->data) - b->len;
            memcpy(b->data + b->len, upload_data, n);
            b->len += n;
        }
        *upload_data_size = 0;
        return MHD_YES;
    }
    if (sq_db != NULL && !sq_write(*req_cls))
        return MHD_NO;
    resp = MHD_create_response_from_buffer(sizeof(canned_body) - 1,
                                           (void *)canned_body,
                                           MHD_RESPMEM_PERSISTENT);
    if (resp == NULL)
        return MHD_NO;
    MHD_add_response_header(resp, "Content-Type",
                            "application/x-amz-json-1.0");
    MHD_add_response_header(resp, "x-amzn-RequestId", CANNED_REQUEST_ID);
    MHD_add_response_header(resp, "x-amz-crc32", canned_crc);
    ret = MHD_queue_response(conn, MHD_HTTP_OK, resp);
    MHD_destroy_response(resp);
    return ret;
}

int
main(int argc, char **argv)
{
    unsigned port = 8001, threads = 0;
    const char *port_file = NULL, *sqlite_path = NULL;
    struct MHD_Daemon *d;
    struct sockaddr_in sa;
    const union MHD_DaemonInfo *info;
    sigset_t set;
    int i, sig;

    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--port") == 0 && i + 1 < argc)
            port = (unsigned)strtoul(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc)
            threads = (unsigned)strtoul(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--port-file") == 0 && i + 1 < argc)
            port_file = argv[++i];
        else if (strcmp(argv[i], "--sqlite") == 0 && i + 1 < argc)
            sqlite_path = argv[++i];
        else {
            fprintf(stderr, "canned: unknown option '%s'\n", argv[i]);
            return 2;
        }
    }
    if (threads == 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);

        threads = n > 0 ? (unsigned)n : 1;
    }
    if (sqlite_path != NULL && sq_open(sqlite_path) != 0)
        return 1;
    snprintf(canned_crc, sizeof(canned_crc), "%lu",
             (unsigned long)crc32_ieee((const unsigned char *)canned_body,
                                       sizeof(canned_body) - 1));

    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    signal(SIGPIPE, SIG_IGN);

    memset(&sa, 0, sizeof(sa));
    sa.sin_family = AF_INET;
    sa.sin_port = htons((uint16_t)port);
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    d = MHD_start_daemon(MHD_USE_EPOLL_INTERNAL_THREAD | MHD_USE_ERROR_LOG,
                         (uint16_t)port, NULL, NULL, access_cb, NULL,
                         MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa,
                         MHD_OPTION_THREAD_POOL_SIZE, threads,
                         MHD_OPTION_CONNECTION_LIMIT, (unsigned)4096,
                         MHD_OPTION_NOTIFY_COMPLETED, done_cb, NULL,
                         MHD_OPTION_END);
    if (d == NULL) {
        fprintf(stderr, "canned: cannot listen on port %u\n", port);
        return 1;
    }
    info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
    if (info != NULL)
        port = info->port;
    if (port_file != NULL) {
        FILE *f = fopen(port_file, "w");

        if (f != NULL) {
            fprintf(f, "%u\n", port);
            fclose(f);
        }
    }
    fprintf(stderr, "canned: listening on port %u (%u threads)\n", port,
            threads);
    sigwait(&set, &sig);
    MHD_stop_daemon(d);
    if (sq_db != NULL) {
        sqlite3_finalize(sq_put);
        sqlite3_close(sq_db);
    }
    return 0;
}
