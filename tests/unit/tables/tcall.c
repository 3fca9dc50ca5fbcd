/* SPDX-License-Identifier: MIT */
/* tcall.c - the api/tables suites' server and request helpers (tcall.h). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf/conf.h"
#include "tests/unit/tables/tcall.h"

struct api_server tcall_srv;
static struct storage *store;
static struct conf cf;

void
tcall_setup(void)
{
    struct ddb_err err;

    ddb_err_init(&err);
    store = storage_open(NULL, &err);
    ck_assert_ptr_nonnull(store);
    conf_defaults(&cf);
    api_server_init(&tcall_srv, store, &cf);
    tcall_srv.virtual_clock = true;
    tcall_srv.vclock_ms = 1700000000000ULL;
}

void
tcall_teardown(void)
{
    api_server_fini(&tcall_srv);
    storage_close(store);
}

json_t *
tcall(const char *op, json_t *body, const char *code)
{
    char target[128], *text = json_dumps(body, JSON_COMPACT);
    const char *type, *hash;
    struct api_call call;
    struct api_reply r;
    json_t *reply;

    ck_assert_ptr_nonnull(text);
    json_decref(body);
    snprintf(target, sizeof(target), "DynamoDB_20120810.%s", op);
    memset(&call, 0, sizeof(call));
    call.target = target;
    call.body = text;
    call.len = strlen(text);
    call.signed_v4 = true;
    call.region = "us-east-1";
    call.access_key = "AKID";
    call.host = "localhost:8000";
    api_dispatch(&tcall_srv, &call, &r);
    reply = json_loadb(r.body, r.len, 0, NULL);
    ck_assert_msg(reply != NULL, "%s: reply is not JSON", op);
    type = json_string_value(json_object_get(reply, "__type"));
    hash = type != NULL ? strchr(type, '#') : NULL;
    if (code == NULL)
        ck_assert_msg(r.status == 200, "%s %s: %u %.*s", op, text, r.status,
                      (int)r.len, r.body);
    else
        ck_assert_msg(hash != NULL && strcmp(hash + 1, code) == 0,
                      "%s %s: want %s, got %.*s", op, text, code, (int)r.len,
                      r.body);
    free(r.body);
    free(text);
    return reply;
}

void
tcall_ok(const char *op, json_t *body)
{
    json_decref(tcall(op, body, NULL));
}

void
tcall_msg(const char *op, json_t *body, const char *code, const char *msg)
{
    json_t *reply = tcall(op, body, code);
    const json_t *m = json_object_get(reply, "message");

    if (m == NULL)
        m = json_object_get(reply, "Message");
    ck_assert_str_eq(json_string_value(m), msg);
    json_decref(reply);
}

const char *
tcall_table(const char *name)
{
    static char arn[512];

    tcall_ok("CreateTable", json_pack(
        "{s:s, s:[{s:s, s:s}], s:[{s:s, s:s}], s:s}", "TableName", name,
        "AttributeDefinitions", "AttributeName", "pk", "AttributeType", "S",
        "KeySchema", "AttributeName", "pk", "KeyType", "HASH",
        "BillingMode", "PAY_PER_REQUEST"));
    snprintf(arn, sizeof(arn),
             "arn:aws:dynamodb:us-east-1:000000000000:table/%s", name);
    return arn;
}

void
tcall_advance(unsigned ms)
{
    tcall_srv.vclock_ms += ms;
}
