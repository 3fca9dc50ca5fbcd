/* SPDX-License-Identifier: MIT */
/* model_items.c - the service model of the single-item operations
 * (GetItem, PutItem, DeleteItem, UpdateItem) and of Query and Scan: their
 * request members, in the order DynamoDB reports them, with the legacy
 * parameters' shapes (Condition, ExpectedAttributeValue, ...). Data only;
 * validate.c checks requests against it. */

#include "api/proto/av.h"
#include "api/proto/model.h"

static const char *const e_retvals[] = { "ALL_NEW", "UPDATED_OLD", "ALL_OLD",
                                         "NONE", "UPDATED_NEW", NULL };
static const char *const e_condop[] = { "OR", "AND", NULL };
static const char *const e_cmpop[] = {
    "IN", "NULL", "BETWEEN", "LT", "NOT_CONTAINS", "EQ", "GT", "NOT_NULL",
    "NE", "LE", "BEGINS_WITH", "GE", "CONTAINS", NULL };
static const char *const e_select[] = { "SPECIFIC_ATTRIBUTES", "COUNT",
                                        "ALL_ATTRIBUTES",
                                        "ALL_PROJECTED_ATTRIBUTES", NULL };

#define AV_VALUE { .name = "Value", .type = T_AV, .cls = "AttributeValue" }
#define AV_LIST { .name = "AttributeValueList", .type = T_LIST, \
                  .sub = &model_av_elem }
#define CMP_OP { .name = "ComparisonOperator", .type = T_STR, \
                 .flags = F_NOTNULL, .enums = e_cmpop }

/* Condition (KeyConditions, QueryFilter, ScanFilter) */
static const struct vfield cond_fields[] = { AV_LIST, CMP_OP, END };
/* Query's KeyConditions checks the operator first. */
static const struct vfield keycond_fields[] = { CMP_OP, AV_LIST, END };
static const struct vfield cond_elem = ELEM(cond_fields, "Condition");
static const struct vfield keycond_elem = ELEM(keycond_fields, "Condition");

/* ExpectedAttributeValue (Expected) */
static const struct vfield expected_fields[] = {
    AV_LIST,
    ENUM("ComparisonOperator", e_cmpop),
    BOOL("Exists"),
    AV_VALUE,
    END
};
static const struct vfield expected_elem =
    ELEM(expected_fields, "ExpectedAttributeValue");
#define EXPECTED { .name = "Expected", .type = T_MAP, \
                   .sub = &expected_elem, .cls = "ExpectedAttributeValue" }

/* AttributeValueUpdate (AttributeUpdates) */
static const struct vfield avu_fields[] = {
    STRING("Action"),
    AV_VALUE,
    END
};
static const struct vfield avu_elem = ELEM(avu_fields, "AttributeValueUpdate");

/* ------------------------------------------------------------------------
 * Operations. Member order matters: DynamoDB checks members in a fixed
 * order that is neither alphabetical nor the model's. The tables list them
 * in the order DynamoDB reports them (as recorded by dynalite); members
 * added to the API later follow in service-model order. Members not listed
 * are ignored, as DynamoDB ignores unknown members.
 * ---------------------------------------------------------------------- */

static const struct vfield get_item[] = {
    CONSUMED,
    ATTRS_TO_GET,
    TABLENAME,
    AVMAP("Key", F_NOTNULL),
    BOOL("ConsistentRead"),
    STRING("ProjectionExpression"),
    EXPR_NAMES,
    END
};

/* The members every conditional write ends with. */
#define CONDITION_TAIL \
    STRING("ConditionExpression"), \
    EXPR_VALUES, \
    EXPR_NAMES, \
    RVCF, \
    END

static const struct vfield put_item[] = {
    CONSUMED,
    TABLENAME,
    AVMAP("Item", F_NOTNULL),
    ENUM("ConditionalOperator", e_condop),
    EXPECTED,
    ENUM("ReturnValues", e_retvals),
    METRICS,
    CONDITION_TAIL
};

static const struct vfield delete_item[] = {
    CONSUMED,
    TABLENAME,
    ENUM("ReturnValues", e_retvals),
    METRICS,
    AVMAP("Key", F_NOTNULL),
    ENUM("ConditionalOperator", e_condop),
    EXPECTED,
    CONDITION_TAIL
};

/* UpdateItem's members from ConditionalOperator on. */
#define UPDATE_ITEM_TAIL \
    ENUM("ConditionalOperator", e_condop), \
    AVMAP("Key", F_NOTNULL), \
    EXPECTED, \
    { .name = "AttributeUpdates", .type = T_MAP, .sub = &avu_elem, \
      .cls = "AttributeValueUpdate" }, \
    STRING("ConditionExpression"), \
    STRING("UpdateExpression"), \
    EXPR_VALUES, \
    EXPR_NAMES, \
    RVCF, \
    END

/* UpdateItem without a Key: every failure, joined member by member, the
 * conditional operator before the missing key (eu-west-2 and us-east-1,
 * 2026-10: paritysuite/dynamodb-conformance validation-ordering/
 * updateItem.test.ts). */
