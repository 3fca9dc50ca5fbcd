/* SPDX-License-Identifier: MIT */
/* model_tables.c - the service model of the control plane: CreateTable,
 * DescribeTable, UpdateTable, DeleteTable, ListTables, the contributor
 * insights calls and RestoreTableFromBackup (CreateTable's shapes), their
 * request members in the order DynamoDB reports them. Data only;
 * validate.c checks requests against it. */

#include "api/proto/model.h"

const char *const model_e_billing[] = { "PROVISIONED", "PAY_PER_REQUEST",
                                       NULL };
static const char *const e_attrtype[] = { "B", "N", "S", NULL };
static const char *const e_keytype[] = { "HASH", "RANGE", NULL };
static const char *const e_projtype[] = { "ALL", "INCLUDE", "KEYS_ONLY",
                                          NULL };
static const char *const e_viewtype[] = { "NEW_IMAGE", "OLD_IMAGE",
                                          "NEW_AND_OLD_IMAGES", "KEYS_ONLY",
                                          NULL };
static const char *const e_ssetype[] = { "AES256", "KMS", NULL };
static const char *const e_ci_action[] = { "ENABLE", "DISABLE", NULL };
static const char *const e_ci_mode[] = { "ACCESSED_AND_THROTTLED_KEYS",
                                         "THROTTLED_KEYS", NULL };
static const char *const e_distance[] = { "COSINE", "DOT_PRODUCT",
                                          "EUCLIDEAN", NULL };
static const char *const e_schema_type[] = { "HASH", "INLINE_FILTER", NULL };

/* ------------------------------------------------------------------------
 * Shapes: throughput, keys, indexes, streams, encryption, tags
 * ---------------------------------------------------------------------- */

/* ProvisionedThroughput */
static const struct vfield pt_fields[] = {
    { .name = "WriteCapacityUnits", .type = T_LONG,
      .flags = F_NOTNULL | F_MINVAL, .minval = 1 },
    { .name = "ReadCapacityUnits", .type = T_LONG,
      .flags = F_NOTNULL | F_MINVAL, .minval = 1 },
    END
};
#define PROV_THROUGHPUT(fl) { .name = "ProvisionedThroughput", \
                              .type = T_STRUCT, .flags = fl, \
                              .sub = pt_fields, \
                              .cls = "ProvisionedThroughput" }

/* A key attribute's name (AttributeDefinition, KeySchemaElement): the
 * service model's KeySchemaAttributeName, 1..255, which DynamoDB enforces
 * for table and index keys alike (Alternator test_limits.py
 * test_limit_attribute_length_key_bad). */
#define KEY_ATTR_NAME { .name = "AttributeName", .type = T_STR, \
                        .flags = F_NOTNULL | F_MINLEN | F_MAXLEN, \
                        .minlen = 1, .maxlen = 255 }

/* AttributeDefinitions */
static const struct vfield attrdef_fields[] = {
    KEY_ATTR_NAME,
    { .name = "AttributeType", .type = T_STR, .flags = F_NOTNULL,
      .enums = e_attrtype },
    END
};
static const struct vfield attrdef_elem =
    ELEM(attrdef_fields, "AttributeDefinition");

/* KeySchema: the table's checks KeyType against the enum; an index's
 * KeySchema does not (the handler does). */
static const struct vfield kse_fields[] = {
    KEY_ATTR_NAME,
    { .name = "KeyType", .type = T_STR, .flags = F_NOTNULL,
      .enums = e_keytype },
    END
};
static const struct vfield kse_elem = ELEM(kse_fields, "KeySchemaElement");
static const struct vfield ikse_fields[] = {
    KEY_ATTR_NAME,
    { .name = "KeyType", .type = T_STR, .flags = F_NOTNULL },
    END
};
static const struct vfield ikse_elem = ELEM(ikse_fields, "KeySchemaElement");
#define KEYSCHEMA(elem) { .name = "KeySchema", .type = T_LIST, \
                          .flags = F_NOTNULL | F_MINLEN | F_MAXLEN, \
                          .minlen = 1, .maxlen = 2, .sub = &(elem) }
