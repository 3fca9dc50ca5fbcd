/* SPDX-License-Identifier: MIT */
/* check_restore.c - backup.c and restore.c through api_dispatch() on an
 * in-memory store: CreateBackup and what DescribeBackup reports of the
 * source, ListBackups' filters and paging, RestoreTableFromBackup with the
 * overrides DynamoDB allows and the errors in DynamoDB's order,
 * DeleteBackup, DescribeContinuousBackups. Expected answers: ack-api-
 * quirks' backup.md and table-restore.md (DDB-BACKUP-0xx, DDB-TABLE-2xx,
 * 2026-10). The storage side (consistency, files, sweeping) is
 * tests/unit/storage/check_backup.c. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "storage/util.h"
#include "tests/unit/tables/tcall.h"

#define N_ITEMS 12

/* A PROVISIONED table src (pk S, g S, GSI byg KEYS_ONLY, 7/3, the index
 * 5/5) with N_ITEMS items, g cycling over three values. */
static void
setup(void)
{
    char pk[8], g[8];

    tcall_setup();
    tcall_ok("CreateTable", json_pack(
        "{s:s, s:[{s:s, s:s}, {s:s, s:s}], s:[{s:s, s:s}],"
        " s:{s:i, s:i}, s:[{s:s, s:[{s:s, s:s}], s:{s:s}, s:{s:i, s:i}}]}",
        "TableName", "src", "AttributeDefinitions", "AttributeName", "pk",
        "AttributeType", "S", "AttributeName", "g", "AttributeType", "S",
        "KeySchema", "AttributeName", "pk", "KeyType", "HASH",
        "ProvisionedThroughput", "ReadCapacityUnits", 7,
        "WriteCapacityUnits", 3, "GlobalSecondaryIndexes", "IndexName",
        "byg", "KeySchema", "AttributeName", "g", "KeyType", "HASH",
        "Projection", "ProjectionType", "KEYS_ONLY", "ProvisionedThroughput",
        "ReadCapacityUnits", 5, "WriteCapacityUnits", 5));
    for (int i = 0; i < N_ITEMS; i++) {
        snprintf(pk, sizeof(pk), "p%d", i);
        snprintf(g, sizeof(g), "g%d", i % 3);
        tcall_ok("PutItem", json_pack("{s:s, s:{s:{s:s}, s:{s:s}}}",
                                      "TableName", "src", "Item", "pk", "S",
                                      pk, "g", "S", g));
    }
}

/* CreateBackup of table; its BackupArn (caller frees). */
static char *
backup(const char *table, const char *name)
{
    json_t *r = tcall("CreateBackup", json_pack("{s:s, s:s}", "TableName",
                                                table, "BackupName", name),
                      NULL);
    const json_t *d = json_object_get(r, "BackupDetails");
    char *arn = xstrdup(json_string_value(json_object_get(d, "BackupArn")));

    ck_assert(json_str_is(json_object_get(d, "BackupStatus"), "CREATING"));
    ck_assert(json_str_is(json_object_get(d, "BackupType"), "USER"));
    json_decref(r);
    return arn;
}

/* The number of items a Query of index byg of table for g finds. */
static long long
count_g(const char *table, const char *g)
{
    json_t *r = tcall("Query", json_pack(
        "{s:s, s:s, s:s, s:{s:{s:s}}, s:s}", "TableName", table,
        "IndexName", "byg", "KeyConditionExpression", "g = :g",
        "ExpressionAttributeValues", ":g", "S", g, "Select", "COUNT"), NULL);
    long long n = json_integer_value(json_object_get(r, "Count"));

    json_decref(r);
    return n;
}

static json_t *
describe(const char *table)
{
    json_t *r = tcall("DescribeTable", json_pack("{s:s}", "TableName",
                                                 table), NULL);
    json_t *t = json_incref(json_object_get(r, "Table"));

    json_decref(r);
    return t;
}

START_TEST(test_backup_describes_its_source)
{
    char *arn = backup("src", "first");
    json_t *r, *d;

    ck_assert_ptr_nonnull(strstr(arn, "arn:aws:dynamodb:us-east-1:"
                                      "000000000000:table/src/backup/"
                                      "01700000000000-"));
    r = tcall("DescribeBackup", json_pack("{s:s}", "BackupArn", arn), NULL);
    d = json_object_get(r, "BackupDescription");
    ck_assert(json_str_is(json_object_get(json_object_get(d,
                                                          "BackupDetails"),
                                          "BackupStatus"), "AVAILABLE"));
    ck_assert_int_eq(json_integer_value(json_object_get(
                         json_object_get(d, "SourceTableDetails"),
                         "ItemCount")), N_ITEMS);
    ck_assert_int_eq(json_integer_value(json_object_get(
                         json_object_get(json_object_get(
                                             d, "SourceTableDetails"),
                                         "ProvisionedThroughput"),
                         "ReadCapacityUnits")), 7);
    ck_assert(json_str_is(json_object_get(json_array_get(json_object_get(
                              json_object_get(d, "SourceTableFeatureDetails"),
                              "GlobalSecondaryIndexes"), 0), "IndexName"),
                          "byg"));
    json_decref(r);
    tcall_msg("CreateBackup", json_pack("{s:s, s:s}", "TableName", "nope",
                                        "BackupName", "bkp"),
              "TableNotFoundException", "Table not found: nope");
    r = tcall("DescribeContinuousBackups", json_pack("{s:s}", "TableName",
                                                     "src"), NULL);
    d = json_object_get(r, "ContinuousBackupsDescription");
    ck_assert(json_str_is(json_object_get(d, "ContinuousBackupsStatus"),
                          "ENABLED"));
    json_decref(r);
    free(arn);
}
END_TEST

