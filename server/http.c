/* SPDX-License-Identifier: MIT */
/* http.c - the HTTP front end. libmicrohttpd (thread pool + epoll) calls
 * access_cb() per request; we buffer the body (16 MB cap), route on method
 * and path, and hand POST / to api_dispatch() (DynamoDB's JSON 1.0
 * protocol) with the caller's credential scope. */

#include <arpa/inet.h>
#include <netdb.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <microhttpd.h>
#include <zlib.h>

#include "api/admin/admin.h"
#include "api/api.h"
#include "server/http.h"
#include "storage/util.h"

#define HTTP_BODY_MAX      (16u * 1024u * 1024u)   /* DynamoDB's 16 MB */
#define HTTP_TARGET_PREFIX "DynamoDB_20120810."
#define HTTP_JSON_TYPE     "application/x-amz-json-1.0"
#define HTTP_STOP_WAIT_MS  10000         /* drain in-flight requests */

struct http_server {
    struct MHD_Daemon *d;
    struct api_server *srv;             /* borrowed */
    const struct conf *conf;            /* borrowed */
    unsigned port;
    atomic_uint inflight;               /* requests between start and done */
};

/* Per-request state: MHD's *req_cls, freed in completed_cb(). */
struct http_req {
    char *body;                         /* owned, NUL-terminated */
    size_t len, cap;
    bool too_large;                     /* body over HTTP_BODY_MAX */
    bool answered;                      /* a response was already queued */
    const char *url;                    /* borrowed from MHD while routing */
};

/* A reply being built: the body is malloc'd and handed to MHD. */
struct reply {
    unsigned status;
    char *body;                         /* owned until sent */
    size_t len;
    const char *content_type;           /* static string */
};

/* ------------------------------------------------------------------------
 * Helpers
 * ---------------------------------------------------------------------- */

/* 52 upper-case alphanumerics, like DynamoDB's x-amzn-RequestId. out must
 * hold 53 bytes. A per-thread xorshift seeded from getrandom(). */
static void
request_id(char out[53])
{
    static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    static _Thread_local uint64_t state;
    int i;

    if (state == 0) {
        if (getrandom(&state, sizeof(state), 0) != sizeof(state))
            state = wall_ms() ^ (uint64_t)(uintptr_t)&state;
        if (state == 0)
            state = 0x9E3779B97F4A7C15ull;
    }
    for (i = 0; i < 52; i++) {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        out[i] = alphabet[(state >> 32) % 36];
    }
    out[52] = '\0';
}

/* Fill r from an api/ reply (its body taken). */
static void
reply_take(struct reply *r, struct api_reply *ar)
{
    r->status = ar->status;
    r->body = ar->body;
    r->len = ar->len;
}

/* Fill r with the wire form of err (borrowed). */
static void
reply_error(struct reply *r, const struct ddb_err *err)
{
    struct api_reply ar;

    api_reply_error(&ar, err);
    reply_take(r, &ar);
}

static void
reply_error_type(struct reply *r, enum ddb_errtype type, const char *msg)
{
    struct ddb_err err;

    ddb_err_init(&err);
    ddb_err_set(&err, type, "%s", msg != NULL ? msg : "");
    reply_error(r, &err);
}

/*
 * Queue r on conn with DynamoDB's headers: Content-Type, x-amzn-RequestId
 * and x-amz-crc32 (decimal CRC-32 of the exact body bytes). MHD adds Date
 * and Content-Length. Takes r->body.
 */
static enum MHD_Result
send_reply(struct MHD_Connection *conn, struct reply *r)
{
    struct MHD_Response *resp;
    char rid[53], crc[16];
    enum MHD_Result ret;
    uLong c;

    if (r->body == NULL) {
        r->body = xmalloc(1);
        r->len = 0;
    }
    c = crc32(0L, (const Bytef *)r->body, (uInt)r->len);
    {                                   /* "%lu", without stdio */
        char tmp[16];
        size_t i = sizeof(tmp), n;
        unsigned long v = (unsigned long)c;

        do {
            tmp[--i] = (char)('0' + v % 10);
            v /= 10;
        } while (v != 0);
        n = sizeof(tmp) - i;
        memcpy(crc, tmp + i, n);
        crc[n] = '\0';
    }
    request_id(rid);
    resp = MHD_create_response_from_buffer(r->len, r->body,
                                           MHD_RESPMEM_MUST_FREE);
    if (resp == NULL) {
        free(r->body);
        r->body = NULL;
        return MHD_NO;
    }
    r->body = NULL;                     /* MHD owns it now */
    MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE,
                            r->content_type ? r->content_type
                                            : HTTP_JSON_TYPE);
    MHD_add_response_header(resp, "x-amzn-RequestId", rid);
    MHD_add_response_header(resp, "x-amz-crc32", crc);
    ret = MHD_queue_response(conn, r->status, resp);
    MHD_destroy_response(resp);
    return ret;
}

