# SPDX-License-Identifier: MIT
# test_signatures.py - --auth signature: every request's SigV4 signature
# verified as AWS verifies it, with DynamoDB's errors and messages, from
# boto3 (its own signing, a client whose clock is off, a session token,
# no signature at all) and from raw requests signed with botocore's signer
# (the presigned query form, gzip and chunked bodies, broken headers); the
# admin endpoints need a signed request too; --admin-from guards the admin
# calls that change state when the server listens beyond loopback.
#
# Sources of the expected behaviour: the messages are DynamoDB's as
# dynalite recorded them (its index.js keeps each recording beside the
# check; its test/connection.js ran against DynamoDB) and as scylladb's
# test_authorization.py asserts them against DynamoDB ("Signature expired",
# "Signature not yet current", UnrecognizedClientException for an unknown
# key); InvalidSignatureException's mismatch message is the one AWS's
# documentation and every SDK issue quote.
import contextlib
import datetime
import gzip
import http.client
import json
import os
import re
import shutil
import subprocess
import tempfile
import types
import unittest
import urllib.parse
from unittest import mock

import boto3
import botocore
import botocore.auth
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.config import Config
from botocore.credentials import Credentials

from e2e_common import (BIN, KEYS, REGION, ErrorAsserts, sanitizer_reports,
                        signed_client, start_private_server, start_signed_server,
                        stop_private_server, stop_temp_server)

MISMATCH = ("The request signature we calculated does not match the "
            "signature you provided. Check your AWS Secret Access Key and "
            "signing method. Consult the service documentation for details.")
UNRECOGNIZED = "The security token included in the request is invalid."
MISSING = "Request is missing Authentication Token"
ALICE, BOB, DEFAULT = KEYS
ISO = "%Y%m%dT%H%M%SZ"
NO_RETRY = Config(retries={"max_attempts": 1, "mode": "standard"},
                  connect_timeout=5, read_timeout=30)


@contextlib.contextmanager
def skewed_clock(seconds):
    """botocore signs with its clock moved by seconds (a machine whose
    clock is off): get_current_datetime in new botocore, datetime.utcnow
    in Debian's 1.29, whose v4 signer is awscrt's (botocore.crt.auth) when
    awscrt is installed, as the Debian CLI v2 installs it."""
    shift = datetime.timedelta(seconds=seconds)
    real_dt = datetime.datetime

    class Skewed(real_dt):
        @classmethod
        def utcnow(cls):
            return real_dt.utcnow() + shift
    skewed = types.SimpleNamespace(datetime=Skewed,
                                   timezone=datetime.timezone)
    with contextlib.ExitStack() as stack:
        if hasattr(botocore.auth, "get_current_datetime"):
            real = botocore.auth.get_current_datetime
            stack.enter_context(mock.patch.object(
                botocore.auth, "get_current_datetime",
                lambda *a, **k: real(*a, **k) + shift))
        else:
            stack.enter_context(mock.patch.object(botocore.auth, "datetime",
                                                  skewed))
        try:
            import botocore.crt.auth as crt_auth
        except ImportError:
            crt_auth = None
        if crt_auth is not None and hasattr(crt_auth, "datetime"):
            stack.enter_context(mock.patch.object(crt_auth, "datetime",
                                                  skewed))
        yield


def sign(url, body, key, secret, path="/", target="ListTables",
         region=REGION, service="dynamodb", method="POST", headers=None):
    """The headers of a request signed by botocore's SigV4Auth, as boto3
    signs (Host included); target None: not an API call."""
    h = {}
    if target is not None:
        h = {"Content-Type": "application/x-amz-json-1.0",
             "X-Amz-Target": "DynamoDB_20120810." + target}
    h.update(headers or {})
    req = AWSRequest(method=method, url=url + path, data=body, headers=h)
    SigV4Auth(Credentials(key, secret), service, region).add_auth(req)
    out = dict(req.headers.items())
    out["Host"] = urllib.parse.urlsplit(url).netloc
    return out


