#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""demo.py - DynamoDB's partition model, live: six scenarios for a room.

    bench/demo.py SCENARIO [--endpoint URL] [--json FILE] [--keep] [...]

  hot-key    one key throttles while the table is idle; write sharding
             fixes it; reading it back is a scatter-gather
  gsi-choke  a low-cardinality GSI key (status = "PENDING") throttles the
             base table's writes (back-pressure); a sharded key fixes it
  burst      a burst after idle is served from the burst bank, then the
             partition falls back to its share
  adaptive   uneven traffic: a hot partition is served with adaptive
             capacity and throttled without it
  on-demand  a new on-demand table's instant capacity, then twice the
             previous peak once that peak has settled
  split      raising provisioned WCU splits the partitions: spread traffic
             is served, the hot key stays capped at one partition

Each scenario runs against a shardlocal started with laptop-scale limits
(./shardlocal --in-memory --throttle-scale 0.01: a partition serves 10
WCU/s and 30 RCU/s, which one Python loop can saturate), prints what
happens second by second, ends with a summary table and the checks of the
effect it demonstrates, and exits 0 when the effect was observed, 1 when
it was not (or on an unexpected error), 2 on bad arguments. Each takes
under a minute. docs/workshop.md is the presenter's script.

boto3 runs with retries off (total_max_attempts=1) so every throttle is
visible; --retry-mode legacy (boto3's default) shows retries hiding them.
Python 3 and boto3 only.
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
    sys.stderr.write("demo.py needs boto3 (apt install python3-boto3)\n")
    sys.exit(1)

THROTTLE_CODES = ("ProvisionedThroughputExceededException",
                  "ThrottlingException", "RequestLimitExceeded")
GSI_MESSAGE = "global secondary indexes"    # in DynamoDB's GSI message


class DemoError(Exception):
    """Anything unexpected: printed, exit status 1."""


# --- the admin API (GET /shardlocal/...) -------------------------------------

def admin_get(endpoint, path):
    """GET endpoint+path as JSON, or None when there is no such page."""
    try:
        with urllib.request.urlopen(endpoint + path, timeout=5) as r:
            return json.loads(r.read().decode("utf-8"))
    except (urllib.error.URLError, OSError, ValueError):
        return None


def key_hash(pk):
    """Top 64 bits of DynamoDB's hash of a string partition key (MD5 of
    the prefix "Outliers" and the key's UTF-8): where its partition is."""
    return int.from_bytes(
        hashlib.md5(b"Outliers" + pk.encode("utf-8")).digest()[:8], "big")


def partition_of(pk, parts):
    """The partition of the admin view's list whose hash range holds pk."""
    h = key_hash(pk)
    for p in parts or []:
        if int(p["hash_start"], 16) <= h <= int(p["hash_end"], 16):
            return p["partition"]
    return None


def key_text(e):
    if e.get("key_text") is not None:
        return e["key_text"]
    k = e.get("key") or {}
    for t in ("S", "N"):
        if t in k:
            return k[t]
    return base64.b64decode(k["B"]).hex() if "B" in k else "?"


# --- counting what happens -----------------------------------------------------

class Stats:
    """Requests of one phase (or one second of it)."""

    def __init__(self):
        self.sent = self.ok = self.throttled = self.retries = 0
        self.latency_max = 0.0
        self.codes, self.reasons, self.messages = {}, {}, {}
        self.seconds = []                 # ok per second, then throttled

    def add(self, o):
        for k in ("sent", "ok", "throttled", "retries"):
            setattr(self, k, getattr(self, k) + getattr(o, k))
        self.latency_max = max(self.latency_max, o.latency_max)
        for src, dst in ((o.codes, self.codes), (o.reasons, self.reasons)):
            for k, v in src.items():
                dst[k] = dst.get(k, 0) + v
        for k, v in o.messages.items():
            self.messages.setdefault(k, v)
        self.seconds.append((o.ok, o.throttled))

    def rate(self, first=0, last=None):
        """ok per second over seconds [first, last) of the phase."""
        s = self.seconds[first:last]
        return sum(x[0] for x in s) / float(len(s)) if s else 0.0

    def steady(self, skip=3):
        """ok per second once a partition's burst is spent: after the
        first `skip` seconds (DynamoDB absorbs about 2.5 s of a
        partition's ceiling at once), or the last second of a shorter
        phase."""
        return self.rate(min(skip, max(0, len(self.seconds) - 1)))

    def json(self):
        return {"sent": self.sent, "ok": self.ok,
                "throttled": self.throttled, "retry_attempts": self.retries,
                "codes": self.codes, "reasons": self.reasons,
                "messages": self.messages,
                "ok_per_second": [x[0] for x in self.seconds],
                "throttled_per_second": [x[1] for x in self.seconds]}


def throttle_reasons(resp):
    """ThrottlingReasons of an error, if this botocore parses them."""
    out = []
    for member in ("ThrottlingReasons", "throttlingReasons"):
        for r in resp.get(member) or []:
            if isinstance(r, dict) and r.get("reason"):
                out.append(r["reason"])
    return out


# --- the demo's context: client, limits, tables, phases, checks ----------------

class Demo:
    def __init__(self, args):
        self.args = args
        self.endpoint = args.endpoint
        self.c = make_client(args)
        self.lim = server_limits(args)
        self.tables = []
        self.rows = []                    # (label, seconds, Stats)
        self.checks = []                  # (what, ok)
        self.result = {"scenario": args.scenario, "endpoint": args.endpoint,
                       "partition_wcu": self.lim["partition_wcu"],
                       "partition_rcu": self.lim["partition_rcu"],
                       "phases": {}, "checks": []}

    @property
    def W(self):
        return self.lim["partition_wcu"]

    def say(self, text=""):
        print(text, flush=True)

    # tables
    def wait_status(self, table, want, timeout=60.0):
        deadline = time.time() + timeout
        while True:
            try:
                st = self.c.describe_table(TableName=table)["Table"]
                st = st["TableStatus"]
                if st == want:
                    return
                if want == "ACTIVE" and st == "ACTIVE":
                    return
            except ClientError as e:
                if e.response["Error"]["Code"] != "ResourceNotFoundException":
                    raise
                if want is None:
                    return
                st = None
            if time.time() > deadline:
                raise DemoError("table %s: still %s after %d s"
                                % (table, st, timeout))
            time.sleep(0.1)

    def create_table(self, name, rcu=None, wcu=None, tags=(), gsi=None):
        """(Re)create table name: provisioned (rcu, wcu) or on demand; gsi
        = (index name, attribute) with the table's throughput; tags are
        throttle knobs ("burst-seconds", "10"). Returns a description."""
        try:
            self.c.describe_table(TableName=name)
            self.say("table %s exists (left by --keep?): deleting it" % name)
            self.c.delete_table(TableName=name)
            self.wait_status(name, None)
        except ClientError as e:
            if e.response["Error"]["Code"] != "ResourceNotFoundException":
                raise
        req = dict(TableName=name,
                   AttributeDefinitions=[{"AttributeName": "pk",
                                          "AttributeType": "S"}],
                   KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}])
        if wcu is None:
            req["BillingMode"] = "PAY_PER_REQUEST"
            what = "on-demand"
        else:
            req["ProvisionedThroughput"] = {"ReadCapacityUnits": rcu,
                                            "WriteCapacityUnits": wcu}
            what = "provisioned %d RCU / %d WCU" % (rcu, wcu)
        if gsi:
            iname, attr = gsi
            req["AttributeDefinitions"].append({"AttributeName": attr,
                                                "AttributeType": "S"})
            g = {"IndexName": iname,
                 "KeySchema": [{"AttributeName": attr, "KeyType": "HASH"}],
                 "Projection": {"ProjectionType": "KEYS_ONLY"}}
            if wcu is not None:
                g["ProvisionedThroughput"] = dict(req["ProvisionedThroughput"])
            req["GlobalSecondaryIndexes"] = [g]
            what += ", GSI %s on %s" % (iname, attr)
        tags = list(tags) + list(self.args.tag)
        if tags:
            req["Tags"] = [{"Key": "shardlocal:" + k, "Value": str(v)}
                           for k, v in tags]
            what += "".join(", %s=%s" % kv for kv in tags)
        self.c.create_table(**req)
        self.wait_status(name, "ACTIVE")
        self.tables.append(name)
        n = self.partition_count(name)
        what = "%s (%s partition%s)" % (what, n if n else "?",
                                        "" if n == 1 else "s")
        self.say("table %s: %s" % (name, what))
        return what

    def view(self, table, index=None):
        return admin_get(self.endpoint, "/shardlocal/tables/%s%s/partitions"
                         % (table, "/indexes/" + index if index else ""))

    def partition_count(self, table, index=None):
        return (self.view(table, index) or {}).get("partition_count")

    def share(self, table):
        """The write share of partition 0 per second (provisioned)."""
        parts = (self.view(table) or {}).get("partitions") or [{}]
        return (parts[0].get("write") or {}).get("share_per_second")

    def bucket_line(self, table, index=None):
        """'WCU/s by partition [..]' over the last second."""
        d = self.view(table, index)
        if not d or not d.get("partitions"):
            return ""
        cells = ["%g" % round((p.get("write") or {}).get(
            "consumed_last_second") or 0, 1) for p in d["partitions"]]
        return "%sWCU/s by partition [%s]" % (
            "GSI " if index else "", " ".join(cells))

    # requests
    def send(self, call, kw, st):
        """One write: counts it into st; raises DemoError on anything that
        is not a throttle."""
        t0 = time.monotonic()
        st.sent += 1
        try:
            r = call(**kw)
            st.ok += 1
            st.retries += r["ResponseMetadata"].get("RetryAttempts", 0)
        except ClientError as e:
            err = e.response.get("Error", {})
            code = err.get("Code")
            st.retries += e.response.get("ResponseMetadata", {}).get(
                "RetryAttempts", 0)
            if code not in THROTTLE_CODES:
                raise DemoError("%s: %s: %s" % (call.__name__, code,
                                                err.get("Message")))
            st.throttled += 1
            st.codes[code] = st.codes.get(code, 0) + 1
            st.messages.setdefault(code, err.get("Message", ""))
            for reason in throttle_reasons(e.response):
                st.reasons[reason] = st.reasons.get(reason, 0) + 1
        st.latency_max = max(st.latency_max, time.monotonic() - t0)

    def phase(self, label, rate, seconds, request, table, index=None):
        """request(i) -> (boto3 call, kwargs), sent rate/s for seconds;
        one line per second; the phase's Stats (also in the summary)."""
        self.say("\nphase %s: %g writes/s for %d s" % (label, rate, seconds))
        total = Stats()
        interval = 1.0 / rate
        start = time.monotonic()
        nxt = start
        i = 0
        for sec in range(1, seconds + 1):
            st = Stats()
            end = start + sec
            while True:
                now = time.monotonic()
                if now >= end:
                    break
                if nxt > now:
                    time.sleep(min(nxt, end) - now)
                    continue
                call, kw = request(i)
                self.send(call, kw, st)
                i += 1
                nxt += interval
                if nxt < time.monotonic() - 1.0:    # fell behind: no catch-up
                    nxt = time.monotonic()
            total.add(st)
            line = "%-12s %3ds  sent %4d  ok %4d  throttled %4d" % (
                label, sec, st.sent, st.ok, st.throttled)
            if self.args.retry_mode != "off":
                line += "  RetryAttempts %3d  slowest %.2fs" % (
                    st.retries, st.latency_max)
            if not self.args.quiet:
                extra = self.bucket_line(table, index)
                line += "  " + extra if extra else ""
            self.say(line)
        self.rows.append((label, seconds, total))
        self.result["phases"][label] = total.json()
        return total

    def idle(self, label, seconds, table):
        """Send nothing for seconds; print the write bucket each second."""
        self.say("\nphase %s: nothing for %d s" % (label, seconds))
        for sec in range(1, seconds + 1):
            time.sleep(1.0)
            parts = (self.view(table) or {}).get("partitions") or []
            lv = ["%g" % round((p.get("write") or {}).get("bucket_level", 0),
                               1) for p in parts]
            self.say("%-12s %3ds  write bucket [%s]" % (label, sec,
                                                       " ".join(lv)))

    # the report
    def check(self, what, ok):
        self.checks.append((what, bool(ok)))
        self.result["checks"].append({"what": what, "ok": bool(ok)})

    def summary(self):
        self.say("\n%-22s %5s %6s %6s %9s %7s %7s" % (
            "phase", "secs", "sent", "ok", "throttled", "ok/s", "thr %"))
        for label, secs, st in self.rows:
            pct = 100.0 * st.throttled / st.sent if st.sent else 0.0
            self.say("%-22s %5d %6d %6d %9d %7.1f %6.1f%%" % (
                label, secs, st.sent, st.ok, st.throttled,
                st.ok / float(secs), pct))
            for code, n in sorted(st.codes.items()):
                self.say("%-22s   %d x %s" % ("", n, code))
                self.say("%-22s     \"%s\"" % ("", st.messages.get(code, "")))
            for reason, n in sorted(st.reasons.items()):
                self.say("%-22s   %d x reason %s" % ("", n, reason))
        self.say("\nwhat this scenario shows:")
        for what, ok in self.checks:
            self.say("  [%s] %s" % ("x" if ok else " ", what))
        observed = all(ok for _, ok in self.checks)
        self.result["observed"] = observed
        self.say("effect %s" % ("observed" if observed else
                                "NOT observed (see the unchecked lines)"))
        return observed

    def print_partitions(self, table, index=None, keys=()):
        d = self.view(table, index)
        if not d or "partitions" not in d:
            self.say("\n(no per-partition view: is this shardlocal?)")
            return
        parts = d["partitions"]
        on = {}
        for k in keys:
            on.setdefault(partition_of(k, parts), []).append(
                k.split("#")[-1])
        path = "/shardlocal/tables/%s%s/partitions" % (
            table, "/indexes/" + index if index else "")
        n = d.get("partition_count", len(parts))
        self.say("\nper partition%s (GET %s): %d partition%s, %s" % (
            " of GSI " + index if index else "", path, n,
            "" if n == 1 else "s", d.get("billing_mode", "")))
        self.say("%4s  %-17s %5s %9s %7s %9s %10s  %s" % (
            "part", "hash range", "items", "WCU total", "share/s",
            "ceiling/s", "throttled", "keys here" if keys else ""))
        for p in parts:
            w = p.get("write") or {}
            share = w.get("share_per_second")
            self.say("%4d  %s.. %s.. %5d %9g %7s %9s %10d  %s" % (
                p["partition"], p["hash_start"][:6], p["hash_end"][:6],
                p.get("item_count", 0), round(w.get("consumed_total", 0), 1),
                "-" if share is None or d.get("billing_mode") ==
                "PAY_PER_REQUEST" else "%g" % round(share, 2),
                "%g" % w.get("ceiling_per_second", 0) if w else "-",
                w.get("throttled_total", 0),
                "#" + ",".join(on[p["partition"]]) if
                on.get(p["partition"]) else ""))

    def print_hotkeys(self, table, n=3, index=None):
        path = "/shardlocal/tables/%s%s/hotkeys" % (
            table, "/indexes/" + index if index else "")
        d = admin_get(self.endpoint, "%s?n=%d" % (path, n))
        if not d:
            return
        for kind, title in (("consumed_write", "most written keys (WCU)"),
                            ("throttled_write", "most throttled keys "
                             "(writes)")):
            self.say("\n%s%s (GET %s):" % (title, " of GSI " + index if index
                                            else "", path))
            rows = d.get(kind) or []
            if not rows:
                self.say("  none")
            for e in rows:
                self.say("  %-16s partition %-3s %8g" % (
                    key_text(e), e.get("partition", "?"),
                    round(e.get("count", 0), 1)))

    def cleanup(self):
        if self.args.json:
            with open(self.args.json, "w") as f:
                json.dump(self.result, f, indent=1, sort_keys=True)
        if self.args.keep:
            if self.tables:
                self.say("\ntables kept (--keep): %s; delete them with aws "
                         "dynamodb delete-table --endpoint-url %s "
                         "--table-name NAME" % (", ".join(self.tables),
                                                self.endpoint))
            return
        for t in self.tables:
            try:
                self.c.delete_table(TableName=t)
            except (ClientError, BotoCoreError):
                pass


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


