// SPDX-License-Identifier: MIT
// helper.test.cjs - shardlocal-node's global setup under Jest: the tests
// find SHARDLOCAL_ENDPOINT, and start() there reuses that server.
const fs = require('node:fs');
const { start } = require('shardlocal-node');
const common = require('../common.cjs');

test('the global setup started a server', async () => {
  expect(process.env.SHARDLOCAL_ENDPOINT).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  if (process.env.ENDPOINT_FILE) {
    fs.writeFileSync(process.env.ENDPOINT_FILE, process.env.SHARDLOCAL_ENDPOINT);
  }
  const server = await start();
  expect(server.endpoint).toBe(process.env.SHARDLOCAL_ENDPOINT);
  expect(server.process).toBeNull();            // reused, not started
  expect(await server.stop()).toBeNull();       // and not stopped by us
  await common.throttlesThenRefills(server, 'jest_slow');
});
