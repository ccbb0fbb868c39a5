// Coordinator overhead of the fan-out itself (issue 7 item 2). N stand-in shard functions that do
// no work sit behind the project's local Lambda Invoke endpoint in a CHILD process; this process
// is the coordinator. Per query (one batch of N parallel invocations) we time three paths,
// interleaved round-robin so machine noise hits them alike:
//   raw      node:http POSTs with a keep-alive agent, JSON.parse of each answer: the floor;
//   sdk      the project's invoker (createLambdaInvoker: @aws-sdk/client-lambda InvokeCommand,
//            maxAttempts 1, keep-alive agent, response validation with zod);
//   runtime  the whole scatter runtime over that invoker: gather -> callShard (deadline signal,
//            limiter, hedge bookkeeping) -> merge on arrival (a counting merger);
//   sdk_cached / sigv4_http  where the SDK's cost goes (bench/_lean-invokers.ts): the same SDK
//            with its middleware stack cached, and SigV4 signing + node:http without the SDK.
// Coordinator CPU per query = process.cpuUsage() delta of this process / queries; the stub
// functions' CPU is in the child and is not counted.
import http from 'node:http';
import { setMaxListeners } from 'node:events';
import { createLambdaInvoker } from '../shared/scatter/lambda-invoker.js';
import { gather } from '../shared/scatter/gather.js';
import { createHedgeState } from '../shared/scatter/hedge.js';
import type { ShardRequest } from '../shared/scatter/protocol.js';
import { startChild } from './_fork.js';
import { stubPlan, stubTopology, countingMerger } from './_stub-plan.js';
import { sdkCachedInvoker, sigv4HttpInvoker } from './_lean-invokers.js';
import { postJson } from './_http.js';
import { cpuMsSince, msSince, quantile, r2, r3, table } from './_stats.js';

const SIZES = [4, 16, 64, 256];

function request(shard: number): ShardRequest {
  return { type: 'query', queryId: 'bench', shard, replica: 0, sql: 'SELECT 1', deadline: Date.now() + 10_000, settings: {}, external: [], attempt: 'primary' };
}

function rawInvoker(url: string, maxSockets: number) {
  const agent = new http.Agent({ keepAlive: true, maxSockets });
  const u = new URL(url);
  const one = (shard: number) => {
    const body = JSON.stringify(request(shard));
    return postJson(agent, u, `/2015-03-31/functions/ch-scatter-shard-${shard}/invocations`, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }, body);
  };
  return { one, close: () => agent.destroy() };
}

interface PathStats {
  wall: number[];
  cpu: number;
}

type PathName = 'raw' | 'sdk' | 'runtime' | 'sdk_cached' | 'sigv4_http';

