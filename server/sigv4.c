/* SPDX-License-Identifier: MIT */
/* sigv4.c - AWS Signature Version 4 as AWS verifies it (sigv4.h): the
 * credentials file; the Authorization header and the presigned query
 * string; the canonical request (method, normalised and twice-encoded
 * path, sorted query, the signed headers with their values trimmed and
 * folded, the SHA-256 of the body as sent), the string to sign and the
 * HMAC-SHA256 key chain (OpenSSL libcrypto); and DynamoDB's errors, in the
 * order DynamoDB checks. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>

#include "server/sigv4.h"
#include "storage/util.h"

#define ALGORITHM  "AWS4-HMAC-SHA256"
#define TERMINATOR "aws4_request"
#define SECRET_MAX 256
#define KEYS_FILE_MAX (16u << 20)       /* a credentials file, at most */

/* ------------------------------------------------------------------------
 * The credentials file
 * ---------------------------------------------------------------------- */

struct sigv4_keys {
    struct sigv4_key *k;                /* owned, sorted by id */
    size_t n;
};

static int
key_cmp(const void *a, const void *b)
{
    return strcmp(((const struct sigv4_key *)a)->id,
                  ((const struct sigv4_key *)b)->id);
}

/* A field of printable ASCII other than space (and, for a key id, '/',
 * which would end it inside a credential scope). */
static bool
field_ok(const char *s, size_t n, bool key_id)
{
    size_t i;

    for (i = 0; i < n; i++)
        if ((unsigned char)s[i] <= ' ' || (unsigned char)s[i] >= 0x7f ||
            (key_id && s[i] == '/'))
            return false;
    return n > 0;
}

void
sigv4_keys_free(struct sigv4_keys *k)
{
    size_t i;

    if (k == NULL)
        return;
    for (i = 0; i < k->n; i++) {
        free(k->k[i].id);
        OPENSSL_cleanse(k->k[i].secret, strlen(k->k[i].secret));
        free(k->k[i].secret);
    }
    free(k->k);
    free(k);
}

/* Split one line (n bytes, no newline) into at most 4 fields; the count. */
static unsigned
split_fields(const char *p, size_t n, const char *f[4], size_t flen[4])
{
    unsigned nf = 0;
    size_t i = 0;

    while (i < n) {
        size_t start;

        while (i < n && (p[i] == ' ' || p[i] == '\t'))
            i++;
        if (i == n)
            break;
        start = i;
        while (i < n && p[i] != ' ' && p[i] != '\t')
            i++;
        if (nf == 4)
            return 5;
        f[nf] = p + start;
        flen[nf++] = i - start;
    }
    return nf;
}

/* Are the n bytes at s all digits? (The field is not NUL-terminated.) */
static bool
digits(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9')
            return false;
    return true;
}

struct sigv4_keys *
sigv4_keys_parse(const char *text, size_t len, const char *origin,
                 const char *default_account, char *msg, size_t msgsz)
{
    struct sigv4_keys *k = xcalloc(1, sizeof(*k));
    size_t cap = 0, off = 0, i;
    unsigned line = 0;

    while (off < len) {
        const char *p = text + off, *nl = memchr(p, '\n', len - off);
        size_t n = nl != NULL ? (size_t)(nl - p) : len - off;
        const char *f[4];
        size_t flen[4];
        unsigned nf;
        struct sigv4_key *e;

        off += n + (nl != NULL);
        line++;
        if (n > 0 && p[n - 1] == '\r')
            n--;
        nf = split_fields(p, n, f, flen);
        if (nf == 0 || f[0][0] == '#')
            continue;
        if (nf < 2 || nf > 3) {
            snprintf(msg, msgsz, "%s:%u: expected \"ACCESS_KEY_ID SECRET "
                     "[ACCOUNT_ID]\"", origin, line);
            goto fail;
        }
        if (flen[0] > SIGV4_KEYID_MAX || !field_ok(f[0], flen[0], true)) {
            snprintf(msg, msgsz, "%s:%u: bad access key id (1 to %d "
                     "printable characters, no '/')", origin, line,
                     SIGV4_KEYID_MAX);
            goto fail;
        }
        if (flen[1] > SECRET_MAX || !field_ok(f[1], flen[1], false)) {
            snprintf(msg, msgsz, "%s:%u: bad secret (1 to %d printable "
                     "characters)", origin, line, SECRET_MAX);
            goto fail;
        }
        if (nf == 3 && (flen[2] != 12 || !digits(f[2], 12))) {
            snprintf(msg, msgsz, "%s:%u: the account id must be 12 digits",
                     origin, line);
            goto fail;
        }
        if (k->n == cap) {
            cap = cap ? 2 * cap : 8;
            k->k = xrealloc(k->k, cap * sizeof(*k->k));
        }
        e = &k->k[k->n++];
        e->id = xstrndup(f[0], flen[0]);
        e->secret = xstrndup(f[1], flen[1]);
        snprintf(e->account, sizeof(e->account), "%.*s",
                 nf == 3 ? 12 : (int)strlen(default_account),
                 nf == 3 ? f[2] : default_account);
    }
    if (k->n == 0) {
        snprintf(msg, msgsz, "%s: no access key", origin);
        goto fail;
    }
    qsort(k->k, k->n, sizeof(*k->k), key_cmp);
    for (i = 1; i < k->n; i++)
        if (strcmp(k->k[i - 1].id, k->k[i].id) == 0) {
            snprintf(msg, msgsz, "%s: access key id %s appears twice",
                     origin, k->k[i].id);
            goto fail;
        }
    return k;
fail:
    sigv4_keys_free(k);
    return NULL;
}