static const struct vfield update_item[] = {
    CONSUMED,
    TABLENAME,
    METRICS,
    ENUM("ReturnValues", e_retvals),
    UPDATE_ITEM_TAIL
};

/* UpdateItem with a Key: DynamoDB stops at the first failure, ReturnValues
 * first ("stops at the first invalid enum (ReturnValues) and reports one
 * error", 2026-06 capture, same test file). */
static const struct vfield update_item_keyed[] = {
    ENUM("ReturnValues", e_retvals),
    CONSUMED,
    TABLENAME,
    METRICS,
    UPDATE_ITEM_TAIL
};

static const struct vfield query[] = {
    ENUM("Select", e_select),
    INDEXNAME(0),
    CONSUMED,
    { .name = "QueryFilter", .type = T_MAP, .sub = &cond_elem,
      .cls = "Condition" },
    TABLENAME,
    ENUM("ConditionalOperator", e_condop),
    ATTRS_TO_GET,
    /* "DynamoDB uses capital-L 'Limit' in the message" (paritysuite/
     * dynamodb-conformance validation-ordering/query.test.ts) */
    { .name = "Limit", .type = T_INT, .flags = F_MINVAL | F_KEEPCASE,
      .minval = 1 },
    { .name = "KeyConditions", .type = T_MAP, .sub = &keycond_elem,
      .cls = "Condition" },
    AVMAP("ExclusiveStartKey", 0),
    BOOL("ConsistentRead"),
    BOOL("ScanIndexForward"),
    STRING("KeyConditionExpression"),
    STRING("FilterExpression"),
    STRING("ProjectionExpression"),
    EXPR_VALUES,
    EXPR_NAMES,
    END
};

/* Query: a ConditionalOperator outside its enum is reported alone, in the
 * newer enum form ("[ALL, OR]" as DynamoDB prints it; eu-west-2 and
 * us-east-1, 2026-10: validation-ordering/query.test.ts). */
static const struct vsolo query_condop = {
    .name = "ConditionalOperator", .enums = e_condop,
    .msg = "Failed to satisfy constraint: Member must satisfy enum value "
           "set: [ALL, OR]" };

static const struct vfield scan[] = {
    ENUM("Select", e_select),
    INDEXNAME(0),
    { .name = "TotalSegments", .type = T_INT, .flags = F_MINVAL | F_MAXVAL,
      .minval = 1, .maxval = 1000000 },
    CONSUMED,
    TABLENAME,
    ENUM("ConditionalOperator", e_condop),
    { .name = "ScanFilter", .type = T_MAP, .sub = &cond_elem,
      .cls = "Condition" },
    { .name = "Segment", .type = T_INT, .flags = F_MINVAL | F_MAXVAL,
      .minval = 0, .maxval = 999999 },
    { .name = "Limit", .type = T_INT, .flags = F_MINVAL, .minval = 1 },
    ATTRS_TO_GET,
    AVMAP("ExclusiveStartKey", 0),
    STRING("FilterExpression"),
    STRING("ProjectionExpression"),
    EXPR_VALUES,
    EXPR_NAMES,
    BOOL("ConsistentRead"),
    END
};

/* SearchVectors (ops/search.c runs it after its own deserialiser): the
 * members in the service model's order; TopK's maximum is the handler's
 * ("Provided TopK value ... is out of valid range"), its minimum the
 * model's (eu-west-2, 2026-08: nubo-db/dynamodb-conformance
 * vectorSearch/validation.test.ts, TopK 0). */
static const struct vfield search_vectors[] = {
    TABLENAME,
    INDEXNAME(F_NOTNULL),
    { .name = "SearchVector", .type = T_LIST, .flags = F_NOTNULL,
      .sub = &model_av_elem },
    { .name = "TopK", .type = T_INT, .flags = F_NOTNULL | F_MINVAL,
      .minval = 1 },
    CONSUMED,
    EXPR_NAMES,
    EXPR_VALUES,
    STRING("ProjectionExpression"),
    STRING("SearchConditionExpression"),
    END
};

/* GetItem and Query check values in the current layer bare; the writes
 * inside the envelope; Scan keeps the older layer (av_current.c). */
const struct api_schema schema_get_item = {
    .fields = get_item, .values = av_current_request };
const struct api_schema schema_put_item = {
    .fields = put_item, .values = av_current_request,
    .values_enveloped = true };
const struct api_schema schema_delete_item = {
    .fields = delete_item, .values = av_current_request,
    .values_enveloped = true };
const struct api_schema schema_update_item = {
    .fields = update_item, .keyed = update_item_keyed,
    .values = av_current_request, .values_enveloped = true };
const struct api_schema schema_query = {
    .fields = query, .solo = &query_condop, .values = av_current_request };
const struct api_schema schema_scan = { .fields = scan };
const struct api_schema schema_search_vectors = { .fields = search_vectors };
