/* SPDX-License-Identifier: MIT */
/* tcall.h - what the api/tables suites (check_tags.c, check_policy.c,
 * check_restore.c) share: an in-memory store behind api_dispatch() with a
 * virtual clock, and requests built with json_pack that assert their
 * outcome. Linked into each suite (tcall.c, in the fixture library). */
#ifndef SHARDLOCAL_TEST_TCALL_H
#define SHARDLOCAL_TEST_TCALL_H

#include <jansson.h>

#include "api/api.h"

extern struct api_server tcall_srv;     /* open between setup and teardown */

/* tcase_add_checked_fixture() pair: a fresh in-memory store and server,
 * the virtual clock at 1,700,000,000,000 ms; then both closed. */
void tcall_setup(void);
void tcall_teardown(void);

/* Dispatch op with body (stolen) and assert the outcome: success when code
 * is NULL, else that error code (e.g. "ValidationException"). The reply,
 * a new reference. */
json_t *tcall(const char *op, json_t *body, const char *code);
/* The same, dropping a successful reply. */
void tcall_ok(const char *op, json_t *body);
/* An error reply's message, which must be msg exactly. */
void tcall_msg(const char *op, json_t *body, const char *code,
               const char *msg);

/* An ACTIVE on-demand table name keyed by pk (S); its ARN, a static
 * buffer until the next call. */
const char *tcall_table(const char *name);

/* Move the virtual clock ms forward. */
void tcall_advance(unsigned ms);

#endif
