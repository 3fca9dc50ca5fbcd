/* SPDX-License-Identifier: MIT */
/* txn_core.c - the transaction core (txn.h): actions resolved against their
 * tables, committed all or nothing in one stable_txn()/stable_txn_get()
 * across tables and partitions, cancellation reasons in request order,
 * throttling and GSI back-pressure, in-flight conflicts, ClientRequestToken
 * idempotency, transactional (doubled) capacity split into read and write
 * units. TransactWriteItems, TransactGetItems and ExecuteTransaction run
 * their actions here. */
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "api/expr/expr.h"
#include "api/index/index.h"
#include "api/ops/txn.h"
#include "api/ops/txn_inflight.h"
#include "api/ops/write.h"
#include "api/proto/av.h"
#include "api/proto/capacity.h"
#include "api/tables/tables.h"
#include "api/throttle/gate.h"
#include "storage/util.h"

#define TXN_SIZE_MAX     (4u * 1024 * 1024)     /* aggregate item bytes */
#define TXN_TOKEN_TTL_MS (10u * 60 * 1000)      /* ClientRequestToken */
#define TXN_RETRIES      100    /* optimistic rounds on indexed tables */

/* Over 4 MB of items. The Alternator suite's test_transact.py, run
 * against DynamoDB, matches "ValidationException.*size cannot exceed" for
 * 50 Puts of 100 KB; DynamoDB's whole sentence is not recorded, so the
 * rest is ours, after the API reference's "The aggregate size of the
 * items in the transaction cannot exceed 4 MB". */
#define MSG_TXN_TOO_LARGE "Transaction size cannot exceed 4 MB"


/* ------------------------------------------------------------------------
 * Helpers
 * ---------------------------------------------------------------------- */

static void
txn_item_fini(struct txn_item *ti)
{
    expr_free(ti->proj);
    write_req_fini(&ti->w);
    table_ref_close(&ti->ot);
    if (ti->plan != NULL) {
        index_plan_fini(ti->plan);
        free(ti->plan);
    }
    json_decref(ti->snap);
    gsi_gate_fini(&ti->gate);
}

struct txn_item *
txn_items_new(size_t n)
{
    struct txn_item *ti = xcalloc(n ? n : 1, sizeof(*ti));

    for (size_t i = 0; i < n; i++)
        write_req_init(&ti[i].w, WRITE_CHECK, NULL);
    return ti;
}

void
txn_items_free(struct txn_item *ti, size_t n)
{
    if (ti == NULL)
        return;
    for (size_t i = 0; i < n; i++)
        txn_item_fini(&ti[i]);
    free(ti);
}

/* Key map member of op ("Key"), validated, into *key; a missing map is
 * the shape checker's job, but never crash on it. */
static bool
same_item(const struct txn_item *a, const struct item_key *ka,
          const struct txn_item *b, const struct item_key *kb)
{
    return a->ot.t == b->ot.t && ka->pk_len == kb->pk_len &&
           ka->sk_len == kb->sk_len &&
           memcmp(ka->pk, kb->pk, ka->pk_len) == 0 &&
           memcmp(ka->sk, kb->sk, ka->sk_len) == 0;
}

static int
check_duplicates(const struct txn_item *ti, const struct item_key *keys,
                 size_t n, struct ddb_err *err)
{
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < i; j++)
            if (same_item(&ti[i], &keys[i], &ti[j], &keys[j]))
                return ddb_err_set(err, DDB_VALIDATION, "Transaction "
                                   "request cannot include multiple "
                                   "operations on one item");
    return 0;
}

/* ------------------------------------------------------------------------
 * ClientRequestToken: completed requests are remembered for 10 minutes,
 * per store (two servers in one process do not share tokens) and per
 * account (a token is the caller's: "<account>:<token>" here).
 * ---------------------------------------------------------------------- */

struct token_ent {
    struct token_ent *next;
    const void *owner;              /* the store the token belongs to */
    char *token;                    /* owned */
    char *request;                  /* owned: canonical request JSON */
    json_t *reads;                  /* owned: replay ConsumedCapacity */
    uint64_t done_ms;               /* completion time */
    bool in_progress;
};

static pthread_mutex_t token_mu = PTHREAD_MUTEX_INITIALIZER;
static struct token_ent *tokens;

