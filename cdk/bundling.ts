// How the Lambda code is built: esbuild on this machine (no Docker), ESM with code splitting. Each
// handler's asset directory holds `index.mjs` (what Lambda's `index.handler` loads, and what every
// invocation needs) and `chunks/*.mjs`, the modules the handlers load with `import()` only on the
// paths that use them (the AWS SDK clients, the planner, ...): Node reads and compiles a chunk the
// first time it is imported, so a cold start compiles only what that path runs.
// chdb (and its ~550 MB @chdb/* native packages) is the local stack's embedded ClickHouse; the handlers
// load it lazily and only there, so it is external and never shipped. The pinned AWS SDK v3 clients
// are bundled rather than taken from the runtime so production runs the version the tests ran.
//
// aws-lambda-nodejs' NodejsFunction cannot split (it always passes esbuild a single --outfile), so the
// functions take their code from Code.fromAsset with this local bundling; the asset hash is the
// output's, as NodejsFunction's is.
import { copyFileSync, cpSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join, relative } from 'node:path';
import { AssetHashType, DockerImage, type BundlingOptions, type ILocalBundling } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { buildSync, type BuildOptions } from 'esbuild';

/** The repository root: package-lock.json lives here, and esbuild resolves node_modules from it. */
export const PROJECT_ROOT = fileURLToPath(new URL('..', import.meta.url));
export const LOCK_FILE = join(PROJECT_ROOT, 'package-lock.json');
export const TSCONFIG = join(PROJECT_ROOT, 'tsconfig.json');

export const ENTRY = {
  coordinator: join(PROJECT_ROOT, 'functions', 'coordinator', 'handler.ts'),
  shard: join(PROJECT_ROOT, 'functions', 'shard', 'handler.ts'),
  stream: join(PROJECT_ROOT, 'functions', 'coordinator', 'stream-entry.ts'),
} as const;

/** zod as the bundles get it: without its translations and JSON Schema code (see that file). */
export const ZOD_FOR_BUNDLES = join(PROJECT_ROOT, 'functions', 'common', 'zod-for-bundles.mjs');
/** The esbuild aliases that make it so: `zod` itself, and `zod-files`, zod's files by path (not in its `exports`). */
export const ZOD_ALIASES: Record<string, string> = { zod: ZOD_FOR_BUNDLES, 'zod-files': join(PROJECT_ROOT, 'node_modules', 'zod') };

/**
 * Packages shipped as they are in the asset's node_modules instead of bundled: the exchange's zstd
 * codec reads its WebAssembly from beside its own file (`__dirname`), which a bundle does not have.
 */
export const SHIPPED_PACKAGES = ['@bokuweb/zstd-wasm'];

/** Modules that must never be bundled (see header), and the shipped ones. */
export const EXTERNAL_MODULES = ['chdb', '@chdb/*', ...SHIPPED_PACKAGES];

// ESM output has no `require`; some CommonJS dependencies (bundled as-is by esbuild) call it for Node
// built-ins. The alias avoids clashing with any `createRequire` the bundle itself imports. Every
// output file (entry and chunks) starts with it: each is its own module scope.
export const REQUIRE_SHIM =
  "import { createRequire as __chScatterCreateRequire } from 'node:module'; const require = __chScatterCreateRequire(import.meta.url);";

/** The handler's file in the asset (Lambda's handler string is `index.handler`) and where the split-off modules go. */
export const HANDLER_FILE = 'index.mjs';
export const CHUNK_DIR = 'chunks';

/** The web console's page (GET /play), shipped next to the coordinator's handler when the `play` option is on. */
export const PLAY_PAGE_SOURCE = join(PROJECT_ROOT, 'local', 'play', 'index.html');
export const PLAY_PAGE_BUNDLED = 'play.html';

/** The esbuild options of one handler's bundle, written to `outdir` (bench and tests build with exactly these). */
export function esbuildOptions(entry: string, outdir: string): BuildOptions {
  return {
    entryPoints: { index: entry },
    outdir,
    bundle: true,
    splitting: true,
    chunkNames: `${CHUNK_DIR}/[name]-[hash]`,
    outExtension: { '.js': '.mjs' },
    platform: 'node',
    format: 'esm',
    target: 'node22',
    mainFields: ['module', 'main'],
    banner: { js: REQUIRE_SHIM },
    minify: true,
    sourcemap: true,
    // Stack traces need the mappings and file names, not a copy of every source: without it the map
    // is ~1/3 the size, and Node parses it at import when source maps are on (NODE_OPTIONS).
    sourcesContent: false,
    alias: ZOD_ALIASES,
    external: EXTERNAL_MODULES,
    tsconfig: TSCONFIG,
    absWorkingDir: PROJECT_ROOT,
    logLevel: 'warning',
  };
}

/**
 * The asset bundling of one handler. Its fields are what CDK's asset cache keys on (one bundle per
 * distinct entry and copy list: the shard functions share theirs); `local` runs esbuild here and
 * never falls back to Docker (the image is never pulled).
 */
export class HandlerBundling implements BundlingOptions {
  readonly image = DockerImage.fromRegistry('ch-scatter-bundles-locally-only');
  readonly entry: string;
  readonly copyFiles: Record<string, string>;
  readonly local: ILocalBundling;

  constructor(entry: string, copyFiles: Record<string, string> = {}) {
    this.entry = relative(PROJECT_ROOT, entry);
    this.copyFiles = copyFiles;
    this.local = {
      tryBundle: (outputDir: string) => {
        buildSync(esbuildOptions(entry, outputDir));
        for (const [name, src] of Object.entries(copyFiles)) copyFileSync(src, join(outputDir, name));
        shipPackages(outputDir);
        return true;
      },
    };
  }
}

/** The shipped packages, copied into `<outputDir>/node_modules` (Node resolves them from every chunk there). */
export function shipPackages(outputDir: string): void {
  for (const name of SHIPPED_PACKAGES) {
    // Node takes the CommonJS build (the package's `exports` for node): the browser and ESM builds and the maps stay behind.
    const skip = [join('dist', 'web'), join('dist', 'esm')];
    cpSync(join(PROJECT_ROOT, 'node_modules', name), join(outputDir, 'node_modules', name), {
      recursive: true,
      filter: (src) => !skip.some((s) => src.includes(s)) && !src.endsWith('.map'),
    });
  }
}

/**
 * The Lambda code of one handler: its esbuild bundle. `copyFiles`: files to put beside the bundle
 * (name in the asset -> source path).
 */
export function handlerCode(entry: string, copyFiles: Record<string, string> = {}): lambda.Code {
  return lambda.Code.fromAsset(PROJECT_ROOT, { assetHashType: AssetHashType.OUTPUT, bundling: new HandlerBundling(entry, copyFiles) });
}
