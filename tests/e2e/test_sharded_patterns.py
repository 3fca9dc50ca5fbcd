# SPDX-License-Identifier: MIT
# test_sharded_patterns.py - sharded schema patterns end to end: a
# scatter-gather read over 20 write-shard suffixes; the "GSI choke chain",
# where a hot GSI key throttles base-table writes (GSI back-pressure) while
# the base table's partitions are idle; GSI read throttling leaving the base
# table alone; LSI item collections (limit, ItemCollectionMetrics); and the
# initial partition count under --throttle-scale.
import unittest

import boto3
from botocore.config import Config
from botocore.exceptions import ClientError

from e2e_common import E2ECase, OwnServerCase, start_private_server
from e2e_common import unique_name
from test_throttling import ACCOUNT_ARN, PTEE, Raw

SHARDS = 20
GSI_MSG = ("The level of configured provisioned throughput for one or more "
           "global secondary indexes of the table was exceeded. Consider "
           "increasing your provisioning level for the under-provisioned "
           "global secondary indexes with the UpdateTable API")
INDEX_WRITE_REASONS = ("IndexWriteKeyRangeThroughputExceeded",
                       "IndexWriteProvisionedThroughputExceeded")
INDEX_READ_REASONS = ("IndexReadKeyRangeThroughputExceeded",
                      "IndexReadProvisionedThroughputExceeded")
COLLECTION_MSG = "Collection size exceeded."


class ScatterGatherTest(E2ECase):
    """Write sharding's read side: items spread over pk suffixes #0..#19
    are read back with one Query per suffix, and the parts add up."""

    def test_scatter_gather_sums_every_suffix(self):
        t = self.make_table(range_key=("sk", "N"))
        total, expected = 0, {}
        requests = []
        for i in range(150):
            shard = (i * 7) % SHARDS
            pk = "day#2024-01-01#%d" % shard
            expected[shard] = expected.get(shard, 0) + i
            total += i
            requests.append({"PutRequest": {"Item": {
                "pk": {"S": pk}, "sk": {"N": str(i)}, "v": {"N": str(i)}}}})
        for j in range(0, len(requests), 25):
            r = self.c.batch_write_item(RequestItems={t: requests[j:j + 25]})
            self.assertEqual(r["UnprocessedItems"], {})
        grand, count = 0, 0
        for shard in range(SHARDS):
            pages, part, start = 0, 0, None
            while True:
                kw = dict(TableName=t, KeyConditionExpression="pk = :p",
                          ExpressionAttributeValues={
                              ":p": {"S": "day#2024-01-01#%d" % shard}},
                          Limit=4)
                if start:
                    kw["ExclusiveStartKey"] = start
                r = self.c.query(**kw)
                pages += 1
                part += sum(int(it["v"]["N"]) for it in r["Items"])
                count += r["Count"]
                start = r.get("LastEvaluatedKey")
                if not start:
                    break
            self.assertEqual(part, expected.get(shard, 0), shard)
            grand += part
        self.assertEqual(count, 150)
        self.assertEqual(grand, total)


class PrivateServerCase(OwnServerCase):
    """A dedicated server on a virtual clock: time moves only when the
    test says so, so every count below is exact."""
    FLAGS = ("--in-memory", "--virtual-clock")
    PREFIX = "shardlocal-seeds."

    def setUp(self):
        super().setUp()
        self.proc, self.url = start_private_server(None, self.port_file,
                                                   *self.FLAGS)
        self.raw = Raw(self.url)
        self.c = boto3.client("dynamodb", endpoint_url=self.url,
                              region_name="us-east-1",
                              config=Config(retries={"max_attempts": 1}))

    def partitions(self, table, index=None):
        path = "/shardlocal/tables/%s" % table
        if index:
            path += "/indexes/%s" % index
        st, body = self.raw.admin(path + "/partitions")
        self.assertEqual(st, 200, body)
        return body

    def assertGsiThrottled(self, err, index_arn, reasons=INDEX_WRITE_REASONS):
        """A ClientError (or raw body) that is DynamoDB's GSI throttle."""
        if isinstance(err, ClientError):
            body = err.response
            self.assertEqual(body["Error"]["Code"], PTEE, body["Error"])
            self.assertEqual(body["Error"]["Message"], GSI_MSG)
            tr = body.get("ThrottlingReasons")
        else:
            body = err
            self.assertEqual(body["__type"].split("#")[1], PTEE, body)
            self.assertEqual(body["message"], GSI_MSG)
            tr = body.get("ThrottlingReasons")
        if tr is not None:
            self.assertEqual(len(tr), 1, tr)
            self.assertIn(tr[0]["reason"], reasons)
            self.assertEqual(tr[0]["resource"], index_arn)