/* A GSI's KeySchema: multi-attribute keys allow up to 4 HASH and 4 RANGE
 * attributes, so the API model gives no maximum length (API reference,
 * GlobalSecondaryIndex: "Minimum number of 1 item"); tables/table.c
 * check_index_shape checks the counts and the order. */
#define GSI_KEYSCHEMA(elem) { .name = "KeySchema", .type = T_LIST, \
                              .flags = F_NOTNULL | F_MINLEN, \
                              .minlen = 1, .sub = &(elem) }

static const struct vfield proj_fields[] = {
    ENUM("ProjectionType", e_projtype),
    /* NonKeyAttributeName is 1..255 characters (API reference,
     * Projection), an empty name included. */
    { .name = "NonKeyAttributes", .type = T_LIST,
      .flags = F_MINLEN | F_ELEMLEN, .minlen = 1, .vminlen = 1,
      .vmaxlen = 255, .sub = &model_str_elem },
    END
};
#define PROJECTION { .name = "Projection", .type = T_STRUCT, \
                     .flags = F_NOTNULL, .sub = proj_fields, \
                     .cls = "Projection" }

static const struct vfield lsi_fields[] = {
    INDEXNAME(F_NOTNULL),
    KEYSCHEMA(ikse_elem),
    PROJECTION,
    END
};
static const struct vfield lsi_elem = ELEM(lsi_fields, "LocalSecondaryIndex");

static const struct vfield odt_fields[] = {
    { .name = "MaxReadRequestUnits", .type = T_LONG },
    { .name = "MaxWriteRequestUnits", .type = T_LONG },
    END
};
#define ON_DEMAND STRUCT("OnDemandThroughput", odt_fields, "OnDemandThroughput")
static const struct vfield warm_fields[] = {
    { .name = "ReadUnitsPerSecond", .type = T_LONG },
    { .name = "WriteUnitsPerSecond", .type = T_LONG },
    END
};
#define WARM STRUCT("WarmThroughput", warm_fields, "WarmThroughput")

static const struct vfield gsi_fields[] = {
    INDEXNAME(F_NOTNULL),
    GSI_KEYSCHEMA(ikse_elem),
    PROJECTION,
    PROV_THROUGHPUT(0),
    ON_DEMAND,
    WARM,
    END
};
static const struct vfield gsi_elem = ELEM(gsi_fields, "GlobalSecondaryIndex");

static const struct vfield stream_fields[] = {
    { .name = "StreamEnabled", .type = T_BOOL, .flags = F_NOTNULL },
    ENUM("StreamViewType", e_viewtype),
    END
};
#define STREAM_SPEC \
    STRUCT("StreamSpecification", stream_fields, "StreamSpecification")
static const struct vfield sse_fields[] = {
    BOOL("Enabled"),
    ENUM("SSEType", e_ssetype),
    STRING("KMSMasterKeyId"),
    END
};
#define SSE_SPEC STRUCT("SSESpecification", sse_fields, "SSESpecification")
/* A Tag's key and value are checked by tables/tags.c, with DynamoDB's own
 * messages ("The Tag Key provided is invalid, Key: null" for a missing
 * one: ack-api-quirks DDB-TABLE-457, CreateTable and TagResource). */
static const struct vfield tag_fields[] = {
    STRING("Key"),
    STRING("Value"),
    END
};
const struct vfield model_tag_elem = ELEM(tag_fields, "Tag");

/* GlobalSecondaryIndexUpdates */
static const struct vfield gsiu_update_fields[] = {
    INDEXNAME(F_NOTNULL),
    PROV_THROUGHPUT(0),                 /* optional: on-demand tables */
    ON_DEMAND,
    WARM,
    END
};
static const struct vfield gsiu_create_fields[] = {
    PROJECTION,
    INDEXNAME(F_NOTNULL),
    PROV_THROUGHPUT(0),                 /* optional: on-demand tables */
    GSI_KEYSCHEMA(ikse_elem),
    ON_DEMAND,
    WARM,
    END
};
static const struct vfield gsiu_delete_fields[] = {
    INDEXNAME(F_NOTNULL),
    END
};
static const struct vfield gsiu_fields[] = {
    STRUCT("Update", gsiu_update_fields, "UpdateGlobalSecondaryIndexAction"),
    STRUCT("Create", gsiu_create_fields, "CreateGlobalSecondaryIndexAction"),
    STRUCT("Delete", gsiu_delete_fields, "DeleteGlobalSecondaryIndexAction"),
    END
};
static const struct vfield gsiu_elem =
    ELEM(gsiu_fields, "GlobalSecondaryIndexUpdate");

