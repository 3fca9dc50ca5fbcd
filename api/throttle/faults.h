/* SPDX-License-Identifier: MIT */
/* faults.h - fault-injection rules: throttle a fraction of a table's (or
 * one key's) requests, or the next N, with a chosen cause. */
#ifndef SHARDLOCAL_THROTTLE_FAULTS_H
#define SHARDLOCAL_THROTTLE_FAULTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#include "api/throttle/throttle.h"
#include "storage/storage.h"

struct faults;

/* A new, empty rule set; faults_free accepts NULL. */
struct faults *faults_new(void);
void faults_free(struct faults *f);

/*
 * The admin API's view of the rules (POST /shardlocal/faults): without
 * post, list them; with post, req (borrowed) adds one rule,
 * {"table": T, "key": AttributeValue (optional), "op": "read"|"write"|
 * "any", "fraction": 0..1 and/or "count": N, "cause": "KeyRange"|
 * "ProvisionedThroughput"|"MaxOnDemand"|"AccountLimit"}, or clears them,
 * {"clear": true} (optionally with "table"). *resp is {"rules": [...]}, a
 * new reference; -1 with a ValidationException on a bad rule.
 */
int faults_request(struct faults *f, bool post, const json_t *req,
                   json_t **resp, struct ddb_err *err);

/*
 * Does a rule throttle this request (pk may be NULL)? Returns the cause,
 * or THROTTLE_OK. Deterministic: a rule with fraction f fires on matching
 * request n (counting from 1) when floor(n f) grows.
 */
enum throttle_cause faults_check(struct faults *f, const char *table,
                                 const uint8_t *pk, size_t pk_len,
                                 enum throttle_op op);
/* Drop every rule of table (DeleteTable). */
void faults_drop(struct faults *f, const char *table);

#endif