def server_limits(args):
    """The partition ceilings: from GET /shardlocal, else --scale-hint."""
    idx = admin_get(args.endpoint, "/shardlocal")
    th = (idx or {}).get("throttle") or {}
    if th.get("partition_wcu"):
        return {"partition_wcu": float(th["partition_wcu"]),
                "partition_rcu": float(th.get("partition_rcu") or
                                       3 * th["partition_wcu"]),
                "scale": th.get("scale"), "enforce": th.get("enforce", True),
                "clock": ((idx or {}).get("clock") or {}).get("mode"),
                "from": "GET /shardlocal"}
    return {"partition_wcu": 1000.0 * args.scale_hint,
            "partition_rcu": 3000.0 * args.scale_hint,
            "scale": args.scale_hint, "enforce": True, "clock": None,
            "from": "--scale-hint"}


# --- the scenarios -----------------------------------------------------------------

def update_counter(d, table, pk, extra_set=None):
    """UpdateItem ADD n :1 on pk (and SET attr = value for extra_set)."""
    kw = dict(TableName=table, Key={"pk": {"S": pk}},
              UpdateExpression="ADD n :one",
              ExpressionAttributeValues={":one": {"N": "1"}})
    if extra_set:
        attr, val = extra_set
        kw["UpdateExpression"] = "SET %s = :v ADD n :one" % attr
        kw["ExpressionAttributeValues"][":v"] = {"S": val}
    return d.c.update_item, kw


