/* SPDX-License-Identifier: MIT */
/* routes.c - GET /shardlocal and everything under it (server/http.c sends
 * them all to admin_get()): the index of what is here, the JSON views of
 * tables.c and the live view of ui.c; anything else is a 404 with a JSON
 * error body in DynamoDB's shape. */

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"

#include "api/admin/admin_int.h"
#include "api/proto/error.h"
#include "storage/util.h"

#define ADMIN_PREFIX      "/shardlocal"
#define ADMIN_HOTKEYS_DEF 10            /* ?n= default */
#define ADMIN_HISTORY_DEF 60            /* ?seconds= default */
#define ADMIN_JSON_TYPE   "application/json"

/* ------------------------------------------------------------------------
 * Replies
 * ---------------------------------------------------------------------- */

/* Serialize json (takes it) into out with status. */
static void
reply_json_new(struct admin_reply *out, unsigned status, json_t *json)
{
    char *s = json_text(json, JSON_INDENT(2) | JSON_ENSURE_ASCII);

    json_decref(json);
    if (s == NULL) {
        s = xstrdup("{\"message\":\"Internal server error\"}");
        status = 500;
    }
    out->status = status;
    out->body = s;
    out->len = strlen(s);
    out->content_type = ADMIN_JSON_TYPE;
}

/* A JSON error body in DynamoDB's shape, with an HTTP status of our own
 * (404 for a path or table that does not exist). */
static void
reply_err(struct admin_reply *out, unsigned status, enum ddb_errtype type,
          const char *msg)
{
    struct ddb_err err;

    ddb_err_init(&err);
    ddb_err_set(&err, type, "%s", msg);
    reply_json_new(out, status, error_body(&err));
    ddb_err_clear(&err);
}

/* GET /shardlocal: what is here, the version and the clock. */
static json_t *
index_json(struct api_server *srv, uint64_t now)
{
    json_t *j = json_object(), *eps = json_array(), *th = json_object();
    struct throttle_limits lim;
    static const char *const endpoints[][3] = {
        { "GET", "/shardlocal", "this index: version, clock, limits" },
        { "GET", "/shardlocal/tables", "every table and GSI: sizes, "
          "consumption, throttles" },
        { "GET", "/shardlocal/tables/{table}", "one table and its GSIs" },
        { "GET", "/shardlocal/tables/{table}/partitions",
          "per partition: hash range, items, bytes, consumed RCU/WCU, "
          "bucket levels, throttles by cause and in the last second "
          "(?history=1: per second)" },
        { "GET", "/shardlocal/tables/{table}/hotkeys",
          "top partition keys by consumed capacity and by throttles "
          "(?n=10, at most 64)" },
        { "GET", "/shardlocal/tables/{table}/history",
          "one sample per second per partition: consumed, throttles, "
          "bucket levels; the table against its capacity; splits, "
          "UpdateTable and tag events (?seconds=60, at most 900; "
          "&index=G for a GSI; &partition=N for one)" },
        { "GET", "/shardlocal/tables/{table}/indexes/{index}/partitions",
          "the same for a GSI" },
        { "GET", "/shardlocal/tables/{table}/indexes/{index}/hotkeys",
          "the same for a GSI" },
        { "GET", "/shardlocal/tables/{table}/indexes/{index}/history",
          "the same for a GSI" },
        { "GET", "/shardlocal/ui", "live view of partitions and hot keys "
          "(?table=T&index=G picks the table or GSI)" },
        { "GET", "/metrics", "Prometheus text, CloudWatch metric names" },
        { "GET", "/shardlocal/clock", "the clock (virtual or wall)" },
        { "POST", "/shardlocal/clock", "advance or set the virtual clock" },
        { "GET", "/shardlocal/faults", "fault-injection rules" },
        { "POST", "/shardlocal/faults", "add or clear fault-injection rules" },
    };
    size_t i;

    for (i = 0; i < sizeof(endpoints) / sizeof(endpoints[0]); i++)
        json_array_append_new(eps, json_pack("{s:s,s:s,s:s}", "method",
                                             endpoints[i][0], "path",
                                             endpoints[i][1], "description",
                                             endpoints[i][2]));
    json_object_set_new(j, "name", json_string(PACKAGE_NAME));
    json_object_set_new(j, "version", json_string(PACKAGE_VERSION));
    json_object_set_new(j, "clock",
                        json_pack("{s:s,s:I}", "mode",
                                  srv->virtual_clock ? "virtual" : "wall",
                                  "now_ms", (json_int_t)now));
    if (srv->throttle != NULL) {
        throttle_registry_limits(srv->throttle, &lim);
        json_object_set_new(th, "enforce", json_boolean(lim.enforce));
        json_object_set_new(th, "adaptive_capacity",
                            json_boolean(lim.adaptive));
        json_object_set_new(th, "scale", json_real(lim.scale));
        json_object_set_new(th, "partition_rcu",
                            json_real(throttle_limits_ceiling(
                                &lim, THROTTLE_READ)));
        json_object_set_new(th, "partition_wcu",
                            json_real(throttle_limits_ceiling(
                                &lim, THROTTLE_WRITE)));
        json_object_set_new(th, "burst_seconds", json_real(lim.burst_s));
    }
    json_object_set_new(j, "throttle", th);
    json_object_set_new(j, "endpoints", eps);
    return j;
}

