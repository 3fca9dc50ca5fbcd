/* SPDX-License-Identifier: MIT */
/* model.h - the service model as data, private to api/proto/: each
 * request member's JSON type and constraints (struct vfield), an
 * operation's schema (struct api_schema), and the shapes and enumerations
 * the model files (model_*.c) share. validate.c reads it. */
#ifndef SHARDLOCAL_PROTO_MODEL_H
#define SHARDLOCAL_PROTO_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>

#include "api/proto/validate.h"

enum vtype {
    T_STR,                              /* java.lang.String */
    T_INT,                              /* java.lang.Integer */
    T_LONG,                             /* java.lang.Long */
    T_BOOL,                             /* java.lang.Boolean */
    T_BLOB,                             /* base64 -> java.nio.ByteBuffer */
    T_LIST,                             /* sub: the element */
    T_MAP,                              /* sub: the value; cls: value class */
    T_STRUCT,                           /* sub: fields, NULL-name ended */
    T_AV,                               /* an AttributeValue */
};

enum {
    F_NOTNULL = 1 << 0,
    F_MINLEN = 1 << 1,
    F_MAXLEN = 1 << 2,
    F_MINVAL = 1 << 3,
    F_MAXVAL = 1 << 4,
    F_PATTERN = 1 << 5,                 /* [a-zA-Z0-9_.-]+ */
    F_TABLENAME = 1 << 6,               /* a name (pattern, 3..255) or an
                                           ARN (1..1024) */
    F_MAPKEYS_TABLE = 1 << 7,           /* map keys are table names or
                                           ARNs ("Map keys must satisfy
                                           constraint: [...]") */
    F_MAPVALLEN = 1 << 8,               /* map values (lists) have
                                           vminlen..vmaxlen elements */
    F_PARAM = 1 << 9,                   /* a parameterized collection
                                           (List<WriteRequest>, Map<String,
                                           AttributeValue> in a list): a
                                           scalar gets Java's cast error */
    F_JAVALIST = 1 << 10,               /* a list of structs printed as Java
                                           does in length errors:
                                           [cls@hash, ...] (TransactItems) */
    F_KEEPCASE = 1 << 11,               /* the path keeps the member's
                                           capital ("Limit") */
    F_GEN_MIN = 1 << 12,                /* a too short value gets the
                                           validation framework's generic
                                           form, "Value at 'RequestItems'
                                           failed ...": no echo, the path
                                           as the model spells it */
    F_GEN_MAX = 1 << 13,                /* the same for a too long value
                                           (and, with F_MAPVALLEN, a too
                                           long map value) */
    F_MAPKEYS_YIELD = 1 << 14,          /* a bad map key is reported only
                                           when nothing before it failed */
    F_MAPKEYS_EARLY = 1 << 15,          /* a bad map key is reported ahead
                                           of every other member's errors */
    F_ELEMLEN = 1 << 16,                /* list elements (strings) are
                                           vminlen..vmaxlen long ("Member
                                           must satisfy constraint: [...]") */
};

struct vfield {
    const char *name;                   /* JSON member name */
    enum vtype type;
    unsigned flags;
    long long minlen, maxlen;           /* strings, lists, maps */
    long long minval, maxval;           /* integers */
    const char *const *enums;           /* NULL-ended, in message order */
    const struct vfield *sub;           /* see enum vtype */
    const char *cls;                    /* class name used in messages */
    long long vminlen, vmaxlen;         /* F_MAPVALLEN, F_ELEMLEN */
};

/* A member whose value outside enums is reported alone, as msg, after
 * the type pass and ahead of every constraint (Query's
 * ConditionalOperator). */
struct vsolo {
    const char *name;                   /* JSON member name */
    const char *const *enums;           /* the values it takes */
    const char *msg;                    /* the whole message otherwise */
};

/* A walk of the request's AttributeValues in DynamoDB's current value
 * layer (av.h av_current_request): 0, or -1 with the message in msg. */
typedef int validate_values_fn(const json_t *req, char *msg, size_t cap);

/*
 * One operation's request, as validate_request() checks it: the members,
 * then what DynamoDB does differently for this operation alone.
 */
struct api_schema {
    const struct vfield *fields;        /* the members, NULL-name ended, in
                                           the order DynamoDB reports them */
    const struct vfield *keyed;         /* when the request's Key is an
                                           object: these members instead,
                                           and only the first failure
                                           (UpdateItem); or NULL */
    const struct vsolo *solo;           /* or NULL */
    validate_values_fn *values;         /* the current value layer, run
                                           after the other checks; or
                                           NULL */
    bool values_enveloped;              /* its message goes inside "1
                                           validation error detected: " */
};

/* ------------------------------------------------------------------------
 * Shapes and enumerations the model files share (model.c). Enumerations
 * list their values in the order DynamoDB prints them.
 * ---------------------------------------------------------------------- */

extern const struct vfield model_av_elem;   /* a list/map AttributeValue */
extern const struct vfield model_str_elem;  /* a list/map String */
extern const struct vfield model_av_fields[];   /* AttributeValue members */

extern const char *const model_e_consumed[];    /* ReturnConsumedCapacity */
extern const char *const model_e_metrics[];     /* ...ItemCollectionMetrics */
extern const char *const model_e_rvcf[];        /* ...OnConditionCheckFailure */

#define END { .name = NULL }

/* Map<String, AttributeValue>: Key, Item, ExclusiveStartKey, ... */
#define AVMAP(n, fl) { .name = n, .type = T_MAP, .flags = fl, \
                       .sub = &model_av_elem, .cls = "AttributeValue" }
/* A member holding a structure of class c with members f, and a list or
 * map element holding one. */
#define STRUCT(n, f, c) { .name = n, .type = T_STRUCT, .sub = f, .cls = c }
#define ELEM(f, c) STRUCT("member", f, c)
#define ENUM(n, e) { .name = n, .type = T_STR, .enums = e }
#define STRING(n) { .name = n, .type = T_STR }
#define BOOL(n) { .name = n, .type = T_BOOL }

#define TABLENAME { .name = "TableName", .type = T_STR, \
                    .flags = F_NOTNULL | F_TABLENAME | F_MINLEN | F_MAXLEN, \
                    .minlen = 1, .maxlen = 1024 }
#define INDEXNAME(fl) { .name = "IndexName", .type = T_STR, \
                        .flags = (fl) | F_PATTERN | F_MINLEN | F_MAXLEN, \
                        .minlen = 3, .maxlen = 255 }
#define ATTRS_TO_GET { .name = "AttributesToGet", .type = T_LIST, \
                       .flags = F_MINLEN | F_MAXLEN, .minlen = 1, \
                       .maxlen = 255, .sub = &model_str_elem }
#define EXPR_NAMES { .name = "ExpressionAttributeNames", .type = T_MAP, \
                     .sub = &model_str_elem, .cls = "java.lang.String" }
#define EXPR_VALUES AVMAP("ExpressionAttributeValues", 0)
#define CONSUMED ENUM("ReturnConsumedCapacity", model_e_consumed)
#define METRICS ENUM("ReturnItemCollectionMetrics", model_e_metrics)
#define RVCF ENUM("ReturnValuesOnConditionCheckFailure", model_e_rvcf)

#endif
