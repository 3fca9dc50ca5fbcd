// SPDX-License-Identifier: MIT
// common.mjs - shared setup for the JS SDK v3 suites: a client pointed at
// SHARDLOCAL_ENDPOINT (unset = real DynamoDB) and table helpers.
import { randomUUID } from 'node:crypto';
import {
  DynamoDBClient, CreateTableCommand, DescribeTableCommand,
  DeleteTableCommand,
} from '@aws-sdk/client-dynamodb';

export const ENDPOINT = process.env.SHARDLOCAL_ENDPOINT || undefined;
export const ON_DYNALITE = process.env.SHARDLOCAL_E2E_DYNALITE === '1';
export const REGION = process.env.AWS_REGION || 'us-east-1';

export function makeClient() {
  return new DynamoDBClient({ endpoint: ENDPOINT, region: REGION,
    maxAttempts: 1 });
}

export function uniqueName(prefix = 'js') {
  return `${prefix}_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
}

export async function waitActive(client, name) {
  for (let i = 0; i < 600; i++) {
    try {
      const r = await client.send(new DescribeTableCommand({ TableName: name }));
      if (r.Table.TableStatus === 'ACTIVE') return r.Table;
    } catch (e) {
      if (e.name !== 'ResourceNotFoundException') throw e;
    }
    await new Promise((res) => setTimeout(res, 50));
  }
  throw new Error(`table ${name} never became ACTIVE`);
}

export async function createTable(client, name, hash = ['pk', 'S'], range) {
  const AttributeDefinitions = [{ AttributeName: hash[0], AttributeType: hash[1] }];
  const KeySchema = [{ AttributeName: hash[0], KeyType: 'HASH' }];
  if (range) {
    AttributeDefinitions.push({ AttributeName: range[0], AttributeType: range[1] });
    KeySchema.push({ AttributeName: range[0], KeyType: 'RANGE' });
  }
  const r = await client.send(new CreateTableCommand({
    TableName: name, AttributeDefinitions, KeySchema,
    BillingMode: 'PAY_PER_REQUEST',
  }));
  await waitActive(client, name);
  return r;
}

export async function deleteTableQuietly(client, name) {
  try {
    await client.send(new DeleteTableCommand({ TableName: name }));
  } catch { /* already gone */ }
}

// Run fn and return the error it throws; fail if it does not throw.
export async function catchError(fn) {
  try {
    await fn();
  } catch (e) {
    return e;
  }
  throw new Error('expected an error, the call succeeded');
}