/* ------------------------------------------------------------------------
 * Routing under /shardlocal
 * ---------------------------------------------------------------------- */

/* Copy the next path segment of *p (after a '/') into out; false if
 * there is none or it is too long. */
static bool
segment(const char **p, char *out, size_t outsz)
{
    const char *s = *p, *e;

    if (*s != '/')
        return false;
    s++;
    e = s + strcspn(s, "/");
    if (e == s || (size_t)(e - s) >= outsz)
        return false;
    memcpy(out, s, (size_t)(e - s));
    out[e - s] = '\0';
    *p = e;
    return true;
}

static bool
arg_true(admin_arg_fn *arg, void *cls, const char *name)
{
    const char *v = arg != NULL ? arg(cls, name) : NULL;

    return v != NULL && (strcmp(v, "1") == 0 || strcmp(v, "true") == 0 ||
                         v[0] == '\0');
}

static size_t
arg_top(admin_arg_fn *arg, void *cls)
{
    const char *v = arg != NULL ? arg(cls, "n") : NULL;
    long n;

    if (v == NULL)
        return ADMIN_HOTKEYS_DEF;
    n = strtol(v, NULL, 10);
    if (n < 1)
        return 1;
    return n > THROTTLE_HOTKEYS ? THROTTLE_HOTKEYS : (size_t)n;
}

/* Query argument name as a whole number: 1 when read into *out, 0 when
 * absent, -1 when it is not digits (at most 9 of them). */
static int
arg_uint(admin_arg_fn *arg, void *cls, const char *name, long *out)
{
    const char *v = arg != NULL ? arg(cls, name) : NULL;
    size_t n;

    if (v == NULL)
        return 0;
    n = strspn(v, "0123456789");
    if (n == 0 || n > 9 || v[n] != '\0')
        return -1;
    *out = strtol(v, NULL, 10);
    return 1;
}

/* GET .../history of s: seconds and partition from the query (checked
 * by the caller), the JSON text of admin_history() or its error. */
static void
reply_history(struct admin_reply *out, struct admin_src *s, uint64_t now,
              long seconds, long part)
{
    struct strbuf b = { 0 };
    struct ddb_err err;

    ddb_err_init(&err);
    if (admin_history(s, now, (unsigned)seconds, part, &b, &err) != 0) {
        strbuf_free(&b);
        reply_err(out, err.type == DDB_VALIDATION ? 400 : 500, err.type,
                  err.msg);
        ddb_err_clear(&err);
        return;
    }
    out->status = 200;
    out->len = b.len;
    out->body = strbuf_take(&b);
    out->content_type = ADMIN_JSON_TYPE;
}

