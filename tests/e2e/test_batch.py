# SPDX-License-Identifier: MIT
# test_batch.py - BatchGetItem and BatchWriteItem through the boto3 client
# and resource (batch_writer, batch_get_item): several tables, projections,
# ConsumedCapacity lists, secondary indexes, throttled items and the 16 MB
# response limit coming back as Unprocessed* to send straight back, and
# DynamoDB's validation messages.
import http.client
import json
import re
import time
import unittest
import urllib.parse
from decimal import Decimal

import boto3
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.config import Config
from botocore.credentials import Credentials

from e2e_common import (ENDPOINT, ON_DYNALITE, REGION, E2ECase,
                        dynalite_differs, resource, unique_name)

RNF = "ResourceNotFoundException"
SCHEMA = "The provided key element does not match the schema"
DUPS = "Provided list of item keys contains duplicates"
MULTI = ("Supplied AttributeValue has more than one datatypes set, must "
         "contain exactly one of the supported datatypes")
TABLE_KEYS = ("Map keys must satisfy constraint: [Member must have length "
              "less than or equal to 255, Member must have length greater "
              "than or equal to 3, Member must satisfy regular expression "
              "pattern: [a-zA-Z0-9_.-]+]")
WRITE_VALUES = ("Map value must satisfy constraint: [Member must have "
                "length less than or equal to 25, Member must have length "
                "greater than or equal to 1]")
JAVA_MAP = "prints RequestItems as JSON, not as Java's Map.toString()"
CREDS = Credentials("AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY")


def S(v):
    return {"S": v}


def N(v):
    return {"N": v}


def unvalidated_client():
    """A client that sends what it is given: botocore's own checks (minimum
    lengths, required members) would otherwise stop the request."""
    return boto3.client("dynamodb", endpoint_url=ENDPOINT,
                        region_name=REGION,
                        config=Config(parameter_validation=False,
                                      retries={"max_attempts": 1,
                                               "mode": "standard"}))


def body(resp):
    """The response without botocore's ResponseMetadata."""
    return {k: v for k, v in resp.items() if k != "ResponseMetadata"}


