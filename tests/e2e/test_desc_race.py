# SPDX-License-Identifier: MIT
# test_desc_race.py - concurrent writers of a table's description must not
# undo each other: UpdateContributorInsights used to write back the copy it
# read, putting a stale ProvisionedThroughput over a concurrent UpdateTable.
import threading
import unittest

from botocore.exceptions import ClientError

from e2e_common import ENDPOINT, E2ECase, client, wait_active

ROUNDS = 300


@unittest.skipIf(ENDPOINT is None,
                 "hammers UpdateTable: local server only")
class DescriptionRaceTest(E2ECase):
    def test_insights_do_not_undo_update_table(self):
        t = self.make_table(hash_key=("pk", "S"), on_demand=False,
                            rcu=1, wcu=1)
        stop = threading.Event()

        def toggle():
            c, i = client(), 0
            while not stop.is_set():
                try:
                    c.update_contributor_insights(
                        TableName=t, ContributorInsightsAction=(
                            "ENABLE" if i % 2 == 0 else "DISABLE"))
                except ClientError:
                    pass                # e.g. still ENABLING: fine here
                i += 1

        ts = [threading.Thread(target=toggle) for _ in range(3)]
        for th in ts:
            th.start()
        lost = []
        try:
            for k in range(2, 2 + ROUNDS):
                wait_active(self.c, t)
                self.c.update_table(TableName=t, ProvisionedThroughput={
                    "ReadCapacityUnits": k, "WriteCapacityUnits": k})
                pt = self.c.describe_table(
                    TableName=t)["Table"]["ProvisionedThroughput"]
                if pt["ReadCapacityUnits"] != k:
                    lost.append((k, pt["ReadCapacityUnits"]))
        finally:
            stop.set()
            for th in ts:
                th.join(60)
        self.assertEqual(lost, [], "UpdateTable results lost")


if __name__ == "__main__":
    unittest.main()
