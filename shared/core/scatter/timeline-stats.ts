// The time side of a query's `statistics`: when each shard and each of its attempts (primary,
// hedge, retry) started and ended, where the deadline fell, and the coordinator's own spans
// (planning, each merge, the finalize), all as milliseconds from the query's start. The web
// console at /play and `ch-scatter query --timeline` draw exactly these numbers; nothing is
// inferred on their side.
import type { ShardPlan } from '../plan/types.js';
import type { AttemptRecord, ShardOutcome } from './call-shard.js';
import type { MergeSpan } from './gather.js';

export interface AttemptStat {
  replica: number;
  kind: AttemptRecord['kind'];
  status: AttemptRecord['status'];
  startMs: number;
  endMs: number;
}

/** A coordinator span: 'plan' (parse, plan, GLOBAL subqueries), 'merge' (one partial folded in), 'finalize'. */
export interface CoordinatorSpan {
  name: 'plan' | 'merge' | 'finalize';
  startMs: number;
  endMs: number;
  /** For a merge: whose partial (a shard's, or a sub-coordinator group's). */
  shard?: number;
  group?: number;
}

export interface SkippedShardStat {
  shard: number;
  reason: string;
}

/** Milliseconds as the answer reports them: to the nearest 0.1 ms. */
export const roundToTenth = (x: number) => Math.round(x * 10) / 10;

/** Offset of `at` from `t0`, rounded to 0.1 ms and never negative. */
export function offsetMs(at: number, t0: number): number {
  return Math.max(0, roundToTenth(at - t0));
}

/** The shard's span and its attempts, in the order they started. */
export function shardTimes(o: ShardOutcome, t0: number): { startMs?: number; endMs?: number; attempts: AttemptStat[] } {
  const attempts = [...o.attempts]
    .sort((a, b) => a.startedAt - b.startedAt)
    .map((a) => ({ replica: a.replica, kind: a.kind, status: a.status, startMs: offsetMs(a.startedAt, t0), endMs: offsetMs(a.endedAt, t0) }));
  return {
    ...(o.startedAt !== undefined ? { startMs: offsetMs(o.startedAt, t0) } : {}),
    ...(o.endedAt !== undefined ? { endMs: offsetMs(o.endedAt, t0) } : {}),
    attempts,
  };
}

export function coordinatorSpans(
  t0: number,
  plan: { startedAt: number; endedAt: number },
  merges: readonly MergeSpan[],
  finalize: { startedAt: number; endedAt: number },
): CoordinatorSpan[] {
  const span = (name: CoordinatorSpan['name'], s: { startedAt: number; endedAt: number }) => ({
    name,
    startMs: offsetMs(s.startedAt, t0),
    endMs: offsetMs(s.endedAt, t0),
  });
  return [
    span('plan', plan),
    ...merges.map((m) => ({
      ...span('merge', m),
      ...(m.shard !== undefined ? { shard: m.shard } : {}),
      ...(m.group !== undefined ? { group: m.group } : {}),
    })),
    span('finalize', finalize),
  ];
}

export function skippedStats(skipped: readonly ShardPlan[]): SkippedShardStat[] {
  return skipped.map((s) => ({ shard: s.shard, reason: s.reason ?? 'skipped' }));
}

/** The subqueries' shard requests, as `statistics.subqueries` holds them: the field is absent where there were none. */
export function subqueryStats(outcomes: readonly ShardOutcome[], t0: number): { subqueries?: ReturnType<typeof shardStatOf>[] } {
  return outcomes.length ? { subqueries: outcomes.map((o) => shardStatOf(o, t0)) } : {};
}

/** The shard requests of runs the answer does not use, where there are any (a run the general path took over from). */
export function abandonedStats(outcomes: readonly ShardOutcome[], t0: number): { abandoned?: ReturnType<typeof shardStatOf>[] } {
  return outcomes.length ? { abandoned: outcomes.map((o) => shardStatOf(o, t0)) } : {};
}

/** What the shards of `outcomes` read, summed: the query's `rowsRead` and `bytesRead` (its price). */
export function readTotals(outcomes: readonly ShardOutcome[]): { rowsRead: number; bytesRead: number } {
  let rowsRead = 0;
  let bytesRead = 0;
  for (const o of outcomes) {
    rowsRead += o.response?.statistics.rowsRead ?? 0;
    bytesRead += o.response?.statistics.bytesRead ?? 0;
  }
  return { rowsRead, bytesRead };
}

/** A queried shard's line in `statistics.shards` (both paths write the same one). */
export function shardStatOf(o: ShardOutcome, t0: number) {
  return {
    shard: o.shard,
    replica: o.replica,
    elapsedMs: Math.round(o.elapsedMs * 10) / 10,
    status: o.status,
    hedged: o.hedged,
    retried: o.retried,
    rowsRead: o.response?.statistics.rowsRead ?? 0,
    bytesRead: o.response?.statistics.bytesRead ?? 0,
    ...shardTimes(o, t0),
  };
}