static void
token_free(struct token_ent *e)
{
    free(e->token);
    free(e->request);
    json_decref(e->reads);
    free(e);
}

/* token_mu held: drop completed entries older than the window. */
static void
token_expire(uint64_t now_ms)
{
    struct token_ent **pp = &tokens;

    while (*pp != NULL) {
        struct token_ent *e = *pp;

        if (!e->in_progress && now_ms - e->done_ms > TXN_TOKEN_TTL_MS) {
            *pp = e->next;
            token_free(e);
        } else {
            pp = &e->next;
        }
    }
}

static struct token_ent *
token_find(const void *owner, const char *token)
{
    for (struct token_ent *e = tokens; e != NULL; e = e->next)
        if (e->owner == owner && strcmp(e->token, token) == 0)
            return e;
    return NULL;
}

/*
 * Look token up before running the transaction. Returns 0 to go on (the
 * token is now marked in progress), 1 when this is a replay of a completed
 * request (*resp set: no side effects), or -1 with
 * IdempotentParameterMismatch / TransactionInProgress.
 */
static int
token_begin(struct api_ctx *ctx, const char *token, const char *request,
            const json_t *req, json_t **resp, struct ddb_err *err)
{
    const void *owner = ctx->srv->st;
    char *key = xasprintf("%s:%s", api_account(ctx), token);
    struct token_ent *e;
    int rc = 0;

    pthread_mutex_lock(&token_mu);
    token_expire(ctx->now_ms);
    e = token_find(owner, key);
    if (e == NULL) {
        e = xcalloc(1, sizeof(*e));
        e->token = key;
        key = NULL;
        e->request = xstrdup(request);
        e->owner = owner;
        e->in_progress = true;
        e->next = tokens;
        tokens = e;
    } else if (strcmp(e->request, request) != 0) {
        rc = ddb_err_set(err, DDB_IDEMPOTENT_MISMATCH, "Request with the "
                         "same client token has different parameters");
    } else if (e->in_progress) {
        rc = ddb_err_set(err, DDB_TRANSACTION_IN_PROGRESS, "Transaction "
                         "from previous request is still in progress");
    } else {
        json_t *out = json_object();
        const json_t *mode = json_object_get(req, "ReturnConsumedCapacity");

        if ((json_str_is(mode, "TOTAL") || json_str_is(mode, "INDEXES")) &&
            e->reads != NULL)
            json_object_set_new(out, "ConsumedCapacity",
                                json_clone(e->reads));
        *resp = out;
        rc = 1;
    }
    pthread_mutex_unlock(&token_mu);
    free(key);
    return rc;
}

/* The transaction ended: remember it (ok) or forget the token (failed, so
 * a retry runs again). reads: the replay's ConsumedCapacity (taken). */
static void
token_end(struct api_ctx *ctx, const char *token, bool ok, json_t *reads)
{
    char *key = xasprintf("%s:%s", api_account(ctx), token);
    struct token_ent **pp, *e;

    pthread_mutex_lock(&token_mu);
    for (pp = &tokens; (e = *pp) != NULL; pp = &e->next)
        if (e->owner == ctx->srv->st && strcmp(e->token, key) == 0 &&
            e->in_progress)
            break;
    if (e != NULL) {
        if (ok) {
            e->in_progress = false;
            e->done_ms = ctx->now_ms;
            e->reads = reads;
            reads = NULL;
        } else {
            *pp = e->next;
            token_free(e);
        }
    }
    pthread_mutex_unlock(&token_mu);
    json_decref(reads);
    free(key);
}

/* ------------------------------------------------------------------------
 * Resolving the actions
 * ---------------------------------------------------------------------- */

int
txn_resolve_write(struct api_ctx *ctx, struct txn_item *ti, struct item_key *k,
                  struct ddb_err *err)
{
    if ((ti->ot.t == NULL &&
         table_ref_open(ctx, ti->op, &ti->ot, err) != 0) ||
        write_resolve(ctx, &ti->w, &ti->ot, k, err) != 0)
        return -1;
    if (ti->w.set != NULL)
        ti->plan = xcalloc(1, sizeof(*ti->plan));
    return 0;
}

