# SPDX-License-Identifier: MIT
# test_txn_conflict.py - DynamoDB's transaction conflict handling: while a
# TransactWriteItems is in flight, a PutItem/UpdateItem/DeleteItem on one of
# its items fails with TransactionConflictException, an overlapping
# TransactWriteItems or TransactGetItems is cancelled with reason
# TransactionConflict, and GetItem/Query/Scan are never blocked.
#
# Conflicts are made deterministic with shardlocal's test hook: POST
# /shardlocal/faults {"table": T, "pause_ms": N} makes the next transaction
# on T sleep N ms after registering its items and before its commit.
import http.client
import json
import threading
import time
import unittest
import urllib.parse

from botocore.exceptions import ClientError

from e2e_common import ENDPOINT, ON_DYNALITE, E2ECase, client

TCE = "TransactionCanceledException"
ONGOING = "Transaction is ongoing for the item"
PAUSE_MS = 2000


def S(v):
    return {"S": v}


def N(v):
    return {"N": str(v)}


def admin(body):
    """POST /shardlocal/faults; returns (status, parsed body)."""
    u = urllib.parse.urlsplit(ENDPOINT)
    conn = http.client.HTTPConnection(u.hostname, u.port or 80, timeout=10)
    try:
        conn.request("POST", "/shardlocal/faults",
                     body=json.dumps(body).encode(),
                     headers={"Content-Type": "application/json"})
        r = conn.getresponse()
        return r.status, json.loads(r.read() or b"{}")
    finally:
        conn.close()


def raw_call(target, body):
    """A DynamoDB call without botocore: (status, parsed body)."""
    u = urllib.parse.urlsplit(ENDPOINT)
    conn = http.client.HTTPConnection(u.hostname, u.port or 80, timeout=10)
    try:
        conn.request("POST", "/", body=json.dumps(body).encode(), headers={
            "Content-Type": "application/x-amz-json-1.0",
            "X-Amz-Target": "DynamoDB_20120810." + target,
            "Authorization": "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/"
            "20250101/us-east-1/dynamodb/aws4_request, "
            "SignedHeaders=host, Signature=00"})
        r = conn.getresponse()
        return r.status, json.loads(r.read() or b"{}")
    finally:
        conn.close()


@unittest.skipIf(ENDPOINT is None or ON_DYNALITE,
                 "needs shardlocal's transaction pause hook")
