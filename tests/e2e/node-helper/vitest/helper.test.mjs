// SPDX-License-Identifier: MIT
// helper.test.mjs - shardlocal-node's global setup under Vitest.
import fs from 'node:fs';
import { test, expect } from 'vitest';
import { start } from 'shardlocal-node';
import common from '../common.cjs';

test('the global setup started a server', async () => {
  expect(process.env.SHARDLOCAL_ENDPOINT).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  if (process.env.ENDPOINT_FILE) {
    fs.writeFileSync(process.env.ENDPOINT_FILE, process.env.SHARDLOCAL_ENDPOINT);
  }
  const server = await start();
  expect(server.process).toBeNull();
  await common.throttlesThenRefills(server, 'vitest_slow');
});
