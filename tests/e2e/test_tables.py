# SPDX-License-Identifier: MIT
# test_tables.py - table lifecycle through boto3: CreateTable, DescribeTable
# fields, ListTables order and pagination, UpdateTable, DeleteTable,
# deletion protection, waiters.
import datetime
import re
import time
import unittest

from e2e_common import (ACCOUNT, BOTOCORE_VERSION, ENDPOINT, ON_DYNALITE,
                        REGION, E2ECase, create_table, has_param,
                        unique_name, wait_active)

UUID_RE = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-"
                     r"[0-9a-f]{12}$")


def arn_of(name):
    account = ACCOUNT if ENDPOINT else r"\d{12}"
    return "arn:aws:dynamodb:%s:%s:table/%s" % (REGION, account, name)


class CreateDescribeTest(E2ECase):

    def test_create_on_demand_hash_only(self):
        name = unique_name()
        self._tables.append(name)
        resp = self.c.create_table(
            TableName=name, BillingMode="PAY_PER_REQUEST",
            AttributeDefinitions=[{"AttributeName": "id",
                                   "AttributeType": "S"}],
            KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}])
        td = resp["TableDescription"]
        self.assertEqual(td["TableName"], name)
        self.assertIn(td["TableStatus"], ("CREATING", "ACTIVE"))
        self.assertEqual(td["KeySchema"],
                         [{"AttributeName": "id", "KeyType": "HASH"}])
        t = wait_active(self.c, name)
        self.assertEqual(t["TableName"], name)
        self.assertEqual(t["TableStatus"], "ACTIVE")
        self.assertRegex(t["TableArn"], "^" + arn_of(name) + "$")
        if not ON_DYNALITE:     # dynalite's TableId is a truncated UUID
            self.assertRegex(t["TableId"], UUID_RE)
        self.assertEqual(t["TableId"], td["TableId"])
        self.assertIsInstance(t["CreationDateTime"], datetime.datetime)
        now = datetime.datetime.now(datetime.timezone.utc)
        self.assertLess(abs((now - t["CreationDateTime"]).total_seconds()),
                        300)
        self.assertEqual(t["ItemCount"], 0)
        self.assertEqual(t["TableSizeBytes"], 0)
        self.assertEqual(t["AttributeDefinitions"],
                         [{"AttributeName": "id", "AttributeType": "S"}])
        self.assertEqual(t["BillingModeSummary"]["BillingMode"],
                         "PAY_PER_REQUEST")
        pt = t["ProvisionedThroughput"]
        self.assertEqual(pt["ReadCapacityUnits"], 0)
        self.assertEqual(pt["WriteCapacityUnits"], 0)
        self.assertEqual(pt["NumberOfDecreasesToday"], 0)
        # dynalite predates deletion protection; old botocore drops it.
        if not ON_DYNALITE and has_param(self.c, "CreateTable",
                                         "DeletionProtectionEnabled"):
            self.assertIs(t["DeletionProtectionEnabled"], False)

    def test_create_provisioned_hash_range(self):
        name = self.make_table(hash_key=("h", "N"), range_key=("r", "B"),
                               on_demand=False, rcu=7, wcu=3)
        t = self.c.describe_table(TableName=name)["Table"]
        self.assertEqual(t["KeySchema"],
                         [{"AttributeName": "h", "KeyType": "HASH"},
                          {"AttributeName": "r", "KeyType": "RANGE"}])
        self.assertEqual(
            sorted(t["AttributeDefinitions"],
                   key=lambda a: a["AttributeName"]),
            [{"AttributeName": "h", "AttributeType": "N"},
             {"AttributeName": "r", "AttributeType": "B"}])
        pt = t["ProvisionedThroughput"]
        self.assertEqual((pt["ReadCapacityUnits"], pt["WriteCapacityUnits"]),
                         (7, 3))
        if "BillingModeSummary" in t:
            self.assertEqual(t["BillingModeSummary"]["BillingMode"],
                             "PROVISIONED")

    def test_item_count_after_put(self):
        # DynamoDB refreshes ItemCount about every 6 hours; a local server
        # may be exact. Only check it stays a sane number.
        name = self.make_table()
        self.c.put_item(TableName=name, Item={"pk": {"S": "a"}})
        t = self.c.describe_table(TableName=name)["Table"]
        self.assertIn(t["ItemCount"], (0, 1))
        self.assertGreaterEqual(t["TableSizeBytes"], 0)

    @unittest.skipIf(ON_DYNALITE, "dynalite does not accept ARNs")
    def test_table_name_as_arn(self):
        if BOTOCORE_VERSION < (1, 31):
            self.skipTest("this botocore rejects ARNs client-side")
        name = self.make_table()
        arn = self.c.describe_table(TableName=name)["Table"]["TableArn"]
        t = self.c.describe_table(TableName=arn)["Table"]
        self.assertEqual(t["TableName"], name)
        self.c.put_item(TableName=arn, Item={"pk": {"S": "x"}})
        got = self.c.get_item(TableName=name, Key={"pk": {"S": "x"}})
        self.assertEqual(got["Item"], {"pk": {"S": "x"}})

    def test_create_existing_table(self):
        name = self.make_table()
        # DynamoDB names the table; dynalite sends an empty message.
        self.assertError(
            self.c.create_table, "ResourceInUseException",
            None if ON_DYNALITE else "Table already exists: %s" % name,
            TableName=name, BillingMode="PAY_PER_REQUEST",
            AttributeDefinitions=[{"AttributeName": "pk",
                                   "AttributeType": "S"}],
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}])

    def test_describe_missing_table(self):
        name = unique_name("missing")
        self.assertError(self.c.describe_table, "ResourceNotFoundException",
                         prefix="Requested resource not found", TableName=name)

    def test_create_bad_key_type(self):
        self.assertValidation(
            self.c.create_table,
            prefix="1 validation error detected: Value 'X' at "
                   "'attributeDefinitions.1.member.attributeType' failed to "
                   "satisfy constraint: Member must satisfy enum value set",
            TableName=unique_name(), BillingMode="PAY_PER_REQUEST",
            AttributeDefinitions=[{"AttributeName": "pk",
                                   "AttributeType": "X"}],
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}])

    def test_create_provisioned_without_throughput(self):
        self.assertValidation(
            self.c.create_table,
            "One or more parameter values were invalid: ReadCapacityUnits "
            "and WriteCapacityUnits must both be specified when BillingMode "
            "is PROVISIONED",
            TableName=unique_name(), BillingMode="PROVISIONED",
            AttributeDefinitions=[{"AttributeName": "pk",
                                   "AttributeType": "S"}],
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}])

    def test_create_key_not_in_definitions(self):
        self.assertValidation(
            self.c.create_table,
            "One or more parameter values were invalid: Some index key "
            "attributes are not defined in AttributeDefinitions. Keys: [pk], "
            "AttributeDefinitions: [other]",
            TableName=unique_name(), BillingMode="PAY_PER_REQUEST",
            AttributeDefinitions=[{"AttributeName": "other",
                                   "AttributeType": "S"}],
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}])

    def test_create_extra_definition(self):
        self.assertValidation(
            self.c.create_table,
            "One or more parameter values were invalid: Number of attributes "
            "in KeySchema does not exactly match number of attributes defined "
            "in AttributeDefinitions",
            TableName=unique_name(), BillingMode="PAY_PER_REQUEST",
            AttributeDefinitions=[{"AttributeName": "pk",
                                   "AttributeType": "S"},
                                  {"AttributeName": "extra",
                                   "AttributeType": "N"}],
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}])

    def test_create_two_hash_keys(self):
        self.assertValidation(
            self.c.create_table,
            TableName=unique_name(), BillingMode="PAY_PER_REQUEST",
            AttributeDefinitions=[{"AttributeName": "a",
                                   "AttributeType": "S"},
                                  {"AttributeName": "b",
                                   "AttributeType": "S"}],
            KeySchema=[{"AttributeName": "a", "KeyType": "HASH"},
                       {"AttributeName": "b", "KeyType": "HASH"}])

    def test_table_name_too_long(self):
        # botocore 1.43 allows up to 1024 characters (ARNs); the server
        # must still reject a 300-character plain name.
        if BOTOCORE_VERSION < (1, 31):
            self.skipTest("old botocore rejects it client-side")
        self.assertValidation(self.c.describe_table, TableName="a" * 300)

    def test_bad_table_name_pattern(self):
        # The exact wording changed when TableName began to accept ARNs;
        # only the error type is asserted.
        self.assertValidation(self.c.describe_table, TableName="bad name!")


