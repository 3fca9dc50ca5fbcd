# SPDX-License-Identifier: MIT
# test_accounts.py - accounts under --auth signature: each access key's
# account sees only its own tables (two accounts may each have a table of
# the same name, with their own items, indexes and idempotency tokens),
# ARNs carry its account id, another account's table is AccessDenied
# without a resource policy, and a data directory written without
# signatures keeps its tables in --account-id's account.
#
# The expected behaviour is DynamoDB's: tables belong to an account and
# region (API reference, "ListTables: Returns an array of table names
# associated with the current account and endpoint"); a table ARN names
# its owner (arn:aws:dynamodb:<region>:<account>:table/<name>); using
# another account's table needs a resource-based policy that allows it
# (developer guide, "Cross-account access with resource-based policies"),
# and IAM's denial reads "User: <principal> is not authorized to perform:
# <action> on resource: <arn> because no resource-based policy allows the
# <action> action" (IAM user guide, "Access denied error messages").
import json
import os
import shutil
import tempfile
import time
import unittest

import boto3

from e2e_common import (BIN, KEYS, REGION, ErrorAsserts, create_table,
                        sanitizer_reports, signed_client, start_private_server,
                        start_signed_server, stop_private_server,
                        stop_temp_server, unique_name, wait_active)
from test_policy import client_knows_policies

ALICE, BOB, DEFAULT = KEYS


def arn(account, table):
    return "arn:aws:dynamodb:%s:%s:table/%s" % (REGION, account, table)


def denied(account, action, resource):
    return ("User: arn:aws:iam::%s:root is not authorized to perform: "
            "dynamodb:%s on resource: %s because no resource-based policy "
            "allows the dynamodb:%s action" % (account, action, resource,
                                               action))


