// Coordinator overhead of the fan-out itself (docs/benchmarks.md#2-fan-out-overhead-fanout). N stand-in
// shard functions that do no work sit behind the project's local Lambda Invoke endpoint in a CHILD
// process; this process is the coordinator. Per query (one batch of N parallel invocations) we time
// raw, http and runtime interleaved round-robin so machine noise hits them alike, the order rotated by
// one each query so no path always follows the same one. The sdk path runs after them, in a phase of
// its own: it allocates about three times what the others do per call, and interleaved, its garbage is
// collected inside the next path's timing (in bench/_fanout-profile.ts at 64 shards, the runtime's CPU
// per invocation was 65-71 us without the sdk path interleaved and 82-84 us with it). Earlier runs
// interleaved all four: CH_BENCH_FANOUT_SDK=interleaved does that again, and CH_BENCH_FANOUT_ORDER=fixed
// keeps the order raw, http, sdk, runtime of the runs before 2026-12-01:
//   raw      node:http POSTs with a keep-alive agent, JSON.parse of each answer: the floor;
//   http     the coordinator's default query invoker (createSignedHttpInvoker: SigV4-signed
//            node:http POSTs, keep-alive agent, the same answer classification and zod validation);
//   sdk      the SDK invoker (createLambdaInvoker: @aws-sdk/client-lambda InvokeCommand,
//            maxAttempts 1, keep-alive agent, response validation with zod), CH_SCATTER_INVOKER=sdk;
//   runtime  the whole scatter runtime over the default (http) invoker, as the coordinator runs it:
//            gather -> callShard (deadline signal, limiter, hedge bookkeeping) -> merge on arrival
//            (a counting merger). Before the http invoker existed this ran over the SDK invoker.
// Coordinator CPU per query = process.cpuUsage() delta of this process / queries; the stub
// functions' CPU is in the child and is not counted. Also: CPU per SigV4 signature, the
// hand-written signer vs @smithy/signature-v4 (bench/_signer-cost.ts), as sigv4_sign_us.
import http from 'node:http';
import { loadavg } from 'node:os';
import { setMaxListeners } from 'node:events';
import { createLambdaInvoker } from '../shared/adapters/aws/lambda-invoker.js';
import { createSignedHttpInvoker } from '../shared/adapters/aws/signed-http-invoker.js';
import { gather } from '../shared/core/scatter/gather.js';
import { createHedgeState } from '../shared/core/scatter/hedge.js';
import type { ShardRequest } from '../shared/core/protocol/shard-wire.js';
import { startChild } from './_fork.js';
import { stubPlan, stubTopology, countingMerger } from './_stub-plan.js';
import { signerCost } from './_signer-cost.js';
import { postJson } from './_http.js';
import { cpuMsSince, msSince, quantile, r2, r3, table } from './_stats.js';

const SIZES = [4, 16, 64, 256];
/** CH_BENCH_SIZES=64 (a comma list) measures only those sizes, for repeated runs at one size. */
const sizesFromEnv = process.env.CH_BENCH_SIZES?.split(',').map(Number);
const rotate = process.env.CH_BENCH_FANOUT_ORDER !== 'fixed';
const sdkInterleaved = process.env.CH_BENCH_FANOUT_SDK === 'interleaved';

function request(shard: number): ShardRequest {
  return { type: 'query', queryId: 'bench', shard, replica: 0, sql: 'SELECT 1', deadline: Date.now() + 10_000, settings: {}, external: [], attempt: 'primary' };
}

