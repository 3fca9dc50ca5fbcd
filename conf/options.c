/* SPDX-License-Identifier: MIT */
/* options.c - the settings table: each setting once, with its type, range
 * or allowed values, default and help text (tmux's options-table.c).
 * conf.c's parsers, --help and the per-table tags read it; so does
 * check_conf, which keeps conf/shardlocal.conf and README.md in step. */

#include <float.h>
#include <stddef.h>

#include "conf/conf.h"

/* The field a setting stores into: one of struct conf, or (with
 * CONF_TABLE) a throttling knob of struct throttle_limits. */
#define S(field) .off = offsetof(struct conf, field), \
                 .size = sizeof(((struct conf *)0)->field)
#define T(field) .off = offsetof(struct throttle_limits, field), \
                 .size = sizeof(((struct throttle_limits *)0)->field)

/* Throttle numbers are at most 1e12; rates and quotas above zero. */
#define POSITIVE .min = DBL_TRUE_MIN, .max = 1e12
#define NONNEG   .min = 0, .max = 1e12

static const char *const log_levels[] = { "error", "warn", "info", "debug",
                                          NULL };

static const char *const durabilities[] = { "process-crash", "power-loss",
                                            NULL };

static const char *const auths[] = { "none", "signature", NULL };

_Static_assert(sizeof(enum conf_auth) == sizeof(int),
               "CONF_CHOICE stores an int");
_Static_assert(sizeof(enum conf_log_level) == sizeof(int),
               "CONF_CHOICE stores an int");
_Static_assert(sizeof(enum conf_durability) == sizeof(int),
               "CONF_CHOICE stores an int");

