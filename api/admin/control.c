/* SPDX-License-Identifier: MIT */
/* control.c - the admin calls that change the server's behaviour: the
 * virtual clock (POST /shardlocal/clock, which also runs the TTL/trim
 * sweep at the new time) and fault injection (POST /shardlocal/faults,
 * including transaction pauses). */
#include <stdatomic.h>

#include "api/admin/admin.h"
#include "api/ops/txn_inflight.h"
#include "api/streams/streams.h"
#include "api/throttle/faults.h"
#include "storage/util.h"

int
admin_clock(struct api_server *srv, bool post, const json_t *req,
            json_t **resp, struct ddb_err *err)
{
    uint64_t adv = 0, set = 0, expired = 0;
    int ha, hs;

    if (post) {
        if (!srv->virtual_clock)
            return ddb_err_set(err, DDB_VALIDATION, "The virtual clock is "
                               "off: start shardlocal with --virtual-clock");
        if (!json_is_object(req))
            return ddb_err_set(err, DDB_VALIDATION,
                               "Expected {\"advance_ms\": N} or "
                               "{\"set_ms\": N}");
        ha = json_get_uint(req, "advance_ms", &adv);
        hs = json_get_uint(req, "set_ms", &set);
        if (ha < 0 || hs < 0 || ha + hs != 1)
            return ddb_err_set(err, DDB_VALIDATION,
                               "Expected {\"advance_ms\": N} or "
                               "{\"set_ms\": N} with N a non-negative "
                               "integer");
        if (ha) {
            atomic_fetch_add(&srv->vclock_ms, adv);
        } else {
            uint64_t cur = atomic_load(&srv->vclock_ms);

            do {
                if (set < cur)
                    return ddb_err_set(err, DDB_VALIDATION, "The virtual "
                                       "clock cannot go backwards (now_ms "
                                       "%llu)", (unsigned long long)cur);
            } while (!atomic_compare_exchange_weak(&srv->vclock_ms, &cur,
                                                   set));
        }
        /* expire items and trim logs at the new time before answering,
         * so a test sees the effect of moving the clock at once */
        expired = streams_sweep(srv, api_now_ms(srv));
    }
    *resp = json_pack("{s:b, s:I}", "virtual", srv->virtual_clock,
                      "now_ms", (json_int_t)api_now_ms(srv));
    if (post)
        json_object_set_new(*resp, "ttl_deleted",
                            json_integer((json_int_t)expired));
    return 0;
}

int
admin_faults(struct api_server *srv, bool post, const json_t *req,
             json_t **resp, struct ddb_err *err)
{
    /* {"pause_ms": ...}: transaction pause rules (txn_inflight.c) */
    if (post && json_object_get(req, "pause_ms") != NULL)
        return txn_inflight_pause_admin(srv, req, resp, err);
    if (srv->faults == NULL)
        return ddb_err_set(err, DDB_VALIDATION, "Fault injection is not "
                           "available");
    return faults_request(srv->faults, post, req, resp, err);
}
