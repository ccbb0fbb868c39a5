import { describe, expect, it } from 'vitest';
import { runQuery, type RunDeps } from '../../../shared/core/scatter/run-query.js';
import { createHedgeState } from '../../../shared/core/scatter/hedge.js';
import { InvokeError } from '../../../shared/core/scatter/invoker.js';
import { parseSelect } from '../../../shared/core/sql/parse.js';
import { fakeInvoker, sumPlan, topo, type Behaviour } from './fakes.js';

function deps(replicas: number[], behaviour: (s: number, r: number, n: number) => Behaviour, o: { skipped?: number[]; query?: Record<string, unknown> } = {}) {
  const plan = sumPlan(replicas.length, o.skipped);
  const invoker = fakeInvoker(behaviour);
  const d: RunDeps = {
    topo: topo(replicas, o.query),
    invoker,
    planQuery: async () => plan,
    hedgeState: createHedgeState(),
    queryId: 'q-1',
  };
  return { d, plan, invoker };
}

describe('runQuery gather', () => {
  it('merges every shard and reports a complete answer', async () => {
    const { d, plan } = deps([1, 1, 1, 1], (s) => ({ kind: 'ok', delayMs: 3 * s, c: s + 1 }), { skipped: [2] });
    const r = await runQuery({ sql: 'SELECT count() AS c FROM db.t_dist' }, d);
    expect(r.status).toBe(200);
    const b = r.body as any;
    expect(b.data).toEqual([{ c: String(1 + 2 + 4) }]);
    expect(b.partial).toBe(false);
    expect(b.shards).toMatchObject({ total: 4, queried: 3, skipped: 1, succeeded: 3, failed: 0, timedOut: 0, hedged: 0, missing: [] });
    expect(b.statistics.rowsRead).toBe(30);
    expect(b.statistics.shards.map((s: any) => s.shard)).toEqual([0, 1, 3]);
    expect(plan.added.sort()).toEqual([0, 1, 3]);
  });

  it('answers at the deadline with partial: true and the straggler listed', async () => {
    const { d } = deps([1, 1, 1], (s) => (s === 1 ? { kind: 'hang' } : { kind: 'ok', c: 10 }));
    const t0 = Date.now();
    const r = await runQuery({ sql: 'x', timeoutMs: 150 }, d);
    const took = Date.now() - t0;
    expect(r.status).toBe(200);
    const b = r.body as any;
    expect(took).toBeGreaterThanOrEqual(140);
    expect(took).toBeLessThan(400);
    expect(b.partial).toBe(true);
    expect(b.data).toEqual([{ c: '20' }]);
    expect(b.shards.missing).toEqual([expect.objectContaining({ shard: 1, reason: 'timeout' })]);
    expect(b.shards.timedOut).toBe(1);
  });

  it('requireComplete turns a missing shard into 504 INCOMPLETE_RESULT carrying shards', async () => {
    const { d } = deps([1, 1], (s) => (s === 0 ? { kind: 'hang' } : { kind: 'ok' }));
    const r = await runQuery({ sql: 'x', timeoutMs: 80, requireComplete: true }, d);
    expect(r.status).toBe(504);
    const b = r.body as any;
    expect(b.error.code).toBe('INCOMPLETE_RESULT');
    expect(b.shards.missing[0]).toMatchObject({ shard: 0, reason: 'timeout' });
  });

  it('config requireComplete applies when the request says nothing', async () => {
    const { d } = deps([1, 1], (s) => (s === 0 ? { kind: 'throw', error: new InvokeError('throttled', '429') } : { kind: 'ok' }), {
      query: { requireComplete: true },
    });
    const r = await runQuery({ sql: 'x' }, d);
    expect(r.status).toBe(504);
    expect((r.body as any).shards.missing[0].reason).toBe('throttled');
  });

  it('each invocation failure maps to its documented reason', async () => {
    const errs: Record<number, Behaviour> = {
      0: { kind: 'throw', error: new InvokeError('throttled', 'TooManyRequestsException') },
      1: { kind: 'throw', error: new InvokeError('unhandled', 'exit', 'Runtime.ExitError') },
      2: { kind: 'throw', error: new InvokeError('malformed', 'malformed shard response') },
      3: { kind: 'shardFailure', errKind: 'error', message: 'boom' },
      4: { kind: 'ok' },
    };
    const { d } = deps([1, 1, 1, 1, 1], (s) => errs[s]!);
    const r = await runQuery({ sql: 'x' }, d);
    const b = r.body as any;
    expect(r.status).toBe(200);
    expect(b.partial).toBe(true);
    expect(b.shards.missing.map((m: any) => [m.shard, m.reason])).toEqual([
      [0, 'throttled'],
      [1, 'unavailable'],
      [2, 'error'],
      [3, 'error'],
    ]);
    expect(b.shards.failed).toBe(4);
  });

  it('all shards failing is a 502 SHARD_ERROR, all timing out a 504 TIMEOUT', async () => {
    const a = deps([1, 1], () => ({ kind: 'shardFailure', errKind: 'error', message: 'Code: 47, unknown identifier' }));
    const ra = await runQuery({ sql: 'x' }, a.d);
    expect(ra.status).toBe(502);
    expect((ra.body as any).error.code).toBe('SHARD_ERROR');
    expect((ra.body as any).error.message).toContain('unknown identifier');
    const t = deps([1], () => ({ kind: 'hang' }));
    const rt = await runQuery({ sql: 'x', timeoutMs: 50 }, t.d);
    expect(rt.status).toBe(504);
    expect((rt.body as any).error.code).toBe('TIMEOUT');
  });

  it('validates the body: 400 with the path, 413 over the cap, no stack traces', async () => {
    const { d } = deps([1], () => ({ kind: 'ok' }));
    const r1 = await runQuery('{"sql": "SELECT 1", "timeoutMs": "fast"}', d);
    expect(r1.status).toBe(400);
    expect((r1.body as any).error.message).toContain('$.timeoutMs');
    const r2 = await runQuery('{not json', d);
    expect(r2.status).toBe(400);
    const r3 = await runQuery(JSON.stringify({ sql: 'SELECT ' + 'x'.repeat(2_000_000) }), d);
    expect(r3.status).toBe(413);
    expect((r3.body as any).error.code).toBe('TOO_LARGE');
    const r4 = await runQuery({ sql: 'x', bogus: 1 }, d);
    expect(r4.status).toBe(400);
    const crash = {
      ...d,
      planQuery: async () => {
        throw new TypeError('secret internals at /var/task/x.js:1');
      },
    };
    const r5 = await runQuery({ sql: 'x' }, crash);
    expect(r5.status).toBe(500);
    expect(JSON.stringify(r5.body)).not.toContain('secret');
  });

  it('plan.truncated marks the answer partial', async () => {
    const { d, plan } = deps([1], () => ({ kind: 'ok' }));
    plan.truncated = ['_data_1: 10 of 20 rows shipped'];
    const r = await runQuery({ sql: 'x' }, d);
    expect((r.body as any).partial).toBe(true);
    expect((r.body as any).truncated).toHaveLength(1);
  });

  it("a merger that stopped accepting groups ('break') marks the answer partial; requireComplete makes it 504", async () => {
    const { d, plan } = deps([1], () => ({ kind: 'ok' }));
    const base = plan.createMerger;
    plan.createMerger = () => {
      const m = base();
      return { add: m.add, finalize: () => ({ ...m.finalize(), truncated: ['groups: 10 of 20 kept'] }) };
    };
    const r = await runQuery({ sql: 'x' }, d);
    expect(r.status).toBe(200);
    expect((r.body as any).partial).toBe(true);
    expect((r.body as any).truncated).toEqual(['groups: 10 of 20 kept']);
    const strict = await runQuery({ sql: 'x', requireComplete: true }, d);
    expect(strict.status).toBe(504);
    expect((strict.body as any).error.code).toBe('INCOMPLETE_RESULT');
  });

  it('GLOBAL subqueries run through the same runtime and their missing shards make the answer partial', async () => {
    const plan = sumPlan(2);
    const sub = sumPlan(2);
    const invoker = fakeInvoker((s, _r, n) => (n >= 2 && s === 1 ? { kind: 'hang' } : { kind: 'ok', c: 5 }));
    let subRows: unknown;
    const d: RunDeps = {
      topo: topo([1, 1]),
      invoker,
      hedgeState: createHedgeState(),
      queryId: 'q',
      planQuery: async (input, _t, opts) => {
        if (typeof input !== 'string') return sub;
        subRows = await opts.runSubquery!(parseSelect('SELECT count() AS c FROM db.t_dist'));
        return plan;
      },
    };
    const r = await runQuery({ sql: 'x', timeoutMs: 200 }, d);
    expect(subRows).toEqual({ meta: [{ name: 'c', type: 'UInt64' }], rows: [{ c: '10' }] });
    expect(r.status).toBe(200);
    expect((r.body as any).partial).toBe(true);
    expect(invoker.calls).toHaveLength(4);
  });
});

