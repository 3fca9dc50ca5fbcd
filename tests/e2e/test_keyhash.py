# SPDX-License-Identifier: MIT
# test_keyhash.py - items are placed by DynamoDB's key hash (MD5 of
# "Outliers" and the partition key's bytes, numbers in DynamoDB's base-100
# form; storage/item_codec.c): Scan returns string and number keys in the
# order DynamoDB returned them, parallel-scan segments hold the keys
# DynamoDB put there, B keys hash their raw bytes, the admin API reports
# each key's partition by that hash, and a data directory an older
# shardlocal wrote (placed by MD5 of the key's sortable bytes) is
# re-placed at start-up, every item kept.
#
# The recording: architect/dynalite test/scan.js, "should return items in
# string hash order", "... number hash order", "should return items from
# correct string hash segments" and "... number hash segments" (dynalite's
# tests are run against DynamoDB; the orders are DynamoDB's).
import base64
import hashlib
import json
import os
import sqlite3
import uuid
from decimal import Decimal

from e2e_common import OwnServerCase, start_private_server
from test_throttling import Raw, VirtualClockCase

STRINGS = [str(i) for i in range(10)] + ["aardman", "hello", "zapf",
                                         "\u00e4\u00e1\u00f6\u00fc"]
STRING_ORDER = ["2", "8", "9", "1", "6", "hello", "0", "5", "4",
                "\u00e4\u00e1\u00f6\u00fc", "aardman", "7", "3", "zapf"]
NUMBERS = [str(i) for i in range(10)] + ["-0.09", "999.9", "0.012345",
                                         "-999.9"]
NUMBER_ORDER = ["7", "999.9", "8", "3", "2", "-999.9", "9", "4", "-0.09",
                "6", "1", "0", "0.012345", "5"]


def ddb_hash(b):
    """Top 64 bits of DynamoDB's key hash of the key bytes b."""
    return int.from_bytes(hashlib.md5(b"Outliers" + b).digest()[:8], "big")


def scan_all(raw, table, **extra):
    items, start = [], None
    while True:
        body = dict(TableName=table, **extra)
        if start:
            body["ExclusiveStartKey"] = start
        st, r = raw.call("Scan", body)
        assert st == 200, r
        items += r["Items"]
        start = r.get("LastEvaluatedKey")
        if not start:
            return items


