import { describe, expect, it } from 'vitest';
import type { ShardOutcome } from '../../../shared/core/scatter/call-shard.js';
import { DeadlineExceeded } from '../../../shared/core/scatter/deadline.js';
import { createLimiter } from '../../../shared/core/scatter/fanout.js';
import { createHedgeState } from '../../../shared/core/scatter/hedge.js';
import { openFanOut, type FanOutInput, type ShardAsk } from '../../../shared/core/scatter/shard-fanout.js';
import { fakeInvoker, type Behaviour } from './fakes.js';

const NO_HEDGE = { enabled: false, afterQuantile: 0.95, maxExtraPercent: 0 };
const ask: ShardAsk = {
  replicaCount: 1,
  request: (replica) => ({ type: 'query', queryId: 'q', shard: 0, replica, sql: 'SELECT 1', deadline: 0, settings: {}, external: [], attempt: 'primary' }),
};

function input(behaviour: (s: number) => Behaviour, over: Partial<FanOutInput> = {}) {
  const invoker = fakeInvoker((s) => behaviour(s));
  const seen: ShardOutcome[] = [];
  const fan: FanOutInput = {
    invoker,
    limiter: createLimiter(4),
    deadlineAt: Date.now() + 5_000,
    now: Date.now,
    hedge: NO_HEDGE,
    state: createHedgeState(),
    onShard: (o) => seen.push(structuredClone(o)),
    ...over,
  };
  return { fan, invoker, seen };
}

describe('openFanOut', () => {
  it('hands the caller the rows, then keeps only the statistics, and reports after the take', async () => {
    const { fan, seen } = input(() => ({ kind: 'ok', c: 7 }));
    const f = openFanOut(fan);
    let taken: unknown;
    const o = await f.ask(0, ask, (x) => {
      taken = x.response?.rows;
    });
    f.close();
    expect(taken).toEqual([{ c: '7' }]);
    expect(o.response?.rows).toEqual([]);
    expect(o.response?.statistics.rowsRead).toBe(10);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.response?.rows).toEqual([]);
  });

  it('a take that throws rejects the call before onShard', async () => {
    const { fan, seen } = input(() => ({ kind: 'ok' }));
    const f = openFanOut(fan);
    await expect(
      f.ask(0, ask, () => {
        throw new Error('unreadable');
      }),
    ).rejects.toThrow('unreadable');
    f.close();
    expect(seen).toEqual([]);
  });

  it('stop() ends the calls still running, cancelled (not timed out) with the reason, and says it was a stop', async () => {
    const { fan, invoker, seen } = input(() => ({ kind: 'hang' }));
    const f = openFanOut(fan);
    const pending = f.ask(0, ask);
    f.stop(new Error('shard 1: Code: 44. DB::Exception: Illegal column'));
    const o = await pending;
    f.close();
    expect(o.status).toBe('cancelled');
    expect(o.message).toMatch(/^shard 0 cancelled after \d+ ms: shard 1: Code: 44\./);
    expect(o.attempts.map((a) => a.status)).toEqual(['aborted']);
    expect(seen.map((x) => x.status)).toEqual(['cancelled']);
    expect(invoker.calls[0]!.aborted).toBe(true);
    expect(f.stopped.aborted).toBe(true);
  });

  it('a merge cutoff (a stop with the deadline as its reason) still times the calls out', async () => {
    const { fan } = input(() => ({ kind: 'hang' }));
    const f = openFanOut(fan);
    const pending = f.ask(0, ask);
    f.stop(new DeadlineExceeded(Date.now()));
    const o = await pending;
    f.close();
    expect(o.status).toBe('timeout');
    expect(o.attempts.map((a) => a.status)).toEqual(['timeout']);
  });

  it('the parent signal stops it; the deadline alone fires the signal but not the stop', async () => {
    const parent = new AbortController();
    const a = input(() => ({ kind: 'hang' }), { signal: parent.signal });
    const f = openFanOut(a.fan);
    const pending = f.ask(0, ask);
    parent.abort(new Error('client went away'));
    expect((await pending).status).toBe('cancelled');
    expect(f.stopped.aborted).toBe(true);
    f.close();

    const b = input(() => ({ kind: 'hang' }), { deadlineAt: Date.now() + 30 });
    const g = openFanOut(b.fan);
    const o = await g.ask(0, ask);
    g.close();
    expect(o.status).toBe('timeout');
    expect(g.signal.aborted).toBe(true);
    expect(g.stopped.aborted).toBe(false);
  });

  it('asks through the limiter it is given: never more in flight than its cap', async () => {
    const limiter = createLimiter(2);
    let peak = 0;
    const { fan } = input(() => ({ kind: 'ok', delayMs: 5 }), { limiter });
    const f = openFanOut(fan);
    const watch = setInterval(() => {
      peak = Math.max(peak, limiter.active);
    }, 1);
    await Promise.all([0, 1, 2, 3, 4, 5].map(() => f.ask(0, ask, () => (peak = Math.max(peak, limiter.active)))));
    clearInterval(watch);
    f.close();
    expect(peak).toBeGreaterThan(0);
    expect(peak).toBeLessThanOrEqual(2);
  });
});