describe('query errors from ClickHouse', () => {
  it('a query ClickHouse rejects (unknown identifier) is a 400 QUERY_ERROR, not a partial answer', async () => {
    const invoker = fakeInvoker((s) =>
      s === 0 ? { kind: 'ok' } : { kind: 'shardFailure', errKind: 'error', message: 'Code: 47. DB::Exception: Unknown identifier: nope' },
    );
    const f = invoker.invoke.bind(invoker);
    // the fake cannot carry chCode; add it the way a shard does
    invoker.invoke = async (shard, p, sig) => {
      const r = await f(shard, p, sig);
      if (!r.ok) r.error.chCode = 47;
      return r;
    };
    const plan = sumPlan(2);
    const r = await runQuery({ sql: 'x' }, { topo: topo([1, 1]), invoker, planQuery: async () => plan, hedgeState: createHedgeState(), queryId: 'q' });
    expect(r.status).toBe(400);
    expect((r.body as any).error.code).toBe('QUERY_ERROR');
    expect((r.body as any).error.message).toMatch(/^ClickHouse rejected the query on shard 1 \(ClickHouse error 47 UNKNOWN_IDENTIFIER\): Code: 47/);
  });
  it('a blank sql is a 400', async () => {
    const r = await runQuery(
      { sql: '   ' },
      { topo: topo([1]), invoker: fakeInvoker(() => ({ kind: 'ok' })), planQuery: async () => sumPlan(1), hedgeState: createHedgeState(), queryId: 'q' },
    );
    expect(r.status).toBe(400);
  });
});
