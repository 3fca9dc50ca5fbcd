# SPDX-License-Identifier: MIT
# test_transfer.py - exports and imports with boto3 against a server this
# test owns (its --s3-dir known): ExportTableToPointInTime, DescribeExport,
# ListExports, ImportTable, DescribeImport, ListImports; the export's
# files in DynamoDB's export format (developer guide, "DynamoDB table
# export output format": <prefix>/AWSDynamoDB/<id>/ with _started,
# manifest-summary.json, manifest-files.json and gzipped DYNAMODB_JSON
# data files, at least one per partition), a round trip (export, import
# as a new table with a GSI, every item compared), CSV input, the
# lifecycle on the virtual clock, an export of a past time served by
# point-in-time recovery, zstd input, the 50 concurrent imports, and the
# errors (API reference of each operation: ExportConflictException,
# ImportConflictException, TableNotFoundException, ExportNotFoundException,
# ImportNotFoundException, ResourceInUseException,
# PointInTimeRecoveryUnavailableException, InvalidExportTimeException,
# LimitExceededException).
import gzip
import json
import os
import shutil
import subprocess
import time
import unittest
import urllib.request

from botocore.exceptions import ClientError

from e2e_common import (OwnServerCase, has_param, make_private_client,
                        start_private_server)


def S(v):
    return {"S": v}


def N(v):
    return {"N": str(v)}


KEYS = [{"AttributeName": "pk", "AttributeType": "S"},
        {"AttributeName": "g", "AttributeType": "N"}]
GSI = [{"IndexName": "by_g",
        "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
        "Projection": {"ProjectionType": "ALL"}}]


def item(i):
    """Items of every type, so the round trip carries each."""
    return {"pk": S("k%03d" % i), "g": N(i % 4), "n": N("-1.50E+%d" % i),
            "b": {"B": bytes([i, 0, 255])}, "ss": {"SS": ["a", "b%d" % i]},
            "ns": {"NS": ["1", str(i + 2)]}, "bs": {"BS": [b"\x01"]},
            "m": {"M": {"x": {"L": [S("y"), {"NULL": True},
                                    {"BOOL": i % 2 == 0}]}}}}


class TransferCase(OwnServerCase):
    PREFIX = "shardlocal-xfer."
    DATA_DIR = True
    FLAGS = ()

    def setUp(self):
        super().setUp()
        self.s3 = os.path.join(self.dir, "s3")
        os.makedirs(os.path.join(self.s3, "bucket-one"))
        self.proc, self.url = start_private_server(
            self.data, self.port_file, "--s3-dir", self.s3, *self.FLAGS)
        self.c = make_private_client(self.url)

    def table(self, name, n=0, gsi=True, pitr=True, **kw):
        args = dict(TableName=name,
                    AttributeDefinitions=KEYS if gsi else KEYS[:1],
                    KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                    BillingMode="PAY_PER_REQUEST")
        if gsi:
            args["GlobalSecondaryIndexes"] = GSI
        args.update(kw)
        d = self.c.create_table(**args)["TableDescription"]
        if pitr:                        # DynamoDB exports only these
            self.c.update_continuous_backups(
                TableName=name, PointInTimeRecoverySpecification={
                    "PointInTimeRecoveryEnabled": True})
        for i in range(n):
            self.c.put_item(TableName=name, Item=item(i))
        return d["TableArn"]

    def wait(self, describe, key, arn):
        deadline = time.time() + 30
        while time.time() < deadline:
            d = describe(**{key: arn})
            d = d.get("ExportDescription") or d["ImportTableDescription"]
            status = d.get("ExportStatus") or d.get("ImportStatus")
            if status != "IN_PROGRESS":
                return d
            time.sleep(0.05)
        self.fail("still IN_PROGRESS")

    def export(self, arn, **kw):
        d = self.c.export_table_to_point_in_time(
            TableArn=arn, S3Bucket="bucket-one", **kw)["ExportDescription"]
        self.assertEqual(d["ExportStatus"], "IN_PROGRESS")
        return self.wait(self.c.describe_export, "ExportArn", d["ExportArn"])

    def code(self, fn, **kw):
        with self.assertRaises(ClientError) as cm:
            fn(**kw)
        return (cm.exception.response["Error"]["Code"],
                cm.exception.response["Error"]["Message"])

    def scan_all(self, name):
        out, kw = [], {}
        while True:
            r = self.c.scan(TableName=name, **kw)
            out += r["Items"]
            if "LastEvaluatedKey" not in r:
                return sorted(out, key=lambda i: i["pk"]["S"])
            kw["ExclusiveStartKey"] = r["LastEvaluatedKey"]


