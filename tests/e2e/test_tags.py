# SPDX-License-Identifier: MIT
# test_tags.py - TagResource, UntagResource, ListTagsOfResource and
# CreateTable's Tags with boto3: upserts, the 50-tag limit, key and value
# rules, the reserved aws: prefix, ARN forms, and shardlocal:<knob> tags
# changing a live table's throttling. Expected answers are DynamoDB's:
# ack-api-quirks' recordings (DDB-TABLE-0xx/1xx, 2026-10), ScyllaDB
# Alternator's test_tag.py and the dynamodb-conformance suite's
# tags/basic.test.ts, both run against DynamoDB.
import unittest

from botocore.exceptions import ClientError

from e2e_common import (ACCOUNT, REGION, E2ECase, create_table,
                        delete_table_quietly, unique_name)
from test_batch import unvalidated_client


def tag_dict(tags):
    return {t["Key"]: t["Value"] for t in tags}


class TagsCase(E2ECase):

    def setUp(self):
        self.name = self.make_table("tags")
        self.arn = self.c.describe_table(
            TableName=self.name)["Table"]["TableArn"]

    def tags(self, arn=None):
        return self.c.list_tags_of_resource(
            ResourceArn=arn or self.arn)["Tags"]

    def tag(self, *pairs, arn=None):
        return self.c.tag_resource(
            ResourceArn=arn or self.arn,
            Tags=[{"Key": k, "Value": v} for k, v in pairs])


class TestTagging(TagsCase):
    """The conformance suite's tags/basic.test.ts cases and Alternator's
    test_tag_resource_basic / _overwrite / test_empty_tag_value."""

    def test_add_list_overwrite_remove(self):
        self.assertEqual(self.tags(), [])
        self.tag(("env", "test"), ("project", "conformity"))
        self.assertEqual(tag_dict(self.tags()),
                         {"env": "test", "project": "conformity"})
        self.tag(("team", "platform"))
        self.assertEqual(len(self.tags()), 3)
        self.c.untag_resource(ResourceArn=self.arn, TagKeys=["team"])
        self.assertNotIn("team", tag_dict(self.tags()))
        # Removing keys that are not there is no error (DDB-TABLE-105).
        self.c.untag_resource(ResourceArn=self.arn,
                              TagKeys=["project", "never-set"])
        self.assertEqual(tag_dict(self.tags()), {"env": "test"})
        self.tag(("env", "production"))       # an upsert, not a new tag
        self.assertEqual(self.tags(), [{"Key": "env", "Value": "production"}])

    def test_empty_value_and_case_sensitive_keys(self):
        # DDB-TABLE-106: Value '' round-trips; Env and env are two keys.
        self.tag(("Env", ""), ("env", "x"))
        self.assertEqual(tag_dict(self.tags()), {"Env": "", "env": "x"})

    def test_create_table_tags_are_listed(self):
        name = unique_name("tagsc")
        tags = [{"Key": "str1", "Value": "str2"},
                {"Key": "kkk", "Value": "vv"}]
        create_table(self.c, name, Tags=tags)
        self.addCleanup(delete_table_quietly, self.c, name)
        arn = self.c.describe_table(TableName=name)["Table"]["TableArn"]
        self.assertEqual(self.tags(arn), tags)

    def test_responses_are_empty(self):
        r = self.tag(("a", "b"))
        self.assertEqual(set(r) - {"ResponseMetadata"}, set())
        r = self.c.untag_resource(ResourceArn=self.arn, TagKeys=["a"])
        self.assertEqual(set(r) - {"ResponseMetadata"}, set())


