/* SPDX-License-Identifier: MIT */
/* policy.c - resource-based policies: PutResourcePolicy,
 * GetResourcePolicy and DeleteResourcePolicy on a table or its stream,
 * and CreateTable's ResourcePolicy. A policy is checked as DynamoDB checks
 * one, kept in the table's description (PRIV_POLICY) in the canonical
 * form GetResourcePolicy returns, with a RevisionId that is the epoch
 * milliseconds of its change, as DynamoDB's is. Evaluating it for other
 * accounts' callers is policy_eval.c's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "api/proto/context.h"
#include "api/tables/tables.h"
#include "api/tables/tables_int.h"
#include "storage/util.h"

#define POLICY_MAX_BYTES 20480
#define POLICY_INVALID "One or more parameter values were invalid: "
#define POLICY_DOC POLICY_INVALID "Invalid policy document: "

/* ------------------------------------------------------------------------
 * Checking a policy document (ack-api-quirks DDB-TABLE-211, -356, -457
 * and -210, 2026-10: every message below is one DynamoDB gave)
 * ---------------------------------------------------------------------- */

/* The DynamoDB actions a table's policy may name (IAM's service
 * authorization reference, resource type "table"); the stream actions
 * belong to a stream's policy. */
static const char *const table_actions[] = {
    "BatchGetItem", "BatchWriteItem", "ConditionCheckItem", "CreateBackup",
    "CreateTable", "CreateTableReplica", "DeleteItem",
    "DeleteResourcePolicy", "DeleteTable", "DeleteTableReplica",
    "DescribeContinuousBackups", "DescribeContributorInsights",
    "DescribeKinesisStreamingDestination", "DescribeTable",
    "DescribeTableReplicaAutoScaling", "DescribeTimeToLive",
    "DisableKinesisStreamingDestination",
    "EnableKinesisStreamingDestination", "ExportTableToPointInTime",
    "GetItem", "GetResourcePolicy", "ImportTable", "ListTagsOfResource",
    "PartiQLDelete", "PartiQLInsert", "PartiQLSelect", "PartiQLUpdate",
    "PutItem", "PutResourcePolicy", "Query", "RestoreTableFromBackup",
    "RestoreTableToPointInTime", "Scan", "TagResource", "UntagResource",
    "UpdateContinuousBackups", "UpdateContributorInsights", "UpdateItem",
    "UpdateKinesisStreamingDestination", "UpdateTable",
    "UpdateTableReplicaAutoScaling", "UpdateTimeToLive", NULL,
};
static const char *const stream_actions[] = {
    "DescribeStream", "GetRecords", "GetShardIterator", "ListStreams",
    "DeleteResourcePolicy", "GetResourcePolicy", "PutResourcePolicy", NULL,
};

/* Is action (e.g. "dynamodb:Get*") one a policy of this kind may name? */
static bool
action_ok(const char *action, bool stream)
{
    const char *const *names = stream ? stream_actions : table_actions;

    if (strcmp(action, "*") == 0)
        return true;
    if (strncasecmp(action, "dynamodb:", 9) != 0)
        return false;
    for (size_t i = 0; names[i] != NULL; i++)
        if (tables_policy_glob(action + 9, names[i], true))
            return true;
    return false;
}

/* A list of strings or one string, as a list (new reference); NULL when
 * v is neither. */
static json_t *
as_list(const json_t *v)
{
    const json_t *e;
    size_t i;

    if (json_is_string(v))
        return json_pack("[O]", v);
    if (!json_is_array(v) || json_array_size(v) == 0)
        return NULL;
    json_array_foreach(v, i, e)
        if (!json_is_string(e))
            return NULL;
    return json_incref((json_t *)v);
}

/* A one-element list reads back as its element (DDB-TABLE-208). Takes l. */
static json_t *
collapse(json_t *l)
{
    json_t *one;

    if (json_array_size(l) != 1)
        return l;
    one = json_incref(json_array_get(l, 0));
    json_decref(l);
    return one;
}

/* One AWS principal: "*", an account id (read back as its root ARN) or an
 * IAM or STS ARN of an account. NULL when it is none of these. */
