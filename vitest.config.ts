import { defineConfig } from 'vitest/config';

// chdb segfaults when loaded in a worker thread that exits, so every test file runs in
// its own forked process. Two cores: keep the fork count small.
export default defineConfig({
  test: {
    pool: 'forks',
    maxWorkers: 2,
    include: ['test/**/*.test.ts', 'functions/**/*.test.ts', 'cdk/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