class ListTablesTest(E2ECase):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.prefix = unique_name("lt")
        cls.names = []
        for suffix in ("c", "a", "b"):
            name = cls.prefix + "_" + suffix
            create_table(cls.c, name)
            cls._tables.append(name)
            cls.names.append(name)
        cls.names.sort()

    def test_sorted_and_complete(self):
        all_names = []
        for page in self.c.get_paginator("list_tables").paginate():
            all_names.extend(page["TableNames"])
        self.assertEqual(all_names, sorted(all_names))
        self.assertEqual(len(all_names), len(set(all_names)))
        mine = [n for n in all_names if n.startswith(self.prefix)]
        self.assertEqual(mine, self.names)

    def test_limit_and_exclusive_start(self):
        r = self.c.list_tables(ExclusiveStartTableName=self.prefix, Limit=2)
        self.assertEqual(r["TableNames"], self.names[:2])
        self.assertEqual(r["LastEvaluatedTableName"], self.names[1])
        r = self.c.list_tables(
            ExclusiveStartTableName=r["LastEvaluatedTableName"], Limit=1)
        self.assertEqual(r["TableNames"], self.names[2:3])

    def test_paginator_page_size(self):
        pages = list(self.c.get_paginator("list_tables").paginate(
            PaginationConfig={"PageSize": 1}))
        found = [n for p in pages for n in p["TableNames"]
                 if n.startswith(self.prefix)]
        self.assertEqual(found, self.names)
        for p in pages:
            self.assertLessEqual(len(p["TableNames"]), 1)
        self.assertNotIn("LastEvaluatedTableName", pages[-1])

    def test_limit_over_100(self):
        self.assertValidation(
            self.c.list_tables,
            "1 validation error detected: Value '101' at 'limit' failed to "
            "satisfy constraint: Member must have value less than or equal "
            "to 100", Limit=101)


