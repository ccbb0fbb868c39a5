// Cold start of what `cdk deploy` ships: the coordinator and shard bundles of the AWS example,
// synthesized with real esbuild bundling (cdk/create.ts, as `cdk synth`), measured three ways:
//   zip       the asset directory zipped (`zip -9 -X`, what is uploaded), against a 5 MB budget;
//   import    a fresh `node` process outside the project importing the bundle (index.mjs and the
//             chunks it imports statically; the lazily imported chunks load later, if ever), with the
//             template's NODE_OPTIONS (--enable-source-maps) and without, median of N processes,
//             against 100 ms;
//   first     the first invocation through the simulation's Invoke endpoint (local/sim): process
//             start + import + the handler's first run (coordinator: GET /health; shard: a request
//             it refuses after setting up its ClickHouse access, credentials from the local Secrets
//             Manager), median of N cold environments; and a warm invocation for comparison.
// These are this machine's figures, not Lambda's: Lambda's CPU share is proportional to memory and
// its runtime is Node 22, so the budgets are a regression guard here, not a promise for AWS.
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { staticOutputs } from '../cdk/bundle-contents.js';
import { createChScatter } from '../cdk/create.js';
import { startSim } from '../local/sim/index.js';
import { machine, quantile, r2, table } from './_stats.js';
import { httpEvent } from '../test/support/http-event.js';

export const BUDGET = { importMs: 100, zipBytes: 5 * 1024 * 1024 };

function zipBytes(assetDir: string, into: string): number {
  const zip = join(into, `${Math.random().toString(36).slice(2)}.zip`);
  execFileSync('zip', ['-q', '-9', '-X', '-r', zip, '.'], { cwd: assetDir });
  return statSync(zip).size;
}

