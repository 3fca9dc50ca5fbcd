# SPDX-License-Identifier: MIT
# test_streams.py - DynamoDB Streams with boto3's dynamodb and
# dynamodbstreams clients on one endpoint: StreamSpecification on
# CreateTable/UpdateTable, ListStreams, DescribeStream, GetShardIterator,
# GetRecords; records for every write path and view type, none for
# unchanged items or index upkeep; closed shards, splits and lineage;
# deleted tables' streams; the meters. Sources of each expectation are
# named next to the test (DDB-TABLE-nnn: ack-api-quirks recordings of
# DynamoDB, 2026-10; Alternator: scylladb test/alternator/test_streams.py,
# run against DynamoDB; the API reference's error sections).
import json
import re
import time
import urllib.request

from botocore.exceptions import ClientError

from e2e_common import (ENDPOINT, REGION, E2ECase, create_table,
                        delete_table_quietly, has_param, streams_client,
                        unique_name, wait_active)

SEQ_RE = re.compile(r"^[0-9]{21,40}$")
SHARD_RE = re.compile(r"^shardId-[0-9]{20}-[0-9a-f]{8}$")
LABEL_RE = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}$")
VIEWS = ("KEYS_ONLY", "NEW_IMAGE", "OLD_IMAGE", "NEW_AND_OLD_IMAGES")


def spec(view):
    return {"StreamEnabled": True, "StreamViewType": view}


def all_shards(s, arn, **kw):
    """Every shard of a stream, DescribeStream page by page."""
    shards, start = [], None
    while True:
        args = dict(StreamArn=arn, **kw)
        if start:
            args["ExclusiveStartShardId"] = start
        d = s.describe_stream(**args)["StreamDescription"]
        shards += d["Shards"]
        start = d.get("LastEvaluatedShardId")
        if not start:
            return d, shards


def read_shard(s, arn, shard_id, kind="TRIM_HORIZON", **kw):
    """A shard's records from kind, until it has no more (an open shard:
    an empty page; a closed one: no NextShardIterator). Returns (records,
    the last NextShardIterator or None)."""
    it = s.get_shard_iterator(StreamArn=arn, ShardId=shard_id,
                              ShardIteratorType=kind, **kw)["ShardIterator"]
    out = []
    while it:
        r = s.get_records(ShardIterator=it)
        out += r["Records"]
        nxt = r.get("NextShardIterator")
        if not r["Records"]:
            return out, nxt
        it = nxt
    return out, None


def read_stream(s, arn):
    """Every record of a stream, shards in id order (parents first)."""
    _, shards = all_shards(s, arn)
    recs = []
    for sh in shards:
        recs += read_shard(s, arn, sh["ShardId"])[0]
    return recs


