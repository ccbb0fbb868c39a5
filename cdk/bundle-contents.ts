// What a Lambda bundle may carry, judged from its source map (esbuild lists every input file it
// bundled in `sources`). Never: the embedded engine (chdb, @chdb/*: hundreds of MB of native code the
// handlers load only in the local stack), the CDK toolchain (aws-cdk-lib, constructs, cdk-nag), test
// and build tooling, or project code outside what the functions run (test/, bench/, local/, bin/,
// cdk/). A bundle that pulls one of them in grows, cold-starts slower, or breaks in Lambda.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

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
const ALLOWED_PROJECT_FOLDERS = ['core', 'adapters', 'functions'];

/** The package a source path belongs to ('@scope/name' or 'name'), or undefined for project code. */
export function packageOf(source: string): string | undefined {
  const parts = source.split('/');
  const i = parts.lastIndexOf('node_modules');
  if (i < 0) return undefined;
  const first = parts[i + 1] ?? '';
  return first.startsWith('@') ? `${first}/${parts[i + 2] ?? ''}` : first;
}

/** The bundle's input files, from `<assetDir>/index.mjs.map`. */
export function bundleSources(assetDir: string, mapFile = 'index.mjs.map'): string[] {
  const map = JSON.parse(readFileSync(join(assetDir, mapFile), 'utf8')) as { sources?: string[] };
  return map.sources ?? [];
}

/**
 * Every source that must not be in a Lambda bundle, with the reason. `projectRoot` is the absolute
 * project directory. Source paths are relative to a bundling directory that no longer exists (say
 * `../../../ci1/core/x.ts` for a project at /tmp/ci1), so a project file is recognized by the
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
