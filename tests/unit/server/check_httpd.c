/* SPDX-License-Identifier: MIT */
/* check_httpd.c - the connection engine's held-back requests (httpd.c,
 * httpd_defer): a request the defer callback holds waits unanswered while
 * the same thread serves other connections; httpd_wake() has the callback
 * asked again at once, the tick at the latest, and once it lets go the
 * request is answered, then what was pipelined behind it; a client that
 * hangs up while held costs nothing. The answers of one pass over the
 * events go out together at its end, or once the first has waited
 * 0.3 ms; what was pipelined behind them is served after. One
 * worker thread, so "meanwhile" means the same thread. */
#include <arpa/inet.h>
#include <check.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "server/httpd.h"

static struct httpd *d;
static atomic_bool hold;                /* defer /held while set */
static atomic_int asked;                /* defer calls */
/* Clients of the batch tests, and what the handler saw of them: the most
 * answers already readable when it was called. */
#define NCLIENT 3
static int client[NCLIENT];
static atomic_int seen_ready;

/* How many clients have an answer waiting (loopback delivers during the
 * server's send, so a sent answer is readable at once). */
static int
clients_ready(void)
{
    int n = 0;

    for (int i = 0; i < NCLIENT; i++) {
        struct pollfd pf = { .fd = client[i], .events = POLLIN };

        if (client[i] > 0 && poll(&pf, 1, 0) == 1)
            n++;
    }
    return n;
}

static void
handler(void *cls, struct http_request *rq, struct http_response *resp,
        const char *local, const char *peer)
{
    (void)cls;
    (void)local;
    (void)peer;
    if (strncmp(rq->target, "/held", 5) == 0) {
        int n = clients_ready();

        if (n > atomic_load(&seen_ready))
            atomic_store(&seen_ready, n);
        if (strncmp(rq->target, "/heldslow", 9) == 0)
            usleep(1500);
    }
    resp->status = 200;
    resp->body = xstrdup(rq->target);
    resp->len = strlen(resp->body);
}

static bool
defer(void *cls, struct http_request *rq)
{
    (void)cls;
    atomic_fetch_add(&asked, 1);
    return atomic_load(&hold) && strncmp(rq->target, "/held", 5) == 0;
}

static void
start(uint64_t hold_us)
{
    struct httpd_options o;

    memset(&o, 0, sizeof(o));
    o.hold_us = hold_us;
    o.host = "127.0.0.1";
    o.threads = 1;
    o.max_conns = 64;
    atomic_store(&hold, true);
    atomic_store(&asked, 0);
    atomic_store(&seen_ready, 0);
    memset(client, 0, sizeof(client));
    d = httpd_start(&o, handler, defer, NULL);
    ck_assert_ptr_nonnull(d);
}

static void
setup(void)
{
    start(0);
}

/* Answers may wait a second for their pass: a busy machine's stalls do
 * not send them early. */
static void
setup_long_hold(void)
{
    start(1000000);
}

static void
teardown(void)
{
    httpd_stop(d);
    d = NULL;
}

static int
dial(void)
{
    struct sockaddr_in a;
    int fd = socket(AF_INET, SOCK_STREAM, 0);

    ck_assert_int_ge(fd, 0);
    memset(&a, 0, sizeof(a));
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)httpd_port(d));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ck_assert_int_eq(connect(fd, (struct sockaddr *)&a, sizeof(a)), 0);
    return fd;
}

static void
send_get(int fd, const char *path)
{
    char req[256];
    int n = snprintf(req, sizeof(req),
                     "GET %s HTTP/1.1\r\nHost: x\r\n\r\n", path);

    ck_assert_int_eq(send(fd, req, (size_t)n, 0), n);
}

/* What fd delivers within ms milliseconds (NUL-terminated in buf). */
static size_t
read_for(int fd, char *buf, size_t cap, int ms)
{
    size_t got = 0;
    struct pollfd pf = { .fd = fd, .events = POLLIN };

    while (got + 1 < cap && poll(&pf, 1, ms) == 1) {
        ssize_t r = recv(fd, buf + got, cap - 1 - got, 0);

        if (r <= 0)
            break;
        got += (size_t)r;
        ms = 50;                        /* the rest of what came */
    }
    buf[got] = '\0';
    return got;
}

