// Every shard attempt of a fan-out listens on the query's ONE deadline signal
// (callShard: onDeadline + onQueryAbort per attempt), so a wide gather put more than Node's default
// 10 listeners on it and printed MaxListenersExceededWarning above 5 shards. deadlineSignal lifts
// the cap on that signal alone (setMaxListeners(0, signal)); these tests fail if the warning returns,
// through a scripted invoker (hedges and the deadline firing) and through the real SDK invoker.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runQuery, type RunDeps } from '../../../shared/core/scatter/run-query.js';
import { createHedgeState } from '../../../shared/core/scatter/hedge.js';
import { createLambdaInvoker } from '../../../shared/adapters/aws/lambda-invoker.js';
import { startInvokeServer } from '../../../local/invoke-server.js';
import { fakeInvoker, sumPlan, topo } from './fakes.js';

let warnings: Error[] = [];
const onWarning = (w: Error) => warnings.push(w);
beforeEach(() => {
  warnings = [];
  process.on('warning', onWarning);
});
afterEach(() => {
  process.off('warning', onWarning);
});
const listenerWarnings = async () => {
  // process.emitWarning delivers on process.nextTick: every warning is in before the next setImmediate.
  await new Promise((r) => setImmediate(r));
  return warnings.filter((w) => w.name === 'MaxListenersExceededWarning').map((w) => w.message);
};

const SHARDS = 64;

describe('a 64-shard gather', () => {
  it('emits no MaxListenersExceededWarning with hedges in flight and the deadline firing', async () => {
    const plan = sumPlan(SHARDS);
    // Replica 0 is slow everywhere (hedges launch to replica 1); shard 63 hangs until the deadline.
    const invoker = fakeInvoker((s, r) => (s === SHARDS - 1 ? { kind: 'hang' } : { kind: 'ok', delayMs: r === 0 ? 60 : 5 }));
    const d: RunDeps = {
      topo: topo(Array(SHARDS).fill(2), { hedge: { enabled: true, afterQuantile: 0.5, maxExtraPercent: 100 } }),
      invoker,
      planQuery: async () => plan,
      hedgeState: createHedgeState(),
      queryId: 'q-listeners',
    };
    const r = await runQuery({ sql: 'x', timeoutMs: 400 }, d);
    const b = r.body as { data: Array<{ c: string }>; shards: { missing: Array<{ shard: number }> } };
    expect(b.data).toEqual([{ c: String(SHARDS - 1) }]);
    expect(b.shards.missing.map((m) => m.shard)).toEqual([SHARDS - 1]);
    expect(invoker.calls.length).toBeGreaterThan(SHARDS); // at least one hedge launched
    expect(await listenerWarnings()).toEqual([]);
  });

  it('emits no MaxListenersExceededWarning through the real SDK invoker and the local Invoke endpoint', async () => {
    const functions: Record<string, (p: unknown) => Promise<unknown>> = {};
    for (let i = 0; i < SHARDS; i++) {
      functions[`ch-scatter-shard-${i}`] = async (p) => {
        const q = p as { shard: number; replica: number };
        return {
          ok: true,
          shard: q.shard,
          replica: q.replica,
          meta: [{ name: 'c', type: 'UInt64' }],
          rows: [{ c: '2' }],
          statistics: { elapsedMs: 1, rowsRead: 1, bytesRead: 8 },
        };
      };
    }
    const server = await startInvokeServer({ port: 0, functions });
    const invoker = createLambdaInvoker(SHARDS, { endpoint: server.url });
    try {
      const plan = sumPlan(SHARDS);
      const d: RunDeps = { topo: topo(Array(SHARDS).fill(1)), invoker, planQuery: async () => plan, hedgeState: createHedgeState(), queryId: 'q-sdk' };
      for (let k = 0; k < 2; k++) {
        const r = await runQuery({ sql: 'x', timeoutMs: 20_000 }, d);
        expect((r.body as { data: unknown }).data).toEqual([{ c: String(2 * SHARDS) }]);
      }
      expect(await listenerWarnings()).toEqual([]);
    } finally {
      invoker.close();
      await server.close();
    }
  });
});
