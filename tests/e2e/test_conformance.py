# SPDX-License-Identifier: MIT
# test_conformance.py - the conformance audit's findings, pinned: each test
# asserts what DynamoDB answers (exact error type and message, limits,
# results) where shardlocal once differed, plus the neighbouring behaviour
# the fix must not disturb. Sources are named next to each test.
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
    # (DynamoDB and DynamoDB Local answer it).
    @dynalite_differs("accepts an empty attribute name")
    def test_empty_attribute_name(self):
        self.assertValidation(
            self.c.update_item, TableName=self.t, Key={"pk": {"S": "a"}},
            UpdateExpression="SET #y = :v",
            ExpressionAttributeNames={"#y": ""},
            ExpressionAttributeValues={":v": {"S": "b"}},
            message="ExpressionAttributeNames contains invalid value: "
                    "Empty attribute name for key #y")
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
    # bytes" (developer guide, expression parameter limits).
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
            message="ExpressionAttributeValues contains invalid key: The "
                    "expression attribute map contains a key that is too "
                    "long")
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


if __name__ == "__main__":
    unittest.main()
