// SPDX-License-Identifier: MIT
// global-setup.js - one shardlocal for a whole test run, in a test
// runner's global setup. It sets SHARDLOCAL_ENDPOINT, which the test
// files (forked after it) read; start() in a test file then reuses it.
//   Jest:   globalSetup: 'shardlocal-node/global-setup',
//           globalTeardown: 'shardlocal-node/global-teardown'
//   Vitest: test: { globalSetup: ['shardlocal-node/global-setup'] }
//           (the function it returns is Vitest's teardown)
// SHARDLOCAL_ARGS adds server flags ("--throttle-scale 0.01").
'use strict';

const { start } = require('./index.js');

module.exports = async function globalSetup() {
  const args = (process.env.SHARDLOCAL_ARGS || '').split(/\s+/).filter(Boolean);
  const server = await start({ args });
  process.env.SHARDLOCAL_ENDPOINT = server.endpoint;
  globalThis.__SHARDLOCAL_SERVER__ = server;
  return async function teardown() {
    await require('./global-teardown.js')();
  };
};
