# SPDX-License-Identifier: MIT
# test_client_fidelity.py - what real clients send and DynamoDB accepts
# that a local server easily gets wrong: strings and attribute names
# holding U+0000 and every other code point, written through every item
# path and read back whole; DeleteTable's description, document path
# limits and start keys of tables without a sort key. Sources are named
# next to each test.
import json
import unittest
import urllib.request

from e2e_common import ENDPOINT, E2ECase, unique_name, wait_active

# An attribute name made of the 256 Latin-1 characters, U+0000 first:
# DynamoDB takes it through UpdateItem (expressions and the legacy
# AttributeUpdates) and returns it from GetItem (issue 12, from a test
# suite recorded against DynamoDB; names are any UTF-8 of 1 to 64 KB, the
# developer guide's "Attributes" limits).
LATIN1 = "".join(chr(i) for i in range(256))


def S(v):
    return {"S": v}


class NulAndCodePointsTest(E2ECase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.t = cls.make_table(hash_key=("pk", "S"))
        cls.tr = cls.make_table(hash_key=("pk", "S"), range_key=("sk", "S"))

    def get(self, key, **kw):
        return self.c.get_item(TableName=self.t, Key=key, ConsistentRead=True,
                               **kw).get("Item")

    def test_latin1_name_through_update_expression(self):
        key = {"pk": S(unique_name("k"))}
        r = self.c.update_item(TableName=self.t, Key=key,
                               UpdateExpression="SET #n = :v",
                               ExpressionAttributeNames={"#n": LATIN1},
                               ExpressionAttributeValues={":v": S("q")},
                               ReturnValues="UPDATED_NEW")
        self.assertEqual(r["Attributes"], {LATIN1: S("q")})
        self.assertEqual(self.get(key), dict(key, **{LATIN1: S("q")}))
        # and read by name, in a projection and a condition
        self.assertEqual(self.get(key, ProjectionExpression="#n",
                                  ExpressionAttributeNames={"#n": LATIN1}),
                         {LATIN1: S("q")})
        self.c.update_item(TableName=self.t, Key=key,
                           UpdateExpression="SET #n = :w",
                           ConditionExpression="#n = :v",
                           ExpressionAttributeNames={"#n": LATIN1},
                           ExpressionAttributeValues={":v": S("q"),
                                                      ":w": S("r")})
        self.assertEqual(self.get(key)[LATIN1], S("r"))

    def test_latin1_name_through_attribute_updates(self):
        key = {"pk": S(unique_name("k"))}
        self.c.update_item(TableName=self.t, Key=key,
                           AttributeUpdates={LATIN1: {"Action": "PUT",
                                                      "Value": S("z")}})
        self.assertEqual(self.get(key), dict(key, **{LATIN1: S("z")}))
        self.assertEqual(self.get(key, AttributesToGet=[LATIN1]),
                         {LATIN1: S("z")})
        self.c.update_item(TableName=self.t, Key=key,
                           AttributeUpdates={LATIN1: {"Action": "DELETE"}},
                           Expected={LATIN1: {"Value": S("z")}})
        self.assertEqual(self.get(key), key)

    # Names that differ only after a U+0000 are different attributes: no
    # "Two document paths overlap" and two values kept apart; a map's
    # keys too; set members differing after U+0000 are distinct.
    def test_names_differing_after_nul(self):
        key = {"pk": S(unique_name("k"))}
        a, b = "x\x00a", "x\x00b"
        self.c.update_item(
            TableName=self.t, Key=key,
            UpdateExpression="SET #a = :one, #b = :two, m = :m ADD s :s",
            ExpressionAttributeNames={"#a": a, "#b": b},
            ExpressionAttributeValues={
                ":one": {"N": "1"}, ":two": {"N": "2"},
                ":m": {"M": {a: S("ma"), b: S("mb")}},
                ":s": {"SS": ["\x00", "\x00\x00", "v\x00a"]}})
        item = self.get(key)
        self.assertEqual(item[a], {"N": "1"})
        self.assertEqual(item[b], {"N": "2"})
        self.assertNotIn("x", item)
        self.assertEqual(item["m"], {"M": {a: S("ma"), b: S("mb")}})
        self.assertEqual(sorted(item["s"]["SS"]),
                         ["\x00", "\x00\x00", "v\x00a"])
        self.c.update_item(TableName=self.t, Key=key,
                           UpdateExpression="REMOVE m.#a DELETE s :s",
                           ExpressionAttributeNames={"#a": a},
                           ExpressionAttributeValues={
                               ":s": {"SS": ["\x00"]}})
        item = self.get(key)
        self.assertEqual(item["m"], {"M": {b: S("mb")}})
        self.assertEqual(sorted(item["s"]["SS"]), ["\x00\x00", "v\x00a"])

    # A key value of U+0000 alone is one character, not an empty string
    # (DynamoDB refuses only the empty string for S keys, the API
    # reference's AttributeValue); "a" and "a\0" are two items.
    def test_nul_in_key_values(self):
        for k in ("\x00", "a", "a\x00", "a\x00\x00"):
            self.c.put_item(TableName=self.tr,
                            Item={"pk": S("nul"), "sk": S(k), "v": S(k)})
        r = self.c.query(TableName=self.tr,
                         KeyConditionExpression="pk = :p",
                         ExpressionAttributeValues={":p": S("nul")})
        self.assertEqual([it["sk"]["S"] for it in r["Items"]],
                         ["\x00", "a", "a\x00", "a\x00\x00"])
        got = self.c.get_item(TableName=self.tr, ConsistentRead=True,
                              Key={"pk": S("nul"), "sk": S("a\x00")})
        self.assertEqual(got["Item"]["v"], S("a\x00"))
        # U+0000 as a Query's key value and in ExclusiveStartKey
        self.c.put_item(TableName=self.tr,
                        Item={"pk": S("\x00"), "sk": S("\x00")})
        self.c.put_item(TableName=self.tr,
                        Item={"pk": S("\x00"), "sk": S("b")})
        r = self.c.query(TableName=self.tr,
                         KeyConditionExpression="pk = :p AND sk > :s",
                         ExpressionAttributeValues={":p": S("\x00"),
                                                    ":s": S("\x00")})
        self.assertEqual(r["Items"], [{"pk": S("\x00"), "sk": S("b")}])
        r = self.c.query(TableName=self.tr,
                         KeyConditionExpression="pk = :p",
                         ExpressionAttributeValues={":p": S("\x00")},
                         ExclusiveStartKey={"pk": S("\x00"),
                                            "sk": S("\x00")})
        self.assertEqual(r["Items"], [{"pk": S("\x00"), "sk": S("b")}])

    # Every other code point: the ends of each UTF-8 length and a
    # character outside the BMP (a surrogate pair on the wire from
    # Python; raw UTF-8 from the JS SDK, sent below as raw bytes).
    @unittest.skipIf(ENDPOINT is None, "raw HTTP needs a local endpoint")
    def test_code_points_round_trip(self):
        text = "\x7f\x80\u07ff\u0800\ud7ff\ue000\ufffd\uffff\U00010000" \
               "\U0010ffff\U0001f600"
        key = {"pk": S(text)}
        self.c.put_item(TableName=self.t, Item=dict(key, **{text: S(text)}))
        self.assertEqual(self.get(key), dict(key, **{text: S(text)}))
        body = json.dumps({"TableName": self.t, "Key": key,
                           "ConsistentRead": True},
                          ensure_ascii=False).encode("utf-8")
        req = urllib.request.Request(ENDPOINT, data=body, headers={
            "X-Amz-Target": "DynamoDB_20120810.GetItem",
            "Content-Type": "application/x-amz-json-1.0",
            "Authorization": "AWS4-HMAC-SHA256 Credential=x/20250101/"
                             "us-east-1/dynamodb/aws4_request, "
                             "SignedHeaders=host, Signature=0"})
        with urllib.request.urlopen(req) as resp:
            got = json.loads(resp.read().decode("utf-8"))
        self.assertEqual(got["Item"], dict(key, **{text: S(text)}))


class NulThroughIndexesTest(E2ECase):
    """A name holding U+0000 copied into a GSI (ALL) and read back."""

    def test_gsi_projection_keeps_whole_names(self):
        t = unique_name("nul")
        self.c.create_table(
            TableName=t, BillingMode="PAY_PER_REQUEST",
            AttributeDefinitions=[{"AttributeName": "pk",
                                   "AttributeType": "S"},
                                  {"AttributeName": "g",
                                   "AttributeType": "S"}],
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
            GlobalSecondaryIndexes=[{
                "IndexName": "gnul",
                "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                "Projection": {"ProjectionType": "ALL"}}])
        self._tables.append(t)
        wait_active(self.c, t)
        item = {"pk": S("p"), "g": S("\x00"), LATIN1: S("1"),
                "x\x00": S("2")}
        self.c.put_item(TableName=t, Item=item)
        r = self.c.query(TableName=t, IndexName="gnul",
                         KeyConditionExpression="g = :g",
                         ExpressionAttributeValues={":g": S("\x00")})
        self.assertEqual(r["Items"], [item])


class DeleteTableDescriptionTest(E2ECase):
    """DeleteTable answers with the description of a deleting table, which
    holds less than DescribeTable's: no KeySchema, AttributeDefinitions,
    CreationDateTime or indexes. Every recorded DeleteTable answer shows
    that shape: the AWS CLI getting started tutorial's delete-table output
    (on demand: BillingModeSummary, TableClassSummary,
    DeletionProtectionEnabled), and provisioned tables' outputs quoted by
    the AWS CDK workshop and the WSO2 DynamoDB connector docs. No
    WarmThroughput either (a catalogue of recorded DynamoDB behaviours,
    2026-10-09)."""

    ALLOWED = {"TableName", "TableStatus", "ProvisionedThroughput",
               "TableSizeBytes", "ItemCount", "TableArn", "TableId",
               "BillingModeSummary", "TableClassSummary",
               "DeletionProtectionEnabled"}

    def check(self, name, on_demand):
        before = self.c.describe_table(TableName=name)["Table"]
        td = self.c.delete_table(TableName=name)["TableDescription"]
        self.assertEqual(td["TableStatus"], "DELETING")
        self.assertLessEqual(set(td), self.ALLOWED)
        for k in ("TableName", "TableArn", "TableId", "ItemCount",
                  "TableSizeBytes"):
            self.assertEqual(td[k], before[k], k)
        self.assertEqual(td["ProvisionedThroughput"]["ReadCapacityUnits"],
                         before["ProvisionedThroughput"]["ReadCapacityUnits"])
        self.assertEqual("BillingModeSummary" in td, on_demand)
        for gone in ("KeySchema", "AttributeDefinitions", "CreationDateTime",
                     "GlobalSecondaryIndexes", "LocalSecondaryIndexes"):
            self.assertNotIn(gone, td)
        return td

    def test_on_demand_with_indexes(self):
        name = unique_name("del")
        self.c.create_table(
            TableName=name, BillingMode="PAY_PER_REQUEST",
            AttributeDefinitions=[
                {"AttributeName": "pk", "AttributeType": "S"},
                {"AttributeName": "sk", "AttributeType": "S"},
                {"AttributeName": "g", "AttributeType": "S"}],
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                       {"AttributeName": "sk", "KeyType": "RANGE"}],
            GlobalSecondaryIndexes=[{
                "IndexName": "gidx",
                "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                "Projection": {"ProjectionType": "ALL"}}],
            LocalSecondaryIndexes=[{
                "IndexName": "lidx",
                "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"},
                              {"AttributeName": "g", "KeyType": "RANGE"}],
                "Projection": {"ProjectionType": "KEYS_ONLY"}}])
        self._tables.append(name)
        wait_active(self.c, name)
        self.c.put_item(TableName=name, Item={"pk": S("a"), "sk": S("b")})
        td = self.check(name, True)
        self.assertEqual(td["BillingModeSummary"]["BillingMode"],
                         "PAY_PER_REQUEST")

    def test_provisioned(self):
        name = unique_name("del")
        self.c.create_table(
            TableName=name,
            AttributeDefinitions=[{"AttributeName": "pk",
                                   "AttributeType": "S"}],
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
            ProvisionedThroughput={"ReadCapacityUnits": 3,
                                   "WriteCapacityUnits": 4})
        self._tables.append(name)
        wait_active(self.c, name)
        td = self.check(name, False)
        self.assertEqual(td["ProvisionedThroughput"]["WriteCapacityUnits"],
                         4)


class DocumentPathLimitsTest(E2ECase):
    """A document path has at most 32 levels and list indexes up to
    4294967294, in every expression, checked before the item is read.
    Sources: Alternator's test_projection_expression.py
    (test_projection_expression_path_nesting_levels, run against DynamoDB:
    32 levels accepted, 33 refused with "nesting levels"); floci's
    ProjectionEvaluator, checked against DynamoDB in us-east-1 in 2026-09,
    for both texts and the index bound; DynamoDB Local's messages agree."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.t = cls.make_table(hash_key=("pk", "S"))
        cls.c.put_item(TableName=cls.t,
                       Item={"pk": S("p"), "a": {"L": [S("x")]}})

    def path(self, levels):
        return ".".join(["a"] * levels)

    def test_nesting_levels(self):
        r = self.c.get_item(TableName=self.t, Key={"pk": S("p")},
                            ProjectionExpression=self.path(32))
        self.assertEqual(r["Item"], {})
        self.assertValidation(
            self.c.get_item, "Invalid ProjectionExpression: The document "
            "path has too many nesting levels; nesting levels: 33",
            TableName=self.t, Key={"pk": S("p")},
            ProjectionExpression=self.path(33))
        # list indexes count as levels; names and values are not looked at
        self.assertValidation(
            self.c.scan, "Invalid FilterExpression: The document path has "
            "too many nesting levels; nesting levels: 40",
            TableName=self.t, FilterExpression="#a" + "[0]" * 39 + " = :v")
        with self.assertRaises(Exception) as cm:
            self.c.update_item(TableName=self.t, Key={"pk": S("p")},
                               UpdateExpression="SET " + self.path(33)
                               + " = :v",
                               ExpressionAttributeValues={":v": S("v")})
        self.assertIn("Invalid UpdateExpression: The document path has too "
                      "many nesting levels; nesting levels: 33",
                      str(cm.exception))

    def test_list_index_range(self):
        r = self.c.get_item(TableName=self.t, Key={"pk": S("p")},
                            ProjectionExpression="a[4294967294]")
        self.assertEqual(r["Item"], {})
        for index in ("4294967295", "99999999999999999999999"):
            self.assertValidation(
                self.c.get_item, "Invalid ProjectionExpression: List index "
                "is not within the allowable range; index: [%s]" % index,
                TableName=self.t, Key={"pk": S("p")},
                ProjectionExpression="a[%s]" % index)
        r = self.c.get_item(TableName=self.t, Key={"pk": S("p")},
                            ProjectionExpression="a[0]")
        self.assertEqual(r["Item"], {"a": {"L": [S("x")]}})


class HashOnlyStartKeyTest(E2ECase):
    """ExclusiveStartKey on a table without a sort key: the key is the hash
    attribute alone. Pages resume after it; a key of the wrong type, with
    another attribute or without the hash one, or outside the Query's
    partition is refused (dynalite's query and scan tests, recorded against
    DynamoDB: "should return ValidationException if ExclusiveStartKey does
    not match hash schema", "...starting key is invalid", "...outside query
    boundaries"; Scan's "The provided starting key is invalid: " form in
    its validations)."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.t = cls.make_table(hash_key=("pk", "S"))
        for i in range(6):
            cls.c.put_item(TableName=cls.t, Item={"pk": S("k%d" % i)})

    def query(self, esk, pk="k1"):
        return self.c.query(TableName=self.t, KeyConditionExpression="pk = :p",
                            ExpressionAttributeValues={":p": S(pk)},
                            ExclusiveStartKey=esk)

    def test_pages_resume_after_the_key(self):
        seen, kw = [], {}
        while True:
            r = self.c.scan(TableName=self.t, Limit=1, **kw)
            seen += [it["pk"]["S"] for it in r["Items"]]
            if "LastEvaluatedKey" not in r:
                break
            self.assertEqual(set(r["LastEvaluatedKey"]), {"pk"})
            kw = {"ExclusiveStartKey": r["LastEvaluatedKey"]}
        self.assertEqual(sorted(seen), ["k%d" % i for i in range(6)])
        r = self.c.query(TableName=self.t, KeyConditionExpression="pk = :p",
                         ExpressionAttributeValues={":p": S("k1")}, Limit=1)
        self.assertEqual(r["LastEvaluatedKey"], {"pk": S("k1")})
        self.assertEqual(self.query({"pk": S("k1")})["Items"], [])

    def test_query_refusals(self):
        for esk, msg in (
                ({"pk": {"N": "1"}}, "The provided key element does not "
                                     "match the schema"),
                ({"pk": {"BOOL": True}}, "The provided key element does not "
                                         "match the schema"),
                ({"pk": S("k1"), "sk": S("x")}, "The provided starting key "
                                                 "is invalid"),
                ({"a": S("k1")}, "The provided starting key is invalid"),
                ({"pk": S("k2")}, "The provided starting key is outside "
                                  "query boundaries based on provided "
                                  "conditions")):
            with self.subTest(esk=esk):
                self.assertValidation(self.query, msg, esk=esk)

    def test_scan_refusals(self):
        for esk in ({"pk": {"N": "1"}}, {"pk": S("k1"), "sk": S("x")},
                    {"a": S("k1")}):
            with self.subTest(esk=esk):
                self.assertValidation(
                    self.c.scan, "The provided starting key is invalid: The "
                    "provided key element does not match the schema",
                    TableName=self.t, ExclusiveStartKey=esk)


if __name__ == "__main__":
    unittest.main()
