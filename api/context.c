/* SPDX-License-Identifier: MIT */
/* context.c - the server state every request shares (struct api_server):
 * set-up and tear-down. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "api/throttle/faults.h"
#include "api/throttle/throttle.h"
#include "api/transfer/transfer.h"
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
    {
        char *s3 = c->s3_dir[0] != '\0' ? xstrdup(c->s3_dir)
                                         : xasprintf("%s/s3", c->data_dir);

        srv->transfer = transfer_new(s3);
        free(s3);
    }
}

void
api_server_fini(struct api_server *srv)
{
    transfer_free(srv->transfer);       /* waits for running jobs */
    srv->transfer = NULL;
    throttle_registry_free(srv->throttle);
    faults_free(srv->faults);
    srv->throttle = NULL;
    srv->faults = NULL;
}
