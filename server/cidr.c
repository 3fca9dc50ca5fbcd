/* SPDX-License-Identifier: MIT */
/* cidr.c - address ranges for --admin-from (cidr.h): parsing CIDR blocks
 * with inet_pton, matching a caller's address bit by bit, and telling a
 * loopback bind from one that other machines reach. */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "server/cidr.h"
#include "storage/util.h"

/* One block "addr[/bits]" (n bytes of s) into c. */
static bool
parse_one(const char *s, size_t n, struct cidr *c)
{
    char buf[64], *slash, *end;
    unsigned long bits;

    if (n == 0 || n >= sizeof(buf))
        return false;
    memcpy(buf, s, n);
    buf[n] = '\0';
    slash = strchr(buf, '/');
    if (slash != NULL)
        *slash = '\0';
    memset(c, 0, sizeof(*c));
    if (inet_pton(AF_INET, buf, c->addr) == 1) {
        c->family = AF_INET;
        c->bits = 32;
    } else if (inet_pton(AF_INET6, buf, c->addr) == 1) {
        c->family = AF_INET6;
        c->bits = 128;
    } else {
        return false;
    }
    if (slash != NULL) {
        if (slash[1] < '0' || slash[1] > '9')
            return false;
        bits = strtoul(slash + 1, &end, 10);
        if (*end != '\0' || bits > c->bits)
            return false;
        c->bits = (unsigned)bits;
    }
    return true;
}

int
cidr_parse(const char *text, struct cidr_list *out, char *msg,
           size_t msgsz)
{
    const char *p = text;
    size_t cap = 0;

    memset(out, 0, sizeof(*out));
    for (;;) {
        size_t n;
        struct cidr c;

        p += strspn(p, " \t");
        n = strcspn(p, ",");
        while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\t'))
            n--;
        if (!parse_one(p, n, &c)) {
            snprintf(msg, msgsz, "--admin-from: '%.*s' is not an address "
                     "or CIDR block (10.0.0.0/8, ::1/128)", (int)n, p);
            cidr_free(out);
            return -1;
        }
        if (out->n == cap) {
            cap = cap ? 2 * cap : 4;
            out->c = xrealloc(out->c, cap * sizeof(*out->c));
        }
        out->c[out->n++] = c;
        p += strcspn(p, ",");
        if (*p != ',')
            return 0;
        p++;
    }
}

void
cidr_free(struct cidr_list *l)
{
    free(l->c);
    memset(l, 0, sizeof(*l));
}

/* The first bits of a and b agree. */
static bool
prefix_eq(const unsigned char *a, const unsigned char *b, unsigned bits)
{
    unsigned whole = bits / 8, rest = bits % 8;

    if (memcmp(a, b, whole) != 0)
        return false;
    return rest == 0 ||
           ((a[whole] ^ b[whole]) & (unsigned char)(0xff << (8 - rest))) == 0;
}

bool
cidr_match(const struct cidr_list *l, const char *addr)
{
    static const unsigned char mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                              0xff, 0xff };
    unsigned char a[16];
    int family;
    size_t i;

    if (addr == NULL)
        return false;
    if (inet_pton(AF_INET, addr, a) == 1) {
        family = AF_INET;
    } else if (inet_pton(AF_INET6, addr, a) == 1) {
        family = AF_INET6;
        if (memcmp(a, mapped, sizeof(mapped)) == 0) {
            memmove(a, a + 12, 4);
            family = AF_INET;
        }
    } else {
        return false;
    }
    for (i = 0; i < l->n; i++)
        if (l->c[i].family == family &&
            prefix_eq(l->c[i].addr, a, l->c[i].bits))
            return true;
    return false;
}

bool
cidr_host_is_loopback(const char *host)
{
    unsigned char a[16];

    if (host == NULL)
        return false;
    if (strcasecmp(host, "localhost") == 0)
        return true;
    if (inet_pton(AF_INET, host, a) == 1)
        return a[0] == 127;
    if (inet_pton(AF_INET6, host, a) == 1) {
        static const unsigned char one[16] = { [15] = 1 };

        return memcmp(a, one, sizeof(one)) == 0;
    }
    return false;
}