def presign(url, body, key, secret, target="ListTables", region=REGION):
    """The presigned query form (X-Amz-* in the query, the body still
    hashed), from botocore's own canonical request and signature."""
    now = datetime.datetime.utcnow().strftime(ISO)
    scope = "%s/%s/%s/dynamodb/aws4_request" % (key, now[:8], region)
    headers = {"Content-Type": "application/x-amz-json-1.0",
               "X-Amz-Target": "DynamoDB_20120810." + target,
               "Host": urllib.parse.urlsplit(url).netloc}
    query = urllib.parse.urlencode([
        ("X-Amz-Algorithm", "AWS4-HMAC-SHA256"), ("X-Amz-Credential", scope),
        ("X-Amz-Date", now), ("X-Amz-Expires", "300"),
        ("X-Amz-SignedHeaders", "content-type;host;x-amz-target")],
        quote_via=urllib.parse.quote)
    req = AWSRequest(method="POST", url=url + "/?" + query, data=body,
                     headers=headers)
    req.context["timestamp"] = now
    auth = SigV4Auth(Credentials(key, secret), "dynamodb", region)
    canonical = auth.canonical_request(req)
    signature = auth.signature(auth.string_to_sign(req, canonical), req)
    return "/?%s&X-Amz-Signature=%s" % (query, signature), headers


def raw(url, method, path, headers, body=b"", chunks=None):
    """Send one request; (status, JSON body or text). chunks: send the body
    with Transfer-Encoding: chunked, in these pieces."""
    conn = http.client.HTTPConnection(urllib.parse.urlsplit(url).netloc,
                                      timeout=10)
    try:
        if chunks is None:
            conn.request(method, path, body=body, headers=headers)
        else:
            conn.putrequest(method, path, skip_host=True,
                            skip_accept_encoding=True)
            for k, v in headers.items():
                conn.putheader(k, v)
            conn.putheader("Transfer-Encoding", "chunked")
            conn.endheaders()
            for c in chunks:
                conn.send(b"%x\r\n%s\r\n" % (len(c), c))
            conn.send(b"0\r\n\r\n")
        r = conn.getresponse()
        data = r.read()
    finally:
        conn.close()
    try:
        return r.status, json.loads(data)
    except ValueError:
        return r.status, data.decode("latin-1")


def code_of(reply):
    return reply.get("__type", "").rsplit("#", 1)[-1]


