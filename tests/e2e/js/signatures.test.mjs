// SPDX-License-Identifier: MIT
// signatures.test.mjs - the JS SDK v3 against a server of its own with
// --auth signature: its signing (x-amz-content-sha256 and the amz-sdk-*
// headers signed too) verified; an unknown key and a wrong secret refused
// with DynamoDB's errors; a clock 20 minutes off refused with "Signature
// expired", which the SDK corrects from the answer's Date header when it
// may retry; two accounts, each seeing its own tables. Messages:
// test_signatures.py names their sources.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DynamoDBClient, ListTablesCommand, DescribeTableCommand,
} from '@aws-sdk/client-dynamodb';
import { createTable, catchError, uniqueName } from './common.mjs';

const BIN = process.env.SHARDLOCAL_BIN;
const skip = BIN ? false : 'needs SHARDLOCAL_BIN (run.sh sets it)';
const REGION = 'us-east-1';
const ALICE = ['AKIDJSALICE', 'alice/js+secret', '111111111111'];
const BOB = ['AKIDJSBOB', 'bob-js-secret', '222222222222'];
let dir, server, endpoint;

async function sleep(ms) {
  await new Promise((res) => setTimeout(res, ms));
}

before(async () => {
  if (skip) return;
  dir = mkdtempSync(join(tmpdir(), 'sl-js-sigv4-'));
  const creds = join(dir, 'credentials');
  writeFileSync(creds, `${ALICE.join(' ')}\n${BOB.join(' ')}\n`);
  server = spawn(BIN, ['--port', '0', '--host', '127.0.0.1', '--in-memory',
    '--port-file', join(dir, 'port'), '--auth', 'signature',
    '--credentials', creds], { stdio: 'ignore' });
  for (let i = 0; i < 200 && !endpoint; i++) {
    try {
      const port = parseInt(readFileSync(join(dir, 'port'), 'utf8'), 10);
      if (port > 0) endpoint = `http://127.0.0.1:${port}`;
    } catch { /* not yet */ }
    if (!endpoint) await sleep(50);
  }
  assert.ok(endpoint, 'the server did not start');
});

after(() => {
  if (server) server.kill('SIGKILL');
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function client(key, secret = key[1], extra = {}) {
  return new DynamoDBClient({
    endpoint, region: REGION, maxAttempts: 1,
    credentials: { accessKeyId: key[0], secretAccessKey: secret },
    ...extra,
  });
}

test('the SDK\'s signature is verified', { skip }, async () => {
  const r = await client(ALICE).send(new ListTablesCommand({}));
  assert.deepEqual(r.TableNames, []);
});

test('an unknown key: UnrecognizedClientException', { skip }, async () => {
  const e = await catchError(() => client(['AKIDNOBODY', 'x'])
    .send(new ListTablesCommand({})));
  assert.equal(e.name, 'UnrecognizedClientException');
  assert.equal(e.message,
    'The security token included in the request is invalid.');
});

test('a wrong secret: InvalidSignatureException', { skip }, async () => {
  const e = await catchError(() => client(ALICE, 'wrong')
    .send(new ListTablesCommand({})));
  assert.equal(e.name, 'InvalidSignatureException');
  assert.equal(e.message, 'The request signature we calculated does not '
    + 'match the signature you provided. Check your AWS Secret Access Key '
    + 'and signing method. Consult the service documentation for details.');
});

test('a clock 20 minutes behind: refused, then corrected', { skip },
  async () => {
    const skewed = { systemClockOffset: -20 * 60 * 1000 };
    const e = await catchError(() => client(ALICE, ALICE[1], skewed)
      .send(new ListTablesCommand({})));
    assert.equal(e.name, 'InvalidSignatureException');
    assert.match(e.message, /^Signature expired: \d{8}T\d{6}Z is now earlier than \d{8}T\d{6}Z \(\d{8}T\d{6}Z - 15 min\.\)$/);
    // With retries the SDK takes its clock from the answer's Date header.
    const c = client(ALICE, ALICE[1], { ...skewed, maxAttempts: 3 });
    const r = await c.send(new ListTablesCommand({}));
    assert.ok(Array.isArray(r.TableNames));
    assert.ok(Math.abs(c.config.systemClockOffset) < 60 * 1000);
  });

test('two accounts, one table name each', { skip }, async () => {
  const name = uniqueName('jsacct');
  for (const key of [ALICE, BOB]) {
    const r = await createTable(client(key), name);
    assert.equal(r.TableDescription.TableArn,
      `arn:aws:dynamodb:${REGION}:${key[2]}:table/${name}`);
  }
  const d = await client(BOB).send(new DescribeTableCommand({
    TableName: name }));
  assert.equal(d.Table.TableArn,
    `arn:aws:dynamodb:${REGION}:${BOB[2]}:table/${name}`);
  const theirs = `arn:aws:dynamodb:${REGION}:${ALICE[2]}:table/${name}`;
  const e = await catchError(() => client(BOB).send(new DescribeTableCommand({
    TableName: theirs })));
  assert.equal(e.name, 'AccessDeniedException');
  assert.equal(e.message, `User: arn:aws:iam::${BOB[2]}:root is not `
    + `authorized to perform: dynamodb:DescribeTable on resource: ${theirs} `
    + 'because no resource-based policy allows the dynamodb:DescribeTable '
    + 'action');
});