struct sigv4_keys *
sigv4_keys_load(const char *path, const char *default_account, char *msg,
                size_t msgsz)
{
    struct sigv4_keys *k = NULL;
    struct strbuf b = { 0 };
    char buf[4096];
    size_t n;
    FILE *f = fopen(path, "r");

    if (f == NULL) {
        snprintf(msg, msgsz, "cannot read credentials file '%s': %s", path,
                 strerror(errno));
        return NULL;
    }
    while ((n = fread(buf, 1, sizeof(buf), f)) > 0 && b.len < KEYS_FILE_MAX)
        strbuf_add(&b, buf, n);
    if (ferror(f) || b.len >= KEYS_FILE_MAX)
        snprintf(msg, msgsz, "cannot read credentials file '%s'%s", path,
                 b.len >= KEYS_FILE_MAX ? ": larger than 16 MB" : "");
    else
        k = sigv4_keys_parse(b.s != NULL ? b.s : "", b.len, path,
                             default_account, msg, msgsz);
    fclose(f);
    if (b.s != NULL)
        OPENSSL_cleanse(b.s, b.len);
    strbuf_free(&b);
    return k;
}

const struct sigv4_key *
sigv4_keys_find(const struct sigv4_keys *k, const char *id)
{
    struct sigv4_key probe;

    if (k == NULL || id == NULL)
        return NULL;
    probe.id = (char *)id;
    return bsearch(&probe, k->k, k->n, sizeof(*k->k), key_cmp);
}

/* ------------------------------------------------------------------------
 * Request pieces: headers, the query, dates
 * ---------------------------------------------------------------------- */

/* The first header called name (any case), or NULL. */
static const char *
header(const struct sigv4_request *rq, const char *name)
{
    unsigned i;

    for (i = 0; i < rq->nhdr; i++)
        if (strcasecmp(rq->hdr[i].name, name) == 0)
            return rq->hdr[i].value;
    return NULL;
}

static bool
unreserved(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
           (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.' ||
           c == '~';
}

/* AWS's URI encoding of n bytes of s: unreserved characters (and '/'
 * when keep_slash) as they are, every other byte as %XX, upper case. */
static void
uri_encode(struct strbuf *b, const char *s, size_t n, bool keep_slash)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t i;

    strbuf_reserve(b, 3 * n);
    for (i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];

        if (unreserved(c) || (keep_slash && c == '/')) {
            b->s[b->len++] = (char)c;
        } else {
            b->s[b->len++] = '%';
            b->s[b->len++] = hex[c >> 4];
            b->s[b->len++] = hex[c & 15];
        }
    }
    b->s[b->len] = '\0';
}

/* %XX decoded (a '%' not followed by two hex digits stays as it is; '+'
 * is a plus sign, as AWS reads it). A new string, *outlen its length. */
static char *
uri_decode(const char *s, size_t n, size_t *outlen)
{
    char *out = xmalloc(n + 1);
    size_t i, o = 0;

    for (i = 0; i < n; i++) {
        int hi, lo;

        if (s[i] == '%' && i + 2 < n && (hi = hex_digit(s[i + 1])) >= 0 &&
            (lo = hex_digit(s[i + 2])) >= 0) {
            out[o++] = (char)(hi * 16 + lo);
            i += 2;
        } else {
            out[o++] = s[i];
        }
    }
    out[o] = '\0';
    *outlen = o;
    return out;
}

/* One query argument: decoded (to find X-Amz-*) and in canonical form. */
struct qarg {
    char *name, *value;                 /* decoded; NUL-terminated */
    char *cname, *cvalue;               /* AWS-encoded */
};

struct query {
    struct qarg *a;
    size_t n;
};

/* The query of target (after '?'), split at '&' and '=' (empty pieces
 * skipped). */
