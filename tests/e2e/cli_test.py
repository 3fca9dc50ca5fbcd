# SPDX-License-Identifier: MIT
# cli_test.py - the AWS CLI (v1 on PATH, v2 at /usr/bin/aws) against the
# server: create-table, wait, put/query pagination, update-item, PartiQL
# (execute-statement, batch-execute-statement, execute-transaction), errors;
# DynamoDB Streams (aws dynamodbstreams) and Time to Live; tags, backups and
# restores, resource policies, describe-limits and describe-endpoints (the
# answers test_tags.py, test_backups.py, test_policy.py and test_limits.py
# check in detail with boto3); an export imported as a new table, every
# item compared (test_transfer.py checks the details with boto3).
import json
import re
import os
import shutil
import subprocess
import tempfile
import time
import unittest
import uuid

from e2e_common import (ACCOUNT, BIN, ENDPOINT, client, create_table,
                        delete_table_quietly, start_private_server,
                        stop_temp_server, wait_active)


def find_clis():
    """[(label, path, major)] for each distinct AWS CLI installed."""
    out, seen = [], set()
    for path in (shutil.which("aws"), "/usr/bin/aws"):
        if not path or not os.access(path, os.X_OK):
            continue
        real = os.path.realpath(path)
        if real in seen:
            continue
        try:
            v = subprocess.run([path, "--version"], capture_output=True,
                               text=True, timeout=60)
        except (OSError, subprocess.TimeoutExpired):
            continue
        text = (v.stdout + v.stderr).strip()
        if not text.startswith("aws-cli/"):
            continue
        seen.add(real)
        major = int(text.split("/")[1].split(".")[0])
        out.append(("v%d" % major, path, major))
    return out


CLIS = find_clis()


