# SPDX-License-Identifier: MIT
# test_admin.py - seeing the throttling (issue 3): the admin API
# (GET /shardlocal/...), GET /metrics and Describe/Update/List
# ContributorInsights, on a private server with the virtual clock and
# 10 WCU / 30 RCU partitions (--throttle-scale 0.01) that absorb no burst
# above their ceiling (--partition-burst-seconds 1), so every number is
# exact and small.
import json
import re
import shutil
import subprocess
import tempfile
import unittest
import urllib.error
import urllib.request

import boto3
from botocore.config import Config
from botocore.exceptions import ClientError

from e2e_common import BIN, BOTOCORE_VERSION, OwnServerCase
from e2e_common import start_private_server, start_temp_server
from e2e_common import stop_temp_server

RULE = re.compile(r"^DynamoDBContributorInsights-(PKC|PKT|SKC|SKT)-(.+)-"
                  r"(\d{13})$")


def standard_client(url):
    # One attempt, no retries: every throttle is seen exactly once.
    return boto3.client("dynamodb", endpoint_url=url, region_name="us-east-1",
                        aws_access_key_id="AKIDEXAMPLE",
                        aws_secret_access_key="secret",
                        config=Config(retries={"total_max_attempts": 1,
                                               "mode": "standard"},
                                      connect_timeout=2, read_timeout=10))


# ---------------------------------------------------------------------------
# A strict reader of the Prometheus text exposition format (0.0.4)
# ---------------------------------------------------------------------------

NAME = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
LABEL = r'[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\\\|\\"|\\n)*"'
SAMPLE = re.compile(r"^(%s)(?:\{((?:%s)(?:,%s)*)?\})? (\S+)$" %
                    (NAME, LABEL, LABEL))


def parse_prometheus(text):
    """Return {name: {"type", "help", "samples": [(labels, value)]}};
    raise AssertionError on anything the format does not allow: a sample
    before its TYPE, a metric's samples split up, a TYPE given twice, bad
    names, labels or values, a missing final newline."""
    assert text.endswith("\n"), "exposition must end with a newline"
    fams, seen_done, current = {}, set(), None
    for ln, line in enumerate(text.split("\n")[:-1], 1):
        if line.startswith("# HELP "):
            name, _, help_ = line[7:].partition(" ")
            assert re.fullmatch(NAME, name), (ln, line)
            fams.setdefault(name, {"samples": []})["help"] = help_
            continue
        if line.startswith("# TYPE "):
            name, _, typ = line[7:].partition(" ")
            assert re.fullmatch(NAME, name), (ln, line)
            assert typ in ("counter", "gauge", "untyped", "histogram",
                           "summary"), (ln, line)
            fam = fams.setdefault(name, {"samples": []})
            assert "type" not in fam, ("TYPE twice", ln, line)
            assert not fam["samples"], ("TYPE after samples", ln, line)
            fam["type"] = typ
            if current is not None and current != name:
                seen_done.add(current)
            current = name
            continue
        if line.startswith("#") or line == "":
            continue
        m = SAMPLE.match(line)
        assert m, ("bad sample line", ln, line)
        name, labels, value = m.group(1), m.group(2) or "", m.group(3)
        assert name in fams and "type" in fams[name], \
            ("sample before TYPE", ln, line)
        assert name not in seen_done, ("samples of %s split up" % name, ln)
        if current != name:
            if current is not None:
                seen_done.add(current)
            current = name
        float(value)                        # NaN/+Inf also parse
        lab = dict(re.findall(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"',
                              labels))
        fams[name]["samples"].append((lab, float(value)))
    return fams


def total(fams, name, **match):
    return sum(v for lab, v in fams[name]["samples"]
               if all(lab.get(k) == w for k, w in match.items()))


