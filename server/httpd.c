/* SPDX-License-Identifier: MIT */
/* httpd.c - the connection engine. One listening socket is shared by N
 * worker threads (EPOLLEXCLUSIVE); each owns the connections it accepted
 * and runs them in its epoll loop: read a request (request.c), call the
 * handler, write the answer, keep the connection for the next one. A
 * sweep every tick enforces the idle, header and body timeouts; past the
 * connection limit a new client is served by closing the most idle
 * connection; refused requests are answered, then the input is drained
 * for a moment before closing, so the client reads the answer. A request
 * the defer callback holds back waits, read in full, while the thread
 * serves its other connections; httpd_wake() has it asked again. The
 * answers of one pass over epoll's events go out together at its end
 * (or once the first has waited hold_us), so that a client waiting on
 * several connections is woken once for them, not once for each. */

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "server/httpd.h"

#define TICK_MS        100          /* timeout sweeps */
#define LINGER_MS      2000         /* draining after a refusal */
#define WRITE_STALL_MS 60000        /* a client that reads nothing back */
#define STOP_FLUSH_MS  2000         /* sending what is queued at stop */
#define ACCEPT_BATCH   32           /* accepts per wake-up */
#define READ_BUF       65536        /* one recv() */
#define FD_RESERVE     1024         /* descriptors kept for the store */
#define CONTINUE_LINE  "HTTP/1.1 100 Continue\r\n\r\n"
#define HOLD_US        300          /* default hold_us */

enum phase {
    P_IDLE = 0,                     /* between requests: nothing read */
    P_READ,                         /* a request is arriving */
    P_WRITE,                        /* an answer is being sent */
    P_LINGER,                       /* refused: draining, then close */
    P_DEFERRED                      /* read in full, held back (defer) */
};

struct conn {
    int fd;
    struct conn *prev, *next;       /* the worker's list */
    enum phase phase;
    uint32_t events;                /* what epoll watches */
    uint64_t since_ms;              /* phase start, or last progress */
    uint64_t req_ms;                /* the current request's first byte */
    uint64_t seq;                   /* accept order on its thread */
    struct http_request rq;
    char *pending;                  /* input past a request (pipelined) */
    size_t plen;
    char *wbuf;                     /* head bytes to send (owned) */
    size_t wlen, wcap, woff;
    char *body;                     /* body to send (owned) */
    size_t blen, boff;
    bool close_after;               /* close once the answer is out */
    bool linger_after;              /* ... after draining the input */
    bool sent_continue;
    struct conn *held_next;         /* w->held */
    char local[64];                 /* "addr:port" the client dialled */
    char peer[64];                  /* the client's address, no port */
};

struct worker {
    struct httpd *d;
    pthread_t th;
    int ep;                         /* epoll */
    int evfd;                       /* wake-up (stop, httpd_wake) */
    unsigned ndeferred;             /* connections in P_DEFERRED */
    bool in_pass;                   /* answers are held (hold()) */
    struct conn *held, **held_tail; /* answers to send, in order */
    uint64_t held_us;               /* when the first was held */
    struct conn *conns;             /* owned list */
    struct conn *dead;              /* closed, freed after the event batch
                                       (a later event may still name one) */
    unsigned nconns;
    unsigned max_conns;             /* this thread's share of the limit */
    uint64_t seq;                   /* connections accepted, for ties */
    char date[64];                  /* cached Date value */
    time_t date_sec;
    char rbuf[READ_BUF];
};

struct httpd {
    int lfd;
    unsigned port;
    struct httpd_options o;
    httpd_handler *fn;
    httpd_defer *defer;             /* NULL: never */
    void *cls;
    struct worker *w;
    unsigned nw;
    atomic_bool stop;
    struct http_budget budget;
    pthread_mutex_t spare_lock;     /* the spare descriptor (EMFILE) */
    int spare_fd;
};

/* ------------------------------------------------------------------------
 * Responses
 * ---------------------------------------------------------------------- */