const struct conf_option conf_options[] = {
    { .name = "port", .type = CONF_UINT,
      S(port), .min = 0, .max = 65535, .def = "8000",
      .help = "TCP port to listen on; 0 picks a free one" },
    { .name = "host", .type = CONF_STRING,
      S(host), .def = "127.0.0.1",
      .help = "address to bind" },
    { .name = "data-dir", .type = CONF_STRING,
      S(data_dir), .def = "./data",
      .help = "directory holding the tables" },
    { .name = "in-memory", .type = CONF_FLAG, .flags = CONF_HIDEDEF,
      S(in_memory), .def = "off",
      .help = "keep everything in memory; nothing is written to disk" },
    { .name = "durability", .type = CONF_CHOICE,
      S(durability), .choices = durabilities, .def = "process-crash",
      .help = "what an acknowledged write survives: process-crash or "
              "power-loss (fsyncs every commit)" },
    { .name = "backup-dir", .type = CONF_STRING,
      S(backup_dir), .def = NULL,
      .help = "directory holding the backups (default: <data-dir>/backups)" },
    { .name = "s3-dir", .type = CONF_STRING,
      S(s3_dir), .def = NULL,
      .help = "directory standing in for S3 in exports and imports, one "
              "subdirectory per bucket (default: <data-dir>/s3)" },
    { .name = "disk-reserve", .type = CONF_SIZE,
      S(disk_reserve), .def = "8MB",
      .help = "space kept back for DeleteTable when the disk is full" },
    { .name = "checkpoint-pages", .type = CONF_UINT,
      S(checkpoint_pages), .min = 0, .max = 1048576, .def = "4096",
      .help = "WAL pages after which a partition is checkpointed on a "
              "background thread; 0: inline, by SQLite" },
    { .name = "threads", .type = CONF_UINT,
      S(threads), .min = 1, .max = 1024, .def = NULL, /* conf_defaults */
      .help = "HTTP worker threads (default: number of CPUs)" },
    { .name = "config", .type = CONF_FILE,
      .help = "read settings from FILE first (the command line wins)" },
    { .name = "log-level", .type = CONF_CHOICE,
      S(log_level), .choices = log_levels, .def = "info",
      .help = "error, warn, info or debug" },
    { .name = "account-id", .type = CONF_DIGITS,
      S(account_id), .min = 12, .def = "000000000000",
      .help = "12-digit account id used in ARNs" },
    { .name = "region", .type = CONF_STRING,
      S(default_region), .def = "us-east-1",
      .help = "region for requests without a credential scope" },
    { .name = "auth", .type = CONF_CHOICE,
      S(auth), .choices = auths, .def = "none",
      .help = "none: any credentials are accepted; signature: every "
              "request's SigV4 signature is checked against --credentials" },
    { .name = "credentials", .type = CONF_STRING,
      S(credentials), .def = NULL,
      .help = "with --auth signature: a file of \"ACCESS_KEY_ID SECRET "
              "[ACCOUNT_ID]\" lines" },
    { .name = "admin-from", .type = CONF_STRING,
      S(admin_from), .def = "127.0.0.0/8,::1/128",
      .help = "addresses (comma-separated CIDR blocks) allowed to change "
              "the clock and fault rules when --host is not loopback" },
    { .name = "status-delay-ms", .type = CONF_UINT, .flags = CONF_HIDEDEF,
      S(status_delay_ms), .min = 0, .max = 86400000, .def = "0",
      .help = "how long CREATING/UPDATING/DELETING last; 0 = ACTIVE at "
              "once" },
    { .name = "port-file", .type = CONF_STRING,
      S(port_file), .def = NULL,
      .help = "write the bound port to this file once listening" },
    { .name = "throttle", .type = CONF_BOOL, .flags = CONF_TABLE,
      T(enforce), .def = "on",
      .help = "on|off: off meters capacity but never rejects" },
    { .name = "throttle-scale", .type = CONF_DOUBLE,
      .flags = CONF_TABLE | CONF_HIDEDEF,
      T(scale), POSITIVE, .def = "1",
      .help = "multiply every partition/on-demand limit (0.01: 10 WCU "
              "partitions)" },
    { .name = "partition-rcu", .type = CONF_DOUBLE, .flags = CONF_TABLE,
      T(partition_rcu), POSITIVE, .def = "3000",
      .help = "per-partition read ceiling, units/s" },
    { .name = "partition-wcu", .type = CONF_DOUBLE, .flags = CONF_TABLE,
      T(partition_wcu), POSITIVE, .def = "1000",
      .help = "per-partition write ceiling, units/s" },
    { .name = "burst-seconds", .type = CONF_DOUBLE, .flags = CONF_TABLE,
      T(burst_s), NONNEG, .def = "300",
      .help = "seconds of unused share a partition banks" },
    { .name = "partition-burst-seconds", .type = CONF_DOUBLE,
      .flags = CONF_TABLE,
      T(partition_burst_s), .min = 1, .max = 1e6, .def = "2.5",
      .help = "seconds of its ceiling a partition absorbs in one burst" },
    { .name = "burst-start-full", .type = CONF_BOOL, .flags = CONF_TABLE,
      T(burst_start_full), .def = "on",
      .help = "on|off: a new partition starts with a full burst bank" },
    { .name = "adaptive-capacity", .type = CONF_BOOL, .flags = CONF_TABLE,
      T(adaptive), .def = "on",
      .help = "on|off: hot partitions borrow the table's unused rate" },
    { .name = "split-for-heat-seconds", .type = CONF_DOUBLE,
      .flags = CONF_TABLE,
      T(heat_split_s), NONNEG, .def = "300",
      .help = "seconds a partition refuses at its ceiling before it splits "
              "between its hottest keys; 0: never" },
    { .name = "ondemand-initial-rru", .type = CONF_DOUBLE,
      .flags = CONF_TABLE,
      T(od_initial_rru), POSITIVE, .def = "12000",
      .help = "a new on-demand table's instant read capacity" },
    { .name = "ondemand-initial-wru", .type = CONF_DOUBLE,
      .flags = CONF_TABLE,
      T(od_initial_wru), POSITIVE, .def = "4000",
      .help = "a new on-demand table's instant write capacity" },
    { .name = "ondemand-burst-seconds", .type = CONF_DOUBLE,
      .flags = CONF_TABLE,
      T(od_burst_s), .min = 1, .max = 1e6, .def = "2.5",
      .help = "seconds of its instant capacity an on-demand table absorbs "
              "in one burst" },
    { .name = "ondemand-peak-multiplier", .type = CONF_DOUBLE,
      .flags = CONF_TABLE,
      T(od_peak_mult), .min = 1, .max = 1e12, .def = "2",
      .help = "on-demand instant capacity = this x previous peak" },
    { .name = "ondemand-peak-window-seconds", .type = CONF_DOUBLE,
      .flags = CONF_TABLE,
      T(od_peak_window_s), NONNEG, .def = "1800",
      .help = "how long a new on-demand peak takes to count" },
    { .name = "ondemand-table-max-rru", .type = CONF_DOUBLE,
      .flags = CONF_TABLE,
      T(od_table_max_rru), POSITIVE, .def = "40000",
      .help = "on-demand per-table read quota, units/s" },
    { .name = "ondemand-table-max-wru", .type = CONF_DOUBLE,
      .flags = CONF_TABLE,
      T(od_table_max_wru), POSITIVE, .def = "40000",
      .help = "on-demand per-table write quota, units/s" },
    { .name = "virtual-clock", .type = CONF_FLAG, .flags = CONF_HIDEDEF,
      S(virtual_clock), .def = "off",
      .help = "time advances only through POST /shardlocal/clock (tests)" },
    { .name = "split-size", .type = CONF_SIZE,
      S(split_size), .def = "10GB",
      .help = "a partition holding more bytes splits in two; suffixes KB, "
              "MB, GB" },
    { .name = "item-collection-limit", .type = CONF_SIZE,
      S(item_collection_limit), .def = "10GB",
      .help = "largest item collection of a table with LSIs; suffixes KB, "
              "MB, GB" },
    { .name = "vector-exact-max", .type = CONF_UINT,
      S(vector_exact_max), .min = 0, .max = 100000000, .def = "10000",
      .help = "vector index partitions of up to this many items are "
              "searched exactly; larger ones through an HNSW graph" },
    { .name = "ttl-sweep-seconds", .type = CONF_UINT,
      S(ttl_sweep_seconds), .min = 1, .max = 86400, .def = "60",
      .help = "how often expired (TTL) items are deleted and stream "
              "records past 24 hours trimmed" },
    { .name = "stream-describe-rate", .type = CONF_UINT,
      S(stream_describe_rate), .min = 0, .max = 100000, .def = "10",
      .help = "DescribeStream calls per second per stream; 0 = no limit" },
    { .name = "stream-shard-readers", .type = CONF_UINT,
      S(stream_shard_readers), .min = 0, .max = 100000, .def = "2",
      .help = "GetRecords calls reading one shard at the same time; 0 = no "
              "limit" },
    { .name = "max-connections", .type = CONF_UINT,
      S(max_connections), .min = 16, .max = 1000000, .def = "4096",
      .help = "connections open at once; past it the most idle one is "
              "closed to serve a new client" },
    { .name = "idle-timeout", .type = CONF_DOUBLE,
      S(idle_timeout), .min = 0, .max = 86400, .def = "60",
      .help = "seconds an idle keep-alive connection stays open; 0: no "
              "limit" },
    { .name = "header-timeout", .type = CONF_DOUBLE,
      S(header_timeout), .min = 0, .max = 86400, .def = "10",
      .help = "seconds a request's headers may take to arrive; 0: no "
              "limit" },
    { .name = "body-timeout", .type = CONF_DOUBLE,
      S(body_timeout), .min = 0, .max = 86400, .def = "10",
      .help = "seconds a request body may go without progress; 0: no "
              "limit" },
    { .name = "body-budget", .type = CONF_SIZE,
      S(body_budget), .def = "256MB",
      .help = "memory for request bodies being received, over all "
              "connections; past it a request gets 503; suffixes KB, MB, "
              "GB" },
};

const size_t conf_noptions = sizeof(conf_options) / sizeof(conf_options[0]);
