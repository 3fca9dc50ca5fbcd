/* SPDX-License-Identifier: MIT */
/* context.c - the server state every request shares (struct api_server):
 * set-up and tear-down. */
#include <stdatomic.h>
#include <string.h>

#include "api/api.h"
#include "api/tables/tables.h"
#include "api/throttle/faults.h"
#include "api/throttle/throttle.h"
#include "storage/util.h"

void
api_server_init(struct api_server *srv, struct storage *st,
                const struct conf *c)
{
    memset(srv, 0, sizeof(*srv));
    srv->st = st;
    srv->conf = c;
    srv->throttle = throttle_registry_new(&c->throttle);
    srv->faults = faults_new();
    srv->virtual_clock = c->virtual_clock;
    atomic_init(&srv->vclock_ms, wall_ms());
}

void
api_server_fini(struct api_server *srv)
{
    throttle_registry_free(srv->throttle);
    faults_free(srv->faults);
    srv->throttle = NULL;
    srv->faults = NULL;
}

int
api_storage_upgrade(struct storage *st, const struct conf *c,
                    struct ddb_err *err)
{
    return tables_rehash_all(st, c != NULL && c->log_level >= LOG_INFO, err);
}
