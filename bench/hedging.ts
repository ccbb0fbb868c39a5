// Tail latency under stragglers (docs/benchmarks.md#3-hedged-requests-under-stragglers-hedging),
// simulated with sampled latencies: every shard request takes ~baseMs, except that with
// probability 1% it takes 50 ms. Each shard has TWO replicas (a replica pair); each request's
// straggling is independent, so a hedge to the other replica is normally fast.
// What runs: the scatter runtime (gather -> callShard with hedging, token bucket, limiter) over
// the coordinator's default invoker (SigV4-signed node:http) against the local Invoke endpoint, served by
// a child process whose shard functions run NO engine: they sleep and answer (say so in the docs).
// Per shard count, queries alternate between modes so noise hits them alike:
//   off     hedging disabled;
//   on      the config defaults (hedge after max(the shard's p95, 2 x its median), at most 5% extra);
//   on_p99  hedge after max(p99, 2 x median) with a 3% budget (the target budget).
// (The 2 x median floor and the fan-out-sized token bucket live in shared/core/scatter/hedge.ts.)
// The same three modes also run over an IN-PROCESS invoker (inproc_*: a setTimeout per request, no
// HTTP, no signing, no second process): it isolates the hedging algorithm from this machine's CPU
// contention, as a pure simulation would; the Invoke-endpoint figures are what the system delivers here.
// Each mode keeps its own warm HedgeState (as a warm coordinator container would), warmed with
// 50 untimed queries. extra_percent = hedge + retry attempts / primary attempts.
// Then the server time the losers consume on a real engine, their cancel off and on (_loser-time.ts).
import { setMaxListeners } from 'node:events';
import { createSignedHttpInvoker } from '../shared/adapters/aws/signed-http-invoker.js';
import { gather } from '../shared/core/scatter/gather.js';
import { createHedgeState, type HedgeState } from '../shared/core/scatter/hedge.js';
import type { HedgeSettings } from '../shared/core/scatter/call-shard.js';
import type { ShardInvoker } from '../shared/core/scatter/invoker.js';
import { InvokeError } from '../shared/core/scatter/invoker.js';
import { startChild } from './_fork.js';
import { stubPlan, stubTopology } from './_stub-plan.js';
import { msSince, quantile, r2, table } from './_stats.js';
import { loserServerTime } from './_loser-time.js';

const BASE_MS = 2;
const SLOW_MS = 50;
const SLOW_PROB = 0.01;

/** Sleeps like the stub functions, in this process; an abort (hedge loser, deadline) ends it. */
function inProcessInvoker(): ShardInvoker {
  return {
    invoke: (shard, payload, signal) =>
      new Promise((resolve, reject) => {
        const ms = Math.random() < SLOW_PROB ? SLOW_MS : BASE_MS;
        const t = setTimeout(() => {
          signal.removeEventListener('abort', onAbort);
          resolve({ ok: true, shard, replica: payload.replica, meta: [], rows: [], statistics: { elapsedMs: ms, rowsRead: 0, bytesRead: 0 } });
        }, ms);
        const onAbort = () => {
          clearTimeout(t);
          reject(new InvokeError('aborted', 'aborted'));
        };
        signal.addEventListener('abort', onAbort, { once: true });
      }),
  };
}

interface Mode {
  name: string;
  invoker: ShardInvoker;
  hedge: HedgeSettings;
  state: HedgeState;
  wall: number[];
  primaries: number;
  extra: number;
  hedged: number;
  missing: number;
}