static void
query_parse(const char *target, struct query *q)
{
    const char *p = target != NULL ? strchr(target, '?') : NULL;
    size_t cap = 0;

    memset(q, 0, sizeof(*q));
    if (p == NULL)
        return;
    for (p++; *p != '\0';) {
        size_t n = strcspn(p, "&"), nl, vl;
        const char *eq = memchr(p, '=', n);
        struct strbuf b = { 0 };
        struct qarg *a;

        if (n > 0) {
            if (q->n == cap) {
                cap = cap ? 2 * cap : 8;
                q->a = xrealloc(q->a, cap * sizeof(*q->a));
            }
            a = &q->a[q->n++];
            a->name = uri_decode(p, eq != NULL ? (size_t)(eq - p) : n, &nl);
            a->value = eq != NULL ? uri_decode(eq + 1,
                                               n - (size_t)(eq - p) - 1, &vl)
                                  : xstrdup("");
            if (eq == NULL)
                vl = 0;
            uri_encode(&b, a->name, nl, false);
            a->cname = b.s != NULL ? strbuf_take(&b) : xstrdup("");
            uri_encode(&b, a->value, vl, false);
            a->cvalue = b.s != NULL ? strbuf_take(&b) : xstrdup("");
        }
        p += n;
        if (*p == '&')
            p++;
    }
}

static void
query_free(struct query *q)
{
    size_t i;

    for (i = 0; i < q->n; i++) {
        free(q->a[i].name);
        free(q->a[i].value);
        free(q->a[i].cname);
        free(q->a[i].cvalue);
    }
    free(q->a);
    memset(q, 0, sizeof(*q));
}

/* The first (decoded) value of the argument called name, or NULL. */
static const char *
query_get(const struct query *q, const char *name)
{
    size_t i;

    for (i = 0; i < q->n; i++)
        if (strcmp(q->a[i].name, name) == 0)
            return q->a[i].value;
    return NULL;
}

/* "YYYYMMDDTHHMMSSZ" (ISO 8601's basic format, UTC) into epoch seconds. */
static bool
parse_basic(const char *s, int64_t *out)
{
    struct tm tm, back;
    time_t t;
    int i;

    if (strlen(s) != 16 || s[8] != 'T' || s[15] != 'Z')
        return false;
    for (i = 0; i < 15; i++)
        if (i != 8 && (s[i] < '0' || s[i] > '9'))
            return false;
    memset(&tm, 0, sizeof(tm));
    tm.tm_year = (s[0] - '0') * 1000 + (s[1] - '0') * 100 +
                 (s[2] - '0') * 10 + (s[3] - '0') - 1900;
    tm.tm_mon = (s[4] - '0') * 10 + (s[5] - '0') - 1;
    tm.tm_mday = (s[6] - '0') * 10 + (s[7] - '0');
    tm.tm_hour = (s[9] - '0') * 10 + (s[10] - '0');
    tm.tm_min = (s[11] - '0') * 10 + (s[12] - '0');
    tm.tm_sec = (s[13] - '0') * 10 + (s[14] - '0');
    if (tm.tm_mon < 0 || tm.tm_mon > 11 || tm.tm_mday < 1 ||
        tm.tm_hour > 23 || tm.tm_min > 59 || tm.tm_sec > 59)
        return false;
    back = tm;
    t = timegm(&tm);
    if (tm.tm_mday != back.tm_mday || tm.tm_mon != back.tm_mon)
        return false;                   /* 20250231: no such day */
    *out = (int64_t)t;
    return true;
}

/* The request's date: ISO 8601 basic, or an HTTP date (a Date header,
 * "Sun, 06 Nov 1994 08:49:37 GMT"). */
static bool
parse_date(const char *s, bool http_date, int64_t *out)
{
    struct tm tm;
    const char *end;

    if (parse_basic(s, out))
        return true;
    if (!http_date)
        return false;
    memset(&tm, 0, sizeof(tm));
    end = strptime(s, "%a, %d %b %Y %H:%M:%S GMT", &tm);
    if (end == NULL || *end != '\0')
        return false;
    *out = (int64_t)timegm(&tm);
    return true;
}

/* Epoch seconds in ISO 8601 basic form into out (17 bytes or more). */
static void
format_basic(int64_t secs, char *out, size_t n)
{
    time_t t = (time_t)secs;
    struct tm tm;

    if (gmtime_r(&t, &tm) == NULL ||
        strftime(out, n, "%Y%m%dT%H%M%SZ", &tm) == 0)
        snprintf(out, n, "19700101T000000Z");
}

/* ------------------------------------------------------------------------
 * The canonical request
 * ---------------------------------------------------------------------- */

/* The path of target (up to '?'), normalised as AWS does for every
 * service but S3: "." segments and empty segments ("//") dropped, ".."
 * taking the one before it, a trailing '/' kept; then each byte encoded
 * (a '%' sent on the wire becomes %25: the path is encoded twice). */
