// A smoke run of `npm run bench` (CI runs a quick smoke of the benches, never a full run): every section
// runs with --quick and --json in its own process, and its JSON carries the keys docs/benchmarks.md reads.
// Timings are NOT asserted (benchmarks are not tests; figures live in docs/benchmarks.md); what is
// asserted is that each section runs to the end, compares what it claims to compare (e2e answers
// equal the Distributed table's, tree and flat answer alike), and reports no failed merge.
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';
import { describe, expect, test } from 'vitest';

const run = promisify(execFile);
const tsx = createRequire(import.meta.url).resolve('tsx');

async function bench(section: string): Promise<Record<string, Record<string, unknown>>> {
  const { stdout } = await run(process.execPath, ['--import', tsx, 'bench/index.ts', section, '--quick', '--json'], {
    maxBuffer: 64 * 1024 * 1024,
    timeout: 240_000,
    env: { ...process.env, CI: 'true' },
  });
  return JSON.parse(stdout) as Record<string, Record<string, unknown>>;
}

const positive = (x: unknown) => typeof x === 'number' && Number.isFinite(x) && x > 0;

describe('npm run bench -- <section> --quick --json', () => {
  test('fanout: sdk/raw/http latencies and ratios per shard count', { timeout: 240_000 }, async () => {
    const j = await bench('fanout');
    for (const n of ['4', '16', '64']) {
      for (const k of ['sdk_p50_ms', 'sdk_p99_ms', 'raw_p50_ms', 'ratio', 'http_p50_ms', 'http_ratio']) expect(positive(j[n]![k]), `${n}.${k}`).toBe(true);
    }
    expect(j.default_invoker).toBe('http');
  });

  test('hedging: off/on quantiles and extra requests, no shard missing', { timeout: 240_000 }, async () => {
    const j = await bench('hedging');
    for (const n of ['4', '16', '64']) {
      for (const k of ['off_p50_ms', 'off_p99_ms', 'on_p50_ms', 'on_p99_ms']) expect(positive(j[n]![k]), `${n}.${k}`).toBe(true);
      expect(typeof j[n]!.extra_percent).toBe('number');
      expect([j[n]!.off_missing, j[n]!.on_missing]).toEqual([0, 0]);
    }
  });

  test("engine-names: both wraps answer the final query's rows, timed against it", { timeout: 240_000 }, async () => {
    const j = await bench('engine-names');
    for (const n of ['1000', '100000']) {
      for (const k of ['alone', 'once', 'perSide']) expect(positive(j[n]![k]), `${n}.${k}`).toBe(true);
      expect(j[n]!.same_answer).toBe(true);
    }
  });

  test('tree: flat and tree finalize to the same answer', { timeout: 240_000 }, async () => {
    const j = await bench('tree');
    const sizes = Object.keys(j).filter((k) => /^\d+$/.test(k));
    expect(sizes.length).toBeGreaterThan(0);
    for (const n of sizes) {
      expect(positive(j[n]!.flat_ms) && positive(j[n]!.tree_ms)).toBe(true);
      expect(j[n]!.same_answer).toBe(true);
    }
  });

  test('payload: both queries merge to the end', { timeout: 240_000 }, async () => {
    const j = await bench('payload');
    for (const q of ['group_by_all', 'group_by_topk']) {
      expect(j[q]!.stopped_at_shard).toBeUndefined();
      expect(positive(j[q]!.bytes_per_shard_response)).toBe(true);
      expect(positive(j[q]!.result_rows)).toBe(true);
    }
  });

  test('e2e: every query answers as the Distributed table does on 18.16', { timeout: 240_000 }, async () => {
    const j = await bench('e2e');
    for (const q of ['full_aggregate', 'group_by_order_limit', 'in_list_sharding_key', 'global_in']) {
      for (const k of ['distributed_ms', 'ch_scatter_ms', 'ratio', 'rows_scanned']) expect(positive(j[q]![k]), `${q}.${k}`).toBe(true);
      expect(j[q]!.same_result).toBe(true);
    }
    expect(j.in_list_sharding_key!.shards_queried).toBe(1);
  });

  test('two-stage: the general path answers as the Distributed table does, with the final stage measured', { timeout: 240_000 }, async () => {
    const j = await bench('two-stage');
    for (const q of ['full_aggregate', 'top_count', 'uniq', 'in_list_sharding_key']) {
      for (const k of ['distributed_ms', 'fast_ms', 'general_ms', 'general_ratio', 'final_stage_ms']) expect(positive(j[q]![k]), `${q}.${k}`).toBe(true);
      expect(j[q]!.general_same_as_distributed, q).toBe(true);
    }
  });

  test('clickhouse-http: the interface answers as the JSON API and the Distributed table do', { timeout: 240_000 }, async () => {
    const j = await bench('clickhouse-http');
    for (const q of ['full_aggregate', 'group_by_top10', 'in_list_sharding_key', 'rows_limit_1000']) {
      for (const k of ['distributed_ms', 'json_api_fast_ms', 'json_api_general_ms', 'clickhouse_interface_ms'])
        expect(positive(j[q]![k]), `${q}.${k}`).toBe(true);
      expect(j[q]!.same_result, q).toBe(true);
    }
  });

  test('coldstart: both bundles zipped, imported and invoked cold, with their budgets', { timeout: 240_000 }, async () => {
    const j = await bench('coldstart');
    expect(j.budget_import_ms).toBe(100);
    for (const f of ['coordinator', 'shard']) {
      for (const k of ['zip_bytes', 'import_ms_p50', 'import_ms_p50_without_source_maps', 'first_invocation_ms_p50', 'warm_invocation_ms_p50'])
        expect(positive(j[f]![k]), `${f}.${k}`).toBe(true);
      expect(j[f]!.zip_bytes as number).toBeLessThanOrEqual(5 * 1024 * 1024);
      expect(typeof j[f]!.within_budget).toBe('boolean');
    }
  });

  test('cost: dollars per million queries per shard count, recomputable from the printed inputs', { timeout: 240_000 }, async () => {
    const j = await bench('cost');
    const p = j.prices as unknown as {
      lambdaArmPerGbSecond: number;
      lambdaPerRequest: number;
      httpApiPerRequest: number;
      httpApiStepBytes: number;
      logsIngestPerGb: number;
    };
    const queries = ['full_aggregate', 'top_count', 'pruned_in', 'global_in', 'general_uniq', 'general_totals', 'top_count_shard_size'];
    let recomputed = 0;
    for (const n of ['4', '64']) {
      for (const q of queries) {
        const e = j[n]![q] as {
          refused?: { status: number; code: string };
          usd_per_million: Record<string, number>;
          inputs: { coordinator_mb: number; shard_mb: number; coordinator_ms: number[]; shard_ms: number[]; front_door_bytes: number; log_bytes: number };
        };
        expect(e, `${n}.${q}`).toBeDefined();
        // A refusal is an answer (the general path's final stage outgrowing one invocation at 64 shards), never a crash.
        if (e.refused) {
          expect(n, `${q} refused at 4 shards`).not.toBe('4');
          expect(e.refused.status).toBe(413);
          continue;
        }
        const i = e.inputs;
        // Lambda bills each invocation's duration rounded UP to the millisecond.
        const gbs = (ms: number[], mb: number) => ms.reduce((a, x) => a + Math.ceil(x) / 1000, 0) * (mb / 1024);
        const usd =
          (gbs(i.coordinator_ms, i.coordinator_mb) + gbs(i.shard_ms, i.shard_mb)) * p.lambdaArmPerGbSecond +
          (i.coordinator_ms.length + i.shard_ms.length) * p.lambdaPerRequest +
          Math.max(1, Math.ceil(i.front_door_bytes / p.httpApiStepBytes)) * p.httpApiPerRequest +
          (i.log_bytes / 1024 ** 3) * p.logsIngestPerGb;
        expect(e.usd_per_million.total, `${n}.${q}`).toBeCloseTo(usd * 1e6, 2);
        expect(i.shard_ms.length, `${n}.${q} shard invocations`).toBeGreaterThan(0);
        recomputed++;
      }
      expect(positive((j[n]!.tuned as unknown as { coordinatorMb: number }).coordinatorMb)).toBe(true);
    }
    expect(recomputed).toBeGreaterThanOrEqual(queries.length + 2);
    // Pruning: one shard asked at 4 shards; every shard at 64 for a full scan.
    expect((j['4']!.pruned_in as unknown as { inputs: { shard_ms: number[] } }).inputs.shard_ms).toHaveLength(1);
    expect((j['64']!.full_aggregate as unknown as { inputs: { shard_ms: number[] } }).inputs.shard_ms).toHaveLength(64);
    for (const [q, x] of Object.entries(j.distributed_initiator as Record<string, { cpu_ms: number; same_answer: boolean }>)) {
      expect(x.same_answer, q).toBe(true);
      expect(positive(x.cpu_ms), q).toBe(true);
    }
  });

  test('plan and merge run', { timeout: 240_000 }, async () => {
    expect(Object.keys(await bench('plan')).length).toBeGreaterThan(0);
    expect(Object.keys(await bench('merge')).length).toBeGreaterThan(0);
  });
});