class StreamsCase(E2ECase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.s = streams_client()

    def stream_table(self, view="NEW_AND_OLD_IMAGES", **kw):
        name = self.make_table("str", **kw,
                               StreamSpecification=spec(view))
        arn = self.c.describe_table(TableName=name)["Table"][
            "LatestStreamArn"]
        return name, arn

    def put(self, name, pk, **attrs):
        item = {"pk": {"S": pk}}
        item.update(attrs)
        self.c.put_item(TableName=name, Item=item)


class StreamSpecificationTest(StreamsCase):
    """CreateTable, DescribeTable and UpdateTable (DDB-TABLE-029, -050,
    -362, -378; Alternator test_latest_stream_arn/_label,
    test_stream_specification)."""

    def test_create_with_stream(self):
        name = unique_name("str")
        self._tables.append(name)
        r = create_table(self.c, name,
                         StreamSpecification=spec("NEW_IMAGE"))
        td = r["TableDescription"]
        self.assertEqual(td["StreamSpecification"],
                         {"StreamEnabled": True,
                          "StreamViewType": "NEW_IMAGE"})
        self.assertRegex(td["LatestStreamLabel"], LABEL_RE)
        self.assertEqual(td["LatestStreamArn"], "%s/stream/%s"
                         % (td["TableArn"], td["LatestStreamLabel"]))
        t = self.c.describe_table(TableName=name)["Table"]
        for k in ("StreamSpecification", "LatestStreamArn",
                  "LatestStreamLabel"):
            self.assertEqual(t[k], td[k])
        st = self.s.list_streams(TableName=name)["Streams"]
        self.assertEqual(st, [{"StreamArn": td["LatestStreamArn"],
                               "TableName": name,
                               "StreamLabel": td["LatestStreamLabel"]}])
        d = self.s.describe_stream(
            StreamArn=td["LatestStreamArn"])["StreamDescription"]
        self.assertEqual(d["StreamStatus"], "ENABLED")
        self.assertEqual(d["StreamViewType"], "NEW_IMAGE")
        self.assertEqual(d["TableName"], name)
        self.assertEqual(d["KeySchema"],
                         [{"AttributeName": "pk", "KeyType": "HASH"}])
        self.assertIn("CreationRequestDateTime", d)
        self.assertGreaterEqual(len(d["Shards"]), 1)
        for sh in d["Shards"]:
            self.assertRegex(sh["ShardId"], SHARD_RE)
            self.assertRegex(
                sh["SequenceNumberRange"]["StartingSequenceNumber"], SEQ_RE)
            self.assertNotIn("EndingSequenceNumber",
                             sh["SequenceNumberRange"])

    def test_create_stream_disabled_is_no_stream(self):
        # DDB-TABLE-029: absent when never enabled, also with
        # StreamEnabled false
        name = self.make_table("str",
                               StreamSpecification={"StreamEnabled": False})
        t = self.c.describe_table(TableName=name)["Table"]
        for k in ("StreamSpecification", "LatestStreamArn",
                  "LatestStreamLabel"):
            self.assertNotIn(k, t)
        self.assertEqual(self.s.list_streams(TableName=name)["Streams"], [])

    def test_create_messages(self):
        # DDB-TABLE-442 catalogue (CreateTable)
        base = dict(TableName=unique_name("str"),
                    BillingMode="PAY_PER_REQUEST",
                    AttributeDefinitions=[{"AttributeName": "pk",
                                           "AttributeType": "S"}],
                    KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}])
        self.assertValidation(
            self.c.create_table, "One or more parameter values were "
            "invalid: Table is being created with a stream enabled, "
            "UpdateViewType is required",
            StreamSpecification={"StreamEnabled": True}, **base)
        self.assertValidation(
            self.c.create_table, "One or more parameter values were "
            "invalid: Table is being created with a stream disabled, "
            "UpdateViewType should not be specified",
            StreamSpecification={"StreamEnabled": False,
                                 "StreamViewType": "KEYS_ONLY"}, **base)
        self.assertValidation(
            self.c.create_table, prefix="1 validation error detected: "
            "Value 'ALL' at 'streamSpecification.streamViewType' failed to "
            "satisfy constraint: Member must satisfy enum value set",
            StreamSpecification={"StreamEnabled": True,
                                 "StreamViewType": "ALL"}, **base)

    def test_update_rules_and_new_arns(self):
        # DDB-TABLE-050 (messages and LatestStreamArn after disable),
        # DDB-TABLE-362 (a re-enable mints a new ARN), DDB-TABLE-378
        # (ListStreams lists the disabled ones)
        name = self.make_table("str")
        up = self.c.update_table
        r = up(TableName=name, StreamSpecification=spec("NEW_IMAGE"))
        first = r["TableDescription"]["LatestStreamArn"]
        self.assertEqual(r["TableDescription"]["StreamSpecification"],
                         spec("NEW_IMAGE"))
        wait_active(self.c, name)
        msg = "Table already has an enabled stream: TableName: %s" % name
        self.assertValidation(up, msg, TableName=name,
                              StreamSpecification=spec("NEW_IMAGE"))
        self.assertValidation(up, msg, TableName=name,
                              StreamSpecification=spec("KEYS_ONLY"))
        self.assertValidation(
            up, "One or more parameter values were invalid: If stream is "
            "being enabled then UpdateViewType is required",
            TableName=name, StreamSpecification={"StreamEnabled": True})
        self.assertValidation(
            up, "One or more parameter values were invalid: If stream is "
            "being disabled, then UpdateViewType must not be specified",
            TableName=name, StreamSpecification={
                "StreamEnabled": False, "StreamViewType": "KEYS_ONLY"})
        up(TableName=name, StreamSpecification={"StreamEnabled": False})
        t = wait_active(self.c, name)
        self.assertNotIn("StreamSpecification", t)
        self.assertEqual(t["LatestStreamArn"], first)
        self.assertValidation(
            up, "Table has no stream to disable: TableName: %s" % name,
            TableName=name, StreamSpecification={"StreamEnabled": False})
        r = up(TableName=name, StreamSpecification=spec("KEYS_ONLY"))
        second = r["TableDescription"]["LatestStreamArn"]
        self.assertNotEqual(second, first)
        wait_active(self.c, name)
        listed = self.s.list_streams(TableName=name)["Streams"]
        self.assertEqual([x["StreamArn"] for x in listed], [first, second])
        status = {a: self.s.describe_stream(StreamArn=a)[
            "StreamDescription"]["StreamStatus"] for a in (first, second)}
        self.assertEqual(status, {first: "DISABLED", second: "ENABLED"})
        # the disabled stream keeps its view type and table, though the
        # table no longer shows a StreamSpecification for it (scylladb
        # PR 31553, 2026-09, a test run against DynamoDB)
        d = self.s.describe_stream(StreamArn=first)["StreamDescription"]
        self.assertEqual((d["StreamViewType"], d["TableName"]),
                         ("NEW_IMAGE", name))

    def test_update_stream_with_other_changes(self):
        # DDB-TABLE-433/442: a stream change combines with BillingMode
        # PAY_PER_REQUEST only
        name = self.make_table("str", on_demand=False)
        self.assertValidation(
            self.c.update_table, "One or more parameter values were invalid:"
            " You cannot modify stream status while updating table IOPS",
            TableName=name, StreamSpecification=spec("KEYS_ONLY"),
            ProvisionedThroughput={"ReadCapacityUnits": 7,
                                   "WriteCapacityUnits": 7})
        self.assertValidation(
            self.c.update_table, "One or more parameter values were invalid:"
            " You cannot create or delete index while changing stream "
            "status", TableName=name, StreamSpecification=spec("KEYS_ONLY"),
            AttributeDefinitions=[{"AttributeName": "g",
                                   "AttributeType": "S"}],
            GlobalSecondaryIndexUpdates=[{"Create": {
                "IndexName": "gidx", "KeySchema": [
                    {"AttributeName": "g", "KeyType": "HASH"}],
                "Projection": {"ProjectionType": "ALL"},
                "ProvisionedThroughput": {"ReadCapacityUnits": 1,
                                          "WriteCapacityUnits": 1}}}])