/* Case-insensitive header lookup (MHD compares names without case). */
static const char *
header(struct MHD_Connection *conn, const char *name)
{
    return MHD_lookup_connection_value(conn, MHD_HEADER_KIND, name);
}

/*
 * Pull the access key and region out of a SigV4 Authorization header:
 * "AWS4-HMAC-SHA256 Credential=AKID/20250101/us-east-1/dynamodb/aws4_request,
 * SignedHeaders=..., Signature=...". Leaves the outputs untouched when the
 * scope is missing or malformed.
 */
static void
parse_credential(const char *auth, char *akid, size_t akid_sz, char *region,
                 size_t region_sz)
{
    const char *p = strstr(auth, "Credential="), *end, *s1, *s2, *s3;

    if (p == NULL)
        return;
    p += strlen("Credential=");
    end = p + strcspn(p, ", ");
    s1 = memchr(p, '/', (size_t)(end - p));
    if (s1 == NULL)
        return;
    s2 = memchr(s1 + 1, '/', (size_t)(end - s1 - 1));
    if (s2 == NULL)
        return;
    s3 = memchr(s2 + 1, '/', (size_t)(end - s2 - 1));
    if (s3 == NULL)
        return;
    if ((size_t)(s1 - p) < akid_sz) {
        memcpy(akid, p, (size_t)(s1 - p));
        akid[s1 - p] = '\0';
    }
    if (s3 - s2 - 1 > 0 && (size_t)(s3 - s2 - 1) < region_sz) {
        memcpy(region, s2 + 1, (size_t)(s3 - s2 - 1));
        region[s3 - s2 - 1] = '\0';
    }
}

/* ------------------------------------------------------------------------
 * Routes. Each fills a reply; route() picks one by method and path. Admin
 * paths (/shardlocal/...) and GET /metrics slot into routes[] below.
 * ---------------------------------------------------------------------- */

typedef void route_fn(struct http_server *h, struct MHD_Connection *conn,
                      struct http_req *rq, struct reply *r);

/* GET /: DynamoDB's health check answer (trailing space included). */
static void
route_health(struct http_server *h, struct MHD_Connection *conn,
             struct http_req *rq, struct reply *r)
{
    char buf[128];
    int n;

    (void)conn;
    (void)rq;
    n = snprintf(buf, sizeof(buf), "healthy: dynamodb.%s.amazonaws.com ",
                 h->conf->default_region);
    r->status = 200;
    r->body = xmalloc((size_t)n + 1);
    memcpy(r->body, buf, (size_t)n + 1);
    r->len = (size_t)n;
    r->content_type = "text/plain";
}

/*
 * POST /: one DynamoDB API call. A body that is not JSON by its
 * Content-Type gets DynamoDB's 404; everything else is api_dispatch()'s,
 * with the caller's access key and region from the SigV4 credential
 * scope.
 */
static void
route_api(struct http_server *h, struct MHD_Connection *conn,
          struct http_req *rq, struct reply *r)
{
    const char *auth, *ctype;
    char akid[128] = "", region[64];
    struct api_call call;
    struct api_reply ar;

    ctype = header(conn, MHD_HTTP_HEADER_CONTENT_TYPE);
    if (ctype != NULL) {
        size_t n = strcspn(ctype, "; \t");

        if (n == strlen("application/json") &&
            strncasecmp(ctype, "application/json", n) == 0)
            r->content_type = "application/json";
        else if (rq->len > 0 && !(n == strlen(HTTP_JSON_TYPE) &&
                                  strncasecmp(ctype, HTTP_JSON_TYPE, n) == 0)) {
            reply_error_type(r, DDB_HTTP_NOT_FOUND, NULL);
            return;
        }
    } else if (rq->len > 0) {
        reply_error_type(r, DDB_HTTP_NOT_FOUND, NULL);
        return;
    }

