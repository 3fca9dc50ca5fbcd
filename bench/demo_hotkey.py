#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""demo_hotkey.py - a hot partition, live, and write sharding fixing it.

Against a running shardlocal (docs/workshop.md is the presenter's script):

  1. creates a provisioned table with P partitions (default 8) and more
     write capacity than the demo needs, so the TABLE is never short of
     capacity; only one partition can be;
  2. phase "naive": --rate writes/s for --seconds, every one an UpdateItem
     ADD to the same partition key ("counter"). One key lives on one
     partition, and a partition serves at most its ceiling (1,000 WCU/s in
     DynamoDB, 10 WCU/s with --throttle-scale 0.01): the rest throttle;
  3. phase "sharded": the same rate spread over --shards keys counter#0 ..
     counter#K-1 (write sharding), which land on different partitions;
  4. phase "scatter-gather": one BatchGetItem reads the K shards and sums
     them; the sum must equal the sharded writes that succeeded (a
     throttled write changes nothing);
  5. prints a table comparing the phases, the per-partition view (GET
     /shardlocal/tables/<t>/partitions) and the top hot keys (.../hotkeys).

Start the server with laptop-scale limits first, e.g.

    ./shardlocal --in-memory --throttle-scale 0.01

--throttle-scale 0.01 shrinks every partition ceiling 100-fold (a
partition takes 10 WCU/s and 30 RCU/s), so a single Python loop can
saturate one. Without it a partition takes 1,000 writes/s and this script
(30 writes/s by default) never throttles; --scale-hint is the scale to
assume when the server does not report its limits.

boto3 runs with retries off (total_max_attempts=1), so every throttle is
visible. boto3's default ("legacy") retry mode retries a throttled call
up to 10 times over about 25 seconds: the caller sees only a slow call and
ResponseMetadata.RetryAttempts > 0. --retry-mode legacy shows that.

Python 3 and boto3 only. Exit status: 0 done, 1 unexpected error (e.g. an
error that is not a throttle, or a scatter-gather sum that does not match),
2 bad arguments.
"""

import argparse
import base64
import hashlib
import json
import sys
import time
import urllib.error
import urllib.request

try:
    import boto3
    from botocore.config import Config
    from botocore.exceptions import BotoCoreError, ClientError
except ImportError:                                     # pragma: no cover
    sys.stderr.write("demo_hotkey.py needs boto3 (pip install boto3)\n")
    sys.exit(1)

THROTTLE_CODES = ("ProvisionedThroughputExceededException",
                  "ThrottlingException", "RequestLimitExceeded")


class DemoError(Exception):
    """Anything unexpected: the script prints it and exits 1."""


# --- the admin API (GET /shardlocal/...) -----------------------------------

def admin_get(endpoint, path):
    """GET endpoint+path as JSON, or None when there is no such page."""
    try:
        with urllib.request.urlopen(endpoint + path, timeout=5) as r:
            return json.loads(r.read().decode("utf-8"))
    except urllib.error.HTTPError:
        return None
    except (urllib.error.URLError, OSError, ValueError):
        return None


def key_hash(pk):
    """Top 64 bits of DynamoDB's hash of a string partition key (MD5 of
    the prefix "Outliers" and the key's UTF-8): where its partition is."""
    return int.from_bytes(
        hashlib.md5(b"Outliers" + pk.encode("utf-8")).digest()[:8], "big")


def partition_of(pk, parts):
    """The partition whose [hash_start, hash_end] holds pk, from the admin
    view's partition list; None if unknown."""
    h = key_hash(pk)
    for p in parts or []:
        if int(p["hash_start"], 16) <= h <= int(p["hash_end"], 16):
            return p["partition"]
    return None


# --- the DynamoDB side -----------------------------------------------------

def make_client(args):
    retries = {"total_max_attempts": 1}
    if args.retry_mode != "off":
        retries = {"mode": args.retry_mode}
    cfg = Config(retries=retries, connect_timeout=5, read_timeout=30)
    kw = {"endpoint_url": args.endpoint, "config": cfg}
    sess = boto3.session.Session()
    if sess.region_name is None:
        kw["region_name"] = "us-east-1"
    if sess.get_credentials() is None:
        # shardlocal accepts any credentials; boto3 insists on having some.
        kw["aws_access_key_id"] = "shardlocal"
        kw["aws_secret_access_key"] = "shardlocal"
    return sess.client("dynamodb", **kw)


def wait_status(c, table, want, timeout=60.0):
    """Wait until the table is ACTIVE (want="ACTIVE") or gone (None)."""
    deadline = time.time() + timeout
    while True:
        try:
            st = c.describe_table(TableName=table)["Table"]["TableStatus"]
        except ClientError as e:
            if e.response["Error"]["Code"] != "ResourceNotFoundException":
                raise
            st = None
        if st == want:
            return
        if time.time() > deadline:
            raise DemoError("table %s: still %s after %d s"
                            % (table, st, timeout))
        time.sleep(0.1)


def create_table(c, args, limits):
    """(Re)create the demo table; returns a one-line description."""
    try:
        c.describe_table(TableName=args.table)
        print("table %s exists (left by --keep?): deleting it" % args.table)
        c.delete_table(TableName=args.table)
        wait_status(c, args.table, None)
    except ClientError as e:
        if e.response["Error"]["Code"] != "ResourceNotFoundException":
            raise
    req = dict(TableName=args.table,
               AttributeDefinitions=[{"AttributeName": "pk",
                                      "AttributeType": "S"}],
               KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}])
    if args.on_demand:
        req["BillingMode"] = "PAY_PER_REQUEST"
        what = "on-demand"
    else:
        # ceil(RCU/ceiling_r + WCU/ceiling_w) partitions (throttling.md 2):
        # half a partition of reads plus P - 0.5 of writes gives exactly P.
        wcu = args.wcu or max(1, int(round((args.partitions - 0.5) *
                                           limits["partition_wcu"])))
        rcu = args.rcu or max(1, int(round(0.5 * limits["partition_rcu"])))
        req["ProvisionedThroughput"] = {"ReadCapacityUnits": rcu,
                                        "WriteCapacityUnits": wcu}
        what = "provisioned %d RCU / %d WCU" % (rcu, wcu)
    if args.gsi:
        # Every item gets kind = "all": the GSI's partition key has one
        # value, so all its writes land on one GSI partition (back-pressure).
        req["AttributeDefinitions"].append({"AttributeName": "kind",
                                            "AttributeType": "S"})
        gsi = {"IndexName": "by_kind",
               "KeySchema": [{"AttributeName": "kind", "KeyType": "HASH"}],
               "Projection": {"ProjectionType": "ALL"}}
        if not args.on_demand:
            gsi["ProvisionedThroughput"] = dict(req["ProvisionedThroughput"])
        req["GlobalSecondaryIndexes"] = [gsi]
        what += ", GSI by_kind (partition key kind, always \"all\")"
    if args.tag:
        req["Tags"] = [{"Key": "shardlocal:" + k, "Value": v}
                       for k, v in args.tag]
    c.create_table(**req)
    wait_status(c, args.table, "ACTIVE")
    return what


