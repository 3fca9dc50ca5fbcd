# SPDX-License-Identifier: MIT
# test_pytest_plugin.py - the pytest plugin in clients/python, as a user
# installs it: a venv on Debian's python3 (--system-site-packages, so
# Debian's pytest, boto3 and setuptools serve), `pip install
# --no-build-isolation --no-index`, then pytest runs small test projects
# that use the `shardlocal` fixture: a server started from SHARDLOCAL_BIN
# or PATH, the virtual clock, fault injection, the partition and hot-key
# views, the reset between tests, the scope setting, and a server that is
# already running. About 10 s.
import os
import re
import shutil
import subprocess
import tempfile
import textwrap
import unittest

from e2e_common import (BIN, create_table, make_private_client,
                        start_temp_server, stop_temp_server)

HERE = os.path.dirname(os.path.abspath(__file__))
PLUGIN_SRC = os.path.join(HERE, "..", "..", "clients", "python")
README = os.path.join(HERE, "..", "..", "README.md")


def readme_example(lang):
    """The first ```lang block of README.md's "In your tests" section."""
    with open(README, encoding="utf-8") as f:
        text = f.read()
    section = text[text.index("## In your tests"):]
    m = re.search(r"```%s\n(.*?)```" % lang, section, re.DOTALL)
    return m.group(1)
DEBIAN_PY = "/usr/bin/python3"


def debian_python_ready():
    """Debian's python3 with venv, setuptools, wheel, pytest and boto3."""
    if not os.access(DEBIAN_PY, os.X_OK):
        return False
    return subprocess.run(
        [DEBIAN_PY, "-c", "import venv, ensurepip, setuptools, wheel, "
         "pytest, boto3"], stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL).returncode == 0



# The fixture's own server: in memory, virtual clock. Expected DynamoDB
# behaviour is named beside each assertion.
TEST_BASICS = textwrap.dedent('''
    import pytest
    from botocore.exceptions import ClientError

    def make(ddb, name, **kw):
        args = dict(TableName=name,
                    AttributeDefinitions=[{"AttributeName": "pk",
                                           "AttributeType": "S"}],
                    KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}])
        args.update(kw or {"BillingMode": "PAY_PER_REQUEST"})
        ddb.create_table(**args)

    def test_endpoint_and_client(shardlocal):
        assert shardlocal.endpoint.startswith("http://127.0.0.1:")
        ddb = shardlocal.client()
        assert ddb.list_tables()["TableNames"] == []
        make(ddb, "first")
        ddb.put_item(TableName="first", Item={"pk": {"S": "a"}})
        assert shardlocal.info()["clock"]["mode"] == "virtual"

    def test_reset_deleted_the_last_tests_tables(shardlocal):
        ddb = shardlocal.client()
        assert ddb.list_tables()["TableNames"] == []
        make(ddb, "first")          # the same name again: it was deleted

    def test_fault_then_advance(shardlocal):
        ddb = shardlocal.client()
        # Provisioned 1 WCU with no burst bank (per-table tag): one write
        # per second. DynamoDB: ProvisionedThroughputExceededException.
        make(ddb, "slow", ProvisionedThroughput={"ReadCapacityUnits": 1,
                                                 "WriteCapacityUnits": 1},
             Tags=[{"Key": "shardlocal:burst-seconds", "Value": "0"}])
        put = lambda: ddb.put_item(TableName="slow",
                                   Item={"pk": {"S": "k"}})
        put()
        with pytest.raises(ClientError) as e:
            put()
        assert e.value.response["Error"]["Code"] == \\
            "ProvisionedThroughputExceededException"
        before = shardlocal.now_ms()
        assert shardlocal.advance(1) == before + 1000
        put()                       # a virtual second refilled the bucket
        # Fault injection: the next write of key "k" throttles, then not.
        shardlocal.advance(1)
        shardlocal.fault("slow", "k", op="write", count=1)
        with pytest.raises(ClientError) as e:
            put()
        assert e.value.response["Error"]["Code"] == \\
            "ProvisionedThroughputExceededException"
        put()

    def test_fault_on_demand_and_cause(shardlocal):
        ddb = shardlocal.client()
        make(ddb, "odt")
        shardlocal.fault("odt", "x", count=2, cause="MaxOnDemand")
        for _ in range(2):
            # DynamoDB on demand: ThrottlingException (throttling.md 3)
            with pytest.raises(ClientError) as e:
                ddb.put_item(TableName="odt", Item={"pk": {"S": "x"}})
            assert e.value.response["Error"]["Code"] == "ThrottlingException"
        ddb.put_item(TableName="odt", Item={"pk": {"S": "x"}})

    def test_reset_cleared_faults(shardlocal):
        ddb = shardlocal.client()
        make(ddb, "odt")
        shardlocal.fault("odt", "never", count=1)
        ddb.put_item(TableName="odt", Item={"pk": {"S": "x"}})

    def test_partitions_and_hotkeys(shardlocal):
        ddb = shardlocal.client()
        make(ddb, "hot")            # on demand: 4 partitions
        for i in range(5):
            ddb.put_item(TableName="hot", Item={"pk": {"S": "hk"},
                                                "i": {"N": str(i)}})
        ddb.put_item(TableName="hot", Item={"pk": {"S": "other"}})
        parts = shardlocal.partitions("hot")
        assert len(parts) == 4
        assert sum(p["item_count"] for p in parts) == 2
        assert sum(p["write"]["consumed_total"] for p in parts) == 6
        top = shardlocal.hotkeys("hot", n=1)["consumed_write"]
        assert [(k["key_text"], k["count"]) for k in top] == [("hk", 5)]

    def test_resource(shardlocal):
        t = shardlocal.resource().create_table(
            TableName="res", BillingMode="PAY_PER_REQUEST",
            AttributeDefinitions=[{"AttributeName": "pk",
                                   "AttributeType": "S"}],
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}])
        t.put_item(Item={"pk": "a", "n": 1})
        assert t.get_item(Key={"pk": "a"})["Item"]["n"] == 1
''')

