// The general (two-stage) path as a strategy of the session (shared/core/scatter/query-session.ts):
// for POST /query the JSON answer, for /explain each leaf's shard SQL and the final stage; the
// ClickHouse interface runs the same runtime through runGeneralInSession for any FORMAT's bytes.
import { ScatterError } from '../../errors.js';
import { refuseOtherFormats } from '../../plan/format-check.js';
import type { TwoStagePlan } from '../../plan/two-stage/types.js';
import type { StatisticsSource } from '../../plan/statistics.js';
import type { QueryRequest } from '../../protocol/api-request.js';
import type { SelectStatement } from '../../sql/ast.js';
import type { QueryResponse, RunDeps } from '../query-types.js';
import type { QuerySession } from '../query-session.js';
import { mergedSettings, twoStageOptionsOf } from '../plan-inputs.js';
import { planLeaves, runGeneralQuery, type GeneralOptions, type GeneralResult } from './run-general.js';
import { keeperOf } from './kept-stage.js';
import { oneShardSql } from './one-shard.js';
import { refuseForAnyPath } from './guard.js';
import { truncatingModes, truncationNote } from '../../clickhouse/overflow-modes.js';

/** What the JSON API asks of the general path: its request, and why the fast path did not answer, when it was tried. */
export interface GeneralRequest {
  req: QueryRequest;
  stmt: SelectStatement;
  /** The fast path's UNSUPPORTED refusal, when it was tried. */
  fastRefusal?: ScatterError;
}

function planner(s: QuerySession, fastRefusal: ScatterError | undefined) {
  const plan = s.deps.planTwoStage;
  if (!plan) {
    // Without a two-stage planner there is only the fast path: its refusal stands.
    throw fastRefusal ?? new ScatterError('UNSUPPORTED', 'the general (two-stage) path is not available in this deployment');
  }
  return plan;
}

/** The request's two-stage plan, after what neither path may run; and its settings with the SQL's SETTINGS clause. */
function generalPlan(s: QuerySession, g: GeneralRequest): { settings: ReturnType<typeof mergedSettings>; plan: TwoStagePlan } {
  const { topo } = s.deps;
  refuseOtherFormats(g.stmt);
  refuseForAnyPath(g.stmt, topo);
  const settings = mergedSettings(g.req, g.stmt);
  return { settings, plan: planner(s, g.fastRefusal)(g.stmt, topo, twoStageOptionsOf(settings, topo)) };
}

/** The coordinator's table statistics, read under the session's deadline, for the leaves' planner. */
function statisticsOf(s: QuerySession): { statistics?: StatisticsSource } {
  const { statistics, topo, invoker } = s.deps;
  return statistics ? { statistics: statistics.source(topo, invoker, s.deadline.at) } : {};
}

/** The general path's runtime under the session: its deadline, hedge policy, in-flight cap and GLOBAL runner. */
export function runGeneralInSession(
  s: QuerySession,
  plan: TwoStagePlan,
  opts: Omit<GeneralOptions, 'deadline' | 'startedAt' | 'hedge' | 'runSubquery' | 'subqueries' | 'limiter' | 'statistics'>,
): Promise<GeneralResult> {
  const { deps } = s;
  return runGeneralQuery(
    {
      topo: deps.topo,
      invoker: deps.invoker,
      hedgeState: deps.hedgeState,
      queryId: deps.queryId,
      now: s.now,
      ...(deps.onShard ? { onShard: deps.onShard } : {}),
      ...(deps.exchange ? { exchange: deps.exchange } : {}),
    },
    plan,
    {
      ...opts,
      deadline: s.deadline,
      startedAt: s.startedAt,
      hedge: s.hedge,
      runSubquery: s.runSubquery,
      subqueries: s.subqueries,
      limiter: s.limiter,
      ...statisticsOf(s),
    },
  );
}

export async function executeGeneral(s: QuerySession, g: GeneralRequest, requireComplete: boolean): Promise<QueryResponse> {
  if (g.req.cursor) throw new ScatterError('BAD_REQUEST', 'cursor pagination is for row queries on the fast path; this query runs on the general path');
  const { settings, plan } = generalPlan(s, g);
  const r = await runGeneralInSession(s, plan, { settings, requireComplete, requireCoverage: g.req.requireCoverage });
  const body: QueryResponse = {
    meta: r.meta!,
    data: r.data!,
    rows: r.rows!,
    partial: r.partial,
    shards: r.shards,
    statistics: r.statistics,
    path: 'general',
  };
  if (r.totals) body.totals = r.totals;
  if (r.extremes) body.extremes = r.extremes;
  if (r.truncated) body.truncated = r.truncated;
  if (r.coverage) body.coverage = r.coverage;
  return body;
}

/** /explain on the general path: each leaf's per-shard SQL, the final-stage SQL and where it runs, the planner's notes. */
export async function explainGeneral(s: QuerySession, g: GeneralRequest, explainPlan: RunDeps['explainPlan']): Promise<unknown> {
  const { deps } = s;
  const { settings, plan } = generalPlan(s, g);
  const leaves = await planLeaves(plan, deps.topo, {
    settings,
    runSubquery: s.runSubquery,
    ...statisticsOf(s),
    ...(deps.topo.query.distributedProductMode ? { distributedProductMode: deps.topo.query.distributedProductMode } : {}),
  });
  const explain = explainPlan ?? ((p) => ({ shards: p.shards }));
  const perLeaf = leaves.map((l) => ({ name: l.name, ...(explain(l.plan) as Record<string, unknown>) }) as Record<string, unknown>);
  const first = perLeaf[0] as { shards?: unknown; external?: unknown };
  const fused = oneShardSql(leaves, plan.finalSql);
  const keeps = keeperOf(leaves, deps.queryId, settings) !== undefined;
  // What the answer will be labelled with, as the fast path's explain says it.
  const truncated = truncatingModes(leaves[0]!.plan.settings).map(truncationNote);
  const runsOn = fused
    ? `both stages in one request on shard ${fused.shard.shard}, the only shard holding rows the query reads: the final SQL reads the stage-one query as a subquery, nothing is shipped`
    : "the ClickHouse engine of one shard that answered stage one (chosen by the query id's hash; on an unavailable or failing shard, the next one), " +
      'over one temporary table per leaf holding every shard’s rows' +
      (keeps ? '; that shard keeps its own stage-one rows in a session of its server instead of shipping them (if they are lost, they are fetched again)' : '');
  return {
    path: 'general',
    ...(g.fastRefusal ? { fastPathRefused: g.fastRefusal.message } : {}),
    shards: first.shards,
    external: first.external ?? [],
    leaves: perLeaf.map(({ merge: _m, ...rest }) => rest),
    finalStage: {
      sql: fused ? fused.sql : plan.finalSql,
      runsOn,
      ...(fused ? { oneShard: fused.shard.shard } : {}),
      ...(keeps && !fused ? { initiatorKeepsItsRows: true } : {}),
    },
    notes: plan.notes,
    ...(truncated.length ? { truncated } : {}),
    merge: [
      `general path: ${plan.leaves.length} leaf quer${plan.leaves.length === 1 ? 'y' : 'ies'} on the shards, answered as TabSeparatedWithNamesAndTypes (aggregate states as bytes)`,
      `final stage: ${plan.finalSql}`,
      ...plan.notes,
    ].join('\n'),
  };
}
