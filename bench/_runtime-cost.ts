// CPU of the scatter runtime itself per shard call (gather -> callShard -> limiter -> merge), with an
// in-process invoker that answers at once: no HTTP, no signing, so what is left is the runtime's own
// bookkeeping. `npx tsx bench/_runtime-cost.ts [shards] [queries] [hedge 0|1] [replicas]`.
import { setMaxListeners } from 'node:events';
import { gather } from '../shared/core/scatter/gather.js';
import { createHedgeState } from '../shared/core/scatter/hedge.js';
import type { ShardInvoker } from '../shared/core/scatter/invoker.js';
import type { ShardRequest, ShardResponse } from '../shared/core/protocol/shard-wire.js';
import { stubPlan, stubTopology, countingMerger } from './_stub-plan.js';

const n = Number(process.argv[2] ?? 64);
const queries = Number(process.argv[3] ?? 20000);
const hedge = process.argv[4] === '1';
const replicas = Number(process.argv[5] ?? 1);
setMaxListeners(0);
// mode 'now': answers in the same tick; 'later': after setImmediate, so all N are in flight together
// and the runtime's objects live across event-loop turns as they do over a network.
const later = process.env.ANSWER === 'later';
const invoker: ShardInvoker = {
  invoke: (shard: number, p: ShardRequest): Promise<ShardResponse> => {
    const r: ShardResponse = { ok: true, shard, replica: p.replica, meta: [], rows: [], statistics: { elapsedMs: 0, rowsRead: 0, bytesRead: 0 } };
    return later ? new Promise((res) => setImmediate(res, r)) : Promise.resolve(r);
  },
};
const direct = process.env.DIRECT === '1'; // the invoker alone (Promise.all), the floor of this bench
const topo = stubTopology(n, replicas, { maxConcurrency: Math.max(64, n), hedge: { enabled: hedge } });
const state = createHedgeState();
const plan = stubPlan(n, countingMerger);
const one = async () => {
  if (direct) {
    const ac = new AbortController();
    await Promise.all(
      plan.shards.map((sp) =>
        invoker.invoke(
          sp.shard,
          { type: 'query', queryId: 'bench', shard: sp.shard, replica: 0, sql: 'SELECT 1', deadline: 0, settings: {}, external: [], attempt: 'primary' },
          ac.signal,
        ),
      ),
    );
    return;
  }
  const g = await gather({ plan, topo, invoker, queryId: 'bench', deadlineAt: Date.now() + 10_000, now: Date.now, hedge: topo.query.hedge, state });
  if (g.missing.length) throw new Error('missing');
};
for (let i = 0; i < 2000; i++) await one();
const best: number[] = [];
for (let rep = 0; rep < 5; rep++) {
  const c0 = process.cpuUsage();
  for (let i = 0; i < queries / 5; i++) await one();
  const c = process.cpuUsage(c0);
  best.push((c.user + c.system) / (queries / 5) / n);
}
best.sort((a, b) => a - b);
console.log(JSON.stringify({ n, hedge, replicas, us_per_shard_min: +best[0]!.toFixed(2), us_per_shard_median: +best[2]!.toFixed(2) }));
