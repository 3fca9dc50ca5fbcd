/* SPDX-License-Identifier: MIT */
/* context.c - the server state every request shares (struct api_server):
 * set-up and tear-down (the sweep thread is started by main.c). */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "api/streams/streams.h"
#include "api/tables/tables.h"
#include "api/throttle/faults.h"
#include "api/throttle/throttle.h"
#include "api/transfer/transfer.h"
#include "api/vector/vector.h"
#include "storage/util.h"

/* The store's change log runs on the server's clock (storage_set_clock),
 * so the virtual clock ages stream records too. */
static uint64_t
store_clock(void *arg)
{
    return api_now_ms(arg);
}

void
api_server_init(struct api_server *srv, struct storage *st,
                const struct conf *c)
{
    memset(srv, 0, sizeof(*srv));
    srv->st = st;
    srv->conf = c;
    srv->throttle = throttle_registry_new(&c->throttle);
    srv->faults = faults_new();
    srv->streams = streams_meter_new();
    srv->virtual_clock = c->virtual_clock;
    atomic_init(&srv->vclock_ms, wall_ms());
    {
        char *s3 = c->s3_dir[0] != '\0' ? xstrdup(c->s3_dir)
                                         : xasprintf("%s/s3", c->data_dir);

        srv->transfer = transfer_new(s3);
        free(s3);
    }
    if (st != NULL)
        storage_set_clock(st, store_clock, srv);
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
    transfer_free(srv->transfer);       /* waits for running jobs */
    srv->transfer = NULL;
    streams_sweeper_stop(srv);
    if (srv->st != NULL)
        storage_set_clock(srv->st, NULL, NULL);
    /* After the sweeper: its TTL deletes keep the vector indexes. */
    vector_registry_free(srv->vectors);
    throttle_registry_free(srv->throttle);
    faults_free(srv->faults);
    streams_meter_free(srv->streams);
    srv->vectors = NULL;
    srv->throttle = NULL;
    srv->faults = NULL;
    srv->streams = NULL;
}

int
api_storage_upgrade(struct storage *st, const struct conf *c,
                    struct ddb_err *err)
{
    return tables_rehash_all(st, c != NULL && c->log_level >= LOG_INFO, err);
}