/* Whether err is a key that does not match the table's schema (a wrong
 * type, a missing or extra key attribute): TransactWriteItems and
 * TransactGetItems report it as the action's cancellation reason,
 * ValidationError, not as a ValidationException (eu-west-2 and three
 * more regions, 2026-06: paritysuite/dynamodb-conformance
 * error-messages/transactWriteItems.test.ts, transactGetItems.test.ts).
 * An empty key value stays a ValidationException. */
static bool
is_key_schema_error(const struct ddb_err *err)
{
    static const char *const msgs[] = {
        "The provided key element does not match the schema",
        "One or more parameter values were invalid: Type mismatch for key ",
        "One or more parameter values were invalid: Missing the key ",
    };

    if (err->type != DDB_VALIDATION)
        return false;
    for (size_t i = 0; i < sizeof(msgs) / sizeof(msgs[0]); i++)
        if (strncmp(err->msg, msgs[i], strlen(msgs[i])) == 0)
            return true;
    return false;
}

static int canceled(json_t *reasons, struct ddb_err *err);

/* The first key that does not match cancels the transaction there:
 * ValidationError for that action, None for every other, the actions
 * after it not even looked at (two bad Puts and a good one give
 * [ValidationError, None, None]: the Alternator suite's
 * test_transact.py, run against DynamoDB). */
int
txn_resolve_all(struct api_ctx *ctx, struct txn_item *ti,
                struct item_key *keys, size_t n, txn_resolve_fn *fn,
                struct ddb_err *err)
{
    json_t *reasons;
    size_t i, bad;

    for (bad = 0; bad < n; bad++) {
        if (fn(ctx, &ti[bad], &keys[bad], err) == 0)
            continue;
        if (!is_key_schema_error(err))
            return -1;
        break;
    }
    if (bad == n)
        return 0;
    reasons = json_array();
    for (i = 0; i < n; i++)
        json_array_append_new(reasons, i != bad
            ? json_pack("{s:s}", "Code", "None")
            : json_pack("{s:s, s:s}", "Code", "ValidationError", "Message",
                        err->msg));
    ddb_err_clear(err);
    return canceled(reasons, err);
}

/* ------------------------------------------------------------------------
 * Secondary indexes: snapshot, plan the index rows from what each action
 * would write, then run everything in one stable_txn() whose base ops
 * first check that the item is still the snapshot (else: another round).
 * ---------------------------------------------------------------------- */

static int
guarded_fn(void *arg, const json_t *old, size_t old_size, json_t **new_item,
           size_t *new_size, bool *keep, struct ddb_err *err)
{
    struct txn_item *ti = arg;

    if ((old == NULL) != (ti->snap == NULL) ||
        (old != NULL && !json_same(old, ti->snap))) {
        ti->stale = true;
        return ddb_err_set(err, DDB_TRANSACTION_CONFLICT,
                           "item changed: retry");
    }
    return write_apply(&ti->w, old, old_size, new_item, new_size, keep,
                       err);
}

/*
 * Snapshot every indexed item and plan its index writes. Items whose
 * action fails on the snapshot get no plan: under the locks the action
 * fails again (a cancellation reason), or the guard sees a change.
 * Then, per planned item, GSI back-pressure (every GSI partition the plan
 * writes needs write capacity; the units are paid doubled once the
 * transaction commits) and the LSI item collection limit: a refusal sets
 * ti->gate_fail, and the caller cancels the transaction before anything
 * is written (throttling.md 5).
 */
