# SPDX-License-Identifier: MIT
# test_streams_clock.py - DynamoDB Streams and Time to Live on servers this
# module owns: on the virtual clock (--virtual-clock; every clock move runs
# the sweep), TTL expiry with GSIs and stream records, the 24-hour trim
# (TrimmedDataAccessException), iterators' 15 minutes, the TTL cooldown and
# DescribeStream's rate; and a kill -9 between writes and reads of the
# stream: no acknowledged write without its record, no record without its
# write, a transaction's records all or none.
import json
import signal
import threading
import time
import urllib.request

from botocore.exceptions import BotoCoreError, ClientError

from e2e_common import (OwnServerCase, make_private_client,
                        start_private_server, streams_client)
from test_streams import all_shards, read_shard, read_stream

HOUR = 3600 * 1000
SERVICE = {"Type": "Service", "PrincipalId": "dynamodb.amazonaws.com"}


class ClockCase(OwnServerCase):
    """A private in-memory server on the virtual clock; the background
    sweep is slowed to an hour so only clock moves run it."""
    PREFIX = "shardlocal-streams."
    FLAGS = ("--in-memory", "--virtual-clock", "--ttl-sweep-seconds",
             "3600", "--stream-describe-rate", "0")

    def setUp(self):
        super().setUp()
        self.proc, self.url = start_private_server(None, self.port_file,
                                                   *self.FLAGS)
        self.c = make_private_client(self.url)
        self.s = streams_client(self.url)

    def clock(self, advance_ms=None):
        """Advance the virtual clock (None: just read it); returns the
        reply: now_ms and, after a move, ttl_deleted."""
        if advance_ms is None:
            with urllib.request.urlopen(self.url + "/shardlocal/clock") as r:
                return json.loads(r.read())
        req = urllib.request.Request(
            self.url + "/shardlocal/clock", method="POST",
            data=json.dumps({"advance_ms": advance_ms}).encode(),
            headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=30) as r:
            return json.loads(r.read())

    def table(self, name, view="NEW_AND_OLD_IMAGES", **kw):
        args = dict(TableName=name, BillingMode="PAY_PER_REQUEST",
                    AttributeDefinitions=[{"AttributeName": "pk",
                                           "AttributeType": "S"}],
                    KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}])
        if view:
            args["StreamSpecification"] = {"StreamEnabled": True,
                                           "StreamViewType": view}
        for k, v in kw.items():
            if k == "AttributeDefinitions":
                args[k] = args[k] + v
            else:
                args[k] = v
        r = self.c.create_table(**args)
        return r["TableDescription"].get("LatestStreamArn")

    def consumed_writes(self, table):
        with urllib.request.urlopen(self.url + "/metrics") as r:
            text = r.read().decode()
        total = 0.0
        for line in text.splitlines():
            if line.startswith('ConsumedWriteCapacityUnits{table="%s",'
                               'index=""' % table):
                total += float(line.rsplit(" ", 1)[1])
        return total


