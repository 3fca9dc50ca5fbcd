// SPDX-License-Identifier: MIT
// resources.test.mjs - @aws-sdk/client-dynamodb against the server: the
// dynamodb-conformance suite's tagging cases (tags/basic.test.ts, written
// against DynamoDB), a backup and restore with ListBackups' time range at
// millisecond precision (the JS SDK sends fractional seconds), resource
// policies, DescribeLimits and DescribeEndpoints, and the empty answers
// for global tables and Kinesis destinations, point-in-time recovery
// (the latest restorable time; the exact seconds are test_pitr.py's, on
// the virtual clock). Expected answers as in test_tags.py,
// test_backups.py, test_pitr.py, test_policy.py and test_external.py.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  DescribeTableCommand, PutItemCommand, QueryCommand, TagResourceCommand,
  UntagResourceCommand, ListTagsOfResourceCommand, CreateBackupCommand,
  DescribeBackupCommand, ListBackupsCommand, DeleteBackupCommand,
  RestoreTableFromBackupCommand, PutResourcePolicyCommand,
  GetResourcePolicyCommand, DeleteResourcePolicyCommand,
  DescribeLimitsCommand, DescribeEndpointsCommand, ListGlobalTablesCommand,
  DescribeKinesisStreamingDestinationCommand, UpdateTableCommand,
  UpdateContinuousBackupsCommand, DescribeContinuousBackupsCommand,
  RestoreTableToPointInTimeCommand, InvalidRestoreTimeException,
  BackupNotFoundException, PolicyNotFoundException,
} from '@aws-sdk/client-dynamodb';
import {
  ENDPOINT, REGION, makeClient, uniqueName, createTable, waitActive,
  deleteTableQuietly, catchError,
} from './common.mjs';

const client = makeClient();
const table = uniqueName('jsr');
const others = [];
let arn;

before(async () => {
  await createTable(client, table);
  const { Table: t } = await client.send(new DescribeTableCommand({ TableName: table }));
  arn = t.TableArn;
});

after(async () => {
  for (const t of [table, ...others]) await deleteTableQuietly(client, t);
  client.destroy();
});

const listTags = async () =>
  (await client.send(new ListTagsOfResourceCommand({ ResourceArn: arn }))).Tags;
const sortTags = (tags) => [...tags].sort((a, b) => (a.Key < b.Key ? -1 : 1));

test('tags: add, list, add more, untag, overwrite (conformance tags/basic)', async () => {
  const r = await client.send(new TagResourceCommand({ ResourceArn: arn,
    Tags: [{ Key: 'env', Value: 'test' }, { Key: 'project', Value: 'conformity' }] }));
  assert.equal(r.$metadata.httpStatusCode, 200);
  assert.deepEqual(sortTags(await listTags()),
    [{ Key: 'env', Value: 'test' }, { Key: 'project', Value: 'conformity' }]);
  await client.send(new TagResourceCommand({ ResourceArn: arn,
    Tags: [{ Key: 'team', Value: 'platform' }] }));
  assert.equal((await listTags()).length, 3);
  await client.send(new UntagResourceCommand({ ResourceArn: arn, TagKeys: ['team'] }));
  assert.deepEqual((await listTags()).map((t) => t.Key).sort(), ['env', 'project']);
  await client.send(new UntagResourceCommand({ ResourceArn: arn, TagKeys: ['project'] }));
  assert.deepEqual((await listTags()).map((t) => t.Key), ['env']);
  await client.send(new TagResourceCommand({ ResourceArn: arn,
    Tags: [{ Key: 'env', Value: 'production' }] }));
  assert.deepEqual(await listTags(), [{ Key: 'env', Value: 'production' }]);
});

