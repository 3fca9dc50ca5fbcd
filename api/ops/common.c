/* SPDX-License-Identifier: MIT */
/* op_common.c - request plumbing shared by the data-plane handlers: the
 * expression environment (expressions or translated legacy parameters),
 * the table and its key schema, and common reply members. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/throttle/capacity.h"
#include "api/index/index.h"
#include "api/ops/common.h"
#include "api/tables/tables.h"
#include "api/ops/txn_inflight.h"

/* ------------------------------------------------------------------------
 * Expressions
 * ---------------------------------------------------------------------- */

void
op_exprs_init(struct op_exprs *x)
{
    memset(x, 0, sizeof(*x));
}

/*
 * Only the mix check here: DynamoDB validates the Item/Key values and the
 * legacy conditions before ExpressionAttributeNames/Values, so the env is
 * built by the first op_exprs_parse() that needs it (or by
 * op_exprs_check_unused()).
 */
int
op_exprs_begin(struct op_exprs *x, const json_t *req, struct ddb_err *err)
{
    (void)x;
    return legacy_check_mix(req, err);
}

int
op_exprs_begin_op(struct op_exprs *x, const json_t *req, const char *op,
                  struct ddb_err *err)
{
    (void)x;
    return legacy_check_mix_op(req, op, err);
}

/* Build the env over the request's own names/values once. */
static int
exprs_env(struct op_exprs *x, const json_t *req, struct ddb_err *err)
{
    const json_t *names, *values;

    if (x->env != NULL)
        return 0;
    names = json_object_get(req, "ExpressionAttributeNames");
    values = json_object_get(req, "ExpressionAttributeValues");
    if (values != NULL && !json_is_null(values)) {
        x->values = json_deep_copy(values);
        if (x->values == NULL)
            return ddb_err_set(err, DDB_INTERNAL, "out of memory");
    }
    if (json_is_null(names))
        names = NULL;
    return expr_env_new(names, x->values, &x->env, err);
}

static const char *
expr_member(enum expr_kind kind)
{
    switch (kind) {
    case EXPR_CONDITION:     return "ConditionExpression";
    case EXPR_FILTER:        return "FilterExpression";
    case EXPR_KEY_CONDITION: return "KeyConditionExpression";
    case EXPR_PROJECTION:    return "ProjectionExpression";
    case EXPR_UPDATE:        return "UpdateExpression";
    }
    return NULL;
}

static const char *
legacy_member(enum expr_kind kind, const char *legacy_param)
{
    switch (kind) {
    case EXPR_CONDITION:     return "Expected";
    case EXPR_FILTER:        return legacy_param;
    case EXPR_KEY_CONDITION: return "KeyConditions";
    case EXPR_PROJECTION:    return "AttributesToGet";
    case EXPR_UPDATE:        return "AttributeUpdates";
    }
    return NULL;
}

/* Translate one legacy parameter into x->le[] and parse it in its own
 * env. */
static int
parse_legacy(struct op_exprs *x, const json_t *req, enum expr_kind kind,
             const char *member, const json_t *val, struct expr **out,
             struct ddb_err *err)
{
    const json_t *cop = json_object_get(req, "ConditionalOperator");
    struct legacy_expr *le;
    struct expr_env **env;
    int rc;

    if (x->nlegacy >= OP_LEGACY_MAX)
        return ddb_err_set(err, DDB_INTERNAL, "too many legacy parameters");
    le = &x->le[x->nlegacy];
    env = &x->lenv[x->nlegacy];
    memset(le, 0, sizeof(*le));
    x->nlegacy++;

    switch (kind) {
    case EXPR_CONDITION:
        rc = legacy_expected(val, cop, le, err);
        break;
    case EXPR_FILTER:
        rc = legacy_filter(val, cop, member, le, err);
        break;
    case EXPR_KEY_CONDITION:
        rc = legacy_key_conditions(val, le, err);
        break;
    case EXPR_PROJECTION:
        rc = legacy_attributes_to_get(val, le, err);
        break;
    case EXPR_UPDATE:
        rc = legacy_attribute_updates(val, le, err);
        break;
    default:
        rc = ddb_err_set(err, DDB_INTERNAL, "bad expression kind");
        break;
    }
    if (rc != 0)
        return -1;
    if (le->text == NULL || le->text[0] == '\0')
        return 0;                   /* e.g. "Expected": {} */
    /* A translation may need no names or no values (Exists: false): an
     * empty synthetic map is "absent", not "must not be empty". */
    if (expr_env_new(json_object_size(le->names) ? le->names : NULL,
                     json_object_size(le->values) ? le->values : NULL, env,
                     err) != 0)
        return -1;
    *out = expr_parse(*env, kind, le->text, err);
    return *out == NULL ? -1 : 0;
}

int
op_exprs_parse(struct op_exprs *x, const json_t *req, enum expr_kind kind,
               const char *legacy_param, struct expr **out,
               struct ddb_err *err)
{
    const char *emember = expr_member(kind);
    const char *lmember = legacy_member(kind, legacy_param);
    const json_t *val;

    *out = NULL;
    val = emember != NULL ? json_object_get(req, emember) : NULL;
    if (val != NULL && !json_is_null(val)) {
        if (!json_is_string(val))
            return ddb_err_set(err, DDB_SERIALIZATION,
                               "NUMBER_VALUE cannot be converted to String");
        if (exprs_env(x, req, err) != 0)
            return -1;
        *out = expr_parse(x->env, kind, json_string_value(val), err);
        return *out == NULL ? -1 : 0;
    }
    val = lmember != NULL ? json_object_get(req, lmember) : NULL;
    if (val != NULL && !json_is_null(val))
        return parse_legacy(x, req, kind, lmember, val, out, err);
    return 0;
}