static int
plan_indexes(struct api_ctx *ctx, struct txn_item *ti,
             const struct item_key *keys, size_t n, struct ddb_err *err)
{
    for (size_t i = 0; i < n; i++) {
        json_t *nitem = NULL;
        size_t nsize = 0;
        bool keep = false;
        struct ddb_err e;
        int rc;

        if (ti[i].w.set == NULL)
            continue;
        index_plan_fini(ti[i].plan);
        json_decref(ti[i].snap);
        ti[i].snap = NULL;
        ti[i].stale = false;
        ti[i].gate_fail = TG_OK;
        ddb_err_init(&e);
        gsi_gate_admit(ctx, ti[i].ot.name, ti[i].w.set, NULL, 2.0,
                       &ti[i].gate, &e);         /* forget last round's */
        if (stable_get(ti[i].ot.t, &keys[i], &ti[i].snap, err) != 0)
            return -1;
        rc = write_apply(&ti[i].w, ti[i].snap,
                         ti[i].snap != NULL ? item_size(ti[i].snap) : 0,
                         &nitem, &nsize, &keep, &e);
        ddb_err_clear(&e);
        if (rc == 0 && !keep &&
            index_plan(ti[i].w.set, ti[i].snap, nitem, ti[i].plan, err) != 0) {
            write_index_error(&ti[i].w, err);
            json_decref(nitem);
            return -1;
        }
        if (rc == 0 && !keep) {
            if (gsi_gate_admit(ctx, ti[i].ot.name, ti[i].w.set, ti[i].plan,
                               2.0, &ti[i].gate, &e) != 0) {
                ti[i].gate_fail = TG_THROTTLED;
            } else if (index_collection_check(ti[i].w.set, ti[i].ot.t,
                                              &keys[i], ti[i].snap, nitem,
                                              write_collection_limit(ctx),
                                              &e) != 0) {
                if (e.type != DDB_ITEM_COLLECTION_SIZE_LIMIT) {
                    ddb_err_clear(err);
                    *err = e;       /* moves e.extra */
                    json_decref(nitem);
                    return -1;
                }
                ti[i].gate_fail = TG_COLLECTION;
            }
            ddb_err_clear(&e);
        }
        json_decref(nitem);
    }
    return 0;
}

/* A gate refused some item of this round: err = TransactionCanceled with
 * that item's reason (ProvisionedThroughputExceeded / ThrottlingError for
 * a GSI out of write capacity, ItemCollectionSizeLimitExceeded), None for
 * the others; every gate admission is forgotten. Returns 0 when no gate
 * refused. *throttled tells whether a GSI refused (the transaction then
 * consumed nothing). */
static int
gate_cancel(struct api_ctx *ctx, struct txn_item *ti, size_t n,
            bool *throttled, struct ddb_err *err)
{
    json_t *reasons;
    bool any = false;

    *throttled = false;
    for (size_t i = 0; i < n; i++)
        any = any || ti[i].gate_fail != TG_OK;
    if (!any)
        return 0;
    reasons = json_array();
    for (size_t i = 0; i < n; i++) {
        struct ddb_err e;
        json_t *r;

        ddb_err_init(&e);
        if (ti[i].gate_fail == TG_THROTTLED) {
            *throttled = true;
            throttle_err(ti[i].gate.refused, THROTTLE_WRITE, ti[i].gate.cause,
                         &e);
            r = json_pack("{s:s, s:s}", "Code",
                          throttle_txn_code(ti[i].gate.refused,
                                            ti[i].gate.cause),
                          "Message", e.msg);
        } else if (ti[i].gate_fail == TG_COLLECTION) {
            r = json_pack("{s:s, s:s}", "Code",
                          "ItemCollectionSizeLimitExceeded", "Message",
                          INDEX_COLLECTION_MSG);
        } else {
            r = json_pack("{s:s}", "Code", "None");
        }
        ddb_err_clear(&e);
        json_array_append_new(reasons, r);
        if (ti[i].w.set != NULL)
            gsi_gate_admit(ctx, ti[i].ot.name, ti[i].w.set, NULL, 2.0,
                           &ti[i].gate, &e);
        ddb_err_clear(&e);
    }
    return canceled(reasons, err);
}

/* ItemCollectionMetrics of a committed transaction (ReturnItemCollection
 * Metrics SIZE): per table with an LSI, one entry per item written to it,
 * as BatchWriteItem lists them. NULL when there is none. */
static json_t *
txn_collection_metrics(const struct txn_item *ti, const struct item_key *keys,
                       size_t n, struct ddb_err *err)
{
    json_t *out = NULL;

    for (size_t i = 0; i < n; i++) {
        const json_t *keyed = ti[i].w.item != NULL ? ti[i].w.item : ti[i].w.key;
        json_t *m, *list;

        if (ti[i].kind == TK_CHECK || !index_set_has_lsi(ti[i].w.set))
            continue;
        m = index_collection_metrics(ti[i].w.set, ti[i].ot.t, &keys[i], keyed,
                                     err);
        if (m == NULL) {
            json_decref(out);
            return NULL;
        }
        if (out == NULL)
            out = json_object();
        list = json_object_get(out, ti[i].ot.name);
        if (list == NULL) {
            list = json_array();
            json_object_set_new(out, ti[i].ot.name, list);
        }
        json_array_append_new(list, m);
    }
    return out;
}

