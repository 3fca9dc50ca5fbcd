# SPDX-License-Identifier: MIT
# test_throttling.py - throttled writes as clients see them (throttling.md
# sections 4-5): a provisioned table past its burst, an on-demand hot key
# past the 1,000 WCU/s partition ceiling (and the 2,500 units it absorbs
# at once). Exact types and messages, HTTP 400, nothing written. 100 KB
# items keep the request count small.
import unittest

from botocore.exceptions import ClientError

from e2e_common import E2ECase, ON_DYNALITE

BIG = "x" * (100 * 1024)          # about 100 write units per put

PTEE = "ProvisionedThroughputExceededException"
PTEE_MSG = ("The level of configured provisioned throughput for the table "
            "was exceeded. Consider increasing your provisioning level with "
            "the UpdateTable API.")
THROTTLING = "ThrottlingException"
THROTTLING_MSG = (
    "Throughput exceeds the current capacity of your table or index. "
    "DynamoDB is automatically scaling your table or index so please try "
    "again shortly. If exceptions persist, check if you have a hot key: "
    "https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/"
    "bp-partition-key-design.html")


@unittest.skipIf(ON_DYNALITE, "dynalite does not throttle")
class ThrottlingTest(E2ECase):

    def flood(self, table, key_of, limit, size=len(BIG)):
        """Put BIG items (or items of size bytes) until one is throttled;
        return (error, key, n)."""
        data = "x" * size
        for i in range(limit):
            key = key_of(i)
            try:
                self.c.put_item(TableName=table, Item={
                    "pk": {"S": key}, "n": {"N": str(i)}, "d": {"S": data}})
            except ClientError as e:
                return e, key, i
        self.fail("%d puts of 100 KB were never throttled" % limit)

    def test_provisioned_table_past_burst(self):
        # 1 WCU/s banks at most 300 s of burst: 20 x 100 WCU must throttle.
        t = self.make_table(on_demand=False, rcu=1000, wcu=1)
        arn = self.c.describe_table(TableName=t)["Table"]["TableArn"]
        e, key, n = self.flood(t, lambda i: "k%d" % i, 20)
        resp = e.response
        self.assertEqual(resp["Error"]["Code"], PTEE, resp["Error"])
        self.assertEqual(resp["Error"]["Message"], PTEE_MSG)
        self.assertEqual(resp["ResponseMetadata"]["HTTPStatusCode"], 400)
        self.assertGreaterEqual(n, 1, "the very first put was throttled")
        if "ThrottlingReasons" in resp:          # botocore 1.43 models it
            reasons = resp["ThrottlingReasons"]
            self.assertTrue(reasons)
            self.assertIn(reasons[0]["reason"],
                          ("TableWriteProvisionedThroughputExceeded",
                           "TableWriteKeyRangeThroughputExceeded"))
            self.assertEqual(reasons[0]["resource"], arn)
        # Nothing was written by the throttled request.
        r = self.c.get_item(TableName=t, Key={"pk": {"S": key}},
                            ProjectionExpression="pk")
        self.assertNotIn("Item", r)
        # Reads have their own bucket: still served.
        r = self.c.get_item(TableName=t, Key={"pk": {"S": "k0"}},
                            ProjectionExpression="n")
        self.assertEqual(r["Item"], {"n": {"N": "0"}})

    def test_on_demand_hot_key(self):
        # One partition key value is capped at 1,000 WCU/s after a burst
        # of 2,500: 40 x 390 WCU as fast as one client can send them (in
        # far less than the 13 s that would take) must throttle.
        t = self.make_table()
        e, _, n = self.flood(t, lambda i: "hot", 40, size=390 * 1024)
        resp = e.response
        self.assertEqual(resp["Error"]["Code"], THROTTLING, resp["Error"])
        self.assertEqual(resp["Error"]["Message"], THROTTLING_MSG)
        self.assertEqual(resp["ResponseMetadata"]["HTTPStatusCode"], 400)
        self.assertGreaterEqual(n, 1)
        if "throttlingReasons" in resp:          # lower-case t (section 5)
            self.assertEqual(resp["throttlingReasons"][0]["reason"],
                             "TableWriteKeyRangeThroughputExceeded")



# --- acceptance: a private server on a virtual clock -----------------------

import hashlib
import http.client
import json
import os
import signal
import subprocess
import threading
import time
import urllib.request

import boto3
from botocore.config import Config

from e2e_common import OwnServerCase, start_private_server

ACCOUNT_ARN = "arn:aws:dynamodb:us-east-1:000000000000:table/"
KEY_RANGE_W = "TableWriteKeyRangeThroughputExceeded"
AUTH = ("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20250101/us-east-1/"
        "dynamodb/aws4_request, SignedHeaders=host, Signature=x")


