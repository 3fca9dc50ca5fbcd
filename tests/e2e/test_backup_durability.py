# SPDX-License-Identifier: MIT
# test_backup_durability.py - backups on a server each test owns: a kill -9
# during CreateBackup leaves the backup complete or absent (its half-copied
# files swept at the next start), a kill -9 during a restore leaves the
# table complete or absent, an acknowledged backup survives kill -9, a
# restart and the deletion of its table; --backup-dir and --in-memory; and
# the restore lifecycle on the virtual clock (RestoreSummary while
# CREATING, BackupInUse, TableInUse). Expected answers: DynamoDB's recorded
# ones in ack-api-quirks' backup.md / table-restore.md (DDB-BACKUP-0xx,
# DDB-TABLE-2xx, 2026-10).
import os
import re
import signal
import sqlite3
import threading
import time

from botocore.exceptions import BotoCoreError, ClientError

from e2e_common import OwnServerCase, make_private_client
from e2e_common import start_private_server

ITEMS = 40
ITEM_BYTES = 350000         # ~14 MB: a copy that takes a while
MID_BYTES = 2 << 20         # kill once this much is copied
ID = re.compile(r"^[0-9a-f]{16}$")


def S(v):
    return {"S": v}


def wait_status(c, name, want, timeout=30.0):
    deadline = time.monotonic() + timeout
    while True:
        st = c.describe_table(TableName=name)["Table"]["TableStatus"]
        if st == want:
            return
        if time.monotonic() > deadline:
            raise AssertionError("%s stayed %s" % (name, st))
        time.sleep(0.02)


def create(c, name, gsi=False):
    kw = {}
    defs = [{"AttributeName": "pk", "AttributeType": "S"}]
    if gsi:
        defs.append({"AttributeName": "g", "AttributeType": "S"})
        kw["GlobalSecondaryIndexes"] = [{
            "IndexName": "byg",
            "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
            "Projection": {"ProjectionType": "ALL"}}]
    c.create_table(TableName=name, BillingMode="PAY_PER_REQUEST",
                   AttributeDefinitions=defs,
                   KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                   **kw)


def bytes_under(path):
    n = 0
    for root, _, files in os.walk(path):
        for f in files:
            try:
                n += os.path.getsize(os.path.join(root, f))
            except OSError:
                pass
    return n


def watch_new(parent, before, pattern, busy, min_bytes=MID_BYTES,
              timeout=20):
    """Wait for an entry of parent matching pattern, not in before (listed
    before the work started: a fast copy makes its folder at once),
    holding at least min_bytes (a copy under way), or for busy() to turn
    false; the new names."""
    deadline = time.monotonic() + timeout
    while True:
        # busy() first: a copy that ends between the listing and the
        # check must still be in the listing
        running = busy()
        new = {d for d in os.listdir(parent) if pattern.match(d)} - before
        if not running or time.monotonic() > deadline or (
                new and sum(bytes_under(os.path.join(parent, d))
                            for d in new) >= min_bytes):
            return new


def kill_during(parent, call, kill):
    """Run call() on a thread, wait for its new folder in parent to hold a
    copy under way (watch_new), then kill(): (the new names, whether call
    returned, the client errors it raised)."""
    done, errs = [], []

    def run():
        try:
            call()
            done.append(True)
        except (ClientError, BotoCoreError, OSError) as e:
            errs.append(e)
    before = set(os.listdir(parent))
    th = threading.Thread(target=run)
    th.start()
    new = watch_new(parent, before, ID, th.is_alive)
    kill()
    th.join()
    return new, bool(done), errs


def items_of(c, name, **kw):
    out, start = {}, None
    while True:
        if start:
            kw["ExclusiveStartKey"] = start
        r = c.scan(TableName=name, ConsistentRead=True, **kw)
        for it in r["Items"]:
            out[it["pk"]["S"]] = it
        start = r.get("LastEvaluatedKey")
        if not start:
            return out