# With --shardlocal-scope module the second test still sees the first's
# table; the next module starts clean.
TEST_SCOPE_A = textwrap.dedent('''
    def test_one(shardlocal):
        ddb = shardlocal.client()
        ddb.create_table(TableName="kept", BillingMode="PAY_PER_REQUEST",
                         AttributeDefinitions=[{"AttributeName": "pk",
                                                "AttributeType": "S"}],
                         KeySchema=[{"AttributeName": "pk",
                                     "KeyType": "HASH"}])

    def test_two(shardlocal):
        assert shardlocal.client().list_tables()["TableNames"] == ["kept"]
''')
TEST_SCOPE_B = textwrap.dedent('''
    def test_three(shardlocal):
        assert shardlocal.client().list_tables()["TableNames"] == []
''')

# Against a running server: its own tables stay, the test's go.
TEST_EXTERNAL = textwrap.dedent('''
    import os

    def test_uses_the_running_server(shardlocal):
        assert shardlocal.endpoint == os.environ["EXPECT_ENDPOINT"]
        ddb = shardlocal.client()
        assert "preexisting" in ddb.list_tables()["TableNames"]
        ddb.create_table(TableName="from_test",
                         BillingMode="PAY_PER_REQUEST",
                         AttributeDefinitions=[{"AttributeName": "pk",
                                                "AttributeType": "S"}],
                         KeySchema=[{"AttributeName": "pk",
                                     "KeyType": "HASH"}])
''')


@unittest.skipUnless(BIN, "needs SHARDLOCAL_BIN (a server this test owns)")
@unittest.skipUnless(debian_python_ready(),
                     "needs Debian's python3 with python3-venv, "
                     "python3-setuptools, python3-wheel, python3-pytest and "
                     "python3-boto3")
class PytestPluginTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="shardlocal-pytest.")
        venv = os.path.join(cls.dir, "venv")
        # Debian's own pip, when installed, serves the venv too (faster
        # than ensurepip's copy); python3-venv alone brings ensurepip's.
        has_pip = subprocess.run([DEBIAN_PY, "-c", "import pip"],
                                 stderr=subprocess.DEVNULL).returncode == 0
        subprocess.run([DEBIAN_PY, "-m", "venv", "--system-site-packages"] +
                       (["--without-pip"] if has_pip else []) + [venv],
                       check=True)
        # A copy: pip builds in the source folder, which may be read-only
        # (make distcheck) and must not collect build/ and *.egg-info.
        src = os.path.join(cls.dir, "src")
        shutil.copytree(PLUGIN_SRC, src, ignore=shutil.ignore_patterns(
            "build", "*.egg-info", "__pycache__"))
        cls.python = os.path.join(venv, "bin", "python")
        p = subprocess.run([cls.python, "-m", "pip", "install",
                            "--no-build-isolation", "--no-index", src],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           universal_newlines=True)
        if p.returncode != 0:
            shutil.rmtree(cls.dir, ignore_errors=True)
            raise AssertionError("pip install failed:\n" + p.stdout)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, ignore_errors=True)

    def project(self, files, ini=""):
        d = tempfile.mkdtemp(dir=self.dir)
        for name, text in files.items():
            with open(os.path.join(d, name), "w") as f:
                f.write(text)
        with open(os.path.join(d, "pytest.ini"), "w") as f:
            f.write("[pytest]\n" + ini)
        return d

    def pytest(self, d, *args, env=None, path=None):
        e = {k: v for k, v in os.environ.items()
             if not k.startswith(("SHARDLOCAL_", "AWS_"))}
        e["PATH"] = path or e.get("PATH", "/usr/bin:/bin")
        e.update(env or {})
        p = subprocess.run([self.python, "-m", "pytest", "-p",
                            "no:cacheprovider", "-v"] + list(args), cwd=d,
                           env=e, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, universal_newlines=True,
                           timeout=120)
        return p

    def outcome(self, p):
        """(passed, failed + errors) from pytest's closing line."""
        line = p.stdout.strip().splitlines()[-1] if p.stdout.strip() else ""
        n = {k: int(v) for v, k in re.findall(
            r"(\d+) (passed|failed|error|errors)", line)}
        return n.get("passed", 0), n.get("failed", 0) + n.get("error", 0) + \
            n.get("errors", 0)

    def test_fixture_with_its_own_server(self):
        d = self.project({"test_basics.py": TEST_BASICS})
        p = self.pytest(d, env={"SHARDLOCAL_BIN": BIN})
        self.assertEqual(self.outcome(p), (7, 0), p.stdout)
        self.assertIn("shardlocal: starting " + BIN, p.stdout)

    def test_readme_example(self):
        # README's ten lines, as they are: they must pass.
        d = self.project({"test_readme.py": readme_example("python")})
        p = self.pytest(d, env={"SHARDLOCAL_BIN": BIN})
        self.assertEqual(self.outcome(p), (1, 0), p.stdout)

    def test_binary_from_path(self):
        d = self.project({"test_basics.py": TEST_BASICS})
        bindir = os.path.join(self.dir, "bin")
        os.makedirs(bindir, exist_ok=True)
        link = os.path.join(bindir, "shardlocal")
        if not os.path.exists(link):
            os.symlink(os.path.abspath(BIN), link)
        p = self.pytest(d, "-k", "endpoint or reset_deleted",
                        path=bindir + ":/usr/bin:/bin")
        self.assertEqual(self.outcome(p), (2, 0), p.stdout)

    def test_scope_module_keeps_tables_within_a_module(self):
        d = self.project({"test_a.py": TEST_SCOPE_A,
                          "test_b.py": TEST_SCOPE_B},
                         ini="shardlocal_scope = module\n")
        p = self.pytest(d, env={"SHARDLOCAL_BIN": BIN})
        self.assertEqual(self.outcome(p), (3, 0), p.stdout)
        # The same project with the default scope: test_two sees nothing.
        p = self.pytest(d, "--shardlocal-scope", "function",
                        env={"SHARDLOCAL_BIN": BIN})
        self.assertEqual(self.outcome(p), (2, 1), p.stdout)

    def test_server_args_from_ini(self):
        d = self.project({"test_args.py": textwrap.dedent('''
            def test_scale(shardlocal):
                th = shardlocal.info()["throttle"]
                assert th["scale"] == 0.01
                assert th["partition_wcu"] == 10
        ''')}, ini="shardlocal_args = --throttle-scale 0.01\n")
        p = self.pytest(d, env={"SHARDLOCAL_BIN": BIN})
        self.assertEqual(self.outcome(p), (1, 0), p.stdout)

    def test_already_running_server(self):
        tmp, proc, url = start_temp_server("shardlocal-pytest-ext.",
                                           "--in-memory")
        try:
            c = make_private_client(url)
            create_table(c, "preexisting")
            d = self.project({"test_ext.py": TEST_EXTERNAL})
            # No binary anywhere: the plugin must not try to start one.
            p = self.pytest(d, env={"SHARDLOCAL_ENDPOINT": url,
                                    "EXPECT_ENDPOINT": url},
                            path="/usr/bin:/bin")
            self.assertEqual(self.outcome(p), (1, 0), p.stdout)
            self.assertIn("shardlocal: using " + url, p.stdout)
            # Its table stayed, the test's was deleted by the reset.
            self.assertEqual(c.list_tables()["TableNames"], ["preexisting"])
            p = self.pytest(d, "--shardlocal-endpoint", url,
                            env={"EXPECT_ENDPOINT": url},
                            path="/usr/bin:/bin")
            self.assertEqual(self.outcome(p), (1, 0), p.stdout)
        finally:
            stop_temp_server(tmp, proc)

    def test_no_binary_is_a_clear_error(self):
        d = self.project({"test_basics.py": TEST_BASICS})
        p = self.pytest(d, "-k", "endpoint", path="/usr/bin:/bin")
        self.assertEqual(self.outcome(p), (0, 1), p.stdout)
        self.assertIn("shardlocal not found: put it on PATH, set "
                      "SHARDLOCAL_BIN", p.stdout)
        # A binary that does not start: its own message is shown.
        p = self.pytest(d, "-k", "endpoint",
                        env={"SHARDLOCAL_BIN": BIN},
                        path="/usr/bin:/bin")
        self.assertEqual(self.outcome(p), (1, 0), p.stdout)
        d2 = self.project({"test_basics.py": TEST_BASICS},
                          ini="shardlocal_args = --bogus-flag\n")
        p = self.pytest(d2, "-k", "endpoint", env={"SHARDLOCAL_BIN": BIN})
        self.assertEqual(self.outcome(p), (0, 1), p.stdout)
        self.assertIn("unknown option '--bogus-flag'", p.stdout)


if __name__ == "__main__":
    unittest.main()
