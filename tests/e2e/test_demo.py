# SPDX-License-Identifier: MIT
# test_demo.py - the workshop's scenarios (bench/demo.py, docs/workshop.md)
# against a private server with laptop-scale limits (--throttle-scale 0.01:
# 10 WCU partitions) on the wall clock. The six scenarios run at once, each
# on its own tables with shortened phases, and each must exit 0 (its
# effect observed) with the numbers its --json shows; hot-key is checked in
# detail. A scenario whose effect is absent exits 1, a connection error 1,
# bad arguments 2. About 20 s.
#
# The expected effects are DynamoDB's, as its developer guide describes
# them: a partition's ceiling of 1,000 WCU/s binds a hot key whatever the
# table's capacity ("Designing partition keys to distribute your workload",
# "Using write sharding"); a GSI whose writes throttle rejects the base
# table's writes ("GSI back-pressure", throttling.md 3); burst capacity
# banks 300 s of unused share; adaptive capacity lends a hot partition the
# table's unused share; a new on-demand table serves 4,000 WRU/s at once
# and then twice its previous peak ("On-demand capacity mode"); raising
# provisioned capacity splits partitions.
import json
import os
import subprocess
import sys
import unittest

from e2e_common import BIN, start_temp_server, stop_temp_server

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "..", "..", "bench", "demo.py")
SECONDS = 3
RATE = 30          # 3x a 10 WCU/s partition

# Each scenario's arguments for this test: shorter phases than on stage.
RUNS = {
    "hot-key": ["--seconds", str(SECONDS), "--rate", str(RATE),
                "--shards", "10", "--table", "demo_e2e"],
    "gsi-choke": ["--seconds", str(SECONDS)],
    "burst": ["--bank-seconds", "4", "--cold-seconds", "3"],
    "adaptive": ["--seconds", "4"],
    "on-demand": ["--window", "4"],
    "split": ["--seconds", str(SECONDS)],
}


def demo_env():
    env = dict(os.environ)
    env.setdefault("AWS_ACCESS_KEY_ID", "x")
    env.setdefault("AWS_SECRET_ACCESS_KEY", "x")
    env.setdefault("AWS_DEFAULT_REGION", "us-east-1")
    return env