@unittest.skipUnless(BIN, "needs SHARDLOCAL_BIN (a server this test owns)")
class AdminTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.dir, cls.proc, cls.url = start_temp_server(
            "shardlocal-admin.", "--in-memory", "--virtual-clock",
            "--throttle-scale", "0.01", "--partition-burst-seconds", "1",
            "--status-delay-ms", "0")
        cls.c = standard_client(cls.url)

    @classmethod
    def tearDownClass(cls):
        stop_temp_server(cls.dir, cls.proc)

    # -- helpers ------------------------------------------------------------

    def get(self, path, expect=200):
        try:
            with urllib.request.urlopen(self.url + path, timeout=10) as r:
                status, ctype, body = r.status, r.headers["Content-Type"], \
                    r.read()
        except urllib.error.HTTPError as e:
            status, ctype, body = e.code, e.headers["Content-Type"], e.read()
        self.assertEqual(status, expect, (path, body[:300]))
        return ctype, body

    def get_json(self, path, expect=200):
        ctype, body = self.get(path, expect)
        self.assertIn("json", ctype)
        return json.loads(body)

    def advance(self, ms):
        req = urllib.request.Request(
            self.url + "/shardlocal/clock", method="POST",
            data=json.dumps({"advance_ms": ms}).encode(),
            headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=10) as r:
            return json.loads(r.read())["now_ms"]

    def raw(self, op, body):
        """POST a DynamoDB call as-is (no client-side validation)."""
        req = urllib.request.Request(
            self.url + "/", method="POST", data=json.dumps(body).encode(),
            headers={"Content-Type": "application/x-amz-json-1.0",
                     "X-Amz-Target": "DynamoDB_20120810." + op,
                     "Authorization": "AWS4-HMAC-SHA256 Credential=AKID/"
                     "20250101/us-east-1/dynamodb/aws4_request, "
                     "SignedHeaders=host, Signature=00"})
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                return r.status, json.loads(r.read())
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read())

    def table(self, name, key_type="S", rcu=1, wcu=5, range_key=False,
              gsi=None, lsi=None, on_demand=False):
        defs = [{"AttributeName": "pk", "AttributeType": key_type}]
        ks = [{"AttributeName": "pk", "KeyType": "HASH"}]
        if range_key:
            defs.append({"AttributeName": "sk", "AttributeType": "S"})
            ks.append({"AttributeName": "sk", "KeyType": "RANGE"})
        args = dict(TableName=name, AttributeDefinitions=defs, KeySchema=ks,
                    ProvisionedThroughput={"ReadCapacityUnits": rcu,
                                           "WriteCapacityUnits": wcu})
        if on_demand:
            del args["ProvisionedThroughput"]
            args["BillingMode"] = "PAY_PER_REQUEST"
        if gsi:
            defs.append({"AttributeName": "g", "AttributeType": "S"})
            args["GlobalSecondaryIndexes"] = [{
                "IndexName": gsi,
                "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                "Projection": {"ProjectionType": "ALL"},
                "ProvisionedThroughput": {"ReadCapacityUnits": 1,
                                          "WriteCapacityUnits": 5}}]
        if lsi:
            args["LocalSecondaryIndexes"] = [{
                "IndexName": lsi,
                "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"},
                              {"AttributeName": "l", "KeyType": "RANGE"}],
                "Projection": {"ProjectionType": "KEYS_ONLY"}}]
            defs.append({"AttributeName": "l", "AttributeType": "S"})
        self.c.create_table(**args)
        self.addCleanup(self.c.delete_table, TableName=name)
        return name

    def puts(self, table, keys):
        """Put one small item per key (1 WCU each); return (ok, throttled)."""
        ok = thr = 0
        for k in keys:
            try:
                self.c.put_item(TableName=table, Item={"pk": k, "v": {
                    "S": "x"}})
                ok += 1
            except ClientError as e:
                self.assertIn(e.response["Error"]["Code"],
                              ("ProvisionedThroughputExceededException",
                               "ThrottlingException"))
                thr += 1
        return ok, thr

    # -- GET /shardlocal ----------------------------------------------------

    def test_index(self):
        j = self.get_json("/shardlocal")
        self.assertEqual(j["name"], "shardlocal")
        self.assertRegex(j["version"], r"^\d+\.\d+")
        self.assertEqual(j["clock"]["mode"], "virtual")
        self.assertEqual(j["clock"]["now_ms"],
                         self.get_json("/shardlocal/clock")["now_ms"])
        self.assertEqual(j["throttle"]["partition_wcu"], 10)
        self.assertEqual(j["throttle"]["partition_rcu"], 30)
        paths = {(e["method"], e["path"]) for e in j["endpoints"]}
        for p in ("/metrics", "/shardlocal/tables/{table}/partitions",
                  "/shardlocal/tables/{table}/hotkeys", "/shardlocal/ui"):
            self.assertIn(("GET", p), paths)
        self.assertEqual(self.get_json("/shardlocal/")["name"], "shardlocal")

    def test_not_found(self):
        j = self.get_json("/shardlocal/tables/no_such_table/partitions", 404)
        self.assertEqual(j["__type"].split("#")[1],
                         "ResourceNotFoundException")
        self.assertEqual(j["message"], "Requested resource not found: "
                         "Table: no_such_table not found")
        t = self.table("adm_nf")
        j = self.get_json("/shardlocal/tables/%s/indexes/nope/hotkeys" % t,
                          404)
        self.assertEqual(j["message"], "Requested resource not found: "
                         "Index: nope not found for table: adm_nf")
        self.get_json("/shardlocal/tables/%s/bogus" % t, 404)
        self.get_json("/shardlocal/nothing", 404)
        # Hidden index tables are not tables of the admin API either.
        self.get_json("/shardlocal/tables/%s%%2Fx/partitions" % t, 404)

    # -- partitions and hot keys ---------------------------------------------

    def test_partitions_and_hotkeys(self):
        # On-demand: 4 partitions of 10 WRU/s each (scale 0.01).
        t = self.table("adm_parts", on_demand=True)
        # One instant: the hot key's partition takes exactly 10 writes.
        ok, thr = self.puts(t, [{"S": "hot"}] * 15)
        self.assertEqual((ok, thr), (10, 5))
        j = self.get_json("/shardlocal/tables/%s/partitions" % t)
        self.assertEqual(j["partition_count"], 4)
        self.assertEqual(len(j["partitions"]), 4)
        hot = [p for p in j["partitions"] if p["write"]["admitted"]]
        self.assertEqual(len(hot), 1)
        hot = hot[0]
        self.assertEqual(hot["write"]["consumed_last_second"], 10)
        self.assertEqual(hot["write"]["throttled"]["key_range"], 5)
        self.assertEqual(hot["write"]["throttled_total"], 5)
        self.assertEqual(hot["write"]["ceiling_per_second"], 10)
        self.assertEqual(j["billing_mode"], "PAY_PER_REQUEST")
        self.assertIn("instant_write_limit", j["on_demand"])
        self.assertEqual(hot["item_count"], 1)
        self.assertEqual(j["write"]["throttled_total"], 5)
        # Throttles of the last second, per partition and for the table:
        # what the live view colours by.
        self.assertEqual(hot["write"]["throttled_last_second"], 5)
        self.assertEqual(hot["read"]["throttled_last_second"], 0)
        for p in j["partitions"]:
            if p is not hot:
                self.assertEqual(p["write"]["throttled_last_second"], 0)
        self.assertEqual(j["write"]["throttled_last_second"], 5)
        self.assertEqual(j["read"]["throttled_last_second"], 0)
        self.assertEqual(self.get_json("/shardlocal/tables/%s" % t)[
            "write"]["throttled_last_second"], 5)

        # A second later the window is empty; the minute still counts.
        self.advance(1000)
        # 20 more keys, 4 per virtual second so no partition passes 10.
        for i in range(0, 20, 4):
            self.assertEqual(self.puts(t, [{"S": "k%d" % n}
                                           for n in range(i, i + 4)]),
                             (4, 0))
            self.advance(1000)
        for n in (1, 1, 1, 2):
            self.c.get_item(TableName=t, Key={"pk": {"S": "k%d" % n}},
                            ConsistentRead=True)

        j = self.get_json("/shardlocal/tables/%s/partitions?history=1" % t)
        parts = j["partitions"]
        # Hash ranges tile the ring in order.
        self.assertEqual(parts[0]["hash_start"], "0" * 16)
        self.assertEqual(parts[-1]["hash_end"], "f" * 16)
        for a, b in zip(parts, parts[1:]):
            self.assertEqual(int(a["hash_end"], 16) + 1,
                             int(b["hash_start"], 16))
        desc = self.c.describe_table(TableName=t)["Table"]
        self.assertEqual(sum(p["item_count"] for p in parts), 21)
        self.assertEqual(j["item_count"], 21)
        self.assertEqual(sum(p["size_bytes"] for p in parts),
                         desc["TableSizeBytes"])
        self.assertEqual(j["write"]["consumed_total"], 30)
        self.assertEqual(sum(p["write"]["consumed_total"] for p in parts),
                         30)
        self.assertEqual(j["read"]["consumed_total"], 4)
        self.assertEqual(j["write"]["consumed_last_second"], 0)
        self.assertEqual(len(parts[0]["write"]["per_second"]), 60)
        # Seconds later throttling has stopped: the totals stay, the
        # last-second figure is back to 0.
        self.assertEqual(parts[hot["partition"]]["write"]["throttled_total"],
                         5)
        for p in parts:
            self.assertEqual(p["write"]["throttled_last_second"], 0)
            self.assertEqual(p["read"]["throttled_last_second"], 0)
        self.assertEqual(j["write"]["throttled_last_second"], 0)
        hot2 = parts[hot["partition"]]
        self.assertEqual(hot2["write"]["consumed_last_minute"],
                         10 + sum(1 for p in ["k%d" % n for n in range(20)]
                                  if self.partition_of(t, p) ==
                                  hot["partition"]))

        # Hot keys: consumed and throttled, largest first.
        h = self.get_json("/shardlocal/tables/%s/hotkeys" % t)
        self.assertEqual(h["partition_key"], {"name": "pk", "type": "S"})
        cw = h["consumed_write"]
        self.assertEqual(cw[0]["key"], {"S": "hot"})
        self.assertEqual(cw[0]["key_text"], "hot")
        self.assertEqual(cw[0]["count"], 10)
        self.assertEqual(cw[0]["partition"], hot["partition"])
        self.assertEqual([e["count"] for e in cw],
                         sorted((e["count"] for e in cw), reverse=True))
        self.assertEqual(len(cw), 10)              # default n=10 of 21 keys
        self.assertEqual([e["key"] for e in h["throttled_write"]],
                         [{"S": "hot"}])
        self.assertEqual(h["throttled_write"][0]["count"], 5)
        self.assertEqual(h["consumed_read"][0]["key"], {"S": "k1"})
        self.assertEqual(h["consumed_read"][0]["count"], 3)
        self.assertEqual(h["consumed_read"][1]["key"], {"S": "k2"})
        self.assertEqual(h["throttled_read"], [])
        h1 = self.get_json("/shardlocal/tables/%s/hotkeys?n=1" % t)
        self.assertEqual(len(h1["consumed_write"]), 1)

        # The table list carries the same summary.
        lst = self.get_json("/shardlocal/tables")
        mine = [x for x in lst["tables"] if x["table"] == t][0]
        self.assertEqual(mine["partition_count"], 4)
        self.assertEqual(mine["write"]["consumed_total"], 30)
        self.assertEqual(mine["indexes"], [])
        one = self.get_json("/shardlocal/tables/%s" % t)
        self.assertEqual(one["item_count"], 21)
        self.assertNotIn("provisioned", one)

    def partition_of(self, table, key):
        h = self.get_json("/shardlocal/tables/%s/hotkeys?n=64" % table)
        for e in h["consumed_write"]:
            if e["key"] == {"S": key}:
                return e["partition"]
        return None

    def test_hotkeys_number_and_binary_keys(self):
        t = self.table("adm_numkeys", key_type="N", wcu=5)
        vals = ["-12.5", "0", "1000", "0.001", "123456789012345678901234567890",
                "-0.0004", "1E+2"]
        self.assertEqual(self.puts(t, [{"N": v} for v in vals]),
                         (len(vals), 0))
        h = self.get_json("/shardlocal/tables/%s/hotkeys?n=64" % t)
        self.assertEqual(h["partition_key"]["type"], "N")
        got = sorted(e["key_text"] for e in h["consumed_write"])
        want = sorted(["-12.5", "0", "1000", "0.001",
                       "123456789012345678901234567890", "-0.0004", "100"])
        self.assertEqual(got, want)
        for e in h["consumed_write"]:
            self.assertEqual(e["key"], {"N": e["key_text"]})
        self.advance(1000)
        b = self.table("adm_binkeys", key_type="B", wcu=5)
        self.puts(b, [{"B": b"\x00\xffab"}])
        h = self.get_json("/shardlocal/tables/%s/hotkeys" % b)
        self.assertEqual(h["consumed_write"][0]["key"], {"B": "AP9hYg=="})
        self.assertEqual(h["consumed_write"][0]["key_text"], "00ff6162")

    def test_gsi_views(self):
        t = self.table("adm_gsi", gsi="by_g")
        j = self.get_json("/shardlocal/tables/%s/indexes/by_g/partitions" % t)
        self.assertEqual(j["index"], "by_g")
        self.assertEqual(j["provisioned"], {"read_capacity_units": 1,
                                            "write_capacity_units": 5})
        self.assertGreaterEqual(j["partition_count"], 1)
        self.c.put_item(TableName=t, Item={"pk": {"S": "a"},
                                           "g": {"S": "G"}})
        j = self.get_json("/shardlocal/tables/%s/indexes/by_g/partitions" % t)
        self.assertEqual(sum(p["item_count"] for p in j["partitions"]), 1)
        h = self.get_json("/shardlocal/tables/%s/indexes/by_g/hotkeys" % t)
        self.assertEqual(h["partition_key"], {"name": "g", "type": "S"})
        one = self.get_json("/shardlocal/tables/%s" % t)
        self.assertEqual([i["index"] for i in one["indexes"]], ["by_g"])

    def test_ui(self):
        ctype, body = self.get("/shardlocal/ui")
        self.assertTrue(ctype.startswith("text/html"), ctype)
        self.assertIn(b"<html", body.lower())
        self.assertIn(b"/shardlocal/tables", body)

    def test_ui_table_param(self):
        # ?table= and &index= pick the view; the page itself is the same
        # and reads them (and keeps them in the URL) in the browser.
        ctype, body = self.get("/shardlocal/ui?table=adm_ui&index=g")
        self.assertTrue(ctype.startswith("text/html"), ctype)
        self.assertEqual(body, self.get("/shardlocal/ui")[1])
        for s in (b"URLSearchParams", b"replaceState",
                  b"throttled_last_second", b"was deleted"):
            self.assertIn(s, body)
        self.get("/shardlocal/ui/?table=adm_ui")

    def ui_dom(self, query):
        """The live view's DOM after a few polls, rendered by headless
        Chromium, or skip the test if there is none."""
        exe = shutil.which("chromium") or shutil.which("chromium-browser")
        if exe is None:
            self.skipTest("no chromium")
        prof = tempfile.mkdtemp(prefix="shardlocal-ui.")
        try:
            out = subprocess.run(
                [exe, "--headless", "--no-sandbox", "--disable-gpu",
                 "--disable-background-networking",
                 "--disable-component-update", "--disable-sync",
                 "--no-first-run", "--user-data-dir=" + prof,
                 "--virtual-time-budget=3000", "--dump-dom",
                 self.url + "/shardlocal/ui" + query],
                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                timeout=90)
        finally:
            shutil.rmtree(prof, ignore_errors=True)
        if out.returncode != 0 or b"<html" not in out.stdout:
            self.skipTest("chromium did not render the page")
        return out.stdout.decode().split("<script>")[0]   # the page only

    def test_ui_renders_selected_table(self):
        one = self.table("adm_ui_one", wcu=5)                 # 1 partition
        three = self.table("adm_ui_three", wcu=25, gsi="by_g")  # 3
        self.puts(one, [{"S": "a"}])
        dom = self.ui_dom("?table=%s" % three)
        self.assertIn("3 partitions, 0 items", dom)
        self.assertIn('<option value="%s">' % three, dom)
        self.assertIn('<option value="%s/by_g">' % three, dom)
        self.assertIn('<div id="state"></div>', dom)        # no banner
        dom = self.ui_dom("?table=%s" % one)
        self.assertIn("1 partition, 1 item, PROVISIONED", dom)
        dom = self.ui_dom("?table=%s&index=by_g" % three)
        self.assertIn("1 partition, 0 items", dom)
        dom = self.ui_dom("?table=adm_ui_none")
        self.assertIn("Table adm_ui_none does not exist (yet)", dom)
        self.assertIn("adm_ui_none (not found)", dom)
        self.assertIn('<small id="psum"></small>', dom)     # views cleared
        self.assertIn('<div id="hk"></div>', dom)

    # -- GET /metrics ---------------------------------------------------------

    def test_metrics(self):
        t = self.table("adm_metrics", rcu=2, wcu=5)     # 1 partition
        self.advance(1000)
        self.assertEqual(self.puts(t, [{"S": "m"}] * 12), (10, 2))
        self.c.get_item(TableName=t, Key={"pk": {"S": "m"}})  # 0.5 RCU
        ctype, body = self.get("/metrics")
        self.assertTrue(ctype.startswith("text/plain"), ctype)
        self.assertIn("version=0.0.4", ctype)
        fams = parse_prometheus(body.decode())
        for name in ("ConsumedReadCapacityUnits", "ConsumedWriteCapacityUnits",
                     "ReadThrottleEvents", "WriteThrottleEvents",
                     "ThrottledRequests"):
            self.assertEqual(fams[name]["type"], "counter", name)
        for rw in ("Read", "Write"):
            for cause in ("ProvisionedThroughput", "KeyRangeThroughput",
                          "MaxOnDemandThroughput", "AccountLimit"):
                self.assertEqual(fams[rw + cause + "ThrottleEvents"]["type"],
                                 "counter")
        self.assertEqual(fams["ProvisionedWriteCapacityUnits"]["type"],
                         "gauge")
        me = dict(table=t, index="")
        self.assertEqual(total(fams, "ConsumedWriteCapacityUnits", **me), 10)
        self.assertEqual(total(fams, "ConsumedReadCapacityUnits", **me), 0.5)
        self.assertEqual(total(fams, "WriteThrottleEvents", **me), 2)
        self.assertEqual(total(fams, "WriteKeyRangeThroughputThrottleEvents",
                               **me), 2)
        self.assertEqual(total(fams,
                               "WriteProvisionedThroughputThrottleEvents",
                               **me), 0)
        self.assertEqual(total(fams, "ReadThrottleEvents", **me), 0)
        self.assertEqual(total(fams, "ThrottledRequests", **me), 2)
        self.assertEqual(total(fams, "ProvisionedWriteCapacityUnits", **me),
                         5)
        self.assertEqual(total(fams, "ProvisionedReadCapacityUnits", **me), 2)
        self.assertEqual(total(fams, "shardlocal_partitions", **me), 1)
        self.assertEqual(total(fams, "shardlocal_partition_items", **me), 1)
        samples = [lab for lab, _ in
                   fams["ConsumedWriteCapacityUnits"]["samples"]
                   if lab["table"] == t]
        self.assertEqual(samples, [{"table": t, "index": "",
                                    "partition": "0"}])

    def test_metrics_parser_rejects_bad_text(self):
        # The reader above is strict enough to catch what matters.
        with self.assertRaises(AssertionError):
            parse_prometheus("x 1\n")                       # no TYPE
        with self.assertRaises(AssertionError):
            parse_prometheus("# TYPE a counter\n# TYPE b gauge\na 1\nb 1\n"
                             "a 2\n")                       # split up
        with self.assertRaises(AssertionError):
            parse_prometheus('# TYPE a counter\na{x="1} 1\n')
        parse_prometheus('# HELP a h\n# TYPE a counter\na{x="1",y=""} 1.5\n')

    # -- Contributor Insights -------------------------------------------------

    def describe(self, **kw):
        r = self.c.describe_contributor_insights(**kw)
        r.pop("ResponseMetadata")
        return r

    def update(self, **kw):
        r = self.c.update_contributor_insights(**kw)
        r.pop("ResponseMetadata")
        return r

    def list_all(self, **kw):
        out, pages = [], 0
        while True:
            r = self.c.list_contributor_insights(**kw)
            pages += 1
            out += r["ContributorInsightsSummaries"]
            if "NextToken" not in r:
                return out, pages
            kw["NextToken"] = r["NextToken"]

    @unittest.skipIf(BOTOCORE_VERSION < (1, 31), "botocore too old: "
                     "no ContributorInsightsMode in its model")
    def test_insights_lifecycle(self):
        t = self.table("adm_ci_life")
        # Never configured: DISABLED and nothing else; not listed.
        self.assertEqual(self.describe(TableName=t),
                         {"TableName": t,
                          "ContributorInsightsStatus": "DISABLED"})
        self.assertEqual(self.c.list_contributor_insights(TableName=t)
                         ["ContributorInsightsSummaries"], [])
        # DISABLE on a never-configured table: a 200 no-op.
        self.assertEqual(self.update(TableName=t,
                                     ContributorInsightsAction="DISABLE"),
                         {"TableName": t,
                          "ContributorInsightsStatus": "DISABLED"})
        r = self.update(TableName=t, ContributorInsightsAction="ENABLE")
        self.assertEqual(r, {"TableName": t,
                             "ContributorInsightsStatus": "ENABLING",
                             "ContributorInsightsMode":
                             "ACCESSED_AND_THROTTLED_KEYS"})
        d = self.describe(TableName=t)             # delay 0: settled
        self.assertEqual(d["ContributorInsightsStatus"], "ENABLED")
        self.assertEqual(d["ContributorInsightsMode"],
                         "ACCESSED_AND_THROTTLED_KEYS")
        self.assertIn("LastUpdateDateTime", d)
        self.assertNotIn("FailureException", d)
        rules = d["ContributorInsightsRuleList"]
        self.assertEqual([RULE.match(x).group(1) for x in rules],
                         ["PKC", "PKT"])
        self.assertEqual({RULE.match(x).group(2) for x in rules}, {t})
        stamp = RULE.match(rules[0]).group(3)
        # The same ENABLE again: a no-op answering ENABLED.
        self.assertEqual(self.update(TableName=t,
                                     ContributorInsightsAction="ENABLE")
                         ["ContributorInsightsStatus"], "ENABLED")
        self.assertEqual(self.describe(TableName=t), d)
        # Narrowing the mode re-enables in place: PKT only, same stamp.
        self.advance(5000)
        r = self.update(TableName=t, ContributorInsightsAction="ENABLE",
                        ContributorInsightsMode="THROTTLED_KEYS")
        self.assertEqual(r["ContributorInsightsStatus"], "ENABLING")
        d = self.describe(TableName=t)
        self.assertEqual(d["ContributorInsightsRuleList"],
                         ["DynamoDBContributorInsights-PKT-%s-%s" %
                          (t, stamp)])
        self.assertEqual(d["ContributorInsightsMode"], "THROTTLED_KEYS")
        self.assertEqual(self.c.list_contributor_insights(TableName=t)
                         ["ContributorInsightsSummaries"],
                         [{"TableName": t,
                           "ContributorInsightsStatus": "ENABLED",
                           "ContributorInsightsMode": "THROTTLED_KEYS"}])
        # DISABLE: a mode sent along is ignored, the current one echoed.
        r = self.update(TableName=t, ContributorInsightsAction="DISABLE",
                        ContributorInsightsMode=
                        "ACCESSED_AND_THROTTLED_KEYS")
        self.assertEqual(r, {"TableName": t,
                             "ContributorInsightsStatus": "DISABLING",
                             "ContributorInsightsMode": "THROTTLED_KEYS"})
        d = self.describe(TableName=t)
        self.assertEqual(set(d), {"TableName", "ContributorInsightsStatus",
                                  "LastUpdateDateTime",
                                  "ContributorInsightsMode"})
        self.assertEqual(d["ContributorInsightsStatus"], "DISABLED")
        self.assertEqual(self.c.list_contributor_insights(TableName=t)
                         ["ContributorInsightsSummaries"], [])
        # Re-enabling makes new rules with a new stamp.
        self.advance(1000)
        self.update(TableName=t, ContributorInsightsAction="ENABLE")
        rules = self.describe(TableName=t)["ContributorInsightsRuleList"]
        self.assertNotEqual(RULE.match(rules[0]).group(3), stamp)
        # A table ARN works as TableName.
        arn = self.c.describe_table(TableName=t)["Table"]["TableArn"]
        self.assertEqual(self.describe(TableName=arn)["TableName"], t)

    @unittest.skipIf(BOTOCORE_VERSION < (1, 31), "botocore too old: "
                     "no ContributorInsightsMode in its model")
    def test_insights_sort_key_and_gsi(self):
        t = self.table("adm_ci_gsi", range_key=True, gsi="by_g",
                       lsi="by_l")
        self.update(TableName=t, ContributorInsightsAction="ENABLE")
        rules = self.describe(TableName=t)["ContributorInsightsRuleList"]
        self.assertEqual([RULE.match(x).group(1) for x in rules],
                         ["PKC", "PKT", "SKC", "SKT"])
        r = self.update(TableName=t, IndexName="by_g",
                        ContributorInsightsAction="ENABLE")
        self.assertEqual(r["IndexName"], "by_g")
        d = self.describe(TableName=t, IndexName="by_g")
        self.assertEqual(d["IndexName"], "by_g")
        # The GSI is hash-only: two rules, named after table and index.
        self.assertEqual([RULE.match(x).group(1)
                          for x in d["ContributorInsightsRuleList"]],
                         ["PKC", "PKT"])
        self.assertTrue(d["ContributorInsightsRuleList"][0].startswith(
            "DynamoDBContributorInsights-PKC-%s-by_g-" % t))
        # List: the table first, then its GSI; paging with MaxResults.
        want = [{"TableName": t, "ContributorInsightsStatus": "ENABLED",
                 "ContributorInsightsMode": "ACCESSED_AND_THROTTLED_KEYS"},
                {"TableName": t, "IndexName": "by_g",
                 "ContributorInsightsStatus": "ENABLED",
                 "ContributorInsightsMode": "ACCESSED_AND_THROTTLED_KEYS"}]
        self.assertEqual(self.list_all(TableName=t), (want, 1))
        self.assertEqual(self.list_all(TableName=t, MaxResults=1), (want, 2))
        everything, _ = self.list_all(MaxResults=1)
        self.assertEqual([x for x in everything if x["TableName"] == t],
                         want)
        # An LSI has no insights of its own: ResourceNotFound.
        with self.assertRaises(ClientError) as cm:
            self.describe(TableName=t, IndexName="by_l")
        self.assertEqual(cm.exception.response["Error"]["Message"],
                         "Requested resource not found: Index: by_l not "
                         "found for table: %s" % t)

    def test_insights_errors(self):
        for call in (lambda: self.describe(TableName="adm_nope"),
                     lambda: self.update(TableName="adm_nope",
                                         ContributorInsightsAction="ENABLE"),
                     lambda: self.c.list_contributor_insights(
                         TableName="adm_nope")):
            with self.assertRaises(ClientError) as cm:
                call()
            err = cm.exception.response["Error"]
            self.assertEqual(err["Code"], "ResourceNotFoundException")
            self.assertEqual(err["Message"], "Requested resource not found: "
                             "Table: adm_nope not found")
        t = self.table("adm_ci_err")
        with self.assertRaises(ClientError) as cm:
            self.update(TableName=t, IndexName="ghost",
                        ContributorInsightsAction="ENABLE")
        self.assertEqual(cm.exception.response["Error"]["Message"],
                         "Requested resource not found: Index: ghost not "
                         "found for table: %s" % t)
        # Shape errors the SDK would catch, sent raw.
        st, b = self.raw("UpdateContributorInsights", {"TableName": t})
        self.assertEqual(st, 400)
        self.assertEqual(b["__type"].split("#")[1], "ValidationException")
        self.assertEqual(b["message"], "1 validation error detected: Value "
                         "null at 'contributorInsightsAction' failed to "
                         "satisfy constraint: Member must not be null")
        st, b = self.raw("UpdateContributorInsights",
                         {"TableName": t, "ContributorInsightsAction": "ON",
                          "ContributorInsightsMode": "ALL"})
        self.assertEqual(b["message"], "2 validation errors detected: Value "
                         "'ON' at 'contributorInsightsAction' failed to "
                         "satisfy constraint: Member must satisfy enum value "
                         "set: [ENABLE, DISABLE]; Value 'ALL' at "
                         "'contributorInsightsMode' failed to satisfy "
                         "constraint: Member must satisfy enum value set: "
                         "[ACCESSED_AND_THROTTLED_KEYS, THROTTLED_KEYS]")
        st, b = self.raw("ListContributorInsights", {"MaxResults": 101})
        self.assertEqual(b["message"], "1 validation error detected: Value "
                         "'101' at 'maxResults' failed to satisfy "
                         "constraint: Member must have value less than or "
                         "equal to 100")
        st, b = self.raw("DescribeContributorInsights",
                         {"TableName": t, "IndexName": "x"})
        self.assertEqual(st, 400)
        self.assertIn("Member must have length greater than or equal to 3",
                      b["message"])
        st, b = self.raw("DescribeContributorInsights", {})
        self.assertEqual(b["message"], "1 validation error detected: Value "
                         "null at 'tableName' failed to satisfy constraint: "
                         "Member must not be null")
        st, b = self.raw("ListContributorInsights", {"NextToken": "garbage"})
        self.assertEqual(st, 400)
        self.assertEqual(b["__type"].split("#")[1], "ValidationException")


