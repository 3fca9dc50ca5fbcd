// SPDX-License-Identifier: MIT
// vector.test.mjs - vector indexes through the JS SDK v3, which models them
// (CreateTable's VectorIndexes, UpdateTable's VectorIndexUpdates,
// SearchVectorsCommand) and, with an endpoint override, sends
// SearchVectors to that endpoint like any other operation (POST /,
// X-Amz-Target DynamoDB_20120810.SearchVectors). Expected behaviour is
// DynamoDB's as recorded against eu-west-2 and us-east-1 in 2026 by
// nubo-db/dynamodb-conformance and paritysuite/dynamodb-conformance
// (tests/tier2/vectorSearch/*, tests/tier3/error-messages/{vectorIndexes,
// vectorWrites,searchVectors}); each test names its source.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  CreateTableCommand, DescribeTableCommand, UpdateTableCommand,
  PutItemCommand, GetItemCommand, UpdateItemCommand, DeleteItemCommand,
  BatchWriteItemCommand, TransactWriteItemsCommand, SearchVectorsCommand,
  DeleteTableCommand,
} from '@aws-sdk/client-dynamodb';
import {
  ENDPOINT, makeClient, uniqueName, waitActive, deleteTableQuietly,
  catchError,
} from './common.mjs';

const client = makeClient();
const vec = (...ns) => ns.map((n) => ({ N: String(n) }));
const tables = [];

function vix(over = {}) {
  return { IndexName: 'vix', VectorAttribute: { AttributeName: 'embedding' },
    Dimensions: 3, DistanceFunction: 'COSINE',
    Projection: { ProjectionType: 'ALL' }, ...over };
}

async function makeTable(prefix, vectorIndexes, defs = []) {
  const name = uniqueName(prefix);
  tables.push(name);
  await client.send(new CreateTableCommand({
    TableName: name,
    AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' },
      ...defs.map((d) => ({ AttributeName: d, AttributeType: 'S' }))],
    KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
    BillingMode: 'PAY_PER_REQUEST',
    ...(vectorIndexes ? { VectorIndexes: vectorIndexes } : {}),
  }));
  await waitActive(client, name);
  return name;
}

async function describeIndex(table, index) {
  const r = await client.send(new DescribeTableCommand({ TableName: table }));
  return (r.Table.VectorIndexes ?? []).find((i) => i.IndexName === index);
}

const search = (input) => client.send(new SearchVectorsCommand(input));

async function expectValidation(fn, message) {
  const e = await catchError(fn);
  assert.equal(e.name, 'ValidationException', e.message);
  if (message instanceof RegExp) assert.match(e.message, message);
  else if (message !== undefined) assert.equal(e.message, message);
  return e;
}

// The deterministic fixture of nubo-db vectorSearch/search.test.ts: 'a' is
// the query, 'b' orthogonal, 'c' opposite, 'd' a unit mix.
const FIXTURE = { a: [1, 0, 0], b: [0, 1, 0], c: [-1, 0, 0], d: [0.6, 0.8, 0] };
let fixture;                        // COSINE, EUCLIDEAN and DOT indexes
let schemaTable;                    // plain + HASH/INLINE_FILTER indexes

before(async () => {
  fixture = await makeTable('jsv', [
    vix({ IndexName: 'cosine' }),
    vix({ IndexName: 'euclidean', DistanceFunction: 'EUCLIDEAN' }),
    vix({ IndexName: 'dot', DistanceFunction: 'DOT_PRODUCT' })]);
  for (const [pk, e] of Object.entries(FIXTURE)) {
    await client.send(new PutItemCommand({ TableName: fixture, Item: {
      pk: { S: pk }, label: { S: `item-${pk}` }, embedding: { L: vec(...e) } } }));
  }
  schemaTable = await makeTable('jsvs', [
    vix({ IndexName: 'plain' }),
    vix({ IndexName: 'schema', SearchSchema: [
      { AttributeName: 'tenant', SearchSchemaElementType: 'HASH' },
      { AttributeName: 'category', SearchSchemaElementType: 'INLINE_FILTER' }] }),
  ], ['tenant', 'category']);
});

after(async () => {
  for (const t of tables) await deleteTableQuietly(client, t);
  client.destroy();
});

