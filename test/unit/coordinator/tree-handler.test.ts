// The coordinator handler as a SUB-coordinator: a TreeRequest event (what a root coordinator sends
// its own function in the aggregation tree) runs runSubCoordinator over the named shards only and
// answers a TreeResponse; everything else still routes as before.
import { beforeAll, describe, expect, it } from 'vitest';
import type { Context } from 'aws-lambda';
import { createCoordinatorHandler, createTools, isTreeRequest } from '../../../functions/coordinator/handler.js';
import { createHedgeState } from '../../../shared/core/scatter/hedge.js';
import type { TreeRequest, TreeResponse } from '../../../shared/core/protocol/tree-wire.js';
import { fakeInvoker, sumPlan, topo } from '../scatter/fakes.js';

beforeAll(() => {
  process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
  process.env.POWERTOOLS_METRICS_DISABLED = 'true';
});

const ctx = { functionName: 'coord', awsRequestId: 'r', getRemainingTimeInMillis: () => 30_000 } as unknown as Context;

const request = (over: Partial<TreeRequest> = {}): TreeRequest => ({
  type: 'tree',
  queryId: 'root-q',
  group: 1,
  deadline: Date.now() + 5_000,
  settings: {},
  external: [],
  hedge: { enabled: false, afterQuantile: 0.95, maxExtraPercent: 5 },
  tasks: [
    { shard: 2, sql: 'SELECT count() AS c FROM db.t', external: [] },
    { shard: 3, sql: 'SELECT count() AS c FROM db.t', external: [] },
  ],
  premerge: false,
  ...over,
});

describe('coordinator handler: sub-coordinator requests', () => {
  it('recognises a TreeRequest and nothing else', () => {
    expect(isTreeRequest(request())).toBe(true);
    expect(isTreeRequest({ type: 'tree' })).toBe(false);
    expect(isTreeRequest({ kind: 'ch-scatter.schedule', name: 'x' })).toBe(false);
    expect(isTreeRequest(null)).toBe(false);
  });

  it('asks exactly the named shards and relays their partials', async () => {
    const invoker = fakeInvoker((s) => (s === 3 ? { kind: 'throw', error: new Error('boom') } : { kind: 'ok', c: 10 * s }));
    const handler = createCoordinatorHandler(
      async () => ({ topo: topo([1, 1, 1, 1, 1]), invoker, planQuery: async () => sumPlan(5), explainPlan: () => ({}), hedgeState: createHedgeState() }),
      createTools({ logLevel: 'SILENT' }),
    );
    const res = (await handler(request() as never, ctx)) as TreeResponse;
    expect(invoker.calls.map((c) => c.shard).sort()).toEqual([2, 3]);
    expect(res).toMatchObject({ ok: true, group: 1, mode: 'relayed' });
    expect(res.parts).toEqual([{ shard: 2, meta: [{ name: 'c', type: 'UInt64' }], rows: [{ c: '20' }] }]);
    expect(res.outcomes.map((o) => [o.shard, o.status])).toEqual([
      [2, 'ok'],
      [3, 'error'],
    ]);
  });
});