class RecordsTest(StreamsCase):
    """What GetRecords returns (the API reference's Record and
    StreamRecord; Alternator test_streams_new_image, ..._old_image,
    test_streams_new_and_old_images, do_updates_1)."""

    def check_common(self, recs, view, region=REGION):
        seqs = []
        for r in recs:
            self.assertRegex(r["eventID"], r"^[0-9a-f]{32}$")
            self.assertEqual(r["eventSource"], "aws:dynamodb")
            self.assertEqual(r["awsRegion"], region)
            self.assertIn(r["eventVersion"], ("1.0", "1.1"))
            d = r["dynamodb"]
            self.assertEqual(d["StreamViewType"], view)
            self.assertRegex(d["SequenceNumber"], SEQ_RE)
            self.assertGreater(d["SizeBytes"], 0)
            self.assertIn("ApproximateCreationDateTime", d)
            self.assertNotIn("userIdentity", r)
            seqs.append(int(d["SequenceNumber"]))
        self.assertEqual(seqs, sorted(seqs))
        self.assertEqual(len(set(seqs)), len(seqs))

    def test_every_view_type(self):
        for view in VIEWS:
            with self.subTest(view=view):
                name, arn = self.stream_table(view)
                self.put(name, "k", a={"N": "1"})
                self.c.update_item(TableName=name, Key={"pk": {"S": "k"}},
                                   UpdateExpression="SET b = :b",
                                   ExpressionAttributeValues={
                                       ":b": {"S": "x"}})
                self.c.delete_item(TableName=name, Key={"pk": {"S": "k"}})
                recs = read_stream(self.s, arn)
                self.check_common(recs, view)
                self.assertEqual([r["eventName"] for r in recs],
                                 ["INSERT", "MODIFY", "REMOVE"])
                v1 = {"pk": {"S": "k"}, "a": {"N": "1"}}
                v2 = dict(v1, b={"S": "x"})
                want_new = [v1, v2, None]
                want_old = [None, v1, v2]
                for i, r in enumerate(recs):
                    d = r["dynamodb"]
                    self.assertEqual(d["Keys"], {"pk": {"S": "k"}})
                    new = want_new[i] if view in ("NEW_IMAGE",
                                                  "NEW_AND_OLD_IMAGES") \
                        else None
                    old = want_old[i] if view in ("OLD_IMAGE",
                                                  "NEW_AND_OLD_IMAGES") \
                        else None
                    self.assertEqual(d.get("NewImage"), new)
                    self.assertEqual(d.get("OldImage"), old)

    def test_size_bytes_keys_only(self):
        # the API reference's example: KEYS_ONLY, keys ForumName
        # "DynamoDB" and Subject "DynamoDB Thread 3": SizeBytes 41
        name, arn = self.stream_table(
            "KEYS_ONLY", hash_key=("ForumName", "S"),
            range_key=("Subject", "S"))
        self.c.put_item(TableName=name, Item={
            "ForumName": {"S": "DynamoDB"},
            "Subject": {"S": "DynamoDB Thread 3"},
            "Body": {"S": "not counted in KEYS_ONLY"}})
        recs = read_stream(self.s, arn)
        self.assertEqual(len(recs), 1)
        self.assertEqual(recs[0]["dynamodb"]["SizeBytes"], 41)

    def test_unchanged_items_record_nothing(self):
        # Alternator do_updates_1: the same item put again, a delete of a
        # missing item, leave no record; a failed condition changes nothing
        name, arn = self.stream_table()
        self.put(name, "k", a={"N": "1"})
        self.put(name, "k", a={"N": "1"})
        self.c.delete_item(TableName=name, Key={"pk": {"S": "nope"}})
        with self.assertRaises(ClientError):
            self.c.put_item(TableName=name, Item={"pk": {"S": "k"}},
                            ConditionExpression="attribute_not_exists(pk)")
        self.c.update_item(TableName=name, Key={"pk": {"S": "k"}},
                           UpdateExpression="SET a = :a",
                           ExpressionAttributeValues={":a": {"N": "1"}})
        self.put(name, "k", a={"N": "2"})
        recs = read_stream(self.s, arn)
        self.assertEqual([r["eventName"] for r in recs],
                         ["INSERT", "MODIFY"])
        # UpdateItem of a missing item with no update: an INSERT of the
        # key alone (Alternator test_streams_updateitem_old_image_empty_item)
        # (shards are read one after another: pick its record by key)
        self.c.update_item(TableName=name, Key={"pk": {"S": "empty"}})
        recs = [r for r in read_stream(self.s, arn)
                if r["dynamodb"]["Keys"] == {"pk": {"S": "empty"}}]
        self.assertEqual(len(recs), 1)
        self.assertEqual(recs[0]["eventName"], "INSERT")
        self.assertEqual(recs[0]["dynamodb"]["NewImage"],
                         {"pk": {"S": "empty"}})

    def test_batches_and_transactions(self):
        # one record per changed item, whatever the path
        name, arn = self.stream_table(range_key=("sk", "N"))
        other, other_arn = self.stream_table()
        self.c.batch_write_item(RequestItems={name: [
            {"PutRequest": {"Item": {"pk": {"S": "b"}, "sk": {"N": str(i)}}}}
            for i in range(5)]})
        self.c.batch_write_item(RequestItems={name: [
            {"DeleteRequest": {"Key": {"pk": {"S": "b"}, "sk": {"N": "0"}}}},
            {"DeleteRequest": {"Key": {"pk": {"S": "b"}, "sk": {"N": "9"}}}},
        ]})
        self.c.transact_write_items(TransactItems=[
            {"Put": {"TableName": name, "Item": {"pk": {"S": "t"},
                                                 "sk": {"N": "1"}}}},
            {"Update": {"TableName": name,
                        "Key": {"pk": {"S": "b"}, "sk": {"N": "1"}},
                        "UpdateExpression": "SET x = :x",
                        "ExpressionAttributeValues": {":x": {"N": "5"}}}},
            {"Delete": {"TableName": name,
                        "Key": {"pk": {"S": "b"}, "sk": {"N": "2"}}}},
            {"ConditionCheck": {"TableName": name,
                                "Key": {"pk": {"S": "b"}, "sk": {"N": "3"}},
                                "ConditionExpression":
                                "attribute_exists(pk)"}},
            {"Put": {"TableName": other, "Item": {"pk": {"S": "o"}}}},
        ])
        # a cancelled transaction records nothing
        with self.assertRaises(ClientError):
            self.c.transact_write_items(TransactItems=[
                {"Put": {"TableName": name, "Item": {"pk": {"S": "never"},
                                                     "sk": {"N": "1"}}}},
                {"ConditionCheck": {"TableName": other,
                                    "Key": {"pk": {"S": "missing"}},
                                    "ConditionExpression":
                                    "attribute_exists(pk)"}}])
        recs = read_stream(self.s, arn)
        names = sorted((r["eventName"], r["dynamodb"]["Keys"]["pk"]["S"],
                        r["dynamodb"]["Keys"]["sk"]["N"]) for r in recs)
        self.assertEqual(names, sorted(
            [("INSERT", "b", str(i)) for i in range(5)] +
            [("REMOVE", "b", "0"), ("INSERT", "t", "1"),
             ("MODIFY", "b", "1"), ("REMOVE", "b", "2")]))
        orecs = read_stream(self.s, other_arn)
        self.assertEqual([(r["eventName"], r["dynamodb"]["Keys"])
                          for r in orecs],
                         [("INSERT", {"pk": {"S": "o"}})])

    def test_partiql_statements(self):
        # PartiQL writes are item changes like the item operations they
        # stand for (developer guide, "Change data capture for DynamoDB
        # Streams": every item-level modification, whatever the API): one
        # record per changed item from ExecuteStatement,
        # BatchExecuteStatement and ExecuteTransaction; none for an UPDATE
        # that changes nothing, a duplicate INSERT, an UPDATE of a missing
        # item (ConditionalCheckFailed) or a DELETE of one
        name, arn = self.stream_table()
        q = '"%s"' % name

        def run(st):
            self.c.execute_statement(Statement=st % q)

        run("INSERT INTO %s VALUE {'pk': 'a', 'v': 1}")
        run("UPDATE %s SET v = 2 WHERE pk = 'a'")
        run("UPDATE %s SET v = 2 WHERE pk = 'a'")
        for st, code in (("INSERT INTO %s VALUE {'pk': 'a'}",
                          "DuplicateItemException"),
                         ("UPDATE %s SET v = 3 WHERE pk = 'zz'",
                          "ConditionalCheckFailedException")):
            with self.assertRaises(ClientError) as e:
                run(st)
            self.assertEqual(e.exception.response["Error"]["Code"], code)
        run("DELETE FROM %s WHERE pk = 'a'")
        run("DELETE FROM %s WHERE pk = 'a'")
        r = self.c.batch_execute_statement(Statements=[
            {"Statement": "INSERT INTO %s VALUE {'pk': 'b'}" % q},
            {"Statement": "INSERT INTO %s VALUE {'pk': 'c'}" % q},
            {"Statement": "INSERT INTO %s VALUE {'pk': 'b'}" % q}])
        self.assertEqual(r["Responses"][2]["Error"]["Code"], "DuplicateItem")
        self.c.execute_transaction(TransactStatements=[
            {"Statement": "UPDATE %s SET w = 1 WHERE pk = 'b'" % q},
            {"Statement": "DELETE FROM %s WHERE pk = 'c'" % q},
            {"Statement": "INSERT INTO %s VALUE {'pk': 'd'}" % q}])
        recs = read_stream(self.s, arn)
        self.check_common(sorted(recs, key=lambda r: int(
            r["dynamodb"]["SequenceNumber"])), "NEW_AND_OLD_IMAGES")
        got = [(r["eventName"], r["dynamodb"]["Keys"]["pk"]["S"],
                r["dynamodb"].get("OldImage"), r["dynamodb"].get("NewImage"))
               for r in recs]
        a1 = {"pk": {"S": "a"}, "v": {"N": "1"}}
        a2 = {"pk": {"S": "a"}, "v": {"N": "2"}}
        b, c = {"pk": {"S": "b"}}, {"pk": {"S": "c"}}
        # per key in order; keys may sit in different shards
        for key, want in (
                ("a", [("INSERT", None, a1), ("MODIFY", a1, a2),
                       ("REMOVE", a2, None)]),
                ("b", [("INSERT", None, b),
                       ("MODIFY", b, dict(b, w={"N": "1"}))]),
                ("c", [("INSERT", None, c), ("REMOVE", c, None)]),
                ("d", [("INSERT", None, {"pk": {"S": "d"}})])):
            self.assertEqual([g[:1] + g[2:] for g in got if g[1] == key],
                             want, key)
        self.assertEqual(len(got), 8)

    def test_index_upkeep_records_nothing(self):
        # a table with a GSI and an LSI: index rows are not changes of the
        # table; one record per write
        name = unique_name("str")
        self._tables.append(name)
        create_table(self.c, name, range_key=("sk", "S"),
                     AttributeDefinitions=[
                         {"AttributeName": "pk", "AttributeType": "S"},
                         {"AttributeName": "sk", "AttributeType": "S"},
                         {"AttributeName": "g", "AttributeType": "S"},
                         {"AttributeName": "l", "AttributeType": "S"}],
                     GlobalSecondaryIndexes=[{
                         "IndexName": "gsi1", "KeySchema": [
                             {"AttributeName": "g", "KeyType": "HASH"}],
                         "Projection": {"ProjectionType": "ALL"}}],
                     LocalSecondaryIndexes=[{
                         "IndexName": "lsi1", "KeySchema": [
                             {"AttributeName": "pk", "KeyType": "HASH"},
                             {"AttributeName": "l", "KeyType": "RANGE"}],
                         "Projection": {"ProjectionType": "KEYS_ONLY"}}],
                     StreamSpecification=spec("NEW_AND_OLD_IMAGES"))
        arn = self.c.describe_table(TableName=name)["Table"][
            "LatestStreamArn"]
        key = {"pk": {"S": "p"}, "sk": {"S": "s"}}
        self.c.put_item(TableName=name, Item=dict(key, g={"S": "1"},
                                                  l={"S": "1"}))
        self.c.update_item(TableName=name, Key=key,
                           UpdateExpression="SET g = :g, l = :l",
                           ExpressionAttributeValues={":g": {"S": "2"},
                                                      ":l": {"S": "2"}})
        self.c.delete_item(TableName=name, Key=key)
        recs = read_stream(self.s, arn)
        self.assertEqual([r["eventName"] for r in recs],
                         ["INSERT", "MODIFY", "REMOVE"])
        # the index tables have no stream of their own
        self.assertEqual(len(self.s.list_streams(TableName=name)[
            "Streams"]), 1)


