// SPDX-License-Identifier: MIT
// client.test.mjs - @aws-sdk/client-dynamodb against the server: tables,
// items, paginateQuery, and errors as the SDK surfaces them.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  DescribeTableCommand, PutItemCommand, GetItemCommand, UpdateItemCommand,
  DeleteItemCommand, QueryCommand, ScanCommand, paginateQuery,
  ResourceNotFoundException, ConditionalCheckFailedException,
} from '@aws-sdk/client-dynamodb';
import {
  ENDPOINT, ON_DYNALITE, REGION, makeClient, uniqueName, createTable,
  deleteTableQuietly, catchError,
} from './common.mjs';

const client = makeClient();
const table = uniqueName('jsc');

before(async () => {
  await createTable(client, table, ['pk', 'S'], ['sk', 'N']);
});

after(async () => {
  await deleteTableQuietly(client, table);
  client.destroy();
});

test('describe table', async () => {
  const { Table: t } = await client.send(new DescribeTableCommand({ TableName: table }));
  assert.equal(t.TableName, table);
  assert.equal(t.TableStatus, 'ACTIVE');
  assert.ok(t.CreationDateTime instanceof Date);
  assert.ok(Math.abs(t.CreationDateTime.getTime() - Date.now()) < 600000);
  if (ENDPOINT) {
    assert.equal(t.TableArn, `arn:aws:dynamodb:${REGION}:000000000000:table/${table}`);
  }
  assert.deepEqual(t.KeySchema, [
    { AttributeName: 'pk', KeyType: 'HASH' },
    { AttributeName: 'sk', KeyType: 'RANGE' }]);
  assert.equal(t.BillingModeSummary.BillingMode, 'PAY_PER_REQUEST');
});

test('put, get, update, delete', async () => {
  const Key = { pk: { S: 'item' }, sk: { N: '1' } };
  await client.send(new PutItemCommand({ TableName: table,
    Item: { ...Key, s: { S: 'caf\u00e9 \u{1F600}' }, n: { N: '1.50' },
      b: { B: new Uint8Array([0, 1, 255]) }, l: { L: [{ BOOL: true }, { NULL: true }] } } }));
  let r = await client.send(new GetItemCommand({ TableName: table, Key, ConsistentRead: true }));
  assert.equal(r.Item.s.S, 'caf\u00e9 \u{1F600}');
  if (!ON_DYNALITE) assert.equal(r.Item.n.N, '1.5');     // canonical
  assert.deepEqual(Array.from(r.Item.b.B), [0, 1, 255]);
  assert.deepEqual(r.Item.l, { L: [{ BOOL: true }, { NULL: true }] });

  r = await client.send(new UpdateItemCommand({ TableName: table, Key,
    UpdateExpression: 'SET n = n + :d, #t = :t REMOVE l',
    ExpressionAttributeNames: { '#t': 'tags' },
    ExpressionAttributeValues: { ':d': { N: '0.25' }, ':t': { SS: ['x', 'y'] } },
    ReturnValues: 'ALL_NEW' }));
  assert.equal(r.Attributes.n.N, '1.75');
  assert.deepEqual([...r.Attributes.tags.SS].sort(), ['x', 'y']);
  assert.equal(r.Attributes.l, undefined);

  r = await client.send(new DeleteItemCommand({ TableName: table, Key,
    ReturnValues: 'ALL_OLD' }));
  assert.equal(r.Attributes.n.N, '1.75');
  r = await client.send(new GetItemCommand({ TableName: table, Key, ConsistentRead: true }));
  assert.equal(r.Item, undefined);
});

test('paginateQuery', async () => {
  for (let i = 0; i < 9; i++) {
    await client.send(new PutItemCommand({ TableName: table,
      Item: { pk: { S: 'pg' }, sk: { N: String(i) } } }));
  }
  const counts = [];
  const sks = [];
  const pages = paginateQuery({ client, pageSize: 4 }, {
    TableName: table, KeyConditionExpression: 'pk = :p',
    ExpressionAttributeValues: { ':p': { S: 'pg' } } });
  for await (const page of pages) {
    counts.push(page.Count);
    sks.push(...page.Items.map((it) => Number(it.sk.N)));
    assert.ok(counts.length < 10, 'paginator does not stop');
  }
  assert.deepEqual(counts, [4, 4, 1]);
  assert.deepEqual(sks, [0, 1, 2, 3, 4, 5, 6, 7, 8]);
  const desc = await client.send(new QueryCommand({ TableName: table,
    KeyConditionExpression: 'pk = :p AND sk BETWEEN :a AND :b',
    ExpressionAttributeValues: { ':p': { S: 'pg' }, ':a': { N: '2' }, ':b': { N: '4' } },
    ScanIndexForward: false }));
  assert.deepEqual(desc.Items.map((it) => it.sk.N), ['4', '3', '2']);
  assert.equal(desc.LastEvaluatedKey, undefined);
});

