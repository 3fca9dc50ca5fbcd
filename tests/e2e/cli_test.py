# SPDX-License-Identifier: MIT
# cli_test.py - the AWS CLI (v1 on PATH, v2 at /usr/bin/aws) against the
# server: create-table, wait, put/query pagination, update-item, PartiQL
# (execute-statement, batch-execute-statement, execute-transaction), errors;
# DynamoDB Streams (aws dynamodbstreams) and Time to Live.
import json
import re
import os
import shutil
import subprocess
import time
import unittest
import uuid

from e2e_common import ENDPOINT


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
        if ENDPOINT:
            cmd += ["--endpoint-url", ENDPOINT]
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