@unittest.skipIf(BIN is None, "needs SHARDLOCAL_BIN (run.sh sets it)")
class Signatures(ErrorAsserts):
    """One server with --auth signature for every check."""

    @classmethod
    def setUpClass(cls):
        cls.tmp, cls.proc, cls.url = start_signed_server("sl-sigv4-")

    @classmethod
    def tearDownClass(cls):
        reports = sanitizer_reports(cls.tmp)
        stop_temp_server(cls.tmp, cls.proc)
        assert not reports, reports

    def client(self, key=ALICE, secret=None, **kw):
        return signed_client(self.url, key[0], secret or key[1],
                             config=NO_RETRY, **kw)

    def assertRaw(self, status_reply, code, message=None):
        status, reply = status_reply
        self.assertEqual(status, 400, reply)
        self.assertEqual(code_of(reply), code, reply)
        if message is not None:
            self.assertEqual(reply.get("message"), message)

    # --- what boto3 sends ---------------------------------------------------

    def test_every_key_signs(self):
        for key in KEYS:
            with self.subTest(key=key[0]):
                self.assertIn("TableNames", self.client(key).list_tables())

    def test_unsigned_request(self):
        # botocore.UNSIGNED: no Authorization header at all.
        c = signed_client(self.url, "x", "y", config=NO_RETRY.merge(
            Config(signature_version=botocore.UNSIGNED)))
        self.assertError(c.list_tables, "MissingAuthenticationTokenException",
                        MISSING)

    def test_unknown_access_key(self):
        # scylladb's test_wrong_key_access, run against DynamoDB.
        c = signed_client(self.url, "AKIDNOBODY", "x", config=NO_RETRY)
        self.assertError(c.list_tables, "UnrecognizedClientException",
                        UNRECOGNIZED)

    def test_wrong_secret(self):
        c = self.client(ALICE, secret="not-the-secret")
        self.assertError(c.list_tables, "InvalidSignatureException", MISMATCH)
        self.assertError(c.put_item, "InvalidSignatureException", MISMATCH,
                        TableName="tbl", Item={"pk": {"S": "x"}})

    def test_streams_target(self):
        # DynamoDB Streams signs with the service name "dynamodb" too (its
        # API model's signingName); the same checks apply to its calls.
        def streams(key, secret, **kw):
            return boto3.client("dynamodbstreams", endpoint_url=self.url,
                                region_name=REGION, aws_access_key_id=key,
                                aws_secret_access_key=secret,
                                config=NO_RETRY.merge(Config(**kw)))
        self.assertIn("Streams", streams(*ALICE[:2]).list_streams())
        self.assertError(streams(ALICE[0], "wrong").list_streams,
                        "InvalidSignatureException", MISMATCH)
        self.assertError(streams("AKIDNOBODY", "x").list_streams,
                        "UnrecognizedClientException", UNRECOGNIZED)
        self.assertError(streams("x", "y", signature_version=botocore.UNSIGNED)
                        .list_streams, "MissingAuthenticationTokenException",
                        MISSING)

    def test_session_token(self):
        # The credentials file gives out no session tokens: a token is one
        # we never issued (dynalite's recording: no final period).
        c = self.client(ALICE, token="FwoGZXIvYXdzEXAMPLE")
        self.assertError(c.list_tables, "UnrecognizedClientException",
                        "The security token included in the request is "
                        "invalid")

    def test_clock_twenty_minutes_behind(self):
        c = self.client()
        with skewed_clock(-20 * 60):
            msg = self.assertError(c.list_tables, "InvalidSignatureException"
                                   ).response["Error"]["Message"]
        m = re.fullmatch(r"Signature expired: (\d{8}T\d{6}Z) is now earlier "
                         r"than (\d{8}T\d{6}Z) \((\d{8}T\d{6}Z) - 15 min\.\)",
                         msg)
        self.assertIsNotNone(m, msg)
        signed, edge, now = (datetime.datetime.strptime(x, ISO)
                             for x in m.groups())
        self.assertEqual(now - edge, datetime.timedelta(minutes=15))
        self.assertAlmostEqual((now - signed).total_seconds(), 20 * 60,
                               delta=30)

    def test_clock_twenty_minutes_ahead(self):
        c = self.client()
        with skewed_clock(20 * 60):
            msg = self.assertError(c.list_tables, "InvalidSignatureException"
                                   ).response["Error"]["Message"]
        m = re.fullmatch(r"Signature not yet current: (\d{8}T\d{6}Z) is still "
                         r"later than (\d{8}T\d{6}Z) \((\d{8}T\d{6}Z) \+ 15 "
                         r"min\.\)", msg)
        self.assertIsNotNone(m, msg)
        signed, edge, now = (datetime.datetime.strptime(x, ISO)
                             for x in m.groups())
        self.assertEqual(edge - now, datetime.timedelta(minutes=15))
        self.assertGreater(signed, edge)

    def test_clock_within_fifteen_minutes(self):
        c = self.client()
        for skew in (-14 * 60, 14 * 60):
            with skewed_clock(skew):
                self.assertIn("TableNames", c.list_tables())

    def test_signature_removed_before_sending(self):
        # boto3 signs, then a hook drops Signature= from the header.
        c = self.client()

        def strip(request, **_):
            auth = request.headers["Authorization"]
            if isinstance(auth, bytes):
                auth = auth.decode()
            request.headers["Authorization"] = re.sub(
                r",\s*Signature=[0-9a-f]+", "", auth)
        c.meta.events.register("before-send.dynamodb.ListTables", strip)
        self.assertError(c.list_tables, "IncompleteSignatureException",
                        "Authorization header requires 'Signature' "
                        "parameter. Authorization=AWS4-HMAC-SHA256")

    def test_body_changed_after_signing(self):
        c = self.client()

        def tamper(request, **_):
            request.body = b'{"Limit": 2}'
            request.headers["Content-Length"] = str(len(request.body))
        c.meta.events.register("before-send.dynamodb.ListTables", tamper)
        self.assertError(c.list_tables, "InvalidSignatureException", MISMATCH,
                        Limit=1)

    # --- raw requests ---------------------------------------------------------

    def test_incomplete_authorization_header(self):
        # dynalite's test of the header "AWS4-" against DynamoDB.
        self.assertRaw(raw(self.url, "POST", "/", {
            "Content-Type": "application/x-amz-json-1.0",
            "X-Amz-Target": "DynamoDB_20120810.ListTables",
            "Authorization": "AWS4-"}, b"{}"),
            "IncompleteSignatureException",
            "Authorization header requires 'Credential' parameter. "
            "Authorization header requires 'Signature' parameter. "
            "Authorization header requires 'SignedHeaders' parameter. "
            "Authorization header requires existence of either a "
            "'X-Amz-Date' or a 'Date' header. Authorization=AWS4-")
        # "AWS4" alone is not SigV4 at all.
        self.assertRaw(raw(self.url, "POST", "/", {
            "Content-Type": "application/x-amz-json-1.0",
            "X-Amz-Target": "DynamoDB_20120810.ListTables",
            "Authorization": "AWS4"}, b"{}"),
            "MissingAuthenticationTokenException", MISSING)

    def test_incomplete_query(self):
        self.assertRaw(raw(self.url, "POST",
                           "/?X-Amz-Algorithm=AWS4-HMAC-SHA256", {
                               "Content-Type": "application/x-amz-json-1.0",
                               "X-Amz-Target":
                                   "DynamoDB_20120810.ListTables"}, b"{}"),
                       "IncompleteSignatureException",
                       "AWS query-string parameters must include "
                       "'X-Amz-Credential'. AWS query-string parameters must "
                       "include 'X-Amz-Signature'. AWS query-string parameters"
                       " must include 'X-Amz-SignedHeaders'. AWS query-string "
                       "parameters must include 'X-Amz-Date'. Re-examine the "
                       "query-string parameters.")

    def test_bad_date(self):
        h = sign(self.url, b"{}", *ALICE[:2])
        h["X-Amz-Date"] = "2013"
        self.assertRaw(raw(self.url, "POST", "/", h, b"{}"),
                       "IncompleteSignatureException",
                       "Date must be in ISO-8601 'basic format'. Got '2013'. "
                       "See http://en.wikipedia.org/wiki/ISO_8601")

    def test_credential_scope(self):
        # Signed for another service: the scope names it (dynalite's
        # recording of DynamoDB's scope checks).
        h = sign(self.url, b"{}", *ALICE[:2], service="dynamo")
        self.assertRaw(raw(self.url, "POST", "/", h, b"{}"),
                       "InvalidSignatureException",
                       "Credential should be scoped to correct service: "
                       "'dynamodb'.")
        h = sign(self.url, b"{}", *ALICE[:2])
        h["Authorization"] = h["Authorization"].replace(
            "/dynamodb/", "/dynamodb/extra/")
        self.assertRaw(raw(self.url, "POST", "/", h, b"{}"),
                       "IncompleteSignatureException")
        h = sign(self.url, b"{}", *ALICE[:2])
        h["Authorization"] = h["Authorization"].replace(
            "SignedHeaders=", "SignedHeaders=x;").replace(";host;", ";")
        self.assertRaw(raw(self.url, "POST", "/", h, b"{}"),
                       "InvalidSignatureException",
                       "'Host' or ':authority' must be a 'SignedHeader' in "
                       "the AWS Authorization.")

    def test_dynamodb_order(self):
        # The body's JSON and the target come before the signature
        # (dynalite's recordings of DynamoDB's order).
        h = {"Content-Type": "application/x-amz-json-1.0",
             "X-Amz-Target": "DynamoDB_20120810.ListTables"}
        self.assertRaw(raw(self.url, "POST", "/", h, b"{not json"),
                       "SerializationException")
        h["X-Amz-Target"] = "DynamoDB_20120810.NoSuchOperation"
        self.assertRaw(raw(self.url, "POST", "/", h, b"{}"),
                       "UnknownOperationException")

    def test_both_forms(self):
        path, h = presign(self.url, b"{}", *ALICE[:2])
        h["Authorization"] = sign(self.url, b"{}", *ALICE[:2])["Authorization"]
        self.assertRaw(raw(self.url, "POST", path, h, b"{}"),
                       "InvalidSignatureException",
                       "Found both 'X-Amz-Algorithm' as a query-string param "
                       "and 'Authorization' as HTTP header.")

    def test_presigned_query(self):
        body = b'{"Limit": 5}'
        path, h = presign(self.url, body, *BOB[:2])
        status, reply = raw(self.url, "POST", path, h, body)
        self.assertEqual(status, 200, reply)
        self.assertIn("TableNames", reply)
        self.assertRaw(raw(self.url, "POST", path, h, b'{"Limit": 6}'),
                       "InvalidSignatureException", MISMATCH)
        path, h = presign(self.url, body, BOB[0], "wrong")
        self.assertRaw(raw(self.url, "POST", path, h, body),
                       "InvalidSignatureException", MISMATCH)

    def test_gzip_body(self):
        # The signature covers the bytes sent: the compressed body.
        plain = b'{"Limit": 3}'
        z = gzip.compress(plain)
        h = sign(self.url, z, *ALICE[:2],
                 headers={"Content-Encoding": "gzip"})
        status, reply = raw(self.url, "POST", "/", h, z)
        self.assertEqual(status, 200, reply)
        h = sign(self.url, plain, *ALICE[:2],
                 headers={"Content-Encoding": "gzip"})
        self.assertRaw(raw(self.url, "POST", "/", h, z),
                       "InvalidSignatureException", MISMATCH)

    def test_chunked_body(self):
        body = b'{"Limit": 4}'
        h = sign(self.url, body, *ALICE[:2])
        status, reply = raw(self.url, "POST", "/", h,
                            chunks=[body[:5], body[5:]])
        self.assertEqual(status, 200, reply)
        h = sign(self.url, b'{"Limit": 9}', *ALICE[:2])
        self.assertRaw(raw(self.url, "POST", "/", h,
                           chunks=[body[:5], body[5:]]),
                       "InvalidSignatureException", MISMATCH)

    # --- the admin endpoints ------------------------------------------------

    def test_admin_endpoints_signed(self):
        for path in ("/shardlocal", "/metrics", "/shardlocal/faults"):
            with self.subTest(path=path):
                status, reply = raw(self.url, "GET", path, {})
                self.assertEqual(status, 400)
                self.assertEqual(code_of(reply),
                                 "MissingAuthenticationTokenException")
                h = sign(self.url, b"", *DEFAULT[:2], path=path,
                         method="GET", target=None)
                status, reply = raw(self.url, "GET", path, h)
                self.assertEqual(status, 200, reply)
                h = sign(self.url, b"", DEFAULT[0], "wrong", path=path,
                         method="GET", target=None)
                self.assertRaw(raw(self.url, "GET", path, h),
                               "InvalidSignatureException", MISMATCH)
        body = b'{"clear": true}'
        h = sign(self.url, body, *BOB[:2], path="/shardlocal/faults",
                 target=None, headers={"Content-Type": "application/json"})
        status, reply = raw(self.url, "POST", "/shardlocal/faults", h, body)
        self.assertEqual(status, 200, reply)
        # The health check stays open, as DynamoDB's is.
        status, reply = raw(self.url, "GET", "/", {})
        self.assertEqual(status, 200)