class KeyHashTest(VirtualClockCase):

    def hash_table(self, name, typ):
        self.c.create_table(
            TableName=name, BillingMode="PAY_PER_REQUEST",
            AttributeDefinitions=[{"AttributeName": "a",
                                   "AttributeType": typ}],
            KeySchema=[{"AttributeName": "a", "KeyType": "HASH"}])

    def put_all(self, table, typ, keys):
        for k in keys:
            st, r = self.raw.call("PutItem", {"TableName": table,
                                              "Item": {"a": {typ: k}}})
            self.assertEqual(st, 200, r)

    def test_string_scan_order(self):
        self.hash_table("kh_s", "S")
        self.put_all("kh_s", "S", STRINGS)
        got = [it["a"]["S"] for it in scan_all(self.raw, "kh_s")]
        self.assertEqual(got, STRING_ORDER)
        # page by page, the same order
        got = [it["a"]["S"] for it in scan_all(self.raw, "kh_s", Limit=3)]
        self.assertEqual(got, STRING_ORDER)
        # boto3 (JSON escaped) sees the same
        r = self.c.scan(TableName="kh_s")
        self.assertEqual([it["a"]["S"] for it in r["Items"]], STRING_ORDER)

    def test_number_scan_order(self):
        self.hash_table("kh_n", "N")
        self.put_all("kh_n", "N", NUMBERS)
        got = [it["a"]["N"] for it in scan_all(self.raw, "kh_n")]
        self.assertEqual(got, NUMBER_ORDER)
        # the same number written another way is the same key
        st, r = self.raw.call("GetItem", {"TableName": "kh_n",
                                          "Key": {"a": {"N": "9.999E2"}}})
        self.assertEqual(r["Item"]["a"]["N"], "999.9")

    def test_segments(self):
        # TotalSegments 4096: segment s holds the keys whose hash's top 12
        # bits are s.
        self.hash_table("kh_seg_s", "S")
        self.put_all("kh_seg_s", "S", ["3635", "228", "1668", "3435"])
        for seg, want in ((0, {"3635", "228"}), (1, {"1668"}),
                          (4, {"3435"})):
            got = {it["a"]["S"] for it in scan_all(
                self.raw, "kh_seg_s", Segment=seg, TotalSegments=4096)}
            self.assertEqual(got, want, seg)
        self.hash_table("kh_seg_n", "N")
        self.put_all("kh_seg_n", "N", ["251", "2388"])
        for seg, want in ((1, {"251"}), (4095, {"2388"})):
            got = {it["a"]["N"] for it in scan_all(
                self.raw, "kh_seg_n", Segment=seg, TotalSegments=4096)}
            self.assertEqual(got, want, seg)

    def test_binary_keys(self):
        # B keys hash their raw bytes (no recording: DynamoDB's hashing of
        # the other types implies it).
        self.hash_table("kh_b", "B")
        raw_keys = [bytes([i, 255 - i, i * 7 % 256]) for i in range(12)]
        self.put_all("kh_b", "B", [base64.b64encode(k).decode()
                                   for k in raw_keys])
        want = sorted(raw_keys, key=ddb_hash)
        got = [base64.b64decode(it["a"]["B"])
               for it in scan_all(self.raw, "kh_b")]
        self.assertEqual(got, want)

    def test_admin_reports_placement(self):
        # The partition each key lands on is the one whose hash range holds
        # DynamoDB's hash of it: the partitions view's counts and the hot
        # keys view say so.
        self.hash_table("kh_place", "S")
        keys = ["user#%d" % i for i in range(40)]
        self.put_all("kh_place", "S", keys)
        st, pv = self.raw.admin("/shardlocal/tables/kh_place/partitions")
        self.assertEqual(st, 200, pv)
        ranges = [(int(p["hash_start"], 16), int(p["hash_end"], 16),
                   p["partition"]) for p in pv["partitions"]]

        def part(k):
            h = ddb_hash(k.encode())
            return [p for lo, hi, p in ranges if lo <= h <= hi][0]
        want = {}
        for k in keys:
            want[part(k)] = want.get(part(k), 0) + 1
        self.assertEqual({p["partition"]: p["item_count"]
                          for p in pv["partitions"] if p["item_count"]},
                         want)
        st, hk = self.raw.admin("/shardlocal/tables/kh_place/hotkeys?n=64")
        where = {e["key_text"]: e["partition"]
                 for e in hk["consumed_write"]}
        self.assertEqual(len(where), 40)
        for k, p in where.items():
            self.assertEqual(p, part(k), k)


# --- a data directory written by an older version ---------------------------

def sortkey(n):
    """An older shardlocal's encoding of a number key: sign byte, biased
    exponent of the first digit, one byte per digit (inverted, with a
    terminator, for negatives)."""
    d = Decimal(n)
    if d == 0:
        return b"\x02"
    sign, digits, exp = d.normalize().as_tuple()
    e = len(digits) + exp - 1               # weight of the first digit
    if sign:
        return bytes([1, 255 - (e + 130)] + [10 - x for x in digits] +
                     [255])
    return bytes([3, e + 130] + [x + 1 for x in digits])


def old_id():
    return uuid.uuid4().hex[:16]


