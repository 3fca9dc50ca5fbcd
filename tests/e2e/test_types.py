# SPDX-License-Identifier: MIT
# test_types.py - every AttributeValue type survives a round trip; unicode
# (raw, escaped, surrogate pairs); numbers come back canonical.
import unittest

from e2e_common import E2ECase, dynalite_differs

EMOJI = "\U0001F600"          # outside the BMP: a surrogate pair in JSON


class TypesTest(E2ECase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.t = cls.make_table(hash_key=("pk", "S"))
        cls.tb = cls.make_table(hash_key=("pk", "B"))

    def roundtrip(self, key, attrs):
        item = dict(attrs)
        item["pk"] = {"S": key}
        self.c.put_item(TableName=self.t, Item=item)
        return self.c.get_item(TableName=self.t, Key={"pk": {"S": key}},
                               ConsistentRead=True)["Item"]

    def test_all_types(self):
        attrs = {
            "s": {"S": "str"}, "empty_s": {"S": ""},
            "n": {"N": "42"}, "b": {"B": b"\x00\x01\xff"},
            "empty_b": {"B": b""},
            "t": {"BOOL": True}, "f": {"BOOL": False}, "nul": {"NULL": True},
            "m": {"M": {"inner": {"S": "v"}, "deep": {"M": {"x": {"N": "1"}}},
                        "em": {"M": {}}}},
            "l": {"L": [{"S": "a"}, {"N": "1"}, {"BOOL": False}, {"L": []},
                        {"NULL": True}]},
            "ss": {"SS": ["a", "b", "c"]}, "ns": {"NS": ["1", "2.5", "-3"]},
            "bs": {"BS": [b"\x01", b"\x02"]},
        }
        got = self.roundtrip("types", attrs)
        for k in ("s", "empty_s", "n", "b", "empty_b", "t", "f", "nul", "m",
                  "l"):
            self.assertEqual(got[k], attrs[k], k)
        self.assertEqual(sorted(got["ss"]["SS"]), ["a", "b", "c"])
        self.assertEqual(sorted(got["ns"]["NS"], key=float),
                         ["-3", "1", "2.5"])
        self.assertEqual(sorted(got["bs"]["BS"]), [b"\x01", b"\x02"])

    def test_unicode(self):
        texts = {"latin": "caf\u00e9", "cjk": "\u6f22\u5b57",
                 "emoji": EMOJI + "x" + EMOJI, "nul": "a\u0000b",
                 "ctl": "tab\tnl\nq\"bs\\"}
        attrs = {k: {"S": v} for k, v in texts.items()}
        attrs["key_" + EMOJI] = {"S": "emoji attribute name"}
        attrs["ss"] = {"SS": [EMOJI, "\u00e9"]}
        got = self.roundtrip("uni_" + EMOJI, attrs)
        self.assertEqual(got["pk"], {"S": "uni_" + EMOJI})
        for k, v in texts.items():
            self.assertEqual(got[k]["S"], v, k)
        self.assertEqual(got["key_" + EMOJI]["S"], "emoji attribute name")
        self.assertEqual(sorted(got["ss"]["SS"]), sorted([EMOJI, "\u00e9"]))

    @dynalite_differs("counts UTF-16 code units")
    def test_unicode_size_counts_utf8_bytes(self):
        # 4-byte characters: 102,000 emoji = 408,000 bytes; with the names
        # that is under 409,600. 103,000 emoji (412,000 bytes) is over.
        self.roundtrip("big_ok", {"e": {"S": EMOJI * 102000}})
        self.assertValidation(self.roundtrip,
                              "Item size has exceeded the maximum allowed "
                              "size", key="big_bad",
                              attrs={"e": {"S": EMOJI * 103000}})

    def test_number_hash_key_is_numeric(self):
        t = self.make_table(hash_key=("id", "N"))
        self.c.put_item(TableName=t, Item={"id": {"N": "100"},
                                           "v": {"S": "a"}})
        for spelling in ("1E+2", "100.000", "0100", "1e2"):
            with self.subTest(spelling=spelling):
                r = self.c.get_item(TableName=t, Key={"id": {"N": spelling}},
                                    ConsistentRead=True)
                self.assertEqual(r.get("Item"), {"id": {"N": "100"},
                                                 "v": {"S": "a"}})
        # Overwrite through another spelling: still one item.
        self.c.put_item(TableName=t, Item={"id": {"N": "1E2"},
                                           "v": {"S": "b"}})
        self.assertEqual(self.c.scan(TableName=t)["Count"], 1)

    def test_binary_key(self):
        key = {"pk": {"B": b"\x00\xffkey"}}
        self.c.put_item(TableName=self.tb, Item=dict(key, v={"S": "x"}))
        got = self.c.get_item(TableName=self.tb, Key=key)["Item"]
        self.assertEqual(got["pk"], {"B": b"\x00\xffkey"})

    def test_canonical_numbers(self):
        cases = {
            "1E+2": "100", "1e2": "100", "1.50": "1.5", "0001": "1",
            "-0": "0", "0.0": "0", "1.0E-3": "0.001",
            "-1.2300": "-1.23", "123.450": "123.45", "5e-1": "0.5",
            "12345678901234567890123456789012345678":
                "12345678901234567890123456789012345678",
            "1E+37": "10000000000000000000000000000000000000",
            "9.9999999999999999999999999999999999999E+125":
                "99999999999999999999999999999999999999" + "0" * 88,
            "1E-130": "0." + "0" * 129 + "1",
        }
        attrs = {"n%d" % i: {"N": k} for i, k in enumerate(cases)}
        got = self.roundtrip("canon", attrs)
        for i, (inp, want) in enumerate(cases.items()):
            self.assertEqual(got["n%d" % i]["N"], want, inp)

    def test_canonical_number_in_set(self):
        got = self.roundtrip("canonset", {"ns": {"NS": ["1E+2", "2.50"]}})
        self.assertEqual(sorted(got["ns"]["NS"]), ["100", "2.5"])

    def test_number_limits(self):
        bad = {
            "1E+126": "1 validation error detected: Number overflow. Attempting to store a number with "
                      "magnitude larger than supported range",
            "1E-131": "1 validation error detected: Number underflow. Attempting to store a number with "
                      "magnitude smaller than supported range",
            "123456789012345678901234567890123456789":
                "1 validation error detected: Attempting to store more than "
                "38 significant digits in a "
                "Number",
        }
        for n, msg in bad.items():
            with self.subTest(n=n):
                self.assertValidation(self.roundtrip, msg, key="lim",
                                      attrs={"n": {"N": n}})

    def test_number_set_equality_is_numeric(self):
        # "1" and "1.0" are the same number: a duplicate.
        self.assertValidation(self.roundtrip, key="dupns",
                              attrs={"ns": {"NS": ["1", "1.0"]}})


if __name__ == "__main__":
    unittest.main()