class CliBase:
    path = None
    major = None

    def aws(self, *args, check=True, service="dynamodb"):
        env = dict(os.environ)
        env.update(AWS_PAGER="", AWS_DEFAULT_OUTPUT="json")
        cmd = [self.path, service] + list(args)
        endpoint = getattr(self, "endpoint", None) or ENDPOINT
        if endpoint:
            cmd += ["--endpoint-url", endpoint]
        p = subprocess.run(cmd, capture_output=True, text=True, env=env,
                           timeout=120)
        if check:
            self.assertEqual(p.returncode, 0, "%s\n%s" % (cmd, p.stderr))
        return p

    def assertCliError(self, p, code, op, message):
        """Exit status 255 (v1) / 254 (v2) and the CLI's standard line."""
        self.assertEqual(p.returncode, 255 if self.major == 1 else 254,
                         p.stderr)
        line = "An error occurred (%s) when calling the %s operation" % (
            code, op)
        retries = r"( \(reached max retries: \d+\))?: "
        self.assertRegex(p.stderr,
                         re.escape(line) + retries + re.escape(message))

    def js(self, *args, service="dynamodb"):
        out = self.aws(*args, service=service).stdout
        return json.loads(out) if out.strip() else {}

    @classmethod
    def setUpClass(cls):
        cls.table = "cli_%s_%s" % (cls.__name__[-2:].lower(),
                                    uuid.uuid4().hex[:8])
        cls.stream_table = cls.table + "_s"

    @classmethod
    def tearDownClass(cls):
        env = dict(os.environ, AWS_PAGER="")
        for t in (cls.table, cls.stream_table):
            cmd = [cls.path, "dynamodb", "delete-table", "--table-name", t]
            if ENDPOINT:
                cmd += ["--endpoint-url", ENDPOINT]
            subprocess.run(cmd, capture_output=True, env=env, timeout=120)

    def test_streams_and_ttl(self):
        t = self.stream_table
        r = self.js("create-table", "--table-name", t,
                    "--attribute-definitions",
                    "AttributeName=pk,AttributeType=S",
                    "--key-schema", "AttributeName=pk,KeyType=HASH",
                    # one partition, so one shard: fewer CLI calls
                    "--provisioned-throughput",
                    "ReadCapacityUnits=1,WriteCapacityUnits=1",
                    "--stream-specification",
                    "StreamEnabled=true,StreamViewType=NEW_AND_OLD_IMAGES")
        arn = r["TableDescription"]["LatestStreamArn"]
        self.aws("wait", "table-exists", "--table-name", t)
        self.aws("put-item", "--table-name", t, "--item",
                 '{"pk": {"S": "a"}, "v": {"N": "1"}}')
        self.aws("put-item", "--table-name", t, "--item",
                 '{"pk": {"S": "a"}, "v": {"N": "2"}}')
        r = self.js("list-streams", "--table-name", t,
                    service="dynamodbstreams")
        self.assertEqual([x["StreamArn"] for x in r["Streams"]], [arn])
        d = self.js("describe-stream", "--stream-arn", arn,
                    service="dynamodbstreams")["StreamDescription"]
        self.assertEqual(d["StreamStatus"], "ENABLED")
        recs = []
        for sh in d["Shards"]:
            it = self.js("get-shard-iterator", "--stream-arn", arn,
                         "--shard-id", sh["ShardId"],
                         "--shard-iterator-type", "TRIM_HORIZON",
                         service="dynamodbstreams")["ShardIterator"]
            recs += self.js("get-records", "--shard-iterator", it,
                            service="dynamodbstreams")["Records"]
        self.assertEqual([x["eventName"] for x in recs],
                         ["INSERT", "MODIFY"])
        self.assertEqual(recs[1]["dynamodb"]["OldImage"]["v"], {"N": "1"})
        self.assertEqual(recs[1]["dynamodb"]["NewImage"]["v"], {"N": "2"})
        p = self.aws("get-records", "--shard-iterator", "not-an-iterator",
                     check=False, service="dynamodbstreams")
        self.assertCliError(p, "ValidationException", "GetRecords",
                            "Invalid ShardIterator")

        r = self.js("update-time-to-live", "--table-name", t,
                    "--time-to-live-specification",
                    "Enabled=true,AttributeName=expires")
        self.assertEqual(r["TimeToLiveSpecification"],
                         {"Enabled": True, "AttributeName": "expires"})
        r = self.js("describe-time-to-live", "--table-name", t)
        self.assertEqual(r["TimeToLiveDescription"],
                         {"TimeToLiveStatus": "ENABLED",
                          "AttributeName": "expires"})
        p = self.aws("update-time-to-live", "--table-name", t,
                     "--time-to-live-specification",
                     "Enabled=true,AttributeName=expires", check=False)
        self.assertCliError(p, "ValidationException", "UpdateTimeToLive",
                            "TimeToLive is already enabled")

    def test_workflow(self):
        # One ordered scenario: every step depends on the previous one.
        r = self.js("create-table", "--table-name", self.table,
                    "--attribute-definitions",
                    "AttributeName=pk,AttributeType=S",
                    "AttributeName=sk,AttributeType=N",
                    "--key-schema", "AttributeName=pk,KeyType=HASH",
                    "AttributeName=sk,KeyType=RANGE",
                    "--billing-mode", "PAY_PER_REQUEST")
        self.assertEqual(r["TableDescription"]["TableName"], self.table)

        start = time.monotonic()
        self.aws("wait", "table-exists", "--table-name", self.table)
        if ENDPOINT:    # the waiter sleeps 20 s unless the first poll wins
            self.assertLess(time.monotonic() - start, 15)

        for i in range(7):
            self.aws("put-item", "--table-name", self.table, "--item",
                     json.dumps({"pk": {"S": "p"}, "sk": {"N": str(i)},
                                 "v": {"S": "val%d" % i}}))

        q = ["query", "--table-name", self.table,
             "--key-condition-expression", "pk = :p",
             "--expression-attribute-values", '{":p": {"S": "p"}}']
        r = self.js(*q, "--page-size", "2")
        self.assertEqual([it["sk"]["N"] for it in r["Items"]],
                         [str(i) for i in range(7)])
        self.assertEqual(r["Count"], 7)
        self.assertNotIn("NextToken", r)

        r = self.js(*q, "--max-items", "3")
        self.assertEqual([it["sk"]["N"] for it in r["Items"]],
                         ["0", "1", "2"])
        token = r["NextToken"]
        r = self.js(*q, "--max-items", "3", "--starting-token", token)
        self.assertEqual([it["sk"]["N"] for it in r["Items"]],
                         ["3", "4", "5"])
        r = self.js(*q, "--max-items", "3", "--starting-token",
                    r["NextToken"])
        self.assertEqual([it["sk"]["N"] for it in r["Items"]], ["6"])
        self.assertNotIn("NextToken", r)

        r = self.js("update-item", "--table-name", self.table, "--key",
                    '{"pk": {"S": "p"}, "sk": {"N": "3"}}',
                    "--update-expression", "SET v = :v, n = :n",
                    "--expression-attribute-values",
                    '{":v": {"S": "new"}, ":n": {"N": "1E+2"}}',
                    "--return-values", "UPDATED_NEW")
        self.assertEqual(r["Attributes"], {"v": {"S": "new"},
                                           "n": {"N": "100"}})
        r = self.js("get-item", "--table-name", self.table, "--key",
                    '{"pk": {"S": "p"}, "sk": {"N": "3"}}',
                    "--consistent-read")
        self.assertEqual(r["Item"]["v"], {"S": "new"})

        # Errors: exit status 255 (v1) / 254 (v2) and the standard line.
        p = self.aws("put-item", "--table-name", self.table, "--item",
                     '{"pk": {"S": "p"}, "sk": {"N": "3"}}',
                     "--condition-expression", "attribute_not_exists(pk)",
                     check=False)
        self.assertCliError(p, "ConditionalCheckFailedException", "PutItem",
                            "The conditional request failed")

    # --- tags, backups, policies, limits ----------------------------------

    def test_resources(self):
        """One table set up with boto3 (each CLI call costs a second or
        two); the CLI does what is under test: tags, a backup restored with
        overrides, point-in-time recovery, a resource policy,
        describe-limits/-endpoints."""
        c = client()
        name = "cliv%d_%s" % (self.major, uuid.uuid4().hex[:8])
        target = name + "_r"
        for t in (name, target, name + "_p"):
            self.addCleanup(delete_table_quietly, c, t)
        create_table(c, name, GlobalSecondaryIndexes=[{
            "IndexName": "byg",
            "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
            "Projection": {"ProjectionType": "KEYS_ONLY"}}],
            AttributeDefinitions=[
                {"AttributeName": "pk", "AttributeType": "S"},
                {"AttributeName": "g", "AttributeType": "S"}])
        for i in range(5):
            c.put_item(TableName=name, Item={"pk": {"S": "k%d" % i},
                                             "g": {"S": "x"}})
        arn = c.describe_table(TableName=name)["Table"]["TableArn"]

        self.aws("tag-resource", "--resource-arn", arn, "--tags",
                 "Key=env,Value=test", "Key=team,Value=db")
        self.aws("untag-resource", "--resource-arn", arn, "--tag-keys",
                 "team")
        r = self.js("list-tags-of-resource", "--resource-arn", arn)
        self.assertEqual(r["Tags"], [{"Key": "env", "Value": "test"}])

        d = self.js("create-backup", "--table-name", name, "--backup-name",
                    "cli-backup")["BackupDetails"]
        barn = d["BackupArn"]
        self.assertEqual(d["BackupName"], "cli-backup")
        r = self.js("list-backups", "--table-name", name)
        self.assertEqual([b["BackupArn"] for b in r["BackupSummaries"]],
                         [barn])
        r = self.js("restore-table-from-backup", "--target-table-name",
                    target, "--backup-arn", barn, "--billing-mode-override",
                    "PROVISIONED", "--provisioned-throughput-override",
                    "ReadCapacityUnits=3,WriteCapacityUnits=2",
                    "--global-secondary-index-override", json.dumps([{
                        "IndexName": "byg", "KeySchema": [
                            {"AttributeName": "g", "KeyType": "HASH"}],
                        "Projection": {"ProjectionType": "KEYS_ONLY"},
                        "ProvisionedThroughput": {
                            "ReadCapacityUnits": 1,
                            "WriteCapacityUnits": 1}}]))
        self.assertEqual(r["TableDescription"]["TableName"], target)
        t = wait_active(c, target)
        self.assertEqual(t["ProvisionedThroughput"]["ReadCapacityUnits"], 3)
        self.assertEqual(c.query(TableName=target, IndexName="byg",
                                 KeyConditionExpression="g = :g",
                                 ExpressionAttributeValues={
                                     ":g": {"S": "x"}},
                                 Select="COUNT")["Count"], 5)
        r = self.js("delete-backup", "--backup-arn", barn)
        self.assertEqual(r["BackupDescription"]["BackupDetails"][
            "BackupStatus"], "DELETED")
        p = self.aws("describe-backup", "--backup-arn", barn, check=False)
        self.assertCliError(p, "BackupNotFoundException", "DescribeBackup",
                            "Backup not found: " + barn)

        # point-in-time recovery: on, a write, the latest time restored
        r = self.js("update-continuous-backups", "--table-name", name,
                    "--point-in-time-recovery-specification",
                    "PointInTimeRecoveryEnabled=true")
        self.assertEqual(r["ContinuousBackupsDescription"][
            "PointInTimeRecoveryDescription"]["PointInTimeRecoveryStatus"],
            "ENABLED")
        c.put_item(TableName=name, Item={"pk": {"S": "k5"}, "g": {"S": "x"}})
        r = self.js("describe-continuous-backups", "--table-name", name)
        self.assertIn("LatestRestorableDateTime", r[
            "ContinuousBackupsDescription"]["PointInTimeRecoveryDescription"])
        r = self.js("restore-table-to-point-in-time", "--source-table-name",
                    name, "--target-table-name", name + "_p",
                    "--use-latest-restorable-time")
        self.assertEqual(r["TableDescription"]["TableName"], name + "_p")
        wait_active(c, name + "_p")
        self.assertEqual(c.query(TableName=name + "_p", IndexName="byg",
                                 KeyConditionExpression="g = :g",
                                 ExpressionAttributeValues={
                                     ":g": {"S": "x"}},
                                 Select="COUNT")["Count"], 6)
        p = self.aws("restore-table-to-point-in-time", "--source-table-name",
                     name, "--target-table-name", name + "_q",
                     "--restore-date-time", "2001-01-01T00:00:00Z",
                     check=False)
        self.assertCliError(p, "InvalidRestoreTimeException",
                            "RestoreTableToPointInTime",
                            "Restore time must be between "
                            "EarliestRestorableDateTime and "
                            "LatestRestorableDateTime")

        r = self.js("describe-limits")
        self.assertEqual(r["TableMaxWriteCapacityUnits"], 40000)
        self.assertEqual(r["AccountMaxReadCapacityUnits"], 80000)
        r = self.js("describe-endpoints")
        self.assertEqual(len(r["Endpoints"]), 1)
        if ENDPOINT:
            self.assertEqual(r["Endpoints"][0]["Address"],
                             ENDPOINT.split("://", 1)[1])

        policy = json.dumps({"Version": "2012-10-17", "Statement": [{
            "Effect": "Allow", "Principal": {"AWS": ACCOUNT},
            "Action": "dynamodb:GetItem", "Resource": arn}]})
        p = self.aws("put-resource-policy", "--resource-arn", arn,
                     "--policy", policy, check=False)
        if "Invalid choice" in p.stderr:
            return                      # this CLI predates the policies
        self.assertEqual(p.returncode, 0, p.stderr)
        rev = json.loads(p.stdout)["RevisionId"]
        r = self.js("get-resource-policy", "--resource-arn", arn)
        self.assertEqual(r["RevisionId"], rev)
        r = self.js("delete-resource-policy", "--resource-arn", arn,
                    "--expected-revision-id", rev)
        self.assertEqual(r["RevisionId"], rev)
        p = self.aws("get-resource-policy", "--resource-arn", arn,
                     check=False)
        self.assertCliError(p, "PolicyNotFoundException",
                            "GetResourcePolicy",
                            "Resource-based policy not found for the "
                            "provided ResourceArn: " + arn)

    @unittest.skipUnless(BIN, "needs SHARDLOCAL_BIN (its own --s3-dir)")
    def test_export_import_round_trip(self):
        tmp = tempfile.mkdtemp(prefix="shardlocal-cli-x.")
        s3 = os.path.join(tmp, "s3")
        os.makedirs(os.path.join(s3, "cli-bucket"))
        proc = None
        try:
            proc, self.endpoint = start_private_server(
                None, os.path.join(tmp, "port"), "--in-memory", "--s3-dir",
                s3)
            self._round_trip()
        finally:
            self.endpoint = None
            stop_temp_server(tmp, proc)

    def _round_trip(self):
        self.aws("create-table", "--table-name", "xsrc",
                 "--attribute-definitions", "AttributeName=pk,"
                 "AttributeType=S", "--key-schema",
                 "AttributeName=pk,KeyType=HASH", "--billing-mode",
                 "PAY_PER_REQUEST")
        # few CLI runs: each costs seconds on a loaded machine
        self.aws("batch-write-item", "--request-items", json.dumps({
            "xsrc": [{"PutRequest": {"Item": {
                "pk": {"S": "k%d" % i}, "v": {"N": str(i)},
                "l": {"L": [{"S": "x"}]}}}} for i in range(12)]}))
        arn = "arn:aws:dynamodb:%s:%s:table/xsrc" % (
            os.environ.get("AWS_DEFAULT_REGION", "us-east-1"), ACCOUNT)
        self.aws("update-continuous-backups", "--table-name", "xsrc",
                 "--point-in-time-recovery-specification",
                 "PointInTimeRecoveryEnabled=true")
        d = self.js("export-table-to-point-in-time", "--table-arn", arn,
                    "--s3-bucket", "cli-bucket", "--s3-prefix",
                    "cli")["ExportDescription"]
        for _ in range(200):
            d = self.js("describe-export", "--export-arn",
                        d["ExportArn"])["ExportDescription"]
            if d["ExportStatus"] != "IN_PROGRESS":
                break
            time.sleep(0.2)
        self.assertEqual((d["ExportStatus"], d["ItemCount"]),
                         ("COMPLETED", 12))
        self.assertEqual(len(self.js("list-exports")["ExportSummaries"]), 1)
        data = d["ExportManifest"].rsplit("/", 1)[0] + "/data/"
        i = self.js("import-table", "--s3-bucket-source",
                    json.dumps({"S3Bucket": "cli-bucket",
                                "S3KeyPrefix": data}),
                    "--input-format", "DYNAMODB_JSON",
                    "--input-compression-type", "GZIP",
                    "--table-creation-parameters", json.dumps({
                        "TableName": "xdst",
                        "AttributeDefinitions": [{
                            "AttributeName": "pk", "AttributeType": "S"}],
                        "KeySchema": [{"AttributeName": "pk",
                                       "KeyType": "HASH"}],
                        "BillingMode": "PAY_PER_REQUEST"}))
        arn = i["ImportTableDescription"]["ImportArn"]
        for _ in range(200):
            i = self.js("describe-import", "--import-arn",
                        arn)["ImportTableDescription"]
            if i["ImportStatus"] != "IN_PROGRESS":
                break
            time.sleep(0.2)
        self.assertEqual((i["ImportStatus"], i["ImportedItemCount"],
                          i["ErrorCount"]), ("COMPLETED", 12, 0))
        self.assertEqual(len(self.js("list-imports")["ImportSummaryList"]),
                         1)

        def items(t):
            return sorted(self.js("scan", "--table-name", t)["Items"],
                          key=lambda x: x["pk"]["S"])
        self.assertEqual(items("xsrc"), items("xdst"))

    def test_partiql(self):
        # execute-statement, batch-execute-statement, execute-transaction:
        # the shapes the CLI sends (parameters as AttributeValue JSON, a
        # NextToken handed back by hand) and its error line for each.
        table = "cli_pq_%s" % uuid.uuid4().hex[:8]
        self.aws("create-table", "--table-name", table,
                 "--attribute-definitions", "AttributeName=pk,AttributeType=S",
                 "AttributeName=sk,AttributeType=N",
                 "--key-schema", "AttributeName=pk,KeyType=HASH",
                 "AttributeName=sk,KeyType=RANGE",
                 "--billing-mode", "PAY_PER_REQUEST")
        self.addCleanup(self.aws, "delete-table", "--table-name", table,
                        check=False)
        self.aws("wait", "table-exists", "--table-name", table)
        q = '"%s"' % table

        for i in range(3):
            r = self.js("execute-statement", "--statement",
                        "INSERT INTO %s VALUE {'pk': 'p', 'sk': ?, 'v': ?}"
                        % q, "--parameters",
                        json.dumps([{"N": str(i)}, {"S": "v%d" % i}]))
            self.assertEqual(r.get("Items", []), [])
        st = "SELECT sk, v FROM %s WHERE pk = 'p' ORDER BY sk DESC" % q
        r = self.js("execute-statement", "--statement", st, "--limit", "2")
        self.assertEqual([it["sk"]["N"] for it in r["Items"]], ["2", "1"])
        r = self.js("execute-statement", "--statement", st, "--limit", "2",
                    "--next-token", r["NextToken"])
        self.assertEqual(r["Items"], [{"sk": {"N": "0"}, "v": {"S": "v0"}}])
        self.assertNotIn("NextToken", r)

        r = self.js("execute-statement", "--statement",
                    "UPDATE %s SET v = 'w' WHERE pk = 'p' AND sk = 1 "
                    "RETURNING MODIFIED OLD *" % q)
        self.assertEqual(r["Items"], [{"v": {"S": "v1"}}])

        r = self.js("batch-execute-statement", "--statements", json.dumps([
            {"Statement": "SELECT v FROM %s WHERE pk = ? AND sk = ?" % q,
             "Parameters": [{"S": "p"}, {"N": "1"}]},
            {"Statement": "SELECT v FROM %s WHERE pk = 'p'" % q}]))
        self.assertEqual(r["Responses"][0],
                         {"TableName": table, "Item": {"v": {"S": "w"}}})
        self.assertEqual(r["Responses"][1]["Error"]["Code"],
                         "ValidationError")

        r = self.js("execute-transaction", "--transact-statements",
                    json.dumps([
                        {"Statement": "DELETE FROM %s WHERE pk = 'p' AND "
                                      "sk = 0" % q},
                        {"Statement": "UPDATE %s SET v = 'x' WHERE pk = 'p' "
                                      "AND sk = 2" % q}]))
        self.assertEqual(r.get("Responses", []), [])
        r = self.js("execute-statement", "--statement",
                    "SELECT sk, v FROM %s WHERE pk = 'p'" % q,
                    "--consistent-read")
        self.assertEqual(r["Items"], [{"sk": {"N": "1"}, "v": {"S": "w"}},
                                      {"sk": {"N": "2"}, "v": {"S": "x"}}])

        p = self.aws("execute-statement", "--statement",
                     "INSERT INTO %s VALUE {'pk': 'p', 'sk': 1}" % q,
                     check=False)
        self.assertCliError(p, "DuplicateItemException", "ExecuteStatement",
                            "Duplicate primary key exists in table")
        p = self.aws("execute-transaction", "--transact-statements",
                     json.dumps([{"Statement": "UPDATE %s SET v = 'y' WHERE "
                                               "pk = 'p' AND sk = 9 AND "
                                               "v = 'z'" % q}]),
                     check=False)
        self.assertCliError(p, "TransactionCanceledException",
                            "ExecuteTransaction",
                            "Transaction cancelled, please refer cancellation "
                            "reasons for specific reasons "
                            "[ConditionalCheckFailed]")
        p = self.aws("execute-statement", "--statement",
                     "SELECT * FROM %s WHERE" % q, check=False)
        self.assertCliError(p, "ValidationException", "ExecuteStatement",
                            "Statement wasn't well formed, can't be "
                            "processed: Unexpected term")

    def test_missing_table_error(self):
        p = self.aws("get-item", "--table-name", "nope_" + uuid.uuid4().hex,
                     "--key", '{"pk": {"S": "a"}}', check=False)
        self.assertCliError(p, "ResourceNotFoundException", "GetItem",
                            "Requested resource not found")

    def test_validation_error(self):
        p = self.aws("scan", "--table-name", "x" * 3, "--select", "BOGUS",
                     check=False)
        self.assertCliError(p, "ValidationException", "Scan",
                            "1 validation error detected: Value 'BOGUS' at "
                            "'select' failed to satisfy constraint: Member "
                            "must satisfy enum value set: ")


def _make(label, path, major):
    cls = type("CliTest" + label.upper(), (CliBase, unittest.TestCase),
               {"path": path, "major": major})
    cls.__qualname__ = cls.__name__
    return cls


for _label, _path, _major in CLIS:
    globals()["CliTest" + _label.upper()] = _make(_label, _path, _major)

if not CLIS:
    class CliMissing(unittest.TestCase):
        @unittest.skip("no AWS CLI installed")
        def test_cli(self):
            pass


if __name__ == "__main__":
    unittest.main()
