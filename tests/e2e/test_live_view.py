# SPDX-License-Identifier: MIT
# test_live_view.py - the live view (GET /shardlocal/ui) in headless
# Chromium (Debian's chromium package), driven over the DevTools protocol
# on a pipe (--remote-debugging-pipe: no npm, no websocket). A short
# hot-key run on a private server with the virtual clock, so the page and
# the test read the same history; then the page must have drawn it: the
# hot partition's chart holds the consumption and throttles the history
# JSON reports and is inked with them, the idle partitions' are not, the
# split shows on the time axis, and on a phone the page fits the screen.
# Screenshots are kept in tests/e2e/artifacts/ (the test's temp dir when
# the source tree is read-only). Skips where Chromium is missing.
import base64
import fcntl
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
import unittest

from botocore.exceptions import ClientError

from e2e_common import BIN, start_temp_server, stop_temp_server
from test_admin import standard_client
from test_throttling import Raw

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
ARTIFACTS = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                         "artifacts")


class DevTools:
    """Chromium, headless, and its DevTools protocol over the pipe it
    reads on fd 3 and writes on fd 4 (JSON messages ending in NUL)."""

    def __init__(self, exe, profile, log):
        to_child = os.pipe()                    # we write, it reads (fd 3)
        from_child = os.pipe()                  # it writes (fd 4), we read

        def fds():
            a = fcntl.fcntl(to_child[0], fcntl.F_DUPFD, 10)
            b = fcntl.fcntl(from_child[1], fcntl.F_DUPFD, 10)
            os.dup2(a, 3)
            os.dup2(b, 4)

        # The flags the machine's Chromium needs to start quietly offline
        # (no sandbox as root, no GPU, no background connections).
        self.proc = subprocess.Popen(
            [exe, "--headless", "--no-sandbox", "--disable-gpu",
             "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update",
             "--disable-sync", "--disable-extensions", "--hide-scrollbars",
             "--remote-debugging-pipe", "--user-data-dir=" + profile,
             "about:blank"],
            stdin=subprocess.DEVNULL, stdout=log, stderr=log,
            preexec_fn=fds, close_fds=False)
        os.close(to_child[0])
        os.close(from_child[1])
        self.w, self.r = to_child[1], from_child[0]
        self.buf, self.id, self.session = b"", 0, None

    def close(self):
        for fd in (self.w, self.r):
            try:
                os.close(fd)
            except OSError:
                pass
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()

    def _read(self, deadline):
        while b"\0" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.r], [], [], left)[0]:
                raise AssertionError("Chromium did not answer in time")
            chunk = os.read(self.r, 1 << 16)
            if not chunk:
                raise AssertionError("Chromium closed its pipe")
            self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def call(self, method, params=None, timeout=30, browser=False):
        """Send one command (to the page's session unless browser) and
        return its result; events that arrive meanwhile are dropped."""
        self.id += 1
        msg = {"id": self.id, "method": method, "params": params or {}}
        if self.session and not browser:
            msg["sessionId"] = self.session
        os.write(self.w, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            m = self._read(deadline)
            if m.get("id") == self.id:
                if "error" in m:
                    raise AssertionError("%s: %s" % (method, m["error"]))
                return m["result"]

    def open_page(self):
        pages = [t for t in self.call("Target.getTargets", browser=True)
                 ["targetInfos"] if t["type"] == "page"]
        tid = pages[0]["targetId"] if pages else self.call(
            "Target.createTarget", {"url": "about:blank"},
            browser=True)["targetId"]
        self.session = self.call("Target.attachToTarget",
                                 {"targetId": tid, "flatten": True},
                                 browser=True)["sessionId"]

    def eval(self, expr):
        r = self.call("Runtime.evaluate", {"expression": expr,
                                           "returnByValue": True,
                                           "awaitPromise": True})
        if "exceptionDetails" in r:
            raise AssertionError("page: %s" % r["exceptionDetails"])
        return r["result"].get("value")

    def wait(self, expr, timeout=30):
        """Poll expr in the page until it is truthy; return its value."""
        deadline = time.monotonic() + timeout
        while True:
            v = self.eval(expr)
            if v:
                return v
            if time.monotonic() > deadline:
                raise AssertionError("page never satisfied: " + expr)
            time.sleep(0.1)

    def viewport(self, width, height, scale, mobile):
        self.call("Emulation.setDeviceMetricsOverride", {
            "width": width, "height": height, "deviceScaleFactor": scale,
            "mobile": mobile})

    def screenshot(self, path):
        r = self.call("Page.captureScreenshot", {
            "format": "png", "captureBeyondViewport": True})
        with open(path, "wb") as f:
            f.write(base64.b64decode(r["data"]))


# What each chart drew (its data-* attributes) and how many of its pixels
# carry each series' colour: the consumed area's fill (blended on white
# as the canvas blends it; counted where the pixel 3 rows down has it too,
# so the anti-aliased edge of a line lying on the axis does not count),
# the throttle bars, the burst bank's line.
CHARTS_JS = r"""
(() => {
  const st = getComputedStyle(document.documentElement);
  const rgba = n => { const c = document.createElement("canvas").getContext("2d");
    c.fillStyle = st.getPropertyValue("--" + n).trim(); c.fillRect(0, 0, 1, 1);
    const d = c.getImageData(0, 0, 1, 1).data; return [d[0], d[1], d[2]]; };
  const want = {used: rgba("used-fill"), thr: rgba("thr"), bank: rgba("bank")};
  return [...document.querySelectorAll("canvas.chart")].map(cv => {
    const d = cv.getContext("2d").getImageData(0, 0, cv.width, cv.height).data;
    const ink = {used: 0, thr: 0, bank: 0}, down = 3 * 4 * cv.width;
    const is = (i, w) => i < d.length && Math.abs(d[i] - w[0]) <= 3 &&
      Math.abs(d[i + 1] - w[1]) <= 3 && Math.abs(d[i + 2] - w[2]) <= 3;
    for (let i = 0; i < d.length; i += 4)
      for (const k in want)
        if (is(i, want[k]) && (k != "used" || is(i + down, want[k]))) ink[k]++;
    const a = {}; for (const k in cv.dataset) a[k] = cv.dataset[k];
    return {id: cv.id, data: a, ink: ink, width: cv.width};
  });
})()
"""


@unittest.skipUnless(BIN, "needs SHARDLOCAL_BIN (a server this test owns)")
@unittest.skipUnless(CHROMIUM, "Chromium is not installed (apt-get install "
                     "chromium; docker/install-deps.sh installs it)")
class LiveViewTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.dir, cls.proc, cls.url = start_temp_server(
            "shardlocal-live.", "--in-memory", "--virtual-clock",
            "--throttle-scale", "0.01", "--status-delay-ms", "0")
        cls.c = standard_client(cls.url)
        cls.raw = Raw(cls.url)
        try:
            os.makedirs(ARTIFACTS, exist_ok=True)
            probe = os.path.join(ARTIFACTS, ".probe")
            open(probe, "w").close()
            os.unlink(probe)
            cls.artifacts = ARTIFACTS
        except OSError:                         # e.g. distcheck's tree
            cls.artifacts = tempfile.mkdtemp(prefix="shardlocal-artifacts.")

    @classmethod
    def tearDownClass(cls):
        stop_temp_server(cls.dir, cls.proc)

    def post(self, path, body):
        status, data = self.raw.admin(path, body)
        self.assertEqual(status, 200, data)
        return data

    def get(self, path):
        return self.post(path, None)

    def hot_key_run(self, table):
        """10 RCU / 10 WCU (2 partitions of 10 WCU/s at this scale, no
        burst above the ceiling): 20 s of one key offered 15 writes a
        second (10 served, 5 throttled), UpdateTable to 25 WCU (4
        partitions), 5 s more."""
        now = self.post("/shardlocal/clock", {"advance_ms": 0})["now_ms"]
        self.post("/shardlocal/clock", {"set_ms": (now // 1000 + 1) * 1000})
        self.c.create_table(
            TableName=table,
            AttributeDefinitions=[{"AttributeName": "pk",
                                   "AttributeType": "S"}],
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
            ProvisionedThroughput={"ReadCapacityUnits": 10,
                                   "WriteCapacityUnits": 10},
            Tags=[{"Key": "shardlocal:partition-burst-seconds",
                   "Value": "1"}])
        for sec in range(25):
            if sec == 20:
                self.c.update_table(TableName=table, ProvisionedThroughput={
                    "ReadCapacityUnits": 10, "WriteCapacityUnits": 25})
            for _ in range(15):
                try:
                    self.c.put_item(TableName=table,
                                    Item={"pk": {"S": "hot"}})
                except ClientError as e:
                    self.assertEqual(e.response["Error"]["Code"],
                                     "ProvisionedThroughputExceededException")
            self.post("/shardlocal/clock", {"advance_ms": 1000})

    def test_charts_render_the_history(self):
        t = "live_hot"
        self.hot_key_run(t)
        hist = self.get("/shardlocal/tables/%s/history?seconds=120" % t)
        sums = {p["partition"]: (sum(x["consumed_wcu"] for x in p["seconds"]),
                                 sum(x["write_throttles"]
                                     for x in p["seconds"]))
                for p in hist["partitions"]}
        hot = max(sums, key=lambda p: sums[p][0])
        self.assertEqual(sum(x["consumed_wcu"]
                             for x in hist["table_seconds"]), 250)
        self.assertEqual(sum(x["write_throttles"]
                             for x in hist["table_seconds"]), 125)

        prof = tempfile.mkdtemp(prefix="shardlocal-chromium.")
        log = open(os.path.join(self.dir, "chromium.log"), "wb")
        b = DevTools(CHROMIUM, prof, log)
        try:
            b.open_page()
            b.viewport(1400, 1800, 1, False)
            b.call("Page.navigate", {"url": self.url +
                                     "/shardlocal/ui?table=" + t})
            b.wait("document.body && document.body.dataset.renders >= 2 && "
                   "document.querySelectorAll('canvas.chart').length")
            charts = b.eval(CHARTS_JS)
            b.screenshot(os.path.join(self.artifacts,
                                      "live-view-desktop.png"))
            by = {c["id"] or "p" + c["data"]["partition"]: c for c in charts}
            self.assertEqual(len(charts), 1 + 4)     # the table, 4 parts

            # The table's chart: every second of the run, 250 WCU and 125
            # throttles in all, the capacity raised to 25, and the split
            # and the UpdateTable marked (the tag at CreateTable too).
            tc = by["tchart"]["data"]
            self.assertEqual(int(tc["samples"]), 25)
            self.assertEqual(float(tc["consumedSum"]), 250)
            self.assertEqual(float(tc["consumedMax"]), 10)
            self.assertEqual(float(tc["throttles"]), 125)
            self.assertEqual(float(tc["capacityMax"]), 25)
            self.assertEqual(int(tc["events"]), 3)
            self.assertGreater(by["tchart"]["ink"]["used"], 2000)
            self.assertGreater(by["tchart"]["ink"]["thr"], 500)

            # Each partition's chart holds what the history says; the hot
            # one is inked with consumption and throttles, an idle one is
            # not (its line lies on the axis).
            for p, (used, thr) in sums.items():
                d = by["p%d" % p]["data"]
                self.assertAlmostEqual(float(d["consumedSum"]), used, 6)
                self.assertEqual(float(d["throttles"]), thr)
                self.assertEqual(int(d["samples"]), 25)
                self.assertEqual(int(d["events"]), 1)     # the split
            hot_ink = by["p%d" % hot]["ink"]
            self.assertGreater(hot_ink["used"], 1000)
            self.assertGreater(hot_ink["thr"], 300)
            self.assertGreater(hot_ink["bank"], 100)
            idle = [p for p in sums if sums[p] == (0, 0)]
            self.assertTrue(idle, sums)
            for p in idle:
                ink = by["p%d" % p]["ink"]
                self.assertEqual((ink["used"], ink["thr"]), (0, 0))
            # the hot partition's card is marked, its title says so
            title = b.eval("document.querySelector('#pc%d h3').textContent"
                           % hot)
            self.assertIn("5 throttles/s", title)
            self.assertEqual(b.eval("document.querySelector('#pc%d')"
                                    ".className" % hot), "pcard hot")
            # large type for a projector
            self.assertGreaterEqual(b.eval(
                "parseFloat(getComputedStyle(document.body).fontSize)"), 17)

            # Reads: the same charts, the read series (none here).
            n = b.eval("+document.body.dataset.renders")
            b.eval("document.getElementById('opr').click()")
            b.wait("+document.body.dataset.renders > %d" % n)
            rd = b.eval("document.getElementById('tchart').dataset."
                        "consumedSum")
            self.assertEqual(float(rd), 0)
            self.assertIn("op=read", b.eval("location.search"))
            b.eval("document.getElementById('opw').click()")

            # A phone: one column, nothing wider than the screen.
            n = b.eval("+document.body.dataset.renders")
            b.viewport(390, 844, 2, True)
            b.wait("+document.body.dataset.renders > %d" % (n + 1))
            self.assertLessEqual(
                b.eval("document.documentElement.scrollWidth"),
                b.eval("window.innerWidth"))
            widths = b.eval("[...document.querySelectorAll('.pcard')]"
                            ".map(e => e.getBoundingClientRect().width)")
            self.assertTrue(all(w > 300 for w in widths), widths)
            b.screenshot(os.path.join(self.artifacts, "live-view-phone.png"))
        finally:
            b.close()
            log.close()
            shutil.rmtree(prof, ignore_errors=True)
        print("\n  screenshots: %s/live-view-{desktop,phone}.png"
              % self.artifacts, end=" ")


if __name__ == "__main__":
    unittest.main()