class IteratorsTest(StreamsCase):
    """GetShardIterator's four types and GetRecords' paging (Alternator
    test_get_shard_iterator, test_streams_at_sequence_number,
    ..._after_sequence_number, ..._trim_horizon, ..._last_result,
    test_get_records_too_high_limit)."""

    def one_shard_table(self):
        name = self.make_table("str", on_demand=False, rcu=1, wcu=1,
                               StreamSpecification=spec("KEYS_ONLY"))
        arn = self.c.describe_table(TableName=name)["Table"][
            "LatestStreamArn"]
        _, shards = all_shards(self.s, arn)
        self.assertEqual(len(shards), 1)
        return name, arn, shards[0]["ShardId"]

    def test_iterator_types(self):
        name, arn, sid = self.one_shard_table()
        gsi = self.s.get_shard_iterator
        latest = gsi(StreamArn=arn, ShardId=sid,
                     ShardIteratorType="LATEST")["ShardIterator"]
        self.assertTrue(latest.startswith(arn + "|"))
        for i in range(3):
            self.put(name, "k%d" % i)
        recs = self.s.get_records(ShardIterator=latest)
        self.assertEqual(len(recs["Records"]), 3)
        seqs = [r["dynamodb"]["SequenceNumber"] for r in recs["Records"]]
        self.assertTrue(int(seqs[0]) < int(seqs[1]) < int(seqs[2]))
        # reading again from the next iterator: nothing new
        again = self.s.get_records(ShardIterator=recs["NextShardIterator"])
        self.assertEqual(again["Records"], [])
        self.assertIn("NextShardIterator", again)
        at = gsi(StreamArn=arn, ShardId=sid,
                 ShardIteratorType="AT_SEQUENCE_NUMBER",
                 SequenceNumber=seqs[1])["ShardIterator"]
        self.assertEqual([r["dynamodb"]["SequenceNumber"] for r in
                          self.s.get_records(ShardIterator=at)["Records"]],
                         seqs[1:])
        after = gsi(StreamArn=arn, ShardId=sid,
                    ShardIteratorType="AFTER_SEQUENCE_NUMBER",
                    SequenceNumber=seqs[1])["ShardIterator"]
        self.assertEqual([r["dynamodb"]["SequenceNumber"] for r in
                          self.s.get_records(ShardIterator=after)["Records"]],
                         seqs[2:])
        horizon = read_shard(self.s, arn, sid)[0]
        self.assertEqual([r["dynamodb"]["SequenceNumber"] for r in horizon],
                         seqs)
        # StartingSequenceNumber reads everything (Alternator
        # test_streams_starting_sequence_number)
        start = all_shards(self.s, arn)[1][0]["SequenceNumberRange"][
            "StartingSequenceNumber"]
        self.assertEqual(len(read_shard(self.s, arn, sid,
                                        "AT_SEQUENCE_NUMBER",
                                        SequenceNumber=start)[0]), 3)
        # Limit pages
        page = self.s.get_records(ShardIterator=gsi(
            StreamArn=arn, ShardId=sid,
            ShardIteratorType="TRIM_HORIZON")["ShardIterator"], Limit=2)
        self.assertEqual(len(page["Records"]), 2)
        rest = self.s.get_records(ShardIterator=page["NextShardIterator"])
        self.assertEqual([r["dynamodb"]["SequenceNumber"]
                          for r in rest["Records"]], seqs[2:])

    def test_one_megabyte_per_page(self):
        # "GetRecords can retrieve a maximum of 1 MB of data or 1000 stream
        # records, whichever comes first" (API reference)
        # one partition (ceil(1/3000 + 999/1000)); 1.5 MB of writes at
        # once pass a partition's 1,000 WCU, so no throttling here
        # (docs/throttling.md: per-table knobs as tags)
        name = self.make_table("str", on_demand=False, rcu=1, wcu=999,
                               StreamSpecification=spec("NEW_IMAGE"),
                               Tags=[{"Key": "shardlocal:throttle",
                                      "Value": "off"}])
        arn = self.c.describe_table(TableName=name)["Table"][
            "LatestStreamArn"]
        for i in range(15):
            self.put(name, "big%02d" % i, v={"S": "x" * 100000})
        sid = all_shards(self.s, arn)[1][0]["ShardId"]
        it = self.s.get_shard_iterator(StreamArn=arn, ShardId=sid,
                                       ShardIteratorType="TRIM_HORIZON")[
                                           "ShardIterator"]
        first = self.s.get_records(ShardIterator=it)
        size = sum(r["dynamodb"]["SizeBytes"] for r in first["Records"])
        self.assertLessEqual(size, 1024 * 1024)
        self.assertEqual(len(first["Records"]), 10)
        rest = self.s.get_records(ShardIterator=first["NextShardIterator"])
        self.assertEqual(len(rest["Records"]), 5)

    def test_iterator_errors(self):
        name, arn, sid = self.one_shard_table()
        gsi = self.s.get_shard_iterator
        self.put(name, "k")
        seq = read_shard(self.s, arn, sid)[0][0]["dynamodb"][
            "SequenceNumber"]
        for kind in ("AT_SEQUENCE_NUMBER", "AFTER_SEQUENCE_NUMBER"):
            self.assertValidation(gsi, StreamArn=arn, ShardId=sid,
                                  ShardIteratorType=kind)
        for kind in ("TRIM_HORIZON", "LATEST"):
            self.assertValidation(gsi, StreamArn=arn, ShardId=sid,
                                  ShardIteratorType=kind, SequenceNumber=seq)
        self.assertValidation(gsi, StreamArn=arn, ShardId=sid,
                              ShardIteratorType="AT_SEQUENCE_NUMBER",
                              SequenceNumber="9" * 21)
        self.assertValidation(gsi, StreamArn=arn, ShardId=sid,
                              ShardIteratorType="bulle")
        self.assertError(gsi, "ResourceNotFoundException",
                         StreamArn=arn, ShardId="shardId-" + "0" * 20 +
                         "-00000000", ShardIteratorType="LATEST")
        # a malformed stream ARN, and an unknown one (aws-sdk-js v2
        # integration tests; the RNF text as DynamoDB Streams words it)
        self.assertValidation(gsi, "Invalid StreamArn",
                              StreamArn="sdfadfsddafgdafsgjnadflkgnalngalsdf"
                              "nlkasnlkasdfasdfasf", ShardId=sid,
                              ShardIteratorType="LATEST")
        gone = arn.rsplit("/", 1)[0] + "/2001-01-01T00:00:00.000"
        self.assertError(gsi, "ResourceNotFoundException",
                         "Requested resource not found: Stream: %s not "
                         "found" % gone, StreamArn=gone, ShardId=sid,
                         ShardIteratorType="LATEST")
        self.assertValidation(
            self.s.describe_stream, "Invalid StreamArn",
            StreamArn="sdfadfsdfnlfkajakfgjalksfgklasjklasdjfklasdfasdfg")
        self.assertValidation(
            self.s.get_records, "Invalid ShardIterator",
            ShardIterator="sdfsdfsgagaddafgagasgasgasdfasdfasdfasdfasdgas")
        it = gsi(StreamArn=arn, ShardId=sid,
                 ShardIteratorType="LATEST")["ShardIterator"]
        self.assertValidation(self.s.get_records, prefix="1 validation "
                              "error detected: Value '1001' at 'limit'",
                              ShardIterator=it, Limit=1001)
        self.s.get_records(ShardIterator=it, Limit=1000)
        # a tampered iterator is refused, not misread
        bad = it[:-4] + ("AAAA" if it[-4:] != "AAAA" else "BBBB")
        self.assertValidation(self.s.get_records, "Invalid ShardIterator",
                              ShardIterator=bad)


