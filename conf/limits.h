/* SPDX-License-Identifier: MIT */
/* limits.h - the throttling knobs' values (struct throttle_limits): set by
 * the command line and config file through conf/'s settings table, and per
 * table by "shardlocal:<name>" tags. api/throttle/ reads them; conf/ only
 * names, parses and range-checks them. */
#ifndef SHARDLOCAL_LIMITS_H
#define SHARDLOCAL_LIMITS_H

#include <stdbool.h>

/*
 * Every limit of the throttling model. The defaults are DynamoDB's
 * numbers; scale multiplies the partition ceilings and the on-demand
 * initial and per-table limits together (0.01: a 10 WCU partition). A
 * table's own provisioned units and OnDemandThroughput are never scaled.
 */
struct throttle_limits {
    double partition_rcu;           /* 3000: per-partition read ceiling/s */
    double partition_wcu;           /* 1000: per-partition write ceiling/s */
    double burst_s;                 /* 300: seconds of share a bucket banks */
    double partition_burst_s;       /* 2.5: seconds of its ceiling a
                                       partition absorbs at once */
    double od_burst_s;              /* 2.5: seconds of its instant capacity
                                       an on-demand table absorbs at once */
    bool burst_start_full;          /* true: a new bucket starts full */
    bool adaptive;                  /* true: borrow the table's unused rate */
    double heat_split_s;            /* 300: seconds a partition's ceiling
                                       refuses before it splits between its
                                       hottest keys; 0: never */
    bool enforce;                   /* false (--throttle off): meter only */
    double od_initial_rru;          /* 12000: new on-demand table, reads/s */
    double od_initial_wru;          /* 4000: new on-demand table, writes/s */
    double od_peak_mult;            /* 2: instant capacity = mult x peak */
    double od_peak_window_s;        /* 1800: a peak counts after this long */
    double od_table_max_rru;        /* 40000: per-table quota, reads/s */
    double od_table_max_wru;        /* 40000: per-table quota, writes/s */
    double scale;                   /* 1.0: shrinks all of the above limits */
};

/* Every knob of lim to the settings table's default. */
void conf_limits_default(struct throttle_limits *lim);
/*
 * Set the knob called name (a setting with CONF_TABLE: "throttle",
 * "partition-wcu", ...) from text, as the command line, the config file
 * and "shardlocal:<name>" tags do. Returns 0, -1 when name is NULL or no
 * such knob, or -2 for a NULL or bad value (lim unchanged).
 */
int conf_limits_set(struct throttle_limits *lim, const char *name,
                    const char *value);

#endif
