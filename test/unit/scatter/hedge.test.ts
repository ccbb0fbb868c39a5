import { describe, expect, it } from 'vitest';
import { fc, test as fcTest } from '@fast-check/vitest';
import {
  createHedgeState,
  LatencyWindow,
  TokenBucket,
  COLD_START_HEDGE_DELAY_MS,
  MEDIAN_HEDGE_FACTOR,
  FANOUT_BANK_QUERIES,
} from '../../../shared/core/scatter/hedge.js';
import { callShard } from '../../../shared/core/scatter/call-shard.js';
import { createLimiter } from '../../../shared/core/scatter/fanout.js';
import { InvokeError } from '../../../shared/core/scatter/invoker.js';
import type { ShardRequest } from '../../../shared/core/protocol/shard-wire.js';
import { fakeInvoker, type Behaviour } from './fakes.js';

const req =
  (shard: number) =>
  (replica: number, attempt: ShardRequest['attempt']): ShardRequest => ({
    type: 'query',
    queryId: 'q',
    shard,
    replica,
    sql: 'SELECT 1',
    deadline: 0,
    settings: {},
    external: [],
    attempt,
  });

function call(
  shard: number,
  replicas: number,
  behaviour: (s: number, r: number, n: number) => Behaviour,
  o: { budgetMs?: number; pct?: number; state?: ReturnType<typeof createHedgeState>; enabled?: boolean } = {},
) {
  const inv = fakeInvoker(behaviour);
  const ctl = new AbortController();
  const deadlineAt = Date.now() + (o.budgetMs ?? 1000);
  const t = setTimeout(() => ctl.abort(), o.budgetMs ?? 1000);
  const state = o.state ?? createHedgeState({ coldStartDelayMs: 30 });
  const p = callShard({
    shard,
    replicaCount: replicas,
    request: req(shard),
    invoker: inv,
    limiter: createLimiter(16),
    deadlineAt,
    signal: ctl.signal,
    now: Date.now,
    hedge: { enabled: o.enabled ?? true, afterQuantile: 0.95, maxExtraPercent: o.pct ?? 100 },
    state,
  }).finally(() => clearTimeout(t));
  return { inv, p, state };
}

describe('LatencyWindow', () => {
  it('keeps the last N samples and reports nearest-rank quantiles', () => {
    const w = new LatencyWindow(10);
    for (let i = 1; i <= 100; i++) w.record(i);
    expect(w.count).toBe(10);
    expect(w.quantile(0.95)).toBe(100);
    expect(w.quantile(0.5)).toBe(95);
  });
  fcTest.prop([fc.array(fc.integer({ min: 0, max: 10_000 }), { minLength: 1, maxLength: 200 }), fc.double({ min: 0.01, max: 0.99, noNaN: true })])(
    'the p-quantile is a sample with at least p of the window at or below it',
    (xs, q) => {
      const w = new LatencyWindow(500);
      for (const x of xs) w.record(x);
      const v = w.quantile(q)!;
      expect(xs).toContain(v);
      expect(xs.filter((x) => x <= v).length / xs.length).toBeGreaterThanOrEqual(q - 1e-9);
    },
  );
  fcTest.prop([
    fc.integer({ min: 1, max: 20 }),
    fc.array(fc.oneof(fc.integer({ min: 0, max: 50 }), fc.double({ min: 0, max: 1e4, noNaN: true }), fc.constantFrom(-1, Number.NaN, Infinity)), {
      maxLength: 120,
    }),
    fc.double({ min: 0.01, max: 1, noNaN: true }),
  ])('after any number of evictions, the quantile is the nearest-rank one of the last N valid samples', (size, xs, q) => {
    const w = new LatencyWindow(size);
    for (const x of xs) w.record(x);
    const kept = xs.filter((x) => Number.isFinite(x) && x >= 0).slice(-size);
    expect(w.count).toBe(kept.length);
    const s = [...kept].sort((a, b) => a - b);
    const expected = s.length === 0 ? undefined : s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))];
    expect(w.quantile(q)).toBe(expected);
  });
});

describe('TokenBucket', () => {
  fcTest.prop([fc.integer({ min: 0, max: 100 }), fc.array(fc.boolean(), { maxLength: 500 })])(
    'hedges never exceed maxExtraPercent of shard requests',
    (pct, ops) => {
      const b = new TokenBucket(pct / 100);
      let requests = 0;
      let hedges = 0;
      for (const op of ops) {
        if (op) {
          b.credit();
          requests++;
        } else if (b.take()) hedges++;
      }
      expect(hedges).toBeLessThanOrEqual((requests * pct) / 100 + 1e-9);
      expect(b.stats).toEqual({ requests, hedges });
    },
  );
  it('5% budget: one hedge per 20 requests', () => {
    const b = new TokenBucket(0.05);
    for (let i = 0; i < 19; i++) b.credit();
    expect(b.take()).toBe(false);
    b.credit();
    expect(b.take()).toBe(true);
    expect(b.take()).toBe(false);
  });
});