static json_t *
principal_one(const char *p)
{
    size_t n = strlen(p);

    if (strcmp(p, "*") == 0)
        return json_string(p);
    if (n == 12 && strspn(p, "0123456789") == 12)
        return json_sprintf("arn:aws:iam::%s:root", p);
    if ((strncmp(p, "arn:aws:iam::", 13) == 0 ||
         strncmp(p, "arn:aws:sts::", 13) == 0) &&
        strspn(p + 13, "0123456789") == 12 && p[25] == ':' && p[26] != '\0')
        return json_string(p);
    return NULL;
}

/* The canonical Principal (new reference), or NULL with err set. *anyone
 * says whether it names everyone. */
static json_t *
principal_canon(const json_t *pr, const char *text, bool *anyone,
                struct ddb_err *err)
{
    json_t *out, *list, *aws, *one;
    const char *k, *at;
    const json_t *v, *e;
    size_t i, j;

    *anyone = false;
    if (json_is_string(pr) && strcmp(json_string_value(pr), "*") == 0) {
        *anyone = true;
        return json_string("*");
    }
    if (!json_is_object(pr)) {
        /* A bare string names no principal: IAM's parser stops at the
         * value (DDB-TABLE-356 "Syntax error at position (1,94)"). */
        at = strstr(text, "\"Principal\"");
        ddb_err_set(err, DDB_VALIDATION, POLICY_DOC "Syntax error at "
                    "position (1,%d)",
                    at != NULL ? (int)(at - text) + 13 : 1);
        return NULL;
    }
    out = json_object();
    json_object_foreach((json_t *)pr, k, v) {
        list = as_list(v);
        if (list == NULL) {
            json_decref(out);
            ddb_err_set(err, DDB_VALIDATION, POLICY_INVALID "Invalid "
                        "principal in policy document.");
            return NULL;
        }
        if (strcmp(k, "AWS") != 0) {
            json_object_set_new(out, k, collapse(list));
            continue;
        }
        aws = json_array();
        json_array_foreach(list, i, e) {
            one = principal_one(json_string_value(e));
            if (one == NULL) {
                json_decref(aws);
                json_decref(list);
                json_decref(out);
                ddb_err_set(err, DDB_VALIDATION, POLICY_INVALID "Invalid "
                            "principal in policy document.");
                return NULL;
            }
            *anyone = *anyone || json_str_is(one, "*");
            for (j = 0; j < json_array_size(aws); j++)  /* [id, its ARN] */
                if (json_same(json_array_get(aws, j), one))
                    break;
            if (j < json_array_size(aws))
                json_decref(one);
            else
                json_array_append_new(aws, one);
        }
        json_decref(list);
        json_object_set_new(out, "AWS", collapse(aws));
    }
    return out;
}

/* The error for a document that is no JSON object with a Statement:
 * DynamoDB reports a syntax error at the end of the text ("{}": position
 * (1,3), DDB-TABLE-457). */
static int
syntax_at_end(const char *text, struct ddb_err *err)
{
    int line = 1, col = 1;

    for (const char *p = text; *p != '\0'; p++) {
        if (*p == '\n') {
            line++;
            col = 1;
        } else {
            col++;
        }
    }
    return ddb_err_set(err, DDB_VALIDATION, POLICY_DOC "Syntax error at "
                       "position (%d,%d)", line, col);
}

