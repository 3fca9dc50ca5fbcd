# SPDX-License-Identifier: MIT
# test_txn.py - TransactWriteItems and TransactGetItems through boto3: all
# or nothing across tables, cancellation reasons in request order,
# validations, ClientRequestToken idempotency, transactional capacity,
# isolation from concurrent readers, and atomicity across a SIGKILL.
import signal
import threading
import json
import time
import unittest
import urllib.request
import uuid

from botocore.exceptions import BotoCoreError, ClientError

from e2e_common import ENDPOINT, E2ECase
from e2e_common import OwnServerCase, make_private_client
from e2e_common import start_private_server

TCE = "TransactionCanceledException"
CCF_MSG = "The conditional request failed"


def S(v):
    return {"S": v}


def N(v):
    return {"N": str(v)}


def put(table, item, **kw):
    return {"Put": dict(TableName=table, Item=item, **kw)}


def upd(table, key, expr, values=None, **kw):
    d = dict(TableName=table, Key=key, UpdateExpression=expr, **kw)
    if values:
        d["ExpressionAttributeValues"] = values
    return {"Update": d}


def dele(table, key, **kw):
    return {"Delete": dict(TableName=table, Key=key, **kw)}


def check(table, key, cond, values=None, **kw):
    d = dict(TableName=table, Key=key, ConditionExpression=cond, **kw)
    if values:
        d["ExpressionAttributeValues"] = values
    return {"ConditionCheck": d}


def get(table, key, **kw):
    return {"Get": dict(TableName=table, Key=key, **kw)}