def throttle_reasons(resp):
    """ThrottlingReasons (or throttlingReasons) of an error, if this
    botocore parses them (1.39+); else []."""
    out = []
    for member in ("ThrottlingReasons", "throttlingReasons"):
        for r in resp.get(member) or []:
            if isinstance(r, dict) and r.get("reason"):
                out.append(r["reason"])
    return out


class Stats:
    def __init__(self):
        self.sent = self.ok = self.throttled = self.retries = 0
        self.latency_max = 0.0
        self.codes = {}
        self.reasons = {}
        self.messages = {}

    def add(self, other):
        for k in ("sent", "ok", "throttled", "retries"):
            setattr(self, k, getattr(self, k) + getattr(other, k))
        self.latency_max = max(self.latency_max, other.latency_max)
        for src, dst in ((other.codes, self.codes),
                         (other.reasons, self.reasons)):
            for k, v in src.items():
                dst[k] = dst.get(k, 0) + v
        for k, v in other.messages.items():
            self.messages.setdefault(k, v)


def write_once(c, args, pk, st):
    """One UpdateItem ADD n :1 on pk (with --gsi also SET kind); counts it
    into st. Raises DemoError on anything that is not a throttle."""
    t0 = time.monotonic()
    st.sent += 1
    upd = dict(TableName=args.table, Key={"pk": {"S": pk}},
               UpdateExpression="ADD n :one",
               ExpressionAttributeValues={":one": {"N": "1"}})
    if args.gsi:
        upd["UpdateExpression"] = "SET kind = :kind ADD n :one"
        upd["ExpressionAttributeValues"][":kind"] = {"S": "all"}
    try:
        r = c.update_item(**upd)
        st.ok += 1
        st.retries += r["ResponseMetadata"].get("RetryAttempts", 0)
    except ClientError as e:
        code = e.response.get("Error", {}).get("Code")
        st.retries += e.response.get("ResponseMetadata", {}).get(
            "RetryAttempts", 0)
        if code not in THROTTLE_CODES:
            raise DemoError("UpdateItem %s: %s: %s" % (
                pk, code, e.response.get("Error", {}).get("Message")))
        st.throttled += 1
        st.codes[code] = st.codes.get(code, 0) + 1
        st.messages.setdefault(code, e.response.get("Error", {}).get(
            "Message", ""))
        for reason in throttle_reasons(e.response):
            st.reasons[reason] = st.reasons.get(reason, 0) + 1
    st.latency_max = max(st.latency_max, time.monotonic() - t0)


