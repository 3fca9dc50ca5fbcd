/* SPDX-License-Identifier: MIT */
/* check_accounts.c - accounts (proto/context.c's stored names,
 * tables/lookup.c's resolution and access check) through api_dispatch():
 * two accounts with a table of the same name, each seeing its own items,
 * tables and ARNs; another account's table denied unless the resource
 * policy hook allows it; client tokens per account; the signature's error
 * reported after the body and the target, in DynamoDB's order; the TTL
 * sweeper deleting every account's expired items. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "api/streams/streams.h"
#include "conf/conf.h"

#define TARGET "DynamoDB_20120810."
#define A      "111111111111"
#define B      "222222222222"
#define ARN_A  "arn:aws:dynamodb:us-east-1:" A ":table/Tab"

static struct storage *st;
static struct conf cf;
static struct api_server srv;

static void
setup(void)
{
    struct ddb_err err;

    ddb_err_init(&err);
    st = storage_open(NULL, &err);
    ck_assert_ptr_nonnull(st);
    conf_defaults(&cf);
    api_server_init(&srv, st, &cf);
}

static void
teardown(void)
{
    api_server_fini(&srv);
    storage_close(st);
}

/* op with body as account (NULL: --account-id's) and an optional refused
 * signature; *status gets the HTTP status. The reply (caller frees). */
static json_t *
call_auth(const char *account, const struct ddb_err *auth, const char *op,
          const char *body, unsigned *status)
{
    char target[128];
    struct api_call call;
    struct api_reply r;
    json_error_t jerr;
    json_t *j;

    snprintf(target, sizeof(target), TARGET "%s", op);
    memset(&call, 0, sizeof(call));
    call.target = target;
    call.body = body;
    call.len = strlen(body);
    call.signed_v4 = true;
    call.region = "us-east-1";
    call.access_key = "AKID";
    call.account = account;
    call.auth = auth;
    api_dispatch(&srv, &call, &r);
    *status = r.status;
    j = json_loadb(r.body, r.len, 0, &jerr);
    ck_assert_msg(j != NULL, "reply is not JSON: %.*s", (int)r.len, r.body);
    free(r.body);
    return j;
}

static json_t *
call_as(const char *account, const char *op, const char *body,
        unsigned *status)
{
    return call_auth(account, NULL, op, body, status);
}

/* op must succeed; its reply (caller frees). */
static json_t *
ok(const char *account, const char *op, const char *body)
{
    unsigned status;
    json_t *j = call_as(account, op, body, &status);

    ck_assert_msg(status == 200, "%s: %s", op,
                  json_string_value(json_object_get(j, "message")));
    return j;
}

/* op must fail with code and message (NULL: any). */
static void
fails(const char *account, const char *op, const char *body,
      const char *code, const char *message)
{
    unsigned status;
    json_t *j = call_as(account, op, body, &status);
    const char *type = json_string_value(json_object_get(j, "__type"));

    ck_assert_uint_eq(status, 400);
    ck_assert_ptr_nonnull(type);
    ck_assert_str_eq(strrchr(type, '#') + 1, code);
    if (message != NULL)
        ck_assert_str_eq(json_string_value(json_object_get(j, "message")),
                         message);
    json_decref(j);
}

static void
create(const char *account, const char *name)
{
    char body[512];

    snprintf(body, sizeof(body),
             "{\"TableName\":\"%s\",\"BillingMode\":\"PAY_PER_REQUEST\","
             "\"AttributeDefinitions\":[{\"AttributeName\":\"pk\","
             "\"AttributeType\":\"S\"}],\"KeySchema\":[{\"AttributeName\":"
             "\"pk\",\"KeyType\":\"HASH\"}]}", name);
    json_decref(ok(account, "CreateTable", body));
}

/* The string at path "a.b" of j. */
static const char *
str_at(const json_t *j, const char *a, const char *b)
{
    return json_string_value(json_object_get(json_object_get(j, a), b));
}