    auth = header(conn, MHD_HTTP_HEADER_AUTHORIZATION);
    {                                   /* snprintf "%s", without stdio */
        size_t n = strlen(h->conf->default_region);

        if (n >= sizeof(region))
            n = sizeof(region) - 1;
        memcpy(region, h->conf->default_region, n);
        region[n] = '\0';
    }
    call.signed_v4 = auth != NULL &&
                     strncmp(auth + strspn(auth, " \t"), "AWS4-", 5) == 0;
    if (call.signed_v4)
        parse_credential(auth, akid, sizeof(akid), region, sizeof(region));
    call.target = header(conn, "X-Amz-Target");
    call.body = rq->body;
    call.len = rq->len;
    call.region = region;
    call.access_key = akid;
    call.host = header(conn, MHD_HTTP_HEADER_HOST);
    api_dispatch(h->srv, &call, &ar);
    if (h->conf->log_level >= LOG_DEBUG)
        fprintf(stderr, "shardlocal: %s %u %.*s\n",
                ar.op != NULL ? ar.op : "-", ar.status,
                ar.status != 200 ? (int)ar.len : 0,
                ar.body != NULL ? ar.body : "");
    reply_take(r, &ar);
}

/*
 * An admin call answered by fn (api.h: admin_clock, admin_faults):
 * the body, if any, is a JSON object; the reply is JSON, or a
 * ValidationException (400).
 */
static void
route_admin_call(struct http_req *rq, struct reply *r, bool post,
                 int (*fn)(struct api_server *, bool, const json_t *,
                           json_t **, struct ddb_err *),
                 struct http_server *h)
{
    struct ddb_err err;
    json_t *req = NULL, *resp = NULL;
    json_error_t jerr;

    ddb_err_init(&err);
    if (rq->len > 0) {
        req = json_loadb(rq->body, rq->len, 0, &jerr);
        if (req == NULL) {
            reply_error_type(r, DDB_SERIALIZATION, NULL);
            return;
        }
    }
    if (fn(h->srv, post, req, &resp, &err) != 0) {
        reply_error(r, &err);
    } else {
        struct api_reply ar;

        api_reply_json(&ar, 200, resp);
        reply_take(r, &ar);
    }
    json_decref(resp);
    json_decref(req);
    ddb_err_clear(&err);
}

/* GET/POST /shardlocal/clock: the virtual clock (throttling tests). */
static void
route_clock(struct http_server *h, struct MHD_Connection *conn,
            struct http_req *rq, struct reply *r)
{
    (void)conn;
    route_admin_call(rq, r, rq->len > 0, admin_clock, h);
}

/* GET/POST /shardlocal/faults: fault-injection rules. */
static void
route_faults(struct http_server *h, struct MHD_Connection *conn,
             struct http_req *rq, struct reply *r)
{
    (void)conn;
    route_admin_call(rq, r, rq->len > 0, admin_faults, h);
}

/* Query-string lookup for admin_get(). */
static const char *
admin_arg(void *cls, const char *name)
{
    return MHD_lookup_connection_value(cls, MHD_GET_ARGUMENT_KIND, name);
}

static void
reply_admin(struct reply *r, struct admin_reply *ar)
{
    r->status = ar->status;
    r->body = ar->body;                 /* taken */
    r->len = ar->len;
    r->content_type = ar->content_type;
}

/* GET /shardlocal[/...]: the admin API and the live view (api/admin/). */
static void
route_admin(struct http_server *h, struct MHD_Connection *conn,
            struct http_req *rq, struct reply *r)
{
    struct admin_reply ar;

    admin_get(h->srv, rq->url != NULL ? rq->url : "", admin_arg, conn, &ar);
    reply_admin(r, &ar);
}

/* GET /metrics: Prometheus text with CloudWatch's metric names. */
static void
route_metrics(struct http_server *h, struct MHD_Connection *conn,
              struct http_req *rq, struct reply *r)
{
    struct admin_reply ar;