/* Index write units of item i, per index of its set, doubled. */
static double
index_units(const struct txn_item *ti)
{
    double u = 0;

    for (size_t j = 0; ti->w.set != NULL && j < ti->w.set->n; j++)
        u += 2 * ti->plan->units[j];
    return u;
}

/* err = TransactionCanceledException carrying reasons (taken), one per
 * action in request order. Returns -1. */
static int
canceled(json_t *reasons, struct ddb_err *err)
{
    char codes[2048];
    size_t len = 0, i;
    json_t *r;

    codes[0] = '\0';
    json_array_foreach(reasons, i, r) {
        if (len < sizeof(codes))
            len += (size_t)snprintf(
                codes + len, sizeof(codes) - len, "%s%s", i ? ", " : "",
                json_string_value(json_object_get(r, "Code")));
    }
    ddb_err_clear(err);
    ddb_err_set(err, DDB_TRANSACTION_CANCELED, "Transaction cancelled, "
                "please refer cancellation reasons for specific reasons "
                "[%s]", codes);
    ddb_err_extra_set_new(err, "CancellationReasons", reasons);
    return -1;
}

/* One cancellation reason per op (ops[i] is action ti[i]), and the
 * exception. Returns -1 with err set to TransactionCanceledException, or
 * to the first failure as is when it is not one a transaction reports per
 * item (internal errors). */
static int
cancel(const struct txn_item *ti, struct stxn_op *ops, size_t n,
       struct ddb_err *err)
{
    json_t *reasons = json_array();

    for (size_t i = 0; i < n; i++) {
        const struct ddb_err *e = &ops[i].err;
        const char *code = "None";
        json_t *r;

        if (ops[i].rc != 0 && e->type == DDB_CONDITIONAL_CHECK_FAILED &&
            ti[i].ccf_code != NULL) {
            json_array_append_new(reasons, json_pack("{s:s, s:s}", "Code",
                                                     ti[i].ccf_code,
                                                     "Message",
                                                     ti[i].ccf_msg));
            continue;
        }
        if (ops[i].rc != 0) {
            if (e->type == DDB_CONDITIONAL_CHECK_FAILED) {
                code = "ConditionalCheckFailed";
            } else if (e->type == DDB_VALIDATION) {
                code = "ValidationError";
            } else if (e->type == DDB_THROUGHPUT_EXCEEDED) {
                code = "ProvisionedThroughputExceeded";
            } else if (e->type == DDB_THROTTLING) {
                code = "ThrottlingError";
            } else {
                json_decref(reasons);
                ddb_err_clear(err);
                return ddb_err_set(err, e->type, "%s", e->msg);
            }
        }
        r = json_pack("{s:s}", "Code", code);
        if (ops[i].rc != 0) {
            json_object_set_new(r, "Message", json_string(e->msg));
            if (e->extra != NULL && json_object_get(e->extra, "Item"))
                json_object_set(r, "Item", json_object_get(e->extra, "Item"));
        }
        json_array_append_new(reasons, r);
    }
    return canceled(reasons, err);
}

/* ------------------------------------------------------------------------
 * Throttling (throttling.md 5): every action asks its partition first; a
 * throttled one cancels the whole call before anything runs, its reason
 * ProvisionedThroughputExceeded or ThrottlingError, the others None.
 * ---------------------------------------------------------------------- */

static enum throttle_op
throttle_op_of(const struct txn_item *ti)
{
    return ti->kind == TK_CHECK || ti->kind == TK_GET ? THROTTLE_READ
                                                      : THROTTLE_WRITE;
}

static int
admit_all(struct api_ctx *ctx, const struct txn_item *ti,
          const struct item_key *keys, size_t n, struct gate_ticket *th,
          struct ddb_err *err)
{
    enum throttle_cause *cause = xcalloc(n ? n : 1, sizeof(*cause));
    json_t *reasons;
    bool any = false;