static void
canonical_path(struct strbuf *b, const char *target)
{
    size_t n = target != NULL ? strcspn(target, "?") : 0, i = 0, nseg = 0;
    size_t *seg = xmalloc((n / 2 + 2) * sizeof(*seg) * 2);
    bool trailing = n > 0 && target[n - 1] == '/';
    size_t k;

    while (i < n) {
        size_t start, len;

        while (i < n && target[i] == '/')
            i++;
        start = i;
        while (i < n && target[i] != '/')
            i++;
        len = i - start;
        if (len == 0 || (len == 1 && target[start] == '.'))
            continue;
        if (len == 2 && target[start] == '.' && target[start + 1] == '.') {
            if (nseg > 0)
                nseg--;
            continue;
        }
        seg[2 * nseg] = start;
        seg[2 * nseg + 1] = len;
        nseg++;
    }
    for (k = 0; k < nseg; k++) {
        strbuf_putc(b, '/');
        uri_encode(b, target + seg[2 * k], seg[2 * k + 1], false);
    }
    if (nseg == 0 || trailing)
        strbuf_putc(b, '/');
    free(seg);
}

static int
qarg_cmp(const void *a, const void *b)
{
    const struct qarg *x = a, *y = b;
    int c = strcmp(x->cname, y->cname);

    return c != 0 ? c : strcmp(x->cvalue, y->cvalue);
}

/* The query's arguments, encoded, sorted by name then value, joined by
 * '&'; the presigned form leaves out its own X-Amz-Signature. */
static void
canonical_query(struct strbuf *b, const struct query *q, bool presigned)
{
    struct qarg *s = xmalloc((q->n + 1) * sizeof(*s));
    size_t i, n = 0;

    for (i = 0; i < q->n; i++)
        if (!presigned || strcmp(q->a[i].name, "X-Amz-Signature") != 0)
            s[n++] = q->a[i];
    qsort(s, n, sizeof(*s), qarg_cmp);
    for (i = 0; i < n; i++) {
        if (i > 0)
            strbuf_putc(b, '&');
        strbuf_printf(b, "%s=%s", s[i].cname, s[i].cvalue);
    }
    free(s);
}

/* A header value as signed: surrounding white space trimmed and each run
 * of spaces inside folded to one. */
static void
put_value(struct strbuf *b, const char *v)
{
    size_t n;

    v += strspn(v, " \t");
    n = strlen(v);
    while (n > 0 && (v[n - 1] == ' ' || v[n - 1] == '\t'))
        n--;
    strbuf_reserve(b, n);
    while (n > 0) {
        if (*v == ' ' && b->len > 0 && b->s[b->len - 1] == ' ') {
            v++;
            n--;
            continue;
        }
        b->s[b->len++] = *v++;
        n--;
    }
    b->s[b->len] = '\0';
}

static int
str_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* SignedHeaders split at ';' and sorted (names point into the copy *buf,
 * which the caller frees). The count. */
static size_t
signed_list(const char *signed_headers, char **buf, char ***names)
{
    char *p;
    size_t n = 1, i = 0;

    *buf = xstrdup(signed_headers);
    for (p = *buf; *p != '\0'; p++)
        n += *p == ';';
    *names = xmalloc(n * sizeof(**names));
    for (p = *buf;;) {
        char *semi = strchr(p, ';');

        (*names)[i++] = p;
        if (semi == NULL)
            break;
        *semi = '\0';
        p = semi + 1;
    }
    qsort(*names, i, sizeof(**names), str_cmp);
    return i;
}

/* The body's SHA-256 in hex. Every DynamoDB request hashes its body as
 * sent: x-amz-content-sha256 is only a header (UNSIGNED-PAYLOAD is S3's
 * alone; other services answer it with a signature mismatch). */
static void
payload_hash(const struct sigv4_request *rq, char out[65])
{
    unsigned char d[SHA256_DIGEST_LENGTH];

    SHA256((const unsigned char *)(rq->body != NULL ? rq->body : ""),
           rq->len, d);
    hex_encode(d, sizeof(d), out);
}

/* The canonical request for query q of rq. */
static char *
canonical(const struct sigv4_request *rq, const struct query *q,
          const char *signed_headers, bool presigned)
{
    struct strbuf b = { 0 };
    char *copy, **names, hash[65];
    size_t n, i;
    unsigned h;

    strbuf_puts(&b, rq->method != NULL ? rq->method : "");
    strbuf_putc(&b, '\n');
    canonical_path(&b, rq->target);
    strbuf_putc(&b, '\n');
    canonical_query(&b, q, presigned);
    strbuf_putc(&b, '\n');
    n = signed_list(signed_headers, &copy, &names);
    for (i = 0; i < n; i++) {
        bool first = true;

        for (h = 0; h < rq->nhdr; h++) {
            if (strcasecmp(rq->hdr[h].name, names[i]) != 0)
                continue;
            if (first)
                strbuf_printf(&b, "%s:", names[i]);
            else
                strbuf_putc(&b, ',');
            put_value(&b, rq->hdr[h].value);
            first = false;
        }
        if (!first)
            strbuf_putc(&b, '\n');
    }
    strbuf_putc(&b, '\n');
    for (i = 0; i < n; i++) {
        if (i > 0)
            strbuf_putc(&b, ';');
        strbuf_puts(&b, names[i]);
    }
    strbuf_putc(&b, '\n');
    payload_hash(rq, hash);
    strbuf_puts(&b, hash);
    free(names);
    free(copy);
    return strbuf_take(&b);
}

