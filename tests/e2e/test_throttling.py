# SPDX-License-Identifier: MIT
# test_throttling.py - throttled writes as clients see them (throttling.md
# sections 4-5): a provisioned table past its burst, an on-demand hot key
# past the 1,000 WCU/s partition ceiling. Exact types and messages, HTTP
# 400, nothing written. 100 KB items keep the request count small.
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

    def flood(self, table, key_of, limit):
        """Put BIG items until one is throttled; return (error, key, n)."""
        for i in range(limit):
            key = key_of(i)
            try:
                self.c.put_item(TableName=table, Item={
                    "pk": {"S": key}, "n": {"N": str(i)}, "d": {"S": BIG}})
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
        # One partition key value is capped at 1,000 WCU/s: 40 x 100 WCU
        # as fast as one client can send them must throttle.
        t = self.make_table()
        e, _, n = self.flood(t, lambda i: "hot", 40)
        resp = e.response
        self.assertEqual(resp["Error"]["Code"], THROTTLING, resp["Error"])
        self.assertEqual(resp["Error"]["Message"], THROTTLING_MSG)
        self.assertEqual(resp["ResponseMetadata"]["HTTPStatusCode"], 400)
        self.assertGreaterEqual(n, 1)
        if "throttlingReasons" in resp:          # lower-case t (section 5)
            self.assertEqual(resp["throttlingReasons"][0]["reason"],
                             "TableWriteKeyRangeThroughputExceeded")


if __name__ == "__main__":
    unittest.main()