class ExportFormat(TransferCase):
    def test_export_files_and_manifests(self):
        arn = self.table("src", 30)
        d = self.export(arn, S3Prefix="some/prefix")
        self.assertEqual(d["ExportStatus"], "COMPLETED")
        self.assertEqual(d["ItemCount"], 30)
        self.assertGreater(d["BilledSizeBytes"], 0)
        self.assertEqual(d["ExportFormat"], "DYNAMODB_JSON")
        if has_param(self.c, "ExportTableToPointInTime", "ExportType"):
            # Debian's boto3 1.26 predates ExportType and drops it
            self.assertEqual(d["ExportType"], "FULL_EXPORT")
        self.assertTrue(d["ExportArn"].startswith(arn + "/export/"))
        export_id = d["ExportArn"].rsplit("/", 1)[1]
        self.assertRegex(export_id, r"^\d{14}-[0-9a-f]{8}$")
        base = "some/prefix/AWSDynamoDB/" + export_id
        self.assertEqual(d["ExportManifest"], base + "/manifest-summary.json")
        root = os.path.join(self.s3, "bucket-one", base)
        self.assertTrue(os.path.exists(os.path.join(root, "_started")))
        with open(os.path.join(root, "manifest-summary.json")) as f:
            summary = json.load(f)
        self.assertEqual(summary["version"], "2020-06-30")
        self.assertEqual(summary["exportArn"], d["ExportArn"])
        self.assertEqual(summary["itemCount"], 30)
        self.assertEqual(summary["outputFormat"], "DYNAMODB_JSON")
        self.assertEqual(summary["manifestFilesS3Key"],
                         base + "/manifest-files.json")
        with open(os.path.join(root, "manifest-files.json")) as f:
            files = [json.loads(x) for x in f if x.strip()]
        # at least one file per partition (an on-demand table has 4 here)
        self.assertGreaterEqual(len(files), 4)
        self.assertEqual(sum(x["itemCount"] for x in files), 30)
        seen = []
        for x in files:
            self.assertTrue(x["dataFileS3Key"].startswith(base + "/data/"))
            self.assertTrue(x["dataFileS3Key"].endswith(".json.gz"))
            path = os.path.join(self.s3, "bucket-one", x["dataFileS3Key"])
            with gzip.open(path, "rt") as f:
                lines = [json.loads(l) for l in f if l.strip()]
            self.assertEqual(len(lines), x["itemCount"])
            seen += [l["Item"] for l in lines]
        expect = sorted(self.scan_all("src"), key=lambda i: i["pk"]["S"])
        got = sorted(seen, key=lambda i: i["pk"]["S"])
        self.assertEqual(len(got), 30)
        # the files hold DynamoDB JSON: B as base64, as on the wire
        self.assertEqual(got[1]["pk"], {"S": "k001"})
        self.assertEqual(got[1]["b"], {"B": "AQD/"})
        self.assertEqual([g["pk"] for g in got], [e["pk"] for e in expect])

    def test_export_is_a_cut_at_the_call(self):
        arn = self.table("cut", 10, gsi=False)
        d = self.export(arn)
        self.c.put_item(TableName="cut", Item=item(99))
        self.assertEqual(d["ItemCount"], 10)
        d2 = self.export(arn)
        self.assertEqual(d2["ItemCount"], 11)
        self.assertNotEqual(d["ExportArn"], d2["ExportArn"])
        # no prefix: AWSDynamoDB/ at the bucket's root
        self.assertTrue(d["ExportManifest"].startswith("AWSDynamoDB/"))

    def test_empty_partitions_get_empty_files(self):
        # "For partitions that are empty, your export request will create
        # an empty file" (the export output format page); an on-demand
        # table starts with 4 partitions here
        arn = self.table("one", 1, gsi=False)
        d = self.export(arn)
        root = os.path.join(self.s3, "bucket-one",
                            d["ExportManifest"].rsplit("/", 1)[0])
        with open(os.path.join(root, "manifest-files.json")) as f:
            files = [json.loads(x) for x in f if x.strip()]
        self.assertEqual(sorted(x["itemCount"] for x in files), [0, 0, 0, 1])
        self.assertEqual(len(os.listdir(os.path.join(root, "data"))), 4)

    def test_export_to_missing_bucket_fails(self):
        arn = self.table("nob", 1, gsi=False)
        d = self.c.export_table_to_point_in_time(
            TableArn=arn, S3Bucket="no-such-bucket")["ExportDescription"]
        d = self.wait(self.c.describe_export, "ExportArn", d["ExportArn"])
        self.assertEqual(d["ExportStatus"], "FAILED")
        self.assertEqual(d["FailureCode"], "S3NoSuchBucket")

    def test_export_needs_pitr(self):
        # "The table must have point in time recovery enabled"
        # (ExportTableToPointInTime, API reference)
        arn = self.table("nopitr", 1, gsi=False, pitr=False)
        self.assertEqual(self.code(
            self.c.export_table_to_point_in_time, TableArn=arn,
            S3Bucket="bucket-one")[0],
            "PointInTimeRecoveryUnavailableException")
        self.c.update_continuous_backups(
            TableName="nopitr", PointInTimeRecoverySpecification={
                "PointInTimeRecoveryEnabled": True})
        self.assertEqual(self.export(arn)["ItemCount"], 1)

    def test_export_errors(self):
        arn = self.table("errs", 1, gsi=False)
        self.assertEqual(self.code(
            self.c.export_table_to_point_in_time,
            TableArn=arn.replace("errs", "nothere"),
            S3Bucket="bucket-one")[0], "TableNotFoundException")
        self.assertEqual(self.code(
            self.c.describe_export,
            ExportArn=arn + "/export/01234567890123-abcdef01")[0],
            "ExportNotFoundException")
        # the same ClientToken: the same export, or a conflict
        d = self.c.export_table_to_point_in_time(
            TableArn=arn, S3Bucket="bucket-one", ClientToken="tok-1")
        d2 = self.c.export_table_to_point_in_time(
            TableArn=arn, S3Bucket="bucket-one", ClientToken="tok-1")
        self.assertEqual(d["ExportDescription"]["ExportArn"],
                         d2["ExportDescription"]["ExportArn"])
        self.assertEqual(self.code(
            self.c.export_table_to_point_in_time, TableArn=arn,
            S3Bucket="bucket-one", S3Prefix="other",
            ClientToken="tok-1")[0], "ExportConflictException")
        # refused locally, with a clear message
        code, msg = self.code(self.c.export_table_to_point_in_time,
                              TableArn=arn, S3Bucket="bucket-one",
                              ExportFormat="ION")
        self.assertEqual(code, "ValidationException")
        self.assertIn("ION", msg)
        # outside the recovery window: before PITR was on, or ahead
        code, msg = self.code(self.c.export_table_to_point_in_time,
                              TableArn=arn, S3Bucket="bucket-one",
                              ExportTime=time.time() - 3600)
        self.assertEqual(code, "InvalidExportTimeException")
        self.assertIn("ExportTime", msg)
        self.assertEqual(self.code(
            self.c.export_table_to_point_in_time, TableArn=arn,
            S3Bucket="bucket-one", ExportTime=time.time() + 3600)[0],
            "InvalidExportTimeException")
        self.assertEqual(self.code(
            self.c.export_table_to_point_in_time, TableArn=arn,
            S3Bucket="../etc")[0], "ValidationException")
        self.assertEqual(self.code(
            self.c.export_table_to_point_in_time, TableArn=arn,
            S3Bucket="bucket-one", S3Prefix="a/../../b")[0],
            "ValidationException")

    def test_list_exports_pages_and_filters(self):
        a = self.table("lst-a", 1, gsi=False)
        b = self.table("lst-b", 1, gsi=False)
        arns = [self.export(a)["ExportArn"], self.export(b)["ExportArn"],
                self.export(a)["ExportArn"]]
        r = self.c.list_exports(MaxResults=2)
        self.assertEqual(len(r["ExportSummaries"]), 2)
        r2 = self.c.list_exports(MaxResults=2, NextToken=r["NextToken"])
        self.assertNotIn("NextToken", r2)
        got = [s["ExportArn"] for s in r["ExportSummaries"] +
               r2["ExportSummaries"]]
        self.assertEqual(sorted(got), sorted(arns))
        only_a = self.c.list_exports(TableArn=a)["ExportSummaries"]
        self.assertEqual(sorted(s["ExportArn"] for s in only_a),
                         sorted([arns[0], arns[2]]))
        self.assertEqual({s["ExportStatus"] for s in only_a}, {"COMPLETED"})