export async function run(opts: { quick: boolean }): Promise<{ table: string; json: Record<string, unknown> }> {
  setMaxListeners(0); // one deadline signal per query carries listeners from every shard
  const json: Record<string, unknown> = {};
  const rows: (string | number)[][] = [];
  for (const n of [4, 16, 64]) {
    const queries = opts.quick ? (n >= 64 ? 25 : 60) : n >= 64 ? 600 : 1000;
    const child = await startChild<{ url: string }>('_shard-stub-child', { shards: n, baseMs: BASE_MS, slowMs: SLOW_MS, slowProb: SLOW_PROB });
    const names = Array.from({ length: n }, (_, i) => `ch-scatter-shard-${i}`);
    const invoker = createSignedHttpInvoker(n, { endpoint: child.info.url, functionNames: names, maxSockets: 512 });
    const topo = stubTopology(n, 2, { maxConcurrency: n * 2 });
    const plan = stubPlan(n);
    const configs: Pick<Mode, 'name' | 'hedge'>[] = [
      { name: 'off', hedge: { enabled: false, afterQuantile: 0.95, maxExtraPercent: 5 } },
      { name: 'on', hedge: { enabled: true, afterQuantile: 0.95, maxExtraPercent: 5 } },
      { name: 'on_p99', hedge: { enabled: true, afterQuantile: 0.99, maxExtraPercent: 3 } },
    ];
    const inproc = inProcessInvoker();
    const modes: Mode[] = [...configs.map((c) => ({ ...c, invoker })), ...configs.map((c) => ({ ...c, name: `inproc_${c.name}`, invoker: inproc }))].map(
      (m) => ({ ...m, state: createHedgeState(), wall: [], primaries: 0, extra: 0, hedged: 0, missing: 0 }),
    );
    const one = async (m: Mode, record: boolean) => {
      const t0 = process.hrtime.bigint();
      const g = await gather({
        plan,
        topo,
        invoker: m.invoker,
        queryId: 'bench',
        deadlineAt: Date.now() + 5000,
        now: Date.now,
        hedge: m.hedge,
        state: m.state,
      });
      const ms = msSince(t0);
      if (!record) return;
      m.wall.push(ms);
      m.missing += g.missing.length;
      for (const o of g.outcomes) {
        m.primaries++;
        m.extra += o.attempts.filter((a) => a.kind !== 'primary').length;
        if (o.hedged) m.hedged++;
      }
    };
    try {
      for (let i = 0; i < (opts.quick ? 20 : 50); i++) for (const m of modes) await one(m, false);
      for (let i = 0; i < queries; i++) for (const m of modes) await one(m, true);
    } finally {
      invoker.close();
      await child.stop();
    }
    const e: Record<string, number> = { queries, shard_requests_per_query: n };
    for (const m of modes) {
      e[`${m.name}_p50_ms`] = r2(quantile(m.wall, 0.5));
      e[`${m.name}_p99_ms`] = r2(quantile(m.wall, 0.99));
      e[`${m.name}_p999_ms`] = r2(quantile(m.wall, 0.999));
      if (!m.name.endsWith('off')) e[`${m.name}_extra_percent`] = r2((100 * m.extra) / m.primaries);
      e[`${m.name}_missing`] = m.missing;
    }
    e.extra_percent = e.on_extra_percent!;
    e.on_p99_over_p50 = r2(e.on_p99_ms! / e.on_p50_ms!);
    e.on_p99_p99_over_p50 = r2(e.on_p99_p99_ms! / e.on_p99_p50_ms!);
    json[String(n)] = e;
    for (const pre of ['', 'inproc_']) {
      const g = (k: string) => e[pre + k]!;
      rows.push([
        n,
        pre ? 'in-process' : 'Invoke endpoint',
        g('off_p50_ms'),
        g('off_p99_ms'),
        g('off_p999_ms'),
        g('on_p50_ms'),
        g('on_p99_ms'),
        g('on_p999_ms'),
        g('on_extra_percent'),
        g('on_p99_p50_ms'),
        g('on_p99_p99_ms'),
        g('on_p99_p999_ms'),
        g('on_p99_extra_percent'),
      ]);
    }
  }
  // The server time the losers consume, cancel off and on (real engines: the stubs above have none).
  const losers = await loserServerTime(opts);
  json.loser_server_time = losers.json;
  json.method = `stub shard functions (no engine) sleep ${BASE_MS} ms, ${SLOW_PROB * 100}% of requests ${SLOW_MS} ms; 2 replicas per shard; runtime + the default (signed node:http) invoker + local Invoke endpoint; modes interleaved per query; nearest-rank quantiles of per-query wall time`;
  json.target = 'on_p99 <= 2 x on_p50, extra_percent <= 3';
  // A pure simulation of the same workload at 4, 16 and 64 shards (sampled latencies, no network,
  // a 3 ms hedge trigger).
  json.reference_simulation = { p99_off_ms: 50, p99_on_ms: [5.3, 5.4, 5.5], extra_percent: 1 };
  return {
    table:
      table(
        [
          'shards',
          'transport',
          'off p50',
          'off p99',
          'off p99.9',
          'on p50',
          'on p99',
          'on p99.9',
          'on extra %',
          'on@p99 p50',
          'on@p99 p99',
          'on@p99 p99.9',
          'on@p99 extra %',
        ],
        rows,
      ) +
      `\n(ms per query; on = hedge after max(p95, 2 x median), budget 5%; on@p99 = after max(p99, 2 x median), budget 3%; ${SLOW_PROB * 100}% of shard requests take ${SLOW_MS} ms instead of ${BASE_MS})` +
      `\n\nThe losers' server time, their cancel off and on:\n${losers.table}`,
    json,
  };
}