START_TEST(test_list_filters_and_paging)
{
    char *a = backup("src", "one"), *b, *c;
    json_t *r, *l;

    tcall_advance(1500);
    b = backup("src", "two");
    tcall_advance(1500);
    c = backup("src", "three");
    r = tcall("ListBackups", json_pack("{s:s, s:i}", "TableName", "src",
                                       "Limit", 2), NULL);
    l = json_object_get(r, "BackupSummaries");
    ck_assert_int_eq(json_array_size(l), 2);
    ck_assert(json_str_is(json_object_get(r, "LastEvaluatedBackupArn"), b));
    json_decref(r);
    r = tcall("ListBackups", json_pack("{s:s, s:s}", "TableName", "src",
                                       "ExclusiveStartBackupArn", b), NULL);
    l = json_object_get(r, "BackupSummaries");
    ck_assert_int_eq(json_array_size(l), 1);
    ck_assert(json_str_is(json_object_get(json_array_get(l, 0), "BackupArn"),
                          c));
    ck_assert(!json_has(r, "LastEvaluatedBackupArn"));
    json_decref(r);
    /* [lower, upper) to the ms (seconds with a fraction): the second */
    r = tcall("ListBackups", json_pack("{s:f, s:f}", "TimeRangeLowerBound",
                                       1700000001.5, "TimeRangeUpperBound",
                                       1700000001.501), NULL);
    l = json_object_get(r, "BackupSummaries");
    ck_assert_int_eq(json_array_size(l), 1);
    ck_assert(json_str_is(json_object_get(json_array_get(l, 0), "BackupArn"),
                          b));
    json_decref(r);
    r = tcall("ListBackups", json_pack("{s:s}", "BackupType", "SYSTEM"),
              NULL);
    ck_assert_int_eq(json_array_size(json_object_get(r, "BackupSummaries")),
                     0);
    json_decref(r);
    free(a);
    free(b);
    free(c);
}
END_TEST

START_TEST(test_restore_with_overrides)
{
    char *arn = backup("src", "bkp");
    json_t *t, *g;

    /* written after the backup: not restored */
    tcall_ok("PutItem", json_pack("{s:s, s:{s:{s:s}, s:{s:s}}}", "TableName",
                                  "src", "Item", "pk", "S", "late", "g", "S",
                                  "g0"));
    tcall_ok("RestoreTableFromBackup", json_pack(
        "{s:s, s:s, s:s}", "TargetTableName", "dst", "BackupArn", arn,
        "BillingModeOverride", "PAY_PER_REQUEST"));
    t = describe("dst");
    ck_assert(json_str_is(json_object_get(json_object_get(
                              t, "BillingModeSummary"), "BillingMode"),
                          "PAY_PER_REQUEST"));
    ck_assert_int_eq(json_integer_value(json_object_get(t, "ItemCount")),
                     N_ITEMS);
    g = json_array_get(json_object_get(t, "GlobalSecondaryIndexes"), 0);
    ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(
                         g, "ProvisionedThroughput"), "ReadCapacityUnits")),
                     0);
    json_decref(t);
    ck_assert_int_eq(count_g("dst", "g0"), N_ITEMS / 3);
    ck_assert_int_eq(count_g("src", "g0"), N_ITEMS / 3 + 1);
    /* the index renamed, with its own throughput, the base's overridden */
    tcall_ok("RestoreTableFromBackup", json_pack(
        "{s:s, s:s, s:{s:i, s:i}, s:[{s:s, s:[{s:s, s:s}], s:{s:s},"
        " s:{s:i, s:i}}]}", "TargetTableName", "dst2", "BackupArn", arn,
        "ProvisionedThroughputOverride", "ReadCapacityUnits", 2,
        "WriteCapacityUnits", 1, "GlobalSecondaryIndexOverride",
        "IndexName", "byg", "KeySchema", "AttributeName", "g", "KeyType",
        "HASH", "Projection", "ProjectionType", "KEYS_ONLY",
        "ProvisionedThroughput", "ReadCapacityUnits", 4,
        "WriteCapacityUnits", 4));
    t = describe("dst2");
    ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(
                         t, "ProvisionedThroughput"), "ReadCapacityUnits")),
                     2);
    g = json_array_get(json_object_get(t, "GlobalSecondaryIndexes"), 0);
    ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(
                         g, "ProvisionedThroughput"), "ReadCapacityUnits")),
                     4);
    json_decref(t);
    ck_assert_int_eq(count_g("dst2", "g2"), N_ITEMS / 3);
    /* an empty list drops the indexes (DDB-TABLE-279) */
    tcall_ok("RestoreTableFromBackup", json_pack(
        "{s:s, s:s, s:[]}", "TargetTableName", "dst3", "BackupArn", arn,
        "GlobalSecondaryIndexOverride"));
    t = describe("dst3");
    ck_assert(!json_has(t, "GlobalSecondaryIndexes"));
    json_decref(t);
    free(arn);
}
END_TEST