async function scores(index, extra = {}) {
  const r = await search({ TableName: fixture, IndexName: index,
    SearchVector: vec(1, 0, 0), TopK: 10, ...extra });
  return Object.fromEntries(r.SearchResults.map((x) => [x.Item.pk.S, x.Score]));
}

// ---------------------------------------------------------------------------
// The control plane
// ---------------------------------------------------------------------------

// nubo-db vectorSearch/lifecycle.test.ts: the description, ACTIVE with the
// table, no Backfilling on this path, counts 0 when new.
test('CreateTable describes its vector indexes', async () => {
  const name = await makeTable('jsvd', [vix({ SearchSchema: [
    { AttributeName: 'tenant', SearchSchemaElementType: 'HASH' },
    { AttributeName: 'category', SearchSchemaElementType: 'INLINE_FILTER' }] }),
  vix({ IndexName: 'wide', VectorAttribute: { AttributeName: 'w' },
    Dimensions: 4096 })], ['tenant', 'category']);
  const ix = await describeIndex(name, 'vix');
  assert.equal(ix.IndexStatus, 'ACTIVE');
  assert.equal(ix.Backfilling, undefined);
  assert.equal(ix.Dimensions, 3);
  assert.equal(ix.DistanceFunction, 'COSINE');
  assert.equal(ix.VectorAttribute.AttributeName, 'embedding');
  assert.equal(ix.Projection.ProjectionType, 'ALL');
  assert.match(ix.IndexArn, new RegExp(`:table/${name}/index/vix$`));
  assert.equal(ix.ItemCount, 0);
  assert.equal(ix.IndexSizeBytes, 0);
  assert.deepEqual(ix.SearchSchema, [
    { AttributeName: 'tenant', SearchSchemaElementType: 'HASH' },
    { AttributeName: 'category', SearchSchemaElementType: 'INLINE_FILTER' }]);
  assert.equal((await describeIndex(name, 'wide')).Dimensions, 4096);
  const t = await client.send(new DescribeTableCommand({ TableName: name }));
  assert.deepEqual(t.Table.AttributeDefinitions.map((d) => d.AttributeName)
    .sort(), ['category', 'pk', 'tenant']);
});

// nubo-db tier3 vectorIndexes.test.ts (exact messages) and
// vectorSearch/validation.test.ts (the request model's).
test('CreateTable refuses vector indexes DynamoDB refuses', async () => {
  const base = () => ({ TableName: uniqueName('jsvbad'),
    AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
    KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
    BillingMode: 'PAY_PER_REQUEST' });
  const create = (input) => client.send(new CreateTableCommand(input));
  const P = 'One or more parameter values were invalid: ';
  let input = base();
  delete input.BillingMode;
  input.ProvisionedThroughput = { ReadCapacityUnits: 5, WriteCapacityUnits: 5 };
  input.VectorIndexes = [vix()];
  await expectValidation(() => create(input),
    `${P}Vector indexes are only supported for PAY_PER_REQUEST tables`);
  await expectValidation(() => create({ ...base(), VectorIndexes: [vix({
    SearchSchema: [{ AttributeName: 'tenant', SearchSchemaElementType: 'HASH' }] })] }),
  `${P}One element in SearchSchema is not defined in attribute definitions`);
  await expectValidation(() => create({ ...base(),
    VectorIndexes: [vix({ Dimensions: 4097 })] }),
  `${P}Number of dimensions must be between 1 and 4096 inclusive.`);
  await expectValidation(() => create({ ...base(), VectorIndexes:
    Array.from({ length: 6 }, (_, i) => vix({ IndexName: `vix-${i}` })) }),
  `${P}VectorIndex count exceeds the per-table limit of 5`);
  await expectValidation(() => create({ ...base(), VectorIndexes: [vix(),
    vix({ IndexName: 'vix2', Dimensions: 4 })] }),
  `${P}Conflicting attribute definition for 'embedding'. All VectorIndexes ` +
    'on the same vector attribute must use the same dimensions.');
  await expectValidation(() => create({ ...base(),
    VectorIndexes: [vix({ Dimensions: 0 })] }), /greater than or equal to 1/);
  await expectValidation(() => create({ ...base(),
    VectorIndexes: [vix({ IndexName: 'ab' })] }),
  /length greater than or equal to 3/);
});

// ---------------------------------------------------------------------------
// Writes
// ---------------------------------------------------------------------------