class TxnConflictCase(E2ECase):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.t = cls.make_table("txc")
        cls.u = cls.make_table("txc2", hash_key=("pk", "S"),
                               range_key=("sk", "N"))
        cls.other = cls.make_table("txc3")

    def setUp(self):
        admin({"pause_ms": 0, "clear": True})
        self.c.put_item(TableName=self.t, Item={"pk": S("a"), "v": N(1)})
        self.c.put_item(TableName=self.t, Item={"pk": S("b"), "v": N(1)})
        self.c.put_item(TableName=self.u,
                        Item={"pk": S("a"), "sk": N(1), "v": N(1)})

    def tearDown(self):
        admin({"pause_ms": 0, "clear": True})

    # --- helpers ----------------------------------------------------------

    def paused_txn(self, items, table=None):
        """Start TransactWriteItems(items) in a thread, paused inside the
        server (items registered) for PAUSE_MS; returns (thread, result)
        once the server reports the pause began."""
        # On a loaded machine the transaction has (rarely) been seen to
        # finish without the pause being observed; the scenario is then
        # reset (setUp restores the items and clears the rules) and tried
        # again, so only a pause that never works fails the test.
        for attempt in range(3):
            st, _ = admin({"table": table or self.t, "pause_ms": PAUSE_MS})
            self.assertEqual(st, 200)
            result = {}

            def run(result=result):
                try:
                    result["resp"] = client().transact_write_items(
                        TransactItems=items)
                except ClientError as e:
                    result["error"] = e.response

            th = threading.Thread(target=run)
            th.start()
            deadline = time.time() + 10
            while True:
                _, body = admin({"pause_ms": 0})
                rules = body.get("pauses", [])
                if rules and rules[0]["paused"] == 1:
                    return th, result
                if time.time() > deadline or not th.is_alive():
                    break
                time.sleep(0.02)
            th.join()
            self.setUp()
        self.fail("the transaction never paused: %r" % (result,))

    def still_paused(self):
        _, body = admin({"pause_ms": 0})
        rules = body.get("pauses", [])
        return bool(rules) and rules[0]["paused"] == 1

    def finish(self, th, result):
        th.join(30)
        self.assertFalse(th.is_alive())
        self.assertNotIn("error", result, result.get("error"))

    def expect(self, code, fn, **kw):
        """fn(**kw) with a fresh client (a new connection): the ClientError
        response, or None when it succeeded."""
        try:
            getattr(client(), fn)(**kw)
        except ClientError as e:
            self.assertEqual(e.response["Error"]["Code"], code,
                             e.response["Error"])
            return e.response
        if code is not None:
            self.fail("%s succeeded, expected %s" % (fn, code))
        return None

    def require_overlap(self):
        # With a single HTTP worker thread our calls would only run after
        # the paused transaction: nothing to observe then.
        if not self.still_paused():
            self.skipTest("the calls did not overlap the paused transaction")

    # --- tests ------------------------------------------------------------

    def test_single_item_writes_conflict(self):
        th, result = self.paused_txn([
            {"Update": {"TableName": self.t, "Key": {"pk": S("a")},
                        "UpdateExpression": "SET v = :v",
                        "ExpressionAttributeValues": {":v": N(2)}}},
            {"ConditionCheck": {"TableName": self.t, "Key": {"pk": S("b")},
                                "ConditionExpression":
                                    "attribute_exists(pk)"}},
        ])
        try:
            e1 = self.expect("TransactionConflictException", "put_item",
                             TableName=self.t,
                             Item={"pk": S("a"), "v": N(9)})
            e2 = self.expect("TransactionConflictException", "update_item",
                             TableName=self.t, Key={"pk": S("a")},
                             UpdateExpression="SET w = :w",
                             ExpressionAttributeValues={":w": N(1)})
            # the ConditionCheck item is part of the transaction too
            e3 = self.expect("TransactionConflictException", "delete_item",
                             TableName=self.t, Key={"pk": S("b")})
            st, raw = raw_call("PutItem", {"TableName": self.t,
                                           "Item": {"pk": S("b")}})
            # not in the transaction: fine
            self.expect(None, "put_item", TableName=self.t,
                        Item={"pk": S("c"), "v": N(1)})
            # the same key in another table: fine
            self.expect(None, "put_item", TableName=self.other,
                        Item={"pk": S("a")})
            self.require_overlap()
        finally:
            self.finish(th, result)
        for e in (e1, e2, e3):
            self.assertEqual(e["Error"]["Message"], ONGOING)
        self.assertEqual(st, 400)
        self.assertEqual(raw["__type"], "com.amazonaws.dynamodb.v20120810#"
                         "TransactionConflictException")
        self.assertEqual(raw["message"], ONGOING)
        # the rejected writes changed nothing; the transaction committed
        item = self.c.get_item(TableName=self.t, Key={"pk": S("a")},
                               ConsistentRead=True)["Item"]
        self.assertEqual(item, {"pk": S("a"), "v": N(2)})
        item = self.c.get_item(TableName=self.t, Key={"pk": S("b")},
                               ConsistentRead=True)["Item"]
        self.assertEqual(item, {"pk": S("b"), "v": N(1)})
        # and once it ended, the item is free again
        self.c.put_item(TableName=self.t, Item={"pk": S("a"), "v": N(3)})

    def test_overlapping_transaction_is_cancelled(self):
        th, result = self.paused_txn([
            {"Put": {"TableName": self.t,
                     "Item": {"pk": S("a"), "v": N(5)}}},
            {"Delete": {"TableName": self.u,
                        "Key": {"pk": S("a"), "sk": N(1)}}},
        ], table=self.u)
        try:
            e = self.expect(TCE, "transact_write_items", TransactItems=[
                {"Put": {"TableName": self.t,
                         "Item": {"pk": S("new"), "v": N(1)}}},
                {"Update": {"TableName": self.u,
                            "Key": {"pk": S("a"), "sk": N(1)},
                            "UpdateExpression": "SET v = :v",
                            "ExpressionAttributeValues": {":v": N(7)}}},
                {"ConditionCheck": {"TableName": self.t,
                                    "Key": {"pk": S("b")},
                                    "ConditionExpression":
                                        "attribute_exists(pk)"}},
            ])
            self.require_overlap()
        finally:
            self.finish(th, result)
        self.assertEqual(e["CancellationReasons"], [
            {"Code": "None"},
            {"Code": "TransactionConflict", "Message": ONGOING},
            {"Code": "None"},
        ])
        self.assertEqual(e["Error"]["Message"],
                         "Transaction cancelled, please refer cancellation "
                         "reasons for specific reasons [None, "
                         "TransactionConflict, None]")
        # the cancelled transaction wrote nothing
        self.assertNotIn("Item", self.c.get_item(
            TableName=self.t, Key={"pk": S("new")}, ConsistentRead=True))
        # the paused one committed
        self.assertNotIn("Item", self.c.get_item(
            TableName=self.u, Key={"pk": S("a"), "sk": N(1)},
            ConsistentRead=True))
        self.assertEqual(self.c.get_item(
            TableName=self.t, Key={"pk": S("a")},
            ConsistentRead=True)["Item"]["v"], N(5))

    def test_transact_get_is_cancelled(self):
        th, result = self.paused_txn([
            {"Update": {"TableName": self.t, "Key": {"pk": S("b")},
                        "UpdateExpression": "SET v = :v",
                        "ExpressionAttributeValues": {":v": N(8)}}},
        ])
        try:
            e = self.expect(TCE, "transact_get_items", TransactItems=[
                {"Get": {"TableName": self.t, "Key": {"pk": S("a")}}},
                {"Get": {"TableName": self.t, "Key": {"pk": S("b")}}},
            ])
            ok = client().transact_get_items(TransactItems=[
                {"Get": {"TableName": self.t, "Key": {"pk": S("a")}}}])
            self.require_overlap()
        finally:
            self.finish(th, result)
        self.assertEqual(e["CancellationReasons"], [
            {"Code": "None"},
            {"Code": "TransactionConflict", "Message": ONGOING},
        ])
        self.assertEqual(ok["Responses"][0]["Item"]["pk"], S("a"))

    def test_reads_are_never_blocked(self):
        th, result = self.paused_txn([
            {"Put": {"TableName": self.t,
                     "Item": {"pk": S("a"), "v": N(6)}}},
        ])
        try:
            c = client()
            t0 = time.time()
            got = c.get_item(TableName=self.t, Key={"pk": S("a")},
                             ConsistentRead=True)
            q = c.query(TableName=self.t,
                        KeyConditionExpression="pk = :a",
                        ExpressionAttributeValues={":a": S("a")})
            s = c.scan(TableName=self.t, ConsistentRead=True)
            elapsed = time.time() - t0
            self.require_overlap()
        finally:
            self.finish(th, result)
        # at once, and the transaction's write is not visible yet
        self.assertLess(elapsed, PAUSE_MS / 1000.0 / 2)
        self.assertEqual(got["Item"]["v"], N(1))
        self.assertEqual(q["Items"][0]["v"], N(1))
        self.assertIn({"pk": S("a"), "v": N(1)}, s["Items"])
        self.assertEqual(self.c.get_item(
            TableName=self.t, Key={"pk": S("a")},
            ConsistentRead=True)["Item"]["v"], N(6))

    def test_sequential_requests_never_conflict(self):
        for i in range(20):
            self.c.transact_write_items(TransactItems=[
                {"Update": {"TableName": self.t, "Key": {"pk": S("a")},
                            "UpdateExpression": "ADD v :one",
                            "ExpressionAttributeValues": {":one": N(1)}}},
                {"Put": {"TableName": self.u,
                         "Item": {"pk": S("a"), "sk": N(i), "v": N(i)}}},
            ])
            self.c.put_item(TableName=self.t,
                            Item={"pk": S("b"), "v": N(i)})
            self.c.update_item(TableName=self.t, Key={"pk": S("a")},
                               UpdateExpression="ADD v :one",
                               ExpressionAttributeValues={":one": N(1)})
        item = self.c.get_item(TableName=self.t, Key={"pk": S("a")},
                               ConsistentRead=True)["Item"]
        self.assertEqual(item["v"], N(41))

    def test_pause_rule_validation(self):
        st, body = admin({"pause_ms": 10})
        self.assertEqual(st, 400)
        st, body = admin({"pause_ms": "x", "table": self.t})
        self.assertEqual(st, 400)
        st, body = admin({"pause_ms": 5, "table": self.t, "count": 2})
        self.assertEqual(st, 200)
        self.assertEqual(body["pauses"], [{"table": self.t, "pause_ms": 5,
                                           "count": 2, "fired": 0,
                                           "paused": 0}])


if __name__ == "__main__":
    unittest.main()
