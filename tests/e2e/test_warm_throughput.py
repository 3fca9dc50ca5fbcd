# SPDX-License-Identifier: MIT
# test_warm_throughput.py - WarmThroughput through boto3: what DescribeTable
# shows for tables and GSIs without asking and after billing changes,
# CreateTable's minimums and quota, UpdateTable's increases (decreases
# refused, alone in the request, UPDATING then ACTIVE with the table
# ACTIVE throughout), and what a warm throughput buys in the throttling
# model: partitions and on-demand instant capacity (docs/throttling.md,
# "Warm throughput").
#
# DynamoDB's behaviour: the API reference (WarmThroughput,
# TableWarmThroughputDescription), the developer guide's warm throughput
# page, a catalogue of recorded DynamoDB behaviours and messages (us-east-1
# and us-west-2, 2026-10-08/09) and the Alternator suite's
# test_warm_throughput.py, run against DynamoDB (minimums 12,000 / 4,000,
# "lower than current WarmThroughput").
import unittest

from e2e_common import E2ECase, client, has_param, unique_name, wait_active
from test_throttling import VirtualClockCase

HAS_WARM = has_param(client(), "CreateTable", "WarmThroughput")
SKIP = unittest.skipUnless(HAS_WARM, "botocore without WarmThroughput")

OD_LOW = ("One or more parameter values were invalid: Requested %s for "
          "WarmThroughput for %s is lower than initial throughput for "
          "OnDemand. See: https://docs.aws.amazon.com/amazondynamodb/latest/"
          "developerguide/on-demand-capacity-mode.html"
          "#on-demand-capacity-mode-initial")
DECREASE = ("One or more parameter values were invalid: Requested %s for "
            "WarmThroughput for %s is lower than current WarmThroughput, "
            "decreasing WarmThroughput is not supported")


def warm(r=None, w=None):
    d = {}
    if r is not None:
        d["ReadUnitsPerSecond"] = r
    if w is not None:
        d["WriteUnitsPerSecond"] = w
    return d


def gsi(name="gix", **extra):
    g = {"IndexName": name,
         "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
         "Projection": {"ProjectionType": "ALL"}}
    g.update(extra)
    return g


def shown(t, index=None):
    """(read, write, status) of DescribeTable's WarmThroughput."""
    if index is not None:
        t = [g for g in t["GlobalSecondaryIndexes"]
             if g["IndexName"] == index][0]
    w = t["WarmThroughput"]
    return (w["ReadUnitsPerSecond"], w["WriteUnitsPerSecond"], w["Status"])


