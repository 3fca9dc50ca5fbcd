# SPDX-License-Identifier: MIT
# test_backups.py - on-demand backups with boto3: CreateBackup,
# DescribeBackup, ListBackups, DeleteBackup and RestoreTableFromBackup
# (items, indexes, capacity settings and the overrides DynamoDB allows),
# DescribeContinuousBackups, and the errors of each. Expected answers are
# DynamoDB's: ack-api-quirks' backup.md and table-restore.md recordings
# (DDB-BACKUP-0xx, DDB-TABLE-2xx, 2026-10) and the dynamodb-conformance
# suite's backups/onDemand.test.ts. Restores with a status delay, restarts
# and kill -9 are in test_backup_durability.py.
import json
import time
import unittest
import urllib.request

from e2e_common import (ACCOUNT, ENDPOINT, REGION, E2ECase, create_table,
                        delete_table_quietly, unique_name, wait_active)
from test_batch import unvalidated_client


def S(v):
    return {"S": v}


def N(v):
    return {"N": str(v)}


def raw_call(target, body):
    """POST a JSON body as is (no client-side checks or encoding)."""
    req = urllib.request.Request(ENDPOINT + "/", data=json.dumps(
        body).encode(), headers={
            "Content-Type": "application/x-amz-json-1.0",
            "X-Amz-Target": "DynamoDB_20120810." + target,
            "Authorization": "AWS4-HMAC-SHA256 Credential=x/20240101/"
                             "us-east-1/dynamodb/aws4_request, "
                             "SignedHeaders=host, Signature=0"})
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.loads(r.read())


def client_knows_on_demand_override():
    """OnDemandThroughput came with botocore 1.34 (2024): Debian's older
    boto3 refuses the parameter before sending it."""
    import boto3
    shape = boto3.client("dynamodb", region_name=REGION).meta.service_model \
        .operation_model("RestoreTableFromBackup").input_shape
    return "OnDemandThroughputOverride" in shape.members


class BackupCase(E2ECase):

    def setUp(self):
        self.backups = []

    def tearDown(self):
        for arn in self.backups:
            try:
                self.c.delete_backup(BackupArn=arn)
            except self.c.exceptions.BackupNotFoundException:
                pass

    def backup(self, table, name="bkp"):
        d = self.c.create_backup(TableName=table, BackupName=name)
        arn = d["BackupDetails"]["BackupArn"]
        self.backups.append(arn)
        return d

    def restore(self, arn, **kw):
        target = unique_name("rst")
        self._tables.append(target)
        r = self.c.restore_table_from_backup(TargetTableName=target,
                                             BackupArn=arn, **kw)
        wait_active(self.c, target)
        return target, r

    def count(self, table, **kw):
        n, start = 0, None
        while True:
            if start:
                kw["ExclusiveStartKey"] = start
            r = self.c.scan(TableName=table, Select="COUNT", **kw)
            n += r["Count"]
            start = r.get("LastEvaluatedKey")
            if not start:
                return n


