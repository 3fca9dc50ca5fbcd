/* SPDX-License-Identifier: MIT */
/* check_policy.c - policy.c through api_dispatch(): the canonical form
 * GetResourcePolicy returns, RevisionIds (epoch ms on the virtual clock,
 * strictly increasing), ExpectedRevisionId and NO_POLICY, the tombstone a
 * delete leaves, document checks and their messages, a hostile document
 * (deep nesting, the size limit) answered without harm, the self-lockout
 * check and the policy ARN family's errors. Expected answers: ack-api-
 * quirks' DDB-TABLE-205..212, -354, -356, -457 (2026-10) and moto's
 * test_dynamodb_resource_policy.py, verified against DynamoDB. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/tables/tables_int.h"
#include "storage/util.h"
#include "tests/unit/tables/tcall.h"

#define ROOT "arn:aws:iam::000000000000:root"
#define NOT_FOUND "Resource-based policy not found for the provided " \
    "ResourceArn: "
#define BAD_DOC "One or more parameter values were invalid: Invalid " \
    "policy document: "

static const char *arn;

static void
setup(void)
{
    tcall_setup();
    arn = tcall_table("pol");
}

/* A one-statement policy allowing action to the account (JSON text,
 * static buffer). */
static const char *
doc(const char *action)
{
    static char d[1024];

    snprintf(d, sizeof(d), "{\"Version\": \"2012-10-17\", \"Statement\": "
             "[{\"Effect\": \"Allow\", \"Principal\": {\"AWS\": "
             "\"000000000000\"}, \"Action\": [\"%s\"], \"Resource\": "
             "\"*\"}]}", action);
    return d;
}

/* PutResourcePolicy; its RevisionId (caller frees). */
static char *
put(const char *policy, const char *expected)
{
    json_t *r = tcall("PutResourcePolicy",
                      json_pack("{s:s, s:s, s:s*}", "ResourceArn", arn,
                                "Policy", policy, "ExpectedRevisionId",
                                expected), NULL);
    char *rev = xstrdup(json_string_value(json_object_get(r,
                                                          "RevisionId")));

    json_decref(r);
    return rev;
}

static json_t *
get(void)
{
    return tcall("GetResourcePolicy", json_pack("{s:s}", "ResourceArn", arn),
                 NULL);
}

static void
refused(const char *policy, const char *msg)
{
    tcall_msg("PutResourcePolicy", json_pack("{s:s, s:s}", "ResourceArn",
                                             arn, "Policy", policy),
              "ValidationException", msg);
}

START_TEST(test_canonical_form)
{
    char *rev;
    json_t *g;

    rev = put("{\"Statement\": {\"Resource\": [\"*\"], \"Action\": "
              "\"dynamodb:GetItem\", \"Sid\": \"s1\", \"Principal\": {\"AWS\": "
              "[\"000000000000\", \"" ROOT "\"]}, \"Effect\": \"allow\"},\n"
              "  \"Version\": \"2012-10-17\"}", NULL);
    g = get();
    ck_assert_str_eq(json_string_value(json_object_get(g, "Policy")),
                     "{\"Version\":\"2012-10-17\",\"Statement\":[{\"Sid\":"
                     "\"s1\",\"Effect\":\"Allow\",\"Principal\":{\"AWS\":\""
                     ROOT "\"},\"Action\":\"dynamodb:GetItem\",\"Resource\":"
                     "\"*\"}]}");
    ck_assert_str_eq(json_string_value(json_object_get(g, "RevisionId")),
                     rev);
    json_decref(g);
    free(rev);
    /* no Version: read back with 2008-10-17, yet re-putting that is a
     * change while re-putting the same text is not (DDB-TABLE-354) */
    tcall_advance(1);
    rev = put("{\"Statement\": [{\"Effect\": \"Deny\", \"Principal\": "
              "{\"AWS\": \"" ROOT "\"}, \"Action\": \"dynamodb:Scan\", "
              "\"Resource\": \"*\"}]}", NULL);
    g = get();
    ck_assert_str_eq(json_string_value(json_object_get(g, "Policy")),
                     "{\"Version\":\"2008-10-17\",\"Statement\":[{"
                     "\"Effect\":\"Deny\",\"Principal\":{\"AWS\":\""
                     ROOT "\"},\"Action\":\"dynamodb:Scan\",\"Resource\":"
                     "\"*\"}]}");
    ck_assert_str_eq(json_string_value(json_object_get(g, "RevisionId")),
                     "1700000000001");
    free(rev);
    rev = put("{\"Statement\": {\"Effect\": \"Deny\", \"Principal\": "
              "{\"AWS\": \"000000000000\"}, \"Action\": "
              "[\"dynamodb:Scan\"], \"Resource\": \"*\"}}", NULL);
    ck_assert_str_eq(rev, "1700000000001");         /* equivalent */
    free(rev);
    rev = put(json_string_value(json_object_get(g, "Policy")), NULL);
    ck_assert_str_eq(rev, "1700000000002");
    json_decref(g);
    free(rev);
}
END_TEST