@SKIP
class WarmTest(E2ECase):

    def create(self, on_demand=True, rcu=5, wcu=3, gsis=None, **extra):
        name = unique_name("warm")
        args = dict(TableName=name,
                    AttributeDefinitions=[
                        {"AttributeName": "pk", "AttributeType": "S"},
                        {"AttributeName": "g", "AttributeType": "S"}][
                            :2 if gsis else 1],
                    KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}])
        if on_demand:
            args["BillingMode"] = "PAY_PER_REQUEST"
        else:
            args["ProvisionedThroughput"] = {"ReadCapacityUnits": rcu,
                                             "WriteCapacityUnits": wcu}
        if gsis:
            args["GlobalSecondaryIndexes"] = gsis
        args.update(extra)
        r = self.c.create_table(**args)
        self._tables.append(name)
        return name, r["TableDescription"]

    def describe(self, name):
        return wait_active(self.c, name)

    def test_defaults(self):
        # Always present: 12,000 / 4,000 on demand, the capacity units when
        # provisioned, a GSI likewise; the CreateTable answer shows it only
        # when asked for.
        name, td = self.create(gsis=[gsi()])
        self.assertNotIn("WarmThroughput", td)
        t = self.describe(name)
        self.assertEqual(shown(t), (12000, 4000, "ACTIVE"))
        self.assertEqual(shown(t, "gix"), (12000, 4000, "ACTIVE"))
        name, _ = self.create(False, 5, 3, gsis=[gsi(
            ProvisionedThroughput={"ReadCapacityUnits": 2,
                                   "WriteCapacityUnits": 1})])
        t = self.describe(name)
        self.assertEqual(shown(t), (5, 3, "ACTIVE"))
        self.assertEqual(shown(t, "gix"), (2, 1, "ACTIVE"))

    def test_create_with_warm(self):
        name, td = self.create(
            WarmThroughput=warm(12240, 4080),
            gsis=[gsi(WarmThroughput=warm(w=5000))])
        self.assertEqual(td["WarmThroughput"]["ReadUnitsPerSecond"], 12240)
        self.assertIn(td["WarmThroughput"]["Status"], ("ACTIVE", "UPDATING"))
        t = self.describe(name)
        self.assertEqual(shown(t), (12240, 4080, "ACTIVE"))
        self.assertEqual(shown(t, "gix"), (12000, 5000, "ACTIVE"))
        # one member alone, or none at all, keeps the default for the rest
        name, _ = self.create(WarmThroughput=warm(w=4080))
        self.assertEqual(shown(self.describe(name)), (12000, 4080, "ACTIVE"))
        name, _ = self.create(WarmThroughput={})
        self.assertEqual(shown(self.describe(name)), (12000, 4000, "ACTIVE"))
        name, _ = self.create(False, 10, 10, WarmThroughput=warm(100, 100))
        self.assertEqual(shown(self.describe(name)), (100, 100, "ACTIVE"))

    def test_create_minimums_and_quota(self):
        cases = [
            (dict(WarmThroughput=warm(11999, 4000)),
             OD_LOW % ("ReadUnitsPerSecond", "table")),
            (dict(WarmThroughput=warm(12000, 3999)),
             OD_LOW % ("WriteUnitsPerSecond", "table")),
            (dict(WarmThroughput=warm(0, 0)),
             OD_LOW % ("ReadUnitsPerSecond", "table")),
            (dict(gsis=[gsi(WarmThroughput=warm(1, 1))]),
             OD_LOW % ("ReadUnitsPerSecond", "index gix")),
            (dict(on_demand=False, rcu=10, wcu=10,
                  WarmThroughput=warm(5, 5)),
             "One or more parameter values were invalid: Requested "
             "ReadUnitsPerSecond for WarmThroughput for table is lower than "
             "ReadCapacityUnits of ProvisionedThroughput"),
        ]
        for kw, msg in cases:
            self.assertValidation(self.create, msg, **kw)
        self.assertError(
            self.create, "LimitExceededException",
            "Subscriber limit exceeded: Requested ReadUnitsPerSecond for "
            "WarmThroughput for table exceeds TableMaxReadCapacityUnits of "
            "the account in region us-east-1",
            WarmThroughput=warm(40001))

    def test_update(self):
        name, _ = self.create(gsis=[gsi()])
        self.describe(name)
        r = self.c.update_table(TableName=name,
                                WarmThroughput=warm(12240, 4080))
        self.assertEqual(r["TableDescription"]["TableStatus"], "ACTIVE")
        t = self.describe(name)
        self.assertEqual(shown(t), (12240, 4080, "ACTIVE"))
        # the same again, one member alone
        self.c.update_table(TableName=name, WarmThroughput=warm(12240))
        self.c.update_table(TableName=name, WarmThroughput=warm(w=5000))
        self.assertEqual(shown(self.describe(name)), (12240, 5000, "ACTIVE"))
        for spec, member in ((warm(12120, 5000), "ReadUnitsPerSecond"),
                             (warm(w=4999), "WriteUnitsPerSecond")):
            self.assertValidation(self.c.update_table,
                                  DECREASE % (member, "table"),
                                  TableName=name, WarmThroughput=spec)
        self.assertError(
            self.c.update_table, "LimitExceededException",
            "Subscriber limit exceeded: Requested WriteUnitsPerSecond for "
            "WarmThroughput for table exceeds TableMaxWriteCapacityUnits of "
            "the account in region us-east-1",
            TableName=name, WarmThroughput=warm(w=40001))
        # alone in the request
        self.assertValidation(
            self.c.update_table, "One or more parameter values were invalid: "
            "WarmThroughput must be the only operation in the request",
            TableName=name, WarmThroughput=warm(w=6000),
            DeletionProtectionEnabled=False)
        self.assertValidation(
            self.c.update_table, "One or more parameter values were invalid: "
            "Create global secondary index cannot be specified when updating "
            "WarmThroughput", TableName=name, WarmThroughput=warm(w=6000),
            AttributeDefinitions=[{"AttributeName": "h",
                                   "AttributeType": "S"}],
            GlobalSecondaryIndexUpdates=[{"Create": {
                "IndexName": "hix", "Projection": {"ProjectionType": "ALL"},
                "KeySchema": [{"AttributeName": "h", "KeyType": "HASH"}]}}])
        # a GSI's, through GlobalSecondaryIndexUpdates
        self.c.update_table(TableName=name, GlobalSecondaryIndexUpdates=[{
            "Update": {"IndexName": "gix", "WarmThroughput": warm(w=8000)}}])
        self.assertEqual(shown(self.describe(name), "gix"),
                         (12000, 8000, "ACTIVE"))
        self.assertValidation(
            self.c.update_table, DECREASE % ("WriteUnitsPerSecond",
                                             "index gix"),
            TableName=name, GlobalSecondaryIndexUpdates=[{"Update": {
                "IndexName": "gix", "WarmThroughput": warm(w=7999)}}])
        # an empty one, before the table is looked up (recorded for a GSI)
        self.assertValidation(
            self.c.update_table, "One or more parameter values were invalid: "
            "WarmThroughput must have at least one of ReadUnitsPerSecond or "
            "WriteUnitsPerSecond specified for index: ghost",
            TableName=unique_name("missing"), GlobalSecondaryIndexUpdates=[
                {"Update": {"IndexName": "ghost", "WarmThroughput": {}}}])

    def test_follows_billing(self):
        # Provisioned: the highest units ever provisioned, never less; on
        # demand: at least 12,000 / 4,000, kept after switching back.
        name, _ = self.create(False, 1, 1)
        self.assertEqual(shown(self.describe(name)), (1, 1, "ACTIVE"))
        for r, w in ((3, 3), (1, 1)):
            self.c.update_table(TableName=name, ProvisionedThroughput={
                "ReadCapacityUnits": r, "WriteCapacityUnits": w})
            self.assertEqual(shown(self.describe(name)), (3, 3, "ACTIVE"))
        self.assertValidation(self.c.update_table,
                              DECREASE % ("ReadUnitsPerSecond", "table"),
                              TableName=name, WarmThroughput=warm(1, 1))
        self.c.update_table(TableName=name, BillingMode="PAY_PER_REQUEST")
        self.assertEqual(shown(self.describe(name)), (12000, 4000, "ACTIVE"))
        self.c.update_table(TableName=name, BillingMode="PROVISIONED",
                            ProvisionedThroughput={"ReadCapacityUnits": 1,
                                                   "WriteCapacityUnits": 1})
        self.assertEqual(shown(self.describe(name)), (12000, 4000, "ACTIVE"))

    def test_delete_answer_has_none(self):
        name, _ = self.create()
        self.describe(name)
        td = self.c.delete_table(TableName=name)["TableDescription"]
        self.assertNotIn("WarmThroughput", td)


