/* SPDX-License-Identifier: MIT */
/* policy_eval.c - evaluating a table's resource policy for a caller of
 * another account (--auth signature), as IAM evaluates a resource-based
 * policy for cross-account access: an explicit Deny wins, else an Allow
 * whose Principal, Action and Resource all match grants, else the request
 * is implicitly denied. The subset understood: Effect; Principal "*" or
 * {"AWS": "*" | account id | its root ARN, or a list}; Action and Resource
 * strings or lists with '*' and '?' wildcards. A Condition block is not
 * evaluated: an Allow with one grants nothing, a Deny with one denies
 * (the answer that never grants more than DynamoDB would). */
#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "api/proto/context.h"
#include "api/tables/tables_int.h"
#include "storage/util.h"

bool
tables_policy_glob(const char *pattern, const char *s, bool nocase)
{
    if (*pattern == '\0')
        return *s == '\0';
    if (*pattern == '*')
        return tables_policy_glob(pattern + 1, s, nocase) ||
               (*s != '\0' && tables_policy_glob(pattern, s + 1, nocase));
    if (*s == '\0')
        return false;
    if (*pattern != '?' &&
        (nocase ? tolower((unsigned char)*pattern) !=
                      tolower((unsigned char)*s)
                : *pattern != *s))
        return false;
    return tables_policy_glob(pattern + 1, s + 1, nocase);
}

/* Does one string or any string of a list v satisfy match(elem, arg)? */
static bool
any_of(const json_t *v, bool (*match)(const char *, const char *),
       const char *arg)
{
    const json_t *e;
    size_t i;

    if (json_is_string(v))
        return match(json_string_value(v), arg);
    json_array_foreach(v, i, e)
        if (json_is_string(e) && match(json_string_value(e), arg))
            return true;
    return false;
}

/* An AWS principal naming the account: "*", its id or its root user (the
 * credentials file's keys are accounts' root keys, not IAM users). */
static bool
principal_is(const char *p, const char *account)
{
    char root[64];

    if (strcmp(p, "*") == 0 || strcmp(p, account) == 0)
        return true;
    snprintf(root, sizeof(root), "arn:aws:iam::%s:root", account);
    return strcmp(p, root) == 0;
}

static bool
principal_match(const json_t *pr, const char *account)
{
    if (json_is_string(pr))
        return strcmp(json_string_value(pr), "*") == 0;
    return any_of(json_object_get(pr, "AWS"), principal_is, account);
}

/* Action names match without regard to case (IAM's rule). */
static bool
action_is(const char *pattern, const char *action)
{
    return tables_policy_glob(pattern, action, true);
}

/* ARNs match case-sensitively. */
static bool
resource_is(const char *pattern, const char *arn)
{
    return tables_policy_glob(pattern, arn, false);
}

enum policy_effect
tables_policy_eval(const json_t *doc, const char *account,
                   const char *action, const char *arn)
{
    enum policy_effect r = POLICY_NONE;
    const json_t *s;
    size_t i;

    json_array_foreach(json_object_get(doc, "Statement"), i, s) {
        const char *effect = tables_str(s, "Effect");
        bool allow = effect != NULL && strcasecmp(effect, "Allow") == 0;

        if (!principal_match(json_object_get(s, "Principal"), account) ||
            !any_of(json_object_get(s, "Action"), action_is, action) ||
            !any_of(json_object_get(s, "Resource"), resource_is, arn))
            continue;
        if (!allow)
            return POLICY_DENY;
        if (!json_has(s, "Condition"))
            r = POLICY_ALLOW;
    }
    return r;
}

int
tables_access_denied(const struct api_ctx *ctx, const char *arn,
                     bool explicit_deny, struct ddb_err *err)
{
    const char *op = ctx->op != NULL ? ctx->op : "*";

    if (explicit_deny)
        return ddb_err_set(err, DDB_ACCESS_DENIED,
                           "User: arn:aws:iam::%s:root is not authorized to "
                           "perform: dynamodb:%s on resource: %.*s with an "
                           "explicit deny in a resource-based policy",
                           api_account(ctx), op, 2048, arn);
    return ddb_err_set(err, DDB_ACCESS_DENIED,
                       "User: arn:aws:iam::%s:root is not authorized to "
                       "perform: dynamodb:%s on resource: %.*s because no "
                       "resource-based policy allows the dynamodb:%s action",
                       api_account(ctx), op, 2048, arn, op);
}

int
tables_policy_access(const struct api_ctx *ctx, const char *stored,
                     const char *arn, struct ddb_err *err)
{
    struct stable *t = storage_table_get(ctx->srv->st, stored);
    enum policy_effect r = POLICY_NONE;
    char action[128];

    if (t != NULL) {
        json_t *desc = stable_desc_ref(t);
        const char *text = tables_str(json_object_get(
            json_object_get(desc, PRIV_POLICY), ""), "policy");
        json_t *doc = text != NULL ? json_loads(text, 0, NULL) : NULL;

        snprintf(action, sizeof(action), "dynamodb:%s",
                 ctx->op != NULL ? ctx->op : "*");
        if (doc != NULL)
            r = tables_policy_eval(doc, api_account(ctx), action, arn);
        json_decref(doc);
        json_decref(desc);
        stable_release(t);
    }
    if (r == POLICY_ALLOW)
        return 0;
    return tables_access_denied(ctx, arn, r == POLICY_DENY, err);
}
