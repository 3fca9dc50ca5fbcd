# SPDX-License-Identifier: MIT
# test_pitr.py - point-in-time recovery on servers this module owns, on the
# virtual clock (--virtual-clock: every clock move runs the sweep):
# UpdateContinuousBackups and DescribeContinuousBackups (the window, the
# period), RestoreTableToPointInTime to an exact second with items, indexes
# and capacity settings, the latest restorable time, the overrides, the
# errors; the window moving with the recovery period; PITR beside a
# stream; restarts and a kill -9 during a restore (the table is complete or
# absent). Expected behaviour: the DynamoDB API reference for
# UpdateContinuousBackups, DescribeContinuousBackups and
# RestoreTableToPointInTime ("All these settings come from the current
# settings of the source table at the time of restore"; the errors each
# names); messages DynamoDB's where recorded (the PITR-off message as the
# live service words it), else marked in api/tables/pitr.c and restore.c.
import datetime
import json
import os
import signal
import urllib.request

import boto3
from botocore.config import Config
from botocore.exceptions import ClientError

from e2e_common import OwnServerCase, make_private_client
from e2e_common import start_private_server
from test_backup_durability import kill_during

DAY = 86400 * 1000


def S(v):
    return {"S": v}


def at(ms):
    return datetime.datetime.fromtimestamp(ms / 1000.0,
                                           tz=datetime.timezone.utc)


def sec(ms):
    """The whole second a client sends for ms (botocore drops the
    fraction of a RestoreDateTime)."""
    return at(ms // 1000 * 1000)


class PitrCase(OwnServerCase):
    PREFIX = "shardlocal-pitr."
    DATA_DIR = True

    def start(self, *flags):
        self.proc, self.url = start_private_server(
            self.data, self.port_file, "--virtual-clock",
            "--ttl-sweep-seconds", "3600", "--throttle", "false", *flags)
        self.c = make_private_client(self.url)
        # restores of many MB take seconds on a busy machine: one attempt
        # (a retry would find the first one's table), a long wait
        self.slow = boto3.client(
            "dynamodb", endpoint_url=self.url, region_name="us-east-1",
            config=Config(retries={"total_max_attempts": 1},
                          read_timeout=300))
        return self.c

    def kill(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()

    def clock(self, advance_ms=None):
        """Advance the virtual clock (None: read it); the time now, ms."""
        if advance_ms is None:
            with urllib.request.urlopen(self.url + "/shardlocal/clock") as r:
                return json.loads(r.read())["now_ms"]
        req = urllib.request.Request(
            self.url + "/shardlocal/clock", method="POST",
            data=json.dumps({"advance_ms": advance_ms}).encode(),
            headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=60) as r:
            return json.loads(r.read())["now_ms"]

    def near(self, got, ms):
        """A date-time DynamoDB sent is the time ms (to the ms)."""
        self.assertLess(abs((got - at(ms)).total_seconds()), 0.002,
                        (got, at(ms)))

    def error(self, fn, **kw):
        with self.assertRaises(ClientError) as cm:
            fn(**kw)
        e = cm.exception.response["Error"]
        return e["Code"], e["Message"]

    def table(self, name, indexes=False):
        kw = {}
        defs = [{"AttributeName": "pk", "AttributeType": "S"},
                {"AttributeName": "sk", "AttributeType": "S"}]
        if indexes:
            defs += [{"AttributeName": "g", "AttributeType": "S"},
                     {"AttributeName": "l", "AttributeType": "S"}]
            kw["GlobalSecondaryIndexes"] = [{
                "IndexName": "byg",
                "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                "Projection": {"ProjectionType": "ALL"},
                "ProvisionedThroughput": {"ReadCapacityUnits": 4,
                                          "WriteCapacityUnits": 2}}]
            kw["LocalSecondaryIndexes"] = [{
                "IndexName": "byl",
                "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"},
                              {"AttributeName": "l", "KeyType": "RANGE"}],
                "Projection": {"ProjectionType": "KEYS_ONLY"}}]
        self.c.create_table(
            TableName=name, AttributeDefinitions=defs,
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                       {"AttributeName": "sk", "KeyType": "RANGE"}],
            ProvisionedThroughput={"ReadCapacityUnits": 7,
                                   "WriteCapacityUnits": 3}, **kw)

    def put(self, table, sk, v, g="x", l=None):
        item = {"pk": S("p"), "sk": S(sk), "v": S(v), "g": S(g)}
        item["l"] = S(l if l is not None else v)
        self.c.put_item(TableName=table, Item=item)

    def items(self, table):
        out = {}
        kw = {}
        while True:
            r = self.c.scan(TableName=table, **kw)
            for it in r["Items"]:
                out[it["sk"]["S"]] = it["v"]["S"]
            if "LastEvaluatedKey" not in r:
                return out
            kw["ExclusiveStartKey"] = r["LastEvaluatedKey"]

    def count(self, op, **kw):
        """Select COUNT over every page (1 MB each)."""
        total = 0
        while True:
            r = op(Select="COUNT", **kw)
            total += r["Count"]
            if "LastEvaluatedKey" not in r:
                return total
            kw["ExclusiveStartKey"] = r["LastEvaluatedKey"]

    def enable(self, table, days=None):
        spec = {"PointInTimeRecoveryEnabled": True}
        if days is not None:
            spec["RecoveryPeriodInDays"] = days
        return self.c.update_continuous_backups(
            TableName=table, PointInTimeRecoverySpecification=spec)[
                "ContinuousBackupsDescription"]

    def pitr(self, table):
        return self.c.describe_continuous_backups(TableName=table)[
            "ContinuousBackupsDescription"]["PointInTimeRecoveryDescription"]


