// Small fakes for the scatter runtime's unit tests: a plan whose merger sums a `c` column, and an
// invoker whose per-(shard, replica) behaviour is scripted (delay, failure, abort observation).
import type { QueryPlan, ShardPlan } from '../../../shared/core/plan/types.js';
import type { Merger } from '../../../shared/core/partials/types.js';
import type { ShardRequest, ShardResponse } from '../../../shared/core/protocol/shard-wire.js';
import { InvokeError, type ShardInvoker } from '../../../shared/core/scatter/invoker.js';
import { parseTopology } from '../../../shared/core/config/load.js';
import type { Topology } from '../../../shared/core/config/schema.js';

export function topo(replicas: number[], query: Record<string, unknown> = {}): Topology {
  return parseTopology({
    cluster: 'c',
    shards: replicas.map((n, i) => ({ replicas: Array.from({ length: n }, (_, j) => ({ url: `http://s${i}r${j}:8123` })) })),
    tables: { 'db.t_dist': { local: 'db.t', shardingKey: { column: 'k', type: 'UInt64', function: 'identity' } } },
    query,
  });
}

export function sumPlan(shardCount: number, skipped: number[] = []): QueryPlan & { added: number[] } {
  const added: number[] = [];
  const shards: ShardPlan[] = Array.from({ length: shardCount }, (_, i) =>
    skipped.includes(i)
      ? { shard: i, skipped: true, reason: 'no value lives here', external: [] }
      : { shard: i, skipped: false, sql: `SELECT count() AS c FROM db.t /* ${i} */`, external: [] },
  );
  return {
    added,
    statement: {} as QueryPlan['statement'],
    tables: [{ distributed: 'db.t_dist', local: 'db.t' }],
    shards,
    external: [],
    settings: {},
    mergeDescription: 'sum c',
    truncated: [],
    createMerger(): Merger {
      let total = 0n;
      return {
        add(shard, rows) {
          added.push(shard);
          for (const r of rows) total += BigInt(String(r.c));
        },
        finalize() {
          return { meta: [{ name: 'c', type: 'UInt64' }], data: [{ c: total.toString() }] };
        },
      };
    },
  };
}

export type Behaviour =
  | { kind: 'ok'; delayMs?: number; c?: number }
  | { kind: 'throw'; delayMs?: number; error: Error }
  | { kind: 'shardFailure'; delayMs?: number; errKind: 'timeout' | 'error' | 'unavailable' | 'cancelled'; message?: string }
  | { kind: 'hang' };

export interface FakeInvoker extends ShardInvoker {
  calls: Array<{ shard: number; replica: number; attempt: ShardRequest['attempt']; aborted: boolean; at: number }>;
}

/** behaviour(shard, replica, callIndex) decides what each invocation does. */
export function fakeInvoker(behaviour: (shard: number, replica: number, n: number) => Behaviour): FakeInvoker {
  const calls: FakeInvoker['calls'] = [];
  return {
    calls,
    invoke(shard, payload, signal): Promise<ShardResponse> {
      const rec = { shard, replica: payload.replica, attempt: payload.attempt, aborted: false, at: Date.now() };
      calls.push(rec);
      const b = behaviour(shard, payload.replica, calls.length - 1);
      return new Promise<ShardResponse>((resolve, reject) => {
        const onAbort = () => {
          rec.aborted = true;
          clearTimeout(timer);
          reject(new InvokeError('aborted', 'aborted'));
        };
        signal.addEventListener('abort', onAbort, { once: true });
        const delay = b.kind === 'hang' ? 1e9 : (b.delayMs ?? 0);
        const timer = setTimeout(() => {
          signal.removeEventListener('abort', onAbort);
          if (b.kind === 'ok')
            resolve({
              ok: true,
              shard,
              replica: payload.replica,
              meta: [{ name: 'c', type: 'UInt64' }],
              rows: [{ c: String(b.c ?? 1) }],
              statistics: { elapsedMs: delay, rowsRead: 10, bytesRead: 100 },
            });
          else if (b.kind === 'throw') reject(b.error);
          else if (b.kind === 'shardFailure')
            resolve({ ok: false, shard, replica: payload.replica, error: { kind: b.errKind, message: b.message ?? b.errKind } });
        }, delay);
      });
    },
  };
}
