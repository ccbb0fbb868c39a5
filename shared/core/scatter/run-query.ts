// POST /query and POST /explain as plain functions: body in, { status, body } out. The coordinator
// handler (AWS and the local stack alike) and scheduled runs call these; nothing here knows about
// API Gateway or Lambda, only about the invoker port.
import type { SelectStatement } from '../sql/ast.js';
import type { PlanOptions, QueryPlan, SubqueryRunner } from '../plan/types.js';
import { ScatterError, toClientError } from '../errors.js';
import { gather, type MissingShard } from './gather.js';
import type { ShardOutcome } from './call-shard.js';
import { parseQueryRequest, type QueryRequest } from '../protocol/api-request.js';
import { gatherTree, useTree } from './tree.js';
import { isQueryFailure, queryFailureError } from './query-errors.js';
import { completeSubqueryRunner } from './complete-subquery.js';
import { tooLargeError } from './too-large.js';
import { coordinatorSpans, shardStatOf, skippedStats, offsetMs } from './timeline-stats.js';
import { parseSelect } from '../sql/parse.js';
import { bindParams } from '../plan/bind-params.js';
import { fastPathRefused, requestedPath, type QueryPath } from './two-stage/path.js';
import { executeGeneral, explainGeneral } from './two-stage/general-request.js';
import { explainTopCountFor, prepassFor, withTopCount } from './tput/attach.js';
import { queryBudget } from './query-budget.js';
import type { PlanFn, QueryResponse, RunDeps, ShardsSummary, ShardStat } from './query-types.js';

export type { PlanFn, QueryResponse, RunDeps, ShardsSummary, ShardStat };

export interface HttpResult {
  status: number;
  body: unknown;
}

const round1 = (x: number) => Math.round(x * 10) / 10;

function queryError(outcomes: ShardOutcome[]): ShardOutcome | undefined {
  return outcomes.find(isQueryFailure);
}

function summarize(total: number, skipped: number, outcomes: ShardOutcome[], missing: MissingShard[]): ShardsSummary {
  return {
    total,
    queried: outcomes.length,
    skipped,
    succeeded: outcomes.filter((o) => o.status === 'ok').length,
    failed: outcomes.filter((o) => o.status !== 'ok' && o.status !== 'timeout').length,
    timedOut: outcomes.filter((o) => o.status === 'timeout').length,
    hedged: outcomes.filter((o) => o.hedged).length,
    missing,
  };
}

function planOptions(
  req: QueryRequest,
  deps: Pick<RunDeps, 'topo' | 'cursorKey'>,
  runSubquery?: SubqueryRunner,
  exactTopCount?: PlanOptions['exactTopCount'],
): PlanOptions {
  const opts: PlanOptions = { distributedProductMode: deps.topo.query.distributedProductMode };
  if (deps.cursorKey) opts.cursorKey = deps.cursorKey;
  if (exactTopCount) opts.exactTopCount = exactTopCount;
  if (req.settings) opts.settings = req.settings;
  if (req.cursor) opts.cursor = req.cursor;
  if (req.params) opts.params = req.params;
  if (runSubquery) opts.runSubquery = runSubquery;
  return opts;
}

/**
 * Run a validated request. Throws ScatterError for client-visible failures (including
 * INCOMPLETE_RESULT with `shards` in its details). Used by POST /query and scheduled runs.
 */