def put(d, table, pk, **attrs):
    item = {"pk": {"S": pk}}
    for k, v in attrs.items():
        item[k] = {"S": v}
    return d.c.put_item, dict(TableName=table, Item=item)


def provisioned_for(d, partitions):
    """(rcu, wcu) that make exactly `partitions` partitions: half a
    partition of reads and partitions - 0.5 of writes (ceil(RCU/3000 +
    WCU/1000) at DynamoDB's scale)."""
    return (max(1, int(round(0.5 * d.lim["partition_rcu"]))),
            max(1, int(round((partitions - 0.5) * d.W))))


def scatter_gather(d, table, keys):
    """BatchGetItem every shard (strongly consistent), sum n: (sum,
    found, RCU, calls)."""
    total, found, rcu, calls, tries = 0, 0, 0.0, 0, 0
    pending = [{"pk": {"S": k}} for k in keys]
    while pending:
        batch, pending = pending[:100], pending[100:]
        req = {table: {"Keys": batch, "ConsistentRead": True,
                       "ProjectionExpression": "n"}}
        while req:
            tries += 1
            if tries > 50:
                raise DemoError("BatchGetItem: keys unprocessed after 50 "
                                "calls")
            try:
                r = d.c.batch_get_item(RequestItems=req,
                                       ReturnConsumedCapacity="TOTAL")
            except ClientError as e:
                if e.response.get("Error", {}).get("Code") not in \
                        THROTTLE_CODES:
                    raise
                time.sleep(0.2)
                continue
            calls += 1
            rcu += sum(c.get("CapacityUnits", 0)
                       for c in r.get("ConsumedCapacity", []))
            for item in r["Responses"].get(table, []):
                found += 1
                total += int(item["n"]["N"])
            req = r.get("UnprocessedKeys") or None
            if req:
                time.sleep(0.1)
    return total, found, rcu, calls


