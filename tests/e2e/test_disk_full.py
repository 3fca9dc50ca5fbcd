# SPDX-License-Identifier: MIT
# test_disk_full.py - a full disk, for real: the server's data directory is
# a small tmpfs mounted in a private mount namespace (unshare; as an
# unprivileged user through a user namespace, as root without one), held
# by a "sleep" so that the files outlive a kill -9 of the server, and gone
# with it. Writes fill it up; the error is InternalServerError (HTTP 500)
# with a message naming no server path; nothing acknowledged is lost, not
# even across kill -9; transactions stay whole; DeleteTable works while
# the disk is full and writes succeed again once it freed the space.
# Skipped where no mount namespace can be made (no unshare, or neither
# root nor unprivileged user namespaces).
#
# DynamoDB never runs out of disk, so no recording shows its answer; the
# choice of InternalServerError (modeled for every operation, a server
# fault that SDKs retry) is explained in docs/design.md, "A full disk".
import os
import shutil
import signal
import subprocess
import unittest

from botocore.exceptions import ClientError

from e2e_common import OwnServerCase, make_private_client
from e2e_common import start_private_server

FULL_MSG = ("Internal server error: the server's disk is full. Free space "
            "(DeleteTable frees a table's files) and retry.")
VALUE = "x" * 40000                 # 40 KB items fill 6 MB quickly


class Tmpfs:
    """A tmpfs of `size` at `mountpoint`, seen only by processes started
    with `prefix` (nsenter into the holder's namespaces)."""

    def __init__(self, mountpoint, size):
        self.holder = None
        self.prefix = None
        if not shutil.which("unshare") or not shutil.which("nsenter"):
            return
        script = ('mount -t tmpfs -o size=%s tmpfs "$0" && echo ready && '
                  'exec sleep 900' % size)
        for ns, enter in ((["-U", "-r", "-m"],
                           ["-U", "-m", "--preserve-credentials"]),
                          (["-m"], ["-m"])):
            p = subprocess.Popen(["unshare"] + ns + ["sh", "-c", script,
                                                     mountpoint],
                                 stdout=subprocess.PIPE,
                                 stderr=subprocess.DEVNULL)
            if p.stdout.readline().strip() == b"ready":
                self.holder = p
                self.prefix = ["nsenter", "-t", str(p.pid)] + enter + ["--"]
                self.mountpoint = mountpoint
                return
            p.wait()

    def path(self, rel):
        """rel inside the tmpfs, as this (outside) process reaches it."""
        return "/proc/%d/root%s/%s" % (self.holder.pid, self.mountpoint, rel)

    def free(self):
        st = os.statvfs(self.path(""))
        return st.f_bavail * st.f_frsize

    def close(self):
        if self.holder is not None:
            self.holder.kill()
            self.holder.wait()