def item_of(key, size, **extra):
    """An item of exactly `size` bytes (throttling.md 2): pk + d."""
    filler = size - len("pk") - len(key) - len("d")
    for k, v in extra.items():
        filler -= len(k) + len(v)
    assert filler >= 0
    it = {"pk": {"S": key}, "d": {"S": "x" * filler}}
    for k, v in extra.items():
        it[k] = {"S": v}
    return it


class Raw:
    """DynamoDB's JSON protocol over one keep-alive connection: about 20x
    faster than boto3 per call, so 1,500 calls take a fraction of a second.
    The server does not check signatures."""

    def __init__(self, url):
        host, port = url.replace("http://", "").split(":")
        self.url = url
        self.conn = http.client.HTTPConnection(host, int(port), timeout=30)

    def call(self, op, body):
        self.conn.request("POST", "/", json.dumps(body), {
            "Content-Type": "application/x-amz-json-1.0",
            "X-Amz-Target": "DynamoDB_20120810." + op,
            "Authorization": AUTH})
        r = self.conn.getresponse()
        return r.status, json.loads(r.read() or b"{}")

    def admin(self, path, body=None):
        req = urllib.request.Request(
            self.url + path, method="POST" if body is not None else "GET",
            data=json.dumps(body).encode() if body is not None else None,
            headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                return r.status, json.loads(r.read())
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read())

    def advance(self, ms):
        st, body = self.admin("/shardlocal/clock", {"advance_ms": ms})
        assert st == 200, body
        return body["now_ms"]

    def puts(self, table, items):
        """PutItem each item; returns (served, [error bodies])."""
        ok, errs = 0, []
        for it in items:
            st, body = self.call("PutItem", {"TableName": table, "Item": it})
            if st == 200:
                ok += 1
            else:
                errs.append(body)
        return ok, errs


def partition_of(key, nparts):
    """The partition of an S partition key on an even layout (partmap.c):
    largest i with floor(i * 2^64 / n) <= top 64 bits of DynamoDB's key
    hash, MD5 of "Outliers" and the key (storage/item_codec.c)."""
    h = int.from_bytes(hashlib.md5(b"Outliers" + key.encode()).digest()[:8],
                       "big")
    i = h * nparts >> 64
    while i + 1 < nparts and (i + 1) * (1 << 64) // nparts <= h:
        i += 1
    while i > 0 and i * (1 << 64) // nparts > h:
        i -= 1
    return i


class VirtualClockCase(OwnServerCase):
    """Each test starts its own server with --virtual-clock, so time moves
    only when the test says so and the counts are exact."""
    FLAGS = ("--in-memory", "--virtual-clock")
    PREFIX = "shardlocal-thr."

    def setUp(self):
        super().setUp()
        self.start(*self.FLAGS)

    def start(self, *flags, data_dir=None):
        self.proc, self.url = start_private_server(data_dir, self.port_file,
                                                   *flags)
        self.raw = Raw(self.url)
        self.c = boto3.client("dynamodb", endpoint_url=self.url,
                              region_name="us-east-1",
                              config=Config(retries={"max_attempts": 1}))

    def log(self):
        with open(os.path.join(self.dir, "server.log")) as f:
            return f.read()

    def create(self, name, rcu=None, wcu=None, tags=None, **extra):
        args = dict(TableName=name,
                    AttributeDefinitions=[{"AttributeName": "pk",
                                           "AttributeType": "S"}],
                    KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}])
        if rcu is None:
            args["BillingMode"] = "PAY_PER_REQUEST"
        else:
            args["ProvisionedThroughput"] = {"ReadCapacityUnits": rcu,
                                             "WriteCapacityUnits": wcu}
        if tags:
            args["Tags"] = [{"Key": "shardlocal:" + k, "Value": v}
                            for k, v in tags.items()]
        args.update(extra)
        self.c.create_table(**args)
        return ACCOUNT_ARN + name

    def assertThrottled(self, body, code, reason, arn, member):
        self.assertEqual(body["__type"].split("#")[1], code, body)
        self.assertEqual(body[member], [{"reason": reason,
                                         "resource": arn}])


