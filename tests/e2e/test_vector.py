# SPDX-License-Identifier: MIT
# test_vector.py - vector indexes on the wire, in raw HTTP (vector_http.py:
# boto3 does not model them yet): how the search endpoint reads a request
# (a strict deserialiser before the model's checks, paritysuite/
# dynamodb-conformance tier3 searchVectors.test.ts, eu-west-2 and
# us-east-1, 2026-10-09), the answer's shape, and the model's checks of
# VectorIndexes and VectorIndexUpdates. The JS SDK suite
# (js/vector.test.mjs) covers the behaviour through a modelled client.
import re
import unittest

from e2e_common import ENDPOINT, unique_name
from vector_http import Api, call_raw, table_request, vec, vector_index


@unittest.skipUnless(ENDPOINT, "raw HTTP needs SHARDLOCAL_ENDPOINT")
class SearchVectorsWire(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.api = Api(ENDPOINT)
        cls.table = unique_name("vw")
        cls.api.ok("CreateTable", **table_request(cls.table, [
            vector_index()]))
        cls.api.ok("PutItem", TableName=cls.table, Item={
            "pk": {"S": "a"}, "embedding": {"L": vec(1, 0, 0)}})

    @classmethod
    def tearDownClass(cls):
        cls.api.call("DeleteTable", TableName=cls.table)

    def valid(self, **over):
        body = {"TableName": self.table, "IndexName": "vix",
                "SearchVector": vec(1, 0, 0), "TopK": 1}
        body.update(over)
        return body

    # paritysuite tier3 searchVectors.test.ts ("refuses an explicit null
    # member as a SerializationException").
    def test_null_member_is_a_serialization_exception(self):
        for member, expected in (("IndexName", "a string"),
                                 ("TableName", "a string"),
                                 ("SearchVector", "a sequence"),
                                 ("TopK", "i32")):
            with self.subTest(member=member):
                code, msg = self.api.error("SearchVectors",
                                           **self.valid(**{member: None}))
                self.assertEqual(code, "SerializationException")
                self.assertRegex(msg, r"^invalid type: null, expected %s at "
                                 r"line 1 column \d+$" % expected)

    # paritysuite tier3 searchVectors.test.ts ("names a missing TableName as
    # a missing field, before a too-short IndexName").
    def test_missing_table_name_before_short_index_name(self):
        for over in ({}, {"IndexName": "ab"}):
            body = self.valid(**over)
            del body["TableName"]
            code, msg = self.api.error("SearchVectors", **body)
            self.assertEqual(code, "ValidationException")
            self.assertRegex(msg, r"^missing field `TableName` at line 1 "
                             r"column \d+$")

    # The column counts the compact body (serde_json's: the last byte read).
    # Our own assertion: DynamoDB's figure for this exact body is not
    # recorded, the suite matches any number.
    def test_column_of_a_compact_body(self):
        status, out = call_raw(ENDPOINT, "SearchVectors",
                               b'{"TableName":null}')
        self.assertEqual(status, 400)
        self.assertEqual(out["Message"], "invalid type: null, expected a "
                         "string at line 1 column 17")
        status, out = call_raw(ENDPOINT, "SearchVectors",
                               b'{"IndexName":"vix"}')
        self.assertEqual(out["message"], "missing field `TableName` at line "
                         "1 column 19")

    # Other wrong types get the deserialiser's wording too (ours, after
    # serde_json's: not recorded against DynamoDB).
    def test_wrong_types(self):
        code, msg = self.api.error("SearchVectors", **self.valid(TopK="5"))
        self.assertEqual(code, "SerializationException")
        self.assertTrue(msg.startswith('invalid type: string "5", expected '
                                       'i32 at line 1 column'), msg)
        code, msg = self.api.error("SearchVectors",
                                   **self.valid(TopK=3000000000))
        self.assertTrue(msg.startswith("invalid value: integer "
                                       "`3000000000`, expected i32"), msg)
        code, msg = self.api.error("SearchVectors",
                                   **self.valid(SearchVector={"N": "1"}))
        self.assertTrue(msg.startswith("invalid type: map, expected a "
                                       "sequence"), msg)

    # The answer: SearchResults of {Item, Score}, Score a JSON number, no
    # ConsumedCapacity unless asked (API reference, SearchVectors).
    def test_answer_shape(self):
        out = self.api.ok("SearchVectors", **self.valid(TopK=5))
        self.assertEqual(list(out), ["SearchResults"])
        self.assertEqual(out["SearchResults"],
                         [{"Item": {"pk": {"S": "a"}}, "Score": 0}])
        out = self.api.ok("SearchVectors",
                          **self.valid(ReturnConsumedCapacity="INDEXES"))
        self.assertEqual(list(out["ConsumedCapacity"]),
                         ["VectorSearchRequestBytes"])

    # The expressions' names and values are checked as everywhere:
    # unused ones are refused (DynamoDB's wording for other operations).
    def test_unused_expression_values(self):
        code, msg = self.api.error("SearchVectors", **self.valid(
            ExpressionAttributeValues={":x": {"S": "y"}}))
        self.assertEqual(code, "ValidationException")
        self.assertEqual(msg, "Value provided in ExpressionAttributeValues "
                         "unused in expressions: keys: {:x}")

    # The request model: VectorIndexes' enumerations and required members
    # (API reference, VectorIndex and SearchSchemaElement).
    def test_model_checks_of_vector_indexes(self):
        req = table_request(unique_name("vwm"),
                            [vector_index(fn="MANHATTAN")])
        code, msg = self.api.error("CreateTable", **req)
        self.assertEqual(code, "ValidationException")
        self.assertIn("Member must satisfy enum value set: [COSINE, "
                      "DOT_PRODUCT, EUCLIDEAN]", msg)
        vi = vector_index()
        del vi["VectorAttribute"]
        code, msg = self.api.error("CreateTable",
                                   **table_request(unique_name("vwm"), [vi]))
        self.assertIn("Member must not be null", msg)
        code, msg = self.api.error("UpdateTable", TableName=self.table,
                                   VectorIndexUpdates=[{"Create": {
                                       "IndexName": "x"}}])
        self.assertTrue(re.search(r"failed to satisfy constraint", msg), msg)

    # A stream change beside a vector index update is refused as beside a
    # GSI update (DDB-TABLE-442's message; for vector indexes no recording
    # exists: our choice).
    def test_stream_change_with_a_vector_index_update(self):
        code, msg = self.api.error(
            "UpdateTable", TableName=self.table,
            StreamSpecification={"StreamEnabled": True,
                                 "StreamViewType": "KEYS_ONLY"},
            VectorIndexUpdates=[{"Delete": {"IndexName": "vix"}}])
        self.assertEqual(code, "ValidationException")
        self.assertEqual(msg, "One or more parameter values were invalid: "
                         "You cannot create or delete index while changing "
                         "stream status")

    # PartiQL writes are base-table writes like any other: the index
    # follows INSERT, UPDATE, DELETE and ExecuteTransaction, while the
    # index itself is not readable through PartiQL (developer guide,
    # "Requirements and limitations": vector indexes are not accessible
    # through PartiQL; the answer for a SELECT on one is our choice, the
    # one for any index the table does not have). A vector PartiQL writes
    # that the index cannot take is refused as PutItem refuses it.
    def test_partiql_writes_keep_the_index(self):
        t = unique_name("vwp")
        api = self.api
        api.ok("CreateTable", **table_request(t, [vector_index()]))
        try:
            def found():
                out = api.ok("SearchVectors", TableName=t, IndexName="vix",
                             SearchVector=vec(1, 0, 0), TopK=10)
                return sorted(r["Item"]["pk"]["S"]
                              for r in out["SearchResults"])

            def stmt(s):
                return api.ok("ExecuteStatement", Statement=s)

            stmt("INSERT INTO \"%s\" VALUE {'pk': 'a', "
                 "'embedding': [1, 0, 0]}" % t)
            stmt("INSERT INTO \"%s\" VALUE {'pk': 'b', "
                 "'embedding': [0, 1, 0]}" % t)
            self.assertEqual(found(), ["a", "b"])
            code, msg = api.error("ExecuteStatement", Statement=(
                "INSERT INTO \"%s\" VALUE {'pk': 'c', "
                "'embedding': [1, 0]}" % t))
            self.assertEqual(code, "ValidationException")
            self.assertIn("Expected: 3, Actual: 2", msg)
            stmt("UPDATE \"%s\" REMOVE embedding WHERE pk = 'b'" % t)
            self.assertEqual(found(), ["a"])
            stmt("UPDATE \"%s\" SET embedding = [0, 0, 1] "
                 "WHERE pk = 'b'" % t)
            self.assertEqual(found(), ["a", "b"])
            stmt("DELETE FROM \"%s\" WHERE pk = 'a'" % t)
            self.assertEqual(found(), ["b"])
            api.ok("ExecuteTransaction", TransactStatements=[
                {"Statement": "DELETE FROM \"%s\" WHERE pk = 'b'" % t},
                {"Statement": "INSERT INTO \"%s\" VALUE {'pk': 'd', "
                              "'embedding': [1, 1, 0]}" % t}])
            self.assertEqual(found(), ["d"])
            code, msg = api.error("ExecuteStatement", Statement=(
                "SELECT * FROM \"%s\".\"vix\"" % t))
            self.assertEqual(code, "ValidationException")
        finally:
            api.call("DeleteTable", TableName=t)


if __name__ == "__main__":
    unittest.main()
