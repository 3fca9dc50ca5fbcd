// SPDX-License-Identifier: MIT
// features.test.mjs - issue 4's features through the JS SDK v3: a GSI
// query, BatchWriteItem/BatchGetItem via DocumentClient, a cancelled
// TransactWriteItems (e.CancellationReasons) and a throttled write
// (e.name, e.ThrottlingReasons) injected through POST /shardlocal/faults;
// WarmThroughput (CreateTable, UpdateTable, DescribeTable) and the
// key-schema messages of multi-attribute GSI keys.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  CreateTableCommand, PutItemCommand, QueryCommand,
  TransactWriteItemsCommand, GetItemCommand, DescribeTableCommand,
  UpdateTableCommand,
} from '@aws-sdk/client-dynamodb';
import {
  DynamoDBDocumentClient, BatchWriteCommand, BatchGetCommand,
} from '@aws-sdk/lib-dynamodb';
import {
  ENDPOINT, makeClient, uniqueName, waitActive, deleteTableQuietly,
  catchError,
} from './common.mjs';

const client = makeClient();
const doc = DynamoDBDocumentClient.from(client);
const table = uniqueName('jsf');      // pk, GSI on status
const hot = uniqueName('jsh');        // provisioned, for fault injection

before(async () => {
  await client.send(new CreateTableCommand({
    TableName: table,
    AttributeDefinitions: [
      { AttributeName: 'pk', AttributeType: 'S' },
      { AttributeName: 'status', AttributeType: 'S' },
      { AttributeName: 'at', AttributeType: 'N' }],
    KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
    BillingMode: 'PAY_PER_REQUEST',
    GlobalSecondaryIndexes: [{
      IndexName: 'status-at',
      KeySchema: [{ AttributeName: 'status', KeyType: 'HASH' },
        { AttributeName: 'at', KeyType: 'RANGE' }],
      Projection: { ProjectionType: 'ALL' } }],
  }));
  await waitActive(client, table);
  await client.send(new CreateTableCommand({
    TableName: hot,
    AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
    KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
    ProvisionedThroughput: { ReadCapacityUnits: 5, WriteCapacityUnits: 5 },
  }));
  await waitActive(client, hot);
});

after(async () => {
  if (ENDPOINT) {
    await fetch(`${ENDPOINT}/shardlocal/faults`, { method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ clear: true, table: hot }) }).catch(() => {});
  }
  await deleteTableQuietly(client, table);
  await deleteTableQuietly(client, hot);
  client.destroy();
});

test('GSI query: sparse, ordered by the index sort key', async () => {
  for (const [pk, status, at] of [['o1', 'PENDING', 3], ['o2', 'DONE', 1],
    ['o3', 'PENDING', 1], ['o4', null, 2]]) {
    const Item = { pk: { S: pk } };
    if (status) {
      Item.status = { S: status };
      Item.at = { N: String(at) };
    }
    await client.send(new PutItemCommand({ TableName: table, Item }));
  }
  const r = await client.send(new QueryCommand({
    TableName: table, IndexName: 'status-at',
    KeyConditionExpression: '#s = :p',
    ExpressionAttributeNames: { '#s': 'status' },
    ExpressionAttributeValues: { ':p': { S: 'PENDING' } } }));
  assert.equal(r.Count, 2);
  assert.deepEqual(r.Items.map((i) => i.pk.S), ['o3', 'o1']);
  // ConsistentRead is rejected on a GSI.
  const e = await catchError(() => client.send(new QueryCommand({
    TableName: table, IndexName: 'status-at', ConsistentRead: true,
    KeyConditionExpression: '#s = :p',
    ExpressionAttributeNames: { '#s': 'status' },
    ExpressionAttributeValues: { ':p': { S: 'PENDING' } } })));
  assert.equal(e.name, 'ValidationException');
  assert.equal(e.message,
    'Consistent reads are not supported on global secondary indexes');
});