/* Check and canonicalise one statement into out (appended). */
static int
statement_canon(const json_t *s, const char *text, bool stream,
                json_t *out, struct ddb_err *err)
{
    static const char *const required[] = { "Effect", "Principal", "Action",
                                            "Resource" };
    const char *effect = tables_str(s, "Effect");
    json_t *st, *pr, *acts, *res, *bad;
    const json_t *a;
    bool anyone;
    size_t i;

    if (!json_is_object(s))
        return ddb_err_set(err, DDB_VALIDATION, POLICY_DOC "This policy "
                           "contains invalid Json");
    for (i = 0; i < 4; i++)
        if (!json_has(s, required[i]))
            return ddb_err_set(err, DDB_VALIDATION, POLICY_DOC "Missing "
                               "required field %s", required[i]);
    if (effect == NULL || (strcasecmp(effect, "Allow") != 0 &&
                           strcasecmp(effect, "Deny") != 0))
        return syntax_at_end(text, err);
    pr = principal_canon(json_object_get(s, "Principal"), text, &anyone,
                         err);
    if (pr == NULL)
        return -1;
    acts = as_list(json_object_get(s, "Action"));
    res = as_list(json_object_get(s, "Resource"));
    if (acts == NULL || res == NULL) {
        json_decref(pr);
        json_decref(acts);
        json_decref(res);
        return syntax_at_end(text, err);
    }
    bad = json_array();
    json_array_foreach(acts, i, a)
        if (!action_ok(json_string_value(a), stream))
            json_array_append(bad, (json_t *)a);
    if (json_array_size(bad) > 0) {
        struct strbuf b = { 0 };

        json_array_foreach(bad, i, a)
            strbuf_printf(&b, "%s\"%s\"", i > 0 ? ", " : "",
                          json_string_value(a));
        ddb_err_set(err, DDB_VALIDATION, POLICY_DOC "The following action "
                    "names are invalid: %s", b.s);
        strbuf_free(&b);
        json_decref(bad);
        json_decref(pr);
        json_decref(acts);
        json_decref(res);
        return -1;
    }
    json_decref(bad);
    /* Public access is refused unless a condition narrows it. */
    if (anyone && strcasecmp(effect, "Allow") == 0 &&
        !json_has(s, "Condition")) {
        json_decref(pr);
        json_decref(acts);
        json_decref(res);
        return ddb_err_set(err, DDB_VALIDATION, "Resource-based policy "
                           "grants unbounded access in one or more "
                           "elements. Please revise the policy to ensure "
                           "least-privilege form of access");
    }
    st = json_object();
    if (json_has(s, "Sid"))
        json_object_set(st, "Sid", json_object_get(s, "Sid"));
    json_object_set_new(st, "Effect", json_string(
                                          strcasecmp(effect, "Allow") == 0
                                              ? "Allow"
                                              : "Deny"));
    json_object_set_new(st, "Principal", pr);
    json_object_set_new(st, "Action", collapse(acts));
    json_object_set_new(st, "Resource", collapse(res));
    if (json_has(s, "Condition"))
        json_object_set(st, "Condition", json_object_get(s, "Condition"));
    json_array_append_new(out, st);
    return 0;
}

/* Does a Deny statement of canon cover dynamodb:PutResourcePolicy? Then
 * the caller would lock itself out (DDB-TABLE-210). */
static bool
denies_put(const json_t *canon)
{
    const json_t *s, *acts, *a;
    size_t i, j;

    json_array_foreach(json_object_get(canon, "Statement"), i, s) {
        if (!json_str_is(json_object_get(s, "Effect"), "Deny"))
            continue;
        acts = json_object_get(s, "Action");
        if (json_is_string(acts))
            acts = json_pack("[O]", acts);
        else
            json_incref((json_t *)acts);
        json_array_foreach(acts, j, a) {
            const char *v = json_string_value(a);

            if (strcmp(v, "*") == 0 ||
                (strncasecmp(v, "dynamodb:", 9) == 0 &&
                 tables_policy_glob(v + 9, "PutResourcePolicy", true))) {
                json_decref((json_t *)acts);
                return true;
            }
        }
        json_decref((json_t *)acts);
    }
    return false;
}

/*
 * Check the policy document text for a table (stream false) or a stream,
 * into its canonical form (a new reference: Version, Statement, each
 * statement Sid, Effect, Principal, Action, Resource, Condition, one-item
 * lists as strings, account ids as root ARNs, DDB-TABLE-208). A document
 * without Version reads back with IAM's default, 2008-10-17, yet counts
 * as different from one that says so (DDB-TABLE-354): *key receives the
 * form two documents are compared in (a new string, caller frees).
 */