START_TEST(test_accounts_stored_names)
{
    struct api_ctx ctx;
    char out[64], buf[13];

    memset(&ctx, 0, sizeof(ctx));
    ctx.srv = &srv;
    ck_assert(api_table_stored(&ctx, NULL, "T", out, sizeof(out)));
    ck_assert_str_eq(out, "T");                 /* --account-id's */
    ctx.account = A;
    ck_assert(api_table_stored(&ctx, NULL, "T", out, sizeof(out)));
    ck_assert_str_eq(out, A ":T");
    ck_assert_str_eq(api_table_public(out), "T");
    ck_assert_str_eq(api_table_owner(&ctx, out, buf), A);
    ck_assert(api_table_stored(&ctx, "000000000000", "T", out, sizeof(out)));
    ck_assert_str_eq(out, "T");
    ck_assert_str_eq(api_table_owner(&ctx, "T", buf), "000000000000");
    ck_assert_str_eq(api_table_public(A ":T/index/g"), "T/index/g");
    ck_assert(!api_table_stored(&ctx, NULL, "TT", out, 15));
    /* every room, as snprintf() would cut it */
    for (size_t room = 1; room <= 20; room++) {
        char want[64];
        int n;

        memset(out, '#', sizeof(out));
        ctx.account = A;
        n = snprintf(want, room, "%s:%s", A, "Tab");
        ck_assert_int_eq(api_table_stored(&ctx, NULL, "Tab", out, room),
                         (size_t)n < room);
        ck_assert_str_eq(out, want);
        ck_assert_int_eq(out[room], '#');
        ctx.account = NULL;
        n = snprintf(want, room, "%s", "TableName");
        ck_assert_int_eq(api_table_stored(&ctx, NULL, "TableName", out,
                                          room), (size_t)n < room);
        ck_assert_str_eq(out, want);
    }
}
END_TEST

START_TEST(test_accounts_isolation)
{
    json_t *j;

    create(A, "Tab");
    create(B, "Tab");
    fails(A, "CreateTable", "{\"TableName\":\"Tab\",\"BillingMode\":"
          "\"PAY_PER_REQUEST\",\"AttributeDefinitions\":[{\"AttributeName\":"
          "\"pk\",\"AttributeType\":\"S\"}],\"KeySchema\":[{\"AttributeName\""
          ":\"pk\",\"KeyType\":\"HASH\"}]}", "ResourceInUseException",
          "Table already exists: Tab");
    json_decref(ok(A, "PutItem", "{\"TableName\":\"Tab\",\"Item\":{\"pk\":"
                   "{\"S\":\"k\"},\"v\":{\"S\":\"a\"}}}"));
    j = ok(A, "GetItem", "{\"TableName\":\"Tab\",\"Key\":{\"pk\":{\"S\":"
           "\"k\"}},\"ReturnConsumedCapacity\":\"TOTAL\"}");
    ck_assert_str_eq(json_string_value(json_object_get(json_object_get(
        json_object_get(j, "Item"), "v"), "S")), "a");
    ck_assert_str_eq(str_at(j, "ConsumedCapacity", "TableName"), "Tab");
    json_decref(j);
    j = ok(B, "GetItem", "{\"TableName\":\"Tab\",\"Key\":{\"pk\":{\"S\":"
           "\"k\"}}}");
    ck_assert_ptr_null(json_object_get(j, "Item"));
    json_decref(j);
    j = ok(B, "DescribeTable", "{\"TableName\":\"Tab\"}");
    ck_assert_str_eq(str_at(j, "Table", "TableName"), "Tab");
    ck_assert_str_eq(str_at(j, "Table", "TableArn"),
                     "arn:aws:dynamodb:us-east-1:" B ":table/Tab");
    json_decref(j);
    j = ok(A, "ListTables", "{}");
    ck_assert_uint_eq(json_array_size(json_object_get(j, "TableNames")), 1);
    json_decref(j);
    j = ok(NULL, "ListTables", "{}");
    ck_assert_uint_eq(json_array_size(json_object_get(j, "TableNames")), 0);
    json_decref(j);
    fails(NULL, "Scan", "{\"TableName\":\"Tab\"}", "ResourceNotFoundException",
          "Requested resource not found");
    fails(NULL, "DescribeTable", "{\"TableName\":\"Tab\"}",
          "ResourceNotFoundException",
          "Requested resource not found: Table: Tab not found");
    json_decref(ok(A, "DeleteTable", "{\"TableName\":\"Tab\"}"));
    json_decref(ok(B, "DescribeTable", "{\"TableName\":\"Tab\"}"));
}
END_TEST