class ContinuousBackups(PitrCase):

    def test_describe_update_and_errors(self):
        c = self.start()
        self.table("tbl")
        d = c.describe_continuous_backups(TableName="tbl")[
            "ContinuousBackupsDescription"]
        self.assertEqual(d, {"ContinuousBackupsStatus": "ENABLED",
                             "PointInTimeRecoveryDescription": {
                                 "PointInTimeRecoveryStatus": "DISABLED"}})
        t0 = self.clock()
        d = self.enable("tbl", 7)
        self.assertEqual(d["ContinuousBackupsStatus"], "ENABLED")
        p = d["PointInTimeRecoveryDescription"]
        self.assertEqual(p["PointInTimeRecoveryStatus"], "ENABLED")
        self.assertEqual(p["RecoveryPeriodInDays"], 7)
        self.near(p["EarliestRestorableDateTime"], t0)
        self.near(p["LatestRestorableDateTime"], t0)
        t1 = self.clock(90000)
        p = self.pitr("tbl")
        self.near(p["EarliestRestorableDateTime"], t0)
        self.near(p["LatestRestorableDateTime"], t1)
        # enabled again: the period changes, the window stays
        p = self.enable("tbl")["PointInTimeRecoveryDescription"]
        self.assertEqual(p["RecoveryPeriodInDays"], 35)
        self.near(p["EarliestRestorableDateTime"], t0)
        # the hidden base copies are no user backups
        self.assertEqual(c.list_backups()["BackupSummaries"], [])
        self.assertEqual(c.list_backups(BackupType="ALL")[
            "BackupSummaries"], [])
        d = c.update_continuous_backups(
            TableName="tbl", PointInTimeRecoverySpecification={
                "PointInTimeRecoveryEnabled": False})[
                    "ContinuousBackupsDescription"]
        self.assertEqual(d["PointInTimeRecoveryDescription"],
                         {"PointInTimeRecoveryStatus": "DISABLED"})

        code, msg = self.error(
            c.update_continuous_backups, TableName="tbl",
            PointInTimeRecoverySpecification={
                "PointInTimeRecoveryEnabled": True,
                "RecoveryPeriodInDays": 36})
        self.assertEqual(code, "ValidationException")
        self.assertIn("recoveryPeriodInDays", msg)
        self.assertIn("less than or equal to 35", msg)
        self.assertEqual(self.error(
            c.update_continuous_backups, TableName="nope",
            PointInTimeRecoverySpecification={
                "PointInTimeRecoveryEnabled": True}),
            ("TableNotFoundException", "Table not found: nope"))
        self.assertEqual(self.error(c.describe_continuous_backups,
                                    TableName="nope"),
                         ("TableNotFoundException", "Table not found: nope"))
        # PITR off: the live service's words
        self.assertEqual(self.error(
            c.restore_table_to_point_in_time, SourceTableName="tbl",
            TargetTableName="rst1", UseLatestRestorableTime=True),
            ("PointInTimeRecoveryUnavailableException",
             "Point in time recovery is not enabled for table 'tbl'"))
        self.assertEqual(self.error(
            c.restore_table_to_point_in_time, SourceTableName="nope",
            TargetTableName="rst1", UseLatestRestorableTime=True),
            ("TableNotFoundException", "Table not found: nope"))