/* Answers whose body is the path, in buf, counted. */
static int
answers(const char *buf, const char *path)
{
    int n = 0;
    size_t len = strlen(path);

    for (const char *p = buf; (p = strstr(p, "\r\n\r\n")) != NULL; p += 4)
        if (strncmp(p + 4, path, len) == 0)
            n++;
    return n;
}

static uint64_t
now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

START_TEST(test_held_while_others_served)
{
    char buf[4096];
    int a = dial(), b = dial();

    send_get(a, "/held");
    ck_assert_uint_eq(read_for(a, buf, sizeof(buf), 300), 0);
    /* the one thread serves b meanwhile, as often as it asks */
    for (int i = 0; i < 3; i++) {
        send_get(b, "/free");
        ck_assert_uint_gt(read_for(b, buf, sizeof(buf), 2000), 0);
        ck_assert_int_eq(answers(buf, "/free"), 1);
    }
    ck_assert_uint_eq(read_for(a, buf, sizeof(buf), 50), 0);
    atomic_store(&hold, false);
    httpd_wake(d);
    ck_assert_uint_gt(read_for(a, buf, sizeof(buf), 2000), 0);
    ck_assert_int_eq(answers(buf, "/held"), 1);
    close(a);
    close(b);
}
END_TEST

/* Each httpd_wake() has the thread ask again at once, not at its tick
 * (100 ms): five wake-ups 20 ms apart, five questions, give or take a
 * tick's. */
START_TEST(test_wake_asks_again)
{
    char buf[4096];
    int a = dial(), n0;

    send_get(a, "/held");
    ck_assert_uint_eq(read_for(a, buf, sizeof(buf), 150), 0);
    n0 = atomic_load(&asked);
    for (int i = 0; i < 5; i++) {
        httpd_wake(d);
        usleep(20000);
    }
    ck_assert_int_ge(atomic_load(&asked) - n0, 4);
    close(a);
}
END_TEST

/* Without httpd_wake() the tick asks again: within a few ticks (100 ms). */
START_TEST(test_tick_asks_again)
{
    char buf[4096];
    int a = dial();
    uint64_t t0;

    send_get(a, "/held");
    ck_assert_uint_eq(read_for(a, buf, sizeof(buf), 250), 0);
    ck_assert_int_ge(atomic_load(&asked), 2);   /* at least one retry */
    atomic_store(&hold, false);
    t0 = now_ms();
    ck_assert_uint_gt(read_for(a, buf, sizeof(buf), 2000), 0);
    ck_assert_int_eq(answers(buf, "/held"), 1);
    ck_assert_uint_lt(now_ms() - t0, 1000);
    close(a);
}
END_TEST

/* Requests pipelined behind a held one wait for it, then come in order. */
START_TEST(test_pipelined_behind_held)
{
    const char two[] = "GET /held HTTP/1.1\r\nHost: x\r\n\r\n"
                       "GET /next HTTP/1.1\r\nHost: x\r\n\r\n";
    char buf[4096];
    int a = dial();

    ck_assert_int_eq(send(a, two, sizeof(two) - 1, 0),
                     (ssize_t)(sizeof(two) - 1));
    ck_assert_uint_eq(read_for(a, buf, sizeof(buf), 300), 0);
    atomic_store(&hold, false);
    httpd_wake(d);
    read_for(a, buf, sizeof(buf), 2000);
    ck_assert_int_eq(answers(buf, "/held"), 1);
    ck_assert_int_eq(answers(buf, "/next"), 1);
    ck_assert(strstr(buf, "/held") < strstr(buf, "/next"));
    close(a);
}
END_TEST

/* A client that hangs up while held is closed; the rest carry on, and a
 * wake-up with nothing held is harmless. */