test('BatchWriteCommand / BatchGetCommand (DocumentClient)', async () => {
  const items = Array.from({ length: 25 }, (_, i) => ({
    pk: `b${i}`, n: i, tags: new Set(['x', `t${i}`]), nested: { i } }));
  const w = await doc.send(new BatchWriteCommand({ RequestItems: {
    [table]: items.map((Item) => ({ PutRequest: { Item } })) },
    ReturnConsumedCapacity: 'TOTAL' }));
  assert.deepEqual(w.UnprocessedItems, {});
  assert.equal(w.ConsumedCapacity[0].TableName, table);
  assert.equal(w.ConsumedCapacity[0].CapacityUnits, 25);
  const g = await doc.send(new BatchGetCommand({ RequestItems: {
    [table]: { Keys: [{ pk: 'b0' }, { pk: 'b7' }, { pk: 'missing' }],
      ConsistentRead: true } } }));
  assert.deepEqual(g.UnprocessedKeys, {});
  const got = g.Responses[table].sort((a, b) => a.n - b.n);
  assert.equal(got.length, 2);
  assert.deepEqual(got[1], { pk: 'b7', n: 7, tags: new Set(['x', 't7']),
    nested: { i: 7 } });
  // Deletes through the same command.
  await doc.send(new BatchWriteCommand({ RequestItems: { [table]: [
    { DeleteRequest: { Key: { pk: 'b0' } } }] } }));
  const g2 = await doc.send(new BatchGetCommand({ RequestItems: {
    [table]: { Keys: [{ pk: 'b0' }] } } }));
  assert.deepEqual(g2.Responses[table], []);
  // Duplicate keys are rejected, as DynamoDB does.
  const e = await catchError(() => doc.send(new BatchWriteCommand({
    RequestItems: { [table]: [{ PutRequest: { Item: { pk: 'd' } } },
      { PutRequest: { Item: { pk: 'd' } } }] } })));
  assert.equal(e.name, 'ValidationException');
  assert.equal(e.message,
    'Provided list of item keys contains duplicates');
});