class TestTagLimits(TagsCase):
    """DDB-TABLE-107/108: all-or-nothing ValidationException, the 50-tag
    limit on the merged set."""

    LIMIT = "Number of Tags exceed the current limit for the provided " \
            "ResourceArn"

    def test_fifty_tags_then_one_more(self):
        self.tag(*[("k%02d" % i, "v") for i in range(50)])
        self.assertEqual(len(self.tags()), 50)
        self.assertValidation(self.c.tag_resource, self.LIMIT,
                              ResourceArn=self.arn,
                              Tags=[{"Key": "k50", "Value": "v"}])
        # new values for existing keys stay within the limit
        self.tag(("k01", "v2"))
        self.assertEqual(tag_dict(self.tags())["k01"], "v2")
        # a mixed request changes nothing
        self.assertValidation(self.c.tag_resource, self.LIMIT,
                              ResourceArn=self.arn,
                              Tags=[{"Key": "k02", "Value": "v2"},
                                    {"Key": "k51", "Value": "v"}])
        self.assertEqual(tag_dict(self.tags())["k02"], "v")

    def test_alternator_thirty_then_overlap(self):
        # Alternator test_tag_resource_incorrect: 30, then 20..39 (40 in
        # all), then 40..59 is one too many.
        self.tag(*[(str(i), str(i)) for i in range(30)])
        self.tag(*[(str(i), str(i)) for i in range(20, 40)])
        self.assertEqual(len(self.tags()), 40)
        self.assertValidation(self.c.tag_resource, self.LIMIT,
                              ResourceArn=self.arn,
                              Tags=[{"Key": str(i), "Value": str(i)}
                                    for i in range(40, 60)])

    def test_untag_more_than_fifty_keys(self):
        self.assertValidation(self.c.untag_resource, self.LIMIT,
                              ResourceArn=self.arn,
                              TagKeys=["k%d" % i for i in range(51)])

    def test_create_table_with_too_many_tags(self):
        # Alternator test_too_long_tags_from_creation: no table is left.
        name = unique_name("tagsn")
        self.assertValidation(
            self.c.create_table, self.LIMIT, TableName=name,
            BillingMode="PAY_PER_REQUEST",
            KeySchema=[{"AttributeName": "p", "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": "p",
                                   "AttributeType": "S"}],
            Tags=[{"Key": str(i), "Value": str(i)} for i in range(100)])
        self.assertError(self.c.describe_table, "ResourceNotFoundException",
                         TableName=name)

    def test_empty_lists(self):
        self.assertValidation(self.c.tag_resource,
                              "Atleast one Tag needs to be provided as "
                              "Input.", ResourceArn=self.arn, Tags=[])
        self.assertValidation(self.c.untag_resource,
                              "Atleast one Tag Key needs to be provided as "
                              "Input.", ResourceArn=self.arn, TagKeys=[])