/** ms to import the bundle in a fresh process, outside the project, as Lambda's runtime would. */
function importMs(taskRoot: string, nodeOptions: string): number {
  const r = spawnSync(
    process.execPath,
    ['--input-type=module', '-e', "const t0 = performance.now(); await import('./index.mjs'); process.stdout.write(String(performance.now() - t0));"],
    {
      cwd: taskRoot,
      encoding: 'utf8',
      timeout: 60_000,
      env: { PATH: process.env.PATH ?? '', NODE_OPTIONS: nodeOptions, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    },
  );
  const ms = Number(r.stdout);
  if (r.status !== 0 || !Number.isFinite(ms)) throw new Error(`importing ${taskRoot}/index.mjs failed: ${r.stderr.slice(0, 500)}`);
  return ms;
}

const healthEvent = () => httpEvent('GET', '/health', undefined, {}, 'bench');

async function invokeMs(invokeUrl: string, name: string, payload: unknown): Promise<{ ms: number; status: number; error: string | null }> {
  const t0 = performance.now();
  const r = await fetch(`${invokeUrl}/2015-03-31/functions/${encodeURIComponent(name)}/invocations`, { method: 'POST', body: JSON.stringify(payload) });
  await r.text();
  return { ms: performance.now() - t0, status: r.status, error: r.headers.get('x-amz-function-error') };
}

export async function run(opts: { quick: boolean }): Promise<{ table: string; json: Record<string, unknown> }> {
  const n = opts.quick ? 3 : 10;
  const dir = mkdtempSync(join(tmpdir(), 'ch-scatter-coldstart-'));
  try {
    process.env.CDK_VALIDATION ??= 'false';
    const outdir = join(dir, 'cdk.out');
    const app = new App({ outdir, context: { config: 'examples/topology.aws.json', nag: false } });
    createChScatter(app, {});
    app.synth();

    const sim = await startSim({ cdkOut: outdir, log: () => undefined });
    const json: Record<string, unknown> = {
      machine: machine(),
      // Import time is CPU-bound: on a shared 2-core box it scales with the load, so it is recorded.
      load_average_1m: r2(loadavg()[0]!),
      method: `AWS example synthesized with real bundling; zip -9 of each asset; import: median of ${n} fresh node processes in a copy outside the project; first invocation: median of ${n} cold environments through the simulation's Invoke endpoint`,
      budget_import_ms: BUDGET.importMs,
      budget_zip_bytes: BUDGET.zipBytes,
    };
    const rows: (string | number)[][] = [];
    try {
      const kinds = [
        { kind: 'coordinator', fn: sim.assembly.functions.find((f) => f.logicalId.startsWith('Coordinator'))!, payload: healthEvent() },
        { kind: 'shard', fn: sim.assembly.functions.find((f) => f.logicalId.startsWith('Shard0'))!, payload: { type: 'query', shard: 0, replica: 0 } },
      ];
      for (const { kind, fn, payload } of kinds) {
        const task = join(dir, `task-${kind}`);
        cpSync(fn.assetDir, task, { recursive: true });
        const zip = zipBytes(fn.assetDir, dir);
        const nodeOptions = fn.environment.NODE_OPTIONS ?? '';
        importMs(task, nodeOptions); // the first read warms the page cache; not counted
        const withMaps = Array.from({ length: n }, () => importMs(task, nodeOptions));
        const plain = Array.from({ length: n }, () => importMs(task, ''));
        const rt = sim.functions.get(fn.name)!;
        const cold: number[] = [];
        let last: { status: number; error: string | null } = { status: 0, error: null };
        for (let i = 0; i < n; i++) {
          await rt.recycle();
          const r = await invokeMs(sim.invokeUrl, fn.name, payload);
          cold.push(r.ms);
          last = r;
        }
        if (last.status !== 200 || last.error) throw new Error(`${kind}: the first invocation failed (${last.status} ${last.error ?? ''})`);
        const warm: number[] = [];
        for (let i = 0; i < n; i++) warm.push((await invokeMs(sim.invokeUrl, fn.name, payload)).ms);
        const importMedian = quantile(withMaps, 0.5);
        const ok = importMedian <= BUDGET.importMs && zip <= BUDGET.zipBytes;
        json[kind] = {
          bundle_bytes: statSync(join(fn.assetDir, 'index.mjs')).size,
          // What the import reads and compiles (index.mjs and its static chunks), and every module file of the asset.
          loaded_at_import_bytes: staticOutputs(fn.assetDir).reduce((n, f) => n + statSync(join(fn.assetDir, f)).size, 0),
          all_modules_bytes: (readdirSync(fn.assetDir, { recursive: true }) as string[])
            .filter((f) => f.endsWith('.mjs'))
            .reduce((n, f) => n + statSync(join(fn.assetDir, f)).size, 0),
          zip_bytes: zip,
          import_ms_p50: r2(importMedian),
          import_ms_p90: r2(quantile(withMaps, 0.9)),
          import_ms_p50_without_source_maps: r2(quantile(plain, 0.5)),
          node_options: nodeOptions,
          first_invocation_ms_p50: r2(quantile(cold, 0.5)),
          first_invocation_ms_max: r2(Math.max(...cold)),
          warm_invocation_ms_p50: r2(quantile(warm, 0.5)),
          within_budget: ok,
        };
        rows.push([
          kind,
          `${r2(zip / 1024 / 1024)} MB (≤ 5)`,
          `${r2(importMedian)} / ${r2(quantile(withMaps, 0.9))} (≤ ${BUDGET.importMs})`,
          r2(quantile(plain, 0.5)),
          r2(quantile(cold, 0.5)),
          r2(quantile(warm, 0.5)),
          ok ? 'within budget' : 'OVER BUDGET',
        ]);
      }
    } finally {
      await sim.stop();
    }
    const head = [
      'function',
      'zip',
      'import ms p50 / p90 (template NODE_OPTIONS)',
      'import ms p50, no source maps',
      'first invocation ms p50',
      'warm invocation ms p50',
      'budgets',
    ];
    const note = `load average (1 min) at the start: ${r2(loadavg()[0]!)} on this machine; budgets: import <= ${BUDGET.importMs} ms, zip <= 5 MB`;
    return { table: `${table(head, rows)}\n${note}`, json };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