@unittest.skipUnless(BIN, "needs SHARDLOCAL_BIN (a server this test owns)")
class DemoTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.dir, cls.proc, cls.url = start_temp_server(
            "shardlocal-demo.", "--in-memory", "--throttle-scale", "0.01")
        # Every scenario at once, each on its own tables.
        cls.out, cls.json = {}, {}
        procs = {}
        for name, args in RUNS.items():
            path = os.path.join(cls.dir, name + ".json")
            procs[name] = (path, subprocess.Popen(
                [sys.executable, SCRIPT, name, "--endpoint", cls.url,
                 "--json", path] + args, stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT, universal_newlines=True,
                env=demo_env()))
        for name, (path, p) in procs.items():
            try:
                out, _ = p.communicate(timeout=120)
            except subprocess.TimeoutExpired:
                p.kill()
                out, _ = p.communicate()
            cls.out[name] = (p.returncode, out)
            try:
                with open(path) as f:
                    cls.json[name] = json.load(f)
            except (OSError, ValueError):
                cls.json[name] = None

    @classmethod
    def tearDownClass(cls):
        stop_temp_server(cls.dir, cls.proc)

    def scenario(self, name):
        """Its --json, after checking it exited 0 with every check true
        and printed its summary."""
        rc, out = self.out[name]
        self.assertEqual(rc, 0, out)
        r = self.json[name]
        self.assertIsNotNone(r, out)
        self.assertEqual(r["scenario"], name)
        self.assertTrue(r["observed"], out)
        self.assertTrue(r["checks"] and all(c["ok"] for c in r["checks"]),
                        out)
        self.assertIn("what this scenario shows:", out)
        self.assertIn("effect observed", out)
        for ph in r["phases"].values():
            self.assertEqual(ph["retry_attempts"], 0)       # retries off
            self.assertEqual(ph["ok"] + ph["throttled"], ph["sent"])
        return r, out

    def test_hot_key(self):
        r, out = self.scenario("hot-key")
        self.assertEqual(r["partition_count"], 8)
        self.assertEqual(r["partition_wcu"], 10)
        naive, sharded = r["phases"]["naive"], r["phases"]["sharded"]
        for ph in (naive, sharded):
            # Six scenarios at once on a loaded 2-CPU machine may fall
            # behind the rate; half of it still shows the effect.
            self.assertGreaterEqual(ph["sent"], SECONDS * RATE * 0.5)
            self.assertEqual(len(ph["ok_per_second"]), SECONDS)
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
                      "partitions): 8 partitions", out)
        self.assertIn("most throttled keys", out)
        self.assertIn("naive          1s  sent", out)     # second by second

    def test_gsi_choke(self):
        r, out = self.scenario("gsi-choke")
        one, sharded = r["phases"]["one-status"], r["phases"]["sharded"]
        self.assertGreater(one["throttled"], one["sent"] // 4)
        # DynamoDB's GSI message: the table's write failed for its index.
        self.assertIn("global secondary indexes",
                      one["messages"]["ProvisionedThroughputExceededException"])
        if one["reasons"]:
            self.assertEqual(set(one["reasons"]),
                             {"IndexWriteKeyRangeThroughputExceeded"})
        self.assertLessEqual(sharded["throttled"], sharded["sent"] // 20)
        self.assertEqual(r["gsi_query_count"], sharded["ok"])

    def test_burst(self):
        r, _ = self.scenario("burst")
        share = r["share"]
        self.assertEqual(share, 5)
        # Empty bank: the share; after idle: the ceiling, then the share.
        self.assertLessEqual(r["phases"]["cold"]["ok"], 3 * share + 3)
        self.assertGreaterEqual(r["burst_first"], 1.4 * share)
        self.assertLessEqual(r["burst_last"], 1.5 * share + 1)

    def test_adaptive(self):
        r, _ = self.scenario("adaptive")
        on, off = r["phases"]["adaptive-on"], r["phases"]["adaptive-off"]
        # The very first write may find the table's empty bank (throttling
        # .md: the table's own bucket); after that the borrowing serves.
        self.assertLessEqual(on["throttled"], 1)
        self.assertGreater(off["throttled"], off["sent"] // 5)
        self.assertEqual(set(off["codes"]),
                         {"ProvisionedThroughputExceededException"})

    def test_on_demand(self):
        r, _ = self.scenario("on-demand")
        self.assertEqual(r["initial"], 5)
        first = r["phases"]["new-table"]
        self.assertGreaterEqual(first["ok_per_second"][0], 5)   # at once
        self.assertLessEqual(first["ok_per_second"][-1], 7)     # then 5/s
        self.assertEqual(set(first["codes"]), {"ThrottlingException"})
        # Twice the first second's peak (about 2 x 10), not the 30 sent.
        self.assertGreaterEqual(r["second_late"], 1.5 * r["first_peak"])
        self.assertLessEqual(r["second_late"], 2 * r["first_peak"] * 1.1 + 1)
        self.assertLess(r["second_late"], 25)

    def test_split(self):
        r, _ = self.scenario("split")
        self.assertEqual(r["partitions_before"], 1)
        self.assertGreater(r["partitions_after"], 1)
        self.assertEqual(r["phases"]["after-split"]["throttled"], 0)
        hot = r["phases"]["hot-key"]
        # The ceiling after the partition's burst (25 at once).
        self.assertLessEqual(hot["ok"], SECONDS * 10 + 25 + 10)
        self.assertLessEqual(hot["ok_per_second"][-1], 13)
        self.assertGreater(hot["throttled"], hot["sent"] // 4)

    def run_demo(self, *args, timeout=60):
        return subprocess.run([sys.executable, SCRIPT] + list(args),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              universal_newlines=True, timeout=timeout,
                              env=demo_env())

    def test_effect_absent_exits_1(self):
        # Throttling off for this one table: the hot key is never
        # rejected, so the scenario's effect is not observed.
        p = self.run_demo("hot-key", "--endpoint", self.url, "--seconds",
                          "1", "--table", "demo_off", "--tag",
                          "throttle=off", "--quiet")
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        self.assertIn("effect NOT observed", p.stdout)
        self.assertIn("[ ] one key throttles", p.stdout)

    def test_unexpected_errors_exit_nonzero(self):
        # Nothing listens on port 1: a connection error, not a throttle.
        p = self.run_demo("hot-key", "--endpoint", "http://127.0.0.1:1",
                          "--seconds", "1")
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        self.assertIn("demo.py:", p.stderr)
        # Bad arguments: argparse's status 2.
        for bad in (["hot-key", "--shards", "0"], ["no-such-scenario"], []):
            p = self.run_demo(*bad)
            self.assertEqual(p.returncode, 2, (bad, p.stderr))


if __name__ == "__main__":
    unittest.main()