class TestBackupLifecycle(BackupCase):
    """The conformance suite's lifecycle, and DDB-BACKUP-003..006."""

    def test_create_describe_list_delete(self):
        t = self.make_table("bks")
        self.c.put_item(TableName=t, Item={"pk": S("a")})
        before = time.time()
        d = self.backup(t, "conformance_backup")["BackupDetails"]
        arn = d["BackupArn"]
        self.assertRegex(arn, r"^arn:aws:dynamodb:%s:%s:table/%s/backup/"
                              r"\d{14}-[0-9a-f]{8}$" % (REGION, ACCOUNT, t))
        # CREATING in the answer only; AVAILABLE at once after.
        self.assertEqual(d["BackupStatus"], "CREATING")
        self.assertEqual(d["BackupType"], "USER")
        self.assertEqual(d["BackupName"], "conformance_backup")
        self.assertNotIn("BackupExpiryDateTime", d)
        created = d["BackupCreationDateTime"].timestamp()
        self.assertLess(abs(created - before), 5)
        # The 14 digits are the creation time in ms (DDB-BACKUP-006).
        self.assertEqual(int(arn.rsplit("/", 1)[1][:14]),
                         round(created * 1000))

        desc = self.c.describe_backup(BackupArn=arn)["BackupDescription"]
        self.assertEqual(desc["BackupDetails"]["BackupStatus"], "AVAILABLE")
        self.assertEqual(desc["BackupDetails"]["BackupCreationDateTime"],
                         d["BackupCreationDateTime"])
        src = desc["SourceTableDetails"]
        table = self.c.describe_table(TableName=t)["Table"]
        self.assertEqual(src["TableName"], t)
        self.assertEqual(src["TableId"], table["TableId"])
        self.assertEqual(src["TableArn"], table["TableArn"])
        self.assertEqual(src["KeySchema"], table["KeySchema"])
        self.assertEqual(src["BillingMode"], "PAY_PER_REQUEST")
        self.assertEqual(src["ProvisionedThroughput"],
                         {"ReadCapacityUnits": 0, "WriteCapacityUnits": 0})
        self.assertEqual(src["ItemCount"], 1)
        self.assertEqual(desc["SourceTableFeatureDetails"], {})

        listed = self.c.list_backups(TableName=t)["BackupSummaries"]
        self.assertEqual([b["BackupArn"] for b in listed], [arn])
        s = listed[0]
        self.assertEqual(s["BackupStatus"], "AVAILABLE")
        self.assertEqual((s["TableName"], s["TableId"], s["TableArn"]),
                         (t, table["TableId"], table["TableArn"]))

        gone = self.c.delete_backup(BackupArn=arn)["BackupDescription"]
        self.assertEqual(gone["BackupDetails"]["BackupArn"], arn)
        self.assertEqual(gone["BackupDetails"]["BackupStatus"], "DELETED")
        self.assertEqual(gone["SourceTableDetails"]["TableName"], t)
        self.assertError(self.c.describe_backup, "BackupNotFoundException",
                         "Backup not found: " + arn, BackupArn=arn)
        self.assertError(self.c.delete_backup, "BackupNotFoundException",
                         BackupArn=arn)
        self.assertEqual(self.c.list_backups(TableName=t)["BackupSummaries"],
                         [])

    def test_names_are_not_unique(self):
        # DDB-BACKUP-011: three backups, one name, three ARNs.
        t = self.make_table("bkn")
        arns = {self.backup(t, "same")["BackupDetails"]["BackupArn"]
                for _ in range(3)}
        self.assertEqual(len(arns), 3)
        listed = self.c.list_backups(TableName=t)["BackupSummaries"]
        self.assertEqual({b["BackupName"] for b in listed}, {"same"})

    def test_backup_outlives_its_table(self):
        # DDB-BACKUP-007/016: describe, list and restore after DeleteTable,
        # and across a same-name re-creation.
        t = unique_name("bkd")
        create_table(self.c, t)
        self.c.put_item(TableName=t, Item={"pk": S("a"), "v": N(1)})
        arn = self.backup(t)["BackupDetails"]["BackupArn"]
        first_id = self.c.describe_table(TableName=t)["Table"]["TableId"]
        self.c.delete_table(TableName=t)
        self.assertEqual(self.c.describe_backup(BackupArn=arn)[
            "BackupDescription"]["BackupDetails"]["BackupStatus"],
            "AVAILABLE")
        create_table(self.c, t)
        self._tables.append(t)
        self.backup(t)
        listed = self.c.list_backups(TableName=t)["BackupSummaries"]
        self.assertEqual(len(listed), 2)
        self.assertEqual(len({b["TableId"] for b in listed}), 2)
        self.assertIn(first_id, {b["TableId"] for b in listed})
        target, _ = self.restore(arn)
        self.assertEqual(self.c.get_item(TableName=target,
                                         Key={"pk": S("a")})["Item"]["v"],
                         N(1))

    def test_create_backup_errors(self):
        missing = unique_name("nope")
        self.assertError(self.c.create_backup, "TableNotFoundException",
                         "Table not found: " + missing, TableName=missing,
                         BackupName="x12")
        t = self.make_table("bke")
        self.assertValidation(
            unvalidated_client().create_backup,
            "2 validation errors detected: Value '' at 'backupName' failed "
            "to satisfy constraint: Member must satisfy regular expression "
            "pattern: [a-zA-Z0-9_.-]+; Value '' at 'backupName' failed to "
            "satisfy constraint: Member must have length greater than or "
            "equal to 3", TableName=t, BackupName="")
        # by ARN as well as by name
        arn = self.c.describe_table(TableName=t)["Table"]["TableArn"]
        self.backup(arn)

    def test_backup_arn_errors(self):
        t = self.make_table("bka")
        arn = self.backup(t)["BackupDetails"]["BackupArn"]
        raw = unvalidated_client()
        table_arn = self.c.describe_table(TableName=t)["Table"]["TableArn"]
        for bad in ("", table_arn, "x" * 48):
            self.assertValidation(raw.describe_backup, "Invalid Backup ARN",
                                  BackupArn=bad)
        for bad in (arn.replace(":%s:" % REGION, ":xx-fake-1:"),
                    arn.replace("arn:aws:", "arn:aws-cn:"),
                    arn.replace(":dynamodb:", ":dynamodbx:")):
            self.assertValidation(self.c.describe_backup,
                                  "Invalid Request: BackupArn is not valid",
                                  BackupArn=bad)
        other = arn.replace(":%s:" % ACCOUNT, ":111111111111:")
        if other != arn:
            self.assertError(self.c.describe_backup, "AccessDeniedException",
                             "Access is denied", BackupArn=other)
        # Another region's spelling finds the same backup, echoed back
        # (DDB-BACKUP-012).
        moved = arn.replace(":%s:" % REGION, ":eu-west-1:")
        d = self.c.describe_backup(BackupArn=moved)["BackupDescription"]
        self.assertEqual(d["BackupDetails"]["BackupArn"], moved)
        self.assertError(self.c.describe_backup, "BackupNotFoundException",
                         BackupArn=arn[:-1] + ("0" if arn[-1] != "0" else "1"))


