# SPDX-License-Identifier: MIT
# test_indexes.py - global and local secondary indexes through boto3:
# CreateTable validations and descriptions, index maintenance on every
# write (sparse, non-unique keys, key changes), Query/Scan on GSIs and
# LSIs (ordering, pagination keys, projections, Select rules), index write
# costs in ConsumedCapacity, and UpdateTable Create/Update/Delete with
# backfill.
import random
import threading
import unittest

from e2e_common import (ACCOUNT, REGION, E2ECase, client, unique_name,
                        wait_active)


def S(v):
    return {"S": v}


def N(v):
    return {"N": v}


def attr(name, t):
    return {"AttributeName": name, "AttributeType": t}


def key(name, kt):
    return {"AttributeName": name, "KeyType": kt}


def gsi(name, hash_key, range_key=None, proj="ALL", nka=None, pt=None):
    ks = [key(hash_key, "HASH")]
    if range_key:
        ks.append(key(range_key, "RANGE"))
    p = {"ProjectionType": proj}
    if nka is not None:
        p["NonKeyAttributes"] = nka
    g = {"IndexName": name, "KeySchema": ks, "Projection": p}
    if pt:
        g["ProvisionedThroughput"] = {"ReadCapacityUnits": pt[0],
                                      "WriteCapacityUnits": pt[1]}
    return g


def lsi(name, hash_key, range_key, proj="ALL", nka=None):
    return gsi(name, hash_key, range_key, proj, nka)


class IndexCase(E2ECase):
    """A table pk/sk (S/S) with:
    gall  GSI g (S) / n (N), ALL
    gkeys GSI g (S), KEYS_ONLY
    linc  LSI n (N), INCLUDE [x]
    """

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.t = unique_name("idx")
        cls.c.create_table(
            TableName=cls.t, BillingMode="PAY_PER_REQUEST",
            AttributeDefinitions=[attr("pk", "S"), attr("sk", "S"),
                                  attr("g", "S"), attr("n", "N")],
            KeySchema=[key("pk", "HASH"), key("sk", "RANGE")],
            GlobalSecondaryIndexes=[gsi("gall", "g", "n"),
                                    gsi("gkeys", "g", proj="KEYS_ONLY")],
            LocalSecondaryIndexes=[lsi("linc", "pk", "n", "INCLUDE",
                                       ["x"])])
        cls._tables.append(cls.t)
        wait_active(cls.c, cls.t)

    def put(self, **item):
        self.c.put_item(TableName=self.t, Item=item)

    def q(self, index, cond, values, **kw):
        return self.c.query(TableName=self.t, IndexName=index,
                            KeyConditionExpression=cond,
                            ExpressionAttributeValues=values, **kw)

    def keys(self, resp):
        return [(i["pk"]["S"], i["sk"]["S"]) for i in resp["Items"]]


class CreateDescribeTest(IndexCase):

    def test_describe_gsi_and_lsi(self):
        t = self.c.describe_table(TableName=self.t)["Table"]
        arn = "arn:aws:dynamodb:%s:%s:table/%s" % (REGION, ACCOUNT, self.t)
        g = {x["IndexName"]: x for x in t["GlobalSecondaryIndexes"]}
        self.assertEqual(set(g), {"gall", "gkeys"})
        self.assertEqual(g["gall"]["IndexStatus"], "ACTIVE")
        self.assertEqual(g["gall"]["IndexArn"], arn + "/index/gall")
        self.assertEqual(g["gall"]["KeySchema"],
                         [key("g", "HASH"), key("n", "RANGE")])
        self.assertEqual(g["gkeys"]["Projection"],
                         {"ProjectionType": "KEYS_ONLY"})
        self.assertEqual(g["gall"]["ProvisionedThroughput"]
                         ["ReadCapacityUnits"], 0)
        self.assertIn("ItemCount", g["gall"])
        self.assertIn("IndexSizeBytes", g["gall"])
        (l,) = t["LocalSecondaryIndexes"]
        self.assertEqual(l["IndexName"], "linc")
        self.assertEqual(l["Projection"], {"ProjectionType": "INCLUDE",
                                           "NonKeyAttributes": ["x"]})
        self.assertEqual(l["IndexArn"], arn + "/index/linc")
        self.assertNotIn("IndexStatus", l)

    def test_index_tables_are_hidden(self):
        names = self.c.list_tables()["TableNames"]
        self.assertIn(self.t, names)
        self.assertFalse([n for n in names if "/" in n])

    def test_provisioned_gsi_throughput(self):
        name = self.make_table(
            on_demand=False, rcu=5, wcu=5,
            AttributeDefinitions=[attr("pk", "S"), attr("g", "S")],
            GlobalSecondaryIndexes=[gsi("ggg", "g", pt=(3, 4))])
        (g,) = self.c.describe_table(TableName=name)["Table"][
            "GlobalSecondaryIndexes"]
        self.assertEqual(g["ProvisionedThroughput"]["ReadCapacityUnits"], 3)
        self.assertEqual(g["ProvisionedThroughput"]["WriteCapacityUnits"], 4)