/* A resource policy hook that lets account B read: GetItem only. */
static int
lets_b_read(const struct api_ctx *ctx, const char *owner, const char *table,
            const char *arn, struct ddb_err *err)
{
    ck_assert_str_eq(owner, A);
    ck_assert_str_eq(table, A ":Tab");
    ck_assert_str_eq(arn, ARN_A);
    if (strcmp(ctx->account, B) == 0 && strcmp(ctx->op, "GetItem") == 0)
        return 0;
    if (strcmp(ctx->account, A) == 0)
        return 0;
    return ddb_err_set(err, DDB_ACCESS_DENIED, "denied by policy");
}

START_TEST(test_accounts_cross_account)
{
    json_t *j;

    create(A, "Tab");
    json_decref(ok(A, "GetItem", "{\"TableName\":\"" ARN_A "\",\"Key\":"
                   "{\"pk\":{\"S\":\"k\"}}}"));
    fails(B, "GetItem", "{\"TableName\":\"" ARN_A "\",\"Key\":{\"pk\":"
          "{\"S\":\"k\"}}}", "AccessDeniedException",
          "User: arn:aws:iam::" B ":root is not authorized to perform: "
          "dynamodb:GetItem on resource: " ARN_A " because no "
          "resource-based policy allows the dynamodb:GetItem action");
    fails(B, "CreateTable", "{\"TableName\":\"" ARN_A "\",\"BillingMode\":"
          "\"PAY_PER_REQUEST\",\"AttributeDefinitions\":[{\"AttributeName\":"
          "\"pk\",\"AttributeType\":\"S\"}],\"KeySchema\":[{\"AttributeName\""
          ":\"pk\",\"KeyType\":\"HASH\"}]}", "AccessDeniedException", NULL);
    /* Not a table ARN: no such table. */
    fails(B, "GetItem", "{\"TableName\":\"arn:aws:dynamodb:us-east-1:12:"
          "table/Tab\",\"Key\":{\"pk\":{\"S\":\"k\"}}}",
          "ResourceNotFoundException", NULL);
    /* The policy code's hook decides. */
    srv.policy = lets_b_read;
    json_decref(ok(A, "PutItem", "{\"TableName\":\"Tab\",\"Item\":{\"pk\":"
                   "{\"S\":\"k\"}}}"));
    j = ok(B, "GetItem", "{\"TableName\":\"" ARN_A "\",\"Key\":{\"pk\":"
           "{\"S\":\"k\"}},\"ReturnConsumedCapacity\":\"TOTAL\"}");
    ck_assert_ptr_nonnull(json_object_get(j, "Item"));
    ck_assert_str_eq(str_at(j, "ConsumedCapacity", "TableName"), "Tab");
    json_decref(j);
    fails(B, "PutItem", "{\"TableName\":\"" ARN_A "\",\"Item\":{\"pk\":"
          "{\"S\":\"k\"}}}", "AccessDeniedException", "denied by policy");
    srv.policy = NULL;
}
END_TEST