    for (size_t i = 0; i < n; i++) {
        gate_init(&th[i]);
        cause[i] = gate_try(ctx, ti[i].ot.t, &keys[i], throttle_op_of(&ti[i]),
                            throttle_op_of(&ti[i]) == THROTTLE_READ
                                ? 2.0
                                : gate_write_need(ctx, ti[i].ot.t, &keys[i],
                                                  ti[i].w.size, 2.0),
                            &th[i]);
        any = any || cause[i] != THROTTLE_OK;
    }
    if (!any) {
        free(cause);
        return 0;
    }
    reasons = json_array();
    for (size_t i = 0; i < n; i++) {
        json_t *r;

        gate_charge(ctx, &th[i], 0);     /* nothing ran */
        if (cause[i] == THROTTLE_OK || th[i].tt == NULL) {
            json_array_append_new(reasons, json_pack("{s:s}", "Code",
                                                     "None"));
            continue;
        }
        {
            struct ddb_err e;

            ddb_err_init(&e);
            throttle_err(th[i].tt, throttle_op_of(&ti[i]), cause[i], &e);
            r = json_pack("{s:s, s:s}", "Code",
                          throttle_txn_code(th[i].tt, cause[i]), "Message",
                          e.msg);
            ddb_err_clear(&e);
        }
        json_array_append_new(reasons, r);
    }
    free(cause);
    return canceled(reasons, err);
}

/* ------------------------------------------------------------------------
 * Conflicts with in-flight transactions (txn_inflight.c). DynamoDB cancels
 * a TransactWriteItems or TransactGetItems one of whose items an ongoing
 * TransactWriteItems includes: reason TransactionConflict "Transaction is
 * ongoing for the item" for those items, None for the others (developer
 * guide, "Transaction conflict handling"; tests/e2e/test_txn_conflict.py).
 * ---------------------------------------------------------------------- */

/* err = TransactionCanceledException, TransactionConflict where
 * conflict[i]. Nothing ran: the admissions are forgotten unpaid. */
static int
conflict_cancel(struct api_ctx *ctx, const bool *conflict, size_t n,
                struct gate_ticket *th, struct ddb_err *err)
{
    json_t *reasons = json_array();

    for (size_t i = 0; i < n; i++) {
        if (th != NULL)
            gate_charge(ctx, &th[i], 0);
        json_array_append_new(
            reasons, conflict[i]
                         ? json_pack("{s:s, s:s}", "Code",
                                     "TransactionConflict", "Message",
                                     TXN_INFLIGHT_MSG)
                         : json_pack("{s:s}", "Code", "None"));
    }
    return canceled(reasons, err);
}

/* TransactWriteItems, just before its commit: hold every item in h until
 * the call ends, or cancel when another transaction holds one. Then the
 * tests' pause rules (POST /shardlocal/faults {"pause_ms": ...}). */
static int
hold_items(struct api_ctx *ctx, const struct txn_item *ti,
           const struct item_key *keys, size_t n, struct gate_ticket *th,
           struct txn_inflight_hold *h, struct ddb_err *err)
{
    struct txn_inflight_item *it = xcalloc(n ? n : 1, sizeof(*it));
    const char **names = xcalloc(n ? n : 1, sizeof(*names));
    bool *conflict = xcalloc(n ? n : 1, sizeof(*conflict));
    int rc = 0;

    for (size_t i = 0; i < n; i++) {
        it[i].table = names[i] = ti[i].ot.name;
        it[i].k = &keys[i];
    }
    if (txn_inflight_acquire(ctx->srv, it, n, conflict, h) != 0)
        rc = conflict_cancel(ctx, conflict, n, th, err);
    else
        txn_inflight_pause(ctx->srv, names, n);
    free(conflict);
    free(names);
    free(it);
    return rc;
}

/* TransactGetItems: cancelled when an in-flight TransactWriteItems holds
 * one of its items. */
static int
check_held(struct api_ctx *ctx, const struct txn_item *ti,
           const struct item_key *keys, size_t n, struct gate_ticket *th,
           struct ddb_err *err)
{
    bool *conflict = xcalloc(n ? n : 1, sizeof(*conflict));
    bool any = false;
    int rc = 0;

    for (size_t i = 0; i < n; i++) {
        conflict[i] = txn_inflight_is_held(ctx->srv, ti[i].ot.name,
                                           &keys[i]);
        any = any || conflict[i];
    }
    if (any)
        rc = conflict_cancel(ctx, conflict, n, th, err);
    free(conflict);
    return rc;
}

