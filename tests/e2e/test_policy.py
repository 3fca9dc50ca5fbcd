# SPDX-License-Identifier: MIT
# test_policy.py - resource-based policies with boto3: PutResourcePolicy,
# GetResourcePolicy, DeleteResourcePolicy and CreateTable's
# ResourcePolicy; RevisionId and ExpectedRevisionId (NO_POLICY too), the
# canonical form Get returns, validation and the errors of each.
# Expected answers are DynamoDB's: ack-api-quirks' recordings in
# table-policy-kinesis-autoscaling.md (DDB-TABLE-205..212, -351..356,
# -374, -457, 2026-10) and moto's test_dynamodb_resource_policy.py, whose
# cases are verified against DynamoDB. Not emulated: DynamoDB's ~2 s read
# lag and its 15 s per-table write cooldown (a local server answers at
# once; docs/design.md).
import json
import unittest

from e2e_common import (ACCOUNT, REGION, E2ECase, create_table,
                        delete_table_quietly, unique_name)
from test_batch import unvalidated_client

ROOT = "arn:aws:iam::%s:root" % ACCOUNT
NOT_FOUND = "Resource-based policy not found for the provided ResourceArn: "


def doc(action="dynamodb:GetItem", resource="*", principal=None, **extra):
    st = {"Effect": "Allow",
          "Principal": principal or {"AWS": ACCOUNT},
          "Action": [action], "Resource": resource}
    st.update(extra)
    return json.dumps({"Version": "2012-10-17", "Statement": [st]})


def client_knows_policies():
    """Resource policies came with botocore 1.34 (2024); Debian's older
    boto3 cannot send them (the CLI and JS suites cover the calls)."""
    import boto3
    return "PutResourcePolicy" in boto3.client(
        "dynamodb", region_name=REGION).meta.service_model.operation_names


@unittest.skipUnless(client_knows_policies(),
                     "this boto3 has no resource-policy calls")
class PolicyCase(E2ECase):

    def setUp(self):
        self.name = self.make_table("pol")
        self.arn = "arn:aws:dynamodb:%s:%s:table/%s" % (REGION, ACCOUNT,
                                                       self.name)

    def put(self, policy=None, **kw):
        return self.c.put_resource_policy(ResourceArn=self.arn,
                                          Policy=policy or doc(),
                                          **kw)["RevisionId"]

    def get(self):
        return self.c.get_resource_policy(ResourceArn=self.arn)

    def not_found(self, fn, message, **kw):
        self.assertError(fn, "PolicyNotFoundException", message, **kw)


class TestRevisions(PolicyCase):
    """moto's AWS-verified cases and DDB-TABLE-205/-207/-209."""

    def test_put_get_and_idempotent_reput(self):
        rev = self.put()
        self.assertRegex(rev, r"^\d{13}$")          # epoch ms (-207)
        got = self.get()
        self.assertEqual(got["RevisionId"], rev)
        self.assertEqual(json.loads(got["Policy"])["Statement"][0]["Action"],
                         "dynamodb:GetItem")
        # the same document (any whitespace) is a no-op with the same id
        self.assertEqual(self.put(json.dumps(json.loads(doc()), indent=4)),
                         rev)
        rev2 = self.put(doc("dynamodb:PutItem"))
        self.assertGreater(int(rev2), int(rev))     # comparable: a time
        self.assertEqual(self.get()["RevisionId"], rev2)

    def test_expected_revision(self):
        rev1 = self.put()
        rev2 = self.put(doc("dynamodb:PutItem"), ExpectedRevisionId=rev1)
        self.assertEqual(self.get()["RevisionId"], rev2)
        stale = (NOT_FOUND + "Requested update for policy with revision id "
                 "%s, but the policy associated to target table %s has "
                 "revision id %s." % (rev1, self.name, rev2))
        self.not_found(self.c.put_resource_policy, stale,
                       ResourceArn=self.arn, Policy=doc("dynamodb:Query"),
                       ExpectedRevisionId=rev1)
        self.not_found(self.c.delete_resource_policy, stale,
                       ResourceArn=self.arn, ExpectedRevisionId=rev1)
        self.assertEqual(self.get()["RevisionId"], rev2)

    def test_no_policy_expected(self):
        # NO_POLICY: attach only if none is there (the API reference)
        rev = self.put(ExpectedRevisionId="NO_POLICY")
        self.assertEqual(self.get()["RevisionId"], rev)
        self.not_found(self.c.put_resource_policy,
                       NOT_FOUND + "Requested policy update expecting none "
                       "to be present for table %s, but a policy exists "
                       "with revision id %s." % (self.name, rev),
                       ResourceArn=self.arn, Policy=doc("dynamodb:Query"),
                       ExpectedRevisionId="NO_POLICY")

    def test_get_and_delete_without_policy(self):
        self.not_found(self.c.get_resource_policy, NOT_FOUND + self.arn,
                       ResourceArn=self.arn)
        # a table that never had one: 200 with nothing (DDB-TABLE-205)
        r = self.c.delete_resource_policy(ResourceArn=self.arn)
        self.assertNotIn("RevisionId", r)
        # an ExpectedRevisionId with no policy there
        self.assertError(self.c.delete_resource_policy,
                         "PolicyNotFoundException", ResourceArn=self.arn,
                         ExpectedRevisionId="1700000000000")

    def test_delete(self):
        rev = self.put()
        r = self.c.delete_resource_policy(ResourceArn=self.arn,
                                          ExpectedRevisionId=rev)
        self.assertEqual(r["RevisionId"], rev)      # the removed one's
        self.not_found(self.c.get_resource_policy, NOT_FOUND + self.arn,
                       ResourceArn=self.arn)
        # again: still 200, now echoing the deletion's RevisionId
        again = self.c.delete_resource_policy(ResourceArn=self.arn)
        self.assertRegex(again["RevisionId"], r"^\d{13}$")
        self.assertGreater(int(again["RevisionId"]), int(rev))
        # and a new policy after the deletion gets a later id still
        self.assertGreater(int(self.put(ExpectedRevisionId="NO_POLICY")),
                           int(again["RevisionId"]))


