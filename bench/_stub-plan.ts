// A topology of N shards x R replicas and a QueryPlan that asks every shard one fixed query,
// for benches that measure the scatter runtime (gather, callShard, limiter, hedging) without
// the planner: the shard functions are stubs (_shard-stub-child.ts), so the SQL never runs.
import { parseTopology } from '../shared/core/config/load.js';
import type { Topology } from '../shared/core/config/schema.js';
import type { QueryPlan } from '../shared/core/plan/types.js';
import type { Merger } from '../shared/core/partials/types.js';

export function stubTopology(shards: number, replicas: number, query: Record<string, unknown> = {}): Topology {
  return parseTopology({
    cluster: 'bench',
    shards: Array.from({ length: shards }, (_, i) => ({
      weight: 1,
      replicas: Array.from({ length: replicas }, (_, j) => ({ url: `http://shard-${i}-${j}:8123` })),
    })),
    tables: { 'default.t_dist': { local: 'default.t', shardingKey: { column: 'k', type: 'UInt64', function: 'identity' } } },
    query: { maxConcurrency: Math.max(64, shards * 2), ...query },
  });
}

/** Counts the partials it was given: enough to prove every shard's answer reached the merge. */
export function countingMerger(): Merger & { added: number } {
  const m = {
    added: 0,
    add() {
      m.added++;
    },
    finalize() {
      return { meta: [{ name: 'shards', type: 'UInt64' }], data: [{ shards: String(m.added) }] };
    },
  };
  return m;
}

export function stubPlan(shards: number, createMerger: () => Merger = countingMerger): QueryPlan {
  return {
    statement: { kind: 'select', distinct: false, columns: [], withTotals: false } as unknown as QueryPlan['statement'],
    tables: [{ distributed: 'default.t_dist', local: 'default.t' }],
    shards: Array.from({ length: shards }, (_, i) => ({ shard: i, skipped: false, sql: 'SELECT 1', external: [] })),
    external: [],
    settings: {},
    createMerger,
    mergeDescription: 'bench stub',
    truncated: [],
  };
}
