# SPDX-License-Identifier: MIT
# test_ttl.py - UpdateTimeToLive and DescribeTimeToLive with boto3: the
# setting, its echo, DynamoDB's messages for a no-op re-send, another
# attribute, the cooldown, a missing table and bad input (DDB-TABLE-442:
# ack-api-quirks' catalogue of DynamoDB's ValidationException texts,
# recorded 2026-10; nubo-db/dynamodb-conformance tier2/ttl/basic.test.ts).
# Alternator's test_update_ttl_errors (scylladb test/alternator/test_ttl.py,
# run against DynamoDB) for the request's shape. The sweep that deletes
# expired items: test_streams_clock.py.
from e2e_common import E2ECase, unique_name
from test_request_messages import raw_client


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

    def test_request_shape(self):
        # Alternator test_update_ttl_errors: AttributeName is 1 to 255
        # characters and both members are required (ValidationException,
        # the validation framework's sentence); a member of the wrong JSON
        # type is DynamoDB's SerializationException (Alternator's note on
        # what DynamoDB answers). Sent unchecked, as JS v3 or raw HTTP can.
        name = self.make_table("ttl")
        u = raw_client()
        pre = "1 validation error detected: Value "
        for spec, msg in (
                ({"AttributeName": "x" * 256, "Enabled": True},
                 "'%s' at 'timeToLiveSpecification.attributeName' failed "
                 "to satisfy constraint: Member must have length less than "
                 "or equal to 255" % ("x" * 256)),
                ({"AttributeName": "", "Enabled": True},
                 "'' at 'timeToLiveSpecification.attributeName' failed to "
                 "satisfy constraint: Member must have length greater than "
                 "or equal to 1"),
                ({"Enabled": True},
                 "null at 'timeToLiveSpecification.attributeName' failed to "
                 "satisfy constraint: Member must not be null"),
                ({"AttributeName": "hello"},
                 "null at 'timeToLiveSpecification.enabled' failed to "
                 "satisfy constraint: Member must not be null")):
            with self.subTest(spec=spec):
                self.assertValidation(u.update_time_to_live, pre + msg,
                                      TableName=name,
                                      TimeToLiveSpecification=spec)
        for spec in ({"AttributeName": "hello", "Enabled": "dog"},
                     {"AttributeName": 3, "Enabled": True}):
            with self.subTest(spec=spec):
                self.assertError(u.update_time_to_live,
                                 "SerializationException", TableName=name,
                                 TimeToLiveSpecification=spec)
        # 255 characters are accepted
        r = u.update_time_to_live(TableName=name, TimeToLiveSpecification={
            "AttributeName": "y" * 255, "Enabled": True})
        self.assertEqual(r["TimeToLiveSpecification"]["AttributeName"],
                         "y" * 255)
