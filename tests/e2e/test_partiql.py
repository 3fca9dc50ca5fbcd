# SPDX-License-Identifier: MIT
# test_partiql.py - PartiQL through boto3: ExecuteStatement's SELECT
# (Query when the WHERE fixes the partition key, else Scan; tables and
# "table"."index"; projections, functions, IS, Limit and NextToken,
# ConsistentRead, ReturnConsumedCapacity), INSERT, UPDATE (SET, REMOVE,
# arithmetic, list_append, set_add, set_delete, FROM-first), DELETE,
# RETURNING, parameters, BatchExecuteStatement, ExecuteTransaction
# (atomicity, cancellation reasons, ClientRequestToken), DynamoDB's
# messages, and metering and throttling as the equivalent item operations.
# Expected behaviour: real DynamoDB as paritysuite/dynamodb-conformance and
# nubo-db/dynamodb-conformance recorded it (tests/tier2/partiql/*,
# tests/tier3/error-messages/partiql*.test.ts, eu-west-2, 2026-09/10), the
# developer guide's PartiQL chapter, or DynamoDB Local where a case says so.
import json
import unittest
import urllib.request
import uuid

from botocore.exceptions import ClientError

from e2e_common import (E2ECase, OwnServerCase, make_private_client,
                        start_private_server, BOTOCORE_VERSION)
from test_batch import unvalidated_client

NWF = "Statement wasn't well formed, can't be processed: "
KEY = ("Where clause does not contain a mandatory equality on all key "
       "attributes")
CCF = "ConditionalCheckFailedException"
TCE = "TransactionCanceledException"


def S(v):
    return {"S": v}


def N(v):
    return {"N": str(v)}


def uid():
    return uuid.uuid4().hex[:10]


def attr(name, t="S"):
    return {"AttributeName": name, "AttributeType": t}


def key(name, kt):
    return {"AttributeName": name, "KeyType": kt}


