# SPDX-License-Identifier: MIT
# test_query.py - Query (every key condition, ordering, Limit and
# LastEvaluatedKey, paginators, Select COUNT, filters) and Scan (pages,
# parallel segments).
import unittest
import boto3
from botocore.config import Config

from e2e_common import E2ECase, ENDPOINT, REGION

NUM_SKS = ["-5", "-1.5", "0", "2", "10", "100", "1000.25"]       # sorted
STR_SKS = ["B", "a", "ab", "abc", "b", "\u00e9"]                 # UTF-8 order
BIN_SKS = [b"\x00", b"\x01", b"\x7f", b"\x80", b"\xff"]          # unsigned


class QueryTest(E2ECase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.tn = cls.make_table(hash_key=("pk", "S"), range_key=("sk", "N"))
        cls.ts = cls.make_table(hash_key=("pk", "S"), range_key=("sk", "S"))
        cls.tb = cls.make_table(hash_key=("pk", "S"), range_key=("sk", "B"))
        for i, sk in enumerate(NUM_SKS):
            cls.c.put_item(TableName=cls.tn, Item={
                "pk": {"S": "p"}, "sk": {"N": sk}, "i": {"N": str(i)},
                "even": {"BOOL": i % 2 == 0}})
        cls.c.put_item(TableName=cls.tn, Item={"pk": {"S": "other"},
                                               "sk": {"N": "1"}})
        for sk in STR_SKS:
            cls.c.put_item(TableName=cls.ts, Item={"pk": {"S": "p"},
                                                   "sk": {"S": sk}})
        for sk in BIN_SKS:
            cls.c.put_item(TableName=cls.tb, Item={"pk": {"S": "p"},
                                                   "sk": {"B": sk}})
        cls.tp = cls.make_table(hash_key=("pk", "S"), range_key=("sk", "N"))
        for i in range(25):
            cls.c.put_item(TableName=cls.tp, Item={
                "pk": {"S": "p"}, "sk": {"N": str(i)},
                "pad": {"S": "x" * 100}})

    def q(self, table, cond, values, **kw):
        vals = {":p": {"S": "p"}}
        vals.update(values)
        return self.c.query(TableName=table, KeyConditionExpression=cond,
                            ExpressionAttributeValues=vals, **kw)

    def sks(self, resp, t="N"):
        return [it["sk"][t] for it in resp["Items"]]

    def test_hash_only(self):
        r = self.q(self.tn, "pk = :p", {})
        self.assertEqual(self.sks(r), NUM_SKS)
        self.assertEqual(r["Count"], len(NUM_SKS))
        self.assertEqual(r["ScannedCount"], len(NUM_SKS))
        self.assertNotIn("LastEvaluatedKey", r)

    def test_number_operators(self):
        cases = [
            ("sk = :v", {":v": {"N": "2"}}, ["2"]),
            ("sk < :v", {":v": {"N": "0"}}, ["-5", "-1.5"]),
            ("sk <= :v", {":v": {"N": "0"}}, ["-5", "-1.5", "0"]),
            ("sk > :v", {":v": {"N": "10"}}, ["100", "1000.25"]),
            ("sk >= :v", {":v": {"N": "10"}}, ["10", "100", "1000.25"]),
            ("sk BETWEEN :a AND :b", {":a": {"N": "-1.5"}, ":b": {"N": "10"}},
             ["-1.5", "0", "2", "10"]),
            ("sk = :v", {":v": {"N": "3"}}, []),
        ]
        for cond, vals, want in cases:
            with self.subTest(cond=cond):
                r = self.q(self.tn, "pk = :p AND " + cond, vals)
                self.assertEqual(self.sks(r), want)
        # Reversed operands and parentheses are allowed.
        r = self.q(self.tn, "(:p = pk) AND (sk > :v)", {":v": {"N": "100"}})
        self.assertEqual(self.sks(r), ["1000.25"])

    def test_string_order_and_begins_with(self):
        r = self.q(self.ts, "pk = :p", {})
        self.assertEqual(self.sks(r, "S"), STR_SKS)
        r = self.q(self.ts, "pk = :p AND begins_with(sk, :b)",
                   {":b": {"S": "ab"}})
        self.assertEqual(self.sks(r, "S"), ["ab", "abc"])
        r = self.q(self.ts, "pk = :p AND sk BETWEEN :a AND :b",
                   {":a": {"S": "a"}, ":b": {"S": "b"}})
        self.assertEqual(self.sks(r, "S"), ["a", "ab", "abc", "b"])

    def test_binary_order(self):
        r = self.q(self.tb, "pk = :p", {})
        self.assertEqual(self.sks(r, "B"), BIN_SKS)
        r = self.q(self.tb, "pk = :p AND sk > :v", {":v": {"B": b"\x7f"}})
        self.assertEqual(self.sks(r, "B"), [b"\x80", b"\xff"])
        r = self.q(self.tb, "pk = :p AND begins_with(sk, :v)",
                   {":v": {"B": b"\xff"}})
        self.assertEqual(self.sks(r, "B"), [b"\xff"])

    def test_scan_index_forward(self):
        r = self.q(self.tn, "pk = :p", {}, ScanIndexForward=False)
        self.assertEqual(self.sks(r), NUM_SKS[::-1])
        r = self.q(self.tn, "pk = :p", {}, ScanIndexForward=False, Limit=2)
        self.assertEqual(self.sks(r), NUM_SKS[::-1][:2])
        r = self.q(self.tn, "pk = :p", {}, ScanIndexForward=False, Limit=2,
                   ExclusiveStartKey=r["LastEvaluatedKey"])
        self.assertEqual(self.sks(r), NUM_SKS[::-1][2:4])

    def test_projection_keeps_full_last_evaluated_key(self):
        r = self.q(self.tn, "pk = :p", {}, Limit=2, ProjectionExpression="i")
        self.assertEqual(r["Items"], [{"i": {"N": "0"}}, {"i": {"N": "1"}}])
        self.assertEqual(r["LastEvaluatedKey"], {"pk": {"S": "p"},
                                                 "sk": {"N": "-1.5"}})

    def test_names_in_key_condition(self):
        r = self.c.query(TableName=self.tn,
                         KeyConditionExpression="#p = :p AND #s BETWEEN "
                                                ":a AND :b",
                         ExpressionAttributeNames={"#p": "pk", "#s": "sk"},
                         ExpressionAttributeValues={":p": {"S": "p"},
                                                    ":a": {"N": "0"},
                                                    ":b": {"N": "2"}})
        self.assertEqual(self.sks(r), ["0", "2"])

    def test_exclusive_start_key_between_items(self):
        # The start key need not exist: the page resumes after it.
        r = self.q(self.tn, "pk = :p", {}, ExclusiveStartKey={
            "pk": {"S": "p"}, "sk": {"N": "1"}})
        self.assertEqual(self.sks(r), ["2", "10", "100", "1000.25"])
        r = self.q(self.tn, "pk = :p", {}, ScanIndexForward=False,
                   ExclusiveStartKey={"pk": {"S": "p"}, "sk": {"N": "1"}})
        self.assertEqual(self.sks(r), ["0", "-1.5", "-5"])

    def test_limit_pages(self):
        got, start, pages = [], None, 0
        while True:
            kw = {"Limit": 3}
            if start:
                kw["ExclusiveStartKey"] = start
            r = self.q(self.tn, "pk = :p", {}, **kw)
            pages += 1
            got.extend(self.sks(r))
            self.assertLessEqual(r["Count"], 3)
            start = r.get("LastEvaluatedKey")
            if not start:
                break
            self.assertEqual(start, {"pk": {"S": "p"},
                                     "sk": r["Items"][-1]["sk"]})
            self.assertLess(pages, 10)
        self.assertEqual(got, NUM_SKS)
        self.assertEqual(pages, 3)       # 3 + 3 + 1: the last page is short

    def test_paginator(self):
        pag = self.c.get_paginator("query")
        pages = list(pag.paginate(
            TableName=self.tp, KeyConditionExpression="pk = :p",
            ExpressionAttributeValues={":p": {"S": "p"}},
            PaginationConfig={"PageSize": 10}))
        self.assertEqual([p["Count"] for p in pages], [10, 10, 5])
        self.assertNotIn("LastEvaluatedKey", pages[-1])
        sks = [int(it["sk"]["N"]) for p in pages for it in p["Items"]]
        self.assertEqual(sks, list(range(25)))
        # MaxItems trims client-side and hands back a resume token.
        res = pag.paginate(TableName=self.tp, KeyConditionExpression="pk = :p",
                           ExpressionAttributeValues={":p": {"S": "p"}},
                           PaginationConfig={"MaxItems": 7})
        res = res.build_full_result()
        self.assertEqual(len(res["Items"]), 7)
        self.assertIn("NextToken", res)

    def test_select_count(self):
        r = self.q(self.tn, "pk = :p", {}, Select="COUNT")
        self.assertNotIn("Items", r)
        self.assertEqual(r["Count"], len(NUM_SKS))
        self.assertEqual(r["ScannedCount"], len(NUM_SKS))

    def test_filter_counts(self):
        r = self.q(self.tn, "pk = :p", {":t": {"BOOL": True}},
                   FilterExpression="even = :t")
        self.assertEqual(self.sks(r), NUM_SKS[0::2])
        self.assertEqual(r["Count"], 4)
        self.assertEqual(r["ScannedCount"], len(NUM_SKS))
        # Limit counts items read before the filter.
        r = self.q(self.tn, "pk = :p", {":t": {"BOOL": True}},
                   FilterExpression="even = :t", Limit=2)
        self.assertEqual(r["ScannedCount"], 2)
        self.assertEqual(r["Count"], 1)
        self.assertIn("LastEvaluatedKey", r)

    def test_projection(self):
        r = self.q(self.tn, "pk = :p", {":v": {"N": "3"}},
                   ProjectionExpression="i", FilterExpression="i = :v")
        self.assertEqual(r["Items"], [{"i": {"N": "3"}}])

    def test_key_condition_errors(self):
        self.assertValidation(
            self.c.query, "Query condition missed key schema element: pk",
            TableName=self.tn, KeyConditionExpression="sk = :v",
            ExpressionAttributeValues={":v": {"N": "1"}})
        self.assertValidation(
            self.q, "Invalid operator used in KeyConditionExpression: OR",
            table=self.tn, cond="pk = :p OR sk = :v",
            values={":v": {"N": "1"}})
        self.assertValidation(
            self.q, "Query condition missed key schema element: sk",
            table=self.tn, cond="pk = :p AND i = :v",
            values={":v": {"N": "1"}})
        self.assertValidation(
            self.q, "Invalid KeyConditionExpression: Incorrect operand type "
            "for operator or function; operator or function: begins_with, "
            "operand type: N", table=self.tn,
            cond="pk = :p AND begins_with(sk, :v)", values={":v": {"N": "1"}})
        self.assertValidation(
            self.q, "Invalid KeyConditionExpression: Attribute name is a "
            "reserved keyword; reserved keyword: name", table=self.tn,
            cond="pk = :p AND name = :v", values={":v": {"N": "1"}})

    def test_missing_index(self):
        self.assertValidation(
            self.q, "The table does not have the specified index: nosuch",
            table=self.tn, cond="pk = :p", values={}, IndexName="nosuch")

    def test_filter_on_key_rejected(self):
        self.assertValidation(
            self.q, "Filter Expression can only contain non-primary key "
            "attributes: Primary key attribute: sk", table=self.tn,
            cond="pk = :p", values={":v": {"N": "1"}},
            FilterExpression="sk = :v")


class StoredItemsTest(E2ECase):
    """A Query or Scan without a filter or projection sends each item as
    stored, unparsed: every type and awkward string comes back as put, in
    order, across pages, the same as through a projection (which parses
    them), and an empty page still has its Items list."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.t = cls.make_table(hash_key=("pk", "S"), range_key=("sk", "N"))
        cls.items = []
        strings = ["plain", "caf\u00e9 \u20ac \U0001f600", 'q"uote\\back',
                   "tab\tnl\ncr\r\x01\x1f\x7f", "/slash/", "x" * 300, ""]
        for i, s in enumerate(strings):
            item = {"pk": {"S": "p"}, "sk": {"N": str(i)},
                    "s": {"S": s} if s else {"NULL": True},
                    "n": {"N": "-1.5E+%d" % i}, "b": {"B": bytes([i, 0, 255])},
                    "ss": {"SS": [s + "a", s + "b"]}, "ns": {"NS": ["1", "2"]},
                    "bs": {"BS": [b"\x00", bytes([i + 1])]},
                    "m": {"M": {"k\u00e9": {"L": [{"S": s + "!"},
                                                  {"BOOL": i % 2 == 0}]}}},
                    "na\u0000me": {"S": "nul in the name"}}
            cls.c.put_item(TableName=cls.t, Item=item)
            cls.items.append(item)
        cls.c.put_item(TableName=cls.t, Item={"pk": {"S": "other"},
                                              "sk": {"N": "0"}})
        cls.names = sorted(cls.items[0])

    def same_items(self, got, want):
        self.assertEqual(len(got), len(want))
        for g, w in zip(got, want):
            self.assertEqual(set(g), set(w))
            for name in w:
                if name == "n":
                    self.assertEqual(float(g[name]["N"]), float(w[name]["N"]))
                elif name in ("ss", "ns", "bs"):
                    (t, v), = w[name].items()
                    self.assertEqual(sorted(g[name][t]), sorted(v))
                else:
                    self.assertEqual(g[name], w[name], name)

    def pages(self, call, **kw):
        got, start, pages = [], None, 0
        while True:
            args = dict(kw)
            if start:
                args["ExclusiveStartKey"] = start
            r = call(**args)
            self.assertEqual(r["Count"], len(r["Items"]))
            got.extend(r["Items"])
            pages += 1
            start = r.get("LastEvaluatedKey")
            if not start:
                return got, pages
            self.assertLess(pages, 50)

    def query(self, **kw):
        return self.c.query(TableName=self.t, KeyConditionExpression="pk = :p",
                            ExpressionAttributeValues={":p": {"S": "p"}}, **kw)

    def test_query_whole(self):
        r = self.query()
        self.assertEqual(r["Count"], len(self.items))
        self.assertEqual(r["ScannedCount"], len(self.items))
        self.same_items(r["Items"], self.items)

    def test_query_pages_and_reverse(self):
        got, pages = self.pages(self.query, Limit=2)
        self.assertEqual(pages, 4)
        self.same_items(got, self.items)
        got, _ = self.pages(self.query, Limit=3, ScanIndexForward=False)
        self.same_items(got, self.items[::-1])

    def test_same_as_projected(self):
        names = {"#a%d" % i: n for i, n in enumerate(self.names)}
        proj = self.query(ProjectionExpression=", ".join(names),
                          ExpressionAttributeNames=names)
        self.assertEqual(self.query()["Items"], proj["Items"])

    def test_scan_pages(self):
        got, _ = self.pages(lambda **kw: self.c.scan(TableName=self.t, **kw),
                            Limit=3)
        mine = sorted((it for it in got if it["pk"]["S"] == "p"),
                      key=lambda it: float(it["sk"]["N"]))
        self.assertEqual(len(got), len(self.items) + 1)
        self.same_items(mine, self.items)

    def test_empty_page_has_items(self):
        r = self.c.query(TableName=self.t, KeyConditionExpression="pk = :p",
                         ExpressionAttributeValues={":p": {"S": "none"}})
        self.assertEqual((r["Items"], r["Count"], r["ScannedCount"]),
                         ([], 0, 0))


class OneMegabyteTest(E2ECase):
    """A Query or Scan page stops after 1 MB of items read."""
    ITEMS = 30
    SIZE = 100 * 1024

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.t = cls.make_table(hash_key=("pk", "S"), range_key=("sk", "N"))
        # 3,000 write units to one partition key: more than a partition
        # takes in a second, here as in DynamoDB, so load with a client
        # that retries throttled writes.
        loader = boto3.client(
            "dynamodb", endpoint_url=ENDPOINT, region_name=REGION,
            config=Config(retries={"max_attempts": 30, "mode": "legacy"}))
        for i in range(cls.ITEMS):
            loader.put_item(TableName=cls.t, Item={
                "pk": {"S": "big"}, "sk": {"N": str(i)},
                "d": {"S": "x" * cls.SIZE}})

    def check_pages(self, call):
        counts, start = [], None
        while True:
            kw = {"ExclusiveStartKey": start} if start else {}
            r = call(**kw)
            counts.append(r["Count"])
            start = r.get("LastEvaluatedKey")
            if not start:
                break
            self.assertLess(len(counts), 20)
        # About 10 items of 100 KB fit in 1 MB.
        self.assertTrue(9 <= counts[0] <= 11, counts)
        self.assertEqual(sum(counts), self.ITEMS)

    def test_query_pages_at_1mb(self):
        self.check_pages(lambda **kw: self.c.query(
            TableName=self.t, KeyConditionExpression="pk = :p",
            ExpressionAttributeValues={":p": {"S": "big"}}, **kw))

    def test_scan_pages_at_1mb(self):
        self.check_pages(lambda **kw: self.c.scan(TableName=self.t, **kw))

    def test_count_also_pages(self):
        # Select COUNT returns no items, but still reads at most 1 MB.
        r = self.c.query(TableName=self.t, KeyConditionExpression="pk = :p",
                         ExpressionAttributeValues={":p": {"S": "big"}},
                         Select="COUNT")
        self.assertIn("LastEvaluatedKey", r)
        self.assertTrue(9 <= r["Count"] <= 11, r["Count"])


class ScanTest(E2ECase):
    N_ITEMS = 60

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.t = cls.make_table(hash_key=("pk", "S"))
        for i in range(cls.N_ITEMS):
            cls.c.put_item(TableName=cls.t, Item={"pk": {"S": "k%03d" % i},
                                                  "i": {"N": str(i)}})

    def all_keys(self, **kw):
        keys, start = [], None
        for _ in range(1000):
            args = dict(TableName=self.t, **kw)
            if start:
                args["ExclusiveStartKey"] = start
            r = self.c.scan(**args)
            keys.extend(it["pk"]["S"] for it in r["Items"])
            start = r.get("LastEvaluatedKey")
            if not start:
                return keys
        self.fail("scan never ended")

    def test_full_scan(self):
        r = self.c.scan(TableName=self.t)
        self.assertEqual(r["Count"], self.N_ITEMS)
        self.assertEqual(r["ScannedCount"], self.N_ITEMS)
        self.assertNotIn("LastEvaluatedKey", r)

    def test_paginated_scan(self):
        keys = self.all_keys(Limit=7)
        self.assertEqual(sorted(keys), ["k%03d" % i
                                        for i in range(self.N_ITEMS)])
        pages = list(self.c.get_paginator("scan").paginate(
            TableName=self.t, PaginationConfig={"PageSize": 25}))
        self.assertEqual(sum(p["Count"] for p in pages), self.N_ITEMS)
        self.assertNotIn("LastEvaluatedKey", pages[-1])

    def test_parallel_segments(self):
        for total in (1, 3, 4, 7):
            with self.subTest(total=total):
                seen = []
                for seg in range(total):
                    seen.extend(self.all_keys(Segment=seg,
                                              TotalSegments=total, Limit=9))
                self.assertEqual(len(seen), self.N_ITEMS, "duplicates")
                self.assertEqual(sorted(seen), ["k%03d" % i
                                                for i in range(self.N_ITEMS)])

    def test_segment_errors(self):
        self.assertValidation(
            self.c.scan, "The Segment parameter is required but was not "
            "present in the request when parameter TotalSegments is present",
            TableName=self.t, TotalSegments=2)
        self.assertValidation(
            self.c.scan, "The Segment parameter is zero-based and must be "
            "less than parameter TotalSegments: Segment: 2 is not less than "
            "TotalSegments: 2", TableName=self.t, Segment=2, TotalSegments=2)

    def test_scan_filter_and_count(self):
        r = self.c.scan(TableName=self.t, FilterExpression="i < :n",
                        ExpressionAttributeValues={":n": {"N": "10"}},
                        Select="COUNT")
        self.assertEqual(r["Count"], 10)
        self.assertEqual(r["ScannedCount"], self.N_ITEMS)
        self.assertNotIn("Items", r)


if __name__ == "__main__":
    unittest.main()
