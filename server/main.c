/* SPDX-License-Identifier: MIT */
/* main.c - shardlocal's entry point: read the configuration, open the
 * store, start the HTTP server, then wait for SIGINT/SIGTERM and shut down
 * in reverse order (in-flight requests finish first). */

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "api/streams/streams.h"
#include "conf/conf.h"
#include "server/http.h"

/* Write the bound port to path (atomically: temp file, then rename). */
static int
write_port_file(const char *path, unsigned port)
{
    char tmp[4200];
    FILE *f;

    snprintf(tmp, sizeof(tmp), "%s.tmp", path);
    f = fopen(tmp, "w");
    if (f == NULL)
        return -1;
    fprintf(f, "%u\n", port);
    if (fclose(f) != 0 || rename(tmp, path) != 0) {
        remove(tmp);
        return -1;
    }
    return 0;
}

int
main(int argc, char **argv)
{
    struct conf c;
    struct ddb_err err;
    struct storage *st = NULL;
    struct http_server *h = NULL;
    struct api_server srv;
    struct http_access acc;
    char msg[512];
    sigset_t set;
    int rc, sig = 0;

    json_alloc_init();                  /* before any json_t exists */
    conf_defaults(&c);
    rc = conf_parse_args(&c, argc, argv);
    if (rc == 1)
        return 0;
    if (rc != 0)
        return 2;
    if (http_access_load(&c, &acc, msg, sizeof(msg)) != 0) {
        fprintf(stderr, "shardlocal: %s\n", msg);
        return 2;
    }

    /* Block the signals before any thread starts, so every thread inherits
     * the mask and only sigwait() below sees them. */
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    signal(SIGPIPE, SIG_IGN);

    ddb_err_init(&err);
    st = storage_open_opts(c.in_memory ? NULL : c.data_dir,
                           &(struct storage_opts){
                               .durability = c.durability ==
                                                     DURABILITY_POWER_LOSS
                                                 ? STORAGE_DURABLE_POWER
                                                 : STORAGE_DURABLE_PROCESS,
                               .disk_reserve = c.disk_reserve,
                               .checkpoint_pages = c.checkpoint_pages,
                               .backup_dir = c.backup_dir },
                           &err);
    if (st == NULL) {
        fprintf(stderr, "shardlocal: cannot open storage%s%s: %s\n",
                c.in_memory ? "" : " in ", c.in_memory ? "" : c.data_dir,
                err.msg);
        ddb_err_clear(&err);
        http_access_free(&acc);
        return 1;
    }
    if (api_storage_upgrade(st, &c, &err) != 0) {
        /* each table moves in one step: starting again resumes */
        fprintf(stderr, "shardlocal: cannot re-place the items of %s by "
                "DynamoDB's key hash: %s (nothing was lost; start again, "
                "e.g. once the disk has room)\n", c.data_dir, err.msg);
        ddb_err_clear(&err);
        storage_close(st);
        http_access_free(&acc);
        return 1;
    }
    api_server_init(&srv, st, &c);
    streams_sweeper_start(&srv);        /* TTL and the 24-hour trim */
    h = http_start(&srv, &c, &acc);
    if (h == NULL)
        goto fail;
    if (c.port_file[0] != '\0' &&
        write_port_file(c.port_file, http_port(h)) != 0) {
        fprintf(stderr, "shardlocal: cannot write port file '%s': %s\n",
                c.port_file, strerror(errno));
        http_stop(h);
        goto fail;
    }
    if (c.log_level >= LOG_INFO)
        fprintf(stderr, "shardlocal: listening on http://%s:%u (%s, %u "
                "threads)\n", c.host, http_port(h),
                c.in_memory ? "in-memory" : c.data_dir, c.threads);

    while (sigwait(&set, &sig) != 0)
        ;
    if (c.log_level >= LOG_INFO)
        fprintf(stderr, "shardlocal: %s, shutting down\n",
                sig == SIGINT ? "SIGINT" : "SIGTERM");
    http_stop(h);
    api_server_fini(&srv);
    storage_close(st);
    return 0;
fail:
    api_server_fini(&srv);
    storage_close(st);
    return 1;
}