char *
sigv4_canonical_request(const struct sigv4_request *rq,
                        const char *signed_headers, bool presigned)
{
    struct query q;
    char *out;

    query_parse(rq->target, &q);
    out = canonical(rq, &q, signed_headers, presigned);
    query_free(&q);
    return out;
}

/* HMAC-SHA256 of msg with key into out (32 bytes). */
static void
hmac(const void *key, size_t klen, const char *msg, unsigned char out[32])
{
    unsigned int len = 32;

    HMAC(EVP_sha256(), key, (int)klen, (const unsigned char *)msg,
         strlen(msg), out, &len);
}

void
sigv4_sign(const char *secret, const char *date8, const char *region,
           const char *service, const char *string_to_sign, char out[65])
{
    unsigned char k[32], k2[32];
    char *first = xasprintf("AWS4%s", secret);

    hmac(first, strlen(first), date8, k);
    hmac(k, sizeof(k), region, k2);
    hmac(k2, sizeof(k2), service, k);
    hmac(k, sizeof(k), TERMINATOR, k2);
    hmac(k2, sizeof(k2), string_to_sign, k);
    hex_encode(k, sizeof(k), out);
    OPENSSL_cleanse(first, strlen(first));
    OPENSSL_cleanse(k2, sizeof(k2));
    free(first);
}

/* ------------------------------------------------------------------------
 * The Authorization header and the presigned query
 * ---------------------------------------------------------------------- */

/* What a request's signature is made of, either form (owned strings). */
struct auth {
    bool presigned;                     /* the query form */
    char *algorithm;
    char *credential, *signature, *signed_headers;
    char *date;                         /* as sent */
    bool http_date;                     /* from a Date header */
    const char *token;                  /* X-Amz-Security-Token (borrowed) */
};

static void
auth_free(struct auth *a)
{
    free(a->algorithm);
    free(a->credential);
    free(a->signature);
    free(a->signed_headers);
    free(a->date);
}

/*
 * Walking the Authorization header's parameters: value[0..n) is the
 * header without surrounding white space; *p starts past the algorithm.
 * Returns 1 with the next parameter's key (*key, *klen: up to its '=')
 * and its value, 0 at the end, -1 for a parameter without '=' (*key and
 * *klen are then the whole of it).
 */
static int
auth_param(const char *value, size_t n, const char **p, const char **key,
           size_t *klen, const char **val, size_t *vlen)
{
    const char *end = value + n;

    while (*p < end) {
        size_t tl = strcspn(*p, ", \t");
        const char *eq;

        if ((size_t)(end - *p) < tl)
            tl = (size_t)(end - *p);
        if (tl == 0) {
            (*p)++;
            continue;
        }
        *key = *p;
        *p += tl;
        eq = memchr(*key, '=', tl);
        if (eq == NULL) {
            *klen = tl;
            return -1;
        }
        *klen = (size_t)(eq - *key);
        *val = eq + 1;
        *vlen = tl - *klen - 1;
        return 1;
    }
    return 0;
}

/* The header's length without trailing white space, and its algorithm's
 * (up to the first white space). */
static size_t
auth_trim(const char *value, size_t *alen)
{
    size_t n = strlen(value);

    while (n > 0 && (value[n - 1] == ' ' || value[n - 1] == '\t'))
        n--;
    *alen = strcspn(value, " \t");
    if (*alen > n)
        *alen = n;
    return n;
}

/*
 * The Authorization header's parameters ("AWS4-HMAC-SHA256 Credential=...,
 * SignedHeaders=..., Signature=..."): split at commas and white space
 * (DynamoDB takes either: scylladb's test_authorization.py, run against
 * DynamoDB), each a key=value pair, the last of a key winning. A
 * parameter without '=' or a missing one is IncompleteSignatureException
 * with DynamoDB's messages (dynalite's recordings of DynamoDB); the
 * message ends with the algorithm as "Authorization=AWS4-" (dynalite's
 * test of the header "AWS4-").
 */
static int
auth_from_header(const struct sigv4_request *rq, const char *value,
                 struct auth *a, struct ddb_err *err)
{
    struct strbuf msg = { 0 };
    size_t alen, n = auth_trim(value, &alen), klen, vlen;
    const char *p = value + alen, *key, *val, *date;
    int rc = 0, more;