class PartiqlCase(E2ECase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.h = cls.make_table("pqh")
        cls.n = cls.make_table("pqn", hash_key=("pk", "N"))
        cls.cmp = cls.make_table("pqc", range_key=("sk", "S"))
        cls.idx = cls.make_table(
            "pqi", range_key=("sk", "S"),
            AttributeDefinitions=[attr("pk"), attr("sk"), attr("gsiPk"),
                                  attr("gsiPk2"), attr("lsiSk2")],
            GlobalSecondaryIndexes=[
                {"IndexName": "gsi-all", "KeySchema": [key("gsiPk", "HASH")],
                 "Projection": {"ProjectionType": "ALL"}},
                {"IndexName": "gsi-inc", "KeySchema": [key("gsiPk2", "HASH")],
                 "Projection": {"ProjectionType": "INCLUDE",
                                "NonKeyAttributes": ["projattr"]}},
                {"IndexName": "gsi-keys",
                 "KeySchema": [key("gsiPk2", "HASH")],
                 "Projection": {"ProjectionType": "KEYS_ONLY"}}],
            LocalSecondaryIndexes=[
                {"IndexName": "lsi-keys",
                 "KeySchema": [key("pk", "HASH"), key("lsiSk2", "RANGE")],
                 "Projection": {"ProjectionType": "KEYS_ONLY"}}])
        # indexQualifier.test.ts's fixture: s3 is in no index, nonproj is
        # projected by none
        for sk, g, g2, extra in (("s1", "x", "y", "proj1"),
                                 ("s2", "z", "y", "proj2"),
                                 ("s3", None, None, None),
                                 ("s4", "x", "y", "proj4")):
            it = {"pk": S("p"), "sk": S(sk), "nonproj": S("np" + sk[1])}
            if g is not None:
                it.update(gsiPk=S(g), gsiPk2=S(g2), projattr=S(extra),
                          lsiSk2=S("k" + sk[1]))
            cls.c.put_item(TableName=cls.idx, Item=it)

    def run_st(self, st, **kw):
        return self.c.execute_statement(Statement=st, **kw)

    def items(self, st, **kw):
        return self.run_st(st, **kw)["Items"]

    def get(self, table, k):
        return self.c.get_item(TableName=table, Key=k,
                               ConsistentRead=True).get("Item")

    def refused(self, st, message, code="ValidationException", **kw):
        return self.assertError(self.run_st, code, message, st=st, **kw)


class Select(PartiqlCase):
    """SELECT: developer guide "PartiQL select statements",
    executeStatement.test.ts, whereFunctions.test.ts."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.c.put_item(TableName=cls.h, Item={
            "pk": S("item"), "ss": {"SS": ["a", "b", "c"]}, "s": S("str"),
            "m": {"M": {"sub": S("x"), "nested": S("deep")}},
            "nul": {"NULL": True}, "flag": {"BOOL": True}, "n": N(5),
            "l": {"L": [N(1), S("two")]}})
        for i in range(5):
            cls.c.put_item(TableName=cls.cmp, Item={
                "pk": S("o"), "sk": S(str(i)), "n": N(i)})

    def where(self, cond):
        return [i["pk"]["S"] for i in self.items(
            "SELECT * FROM \"%s\" WHERE pk = 'item' AND %s" % (self.h, cond),
            ConsistentRead=True)]

    def test_by_key_star_and_list(self):
        got = self.items("SELECT * FROM \"%s\" WHERE pk = 'item'" % self.h)
        self.assertEqual(len(got), 1)
        self.assertEqual(got[0]["s"], S("str"))
        got = self.items("SELECT pk, m.nested, l[1], nope FROM \"%s\" "
                         "WHERE pk = ?" % self.h, Parameters=[S("item")])
        # a nested path answers under its last name (executeStatement)
        self.assertEqual(got, [{"pk": S("item"), "nested": S("deep"),
                                "l[1]": S("two")}])
        self.assertEqual(self.items(
            "SELECT * FROM \"%s\" WHERE pk = 'none'" % self.h), [])

    def test_functions_and_is(self):
        for cond, hit in (
                ("attribute_exists(ss)", True),
                ("attribute_exists(nope)", False),
                ("attribute_not_exists(nope)", True),
                ("NOT attribute_exists(nope)", True),
                ("ATTRIBUTE_EXISTS(ss)", True),
                ("(attribute_exists(nope) OR attribute_exists(ss))", True),
                ("attribute_exists(ss) = true", True),
                ("attribute_exists(\"ss\")", True),
                ("attribute_exists(m.sub)", True),
                ("attribute_exists(m.nope)", False),
                ("size(s) = 3", True), ("size(s) = 4", False),
                ("attribute_type(ss, 'SS')", True),
                ("attribute_type(ss, 'S')", False),
                ("begins_with(s, 'st')", True),
                ("contains(ss, 'b')", True), ("contains(s, 'q')", False),
                ("nul IS NULL", True), ("s IS NULL", False),
                ("s IS NOT NULL", True), ("nul IS NOT NULL", False),
                ("flag IS BOOL", True), ("s IS STRING", True),
                ("s IS BOOL", False), ("nope IS MISSING", True),
                ("s IS NOT MISSING", True), ("n BETWEEN 4 AND 6", True),
                ("n IN [1, 5]", True), ("n NOT IN [1, 5]", False),
                ("n > 4 AND n <= 5", True), ("n <> 5", False),
                ("l[0] = 1", True)):
            with self.subTest(cond=cond):
                self.assertEqual(self.where(cond), ["item"] if hit else [])

    def test_scan_filters_every_item(self):
        u = uid()
        self.c.put_item(TableName=self.h, Item={"pk": S(u), "mark": S(u)})
        got = self.items("SELECT pk FROM \"%s\" WHERE mark = '%s'"
                         % (self.h, u), ConsistentRead=True)
        self.assertEqual(got, [{"pk": S(u)}])
        got = self.items("SELECT pk FROM \"%s\" WHERE attribute_exists(mark)"
                         " AND mark = ?" % self.h, Parameters=[S(u)])
        self.assertEqual(got, [{"pk": S(u)}])

    def test_sort_key_conditions_and_order(self):
        def sks(cond, **kw):
            return [i["sk"]["S"] for i in self.items(
                "SELECT sk FROM \"%s\" WHERE pk = 'o' %s" % (self.cmp, cond),
                **kw)]
        self.assertEqual(sks("AND sk > '2'"), ["3", "4"])
        self.assertEqual(sks("AND sk BETWEEN '1' AND '3'"), ["1", "2", "3"])
        self.assertEqual(sks("AND begins_with(sk, '4')"), ["4"])
        self.assertEqual(sks("AND NOT sk = '1' AND n < 3"), ["0", "2"])
        # grammar.test.ts
        self.assertEqual(sks("ORDER BY sk DESC"), ["4", "3", "2", "1", "0"])
        self.assertEqual(sks("ORDER BY sk ASC"), ["0", "1", "2", "3", "4"])
        # DynamoDB Local's wording
        self.refused("SELECT * FROM \"%s\" ORDER BY sk" % self.cmp,
                     "Must have WHERE clause in the statement when using "
                     "ORDER BY clause.")

    def test_limit_and_next_token(self):
        st = "SELECT sk FROM \"%s\" WHERE pk = 'o'" % self.cmp
        seen, tok, pages = [], None, 0
        while True:
            kw = {"Limit": 2}
            if tok:
                kw["NextToken"] = tok
            r = self.run_st(st, **kw)
            pages += 1
            seen += [i["sk"]["S"] for i in r["Items"]]
            tok = r.get("NextToken")
            if not tok:
                break
        self.assertEqual(seen, ["0", "1", "2", "3", "4"])
        self.assertEqual(pages, 3)
        # A token goes on only its own statement.
        tok = self.run_st(st, Limit=1)["NextToken"]
        self.assertError(self.run_st, "ValidationException",
                         st=st + " AND n > 0", NextToken=tok)

    def test_in_reads_each_partition_key(self):
        u = uid()
        for p in (u + "a", u + "b"):
            self.c.put_item(TableName=self.h, Item={"pk": S(p), "v": S(p)})
        st = ("SELECT v FROM \"%s\" WHERE pk IN ['%sa', '%sb', '%sz']"
              % (self.h, u, u, u))
        self.assertEqual(sorted(i["v"]["S"] for i in self.items(st)),
                         [u + "a", u + "b"])
        # three Queries of one key each: 0.5 RCU apiece, no Scan
        r = self.run_st(st, ReturnConsumedCapacity="TOTAL")
        self.assertEqual(r["ConsumedCapacity"]["CapacityUnits"], 1.5)
        st = ("SELECT v FROM \"%s\" WHERE pk = '%sa' OR pk = '%sb'"
              % (self.h, u, u))
        self.assertEqual(len(self.items(st)), 2)
        seen, tok = [], None
        while True:
            r = self.run_st(st, Limit=1, **({"NextToken": tok} if tok
                                             else {}))
            seen += r["Items"]
            tok = r.get("NextToken")
            if not tok:
                break
        self.assertEqual(sorted(i["v"]["S"] for i in seen),
                         [u + "a", u + "b"])

    def test_query_or_scan_by_capacity(self):
        # "Reads through Query when the WHERE fixes the partition key":
        # one small item costs what a Query of it does; without the key
        # the read is a Scan of the whole table.
        u = uid()
        self.c.put_item(TableName=self.h,
                        Item={"pk": S(u), "d": S("x" * 5000)})
        q = self.run_st("SELECT * FROM \"%s\" WHERE pk = '%s'" % (self.h, u),
                        ReturnConsumedCapacity="TOTAL", ConsistentRead=True)
        self.assertEqual(q["ConsumedCapacity"],
                         {"TableName": self.h, "CapacityUnits": 2.0})
        ec = self.run_st("SELECT * FROM \"%s\" WHERE pk = '%s'" % (self.h, u),
                         ReturnConsumedCapacity="TOTAL")
        self.assertEqual(ec["ConsumedCapacity"]["CapacityUnits"], 1.0)
        scan = self.c.scan(TableName=self.h, ConsistentRead=True,
                           ReturnConsumedCapacity="TOTAL")
        s = self.run_st("SELECT * FROM \"%s\" WHERE d = 'no'" % self.h,
                        ReturnConsumedCapacity="TOTAL", ConsistentRead=True)
        self.assertEqual(s["ConsumedCapacity"]["CapacityUnits"],
                         scan["ConsumedCapacity"]["CapacityUnits"])
        self.assertNotIn("ConsumedCapacity", self.run_st(
            "SELECT * FROM \"%s\" WHERE pk = '%s'" % (self.h, u)))

    def test_numbers_and_comments(self):
        # grammar.test.ts
        for p in ("7310000", "7.3", "-7.3"):
            self.c.put_item(TableName=self.n, Item={"pk": N(p)})
        for lit, want in (("7.31e6", "7310000"), ("7.31E6", "7310000"),
                          ("7.31e+6", "7310000"), ("731e4", "7310000"),
                          ("73100000e-1", "7310000"), (".73e1", "7.3"),
                          ("-.73e1", "-7.3")):
            with self.subTest(lit=lit):
                got = self.items("SELECT * FROM \"%s\" WHERE pk = %s"
                                 % (self.n, lit), ConsistentRead=True)
                self.assertEqual([i["pk"] for i in got], [N(want)])
        self.c.put_item(TableName=self.h, Item={"pk": S("cmt")})
        for st in ("SELECT * FROM \"%s\" WHERE pk = 'cmt' -- a note",
                   "SELECT * FROM \"%s\" -- a note\nWHERE pk = 'cmt'",
                   "-- a note\nSELECT * FROM \"%s\" WHERE pk = 'cmt'",
                   "SELECT * FROM \"%s\" /* a note */ WHERE pk = 'cmt'",
                   "select * from \"%s\" where pk = 'cmt';"):
            with self.subTest(st=st):
                self.assertEqual(len(self.items(st % self.h)), 1)

    def test_non_scalar_comparisons(self):
        # comparison.test.ts: sets ignore order, lists do not, maps compare
        # by content; = and <> are complements
        cases = (({"SS": ["a", "b", "c"]}, {"SS": ["c", "a", "b"]}, True),
                 ({"NS": ["1", "2"]}, {"NS": ["2", "1"]}, True),
                 ({"L": [S("a"), S("b")]}, {"L": [S("b"), S("a")]}, False),
                 ({"M": {"x": N(1), "y": N(2)}},
                  {"M": {"y": N(2), "x": N(1)}}, True),
                 ({"NULL": True}, {"NULL": True}, True))
        for stored, probe, eq in cases:
            u = uid()
            self.c.put_item(TableName=self.h, Item={"pk": S(u), "val": stored})
            for op, want in (("=", eq), ("<>", not eq)):
                got = self.items("SELECT pk FROM \"%s\" WHERE pk = ? AND "
                                 "val %s ?" % (self.h, op),
                                 Parameters=[S(u), probe])
                self.assertEqual(len(got), 1 if want else 0, (stored, op))

    def test_ordering_operand_types(self):
        # comparison.test.ts, error-messages/partiql.test.ts
        for op in ("<", "<=", ">", ">="):
            self.refused("SELECT pk FROM \"%s\" WHERE pk = 'x' AND val %s ?"
                         % (self.h, op),
                         "Incorrect operand type for operator or function; "
                         "operator or function: %s, operand type: BOOL" % op,
                         Parameters=[{"BOOL": True}])
        self.refused("SELECT pk FROM \"%s\" WHERE pk = 'x' AND val BETWEEN ? "
                     "AND ?" % self.h,
                     "Incorrect operand type for operator or function; "
                     "operator or function: BETWEEN, operand type: BOOL",
                     Parameters=[{"BOOL": True}, {"BOOL": False}])
        self.assertEqual(self.items(
            "SELECT pk FROM \"%s\" WHERE pk = 'x' AND val < ?" % self.h,
            Parameters=[N(5)]), [])

    def test_overlapping_or_branches(self):
        # whereOverlap.test.ts, error-messages/partiqlGrammar.test.ts
        u = uid()
        for sk in ("1", "2", "3"):
            self.c.put_item(TableName=self.cmp,
                            Item={"pk": S(u), "sk": S(sk)})

        def sks(where):
            return sorted(i["sk"]["S"] for i in self.items(
                "SELECT * FROM \"%s\" WHERE %s" % (self.cmp, where),
                ConsistentRead=True))
        b2 = "OR pk = '%s' AND sk = '2'" % u
        self.assertEqual(sks("pk = '%s' AND NOT sk = '1' %s" % (u, b2)),
                         ["2", "3"])
        self.assertEqual(sks("pk = '%s' AND sk <> '1' %s" % (u, b2)),
                         ["2", "3"])
        self.assertEqual(sks("pk = '%s' AND NOT sk IN ['1', '3'] %s"
                             % (u, b2)), ["2"])
        self.assertEqual(sks("pk = '%s' OR pk = '%s' AND NOT sk = '1'"
                             % (u, u)), ["1", "2", "3"])
        for cond in ("x = '1'", "x <> '1'"):
            self.refused("SELECT * FROM \"%s\" WHERE pk = 'a' AND %s OR pk = "
                         "'a' AND sk = '2'" % (self.cmp, cond),
                         "Overlapping conditions with range keys are not "
                         "supported in where clause")


class Indexes(PartiqlCase):
    """"table"."index": indexQualifier.test.ts, executeStatementIndex.test.ts,
    error-messages/partiql.test.ts and partiqlIndexQualifier.test.ts."""

    def sks(self, st, **kw):
        return sorted(i["sk"]["S"] for i in self.items(st, **kw))

    def test_gsi_reads(self):
        t = self.idx
        self.assertEqual(self.sks("SELECT pk, sk FROM \"%s\".\"gsi-all\" "
                                  "WHERE gsiPk = 'x'" % t), ["s1", "s4"])
        # without the index key: a scan of the index
        self.assertEqual(self.sks("SELECT * FROM \"%s\".\"gsi-all\" WHERE "
                                  "pk = 'p'" % t), ["s1", "s2", "s4"])
        for item in self.items("SELECT * FROM \"%s\".\"gsi-keys\" WHERE "
                               "gsiPk2 = 'y'" % t):
            self.assertEqual(sorted(item), ["gsiPk2", "pk", "sk"])
        for item in self.items("SELECT * FROM \"%s\".\"gsi-inc\" WHERE "
                               "gsiPk2 = 'y'" % t):
            self.assertEqual(sorted(item), ["gsiPk2", "pk", "projattr",
                                            "sk"])
        # the negated filter names what the index lacks: every row matches
        self.assertEqual(self.sks("SELECT pk, sk FROM \"%s\".\"gsi-keys\" "
                                  "WHERE NOT nonproj = 'np1'" % t),
                         ["s1", "s2", "s4"])
        r = self.run_st("SELECT pk FROM \"%s\".\"gsi-all\" WHERE gsiPk = 'x'"
                        % t, ReturnConsumedCapacity="INDEXES")
        cc = r["ConsumedCapacity"]
        self.assertEqual(cc["Table"]["CapacityUnits"], 0)
        self.assertEqual(cc["GlobalSecondaryIndexes"]["gsi-all"]
                         ["CapacityUnits"], cc["CapacityUnits"])

    def test_gsi_refusals(self):
        t = self.idx
        self.refused("SELECT nonproj, mymap FROM \"%s\".\"gsi-inc\" WHERE "
                     "gsiPk2 = 'y'" % t,
                     "One or more parameter values were invalid: Global "
                     "secondary index gsi-inc does not project [nonproj, "
                     "mymap]")
        self.refused("SELECT nonproj FROM \"%s\".\"gsi-inc\"" % t,
                     "One or more parameter values were invalid: Global "
                     "secondary index gsi-inc does not project [nonproj]")
        self.refused("SELECT pk FROM \"%s\".\"gsi-inc\" WHERE gsiPk2 = 'y' "
                     "AND nonproj = 'np1'" % t,
                     "One or more parameter values were invalid: Secondary "
                     "index gsi-inc does not project one or more filter "
                     "attributes: [nonproj]")
        for pred in ("nonproj IS MISSING", "NOT nonproj = 'np1'",
                     "begins_with(nonproj, 'np')"):
            self.assertError(self.run_st, "ValidationException", st=(
                "SELECT pk FROM \"%s\".\"gsi-inc\" WHERE gsiPk2 = 'y' AND %s"
                % (t, pred)))
        self.assertError(self.run_st, "ValidationException", st=(
            "SELECT pk FROM \"%s\".\"gsi-inc\" WHERE gsiPk2 IN ['y', 'z'] "
            "AND nonproj = 'np1'" % t))
        self.assertEqual(self.items("SELECT pk FROM \"%s\".\"gsi-inc\" WHERE "
                                    "nonproj = 'np1'" % t), [])
        self.refused("SELECT * FROM \"%s\".\"gsi-all\" WHERE gsiPk = 'x'" % t,
                     "Strongly consistent read is not supported on Global "
                     "Secondary Indexes", ConsistentRead=True)
        self.refused("SELECT * FROM \"%s\".\"no-such\" WHERE pk = 'p'" % t,
                     "The table does not have the specified index")
        self.refused("SELECT * FROM \"%s\".\"%s\" WHERE pk = 'p'" % (t, t),
                     "The table does not have the specified index")
        self.refused("SELECT * FROM \"%s\".\"gsi-all\".\"extra\"" % t,
                     "A path may contain at most 2 components in the FROM "
                     "clause")
        self.refused("SELECT * FROM \"%s\".\"\"" % t,
                     "Path component cannot be an empty string")
        self.refused("SELECT * FROM \"\" WHERE pk = 'p'",
                     "Path component cannot be an empty string")

    def test_lsi_reads(self):
        t = self.idx
        got = self.items("SELECT * FROM \"%s\".\"lsi-keys\" WHERE pk = 'p'"
                         % t, ConsistentRead=True)
        self.assertEqual([sorted(i) for i in got],
                         [["lsiSk2", "pk", "sk"]] * 3)
        # an LSI reaches back to the table for what it does not project,
        # charged on the table arm
        r = self.run_st("SELECT nonproj FROM \"%s\".\"lsi-keys\" WHERE pk = "
                        "'p'" % t, ReturnConsumedCapacity="INDEXES")
        self.assertEqual(sorted(i["nonproj"]["S"] for i in r["Items"]),
                         ["np1", "np2", "np4"])
        self.assertGreater(r["ConsumedCapacity"]["Table"]["CapacityUnits"],
                           0)
        r = self.run_st("SELECT lsiSk2 FROM \"%s\".\"lsi-keys\" WHERE pk = "
                        "'p'" % t, ReturnConsumedCapacity="INDEXES")
        self.assertEqual(r["ConsumedCapacity"]["Table"]["CapacityUnits"], 0)
        self.refused("SELECT pk FROM \"%s\".\"lsi-keys\" WHERE pk = 'p' AND "
                     "nonproj = 'np1'" % t,
                     "One or more parameter values were invalid: Secondary "
                     "index lsi-keys does not project one or more filter "
                     "attributes: [nonproj]")

    def test_writes_refuse_an_index(self):
        t = self.idx
        self.assertError(self.run_st, "ValidationException", st=(
            "INSERT INTO \"%s\".\"gsi-all\" VALUE {'pk': 'w', 'sk': 'w'}" % t),
            message="FROM clause may only contain a single table name")
        for st in ("UPDATE \"%s\".\"gsi-all\" SET projattr = 'z' WHERE pk = "
                   "'p' AND sk = 's1'", "DELETE FROM \"%s\".\"gsi-all\" WHERE "
                   "pk = 'p' AND sk = 's1'"):
            self.refused(st % t, "This operation is not supported on an "
                                 "index")
        self.assertEqual(len(self.items("SELECT * FROM \"%s\" WHERE pk = 'p'"
                                        % t)), 4)

    def test_index_kept_by_writes(self):
        u = uid()
        self.run_st("INSERT INTO \"%s\" VALUE {'pk': '%s', 'sk': 'a', "
                    "'gsiPk': '%s'}" % (self.idx, u, u))
        self.assertEqual(len(self.items("SELECT * FROM \"%s\".\"gsi-all\" "
                                        "WHERE gsiPk = '%s'" % (self.idx, u))),
                         1)
        self.run_st("UPDATE \"%s\" SET gsiPk = 'moved%s' WHERE pk = '%s' AND "
                    "sk = 'a'" % (self.idx, u, u))
        self.assertEqual(self.items("SELECT * FROM \"%s\".\"gsi-all\" WHERE "
                                    "gsiPk = '%s'" % (self.idx, u)), [])
        self.run_st("DELETE FROM \"%s\" WHERE pk = '%s' AND sk = 'a'"
                    % (self.idx, u))
        self.assertEqual(self.items("SELECT * FROM \"%s\".\"gsi-all\" WHERE "
                                    "gsiPk = 'moved%s'" % (self.idx, u)), [])


class Writes(PartiqlCase):
    """INSERT, UPDATE, DELETE: developer guide "PartiQL insert/update/delete
    statements", executeStatement.test.ts, writeResponses.test.ts,
    setFunctions.test.ts, fromFirstUpdate.test.ts, whereFunctions.test.ts."""

    def test_insert(self):
        u = uid()
        r = self.run_st("INSERT INTO \"%s\" VALUE {'pk': ?, 'n': 1.50, "
                        "'l': [1, 'a', TRUE, NULL], 'm': {'k': {'n': 2}}, "
                        "'ss': <<'b', 'a'>>, 'ns': <<3, 1>>}" % self.h,
                        Parameters=[S(u)])
        self.assertEqual(r["Items"], [])
        self.assertEqual(self.get(self.h, {"pk": S(u)}), {
            "pk": S(u), "n": N("1.5"),
            "l": {"L": [N(1), S("a"), {"BOOL": True}, {"NULL": True}]},
            "m": {"M": {"k": {"M": {"n": N(2)}}}},
            "ss": {"SS": ["a", "b"]}, "ns": {"NS": ["1", "3"]}})
        e = self.refused("INSERT INTO \"%s\" VALUE {'pk': '%s'}" % (self.h, u),
                         "Duplicate primary key exists in table",
                         code="DuplicateItemException")
        self.assertEqual(e.response["ResponseMetadata"]["HTTPStatusCode"],
                         400)
        self.run_st("DELETE FROM \"%s\" WHERE pk = '%s'" % (self.h, u))
        self.run_st("INSERT INTO \"%s\" VALUE {'pk': '%s'}" % (self.h, u))
        self.refused("INSERT INTO \"%s\" VALUE {'v': 1}" % self.h,
                     "One or more parameter values were invalid: Missing the "
                     "key pk in the item")
        self.refused("INSERT INTO \"%s\" VALUE {'pk': 1}" % self.h,
                     "One or more parameter values were invalid: Type "
                     "mismatch for key pk expected: S actual: N")
        self.refused("INSERT INTO \"%s\" VALUE {'pk': 'x', 'm': {'x': 1e126}}"
                     % self.h, "Number overflow. Attempting to store a number"
                     " with magnitude larger than supported range under "
                     "root.x")

    def test_update_actions(self):
        u = uid()
        self.c.put_item(TableName=self.h, Item={
            "pk": S(u), "n": N(1), "l": {"L": [N(1)]}, "old": S("x"),
            "ss": {"SS": ["a", "b", "c"]}, "m": {"M": {"v": S("v")}}})
        r = self.run_st("UPDATE \"%s\" SET n = n + 5 SET l = list_append(l, "
                        "[2]), m.v = 'w', m.added = 3 REMOVE \"old\" "
                        "WHERE pk = ?"
                        % self.h, Parameters=[S(u)])
        self.assertEqual(r["Items"], [])
        item = self.get(self.h, {"pk": S(u)})
        self.assertEqual(item["n"], N(6))
        self.assertEqual(item["l"], {"L": [N(1), N(2)]})
        self.assertEqual(item["m"], {"M": {"v": S("w"), "added": N(3)}})
        self.assertNotIn("old", item)
        # set_add / set_delete (setFunctions.test.ts)
        self.run_st("UPDATE \"%s\" SET ss = set_add(ss, <<'0', 'z'>>) SET "
                    "nss = set_add(nss, <<'x'>>) WHERE pk = '%s'"
                    % (self.h, u))
        item = self.get(self.h, {"pk": S(u)})
        self.assertEqual(sorted(item["ss"]["SS"]), ["0", "a", "b", "c", "z"])
        self.assertEqual(item["nss"], {"SS": ["x"]})
        self.run_st("UPDATE \"%s\" SET nss = set_delete(nss, <<'x'>>) SET "
                    "ss = SET_DELETE(ss, ?) WHERE pk = '%s'" % (self.h, u),
                    Parameters=[{"SS": ["a", "zz"]}])
        item = self.get(self.h, {"pk": S(u)})
        self.assertNotIn("nss", item)
        self.assertEqual(sorted(item["ss"]["SS"]), ["0", "b", "c", "z"])
        self.refused("UPDATE \"%s\" SET ss = set_add(ss, <<1>>) WHERE pk = "
                     "'%s'" % (self.h, u), "An operand in the update "
                     "expression has an incorrect data type")
        self.refused("UPDATE \"%s\" SET pk = 'k' WHERE pk = '%s'"
                     % (self.h, u),
                     "One or more parameter values were invalid: Cannot "
                     "update attribute pk. This attribute is part of the key")

    def test_update_conditions(self):
        u = uid()
        self.c.put_item(TableName=self.h, Item={"pk": S(u), "a": N(5)})
        self.run_st("UPDATE \"%s\" SET z = 1 WHERE pk = '%s' AND "
                    "attribute_exists(a)" % (self.h, u))
        self.assertEqual(self.get(self.h, {"pk": S(u)})["z"], N(1))
        self.refused("UPDATE \"%s\" SET z = 2 WHERE pk = '%s' AND a = 6"
                     % (self.h, u), "The conditional request failed",
                     code=CCF)
        self.assertEqual(self.get(self.h, {"pk": S(u)})["z"], N(1))
        # a key that matches no item: the UPDATE creates nothing
        self.refused("UPDATE \"%s\" SET z = 1 WHERE pk = '%s-none'"
                     % (self.h, u), "The conditional request failed", code=CCF)
        self.assertIsNone(self.get(self.h, {"pk": S(u + "-none")}))
        self.refused("UPDATE \"%s\" SET z = 1 WHERE z = 1" % self.h, KEY)
        self.refused("UPDATE \"%s\" SET z = 1 WHERE pk = 5" % self.h,
                     "Key attribute's data type should match its data type "
                     "in table's schema: Key pk")

    @unittest.skipIf(BOTOCORE_VERSION < (1, 31),
                     "botocore too old for "
                     "ReturnValuesOnConditionCheckFailure")
    def test_condition_failure_returns_the_item(self):
        u = uid()
        self.c.put_item(TableName=self.h, Item={"pk": S(u), "a": N(5)})
        e = self.refused("UPDATE \"%s\" SET z = 2 WHERE pk = '%s' AND a = 6"
                         % (self.h, u), "The conditional request failed",
                         code=CCF,
                         ReturnValuesOnConditionCheckFailure="ALL_OLD")
        self.assertEqual(e.response["Item"], {"pk": S(u), "a": N(5)})

    def test_from_first_update(self):
        u = uid()
        self.c.put_item(TableName=self.h, Item={"pk": S(u), "a": N(1),
                                                "b": S("bee")})
        self.run_st("FROM \"%s\" WHERE pk = '%s' SET c = 2 REMOVE a"
                    % (self.h, u))
        self.assertEqual(self.get(self.h, {"pk": S(u)}),
                         {"pk": S(u), "b": S("bee"), "c": N(2)})
        r = self.run_st("from \"%s\" where pk = ? set d = ? RETURNING ALL NEW "
                        "*" % self.h, Parameters=[S(u), N(3)])
        self.assertEqual(r["Items"], [{"pk": S(u), "b": S("bee"), "c": N(2),
                                       "d": N(3)}])
        self.refused("FROM \"%s\" SET c = 1" % self.h, KEY)
        self.refused("FROM \"%s\" SET c = 1 WHERE pk = 'x'" % self.h,
                     NWF + "Unexpected token after expression")
        self.refused("FROM \"%s\" WHERE pk = 'x' SET c = 1" % (self.h + "-no"),
                     "Requested resource not found",
                     code="ResourceNotFoundException")

    def test_returning(self):
        u = uid()
        self.c.put_item(TableName=self.h, Item={"pk": S(u), "a": N(1),
                                                "b": N(2)})
        r = self.run_st("UPDATE \"%s\" SET a = 5 WHERE pk = '%s' RETURNING "
                        "MODIFIED OLD *" % (self.h, u))
        self.assertEqual(r["Items"], [{"a": N(1)}])
        r = self.run_st("UPDATE \"%s\" SET a = 6 WHERE pk = '%s' RETURNING "
                        "MODIFIED NEW *" % (self.h, u))
        self.assertEqual(r["Items"], [{"a": N(6)}])
        r = self.run_st("UPDATE \"%s\" SET c = 1 WHERE pk = '%s' RETURNING "
                        "ALL OLD *" % (self.h, u))
        self.assertEqual(r["Items"], [{"pk": S(u), "a": N(6), "b": N(2)}])
        r = self.run_st("UPDATE \"%s\" REMOVE c WHERE pk = '%s' RETURNING "
                        "MODIFIED NEW *" % (self.h, u))
        self.assertEqual(r["Items"], [])
        for ret in ("MODIFIED OLD *", "ALL NEW *", "MODIFIED NEW *"):
            self.refused("DELETE FROM \"%s\" WHERE pk = '%s' RETURNING %s"
                         % (self.h, u, ret),
                         "Invalid returning clause: RETURNING %s. Only "
                         "RETURNING ALL OLD * is allowed in DELETE statements."
                         % ret)
        r = self.run_st("DELETE FROM \"%s\" WHERE pk = '%s' RETURNING ALL OLD "
                        "*" % (self.h, u))
        self.assertEqual(r["Items"], [{"pk": S(u), "a": N(6), "b": N(2)}])
        self.assertIsNone(self.get(self.h, {"pk": S(u)}))

    def test_delete(self):
        u = uid()
        self.c.put_item(TableName=self.h, Item={"pk": S(u), "name": S("al")})
        self.refused("DELETE FROM \"%s\" WHERE pk = '%s' AND \"name\" = 'b'"
                     % (self.h, u), "The conditional request failed", code=CCF)
        self.refused("DELETE FROM \"%s\" WHERE pk = '%s' AND NOT "
                     "begins_with(\"name\", 'a')" % (self.h, u),
                     "The conditional request failed", code=CCF)
        self.assertIsNotNone(self.get(self.h, {"pk": S(u)}))
        r = self.run_st("DELETE FROM \"%s\" WHERE pk = '%s' AND \"name\" = "
                        "'al'" % (self.h, u))
        self.assertEqual(r["Items"], [])
        self.assertIsNone(self.get(self.h, {"pk": S(u)}))
        # a missing key is no failure, whatever the condition
        self.assertEqual(self.run_st("DELETE FROM \"%s\" WHERE pk = '%s' AND "
                                     "\"name\" = 'x'" % (self.h, u))["Items"],
                         [])
        self.refused("DELETE FROM \"%s\" WHERE \"name\" = 'al'" % self.h, KEY)

    def test_write_capacity_like_item_operations(self):
        u = uid()
        big = "x" * 3000
        r = self.run_st("INSERT INTO \"%s\" VALUE {'pk': '%s', 'd': '%s'}"
                        % (self.h, u, big), ReturnConsumedCapacity="TOTAL")
        p = self.c.put_item(TableName=self.h, Item={"pk": S(u + "p"),
                                                    "d": S(big)},
                            ReturnConsumedCapacity="TOTAL")
        self.assertEqual(r["ConsumedCapacity"], p["ConsumedCapacity"])
        # an update bills the larger of the old and new item, 3 KB here
        r = self.run_st("UPDATE \"%s\" SET e = 1 WHERE pk = '%s'"
                        % (self.h, u),
                        ReturnConsumedCapacity="TOTAL")
        p = self.c.update_item(TableName=self.h, Key={"pk": S(u + "p")},
                               UpdateExpression="SET e = :one",
                               ExpressionAttributeValues={":one": N(1)},
                               ReturnConsumedCapacity="TOTAL")
        self.assertEqual(r["ConsumedCapacity"], p["ConsumedCapacity"])
        self.assertEqual(r["ConsumedCapacity"]["CapacityUnits"], 3.0)
        r = self.run_st("DELETE FROM \"%s\" WHERE pk = '%s'" % (self.h, u),
                        ReturnConsumedCapacity="TOTAL")
        p = self.c.delete_item(TableName=self.h, Key={"pk": S(u + "p")},
                               ReturnConsumedCapacity="TOTAL")
        self.assertEqual(r["ConsumedCapacity"], p["ConsumedCapacity"])
        self.assertEqual(r["ConsumedCapacity"]["CapacityUnits"], 3.0)


class Messages(PartiqlCase):
    """Refusals: error-messages/partiqlGrammar.test.ts, partiqlFunctions,
    partiqlParameterNumbers, partiql.test.ts."""

    def test_grammar(self):
        h, n = self.h, self.n
        for st, msg in (
                ("SELECT * FROM \"%s\" WHERE pk = 1 foo" % n,
                 NWF + "Unexpected token after expression"),
                ("SELECT * FROM \"%s\" WHERE pk = 1e2147483648" % n, NWF),
                ("SELECT * FROM \"%s\" WHERE pk = 1 # note" % n, NWF),
                ("SELECT * FROM \"%s\" t WHERE pk = 'x'" % h,
                 "Aliasing is not supported"),
                ("UPDATE \"%s\" t SET a = 3 WHERE pk = 'x'" % h,
                 "Aliasing is not supported"),
                ("SELECT * FROM \"%s\" WHERE" % h, NWF + "Unexpected term"),
                ("SELECT * FROM \"%s-never\" WHERE" % h,
                 NWF + "Unexpected term"),
                ("SELECT * FROM \"%s\" WHERE pk = 'p1' AND" % h,
                 NWF + "Missing right-hand side expression of infix "
                 "operator"),
                ("SELECT * FROM \"%s\" WHERE ORDER BY pk" % h,
                 NWF + "Unexpected keyword"),
                ("SELECT * FROM \"%s\" WHERE pk = 'a' AND x IS FOO" % h,
                 NWF + "Expected type name"),
                ("SELECT * FROM \"%s\" WHERE IS NULL" % h,
                 NWF + "Unexpected operator"),
                ("x IS INT4", "Unsupported operation: IsType"),
                ("DELETE FROM WHERE pk = 'a'",
                 NWF + "Expected identifier for simple path"),
                ("SELECTT * FROMM \"%s\"" % h,
                 NWF + "Unexpected token after expression"),
                ("SELECT * FROM \"%s\" WHERE pk = 1e126" % n,
                 "Number overflow. Attempting to store a number with "
                 "magnitude larger than supported range under root"),
                ("INSERT INTO \"%s\" VALUE {'pk': 7, 'l': [1, 1e126]}" % n,
                 "Number overflow. Attempting to store a number with "
                 "magnitude larger than supported range under root[1]")):
            with self.subTest(st=st):
                self.refused(st, msg)

    def test_functions(self):
        w = "SELECT * FROM \"%s\" WHERE pk = 'i' AND " % self.h
        st = w + "EXISTS(ss)"
        self.refused(st, "Unrecognized function: exists at 1:%d:6"
                     % (st.index("EXISTS") + 1))
        self.refused(w + "attribute_exists('ss')",
                     "Operator or function requires a document path; "
                     "operator or function: attribute_exists")
        self.refused(w + "attribute_exists()",
                     "Incorrect number of operands for operator or function; "
                     "operator or function: attribute_exists, number of "
                     "operands: 0")
        self.refused(w + "attribute_exists(m.inner)",
                     NWF + "Invalid path dot component")
        st = "SELECT attribute_exists(ss) FROM \"%s\" WHERE pk = 'i'" % self.h
        self.refused(st, "Unexpected path component at 1:8:16")
        st = ("UPDATE \"%s\" SET t = set_add(ss, <<'x'>>) WHERE pk = 'i'"
              % self.h)
        self.refused(st, "The first argument to SET_ADD must equal the "
                     "assignment value at 1:%d:7" % (st.index("set_add") + 1))
        st = "UPDATE \"%s\" SET ss = set_add(ss, 'x') WHERE pk = 'i'" % self.h
        self.refused(st, "The second argument to SET_ADD must be a value with "
                     "type SET at 1:%d:2"
                     % (st.index("ss", st.index("set_add(")) + 1))
        self.refused("UPDATE \"%s\" SET ss = set_add(ss, <<>>) WHERE pk = 'i'"
                     % self.h, "Empty bags are not supported")

    def test_parameters(self):
        st = "SELECT * FROM \"%s\" WHERE pk = 'p' AND n = ?" % self.h
        for value, msg in (
                ("1e99999999999", "The parameter cannot be converted to a "
                 "numeric value: 1e99999999999"),
                ("1e2147483647", "Number underflow. Attempting to store a "
                 "number with magnitude smaller than supported range"),
                ("", "The parameter cannot be converted to a numeric value")):
            with self.subTest(value=value):
                self.refused(st, msg, Parameters=[{"N": value}])
        deep = {"S": "leaf"}
        for _ in range(40):
            deep = {"M": {"n": deep}}
        self.refused(st.replace("n = ?", "x = ? AND y = ?"),
                     "Nesting Levels have exceeded supported limits: "
                     "Attributes in the item have nested levels beyond "
                     "supported limit", Parameters=[deep, {"N": "abc"}])
        # too few parameters (DynamoDB Local's recorded wording)
        self.refused(st, "Number of parameters in request and statement "
                     "don't match.")

    def test_missing_table_and_request_shape(self):
        self.refused("SELECT * FROM \"e2e_pq_never\" WHERE pk = 'x'",
                     "Requested resource not found",
                     code="ResourceNotFoundException")
        long_st = "SELECT * FROM \"%s\" WHERE pk = '%s'" % (self.h, "x" * 8200)
        e = self.assertError(self.run_st, "ValidationException", st=long_st)
        self.assertIn("Member must have length less than or equal to 8192",
                      e.response["Error"]["Message"])

    def test_multi_attribute_index(self):
        # multiAttributeIndex.test.ts, partiqlMultiAttributeIndex.test.ts
        name = self.make_table(
            "pqm", AttributeDefinitions=[attr("pk"), attr("h1"), attr("h2"),
                                         attr("r1")],
            GlobalSecondaryIndexes=[{
                "IndexName": "gsi",
                "KeySchema": [key("h1", "HASH"), key("h2", "HASH"),
                              key("r1", "RANGE")],
                "Projection": {"ProjectionType": "ALL"}}])
        refusal = ("PartiQL statements cannot be executed on tables with "
                   "multi-attribute HASH keys or multi-attribute RANGE keys.")
        for st in ("SELECT * FROM \"%s\".\"gsi\" WHERE h1 = 'a'",
                   "SELECT * FROM \"%s\".\"gsi\" WHERE h1 = 5",
                   "SELECT * FROM \"%s\".\"gsi\""):
            self.refused(st % name, refusal)
        self.refused("SELECT * FROM \"%s\".\"gsi\" WHERE" % name,
                     NWF + "Unexpected term")
        self.run_st("INSERT INTO \"%s\" VALUE {'pk': 'i1', 'h1': 'a'}" % name)
        self.assertEqual(len(self.items("SELECT * FROM \"%s\" WHERE pk = 'i1'"
                                        % name)), 1)
        r = self.c.batch_execute_statement(Statements=[
            {"Statement": "SELECT * FROM \"%s\".\"gsi\" WHERE h1 = 'a'"
                          % name},
            {"Statement": "SELECT * FROM \"%s\" WHERE pk = 'i1'" % name}])
        self.assertEqual(r["Responses"][0]["Error"],
                         {"Code": "ValidationError", "Message": refusal})
        self.assertEqual(r["Responses"][1]["Item"]["h1"], S("a"))


class Batch(PartiqlCase):
    """BatchExecuteStatement: batchExecuteStatement.test.ts, the API
    reference (25 statements, reads or writes)."""

    def batch(self, *stmts, **kw):
        return self.c.batch_execute_statement(
            Statements=[s if isinstance(s, dict) else {"Statement": s}
                        for s in stmts], **kw)

    def test_reads(self):
        u = uid()
        for i in (1, 2):
            self.c.put_item(TableName=self.h, Item={"pk": S("%s%d" % (u, i)),
                                                    "d": S("v%d" % i)})
        r = self.batch("SELECT * FROM \"%s\" WHERE pk = '%s1'" % (self.h, u),
                       "SELECT d FROM \"%s\" WHERE pk = '%s2'" % (self.h, u),
                       "SELECT * FROM \"%s\" WHERE pk = '%s9'" % (self.h, u),
                       "SELECT * FROM \"e2e_pq_never\" WHERE pk = 'x'",
                       "SLECT * FROM \"%s\" WHERE pk = 'x'" % self.h,
                       "SELECT * FROM \"%s\" WHERE d = 'v1'" % self.h,
                       ReturnConsumedCapacity="TOTAL")
        res = r["Responses"]
        self.assertEqual(res[0], {"TableName": self.h, "Item": {
            "pk": S(u + "1"), "d": S("v1")}})
        self.assertEqual(res[1]["Item"], {"d": S("v2")})
        self.assertEqual(res[2], {"TableName": self.h})
        self.assertEqual(res[3]["Error"]["Code"], "ResourceNotFound")
        self.assertEqual(res[4], {"Error": {
            "Code": "ValidationError",
            "Message": NWF + "Expected data manipulation"}})
        self.assertEqual(res[5], {"Error": {
            "Code": "ValidationError",
            "Message": "Select statements within BatchExecuteStatement must "
                       "specify the primary key in the where clause."}})
        self.assertEqual(r["ConsumedCapacity"],
                         [{"TableName": self.h, "CapacityUnits": 1.5}])

    def test_consistent_read_per_member(self):
        u = uid()
        self.c.put_item(TableName=self.h, Item={"pk": S(u)})
        st = "SELECT * FROM \"%s\" WHERE pk = ?" % self.h

        def total(*consistent):
            r = self.batch(*[dict(Statement=st, Parameters=[S(u)],
                                  **({"ConsistentRead": c} if c is not None
                                     else {})) for c in consistent],
                           ReturnConsumedCapacity="TOTAL")
            return sum(c["CapacityUnits"] for c in r["ConsumedCapacity"])
        self.assertEqual(total(None), 0.5)
        self.assertEqual(total(True), 1.0)
        self.assertEqual(total(False), 0.5)
        self.assertEqual(total(True, None), 1.5)

    def test_writes(self):
        u = uid()
        self.c.put_item(TableName=self.h, Item={"pk": S(u + "u"),
                                                "v": S("here")})
        self.c.put_item(TableName=self.h, Item={"pk": S(u + "d")})
        r = self.batch(
            "INSERT INTO \"%s\" VALUE {'pk': '%si'}" % (self.h, u),
            "UPDATE \"%s\" SET d = 'new' WHERE pk = '%su' RETURNING ALL NEW *"
            % (self.h, u),
            "DELETE FROM \"%s\" WHERE pk = '%sd' RETURNING ALL OLD *"
            % (self.h, u),
            {"Statement": "UPDATE \"%s\" SET t = 1 WHERE pk = ? AND v = ?"
                          % self.h,
             "Parameters": [S(u + "u"), S("wrong")]},
            "INSERT INTO \"%s\" VALUE {'pk': '%su'}" % (self.h, u),
            "UPDATE \"%s\" REMOVE v WHERE pk = '%su' RETURNING MODIFIED NEW *"
            % (self.h, u),
            "DELETE FROM \"%s\" WHERE pk = 'x' RETURNING MODIFIED OLD *"
            % self.h)
        res = r["Responses"]
        self.assertEqual(res[0], {"TableName": self.h})
        self.assertEqual(res[1]["Item"], {"pk": S(u + "u"), "v": S("here"),
                                          "d": S("new")})
        self.assertEqual(res[2]["Item"], {"pk": S(u + "d")})
        self.assertEqual(res[3], {"TableName": self.h, "Error": {
            "Code": "ConditionalCheckFailed",
            "Message": "The conditional request failed"}})
        self.assertEqual(res[4], {"TableName": self.h, "Error": {
            "Code": "DuplicateItem",
            "Message": "Duplicate primary key exists in table"}})
        self.assertEqual(res[5], {"TableName": self.h})
        self.assertEqual(res[6]["Error"]["Code"], "ValidationError")
        self.assertNotIn("TableName", res[6])
        self.assertIsNotNone(self.get(self.h, {"pk": S(u + "i")}))
        self.assertIsNone(self.get(self.h, {"pk": S(u + "d")}))

    def test_limits(self):
        raw = unvalidated_client()
        self.assertError(raw.batch_execute_statement, "ValidationException",
                         Statements=[])
        st = {"Statement": "SELECT * FROM \"%s\" WHERE pk = 'a'" % self.h}
        self.assertError(raw.batch_execute_statement, "ValidationException",
                         Statements=[st] * 26)
        self.assertEqual(len(self.c.batch_execute_statement(
            Statements=[st] * 25)["Responses"]), 25)
        # reads or writes, not both (API reference)
        self.assertError(self.c.batch_execute_statement, "ValidationException",
                         Statements=[st, {"Statement": "INSERT INTO \"%s\" "
                                          "VALUE {'pk': 'x'}" % self.h}])


class Transaction(PartiqlCase):
    """ExecuteTransaction: executeTransaction.test.ts, writeResponses,
    error-messages/partiql*.test.ts, the API reference."""

    def txn(self, *stmts, **kw):
        return self.c.execute_transaction(
            TransactStatements=[s if isinstance(s, dict) else {"Statement": s}
                                for s in stmts], **kw)

    def txn_refused(self, message, *stmts, code="ValidationException",
                    **kw):
        return self.assertError(lambda: self.txn(*stmts, **kw), code,
                                message)

    def test_writes_all_or_nothing(self):
        u = uid()
        self.c.put_item(TableName=self.h, Item={"pk": S(u + "u"),
                                                "d": S("before")})
        r = self.txn("INSERT INTO \"%s\" VALUE {'pk': '%si'}" % (self.h, u),
                     "UPDATE \"%s\" SET d = 'after' WHERE pk = '%su'"
                     % (self.h, u))
        self.assertEqual(r["Responses"], [])
        self.assertEqual(self.get(self.h, {"pk": S(u + "u")})["d"],
                         S("after"))
        with self.assertRaises(ClientError) as cm:
            self.txn("INSERT INTO \"%s\" VALUE {'pk': '%si'}" % (self.h, u),
                     "INSERT INTO \"%s\" VALUE {'pk': '%sj'}" % (self.h, u),
                     "UPDATE \"%s\" SET d = 'x' WHERE pk = '%su' AND d = 'no'"
                     % (self.h, u))
        e = cm.exception.response
        self.assertEqual(e["Error"]["Code"], TCE)
        self.assertEqual(e["Error"]["Message"], "Transaction cancelled, "
                         "please refer cancellation reasons for specific "
                         "reasons [DuplicateItem, None, "
                         "ConditionalCheckFailed]")
        self.assertEqual([x["Code"] for x in e["CancellationReasons"]],
                         ["DuplicateItem", "None", "ConditionalCheckFailed"])
        self.assertIsNone(self.get(self.h, {"pk": S(u + "j")}))
        self.assertEqual(self.get(self.h, {"pk": S(u + "u")})["d"],
                         S("after"))

    def test_exists_condition(self):
        u = uid()
        self.c.put_item(TableName=self.h, Item={"pk": S(u), "v": N(1)})
        self.txn("EXISTS(SELECT * FROM \"%s\" WHERE pk = '%s' AND v = 1)"
                 % (self.h, u),
                 "INSERT INTO \"%s\" VALUE {'pk': '%sn'}" % (self.h, u))
        self.assertIsNotNone(self.get(self.h, {"pk": S(u + "n")}))
        with self.assertRaises(ClientError) as cm:
            self.txn("EXISTS(SELECT * FROM \"%s\" WHERE pk = '%s' AND v = 2)"
                     % (self.h, u),
                     "INSERT INTO \"%s\" VALUE {'pk': '%so'}" % (self.h, u))
        self.assertEqual([x["Code"] for x in
                          cm.exception.response["CancellationReasons"]],
                         ["ConditionalCheckFailed", "None"])
        self.txn_refused("Validation failed in TransactStatements[0]: "
                         "EXISTS() must contain a single item read with "
                         "additional condition",
                         "EXISTS(SELECT * FROM \"%s\" WHERE pk = '%s')"
                         % (self.h, u),
                         "UPDATE \"%s\" SET z = 1 WHERE pk = 'nope'" % self.h)

    def test_reads(self):
        u = uid()
        self.c.put_item(TableName=self.h, Item={"pk": S(u), "v": N(1)})
        r = self.txn("SELECT * FROM \"%s\" WHERE pk = '%s'" % (self.h, u),
                     "SELECT v FROM \"%s\" WHERE pk = '%s-none'" % (self.h, u),
                     ReturnConsumedCapacity="TOTAL")
        self.assertEqual(r["Responses"], [{"Item": {"pk": S(u), "v": N(1)}},
                                          {}])
        self.assertEqual(r["ConsumedCapacity"], [{
            "TableName": self.h, "CapacityUnits": 4.0,
            "ReadCapacityUnits": 4.0}])

    def test_refusals(self):
        h, u = self.h, uid()
        prefix = "Validation failed in TransactStatements[0]: "
        self.txn_refused(prefix + "RETURNING clause is not supported in "
                         "ExecuteTransaction.", "UPDATE \"%s\" SET d = 'v' "
                         "WHERE pk = 'x' RETURNING ALL NEW *" % h)
        self.txn_refused(prefix + "Reads on indices are not supported within "
                         "transactions.", "SELECT * FROM \"%s\".\"gsi-all\" "
                         "WHERE gsiPk = 'x'" % self.idx)
        self.txn_refused(prefix + "Select statements within ExecuteTransaction"
                         " must specify the primary key in the where clause.",
                         "SELECT * FROM \"%s\" WHERE pk = 'i' AND "
                         "attribute_exists(ss)" % h)
        self.txn_refused(prefix + NWF + "Unexpected term",
                         "SELECT * FROM \"%s\" WHERE" % h)
        self.txn_refused("The parameter cannot be converted to a numeric "
                         "value: 1e99999999999",
                         {"Statement": "UPDATE \"%s\" SET n = ? WHERE pk = "
                                       "'x'" % h,
                          "Parameters": [N("1e99999999999")]})
        self.txn_refused("Transaction request cannot include multiple "
                         "operations on one item",
                         "UPDATE \"%s\" SET a = 1 WHERE pk = '%s'" % (h, u),
                         "DELETE FROM \"%s\" WHERE pk = '%s'" % (h, u))
        self.txn_refused("ExecuteTransaction API does not support both read "
                         "and write operations in the same request.",
                         "SELECT * FROM \"%s\" WHERE pk = '%s'" % (h, u),
                         "DELETE FROM \"%s\" WHERE pk = '%s'" % (h, u + "x"))
        raw = unvalidated_client()
        self.assertError(raw.execute_transaction, "ValidationException",
                         TransactStatements=[])
        self.assertError(raw.execute_transaction, "ValidationException",
                         TransactStatements=[{"Statement": "DELETE FROM "
                                              "\"%s\" WHERE pk = '%d'"
                                              % (h, i)} for i in range(101)])

    def test_client_request_token(self):
        # executeTransaction.test.ts: a replay applies nothing, and answers
        # with a transactional read of the stored result
        u = uid()
        self.run_st("INSERT INTO \"%s\" VALUE {'pk': '%s', 'n': 0}"
                    % (self.h, u))
        token = "tok-" + u
        st = {"Statement": "UPDATE \"%s\" SET n = n + 1 WHERE pk = '%s'"
                           % (self.h, u)}
        first = self.txn(st, ClientRequestToken=token,
                         ReturnConsumedCapacity="INDEXES")
        replay = self.txn(st, ClientRequestToken=token,
                          ReturnConsumedCapacity="INDEXES")
        self.assertEqual(self.get(self.h, {"pk": S(u)})["n"], N(1))
        self.assertEqual(first["ConsumedCapacity"][0]["WriteCapacityUnits"],
                         2)
        self.assertNotIn("ReadCapacityUnits", first["ConsumedCapacity"][0])
        self.assertEqual(replay["ConsumedCapacity"][0]["ReadCapacityUnits"],
                         2)
        self.assertNotIn("WriteCapacityUnits", replay["ConsumedCapacity"][0])
        self.txn_refused(None, {"Statement": st["Statement"] + " AND n = 1"},
                         code="IdempotentParameterMismatchException",
                         ClientRequestToken=token)


def _admin(url, path, body=None):
    # the admin paths take JSON bodies only (415 otherwise)
    req = urllib.request.Request(
        url + path, method="POST" if body is not None else "GET",
        data=json.dumps(body).encode() if body is not None else None,
        headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.loads(r.read())


class Throttling(OwnServerCase):
    """Every statement is admitted and charged on its item's partition as
    the equivalent item operation is (docs/throttling.md): DynamoDB's
    throttling exceptions and ThrottlingReasons, per statement in a batch,
    as a cancellation reason in a transaction, and GSI back-pressure."""

    def setUp(self):
        super().setUp()
        self.proc, self.url = start_private_server(None, self.port_file,
                                                   "--in-memory",
                                                   "--virtual-clock")
        self.c = make_private_client(self.url)
        self.arn = "arn:aws:dynamodb:us-east-1:000000000000:table/"

    def create(self, name, **extra):
        args = dict(TableName=name, AttributeDefinitions=[attr("pk")],
                    KeySchema=[key("pk", "HASH")],
                    ProvisionedThroughput={"ReadCapacityUnits": 1,
                                           "WriteCapacityUnits": 1},
                    Tags=[{"Key": "shardlocal:burst-start-full",
                           "Value": "off"}])
        args.update(extra)
        self.c.create_table(**args)
        _admin(self.url, "/shardlocal/clock", {"advance_ms": 1000})

    def throttled(self, fn, reason, resource, **kw):
        with self.assertRaises(ClientError) as cm:
            fn(**kw)
        r = cm.exception.response
        self.assertEqual(r["Error"]["Code"],
                         "ProvisionedThroughputExceededException")
        if BOTOCORE_VERSION >= (1, 36):
            self.assertEqual(r["ThrottlingReasons"],
                             [{"reason": reason, "resource": resource}])
        return r

    def test_statements_throttle_like_item_operations(self):
        self.create("thr")
        st = self.c.execute_statement
        # one write unit banked: one INSERT, then the partition is out
        st(Statement="INSERT INTO \"thr\" VALUE {'pk': 'a'}")
        self.throttled(st, "TableWriteProvisionedThroughputExceeded",
                       self.arn + "thr",
                       Statement="INSERT INTO \"thr\" VALUE {'pk': 'b'}")
        # reads: one unit, two eventually consistent SELECTs by key
        st(Statement="SELECT * FROM \"thr\" WHERE pk = 'a'")
        st(Statement="SELECT * FROM \"thr\" WHERE pk = 'a'")
        self.throttled(st, "TableReadProvisionedThroughputExceeded",
                       self.arn + "thr",
                       Statement="SELECT * FROM \"thr\" WHERE pk = 'a'")
        # a batch answers per statement; a transaction cancels
        r = self.c.batch_execute_statement(Statements=[
            {"Statement": "UPDATE \"thr\" SET v = 1 WHERE pk = 'a'"}])
        self.assertEqual(r["Responses"][0]["Error"]["Code"],
                         "ProvisionedThroughputExceeded")
        with self.assertRaises(ClientError) as cm:
            self.c.execute_transaction(TransactStatements=[
                {"Statement": "UPDATE \"thr\" SET v = 1 WHERE pk = 'a'"}])
        self.assertEqual(cm.exception.response["CancellationReasons"][0]
                         ["Code"], "ProvisionedThroughputExceeded")
        _admin(self.url, "/shardlocal/clock", {"advance_ms": 2000})
        self.assertEqual(self.c.batch_execute_statement(Statements=[
            {"Statement": "UPDATE \"thr\" SET v = 1 WHERE pk = 'a'"}])
            ["Responses"], [{"TableName": "thr"}])
        # the throttled INSERT wrote nothing
        self.assertEqual(self.c.scan(TableName="thr")["Count"], 1)

    def test_gsi_back_pressure(self):
        self.create("gthr", AttributeDefinitions=[attr("pk"), attr("g")],
                    GlobalSecondaryIndexes=[{
                        "IndexName": "byg",
                        "KeySchema": [key("g", "HASH")],
                        "Projection": {"ProjectionType": "ALL"},
                        "ProvisionedThroughput": {"ReadCapacityUnits": 1,
                                                  "WriteCapacityUnits": 1}}],
                    ProvisionedThroughput={"ReadCapacityUnits": 1000,
                                           "WriteCapacityUnits": 1000})
        self.c.execute_statement(
            Statement="INSERT INTO \"gthr\" VALUE {'pk': 'a', 'g': 'x'}")
        self.throttled(self.c.execute_statement,
                       "IndexWriteProvisionedThroughputExceeded",
                       self.arn + "gthr/index/byg",
                       Statement="INSERT INTO \"gthr\" VALUE {'pk': 'b', "
                                 "'g': 'x'}")
        self.assertNotIn("Item", self.c.get_item(TableName="gthr",
                                                 Key={"pk": S("b")}))
        # outside the sparse index: no back-pressure
        self.c.execute_statement(
            Statement="INSERT INTO \"gthr\" VALUE {'pk': 'c'}")


if __name__ == "__main__":
    unittest.main()
