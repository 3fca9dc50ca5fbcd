/* SPDX-License-Identifier: MIT */
/* fuzz_partiql.c - libFuzzer target for the PartiQL front end: the input
 * is a statement, compiled with fixed Parameters (one of each type), then
 * everything the operations do with a compiled statement: key splits and
 * guards, Query plans and their key conditions, the WHERE clause as a
 * filter on a fixed item, projections, and an UPDATE applied. A finding:
 * a crash, a sanitizer report, a leak, or an error without a message. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/expr/partiql.h"

static const char params_json[] =
    "[{\"S\":\"k\"},{\"N\":\"3\"},{\"B\":\"AQI=\"},{\"BOOL\":true},"
    "{\"NULL\":true},{\"L\":[{\"S\":\"a\"},{\"N\":\"2\"}]},"
    "{\"M\":{\"x\":{\"SS\":[\"p\",\"q\"]}}},{\"SS\":[\"p\"]},"
    "{\"NS\":[\"1\",\"9\"]},{\"BS\":[\"AA==\"]}]";
static const char item_json[] =
    "{\"pk\":{\"S\":\"k\"},\"sk\":{\"N\":\"3\"},\"a\":{\"N\":\"10\"},"
    "\"b\":{\"S\":\"xyz\"},\"ss\":{\"SS\":[\"p\",\"q\"]},"
    "\"m\":{\"M\":{\"k\":{\"SS\":[\"p\",\"q\"]},\"l\":{\"L\":[{\"N\":\"1\"},"
    "{\"M\":{}}]}}},\"l\":{\"L\":[{\"N\":\"1\"}]},\"bin\":{\"B\":\"AQI=\"}}";

static void
need_msg(const struct ddb_err *err)
{
    if (err->type == DDB_OK || err->msg[0] == '\0') {
        fprintf(stderr, "fuzz_partiql: failure without a message\n");
        abort();
    }
}

/* What ExecuteStatement and the transactions do with a single item: the
 * key split, the guarded condition evaluated, an update applied. */
static void
single_item(struct pql_stmt *s, const json_t *item, struct ddb_err *err)
{
    struct key_schema ks = { "pk", 'S', "sk", 'N' };
    struct expr *cond = NULL, *upd = NULL;
    json_t *key = NULL, *out = NULL;
    bool ok;

    if (pql_key_split(s, &ks, &key, &cond, err) != 0) {
        need_msg(err);
        return;
    }
    cond = pql_guard(cond, "pk", pql_kind(s) == PQL_DELETE
                                     ? PQL_GUARD_IF_EXISTS
                                     : PQL_GUARD_EXISTS);
    if (cond != NULL) {
        if (expr_eval(cond, item, &ok, err) != 0)
            need_msg(err);
        ddb_err_clear(err);
        if (expr_eval(cond, NULL, &ok, err) != 0)
            need_msg(err);
        ddb_err_clear(err);
    }
    if (pql_kind(s) == PQL_UPDATE && (upd = pql_take_update(s)) != NULL) {
        if (expr_update_apply(upd, item, key, &out, err) != 0)
            need_msg(err);
        ddb_err_clear(err);
    }
    json_decref(out);
    expr_free(upd);
    expr_free(cond);
    json_decref(key);
}

/* What a SELECT does: plan Queries on (pk, sk) and on pk alone, build
 * their key conditions, filter and project the fixed item. */
static void
select_(struct pql_stmt *s, const json_t *item, struct ddb_err *err)
{
    const char *heads[8], *name;
    struct expr *f, *proj;
    struct pql_plan plan;
    json_t *out;
    bool ok, desc;
    size_t i;
    int pass;

    for (pass = 0; pass < 2; pass++) {
        memset(&plan, 0, sizeof(plan));
        if (pql_plan(s, "pk", 'S', pass == 0 ? "sk" : NULL,
                     pass == 0 ? 'N' : 0, &plan, err) != 0) {
            need_msg(err);
            ddb_err_clear(err);
            continue;
        }
        for (i = 0; i < plan.n; i++) {
            struct expr *kc = pql_keycond(&plan.b[i], "pk",
                                          pass == 0 ? "sk" : NULL);
            expr_free(kc);
        }
        pql_plan_fini(&plan);
    }
    if ((f = pql_filter(s)) != NULL) {
        if (expr_eval(f, item, &ok, err) != 0)
            need_msg(err);
        ddb_err_clear(err);
        expr_free(f);
    }
    (void)pql_order(s, &name, &desc);
    (void)pql_star(s);
    (void)pql_select_heads(s, heads, 8);
    (void)pql_where_heads(s, heads, 8);
    out = pql_project(s, item);
    json_decref(out);
    if ((proj = pql_projection(s, true)) != NULL) {
        out = expr_project(proj, item);
        json_decref(out);
        expr_free(proj);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    json_t *params, *item;
    struct pql_stmt *s = NULL;
    struct ddb_err err;

    if (size > 8192)
        return -1;
    ddb_err_init(&err);
    params = json_loads(params_json, 0, NULL);
    item = json_loads(item_json, 0, NULL);
    if (params == NULL || item == NULL)
        abort();                        /* the fixed inputs are valid */
    /* as many parameters as the statement has '?', except after a
     * leading '#': all ten, whatever the count (DynamoDB's mismatch) */
    if (size > 0 && data[0] == '#') {
        data++;
        size--;
    } else {
        size_t marks = 0, i;

        for (i = 0; i < size; i++)
            marks += data[i] == '?';
        while (json_array_size(params) > marks)
            json_array_remove(params, json_array_size(params) - 1);
        while (json_array_size(params) < marks)
            json_array_append(params, json_array_get(params, marks % 10));
    }
    if (pql_compile((const char *)data, size, params, &s, &err) != 0) {
        need_msg(&err);
        goto out;
    }
    (void)pql_table(s);
    (void)pql_index(s);
    (void)pql_returning(s);
    (void)pql_has_where(s);
    switch (pql_kind(s)) {
    case PQL_SELECT:
        select_(s, item, &err);
        single_item(s, item, &err);
        break;
    case PQL_INSERT:
        (void)pql_item(s);
        break;
    case PQL_UPDATE:
    case PQL_DELETE:
        single_item(s, item, &err);
        break;
    case PQL_EXISTS:
        (void)pql_exists_select(s);
        break;
    }
out:
    ddb_err_clear(&err);
    pql_free(s);
    json_decref(params);
    json_decref(item);
    return 0;
}