void
http_response_add(struct http_response *r, const char *name,
                  const char *value)
{
    strbuf_puts(&r->head, name);
    strbuf_add(&r->head, ": ", 2);
    strbuf_puts(&r->head, value);
    strbuf_add(&r->head, "\r\n", 2);
}

void
http_response_add_uint(struct http_response *r, const char *name, uint64_t v)
{
    char d[UINT_DEC_MAX];

    uint_dec(v, d);
    http_response_add(r, name, d);
}

static const char *
reason(unsigned status)
{
    switch (status) {
    case 200: return "OK";
    case 204: return "No Content";
    case 400: return "Bad Request";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 408: return "Request Timeout";
    case 409: return "Conflict";
    case 413: return "Request Entity Too Large";
    case 415: return "Unsupported Media Type";
    case 429: return "Too Many Requests";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 503: return "Service Unavailable";
    default: return "Unknown";
    }
}

/* The Date header's value, cached for the second. */
static const char *
date_now(struct worker *w)
{
    time_t t = time(NULL);
    struct tm tm;

    if (t != w->date_sec) {
        gmtime_r(&t, &tm);
        strftime(w->date, sizeof(w->date), "%a, %d %b %Y %H:%M:%S GMT",
                 &tm);
        w->date_sec = t;
    }
    return w->date;
}

/* ------------------------------------------------------------------------
 * Connections
 * ---------------------------------------------------------------------- */

static void
watch(struct worker *w, struct conn *c, uint32_t events)
{
    struct epoll_event ev;

    if (c->events == events)
        return;
    memset(&ev, 0, sizeof(ev));
    ev.events = events;
    ev.data.ptr = c;
    epoll_ctl(w->ep, EPOLL_CTL_MOD, c->fd, &ev);
    c->events = events;
}

/* Close c. Its memory waits on w->dead until the event batch is done:
 * a later event of the same batch may name it (fd is then -1). */
static void
conn_close(struct worker *w, struct conn *c)
{
    epoll_ctl(w->ep, EPOLL_CTL_DEL, c->fd, NULL);
    close(c->fd);
    c->fd = -1;
    if (c->prev != NULL)
        c->prev->next = c->next;
    else
        w->conns = c->next;
    if (c->next != NULL)
        c->next->prev = c->prev;
    w->nconns--;
    if (c->phase == P_DEFERRED)
        w->ndeferred--;
    request_fini(&c->rq);
    free(c->pending);
    free(c->wbuf);
    free(c->body);
    c->pending = c->wbuf = c->body = NULL;
    c->next = w->dead;
    w->dead = c;
}

static void
free_dead(struct worker *w)
{
    while (w->dead != NULL) {
        struct conn *c = w->dead;

        w->dead = c->next;
        free(c);
    }
}

/* Refused: stop writing, read and drop what the client still sends for a
 * moment (so its TCP stack delivers our answer instead of a reset), then
 * close. */
static void
conn_linger(struct worker *w, struct conn *c, uint64_t now)
{
    shutdown(c->fd, SHUT_WR);
    request_fini(&c->rq);
    free(c->pending);
    c->pending = NULL;
    c->plen = 0;
    c->phase = P_LINGER;
    c->since_ms = now;
    watch(w, c, EPOLLIN);
}

/* Everything queued was sent: wait for the next request, close or
 * linger. Returns false when c was closed. */
static bool
write_done(struct worker *w, struct conn *c, uint64_t now)
{
    free(c->body);
    c->body = NULL;
    c->blen = c->boff = 0;
    c->wlen = c->woff = 0;
    if (c->phase != P_WRITE) {          /* only "100 Continue" went out */
        watch(w, c, EPOLLIN);
        return true;
    }
    if (c->linger_after) {
        conn_linger(w, c, now);
        return true;
    }
    if (c->close_after || atomic_load(&w->d->stop)) {
        conn_close(w, c);
        return false;
    }
    request_reset(&c->rq);
    c->phase = P_IDLE;
    c->since_ms = now;
    c->sent_continue = false;
    watch(w, c, EPOLLIN);
    return true;
}

