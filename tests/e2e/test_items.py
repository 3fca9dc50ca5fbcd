# SPDX-License-Identifier: MIT
# test_items.py - PutItem/GetItem/UpdateItem/DeleteItem through the boto3
# client: every ReturnValues, conditions, every update action, nested paths
# and projections.
import unittest

from e2e_common import ON_DYNALITE, E2ECase, dynalite_differs, has_param

CCF = "ConditionalCheckFailedException"
CCF_MSG = "The conditional request failed"


def S(v):
    return {"S": v}


def N(v):
    return {"N": v}


class ItemCase(E2ECase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.t = cls.make_table(hash_key=("pk", "S"))
        cls.tr = cls.make_table(hash_key=("pk", "S"), range_key=("sk", "N"))

    def put(self, item, **kw):
        return self.c.put_item(TableName=self.t, Item=item, **kw)

    def get(self, pk, **kw):
        r = self.c.get_item(TableName=self.t, Key={"pk": S(pk)},
                            ConsistentRead=True, **kw)
        return r.get("Item")

    def update(self, pk, expr, values=None, names=None, **kw):
        args = dict(TableName=self.t, Key={"pk": S(pk)}, UpdateExpression=expr,
                    **kw)
        if values:
            args["ExpressionAttributeValues"] = values
        if names:
            args["ExpressionAttributeNames"] = names
        return self.c.update_item(**args)


class PutGetDeleteTest(ItemCase):

    def test_put_get_roundtrip(self):
        item = {"pk": S("pg1"), "a": S("x"), "n": N("5")}
        r = self.put(item)
        self.assertNotIn("Attributes", r)
        self.assertEqual(self.get("pg1"), item)

    def test_get_missing_item_has_no_item_key(self):
        r = self.c.get_item(TableName=self.t, Key={"pk": S("nope")})
        self.assertNotIn("Item", r)

    def test_put_return_values(self):
        self.put({"pk": S("rv1"), "v": N("1")})
        r = self.put({"pk": S("rv1"), "v": N("2")}, ReturnValues="NONE")
        self.assertNotIn("Attributes", r)
        r = self.put({"pk": S("rv1"), "v": N("3")}, ReturnValues="ALL_OLD")
        self.assertEqual(r["Attributes"], {"pk": S("rv1"), "v": N("2")})
        r = self.put({"pk": S("rv_new")}, ReturnValues="ALL_OLD")
        self.assertNotIn("Attributes", r)       # nothing was replaced

    @dynalite_differs("has an older wording")
    def test_put_return_values_invalid(self):
        self.assertValidation(self.put,
                              "1 validation error detected: ReturnValues can "
                              "only be ALL_OLD or NONE",
                              item={"pk": S("x")}, ReturnValues="ALL_NEW")

    def test_put_replaces_whole_item(self):
        self.put({"pk": S("rep"), "a": N("1"), "b": N("2")})
        self.put({"pk": S("rep"), "c": N("3")})
        self.assertEqual(self.get("rep"), {"pk": S("rep"), "c": N("3")})

    def test_delete_return_values(self):
        self.put({"pk": S("del1"), "x": S("y")})
        r = self.c.delete_item(TableName=self.t, Key={"pk": S("del1")},
                               ReturnValues="ALL_OLD")
        self.assertEqual(r["Attributes"], {"pk": S("del1"), "x": S("y")})
        self.assertIsNone(self.get("del1"))
        r = self.c.delete_item(TableName=self.t, Key={"pk": S("del1")},
                               ReturnValues="ALL_OLD")
        self.assertNotIn("Attributes", r)
        r = self.c.delete_item(TableName=self.t, Key={"pk": S("del1")})
        self.assertNotIn("Attributes", r)

    @dynalite_differs("accepts any ReturnValues on DeleteItem")
    def test_delete_return_values_invalid(self):
        self.assertValidation(self.c.delete_item,
                              "1 validation error detected: ReturnValues can "
                              "only be ALL_OLD or NONE",
                              TableName=self.t, Key={"pk": S("x")},
                              ReturnValues="UPDATED_NEW")

    def test_hash_range_items_are_distinct(self):
        for sk in ("1", "2", "10"):
            self.c.put_item(TableName=self.tr,
                            Item={"pk": S("h"), "sk": N(sk), "v": S(sk)})
        r = self.c.get_item(TableName=self.tr,
                            Key={"pk": S("h"), "sk": N("10")})
        self.assertEqual(r["Item"]["v"], S("10"))
        # 1.0 and 1 are the same number, hence the same key.
        r = self.c.get_item(TableName=self.tr,
                            Key={"pk": S("h"), "sk": N("1.0")})
        self.assertEqual(r["Item"]["v"], S("1"))

    def test_projection(self):
        self.put({"pk": S("proj"), "a": S("1"), "b": S("2"),
                  "m": {"M": {"x": N("1"), "y": N("2")}},
                  "l": {"L": [S("l0"), S("l1"), S("l2")]}})
        item = self.get("proj", ProjectionExpression="a, m.y, l[1], #s",
                        ExpressionAttributeNames={"#s": "size"})
        self.assertEqual(item, {"a": S("1"), "m": {"M": {"y": N("2")}},
                                "l": {"L": [S("l1")]}})
        item = self.get("proj", ProjectionExpression="nothere")
        self.assertEqual(item, {})

    def test_projection_overlap(self):
        self.assertValidation(
            self.get, "Invalid ProjectionExpression: Two document paths "
            "overlap with each other; must remove or rewrite one of these "
            "paths; path one: [m], path two: [m, x]",
            pk="proj", ProjectionExpression="m, m.x")

    def test_projection_reserved_word(self):
        self.put({"pk": S("projr"), "name": S("n")})
        self.assertValidation(
            self.get, "Invalid ProjectionExpression: Attribute name is a "
            "reserved keyword; reserved keyword: name",
            pk="projr", ProjectionExpression="name")

    def test_attributes_to_get_legacy(self):
        self.put({"pk": S("atg"), "a": S("1"), "b": S("2")})
        item = self.get("atg", AttributesToGet=["b"])
        self.assertEqual(item, {"b": S("2")})


class ConditionTest(ItemCase):

    def test_delete_with_passing_condition(self):
        self.put({"pk": S("c0"), "v": N("1")})
        r = self.c.delete_item(TableName=self.t, Key={"pk": S("c0")},
                               ConditionExpression="v = :one",
                               ExpressionAttributeValues={":one": N("1")},
                               ReturnValues="ALL_OLD")
        self.assertEqual(r["Attributes"], {"pk": S("c0"), "v": N("1")})
        self.assertIsNone(self.get("c0"))

    def test_put_if_not_exists(self):
        self.put({"pk": S("c1"), "v": N("1")},
                 ConditionExpression="attribute_not_exists(pk)")
        e = self.assertError(self.put, CCF, CCF_MSG,
                             item={"pk": S("c1"), "v": N("2")},
                             ConditionExpression="attribute_not_exists(pk)")
        self.assertNotIn("Item", e.response)
        self.assertEqual(self.get("c1")["v"], N("1"))

    def test_condition_failure_returns_old_item(self):
        if ON_DYNALITE:
            self.skipTest("dynalite lacks ReturnValuesOnConditionCheckFailure")
        if not has_param(self.c, "PutItem",
                         "ReturnValuesOnConditionCheckFailure"):
            self.skipTest("botocore too old")
        old = {"pk": S("c2"), "v": N("1"), "s": S("keep")}
        self.put(old)
        e = self.assertError(self.put, CCF, CCF_MSG,
                             item={"pk": S("c2")},
                             ConditionExpression="v = :two",
                             ExpressionAttributeValues={":two": N("2")},
                             ReturnValuesOnConditionCheckFailure="ALL_OLD")
        self.assertEqual(e.response["Item"], old)
        e = self.assertError(self.c.update_item, CCF, CCF_MSG,
                             TableName=self.t, Key={"pk": S("c2")},
                             UpdateExpression="SET v = :two",
                             ConditionExpression="v = :two",
                             ExpressionAttributeValues={":two": N("2")},
                             ReturnValuesOnConditionCheckFailure="ALL_OLD")
        self.assertEqual(e.response["Item"], old)
        e = self.assertError(self.c.delete_item, CCF, CCF_MSG,
                             TableName=self.t, Key={"pk": S("c2")},
                             ConditionExpression="attribute_not_exists(v)",
                             ReturnValuesOnConditionCheckFailure="ALL_OLD")
        self.assertEqual(e.response["Item"], old)
        # Missing item: the condition fails, and there is no Item.
        e = self.assertError(self.c.delete_item, CCF, CCF_MSG,
                             TableName=self.t, Key={"pk": S("c2-missing")},
                             ConditionExpression="attribute_exists(v)",
                             ReturnValuesOnConditionCheckFailure="ALL_OLD")
        self.assertNotIn("Item", e.response)

    def test_condition_functions_and_operators(self):
        self.put({"pk": S("c3"), "n": N("10"), "s": S("hello world"),
                  "ss": {"SS": ["a", "b"]}, "l": {"L": [N("1"), N("2")]},
                  "m": {"M": {"k": S("v")}}, "nul": {"NULL": True}})
        ok = [
            ("n = :n10", {":n10": N("10")}),
            ("n <> :n5", {":n5": N("5")}),
            ("n < :n11 AND n <= :n10", {":n11": N("11"), ":n10": N("10")}),
            ("n > :n9 AND n >= :n10", {":n9": N("9"), ":n10": N("10")}),
            ("n BETWEEN :a AND :b", {":a": N("1"), ":b": N("10")}),
            ("n IN (:a, :b)", {":a": N("1"), ":b": N("10")}),
            ("begins_with(s, :p)", {":p": S("hello")}),
            ("contains(s, :p)", {":p": S("o w")}),
            ("contains(ss, :p)", {":p": S("b")}),
            ("contains(l, :p)", {":p": N("2")}),
            ("size(s) = :len", {":len": N("11")}),
            ("size(ss) = :two AND size(l) = :two", {":two": N("2")}),
            ("attribute_type(m, :t)", {":t": S("M")}),
            ("attribute_type(nul, :t)", {":t": S("NULL")}),
            ("attribute_exists(m.k) AND NOT attribute_exists(m.z)", None),
            ("(n = :a OR n = :b) AND NOT n = :a", {":a": N("1"),
                                                    ":b": N("10")}),
            ("m.k = :v", {":v": S("v")}),
            ("l[1] = :v", {":v": N("2")}),
        ]
        for expr, values in ok:
            with self.subTest(expr=expr):
                args = dict(TableName=self.t, Key={"pk": S("c3")},
                            UpdateExpression="SET touched = :t",
                            ConditionExpression=expr)
                vals = dict(values or {})
                vals.setdefault(":t", S("y"))
                args["ExpressionAttributeValues"] = vals
                self.c.update_item(**args)
        bad = [("n = :s", {":s": S("10")}),        # type differs: false
               ("n BETWEEN :a AND :b", {":a": N("11"), ":b": N("20")}),
               ("begins_with(s, :p)", {":p": S("world")}),
               ("attribute_type(n, :t)", {":t": S("S")}),
               ("size(l) > :n", {":n": N("5")})]
        for expr, values in bad:
            with self.subTest(expr=expr):
                self.assertError(self.c.delete_item, CCF, CCF_MSG,
                                 TableName=self.t, Key={"pk": S("c3")},
                                 ConditionExpression=expr,
                                 ExpressionAttributeValues=values)
        self.assertIsNotNone(self.get("c3"))

    # In the write envelope, as every expression error found before the
    # table is read (test_item_messages.WriteEnvelopeTest).
    @dynalite_differs("has the older, unenveloped wording")
    def test_between_bounds_reversed(self):
        self.assertValidation(
            self.c.delete_item,
            "1 validation error detected: Invalid ConditionExpression: The "
            "BETWEEN operator requires upper "
            "bound to be greater than or equal to lower bound; lower bound "
            "operand: AttributeValue: {N:5}, upper bound operand: "
            "AttributeValue: {N:1}",
            TableName=self.t, Key={"pk": S("x")},
            ConditionExpression="n BETWEEN :a AND :b",
            ExpressionAttributeValues={":a": N("5"), ":b": N("1")})

    def test_legacy_expected(self):
        self.put({"pk": S("c4"), "v": N("1")})
        self.put({"pk": S("c4"), "v": N("2")},
                 Expected={"v": {"Value": N("1")}})
        self.assertError(self.put, CCF, CCF_MSG,
                         item={"pk": S("c4"), "v": N("3")},
                         Expected={"v": {"Exists": False}})
        self.put({"pk": S("c4"), "v": N("3")},
                 Expected={"v": {"ComparisonOperator": "GT",
                                 "AttributeValueList": [N("1")]},
                           "zz": {"Exists": False}})
        self.assertEqual(self.get("c4")["v"], N("3"))


class UpdateTest(ItemCase):

    def test_update_creates_item(self):
        r = self.update("u0", "SET a = :a", {":a": S("x")},
                        ReturnValues="ALL_NEW")
        self.assertEqual(r["Attributes"], {"pk": S("u0"), "a": S("x")})

    def test_update_if_absent_creates(self):
        r = self.update("u_new", "SET a = :a", {":a": N("1")},
                        ConditionExpression="attribute_not_exists(pk)",
                        ReturnValues="ALL_OLD")
        self.assertNotIn("Attributes", r)
        self.assertEqual(self.get("u_new"), {"pk": S("u_new"), "a": N("1")})

    def test_remove_everything_keeps_the_item(self):
        self.put({"pk": S("u_rm"), "a": N("1")})
        r = self.update("u_rm", "REMOVE a", ReturnValues="ALL_NEW")
        self.assertEqual(r["Attributes"], {"pk": S("u_rm")})
        self.assertEqual(self.get("u_rm"), {"pk": S("u_rm")})

    @dynalite_differs("sends an empty Attributes map")
    def test_updated_old_of_new_attribute(self):
        self.put({"pk": S("u_uo")})
        r = self.update("u_uo", "SET fresh = :v", {":v": S("x")},
                        ReturnValues="UPDATED_OLD")
        self.assertNotIn("Attributes", r)
        r = self.update("u_uo", "SET fresh = :v", {":v": S("x")},
                        ReturnValues="UPDATED_NEW")
        self.assertEqual(r["Attributes"], {"fresh": S("x")})

    def test_every_return_value(self):
        base = {"pk": S("u1"), "a": N("1"), "b": S("keep")}
        cases = {
            "NONE": None,
            "ALL_OLD": base,
            "UPDATED_OLD": {"a": N("1")},
            "ALL_NEW": {"pk": S("u1"), "a": N("2"), "b": S("keep"),
                        "c": S("new")},
            "UPDATED_NEW": {"a": N("2"), "c": S("new")},
        }
        for rv, want in cases.items():
            with self.subTest(rv=rv):
                self.put(base)
                r = self.update("u1", "SET a = :two, c = :c",
                                {":two": N("2"), ":c": S("new")},
                                ReturnValues=rv)
                if want is None:
                    self.assertNotIn("Attributes", r)
                else:
                    self.assertEqual(r["Attributes"], want)

    def test_set_arithmetic_and_functions(self):
        self.put({"pk": S("u2"), "n": N("10"), "l": {"L": [N("1")]}})
        r = self.update(
            "u2", "SET n = n + :one, m = n - :three, d = if_not_exists(d, :z),"
            " n2 = if_not_exists(n, :z), l = list_append(l, :tail),"
            " l2 = list_append(:head, l)",
            {":one": N("1"), ":three": N("3"), ":z": N("0"),
             ":tail": {"L": [N("2"), N("3")]}, ":head": {"L": [S("h")]}},
            ReturnValues="ALL_NEW")
        a = r["Attributes"]
        self.assertEqual(a["n"], N("11"))
        self.assertEqual(a["m"], N("7"))     # right side sees the old n
        self.assertEqual(a["d"], N("0"))
        self.assertEqual(a["n2"], N("10"))
        self.assertEqual(a["l"], {"L": [N("1"), N("2"), N("3")]})
        self.assertEqual(a["l2"], {"L": [S("h"), N("1")]})

    def test_decimal_arithmetic_is_exact(self):
        self.put({"pk": S("u2d"), "n": N("0.1")})
        r = self.update("u2d", "SET n = n + :x", {":x": N("0.2")},
                        ReturnValues="UPDATED_NEW")
        self.assertEqual(r["Attributes"]["n"], N("0.3"))
        r = self.update("u2d", "SET n = n - :x", {":x": N("0.3")},
                        ReturnValues="UPDATED_NEW")
        self.assertEqual(r["Attributes"]["n"], N("0"))

    @dynalite_differs("removes list indexes one after the other")
    def test_remove_including_list_elements(self):
        # DynamoDB resolves every index against the item before the update:
        # REMOVE l[1], l[3] on [0,1,2,3] leaves [0,2].
        self.put({"pk": S("u3"), "a": S("x"), "b": S("y"),
                  "l": {"L": [S("0"), S("1"), S("2"), S("3")]},
                  "m": {"M": {"k1": S("v1"), "k2": S("v2")}}})
        r = self.update("u3", "REMOVE a, l[1], l[3], m.k1, nothere",
                        ReturnValues="ALL_NEW")
        self.assertEqual(r["Attributes"], {
            "pk": S("u3"), "b": S("y"), "l": {"L": [S("0"), S("2")]},
            "m": {"M": {"k2": S("v2")}}})

    def test_add_numbers_and_sets(self):
        self.put({"pk": S("u4"), "n": N("5"), "ss": {"SS": ["a"]}})
        r = self.update("u4", "ADD n :d, ss :s, newn :d, newss :ns",
                        {":d": N("-2.5"), ":s": {"SS": ["b", "a"]},
                         ":ns": {"NS": ["1", "2"]}},
                        ReturnValues="ALL_NEW")
        a = r["Attributes"]
        self.assertEqual(a["n"], N("2.5"))
        self.assertEqual(a["newn"], N("-2.5"))
        self.assertEqual(sorted(a["ss"]["SS"]), ["a", "b"])
        self.assertEqual(sorted(a["newss"]["NS"]), ["1", "2"])

    def test_delete_from_set(self):
        self.put({"pk": S("u5"), "ss": {"SS": ["a", "b", "c"]},
                  "one": {"NS": ["1"]}})
        r = self.update("u5", "DELETE ss :ab, one :one",
                        {":ab": {"SS": ["a", "b", "zz"]},
                         ":one": {"NS": ["1"]}},
                        ReturnValues="ALL_NEW")
        # Deleting the last member removes the attribute: no empty sets.
        self.assertEqual(r["Attributes"], {"pk": S("u5"),
                                           "ss": {"SS": ["c"]}})

    def test_nested_paths(self):
        self.put({"pk": S("u6"), "m": {"M": {"a": {"M": {}}}},
                  "l": {"L": [N("0"), {"M": {"x": N("1")}}]}})
        r = self.update(
            "u6", "SET m.a.b = :v, l[1].x = :w, l[5] = :end, #dot = :d",
            {":v": S("deep"), ":w": N("2"), ":end": S("appended"),
             ":d": S("dotted")}, {"#dot": "a.b"}, ReturnValues="ALL_NEW")
        a = r["Attributes"]
        self.assertEqual(a["m"], {"M": {"a": {"M": {"b": S("deep")}}}})
        # Setting past the end of a list appends.
        self.assertEqual(a["l"], {"L": [N("0"), {"M": {"x": N("2")}},
                                        S("appended")]})
        self.assertEqual(a["a.b"], S("dotted"))     # one top-level name

    def test_nested_path_missing_parent(self):
        self.put({"pk": S("u7")})
        self.assertValidation(
            self.update, "The document path provided in the update "
            "expression is invalid for update",
            pk="u7", expr="SET m.a = :v", values={":v": S("x")})

    def test_update_key_attribute_rejected(self):
        self.put({"pk": S("u8")})
        self.assertValidation(
            self.update, "One or more parameter values were invalid: Cannot "
            "update attribute pk. This attribute is part of the key",
            pk="u8", expr="SET pk = :v", values={":v": S("x")})

    def test_remove_key_attribute_rejected(self):
        self.put({"pk": S("u8r")})
        self.assertValidation(
            self.update, "One or more parameter values were invalid: Cannot "
            "update attribute pk. This attribute is part of the key",
            pk="u8r", expr="REMOVE pk")

    def test_add_wrong_type(self):
        self.put({"pk": S("u9"), "s": S("str")})
        self.assertValidation(
            self.update, "An operand in the update expression has an "
            "incorrect data type", pk="u9", expr="ADD s :one",
            values={":one": N("1")})

    def test_list_append_wrong_type(self):
        self.put({"pk": S("u12"), "s": S("str")})
        # The operand's type is known only from the stored item.
        self.assertValidation(
            self.update, "An operand in the update expression has an "
            "incorrect data type", pk="u12", expr="SET l = list_append(s, :l)",
            values={":l": {"L": [N("1")]}})

    @dynalite_differs("has the older, unenveloped wording")
    def test_overlapping_paths(self):
        self.assertValidation(
            self.update, "1 validation error detected: "
            "Invalid UpdateExpression: Two document paths "
            "overlap with each other; must remove or rewrite one of these "
            "paths; path one: [a], path two: [a, b]",
            pk="u10", expr="SET a = :v, a.b = :v", values={":v": S("x")})

    def test_legacy_attribute_updates(self):
        self.put({"pk": S("u11"), "n": N("1"), "gone": S("x"),
                  "ss": {"SS": ["a", "b"]}})
        r = self.c.update_item(
            TableName=self.t, Key={"pk": S("u11")},
            AttributeUpdates={
                "n": {"Action": "ADD", "Value": N("4")},
                "gone": {"Action": "DELETE"},
                "ss": {"Action": "DELETE", "Value": {"SS": ["a"]}},
                "p": {"Action": "PUT", "Value": S("put")}},
            ReturnValues="ALL_NEW")
        self.assertEqual(r["Attributes"], {"pk": S("u11"), "n": N("5"),
                                           "ss": {"SS": ["b"]},
                                           "p": S("put")})


if __name__ == "__main__":
    unittest.main()