class TimeToLiveSweepTest(ClockCase):
    """The sweep deletes expired items (developer guide, "Time to Live":
    a Number of epoch seconds in the past, at most five years; expired
    items stay readable until deleted; no write capacity; indexes kept in
    step; a REMOVE record whose userIdentity is the service)."""

    def test_expiry_on_the_virtual_clock(self):
        arn = self.table("ttl", AttributeDefinitions=[
            {"AttributeName": "g", "AttributeType": "S"}],
            GlobalSecondaryIndexes=[{
                "IndexName": "byg", "KeySchema": [
                    {"AttributeName": "g", "KeyType": "HASH"}],
                "Projection": {"ProjectionType": "ALL"}}])
        self.c.update_time_to_live(TableName="ttl", TimeToLiveSpecification={
            "Enabled": True, "AttributeName": "exp"})
        now = self.clock()["now_ms"] // 1000
        items = {
            "expired": {"N": str(now - 10)},
            "fraction": {"N": "%d.5" % (now - 1)},
            "soon": {"N": str(now + 100)},
            "string": {"S": str(now - 10)},
            "ancient": {"N": str(now - 6 * 365 * 86400)},
            "millis": {"N": str((now - 10) * 1000)},
            "none": None,
        }
        for pk, exp in items.items():
            item = {"pk": {"S": pk}, "g": {"S": "x"}}
            if exp is not None:
                item["exp"] = exp
            self.c.put_item(TableName="ttl", Item=item)
        before = self.consumed_writes("ttl")
        # expired, but not deleted yet: still read (no sweep has run)
        self.assertIn("Item", self.c.get_item(TableName="ttl", Key={
            "pk": {"S": "expired"}}))
        self.assertEqual(self.clock(0)["ttl_deleted"], 2)
        left = {i["pk"]["S"] for i in self.c.scan(TableName="ttl")["Items"]}
        self.assertEqual(left, {"soon", "string", "ancient", "millis",
                                "none"})
        on_gsi = {i["pk"]["S"] for i in self.c.query(
            TableName="ttl", IndexName="byg",
            KeyConditionExpression="g = :g",
            ExpressionAttributeValues={":g": {"S": "x"}})["Items"]}
        self.assertEqual(on_gsi, left)
        self.assertEqual(self.consumed_writes("ttl"), before)
        removes = [r for r in read_stream(self.s, arn)
                   if r["eventName"] == "REMOVE"]
        self.assertEqual(sorted(r["dynamodb"]["Keys"]["pk"]["S"]
                                for r in removes), ["expired", "fraction"])
        for r in removes:
            self.assertEqual(r["userIdentity"], SERVICE)
            self.assertIn("exp", r["dynamodb"]["OldImage"])
        # an update that moves the time on is judged on its new value
        self.c.update_item(TableName="ttl", Key={"pk": {"S": "soon"}},
                           UpdateExpression="SET exp = :e",
                           ExpressionAttributeValues={
                               ":e": {"N": str(now + 1000)}})
        self.assertEqual(self.clock(200 * 1000)["ttl_deleted"], 0)
        self.assertEqual(self.clock(1000 * 1000)["ttl_deleted"], 1)
        # user deletes carry no userIdentity
        self.c.delete_item(TableName="ttl", Key={"pk": {"S": "none"}})
        last = [r for r in read_stream(self.s, arn)
                if r["dynamodb"]["Keys"]["pk"]["S"] == "none"][-1]
        self.assertEqual(last["eventName"], "REMOVE")
        self.assertNotIn("userIdentity", last)

    def test_disable_and_cooldown(self):
        # DDB-TABLE-442: a second change within ~30 minutes is refused
        self.table("ttl2", view=None)
        up = self.c.update_time_to_live
        up(TableName="ttl2", TimeToLiveSpecification={
            "Enabled": True, "AttributeName": "exp"})
        with self.assertRaises(ClientError) as cm:
            up(TableName="ttl2", TimeToLiveSpecification={
                "Enabled": False, "AttributeName": "exp"})
        self.assertEqual(cm.exception.response["Error"]["Message"],
                         "Time to live has been modified multiple times "
                         "within a fixed interval")
        self.clock(31 * 60 * 1000)
        up(TableName="ttl2", TimeToLiveSpecification={
            "Enabled": False, "AttributeName": "exp"})
        d = self.c.describe_time_to_live(TableName="ttl2")[
            "TimeToLiveDescription"]
        self.assertEqual(d, {"TimeToLiveStatus": "DISABLED"})
        with self.assertRaises(ClientError) as cm:
            up(TableName="ttl2", TimeToLiveSpecification={
                "Enabled": False, "AttributeName": "exp"})
        self.assertEqual(cm.exception.response["Error"]["Message"],
                         "TimeToLive is already disabled")
        # off: nothing expires
        now = self.clock()["now_ms"] // 1000
        self.c.put_item(TableName="ttl2", Item={
            "pk": {"S": "k"}, "exp": {"N": str(now - 5)}})
        self.assertEqual(self.clock(1000)["ttl_deleted"], 0)

    def test_key_attributes_and_number_spellings(self):
        # Alternator (scylladb test/alternator/test_ttl.py, run against
        # DynamoDB): the TTL attribute may be the hash key
        # (test_ttl_expiration_hash), the range key (..._range) or an LSI's
        # sort key (..._lsi_key); a String hash key never expires
        # (..._hash_wrong_type); 1234567e1 and 12345678.1234 are epoch
        # seconds like any Number (test_ttl_expiration p8, p9)
        now = self.clock()["now_ms"] // 1000

        def ttl_table(name, attr, keys, lsi=None):
            """keys: ((name, type), ...), hash first; lsi: its sort key,
            a Number, KEYS_ONLY."""
            defs = list(keys) + ([(lsi, "N")] if lsi else [])
            extra = {"LocalSecondaryIndexes": [{
                "IndexName": "lsi", "KeySchema": [
                    {"AttributeName": keys[0][0], "KeyType": "HASH"},
                    {"AttributeName": lsi, "KeyType": "RANGE"}],
                "Projection": {"ProjectionType": "KEYS_ONLY"}}]} \
                if lsi else {}
            self.c.create_table(
                TableName=name, BillingMode="PAY_PER_REQUEST",
                AttributeDefinitions=[{"AttributeName": a,
                                       "AttributeType": t} for a, t in defs],
                KeySchema=[{"AttributeName": k[0], "KeyType": kt}
                           for k, kt in zip(keys, ("HASH", "RANGE"))],
                **extra)
            self.c.update_time_to_live(TableName=name,
                                       TimeToLiveSpecification={
                                           "Enabled": True,
                                           "AttributeName": attr})
        ttl_table("tth", "p", [("p", "N")])
        ttl_table("tts", "pk", [("pk", "S")])
        ttl_table("ttr", "c", [("p", "S"), ("c", "N")])
        ttl_table("ttn", "e", [("pk", "S")])
        ttl_table("ttl3", "l", [("p", "S"), ("c", "S")], lsi="l")
        past, future = str(now - 60), str(now + 3600)
        for v in (past, future):
            self.c.put_item(TableName="tth", Item={"p": {"N": v}})
            self.c.put_item(TableName="ttr", Item={
                "p": {"S": "x"}, "c": {"N": v}})
            self.c.put_item(TableName="ttl3", Item={
                "p": {"S": "x"}, "c": {"S": v}, "l": {"N": v}})
        self.c.put_item(TableName="tts", Item={"pk": {"S": past}})
        for pk, e in (("e1", "%de1" % ((now - 60) // 10)),
                      ("frac", "%d.1234" % (now - 60)),
                      ("keep", "%de1" % ((now + 3600) // 10))):
            self.c.put_item(TableName="ttn", Item={"pk": {"S": pk},
                                                   "e": {"N": e}})
        self.assertEqual(self.clock(0)["ttl_deleted"], 5)

        def left(table, attr, typ, **kw):
            return sorted(i[attr][typ] for i in self.c.scan(
                TableName=table, **kw)["Items"])
        self.assertEqual(left("tth", "p", "N"), [future])
        self.assertEqual(left("ttr", "c", "N"), [future])
        self.assertEqual(left("ttl3", "l", "N"), [future])
        self.assertEqual(left("ttl3", "l", "N", IndexName="lsi"), [future])
        self.assertEqual(left("tts", "pk", "S"), [past])
        self.assertEqual(left("ttn", "pk", "S"), ["keep"])

    def test_sweep_goes_through_every_page(self):
        # Alternator test_ttl_expiration_long: expired items spread over
        # many partitions and more than one page of the table are all
        # found (here 40 partition keys x 30 items of 2 KB, 2.4 MB). All
        # but the last two items of each key are expired: 1,120, more than
        # the 1,000 keys a sweep gathers before it deletes and goes on
        # (api/streams/sweep.c)
        self.table("ttlong", view=None, AttributeDefinitions=[
            {"AttributeName": "c", "AttributeType": "N"}],
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                       {"AttributeName": "c", "KeyType": "RANGE"}])
        self.c.update_time_to_live(TableName="ttlong",
                                   TimeToLiveSpecification={
                                       "Enabled": True, "AttributeName": "e"})
        now = self.clock()["now_ms"] // 1000
        pad = {"S": "x" * 2000}
        for p in range(40):
            reqs = [{"PutRequest": {"Item": {
                "pk": {"S": str(p)}, "c": {"N": str(c)}, "pad": pad,
                "e": {"N": str(now - 60 if c < 28 else now + 3600)}}}}
                for c in range(30)]
            for i in range(0, 30, 25):
                self.c.batch_write_item(RequestItems={"ttlong":
                                                      reqs[i:i + 25]})
        self.assertEqual(self.clock(0)["ttl_deleted"], 40 * 28)
        count, kw = 0, {}
        while True:
            r = self.c.scan(TableName="ttlong", Select="COUNT", **kw)
            count += r["Count"]
            if "LastEvaluatedKey" not in r:
                break
            kw = {"ExclusiveStartKey": r["LastEvaluatedKey"]}
        self.assertEqual(count, 40 * 2)


class RetentionTest(ClockCase):
    """24 hours of records, then the trim (GetShardIterator and
    GetRecords' TrimmedDataAccessException: API reference), and 15 minutes
    per iterator (ExpiredIteratorException)."""

    def test_trim_after_24_hours(self):
        arn = self.table("ret", view="KEYS_ONLY")
        for k in ("a", "b"):
            self.c.put_item(TableName="ret", Item={"pk": {"S": k}})
        self.clock(23 * HOUR + 59 * 60 * 1000)
        self.c.put_item(TableName="ret", Item={"pk": {"S": "c"}})
        recs = read_stream(self.s, arn)
        self.assertEqual(sorted(r["dynamodb"]["Keys"]["pk"]["S"]
                                for r in recs), ["a", "b", "c"])
        old = {r["dynamodb"]["Keys"]["pk"]["S"]: r for r in recs}
        _, shards = all_shards(self.s, arn)
        shard_of = {}
        for sh in shards:
            for r in read_shard(self.s, arn, sh["ShardId"])[0]:
                shard_of[r["dynamodb"]["Keys"]["pk"]["S"]] = sh["ShardId"]
        # an iterator taken just before "a" turns 24, used just after
        it = self.s.get_shard_iterator(
            StreamArn=arn, ShardId=shard_of["a"],
            ShardIteratorType="AT_SEQUENCE_NUMBER",
            SequenceNumber=old["a"]["dynamodb"]["SequenceNumber"])[
                "ShardIterator"]
        self.clock(2 * 60 * 1000)           # a, b: 24 h 1 min old
        with self.assertRaises(ClientError) as cm:
            self.s.get_records(ShardIterator=it)
        self.assertEqual(cm.exception.response["Error"]["Code"],
                         "TrimmedDataAccessException")
        with self.assertRaises(ClientError) as cm:
            self.s.get_shard_iterator(
                StreamArn=arn, ShardId=shard_of["b"],
                ShardIteratorType="AT_SEQUENCE_NUMBER",
                SequenceNumber=old["b"]["dynamodb"]["SequenceNumber"])
        self.assertEqual(cm.exception.response["Error"]["Code"],
                         "TrimmedDataAccessException")
        recs = read_stream(self.s, arn)     # TRIM_HORIZON: what is left
        self.assertEqual([r["dynamodb"]["Keys"]["pk"]["S"] for r in recs],
                         ["c"])

    def test_iterator_lives_15_minutes(self):
        arn = self.table("exp15", view="KEYS_ONLY")
        sid = all_shards(self.s, arn)[1][0]["ShardId"]
        it = self.s.get_shard_iterator(StreamArn=arn, ShardId=sid,
                                       ShardIteratorType="LATEST")[
                                           "ShardIterator"]
        self.clock(15 * 60 * 1000 - 1)
        nxt = self.s.get_records(ShardIterator=it)["NextShardIterator"]
        self.clock(1)
        with self.assertRaises(ClientError) as cm:
            self.s.get_records(ShardIterator=it)
        err = cm.exception.response["Error"]
        self.assertEqual(err["Code"], "ExpiredIteratorException")
        self.assertEqual(err["Message"], "The provided iterator exceeds "
                         "the maximum age allowed.")
        self.s.get_records(ShardIterator=nxt)   # a fresh one still works

    def test_disabled_and_deleted_streams_go_after_24_hours(self):
        gone = self.table("off", view="KEYS_ONLY")
        self.c.update_table(TableName="off", StreamSpecification={
            "StreamEnabled": False})
        dropped = self.table("dropped", view="KEYS_ONLY")
        self.c.delete_table(TableName="dropped")
        self.clock(23 * HOUR)
        listed = {x["StreamArn"] for x in self.s.list_streams()["Streams"]}
        self.assertEqual(listed, {gone, dropped})
        self.clock(HOUR + 1)
        self.assertEqual(self.s.list_streams()["Streams"], [])
        for arn in (gone, dropped):
            with self.assertRaises(ClientError) as cm:
                self.s.describe_stream(StreamArn=arn)
            self.assertEqual(cm.exception.response["Error"]["Code"],
                             "ResourceNotFoundException")


class TransitionsTest(ClockCase):
    """With a status delay, a stream is ENABLING/DISABLING while its table
    is CREATING/UPDATING; DeleteTable then refuses with DynamoDB's message
    (DDB-TABLE-002), TTL is admitted while UPDATING (DDB-TABLE-119) and
    DescribeTimeToLive refused while CREATING (DDB-TABLE-442)."""
    FLAGS = ClockCase.FLAGS + ("--status-delay-ms", "1000")

    def test_stream_and_ttl_while_the_table_changes(self):
        arn = self.table("trans", view="KEYS_ONLY")
        d = self.s.describe_stream(StreamArn=arn)["StreamDescription"]
        self.assertEqual(d["StreamStatus"], "ENABLING")
        with self.assertRaises(ClientError) as cm:
            self.c.describe_time_to_live(TableName="trans")
        self.assertEqual(cm.exception.response["Error"]["Message"],
                         "Cannot describe time to live while table is in "
                         "CREATING state: Current table state is CREATING")
        self.clock(1000)
        d = self.s.describe_stream(StreamArn=arn)["StreamDescription"]
        self.assertEqual(d["StreamStatus"], "ENABLED")
        r = self.c.update_table(TableName="trans", StreamSpecification={
            "StreamEnabled": False})
        self.assertEqual(r["TableDescription"]["TableStatus"], "UPDATING")
        d = self.s.describe_stream(StreamArn=arn)["StreamDescription"]
        self.assertEqual(d["StreamStatus"], "DISABLING")
        with self.assertRaises(ClientError) as cm:
            self.c.delete_table(TableName="trans")
        err = cm.exception.response["Error"]
        self.assertEqual(err["Code"], "ResourceInUseException")
        self.assertEqual(err["Message"], "Attempt to change a resource which "
                         "is still in use: Cannot delete table while stream "
                         "is being enabled/disabled.")
        self.c.update_time_to_live(TableName="trans",
                                   TimeToLiveSpecification={
                                       "Enabled": True, "AttributeName": "e"})
        self.assertEqual(self.c.describe_time_to_live(TableName="trans")[
            "TimeToLiveDescription"]["TimeToLiveStatus"], "ENABLING")
        self.clock(1000)
        d = self.s.describe_stream(StreamArn=arn)["StreamDescription"]
        self.assertEqual(d["StreamStatus"], "DISABLED")
        self.assertEqual(self.c.describe_time_to_live(TableName="trans")[
            "TimeToLiveDescription"]["TimeToLiveStatus"], "ENABLED")
        self.c.delete_table(TableName="trans")


class ReadLimitTest(ClockCase):
    """DescribeStream "at a maximum rate of 10 times per second" (API
    reference): a burst of 10, then one more every 100 ms."""
    FLAGS = ("--in-memory", "--virtual-clock", "--ttl-sweep-seconds",
             "3600")

    def test_describe_stream_rate(self):
        arn = self.table("rate", view="KEYS_ONLY")
        for _ in range(10):
            self.s.describe_stream(StreamArn=arn)
        with self.assertRaises(ClientError) as cm:
            self.s.describe_stream(StreamArn=arn)
        err = cm.exception.response["Error"]
        # ThrottlingException "Rate exceeded" (api/streams/meter.c names
        # the reports of DynamoDB Streams' answer); boto3 retries it
        self.assertEqual(err["Code"], "ThrottlingException")
        self.assertEqual(err["Message"], "Rate exceeded")
        tries = 1 + cm.exception.response["ResponseMetadata"].get(
            "RetryAttempts", 0)
        self.clock(100)
        self.s.describe_stream(StreamArn=arn)
        with self.assertRaises(ClientError) as cm2:
            self.s.describe_stream(StreamArn=arn)
        tries += 1 + cm2.exception.response["ResponseMetadata"].get(
            "RetryAttempts", 0)
        with urllib.request.urlopen(self.url + "/shardlocal/tables/rate") \
                as r:
            m = json.loads(r.read())["streams"]
        self.assertEqual(list(m.values())[0]["Throttled"], tries)
        self.assertEqual(list(m.values())[0]["DescribeStream"], 11)


class StreamDurabilityTest(OwnServerCase):
    """kill -9 while writers run, then read the streams: every
    acknowledged write has its record, every record is a write that
    happened (each key's records chain OldImage to NewImage up to the item
    as stored), and a transaction's records are there for all its items
    or none (docs/design.md: the record commits with its change)."""
    PREFIX = "shardlocal-streams-dur."
    DATA_DIR = True
    WRITERS = 6

    def start(self):
        self.proc, url = start_private_server(self.data, self.port_file)
        return url

    def test_kill9_between_writes_and_stream_reads(self):
        url = self.start()
        c = make_private_client(url)
        for t in ("dura", "durb"):
            c.create_table(TableName=t, BillingMode="PAY_PER_REQUEST",
                           AttributeDefinitions=[{"AttributeName": "pk",
                                                  "AttributeType": "S"}],
                           KeySchema=[{"AttributeName": "pk",
                                       "KeyType": "HASH"}],
                           StreamSpecification={
                               "StreamEnabled": True,
                               "StreamViewType": "NEW_AND_OLD_IMAGES"})
        acked = [[] for _ in range(self.WRITERS)]
        txns = [[] for _ in range(self.WRITERS)]
        stop = threading.Event()

        def writer(n):
            wc = make_private_client(url)
            i = 0
            while not stop.is_set():
                key = "w%d_%d" % (n, i % 8)
                v = {"N": str(i)}
                try:
                    if i % 3 == 2:      # both tables, or neither
                        wc.transact_write_items(TransactItems=[
                            {"Put": {"TableName": t, "Item": {
                                "pk": {"S": key}, "v": v}}}
                            for t in ("dura", "durb")])
                        txns[n].append((key, i))
                    elif i % 3 == 1:
                        wc.update_item(TableName="dura",
                                       Key={"pk": {"S": key}},
                                       UpdateExpression="SET v = :v",
                                       ExpressionAttributeValues={":v": v})
                    else:
                        wc.put_item(TableName="dura", Item={
                            "pk": {"S": key}, "v": v})
                except (ClientError, BotoCoreError, OSError):
                    return
                acked[n].append((key, i))
                i += 1

        threads = [threading.Thread(target=writer, args=(n,), daemon=True)
                   for n in range(self.WRITERS)]
        for t in threads:
            t.start()
        time.sleep(1.5)
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()
        stop.set()
        for t in threads:
            t.join(10)
        self.assertGreater(sum(len(a) for a in acked), 50)

        url = self.start()
        c = make_private_client(url)
        s = streams_client(url)
        chains = {}
        for t in ("dura", "durb"):
            arn = c.describe_table(TableName=t)["Table"]["LatestStreamArn"]
            for r in read_stream(s, arn):
                d = r["dynamodb"]
                chains.setdefault((t, d["Keys"]["pk"]["S"]), []).append(d)
        for (t, key), recs in chains.items():
            prev = None
            for d in recs:
                self.assertEqual(d.get("OldImage"), prev, (t, key))
                prev = d.get("NewImage")
            item = c.get_item(TableName=t, Key={"pk": {"S": key}},
                              ConsistentRead=True).get("Item")
            self.assertEqual(item, prev, (t, key))
        values = {k: {int(d["NewImage"]["v"]["N"]) for d in recs}
                  for k, recs in chains.items()}
        missing = [(key, i) for n in range(self.WRITERS)
                   for key, i in acked[n]
                   if i not in values.get(("dura", key), set())]
        self.assertEqual(missing[:10], [], "acknowledged writes without a "
                         "record")
        for k in set(x[1] for x in chains):
            a = {i for i in values.get(("dura", k), set()) if i % 3 == 2}
            b = values.get(("durb", k), set())
            self.assertEqual(a, b, "half a transaction in the streams")
        print("streams durability: %d acknowledged writes, %d records"
              % (sum(len(a) for a in acked),
                 sum(len(r) for r in chains.values())))