class ListAndDescribeTest(StreamsCase):
    """Paging of ListStreams and DescribeStream (Alternator
    test_list_streams_paged, test_list_streams_with_nonexistent_last_stream,
    test_describe_stream_with_nonexistent_last_shard, list_shards)."""

    def test_list_streams_paging(self):
        arns = {self.stream_table("KEYS_ONLY")[1] for _ in range(3)}
        seen, start = [], None
        while True:
            args = {"Limit": 1}
            if start:
                args["ExclusiveStartStreamArn"] = start
            r = self.s.list_streams(**args)
            self.assertLessEqual(len(r["Streams"]), 1)
            seen += [x["StreamArn"] for x in r["Streams"]]
            start = r.get("LastEvaluatedStreamArn")
            if not start:
                break
        self.assertTrue(arns <= set(seen))
        self.assertEqual(len(seen), len(set(seen)))
        self.assertValidation(self.s.list_streams, Limit=101)
        self.assertValidation(
            self.s.list_streams, "Invalid StreamArn",
            ExclusiveStartStreamArn="kossaapaaasdafsdaasdasdasdasasdasfadf")
        self.assertError(self.s.list_streams, "ResourceNotFoundException",
                         TableName=unique_name("nosuch"))

    def test_describe_stream_paging(self):
        name, arn = self.stream_table("KEYS_ONLY")
        d, shards = all_shards(self.s, arn, Limit=1)
        full = self.s.describe_stream(StreamArn=arn)["StreamDescription"]
        self.assertEqual(shards, full["Shards"])
        self.assertNotIn("LastEvaluatedShardId", full)
        ids = [x["ShardId"] for x in shards]
        self.assertEqual(ids, sorted(ids))
        self.assertEqual(self.s.describe_stream(
            StreamArn=arn, ExclusiveStartShardId=ids[-1])[
                "StreamDescription"]["Shards"], [])
        self.assertEqual(self.s.describe_stream(
            StreamArn=arn, ExclusiveStartShardId="z" * 40)[
                "StreamDescription"]["Shards"], [])


