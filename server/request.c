/* SPDX-License-Identifier: MIT */
/* request.c - reading one HTTP/1.1 request (RFC 9112) from bytes as they
 * arrive: the head within DynamoDB's 16 KB limits, then the body framed by
 * Content-Length or chunked coding, into a buffer charged to the shared
 * body budget. Anything malformed ends in RQ_ERROR with the status to
 * answer before closing the connection. server/httpd.c drives it. */

#include <string.h>
#include <strings.h>

#include "server/request.h"
#include "storage/util.h"

#define BLANK_LINES_MAX  8          /* empty lines tolerated before a request
                                       (RFC 9112 2.2 asks for at least one) */
#define CHUNK_LINE_MAX   4096       /* a chunk-size line with extensions */
#define CHUNK_DIGITS_MAX 16         /* hex digits of a chunk size (64 bits) */
#define BODY_FIRST_CAP   65536      /* first body buffer; it doubles */
#define HEAD_KEEP_MAX    4096       /* head buffers kept between requests */

/* ------------------------------------------------------------------------
 * The body budget
 * ---------------------------------------------------------------------- */

bool
http_budget_take(struct http_budget *b, size_t n)
{
    size_t cur;

    if (b == NULL || n == 0)
        return true;
    cur = atomic_load(&b->used);
    do {
        if (b->limit != 0 && (cur + n < cur || cur + n > b->limit))
            return false;
    } while (!atomic_compare_exchange_weak(&b->used, &cur, cur + n));
    return true;
}

void
http_budget_give(struct http_budget *b, size_t n)
{
    if (b != NULL && n != 0)
        atomic_fetch_sub(&b->used, n);
}

bool
http_budget_grow(struct http_budget *b, size_t old_cap, size_t new_cap,
                 size_t *charged)
{
    size_t from = old_cap > HTTP_BODY_FREE ? old_cap : HTTP_BODY_FREE;
    size_t n = new_cap > from ? new_cap - from : 0;

    if (!http_budget_take(b, n))
        return false;
    *charged += n;
    return true;
}

/* ------------------------------------------------------------------------
 * Set-up
 * ---------------------------------------------------------------------- */

void
request_init(struct http_request *rq, struct http_budget *budget)
{
    memset(rq, 0, sizeof(*rq));
    rq->budget = budget;
}

void
request_fini(struct http_request *rq)
{
    http_budget_give(rq->budget, rq->charged);
    free(rq->head);
    free(rq->hdr);
    free(rq->body);
    memset(rq, 0, sizeof(*rq));
}

void
request_reset(struct http_request *rq)
{
    struct http_budget *budget = rq->budget;
    char *head = rq->head;
    size_t head_cap = rq->head_cap;
    struct http_header *hdr = rq->hdr;
    unsigned hdr_cap = rq->hdr_cap;

    if (head_cap > HEAD_KEEP_MAX) {
        free(head);
        head = NULL;
        head_cap = 0;
    }
    http_budget_give(rq->budget, rq->charged);
    free(rq->body);
    request_init(rq, budget);
    rq->head = head;
    rq->head_cap = head_cap;
    rq->hdr = hdr;
    rq->hdr_cap = hdr_cap;
}

/* Stop with status and a static reason; returns 0 so callers can stop. */
static int
fail(struct http_request *rq, unsigned status, const char *msg)
{
    rq->state = RQ_ERROR;
    rq->err_status = status;
    rq->err_msg = msg;
    rq->keep_alive = false;
    return 0;
}

/* ------------------------------------------------------------------------
 * Characters (RFC 9110 5.6.2, 5.5)
 * ---------------------------------------------------------------------- */

/* RFC 9110's tchar as a 128-bit set, one bit per byte: every header name
 * byte comes here (a lookup, not a chain of comparisons) */
#define TBIT(c)       ((uint64_t)1 << ((c) & 63))
#define TRANGE(a, b)  ((~(uint64_t)0 >> (63 - ((b) & 63))) & \
                       (~(uint64_t)0 << ((a) & 63)))

static inline bool
is_tchar(unsigned char c)
{
    static const uint64_t set[2] = {
        TBIT('!') | TBIT('#') | TBIT('$') | TBIT('%') | TBIT('&') |
            TBIT('\'') | TBIT('*') | TBIT('+') | TBIT('-') | TBIT('.') |
            TRANGE('0', '9'),
        TRANGE('A', 'Z') | TBIT('^') | TBIT('_') | TBIT('`') |
            TRANGE('a', 'z') | TBIT('|') | TBIT('~'),
    };

    return c < 128 && ((set[c >> 6] >> (c & 63)) & 1) != 0;
}