class UpdateDeleteTest(E2ECase):

    def test_update_throughput(self):
        name = self.make_table(on_demand=False, rcu=1, wcu=1)
        r = self.c.update_table(TableName=name, ProvisionedThroughput={
            "ReadCapacityUnits": 10, "WriteCapacityUnits": 4})
        self.assertEqual(r["TableDescription"]["TableName"], name)
        t = wait_active(self.c, name)
        pt = t["ProvisionedThroughput"]
        self.assertEqual((pt["ReadCapacityUnits"], pt["WriteCapacityUnits"]),
                         (10, 4))

    def test_update_same_throughput(self):
        name = self.make_table(on_demand=False, rcu=3, wcu=2)
        self.assertValidation(
            self.c.update_table,
            "The provisioned throughput for the table will not change. The "
            "requested value equals the current value. Current "
            "ReadCapacityUnits provisioned for the table: 3. Requested "
            "ReadCapacityUnits: 3. Current WriteCapacityUnits provisioned "
            "for the table: 2. Requested WriteCapacityUnits: 2. Refer to the "
            "Amazon DynamoDB Developer Guide for current limits and how to "
            "request higher limits.", TableName=name,
            ProvisionedThroughput={"ReadCapacityUnits": 3,
                                   "WriteCapacityUnits": 2})

    def test_create_on_demand_with_throughput(self):
        self.assertValidation(
            self.c.create_table,
            "One or more parameter values were invalid: Neither "
            "ReadCapacityUnits nor WriteCapacityUnits can be specified when "
            "BillingMode is PAY_PER_REQUEST",
            TableName=unique_name(), BillingMode="PAY_PER_REQUEST",
            ProvisionedThroughput={"ReadCapacityUnits": 1,
                                   "WriteCapacityUnits": 1},
            AttributeDefinitions=[{"AttributeName": "pk",
                                   "AttributeType": "S"}],
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}])

    def test_update_billing_mode(self):
        name = self.make_table(on_demand=False, rcu=2, wcu=2)
        self.c.update_table(TableName=name, BillingMode="PAY_PER_REQUEST")
        t = wait_active(self.c, name)
        self.assertEqual(t["BillingModeSummary"]["BillingMode"],
                         "PAY_PER_REQUEST")
        self.assertEqual(t["ProvisionedThroughput"]["ReadCapacityUnits"], 0)
        self.assertEqual(t["ProvisionedThroughput"]["WriteCapacityUnits"], 0)

    # A TableClass outside the two: DynamoDB's own message rather than the
    # model's enum one, case sensitive, in CreateTable and UpdateTable (a
    # catalogue of ValidationException texts recorded in us-east-1 and
    # us-west-2, 2026-10-09; Alternator's test_tableclass.py matches
    # "table.class" against DynamoDB).
    TABLE_CLASS = ("Invalid table-class parameter provided. Please try "
                   "again with a valid table-class value: [STANDARD, "
                   "STANDARD_INFREQUENT_ACCESS].")

    def test_bad_table_class(self):
        for cls in ("junk", "standard"):
            self.assertValidation(
                self.c.create_table, self.TABLE_CLASS,
                TableName=unique_name(), BillingMode="PAY_PER_REQUEST",
                TableClass=cls,
                AttributeDefinitions=[{"AttributeName": "pk",
                                       "AttributeType": "S"}],
                KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}])
        name = self.make_table()
        self.assertValidation(self.c.update_table, self.TABLE_CLASS,
                              TableName=name, TableClass="junk")
        self.c.update_table(TableName=name,
                            TableClass="STANDARD_INFREQUENT_ACCESS")
        t = wait_active(self.c, name)
        self.assertEqual(t["TableClassSummary"]["TableClass"],
                         "STANDARD_INFREQUENT_ACCESS")

    def test_update_missing_table(self):
        self.assertError(self.c.update_table, "ResourceNotFoundException",
                         prefix="Requested resource not found",
                         TableName=unique_name("missing"),
                         BillingMode="PAY_PER_REQUEST")

    def test_delete(self):
        name = unique_name()
        create_table(self.c, name)
        self.c.put_item(TableName=name, Item={"pk": {"S": "a"}})
        r = self.c.delete_table(TableName=name)
        td = r["TableDescription"]
        self.assertEqual(td["TableName"], name)
        self.assertIn(td["TableStatus"], ("DELETING", "ACTIVE"))
        deadline = time.time() + 30
        while True:
            try:
                self.c.describe_table(TableName=name)
            except self.c.exceptions.ResourceNotFoundException:
                break
            self.assertLess(time.time(), deadline, "table never went away")
            time.sleep(0.05)
        self.assertNotIn(name, self.c.list_tables(
            ExclusiveStartTableName=name[:-1])["TableNames"])
        self.assertError(self.c.delete_table, "ResourceNotFoundException",
                         prefix="Requested resource not found",
                         TableName=name)

    @unittest.skipIf(ON_DYNALITE, "dynalite predates deletion protection")
    def test_deletion_protection(self):
        if not has_param(self.c, "CreateTable", "DeletionProtectionEnabled"):
            self.skipTest("botocore too old for DeletionProtectionEnabled")
        name = self.make_table(DeletionProtectionEnabled=True)
        t = self.c.describe_table(TableName=name)["Table"]
        self.assertIs(t["DeletionProtectionEnabled"], True)
        self.assertValidation(
            self.c.delete_table,
            "Resource cannot be deleted as it is currently protected against "
            "deletion. Disable deletion protection first.", TableName=name)
        self.c.describe_table(TableName=name)           # still there
        self.c.update_table(TableName=name, DeletionProtectionEnabled=False)
        wait_active(self.c, name)
        self.c.delete_table(TableName=name)


