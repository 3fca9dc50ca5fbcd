/* SPDX-License-Identifier: MIT */
/* fuzz_expr.c - libFuzzer target for the expression parser and what runs
 * on a parsed expression: the first byte picks the kind (condition,
 * filter, key condition, projection, update), the rest is the text,
 * resolved against fixed ExpressionAttributeNames/Values, then evaluated,
 * projected, applied or checked against a fixed item and key schema. A
 * finding: a crash, a sanitizer report, a leak, or an error without a
 * message. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/expr/expr.h"

static const char names_json[] =
    "{\"#a\":\"a\",\"#b\":\"b\",\"#pk\":\"pk\",\"#sk\":\"sk\","
    "\"#dot\":\"x.y\",\"#m\":\"m\"}";
static const char values_json[] =
    "{\":s\":{\"S\":\"x\"},\":n\":{\"N\":\"1.5\"},\":z\":{\"N\":\"-1E-130\"},"
    "\":b\":{\"B\":\"AQI=\"},\":t\":{\"BOOL\":true},\":nul\":{\"NULL\":true},"
    "\":l\":{\"L\":[{\"S\":\"a\"},{\"N\":\"2\"}]},"
    "\":m\":{\"M\":{\"k\":{\"SS\":[\"p\",\"q\"]}}},"
    "\":ss\":{\"SS\":[\"p\"]},\":ns\":{\"NS\":[\"1\",\"9\"]},"
    "\":bs\":{\"BS\":[\"AA==\"]}}";
static const char item_json[] =
    "{\"pk\":{\"S\":\"k\"},\"sk\":{\"N\":\"3\"},\"a\":{\"N\":\"10\"},"
    "\"b\":{\"S\":\"xyz\"},\"x.y\":{\"BOOL\":false},"
    "\"m\":{\"M\":{\"k\":{\"SS\":[\"p\",\"q\"]},\"l\":{\"L\":[{\"N\":\"1\"},"
    "{\"M\":{}}]}}},\"s\":{\"NS\":[\"1\",\"2\"]},\"bin\":{\"B\":\"AQI=\"}}";

static void
need_msg(const struct ddb_err *err)
{
    if (err->type == DDB_OK || err->msg[0] == '\0') {
        fprintf(stderr, "fuzz_expr: failure without a message\n");
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const enum expr_kind kinds[] = {
        EXPR_CONDITION, EXPR_FILTER, EXPR_KEY_CONDITION, EXPR_PROJECTION,
        EXPR_UPDATE
    };
    struct key_schema ks = { "pk", 'S', "sk", 'N' };
    json_t *names, *values, *item, *key, *out = NULL;
    struct expr_env *env = NULL;
    struct expr *e = NULL;
    struct ddb_err err;
    enum expr_kind kind;
    char *text;
    bool ok;

    if (size < 1 || size > 8192)
        return -1;
    kind = kinds[data[0] % 5];
    text = malloc(size);
    memcpy(text, data + 1, size - 1);
    text[size - 1] = '\0';
    ddb_err_init(&err);
    names = json_loads(names_json, 0, NULL);
    values = json_loads(values_json, 0, NULL);
    item = json_loads(item_json, 0, NULL);
    if (names == NULL || values == NULL || item == NULL ||
        expr_env_new(names, values, &env, &err) != 0)
        abort();                        /* the fixed inputs are valid */
    e = expr_parse(env, kind, text, &err);
    if (e == NULL) {
        need_msg(&err);
        goto out;
    }
    switch (kind) {
    case EXPR_CONDITION:
    case EXPR_FILTER:
        if (expr_eval(e, item, &ok, &err) != 0)
            need_msg(&err);
        ddb_err_clear(&err);
        if (expr_eval(e, NULL, &ok, &err) != 0)
            need_msg(&err);
        break;
    case EXPR_KEY_CONDITION: {
        struct keycond kc;
        struct keycond_multi km;
        const char *const kn[] = { "pk", "sk" };

        if (expr_keycond(e, &ks, &kc, &err) != 0)
            need_msg(&err);
        ddb_err_clear(&err);
        if (expr_keycond_multi(e, kn, "SN", 1, 1, &km, &err) != 0)
            need_msg(&err);
        break;
    }
    case EXPR_PROJECTION:
        out = expr_project(e, item);
        break;
    case EXPR_UPDATE:
        if (expr_update_check(e, &ks, &err) != 0) {
            need_msg(&err);
            break;
        }
        if (expr_update_apply(e, item, NULL, &out, &err) != 0)
            need_msg(&err);
        ddb_err_clear(&err);
        json_decref(out);
        out = NULL;
        /* a missing item: the update starts from the key */
        key = item_key_map(&ks, item);
        if (expr_update_apply(e, NULL, key, &out, &err) != 0)
            need_msg(&err);
        json_decref(key);
        break;
    }
    ddb_err_clear(&err);
    (void)expr_env_check_unused(env, &err);
out:
    ddb_err_clear(&err);
    json_decref(out);
    expr_free(e);
    expr_env_free(env);
    json_decref(names);
    json_decref(values);
    json_decref(item);
    free(text);
    return 0;
}
