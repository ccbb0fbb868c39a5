import { defineConfig } from 'vitest/config';

// One fast-check seed for the whole run, inherited by every forked test file (the setup file
// installs and prints it): FC_SEED=<n> replays a run.
process.env.FC_SEED ||= String((Math.random() * 0x1_0000_0000) | 0);

// chdb segfaults when loaded in a worker thread that exits, so every test file runs in
// its own forked process. Two cores: keep the fork count small.
export default defineConfig({
  test: {
    pool: 'forks',
    maxWorkers: 2,
    include: ['test/**/*.test.ts', 'functions/**/*.test.ts', 'cdk/**/*.test.ts'],
    setupFiles: ['test/support/fast-check-seed.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // `vitest run --coverage` (npm run coverage). Only code that runs inside the test processes is
    // counted: shard processes and CLI runs that tests spawn are not instrumented.
    coverage: {
      provider: 'v8',
      include: ['shared/**/*.ts', 'functions/**/*.ts', 'local/**/*.ts', 'bin/**/*.ts'],
      exclude: ['**/*.test.ts'],
      reporter: ['text-summary', 'html'],
      reportsDirectory: '.tmp/coverage',
      // A failing test must not hide the coverage numbers (vitest prints none on failure by default).
      reportOnFailure: true,
      // The floor: a little under what the full suite measures (docs/contributing.md has the numbers).
      thresholds: { statements: 88, branches: 82, functions: 89, lines: 91 },
    },
  },
});
