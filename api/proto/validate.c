/* SPDX-License-Identifier: MIT */
/* validate.c - the checker behind validate_request(), run before every
 * handler against the operation's schema (the service model, model*.c):
 * JSON types first (SerializationException, first failure wins), then the
 * constraints, collected into one "N validation errors detected: ..."
 * ValidationException, then attribute name sizes and the schema's value
 * layer (av_current.c). Semantic checks belong to the handlers. */

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "api/proto/av.h"
#include "api/proto/model.h"
#include "api/proto/validate.h"
#include "storage/util.h"

#define VALIDATE_MAX_ERRORS 10          /* DynamoDB stops listing at 10 */
#define VALUE_STR_MAX       2048        /* longest value quoted in a message */
#define PATH_MAX_LEN        1024

#define NAME_PATTERN "[a-zA-Z0-9_.-]+"

/* A scalar where a parameterized collection (List<WriteRequest>, a Keys
 * element) belongs: DynamoDB leaks its Java cast error (as recorded by
 * dynalite). */
#define MSG_PARAM_CAST "class sun.reflect.generics.reflectiveObjects." \
    "ParameterizedTypeImpl cannot be cast to class java.lang.Class " \
    "(sun.reflect.generics.reflectiveObjects.ParameterizedTypeImpl and " \
    "java.lang.Class are in module java.base of loader 'bootstrap')"

/* ------------------------------------------------------------------------
 * Pass 1: JSON types (SerializationException, "Message")
 * ---------------------------------------------------------------------- */

static int
ser_err(struct ddb_err *err, const char *msg)
{
    return ddb_err_set(err, DDB_SERIALIZATION, "%s", msg);
}

static int check_type(const struct vfield *f, const json_t *v, bool in_coll,
                      struct ddb_err *err);

/*
 * Small objects (an AttributeValue has one member, most requests three
 * or four): rather than hash every schema name, walk the members. Sets
 * hit/val to the non-null members that fields names, in schema order
 * (*n of them). False when obj has more than STRUCT_FAST_MAX members:
 * the caller then looks each field up. A non-object has none.
 */
#define STRUCT_FAST_MAX 8

static bool
small_members(const struct vfield *fields, const json_t *obj,
              const struct vfield **hit, const json_t **val, size_t *n)
{
    const struct vfield *f;
    size_t i;
    void *it;

    *n = 0;
    if (json_object_size(obj) > STRUCT_FAST_MAX)
        return false;
    for (it = json_object_iter((json_t *)obj); it != NULL;
         it = json_object_iter_next((json_t *)obj, it)) {
        const char *k = json_object_iter_key(it);
        size_t klen = json_object_iter_key_len(it);
        const json_t *v = json_object_iter_value(it);

        if (v == NULL || json_is_null(v))
            continue;
        for (f = fields; f->name != NULL; f++)
            if (json_key_is(f->name, k, klen))
                break;
        if (f->name == NULL)
            continue;                   /* not in the schema */
        /* insert in schema order (a name appears once per schema) */
        for (i = *n; i > 0 && hit[i - 1] > f; i--) {
            hit[i] = hit[i - 1];
            val[i] = val[i - 1];
        }
        hit[i] = f;
        val[i] = v;
        (*n)++;
    }
    return true;
}

static int
check_struct_fields(const struct vfield *fields, const json_t *obj,
                    struct ddb_err *err)
{
    const struct vfield *f, *hit[STRUCT_FAST_MAX];
    const json_t *val[STRUCT_FAST_MAX];
    size_t nhit, j;

    if (small_members(fields, obj, hit, val, &nhit)) {
        for (j = 0; j < nhit; j++)
            if (check_type(hit[j], val[j], false, err) != 0)
                return -1;
        return 0;
    }
    for (f = fields; f->name != NULL; f++) {
        const json_t *v = json_object_get(obj, f->name);

        if (v != NULL && !json_is_null(v) &&
            check_type(f, v, false, err) != 0)
            return -1;
    }
    return 0;
}

/*
 * Check that v (not null) has f's JSON type. in_coll: v is a list element
 * or map value, which changes DynamoDB's message for a misplaced scalar.
 * Returns 0 or -1 with a SerializationException.
 */
static int
check_type(const struct vfield *f, const json_t *v, bool in_coll,
           struct ddb_err *err)
{
    char msg[256];
    const char *k, *cls;
    size_t i;
    json_t *e;