def partition_wcu_line(endpoint, table):
    """'p0 10.0  p1 0 ...' from the admin view: write units consumed by
    each partition over the last second (empty if unavailable)."""
    d = admin_get(endpoint, "/shardlocal/tables/%s/partitions" % table)
    if not d or not d.get("partitions"):
        return ""
    cells = []
    for p in d["partitions"]:
        w = (p.get("write") or {}).get("consumed_last_second") or 0
        cells.append("%g" % round(w, 1))
    return "WCU/s by partition [" + " ".join(cells) + "]"


def run_phase(c, args, name, keys):
    """Send args.rate writes/s for args.seconds, round-robin over keys;
    print one line per second; return the phase's Stats."""
    total = Stats()
    interval = 1.0 / args.rate
    start = time.monotonic()
    nxt = start
    i = 0
    for sec in range(1, args.seconds + 1):
        st = Stats()
        end = start + sec
        while True:
            now = time.monotonic()
            if now >= end:
                break
            if nxt > now:
                time.sleep(min(nxt, end) - now)
                continue
            write_once(c, args, keys[i % len(keys)], st)
            i += 1
            nxt += interval
            if nxt < time.monotonic() - 1.0:   # fell behind (retries):
                nxt = time.monotonic()          # do not burst to catch up
        total.add(st)
        line = ("%-8s %3ds  sent %4d  ok %4d  throttled %4d  "
                "RetryAttempts %3d" % (name, sec, st.sent, st.ok,
                                       st.throttled, st.retries))
        if args.retry_mode != "off":
            line += "  slowest call %.2fs" % st.latency_max
        if not args.quiet:
            extra = partition_wcu_line(args.endpoint, args.table)
            if extra:
                line += "  " + extra
        print(line, flush=True)
    return total


def scatter_gather(c, table, keys):
    """BatchGetItem every shard (strongly consistent) and sum n; returns
    (sum, found, consumed RCU, calls, seconds)."""
    t0 = time.monotonic()
    total, found, rcu, calls = 0, 0, 0.0, 0
    pending = [{"pk": {"S": k}} for k in keys]
    tries = 0
    while pending:
        batch, pending = pending[:100], pending[100:]
        req = {table: {"Keys": batch, "ConsistentRead": True,
                       "ProjectionExpression": "n"}}
        while req:
            tries += 1
            if tries > 50:
                raise DemoError("BatchGetItem: keys still unprocessed after "
                                "50 calls")
            try:
                r = c.batch_get_item(RequestItems=req,
                                     ReturnConsumedCapacity="TOTAL")
            except ClientError as e:
                code = e.response.get("Error", {}).get("Code")
                if code not in THROTTLE_CODES:
                    raise DemoError("BatchGetItem: %s: %s" % (
                        code, e.response.get("Error", {}).get("Message")))
                time.sleep(0.2)
                continue
            calls += 1
            for cc in r.get("ConsumedCapacity", []):
                rcu += cc.get("CapacityUnits", 0)
            for item in r["Responses"].get(table, []):
                found += 1
                total += int(item["n"]["N"])
            req = r.get("UnprocessedKeys") or None
            if req:
                time.sleep(0.1)
    return total, found, rcu, calls, time.monotonic() - t0


