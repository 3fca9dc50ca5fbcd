/* SPDX-License-Identifier: MIT */
/* cors.c - browsers and the server. The DynamoDB API: DynamoDB answers a
 * preflight from any origin with 200, echoing the method and headers asked
 * for, and marks its answers to requests with an Origin as readable by
 * any page. The admin endpoints that change state (the clock, fault
 * injection, and any later one) are shardlocal's own: a page of another
 * origin could otherwise reach them with a "simple" cross-site POST, so
 * they take application/json from the server's own origin only. */

#include <arpa/inet.h>
#include <string.h>
#include <strings.h>

#include "server/cors.h"

/* Recorded from DynamoDB (us-east-1), a preflight on 2020-10-15
 * (AllanZhengYP/cors-test, output.md): these four and the echoes. */
#define CORS_ALLOW_ORIGIN "*"
#define CORS_EXPOSE       "x-amzn-RequestId,x-amzn-ErrorType," \
                          "x-amzn-ErrorMessage,Date"
#define CORS_MAX_AGE      "172800"

static const char *
origin(const struct http_request *rq)
{
    const char *o = request_header(rq, "Origin");

    return o != NULL && *o != '\0' ? o : NULL;
}

/*
 * Requests with an Origin get Access-Control-Allow-Origin: * and the
 * exposed headers; preflights only also get Max-Age and the echoes
 * (scylladb's test_cors.py, run against DynamoDB; dynalite's
 * test/connection.js, recorded from DynamoDB).
 */
void
cors_add(const struct http_request *rq, struct http_response *r)
{
    if (origin(rq) == NULL)
        return;
    http_response_add(r, "Access-Control-Allow-Origin", CORS_ALLOW_ORIGIN);
    http_response_add(r, "Access-Control-Expose-Headers", CORS_EXPOSE);
}

bool
cors_preflight(const struct http_request *rq, struct http_response *r)
{
    const char *m = request_header(rq, "Access-Control-Request-Method");
    const char *h = request_header(rq, "Access-Control-Request-Headers");

    if (origin(rq) == NULL)
        return false;
    r->status = 200;
    http_response_add(r, "Access-Control-Allow-Origin", CORS_ALLOW_ORIGIN);
    if (h != NULL)
        http_response_add(r, "Access-Control-Allow-Headers", h);
    if (m != NULL)
        http_response_add(r, "Access-Control-Allow-Methods", m);
    http_response_add(r, "Access-Control-Expose-Headers", CORS_EXPOSE);
    http_response_add(r, "Access-Control-Max-Age", CORS_MAX_AGE);
    return true;
}

/* The host part of a Host value ("127.0.0.1:8000", "[::1]:8000"), into
 * out; false if it does not fit. */
static bool
host_part(const char *hostport, char *out, size_t n)
{
    const char *end;

    if (*hostport == '[') {
        hostport++;
        end = strchr(hostport, ']');
    } else {
        end = strchr(hostport, ':');
    }
    if (end == NULL)
        end = hostport + strlen(hostport);
    if ((size_t)(end - hostport) >= n)
        return false;
    memcpy(out, hostport, (size_t)(end - hostport));
    out[end - hostport] = '\0';
    return true;
}

/*
 * A name a page can only reach when it was served from this machine: an
 * IP address, "localhost" or the configured --host. A page on a domain
 * that was made to resolve to 127.0.0.1 (DNS rebinding) is same-origin
 * with itself, so the Origin check alone would let it through.
 */
static bool
host_is_own(const char *hostport, const char *own_host)
{
    char host[256];
    unsigned char addr[16];

    if (!host_part(hostport, host, sizeof(host)))
        return false;
    return inet_pton(AF_INET, host, addr) == 1 ||
           inet_pton(AF_INET6, host, addr) == 1 ||
           strcasecmp(host, "localhost") == 0 ||
           (own_host != NULL && strcasecmp(host, own_host) == 0);
}

unsigned
cors_admin_check(const struct http_request *rq, const char *own_host,
                 const char **why)
{
    const char *o = origin(rq), *site, *host, *ct;
    size_t n;

    /* Browsers mark a request from another site (fetch metadata). */
    site = request_header(rq, "Sec-Fetch-Site");
    if (site != NULL && strcasecmp(site, "same-origin") != 0 &&
        strcasecmp(site, "none") != 0) {
        *why = "The admin endpoints refuse cross-site requests";
        return 403;
    }
    if (o != NULL) {
        host = request_header(rq, "Host");
        if (host == NULL || strncasecmp(o, "http://", 7) != 0 ||
            strcasecmp(o + 7, host) != 0 || !host_is_own(host, own_host)) {
            *why = "The admin endpoints refuse requests from another origin";
            return 403;
        }
    }
    ct = request_header(rq, "Content-Type");
    n = ct != NULL ? strcspn(ct, "; \t") : 0;
    if (ct == NULL || n != strlen("application/json") ||
        strncasecmp(ct, "application/json", n) != 0) {
        *why = "The admin endpoints take Content-Type: application/json";
        return 415;
    }
    return 0;
}
