// Planning time: parse + analyze + per-shard rewrite + print, for a query with a 1,000-value IN list on
// the sharding key, at 4, 64 and 256 shards (target and results:
// docs/benchmarks.md#planner-and-merge-plan-merge). Method: a warm-up, then many timed iterations of
// the whole planQuery (string in, every shard's SQL out), in batches of 20; we report the median and
// p90 of per-iteration wall time (process.hrtime.bigint) and the fastest batch mean (the machine is
// shared by several processes; the fastest batch is the best estimate of the uncontended cost). No
// engine is involved: this is coordinator CPU before the first byte.
import { parseTopology } from '../shared/core/config/load.js';
import { planQuery } from '../shared/core/plan/index.js';
import { parseSelect } from '../shared/core/sql/parse.js';

function topology(shards: number) {
  return parseTopology({
    cluster: 'bench',
    shards: Array.from({ length: shards }, (_, i) => ({ weight: 1, replicas: [{ url: `http://ch-${i}:8123` }] })),
    tables: { 'analytics.events_dist': { local: 'analytics.events', shardingKey: { column: 'sensor', type: 'String', function: 'xxHash64' } } },
  });
}

const values = Array.from({ length: 1000 }, (_, i) => `'sensor-${i}'`).join(', ');
const SQL = `SELECT sensor, count() AS c, avg(value) AS v FROM analytics.events_dist WHERE sensor IN (${values}) AND ts >= '2024-01-01 00:00:00' GROUP BY sensor ORDER BY c DESC LIMIT 10`;

function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
}

const BATCH = 20;

/** Per-iteration times (ms); `bestBatch` is the lowest mean over consecutive batches of BATCH. */
async function timeIt(fn: () => Promise<unknown>, iterations: number): Promise<number[] & { bestBatch: number }> {
  for (let i = 0; i < Math.min(100, iterations); i++) await fn(); // warm-up: JIT, placement cache
  const out = [] as unknown as number[] & { bestBatch: number };
  out.bestBatch = Infinity;
  let batch = 0;
  for (let i = 0; i < iterations; i++) {
    const t0 = process.hrtime.bigint();
    await fn();
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    out.push(ms);
    batch += ms;
    if ((i + 1) % BATCH === 0) {
      out.bestBatch = Math.min(out.bestBatch, batch / BATCH);
      batch = 0;
    }
  }
  return out;
}

export async function run(opts: { quick: boolean }): Promise<{ table: string; json: Record<string, unknown> }> {
  const iterations = opts.quick ? 200 : 2000;
  const json: Record<string, unknown> = {
    method: `${iterations} planQuery calls (string in, every shard's SQL out) after warm-up; hrtime wall clock; median, p90, and the fastest mean of ${BATCH}-call batches`,
    in_list_values: 1000,
  };
  const rows: string[] = [
    '| shards | parse only (ms, median) | planQuery (ms, median) | p90 (ms) | fastest batch mean (ms) | queried shards |',
    '|---:|---:|---:|---:|---:|---:|',
  ];
  const parse = await timeIt(async () => parseSelect(SQL), iterations);
  for (const n of [4, 64, 256]) {
    const topo = topology(n);
    const sample = await planQuery(SQL, topo);
    const t = await timeIt(() => planQuery(SQL, topo), iterations);
    const med = quantile(t, 0.5);
    const p90 = quantile(t, 0.9);
    const queried = sample.shards.filter((s) => !s.skipped).length;
    json[`plan_ms_median_${n}`] = Number(med.toFixed(4));
    json[`plan_ms_p90_${n}`] = Number(p90.toFixed(4));
    json[`plan_ms_best_batch_${n}`] = Number(t.bestBatch.toFixed(4));
    rows.push(`| ${n} | ${quantile(parse, 0.5).toFixed(3)} | ${med.toFixed(3)} | ${p90.toFixed(3)} | ${t.bestBatch.toFixed(3)} | ${queried} |`);
  }
  json.parse_ms_median = Number(quantile(parse, 0.5).toFixed(4));
  json.target = 'plan_ms_median_64 < 1';
  return { table: rows.join('\n'), json };
}
