// What a Lambda bundle may carry, judged from its source maps (esbuild lists every input file it
// bundled in each output's `sources`; the entry and every split-off chunk has one). Never: the embedded engine (chdb, @chdb/*: hundreds of MB of native code the
// handlers load only in the local stack), the CDK toolchain (aws-cdk-lib, constructs, cdk-nag), test
// and build tooling, or project code outside what the functions run (test/, bench/, local/, bin/,
// cdk/). A bundle that pulls one of them in grows, cold-starts slower, or breaks in Lambda.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';

const FORBIDDEN_PACKAGES = [
  'chdb',
  '@chdb/',
  'aws-cdk-lib',
  'constructs',
  'cdk-nag',
  'vitest',
  '@vitest/',
  'tsx',
  'esbuild',
  'fast-check',
  'tinybench',
  'aws-sdk-client-mock',
];
/** Project folders whose code may be bundled: the handlers and what they import. */
const ALLOWED_PROJECT_FOLDERS = ['shared', 'functions'];

/** The package a source path belongs to ('@scope/name' or 'name'), or undefined for project code. */
export function packageOf(source: string): string | undefined {
  const parts = source.split('/');
  const i = parts.lastIndexOf('node_modules');
  if (i < 0) return undefined;
  const first = parts[i + 1] ?? '';
  return first.startsWith('@') ? `${first}/${parts[i + 2] ?? ''}` : first;
}

/** The source maps of an asset directory (`index.mjs.map` and the chunks' maps), as paths relative to it. */
export function sourceMapFiles(assetDir: string): string[] {
  return (readdirSync(assetDir, { recursive: true }) as string[]).filter((f) => f.endsWith('.mjs.map')).sort();
}

/** The bundle's input files, from every source map in the asset directory (each file once). */
export function bundleSources(assetDir: string): string[] {
  return sourcesOf(
    assetDir,
    sourceMapFiles(assetDir).map((f) => f.slice(0, -'.map'.length)),
  );
}

/**
 * The output files Node loads when it imports `entry` (relative to the asset directory): the entry
 * and, transitively, the chunks it imports statically. The `import("./chunks/...")` of a lazy path is
 * not followed: those chunks load only when that path runs. Read from esbuild's minified output,
 * where a static import is `import{...}from"./x.mjs"` or `import"./x.mjs"`.
 */
export function staticOutputs(assetDir: string, entry = 'index.mjs'): string[] {
  const seen = new Set<string>([entry]);
  const queue = [entry];
  const staticImport = /\bimport\s*(?:[\w$*{},\s]*?\bfrom\s*)?["'](\.{1,2}\/[^"']+)["']/g;
  while (queue.length) {
    const file = queue.shift()!;
    const code = readFileSync(join(assetDir, file), 'utf8');
    for (const m of code.matchAll(staticImport)) {
      const dep = normalize(join(dirname(file), m[1]!));
      if (!seen.has(dep)) {
        seen.add(dep);
        queue.push(dep);
      }
    }
  }
  return [...seen];
}

/** The input files of the given outputs, from their source maps (`<output>.map`). */
export function sourcesOf(assetDir: string, outputs: string[]): string[] {
  const all = new Set<string>();
  for (const o of outputs) {
    const map = JSON.parse(readFileSync(join(assetDir, `${o}.map`), 'utf8')) as { sources?: string[] };
    for (const s of map.sources ?? []) all.add(s);
  }
  return [...all];
}

/**
 * Every source that must not be in a Lambda bundle, with the reason. `projectRoot` is the absolute
 * project directory. Source paths are relative to a bundling directory that no longer exists (say
 * `../../../ci1/shared/core/x.ts` for a project at /tmp/ci1), so a project file is recognized by the
 * longest run of the root's last path segments that starts the path once its `../` are gone.
 */
export function forbiddenSources(sources: string[], projectRoot: string): string[] {
  const rootSegments = projectRoot.split('/').filter(Boolean);
  const inProjectOf = (source: string): string => {
    const stripped = source.replace(/^(\.\.\/)+/, '');
    for (let k = rootSegments.length; k >= 1; k--) {
      const tail = `${rootSegments.slice(-k).join('/')}/`;
      if (stripped.startsWith(tail)) return stripped.slice(tail.length);
    }
    return stripped; // bundled from inside the project: already relative to its root
  };
  const out: string[] = [];
  for (const s of sources) {
    const pkg = packageOf(s);
    if (pkg !== undefined) {
      if (FORBIDDEN_PACKAGES.some((f) => (f.endsWith('/') ? pkg.startsWith(f) : pkg === f))) out.push(`${s}: package ${pkg} must not be bundled`);
      continue;
    }
    const folder = inProjectOf(s).split('/')[0] ?? '';
    if (!ALLOWED_PROJECT_FOLDERS.includes(folder)) out.push(`${s}: project code outside ${ALLOWED_PROJECT_FOLDERS.join('/, ')}/ must not be bundled`);
  }
  return out;
}