/* VectorIndexes (CreateTable) and VectorIndexUpdates (UpdateTable): the
 * shapes of the API reference (VectorIndex, CreateVectorIndexAction,
 * SearchSchemaElement), members in its order. */
static const struct vfield vattr_fields[] = { KEY_ATTR_NAME, END };
static const struct vfield ssel_fields[] = {
    KEY_ATTR_NAME,
    { .name = "SearchSchemaElementType", .type = T_STR, .flags = F_NOTNULL,
      .enums = e_schema_type },
    END
};
static const struct vfield ssel_elem = ELEM(ssel_fields,
                                            "SearchSchemaElement");
static const struct vfield vindex_fields[] = {
    INDEXNAME(F_NOTNULL),
    { .name = "VectorAttribute", .type = T_STRUCT, .flags = F_NOTNULL,
      .sub = vattr_fields, .cls = "VectorAttributeDefinition" },
    PROJECTION,
    { .name = "Dimensions", .type = T_LONG, .flags = F_NOTNULL | F_MINVAL,
      .minval = 1 },
    { .name = "DistanceFunction", .type = T_STR, .flags = F_NOTNULL,
      .enums = e_distance },
    { .name = "SearchSchema", .type = T_LIST, .flags = F_MINLEN,
      .minlen = 1, .sub = &ssel_elem },
    END
};
static const struct vfield vindex_elem = ELEM(vindex_fields, "VectorIndex");
static const struct vfield vdelete_fields[] = { INDEXNAME(F_NOTNULL), END };
static const struct vfield viu_fields[] = {
    STRUCT("Create", vindex_fields, "CreateVectorIndexAction"),
    STRUCT("Delete", vdelete_fields, "DeleteVectorIndexAction"),
    END
};
static const struct vfield viu_elem = ELEM(viu_fields, "VectorIndexUpdate");

/* ------------------------------------------------------------------------
 * Operations (see model_items.c on the order of members)
 * ---------------------------------------------------------------------- */

static const struct vfield create_table[] = {
    { .name = "AttributeDefinitions", .type = T_LIST, .flags = F_NOTNULL,
      .sub = &attrdef_elem },
    TABLENAME,
    ENUM("BillingMode", model_e_billing),
    PROV_THROUGHPUT(0),
    KEYSCHEMA(kse_elem),
    /* GlobalSecondaryIndexes before LocalSecondaryIndexes, whatever the
     * request's order (eu-west-2, us-east-1, 2026-10:
     * paritysuite/dynamodb-conformance validation-ordering/
     * createTable.test.ts) */
    { .name = "GlobalSecondaryIndexes", .type = T_LIST, .sub = &gsi_elem },
    { .name = "LocalSecondaryIndexes", .type = T_LIST, .sub = &lsi_elem },
    STREAM_SPEC,
    SSE_SPEC,
    { .name = "Tags", .type = T_LIST, .sub = &model_tag_elem },
    /* No enum here: DynamoDB checks TableClass after the shape, with a
     * message of its own (tables/check.c tables_check_table_class). */
    STRING("TableClass"),
    BOOL("DeletionProtectionEnabled"),
    WARM,
    STRING("ResourcePolicy"),
    ON_DEMAND,
    { .name = "VectorIndexes", .type = T_LIST, .sub = &vindex_elem },
    END
};

static const struct vfield table_only[] = { TABLENAME, END };

static const struct vfield list_tables[] = {
    { .name = "Limit", .type = T_INT, .flags = F_MINVAL | F_MAXVAL,
      .minval = 1, .maxval = 100 },
    { .name = "ExclusiveStartTableName", .type = T_STR,
      .flags = F_PATTERN | F_MINLEN | F_MAXLEN, .minlen = 3, .maxlen = 255 },
    END
};