/* A field value's bytes: visible ASCII, obs-text, space and tab. */
static bool
is_field_char(unsigned char c)
{
    return c == '\t' || (c >= 0x20 && c != 0x7f);
}

/*
 * The first byte in [s, end) that is no field value byte, or end. Eight
 * bytes at a time (header values are most of a request's head): a word
 * with no byte below 0x20 and none equal to 0x7f is all field bytes, and
 * both tests are exact (a borrow only reaches bytes above a byte that
 * sets it). A word that fails them (a tab, say) is checked bytewise.
 */
static const char *
field_end(const char *s, const char *end)
{
    const uint64_t ones = UINT64_C(0x0101010101010101);
    const uint64_t highs = UINT64_C(0x8080808080808080);

    while (end - s >= 8) {
        uint64_t w, del;

        memcpy(&w, s, 8);
        del = w ^ (ones * 0x7f);
        if ((((w - ones * 0x20) & ~w) | ((del - ones) & ~del)) & highs) {
            for (int i = 0; i < 8; i++)
                if (!is_field_char((unsigned char)s[i]))
                    return s + i;
        }
        s += 8;
    }
    for (; s < end; s++)
        if (!is_field_char((unsigned char)*s))
            return s;
    return end;
}

/* ------------------------------------------------------------------------
 * Header lookups
 * ---------------------------------------------------------------------- */

/* Whether header h is called name (any case), whose length is len. */
static bool
is_header(const struct http_header *h, const char *name, size_t len)
{
    return h->name_len == len && strncasecmp(h->name, name, len) == 0;
}

const char *
request_header(const struct http_request *rq, const char *name)
{
    size_t len = strlen(name);
    unsigned i;

    for (i = 0; i < rq->nhdr; i++)
        if (is_header(&rq->hdr[i], name, len))
            return rq->hdr[i].value;
    return NULL;
}

/* True when list (a comma-separated header value) holds token. */
static bool
list_has(const char *list, const char *token)
{
    size_t tlen = strlen(token);
    const char *p = list;

    while (*p != '\0') {
        const char *end;
        size_t n;

        p += strspn(p, " \t,");
        end = p + strcspn(p, ",");
        n = (size_t)(end - p);
        while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\t'))
            n--;
        if (n == tlen && strncasecmp(p, token, n) == 0)
            return true;
        p = end;
    }
    return false;
}

bool
request_header_has(const struct http_request *rq, const char *name,
                   const char *token)
{
    size_t len = strlen(name);
    unsigned i;

    for (i = 0; i < rq->nhdr; i++)
        if (is_header(&rq->hdr[i], name, len) &&
            list_has(rq->hdr[i].value, token))
            return true;
    return false;
}

/* ------------------------------------------------------------------------
 * The head
 * ---------------------------------------------------------------------- */

/*
 * The request line: method SP request-target SP HTTP-version. A method
 * and a target of the right characters, and HTTP/1.0 or HTTP/1.1; else
 * 400 (the connection is then closed).
 */
static int
parse_request_line(struct http_request *rq, char *line)
{
    char *sp1, *sp2;
    const char *v;

    sp1 = strchr(line, ' ');
    if (sp1 == NULL || sp1 == line)
        return fail(rq, 400, "Malformed request line");
    *sp1 = '\0';
    for (v = line; *v != '\0'; v++)
        if (!is_tchar((unsigned char)*v))
            return fail(rq, 400, "Malformed request line");
    sp2 = strchr(sp1 + 1, ' ');
    if (sp2 == NULL || sp2 == sp1 + 1)
        return fail(rq, 400, "Malformed request line");
    *sp2 = '\0';
    for (v = sp1 + 1; *v != '\0'; v++)
        if ((unsigned char)*v <= 0x20 || (unsigned char)*v >= 0x7f)
            return fail(rq, 400, "Malformed request line");
    v = sp2 + 1;
    if (strcmp(v, "HTTP/1.1") == 0)
        rq->minor = 1;
    else if (strcmp(v, "HTTP/1.0") == 0)
        rq->minor = 0;
    else
        return fail(rq, 400, "Unsupported HTTP version");
    rq->method = line;
    rq->target = sp1 + 1;
    return 1;
}

/* One header line "name: value" (no obs-fold, no white space before the
 * colon, no control characters in the value). */
