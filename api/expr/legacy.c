/* SPDX-License-Identifier: MIT */
/* legacy.c - the pre-expression API (legacy.h) is rewritten as expression
 * text over synthetic "#lN" names and ":lN" values, so expr_parse() and
 * expr_eval() serve both styles (request.c glues them). This file holds
 * the translation state the translators share and AttributesToGet;
 * legacy_mix.c checks which members go together, legacy_cond.c translates
 * Expected, QueryFilter/ScanFilter and KeyConditions, legacy_update.c
 * AttributeUpdates. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/proto/av.h"
#include "api/expr/legacy_int.h"

/* ------------------------------------------------------------------------
 * Request members
 * ---------------------------------------------------------------------- */

bool
legacy_absent(const json_t *v)
{
    return v == NULL || json_is_null(v);
}

int
legacy_require_map(const json_t *v, struct ddb_err *err)
{
    if (json_is_object(v))
        return 0;
    if (json_is_array(v))
        return ddb_err_set(err, DDB_SERIALIZATION,
                           "Unrecognized collection type java.util.Map");
    return ddb_err_set(err, DDB_SERIALIZATION, "Unexpected field type");
}

/* ------------------------------------------------------------------------
 * Translation state
 * ---------------------------------------------------------------------- */

static json_t *
obj_new(void)
{
    json_t *o = json_object();

    if (o == NULL)
        abort();
    return o;
}

/* Empty text, names and values (the caller ends with tr_fini). */
void
tr_init(struct tr *t)
{
    memset(t, 0, sizeof(*t));
    t->names = obj_new();
    t->values = obj_new();
}

void
tr_fini(struct tr *t)
{
    strbuf_free(&t->text);
    json_decref(t->names);
    json_decref(t->values);
    memset(t, 0, sizeof(*t));
}

/* Move the result into out (zeroed by the caller). An empty map stays
 * NULL: expr_env_new() rejects "ExpressionAttributeValues must not be
 * empty", and "attribute_exists(#l0)" needs no values. */
void
tr_finish(struct tr *t, struct legacy_expr *out)
{
    out->text = strbuf_take(&t->text);
    if (json_object_size(t->names) > 0) {
        out->names = t->names;
        t->names = NULL;
    }
    if (json_object_size(t->values) > 0) {
        out->values = t->values;
        t->values = NULL;
    }
}

/* Free what le holds (tr_finish() filled it) and zero it; accepts NULL. */
void
legacy_expr_fini(struct legacy_expr *le)
{
    if (le == NULL)
        return;
    free(le->text);
    json_decref(le->names);
    json_decref(le->values);
    memset(le, 0, sizeof(*le));
}

/* A new "#lN" for attribute name attr of len bytes (key written to
 * key). */
void
tr_name(struct tr *t, const char *attr, size_t len, char key[TR_KEY_MAX])
{
    json_t *s;

    snprintf(key, TR_KEY_MAX, "#l%u", t->nnames++);
    s = json_stringn_nocheck(attr, len);            /* keys are UTF-8 */
    if (s == NULL)
        abort();
    json_object_set_new(t->names, key, s);
}

/* A new ":lN" holding v (taken). */
void
tr_value_new(struct tr *t, json_t *v, char key[TR_KEY_MAX])
{
    snprintf(key, TR_KEY_MAX, ":l%u", t->nvalues++);
    json_object_set_new(t->values, key, v);
}

/* A new ":lN" holding a validated, canonicalised copy of av. */
int
tr_value(struct tr *t, const json_t *av, char key[TR_KEY_MAX],
         struct ddb_err *err)
{
    json_t *copy;

    copy = av != NULL ? json_clone(av) : json_null();
    if (copy == NULL)
        abort();
    if (av_validate(copy, 0, err) != 0) {
        json_decref(copy);
        return -1;
    }
    tr_value_new(t, copy, key);
    return 0;
}

const json_t *
tr_value_get(const struct tr *t, const char *key)
{
    return json_object_get(t->values, key);
}

/* Whether ref is a placeholder tr_name() or tr_value() made: lead ('#'
 * or ':'), 'l', digits. */
bool
legacy_is_ref(const char *ref, char lead)
{
    const char *s;

    if (ref == NULL || ref[0] != lead || ref[1] != 'l' || ref[2] == '\0')
        return false;
    for (s = ref + 2; *s != '\0'; s++)
        if (*s < '0' || *s > '9')
            return false;
    return true;
}

/* ------------------------------------------------------------------------
 * AttributesToGet
 * ---------------------------------------------------------------------- */

/* AttributesToGet: ["a", "b"] -> "#l0, #l1", every name top-level. */
int
legacy_attributes_to_get(const json_t *atg, struct legacy_expr *out,
                         struct ddb_err *err)
{
    struct tr t;
    char name[TR_KEY_MAX];
    size_t i, j, n;

    memset(out, 0, sizeof(*out));
    if (legacy_absent(atg))
        return 0;
    if (!json_is_array(atg))
        return ddb_err_set(err, DDB_SERIALIZATION,
                           json_is_object(atg) ?
                           "Start of structure or map found where not "
                           "expected" : "Unexpected field type");
    n = json_array_size(atg);
    if (n == 0)
        return ddb_err_set(err, DDB_VALIDATION,
                           "1 validation error detected: Value '[]' at "
                           "'attributesToGet' failed to satisfy constraint: "
                           "Member must have length greater than or equal "
                           "to 1");
    for (i = 0; i < n; i++) {
        const json_t *v = json_array_get(atg, i);

        if (!json_is_string(v))
            return ddb_err_set(err, DDB_SERIALIZATION,
                               json_is_number(v) ?
                               "NUMBER_VALUE cannot be converted to String" :
                               json_is_object(v) ?
                               "Start of structure or map found where not "
                               "expected" : "Unexpected field type");
    }
    for (i = 0; i < n; i++)
        for (j = 0; j < i; j++)
            if (json_equal(json_array_get(atg, i), json_array_get(atg, j)))
                return ddb_err_set(err, DDB_VALIDATION, MSG_INVALID
                                   "Duplicate value in attribute name: "
                                   "%.3000s",
                                   json_string_value(json_array_get(atg,
                                                                    i)));
    tr_init(&t);
    for (i = 0; i < n; i++) {
        tr_name(&t, json_string_value(json_array_get(atg, i)),
                json_string_length(json_array_get(atg, i)), name);
        strbuf_printf(&t.text, "%s%s", i ? ", " : "", name);
    }
    tr_finish(&t, out);
    tr_fini(&t);
    return 0;
}