class BatchCase(E2ECase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.t = cls.make_table("bh", hash_key=("pk", "S"))
        cls.tr = cls.make_table("br", hash_key=("pk", "S"),
                                range_key=("sk", "N"))
        cls.tn = cls.make_table("bn", hash_key=("id", "N"))
        cls.u = unvalidated_client()

    def raw(self, target, payload):
        """POST a signed request with any JSON body; (status, body)."""
        data = json.dumps(payload).encode()
        req = AWSRequest(method="POST", url=ENDPOINT + "/", data=data,
                         headers={"Content-Type":
                                  "application/x-amz-json-1.0",
                                  "X-Amz-Target":
                                  "DynamoDB_20120810." + target})
        SigV4Auth(CREDS, "dynamodb", REGION).add_auth(req)
        u = urllib.parse.urlsplit(ENDPOINT)
        conn = http.client.HTTPConnection(u.hostname, u.port or 80,
                                          timeout=30)
        try:
            conn.request("POST", "/", body=data,
                         headers=dict(req.headers.items()))
            r = conn.getresponse()
            return r.status, json.loads(r.read() or b"{}")
        finally:
            conn.close()

    def get(self, table, key):
        return self.c.get_item(TableName=table, Key=key,
                               ConsistentRead=True).get("Item")


# ---------------------------------------------------------------------------
# BatchWriteItem
# ---------------------------------------------------------------------------

class BatchWriteTest(BatchCase):

    def test_put_and_delete_across_tables(self):
        self.c.put_item(TableName=self.t, Item={"pk": S("w-old")})
        r = self.c.batch_write_item(RequestItems={
            self.t: [{"PutRequest": {"Item": {"pk": S("w1"), "a": N("1")}}},
                     {"DeleteRequest": {"Key": {"pk": S("w-old")}}},
                     {"DeleteRequest": {"Key": {"pk": S("w-never")}}}],
            self.tr: [{"PutRequest": {"Item": {"pk": S("w"), "sk": N("1")}}},
                      {"PutRequest": {"Item": {"pk": S("w"),
                                               "sk": N("2")}}}]})
        self.assertEqual(body(r), {"UnprocessedItems": {}})
        self.assertEqual(self.get(self.t, {"pk": S("w1")}),
                         {"pk": S("w1"), "a": N("1")})
        self.assertIsNone(self.get(self.t, {"pk": S("w-old")}))
        self.assertIsNotNone(self.get(self.tr, {"pk": S("w"), "sk": N("2")}))

    def test_put_replaces_whole_item(self):
        self.c.put_item(TableName=self.t,
                        Item={"pk": S("rep"), "a": S("x"), "b": S("y")})
        self.c.batch_write_item(RequestItems={self.t: [
            {"PutRequest": {"Item": {"pk": S("rep"), "c": S("z")}}}]})
        self.assertEqual(self.get(self.t, {"pk": S("rep")}),
                         {"pk": S("rep"), "c": S("z")})

    def test_numbers_are_canonical_keys(self):
        self.c.batch_write_item(RequestItems={self.tn: [
            {"PutRequest": {"Item": {"id": N("1.50"), "v": N("1E+2")}}}]})
        self.assertEqual(self.get(self.tn, {"id": N("1.5")}),
                         {"id": N("1.5"), "v": N("100")})
        # "2" and "2.0" are the same key: a duplicate.
        self.assertValidation(self.c.batch_write_item, DUPS, RequestItems={
            self.tn: [{"PutRequest": {"Item": {"id": N("2")}}},
                      {"DeleteRequest": {"Key": {"id": N("2.0")}}}]})

    def test_same_key_in_two_tables_is_fine(self):
        r = self.c.batch_write_item(RequestItems={
            self.t: [{"PutRequest": {"Item": {"pk": S("same")}}}],
            self.tr: [{"PutRequest": {"Item": {"pk": S("same"),
                                               "sk": N("1")}}},
                      {"PutRequest": {"Item": {"pk": S("same"),
                                               "sk": N("2")}}}]})
        self.assertEqual(r["UnprocessedItems"], {})

    def test_batch_writer(self):
        table = resource().Table(self.tr)
        with table.batch_writer() as bw:
            for i in range(60):
                bw.put_item(Item={"pk": "bw", "sk": i, "v": Decimal(i) / 4,
                                  "tags": {"a", "b"}})
        got = self.c.query(TableName=self.tr, KeyConditionExpression="pk = :p",
                           ExpressionAttributeValues={":p": S("bw")},
                           ConsistentRead=True)
        self.assertEqual(got["Count"], 60)
        item = table.get_item(Key={"pk": "bw", "sk": 5},
                              ConsistentRead=True)["Item"]
        self.assertEqual(item["v"], Decimal("1.25"))
        self.assertEqual(item["tags"], {"a", "b"})
        with table.batch_writer(overwrite_by_pkeys=["pk", "sk"]) as bw:
            for i in range(0, 60, 2):
                bw.delete_item(Key={"pk": "bw", "sk": i})
            bw.put_item(Item={"pk": "bw", "sk": 1, "v": 7})
            bw.put_item(Item={"pk": "bw", "sk": 1, "v": 8})     # deduped
        got = self.c.query(TableName=self.tr, KeyConditionExpression="pk = :p",
                           ExpressionAttributeValues={":p": S("bw")},
                           ConsistentRead=True)
        self.assertEqual(got["Count"], 30)
        self.assertEqual(table.get_item(Key={"pk": "bw", "sk": 1})["Item"]
                         ["v"], 8)

    def test_consumed_capacity_list(self):
        big = {"pk": S("cc-big"), "b": S("x" * 1100)}      # 2 WCU
        req = {self.t: [{"PutRequest": {"Item": big}},
                        {"PutRequest": {"Item": {"pk": S("cc-small")}}}],
               self.tn: [{"PutRequest": {"Item": {"id": N("77")}}}]}
        r = self.c.batch_write_item(RequestItems=req,
                                    ReturnConsumedCapacity="TOTAL")
        cc = sorted(r["ConsumedCapacity"], key=lambda e: e["TableName"])
        want = sorted([{"TableName": self.t, "CapacityUnits": 3.0},
                       {"TableName": self.tn, "CapacityUnits": 1.0}],
                      key=lambda e: e["TableName"])
        self.assertEqual(cc, want)
        r = self.c.batch_write_item(RequestItems=req,
                                    ReturnConsumedCapacity="INDEXES")
        for e in r["ConsumedCapacity"]:
            self.assertEqual(e["Table"], {"CapacityUnits": e["CapacityUnits"]})
        r = self.c.batch_write_item(RequestItems=req,
                                    ReturnConsumedCapacity="NONE")
        self.assertNotIn("ConsumedCapacity", r)
        # Deletes cost the deleted item; a missing item still costs 1.
        r = self.c.batch_write_item(RequestItems={self.t: [
            {"DeleteRequest": {"Key": {"pk": S("cc-big")}}},
            {"DeleteRequest": {"Key": {"pk": S("cc-none")}}}]},
            ReturnConsumedCapacity="TOTAL")
        self.assertEqual(r["ConsumedCapacity"],
                         [{"TableName": self.t, "CapacityUnits": 3.0}])

    def test_item_collection_metrics_without_lsi(self):
        r = self.c.batch_write_item(RequestItems={self.t: [
            {"PutRequest": {"Item": {"pk": S("icm")}}}]},
            ReturnItemCollectionMetrics="SIZE")
        self.assertEqual(body(r), {"UnprocessedItems": {}})

    # --- errors -----------------------------------------------------------

    def test_missing_table_writes_nothing(self):
        self.assertError(self.c.batch_write_item, RNF,
                         "Requested resource not found", RequestItems={
                             self.t: [{"PutRequest": {"Item":
                                                      {"pk": S("rnf")}}}],
                             unique_name("nope"): [{"PutRequest": {
                                 "Item": {"pk": S("x")}}}]})
        self.assertIsNone(self.get(self.t, {"pk": S("rnf")}))

    def test_duplicate_keys(self):
        for reqs in ([{"PutRequest": {"Item": {"pk": S("d"), "a": S("1")}}},
                      {"DeleteRequest": {"Key": {"pk": S("d")}}}],
                     [{"DeleteRequest": {"Key": {"pk": S("d")}}},
                      {"PutRequest": {"Item": {"pk": S("d")}}}],
                     [{"PutRequest": {"Item": {"pk": S("d")}}},
                      {"PutRequest": {"Item": {"pk": S("d")}}}]):
            self.assertValidation(self.c.batch_write_item, DUPS,
                                  RequestItems={self.t: reqs})
        self.assertIsNone(self.get(self.t, {"pk": S("d")}))

    @dynalite_differs(JAVA_MAP)
    def test_too_many_requests(self):
        reqs = [{"PutRequest": {"Item": {"pk": S("m%d" % i)}}}
                for i in range(26)]
        e = self.assertValidation(self.c.batch_write_item,
                                  RequestItems={self.t: reqs})
        # The generic form, no echo (paritysuite/dynamodb-conformance
        # error-messages/batchWriteItem.test.ts accepts it, 2026-10).
        self.assertEqual(
            e.response["Error"]["Message"],
            "1 validation error detected: Value at 'RequestItems.%s.member'"
            " failed to satisfy constraint: Member must have length less "
            "than or equal to 25" % self.t)
        # 25 per table, but more than 25 in all.
        self.assertValidation(
            self.c.batch_write_item,
            "Too many items requested for the BatchWriteItem call",
            RequestItems={self.t: reqs[:13],
                          self.tr: [{"PutRequest": {"Item": {
                              "pk": S("x"), "sk": N(str(i))}}}
                              for i in range(13)]})

    @dynalite_differs(JAVA_MAP)
    def test_empty_and_missing_request_items(self):
        # us-east-1, 2026-10-07 (paritysuite/dynamodb-conformance
        # captures/2026-10-07-batch-empty-request-items.json, the most
        # recent recording): an empty map gets the bespoke sentence, after
        # the framework's checks (an enum error still comes first).
        self.assertValidation(
            self.u.batch_write_item, "The requestItems parameter is "
            "required for BatchWriteItem", RequestItems={})
        self.assertValidation(
            self.u.batch_write_item, prefix="1 validation error detected: "
            "Value 'hi' at 'returnConsumedCapacity'", RequestItems={},
            ReturnConsumedCapacity="hi")
        self.assertValidation(
            self.u.batch_write_item,
            "1 validation error detected: Value '{%s=[]}' at "
            "'requestItems' failed to satisfy constraint: %s"
            % (self.t, WRITE_VALUES), RequestItems={self.t: []})
        # Without RequestItems botocore cannot even build the request.
        status, b = self.raw("BatchWriteItem", {
            "ReturnConsumedCapacity": "hi",
            "ReturnItemCollectionMetrics": "hi"})
        self.assertEqual((status, b["message"]), (400,
            "3 validation errors detected: Value 'hi' at "
            "'returnConsumedCapacity' failed to satisfy constraint: Member "
            "must satisfy enum value set: [INDEXES, TOTAL, NONE]; Value 'hi' "
            "at 'returnItemCollectionMetrics' failed to satisfy constraint: "
            "Member must satisfy enum value set: [SIZE, NONE]; Value null at "
            "'requestItems' failed to satisfy constraint: Member must not be "
            "null"))

    @dynalite_differs(JAVA_MAP)
    def test_bad_table_name_and_null_members(self):
        e = self.assertValidation(
            self.u.batch_write_item, RequestItems={
                "a": [{"PutRequest": {"Item": {"pk": S("x")}}}]})
        self.assertEqual(
            "1 validation error detected: Value '{a=[WriteRequest(putRequest"
            "=PutRequest(item={pk=AttributeValue(S=x)}), deleteRequest=null"
            ")]}' at 'requestItems' failed to satisfy constraint: " +
            TABLE_KEYS, e.response["Error"]["Message"])
        status, b = self.raw("BatchWriteItem", {"RequestItems": {
            "aa;": [{"PutRequest": {}, "DeleteRequest": {}}]},
            "ReturnConsumedCapacity": "hi"})
        self.assertEqual(status, 400)
        self.assertTrue(b["__type"].endswith("#ValidationException"))
        # The malformed name gives way to the bad enum (us-east-1 and
        # eu-west-2, 2026-10: paritysuite/dynamodb-conformance
        # validation-ordering/batchOperations.test.ts).
        self.assertTrue(b["message"].startswith("3 validation errors "
                                                "detected: Value 'hi' at "
                                                "'returnConsumedCapacity'"),
                        b["message"])
        self.assertTrue(b["message"].endswith(
            "; Value null at 'requestItems.aa;.member.1.member.deleteRequest"
            ".key' failed to satisfy constraint: Member must not be null; "
            "Value null at 'requestItems.aa;.member.1.member.putRequest.item'"
            " failed to satisfy constraint: Member must not be null"),
            b["message"])

    @dynalite_differs("accepts a WriteRequest with both Put and Delete")
    def test_one_of_put_or_delete(self):
        self.assertValidation(self.u.batch_write_item, MULTI,
                              RequestItems={self.t: [{}]})
        self.assertValidation(self.u.batch_write_item, MULTI, RequestItems={
            self.t: [{"PutRequest": {"Item": {"pk": S("pd")}},
                      "DeleteRequest": {"Key": {"pk": S("pd2")}}}]})

    def test_item_checks_before_table(self):
        name = unique_name("nope")
        self.assertValidation(
            self.c.batch_write_item,
            "Item size has exceeded the maximum allowed size",
            RequestItems={name: [{"PutRequest": {"Item": {
                "pk": S("big"), "b": S("x" * 409600)}}}]})
        self.assertValidation(
            self.c.batch_write_item, MULTI,
            RequestItems={name: [{"PutRequest": {"Item": {
                "pk": {"S": "a", "N": "1"}}}}]})
        self.assertValidation(
            self.c.batch_write_item,
            "The parameter cannot be converted to a numeric value: abc",
            RequestItems={name: [{"DeleteRequest": {"Key": {
                "pk": N("abc")}}}]})
        # A valid request to a missing table is ResourceNotFound.
        self.assertError(self.c.batch_write_item, RNF,
                         "Requested resource not found",
                         RequestItems={name: [{"PutRequest": {"Item": {
                             "pk": S("big"), "b": S("x" * 409500)}}}]})

    def test_key_schema(self):
        for reqs in ([{"PutRequest": {"Item": {"other": S("x")}}}],
                     [{"PutRequest": {"Item": {"pk": N("1")}}}],
                     [{"DeleteRequest": {"Key": {"pk": S("x"),
                                                 "extra": S("y")}}}],
                     [{"DeleteRequest": {"Key": {"pk": N("1")}}}]):
            self.assertValidation(self.c.batch_write_item, SCHEMA,
                                  RequestItems={self.t: reqs})
        self.assertValidation(self.c.batch_write_item, SCHEMA, RequestItems={
            self.tr: [{"PutRequest": {"Item": {"pk": S("x")}}}]})

    def test_serialization(self):
        status, b = self.raw("BatchWriteItem",
                             {"RequestItems": {self.t: "x"}})
        self.assertEqual(status, 400)
        self.assertTrue(b["__type"].endswith("#SerializationException"), b)
        self.assertIn("ParameterizedTypeImpl", b["Message"])
        status, b = self.raw("BatchWriteItem",
                             {"RequestItems": {self.t: [5]}})
        self.assertEqual((status, b["Message"]),
                         (400, "Unexpected value type in payload"))
        status, b = self.raw("BatchWriteItem",
                             {"RequestItems": {self.t: [
                                 {"PutRequest": []}]}})
        self.assertEqual(b["Message"], "Unrecognized collection type class "
                         "com.amazonaws.dynamodb.v20120810.PutRequest")


class BatchWriteIndexTest(BatchCase):
    """Batch writes keep a global secondary index in step."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.ti = cls.make_table(
            "bi", hash_key=("pk", "S"),
            AttributeDefinitions=[
                {"AttributeName": "pk", "AttributeType": "S"},
                {"AttributeName": "status", "AttributeType": "S"}],
            GlobalSecondaryIndexes=[{
                "IndexName": "by_status",
                "KeySchema": [{"AttributeName": "status",
                               "KeyType": "HASH"}],
                "Projection": {"ProjectionType": "ALL"}}])

    def by_status(self, status):
        r = self.c.query(TableName=self.ti, IndexName="by_status",
                         KeyConditionExpression="#s = :s",
                         ExpressionAttributeNames={"#s": "status"},
                         ExpressionAttributeValues={":s": S(status)})
        return sorted(i["pk"]["S"] for i in r["Items"])

    @dynalite_differs("reports no index capacity for batch writes")
    def test_puts_and_deletes_reach_the_index(self):
        r = self.c.batch_write_item(RequestItems={self.ti: [
            {"PutRequest": {"Item": {"pk": S("i%d" % i),
                                     "status": S("PENDING")}}}
            for i in range(5)] + [
            {"PutRequest": {"Item": {"pk": S("nostatus")}}}]},
            ReturnConsumedCapacity="INDEXES")
        self.assertEqual(r["UnprocessedItems"], {})
        cc = r["ConsumedCapacity"]
        self.assertEqual(len(cc), 1)
        self.assertEqual(cc[0]["Table"], {"CapacityUnits": 6.0})
        self.assertEqual(cc[0]["GlobalSecondaryIndexes"],
                         {"by_status": {"CapacityUnits": 5.0}})
        self.assertEqual(cc[0]["CapacityUnits"], 11.0)
        self.assertEqual(self.by_status("PENDING"),
                         ["i0", "i1", "i2", "i3", "i4"])
        self.c.batch_write_item(RequestItems={self.ti: [
            {"DeleteRequest": {"Key": {"pk": S("i0")}}},
            {"PutRequest": {"Item": {"pk": S("i1"), "status": S("DONE")}}}]})
        self.assertEqual(self.by_status("PENDING"), ["i2", "i3", "i4"])
        self.assertEqual(self.by_status("DONE"), ["i1"])

    def test_index_key_type_is_checked(self):
        self.assertValidation(
            self.c.batch_write_item,
            "One or more parameter values were invalid: Type mismatch for "
            "Index Key status Expected: S Actual: N IndexName: by_status",
            RequestItems={self.ti: [
                {"PutRequest": {"Item": {"pk": S("ok")}}},
                {"PutRequest": {"Item": {"pk": S("bad"),
                                         "status": N("1")}}}]})
        self.assertIsNone(self.get(self.ti, {"pk": S("ok")}))


class BatchWriteCollectionTest(BatchCase):
    """ReturnItemCollectionMetrics: tables with a local secondary index."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.tl = cls.make_table(
            "bl", hash_key=("pk", "S"), range_key=("sk", "N"),
            AttributeDefinitions=[
                {"AttributeName": "pk", "AttributeType": "S"},
                {"AttributeName": "sk", "AttributeType": "N"},
                {"AttributeName": "at", "AttributeType": "S"}],
            LocalSecondaryIndexes=[{
                "IndexName": "by_at",
                "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"},
                              {"AttributeName": "at", "KeyType": "RANGE"}],
                "Projection": {"ProjectionType": "ALL"}}])

    @dynalite_differs("never returns ItemCollectionMetrics from batches")
    def test_item_collection_metrics(self):
        r = self.c.batch_write_item(RequestItems={
            self.tl: [{"PutRequest": {"Item": {"pk": S("c1"), "sk": N("1"),
                                               "at": S("x")}}},
                      {"PutRequest": {"Item": {"pk": S("c2"), "sk": N("1")}}},
                      {"DeleteRequest": {"Key": {"pk": S("c3"),
                                                 "sk": N("9")}}}],
            self.t: [{"PutRequest": {"Item": {"pk": S("no-lsi")}}}]},
            ReturnItemCollectionMetrics="SIZE")
        self.assertEqual(r["UnprocessedItems"], {})
        self.assertEqual(r["ItemCollectionMetrics"], {self.tl: [
            {"ItemCollectionKey": {"pk": S(pk)},
             "SizeEstimateRangeGB": [0.0, 1.0]}
            for pk in ("c1", "c2", "c3")]})
        r = self.c.batch_write_item(RequestItems={self.tl: [
            {"PutRequest": {"Item": {"pk": S("c4"), "sk": N("1")}}}]},
            ReturnItemCollectionMetrics="NONE")
        self.assertNotIn("ItemCollectionMetrics", r)
        r = self.c.query(TableName=self.tl, IndexName="by_at",
                         KeyConditionExpression="pk = :p",
                         ExpressionAttributeValues={":p": S("c1")})
        self.assertEqual(r["Count"], 1)