static int
parse_header_line(struct http_request *rq, char *line)
{
    char *colon = strchr(line, ':'), *v, *end;
    const char *c;

    if (colon == NULL || colon == line)
        return fail(rq, 400, "Malformed header line");
    for (c = line; c < colon; c++)
        if (!is_tchar((unsigned char)*c))
            return fail(rq, 400, "Malformed header line");
    *colon = '\0';
    v = colon + 1;
    v += strspn(v, " \t");
    end = v + strlen(v);
    if (field_end(v, end) != end)
        return fail(rq, 400, "Malformed header line");
    while (end > v && (end[-1] == ' ' || end[-1] == '\t'))
        *--end = '\0';
    if (rq->nhdr == rq->hdr_cap) {
        rq->hdr_cap = rq->hdr_cap ? rq->hdr_cap * 2 : 16;
        rq->hdr = xrealloc(rq->hdr, rq->hdr_cap * sizeof(*rq->hdr));
    }
    rq->hdr[rq->nhdr].name = line;
    rq->hdr[rq->nhdr].name_len = (size_t)(colon - line);
    rq->hdr[rq->nhdr].value = v;
    rq->nhdr++;
    return 1;
}

/*
 * How the body is framed (RFC 9112 6): chunked when Transfer-Encoding is
 * exactly "chunked", else Content-Length, else none. Both headers at once
 * are refused (RFC 9112 6.1 lets a server reject them, and asks it to
 * close the connection either way), as are other transfer codings and a
 * Transfer-Encoding in HTTP/1.0; a Content-Length over 16 MB is 413 before
 * any of the body is read, as in DynamoDB.
 */
static int
frame(struct http_request *rq)
{
    const char *cl = NULL, *te = NULL;
    unsigned i, nte = 0;

    for (i = 0; i < rq->nhdr; i++) {
        const struct http_header *h = &rq->hdr[i];
        const char *v = h->value;

        if (is_header(h, "Content-Length", 14)) {
            if (cl != NULL && strcmp(cl, v) != 0)
                return fail(rq, 400, "Conflicting Content-Length headers");
            cl = v;
        } else if (is_header(h, "Transfer-Encoding", 17)) {
            te = v;
            nte++;
        } else if (is_header(h, "Host", 4) &&
                   request_header(rq, "Host") != v) {
            return fail(rq, 400, "More than one Host header");
        }
    }
    if (rq->minor == 1 && request_header(rq, "Host") == NULL)
        return fail(rq, 400, "Missing Host header");
    if (te != NULL) {
        if (cl != NULL)
            return fail(rq, 400, "Content-Length with Transfer-Encoding");
        if (rq->minor == 0)
            return fail(rq, 400, "Transfer-Encoding in an HTTP/1.0 request");
        if (nte != 1 || strcasecmp(te, "chunked") != 0)
            return fail(rq, 400, "Unsupported Transfer-Encoding");
        rq->chunked = true;
        rq->state = RQ_CHUNK_SIZE;
    } else if (cl != NULL) {
        uint64_t n = 0;
        const char *c;

        if (*cl == '\0')
            return fail(rq, 400, "Malformed Content-Length");
        for (c = cl; *c != '\0'; c++) {
            if (*c < '0' || *c > '9')
                return fail(rq, 400, "Malformed Content-Length");
            if (n > HTTP_BODY_MAX)
                break;                  /* too large: no overflow below */
            n = n * 10 + (uint64_t)(*c - '0');
        }
        if (n > HTTP_BODY_MAX)
            return fail(rq, 413, "Request entity too large");
        rq->expected = n;
        rq->state = n > 0 ? RQ_BODY : RQ_DONE;
    } else {
        rq->state = RQ_DONE;
    }
    if (rq->minor == 1)
        rq->keep_alive = !request_header_has(rq, "Connection", "close");
    else
        rq->keep_alive = request_header_has(rq, "Connection", "keep-alive");
    if (rq->state != RQ_DONE && rq->minor == 1) {
        const char *ex = request_header(rq, "Expect");

        rq->expect_continue = ex != NULL &&
                              strcasecmp(ex, "100-continue") == 0;
    }
    return 1;
}

/* The head is complete (head[0..head_len) ends with an empty line): split
 * it into lines, then parse the request line, the headers and framing. */
static int
parse_head(struct http_request *rq)
{
    char *p = rq->head, *end = rq->head + rq->head_len;
    bool first = true;

    /* NUL-terminate every line (CRLF or a bare LF). */
    while (p < end) {
        char *nl = memchr(p, '\n', (size_t)(end - p)), *eol;

        if (nl == NULL)
            break;
        eol = nl > p && nl[-1] == '\r' ? nl - 1 : nl;
        *eol = '\0';
        *nl = '\0';
        if (memchr(p, '\r', (size_t)(eol - p)) != NULL ||
            memchr(p, '\0', (size_t)(eol - p)) != NULL)
            return fail(rq, 400, first ? "Malformed request line"
                                       : "Malformed header line");
        if (eol == p) {
            if (!first)
                break;                  /* the empty line: the end */
            p = nl + 1;                 /* a blank line before the request */
            continue;
        }
        if (first) {
            if (!parse_request_line(rq, p))
                return 0;
            first = false;
        } else if (*p == ' ' || *p == '\t') {
            return fail(rq, 400, "Obsolete line folding");
        } else if (!parse_header_line(rq, p)) {
            return 0;
        }
        p = nl + 1;
    }
    return frame(rq);
}