void
admin_get(struct api_server *srv, const char *path, admin_arg_fn *arg,
          void *arg_cls, struct admin_reply *out)
{
    char table[ADMIN_NAME_MAX], index[ADMIN_NAME_MAX], what[32];
    const char *p;
    uint64_t now = api_now_ms(srv);
    struct ddb_err err;
    struct admin_src s;
    size_t plen = strcspn(path, "?");
    long seconds = ADMIN_HISTORY_DEF, part = -1;
    json_t *j;

    memset(out, 0, sizeof(*out));
    if (strncmp(path, ADMIN_PREFIX, strlen(ADMIN_PREFIX)) != 0)
        goto notfound;
    p = path + strlen(ADMIN_PREFIX);
    plen -= strlen(ADMIN_PREFIX);
    if (plen == 0 || (plen == 1 && p[0] == '/')) {
        reply_json_new(out, 200, index_json(srv, now));
        return;
    }
    if ((plen == 3 && strncmp(p, "/ui", 3) == 0) ||
        (plen == 4 && strncmp(p, "/ui/", 4) == 0)) {
        admin_ui_page(out);
        return;
    }
    if (strncmp(p, "/tables", 7) != 0 || (p[7] != '\0' && p[7] != '/' &&
                                          p[7] != '?'))
        goto notfound;
    p += 7;
    if (*p == '\0' || *p == '?' || strcmp(p, "/") == 0) {
        reply_json_new(out, 200, admin_tables_json(srv, now));
        return;
    }
    if (!segment(&p, table, sizeof(table)))
        goto notfound;
    index[0] = '\0';
    what[0] = '\0';
    if (strncmp(p, "/indexes/", 9) == 0) {
        p += 8;
        if (!segment(&p, index, sizeof(index)))
            goto notfound;
    }
    if (*p != '\0' && *p != '?' && !segment(&p, what, sizeof(what)))
        goto notfound;
    if (*p == '/')
        p++;
    if (*p != '\0' && *p != '?')
        goto notfound;
    if (what[0] != '\0' && strcmp(what, "partitions") != 0 &&
        strcmp(what, "hotkeys") != 0 && strcmp(what, "history") != 0)
        goto notfound;
    if (strcmp(what, "history") == 0) {
        const char *ix = arg != NULL ? arg(arg_cls, "index") : NULL;

        if (index[0] == '\0' && ix != NULL && ix[0] != '\0') {
            if (strlen(ix) >= sizeof(index))
                goto notfound;
            strcpy(index, ix);
        }
        if (arg_uint(arg, arg_cls, "seconds", &seconds) < 0 ||
            seconds < 1 || seconds > THROTTLE_RING_S) {
            reply_err(out, 400, DDB_VALIDATION, ADMIN_HISTORY_SECONDS_MSG);
            return;
        }
        if (arg_uint(arg, arg_cls, "partition", &part) < 0) {
            reply_err(out, 400, DDB_VALIDATION, "partition must be a "
                      "partition number (0, 1, ...)");
            return;
        }
    }

    ddb_err_init(&err);
    if (admin_src_open(srv, table, index, &s, &err) != 0) {
        reply_err(out, 404, err.type, err.msg);
        ddb_err_clear(&err);
        return;
    }
    if (strcmp(what, "hotkeys") == 0) {
        reply_json_new(out, 200, admin_hotkeys_json(&s, arg_top(arg,
                                                                arg_cls)));
    } else if (strcmp(what, "history") == 0) {
        reply_history(out, &s, now, seconds, part);
    } else {
        if (strcmp(what, "partitions") == 0)
            j = admin_partitions_json(&s, now, arg_true(arg, arg_cls,
                                                        "history"));
        else
            j = admin_table_json(srv, &s, now, arg_true(arg, arg_cls,
                                                        "history"));
        json_object_set_new(j, "now_ms", json_integer((json_int_t)now));
        reply_json_new(out, 200, j);
    }
    admin_src_fini(&s);
    return;
notfound:
    reply_err(out, 404, DDB_HTTP_NOT_FOUND, "Not Found");
}