class AcceptanceTest(VirtualClockCase):
    """Issue 3, acceptance 1-8 (docs/throttling.md section 5 has the
    numbers)."""

    def test_1_hot_key_provisioned(self):
        arn = self.create("acc1", 300, 900)          # 1 partition
        ok, errs = self.raw.puts("acc1", [item_of("hot", 1024)] * 3000)
        # The bank holds 270,000: the partition's ceiling binds, which
        # takes 2.5 s of its 1,000 WCU/s at once.
        self.assertEqual(ok, 2500)
        self.assertEqual(len(errs), 500)
        for e in errs:
            self.assertEqual(e["message"], PTEE_MSG)
            self.assertThrottled(e, PTEE, KEY_RANGE_W, arn,
                                 "ThrottlingReasons")
        # One second later the key is served again: 1,000 more.
        self.raw.advance(1000)
        ok, _ = self.raw.puts("acc1", [item_of("hot", 1024)] * 1200)
        self.assertEqual(ok, 1000)
        # Logged at info, rate-limited, with table, partition, key, reason.
        lines = [l for l in self.log().splitlines() if "throttled" in l]
        self.assertTrue(lines)
        self.assertLessEqual(len(lines), 2)
        self.assertIn('table=acc1 partition=0 key="hot" '
                      'reason=' + KEY_RANGE_W, lines[0])

    def test_2_write_sharding(self):
        self.create("acc2", 1, 20000)
        nparts = 21                         # ceil(1/3000 + 20000/1000)
        keys = ["hot#%d" % (i % 20) for i in range(1500)]
        ok, errs = self.raw.puts("acc2", [item_of(k, 1024) for k in keys])
        self.assertEqual((ok, errs), (1500, []))
        landed = {}
        for s in range(20):
            landed.setdefault(partition_of("hot#%d" % s, nparts),
                              []).append(s)
        # 20 suffixes over 21 partitions: spread, at most 13 x 75 = 975
        # units on one partition, under its 1,000 ceiling.
        self.assertGreater(len(landed), 5, landed)
        self.assertTrue(all(len(v) * 75 <= 1000 for v in landed.values()))
        # The per-partition view (admin API) shows where each suffix
        # landed: the same partitions, 75 units per suffix.
        st, hk = self.raw.admin("/shardlocal/tables/acc2/hotkeys?n=20")
        if st == 200 and "consumed_write" in hk:
            where = {e["key_text"]: e["partition"]
                     for e in hk["consumed_write"]}
            self.assertEqual(where, {"hot#%d" % s: partition_of(
                "hot#%d" % s, nparts) for s in range(20)})
            st, pv = self.raw.admin("/shardlocal/tables/acc2/partitions")
            self.assertEqual(pv["partition_count"], nparts)
            used = {p["partition"]: p["write"]["consumed_last_second"]
                    for p in pv["partitions"]}
            for part, suffixes in landed.items():
                self.assertEqual(used[part], 75.0 * len(suffixes))
        # Twice the load on one key, a second later, throttles.
        self.raw.advance(1000)
        ok, errs = self.raw.puts("acc2", [item_of("hot", 1024)] * 3000)
        self.assertEqual(ok, 2500)

    def _adaptive(self, name, adaptive):
        # The docs' example: 400 WCU over 4 partitions (100 each). Create
        # with 4 partitions, then lower to 400: partitions are kept.
        arn = self.create(name, 2999, 3000, tags={
            "burst-start-full": "off", "adaptive-capacity": adaptive})
        self.c.update_table(TableName=name, ProvisionedThroughput={
            "ReadCapacityUnits": 1, "WriteCapacityUnits": 400})
        served = 0
        errs = []
        for sec in range(10):
            self.raw.advance(1000)
            ok, e = self.raw.puts(name, [item_of("hot", 1024)] * 150)
            served += ok
            errs += e
        return arn, served, errs

    def test_3_adaptive_capacity(self):
        _, served, errs = self._adaptive("acc3on", "on")
        self.assertEqual((served, errs), (1500, []))
        arn, served, errs = self._adaptive("acc3off", "off")
        # Banks start empty: the hot partition gets its 100/s share only.
        self.assertEqual(served, 1000)
        self.assertEqual(len(errs), 500)
        self.assertThrottled(errs[0], PTEE, KEY_RANGE_W, arn,
                             "ThrottlingReasons")

    def test_4_burst_then_rate(self):
        # 100 WCU: banks fill from zero; idle 300 s banks 30,000 units.
        self.create("acc4", 1, 100, tags={"burst-start-full": "off"})
        self.raw.call("GetItem", {"TableName": "acc4",
                                  "Key": {"pk": {"S": "x"}}})
        self.raw.advance(300 * 1000)
        per_sec = []
        for sec in range(60):           # 100 x 10 KB = 1,000 WCU a second
            ok, _ = self.raw.puts("acc4", [item_of("k%d" % sec, 10240)] * 100)
            per_sec.append(ok)
            self.raw.advance(1000)
        # 1,000/s while the bank lasts (it drains at 900/s), then 100/s:
        # the bank (30,000) plus 59 s of refill (5,900) in total.
        self.assertEqual(per_sec[:33], [100] * 33)
        self.assertEqual(per_sec[-20:], [10] * 20)
        self.assertEqual(sum(per_sec) * 10, 30000 + 59 * 100, per_sec)

    def test_5_three_kb_items(self):
        # 600 writes of 3 KB a second to one key for 10 s: the burst (2,500
        # units), then 333 a second, every second; over the 10 s (nine
        # seconds of refill), (2,500 + 9 x 1,000) / 3.
        self.create("acc5", 300, 900)
        per_sec = []
        for sec in range(10):
            ok, errs = self.raw.puts("acc5", [item_of("k", 3072)] * 600)
            per_sec.append(ok)
            self.raw.advance(1000)
        self.assertEqual(per_sec[0], 600)
        for ok in per_sec[2:]:
            self.assertIn(ok, (333, 334), per_sec)
        self.assertIn(sum(per_sec), (3833, 3834), per_sec)

    def test_6_on_demand(self):
        arn = self.create("acc6")
        ok, errs = self.raw.puts("acc6", [item_of("hot", 1024)] * 3000)
        self.assertEqual(ok, 2500)
        self.assertEqual(len(errs), 500)
        self.assertEqual(errs[0]["message"], THROTTLING_MSG)
        self.assertThrottled(errs[0], THROTTLING, KEY_RANGE_W, arn,
                             "throttlingReasons")
        # A cold table is served up to 2x its previous peak: with an
        # instant capacity of 200 WRU a second it takes 500 at once (2.5 s
        # of it); once that second (500) is a peak 30 minutes old, the
        # rate is 1,000 a second, 2,500 at once.
        self.create("acc6b", tags={"ondemand-initial-wru": "200"})
        ok, errs = self.raw.puts("acc6b", [item_of("k%d" % i, 1024)
                                           for i in range(600)])
        self.assertEqual(ok, 500)
        self.assertEqual(errs[0]["__type"].split("#")[1], THROTTLING)
        self.raw.advance(31 * 60 * 1000)
        ok, errs = self.raw.puts("acc6b", [item_of("j%d" % i, 1024)
                                           for i in range(3000)])
        self.assertEqual(ok, 2500)

    def test_7_update_table_splits(self):
        self.create("acc7", 3000, 1000)     # ceil(1 + 1) = 2 partitions
        keys = ["item%d" % i for i in range(400)]
        ok, _ = self.raw.puts("acc7", [item_of(k, 200) for k in keys])
        self.assertEqual(ok, 400)
        self.raw.advance(1000)
        self.c.update_table(TableName="acc7", ProvisionedThroughput={
            "ReadCapacityUnits": 3000, "WriteCapacityUnits": 4000})
        # 3,000 RCU + 4,000 WCU need 5 partitions: 2 -> 4 -> 8.
        self.assertIn("table acc7: 8 partitions", self.log())
        seen = []
        start = None
        while True:
            body = {"TableName": "acc7", "ConsistentRead": True}
            if start:
                body["ExclusiveStartKey"] = start
            st, r = self.raw.call("Scan", body)
            self.assertEqual(st, 200, r)
            seen += [it["pk"]["S"] for it in r["Items"]]
            start = r.get("LastEvaluatedKey")
            if not start:
                break
            self.raw.advance(1000)
        self.assertEqual(sorted(seen), sorted(keys))
        for k in keys:
            st, r = self.raw.call("GetItem", {"TableName": "acc7",
                                              "Key": {"pk": {"S": k}}})
            self.assertEqual(st, 200, r)
            self.assertEqual(r["Item"]["pk"]["S"], k)
        self.raw.advance(1000)
        ok, errs = self.raw.puts("acc7", [item_of("hot", 1024)] * 3000)
        self.assertEqual(ok, 2500)

    def test_8_boto3_retries(self):
        self.create("acc8")
        st, _ = self.raw.admin("/shardlocal/faults", {
            "table": "acc8", "op": "write", "count": 3})
        self.assertEqual(st, 200)
        retrying = boto3.client("dynamodb", endpoint_url=self.url,
                                region_name="us-east-1")    # legacy, 10
        r = retrying.put_item(TableName="acc8", Item=item_of("k", 100))
        self.assertEqual(r["ResponseMetadata"]["RetryAttempts"], 3)
        self.raw.admin("/shardlocal/faults", {"table": "acc8", "count": 1,
                                              "cause": "KeyRange"})
        once = boto3.client("dynamodb", endpoint_url=self.url,
                            region_name="us-east-1", config=Config(
                                # botocore's Config "max_attempts" counts
                                # retries (1 = one retry); this is one
                                # attempt in all, as max_attempts=1 in
                                # ~/.aws/config means.
                                retries={"total_max_attempts": 1}))
        t0 = time.monotonic()
        with self.assertRaises(ClientError) as cm:
            once.put_item(TableName="acc8", Item=item_of("k", 100))
        self.assertLess(time.monotonic() - t0, 1.0)
        resp = cm.exception.response
        self.assertEqual(resp["Error"]["Code"], THROTTLING)
        self.assertEqual(resp["ResponseMetadata"]["RetryAttempts"], 0)
        # The real engine too: a hot key throttled until a thread moves
        # the virtual clock; boto3's retries then get through.
        self.raw.puts("acc8", [item_of("hot", 1024)] * 2501)
        mover = threading.Timer(0.2, lambda: Raw(self.url).advance(1000))
        mover.start()
        r = retrying.put_item(TableName="acc8", Item=item_of("hot", 1024))
        mover.join()
        self.assertGreater(r["ResponseMetadata"]["RetryAttempts"], 0)


