// statistics' time fields: per-shard and per-attempt start/end offsets, the deadline offset, the
// skipped shards and the coordinator's spans. Assertions are about order and containment, never
// about exact milliseconds, so a slow machine cannot fail them.
import { describe, expect, it } from 'vitest';
import { runQuery, type RunDeps } from '../../../shared/core/scatter/run-query.js';
import { createHedgeState } from '../../../shared/core/scatter/hedge.js';
import { InvokeError } from '../../../shared/core/scatter/invoker.js';
import type { ShardOutcome } from '../../../shared/core/scatter/call-shard.js';
import { coordinatorSpans, offsetMs, readTotals, shardTimes } from '../../../shared/core/scatter/timeline-stats.js';
import { fakeInvoker, sumPlan, topo, type Behaviour } from './fakes.js';

function deps(replicas: number[], behaviour: (s: number, r: number, n: number) => Behaviour, o: { skipped?: number[]; query?: Record<string, unknown> } = {}) {
  const d: RunDeps = {
    topo: topo(replicas, o.query),
    invoker: fakeInvoker(behaviour),
    planQuery: async () => sumPlan(replicas.length, o.skipped),
    hedgeState: createHedgeState({ coldStartDelayMs: 20 }),
    queryId: 'q-t',
  };
  return d;
}

const HEDGE_ALWAYS = { hedge: { enabled: true, afterQuantile: 0.95, maxExtraPercent: 100 } };

/** Every span lies inside [0, elapsed] and ends no earlier than it starts. */
function expectWellFormed(stats: any) {
  const within = (s: { startMs: number; endMs: number }) => {
    expect(s.startMs).toBeGreaterThanOrEqual(0);
    expect(s.endMs).toBeGreaterThanOrEqual(s.startMs);
    expect(s.endMs).toBeLessThanOrEqual(stats.elapsedMs + 0.2);
  };
  for (const sh of stats.shards) {
    within(sh);
    for (const a of sh.attempts) {
      within(a);
      expect(a.startMs).toBeGreaterThanOrEqual(sh.startMs);
      expect(a.endMs).toBeLessThanOrEqual(sh.endMs + 0.2);
    }
  }
  for (const c of stats.coordinator) within(c);
}

describe('statistics timeline fields', () => {
  it('a clean query: one primary attempt per shard, skipped shards with their reason, plan -> merges -> finalize', async () => {
    const r = await runQuery(
      { sql: 'x' },
      deps([1, 1, 1], (s) => ({ kind: 'ok', delayMs: 5 * s }), { skipped: [1] }),
    );
    expect(r.status).toBe(200);
    const st = (r.body as any).statistics;
    expectWellFormed(st);
    expect(st.shards.map((s: any) => s.attempts.map((a: any) => [a.kind, a.status, a.replica]))).toEqual([[['primary', 'ok', 0]], [['primary', 'ok', 0]]]);
    expect(st.skipped).toEqual([{ shard: 1, reason: 'no value lives here' }]);
    expect(st.deadlineAtMs).toBe(st.deadlineMs);
    const names = st.coordinator.map((c: any) => c.name);
    expect(names).toEqual(['plan', 'merge', 'merge', 'finalize']);
    expect(
      st.coordinator
        .filter((c: any) => c.name === 'merge')
        .map((c: any) => c.shard)
        .sort(),
    ).toEqual([0, 2]);
    const [plan, ...rest] = st.coordinator;
    const fin = rest.at(-1);
    for (const m of rest.slice(0, -1)) {
      expect(m.startMs).toBeGreaterThanOrEqual(plan.endMs);
      expect(fin.startMs).toBeGreaterThanOrEqual(m.endMs);
    }
    // a shard is merged after it answered
    for (const m of rest.slice(0, -1)) expect(m.startMs).toBeGreaterThanOrEqual(st.shards.find((s: any) => s.shard === m.shard).endMs);
  });

  it('a hedge is a second attempt on the other replica that starts after the primary; the loser ends as aborted', async () => {
    // replica 0 hangs, replica 1 answers at once: the hedge (after the 20 ms cold-start delay) wins
    const r = await runQuery(
      { sql: 'x', timeoutMs: 5000 },
      deps([2], (_s, rep) => (rep === 0 ? { kind: 'hang' } : { kind: 'ok' }), { query: HEDGE_ALWAYS }),
    );
    expect(r.status).toBe(200);
    const st = (r.body as any).statistics;
    expectWellFormed(st);
    const [sh] = st.shards;
    expect(sh).toMatchObject({ hedged: true, status: 'ok', replica: 1 });
    expect(sh.attempts.map((a: any) => [a.kind, a.replica, a.status])).toEqual([
      ['primary', 0, 'aborted'],
      ['hedge', 1, 'ok'],
    ]);
    const [primary, hedge] = sh.attempts;
    expect(hedge.startMs).toBeGreaterThan(primary.startMs);
    expect(primary.endMs).toBeGreaterThanOrEqual(hedge.endMs); // cancelled when the hedge answered
    expect(sh.endMs).toBeGreaterThanOrEqual(hedge.endMs);
  });

  it('a retry follows the failed primary; a straggler is cut at the deadline as timeout', async () => {
    const r = await runQuery(
      { sql: 'x', timeoutMs: 300, hedge: false },
      deps([2, 1], (s, rep) => (s === 0 ? (rep === 0 ? { kind: 'throw', error: new InvokeError('unavailable', 'down') } : { kind: 'ok' }) : { kind: 'hang' })),
    );
    expect(r.status).toBe(200);
    const b = r.body as any;
    const st = b.statistics;
    expectWellFormed(st);
    const [s0, s1] = st.shards;
    expect(s0.attempts.map((a: any) => [a.kind, a.status])).toEqual([
      ['primary', 'unavailable'],
      ['retry', 'ok'],
    ]);
    expect(s0.attempts[1].startMs).toBeGreaterThanOrEqual(s0.attempts[0].endMs);
    expect(s1.status).toBe('timeout');
    expect(s1.attempts.map((a: any) => [a.kind, a.status])).toEqual([['primary', 'timeout']]);
    // the straggler's bar runs to the deadline (not before it)
    expect(s1.attempts[0].endMs).toBeGreaterThanOrEqual(st.deadlineAtMs - 5);
    expect(st.deadlineAtMs).toBeLessThanOrEqual(300);
    expect(b.partial).toBe(true);
  });
});