static json_t *
policy_canon(const char *text, bool stream, char **key, struct ddb_err *err)
{
    json_t *doc, *canon = NULL, *stmts, *st;
    const json_t *s, *sid;
    json_error_t jerr;
    size_t i, j;

    *key = NULL;
    if (strlen(text) > POLICY_MAX_BYTES) {
        ddb_err_set(err, DDB_VALIDATION, POLICY_INVALID "Maximum policy size "
                    "of %d bytes exceeded", POLICY_MAX_BYTES);
        return NULL;
    }
    doc = json_loads(text, JSON_DECODE_ANY, &jerr);
    if (json_is_null(doc)) {
        json_decref(doc);
        ddb_err_set(err, DDB_VALIDATION, POLICY_DOC "This text appears not "
                    "to be a policy");
        return NULL;
    }
    if (!json_is_object(doc)) {
        json_decref(doc);
        ddb_err_set(err, DDB_VALIDATION, POLICY_DOC "This policy contains "
                    "invalid Json");
        return NULL;
    }
    stmts = json_object_get(doc, "Statement");
    if (json_is_object(stmts))
        stmts = json_pack("[O]", stmts);
    else
        json_incref(stmts);
    if (!json_is_array(stmts)) {
        syntax_at_end(text, err);
        goto out;
    }
    if (json_array_size(stmts) == 0) {
        ddb_err_set(err, DDB_VALIDATION, POLICY_DOC "Could not parse the "
                    "policy: Statement is empty!");
        goto out;
    }
    canon = json_object();
    if (json_has(doc, "Version"))
        json_object_set(canon, "Version", json_object_get(doc, "Version"));
    else
        json_object_set_new(canon, "Version", json_string("2008-10-17"));
    st = json_array();
    json_object_set_new(canon, "Statement", st);
    json_array_foreach(stmts, i, s) {
        if (statement_canon(s, text, stream, st, err) != 0) {
            json_decref(canon);
            canon = NULL;
            goto out;
        }
        sid = json_object_get(s, "Sid");
        for (j = 0; sid != NULL && j < i; j++)
            if (json_same(json_object_get(json_array_get(stmts, j), "Sid"),
                          sid)) {
                ddb_err_set(err, DDB_VALIDATION, POLICY_DOC "The Statement "
                            "Ids in the policy are not unique");
                json_decref(canon);
                canon = NULL;
                goto out;
            }
    }
    {
        char *c = json_text(canon, JSON_COMPACT | JSON_PRESERVE_ORDER);

        *key = xasprintf("%s%s", json_has(doc, "Version") ? "" : "#",
                         c != NULL ? c : "");
        free(c);
    }
out:
    json_decref(stmts);
    json_decref(doc);
    return canon;
}

/* ------------------------------------------------------------------------
 * Stored policies
 * ---------------------------------------------------------------------- */

/*
 * desc's PRIV_POLICY: {"<resource>": {"policy": canonical text, "key":
 * comparison form, "rev": RevisionId}, ...} with "" the table's and
 * "stream/<label>" a stream's; after a delete the entry keeps only
 * {"deleted": RevisionId}.
 */
static json_t *
entry_of(const json_t *desc, const char *res)
{
    return json_object_get(json_object_get(desc, PRIV_POLICY), res);
}

/* A RevisionId: the change's epoch milliseconds, after any earlier one
 * of the table's (they are strictly increasing, DDB-TABLE-207). */
static json_t *
next_revision(const struct api_ctx *ctx, const json_t *desc)
{
    uint64_t now = tables_now_ms(ctx), last = 0;
    const char *k;
    const json_t *e;

    json_object_foreach(json_object_get(desc, PRIV_POLICY), k, e) {
        const char *r = tables_str(e, json_has(e, "rev") ? "rev"
                                                         : "deleted");
        uint64_t v = r != NULL ? strtoull(r, NULL, 10) : 0;

        if (v > last)
            last = v;
    }
    if (now <= last)
        now = last + 1;
    return json_sprintf("%013llu", (unsigned long long)now);
}

int
tables_policy_check(const struct api_ctx *ctx, const char *text,
                    json_t **entry, struct ddb_err *err)
{
    char *key;
    json_t *canon = policy_canon(text, false, &key, err);
    char *c;

    (void)ctx;
    if (canon == NULL)
        return -1;
    c = json_text(canon, JSON_COMPACT | JSON_PRESERVE_ORDER);
    *entry = json_pack("{s:s, s:s}", "policy", c != NULL ? c : "", "key",
                       key);
    free(c);
    free(key);
    json_decref(canon);
    return 0;
}

void
tables_policy_store(const struct api_ctx *ctx, json_t *desc,
                    json_t *entry)
{
    json_t *all = json_object_get(desc, PRIV_POLICY);

    json_object_set_new(entry, "rev", next_revision(ctx, desc));
    if (!json_is_object(all)) {
        all = json_object();
        json_object_set_new(desc, PRIV_POLICY, all);
    }
    json_object_set_new(all, "", entry);
}

/* ------------------------------------------------------------------------
 * The operations
 * ---------------------------------------------------------------------- */

/* One policy call: its table, opened with its settled description (under
 * the DDL lock for a change), and the resource within it. */
