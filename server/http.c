/* SPDX-License-Identifier: MIT */
/* http.c - what shardlocal answers over HTTP. httpd.c hands each request
 * here: refusals of its framing, CORS preflights, a decoded body
 * (compress.c), then routing on method and path: POST / is DynamoDB's
 * JSON 1.0 protocol (api_dispatch() with the caller's credential scope),
 * GET / the health check, /shardlocal/... and /metrics the admin paths.
 * Every answer carries DynamoDB's headers and is compressed when the
 * client accepts it and it is large enough. */

#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>

#include <zlib.h>

#include "api/admin/admin.h"
#include "api/api.h"
#include "server/compress.h"
#include "server/cors.h"
#include "server/http.h"
#include "server/httpd.h"
#include "server/sigv4.h"
#include "storage/util.h"

#define HTTP_JSON_TYPE "application/x-amz-json-1.0"
#define ARGS_MAX       16               /* query arguments read */

struct http_server {
    struct httpd *d;
    struct api_server *srv;             /* borrowed */
    const struct conf *conf;            /* borrowed */
    struct http_access acc;             /* owned */
    bool local;                         /* --host is loopback: every caller
                                           is on this machine */
};

/* One request on its way through: the decoded body, the path, the query
 * arguments. */
struct call {
    struct http_server *h;
    struct http_request *rq;            /* borrowed */
    const char *local;                  /* the address dialled */
    const char *peer;                   /* the caller's address */
    char *path;                         /* owned: decoded, no query */
    char *query;                        /* owned: decoded in place */
    const char *arg_name[ARGS_MAX], *arg_value[ARGS_MAX];
    unsigned nargs;
    const char *body;                   /* rq->body or decoded */
    size_t len;
    char *decoded;                      /* owned: a decoded body */
    size_t charged;                     /* its budget */
};

/* A reply being built: the body is malloc'd and handed to httpd. */
struct reply {
    unsigned status;
    char *body;                         /* owned until sent */
    size_t len;
    const char *content_type;           /* static string */
    bool close;                         /* close the connection after it */
};

/* ------------------------------------------------------------------------
 * Helpers
 * ---------------------------------------------------------------------- */

/* 52 upper-case alphanumerics, like DynamoDB's x-amzn-RequestId. out must
 * hold 53 bytes. A per-thread xorshift seeded from getrandom(); each 32
 * bits of it give six characters, taken from the top by multiplying by
 * 36 (no division). */
