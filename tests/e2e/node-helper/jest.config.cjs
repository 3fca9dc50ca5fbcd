// SPDX-License-Identifier: MIT
// jest.config.cjs - one shardlocal for the whole Jest run.
module.exports = {
  testMatch: ['<rootDir>/jest/**/*.test.cjs'],
  globalSetup: 'shardlocal-node/global-setup',
  globalTeardown: 'shardlocal-node/global-teardown',
};
