/* SPDX-License-Identifier: MIT */
/* conf.c - settings read through options.c's table: defaults, the command
 * line (--name value, --name=value), the config file (name = value, #
 * comments), --help, and throttling knobs by name (per-table tags), so a
 * setting is parsed and checked the same way wherever it comes from. */

#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "config.h"
#include "conf/conf.h"

/* Where setting o of c is stored. */
static void *
field_of(struct conf *c, const struct conf_option *o)
{
    char *base = (o->flags & CONF_TABLE) ? (char *)&c->throttle : (char *)c;

    return base + o->off;
}

/* The setting called name (len bytes, not NUL-terminated), or NULL. */
static const struct conf_option *
find_option(const char *name, size_t len)
{
    size_t i;

    for (i = 0; i < conf_noptions; i++)
        if (strlen(conf_options[i].name) == len &&
            memcmp(conf_options[i].name, name, len) == 0)
            return &conf_options[i];
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

/* Decimal digits only, in o's range. */
static int
parse_uint(const struct conf_option *o, const char *v, unsigned *out)
{
    unsigned long n;
    char *end;

    if (!isdigit((unsigned char)v[0]))
        return -1;
    errno = 0;
    n = strtoul(v, &end, 10);
    if (errno != 0 || *end != '\0' || (double)n < o->min ||
        (double)n > o->max)
        return -1;
    *out = (unsigned)n;
    return 0;
}

/* Anything strtod takes whole, in o's range (NaN never is). */
static int
parse_double(const struct conf_option *o, const char *v, double *out)
{
    char *end;
    double d;

    errno = 0;
    d = strtod(v, &end);
    if (end == v || *end != '\0' || errno != 0 || !(d >= o->min) ||
        d > o->max)
        return -1;
    *out = d;
    return 0;
}

/*
 * Parse text v as setting o into field (o's field in struct conf or struct
 * throttle_limits). Returns 0, or -1 when the value is bad (the caller
 * names it; field unchanged). CONF_FILE is handled by the callers.
 */
static int
parse_value(const struct conf_option *o, const char *v, void *field)
{
    size_t i, len = strlen(v);

    switch (o->type) {
    case CONF_UINT:
        return parse_uint(o, v, field);
    case CONF_DOUBLE:
        return parse_double(o, v, field);
    case CONF_BOOL:
    case CONF_FLAG:
        return parse_bool(v, field) ? 0 : -1;
    case CONF_STRING:
        if (len == 0 || len >= o->size)
            return -1;
        memcpy(field, v, len + 1);
        return 0;
    case CONF_DIGITS:
        if (len != (size_t)o->min || len >= o->size)
            return -1;
        for (i = 0; i < len; i++)
            if (!isdigit((unsigned char)v[i]))
                return -1;
        memcpy(field, v, len + 1);
        return 0;
    case CONF_CHOICE:
        for (i = 0; o->choices[i] != NULL; i++)
            if (strcasecmp(v, o->choices[i]) == 0) {
                *(int *)field = (int)i;
                return 0;
            }
        return -1;
    case CONF_SIZE:
        return parse_size(v, field);
    case CONF_FILE:
        break;
    }
    return -1;
}

/* Set every field of base to its setting's default: base is a struct conf
 * (knobs false) or a struct throttle_limits (knobs true). */
static void
set_defaults(void *base, bool knobs)
{
    size_t i;

    for (i = 0; i < conf_noptions; i++) {
        const struct conf_option *o = &conf_options[i];

        if (o->def == NULL || ((o->flags & CONF_TABLE) != 0) != knobs)
            continue;
        if (parse_value(o, o->def, (char *)base + o->off) != 0)
            abort();                    /* a bad default in options.c */
    }
}

/* Defaults into c: every setting's default from the table. */
void
conf_defaults(struct conf *c)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);

    memset(c, 0, sizeof(*c));
    set_defaults(c, false);
    conf_limits_default(&c->throttle);
    /* The one default the table cannot hold: it depends on the machine. */
    c->threads = n > 0 ? (unsigned)(n > 1024 ? 1024 : n) : 1;
}

/* Every knob of lim to the settings table's default. */
void
conf_limits_default(struct throttle_limits *lim)
{
    memset(lim, 0, sizeof(*lim));
    set_defaults(lim, true);
}

/*
 * Set the knob called name from text. Returns 0, -1 when name is NULL or
 * no knob (a setting with CONF_TABLE), or -2 for a NULL or bad value (lim
 * unchanged).
 */
