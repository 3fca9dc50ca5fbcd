/* SPDX-License-Identifier: MIT */
/* model_partiql.c - the service model of the PartiQL operations:
 * ExecuteStatement, BatchExecuteStatement and ExecuteTransaction, their
 * request members in the service model's order with the API reference's
 * constraints. Data only; validate.c checks requests against it. */

#include "api/proto/model.h"

/* Statement: 1 to 8192 characters (API reference). */
#define STATEMENT { .name = "Statement", .type = T_STR, \
    .flags = F_NOTNULL | F_MINLEN | F_MAXLEN, .minlen = 1, .maxlen = 8192 }
/* Parameters: a list of at least one AttributeValue. */
#define PARAMETERS { .name = "Parameters", .type = T_LIST, \
    .flags = F_MINLEN, .minlen = 1, .sub = &model_av_elem }

static const struct vfield execute_statement[] = {
    STATEMENT,
    PARAMETERS,
    BOOL("ConsistentRead"),
    { .name = "NextToken", .type = T_STR, .flags = F_MINLEN | F_MAXLEN,
      .minlen = 1, .maxlen = 32768 },
    CONSUMED,
    { .name = "Limit", .type = T_INT, .flags = F_MINVAL, .minval = 1 },
    RVCF,
    END
};

/* BatchExecuteStatement: 1 to 25 BatchStatementRequests. */
static const struct vfield batch_stmt_fields[] = {
    STATEMENT,
    PARAMETERS,
    BOOL("ConsistentRead"),
    RVCF,
    END
};
static const struct vfield batch_stmt_elem = ELEM(batch_stmt_fields,
                                                  "BatchStatementRequest");

static const struct vfield batch_execute_statement[] = {
    { .name = "Statements", .type = T_LIST,
      .flags = F_NOTNULL | F_MINLEN | F_MAXLEN | F_GEN_MAX, .minlen = 1,
      .maxlen = 25, .sub = &batch_stmt_elem },
    CONSUMED,
    END
};

/* ExecuteTransaction: 1 to 100 ParameterizedStatements. */
static const struct vfield param_stmt_fields[] = {
    STATEMENT,
    PARAMETERS,
    RVCF,
    END
};
static const struct vfield param_stmt_elem = ELEM(param_stmt_fields,
                                                  "ParameterizedStatement");

static const struct vfield execute_transaction[] = {
    { .name = "TransactStatements", .type = T_LIST,
      .flags = F_NOTNULL | F_MINLEN | F_MAXLEN | F_GEN_MAX, .minlen = 1,
      .maxlen = 100, .sub = &param_stmt_elem },
    { .name = "ClientRequestToken", .type = T_STR,
      .flags = F_MINLEN | F_MAXLEN, .minlen = 1, .maxlen = 36 },
    CONSUMED,
    END
};

const struct api_schema schema_execute_statement = {
    .fields = execute_statement };
const struct api_schema schema_batch_execute_statement = {
    .fields = batch_execute_statement };
const struct api_schema schema_execute_transaction = {
    .fields = execute_transaction };