class KnobTest(VirtualClockCase):
    """Flags, tags, fault injection, reads, and the admin endpoints."""

    def test_clock_endpoint(self):
        st, a = self.raw.admin("/shardlocal/clock")
        self.assertEqual(st, 200)
        self.assertTrue(a["virtual"])
        self.assertEqual(self.raw.advance(1500), a["now_ms"] + 1500)
        st, b = self.raw.admin("/shardlocal/clock",
                               {"set_ms": a["now_ms"] + 10000})
        self.assertEqual(b["now_ms"], a["now_ms"] + 10000)
        st, e = self.raw.admin("/shardlocal/clock", {"set_ms": 5})
        self.assertEqual(st, 400)
        self.assertIn("ValidationException", e["__type"])
        st, e = self.raw.admin("/shardlocal/clock", {"advance_ms": -1})
        self.assertEqual(st, 400)

    def test_throttled_write_changes_nothing(self):
        self.create("nochange", 1, 1, tags={"burst-start-full": "off"})
        self.raw.advance(1000)
        st, _ = self.raw.call("PutItem", {"TableName": "nochange",
                                          "Item": item_of("a", 1000)})
        self.assertEqual(st, 200)
        st, body = self.raw.call("PutItem", {"TableName": "nochange",
                                             "Item": item_of("b", 1000)})
        self.assertEqual(st, 400)
        self.assertIn("ProvisionedThroughputExceeded", body["__type"])
        st, body = self.raw.call("UpdateItem", {
            "TableName": "nochange", "Key": {"pk": {"S": "a"}},
            "UpdateExpression": "SET z = :z",
            "ExpressionAttributeValues": {":z": {"S": "1"}}})
        self.assertEqual(st, 400)
        st, body = self.raw.call("DeleteItem", {
            "TableName": "nochange", "Key": {"pk": {"S": "a"}}})
        self.assertEqual(st, 400)
        st, r = self.raw.call("GetItem", {"TableName": "nochange",
                                          "Key": {"pk": {"S": "a"}}})
        self.assertEqual(st, 200)
        self.assertNotIn("z", r["Item"])
        st, r = self.raw.call("GetItem", {"TableName": "nochange",
                                          "Key": {"pk": {"S": "b"}}})
        self.assertNotIn("Item", r)

    def test_partition_wcu_tag(self):
        self.create("tagged", tags={"partition-wcu": "10"})
        ok, errs = self.raw.puts("tagged", [item_of("k", 500)] * 30)
        self.assertEqual(ok, 25)
        self.create("tagged1", tags={"partition-wcu": "10",
                                     "partition-burst-seconds": "1"})
        ok, errs = self.raw.puts("tagged1", [item_of("k", 500)] * 30)
        self.assertEqual(ok, 10)
        self.create("untagged")
        ok, errs = self.raw.puts("untagged", [item_of("k", 500)] * 30)
        self.assertEqual(ok, 30)

    def test_reads_query_scan(self):
        self.create("reads", 3, 1, tags={"burst-start-full": "off"})
        self.raw.advance(1000)
        # Read share 3/s: 3 strongly consistent reads, then 6 eventually
        # consistent ones (0.5 each) in the next second.
        got = [self.raw.call("GetItem", {"TableName": "reads",
                                         "ConsistentRead": True,
                                         "Key": {"pk": {"S": "a"}}})[0]
               for _ in range(5)]
        self.assertEqual(got, [200, 200, 200, 400, 400])
        self.raw.advance(1000)
        got = [self.raw.call("GetItem", {"TableName": "reads",
                                         "Key": {"pk": {"S": "a"}}})[0]
               for _ in range(8)]
        self.assertEqual(got.count(200), 6)
        self.raw.advance(1000)
        q = {"TableName": "reads", "ConsistentRead": True,
             "KeyConditionExpression": "pk = :p",
             "ExpressionAttributeValues": {":p": {"S": "a"}}}
        got = [self.raw.call("Query", q)[0] for _ in range(5)]
        self.assertEqual(got, [200, 200, 200, 400, 400])
        self.raw.advance(1000)
        st, body = self.raw.call("Scan", {"TableName": "reads",
                                          "ConsistentRead": True})
        self.assertEqual(st, 200)
        for _ in range(3):
            st, body = self.raw.call("Scan", {"TableName": "reads",
                                              "ConsistentRead": True})
        self.assertEqual(st, 400)
        self.assertEqual(body["ThrottlingReasons"][0]["reason"],
                         "TableReadProvisionedThroughputExceeded")

    def test_gsi_back_pressure_and_reads(self):
        arn = self.create(
            "gsit", 1000, 1000, tags={"burst-start-full": "off"},
            AttributeDefinitions=[{"AttributeName": "pk",
                                   "AttributeType": "S"},
                                  {"AttributeName": "g",
                                   "AttributeType": "S"}],
            GlobalSecondaryIndexes=[{
                "IndexName": "byg",
                "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                "Projection": {"ProjectionType": "ALL"},
                "ProvisionedThroughput": {"ReadCapacityUnits": 1,
                                          "WriteCapacityUnits": 1}}])
        iarn = arn + "/index/byg"
        self.raw.advance(1000)
        # The GSI has banked 1 write unit: one indexed write, then
        # back-pressure with the GSI's reason and message.
        st, _ = self.raw.call("PutItem", {"TableName": "gsit", "Item": {
            "pk": {"S": "a"}, "g": {"S": "x"}}})
        self.assertEqual(st, 200)
        st, body = self.raw.call("PutItem", {"TableName": "gsit", "Item": {
            "pk": {"S": "b"}, "g": {"S": "x"}}})
        self.assertEqual(st, 400)
        self.assertEqual(body["message"], (
            "The level of configured provisioned throughput for one or "
            "more global secondary indexes of the table was exceeded. "
            "Consider increasing your provisioning level for the "
            "under-provisioned global secondary indexes with the "
            "UpdateTable API"))
        self.assertThrottled(body, PTEE,
                             "IndexWriteProvisionedThroughputExceeded",
                             iarn, "ThrottlingReasons")
        st, r = self.raw.call("GetItem", {"TableName": "gsit",
                                          "Key": {"pk": {"S": "b"}}})
        self.assertNotIn("Item", r)         # nothing written
        # Items outside the (sparse) index do not touch it.
        ok, _ = self.raw.puts("gsit", [{"pk": {"S": "c%d" % i}}
                                       for i in range(20)])
        self.assertEqual(ok, 20)
        # GSI reads use the GSI's read bucket (1 RCU banked: two
        # eventually consistent pages), never the table's.
        q = {"TableName": "gsit", "IndexName": "byg",
             "KeyConditionExpression": "g = :g",
             "ExpressionAttributeValues": {":g": {"S": "x"}}}
        got = [self.raw.call("Query", q) for _ in range(3)]
        self.assertEqual([g[0] for g in got], [200, 200, 400])
        self.assertEqual(got[2][1]["ThrottlingReasons"][0]["reason"],
                         "IndexReadProvisionedThroughputExceeded")
        st, _ = self.raw.call("Query", {
            "TableName": "gsit", "KeyConditionExpression": "pk = :p",
            "ExpressionAttributeValues": {":p": {"S": "a"}}})
        self.assertEqual(st, 200)

    def test_scan_charges_each_partition_read(self):
        self.create("scanp")                # on-demand: 4 partitions
        keys = ["s%03d" % i for i in range(200)]
        self.raw.puts("scanp", [item_of(k, 4096) for k in keys])
        self.raw.advance(1000)
        st, r = self.raw.call("Scan", {"TableName": "scanp",
                                       "ConsistentRead": True,
                                       "ReturnConsumedCapacity": "TOTAL"})
        self.assertEqual((st, r["Count"]), (200, 200))
        st, pv = self.raw.admin("/shardlocal/tables/scanp/partitions")
        if st != 200:
            self.skipTest("no admin partition view")
        per = {p["partition"]: p["read"]["consumed_last_second"]
               for p in pv["partitions"]}
        want = {}
        for k in keys:
            part = partition_of(k, 4)
            want[part] = want.get(part, 0) + 1.0     # 4 KB = 1 RCU each
        self.assertEqual(per, want)
        self.assertEqual(r["ConsumedCapacity"]["CapacityUnits"], 200.0)

    def read_units(self, table):
        """What the partitions of table were charged for reads, in all."""
        st, pv = self.raw.admin("/shardlocal/tables/%s/partitions" % table)
        self.assertEqual(st, 200, pv)
        return sum(p["read"]["consumed_total"] for p in pv["partitions"])

    def test_scan_rounded_over_page(self):
        # A Scan page's items are summed, then rounded once: ten small
        # items on four partitions cost 1.0 (0.5 eventually consistent),
        # not one unit per partition read; the buckets pay what
        # ConsumedCapacity reports (developer guide, "Read consumption":
        # Scan and Query round the page's total size up to 4 KB).
        self.create("scan1")                # on-demand: 4 partitions
        for i in range(10):
            self.raw.call("PutItem", {"TableName": "scan1",
                                      "Item": item_of("s%d" % i, 100)})
        parts = {partition_of("s%d" % i, 4) for i in range(10)}
        self.assertGreater(len(parts), 1)   # the page reads several
        st, r = self.raw.call("Scan", {"TableName": "scan1",
                                       "ConsistentRead": True,
                                       "ReturnConsumedCapacity": "TOTAL"})
        self.assertEqual((st, r["Count"]), (200, 10))
        self.assertEqual(r["ConsumedCapacity"],
                         {"TableName": "scan1", "CapacityUnits": 1.0})
        self.assertEqual(self.read_units("scan1"), 1.0)
        st, r = self.raw.call("Scan", {"TableName": "scan1",
                                       "ReturnConsumedCapacity": "INDEXES"})
        self.assertEqual(r["ConsumedCapacity"]["CapacityUnits"], 0.5)
        self.assertEqual(r["ConsumedCapacity"]["Table"],
                         {"CapacityUnits": 0.5})
        self.assertEqual(self.read_units("scan1"), 1.5)
        # Query: 10 items of 4,178 bytes (40.8 KB) are 44 KB, 11 units
        # (the developer guide's example; rounded per item they would be
        # 20), charged to the key's partition.
        self.c.create_table(
            TableName="query1", BillingMode="PAY_PER_REQUEST",
            AttributeDefinitions=[{"AttributeName": "pk",
                                   "AttributeType": "S"},
                                  {"AttributeName": "sk",
                                   "AttributeType": "S"}],
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                       {"AttributeName": "sk", "KeyType": "RANGE"}])
        for i in range(10):
            it = item_of("p", 4178, sk="%02d" % i)
            self.raw.call("PutItem", {"TableName": "query1", "Item": it})
        st, r = self.raw.call("Query", {
            "TableName": "query1", "ConsistentRead": True,
            "KeyConditionExpression": "pk = :p",
            "ExpressionAttributeValues": {":p": {"S": "p"}},
            "ReturnConsumedCapacity": "TOTAL"})
        self.assertEqual((st, r["Count"]), (200, 10), r)
        self.assertEqual(r["ConsumedCapacity"]["CapacityUnits"], 11.0)
        self.assertEqual(self.read_units("query1"), 11.0)

    def test_fault_fraction_and_key(self):
        self.create("faulty")
        st, r = self.raw.admin("/shardlocal/faults", {
            "table": "faulty", "fraction": 0.25, "op": "write"})
        self.assertEqual(st, 200, r)
        ok, errs = self.raw.puts("faulty", [item_of("k%d" % i, 100)
                                            for i in range(100)])
        self.assertEqual(ok, 75)
        self.assertEqual(errs[0]["throttlingReasons"][0]["reason"],
                         KEY_RANGE_W)
        # Reads are not matched by a write rule.
        st, _ = self.raw.call("GetItem", {"TableName": "faulty",
                                          "Key": {"pk": {"S": "k1"}}})
        self.assertEqual(st, 200)
        self.raw.admin("/shardlocal/faults", {"clear": True})
        st, r = self.raw.admin("/shardlocal/faults", {
            "table": "faulty", "key": {"S": "bad"}, "count": 2,
            "cause": "MaxOnDemand"})
        self.assertEqual(r["rules"][0]["count"], 2)
        st, b = self.raw.call("PutItem", {"TableName": "faulty",
                                          "Item": item_of("bad", 100)})
        self.assertEqual(st, 400)
        self.assertEqual(b["throttlingReasons"][0]["reason"],
                         "TableWriteMaxOnDemandThroughputExceeded")
        ok, _ = self.raw.puts("faulty", [item_of("good", 100)] * 5)
        self.assertEqual(ok, 5)
        ok, _ = self.raw.puts("faulty", [item_of("bad", 100)] * 5)
        self.assertEqual(ok, 4)             # the second and last fault
        st, r = self.raw.admin("/shardlocal/faults")
        self.assertEqual(r["rules"], [])
        st, e = self.raw.admin("/shardlocal/faults", {"table": "faulty"})
        self.assertEqual(st, 400)

    def test_batch_write_unprocessed(self):
        self.create("batchy")
        # One throttled key goes to UnprocessedItems, the rest is written.
        st, r = self.raw.admin("/shardlocal/faults", {
            "table": "batchy", "key": {"S": "b3"}, "count": 1})
        items = [{"PutRequest": {"Item": item_of("b%d" % i, 100)}}
                 for i in range(5)]
        st, r = self.raw.call("BatchWriteItem",
                              {"RequestItems": {"batchy": items}})
        self.assertEqual(st, 200, r)
        self.assertEqual(r["UnprocessedItems"]["batchy"],
                         [items[3]])
        # Nothing at all processed: the call fails.
        st, r = self.raw.admin("/shardlocal/faults", {
            "table": "batchy", "count": 2})
        st, r = self.raw.call("BatchWriteItem",
                              {"RequestItems": {"batchy": items[:2]}})
        self.assertEqual(st, 400, r)
        self.assertEqual(r["__type"].split("#")[1], THROTTLING)