// nubo-db tier3 vectorWrites.test.ts: each message names the index.
test('writes a vector index cannot take are refused', async () => {
  const put = (item) => client.send(new PutItemCommand({
    TableName: schemaTable, Item: { pk: { S: 'bad' }, tenant: { S: 't1' }, ...item } }));
  await expectValidation(() => put({ embedding: { L: vec(1, 0) } }),
    'One or more parameter values were invalid. Invalid size for parameter ' +
    'embedding, Expected: 3, Actual: 2 IndexName: plain');
  await expectValidation(() => put({ embedding: { L: [{ N: '1' }, { S: 'oops' },
    { N: '0' }] } }),
  'One or more parameter values were invalid. Invalid type for parameter ' +
    'embedding[1], Expected: 32-bit floating point number, Actual: S. ' +
    'IndexName: plain');
  await expectValidation(() => put({ embedding: { S: 'not-a-vector' } }),
    'One or more parameter values were invalid. Invalid type for parameter ' +
    'embedding, Expected: 32-bit floating point number list IndexName: plain');
  await expectValidation(() => put({ tenant: { S: '' }, embedding: { L: vec(0, 0, 1) } }),
    'One or more parameter values are not valid. A value specified for a ' +
    'secondary index key is not supported. The AttributeValue for a key ' +
    'attribute cannot contain an empty string value. IndexName: schema, ' +
    'IndexKey: tenant');
  // The same checks hold on the other write paths, before anything is
  // written.
  await expectValidation(() => client.send(new UpdateItemCommand({
    TableName: schemaTable, Key: { pk: { S: 'bad' } },
    UpdateExpression: 'SET embedding = :v',
    ExpressionAttributeValues: { ':v': { L: vec(1) } } })), /Invalid size/);
  await expectValidation(() => client.send(new BatchWriteItemCommand({
    RequestItems: { [schemaTable]: [
      { PutRequest: { Item: { pk: { S: 'ok' }, embedding: { L: vec(1, 1, 1) } } } },
      { PutRequest: { Item: { pk: { S: 'bad' }, embedding: { L: vec(1) } } } }] } })),
  /Invalid size/);
  const got = await client.send(new GetItemCommand({ TableName: schemaTable,
    Key: { pk: { S: 'ok' } } }));
  assert.equal(got.Item, undefined, 'the batch wrote nothing');
});

// ---------------------------------------------------------------------------
// Search
// ---------------------------------------------------------------------------

// nubo-db vectorSearch/search.test.ts: scores per distance function,
// rounded through 32-bit floats.
test('scores follow each distance function, best first', async () => {
  const cos = await scores('cosine');
  assert.equal(cos.a, 0);
  assert.ok(Math.abs(cos.d - Math.fround(0.4)) < 1e-6);
  assert.equal(cos.b, 1);
  assert.equal(cos.c, 2);
  const euc = await scores('euclidean');
  assert.equal(euc.a, 0);
  assert.ok(Math.abs(euc.d - Math.fround(Math.sqrt(0.8))) < 1e-6);
  assert.ok(Math.abs(euc.b - Math.fround(Math.SQRT2)) < 1e-6);
  assert.equal(euc.c, 2);
  const dot = await scores('dot');
  assert.equal(dot.a, 1);
  assert.ok(Math.abs(dot.d - Math.fround(0.6)) < 1e-6);
  assert.equal(dot.b, 0);
  assert.equal(dot.c, -1);
  const r = await search({ TableName: fixture, IndexName: 'dot',
    SearchVector: vec(1, 0, 0), TopK: 10 });
  assert.deepEqual(r.SearchResults.map((x) => x.Item.pk.S), ['a', 'd', 'b', 'c']);
  const one = await search({ TableName: fixture, IndexName: 'cosine',
    SearchVector: vec(1, 0, 0), TopK: 1 });
  assert.equal(one.SearchResults.length, 1);
  assert.equal(one.SearchResults[0].Item.pk.S, 'a');
});