describe('TokenBucket at wide fan-out', () => {
  it('banks more credit for a wide query, but never spends credit it has not earned', () => {
    const fixed = new TokenBucket(0.05);
    const wide = new TokenBucket(0.05);
    wide.fitFanout(64);
    expect(wide.capacity).toBeCloseTo(0.05 * 64 * FANOUT_BANK_QUERIES);
    // three quiet 64-shard queries, then one with 8 stragglers wanting a hedge
    for (let q = 0; q < 3; q++)
      for (let i = 0; i < 64; i++) {
        fixed.credit();
        wide.credit();
      }
    for (let i = 0; i < 64; i++) {
      fixed.credit();
      wide.credit();
    }
    let f = 0,
      w = 0;
    for (let i = 0; i < 8; i++) {
      if (fixed.take()) f++;
      if (wide.take()) w++;
    }
    expect(f).toBe(5); // capped at 5 tokens: the rest go unhedged
    expect(w).toBe(8);
    expect(w).toBeLessThanOrEqual(0.05 * wide.stats.requests + 1e-9);
  });
  fcTest.prop([fc.integer({ min: 1, max: 512 }), fc.integer({ min: 0, max: 100 }), fc.array(fc.boolean(), { maxLength: 1000 })])(
    'with any fan-out, hedges never exceed maxExtraPercent of requests',
    (fanout, pct, ops) => {
      const b = new TokenBucket(pct / 100);
      b.fitFanout(fanout);
      let requests = 0,
        hedges = 0;
      for (const op of ops)
        if (op) {
          b.credit();
          requests++;
        } else if (b.take()) hedges++;
      expect(hedges).toBeLessThanOrEqual((pct / 100) * requests + 1e-9);
    },
  );
});

describe('hedge delay', () => {
  it('uses the cold-start delay, then the shard p95 once it has enough samples', () => {
    const s = createHedgeState({ medianFactor: 1 });
    expect(s.hedgeDelayMs(0, 0.95)).toBe(COLD_START_HEDGE_DELAY_MS);
    for (let i = 1; i <= 20; i++) s.shard(0).record(i);
    expect(s.hedgeDelayMs(0, 0.95)).toBe(19);
  });
  it('does not hedge inside normal jitter: waits for twice the median when p95 is only jitter', () => {
    // 1% stragglers put p95 among healthy requests (2-3 ms here); hedging there would spend the
    // budget on ~5% of healthy requests (docs/benchmarks.md#3-hedged-requests-under-stragglers-hedging, 64 shards).
    const s = createHedgeState();
    for (let i = 0; i < 90; i++) s.shard(0).record(2);
    for (let i = 0; i < 9; i++) s.shard(0).record(3);
    s.shard(0).record(50);
    expect(s.shard(0).quantile(0.95)).toBe(3);
    expect(s.hedgeDelayMs(0, 0.95)).toBe(4);
    // a wide latency spread: p95 is above twice the median and still rules
    const t = createHedgeState();
    for (let i = 1; i <= 20; i++) t.shard(0).record(i * i);
    expect(t.hedgeDelayMs(0, 0.95)).toBe(361);
  });
  fcTest.prop([fc.array(fc.double({ min: 0, max: 1000, noNaN: true }), { minLength: 8, maxLength: 200 }), fc.constantFrom(0.5, 0.9, 0.95, 0.99)])(
    'the delay is never below the quantile nor below twice the median',
    (xs, q) => {
      const s = createHedgeState();
      for (const x of xs) s.shard(3).record(x);
      const d = s.hedgeDelayMs(3, q);
      expect(d).toBeGreaterThanOrEqual(s.shard(3).quantile(q)!);
      expect(d).toBeGreaterThanOrEqual(MEDIAN_HEDGE_FACTOR * s.shard(3).quantile(0.5)!);
      expect([s.shard(3).quantile(q)!, MEDIAN_HEDGE_FACTOR * s.shard(3).quantile(0.5)!, 2]).toContain(d);
    },
  );
});