/* Send what is queued. Returns false when c was closed. */
static bool
write_more(struct worker *w, struct conn *c, uint64_t now)
{
    for (;;) {
        struct iovec iov[2];
        struct msghdr mh;
        int n = 0;
        ssize_t r;

        if (c->woff < c->wlen) {
            iov[n].iov_base = c->wbuf + c->woff;
            iov[n++].iov_len = c->wlen - c->woff;
        }
        if (c->boff < c->blen) {
            iov[n].iov_base = c->body + c->boff;
            iov[n++].iov_len = c->blen - c->boff;
        }
        if (n == 0)
            return write_done(w, c, now);
        memset(&mh, 0, sizeof(mh));
        mh.msg_iov = iov;
        mh.msg_iovlen = (size_t)n;
        r = sendmsg(c->fd, &mh, MSG_NOSIGNAL);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) {
                watch(w, c, c->phase == P_WRITE ? EPOLLOUT
                                                : EPOLLIN | EPOLLOUT);
                return true;
            }
            conn_close(w, c);
            return false;
        }
        c->since_ms = now;
        if ((size_t)r <= c->wlen - c->woff) {
            c->woff += (size_t)r;
        } else {
            r -= (ssize_t)(c->wlen - c->woff);
            c->woff = c->wlen;
            c->boff += (size_t)r;
        }
    }
}

static void
wbuf_add(struct conn *c, const char *p, size_t n)
{
    if (c->wlen + n > c->wcap) {
        size_t cap = c->wcap ? c->wcap : 512;

        while (cap < c->wlen + n)
            cap *= 2;
        c->wbuf = xrealloc(c->wbuf, cap);
        c->wcap = cap;
    }
    memcpy(c->wbuf + c->wlen, p, n);
    c->wlen += n;
}

/* During a pass: queue c's answer for send_held(). */
static void
hold(struct worker *w, struct conn *c)
{
    if (w->held == NULL)
        w->held_us = mono_us();
    c->held_next = NULL;
    *w->held_tail = c;
    w->held_tail = &c->held_next;
}

/* Call the handler on the finished (or refused) request and send its
 * answer, unless the defer callback holds it back: then c waits, watched
 * for nothing (a hang-up still shows), until retry_deferred(). Returns
 * false when c was closed. */
static bool
respond(struct worker *w, struct conn *c, uint64_t now)
{
    struct http_response resp;
    struct strbuf h = { 0 };
    bool refused = c->rq.state == RQ_ERROR;

    if (!refused && w->d->defer != NULL &&
        !atomic_load(&w->d->stop) && w->d->defer(w->d->cls, &c->rq)) {
        if (c->phase != P_DEFERRED) {
            c->phase = P_DEFERRED;
            w->ndeferred++;
        }
        watch(w, c, 0);
        return true;
    }
    if (c->phase == P_DEFERRED) {
        c->phase = P_READ;
        w->ndeferred--;
    }
    memset(&resp, 0, sizeof(resp));
    w->d->fn(w->d->cls, &c->rq, &resp, c->local, c->peer);
    c->close_after = resp.close || refused || !c->rq.keep_alive ||
                     atomic_load(&w->d->stop);
    c->linger_after = refused;
    strbuf_reserve(&h, 128 + resp.head.len);
    strbuf_puts(&h, "HTTP/1.1 ");
    strbuf_put_uint(&h, resp.status);
    strbuf_putc(&h, ' ');
    strbuf_puts(&h, reason(resp.status));
    strbuf_puts(&h, "\r\nDate: ");
    strbuf_puts(&h, date_now(w));
    strbuf_puts(&h, "\r\n");
    if (resp.head.s != NULL)
        strbuf_add(&h, resp.head.s, resp.head.len);
    strbuf_puts(&h, "Content-Length: ");
    strbuf_put_uint(&h, resp.len);
    strbuf_puts(&h, "\r\n");
    if (c->close_after)
        strbuf_puts(&h, "Connection: close\r\n");
    else if (c->rq.minor == 0)
        strbuf_puts(&h, "Connection: keep-alive\r\n");
    strbuf_add(&h, "\r\n", 2);
    strbuf_free(&resp.head);
    wbuf_add(c, h.s, h.len);
    strbuf_free(&h);
    c->body = resp.body;
    c->blen = resp.head_only ? 0 : resp.len;
    c->boff = 0;
    c->phase = P_WRITE;
    c->since_ms = now;
    if (w->in_pass) {
        hold(w, c);
        return true;
    }
    return write_more(w, c, now);
}

