/* SPDX-License-Identifier: MIT */
/* model_batch.c - the service model of the multi-item operations:
 * BatchGetItem, BatchWriteItem, TransactGetItems and TransactWriteItems,
 * their request members in the order DynamoDB reports them. Data only;
 * validate.c checks requests against it. */

#include "api/proto/av.h"
#include "api/proto/model.h"

/* ------------------------------------------------------------------------
 * Batches
 * ---------------------------------------------------------------------- */

/* BatchGetItem: RequestItems is a Map<table, KeysAndAttributes>. */
static const struct vfield keys_elem = {
    .name = "member", .type = T_MAP, .flags = F_PARAM,
    .sub = &model_av_elem, .cls = "AttributeValue" };
static const struct vfield kaa_fields[] = {
    { .name = "Keys", .type = T_LIST,
      .flags = F_NOTNULL | F_MINLEN | F_MAXLEN | F_GEN_MIN | F_GEN_MAX,
      .minlen = 1, .maxlen = 100, .sub = &keys_elem },
    ATTRS_TO_GET,
    BOOL("ConsistentRead"),
    STRING("ProjectionExpression"),
    EXPR_NAMES,
    END
};
static const struct vfield kaa_elem = ELEM(kaa_fields, "KeysAndAttributes");

/* A malformed table name is reported ahead of a bad enum, in one message
 * (us-east-1 and eu-west-2, 2026-10: paritysuite/dynamodb-conformance
 * validation-ordering/batchOperations.test.ts); a missing RequestItems
 * still comes after it (dynalite's record). Length errors take the generic
 * form (error-messages/batchGetItem.test.ts). */
static const struct vfield batch_get_item[] = {
    CONSUMED,
    { .name = "RequestItems", .type = T_MAP,
      .flags = F_NOTNULL | F_MINLEN | F_MAXLEN | F_MAPKEYS_TABLE |
               F_GEN_MIN | F_GEN_MAX | F_MAPKEYS_EARLY,
      .minlen = 1, .maxlen = 100, .sub = &kaa_elem,
      .cls = "KeysAndAttributes" },
    END
};

/* BatchWriteItem: RequestItems is a Map<table, List<WriteRequest>>. */
static const struct vfield delreq_fields[] = {
    AVMAP("Key", F_NOTNULL),
    END
};
static const struct vfield putreq_fields[] = {
    AVMAP("Item", F_NOTNULL),
    END
};
static const struct vfield wreq_fields[] = {
    STRUCT("DeleteRequest", delreq_fields, "DeleteRequest"),
    STRUCT("PutRequest", putreq_fields, "PutRequest"),
    END
};
static const struct vfield wreq_elem = ELEM(wreq_fields, "WriteRequest");
static const struct vfield wreq_list = {
    .name = "member", .type = T_LIST, .flags = F_PARAM, .sub = &wreq_elem };

static const struct vfield batch_write_item[] = {
    CONSUMED,
    METRICS,
    /* A list over 25 takes the generic form; an empty list and a
     * malformed table name echo the map, the name only when no enum
     * failed (error-messages/batchWriteItem.test.ts,
     * validation-ordering/batchOperations.test.ts, 2026-10). An empty map
     * passes here: batch.c answers it with its own sentence. */
    { .name = "RequestItems", .type = T_MAP,
      .flags = F_NOTNULL | F_MAXLEN | F_MAPKEYS_TABLE |
               F_MAPVALLEN | F_GEN_MAX | F_MAPKEYS_YIELD,
      .minlen = 1, .maxlen = 25, .vminlen = 1, .vmaxlen = 25,
      .sub = &wreq_list,
      .cls = "java.util.List<com.amazonaws.dynamodb.v20120810.WriteRequest>" },
    END
};

/* ------------------------------------------------------------------------
 * Transactions
 * ---------------------------------------------------------------------- */

/* TransactItems: over 100 items takes the generic form (our echo of 100
 * items would not fit a message). */
#define TRANSACT_ITEMS(elem) { .name = "TransactItems", .type = T_LIST, \
    .flags = F_NOTNULL | F_MINLEN | F_MAXLEN | F_JAVALIST | F_GEN_MAX, \
    .minlen = 1, .maxlen = 100, .sub = &(elem) }

/* The members every transaction write ends with. */
#define TX_TAIL \
    EXPR_NAMES, \
    EXPR_VALUES, \
    RVCF, \
    END

/* TransactWriteItems: TransactItems is a List<TransactWriteItem>, each
 * holding one of ConditionCheck, Put, Delete, Update (service-model
 * order; paths like transactItems.1.member.put.tableName). */
static const struct vfield txcheck_fields[] = {
    AVMAP("Key", F_NOTNULL),
    TABLENAME,
    { .name = "ConditionExpression", .type = T_STR, .flags = F_NOTNULL },
    TX_TAIL
};
static const struct vfield txput_fields[] = {
    AVMAP("Item", F_NOTNULL),
    TABLENAME,
    STRING("ConditionExpression"),
    TX_TAIL
};
static const struct vfield txdelete_fields[] = {
    AVMAP("Key", F_NOTNULL),
    TABLENAME,
    STRING("ConditionExpression"),
    TX_TAIL
};
static const struct vfield txupdate_fields[] = {
    AVMAP("Key", F_NOTNULL),
    { .name = "UpdateExpression", .type = T_STR, .flags = F_NOTNULL },
    TABLENAME,
    STRING("ConditionExpression"),
    TX_TAIL
};
static const struct vfield twi_fields[] = {
    STRUCT("ConditionCheck", txcheck_fields, "ConditionCheck"),
    STRUCT("Put", txput_fields, "Put"),
    STRUCT("Delete", txdelete_fields, "Delete"),
    STRUCT("Update", txupdate_fields, "Update"),
    END
};
static const struct vfield twi_elem = ELEM(twi_fields, "TransactWriteItem");

/* ClientRequestToken is reported ahead of the enums
 * (validation-ordering/transactions.test.ts, us-east-1, 2026-10). */
static const struct vfield transact_write_items[] = {
    TRANSACT_ITEMS(twi_elem),
    { .name = "ClientRequestToken", .type = T_STR,
      .flags = F_MINLEN | F_MAXLEN, .minlen = 1, .maxlen = 36 },
    CONSUMED,
    METRICS,
    END
};

/* TransactGetItems: a List<TransactGetItem>, each {"Get": {...}}. */
static const struct vfield txget_fields[] = {
    AVMAP("Key", F_NOTNULL),
    TABLENAME,
    STRING("ProjectionExpression"),
    EXPR_NAMES,
    END
};
static const struct vfield tgi_fields[] = {
    { .name = "Get", .type = T_STRUCT, .flags = F_NOTNULL,
      .sub = txget_fields, .cls = "Get" },
    END
};
static const struct vfield tgi_elem = ELEM(tgi_fields, "TransactGetItem");

static const struct vfield transact_get_items[] = {
    TRANSACT_ITEMS(tgi_elem),
    CONSUMED,
    END
};

/* BatchGetItem checks its keys in the current value layer, bare; the
 * others keep the older layer (av_current.c). */
const struct api_schema schema_batch_get_item = {
    .fields = batch_get_item, .values = av_current_batch_get };
const struct api_schema schema_batch_write_item = {
    .fields = batch_write_item };
const struct api_schema schema_transact_get_items = {
    .fields = transact_get_items };
const struct api_schema schema_transact_write_items = {
    .fields = transact_write_items };
