// The coordinator's side of cancelling hedge losers (shared/core/scatter/call-shard.ts, shard-cancel.ts):
// each attempt is sent with an id of its own, and when one wins, every attempt still running gets
// one cancel naming its query, shard, replica and attempt id; nothing is cancelled when the shard's
// call ends at the deadline (the shard stops itself then) or when no other attempt runs.
import { describe, expect, it } from 'vitest';
import { callShard } from '../../../shared/core/scatter/call-shard.js';
import { createLimiter } from '../../../shared/core/scatter/fanout.js';
import { createHedgeState } from '../../../shared/core/scatter/hedge.js';
import type { ShardCancelRequest, ShardRequest } from '../../../shared/core/protocol/shard-wire.js';
import { fakeInvoker, type Behaviour } from './fakes.js';

function hedgedCall(behaviour: (s: number, r: number) => Behaviour, budgetMs = 2000) {
  const sent: ShardRequest[] = [];
  const cancels: ShardCancelRequest[] = [];
  const inner = fakeInvoker(behaviour);
  const invoker = {
    invoke: (shard: number, p: ShardRequest, signal: AbortSignal) => {
      sent.push(p);
      return inner.invoke(shard, p, signal);
    },
    cancel: async (_shard: number, p: ShardCancelRequest) => {
      cancels.push(p);
    },
  };
  const ctl = new AbortController();
  const t = setTimeout(() => ctl.abort(), budgetMs);
  const p = callShard({
    shard: 3,
    replicaCount: 2,
    request: (replica, attempt) => ({
      type: 'query',
      queryId: 'q-1',
      shard: 3,
      replica,
      sql: 'SELECT 1',
      deadline: Date.now() + budgetMs,
      settings: {},
      external: [],
      attempt,
    }),
    invoker,
    limiter: createLimiter(4),
    deadlineAt: Date.now() + budgetMs,
    signal: ctl.signal,
    now: Date.now,
    hedge: { enabled: true, afterQuantile: 0.95, maxExtraPercent: 100 },
    state: createHedgeState({ coldStartDelayMs: 20 }),
  }).finally(() => clearTimeout(t));
  return { p, sent, cancels };
}

describe('hedge losers', () => {
  it('get one cancel naming their attempt when another attempt wins', async () => {
    // Replica 0 (the primary) hangs; the hedge to replica 1 answers.
    const { p, sent, cancels } = hedgedCall((_s, r) => (r === 0 ? { kind: 'hang' } : { kind: 'ok', delayMs: 5 }));
    const out = await p;
    expect(out.status).toBe('ok');
    expect(out.replica).toBe(1);
    expect(sent.map((s) => s.attempt)).toEqual(['primary', 'hedge']);
    const [primary, hedge] = sent as [ShardRequest, ShardRequest];
    expect(primary.attemptId).toMatch(/^[0-9a-f]{16}$/);
    expect(hedge.attemptId).not.toBe(primary.attemptId);
    expect(cancels).toEqual([{ type: 'cancel', queryId: 'q-1', shard: 3, replica: 0, attemptId: primary.attemptId, deadline: expect.any(Number) }]);
  });

  it('are not cancelled when nothing won (the deadline: the shard stops itself), nor is a lone winner', async () => {
    const stuck = hedgedCall(() => ({ kind: 'hang' }), 150);
    expect((await stuck.p).status).toBe('timeout');
    expect(stuck.sent).toHaveLength(2);
    expect(stuck.cancels).toEqual([]);

    const alone = hedgedCall(() => ({ kind: 'ok', delayMs: 1 }));
    expect((await alone.p).status).toBe('ok');
    expect(alone.sent).toHaveLength(1);
    expect(alone.cancels).toEqual([]);
  });
});
