# SPDX-License-Identifier: MIT
# vector_http.py - raw HTTP for the vector suites: boto3 (1.43 and
# Debian's 1.26) does not model VectorIndexes or SearchVectors yet, so
# these calls are signed JSON POSTs of their own, as any client sends them.
import json
import random
import struct
import urllib.error
import urllib.request

AUTH = ("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20260101/us-east-1/"
        "dynamodb/aws4_request, SignedHeaders=content-type;host;x-amz-date;"
        "x-amz-target, Signature=" + "0" * 64)


def call_raw(url, op, body):
    """POST body (bytes or a JSON-able object) as op; returns (status,
    the decoded JSON answer)."""
    data = body if isinstance(body, bytes) else \
        json.dumps(body, separators=(",", ":")).encode()
    req = urllib.request.Request(url + "/", data=data, method="POST", headers={
        "X-Amz-Target": "DynamoDB_20120810." + op,
        "Content-Type": "application/x-amz-json-1.0",
        "X-Amz-Date": "20260101T000000Z", "Authorization": AUTH})
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return r.status, json.loads(r.read() or b"{}")
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"{}")


class Api:
    """A DynamoDB endpoint spoken to in raw JSON; ok() asserts success."""

    def __init__(self, url):
        self.url = url

    def call(self, op, **body):
        return call_raw(self.url, op, body)

    def ok(self, op, **body):
        status, out = self.call(op, **body)
        if status != 200:
            raise AssertionError("%s: %s %r" % (op, status, out))
        return out

    def error(self, op, **body):
        """(code, message) of an error answer; fails on success."""
        status, out = self.call(op, **body)
        if status == 200:
            raise AssertionError("%s succeeded: %r" % (op, out))
        code = out.get("__type", "").split("#")[-1]
        return code, out.get("message", out.get("Message"))

    def clock(self, advance_ms):
        req = urllib.request.Request(
            self.url + "/shardlocal/clock", method="POST",
            data=json.dumps({"advance_ms": advance_ms}).encode(),
            headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=10) as r:
            return json.loads(r.read())

    def scan_all(self, table):
        items, start = [], None
        while True:
            body = {"TableName": table, "ConsistentRead": True}
            if start:
                body["ExclusiveStartKey"] = start
            out = self.ok("Scan", **body)
            items += out["Items"]
            start = out.get("LastEvaluatedKey")
            if not start:
                return items


def vec(*ns):
    return [{"N": repr(float(n)) if isinstance(n, float) else str(n)}
            for n in ns]


def vector_index(name="vix", attr="embedding", dims=3, fn="COSINE",
                 proj="ALL", schema=None):
    vi = {"IndexName": name, "VectorAttribute": {"AttributeName": attr},
          "Dimensions": dims, "DistanceFunction": fn,
          "Projection": {"ProjectionType": proj}}
    if schema:
        vi["SearchSchema"] = schema
    return vi


def table_request(name, vector_indexes=None, defs=()):
    req = {"TableName": name, "BillingMode": "PAY_PER_REQUEST",
           "AttributeDefinitions": [{"AttributeName": "pk",
                                     "AttributeType": "S"}] +
           [{"AttributeName": d, "AttributeType": "S"} for d in defs],
           "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]}
    if vector_indexes:
        req["VectorIndexes"] = vector_indexes
    return req


def f32(x):
    """x rounded to a 32-bit float, as the index stores it."""
    return struct.unpack("f", struct.pack("f", x))[0]


def cosine_rank(query, items, attr, k):
    """The k keys of items (pk -> list of floats) nearest query by cosine,
    in f32 as the index holds them: exact search, for recall."""
    q = [f32(x) for x in query]
    qn = sum(x * x for x in q) ** 0.5
    scored = []
    for pk, v in items.items():
        v = [f32(x) for x in v]
        n = sum(x * x for x in v) ** 0.5
        dot = sum(a * b for a, b in zip(q, v))
        scored.append((1 - dot / (qn * n) if qn and n else 1.0, pk))
    scored.sort()
    return [pk for _, pk in scored[:k]]


def clustered(n, dims, centres=12, spread=0.25, seed=1):
    """n vectors around a few centres, as embeddings are."""
    rng = random.Random(seed)
    cs = [[rng.gauss(0, 1) for _ in range(dims)] for _ in range(centres)]
    out = []
    for _ in range(n):
        c = cs[rng.randrange(centres)]
        out.append([round(x + rng.gauss(0, spread), 6) for x in c])
    return out