class TestTagRules(TagsCase):
    """Key and value lengths in characters, the character set, the aws:
    prefix, duplicates (DDB-TABLE-105/106/107/372, Alternator
    test_tag_key_length_*, test_tag_value_length_*,
    test_tag_forbidden_chars)."""

    def test_lengths_in_characters(self):
        self.tag(("x" * 128, "v" * 256))
        self.tag(("\u05d0" * 128, "\u05d0" * 256))    # 2 bytes each
        tags = tag_dict(self.tags())
        self.assertEqual(tags["x" * 128], "v" * 256)
        self.assertEqual(tags["\u05d0" * 128], "\u05d0" * 256)
        self.assertValidation(self.c.tag_resource,
                              "The Tag Key provided is invalid, Key: " +
                              "k" * 129, ResourceArn=self.arn,
                              Tags=[{"Key": "k" * 129, "Value": "v"}])
        self.assertValidation(self.c.tag_resource,
                              "The Tag Value provided is invalid, Value: " +
                              "v" * 257, ResourceArn=self.arn,
                              Tags=[{"Key": "k", "Value": "v" * 257}])

    def test_characters(self):
        ok = ["\u043a\u043b\u044e\u0447", "caf\u00e9", "\u8868",
              "nb\u00a0sp", "ideo\u3000space", "a+b-c=d.e_f:g/h@i",
              " leading", "7"]
        for i, v in enumerate(ok):
            self.tag((v, v))
        self.assertEqual(len(self.tags()), len(ok))
        bad = ["\U0001f511", "100%", "a,b", "it's", '"q"', "(x)", "[y]",
               "{z}", "a&b", "a*b", "a;b", "a?b", "a|b", "a\\b", "<a>", "~a",
               "bad#char", "hi!", "tab\there"]
        for v in bad:
            with self.subTest(v=v):
                self.assertValidation(self.c.tag_resource,
                                      "The Tag Key provided is invalid, "
                                      "Key: " + v, ResourceArn=self.arn,
                                      Tags=[{"Key": v, "Value": "ok"}])
                self.assertValidation(self.c.tag_resource,
                                      "The Tag Value provided is invalid, "
                                      "Value: " + v, ResourceArn=self.arn,
                                      Tags=[{"Key": "ok", "Value": v}])
        self.assertEqual(len(self.tags()), len(ok))

    def test_reserved_prefix(self):
        for key in ("aws:foo", "AWS:foo", "Aws:x"):
            self.assertValidation(self.c.tag_resource,
                                  "Tag Key cannot be prefixed with aws:, "
                                  "Key: " + key, ResourceArn=self.arn,
                                  Tags=[{"Key": "good", "Value": "v"},
                                        {"Key": key, "Value": "v"}])
        self.assertValidation(self.c.untag_resource,
                              "Tag Key cannot be prefixed with aws:, Key: "
                              "aws:foo", ResourceArn=self.arn,
                              TagKeys=["aws:foo"])
        self.tag(("myaws:foo", "v"))
        self.assertEqual(tag_dict(self.tags()), {"myaws:foo": "v"})

    def test_duplicates_and_missing_members(self):
        self.assertValidation(self.c.tag_resource,
                              "Duplicate Tag Keys provided as input: "
                              "Duplicate Tag Key found dup",
                              ResourceArn=self.arn,
                              Tags=[{"Key": "dup", "Value": "1"},
                                    {"Key": "dup", "Value": "2"}])
        # What botocore would refuse itself (DDB-TABLE-457's recordings).
        raw = unvalidated_client()
        self.assertValidation(raw.untag_resource,
                              "The Tag Key provided is invalid, Key: ",
                              ResourceArn=self.arn, TagKeys=[""])
        self.assertValidation(raw.tag_resource,
                              "The Tag Key provided is invalid, Key: ",
                              ResourceArn=self.arn,
                              Tags=[{"Key": "", "Value": "dog"}])
        self.assertValidation(raw.tag_resource,
                              "The Tag Key provided is invalid, Key: null",
                              ResourceArn=self.arn, Tags=[{}])
        self.assertValidation(raw.tag_resource,
                              "The Tag Key provided is invalid, Key: null",
                              ResourceArn=self.arn, Tags=[{"Value": "v"}])
        self.assertValidation(raw.tag_resource,
                              "The Tag Value provided is invalid, Value: "
                              "null", ResourceArn=self.arn,
                              Tags=[{"Key": "dog"}])
        self.assertEqual(self.tags(), [])