/*
 * Feed input to the connection's request; answer it once complete. What
 * is left past a complete request waits in c->pending until the answer is
 * out (run_pending). Returns false when c was closed.
 */
static bool
process(struct worker *w, struct conn *c, const char *p, size_t n,
        uint64_t now)
{
    size_t before = c->rq.body_len, used;
    bool in_head;

    if (c->phase == P_IDLE) {
        c->phase = P_READ;
        c->req_ms = now;
    }
    in_head = c->rq.state == RQ_HEAD;
    used = request_feed(&c->rq, p, n);
    if (in_head || c->rq.body_len != before)
        c->since_ms = now;              /* progress */
    if (c->rq.state == RQ_DONE || c->rq.state == RQ_ERROR) {
        if (c->rq.state == RQ_DONE && used < n) {
            c->pending = xmalloc(n - used);
            memcpy(c->pending, p + used, n - used);
            c->plen = n - used;
        }
        return respond(w, c, now);
    }
    if (request_wants_body(&c->rq) && c->rq.expect_continue &&
        !c->sent_continue) {
        c->sent_continue = true;
        wbuf_add(c, CONTINUE_LINE, sizeof(CONTINUE_LINE) - 1);
        return write_more(w, c, now);
    }
    return true;
}

/* Serve requests that arrived pipelined behind the one just answered, as
 * long as each answer goes out at once. Returns false when c was closed. */
static bool
run_pending(struct worker *w, struct conn *c, uint64_t now)
{
    while (c->phase == P_IDLE && c->plen > 0) {
        char *p = c->pending;
        size_t n = c->plen;
        bool alive;

        c->pending = NULL;
        c->plen = 0;
        alive = process(w, c, p, n, now);
        free(p);
        if (!alive)
            return false;
    }
    return true;
}

/* Readable: one recv(), then feed it (level-triggered: more comes).
 * Returns false when c was closed. */
static bool
conn_read(struct worker *w, struct conn *c, uint64_t now)
{
    ssize_t r = recv(c->fd, w->rbuf, sizeof(w->rbuf), 0);

    if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK ||
                  errno == EINTR))
        return true;
    if (r <= 0) {                       /* closed, or an error */
        conn_close(w, c);
        return false;
    }
    if (c->phase == P_LINGER)
        return true;                    /* dropped */
    return process(w, c, w->rbuf, (size_t)r, now);
}

static void
conn_event(struct worker *w, struct conn *c, uint32_t ev, uint64_t now)
{
    if (c->fd < 0)
        return;                         /* closed earlier in this batch */
    if (c->phase == P_DEFERRED) {       /* watched for nothing: a hang-up */
        if (ev & (EPOLLHUP | EPOLLERR))
            conn_close(w, c);
        return;
    }
    if ((ev & EPOLLOUT) && !write_more(w, c, now))
        return;
    if (ev & (EPOLLIN | EPOLLHUP | EPOLLERR)) {
        if (c->phase == P_WRITE) {
            if (!(ev & EPOLLOUT) && (ev & (EPOLLHUP | EPOLLERR))) {
                conn_close(w, c);
                return;
            }
        } else if (!conn_read(w, c, now)) {
            return;
        }
    }
    run_pending(w, c, now);
}

/*
 * Send the held answers, then serve what was pipelined behind them (whose
 * answers are held again while the pass lasts). Waking a client is the
 * dearest part of sending an answer: the kernel wakes it on another CPU,
 * an inter-processor interrupt, in a VM a trap to the host. Sent back to
 * back, only the first answer of a burst finds the client asleep.
 */
