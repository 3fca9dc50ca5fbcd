/* SPDX-License-Identifier: MIT */
/* conf.h - server settings: struct conf, and the one table of settings
 * (conf/options.c) that the command line (--name value), the config file
 * (name = value), --help and per-table "shardlocal:<name>" tags all read.
 * conf/ includes nothing of the other folders. */
#ifndef SHARDLOCAL_CONF_H
#define SHARDLOCAL_CONF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "conf/limits.h"

enum conf_log_level { LOG_ERROR = 0, LOG_WARN, LOG_INFO, LOG_DEBUG };
/* What an acknowledged write survives: the server's crash (kill -9), or
 * also an OS crash or power cut (every commit fsynced). */
enum conf_durability { DURABILITY_PROCESS_CRASH = 0, DURABILITY_POWER_LOSS };
/* Who may call: anyone with any credentials, or only requests signed
 * (SigV4) with a key of --credentials. */
enum conf_auth { AUTH_NONE = 0, AUTH_SIGNATURE };

struct conf {
    unsigned port;                  /* 8000; 0 picks a free port */
    char host[256];                 /* 127.0.0.1 */
    char data_dir[4096];            /* ./data */
    char backup_dir[4096];          /* backups; "": <data_dir>/backups */
    char s3_dir[4096];              /* S3 stand-in for exports and imports,
                                       a bucket per subdirectory; "":
                                       <data_dir>/s3 */
    bool in_memory;                 /* no files: SQLite :memory: partitions */
    unsigned threads;               /* MHD thread pool size */
    enum conf_log_level log_level;
    char account_id[16];            /* 000000000000, used in ARNs */
    char default_region[32];        /* when a request has no credential scope */
    unsigned status_delay_ms;       /* CREATING/UPDATING/DELETING duration */
    char port_file[4096];           /* if set, write the bound port here */
    struct throttle_limits throttle; /* every throttling knob (the settings
                                       marked CONF_TABLE) */
    bool virtual_clock;             /* time moves only via /shardlocal/clock */
    uint64_t split_size;            /* bytes: a bigger partition splits
                                       (default 10 GB) */
    uint64_t item_collection_limit; /* bytes: an LSI item collection may
                                       not grow past this (default 10 GB;
                                       0: no limit) */
    unsigned ttl_sweep_seconds;     /* the TTL sweep's period (60) */
    unsigned stream_describe_rate;  /* DescribeStream calls per second per
                                       stream (10; 0: no limit) */
    unsigned stream_shard_readers;  /* GetRecords at once per shard (2;
                                       0: no limit) */
    enum conf_durability durability; /* process-crash (default) or
                                       power-loss */
    uint64_t disk_reserve;          /* bytes set aside for DeleteTable on a
                                       full disk (default 8 MB) */
    unsigned checkpoint_pages;      /* WAL pages that queue a partition for
                                       the checkpoint thread (4096; 0:
                                       SQLite's inline checkpoints) */
    unsigned vector_exact_max;      /* vector index partitions up to this
                                       many items are searched exactly;
                                       larger ones through a graph */
    unsigned max_connections;       /* open at once; past it the most idle
                                       one is closed for a new client */
    double idle_timeout;            /* s: an idle keep-alive connection */
    double header_timeout;          /* s: a request's head, first byte to
                                       last */
    double body_timeout;            /* s: a body making no progress */
    uint64_t body_budget;           /* bytes: request bodies held at once */
    enum conf_auth auth;            /* none (default) or signature */
    char credentials[4096];         /* --auth signature: the keys file */
    char admin_from[1024];          /* CIDR blocks allowed to change the
                                       clock and fault rules when the
                                       server listens beyond loopback */
};

/* ------------------------------------------------------------------------
 * The settings table: one entry per setting, in --help's order.
 * ---------------------------------------------------------------------- */

enum conf_type {
    CONF_UINT,                      /* unsigned, min..max */
    CONF_DOUBLE,                    /* double, min..max */
    CONF_BOOL,                      /* on/off, true/false, yes/no, 1/0 */
    CONF_FLAG,                      /* a CONF_BOOL that may stand alone
                                       (--in-memory, "in-memory"): true */
    CONF_STRING,                    /* 1 to size - 1 bytes */
    CONF_DIGITS,                    /* exactly min decimal digits */
    CONF_CHOICE,                    /* one of choices (any case), stored
                                       as its index in an enum */
    CONF_SIZE,                      /* bytes, at least 1, with an optional
                                       suffix B, KB, MB, GB, TB (1 KB =
                                       1024) */
    CONF_FILE                       /* --config FILE: read FILE's settings
                                       (command line only) */
};

#define CONF_TABLE   0x1            /* a throttling knob: a field of struct
                                       throttle_limits, also set per table
                                       by a "shardlocal:<name>" tag */
#define CONF_HIDEDEF 0x2            /* --help does not print the default */

struct conf_option {
    const char *name;               /* "data-dir": --data-dir, data-dir = */
    enum conf_type type;
    unsigned flags;                 /* CONF_TABLE, CONF_HIDEDEF */
    size_t off;                     /* offsetof the field in struct conf
                                       (CONF_TABLE: struct throttle_limits) */
    size_t size;                    /* the field's size */
    double min, max;                /* CONF_UINT, CONF_DOUBLE: range;
                                       CONF_DIGITS: min is the length */
    const char *const *choices;     /* CONF_CHOICE: NULL-terminated */
    const char *def;                /* the default, parsed like a value;
                                       NULL: zero (threads: the CPUs) */
    const char *help;               /* --help's line, without the default */
};

/* Every setting, for the parsers, --help and generated documentation. */
extern const struct conf_option conf_options[];
extern const size_t conf_noptions;

/* ------------------------------------------------------------------------
 * Parsing.
 * ---------------------------------------------------------------------- */

/* Defaults into c: every setting's default from the table. */
void conf_defaults(struct conf *c);
/*
 * Parse argv (argv[0] skipped) into c, reading any --config FILE first so
 * the command line wins. Returns 0 to run, 1 when --help, --version or
 * --help-man printed and the program should exit 0, or 2 after printing
 * one line naming a bad flag, key or value to stderr.
 */
int conf_parse_args(struct conf *c, int argc, char **argv);
/* Apply a config file. 0, or 2 after printing one line naming the bad key
 * (with file:line). */
int conf_load_file(struct conf *c, const char *path);
/* The manual page shardlocal(1) in roff, from the settings table
 * (conf/man.c; `shardlocal --help-man`). */
void conf_man(FILE *out);

#endif