@unittest.skipIf(BIN is None, "needs SHARDLOCAL_BIN (run.sh sets it)")
class AdminFrom(unittest.TestCase):
    """--admin-from: who may change the clock and fault rules of a server
    that listens beyond loopback."""

    def start(self, *extra):
        tmp = tempfile.mkdtemp(prefix="sl-adminfrom-")
        self.addCleanup(shutil.rmtree, tmp, True)
        proc, url = start_private_server(None, os.path.join(tmp, "port"),
                                         "--in-memory", "--virtual-clock",
                                         *extra)
        self.addCleanup(stop_private_server, proc)
        return url

    def clock(self, url):
        h = {"Content-Type": "application/json"}
        return raw(url, "POST", "/shardlocal/clock", h,
                   b'{"advance_ms": 1000}')

    def test_beyond_loopback(self):
        url = self.start("--host", "0.0.0.0", "--admin-from",
                         "10.255.255.0/24, 192.0.2.7")
        status, reply = self.clock(url)
        self.assertEqual(status, 403, reply)
        self.assertEqual(reply["message"], "The admin endpoints that change "
                         "state are refused from 127.0.0.1: it is not in "
                         "--admin-from")
        status, reply = raw(url, "GET", "/shardlocal/clock", {})
        self.assertEqual(status, 200, reply)
        # The API itself is not affected.
        c = signed_client(url, "x", "y")
        self.assertIn("TableNames", c.list_tables())

    def test_default_allows_this_machine(self):
        url = self.start("--host", "0.0.0.0")
        status, reply = self.clock(url)
        self.assertEqual(status, 200, reply)

    def test_loopback_listener(self):
        url = self.start("--admin-from", "10.255.255.0/24")
        status, reply = self.clock(url)
        self.assertEqual(status, 200, reply)


