# SPDX-License-Identifier: MIT
# test_history.py - GET /shardlocal/tables/{table}/history (issue 14): one
# sample per second per partition, the table against its capacity, the
# limits and the events (splits, UpdateTable, tags), driven by boto3 on a
# private server with the virtual clock, 10 WCU / 30 RCU partitions
# (--throttle-scale 0.01) and, per table, a ceiling that absorbs no burst
# above itself (tag partition-burst-seconds 1), so every number is exact.
# The numbers follow shardlocal's model (docs/throttling.md, sections 2 and
# 9): a partition serves at most its ceiling (DynamoDB's 1,000 WCU per
# partition, scaled), its share of the provisioned rate comes out of a
# burst bank of 300 s.
import unittest

from botocore.exceptions import ClientError

from e2e_common import BIN, start_temp_server, stop_temp_server
from test_admin import standard_client
from test_throttling import Raw

THROTTLED = ("ProvisionedThroughputExceededException", "ThrottlingException")


@unittest.skipUnless(BIN, "needs SHARDLOCAL_BIN (a server this test owns)")
class HistoryTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.dir, cls.proc, cls.url = start_temp_server(
            "shardlocal-history.", "--in-memory", "--virtual-clock",
            "--throttle-scale", "0.01", "--status-delay-ms", "0",
            "--split-size", "64KB")
        cls.c = standard_client(cls.url)
        cls.raw = Raw(cls.url)

    @classmethod
    def tearDownClass(cls):
        stop_temp_server(cls.dir, cls.proc)

    # -- helpers ------------------------------------------------------------

    def admin(self, path, body=None, expect=200):
        status, data = self.raw.admin(path, body)
        self.assertEqual(status, expect, (path, data))
        return data

    def clock(self, **body):
        return self.admin("/shardlocal/clock", body)["now_ms"]

    def whole_second(self):
        """Move the clock to the start of the next second; return it (s)."""
        now = self.clock(advance_ms=0)
        return self.clock(set_ms=(now // 1000 + 1) * 1000) // 1000

    def history(self, table, query="", expect=200):
        return self.admin("/shardlocal/tables/%s/history%s" % (table, query),
                          expect=expect)

    def table(self, name, rcu=10, wcu=10, tags=None, gsi=False,
              on_demand=False):
        defs = [{"AttributeName": "pk", "AttributeType": "S"}]
        args = dict(TableName=name, AttributeDefinitions=defs,
                    KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}])
        if on_demand:
            args["BillingMode"] = "PAY_PER_REQUEST"
        else:
            args["ProvisionedThroughput"] = {"ReadCapacityUnits": rcu,
                                             "WriteCapacityUnits": wcu}
        tags = dict({"partition-burst-seconds": "1"}, **(tags or {}))
        args["Tags"] = [{"Key": "shardlocal:" + k, "Value": v}
                        for k, v in tags.items()]
        if gsi:
            defs.append({"AttributeName": "g", "AttributeType": "S"})
            g = {"IndexName": "by_g",
                 "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                 "Projection": {"ProjectionType": "KEYS_ONLY"}}
            if not on_demand:
                g["ProvisionedThroughput"] = {"ReadCapacityUnits": 5,
                                              "WriteCapacityUnits": 5}
            args["GlobalSecondaryIndexes"] = [g]
        self.c.create_table(**args)
        self.addCleanup(self.c.delete_table, TableName=name)
        return name

    def puts(self, table, keys, size=0, extra=None):
        """PutItem one item per key; returns (served, throttled)."""
        ok = thr = 0
        for k in keys:
            item = {"pk": {"S": k}}
            if size:
                item["v"] = {"S": "x" * size}
            item.update(extra or {})
            try:
                self.c.put_item(TableName=table, Item=item)
                ok += 1
            except ClientError as e:
                self.assertIn(e.response["Error"]["Code"], THROTTLED)
                thr += 1
        return ok, thr

    def partition_of(self, table, key):
        hk = self.admin("/shardlocal/tables/%s/hotkeys?n=64" % table)
        where = {e["key_text"]: e["partition"]
                 for e in hk["consumed_write"] + hk["throttled_write"]}
        return where[key]

    # -- the samples --------------------------------------------------------

    def test_hot_key_seconds(self):
        # 10 RCU / 10 WCU: 2 partitions, each a 10 WCU/s ceiling and a
        # 5 WCU/s share with a bank of 1,500 (300 s of it, full at the
        # start). One key offered 15 writes a second gets 10, every
        # second; the bank pays the 5 above the share (1,495, 1,490, ...).
        s0 = self.whole_second()
        t = self.table("hist_hot")
        served = []
        for _ in range(5):
            served.append(self.puts(t, ["hot"] * 15))
            self.clock(advance_ms=1000)
        self.assertEqual(served, [(10, 5)] * 5)
        h = self.history(t, "?seconds=10")
        hp = self.partition_of(t, "hot")
        self.assertEqual(h["seconds"], 10)
        self.assertTrue(h["throttle_state"])
        self.assertEqual(h["partition_count"], 2)
        self.assertEqual(h["now_ms"], (s0 + 5) * 1000)
        lim = h["limits"]
        self.assertEqual((lim["billing_mode"], lim["write_provisioned"],
                          lim["read_provisioned"]), ("PROVISIONED", 10, 10))
        self.assertEqual((lim["write_ceiling"], lim["read_ceiling"]),
                         (10, 30))
        self.assertEqual(lim["write_ceiling_burst"], 10)  # 1 s of ceiling
        self.assertEqual(lim["write_capacity"], 10)
        # whole seconds since the table was created: s0 .. s0 + 4
        self.assertEqual([x["t"] for x in h["table_seconds"]],
                         list(range(s0, s0 + 5)))
        for x in h["table_seconds"]:
            self.assertEqual((x["consumed_wcu"], x["write_throttles"],
                              x["write_capacity"], x["read_capacity"]),
                             (10, 5, 10, 10))
        self.assertEqual([p["partition"] for p in h["partitions"]], [0, 1])
        hot = h["partitions"][hp]
        self.assertEqual((hot["write_share"], hot["write_bucket_capacity"]),
                         (5, 1500))
        self.assertEqual([x["consumed_wcu"] for x in hot["seconds"]],
                         [10] * 5)
        self.assertEqual([x["write_throttles"] for x in hot["seconds"]],
                         [5] * 5)
        self.assertEqual([x["write_bucket"] for x in hot["seconds"]],
                         [1495, 1490, 1485, 1480, 1475])
        self.assertEqual([x["write_burst"] for x in hot["seconds"]],
                         [10] * 5)                   # refilled by the end
        cold = h["partitions"][1 - hp]
        self.assertEqual([(x["consumed_wcu"], x["write_throttles"],
                           x["write_bucket"]) for x in cold["seconds"]],
                         [(0, 0, 1500)] * 5)
        self.assertEqual(set(cold["seconds"][0]),
                         {"t", "consumed_wcu", "consumed_rcu",
                          "write_throttles", "read_throttles",
                          "write_bucket", "read_bucket", "write_burst",
                          "read_burst"})
        # reads: 0.5 RCU eventually consistent, 1 strongly
        self.c.get_item(TableName=t, Key={"pk": {"S": "hot"}})
        self.c.get_item(TableName=t, Key={"pk": {"S": "hot"}},
                        ConsistentRead=True)
        self.clock(advance_ms=1000)
        h = self.history(t, "?seconds=1")
        self.assertEqual(h["partitions"][hp]["seconds"][0]["consumed_rcu"],
                         1.5)
        self.assertEqual(h["table_seconds"][0]["t"], s0 + 5)
        # one partition alone
        one = self.history(t, "?seconds=3&partition=%d" % hp)
        self.assertEqual([p["partition"] for p in one["partitions"]], [hp])
        self.assertEqual(len(one["partitions"][0]["seconds"]), 3)

    def test_window(self):
        # 900 s at most, all of them kept; a 901st second is forgotten.
        s0 = self.whole_second()
        t = self.table("hist_win", wcu=5)            # 1 partition
        self.puts(t, ["a"] * 3)                     # in second s0
        self.clock(advance_ms=900 * 1000)
        h = self.history(t, "?seconds=900")
        self.assertEqual(len(h["table_seconds"]), 900)
        self.assertEqual(h["table_seconds"][0]["t"], s0)
        self.assertEqual(h["table_seconds"][0]["consumed_wcu"], 3)
        self.assertEqual(h["partitions"][0]["seconds"][-1]["write_bucket"],
                         1500)                     # refilled long ago
        self.clock(advance_ms=1000)
        h = self.history(t, "?seconds=900")
        self.assertEqual(h["table_seconds"][0]["t"], s0 + 1)
        self.assertEqual(sum(x["consumed_wcu"] for x in h["table_seconds"]),
                         0)
        self.assertEqual(len(self.history(t)["table_seconds"]), 60)

    # -- events -------------------------------------------------------------

    def test_update_table_splits(self):
        # A tag at CreateTable, then UpdateTable to 25 WCU: 3 partitions
        # are needed (10/30 + 25/10), so the 2 double to 4 (one split
        # event for the doubling) and the throughput changes (an
        # update_table event). The hot key still gets its partition's
        # 10 WCU a second (DynamoDB's partition maximum, scaled).
        s0 = self.whole_second()
        t = self.table("hist_split")
        self.puts(t, ["hot"] * 15)
        self.clock(advance_ms=2000)
        self.c.update_table(TableName=t, ProvisionedThroughput={
            "ReadCapacityUnits": 10, "WriteCapacityUnits": 25})
        self.assertEqual(self.puts(t, ["hot"] * 15), (10, 5))
        self.clock(advance_ms=1000)
        h = self.history(t, "?seconds=60")
        self.assertEqual(h["partition_count"], 4)
        ev = h["events"]
        self.assertEqual([e["kind"] for e in ev],
                         ["tag", "split", "update_table"])
        self.assertEqual(ev[0], {"t": s0, "t_ms": s0 * 1000, "kind": "tag",
                                 "knobs": "partition-burst-seconds=1",
                                 "partitions": 2})
        self.assertEqual(ev[1], {"t": s0 + 2, "t_ms": (s0 + 2) * 1000,
                                 "kind": "split", "partition": None,
                                 "cause": "throughput", "partitions": 4})
        self.assertEqual(ev[2], {"t": s0 + 2, "t_ms": (s0 + 2) * 1000,
                                 "kind": "update_table",
                                 "billing_mode": "PROVISIONED",
                                 "read_capacity_units": 10,
                                 "write_capacity_units": 25,
                                 "partitions": 4})
        self.assertEqual([x["write_capacity"] for x in h["table_seconds"]],
                         [10, 10, 25])
        self.assertEqual([x["consumed_wcu"] for x in h["table_seconds"]],
                         [10, 0, 10])
        hp = self.partition_of(t, "hot")
        self.assertEqual(h["partitions"][hp]["seconds"][-1]["consumed_wcu"],
                         10)
        # the children of a split share their parent's past, half each:
        # the hot key's 10 WCU of the first second on both children of
        # its partition, so the partitions still add up to the table
        self.assertEqual(sorted(p["seconds"][0]["consumed_wcu"]
                                for p in h["partitions"]), [0, 0, 5, 5])
        self.assertEqual(sorted(p["seconds"][0]["write_throttles"]
                                for p in h["partitions"]), [0, 0, 2, 3])
        # events older than the window are left out
        self.clock(advance_ms=1000)
        self.assertEqual(self.history(t, "?seconds=1")["events"], [])
        self.assertEqual(len(self.history(t, "?seconds=2")["events"]), 2)
        # to on-demand: the capacity is the instant capacity (4,000 WRU a
        # second for a new on-demand table, scaled: 40)
        self.c.update_table(TableName=t, BillingMode="PAY_PER_REQUEST")
        self.clock(advance_ms=1000)
        h = self.history(t, "?seconds=1")
        self.assertEqual(h["events"][0]["kind"], "update_table")
        self.assertEqual(h["events"][0]["billing_mode"], "PAY_PER_REQUEST")
        self.assertNotIn("write_capacity_units", h["events"][0])
        self.assertEqual(h["table_seconds"][0]["write_capacity"], 40)
        self.assertEqual(h["limits"]["billing_mode"], "PAY_PER_REQUEST")

    def test_heat_split(self):
        # Two keys keep one partition at its ceiling (16 writes a second
        # against 10, with DynamoDB's 2.5 s of burst): after the tag's 2 s
        # of refusals it splits between them (docs/throttling.md, "Split
        # for heat"); the event names the partition and the cause.
        self.whole_second()
        t = self.table("hist_heat", wcu=5, tags={
            "split-for-heat-seconds": "2",
            "partition-burst-seconds": "2.5"})     # 1 partition
        for _ in range(8):
            self.puts(t, ["h1", "h2"] * 8)
            self.clock(advance_ms=1000)
        h = self.history(t, "?seconds=60")
        splits = [e for e in h["events"] if e["kind"] == "split"]
        self.assertEqual(len(splits), 1, h["events"])
        self.assertEqual((splits[0]["partition"], splits[0]["cause"],
                          splits[0]["partitions"]), (0, "heat", 2))
        self.assertNotEqual(self.partition_of(t, "h1"),
                            self.partition_of(t, "h2"))

    def test_size_split(self):
        # --split-size 64KB: a partition holding more splits in two.
        self.whole_second()
        t = self.table("hist_size", on_demand=True, tags={
            "partition-wcu": "1000000", "ondemand-initial-wru": "1000000"})
        keys = ["s%03d" % i for i in range(40)]
        self.assertEqual(self.puts(t, keys, size=8000), (40, 0))
        self.clock(advance_ms=1000)
        h = self.history(t)
        splits = [e for e in h["events"] if e["kind"] == "split"]
        self.assertTrue(splits, h["events"])
        self.assertEqual({e["cause"] for e in splits}, {"size"})
        self.assertEqual(splits[-1]["partitions"], h["partition_count"])
        self.assertGreater(h["partition_count"], 4)
        self.assertEqual(h["limits"]["billing_mode"], "PAY_PER_REQUEST")
        self.assertEqual(h["table_seconds"][-1]["consumed_wcu"], 40 * 8)

    # -- GSIs, errors -------------------------------------------------------

    def test_gsi(self):
        # A GSI's own partitions and state: ?index= and the path form
        # answer the same.
        self.whole_second()
        t = self.table("hist_gsi", gsi=True)
        self.puts(t, ["a", "b", "c"], extra={"g": {"S": "G"}})
        self.clock(advance_ms=1000)
        a = self.history(t, "?index=by_g&seconds=5")
        b = self.admin("/shardlocal/tables/%s/indexes/by_g/history?seconds=5"
                       % t)
        self.assertEqual(a, b)
        self.assertEqual(a["index"], "by_g")
        self.assertEqual(a["table_seconds"][-1]["consumed_wcu"], 3)
        self.assertEqual(a["limits"]["write_provisioned"], 5)
        base = self.history(t, "?seconds=5")
        self.assertIsNone(base["index"])
        self.assertEqual(base["table_seconds"][-1]["consumed_wcu"], 3)
        e = self.history(t, "?index=nope", expect=404)
        self.assertEqual(e["message"], "Requested resource not found: "
                         "Index: nope not found for table: %s" % t)

    def test_errors(self):
        t = self.table("hist_err")
        for q in ("?seconds=0", "?seconds=901", "?seconds=x",
                  "?seconds=1.5", "?seconds=", "?partition=-1",
                  "?partition=2"):
            e = self.history(t, q, expect=400)
            self.assertTrue(e["__type"].endswith("#ValidationException"), e)
        self.assertEqual(self.history(t, "?seconds=901", expect=400)
                         ["message"],
                         "seconds must be a whole number from 1 to 900")
        self.assertEqual(self.history(t, "?partition=7", expect=400)
                         ["message"], "partition 7 does not exist: the "
                         "table has 2 partitions (0 to 1)")
        e = self.history("hist_none", expect=404)
        self.assertEqual(e["message"], "Requested resource not found: "
                         "Table: hist_none not found")
        self.history(t + "/more", expect=404)
        # listed in the index of endpoints
        paths = [x["path"] for x in self.admin("/shardlocal")["endpoints"]]
        self.assertIn("/shardlocal/tables/{table}/history", paths)


if __name__ == "__main__":
    unittest.main()