    (void)conn;
    (void)rq;
    admin_metrics(h->srv, &ar);
    reply_admin(r, &ar);
}

static const struct route {
    const char *method;
    const char *path;
    bool prefix;                        /* match path as a prefix */
    route_fn *fn;
} routes[] = {
    { "POST", "/", false, route_api },
    { "GET",  "/", false, route_health },
    { "GET",  "/shardlocal/clock", false, route_clock },
    { "POST", "/shardlocal/clock", false, route_clock },
    { "GET",  "/shardlocal/faults", false, route_faults },
    { "POST", "/shardlocal/faults", false, route_faults },
    { "GET",  "/metrics", false, route_metrics },
    { "GET",  "/shardlocal", false, route_admin },
    { "GET",  "/shardlocal/", true, route_admin },  /* after the exact ones */
};

/* Pick the route for method and url; NULL means 404. */
static const struct route *
route(const char *method, const char *url)
{
    size_t i, n = strcspn(url, "?");

    for (i = 0; i < sizeof(routes) / sizeof(routes[0]); i++) {
        const struct route *rt = &routes[i];
        size_t plen = strlen(rt->path);

        if (strcmp(method, rt->method) != 0)
            continue;
        if (rt->prefix ? (n >= plen && strncmp(url, rt->path, plen) == 0)
                       : (n == plen && strncmp(url, rt->path, n) == 0))
            return rt;
    }
    return NULL;
}

/* ------------------------------------------------------------------------
 * MHD callbacks
 * ---------------------------------------------------------------------- */

/*
 * MHD's access handler, called several times per request: first with
 * *req_cls == NULL (allocate state; refuse a Content-Length over 16 MB
 * before reading any of it), then once per body chunk (append), and last
 * with *upload_data_size == 0 (route and answer).
 */
static enum MHD_Result
access_cb(void *cls, struct MHD_Connection *conn, const char *url,
          const char *method, const char *version, const char *upload_data,
          size_t *upload_data_size, void **req_cls)
{
    struct http_server *h = cls;
    struct http_req *rq = *req_cls;
    struct reply r = { 0, NULL, 0, NULL };
    const struct route *rt;

    (void)version;
    if (rq == NULL) {
        const char *cl = header(conn, MHD_HTTP_HEADER_CONTENT_LENGTH);

        rq = xmalloc(sizeof(*rq));
        memset(rq, 0, sizeof(*rq));
        *req_cls = rq;
        atomic_fetch_add(&h->inflight, 1);
        if (cl != NULL) {
            unsigned long long n = strtoull(cl, NULL, 10);

            if (n > HTTP_BODY_MAX) {
                /* Answer now, without reading the body; MHD then closes
                 * the connection. */
                rq->too_large = true;
                rq->answered = true;
                reply_error_type(&r, DDB_REQUEST_TOO_LARGE,
                                 "Request entity too large");
                return send_reply(conn, &r);
            }
            if (n > 0) {
                rq->cap = (size_t)n + 1;
                rq->body = xmalloc(rq->cap);
            }
        }
        return MHD_YES;
    }
    if (*upload_data_size != 0) {
        size_t n = *upload_data_size;

        *upload_data_size = 0;
        if (rq->too_large || rq->len + n > HTTP_BODY_MAX) {
            rq->too_large = true;       /* keep draining, answer at the end */
            return MHD_YES;
        }
        if (rq->len + n + 1 > rq->cap) {
            size_t cap = rq->cap ? rq->cap : 4096;
            char *nb;

            while (cap < rq->len + n + 1)
                cap *= 2;
            nb = xrealloc(rq->body, cap);
            rq->body = nb;
            rq->cap = cap;
        }
        memcpy(rq->body + rq->len, upload_data, n);
        rq->len += n;
        rq->body[rq->len] = '\0';
        return MHD_YES;
    }
    if (rq->answered)
        return MHD_YES;
    rq->answered = true;
    if (rq->too_large) {
        reply_error_type(&r, DDB_REQUEST_TOO_LARGE,
                         "Request entity too large");
        return send_reply(conn, &r);
    }
    rt = route(method, url);
    rq->url = url;
    if (rt == NULL)
        reply_error_type(&r, DDB_HTTP_NOT_FOUND, NULL);
    else
        rt->fn(h, conn, rq, &r);
    return send_reply(conn, &r);
}

