/* SPDX-License-Identifier: MIT */
/* model_resources.c - the service model of the calls about a table's
 * resources rather than its items or shape: tags, resource policies,
 * backups, DescribeLimits and DescribeEndpoints, and the global table,
 * Kinesis streaming destination and replica auto scaling calls, their
 * request members in the order DynamoDB reports them. Data only. */

#include "api/proto/model.h"

static const char *const e_backup_type[] = { "USER", "SYSTEM", "AWS_BACKUP",
                                             "ALL", NULL };
static const char *const e_precision[] = { "MILLISECOND", "MICROSECOND",
                                           NULL };

/* ResourceArnString (1..1283). The tag calls answer a missing one
 * themselves (tables/tags.c); the policy calls take the framework's. */
#define RESOURCE_ARN(fl) { .name = "ResourceArn", .type = T_STR, \
                           .flags = (fl) | F_MINLEN | F_MAXLEN, \
                           .minlen = 1, .maxlen = 1283 }
/* A BackupArn is checked by tables/backup.c ("Invalid Backup ARN" even
 * for an empty one: ack-api-quirks DDB-TABLE-457). */
#define BACKUP_ARN(fl) { .name = "BackupArn", .type = T_STR, .flags = fl }
#define REVISION { .name = "ExpectedRevisionId", .type = T_STR, \
                   .flags = F_MINLEN | F_MAXLEN, .minlen = 1, .maxlen = 255 }
/* The legacy global table calls check GlobalTableName's length with
 * their own message (DDB-TABLE-457). */
#define GT_NAME { .name = "GlobalTableName", .type = T_STR, \
                  .flags = F_NOTNULL }

/* ------------------------------------------------------------------------
 * Tags and resource policies
 * ---------------------------------------------------------------------- */

static const struct vfield tag_resource[] = {
    RESOURCE_ARN(0),
    { .name = "Tags", .type = T_LIST, .sub = &model_tag_elem },
    END
};
static const struct vfield untag_resource[] = {
    RESOURCE_ARN(0),
    { .name = "TagKeys", .type = T_LIST, .sub = &model_str_elem },
    END
};
static const struct vfield list_tags[] = {
    RESOURCE_ARN(0),
    STRING("NextToken"),
    END
};
static const struct vfield put_policy[] = {
    RESOURCE_ARN(F_NOTNULL),
    { .name = "Policy", .type = T_STR, .flags = F_NOTNULL },
    REVISION,
    BOOL("ConfirmRemoveSelfResourceAccess"),
    END
};
static const struct vfield get_policy[] = { RESOURCE_ARN(F_NOTNULL), END };
static const struct vfield delete_policy[] = {
    RESOURCE_ARN(F_NOTNULL),
    REVISION,
    END
};

/* ------------------------------------------------------------------------
 * Backups, limits, endpoints
 * ---------------------------------------------------------------------- */

static const struct vfield create_backup[] = {
    TABLENAME,
    { .name = "BackupName", .type = T_STR,
      .flags = F_NOTNULL | F_PATTERN | F_MINLEN | F_MAXLEN, .minlen = 3,
      .maxlen = 255 },
    END
};
static const struct vfield backup_arn_only[] = { BACKUP_ARN(F_NOTNULL),
                                                 END };
static const struct vfield list_backups[] = {
    { .name = "TableName", .type = T_STR,
      .flags = F_TABLENAME | F_MINLEN | F_MAXLEN, .minlen = 1,
      .maxlen = 1024 },
    { .name = "Limit", .type = T_INT, .flags = F_MINVAL | F_MAXVAL,
      .minval = 1, .maxval = 100 },
    { .name = "TimeRangeLowerBound", .type = T_TIME },
    { .name = "TimeRangeUpperBound", .type = T_TIME },
    { .name = "ExclusiveStartBackupArn", .type = T_STR,
      .flags = F_MINLEN | F_MAXLEN, .minlen = 37, .maxlen = 1024 },
    ENUM("BackupType", e_backup_type),
    END
};
static const struct vfield table_only[] = { TABLENAME, END };
static const struct vfield nothing[] = { END };
/* UpdateContinuousBackups (tables/pitr.c): RecoveryPeriodInDays 1 to 35
 * (the API reference). */