/*
 * Take head bytes from p until the empty line that ends the head, within
 * DynamoDB's limits: a request line of at most HTTP_LINE_MAX bytes and a
 * header section of at most HTTP_HEADERS_MAX; beyond either, 400 at once
 * (DynamoDB answers a 17,000-byte URL or header with 400 Bad Request:
 * scylladb/scylladb#23442, tests run against DynamoDB, 2025-03-25).
 * Returns the bytes used.
 */
static size_t
feed_head(struct http_request *rq, const char *p, size_t n)
{
    size_t max = BLANK_LINES_MAX * 2 + HTTP_LINE_MAX + 2 +
                 HTTP_HEADERS_MAX + 2;
    size_t take = n, i, old = rq->head_len;

    if (take > max - rq->head_len)
        take = max - rq->head_len;
    if (rq->head_len + take + 1 > rq->head_cap) {
        size_t cap = rq->head_cap ? rq->head_cap : 1024;

        while (cap < rq->head_len + take + 1)
            cap *= 2;
        rq->head = xrealloc(rq->head, cap);
        rq->head_cap = cap;
    }
    memcpy(rq->head + rq->head_len, p, take);
    rq->head_len += take;
    for (i = rq->scan; i < rq->head_len; i++) {
        const char *nl = memchr(rq->head + i, '\n', rq->head_len - i);
        size_t len;

        if (nl == NULL)
            break;
        i = (size_t)(nl - rq->head);
        len = i - rq->line_start;
        if (len > 0 && rq->head[i - 1] == '\r')
            len--;
        if (len == 0) {
            if (rq->have_line) {        /* the end of the head */
                size_t used = i + 1 - old;

                rq->head_len = i + 1;
                rq->head[rq->head_len] = '\0';
                rq->scan = rq->head_len;
                parse_head(rq);
                return used;
            }
            if (++rq->blank_lines > BLANK_LINES_MAX) {
                fail(rq, 400, "Malformed request line");
                return take;
            }
        } else if (!rq->have_line) {
            if (len > HTTP_LINE_MAX) {
                fail(rq, 400, "Request line too long");
                return take;
            }
            rq->have_line = true;
        } else {
            rq->hdr_bytes += i + 1 - rq->line_start;
            if (rq->hdr_bytes > HTTP_HEADERS_MAX) {
                fail(rq, 400, "Request header fields too large");
                return take;
            }
        }
        rq->line_start = i + 1;
    }
    rq->scan = rq->head_len;
    /* The line being read, not ended yet, already too long? */
    if (!rq->have_line && rq->head_len - rq->line_start > HTTP_LINE_MAX + 1)
        fail(rq, 400, "Request line too long");
    else if (rq->have_line && rq->hdr_bytes + (rq->head_len - rq->line_start)
             > HTTP_HEADERS_MAX)
        fail(rq, 400, "Request header fields too large");
    else if (rq->head_len == max)
        fail(rq, 400, "Request header fields too large");
    return take;
}

/* ------------------------------------------------------------------------
 * The body
 * ---------------------------------------------------------------------- */

/* Room for need bytes of body plus its NUL, charged to the budget; a full
 * budget is 503 (the connection is then closed). */
static int
body_reserve(struct http_request *rq, size_t need)
{
    size_t cap = rq->body_cap ? rq->body_cap : BODY_FIRST_CAP;
    size_t limit = (rq->chunked ? HTTP_BODY_MAX : (size_t)rq->expected) + 1;

    if (need + 1 <= rq->body_cap)
        return 1;
    while (cap < need + 1)
        cap *= 2;
    if (cap > limit)
        cap = limit;
    if (!http_budget_grow(rq->budget, rq->body_cap, cap, &rq->charged))
        return fail(rq, 503, "Too many request bodies in progress");
    rq->body = xrealloc(rq->body, cap);
    rq->body_cap = cap;
    return 1;
}

