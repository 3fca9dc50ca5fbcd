# SPDX-License-Identifier: MIT
"""pytest-shardlocal: shardlocal (a local DynamoDB with partition-level
throttling) for tests.

`Server` starts the binary on a free port with an in-memory store and the
virtual clock; `ShardLocal` is what the `shardlocal` fixture hands a test:
the endpoint, boto3 clients, the clock, fault injection, the per-partition
view and the hot keys, and a reset. Both work without pytest too:

    with Server() as srv:
        sl = ShardLocal(srv.endpoint)
        sl.client().list_tables()
"""

import base64
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from decimal import Decimal

__all__ = ["Server", "ShardLocal", "ShardLocalError", "find_binary"]
__version__ = "0.1.0"

# boto3 insists on credentials and a region; shardlocal accepts any.
DUMMY_CREDENTIALS = {"aws_access_key_id": "shardlocal",
                     "aws_secret_access_key": "shardlocal"}
DEFAULT_REGION = "us-east-1"


class ShardLocalError(Exception):
    """The server could not be started, or an admin call failed."""


def find_binary(explicit=None):
    """The shardlocal binary: `explicit`, else $SHARDLOCAL_BIN, else the
    one on PATH. Raises ShardLocalError when there is none."""
    path = explicit or os.environ.get("SHARDLOCAL_BIN") or \
        shutil.which("shardlocal")
    if not path:
        raise ShardLocalError(
            "shardlocal not found: put it on PATH, set SHARDLOCAL_BIN, or "
            "use a running server (--shardlocal-endpoint URL or "
            "SHARDLOCAL_ENDPOINT)")
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        raise ShardLocalError("%s is not an executable file" % path)
    return path