class ThrottleOffTest(VirtualClockCase):
    FLAGS = ("--in-memory", "--virtual-clock", "--throttle", "off")

    def test_everything_served(self):
        self.create("off1", 300, 900)
        ok, errs = self.raw.puts("off1", [item_of("hot", 1024)] * 1500)
        self.assertEqual((ok, errs), (1500, []))


class ScaleTest(VirtualClockCase):
    FLAGS = ("--in-memory", "--virtual-clock", "--throttle-scale", "0.01")

    def test_ten_wcu_partition(self):
        # 25 at once (2.5 s of 10 WCU/s), then 10 a second.
        self.create("scaled", 1, 9)
        per_sec = []
        for _ in range(4):
            ok, _ = self.raw.puts("scaled", [item_of("k", 1000)] * 20)
            per_sec.append(ok)
            self.raw.advance(1000)
        self.assertEqual(per_sec, [20, 15, 10, 10])


class SplitSizeTest(VirtualClockCase):
    FLAGS = ("--in-memory", "--virtual-clock", "--split-size", "64KB")

    def test_size_split(self):
        self.create("big")
        keys = ["k%03d" % i for i in range(300)]
        ok, _ = self.raw.puts("big", [item_of(k, 1000) for k in keys])
        self.assertEqual(ok, 300)
        self.assertIn("table big: partition", self.log())
        seen, start = [], None
        while True:
            body = {"TableName": "big"}
            if start:
                body["ExclusiveStartKey"] = start
            st, r = self.raw.call("Scan", body)
            seen += [it["pk"]["S"] for it in r["Items"]]
            start = r.get("LastEvaluatedKey")
            if not start:
                break
        self.assertEqual(sorted(seen), keys)