class CreateValidationTest(E2ECase):
    """CreateTable index errors, with DynamoDB's messages."""

    def create(self, defs, ks=None, gsis=None, lsis=None, on_demand=True):
        args = dict(TableName=unique_name("idxv"),
                    AttributeDefinitions=defs,
                    KeySchema=ks or [key("pk", "HASH"), key("sk", "RANGE")])
        if on_demand:
            args["BillingMode"] = "PAY_PER_REQUEST"
        else:
            args["ProvisionedThroughput"] = {"ReadCapacityUnits": 1,
                                             "WriteCapacityUnits": 1}
        if gsis is not None:
            args["GlobalSecondaryIndexes"] = gsis
        if lsis is not None:
            args["LocalSecondaryIndexes"] = lsis
        return self.c.create_table(**args)

    P = "One or more parameter values were invalid: "
    DEFS = [attr("pk", "S"), attr("sk", "S"), attr("g", "S")]

    def test_undefined_index_key(self):
        self.assertValidation(
            self.create, self.P + "Some index key attributes are not defined "
            "in AttributeDefinitions. Keys: [zz], AttributeDefinitions: "
            "[pk, sk, g]", defs=self.DEFS, gsis=[gsi("gi1", "zz")])

    def test_unused_definition(self):
        self.assertValidation(
            self.create, self.P + "Some AttributeDefinitions are not used. "
            "AttributeDefinitions: [pk, sk, g, h], keys used: [pk, sk, g]",
            defs=self.DEFS + [attr("h", "S")], gsis=[gsi("gi1", "g")])

    def test_duplicate_index_name(self):
        self.assertValidation(
            self.create, self.P + "Duplicate index name: gi1",
            defs=self.DEFS, gsis=[gsi("gi1", "g"), gsi("gi1", "g")])

    def test_lsi_needs_table_range_key(self):
        self.assertValidation(
            self.create, self.P + "Table KeySchema does not have a range "
            "key, which is required when specifying a LocalSecondaryIndex",
            defs=[attr("pk", "S"), attr("g", "S")],
            ks=[key("pk", "HASH")], lsis=[lsi("li1", "pk", "g")])

    def test_lsi_same_hash_key(self):
        self.assertValidation(
            self.create, self.P + "Index KeySchema does not have the same "
            "leading hash key as table KeySchema for index: li1. index hash "
            "key: g, table hash key: pk",
            defs=self.DEFS, lsis=[lsi("li1", "g", "sk")])

    def test_include_needs_attributes(self):
        self.assertValidation(
            self.create, self.P + "ProjectionType is INCLUDE, but "
            "NonKeyAttributes is not specified",
            defs=self.DEFS, gsis=[gsi("gi1", "g", proj="INCLUDE")])

    def test_keys_only_with_attributes(self):
        self.assertValidation(
            self.create, self.P + "ProjectionType is KEYS_ONLY, but "
            "NonKeyAttributes is specified",
            defs=self.DEFS, gsis=[gsi("gi1", "g", proj="KEYS_ONLY",
                                      nka=["a"])])

    def test_gsi_throughput_rules(self):
        self.assertValidation(
            self.create, self.P + "ProvisionedThroughput should not be "
            "specified for index: gi1 when BillingMode is PAY_PER_REQUEST",
            defs=self.DEFS, gsis=[gsi("gi1", "g", pt=(1, 1))])
        self.assertValidation(
            self.create, self.P + "ProvisionedThroughput is not specified "
            "for index: gi1", defs=self.DEFS, gsis=[gsi("gi1", "g")],
            on_demand=False)

    def test_too_many_indexes(self):
        self.assertValidation(
            self.create, self.P + "Number of LocalSecondaryIndexes exceeds "
            "per-table limit of 5", defs=self.DEFS,
            lsis=[lsi("li%d" % i, "pk", "g") for i in range(6)])
        self.assertValidation(
            self.create, self.P + "GlobalSecondaryIndex count exceeds the "
            "per-table limit of 20", defs=self.DEFS,
            gsis=[gsi("g%02d" % i, "g") for i in range(21)])