START_TEST(test_revisions)
{
    char *r1, *r2, *r3, *r4;
    char want[512];

    r1 = put(doc("dynamodb:GetItem"), "NO_POLICY");
    ck_assert_str_eq(r1, "1700000000000");          /* the clock's ms */
    r2 = put(doc("dynamodb:GetItem"), r1);          /* the same: no change */
    ck_assert_str_eq(r2, r1);
    r3 = put(doc("dynamodb:Query"), r1);    /* same ms: still increasing */
    ck_assert_str_eq(r3, "1700000000001");
    snprintf(want, sizeof(want), NOT_FOUND "Requested update for policy "
             "with revision id %s, but the policy associated to target "
             "table pol has revision id %s.", r1, r3);
    tcall_msg("PutResourcePolicy", json_pack("{s:s, s:s, s:s}",
                                             "ResourceArn", arn, "Policy",
                                             doc("dynamodb:Scan"),
                                             "ExpectedRevisionId", r1),
              "PolicyNotFoundException", want);
    snprintf(want, sizeof(want), NOT_FOUND "Requested policy update "
             "expecting none to be present for table pol, but a policy "
             "exists with revision id %s.", r3);
    tcall_msg("PutResourcePolicy", json_pack("{s:s, s:s, s:s}",
                                             "ResourceArn", arn, "Policy",
                                             doc("dynamodb:Scan"),
                                             "ExpectedRevisionId",
                                             "NO_POLICY"),
              "PolicyNotFoundException", want);
    tcall_advance(5000);
    r4 = put(doc("dynamodb:Scan"), NULL);
    ck_assert_str_eq(r4, "1700000005000");
    free(r1);
    free(r2);
    free(r3);
    free(r4);
}
END_TEST

START_TEST(test_delete_and_tombstone)
{
    json_t *r;
    char *rev;

    /* never had one: 200 without RevisionId; Get: not found */
    r = tcall("DeleteResourcePolicy", json_pack("{s:s}", "ResourceArn", arn),
              NULL);
    ck_assert_int_eq(json_object_size(r), 0);
    json_decref(r);
    tcall_msg("GetResourcePolicy", json_pack("{s:s}", "ResourceArn", arn),
              "PolicyNotFoundException",
              NOT_FOUND "arn:aws:dynamodb:us-east-1:000000000000:table/pol");
    rev = put(doc("dynamodb:GetItem"), NULL);
    tcall_advance(10);
    r = tcall("DeleteResourcePolicy", json_pack("{s:s, s:s}", "ResourceArn",
                                                arn, "ExpectedRevisionId",
                                                rev), NULL);
    ck_assert(json_str_is(json_object_get(r, "RevisionId"), rev));
    json_decref(r);
    /* again: the deletion's RevisionId */
    r = tcall("DeleteResourcePolicy", json_pack("{s:s}", "ResourceArn", arn),
              NULL);
    ck_assert(json_str_is(json_object_get(r, "RevisionId"),
                          "1700000000010"));
    json_decref(r);
    /* an expected id with nothing there */
    json_decref(tcall("DeleteResourcePolicy",
                      json_pack("{s:s, s:s}", "ResourceArn", arn,
                                "ExpectedRevisionId", rev),
                      "PolicyNotFoundException"));
    free(rev);
    free(put(doc("dynamodb:GetItem"), "NO_POLICY"));
}
END_TEST