class WaiterTest(E2ECase):

    def test_table_exists_returns_immediately(self):
        if not ENDPOINT:
            self.skipTest("real DynamoDB takes seconds to create a table")
        name = unique_name()
        self._tables.append(name)
        self.c.create_table(
            TableName=name, BillingMode="PAY_PER_REQUEST",
            AttributeDefinitions=[{"AttributeName": "pk",
                                   "AttributeType": "S"}],
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}])
        start = time.monotonic()
        # The waiter sleeps 20 s between polls, so anything but an ACTIVE
        # table on the very first DescribeTable blows this budget.
        self.c.get_waiter("table_exists").wait(
            TableName=name, WaiterConfig={"Delay": 20, "MaxAttempts": 2})
        self.assertLess(time.monotonic() - start, 5.0)

    def test_table_not_exists(self):
        name = unique_name()
        create_table(self.c, name)
        self.c.delete_table(TableName=name)
        start = time.monotonic()
        self.c.get_waiter("table_not_exists").wait(
            TableName=name, WaiterConfig={"Delay": 1, "MaxAttempts": 30})
        if ENDPOINT:
            self.assertLess(time.monotonic() - start, 5.0)


class DescribeTableDelete(E2ECase):
    def test_delete_then_recreate_same_name(self):
        name = unique_name()
        create_table(self.c, name)
        self.c.put_item(TableName=name, Item={"pk": {"S": "old"}})
        self.c.delete_table(TableName=name)
        self.c.get_waiter("table_not_exists").wait(
            TableName=name, WaiterConfig={"Delay": 1, "MaxAttempts": 30})
        create_table(self.c, name)
        self._tables.append(name)
        r = self.c.scan(TableName=name)
        self.assertEqual(r["Count"], 0, "old items survived DeleteTable")


if __name__ == "__main__":
    unittest.main()