class InsightsTransitionTest(OwnServerCase):
    """ENABLING/DISABLING last the server's status delay (virtual time)."""
    PREFIX = "shardlocal-admin2."

    def setUp(self):
        super().setUp()
        self.proc, self.url = start_private_server(
            None, self.port_file, "--in-memory",
            "--virtual-clock", "--status-delay-ms", "1000")
        self.c = standard_client(self.url)

    def advance(self, ms):
        req = urllib.request.Request(
            self.url + "/shardlocal/clock", method="POST",
            data=json.dumps({"advance_ms": ms}).encode(),
            headers={"Content-Type": "application/json"})
        urllib.request.urlopen(req, timeout=10).read()

    def status(self, t):
        return self.c.describe_contributor_insights(
            TableName=t)["ContributorInsightsStatus"]

    def test_transitions(self):
        t = "adm_ci_slow"
        self.c.create_table(
            TableName=t, BillingMode="PAY_PER_REQUEST",
            AttributeDefinitions=[{"AttributeName": "pk",
                                   "AttributeType": "S"}],
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}])
        self.advance(1000)                          # CREATING -> ACTIVE
        self.c.describe_table(TableName=t)
        r = self.c.update_contributor_insights(
            TableName=t, ContributorInsightsAction="ENABLE")
        self.assertEqual(r["ContributorInsightsStatus"], "ENABLING")
        self.assertEqual(self.status(t), "ENABLING")
        d = self.c.describe_contributor_insights(TableName=t)
        self.assertEqual(len(d["ContributorInsightsRuleList"]), 2)
        # Listed while ENABLING.
        self.assertEqual(len(self.c.list_contributor_insights(TableName=t)
                             ["ContributorInsightsSummaries"]), 1)
        self.advance(999)
        self.assertEqual(self.status(t), "ENABLING")
        self.advance(1)
        self.assertEqual(self.status(t), "ENABLED")
        self.c.update_contributor_insights(TableName=t,
                                           ContributorInsightsAction="DISABLE")
        self.assertEqual(self.status(t), "DISABLING")
        self.assertEqual(self.c.list_contributor_insights(TableName=t)
                         ["ContributorInsightsSummaries"][0]
                         ["ContributorInsightsStatus"], "DISABLING")
        self.advance(1000)
        self.assertEqual(self.status(t), "DISABLED")
        self.assertEqual(self.c.list_contributor_insights(TableName=t)
                         ["ContributorInsightsSummaries"], [])


if __name__ == "__main__":
    unittest.main()