    switch (f->type) {
    case T_STR:
        return json_is_string(v) ? 0 : av_scalar_err(v, "String", err);
    case T_BOOL:
        if (json_is_boolean(v))
            return 0;
        if (json_is_string(v)) {
            static const char *const ok[] = { "TRUE", "1", "YES",
                                              "FALSE", "0", "NO" };
            const char *s = json_string_value(v);

            for (i = 0; i < 6; i++)
                if (strcasecmp(s, ok[i]) == 0)
                    return 0;
            return ser_err(err, "Unexpected token received from parser");
        }
        return av_scalar_err(v, "Boolean", err);
    case T_INT:
    case T_LONG:
    case T_TIME:                        /* a date is a JSON number too; its
                                           messages are assumed the long's */
        cls = f->type == T_INT ? "Integer"
              : f->type == T_LONG ? "Long" : "Date";
        if (json_is_number(v))
            return 0;
        if (json_is_string(v))
            return ddb_err_set(err, DDB_SERIALIZATION, "STRING_VALUE cannot "
                               "be converted to %s", cls);
        return av_scalar_err(v, cls, err);
    case T_BLOB:
        return av_ser_blob(v, err);
    case T_LIST:
        if (json_is_object(v))
            return ser_err(err,
                           "Start of structure or map found where not "
                           "expected");
        if (!json_is_array(v))
            return ser_err(err, (f->flags & F_PARAM) ? MSG_PARAM_CAST
                                                     : "Unexpected field "
                                                       "type");
        json_array_foreach(v, i, e) {
            if (!json_is_null(e) && check_type(f->sub, e, true, err) != 0)
                return -1;
        }
        return 0;
    case T_MAP:
        if (json_is_array(v)) {
            cls = f->cls ? f->cls : "AttributeValue";
            snprintf(msg, sizeof(msg),
                     "Unrecognized collection type java.util.Map<"
                     "java.lang.String, %s%s>",
                     strchr(cls, '.') ? "" : "com.amazonaws.dynamodb."
                                             "v20120810.", cls);
            return ser_err(err, msg);
        }
        if (!json_is_object(v))
            return ser_err(err, (f->flags & F_PARAM) ? MSG_PARAM_CAST
                                                     : "Unexpected field "
                                                       "type");
        json_object_foreach((json_t *)v, k, e) {
            if (!json_is_null(e) && check_type(f->sub, e, true, err) != 0)
                return -1;
        }
        return 0;
    case T_STRUCT:
    case T_AV:
        if (json_is_array(v)) {
            snprintf(msg, sizeof(msg), "Unrecognized collection type class "
                     "com.amazonaws.dynamodb.v20120810.%s",
                     f->cls ? f->cls : "AttributeValue");
            return ser_err(err, msg);
        }
        if (!json_is_object(v))
            return ser_err(err, in_coll ? "Unexpected value type in payload"
                                        : "Unexpected field type");
        return check_struct_fields(f->type == T_AV ? model_av_fields
                                                   : f->sub, v, err);
    }
    return 0;
}

/* ------------------------------------------------------------------------
 * Pass 2: constraints (ValidationException, aggregated)
 * ---------------------------------------------------------------------- */

struct verrs {
    unsigned n;                         /* entries so far */
    unsigned max;                       /* stop after this many errors */
    char buf[DDB_ERR_MSG_MAX * 2];      /* the entries, "; "-separated */
    size_t len;                         /* bytes in buf */
};

static void
append(struct verrs *ve, const char *s)
{
    size_t n = strlen(s);

    if (ve->len + n >= sizeof(ve->buf))
        n = sizeof(ve->buf) - ve->len - 1;
    memcpy(ve->buf + ve->len, s, n);
    ve->len += n;
    ve->buf[ve->len] = '\0';
}

/* Whether ve has room for another entry. */
static bool
has_room(const struct verrs *ve)
{
    return ve->n < VALIDATE_MAX_ERRORS && !(ve->max && ve->n >= ve->max);
}

/* Add one entry to ve. */
static void
add_line(struct verrs *ve, const char *line)
{
    if (ve->n > 0)
        append(ve, "; ");
    append(ve, line);
    ve->n++;
}

/* DynamoDB quotes the offending value: strings raw, lists as "[a, b]",
 * objects as JSON, numbers as written. */
