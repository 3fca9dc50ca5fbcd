# SPDX-License-Identifier: MIT
# e2e_common.py - shared helpers for the Python end-to-end suites: clients
# pointed at SHARDLOCAL_ENDPOINT (unset = real DynamoDB), unique table names.
import os
import shutil
import socket
import subprocess
import tempfile
import time
import unittest
import urllib.request
import uuid

import boto3
import botocore
from botocore.config import Config
from botocore.exceptions import ClientError

ENDPOINT = os.environ.get("SHARDLOCAL_ENDPOINT") or None
REGION = os.environ.get("AWS_DEFAULT_REGION", "us-east-1")
# The account id our server puts in ARNs (conf.h: account_id).
ACCOUNT = os.environ.get("SHARDLOCAL_ACCOUNT", "000000000000")
# Set by run.sh when the target is dynalite (development only): a few
# newer DynamoDB features are known to be missing there.
ON_DYNALITE = os.environ.get("SHARDLOCAL_E2E_DYNALITE") == "1"

BOTOCORE_VERSION = tuple(int(x) for x in botocore.__version__.split(".")[:2])

_CFG = Config(retries={"max_attempts": 1, "mode": "standard"},
              connect_timeout=5, read_timeout=30)


def client():
    return boto3.client("dynamodb", endpoint_url=ENDPOINT, region_name=REGION,
                        config=_CFG)


def resource():
    return boto3.resource("dynamodb", endpoint_url=ENDPOINT,
                          region_name=REGION, config=_CFG)


def streams_client(url=None):
    """A DynamoDB Streams client (the same endpoint: one port serves both
    services)."""
    return boto3.client("dynamodbstreams", endpoint_url=url or ENDPOINT,
                        region_name=REGION, config=_CFG)


def unique_name(prefix="e2e"):
    return "%s_%s" % (prefix, uuid.uuid4().hex[:12])


def has_param(c, op, param):
    """True when this botocore's model knows parameter `param` of `op`."""
    shape = c.meta.service_model.operation_model(op).input_shape
    return param in shape.members


def wait_active(c, name, timeout=60.0):
    """Poll DescribeTable until ACTIVE (fast against a local server)."""
    deadline = time.time() + timeout
    while True:
        try:
            t = c.describe_table(TableName=name)["Table"]
            if t["TableStatus"] == "ACTIVE":
                return t
        except ClientError as e:
            if e.response["Error"]["Code"] != "ResourceNotFoundException":
                raise
        if time.time() > deadline:
            raise AssertionError("table %s never became ACTIVE" % name)
        time.sleep(0.05)


def create_table(c, name, hash_key=("pk", "S"), range_key=None,
                 on_demand=True, rcu=5, wcu=5, **extra):
    attrs = [{"AttributeName": hash_key[0], "AttributeType": hash_key[1]}]
    schema = [{"AttributeName": hash_key[0], "KeyType": "HASH"}]
    if range_key:
        attrs.append({"AttributeName": range_key[0],
                      "AttributeType": range_key[1]})
        schema.append({"AttributeName": range_key[0], "KeyType": "RANGE"})
    args = dict(TableName=name, AttributeDefinitions=attrs, KeySchema=schema)
    if on_demand:
        args["BillingMode"] = "PAY_PER_REQUEST"
    else:
        args["ProvisionedThroughput"] = {"ReadCapacityUnits": rcu,
                                         "WriteCapacityUnits": wcu}
    args.update(extra)
    resp = c.create_table(**args)
    wait_active(c, name)
    return resp


def delete_table_quietly(c, name):
    try:
        c.delete_table(TableName=name)
    except ClientError:
        pass