    a->algorithm = xstrndup(value, alen);
    while ((more = auth_param(value, n, &p, &key, &klen, &val, &vlen)) != 0) {
        char **slot = NULL;

        if (more < 0)
            return ddb_err_set(err, DDB_INCOMPLETE_SIGNATURE,
                               "'%.*s' not a valid key=value pair (missing "
                               "equal-sign) in Authorization header: "
                               "'%.*s'.", (int)klen, key, (int)n, value);
        if (klen == 10 && strncmp(key, "Credential", 10) == 0)
            slot = &a->credential;
        else if (klen == 9 && strncmp(key, "Signature", 9) == 0)
            slot = &a->signature;
        else if (klen == 13 && strncmp(key, "SignedHeaders", 13) == 0)
            slot = &a->signed_headers;
        if (slot != NULL) {
            free(*slot);
            *slot = xstrndup(val, vlen);
        }
    }
    if (a->credential == NULL || a->credential[0] == '\0')
        strbuf_puts(&msg, "Authorization header requires 'Credential' "
                          "parameter. ");
    if (a->signature == NULL || a->signature[0] == '\0')
        strbuf_puts(&msg, "Authorization header requires 'Signature' "
                          "parameter. ");
    /* SignedHeaders may be empty here; the Host check refuses it later. */
    if (a->signed_headers == NULL)
        strbuf_puts(&msg, "Authorization header requires 'SignedHeaders' "
                          "parameter. ");
    date = header(rq, "X-Amz-Date");
    a->http_date = date == NULL;
    if (date == NULL)
        date = header(rq, "Date");
    if (date == NULL)
        strbuf_puts(&msg, "Authorization header requires existence of "
                          "either a 'X-Amz-Date' or a 'Date' header. ");
    else
        a->date = xstrdup(date);
    if (msg.len > 0)
        rc = ddb_err_set(err, DDB_INCOMPLETE_SIGNATURE, "%sAuthorization=%s",
                         msg.s, a->algorithm);
    a->token = header(rq, "X-Amz-Security-Token");
    strbuf_free(&msg);
    return rc;
}

/* The presigned form: X-Amz-Algorithm, -Credential, -Signature,
 * -SignedHeaders and -Date in the query, the first of each name winning;
 * any missing (or empty) is IncompleteSignatureException with DynamoDB's
 * message (dynalite's recordings). */
static int
auth_from_query(const struct query *q, struct auth *a, struct ddb_err *err)
{
    static const char *const names[5] = {
        "X-Amz-Algorithm", "X-Amz-Credential", "X-Amz-Signature",
        "X-Amz-SignedHeaders", "X-Amz-Date" };
    char **slots[5] = { &a->algorithm, &a->credential, &a->signature,
                        &a->signed_headers, &a->date };
    struct strbuf msg = { 0 };
    unsigned i;
    int rc = 0;

    a->presigned = true;
    for (i = 0; i < 5; i++) {
        const char *v = query_get(q, names[i]);

        if (v == NULL || v[0] == '\0')
            strbuf_printf(&msg, "AWS query-string parameters must include "
                          "'%s'. ", names[i]);
        else
            *slots[i] = xstrdup(v);
    }
    if (msg.len > 0)
        rc = ddb_err_set(err, DDB_INCOMPLETE_SIGNATURE,
                         "%sRe-examine the query-string parameters.", msg.s);
    a->token = query_get(q, "X-Amz-Security-Token");
    strbuf_free(&msg);
    return rc;
}

/* The region names a region can have: lower-case letters, digits and
 * inner hyphens ("us-east-1", "eu-central-1", "local"). */
static bool
region_ok(const char *s, size_t n)
{
    size_t i;

    if (n == 0 || n > SIGV4_REGION_MAX || s[0] == '-' || s[n - 1] == '-')
        return false;
    for (i = 0; i < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') ||
              s[i] == '-'))
            return false;
    return true;
}

/* Split a credential "AKID/YYYYMMDD/region/service/aws4_request" (trailing
 * slashes ignored, as DynamoDB does) into 5 pieces in place; false when
 * it has another number of pieces. */
static bool
credential_split(char *cred, char *piece[5])
{
    size_t n = strlen(cred);
    unsigned k = 0;
    char *p = cred;

    while (n > 0 && cred[n - 1] == '/')
        cred[--n] = '\0';
    for (;;) {
        char *slash = strchr(p, '/');

        if (k == 5)
            return false;
        piece[k++] = p;
        if (slash == NULL)
            break;
        *slash = '\0';
        p = slash + 1;
    }
    return k == 5;
}

/* The Credential parameter of an Authorization header as auth_from_header
 * reads it (the last one before any malformed parameter), without the
 * rest: a new string, or NULL. */
