// SPDX-License-Identifier: MIT
// partiql.test.mjs - PartiQL through the JS SDK v3: ExecuteStatement,
// BatchExecuteStatement and ExecuteTransaction with @aws-sdk/client-dynamodb
// (AttributeValue parameters, paging by NextToken) and with the
// DocumentClient of @aws-sdk/lib-dynamodb (native parameters and items),
// and the errors as the SDK surfaces them (e.name, e.CancellationReasons,
// a batch's per-statement Error). Expected behaviour: DynamoDB's, as
// tests/e2e/test_partiql.py names its sources.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  ExecuteStatementCommand, BatchExecuteStatementCommand,
  ExecuteTransactionCommand,
} from '@aws-sdk/client-dynamodb';
import {
  DynamoDBDocumentClient,
  ExecuteStatementCommand as DocExecuteStatementCommand,
  BatchExecuteStatementCommand as DocBatchExecuteStatementCommand,
  ExecuteTransactionCommand as DocExecuteTransactionCommand,
} from '@aws-sdk/lib-dynamodb';
import {
  makeClient, uniqueName, createTable, deleteTableQuietly, catchError,
} from './common.mjs';

const client = makeClient();
const doc = DynamoDBDocumentClient.from(client);
const table = uniqueName('jsq');
const T = `"${table}"`;

before(async () => {
  await createTable(client, table, ['pk', 'S'], ['sk', 'N']);
});

after(async () => {
  await deleteTableQuietly(client, table);
  client.destroy();
});

test('ExecuteStatement: INSERT, SELECT with parameters, NextToken', async () => {
  for (let i = 0; i < 5; i++) {
    const r = await client.send(new ExecuteStatementCommand({
      Statement: `INSERT INTO ${T} VALUE {'pk': 'p', 'sk': ?, 'v': ?}`,
      Parameters: [{ N: String(i) }, { S: `v${i}` }] }));
    assert.deepEqual(r.Items, []);
  }
  const pages = [];
  let NextToken;
  do {
    const r = await client.send(new ExecuteStatementCommand({
      Statement: `SELECT sk FROM ${T} WHERE pk = ? AND sk >= ?`,
      Parameters: [{ S: 'p' }, { N: '1' }], Limit: 2, NextToken,
      ConsistentRead: true }));
    pages.push(r.Items.map((it) => it.sk.N));
    NextToken = r.NextToken;
    assert.ok(pages.length < 10, 'NextToken never ends');
  } while (NextToken);
  assert.deepEqual(pages.flat(), ['1', '2', '3', '4']);
  assert.ok(pages.length >= 2);
});

test('ExecuteStatement errors: e.name and the message', async () => {
  let e = await catchError(() => client.send(new ExecuteStatementCommand({
    Statement: `INSERT INTO ${T} VALUE {'pk': 'p', 'sk': 0}` })));
  assert.equal(e.name, 'DuplicateItemException');
  assert.equal(e.message, 'Duplicate primary key exists in table');
  e = await catchError(() => client.send(new ExecuteStatementCommand({
    Statement: `SELECT * FROM ${T} WHERE` })));
  assert.equal(e.name, 'ValidationException');
  assert.equal(e.message,
    "Statement wasn't well formed, can't be processed: Unexpected term");
  e = await catchError(() => client.send(new ExecuteStatementCommand({
    Statement: `UPDATE ${T} SET v = 'x' WHERE pk = 'p' AND sk = 0 AND v = 'no'`,
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD' })));
  assert.equal(e.name, 'ConditionalCheckFailedException');
  assert.deepEqual(e.Item, { pk: { S: 'p' }, sk: { N: '0' }, v: { S: 'v0' } });
});

test('DocumentClient: native parameters, items and RETURNING', async () => {
  await doc.send(new DocExecuteStatementCommand({
    Statement: `INSERT INTO ${T} VALUE {'pk': ?, 'sk': ?, 'tags': ?, 'm': ?}`,
    Parameters: ['d', 1, new Set(['a']), { deep: [1, 'two'] }] }));
  let r = await doc.send(new DocExecuteStatementCommand({
    Statement: `UPDATE ${T} SET tags = set_add(tags, ?) SET n = 2 `
      + `WHERE pk = ? AND sk = ? RETURNING ALL NEW *`,
    Parameters: [new Set(['b']), 'd', 1] }));
  assert.equal(r.Items.length, 1);
  assert.deepEqual([...r.Items[0].tags].sort(), ['a', 'b']);
  assert.deepEqual(r.Items[0].m, { deep: [1, 'two'] });
  assert.equal(r.Items[0].n, 2);
  r = await doc.send(new DocExecuteStatementCommand({
    Statement: `SELECT m.deep[1], n FROM ${T} WHERE pk = ? AND sk = ?`,
    Parameters: ['d', 1], ConsistentRead: true }));
  // a nested path answers under its last name, indexes kept
  assert.deepEqual(r.Items, [{ 'deep[1]': 'two', n: 2 }]);
});

test('BatchExecuteStatement: per-statement answers and errors', async () => {
  const r = await doc.send(new DocBatchExecuteStatementCommand({
    Statements: [
      { Statement: `SELECT v FROM ${T} WHERE pk = ? AND sk = ?`,
        Parameters: ['p', 2] },
      { Statement: `SELECT v FROM ${T} WHERE pk = ? AND sk = ?`,
        Parameters: ['p', 99] },
      { Statement: `SELECT v FROM ${T} WHERE pk = 'p'` },
    ] }));
  assert.equal(r.Responses.length, 3);
  assert.deepEqual(r.Responses[0], { TableName: table, Item: { v: 'v2' } });
  assert.deepEqual(r.Responses[1], { TableName: table });
  assert.equal(r.Responses[2].Error.Code, 'ValidationError');
  const w = await client.send(new BatchExecuteStatementCommand({
    Statements: [
      { Statement: `INSERT INTO ${T} VALUE {'pk': 'b', 'sk': 1}` },
      { Statement: `INSERT INTO ${T} VALUE {'pk': 'p', 'sk': 1}` },
    ] }));
  assert.deepEqual(w.Responses[0], { TableName: table });
  assert.equal(w.Responses[1].Error.Code, 'DuplicateItem');
});

test('ExecuteTransaction: all or nothing, CancellationReasons', async () => {
  const r = await doc.send(new DocExecuteTransactionCommand({
    TransactStatements: [
      { Statement: `UPDATE ${T} SET v = ? WHERE pk = ? AND sk = ?`,
        Parameters: ['t', 'p', 3] },
      { Statement: `DELETE FROM ${T} WHERE pk = 'p' AND sk = 4` },
    ] }));
  assert.deepEqual(r.Responses ?? [], []);
  const e = await catchError(() => client.send(new ExecuteTransactionCommand({
    TransactStatements: [
      { Statement: `UPDATE ${T} SET v = 'u' WHERE pk = 'p' AND sk = 3` },
      { Statement: `INSERT INTO ${T} VALUE {'pk': 'p', 'sk': 0}` },
    ] })));
  assert.equal(e.name, 'TransactionCanceledException');
  assert.deepEqual(e.CancellationReasons.map((x) => x.Code),
    ['None', 'DuplicateItem']);
  const g = await doc.send(new DocExecuteTransactionCommand({
    TransactStatements: [
      { Statement: `SELECT v FROM ${T} WHERE pk = 'p' AND sk = 3` },
      { Statement: `SELECT v FROM ${T} WHERE pk = 'p' AND sk = 4` },
    ] }));
  assert.deepEqual(g.Responses, [{ Item: { v: 't' } }, {}]);
});
