# SPDX-License-Identifier: MIT
# soak.py - a bounded fault-and-load soak on loopback: a server on a temp
# data directory with a tiny --split-size (partitions split all the time)
# and a tiny --checkpoint-pages (the checkpoint thread copies WALs beside
# the writers all the time), writers running a mix of PutItem,
# UpdateItem, DeleteItem, BatchWriteItem and TransactWriteItems against a
# table with a GSI, and kill -9 at a random moment of each round, so that
# kills land during writes, splits, checkpoints, index upkeep and
# transactions. After each restart every check in CHECKS runs: each
# acknowledged write is there (a write cut off by the kill may or may not
# be), the GSI matches its table, and transactions are whole.
#
# Usage: python3 soak.py SERVER_BINARY SECONDS [SEED]
# Prints one line per round and "N passed, N failed" at the end (rounds);
# exits 1 on any failed check. tests/soak/run.sh runs it (README there).
#
# Hooks: a feature that writes (stream records, TTL sweeps, backups) adds
# its load to a writer's OPS table and a check to CHECKS; each check gets
# the client, the Model and the scanned rows and returns a list of
# problems.
#
# The table also carries a vector index (VINDEX, HASH g) over "e", which
# items hold or lack by their version; check_vectors searches each g for
# every item and compares the index's keys and scores with the table,
# after each restart (the index rebuilt from the table) and again after a
# short live burst of writes (its upkeep). boto3 does not model vector indexes yet, so their calls are raw JSON.
import json
import math
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

import boto3
from botocore.config import Config
from botocore.exceptions import BotoCoreError, ClientError

TABLE = "soak_items"
INDEX = "by_g"
VINDEX = "by_e"                     # vector index, 3 dimensions, HASH g
WRITERS = 4
KEYS = 40                           # per writer
PAD = "p" * 1500                    # 1.5 KB items: 16 KB partitions split


def client(url):
    return boto3.client(
        "dynamodb", endpoint_url=url, region_name="us-east-1",
        aws_access_key_id="soak", aws_secret_access_key="soak",
        config=Config(retries={"max_attempts": 1}, connect_timeout=2,
                      read_timeout=10))


class Server:
    def __init__(self, binary, workdir):
        self.binary = binary
        self.data = os.path.join(workdir, "data")
        self.port_file = os.path.join(workdir, "port")
        self.log = os.path.join(workdir, "server.log")
        self.proc = None

    def start(self):
        if os.path.exists(self.port_file):
            os.unlink(self.port_file)
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen(
                [self.binary, "--port", "0", "--host", "127.0.0.1",
                 "--port-file", self.port_file, "--data-dir", self.data,
                 "--throttle", "off", "--split-size", "16KB",
                 "--checkpoint-pages", "8", "--threads", "4"],
                stdout=log, stderr=log)
        deadline = time.time() + 20
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("server exited %d" % self.proc.returncode)
            try:
                with open(self.port_file) as f:
                    url = "http://127.0.0.1:%d" % int(f.read().strip())
                with urllib.request.urlopen(url + "/", timeout=1):
                    return url
            except (OSError, ValueError):
                time.sleep(0.05)
        raise RuntimeError("server did not start")

    def kill9(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()


class Model:
    """What each key may hold: its acknowledged value, and while a write
    is cut off by a kill, that write's value too. A value is the item's
    version (an int) or None for no item. Transactions add a group: its
    keys hold all their new values or all their old ones."""

    def __init__(self):
        self.acked = {}                 # key -> version or None
        self.pending = {}               # key -> version or None
        self.groups = []                # [(keys, olds, news)] cut off

    def allowed(self, key):
        out = {self.acked.get(key)}
        if key in self.pending:
            out.add(self.pending[key])
        return out

    def settle(self, found):
        """After a check: what was found is now what was acknowledged."""
        for key in set(self.acked) | set(self.pending):
            self.acked[key] = found.get(key)
        self.pending.clear()
        self.groups.clear()


def vector(ver):
    """The embedding a version holds, or None (one version in four has
    none, so writes add, move and drop index entries)."""
    if ver % 4 == 0:
        return None
    return [ver % 1000, (ver >> 10) % 1000, 1]


def wire_vector(vec):
    return {"L": [{"N": str(x)} for x in vec]}


def item(key, ver):
    g = "g%d" % (ver % 5)
    out = {"pk": {"S": key}, "v": {"N": str(ver)}, "g": {"S": g},
           "pad": {"S": PAD}}
    if vector(ver) is not None:
        out["e"] = wire_vector(vector(ver))
    return out


def call_raw(url, op, body):
    """One DynamoDB call as a raw signed-looking JSON POST (for what boto3
    does not model); returns (status, decoded answer)."""
    req = urllib.request.Request(
        url + "/", data=json.dumps(body).encode(), method="POST", headers={
            "X-Amz-Target": "DynamoDB_20120810." + op,
            "Content-Type": "application/x-amz-json-1.0",
            "X-Amz-Date": "20260101T000000Z",
            "Authorization": "AWS4-HMAC-SHA256 Credential=soak/20260101/"
            "us-east-1/dynamodb/aws4_request, SignedHeaders=host, "
            "Signature=" + "0" * 64})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, json.loads(r.read() or b"{}")
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"{}")