// nubo-db vectorSearch/search.test.ts: the vector is left out unless
// projected, and then it is the index's float copy; no pagination.
test('results project the index entry, the vector only when asked', async () => {
  const byDefault = await search({ TableName: fixture, IndexName: 'cosine',
    SearchVector: vec(1, 0, 0), TopK: 1 });
  assert.deepEqual(Object.keys(byDefault.SearchResults[0].Item).sort(), ['label', 'pk']);
  const projected = await search({ TableName: fixture, IndexName: 'cosine',
    SearchVector: vec(1, 0, 0), TopK: 1, ProjectionExpression: 'pk, #e',
    ExpressionAttributeNames: { '#e': 'embedding' } });
  assert.deepEqual(projected.SearchResults[0].Item.embedding.L.map((v) => v.N),
    ['1.0', '0.0', '0.0']);
  const all = await search({ TableName: fixture, IndexName: 'cosine',
    SearchVector: vec(1, 0, 0), TopK: 100 });
  assert.equal(all.SearchResults.length, 4);
  assert.equal(all.NextToken, undefined);
  assert.equal(all.LastEvaluatedKey, undefined);
});

// nubo-db vectorSearch/search.test.ts: full precision in the table, a
// 32-bit float in the index.
test('the table keeps full precision, the index a float', async () => {
  const precise = ['0.1', '16777217', '1.000000059604644775390625'];
  const name = await makeTable('jsvf', [vix()]);
  await client.send(new PutItemCommand({ TableName: name, Item: {
    pk: { S: 'f32' }, embedding: { L: precise.map((N) => ({ N })) } } }));
  const back = await client.send(new GetItemCommand({ TableName: name,
    Key: { pk: { S: 'f32' } }, ConsistentRead: true }));
  assert.deepEqual(back.Item.embedding.L.map((v) => v.N), precise);
  const r = await search({ TableName: name, IndexName: 'vix',
    SearchVector: precise.map((N) => ({ N })), TopK: 1,
    ProjectionExpression: 'pk, embedding' });
  const got = r.SearchResults[0].Item.embedding.L.map((v) => Number(v.N));
  assert.deepEqual(got.map(Math.fround), precise.map((n) => Math.fround(Number(n))));
  assert.equal(got[1], 16777216);
});

// nubo-db and paritysuite tier3 searchVectors.test.ts: exact messages.
test('SearchVectors refuses what DynamoDB refuses', async () => {
  const s = (extra) => search({ TableName: schemaTable, IndexName: 'plain',
    SearchVector: vec(1, 0, 0), TopK: 1, ...extra });
  await expectValidation(() => s({ TopK: 101 }), "Provided TopK value '101' is " +
    'out of valid range. The value must be between 1 and 100 inclusive');
  await expectValidation(() => s({ TopK: 0 }), /greater than or equal to 1/);
  await expectValidation(() => s({ IndexName: 'schema' }),
    'SearchConditionExpression must be provided when SearchSchema has a HASH key');
  await expectValidation(() => s({ IndexName: 'schema',
    SearchConditionExpression: 'tenant < :t',
    ExpressionAttributeValues: { ':t': { S: 't9' } } }),
  'Invalid SearchConditionExpression: Invalid comparator used in ' +
    'SearchConditionExpression');
  await expectValidation(() => s({ IndexName: 'schema',
    SearchConditionExpression: 'tenant = :t AND category < :c',
    ExpressionAttributeValues: { ':t': { S: 't1' }, ':c': { S: 'c9' } } }),
  'Invalid SearchConditionExpression: Invalid comparator used in ' +
    'SearchConditionExpression');
  await expectValidation(() => s({ SearchVector: vec(1, 0) }),
    'Input search vector dimension 2 does not match vector index dimension 3');
  await expectValidation(() => s({ SearchConditionExpression: 'tenant = :t',
    ExpressionAttributeValues: { ':t': { S: 't1' } } }),
  'SearchConditionExpression must not contain any attributes that is not in ' +
    'SearchSchema. Invalid attribute: tenant');
  await expectValidation(() => s({ SearchVector: [{ L: vec(1, 0, 0) }] }),
    'Search vector contains invalid values. All values in the search vector ' +
    'must be a 32-bit floating-point number attribute');
  await expectValidation(() => s({ IndexName: 'no-such-index' }),
    'The table does not have the specified index: no-such-index');
  const e = await catchError(() => s({ TableName: uniqueName('jsvnone') }));
  assert.equal(e.name, 'ResourceNotFoundException');
});

