// What `import { z } from 'zod'` resolves to in the Lambda bundles (an esbuild alias,
// cdk/bundling.ts), not in tests or the local stack: zod's own entry (zod/v4/classic/external.js)
// less three exports nothing in the functions uses at run time, which esbuild cannot drop on its
// own because `z` is used as a namespace value (here and in Powertools' parser):
//   - `locales` (and `core`, which re-exports them): ~45 translations of the error messages,
//     ~280 KB of the coordinator's 1.3 MB bundle; English, the default, still registers itself
//     (zod/v4/classic/schemas.js);
//   - `toJSONSchema` / `fromJSONSchema`: JSON Schema conversion.
// Less code to parse and compile at every cold start (docs/benchmarks.md#6-cold-start-of-the-deployed-bundles-coldstart).
// It names zod's own files: test/infra/zod-for-bundles.test.ts bundles it as the functions are
// bundled and checks that it exports everything zod does but those, answering with the same
// messages, so a zod upgrade that moves a file or adds an export fails there.
import * as z from './zod-for-bundles-external.mjs';
export * from './zod-for-bundles-external.mjs';
export { z, z as default };