class Writer(threading.Thread):
    """One writer owns its keys, so the model needs no locking between
    writers; it stops at the first connection error (the kill)."""

    def __init__(self, n, url, model, rng, lock):
        super().__init__(daemon=True)
        self.n, self.c, self.model = n, client(url), model
        self.rng, self.lock = rng, lock
        self.ops = 0
        self.OPS = [self.put, self.put, self.update, self.delete,
                    self.batch, self.txn, self.txn]

    def key(self):
        return "w%d_%d" % (self.n, self.rng.randrange(KEYS))

    def ver(self):
        return self.rng.randrange(1, 1 << 30)

    def begin(self, pairs):
        with self.lock:
            for k, v in pairs:
                self.model.pending[k] = v

    def ack(self, pairs):
        with self.lock:
            for k, v in pairs:
                self.model.acked[k] = v
                self.model.pending.pop(k, None)

    def drop(self, keys):
        with self.lock:
            for k in keys:
                self.model.pending.pop(k, None)

    def put(self):
        k, v = self.key(), self.ver()
        self.begin([(k, v)])
        self.c.put_item(TableName=TABLE, Item=item(k, v))
        self.ack([(k, v)])

    def update(self):
        k, v = self.key(), self.ver()
        values = {":v": {"N": str(v)}, ":g": {"S": "g%d" % (v % 5)},
                  ":p": {"S": PAD}}
        if vector(v) is None:
            e = " REMOVE #e"
        else:
            e = ", #e = :e"
            values[":e"] = wire_vector(vector(v))
        self.begin([(k, v)])
        self.c.update_item(
            TableName=TABLE, Key={"pk": {"S": k}},
            UpdateExpression="SET #v = :v, #g = :g, #p = :p" + e,
            ExpressionAttributeNames={"#v": "v", "#g": "g", "#p": "pad",
                                      "#e": "e"},
            ExpressionAttributeValues=values)
        self.ack([(k, v)])

    def delete(self):
        k = self.key()
        self.begin([(k, None)])
        self.c.delete_item(TableName=TABLE, Key={"pk": {"S": k}})
        self.ack([(k, None)])

    def batch(self):
        pairs = {}
        for _ in range(self.rng.randrange(2, 8)):
            pairs[self.key()] = self.ver()
        pairs = list(pairs.items())
        self.begin(pairs)
        r = self.c.batch_write_item(RequestItems={TABLE: [
            {"PutRequest": {"Item": item(k, v)}} for k, v in pairs]})
        left = {it["PutRequest"]["Item"]["pk"]["S"]
                for it in r.get("UnprocessedItems", {}).get(TABLE, [])}
        self.ack([(k, v) for k, v in pairs if k not in left])
        self.drop(left)

    def txn(self):
        keys = []
        while len(keys) < self.rng.randrange(2, 5):
            k = self.key()
            if k not in keys:
                keys.append(k)
        news = [self.ver() for _ in keys]
        with self.lock:
            olds = [self.model.acked.get(k) for k in keys]
            group = (keys, olds, news)
            self.model.groups.append(group)
        self.begin(zip(keys, news))
        try:
            self.c.transact_write_items(TransactItems=[
                {"Put": {"TableName": TABLE, "Item": item(k, v)}}
                for k, v in zip(keys, news)])
        except ClientError as e:
            if e.response["Error"]["Code"] not in (
                    "TransactionCanceledException",
                    "TransactionConflictException"):
                raise
            with self.lock:
                self.model.groups.remove(group)
            self.drop(keys)
            return
        with self.lock:
            self.model.groups.remove(group)
        self.ack(zip(keys, news))

    def run(self):
        try:
            while True:
                self.rng.choice(self.OPS)()
                self.ops += 1
        except (BotoCoreError, ClientError, OSError) as e:
            if isinstance(e, ClientError):
                self.error = e      # a refusal, not the kill: a failure
            return


