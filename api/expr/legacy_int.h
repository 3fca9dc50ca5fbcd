/* SPDX-License-Identifier: MIT */
/* legacy_int.h - private to the legacy translators (legacy*.c): the
 * translation state that collects expression text over synthetic "#lN"
 * names and ":lN" values, and the member checks they share. */
#ifndef SHARDLOCAL_LEGACY_INT_H
#define SHARDLOCAL_LEGACY_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>

#include "api/expr/legacy.h"
#include "storage/util.h"

#define MSG_INVALID "One or more parameter values were invalid: "
#define MSG_CONDOP_NONE "ConditionalOperator cannot be used without " \
                        "Filter or Expected"
#define MSG_CONDOP_ONE "ConditionalOperator can only be used when Filter " \
                       "or Expected has two or more elements"

/* A member is absent when missing or JSON null (DynamoDB's "== null"). */
bool legacy_absent(const json_t *v);
/* Coral's type errors for a member that must be a map, for input
 * validate.c should already have rejected (handlers called without it,
 * e.g. from tests). */
int legacy_require_map(const json_t *v, struct ddb_err *err);

/* ------------------------------------------------------------------------
 * Translation state: the text and the synthetic names and values.
 * ---------------------------------------------------------------------- */

struct tr {
    struct strbuf text;             /* the expression so far */
    json_t *names;                  /* owned until handed to out */
    json_t *values;
    unsigned nnames, nvalues;
    size_t size;                    /* running bytes, for the size limits */
};

#define TR_KEY_MAX 16               /* "#l4294967295" */

void tr_init(struct tr *t);
void tr_fini(struct tr *t);
/* Move the result into out (zeroed by the caller). */
void tr_finish(struct tr *t, struct legacy_expr *out);
/* A new "#lN" for attribute name attr, len bytes (a name may hold NUL);
 * the placeholder is written to key. */
void tr_name(struct tr *t, const char *attr, size_t len,
             char key[TR_KEY_MAX]);
/* A new ":lN" holding a validated, canonicalised copy of av (NULL: JSON
 * null, which fails validation). */
int tr_value(struct tr *t, const json_t *av, char key[TR_KEY_MAX],
             struct ddb_err *err);
/* The value a ":lN" holds (borrowed). */
const json_t *tr_value_get(const struct tr *t, const char *key);
/* A new ":lN" holding v as it is (taken): a constant of the translation
 * such as the empty list of an ADD to a missing list. */
void tr_value_new(struct tr *t, json_t *v, char key[TR_KEY_MAX]);

#endif