static void
send_held(struct worker *w, uint64_t now)
{
    struct conn *c = w->held, *next;

    w->held = NULL;
    w->held_tail = &w->held;
    for (; c != NULL; c = next) {
        next = c->held_next;
        if (c->fd >= 0 && write_more(w, c, now))
            run_pending(w, c, now);
    }
}

/* Between two events of a pass: send the held answers once the first
 * has waited hold_us, so that a slow request does not hold the others'
 * answers for long. */
static void
pass_point(struct worker *w, uint64_t now)
{
    if (w->held != NULL && mono_us() - w->held_us >= w->d->o.hold_us)
        send_held(w, now);
}

/* The pass is over: send what it held; what is served from here on is
 * answered at once. */
static void
end_pass(struct worker *w, uint64_t now)
{
    w->in_pass = false;
    send_held(w, now);
}

/* Ask the defer callback again about each held-back request: answer those
 * it lets go (and what arrived pipelined behind them). */
static void
retry_deferred(struct worker *w, uint64_t now)
{
    struct conn *c, *next;

    for (c = w->conns; c != NULL && w->ndeferred > 0; c = next) {
        next = c->next;
        if (c->phase == P_DEFERRED && respond(w, c, now))
            run_pending(w, c, now);
        pass_point(w, now);
    }
}

/* ------------------------------------------------------------------------
 * Timeouts and eviction
 * ---------------------------------------------------------------------- */

/* How far c is from serving anyone: 0 for a closing connection, 1 idle,
 * 2 a head arriving, 3 a body arriving; -1 busy (never evicted). *age
 * says how long it has been so. */
static int
idle_rank(const struct conn *c, uint64_t now, uint64_t *age)
{
    switch (c->phase) {
    case P_LINGER:
        *age = now - c->since_ms;
        return 0;
    case P_IDLE:
        *age = now - c->since_ms;
        return 1;
    case P_READ:
        if (c->rq.state == RQ_HEAD) {
            *age = now - c->req_ms;
            return 2;
        }
        *age = now - c->since_ms;
        return 3;
    default:
        return -1;
    }
}

/* Close the connection least in use; false when every one is busy. */
static bool
evict_one(struct worker *w, uint64_t now)
{
    struct conn *c, *best = NULL;
    int best_rank = 99;
    uint64_t best_age = 0, age;

    for (c = w->conns; c != NULL; c = c->next) {
        int r = idle_rank(c, now, &age);

        if (r < 0)
            continue;
        if (r < best_rank || (r == best_rank && (age > best_age ||
            (age == best_age && c->seq < best->seq)))) {
            best = c;
            best_rank = r;
            best_age = age;
        }
    }
    if (best == NULL)
        return false;
    if (w->d->o.debug)
        fprintf(stderr, "shardlocal: connection limit: closing a "
                "connection %s for %llu ms\n",
                best_rank == 1 ? "idle" : "in progress",
                (unsigned long long)best_age);
    conn_close(w, best);
    return true;
}

static void
sweep(struct worker *w, uint64_t now)
{
    const struct httpd_options *o = &w->d->o;
    struct conn *c, *next;

    for (c = w->conns; c != NULL; c = next) {
        uint64_t limit = 0, from = c->since_ms;

        next = c->next;
        switch (c->phase) {
        case P_IDLE:
            limit = o->idle_ms;
            break;
        case P_READ:
            if (c->rq.state == RQ_HEAD) {
                limit = o->header_ms;
                from = c->req_ms;
            } else {
                limit = o->body_ms;
            }
            break;
        case P_WRITE:
            limit = WRITE_STALL_MS;
            break;
        case P_LINGER:
            limit = LINGER_MS;
            break;
        case P_DEFERRED:                /* waits on us, not on the client */
            break;
        }
        if (limit != 0 && now - from > limit) {
            if (o->debug && c->phase != P_LINGER)
                fprintf(stderr, "shardlocal: closing a connection: %s "
                        "timeout\n", c->phase == P_IDLE ? "idle"
                        : c->phase == P_WRITE ? "write"
                        : c->rq.state == RQ_HEAD ? "header" : "body");
            conn_close(w, c);
        }
    }
}