class GsiChokeChainTest(PrivateServerCase):
    """The seeds' "GSI choke chain": a GSI keyed on a low-cardinality
    attribute (status = PENDING) concentrates every pending item's index
    row on one GSI partition; when that partition runs out of write
    capacity, base-table writes that would change it are throttled with
    the Index... reason and the index ARN, although the base table's own
    partitions are idle."""

    T = "orders"
    I = "status-index"

    def make(self):
        self.c.create_table(
            TableName=self.T,
            AttributeDefinitions=[
                {"AttributeName": "pk", "AttributeType": "S"},
                {"AttributeName": "status", "AttributeType": "S"}],
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
            ProvisionedThroughput={"ReadCapacityUnits": 1000,
                                   "WriteCapacityUnits": 2000},
            GlobalSecondaryIndexes=[{
                "IndexName": self.I,
                "KeySchema": [{"AttributeName": "status",
                               "KeyType": "HASH"}],
                "Projection": {"ProjectionType": "KEYS_ONLY"},
                "ProvisionedThroughput": {"ReadCapacityUnits": 1,
                                          "WriteCapacityUnits": 10}}],
            # A 1 s burst bank: the GSI holds 10 write units, not 3,000.
            Tags=[{"Key": "shardlocal:burst-seconds", "Value": "1"}])
        return ACCOUNT_ARN + self.T + "/index/" + self.I

    def put(self, pk, status="PENDING", **extra):
        item = {"pk": {"S": pk}, "note": {"S": "x"}}
        if status is not None:
            item["status"] = {"S": status}
        item.update(extra)
        return self.raw.call("PutItem", {"TableName": self.T, "Item": item})

    def test_hot_gsi_key_throttles_base_writes(self):
        arn = self.make()
        # Ten pending orders fill the GSI's 10 write units.
        for i in range(10):
            st, body = self.put("order-%d" % i)
            self.assertEqual(st, 200, body)
        # The eleventh, a new order on an idle base partition, throttles.
        st, body = self.put("order-new")
        self.assertEqual(st, 400)
        self.assertGsiThrottled(body, arn)
        st, got = self.raw.call("GetItem", {"TableName": self.T, "Key": {
            "pk": {"S": "order-new"}}})
        self.assertNotIn("Item", got)            # nothing written
        # An item absent from the index (sparse: no status) is served.
        st, body = self.put("draft-1", status=None)
        self.assertEqual(st, 200, body)
        # UpdateItem moving an order into PENDING: planned from the stored
        # item, refused before it commits; the item is unchanged.
        st, body = self.raw.call("UpdateItem", {
            "TableName": self.T, "Key": {"pk": {"S": "draft-1"}},
            "UpdateExpression": "SET #s = :p",
            "ExpressionAttributeNames": {"#s": "status"},
            "ExpressionAttributeValues": {":p": {"S": "PENDING"}}})
        self.assertEqual(st, 400)
        self.assertGsiThrottled(body, arn)
        st, got = self.raw.call("GetItem", {"TableName": self.T, "Key": {
            "pk": {"S": "draft-1"}}})
        self.assertNotIn("status", got["Item"])
        # An update that leaves the KEYS_ONLY index row alone costs the
        # GSI nothing and is served.
        st, body = self.raw.call("UpdateItem", {
            "TableName": self.T, "Key": {"pk": {"S": "order-1"}},
            "UpdateExpression": "SET note = :n",
            "ExpressionAttributeValues": {":n": {"S": "y"}}})
        self.assertEqual(st, 200, body)
        # DeleteItem of a pending order removes its index row: throttled.
        st, body = self.raw.call("DeleteItem", {
            "TableName": self.T, "Key": {"pk": {"S": "order-2"}}})
        self.assertEqual(st, 400)
        self.assertGsiThrottled(body, arn)
        st, got = self.raw.call("GetItem", {"TableName": self.T, "Key": {
            "pk": {"S": "order-2"}}})
        self.assertIn("Item", got)
        # Deleting an item that is not in the index is served.
        st, body = self.raw.call("DeleteItem", {
            "TableName": self.T, "Key": {"pk": {"S": "draft-1"}}})
        self.assertEqual(st, 200, body)

        # The admin view: the base table's partitions are idle (nothing
        # throttled, far below their share), the GSI's hot partition is
        # the one throttling and has been charged the index units.
        base = self.partitions(self.T)
        self.assertEqual(base["partition_count"], 3)   # 1000/3000+2000/1000
        for p in base["partitions"]:
            self.assertEqual(p["write"]["throttled_total"], 0, p)
            self.assertLess(p["write"]["consumed_last_second"],
                            p["write"]["share_per_second"] / 10)
        gsi = self.partitions(self.T, self.I)
        hot = [p for p in gsi["partitions"]
               if p["write"]["throttled_total"] > 0]
        self.assertEqual(len(hot), 1, gsi["partitions"])
        self.assertEqual(hot[0]["write"]["consumed_total"], 10.0)
        self.assertGreaterEqual(hot[0]["write"]["throttled_total"], 3)

        # A second later the GSI partition has refilled (10 WCU/s).
        self.raw.advance(1000)
        st, body = self.put("order-new")
        self.assertEqual(st, 200, body)

    def test_gsi_back_pressure_in_batches(self):
        arn = self.make()
        for i in range(10):
            self.assertEqual(self.put("order-%d" % i)[0], 200)
        # BatchWriteItem: the pending orders go to UnprocessedItems as sent,
        # the drafts are written.
        reqs = [{"PutRequest": {"Item": {"pk": {"S": "b-%d" % i},
                                         "status": {"S": "PENDING"}}}}
                for i in range(3)]
        reqs += [{"PutRequest": {"Item": {"pk": {"S": "d-%d" % i}}}}
                 for i in range(2)]
        r = self.c.batch_write_item(RequestItems={self.T: reqs})
        self.assertEqual(r["UnprocessedItems"], {self.T: reqs[:3]})
        got = self.c.batch_get_item(RequestItems={self.T: {"Keys": [
            {"pk": {"S": "b-0"}}, {"pk": {"S": "d-0"}},
            {"pk": {"S": "d-1"}}]}})
        self.assertEqual(sorted(i["pk"]["S"] for i in
                                got["Responses"][self.T]), ["d-0", "d-1"])
        # Every item throttled: the call itself fails (throttling.md 5).
        with self.assertRaises(ClientError) as cm:
            self.c.batch_write_item(RequestItems={self.T: reqs[:3]})
        self.assertIn(cm.exception.response["Error"]["Code"],
                      (PTEE, "ThrottlingException"))
        # TransactWriteItems: the GSI-throttled action cancels the whole
        # transaction with ProvisionedThroughputExceeded, the others None.
        with self.assertRaises(ClientError) as cm:
            self.c.transact_write_items(TransactItems=[
                {"Put": {"TableName": self.T,
                         "Item": {"pk": {"S": "t-1"}}}},
                {"Put": {"TableName": self.T,
                         "Item": {"pk": {"S": "t-2"},
                                  "status": {"S": "PENDING"}}}}])
        resp = cm.exception.response
        self.assertEqual(resp["Error"]["Code"],
                         "TransactionCanceledException")
        codes = [r["Code"] for r in resp["CancellationReasons"]]
        self.assertEqual(codes, ["None", "ProvisionedThroughputExceeded"])
        self.assertEqual(resp["CancellationReasons"][1]["Message"], GSI_MSG)
        got = self.c.get_item(TableName=self.T, Key={"pk": {"S": "t-1"}})
        self.assertNotIn("Item", got)            # all or nothing
        # Refilled: the same transaction commits and is charged to the GSI
        # (transactional writes count double).
        self.raw.advance(1000)
        before = sum(p["write"]["consumed_total"] for p in
                     self.partitions(self.T, self.I)["partitions"])
        self.c.transact_write_items(TransactItems=[
            {"Put": {"TableName": self.T, "Item": {"pk": {"S": "t-1"}}}},
            {"Put": {"TableName": self.T,
                     "Item": {"pk": {"S": "t-2"},
                              "status": {"S": "PENDING"}}}}])
        after = sum(p["write"]["consumed_total"] for p in
                    self.partitions(self.T, self.I)["partitions"])
        self.assertEqual(after - before, 2.0)

    def test_gsi_read_throttling_spares_the_base_table(self):
        arn = self.make()
        self.assertEqual(self.put("order-1")[0], 200)
        query = {"TableName": self.T, "IndexName": self.I,
                 "KeyConditionExpression": "#s = :p",
                 "ExpressionAttributeNames": {"#s": "status"},
                 "ExpressionAttributeValues": {":p": {"S": "PENDING"}}}
        errs = []
        for _ in range(10):
            st, body = self.raw.call("Query", query)
            if st != 200:
                errs.append(body)
        self.assertTrue(errs, "a 1 RCU GSI never throttled 10 queries")
        self.assertGsiThrottled(errs[0], arn, INDEX_READ_REASONS)
        # The base table is untouched by the GSI's read throttling: reads
        # and writes are served, its partitions never throttled.
        for _ in range(20):
            st, body = self.raw.call("GetItem", {"TableName": self.T, "Key": {
                "pk": {"S": "order-1"}}, "ConsistentRead": True})
            self.assertEqual(st, 200, body)
        st, body = self.raw.call("Query", {
            "TableName": self.T, "KeyConditionExpression": "pk = :k",
            "ExpressionAttributeValues": {":k": {"S": "order-1"}}})
        self.assertEqual((st, body.get("Count")), (200, 1), body)
        self.assertEqual(self.put("draft", status=None)[0], 200)
        for p in self.partitions(self.T)["partitions"]:
            self.assertEqual(p["read"]["throttled_total"], 0)
            self.assertEqual(p["write"]["throttled_total"], 0)


