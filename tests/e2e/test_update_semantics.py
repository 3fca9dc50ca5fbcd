# SPDX-License-Identifier: MIT
# test_update_semantics.py - what an update computes, as DynamoDB computes
# it: an item that does not exist yet starts from its key (UpdateItem,
# TransactWriteItems Update, legacy AttributeUpdates), with the indexes
# kept in step and UPDATED_NEW holding only the paths written; several
# list indexes past the end in one expression. Sources are named next to
# each test: dynalite's test/updateItem.js was recorded against DynamoDB.
import unittest

from e2e_common import E2ECase, unique_name, wait_active


def S(v):
    return {"S": v}


def N(v):
    return {"N": v}


class MissingItemStartsFromKeyTest(E2ECase):
    """UpdateItem on an item that does not exist creates it from its Key,
    so the key attributes are part of the item the expression sees."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.th = cls.make_table(hash_key=("a", "S"))
        # dynalite's testRangeTable: hash a, range b; LSIs on c and d,
        # GSIs on c and on (c, d), as in "should update indexed
        # attributes".
        cls.tr = unique_name("upd")
        cls.c.create_table(
            TableName=cls.tr, BillingMode="PAY_PER_REQUEST",
            AttributeDefinitions=[
                {"AttributeName": n, "AttributeType": "S"}
                for n in ("a", "b", "c", "d")],
            KeySchema=[{"AttributeName": "a", "KeyType": "HASH"},
                       {"AttributeName": "b", "KeyType": "RANGE"}],
            LocalSecondaryIndexes=[
                {"IndexName": "index1",
                 "KeySchema": [{"AttributeName": "a", "KeyType": "HASH"},
                               {"AttributeName": "c", "KeyType": "RANGE"}],
                 "Projection": {"ProjectionType": "ALL"}},
                {"IndexName": "index2",
                 "KeySchema": [{"AttributeName": "a", "KeyType": "HASH"},
                               {"AttributeName": "d", "KeyType": "RANGE"}],
                 "Projection": {"ProjectionType": "INCLUDE",
                                "NonKeyAttributes": ["c"]}}],
            GlobalSecondaryIndexes=[
                {"IndexName": "index3",
                 "KeySchema": [{"AttributeName": "c", "KeyType": "HASH"}],
                 "Projection": {"ProjectionType": "ALL"}},
                {"IndexName": "index4",
                 "KeySchema": [{"AttributeName": "c", "KeyType": "HASH"},
                               {"AttributeName": "d", "KeyType": "RANGE"}],
                 "Projection": {"ProjectionType": "INCLUDE",
                                "NonKeyAttributes": ["e"]}}])
        cls._tables.append(cls.tr)
        wait_active(cls.c, cls.tr)

    def key(self):
        return {"a": S(unique_name("k"))}

    def get(self, table, key):
        return self.c.get_item(TableName=table, Key=key,
                               ConsistentRead=True).get("Item")

    def query(self, index, cond, **kw):
        names = {"#%s" % k: k for k in kw}
        values = {":%s" % k: v for k, v in kw.items()}
        return self.c.query(TableName=self.tr, IndexName=index,
                            KeyConditionExpression=cond,
                            ExpressionAttributeNames=names,
                            ExpressionAttributeValues=values,
                            ConsistentRead=index in ("index1", "index2")
                            )["Items"]

    # dynalite test/updateItem.js "should update values from other
    # attributes": 200 and {"Attributes": {"b": <the key>}}.
    def test_if_not_exists_sees_hash_key(self):
        key = self.key()
        r = self.c.update_item(TableName=self.th, Key=key,
                               UpdateExpression="SET b = if_not_exists(b, a)",
                               ReturnValues="UPDATED_NEW")
        self.assertEqual(r["Attributes"], {"b": key["a"]})
        self.assertEqual(self.get(self.th, key), {"a": key["a"],
                                                  "b": key["a"]})

    # dynalite test/updateItem.js "should update indexed attributes":
    # SET c = a, d = b, e = a, f = b on a missing item; UPDATED_NEW holds
    # the four written attributes only, and every index finds the item.
    def test_set_from_both_keys_keeps_indexes_in_step(self):
        key = {"a": S(unique_name("k")), "b": S(unique_name("r"))}
        a, b = key["a"], key["b"]
        r = self.c.update_item(TableName=self.tr, Key=key,
                               UpdateExpression="set c = a, d = b, e = a, "
                                                "f = b",
                               ReturnValues="UPDATED_NEW")
        self.assertEqual(r["Attributes"], {"c": a, "d": b, "e": a, "f": b})
        full = {"a": a, "b": b, "c": a, "d": b, "e": a, "f": b}
        self.assertEqual(self.query("index1", "#a = :a AND #c = :c",
                                    a=a, c=a), [full])
        self.assertEqual(self.query("index2", "#a = :a AND #d = :d",
                                    a=a, d=b),
                         [{"a": a, "b": b, "c": a, "d": b}])
        self.c.update_item(TableName=self.tr, Key=key,
                           UpdateExpression="set c = b, d = a, e = b, f = a")
        moved = {"a": a, "b": b, "c": b, "d": a, "e": b, "f": a}
        self.assertEqual(self.query("index1", "#a = :a AND #c = :c",
                                    a=a, c=a), [])
        self.assertEqual(self.query("index2", "#a = :a AND #d = :d",
                                    a=a, d=b), [])
        self.assertEqual(self.query("index1", "#a = :a AND #c = :c",
                                    a=a, c=b), [moved])
        self.assertEqual(self.query("index2", "#a = :a AND #d = :d",
                                    a=a, d=a),
                         [{"a": a, "b": b, "c": b, "d": a}])
        self.assertEqual(self.query("index3", "#c = :c", c=b), [moved])
        self.assertEqual(self.query("index4", "#c = :c AND #d = :d",
                                    c=b, d=a),
                         [{"a": a, "b": b, "c": b, "d": a, "e": b}])

    # The same item write serves TransactWriteItems' Update (DynamoDB
    # documents it as "the same as UpdateItem"; the developer guide's
    # TransactWriteItems page): the key is visible there too.
    def test_transaction_update_sees_key(self):
        key = self.key()
        self.c.transact_write_items(TransactItems=[{"Update": {
            "TableName": self.th, "Key": key,
            "UpdateExpression": "SET b = a, c = if_not_exists(c, a)"}}])
        self.assertEqual(self.get(self.th, key),
                         {"a": key["a"], "b": key["a"], "c": key["a"]})

    # A condition still sees no item: attribute_exists(a) on a missing
    # item fails (the developer guide, "Condition expressions": the
    # condition is evaluated against the item as it is).
    def test_condition_sees_no_item(self):
        key = self.key()
        with self.assertRaises(self.c.exceptions.
                               ConditionalCheckFailedException):
            self.c.update_item(TableName=self.th, Key=key,
                               UpdateExpression="SET b = a",
                               ConditionExpression="attribute_exists(a)")
        self.assertIsNone(self.get(self.th, key))

    # AttributeUpdates go through the same path: PUT on a missing item
    # returns only the attribute written for UPDATED_NEW and the key
    # along with it for ALL_NEW; a lone DELETE creates nothing ("If no
    # item with the specified key is found: DELETE - Nothing happens",
    # the API reference's AttributeUpdates).
    def test_attribute_updates_on_missing_item(self):
        key = self.key()
        r = self.c.update_item(TableName=self.th, Key=key,
                               AttributeUpdates={"x": {"Action": "PUT",
                                                       "Value": N("1")}},
                               ReturnValues="UPDATED_NEW")
        self.assertEqual(r["Attributes"], {"x": N("1")})
        key = self.key()
        r = self.c.update_item(TableName=self.th, Key=key,
                               AttributeUpdates={"x": {"Action": "ADD",
                                                       "Value": N("2")}},
                               ReturnValues="ALL_NEW")
        self.assertEqual(r["Attributes"], {"a": key["a"], "x": N("2")})
        key = self.key()
        r = self.c.update_item(TableName=self.th, Key=key,
                               AttributeUpdates={"x": {"Action": "DELETE"}},
                               ReturnValues="ALL_NEW")
        self.assertNotIn("Attributes", r)
        self.assertIsNone(self.get(self.th, key))

    # Only REMOVEs on a missing item create nothing, even though the item
    # the update starts from holds the key.
    def test_remove_only_creates_nothing(self):
        key = self.key()
        self.c.update_item(TableName=self.th, Key=key,
                           UpdateExpression="REMOVE x, y")
        self.assertIsNone(self.get(self.th, key))


class ListPastTheEndTest(E2ECase):
    """Several list indexes past the end in one expression."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.t = cls.make_table(hash_key=("a", "S"))

    # dynalite test/updateItem.js "should update nested attributes":
    # assignments and ADDs past the end append in index order, every
    # operand read from the old item; UPDATED_NEW projects the written
    # paths on the new item.
    def test_appends_in_index_order(self):
        key = {"a": S(unique_name("k"))}
        a = key["a"]
        self.c.update_item(
            TableName=self.t, Key=key, UpdateExpression="set b = :b, c = :c",
            ExpressionAttributeValues={
                ":b": {"M": {"a": N("1"), "b": N("2"), "c": N("3")}},
                ":c": {"L": [N("1"), N("3")]}})
        r = self.c.update_item(
            TableName=self.t, Key=key,
            UpdateExpression="set b.c=((c[1])+(b.a)),b.a = a,c[1] = a, "
                             "c[4] = b.a - b.b, c[2] = b.c add c[8] :b, "
                             "c[6] :a",
            ExpressionAttributeValues={":a": N("2"), ":b": {"SS": ["a"]}},
            ReturnValues="UPDATED_NEW")
        self.assertEqual(r["Attributes"],
                         {"b": {"M": {"a": a, "c": N("4")}},
                          "c": {"L": [a, N("3"), N("2")]}})
        item = self.c.get_item(TableName=self.t, Key=key,
                               ConsistentRead=True)["Item"]
        self.assertEqual(item, {
            "a": a,
            "b": {"M": {"a": a, "b": N("2"), "c": N("4")}},
            "c": {"L": [N("1"), a, N("3"), N("-1"), N("2"),
                        {"SS": ["a"]}]}})


if __name__ == "__main__":
    unittest.main()