export async function executeQuery(req: QueryRequest, deps: RunDeps): Promise<QueryResponse> {
  const now = deps.now ?? Date.now;
  // The deadline counts from the request's arrival: time spent before this point is the client's too.
  const t0 = deps.arrivedAt ?? now();
  const { topo } = deps;
  const { deadline, hedge, limiter } = queryBudget(topo, deps, req, t0);
  const requireComplete = req.requireComplete ?? topo.query.requireComplete;
  const subMissing: MissingShard[] = [];
  const subOutcomes: ShardOutcome[] = [];
  const subTruncated: string[] = [];

  const common = { topo, invoker: deps.invoker, queryId: deps.queryId, deadlineAt: deadline.at, now, hedge, state: deps.hedgeState, limiter };

  // GLOBAL IN / JOIN right-hand sides run once, through this same runtime and deadline.
  const runSubquery: SubqueryRunner = async (stmt) => {
    const subPlan = await deps.planQuery(stmt, topo, planOptions({ ...req, cursor: undefined }, deps, runSubquery));
    const gathered = await gather({ ...common, plan: subPlan, onShard: deps.onShard });
    subOutcomes.push(...gathered.outcomes);
    // An oversized shard partial: the set cannot be built, so the main query must not run.
    const big = tooLargeError(gathered.outcomes, 'GLOBAL subquery');
    if (big) throw big;
    for (const m of gathered.missing) subMissing.push({ ...m, subquery: true, message: `GLOBAL subquery: ${m.message}` });
    const fin = gathered.merger.finalize();
    // A subquery cut by 'break' ships an incomplete set: the main answer is partial too.
    for (const t of fin.truncated ?? []) subTruncated.push(`GLOBAL subquery: ${t}`);
    return { meta: fin.meta, rows: fin.data };
  };

  // The fast path answers what it covers; what it refuses as UNSUPPORTED, the general path
  // (two stages, shared/core/scatter/two-stage/); ch_scatter_path forces either.
  const parsed = parseOrUndefined(req.sql, req.params);
  const path = requestedPath(req.settings, parsed);
  // An exact top count: TPUT's pre-pass round narrows the query to its candidate groups (round 2 is
  // the narrowed query, through the path below); absent, the query runs as it is (shared/core/scatter/tput/).
  const pre = await prepassFor({ req, deps, stmt: parsed, deadline, limiter, hedge, startedAt: t0, planOptions: planOptions(req, deps, runSubquery) });
  const stmt = pre?.statement ?? parsed;
  const general = async (s: SelectStatement, fastRefusal?: ScatterError): Promise<QueryResponse> =>
    withTopCount(
      await executeGeneral({
        req,
        deps,
        stmt: s,
        path,
        deadline,
        limiter,
        hedge,
        requireComplete,
        runSubquery,
        startedAt: t0,
        ...(fastRefusal ? { fastRefusal } : {}),
      }),
      pre,
    );
  // What the fast path refuses, while planning or while finalizing, the general path answers under the
  // same deadline (when this deployment has it and ch_scatter_path leaves the choice).
  const refusedToGeneral = (e: unknown): Promise<QueryResponse> | undefined =>
    path === 'auto' && stmt && fastPathRefused(e) && deps.planTwoStage ? general(stmt, e) : undefined;
  if (path === 'general' && stmt) return general(stmt);
  let plan: QueryPlan;
  try {
    plan = await deps.planQuery(stmt ?? req.sql, topo, planOptions(req, deps, runSubquery, fastTopCount(path, deps)));
  } catch (e) {
    const answered = refusedToGeneral(e);
    if (answered) return answered;
    throw e;
  }
  const planned = now();
  const gathered =
    deps.tree && useTree(topo, plan.shards.filter((s) => !s.skipped).length)
      ? await gatherTree({ ...common, plan, onShard: deps.onShard, tree: deps.tree })
      : await gather({ ...common, plan, onShard: deps.onShard });
  const missing = [...gathered.missing, ...subMissing];
  const shards = summarize(plan.shards.length, gathered.skipped.length, gathered.outcomes, missing);
  const bad = queryError([...gathered.outcomes, ...subOutcomes]);
  if (bad) {
    throw queryFailureError(bad, { shards });
  }
  const big = tooLargeError(gathered.outcomes, 'query', { shards });
  if (big) throw big;

  if (missing.length > 0 && requireComplete) {
    throw new ScatterError('INCOMPLETE_RESULT', `${missing.length} shard(s) did not answer: ${missing.map((m) => `shard ${m.shard} ${m.reason}`).join(', ')}`, {
      details: { shards },
    });
  }
  // No queried shard answered: there is no result to call partial. Elasticsearch's "all shards failed".
  if (gathered.outcomes.length > 0 && shards.succeeded === 0) {
    if (gathered.missing.every((m) => m.reason === 'timeout')) {
      throw new ScatterError('TIMEOUT', `no shard answered within ${deadline.budgetMs} ms`, { details: { shards } });
    }
    const first = gathered.missing.find((m) => m.reason !== 'timeout') ?? gathered.missing[0]!;
    throw new ScatterError('SHARD_ERROR', `all ${gathered.outcomes.length} queried shard(s) failed; shard ${first.shard}: ${first.message}`, {
      details: { shards },
    });
  }

  const finalizeAt = now();
  let fin: ReturnType<typeof gathered.merger.finalize>;
  try {
    fin = gathered.merger.finalize();
  } catch (e) {
    // A refusal found only when finalizing (an expression the coordinator cannot evaluate over these values).
    const answered = refusedToGeneral(e);
    if (answered) return answered;
    throw e;
  }
  const finalized = now();
  gathered.budget?.recordFinalize(finalized - finalizeAt); // the next query's estimate (merge-budget.ts)
  // transferOverflowMode 'break' cut something: shipped GLOBAL data (the plan) or groups/rows the
  // merger stopped accepting (the finalize). Either way the answer is partial, never complete.
  const truncated = [...(plan.truncated ?? []), ...subTruncated, ...(fin.truncated ?? [])];
  if (truncated.length > 0 && requireComplete) {
    throw new ScatterError('INCOMPLETE_RESULT', `data was truncated (transferOverflowMode 'break'): ${truncated.join('; ')}`, { details: { shards } });
  }
  const all = [...gathered.outcomes, ...subOutcomes];
  const stats: ShardStat[] = gathered.outcomes.map((o) => shardStatOf(o, t0));
  const body: QueryResponse = {
    meta: fin.meta,
    data: fin.data,
    rows: fin.data.length,
    partial: missing.length > 0 || truncated.length > 0,
    shards,
    path: 'fast',
    statistics: {
      elapsedMs: round1(now() - t0),
      rowsRead: all.reduce((a, o) => a + (o.response?.statistics.rowsRead ?? 0), 0),
      bytesRead: all.reduce((a, o) => a + (o.response?.statistics.bytesRead ?? 0), 0),
      deadlineMs: deadline.budgetMs,
      deadlineLimitedBy: deadline.limitedBy,
      shards: stats,
      deadlineAtMs: offsetMs(deadline.at, t0),
      skipped: skippedStats(gathered.skipped),
      coordinator: coordinatorSpans(t0, { startedAt: t0, endedAt: planned }, gathered.merges, { startedAt: finalizeAt, endedAt: finalized }),
    },
  };
  if (fin.approximate && Object.keys(fin.approximate).length > 0) body.approximate = fin.approximate;
  if (fin.cursor) body.cursor = fin.cursor;
  if (truncated.length > 0) body.truncated = truncated;
  return withTopCount(body, pre);
}