describe('callShard hedging', () => {
  it('hedges a straggler to the other replica; the first answer wins and the loser is aborted', async () => {
    const { inv, p } = call(0, 2, (_s, r) => (r === 0 ? { kind: 'ok', delayMs: 800, c: 1 } : { kind: 'ok', delayMs: 5, c: 2 }));
    const o = await p;
    expect(o.status).toBe('ok');
    expect(o.hedged).toBe(true);
    expect(o.replica).toBe(1);
    expect(o.response?.rows).toEqual([{ c: '2' }]);
    expect(o.elapsedMs).toBeLessThan(400);
    expect(inv.calls.map((c) => [c.replica, c.attempt])).toEqual([
      [0, 'primary'],
      [1, 'hedge'],
    ]);
    expect(inv.calls[0]!.aborted).toBe(true); // the loser
  });
  it('never hedges a shard with one replica', async () => {
    const { inv, p } = call(0, 1, () => ({ kind: 'ok', delayMs: 150 }));
    const o = await p;
    expect(o.status).toBe('ok');
    expect(o.hedged).toBe(false);
    expect(inv.calls).toHaveLength(1);
  });
  it('does not hedge without budget (0%)', async () => {
    const { inv, p } = call(0, 2, (_s, r) => ({ kind: 'ok', delayMs: r === 0 ? 120 : 5 }), { pct: 0 });
    const o = await p;
    expect(o.hedged).toBe(false);
    expect(o.replica).toBe(0);
    expect(inv.calls).toHaveLength(1);
  });
  it('the token bucket caps hedges across many slow requests', async () => {
    // minSamples out of reach: every request uses the 5 ms delay, so only the bucket limits hedges
    const state = createHedgeState({ coldStartDelayMs: 5, minSamples: 10_000 });
    let hedges = 0;
    let invokes = 0;
    for (let i = 0; i < 40; i++) {
      // replica 0 always straggles: every other primary would deserve a hedge
      const { p, inv } = call(0, 2, (_s, r) => ({ kind: 'ok', delayMs: r === 0 ? 40 : 1 }), { pct: 10, state });
      if ((await p).hedged) hedges++;
      invokes += inv.calls.length;
    }
    expect(invokes).toBe(40 + hedges);
    expect(hedges).toBeGreaterThan(0);
    expect(hedges).toBeLessThanOrEqual(4); // 10% of 40
  });
  it('retries a failed request on another replica', async () => {
    const { inv, p } = call(
      1,
      3,
      (_s, r) => (r === 0 ? { kind: 'throw', error: new InvokeError('unhandled', 'crashed', 'Runtime.ExitError') } : { kind: 'ok', delayMs: 2, c: 7 }),
      { enabled: false },
    );
    const o = await p;
    expect(o.status).toBe('ok');
    expect(o.retried).toBe(true);
    expect(inv.calls.map((c) => c.attempt)).toEqual(['primary', 'retry']);
  });
  it('reports the failure reason when every replica fails', async () => {
    const { p } = call(0, 2, () => ({ kind: 'throw', error: new InvokeError('throttled', 'TooManyRequestsException') }), { enabled: false });
    const o = await p;
    expect(o.status).toBe('throttled');
    expect(o.message).toMatch(/replica 0.*replica 1/);
  });
  it('a straggler past the deadline is a timeout and its request is aborted', async () => {
    const { inv, p } = call(0, 1, () => ({ kind: 'hang' }), { budgetMs: 80 });
    const t0 = Date.now();
    const o = await p;
    expect(o.status).toBe('timeout');
    expect(Date.now() - t0).toBeLessThan(300);
    expect(inv.calls[0]!.aborted).toBe(true);
  });
  it('a ShardFailure of kind error is not retried forever: each replica once', async () => {
    const { inv, p } = call(0, 2, () => ({ kind: 'shardFailure', errKind: 'error', message: 'Code: 47 unknown identifier' }), { enabled: false });
    const o = await p;
    expect(o.status).toBe('error');
    expect(inv.calls).toHaveLength(2);
  });
});

describe('replica choice', () => {
  it('round-robins primaries but skips a replica that failed recently, until it recovers', () => {
    let t = 0;
    const s = createHedgeState({ now: () => t });
    expect([0, 1, 2, 3].map(() => s.nextReplica(0, 2))).toEqual([0, 1, 0, 1]);
    s.replicaResult(0, 0, false);
    expect([0, 1, 2, 3].map(() => s.nextReplica(0, 2))).toEqual([1, 1, 1, 1]);
    t += 6_000; // suspicion expires
    expect([0, 1].map(() => s.nextReplica(0, 2))).toEqual([0, 1]);
    s.replicaResult(0, 1, false);
    s.replicaResult(0, 0, false);
    expect(s.nextReplica(0, 2)).toBe(0); // all suspect: plain round-robin
  });
  it('a crashed replica is retried around once, then avoided as primary', async () => {
    const state = createHedgeState();
    const crash = (_s: number, r: number): Behaviour =>
      r === 0 ? { kind: 'throw', error: new InvokeError('unhandled', 'exit', 'Runtime.ExitError') } : { kind: 'ok', delayMs: 1 };
    const first = call(0, 2, crash, { state, enabled: false });
    expect((await first.p).status).toBe('ok');
    expect(first.inv.calls.map((c) => c.replica)).toEqual([0, 1]);
    for (let i = 0; i < 3; i++) {
      const next = call(0, 2, crash, { state, enabled: false });
      expect((await next.p).retried).toBe(false);
      expect(next.inv.calls.map((c) => c.replica)).toEqual([1]);
    }
  });
});
