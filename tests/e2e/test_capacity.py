# SPDX-License-Identifier: MIT
# test_capacity.py - ReturnConsumedCapacity values (throttling.md sections
# 2-3): 1 KB writes, 4 KB reads, eventually consistent halves, Query sums
# the sizes and rounds once.
import unittest

from e2e_common import ON_DYNALITE, E2ECase


def item_of_size(pk, size):
    """An item of exactly `size` bytes: names plus values, UTF-8."""
    base = len("pk") + len(pk) + len("d")
    return {"pk": {"S": pk}, "d": {"S": "x" * (size - base)}}


class CapacityTest(E2ECase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.t = cls.make_table(hash_key=("pk", "S"))
        cls.tq = cls.make_table(hash_key=("pk", "S"), range_key=("sk", "N"))

    def cap(self, resp):
        cc = resp["ConsumedCapacity"]
        self.assertEqual(cc["TableName"], self.t)
        return cc["CapacityUnits"]

    def put(self, item):
        return self.cap(self.c.put_item(TableName=self.t, Item=item,
                                        ReturnConsumedCapacity="TOTAL"))

    def test_none_by_default(self):
        r = self.c.put_item(TableName=self.t, Item={"pk": {"S": "none"}})
        self.assertNotIn("ConsumedCapacity", r)
        r = self.c.put_item(TableName=self.t, Item={"pk": {"S": "none"}},
                            ReturnConsumedCapacity="NONE")
        self.assertNotIn("ConsumedCapacity", r)

    def test_write_units(self):
        self.assertEqual(self.put({"pk": {"S": "small"}}), 1.0)
        self.assertEqual(self.put(item_of_size("w1", 1024)), 1.0)
        self.assertEqual(self.put(item_of_size("w2", 1025)), 2.0)
        self.assertEqual(self.put(item_of_size("w3", 10 * 1024)), 10.0)
        # Overwriting a big item with a small one costs the larger size.
        self.assertEqual(self.put({"pk": {"S": "w3"}}), 10.0)
        # A delete costs the size of the item it removes.
        self.assertEqual(self.put(item_of_size("w4", 5 * 1024)), 5.0)
        self.assertEqual(self.cap(self.c.delete_item(
            TableName=self.t, Key={"pk": {"S": "w4"}},
            ReturnConsumedCapacity="TOTAL")), 5.0)

    def test_size_of_numbers_lists_maps(self):
        # Each case: extra attributes and their size in bytes (names
        # included) per throttling.md section 2. The item is padded to
        # exactly 1024 bytes (1 WCU), then to 1025 (2 WCU).
        cases = [
            ({"n": {"N": "123456"}}, 1 + 4),            # 1 + ceil(6/2)
            ({"n": {"N": "-1234.5"}}, 1 + 5),           # 1 + 2 + 1 + 1
            ({"b": {"BOOL": True}, "z": {"NULL": True}}, 2 + 2),
            ({"m": {"M": {"a": {"S": "x"}}}}, 1 + 3 + 1 + 2),
            ({"l": {"L": [{"S": "xy"}, {"N": "12"}]}}, 1 + 3 + 2 + 2 + 2),
            ({"bin": {"B": b"\x00\x01\x02"}}, 3 + 3),
            ({"ss": {"SS": ["ab", "c"]}}, 2 + 3),
        ]
        for i, (attrs, weight) in enumerate(cases):
            pk = "sz%02d" % i
            fixed = len("pk") + len(pk) + weight + len("d")
            for total, want in ((1024, 1.0), (1025, 2.0)):
                with self.subTest(attrs=attrs, total=total):
                    item = dict(attrs)
                    item["pk"] = {"S": pk}
                    item["d"] = {"S": "x" * (total - fixed)}
                    # Delete first: a put costs the larger of old and new.
                    self.c.delete_item(TableName=self.t,
                                       Key={"pk": {"S": pk}})
                    self.assertEqual(self.put(item), want)

    def test_item_size_limit_boundary(self):
        self.put(item_of_size("lim_ok", 409600))
        self.assertValidation(
            self.put, "Item size has exceeded the maximum allowed size",
            item=item_of_size("lim_bad", 409601))

    def test_scan_units(self):
        t = self.make_table(hash_key=("pk", "S"))
        for i in range(4):
            self.c.put_item(TableName=t, Item=item_of_size("s%d" % i, 3000))
        r = self.c.scan(TableName=t, ReturnConsumedCapacity="TOTAL")
        # 12,000 bytes -> 12 KB -> 3 RCU, halved: eventually consistent.
        self.assertEqual(r["ConsumedCapacity"]["CapacityUnits"], 1.5)
        r = self.c.scan(TableName=t, ReturnConsumedCapacity="TOTAL",
                        ConsistentRead=True, FilterExpression="pk = :x",
                        ExpressionAttributeValues={":x": {"S": "none"}})
        self.assertEqual(r["Count"], 0)
        if not ON_DYNALITE:     # dynalite ignores ConsistentRead here
            self.assertEqual(r["ConsumedCapacity"]["CapacityUnits"], 3.0)

    def test_read_units(self):
        self.c.put_item(TableName=self.t, Item=item_of_size("r1", 4096))
        self.c.put_item(TableName=self.t, Item=item_of_size("r2", 4097))
        for key, consistent, want in (("r1", True, 1.0), ("r1", False, 0.5),
                                      ("r2", True, 2.0), ("r2", False, 1.0),
                                      ("missing", True, 1.0),
                                      ("missing", False, 0.5)):
            with self.subTest(key=key, consistent=consistent):
                r = self.c.get_item(TableName=self.t, Key={"pk": {"S": key}},
                                    ConsistentRead=consistent,
                                    ReturnConsumedCapacity="TOTAL")
                self.assertEqual(self.cap(r), want)

    def test_update_and_delete_units(self):
        self.c.put_item(TableName=self.t, Item=item_of_size("ud", 3000))
        r = self.c.update_item(TableName=self.t, Key={"pk": {"S": "ud"}},
                               UpdateExpression="REMOVE d",
                               ReturnConsumedCapacity="TOTAL")
        self.assertEqual(self.cap(r), 3.0)      # the larger, old item
        self.c.put_item(TableName=self.t, Item=item_of_size("ud", 2000))
        r = self.c.delete_item(TableName=self.t, Key={"pk": {"S": "ud"}},
                               ReturnConsumedCapacity="TOTAL")
        self.assertEqual(self.cap(r), 2.0)

    def test_indexes_mode(self):
        r = self.c.put_item(TableName=self.t, Item={"pk": {"S": "ix"}},
                            ReturnConsumedCapacity="INDEXES")
        cc = r["ConsumedCapacity"]
        self.assertEqual(cc["TableName"], self.t)
        self.assertEqual(cc["CapacityUnits"], 1.0)
        self.assertEqual(cc["Table"], {"CapacityUnits": 1.0})
        self.assertNotIn("GlobalSecondaryIndexes", cc)
        self.assertNotIn("ReadCapacityUnits", cc)

    def test_query_sums_then_rounds(self):
        # 10 items of 1000 bytes: 10,000 bytes -> 12 KB -> 3 RCU strongly
        # consistent (per-item rounding would give 10).
        for i in range(10):
            item = {"pk": {"S": "q"}, "sk": {"N": str(i)}}
            pad = 1000 - (2 + 1 + 2 + 2 + 1)     # pk q sk <1 digit> d
            item["d"] = {"S": "x" * pad}
            self.c.put_item(TableName=self.tq, Item=item)
        args = dict(TableName=self.tq, KeyConditionExpression="pk = :p",
                    ExpressionAttributeValues={":p": {"S": "q"}},
                    ReturnConsumedCapacity="TOTAL")
        r = self.c.query(ConsistentRead=True, **args)
        self.assertEqual(r["Count"], 10)
        self.assertEqual(r["ConsumedCapacity"]["CapacityUnits"], 3.0)
        r = self.c.query(**args)
        self.assertEqual(r["ConsumedCapacity"]["CapacityUnits"], 1.5)
        # Select COUNT costs the same as reading the items.
        r = self.c.query(ConsistentRead=True, Select="COUNT", **args)
        self.assertEqual(r["ConsumedCapacity"]["CapacityUnits"], 3.0)
        if ON_DYNALITE:         # dynalite charges 0 for an empty result
            return
        # An empty result still costs the minimum.
        args["ExpressionAttributeValues"] = {":p": {"S": "nothing"}}
        r = self.c.query(ConsistentRead=True, **args)
        self.assertEqual(r["ConsumedCapacity"]["CapacityUnits"], 1.0)


if __name__ == "__main__":
    unittest.main()