/** Where an exact top count goes: the general path when it can take it, else every group on the fast path. */
function fastTopCount(path: QueryPath, deps: RunDeps): PlanOptions['exactTopCount'] {
  return path === 'auto' && deps.planTwoStage ? 'general' : 'every-group';
}

/**
 * The statement with its `{name:Type}` parameters bound (shared/core/plan/bind-params.ts), so both paths,
 * the general path's final stage included, see constants; or undefined when it does not parse: the
 * planner then reports the syntax error itself, with its position.
 */
function parseOrUndefined(sql: string, params?: QueryRequest['params']): SelectStatement | undefined {
  let stmt: SelectStatement;
  try {
    stmt = parseSelect(sql);
  } catch {
    return undefined;
  }
  return bindParams(stmt, params);
}

function errorResult(e: unknown, deps: { onInternalError?: (e: unknown) => void }): HttpResult {
  const err = toClientError(e);
  if (err.code === 'INTERNAL') deps.onInternalError?.(e);
  return { status: err.status, body: err.toBody() };
}

/** POST /query: raw body (string or parsed) -> HTTP status and JSON body. Never throws. */
export async function runQuery(rawBody: unknown, deps: RunDeps): Promise<HttpResult> {
  try {
    const req = parseQueryRequest(rawBody);
    return { status: 200, body: await executeQuery(req, deps) };
  } catch (e) {
    return errorResult(e, deps);
  }
}

/** POST /explain: plans without running the query (GLOBAL subqueries still run, under the deadline). */
export async function runExplain(rawBody: unknown, deps: RunDeps): Promise<HttpResult> {
  try {
    const req = parseQueryRequest(rawBody);
    if (!deps.explainPlan) throw new ScatterError('INTERNAL', 'explain is not available');
    const now = deps.now ?? Date.now;
    const { deadline, hedge, limiter } = queryBudget(deps.topo, deps, req, deps.arrivedAt ?? now());
    const runSubquery = completeSubqueryRunner(
      { topo: deps.topo, invoker: deps.invoker, queryId: deps.queryId, deadlineAt: deadline.at, now, hedge, state: deps.hedgeState, limiter },
      (stmt, self) => deps.planQuery(stmt, deps.topo, planOptions({ ...req, cursor: undefined }, deps, self)),
    );
    const stmt = parseOrUndefined(req.sql, req.params);
    const path = requestedPath(req.settings, stmt);
    // How a top count over groups that span shards is answered (TPUT's round SQL, or why not).
    const top = explainTopCountFor(req, deps, stmt);
    const withTop = (body: unknown) => (top ? { ...(body as Record<string, unknown>), topCount: top } : body);
    if (path === 'general' && stmt) return { status: 200, body: withTop(await explainGeneral({ req, deps, stmt, runSubquery })) };
    let plan: QueryPlan;
    try {
      plan = await deps.planQuery(stmt ?? req.sql, deps.topo, planOptions(req, deps, runSubquery, fastTopCount(path, deps)));
    } catch (e) {
      if (path === 'auto' && stmt && fastPathRefused(e) && deps.planTwoStage)
        return { status: 200, body: withTop(await explainGeneral({ req, deps, stmt, runSubquery, fastRefusal: e })) };
      throw e;
    }
    return { status: 200, body: withTop({ path: 'fast', ...(deps.explainPlan(plan) as Record<string, unknown>) }) };
  } catch (e) {
    return errorResult(e, deps);
  }
}
