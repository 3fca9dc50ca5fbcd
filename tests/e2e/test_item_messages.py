# SPDX-License-Identifier: MIT
# test_item_messages.py - the item operations' messages and order of
# checks, pinned to what DynamoDB answers (exact error type and message,
# limits, results): expression maps, key and attribute name sizes, the
# value layer, the write envelope, UpdateItem's order, key conditions,
# empty key values. Sources are named next to each test.
import unittest

import boto3
from botocore.config import Config

from e2e_common import ENDPOINT, REGION, E2ECase, dynalite_differs


def unvalidated_client():
    """A client that sends what botocore would reject client-side (empty
    strings below a model minimum), as JS v3 and raw HTTP clients do."""
    return boto3.client("dynamodb", endpoint_url=ENDPOINT,
                        region_name=REGION,
                        config=Config(retries={"max_attempts": 1},
                                      parameter_validation=False))


class ExpressionMapTest(E2ECase):
    """ExpressionAttributeNames / ExpressionAttributeValues themselves."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.t = cls.make_table(hash_key=("pk", "S"))

    # An empty name: "ExpressionAttributeNames contains invalid value:
    # Empty attribute name for key #DE" is what applications match on
    # (DynamoDB and DynamoDB Local answer it); UpdateItem puts it in the
    # write envelope (WriteEnvelopeTest), GetItem does not.
    @dynalite_differs("accepts an empty attribute name")
    def test_empty_attribute_name(self):
        self.assertValidation(
            self.c.update_item, TableName=self.t, Key={"pk": {"S": "a"}},
            UpdateExpression="SET #y = :v",
            ExpressionAttributeNames={"#y": ""},
            ExpressionAttributeValues={":v": {"S": "b"}},
            message="1 validation error detected: ExpressionAttributeNames "
                    "contains invalid value: Empty attribute name for key "
                    "#y")
        self.assertValidation(
            self.c.get_item, TableName=self.t, Key={"pk": {"S": "a"}},
            ProjectionExpression="#a, #b",
            ExpressionAttributeNames={"#a": "x", "#b": ""},
            message="ExpressionAttributeNames contains invalid value: "
                    "Empty attribute name for key #b")
        # nothing was written
        self.assertNotIn("Item", self.c.get_item(
            TableName=self.t, Key={"pk": {"S": "a"}}, ConsistentRead=True))

    # "The maximum length of any single expression attribute name or
    # expression attribute value is 255 bytes. For example, #name is five
    # bytes" (developer guide, expression parameter limits); UpdateItem in
    # the write envelope (WriteEnvelopeTest).
    @dynalite_differs("no placeholder length limit")
    def test_placeholder_length(self):
        name = "#" + "n" * 254                      # 255 bytes: fine
        self.c.get_item(TableName=self.t, Key={"pk": {"S": "a"}},
                        ProjectionExpression=name,
                        ExpressionAttributeNames={name: "x"})
        name = "#" + "n" * 255                      # 256 bytes
        self.assertValidation(
            self.c.get_item, TableName=self.t, Key={"pk": {"S": "a"}},
            ProjectionExpression=name, ExpressionAttributeNames={name: "x"},
            message="ExpressionAttributeNames contains invalid key: The "
                    "expression attribute map contains a key that is too "
                    "long")
        val = ":" + "v" * 255
        self.assertValidation(
            self.c.update_item, TableName=self.t, Key={"pk": {"S": "a"}},
            UpdateExpression="SET x = " + val,
            ExpressionAttributeValues={val: {"S": "b"}},
            message="1 validation error detected: ExpressionAttributeValues "
                    "contains invalid key: The expression attribute map "
                    "contains a key that is too long")
        val = ":" + "v" * 254
        self.c.update_item(TableName=self.t, Key={"pk": {"S": "p"}},
                           UpdateExpression="SET x = " + val,
                           ExpressionAttributeValues={val: {"S": "b"}})


class KeyNameLengthTest(E2ECase):
    """Key attribute names are KeySchemaAttributeName: 1..255 characters
    (service model; Alternator test_limits.py
    test_limit_attribute_length_key_good/_bad record DynamoDB)."""

    def test_255_is_fine(self):
        long_name = "k" * 255
        t = self.make_table(hash_key=(long_name, "S"),
                            range_key=("r" * 255, "N"))
        item = {long_name: {"S": "x"}, "r" * 255: {"N": "1"},
                "v": {"S": "y"}}
        self.c.put_item(TableName=t, Item=item)
        got = self.c.get_item(TableName=t, Key={long_name: {"S": "x"},
                                                "r" * 255: {"N": "1"}},
                              ConsistentRead=True)["Item"]
        self.assertEqual(got, item)

    @dynalite_differs("no key attribute name length limit")
    def test_256_is_rejected(self):
        too_long = "k" * 256
        self.assertValidation(
            self.c.create_table, TableName="conf_keyname",
            AttributeDefinitions=[{"AttributeName": too_long,
                                   "AttributeType": "S"}],
            KeySchema=[{"AttributeName": too_long, "KeyType": "HASH"}],
            BillingMode="PAY_PER_REQUEST",
            message="2 validation errors detected: Value '%s' at "
                    "'attributeDefinitions.1.member.attributeName' failed "
                    "to satisfy constraint: Member must have length less "
                    "than or equal to 255; Value '%s' at "
                    "'keySchema.1.member.attributeName' failed to satisfy "
                    "constraint: Member must have length less than or "
                    "equal to 255" % (too_long, too_long))
        # a long name in only one of the two lists is still a length error
        self.assertValidation(
            self.c.create_table, TableName="conf_keyname",
            AttributeDefinitions=[{"AttributeName": "x",
                                   "AttributeType": "S"}],
            KeySchema=[{"AttributeName": "x", "KeyType": "HASH"},
                       {"AttributeName": too_long, "KeyType": "RANGE"}],
            BillingMode="PAY_PER_REQUEST",
            message="1 validation error detected: Value '%s' at "
                    "'keySchema.2.member.attributeName' failed to satisfy "
                    "constraint: Member must have length less than or "
                    "equal to 255" % too_long)

    def test_empty_name_is_rejected(self):
        self.assertValidation(
            unvalidated_client().create_table, TableName="conf_keyname",
            AttributeDefinitions=[{"AttributeName": "",
                                   "AttributeType": "S"}],
            KeySchema=[{"AttributeName": "", "KeyType": "HASH"}],
            BillingMode="PAY_PER_REQUEST",
            message="2 validation errors detected: Value '' at "
                    "'attributeDefinitions.1.member.attributeName' failed "
                    "to satisfy constraint: Member must have length greater "
                    "than or equal to 1; Value '' at "
                    "'keySchema.1.member.attributeName' failed to satisfy "
                    "constraint: Member must have length greater than or "
                    "equal to 1")


class LegacyUpdateTypeMismatchTest(E2ECase):
    """AttributeUpdates ADD/DELETE onto an attribute of another type:
    "Type mismatch for attribute to update" (dynalite's tests, recorded
    against DynamoDB; the message is also listed among
    TransactionCanceledException's reasons in the API reference). The
    same mismatch in an UpdateExpression keeps "An operand in the update
    expression has an incorrect data type"."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.t = cls.make_table(hash_key=("pk", "S"))

    def setUp(self):
        self.key = {"pk": {"S": self.id()}}
        self.item = dict(self.key, n={"N": "1"}, ss={"SS": ["a"]},
                         s={"S": "x"}, l={"L": [{"N": "1"}]})
        self.c.put_item(TableName=self.t, Item=self.item)

    def update(self, updates):
        return self.c.update_item(TableName=self.t, Key=self.key,
                                  AttributeUpdates=updates,
                                  ReturnValues="ALL_NEW")

    def mismatch(self, updates):
        self.assertValidation(self.update, updates=updates,
                              message="Type mismatch for attribute to update")
        self.assertEqual(self.c.get_item(TableName=self.t, Key=self.key,
                                         ConsistentRead=True)["Item"],
                         self.item)

    def test_add_set_to_number(self):
        self.mismatch({"n": {"Action": "ADD", "Value": {"SS": ["b"]}}})

    def test_add_number_to_string(self):
        self.mismatch({"s": {"Action": "ADD", "Value": {"N": "1"}}})

    def test_add_other_set_type(self):
        self.mismatch({"ss": {"Action": "ADD", "Value": {"NS": ["1"]}}})

    def test_delete_other_set_type(self):
        self.mismatch({"ss": {"Action": "DELETE", "Value": {"NS": ["1"]}}})

    def test_add_list_to_number(self):
        self.mismatch({"n": {"Action": "ADD",
                             "Value": {"L": [{"N": "2"}]}}})

    def test_matching_types_still_work(self):
        got = self.update({"n": {"Action": "ADD", "Value": {"N": "2"}},
                           "ss": {"Action": "ADD", "Value": {"SS": ["b"]}},
                           "l": {"Action": "ADD",
                                 "Value": {"L": [{"N": "2"}]}}})["Attributes"]
        self.assertEqual(got["n"], {"N": "3"})
        self.assertEqual(sorted(got["ss"]["SS"]), ["a", "b"])
        self.assertEqual(got["l"], {"L": [{"N": "1"}, {"N": "2"}]})

    def test_update_expression_message_unchanged(self):
        self.assertValidation(
            self.c.update_item, TableName=self.t, Key=self.key,
            UpdateExpression="ADD n :v",
            ExpressionAttributeValues={":v": {"SS": ["b"]}},
            message="An operand in the update expression has an incorrect "
                    "data type")


class AttributeNameSizeTest(E2ECase):
    """Attribute names up to 65535 bytes; 65536 is refused wherever a name
    appears (measured against DynamoDB: ExtendDB issue #365; Alternator
    test_limits.py test_limit_attribute_length_nonkey_good/_bad)."""

    MSG = ("1 validation error detected: Attribute name is too large, "
           "must be less than 65536 bytes")

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.t = cls.make_table(hash_key=("pk", "S"))

    def test_65535_is_fine(self):
        name = "n" * 65535
        item = {"pk": {"S": "ok"}, name: {"N": "1"},
                "m": {"M": {name: {"S": "x"}}}}
        self.c.put_item(TableName=self.t, Item=item)
        got = self.c.get_item(TableName=self.t, Key={"pk": {"S": "ok"}},
                              ProjectionExpression="#n",
                              ExpressionAttributeNames={"#n": name},
                              ConsistentRead=True)["Item"]
        self.assertEqual(got, {name: {"N": "1"}})

    @dynalite_differs("no attribute name size limit")
    def test_65536_is_refused(self):
        name = "n" * 65536
        key = {"pk": {"S": "bad"}}
        cases = [
            (self.c.put_item, dict(Item=dict(key, **{name: {"N": "1"}}))),
            (self.c.put_item,
             dict(Item=dict(key, m={"M": {"x": {"L": [
                 {"M": {name: {"S": "x"}}}]}}}))),
            (self.c.update_item,
             dict(Key=key, UpdateExpression="SET d = :v",
                  ExpressionAttributeValues={":v": {"M": {name: {"S": "x"}}}})),
            (self.c.update_item,
             dict(Key=key, UpdateExpression="SET #n = :v",
                  ExpressionAttributeNames={"#n": name},
                  ExpressionAttributeValues={":v": {"S": "x"}})),
            (self.c.update_item,
             dict(Key=key, AttributeUpdates={
                 name: {"Action": "PUT", "Value": {"S": "x"}}})),
            (self.c.get_item,
             dict(Key=key, ProjectionExpression="#n",
                  ExpressionAttributeNames={"#n": name})),
            (self.c.get_item, dict(Key=key, AttributesToGet=[name])),
        ]
        for fn, kw in cases:
            with self.subTest(op=fn.__name__, args=sorted(kw)):
                self.assertValidation(fn, self.MSG, TableName=self.t, **kw)
        self.assertNotIn("Item", self.c.get_item(TableName=self.t, Key=key,
                                                 ConsistentRead=True))


NOT_NUMERIC = "The parameter cannot be converted to a numeric value"
OVERFLOW = ("Number overflow. Attempting to store a number with magnitude "
            "larger than supported range")
UNDERFLOW = ("Number underflow. Attempting to store a number with "
             "magnitude smaller than supported range")
INVALID = "One or more parameter values were invalid: "


def one(m):
    return "1 validation error detected: " + m


@dynalite_differs("records the older value layer only")
class ValueLayerTest(E2ECase):
    """DynamoDB checks values in one of two layers, chosen by operation
    (captured in four regions, 2026-10: paritysuite/dynamodb-conformance
    tests/tier3/error-messages/valueLayers.test.ts). PutItem, UpdateItem
    and DeleteItem: the current wording inside the "1 validation error
    detected: " envelope, wherever the value sits; GetItem, BatchGetItem
    and Query: the current wording bare, with no ExpressionAttributeValues
    wrapper; BatchWriteItem (and Scan, transactions): the older wording."""

    SHAPES = ["abc", "", "1e126", "1e2147483647"]
    CURRENT = [NOT_NUMERIC + ": abc", NOT_NUMERIC + ": ", OVERFLOW, OVERFLOW]
    OLDER = [NOT_NUMERIC + ": abc", NOT_NUMERIC, OVERFLOW, UNDERFLOW]
    DUPES = [{"SS": ["b", "a", "b"]},
             {"BS": [b"\xff", b"\x00", b"\x00"]},
             {"NS": ["2", "1", "2"]}]
    DUPE_CURRENT = [
        INVALID + 'Input collection ["a", "b", "b"] contains duplicates.',
        INVALID + 'Input collection ["AA==","/w==","AA=="]of type BS '
                  'contains duplicates.',
        INVALID + "Input collection contains duplicates.",
    ]
    DUPE_OLDER = [
        INVALID + "Input collection [b, a, b] contains duplicates.",
        INVALID + "Input collection [/w==, AA==, AA==]of type BS contains "
                  "duplicates.",
        "Input collection contains duplicates",
    ]

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.t = cls.make_table(hash_key=("pk", "S"))

    def refusal(self, fn, **kw):
        e = self.assertError(fn, "ValidationException", TableName=self.t,
                             **kw) if "RequestItems" not in kw else \
            self.assertError(fn, "ValidationException", **kw)
        return e.response["Error"]["Message"]

    def each_number(self, send):
        return [send({"N": sh}) for sh in self.SHAPES]

    def test_put_item_numbers_enveloped(self):
        item = self.each_number(lambda v: self.refusal(
            self.c.put_item, Item={"pk": {"S": "vl"}, "n": v}))
        nested = self.each_number(lambda v: self.refusal(
            self.c.put_item,
            Item={"pk": {"S": "vl"}, "n": {"M": {"x": {"L": [v]}}}}))
        cond = self.each_number(lambda v: self.refusal(
            self.c.put_item, Item={"pk": {"S": "vl"}},
            ConditionExpression="attribute_not_exists(pk) OR n = :v",
            ExpressionAttributeValues={":v": v}))
        want = [one(m) for m in self.CURRENT]
        self.assertEqual((item, nested, cond), (want, want, want))
        self.assertNotIn("Item", self.c.get_item(
            TableName=self.t, Key={"pk": {"S": "vl"}}, ConsistentRead=True))

    def test_update_and_delete_numbers_enveloped(self):
        value = self.each_number(lambda v: self.refusal(
            self.c.update_item, Key={"pk": {"S": "vl"}},
            UpdateExpression="SET n = :v",
            ExpressionAttributeValues={":v": v}))
        key = self.each_number(lambda v: self.refusal(
            self.c.delete_item, Key={"pk": v}))
        want = [one(m) for m in self.CURRENT]
        self.assertEqual((value, key), (want, want))

    def test_exponents_past_an_int(self):
        cases = [("1e99999999999", OVERFLOW), ("-1e99999999999", OVERFLOW),
                 ("1e-99999999999", UNDERFLOW), ("1e2147483648", OVERFLOW),
                 ("1e-2147483648", UNDERFLOW)]
        got = [self.refusal(self.c.put_item,
                            Item={"pk": {"S": "vl"}, "n": {"N": n}})
               for n, _ in cases]
        self.assertEqual(got, [one(m) for _, m in cases])

    def test_get_and_query_bare(self):
        get = self.each_number(lambda v: self.refusal(
            self.c.get_item, Key={"pk": v}))
        query = self.each_number(lambda v: self.refusal(
            self.c.query, KeyConditionExpression="pk = :p",
            FilterExpression="n = :v",
            ExpressionAttributeValues={":p": {"S": "vl"}, ":v": v}))
        batch = self.each_number(lambda v: self.refusal(
            self.c.batch_get_item,
            RequestItems={self.t: {"Keys": [{"pk": v}]}}))
        self.assertEqual((get, query, batch),
                         (self.CURRENT, self.CURRENT, self.CURRENT))

    def test_batch_write_older_wording(self):
        got = self.each_number(lambda v: self.refusal(
            self.c.batch_write_item, RequestItems={self.t: [
                {"PutRequest": {"Item": {"pk": {"S": "vl"}, "n": v}}}]}))
        self.assertEqual(got, self.OLDER)

    def test_duplicates(self):
        put = [self.refusal(self.c.put_item,
                            Item={"pk": {"S": "vd"}, "s": d})
               for d in self.DUPES]
        query = [self.refusal(self.c.query, KeyConditionExpression="pk = :p",
                              FilterExpression="s = :t",
                              ExpressionAttributeValues={
                                  ":p": {"S": "vd"}, ":t": d})
                 for d in self.DUPES]
        bw = [self.refusal(self.c.batch_write_item, RequestItems={self.t: [
            {"PutRequest": {"Item": {"pk": {"S": "vd"}, "s": d}}}]})
            for d in self.DUPES]
        self.assertEqual(put, [one(m) for m in self.DUPE_CURRENT])
        self.assertEqual(query, self.DUPE_CURRENT)
        self.assertEqual(bw, self.DUPE_OLDER)


@dynalite_differs("has the older, unenveloped wording")
class WriteEnvelopeTest(E2ECase):
    """PutItem, UpdateItem and DeleteItem report their request-validation
    errors inside the "1 validation error detected: " envelope (eu-west-2
    and us-east-1, 2026-10-09: paritysuite/dynamodb-conformance tests/tier3/
    error-messages/{putItem,updateItem,deleteItem}.test.ts). Older
    recordings disagree on the expression errors; the most recent one,
    us-east-1 on 2026-09-20 (paritysuite captures/cross-region-latest.json),
    envelopes every one of them, and the mix of expression and legacy
    parameters, but not what is found with the table."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.t = cls.make_table(hash_key=("pk", "S"))
        cls.u = unvalidated_client()

    def message(self, op, **kw):
        key = {"pk": {"S": "em-envelope"}}
        args = dict(TableName=self.t, **kw)
        args["Item" if op == "put_item" else "Key"] = key
        e = self.assertError(getattr(self.u, op), "ValidationException",
                             **args)
        return e.response["Error"]["Message"]

    def test_maps_without_expressions(self):
        for op in ("put_item", "update_item", "delete_item"):
            with self.subTest(op=op):
                self.assertEqual(
                    self.message(op, ExpressionAttributeValues={
                        ":v": {"S": "x"}}),
                    one("ExpressionAttributeValues can only be specified "
                        "when using expressions"))
                self.assertEqual(
                    self.message(op, ExpressionAttributeNames={"#a": "a"}),
                    one("ExpressionAttributeNames can only be specified "
                        "when using expressions"))

    def test_empty_maps_and_expression(self):
        cond = dict(ConditionExpression="attribute_exists(a)")
        self.assertEqual(
            self.message("delete_item", ExpressionAttributeValues={}, **cond),
            one("ExpressionAttributeValues must not be empty"))
        self.assertEqual(
            self.message("delete_item", ExpressionAttributeNames={}, **cond),
            one("ExpressionAttributeNames must not be empty"))
        for op in ("put_item", "delete_item"):
            self.assertEqual(self.message(op, ConditionExpression=""),
                             one("Invalid ConditionExpression: The "
                                 "expression can not be empty;"))

    def test_return_values(self):
        for rv in ("ALL_NEW", "UPDATED_NEW"):
            self.assertEqual(self.message("delete_item", ReturnValues=rv),
                             one("ReturnValues can only be ALL_OLD or NONE"))

    def test_malformed_expected(self):
        cases = [
            ({"a": {"Exists": True}},
             "Value must be provided when Exists is true for Attribute: a"),
            ({"a": {"Exists": False, "Value": {"S": "x"}}},
             "Value cannot be used when Exists is false for Attribute: a"),
            ({"a": {"Value": {"S": "x"}, "ComparisonOperator": "EQ",
                    "AttributeValueList": [{"S": "x"}]}},
             "Value and AttributeValueList cannot be used together for "
             "Attribute: a"),
            ({"a": {"ComparisonOperator": "EQ"}},
             "Value or AttributeValueList must be used with "
             "ComparisonOperator: EQ for Attribute: a"),
            ({"a": {"ComparisonOperator": "BETWEEN",
                    "AttributeValueList": [{"S": "x"}]}},
             "Invalid number of argument(s) for the BETWEEN "
             "ComparisonOperator"),
        ]
        for op in ("put_item", "delete_item"):
            got = [self.message(op, Expected=exp) for exp, _ in cases]
            self.assertEqual(got, [one(INVALID + m) for _, m in cases])

    def test_undefined_value_in_condition(self):
        self.assertEqual(
            self.message("update_item", UpdateExpression="SET b = :w",
                         ConditionExpression="a = :v",
                         ExpressionAttributeValues={":w": {"S": "x"}}),
            one("Invalid ConditionExpression: An expression attribute value "
                "used in expression is not defined; attribute value: :v"))

    def test_expression_errors(self):
        upd = dict(UpdateExpression="SET attr1 = :v",
                   ExpressionAttributeValues={":v": {"S": "val"}})
        cases = [
            ("put_item", dict(ConditionExpression="attribute_not_exists(pk)",
                              Expected={"pk": {"Exists": False}}),
             "Can not use both expression and non-expression parameters in "
             "the same request: Non-expression parameters: {Expected} "
             "Expression parameters: {ConditionExpression}"),
            ("put_item", dict(ConditionExpression="((attribute_not_exists("
                                                  "pk)))"),
             "Invalid ConditionExpression: The expression has redundant "
             "parentheses;"),
            ("put_item", dict(ConditionExpression="contains(#a, #a)",
                              ExpressionAttributeNames={"#a": "data"}),
             "Invalid ConditionExpression: The first operand must be "
             "distinct from the remaining operands for this operator or "
             "function; operator: contains, first operand: [data]"),
            ("update_item", dict(UpdateExpression="INVALID SYNTAX HERE",
                                 ExpressionAttributeValues={
                                     ":v": {"S": "val"}}),
             'Invalid UpdateExpression: Syntax error; token: "INVALID", '
             'near: "INVALID SYNTAX"'),
            ("update_item", dict(upd, ExpressionAttributeNames={
                "#unused": "someattr"}),
             "Value provided in ExpressionAttributeNames unused in "
             "expressions: keys: {#unused}"),
            ("update_item", dict(upd, ExpressionAttributeValues={
                ":v": {"S": "val"}, ":unused": {"S": "extra"}}),
             "Value provided in ExpressionAttributeValues unused in "
             "expressions: keys: {:unused}"),
            ("update_item", dict(UpdateExpression="SET attr1 = :v"),
             "Invalid UpdateExpression: An expression attribute value used "
             "in expression is not defined; attribute value: :v"),
            ("update_item", dict(upd, AttributeUpdates={
                "attr1": {"Value": {"S": "val"}, "Action": "PUT"}}),
             "Can not use both expression and non-expression parameters in "
             "the same request: Non-expression parameters: "
             "{AttributeUpdates} Expression parameters: {UpdateExpression}"),
            ("update_item", dict(UpdateExpression=""),
             "Invalid UpdateExpression: The expression can not be empty;"),
            ("delete_item", dict(ConditionExpression="a = :v",
                                 ExpressionAttributeValues={
                                     ":v": {"S": "x"}, ":unused": {"S": "y"}}),
             "Value provided in ExpressionAttributeValues unused in "
             "expressions: keys: {:unused}"),
        ]
        for op, kw, want in cases:
            with self.subTest(op=op, want=want):
                self.assertEqual(self.message(op, **kw), one(want))

    def test_item_values(self):
        # PutItem's empty sets and NULL false (us-east-1: 2026-09-20 and
        # captures/2026-10-07-batch-empty-request-items.json's
        # nullRoundTrip, the most recent recordings).
        for value, want in (
                ({"SS": []}, "An string set  may not be empty"),
                ({"NS": []}, "An number set  may not be empty"),
                ({"BS": []}, "Binary sets should not be empty"),
                ({"NULL": False}, "Null attribute value types must have the "
                                  "value of true")):
            e = self.assertError(self.u.put_item, "ValidationException",
                                 TableName=self.t,
                                 Item={"pk": {"S": "em-envelope"},
                                       "bad": value})
            self.assertEqual(e.response["Error"]["Message"],
                             one(INVALID + want))

    def test_after_the_table_no_envelope(self):
        self.assertEqual(
            self.message("update_item", UpdateExpression="SET pk = :v",
                         ExpressionAttributeValues={":v": {"S": "n"}}),
            INVALID + "Cannot update attribute pk. This attribute is part "
            "of the key")


@dynalite_differs("aggregates every member error")
class UpdateItemOrderingTest(E2ECase):
    """validation-ordering/updateItem.test.ts and query.test.ts."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.u = unvalidated_client()

    def msg(self, fn, **kw):
        return self.assertError(fn, "ValidationException",
                                **kw).response["Error"]["Message"]

    def test_no_key_joins_member_errors(self):
        upd = dict(UpdateExpression="SET a = :a",
                   ExpressionAttributeValues={":a": {"S": "x"}})
        self.assertEqual(
            self.msg(self.u.update_item, TableName="conf_absent_tbl",
                     AttributeUpdates={"x": {"Action": "PUT",
                                             "Value": {"S": "1"}}},
                     Expected={"a": {"Exists": False},
                               "b": {"Exists": False}},
                     ConditionalOperator="XOR"),
            "2 validation errors detected: Value 'XOR' at "
            "'conditionalOperator' failed to satisfy constraint: Member "
            "must satisfy enum value set: [OR, AND]; Value null at 'key' "
            "failed to satisfy constraint: Member must not be null")
        self.assertEqual(
            self.msg(self.u.update_item, TableName="", **upd),
            "2 validation errors detected: Value '' at 'tableName' failed "
            "to satisfy constraint: Member must have length greater than "
            "or equal to 1; Value null at 'key' failed to satisfy "
            "constraint: Member must not be null")

    def test_with_key_stops_at_return_values(self):
        self.assertEqual(
            self.msg(self.u.update_item, TableName="conf_absent_tbl",
                     Key={"pk": {"S": "test"}}, ReturnValues="INVALID",
                     ReturnConsumedCapacity="INVALID"),
            "1 validation error detected: Value 'INVALID' at "
            "'returnValues' failed to satisfy constraint: Member must "
            "satisfy enum value set: [ALL_NEW, UPDATED_OLD, ALL_OLD, NONE, "
            "UPDATED_NEW]")

    def test_query_limit_and_conditional_operator(self):
        self.assertIn("'Limit'", self.msg(
            self.u.query, TableName="conf_absent_tbl",
            KeyConditionExpression="pk = :p",
            ExpressionAttributeValues={":p": {"S": "x"}}, Limit=0))
        self.assertEqual(
            self.msg(self.u.query, TableName="conf_absent_tbl",
                     KeyConditions={"pk": {"ComparisonOperator": "EQ",
                                           "AttributeValueList": [
                                               {"S": "a"}]}},
                     QueryFilter={"b": {"ComparisonOperator": "NULL"},
                                  "c": {"ComparisonOperator": "NULL"}},
                     ConditionalOperator="XOR", Select="BOGUS"),
            "Failed to satisfy constraint: Member must satisfy enum value "
            "set: [ALL, OR]")


@dynalite_differs("older key condition wording")
class KeyConditionMessagesTest(E2ECase):
    """error-messages/queryKeyConditionOperands.test.ts (eu-west-2,
    2026-10)."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.t = cls.make_table(hash_key=("pk", "S"), range_key=("sk", "N"))

    def test_two_conditions_on_the_sort_key(self):
        self.assertValidation(
            self.c.query, TableName=self.t,
            KeyConditionExpression="pk = :p AND sk > :a AND sk < :b",
            ExpressionAttributeValues={":p": {"S": "q"}, ":a": {"N": "1"},
                                       ":b": {"N": "5"}},
            message="Invalid KeyConditionExpression: KeyConditionExpressions "
                    "must only contain one condition per key")

    def test_more_conditions_than_key_attributes(self):
        self.assertValidation(
            self.c.query, TableName=self.t,
            KeyConditionExpression="pk = :p AND sk > :a AND extra = :b",
            ExpressionAttributeValues={":p": {"S": "q"}, ":a": {"N": "1"},
                                       ":b": {"N": "5"}},
            message="The number of query conditions (3) exceeds the number "
                    "of key attributes defined in the schema (2)")

    def test_operand_types(self):
        op = ("Invalid KeyConditionExpression: Incorrect operand type for "
              "operator or function; operator or function: %s, operand "
              "type: %s")
        schema = (INVALID + "Condition parameter type does not match schema "
                  "type")
        cases = [
            ("pk = :p AND begins_with(sk, :v)", {":v": {"N": "1"}},
             op % ("begins_with", "N")),
            ("pk = :p AND begins_with(sk, :v)", {":v": {"S": "a"}}, schema),
            ("pk = :p AND :v >= sk", {":v": {"BOOL": True}},
             op % (">=", "BOOL")),
            ("pk = :p AND sk = :v", {":v": {"BOOL": True}}, schema),
        ]
        for kce, vals, msg in cases:
            with self.subTest(kce=kce, vals=vals):
                self.assertValidation(
                    self.c.query, TableName=self.t,
                    KeyConditionExpression=kce,
                    ExpressionAttributeValues=dict(vals, **{":p": {"S": "q"}}),
                    message=msg)


class EmptyKeyValueTest(E2ECase):
    """An empty S or B key value, in an Item or in a Key: "One or more
    parameter values are not valid. ..." (PutItem, UpdateItem and
    DeleteItem: paritysuite/dynamodb-conformance error-messages/
    {putItem,updateItem,deleteItem}.test.ts)."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.tb = cls.make_table(hash_key=("pk", "B"))

    def test_empty_binary_key(self):
        msg = ("One or more parameter values are not valid. The "
               "AttributeValue for a key attribute cannot contain an empty "
               "binary value. Key: pk")
        key = {"pk": {"B": b""}}
        self.assertValidation(self.c.put_item, msg, TableName=self.tb,
                              Item=key)
        self.assertValidation(self.c.update_item, msg, TableName=self.tb,
                              Key=key, UpdateExpression="SET attr1 = :v",
                              ExpressionAttributeValues={":v": {"S": "x"}})
        self.assertValidation(self.c.delete_item, msg, TableName=self.tb,
                              Key=key)


if __name__ == "__main__":
    unittest.main()