def get_counter(c, table, pk):
    r = c.get_item(TableName=table, Key={"pk": {"S": pk}},
                   ConsistentRead=True)
    return int(r["Item"]["n"]["N"]) if "Item" in r else 0


# --- the report ------------------------------------------------------------

def print_phase_table(rows):
    print()
    print("%-24s %5s %6s %6s %9s %7s %8s %7s" % (
        "phase", "secs", "sent", "ok", "throttled", "ok/s", "thr %",
        "retries"))
    for name, secs, st in rows:
        pct = 100.0 * st.throttled / st.sent if st.sent else 0.0
        print("%-24s %5d %6d %6d %9d %7.1f %7.1f%% %7d" % (
            name, secs, st.sent, st.ok, st.throttled,
            st.ok / float(secs), pct, st.retries))
        for code, n in sorted(st.codes.items()):
            print("%-24s   %d x %s" % ("", n, code))
            print("%-24s     \"%s\"" % ("", st.messages.get(code, "")))
        for reason, n in sorted(st.reasons.items()):
            print("%-24s   %d x reason %s" % ("", n, reason))


def key_text(e):
    if e.get("key_text") is not None:
        return e["key_text"]
    k = e.get("key") or {}
    for t in ("S", "N"):
        if t in k:
            return k[t]
    if "B" in k:
        return base64.b64decode(k["B"]).hex()
    return "?"


def print_partitions(endpoint, table, shard_keys, index=None):
    path = "/shardlocal/tables/%s%s/partitions" % (
        table, "/indexes/" + index if index else "")
    d = admin_get(endpoint, path)
    if not d or "partitions" not in d:
        print("\n(no per-partition view: GET %s did not answer; is this "
              "shardlocal?)" % path)
        return
    parts = d["partitions"]
    on = {}
    for k in shard_keys:
        on.setdefault(partition_of(k, parts), []).append(k.split("#")[-1])
    n = d.get("partition_count", len(parts))
    print("\nper partition%s (GET %s): %d partition%s, %s" % (
        " of GSI " + index if index else "", path, n,
        "" if n == 1 else "s", d.get("billing_mode", "")))
    print("%4s  %-17s %5s %9s %7s %9s %10s  %s" % (
        "part", "hash range", "items", "WCU total", "share/s", "ceiling/s",
        "throttled", "shards here"))
    for p in parts:
        w = p.get("write") or {}
        share = w.get("share_per_second")
        print("%4d  %s.. %s.. %5d %9g %7s %9s %10d  %s" % (
            p["partition"], p["hash_start"][:6], p["hash_end"][:6],
            p.get("item_count", 0), round(w.get("consumed_total", 0), 1),
            "-" if share is None or d.get("billing_mode") ==
            "PAY_PER_REQUEST" else "%g" % round(share, 2),
            "%g" % w.get("ceiling_per_second", 0) if w else "-",
            w.get("throttled_total", 0),
            "#" + ",".join(on.get(p["partition"], [])) if
            on.get(p["partition"]) else ""))
    tw = d.get("write") or {}
    if tw.get("throttled"):
        causes = ", ".join("%s %d" % (k, v) for k, v in
                           sorted(tw["throttled"].items()) if v)
        if causes:
            print("write throttles by cause: %s" % causes)


def print_hotkeys(endpoint, table, n=5, index=None):
    path = "/shardlocal/tables/%s%s/hotkeys" % (
        table, "/indexes/" + index if index else "")
    d = admin_get(endpoint, "%s?n=%d" % (path, n))
    if not d:
        return
    for kind, title in (("consumed_write", "most written keys (WCU)"),
                        ("throttled_write", "most throttled keys (writes)")):
        rows = d.get(kind) or []
        print("\n%s%s (GET %s):" % (title, " of GSI " + index if index
                                      else "", path))
        if not rows:
            print("  none")
        for e in rows:
            print("  %-16s partition %-3s %8g" % (
                key_text(e), e.get("partition", "?"),
                round(e.get("count", 0), 1)))


# --- main --------------------------------------------------------------------