int
op_exprs_check_unused(struct op_exprs *x, const json_t *req,
                      struct ddb_err *err)
{
    /* The env is NULL when no expression was parsed; build it anyway so
     * bad or unused maps are reported (nothing to do without maps: the
     * GetItem hot path). */
    if (x->env == NULL &&
        json_object_get(req, "ExpressionAttributeNames") == NULL &&
        json_object_get(req, "ExpressionAttributeValues") == NULL)
        return 0;
    if (exprs_env(x, req, err) != 0)
        return -1;
    return expr_env_check_unused(x->env, err);
}

void
op_exprs_fini(struct op_exprs *x)
{
    unsigned i;

    for (i = 0; i < x->nlegacy; i++) {
        expr_env_free(x->lenv[i]);
        legacy_expr_fini(&x->le[i]);
    }
    expr_env_free(x->env);
    json_decref(x->values);
    memset(x, 0, sizeof(*x));
}

/* ------------------------------------------------------------------------
 * Table
 * ---------------------------------------------------------------------- */

int
op_table_open(struct api_ctx *ctx, const json_t *req, struct op_table *ot,
              struct ddb_err *err)
{
    json_t *desc = NULL;
    int rc = -1;

    memset(ot, 0, sizeof(*ot));
    /* No description copy per request: only the key schema is read. */
    if (api_open_table_ref(ctx, req, &ot->t, &desc, err) != 0) {
        ot->t = NULL;
        return -1;
    }
    if (desc == NULL) {
        ddb_err_set(err, DDB_INTERNAL, "table has no description");
        goto out;
    }
    if (key_schema_from_desc(desc, &ot->ks, err) != 0)
        goto out;
    ot->name = stable_name(ot->t);
    rc = 0;
out:
    json_decref(desc);
    if (rc != 0)
        op_table_close(ot);
    return rc;
}

void
op_table_close(struct op_table *ot)
{
    if (ot->t != NULL)
        stable_release(ot->t);
    ot->t = NULL;
    ot->name = NULL;
}

/* ------------------------------------------------------------------------
 * Key attributes in expressions
 * ---------------------------------------------------------------------- */

static bool
is_ident_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9') || c == '_';
}

static bool
is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* The attribute name a path head token names: itself, or the
 * ExpressionAttributeNames value for a #name. NULL if unknown. */
static const char *
head_name(const char *s, size_t n, const json_t *names, char *buf,
          size_t bufsz)
{
    if (n >= bufsz)
        return NULL;
    memcpy(buf, s, n);
    buf[n] = '\0';
    if (buf[0] == '#')
        return json_string_value(json_object_get(names, buf));
    return buf;
}

int
op_check_key_scalars(const json_t *req, const char *member,
                     const struct key_schema *ks, struct ddb_err *err)
{
    const char *text = json_string_value(json_object_get(req, member));
    const json_t *names = json_object_get(req, "ExpressionAttributeNames");
    const char *p = text;
    char prev = 0;                  /* last significant character */
    char buf[1024];

    if (text == NULL)
        return 0;
    while (*p != '\0') {
        const char *s, *q, *name;
        char sigil;

        if (is_space(*p)) {
            p++;
            continue;
        }
        if (*p != ':' && *p != '#' && !is_ident_char(*p)) {
            prev = *p++;
            continue;
        }
        sigil = (*p == ':' || *p == '#') ? *p : 0;
        s = p;
        if (sigil)
            p++;
        while (is_ident_char(*p))
            p++;
        for (q = p; is_space(*q); q++)
            ;
        /* A path head: not a :value, not after '.', not a list index, and
         * followed by '.' or '[' (function names are followed by '('). */
        if (sigil != ':' && prev != '.' && prev != '[' &&
            (*q == '.' || *q == '[')) {
            name = head_name(s, (size_t)(p - s), names, buf, sizeof(buf));
            if (name != NULL &&
                (strcmp(name, ks->hash_name) == 0 ||
                 (ks->range_name[0] != '\0' &&
                  strcmp(name, ks->range_name) == 0)))
                return ddb_err_set(err, DDB_VALIDATION,
                                   "Key attributes must be scalars; list "
                                   "random access '[]' and map lookup '.' "
                                   "are not allowed: Key: %s", name);
        }
        prev = 'a';
    }
    return 0;
}

/* ------------------------------------------------------------------------
 * Reply members
 * ---------------------------------------------------------------------- */

void
op_add_capacity(json_t *resp, const json_t *req, const char *table,
                double units)
{
    json_t *cc = capacity_json(json_object_get(req, "ReturnConsumedCapacity"),
                               table, units);

    if (cc != NULL)
        json_object_set_new(resp, "ConsumedCapacity", cc);
}

int
op_condition_failed(const json_t *req, const json_t *old,
                    struct ddb_err *err)
{
    const char *rv = json_string_value(
        json_object_get(req, "ReturnValuesOnConditionCheckFailure"));

    ddb_err_set(err, DDB_CONDITIONAL_CHECK_FAILED,
                "The conditional request failed");
    if (err != NULL && old != NULL && rv != NULL &&
        strcmp(rv, "ALL_OLD") == 0)
        ddb_err_extra_set_new(err, "Item", json_deep_copy(old));
    return -1;
}

int
op_item_copy_validate(const json_t *req, const char *member, json_t **out,
                      struct ddb_err *err)
{
    const json_t *m = json_object_get(req, member);