@SKIP
class WarmUpdatingTest(VirtualClockCase):
    """A private server on the virtual clock with a status delay."""
    FLAGS = ("--in-memory", "--virtual-clock", "--status-delay-ms", "5000")
    PREFIX = "shardlocal-warm."

    def test_updating_then_active(self):
        # An increase shows UPDATING, with the values before it, while the
        # table stays ACTIVE; then ACTIVE with the new values.
        self.create("wtab")
        self.raw.advance(5000)
        self.c.update_table(TableName="wtab", WarmThroughput=warm(24000, 8000))
        t = self.c.describe_table(TableName="wtab")["Table"]
        self.assertEqual(t["TableStatus"], "ACTIVE")
        self.assertEqual(shown(t), (12000, 4000, "UPDATING"))
        # what shows is what a decrease is measured against
        self.c.update_table(TableName="wtab", WarmThroughput=warm(12000, 4000))
        self.c.update_table(TableName="wtab", WarmThroughput=warm(24000, 8000))
        self.raw.advance(5000)
        t = self.c.describe_table(TableName="wtab")["Table"]
        self.assertEqual(shown(t), (24000, 8000, "ACTIVE"))


@SKIP
class WarmCapacityTest(VirtualClockCase):
    """What a warm throughput buys, scaled by 0.01: a new on-demand table
    takes 40 WRU a second (100 at once) on 4 partitions of 10 WCU (25 at
    once each); warmed to 8,000 writes a second (80 scaled) it has 8
    partitions and 80 WRU a second: 200 at once."""
    FLAGS = ("--in-memory", "--virtual-clock", "--throttle-scale", "0.01")
    PREFIX = "shardlocal-warm."

    def burst(self, table, n):
        """n one-unit writes of distinct keys at one instant: how many are
        served."""
        ok = 0
        for i in range(n):
            st, _ = self.raw.call("PutItem", {
                "TableName": table, "Item": {"pk": {"S": "k%d" % i}}})
            ok += st == 200
        return ok

    def test_warm_capacity(self):
        self.create("cold")
        self.create("hot", WarmThroughput=warm(w=8000))
        self.create("later")
        self.assertEqual(self.burst("cold", 300), 100)
        self.assertEqual(self.burst("hot", 300), 200)
        st, hot = self.raw.admin("/shardlocal/tables/hot")
        self.assertEqual(hot["partition_count"], 8)
        self.assertEqual(hot["on_demand"]["instant_write_limit"], 80.0)
        # raised on a live table: split, and there at once
        self.c.update_table(TableName="later", WarmThroughput=warm(w=8000))
        st, later = self.raw.admin("/shardlocal/tables/later")
        self.assertEqual(later["partition_count"], 8)
        self.assertEqual(self.burst("later", 300), 200)


if __name__ == "__main__":
    unittest.main()