struct pol {
    struct tables_arn a;
    const char *arn;                    /* the ResourceArn, as sent */
    char res[TABLES_NAME_MAX + 8];      /* "" or "stream/<label>" */
    struct tables_ddl d;
    bool locked;
};

/* Open p's table; a stream must be the table's current one. A missing
 * table or one still CREATING is not found (DDB-TABLE-212, -234). */
static int
pol_open(struct api_ctx *ctx, const json_t *req, bool change, struct pol *p,
         struct ddb_err *err)
{
    const char *latest;
    int o;

    memset(p, 0, sizeof(*p));
    p->arn = tables_str(req, "ResourceArn");
    if (tables_resource_arn(ctx, p->arn, true, &p->a, err) != 0)
        return -1;
    p->d.ctx = ctx;
    if (change) {
        api_ddl_lock();
        p->locked = true;
    }
    o = tables_open_settled(ctx, p->a.stored, change, &p->d.t, &p->d.desc,
                            err);
    if (o < 0)
        return -1;
    if (o > 0 || json_str_is(json_object_get(p->d.desc, "TableStatus"),
                             "CREATING"))
        return ddb_err_set(err, DDB_RESOURCE_NOT_FOUND, "Requested resource "
                           "not found: Table: %s not found", p->a.table);
    if (p->a.kind == ARN_STREAM) {
        latest = tables_str(p->d.desc, "LatestStreamArn");
        if (latest == NULL || strcmp(latest, p->arn) != 0)
            return ddb_err_set(err, DDB_RESOURCE_NOT_FOUND, "Requested "
                               "resource not found: Stream: %s not found "
                               "for Table: %s", p->a.sub, p->a.table);
        snprintf(p->res, sizeof(p->res), "stream/%s", p->a.sub);
    }
    return 0;
}

static void
pol_close(struct pol *p)
{
    if (p->locked)
        api_ddl_unlock();
    json_decref(p->d.desc);
    if (p->d.t != NULL)
        stable_release(p->d.t);
}

/* ExpectedRevisionId against the current entry; NO_POLICY expects none
 * (DDB-TABLE-205, -209, and moto's test_dynamodb_resource_policy.py,
 * verified against DynamoDB; the no-policy message is ours). */
static int
check_expected(const struct pol *p, const json_t *cur, const char *expected,
               struct ddb_err *err)
{
    const char *rev = tables_str(cur, "rev");

    if (expected == NULL || (rev != NULL && strcmp(rev, expected) == 0))
        return 0;
    if (strcmp(expected, "NO_POLICY") == 0) {
        if (rev == NULL)
            return 0;
        return ddb_err_set(err, DDB_POLICY_NOT_FOUND, "Resource-based policy "
                           "not found for the provided ResourceArn: "
                           "Requested policy update expecting none to be "
                           "present for table %s, but a policy exists with "
                           "revision id %s.", p->a.table, rev);
    }
    if (rev == NULL)
        return ddb_err_set(err, DDB_POLICY_NOT_FOUND, "Resource-based policy "
                           "not found for the provided ResourceArn: "
                           "Requested update for policy with revision id %s, "
                           "but table %s has no associated resource-based "
                           "policy.", expected, p->a.table);
    return ddb_err_set(err, DDB_POLICY_NOT_FOUND, "Resource-based policy not "
                       "found for the provided ResourceArn: Requested "
                       "update for policy with revision id %s, but the "
                       "policy associated to target table %s has revision "
                       "id %s.", expected, p->a.table, rev);
}

/* A change to a DELETING table's policy is refused (DDB-TABLE-374). */
static int
check_not_deleting(const struct pol *p, struct ddb_err *err)
{
    if (!json_str_is(json_object_get(p->d.desc, "TableStatus"), "DELETING"))
        return 0;
    return ddb_err_set(err, DDB_RESOURCE_IN_USE, "Attempt to change a "
                       "resource which is still in use: Table is being "
                       "deleted: %s", p->a.table);
}

/* Write the description back with the resource's entry (taken, NULL to
 * remove nothing). */
static int
pol_save(struct api_ctx *ctx, struct pol *p, json_t *entry,
         struct ddb_err *err)
{
    json_t *all = json_object_get(p->d.desc, PRIV_POLICY);

    if (!json_is_object(all)) {
        all = json_object();
        json_object_set_new(p->d.desc, PRIV_POLICY, all);
    }
    (void)ctx;
    json_object_set_new(all, p->res, entry);
    return stable_set_desc(p->d.t, p->d.desc, err);
}