def write_old_table(data, name, typ, keys):
    """A table as the older version stored it: a catalog row with its
    description, 4 partitions on an even ring, rows placed by MD5 of the
    key's sortable bytes."""
    tid = old_id()
    tdir = os.path.join(data, "tables", tid)
    os.makedirs(tdir)
    desc = {
        "TableName": name, "TableStatus": "ACTIVE",
        "AttributeDefinitions": [{"AttributeName": "a",
                                  "AttributeType": typ}],
        "KeySchema": [{"AttributeName": "a", "KeyType": "HASH"}],
        "CreationDateTime": 1796141826.5,
        "ProvisionedThroughput": {"NumberOfDecreasesToday": 0,
                                  "ReadCapacityUnits": 0,
                                  "WriteCapacityUnits": 0},
        "TableSizeBytes": 0, "ItemCount": 0,
        "TableArn": "arn:aws:dynamodb:us-east-1:000000000000:table/" + name,
        "TableId": str(uuid.uuid4()),
        "BillingModeSummary": {"BillingMode": "PAY_PER_REQUEST",
                               "LastUpdateToPayPerRequestDateTime":
                                   1796141826.5},
        "DeletionProtectionEnabled": False}
    cat = sqlite3.connect(os.path.join(data, "catalog.db"))
    cat.executescript(
        "CREATE TABLE IF NOT EXISTS tables (name TEXT PRIMARY KEY, "
        "id TEXT NOT NULL UNIQUE, desc TEXT NOT NULL);"
        "CREATE TABLE IF NOT EXISTS partitions (table_id TEXT NOT NULL, "
        "part_id TEXT NOT NULL, start INTEGER NOT NULL, file TEXT NOT NULL,"
        " PRIMARY KEY (table_id, start));")
    cat.execute("INSERT INTO tables VALUES (?, ?, ?)",
                (name, tid, json.dumps(desc)))
    dbs = []
    for i in range(4):
        pid = old_id()
        start = i << 62                     # even ring, 4 partitions
        cat.execute("INSERT INTO partitions VALUES (?, ?, ?, ?)",
                    (tid, pid, start - (1 << 63), pid))
        db = sqlite3.connect(os.path.join(tdir, pid + ".db"))
        db.execute("CREATE TABLE items (h BLOB NOT NULL, pk BLOB NOT NULL, "
                   "sk BLOB NOT NULL, size INTEGER NOT NULL, item TEXT NOT "
                   "NULL, PRIMARY KEY (h, pk, sk)) WITHOUT ROWID")
        dbs.append(db)
    for k in keys:
        pk = sortkey(k) if typ == "N" else k.encode()
        h = hashlib.md5(pk).digest()
        item = json.dumps({"a": {typ: k}, "v": {"S": "x"}},
                          separators=(",", ":"))
        dbs[h[0] >> 6].execute("INSERT INTO items VALUES (?, ?, ?, ?, ?)",
                               (h, pk, b"", 20, item))
    for db in dbs:
        db.commit()
        db.close()
    cat.commit()
    cat.close()


class OldDataDirTest(OwnServerCase):
    PREFIX = "shardlocal-keyhash."
    DATA_DIR = True

    def start(self):
        self.proc, url = start_private_server(self.data, self.port_file,
                                              "--virtual-clock")
        return Raw(url)

    def log(self):
        with open(os.path.join(self.dir, "server.log")) as f:
            return f.read()

    def test_old_data_dir_is_re_placed(self):
        os.makedirs(os.path.join(self.data, "tables"))
        write_old_table(self.data, "old_s", "S", STRINGS)
        write_old_table(self.data, "old_n", "N", NUMBERS)
        raw = self.start()
        self.assertIn("table old_s: 14 items re-placed by DynamoDB's key "
                      "hash", self.log())
        for name, typ, keys, order in (("old_s", "S", STRINGS, STRING_ORDER),
                                       ("old_n", "N", NUMBERS, NUMBER_ORDER)):
            self.assertEqual([it["a"][typ] for it in scan_all(raw, name)],
                             order)
            for k in keys:
                st, r = raw.call("GetItem", {"TableName": name,
                                             "Key": {"a": {typ: k}}})
                self.assertEqual(r["Item"], {"a": {typ: k}, "v": {"S": "x"}})
        st, r = raw.call("PutItem", {"TableName": "old_s",
                                     "Item": {"a": {"S": "new"}}})
        self.assertEqual(st, 200, r)
        # Recorded per table: the next start moves nothing and finds all.
        self.proc.kill()
        self.proc.wait()
        os.unlink(os.path.join(self.dir, "server.log"))
        raw = self.start()
        self.assertNotIn("re-placed", self.log())
        got = [it["a"]["S"] for it in scan_all(raw, "old_s")]
        self.assertEqual(sorted(got), sorted(STRINGS + ["new"]))
        cat = sqlite3.connect(os.path.join(self.data, "catalog.db"))
        self.assertEqual(cat.execute("SELECT DISTINCT keyhash FROM tables")
                         .fetchall(), [(1,)])
        cat.close()
