/* SPDX-License-Identifier: MIT */
/* api.h - what server/ calls: the server state's set-up and the DynamoDB
 * operation table. Handlers live in the concern folders (ops/, tables/)
 * and share the call context of proto/context.h. */
#ifndef SHARDLOCAL_API_H
#define SHARDLOCAL_API_H

#include <jansson.h>
#include <stdbool.h>

#include "api/proto/context.h"

/*
 * Fill srv for the store st and settings c (both borrowed, outliving srv):
 * the throttle registry, the fault rules and the clock (the virtual clock
 * starts at the wall clock, then moves only through POST
 * /shardlocal/clock). api_server_fini frees what init made.
 */
void api_server_init(struct api_server *srv, struct storage *st,
                     const struct conf *c);
void api_server_fini(struct api_server *srv);

enum { API_READ = 1, API_WRITE = 2, API_DDL = 4 };

struct api_op {
    const char *name;               /* X-Amz-Target suffix: "PutItem" */
    api_handler *handler;
    unsigned flags;
};

/* Find an operation by name (bsearch over the sorted table); NULL if none. */
const struct api_op *api_lookup(const char *name);

#endif
