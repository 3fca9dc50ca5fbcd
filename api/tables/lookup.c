/* SPDX-License-Identifier: MIT */
/* lookup.c - resolving a request's TableName (a name or a table ARN) to an
 * open table: for the control plane (tables_open_named) and for every data
 * operation (api_open_table*, table_ref_open), the caller's access to it
 * (its account's, or one a resource policy opens), plus table ARNs and the
 * request's region, account and clock. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "api/proto/context.h"
#include "api/tables/tables.h"
#include "api/tables/tables_int.h"
#include "storage/util.h"

/* ------------------------------------------------------------------------
 * Small helpers: the request's clock, region and account; JSON members
 * ---------------------------------------------------------------------- */

uint64_t
tables_now_ms(const struct api_ctx *ctx)
{
    return ctx->now_ms != 0 ? ctx->now_ms : wall_ms();
}

const char *
tables_region(const struct api_ctx *ctx)
{
    if (ctx->region != NULL && ctx->region[0] != '\0')
        return ctx->region;
    if (ctx->srv != NULL && ctx->srv->conf != NULL &&
        ctx->srv->conf->default_region[0] != '\0')
        return ctx->srv->conf->default_region;
    return "us-east-1";
}

const char *
tables_account(const struct api_ctx *ctx)
{
    return api_account(ctx);
}

unsigned
tables_status_delay(const struct api_ctx *ctx)
{
    if (ctx->srv != NULL && ctx->srv->conf != NULL)
        return ctx->srv->conf->status_delay_ms;
    return 0;
}

const char *
tables_str(const json_t *obj, const char *key)
{
    return json_string_value(json_object_get(obj, key));
}

long long
tables_uint(const json_t *obj, const char *key)
{
    uint64_t v;

    return json_get_uint(obj, key, &v) == 1 ? (long long)v : -1;
}

/* ------------------------------------------------------------------------
 * Table names and ARNs
 * ---------------------------------------------------------------------- */

void
api_table_arn(const struct api_ctx *ctx, const char *table, char *out,
              size_t outsz)
{
    char buf[13];

    snprintf(out, outsz, "arn:aws:dynamodb:%s:%s:table/%s",
             tables_region(ctx), api_table_owner(ctx, table, buf),
             api_table_public(table));
}

/* A table ARN's account and what follows "table/" (tables_int.h). */
const char *
tables_arn_table(const char *arn, char account[13])
{
    const char *p = arn, *acct, *acct_end;
    int field;

    if (strncmp(arn, "arn:aws", 7) != 0 || strstr(arn, ":dynamodb:") == NULL)
        return NULL;
    /* Skip arn, partition, service, region: the account starts after the
     * fourth colon. */
    for (field = 0; field < 4; field++) {
        p = strchr(p, ':');
        if (p == NULL)
            return NULL;
        p++;
    }
    acct = p;
    acct_end = strchr(acct, ':');
    if (acct_end == NULL || strncmp(acct_end + 1, "table/", 6) != 0 ||
        acct_end - acct != 12 || strspn(acct, "0123456789") < 12)
        return NULL;
    memcpy(account, acct, 12);
    account[12] = '\0';
    return acct_end + 7;
}

/*
 * The stored name of the table a TableName parameter names: the caller's
 * table of that name, or the table a table ARN (arn:aws:dynamodb:
 * <region>:<account>:table/<name>) names in its account. Fails when the
 * value looks like an ARN but is not a table ARN. Whether the caller may
 * use it is tables_check_access()'s question.
 */
bool
tables_name_from_param(const struct api_ctx *ctx, const char *param,
                       char *out, size_t outsz)
{
    const char *p;
    char account[13];

    if (strncmp(param, "arn:", 4) != 0)
        return api_table_stored(ctx, NULL, param, out, outsz);
    p = tables_arn_table(param, account);
    if (p == NULL || *p == '\0' || strchr(p, '/') != NULL ||
        strchr(p, ':') != NULL)
        return false;
    return api_table_stored(ctx, account, p, out, outsz);
}

int
tables_check_access(const struct api_ctx *ctx, const char *stored,
                    struct ddb_err *err)
{
    char buf[13], arn[2400];
    const char *owner = api_table_owner(ctx, stored, buf);

    if (ctx->srv != NULL && ctx->srv->policy != NULL) {
        api_table_arn(ctx, stored, arn, sizeof(arn));
        return ctx->srv->policy(ctx, owner, stored, arn, err);
    }
    if (strcmp(owner, api_account(ctx)) == 0)
        return 0;                       /* the common case: no ARN built */
    api_table_arn(ctx, stored, arn, sizeof(arn));
    /* Accounts other than --account-id exist only with signatures. */
    if (ctx->srv != NULL && ctx->srv->conf != NULL &&
        ctx->srv->conf->auth == AUTH_SIGNATURE)
        return tables_policy_access(ctx, stored, arn, err);
    return tables_access_denied(ctx, arn, false, err);
}

const char *
tables_req_name(const json_t *req, struct ddb_err *err)
{
    const char *name = tables_str(req, "TableName");

    if (name == NULL)
        ddb_err_set(err, DDB_VALIDATION,
                    "1 validation error detected: Value null at 'tableName' "
                    "failed to satisfy constraint: Member must not be null");
    return name;
}

/* ------------------------------------------------------------------------
 * Control plane: the table of a DDL request
 * ---------------------------------------------------------------------- */

