# SPDX-License-Identifier: MIT
# test_protocol.py - the wire protocol by hand (http.client): framing
# errors, response headers, keep-alive, size limits, JSON escapes. After
# every bad request the server must still answer.
import email.utils
import http.client
import json
import select
import socket
import time
import unittest
import urllib.parse
import uuid
import zlib

from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

from e2e_common import (ENDPOINT, REGION, client, create_table,
                        delete_table_quietly, dynalite_differs, unique_name)

CREDS = Credentials("AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY")
EMOJI_ESC = "\\ud83d\\ude00"          # U+1F600 as a JSON surrogate pair


def sign(body, target, extra=None):
    """Headers of a SigV4-signed DynamoDB request (the way botocore signs)."""
    req = AWSRequest(method="POST", url=ENDPOINT + "/", data=body, headers={
        "Content-Type": "application/x-amz-json-1.0",
        "X-Amz-Target": "DynamoDB_20120810." + target})
    SigV4Auth(CREDS, "dynamodb", REGION).add_auth(req)
    headers = dict(req.headers.items())
    headers.update(extra or {})
    return headers


@unittest.skipUnless(ENDPOINT, "needs SHARDLOCAL_ENDPOINT")
class ProtocolTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        u = urllib.parse.urlsplit(ENDPOINT)
        cls.host, cls.port = u.hostname, u.port or 80
        cls.c = client()
        cls.table = unique_name("proto")
        create_table(cls.c, cls.table)

    @classmethod
    def tearDownClass(cls):
        delete_table_quietly(cls.c, cls.table)

    def setUp(self):
        self.conn = http.client.HTTPConnection(self.host, self.port,
                                               timeout=30)

    def tearDown(self):
        self.conn.close()
        self.assertAlive()

    def assertAlive(self):
        conn = http.client.HTTPConnection(self.host, self.port, timeout=10)
        try:
            conn.request("GET", "/")
            r = conn.getresponse()
            r.read()
            self.assertEqual(r.status, 200, "server stopped answering")
        finally:
            conn.close()

    def call(self, target, body, headers=None, raw=False, conn=None):
        """POST body (str/bytes/obj) signed for target; (resp, bytes)."""
        if not isinstance(body, (str, bytes)):
            body = json.dumps(body)
        if isinstance(body, str):
            body = body.encode("utf-8")
        h = headers if raw else sign(body, target, headers)
        conn = conn or self.conn
        conn.request("POST", "/", body=body, headers=h)
        r = conn.getresponse()
        return r, r.read()

    def error(self, resp, data, status=400):
        self.assertEqual(resp.status, status, data)
        doc = json.loads(data)
        self.assertIsInstance(doc, dict)
        return doc["__type"], doc.get("message", doc.get("Message"))

    # --- framing errors ---------------------------------------------------

    def test_malformed_json(self):
        for body in (b"{", b"{\"TableName\": }", b"not json", b"\xff\xfe"):
            with self.subTest(body=body):
                r, data = self.call("ListTables", body)
                t, _ = self.error(r, data)
                self.assertEqual(
                    t, "com.amazon.coral.service#SerializationException")

    @dynalite_differs("accepts non-object bodies")
    def test_non_object_body(self):
        for body in (b"[]", b"\"str\"", b"42", b"null"):
            with self.subTest(body=body):
                r, data = self.call("ListTables", body)
                t, _ = self.error(r, data)
                self.assertEqual(
                    t, "com.amazon.coral.service#SerializationException")

    def test_unknown_operation(self):
        for target in ("NoSuchOperation", "putitem", ""):
            with self.subTest(target=target):
                r, data = self.call(target, b"{}")
                t, _ = self.error(r, data)
                self.assertEqual(
                    t, "com.amazon.coral.service#UnknownOperationException")
        r, data = self.call("x", b"{}", raw=True, headers={
            "Content-Type": "application/x-amz-json-1.0",
            "X-Amz-Target": "DynamoDB_20990101.ListTables",
            "Authorization": sign(b"{}", "ListTables")["Authorization"]})
        t, _ = self.error(r, data)
        self.assertEqual(t,
                         "com.amazon.coral.service#UnknownOperationException")

    def test_missing_auth(self):
        r, data = self.call("ListTables", b"{}", raw=True, headers={
            "Content-Type": "application/x-amz-json-1.0",
            "X-Amz-Target": "DynamoDB_20120810.ListTables",
            "X-Amz-Date": time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())})
        t, msg = self.error(r, data)
        self.assertEqual(
            t, "com.amazon.coral.service#MissingAuthenticationTokenException")
        self.assertEqual(msg, "Request is missing Authentication Token")

    def test_wrong_json_types(self):
        cases = [
            ("DescribeTable", {"TableName": 123},
             "NUMBER_VALUE cannot be converted to String"),
            ("DescribeTable", {"TableName": True},
             "TRUE_VALUE cannot be converted to String"),
            ("ListTables", {"Limit": "5"},
             "STRING_VALUE cannot be converted to Integer"),
            ("GetItem", {"TableName": self.table, "Key": []}, None),
            ("GetItem", {"TableName": self.table,
                         "Key": {"pk": {"S": 5}}},
             "NUMBER_VALUE cannot be converted to String"),
        ]
        for target, body, msg in cases:
            with self.subTest(body=body):
                r, data = self.call(target, body)
                t, m = self.error(r, data)
                self.assertEqual(
                    t, "com.amazon.coral.service#SerializationException")
                if msg is not None:
                    self.assertEqual(m, msg)

    @dynalite_differs("413 with an empty body")
    def test_body_over_16mb(self):
        size = 16 * 1024 * 1024 + 1024
        body_head = b'{"TableName": "' + self.table.encode() + b'", "x": "'
        pad = size - len(body_head) - 2
        hdrs = sign(b"{}", "ListTables")
        hdrs.pop("Content-Length", None)
        s = socket.create_connection((self.host, self.port), timeout=30)
        try:
            head = "POST / HTTP/1.1\r\nHost: %s:%d\r\n" % (self.host,
                                                          self.port)
            for k, v in hdrs.items():
                head += "%s: %s\r\n" % (k, v)
            head += "Content-Length: %d\r\n\r\n" % size
            s.sendall(head.encode())
            # A server may refuse on Content-Length alone: give it a moment
            # to answer before streaming 16 MB into a closed socket (an RST
            # could then destroy the response).
            early = select.select([s], [], [], 0.5)[0]
            if not early:
                try:
                    s.sendall(body_head)
                    chunk = b"a" * 65536
                    left = pad
                    while left > 0:
                        n = min(left, len(chunk))
                        s.sendall(chunk[:n])
                        left -= n
                    s.sendall(b'"}')
                except OSError:
                    pass        # the server may answer and stop reading
            resp = b""
            while b"\r\n\r\n" not in resp or not self._complete(resp):
                try:
                    d = s.recv(65536)
                except OSError:
                    break
                if not d:
                    break
                resp += d
        finally:
            s.close()
        status_line, _, rest = resp.partition(b"\r\n")
        self.assertIn(b" 413", status_line, resp[:200])
        headers, _, body = rest.partition(b"\r\n\r\n")
        doc = json.loads(body.decode() or "null")
        self.assertIsInstance(doc, dict, body[:200])
        self.assertIn("__type", doc)

    @staticmethod
    def _complete(resp):
        head, _, body = resp.partition(b"\r\n\r\n")
        for line in head.split(b"\r\n"):
            if line.lower().startswith(b"content-length:"):
                return len(body) >= int(line.split(b":")[1])
        return False

    @dynalite_differs("crashes on a null AttributeValue")
    def test_garbage_never_crashes(self):
        # Every answer must be a JSON 400 (or a 200), never a crash or 500.
        t = self.table
        values = [None, 1, -1, 1e300, "s", "", [], {}, [1], {"a": 1}, True,
                  {"S": 1}, {"N": 1}, {"N": "1e999999999"}, {"N": "-"},
                  {"N": "1e"}, {"N": ".e1"}, {"B": "not base64!"},
                  {"B": "YQ"}, {"L": {}}, {"M": []}, {"M": {"": {"S": "x"}}},
                  {"SS": "a"}, {"NS": [1]}, {"BS": ["!!"]}, {"BOOL": "yes"},
                  {"NULL": "true"}, {"X": "y"}, {"S": "\u0000"}]
        bodies = []
        for v in values:
            bodies += [
                ("PutItem", {"TableName": t, "Item": {"pk": {"S": "g"},
                                                      "a": v}}),
                ("PutItem", {"TableName": t, "Item": v}),
                ("GetItem", {"TableName": t, "Key": v}),
                ("GetItem", {"TableName": t, "Key": {"pk": v}}),
                ("UpdateItem", {"TableName": t, "Key": {"pk": {"S": "g"}},
                                "UpdateExpression": "SET a = :v",
                                "ExpressionAttributeValues": {":v": v}}),
                ("UpdateItem", {"TableName": t, "Key": {"pk": {"S": "g"}},
                                "UpdateExpression": v}),
                ("Query", {"TableName": t, "KeyConditionExpression":
                           "pk = :v", "ExpressionAttributeValues":
                           {":v": v}}),
                ("Query", {"TableName": t, "KeyConditionExpression": v}),
                ("Scan", {"TableName": t, "Limit": v}),
                ("Scan", {"TableName": t, "Segment": v, "TotalSegments": 2}),
                ("Scan", {"TableName": t, "ExclusiveStartKey": v}),
                ("CreateTable", {"TableName": "g" + uuid.uuid4().hex[:8],
                                 "AttributeDefinitions": v,
                                 "KeySchema": v}),
                ("ListTables", {"Limit": v, "ExclusiveStartTableName": v}),
                ("DescribeTable", {"TableName": v}),
            ]
        bad_exprs = ["SET", "SET a", "SET a = ", "REMOVE", "ADD a", "a = :v",
                     "SET a[99999999999999999999] = :v", "SET #", "SET :",
                     "SET a = ((((((((((:v))))))))))", "SET a = :v, a = :v",
                     "REMOVE a[-1]", "SET a.b.c.d.e.f[1][2][3] = :v",
                     "SET a = list_append(list_append(:v, :v), :v)",
                     "SET " + ", ".join("a%d = :v" % i for i in range(500)),
                     "SET a = " + " + ".join([":v"] * 300), "\u0000"]
        for e in bad_exprs:
            bodies.append(("UpdateItem", {
                "TableName": t, "Key": {"pk": {"S": "g"}},
                "UpdateExpression": e,
                "ExpressionAttributeValues": {":v": {"N": "1"}}}))
            bodies.append(("Query", {
                "TableName": t, "KeyConditionExpression": e,
                "ExpressionAttributeValues": {":v": {"S": "1"}}}))
            bodies.append(("Scan", {"TableName": t, "FilterExpression": e,
                                    "ProjectionExpression": e}))
        # 5000 levels of lists: written by hand (json.dumps would recurse).
        deep = '{"L": [' * 5000 + '{"S": "x"}' + ']}' * 5000
        bodies.append(("PutItem", '{"TableName": "%s", "Item": {"pk": '
                       '{"S": "g"}, "a": %s}}' % (t, deep)))
        bodies.append(("PutItem", '{"TableName": "%s", "Item": {"pk": '
                       '{"S": "g"}, "a": %s}}' % (t, "[" * 100000)))
        for target, body in bodies:
            try:
                r, data = self.call(target, body)
            except (OSError, http.client.HTTPException) as e:
                self.fail("%s %.300s: %r" % (target, body, e))
            self.assertIn(r.status, (200, 400),
                          "%s %.300s: %.300s" % (target, body, data))
            doc = json.loads(data)
            if r.status == 400:
                self.assertIn("__type", doc, "%s %.300s" % (target, body))
        self.assertAlive()

    # --- responses ----------------------------------------------------------

    def test_response_headers(self):
        for target, body in (("ListTables", {}),
                             ("DescribeTable", {"TableName": "nope_x"})):
            with self.subTest(target=target):
                r, data = self.call(target, body)
                self.assertEqual(r.getheader("Content-Type"),
                                 "application/x-amz-json-1.0")
                rid = r.getheader("x-amzn-RequestId")
                # DynamoDB's form: 52 upper-case letters and digits
                self.assertRegex(rid or "", r"^[A-Z0-9]{52}$")
                self.assertGreater(len(set(rid)), 12, rid)
                self.assertEqual(int(r.getheader("Content-Length")),
                                 len(data))
                crc = r.getheader("x-amz-crc32")
                self.assertIsNotNone(crc)
                self.assertEqual(int(crc), zlib.crc32(data) & 0xffffffff)
                date = email.utils.parsedate_to_datetime(r.getheader("Date"))
                self.assertLess(abs(date.timestamp() - time.time()), 120)
                self.assertNotIn("gzip", r.getheader("Content-Encoding", ""))
        r2, _ = self.call("ListTables", {})
        self.assertNotEqual(r2.getheader("x-amzn-RequestId"), rid)

    def test_default_boto3_client_never_retries(self):
        # boto3's default (legacy) retry mode retries a wrong x-amz-crc32 10
        # times (25 s) and then raises ChecksumError: a correct CRC and
        # non-retryable errors mean RetryAttempts stays 0.
        import boto3
        c = boto3.client("dynamodb", endpoint_url=ENDPOINT,
                         region_name=REGION)
        r = c.describe_table(TableName=self.table)
        self.assertEqual(r["ResponseMetadata"]["RetryAttempts"], 0)
        r = c.get_item(TableName=self.table, Key={"pk": {"S": "zz"}})
        self.assertEqual(r["ResponseMetadata"]["RetryAttempts"], 0)
        from botocore.exceptions import ClientError
        start = time.monotonic()
        with self.assertRaises(ClientError) as cm:
            c.get_item(TableName=self.table, Key={"bad": {"S": "a"}})
        meta = cm.exception.response["ResponseMetadata"]
        self.assertEqual(meta["RetryAttempts"], 0)
        self.assertLess(time.monotonic() - start, 5)

    def test_describe_timestamps_are_numbers(self):
        r, data = self.call("DescribeTable", {"TableName": self.table})
        self.assertEqual(r.status, 200)
        t = json.loads(data)["Table"]
        self.assertIsInstance(t["CreationDateTime"], (int, float))
        self.assertLess(abs(t["CreationDateTime"] - time.time()), 600)

    def test_error_shape(self):
        missing = "nope_" + uuid.uuid4().hex
        r, data = self.call("GetItem", {"TableName": missing,
                                        "Key": {"pk": {"S": "a"}}})
        t, msg = self.error(r, data)
        self.assertEqual(t, "com.amazonaws.dynamodb.v20120810#"
                            "ResourceNotFoundException")
        self.assertEqual(msg, "Requested resource not found")
        r, data = self.call("GetItem", {"TableName": self.table,
                                        "Key": {"bad": {"S": "a"}}})
        t, msg = self.error(r, data)
        self.assertEqual(t, "com.amazon.coral.validate#ValidationException")
        self.assertEqual(json.loads(data)["message"],
                         "The provided key element does not match the schema")

    def test_keep_alive_across_errors(self):
        seq = [("ListTables", {}), ("NoSuchOp", {}), ("ListTables", b"{"),
               ("DescribeTable", {"TableName": "nope_ka"}),
               ("ListTables", {})]
        sockname = None
        for target, body in seq:
            r, _ = self.call(target, body)
            self.assertNotEqual((r.getheader("Connection") or "").lower(),
                                "close", target)
            self.assertIsNotNone(self.conn.sock, "connection closed")
            if sockname is None:
                sockname = self.conn.sock.getsockname()
            self.assertEqual(self.conn.sock.getsockname(), sockname,
                             "reconnected after " + target)

    def test_health(self):
        self.conn.request("GET", "/")
        r = self.conn.getresponse()
        r.read()
        self.assertEqual(r.status, 200)

    @dynalite_differs("answers 200 to every GET")
    def test_404_json(self):
        self.conn.request("GET", "/no/such/path")
        r = self.conn.getresponse()
        data = r.read()
        self.assertEqual(r.status, 404)
        self.assertIsInstance(json.loads(data), dict)

    # --- JSON text ----------------------------------------------------------

    def test_escapes_and_raw_utf8_are_the_same(self):
        # Python clients escape (\u00e9, surrogate pairs); JS sends UTF-8.
        escaped = ('{"TableName": "%s", "Item": {"pk": {"S": "k\\u00e9%s"},'
                   ' "v": {"S": "x\\u00e9%s\\n"}}}'
                   % (self.table, EMOJI_ESC, EMOJI_ESC))
        r, data = self.call("PutItem", escaped.encode("ascii"))
        self.assertEqual(r.status, 200, data)
        raw = json.dumps({"TableName": self.table,
                          "Key": {"pk": {"S": "k\u00e9\U0001F600"}}},
                         ensure_ascii=False, separators=(",", ":"))
        r, data = self.call("GetItem", raw.encode("utf-8"))
        self.assertEqual(r.status, 200, data)
        item = json.loads(data)["Item"]
        self.assertEqual(item["v"]["S"], "x\u00e9\U0001F600\n")

    @dynalite_differs("counts UTF-16 code units")
    def test_sizes_count_utf8_bytes(self):
        # 1000 x U+00E9 is 2000 UTF-8 bytes: 2 write units, escaped or raw.
        for ensure_ascii in (True, False):
            with self.subTest(escaped=ensure_ascii):
                body = json.dumps({"TableName": self.table,
                                   "Item": {"pk": {"S": "sz"},
                                            "d": {"S": "\u00e9" * 1000}},
                                   "ReturnConsumedCapacity": "TOTAL"},
                                  ensure_ascii=ensure_ascii)
                r, data = self.call("PutItem", body.encode("utf-8"))
                self.assertEqual(r.status, 200, data)
                cc = json.loads(data)["ConsumedCapacity"]
                self.assertEqual(cc["CapacityUnits"], 2.0)

    def test_lone_surrogate_does_not_crash(self):
        # Whether DynamoDB stores or refuses a lone surrogate is not pinned
        # down here; the answer must be a proper 200 or 400 (tearDown then
        # checks the server is alive).
        body = ('{"TableName": "%s", "Item": {"pk": {"S": "\\ud83d"}}}'
                % self.table)
        r, data = self.call("PutItem", body.encode("ascii"))
        self.assertIn(r.status, (200, 400), data)
        if r.status == 400:
            self.assertIn("__type", json.loads(data))


if __name__ == "__main__":
    unittest.main()
