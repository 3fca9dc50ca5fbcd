# SPDX-License-Identifier: MIT
# test_node_helper.py - the Node helper in clients/node (shardlocal-node)
# under the three runners users have: node:test (start() and stop() in
# before/after), Jest and Vitest (global-setup.js / global-teardown.js).
# The test project is tests/e2e/node-helper/ (its package-lock.json pins
# Jest, Vitest and the AWS SDK); npm install runs once, then each runner
# runs its test files against a server the helper starts from
# SHARDLOCAL_BIN, and the server must be gone when the runner exits. About
# 15 s once installed; skipped when Node or the npm registry is missing.
import os
import re
import shutil
import subprocess
import tempfile
import unittest
import urllib.request

from e2e_common import BIN

HERE = os.path.dirname(os.path.abspath(__file__))
PROJECT = os.path.join(HERE, "node-helper")
HELPER = os.path.join(HERE, "..", "..", "clients", "node")
README = os.path.join(HERE, "..", "..", "README.md")
NEEDED = ("jest", "vitest", "@aws-sdk/client-dynamodb", "shardlocal-node")


def have_node():
    return shutil.which("node") is not None and shutil.which("npm") is not None


@unittest.skipUnless(BIN, "needs SHARDLOCAL_BIN (a server this test owns)")
@unittest.skipUnless(have_node(), "needs node and npm")
class NodeHelperTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="shardlocal-node-e2e.")
        cls.dir = PROJECT
        if not os.access(PROJECT, os.W_OK):
            # A read-only tree (make distcheck): the project and the helper
            # keep their relative places in a copy.
            cls.dir = os.path.join(cls.tmp, "tests", "e2e", "node-helper")
            shutil.copytree(PROJECT, cls.dir, ignore=shutil.ignore_patterns(
                "node_modules"))
            shutil.copytree(HELPER, os.path.join(cls.tmp, "clients", "node"))
        if not all(os.path.isdir(os.path.join(cls.dir, "node_modules", n))
                   for n in NEEDED):
            p = subprocess.run(["npm", "install", "--no-audit", "--no-fund"],
                               cwd=cls.dir, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT,
                               universal_newlines=True, timeout=240)
            if p.returncode != 0:
                shutil.rmtree(cls.tmp, ignore_errors=True)
                raise unittest.SkipTest("npm install failed (no registry?):\n"
                                        + p.stdout[-2000:])

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def run_runner(self, *argv):
        """Run argv in the project; returns (CompletedProcess, the
        endpoint the tests wrote to ENDPOINT_FILE or None)."""
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("SHARDLOCAL_", "AWS_"))}
        env.update(SHARDLOCAL_BIN=os.path.abspath(BIN), NO_COLOR="1",
                   CI="true", ENDPOINT_FILE=os.path.join(self.tmp, "ep"))
        if os.path.exists(env["ENDPOINT_FILE"]):
            os.unlink(env["ENDPOINT_FILE"])
        p = subprocess.run(list(argv), cwd=self.dir, env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           universal_newlines=True, timeout=180)
        ep = None
        if os.path.exists(env["ENDPOINT_FILE"]):
            with open(env["ENDPOINT_FILE"]) as f:
                ep = f.read().strip()
        return p, ep

    def assertGone(self, endpoint):
        """Nothing answers at endpoint: the teardown stopped the server."""
        with self.assertRaises(OSError):
            urllib.request.urlopen(endpoint + "/", timeout=2)

    def test_node_test(self):
        p, _ = self.run_runner("node", "--test", "--test-reporter=tap",
                               "node/")
        self.assertEqual(p.returncode, 0, p.stdout)
        self.assertIn("# pass 4", p.stdout)
        self.assertIn("# fail 0", p.stdout)

    def test_readme_example(self):
        # README's example, as it is, under node:test in the project (so
        # its imports resolve); removed afterwards.
        with open(README, encoding="utf-8") as f:
            text = f.read()
        section = text[text.index("## In your tests"):]
        code = re.search(r"```js\n(.*?)```", section, re.DOTALL).group(1)
        path = os.path.join(self.dir, "node", "readme-example.test.mjs")
        with open(path, "w") as f:
            f.write(code)
        try:
            p, _ = self.run_runner("node", "--test", "--test-reporter=tap",
                                   path)
        finally:
            os.unlink(path)
        self.assertEqual(p.returncode, 0, p.stdout)
        self.assertIn("# pass 1", p.stdout)

    def test_jest_global_setup(self):
        p, ep = self.run_runner("node", os.path.join(
            "node_modules", "jest", "bin", "jest.js"), "--ci")
        self.assertEqual(p.returncode, 0, p.stdout)
        self.assertRegex(p.stdout, r"Tests:\s+1 passed, 1 total")
        self.assertIsNotNone(ep, p.stdout)
        self.assertGone(ep)

    def test_vitest_global_setup(self):
        p, ep = self.run_runner("node", os.path.join(
            "node_modules", "vitest", "vitest.mjs"), "run")
        self.assertEqual(p.returncode, 0, p.stdout)
        self.assertRegex(p.stdout, r"Tests\s+1 passed \(1\)")
        self.assertIsNotNone(ep, p.stdout)
        self.assertGone(ep)


if __name__ == "__main__":
    unittest.main()