static const struct vfield update_table[] = {
    TABLENAME,
    PROV_THROUGHPUT(0),
    ENUM("BillingMode", model_e_billing),
    { .name = "GlobalSecondaryIndexUpdates", .type = T_LIST,
      .sub = &gsiu_elem },
    { .name = "AttributeDefinitions", .type = T_LIST, .sub = &attrdef_elem },
    STREAM_SPEC,
    SSE_SPEC,
    STRING("TableClass"),
    BOOL("DeletionProtectionEnabled"),
    ON_DEMAND,
    WARM,
    { .name = "VectorIndexUpdates", .type = T_LIST, .sub = &viu_elem },
    END
};

/* Describe/Update/ListContributorInsights (tables/insights.c). */
static const struct vfield describe_ci[] = {
    TABLENAME,
    INDEXNAME(0),
    END
};
static const struct vfield update_ci[] = {
    TABLENAME,
    INDEXNAME(0),
    { .name = "ContributorInsightsAction", .type = T_STR, .flags = F_NOTNULL,
      .enums = e_ci_action },
    ENUM("ContributorInsightsMode", e_ci_mode),
    END
};
static const struct vfield list_ci[] = {
    { .name = "TableName", .type = T_STR,
      .flags = F_TABLENAME | F_MINLEN | F_MAXLEN, .minlen = 1,
      .maxlen = 1024 },
    STRING("NextToken"),
    { .name = "MaxResults", .type = T_INT, .flags = F_MAXVAL,
      .maxval = 100 },
    END
};

/* The overrides both restores take. */
#define RESTORE_OVERRIDES \
    ENUM("BillingModeOverride", model_e_billing), \
    { .name = "GlobalSecondaryIndexOverride", .type = T_LIST, \
      .sub = &gsi_elem }, \
    { .name = "LocalSecondaryIndexOverride", .type = T_LIST, \
      .sub = &lsi_elem }, \
    { .name = "ProvisionedThroughputOverride", .type = T_STRUCT, \
      .sub = pt_fields, .cls = "ProvisionedThroughput" }, \
    STRUCT("OnDemandThroughputOverride", odt_fields, "OnDemandThroughput"), \
    STRUCT("SSESpecificationOverride", sse_fields, "SSESpecification")

/* RestoreTableFromBackup (tables/restore.c): its overrides take
 * CreateTable's shapes. TargetTableName's length and BackupArn are checked
 * there, with DynamoDB's own messages ("TableName must be at least 3
 * characters long ...", "Invalid Backup ARN": ack-api-quirks
 * DDB-TABLE-457). */
static const struct vfield restore_table[] = {
    { .name = "TargetTableName", .type = T_STR, .flags = F_NOTNULL },
    { .name = "BackupArn", .type = T_STR, .flags = F_NOTNULL },
    RESTORE_OVERRIDES,
    END
};

/* RestoreTableToPointInTime (tables/restore.c): the same overrides; the
 * source by name or ARN and the time by RestoreDateTime or
 * UseLatestRestorableTime, one of each, are checked there. */
static const struct vfield restore_pitr[] = {
    { .name = "SourceTableArn", .type = T_STR, .flags = F_MINLEN | F_MAXLEN,
      .minlen = 1, .maxlen = 1024 },
    { .name = "SourceTableName", .type = T_STR,
      .flags = F_TABLENAME | F_MINLEN | F_MAXLEN, .minlen = 3,
      .maxlen = 255 },
    { .name = "TargetTableName", .type = T_STR, .flags = F_NOTNULL },
    BOOL("UseLatestRestorableTime"),
    { .name = "RestoreDateTime", .type = T_TIME },
    RESTORE_OVERRIDES,
    END
};

const struct api_schema schema_restore_table_to_point_in_time = {
    .fields = restore_pitr };
const struct api_schema schema_create_table = { .fields = create_table };
const struct api_schema schema_restore_table_from_backup = {
    .fields = restore_table };
const struct api_schema schema_delete_table = { .fields = table_only };
const struct api_schema schema_describe_table = { .fields = table_only };
const struct api_schema schema_list_tables = { .fields = list_tables };
const struct api_schema schema_update_table = { .fields = update_table };
const struct api_schema schema_describe_contributor_insights = {
    .fields = describe_ci };
const struct api_schema schema_update_contributor_insights = {
    .fields = update_ci };
const struct api_schema schema_list_contributor_insights = {
    .fields = list_ci };