    *out = NULL;
    if (m == NULL || json_is_null(m))
        return 0;
    *out = json_deep_copy(m);
    if (*out == NULL)
        return ddb_err_set(err, DDB_INTERNAL, "out of memory");
    if (item_validate(*out, err) != 0) {
        json_decref(*out);
        *out = NULL;
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------------
 * Clock
 * ---------------------------------------------------------------------- */

uint64_t
api_now_ms(struct api_server *srv)
{
    struct timespec ts;

    if (srv != NULL && srv->virtual_clock)
        return atomic_load(&srv->vclock_ms);
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static uint64_t
mono_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* Read a non-negative integer member (JSON integer, or a real with no
 * fraction). -1 if present but not one, 0 if absent, 1 if read. */
static int
get_uint(const json_t *o, const char *key, uint64_t *out)
{
    const json_t *v = json_object_get(o, key);

    if (v == NULL)
        return 0;
    if (json_is_integer(v) && json_integer_value(v) >= 0) {
        *out = (uint64_t)json_integer_value(v);
        return 1;
    }
    return -1;
}

int
api_admin_clock(struct api_server *srv, bool post, const json_t *req,
                json_t **resp, struct ddb_err *err)
{
    uint64_t adv = 0, set = 0;
    int ha, hs;

    if (post) {
        if (!srv->virtual_clock)
            return ddb_err_set(err, DDB_VALIDATION, "The virtual clock is "
                               "off: start shardlocal with --virtual-clock");
        if (!json_is_object(req))
            return ddb_err_set(err, DDB_VALIDATION,
                               "Expected {\"advance_ms\": N} or "
                               "{\"set_ms\": N}");
        ha = get_uint(req, "advance_ms", &adv);
        hs = get_uint(req, "set_ms", &set);
        if (ha < 0 || hs < 0 || ha + hs != 1)
            return ddb_err_set(err, DDB_VALIDATION,
                               "Expected {\"advance_ms\": N} or "
                               "{\"set_ms\": N} with N a non-negative "
                               "integer");
        if (ha) {
            atomic_fetch_add(&srv->vclock_ms, adv);
        } else {
            uint64_t cur = atomic_load(&srv->vclock_ms);

            do {
                if (set < cur)
                    return ddb_err_set(err, DDB_VALIDATION, "The virtual "
                                       "clock cannot go backwards (now_ms "
                                       "%llu)", (unsigned long long)cur);
            } while (!atomic_compare_exchange_weak(&srv->vclock_ms, &cur,
                                                   set));
        }
    }
    *resp = json_pack("{s:b, s:I}", "virtual", srv->virtual_clock,
                      "now_ms", (json_int_t)api_now_ms(srv));
    return 0;
}

/* ------------------------------------------------------------------------
 * Fault injection: rules that throttle a fraction of a table's requests
 * (or of one key's) or the next N of them, with the real exceptions.
 * ---------------------------------------------------------------------- */

#define FAULTS_MAX 64

struct fault_rule {
    char table[256];
    json_t *key;                    /* owned: the AttributeValue, or NULL */
    uint8_t kb[KEY_BYTES_MAX];      /* its encoding */
    size_t kb_len;
    int op;                         /* -1 any, else enum throttle_op */
    double fraction;                /* of matching requests (not a
                                       DynamoDB number); 1 when only count */
    bool limited;                   /* count applies */
    uint64_t left;                  /* throttles left when limited */
    uint64_t seen, fired;
    enum throttle_cause cause;
};

struct api_faults {
    pthread_mutex_t mu;
    atomic_size_t n;                /* read without the lock: fast path */
    struct fault_rule r[FAULTS_MAX];
};

struct api_faults *
api_faults_new(void)
{
    struct api_faults *f = calloc(1, sizeof(*f));

    if (f == NULL)
        abort();
    pthread_mutex_init(&f->mu, NULL);
    atomic_init(&f->n, 0);
    return f;
}

void
api_faults_free(struct api_faults *f)
{
    size_t i;

    if (f == NULL)
        return;
    for (i = 0; i < atomic_load(&f->n); i++)
        json_decref(f->r[i].key);
    pthread_mutex_destroy(&f->mu);
    free(f);
}

static const char *const cause_names[THROTTLE_CAUSE_COUNT] = {
    [THROTTLE_OK] = "None",
    [THROTTLE_KEY_RANGE] = "KeyRange",
    [THROTTLE_PROVISIONED] = "ProvisionedThroughput",
    [THROTTLE_MAX_ON_DEMAND] = "MaxOnDemand",
    [THROTTLE_ACCOUNT_LIMIT] = "AccountLimit",
};

/* Remove rule i (lock held). */
static void
fault_remove(struct api_faults *f, size_t i)
{
    size_t n = atomic_load(&f->n);

    json_decref(f->r[i].key);
    memmove(&f->r[i], &f->r[i + 1], (n - i - 1) * sizeof(f->r[0]));
    atomic_store(&f->n, n - 1);
}

static json_t *
fault_json(const struct fault_rule *r)
{
    json_t *o = json_pack("{s:s, s:s, s:s, s:f, s:I, s:I}", "table",
                          r->table, "op",
                          r->op < 0 ? "any"
                                    : r->op == THROTTLE_READ ? "read"
                                                             : "write",
                          "cause", cause_names[r->cause], "fraction",
                          r->fraction, "seen", (json_int_t)r->seen, "fired",
                          (json_int_t)r->fired);

    if (o == NULL)
        return json_object();
    if (r->key != NULL)
        json_object_set(o, "key", r->key);
    if (r->limited)
        json_object_set_new(o, "count", json_integer((json_int_t)r->left));
    return o;
}

/* Parse a rule from req into r. -1 with err on a bad member. */
static int
fault_parse(const json_t *req, struct fault_rule *r, struct ddb_err *err)
{
    const char *table = json_string_value(json_object_get(req, "table"));
    const char *op = json_string_value(json_object_get(req, "op"));
    const char *cause = json_string_value(json_object_get(req, "cause"));
    const json_t *key = json_object_get(req, "key");
    const json_t *frac = json_object_get(req, "fraction");
    uint64_t count = 0;
    int hc;
    size_t i;

    memset(r, 0, sizeof(*r));
    if (table == NULL || table[0] == '\0' || strlen(table) >= sizeof(r->table))
        return ddb_err_set(err, DDB_VALIDATION,
                           "A fault rule needs \"table\" (a table name)");
    strcpy(r->table, table);
    r->op = -1;
    if (op != NULL && strcmp(op, "read") == 0)
        r->op = THROTTLE_READ;
    else if (op != NULL && strcmp(op, "write") == 0)
        r->op = THROTTLE_WRITE;
    else if (op != NULL && strcmp(op, "any") != 0)
        return ddb_err_set(err, DDB_VALIDATION,
                           "\"op\" must be read, write or any");
    r->cause = THROTTLE_KEY_RANGE;
    if (cause != NULL) {
        for (i = 1; i < THROTTLE_CAUSE_COUNT; i++)
            if (strcmp(cause, cause_names[i]) == 0)
                break;
        if (i == THROTTLE_CAUSE_COUNT)
            return ddb_err_set(err, DDB_VALIDATION, "\"cause\" must be "
                               "KeyRange, ProvisionedThroughput, "
                               "MaxOnDemand or AccountLimit");
        r->cause = (enum throttle_cause)i;
    }
    if (key != NULL) {
        const json_t *n = json_object_get(key, "N");
        json_t *canon = NULL;
        long len;

        if (json_is_string(n)) {
            char buf[NUM_TEXT_MAX];

            if (num_canonical(json_string_value(n), buf, err) != 0)
                return -1;
            canon = json_pack("{s:s}", "N", buf);
        } else {
            canon = json_deep_copy(key);
        }
        len = canon != NULL ? key_encode_value(canon, r->kb) : -1;
        if (len < 0) {
            json_decref(canon);
            return ddb_err_set(err, DDB_VALIDATION, "\"key\" must be a key "
                               "AttributeValue: {\"S\"|\"N\"|\"B\": ...}");
        }
        r->kb_len = (size_t)len;
        r->key = canon;
    }
    hc = get_uint(req, "count", &count);
    if (hc < 0)
        goto bad;
    r->limited = hc == 1;
    r->left = count;
    r->fraction = 1.0;
    if (frac != NULL) {
        if (!json_is_number(frac) || json_number_value(frac) < 0 ||
            json_number_value(frac) > 1)
            goto bad;
        r->fraction = json_number_value(frac);
    } else if (!r->limited) {
        goto bad;
    }
    return 0;
bad:
    json_decref(r->key);
    r->key = NULL;
    return ddb_err_set(err, DDB_VALIDATION, "A fault rule needs \"count\" "
                       "(a non-negative integer) and/or \"fraction\" "
                       "(0 to 1)");
}

int
api_admin_faults(struct api_server *srv, bool post, const json_t *req,
                 json_t **resp, struct ddb_err *err)
{
    struct api_faults *f = srv->faults;
    struct fault_rule r;
    json_t *list;
    size_t i;

    /* {"pause_ms": ...}: transaction pause rules (txn_inflight.c) */
    if (post && json_object_get(req, "pause_ms") != NULL)
        return txn_inflight_pause_admin(srv, req, resp, err);
    if (f == NULL)
        return ddb_err_set(err, DDB_VALIDATION, "Fault injection is not "
                           "available");
    if (post && !json_is_object(req))
        return ddb_err_set(err, DDB_VALIDATION, "Expected a JSON object");
    if (post && json_is_true(json_object_get(req, "clear"))) {
        const char *table = json_string_value(json_object_get(req, "table"));

        pthread_mutex_lock(&f->mu);
        for (i = atomic_load(&f->n); i-- > 0;)
            if (table == NULL || strcmp(f->r[i].table, table) == 0)
                fault_remove(f, i);
        pthread_mutex_unlock(&f->mu);
    } else if (post) {
        if (fault_parse(req, &r, err) != 0)
            return -1;
        pthread_mutex_lock(&f->mu);
        i = atomic_load(&f->n);
        if (i == FAULTS_MAX) {
            pthread_mutex_unlock(&f->mu);
            json_decref(r.key);
            return ddb_err_set(err, DDB_VALIDATION, "Too many fault rules "
                               "(at most %d)", FAULTS_MAX);
        }
        f->r[i] = r;
        atomic_store(&f->n, i + 1);
        pthread_mutex_unlock(&f->mu);
    }
    list = json_array();
    pthread_mutex_lock(&f->mu);
    for (i = 0; i < atomic_load(&f->n); i++)
        json_array_append_new(list, fault_json(&f->r[i]));
    pthread_mutex_unlock(&f->mu);
    *resp = json_pack("{s:o}", "rules", list);
    return 0;
}

/*
 * Does a fault rule throttle this request? Returns the cause, or
 * THROTTLE_OK. Deterministic: a rule with fraction f fires on request n
 * (counting from 1) when floor(n f) grows, so 0.5 throttles every second
 * matching request.
 */
static enum throttle_cause
fault_check(struct api_faults *f, const char *table, const uint8_t *pk,
            size_t pk_len, enum throttle_op op)
{
    enum throttle_cause c = THROTTLE_OK;
    size_t i;

    if (f == NULL || atomic_load(&f->n) == 0)
        return THROTTLE_OK;
    pthread_mutex_lock(&f->mu);
    for (i = 0; i < atomic_load(&f->n); i++) {
        struct fault_rule *r = &f->r[i];
        uint64_t before, after;

        if (strcmp(r->table, table) != 0 || (r->op >= 0 && r->op != (int)op))
            continue;
        if (r->key != NULL && (pk == NULL || pk_len != r->kb_len ||
                               memcmp(pk, r->kb, pk_len) != 0))
            continue;
        before = (uint64_t)((double)r->seen * r->fraction);
        r->seen++;
        after = (uint64_t)((double)r->seen * r->fraction);
        if (after == before)
            continue;
        r->fired++;
        c = r->cause;
        if (r->limited && --r->left == 0)
            fault_remove(f, i);
        break;
    }
    pthread_mutex_unlock(&f->mu);
    return c;
}

/* Drop every rule of table (DeleteTable). */
static void
fault_drop(struct api_faults *f, const char *table)
{
    size_t i;

    if (f == NULL || atomic_load(&f->n) == 0)
        return;
    pthread_mutex_lock(&f->mu);
    for (i = atomic_load(&f->n); i-- > 0;)
        if (strcmp(f->r[i].table, table) == 0)
            fault_remove(f, i);
    pthread_mutex_unlock(&f->mu);
}

/* ------------------------------------------------------------------------
 * Throttle log: at most one line per table per second, with the count of
 * throttles since the last line.
 * ---------------------------------------------------------------------- */

#define TLOG_SLOTS 64

static struct {
    char table[256];
    uint64_t last_ms;               /* monotonic */
    uint64_t pending;               /* throttles not logged yet */
} tlog[TLOG_SLOTS];
static pthread_mutex_t tlog_mu = PTHREAD_MUTEX_INITIALIZER;

/* Printable form of key bytes (truncated, non-printables as \xNN). */
static void
key_text(const uint8_t *pk, size_t len, char *out, size_t outsz)
{
    size_t i, o = 0;

    for (i = 0; i < len && o + 5 < outsz; i++) {
        if (pk[i] >= 0x20 && pk[i] < 0x7f && pk[i] != '"' && pk[i] != '\\')
            out[o++] = (char)pk[i];
        else
            o += (size_t)snprintf(out + o, outsz - o, "\\x%02x", pk[i]);
    }
    if (i < len && o + 4 < outsz) {
        memcpy(out + o, "...", 3);
        o += 3;
    }
    out[o] = '\0';
}

static void
throttle_log(struct api_ctx *ctx, const char *table, unsigned part,
             const uint8_t *pk, size_t pk_len, const char *reason,
             bool injected)
{
    uint64_t now = mono_ms(), count = 0;
    unsigned h = 5381;
    const char *p;
    char key[200];
    size_t slot;
    bool emit = false;

    if (ctx->srv->conf == NULL || ctx->srv->conf->log_level < LOG_INFO)
        return;
    for (p = table; *p != '\0'; p++)
        h = h * 33u + (unsigned char)*p;
    slot = h % TLOG_SLOTS;
    pthread_mutex_lock(&tlog_mu);
    if (strcmp(tlog[slot].table, table) != 0) {
        snprintf(tlog[slot].table, sizeof(tlog[slot].table), "%s", table);
        tlog[slot].last_ms = 0;
        tlog[slot].pending = 0;
    }
    tlog[slot].pending++;
    if (tlog[slot].last_ms == 0 || now - tlog[slot].last_ms >= 1000) {
        emit = true;
        count = tlog[slot].pending;
        tlog[slot].pending = 0;
        tlog[slot].last_ms = now;
    }
    pthread_mutex_unlock(&tlog_mu);
    if (!emit)
        return;
    key_text(pk, pk != NULL ? pk_len : 0, key, sizeof(key));
    fprintf(stderr, "shardlocal: throttled table=%s partition=%u key=\"%s\" "
            "reason=%s%s count=%llu (in the last second)\n", table, part,
            key, reason, injected ? " (fault injection)" : "",
            (unsigned long long)count);
}

/* ------------------------------------------------------------------------
 * Admission and charging
 * ---------------------------------------------------------------------- */

/* Serialises size and throughput splits (storage splits one at a time
 * anyway, and the throttle state must follow the same order). */
static pthread_mutex_t split_mu = PTHREAD_MUTEX_INITIALIZER;

void
op_throttle_init(struct op_throttle *th)
{
    memset(th, 0, sizeof(*th));
}

struct throttle_table *
op_throttle_table(struct api_ctx *ctx, struct stable *t)
{
    struct throttle_registry *reg = ctx->srv->throttle;
    struct throttle_table *tt;
    struct throttle_table_conf tc;
    struct throttle_limits lim;
    const char *name = stable_name(t);
    json_t *desc;

    if (reg == NULL)
        return NULL;
    tt = throttle_registry_find(reg, name, NULL);
    if (tt != NULL)
        return tt;
    desc = stable_desc_ref(t);
    memset(&tc, 0, sizeof(tc));
    if (desc == NULL ||
        throttle_conf_from_desc(desc, NULL, stable_nparts(t), &tc) != 0) {
        tc.on_demand = true;
        tc.nparts = stable_nparts(t);
        tc.arn = "";
    }
    throttle_registry_limits(reg, &lim);
    if (desc != NULL)
        throttle_limits_apply_tags(&lim, json_object_get(desc, "_slTags"));
    tt = throttle_registry_get(reg, name, NULL, &tc, &lim, ctx->now_ms);
    json_decref(desc);
    return tt;
}

/* Admission on partition part of tt (name: the table, for fault rules and
 * the log; t: the storage table read or written); the cause, with th
 * filled either way. */
static enum throttle_cause
admit_tt(struct api_ctx *ctx, struct throttle_table *tt, const char *name,
         bool is_index, struct stable *t, unsigned part, const uint8_t *pk,
         size_t pk_len, enum throttle_op op, double need,
         struct op_throttle *th, bool *injected)
{
    enum throttle_cause c = THROTTLE_OK;

    th->admitted = false;
    th->t = t;
    th->pk = NULL;
    th->pk_len = 0;
    if (pk != NULL && pk_len <= sizeof(th->pkbuf)) {
        if (pk != th->pkbuf)
            memcpy(th->pkbuf, pk, pk_len);
        th->pk = th->pkbuf;
        th->pk_len = pk_len;
    }
    th->tt = tt;
    *injected = false;
    if (th->tt == NULL)
        return THROTTLE_OK;
    if (!is_index)
        c = fault_check(ctx->srv->faults, name, pk, pk_len, op);
    if (c != THROTTLE_OK) {
        *injected = true;
    } else {
        c = throttle_admit(th->tt, part, op, need, pk, pk_len, ctx->now_ms,
                           &th->tk);
        if (c == THROTTLE_OK) {
            th->admitted = true;
            return c;
        }
    }
    throttle_log(ctx, name, part, pk, pk_len,
                 throttle_reason(is_index, op, c), *injected);
    return c;
}

static enum throttle_cause
admit_part(struct api_ctx *ctx, struct stable *t, unsigned part,
           const uint8_t *pk, size_t pk_len, enum throttle_op op,
           double need, struct op_throttle *th, bool *injected)
{
    return admit_tt(ctx, op_throttle_table(ctx, t), stable_name(t), false, t,
                    part, pk, pk_len, op, need, th, injected);
}

int
op_throttle_admit_part(struct api_ctx *ctx, struct stable *t, unsigned part,
                       const uint8_t *pk, size_t pk_len, enum throttle_op op,
                       double need, struct op_throttle *th,
                       struct ddb_err *err)
{
    enum throttle_cause c;
    bool injected;

    c = admit_part(ctx, t, part, pk, pk_len, op, need, th, &injected);
    if (c == THROTTLE_OK)
        return 0;
    return throttle_err(th->tt, op, c, err);
}

int
op_throttle_admit(struct api_ctx *ctx, struct stable *t,
                  const struct item_key *k, enum throttle_op op, double need,
                  struct op_throttle *th, struct ddb_err *err)
{
    if (ctx->srv->throttle == NULL) {
        th->admitted = false;
        th->tt = NULL;
        return 0;
    }
    memcpy(th->hash, k->hash, sizeof(th->hash));
    return op_throttle_admit_part(ctx, t, stable_part_of(t, k->hash), k->pk,
                                  k->pk_len, op, need, th, err);
}

int
op_throttle_admit_hash(struct api_ctx *ctx, struct stable *t,
                       const uint8_t hash[16], const uint8_t *pk,
                       size_t pk_len, enum throttle_op op, double need,
                       struct op_throttle *th, struct ddb_err *err)
{
    if (ctx->srv->throttle == NULL) {
        th->admitted = false;
        th->tt = NULL;
        return 0;
    }
    memcpy(th->hash, hash, sizeof(th->hash));
    return op_throttle_admit_part(ctx, t, stable_part_of(t, hash), pk,
                                  pk_len, op, need, th, err);
}

enum throttle_cause
op_throttle_try(struct api_ctx *ctx, struct stable *t,
                const struct item_key *k, enum throttle_op op, double need,
                struct op_throttle *th)
{
    bool injected;

    if (ctx->srv->throttle == NULL) {
        th->admitted = false;
        th->tt = NULL;
        return THROTTLE_OK;
    }
    memcpy(th->hash, k->hash, sizeof(th->hash));
    return admit_part(ctx, t, stable_part_of(t, k->hash), k->pk, k->pk_len,
                      op, need, th, &injected);
}

/* ------------------------------------------------------------------------
 * Global secondary indexes: their own throttle state (registry entry
 * (table, index)) over their hidden table's partitions.
 * ---------------------------------------------------------------------- */

/* The throttle state of GSI d of table, from desc (the base table's
 * description, borrowed). NULL without a registry. */
static struct throttle_table *
index_tt(struct api_ctx *ctx, const char *table, const struct index_def *d,
         const json_t *desc)
{
    struct throttle_registry *reg = ctx->srv->throttle;
    struct throttle_table *tt;
    struct throttle_table_conf tc;
    struct throttle_limits lim;

    if (reg == NULL || d->t == NULL)
        return NULL;
    tt = throttle_registry_find(reg, table, d->name);
    if (tt != NULL)
        return tt;
    if (desc == NULL ||
        throttle_conf_from_desc(desc, d->name, stable_nparts(d->t), &tc) != 0)
        return NULL;
    throttle_registry_limits(reg, &lim);
    throttle_limits_apply_tags(&lim, json_object_get(desc, "_slTags"));
    return throttle_registry_get(reg, table, d->name, &tc, &lim,
                                 ctx->now_ms);
}

int
op_throttle_admit_index(struct api_ctx *ctx, const char *table,
                        const struct index_def *d, const json_t *desc,
                        const uint8_t hash[16], const uint8_t *pk,
                        size_t pk_len, enum throttle_op op, double need,
                        struct op_throttle *th, struct ddb_err *err)
{
    struct throttle_table *tt;
    enum throttle_cause c;
    bool injected;

    th->admitted = false;
    th->tt = NULL;
    if (ctx->srv->throttle == NULL || !d->global)
        return 0;
    tt = index_tt(ctx, table, d, desc);
    if (tt == NULL)
        return 0;
    memcpy(th->hash, hash, sizeof(th->hash));
    c = admit_tt(ctx, tt, table, true, d->t, stable_part_of(d->t, hash), pk,
                 pk_len, op, need, th, &injected);
    if (c == THROTTLE_OK)
        return 0;
    return throttle_err(tt, op, c, err);
}

/* ------------------------------------------------------------------------
 * GSI back-pressure for every write path, and the item collection limit
 * ---------------------------------------------------------------------- */

void
op_gsi_gate_init(struct op_gsi_gate *g)
{
    memset(g, 0, sizeof(*g));
}

/* Forget every admission (nothing paid). */
static void
gate_reset(struct op_gsi_gate *g)
{
    size_t i;

    for (i = 0; g->th != NULL && i < g->n; i++)
        g->th[i].admitted = false;
    g->n = 0;
    g->refused = NULL;
    g->cause = THROTTLE_OK;
}

int
op_gsi_gate_admit(struct api_ctx *ctx, const char *table,
                  const struct index_set *s, const struct index_plan *p,
                  double mult, struct op_gsi_gate *g, struct ddb_err *err)
{
    double puts[INDEX_MAX];
    size_t i, j;

    gate_reset(g);
    if (ctx->srv->throttle == NULL || s == NULL || p == NULL)
        return 0;
    memset(puts, 0, sizeof(puts));
    /* The put rows' units per index: a delete pays the rest of the
     * index's units (index_plan charges the old row's size for it). */
    for (j = 0; j < p->nops; j++)
        for (i = 0; i < s->n; i++)
            if (s->idx[i].t == p->ops[j].t && p->args[j].row != NULL)
                puts[i] += capacity_write_units(p->args[j].size);
    for (j = 0; j < p->nops; j++) {
        const struct stxn_op *op = &p->ops[j];
        const struct index_def *d = NULL;
        struct throttle_table *tt;
        struct op_throttle *th;
        enum throttle_cause c;
        bool injected;
        double u;

        for (i = 0; i < s->n; i++)
            if (s->idx[i].t == op->t) {
                d = &s->idx[i];
                break;
            }
        if (d == NULL || !d->global || p->units[i] <= 0)
            continue;
        tt = index_tt(ctx, table, d, s->desc);
        if (tt == NULL)
            continue;
        u = p->args[j].row != NULL ? capacity_write_units(p->args[j].size)
                                   : p->units[i] - puts[i];
        if (u < 1)
            u = 1;
        if (g->th == NULL) {
            g->th = calloc(2 * INDEX_MAX, sizeof(*g->th));
            if (g->th == NULL)
                abort();
        }
        if (g->n >= 2 * INDEX_MAX)
            break;
        th = &g->th[g->n];
        op_throttle_init(th);
        memcpy(th->hash, op->k.hash, sizeof(th->hash));
        c = admit_tt(ctx, tt, table, true, d->t,
                     stable_part_of(d->t, op->k.hash), op->k.pk,
                     op->k.pk_len, THROTTLE_WRITE, u, th, &injected);
        if (c != THROTTLE_OK) {
            gate_reset(g);
            g->refused = tt;
            g->cause = c;
            return throttle_err(tt, THROTTLE_WRITE, c, err);
        }
        g->units[g->n] = u * mult;
        g->n++;
    }
    return 0;
}

void
op_gsi_gate_charge(struct api_ctx *ctx, struct op_gsi_gate *g)
{
    size_t i;

    for (i = 0; g->th != NULL && i < g->n; i++)
        if (g->th[i].admitted) {
            g->th[i].admitted = false;
            throttle_charge(g->th[i].tt, &g->th[i].tk, g->units[i],
                            g->th[i].pk, g->th[i].pk_len, ctx->now_ms);
        }
    g->n = 0;
}

void
op_gsi_gate_fini(struct op_gsi_gate *g)
{
    gate_reset(g);
    free(g->th);
    g->th = NULL;
}

uint64_t
op_item_collection_limit(const struct api_ctx *ctx)
{
    if (ctx->srv == NULL || ctx->srv->conf == NULL)
        return 0;
    return ctx->srv->conf->item_collection_limit;
}

void
op_write_gate_init(struct op_write_gate *w, struct api_ctx *ctx,
                   const char *table, const struct index_set *s,
                   struct stable *base, const struct item_key *k)
{
    memset(w, 0, sizeof(*w));
    w->ctx = ctx;
    w->table = table;
    w->s = s;
    w->base = base;
    w->k = k;
    op_gsi_gate_init(&w->g);
}

int
op_write_gate_fn(void *arg, const json_t *old, const json_t *new_item,
                 const struct index_plan *p, struct ddb_err *err)
{
    struct op_write_gate *w = arg;

    w->throttled = false;
    if (op_gsi_gate_admit(w->ctx, w->table, w->s, p, 1.0, &w->g,
                          err) != 0) {
        w->throttled = true;
        return -1;
    }
    if (index_collection_check(w->s, w->base, w->k, old, new_item,
                               op_item_collection_limit(w->ctx),
                               err) != 0) {
        gate_reset(&w->g);
        return -1;
    }
    return 0;
}

/* A write made partition part of t bigger than --split-size: split it (and
 * its throttle state). Cheap when it did not: one in-memory stats read. */
static void
maybe_split_size(struct api_ctx *ctx, struct op_throttle *th)
{
    uint64_t limit = ctx->srv->conf != NULL ? ctx->srv->conf->split_size : 0;
    uint64_t count, bytes;
    struct ddb_err e;
    unsigned part;

    if (limit == 0)
        return;
    ddb_err_init(&e);
    part = stable_part_of(th->t, th->hash);
    if (stable_part_stats(th->t, part, &count, &bytes, &e) != 0 ||
        bytes <= limit || count < 2)
        goto out;
    pthread_mutex_lock(&split_mu);
    part = stable_part_of(th->t, th->hash);
    if (stable_part_stats(th->t, part, &count, &bytes, &e) == 0 &&
        bytes > limit && count >= 2 && stable_split(th->t, part, &e) == 0) {
        if (th->tt != NULL &&
            throttle_table_nparts(th->tt) + 1 == stable_nparts(th->t))
            throttle_table_split(th->tt, part, ctx->now_ms, &e);
        if (ctx->srv->conf->log_level >= LOG_INFO)
            fprintf(stderr, "shardlocal: table %s: partition %u passed "
                    "%llu bytes, split in two (%u partitions)\n",
                    stable_name(th->t), part, (unsigned long long)limit,
                    stable_nparts(th->t));
    }
    pthread_mutex_unlock(&split_mu);
out:
    ddb_err_clear(&e);
}

void
op_throttle_charge(struct api_ctx *ctx, struct op_throttle *th, double units)
{
    if (!th->admitted)
        return;
    th->admitted = false;
    throttle_charge(th->tt, &th->tk, units, th->pk, th->pk_len, ctx->now_ms);
    if (th->tk.op == THROTTLE_WRITE && th->pk != NULL)
        maybe_split_size(ctx, th);
}

void
op_throttle_charge_other(struct api_ctx *ctx, const struct op_throttle *th,
                         unsigned part, double units)
{
    struct throttle_ticket tk;

    if (th->tt == NULL)
        return;
    throttle_ticket_init(&tk, part, th->tk.op);
    throttle_charge(th->tt, &tk, units, NULL, 0, ctx->now_ms);
}

void
op_throttle_charge_part(struct api_ctx *ctx, struct stable *t, unsigned part,
                        enum throttle_op op, double units)
{
    struct throttle_table *tt = op_throttle_table(ctx, t);
    struct throttle_ticket tk;

    if (tt == NULL)
        return;
    throttle_ticket_init(&tk, part, op);
    throttle_charge(tt, &tk, units, NULL, 0, ctx->now_ms);
}

int
op_throttle_double(struct api_ctx *ctx, struct stable *t, struct ddb_err *err)
{
    struct throttle_table *tt = op_throttle_table(ctx, t);
    unsigned i;
    int rc = 0;

    pthread_mutex_lock(&split_mu);
    for (i = stable_nparts(t); i-- > 0;) {
        if (stable_split(t, i, err) != 0) {
            rc = -1;
            break;
        }
        if (tt != NULL)
            throttle_table_split(tt, i, ctx->now_ms, err);
    }
    pthread_mutex_unlock(&split_mu);
    return rc;
}

/* The GSIs with throttle state of one table (registry foreach). */
struct gsi_list {
    const char *table;
    size_t n;
    char *names[INDEX_GSI_MAX * 2];
};

static void
gsi_collect(void *arg, const char *table, const char *index,
            struct throttle_table *t)
{
    struct gsi_list *l = arg;

    (void)t;
    if (index != NULL && strcmp(table, l->table) == 0 &&
        l->n < sizeof(l->names) / sizeof(l->names[0])) {
        l->names[l->n] = strdup(index);
        if (l->names[l->n] == NULL)
            abort();
        l->n++;
    }
}

/* UpdateTable: each GSI's new throughput from desc; the state of GSIs no
 * longer in desc (deleted) is dropped. */
static void
gsi_update(struct api_ctx *ctx, const char *table, const json_t *desc)
{
    struct throttle_registry *reg = ctx->srv->throttle;
    struct throttle_table_conf tc;
    struct throttle_table *tt;
    struct gsi_list l;
    size_t i;

    memset(&l, 0, sizeof(l));
    l.table = table;
    throttle_registry_foreach(reg, gsi_collect, &l);
    for (i = 0; i < l.n; i++) {
        tt = throttle_registry_find(reg, table, l.names[i]);
        if (throttle_conf_from_desc(desc, l.names[i], 1, &tc) != 0)
            throttle_registry_drop(reg, table, l.names[i]);
        else if (tt != NULL)
            throttle_table_update(tt, &tc, ctx->now_ms);
        free(l.names[i]);
    }
}

void
op_throttle_update(struct api_ctx *ctx, struct stable *t, const json_t *desc)
{
    struct throttle_registry *reg = ctx->srv->throttle;
    struct throttle_table *tt;
    struct throttle_table_conf tc;

    if (reg == NULL)
        return;
    tt = throttle_registry_find(reg, stable_name(t), NULL);
    if (tt != NULL &&               /* else created from desc on use */
        throttle_conf_from_desc(desc, NULL, stable_nparts(t), &tc) == 0)
        throttle_table_update(tt, &tc, ctx->now_ms);
    gsi_update(ctx, stable_name(t), desc);
}

int
op_throttle_resize(struct api_ctx *ctx, struct stable *t, const json_t *desc,
                   struct ddb_err *err)
{
    struct throttle_registry *reg = ctx->srv->throttle;
    struct throttle_table_conf tc;
    struct throttle_limits lim;
    unsigned need;
    int rc = 0;

    if (reg == NULL)
        return 0;
    if (throttle_conf_from_desc(desc, NULL, stable_nparts(t), &tc) == 0 &&
        !tc.on_demand) {
        throttle_registry_limits(reg, &lim);
        throttle_limits_apply_tags(&lim, json_object_get(desc, "_slTags"));
        need = throttle_limits_partitions(&lim, tc.rcu, tc.wcu);
        while (rc == 0 && stable_nparts(t) < need && stable_nparts(t) < 4096)
            rc = op_throttle_double(ctx, t, err);
        if (rc == 0 && ctx->srv->conf != NULL &&
            ctx->srv->conf->log_level >= LOG_INFO && need > 1)
            fprintf(stderr, "shardlocal: table %s: %u partitions for "
                    "%.0f RCU / %.0f WCU\n", stable_name(t),
                    stable_nparts(t), tc.rcu, tc.wcu);
    }
    op_throttle_update(ctx, t, desc);
    return rc;
}

void
op_throttle_created(struct api_ctx *ctx, const char *table)
{
    struct stable *t;

    if (ctx->srv->throttle == NULL)
        return;
    throttle_registry_drop(ctx->srv->throttle, table, NULL);
    t = storage_table_get(ctx->srv->st, table);
    if (t == NULL)
        return;
    op_throttle_table(ctx, t);
    {
        json_t *desc = stable_desc_ref(t);
        struct index_set *is = calloc(1, sizeof(*is));
        struct ddb_err e;
        size_t i;

        if (is == NULL)
            abort();
        ddb_err_init(&e);
        if (desc != NULL && index_desc_has(desc)) {
            if (index_set_open(ctx->srv->st, desc, is, &e) == 0)
                for (i = 0; i < is->n; i++)
                    if (is->idx[i].global)
                        index_tt(ctx, table, &is->idx[i], desc);
            index_set_close(is);        /* safe after a failed open */
        }
        ddb_err_clear(&e);
        json_decref(desc);
        free(is);
    }
    stable_release(t);
}

void
op_throttle_drop(struct api_ctx *ctx, const char *table)
{
    if (ctx->srv->throttle != NULL)
        throttle_registry_drop(ctx->srv->throttle, table, NULL);
    fault_drop(ctx->srv->faults, table);
}