class LifecycleTest(StreamsCase):
    """Closed shards, splits and lineage, deleted tables (Alternator
    test_streams_closed_read, test_streams_disabled_stream; DDB-TABLE-378;
    the DeleteTable API reference)."""

    def test_disabled_stream_is_closed_and_readable(self):
        name, arn = self.stream_table("KEYS_ONLY")
        _, shards = all_shards(self.s, arn)
        open_iters = {sh["ShardId"]: self.s.get_shard_iterator(
            StreamArn=arn, ShardId=sh["ShardId"],
            ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
            for sh in shards}
        self.put(name, "k")
        self.c.update_table(TableName=name,
                            StreamSpecification={"StreamEnabled": False})
        wait_active(self.c, name)
        self.put(name, "after")             # not in the stream
        d, shards = all_shards(self.s, arn)
        self.assertEqual(d["StreamStatus"], "DISABLED")
        total = 0
        for sh in shards:
            self.assertRegex(sh["SequenceNumberRange"][
                "EndingSequenceNumber"], SEQ_RE)
            r = self.s.get_records(ShardIterator=open_iters[sh["ShardId"]])
            total += len(r["Records"])
            # drained closed shard: no NextShardIterator
            self.assertNotIn("NextShardIterator", r)
            recs, nxt = read_shard(self.s, arn, sh["ShardId"])
            self.assertIsNone(nxt)
        self.assertEqual(total, 1)

    def test_split_lineage_and_key_order(self):
        # one partition (1 RCU, 1 WCU), then 1,500 WCU: two partitions
        # (docs/throttling.md, "Partitions"); the parent's shard closes,
        # each child names it
        name = self.make_table("str", on_demand=False, rcu=1, wcu=1,
                               StreamSpecification=spec("NEW_IMAGE"))
        arn = self.c.describe_table(TableName=name)["Table"][
            "LatestStreamArn"]
        keys = ["key%02d" % i for i in range(20)]
        for k in keys:
            self.put(name, k, v={"N": "1"})
        self.c.update_table(TableName=name, ProvisionedThroughput={
            "ReadCapacityUnits": 1, "WriteCapacityUnits": 1500})
        wait_active(self.c, name)
        for k in keys:
            self.c.update_item(TableName=name, Key={"pk": {"S": k}},
                               UpdateExpression="SET v = :v",
                               ExpressionAttributeValues={":v": {"N": "2"}})
        d, shards = all_shards(self.s, arn)
        self.assertEqual(len(shards), 3)
        parent, kids = shards[0], shards[1:]
        self.assertNotIn("ParentShardId", parent)
        pend = int(parent["SequenceNumberRange"]["EndingSequenceNumber"])
        for kid in kids:
            self.assertEqual(kid["ParentShardId"], parent["ShardId"])
            self.assertNotIn("EndingSequenceNumber",
                             kid["SequenceNumberRange"])
            self.assertGreater(int(kid["SequenceNumberRange"][
                "StartingSequenceNumber"]), pend)
        # CHILD_SHARDS: the children of the parent (newer clients only)
        if has_param(self.s, "DescribeStream", "ShardFilter"):
            r = self.s.describe_stream(StreamArn=arn, ShardFilter={
                "Type": "CHILD_SHARDS", "ShardId": parent["ShardId"]})
            self.assertEqual([x["ShardId"] for x in r["StreamDescription"][
                "Shards"]], [k["ShardId"] for k in kids])
        precs, nxt = read_shard(self.s, arn, parent["ShardId"])
        self.assertIsNone(nxt)              # closed and drained
        self.assertEqual(sorted(r["dynamodb"]["Keys"]["pk"]["S"]
                                for r in precs), keys)
        per_key = {}
        for sh in shards:                   # parents first
            for r in read_shard(self.s, arn, sh["ShardId"])[0]:
                per_key.setdefault(r["dynamodb"]["Keys"]["pk"]["S"],
                                   []).append(r)
        for k in keys:
            self.assertEqual([r["eventName"] for r in per_key[k]],
                             ["INSERT", "MODIFY"])
            self.assertEqual([r["dynamodb"]["NewImage"]["v"]["N"]
                              for r in per_key[k]], ["1", "2"])
            s1, s2 = (int(r["dynamodb"]["SequenceNumber"])
                      for r in per_key[k])
            self.assertLess(s1, pend)
            self.assertGreater(s2, pend)

    def test_deleted_table_keeps_its_stream(self):
        name = unique_name("str")
        create_table(self.c, name, StreamSpecification=spec("KEYS_ONLY"))
        first = self.c.describe_table(TableName=name)["Table"][
            "LatestStreamArn"]
        self.put(name, "k")
        self.c.delete_table(TableName=name)
        # "the stream goes into the DISABLED state" and stays listable
        # (DeleteTable API reference; DDB-TABLE-378)
        self.assertNotIn(name, self.c.list_tables()["TableNames"])
        d = self.s.describe_stream(StreamArn=first)["StreamDescription"]
        self.assertEqual(d["StreamStatus"], "DISABLED")
        self.assertEqual(d["TableName"], name)
        self.assertEqual(len(read_stream(self.s, first)), 1)
        try:
            create_table(self.c, name,
                         StreamSpecification=spec("KEYS_ONLY"))
            second = self.c.describe_table(TableName=name)["Table"][
                "LatestStreamArn"]
            self.assertNotEqual(second, first)
            listed = [x["StreamArn"] for x in
                      self.s.list_streams(TableName=name)["Streams"]]
            self.assertEqual(listed, [first, second])
        finally:
            delete_table_quietly(self.c, name)


class MetersTest(StreamsCase):
    """Stream reads in the admin API and /metrics (CloudWatch's
    ReturnedRecordsCount and ReturnedBytes)."""

    def test_admin_and_metrics(self):
        if ENDPOINT is None:
            self.skipTest("shardlocal's admin API")
        name, arn = self.stream_table("NEW_IMAGE")
        for i in range(4):
            self.put(name, "m%d" % i)
        recs = read_stream(self.s, arn)
        label = arn.rsplit("/", 1)[1]
        with urllib.request.urlopen("%s/shardlocal/tables/%s"
                                    % (ENDPOINT, name)) as r:
            view = json.load(r)
        m = view["streams"][label]
        self.assertEqual(m["ReturnedRecordsCount"], 4)
        self.assertEqual(m["ReturnedBytes"],
                         sum(x["dynamodb"]["SizeBytes"] for x in recs))
        self.assertGreaterEqual(m["GetRecords"], 4)
        self.assertGreaterEqual(m["DescribeStream"], 1)
        with urllib.request.urlopen(ENDPOINT + "/metrics") as r:
            text = r.read().decode()
        self.assertIn('ReturnedRecordsCount{table="%s",stream_label="%s",'
                      'operation="GetRecords"} 4' % (name, label), text)