test('TransactWriteItems cancellation: e.CancellationReasons', async () => {
  await client.send(new PutItemCommand({ TableName: table,
    Item: { pk: { S: 'tx1' }, v: { N: '1' } } }));
  const e = await catchError(() => client.send(new TransactWriteItemsCommand({
    TransactItems: [
      { Put: { TableName: table, Item: { pk: { S: 'tx2' } } } },
      { ConditionCheck: { TableName: table, Key: { pk: { S: 'tx1' } },
        ConditionExpression: 'v = :two',
        ExpressionAttributeValues: { ':two': { N: '2' } },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD' } }],
  })));
  assert.equal(e.name, 'TransactionCanceledException');
  assert.match(e.message, /\[None, ConditionalCheckFailed\]$/);
  assert.equal(e.CancellationReasons.length, 2);
  assert.equal(e.CancellationReasons[0].Code, 'None');
  assert.equal(e.CancellationReasons[1].Code, 'ConditionalCheckFailed');
  assert.deepEqual(e.CancellationReasons[1].Item,
    { pk: { S: 'tx1' }, v: { N: '1' } });
  const r = await client.send(new GetItemCommand({ TableName: table,
    Key: { pk: { S: 'tx2' } } }));
  assert.equal(r.Item, undefined);        // all or nothing
});

test('throttled write: e.name and e.ThrottlingReasons', {
  skip: !ENDPOINT && 'fault injection is a shardlocal endpoint',
}, async () => {
  const arn = (await client.send(new DescribeTableCommand({
    TableName: hot }))).Table.TableArn;
  const rule = await fetch(`${ENDPOINT}/shardlocal/faults`, {
    method: 'POST', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ table: hot, op: 'write',
      count: 1, cause: 'KeyRange' }) });
  assert.equal(rule.status, 200);
  const e = await catchError(() => client.send(new PutItemCommand({
    TableName: hot, Item: { pk: { S: 'k' } } })));
  assert.equal(e.name, 'ProvisionedThroughputExceededException');
  assert.equal(e.$metadata.httpStatusCode, 400);
  assert.equal(e.message, 'The level of configured provisioned throughput '
    + 'for the table was exceeded. Consider increasing your provisioning '
    + 'level with the UpdateTable API.');
  assert.deepEqual(e.ThrottlingReasons, [{
    reason: 'TableWriteKeyRangeThroughputExceeded', resource: arn }]);
  // Nothing was written; the rule is spent, the next write is served.
  const r = await client.send(new GetItemCommand({ TableName: hot,
    Key: { pk: { S: 'k' } } }));
  assert.equal(r.Item, undefined);
  await client.send(new PutItemCommand({ TableName: hot,
    Item: { pk: { S: 'k' } } }));
});

// WarmThroughput as the API reference and the developer guide's warm
// throughput page describe it: asked for in CreateTable, raised in
// UpdateTable (UPDATING, then ACTIVE), never lowered (DynamoDB's message
// recorded in us-east-1, 2026-10; tests/e2e/test_warm_throughput.py).
test('WarmThroughput: create, describe, raise, no decrease', async () => {
  const name = uniqueName('jsw');
  const warmOf = async () => (await client.send(new DescribeTableCommand({
    TableName: name }))).Table.WarmThroughput;
  try {
    await client.send(new CreateTableCommand({
      TableName: name, BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
      KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
      WarmThroughput: { ReadUnitsPerSecond: 13000,
        WriteUnitsPerSecond: 5000 } }));
    await waitActive(client, name);
    assert.deepEqual(await warmOf(), { ReadUnitsPerSecond: 13000,
      WriteUnitsPerSecond: 5000, Status: 'ACTIVE' });
    const u = await client.send(new UpdateTableCommand({ TableName: name,
      WarmThroughput: { WriteUnitsPerSecond: 6000 } }));
    assert.equal(u.TableDescription.TableStatus, 'ACTIVE');
    let w;
    for (let i = 0; i < 600; i++) {
      w = await warmOf();
      if (w.Status === 'ACTIVE') break;
      assert.equal(w.Status, 'UPDATING');
      await new Promise((res) => setTimeout(res, 50));
    }
    assert.deepEqual(w, { ReadUnitsPerSecond: 13000,
      WriteUnitsPerSecond: 6000, Status: 'ACTIVE' });
    const e = await catchError(() => client.send(new UpdateTableCommand({
      TableName: name, WarmThroughput: { WriteUnitsPerSecond: 5999 } })));
    assert.equal(e.name, 'ValidationException');
    assert.equal(e.message, 'One or more parameter values were invalid: '
      + 'Requested WriteUnitsPerSecond for WarmThroughput for table is '
      + 'lower than current WarmThroughput, decreasing WarmThroughput is '
      + 'not supported');
  } finally {
    await deleteTableQuietly(client, name);
  }
});

// Multi-attribute GSI keys: every HASH attribute before the RANGE ones and
// no name twice ("HASH.*precede.*RANGE", ".*same name": the Alternator
// suite's test_gsi_composite_keys.py, run against DynamoDB); a Query needs
// an equality on each HASH attribute ("HASH.*equality", the same suite).
test('multi-attribute GSI keys: the key schema and Query messages',
  async () => {
    const name = uniqueName('jsm');
    const defs = ['pk', 'a', 'b', 'c'].map((n) => ({ AttributeName: n,
      AttributeType: 'S' }));
    const create = (KeySchema) => client.send(new CreateTableCommand({
      TableName: name, BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: defs,
      KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
      GlobalSecondaryIndexes: [{ IndexName: 'gix', KeySchema,
        Projection: { ProjectionType: 'ALL' } }] }));
    const ks = (...k) => k.map(([n, t]) => ({ AttributeName: n, KeyType: t }));
    try {
      let e = await catchError(() => create(ks(['a', 'HASH'], ['b', 'RANGE'],
        ['c', 'HASH'])));
      assert.equal(e.name, 'ValidationException');
      assert.match(e.message, /HASH.*precede.*RANGE/);
      e = await catchError(() => create(ks(['a', 'HASH'], ['b', 'HASH'],
        ['a', 'RANGE'])));
      assert.equal(e.name, 'ValidationException');
      assert.match(e.message, /same name/);
      await create(ks(['a', 'HASH'], ['b', 'HASH'], ['c', 'RANGE']));
      await waitActive(client, name);
      await client.send(new PutItemCommand({ TableName: name, Item: {
        pk: { S: '1' }, a: { S: 'x' }, b: { S: 'y' }, c: { S: 'z' } } }));
      const r = await client.send(new QueryCommand({ TableName: name,
        IndexName: 'gix', KeyConditionExpression: 'a = :a AND b = :b',
        ExpressionAttributeValues: { ':a': { S: 'x' }, ':b': { S: 'y' } } }));
      assert.equal(r.Count, 1);
      for (const kce of ['a = :a', 'a = :a AND b > :b',
        'a = :a AND begins_with(b, :b)']) {
        e = await catchError(() => client.send(new QueryCommand({
          TableName: name, IndexName: 'gix', KeyConditionExpression: kce,
          ExpressionAttributeValues: kce.includes(':b')
            ? { ':a': { S: 'x' }, ':b': { S: 'y' } }
            : { ':a': { S: 'x' } } })));
        assert.equal(e.name, 'ValidationException', kce);
        assert.match(e.message, /HASH.*equality/, kce);
      }
    } finally {
      await deleteTableQuietly(client, name);
    }
  });