class ScaledPartitionsTest(PrivateServerCase):
    """CreateTable's initial partition count uses the scaled per-partition
    ceilings (throttle_limits_partitions), like splits do."""
    FLAGS = ("--in-memory", "--virtual-clock", "--throttle-scale", "0.01")

    def test_initial_partitions_scaled(self):
        # Ceilings 30 RCU / 10 WCU: ceil(30/30 + 25/10) = 4.
        self.c.create_table(
            TableName="scaled",
            AttributeDefinitions=[
                {"AttributeName": "pk", "AttributeType": "S"},
                {"AttributeName": "g", "AttributeType": "S"}],
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
            ProvisionedThroughput={"ReadCapacityUnits": 30,
                                   "WriteCapacityUnits": 25},
            GlobalSecondaryIndexes=[{
                "IndexName": "g-index",
                "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                "Projection": {"ProjectionType": "ALL"},
                "ProvisionedThroughput": {"ReadCapacityUnits": 1,
                                          "WriteCapacityUnits": 21}}])
        self.assertEqual(self.partitions("scaled")["partition_count"], 4)
        # The GSI: ceil(1/30 + 21/10) = 3.
        self.assertEqual(
            self.partitions("scaled", "g-index")["partition_count"], 3)
        # A table that fits one scaled partition keeps one.
        self.c.create_table(
            TableName="small",
            AttributeDefinitions=[{"AttributeName": "pk",
                                   "AttributeType": "S"}],
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
            ProvisionedThroughput={"ReadCapacityUnits": 15,
                                   "WriteCapacityUnits": 5})
        self.assertEqual(self.partitions("small")["partition_count"], 1)
        # Per-table tags override the knobs: 100 WCU partitions, unscaled.
        self.c.create_table(
            TableName="tagged",
            AttributeDefinitions=[{"AttributeName": "pk",
                                   "AttributeType": "S"}],
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
            ProvisionedThroughput={"ReadCapacityUnits": 1,
                                   "WriteCapacityUnits": 150},
            Tags=[{"Key": "shardlocal:partition-wcu", "Value": "100"},
                  {"Key": "shardlocal:throttle-scale", "Value": "1"}])
        self.assertEqual(self.partitions("tagged")["partition_count"], 2)


