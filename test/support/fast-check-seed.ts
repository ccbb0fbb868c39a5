// Vitest setup file (vitest.config.ts setupFiles): one fast-check seed per test run, so a failing
// property can be replayed exactly with FC_SEED=<n> npx vitest run <file>. It installs the run's
// seed as fast-check's global seed and prints it once per test file. Every fc.assert, fc.check,
// fc.sample and @fast-check/vitest test.prop without a `seed` of its own then uses it (fast-check
// also prints the seed and the counterexample's path when a property fails).
import fc from 'fast-check';
import { fcSeed } from './fc-seed.js';

const seed = fcSeed();
fc.configureGlobal({ ...fc.readConfigureGlobal(), seed });
console.log(`[fast-check] seed=${seed} (rerun with FC_SEED=${seed})`);
