// SPDX-License-Identifier: MIT
// helper.test.mjs - shardlocal-node under node:test: start() in before(),
// stop() in after(), the virtual clock, faults, the views and reset().
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { start } from 'shardlocal-node';
import common from '../common.cjs';

let server;
before(async () => { server = await start(); });
after(async () => {
  const endpoint = server.endpoint;
  assert.equal(await server.stop(), 0);         // SIGTERM: a clean exit
  await assert.rejects(fetch(endpoint + '/'));  // and nothing listens
});

test('starts its own server: free port, virtual clock', async () => {
  assert.match(server.endpoint, /^http:\/\/127\.0\.0\.1:\d+$/);
  assert.ok(server.port > 0);
  assert.equal((await server.info()).clock.mode, 'virtual');
});

test('throttles, refills with advance(), injects faults', async () => {
  await common.throttlesThenRefills(server, 'node_slow');
});

test('reset() deletes the tables and clears the faults', async () => {
  await server.fault('node_slow', 'other', { count: 5 });
  await server.reset();
  assert.deepEqual(await common.tableNames(server.endpoint), []);
});

test('a binary that is missing is a clear error', async () => {
  await assert.rejects(start({ bin: '/nonexistent/shardlocal' }),
    /\/nonexistent\/shardlocal is not an executable file/);
  await assert.rejects(start({ args: ['--bogus'] }),
    /unknown option '--bogus'/);
});