static char *
header_credential(const char *value)
{
    size_t alen, n = auth_trim(value, &alen), klen, vlen, clen = 0;
    const char *p = value + alen, *key, *val, *cred = NULL;

    while (auth_param(value, n, &p, &key, &klen, &val, &vlen) > 0) {
        if (klen == 10 && strncmp(key, "Credential", 10) == 0) {
            cred = val;
            clen = vlen;
        }
    }
    return cred != NULL ? xstrndup(cred, clen) : NULL;
}

bool
sigv4_scope(const struct sigv4_request *rq, struct sigv4_caller *caller)
{
    const char *h = header(rq, "Authorization");
    struct query q;
    char *cred = NULL, *piece[5];
    bool signed_ = false;

    memset(caller, 0, sizeof(*caller));
    query_parse(rq->target, &q);
    if (h != NULL) {
        h += strspn(h, " \t");
        signed_ = strncmp(h, "AWS4-", 5) == 0;
        if (signed_)
            cred = header_credential(h);
    } else if (query_get(&q, "X-Amz-Credential") != NULL) {
        signed_ = true;
        cred = xstrdup(query_get(&q, "X-Amz-Credential"));
    }
    /* A malformed scope leaves the caller empty: any credentials go. */
    if (cred != NULL && credential_split(cred, piece)) {
        if (strlen(piece[0]) <= SIGV4_KEYID_MAX)
            strcpy(caller->access_key, piece[0]);
        if (strlen(piece[2]) <= SIGV4_REGION_MAX)
            strcpy(caller->region, piece[2]);
    }
    free(cred);
    query_free(&q);
    return signed_;
}

/* ------------------------------------------------------------------------
 * Verification
 * ---------------------------------------------------------------------- */

/* Is host (or HTTP/2's :authority) among the signed headers? */
static bool
host_signed(const char *signed_headers)
{
    const char *p = signed_headers;

    while (*p != '\0') {
        size_t n = strcspn(p, ";");

        if ((n == 4 && strncmp(p, "host", 4) == 0) ||
            (n == 10 && strncmp(p, ":authority", 10) == 0))
            return true;
        p += n + (p[n] == ';');
    }
    return false;
}

/* The date checks: its form (IncompleteSignatureException), then the
 * 15 minutes either way (InvalidSignatureException), with AWS's messages
 * (dynalite's recordings; scylladb's test_authorization.py). *iso gets
 * the date as signed. */
static int
check_date(const struct auth *a, uint64_t now_ms, char iso[32],
           struct ddb_err *err)
{
    int64_t secs, now = (int64_t)(now_ms / 1000u), skew = SIGV4_SKEW_MS / 1000;
    char edge[32], nowtxt[32];

    if (!parse_date(a->date, a->http_date, &secs))
        return ddb_err_set(err, DDB_INCOMPLETE_SIGNATURE,
                           "Date must be in ISO-8601 'basic format'. Got "
                           "'%.*s'. See http://en.wikipedia.org/wiki/ISO_8601",
                           256, a->date);
    format_basic(secs, iso, 32);
    format_basic(now, nowtxt, sizeof(nowtxt));
    if ((secs + skew) * 1000 < (int64_t)now_ms) {
        format_basic(now - skew, edge, sizeof(edge));
        return ddb_err_set(err, DDB_INVALID_SIGNATURE,
                           "Signature expired: %s is now earlier than %s "
                           "(%s - 15 min.)", iso, edge, nowtxt);
    }
    if (secs > now + skew) {
        format_basic(now + skew, edge, sizeof(edge));
        return ddb_err_set(err, DDB_INVALID_SIGNATURE,
                           "Signature not yet current: %s is still later "
                           "than %s (%s + 15 min.)", iso, edge, nowtxt);
    }
    return 0;
}

/* The credential scope against the request: its region, service,
 * terminator and date, every mismatch in one InvalidSignatureException
 * (dynalite's recording of DynamoDB shows all four joined). */
static int
check_scope(char *piece[5], const char *service, const char iso[32],
            struct ddb_err *err)
{
    struct strbuf msg = { 0 };
    int rc = 0;

    if (!region_ok(piece[2], strlen(piece[2])))
        strbuf_printf(&msg, "Credential should be scoped to a valid region, "
                      "not '%.*s'. ", 256, piece[2]);
    if (strcmp(piece[3], service) != 0)
        strbuf_printf(&msg, "Credential should be scoped to correct service: "
                      "'%s'. ", service);
    if (strcmp(piece[4], TERMINATOR) != 0)
        strbuf_printf(&msg, "Credential should be scoped with a valid "
                      "terminator: '" TERMINATOR "', not '%.*s'. ", 256,
                      piece[4]);
    if (strlen(piece[1]) != 8 || strncmp(piece[1], iso, 8) != 0)
        strbuf_printf(&msg, "Date in Credential scope does not match "
                      "YYYYMMDD from ISO-8601 version of date from HTTP: "
                      "'%.*s' != '%.8s', from '%s'. ", 256, piece[1], iso,
                      iso);
    if (msg.len > 0) {
        msg.s[--msg.len] = '\0';        /* the last separating space */
        rc = ddb_err_set(err, DDB_INVALID_SIGNATURE, "%s", msg.s);
    }
    strbuf_free(&msg);
    return rc;
}

