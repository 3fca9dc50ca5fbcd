# SPDX-License-Identifier: MIT
# test_concurrency.py - single-item atomicity under concurrent clients:
# ADD counters, create-if-absent races, optimistic locking with conditions.
import threading
import unittest

from botocore.exceptions import ClientError

from e2e_common import E2ECase, client

THREADS = 8


def run_threads(fn):
    errors = []

    def wrap(n):
        try:
            fn(n, client())
        except Exception as e:          # reported by the test
            errors.append(e)

    ts = [threading.Thread(target=wrap, args=(n,)) for n in range(THREADS)]
    for t in ts:
        t.start()
    for t in ts:
        t.join(60)
    return errors


class ConcurrencyTest(E2ECase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.t = cls.make_table(hash_key=("pk", "S"))

    def get(self, pk):
        return self.c.get_item(TableName=self.t, Key={"pk": {"S": pk}},
                               ConsistentRead=True).get("Item")

    def test_atomic_add(self):
        per = 40

        def work(n, c):
            for _ in range(per):
                c.update_item(TableName=self.t, Key={"pk": {"S": "ctr"}},
                              UpdateExpression="ADD n :one, s :me",
                              ExpressionAttributeValues={
                                  ":one": {"N": "1"},
                                  ":me": {"SS": ["t%d" % n]}})

        self.assertEqual(run_threads(work), [])
        item = self.get("ctr")
        self.assertEqual(item["n"], {"N": str(THREADS * per)})
        self.assertEqual(len(item["s"]["SS"]), THREADS)

    def test_create_if_absent_race(self):
        for round_ in range(5):
            pk = "race%d" % round_
            wins = []

            def work(n, c):
                try:
                    c.put_item(TableName=self.t,
                               Item={"pk": {"S": pk}, "owner": {"N": str(n)}},
                               ConditionExpression="attribute_not_exists(pk)")
                    wins.append(n)
                except ClientError as e:
                    if e.response["Error"]["Code"] != \
                            "ConditionalCheckFailedException":
                        raise

            self.assertEqual(run_threads(work), [])
            self.assertEqual(len(wins), 1, wins)
            self.assertEqual(self.get(pk)["owner"], {"N": str(wins[0])})

    def test_optimistic_locking(self):
        self.c.put_item(TableName=self.t, Item={"pk": {"S": "ver"},
                                                "v": {"N": "0"}})
        successes = []

        def work(n, c):
            for _ in range(30):
                cur = c.get_item(TableName=self.t, Key={"pk": {"S": "ver"}},
                                 ConsistentRead=True)["Item"]["v"]["N"]
                try:
                    c.update_item(TableName=self.t, Key={"pk": {"S": "ver"}},
                                  UpdateExpression="SET v = v + :one",
                                  ConditionExpression="v = :cur",
                                  ExpressionAttributeValues={
                                      ":one": {"N": "1"}, ":cur": {"N": cur}})
                    successes.append(cur)
                except ClientError as e:
                    if e.response["Error"]["Code"] != \
                            "ConditionalCheckFailedException":
                        raise

        self.assertEqual(run_threads(work), [])
        final = int(self.get("ver")["v"]["N"])
        self.assertEqual(final, len(successes))
        # Each version was claimed by exactly one writer.
        self.assertEqual(sorted(int(x) for x in successes),
                         list(range(final)))


if __name__ == "__main__":
    unittest.main()
