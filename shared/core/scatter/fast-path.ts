// The fast path as a strategy of the session (query-session.ts): the planner's split, one gather
// (or the tree of sub-coordinators above topo.query.treeFanoutAbove shards), the coordinator's merge,
// judged by the one completeness verdict. A refusal while planning, merging or finalizing goes to `fallBack`
// (the general path, when the session's path choice allows it).
import type { PlanOptions, QueryPlan } from '../plan/types.js';
import type { SelectStatement } from '../sql/ast.js';
import { coverageOfPlans, judgeCoverage, judgeLateness, judgeShards, judgeTruncation, lateBy, summarizeShards } from './completeness.js';
import { gather } from './gather.js';
import type { ShardOutcome } from './call-shard.js';
import type { QueryResponse, RunDeps, ShardStat } from './query-types.js';
import type { QuerySession } from './query-session.js';
import { coordinatorSpans, offsetMs, readTotals, roundToTenth, shardStatOf, skippedStats, subqueryStats } from './timeline-stats.js';
import { gatherTree, useTree } from './tree.js';
import { cursorReplicas, pinCursor } from '../partials/cursor.js';
import { replicaChanges, replicasRead } from './pinned-paging.js';
import { refuseAlikeTypes } from './two-stage/final-output.js';

type FallBack<T> = (e: unknown) => Promise<T> | undefined;

/** Where an exact top count goes: the general path when it can take it, else every group on the fast path. */
function fastTopCount(s: QuerySession): PlanOptions['exactTopCount'] {
  return s.path === 'auto' && s.deps.planTwoStage ? 'general' : 'every-group';
}

/** The fast path's plan; a refusal the general path takes is answered there. */
export async function planFastPath<T>(
  s: QuerySession,
  stmt: SelectStatement | undefined,
  sql: string,
  fallBack: FallBack<T>,
  extra: Pick<PlanOptions, 'queryThenFetchBound'> = {},
): Promise<{ plan: QueryPlan } | { answered: T }> {
  try {
    return {
      plan: await s.deps.planQuery(stmt ?? sql, s.deps.topo, { ...s.request.planOptions('query', s.runSubquery), exactTopCount: fastTopCount(s), ...extra }),
    };
  } catch (e) {
    const answered = fallBack(e);
    if (answered) return { answered: await answered };
    throw e;
  }
}

export interface FastRun {
  sql: string;
  requireComplete: boolean;
  /** The least share of each table's rows the answering shards must hold, when the answer is partial. */
  requireCoverage?: number | undefined;
  tree?: RunDeps['tree'];
  /** The statement is query-then-fetch's round two (its cursor belongs to the query without the bound). */
  queryThenFetchBound?: boolean;
}

