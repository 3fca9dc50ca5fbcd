/* SPDX-License-Identifier: MIT */
/* context.c - the server's clock, wall or virtual, and the names under
 * which accounts' tables are stored (context.h). */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "api/proto/context.h"
#include "storage/util.h"

uint64_t
api_now_ms(struct api_server *srv)
{
    if (srv != NULL && srv->virtual_clock)
        return atomic_load(&srv->vclock_ms);
    return wall_ms();
}

#define ACCOUNT_LEN 12

/* The configured account (--account-id). */
static const char *
default_account(const struct api_ctx *ctx)
{
    if (ctx != NULL && ctx->srv != NULL && ctx->srv->conf != NULL &&
        ctx->srv->conf->account_id[0] != '\0')
        return ctx->srv->conf->account_id;
    return "000000000000";
}

const char *
api_account(const struct api_ctx *ctx)
{
    if (ctx != NULL && ctx->account != NULL && ctx->account[0] != '\0')
        return ctx->account;
    return default_account(ctx);
}

/* Does stored start with "<12 digits>:"? */
static bool
has_prefix(const char *stored)
{
    size_t i;

    for (i = 0; i < ACCOUNT_LEN; i++)
        if (stored[i] < '0' || stored[i] > '9')
            return false;
    return stored[ACCOUNT_LEN] == ':';
}

bool
api_table_stored(const struct api_ctx *ctx, const char *account,
                 const char *name, char *out, size_t outsz)
{
    size_t alen = 0, nlen = strlen(name), len, cut;

    if (account == NULL)
        account = api_account(ctx);
    if (strcmp(account, default_account(ctx)) != 0)
        alen = strlen(account) + 1;     /* "account:" */
    len = alen + nlen;
    if (outsz == 0)
        return false;
    /* as snprintf() would: cut to outsz - 1 bytes (every request
     * comes here: no format to interpret) */
    cut = len < outsz ? len : outsz - 1;
    if (alen > 0) {
        memcpy(out, account, alen - 1 < cut ? alen - 1 : cut);
        if (alen - 1 < cut)
            out[alen - 1] = ':';
    }
    if (cut > alen)
        memcpy(out + alen, name, cut - alen);
    out[cut] = '\0';
    return len < outsz;
}

const char *
api_table_public(const char *stored)
{
    return has_prefix(stored) ? stored + ACCOUNT_LEN + 1 : stored;
}

const char *
api_table_owner(const struct api_ctx *ctx, const char *stored, char buf[13])
{
    if (!has_prefix(stored))
        return default_account(ctx);
    memcpy(buf, stored, ACCOUNT_LEN);
    buf[ACCOUNT_LEN] = '\0';
    return buf;
}
