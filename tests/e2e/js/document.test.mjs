// SPDX-License-Identifier: MIT
// document.test.mjs - @aws-sdk/lib-dynamodb DocumentClient: native JS
// values (numbers, sets, nested objects) through put/get/query/update.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  DynamoDBDocumentClient, PutCommand, GetCommand, QueryCommand,
  UpdateCommand, DeleteCommand, paginateQuery, NumberValue,
} from '@aws-sdk/lib-dynamodb';
import {
  ON_DYNALITE, makeClient, uniqueName, createTable, deleteTableQuietly,
  catchError,
} from './common.mjs';

const client = makeClient();
const doc = DynamoDBDocumentClient.from(client);
// A second base client: DocumentClients built on one client share config.
const client2 = makeClient();
const docWrapped = DynamoDBDocumentClient.from(client2, {
  unmarshallOptions: { wrapNumbers: true } });
const table = uniqueName('jsd');

before(async () => {
  await createTable(client, table, ['id', 'S'], ['n', 'N']);
});

after(async () => {
  await deleteTableQuietly(client, table);
  client.destroy();
  client2.destroy();
});

test('native values round trip', async () => {
  const Item = {
    id: 'a', n: 1, str: 'h\u00e9llo \u{1F600}', int: 42, neg: -7.25,
    float: 0.1 + 0.2, t: true, f: false, nothing: null,
    list: [1, 'two', { three: 3 }, [4]], map: { inner: { deep: 'x' } },
    strs: new Set(['b', 'a']), nums: new Set([3, 1, 2]),
    bin: new Uint8Array([1, 2, 3]), empty: '',
  };
  await doc.send(new PutCommand({ TableName: table, Item }));
  const { Item: got } = await doc.send(new GetCommand({ TableName: table,
    Key: { id: 'a', n: 1 }, ConsistentRead: true }));
  assert.equal(got.str, Item.str);
  assert.equal(got.int, 42);
  assert.equal(got.neg, -7.25);
  assert.equal(got.float, 0.30000000000000004);
  assert.equal(got.t, true);
  assert.equal(got.f, false);
  assert.equal(got.nothing, null);
  assert.deepEqual(got.list, [1, 'two', { three: 3 }, [4]]);
  assert.deepEqual(got.map, { inner: { deep: 'x' } });
  assert.deepEqual([...got.strs].sort(), ['a', 'b']);
  assert.deepEqual([...got.nums].sort(), [1, 2, 3]);
  assert.deepEqual(Array.from(got.bin), [1, 2, 3]);
  assert.equal(got.empty, '');
});

test('big numbers with wrapNumbers', async () => {
  const big = '12345678901234567890123456789.123456789';
  await doc.send(new PutCommand({ TableName: table,
    Item: { id: 'big', n: 1, v: NumberValue.from(big), e: NumberValue.from('1E+2') } }));
  const { Item } = await docWrapped.send(new GetCommand({ TableName: table,
    Key: { id: 'big', n: 1 }, ConsistentRead: true }));
  assert.equal(Item.v.value, big);
  if (!ON_DYNALITE) assert.equal(Item.e.value, '100');
});

test('query and paginate', async () => {
  for (let i = 0; i < 5; i++) {
    await doc.send(new PutCommand({ TableName: table,
      Item: { id: 'q', n: i * 1.5, even: i % 2 === 0 } }));
  }
  const r = await doc.send(new QueryCommand({ TableName: table,
    KeyConditionExpression: 'id = :id AND n >= :min',
    FilterExpression: 'even = :t',
    ExpressionAttributeValues: { ':id': 'q', ':min': 1.5, ':t': true } }));
  assert.deepEqual(r.Items.map((it) => it.n), [3, 6]);
  assert.equal(r.Count, 2);
  assert.equal(r.ScannedCount, 4);
  const seen = [];
  for await (const page of paginateQuery({ client: doc, pageSize: 2 }, {
    TableName: table, KeyConditionExpression: 'id = :id',
    ExpressionAttributeValues: { ':id': 'q' } })) {
    seen.push(page.Items.map((it) => it.n));
    assert.ok(seen.length < 10, 'paginator does not stop');
  }
  assert.deepEqual(seen, [[0, 1.5], [3, 4.5], [6]]);
});

test('update with native values', async () => {
  await doc.send(new PutCommand({ TableName: table,
    Item: { id: 'u', n: 0, count: 1, tags: new Set(['a']) } }));
  const r = await doc.send(new UpdateCommand({ TableName: table,
    Key: { id: 'u', n: 0 },
    UpdateExpression: 'ADD #c :inc, tags :more SET info = :info, lst = list_append(if_not_exists(lst, :empty), :one)',
    ExpressionAttributeNames: { '#c': 'count' },
    ExpressionAttributeValues: { ':inc': 2.5, ':more': new Set(['b']),
      ':info': { nested: [true, null] }, ':empty': [], ':one': [1] },
    ReturnValues: 'ALL_NEW' }));
  assert.equal(r.Attributes.count, 3.5);
  assert.deepEqual([...r.Attributes.tags].sort(), ['a', 'b']);
  assert.deepEqual(r.Attributes.info, { nested: [true, null] });
  assert.deepEqual(r.Attributes.lst, [1]);
  const d = await doc.send(new DeleteCommand({ TableName: table,
    Key: { id: 'u', n: 0 }, ReturnValues: 'ALL_OLD' }));
  assert.equal(d.Attributes.count, 3.5);
});

test('condition failure through DocumentClient keeps raw Item', {
  skip: ON_DYNALITE && 'dynalite lacks ReturnValuesOnConditionCheckFailure' }, async () => {
  await doc.send(new PutCommand({ TableName: table, Item: { id: 'c', n: 0, v: 'x' } }));
  const e = await catchError(() => doc.send(new PutCommand({ TableName: table,
    Item: { id: 'c', n: 0 }, ConditionExpression: 'attribute_not_exists(id)',
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD' })));
  assert.equal(e.name, 'ConditionalCheckFailedException');
  assert.deepEqual(e.Item, { id: { S: 'c' }, n: { N: '0' }, v: { S: 'x' } });
});
