/* SPDX-License-Identifier: MIT */
/* cidr.h - address ranges: --admin-from's list of CIDR blocks ("10.0.0.0/8,
 * ::1/128"), the test of a caller's address against it, and whether the
 * address the server binds keeps it on loopback. server/http.c asks
 * before an admin call that changes state. */
#ifndef SHARDLOCAL_CIDR_H
#define SHARDLOCAL_CIDR_H

#include <stdbool.h>
#include <stddef.h>

struct cidr {
    int family;                     /* AF_INET or AF_INET6 */
    unsigned char addr[16];         /* network byte order */
    unsigned bits;                  /* prefix length */
};

struct cidr_list {
    struct cidr *c;                 /* owned */
    size_t n;
};

/*
 * Parse a comma-separated list of blocks ("192.168.1.0/24", "::1/128"; a
 * bare address is one host). 0, or -1 with msg naming the bad block; *out
 * is empty on failure. cidr_free releases it.
 */
int cidr_parse(const char *text, struct cidr_list *out, char *msg,
               size_t msgsz);
void cidr_free(struct cidr_list *l);
/* Is addr ("203.0.113.5", "::1", "::ffff:10.1.2.3": an IPv4 address seen
 * through an IPv6 socket counts as IPv4) inside a block of l? */
bool cidr_match(const struct cidr_list *l, const char *addr);
/* Does binding host ("127.0.0.1", "::1", "localhost") keep every caller on
 * this machine? */
bool cidr_host_is_loopback(const char *host);

#endif