class MaintenanceTest(IndexCase):

    def count(self, index, g):
        r = self.q(index, "g = :g", {":g": S(g)}, Select="COUNT")
        return r["Count"]

    def test_sparse_and_key_changes(self):
        self.put(pk=S("m1"), sk=S("a"), g=S("M"), n=N("1"))
        self.put(pk=S("m1"), sk=S("b"), n=N("2"))           # no g: sparse
        self.assertEqual(self.count("gall", "M"), 1)
        self.assertEqual(self.count("gkeys", "M"), 1)
        # Change the index key: moves from M to M2.
        self.c.update_item(TableName=self.t,
                           Key={"pk": S("m1"), "sk": S("a")},
                           UpdateExpression="SET g = :g",
                           ExpressionAttributeValues={":g": S("M2")})
        self.assertEqual(self.count("gall", "M"), 0)
        self.assertEqual(self.count("gall", "M2"), 1)
        # Remove it: gone from the GSIs, still in the LSI (n kept).
        self.c.update_item(TableName=self.t,
                           Key={"pk": S("m1"), "sk": S("a")},
                           UpdateExpression="REMOVE g")
        self.assertEqual(self.count("gall", "M2"), 0)
        r = self.q("linc", "pk = :p", {":p": S("m1")})
        self.assertEqual(self.keys(r), [("m1", "a"), ("m1", "b")])
        self.c.delete_item(TableName=self.t,
                           Key={"pk": S("m1"), "sk": S("b")})
        r = self.q("linc", "pk = :p", {":p": S("m1")})
        self.assertEqual(self.keys(r), [("m1", "a")])

    def test_wrong_index_key_type_rejected(self):
        self.assertValidation(
            self.c.put_item, "One or more parameter values were invalid: "
            "Type mismatch for Index Key n Expected: N Actual: S IndexName: "
            "gall", TableName=self.t,
            Item={"pk": S("w"), "sk": S("w"), "g": S("W"), "n": S("x")})
        self.assertNotIn("Item", self.c.get_item(
            TableName=self.t, Key={"pk": S("w"), "sk": S("w")}))

    def test_index_write_capacity(self):
        r = self.c.put_item(TableName=self.t, ReturnConsumedCapacity="INDEXES",
                            Item={"pk": S("c1"), "sk": S("a"), "g": S("C"),
                                  "n": N("1"), "x": S("x")})
        cc = r["ConsumedCapacity"]
        self.assertEqual(cc["Table"], {"CapacityUnits": 1.0})
        self.assertEqual(cc["GlobalSecondaryIndexes"],
                         {"gall": {"CapacityUnits": 1.0},
                          "gkeys": {"CapacityUnits": 1.0}})
        self.assertEqual(cc["LocalSecondaryIndexes"],
                         {"linc": {"CapacityUnits": 1.0}})
        self.assertEqual(cc["CapacityUnits"], 4.0)
        # Index key change: delete + put on the GSIs; LSI projection same
        # except x unchanged -> not charged.
        r = self.c.update_item(TableName=self.t, ReturnConsumedCapacity="INDEXES",
                               Key={"pk": S("c1"), "sk": S("a")},
                               UpdateExpression="SET g = :g",
                               ExpressionAttributeValues={":g": S("C2")})
        cc = r["ConsumedCapacity"]
        self.assertEqual(cc["GlobalSecondaryIndexes"],
                         {"gall": {"CapacityUnits": 2.0},
                          "gkeys": {"CapacityUnits": 2.0}})
        self.assertNotIn("LocalSecondaryIndexes", cc)
        # A non-projected attribute: only the ALL index changes.
        r = self.c.update_item(TableName=self.t, ReturnConsumedCapacity="INDEXES",
                               Key={"pk": S("c1"), "sk": S("a")},
                               UpdateExpression="SET extra = :v",
                               ExpressionAttributeValues={":v": S("v")})
        self.assertEqual(r["ConsumedCapacity"]["GlobalSecondaryIndexes"],
                         {"gall": {"CapacityUnits": 1.0}})
        r = self.c.put_item(TableName=self.t, ReturnConsumedCapacity="TOTAL",
                            Item={"pk": S("c2"), "sk": S("a")})
        self.assertEqual(r["ConsumedCapacity"],
                         {"TableName": self.t, "CapacityUnits": 1.0})


