# SPDX-License-Identifier: MIT
# test_lifecycle.py - server flags seen from a client, each test on its own
# server: --status-delay-ms (CREATING/DELETING/UPDATING), --in-memory,
# --account-id in ARNs.
import os
import time
import unittest

from botocore.exceptions import ClientError

from e2e_common import BIN, OwnServerCase, make_private_client
from e2e_common import start_private_server

DELAY_MS = 600


def create(c, name, **extra):
    args = dict(TableName=name, BillingMode="PAY_PER_REQUEST",
                AttributeDefinitions=[{"AttributeName": "pk",
                                       "AttributeType": "S"}],
                KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}])
    args.update(extra)
    return c.create_table(**args)["TableDescription"]


def status(c, name):
    try:
        return c.describe_table(TableName=name)["Table"]["TableStatus"]
    except ClientError as e:
        if e.response["Error"]["Code"] == "ResourceNotFoundException":
            return None
        raise


def wait_status(c, name, want, timeout=10.0):
    deadline = time.monotonic() + timeout
    while status(c, name) != want:
        if time.monotonic() > deadline:
            raise AssertionError("%s never reached %s" % (name, want))
        time.sleep(0.02)


class LifecycleTest(OwnServerCase):
    PREFIX = "shardlocal-life."

    def start(self, *flags, data=True):
        data_dir = None
        if data:
            data_dir = os.path.join(self.dir, "data")
            os.makedirs(data_dir, exist_ok=True)
        self.proc, url = start_private_server(data_dir, self.port_file,
                                              *flags)
        return make_private_client(url)

    def stop(self):
        self.proc.terminate()
        self.proc.wait(10)

    def test_status_delay(self):
        c = self.start("--status-delay-ms", str(DELAY_MS))
        t0 = time.monotonic()
        td = create(c, "slow")
        self.assertEqual(td["TableStatus"], "CREATING")
        self.assertEqual(status(c, "slow"), "CREATING")
        # Data operations on a CREATING table: ResourceNotFoundException.
        with self.assertRaises(ClientError) as cm:
            c.put_item(TableName="slow", Item={"pk": {"S": "a"}})
        self.assertEqual(cm.exception.response["Error"]["Code"],
                         "ResourceNotFoundException")
        wait_status(c, "slow", "ACTIVE")
        self.assertGreaterEqual(time.monotonic() - t0, DELAY_MS / 1000 * 0.8)
        c.put_item(TableName="slow", Item={"pk": {"S": "a"}})

        r = c.update_table(TableName="slow", BillingMode="PROVISIONED",
                           ProvisionedThroughput={"ReadCapacityUnits": 2,
                                                  "WriteCapacityUnits": 2})
        self.assertEqual(r["TableDescription"]["TableStatus"], "UPDATING")
        c.get_item(TableName="slow", Key={"pk": {"S": "a"}})  # still usable
        wait_status(c, "slow", "ACTIVE")

        r = c.delete_table(TableName="slow")
        self.assertEqual(r["TableDescription"]["TableStatus"], "DELETING")
        wait_status(c, "slow", None)

    def test_status_delay_zero_is_active_at_once(self):
        c = self.start("--status-delay-ms", "0")
        create(c, "quick")
        self.assertEqual(status(c, "quick"), "ACTIVE")
        c.put_item(TableName="quick", Item={"pk": {"S": "a"}})

    def test_in_memory_forgets_on_restart(self):
        c = self.start("--in-memory", data=False)
        create(c, "mem")
        wait_status(c, "mem", "ACTIVE")
        c.put_item(TableName="mem", Item={"pk": {"S": "a"}})
        self.assertEqual(c.scan(TableName="mem")["Count"], 1)
        self.stop()
        c = self.start("--in-memory", data=False)
        self.assertIsNone(status(c, "mem"))

    def test_data_dir_persists_tables_and_items(self):
        c = self.start()
        create(c, "disk")
        wait_status(c, "disk", "ACTIVE")
        c.put_item(TableName="disk", Item={"pk": {"S": "a"},
                                           "n": {"N": "1.50"}})
        arn = c.describe_table(TableName="disk")["Table"]["TableArn"]
        self.stop()
        c = self.start()
        t = c.describe_table(TableName="disk")["Table"]
        self.assertEqual(t["TableStatus"], "ACTIVE")
        self.assertEqual(t["TableArn"], arn)
        r = c.get_item(TableName="disk", Key={"pk": {"S": "a"}},
                       ConsistentRead=True)
        self.assertEqual(r["Item"], {"pk": {"S": "a"}, "n": {"N": "1.5"}})

    def test_account_id_in_arn(self):
        c = self.start("--account-id", "123456789012")
        create(c, "acct")
        wait_status(c, "acct", "ACTIVE")
        t = c.describe_table(TableName="acct")["Table"]
        self.assertEqual(t["TableArn"],
                         "arn:aws:dynamodb:us-east-1:123456789012:table/acct")

    def test_bad_flag_exits_2(self):
        import subprocess
        p = subprocess.run([BIN, "--no-such-flag"], capture_output=True,
                           text=True, timeout=10)
        self.assertEqual(p.returncode, 2)
        self.assertIn("no-such-flag", p.stderr)


if __name__ == "__main__":
    unittest.main()