class Server:
    """One shardlocal process on 127.0.0.1 and a free port, with its tables
    in memory and its time moved only by POST /shardlocal/clock (unless
    `args` say otherwise: extra flags are appended, so they win)."""

    def __init__(self, binary=None, args=(), virtual_clock=True,
                 in_memory=True, startup_timeout=10.0):
        self.binary = find_binary(binary)
        self.args = list(args)
        self.virtual_clock = virtual_clock
        self.in_memory = in_memory
        self.startup_timeout = startup_timeout
        self.proc = None
        self.dir = None
        self.endpoint = None

    def start(self):
        self.dir = tempfile.mkdtemp(prefix="pytest-shardlocal.")
        port_file = os.path.join(self.dir, "port")
        argv = [self.binary, "--host", "127.0.0.1", "--port", "0",
                "--port-file", port_file, "--log-level", "warn"]
        if self.in_memory:
            argv.append("--in-memory")
        else:
            argv += ["--data-dir", os.path.join(self.dir, "data")]
        if self.virtual_clock:
            argv.append("--virtual-clock")
        argv += self.args
        self.log_path = os.path.join(self.dir, "server.log")
        with open(self.log_path, "wb") as log:
            self.proc = subprocess.Popen(argv, stdout=log, stderr=log,
                                         stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + self.startup_timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                break
            try:
                with open(port_file) as f:
                    port = int(f.read().strip())
                url = "http://127.0.0.1:%d" % port
                with urllib.request.urlopen(url + "/", timeout=1) as r:
                    if r.status == 200:
                        self.endpoint = url
                        return self
            except (OSError, ValueError):
                pass
            time.sleep(0.02)
        log = self.log()
        self.stop()
        raise ShardLocalError("shardlocal did not start (%s): %s"
                              % (" ".join(argv), log.strip()
                                 or "no output"))

    def log(self):
        """What the server wrote to stdout and stderr so far."""
        try:
            with open(self.log_path, encoding="utf-8",
                      errors="replace") as f:
                return f.read()
        except (OSError, AttributeError):
            return ""

    def stop(self):
        """SIGTERM (requests in flight finish), SIGKILL after 5 s; removes
        the temporary directory. Returns the exit status."""
        rc = None
        if self.proc is not None:
            if self.proc.poll() is None:
                self.proc.send_signal(signal.SIGTERM)
                try:
                    self.proc.wait(5)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
                    self.proc.wait()
            rc = self.proc.returncode
            self.proc = None
        if self.dir is not None:
            shutil.rmtree(self.dir, ignore_errors=True)
            self.dir = None
        return rc

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()


def attribute_value(v):
    """A partition key as a DynamoDB AttributeValue: str -> S, int, float
    or Decimal -> N, bytes -> B; a dict is taken as an AttributeValue."""
    if isinstance(v, dict):
        return v
    if isinstance(v, bool):
        raise TypeError("a key cannot be a bool")
    if isinstance(v, (int, float, Decimal)):
        return {"N": str(v)}
    if isinstance(v, (bytes, bytearray)):
        return {"B": base64.b64encode(bytes(v)).decode("ascii")}
    if isinstance(v, str):
        return {"S": v}
    raise TypeError("cannot use %r as a key" % (v,))


class ShardLocal:
    """A running shardlocal, as a test sees it."""

    def __init__(self, endpoint, region=DEFAULT_REGION):
        self.endpoint = endpoint.rstrip("/")
        self.region = region
        # Tables that were there before the first reset()'s baseline are
        # never deleted by it (a shared server's own tables).
        self._keep = None

    # --- the admin API ---------------------------------------------------
    def _admin(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode("utf-8")
        req = urllib.request.Request(self.endpoint + path, data=data,
                                     method=method)
        if data is not None:
            req.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                return json.loads(r.read().decode("utf-8"))
        except urllib.error.HTTPError as e:
            text = e.read().decode("utf-8", "replace")
            try:
                msg = json.loads(text).get("message", text)
            except ValueError:
                msg = text
            raise ShardLocalError("%s %s: HTTP %d: %s"
                                  % (method, path, e.code, msg)) from None

    @staticmethod
    def _table_path(table, index=None):
        p = "/shardlocal/tables/" + urllib.parse.quote(table, safe="")
        if index:
            p += "/indexes/" + urllib.parse.quote(index, safe="")
        return p

    def info(self):
        """GET /shardlocal: version, clock, limits, endpoints."""
        return self._admin("GET", "/shardlocal")

    # --- clients ----------------------------------------------------------
    def _boto_kwargs(self, kwargs):
        from botocore.config import Config
        kwargs.setdefault("endpoint_url", self.endpoint)
        kwargs.setdefault("region_name", self.region)
        for k, v in DUMMY_CREDENTIALS.items():
            kwargs.setdefault(k, v)
        kwargs.setdefault("config", Config(retries={"total_max_attempts": 1}))
        return kwargs

    def client(self, service="dynamodb", **kwargs):
        """A boto3 client for `service` at this endpoint with dummy
        credentials. Retries are off unless `config` says otherwise, so a
        throttle is an exception the test sees (and with the virtual clock
        a retry would find the same empty bucket)."""
        import boto3
        return boto3.client(service, **self._boto_kwargs(kwargs))

    def resource(self, service="dynamodb", **kwargs):
        """A boto3 resource, set up as client() is."""
        import boto3
        return boto3.resource(service, **self._boto_kwargs(kwargs))

    # --- time, faults, what the partitions see ------------------------------
    def now_ms(self):
        """The server's clock in milliseconds (virtual or wall)."""
        return self._admin("GET", "/shardlocal/clock")["now_ms"]

    def advance(self, seconds):
        """Move the virtual clock forward (buckets refill, banks fill);
        returns the new time in ms. The server must run with
        --virtual-clock (the fixture's own server does)."""
        ms = int(round(seconds * 1000))
        if ms < 0:
            raise ValueError("the clock only moves forward")
        return self._admin("POST", "/shardlocal/clock",
                           {"advance_ms": ms})["now_ms"]

    def fault(self, table, key=None, op="write", count=1, cause=None,
              fraction=None):
        """Throttle the next `count` requests of `op` ("read", "write" or
        None for both) on `table`, or on one partition key `key` of it,
        with DynamoDB's exception for `cause` (KeyRange,
        ProvisionedThroughput, MaxOnDemand, AccountLimit; default: what
        the table's mode throws for a hot partition). `fraction` instead
        throttles that share of requests. Returns the rule."""
        body = {"table": table}
        if key is not None:
            body["key"] = attribute_value(key)
        if op is not None:
            body["op"] = op
        if fraction is not None:
            body["fraction"] = fraction
            if count is not None and count != 1:
                body["count"] = count
        elif count is not None:
            body["count"] = count
        if cause is not None:
            body["cause"] = cause
        return self._admin("POST", "/shardlocal/faults", body)

    def clear_faults(self):
        self._admin("POST", "/shardlocal/faults", {"clear": True})

    def partitions(self, table, index=None):
        """The table's (or GSI's) partitions: hash range, items, bytes,
        consumed units, bucket levels and throttles by cause, one dict per
        partition in hash order."""
        return self._admin("GET", self._table_path(table, index) +
                           "/partitions")["partitions"]

    def hotkeys(self, table, n=10, index=None):
        """The most used partition keys: {"consumed_write": [...],
        "consumed_read": [...], "throttled_write": [...],
        "throttled_read": [...]}, each entry with key, key_text,
        partition, count and error."""
        return self._admin("GET", self._table_path(table, index) +
                           "/hotkeys?n=%d" % n)

    # --- reset ------------------------------------------------------------
    def _table_names(self):
        c = self.client()
        names, kw = [], {}
        while True:
            r = c.list_tables(**kw)
            names += r.get("TableNames", [])
            if not r.get("LastEvaluatedTableName"):
                return names
            kw = {"ExclusiveStartTableName": r["LastEvaluatedTableName"]}

    def baseline(self):
        """Remember the tables that exist now: reset() keeps them."""
        self._keep = set(self._table_names())

    def reset(self):
        """Back to the baseline: delete every table created since (their
        throttle state and hot keys go with them) and clear the fault
        rules. The clock is not turned back: it only moves forward."""
        if self._keep is None:
            self.baseline()
        c = self.client()
        for name in self._table_names():
            if name in self._keep:
                continue
            try:
                c.delete_table(TableName=name)
            except c.exceptions.ResourceNotFoundException:
                pass
            except c.exceptions.ResourceInUseException:
                # CREATING, UPDATING or DELETING under --status-delay-ms.
                if self._wait_settled(c, name) == "ACTIVE":
                    c.delete_table(TableName=name)
        self.clear_faults()

    @staticmethod
    def _wait_settled(c, name, timeout=30.0):
        """Wait until the table is ACTIVE or gone; its status then."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                st = c.describe_table(TableName=name)["Table"]["TableStatus"]
            except c.exceptions.ResourceNotFoundException:
                return None
            if st == "ACTIVE" or time.monotonic() > deadline:
                return st
            time.sleep(0.02)
