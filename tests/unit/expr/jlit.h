/* SPDX-License-Identifier: MIT */
/* jlit.h - JSON literals for the expression suites (check_expr.c,
 * check_update.c, check_partiql.c): JSON written with ' for " so that
 * AttributeValues read well inside C strings. In the test fixture library
 * (jlit.c). */
#ifndef SHARDLOCAL_TEST_JLIT_H
#define SHARDLOCAL_TEST_JLIT_H

#include <jansson.h>

/* Parse s, each ' read as ". New reference; fails the running test on
 * bad JSON. */
json_t *jlit(const char *s);
#define J(s) jlit(s)

#endif
