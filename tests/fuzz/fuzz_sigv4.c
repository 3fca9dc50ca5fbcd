/* SPDX-License-Identifier: MIT */
/* fuzz_sigv4.c - libFuzzer target for what --auth signature reads from a
 * caller (server/sigv4.c, server/cidr.c). The first byte picks: 'h' a
 * request (method, target, header lines, a blank line, the body) verified
 * as it is, its Authorization header or presigned query parsed; 's' the
 * same request signed by the steps sigv4.h exposes, which the verifier
 * must then accept; 'k' a credentials file; 'c' an --admin-from list and
 * addresses matched against it. A finding: a crash, a sanitizer report, an
 * error outside the five DynamoDB answers, a correctly signed request
 * refused, a parsed key that cannot be found. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <openssl/sha.h>

#include "server/cidr.h"
#include "server/sigv4.h"
#include "storage/util.h"

#define CHECK(c)                                                          \
    do {                                                                  \
        if (!(c)) {                                                       \
            fprintf(stderr, "fuzz_sigv4: %s\n", #c);                      \
            abort();                                                      \
        }                                                                 \
    } while (0)

#define NOW     1370772015000ull        /* 20130609T100015Z */
#define NOW_ISO "20130609T100015Z"
#define HDR_MAX 32

static struct sigv4_keys *keys;

/* A request parsed from the input: owned copies of every piece. */
struct req {
    char *text;                         /* the input, NUL-split */
    struct sigv4_request rq;
    struct http_header hdr[HDR_MAX + 2];
};

/* "METHOD\nTARGET\nName: value\n...\n\nbody" into r (false: too short). */
static bool
parse(const char *p, size_t n, struct req *r)
{
    char *s, *line, *body;
    unsigned nh = 0;

    memset(r, 0, sizeof(*r));
    r->text = xmalloc(n + 1);
    memcpy(r->text, p, n);
    r->text[n] = '\0';
    s = r->text;
    body = strstr(s, "\n\n");
    if (body != NULL) {
        *body = '\0';
        body += 2;
        r->rq.body = body;
        r->rq.len = n - (size_t)(body - r->text);
    } else {
        r->rq.body = "";
    }
    line = strsep(&s, "\n");
    r->rq.method = line;
    r->rq.target = s != NULL ? strsep(&s, "\n") : "/";
    while (s != NULL && nh < HDR_MAX) {
        char *colon;

        line = strsep(&s, "\n");
        colon = strchr(line, ':');
        if (colon == NULL)
            continue;
        *colon = '\0';
        r->hdr[nh].name = line;
        r->hdr[nh].value = colon + 1 + strspn(colon + 1, " \t");
        nh++;
    }
    r->rq.hdr = r->hdr;
    r->rq.nhdr = nh;
    return r->rq.method[0] != '\0';
}

static bool
has_header(const struct req *r, const char *name)
{
    unsigned i;

    for (i = 0; i < r->rq.nhdr; i++)
        if (strcasecmp(r->hdr[i].name, name) == 0)
            return true;
    return false;
}

/* Verify r; the answer must be one of DynamoDB's five. */
static int
verify(struct req *r)
{
    struct sigv4_caller who;
    struct ddb_err err;
    int rc;

    ddb_err_init(&err);
    rc = sigv4_verify(keys, "dynamodb", NOW, &r->rq, &who, &err);
    if (rc == 0) {
        CHECK(who.key != NULL);
    } else {
        CHECK(rc == -1 && who.key == NULL && err.msg[0] != '\0');
        CHECK(err.type == DDB_MISSING_AUTH_TOKEN ||
              err.type == DDB_INCOMPLETE_SIGNATURE ||
              err.type == DDB_INVALID_SIGNATURE ||
              err.type == DDB_UNRECOGNIZED_CLIENT);
    }
    sigv4_scope(&r->rq, &who);
    CHECK(strlen(who.access_key) <= SIGV4_KEYID_MAX);
    return rc;
}

