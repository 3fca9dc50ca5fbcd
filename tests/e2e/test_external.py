# SPDX-License-Identifier: MIT
# test_external.py - what needs other regions or services, with boto3:
# legacy global tables (version 2017.11.29), replicas in UpdateTable
# (version 2019.11.21), replica auto scaling and Kinesis streaming
# destinations. Describe and List answer what DynamoDB answers for a table
# without them; what would set one up is a ValidationException saying it
# is not supported locally (or DynamoDB's own refusal where DynamoDB
# refuses it too). Expected answers: ack-api-quirks' recordings
# (DDB-GLOBALTABLE-001..004, DDB-TABLE-070, -231, -234, -299, -302, -442,
# 2026-10).
from e2e_common import E2ECase, unique_name
from test_batch import unvalidated_client

LEGACY = ("One or more parameter values were invalid: DynamoDB global "
          "tables version 2017.11.29 is not supported. We recommend using "
          "DynamoDB global tables version 2019.11.21, instead of version "
          "2017.11.29 (Legacy).")


class TestLegacyGlobalTables(E2ECase):
    """DDB-GLOBALTABLE-001..004: the 2017.11.29 calls."""

    def test_create_and_update_are_refused(self):
        t = self.make_table("gt")
        self.assertValidation(self.c.create_global_table, LEGACY,
                              GlobalTableName=t,
                              ReplicationGroup=[{"RegionName": "us-east-1"}])
        self.assertValidation(self.c.update_global_table, LEGACY,
                              GlobalTableName=t, ReplicaUpdates=[
                                  {"Create": {"RegionName": "us-west-2"}}])
        self.assertError(self.c.update_global_table,
                         "GlobalTableNotFoundException",
                         "Global table with name: '%s' does not exist." % t,
                         GlobalTableName=t, ReplicaUpdates=[
                             {"Delete": {"RegionName": "us-west-2"}}])

    def test_describe_and_list(self):
        t = self.make_table("gt")
        for fn in (self.c.describe_global_table,
                   self.c.describe_global_table_settings):
            # a regional table and a missing name alike (-001)
            for name in (t, unique_name("nogt")):
                self.assertError(fn, "GlobalTableNotFoundException",
                                 "Global table with name: '%s' does not "
                                 "exist." % name, GlobalTableName=name)
        self.assertError(self.c.update_global_table_settings,
                         "GlobalTableNotFoundException",
                         GlobalTableName=t,
                         GlobalTableProvisionedWriteCapacityUnits=5)
        self.assertEqual(self.c.list_global_tables()["GlobalTables"], [])
        self.assertEqual(self.c.list_global_tables(
            RegionName="eu-west-1")["GlobalTables"], [])
        # a RegionName that is no region: DynamoDB's HTTP 500 (-004)
        self.assertError(self.c.list_global_tables, "InternalServerError",
                         RegionName="mars-north-1")

    def test_name_checks(self):
        raw = unvalidated_client()
        self.assertValidation(raw.describe_global_table,
                              "TableName must be at least 3 characters "
                              "long and at most 255 characters long",
                              GlobalTableName="")
        self.assertValidation(raw.describe_global_table,
                              "1 validation error detected: Value 'a b' at "
                              "'globalTableName' failed to satisfy "
                              "constraint: Member must satisfy regular "
                              "expression pattern: [a-zA-Z0-9_.-]+",
                              GlobalTableName="a b")


class TestReplicas(E2ECase):
    """Version 2019.11.21: replicas are made by UpdateTable."""

    def test_replica_updates_refused(self):
        t = self.make_table("rep")
        e = self.assertValidation(self.c.update_table, TableName=t,
                                  ReplicaUpdates=[{"Create": {
                                      "RegionName": "us-west-2"}}])
        msg = e.response["Error"]["Message"]
        self.assertIn("global tables are not supported locally", msg)
        self.assertIn("ReplicaUpdates", msg)
        d = self.c.describe_table(TableName=t)["Table"]
        self.assertNotIn("Replicas", d)
        self.assertNotIn("GlobalTableVersion", d)


class TestReplicaAutoScaling(E2ECase):
    """DDB-TABLE-070, -231: a regional table and a missing one alike."""

    def test_describe_and_update(self):
        t = self.make_table("ras")
        for name in (t, unique_name("noras")):
            self.assertError(self.c.describe_table_replica_auto_scaling,
                             "ResourceNotFoundException",
                             "Global table with name: '%s' does not exist."
                             % name, TableName=name)
        self.assertError(self.c.update_table_replica_auto_scaling,
                         "ResourceNotFoundException",
                         "Global table with name: '%s' does not exist." % t,
                         TableName=t,
                         ProvisionedWriteCapacityAutoScalingUpdate={
                             "MinimumUnits": 1, "MaximumUnits": 10})


class TestKinesis(E2ECase):
    """DDB-TABLE-234, -299, -302, -442."""

    STREAM = "arn:aws:kinesis:us-east-1:000000000000:stream/s1"

    def test_describe_none(self):
        t = self.make_table("kin")
        r = self.c.describe_kinesis_streaming_destination(TableName=t)
        self.assertEqual(r["TableName"], t)
        self.assertEqual(r["KinesisDataStreamDestinations"], [])
        missing = unique_name("nokin")
        self.assertError(self.c.describe_kinesis_streaming_destination,
                         "ResourceNotFoundException",
                         "Requested resource not found: Table: %s not found"
                         % missing, TableName=missing)

    def test_enable_refused_disable_update_nothing_active(self):
        t = self.make_table("kin")
        e = self.assertValidation(
            self.c.enable_kinesis_streaming_destination, TableName=t,
            StreamArn=self.STREAM)
        self.assertIn("not supported locally", e.response["Error"][
            "Message"])
        self.assertEqual(self.c.describe_kinesis_streaming_destination(
            TableName=t)["KinesisDataStreamDestinations"], [])
        self.assertValidation(
            self.c.disable_kinesis_streaming_destination,
            "Table is not in a valid state to enable Kinesis Streaming "
            "Destination: KinesisStreamingDestination must be ACTIVE to "
            "perform DISABLE operation.", TableName=t, StreamArn=self.STREAM)
        if not hasattr(self.c, "update_kinesis_streaming_destination"):
            return                          # an older botocore
        self.assertValidation(
            self.c.update_kinesis_streaming_destination,
            "Table is not in a valid state to enable Kinesis Streaming "
            "Destination: Kinesis streaming is not in ACTIVE state. Updates "
            "are only allowed in ACTIVE state. TableName: %s, kdsArn: %s"
            % (t, self.STREAM), TableName=t, StreamArn=self.STREAM,
            UpdateKinesisStreamingConfiguration={
                "ApproximateCreationDateTimePrecision": "MICROSECOND"})
        self.assertValidation(
            self.c.update_kinesis_streaming_destination,
            "Streaming destination cannot be updated with given parameters: "
            "UpdateKinesisStreamingConfiguration cannot be null or contain "
            "only null values", TableName=t, StreamArn=self.STREAM,
            UpdateKinesisStreamingConfiguration={})