def scan(c, **kw):
    rows, args = [], dict(kw)
    while True:
        r = c.scan(**args)
        rows.extend(r["Items"])
        if "LastEvaluatedKey" not in r:
            return rows
        args["ExclusiveStartKey"] = r["LastEvaluatedKey"]


# --- checks: each returns a list of problems --------------------------------

def check_acknowledged(c, model, rows, found):
    bad = []
    for key in set(model.acked) | set(model.pending):
        if found.get(key) not in model.allowed(key):
            bad.append("%s holds %r, allowed %r" % (key, found.get(key),
                                                    model.allowed(key)))
    return bad


def check_index(c, model, rows, found):
    want = sorted((r["pk"]["S"], r["g"]["S"]) for r in rows if "g" in r)
    got = sorted((r["pk"]["S"], r["g"]["S"])
                 for r in scan(c, TableName=TABLE, IndexName=INDEX))
    if want != got:
        extra = set(got) - set(want)
        missing = set(want) - set(got)
        return ["GSI differs from its table: %d extra %r, %d missing %r"
                % (len(extra), sorted(extra)[:3], len(missing),
                   sorted(missing)[:3])]
    return []


def check_transactions(c, model, rows, found):
    bad = []
    for keys, olds, news in model.groups:
        now = [found.get(k) for k in keys]
        if now != olds and now != news:
            bad.append("transaction on %r half applied: %r (old %r, new %r)"
                       % (keys, now, olds, news))
    return bad


def check_vectors(c, model, rows, found):
    """Each g's search (TopK 100 covers a g: 160 keys over 5 values)
    answers exactly the items of that g holding a vector, each scored
    by the vector the table holds (EUCLIDEAN from the origin)."""
    bad = []
    for n in range(5):
        g = "g%d" % n
        want = {}
        for r in rows:
            if r.get("g", {}).get("S") == g and "e" in r:
                vec = [float(x["N"]) for x in r["e"]["L"]]
                want[r["pk"]["S"]] = math.sqrt(sum(x * x for x in vec))
        status, out = call_raw(c.meta.endpoint_url, "SearchVectors", {
            "TableName": TABLE, "IndexName": VINDEX,
            "SearchVector": wire_vector([0, 0, 0])["L"], "TopK": 100,
            "SearchConditionExpression": "g = :g",
            "ExpressionAttributeValues": {":g": {"S": g}}})
        if status != 200:
            bad.append("SearchVectors %s: %d %r" % (g, status, out))
            continue
        got = {h["Item"]["pk"]["S"]: h["Score"] for h in out["SearchResults"]}
        if len(want) > 100:
            bad.append("%s holds %d vectors, over one search" % (g, len(want)))
        elif set(got) != set(want):
            bad.append("vector index %s differs from its table: extra %r, "
                       "missing %r" % (g, sorted(set(got) - set(want))[:3],
                                       sorted(set(want) - set(got))[:3]))
        for k in set(got) & set(want):
            if abs(got[k] - want[k]) > 1e-4 * want[k]:
                bad.append("%s scores %r, its vector %r" % (k, got[k],
                                                            want[k]))
    return bad


CHECKS = [check_acknowledged, check_index, check_transactions,
          check_vectors]


def verify(url, model):
    c = client(url)
    rows = scan(c, TableName=TABLE, ConsistentRead=True)
    found = {r["pk"]["S"]: int(r["v"]["N"]) for r in rows}
    problems = []
    for check in CHECKS:
        problems += check(c, model, rows, found)
    model.settle(found)
    return problems, c