def parse_args(argv):
    p = argparse.ArgumentParser(
        description="Show a hot partition throttling and write sharding "
        "fixing it, against a running shardlocal. Start the server with "
        "laptop-scale limits first: ./shardlocal --in-memory "
        "--throttle-scale 0.01 (a partition then serves 10 WCU/s and "
        "30 RCU/s, which one Python loop can saturate; at the default "
        "scale a partition serves 1,000 WCU/s and this demo never "
        "throttles). boto3 runs with retries off (total_max_attempts=1) "
        "so every throttle shows; boto3's default retry mode would retry "
        "each one for up to ~25 s and hide it (try --retry-mode legacy).",
        epilog="See docs/workshop.md for the presenter's script.")
    p.add_argument("--endpoint", default="http://127.0.0.1:8000",
                   help="shardlocal URL (default %(default)s)")
    p.add_argument("--table", default="demo_hotkey",
                   help="table to (re)create (default %(default)s); an "
                   "existing table of this name is deleted first")
    p.add_argument("--seconds", type=int, default=10,
                   help="length of each write phase (default %(default)s)")
    p.add_argument("--rate", type=float, default=30.0,
                   help="writes per second, both phases (default "
                   "%(default)s: 3x a 10 WCU partition)")
    p.add_argument("--shards", type=int, default=10,
                   help="K: the sharded phase writes counter#0 .. "
                   "counter#K-1 (default %(default)s)")
    p.add_argument("--scale-hint", type=float, default=0.01,
                   help="the server's --throttle-scale, used to size the "
                   "table only if GET /shardlocal does not report the "
                   "limits (default %(default)s: 10 WCU / 30 RCU "
                   "partitions)")
    p.add_argument("--partitions", type=int, default=8,
                   help="size the provisioned table for this many "
                   "partitions: (P - 0.5) partition ceilings of WCU and "
                   "half a partition of RCU (default %(default)s)")
    p.add_argument("--wcu", type=int, default=0,
                   help="provisioned WCU instead of the --partitions size")
    p.add_argument("--rcu", type=int, default=0,
                   help="provisioned RCU instead of the --partitions size")
    p.add_argument("--on-demand", action="store_true",
                   help="create an on-demand (PAY_PER_REQUEST) table "
                   "instead (4 partitions; ThrottlingException)")
    p.add_argument("--tag", action="append", default=[], metavar="KNOB=V",
                   help="per-table throttle knob, sent as the CreateTable "
                   "tag shardlocal:KNOB (repeatable), e.g. "
                   "--tag adaptive-capacity=off --tag burst-seconds=10")
    p.add_argument("--gsi", action="store_true",
                   help="add a GSI whose partition key (kind) is the same "
                   "for every item: sharding the table does not shard the "
                   "index (GSI back-pressure)")
    p.add_argument("--key", default="counter",
                   help="the hot partition key (default %(default)s)")
    p.add_argument("--phases", default="naive,sharded",
                   help="which write phases to run, comma-separated "
                   "(default %(default)s)")
    p.add_argument("--retry-mode", default="off",
                   choices=("off", "legacy", "standard", "adaptive"),
                   help="boto3 retries: off (default; "
                   "total_max_attempts=1), or a botocore retry mode "
                   "(legacy is boto3's default) to watch it hide throttles")
    p.add_argument("--keep", action="store_true",
                   help="keep the table afterwards (default: delete it)")
    p.add_argument("--json", metavar="FILE",
                   help="also write the results as JSON to FILE")
    p.add_argument("--quiet", action="store_true",
                   help="per-second lines without the per-partition column")
    args = p.parse_args(argv)
    if args.seconds < 1:
        p.error("--seconds must be at least 1")
    if not 0 < args.rate <= 5000:
        p.error("--rate must be in (0, 5000]")
    if not 1 <= args.shards <= 1000:
        p.error("--shards must be in [1, 1000]")
    if args.scale_hint <= 0:
        p.error("--scale-hint must be positive")
    if not 1 <= args.partitions <= 1000:
        p.error("--partitions must be in [1, 1000]")
    if args.wcu < 0 or args.rcu < 0:
        p.error("--wcu and --rcu must be positive")
    tags = []
    for t in args.tag:
        k, sep, v = t.partition("=")
        if not sep or not k:
            p.error("--tag wants KNOB=VALUE, got %r" % t)
        if k.startswith("shardlocal:"):
            k = k[len("shardlocal:"):]
        tags.append((k, v))
    args.tag = tags
    phases = [x.strip() for x in args.phases.split(",") if x.strip()]
    for x in phases:
        if x not in ("naive", "sharded"):
            p.error("--phases: unknown phase %r (naive, sharded)" % x)
    args.phases = phases
    args.endpoint = args.endpoint.rstrip("/")
    return args


