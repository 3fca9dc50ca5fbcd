# SPDX-License-Identifier: MIT
# test_ttl.py - UpdateTimeToLive and DescribeTimeToLive with boto3: the
# setting, its echo, DynamoDB's messages for a no-op re-send, another
# attribute, the cooldown, a missing table and bad input (DDB-TABLE-442:
# ack-api-quirks' catalogue of DynamoDB's ValidationException texts,
# recorded 2026-10; nubo-db/dynamodb-conformance tier2/ttl/basic.test.ts).
# The sweep that deletes expired items: test_streams_clock.py.
from e2e_common import E2ECase, unique_name


class TimeToLiveTest(E2ECase):

    def spec(self, enabled, attr="ttl"):
        return {"Enabled": enabled, "AttributeName": attr}

    def test_enable_and_describe(self):
        name = self.make_table("ttl")
        d = self.c.describe_time_to_live(TableName=name)
        self.assertEqual(d["TimeToLiveDescription"],
                         {"TimeToLiveStatus": "DISABLED"})
        r = self.c.update_time_to_live(TableName=name,
                                       TimeToLiveSpecification=self.spec(
                                           True, "expiresAt"))
        self.assertEqual(r["TimeToLiveSpecification"],
                         {"Enabled": True, "AttributeName": "expiresAt"})
        d = self.c.describe_time_to_live(TableName=name)
        self.assertEqual(d["TimeToLiveDescription"],
                         {"TimeToLiveStatus": "ENABLED",
                          "AttributeName": "expiresAt"})
        # DescribeTable does not show TTL
        t = self.c.describe_table(TableName=name)["Table"]
        self.assertFalse([k for k in t if "TimeToLive" in k])

    def test_messages(self):
        name = self.make_table("ttl")
        up = self.c.update_time_to_live
        up(TableName=name, TimeToLiveSpecification=self.spec(True))
        self.assertValidation(up, "TimeToLive is already enabled",
                              TableName=name,
                              TimeToLiveSpecification=self.spec(True))
        self.assertValidation(up, "TimeToLive is active on a different "
                              "AttributeName: current AttributeName is ttl",
                              TableName=name,
                              TimeToLiveSpecification=self.spec(True,
                                                                "other"))
        self.assertValidation(up, "Time to live has been modified multiple "
                              "times within a fixed interval",
                              TableName=name,
                              TimeToLiveSpecification=self.spec(False))
        other = self.make_table("ttl")
        self.assertValidation(up, "TimeToLive is already disabled",
                              TableName=other,
                              TimeToLiveSpecification=self.spec(False))

    def test_missing_table(self):
        # (an empty AttributeName, which boto3 refuses before sending, is
        # in js/streams.test.mjs)
        missing = unique_name("nosuch")
        msg = "Requested resource not found: Table: %s not found" % missing
        self.assertError(self.c.update_time_to_live,
                         "ResourceNotFoundException", msg, TableName=missing,
                         TimeToLiveSpecification=self.spec(True))
        self.assertError(self.c.describe_time_to_live,
                         "ResourceNotFoundException", msg, TableName=missing)