START_TEST(test_document_checks)
{
    char *big, *deep;
    size_t i, n = 100000;

    refused("not json", BAD_DOC "This policy contains invalid Json");
    refused("null", BAD_DOC "This text appears not to be a policy");
    refused("[1]", BAD_DOC "This policy contains invalid Json");
    refused("{}", BAD_DOC "Syntax error at position (1,3)");
    refused("{\n\"Statement\": 5}", BAD_DOC "Syntax error at position "
                                            "(2,16)");
    refused("{\"Statement\": []}", BAD_DOC "Could not parse the policy: "
                                           "Statement is empty!");
    refused("{\"Statement\": [{\"Effect\": \"Allow\", \"Principal\": \"*\", "
            "\"Resource\": \"*\"}]}", BAD_DOC "Missing required field "
                                              "Action");
    refused("{\"Statement\": [{\"Effect\": \"Maybe\", \"Principal\": "
            "{\"AWS\": \"000000000000\"}, \"Action\": \"dynamodb:GetItem\", "
            "\"Resource\": \"*\"}]}", BAD_DOC "Syntax error at position "
                                              "(1,122)");
    refused(doc("dynamodb:Fly"), BAD_DOC "The following action names are "
                                         "invalid: \"dynamodb:Fly\"");
    refused(doc("s3:GetObject"), BAD_DOC "The following action names are "
                                         "invalid: \"s3:GetObject\"");
    refused("{\"Statement\": [{\"Effect\": \"Allow\", \"Principal\": "
            "{\"AWS\": \"*\"}, \"Action\": \"dynamodb:*\", \"Resource\": "
            "\"*\"}]}", "Resource-based policy grants unbounded access in "
                        "one or more elements. Please revise the policy to "
                        "ensure least-privilege form of access");
    refused("{\"Statement\": [{\"Effect\": \"Allow\", \"Principal\": "
            "{\"AWS\": \"12345\"}, \"Action\": \"dynamodb:*\", \"Resource\": "
            "\"*\"}]}", "One or more parameter values were invalid: Invalid "
                        "principal in policy document.");
    /* wildcards that name DynamoDB actions are fine */
    free(put(doc("dynamodb:Get*"), NULL));
    /* 20 KB at most; a nesting jansson refuses is invalid JSON, no more */
    big = xmalloc(20482);
    memset(big, ' ', 20481);
    memcpy(big, doc("dynamodb:GetItem"), strlen(doc("dynamodb:GetItem")));
    big[20481] = '\0';
    refused(big, "One or more parameter values were invalid: Maximum policy "
                 "size of 20480 bytes exceeded");
    big[20480] = '\0';
    free(put(big, NULL));
    deep = xmalloc(2 * n + 1);
    for (i = 0; i < n; i++) {
        deep[i] = '[';
        deep[n + i] = ']';
    }
    deep[2 * n] = '\0';
    json_decref(tcall("PutResourcePolicy",
                      json_pack("{s:s, s:s}", "ResourceArn", arn, "Policy",
                                deep),
                      "ValidationException"));
    free(big);
    free(deep);
}
END_TEST

START_TEST(test_self_lockout)
{
    const char *deny = "{\"Statement\": [{\"Effect\": \"Deny\", "
                       "\"Principal\": {\"AWS\": \"000000000000\"}, "
                       "\"Action\": \"dynamodb:Put*\", \"Resource\": \"*\"}]}";

    tcall_msg("PutResourcePolicy", json_pack("{s:s, s:s}", "ResourceArn",
                                             arn, "Policy", deny),
              "AccessDeniedException", "The new resource policy will not "
                                       "allow you to update the resource "
                                       "policy in the future.");
    tcall_ok("PutResourcePolicy", json_pack("{s:s, s:s, s:b}", "ResourceArn",
                                            arn, "Policy", deny,
                                            "ConfirmRemoveSelfResourceAccess",
                                            1));
}
END_TEST

START_TEST(test_policy_arns)
{
    const char *inv = "One or more parameter values were invalid: ";
    char want[512];

    snprintf(want, sizeof(want), "%sInvalid resource arn provided, only "
             "table or stream is accepted. Provided resource arn: %s/index/x",
             inv, arn);
    tcall_msg("GetResourcePolicy", json_pack("{s:s+}", "ResourceArn", arn,
                                             "/index/x"),
              "ValidationException", want);
    tcall_msg("GetResourcePolicy", json_pack("{s:s}", "ResourceArn",
                                             "arn:aws:dynamodb:us-east-1:"
                                             "999999999999:table/pol"),
              "ValidationException", "This action is only supported by "
                                     "accounts that match the resource "
                                     "owner\u2019s account.");
    tcall_msg("GetResourcePolicy", json_pack("{s:s}", "ResourceArn",
                                             "arn:aws:dynamodb:us-east-1:"
                                             "000000000000:table/gone"),
              "ResourceNotFoundException",
              "Requested resource not found: Table: gone not found");
    /* a stream the table does not have */
    snprintf(want, sizeof(want), "Requested resource not found: Stream: "
             "2024-01-01T00:00:00.000 not found for Table: pol");
    tcall_msg("GetResourcePolicy", json_pack("{s:s+}", "ResourceArn", arn,
                                             "/stream/2024-01-01T00:00:00.000"),
              "ResourceNotFoundException", want);
}
END_TEST