describe('offset helpers', () => {
  it('offsets are rounded to 0.1 ms and never negative', () => {
    expect(offsetMs(1000.26, 1000)).toBe(0.3);
    expect(offsetMs(999, 1000)).toBe(0);
  });
  it('attempts come out in start order with offsets from t0', () => {
    const t = shardTimes(
      {
        shard: 0,
        status: 'ok',
        replica: 1,
        elapsedMs: 30,
        hedged: true,
        retried: false,
        startedAt: 100,
        endedAt: 130,
        attempts: [
          { replica: 1, kind: 'hedge', elapsedMs: 10, status: 'ok', startedAt: 120, endedAt: 130 },
          { replica: 0, kind: 'primary', elapsedMs: 30, status: 'aborted', startedAt: 100, endedAt: 130 },
        ],
      },
      100,
    );
    expect(t).toEqual({
      startMs: 0,
      endMs: 30,
      attempts: [
        { replica: 0, kind: 'primary', status: 'aborted', startMs: 0, endMs: 30 },
        { replica: 1, kind: 'hedge', status: 'ok', startMs: 20, endMs: 30 },
      ],
    });
  });
  it('coordinator spans: plan, each merge with its owner, finalize', () => {
    expect(coordinatorSpans(0, { startedAt: 0, endedAt: 2 }, [{ group: 1, startedAt: 5, endedAt: 6 }], { startedAt: 7, endedAt: 8 })).toEqual([
      { name: 'plan', startMs: 0, endMs: 2 },
      { name: 'merge', startMs: 5, endMs: 6, group: 1 },
      { name: 'finalize', startMs: 7, endMs: 8 },
    ]);
  });
  it('what the shards read is summed over the outcomes, a failed one counting nothing', () => {
    const outcome = (shard: number, read?: [number, number]): ShardOutcome => ({
      shard,
      status: read ? 'ok' : 'error',
      replica: 0,
      elapsedMs: 1,
      hedged: false,
      retried: false,
      attempts: [],
      ...(read ? { response: { ok: true, shard, replica: 0, meta: [], rows: [], statistics: { elapsedMs: 1, rowsRead: read[0], bytesRead: read[1] } } } : {}),
    });
    expect(readTotals([outcome(0, [10, 800]), outcome(1), outcome(2, [5, 40])])).toEqual({ rowsRead: 15, bytesRead: 840 });
    expect(readTotals([])).toEqual({ rowsRead: 0, bytesRead: 0 });
  });
});
