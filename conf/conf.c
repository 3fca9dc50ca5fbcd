/* SPDX-License-Identifier: MIT */
/* conf.c - server settings. One table of keys serves both the command line
 * (--key value, --key=value) and the config file (key = value, # comments),
 * so every setting is parsed and checked the same way. conf/shardlocal.conf
 * documents every key. */

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "config.h"
#include "conf/conf.h"

enum conf_kind { K_UINT, K_STR, K_BOOL, K_LOGLEVEL, K_ACCOUNT, K_CONFIG,
                 K_THROTTLE, K_SIZE };

struct conf_key {
    const char *name;                   /* "data-dir": --data-dir, data-dir = */
    enum conf_kind kind;
    size_t off;                         /* offsetof(struct conf, field) */
    size_t size;                        /* buffer size for K_STR */
    unsigned long min, max;             /* range for K_UINT */
    const char *help;
};

#define F(field) offsetof(struct conf, field), sizeof(((struct conf *)0)->field)
/* A throttle knob: the key's name is passed to throttle_limits_set(). */
#define T F(throttle), 0, 0

static const struct conf_key conf_keys[] = {
    { "port", K_UINT, F(port), 0, 65535,
      "TCP port to listen on; 0 picks a free one (default 8000)" },
    { "host", K_STR, F(host), 0, 0,
      "address to bind (default 127.0.0.1)" },
    { "data-dir", K_STR, F(data_dir), 0, 0,
      "directory holding the tables (default ./data)" },
    { "in-memory", K_BOOL, F(in_memory), 0, 0,
      "keep everything in memory; nothing is written to disk" },
    { "threads", K_UINT, F(threads), 1, 1024,
      "HTTP worker threads (default: number of CPUs)" },
    { "config", K_CONFIG, 0, 0, 0, 0,
      "read settings from FILE first (the command line wins)" },
    { "log-level", K_LOGLEVEL, F(log_level), 0, 0,
      "error, warn, info or debug (default info)" },
    { "account-id", K_ACCOUNT, F(account_id), 0, 0,
      "12-digit account id used in ARNs (default 000000000000)" },
    { "region", K_STR, F(default_region), 0, 0,
      "region for requests without a credential scope (default us-east-1)" },
    { "status-delay-ms", K_UINT, F(status_delay_ms), 0, 86400000,
      "how long CREATING/UPDATING/DELETING last; 0 = ACTIVE at once" },
    { "port-file", K_STR, F(port_file), 0, 0,
      "write the bound port to this file once listening" },
    { "throttle", K_THROTTLE, T,
      "on|off: off meters capacity but never rejects (default on)" },
    { "throttle-scale", K_THROTTLE, T,
      "multiply every partition/on-demand limit (0.01: 10 WCU partitions)" },
    { "partition-rcu", K_THROTTLE, T,
      "per-partition read ceiling, units/s (default 3000)" },
    { "partition-wcu", K_THROTTLE, T,
      "per-partition write ceiling, units/s (default 1000)" },
    { "burst-seconds", K_THROTTLE, T,
      "seconds of unused share a partition banks (default 300)" },
    { "burst-start-full", K_THROTTLE, T,
      "on|off: a new partition starts with a full burst bank (default on)" },
    { "adaptive-capacity", K_THROTTLE, T,
      "on|off: hot partitions borrow the table's unused rate (default on)" },
    { "ondemand-initial-rru", K_THROTTLE, T,
      "a new on-demand table's instant read capacity (default 12000)" },
    { "ondemand-initial-wru", K_THROTTLE, T,
      "a new on-demand table's instant write capacity (default 4000)" },
    { "ondemand-peak-multiplier", K_THROTTLE, T,
      "on-demand instant capacity = this x previous peak (default 2)" },
    { "ondemand-peak-window-seconds", K_THROTTLE, T,
      "how long a new on-demand peak takes to count (default 1800)" },
    { "ondemand-table-max-rru", K_THROTTLE, T,
      "on-demand per-table read quota, units/s (default 40000)" },
    { "ondemand-table-max-wru", K_THROTTLE, T,
      "on-demand per-table write quota, units/s (default 40000)" },
    { "virtual-clock", K_BOOL, F(virtual_clock), 0, 0,
      "time advances only through POST /shardlocal/clock (tests)" },
    { "split-size", K_SIZE, F(split_size), 0, 0,
      "a partition holding more bytes splits in two; suffixes KB, MB, GB "
      "(default 10GB)" },
    { "item-collection-limit", K_SIZE, F(item_collection_limit), 0, 0,
      "largest item collection of a table with LSIs; suffixes KB, MB, GB "
      "(default 10GB)" },
};

#define NKEYS (sizeof(conf_keys) / sizeof(conf_keys[0]))

static const char *const level_names[] = { "error", "warn", "info", "debug" };

