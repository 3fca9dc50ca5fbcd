# SPDX-License-Identifier: MIT
# test_errors.py - exact DynamoDB error types and messages for the common
# mistakes, and that the server keeps answering after each.
import unittest

from e2e_common import E2ECase, dynalite_differs, unique_name

RNF = "ResourceNotFoundException"
SCHEMA = "The provided key element does not match the schema"


def nest(depth):
    """A value with `depth` levels of maps around a number."""
    v = {"N": "1"}
    for _ in range(depth):
        v = {"M": {"a": v}}
    return v


class ErrorsTest(E2ECase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.t = cls.make_table(hash_key=("pk", "S"))
        cls.tr = cls.make_table(hash_key=("pk", "S"), range_key=("sk", "N"))

    def put(self, item, **kw):
        return self.c.put_item(TableName=self.t, Item=item, **kw)

    def test_missing_table(self):
        name = unique_name("missing")
        key = {"pk": {"S": "a"}}
        self.assertError(self.c.get_item, RNF, "Requested resource not found",
                         TableName=name, Key=key)
        self.assertError(self.c.put_item, RNF, "Requested resource not found",
                         TableName=name, Item=key)
        self.assertError(self.c.update_item, RNF,
                         "Requested resource not found", TableName=name,
                         Key=key, UpdateExpression="SET a = :a",
                         ExpressionAttributeValues={":a": {"S": "x"}})
        self.assertError(self.c.delete_item, RNF,
                         "Requested resource not found", TableName=name,
                         Key=key)
        self.assertError(self.c.query, RNF, "Requested resource not found",
                         TableName=name, KeyConditionExpression="pk = :a",
                         ExpressionAttributeValues={":a": {"S": "x"}})
        self.assertError(self.c.scan, RNF, "Requested resource not found",
                         TableName=name)

    def test_key_schema_mismatch(self):
        self.assertValidation(self.c.get_item, SCHEMA, TableName=self.t,
                              Key={"other": {"S": "a"}})
        self.assertValidation(self.c.get_item, SCHEMA, TableName=self.t,
                              Key={"pk": {"S": "a"}, "extra": {"S": "b"}})
        self.assertValidation(self.c.get_item, SCHEMA, TableName=self.t,
                              Key={"pk": {"N": "1"}})
        self.assertValidation(self.c.get_item, SCHEMA, TableName=self.tr,
                              Key={"pk": {"S": "a"}})
        self.assertValidation(self.c.delete_item, SCHEMA, TableName=self.tr,
                              Key={"sk": {"N": "1"}})

    def test_put_key_problems(self):
        self.assertValidation(
            self.put, "One or more parameter values were invalid: Missing "
            "the key pk in the item", item={"x": {"S": "a"}})
        self.assertValidation(
            self.put, "One or more parameter values were invalid: Type "
            "mismatch for key pk expected: S actual: N",
            item={"pk": {"N": "1"}})
        self.assertValidation(
            self.put, "One or more parameter values are not valid. The "
            "AttributeValue for a key attribute cannot contain an empty "
            "string value. Key: pk", item={"pk": {"S": ""}})

    def test_reserved_words(self):
        self.assertValidation(
            self.c.update_item, "Invalid UpdateExpression: Attribute name is "
            "a reserved keyword; reserved keyword: status",
            TableName=self.t, Key={"pk": {"S": "r"}},
            UpdateExpression="SET status = :v",
            ExpressionAttributeValues={":v": {"S": "x"}})
        self.assertValidation(
            self.c.put_item, "Invalid ConditionExpression: Attribute name is "
            "a reserved keyword; reserved keyword: data",
            TableName=self.t, Item={"pk": {"S": "r"}},
            ConditionExpression="attribute_not_exists(data)")

    def test_unused_and_undefined_placeholders(self):
        self.assertValidation(
            self.c.update_item, "Value provided in ExpressionAttributeValues "
            "unused in expressions: keys: {:unused}",
            TableName=self.t, Key={"pk": {"S": "u"}},
            UpdateExpression="SET a = :v",
            ExpressionAttributeValues={":v": {"S": "x"},
                                       ":unused": {"S": "y"}})
        self.assertValidation(
            self.c.update_item, "Value provided in ExpressionAttributeNames "
            "unused in expressions: keys: {#unused}",
            TableName=self.t, Key={"pk": {"S": "u"}},
            UpdateExpression="SET a = :v",
            ExpressionAttributeNames={"#unused": "b"},
            ExpressionAttributeValues={":v": {"S": "x"}})
        self.assertValidation(
            self.c.update_item, "Invalid UpdateExpression: An expression "
            "attribute value used in expression is not defined; attribute "
            "value: :missing", TableName=self.t, Key={"pk": {"S": "u"}},
            UpdateExpression="SET a = :missing",
            ExpressionAttributeValues={":v": {"S": "x"}})
        self.assertValidation(
            self.c.get_item, "Invalid ProjectionExpression: An expression "
            "attribute name used in the document path is not defined; "
            "attribute name: #x", TableName=self.t, Key={"pk": {"S": "u"}},
            ProjectionExpression="#x")
        self.assertValidation(
            self.c.update_item, "ExpressionAttributeValues must not be empty",
            TableName=self.t, Key={"pk": {"S": "u"}},
            UpdateExpression="REMOVE a", ExpressionAttributeValues={})

    @dynalite_differs("reports its own parser's syntax errors")
    def test_syntax_error(self):
        self.assertValidation(
            self.c.update_item, prefix="Invalid UpdateExpression: Syntax "
            "error; token: ", TableName=self.t, Key={"pk": {"S": "s"}},
            UpdateExpression="SET a = = :v",
            ExpressionAttributeValues={":v": {"S": "x"}})
        self.assertValidation(
            self.c.update_item, "Invalid UpdateExpression: The expression "
            "can not be empty;", TableName=self.t, Key={"pk": {"S": "s"}},
            UpdateExpression="")

    def test_mixing_expression_and_legacy(self):
        self.assertValidation(
            self.c.get_item, "Can not use both expression and non-expression "
            "parameters in the same request: Non-expression parameters: "
            "{AttributesToGet} Expression parameters: {ProjectionExpression}",
            TableName=self.t, Key={"pk": {"S": "m"}}, AttributesToGet=["a"],
            ProjectionExpression="a")

    def test_item_too_large(self):
        self.assertValidation(self.put,
                              "Item size has exceeded the maximum allowed "
                              "size", item={"pk": {"S": "big"},
                                            "v": {"S": "x" * 409600}})
        self.put({"pk": {"S": "big"}, "v": {"S": "x" * 400000}})

    def test_bad_attribute_values(self):
        cases = [
            ({"SS": []}, "One or more parameter values were invalid: An "
                         "string set  may not be empty"),
            ({"NS": []}, "One or more parameter values were invalid: An "
                         "number set  may not be empty"),
            ({"BS": []}, "One or more parameter values were invalid: Binary "
                         "sets should not be empty"),
            ({"SS": ["a", "a"]}, "One or more parameter values were invalid: "
                                 "Input collection [a, a] contains "
                                 "duplicates."),
            ({"N": "abc"}, "The parameter cannot be converted to a numeric "
                           "value: abc"),
            ({"S": "a", "N": "1"}, "Supplied AttributeValue has more than "
                                   "one datatypes set, must contain exactly "
                                   "one of the supported datatypes"),
            ({}, "Supplied AttributeValue is empty, must contain exactly one "
                 "of the supported datatypes"),
            ({"NULL": False}, "One or more parameter values were invalid: "
                              "Null attribute value types must have the "
                              "value of true"),
            ({"M": {"x": {"N": "1e999"}}}, "Number overflow. Attempting to "
                                           "store a number with magnitude "
                                           "larger than supported range"),
        ]
        for value, msg in cases:
            with self.subTest(value=value):
                self.assertValidation(self.put, msg,
                                      item={"pk": {"S": "bad"}, "a": value})
        self.assertEqual(self.c.get_item(TableName=self.t,
                                         Key={"pk": {"S": "bad"}}).get("Item"),
                         None)

    def test_bad_value_in_expression_values(self):
        self.assertValidation(
            self.c.update_item, "ExpressionAttributeValues contains invalid "
            "value: One or more parameter values were invalid: An string set "
            " may not be empty for key :v", TableName=self.t,
            Key={"pk": {"S": "e"}}, UpdateExpression="SET a = :v",
            ExpressionAttributeValues={":v": {"SS": []}})

    @dynalite_differs("has no nesting limit")
    def test_nesting_limit(self):
        self.put({"pk": {"S": "nest_ok"}, "a": nest(30)})
        self.assertValidation(
            self.put, prefix="Nesting Levels have exceeded supported limits",
            item={"pk": {"S": "nest_bad"}, "a": nest(40)})

    def test_enum_values(self):
        self.assertValidation(
            self.c.scan, prefix="1 validation error detected: Value 'BOGUS' "
            "at 'select' failed to satisfy constraint: Member must satisfy "
            "enum value set: [", TableName=self.t, Select="BOGUS")
        self.assertValidation(
            self.c.put_item, prefix="1 validation error detected: Value "
            "'MAYBE' at 'returnValues' failed to satisfy constraint: Member "
            "must satisfy enum value set: [", TableName=self.t,
            Item={"pk": {"S": "x"}}, ReturnValues="MAYBE")

    def test_multiple_validation_errors(self):
        self.assertValidation(
            self.c.scan, prefix="2 validation errors detected: ",
            TableName=self.t, Select="BOGUS", ReturnConsumedCapacity="LOTS")

    def test_server_still_answers(self):
        self.c.describe_table(TableName=self.t)


if __name__ == "__main__":
    unittest.main()
