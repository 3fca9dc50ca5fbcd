// SPDX-License-Identifier: MIT
// streams.test.mjs - DynamoDB Streams and Time to Live through the JS SDK
// v3: @aws-sdk/client-dynamodb-streams on the same endpoint as
// @aws-sdk/client-dynamodb (ListStreams, DescribeStream, GetShardIterator,
// GetRecords, the records of each view type, errors as modeled classes),
// and UpdateTimeToLive/DescribeTimeToLive, including what the JS SDK sends
// unchecked (nubo-db/dynamodb-conformance tier2/streams and tier2/ttl run
// the same calls against DynamoDB).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  CreateTableCommand, PutItemCommand, UpdateItemCommand, DeleteItemCommand,
  UpdateTimeToLiveCommand, DescribeTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import {
  DynamoDBStreamsClient, ListStreamsCommand, DescribeStreamCommand,
  GetShardIteratorCommand, GetRecordsCommand,
} from '@aws-sdk/client-dynamodb-streams';
import {
  ENDPOINT, REGION, makeClient, uniqueName, waitActive, deleteTableQuietly,
  catchError,
} from './common.mjs';

const client = makeClient();
const streams = new DynamoDBStreamsClient({ endpoint: ENDPOINT,
  region: REGION, maxAttempts: 1 });
const tables = [];

async function streamTable(view) {
  const name = uniqueName('jss');
  tables.push(name);
  const r = await client.send(new CreateTableCommand({
    TableName: name,
    AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
    KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
    BillingMode: 'PAY_PER_REQUEST',
    StreamSpecification: { StreamEnabled: true, StreamViewType: view },
  }));
  await waitActive(client, name);
  return { name, arn: r.TableDescription.LatestStreamArn };
}

// Every record of a stream: each shard from TRIM_HORIZON until a page is
// empty or the shard ends.
async function readStream(arn) {
  const d = await streams.send(new DescribeStreamCommand({ StreamArn: arn }));
  const out = [];
  for (const shard of d.StreamDescription.Shards) {
    let it = (await streams.send(new GetShardIteratorCommand({
      StreamArn: arn, ShardId: shard.ShardId,
      ShardIteratorType: 'TRIM_HORIZON' }))).ShardIterator;
    while (it) {
      const r = await streams.send(new GetRecordsCommand({
        ShardIterator: it }));
      out.push(...r.Records);
      if (r.Records.length === 0) break;
      it = r.NextShardIterator;
    }
  }
  return out;
}

async function writeInsertModifyRemove(name) {
  await client.send(new PutItemCommand({ TableName: name,
    Item: { pk: { S: 'k' }, data: { S: 'before' } } }));
  await client.send(new UpdateItemCommand({ TableName: name,
    Key: { pk: { S: 'k' } }, UpdateExpression: 'SET #d = :v',
    ExpressionAttributeNames: { '#d': 'data' },
    ExpressionAttributeValues: { ':v': { S: 'after' } } }));
  await client.send(new DeleteItemCommand({ TableName: name,
    Key: { pk: { S: 'k' } } }));
}

after(async () => {
  for (const t of tables) await deleteTableQuietly(client, t);
  client.destroy();
  streams.destroy();
});

test('records of every view type', async () => {
  for (const view of ['KEYS_ONLY', 'NEW_IMAGE', 'OLD_IMAGE',
    'NEW_AND_OLD_IMAGES']) {
    const { name, arn } = await streamTable(view);
    const listed = await streams.send(new ListStreamsCommand({
      TableName: name }));
    assert.deepEqual(listed.Streams.map((s) => s.StreamArn), [arn]);
    await writeInsertModifyRemove(name);
    const recs = await readStream(arn);
    assert.deepEqual(recs.map((r) => r.eventName),
      ['INSERT', 'MODIFY', 'REMOVE'], view);
    const hasNew = view === 'NEW_IMAGE' || view === 'NEW_AND_OLD_IMAGES';
    const hasOld = view === 'OLD_IMAGE' || view === 'NEW_AND_OLD_IMAGES';
    for (const [i, r] of recs.entries()) {
      assert.equal(r.eventSource, 'aws:dynamodb');
      assert.equal(r.dynamodb.StreamViewType, view);
      assert.deepEqual(r.dynamodb.Keys, { pk: { S: 'k' } });
      assert.match(r.dynamodb.SequenceNumber, /^[0-9]{21,40}$/);
      // JS wants epoch-number timestamps: it parsed this one into a Date
      assert.ok(r.dynamodb.ApproximateCreationDateTime instanceof Date);
      assert.equal(r.dynamodb.NewImage !== undefined, hasNew && i < 2, view);
      assert.equal(r.dynamodb.OldImage !== undefined, hasOld && i > 0, view);
    }
    if (hasNew) assert.equal(recs[1].dynamodb.NewImage.data.S, 'after');
    if (hasOld) assert.equal(recs[1].dynamodb.OldImage.data.S, 'before');
  }
});

