/* SPDX-License-Identifier: MIT */
/* partiql.h - DynamoDB's PartiQL dialect: a statement compiled (lexed,
 * parsed, its parameters bound, checked) into what the data operations
 * run: a SELECT's table, index, projection and WHERE, an INSERT's item,
 * an UPDATE's update expression, a DELETE, an EXISTS check. The WHERE
 * clause becomes the expression engine's condition (expr.h), so it is
 * evaluated exactly as ConditionExpression and FilterExpression are. */
#ifndef SHARDLOCAL_PARTIQL_H
#define SHARDLOCAL_PARTIQL_H

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>

#include "api/expr/expr.h"
#include "api/proto/av.h"

enum pql_kind { PQL_SELECT, PQL_INSERT, PQL_UPDATE, PQL_DELETE,
                PQL_EXISTS };

/* RETURNING: what a write answers with (ReturnValues). */
enum pql_returning { PQL_RET_NONE, PQL_RET_ALL_OLD, PQL_RET_MODIFIED_OLD,
                     PQL_RET_ALL_NEW, PQL_RET_MODIFIED_NEW };

struct pql_stmt;

/*
 * Compile the statement text (len bytes) with its Parameters (a JSON
 * array of AttributeValues, borrowed; NULL when absent), in DynamoDB's
 * order: the syntax ("Statement wasn't well formed, can't be processed:
 * ..."), the number of parameters, each parameter's value, then the
 * checks that need no table (aliases, the FROM path, functions, operand
 * types, RETURNING, literals). *out is new (pql_free). -1 with err set.
 */
int pql_compile(const char *text, size_t len, const json_t *params,
                struct pql_stmt **out, struct ddb_err *err);
void pql_free(struct pql_stmt *s);
/* The parameters' values alone, as pql_compile() checks them (0, or -1
 * with err set): ExecuteTransaction reports them ahead of every
 * statement's own errors. */
int pql_check_params(const json_t *params, struct ddb_err *err);

enum pql_kind pql_kind(const struct pql_stmt *s);
/* The FROM (or INTO) table, and the index of "table"."index" (NULL). */
const char *pql_table(const struct pql_stmt *s);
const char *pql_index(const struct pql_stmt *s);
enum pql_returning pql_returning(const struct pql_stmt *s);
/* INSERT: the item (borrowed). */
const json_t *pql_item(const struct pql_stmt *s);
/* UPDATE: the update as an expression, handed over (the caller frees it,
 * before s: it borrows from s); NULL once taken. */
struct expr *pql_take_update(struct pql_stmt *s);
/* EXISTS: the SELECT it checks (borrowed). */
const struct pql_stmt *pql_exists_select(const struct pql_stmt *s);
/* Whether s has a WHERE clause. */
bool pql_has_where(const struct pql_stmt *s);

/* ------------------------------------------------------------------------
 * Single items: UPDATE, DELETE, EXISTS, and the SELECTs of batches and
 * transactions name one item by its whole primary key.
 * ---------------------------------------------------------------------- */

/*
 * Split the WHERE clause into the key (an equality on each attribute of
 * ks, at the top level of the clause's ANDs) and the rest. *key is a new
 * Key map; *cond a new condition over the rest (NULL when there is none),
 * borrowing from s (free it first). -1 with err set: "Where clause does
 * not contain a mandatory equality on all key attributes", a key value of
 * another type than the schema's, or one that is no scalar.
 */
int pql_key_split(const struct pql_stmt *s, const struct key_schema *ks,
                  json_t **key, struct expr **cond, struct ddb_err *err);

/* What a write adds to the condition its WHERE clause leaves: INSERT
 * writes only where no item is (attribute_not_exists of the partition
 * key), UPDATE and EXISTS need the item (attribute_exists AND the rest),
 * DELETE checks the rest only when the item is there (a DELETE of a
 * missing item succeeds). */
enum pql_guard { PQL_GUARD_ABSENT, PQL_GUARD_EXISTS, PQL_GUARD_IF_EXISTS };
/* cond (taken, may be NULL) with the guard on attribute attr (borrowed):
 * the new condition, or NULL when there is none to check. */
struct expr *pql_guard(struct expr *cond, const char *attr,
                       enum pql_guard g);

/* ------------------------------------------------------------------------
 * SELECT
 * ---------------------------------------------------------------------- */

/* One Query of a SELECT: an equality on the partition key and at most one
 * condition on the sort key (values borrowed from the statement). */
struct pql_branch {
    const json_t *pk;
    enum keycond_op op;             /* KC_NONE: the whole partition */
    const json_t *v1, *v2;
};

/* What the key attributes of the table or index read (hash, range; range
 * NULL when it has none) make of the WHERE clause. */
struct pql_plan {
    size_t n;                       /* Queries; 0: a Scan */
    struct pql_branch *b;           /* owned (pql_plan_fini) */
    bool keyed;                     /* the top-level ANDs fix the partition
                                       key (= or IN): filters on attributes
                                       an index does not project are
                                       refused */
};

/*
 * Plan a SELECT on the key (hash, htype; range, rtype or NULL, 0): each
 * top-level OR branch that fixes the partition key with = (or IN) becomes
 * a Query, its first sort-key condition the key condition; a WHERE that
 * does not fix it in every branch is a Scan. Branches on one partition
 * key value merge into one Query. -1 with err set: a key value of another
 * type than the schema's ("Key attribute's data type should match ..."),
 * or OR branches that overlap on the sort key ("Overlapping conditions
 * with range keys are not supported in where clause").
 */
int pql_plan(const struct pql_stmt *s, const char *hash, char htype,
             const char *range, char rtype, struct pql_plan *plan,
             struct ddb_err *err);
void pql_plan_fini(struct pql_plan *plan);
/* A key condition expression for branch b (expr_keycond() reads it),
 * borrowing from b and the names. */
struct expr *pql_keycond(const struct pql_branch *b, const char *hash,
                         const char *range);
/* The whole WHERE clause as a filter (borrowing from s), or NULL. */
struct expr *pql_filter(const struct pql_stmt *s);
/* ORDER BY: its attribute and direction; false when there is none. */
bool pql_order(const struct pql_stmt *s, const char **name, bool *desc);
/* SELECT *: every attribute (of the item, or of an index projection). */
bool pql_star(const struct pql_stmt *s);
/* The top-level attributes the selected paths start with (SELECT list
 * order, repeats kept) and those the WHERE clause names, into out (cap
 * entries, borrowed). Return how many there are (even past cap). */
size_t pql_select_heads(const struct pql_stmt *s, const char **out,
                        size_t cap);
size_t pql_where_heads(const struct pql_stmt *s, const char **out,
                       size_t cap);
/* The SELECT list over item (borrowed): each path's value under its last
 * name ("SELECT a.b" gives {"b": ...}), or a copy of item for '*'. New
 * reference. */
json_t *pql_project(const struct pql_stmt *s, const json_t *item);
/* A projection expression over the selected paths and, with where, the
 * attributes the WHERE clause names (expr_project builds the nested items
 * a fetch needs), borrowing from s; NULL for '*'. */
struct expr *pql_projection(const struct pql_stmt *s, bool where);

#endif