/* ------------------------------------------------------------------------
 * The evaluator (policy_eval.c): IAM's policy evaluation logic for a
 * resource-based policy and a principal of another account (IAM user
 * guide, "Policy evaluation logic": an explicit Deny overrides any Allow;
 * without an Allow the request is implicitly denied; action names match
 * without regard to case, ARNs with it, '*' and '?' as wildcards).
 * ---------------------------------------------------------------------- */

#define B "222222222222"
#define TARN "arn:aws:dynamodb:us-east-1:111111111111:table/t1"

static enum policy_effect
eval(const char *text, const char *account, const char *action)
{
    json_t *doc = json_loads(text, 0, NULL);
    enum policy_effect r;

    ck_assert_ptr_nonnull(doc);
    r = tables_policy_eval(doc, account, action, TARN);
    json_decref(doc);
    return r;
}

/* One statement (static buffer). */
static const char *
stmt(const char *effect, const char *principal, const char *action,
     const char *resource, const char *extra)
{
    static char d[2048];

    snprintf(d, sizeof(d), "{\"Statement\": [{\"Effect\": \"%s\", "
             "\"Principal\": %s, \"Action\": %s, \"Resource\": %s%s}]}",
             effect, principal, action, resource, extra);
    return d;
}

START_TEST(test_eval_principal)
{
    const char *act = "\"dynamodb:GetItem\"", *res = "\"" TARN "\"";

    ck_assert_int_eq(eval(stmt("Allow", "{\"AWS\": \"" B "\"}", act, res,
                               ""), B, "dynamodb:GetItem"), POLICY_ALLOW);
    ck_assert_int_eq(eval(stmt("Allow", "{\"AWS\": [\"333333333333\", "
                               "\"arn:aws:iam::" B ":root\"]}", act, res,
                               ""), B, "dynamodb:GetItem"), POLICY_ALLOW);
    ck_assert_int_eq(eval(stmt("Allow", "\"*\"", act, res, ""), B,
                           "dynamodb:GetItem"), POLICY_ALLOW);
    ck_assert_int_eq(eval(stmt("Allow", "{\"AWS\": \"*\"}", act, res, ""),
                          B, "dynamodb:GetItem"), POLICY_ALLOW);
    /* another account, a user of B (the caller is B's root), a service */
    ck_assert_int_eq(eval(stmt("Allow", "{\"AWS\": \"333333333333\"}",
                               act, res, ""), B, "dynamodb:GetItem"),
                     POLICY_NONE);
    ck_assert_int_eq(eval(stmt("Allow", "{\"AWS\": \"arn:aws:iam::" B
                               ":user/u\"}", act, res, ""), B,
                          "dynamodb:GetItem"), POLICY_NONE);
    ck_assert_int_eq(eval(stmt("Allow", "{\"Service\": \"" B "\"}", act,
                               res, ""), B, "dynamodb:GetItem"),
                     POLICY_NONE);
}
END_TEST