static void
request_id(char out[53])
{
    static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    static _Thread_local uint64_t state;
    uint32_t bits = 0;
    int i;

    if (state == 0) {
        if (getrandom(&state, sizeof(state), 0) != sizeof(state))
            state = wall_ms() ^ (uint64_t)(uintptr_t)&state;
        if (state == 0)
            state = 0x9E3779B97F4A7C15ull;
    }
    for (i = 0; i < 52; i++) {
        uint64_t m;

        if (i % 6 == 0) {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            bits = (uint32_t)(state >> 32);
        }
        m = (uint64_t)bits * 36;
        out[i] = alphabet[m >> 32];
        bits = (uint32_t)m;
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

/* Decode %XX escapes (and '+' when plus) of s in place. */
static void
unescape(char *s, bool plus)
{
    char *o = s;

    for (; *s != '\0'; s++) {
        int hi, lo;

        if (*s == '%' && (hi = hex_digit(s[1])) >= 0 &&
            (lo = hex_digit(s[2])) >= 0) {
            *o++ = (char)(hi * 16 + lo);
            s += 2;
        } else {
            *o++ = plus && *s == '+' ? ' ' : *s;
        }
    }
    *o = '\0';
}

/* Split rq's target into the decoded path and query arguments. */
static void
call_init(struct call *c, struct http_server *h, struct http_request *rq,
          const char *local, const char *peer)
{
    const char *t = rq->target, *q = strchr(t, '?');
    char *p;

    memset(c, 0, sizeof(*c));
    c->h = h;
    c->rq = rq;
    c->local = local;
    c->peer = peer;
    c->path = xstrndup(t, q != NULL ? (size_t)(q - t) : strlen(t));
    unescape(c->path, false);
    c->body = rq->body != NULL ? rq->body : "";
    c->len = rq->body_len;
    if (q == NULL)
        return;
    c->query = xstrdup(q + 1);
    for (p = c->query; p != NULL && *p != '\0' && c->nargs < ARGS_MAX;) {
        char *amp = strchr(p, '&'), *eq;

        if (amp != NULL)
            *amp = '\0';
        eq = strchr(p, '=');
        if (eq != NULL)
            *eq = '\0';
        unescape(p, true);
        c->arg_name[c->nargs] = p;
        if (eq != NULL)
            unescape(eq + 1, true);
        c->arg_value[c->nargs++] = eq != NULL ? eq + 1 : "";
        p = amp != NULL ? amp + 1 : NULL;
    }
}

static void
call_fini(struct call *c)
{
    if (c->decoded != NULL)
        http_budget_give(httpd_budget(c->h->d), c->charged);
    free(c->decoded);
    free(c->path);
    free(c->query);
}

/* Query-string lookup for admin_get(). */
static const char *
admin_arg(void *cls, const char *name)
{
    struct call *c = cls;
    unsigned i;

    for (i = 0; i < c->nargs; i++)
        if (strcmp(c->arg_name[i], name) == 0)
            return c->arg_value[i];
    return NULL;
}

/* What sigv4.c checks of rq: the request as it arrived (its body before
 * any Content-Encoding is undone: the signature covers the bytes sent). */
static void
signed_request(const struct http_request *rq, struct sigv4_request *sr)
{
    sr->method = rq->method;
    sr->target = rq->target;
    sr->hdr = rq->hdr;
    sr->nhdr = rq->nhdr;
    sr->body = rq->body != NULL ? rq->body : "";
    sr->len = rq->body_len;
}

/*
 * Decode a body sent with Content-Encoding (compress.c has DynamoDB's
 * rules). Returns true to go on; false with r filled: 500 for a coding
 * DynamoDB does not take or a broken stream (as DynamoDB answers), 413
 * past 16 MB decoded, 503 when the body budget is spent.
 */
static bool
decode_body(struct call *c, struct reply *r)
{
    const char *enc = request_header(c->rq, "Content-Encoding");
    int rc;

    if (enc == NULL || strcasecmp(enc, "identity") == 0)
        return true;
    rc = compress_decode(enc, c->body, c->len, HTTP_BODY_MAX,
                         httpd_budget(c->h->d), &c->decoded, &c->len,
                         &c->charged);
    switch (rc) {
    case DECODE_OK:
        c->body = c->decoded;
        return true;
    case DECODE_TOO_LARGE:
        reply_error_type(r, DDB_REQUEST_TOO_LARGE,
                         "Request entity too large");
        break;
    case DECODE_BUDGET:
        reply_error_type(r, DDB_SERVICE_UNAVAILABLE, "Too many request "
                         "bodies in progress (body-budget); retry later");
        break;
    default:                            /* unsupported or broken */
        reply_error_type(r, DDB_INTERNAL, "Internal server error");
        break;
    }
    r->close = rc != DECODE_UNSUPPORTED && rc != DECODE_BROKEN;
    return false;
}

/* ------------------------------------------------------------------------
 * Routes. Each fills a reply; route() picks one by method and path.
 * ---------------------------------------------------------------------- */

typedef void route_fn(struct call *c, struct reply *r);

/*
 * GET /: DynamoDB's health check, "healthy: " and the host the client
 * addressed, with a trailing space (scylladb's test_health.py, run against
 * DynamoDB; dynalite's recording has the space). Without a Host header
 * (HTTP/1.0), the address the client connected to.
 */
static void
route_health(struct call *c, struct reply *r)
{
    const char *host = request_header(c->rq, "Host");

    r->status = 200;
    r->body = xasprintf("healthy: %s ", host != NULL ? host : c->local);
    r->len = strlen(r->body);
    r->content_type = "text/plain";
}

/* The API call of rq, whose body (decoded) is body: its target, the
 * caller's region and access key from the SigV4 credential scope (in
 * *who), the Host; under --auth signature the signature is checked, for
 * the key's account or, in *aerr, why it was refused (aerr may be NULL
 * without --auth signature). */
static void
call_of(struct http_server *h, struct http_request *rq, const char *body,
        size_t len, struct api_call *call, struct sigv4_caller *who,
        struct ddb_err *aerr)
{
    struct sigv4_request sr;

    memset(call, 0, sizeof(*call));
    signed_request(rq, &sr);
    if (h->acc.keys != NULL) {
        call->signed_v4 = true;
        if (sigv4_verify(h->acc.keys, "dynamodb", wall_ms(), &sr, who,
                         aerr) == 0)
            call->account = who->key->account;
        else
            call->auth = aerr;
    } else {
        call->signed_v4 = sigv4_scope(&sr, who);
    }
    call->target = request_header(rq, "X-Amz-Target");
    call->body = body;
    call->len = len;
    call->region = who->region[0] != '\0' ? who->region
                                          : h->conf->default_region;
    call->access_key = who->access_key;
    call->host = request_header(rq, "Host");
}

/*
 * POST /: one DynamoDB API call. A body that is not JSON by its
 * Content-Type gets DynamoDB's 404; everything else is api_dispatch()'s,
 * with the caller's access key and region from the SigV4 credential
 * scope, and under --auth signature its key's account, or why its
 * signature was refused (dispatch reports it after the target, in
 * DynamoDB's order).
 */
static void
route_api(struct call *c, struct reply *r)
{
    const struct conf *conf = c->h->conf;
    const char *ctype;
    struct sigv4_caller who;
    struct ddb_err aerr;
    struct api_call call;
    struct api_reply ar;

    ctype = request_header(c->rq, "Content-Type");
    if (ctype != NULL) {
        size_t n = strcspn(ctype, "; \t");

        if (n == strlen("application/json") &&
            strncasecmp(ctype, "application/json", n) == 0)
            r->content_type = "application/json";
        else if (c->len > 0 && !(n == strlen(HTTP_JSON_TYPE) &&
                                 strncasecmp(ctype, HTTP_JSON_TYPE, n) == 0)) {
            reply_error_type(r, DDB_HTTP_NOT_FOUND, NULL);
            return;
        }
    } else if (c->len > 0) {
        reply_error_type(r, DDB_HTTP_NOT_FOUND, NULL);
        return;
    }

    ddb_err_init(&aerr);
    call_of(c->h, c->rq, c->body, c->len, &call, &who, &aerr);
    api_dispatch(c->h->srv, &call, &ar);
    if (conf->log_level >= LOG_DEBUG)
        fprintf(stderr, "shardlocal: %s %u %.*s\n",
                ar.op != NULL ? ar.op : "-", ar.status,
                ar.status != 200 ? (int)ar.len : 0,
                ar.body != NULL ? ar.body : "");
    reply_take(r, &ar);
}

/*
 * An admin call answered by fn (admin.h: admin_clock, admin_faults): a
 * POST changes state and carries a JSON object (cors_admin_check() has
 * passed it); a GET only reads, whatever it carries. The reply is JSON,
 * or a ValidationException (400).
 */
static void
route_admin_call(struct call *c, struct reply *r,
                 int (*fn)(struct api_server *, bool, const json_t *,
                           json_t **, struct ddb_err *))
{
    bool post = strcmp(c->rq->method, "POST") == 0;
    struct ddb_err err;
    json_t *req = NULL, *resp = NULL;
    json_error_t jerr;

    ddb_err_init(&err);
    if (post && c->len > 0) {
        req = json_loadb(c->body, c->len, 0, &jerr);
        if (req == NULL) {
            reply_error_type(r, DDB_SERIALIZATION, NULL);
            return;
        }
    }
    if (fn(c->h->srv, post, req, &resp, &err) != 0) {
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
route_clock(struct call *c, struct reply *r)
{
    route_admin_call(c, r, admin_clock);
}

/* GET/POST /shardlocal/faults: fault-injection rules. */
static void
route_faults(struct call *c, struct reply *r)
{
    route_admin_call(c, r, admin_faults);
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
route_admin(struct call *c, struct reply *r)
{
    struct admin_reply ar;

    admin_get(c->h->srv, c->path, admin_arg, c, &ar);
    reply_admin(r, &ar);
}

/* GET /metrics: Prometheus text with CloudWatch's metric names. */
static void
route_metrics(struct call *c, struct reply *r)
{
    struct admin_reply ar;

    admin_metrics(c->h->srv, &ar);
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

/* Pick the route for method and path; NULL means 404. */
static const struct route *
route(const char *method, const char *path)
{
    size_t i, n = strlen(path);

    for (i = 0; i < sizeof(routes) / sizeof(routes[0]); i++) {
        const struct route *rt = &routes[i];
        size_t plen = strlen(rt->path);

        if (strcmp(method, rt->method) != 0)
            continue;
        if (rt->prefix ? (n >= plen && strncmp(path, rt->path, plen) == 0)
                       : (n == plen && strcmp(path, rt->path) == 0))
            return rt;
    }
    return NULL;
}

/* shardlocal's own paths: never CORS, and guarded when they change state. */
static bool
is_admin_path(const char *path)
{
    return strcmp(path, "/metrics") == 0 ||
           strncmp(path, "/shardlocal", strlen("/shardlocal")) == 0;
}

/*
 * May this admin call change state (the clock, fault rules)? Always when
 * the server listens on loopback only; else only from an address of
 * --admin-from. false with r filled (403).
 */
static bool
admin_from_ok(struct call *c, struct reply *r)
{
    char msg[256];

    if (c->h->local || cidr_match(&c->h->acc.admin_from, c->peer))
        return true;
    snprintf(msg, sizeof(msg), "The admin endpoints that change state are "
             "refused from %s: it is not in --admin-from", c->peer);
    reply_error_type(r, DDB_HTTP_FORBIDDEN, msg);
    return false;
}

/* Under --auth signature the admin paths take signed requests only, with
 * the API's errors. false with r filled. */
static bool
admin_signed(struct call *c, struct reply *r)
{
    struct sigv4_request sr;
    struct sigv4_caller who;
    struct ddb_err err;
    bool ok;

    if (c->h->acc.keys == NULL)
        return true;
    ddb_err_init(&err);
    signed_request(c->rq, &sr);
    ok = sigv4_verify(c->h->acc.keys, "dynamodb", wall_ms(), &sr, &who,
                      &err) == 0;
    if (!ok)
        reply_error(r, &err);
    ddb_err_clear(&err);
    return ok;
}

/* ------------------------------------------------------------------------
 * Answering
 * ---------------------------------------------------------------------- */

/*
 * Put r into resp with DynamoDB's headers: Server, Content-Type,
 * x-amzn-RequestId and x-amz-crc32 (decimal CRC-32 of the body bytes as
 * sent). A successful answer of COMPRESS_MIN bytes or more is compressed
 * when the Accept-Encoding allows it; the CRC is then that of the compressed bytes,
 * as DynamoDB computes it (aws-sdk-go-v2 service/dynamodb customizations;
 * scylladb's test_crc.py, run against DynamoDB). Takes r->body.
 */
static void
finish(const struct http_request *rq, struct reply *r, bool cors,
       struct http_response *resp)
{
    enum http_coding enc = CODING_NONE;
    char rid[53];
    uLong crc;

    if (r->body == NULL) {
        r->body = xmalloc(1);
        r->len = 0;
    }
    /* Errors go plain: DynamoDB's large error answers are not compressed
     * (though labelled gzip: aws/aws-sdk-go-v2#2938, 2024-12). */
    if (r->len >= COMPRESS_MIN && r->status < 300 && rq->state == RQ_DONE)
        enc = compress_choose(request_header(rq, "Accept-Encoding"));
    if (enc != CODING_NONE) {
        size_t n;
        char *z = compress_body(enc, r->body, r->len, &n);

        free(r->body);
        r->body = z;
        r->len = n;
    }
    crc = crc32(0L, (const Bytef *)r->body, (uInt)r->len);
    request_id(rid);
    resp->status = r->status;
    resp->body = r->body;
    resp->len = r->len;
    resp->close = r->close;
    r->body = NULL;
    strbuf_reserve(&resp->head, 256);   /* one allocation for the lot */
    /* DynamoDB names itself "Server" (its answers, success and error
     * alike: scylladb's test_http_headers.py; the 2020 preflight). */
    http_response_add(resp, "Server", "Server");
    http_response_add(resp, "Content-Type",
                      r->content_type != NULL ? r->content_type
                                              : HTTP_JSON_TYPE);
    if (enc != CODING_NONE)
        http_response_add(resp, "Content-Encoding", compress_name(enc));
    http_response_add(resp, "x-amzn-RequestId", rid);
    http_response_add_uint(resp, "x-amz-crc32", crc);
    if (cors)
        cors_add(rq, resp);
}

/* A request httpd refused for its framing or size; then it closes. */
static void
refuse(const struct http_request *rq, struct http_response *resp)
{
    struct reply r = { 0, NULL, 0, NULL, true };

    if (rq->err_status == 413)
        reply_error_type(&r, DDB_REQUEST_TOO_LARGE,
                         "Request entity too large");
    else if (rq->err_status == 503)
        reply_error_type(&r, DDB_SERVICE_UNAVAILABLE, "Too many request "
                         "bodies in progress (body-budget); retry later");
    else
        reply_error_type(&r, DDB_HTTP_BAD_REQUEST, rq->err_msg);
    finish(rq, &r, false, resp);
}

/*
 * httpd's defer callback: hold back a DynamoDB item call whose partition a
 * WAL checkpoint holds this moment (api_would_wait), so that the thread
 * serves its other connections for those milliseconds; the checkpoint's
 * end has it asked again (checkpoint_done). Only a plain POST / with an
 * uncompressed body is considered, and none under --auth signature (its
 * account needs the signature checked, which the call itself does): any
 * other request goes ahead, and at worst waits for the checkpoint as every
 * request did.
 *
 * While a checkpoint holds a partition, the thread also yields the CPU
 * before each request. On a server confined to one core the checkpoint
 * thread shares it with this one, and each time it came back from a sync
 * it waited for the CPU: the hold's median went from 7.0 ms to 4.2 ms with
 * the yield (bench/README.md, ninth round). Elsewhere the call returns at
 * once.
 */
static bool
defer(void *cls, struct http_request *rq)
{
    struct http_server *h = cls;
    struct sigv4_caller who;
    struct api_call call;
    const char *enc;

    if (!api_checkpointing(h->srv))
        return false;
    sched_yield();
    if (h->acc.keys != NULL ||
        rq->body == NULL || strcmp(rq->method, "POST") != 0 ||
        strcmp(rq->target, "/") != 0)
        return false;
    enc = request_header(rq, "Content-Encoding");
    if (enc != NULL && strcasecmp(enc, "identity") != 0)
        return false;
    call_of(h, rq, rq->body, rq->body_len, &call, &who, NULL);
    return api_would_wait(h->srv, &call);
}

/* A checkpoint let a partition go: ask again about what was held back. */
static void
checkpoint_done(void *arg)
{
    httpd_wake(arg);
}

/* httpd's handler: every request comes through here. */
static void
handle(void *cls, struct http_request *rq, struct http_response *resp,
       const char *local, const char *peer)
{
    struct http_server *h = cls;
    struct reply r = { 0, NULL, 0, NULL, false };
    const struct route *rt;
    const char *method = rq->method, *why = NULL;
    struct call c;
    bool admin, cors, changes;
    unsigned st;

    if (rq->state == RQ_ERROR) {
        refuse(rq, resp);
        return;
    }
    call_init(&c, h, rq, local, peer);
    admin = is_admin_path(c.path);
    cors = !admin;
    if (strcmp(method, "OPTIONS") == 0 && !admin &&
        cors_preflight(rq, resp)) {
        char rid[53];

        request_id(rid);
        http_response_add(resp, "Server", "Server");
        http_response_add(resp, "x-amzn-RequestId", rid);
        goto out;
    }
    if (strcmp(method, "HEAD") == 0) {
        resp->head_only = true;
        method = "GET";
    }
    changes = admin && strcmp(method, "GET") != 0 &&
              strcmp(method, "OPTIONS") != 0;
    if (changes && !admin_from_ok(&c, &r)) {
        /* r is the refusal */
    } else if (changes &&
               (st = cors_admin_check(rq, h->conf->host, &why)) != 0) {
        reply_error_type(&r, st == 403 ? DDB_HTTP_FORBIDDEN
                                       : DDB_HTTP_UNSUPPORTED_MEDIA, why);
    } else if (admin && strcmp(method, "OPTIONS") == 0 &&
               request_header(rq, "Origin") != NULL) {
        reply_error_type(&r, DDB_HTTP_FORBIDDEN, "The admin endpoints "
                         "grant no cross-origin access");
    } else if (admin && !admin_signed(&c, &r)) {
        /* r is the refusal */
    } else if (decode_body(&c, &r)) {
        rt = route(method, c.path);
        if (rt == NULL)
            reply_error_type(&r, DDB_HTTP_NOT_FOUND, NULL);
        else
            rt->fn(&c, &r);
    }
    finish(rq, &r, cors, resp);
out:
    call_fini(&c);
}

/* ------------------------------------------------------------------------
 * Server lifecycle
 * ---------------------------------------------------------------------- */

int
http_access_load(const struct conf *c, struct http_access *a, char *msg,
                 size_t msgsz)
{
    memset(a, 0, sizeof(*a));
    if (c->auth == AUTH_SIGNATURE && c->credentials[0] == '\0') {
        snprintf(msg, msgsz, "--auth signature needs --credentials FILE");
        return -1;
    }
    if (c->auth != AUTH_SIGNATURE && c->credentials[0] != '\0') {
        snprintf(msg, msgsz, "--credentials is only read with --auth "
                 "signature");
        return -1;
    }
    if (cidr_parse(c->admin_from, &a->admin_from, msg, msgsz) != 0)
        return -1;
    if (c->auth == AUTH_SIGNATURE) {
        a->keys = sigv4_keys_load(c->credentials, c->account_id, msg, msgsz);
        if (a->keys == NULL) {
            cidr_free(&a->admin_from);
            return -1;
        }
    }
    return 0;
}

void
http_access_free(struct http_access *a)
{
    sigv4_keys_free(a->keys);
    cidr_free(&a->admin_from);
    memset(a, 0, sizeof(*a));
}

struct http_server *
http_start(struct api_server *srv, const struct conf *c,
           struct http_access *a)
{
    struct http_server *h = xcalloc(1, sizeof(*h));
    struct httpd_options o;

    memset(&o, 0, sizeof(o));
    o.host = c->host;
    o.port = c->port;
    o.threads = c->threads > 0 ? c->threads : 1;
    o.max_conns = c->max_connections;
    o.idle_ms = (uint64_t)(c->idle_timeout * 1000);
    o.header_ms = (uint64_t)(c->header_timeout * 1000);
    o.body_ms = (uint64_t)(c->body_timeout * 1000);
    o.body_budget = (size_t)c->body_budget;
    o.debug = c->log_level >= LOG_DEBUG;
    h->srv = srv;
    h->conf = c;
    h->acc = *a;
    memset(a, 0, sizeof(*a));
    h->local = cidr_host_is_loopback(c->host);
    h->d = httpd_start(&o, handle, defer, h);
    if (h->d == NULL) {
        http_access_free(&h->acc);
        free(h);
        return NULL;
    }
    api_on_checkpoint_done(srv, checkpoint_done, h->d);
    return h;
}

unsigned
http_port(const struct http_server *h)
{
    return h != NULL ? httpd_port(h->d) : 0;
}

void
http_stop(struct http_server *h)
{
    if (h == NULL)
        return;
    api_on_checkpoint_done(h->srv, NULL, NULL);     /* before d goes */
    httpd_stop(h->d);
    http_access_free(&h->acc);
    free(h);
}