export async function run(opts: { quick: boolean }): Promise<{ table: string; json: Record<string, unknown> }> {
  // One AbortSignal per query carries a listener per shard (here and in gather's deadline signal):
  // Node's leak warning at 11 listeners would otherwise print once per query and cost CPU.
  setMaxListeners(0);
  const sizes = opts.quick ? [4, 16, 64] : SIZES;
  const json: Record<string, unknown> = {};
  const rows: (string | number)[][] = [];
  for (const n of sizes) {
    const iterations = opts.quick ? 30 : n >= 256 ? 150 : 300;
    const child = await startChild<{ url: string }>('_shard-stub-child', { shards: n });
    const names = Array.from({ length: n }, (_, i) => `ch-scatter-shard-${i}`);
    const sdk = createLambdaInvoker(n, { endpoint: child.info.url, functionNames: names, maxSockets: 256 });
    const raw = rawInvoker(child.info.url, 256);
    const topo = stubTopology(n, 1, { maxConcurrency: Math.max(64, n), hedge: { enabled: false } });
    const state = createHedgeState();
    const plan = stubPlan(n, countingMerger);
    const cached = await sdkCachedInvoker(child.info.url, 256);
    const sigv4 = await sigv4HttpInvoker(child.info.url, 256);
    const lean = (inv: { invoke(fn: string, body: string, s: AbortSignal): Promise<unknown> }) => async () => {
      const ac = new AbortController();
      const out = await Promise.all(names.map((f, i) => inv.invoke(f, JSON.stringify(request(i)), ac.signal)));
      if (out.some((o) => !(o as { ok?: boolean }).ok)) throw new Error('lean fan-out got a failure');
    };
    try {
      const paths: Partial<Record<PathName, () => Promise<void>>> = {
        raw: async () => {
          const out = await Promise.all(names.map((_, i) => raw.one(i)));
          if (out.length !== n || !(out[n - 1] as { ok?: boolean }).ok) throw new Error('raw fan-out lost an answer');
        },
        sdk: async () => {
          const ac = new AbortController();
          const out = await Promise.all(names.map((_, i) => sdk.invoke(i, request(i), ac.signal)));
          if (out.some((o) => !o.ok)) throw new Error('sdk fan-out got a failure');
        },
        runtime: async () => {
          const g = await gather({ plan, topo, invoker: sdk, queryId: 'bench', deadlineAt: Date.now() + 10_000, now: Date.now, hedge: topo.query.hedge, state });
          if (g.missing.length || g.outcomes.length !== n) throw new Error(`runtime fan-out missed ${g.missing.length} shards`);
        },
      };
      if (cached) paths.sdk_cached = lean(cached);
      if (sigv4) paths.sigv4_http = lean(sigv4);
      const names_ = Object.keys(paths) as PathName[];
      const stats: Record<string, PathStats> = Object.fromEntries(names_.map((k) => [k, { wall: [], cpu: 0 }]));
      // Warm-up: sockets opened, JIT warm, SDK middleware resolved.
      for (let i = 0; i < 10; i++) for (const k of names_) await paths[k]!();
      for (let i = 0; i < iterations; i++) {
        for (const name of names_) {
          const c0 = process.cpuUsage();
          const t0 = process.hrtime.bigint();
          await paths[name]!();
          stats[name]!.wall.push(msSince(t0));
          stats[name]!.cpu += cpuMsSince(c0);
        }
      }
      const e: Record<string, number> = { iterations };
      for (const k of names_) {
        const st = stats[k]!;
        e[`${k}_p50_ms`] = r3(quantile(st.wall, 0.5));
        e[`${k}_p99_ms`] = r3(quantile(st.wall, 0.99));
        e[`${k}_cpu_ms_per_query`] = r3(st.cpu / iterations);
        e[`${k}_cpu_us_per_invoke`] = r2((st.cpu * 1000) / iterations / n);
      }
      e.ratio = r2(e.sdk_p50_ms! / e.raw_p50_ms!);
      e.runtime_ratio = r2(e.runtime_p50_ms! / e.raw_p50_ms!);
      if (cached) e.sdk_cached_ratio = r2(e.sdk_cached_p50_ms! / e.raw_p50_ms!);
      if (sigv4) e.sigv4_http_ratio = r2(e.sigv4_http_p50_ms! / e.raw_p50_ms!);
      json[String(n)] = e;
      const f = (k: string) => (e[k] === undefined ? '-' : e[k]!);
      rows.push([n, f('raw_p50_ms'), f('raw_p99_ms'), f('sdk_p50_ms'), f('sdk_p99_ms'), f('runtime_p50_ms'), f('runtime_p99_ms'), f('ratio'), f('runtime_ratio'), f('sdk_cached_ratio'), f('sigv4_http_ratio'), f('raw_cpu_us_per_invoke'), f('sdk_cpu_us_per_invoke'), f('runtime_cpu_us_per_invoke'), f('sdk_cached_cpu_us_per_invoke'), f('sigv4_http_cpu_us_per_invoke')]);
    } finally {
      sdk.close();
      cached?.close();
      sigv4?.close();
      raw.close();
      await child.stop();
    }
  }
  json.target = 'ratio (sdk_p50 / raw_p50) <= 1.5 at 64 shards';
  json.method = 'batches of N parallel invocations to no-op stub functions behind the local Invoke endpoint (child process); raw/sdk/runtime interleaved; nearest-rank quantiles; CPU = process.cpuUsage of the coordinator process';
  return {
    table: table(
      ['shards', 'raw p50', 'raw p99', 'sdk p50', 'sdk p99', 'runtime p50', 'runtime p99', 'sdk/raw', 'runtime/raw', 'sdk-cached/raw', 'sigv4-http/raw', 'raw CPU/inv', 'sdk CPU/inv', 'runtime CPU/inv', 'sdk-cached CPU/inv', 'sigv4-http CPU/inv'],
      rows,
    ) + '\n(latency in ms per query of N parallel invocations; CPU in coordinator-process microseconds per invocation)',
    json,
  };
}