static const struct vfield pitr_spec_fields[] = {
    { .name = "PointInTimeRecoveryEnabled", .type = T_BOOL,
      .flags = F_NOTNULL },
    { .name = "RecoveryPeriodInDays", .type = T_INT,
      .flags = F_MINVAL | F_MAXVAL, .minval = 1, .maxval = 35 },
    END
};
static const struct vfield update_cb[] = {
    TABLENAME,
    { .name = "PointInTimeRecoverySpecification", .type = T_STRUCT,
      .flags = F_NOTNULL, .sub = pitr_spec_fields,
      .cls = "PointInTimeRecoverySpecification" },
    END
};

/* ------------------------------------------------------------------------
 * Global tables, Kinesis streaming destinations, replica auto scaling
 * ---------------------------------------------------------------------- */

static const struct vfield region_fields[] = { STRING("RegionName"), END };
static const struct vfield replica_elem = ELEM(region_fields, "Replica");
static const struct vfield replica_update_fields[] = {
    STRUCT("Create", region_fields, "CreateReplicaAction"),
    STRUCT("Delete", region_fields, "DeleteReplicaAction"),
    END
};
static const struct vfield replica_update_elem =
    ELEM(replica_update_fields, "ReplicaUpdate");

static const struct vfield create_global_table[] = {
    GT_NAME,
    { .name = "ReplicationGroup", .type = T_LIST, .flags = F_NOTNULL,
      .sub = &replica_elem },
    END
};
static const struct vfield update_global_table[] = {
    GT_NAME,
    { .name = "ReplicaUpdates", .type = T_LIST, .flags = F_NOTNULL,
      .sub = &replica_update_elem },
    END
};
static const struct vfield global_table_only[] = { GT_NAME, END };
static const struct vfield list_global_tables[] = {
    { .name = "ExclusiveStartGlobalTableName", .type = T_STR,
      .flags = F_PATTERN | F_MINLEN | F_MAXLEN, .minlen = 3, .maxlen = 255 },
    { .name = "Limit", .type = T_INT, .flags = F_MINVAL, .minval = 1 },
    STRING("RegionName"),
    END
};

/* AutoScalingSettingsUpdate, its members' types. */
static const struct vfield target_tracking_fields[] = {
    BOOL("DisableScaleIn"),
    { .name = "ScaleInCooldown", .type = T_INT },
    { .name = "ScaleOutCooldown", .type = T_INT },
    { .name = "TargetValue", .type = T_LONG },
    END
};
static const struct vfield policy_update_fields[] = {
    STRING("PolicyName"),
    STRUCT("TargetTrackingScalingPolicyConfiguration",
           target_tracking_fields,
           "AutoScalingTargetTrackingScalingPolicyConfigurationUpdate"),
    END
};
static const struct vfield as_update_fields[] = {
    { .name = "MinimumUnits", .type = T_LONG },
    { .name = "MaximumUnits", .type = T_LONG },
    BOOL("AutoScalingDisabled"),
    STRING("AutoScalingRoleArn"),
    STRUCT("ScalingPolicyUpdate", policy_update_fields,
           "AutoScalingPolicyUpdate"),
    END
};
#define AS_UPDATE(n) STRUCT(n, as_update_fields, "AutoScalingSettingsUpdate")
static const struct vfield gsi_as_fields[] = {
    STRING("IndexName"),
    AS_UPDATE("ProvisionedWriteCapacityAutoScalingUpdate"),
    END
};
static const struct vfield gsi_as_elem =
    ELEM(gsi_as_fields, "GlobalSecondaryIndexAutoScalingUpdate");
static const struct vfield replica_gsi_as_fields[] = {
    STRING("IndexName"),
    AS_UPDATE("ProvisionedReadCapacityAutoScalingUpdate"),
    END
};
static const struct vfield replica_gsi_as_elem =
    ELEM(replica_gsi_as_fields,
         "ReplicaGlobalSecondaryIndexAutoScalingUpdate");
static const struct vfield replica_as_fields[] = {
    STRING("RegionName"),
    { .name = "ReplicaGlobalSecondaryIndexUpdates", .type = T_LIST,
      .sub = &replica_gsi_as_elem },
    AS_UPDATE("ReplicaProvisionedReadCapacityAutoScalingUpdate"),
    END
};
static const struct vfield replica_as_elem =
    ELEM(replica_as_fields, "ReplicaAutoScalingUpdate");

