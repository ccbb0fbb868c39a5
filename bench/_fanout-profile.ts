// Focused look at the fan-out paths of bench/fanout.ts at one size, for profiling and quick A/B runs:
//   node [--cpu-prof] --import tsx bench/_fanout-profile.ts [paths] [shards] [queries]
// paths: a comma list of raw, http, sdk, httpDeadline, callShard, runtime (default runtime); several are interleaved per query as
// in the bench. Prints per path: p50 wall ms, coordinator CPU us per invocation, p50 ratio to raw.
import http from 'node:http';
import { setMaxListeners } from 'node:events';
import { createSignedHttpInvoker } from '../shared/adapters/aws/signed-http-invoker.js';
import { createLambdaInvoker } from '../shared/adapters/aws/lambda-invoker.js';
import { gather } from '../shared/core/scatter/gather.js';
import { deadlineSignal } from '../shared/core/scatter/deadline.js';
import { callShard } from '../shared/core/scatter/call-shard.js';
import { createLimiter } from '../shared/core/scatter/fanout.js';
import { createHedgeState } from '../shared/core/scatter/hedge.js';
import type { ShardRequest } from '../shared/core/protocol/shard-wire.js';
import { startChild } from './_fork.js';
import { postJson } from './_http.js';
import { stubPlan, stubTopology, countingMerger } from './_stub-plan.js';
import { cpuMsSince, msSince, quantile, r2, r3 } from './_stats.js';

const paths = (process.argv[2] ?? 'runtime').split(',');
const n = Number(process.argv[3] ?? 64);
const queries = Number(process.argv[4] ?? 2000);
setMaxListeners(0);
const child = await startChild<{ url: string }>('_shard-stub-child', { shards: n });
const names = Array.from({ length: n }, (_, i) => `ch-scatter-shard-${i}`);
const lean = createSignedHttpInvoker(n, { endpoint: child.info.url, functionNames: names, maxSockets: 256 });
const sdk = createLambdaInvoker(n, { endpoint: child.info.url, functionNames: names, maxSockets: 256 });
const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
const url = new URL(child.info.url);
const topo = stubTopology(n, 1, { maxConcurrency: Math.max(64, n), hedge: { enabled: false } });
const state = createHedgeState();
const plan = stubPlan(n, countingMerger);
const request = (shard: number): ShardRequest => ({
  type: 'query',
  queryId: 'bench',
  shard,
  replica: 0,
  sql: 'SELECT 1',
  deadline: Date.now() + 10_000,
  settings: {},
  external: [],
  attempt: 'primary',
});
const run: Record<string, () => Promise<unknown>> = {
  raw: () =>
    Promise.all(
      names.map((fn, i) => {
        const body = JSON.stringify(request(i));
        return postJson(
          agent,
          url,
          `/2015-03-31/functions/${fn}/invocations`,
          { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
          body,
        );
      }),
    ),
  http: () => {
    const ac = new AbortController();
    return Promise.all(names.map((_, i) => lean.invoke(i, request(i), ac.signal)));
  },
  sdk: () => {
    const ac = new AbortController();
    return Promise.all(names.map((_, i) => sdk.invoke(i, request(i), ac.signal)));
  },
  // Bisecting the runtime's extra cost: the default invoker with the runtime's deadline signal, and
  // with callShard over it (no gather).
  httpDeadline: async () => {
    const d = deadlineSignal(Date.now() + 10_000, Date.now);
    try {
      await Promise.all(names.map((_, i) => lean.invoke(i, request(i), d.signal)));
    } finally {
      d.dispose();
    }
  },
  callShard: async () => {
    const d = deadlineSignal(Date.now() + 10_000, Date.now);
    const limiter = createLimiter(Math.max(64, n));
    try {
      await Promise.all(
        names.map((_, i) =>
          callShard({
            shard: i,
            replicaCount: 1,
            request: (replica, attempt) => ({ ...request(i), replica, attempt }),
            invoker: lean,
            limiter,
            deadlineAt: Date.now() + 10_000,
            signal: d.signal,
            now: Date.now,
            hedge: topo.query.hedge,
            state,
          }),
        ),
      );
    } finally {
      d.dispose();
    }
  },
  runtime: async () => {
    const g = await gather({ plan, topo, invoker: lean, queryId: 'bench', deadlineAt: Date.now() + 10_000, now: Date.now, hedge: topo.query.hedge, state });
    if (g.missing.length) throw new Error('missing');
  },
};
for (let i = 0; i < 50; i++) for (const p of paths) await run[p]!();
const wall: Record<string, number[]> = Object.fromEntries(paths.map((p) => [p, []]));
const cpu: Record<string, number> = Object.fromEntries(paths.map((p) => [p, 0]));
for (let i = 0; i < queries; i++) {
  for (const p of paths) {
    const c0 = process.cpuUsage();
    const t0 = process.hrtime.bigint();
    await run[p]!();
    wall[p]!.push(msSince(t0));
    cpu[p]! += cpuMsSince(c0);
  }
}
const out: Record<string, unknown> = { n, queries };
for (const p of paths) {
  const p50 = quantile(wall[p]!, 0.5);
  out[p] = { p50: r3(p50), cpu_us_per_invoke: r2((cpu[p]! * 1000) / queries / n), ...(wall.raw ? { ratio: r2(p50 / quantile(wall.raw, 0.5)) } : {}) };
}
console.log(JSON.stringify(out));
lean.close();
sdk.close();
agent.destroy();
await child.stop();