START_TEST(test_restore_errors)
{
    char *arn = backup("src", "bkp");
    char missing[512], want[600];

    snprintf(missing, sizeof(missing), "%.*s00000000",
             (int)(strlen(arn) - 8), arn);
    snprintf(want, sizeof(want), "Backup not found: %s", missing);
    tcall_msg("RestoreTableFromBackup", json_pack(
        "{s:s, s:s}", "TargetTableName", "dst", "BackupArn", missing),
              "BackupNotFoundException", want);
    tcall_msg("RestoreTableFromBackup", json_pack(
        "{s:s, s:s}", "TargetTableName", "dst", "BackupArn",
        "arn:aws:dynamodb:us-east-1:000000000000:table/src"),
              "ValidationException", "Invalid Backup ARN");
    /* the target first: an existing table (DDB-TABLE-219) */
    tcall_msg("RestoreTableFromBackup", json_pack(
        "{s:s, s:s, s:s}", "TargetTableName", "src", "BackupArn", arn,
        "BillingModeOverride", "PAY_PER_REQUEST"),
              "TableAlreadyExistsException", "Table already exists: src");
    tcall_msg("RestoreTableFromBackup", json_pack(
        "{s:s, s:s, s:s, s:{s:i, s:i}}", "TargetTableName", "dst",
        "BackupArn", arn, "BillingModeOverride", "PAY_PER_REQUEST",
        "ProvisionedThroughputOverride", "ReadCapacityUnits", 1,
        "WriteCapacityUnits", 1),
              "ValidationException", "Invalid Request: Cannot override "
                                     "ProvisionedThroughput if BillingMode "
                                     "is overridden to PAY_PER_REQUEST");
    tcall_msg("RestoreTableFromBackup", json_pack(
        "{s:s, s:s, s:[{s:s, s:[{s:s, s:s}], s:{s:s}, s:{s:i, s:i}}]}",
        "TargetTableName", "dst", "BackupArn", arn,
        "GlobalSecondaryIndexOverride", "IndexName", "other", "KeySchema",
        "AttributeName", "pk", "KeyType", "HASH", "Projection",
        "ProjectionType", "ALL", "ProvisionedThroughput",
        "ReadCapacityUnits", 1, "WriteCapacityUnits", 1),
              "ValidationException", "Invalid Request: Index other does not "
                                     "match a secondary index that existed "
                                     "in the source table and cannot be "
                                     "created during the restore operation");
    /* nothing was made by any of these */
    json_decref(tcall("DescribeTable", json_pack("{s:s}", "TableName", "dst"),
                      "ResourceNotFoundException"));
    free(arn);
}
END_TEST

START_TEST(test_delete_backup)
{
    char *arn = backup("src", "bkp");
    char want[512];
    json_t *r;

    /* a backup outlives its table */
    tcall_ok("DeleteTable", json_pack("{s:s}", "TableName", "src"));
    r = tcall("DeleteBackup", json_pack("{s:s}", "BackupArn", arn), NULL);
    ck_assert(json_str_is(json_object_get(json_object_get(json_object_get(
                              r, "BackupDescription"), "BackupDetails"),
                                          "BackupStatus"), "DELETED"));
    json_decref(r);
    snprintf(want, sizeof(want), "Backup not found: %s", arn);
    tcall_msg("DeleteBackup", json_pack("{s:s}", "BackupArn", arn),
              "BackupNotFoundException", want);
    tcall_msg("DescribeBackup", json_pack("{s:s}", "BackupArn", arn),
              "BackupNotFoundException", want);
    free(arn);
}
END_TEST

static Suite *
suite(void)
{
    Suite *s = suite_create("restore");
    TCase *tc = tcase_create("restore");

    tcase_add_checked_fixture(tc, setup, tcall_teardown);
    tcase_add_test(tc, test_backup_describes_its_source);
    tcase_add_test(tc, test_list_filters_and_paging);
    tcase_add_test(tc, test_restore_with_overrides);
    tcase_add_test(tc, test_restore_errors);
    tcase_add_test(tc, test_delete_backup);
    suite_add_tcase(s, tc);
    return s;
}

int
main(void)
{
    SRunner *sr = srunner_create(suite());
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}
