/* SPDX-License-Identifier: MIT */
/* faults.c - fault injection: rules that throttle a fraction of a table's
 * requests (or of one key's), or the next N of them, with DynamoDB's real
 * exceptions. The admin API (admin/control.c) adds and lists them; the
 * request gates (gate.c) consult them before the token buckets. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "api/throttle/faults.h"
#include "storage/util.h"

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

struct faults {
    pthread_mutex_t mu;
    atomic_size_t n;                /* read without the lock: fast path */
    struct fault_rule r[FAULTS_MAX];
};

struct faults *
faults_new(void)
{
    struct faults *f = xcalloc(1, sizeof(*f));

    pthread_mutex_init(&f->mu, NULL);
    atomic_init(&f->n, 0);
    return f;
}

void
faults_free(struct faults *f)
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
fault_remove(struct faults *f, size_t i)
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
            canon = json_clone(key);
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
    hc = json_get_uint(req, "count", &count);
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
faults_request(struct faults *f, bool post, const json_t *req,
               json_t **resp, struct ddb_err *err)
{
    struct fault_rule r;
    json_t *list;
    size_t i;

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
enum throttle_cause
faults_check(struct faults *f, const char *table, const uint8_t *pk,
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
void
faults_drop(struct faults *f, const char *table)
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

