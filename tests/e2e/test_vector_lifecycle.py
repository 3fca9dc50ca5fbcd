# SPDX-License-Identifier: MIT
# test_vector_lifecycle.py - a vector index's life as DynamoDB walks it,
# on a private server with --status-delay-ms and the virtual clock (every
# phase lasts one delay; the test moves time): added by UpdateTable it is
# CREATING with Backfilling false while allocated (the table UPDATING, a
# search "does not have the specified index", a Delete refused for the
# phase), CREATING with Backfilling true while it backfills (the table
# ACTIVE again, a search "Cannot search backfilling", DeleteTable
# refused, a Delete taken as a cancel), then ACTIVE with no Backfilling
# member, searchable with every item. Made with its table it is CREATING
# with the table and never reports Backfilling. nubo-db/
# dynamodb-conformance vectorSearch/updateLifecycle.test.ts and
# lifecycle.test.ts (eu-west-2, 2026-08) recorded each step.
import unittest

from e2e_common import OwnServerCase, start_private_server
from vector_http import Api, table_request, vec, vector_index

DELAY = 1000


class VectorLifecycle(OwnServerCase):
    PREFIX = "shardlocal-veclife."

    def setUp(self):
        super().setUp()
        self.proc, url = start_private_server(
            None, self.port_file, "--in-memory", "--virtual-clock",
            "--status-delay-ms", str(DELAY))
        self.api = Api(url)

    def describe(self, table, index="vix"):
        t = self.api.ok("DescribeTable", TableName=table)["Table"]
        ix = [i for i in t.get("VectorIndexes", [])
              if i["IndexName"] == index]
        return t, (ix[0] if ix else None)

    def search_error(self, table, index="vix"):
        return self.api.error("SearchVectors", TableName=table,
                              IndexName=index, SearchVector=vec(1, 1, 0),
                              TopK=5)

    def test_update_table_walk(self):
        api = self.api
        api.ok("CreateTable", **table_request("life"))
        api.clock(DELAY)
        for i in range(5):
            api.ok("PutItem", TableName="life", Item={
                "pk": {"S": "item-%d" % i},
                "embedding": {"L": vec(i, 1, 0)}})
        out = api.ok("UpdateTable", TableName="life", VectorIndexUpdates=[
            {"Create": vector_index()}])
        self.assertEqual(out["TableDescription"]["TableStatus"], "UPDATING")

        # Allocation.
        t, ix = self.describe("life")
        self.assertEqual(t["TableStatus"], "UPDATING")
        self.assertEqual(ix["IndexStatus"], "CREATING")
        self.assertIs(ix["Backfilling"], False)
        self.assertEqual(self.search_error("life"), (
            "ValidationException",
            "The table does not have the specified index: vix"))
        self.assertEqual(api.error("UpdateTable", TableName="life",
                                   VectorIndexUpdates=[{"Delete": {
                                       "IndexName": "vix"}}]),
                         ("ResourceInUseException",
                          "Attempt to change a resource which is still in "
                          "use: Index creation is in resource allocation "
                          "phase. Retry deletion during backfilling phase or "
                          "when the index is active. Table: life Index: "
                          "vix"))
        self.assertEqual(api.error("UpdateTable", TableName="life",
                                   VectorIndexUpdates=[{"Create":
                                       vector_index("vix2")}]),
                         ("LimitExceededException",
                          "Subscriber limit exceeded: Only 1 online index "
                          "can be created or deleted simultaneously per "
                          "table"))

        # Backfilling: the table is ACTIVE, the index not yet.
        api.clock(DELAY)
        t, ix = self.describe("life")
        self.assertEqual(t["TableStatus"], "ACTIVE")
        self.assertEqual(ix["IndexStatus"], "CREATING")
        self.assertIs(ix["Backfilling"], True)
        self.assertEqual(self.search_error("life"), (
            "ValidationException",
            "Cannot search backfilling vector index: vix"))
        self.assertEqual(api.error("DeleteTable", TableName="life"), (
            "ResourceInUseException",
            "Attempt to change a resource which is still in use: Cannot "
            "delete table while indexes are being created, updated, or "
            "deleted."))
        # Writes during the backfill reach the index.
        api.ok("PutItem", TableName="life", Item={
            "pk": {"S": "late"}, "embedding": {"L": vec(1, 1, 0)}})

        # ACTIVE: no Backfilling member at all, every item searchable.
        api.clock(DELAY)
        t, ix = self.describe("life")
        self.assertEqual(ix["IndexStatus"], "ACTIVE")
        self.assertNotIn("Backfilling", ix)
        self.assertEqual(ix["ItemCount"], 6)
        out = api.ok("SearchVectors", TableName="life", IndexName="vix",
                     SearchVector=vec(1, 1, 0), TopK=10)
        self.assertEqual(sorted(r["Item"]["pk"]["S"]
                                for r in out["SearchResults"]),
                         ["item-0", "item-1", "item-2", "item-3", "item-4",
                          "late"])

    def test_cancel_during_backfill(self):
        api = self.api
        api.ok("CreateTable", **table_request("cancel"))
        api.clock(DELAY)
        api.ok("UpdateTable", TableName="cancel", VectorIndexUpdates=[
            {"Create": vector_index()}])
        api.clock(DELAY)
        _, ix = self.describe("cancel")
        self.assertIs(ix["Backfilling"], True)
        api.ok("UpdateTable", TableName="cancel", VectorIndexUpdates=[
            {"Delete": {"IndexName": "vix"}}])
        _, ix = self.describe("cancel")
        self.assertEqual(ix["IndexStatus"], "DELETING")
        self.assertEqual(self.search_error("cancel"), (
            "ValidationException",
            "The table does not have the specified index: vix"))
        api.clock(DELAY)
        t, ix = self.describe("cancel")
        self.assertIsNone(ix)
        self.assertEqual(t["TableStatus"], "ACTIVE")
        api.ok("DeleteTable", TableName="cancel")

    def test_create_table_walk(self):
        api = self.api
        api.ok("CreateTable", **table_request("born", [vector_index()]))
        t, ix = self.describe("born")
        self.assertEqual(t["TableStatus"], "CREATING")
        self.assertEqual(ix["IndexStatus"], "CREATING")
        self.assertNotIn("Backfilling", ix)
        api.clock(DELAY)
        t, ix = self.describe("born")
        self.assertEqual(t["TableStatus"], "ACTIVE")
        self.assertEqual(ix["IndexStatus"], "ACTIVE")
        self.assertNotIn("Backfilling", ix)
        api.ok("PutItem", TableName="born", Item={
            "pk": {"S": "a"}, "embedding": {"L": vec(1, 0, 0)}})
        out = api.ok("SearchVectors", TableName="born", IndexName="vix",
                     SearchVector=vec(1, 0, 0), TopK=1)
        self.assertEqual(out["SearchResults"][0]["Item"]["pk"]["S"], "a")

    # Time to Live deletes an expired item through the shared write path:
    # it leaves the vector index as a DeleteItem would (the developer
    # guide's "Using vector indexes" says nothing of TTL; a deleted item
    # in search results is what no user would expect). The clock's move
    # runs the sweep (--virtual-clock).
    def test_ttl_expiry_leaves_the_index(self):
        api = self.api
        api.ok("CreateTable", **table_request("ttlv", [vector_index()]))
        api.clock(DELAY)
        api.ok("UpdateTimeToLive", TableName="ttlv",
               TimeToLiveSpecification={"Enabled": True,
                                        "AttributeName": "exp"})
        api.clock(DELAY)
        now = api.clock(0)["now_ms"] // 1000
        for pk, exp, e in (("gone", now - 10, vec(1, 0, 0)),
                           ("kept", now + 3600, vec(1, 1, 0))):
            api.ok("PutItem", TableName="ttlv", Item={
                "pk": {"S": pk}, "exp": {"N": str(exp)},
                "embedding": {"L": e}})

        def found(k):
            out = api.ok("SearchVectors", TableName="ttlv", IndexName="vix",
                         SearchVector=vec(1, 0, 0), TopK=k)
            return [r["Item"]["pk"]["S"] for r in out["SearchResults"]]

        self.assertEqual(found(10), ["gone", "kept"])
        self.assertEqual(api.clock(1000)["ttl_deleted"], 1)
        # The nearest left is the kept item: a TopK of 1 finds it, which
        # an index still holding the deleted item's vector would not.
        self.assertEqual(found(1), ["kept"])
        self.assertEqual(found(10), ["kept"])


if __name__ == "__main__":
    unittest.main()