class TestListBackups(BackupCase):
    """DDB-BACKUP-014: filters, paging and their errors."""

    def test_filters_and_paging(self):
        t1, t2 = self.make_table("bkl"), self.make_table("bkl")
        arns = []
        for i in range(5):
            arns.append(self.backup(t1 if i % 2 == 0 else t2)[
                "BackupDetails"])
            time.sleep(0.002)       # distinct creation milliseconds
        mine = {d["BackupArn"] for d in arns}
        got = [b["BackupArn"] for b in self.c.list_backups()[
            "BackupSummaries"] if b["BackupArn"] in mine]
        self.assertEqual(got, [d["BackupArn"] for d in arns])   # oldest first
        by_t1 = self.c.list_backups(TableName=t1)["BackupSummaries"]
        self.assertEqual([b["BackupArn"] for b in by_t1],
                         [arns[i]["BackupArn"] for i in (0, 2, 4)])
        # paging over one table's three: 2, then 1 without a cursor
        p1 = self.c.list_backups(TableName=t1, Limit=2)
        self.assertEqual(len(p1["BackupSummaries"]), 2)
        self.assertEqual(p1["LastEvaluatedBackupArn"], arns[2]["BackupArn"])
        p2 = self.c.list_backups(TableName=t1, Limit=2,
                                 ExclusiveStartBackupArn=p1[
                                     "LastEvaluatedBackupArn"])
        self.assertEqual([b["BackupArn"] for b in p2["BackupSummaries"]],
                         [arns[4]["BackupArn"]])
        self.assertNotIn("LastEvaluatedBackupArn", p2)
        # Limit equal to the count: no cursor
        p = self.c.list_backups(TableName=t1, Limit=3)
        self.assertNotIn("LastEvaluatedBackupArn", p)
        # [lower, upper) on the creation time; boto3 sends whole seconds
        # (the JS test checks millisecond bounds)
        first = int(arns[0]["BackupCreationDateTime"].timestamp())
        last = int(arns[4]["BackupCreationDateTime"].timestamp())
        def ranged(lo, hi):
            return [b["BackupArn"] for b in self.c.list_backups(
                TableName=t1, TimeRangeLowerBound=lo,
                TimeRangeUpperBound=hi)["BackupSummaries"]]
        self.assertEqual(ranged(first, last + 1),
                         [arns[i]["BackupArn"] for i in (0, 2, 4)])
        self.assertEqual(ranged(last + 1, last + 60), [])   # lower: after
        self.assertEqual(ranged(first - 60, first), [])     # upper: excl.
        self.assertEqual(ranged(first, first), [])
        # types: USER by default, SYSTEM and AWS_BACKUP have none here
        self.assertEqual(self.c.list_backups(TableName=t1,
                                             BackupType="SYSTEM")[
            "BackupSummaries"], [])
        self.assertEqual(len(self.c.list_backups(TableName=t1,
                                                 BackupType="ALL")[
            "BackupSummaries"]), 3)
        # a table that never existed: an empty list, no error
        self.assertEqual(self.c.list_backups(TableName=unique_name("no"))[
            "BackupSummaries"], [])

    def test_errors(self):
        self.assertValidation(self.c.list_backups,
                              "One or more parameter values were invalid: "
                              "Time range lower bound must be less than or "
                              "equal to upper bound",
                              TimeRangeLowerBound=2000000000,
                              TimeRangeUpperBound=1000000000)
        # bounds far outside any date (a raw request): no overflow, the
        # whole range
        if ENDPOINT:
            t = self.make_table("bkl")
            arn = self.backup(t)["BackupDetails"]["BackupArn"]
            r = raw_call("ListBackups", {"TableName": t,
                                         "TimeRangeLowerBound": -1e300,
                                         "TimeRangeUpperBound": 1e300})
            self.assertEqual([b["BackupArn"]
                              for b in r["BackupSummaries"]], [arn])
        raw = unvalidated_client()
        self.assertValidation(raw.list_backups,
                              "1 validation error detected: Value '0' at "
                              "'limit' failed to satisfy constraint: Member "
                              "must have value greater than or equal to 1",
                              Limit=0)
        self.assertValidation(raw.list_backups, prefix="1 validation error "
                              "detected: Value 'user' at 'backupType' failed "
                              "to satisfy constraint: Member must satisfy "
                              "enum value set:", BackupType="user")