@unittest.skipIf(BIN is None, "needs SHARDLOCAL_BIN (run.sh sets it)")
class BadSettings(unittest.TestCase):
    """A bad --auth, --credentials or --admin-from stops the server with
    one line naming it, exit status 2."""

    def run_bin(self, *args):
        return subprocess.run([BIN, "--in-memory", "--port", "0"] +
                              list(args), capture_output=True, text=True,
                              timeout=30)

    def test_refused(self):
        tmp = tempfile.mkdtemp(prefix="sl-badcreds-")
        self.addCleanup(shutil.rmtree, tmp, True)
        bad = os.path.join(tmp, "credentials")
        with open(bad, "w") as f:
            f.write("AKID secret 12345\n")
        cases = [
            (("--auth", "signature"),
             "shardlocal: --auth signature needs --credentials FILE"),
            (("--credentials", bad),
             "shardlocal: --credentials is only read with --auth signature"),
            (("--auth", "signature", "--credentials", bad),
             "shardlocal: %s:1: the account id must be 12 digits" % bad),
            (("--auth", "signature", "--credentials", bad + ".missing"),
             "shardlocal: cannot read credentials file '%s.missing': No such "
             "file or directory" % bad),
            (("--admin-from", "10.0.0.0/33"),
             "shardlocal: --admin-from: '10.0.0.0/33' is not an address or "
             "CIDR block (10.0.0.0/8, ::1/128)"),
        ]
        for args, line in cases:
            with self.subTest(args=args):
                p = self.run_bin(*args)
                self.assertEqual(p.returncode, 2, p.stderr)
                self.assertEqual(p.stderr.strip(), line)


if __name__ == "__main__":
    unittest.main()