def hot_key(d):
    """Naive single key against write sharding, then the scatter-gather
    read and its cost."""
    a = d.args
    table = a.table or "demo_hotkey"
    if a.on_demand:
        rcu = wcu = None
    else:
        rcu, wcu = provisioned_for(d, a.partitions)
        rcu, wcu = a.rcu or rcu, a.wcu or wcu
    d.create_table(table, rcu, wcu)
    parts = (d.view(table) or {}).get("partitions")
    d.result["partition_count"] = d.partition_count(table)
    shards = ["%s#%d" % (a.key, i) for i in range(a.shards)]
    if parts:
        on = {}
        for k in shards:
            p = partition_of(k, parts)
            on[p] = on.get(p, 0) + 1
        busiest = max(on.values())
        d.say("key %r lives on partition %s; %d shards land on %d of %d "
              "partitions (busiest gets %d of %d: %.1f writes/s against a "
              "ceiling of %g)" % (a.key, partition_of(a.key, parts),
                                  a.shards, len(on), len(parts), busiest,
                                  a.shards, a.rate * busiest / a.shards, d.W))
    d.say("live view: %s/shardlocal/ui?table=%s" % (d.endpoint, table))
    naive = d.phase("naive", a.rate, a.seconds,
                    lambda i: update_counter(d, table, a.key), table)
    sharded = d.phase("sharded", a.rate, a.seconds,
                      lambda i: update_counter(d, table,
                                               shards[i % len(shards)]),
                      table)
    r = d.c.get_item(TableName=table, Key={"pk": {"S": a.key}},
                     ConsistentRead=True)
    counter = int(r["Item"]["n"]["N"]) if "Item" in r else 0
    d.result["naive_counter"] = counter
    d.say("\nphase scatter-gather: BatchGetItem %s .. %s, then sum"
          % (shards[0], shards[-1]))
    t0 = time.monotonic()
    total, found, rcu_used, calls = scatter_gather(d, table, shards)
    d.say("read %d shards in %d call%s, %.3f s, %g RCU: sum = %d (sharded "
          "writes that succeeded: %d); the unsharded counter costs 1 RCU"
          % (found, calls, "" if calls == 1 else "s",
             time.monotonic() - t0, rcu_used, total, sharded.ok))
    d.result["scatter_gather"] = {"sum": total, "items": found,
                                  "rcu": rcu_used, "calls": calls}
    d.print_partitions(table, keys=shards)
    d.print_hotkeys(table)
    d.check("one key throttles: more than a quarter of the naive writes "
            "rejected (%d of %d)" % (naive.throttled, naive.sent),
            naive.throttled * 4 > naive.sent)
    d.check("sharded over %d keys, at most 5%% rejected (%d of %d)"
            % (a.shards, sharded.throttled, sharded.sent),
            sharded.throttled * 20 <= sharded.sent)
    d.check("a throttled write changes nothing: counter %d = %d naive "
            "writes served" % (counter, naive.ok), counter == naive.ok)
    d.check("the shards sum to the sharded writes served (%d = %d)"
            % (total, sharded.ok), total == sharded.ok)