export async function runFastPath(s: QuerySession, stmt: SelectStatement | undefined, run: FastRun, fallBack: FallBack<QueryResponse>): Promise<QueryResponse> {
  const { now, deadline, subqueries: sub } = s;
  const t0 = s.startedAt;
  const { topo } = s.deps;
  const planning = await planFastPath(s, stmt, run.sql, fallBack, run.queryThenFetchBound ? { queryThenFetchBound: true } : {});
  if ('answered' in planning) return planning.answered;
  const { plan } = planning;
  const planned = now();
  const tree = run.tree && useTree(topo, plan.shards.filter((sh) => !sh.skipped).length);
  // A cursor page reads the replicas the earlier pages read (the plan has checked the cursor's signature).
  const pinned = s.request.cursor && !tree ? cursorReplicas(s.request.cursor, s.deps.cursorKey) : undefined;
  const spent: ShardOutcome[] = [];
  const gathering =
    tree && run.tree ? gatherTree({ ...s.fanout, plan, tree: run.tree, spentOnRefusal: spent }) : gather({ ...s.fanout, plan, pinned, spentOnRefusal: spent });
  const gathered = await gathering.catch((e: unknown) => {
    // A refusal found only as the rows arrive (a value the merge has none for: a JSON column's objects).
    sub.abandoned.push(...spent);
    const answered = fallBack(e);
    if (answered) return { answered };
    throw e;
  });
  if ('answered' in gathered) return gathered.answered;
  const missing = [...gathered.missing, ...sub.missing];
  const shards = summarizeShards(plan.shards.length, gathered.skipped.length, gathered.outcomes, missing);
  // The main query's own shards: a GLOBAL subquery's missing shards are another table's.
  const coverage = coverageOfPlans(
    [plan],
    gathered.missing.map((m) => m.shard),
  );
  judgeShards({
    outcomes: [...gathered.outcomes, ...sub.outcomes],
    answers: gathered.outcomes,
    tooLarge: 'query',
    shards,
    missing,
    requireComplete: run.requireComplete,
    deadline,
    coverage,
    // No queried shard answered: there is no result to call partial. Elasticsearch's "all shards failed".
    ...(gathered.outcomes.length > 0 && shards.succeeded === 0
      ? { unanswered: { lost: gathered.missing.map((m) => ({ shard: m.shard, timedOut: m.reason === 'timeout', message: m.message })) } }
      : {}),
  });

  const finalizeAt = now();
  let fin: ReturnType<typeof gathered.merger.finalize>;
  try {
    fin = gathered.merger.finalize();
  } catch (e) {
    // A refusal found only when finalizing (an expression the coordinator cannot evaluate over these values).
    sub.abandoned.push(...gathered.outcomes);
    const answered = fallBack(e);
    if (answered) return answered;
    throw e;
  }
  // Two columns of one name (a JOIN subquery's beside the table's) of different types: ClickHouse's 352, as on the general path.
  refuseAlikeTypes(
    fin.meta.map((m) => m.name),
    fin.meta.map((m) => m.type),
  );
  const finalized = now();
  gathered.budget?.recordFinalize(finalized - finalizeAt); // the next query's estimate (merge-budget.ts)
  // transferOverflowMode 'break' cut something: shipped GLOBAL data (the plan) or groups/rows the
  // merger stopped accepting (the finalize). Either way the answer is partial, never complete.
  const truncated = [...(plan.truncated ?? []), ...sub.truncated, ...(fin.truncated ?? [])];
  judgeTruncation(truncated, run.requireComplete, shards);
  const late = lateBy(deadline, now());
  judgeLateness(late, run.requireComplete, shards);
  const partial = missing.length > 0 || truncated.length > 0 || late > 0;
  judgeCoverage(coverage, run.requireCoverage, partial, shards);
  const all = [...gathered.outcomes, ...sub.outcomes];
  const stats: ShardStat[] = gathered.outcomes.map((o) => shardStatOf(o, t0));
  const subStats = subqueryStats(sub.outcomes, t0);
  const body: QueryResponse = {
    meta: fin.meta,
    data: fin.data,
    rows: fin.data.length,
    partial,
    shards,
    ...(partial || plan.statistics ? { coverage } : {}),
    path: 'fast',
    statistics: {
      elapsedMs: roundToTenth(now() - t0),
      ...readTotals(all),
      deadlineMs: deadline.budgetMs,
      deadlineLimitedBy: deadline.limitedBy,
      shards: stats,
      deadlineAtMs: offsetMs(deadline.at, t0),
      ...(late > 0 ? { lateMs: late } : {}),
      skipped: skippedStats(gathered.skipped),
      coordinator: coordinatorSpans(t0, { startedAt: t0, endedAt: planned }, gathered.merges, { startedAt: finalizeAt, endedAt: finalized }),
      ...subStats,
    },
  };
  if (fin.approximate && Object.keys(fin.approximate).length > 0) body.approximate = fin.approximate;
  if (fin.cursor) body.cursor = tree ? fin.cursor : pinCursor(fin.cursor, replicasRead(plan.shards.length, gathered.outcomes, pinned), s.deps.cursorKey);
  const changed = pinned ? replicaChanges(pinned, gathered.outcomes) : [];
  if (changed.length > 0) body.replicaChanged = changed;
  if (truncated.length > 0) body.truncated = truncated;
  return body;
}
