// SPDX-License-Identifier: MIT
// common.cjs - what the three runners' tests share: an SDK client for a
// shardlocal endpoint, a provisioned table of 1 WCU with no burst bank
// (one write per second: shardlocal:burst-seconds=0), and the check that
// a second write in the same (virtual) second throttles with DynamoDB's
// ProvisionedThroughputExceededException, and one second later does not.
'use strict';

const assert = require('node:assert/strict');
const {
  DynamoDBClient, CreateTableCommand, PutItemCommand, ListTablesCommand,
} = require('@aws-sdk/client-dynamodb');

function client(endpoint) {
  return new DynamoDBClient({
    endpoint, region: 'us-east-1', maxAttempts: 1,
    credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
  });
}

async function createSlowTable(ddb, name) {
  await ddb.send(new CreateTableCommand({
    TableName: name,
    AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
    KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
    ProvisionedThroughput: { ReadCapacityUnits: 1, WriteCapacityUnits: 1 },
    Tags: [{ Key: 'shardlocal:burst-seconds', Value: '0' }],
  }));
}

const put = (ddb, name, pk) => ddb.send(new PutItemCommand({
  TableName: name, Item: { pk: { S: pk } },
}));

async function throttlesThenRefills(server, name) {
  const ddb = client(server.endpoint);
  await createSlowTable(ddb, name);
  await put(ddb, name, 'k');
  await assert.rejects(put(ddb, name, 'k'),
    { name: 'ProvisionedThroughputExceededException' });
  await server.advance(1);
  await put(ddb, name, 'k');
  // An injected fault: the next write of key k throttles, then not.
  await server.advance(1);
  await server.fault(name, 'k', { op: 'write', count: 1 });
  await assert.rejects(put(ddb, name, 'k'),
    { name: 'ProvisionedThroughputExceededException' });
  await put(ddb, name, 'k');
  const parts = await server.partitions(name);
  assert.equal(parts.length, 1);
  assert.equal(parts[0].write.consumed_total, 3);
  const hot = await server.hotkeys(name, 1);
  assert.equal(hot.throttled_write[0].key_text, 'k');
  assert.ok(hot.throttled_write[0].count >= 1);
}

async function tableNames(endpoint) {
  return (await client(endpoint).send(new ListTablesCommand({}))).TableNames;
}

module.exports = { client, throttlesThenRefills, tableNames };