/* Free the per-request state once MHD is done with the request. */
static void
completed_cb(void *cls, struct MHD_Connection *conn, void **req_cls,
             enum MHD_RequestTerminationCode toe)
{
    struct http_server *h = cls;
    struct http_req *rq = *req_cls;

    (void)conn;
    (void)toe;
    if (rq == NULL)
        return;
    free(rq->body);
    free(rq);
    *req_cls = NULL;
    atomic_fetch_sub(&h->inflight, 1);
}

/* ------------------------------------------------------------------------
 * Server lifecycle
 * ---------------------------------------------------------------------- */

/*
 * Start listening on c->host:c->port with a pool of c->threads epoll
 * threads. Returns the server, or NULL (message on stderr) on failure.
 * srv and c are borrowed and must outlive the server.
 */
struct http_server *
http_start(struct api_server *srv, const struct conf *c)
{
    struct http_server *h;
    struct addrinfo hints, *ai = NULL, *pick;
    char port[16];
    unsigned flags = MHD_USE_EPOLL_INTERNAL_THREAD | MHD_USE_ITC |
                     MHD_USE_ERROR_LOG;
    const union MHD_DaemonInfo *info;
    int gai;

    memset(&hints, 0, sizeof(hints));
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE;
    snprintf(port, sizeof(port), "%u", c->port);
    gai = getaddrinfo(c->host, port, &hints, &ai);
    if (gai != 0 || ai == NULL) {
        fprintf(stderr, "shardlocal: cannot resolve host '%s': %s\n",
                c->host, gai_strerror(gai));
        return NULL;
    }
    /* "localhost" may resolve to ::1 first; clients mostly dial
     * 127.0.0.1, so prefer an IPv4 address when there is one. */
    for (pick = ai; pick != NULL; pick = pick->ai_next)
        if (pick->ai_family == AF_INET)
            break;
    if (pick == NULL)
        pick = ai;
    if (pick->ai_family == AF_INET6)
        flags |= MHD_USE_IPv6;

    h = xmalloc(sizeof(*h));
    memset(h, 0, sizeof(*h));
    h->srv = srv;
    h->conf = c;
    atomic_init(&h->inflight, 0);
    h->d = MHD_start_daemon(flags, (uint16_t)c->port, NULL, NULL,
                            access_cb, h,
                            MHD_OPTION_SOCK_ADDR, pick->ai_addr,
                            MHD_OPTION_THREAD_POOL_SIZE,
                            (unsigned)(c->threads > 0 ? c->threads : 1),
                            MHD_OPTION_NOTIFY_COMPLETED, completed_cb, h,
                            MHD_OPTION_CONNECTION_LIMIT, (unsigned)4096,
                            MHD_OPTION_LISTENING_ADDRESS_REUSE, (unsigned)1,
                            MHD_OPTION_END);
    freeaddrinfo(ai);
    if (h->d == NULL) {
        fprintf(stderr, "shardlocal: cannot listen on %s:%u\n", c->host,
                c->port);
        free(h);
        return NULL;
    }
    info = MHD_get_daemon_info(h->d, MHD_DAEMON_INFO_BIND_PORT);
    h->port = info != NULL && info->port != 0 ? info->port : c->port;
    return h;
}

/* The bound port (useful with port 0). */
unsigned
http_port(const struct http_server *h)
{
    return h != NULL ? h->port : 0;
}

/*
 * Stop accepting connections, give in-flight requests up to
 * HTTP_STOP_WAIT_MS to finish, then stop the threads and free h.
 */
void
http_stop(struct http_server *h)
{
    int waited = 0;

    if (h == NULL)
        return;
    {
        MHD_socket fd = MHD_quiesce_daemon(h->d);

        if (fd != MHD_INVALID_SOCKET)
            close(fd);              /* quiesce hands the socket to us */
    }
    while (atomic_load(&h->inflight) > 0 && waited < HTTP_STOP_WAIT_MS) {
        usleep(10000);
        waited += 10;
    }
    MHD_stop_daemon(h->d);
    free(h);
}