/* The control plane names the missing table, as given. */
static int
not_found_named(const char *param, struct ddb_err *err)
{
    return ddb_err_set(err, DDB_RESOURCE_NOT_FOUND,
                       "Requested resource not found: Table: %s not found",
                       param);
}

int
tables_open_named(struct api_ctx *ctx, const char *param, bool with_lock,
                  char *name, size_t namesz, struct stable **t,
                  json_t **desc, struct ddb_err *err)
{
    int o;

    if (!tables_name_from_param(ctx, param, name, namesz))
        return not_found_named(param, err);
    if (tables_check_access(ctx, name, err) != 0)
        return -1;
    o = tables_open_settled(ctx, name, with_lock, t, desc, err);
    if (o > 0)
        return not_found_named(param, err);
    return o;
}

/* ------------------------------------------------------------------------
 * Data plane: resolve TableName to an open table
 * ---------------------------------------------------------------------- */

/* The data operations' answer for a table they cannot use. */
static int
not_found(struct ddb_err *err)
{
    return ddb_err_set(err, DDB_RESOURCE_NOT_FOUND,
                       "Requested resource not found");
}

/* The table name of req's TableName into name, or -1 with err set. */
static int
data_table_name(struct api_ctx *ctx, const json_t *req, char *name,
                size_t namesz, struct ddb_err *err)
{
    const char *param = tables_req_name(req, err);

    if (param == NULL)
        return -1;
    if (!tables_name_from_param(ctx, param, name, namesz))
        return not_found(err);
    return tables_check_access(ctx, name, err);
}

/* DynamoDB answers data operations on a table that is not ACTIVE yet
 * (CREATING) or is going away (DELETING) as if it did not exist;
 * UPDATING tables stay usable. */
static bool
is_usable(const json_t *desc)
{
    const char *status = tables_str(desc, "TableStatus");

    return status == NULL || (strcmp(status, "CREATING") != 0 &&
                              strcmp(status, "DELETING") != 0);
}

/*
 * One deep copy of the description per call (stable_desc); callers that
 * need the description use api_open_table_desc() so they do not copy it
 * again.
 */
int
api_open_table_desc(struct api_ctx *ctx, const json_t *req,
                    struct stable **t, json_t **desc, struct ddb_err *err)
{
    char name[TABLES_NAME_MAX];
    struct stable *tab = NULL;
    json_t *d = NULL;
    int o;

    if (data_table_name(ctx, req, name, sizeof(name), err) != 0)
        return -1;
    o = tables_open_settled(ctx, name, false, &tab, &d, err);
    if (o < 0)
        return -1;
    if (o > 0)
        return not_found(err);
    if (!is_usable(d)) {
        json_decref(d);
        stable_release(tab);
        return not_found(err);
    }
    *t = tab;
    if (desc != NULL)
        *desc = d;
    else
        json_decref(d);
    return 0;
}

/*
 * The data-plane hot path: like api_open_table_desc(), but *desc is the
 * store's shared description (stable_desc_ref: read-only, no copy) when no
 * status transition is due, which is every request but the first after a
 * CREATING/UPDATING/DELETING period ends; that one takes the slow path.
 */
int
api_open_table_ref(struct api_ctx *ctx, const json_t *req,
                   struct stable **t, json_t **desc, struct ddb_err *err)
{
    char name[TABLES_NAME_MAX];
    struct stable *tab;
    json_t *d, *until;

    if (data_table_name(ctx, req, name, sizeof(name), err) != 0)
        return -1;
    tab = storage_table_get(ctx->srv->st, name);
    if (tab == NULL)
        return not_found(err);
    d = stable_desc_ref(tab);
    until = json_object_get(d, PRIV_UNTIL);
    if (d == NULL ||
        (json_is_integer(until) &&
         (uint64_t)json_integer_value(until) <= tables_now_ms(ctx))) {
        json_decref(d);
        stable_release(tab);
        return api_open_table_desc(ctx, req, t, desc, err);
    }
    if (!is_usable(d)) {
        json_decref(d);
        stable_release(tab);
        return not_found(err);
    }
    *t = tab;
    *desc = d;
    return 0;
}

int
api_open_table(struct api_ctx *ctx, const json_t *req, struct stable **t,
               struct ddb_err *err)
{
    return api_open_table_desc(ctx, req, t, NULL, err);
}

int
table_ref_open(struct api_ctx *ctx, const json_t *req, struct table_ref *ot,
               struct ddb_err *err)
{
    json_t *desc = NULL;
    int rc = -1;

    memset(ot, 0, sizeof(*ot));
    /* No description copy per request: only the key schema is read. */
    if (api_open_table_ref(ctx, req, &ot->t, &desc, err) != 0) {
        ot->t = NULL;
        return -1;
    }
    if (desc == NULL) {
        ddb_err_set(err, DDB_INTERNAL, "table has no description");
        goto out;
    }
    if (key_schema_of(desc, &ot->ks, err) != 0)
        goto out;
    ot->name = stable_name(ot->t);
    rc = 0;
out:
    json_decref(desc);
    if (rc != 0)
        table_ref_close(ot);
    return rc;
}

void
table_ref_close(struct table_ref *ot)
{
    if (ot->t != NULL)
        stable_release(ot->t);
    ot->t = NULL;
    ot->name = NULL;
}