/* ------------------------------------------------------------------------
 * Committing
 * ---------------------------------------------------------------------- */

int
txn_write_commit(struct api_ctx *ctx, const json_t *req,
                 struct txn_item *ti, struct item_key *keys, size_t n,
                 json_t **resp, struct ddb_err *err)
{
    const char *token = json_string_value(
        json_object_get(req, "ClientRequestToken"));
    size_t total = 0, nops = 0;
    struct stxn_op *ops = NULL;
    struct capacity reads;
    struct gate_ticket *th = NULL;
    struct txn_inflight_hold hold = { 0 };
    json_t *out = NULL;
    char *canon = NULL;
    bool token_held = false, ok = false;
    int rc = -1, t;

    capacity_init(&reads);
    if (check_duplicates(ti, keys, n, err) != 0)
        goto out;
    for (size_t i = 0; i < n; i++)
        total += ti[i].kind == TK_PUT ? ti[i].w.size : 0;
    if (total > TXN_SIZE_MAX) {
        ddb_err_set(err, DDB_VALIDATION, "%s", MSG_TXN_TOO_LARGE);
        goto out;
    }

    if (token != NULL) {
        canon = json_text(req, JSON_COMPACT | JSON_SORT_KEYS);
        if (canon == NULL) {
            ddb_err_set(err, DDB_INTERNAL, "cannot encode request");
            goto out;
        }
        t = token_begin(ctx, token, canon, req, resp, err);
        if (t < 0)
            goto out;
        if (t > 0) {
            rc = 0;
            goto out;
        }
        token_held = true;
    }

    th = xcalloc(n, sizeof(*th));
    if (admit_all(ctx, ti, keys, n, th, err) != 0 ||
        hold_items(ctx, ti, keys, n, th, &hold, err) != 0)
        goto out;
    for (size_t i = 0; i < n; i++)
        nops += ti[i].w.set != NULL ? INDEX_OPS_MAX : 1;
    ops = xcalloc(nops, sizeof(*ops));
    for (int round = 0;; round++) {
        bool stale = false, any = false;
        size_t m = n;

        if (round >= TXN_RETRIES) {
            /* items still changing under us: a TransactionConflict
             * reason, as DynamoDB reports contention in a transaction */
            bool *busy = xcalloc(n, sizeof(*busy));

            for (size_t i = 0; i < n; i++)
                busy[i] = ti[i].stale;
            conflict_cancel(ctx, busy, n, NULL, err);
            free(busy);
            goto out;
        }
        if (plan_indexes(ctx, ti, keys, n, err) != 0)
            goto out;
        {
            bool throttled;

            if (gate_cancel(ctx, ti, n, &throttled, err) != 0) {
                for (size_t i = 0; throttled && i < n; i++)
                    gate_charge(ctx, &th[i], 0); /* nothing ran */
                goto out;
            }
        }
        for (size_t i = 0; i < n; i++) {
            ops[i].t = ti[i].ot.t;
            ops[i].k = keys[i];
            ops[i].fn = ti[i].w.set != NULL ? guarded_fn : write_apply;
            ops[i].arg = ti[i].w.set != NULL ? (void *)&ti[i]
                                             : (void *)&ti[i].w;
            for (size_t j = 0; ti[i].w.set != NULL && j < ti[i].plan->nops;
                 j++) {
                ops[m] = ti[i].plan->ops[j];
                ddb_err_init(&ops[m].err);
                m++;
            }
        }
        for (size_t i = 0; i < m; i++)
            ddb_err_clear(&ops[i].err);
        if (stable_txn(ops, m, err) == 0)
            break;
        for (size_t i = 0; i < n; i++) {
            stale = stale || ti[i].stale;
            any = any || ops[i].rc != 0;
        }
        if (stale) {
            for (size_t i = 0; i < m; i++)
                ddb_err_clear(&ops[i].err);
            ddb_err_clear(err);
            continue;
        }
        if (any)
            cancel(ti, ops, n, err);
        for (size_t i = n; i < m; i++)
            ddb_err_clear(&ops[i].err);
        goto out;
    }

    for (size_t i = 0; i < n; i++) {
        size_t big = ti[i].w.new_size > ti[i].w.old_size ? ti[i].w.new_size
                                                     : ti[i].w.old_size;

        if (ti[i].kind == TK_CHECK)
            capacity_add(ctx->cap, ti[i].ot.name,
                         2 * capacity_read_units(ti[i].w.old_size, true), 0);
        else
            capacity_add(ctx->cap, ti[i].ot.name, 0,
                         2 * capacity_write_units(big) +
                             index_units(&ti[i]));
        capacity_add(&reads, ti[i].ot.name,
                     2 * capacity_read_units(big, true), 0);
    }
    for (size_t i = 0; i < n; i++) {
        gsi_gate_charge(ctx, &ti[i].gate);
        write_vector_done(ctx, &ti[i].w, &ti[i].ot, &keys[i]);
    }
    out = json_object();
    if (json_str_is(json_object_get(req, "ReturnItemCollectionMetrics"),
               "SIZE")) {
        json_t *m = txn_collection_metrics(ti, keys, n, err);

        if (m == NULL && err->type != DDB_OK)
            goto out;
        if (m != NULL)
            json_object_set_new(out, "ItemCollectionMetrics", m);
    }
    *resp = out;
    out = NULL;
    ok = true;
    rc = 0;
out:
    txn_inflight_release(&hold);
    if (token_held) {
        /* A replay answers with what the first call read (TOTAL). */
        json_t *total_mode = json_string("TOTAL");

        token_end(ctx, token, ok,
                  ok ? capacity_report(&reads, total_mode,
                                       CAPACITY_LIST | CAPACITY_SPLIT)
                     : NULL);
        json_decref(total_mode);
    }
    capacity_fini(&reads);
    for (size_t i = 0; th != NULL && i < n; i++) {
        size_t big = ti[i].w.new_size > ti[i].w.old_size ? ti[i].w.new_size
                                                     : ti[i].w.old_size;

        /* a cancelled action still consumes (throttling.md 2) */
        gate_charge(ctx, &th[i],
                           ti[i].kind == TK_CHECK
                               ? 2 * capacity_read_units(ti[i].w.old_size,
                                                         true)
                               : 2 * capacity_write_units(big));
    }
    free(th);
    if (ops != NULL)
        for (size_t i = 0; i < n && i < nops; i++)
            ddb_err_clear(&ops[i].err);
    free(ops);
    free(canon);
    json_decref(out);
    return rc;
}