class ErrorAsserts(unittest.TestCase):
    """assertError, for every e2e case (E2ECase's, and suites that start
    their own servers)."""

    def assertError(self, fn, code, message=None, prefix=None, **kw):
        """Call fn(**kw); assert a ClientError with `code` and, if given,
        exactly `message` (or a message starting with `prefix`)."""
        with self.assertRaises(ClientError) as cm:
            fn(**kw)
        err = cm.exception.response["Error"]
        self.assertEqual(err["Code"], code, err.get("Message"))
        if message is not None:
            self.assertEqual(err.get("Message"), message)
        if prefix is not None:
            self.assertTrue(err.get("Message", "").startswith(prefix),
                            "%r does not start with %r"
                            % (err.get("Message"), prefix))
        return cm.exception


class E2ECase(ErrorAsserts):
    """Base class: self.c is a low-level client; helpers for errors."""

    @classmethod
    def setUpClass(cls):
        cls.c = client()
        cls._tables = []

    @classmethod
    def tearDownClass(cls):
        for name in cls._tables:
            delete_table_quietly(cls.c, name)

    @classmethod
    def make_table(cls, prefix="e2e", **kw):
        name = unique_name(prefix)
        create_table(cls.c, name, **kw)
        cls._tables.append(name)
        return name

    def assertValidation(self, fn, message=None, prefix=None, **kw):
        return self.assertError(fn, "ValidationException", message, prefix,
                                **kw)


def dynalite_differs(reason):
    """Skip a test when developing against dynalite, where `reason` says
    how dynalite differs from DynamoDB (the test asserts DynamoDB)."""
    return unittest.skipIf(ON_DYNALITE, "dynalite differs: " + reason)


# --- private servers (tests that own their server) -------------------------

# The server binary, set by run.sh; tests that start servers skip without.
BIN = os.environ.get("SHARDLOCAL_BIN")


def start_private_server(data_dir, port_file, *extra, prefix=()):
    """Start BIN on a free port (extra flags appended; prefix, a command
    such as nsenter's, before it); wait for the port file and GET /.
    Returns (Popen, url); the caller kills it."""
    if os.path.exists(port_file):
        os.unlink(port_file)
    log = open(os.path.join(os.path.dirname(port_file), "server.log"), "ab")
    args = list(prefix) + [BIN, "--port", "0", "--host", "127.0.0.1",
                           "--port-file", port_file]
    if data_dir is not None:
        args += ["--data-dir", data_dir]
    proc = subprocess.Popen(args + list(extra), stdout=log, stderr=log)
    log.close()
    deadline = time.time() + 10
    while time.time() < deadline:
        if proc.poll() is not None:
            raise AssertionError("server exited with %d" % proc.returncode)
        try:
            with open(port_file) as f:
                port = int(f.read().strip())
            url = "http://127.0.0.1:%d" % port
            with urllib.request.urlopen(url + "/", timeout=1) as r:
                if r.status == 200:
                    return proc, url
        except (OSError, ValueError):
            pass
        time.sleep(0.05)
    proc.kill()
    raise AssertionError("server did not start")


def stop_private_server(proc):
    """Kill a server from start_private_server (None or already gone is
    fine) and reap it."""
    if proc is not None and proc.poll() is None:
        proc.kill()
        proc.wait()


def start_temp_server(prefix, *extra):
    """start_private_server with no data dir, its port file in a new temp
    dir (prefix). Returns (dir, Popen, url); stop_temp_server ends both."""
    tmp = tempfile.mkdtemp(prefix=prefix)
    proc, url = start_private_server(None, os.path.join(tmp, "port"), *extra)
    return tmp, proc, url


def stop_temp_server(tmp, proc):
    """Kill proc (see stop_private_server) and remove the dir tmp."""
    stop_private_server(proc)
    shutil.rmtree(tmp, ignore_errors=True)