/* Sign r (host, x-amz-date and every header it has) and verify it. */
static void
sign_and_verify(struct req *r)
{
    struct strbuf sh = { 0 };
    unsigned char d[SHA256_DIGEST_LENGTH];
    char *creq, *sts, *auth, hash[65], sig[65];
    unsigned i;

    if (has_header(r, "Authorization") || has_header(r, "X-Amz-Date") ||
        has_header(r, "X-Amz-Security-Token") || r->rq.nhdr >= HDR_MAX ||
        strstr(r->rq.target, "X-Amz-Algorithm") != NULL)
        return;
    r->hdr[r->rq.nhdr].name = "X-Amz-Date";
    r->hdr[r->rq.nhdr++].value = NOW_ISO;
    strbuf_puts(&sh, "host;x-amz-date");
    for (i = 0; i < r->rq.nhdr; i++) {
        const char *n = r->hdr[i].name;

        /* Names the signed list can hold: lower case, no ';' or space. */
        if (n[0] == '\0' || strpbrk(n, ";, \t=") != NULL ||
            strcasecmp(n, "host") == 0 || strcasecmp(n, "x-amz-date") == 0)
            continue;
        for (const char *c = n; *c != '\0'; c++)
            if ((*c >= 'A' && *c <= 'Z') || (unsigned char)*c < 0x21)
                goto skip;
        strbuf_printf(&sh, ";%s", n);
skip:;
    }
    creq = sigv4_canonical_request(&r->rq, sh.s, false);
    SHA256((const unsigned char *)creq, strlen(creq), d);
    hex_encode(d, sizeof(d), hash);
    sts = xasprintf("AWS4-HMAC-SHA256\n" NOW_ISO "\n20130609/us-east-1/"
                    "dynamodb/aws4_request\n%s", hash);
    sigv4_sign("fuzz-secret", "20130609", "us-east-1", "dynamodb", sts, sig);
    auth = xasprintf("AWS4-HMAC-SHA256 Credential=AKIDFUZZ/20130609/"
                     "us-east-1/dynamodb/aws4_request, SignedHeaders=%s, "
                     "Signature=%s", sh.s, sig);
    r->hdr[r->rq.nhdr].name = "Authorization";
    r->hdr[r->rq.nhdr++].value = auth;
    /* A request we signed ourselves must pass, whatever it carries. */
    CHECK(verify(r) == 0);
    free(auth);
    free(sts);
    free(creq);
    strbuf_free(&sh);
}

static void
credentials(const char *p, size_t n)
{
    char msg[512];
    struct sigv4_keys *k = sigv4_keys_parse(p, n, "fuzz", "000000000000",
                                            msg, sizeof(msg));

    if (k == NULL) {
        CHECK(msg[0] != '\0');
        return;
    }
    CHECK(sigv4_keys_find(k, "") == NULL);
    sigv4_keys_free(k);
}

static void
cidrs(const char *p, size_t n)
{
    static const char *const addrs[] = {
        "127.0.0.1", "10.1.2.3", "::1", "::ffff:192.168.0.1", "2001:db8::1",
        "0.0.0.0", "255.255.255.255" };
    char *text = xstrndup(p, n), msg[256];
    struct cidr_list l;
    size_t i;

    if (cidr_parse(text, &l, msg, sizeof(msg)) == 0) {
        CHECK(l.n > 0);
        for (i = 0; i < sizeof(addrs) / sizeof(addrs[0]); i++)
            (void)cidr_match(&l, addrs[i]);
        cidr_free(&l);
    } else {
        CHECK(l.n == 0 && msg[0] != '\0');
    }
    (void)cidr_host_is_loopback(text);
    free(text);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *p = (const char *)data + 1;
    size_t n = size - 1;
    struct req r;

    if (keys == NULL) {
        static const char k[] = "AKIDFUZZ fuzz-secret 111111111111\n"
                                "AKIDOTHER other\n";
        char msg[128];

        keys = sigv4_keys_parse(k, sizeof(k) - 1, "fuzz", "000000000000",
                                msg, sizeof(msg));
        CHECK(keys != NULL);
    }
    if (size < 1)
        return 0;
    switch (data[0]) {
    case 'h':
    case 's':
        if (parse(p, n, &r)) {
            if (data[0] == 'h')
                verify(&r);
            else
                sign_and_verify(&r);
        }
        free(r.text);
        break;
    case 'k':
        credentials(p, n);
        break;
    case 'c':
        cidrs(p, n);
        break;
    default:
        break;
    }
    return 0;
}