/* Defaults into c. */
void
conf_defaults(struct conf *c)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);

    memset(c, 0, sizeof(*c));
    c->port = 8000;
    strcpy(c->host, "127.0.0.1");
    strcpy(c->data_dir, "./data");
    c->in_memory = false;
    c->threads = n > 0 ? (unsigned)(n > 1024 ? 1024 : n) : 1;
    c->log_level = LOG_INFO;
    strcpy(c->account_id, "000000000000");
    strcpy(c->default_region, "us-east-1");
    c->status_delay_ms = 0;
    c->port_file[0] = '\0';
    throttle_limits_default(&c->throttle);
    c->virtual_clock = false;
    c->split_size = (uint64_t)10 << 30;
    c->item_collection_limit = (uint64_t)10 << 30;
}

static const struct conf_key *
find_key(const char *name, size_t len)
{
    size_t i;

    for (i = 0; i < NKEYS; i++)
        if (strlen(conf_keys[i].name) == len &&
            memcmp(conf_keys[i].name, name, len) == 0)
            return &conf_keys[i];
    return NULL;
}

static bool
parse_bool(const char *v, bool *out)
{
    static const char *const yes[] = { "true", "yes", "on", "1" };
    static const char *const no[] = { "false", "no", "off", "0" };
    size_t i;

    for (i = 0; i < 4; i++) {
        if (strcasecmp(v, yes[i]) == 0) {
            *out = true;
            return true;
        }
        if (strcasecmp(v, no[i]) == 0) {
            *out = false;
            return true;
        }
    }
    return false;
}

/* A byte count with an optional suffix (B, KB, MB, GB, TB; 1 KB = 1024
 * bytes, case-insensitive): "10GB", "64KB", "4096". At least 1. */
static int
parse_size(const char *v, uint64_t *out)
{
    static const struct { const char *sfx; unsigned shift; } units[] = {
        { "", 0 }, { "b", 0 }, { "k", 10 }, { "kb", 10 }, { "m", 20 },
        { "mb", 20 }, { "g", 30 }, { "gb", 30 }, { "t", 40 }, { "tb", 40 },
    };
    unsigned long long n;
    char *end;
    size_t i;

    if (!isdigit((unsigned char)v[0]))
        return -1;
    errno = 0;
    n = strtoull(v, &end, 10);
    if (errno != 0 || n == 0)
        return -1;
    while (isspace((unsigned char)*end))
        end++;
    for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
        if (strcasecmp(end, units[i].sfx) != 0)
            continue;
        if (n > (UINT64_MAX >> units[i].shift))
            return -1;
        *out = (uint64_t)n << units[i].shift;
        return 0;
    }
    return -1;
}

/*
 * Store value v for key k into c. Returns 0, or -1 when the value is bad
 * (the caller names it). K_CONFIG is handled by the callers.
 */
static int
set_value(struct conf *c, const struct conf_key *k, const char *v)
{
    char *base = (char *)c + k->off;
    char *end;
    unsigned long n;
    size_t i, len = strlen(v);

    switch (k->kind) {
    case K_UINT:
        if (len == 0 || !isdigit((unsigned char)v[0]))
            return -1;
        errno = 0;
        n = strtoul(v, &end, 10);
        if (errno != 0 || *end != '\0' || n < k->min || n > k->max)
            return -1;
        *(unsigned *)(void *)base = (unsigned)n;
        return 0;
    case K_STR:
        if (len == 0 || len >= k->size)
            return -1;
        memcpy(base, v, len + 1);
        return 0;
    case K_BOOL:
        return parse_bool(v, (bool *)(void *)base) ? 0 : -1;
    case K_LOGLEVEL:
        for (i = 0; i < 4; i++)
            if (strcasecmp(v, level_names[i]) == 0) {
                *(enum conf_log_level *)(void *)base = (enum conf_log_level)i;
                return 0;
            }
        return -1;
    case K_ACCOUNT:
        if (len != 12)
            return -1;
        for (i = 0; i < len; i++)
            if (!isdigit((unsigned char)v[i]))
                return -1;
        memcpy(base, v, len + 1);
        return 0;
    case K_THROTTLE:
        return throttle_limits_set(&c->throttle, k->name, v) == 0 ? 0 : -1;
    case K_SIZE:
        return parse_size(v, (uint64_t *)(void *)base);
    case K_CONFIG:
        break;
    }
    return -1;
}

static char *
trim(char *s)
{
    char *e;

    while (isspace((unsigned char)*s))
        s++;
    e = s + strlen(s);
    while (e > s && isspace((unsigned char)e[-1]))
        *--e = '\0';
    return s;
}

/* Apply a config file. 0, or 2 after printing one line naming the bad key
 * or value (with file:line). */