class ItemCollectionTest(IndexCase):

    def test_item_collection_metrics(self):
        r = self.c.put_item(TableName=self.t, ReturnItemCollectionMetrics="SIZE",
                            Item={"pk": S("ic"), "sk": S("a"), "n": N("1")})
        self.assertEqual(r["ItemCollectionMetrics"],
                         {"ItemCollectionKey": {"pk": S("ic")},
                          "SizeEstimateRangeGB": [0.0, 1.0]})
        r = self.c.delete_item(TableName=self.t,
                               ReturnItemCollectionMetrics="SIZE",
                               Key={"pk": S("ic"), "sk": S("a")})
        self.assertEqual(r["ItemCollectionMetrics"]["ItemCollectionKey"],
                         {"pk": S("ic")})
        r = self.c.put_item(TableName=self.t,
                            Item={"pk": S("ic"), "sk": S("b")})
        self.assertNotIn("ItemCollectionMetrics", r)


class QueryIndexTest(IndexCase):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        for p in ("qa", "qb"):
            for i in range(6):
                cls.c.put_item(TableName=cls.t, Item={
                    "pk": S(p), "sk": S(str(i)), "g": S("Q"),
                    "n": N(str(i % 3)), "x": S("x%d" % i), "y": S("y")})

    def test_gsi_order_ties_by_table_key(self):
        r = self.q("gall", "g = :g", {":g": S("Q")})
        self.assertEqual([i["n"]["N"] for i in r["Items"]],
                         ["0"] * 4 + ["1"] * 4 + ["2"] * 4)
        self.assertEqual(self.keys(r)[:4], [("qa", "0"), ("qa", "3"),
                                            ("qb", "0"), ("qb", "3")])
        r2 = self.q("gall", "g = :g", {":g": S("Q")}, ScanIndexForward=False)
        self.assertEqual(self.keys(r2), list(reversed(self.keys(r))))

    def test_gsi_range_conditions(self):
        cases = [("n = :a", ["1"] * 4), ("n < :a", ["0"] * 4),
                 ("n <= :a", ["0"] * 4 + ["1"] * 4), ("n > :a", ["2"] * 4),
                 ("n >= :a", ["1"] * 4 + ["2"] * 4),
                 ("n BETWEEN :a AND :b", ["1"] * 4 + ["2"] * 4)]
        for cond, want in cases:
            r = self.q("gall", "g = :g AND " + cond,
                       {":g": S("Q"), ":a": N("1"), ":b": N("2")}
                       if ":b" in cond else {":g": S("Q"), ":a": N("1")})
            self.assertEqual([i["n"]["N"] for i in r["Items"]], want, cond)

    def test_pagination_key_has_index_and_table_keys(self):
        seen, esk = [], None
        while True:
            kw = {"Limit": 5}
            if esk:
                kw["ExclusiveStartKey"] = esk
            r = self.q("gall", "g = :g", {":g": S("Q")}, **kw)
            seen += self.keys(r)
            esk = r.get("LastEvaluatedKey")
            if esk is None:
                break
            self.assertEqual(set(esk), {"pk", "sk", "g", "n"})
        self.assertEqual(len(seen), 12)
        self.assertEqual(len(set(seen)), 12)

    def test_keys_only_projection(self):
        r = self.q("gkeys", "g = :g", {":g": S("Q")}, Limit=1)
        self.assertEqual(set(r["Items"][0]), {"pk", "sk", "g"})

    def test_lsi_projection_and_fetch(self):
        r = self.q("linc", "pk = :p AND n = :n", {":p": S("qa"),
                                                   ":n": N("0")})
        self.assertEqual(self.keys(r), [("qa", "0"), ("qa", "3")])
        self.assertEqual(set(r["Items"][0]), {"pk", "sk", "n", "x"})
        r = self.q("linc", "pk = :p AND n = :n", {":p": S("qa"),
                                                   ":n": N("0")},
                   Select="ALL_ATTRIBUTES", ReturnConsumedCapacity="INDEXES")
        self.assertEqual(r["Items"][0]["y"], S("y"))
        self.assertIn("linc", r["ConsumedCapacity"]["LocalSecondaryIndexes"])

    # A filter on an index may use only what the index stores, even with
    # Select ALL_ATTRIBUTES on an LSI (the Alternator suite's test_lsi.py,
    # run against DynamoDB); DynamoDB's message for a KEYS_ONLY GSI,
    # quoted in sensedeep/dynamodb-onetable issue 377 (2022-07).
    UNPROJECTED = ("One or more parameter values were invalid: Secondary "
                   "index %s does not project one or more filter "
                   "attributes: [%s]")

    def test_lsi_filter_on_unprojected_attribute(self):
        for kw in ({}, {"Select": "ALL_ATTRIBUTES"},
                   {"ProjectionExpression": "y"}):
            self.assertValidation(
                self.q, self.UNPROJECTED % ("linc", "y"), index="linc",
                cond="pk = :p", values={":p": S("qa"), ":y": S("y")},
                FilterExpression="y = :y", **kw)
        self.assertValidation(
            self.q, self.UNPROJECTED % ("linc", "y, pk2"), index="linc",
            cond="pk = :p", values={":p": S("qa"), ":y": S("y")},
            FilterExpression="y = :y OR attribute_exists(pk2.a) OR y = :y")
        self.assertValidation(
            self.c.scan, self.UNPROJECTED % ("gkeys", "n"), TableName=self.t,
            IndexName="gkeys", ScanFilter={"n": {
                "ComparisonOperator": "NOT_NULL"}})

    def test_lsi_filter_then_fetch(self):
        # The filter runs on the index rows (all it names is stored), so
        # only the items it kept are fetched from the table and paid for:
        # 2 rows of 6 here, each under 1 KB: 0.5 + 0.5 units.
        r = self.q("linc", "pk = :p", {":p": S("qa"), ":x": S("x0"),
                                       ":z": S("x3")},
                   FilterExpression="x = :x OR x = :z",
                   ProjectionExpression="y, sk", ReturnConsumedCapacity="INDEXES")
        self.assertEqual(r["Items"], [{"sk": S("0"), "y": S("y")},
                                      {"sk": S("3"), "y": S("y")}])
        self.assertEqual((r["Count"], r["ScannedCount"]), (2, 6))
        cc = r["ConsumedCapacity"]
        self.assertEqual(cc["Table"], {"CapacityUnits": 0.5})
        # Projected attributes only: no fetch at all.
        r = self.q("linc", "pk = :p", {":p": S("qa"), ":x": S("x0")},
                   FilterExpression="x = :x", ProjectionExpression="x, n",
                   ReturnConsumedCapacity="INDEXES")
        self.assertEqual(r["Items"], [{"n": N("0"), "x": S("x0")}])
        self.assertEqual(r["ConsumedCapacity"]["Table"],
                         {"CapacityUnits": 0.0})

    def test_gsi_filter_on_unprojected_attribute(self):
        self.assertValidation(
            self.q, self.UNPROJECTED % ("gkeys", "x"), index="gkeys",
            cond="g = :g", values={":g": S("Q"), ":x": S("x0")},
            FilterExpression="x = :x")

    def test_gsi_projection_of_unprojected_attribute(self):
        # A GSI cannot fetch from the table: DynamoDB refuses to project
        # what it does not store (its reply quoted in localstack/localstack
        # issue 478, 2017); keys are always there.
        msg = ("One or more parameter values were invalid: Global "
               "secondary index gkeys does not project [%s]")
        self.assertValidation(self.q, msg % "x, y", index="gkeys",
                              cond="g = :g", values={":g": S("Q")},
                              ProjectionExpression="pk, x, y.z")
        self.assertValidation(
            self.c.query, msg % "n", TableName=self.t, IndexName="gkeys",
            KeyConditions={"g": {"ComparisonOperator": "EQ",
                                 "AttributeValueList": [S("Q")]}},
            AttributesToGet=["sk", "n"])
        self.assertValidation(self.c.scan, msg % "x", TableName=self.t,
                              IndexName="gkeys", ProjectionExpression="x")
        r = self.q("gkeys", "g = :g", {":g": S("Q")},
                   ProjectionExpression="sk, g", Limit=1)
        self.assertEqual(set(r["Items"][0]), {"sk", "g"})

    def test_consistent_read_on_gsi(self):
        self.assertValidation(
            self.q, "Consistent reads are not supported on global secondary "
            "indexes", index="gall", cond="g = :g", values={":g": S("Q")},
            ConsistentRead=True)

    def test_select_all_attributes_on_keys_only_gsi(self):
        self.assertValidation(
            self.q, "One or more parameter values were invalid: Select type "
            "ALL_ATTRIBUTES is not supported for global secondary index "
            "gkeys because its projection type is not ALL", index="gkeys",
            cond="g = :g", values={":g": S("Q")}, Select="ALL_ATTRIBUTES")

    def test_unknown_index(self):
        self.assertValidation(
            self.q, "The table does not have the specified index: nope",
            index="nope", cond="g = :g", values={":g": S("Q")})

    def test_read_capacity_per_index(self):
        r = self.q("gall", "g = :g", {":g": S("Q")},
                   ReturnConsumedCapacity="INDEXES")
        cc = r["ConsumedCapacity"]
        self.assertEqual(cc["GlobalSecondaryIndexes"],
                         {"gall": {"CapacityUnits": 0.5}})
        self.assertEqual(cc["CapacityUnits"], 0.5)

    def test_scan_index_pages(self):
        seen, esk = 0, None
        while True:
            kw = {"Limit": 4}
            if esk:
                kw["ExclusiveStartKey"] = esk
            r = self.c.scan(TableName=self.t, IndexName="gkeys", **kw)
            seen += r["Count"]
            esk = r.get("LastEvaluatedKey")
            if esk is None:
                break
        total = self.c.scan(TableName=self.t, IndexName="gkeys")["Count"]
        self.assertEqual(seen, total)
        self.assertGreaterEqual(total, 12)