test('ResourceNotFoundException', async () => {
  const e = await catchError(() => client.send(new GetItemCommand({
    TableName: uniqueName('missing'), Key: { pk: { S: 'a' } } })));
  assert.ok(e instanceof ResourceNotFoundException, e.name);
  assert.equal(e.name, 'ResourceNotFoundException');
  assert.equal(e.message, 'Requested resource not found');
  assert.equal(e.$metadata.httpStatusCode, 400);
});

test('ValidationException name and message', async () => {
  let e = await catchError(() => client.send(new GetItemCommand({
    TableName: table, Key: { pk: { S: 'a' } } })));
  assert.equal(e.name, 'ValidationException');
  assert.equal(e.message, 'The provided key element does not match the schema');
  // JS validates nothing client-side: the server must catch these.
  e = await catchError(() => client.send(new ScanCommand({
    TableName: table, Limit: 0 })));
  assert.equal(e.name, 'ValidationException');
  assert.equal(e.message, "1 validation error detected: Value '0' at 'limit' " +
    'failed to satisfy constraint: Member must have value greater than or equal to 1');
  e = await catchError(() => client.send(new PutItemCommand({
    TableName: table, Item: { pk: { S: 'a' }, sk: { N: 'abc' } } })));
  assert.equal(e.name, 'ValidationException');
  assert.equal(e.message, '1 validation error detected: The parameter cannot be converted to a numeric value: abc');
});

test('ConditionalCheckFailedException with Item', { skip: ON_DYNALITE &&
    'dynalite lacks ReturnValuesOnConditionCheckFailure' }, async () => {
  const Item = { pk: { S: 'ccf' }, sk: { N: '0' }, v: { N: '7' } };
  await client.send(new PutItemCommand({ TableName: table, Item }));
  const e = await catchError(() => client.send(new PutItemCommand({
    TableName: table, Item, ConditionExpression: 'attribute_not_exists(pk)',
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD' })));
  assert.ok(e instanceof ConditionalCheckFailedException, e.name);
  assert.equal(e.message, 'The conditional request failed');
  assert.deepEqual(e.Item, Item);      // raw AttributeValue JSON
});

test('ConditionalCheckFailedException without Item', async () => {
  const Item = { pk: { S: 'ccf2' }, sk: { N: '0' } };
  await client.send(new PutItemCommand({ TableName: table, Item }));
  const e = await catchError(() => client.send(new PutItemCommand({
    TableName: table, Item, ConditionExpression: 'attribute_not_exists(pk)' })));
  assert.equal(e.name, 'ConditionalCheckFailedException');
  assert.equal(e.message, 'The conditional request failed');
  assert.equal(e.Item, undefined);
});

test('raw UTF-8 is counted in bytes', async () => {
  // JS sends raw UTF-8: 1000 x U+00E9 is 2000 bytes, so 2 write units.
  const r = await client.send(new PutItemCommand({ TableName: table,
    Item: { pk: { S: 'utf8' }, sk: { N: '0' }, d: { S: '\u00e9'.repeat(1000) } },
    ReturnConsumedCapacity: 'TOTAL' }));
  if (!ON_DYNALITE) assert.equal(r.ConsumedCapacity.CapacityUnits, 2);
  assert.equal(r.ConsumedCapacity.TableName, table);
  const g = await client.send(new GetItemCommand({ TableName: table,
    Key: { pk: { S: 'utf8' }, sk: { N: '0' } }, ConsistentRead: true }));
  assert.equal(g.Item.d.S, '\u00e9'.repeat(1000));
});

test('default retry settings: errors are answered once, no clock skew', async () => {
  // A Date header 4+ minutes off makes the SDK retry even validation
  // errors (wire-protocol.md section 3); a correct one keeps attempts at 1.
  const { DynamoDBClient } = await import('@aws-sdk/client-dynamodb');
  const dflt = new DynamoDBClient({ endpoint: ENDPOINT, region: REGION });
  try {
    const e = await catchError(() => dflt.send(new GetItemCommand({
      TableName: table, Key: { bad: { S: 'a' } } })));
    assert.equal(e.name, 'ValidationException');
    assert.equal(e.$metadata.attempts, 1);
    const ok = await dflt.send(new GetItemCommand({ TableName: table,
      Key: { pk: { S: 'none' }, sk: { N: '0' } } }));
    assert.equal(ok.$metadata.attempts, 1);
    assert.equal(ok.$metadata.httpStatusCode, 200);
    if (ENDPOINT) assert.ok(ok.$metadata.requestId, 'x-amzn-RequestId missing');
  } finally {
    dflt.destroy();
  }
});