/* Append n body bytes (room is reserved here). */
static int
body_add(struct http_request *rq, const char *p, size_t n)
{
    if (!body_reserve(rq, rq->body_len + n))
        return 0;
    memcpy(rq->body + rq->body_len, p, n);
    rq->body_len += n;
    rq->body[rq->body_len] = '\0';
    return 1;
}

/*
 * Chunked framing, a byte at a time outside chunk data: chunk-size (hex,
 * at most 16 digits), optional extensions, CRLF; the data; CRLF; and after
 * the last (zero) chunk, trailer lines up to an empty one. A chunk that
 * would take the body past 16 MB is 413 as soon as its size is read.
 */
static size_t
feed_chunked(struct http_request *rq, const char *p, size_t n)
{
    size_t i = 0;

    while (i < n && rq->state != RQ_DONE && rq->state != RQ_ERROR) {
        unsigned char c = (unsigned char)p[i];

        if (rq->state == RQ_CHUNK_DATA) {
            size_t take = n - i;

            if (take > rq->chunk_left)
                take = (size_t)rq->chunk_left;
            if (!body_add(rq, p + i, take))
                return i;
            i += take;
            rq->chunk_left -= take;
            if (rq->chunk_left == 0)
                rq->state = RQ_CHUNK_END;
            continue;
        }
        i++;
        if (rq->cr && c != '\n') {
            fail(rq, 400, "Malformed chunked encoding");
            return i;
        }
        if (rq->state == RQ_CHUNK_END) {
            if (c == '\r' && !rq->cr) {
                rq->cr = true;
            } else if (c == '\n') {
                rq->cr = false;
                rq->state = RQ_CHUNK_SIZE;
            } else {
                fail(rq, 400, "Malformed chunked encoding");
            }
            continue;
        }
        if (c != '\r' && c != '\n' && ++rq->line_len > CHUNK_LINE_MAX) {
            fail(rq, 400, rq->state == RQ_TRAILER
                          ? "Request header fields too large"
                          : "Malformed chunked encoding");
            continue;
        }
        if (rq->state == RQ_TRAILER) {
            if (c == '\r') {
                rq->cr = true;
            } else if (c == '\n') {
                rq->cr = false;
                if (rq->line_len == 0)
                    rq->state = RQ_DONE;
                rq->hdr_bytes += rq->line_len + 2;
                if (rq->hdr_bytes > HTTP_HEADERS_MAX)
                    fail(rq, 400, "Request header fields too large");
                rq->line_len = 0;
            } else if (!is_field_char(c)) {
                fail(rq, 400, "Malformed header line");
            }
            continue;
        }
        /* RQ_CHUNK_SIZE */
        if (c == '\r') {
            rq->cr = true;
        } else if (c == '\n') {
            rq->cr = false;
            if (rq->digits == 0) {
                fail(rq, 400, "Malformed chunked encoding");
            } else if (rq->chunk_left == 0) {
                rq->state = RQ_TRAILER;
                rq->hdr_bytes = 0;
            } else if (rq->chunk_left > HTTP_BODY_MAX - rq->body_len) {
                fail(rq, 413, "Request entity too large");
            } else {
                rq->state = RQ_CHUNK_DATA;
            }
            rq->digits = 0;
            rq->in_ext = false;
            rq->line_len = 0;
        } else if (rq->in_ext) {
            if (!is_field_char(c))
                fail(rq, 400, "Malformed chunked encoding");
        } else if (hex_digit(c) >= 0) {
            if (++rq->digits > CHUNK_DIGITS_MAX)
                fail(rq, 400, "Malformed chunked encoding");
            else
                rq->chunk_left = rq->chunk_left * 16 + (unsigned)hex_digit(c);
        } else if ((c == ';' || c == ' ' || c == '\t') && rq->digits > 0) {
            rq->in_ext = true;
        } else {
            fail(rq, 400, "Malformed chunked encoding");
        }
    }
    return i;
}

bool
request_wants_body(const struct http_request *rq)
{
    return rq->state >= RQ_BODY && rq->state <= RQ_TRAILER;
}

size_t
request_feed(struct http_request *rq, const char *p, size_t n)
{
    size_t used = 0;

    if (rq->state == RQ_HEAD)
        used = feed_head(rq, p, n);
    if (rq->state == RQ_BODY && used < n) {
        size_t take = n - used;

        if (take > rq->expected - rq->body_len)
            take = (size_t)(rq->expected - rq->body_len);
        if (!body_add(rq, p + used, take))
            return used;
        used += take;
        if (rq->body_len == rq->expected)
            rq->state = RQ_DONE;
    }
    if (request_wants_body(rq) && rq->chunked && used < n)
        used += feed_chunked(rq, p + used, n - used);
    return used;
}