class TxnCase(E2ECase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.a = cls.make_table("txa", hash_key=("pk", "S"))
        cls.b = cls.make_table("txb", hash_key=("pk", "S"),
                               range_key=("sk", "N"))

    def key(self, pk):
        return {"pk": S(pk)}

    def getv(self, table, key):
        return self.c.get_item(TableName=table, Key=key,
                               ConsistentRead=True).get("Item")

    def uid(self):
        return uuid.uuid4().hex[:10]

    # --- TransactWriteItems: success -------------------------------------

    def test_write_all_kinds_across_tables(self):
        u = self.uid()
        self.c.put_item(TableName=self.a, Item={"pk": S(u + "d"), "v": N(1)})
        self.c.put_item(TableName=self.a, Item={"pk": S(u + "c"), "v": N(9)})
        r = self.c.transact_write_items(TransactItems=[
            put(self.a, {"pk": S(u + "p"), "v": N(1)}),
            put(self.b, {"pk": S(u), "sk": N(1), "v": S("x")}),
            upd(self.a, self.key(u + "u"), "SET v = :v, w = :w",
                {":v": N(5), ":w": S("y")}),
            dele(self.a, self.key(u + "d")),
            check(self.a, self.key(u + "c"), "v = :nine", {":nine": N(9)}),
        ])
        self.assertNotIn("ConsumedCapacity", r)
        self.assertEqual(self.getv(self.a, self.key(u + "p")),
                         {"pk": S(u + "p"), "v": N(1)})
        self.assertEqual(self.getv(self.b, {"pk": S(u), "sk": N(1)})["v"],
                         S("x"))
        self.assertEqual(self.getv(self.a, self.key(u + "u")),
                         {"pk": S(u + "u"), "v": N(5), "w": S("y")})
        self.assertIsNone(self.getv(self.a, self.key(u + "d")))
        self.assertEqual(self.getv(self.a, self.key(u + "c"))["v"], N(9))

    def test_update_add_and_conditions_on_existing(self):
        u = self.uid()
        self.c.put_item(TableName=self.a, Item={"pk": S(u), "n": N(1)})
        self.c.transact_write_items(TransactItems=[
            upd(self.a, self.key(u), "ADD n :one", {":one": N(1)},
                ConditionExpression="attribute_exists(pk)"),
            put(self.a, {"pk": S(u + "new")},
                ConditionExpression="attribute_not_exists(pk)"),
        ])
        self.assertEqual(self.getv(self.a, self.key(u))["n"], N(2))
        self.assertIsNotNone(self.getv(self.a, self.key(u + "new")))

    # --- TransactWriteItems: cancellation --------------------------------

    def test_condition_failure_cancels_everything(self):
        u = self.uid()
        self.c.put_item(TableName=self.a, Item={"pk": S(u), "v": N(1)})
        self.c.put_item(TableName=self.a, Item={"pk": S(u + "d")})
        with self.assertRaises(ClientError) as cm:
            self.c.transact_write_items(TransactItems=[
                put(self.a, {"pk": S(u + "x"), "v": N(1)}),
                check(self.a, self.key(u), "v = :two", {":two": N(2)}),
                dele(self.a, self.key(u + "d")),
            ])
        e = cm.exception.response
        self.assertEqual(e["Error"]["Code"], TCE)
        msg = ("Transaction cancelled, please refer cancellation reasons "
               "for specific reasons [None, ConditionalCheckFailed, None]")
        self.assertEqual(e["Error"]["Message"], msg)
        self.assertEqual(e["Message"], msg)
        self.assertEqual(e["CancellationReasons"], [
            {"Code": "None"},
            {"Code": "ConditionalCheckFailed", "Message": CCF_MSG},
            {"Code": "None"}])
        self.assertIsNone(self.getv(self.a, self.key(u + "x")))
        self.assertIsNotNone(self.getv(self.a, self.key(u)))
        self.assertIsNotNone(self.getv(self.a, self.key(u + "d")))

    def test_cancellation_item_when_asked(self):
        u = self.uid()
        item = {"pk": S(u), "v": N(1), "s": S("old")}
        self.c.put_item(TableName=self.a, Item=item)
        with self.assertRaises(ClientError) as cm:
            self.c.transact_write_items(TransactItems=[
                upd(self.a, self.key(u), "SET s = :n",
                    {":n": S("new"), ":z": N(0)},
                    ConditionExpression="v = :z",
                    ReturnValuesOnConditionCheckFailure="ALL_OLD"),
                put(self.a, {"pk": S(u + "2")},
                    ConditionExpression="attribute_exists(pk)",
                    ReturnValuesOnConditionCheckFailure="ALL_OLD"),
            ])
        reasons = cm.exception.response["CancellationReasons"]
        self.assertEqual(reasons[0], {"Code": "ConditionalCheckFailed",
                                      "Message": CCF_MSG, "Item": item})
        # no item to return for a missing one
        self.assertEqual(reasons[1], {"Code": "ConditionalCheckFailed",
                                      "Message": CCF_MSG})
        self.assertEqual(self.getv(self.a, self.key(u))["s"], S("old"))

    def test_runtime_validation_error_is_a_reason(self):
        u = self.uid()
        self.c.put_item(TableName=self.a, Item={"pk": S(u), "v": S("text")})
        with self.assertRaises(ClientError) as cm:
            self.c.transact_write_items(TransactItems=[
                put(self.a, {"pk": S(u + "p")}),
                upd(self.a, self.key(u), "SET v = v + :one",
                    {":one": N(1)}),
            ])
        e = cm.exception.response
        self.assertEqual(e["Error"]["Code"], TCE)
        self.assertTrue(e["Error"]["Message"].endswith(
            "[None, ValidationError]"), e["Error"]["Message"])
        self.assertEqual(e["CancellationReasons"][0], {"Code": "None"})
        self.assertEqual(e["CancellationReasons"][1]["Code"],
                         "ValidationError")
        self.assertIn("Message", e["CancellationReasons"][1])
        self.assertIsNone(self.getv(self.a, self.key(u + "p")))

    # --- TransactWriteItems: validations ---------------------------------

    def test_same_item_twice(self):
        u = self.uid()
        self.assertValidation(
            self.c.transact_write_items,
            "Transaction request cannot include multiple operations on one "
            "item",
            TransactItems=[put(self.a, {"pk": S(u)}),
                           check(self.a, self.key(u),
                                 "attribute_not_exists(pk)")])
        # same key in different tables is fine
        self.c.transact_write_items(TransactItems=[
            put(self.a, {"pk": S(u)}),
            put(self.b, {"pk": S(u), "sk": N(0)})])

    def test_more_than_100_items(self):
        items = [put(self.a, {"pk": S("m%d" % i)}) for i in range(101)]
        # The generic form (paritysuite/dynamodb-conformance
        # error-messages/transactWriteItems.test.ts accepts it, 2026-10).
        self.assertValidation(
            self.c.transact_write_items,
            "1 validation error detected: Value at 'TransactItems' failed "
            "to satisfy constraint: Member must have length less than or "
            "equal to 100", TransactItems=items)

    def test_shape_errors(self):
        self.assertValidation(
            self.c.transact_write_items,
            "1 validation error detected: Value 'bad name!' at "
            "'transactItems.1.member.put.tableName' failed to satisfy "
            "constraint: Member must satisfy regular expression pattern: "
            "[a-zA-Z0-9_.-]+",
            TransactItems=[put("bad name!", {"pk": S("k")})])
        self.assertValidation(
            self.c.transact_write_items,
            "TransactItems can only contain one of Check, Put, Update or "
            "Delete",
            TransactItems=[dict(put(self.a, {"pk": S("k")}),
                                **dele(self.a, self.key("k")))])

    def test_missing_table(self):
        self.assertError(self.c.transact_write_items,
                         "ResourceNotFoundException",
                         TransactItems=[put("no_such_table_txn",
                                            {"pk": S("k")})])

    def test_key_schema_mismatch(self):
        # A key that does not match the schema cancels the transaction with
        # a ValidationError reason (paritysuite/dynamodb-conformance
        # error-messages/transactWriteItems.test.ts, 2026-06).
        e = self.assertError(
            self.c.transact_write_items, "TransactionCanceledException",
            "Transaction cancelled, please refer cancellation reasons for "
            "specific reasons [ValidationError]",
            TransactItems=[dele(self.a, {"pk": S("k"), "x": S("y")})])
        self.assertEqual(e.response["CancellationReasons"], [{
            "Code": "ValidationError",
            "Message": "The provided key element does not match the "
                       "schema"}])

    def test_bad_expression_is_a_plain_validation_error(self):
        self.assertValidation(
            self.c.transact_write_items,
            prefix="Invalid ConditionExpression: Syntax error",
            TransactItems=[check(self.a, self.key("k"), "v = = 1")])

    def test_item_too_large(self):
        self.assertValidation(
            self.c.transact_write_items,
            "Item size has exceeded the maximum allowed size",
            TransactItems=[put(self.a, {"pk": S("big"),
                                        "v": S("x" * 410000)})])

    def test_aggregate_size_over_4mb(self):
        # The Alternator suite's test_transact.py (run against DynamoDB)
        # matches "ValidationException.*size cannot exceed"; the rest of
        # the sentence is ours (api/ops/txn_core.c).
        u = self.uid()
        big = "x" * (390 * 1024)
        self.assertValidation(
            self.c.transact_write_items,
            "Transaction size cannot exceed 4 MB",
            TransactItems=[put(self.a, {"pk": S("%s%d" % (u, i)),
                                        "v": S(big)}) for i in range(11)])
        self.assertIsNone(self.getv(self.a, self.key(u + "0")))

    # --- idempotency ------------------------------------------------------

    def test_client_request_token(self):
        u = self.uid()
        token = str(uuid.uuid4())
        items = [upd(self.a, self.key(u), "ADD n :one", {":one": N(1)}),
                 put(self.b, {"pk": S(u), "sk": N(1)})]
        r1 = self.c.transact_write_items(TransactItems=items,
                                         ClientRequestToken=token,
                                         ReturnConsumedCapacity="TOTAL")
        r2 = self.c.transact_write_items(TransactItems=items,
                                         ClientRequestToken=token,
                                         ReturnConsumedCapacity="TOTAL")
        self.assertEqual(self.getv(self.a, self.key(u))["n"], N(1))
        self.assertIn("WriteCapacityUnits", r1["ConsumedCapacity"][0])
        # the replay reports read units (nothing was written)
        self.assertIn("ReadCapacityUnits", r2["ConsumedCapacity"][0])
        self.assertNotIn("WriteCapacityUnits", r2["ConsumedCapacity"][0])
        self.assertError(
            self.c.transact_write_items, "IdempotentParameterMismatchException",
            TransactItems=[upd(self.a, self.key(u), "ADD n :two",
                               {":two": N(2)})],
            ClientRequestToken=token)
        self.assertEqual(self.getv(self.a, self.key(u))["n"], N(1))

    def test_failed_request_does_not_burn_token(self):
        u = self.uid()
        token = str(uuid.uuid4())
        items = [put(self.a, {"pk": S(u)},
                     ConditionExpression="attribute_exists(pk)")]
        self.assertError(self.c.transact_write_items, TCE,
                         TransactItems=items, ClientRequestToken=token)
        self.c.put_item(TableName=self.a, Item={"pk": S(u), "v": N(1)})
        self.c.transact_write_items(TransactItems=items,
                                    ClientRequestToken=token)
        self.assertEqual(self.getv(self.a, self.key(u)), {"pk": S(u)})

    # --- capacity ---------------------------------------------------------

    def test_consumed_capacity(self):
        u = self.uid()
        self.c.put_item(TableName=self.a, Item={"pk": S(u + "c")})
        r = self.c.transact_write_items(
            TransactItems=[put(self.a, {"pk": S(u), "v": S("x" * 1500)}),
                           put(self.b, {"pk": S(u), "sk": N(1)}),
                           check(self.a, self.key(u + "c"),
                                 "attribute_exists(pk)")],
            ReturnConsumedCapacity="TOTAL")
        cc = {e["TableName"]: e for e in r["ConsumedCapacity"]}
        self.assertEqual([e["TableName"] for e in r["ConsumedCapacity"]],
                         [self.a, self.b])
        # 1.5 KB put: 2 WCU, doubled; the check: 1 RCU, doubled
        self.assertEqual(cc[self.a], {"TableName": self.a,
                                      "CapacityUnits": 6.0,
                                      "ReadCapacityUnits": 2.0,
                                      "WriteCapacityUnits": 4.0})
        self.assertEqual(cc[self.b], {"TableName": self.b,
                                      "CapacityUnits": 2.0,
                                      "WriteCapacityUnits": 2.0})
        r = self.c.transact_write_items(
            TransactItems=[put(self.a, {"pk": S(u)})],
            ReturnConsumedCapacity="INDEXES")
        self.assertEqual(r["ConsumedCapacity"], [{
            "TableName": self.a, "CapacityUnits": 4.0,
            "WriteCapacityUnits": 4.0,
            "Table": {"CapacityUnits": 4.0, "WriteCapacityUnits": 4.0}}])

    # --- TransactGetItems -------------------------------------------------

    def test_get_items_in_order(self):
        u = self.uid()
        self.c.put_item(TableName=self.a,
                        Item={"pk": S(u), "v": N(1), "m": {"M": {"x": N(2)}}})
        self.c.put_item(TableName=self.b,
                        Item={"pk": S(u), "sk": N(3), "w": S("z")})
        r = self.c.transact_get_items(TransactItems=[
            get(self.b, {"pk": S(u), "sk": N(3)}),
            get(self.a, self.key(u + "missing")),
            get(self.a, self.key(u), ProjectionExpression="#m.x",
                ExpressionAttributeNames={"#m": "m"}),
        ], ReturnConsumedCapacity="TOTAL")
        self.assertEqual(r["Responses"], [
            {"Item": {"pk": S(u), "sk": N(3), "w": S("z")}},
            {},
            {"Item": {"m": {"M": {"x": N(2)}}}}])
        cc = {e["TableName"]: e for e in r["ConsumedCapacity"]}
        self.assertEqual(cc[self.a], {"TableName": self.a,
                                      "CapacityUnits": 4.0,
                                      "ReadCapacityUnits": 4.0})
        self.assertEqual(cc[self.b]["ReadCapacityUnits"], 2.0)

    def test_get_validations(self):
        self.assertValidation(
            self.c.transact_get_items,
            "Transaction request cannot include multiple operations on one "
            "item",
            TransactItems=[get(self.a, self.key("k")),
                           get(self.a, self.key("k"))])
        self.assertError(self.c.transact_get_items,
                         "ResourceNotFoundException",
                         TransactItems=[get("no_such_table_txn",
                                            self.key("k"))])
        self.assertValidation(
            self.c.transact_get_items,
            prefix="Value provided in ExpressionAttributeNames unused in "
                   "expressions",
            TransactItems=[get(self.a, self.key("k"),
                               ExpressionAttributeNames={"#u": "u"})])

    # --- isolation --------------------------------------------------------

    def test_readers_never_see_half_a_transaction(self):
        u = self.uid()
        keys = [(self.a, self.key(u + "0")), (self.b, {"pk": S(u), "sk": N(0)}),
                (self.a, self.key(u + "1")), (self.b, {"pk": S(u), "sk": N(1)})]
        for t, k in keys:
            self.c.put_item(TableName=t, Item=dict(k, seq=N(0)))
        stop = threading.Event()
        bad, errors = [], []
        reads = {True: 0, False: 0}

        def reader(transactional):
            from e2e_common import client
            rc = client()
            while not stop.is_set():
                try:
                    if transactional:
                        r = rc.transact_get_items(
                            TransactItems=[get(t, k) for t, k in keys])
                        seqs = [int(x["Item"]["seq"]["N"])
                                for x in r["Responses"]]
                        if len(set(seqs)) != 1:
                            bad.append(seqs)
                    else:
                        # sequential point reads: a later read never sees
                        # an older transaction than an earlier one
                        seqs = [int(rc.get_item(TableName=t, Key=k,
                                                ConsistentRead=True)
                                    ["Item"]["seq"]["N"]) for t, k in keys]
                        if any(seqs[i + 1] < seqs[i] for i in range(3)):
                            bad.append(seqs)
                except ClientError as e:
                    # DynamoDB cancels a TransactGetItems that meets a
                    # transaction in flight (TransactionConflict): retry
                    reasons = {x.get("Code") for x in
                               e.response.get("CancellationReasons", [])}
                    if (e.response["Error"]["Code"] ==
                            "TransactionCanceledException" and
                            reasons <= {"TransactionConflict", "None"}):
                        continue
                    errors.append(repr(e))
                    return
                reads[transactional] += 1

        threads = [threading.Thread(target=reader, args=(tr,))
                   for tr in (True, True, False)]
        for th in threads:
            th.start()
        try:
            for n in range(1, 60):
                self.c.transact_write_items(TransactItems=[
                    upd(t, k, "SET seq = :n", {":n": N(n)})
                    for t, k in keys])
        finally:
            stop.set()
            for th in threads:
                th.join(30)
        self.assertEqual(errors, [])
        self.assertEqual(bad[:5], [])
        # both kinds of reader read while the writes went on
        self.assertGreater(reads[True], 0)
        self.assertGreater(reads[False], 0)


# --- secondary indexes follow transactional writes --------------------------

class TxnIndexCase(E2ECase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        name = "txg_" + uuid.uuid4().hex[:10]
        cls.c.create_table(
            TableName=name, BillingMode="PAY_PER_REQUEST",
            AttributeDefinitions=[{"AttributeName": "pk",
                                   "AttributeType": "S"},
                                  {"AttributeName": "st",
                                   "AttributeType": "S"}],
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
            GlobalSecondaryIndexes=[{
                "IndexName": "byst",
                "KeySchema": [{"AttributeName": "st", "KeyType": "HASH"}],
                "Projection": {"ProjectionType": "ALL"}}])
        cls._tables.append(name)
        from e2e_common import wait_active
        wait_active(cls.c, name)
        cls.t = name

    def members(self, st):
        r = self.c.query(TableName=self.t, IndexName="byst",
                         KeyConditionExpression="st = :s",
                         ExpressionAttributeValues={":s": S(st)})
        return sorted(i["pk"]["S"] for i in r["Items"])

    def test_gsi_rows_follow_the_transaction(self):
        self.c.transact_write_items(TransactItems=[
            put(self.t, {"pk": S("a"), "st": S("PENDING")}),
            put(self.t, {"pk": S("b"), "st": S("PENDING")}),
            put(self.t, {"pk": S("c")})])
        self.assertEqual(self.members("PENDING"), ["a", "b"])
        self.c.transact_write_items(TransactItems=[
            upd(self.t, {"pk": S("a")}, "SET st = :d", {":d": S("DONE")}),
            dele(self.t, {"pk": S("b")}),
            upd(self.t, {"pk": S("c")}, "SET st = :p", {":p": S("PENDING")})])
        self.assertEqual(self.members("PENDING"), ["c"])
        self.assertEqual(self.members("DONE"), ["a"])
        # a cancelled transaction leaves the index alone
        self.assertError(self.c.transact_write_items, TCE, TransactItems=[
            put(self.t, {"pk": S("x"), "st": S("PENDING")}),
            upd(self.t, {"pk": S("c")}, "SET st = :d", {":d": S("DONE")},
                ConditionExpression="attribute_not_exists(pk)")])
        self.assertEqual(self.members("PENDING"), ["c"])

    def test_index_key_type_mismatch(self):
        self.assertValidation(
            self.c.transact_write_items,
            prefix="One or more parameter values were invalid: Type "
                   "mismatch for Index Key st",
            TransactItems=[put(self.t, {"pk": S("y"), "st": N(1)})])


# --- throttling: fault injection on the shared server ----------------------

def add_fault(rule):
    req = urllib.request.Request(
        ENDPOINT + "/shardlocal/faults", data=json.dumps(rule).encode(),
        method="POST", headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=5) as r:
        return json.loads(r.read())


@unittest.skipUnless(ENDPOINT, "fault injection is shardlocal's")
class TxnThrottleCase(E2ECase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.p = cls.make_table("txp", on_demand=False, rcu=5, wcu=5)
        cls.d = cls.make_table("txd")

    def test_throttled_write_cancels_all(self):
        add_fault({"table": self.p, "op": "write", "count": 1,
                   "cause": "ProvisionedThroughput"})
        with self.assertRaises(ClientError) as cm:
            self.c.transact_write_items(TransactItems=[
                put(self.d, {"pk": S("t1")}), put(self.p, {"pk": S("t1")})])
        e = cm.exception.response
        self.assertEqual(e["Error"]["Code"], TCE)
        self.assertTrue(e["Message"].endswith(
            "[None, ProvisionedThroughputExceeded]"), e["Message"])
        self.assertEqual(e["CancellationReasons"][0], {"Code": "None"})
        self.assertEqual(e["CancellationReasons"][1]["Code"],
                         "ProvisionedThroughputExceeded")
        self.assertTrue(e["CancellationReasons"][1]["Message"].startswith(
            "The level of configured provisioned throughput for the table "
            "was exceeded"))
        self.assertIsNone(self.c.get_item(TableName=self.d,
                                          Key={"pk": S("t1")}).get("Item"))

    def test_throttled_on_demand_read(self):
        add_fault({"table": self.d, "op": "read", "count": 1,
                   "cause": "KeyRange"})
        with self.assertRaises(ClientError) as cm:
            self.c.transact_get_items(TransactItems=[
                get(self.p, {"pk": S("t2")}), get(self.d, {"pk": S("t2")})])
        e = cm.exception.response
        self.assertEqual(e["Error"]["Code"], TCE)
        self.assertEqual([r["Code"] for r in e["CancellationReasons"]],
                         ["None", "ThrottlingError"])


# --- crash atomicity: a server this test owns -------------------------------

GROUPS = 4                  # writer threads, each with its own items
PER_TABLE = 3               # items per table per group (several partitions)
ROUNDS = 3


class TxnCrashTest(OwnServerCase):
    PREFIX = "shardlocal-txn."
    DATA_DIR = True

    def make_tables(self, c):
        for name, extra in (("txn_ca", []), ("txn_cb", [("sk", "N")])):
            attrs = [{"AttributeName": "pk", "AttributeType": "S"}]
            schema = [{"AttributeName": "pk", "KeyType": "HASH"}]
            for a, t in extra:
                attrs.append({"AttributeName": a, "AttributeType": t})
                schema.append({"AttributeName": a, "KeyType": "RANGE"})
            c.create_table(TableName=name, BillingMode="PAY_PER_REQUEST",
                           AttributeDefinitions=attrs, KeySchema=schema)
        for name in ("txn_ca", "txn_cb"):
            for _ in range(200):
                if c.describe_table(TableName=name)["Table"][
                        "TableStatus"] == "ACTIVE":
                    break
                time.sleep(0.05)

    @staticmethod
    def group_keys(g):
        return ([("txn_ca", {"pk": S("g%d_%d" % (g, i))})
                 for i in range(PER_TABLE)] +
                [("txn_cb", {"pk": S("g%d_%d" % (g, i)), "sk": N(i)})
                 for i in range(PER_TABLE)])

    def test_no_transaction_half_applied_after_sigkill(self):
        self.proc, url = start_private_server(self.data, self.port_file)
        self.make_tables(make_private_client(url))
        total = 0
        for _ in range(ROUNDS):     # kill, restart, check; and again
            total += self.crash_round(url)
            self.proc, url = start_private_server(self.data, self.port_file)
        print("txn crash: %d transactions acknowledged over %d SIGKILLs, "
              "none half applied" % (total, ROUNDS))

    def crash_round(self, url):
        acked = [0] * GROUPS
        stop = threading.Event()
        c = make_private_client(url)
        base = []
        for g in range(GROUPS):     # continue from what survived
            it = c.get_item(TableName="txn_ca",
                            Key=self.group_keys(g)[0][1]).get("Item")
            base.append(int(it["seq"]["N"]) if it else 0)

        def writer(g):
            wc = make_private_client(url)
            keys = self.group_keys(g)
            n = base[g] + 1
            while not stop.is_set():
                try:
                    wc.transact_write_items(TransactItems=[
                        {"Put": {"TableName": t,
                                 "Item": dict(k, seq=N(n),
                                              pad=S("p" * (n % 500)))}}
                        for t, k in keys])
                except (ClientError, BotoCoreError, OSError):
                    return
                acked[g] = n
                n += 1

        threads = [threading.Thread(target=writer, args=(g,), daemon=True)
                   for g in range(GROUPS)]
        for th in threads:
            th.start()
        time.sleep(1.0)
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()
        stop.set()
        for th in threads:
            th.join(10)
        done = sum(a - b for a, b in zip(acked, base) if a)
        self.assertGreater(done, 20, "too few transactions")

        self.proc, url = start_private_server(self.data, self.port_file)
        c = make_private_client(url)
        for g in range(GROUPS):
            seqs = []
            for t, k in self.group_keys(g):
                it = c.get_item(TableName=t, Key=k,
                                ConsistentRead=True).get("Item")
                seqs.append(int(it["seq"]["N"]) if it else 0)
                if it:
                    self.assertEqual(it["pad"],
                                     S("p" * (int(it["seq"]["N"]) % 500)))
            self.assertEqual(len(set(seqs)), 1,
                             "group %d half applied: %r" % (g, seqs))
            # acknowledged means durable
            self.assertGreaterEqual(seqs[0], max(acked[g], base[g]))
            self.assertLessEqual(seqs[0], max(acked[g], base[g]) + 1)
        self.proc.kill()
        self.proc.wait()
        return done


if __name__ == "__main__":
    unittest.main()
