# SPDX-License-Identifier: MIT
# cli_signatures.py - the AWS CLI v1 and v2 against a server with --auth
# signature: a good key works; each signature error with its message (no
# signature, an unknown key, a wrong secret, a session token, a clock 20
# minutes off under faketime); two accounts with a table of the same name,
# each seeing its own, another's ARN denied. Sources of the messages:
# test_signatures.py and test_accounts.py.
import json
import os
import re
import shutil
import subprocess
import unittest
import uuid

from cli_test import CLIS
from e2e_common import (BIN, KEYS, REGION, sanitizer_reports,
                        start_signed_server, stop_temp_server)

ALICE, BOB, DEFAULT = KEYS


class CliSignatures:
    path = None
    major = None

    @classmethod
    def setUpClass(cls):
        cls.tmp, cls.proc, cls.url = start_signed_server("sl-clisig-")
        cls.table = "cli_sig_%s" % uuid.uuid4().hex[:8]

    @classmethod
    def tearDownClass(cls):
        reports = sanitizer_reports(cls.tmp)
        stop_temp_server(cls.tmp, cls.proc)
        assert not reports, reports

    def aws(self, key, *args, secret=None, token=None, prefix=(),
            check=True):
        env = dict(os.environ, AWS_PAGER="", AWS_DEFAULT_OUTPUT="json",
                   AWS_ACCESS_KEY_ID=key[0],
                   AWS_SECRET_ACCESS_KEY=secret or key[1],
                   AWS_DEFAULT_REGION=REGION, AWS_MAX_ATTEMPTS="1",
                   AWS_RETRY_MODE="standard")
        env.pop("AWS_SESSION_TOKEN", None)
        if token is not None:
            env["AWS_SESSION_TOKEN"] = token
        cmd = list(prefix) + [self.path, "dynamodb"] + list(args) + [
            "--endpoint-url", self.url]
        p = subprocess.run(cmd, capture_output=True, text=True, env=env,
                           timeout=120)
        if check:
            self.assertEqual(p.returncode, 0, "%s\n%s" % (cmd, p.stderr))
        return p

    def assertCliError(self, p, code, op, message):
        self.assertEqual(p.returncode, 255 if self.major == 1 else 254,
                         p.stderr)
        line = "An error occurred (%s) when calling the %s operation" % (
            code, op)
        retries = r"( \(reached max retries: \d+\))?: "
        self.assertRegex(p.stderr.strip(),
                         re.escape(line) + retries + message + "$")

    def test_signature_errors(self):
        self.assertIn("TableNames",
                      json.loads(self.aws(ALICE, "list-tables").stdout))
        p = self.aws(ALICE, "list-tables", "--no-sign-request", check=False)
        self.assertCliError(p, "MissingAuthenticationTokenException",
                            "ListTables",
                            re.escape("Request is missing Authentication "
                                      "Token"))
        p = self.aws(("AKIDNOBODY", "x"), "list-tables", check=False)
        self.assertCliError(p, "UnrecognizedClientException", "ListTables",
                            re.escape("The security token included in the "
                                      "request is invalid."))
        p = self.aws(ALICE, "list-tables", secret="wrong", check=False)
        self.assertCliError(p, "InvalidSignatureException", "ListTables",
                            re.escape(
                                "The request signature we calculated does "
                                "not match the signature you provided. Check "
                                "your AWS Secret Access Key and signing "
                                "method. Consult the service documentation "
                                "for details."))
        p = self.aws(ALICE, "list-tables", token="FwoGZXIvYXdzEXAMPLE",
                     check=False)
        self.assertCliError(p, "UnrecognizedClientException", "ListTables",
                            re.escape("The security token included in the "
                                      "request is invalid"))

    @unittest.skipIf(shutil.which("faketime") is None,
                     "no faketime (docker/install-deps.sh installs it)")
    def test_clock_off(self):
        stamp = r"\d{8}T\d{6}Z"
        p = self.aws(ALICE, "list-tables", prefix=("faketime", "-f", "-20m"),
                     check=False)
        self.assertCliError(p, "InvalidSignatureException", "ListTables",
                            "Signature expired: %s is now earlier than %s "
                            r"\(%s - 15 min\.\)" % (stamp, stamp, stamp))
        p = self.aws(ALICE, "list-tables", prefix=("faketime", "-f", "+20m"),
                     check=False)
        self.assertCliError(p, "InvalidSignatureException", "ListTables",
                            "Signature not yet current: %s is still later "
                            r"than %s \(%s \+ 15 min\.\)" % (stamp, stamp,
                                                             stamp))

    def test_accounts(self):
        t = self.table
        for key in (ALICE, BOB):
            r = json.loads(self.aws(
                key, "create-table", "--table-name", t,
                "--attribute-definitions", "AttributeName=pk,AttributeType=S",
                "--key-schema", "AttributeName=pk,KeyType=HASH",
                "--billing-mode", "PAY_PER_REQUEST").stdout)
            self.assertEqual(r["TableDescription"]["TableArn"],
                             "arn:aws:dynamodb:%s:%s:table/%s"
                             % (REGION, key[2], t))
        self.aws(ALICE, "put-item", "--table-name", t, "--item",
                 json.dumps({"pk": {"S": "alice's"}}))
        for key, items in ((ALICE, [{"pk": {"S": "alice's"}}]), (BOB, [])):
            self.assertEqual(json.loads(self.aws(
                key, "scan", "--table-name", t).stdout)["Items"], items)
        p = self.aws(DEFAULT, "describe-table", "--table-name", t,
                     check=False)
        self.assertCliError(p, "ResourceNotFoundException", "DescribeTable",
                            re.escape("Requested resource not found: Table: "
                                      "%s not found" % t))
        theirs = "arn:aws:dynamodb:%s:%s:table/%s" % (REGION, ALICE[2], t)
        p = self.aws(BOB, "get-item", "--table-name", theirs, "--key",
                     json.dumps({"pk": {"S": "alice's"}}), check=False)
        self.assertCliError(p, "AccessDeniedException", "GetItem", re.escape(
            "User: arn:aws:iam::%s:root is not authorized to perform: "
            "dynamodb:GetItem on resource: %s because no resource-based "
            "policy allows the dynamodb:GetItem action" % (BOB[2], theirs)))
        for key in (ALICE, BOB):
            self.aws(key, "delete-table", "--table-name", t)


def _make(label, path, major):
    cls = type("CliSignatures" + label.upper(),
               (CliSignatures, unittest.TestCase),
               {"path": path, "major": major})
    cls.__qualname__ = cls.__name__
    return unittest.skipIf(BIN is None, "needs SHARDLOCAL_BIN")(cls)


for _label, _path, _major in CLIS:
    globals()["CliSignatures" + _label.upper()] = _make(_label, _path, _major)

if not CLIS:
    class CliMissing(unittest.TestCase):
        @unittest.skip("no AWS CLI installed")
        def test_cli(self):
            pass


if __name__ == "__main__":
    unittest.main()