int
txn_get_commit(struct api_ctx *ctx, struct txn_item *ti,
               const struct item_key *keys, size_t n, json_t **items,
               struct ddb_err *err)
{
    struct stable **tables = xcalloc(n ? n : 1, sizeof(*tables));
    const struct item_key **kp = xcalloc(n ? n : 1, sizeof(*kp));
    struct gate_ticket *th = NULL;
    size_t total = 0;
    int rc = -1;

    for (size_t i = 0; i < n; i++) {
        tables[i] = ti[i].ot.t;
        kp[i] = &keys[i];
        items[i] = NULL;
    }
    if (check_duplicates(ti, keys, n, err) != 0)
        goto out;
    th = xcalloc(n, sizeof(*th));
    if (admit_all(ctx, ti, keys, n, th, err) != 0 ||
        check_held(ctx, ti, keys, n, th, err) != 0)
        goto out;
    if (stable_txn_get(tables, kp, n, items, err) != 0)
        goto out;
    for (size_t i = 0; i < n; i++) {
        size_t size = items[i] != NULL ? item_size(items[i]) : 0;

        total += size;
        capacity_add(ctx->cap, ti[i].ot.name,
                     2 * capacity_read_units(size, true), 0);
    }
    if (total > TXN_SIZE_MAX) {
        ddb_err_set(err, DDB_VALIDATION, "%s", MSG_TXN_TOO_LARGE);
        goto out;
    }
    rc = 0;
out:
    for (size_t i = 0; th != NULL && i < n; i++)
        gate_charge(ctx, &th[i],
                           2 * capacity_read_units(
                                   items[i] ? item_size(items[i]) : 0, true));
    free(th);
    if (rc != 0)
        for (size_t i = 0; i < n; i++) {
            json_decref(items[i]);
            items[i] = NULL;
        }
    free(kp);
    free(tables);
    return rc;
}