class ItemCollectionTest(PrivateServerCase):
    """LSI item collections: the size limit (shrunk to 4 KB here with
    --item-collection-limit) and ItemCollectionMetrics on every write."""
    FLAGS = ("--in-memory", "--item-collection-limit", "4KB")

    T = "coll"

    def make(self, lsi=True):
        name = unique_name("coll")
        args = dict(
            TableName=name,
            AttributeDefinitions=[
                {"AttributeName": "pk", "AttributeType": "S"},
                {"AttributeName": "sk", "AttributeType": "S"},
                {"AttributeName": "l", "AttributeType": "S"}],
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                       {"AttributeName": "sk", "KeyType": "RANGE"}],
            BillingMode="PAY_PER_REQUEST")
        if lsi:
            args["LocalSecondaryIndexes"] = [{
                "IndexName": "l-index",
                "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"},
                              {"AttributeName": "l", "KeyType": "RANGE"}],
                "Projection": {"ProjectionType": "KEYS_ONLY"}}]
        else:
            args["AttributeDefinitions"] = args["AttributeDefinitions"][:2]
        self.c.create_table(**args)
        return name

    @staticmethod
    def item(pk, sk, size=1000):
        return {"pk": {"S": pk}, "sk": {"S": sk}, "l": {"S": sk},
                "d": {"S": "x" * size}}

    def test_collection_limit(self):
        t = self.make()
        n = 0
        with self.assertRaises(ClientError) as cm:
            for n in range(10):
                self.c.put_item(TableName=t, Item=self.item("a", "s%d" % n))
        err = cm.exception.response["Error"]
        self.assertEqual(err["Code"], "ItemCollectionSizeLimitExceededException")
        self.assertEqual(err["Message"], COLLECTION_MSG)
        self.assertEqual(n, 4)                    # 4 x ~1 KB fit in 4 KB
        got = self.c.get_item(TableName=t, Key={"pk": {"S": "a"},
                                                "sk": {"S": "s4"}})
        self.assertNotIn("Item", got)
        # Other collections are not affected; shrinking writes are fine.
        self.c.put_item(TableName=t, Item=self.item("b", "s0"))
        self.c.put_item(TableName=t, Item=self.item("a", "s0", size=10))
        self.c.update_item(TableName=t, Key={"pk": {"S": "a"},
                                             "sk": {"S": "s1"}},
                           UpdateExpression="REMOVE d")
        # Room again.
        self.c.put_item(TableName=t, Item=self.item("a", "s4"))
        # UpdateItem growing the collection past the limit.
        with self.assertRaises(ClientError) as cm:
            self.c.update_item(TableName=t, Key={"pk": {"S": "a"},
                                                 "sk": {"S": "s1"}},
                               UpdateExpression="SET d = :d",
                               ExpressionAttributeValues={
                                   ":d": {"S": "y" * 3000}})
        self.assertEqual(cm.exception.response["Error"]["Code"],
                         "ItemCollectionSizeLimitExceededException")
        # TransactWriteItems cancels with ItemCollectionSizeLimitExceeded.
        with self.assertRaises(ClientError) as cm:
            self.c.transact_write_items(TransactItems=[
                {"Put": {"TableName": t, "Item": self.item("c", "s0")}},
                {"Put": {"TableName": t,
                         "Item": self.item("a", "s9", size=3000)}}])
        resp = cm.exception.response
        self.assertEqual(resp["Error"]["Code"],
                         "TransactionCanceledException")
        self.assertEqual([r["Code"] for r in resp["CancellationReasons"]],
                         ["None", "ItemCollectionSizeLimitExceeded"])
        self.assertEqual(resp["CancellationReasons"][1]["Message"],
                         COLLECTION_MSG)
        got = self.c.get_item(TableName=t, Key={"pk": {"S": "c"},
                                                "sk": {"S": "s0"}})
        self.assertNotIn("Item", got)
        # A table without an LSI has no item collection limit.
        t2 = self.make(lsi=False)
        for n in range(8):
            self.c.put_item(TableName=t2, Item=self.item("a", "s%d" % n))

    def test_item_collection_metrics(self):
        t = self.make()
        want = {"ItemCollectionKey": {"pk": {"S": "a"}},
                "SizeEstimateRangeGB": [0.0, 1.0]}
        r = self.c.put_item(TableName=t, Item=self.item("a", "s0", 10),
                            ReturnItemCollectionMetrics="SIZE")
        self.assertEqual(r["ItemCollectionMetrics"], want)
        r = self.c.update_item(TableName=t, Key={"pk": {"S": "a"},
                                                 "sk": {"S": "s0"}},
                               UpdateExpression="SET e = :e",
                               ExpressionAttributeValues={":e": {"S": "1"}},
                               ReturnItemCollectionMetrics="SIZE")
        self.assertEqual(r["ItemCollectionMetrics"], want)
        r = self.c.delete_item(TableName=t, Key={"pk": {"S": "a"},
                                                 "sk": {"S": "s0"}},
                               ReturnItemCollectionMetrics="SIZE")
        self.assertEqual(r["ItemCollectionMetrics"], want)
        r = self.c.batch_write_item(RequestItems={t: [
            {"PutRequest": {"Item": self.item("a", "s1", 10)}},
            {"PutRequest": {"Item": self.item("b", "s1", 10)}}]},
            ReturnItemCollectionMetrics="SIZE")
        self.assertEqual(r["ItemCollectionMetrics"], {t: [
            want, {"ItemCollectionKey": {"pk": {"S": "b"}},
                   "SizeEstimateRangeGB": [0.0, 1.0]}]})
        r = self.c.transact_write_items(TransactItems=[
            {"Put": {"TableName": t, "Item": self.item("a", "s2", 10)}},
            {"ConditionCheck": {"TableName": t,
                                "Key": {"pk": {"S": "a"}, "sk": {"S": "s1"}},
                                "ConditionExpression":
                                    "attribute_exists(pk)"}},
            {"Delete": {"TableName": t,
                        "Key": {"pk": {"S": "b"}, "sk": {"S": "s1"}}}}],
            ReturnItemCollectionMetrics="SIZE")
        self.assertEqual(r["ItemCollectionMetrics"], {t: [
            want, {"ItemCollectionKey": {"pk": {"S": "b"}},
                   "SizeEstimateRangeGB": [0.0, 1.0]}]})
        # Not asked, or no LSI: no member.
        r = self.c.put_item(TableName=t, Item=self.item("a", "s3", 10))
        self.assertNotIn("ItemCollectionMetrics", r)
        t2 = self.make(lsi=False)
        r = self.c.put_item(TableName=t2, Item=self.item("a", "s3", 10),
                            ReturnItemCollectionMetrics="SIZE")
        self.assertNotIn("ItemCollectionMetrics", r)
        r = self.c.transact_write_items(TransactItems=[
            {"Put": {"TableName": t2, "Item": self.item("a", "s4", 10)}}],
            ReturnItemCollectionMetrics="SIZE")
        self.assertNotIn("ItemCollectionMetrics", r)


if __name__ == "__main__":
    unittest.main()
