/* SPDX-License-Identifier: MIT */
/* context.c - the server's clock, wall or virtual (context.h). */
#include <stdatomic.h>

#include "api/proto/context.h"
#include "storage/util.h"

uint64_t
api_now_ms(struct api_server *srv)
{
    if (srv != NULL && srv->virtual_clock)
        return atomic_load(&srv->vclock_ms);
    return wall_ms();
}
