import { ScatterError } from '../../errors.js';
import { refuseOtherFormats } from '../../plan/format-check.js';
import type { SubqueryRunner } from '../../plan/types.js';
import type { QueryRequest } from '../../protocol/api-request.js';
import type { SelectStatement } from '../../sql/ast.js';
import type { HedgeSettings } from '../call-shard.js';
import type { Deadline } from '../deadline.js';
import type { Limiter } from '../fanout.js';
import type { QueryResponse, RunDeps } from '../query-types.js';
import { mergedSettings, productModeOf } from '../plan-inputs.js';
import type { QueryPath } from './path.js';
import { planLeaves, runGeneralQuery } from './run-general.js';
import { keeperOf } from './kept-stage.js';
import { oneShardSql } from './one-shard.js';
import { refuseForAnyPath } from './guard.js';

export interface GeneralRequestContext {
  req: QueryRequest;
  deps: RunDeps;
  stmt: SelectStatement;
  path: QueryPath;
  deadline: Deadline;
  limiter: Limiter;
  hedge: HedgeSettings;
  requireComplete: boolean;
  runSubquery: SubqueryRunner;
  startedAt: number;
  /** Why the fast path did not answer (its UNSUPPORTED refusal), when it was tried. */
  fastRefusal?: ScatterError;
}

function planner(ctx: Pick<GeneralRequestContext, 'deps' | 'fastRefusal'>) {
  const plan = ctx.deps.planTwoStage;
  if (!plan) {
    // Without a two-stage planner there is only the fast path: its refusal stands.
    throw ctx.fastRefusal ?? new ScatterError('UNSUPPORTED', 'the general (two-stage) path is not available in this deployment');
  }
  return plan;
}

export async function executeGeneral(ctx: GeneralRequestContext): Promise<QueryResponse> {
  const { req, deps, stmt } = ctx;
  if (req.cursor) throw new ScatterError('BAD_REQUEST', 'cursor pagination is for row queries on the fast path; this query runs on the general path');
  refuseOtherFormats(stmt);
  refuseForAnyPath(stmt, deps.topo);
  const settings = mergedSettings(req, stmt);
  const plan = planner(ctx)(stmt, deps.topo, { distributedProductMode: productModeOf(settings, deps.topo) });
  const r = await runGeneralQuery(
    {
      topo: deps.topo,
      invoker: deps.invoker,
      hedgeState: deps.hedgeState,
      queryId: deps.queryId,
      ...(deps.now ? { now: deps.now } : {}),
      ...(deps.onShard ? { onShard: deps.onShard } : {}),
    },
    plan,
    {
      deadline: ctx.deadline,
      startedAt: ctx.startedAt,
      settings,
      requireComplete: ctx.requireComplete,
      hedge: ctx.hedge,
      runSubquery: ctx.runSubquery,
      limiter: ctx.limiter,
    },
  );
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
  return body;
}

/** /explain on the general path: each leaf's per-shard SQL, the final-stage SQL and where it runs, the planner's notes. */
export async function explainGeneral(ctx: Pick<GeneralRequestContext, 'req' | 'deps' | 'stmt' | 'runSubquery' | 'fastRefusal'>): Promise<unknown> {
  const { req, deps, stmt } = ctx;
  refuseOtherFormats(stmt);
  refuseForAnyPath(stmt, deps.topo);
  const settings = mergedSettings(req, stmt);
  const plan = planner(ctx)(stmt, deps.topo, { distributedProductMode: productModeOf(settings, deps.topo) });
  const leaves = await planLeaves(plan, deps.topo, {
    settings,
    runSubquery: ctx.runSubquery,
    ...(deps.topo.query.distributedProductMode ? { distributedProductMode: deps.topo.query.distributedProductMode } : {}),
  });
  const explain = deps.explainPlan ?? ((p) => ({ shards: p.shards }));
  const perLeaf = leaves.map((l) => ({ name: l.name, ...(explain(l.plan) as Record<string, unknown>) }) as Record<string, unknown>);
  const first = perLeaf[0] as { shards?: unknown; external?: unknown };
  const fused = oneShardSql(leaves, plan.finalSql);
  const keeps = keeperOf(leaves, deps.queryId, settings) !== undefined;
  const runsOn = fused
    ? `both stages in one request on shard ${fused.shard.shard}, the only shard holding rows the query reads: the final SQL reads the stage-one query as a subquery, nothing is shipped`
    : "the ClickHouse engine of one shard that answered stage one (chosen by the query id's hash; on an unavailable or failing shard, the next one), " +
      'over one temporary table per leaf holding every shard’s rows' +
      (keeps ? '; that shard keeps its own stage-one rows in a session of its server instead of shipping them (if they are lost, they are fetched again)' : '');
  return {
    path: 'general',
    ...(ctx.fastRefusal ? { fastPathRefused: ctx.fastRefusal.message } : {}),
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
    merge: [
      `general path: ${plan.leaves.length} leaf quer${plan.leaves.length === 1 ? 'y' : 'ies'} on the shards, answered as TabSeparatedWithNamesAndTypes (aggregate states as bytes)`,
      `final stage: ${plan.finalSql}`,
      ...plan.notes,
    ].join('\n'),
  };
}