int
conf_limits_set(struct throttle_limits *lim, const char *name,
                const char *value)
{
    const struct conf_option *o;

    if (name == NULL)
        return -1;
    o = find_option(name, strlen(name));
    if (o == NULL || !(o->flags & CONF_TABLE))
        return -1;
    if (value == NULL)
        return -2;
    return parse_value(o, value, (char *)lim + o->off) == 0 ? 0 : -2;
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
        const struct conf_option *o;

        lineno++;
        hash = strchr(line, '#');
        if (hash != NULL)
            *hash = '\0';
        s = trim(line);
        if (*s == '\0')
            continue;
        eq = strchr(s, '=');
        if (eq == NULL) {
            o = find_option(s, strlen(s));
            /* A bare flag ("in-memory") means true. */
            if (o != NULL && o->type == CONF_FLAG) {
                *(bool *)field_of(c, o) = true;
                continue;
            }
            fprintf(stderr, "%s:%u: expected 'key = value': '%s'\n", path,
                    lineno, s);
            goto out;
        }
        *eq = '\0';
        key = trim(s);
        val = trim(eq + 1);
        o = find_option(key, strlen(key));
        if (o == NULL || o->type == CONF_FILE) {
            fprintf(stderr, "%s:%u: unknown key '%s'\n", path, lineno, key);
            goto out;
        }
        if (parse_value(o, val, field_of(c, o)) != 0) {
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

/* --help: one line per setting, from the table. */
static void
usage(FILE *out)
{
    size_t i;

    fprintf(out, "Usage: shardlocal [options]\n"
                 "A local DynamoDB-compatible server.\n\nOptions:\n");
    for (i = 0; i < conf_noptions; i++) {
        const struct conf_option *o = &conf_options[i];
        const char *arg = o->type == CONF_FLAG ? "" :
                          o->type == CONF_FILE ? " FILE" : " VALUE";
        char opt[64];

        snprintf(opt, sizeof(opt), "--%s%s", o->name, arg);
        fprintf(out, "  %-26s %s", opt, o->help);
        if (o->def != NULL && !(o->flags & CONF_HIDEDEF))
            fprintf(out, " (default %s)", o->def);
        fputc('\n', out);
    }
    fprintf(out, "  %-26s %s\n", "--help", "print this help and exit");
    fprintf(out, "  %-26s %s\n", "--version", "print the version and exit");
    fprintf(out, "  %-26s %s\n", "--help-man",
            "print the manual page shardlocal(1) and exit");
}

/*
 * Split argv[i] ("--name" or "--name=value") into its setting and inline
 * value. Returns the table entry or NULL.
 */
static const struct conf_option *
arg_option(const char *arg, const char **inline_val)
{
    const char *name = arg + 2, *eq;

    *inline_val = NULL;
    if (strncmp(arg, "--", 2) != 0)
        return NULL;
    eq = strchr(name, '=');
    if (eq != NULL) {
        *inline_val = eq + 1;
        return find_option(name, (size_t)(eq - name));
    }
    return find_option(name, strlen(name));
}

/*
 * Parse argv (argv[0] skipped) into c, reading any --config FILE first so
 * the command line wins. Returns 0 to run, 1 when --help, --version or
 * --help-man printed and the program should exit 0, or 2 after printing
 * one line naming a bad flag, key or value to stderr.
 */
int
conf_parse_args(struct conf *c, int argc, char **argv)
{
    int i, pass;

    /* Pass 0: --help, --version and --config; pass 1: everything else. */
    for (pass = 0; pass < 2; pass++) {
        for (i = 1; i < argc; i++) {
            const char *arg = argv[i], *val;
            const struct conf_option *o;

            if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
                if (pass == 0) {
                    usage(stdout);
                    return 1;
                }
                continue;
            }
            if (strcmp(arg, "--help-man") == 0) {
                if (pass == 0) {
                    conf_man(stdout);
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
            o = arg_option(arg, &val);
            if (o == NULL) {
                if (pass == 0) {
                    fprintf(stderr, "shardlocal: unknown option '%s' "
                                    "(try --help)\n", arg);
                    return 2;
                }
                continue;
            }
            if (val == NULL && o->type != CONF_FLAG) {
                if (i + 1 >= argc) {
                    fprintf(stderr, "shardlocal: option '--%s' needs a "
                                    "value\n", o->name);
                    return 2;
                }
                val = argv[++i];
            }
            if (o->type == CONF_FILE) {
                if (pass == 0 && conf_load_file(c, val) != 0)
                    return 2;
                continue;
            }
            if (pass == 0)
                continue;
            if (val == NULL)                /* bare flag */
                val = "true";
            if (parse_value(o, val, field_of(c, o)) != 0) {
                fprintf(stderr, "shardlocal: invalid value '%s' for "
                                "'--%s'\n", val, o->name);
                return 2;
            }
        }
    }
    return 0;
}
