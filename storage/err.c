/* SPDX-License-Identifier: MIT */
/* err.c - struct ddb_err: a fixed message buffer filled printf-style, plus
 * an optional json object of modeled fields merged into the error body.
 * api/error.c maps the type to its wire name and HTTP status. */

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "storage/storage.h"

/* Reset err to "no error" without looking at its previous contents. */
void
ddb_err_init(struct ddb_err *err)
{
    if (err == NULL)
        return;
    err->type = DDB_OK;
    err->msg[0] = '\0';
    err->extra = NULL;
}

/* Release err->extra (if any) and reset err to DDB_OK. */
void
ddb_err_clear(struct ddb_err *err)
{
    if (err == NULL)
        return;
    json_decref(err->extra);
    ddb_err_init(err);
}

/*
 * Fill err with type and a printf-style message (truncated to the buffer)
 * and return -1, so a failure is one line. err may be NULL. Any extra
 * fields already attached are kept: callers attach them before or after.
 */
int
ddb_err_set(struct ddb_err *err, enum ddb_errtype type, const char *fmt, ...)
{
    va_list ap;

    if (err == NULL)
        return -1;
    err->type = type;
    if (fmt == NULL) {
        err->msg[0] = '\0';
        return -1;
    }
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
    va_end(ap);
    return -1;
}

/* Attach a modeled field (Item, CancellationReasons, ...) to the error
 * body. Takes val, even on failure; the object is created on first use. */
void
ddb_err_extra_set_new(struct ddb_err *err, const char *key, json_t *val)
{
    if (err == NULL || key == NULL) {
        json_decref(val);
        return;
    }
    if (err->extra == NULL) {
        err->extra = json_object();
        if (err->extra == NULL) {
            json_decref(val);
            return;
        }
    }
    json_object_set_new(err->extra, key, val);
}