class RoundTrip(TransferCase):
    def import_table(self, name, prefix, gsi=True, **kw):
        tcp = {"TableName": name, "AttributeDefinitions": KEYS,
               "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
               "BillingMode": "PAY_PER_REQUEST"}
        if gsi:
            tcp["GlobalSecondaryIndexes"] = GSI
        args = dict(S3BucketSource={"S3Bucket": "bucket-one",
                                    "S3KeyPrefix": prefix},
                    InputFormat="DYNAMODB_JSON", InputCompressionType="GZIP",
                    TableCreationParameters=tcp)
        args.update(kw)
        d = self.c.import_table(**args)["ImportTableDescription"]
        self.assertEqual(d["ImportStatus"], "IN_PROGRESS")
        return self.wait(self.c.describe_import, "ImportArn", d["ImportArn"])

    def test_export_then_import_every_item(self):
        self.table("orig", 40)
        arn = self.c.describe_table(TableName="orig")["Table"]["TableArn"]
        d = self.export(arn, S3Prefix="rt")
        data = d["ExportManifest"].rsplit("/", 1)[0] + "/data/"
        i = self.import_table("copy", data)
        self.assertEqual(i["ImportStatus"], "COMPLETED")
        self.assertEqual(i["ImportedItemCount"], 40)
        self.assertEqual(i["ProcessedItemCount"], 40)
        self.assertEqual(i["ErrorCount"], 0)
        self.assertGreater(i["ProcessedSizeBytes"], 0)
        self.assertTrue(i["ImportArn"].startswith(i["TableArn"] +
                                                  "/import/"))
        self.assertEqual(self.scan_all("orig"), self.scan_all("copy"))
        # the GSI was written with the items
        q = self.c.query(TableName="copy", IndexName="by_g",
                         KeyConditionExpression="g = :g",
                         ExpressionAttributeValues={":g": N(1)})
        self.assertEqual(q["Count"], 10)
        t = self.c.describe_table(TableName="copy")["Table"]
        self.assertEqual(t["GlobalSecondaryIndexes"][0]["IndexName"],
                         "by_g")
        lst = self.c.list_imports()["ImportSummaryList"]
        self.assertEqual([x["ImportArn"] for x in lst], [i["ImportArn"]])
        self.assertEqual(self.c.list_imports(
            TableArn=i["TableArn"])["ImportSummaryList"][0]["ImportStatus"],
            "COMPLETED")

    def test_bad_lines_count_as_errors(self):
        root = os.path.join(self.s3, "bucket-one", "mixed")
        os.makedirs(root)
        with open(os.path.join(root, "part.json"), "w") as f:
            f.write(json.dumps({"Item": {"pk": S("a"), "g": N(1)}}) + "\n")
            f.write("not json\n")
            f.write(json.dumps({"Item": {"g": N(1)}}) + "\n")   # no key
            f.write(json.dumps({"Item": {"pk": N(5)}}) + "\n")  # key type
            f.write(json.dumps({"Item": {"pk": S("b"), "g": S("x")}}) +
                    "\n")                                     # GSI key type
            f.write("\n")
            f.write(json.dumps({"Item": {"pk": S("c")}}))        # no newline
        i = self.import_table("mixed", "mixed/", InputCompressionType="NONE")
        self.assertEqual(i["ImportStatus"], "COMPLETED")
        self.assertEqual(i["ImportedItemCount"], 2)
        self.assertEqual(i["ErrorCount"], 4)
        self.assertEqual(i["ProcessedItemCount"], 6)
        self.assertEqual([x["pk"]["S"] for x in self.scan_all("mixed")],
                         ["a", "c"])

    def test_csv_import(self):
        root = os.path.join(self.s3, "bucket-one", "csv")
        os.makedirs(root)
        with open(os.path.join(root, "a.csv"), "w") as f:
            f.write('pk,g,note\nx1,7,"hello, world"\nx2,8,\n'
                    'x3,notanumber,z\n"x4",9,"say ""hi"""\n')
        with gzip.open(os.path.join(root, "b.csv.gz"), "wt") as f:
            f.write("y1;3;q\n")
        i = self.import_table("fromcsv", "csv/a", InputFormat="CSV",
                              InputCompressionType="NONE")
        self.assertEqual(i["ImportedItemCount"], 3)
        self.assertEqual(i["ErrorCount"], 1)
        items = self.scan_all("fromcsv")
        self.assertEqual(items[0], {"pk": S("x1"), "g": N(7),
                                    "note": S("hello, world")})
        self.assertEqual(items[1], {"pk": S("x2"), "g": N(8)})
        self.assertEqual(items[2]["note"], S('say "hi"'))
        i = self.import_table(
            "fromcsv2", "csv/b", InputFormat="CSV",
            InputFormatOptions={"Csv": {"Delimiter": ";",
                                        "HeaderList": ["pk", "g", "o"]}})
        self.assertEqual(i["ImportedItemCount"], 1)
        self.assertEqual(self.scan_all("fromcsv2"),
                         [{"pk": S("y1"), "g": N(3), "o": S("q")}])

    @unittest.skipUnless(shutil.which("zstd"), "needs the zstd tool")
    def test_zstd_import(self):
        # InputCompressionType ZSTD (ImportTable API reference): two
        # objects, one of them two zstd frames
        root = os.path.join(self.s3, "bucket-one", "zst")
        os.makedirs(root)
        for name, rows in (("a", range(0, 5)), ("b", range(5, 9))):
            raw = os.path.join(root, name + ".json")
            with open(raw, "w") as f:
                f.write("".join(json.dumps({"Item": {"pk": S("z%d" % i),
                                                     "g": N(i)}}) + "\n"
                                for i in rows))
            subprocess.run(["zstd", "-q", "--rm", raw], check=True)
        frame = subprocess.run(["zstd", "-q", "-c"], check=True,
                               capture_output=True,
                               input=(json.dumps({"Item": {
                                   "pk": S("z9"), "g": N(9)}}) +
                                   "\n").encode()).stdout
        with open(os.path.join(root, "a.json.zst"), "ab") as f:
            f.write(frame)
        i = self.import_table("fromzstd", "zst/",
                              InputCompressionType="ZSTD")
        self.assertEqual((i["ImportStatus"], i["ImportedItemCount"],
                          i["ErrorCount"]), ("COMPLETED", 10, 0))
        self.assertEqual(len(self.scan_all("fromzstd")), 10)
        # a gzip object read as ZSTD is a corrupt object: one error
        with gzip.open(os.path.join(root, "c.json.gz"), "wt") as f:
            f.write(json.dumps({"Item": {"pk": S("q")}}) + "\n")
        i = self.import_table("badzstd", "zst/c",
                              InputCompressionType="ZSTD")
        self.assertEqual((i["ImportedItemCount"], i["ErrorCount"]), (0, 1))

    def test_import_errors(self):
        self.table("taken", 0, gsi=False, pitr=False)
        root = os.path.join(self.s3, "bucket-one", "one")
        os.makedirs(root)
        with open(os.path.join(root, "x.json"), "w") as f:
            f.write(json.dumps({"Item": {"pk": S("a")}}) + "\n")
        code, _ = self.code(
            self.c.import_table,
            S3BucketSource={"S3Bucket": "bucket-one", "S3KeyPrefix": "one"},
            InputFormat="DYNAMODB_JSON",
            TableCreationParameters={
                "TableName": "taken", "AttributeDefinitions": KEYS[:1],
                "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
                "BillingMode": "PAY_PER_REQUEST"})
        self.assertEqual(code, "ResourceInUseException")
        tcp = {"TableName": "tok", "AttributeDefinitions": KEYS[:1],
               "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
               "BillingMode": "PAY_PER_REQUEST"}
        src = {"S3Bucket": "bucket-one", "S3KeyPrefix": "one"}
        a = self.c.import_table(S3BucketSource=src,
                                InputFormat="DYNAMODB_JSON",
                                TableCreationParameters=tcp,
                                ClientToken="same")
        b = self.c.import_table(S3BucketSource=src,
                                InputFormat="DYNAMODB_JSON",
                                TableCreationParameters=tcp,
                                ClientToken="same")
        self.assertEqual(a["ImportTableDescription"]["ImportArn"],
                         b["ImportTableDescription"]["ImportArn"])
        self.assertEqual(self.code(
            self.c.import_table, S3BucketSource=src, InputFormat="CSV",
            TableCreationParameters=tcp, ClientToken="same")[0],
            "ImportConflictException")
        self.assertEqual(self.code(
            self.c.describe_import,
            ImportArn=a["ImportTableDescription"]["TableArn"] +
            "/import/01234567890123-abcdef01")[0], "ImportNotFoundException")
        code, msg = self.code(
            self.c.import_table, S3BucketSource=src, InputFormat="ION",
            TableCreationParameters=dict(tcp, TableName="ion"))
        self.assertEqual(code, "ValidationException")
        self.assertIn("ION", msg)
        # CreateTable's own checks apply to TableCreationParameters
        self.assertEqual(self.code(
            self.c.import_table, S3BucketSource=src,
            InputFormat="DYNAMODB_JSON",
            TableCreationParameters=dict(tcp, TableName="bad",
                                         KeySchema=[{
                                             "AttributeName": "zz",
                                             "KeyType": "HASH"}]))[0],
            "ValidationException")
        self.assertNotIn("bad", self.c.list_tables()["TableNames"])
        # a missing bucket, and a prefix with nothing under it: FAILED
        i = self.c.import_table(S3BucketSource={"S3Bucket": "nope-bucket"},
                                InputFormat="DYNAMODB_JSON",
                                TableCreationParameters=dict(
                                    tcp, TableName="nob"))
        d = self.wait(self.c.describe_import, "ImportArn",
                      i["ImportTableDescription"]["ImportArn"])
        self.assertEqual((d["ImportStatus"], d["FailureCode"]),
                         ("FAILED", "S3NoSuchBucket"))
        i = self.c.import_table(S3BucketSource={"S3Bucket": "bucket-one",
                                                "S3KeyPrefix": "empty/"},
                                InputFormat="DYNAMODB_JSON",
                                TableCreationParameters=dict(
                                    tcp, TableName="noobj"))
        d = self.wait(self.c.describe_import, "ImportArn",
                      i["ImportTableDescription"]["ImportArn"])
        self.assertEqual(d["ImportStatus"], "FAILED")


