# SPDX-License-Identifier: MIT
# test_durability.py - every acknowledged PutItem survives SIGKILL: start a
# private server on a temp data dir, write from several threads, kill -9 it
# mid-load, restart on the same directory, read every acknowledged key.
# Also: --durability power-loss fsyncs every commit (counted with strace),
# and the data directory is private (0700, files 0600).
import os
import shutil
import signal
import stat
import subprocess
import threading
import time
import unittest

from botocore.exceptions import BotoCoreError, ClientError

from e2e_common import OwnServerCase
from e2e_common import make_private_client as make_client
from e2e_common import start_private_server as start_server

WRITERS = 8
LOAD_SECONDS = 1.5


class DurabilityTest(OwnServerCase):
    PREFIX = "shardlocal-dur."
    DATA_DIR = True

    def test_acknowledged_writes_survive_sigkill(self):
        self.check_sigkill()

    def test_acknowledged_writes_survive_sigkill_amid_checkpoints(self):
        # A WAL checkpointed every 8 pages by the background thread
        # (storage/checkpoint.c): the kill lands while checkpoints copy
        # the WAL into the database files; nothing acknowledged is lost.
        # Large items (3 KB) fill the WAL fast.
        self.check_sigkill("--checkpoint-pages", "8", value_bytes=3000)

    def check_sigkill(self, *flags, value_bytes=300):
        """Write from WRITERS threads, kill -9 the server mid-load,
        restart it and find every acknowledged write."""
        self.proc, url = start_server(self.data, self.port_file, *flags)
        c = make_client(url)
        c.create_table(TableName="dur", BillingMode="PAY_PER_REQUEST",
                       AttributeDefinitions=[{"AttributeName": "pk",
                                              "AttributeType": "S"},
                                             {"AttributeName": "sk",
                                              "AttributeType": "N"}],
                       KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                                  {"AttributeName": "sk",
                                   "KeyType": "RANGE"}])
        for _ in range(200):
            if c.describe_table(TableName="dur")["Table"]["TableStatus"] \
                    == "ACTIVE":
                break
            time.sleep(0.05)
        acked = [[] for _ in range(WRITERS)]
        stop = threading.Event()

        def writer(n):
            wc = make_client(url)
            i = 0
            while not stop.is_set():
                try:
                    wc.put_item(TableName="dur", Item={
                        "pk": {"S": "w%d_%d" % (n, i % 50)},
                        "sk": {"N": str(i)},
                        "v": {"S": "x" * (i % value_bytes)}})
                except (ClientError, BotoCoreError, OSError):
                    return          # the server is gone
                acked[n].append(i)
                i += 1

        threads = [threading.Thread(target=writer, args=(n,), daemon=True)
                   for n in range(WRITERS)]
        for t in threads:
            t.start()
        time.sleep(LOAD_SECONDS)
        self.proc.send_signal(signal.SIGKILL)   # mid-load, no shutdown
        self.proc.wait()
        stop.set()
        for t in threads:
            t.join(10)
        total = sum(len(a) for a in acked)
        self.assertGreater(total, 50, "too few writes to mean anything")

        self.proc, url = start_server(self.data, self.port_file, *flags)
        c = make_client(url)
        for _ in range(200):
            try:
                if c.describe_table(TableName="dur")["Table"][
                        "TableStatus"] == "ACTIVE":
                    break
            except ClientError:
                pass
            time.sleep(0.05)
        found = set()
        kw = {}
        while True:
            r = c.scan(TableName="dur", ConsistentRead=True, **kw)
            for it in r["Items"]:
                found.add((it["pk"]["S"], int(it["sk"]["N"])))
                n, _ = it["pk"]["S"][1:].split("_")
                i = int(it["sk"]["N"])
                self.assertEqual(it["v"]["S"], "x" * (i % value_bytes))
            if "LastEvaluatedKey" not in r:
                break
            kw = {"ExclusiveStartKey": r["LastEvaluatedKey"]}
        missing = [(n, i) for n in range(WRITERS) for i in acked[n]
                   if ("w%d_%d" % (n, i % 50), i) not in found]
        self.assertEqual(missing[:20], [],
                         "%d of %d acknowledged writes lost"
                         % (len(missing), total))
        # A point read of the last acknowledged write of each writer.
        for n in range(WRITERS):
            if acked[n]:
                i = acked[n][-1]
                r = c.get_item(TableName="dur", ConsistentRead=True,
                               Key={"pk": {"S": "w%d_%d" % (n, i % 50)},
                                    "sk": {"N": str(i)}})
                self.assertIn("Item", r)
        print("durability: %d acknowledged writes from %d threads survived "
              "SIGKILL" % (total, WRITERS))

    def test_sigterm_is_a_clean_shutdown(self):
        self.proc, url = start_server(self.data, self.port_file)
        c = make_client(url)
        c.create_table(TableName="term", BillingMode="PAY_PER_REQUEST",
                       AttributeDefinitions=[{"AttributeName": "pk",
                                              "AttributeType": "S"}],
                       KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}])
        for _ in range(200):
            if c.describe_table(TableName="term")["Table"]["TableStatus"] \
                    == "ACTIVE":
                break
            time.sleep(0.05)
        c.put_item(TableName="term", Item={"pk": {"S": "k"}})
        self.proc.send_signal(signal.SIGTERM)
        try:
            rc = self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.fail("server ignored SIGTERM for 10 s")
        self.assertEqual(rc, 0, "exit status after SIGTERM")
        self.proc, url = start_server(self.data, self.port_file)
        r = make_client(url).get_item(TableName="term",
                                      Key={"pk": {"S": "k"}},
                                      ConsistentRead=True)
        self.assertEqual(r.get("Item"), {"pk": {"S": "k"}})

    # --- --durability ---------------------------------------------------

    def count_syncs(self, *extra):
        """fsync/fdatasync calls the server makes for 30 PutItems, counted
        by strace attached to all its threads; None if strace cannot."""
        self.proc, url = start_server(self.data, self.port_file, *extra)
        c = make_client(url)
        c.create_table(TableName="sync", BillingMode="PAY_PER_REQUEST",
                       AttributeDefinitions=[{"AttributeName": "pk",
                                              "AttributeType": "S"}],
                       KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}])
        c.put_item(TableName="sync", Item={"pk": {"S": "warm"}})
        out = os.path.join(self.dir, "strace.out")
        tr = subprocess.Popen(["strace", "-f", "-qq", "-e",
                               "trace=fsync,fdatasync", "-o", out, "-p",
                               str(self.proc.pid)],
                              stderr=subprocess.DEVNULL)
        # strace writes its file before attaching (on a loaded machine
        # its start can take longer than the half second that attaching
        # to every thread takes once it runs)
        for _ in range(100):
            if os.path.exists(out) or tr.poll() is not None:
                break
            time.sleep(0.1)
        time.sleep(0.5)                 # attached to every thread
        if tr.poll() is not None or not os.path.exists(out):
            return None
        for i in range(30):
            c.put_item(TableName="sync", Item={"pk": {"S": "k%d" % i}})
        tr.send_signal(signal.SIGINT)
        tr.wait(10)
        self.proc.kill()
        self.proc.wait()
        shutil.rmtree(self.data)
        os.mkdir(self.data)
        with open(out) as f:
            return sum(1 for line in f if "sync(" in line)

    @unittest.skipUnless(shutil.which("strace"), "needs strace")
    def test_power_loss_durability_fsyncs_every_commit(self):
        normal = self.count_syncs()
        if normal is None:
            self.skipTest("strace cannot attach here")
        full = self.count_syncs("--durability", "power-loss")
        # Default: the WAL is only synced at checkpoints (none in 30
        # small commits); power-loss: at least one per acknowledged write.
        print("fsyncs for 30 PutItems: %d (process-crash), %d "
              "(power-loss)" % (normal, full))
        self.assertLess(normal, 5)
        self.assertGreaterEqual(full, 30)

    def test_power_loss_durability_keeps_acknowledged_writes(self):
        self.proc, url = start_server(self.data, self.port_file,
                                      "--durability", "power-loss")
        c = make_client(url)
        c.create_table(TableName="plt", BillingMode="PAY_PER_REQUEST",
                       AttributeDefinitions=[{"AttributeName": "pk",
                                              "AttributeType": "S"}],
                       KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}])
        for i in range(20):
            c.put_item(TableName="plt", Item={"pk": {"S": "k%d" % i}})
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()
        self.proc, url = start_server(self.data, self.port_file,
                                      "--durability", "power-loss")
        r = make_client(url).scan(TableName="plt", ConsistentRead=True)
        self.assertEqual(r["Count"], 20)

    # --- permissions ------------------------------------------------------

    def check_private(self, umask):
        """A data directory the server creates under umask: directories
        0700 and files 0600 (less what the umask takes away)."""
        data = os.path.join(self.dir, "fresh-%o" % umask)
        old = os.umask(umask)
        try:
            self.proc, url = start_server(data, self.port_file)
        finally:
            os.umask(old)
        c = make_client(url)
        c.create_table(TableName="perm", BillingMode="PAY_PER_REQUEST",
                       AttributeDefinitions=[{"AttributeName": "pk",
                                              "AttributeType": "S"}],
                       KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}])
        c.put_item(TableName="perm", Item={"pk": {"S": "k"}})
        seen = 0
        for root, dirs, files in os.walk(data):
            for d in [root]:
                self.assertEqual(stat.S_IMODE(os.stat(d).st_mode),
                                 0o700 & ~umask, d)
            for f in files:
                p = os.path.join(root, f)
                self.assertEqual(stat.S_IMODE(os.stat(p).st_mode),
                                 0o600 & ~umask, p)
                seen += 1
        # LOCK, RESERVE, the catalog and its WAL, partitions and WALs
        self.assertGreater(seen, 6)
        self.proc.kill()
        self.proc.wait()

    def test_data_directory_is_private(self):
        # Before: the directory 0755 and the catalog 0644 under umask 022.
        self.check_private(0o022)
        self.check_private(0o027)       # a stricter umask still applies


if __name__ == "__main__":
    unittest.main()
