// SPDX-License-Identifier: MIT
// vitest.config.mjs - one shardlocal for the whole Vitest run.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['vitest/**/*.test.mjs'],
    globalSetup: ['shardlocal-node/global-setup'],
  },
});
