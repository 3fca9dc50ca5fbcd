// SPDX-License-Identifier: MIT
// global-teardown.js - stops the server global-setup.js started (Jest's
// globalTeardown; Vitest calls the teardown global-setup returns).
'use strict';

module.exports = async function globalTeardown() {
  const server = globalThis.__SHARDLOCAL_SERVER__;
  globalThis.__SHARDLOCAL_SERVER__ = undefined;
  if (server) {
    if (server.process) delete process.env.SHARDLOCAL_ENDPOINT;
    await server.stop();
  }
};