START_TEST(test_hang_up_while_held)
{
    char buf[4096];
    int a = dial(), b = dial();

    send_get(a, "/held");
    ck_assert_uint_eq(read_for(a, buf, sizeof(buf), 200), 0);
    close(a);
    usleep(200000);
    atomic_store(&hold, false);
    httpd_wake(d);
    httpd_wake(d);
    send_get(b, "/free");
    ck_assert_uint_gt(read_for(b, buf, sizeof(buf), 2000), 0);
    ck_assert_int_eq(answers(buf, "/free"), 1);
    close(b);
}
END_TEST

/*
 * Each client sends path (with its number) and, if pipelined, "/next"
 * right behind; the defer callback holds them all until they are read,
 * then one wake-up lets them go, and the thread answers the three in one
 * pass. Every client gets its answers, in order. Returns seen_ready.
 */
static int
release_together(const char *path, bool pipelined)
{
    char buf[4096], req[256];

    for (int i = 0; i < NCLIENT; i++) {
        int n = snprintf(req, sizeof(req),
                         "GET %s%d HTTP/1.1\r\nHost: x\r\n\r\n%s", path, i,
                         pipelined ? "GET /next HTTP/1.1\r\nHost: x\r\n\r\n"
                                   : "");

        client[i] = dial();
        ck_assert_int_eq(send(client[i], req, (size_t)n, 0), n);
    }
    for (int i = 0; i < 200 && atomic_load(&asked) < NCLIENT; i++)
        usleep(10000);
    ck_assert_int_ge(atomic_load(&asked), NCLIENT);
    usleep(50000);                      /* the last one read in full */
    ck_assert_int_eq(clients_ready(), 0);
    atomic_store(&hold, false);
    httpd_wake(d);
    for (int i = 0; i < NCLIENT; i++) {
        char want[64];

        snprintf(want, sizeof(want), "%s%d", path, i);
        read_for(client[i], buf, sizeof(buf), 2000);
        if (pipelined && answers(buf, "/next") == 0)
            read_for(client[i], buf + strlen(buf),
                     sizeof(buf) - strlen(buf), 2000);
        ck_assert_int_eq(answers(buf, want), 1);
        if (pipelined) {
            ck_assert_int_eq(answers(buf, "/next"), 1);
            ck_assert(strstr(buf, want) < strstr(buf, "/next"));
        }
        close(client[i]);
        client[i] = 0;
    }
    return atomic_load(&seen_ready);
}

/* Answers of one pass wait for its end: no client can read its answer
 * while the thread is still handling the others (setup_long_hold). */
START_TEST(test_pass_answers_together)
{
    ck_assert_int_eq(release_together("/held", false), 0);
}
END_TEST

/* ... but not for long: with handlers of 1.5 ms each, the held answers
 * go out once the first has waited 0.3 ms (the default), so later handlers see some
 * delivered; what was pipelined behind a sent answer is still served. */
START_TEST(test_pass_answers_bounded)
{
    ck_assert_int_ge(release_together("/heldslow", true), 1);
}
END_TEST

/* Pipelined requests behind answers sent at the end of the pass. */
START_TEST(test_pass_pipelined)
{
    ck_assert_int_eq(release_together("/held", true), 0);
}
END_TEST

static Suite *
httpd_suite(void)
{
    Suite *s = suite_create("httpd");
    TCase *tc = tcase_create("defer");

    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_held_while_others_served);
    tcase_add_test(tc, test_wake_asks_again);
    tcase_add_test(tc, test_tick_asks_again);
    tcase_add_test(tc, test_pipelined_behind_held);
    tcase_add_test(tc, test_hang_up_while_held);
    tcase_add_test(tc, test_pass_answers_bounded);     /* default bound */
    suite_add_tcase(s, tc);
    tc = tcase_create("pass");
    tcase_add_checked_fixture(tc, setup_long_hold, teardown);
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_pass_answers_together);
    tcase_add_test(tc, test_pass_pipelined);
    suite_add_tcase(s, tc);
    return s;
}

int
main(void)
{
    SRunner *sr = srunner_create(httpd_suite());
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
