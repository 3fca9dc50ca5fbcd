/* SPDX-License-Identifier: MIT */
/* canned.c - the HTTP ceiling for benchmarks: a minimal libmicrohttpd
 * server with shardlocal's threading setup (thread pool + epoll) that
 * reads each request body and answers with the same canned GetItem
 * response and headers. Whatever it reaches, shardlocal cannot beat.
 *
 *   bench/canned [--port N] [--threads N] [--port-file FILE]
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

static const char canned_body[] =
    "{\"Item\":{\"pk\":{\"S\":\"k42\"},\"v\":{\"S\":\""
    "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
    "vvvvvvvvvvvvvvvvvvvvvvvvvvv\"},\"n\":{\"N\":\"42\"}}}";

/* 52 upper-case alphanumerics, like DynamoDB's. */
#define CANNED_REQUEST_ID \
    "CANNEDCANNEDCANNEDCANNEDCANNEDCANNEDCANNEDCANNEDCANN"

static char canned_crc[16];

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
    (void)upload_data;
    if (*req_cls == NULL) {             /* headers only: wait for the body */
        *req_cls = &marker;
        return MHD_YES;
    }
    if (*upload_data_size != 0) {       /* discard body chunks */
        *upload_data_size = 0;
        return MHD_YES;
    }
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
    const char *port_file = NULL;
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
        else {
            fprintf(stderr, "canned: unknown option '%s'\n", argv[i]);
            return 2;
        }
    }
    if (threads == 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);

        threads = n > 0 ? (unsigned)n : 1;
    }
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
    return 0;
}