static void
value_str(const json_t *v, char *out, size_t outsz)
{
    size_t i, len = 0;
    json_t *e;
    char *s;

    if (outsz == 0)
        return;
    out[0] = '\0';
    if (json_is_string(v)) {
        snprintf(out, outsz, "%s", json_string_value(v));
    } else if (json_is_integer(v)) {
        snprintf(out, outsz, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
    } else if (json_is_real(v)) {
        snprintf(out, outsz, "%.17g", json_real_value(v));
    } else if (json_is_true(v) || json_is_false(v)) {
        snprintf(out, outsz, "%s", json_is_true(v) ? "true" : "false");
    } else if (json_is_array(v)) {
        len = (size_t)snprintf(out, outsz, "[");
        json_array_foreach(v, i, e) {
            if (len + 1 >= outsz)
                break;
            if (i > 0)
                len += (size_t)snprintf(out + len, outsz - len, ", ");
            if (len + 1 >= outsz)
                break;
            value_str(e, out + len, outsz - len);
            len += strlen(out + len);
        }
        if (len + 1 < outsz)
            snprintf(out + len, outsz - len, "]");
    } else if (json_is_object(v)) {
        s = json_text(v, JSON_COMPACT | JSON_PRESERVE_ORDER);
        if (s != NULL) {
            snprintf(out, outsz, "%s", s);
            free(s);
        }
    }
}

/* One "Value 'val' at 'path' failed ..." entry; val NULL prints null. */
static void
add_error_str(struct verrs *ve, const char *val, const char *path,
              const char *constraint)
{
    char line[VALUE_STR_MAX + PATH_MAX_LEN + 512];

    if (!has_room(ve))
        return;
    if (val == NULL)
        snprintf(line, sizeof(line), "Value null at '%s' failed to satisfy "
                 "constraint: %s", path, constraint);
    else
        snprintf(line, sizeof(line), "Value '%s' at '%s' failed to satisfy "
                 "constraint: %s", val, path, constraint);
    add_line(ve, line);
}

static void
add_error(struct verrs *ve, const json_t *v, const char *path,
          const char *constraint)
{
    char val[VALUE_STR_MAX];

    if (v == NULL || json_is_null(v)) {
        add_error_str(ve, NULL, path, constraint);
        return;
    }
    value_str(v, val, sizeof(val));
    add_error_str(ve, val, path, constraint);
}

/* The validation framework's generic entry: "Value at 'path' failed to
 * satisfy constraint: ...", no echo, gpath spelt as the model does
 * ("RequestItems.t.member.Keys"). */
static void
add_error_generic(struct verrs *ve, const char *gpath, const char *constraint)
{
    char line[PATH_MAX_LEN + 512];

    if (!has_room(ve))
        return;
    snprintf(line, sizeof(line), "Value at '%s' failed to satisfy "
             "constraint: %s", gpath, constraint);
    add_line(ve, line);
}

/* The generic form of path for member `name`: the parent path with its
 * first letter capitalised, then name as the model spells it
 * ("requestItems.t.member.keys" -> "RequestItems.t.member.Keys"). */
static void
generic_path(const char *path, const char *name, char *out, size_t outsz)
{
    const char *dot = strrchr(path, '.');

    if (dot == NULL)
        snprintf(out, outsz, "%s", name);
    else
        snprintf(out, outsz, "%.*s.%s", (int)(dot - path), path, name);
    if (out[0] >= 'a' && out[0] <= 'z')
        out[0] = (char)(out[0] - 'a' + 'A');
}

/* Java's Object.toString() for a model object: class@hash. The hash is
 * arbitrary in DynamoDB too; ours is FNV-1a of the JSON text. */
static size_t
java_obj_str(const char *cls, const json_t *v, char *out, size_t outsz)
{
    char *s = json_text(v, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
    unsigned h = 2166136261u;
    const char *p;
    int n;

    for (p = s != NULL ? s : ""; *p != '\0'; p++)
        h = (h ^ (unsigned char)*p) * 16777619u;
    free(s);
    n = snprintf(out, outsz, "com.amazonaws.dynamodb.v20120810.%s@%x", cls,
                 h);
    return n < 0 ? 0 : ((size_t)n >= outsz ? outsz - 1 : (size_t)n);
}

/* A map of AttributeValues as a Lombok toString() prints it:
 * {pk=AttributeValue(S=x), ...}; returns the length written. */
static size_t
lombok_avmap_str(const json_t *m, char *out, size_t outsz)
{
    size_t len = 0;
    const char *k, *t;
    json_t *av, *v;
    bool first = true;
    char *s;
    int n;

    if (!json_is_object(m))
        return (size_t)snprintf(out, outsz, "null") >= outsz
                   ? outsz - 1 : strlen(out);
    len = (size_t)snprintf(out, outsz, "{");
    json_object_foreach((json_t *)m, k, av) {
        if (len + 1 >= outsz)
            break;
        n = snprintf(out + len, outsz - len, "%s%s=AttributeValue(",
                     first ? "" : ", ", k);
        len = n < 0 ? len : len + (size_t)n;
        first = false;
        json_object_foreach(av, t, v) {
            if (len + 1 >= outsz)
                break;
            s = json_is_string(v) ? NULL
                : json_text(v, JSON_COMPACT | JSON_ENCODE_ANY);
            n = snprintf(out + len, outsz - len, "%s=%s", t,
                         s != NULL ? s : json_string_value(v));
            free(s);
            len = n < 0 ? len : len + (size_t)n;
            break;                      /* one type key */
        }
        if (len + 1 < outsz)
            len += (size_t)snprintf(out + len, outsz - len, ")");
    }
    if (len + 1 < outsz)
        len += (size_t)snprintf(out + len, outsz - len, "}");
    return len >= outsz ? outsz - 1 : len;
}

/* Append to out (len bytes written so far) one member of a WriteRequest
 * as Lombok prints it: open (e.g. "PutRequest(item="), r's map member,
 * ")"; or "null" when r is absent. Returns the new length, which may pass
 * outsz: the callers only append while len + 1 < outsz. */
static size_t
lombok_request_str(const json_t *r, const char *open, const char *member,
                   char *out, size_t outsz, size_t len)
{
    if (len + 1 >= outsz)
        return len;
    if (!json_is_object(r))
        return len + (size_t)snprintf(out + len, outsz - len, "null");
    len += (size_t)snprintf(out + len, outsz - len, "%s", open);
    if (len + 1 < outsz)
        len += lombok_avmap_str(json_object_get(r, member), out + len,
                                outsz - len);
    if (len + 1 < outsz)
        len += (size_t)snprintf(out + len, outsz - len, ")");
    return len;
}

/* One WriteRequest as the service's Lombok toString() prints it in a
 * "Map keys must satisfy" error: WriteRequest(putRequest=PutRequest(item=
 * {pk=AttributeValue(S=x)}), deleteRequest=null) (us-east-1, 2026-10:
 * paritysuite/dynamodb-conformance error-messages/batchWriteItem.test.ts
 * pins the shape up to the item). */
static size_t
write_request_str(const json_t *wr, char *out, size_t outsz)
{
    size_t len;

    len = (size_t)snprintf(out, outsz, "WriteRequest(putRequest=");
    if (len + 1 >= outsz)
        return outsz - 1;
    len = lombok_request_str(json_object_get(wr, "PutRequest"),
                             "PutRequest(item=", "Item", out, outsz, len);
    if (len + 1 < outsz)
        len += (size_t)snprintf(out + len, outsz - len, ", deleteRequest=");
    len = lombok_request_str(json_object_get(wr, "DeleteRequest"),
                             "DeleteRequest(key=", "Key", out, outsz, len);
    if (len + 1 < outsz)
        len += (size_t)snprintf(out + len, outsz - len, ")");
    return len >= outsz ? outsz - 1 : len;
}

/*
 * How DynamoDB prints RequestItems in a "Map keys/value must satisfy"
 * error. BatchGetItem echoes the map as JSON ({"t":{"Keys":[...]}});
 * BatchWriteItem as Java's Map.toString(), {table=[WriteRequest(...), ...]}
 * (e.g. "{t=[]}"). Both as DynamoDB answered in us-east-1 and eu-west-2,
 * 2026-10 (paritysuite/dynamodb-conformance error-messages/batchGetItem,
 * batchWriteItem.test.ts).
 */
static void
java_map_str(const struct vfield *f, const json_t *map, char *out,
             size_t outsz)
{
    const struct vfield *vf = f->sub;
    size_t len = 0, i;
    const char *k;
    json_t *x, *e;
    bool first = true;

#define JM_ADD(...)                                                         \
    do {                                                                    \
        if (len + 1 < outsz) {                                              \
            int n_ = snprintf(out + len, outsz - len, __VA_ARGS__);         \
            len = n_ < 0 ? len : len + (size_t)n_;                          \
            if (len >= outsz)                                               \
                len = outsz - 1;                                            \
        }                                                                   \
    } while (0)
    if (outsz == 0)
        return;
    out[0] = '\0';
    if (vf->type == T_STRUCT) {
        value_str(map, out, outsz);
        return;
    }
    JM_ADD("{");
    json_object_foreach((json_t *)map, k, x) {
        JM_ADD("%s%s=", first ? "" : ", ", k);
        first = false;
        if (x == NULL || json_is_null(x)) {
            JM_ADD("null");
        } else if (vf->type == T_LIST && json_is_array(x)) {
            JM_ADD("[");
            json_array_foreach(x, i, e) {
                JM_ADD("%s", i > 0 ? ", " : "");
                if (len + 1 < outsz)
                    len += write_request_str(e, out + len, outsz - len);
            }
            JM_ADD("]");
        } else if (vf->type == T_STRUCT) {
            if (len + 1 < outsz)
                len += java_obj_str(vf->cls ? vf->cls : "", x, out + len,
                                    outsz - len);
        } else {
            value_str(x, out + len, outsz - len);
            len += strlen(out + len);
        }
    }
    JM_ADD("}");
#undef JM_ADD
}

/* Characters (UTF-16 units) in n bytes of UTF-8. */
long long
validate_utf16_len(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    long long units = 0;
    size_t i;

    for (i = 0; i < n; i++) {
        if ((p[i] & 0xC0) == 0x80)
            continue;                   /* continuation byte */
        units += (p[i] >= 0xF0) ? 2 : 1;        /* astral: surrogate pair */
    }
    return units;
}

/* Whether the n bytes at s match NAME_PATTERN. */
bool
validate_is_name(const char *s, size_t n)
{
    size_t i;

    if (n == 0)
        return false;
    for (i = 0; i < n; i++) {
        char c = s[i];

        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
              (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-'))
            return false;
    }
    return true;
}

/* A RequestItems key: a table name (3..255, NAME_PATTERN) or a table ARN
 * (1..1024). */
static bool
is_table_key(const char *k, bool *is_arn)
{
    long long n = validate_utf16_len(k, strlen(k));

    *is_arn = strncmp(k, "arn:", 4) == 0;
    if (*is_arn)
        return n >= 1 && n <= 1024;
    return n >= 3 && n <= 255 && validate_is_name(k, strlen(k));
}

/* The map-level constraints of RequestItems, one error per offending
 * key or value, in DynamoDB's order: keys, then values. */
static void
check_map_entries(const struct vfield *f, const json_t *v, const char *path,
                  struct verrs *ve)
{
    char val[VALUE_STR_MAX], msg[256];
    const char *k;
    json_t *x;
    bool arn, have_val = false;

    if ((f->flags & F_MAPKEYS_TABLE) &&
        !((f->flags & F_MAPKEYS_YIELD) && ve->n > 0)) {
        json_object_foreach((json_t *)v, k, x) {
            if (is_table_key(k, &arn))
                continue;
            if (!have_val)
                java_map_str(f, v, val, sizeof(val));
            have_val = true;
            if (arn)
                snprintf(msg, sizeof(msg), "Map keys must satisfy "
                         "constraint: [Member must have length less than "
                         "or equal to 1024, Member must have length greater "
                         "than or equal to 1]");
            else
                snprintf(msg, sizeof(msg), "Map keys must satisfy "
                         "constraint: [Member must have length less than "
                         "or equal to 255, Member must have length greater "
                         "than or equal to 3, Member must satisfy regular "
                         "expression pattern: " NAME_PATTERN "]");
            add_error_str(ve, val, path, msg);
        }
    }
    if (f->flags & F_MAPVALLEN) {
        json_object_foreach((json_t *)v, k, x) {
            long long n;

            n = (long long)json_array_size(x);   /* null counts as 0 */
            if (n >= f->vminlen && n <= f->vmaxlen)
                continue;
            if (n > f->vmaxlen && (f->flags & F_GEN_MAX)) {
                char gp[PATH_MAX_LEN];

                generic_path(path, f->name, msg, sizeof(msg));
                snprintf(gp, sizeof(gp), "%s.%s.member", msg, k);
                snprintf(msg, sizeof(msg), "Member must have length less "
                         "than or equal to %lld", f->vmaxlen);
                add_error_generic(ve, gp, msg);
                continue;
            }
            if (!have_val)
                java_map_str(f, v, val, sizeof(val));
            have_val = true;
            snprintf(msg, sizeof(msg), "Map value must satisfy constraint: "
                     "[Member must have length less than or equal to %lld, "
                     "Member must have length greater than or equal to "
                     "%lld]", f->vmaxlen, f->vminlen);
            add_error_str(ve, val, path, msg);
        }
    }
}

/* Append n bytes of s at out[*len], truncating to outsz - 1 bytes. */
static void
path_put(char *out, size_t outsz, size_t *len, const char *s, size_t n)
{
    if (*len + n >= outsz)
        n = outsz - 1 - *len;
    memcpy(out + *len, s, n);
    *len += n;
}

/* path + "." + lowerFirst(name), truncated to outsz - 1 bytes (on every
 * request for every schema field present: no snprintf). */
static void
join_path(char *out, size_t outsz, const char *parent, const char *name)
{
    size_t len = 0, first = 0;

    if (outsz == 0)
        return;
    if (parent[0] != '\0') {
        path_put(out, outsz, &len, parent, strlen(parent));
        path_put(out, outsz, &len, ".", 1);
        first = strlen(parent) + 1;
    }
    path_put(out, outsz, &len, name, strlen(name));
    out[len] = '\0';
    if (first < len && out[first] >= 'A' && out[first] <= 'Z')
        out[first] = (char)(out[first] - 'A' + 'a');
}

/* Length as DynamoDB counts it: characters (UTF-16 units) of a string,
 * elements of a list or map. */
static long long
value_len(const json_t *v)
{
    if (json_is_string(v))
        return validate_utf16_len(json_string_value(v),
                                  json_string_length(v));
    if (json_is_array(v))
        return (long long)json_array_size(v);
    if (json_is_object(v))
        return (long long)json_object_size(v);
    return 0;
}

/* Integer parameters arrive as JSON numbers; DynamoDB truncates
 * fractions. */
static long long
int_value(const json_t *v)
{
    if (json_is_integer(v))
        return (long long)json_integer_value(v);
    double d = json_real_value(v);         /* a parameter, not an N value */
    long long n;

    if (d >= 9.2e18)
        return 9200000000000000000LL;
    if (d <= -9.2e18)
        return -9200000000000000000LL;
    n = (long long)d;
    return (d < 0 && (double)n != d) ? n - 1 : n;
}

static void check_fields(const struct vfield *fields, const json_t *obj,
                         const char *parent, struct verrs *ve);

/* A length error: in the validation framework's generic form when
 * generic (F_GEN_MIN, F_GEN_MAX), else echoing the value; F_JAVALIST lists
 * of structs print as Java's List.toString() of model objects,
 * [cls@hash, ...]. */
static void
add_length_error(const struct vfield *f, const json_t *v, const char *path,
                 const char *constraint, bool generic, struct verrs *ve)
{
    char val[VALUE_STR_MAX], gpath[PATH_MAX_LEN];
    size_t len = 0, i;
    json_t *e;

    if (generic) {
        generic_path(path, f->name, gpath, sizeof(gpath));
        add_error_generic(ve, gpath, constraint);
        return;
    }
    if (!(f->flags & F_JAVALIST) || !json_is_array(v) || f->sub == NULL) {
        add_error(ve, v, path, constraint);
        return;
    }
    len = (size_t)snprintf(val, sizeof(val), "[");
    json_array_foreach(v, i, e) {
        if (len + 3 >= sizeof(val))
            break;
        if (i > 0)
            len += (size_t)snprintf(val + len, sizeof(val) - len, ", ");
        len += java_obj_str(f->sub->cls ? f->sub->cls : "", e, val + len,
                            sizeof(val) - len);
    }
    if (len + 1 < sizeof(val))
        snprintf(val + len, sizeof(val) - len, "]");
    add_error_str(ve, val, path, constraint);
}

/* Check f's constraints on v (NULL when absent) at path. */
static void
check_field(const struct vfield *f, const json_t *v, const char *path,
            struct verrs *ve)
{
    char msg[256];
    char sub[PATH_MAX_LEN];
    const char *const *e;
    const char *k;
    json_t *x;
    size_t i;

    if (v == NULL || json_is_null(v)) {
        if (f->flags & F_NOTNULL)
            add_error(ve, NULL, path, "Member must not be null");
        return;
    }
    /* TableName takes a table ARN as well as a name (service model: length
     * 1..1024, checked first). A plain name then gets the classic checks,
     * which DynamoDB reports as ValidationException (test_tables.py
     * test_bad_table_name_pattern, test_table_name_too_long). */
    if ((f->flags & F_TABLENAME) && json_is_string(v) &&
        value_len(v) >= f->minlen && value_len(v) <= f->maxlen &&
        strncmp(json_string_value(v), "arn:", 4) != 0) {
        static const struct vfield plain = {
            .name = "TableName", .type = T_STR,
            .flags = F_PATTERN | F_MINLEN | F_MAXLEN,
            .minlen = 3, .maxlen = 255 };

        check_field(&plain, v, path, ve);
        return;
    }
    if ((f->flags & F_PATTERN) && json_is_string(v) &&
        !validate_is_name(json_string_value(v),
                          json_string_length(v)))
        add_error(ve, v, path, "Member must satisfy regular expression "
                               "pattern: " NAME_PATTERN);
    if ((f->flags & F_MINLEN) && value_len(v) < f->minlen) {
        snprintf(msg, sizeof(msg), "Member must have length greater than or "
                 "equal to %lld", f->minlen);
        add_length_error(f, v, path, msg, f->flags & F_GEN_MIN, ve);
    }
    if ((f->flags & F_MAXLEN) && value_len(v) > f->maxlen) {
        snprintf(msg, sizeof(msg), "Member must have length less than or "
                 "equal to %lld", f->maxlen);
        add_length_error(f, v, path, msg, f->flags & F_GEN_MAX, ve);
    }
    /* One entry for the list, naming the element type's constraints as
     * the framework does for map values ("Map value must satisfy
     * constraint: [...]", BatchWriteItem's recorded form). */
    if ((f->flags & F_ELEMLEN) && json_is_array(v)) {
        json_array_foreach(v, i, x) {
            if (json_is_string(x) && (value_len(x) < f->vminlen ||
                                      value_len(x) > f->vmaxlen)) {
                snprintf(msg, sizeof(msg), "Member must satisfy constraint: "
                         "[Member must have length less than or equal to "
                         "%lld, Member must have length greater than or "
                         "equal to %lld]", f->vmaxlen, f->vminlen);
                add_error(ve, v, path, msg);
                break;
            }
        }
    }
    if ((f->type == T_INT || f->type == T_LONG) && json_is_number(v)) {
        long long n = int_value(v);
        json_t *shown = json_integer(n);

        if ((f->flags & F_MINVAL) && n < f->minval) {
            snprintf(msg, sizeof(msg), "Member must have value greater than "
                     "or equal to %lld", f->minval);
            add_error(ve, shown, path, msg);
        }
        if ((f->flags & F_MAXVAL) && n > f->maxval) {
            snprintf(msg, sizeof(msg), "Member must have value less than or "
                     "equal to %lld", f->maxval);
            add_error(ve, shown, path, msg);
        }
        json_decref(shown);
    }
    if ((f->flags & (F_MAPKEYS_TABLE | F_MAPVALLEN)) && json_is_object(v) &&
        !(f->flags & F_MAPKEYS_EARLY))
        check_map_entries(f, v, path, ve);
    if (f->enums != NULL && json_is_string(v)) {
        const char *s = json_string_value(v);
        bool found = false;
        size_t len = 0;

        for (e = f->enums; *e != NULL; e++)
            if (strcmp(*e, s) == 0 &&
                strlen(*e) == json_string_length(v))
                found = true;
        if (!found) {
            len = (size_t)snprintf(msg, sizeof(msg),
                                   "Member must satisfy enum value set: [");
            for (e = f->enums; *e != NULL && len < sizeof(msg); e++)
                len += (size_t)snprintf(msg + len, sizeof(msg) - len, "%s%s",
                                        e == f->enums ? "" : ", ", *e);
            if (len < sizeof(msg))
                snprintf(msg + len, sizeof(msg) - len, "]");
            add_error(ve, v, path, msg);
        }
    }
    switch (f->type) {
    case T_STRUCT:
        check_fields(f->sub, v, path, ve);
        break;
    case T_LIST:
        if (f->sub->type != T_STRUCT)
            break;
        json_array_foreach(v, i, x) {
            snprintf(sub, sizeof(sub), "%s.%zu.member", path, i + 1);
            check_field(f->sub, x, sub, ve);
        }
        break;
    case T_MAP:
        /* Struct values, or lists of structs (BatchWriteItem). */
        if (f->sub->type != T_STRUCT &&
            !(f->sub->type == T_LIST && f->sub->sub->type == T_STRUCT))
            break;
        json_object_foreach((json_t *)v, k, x) {
            snprintf(sub, sizeof(sub), "%s.%s.member", path, k);
            check_field(f->sub, x, sub, ve);
        }
        break;
    default:
        break;
    }
}

static void
check_fields(const struct vfield *fields, const json_t *obj,
             const char *parent, struct verrs *ve)
{
    const struct vfield *f, *hit[STRUCT_FAST_MAX];
    const json_t *val[STRUCT_FAST_MAX];
    char path[PATH_MAX_LEN];
    size_t nhit = 0, j = 0;
    bool small = small_members(fields, obj, hit, val, &nhit);

/* obj's member f (NULL when absent or null): from hit/val, walked in
 * schema order with j, or by lookup */
#define MEMBER(f) (small ? (j < nhit && hit[j] == (f) ? val[j++] : NULL) \
                         : json_object_get(obj, (f)->name))

    for (f = fields; f->name != NULL; f++) {
        const json_t *v = MEMBER(f);

        if ((f->flags & F_MAPKEYS_EARLY) && json_is_object(v)) {
            join_path(path, sizeof(path), parent, f->name);
            check_map_entries(f, v, path, ve);
        }
    }
    j = 0;
    for (f = fields; f->name != NULL; f++) {
        const json_t *v = MEMBER(f);

        /* check_field() has nothing to say about an absent optional
         * member: skip building its path (most of the schema). */
        if ((v == NULL || json_is_null(v)) && !(f->flags & F_NOTNULL))
            continue;
        join_path(path, sizeof(path), parent, f->name);
        if ((f->flags & F_KEEPCASE) && parent[0] == '\0')
            path[0] = f->name[0];
        check_field(f, v, path, ve);
    }
#undef MEMBER
}

/* ------------------------------------------------------------------------
 * Attribute names: at most ATTR_NAME_MAX (65535) bytes wherever a request
 * carries one: the keys of Item, Key, M values at any depth,
 * AttributeUpdates, Expected and the filters, the values of
 * ExpressionAttributeNames, and AttributesToGet. DynamoDB answers "1
 * validation error detected: Attribute name is too large, must be less
 * than 65536 bytes" for PutItem names, nested map keys (also inside an
 * UpdateItem :value) and ExpressionAttributeNames (measured against the
 * service, ExtendDB issue #365; Alternator test_limits.py
 * test_limit_attribute_length_nonkey_bad). Any other JSON object key
 * that long (a table name in RequestItems) is no valid name either.
 * ---------------------------------------------------------------------- */

#define MSG_NAME_TOO_LARGE "1 validation error detected: Attribute name " \
    "is too large, must be less than 65536 bytes"

static bool
long_string(const json_t *v)
{
    return json_is_string(v) && json_string_length(v) > ATTR_NAME_MAX;
}

/* Whether v (found under member `member`, NULL at the top) holds a name
 * longer than ATTR_NAME_MAX bytes. */
static bool
has_long_name(const json_t *v, const char *member, int depth)
{
    const char *k;
    json_t *x;
    size_t i, klen;

    if (depth > 200)                    /* deeper is rejected elsewhere */
        return false;
    if (json_is_object(v)) {
        /* placeholders (#n, :v) have their own 255-byte limit; the
         * values of ExpressionAttributeNames are names */
        bool names = member != NULL &&
                     strcmp(member, "ExpressionAttributeNames") == 0;
        bool placeholders = names || (member != NULL &&
            strcmp(member, "ExpressionAttributeValues") == 0);

        json_object_keylen_foreach((json_t *)v, k, klen, x) {
            if (!placeholders && klen > ATTR_NAME_MAX)
                return true;
            if (names && long_string(x))
                return true;
            if (has_long_name(x, k, depth + 1))
                return true;
        }
    } else if (json_is_array(v)) {
        json_array_foreach(v, i, x) {
            if (member != NULL && strcmp(member, "AttributesToGet") == 0 &&
                long_string(x))
                return true;
            if (has_long_name(x, member, depth + 1))
                return true;
        }
    }
    return false;
}


/* ------------------------------------------------------------------------
 * Entry point
 * ---------------------------------------------------------------------- */

/* The schema's member reported alone (struct vsolo): -1 with its message
 * when req holds a string outside its values. */
static int
check_solo(const struct vsolo *so, const json_t *req, struct ddb_err *err)
{
    const json_t *v = json_object_get(req, so->name);
    const char *const *e;

    if (!json_is_string(v))
        return 0;
    for (e = so->enums; *e != NULL; e++)
        if (strcmp(json_string_value(v), *e) == 0)
            return 0;
    return ddb_err_set(err, DDB_VALIDATION, "%s", so->msg);
}

/* The schema's value layer, if any, over req; -1 with err set. */
static int
check_values(const struct api_schema *s, const json_t *req,
             struct ddb_err *err)
{
    char msg[DDB_ERR_MSG_MAX - 32];

    msg[0] = '\0';
    if (s->values == NULL || s->values(req, msg, sizeof(msg)) == 0)
        return 0;
    if (s->values_enveloped)
        return ddb_err_set(err, DDB_VALIDATION,
                           "1 validation error detected: %s", msg);
    return ddb_err_set(err, DDB_VALIDATION, "%s", msg);
}

/*
 * Check req (borrowed) against schema s (validate.h). Returns 0, or -1
 * with a SerializationException (wrong JSON type, first found) or a
 * ValidationException listing up to 10 constraint failures. A NULL
 * schema passes.
 */
int
validate_request(const struct api_schema *s, const json_t *req,
                 struct ddb_err *err)
{
    return validate_request_sized(s, req, 0, err);
}

int
validate_request_sized(const struct api_schema *s, const json_t *req,
                       size_t body_len, struct ddb_err *err)
{
    const struct vfield *fields;
    /* On the stack: an 8 KB malloc per request made glibc consolidate
     * its fast bins each time (3,500 instructions for an UpdateItem). */
    struct verrs ve;

    if (s == NULL)
        return 0;
    if (!json_is_object(req))
        return ser_err(err, "Unexpected value type in payload");
    if (check_struct_fields(s->fields, req, err) != 0)
        return -1;
    if (s->solo != NULL && check_solo(s->solo, req, err) != 0)
        return -1;
    ve.n = 0;
    ve.max = 0;
    ve.len = 0;
    ve.buf[0] = '\0';
    fields = s->fields;
    if (s->keyed != NULL && json_is_object(json_object_get(req, "Key"))) {
        fields = s->keyed;
        ve.max = 1;
    }
    check_fields(fields, req, "", &ve);
    if (ve.n > 0)
        return ddb_err_set(err, DDB_VALIDATION,
                           "%u validation error%s detected: %s", ve.n,
                           ve.n > 1 ? "s" : "", ve.buf);
    /* a JSON string's text is never shorter than the string it holds */
    if ((body_len == 0 || body_len > ATTR_NAME_MAX) &&
        has_long_name(req, NULL, 0))
        return ddb_err_set(err, DDB_VALIDATION, MSG_NAME_TOO_LARGE);
    return check_values(s, req, err);
}
