// The Lambda bundles as `cdk synth` builds them (real esbuild, through cdk/create.ts) carry no
// dependency they should not: no chdb, no CDK toolchain, no test or bench code (judged from each
// bundle's source map, which lists every bundled input). The checker itself is tested on paths that
// must be refused, so the test cannot pass by finding nothing to look at.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { App } from 'aws-cdk-lib';
import { PROJECT_ROOT } from '../../cdk/bundling.js';
import { bundleSources, forbiddenSources, packageOf, sourcesOf, staticOutputs } from '../../cdk/bundle-contents.js';
import { createChScatter } from '../../cdk/create.js';

const dir = mkdtempSync(join(tmpdir(), 'ch-scatter-bundles-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
process.env.CDK_VALIDATION ??= 'false';

describe('Lambda bundle contents', () => {
  it('refuses what must never be bundled', () => {
    const root = '/work/proj';
    const bad = [
      '../../../../work/proj/node_modules/chdb/index.js',
      '../../../../work/proj/node_modules/@chdb/lib-linux-x64/index.js',
      '../../../../work/proj/node_modules/aws-cdk-lib/core/lib/app.js',
      '../../../../work/proj/test/support/ch-servers.ts',
      '../../../../work/proj/bench/fanout.ts',
      '../../../../work/proj/local/stack.ts',
      '../../../../work/proj/cdk/stack.ts',
    ];
    expect(forbiddenSources(bad, root)).toHaveLength(bad.length);
    const good = [
      '../../../../work/proj/node_modules/@aws-sdk/client-lambda/dist-es/index.js',
      '../../../../work/proj/shared/core/errors.ts',
      '../../../../work/proj/shared/adapters/aws/sigv4.ts',
      '../../../../work/proj/functions/shard/handler.ts',
    ];
    expect(forbiddenSources(good, root)).toEqual([]);
    // A checkout one level under the filesystem root's child (/tmp/ci1), bundled from /tmp/cdk-x/a/b:
    // the paths name only the checkout's last segment.
    expect(forbiddenSources(['../../../ci1/shared/core/errors.ts', '../../../ci1/functions/shard/handler.ts'], '/tmp/ci1')).toEqual([]);
    expect(forbiddenSources(['../../../ci1/bench/fanout.ts', '../../../ci1/local/stack.ts'], '/tmp/ci1')).toHaveLength(2);
    expect(packageOf('../x/node_modules/@smithy/core/dist/a.js')).toBe('@smithy/core');
  });

  it('the synthesized coordinator and shard bundles carry only the handlers, core, adapters and runtime dependencies', { timeout: 180_000 }, () => {
    const outdir = join(dir, 'cdk.out');
    const app = new App({ outdir, context: { config: 'examples/topology.aws.json', nag: false } });
    createChScatter(app, {});
    app.synth();
    const assets = readdirSync(outdir).filter((d) => d.startsWith('asset.') && statSync(join(outdir, d)).isDirectory());
    expect(assets).toHaveLength(2);
    let coordinators = 0;
    for (const a of assets) {
      const sources = bundleSources(join(outdir, a));
      // Both bundles hold the SDK and the project's own handler code: the maps are the full input list.
      expect(sources.some((s) => packageOf(s)?.startsWith('@aws-sdk/'))).toBe(true);
      expect(sources.some((s) => /functions\/(coordinator|shard)\/handler\.ts$/.test(s))).toBe(true);
      expect(forbiddenSources(sources, PROJECT_ROOT)).toEqual([]);
      // The coordinator's import (its cold start) loads no AWS SDK code: the SDK sits in chunks that
      // only its lazy paths import (docs/architecture.md#cold-start).
      if (sources.some((s) => s.endsWith('functions/coordinator/handler.ts'))) {
        coordinators++;
        const loaded = staticOutputs(join(outdir, a));
        expect(loaded).toContain('index.mjs');
        expect(loaded.length).toBeGreaterThan(1); // the entry imports shared chunks: the walk follows them
        const atImport = sourcesOf(join(outdir, a), loaded);
        expect(atImport.some((s) => s.endsWith('functions/coordinator/handler.ts'))).toBe(true);
        // (@smithy/service-error-classification, 1 KB, is the X-Ray SDK's: its SDK v3 patcher imports it.)
        expect(atImport.filter((s) => /^@aws-sdk\/|^@smithy\/(?!service-error-classification)/.test(packageOf(s) ?? ''))).toEqual([]);
      }
    }
    expect(coordinators).toBe(1);
  });

  it('follows static imports and not dynamic ones', () => {
    const asset = join(dir, 'walk');
    mkdirSync(join(asset, 'chunks'), { recursive: true });
    const files: Record<string, string> = {
      'index.mjs': 'import{a as b}from"./chunks/a.mjs";import"./chunks/b.mjs";const l=()=>import("./chunks/lazy.mjs");export{l as handler};',
      'chunks/a.mjs': 'import{c}from"./c.mjs";export const a=c;',
      'chunks/b.mjs': 'export{};',
      'chunks/c.mjs': 'export const c=1;',
      'chunks/lazy.mjs': 'import"./d.mjs";',
      'chunks/d.mjs': '',
    };
    for (const [f, code] of Object.entries(files)) writeFileSync(join(asset, f), code);
    expect(staticOutputs(asset).sort()).toEqual(['chunks/a.mjs', 'chunks/b.mjs', 'chunks/c.mjs', 'index.mjs']);
  });
});