class TestRestore(BackupCase):
    """RestoreTableFromBackup: what comes back and the overrides
    (DDB-TABLE-215/273/279, DDB-BACKUP-021)."""

    def make_source(self, **kw):
        t = self.make_table(
            "bkr", range_key=("sk", "N"), on_demand=False, rcu=7, wcu=3,
            AttributeDefinitions=[
                {"AttributeName": "pk", "AttributeType": "S"},
                {"AttributeName": "sk", "AttributeType": "N"},
                {"AttributeName": "g", "AttributeType": "S"},
                {"AttributeName": "l", "AttributeType": "N"}],
            GlobalSecondaryIndexes=[{
                "IndexName": "by_g",
                "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                "Projection": {"ProjectionType": "INCLUDE",
                               "NonKeyAttributes": ["v"]},
                "ProvisionedThroughput": {"ReadCapacityUnits": 5,
                                          "WriteCapacityUnits": 4}}],
            LocalSecondaryIndexes=[{
                "IndexName": "by_l",
                "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"},
                              {"AttributeName": "l", "KeyType": "RANGE"}],
                "Projection": {"ProjectionType": "KEYS_ONLY"}}],
            Tags=[{"Key": "team", "Value": "x"}], **kw)
        for i in range(60):
            self.c.put_item(TableName=t, Item={
                "pk": S("p%d" % (i % 6)), "sk": N(i), "g": S("g%d" % (i % 3)),
                "l": N(100 - i), "v": S("v%d" % i), "big": S("x" * 500)})
        return t

    def test_restore_brings_back_items_indexes_capacity(self):
        t = self.make_source()
        arn = self.backup(t)["BackupDetails"]["BackupArn"]
        # written after the backup: not in the restore
        self.c.put_item(TableName=t, Item={"pk": S("late"), "sk": N(0)})
        self.c.delete_item(TableName=t, Key={"pk": S("p0"), "sk": N(0)})
        target, r = self.restore(arn)
        d = r["TableDescription"]
        # the answer: CREATING, the restore in progress
        self.assertEqual(d["TableName"], target)
        self.assertEqual(d["TableStatus"], "CREATING")
        rs = d["RestoreSummary"]
        self.assertEqual(rs["SourceBackupArn"], arn)
        self.assertEqual(rs["SourceTableArn"],
                         self.c.describe_table(TableName=t)["Table"][
                             "TableArn"])
        self.assertTrue(rs["RestoreInProgress"])
        # once ACTIVE no trace of the restore (DDB-TABLE-216)
        td = self.c.describe_table(TableName=target)["Table"]
        self.assertNotIn("RestoreSummary", td)
        self.assertEqual(td["ProvisionedThroughput"]["ReadCapacityUnits"], 7)
        self.assertEqual(td["ProvisionedThroughput"]["WriteCapacityUnits"], 3)
        self.assertNotIn("BillingModeSummary", td)
        self.assertEqual(td["ItemCount"], 60)
        g = td["GlobalSecondaryIndexes"][0]
        self.assertEqual(g["IndexName"], "by_g")
        self.assertEqual(g["ProvisionedThroughput"]["ReadCapacityUnits"], 5)
        self.assertEqual(g["Projection"], {"ProjectionType": "INCLUDE",
                                           "NonKeyAttributes": ["v"]})
        self.assertEqual(td["LocalSecondaryIndexes"][0]["IndexName"], "by_l")
        # items, and both indexes answer queries
        self.assertEqual(self.count(target), 60)
        self.assertIn("Item", self.c.get_item(
            TableName=target, Key={"pk": S("p0"), "sk": N(0)}))
        self.assertNotIn("Item", self.c.get_item(
            TableName=target, Key={"pk": S("late"), "sk": N(0)}))
        q = self.c.query(TableName=target, IndexName="by_g",
                         KeyConditionExpression="g = :g",
                         ExpressionAttributeValues={":g": S("g1")})
        self.assertEqual(q["Count"], 20)
        self.assertEqual(set(q["Items"][0]), {"pk", "sk", "g", "v"})
        q = self.c.query(TableName=target, IndexName="by_l",
                         KeyConditionExpression="pk = :p AND l > :l",
                         ExpressionAttributeValues={":p": S("p1"),
                                                    ":l": N(90)})
        self.assertEqual([i["l"]["N"] for i in q["Items"]],
                         ["93", "99"])
        # tags are not restored (DDB-TABLE-215)
        self.assertEqual(self.c.list_tags_of_resource(
            ResourceArn=td["TableArn"])["Tags"], [])
        # the restored table takes writes
        self.c.put_item(TableName=target, Item={"pk": S("n"), "sk": N(1)})

    def test_billing_and_throughput_overrides(self):
        t = self.make_source()
        arn = self.backup(t)["BackupDetails"]["BackupArn"]
        target, _ = self.restore(arn, BillingModeOverride="PAY_PER_REQUEST")
        td = self.c.describe_table(TableName=target)["Table"]
        self.assertEqual(td["BillingModeSummary"]["BillingMode"],
                         "PAY_PER_REQUEST")
        self.assertEqual(td["GlobalSecondaryIndexes"][0][
            "ProvisionedThroughput"]["ReadCapacityUnits"], 0)
        target, _ = self.restore(
            arn, ProvisionedThroughputOverride={"ReadCapacityUnits": 11,
                                                "WriteCapacityUnits": 12})
        td = self.c.describe_table(TableName=target)["Table"]
        self.assertEqual((td["ProvisionedThroughput"]["ReadCapacityUnits"],
                          td["ProvisionedThroughput"]["WriteCapacityUnits"]),
                         (11, 12))
        # the GSI keeps its recorded throughput
        self.assertEqual(td["GlobalSecondaryIndexes"][0][
            "ProvisionedThroughput"]["WriteCapacityUnits"], 4)

    def test_index_overrides(self):
        t = self.make_source()
        arn = self.backup(t)["BackupDetails"]["BackupArn"]
        src = self.c.describe_table(TableName=t)["Table"]
        g = src["GlobalSecondaryIndexes"][0]
        # empty lists drop every index (DDB-TABLE-279)
        target, _ = self.restore(arn, GlobalSecondaryIndexOverride=[],
                                 LocalSecondaryIndexOverride=[])
        td = self.c.describe_table(TableName=target)["Table"]
        self.assertNotIn("GlobalSecondaryIndexes", td)
        self.assertNotIn("LocalSecondaryIndexes", td)
        self.assertEqual(sorted(a["AttributeName"]
                                for a in td["AttributeDefinitions"]),
                         ["pk", "sk"])
        self.assertEqual(self.count(target), 60)
        # a renamed index with its own throughput
        target, _ = self.restore(arn, GlobalSecondaryIndexOverride=[{
            "IndexName": "renamed", "KeySchema": g["KeySchema"],
            "Projection": g["Projection"],
            "ProvisionedThroughput": {"ReadCapacityUnits": 2,
                                      "WriteCapacityUnits": 2}}])
        td = self.c.describe_table(TableName=target)["Table"]
        self.assertEqual([i["IndexName"]
                          for i in td["GlobalSecondaryIndexes"]],
                         ["renamed"])
        q = self.c.query(TableName=target, IndexName="renamed",
                         KeyConditionExpression="g = :g",
                         ExpressionAttributeValues={":g": S("g2")})
        self.assertEqual(q["Count"], 20)
        # an index the source never had
        self.assertValidation(
            self.c.restore_table_from_backup,
            "Invalid Request: Index other does not match a secondary index "
            "that existed in the source table and cannot be created during "
            "the restore operation", TargetTableName=unique_name("rst"),
            BackupArn=arn, GlobalSecondaryIndexOverride=[{
                "IndexName": "other",
                "KeySchema": [{"AttributeName": "v", "KeyType": "HASH"}],
                "Projection": {"ProjectionType": "ALL"},
                "ProvisionedThroughput": {"ReadCapacityUnits": 1,
                                          "WriteCapacityUnits": 1}}])

    @unittest.skipUnless(client_knows_on_demand_override(),
                         "this boto3 has no OnDemandThroughputOverride")
    def test_on_demand_source_and_maxima(self):
        t = self.make_table("bko", OnDemandThroughput={
            "MaxReadRequestUnits": 100, "MaxWriteRequestUnits": 50})
        self.c.put_item(TableName=t, Item={"pk": S("a")})
        arn = self.backup(t)["BackupDetails"]["BackupArn"]
        src = self.c.describe_backup(BackupArn=arn)["BackupDescription"]
        self.assertEqual(src["SourceTableDetails"]["OnDemandThroughput"],
                         {"MaxReadRequestUnits": 100,
                          "MaxWriteRequestUnits": 50})
        # the recorded maxima come back (DDB-TABLE-215)
        target, _ = self.restore(arn)
        td = self.c.describe_table(TableName=target)["Table"]
        self.assertEqual(td["OnDemandThroughput"],
                         {"MaxReadRequestUnits": 100,
                          "MaxWriteRequestUnits": 50})
        target, _ = self.restore(arn, OnDemandThroughputOverride={
            "MaxReadRequestUnits": 10, "MaxWriteRequestUnits": 10})
        td = self.c.describe_table(TableName=target)["Table"]
        self.assertEqual(td["OnDemandThroughput"]["MaxWriteRequestUnits"], 10)
        # to PROVISIONED needs a throughput
        self.assertValidation(self.c.restore_table_from_backup,
                              "Invalid Request: Must override "
                              "ProvisionedThroughput if BillingMode is "
                              "overridden to PROVISIONED",
                              TargetTableName=unique_name("rst"),
                              BackupArn=arn, BillingModeOverride="PROVISIONED")
        target, _ = self.restore(
            arn, BillingModeOverride="PROVISIONED",
            ProvisionedThroughputOverride={"ReadCapacityUnits": 3,
                                           "WriteCapacityUnits": 3})
        td = self.c.describe_table(TableName=target)["Table"]
        self.assertEqual(td["ProvisionedThroughput"]["ReadCapacityUnits"], 3)
        self.assertEqual(self.count(target), 1)

    @unittest.skipUnless(client_knows_on_demand_override(),
                         "this boto3 has no OnDemandThroughputOverride")
    def test_override_errors(self):
        t = self.make_table("bkv")
        arn = self.backup(t)["BackupDetails"]["BackupArn"]
        name = unique_name("rst")
        pt = {"ReadCapacityUnits": 1, "WriteCapacityUnits": 1}
        self.assertValidation(self.c.restore_table_from_backup,
                              "Invalid Request: Cannot override "
                              "ProvisionedThroughput unless BillingMode is "
                              "PROVISIONED", TargetTableName=name,
                              BackupArn=arn, ProvisionedThroughputOverride=pt)
        self.assertValidation(self.c.restore_table_from_backup,
                              "Invalid Request: Cannot override "
                              "ProvisionedThroughput if BillingMode is "
                              "overridden to PAY_PER_REQUEST",
                              TargetTableName=name, BackupArn=arn,
                              BillingModeOverride="PAY_PER_REQUEST",
                              ProvisionedThroughputOverride=pt)
        self.assertValidation(self.c.restore_table_from_backup,
                              "Invalid Request: Requested "
                              "MaxReadRequestUnits for OnDemandThroughput is "
                              "outside of valid range", TargetTableName=name,
                              BackupArn=arn, OnDemandThroughputOverride={
                                  "MaxReadRequestUnits": 0,
                                  "MaxWriteRequestUnits": 0})
        raw = unvalidated_client()
        self.assertValidation(raw.restore_table_from_backup,
                              "TableName must be at least 3 characters long "
                              "and at most 255 characters long",
                              TargetTableName="", BackupArn=arn)
        self.assertValidation(raw.restore_table_from_backup,
                              "1 validation error detected: Value 'bad "
                              "name!' at 'targetTableName' failed to satisfy "
                              "constraint: Member must satisfy regular "
                              "expression pattern: [a-zA-Z0-9_.-]+",
                              TargetTableName="bad name!", BackupArn=arn)
        self.assertValidation(raw.restore_table_from_backup,
                              "1 validation error detected: Value '' at "
                              "'billingModeOverride' failed to satisfy "
                              "constraint: Member must satisfy enum value "
                              "set: [PROVISIONED, PAY_PER_REQUEST]",
                              TargetTableName=name, BackupArn=arn,
                              BillingModeOverride="")
        moved = arn.replace(":%s:" % REGION, ":eu-west-1:")
        self.assertValidation(self.c.restore_table_from_backup,
                              "Invalid Request: sseSpecificationOverride "
                              "must be provided for cross-region restores",
                              TargetTableName=name, BackupArn=moved)
        # none of these made a table
        self.assertError(self.c.describe_table, "ResourceNotFoundException",
                         TableName=name)

    def test_target_exists_and_missing_backup(self):
        t = self.make_table("bkx")
        arn = self.backup(t)["BackupDetails"]["BackupArn"]
        self.assertError(self.c.restore_table_from_backup,
                         "TableAlreadyExistsException",
                         "Table already exists: " + t, TargetTableName=t,
                         BackupArn=arn)
        gone = arn[:-8] + "00000000"
        self.assertError(self.c.restore_table_from_backup,
                         "BackupNotFoundException", TargetTableName="abc",
                         BackupArn=gone)

    def test_encryption_is_kept_or_overridden(self):
        t = self.make_table("bkk", SSESpecification={"Enabled": True,
                                                     "SSEType": "KMS"})
        arn = self.backup(t)["BackupDetails"]["BackupArn"]
        key = self.c.describe_table(TableName=t)["Table"]["SSEDescription"][
            "KMSMasterKeyArn"]
        feats = self.c.describe_backup(BackupArn=arn)["BackupDescription"][
            "SourceTableFeatureDetails"]
        self.assertEqual(feats["SSEDescription"]["KMSMasterKeyArn"], key)
        target, _ = self.restore(arn)
        td = self.c.describe_table(TableName=target)["Table"]
        self.assertEqual(td["SSEDescription"]["KMSMasterKeyArn"], key)
        target, _ = self.restore(arn, SSESpecificationOverride={
            "Enabled": False})
        self.assertNotIn("SSEDescription", self.c.describe_table(
            TableName=target)["Table"])


class TestContinuousBackups(E2ECase):
    """DescribeContinuousBackups (Alternator test_backup.py)."""

    def test_describe(self):
        t = self.make_table("cb")
        arn = self.c.describe_table(TableName=t)["Table"]["TableArn"]
        for name in (t, arn):
            d = self.c.describe_continuous_backups(TableName=name)[
                "ContinuousBackupsDescription"]
            self.assertEqual(d["ContinuousBackupsStatus"], "ENABLED")
            self.assertEqual(d["PointInTimeRecoveryDescription"],
                             {"PointInTimeRecoveryStatus": "DISABLED"})
        self.assertError(self.c.describe_continuous_backups,
                         "TableNotFoundException",
                         "Table not found: %snonexistent" % t,
                         TableName=t + "nonexistent")


if __name__ == "__main__":
    unittest.main()