test('tags: invalid and unknown ARNs (conformance tags/basic)', async () => {
  let e = await catchError(() => client.send(new TagResourceCommand({
    ResourceArn: 'not-a-valid-arn', Tags: [{ Key: 'env', Value: 'test' }] })));
  assert.equal(e.name, 'ValidationException');
  if (!ENDPOINT) return;
  // The suite expects AccessDenied for account 000000000000, another
  // account than its own to DynamoDB; here that account is the server's,
  // so a missing table of it is not found, and another account's denied.
  const own = arn.split(':')[4];
  e = await catchError(() => client.send(new ListTagsOfResourceCommand({
    ResourceArn: `arn:aws:dynamodb:${REGION}:${own}:table/nonexistent_table_xyz` })));
  assert.equal(e.name, 'ResourceNotFoundException');
  const foreign = own === '111111111111' ? '222222222222' : '111111111111';
  e = await catchError(() => client.send(new ListTagsOfResourceCommand({
    ResourceArn: `arn:aws:dynamodb:${REGION}:${foreign}:table/nonexistent_table_xyz` })));
  assert.equal(e.name, 'AccessDeniedException');
});

test('backups: create, list by time range in ms, restore, delete', async () => {
  for (let i = 0; i < 4; i++) {
    await client.send(new PutItemCommand({ TableName: table,
      Item: { pk: { S: `k${i}` }, n: { N: String(i) } } }));
  }
  const made = [];
  for (let i = 0; i < 3; i++) {
    const { BackupDetails: d } = await client.send(new CreateBackupCommand({
      TableName: table, BackupName: `js-backup-${i}` }));
    assert.equal(d.BackupStatus, 'CREATING');
    assert.ok(d.BackupCreationDateTime instanceof Date);
    made.push(d);
    await new Promise((res) => setTimeout(res, 5));   // distinct ms
  }
  const arns = made.map((d) => d.BackupArn);
  try {
    const all = await client.send(new ListBackupsCommand({ TableName: table }));
    assert.deepEqual(all.BackupSummaries.map((b) => b.BackupArn), arns);
    // [lower, upper): the second one only, to the millisecond
    const r = await client.send(new ListBackupsCommand({ TableName: table,
      TimeRangeLowerBound: made[1].BackupCreationDateTime,
      TimeRangeUpperBound: made[2].BackupCreationDateTime }));
    assert.deepEqual(r.BackupSummaries.map((b) => b.BackupArn), [arns[1]]);
    const p = await client.send(new ListBackupsCommand({ TableName: table, Limit: 2 }));
    assert.equal(p.LastEvaluatedBackupArn, arns[1]);

    const { BackupDescription: bd } = await client.send(new DescribeBackupCommand({
      BackupArn: arns[0] }));
    assert.equal(bd.BackupDetails.BackupStatus, 'AVAILABLE');
    assert.equal(bd.SourceTableDetails.ItemCount, 4);

    const target = uniqueName('jsrr');
    others.push(target);
    const { TableDescription: td } = await client.send(new RestoreTableFromBackupCommand({
      TargetTableName: target, BackupArn: arns[0], BillingModeOverride: 'PROVISIONED',
      ProvisionedThroughputOverride: { ReadCapacityUnits: 4, WriteCapacityUnits: 2 } }));
    assert.equal(td.RestoreSummary.SourceBackupArn, arns[0]);
    assert.equal(td.RestoreSummary.RestoreInProgress, true);
    const t = await waitActive(client, target);
    assert.equal(t.ProvisionedThroughput.ReadCapacityUnits, 4);
    assert.equal(t.ItemCount, 4);
    const q = await client.send(new QueryCommand({ TableName: target,
      KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': { S: 'k2' } } }));
    assert.deepEqual(q.Items, [{ pk: { S: 'k2' }, n: { N: '2' } }]);
  } finally {
    for (const a of arns) {
      const { BackupDescription: d } = await client.send(new DeleteBackupCommand({ BackupArn: a }));
      assert.equal(d.BackupDetails.BackupStatus, 'DELETED');
    }
  }
  const e = await catchError(() => client.send(new DescribeBackupCommand({ BackupArn: arns[0] })));
  assert.ok(e instanceof BackupNotFoundException);
  assert.equal(e.message, `Backup not found: ${arns[0]}`);
});

test('point-in-time recovery: on, the latest time restored, a time before it refused', async () => {
  const { ContinuousBackupsDescription: d } = await client.send(new UpdateContinuousBackupsCommand({
    TableName: table, PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true } }));
  assert.equal(d.PointInTimeRecoveryDescription.PointInTimeRecoveryStatus, 'ENABLED');
  assert.equal(d.PointInTimeRecoveryDescription.RecoveryPeriodInDays, 35);
  await client.send(new PutItemCommand({ TableName: table,
    Item: { pk: { S: 'pitr' }, n: { N: '7' } } }));
  const { ContinuousBackupsDescription: c } = await client.send(
    new DescribeContinuousBackupsCommand({ TableName: table }));
  const p = c.PointInTimeRecoveryDescription;
  assert.ok(p.EarliestRestorableDateTime instanceof Date);
  assert.ok(p.LatestRestorableDateTime >= p.EarliestRestorableDateTime);
  const target = uniqueName('jsrp');
  others.push(target);
  const { TableDescription: td } = await client.send(new RestoreTableToPointInTimeCommand({
    SourceTableArn: arn, TargetTableName: target, UseLatestRestorableTime: true }));
  assert.equal(td.RestoreSummary.SourceTableArn, arn);
  await waitActive(client, target);
  const q = await client.send(new QueryCommand({ TableName: target,
    KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': { S: 'pitr' } } }));
  assert.deepEqual(q.Items, [{ pk: { S: 'pitr' }, n: { N: '7' } }]);
  const e = await catchError(() => client.send(new RestoreTableToPointInTimeCommand({
    SourceTableName: table, TargetTableName: uniqueName('jsrq'),
    RestoreDateTime: new Date(p.EarliestRestorableDateTime.getTime() - 60000) })));
  assert.ok(e instanceof InvalidRestoreTimeException);
});

test('resource policy: put, get, delete with revisions', async () => {
  const account = arn.split(':')[4];
  const Policy = JSON.stringify({ Version: '2012-10-17', Statement: [{
    Effect: 'Allow', Principal: { AWS: account }, Action: ['dynamodb:GetItem'], Resource: arn }] });
  const { RevisionId: rev } = await client.send(new PutResourcePolicyCommand({
    ResourceArn: arn, Policy, ExpectedRevisionId: 'NO_POLICY' }));
  const got = await client.send(new GetResourcePolicyCommand({ ResourceArn: arn }));
  assert.equal(got.RevisionId, rev);
  assert.equal(got.Policy, '{"Version":"2012-10-17","Statement":[{"Effect":"Allow",'
    + `"Principal":{"AWS":"arn:aws:iam::${account}:root"},"Action":"dynamodb:GetItem",`
    + `"Resource":"${arn}"}]}`);
  const d = await client.send(new DeleteResourcePolicyCommand({ ResourceArn: arn,
    ExpectedRevisionId: rev }));
  assert.equal(d.RevisionId, rev);
  const e = await catchError(() => client.send(new GetResourcePolicyCommand({ ResourceArn: arn })));
  assert.ok(e instanceof PolicyNotFoundException);
  assert.equal(e.message, `Resource-based policy not found for the provided ResourceArn: ${arn}`);
});

test('DescribeLimits and DescribeEndpoints', async () => {
  const l = await client.send(new DescribeLimitsCommand({}));
  assert.equal(l.AccountMaxReadCapacityUnits, 80000);
  assert.equal(l.TableMaxWriteCapacityUnits, 40000);
  const { Endpoints: eps } = await client.send(new DescribeEndpointsCommand({}));
  assert.equal(eps.length, 1);
  assert.equal(eps[0].CachePeriodInMinutes, 1440);
  if (ENDPOINT) assert.equal(eps[0].Address, new URL(ENDPOINT).host);
});

test('global tables and Kinesis: none here', async () => {
  const g = await client.send(new ListGlobalTablesCommand({}));
  assert.deepEqual(g.GlobalTables, []);
  const k = await client.send(new DescribeKinesisStreamingDestinationCommand({ TableName: table }));
  assert.deepEqual(k.KinesisDataStreamDestinations, []);
  const e = await catchError(() => client.send(new UpdateTableCommand({ TableName: table,
    ReplicaUpdates: [{ Create: { RegionName: 'us-west-2' } }] })));
  assert.equal(e.name, 'ValidationException');
  assert.match(e.message, /global tables are not supported locally/);
});