class TestCanonicalForm(PolicyCase):
    """DDB-TABLE-208, -351..-355: Get returns a canonical document."""

    def test_canonical_read_back(self):
        sent = {
            "Statement": {                          # an object: a list
                "Resource": [self.arn],
                "Action": ["dynamodb:GetItem"],
                "Principal": {"AWS": [ACCOUNT, ROOT]},
                "Effect": "allow",
                "Sid": "Read"},
            "Version": "2012-10-17"}
        self.put(json.dumps(sent, indent=2))
        self.assertEqual(
            self.get()["Policy"],
            '{"Version":"2012-10-17","Statement":[{"Sid":"Read",'
            '"Effect":"Allow","Principal":{"AWS":"%s"},'
            '"Action":"dynamodb:GetItem","Resource":"%s"}]}'
            % (ROOT, self.arn))
        # lists of two stay lists
        self.put(doc(resource=[self.arn, self.arn + "/index/*"]))
        st = json.loads(self.get()["Policy"])["Statement"][0]
        self.assertEqual(st["Resource"], [self.arn, self.arn + "/index/*"])

    def test_version_default_is_not_equivalent(self):
        # no Version: reads back as 2008-10-17, yet re-putting what Get
        # gave is a change (DDB-TABLE-354)
        d = json.loads(doc())
        del d["Version"]
        rev = self.put(json.dumps(d))
        got = self.get()["Policy"]
        self.assertEqual(json.loads(got)["Version"], "2008-10-17")
        self.assertEqual(self.put(json.dumps(d)), rev)
        self.assertNotEqual(self.put(got), rev)