int
conf_load_file(struct conf *c, const char *path)
{
    FILE *f;
    char line[8192];
    unsigned lineno = 0;
    int rc = 2;

    f = fopen(path, "r");
    if (f == NULL) {
        fprintf(stderr, "shardlocal: cannot read config file '%s': %s\n",
                path, strerror(errno));
        return 2;
    }
    while (fgets(line, sizeof(line), f) != NULL) {
        char *s, *eq, *key, *val, *hash;
        const struct conf_key *k;

        lineno++;
        hash = strchr(line, '#');
        if (hash != NULL)
            *hash = '\0';
        s = trim(line);
        if (*s == '\0')
            continue;
        eq = strchr(s, '=');
        if (eq == NULL) {
            k = find_key(s, strlen(s));
            /* A bare boolean key ("in-memory") means true. */
            if (k != NULL && k->kind == K_BOOL) {
                *(bool *)(void *)((char *)c + k->off) = true;
                continue;
            }
            fprintf(stderr, "%s:%u: expected 'key = value': '%s'\n", path,
                    lineno, s);
            goto out;
        }
        *eq = '\0';
        key = trim(s);
        val = trim(eq + 1);
        k = find_key(key, strlen(key));
        if (k == NULL || k->kind == K_CONFIG) {
            fprintf(stderr, "%s:%u: unknown key '%s'\n", path, lineno, key);
            goto out;
        }
        if (set_value(c, k, val) != 0) {
            fprintf(stderr, "%s:%u: invalid value '%s' for key '%s'\n", path,
                    lineno, val, key);
            goto out;
        }
    }
    if (ferror(f)) {
        fprintf(stderr, "shardlocal: error reading '%s'\n", path);
        goto out;
    }
    rc = 0;
out:
    fclose(f);
    return rc;
}

static void
usage(FILE *out)
{
    size_t i;

    fprintf(out, "Usage: shardlocal [options]\n"
                 "A local DynamoDB-compatible server.\n\nOptions:\n");
    for (i = 0; i < NKEYS; i++) {
        const struct conf_key *k = &conf_keys[i];
        const char *arg = k->kind == K_BOOL ? "" :
                          k->kind == K_CONFIG ? " FILE" : " VALUE";
        char opt[64];

        snprintf(opt, sizeof(opt), "--%s%s", k->name, arg);
        fprintf(out, "  %-26s %s\n", opt, k->help);
    }
    fprintf(out, "  %-26s %s\n", "--help", "print this help and exit");
    fprintf(out, "  %-26s %s\n", "--version", "print the version and exit");
}

/*
 * Split argv[i] ("--key" or "--key=value") into its key and inline value.
 * Returns the table entry or NULL.
 */
static const struct conf_key *
arg_key(const char *arg, const char **inline_val)
{
    const char *name = arg + 2, *eq;

    *inline_val = NULL;
    if (strncmp(arg, "--", 2) != 0)
        return NULL;
    eq = strchr(name, '=');
    if (eq != NULL) {
        *inline_val = eq + 1;
        return find_key(name, (size_t)(eq - name));
    }
    return find_key(name, strlen(name));
}

/*
 * Parse argv (argv[0] skipped) into c, reading any --config FILE first so
 * the command line wins. Returns 0 to run, 1 when --help/--version printed
 * and the program should exit 0, or 2 after printing one line naming a bad
 * flag, key or value to stderr.
 */
int
conf_parse_args(struct conf *c, int argc, char **argv)
{
    int i, pass;

    /* Pass 0: --help, --version and --config; pass 1: everything else. */
    for (pass = 0; pass < 2; pass++) {
        for (i = 1; i < argc; i++) {
            const char *arg = argv[i], *val;
            const struct conf_key *k;

            if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
                if (pass == 0) {
                    usage(stdout);
                    return 1;
                }
                continue;
            }
            if (strcmp(arg, "--version") == 0) {
                if (pass == 0) {
                    printf("%s\n", PACKAGE_STRING);
                    return 1;
                }
                continue;
            }
            k = arg_key(arg, &val);
            if (k == NULL) {
                if (pass == 0) {
                    fprintf(stderr, "shardlocal: unknown option '%s' "
                                    "(try --help)\n", arg);
                    return 2;
                }
                continue;
            }
            if (val == NULL && k->kind != K_BOOL) {
                if (i + 1 >= argc) {
                    fprintf(stderr, "shardlocal: option '--%s' needs a "
                                    "value\n", k->name);
                    return 2;
                }
                val = argv[++i];
            }
            if (k->kind == K_CONFIG) {
                if (pass == 0 && conf_load_file(c, val) != 0)
                    return 2;
                continue;
            }
            if (pass == 0)
                continue;
            if (val == NULL)                /* bare boolean flag */
                val = "true";
            if (set_value(c, k, val) != 0) {
                fprintf(stderr, "shardlocal: invalid value '%s' for "
                                "'--%s'\n", val, k->name);
                return 2;
            }
        }
    }
    return 0;
}