class RestoreToTime(PitrCase):

    def test_exact_second_items_indexes_capacity(self):
        """Each second's writes, restored second by second: items, the GSI
        and LSI, the source's capacity settings."""
        c = self.start()
        self.table("src", indexes=True)
        for i in range(5):
            self.put("src", "a%d" % i, "v0")
        t0 = self.clock(1000)
        self.enable("src")
        t1 = self.clock(1000)
        self.put("src", "a0", "v1", g="y")
        c.delete_item(TableName="src", Key={"pk": S("p"), "sk": S("a1")})
        self.put("src", "b", "v1")
        t2 = self.clock(1000)
        self.put("src", "a0", "v2", g="z")
        c.delete_item(TableName="src", Key={"pk": S("p"), "sk": S("b")})
        c.transact_write_items(TransactItems=[
            {"Put": {"TableName": "src", "Item": {
                "pk": S("p"), "sk": S("c"), "v": S("v2"), "g": S("z"),
                "l": S("v2")}}},
            {"Update": {"TableName": "src", "Key": {"pk": S("p"),
                                                    "sk": S("a2")},
                        "UpdateExpression": "SET v = :v",
                        "ExpressionAttributeValues": {":v": S("v2")}}}])
        self.clock(1000)
        want = {
            t0: {"a0": "v0", "a1": "v0", "a2": "v0", "a3": "v0",
                 "a4": "v0"},
            t1: {"a0": "v1", "a2": "v0", "a3": "v0", "a4": "v0",
                 "b": "v1"},
            t2: {"a0": "v2", "a2": "v2", "a3": "v0", "a4": "v0",
                 "c": "v2"},
        }
        gz_want = {t0: [], t1: [], t2: ["a0", "c"]}     # g = z then
        lv0_want = {t0: ["a0", "a1", "a2", "a3", "a4"],  # l = v0 then
                    t1: ["a2", "a3", "a4"], t2: ["a2", "a3", "a4"]}
        gx_want = {t0: 5, t1: 4, t2: 3}                  # g = x then
        for n, (when, items) in enumerate(sorted(want.items())):
            target = "dst%d" % n
            td = c.restore_table_to_point_in_time(
                SourceTableName="src", TargetTableName=target,
                RestoreDateTime=sec(when))["TableDescription"]
            self.assertEqual(td["TableStatus"], "CREATING")
            self.assertEqual(td["RestoreSummary"], {
                "SourceTableArn": c.describe_table(TableName="src")[
                    "Table"]["TableArn"],
                "RestoreDateTime": sec(when), "RestoreInProgress": True})
            self.assertEqual(self.items(target), items, n)
            # the GSI as it was: g of every item at that second
            gz = c.query(TableName=target, IndexName="byg",
                         KeyConditionExpression="g = :g",
                         ExpressionAttributeValues={":g": S("z")})["Items"]
            self.assertEqual(sorted(it["sk"]["S"] for it in gz),
                             gz_want[when])
            gx = c.query(TableName=target, IndexName="byg",
                         KeyConditionExpression="g = :g",
                         ExpressionAttributeValues={":g": S("x")},
                         Select="COUNT")["Count"]
            self.assertEqual(gx, gx_want[when])
            lv = c.query(TableName=target, IndexName="byl",
                         KeyConditionExpression="pk = :p AND l = :l",
                         ExpressionAttributeValues={":p": S("p"),
                                                    ":l": S("v0")})["Items"]
            self.assertEqual(sorted(it["sk"]["S"] for it in lv),
                             lv0_want[when])
            d = c.describe_table(TableName=target)["Table"]
            self.assertEqual(d["ProvisionedThroughput"]["ReadCapacityUnits"],
                             7)
            self.assertEqual(d["ProvisionedThroughput"]
                             ["WriteCapacityUnits"], 3)
            self.assertEqual(d["GlobalSecondaryIndexes"][0]
                             ["ProvisionedThroughput"]["ReadCapacityUnits"],
                             4)
            self.assertEqual(d["ItemCount"], len(items))
        # the latest restorable time: every write so far
        c.restore_table_to_point_in_time(
            SourceTableName="src", TargetTableName="latest",
            UseLatestRestorableTime=True,
            BillingModeOverride="PAY_PER_REQUEST")
        self.assertEqual(self.items("latest"), want[t2])
        self.assertEqual(c.describe_table(TableName="latest")["Table"][
            "BillingModeSummary"]["BillingMode"], "PAY_PER_REQUEST")

    def test_restore_errors(self):
        c = self.start()
        self.table("src")
        t0 = self.clock()
        self.enable("src")
        now = self.clock(5000)
        arn = c.describe_table(TableName="src")["Table"]["TableArn"]
        for when in (t0 - 1000, now + 1000):
            code, msg = self.error(
                c.restore_table_to_point_in_time, SourceTableArn=arn,
                TargetTableName="rst1", RestoreDateTime=sec(when))
            self.assertEqual(code, "InvalidRestoreTimeException")
        self.assertEqual(self.error(
            c.restore_table_to_point_in_time, SourceTableName="src",
            TargetTableName="src", UseLatestRestorableTime=True),
            ("TableAlreadyExistsException", "Table already exists: src"))
        code, _ = self.error(
            c.restore_table_to_point_in_time, SourceTableName="src",
            TargetTableName="rst1")
        self.assertEqual(code, "ValidationException")
        code, _ = self.error(
            c.restore_table_to_point_in_time, SourceTableName="src",
            SourceTableArn=arn, TargetTableName="rst1",
            UseLatestRestorableTime=True)
        self.assertEqual(code, "ValidationException")
        # by ARN, at the window's first millisecond
        c.restore_table_to_point_in_time(SourceTableArn=arn,
                                         TargetTableName="rst1",
                                         RestoreDateTime=sec(t0))
        self.assertEqual(self.items("rst1"), {})

    def test_window_follows_period(self):
        """With a 1-day period the window's start follows now - 1 day once
        the table is older (a new base each day, the older ones dropped);
        a time before it is refused; one inside is restored."""
        c = self.start()
        self.table("src")
        self.enable("src", 1)
        marks = {}
        for day in range(3):
            self.put("src", "d%d" % day, "v")
            marks[day] = self.clock()
            self.clock(DAY // 2)
            self.clock(DAY // 2)
        # between two bases: the window starts at now - 1 day, after the
        # oldest base kept
        now = self.clock(DAY // 4)
        p = self.pitr("src")
        self.near(p["EarliestRestorableDateTime"], now - DAY)
        for when in (marks[1], marks[2]):
            code, _ = self.error(
                c.restore_table_to_point_in_time, SourceTableName="src",
                TargetTableName="old", RestoreDateTime=sec(when))
            self.assertEqual(code, "InvalidRestoreTimeException")
        self.put("src", "late", "v")
        self.clock(1000)
        c.restore_table_to_point_in_time(
            SourceTableName="src", TargetTableName="rst2",
            RestoreDateTime=sec(now - DAY + 1000))
        self.assertEqual(sorted(self.items("rst2")), ["d0", "d1", "d2"])
        c.restore_table_to_point_in_time(
            SourceTableName="src", TargetTableName="rst1",
            UseLatestRestorableTime=True)
        self.assertEqual(sorted(self.items("rst1")),
                         ["d0", "d1", "d2", "late"])

    def test_beside_a_stream(self):
        """A stream turned off keeps PITR's log on, and PITR turned off
        keeps the stream's."""
        c = self.start()
        self.table("src")
        c.update_table(TableName="src", StreamSpecification={
            "StreamEnabled": True, "StreamViewType": "KEYS_ONLY"})
        self.enable("src")
        self.clock(1000)
        c.update_table(TableName="src", StreamSpecification={
            "StreamEnabled": False})
        self.clock(1000)
        self.put("src", "after", "v")
        self.clock(1000)
        c.restore_table_to_point_in_time(
            SourceTableName="src", TargetTableName="rst1",
            UseLatestRestorableTime=True)
        self.assertEqual(self.items("rst1"), {"after": "v"})


class PitrDurability(PitrCase):

    def test_restart_keeps_window_and_log(self):
        """kill -9, restart: PITR is on, its window and logged changes
        intact."""
        c = self.start()
        self.table("src")
        self.put("src", "a", "v0")
        t0 = self.clock(1000)
        self.enable("src")
        t1 = self.clock(1000)
        self.put("src", "a", "v1")
        self.put("src", "b", "v1")
        self.kill()
        c = self.start()
        # the virtual clock starts again from the wall clock: move it past
        # the times before the kill
        self.clock(10000)
        self.near(self.pitr("src")["EarliestRestorableDateTime"], t0)
        c.restore_table_to_point_in_time(
            SourceTableName="src", TargetTableName="rst1",
            RestoreDateTime=sec(t1))
        self.assertEqual(self.items("rst1"), {"a": "v1", "b": "v1"})
        c.restore_table_to_point_in_time(
            SourceTableName="src", TargetTableName="rst0",
            RestoreDateTime=sec(t0))
        self.assertEqual(self.items("rst0"), {"a": "v0"})

    def test_kill_during_restore(self):
        """kill -9 while a restore fills its table: after a restart the
        target is absent (its name free, the same restore then succeeds)
        or complete, never partial."""
        n, size = 40, 350000
        c = self.start()
        self.table("big", indexes=True)
        self.enable("big")
        for i in range(n):
            c.put_item(TableName="big", Item={
                "pk": S("p"), "sk": S("k%02d" % i), "g": S("x"),
                "l": S("l"), "v": {"B": bytes([i]) * size}})
        self.clock(1000)
        tdir = os.path.join(self.data, "tables")
        new, done, _ = kill_during(
            tdir, lambda: self.slow.restore_table_to_point_in_time(
                SourceTableName="big", TargetTableName="rst",
                UseLatestRestorableTime=True), self.kill)
        self.assertTrue(new, "no table directory appeared")
        c = self.start()
        self.clock(1000)                # the sweep drops what was left
        if "rst" not in c.list_tables()["TableNames"]:
            self.assertFalse(done, "an acknowledged restore was lost")
            self.slow.restore_table_to_point_in_time(
                SourceTableName="big", TargetTableName="rst",
                UseLatestRestorableTime=True)
        self.assertEqual(self.count(c.scan, TableName="rst"), n)
        self.assertEqual(self.count(c.query, TableName="rst",
                                    IndexName="byg",
                                    KeyConditionExpression="g = :g",
                                    ExpressionAttributeValues={
                                        ":g": S("x")}), n)