class DiskFullTest(OwnServerCase):
    PREFIX = "shardlocal-full."

    def setUp(self):
        super().setUp()
        os.mkdir(os.path.join(self.dir, "fs"))
        self.fs = Tmpfs(os.path.join(self.dir, "fs"), "6m")
        if self.fs.holder is None:
            self.skipTest("cannot mount a tmpfs in a private namespace")
        self.data = os.path.join(self.fs.mountpoint, "data")

    def tearDown(self):
        try:
            super().tearDown()
        finally:
            self.fs.close()

    def start(self, *extra):
        self.proc, url = start_private_server(
            self.data, self.port_file, "--throttle", "off",
            "--disk-reserve", "1MB", *extra, prefix=self.fs.prefix)
        return make_private_client(url)

    def kill9(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()

    def make(self, c, name, **kw):
        c.create_table(TableName=name, BillingMode="PAY_PER_REQUEST",
                       AttributeDefinitions=[{"AttributeName": "pk",
                                              "AttributeType": "S"}],
                       KeySchema=[{"AttributeName": "pk",
                                   "KeyType": "HASH"}], **kw)

    def assertFull(self, fn, **kw):
        with self.assertRaises(ClientError) as cm:
            fn(**kw)
        r = cm.exception.response
        self.assertEqual(r["Error"]["Code"], "InternalServerError",
                         r["Error"].get("Message"))
        self.assertEqual(r["ResponseMetadata"]["HTTPStatusCode"], 500)
        self.assertEqual(r["Error"]["Message"], FULL_MSG)
        self.assertNotIn(self.dir, r["Error"]["Message"])

    def fill(self, c, table):
        """PutItem until the disk is full; the acknowledged keys."""
        acked = []
        for i in range(10000):
            try:
                c.put_item(TableName=table, Item={"pk": {"S": "k%d" % i},
                                                  "v": {"S": VALUE}})
            except ClientError as e:
                self.assertEqual(e.response["Error"]["Code"],
                                 "InternalServerError")
                self.assertEqual(e.response["Error"]["Message"], FULL_MSG)
                return acked
            acked.append("k%d" % i)
        self.fail("the disk never filled up")

    def assertAllThere(self, c, table, keys):
        for k in keys:
            r = c.get_item(TableName=table, Key={"pk": {"S": k}},
                           ConsistentRead=True)
            self.assertEqual(r.get("Item", {}).get("v"), {"S": VALUE},
                             "acknowledged %s/%s lost" % (table, k))

    def test_full_disk_refuses_cleanly_and_delete_table_frees_it(self):
        c = self.start()
        self.make(c, "fill_a")
        self.make(c, "fill_b")
        c.put_item(TableName="fill_b", Item={"pk": {"S": "before"}})
        acked = self.fill(c, "fill_a")
        self.assertGreater(len(acked), 20)
        # Every write is refused the same way while the disk is full; the
        # messages name no path (before: "storage: commit: database or
        # disk is full", and CreateTable's named the partition file).
        self.assertFull(c.put_item, TableName="fill_b",
                        Item={"pk": {"S": "during"}})
        self.assertFull(c.create_table, TableName="fill_c",
                        BillingMode="PAY_PER_REQUEST",
                        AttributeDefinitions=[{"AttributeName": "pk",
                                               "AttributeType": "S"}],
                        KeySchema=[{"AttributeName": "pk",
                                    "KeyType": "HASH"}])
        # Reads work, and nothing acknowledged is missing.
        self.assertAllThere(c, "fill_a", acked)
        self.assertEqual(c.scan(TableName="fill_b")["Count"], 1)

        # A kill -9 on a full disk loses nothing, and the server starts.
        self.kill9()
        c = self.start()
        self.assertAllThere(c, "fill_a", acked)
        self.assertFull(c.put_item, TableName="fill_b",
                        Item={"pk": {"S": "during"}})

        # DeleteTable works on the full disk (before: 500) and frees it.
        free_before = self.fs.free()
        r = c.delete_table(TableName="fill_a")
        self.assertEqual(r["TableDescription"]["TableName"], "fill_a")
        self.assertGreater(self.fs.free(), free_before + 2 * 1024 * 1024)
        c.put_item(TableName="fill_b", Item={"pk": {"S": "after"}})
        self.make(c, "fill_c")
        c.put_item(TableName="fill_c", Item={"pk": {"S": "new"}})
        self.assertEqual(sorted(c.list_tables()["TableNames"]),
                         ["fill_b", "fill_c"])
        self.assertEqual(c.scan(TableName="fill_b")["Count"], 2)

    def test_transactions_stay_whole_on_a_full_disk(self):
        # Two items in different partitions per transaction: a journal
        # entry, then two partition commits, any of which may find the
        # disk full.
        c = self.start()
        self.make(c, "fill_t")
        done, failed = [], None
        for i in range(10000):
            keys = ["t%d_a" % i, "t%d_b" % i]
            try:
                c.transact_write_items(TransactItems=[
                    {"Put": {"TableName": "fill_t",
                             "Item": {"pk": {"S": k}, "v": {"S": VALUE}}}}
                    for k in keys])
            except ClientError as e:
                self.assertEqual(e.response["Error"]["Code"],
                                 "InternalServerError")
                failed = keys
                break
            done.append(keys)
        self.assertIsNotNone(failed, "the disk never filled up")
        self.assertGreater(len(done), 10)

        def present(k):
            return "Item" in c.get_item(TableName="fill_t",
                                        Key={"pk": {"S": k}},
                                        ConsistentRead=True)

        for keys in done:
            self.assertTrue(all(present(k) for k in keys), keys)
        # The refused one is all or nothing (500: outcome unknown).
        self.assertEqual(len({present(k) for k in failed}), 1, failed)
        self.kill9()
        c = self.start()
        for keys in done:
            self.assertTrue(all(present(k) for k in keys), keys)
        self.assertEqual(len({present(k) for k in failed}), 1, failed)


if __name__ == "__main__":
    unittest.main()
