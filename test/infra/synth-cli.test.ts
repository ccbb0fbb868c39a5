// `cdk synth` itself, offline and without credentials, as CI and users run it: the real app entry
// (cdk.json -> cdk/app.ts), real esbuild bundling of both handlers, cdk-nag attached. Checks the
// bundles are ESM with the require shim, carry no chdb, and that a local-only config is refused
// with its JSON path and a non-zero exit.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT, REQUIRE_SHIM, SHIPPED_PACKAGES } from '../../cdk/bundling.js';

const CDK = join(PROJECT_ROOT, 'node_modules', '.bin', 'cdk');
/** One `cdk synth` may take this long (bundling both handlers on a loaded two-core machine). */
const SYNTH_MS = 240_000;
const outputs: string[] = [];
afterAll(() => {
  for (const o of outputs) rmSync(o, { recursive: true, force: true });
});

function cdkSynth(args: string[], env: Record<string, string> = {}) {
  const out = mkdtempSync(join(tmpdir(), 'ch-scatter-cdk-out-'));
  outputs.push(out);
  const r = spawnSync(CDK, ['synth', '--quiet', '--output', out, ...args], {
    cwd: PROJECT_ROOT,
    encoding: 'utf8',
    timeout: SYNTH_MS,
    env: {
      ...process.env,
      CDK_DISABLE_CLI_TELEMETRY: 'true',
      CDK_DISABLE_VERSION_CHECK: '1',
      // No credentials and no region: synthesis must not need AWS.
      AWS_ACCESS_KEY_ID: '',
      AWS_SECRET_ACCESS_KEY: '',
      AWS_PROFILE: '',
      CH_SCATTER_CONFIG: '',
      CDK_VALIDATION: 'true',
      ...env,
    },
  });
  return { ...r, out };
}

describe('npx cdk synth (offline)', () => {
  it(
    'synthesizes the AWS example with esbuild bundles of both handlers',
    () => {
      const r = cdkSynth([]);
      expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
      // CDK's built-in CloudFormation validation runs here (unit tests skip it) and must find nothing.
      expect(`${r.stdout}${r.stderr}`).not.toMatch(/validation found issues|WARNING|ERROR/);
      const template = JSON.parse(readFileSync(join(r.out, 'ChScatter.template.json'), 'utf8'));
      const fns = Object.values(template.Resources as Record<string, any>).filter((x) => x.Type === 'AWS::Lambda::Function');
      expect(fns).toHaveLength(5);

      const assets = readdirSync(r.out).filter((d) => d.startsWith('asset.') && statSync(join(r.out, d)).isDirectory());
      // One bundle for the coordinator, one shared by the four shard functions (same code, same hash).
      expect(assets).toHaveLength(2);
      for (const fn of fns) expect(assets).toContain(`asset.${fn.Properties.Code.S3Key.replace(/\.zip$/, '')}`);
      for (const a of assets) {
        const files = readdirSync(join(r.out, a)).sort();
        // The handler's module and the split-off modules it imports (cdk/bundling.ts), each with its map,
        // and the packages shipped unbundled (SHIPPED_PACKAGES: the zstd codec reads its .wasm beside it).
        expect(files).toEqual(['chunks', 'index.mjs', 'index.mjs.map', 'node_modules']);
        const nm = join(r.out, a, 'node_modules');
        const shipped = readdirSync(nm).flatMap((e) => (e.startsWith('@') ? readdirSync(join(nm, e)).map((sub) => `${e}/${sub}`) : [e]));
        expect(shipped.sort()).toEqual([...SHIPPED_PACKAGES].sort());
        const chunks = readdirSync(join(r.out, a, 'chunks'));
        expect(chunks.length).toBeGreaterThan(0);
        expect(chunks.filter((f) => !/^[\w-]+-[A-Z0-9]{8}\.mjs(\.map)?$/.test(f))).toEqual([]);
        const code = readFileSync(join(r.out, a, 'index.mjs'), 'utf8');
        expect(code).toMatch(/\bexport\s*\{[^}]*\bhandler\b/);
        for (const f of ['index.mjs', ...chunks.filter((c) => c.endsWith('.mjs')).map((c) => join('chunks', c))]) {
          const js = readFileSync(join(r.out, a, f), 'utf8');
          expect(js.startsWith(REQUIRE_SHIM), f).toBe(true);
          // chdb stays an import the bundle never resolves: none of its code or native binding is inside.
          expect(js, f).not.toMatch(/libchdb|chdb_node|@chdb\/lib-/);
        }
        expect(statSync(join(r.out, a, 'index.mjs')).size).toBeLessThan(8 * 1024 * 1024);
        // Self-contained: a fresh Node process outside the project (no node_modules to fall back on)
        // loads the bundle and finds the handler, so the ESM output and the require shim work; and
        // every chunk the handlers import lazily loads too (what they import is in the asset).
        const lazy = chunks.filter((c) => c.endsWith('.mjs')).map((c) => join(r.out, a, 'chunks', c));
        const load = spawnSync(
          process.execPath,
          [
            '--input-type=module',
            '-e',
            `const m = await import(${JSON.stringify(join(r.out, a, 'index.mjs'))}); for (const c of ${JSON.stringify(lazy)}) await import(c); process.stdout.write(typeof m.handler);`,
          ],
          { cwd: tmpdir(), encoding: 'utf8', timeout: 60_000, env: { PATH: process.env.PATH ?? '' } },
        );
        expect(load.stdout, load.stderr).toBe('function');
      }
      // Acknowledged cdk-nag findings travel with their reasons.
      expect(JSON.stringify(template)).toContain('rules_to_suppress');
    },
    SYNTH_MS,
  );

  it(
    'refuses the local example config (embedded replicas) with the JSON path and exit 1',
    () => {
      const r = cdkSynth([], { CH_SCATTER_CONFIG: 'examples/topology.json' });
      expect(r.status).not.toBe(0);
      expect(r.stderr).toContain('$.shards[0].replicas[0].embedded: embedded replicas are for the local stack only');
      expect(existsSync(join(r.out, 'ChScatter.template.json'))).toBe(false);
    },
    SYNTH_MS,
  );

  it(
    'refuses a schedule whose destination is not a configured table with the one-line config error, no stack trace',
    () => {
      const dir = mkdtempSync(join(tmpdir(), 'ch-scatter-cfg-'));
      outputs.push(dir);
      const cfg = JSON.parse(readFileSync(join(PROJECT_ROOT, 'examples', 'topology.aws.json'), 'utf8'));
      cfg.schedules[0].destination.table = 'analytics.nowhere';
      writeFileSync(join(dir, 'topology.json'), JSON.stringify(cfg));
      const r = cdkSynth([], { CH_SCATTER_CONFIG: join(dir, 'topology.json') });
      expect(r.status).toBe(1);
      expect(r.stderr).toContain('$.schedules[0].destination.table: analytics.nowhere is not in "tables" (rows are routed by its sharding key)');
      expect(r.stderr).not.toMatch(/\n\s+at |\.ts:\d+|Error:/);
      expect(existsSync(join(r.out, 'ChScatter.template.json'))).toBe(false);
    },
    SYNTH_MS,
  );
});