function rawInvoker(url: string, maxSockets: number) {
  const agent = new http.Agent({ keepAlive: true, maxSockets });
  const u = new URL(url);
  const one = (shard: number) => {
    const body = JSON.stringify(request(shard));
    return postJson(
      agent,
      u,
      `/2015-03-31/functions/ch-scatter-shard-${shard}/invocations`,
      { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      body,
    );
  };
  return { one, close: () => agent.destroy() };
}

interface PathStats {
  wall: number[];
  cpu: number;
}

type PathName = 'raw' | 'http' | 'sdk' | 'runtime';

export async function run(opts: { quick: boolean }): Promise<{ table: string; json: Record<string, unknown> }> {
  // One AbortSignal per query carries a listener per shard (here and in gather's deadline signal):
  // Node's leak warning at 11 listeners would otherwise print once per query and cost CPU.
  setMaxListeners(0);
  // The SDK version is pinned on purpose (later releases need Node 22); its Node 22 notice is noise in
  // a bench table.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const sizes = sizesFromEnv ?? (opts.quick ? [4, 16, 64] : SIZES);
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
    const lean = createSignedHttpInvoker(n, { endpoint: child.info.url, functionNames: names, maxSockets: 256 });
    try {
      const paths: Record<PathName, () => Promise<void>> = {
        raw: async () => {
          const out = await Promise.all(names.map((_, i) => raw.one(i)));
          if (out.length !== n || !(out[n - 1] as { ok?: boolean }).ok) throw new Error('raw fan-out lost an answer');
        },
        http: async () => {
          const ac = new AbortController();
          const out = await Promise.all(names.map((_, i) => lean.invoke(i, request(i), ac.signal)));
          if (out.some((o) => !o.ok)) throw new Error('http fan-out got a failure');
        },
        sdk: async () => {
          const ac = new AbortController();
          const out = await Promise.all(names.map((_, i) => sdk.invoke(i, request(i), ac.signal)));
          if (out.some((o) => !o.ok)) throw new Error('sdk fan-out got a failure');
        },
        runtime: async () => {
          const g = await gather({
            plan,
            topo,
            invoker: lean,
            queryId: 'bench',
            deadlineAt: Date.now() + 10_000,
            now: Date.now,
            hedge: topo.query.hedge,
            state,
          });
          if (g.missing.length || g.outcomes.length !== n) throw new Error(`runtime fan-out missed ${g.missing.length} shards`);
        },
      };
      const names_ = Object.keys(paths) as PathName[];
      const stats: Record<string, PathStats> = Object.fromEntries(names_.map((k) => [k, { wall: [], cpu: 0 }]));
      const phases: PathName[][] = sdkInterleaved ? [names_] : [names_.filter((k) => k !== 'sdk'), ['sdk']];
      for (const phase of phases) {
        // Warm-up: sockets opened, JIT warm, SDK middleware resolved.
        for (let i = 0; i < 10; i++) for (const k of phase) await paths[k]!();
        for (let i = 0; i < iterations; i++) {
          for (let j = 0; j < phase.length; j++) {
            const name = phase[rotate ? (i + j) % phase.length : j]!;
            const c0 = process.cpuUsage();
            const t0 = process.hrtime.bigint();
            await paths[name]!();
            stats[name]!.wall.push(msSince(t0));
            stats[name]!.cpu += cpuMsSince(c0);
          }
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
      e.http_ratio = r2(e.http_p50_ms! / e.raw_p50_ms!);
      e.http_cpu_us_per_invocation = e.http_cpu_us_per_invoke!;
      json[String(n)] = e;
      const f = (k: string) => (e[k] === undefined ? '-' : e[k]!);
      rows.push([
        n,
        f('raw_p50_ms'),
        f('raw_p99_ms'),
        f('http_p50_ms'),
        f('http_p99_ms'),
        f('sdk_p50_ms'),
        f('sdk_p99_ms'),
        f('runtime_p50_ms'),
        f('runtime_p99_ms'),
        f('http_ratio'),
        f('ratio'),
        f('runtime_ratio'),
        f('raw_cpu_us_per_invoke'),
        f('http_cpu_us_per_invoke'),
        f('sdk_cpu_us_per_invoke'),
        f('runtime_cpu_us_per_invoke'),
      ]);
    } finally {
      sdk.close();
      lean.close();
      raw.close();
      await child.stop();
    }
  }
  const sign = await signerCost(opts);
  json.sigv4_sign_us = sign;
  json.default_invoker = 'http';
  json.target =
    'runtime_ratio (runtime_p50 / raw_p50: the whole runtime over the default invoker) <= 1.5 at 64 shards; http_ratio is the default invoker alone, ratio is sdk_p50 / raw_p50';
  json.method = `batches of N parallel invocations to no-op stub functions behind the local Invoke endpoint (child process); ${sdkInterleaved ? 'raw/http/sdk/runtime interleaved' : 'raw/http/runtime interleaved, then sdk in a phase of its own'}${rotate ? ', order rotated each query' : ' in a fixed order'}; nearest-rank quantiles; CPU = process.cpuUsage of the coordinator process`;
  json.order = rotate ? 'rotated' : 'fixed';
  json.load_average_1m = r2(loadavg()[0]!);
  return {
    table:
      table(
        [
          'shards',
          'raw p50',
          'raw p99',
          'http p50',
          'http p99',
          'sdk p50',
          'sdk p99',
          'runtime p50',
          'runtime p99',
          'http/raw',
          'sdk/raw',
          'runtime/raw',
          'raw CPU/inv',
          'http CPU/inv',
          'sdk CPU/inv',
          'runtime CPU/inv',
        ],
        rows,
      ) +
      '\n(latency in ms per query of N parallel invocations; CPU in coordinator-process microseconds per invocation;' +
      " http = the coordinator's default invoker, sdk = CH_SCATTER_INVOKER=sdk, runtime = gather over http;" +
      (sdkInterleaved ? ' all four interleaved)' : ' raw, http and runtime interleaved, sdk in its own phase after them)') +
      `\nSigV4 signature CPU: hand-written ${sign.lean} us, @smithy/signature-v4 ${sign.smithy ?? '-'} us`,
    json,
  };
}