// nubo-db vectorSearch/writeValidation.test.ts: an item without the HASH
// attribute is in the plain index only; HASH partitions, INLINE_FILTER
// filters with equality.
test('SearchSchema: HASH partitions the index, INLINE_FILTER filters', async () => {
  const put = (pk, e, extra) => client.send(new PutItemCommand({
    TableName: schemaTable, Item: { pk: { S: pk }, embedding: { L: vec(...e) }, ...extra } }));
  await put('s1', [1, 0, 0], { tenant: { S: 't1' }, category: { S: 'c1' } });
  await put('s2', [0, 1, 0], { tenant: { S: 't1' }, category: { S: 'c2' } });
  await put('s3', [0, 0, 1], { tenant: { S: 't2' }, category: { S: 'c1' } });
  await put('s4', [1, 1, 0], { category: { S: 'c1' } });       // no tenant
  const keys = async (input) => (await search({ TableName: schemaTable,
    SearchVector: vec(1, 0, 0), TopK: 10, ...input })).SearchResults
    .map((r) => r.Item.pk.S).sort();
  assert.deepEqual(await keys({ IndexName: 'schema',
    SearchConditionExpression: 'tenant = :t',
    ExpressionAttributeValues: { ':t': { S: 't1' } } }), ['s1', 's2']);
  assert.deepEqual(await keys({ IndexName: 'schema',
    SearchConditionExpression: '#t = :t AND category = :c',
    ExpressionAttributeNames: { '#t': 'tenant' },
    ExpressionAttributeValues: { ':t': { S: 't1' }, ':c': { S: 'c2' } } }), ['s2']);
  assert.deepEqual(await keys({ IndexName: 'schema',
    SearchConditionExpression: 'tenant = :t',
    ExpressionAttributeValues: { ':t': { S: 'nobody' } } }), []);
  const plain = await keys({ IndexName: 'plain' });
  for (const k of ['s1', 's2', 's3', 's4']) assert.ok(plain.includes(k), k);
});

// nubo-db vectorSearch/writeValidation.test.ts ("removes an item from the
// index when its vector attribute is removed"), and deletes.
test('removing the vector or the item takes it out of the index', async () => {
  const name = await makeTable('jsvr', [vix()]);
  for (const [pk, e] of [['a', [1, 0, 0]], ['b', [0, 1, 0]], ['c', [0, 0, 1]]]) {
    await client.send(new PutItemCommand({ TableName: name,
      Item: { pk: { S: pk }, embedding: { L: vec(...e) } } }));
  }
  const keys = async () => (await search({ TableName: name, IndexName: 'vix',
    SearchVector: vec(0, 1, 0), TopK: 10 })).SearchResults.map((r) => r.Item.pk.S).sort();
  assert.deepEqual(await keys(), ['a', 'b', 'c']);
  await client.send(new UpdateItemCommand({ TableName: name,
    Key: { pk: { S: 'b' } }, UpdateExpression: 'REMOVE embedding' }));
  assert.deepEqual(await keys(), ['a', 'c']);
  const del = await client.send(new DeleteItemCommand({ TableName: name,
    Key: { pk: { S: 'c' } }, ReturnConsumedCapacity: 'INDEXES' }));
  assert.ok(del.ConsumedCapacity.VectorIndexes.vix.VectorWriteRequestBytes >= 1024);
  assert.deepEqual(await keys(), ['a']);
  assert.equal((await describeIndex(name, 'vix')).ItemCount, 1);
});

// ---------------------------------------------------------------------------
// Capacity
// ---------------------------------------------------------------------------