def gsi_choke(d):
    """A low-cardinality GSI key throttles base-table writes through
    back-pressure; a sharded GSI key fixes it."""
    a = d.args
    table = a.table or "demo_gsi"
    rcu, wcu = provisioned_for(d, 8)
    d.create_table(table, rcu, wcu, gsi=("by_status", "status"))
    d.say("every order gets a new key (the table spreads them), but all "
          "carry status = \"PENDING\": one GSI key, one GSI partition")
    one = d.phase("one-status", a.rate, a.seconds,
                  lambda i: put(d, table, "order#a%d" % i,
                                status="PENDING"), table, "by_status")
    statuses = ["PENDING#%d" % k for k in range(a.shards)]
    sharded = d.phase("sharded", a.rate, a.seconds,
                      lambda i: put(d, table, "order#b%d" % i,
                                    status=statuses[i % a.shards]),
                      table, "by_status")
    # Reading "all PENDING orders" now takes one Query per status shard.
    count = 0
    for s in statuses:
        kw = dict(TableName=table, IndexName="by_status", Select="COUNT",
                  KeyConditionExpression="#s = :s",
                  ExpressionAttributeNames={"#s": "status"},
                  ExpressionAttributeValues={":s": {"S": s}})
        while True:
            r = d.c.query(**kw)
            count += r["Count"]
            if "LastEvaluatedKey" not in r:
                break
            kw["ExclusiveStartKey"] = r["LastEvaluatedKey"]
    d.say("\nscatter-gather on the GSI: %d Queries (one per status shard) "
          "count %d pending orders (sharded writes served: %d)"
          % (len(statuses), count, sharded.ok))
    d.result["gsi_query_count"] = count
    d.print_partitions(table, index="by_status")
    d.print_hotkeys(table, index="by_status")
    gsi_said = any(GSI_MESSAGE in m for m in one.messages.values()) or \
        any(r.startswith("Index") for r in one.reasons)
    d.check("one GSI key: more than a quarter of the table's writes "
            "rejected (%d of %d)" % (one.throttled, one.sent),
            one.throttled * 4 > one.sent)
    d.check("the rejections blame the GSI (its message or an Index... "
            "reason)", gsi_said)
    d.check("%d status shards: at most 5%% rejected (%d of %d)"
            % (a.shards, sharded.throttled, sharded.sent),
            sharded.throttled * 20 <= sharded.sent)
    d.check("the shard Queries find every order served (%d = %d)"
            % (count, sharded.ok), count == sharded.ok)