def server_limits(args):
    """The partition ceilings: from GET /shardlocal, else --scale-hint."""
    idx = admin_get(args.endpoint, "/shardlocal")
    th = (idx or {}).get("throttle") or {}
    if th.get("partition_wcu"):
        lim = {"partition_wcu": float(th["partition_wcu"]),
               "partition_rcu": float(th.get("partition_rcu") or
                                      3 * th["partition_wcu"]),
               "scale": th.get("scale"), "enforce": th.get("enforce", True),
               "adaptive": th.get("adaptive_capacity"),
               "clock": ((idx or {}).get("clock") or {}).get("mode"),
               "from": "GET /shardlocal"}
    else:
        lim = {"partition_wcu": 1000.0 * args.scale_hint,
               "partition_rcu": 3000.0 * args.scale_hint,
               "scale": args.scale_hint, "enforce": True, "adaptive": None,
               "clock": None, "from": "--scale-hint"}
    # A table's own throttle tags override the server's ceilings.
    for k, v in args.tag:
        try:
            if k == "partition-wcu":
                lim["partition_wcu"] = float(v) * (lim["scale"] or 1)
            elif k == "partition-rcu":
                lim["partition_rcu"] = float(v) * (lim["scale"] or 1)
        except ValueError:
            pass
    return lim


