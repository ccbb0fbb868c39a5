// zod/v4/classic/external.js (zod 4.6.7) without `core`, `locales`, `toJSONSchema` and `fromJSONSchema`;
// why: functions/common/zod-for-bundles.mjs. `zod-files` is zod's package directory (an esbuild alias,
// cdk/bundling.ts): these files are not in zod's `exports`, so only a bundler reaches them.
export * from 'zod-files/v4/classic/schemas.js';
export * from 'zod-files/v4/classic/checks.js';
export * from 'zod-files/v4/classic/errors.js';
export * from 'zod-files/v4/classic/parse.js';
export * from 'zod-files/v4/classic/compat.js';
export {
  globalRegistry,
  registry,
  config,
  memoizer,
  $output,
  $input,
  $brand,
  clone,
  regexes,
  treeifyError,
  prettifyError,
  formatError,
  flattenError,
  TimePrecision,
  util,
  NEVER,
  INVALID,
  toZod,
  compile,
  withParser,
  ZodCompileAsyncError,
  ZodCompileUnsupportedError,
  getDiscriminatedOption,
} from 'zod-files/v4/core/index.js';
export { deepPartial } from 'zod-files/v4/classic/deep-partial.js';
export { input, output } from 'zod-files/v4/classic/in-out.js';
export { ZodISODateTime, ZodISODate, ZodISOTime, ZodISODuration } from 'zod-files/v4/classic/iso.js';
export * as iso from 'zod-files/v4/classic/iso.js';
export * as coerce from 'zod-files/v4/classic/coerce.js';