class BackupServerCase(OwnServerCase):
    PREFIX = "shardlocal-bkd."
    DATA_DIR = True

    def start(self, *flags, data=True):
        self.proc, self.url = start_private_server(
            self.data if data else None, self.port_file, "--throttle",
            "false", *flags)
        self.c = make_private_client(self.url)
        return self.c

    def kill(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()

    def load_big(self, name="big"):
        create(self.c, name)
        wait_status(self.c, name, "ACTIVE")
        for i in range(ITEMS):
            self.c.put_item(TableName=name, Item={
                "pk": S("k%02d" % i), "n": {"N": str(i)},
                "v": {"B": bytes([i]) * ITEM_BYTES}})

    def check_big(self, name):
        got = items_of(self.c, name)
        self.assertEqual(sorted(got), ["k%02d" % i for i in range(ITEMS)])
        for k, it in got.items():
            i = int(k[1:])
            self.assertEqual(it["v"]["B"], bytes([i]) * ITEM_BYTES)

    def catalog_keys(self, bdir):
        """The backups backups.db names, read beside a dead server."""
        db = sqlite3.connect(os.path.join(bdir, "backups.db"))
        try:
            return {d: k for k, d in db.execute(
                "SELECT key, dir FROM backups")}
        finally:
            db.close()


class KillDuringBackup(BackupServerCase):

    def test_backup_complete_or_absent(self):
        """kill -9 once 2 MB of the backup are copied: the backup is named
        only once whole, so after the restart it is absent and its files
        gone, or listed and restores every item. Tries up to three times
        to land a kill mid-copy (a copy takes ~100 ms)."""
        bdir = os.path.join(self.data, "backups")
        mid_copy = 0
        for attempt in range(3):
            if attempt:
                self.start()
            else:
                self.start()
                self.load_big()
            new, _, errs = kill_during(
                bdir, lambda: self.c.create_backup(
                    TableName="big", BackupName="bkp%d" % attempt),
                self.kill)
            self.assertTrue(new, "no backup directory appeared: %r" % errs)
            named = self.catalog_keys(bdir)
            (d,) = new
            if d not in named:
                mid_copy += 1
            self.start()
            listed = {b["BackupArn"].rsplit("/", 1)[1]
                      for b in self.c.list_backups(TableName="big")[
                          "BackupSummaries"]}
            self.assertEqual(listed, set(named.values()))
            if d in named:
                arn = [b["BackupArn"] for b in self.c.list_backups(
                    TableName="big")["BackupSummaries"]
                    if b["BackupArn"].endswith(named[d])][0]
                self.c.restore_table_from_backup(
                    TargetTableName="r%d" % attempt, BackupArn=arn)
                wait_status(self.c, "r%d" % attempt, "ACTIVE")
                self.check_big("r%d" % attempt)
            else:
                # the half copy is swept at start
                self.assertNotIn(d, os.listdir(bdir))
            self.check_big("big")
            self.kill()
            if mid_copy:
                break
        self.assertGreater(mid_copy, 0, "no kill landed during a copy")


class KillDuringRestore(BackupServerCase):

    def test_restored_table_complete_or_absent(self):
        """A restore fills the new table before the catalog names it: after
        kill -9 mid-restore the table is absent (and its name free) or
        whole."""
        self.start()
        self.load_big()
        arn = self.c.create_backup(TableName="big", BackupName="bkp")[
            "BackupDetails"]["BackupArn"]
        tdir = os.path.join(self.data, "tables")
        new, done, _ = kill_during(
            tdir, lambda: self.c.restore_table_from_backup(
                TargetTableName="rst", BackupArn=arn), self.kill)
        self.assertTrue(new, "no table directory appeared")
        self.start()
        names = self.c.list_tables()["TableNames"]
        if "rst" in names:
            wait_status(self.c, "rst", "ACTIVE")
            self.check_big("rst")
            return
        self.assertFalse(done, "an acknowledged restore was lost")
        # the half-filled table's files are swept at start
        self.assertEqual(set(os.listdir(tdir)) & new, set())
        # the name is free: the same restore now succeeds
        self.c.restore_table_from_backup(TargetTableName="rst",
                                         BackupArn=arn)
        wait_status(self.c, "rst", "ACTIVE")
        self.check_big("rst")


class BackupSurvives(BackupServerCase):

    def test_acknowledged_backup_outlives_table_and_kill(self):
        """CreateBackup answered, the table deleted, kill -9, restart: the
        backup is listed with its table's details and restores the items
        and the index (DDB-BACKUP-003: backups outlive their table)."""
        c = self.start()
        create(c, "src", gsi=True)
        wait_status(c, "src", "ACTIVE")
        for i in range(300):
            c.put_item(TableName="src", Item={
                "pk": S("p%d" % i), "g": S("g%d" % (i % 7)),
                "n": {"N": str(i)}})
        arn = c.create_backup(TableName="src", BackupName="keep")[
            "BackupDetails"]["BackupArn"]
        c.delete_table(TableName="src")
        self.kill()
        c = self.start()
        self.assertEqual(c.list_tables()["TableNames"], [])
        d = c.describe_backup(BackupArn=arn)["BackupDescription"]
        self.assertEqual(d["BackupDetails"]["BackupStatus"], "AVAILABLE")
        self.assertEqual(d["SourceTableDetails"]["TableName"], "src")
        self.assertEqual(d["SourceTableDetails"]["ItemCount"], 300)
        self.assertEqual(d["SourceTableFeatureDetails"][
            "GlobalSecondaryIndexes"][0]["IndexName"], "byg")
        (s,) = c.list_backups()["BackupSummaries"]
        self.assertEqual(s["BackupArn"], arn)
        # the source table's name is free again: restore under it
        c.restore_table_from_backup(TargetTableName="src", BackupArn=arn)
        wait_status(c, "src", "ACTIVE")
        got = items_of(c, "src")
        self.assertEqual(len(got), 300)
        self.assertEqual(got["p42"]["g"], S("g0"))
        q = c.query(TableName="src", IndexName="byg",
                    KeyConditionExpression="g = :g",
                    ExpressionAttributeValues={":g": S("g3")})
        self.assertEqual(sorted(int(it["n"]["N"]) for it in q["Items"]),
                         [i for i in range(300) if i % 7 == 3])
        # and a clean restart keeps both
        self.proc.terminate()
        self.proc.wait(10)
        c = self.start()
        self.assertEqual(len(items_of(c, "src")), 300)
        c.delete_backup(BackupArn=arn)
        self.kill()
        c = self.start()
        self.assertEqual(c.list_backups()["BackupSummaries"], [])
        self.assertEqual([d for d in os.listdir(os.path.join(
            self.data, "backups")) if ID.match(d)], [])

    def test_backup_dir_flag(self):
        """--backup-dir puts the backups elsewhere: nothing under
        <data-dir>/backups, and a restart with the same flag finds them."""
        bdir = os.path.join(self.dir, "elsewhere")
        c = self.start("--backup-dir", bdir)
        create(c, "tab")
        wait_status(c, "tab", "ACTIVE")
        c.put_item(TableName="tab", Item={"pk": S("a")})
        arn = c.create_backup(TableName="tab", BackupName="bkp")[
            "BackupDetails"]["BackupArn"]
        self.assertIn("backups.db", os.listdir(bdir))
        self.assertEqual(len([d for d in os.listdir(bdir) if ID.match(d)]),
                         1)
        self.assertFalse(os.path.exists(os.path.join(self.data, "backups")))
        self.kill()
        c = self.start("--backup-dir", bdir)
        self.assertEqual([b["BackupArn"] for b in c.list_backups()[
            "BackupSummaries"]], [arn])

    def test_in_memory(self):
        """--in-memory keeps backups in memory: they work, and nothing is
        written to disk."""
        c = self.start("--in-memory", data=False)
        create(c, "tab", gsi=True)
        wait_status(c, "tab", "ACTIVE")
        for i in range(50):
            c.put_item(TableName="tab", Item={"pk": S("p%d" % i),
                                            "g": S("x")})
        arn = c.create_backup(TableName="tab", BackupName="mem")[
            "BackupDetails"]["BackupArn"]
        c.delete_table(TableName="tab")
        c.restore_table_from_backup(TargetTableName="tab2", BackupArn=arn)
        wait_status(c, "tab2", "ACTIVE")
        self.assertEqual(len(items_of(c, "tab2")), 50)
        self.assertEqual(c.query(TableName="tab2", IndexName="byg",
                                 KeyConditionExpression="g = :g",
                                 ExpressionAttributeValues={":g": S("x")},
                                 Select="COUNT")["Count"], 50)
        c.delete_backup(BackupArn=arn)
        self.assertEqual(os.listdir(self.data), [])


class RestoreLifecycle(BackupServerCase):
    DELAY = 5000

    def advance(self, ms):
        import urllib.request
        req = urllib.request.Request(
            self.url + "/shardlocal/clock", method="POST",
            data=('{"advance_ms": %d}' % ms).encode(),
            headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=5) as r:
            self.assertEqual(r.status, 200)

    def code(self, fn, **kw):
        with self.assertRaises(ClientError) as cm:
            fn(**kw)
        e = cm.exception.response["Error"]
        return e["Code"], e["Message"]

    def test_list_order_on_a_still_clock(self):
        """Backups made in the same millisecond (a virtual clock that does
        not move) list in the order they were made, and pages of one follow
        that order (ListBackups: "oldest first")."""
        c = self.start("--virtual-clock")
        create(c, "src")
        made = [c.create_backup(TableName="src", BackupName="bkp%d" % i)[
            "BackupDetails"]["BackupArn"] for i in range(5)]
        self.assertEqual([b["BackupArn"] for b in c.list_backups()[
            "BackupSummaries"]], made)
        got, kw = [], {}
        while True:
            r = c.list_backups(Limit=1, **kw)
            got += [b["BackupArn"] for b in r["BackupSummaries"]]
            if "LastEvaluatedBackupArn" not in r:
                break
            kw["ExclusiveStartBackupArn"] = r["LastEvaluatedBackupArn"]
        self.assertEqual(got, made)

    def test_restore_in_progress(self):
        """While a restored table is CREATING: its description carries
        RestoreSummary with RestoreInProgress true (DDB-TABLE-216); the
        backup cannot be deleted or restored again (BackupInUse,
        DDB-BACKUP-021 / DDB-TABLE-277); the target name is TableInUse
        (DDB-TABLE-275); the table is not found by CreateBackup and data
        calls. Once ACTIVE, the summary is gone and the backup free."""
        c = self.start("--virtual-clock", "--status-delay-ms",
                       str(self.DELAY))
        create(c, "src")
        self.advance(self.DELAY)
        wait_status(c, "src", "ACTIVE")
        c.put_item(TableName="src", Item={"pk": S("a")})
        bd = c.create_backup(TableName="src", BackupName="bkp")[
            "BackupDetails"]
        arn = bd["BackupArn"]
        td = c.restore_table_from_backup(TargetTableName="dst",
                                         BackupArn=arn)["TableDescription"]
        self.assertEqual(td["TableStatus"], "CREATING")
        rs = td["RestoreSummary"]
        self.assertEqual(rs["SourceBackupArn"], arn)
        self.assertEqual(rs["SourceTableArn"], bd["BackupArn"].split(
            "/backup/")[0])
        self.assertTrue(rs["RestoreInProgress"])
        self.assertEqual(rs["RestoreDateTime"], bd["BackupCreationDateTime"])
        desc = c.describe_table(TableName="dst")["Table"]
        self.assertEqual(desc["TableStatus"], "CREATING")
        self.assertTrue(desc["RestoreSummary"]["RestoreInProgress"])

        self.assertEqual(self.code(c.delete_backup, BackupArn=arn),
                         ("BackupInUseException",
                          "Backup is being used to restore table: " + arn))
        self.assertEqual(self.code(c.restore_table_from_backup,
                                   TargetTableName="dst2", BackupArn=arn),
                         ("BackupInUseException",
                          "Backup is being used to restore another table: "
                          + arn))
        self.assertEqual(self.code(c.restore_table_from_backup,
                                   TargetTableName="dst", BackupArn=arn),
                         ("TableInUseException",
                          "Table: dst is already being restored from "
                          "backup: " + arn))
        self.assertEqual(self.code(c.create_backup, TableName="dst",
                                   BackupName="bkp"),
                         ("TableNotFoundException", "Table not found: dst"))
        self.assertEqual(self.code(c.get_item, TableName="dst",
                                   Key={"pk": S("a")})[0],
                         "ResourceNotFoundException")

        self.advance(self.DELAY)
        desc = c.describe_table(TableName="dst")["Table"]
        self.assertEqual(desc["TableStatus"], "ACTIVE")
        self.assertNotIn("RestoreSummary", desc)
        self.assertEqual(c.get_item(TableName="dst", Key={"pk": S("a")})[
            "Item"], {"pk": S("a")})
        self.assertEqual(self.code(c.restore_table_from_backup,
                                   TargetTableName="dst", BackupArn=arn),
                         ("TableAlreadyExistsException",
                          "Table already exists: dst"))
        c.delete_backup(BackupArn=arn)