/* ------------------------------------------------------------------------
 * Accepting
 * ---------------------------------------------------------------------- */

/* "addr:port" of a socket address. */
static void
addr_text(const struct sockaddr_storage *ss, char *out, size_t n)
{
    char host[INET6_ADDRSTRLEN] = "";
    unsigned port = 0;

    if (ss->ss_family == AF_INET) {
        const struct sockaddr_in *a = (const struct sockaddr_in *)ss;

        inet_ntop(AF_INET, &a->sin_addr, host, sizeof(host));
        port = ntohs(a->sin_port);
        snprintf(out, n, "%s:%u", host, port);
    } else {
        const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)ss;

        inet_ntop(AF_INET6, &a->sin6_addr, host, sizeof(host));
        port = ntohs(a->sin6_port);
        snprintf(out, n, "[%s]:%u", host, port);
    }
}

/* The address of a socket address, without its port. */
static void
peer_text(const struct sockaddr_storage *ss, char *out, size_t n)
{
    const void *a = ss->ss_family == AF_INET
                        ? (const void *)&((const struct sockaddr_in *)ss)
                              ->sin_addr
                        : (const void *)&((const struct sockaddr_in6 *)ss)
                              ->sin6_addr;

    if (inet_ntop(ss->ss_family, a, out, (socklen_t)n) == NULL)
        snprintf(out, n, "?");
}

/* Out of descriptors with nothing to evict: accept and drop one pending
 * connection with the spare descriptor, so the listener stops firing. */
static void
shed_one(struct httpd *d)
{
    pthread_mutex_lock(&d->spare_lock);
    if (d->spare_fd >= 0) {
        int fd;

        close(d->spare_fd);
        fd = accept(d->lfd, NULL, NULL);
        if (fd >= 0)
            close(fd);
        d->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    }
    pthread_mutex_unlock(&d->spare_lock);
}

static void
accept_some(struct worker *w, uint64_t now)
{
    struct httpd *d = w->d;
    int i;

    for (i = 0; i < ACCEPT_BATCH; i++) {
        struct sockaddr_storage ss;
        socklen_t sl = sizeof(ss);
        struct epoll_event ev;
        struct conn *c;
        int fd, one = 1;

        fd = accept4(d->lfd, (struct sockaddr *)&ss, &sl,
                     SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED)
                continue;
            if ((errno == EMFILE || errno == ENFILE) &&
                !evict_one(w, now))
                shed_one(d);
            return;
        }
        /* Each thread keeps its share of the limit: past it, its most
         * idle connection makes room, so the new client is served. */
        if (w->nconns + 1 > w->max_conns && !evict_one(w, now)) {
            close(fd);                  /* all busy: refuse */
            continue;
        }
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
        c = xcalloc(1, sizeof(*c));
        c->fd = fd;
        c->seq = w->seq++;
        c->since_ms = now;
        request_init(&c->rq, &d->budget);
        peer_text(&ss, c->peer, sizeof(c->peer));
        sl = sizeof(ss);
        if (getsockname(fd, (struct sockaddr *)&ss, &sl) == 0)
            addr_text(&ss, c->local, sizeof(c->local));
        c->events = EPOLLIN;
        memset(&ev, 0, sizeof(ev));
        ev.events = EPOLLIN;
        ev.data.ptr = c;
        if (epoll_ctl(w->ep, EPOLL_CTL_ADD, fd, &ev) != 0) {
            request_fini(&c->rq);
            free(c);
            close(fd);
            continue;
        }
        c->next = w->conns;
        if (w->conns != NULL)
            w->conns->prev = c;
        w->conns = c;
        w->nconns++;
    }
}

/* ------------------------------------------------------------------------
 * Workers
 * ---------------------------------------------------------------------- */

