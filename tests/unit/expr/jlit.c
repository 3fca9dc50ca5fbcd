/* SPDX-License-Identifier: MIT */
/* jlit.c - JSON literals with ' for " for the expression suites
 * (jlit.h). */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/expr/jlit.h"

json_t *
jlit(const char *s)
{
    char *buf = strdup(s), *p;
    json_error_t je;
    json_t *j;

    ck_assert_ptr_nonnull(buf);
    for (p = buf; *p; p++)
        if (*p == '\'')
            *p = '"';
    j = json_loads(buf, JSON_DECODE_ANY, &je);
    ck_assert_msg(j != NULL, "bad test JSON %s: %s", s, je.text);
    free(buf);
    return j;
}