@unittest.skipIf(BIN is None, "needs SHARDLOCAL_BIN (run.sh sets it)")
class Accounts(ErrorAsserts):

    @classmethod
    def setUpClass(cls):
        cls.tmp, cls.proc, cls.url = start_signed_server("sl-accounts-")
        cls.alice = signed_client(cls.url, *ALICE[:2])
        cls.bob = signed_client(cls.url, *BOB[:2])
        cls.default = signed_client(cls.url, *DEFAULT[:2])

    @classmethod
    def tearDownClass(cls):
        reports = sanitizer_reports(cls.tmp)
        stop_temp_server(cls.tmp, cls.proc)
        assert not reports, reports

    def make(self, c, name):
        create_table(c, name, range_key=("sk", "S"),
                     AttributeDefinitions=[
                         {"AttributeName": "pk", "AttributeType": "S"},
                         {"AttributeName": "sk", "AttributeType": "S"},
                         {"AttributeName": "g", "AttributeType": "S"}],
                     GlobalSecondaryIndexes=[{
                         "IndexName": "byg",
                         "KeySchema": [{"AttributeName": "g",
                                        "KeyType": "HASH"}],
                         "Projection": {"ProjectionType": "ALL"}}])

    def test_same_name_in_two_accounts(self):
        name = unique_name("acct")
        for c in (self.alice, self.bob):
            self.make(c, name)
        for c, who in ((self.alice, "alice"), (self.bob, "bob")):
            c.put_item(TableName=name, Item={"pk": {"S": "k"},
                                             "sk": {"S": "1"},
                                             "g": {"S": "G"},
                                             "who": {"S": who}})
        for c, key, who in ((self.alice, ALICE, "alice"),
                            (self.bob, BOB, "bob")):
            with self.subTest(account=key[2]):
                item = c.get_item(TableName=name, Key={
                    "pk": {"S": "k"}, "sk": {"S": "1"}})["Item"]
                self.assertEqual(item["who"], {"S": who})
                scan = c.scan(TableName=name, ReturnConsumedCapacity="TOTAL")
                self.assertEqual([i["who"]["S"] for i in scan["Items"]],
                                 [who])
                self.assertEqual(scan["ConsumedCapacity"]["TableName"], name)
                q = c.query(TableName=name, IndexName="byg",
                            KeyConditionExpression="g = :g",
                            ExpressionAttributeValues={":g": {"S": "G"}})
                self.assertEqual([i["who"]["S"] for i in q["Items"]], [who])
                t = c.describe_table(TableName=name)["Table"]
                self.assertEqual(t["TableName"], name)
                self.assertEqual(t["TableArn"], arn(key[2], name))
                self.assertEqual(t["GlobalSecondaryIndexes"][0]["IndexArn"],
                                 arn(key[2], name) + "/index/byg")
                self.assertEqual(t["ItemCount"], 1)
                self.assertIn(name, c.list_tables()["TableNames"])
        # Batches and transactions stay in the caller's account; a client
        # token is the caller's too.
        b = self.bob.batch_get_item(RequestItems={name: {"Keys": [
            {"pk": {"S": "k"}, "sk": {"S": "1"}}]}})
        self.assertEqual(b["Responses"][name][0]["who"], {"S": "bob"})
        for c, who in ((self.alice, "alice2"), (self.bob, "bob2")):
            r = c.transact_write_items(ClientRequestToken="same-token",
                                       ReturnConsumedCapacity="TOTAL",
                                       TransactItems=[{"Put": {
                                           "TableName": name,
                                           "Item": {"pk": {"S": "t"},
                                                    "sk": {"S": "1"},
                                                    "who": {"S": who}}}}])
            self.assertEqual(r["ConsumedCapacity"][0]["TableName"], name)
        for c, who in ((self.alice, "alice2"), (self.bob, "bob2")):
            item = c.get_item(TableName=name, Key={
                "pk": {"S": "t"}, "sk": {"S": "1"}})["Item"]
            self.assertEqual(item["who"], {"S": who})
        # The account of the server's own --account-id has none of them.
        self.assertNotIn(name, self.default.list_tables()["TableNames"])
        self.assertError(self.default.describe_table, "ResourceNotFoundException",
                        "Requested resource not found: Table: %s not found"
                        % name, TableName=name)
        # Deleting one account's table leaves the other's.
        self.alice.delete_table(TableName=name)
        self.assertNotIn(name, self.alice.list_tables()["TableNames"])
        self.assertEqual(self.bob.describe_table(TableName=name)["Table"]
                         ["ItemCount"], 2)
        self.bob.delete_table(TableName=name)

    def test_list_tables_pages_one_account(self):
        names = sorted(unique_name("pg%d" % i) for i in range(3))
        for n in names:
            create_table(self.alice, n)
        create_table(self.bob, names[1])
        seen, start = [], None
        while True:
            kw = {"Limit": 1}
            if start is not None:
                kw["ExclusiveStartTableName"] = start
            page = self.alice.list_tables(**kw)
            seen += page["TableNames"]
            start = page.get("LastEvaluatedTableName")
            if start is None:
                break
        self.assertEqual([n for n in seen if n in names], names)
        self.assertEqual([n for n in self.bob.list_tables()["TableNames"]
                          if n in names], [names[1]])
        for n in names:
            self.alice.delete_table(TableName=n)
        self.bob.delete_table(TableName=names[1])

    def test_another_accounts_table(self):
        name = unique_name("own")
        create_table(self.alice, name)
        self.alice.put_item(TableName=name, Item={"pk": {"S": "x"}})
        theirs = arn(ALICE[2], name)
        # By ARN, the owner reaches it...
        self.assertIn("Item", self.alice.get_item(TableName=theirs,
                                                  Key={"pk": {"S": "x"}}))
        # ... and another account is denied, whatever the operation.
        self.assertError(self.bob.get_item, "AccessDeniedException",
                        denied(BOB[2], "GetItem", theirs), TableName=theirs,
                        Key={"pk": {"S": "x"}})
        self.assertError(self.bob.describe_table, "AccessDeniedException",
                        denied(BOB[2], "DescribeTable", theirs),
                        TableName=theirs)
        self.assertError(self.bob.delete_table, "AccessDeniedException",
                        denied(BOB[2], "DeleteTable", theirs),
                        TableName=theirs)
        self.assertError(self.default.scan, "AccessDeniedException",
                        denied("000000000000", "Scan", theirs),
                        TableName=theirs)
        # By name, the other account has no such table.
        self.assertError(self.bob.get_item, "ResourceNotFoundException",
                        "Requested resource not found", TableName=name,
                        Key={"pk": {"S": "x"}})
        self.alice.delete_table(TableName=name)

    def put_policy(self, table, *statements):
        doc = {"Version": "2012-10-17", "Statement": list(statements)}
        self.alice.put_resource_policy(ResourceArn=arn(ALICE[2], table),
                                       Policy=json.dumps(doc))

    @unittest.skipUnless(client_knows_policies(),
                         "this boto3 has no resource-policy calls")
    def test_resource_policy_grants_another_account(self):
        # Cross-account access needs an Allow in the table's resource
        # policy naming the caller's account and the action; an explicit
        # Deny wins over any Allow (developer guide, "Cross-account access
        # with resource-based policies in DynamoDB"; IAM user guide,
        # "Policy evaluation logic" and "Access denied error messages":
        # "... with an explicit deny in a resource-based policy").
        name = unique_name("rbp")
        create_table(self.alice, name)
        self.alice.put_item(TableName=name, Item={"pk": {"S": "x"}})
        theirs = arn(ALICE[2], name)
        key = {"pk": {"S": "x"}}
        # No policy: denied.
        self.assertError(self.bob.put_item, "AccessDeniedException",
                         denied(BOB[2], "PutItem", theirs), TableName=theirs,
                         Item={"pk": {"S": "b"}})
        # Allow GetItem and Put* to Bob's account (its id, as a list).
        self.put_policy(name, {
            "Sid": "bob", "Effect": "Allow",
            "Principal": {"AWS": [BOB[2]]},
            "Action": ["dynamodb:GetItem", "dynamodb:Put*"],
            "Resource": theirs})
        self.assertEqual(self.bob.get_item(TableName=theirs, Key=key)
                         ["Item"], key)
        self.bob.put_item(TableName=theirs, Item={"pk": {"S": "b"}})
        self.assertEqual(self.alice.get_item(TableName=name, Key={
            "pk": {"S": "b"}})["Item"], {"pk": {"S": "b"}})
        # An action the policy does not list stays denied...
        self.assertError(self.bob.delete_item, "AccessDeniedException",
                         denied(BOB[2], "DeleteItem", theirs),
                         TableName=theirs, Key=key)
        # ... as does an account it does not name.
        self.assertError(self.default.get_item, "AccessDeniedException",
                         denied("000000000000", "GetItem", theirs),
                         TableName=theirs, Key=key)
        # A Resource that is not this table grants nothing.
        self.put_policy(name, {
            "Effect": "Allow",
            "Principal": {"AWS": "arn:aws:iam::%s:root" % BOB[2]},
            "Action": "dynamodb:*", "Resource": theirs + "-other"})
        self.assertError(self.bob.get_item, "AccessDeniedException",
                         denied(BOB[2], "GetItem", theirs), TableName=theirs,
                         Key=key)
        # dynamodb:* by root ARN and a wildcard Resource, with a Deny of
        # PutItem: reads pass, the denied write fails, explicitly.
        self.put_policy(name, {
            "Sid": "all", "Effect": "Allow",
            "Principal": {"AWS": "arn:aws:iam::%s:root" % BOB[2]},
            "Action": "dynamodb:*", "Resource": theirs[:-3] + "*"}, {
            "Sid": "noput", "Effect": "Deny",
            "Principal": {"AWS": BOB[2]},
            "Action": "dynamodb:PutItem", "Resource": "*"})
        self.assertEqual(self.bob.get_item(TableName=theirs, Key=key)
                         ["Item"], key)
        self.assertEqual(self.bob.describe_table(TableName=theirs)["Table"]
                         ["TableArn"], theirs)
        self.assertError(self.bob.put_item, "AccessDeniedException",
                         "User: arn:aws:iam::%s:root is not authorized to "
                         "perform: dynamodb:PutItem on resource: %s with an "
                         "explicit deny in a resource-based policy"
                         % (BOB[2], theirs), TableName=theirs,
                         Item={"pk": {"S": "c"}})
        # An Allow with a Condition is not evaluated here: it grants
        # nothing (the documented subset).
        self.put_policy(name, {
            "Effect": "Allow", "Principal": {"AWS": BOB[2]},
            "Action": "dynamodb:GetItem", "Resource": theirs,
            "Condition": {"Bool": {"aws:SecureTransport": "true"}}})
        self.assertError(self.bob.get_item, "AccessDeniedException",
                         denied(BOB[2], "GetItem", theirs), TableName=theirs,
                         Key=key)
        # The owner is never subject to its own table's policy.
        self.assertEqual(self.alice.get_item(TableName=theirs, Key=key)
                         ["Item"], key)
        self.alice.delete_table(TableName=name)

    def test_backups_and_restores_per_account(self):
        # Backups and restores belong to the caller's account: ListBackups
        # "List DynamoDB backups that are associated with an AWS account"
        # (API reference), a backup ARN is its table's ARN + "/backup/..."
        # and a restored table is created in the caller's account
        # (RestoreTableFromBackup / RestoreTableToPointInTime, API
        # reference: "Creates a new table ... in the same account").
        name = unique_name("bk")
        arns = {}
        for c, key in ((self.alice, ALICE), (self.bob, BOB)):
            create_table(c, name)
            c.put_item(TableName=name, Item={"pk": {"S": "k"},
                                             "who": {"S": key[2]}})
            b = c.create_backup(TableName=name, BackupName="bak")
            arns[key[2]] = b["BackupDetails"]["BackupArn"]
            self.assertTrue(arns[key[2]].startswith(arn(key[2], name) +
                                                    "/backup/"),
                            arns[key[2]])
        for c, key in ((self.alice, ALICE), (self.bob, BOB)):
            with self.subTest(account=key[2]):
                every = c.list_backups()["BackupSummaries"]
                self.assertIn(arns[key[2]], [s["BackupArn"] for s in every])
                other = ({ALICE[2], BOB[2]} - {key[2]}).pop()
                self.assertNotIn(arns[other],
                                 [s["BackupArn"] for s in every])
                mine = c.list_backups(TableName=name)["BackupSummaries"]
                self.assertEqual([(s["BackupArn"], s["TableName"],
                                   s["TableArn"]) for s in mine],
                                 [(arns[key[2]], name, arn(key[2], name))])
                d = c.describe_backup(BackupArn=arns[key[2]])[
                    "BackupDescription"]["SourceTableDetails"]
                self.assertEqual((d["TableName"], d["TableArn"]),
                                 (name, arn(key[2], name)))
        # Bob restores his backup: the table is his alone, with his item.
        target = name + "-r"
        r = self.bob.restore_table_from_backup(TargetTableName=target,
                                               BackupArn=arns[BOB[2]])
        self.assertEqual(r["TableDescription"]["TableArn"],
                         arn(BOB[2], target))
        wait_active(self.bob, target)
        self.assertEqual(self.bob.get_item(TableName=target, Key={
            "pk": {"S": "k"}})["Item"]["who"], {"S": BOB[2]})
        self.assertIn(target, self.bob.list_tables()["TableNames"])
        self.assertNotIn(target, self.alice.list_tables()["TableNames"])
        # ... and restoring again to that name is his conflict, not Alice's.
        self.assertError(self.bob.restore_table_from_backup,
                         "TableAlreadyExistsException",
                         "Table already exists: %s" % target,
                         TargetTableName=target, BackupArn=arns[BOB[2]])
        self.alice.restore_table_from_backup(TargetTableName=target,
                                             BackupArn=arns[ALICE[2]])
        wait_active(self.alice, target)
        self.assertEqual(self.alice.get_item(TableName=target, Key={
            "pk": {"S": "k"}})["Item"]["who"], {"S": ALICE[2]})
        # Another account's backup is not Bob's to restore.
        self.assertError(self.bob.restore_table_from_backup,
                         "AccessDeniedException", "Access is denied",
                         TargetTableName=name + "-x",
                         BackupArn=arns[ALICE[2]])
        # Point in time: the restored table is the caller's too; another
        # account's table as the source needs a policy.
        self.bob.update_continuous_backups(
            TableName=name, PointInTimeRecoverySpecification={
                "PointInTimeRecoveryEnabled": True})
        self.bob.restore_table_to_point_in_time(
            SourceTableName=name, TargetTableName=name + "-p",
            UseLatestRestorableTime=True)
        wait_active(self.bob, name + "-p")
        self.assertEqual(self.bob.get_item(TableName=name + "-p", Key={
            "pk": {"S": "k"}})["Item"]["who"], {"S": BOB[2]})
        self.assertNotIn(name + "-p", self.alice.list_tables()["TableNames"])
        self.assertError(self.alice.restore_table_to_point_in_time,
                         "AccessDeniedException",
                         denied(ALICE[2], "RestoreTableToPointInTime",
                                arn(BOB[2], name)),
                         SourceTableArn=arn(BOB[2], name),
                         TargetTableName=name + "-q",
                         UseLatestRestorableTime=True)
        self.assertError(self.alice.create_backup, "AccessDeniedException",
                         denied(ALICE[2], "CreateBackup", arn(BOB[2], name)),
                         TableName=arn(BOB[2], name), BackupName="bak")
        for c in (self.alice, self.bob):
            for b in arns.values():
                if b.split(":")[4] == (ALICE if c is self.alice
                                       else BOB)[2]:
                    c.delete_backup(BackupArn=b)
            for n in (name, target):
                c.delete_table(TableName=n)
        self.bob.delete_table(TableName=name + "-p")

    @unittest.skipUnless(client_knows_policies(),
                         "this boto3 has no resource-policy calls")
    def test_tags_and_policy_by_account_arn(self):
        # A ResourceArn names the table of its account (TagResource,
        # PutResourcePolicy API reference); only the owner may change them
        # ("This action is only supported by accounts that match the
        # resource owner's account", recorded DynamoDB answer).
        name = unique_name("tg")
        for c, key in ((self.alice, ALICE), (self.bob, BOB)):
            create_table(c, name)
            c.tag_resource(ResourceArn=arn(key[2], name),
                           Tags=[{"Key": "owner", "Value": key[2]}])
        for c, key in ((self.alice, ALICE), (self.bob, BOB)):
            self.assertEqual(c.list_tags_of_resource(
                ResourceArn=arn(key[2], name))["Tags"],
                [{"Key": "owner", "Value": key[2]}])
        self.assertError(self.bob.list_tags_of_resource,
                         "AccessDeniedException", "Access is denied",
                         ResourceArn=arn(ALICE[2], name))
        self.put_policy(name, {
            "Effect": "Allow", "Principal": {"AWS": BOB[2]},
            "Action": "dynamodb:GetItem", "Resource": arn(ALICE[2], name)})
        self.assertIn(BOB[2], self.alice.get_resource_policy(
            ResourceArn=arn(ALICE[2], name))["Policy"])
        self.assertError(self.bob.get_resource_policy,
                         "PolicyNotFoundException",
                         ResourceArn=arn(BOB[2], name))
        for c in (self.alice, self.bob):
            c.delete_table(TableName=name)

    def test_exports_per_account(self):
        # ListExports: "Lists completed exports within the past 90 days"
        # of the caller's account (API reference); export ARNs carry the
        # table's account.
        name = unique_name("ex")
        got = {}
        for key in (ALICE, BOB):        # buckets: --s3-dir's default
            os.makedirs(os.path.join(self.tmp, "data", "s3",
                                     "bkt-" + key[2]), exist_ok=True)
        for c, key in ((self.alice, ALICE), (self.bob, BOB)):
            create_table(c, name)
            c.update_continuous_backups(
                TableName=name, PointInTimeRecoverySpecification={
                    "PointInTimeRecoveryEnabled": True})
            c.put_item(TableName=name, Item={"pk": {"S": key[2]}})
            e = c.export_table_to_point_in_time(
                TableArn=arn(key[2], name), S3Bucket="bkt-" + key[2])
            got[key[2]] = e["ExportDescription"]["ExportArn"]
            self.assertTrue(got[key[2]].startswith(arn(key[2], name) + "/"))
        for c, key in ((self.alice, ALICE), (self.bob, BOB)):
            listed = [s["ExportArn"] for s in
                      c.list_exports()["ExportSummaries"]]
            self.assertIn(got[key[2]], listed)
            other = ({ALICE[2], BOB[2]} - {key[2]}).pop()
            self.assertNotIn(got[other], listed)
            self.assertEqual(c.describe_export(ExportArn=got[key[2]])[
                "ExportDescription"]["TableArn"], arn(key[2], name))
        self.assertError(self.bob.describe_export, "ExportNotFoundException",
                         ExportArn=got[ALICE[2]])
        # Bob imports his export: the new table and its items are his.
        d = self.finish(self.bob.describe_export, "ExportArn", got[BOB[2]])
        self.assertEqual(d["ExportStatus"], "COMPLETED", d)
        data = d["ExportManifest"].rsplit("/", 1)[0] + "/data/"
        i = self.bob.import_table(
            S3BucketSource={"S3Bucket": "bkt-" + BOB[2], "S3KeyPrefix": data},
            InputFormat="DYNAMODB_JSON", InputCompressionType="GZIP",
            TableCreationParameters={
                "TableName": name + "-i", "BillingMode": "PAY_PER_REQUEST",
                "AttributeDefinitions": [{"AttributeName": "pk",
                                          "AttributeType": "S"}],
                "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]})
        i = self.finish(self.bob.describe_import, "ImportArn",
                        i["ImportTableDescription"]["ImportArn"])
        self.assertEqual((i["ImportStatus"], i["ImportedItemCount"],
                          i["TableArn"]),
                         ("COMPLETED", 1, arn(BOB[2], name + "-i")))
        self.assertEqual(self.bob.scan(TableName=name + "-i")["Items"],
                         [{"pk": {"S": BOB[2]}}])
        self.assertNotIn(name + "-i", self.alice.list_tables()["TableNames"])
        self.assertEqual(self.alice.list_imports()["ImportSummaryList"], [])
        self.bob.delete_table(TableName=name + "-i")
        for c in (self.alice, self.bob):
            c.delete_table(TableName=name)

    def finish(self, describe, key, job):
        deadline = time.time() + 30
        while time.time() < deadline:
            d = describe(**{key: job})
            d = d.get("ExportDescription") or d["ImportTableDescription"]
            if (d.get("ExportStatus") or d.get("ImportStatus")) != \
                    "IN_PROGRESS":
                return d
            time.sleep(0.05)
        self.fail("still IN_PROGRESS")

    def streams(self, key):
        return boto3.client("dynamodbstreams", endpoint_url=self.url,
                            region_name=REGION, aws_access_key_id=key[0],
                            aws_secret_access_key=key[1])

    def test_streams_per_account(self):
        # DynamoDB Streams' ListStreams: "Returns an array of stream ARNs
        # associated with the current account and endpoint" (DynamoDB
        # Streams API reference); a stream ARN is its table's ARN +
        # "/stream/<label>" (developer guide, "DynamoDB Streams").
        name = unique_name("strm")
        got = {}
        for c, key in ((self.alice, ALICE), (self.bob, BOB)):
            create_table(c, name, StreamSpecification={
                "StreamEnabled": True, "StreamViewType": "NEW_IMAGE"})
            c.put_item(TableName=name, Item={"pk": {"S": key[2]}})
            got[key[2]] = c.describe_table(TableName=name)["Table"][
                "LatestStreamArn"]
        for c, key in ((self.alice, ALICE), (self.bob, BOB)):
            with self.subTest(account=key[2]):
                sc = self.streams(key)
                mine = got[key[2]]
                self.assertTrue(mine.startswith(arn(key[2], name) +
                                                "/stream/"), mine)
                listed = sc.list_streams(TableName=name)["Streams"]
                self.assertEqual([(s["StreamArn"], s["TableName"])
                                  for s in listed], [(mine, name)])
                every = [s["StreamArn"] for s in sc.list_streams(
                    Limit=100)["Streams"]]
                self.assertIn(mine, every)
                self.assertNotIn(got[({ALICE[2], BOB[2]} - {key[2]}).pop()],
                                 every)
                d = sc.describe_stream(StreamArn=mine)["StreamDescription"]
                self.assertEqual(d["TableName"], name)
                recs = []
                for shard in d["Shards"]:
                    it = sc.get_shard_iterator(
                        StreamArn=mine, ShardId=shard["ShardId"],
                        ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
                    recs += sc.get_records(ShardIterator=it)["Records"]
                self.assertEqual([r["dynamodb"]["Keys"]["pk"]["S"]
                                  for r in recs], [key[2]])
        # Another account's stream: denied as its table is.
        sc = self.streams(BOB)
        self.assertError(sc.describe_stream, "AccessDeniedException",
                         StreamArn=got[ALICE[2]])
        for c in (self.alice, self.bob):
            c.delete_table(TableName=name)

    def test_partiql_per_account(self):
        # PartiQL reads the caller's table of the name; the batch answer
        # names it as the caller wrote it (BatchExecuteStatement API
        # reference: BatchStatementResponse.TableName).
        name = unique_name("pql")
        for c, key in ((self.alice, ALICE), (self.bob, BOB)):
            create_table(c, name)
            c.execute_statement(Statement="INSERT INTO \"%s\" VALUE "
                                "{'pk': '%s'}" % (name, key[2]))
        for c, key in ((self.alice, ALICE), (self.bob, BOB)):
            with self.subTest(account=key[2]):
                r = c.execute_statement(Statement='SELECT * FROM "%s"'
                                        % name)
                self.assertEqual(r["Items"], [{"pk": {"S": key[2]}}])
                r = c.batch_execute_statement(Statements=[{
                    "Statement": 'SELECT * FROM "%s" WHERE pk = ?' % name,
                    "Parameters": [{"S": key[2]}]}])["Responses"]
                self.assertEqual(r[0]["TableName"], name)
                self.assertEqual(r[0]["Item"], {"pk": {"S": key[2]}})
        for c in (self.alice, self.bob):
            c.delete_table(TableName=name)


@unittest.skipIf(BIN is None, "needs SHARDLOCAL_BIN (run.sh sets it)")
class DataDirectory(unittest.TestCase):
    """A data directory written without signatures: its tables are
    --account-id's; other accounts' tables survive kill -9 and restarts
    in either mode."""

    def test_tables_keep_their_account(self):
        tmp = tempfile.mkdtemp(prefix="sl-acctdir-")
        self.addCleanup(shutil.rmtree, tmp, True)
        data = os.path.join(tmp, "data")
        proc, url = start_private_server(data, os.path.join(tmp, "port"))
        try:
            c = signed_client(url, "anything", "goes")
            create_table(c, "Legacy")
            c.put_item(TableName="Legacy", Item={"pk": {"S": "old"}})
        finally:
            stop_private_server(proc)

        stmp, proc, url = start_signed_server("sl-acctdir2-", data_dir=data)
        try:
            alice = signed_client(url, *ALICE[:2])
            dflt = signed_client(url, *DEFAULT[:2])
            self.assertEqual(dflt.get_item(TableName="Legacy", Key={
                "pk": {"S": "old"}})["Item"], {"pk": {"S": "old"}})
            self.assertEqual(alice.list_tables()["TableNames"], [])
            create_table(alice, "Legacy")
            alice.put_item(TableName="Legacy", Item={"pk": {"S": "new"}})
        finally:
            stop_private_server(proc)       # kill -9
            self.assertEqual(sanitizer_reports(stmp), "")
            shutil.rmtree(stmp, ignore_errors=True)

        stmp, proc, url = start_signed_server("sl-acctdir3-", data_dir=data)
        try:
            alice = signed_client(url, *ALICE[:2])
            self.assertEqual([i["pk"]["S"] for i in alice.scan(
                TableName="Legacy")["Items"]], ["new"])
            self.assertEqual(alice.describe_table(TableName="Legacy")
                             ["Table"]["TableArn"], arn(ALICE[2], "Legacy"))
        finally:
            stop_private_server(proc)
            self.assertEqual(sanitizer_reports(stmp), "")
            shutil.rmtree(stmp, ignore_errors=True)

        proc, url = start_private_server(data, os.path.join(tmp, "port"))
        try:
            c = signed_client(url, "anything", "goes")
            self.assertEqual(c.list_tables()["TableNames"], ["Legacy"])
            self.assertEqual([i["pk"]["S"] for i in c.scan(
                TableName="Legacy")["Items"]], ["old"])
        finally:
            stop_private_server(proc)


if __name__ == "__main__":
    unittest.main()
