# SPDX-License-Identifier: MIT
# test_resource.py - the boto3 resource API (TypeSerializer/Deserializer:
# Decimal, sets, Binary) and boto3.dynamodb.conditions.
import decimal
import unittest
from decimal import Decimal

from boto3.dynamodb.conditions import Attr, Key
from boto3.dynamodb.types import Binary

from e2e_common import E2ECase, resource


class ResourceTest(E2ECase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        name = cls.make_table(hash_key=("pk", "S"), range_key=("sk", "N"))
        cls.table = resource().Table(name)

    def roundtrip(self, sk, **attrs):
        item = dict(pk="r", sk=sk, **attrs)
        self.table.put_item(Item=item)
        return self.table.get_item(Key={"pk": "r", "sk": sk},
                                   ConsistentRead=True)["Item"]

    def test_native_types(self):
        got = self.roundtrip(1, s="x", n=Decimal("3.14"), i=7, t=True,
                             nothing=None, l=["a", Decimal("1"), {"k": "v"}],
                             m={"nested": {"deep": [True]}},
                             ss={"a", "b"}, ns={1, Decimal("2.5")},
                             b=Binary(b"\x00\x01"), bs={Binary(b"\x02")})
        self.assertEqual(got["s"], "x")
        self.assertEqual(got["n"], Decimal("3.14"))
        self.assertEqual(got["i"], Decimal(7))
        self.assertIs(got["t"], True)
        self.assertIsNone(got["nothing"])
        self.assertEqual(got["l"], ["a", Decimal(1), {"k": "v"}])
        self.assertEqual(got["m"], {"nested": {"deep": [True]}})
        self.assertEqual(got["ss"], {"a", "b"})
        self.assertEqual(got["ns"], {Decimal(1), Decimal("2.5")})
        self.assertEqual(got["b"], Binary(b"\x00\x01"))
        self.assertEqual(got["bs"], {Binary(b"\x02")})

    def test_decimal_canonical(self):
        got = self.roundtrip(2, a=Decimal("1E+2"), b=Decimal("1.50"),
                             c=Decimal("-0.000"), d=Decimal("1E-5"))
        # Compare the digits, not just the values: DynamoDB sends "100".
        self.assertEqual(str(got["a"]), "100")
        self.assertEqual(str(got["b"]), "1.5")
        self.assertEqual(str(got["c"]), "0")
        self.assertEqual(str(got["d"]), "0.00001")

    def test_large_decimal_round_trip(self):
        big = Decimal("1234567890123456789012345678901234567.8")   # 38 digits
        got = self.roundtrip(3, big=big, neg=-big)
        self.assertEqual(got["big"], big)
        self.assertEqual(got["neg"], -big)
        # 38 significant digits times 10^88: "1E+126" would overflow, and
        # boto3 cannot decode more than 38 digits, so stay inside.
        with decimal.localcontext() as ctx:
            ctx.prec = 38
            self.assertEqual(got["big"] + 0, big)

    def test_query_with_conditions(self):
        for i in range(10, 20):
            self.table.put_item(Item={"pk": "q", "sk": i, "v": i % 3})
        r = self.table.query(KeyConditionExpression=Key("pk").eq("q") &
                             Key("sk").between(12, 15),
                             FilterExpression=Attr("v").ne(0))
        self.assertEqual([it["sk"] for it in r["Items"]], [13, 14])
        self.assertEqual(r["ScannedCount"], 4)
        r = self.table.query(KeyConditionExpression=Key("pk").eq("q"),
                             ScanIndexForward=False, Limit=3)
        self.assertEqual([int(it["sk"]) for it in r["Items"]], [19, 18, 17])
        self.assertEqual(r["LastEvaluatedKey"], {"pk": "q", "sk": 17})

    def test_update_with_resource(self):
        self.table.put_item(Item={"pk": "u", "sk": 0, "cnt": 1})
        r = self.table.update_item(
            Key={"pk": "u", "sk": 0},
            UpdateExpression="ADD cnt :inc, tags :t SET #n = :n",
            ExpressionAttributeNames={"#n": "name"},
            ExpressionAttributeValues={":inc": Decimal("0.5"),
                                       ":t": {"x", "y"}, ":n": "nm"},
            ReturnValues="UPDATED_NEW")
        self.assertEqual(r["Attributes"], {"cnt": Decimal("1.5"),
                                           "tags": {"x", "y"}, "name": "nm"})

    def test_conditional_put_resource(self):
        self.table.put_item(Item={"pk": "c", "sk": 0})
        client = self.table.meta.client
        ccf = client.exceptions.ConditionalCheckFailedException
        with self.assertRaises(ccf):
            self.table.put_item(Item={"pk": "c", "sk": 0},
                                ConditionExpression=Attr("pk").not_exists())

    def test_empty_set_rejected(self):
        # boto3 serializes set() as {"NS": []}: the server must refuse it.
        with self.assertRaises(client_error()) as cm:
            self.table.put_item(Item={"pk": "e", "sk": 0, "s": set()})
        self.assertEqual(cm.exception.response["Error"]["Code"],
                         "ValidationException")


def client_error():
    from botocore.exceptions import ClientError
    return ClientError


if __name__ == "__main__":
    unittest.main()