static const struct vfield update_replica_auto_scaling[] = {
    { .name = "GlobalSecondaryIndexUpdates", .type = T_LIST,
      .flags = F_MINLEN, .minlen = 1, .sub = &gsi_as_elem },
    TABLENAME,
    AS_UPDATE("ProvisionedWriteCapacityAutoScalingUpdate"),
    { .name = "ReplicaUpdates", .type = T_LIST, .flags = F_MINLEN,
      .minlen = 1, .sub = &replica_as_elem },
    END
};

/* UpdateGlobalTableSettings: the top-level members' types. */
static const struct vfield gt_settings_update[] = {
    GT_NAME,
    ENUM("GlobalTableBillingMode", model_e_billing),
    { .name = "GlobalTableProvisionedWriteCapacityUnits", .type = T_LONG,
      .flags = F_MINVAL, .minval = 1 },
    AS_UPDATE("GlobalTableProvisionedWriteCapacityAutoScalingSettingsUpdate"),
    { .name = "GlobalTableGlobalSecondaryIndexSettingsUpdate",
      .type = T_LIST, .flags = F_MINLEN | F_MAXLEN, .minlen = 1,
      .maxlen = 20, .sub = &gsi_as_elem },
    { .name = "ReplicaSettingsUpdate", .type = T_LIST,
      .flags = F_MINLEN | F_MAXLEN, .minlen = 1, .maxlen = 50,
      .sub = &replica_as_elem },
    END
};

static const struct vfield kinesis_config_fields[] = {
    ENUM("ApproximateCreationDateTimePrecision", e_precision),
    END
};
#define STREAM_ARN { .name = "StreamArn", .type = T_STR, \
                     .flags = F_NOTNULL | F_MINLEN | F_MAXLEN, \
                     .minlen = 37, .maxlen = 1024 }
static const struct vfield kinesis_destination[] = {
    TABLENAME,
    STREAM_ARN,
    STRUCT("EnableKinesisStreamingConfiguration", kinesis_config_fields,
           "EnableKinesisStreamingConfiguration"),
    END
};
static const struct vfield update_kinesis[] = {
    TABLENAME,
    STREAM_ARN,
    STRUCT("UpdateKinesisStreamingConfiguration", kinesis_config_fields,
           "UpdateKinesisStreamingConfiguration"),
    END
};

const struct api_schema schema_tag_resource = { .fields = tag_resource };
const struct api_schema schema_untag_resource = { .fields = untag_resource };
const struct api_schema schema_list_tags_of_resource = {
    .fields = list_tags };
const struct api_schema schema_put_resource_policy = { .fields = put_policy };
const struct api_schema schema_get_resource_policy = { .fields = get_policy };
const struct api_schema schema_delete_resource_policy = {
    .fields = delete_policy };
const struct api_schema schema_create_backup = { .fields = create_backup };
const struct api_schema schema_describe_backup = {
    .fields = backup_arn_only };
const struct api_schema schema_delete_backup = { .fields = backup_arn_only };
const struct api_schema schema_list_backups = { .fields = list_backups };
const struct api_schema schema_describe_continuous_backups = {
    .fields = table_only };
const struct api_schema schema_update_continuous_backups = {
    .fields = update_cb };
const struct api_schema schema_describe_limits = { .fields = nothing };
const struct api_schema schema_describe_endpoints = { .fields = nothing };
const struct api_schema schema_create_global_table = {
    .fields = create_global_table };
const struct api_schema schema_update_global_table = {
    .fields = update_global_table };
const struct api_schema schema_describe_global_table = {
    .fields = global_table_only };
const struct api_schema schema_describe_global_table_settings = {
    .fields = global_table_only };
const struct api_schema schema_update_global_table_settings = {
    .fields = gt_settings_update };
const struct api_schema schema_list_global_tables = {
    .fields = list_global_tables };
const struct api_schema schema_describe_kinesis_streaming_destination = {
    .fields = table_only };
const struct api_schema schema_enable_kinesis_streaming_destination = {
    .fields = kinesis_destination };
const struct api_schema schema_disable_kinesis_streaming_destination = {
    .fields = kinesis_destination };
const struct api_schema schema_update_kinesis_streaming_destination = {
    .fields = update_kinesis };
const struct api_schema schema_describe_table_replica_auto_scaling = {
    .fields = table_only };
const struct api_schema schema_update_table_replica_auto_scaling = {
    .fields = update_replica_auto_scaling };