class Lifecycle(TransferCase):
    """IN_PROGRESS lasts the status delay on the virtual clock, as a table's
    CREATING does."""
    FLAGS = ("--virtual-clock", "--status-delay-ms", "60000")

    def clock_s(self):
        with urllib.request.urlopen(self.url + "/shardlocal/clock") as r:
            return json.loads(r.read())["now_ms"] / 1000.0

    def advance(self, ms):
        req = urllib.request.Request(
            self.url + "/shardlocal/clock", method="POST",
            data=('{"advance_ms": %d}' % ms).encode(),
            headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=5) as r:
            self.assertEqual(r.status, 200)

    def test_in_progress_until_the_delay(self):
        arn = self.table("slow", 0, gsi=False, pitr=False)
        self.advance(60000)
        self.c.update_continuous_backups(
            TableName="slow", PointInTimeRecoverySpecification={
                "PointInTimeRecoveryEnabled": True})
        self.c.put_item(TableName="slow", Item=item(1))
        d = self.c.export_table_to_point_in_time(
            TableArn=arn, S3Bucket="bucket-one")["ExportDescription"]
        time.sleep(0.3)                 # the job itself is long done
        d2 = self.c.describe_export(ExportArn=d["ExportArn"])
        self.assertEqual(d2["ExportDescription"]["ExportStatus"],
                         "IN_PROGRESS")
        self.assertNotIn("ItemCount", d2["ExportDescription"])
        self.advance(60000)
        d3 = self.wait(self.c.describe_export, "ExportArn", d["ExportArn"])
        self.assertEqual(d3["ExportStatus"], "COMPLETED")
        self.assertEqual(d3["ItemCount"], 1)

    def test_export_of_a_past_time(self):
        # ExportTime inside the recovery window: the table as it was then
        # (point-in-time recovery's state at that time), not as it is now
        arn = self.table("past", 0, gsi=False, pitr=False)
        self.advance(60000)
        self.c.update_continuous_backups(
            TableName="past", PointInTimeRecoverySpecification={
                "PointInTimeRecoveryEnabled": True})
        for i in range(3):
            self.c.put_item(TableName="past", Item=item(i))
        self.advance(5000)
        then = self.clock_s()
        self.advance(5000)
        self.c.delete_item(TableName="past", Key={"pk": S("k000")})
        self.c.put_item(TableName="past", Item=item(7))
        d = self.c.export_table_to_point_in_time(
            TableArn=arn, S3Bucket="bucket-one", ExportTime=then)
        d = d["ExportDescription"]
        # boto3 sends whole seconds
        self.assertEqual(d["ExportTime"].timestamp(), int(then))
        self.advance(60000)
        d = self.wait(self.c.describe_export, "ExportArn", d["ExportArn"])
        self.assertEqual((d["ExportStatus"], d["ItemCount"]),
                         ("COMPLETED", 3))
        root = os.path.join(self.s3, "bucket-one",
                            d["ExportManifest"].rsplit("/", 1)[0])
        pks = []
        for f in os.listdir(os.path.join(root, "data")):
            with gzip.open(os.path.join(root, "data", f), "rt") as fh:
                pks += [json.loads(x)["Item"]["pk"]["S"] for x in fh]
        self.assertEqual(sorted(pks), ["k000", "k001", "k002"])

    def test_import_limit(self):
        # "up to 50 simultaneous import table operations are allowed per
        # account" (LimitExceededException, API reference): 50 imports
        # held IN_PROGRESS on the virtual clock, the 51st refused until
        # they end
        root = os.path.join(self.s3, "bucket-one", "lim")
        os.makedirs(root)
        with open(os.path.join(root, "x.json"), "w") as f:
            f.write(json.dumps({"Item": {"pk": S("a")}}) + "\n")

        def imp(name):
            return self.c.import_table(
                S3BucketSource={"S3Bucket": "bucket-one",
                                "S3KeyPrefix": "lim/"},
                InputFormat="DYNAMODB_JSON",
                TableCreationParameters={
                    "TableName": name, "AttributeDefinitions": KEYS[:1],
                    "KeySchema": [{"AttributeName": "pk",
                                   "KeyType": "HASH"}],
                    "BillingMode": "PAY_PER_REQUEST"})
        for i in range(50):
            imp("lim%02d" % i)
        self.assertEqual(self.code(imp, name="lim50")[0],
                         "LimitExceededException")
        self.advance(60000)
        imp("lim50")