def burst(d):
    """A burst after idle is served from the burst bank, then back to the
    table's share."""
    a = d.args
    table = a.table or "demo_burst"
    bank = a.bank_seconds
    d.create_table(table, 1, a.wcu,
                   tags=[("burst-seconds", bank), ("burst-start-full", "off")])
    share = d.share(table) or float(a.wcu)
    d.say("one partition: share %g WCU/s, ceiling %g WCU/s, a bank of %g s "
          "of share (%g units), empty at the start" % (share, d.W, bank,
                                                      share * bank))
    rate = 2 * d.W
    key = lambda i: put(d, table, "k%d" % (i % 50))
    cold = d.phase("cold", rate, a.cold_seconds, key, table)
    d.idle("idle", bank, table)
    hot = d.phase("burst", rate, bank + a.cold_seconds + 2, key, table)
    d.print_partitions(table)
    half = max(1, bank // 2)
    first, last = hot.rate(0, half), hot.rate(-3)
    d.result.update(share=share, burst_first=first, burst_last=last)
    d.check("cold (empty bank): served about the share, %.1f/s (share %g)"
            % (cold.rate(), share), cold.rate() <= share * 1.5 + 1)
    d.check("after %d s idle: the first %d s of the burst served %.1f/s, "
            "well above the share" % (bank, half, first),
            first >= share * 1.4)
    d.check("the bank spent: the last 3 s back to about the share, "
            "%.1f/s" % last, last <= share * 1.5 + 1)
    d.check("a burst is still throttled above the ceiling (%d rejected)"
            % hot.throttled, hot.throttled > 0)


def adaptive(d):
    """Uneven traffic served with adaptive capacity, throttled without."""
    a = d.args
    base = a.table or "demo_adaptive"
    rcu, wcu = 6 * d.lim["partition_rcu"] / 3.0, 2 * d.W
    rcu, wcu = int(round(rcu)), int(round(wcu))
    tables = {"on": base + "_on", "off": base + "_off"}
    tags = {"on": [("burst-start-full", "off")],
            "off": [("burst-start-full", "off"),
                    ("adaptive-capacity", "off")]}
    st, share, rate = {}, 0, a.rate
    for mode in ("on", "off"):
        # Each table made just before its phase: a partition banks its
        # unused share from the start, and the banks must be empty.
        t = tables[mode]
        d.create_table(t, rcu, wcu, tags=tags[mode])
        share = d.share(t) or 0
        rate = a.rate or round(share * 1.6, 1)
        d.say("%d partitions of %g WCU/s share (empty banks); one key gets "
              "%g writes/s: more than its partition's share, less than the "
              "table's %d WCU" % (d.partition_count(t) or 0, share, rate,
                                  wcu))
        st[mode] = d.phase("adaptive-" + mode, rate, a.seconds,
                           lambda i, t=t: put(d, t, "hot"), t)
    d.result.update(share=share, rate=rate)
    d.print_partitions(tables["off"])
    d.check("adaptive capacity on: the hot partition borrows the idle "
            "ones' share, at most 5%% rejected (%d of %d)"
            % (st["on"].throttled, st["on"].sent),
            st["on"].throttled * 20 <= st["on"].sent)
    d.check("adaptive capacity off: held to its share, more than 15%% "
            "rejected (%d of %d)" % (st["off"].throttled, st["off"].sent),
            st["off"].throttled * 100 > st["off"].sent * 15)


def on_demand(d):
    """A new on-demand table's instant capacity, then twice the previous
    peak."""
    a = d.args
    table = a.table or "demo_ondemand"
    scale = float(d.lim.get("scale") or 1)
    # The initial capacity as a tag is scaled like the flag: 1,000 WRU
    # at scale 0.01 is 10 WRU/s.
    initial = a.initial_wru * scale
    # ondemand-burst-seconds=1: the table absorbs no more than one second
    # of its capacity at once, so the peak it sets is its steady rate and
    # the doubling shows as a new cap rather than inside a burst.
    d.create_table(table, tags=[("ondemand-initial-wru", a.initial_wru),
                                ("ondemand-peak-window-seconds", a.window),
                                ("ondemand-burst-seconds", 1)])
    d.say("a new on-demand table: %g writes/s at once; a peak counts once "
          "it is %d s old (DynamoDB: 30 minutes), then the table takes "
          "twice it" % (initial, a.window))
    keys = ["item#%d" % i for i in range(200)]
    # The first second serves twice the instant capacity (the table's
    # bucket starts full): that second is the peak to remember.
    first = d.phase("new-table", 4 * initial, a.window - 1,
                    lambda i: put(d, table, keys[i % len(keys)]), table)
    # Phase two sends more than twice that peak, so the new cap shows; it
    # ends before its own peak is a window old, so it cannot double again.
    second = d.phase("2x-peak", 6 * initial, a.window + 1,
                     lambda i: put(d, table, keys[(i * 7) % len(keys)]),
                     table)
    late = second.rate(-max(2, (a.window + 1) // 2))
    peak = max(x[0] for x in first.seconds) if first.seconds else 0
    d.result.update(initial=initial, second_late=late, first_peak=peak)
    d.print_partitions(table)
    d.check("instant capacity: the first second served %d (initial %g)"
            % (first.seconds[0][0] if first.seconds else 0, initial),
            first.seconds and first.seconds[0][0] >= initial * 0.7)
    d.check("the new table holds at its initial capacity, %.1f/s"
            % first.steady(), first.steady() <= initial * 1.3 + 1 and
            first.throttled > 0)
    d.check("once the peak (%d/s) settled: %.1f/s, more than before and "
            "at most twice the peak" % (peak, late),
            peak * 1.5 <= late <= 2 * peak * 1.1 + 1)
    d.check("the rejections are ThrottlingException (on demand)",
            set(first.codes) == {"ThrottlingException"})


def split(d):
    """Raising provisioned WCU splits partitions; the hot key stays
    capped at one partition's ceiling."""
    a = d.args
    table = a.table or "demo_split"
    d.create_table(table, 1, max(1, int(d.W / 2)))
    keys = ["item#%d" % i for i in range(100)]
    spread = lambda t: (lambda i: put(d, t, keys[(i * 7) % len(keys)]))
    before = d.partition_count(table)
    small = d.phase("1-partition", a.rate, a.seconds, spread(table), table)
    rcu, wcu = provisioned_for(d, a.partitions)
    d.say("\nUpdateTable: %d RCU / %d WCU" % (rcu, wcu))
    d.c.update_table(TableName=table, ProvisionedThroughput={
        "ReadCapacityUnits": rcu, "WriteCapacityUnits": wcu})
    d.wait_status(table, "ACTIVE")
    after = d.partition_count(table)
    d.say("partitions: %s -> %s" % (before, after))
    d.result.update(partitions_before=before, partitions_after=after)
    big = d.phase("after-split", a.rate, a.seconds, spread(table), table)
    hot = d.phase("hot-key", a.rate, a.seconds,
                  lambda i: put(d, table, "hot"), table)
    d.print_partitions(table)
    d.check("one partition: spread traffic above its ceiling throttles "
            "(%d of %d)" % (small.throttled, small.sent),
            small.throttled * 4 > small.sent)
    d.check("UpdateTable split it: %s -> %s partitions" % (before, after),
            (after or 0) > (before or 0))
    d.check("after the split the same traffic is served: at most 5%% "
            "rejected (%d of %d)" % (big.throttled, big.sent),
            big.throttled * 20 <= big.sent)
    d.check("the hot key stays capped at one partition once its burst is "
            "spent: %.1f/s (ceiling %g), %d rejected"
            % (hot.steady(), d.W, hot.throttled),
            hot.steady() <= d.W * 1.3 + 1 and hot.throttled * 4 > hot.sent)


SCENARIOS = {
    "hot-key": hot_key, "gsi-choke": gsi_choke, "burst": burst,
    "adaptive": adaptive, "on-demand": on_demand, "split": split,
}


# --- arguments ----------------------------------------------------------------

def parse_args(argv):
    common = argparse.ArgumentParser(add_help=False)
    g = common.add_argument_group("every scenario")
    g.add_argument("--endpoint", default="http://127.0.0.1:8000",
                   help="shardlocal URL (default %(default)s)")
    g.add_argument("--table", default=None,
                   help="table name (default demo_<scenario>); an existing "
                   "table of that name is deleted first")
    g.add_argument("--json", metavar="FILE",
                   help="also write the results and checks to FILE")
    g.add_argument("--keep", action="store_true",
                   help="keep the tables afterwards (for the live view)")
    g.add_argument("--quiet", action="store_true",
                   help="per-second lines without the per-partition column")
    g.add_argument("--retry-mode", default="off",
                   choices=("off", "legacy", "standard", "adaptive"),
                   help="boto3 retries: off (default), or a botocore mode "
                   "(legacy is boto3's default) to watch it hide throttles")
    g.add_argument("--tag", action="append", default=[], metavar="KNOB=V",
                   help="extra per-table throttle knob (CreateTable tag "
                   "shardlocal:KNOB), repeatable")
    g.add_argument("--scale-hint", type=float, default=0.01,
                   help="the server's --throttle-scale if GET /shardlocal "
                   "does not say (default %(default)s)")
    p = argparse.ArgumentParser(
        description="DynamoDB's partition model, live, against a running "
        "shardlocal started with ./shardlocal --in-memory --throttle-scale "
        "0.01. Exit status 0 when the scenario's effect was observed.",
        epilog="docs/workshop.md is the presenter's script.")
    sub = p.add_subparsers(dest="scenario", metavar="SCENARIO")
    sub.required = True

    def scenario(name, helptext, seconds=10, rate=30.0):
        s = sub.add_parser(name, parents=[common], help=helptext,
                           description=helptext)
        s.add_argument("--seconds", type=int, default=seconds,
                       help="length of each phase (default %(default)s)")
        s.add_argument("--rate", type=float, default=rate,
                       help="writes per second (default %(default)s)")
        return s

    s = scenario("hot-key", "one key against write sharding, then the "
                 "scatter-gather read")
    s.add_argument("--shards", type=int, default=10,
                   help="K: the sharded phase writes KEY#0 .. KEY#K-1")
    s.add_argument("--partitions", type=int, default=8,
                   help="size the provisioned table for this many "
                   "partitions (default %(default)s)")
    s.add_argument("--wcu", type=int, default=0, help="provisioned WCU")
    s.add_argument("--rcu", type=int, default=0, help="provisioned RCU")
    s.add_argument("--on-demand", action="store_true",
                   help="an on-demand table instead (4 partitions)")
    s.add_argument("--key", default="counter", help="the hot key")
    s = scenario("gsi-choke", "a low-cardinality GSI key throttles the "
                 "table's writes; a sharded GSI key fixes it")
    s.add_argument("--shards", type=int, default=10,
                   help="status shards PENDING#0 .. #K-1")
    s = scenario("burst", "a burst after idle served from the burst bank, "
                 "then the share", seconds=0, rate=0)
    s.add_argument("--bank-seconds", type=int, default=10,
                   help="the bank holds this many seconds of share (tag "
                   "burst-seconds; DynamoDB: 300) and the idle phase lasts "
                   "as long (default %(default)s)")
    s.add_argument("--cold-seconds", type=int, default=5,
                   help="the burst before idle, bank empty")
    s.add_argument("--wcu", type=int, default=5,
                   help="the table's WCU: its one partition's share")
    s = scenario("adaptive", "a hot partition served with adaptive capacity, "
                 "throttled without", seconds=8, rate=0)
    s = scenario("on-demand", "a new on-demand table's instant capacity, "
                 "then twice the previous peak", seconds=0, rate=0)
    s.add_argument("--initial-wru", type=float, default=500,
                   help="the table's initial write capacity, scaled like "
                   "the flag (tag ondemand-initial-wru; default "
                   "%(default)s: 5/s at scale 0.01)")
    s.add_argument("--window", type=int, default=10,
                   help="seconds before a peak counts (tag "
                   "ondemand-peak-window-seconds; DynamoDB: 1800)")
    s = scenario("split", "raising provisioned WCU splits partitions; the "
                 "hot key stays capped", seconds=5)
    s.add_argument("--partitions", type=int, default=8,
                   help="size the update for this many partitions")
    args = p.parse_args(argv)
    for name in ("seconds", "window", "bank_seconds", "cold_seconds"):
        v = getattr(args, name, None)
        if v is not None and v < 0 or (v == 0 and name != "seconds"):
            p.error("--%s must be positive" % name.replace("_", "-"))
    if args.scenario in ("hot-key", "gsi-choke", "split"):
        if args.seconds < 1:
            p.error("--seconds must be at least 1")
        if not 0 < args.rate <= 5000:
            p.error("--rate must be in (0, 5000]")
    if getattr(args, "shards", 1) < 1 or getattr(args, "shards", 1) > 1000:
        p.error("--shards must be in [1, 1000]")
    if not 1 <= getattr(args, "partitions", 1) <= 1000:
        p.error("--partitions must be in [1, 1000]")
    if getattr(args, "window", 2) < 2:
        p.error("--window must be at least 2")
    tags = []
    for t in args.tag:
        k, sep, v = t.partition("=")
        if not sep or not k:
            p.error("--tag wants KNOB=VALUE, got %r" % t)
        tags.append((k[len("shardlocal:"):] if k.startswith("shardlocal:")
                     else k, v))
    args.tag = tags
    args.endpoint = args.endpoint.rstrip("/")
    return args


def main(argv):
    args = parse_args(argv)
    d = Demo(args)
    lim = d.lim
    d.say("shardlocal at %s: partition ceiling %g WCU/s, %g RCU/s (scale "
          "%s, from %s)" % (args.endpoint, lim["partition_wcu"],
                            lim["partition_rcu"], lim["scale"], lim["from"]))
    if not lim["enforce"]:
        d.say("note: the server runs with --throttle off: nothing will be "
              "rejected")
    if lim["clock"] == "virtual":
        d.say("note: the server runs with --virtual-clock: time stands "
              "still, buckets never refill; restart it without")
    if lim["partition_wcu"] > 100:
        d.say("note: a partition takes %g writes/s, more than this script "
              "sends: start the server with --throttle-scale 0.01"
              % lim["partition_wcu"])
    d.say("boto3 retries %s" % ("off (total_max_attempts=1): every throttle "
                                "is an exception you see"
                                if args.retry_mode == "off" else
                                "mode " + args.retry_mode))
    try:
        SCENARIOS[args.scenario](d)
        observed = d.summary()
    finally:
        d.cleanup()
    return 0 if observed else 1


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except KeyboardInterrupt:
        sys.exit(130)
    except DemoError as e:
        sys.stderr.write("demo.py: %s\n" % e)
        sys.exit(1)
    except ClientError as e:
        err = e.response.get("Error", {})
        sys.stderr.write("demo.py: %s: %s\n" % (err.get("Code"),
                                                err.get("Message")))
        sys.exit(1)
    except BotoCoreError as e:
        sys.stderr.write("demo.py: %s\n" % e)
        sys.exit(1)
