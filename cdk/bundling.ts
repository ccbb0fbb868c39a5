// How the Lambda code is built: esbuild on this machine (no Docker), one ESM file per handler.
// chdb (and its ~550 MB @chdb/* native packages) is the local stack's embedded ClickHouse; the handlers
// load it lazily and only there, so it is external and never shipped. The pinned AWS SDK v3 clients
// are bundled rather than taken from the runtime so production runs the version the tests ran.
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { OutputFormat, type BundlingOptions } from 'aws-cdk-lib/aws-lambda-nodejs';

/** The repository root: package-lock.json lives here, and esbuild resolves node_modules from it. */
export const PROJECT_ROOT = fileURLToPath(new URL('..', import.meta.url));
export const LOCK_FILE = join(PROJECT_ROOT, 'package-lock.json');
export const TSCONFIG = join(PROJECT_ROOT, 'tsconfig.json');

export const ENTRY = {
  coordinator: join(PROJECT_ROOT, 'functions', 'coordinator', 'handler.ts'),
  shard: join(PROJECT_ROOT, 'functions', 'shard', 'handler.ts'),
} as const;

/** zod as the bundles get it: without its translations and JSON Schema code (see that file). */
export const ZOD_FOR_BUNDLES = join(PROJECT_ROOT, 'functions', 'common', 'zod-for-bundles.mjs');
/** The esbuild aliases that make it so: `zod` itself, and `zod-files`, zod's files by path (not in its `exports`). */
export const ZOD_ALIASES: Record<string, string> = { zod: ZOD_FOR_BUNDLES, 'zod-files': join(PROJECT_ROOT, 'node_modules', 'zod') };

/** Modules that must never be bundled (see header). */
export const EXTERNAL_MODULES = ['chdb', '@chdb/*'];

// ESM output has no `require`; some CommonJS dependencies (bundled as-is by esbuild) call it for Node
// built-ins. The alias avoids clashing with any `createRequire` the bundle itself imports.
export const REQUIRE_SHIM =
  "import { createRequire as __chScatterCreateRequire } from 'node:module'; const require = __chScatterCreateRequire(import.meta.url);";

/** The web console's page (GET /play), shipped next to the coordinator's handler when the `play` option is on. */
export const PLAY_PAGE_SOURCE = join(PROJECT_ROOT, 'local', 'play', 'index.html');
export const PLAY_PAGE_BUNDLED = 'play.html';

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * `copyFiles`: files to put beside the bundle (name in the bundle -> source path), copied after
 * esbuild runs (on this machine, like the bundling itself).
 */
export function bundlingOptions(copyFiles: Record<string, string> = {}): BundlingOptions {
  const copies = Object.entries(copyFiles);
  return {
    ...(copies.length
      ? {
          commandHooks: {
            beforeBundling: () => [],
            beforeInstall: () => [],
            afterBundling: (_inputDir: string, outputDir: string) => copies.map(([name, src]) => `cp ${quote(src)} ${quote(join(outputDir, name))}`),
          },
        }
      : {}),
    format: OutputFormat.ESM,
    mainFields: ['module', 'main'],
    banner: REQUIRE_SHIM,
    target: 'node22',
    minify: true,
    sourceMap: true,
    // Stack traces need the mappings and file names, not a copy of every source: without it the map
    // is ~1/3 the size, and Node parses it at import when source maps are on (NODE_OPTIONS).
    sourcesContent: false,
    esbuildArgs: Object.fromEntries(Object.entries(ZOD_ALIASES).map(([from, to]) => [`--alias:${from}`, to])),
    externalModules: EXTERNAL_MODULES,
    forceDockerBundling: false,
    tsconfig: TSCONFIG,
  };
}