@unittest.skipUnless(BIN, "needs SHARDLOCAL_BIN (a server this test owns)")
class OwnServerCase(unittest.TestCase):
    """A test that owns its server: setUp makes a temp dir self.dir (prefix
    PREFIX) with self.port_file in it and, when DATA_DIR, an empty data
    dir self.data; the test sets self.proc; tearDown kills it and removes
    the dir."""
    PREFIX = "shardlocal-e2e."
    DATA_DIR = False

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix=self.PREFIX)
        self.port_file = os.path.join(self.dir, "port")
        self.proc = None
        if self.DATA_DIR:
            self.data = os.path.join(self.dir, "data")
            os.mkdir(self.data)

    def tearDown(self):
        stop_temp_server(self.dir, self.proc)


def make_private_client(url):
    return boto3.client("dynamodb", endpoint_url=url, region_name="us-east-1",
                        config=Config(retries={"max_attempts": 1},
                                      connect_timeout=2, read_timeout=5))


# --- raw HTTP (what no SDK sends) ------------------------------------------

def raw_exchange(host, port, data, timeout=5.0, sock=None):
    """Send bytes data on a new connection (or sock) and read until the
    server closes it or timeout passes. Returns (answer bytes, closed):
    closed is True when the server closed (or reset) the connection."""
    s = sock or socket.create_connection((host, port), timeout=timeout)
    out = b""
    closed = False
    try:
        if data:
            s.sendall(data)
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            s.settimeout(left)
            try:
                d = s.recv(65536)
            except socket.timeout:
                break
            except ConnectionResetError:
                closed = True
                break
            if not d:
                closed = True
                break
            out += d
    finally:
        if sock is None:
            s.close()
    return out, closed


def parse_answer(raw):
    """Split one HTTP answer: (status, headers with lower-case names, body).
    The body is what follows the head, up to Content-Length."""
    head, _, rest = raw.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split(" ")[1]) if lines and " " in lines[0] else 0
    headers = {}
    for line in lines[1:]:
        k, _, v = line.partition(":")
        headers[k.strip().lower()] = v.strip()
    n = int(headers.get("content-length", len(rest)))
    return status, headers, rest[:n]


# --- servers that verify signatures (--auth signature) ---------------------

# The keys those servers get: two accounts, and a key without an account,
# which belongs to --account-id's account (the tables of a server run
# without signatures).
KEYS = [("AKIDALICE", "alice/Secret+1", "111111111111"),
        ("AKIDBOB", "bob-secret", "222222222222"),
        ("AKIDDEFAULT", "default-secret", None)]


def start_signed_server(prefix, *extra, keys=KEYS, data_dir=None):
    """A private server with --auth signature and a credentials file of
    keys [(id, secret, account or None)], on data_dir (default: a new one
    in the temp dir). Returns (dir, Popen, url); stop_temp_server ends
    both."""
    tmp = tempfile.mkdtemp(prefix=prefix)
    if data_dir is None:
        data_dir = os.path.join(tmp, "data")
    creds = os.path.join(tmp, "credentials")
    with open(creds, "w") as f:
        f.write("# shardlocal test keys\n")
        for key, secret, account in keys:
            f.write("%s %s %s\n" % (key, secret, account or ""))
    proc, url = start_private_server(data_dir, os.path.join(tmp, "port"),
                                     "--auth", "signature", "--credentials",
                                     creds, *extra)
    return tmp, proc, url


def signed_client(url, key, secret, region=REGION, token=None, config=None):
    """A boto3 client of url signing with key and secret."""
    return boto3.client("dynamodb", endpoint_url=url, region_name=region,
                        aws_access_key_id=key, aws_secret_access_key=secret,
                        aws_session_token=token, config=config or _CFG)


def sanitizer_reports(tmp):
    """The AddressSanitizer / UBSan reports in the log of a server started
    in tmp (start_temp_server, start_signed_server): '' when there are
    none, as run.sh requires of its own server."""
    try:
        with open(os.path.join(tmp, "server.log"), errors="replace") as f:
            text = f.read()
    except OSError:
        return ""
    marks = ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer",
             "runtime error:")
    return "\n".join(line for line in text.splitlines()
                     if any(m in line for m in marks))
