# SPDX-License-Identifier: MIT
# test_durability.py - every acknowledged PutItem survives SIGKILL: start a
# private server on a temp data dir, write from several threads, kill -9 it
# mid-load, restart on the same directory, read every acknowledged key.
import signal
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
        self.proc, url = start_server(self.data, self.port_file)
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
                        "sk": {"N": str(i)}, "v": {"S": "x" * (i % 300)}})
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

        self.proc, url = start_server(self.data, self.port_file)
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
                self.assertEqual(it["v"]["S"], "x" * (i % 300))
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


if __name__ == "__main__":
    unittest.main()