def live_vectors(url, model, rng, lock):
    """A restart rebuilds a vector index from its table, so the check
    after one cannot see an entry the live upkeep left stale: after it,
    one writer runs a short burst alone and check_vectors runs on the
    live server."""
    w = Writer(0, url, model, rng, lock)
    try:
        for _ in range(30):
            rng.choice(w.OPS)()
    except (BotoCoreError, ClientError, OSError) as e:
        return ["live burst refused: %s" % e]
    c = client(url)
    rows = scan(c, TableName=TABLE, ConsistentRead=True)
    return ["live: " + p for p in check_vectors(c, model, rows, None)]


def partitions(url):
    try:
        with urllib.request.urlopen(
                url + "/shardlocal/tables/%s/partitions" % TABLE,
                timeout=2) as r:
            import json
            j = json.load(r)
            return len(j.get("partitions", j.get("Partitions", [])))
    except (OSError, ValueError):
        return -1


def main(argv):
    binary, seconds = argv[1], float(argv[2])
    seed = int(argv[3]) if len(argv) > 3 else random.randrange(1 << 30)
    rng = random.Random(seed)
    work = tempfile.mkdtemp(prefix="shardlocal-soak.")
    srv = Server(binary, work)
    model, lock = Model(), threading.Lock()
    passed = failed = rounds = 0
    total_ops = 0
    print("soak: seed %d, %.0f s, data in %s" % (seed, seconds, work))
    deadline = time.time() + seconds
    try:
        url = srv.start()
        status, out = call_raw(url, "CreateTable", {
            "TableName": TABLE, "BillingMode": "PAY_PER_REQUEST",
            "AttributeDefinitions": [{"AttributeName": "pk",
                                      "AttributeType": "S"},
                                     {"AttributeName": "g",
                                      "AttributeType": "S"}],
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
            "GlobalSecondaryIndexes": [{
                "IndexName": INDEX,
                "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                "Projection": {"ProjectionType": "KEYS_ONLY"}}],
            "VectorIndexes": [{
                "IndexName": VINDEX, "VectorAttribute": {"AttributeName": "e"},
                "Dimensions": 3, "DistanceFunction": "EUCLIDEAN",
                "SearchSchema": [{"AttributeName": "g",
                                  "SearchSchemaElementType": "HASH"}],
                "Projection": {"ProjectionType": "KEYS_ONLY"}}]})
        if status != 200:
            raise RuntimeError("CreateTable: %d %r" % (status, out))
        while time.time() < deadline or rounds == 0:
            rounds += 1
            writers = [Writer(n, url, model, random.Random(rng.random()),
                              lock) for n in range(WRITERS)]
            for w in writers:
                w.start()
            time.sleep(rng.uniform(0.2, 1.5))
            srv.kill9()                 # mid-load: no shutdown at all
            for w in writers:
                w.join(30)
            ops = sum(w.ops for w in writers)
            total_ops += ops
            refused = [w.error for w in writers if hasattr(w, "error")]
            url = srv.start()
            problems, c = verify(url, model)
            problems += ["refused: %s" % e for e in refused]
            problems += live_vectors(url, model, random.Random(rng.random()),
                                     lock)
            n = partitions(url)
            if problems:
                failed += 1
                print("soak: round %d: %d ops, %d partitions: FAILED"
                      % (rounds, ops, n))
                for p in problems[:20]:
                    print("  " + p)
            else:
                passed += 1
                print("soak: round %d: %d ops, kill -9, %d partitions: ok"
                      % (rounds, ops, n))
        srv.kill9()
        with open(srv.log, errors="replace") as f:
            log = f.read()
        if "AddressSanitizer" in log or "runtime error:" in log:
            failed += 1
            print("soak: sanitizer report in the server log")
    finally:
        srv.kill9()
        if failed == 0:
            shutil.rmtree(work, ignore_errors=True)
    print("soak: %d rounds, %d operations, seed %d" % (rounds, total_ops,
                                                        seed))
    print("%d passed, %d failed" % (passed, failed))
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