// paritysuite vectorSearch/consumedCapacity.test.ts.
test('ConsumedCapacity of searches and writes', async () => {
  const input = { TableName: fixture, IndexName: 'cosine',
    SearchVector: vec(1, 0, 0), TopK: 1 };
  const total = await search({ ...input, ReturnConsumedCapacity: 'TOTAL' });
  assert.ok(total.ConsumedCapacity.VectorSearchRequestBytes > 0);
  assert.deepEqual(Object.keys(total.ConsumedCapacity), ['VectorSearchRequestBytes']);
  const indexes = await search({ ...input, ReturnConsumedCapacity: 'INDEXES' });
  assert.equal(indexes.ConsumedCapacity.VectorSearchRequestBytes,
    total.ConsumedCapacity.VectorSearchRequestBytes);
  const none = await search({ ...input, ReturnConsumedCapacity: 'NONE' });
  assert.equal(none.ConsumedCapacity, undefined);

  const name = await makeTable('jsvc', [vix(),
    vix({ IndexName: 'vkeys', Projection: { ProjectionType: 'KEYS_ONLY' } }),
    vix({ IndexName: 'vdims', VectorAttribute: { AttributeName: 'sixdimvec' },
      Dimensions: 6 }),
    vix({ IndexName: 'vname', VectorAttribute: { AttributeName:
      'embeddingWithALongerName' } })]);
  const put = async (item, mode = 'INDEXES') => (await client.send(
    new PutItemCommand({ TableName: name, Item: item,
      ReturnConsumedCapacity: mode }))).ConsumedCapacity;
  const bytes = (cc, ix) => cc.VectorIndexes?.[ix]?.VectorWriteRequestBytes;
  let cc = await put({ pk: { S: 'f0' }, embedding: { L: vec(0, 1, 0) } });
  assert.equal(cc.CapacityUnits, 1);
  assert.equal(bytes(cc, 'vix'), 1024);                // the floor
  assert.equal(bytes(cc, 'vdims'), undefined);         // not in that index
  cc = await put({ pk: { S: 't0' }, embedding: { L: vec(0, 0, 1) } }, 'TOTAL');
  assert.equal(cc.VectorIndexes, undefined);
  assert.equal(cc.Table, undefined);
  cc = await put({ pk: { S: 'f0' }, embedding: { L: vec(0, 1, 0) } });
  assert.equal(cc.VectorIndexes, undefined, 'an identical overwrite');
  const blob = { blob: { S: 'x'.repeat(1500) } };
  const three = await put({ pk: { S: '3a' }, embedding: { L: vec(1, 0, 0) }, ...blob });
  assert.ok(bytes(three, 'vix') > 1024);
  assert.equal(bytes(three, 'vkeys'), 1024, 'the floor binds per index');
  const six = await put({ pk: { S: '6b' }, sixdimvec: { L: vec(1, 0, 0, 0, 1, 0) }, ...blob });
  assert.equal(bytes(six, 'vdims') - bytes(three, 'vix'), 4 * 3);
  const named = await put({ pk: { S: 'nc' }, embeddingWithALongerName:
    { L: vec(1, 0, 0) }, ...blob });
  assert.equal(bytes(named, 'vname') - bytes(three, 'vix'),
    'embeddingWithALongerName'.length - 'embedding'.length);
  await put({ pk: { S: 'pj' }, embedding: { L: vec(0.25, 0.5, 0.75) }, note: { S: 'a' } });
  cc = await put({ pk: { S: 'pj' }, embedding: { L: vec(0.25, 0.5, 0.75) }, note: { S: 'b' } });
  assert.ok(bytes(cc, 'vix') > 0, 'the ALL index projects note');
  assert.equal(bytes(cc, 'vkeys'), undefined, 'the KEYS_ONLY one does not');

  // A vector is billed at its name plus 4 bytes a dimension, whatever
  // numbers it holds (38-digit numbers are 20 bytes each as numbers).
  const WIDE = '12345678901234567890123456789012345678';
  const billed = (target, key) => ({ pk: { S: key },
    embedding: { L: [{ N: WIDE }, { N: WIDE }, { N: WIDE }] },
    pad: { S: 'x'.repeat(target - 2 - 2 - 'embedding'.length - 12 - 3) } });
  assert.equal((await put(billed(1024, 'a3'), 'TOTAL')).CapacityUnits, 1);
  assert.equal((await put(billed(1025, 'b3'), 'TOTAL')).CapacityUnits, 2);
});

// SearchVectors lists ThrottlingException among its errors (API
// reference); DynamoDB documents no vector search rate, so only a fault
// rule (POST /shardlocal/faults) throttles one here.
test('a fault rule throttles a search as DynamoDB does', async (t) => {
  if (!ENDPOINT) return t.skip('needs shardlocal');
  const rule = await fetch(`${ENDPOINT}/shardlocal/faults`, {
    method: 'POST', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ table: fixture, op: 'read', count: 1 }) });
  assert.equal(rule.status, 200);
  const input = { TableName: fixture, IndexName: 'cosine',
    SearchVector: vec(1, 0, 0), TopK: 1 };
  const e = await catchError(() => search(input));
  assert.equal(e.name, 'ThrottlingException');
  assert.equal(e.throttlingReasons[0].reason,
    'TableReadKeyRangeThroughputExceeded');
  assert.equal((await search(input)).SearchResults.length, 1);
});

// ---------------------------------------------------------------------------
// UpdateTable and the other write paths
// ---------------------------------------------------------------------------