/* At stop: give queued answers a moment to go out, then close all. */
static void
worker_drain(struct worker *w)
{
    uint64_t end = mono_ms() + STOP_FLUSH_MS;
    struct epoll_event evs[64];

    for (;;) {
        struct conn *c, *next;
        bool writing = false;
        int n, i;

        for (c = w->conns; c != NULL; c = next) {
            next = c->next;
            if (c->phase == P_WRITE)
                writing = true;
            else
                conn_close(w, c);
        }
        if (!writing || mono_ms() >= end)
            break;
        n = epoll_wait(w->ep, evs, 64, TICK_MS);
        for (i = 0; i < n; i++) {
            void *p = evs[i].data.ptr;

            if (p != &w->d->lfd && p != &w->evfd)
                conn_event(w, p, evs[i].events, mono_ms());
        }
        free_dead(w);
    }
    while (w->conns != NULL)
        conn_close(w, w->conns);
    free_dead(w);
}

static void *
worker_main(void *arg)
{
    struct worker *w = arg;
    struct epoll_event evs[64];
    uint64_t last_sweep = mono_ms();

    while (!atomic_load(&w->d->stop)) {
        int n = epoll_wait(w->ep, evs, 64, TICK_MS), i;
        uint64_t now = mono_ms();
        bool woken = false;

        w->in_pass = true;
        for (i = 0; i < n && !atomic_load(&w->d->stop); i++) {
            void *p = evs[i].data.ptr;

            if (p == &w->d->lfd)
                accept_some(w, now);
            else if (p == &w->evfd)
                woken = true;
            else
                conn_event(w, p, evs[i].events, now);
            pass_point(w, now);
        }
        if (woken) {
            uint64_t count;

            (void)!read(w->evfd, &count, sizeof(count));
        }
        /* after the read: a wake-up from now on is seen next time */
        if ((woken || now - last_sweep >= TICK_MS) && w->ndeferred > 0)
            retry_deferred(w, now);
        end_pass(w, now);
        if (now - last_sweep >= TICK_MS) {
            sweep(w, now);
            last_sweep = now;
        }
        free_dead(w);
    }
    epoll_ctl(w->ep, EPOLL_CTL_DEL, w->d->lfd, NULL);
    worker_drain(w);
    return NULL;
}

/* Raise the descriptor limit to its ceiling and keep max_conns within it
 * (leaving room for the store's files). */
static unsigned
fit_fd_limit(unsigned want)
{
    struct rlimit rl;
    rlim_t room;

    if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
        return want;
    if (rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
        getrlimit(RLIMIT_NOFILE, &rl);
    }
    room = rl.rlim_cur > 2 * FD_RESERVE ? rl.rlim_cur - FD_RESERVE
                                        : rl.rlim_cur / 2;
    if (room < (rlim_t)want) {
        fprintf(stderr, "shardlocal: open-file limit %llu: serving at most "
                "%llu connections\n", (unsigned long long)rl.rlim_cur,
                (unsigned long long)room);
        return (unsigned)room;
    }
    return want;
}

static int
listen_on(struct httpd *d)
{
    struct addrinfo hints, *ai = NULL, *pick;
    struct sockaddr_storage ss;
    socklen_t sl = sizeof(ss);
    char port[16];
    int gai, fd, one = 1;

    memset(&hints, 0, sizeof(hints));
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE;
    snprintf(port, sizeof(port), "%u", d->o.port);
    gai = getaddrinfo(d->o.host, port, &hints, &ai);
    if (gai != 0 || ai == NULL) {
        fprintf(stderr, "shardlocal: cannot resolve host '%s': %s\n",
                d->o.host, gai_strerror(gai));
        return -1;
    }
    /* "localhost" may resolve to ::1 first; clients mostly dial
     * 127.0.0.1, so prefer an IPv4 address when there is one. */
    for (pick = ai; pick != NULL; pick = pick->ai_next)
        if (pick->ai_family == AF_INET)
            break;
    if (pick == NULL)
        pick = ai;
    fd = socket(pick->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
                0);
    if (fd >= 0)
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (fd < 0 || bind(fd, pick->ai_addr, pick->ai_addrlen) != 0 ||
        listen(fd, SOMAXCONN) != 0 ||
        getsockname(fd, (struct sockaddr *)&ss, &sl) != 0) {
        fprintf(stderr, "shardlocal: cannot listen on %s:%u: %s\n",
                d->o.host, d->o.port, strerror(errno));
        if (fd >= 0)
            close(fd);
        freeaddrinfo(ai);
        return -1;
    }
    freeaddrinfo(ai);
    d->lfd = fd;
    d->port = ss.ss_family == AF_INET
              ? ntohs(((struct sockaddr_in *)&ss)->sin_port)
              : ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
    return 0;
}