class ConcurrentWritesTest(E2ECase):

    def test_index_matches_table_after_racing_writes(self):
        name = self.make_table(
            hash_key=("pk", "S"),
            AttributeDefinitions=[attr("pk", "S"), attr("g", "S")],
            GlobalSecondaryIndexes=[gsi("byg", "g")])
        errors = []

        def work(seed):
            r, c = random.Random(seed), client()
            for i in range(60):
                k, op = {"pk": S("k%d" % r.randrange(4))}, r.randrange(3)
                g = S("G%d" % r.randrange(3))
                try:
                    if op == 0:
                        c.put_item(TableName=name,
                                   Item=dict(k, g=g, v=N(str(i))))
                    elif op == 1:
                        c.update_item(TableName=name, Key=k,
                                      UpdateExpression="SET g = :g",
                                      ExpressionAttributeValues={":g": g})
                    else:
                        c.delete_item(TableName=name, Key=k)
                except Exception as e:              # reported below
                    errors.append(e)

        threads = [threading.Thread(target=work, args=(s,))
                   for s in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(errors, [])
        items = {i["pk"]["S"]: i for i in self.c.scan(TableName=name)["Items"]}
        rows = self.c.scan(TableName=name, IndexName="byg")["Items"]
        self.assertEqual(sorted(r["pk"]["S"] for r in rows), sorted(items))
        for r in rows:
            self.assertEqual(r, items[r["pk"]["S"]])


class UpdateTableIndexTest(E2ECase):

    def test_create_backfill_and_delete(self):
        name = self.make_table(hash_key=("pk", "S"))
        for i in range(40):
            item = {"pk": S("k%d" % i)}
            if i % 2 == 0:
                item["st"] = S("PENDING" if i % 4 == 0 else "DONE")
            self.c.put_item(TableName=name, Item=item)
        r = self.c.update_table(
            TableName=name, AttributeDefinitions=[attr("st", "S")],
            GlobalSecondaryIndexUpdates=[{"Create": gsi("bystatus", "st",
                                                        proj="KEYS_ONLY")}])
        (g,) = r["TableDescription"]["GlobalSecondaryIndexes"]
        self.assertEqual(g["IndexName"], "bystatus")
        wait_active(self.c, name)
        (g,) = self.c.describe_table(TableName=name)["Table"][
            "GlobalSecondaryIndexes"]
        self.assertEqual(g["IndexStatus"], "ACTIVE")
        self.assertEqual(g["ItemCount"], 20)
        r = self.c.query(TableName=name, IndexName="bystatus",
                         KeyConditionExpression="st = :s",
                         ExpressionAttributeValues={":s": S("PENDING")})
        self.assertEqual(r["Count"], 10)
        self.assertValidation(
            self.c.update_table, "Attempting to create an index which "
            "already exists", TableName=name,
            AttributeDefinitions=[attr("st", "S")],
            GlobalSecondaryIndexUpdates=[{"Create": gsi("bystatus", "st")}])
        self.c.update_table(TableName=name, GlobalSecondaryIndexUpdates=[
            {"Delete": {"IndexName": "bystatus"}}])
        wait_active(self.c, name)
        t = self.c.describe_table(TableName=name)["Table"]
        self.assertNotIn("GlobalSecondaryIndexes", t)
        self.assertEqual(t["AttributeDefinitions"], [attr("pk", "S")])

    def test_billing_mode_switch_needs_gsi_throughput(self):
        name = self.make_table(
            hash_key=("pk", "S"),
            AttributeDefinitions=[attr("pk", "S"), attr("g", "S")],
            GlobalSecondaryIndexes=[gsi("byg", "g")])
        pt = {"ReadCapacityUnits": 2, "WriteCapacityUnits": 3}
        self.assertValidation(
            self.c.update_table, "One or more parameter values were "
            "invalid: ProvisionedThroughput must be specified for index: byg",
            TableName=name, BillingMode="PROVISIONED",
            ProvisionedThroughput=pt)
        r = self.c.update_table(
            TableName=name, BillingMode="PROVISIONED",
            ProvisionedThroughput=pt, GlobalSecondaryIndexUpdates=[
                {"Update": {"IndexName": "byg",
                            "ProvisionedThroughput": pt}}])
        (g,) = r["TableDescription"]["GlobalSecondaryIndexes"]
        self.assertEqual(g["ProvisionedThroughput"]["WriteCapacityUnits"], 3)

    def test_delete_unknown_index(self):
        name = self.make_table(hash_key=("pk", "S"))
        self.assertError(
            self.c.update_table, "ResourceNotFoundException",
            TableName=name,
            GlobalSecondaryIndexUpdates=[{"Delete": {"IndexName": "nope"}}])

    def test_update_gsi_throughput(self):
        name = self.make_table(
            on_demand=False, rcu=5, wcu=5,
            AttributeDefinitions=[attr("pk", "S"), attr("g", "S")],
            GlobalSecondaryIndexes=[gsi("ggg", "g", pt=(1, 1))])
        self.c.update_table(TableName=name, GlobalSecondaryIndexUpdates=[
            {"Update": {"IndexName": "ggg", "ProvisionedThroughput": {
                "ReadCapacityUnits": 7, "WriteCapacityUnits": 8}}}])
        wait_active(self.c, name)
        (g,) = self.c.describe_table(TableName=name)["Table"][
            "GlobalSecondaryIndexes"]
        self.assertEqual(g["ProvisionedThroughput"]["ReadCapacityUnits"], 7)
        self.assertEqual(g["ProvisionedThroughput"]["WriteCapacityUnits"], 8)


if __name__ == "__main__":
    unittest.main()