test('errors are the modeled classes', async () => {
  const { arn } = await streamTable('KEYS_ONLY');
  const d = await streams.send(new DescribeStreamCommand({ StreamArn: arn }));
  const shard = d.StreamDescription.Shards[0].ShardId;
  let e = await catchError(() => streams.send(new GetShardIteratorCommand({
    StreamArn: arn, ShardId: 'shardId-00000000000000000000-00000000',
    ShardIteratorType: 'LATEST' })));
  assert.equal(e.name, 'ResourceNotFoundException');
  const gone = arn.replace(/stream\/.*$/, 'stream/2001-01-01T00:00:00.000');
  e = await catchError(() => streams.send(new DescribeStreamCommand({
    StreamArn: gone })));
  assert.equal(e.name, 'ResourceNotFoundException');
  assert.equal(e.message,
    `Requested resource not found: Stream: ${gone} not found`);
  e = await catchError(() => streams.send(new DescribeStreamCommand({
    StreamArn: 'fake-stream' })));
  assert.equal(e.name, 'ValidationException');
  assert.equal(e.message, 'Invalid StreamArn');
  e = await catchError(() => streams.send(new GetShardIteratorCommand({
    StreamArn: arn, ShardId: shard, ShardIteratorType: 'AT_SEQUENCE_NUMBER',
  })));
  assert.equal(e.name, 'ValidationException');
  // JS validates nothing client-side: the server refuses Limit 1001
  const it = (await streams.send(new GetShardIteratorCommand({
    StreamArn: arn, ShardId: shard, ShardIteratorType: 'LATEST' })))
    .ShardIterator;
  e = await catchError(() => streams.send(new GetRecordsCommand({
    ShardIterator: it, Limit: 1001 })));
  assert.equal(e.name, 'ValidationException');
  assert.match(e.message, /at 'limit' failed to satisfy constraint/);
});

test('Time to Live: enable, describe, refuse bad input', async () => {
  const name = uniqueName('jst');
  tables.push(name);
  await client.send(new CreateTableCommand({
    TableName: name,
    AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
    KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
    BillingMode: 'PAY_PER_REQUEST' }));
  await waitActive(client, name);
  let d = await client.send(new DescribeTimeToLiveCommand({
    TableName: name }));
  assert.deepEqual(d.TimeToLiveDescription, { TimeToLiveStatus: 'DISABLED' });
  // an empty AttributeName reaches the server from JS (the conformance
  // suite's "rejects empty attribute name")
  let e = await catchError(() => client.send(new UpdateTimeToLiveCommand({
    TableName: name,
    TimeToLiveSpecification: { Enabled: true, AttributeName: '' } })));
  assert.equal(e.name, 'ValidationException');
  assert.equal(e.message, "1 validation error detected: Value '' at "
    + "'timeToLiveSpecification.attributeName' failed to satisfy "
    + 'constraint: Member must have length greater than or equal to 1');
  const r = await client.send(new UpdateTimeToLiveCommand({
    TableName: name,
    TimeToLiveSpecification: { Enabled: true, AttributeName: 'ttl' } }));
  assert.deepEqual(r.TimeToLiveSpecification,
    { Enabled: true, AttributeName: 'ttl' });
  d = await client.send(new DescribeTimeToLiveCommand({ TableName: name }));
  assert.deepEqual(d.TimeToLiveDescription,
    { TimeToLiveStatus: 'ENABLED', AttributeName: 'ttl' });
  e = await catchError(() => client.send(new DescribeTimeToLiveCommand({
    TableName: '_conformance_nonexistent_table' })));
  assert.equal(e.name, 'ResourceNotFoundException');
});