# ---------------------------------------------------------------------------
# BatchGetItem
# ---------------------------------------------------------------------------

class BatchGetTest(BatchCase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.c.batch_write_item(RequestItems={
            cls.t: [{"PutRequest": {"Item": {
                "pk": S("g%d" % i), "a": N(str(i)), "b": S("b%d" % i),
                "m": {"M": {"x": N("1"), "y": N("2")}}}}}
                for i in range(5)],
            cls.tr: [{"PutRequest": {"Item": {"pk": S("h"), "sk": N(str(i)),
                                              "v": S("v%d" % i)}}}
                     for i in range(3)]})

    def test_get_across_tables(self):
        r = self.c.batch_get_item(RequestItems={
            self.t: {"Keys": [{"pk": S("g1")}, {"pk": S("missing")},
                              {"pk": S("g3")}]},
            self.tr: {"Keys": [{"pk": S("h"), "sk": N("2")}],
                      "ConsistentRead": True},
            self.tn: {"Keys": [{"id": N("12345")}]}})
        self.assertEqual(r["UnprocessedKeys"], {})
        self.assertEqual(set(r["Responses"]), {self.t, self.tr, self.tn})
        self.assertEqual(sorted(i["pk"]["S"] for i in r["Responses"][self.t]),
                         ["g1", "g3"])
        self.assertEqual(r["Responses"][self.tr],
                         [{"pk": S("h"), "sk": N("2"), "v": S("v2")}])
        self.assertEqual(r["Responses"][self.tn], [])
        self.assertNotIn("ConsumedCapacity", r)

    def test_projection_expression(self):
        r = self.c.batch_get_item(RequestItems={self.t: {
            "Keys": [{"pk": S("g1")}, {"pk": S("g2")}],
            "ProjectionExpression": "#a, m.y, nothere",
            "ExpressionAttributeNames": {"#a": "a"}}})
        got = sorted(r["Responses"][self.t], key=lambda i: i["a"]["N"])
        self.assertEqual(got, [{"a": N("1"), "m": {"M": {"y": N("2")}}},
                               {"a": N("2"), "m": {"M": {"y": N("2")}}}])

    def test_attributes_to_get(self):
        r = self.c.batch_get_item(RequestItems={self.t: {
            "Keys": [{"pk": S("g4")}], "AttributesToGet": ["b", "zz"]}})
        self.assertEqual(r["Responses"][self.t], [{"b": S("b4")}])

    def test_projection_of_nothing_gives_empty_item(self):
        r = self.c.batch_get_item(RequestItems={self.t: {
            "Keys": [{"pk": S("g4")}], "ProjectionExpression": "zz"}})
        self.assertEqual(r["Responses"][self.t], [{}])

    def test_resource_batch_get(self):
        db = resource()
        r = db.batch_get_item(RequestItems={
            self.tr: {"Keys": [{"pk": "h", "sk": 0}, {"pk": "h", "sk": 1}],
                      "ProjectionExpression": "sk, v"}})
        got = sorted(r["Responses"][self.tr], key=lambda i: i["sk"])
        self.assertEqual(got, [{"sk": 0, "v": "v0"}, {"sk": 1, "v": "v1"}])
        self.assertEqual(r["UnprocessedKeys"], {})

    def test_consumed_capacity_per_item(self):
        c = self.c
        c.put_item(TableName=self.t,
                   Item={"pk": S("cap-4k"), "b": S("x" * 4090)})  # > 4 KB
        c.put_item(TableName=self.t, Item={"pk": S("cap-small")})
        keys = [{"pk": S("cap-4k")}, {"pk": S("cap-small")},
                {"pk": S("cap-missing")}]
        req = {self.t: {"Keys": keys},
               self.tn: {"Keys": [{"id": N("999")}]}}
        r = c.batch_get_item(RequestItems=req, ReturnConsumedCapacity="TOTAL")
        cc = {e["TableName"]: e for e in r["ConsumedCapacity"]}
        # Each item rounded on its own: 1 + 0.5 + 0.5 (missing).
        self.assertEqual(cc[self.t], {"TableName": self.t,
                                      "CapacityUnits": 2.0})
        self.assertEqual(cc[self.tn], {"TableName": self.tn,
                                       "CapacityUnits": 0.5})
        self.assertEqual(len(r["ConsumedCapacity"]), 2)
        req[self.t]["ConsistentRead"] = True
        req[self.tn]["ConsistentRead"] = True
        r = c.batch_get_item(RequestItems=req,
                             ReturnConsumedCapacity="INDEXES")
        cc = {e["TableName"]: e for e in r["ConsumedCapacity"]}
        self.assertEqual(cc[self.t], {"TableName": self.t,
                                      "CapacityUnits": 4.0,
                                      "Table": {"CapacityUnits": 4.0}})
        self.assertEqual(cc[self.tn]["CapacityUnits"], 1.0)
        r = c.batch_get_item(RequestItems=req, ReturnConsumedCapacity="NONE")
        self.assertNotIn("ConsumedCapacity", r)

    @dynalite_differs("predates table ARNs in RequestItems")
    def test_table_arns(self):
        arn = self.c.describe_table(TableName=self.t)["Table"]["TableArn"]
        r = self.c.batch_write_item(RequestItems={arn: [
            {"PutRequest": {"Item": {"pk": S("by-arn")}}}]})
        self.assertEqual(r["UnprocessedItems"], {})
        r = self.c.batch_get_item(RequestItems={arn: {
            "Keys": [{"pk": S("by-arn")}]}})
        self.assertEqual(r["Responses"], {arn: [{"pk": S("by-arn")}]})

    def test_raw_members(self):
        # A Boolean may arrive as a string; KeysAndAttributes has no
        # ExpressionAttributeValues, so the member is ignored.
        status, b = self.raw("BatchGetItem", {
            "ReturnConsumedCapacity": "TOTAL",
            "RequestItems": {self.t: {
                "Keys": [{"pk": S("none")}], "ConsistentRead": "TRUE",
                "ExpressionAttributeValues": {":v": S("x")}}}})
        self.assertEqual(status, 200, b)
        self.assertEqual(b, {"Responses": {self.t: []},
                             "UnprocessedKeys": {},
                             "ConsumedCapacity": [{"TableName": self.t,
                                                   "CapacityUnits": 1.0}]})

    # --- errors -----------------------------------------------------------

    def test_duplicate_keys(self):
        self.assertValidation(self.c.batch_get_item, DUPS, RequestItems={
            self.t: {"Keys": [{"pk": S("g1")}, {"pk": S("g2")},
                              {"pk": S("g1")}]}})
        self.assertValidation(self.c.batch_get_item, DUPS, RequestItems={
            self.tn: {"Keys": [{"id": N("10")}, {"id": N("1E+1")}]}})
        # Checked before the table is looked up.
        self.assertValidation(self.c.batch_get_item, DUPS, RequestItems={
            unique_name("nope"): {"Keys": [{"pk": S("g1")},
                                           {"pk": S("g1")}]}})

    def test_too_many_keys(self):
        keys = [{"pk": S("k%d" % i)} for i in range(101)]
        e = self.assertValidation(self.c.batch_get_item, RequestItems={
            self.t: {"Keys": keys}})
        self.assertEqual(
            e.response["Error"]["Message"],
            "1 validation error detected: Value at 'RequestItems.%s.member."
            "Keys' failed to satisfy constraint: Member must have length "
            "less than or equal to 100" % self.t)
        self.assertValidation(
            self.c.batch_get_item,
            "Too many items requested for the BatchGetItem call",
            RequestItems={self.t: {"Keys": keys[:100]},
                          self.tn: {"Keys": [{"id": N("1")}]}})
        # Exactly 100 keys on a missing table: the table is the problem.
        self.assertError(self.c.batch_get_item, RNF,
                         "Requested resource not found",
                         RequestItems={unique_name("nope"):
                                       {"Keys": keys[:100]}})

    def test_missing_table(self):
        self.assertError(self.c.batch_get_item, RNF,
                         "Requested resource not found", RequestItems={
                             self.t: {"Keys": [{"pk": S("g1")}]},
                             unique_name("nope"): {"Keys": [{"pk": S("a")}]}})

    def test_key_schema(self):
        for key in ({"other": S("x")}, {"pk": N("1")},
                    {"pk": S("x"), "extra": S("y")}, {}):
            self.assertValidation(self.u.batch_get_item, SCHEMA,
                                  RequestItems={self.t: {"Keys": [key]}})
        self.assertValidation(self.c.batch_get_item, SCHEMA, RequestItems={
            self.tr: {"Keys": [{"pk": S("h")}]}})

    def test_key_attribute_values(self):
        self.assertValidation(
            self.c.batch_get_item, MULTI, RequestItems={self.t: {
                "Keys": [{"pk": {"S": "a", "N": "1"}}]}})
        self.assertValidation(
            self.c.batch_get_item,
            "One or more parameter values were invalid: Null attribute "
            "value types must have the value of true",
            RequestItems={self.t: {"Keys": [{"pk": {"NULL": False}}]}})

    def test_expression_checks(self):
        self.assertValidation(
            self.c.batch_get_item,
            "Can not use both expression and non-expression parameters in "
            "the same request: Non-expression parameters: {AttributesToGet} "
            "Expression parameters: {ProjectionExpression}",
            RequestItems={self.t: {"Keys": [{"pk": S("g1")}],
                                   "AttributesToGet": ["a"],
                                   "ProjectionExpression": "a"}})
        self.assertValidation(
            self.c.batch_get_item,
            "ExpressionAttributeNames can only be specified when using "
            "expressions", RequestItems={self.t: {
                "Keys": [{"pk": S("g1")}],
                "ExpressionAttributeNames": {"#a": "a"}}})
        self.assertValidation(
            self.c.batch_get_item,
            "Value provided in ExpressionAttributeNames unused in "
            "expressions: keys: {#b}", RequestItems={self.t: {
                "Keys": [{"pk": S("g1")}], "ProjectionExpression": "#a",
                "ExpressionAttributeNames": {"#a": "a", "#b": "b"}}})
        self.assertValidation(
            self.c.batch_get_item,
            "One or more parameter values were invalid: Duplicate value in "
            "attribute name: a", RequestItems={self.t: {
                "Keys": [{"pk": S("g1")}], "AttributesToGet": ["a", "a"]}})
        self.assertValidation(
            self.c.batch_get_item,
            "Invalid ProjectionExpression: The expression can not be empty;",
            RequestItems={self.t: {"Keys": [{"pk": S("g1")}],
                                   "ProjectionExpression": ""}})
        self.assertValidation(
            self.c.batch_get_item,
            "Key attributes must be scalars; list random access '[]' and "
            "map lookup '.' are not allowed: Key: pk",
            RequestItems={self.t: {"Keys": [{"pk": S("g1")}],
                                   "ProjectionExpression": "pk.x"}})

    @dynalite_differs(JAVA_MAP)
    def test_shape_errors(self):
        self.assertValidation(
            self.u.batch_get_item,
            "1 validation error detected: Value at 'RequestItems' "
            "failed to satisfy constraint: Member must have length greater "
            "than or equal to 1", RequestItems={})
        status, b = self.raw("BatchGetItem", {
            "ReturnConsumedCapacity": "hi",
            "ReturnItemCollectionMetrics": "hi"})      # not a member here
        self.assertEqual((status, b["message"]), (400,
            "2 validation errors detected: Value 'hi' at "
            "'returnConsumedCapacity' failed to satisfy constraint: Member "
            "must satisfy enum value set: [INDEXES, TOTAL, NONE]; Value null "
            "at 'requestItems' failed to satisfy constraint: Member must not "
            "be null"))
        self.assertValidation(
            self.u.batch_get_item,
            "1 validation error detected: Value at "
            "'RequestItems.%s.member.Keys' failed to satisfy constraint: "
            "Member must have length greater than or equal to 1" % self.t,
            RequestItems={self.t: {"Keys": []}})
        e = self.assertValidation(self.u.batch_get_item, RequestItems={
            "a": {}})
        self.assertEqual(
            "2 validation errors detected: Value '{\"a\":{}}' at "
            "'requestItems' failed to satisfy constraint: " + TABLE_KEYS +
            "; Value null at 'requestItems.a.member.keys' failed to "
            "satisfy constraint: Member must not be null",
            e.response["Error"]["Message"])

    def test_serialization(self):
        status, b = self.raw("BatchGetItem",
                             {"RequestItems": {self.t: {"Keys": ["x"]}}})
        self.assertEqual(status, 400)
        self.assertIn("ParameterizedTypeImpl", b["Message"])
        status, b = self.raw("BatchGetItem", {"RequestItems": {self.t: 5}})
        self.assertEqual(b["Message"], "Unexpected value type in payload")
        status, b = self.raw("BatchGetItem", {"RequestItems": []})
        self.assertEqual(b["Message"], "Unrecognized collection type "
                         "java.util.Map<java.lang.String, com.amazonaws."
                         "dynamodb.v20120810.KeysAndAttributes>")


# ---------------------------------------------------------------------------
# Throttled items (shardlocal's fault injection: POST /shardlocal/faults)
# ---------------------------------------------------------------------------

SCALING = ("Throughput exceeds the current capacity of your table or index. "
           "DynamoDB is automatically scaling your table or index so please "
           "try again shortly. If exceptions persist, check if you have a "
           "hot key: https://docs.aws.amazon.com/amazondynamodb/latest/"
           "developerguide/bp-partition-key-design.html")


@unittest.skipIf(ENDPOINT is None or ON_DYNALITE,
                 "needs shardlocal's fault injection")
class BatchThrottleTest(BatchCase):

    def fault(self, **rule):
        u = urllib.parse.urlsplit(ENDPOINT)
        conn = http.client.HTTPConnection(u.hostname, u.port or 80,
                                          timeout=10)
        try:
            conn.request("POST", "/shardlocal/faults",
                         body=json.dumps(rule).encode(),
                         headers={"Content-Type": "application/json"})
            r = conn.getresponse()
            self.assertEqual(r.status, 200, r.read())
            r.read()
        finally:
            conn.close()

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        # No retries at all: a throttled call must surface.
        cls.c = boto3.client("dynamodb", endpoint_url=ENDPOINT,
                             region_name=REGION, config=Config(retries={
                                 "total_max_attempts": 1,
                                 "mode": "standard"}))

    def tearDown(self):
        for t in (self.t, self.tr, self.tn):
            self.fault(clear=True, table=t)

    def test_throttled_write_goes_to_unprocessed_items(self):
        self.fault(table=self.t, key=S("hot"), op="write", count=1)
        hot = {"PutRequest": {"Item": {"pk": S("hot"), "v": N("1")}}}
        req = {self.t: [{"PutRequest": {"Item": {"pk": S("cold1")}}}, hot,
                        {"DeleteRequest": {"Key": {"pk": S("cold2")}}}]}
        r = self.c.batch_write_item(RequestItems=req,
                                    ReturnConsumedCapacity="TOTAL")
        self.assertEqual(r["UnprocessedItems"], {self.t: [hot]})
        self.assertEqual(r["ConsumedCapacity"],
                         [{"TableName": self.t, "CapacityUnits": 2.0}])
        self.assertIsNone(self.get(self.t, {"pk": S("hot")}))
        self.assertIsNotNone(self.get(self.t, {"pk": S("cold1")}))
        # Sent straight back, it goes through.
        r = self.c.batch_write_item(RequestItems=r["UnprocessedItems"])
        self.assertEqual(r["UnprocessedItems"], {})
        self.assertEqual(self.get(self.t, {"pk": S("hot")}),
                         {"pk": S("hot"), "v": N("1")})

    def test_batch_writer_resends_unprocessed(self):
        self.fault(table=self.tr, key=S("bwhot"), op="write", count=3)
        table = resource().Table(self.tr)
        with table.batch_writer() as bw:
            for i in range(4):
                bw.put_item(Item={"pk": "bwhot", "sk": i})
                bw.put_item(Item={"pk": "bwcold", "sk": i})
        got = self.c.query(TableName=self.tr, KeyConditionExpression="pk = :p",
                           ExpressionAttributeValues={":p": S("bwhot")},
                           ConsistentRead=True)
        self.assertEqual(got["Count"], 4)

    def test_nothing_processed_fails(self):
        self.fault(table=self.t, op="write", count=2)
        e = self.assertError(self.c.batch_write_item, "ThrottlingException",
                             SCALING, RequestItems={self.t: [
                                 {"PutRequest": {"Item": {"pk": S("t1")}}},
                                 {"PutRequest": {"Item": {"pk": S("t2")}}}]})
        arn = self.c.describe_table(TableName=self.t)["Table"]["TableArn"]
        if "throttlingReasons" in e.response:       # botocore >= 1.38
            self.assertEqual(e.response["throttlingReasons"], [
                {"reason": "TableWriteKeyRangeThroughputExceeded",
                 "resource": arn}])
        self.assertIsNone(self.get(self.t, {"pk": S("t1")}))

    def test_throttled_read_goes_to_unprocessed_keys(self):
        self.c.put_item(TableName=self.t, Item={"pk": S("rhot"), "a": N("1")})
        self.c.put_item(TableName=self.t, Item={"pk": S("rcold"),
                                                "a": N("2")})
        self.fault(table=self.t, key=S("rhot"), op="read", count=1)
        r = self.c.batch_get_item(RequestItems={self.t: {
            "Keys": [{"pk": S("rhot")}, {"pk": S("rcold")}],
            "ProjectionExpression": "#a", "ExpressionAttributeNames":
            {"#a": "a"}, "ConsistentRead": True}},
            ReturnConsumedCapacity="TOTAL")
        self.assertEqual(r["Responses"], {self.t: [{"a": N("2")}]})
        self.assertEqual(r["UnprocessedKeys"], {self.t: {
            "Keys": [{"pk": S("rhot")}], "ProjectionExpression": "#a",
            "ExpressionAttributeNames": {"#a": "a"},
            "ConsistentRead": True}})
        self.assertEqual(r["ConsumedCapacity"],
                         [{"TableName": self.t, "CapacityUnits": 1.0}])
        r = self.c.batch_get_item(RequestItems=r["UnprocessedKeys"])
        self.assertEqual(r["Responses"], {self.t: [{"a": N("1")}]})
        self.assertEqual(r["UnprocessedKeys"], {})

    def test_every_read_throttled_fails(self):
        self.fault(table=self.tn, op="read", count=2)
        self.assertError(self.c.batch_get_item, "ThrottlingException",
                         SCALING, RequestItems={self.tn: {
                             "Keys": [{"id": N("1")}, {"id": N("2")}]}})


# ---------------------------------------------------------------------------
# The 16 MB response limit
# ---------------------------------------------------------------------------

@dynalite_differs("dynalite keeps the old 1 MB limit")
class BatchGetLimitTest(BatchCase):
    ITEM = 307200               # 300 KB, the API reference's example

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        # 18 MB in a second is far past a partition's 1,000 WCU: lift
        # shardlocal's throttling for this table (a tag, harmless on
        # DynamoDB) and still retry what comes back unprocessed.
        cls.t = cls.make_table("b16", hash_key=("pk", "S"), Tags=[
            {"Key": "shardlocal:throttle", "Value": "off"}])
        pending = [{"PutRequest": {"Item": {
            "pk": S("L%02d" % i),                     # 3 bytes + "pk" = 5
            "d": S("x" * (cls.ITEM - 6))}}} for i in range(60)]
        while pending:
            batch, pending = pending[:25], pending[25:]
            req = {cls.t: batch}
            while req:
                try:
                    req = cls.c.batch_write_item(
                        RequestItems=req)["UnprocessedItems"]
                except cls.c.exceptions.ClientError as e:
                    if "Throttl" not in e.response["Error"]["Code"]:
                        raise
                if req:
                    time.sleep(0.5)

    def test_16mb_gives_unprocessed_keys_to_send_back(self):
        keys = [{"pk": S("L%02d" % i)} for i in range(60)]
        req = {self.t: {"Keys": keys, "ConsistentRead": True,
                        "ProjectionExpression": "pk, #d",
                        "ExpressionAttributeNames": {"#d": "d"}}}
        r = self.c.batch_get_item(RequestItems=req,
                                  ReturnConsumedCapacity="TOTAL")
        got = r["Responses"][self.t]
        # 100 items of 300 KB -> 52 returned, says the API reference.
        self.assertEqual(len(got), 52)
        un = r["UnprocessedKeys"][self.t]
        self.assertEqual(len(un["Keys"]), 8)
        self.assertIs(un["ConsistentRead"], True)
        self.assertEqual(un["ProjectionExpression"], "pk, #d")
        self.assertEqual(un["ExpressionAttributeNames"], {"#d": "d"})
        # Only the items read are charged: 75 units each (300 KB / 4 KB).
        self.assertEqual(r["ConsumedCapacity"],
                         [{"TableName": self.t, "CapacityUnits": 52 * 75.0}])
        seen = {i["pk"]["S"] for i in got}
        r2 = self.c.batch_get_item(RequestItems=r["UnprocessedKeys"])
        self.assertEqual(r2["UnprocessedKeys"], {})
        seen |= {i["pk"]["S"] for i in r2["Responses"][self.t]}
        self.assertEqual(seen, {"L%02d" % i for i in range(60)})

    def test_resource_loop_until_done(self):
        db = resource()
        pending = {self.t: {"Keys": [{"pk": "L%02d" % i}
                                     for i in range(60)],
                            "ProjectionExpression": "pk"}}
        rounds, seen = 0, set()
        while pending:
            r = db.batch_get_item(RequestItems=pending)
            seen |= {i["pk"] for i in r["Responses"].get(self.t, [])}
            pending = r["UnprocessedKeys"]
            rounds += 1
        # The limit counts the items read, not the projected reply.
        self.assertEqual(rounds, 2)
        self.assertEqual(len(seen), 60)


if __name__ == "__main__":
    unittest.main()
