/* SPDX-License-Identifier: MIT */
/* legacy_update.c - AttributeUpdates ({attribute: {Action, Value}}),
 * checked with DynamoDB's messages and rewritten as one UpdateExpression
 * over legacy_int.h's synthetic names and values. */
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "api/proto/av.h"
#include "api/expr/legacy_int.h"

#define MSG_UPD_SIZE "Item size to update has exceeded the maximum allowed " \
                     "size"

/* The clauses of the UpdateExpression, in the order they are written. */
enum clause { CL_SET, CL_REMOVE, CL_ADD, CL_DELETE, CL_COUNT };

static const char *const clause_kw[CL_COUNT] = {
    "SET", "REMOVE", "ADD", "DELETE"
};

/* Append one action to a clause, after a comma when it has some. */
static void
clause_add(struct strbuf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
clause_add(struct strbuf *b, const char *fmt, ...)
{
    va_list ap;

    if (b->len > 0)
        strbuf_puts(b, ", ");
    va_start(ap, fmt);
    strbuf_vprintf(b, fmt, ap);
    va_end(ap);
}

static bool
is_set_type(const char *t)
{
    return strcmp(t, "SS") == 0 || strcmp(t, "NS") == 0 ||
           strcmp(t, "BS") == 0;
}

/*
 * AttributeUpdates: {attr: {Action, Value}} -> one UpdateExpression.
 * PUT (the default) -> SET #a = :v; DELETE without Value -> REMOVE #a;
 * DELETE with a set -> DELETE #a :v; ADD a number or set -> ADD #a :v;
 * ADD a list appends, creating the list when missing ->
 * SET #a = list_append(if_not_exists(#a, :empty), :v). Key attributes are
 * rejected later by expr_update_check() ("Cannot update attribute pk. This
 * attribute is part of the key").
 */
int
legacy_attribute_updates(const json_t *updates, struct legacy_expr *out,
                         struct ddb_err *err)
{
    struct tr t;
    struct strbuf clause[CL_COUNT] = { { 0 } };
    char name[TR_KEY_MAX], val[TR_KEY_MAX], empty[TR_KEY_MAX] = "";
    const char *attr;
    size_t attr_len;
    json_t *u;
    int rc = -1, i;

    memset(out, 0, sizeof(*out));
    if (legacy_absent(updates))
        return 0;
    if (legacy_require_map(updates, err) != 0)
        return -1;
    tr_init(&t);
    json_object_keylen_foreach((json_t *)updates, attr, attr_len, u) {
        const json_t *action, *value;
        const char *act, *ty = NULL;

        if (legacy_absent(u)) {
            ddb_err_set(err, DDB_VALIDATION,
                        "Supplied AttributeValueUpdate is empty, must "
                        "contain one of the supported actions: %.1000s is "
                        "null", attr);
            goto out;
        }
        if (!json_is_object(u)) {
            ddb_err_set(err, DDB_SERIALIZATION, "Unexpected field type");
            goto out;
        }
        action = json_object_get(u, "Action");
        act = legacy_absent(action) ? "PUT" : json_string_value(action);
        if (act == NULL) {
            ddb_err_set(err, DDB_SERIALIZATION,
                        json_is_number(action) ?
                        "NUMBER_VALUE cannot be converted to String" :
                        "Unexpected field type");
            goto out;
        }
        if (strcmp(act, "PUT") != 0 && strcmp(act, "ADD") != 0 &&
            strcmp(act, "DELETE") != 0) {
            ddb_err_set(err, DDB_VALIDATION,
                        "1 validation error detected: Value '%.1000s' at "
                        "'attributeUpdates.%.1000s.member.action' failed to "
                        "satisfy constraint: Member must satisfy enum value "
                        "set: [ADD, PUT, DELETE]", act, attr);
            goto out;
        }
        value = json_object_get(u, "Value");
        val[0] = '\0';
        if (!legacy_absent(value)) {
            if (tr_value(&t, value, val, err) != 0)
                goto out;
            ty = av_type(tr_value_get(&t, val));
            if (ty == NULL)
                ty = "";
        }
        if (ty == NULL && strcmp(act, "DELETE") != 0) {
            ddb_err_set(err, DDB_VALIDATION, MSG_INVALID
                        "Only DELETE action is allowed when no attribute "
                        "value is specified");
            goto out;
        }
        if (ty != NULL && strcmp(act, "DELETE") == 0 && !is_set_type(ty)) {
            ddb_err_set(err, DDB_VALIDATION, MSG_INVALID
                        "DELETE action with value is not supported for the "
                        "type %s", ty);
            goto out;
        }
        if (ty != NULL && strcmp(act, "ADD") == 0 && !is_set_type(ty) &&
            strcmp(ty, "N") != 0 && strcmp(ty, "L") != 0) {
            ddb_err_set(err, DDB_VALIDATION, MSG_INVALID
                        "ADD action is not supported for the type %s", ty);
            goto out;
        }
        if (strcmp(act, "DELETE") != 0) {
            t.size += attr_len + av_size(tr_value_get(&t, val));
            if (t.size > ITEM_SIZE_MAX) {
                ddb_err_set(err, DDB_VALIDATION, MSG_UPD_SIZE);
                goto out;
            }
        }

        tr_name(&t, attr, attr_len, name);
        if (strcmp(act, "PUT") == 0) {
            clause_add(&clause[CL_SET], "%s = %s", name, val);
        } else if (strcmp(act, "DELETE") == 0 && ty == NULL) {
            clause_add(&clause[CL_REMOVE], "%s", name);
        } else if (strcmp(act, "DELETE") == 0) {
            clause_add(&clause[CL_DELETE], "%s %s", name, val);
        } else if (strcmp(ty, "L") == 0) {
            if (empty[0] == '\0') {
                json_t *l = json_pack("{s:[]}", "L");

                if (l == NULL)
                    abort();
                tr_value_new(&t, l, empty);
            }
            clause_add(&clause[CL_SET],
                       "%s = list_append(if_not_exists(%s, %s), %s)", name,
                       name, empty, val);
        } else {
            clause_add(&clause[CL_ADD], "%s %s", name, val);
        }
    }
    for (i = 0; i < CL_COUNT; i++)
        if (clause[i].len > 0)
            strbuf_printf(&t.text, "%s%s %s", t.text.len ? " " : "",
                          clause_kw[i], clause[i].s);
    tr_finish(&t, out);
    rc = 0;
out:
    for (i = 0; i < CL_COUNT; i++)
        strbuf_free(&clause[i]);
    tr_fini(&t);
    return rc;
}