def main(argv):
    args = parse_args(argv)
    lim = server_limits(args)
    print("shardlocal at %s: partition ceiling %g WCU/s, %g RCU/s "
          "(scale %s, from %s)" % (args.endpoint, lim["partition_wcu"],
                                   lim["partition_rcu"], lim["scale"],
                                   lim["from"]))
    if lim["from"] == "GET /shardlocal" and lim["scale"] is not None and \
            abs(float(lim["scale"]) - args.scale_hint) > 1e-12:
        print("note: the server runs with --throttle-scale %s (--scale-hint "
              "%s ignored)" % (lim["scale"], args.scale_hint))
    if not lim["enforce"]:
        print("note: the server runs with --throttle off: nothing will be "
              "rejected (GET /shardlocal/tables/%s/partitions counts "
              "would_throttle)" % args.table)
    if lim["clock"] == "virtual":
        print("note: the server runs with --virtual-clock: time stands "
              "still, so buckets never refill; restart it without")
    if args.rate <= lim["partition_wcu"]:
        print("note: %g writes/s do not exceed one partition's %g WCU/s: "
              "the naive phase will not throttle. Start the server with "
              "--throttle-scale 0.01 or raise --rate."
              % (args.rate, lim["partition_wcu"]))
    if args.retry_mode == "off":
        print("boto3 retries off (total_max_attempts=1): every throttle "
              "is an exception you see")
    else:
        print("boto3 retry mode %s: throttled calls are retried (watch "
              "RetryAttempts and the slowest call)" % args.retry_mode)

    c = make_client(args)
    what = create_table(c, args, lim)
    info = admin_get(args.endpoint, "/shardlocal/tables/%s/partitions"
                     % args.table)
    parts = (info or {}).get("partitions")
    nparts = (info or {}).get("partition_count")
    print("table %s: %s, %s partition%s%s" % (
        args.table, what, nparts if nparts else "?",
        "" if nparts == 1 else "s",
        "".join(" tag shardlocal:%s=%s" % kv for kv in args.tag)))
    if args.phases:
        print("live view: %s/shardlocal/ui (pick table %s)"
              % (args.endpoint, args.table))

    shard_keys = ["%s#%d" % (args.key, i) for i in range(args.shards)]
    if parts and "sharded" not in args.phases:
        print("key %r lives on partition %s"
              % (args.key, partition_of(args.key, parts)))
    elif parts:
        hot = partition_of(args.key, parts)
        on = {}
        for k in shard_keys:
            on[partition_of(k, parts)] = on.get(partition_of(k, parts), 0) + 1
        busiest = max(on.values())
        print("key %r lives on partition %s; %d shards land on %d of %d "
              "partitions (busiest gets %d of %d: %.1f writes/s against a "
              "ceiling of %g)" % (args.key, hot, args.shards, len(on),
                                  len(parts), busiest, args.shards,
                                  args.rate * busiest / args.shards,
                                  lim["partition_wcu"]))
        if args.rate * busiest / args.shards > 0.9 * lim["partition_wcu"]:
            print("note: the busiest partition is near or over its "
                  "ceiling: expect some throttles in the sharded phase "
                  "(more --shards, more --partitions or less --rate)")

    rows = []
    result = {"endpoint": args.endpoint, "table": args.table,
              "rate": args.rate, "seconds": args.seconds,
              "shards": args.shards, "partition_count": nparts,
              "partition_wcu": lim["partition_wcu"], "phases": {}}
    try:
        for ph in args.phases:
            print()
            if ph == "naive":
                print("phase naive: %g writes/s, every one to %r"
                      % (args.rate, args.key))
                st = run_phase(c, args, "naive", [args.key])
                label = "naive (1 key)"
            else:
                print("phase sharded: %g writes/s over %s#0 .. %s#%d"
                      % (args.rate, args.key, args.key, args.shards - 1))
                st = run_phase(c, args, "sharded", shard_keys)
                label = "sharded (%d keys)" % args.shards
            rows.append((label, args.seconds, st))
            result["phases"][ph] = {
                "sent": st.sent, "ok": st.ok, "throttled": st.throttled,
                "retry_attempts": st.retries, "codes": st.codes,
                "reasons": st.reasons}

        mismatch = []
        if "naive" in args.phases:
            n = get_counter(c, args.table, args.key)
            result["naive_counter"] = n
            if n != result["phases"]["naive"]["ok"]:
                mismatch.append("counter %r is %d, but %d writes succeeded"
                                % (args.key, n,
                                   result["phases"]["naive"]["ok"]))
        if "sharded" in args.phases:
            print("\nphase scatter-gather: BatchGetItem %s#0 .. %s#%d, "
                  "then sum" % (args.key, args.key, args.shards - 1))
            total, found, rcu, calls, secs = scatter_gather(
                c, args.table, shard_keys)
            ok = result["phases"]["sharded"]["ok"]
            print("read %d shards in %d call%s, %.3f s, %g RCU: sum = %d "
                  "(sharded writes that succeeded: %d)%s" % (
                      found, calls, "" if calls == 1 else "s", secs, rcu,
                      total, ok, "" if total == ok else "  MISMATCH"))
            result["scatter_gather"] = {"sum": total, "items": found,
                                        "rcu": rcu, "calls": calls}
            if total != ok:
                mismatch.append("the shards sum to %d, but %d writes "
                                "succeeded" % (total, ok))

        if rows:
            print_phase_table(rows)
        print_partitions(args.endpoint, args.table,
                         shard_keys if "sharded" in args.phases else [])
        print_hotkeys(args.endpoint, args.table)
        if args.gsi:
            print_partitions(args.endpoint, args.table, [], "by_kind")
            print_hotkeys(args.endpoint, args.table, 3, "by_kind")
        if mismatch:
            raise DemoError("; ".join(mismatch))
    finally:
        if args.json:
            with open(args.json, "w") as f:
                json.dump(result, f, indent=1, sort_keys=True)
        if not args.keep:
            try:
                c.delete_table(TableName=args.table)
            except (ClientError, BotoCoreError):
                pass
    if args.keep:
        print("\ntable %s kept (--keep): delete it with aws dynamodb "
              "delete-table --table-name %s --endpoint-url %s"
              % (args.table, args.table, args.endpoint))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except KeyboardInterrupt:
        sys.exit(130)
    except DemoError as e:
        sys.stderr.write("demo_hotkey.py: %s\n" % e)
        sys.exit(1)
    except ClientError as e:
        err = e.response.get("Error", {})
        sys.stderr.write("demo_hotkey.py: %s: %s\n"
                         % (err.get("Code"), err.get("Message")))
        sys.exit(1)
    except BotoCoreError as e:
        sys.stderr.write("demo_hotkey.py: %s\n" % e)
        sys.exit(1)
