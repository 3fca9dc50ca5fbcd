/* SPDX-License-Identifier: MIT */
/* conf.h - server settings: one table of keys shared by the command line
 * (--key value) and the config file (key = value). */
#ifndef SHARDLOCAL_CONF_H
#define SHARDLOCAL_CONF_H

#include <stdbool.h>
#include <stdint.h>

#include "api/throttle/throttle.h"

enum conf_log_level { LOG_ERROR = 0, LOG_WARN, LOG_INFO, LOG_DEBUG };

struct conf {
    unsigned port;                  /* 8000; 0 picks a free port */
    char host[256];                 /* 127.0.0.1 */
    char data_dir[4096];            /* ./data */
    bool in_memory;                 /* no files: SQLite :memory: partitions */
    unsigned threads;               /* MHD thread pool size */
    enum conf_log_level log_level;
    char account_id[16];            /* 000000000000, used in ARNs */
    char default_region[32];        /* when a request has no credential scope */
    unsigned status_delay_ms;       /* CREATING/UPDATING/DELETING duration */
    char port_file[4096];           /* if set, write the bound port here */
    struct throttle_limits throttle; /* every throttling knob (throttle,
                                       throttle-scale, partition-wcu, ...;
                                       see throttle_limits_set) */
    bool virtual_clock;             /* time moves only via /shardlocal/clock */
    uint64_t split_size;            /* bytes: a bigger partition splits
                                       (default 10 GB) */
    uint64_t item_collection_limit; /* bytes: an LSI item collection may
                                       not grow past this (default 10 GB;
                                       0: no limit) */
};

/* Defaults into c. */
void conf_defaults(struct conf *c);
/*
 * Parse argv (argv[0] skipped) into c, reading any --config FILE first so
 * the command line wins. Returns 0 to run, 1 when --help/--version printed
 * and the program should exit 0, or 2 after printing one line naming a bad
 * flag, key or value to stderr.
 */
int conf_parse_args(struct conf *c, int argc, char **argv);
/* Apply a config file. 0, or 2 after printing one line naming the bad key
 * (with file:line). */
int conf_load_file(struct conf *c, const char *path);

#endif