struct httpd *
httpd_start(const struct httpd_options *o, httpd_handler *fn,
            httpd_defer *defer, void *cls)
{
    struct httpd *d = xcalloc(1, sizeof(*d));
    unsigned i;

    d->o = *o;
    d->fn = fn;
    d->defer = defer;
    d->cls = cls;
    d->nw = o->threads > 0 ? o->threads : 1;
    d->o.max_conns = fit_fd_limit(o->max_conns > 0 ? o->max_conns : 1);
    if (d->o.hold_us == 0)
        d->o.hold_us = HOLD_US;
    d->budget.limit = o->body_budget;
    atomic_init(&d->budget.used, 0);
    atomic_init(&d->stop, false);
    pthread_mutex_init(&d->spare_lock, NULL);
    d->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (listen_on(d) != 0)
        goto fail;
    d->w = xcalloc(d->nw, sizeof(*d->w));
    for (i = 0; i < d->nw; i++) {
        struct worker *w = &d->w[i];
        struct epoll_event ev;

        w->d = d;
        w->max_conns = (d->o.max_conns + d->nw - 1) / d->nw;
        w->held_tail = &w->held;
        w->ep = epoll_create1(EPOLL_CLOEXEC);
        w->evfd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
        memset(&ev, 0, sizeof(ev));
        ev.events = EPOLLIN | EPOLLEXCLUSIVE;
        ev.data.ptr = &d->lfd;
        if (w->ep < 0 || w->evfd < 0 ||
            epoll_ctl(w->ep, EPOLL_CTL_ADD, d->lfd, &ev) != 0)
            goto fail_threads;
        ev.events = EPOLLIN;
        ev.data.ptr = &w->evfd;
        epoll_ctl(w->ep, EPOLL_CTL_ADD, w->evfd, &ev);
        if (pthread_create(&w->th, NULL, worker_main, w) != 0)
            goto fail_threads;
    }
    return d;
fail_threads:
    fprintf(stderr, "shardlocal: cannot start the HTTP threads: %s\n",
            strerror(errno));
    if (d->w[i].ep >= 0)
        close(d->w[i].ep);
    if (d->w[i].evfd >= 0)
        close(d->w[i].evfd);
    d->nw = i;                          /* the ones started */
    httpd_stop(d);
    return NULL;
fail:
    if (d->spare_fd >= 0)
        close(d->spare_fd);
    pthread_mutex_destroy(&d->spare_lock);
    free(d);
    return NULL;
}

unsigned
httpd_port(const struct httpd *d)
{
    return d != NULL ? d->port : 0;
}

struct http_budget *
httpd_budget(struct httpd *d)
{
    return &d->budget;
}

void
httpd_wake(struct httpd *d)
{
    for (unsigned i = 0; i < d->nw; i++) {
        uint64_t one = 1;

        /* A failed write is harmless: the tick retries too. */
        (void)!write(d->w[i].evfd, &one, sizeof(one));
    }
}

void
httpd_stop(struct httpd *d)
{
    unsigned i;

    if (d == NULL)
        return;
    atomic_store(&d->stop, true);
    for (i = 0; i < d->nw; i++) {
        uint64_t one = 1;

        /* A failed write is harmless: the tick wakes the thread too. */
        (void)!write(d->w[i].evfd, &one, sizeof(one));
    }
    for (i = 0; i < d->nw; i++)
        pthread_join(d->w[i].th, NULL);
    for (i = 0; i < d->nw; i++) {
        close(d->w[i].ep);
        close(d->w[i].evfd);
    }
    close(d->lfd);
    if (d->spare_fd >= 0)
        close(d->spare_fd);
    pthread_mutex_destroy(&d->spare_lock);
    free(d->w);
    free(d);
}
