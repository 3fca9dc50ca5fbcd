# SPDX-License-Identifier: MIT
# test_demo.py - the workshop demo (bench/demo_hotkey.py, docs/workshop.md)
# against a private server with laptop-scale limits (--throttle-scale 0.01:
# 10 WCU partitions) on the wall clock: the naive phase (every write to one
# key) throttles, the sharded phase (the same rate over 10 keys) does not,
# the scatter-gather sum matches, and the script exits 0. About 8 s.
import json
import os
import subprocess
import sys
import unittest

from e2e_common import BIN, start_temp_server, stop_temp_server

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "..", "..", "bench", "demo_hotkey.py")
SECONDS = 3
RATE = 30          # 3x a 10 WCU/s partition


@unittest.skipUnless(BIN, "needs SHARDLOCAL_BIN (a server this test owns)")
class DemoTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.dir, cls.proc, cls.url = start_temp_server(
            "shardlocal-demo.", "--in-memory", "--throttle-scale", "0.01")

    @classmethod
    def tearDownClass(cls):
        stop_temp_server(cls.dir, cls.proc)

    def run_demo(self, *args, timeout=30):
        env = dict(os.environ)
        env.setdefault("AWS_ACCESS_KEY_ID", "x")
        env.setdefault("AWS_SECRET_ACCESS_KEY", "x")
        env.setdefault("AWS_DEFAULT_REGION", "us-east-1")
        return subprocess.run([sys.executable, SCRIPT] + list(args),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              universal_newlines=True, timeout=timeout,
                              env=env)

    def test_naive_throttles_sharded_does_not(self):
        out = os.path.join(self.dir, "demo.json")
        p = self.run_demo("--endpoint", self.url, "--seconds", str(SECONDS),
                          "--rate", str(RATE), "--shards", "10",
                          "--table", "demo_e2e", "--json", out)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        with open(out) as f:
            r = json.load(f)
        self.assertEqual(r["partition_count"], 8)
        self.assertEqual(r["partition_wcu"], 10)
        naive, sharded = r["phases"]["naive"], r["phases"]["sharded"]
        for ph in (naive, sharded):
            self.assertEqual(ph["retry_attempts"], 0)      # retries off
            self.assertEqual(ph["ok"] + ph["throttled"], ph["sent"])
            self.assertGreaterEqual(ph["sent"], SECONDS * RATE * 0.8)
        # One key, one partition: about 10 of 30 writes a second get in
        # (the ceiling, after the 25 its burst takes at once), the rest
        # are ProvisionedThroughputExceeded.
        self.assertGreater(naive["throttled"], naive["sent"] // 4)
        self.assertLessEqual(naive["ok"], SECONDS * 10 + 25 + 10)
        self.assertEqual(set(naive["codes"]),
                         {"ProvisionedThroughputExceededException"})
        if naive["reasons"]:                 # botocore that models them
            self.assertEqual(set(naive["reasons"]),
                             {"TableWriteKeyRangeThroughputExceeded"})
        # Ten keys over eight partitions: the busiest takes 6 writes/s.
        self.assertLessEqual(sharded["throttled"], sharded["sent"] // 20)
        self.assertGreater(sharded["ok"],
                           naive["ok"] + naive["throttled"] // 2)
        # Throttled writes changed nothing: the counters add up.
        self.assertEqual(r["naive_counter"], naive["ok"])
        self.assertEqual(r["scatter_gather"]["sum"], sharded["ok"])
        self.assertEqual(r["scatter_gather"]["items"], 10)
        # The report shows the admin API's per-partition view, hot keys.
        self.assertIn("per partition (GET /shardlocal/tables/demo_e2e/"
                      "partitions): 8 partitions", p.stdout)
        self.assertIn("most throttled keys", p.stdout)
        self.assertIn("reason TableWriteKeyRangeThroughputExceeded"
                      if naive["reasons"] else
                      "x ProvisionedThroughputExceededException", p.stdout)

    def test_unexpected_errors_exit_nonzero(self):
        # Nothing listens on port 1: a connection error, not a throttle.
        p = self.run_demo("--endpoint", "http://127.0.0.1:1", "--seconds",
                          "1")
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        self.assertIn("demo_hotkey.py:", p.stderr)
        # Bad arguments: argparse's status 2.
        p = self.run_demo("--shards", "0")
        self.assertEqual(p.returncode, 2, p.stderr)


if __name__ == "__main__":
    unittest.main()