class TestValidation(PolicyCase):
    """DDB-TABLE-211, -356, -457 and -210."""

    def invalid(self, policy, message=None, prefix=None):
        self.assertValidation(self.c.put_resource_policy, message, prefix,
                              ResourceArn=self.arn, Policy=policy)

    def test_documents(self):
        bad = "One or more parameter values were invalid: Invalid policy " \
              "document: "
        self.invalid("not json", bad + "This policy contains invalid Json")
        self.invalid("null", bad + "This text appears not to be a policy")
        self.invalid("{}", bad + "Syntax error at position (1,3)")
        self.invalid(json.dumps({"Version": "2012-10-17",
                                 "Statement": []}),
                     bad + "Could not parse the policy: Statement is empty!")
        d = json.loads(doc())
        del d["Statement"][0]["Action"]
        self.invalid(json.dumps(d), bad + "Missing required field Action")
        self.invalid(doc("dynamodb:Fly"), bad + "The following action "
                     "names are invalid: \"dynamodb:Fly\"")
        two = json.loads(doc())
        two["Statement"] = [dict(two["Statement"][0], Sid="a"),
                            dict(two["Statement"][0], Sid="a")]
        self.invalid(json.dumps(two), bad + "The Statement Ids in the "
                     "policy are not unique")
        self.invalid(doc(principal={"AWS": "not-an-account"}),
                     "One or more parameter values were invalid: Invalid "
                     "principal in policy document.")
        self.invalid(doc(principal={"AWS": "*"}), "Resource-based policy "
                     "grants unbounded access in one or more elements. "
                     "Please revise the policy to ensure least-privilege "
                     "form of access")
        # with a condition, everyone may be named
        self.put(doc(principal="*", Condition={"StringEquals": {
            "aws:PrincipalAccount": ACCOUNT}}))

    def test_size(self):
        # 20 KB at most (DDB-TABLE-211: ValidationException, not
        # LimitExceeded); whitespace counts, the read-back is minified
        padded = doc()[:-1] + " " * (20480 - len(doc())) + "}"
        self.assertEqual(len(padded), 20480)
        self.put(padded)
        self.assertLess(len(self.get()["Policy"]), 300)
        self.invalid(padded + " ", "One or more parameter values were "
                     "invalid: Maximum policy size of 20480 bytes exceeded")

    def test_self_lockout(self):
        deny = json.dumps({"Version": "2012-10-17", "Statement": [{
            "Effect": "Deny", "Principal": {"AWS": ACCOUNT},
            "Action": "dynamodb:*ResourcePolicy", "Resource": self.arn}]})
        self.assertError(self.c.put_resource_policy, "AccessDeniedException",
                         "The new resource policy will not allow you to "
                         "update the resource policy in the future.",
                         ResourceArn=self.arn, Policy=deny)
        self.put(deny, ConfirmRemoveSelfResourceAccess=True)
        self.assertIn("Deny", self.get()["Policy"])


class TestResources(PolicyCase):
    """Which ResourceArn is accepted (DDB-TABLE-212, -214, -234) and
    CreateTable's ResourcePolicy."""

    def test_missing_tables(self):
        # moto's AWS-verified unknown-resource cases
        for fn, kw in ((self.c.put_resource_policy, {"Policy": doc()}),
                       (self.c.get_resource_policy, {}),
                       (self.c.delete_resource_policy, {})):
            self.assertError(fn, "ResourceNotFoundException",
                             "Requested resource not found: Table: %s_x not "
                             "found" % self.name,
                             ResourceArn=self.arn + "_x", **kw)
        # a deleted table's ARN, too: Delete is not idempotent across it
        self.put()
        self.c.delete_table(TableName=self.name)
        self.assertError(self.c.delete_resource_policy,
                         "ResourceNotFoundException", ResourceArn=self.arn)

    def test_bad_arns(self):
        raw = unvalidated_client()
        inv = "One or more parameter values were invalid: "
        self.assertValidation(raw.get_resource_policy, inv + "ARNs must "
                              "start with 'arn:': " + self.name,
                              ResourceArn=self.name)
        idx = self.arn + "/index/gsi"
        self.assertValidation(raw.get_resource_policy, inv + "Invalid "
                              "resource arn provided, only table or stream "
                              "is accepted. Provided resource arn: " + idx,
                              ResourceArn=idx)
        other = self.arn.replace(REGION, "eu-west-3")
        self.assertValidation(raw.get_resource_policy, inv + "Invalid "
                              "resource Arn: " + other, ResourceArn=other)
        acct = self.arn.replace(ACCOUNT, "123456789012")
        if ACCOUNT != "123456789012":
            self.assertValidation(raw.get_resource_policy,
                                  "This action is only supported by "
                                  "accounts that match the resource "
                                  "owner\u2019s account.",
                                  ResourceArn=acct)

    def test_create_table_with_policy(self):
        name = unique_name("polc")
        arn = "arn:aws:dynamodb:%s:%s:table/%s" % (REGION, ACCOUNT, name)
        self._tables.append(name)
        create_table(self.c, name, ResourcePolicy=doc(resource=arn))
        got = self.c.get_resource_policy(ResourceArn=arn)
        self.assertRegex(got["RevisionId"], r"^\d{13}$")
        self.assertEqual(json.loads(got["Policy"])["Statement"][0][
            "Resource"], arn)
        # a bad one refuses the table
        bad = unique_name("polc")
        self.assertValidation(self.c.create_table, prefix="One or more "
                              "parameter values were invalid: Invalid "
                              "policy document",
                              TableName=bad, BillingMode="PAY_PER_REQUEST",
                              AttributeDefinitions=[{"AttributeName": "pk",
                                                     "AttributeType": "S"}],
                              KeySchema=[{"AttributeName": "pk",
                                          "KeyType": "HASH"}],
                              ResourcePolicy="{}")
        self.assertNotIn(bad, self.c.list_tables()["TableNames"])
        delete_table_quietly(self.c, name)