int
sigv4_verify(const struct sigv4_keys *keys, const char *service,
             uint64_t now_ms, const struct sigv4_request *rq,
             struct sigv4_caller *caller, struct ddb_err *err)
{
    const char *h = header(rq, "Authorization");
    const struct sigv4_key *key;
    struct query q;
    struct auth a;
    char iso[32], *piece[5], *cred = NULL, *creq = NULL, *sts = NULL;
    char hash[65], sig[65];
    unsigned char d[SHA256_DIGEST_LENGTH];
    bool qalg;
    int rc = -1;

    memset(caller, 0, sizeof(*caller));
    memset(&a, 0, sizeof(a));
    query_parse(rq->target, &q);
    qalg = query_get(&q, "X-Amz-Algorithm") != NULL;
    if (h != NULL && qalg) {
        ddb_err_set(err, DDB_INVALID_SIGNATURE, "Found both 'X-Amz-Algorithm' "
                    "as a query-string param and 'Authorization' as HTTP "
                    "header.");
        goto out;
    }
    if (h != NULL)
        h += strspn(h, " \t");
    /* No credentials, or a header of another scheme ("AWS4" is not
     * enough: dynalite's recordings). */
    if ((h == NULL && !qalg) || (h != NULL && strncmp(h, "AWS4-", 5) != 0)) {
        ddb_err_set(err, DDB_MISSING_AUTH_TOKEN,
                    "Request is missing Authentication Token");
        goto out;
    }
    if ((h != NULL ? auth_from_header(rq, h, &a, err)
                   : auth_from_query(&q, &a, err)) != 0 ||
        check_date(&a, now_ms, iso, err) != 0)
        goto out;
    if (!host_signed(a.signed_headers)) {
        ddb_err_set(err, DDB_INVALID_SIGNATURE, "'Host' or ':authority' must "
                    "be a 'SignedHeader' in the AWS Authorization.");
        goto out;
    }
    if (strcmp(a.algorithm, ALGORITHM) != 0) {
        ddb_err_set(err, DDB_INCOMPLETE_SIGNATURE, "Unsupported AWS "
                    "'algorithm': '%.*s' (only " ALGORITHM " for now). ",
                    256, a.algorithm);
        goto out;
    }
    cred = xstrdup(a.credential);
    if (!credential_split(cred, piece)) {
        ddb_err_set(err, DDB_INCOMPLETE_SIGNATURE, "Credential must have "
                    "exactly 5 slash-delimited elements, e.g. keyid/date/"
                    "region/service/term, got '%.*s'", 1024, a.credential);
        goto out;
    }
    if (check_scope(piece, service, iso, err) != 0)
        goto out;
    if (strlen(piece[0]) <= SIGV4_KEYID_MAX)
        strcpy(caller->access_key, piece[0]);
    snprintf(caller->region, sizeof(caller->region), "%s", piece[2]);
    key = sigv4_keys_find(keys, piece[0]);
    if (key == NULL) {
        ddb_err_set(err, DDB_UNRECOGNIZED_CLIENT,
                    "The security token included in the request is invalid.");
        goto out;
    }
    /* The credentials file issues no session tokens: a request carrying
     * one is signed with temporary credentials we never gave out
     * (dynalite's recording: this message, without the period). */
    if (a.token != NULL) {
        ddb_err_set(err, DDB_UNRECOGNIZED_CLIENT,
                    "The security token included in the request is invalid");
        goto out;
    }
    creq = canonical(rq, &q, a.signed_headers, a.presigned);
    SHA256((const unsigned char *)creq, strlen(creq), d);
    hex_encode(d, sizeof(d), hash);
    sts = xasprintf(ALGORITHM "\n%s\n%s/%s/%s/" TERMINATOR "\n%s", iso,
                    piece[1], piece[2], piece[3], hash);
    sigv4_sign(key->secret, piece[1], piece[2], piece[3], sts, sig);
    if (strlen(a.signature) != 64 ||
        CRYPTO_memcmp(sig, a.signature, 64) != 0) {
        ddb_err_set(err, DDB_INVALID_SIGNATURE, "The request signature we "
                    "calculated does not match the signature you provided. "
                    "Check your AWS Secret Access Key and signing method. "
                    "Consult the service documentation for details.");
        goto out;
    }
    caller->key = key;
    rc = 0;
out:
    free(cred);
    free(creq);
    free(sts);
    auth_free(&a);
    query_free(&q);
    return rc;
}