// nubo-db vectorSearch/updateLifecycle.test.ts: an index added to a table
// with items holds them all once searchable (backfill); one online index
// action per call; Delete removes it and leaves the table ACTIVE.
test('UpdateTable adds an index with its items, then deletes it', async () => {
  const name = await makeTable('jsvu');
  for (let i = 0; i < 5; i++) {
    await client.send(new PutItemCommand({ TableName: name, Item: {
      pk: { S: `item-${i}` }, embedding: { L: vec(i, 1, 0) } } }));
  }
  await client.send(new PutItemCommand({ TableName: name, Item: {
    pk: { S: 'not-a-vector' }, embedding: { S: 'text' } } }));
  const r = await client.send(new UpdateTableCommand({ TableName: name,
    VectorIndexUpdates: [{ Create: vix() }] }));
  assert.equal(r.TableDescription.VectorIndexes[0].IndexName, 'vix');
  await waitActive(client, name);
  const found = await search({ TableName: name, IndexName: 'vix',
    SearchVector: vec(1, 1, 0), TopK: 10 });
  assert.deepEqual(found.SearchResults.map((x) => x.Item.pk.S).sort(),
    ['item-0', 'item-1', 'item-2', 'item-3', 'item-4']);
  assert.equal((await describeIndex(name, 'vix')).ItemCount, 5);
  const extra = (n) => ({ Create: vix({ IndexName: n,
    Projection: { ProjectionType: 'KEYS_ONLY' } }) });
  const e = await catchError(() => client.send(new UpdateTableCommand({
    TableName: name, VectorIndexUpdates: [extra('vix2'), extra('vix3')] })));
  assert.equal(e.name, 'LimitExceededException');
  assert.equal(e.message, 'Subscriber limit exceeded: Only 1 online index can ' +
    'be created or deleted simultaneously per table');
  await client.send(new UpdateTableCommand({ TableName: name,
    VectorIndexUpdates: [{ Delete: { IndexName: 'vix' } }] }));
  const t = await waitActive(client, name);
  assert.deepEqual(t.VectorIndexes ?? [], []);
  await expectValidation(() => search({ TableName: name, IndexName: 'vix',
    SearchVector: vec(1, 1, 0), TopK: 1 }),
  'The table does not have the specified index: vix');
});

test('BatchWriteItem and TransactWriteItems keep the index in step', async () => {
  const name = await makeTable('jsvb', [vix()]);
  const b = await client.send(new BatchWriteItemCommand({
    ReturnConsumedCapacity: 'INDEXES', RequestItems: { [name]: [
      { PutRequest: { Item: { pk: { S: 'b1' }, embedding: { L: vec(1, 0, 0) } } } },
      { PutRequest: { Item: { pk: { S: 'b2' }, embedding: { L: vec(0, 1, 0) } } } }] } }));
  assert.equal(b.ConsumedCapacity[0].VectorIndexes.vix.VectorWriteRequestBytes, 2048);
  const t = await client.send(new TransactWriteItemsCommand({
    ReturnConsumedCapacity: 'INDEXES', TransactItems: [
      { Put: { TableName: name, Item: { pk: { S: 't1' }, embedding: { L: vec(0, 0, 1) } } } },
      { Delete: { TableName: name, Key: { pk: { S: 'b1' } } } }] }));
  assert.ok(t.ConsumedCapacity[0].VectorIndexes.vix.VectorWriteRequestBytes >= 2048);
  const r = await search({ TableName: name, IndexName: 'vix',
    SearchVector: vec(1, 0, 0), TopK: 10 });
  assert.deepEqual(r.SearchResults.map((x) => x.Item.pk.S).sort(), ['b2', 't1']);
});

test('a table deleted and created again starts with an empty index', async () => {
  const name = await makeTable('jsvx', [vix()]);
  await client.send(new PutItemCommand({ TableName: name,
    Item: { pk: { S: 'old' }, embedding: { L: vec(1, 0, 0) } } }));
  await client.send(new DeleteTableCommand({ TableName: name }));
  await client.send(new CreateTableCommand({ TableName: name,
    AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
    KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
    BillingMode: 'PAY_PER_REQUEST', VectorIndexes: [vix()] }));
  await waitActive(client, name);
  const r = await search({ TableName: name, IndexName: 'vix',
    SearchVector: vec(1, 0, 0), TopK: 10 });
  assert.deepEqual(r.SearchResults, []);
});
