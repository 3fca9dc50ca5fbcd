# SPDX-License-Identifier: MIT
# test_vector_durability.py - vector indexes live in memory beside their
# tables: after a kill -9 in the middle of writes the index rebuilt at
# start-up holds exactly the table's vectors; a large index is searched
# through its graph with a recall of at least 0.95 at TopK 10 (issue 16),
# before and after a restart; deleted items never come back. Private
# servers (--vector-exact-max small, so a few thousand vectors make a
# graph), raw HTTP (vector_http.py).
import random
import signal
import threading
import time
import unittest

from e2e_common import OwnServerCase, start_private_server
from vector_http import (Api, clustered, cosine_rank, f32, table_request,
                         vec, vector_index)

WRITERS = 4
KEYS = 20                           # per writer: 80 items at most
LOAD_SECONDS = 1.5


def index_view(api, table, index, query, dims):
    """The index's whole content, through a search with TopK 100:
    pk -> the vector it holds."""
    out = api.ok("SearchVectors", TableName=table, IndexName=index,
                 SearchVector=vec(*query), TopK=100,
                 ProjectionExpression="pk, embedding")
    return {r["Item"]["pk"]["S"]: [float(v["N"]) for v in
                                   r["Item"]["embedding"]["L"]]
            for r in out["SearchResults"]}


def table_view(api, table, dims):
    """The table's items that an index of dims takes: pk -> vector."""
    out = {}
    for it in api.scan_all(table):
        e = it.get("embedding", {}).get("L")
        if e is not None and len(e) == dims:
            out[it["pk"]["S"]] = [float(v["N"]) for v in e]
    return out


class VectorDurability(OwnServerCase):
    PREFIX = "shardlocal-vec."
    DATA_DIR = True

    def start(self, *extra):
        self.proc, url = start_private_server(self.data, self.port_file,
                                              *extra)
        return Api(url)

    def test_kill_minus_9_during_writes(self):
        api = self.start()
        api.ok("CreateTable", **table_request("vkill", [
            vector_index(dims=4), vector_index("euc", dims=4,
                                               fn="EUCLIDEAN")]))
        stop = threading.Event()
        done = [0] * WRITERS

        def writer(n):
            w = Api(api.url)
            rng = random.Random(n)
            while not stop.is_set():
                pk = "w%d_%d" % (n, rng.randrange(KEYS))
                op = rng.random()
                try:
                    if op < 0.6:
                        w.call("PutItem", TableName="vkill", Item={
                            "pk": {"S": pk}, "n": {"N": str(done[n])},
                            "embedding": {"L": vec(*[
                                round(rng.uniform(-1, 1), 5)
                                for _ in range(4)])}})
                    elif op < 0.75:
                        w.call("UpdateItem", TableName="vkill",
                               Key={"pk": {"S": pk}},
                               UpdateExpression="REMOVE embedding")
                    elif op < 0.9:
                        w.call("DeleteItem", TableName="vkill",
                               Key={"pk": {"S": pk}})
                    else:
                        w.call("UpdateItem", TableName="vkill",
                               Key={"pk": {"S": pk}},
                               UpdateExpression="SET embedding = :v",
                               ExpressionAttributeValues={":v": {
                                   "L": vec(1, 2, 3, 4)}})
                except OSError:
                    return              # the server is gone
                done[n] += 1

        threads = [threading.Thread(target=writer, args=(n,), daemon=True)
                   for n in range(WRITERS)]
        for t in threads:
            t.start()
        time.sleep(LOAD_SECONDS)
        self.proc.send_signal(signal.SIGKILL)   # mid-load, no shutdown
        self.proc.wait()
        stop.set()
        for t in threads:
            t.join(10)
        self.assertGreater(sum(done), 50, "too few writes to mean anything")

        api = self.start()
        want = table_view(api, "vkill", 4)
        self.assertGreater(len(want), 10)
        for index in ("vix", "euc"):
            got = index_view(api, "vkill", index, [1, 0, 0, 0], 4)
            self.assertEqual(sorted(got), sorted(want), index)
            for pk, v in got.items():   # the index's float copy
                self.assertEqual([f32(x) for x in v],
                                 [f32(x) for x in want[pk]], pk)
        # And it stays in step afterwards.
        gone = sorted(want)[0]
        api.ok("DeleteItem", TableName="vkill", Key={"pk": {"S": gone}})
        self.assertNotIn(gone, index_view(api, "vkill", "vix", [1, 0, 0, 0], 4))

    def recall(self, api, items, queries):
        hits = total = 0
        for q in queries:
            out = api.ok("SearchVectors", TableName="big", IndexName="vix",
                         SearchVector=vec(*q), TopK=10)
            got = [r["Item"]["pk"]["S"] for r in out["SearchResults"]]
            want = cosine_rank(q, items, "embedding", 10)
            hits += len(set(got) & set(want))
            total += 10
            for pk in got:
                self.assertIn(pk, items, "a deleted item came back")
        return hits / total

    def wait_for_graph(self, api, n, dims):
        """Until a search examines fewer vectors than the index holds (the
        graph is in use: VectorSearchRequestBytes counts 4 bytes a
        dimension of every vector compared)."""
        deadline = time.time() + 120
        while time.time() < deadline:
            out = api.ok("SearchVectors", TableName="big", IndexName="vix",
                         SearchVector=vec(*([1] * dims)), TopK=10,
                         ReturnConsumedCapacity="TOTAL")
            if out["ConsumedCapacity"]["VectorSearchRequestBytes"] < \
                    4 * dims * n * 0.8:
                return
            time.sleep(0.2)
        self.fail("the graph never took over")

    def test_graph_recall_across_restart(self):
        dims, n = 16, 2400
        api = self.start("--vector-exact-max", "200")
        api.ok("CreateTable", **table_request("big", [
            vector_index(dims=dims)]))
        vectors = clustered(n, dims)
        items = {"k%05d" % i: v for i, v in enumerate(vectors)}
        keys = sorted(items)
        for i in range(0, n, 25):
            api.ok("BatchWriteItem", RequestItems={"big": [
                {"PutRequest": {"Item": {"pk": {"S": k}, "embedding": {
                    "L": vec(*items[k])}}}} for k in keys[i:i + 25]]})
        # Deleted items leave the graph too.
        for k in keys[:300:3]:
            api.ok("DeleteItem", TableName="big", Key={"pk": {"S": k}})
            del items[k]
        queries = clustered(40, dims, seed=7)
        self.wait_for_graph(api, len(items), dims)
        r = self.recall(api, items, queries)
        self.assertGreaterEqual(r, 0.95)

        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()
        api = self.start("--vector-exact-max", "200")
        # Rebuilt from the table: exact until the graph is back, right
        # either way.
        self.assertGreaterEqual(self.recall(api, items, queries[:10]), 0.95)
        self.wait_for_graph(api, len(items), dims)
        self.assertGreaterEqual(self.recall(api, items, queries), 0.95)


if __name__ == "__main__":
    unittest.main()
