/* SPDX-License-Identifier: MIT */
/* context.c - the server state every request shares (struct api_server):
 * set-up and tear-down. */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "api/api.h"
#include "api/tables/tables.h"
#include "api/throttle/faults.h"
#include "api/throttle/throttle.h"
#include "api/vector/vector.h"
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
    srv->vectors = vector_registry_new(st, c->vector_exact_max);
    /* The vector indexes live in memory: rebuild them from the tables. */
    if (st != NULL) {
        struct ddb_err err;

        ddb_err_init(&err);
        if (vector_registry_load(srv->vectors, &err) != 0)
            fprintf(stderr, "shardlocal: vector indexes: %s\n", err.msg);
        ddb_err_clear(&err);
    }
}

void
api_server_fini(struct api_server *srv)
{
    vector_registry_free(srv->vectors);
    throttle_registry_free(srv->throttle);
    faults_free(srv->faults);
    srv->vectors = NULL;
    srv->throttle = NULL;
    srv->faults = NULL;
}

int
api_storage_upgrade(struct storage *st, const struct conf *c,
                    struct ddb_err *err)
{
    return tables_rehash_all(st, c != NULL && c->log_level >= LOG_INFO, err);
}
