# SPDX-License-Identifier: MIT
# test_errors.py - exact DynamoDB error types and messages for the common
# mistakes, and that the server keeps answering after each.
import unittest

from e2e_common import E2ECase, dynalite_differs, unique_name
from test_items import ItemCase

RNF = "ResourceNotFoundException"
SCHEMA = "The provided key element does not match the schema"
# PutItem, UpdateItem and DeleteItem put what they refuse before reading
# the table inside this envelope (us-east-1, 2026-09-20:
# paritysuite/dynamodb-conformance captures/cross-region-latest.json, the
# most recent recording; dynalite has the older, bare wording).
ENV = "1 validation error detected: "
OLDER = "has the older, unenveloped wording"


def nest(depth):
    """A value with `depth` levels of maps around a number."""
    v = {"N": "1"}
    for _ in range(depth):
        v = {"M": {"a": v}}
    return v


class ErrorsTest(ItemCase):
    """Tables t (pk S) and tr (pk S, sk N), put(): test_items.ItemCase."""

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

    @dynalite_differs(OLDER)
    def test_reserved_words(self):
        self.assertValidation(
            self.c.update_item, ENV + "Invalid UpdateExpression: Attribute "
            "name is a reserved keyword; reserved keyword: status",
            TableName=self.t, Key={"pk": {"S": "r"}},
            UpdateExpression="SET status = :v",
            ExpressionAttributeValues={":v": {"S": "x"}})
        self.assertValidation(
            self.c.update_item, ENV + "Invalid UpdateExpression: Attribute "
            "name is a reserved keyword; reserved keyword: Status",
            TableName=self.t, Key={"pk": {"S": "r"}},
            UpdateExpression="SET Status = :v",
            ExpressionAttributeValues={":v": {"S": "x"}})
        self.assertValidation(
            self.c.put_item, ENV + "Invalid ConditionExpression: Attribute "
            "name is a reserved keyword; reserved keyword: data",
            TableName=self.t, Item={"pk": {"S": "r"}},
            ConditionExpression="attribute_not_exists(data)")

    @dynalite_differs(OLDER)
    def test_unused_and_undefined_placeholders(self):
        self.assertValidation(
            self.c.update_item, ENV + "Value provided in "
            "ExpressionAttributeValues unused in expressions: keys: "
            "{:unused}",
            TableName=self.t, Key={"pk": {"S": "u"}},
            UpdateExpression="SET a = :v",
            ExpressionAttributeValues={":v": {"S": "x"},
                                       ":unused": {"S": "y"}})
        self.assertValidation(
            self.c.update_item, ENV + "Value provided in "
            "ExpressionAttributeNames unused in expressions: keys: "
            "{#unused}",
            TableName=self.t, Key={"pk": {"S": "u"}},
            UpdateExpression="SET a = :v",
            ExpressionAttributeNames={"#unused": "b"},
            ExpressionAttributeValues={":v": {"S": "x"}})
        self.assertValidation(
            self.c.update_item, ENV + "Invalid UpdateExpression: An "
            "expression attribute value used in expression is not defined; "
            "attribute value: :missing", TableName=self.t,
            Key={"pk": {"S": "u"}},
            UpdateExpression="SET a = :missing",
            ExpressionAttributeValues={":v": {"S": "x"}})
        self.assertValidation(
            self.c.get_item, "Invalid ProjectionExpression: An expression "
            "attribute name used in the document path is not defined; "
            "attribute name: #x", TableName=self.t, Key={"pk": {"S": "u"}},
            ProjectionExpression="#x")
        self.assertValidation(
            self.c.update_item, "1 validation error detected: "
            "ExpressionAttributeValues must not be empty",
            TableName=self.t, Key={"pk": {"S": "u"}},
            UpdateExpression="REMOVE a", ExpressionAttributeValues={})

    @dynalite_differs("reports its own parser's syntax errors")
    def test_syntax_error(self):
        self.assertValidation(
            self.c.update_item, prefix=ENV + "Invalid UpdateExpression: "
            "Syntax error; token: ", TableName=self.t, Key={"pk": {"S": "s"}},
            UpdateExpression="SET a = = :v",
            ExpressionAttributeValues={":v": {"S": "x"}})
        self.assertValidation(
            self.c.update_item, ENV + "Invalid UpdateExpression: The "
            "expression can not be empty;", TableName=self.t,
            Key={"pk": {"S": "s"}},
            UpdateExpression="")

    def test_mixing_expression_and_legacy(self):
        self.assertValidation(
            self.c.get_item, "Can not use both expression and non-expression "
            "parameters in the same request: Non-expression parameters: "
            "{AttributesToGet} Expression parameters: {ProjectionExpression}",
            TableName=self.t, Key={"pk": {"S": "m"}}, AttributesToGet=["a"],
            ProjectionExpression="a")

    @dynalite_differs(OLDER)
    def test_mixing_condition_and_expected(self):
        self.assertValidation(
            self.put, ENV + "Can not use both expression and non-expression "
            "parameters in the same request: Non-expression parameters: "
            "{Expected} Expression parameters: {ConditionExpression}",
            item={"pk": {"S": "m"}}, Expected={"a": {"Exists": False}},
            ConditionExpression="attribute_not_exists(a)")

    def test_names_without_expression(self):
        self.assertValidation(
            self.put, "1 validation error detected: ExpressionAttributeNames "
            "can only be specified when using expressions",
            item={"pk": {"S": "m"}},
            ExpressionAttributeNames={"#a": "a"})

    def test_item_too_large(self):
        self.assertValidation(self.put,
                              "Item size has exceeded the maximum allowed "
                              "size", item={"pk": {"S": "big"},
                                            "v": {"S": "x" * 409600}})
        self.put({"pk": {"S": "big"}, "v": {"S": "x" * 400000}})

    @dynalite_differs(OLDER)
    def test_bad_attribute_values(self):
        # PutItem puts them all in the envelope and prints sets JSON-style
        # (us-east-1, 2026-09-20 and, for NULL false, 2026-10-07:
        # paritysuite captures). No recording shows the two "Supplied
        # AttributeValue" messages in a PutItem: they follow the rest.
        cases = [
            ({"SS": []}, "One or more parameter values were invalid: An "
                         "string set  may not be empty"),
            ({"NS": []}, "One or more parameter values were invalid: An "
                         "number set  may not be empty"),
            ({"BS": []}, "One or more parameter values were invalid: Binary "
                         "sets should not be empty"),
            ({"SS": ["a", "a"]}, "One or more parameter values were invalid: "
                                 "Input collection [\"a\", \"a\"] contains "
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
                self.assertValidation(self.put, ENV + msg,
                                      item={"pk": {"S": "bad"}, "a": value})
        self.assertEqual(self.c.get_item(TableName=self.t,
                                         Key={"pk": {"S": "bad"}}).get("Item"),
                         None)

    @dynalite_differs(OLDER)
    def test_bad_value_in_expression_values(self):
        self.assertValidation(
            self.c.update_item, ENV + "ExpressionAttributeValues contains "
            "invalid value: One or more parameter values were invalid: An "
            "string set  may not be empty for key :v", TableName=self.t,
            Key={"pk": {"S": "e"}}, UpdateExpression="SET a = :v",
            ExpressionAttributeValues={":v": {"SS": []}})

    @dynalite_differs("has no nesting limit")
    def test_nesting_limit(self):
        # 32 levels in all: 31 maps around a scalar are accepted, 32 are
        # not (measured on DynamoDB by the dynoxide and Alternator projects),
        # in the envelope (UpdateItem's 32-level value, us-east-1,
        # 2026-09-20: paritysuite captures/cross-region-latest.json).
        self.put({"pk": {"S": "nest_ok"}, "a": nest(31)})
        for depth in (32, 40):
            self.assertValidation(
                self.put, prefix=ENV + "Nesting Levels have exceeded "
                "supported limits",
                item={"pk": {"S": "nest_bad"}, "a": nest(depth)})

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

    def test_key_size_limits(self):
        self.assertValidation(
            self.put, "One or more parameter values were invalid: Size of "
            "hashkey has exceeded the maximum size limit of2048 bytes",
            item={"pk": {"S": "h" * 2049}})
        self.put({"pk": {"S": "h" * 2048}})
        trs = self.make_table(hash_key=("pk", "S"), range_key=("sk", "S"))
        self.assertValidation(
            self.c.put_item, "One or more parameter values were invalid: "
            "Aggregated size of all range keys has exceeded the size limit "
            "of 1024 bytes", TableName=trs,
            Item={"pk": {"S": "a"}, "sk": {"S": "r" * 1025}})
        self.c.put_item(TableName=trs, Item={"pk": {"S": "a"},
                                             "sk": {"S": "r" * 1024}})

    def test_bad_exclusive_start_key(self):
        self.assertValidation(
            self.c.scan, "The provided starting key is invalid: The provided "
            "key element does not match the schema", TableName=self.t,
            ExclusiveStartKey={"nope": {"S": "a"}})

    def test_server_still_answers(self):
        self.c.describe_table(TableName=self.t)


@dynalite_differs(OLDER)
class ExpressionErrorsTest(E2ECase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.t = cls.make_table(hash_key=("pk", "S"))
        cls.c.put_item(TableName=cls.t, Item={"pk": {"S": "e"},
                                              "n": {"N": "1"}})

    # Expression errors are found before the table is read: in the
    # envelope (ENV) unless bare, for those found on the item.
    def cond(self, expr, values=None, message=None, prefix=None):
        args = dict(TableName=self.t, Key={"pk": {"S": "e"}},
                    ConditionExpression=expr)
        if values:
            args["ExpressionAttributeValues"] = values
        self.assertValidation(self.c.delete_item, message and ENV + message,
                              prefix and ENV + prefix, **args)

    def upd(self, expr, values=None, message=None, prefix=None, bare=False):
        args = dict(TableName=self.t, Key={"pk": {"S": "e"}},
                    UpdateExpression=expr)
        if values:
            args["ExpressionAttributeValues"] = values
        env = "" if bare else ENV
        self.assertValidation(self.c.update_item, message and env + message,
                              prefix and env + prefix, **args)

    def test_condition_errors(self):
        self.cond("nosuch(n)", message="Invalid ConditionExpression: Invalid "
                  "function name; function: nosuch")
        self.cond("size(n)", message="Invalid ConditionExpression: The "
                  "function is not allowed to be used this way in an "
                  "expression; function: size")
        self.cond("attribute_type(n, :t)", {":t": {"S": "X"}},
                  message="Invalid ConditionExpression: Invalid attribute "
                  "type name found; type: X, valid types: "
                  "{B,NULL,SS,BOOL,L,BS,N,NS,S,M}")
        self.cond("attribute_exists(n, n)", prefix="Invalid "
                  "ConditionExpression: Incorrect number of operands for "
                  "operator or function; operator or function: "
                  "attribute_exists, number of operands: 2")
        self.cond("n BETWEEN :a AND :b", {":a": {"N": "1"}, ":b": {"S": "x"}},
                  prefix="Invalid ConditionExpression: The BETWEEN operator "
                  "requires same data type for lower and upper bounds; ")

    @dynalite_differs("calls size an invalid function name")
    def test_condition_function_in_update(self):
        self.upd("SET a = size(n)", message="Invalid UpdateExpression: The "
                 "function is not allowed in an update expression; "
                 "function: size")
        self.upd("SET a = nosuch(n)", message="Invalid UpdateExpression: "
                 "Invalid function name; function: nosuch")

    def test_update_errors(self):
        self.upd("SET a = :v SET b = :v", {":v": {"S": "x"}},
                 message='Invalid UpdateExpression: The "SET" section can '
                 'only be used once in an update expression;')
        self.upd("SET a = list_append(:v)", {":v": {"L": []}},
                 message="Invalid UpdateExpression: Incorrect number of "
                 "operands for operator or function; operator or function: "
                 "list_append, number of operands: 1")
        self.upd("SET a = nothere + :one", {":one": {"N": "1"}},
                 message="The provided expression refers to an attribute "
                 "that does not exist in the item", bare=True)
        self.upd("SET a = if_not_exists(:v, n)", {":v": {"N": "1"}},
                 message="Invalid UpdateExpression: Operator or function "
                 "requires a document path; operator or function: "
                 "if_not_exists")


if __name__ == "__main__":
    unittest.main()
