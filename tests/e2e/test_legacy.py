# SPDX-License-Identifier: MIT
# test_legacy.py - the pre-expression API: KeyConditions, QueryFilter,
# ScanFilter, ConditionalOperator, Expected, AttributesToGet.
import unittest

from e2e_common import E2ECase, dynalite_differs


def cond(op, *values):
    return {"ComparisonOperator": op, "AttributeValueList": list(values)}


class LegacyTest(E2ECase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.t = cls.make_table(hash_key=("pk", "S"), range_key=("sk", "N"))
        for i in range(8):
            item = {"pk": {"S": "p"}, "sk": {"N": str(i)},
                    "tag": {"S": "even" if i % 2 == 0 else "odd"},
                    "name": {"S": "item%d" % i}}
            if i < 3:
                item["opt"] = {"N": str(i)}
            cls.c.put_item(TableName=cls.t, Item=item)

    def sks(self, r):
        return [int(it["sk"]["N"]) for it in r["Items"]]

    def test_key_conditions(self):
        cases = [
            ({"pk": cond("EQ", {"S": "p"})}, list(range(8))),
            ({"pk": cond("EQ", {"S": "p"}), "sk": cond("LT", {"N": "2"})},
             [0, 1]),
            ({"pk": cond("EQ", {"S": "p"}), "sk": cond("GE", {"N": "6"})},
             [6, 7]),
            ({"pk": cond("EQ", {"S": "p"}),
              "sk": cond("BETWEEN", {"N": "2"}, {"N": "4"})}, [2, 3, 4]),
        ]
        for kc, want in cases:
            with self.subTest(kc=kc):
                r = self.c.query(TableName=self.t, KeyConditions=kc)
                self.assertEqual(self.sks(r), want)

    def test_query_filter_and_attributes_to_get(self):
        r = self.c.query(TableName=self.t,
                         KeyConditions={"pk": cond("EQ", {"S": "p"})},
                         QueryFilter={"tag": cond("EQ", {"S": "odd"}),
                                      "opt": cond("NOT_NULL")},
                         AttributesToGet=["sk", "name"])
        self.assertEqual(r["Items"], [{"sk": {"N": "1"},
                                       "name": {"S": "item1"}}])
        self.assertEqual(r["ScannedCount"], 8)

    @dynalite_differs("ConditionalOperator OR stops at the first false")
    def test_query_filter_or(self):
        r = self.c.query(TableName=self.t,
                         KeyConditions={"pk": cond("EQ", {"S": "p"})},
                         QueryFilter={"tag": cond("EQ", {"S": "odd"}),
                                      "opt": cond("NOT_NULL")},
                         ConditionalOperator="OR")
        self.assertEqual(self.sks(r), [0, 1, 2, 3, 5, 7])

    def test_scan_filter(self):
        r = self.c.scan(TableName=self.t,
                        ScanFilter={"name": cond("BEGINS_WITH",
                                                 {"S": "item"}),
                                    "sk": cond("IN", {"N": "3"}, {"N": "5"},
                                               {"N": "99"})})
        self.assertEqual(sorted(self.sks(r)), [3, 5])
        r = self.c.scan(TableName=self.t,
                        ScanFilter={"opt": cond("NULL")})
        self.assertEqual(sorted(self.sks(r)), [3, 4, 5, 6, 7])
        r = self.c.scan(TableName=self.t,
                        ScanFilter={"name": cond("CONTAINS", {"S": "m7"})})
        self.assertEqual(self.sks(r), [7])

    # A legacy IN takes tens of thousands of values: the recording
    # of DynamoDB accepts at least 27,500 in ScanFilter and QueryFilter
    # (issue 18); the 100-operand limit is FilterExpression's own (the
    # developer guide's expression limits). Strings, numbers and binaries
    # each match by value.
    def test_long_in_lists(self):
        nums = [{"N": str(i * 7)} for i in range(27500)]
        nums[12345] = {"N": "5.0"}                 # equal to 5
        r = self.c.scan(TableName=self.t,
                        ScanFilter={"sk": cond("IN", *nums)})
        self.assertEqual(sorted(self.sks(r)), [0, 5, 7])
        names = [{"S": "name%d" % i} for i in range(30000)]
        names.append({"S": "item6"})
        r = self.c.query(TableName=self.t,
                         KeyConditions={"pk": cond("EQ", {"S": "p"})},
                         QueryFilter={"name": cond("IN", *names)})
        self.assertEqual(self.sks(r), [6])
        r = self.c.scan(TableName=self.t, ScanFilter={"tag": cond(
            "IN", *[{"B": b"%d" % i} for i in range(28000)])})
        self.assertEqual(r["Items"], [])
        with self.assertRaises(self.c.exceptions.ClientError) as cm:
            self.c.scan(TableName=self.t, FilterExpression="sk IN (%s)" %
                        ", ".join(":v%d" % i for i in range(100)),
                        ExpressionAttributeValues={
                            ":v%d" % i: {"N": str(i)} for i in range(100)})
        self.assertEqual(cm.exception.response["Error"]["Message"],
                         "Invalid FilterExpression: The IN operator is "
                         "provided with too many operands; number of "
                         "operands: 101")

    @dynalite_differs("ConditionalOperator OR stops at the first false")
    def test_expected_conditional_operator(self):
        key = {"pk": {"S": "p"}, "sk": {"N": "0"}}
        self.c.update_item(TableName=self.t, Key=key,
                           AttributeUpdates={"x": {"Action": "PUT",
                                                   "Value": {"N": "1"}}},
                           Expected={"tag": {"Value": {"S": "nope"}},
                                     "opt": {"Exists": True,
                                             "Value": {"N": "0"}}},
                           ConditionalOperator="OR")
        ccf = self.c.exceptions.ConditionalCheckFailedException
        with self.assertRaises(ccf):
            self.c.delete_item(TableName=self.t, Key=key,
                               Expected={"tag": {"Value": {"S": "nope"}},
                                         "opt": {"Exists": True,
                                                 "Value": {"N": "0"}}},
                               ConditionalOperator="AND")

    def test_legacy_errors(self):
        self.assertValidation(
            self.c.query, "One or more parameter values were invalid: "
            "Invalid number of argument(s) for the EQ ComparisonOperator",
            TableName=self.t, KeyConditions={"pk": cond("EQ")})
        self.assertValidation(
            self.c.query, "Attempted conditional constraint is not an "
            "indexable operation", TableName=self.t,
            KeyConditions={"pk": cond("EQ", {"S": "p"}),
                           "sk": cond("NE", {"N": "1"})})
        self.assertValidation(
            self.c.scan, "ExpressionAttributeValues can only be specified "
            "when using expressions: FilterExpression is null",
            TableName=self.t, ScanFilter={"tag": cond("NOT_NULL")},
            ExpressionAttributeValues={":a": {"S": "x"}})


if __name__ == "__main__":
    unittest.main()
