# SPDX-License-Identifier: MIT
# test_limits.py - DescribeLimits (DynamoDB's default quotas, or the ones
# the server is configured with) and DescribeEndpoints (one endpoint, this
# server, usable for the next requests). Sources: the DescribeLimits API
# reference and the AWS CLI's describe-limits example (80,000 per account,
# 40,000 per table, per region); ScyllaDB Alternator's
# test_describe_endpoints.py, run against DynamoDB (one endpoint, an
# Address without scheme, CachePeriodInMinutes).
import boto3

from e2e_common import (ENDPOINT, REGION, E2ECase, OwnServerCase,
                        make_private_client, start_private_server)


class TestDescribeLimits(E2ECase):

    def test_defaults(self):
        r = self.c.describe_limits()
        self.assertEqual({k: v for k, v in r.items()
                          if k != "ResponseMetadata"},
                         {"AccountMaxReadCapacityUnits": 80000,
                          "AccountMaxWriteCapacityUnits": 80000,
                          "TableMaxReadCapacityUnits": 40000,
                          "TableMaxWriteCapacityUnits": 40000})


class TestDescribeEndpoints(E2ECase):

    def test_one_usable_endpoint(self):
        eps = self.c.describe_endpoints()["Endpoints"]
        self.assertEqual(len(eps), 1)
        ep = eps[0]
        self.assertEqual(ep["CachePeriodInMinutes"], 1440)
        self.assertNotIn("://", ep["Address"])
        if ENDPOINT is None:
            return
        # the address the client used: the next request goes there
        self.assertEqual(ep["Address"], ENDPOINT.split("://", 1)[1])
        c2 = boto3.client("dynamodb", endpoint_url="http://" + ep["Address"],
                          region_name=REGION)
        self.assertEqual(len(c2.describe_endpoints()["Endpoints"]), 1)


class TestConfiguredLimits(OwnServerCase):
    PREFIX = "shardlocal-lim."

    def test_configured_quotas(self):
        """--ondemand-table-max-rru/-wru and --throttle-scale are what
        DescribeLimits reports per table; the account quota is scaled the
        same way and never below a table's."""
        self.proc, url = start_private_server(
            None, self.port_file, "--in-memory", "--ondemand-table-max-rru",
            "1000", "--ondemand-table-max-wru", "500", "--throttle-scale",
            "0.5")
        r = make_private_client(url).describe_limits()
        self.assertEqual(r["TableMaxReadCapacityUnits"], 500)
        self.assertEqual(r["TableMaxWriteCapacityUnits"], 250)
        self.assertEqual(r["AccountMaxReadCapacityUnits"], 40000)
        self.assertEqual(r["AccountMaxWriteCapacityUnits"], 40000)
        stop = self.proc
        stop.kill()
        stop.wait()
        self.proc, url = start_private_server(
            None, self.port_file, "--in-memory", "--ondemand-table-max-rru",
            "100000")
        r = make_private_client(url).describe_limits()
        self.assertEqual(r["TableMaxReadCapacityUnits"], 100000)
        self.assertEqual(r["AccountMaxReadCapacityUnits"], 100000)
        self.assertEqual(r["AccountMaxWriteCapacityUnits"], 80000)