int
api_put_resource_policy(struct api_ctx *ctx, const json_t *req,
                        json_t **resp, struct ddb_err *err)
{
    const char *expected = tables_str(req, "ExpectedRevisionId");
    json_t *canon, *cur, *entry;
    struct pol p;
    char *key = NULL, *text = NULL;
    int rc = -1;

    if (pol_open(ctx, req, true, &p, err) != 0)
        goto out;
    canon = policy_canon(tables_str(req, "Policy"), p.a.kind == ARN_STREAM,
                         &key, err);
    if (canon == NULL)
        goto out;
    text = json_text(canon, JSON_COMPACT | JSON_PRESERVE_ORDER);
    if (denies_put(canon) &&
        !json_is_true(json_object_get(req,
                                      "ConfirmRemoveSelfResourceAccess"))) {
        json_decref(canon);
        ddb_err_set(err, DDB_ACCESS_DENIED, "The new resource policy will "
                    "not allow you to update the resource policy in the "
                    "future.");
        goto out;
    }
    json_decref(canon);
    cur = entry_of(p.d.desc, p.res);
    if (check_expected(&p, cur, expected, err) != 0)
        goto out;
    /* An equivalent document changes nothing, keeps its RevisionId and is
     * allowed while DELETING (DDB-TABLE-207, -374). */
    if (json_str_is(json_object_get(cur, "key"), key)) {
        *resp = json_pack("{s:O}", "RevisionId", json_object_get(cur, "rev"));
        rc = 0;
        goto out;
    }
    if (check_not_deleting(&p, err) != 0)
        goto out;
    entry = json_pack("{s:s, s:s, s:o}", "policy", text, "key", key, "rev",
                      next_revision(ctx, p.d.desc));
    *resp = json_pack("{s:O}", "RevisionId", json_object_get(entry, "rev"));
    if (pol_save(ctx, &p, entry, err) != 0) {
        json_decref(*resp);
        *resp = NULL;
        goto out;
    }
    rc = 0;
out:
    free(key);
    free(text);
    pol_close(&p);
    return rc;
}

int
api_get_resource_policy(struct api_ctx *ctx, const json_t *req,
                        json_t **resp, struct ddb_err *err)
{
    const json_t *cur;
    struct pol p;
    int rc = -1;

    if (pol_open(ctx, req, false, &p, err) != 0)
        goto out;
    cur = entry_of(p.d.desc, p.res);
    if (!json_has(cur, "policy")) {
        ddb_err_set(err, DDB_POLICY_NOT_FOUND, "Resource-based policy not "
                    "found for the provided ResourceArn: %s", p.arn);
        goto out;
    }
    *resp = json_pack("{s:O, s:O}", "Policy", json_object_get(cur, "policy"),
                      "RevisionId", json_object_get(cur, "rev"));
    rc = 0;
out:
    pol_close(&p);
    return rc;
}

/*
 * A table that never had a policy: 200 and nothing else; after a delete,
 * 200 with the deletion's RevisionId; a real delete answers the removed
 * policy's RevisionId (DDB-TABLE-205, -209).
 */
int
api_delete_resource_policy(struct api_ctx *ctx, const json_t *req,
                           json_t **resp, struct ddb_err *err)
{
    const char *expected = tables_str(req, "ExpectedRevisionId");
    const json_t *cur;
    struct pol p;
    int rc = -1;

    if (pol_open(ctx, req, true, &p, err) != 0)
        goto out;
    cur = entry_of(p.d.desc, p.res);
    if (check_expected(&p, cur, expected, err) != 0)
        goto out;
    if (!json_has(cur, "policy")) {
        *resp = json_has(cur, "deleted")
                    ? json_pack("{s:O}", "RevisionId",
                                json_object_get(cur, "deleted"))
                    : json_object();
        rc = 0;
        goto out;
    }
    if (check_not_deleting(&p, err) != 0)
        goto out;
    *resp = json_pack("{s:O}", "RevisionId", json_object_get(cur, "rev"));
    if (pol_save(ctx, &p, json_pack("{s:o}", "deleted",
                                    next_revision(ctx, p.d.desc)),
                 err) != 0) {
        json_decref(*resp);
        *resp = NULL;
        goto out;
    }
    rc = 0;
out:
    pol_close(&p);
    return rc;
}