class SplitCrashTest(OwnServerCase):
    """SIGKILL while UpdateTable splits every partition: after a restart
    every item is there exactly once (storage makes splits crash-safe)."""
    N = 3000
    PREFIX = "shardlocal-split."
    DATA_DIR = True

    def start(self):
        self.proc, url = start_private_server(self.data, self.port_file,
                                              "--throttle", "off")
        return Raw(url)

    def scan_keys(self, raw, table):
        seen, start = [], None
        while True:
            body = {"TableName": table, "ConsistentRead": True}
            if start:
                body["ExclusiveStartKey"] = start
            st, r = raw.call("Scan", body)
            self.assertEqual(st, 200, r)
            seen += [it["pk"]["S"] for it in r["Items"]]
            start = r.get("LastEvaluatedKey")
            if not start:
                return seen

    def test_kill_during_split(self):
        raw = self.start()
        keys = ["item%05d" % i for i in range(self.N)]
        tables = []
        for n, delay in enumerate((0.01, 0.05, 0.15, 0.3)):
            name = "crash%d" % n
            raw.call("CreateTable", {
                "TableName": name,
                "AttributeDefinitions": [{"AttributeName": "pk",
                                          "AttributeType": "S"}],
                "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
                "ProvisionedThroughput": {"ReadCapacityUnits": 1,
                                          "WriteCapacityUnits": 1000}})
            ok, _ = raw.puts(name, [item_of(k, 300) for k in keys])
            self.assertEqual(ok, self.N)
            tables.append((name, delay))
        for name, delay in tables:
            # UpdateTable to 16,000 WCU: 2 -> 4 -> 8 -> 16 -> 32 partitions.
            t = threading.Thread(target=lambda: self._update(name))
            t.start()
            time.sleep(delay)
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()
            t.join()
            raw = self.start()
            seen = self.scan_keys(raw, name)
            self.assertEqual(len(seen), self.N, name)
            self.assertEqual(sorted(seen), keys, name)
            for k in keys[::97]:
                st, r = raw.call("GetItem", {"TableName": name,
                                             "Key": {"pk": {"S": k}}})
                self.assertEqual(r["Item"]["pk"]["S"], k)
            # And it can still split to the end afterwards.
            st, r = raw.call("UpdateTable", {
                "TableName": name, "ProvisionedThroughput": {
                    "ReadCapacityUnits": 1, "WriteCapacityUnits": 16001}})
            self.assertEqual(st, 200, r)
            self.assertEqual(sorted(self.scan_keys(raw, name)), keys)

    def _update(self, name):
        try:
            Raw(self.url_of()).call("UpdateTable", {
                "TableName": name, "ProvisionedThroughput": {
                    "ReadCapacityUnits": 1, "WriteCapacityUnits": 16000}})
        except (OSError, http.client.HTTPException, ValueError):
            pass                        # killed mid-call

    def url_of(self):
        with open(self.port_file) as f:
            return "http://127.0.0.1:%d" % int(f.read().strip())


if __name__ == "__main__":
    unittest.main()