class TestTagArns(TagsCase):
    """ResourceArn forms (DDB-TABLE-071, DDB-BACKUP-013, Alternator
    test_tag_lsi_gsi and test_tag_resource_subtly_incorrect_arn)."""

    def test_not_an_arn(self):
        for arn in ("not-a-valid-arn", self.name):
            self.assertValidation(self.c.tag_resource,
                                  "One or more parameter values were "
                                  "invalid: ARNs must start with 'arn:': " +
                                  arn, ResourceArn=arn,
                                  Tags=[{"Key": "k", "Value": "v"}])
            self.assertValidation(self.c.list_tags_of_resource,
                                  prefix="One or more parameter values were "
                                  "invalid: ARNs must start with 'arn:'",
                                  ResourceArn=arn)

    def test_missing_table(self):
        arn = self.arn + "x"
        msg = "Requested resource not found: ResourceArn: %s not found" % arn
        self.assertError(self.c.tag_resource, "ResourceNotFoundException",
                         msg, ResourceArn=arn,
                         Tags=[{"Key": "k", "Value": "v"}])
        self.assertError(self.c.list_tags_of_resource,
                         "ResourceNotFoundException", msg, ResourceArn=arn)
        self.assertError(self.c.untag_resource, "ResourceNotFoundException",
                         msg, ResourceArn=arn, TagKeys=["k"])

    def test_other_account_is_denied(self):
        other = "111111111111" if ACCOUNT != "111111111111" else "222222222222"
        arn = "arn:aws:dynamodb:%s:%s:table/nonexistent_table_xyz" % (
            REGION, other)
        self.assertError(self.c.list_tags_of_resource,
                         "AccessDeniedException", "Access is denied",
                         ResourceArn=arn)

    def test_other_region(self):
        arn = self.arn.replace(":%s:" % REGION, ":eu-west-3:")
        self.assertValidation(self.c.list_tags_of_resource,
                              "Invalid TableArn: Invalid ResourceArn "
                              "provided as input " + arn, ResourceArn=arn)

    def test_index_and_backup_arns(self):
        name = unique_name("tagsi")
        create_table(self.c, name, range_key=("c", "S"),
                     AttributeDefinitions=[
                         {"AttributeName": "pk", "AttributeType": "S"},
                         {"AttributeName": "c", "AttributeType": "S"},
                         {"AttributeName": "x1", "AttributeType": "S"}],
                     GlobalSecondaryIndexes=[{
                         "IndexName": "gsi", "KeySchema": [
                             {"AttributeName": "pk", "KeyType": "HASH"},
                             {"AttributeName": "x1", "KeyType": "RANGE"}],
                         "Projection": {"ProjectionType": "KEYS_ONLY"}}],
                     LocalSecondaryIndexes=[{
                         "IndexName": "lsi", "KeySchema": [
                             {"AttributeName": "pk", "KeyType": "HASH"},
                             {"AttributeName": "x1", "KeyType": "RANGE"}],
                         "Projection": {"ProjectionType": "KEYS_ONLY"}}])
        self.addCleanup(delete_table_quietly, self.c, name)
        t = self.c.describe_table(TableName=name)["Table"]
        for idx in (t["GlobalSecondaryIndexes"][0],
                    t["LocalSecondaryIndexes"][0]):
            self.assertValidation(self.c.list_tags_of_resource,
                                  "One or more parameter values were "
                                  "invalid: Invalid resource arn provided, "
                                  "only table or stream is accepted. "
                                  "Provided resource arn: " +
                                  idx["IndexArn"],
                                  ResourceArn=idx["IndexArn"])
        b = self.c.create_backup(TableName=name, BackupName="tagged")
        barn = b["BackupDetails"]["BackupArn"]
        self.addCleanup(self.c.delete_backup, BackupArn=barn)
        self.assertValidation(self.c.tag_resource,
                              "One or more parameter values were invalid: "
                              "Provided Arn is not a DynamoDB resource arn: " +
                              barn, ResourceArn=barn,
                              Tags=[{"Key": "k", "Value": "v"}])

    def test_missing_members(self):
        # dynalite's tagResource tests, recorded against DynamoDB: no
        # ResourceArn is "Invalid TableArn", no Tags the framework's null.
        raw = unvalidated_client()
        self.assertValidation(raw.tag_resource, "Invalid TableArn")
        self.assertValidation(raw.list_tags_of_resource, "Invalid TableArn")
        self.assertValidation(raw.tag_resource,
                              "1 validation error detected: Value null at "
                              "'tags' failed to satisfy constraint: Member "
                              "must not be null", ResourceArn=self.arn)
        self.assertValidation(raw.untag_resource,
                              "1 validation error detected: Value null at "
                              "'tagKeys' failed to satisfy constraint: "
                              "Member must not be null",
                              ResourceArn=self.arn)
        self.assertValidation(raw.list_tags_of_resource,
                              "1 validation error detected: Value '' at "
                              "'resourceArn' failed to satisfy constraint: "
                              "Member must have length greater than or "
                              "equal to 1", ResourceArn="")


class TestThrottleKnobTags(TagsCase):
    """A shardlocal:<knob> tag set or removed with TagResource changes the
    table's throttling at once (docs/throttling.md, section 4)."""

    def put_burst(self, n):
        """Write the same key n times; how many were throttled."""
        throttled = 0
        for i in range(n):
            try:
                self.c.put_item(TableName=self.name,
                                Item={"pk": {"S": "hot"}, "n": {"N": str(i)}})
            except ClientError as e:
                self.assertEqual(e.response["Error"]["Code"],
                                 "RequestLimitExceeded")
                throttled += 1
        return throttled

    def test_table_quota_knob_is_live(self):
        self.assertEqual(self.put_burst(6), 0)
        # An on-demand table held to one write unit a second (a quota over
        # one-second windows, no burst): a burst of writes now throttles.
        self.tag(("shardlocal:ondemand-table-max-wru", "1"))
        self.assertGreater(self.put_burst(6), 0)
        # Removed: the server's quota (40,000) again.
        self.c.untag_resource(ResourceArn=self.arn,
                              TagKeys=["shardlocal:ondemand-table-max-wru"])
        self.assertEqual(self.put_burst(6), 0)


if __name__ == "__main__":
    unittest.main()