START_TEST(test_eval_action_resource)
{
    const char *pr = "{\"AWS\": \"" B "\"}", *res = "\"" TARN "\"";

    ck_assert_int_eq(eval(stmt("Allow", pr, "\"dynamodb:*\"", res, ""), B,
                          "dynamodb:Scan"), POLICY_ALLOW);
    ck_assert_int_eq(eval(stmt("Allow", pr, "\"*\"", res, ""), B,
                          "dynamodb:Scan"), POLICY_ALLOW);
    ck_assert_int_eq(eval(stmt("Allow", pr, "[\"dynamodb:get*\", "
                               "\"dynamodb:Query\"]", res, ""), B,
                          "dynamodb:GetItem"), POLICY_ALLOW);
    ck_assert_int_eq(eval(stmt("Allow", pr, "\"dynamodb:?utItem\"", res,
                               ""), B, "dynamodb:PutItem"), POLICY_ALLOW);
    ck_assert_int_eq(eval(stmt("Allow", pr, "[\"dynamodb:Get*\"]", res,
                               ""), B, "dynamodb:PutItem"), POLICY_NONE);
    /* Resource: wildcards; ARNs are case-sensitive */
    ck_assert_int_eq(eval(stmt("Allow", pr, "\"dynamodb:*\"",
                               "[\"arn:aws:dynamodb:*:111111111111:"
                               "table/t*\"]", ""), B, "dynamodb:Scan"),
                     POLICY_ALLOW);
    ck_assert_int_eq(eval(stmt("Allow", pr, "\"dynamodb:*\"",
                               "\"arn:aws:dynamodb:us-east-1:"
                               "111111111111:table/T1\"", ""), B,
                          "dynamodb:Scan"), POLICY_NONE);
    ck_assert_int_eq(eval(stmt("Allow", pr, "\"dynamodb:*\"",
                               "\"" TARN "/index/*\"", ""), B,
                          "dynamodb:Scan"), POLICY_NONE);
}
END_TEST

START_TEST(test_eval_deny_and_condition)
{
    char two[4096];
    const char *pr = "{\"AWS\": \"" B "\"}", *res = "\"*\"";

    snprintf(two, sizeof(two), "{\"Statement\": [{\"Effect\": "
             "\"Allow\", \"Principal\": %s, \"Action\": \"dynamodb:*\", "
             "\"Resource\": \"*\"}, {\"Effect\": \"Deny\", "
             "\"Principal\": \"*\", \"Action\": \"dynamodb:PutItem\", "
             "\"Resource\": \"" TARN "\"}]}", pr);
    ck_assert_int_eq(eval(two, B, "dynamodb:GetItem"), POLICY_ALLOW);
    ck_assert_int_eq(eval(two, B, "dynamodb:PutItem"), POLICY_DENY);
    /* a Condition is not evaluated: an Allow with one grants nothing, a
     * Deny with one denies */
    ck_assert_int_eq(eval(stmt("Allow", pr, "\"dynamodb:*\"", res,
                               ", \"Condition\": {\"Bool\": "
                               "{\"aws:SecureTransport\": \"true\"}}"),
                          B, "dynamodb:GetItem"), POLICY_NONE);
    ck_assert_int_eq(eval(stmt("Deny", pr, "\"dynamodb:*\"", res,
                               ", \"Condition\": {\"Bool\": "
                               "{\"aws:SecureTransport\": \"true\"}}"),
                          B, "dynamodb:GetItem"), POLICY_DENY);
    /* no statements that apply: nothing */
    ck_assert_int_eq(eval("{\"Statement\": []}", B, "dynamodb:GetItem"),
                     POLICY_NONE);
    ck_assert_int_eq(eval("{}", B, "dynamodb:GetItem"), POLICY_NONE);
}
END_TEST

START_TEST(test_glob)
{
    ck_assert(tables_policy_glob("a*b?d", "axxbcd", false));
    ck_assert(!tables_policy_glob("a*b?d", "axxbd", false));
    ck_assert(tables_policy_glob("GET*", "getitem", true));
    ck_assert(!tables_policy_glob("GET*", "getitem", false));
    ck_assert(tables_policy_glob("*", "", false));
    ck_assert(!tables_policy_glob("", "x", false));
}
END_TEST

static Suite *
suite(void)
{
    Suite *s = suite_create("policy");
    TCase *tc = tcase_create("policy");

    tcase_add_checked_fixture(tc, setup, tcall_teardown);
    tcase_add_test(tc, test_canonical_form);
    tcase_add_test(tc, test_revisions);
    tcase_add_test(tc, test_delete_and_tombstone);
    tcase_add_test(tc, test_document_checks);
    tcase_add_test(tc, test_self_lockout);
    tcase_add_test(tc, test_policy_arns);
    suite_add_tcase(s, tc);
    tc = tcase_create("eval");
    tcase_add_test(tc, test_eval_principal);
    tcase_add_test(tc, test_eval_action_resource);
    tcase_add_test(tc, test_eval_deny_and_condition);
    tcase_add_test(tc, test_glob);
    suite_add_tcase(s, tc);
    return s;
}

int
main(void)
{
    SRunner *sr = srunner_create(suite());
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}