/* The same ClientRequestToken in two accounts is two requests. */
START_TEST(test_accounts_client_tokens)
{
    static const char txn[] =
        "{\"ClientRequestToken\":\"tok\",\"TransactItems\":[{\"Put\":{"
        "\"TableName\":\"Tab\",\"Item\":{\"pk\":{\"S\":\"%s\"}}}}]}";
    char body[256];

    create(A, "Tab");
    create(B, "Tab");
    snprintf(body, sizeof(body), txn, "a");
    json_decref(ok(A, "TransactWriteItems", body));
    snprintf(body, sizeof(body), txn, "b");
    json_decref(ok(B, "TransactWriteItems", body));
    fails(A, "TransactWriteItems", body,
          "IdempotentParameterMismatchException", NULL);
}
END_TEST

/* A refused signature is reported after the body's JSON and the target,
 * before the request's shape (dynalite's recordings of DynamoDB). */
START_TEST(test_accounts_signature_order)
{
    struct ddb_err bad;
    unsigned status;
    json_t *j;

    ddb_err_init(&bad);
    ddb_err_set(&bad, DDB_INVALID_SIGNATURE, "nope");
    j = call_auth(A, &bad, "ListTables", "{\"Limit\":", &status);
    ck_assert_str_eq(json_string_value(json_object_get(j, "__type")),
                     "com.amazon.coral.service#SerializationException");
    json_decref(j);
    j = call_auth(A, &bad, "NoSuchOp", "{}", &status);
    ck_assert_str_eq(json_string_value(json_object_get(j, "__type")),
                     "com.amazon.coral.service#UnknownOperationException");
    json_decref(j);
    j = call_auth(A, &bad, "ListTables", "{\"Limit\":0}", &status);
    ck_assert_uint_eq(status, 400);
    ck_assert_str_eq(json_string_value(json_object_get(j, "__type")),
                     "com.amazon.coral.service#InvalidSignatureException");
    ck_assert_str_eq(json_string_value(json_object_get(j, "message")), "nope");
    json_decref(j);
}
END_TEST

/* The TTL sweeper (streams/sweep.c) deletes expired items of every
 * account's tables, each as its owner would (DynamoDB's TTL runs per
 * table, whoever owns it: developer guide, "Time to Live"). */
START_TEST(test_accounts_ttl_sweep)
{
    const char *ttl = "{\"TableName\":\"Tab\",\"TimeToLiveSpecification\":"
                      "{\"Enabled\":true,\"AttributeName\":\"exp\"}}";
    char item[256];
    const char *get = "{\"TableName\":\"Tab\",\"Key\":{\"pk\":{\"S\":"
                      "\"x\"}},\"ConsistentRead\":true}";
    const char *who[2] = { NULL, B };
    json_t *j;
    int i;

    /* expired a minute ago (TTL skips items more than five years old) */
    snprintf(item, sizeof(item), "{\"TableName\":\"Tab\",\"Item\":{\"pk\":"
             "{\"S\":\"x\"},\"exp\":{\"N\":\"%llu\"}}}",
             (unsigned long long)(api_now_ms(&srv) / 1000u - 60u));
    for (i = 0; i < 2; i++) {
        create(who[i], "Tab");
        json_decref(ok(who[i], "UpdateTimeToLive", ttl));
        json_decref(ok(who[i], "PutItem", item));
    }
    ck_assert_uint_eq(streams_sweep(&srv, api_now_ms(&srv)), 2);
    for (i = 0; i < 2; i++) {
        j = ok(who[i], "GetItem", get);
        ck_assert_ptr_null(json_object_get(j, "Item"));
        json_decref(j);
    }
}
END_TEST

static Suite *
accounts_suite(void)
{
    Suite *s = suite_create("accounts");
    TCase *tc = tcase_create("accounts");

    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_accounts_stored_names);
    tcase_add_test(tc, test_accounts_isolation);
    tcase_add_test(tc, test_accounts_cross_account);
    tcase_add_test(tc, test_accounts_client_tokens);
    tcase_add_test(tc, test_accounts_signature_order);
    tcase_add_test(tc, test_accounts_ttl_sweep);
    suite_add_tcase(s, tc);
    return s;
}

int
main(void)
{
    SRunner *sr = srunner_create(accounts_suite());
    int failed;

    srunner_run_all(sr, CK_ENV);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
