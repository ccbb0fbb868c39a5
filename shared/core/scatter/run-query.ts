// POST /query and POST /explain as plain functions: body in, { status, body } out. The coordinator
// handler (AWS and the local stack alike) and scheduled runs call these; nothing here knows about
// API Gateway or Lambda, only about the invoker port. Both are thin adapters over the request's
// session (query-session.ts): the JSON API's planner options and settings, then a path's strategy.
import type { PlanOptions, SubqueryRunner } from '../plan/types.js';
import type { SelectStatement } from '../sql/ast.js';
import { ScatterError, toClientError } from '../errors.js';
import { parseQueryRequest, type QueryRequest } from '../protocol/api-request.js';
import { planFastPath, runFastPath } from './fast-path.js';
import { boundStatement, onChosenPath, openQuerySession, prepassOf, withExistsFolded, type PlanUse, type QuerySession } from './query-session.js';
import { mergedSettings, productModeOf } from './plan-inputs.js';
import { executeGeneral, explainGeneral } from './two-stage/general-request.js';
import { explainTopCountFor, withTopCount } from './tput/attach.js';
import { explainQueryThenFetch, queryThenFetchRound, withQueryThenFetch } from './query-then-fetch.js';
import { forgetOnUnknownColumn, withTableColumns, type Expanded } from './table-columns.js';
import type { PlanFn, QueryResponse, RunDeps, ShardsSummary, ShardStat } from './query-types.js';
import { withContextValues } from '../plan/context-values.js';
import { atUserPosition } from './query-errors.js';
import { seedRandomTables } from '../plan/random-seeds.js';
import { timeoutThrows } from '../plan/settings.js';
import { truncatingModes } from '../clickhouse/overflow-modes.js';
import { judgeTruncatingModes } from './completeness.js';

export type { PlanFn, QueryResponse, RunDeps, ShardsSummary, ShardStat };

export interface HttpResult {
  status: number;
  body: unknown;
}

/** The JSON API's planner options: the request's settings, cursor (not for a subquery) and parameters. */
function planOptions(req: QueryRequest, deps: RunDeps, use: PlanUse, runSubquery: SubqueryRunner, deadlineAt: number): PlanOptions {
  const opts: PlanOptions = { distributedProductMode: deps.topo.query.distributedProductMode };
  if (deps.statistics) opts.statistics = deps.statistics.source(deps.topo, deps.invoker, deadlineAt);
  if (deps.cursorKey) opts.cursorKey = deps.cursorKey;
  if (req.settings) opts.settings = req.settings;
  if (req.cursor && use !== 'subquery') opts.cursor = req.cursor;
  if (req.params) opts.params = req.params;
  opts.runSubquery = runSubquery;
  return opts;
}

/** The JSON API's session: a syntax error is the planner's to report; a partial GLOBAL set makes a partial answer. */
async function jsonSession(
  req: QueryRequest,
  deps: RunDeps,
  subqueriesMayBePartial: boolean,
): Promise<QuerySession & { expanded?: Expanded; randomSeeds: string[] }> {
  // A syntax error is the planner's to report, with its position.
  const written = boundStatement(req.sql, req.params, true);
  // generateRandom() without a seed: one drawn here, the same on every engine, reported in the answer.
  const seeded = written && seedRandomTables(written);
  // currentDatabase(): the request's database, the one unqualified configured names mean; never a shard's.
  const bound = seeded && withContextValues(seeded.statement, { database: 'default' });
  // `*` and its kin spelled out where the plan needs the tables' columns.
  const expanded = bound ? await withTableColumns(bound, deps, undefined, req.settings) : undefined;
  const stmt = expanded?.statement;
  const session: QuerySession = openQuerySession(deps, stmt, {
    timeoutMs: req.timeoutMs,
    hedge: req.hedge,
    settings: req.settings,
    cursor: req.cursor,
    topCountSettings: req.settings,
    productMode: stmt ? productModeOf(mergedSettings(req, stmt), deps.topo) : deps.topo.query.distributedProductMode,
    planOptions: (use, run) => planOptions(req, deps, use, run, session.deadline.at),
    subqueries: { partial: subqueriesMayBePartial },
  });
  const folded = await withExistsFolded(session);
  const randomSeeds = seeded?.seeds ?? [];
  return expanded ? { ...folded, expanded, randomSeeds } : { ...folded, randomSeeds };
}

/**
 * Run a validated request. Throws ScatterError for client-visible failures (including
 * INCOMPLETE_RESULT with `shards` in its details). Used by POST /query and scheduled runs.
 */
export async function executeQuery(req: QueryRequest, deps: RunDeps, retried = false): Promise<QueryResponse> {
  const s = await jsonSession(req, deps, true);
  try {
    const body = await executeInSession(s, req, deps);
    return s.randomSeeds.length ? { ...body, randomSeeds: s.randomSeeds } : body;
  } catch (e) {
    // A shard says a column is unknown where `*` was spelled from cached columns: read them again, once.
    if (s.expanded && forgetOnUnknownColumn(e, s.expanded, deps.tableColumns) && !retried) return executeQuery(req, deps, true);
    throw atUserPosition(e, s.statement);
  }
}

async function executeInSession(s: QuerySession, req: QueryRequest, deps: RunDeps): Promise<QueryResponse> {
  // timeout_overflow_mode = 'throw': a shard missing at the deadline fails the query, as ClickHouse throws at its timeout.
  const requireComplete =
    (req.requireComplete ?? deps.topo.query.requireComplete) || (s.statement !== undefined && timeoutThrows(mergedSettings(req, s.statement)));
  if (s.statement) judgeTruncatingModes(truncatingModes(mergedSettings(req, s.statement)), requireComplete);
  const pre = await prepassOf(s);
  // Round 2 of a top count: the query narrowed to its candidates, on the path below.
  // A wide top-k asked for in two rounds: the query bounded by round one's last sort key.
  const qtf = pre ? undefined : await queryThenFetchRound(s, s.statement);
  const stmt = pre?.statement ?? qtf?.statement ?? s.statement;
  const body = await onChosenPath<QueryResponse>(s, stmt, {
    fast: (fallBack) =>
      runFastPath(
        s,
        stmt,
        {
          sql: req.sql,
          requireComplete,
          requireCoverage: req.requireCoverage ?? deps.topo.query.requireCoverage,
          ...(deps.tree ? { tree: deps.tree } : {}),
          ...(qtf?.statement ? { queryThenFetchBound: true } : {}),
        },
        fallBack,
      ),
    general: (st, fastRefusal) => executeGeneral(s, { req, stmt: st, ...(fastRefusal ? { fastRefusal } : {}) }, requireComplete),
  });
  return withQueryThenFetch(withTopCount(body, pre), qtf);
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

/** POST /explain: plans without running the query (GLOBAL subqueries still run, under the deadline, and must be complete). */
export async function runExplain(rawBody: unknown, deps: RunDeps): Promise<HttpResult> {
  try {
    const req = parseQueryRequest(rawBody);
    const { explainPlan } = deps;
    if (!explainPlan) throw new ScatterError('INTERNAL', 'explain is not available');
    const s = await jsonSession(req, deps, false);
    const stmt = s.statement;
    // How a top count over groups that span shards is answered (TPUT's round SQL, or why not).
    const top = explainTopCountFor(req, deps, stmt);
    const qtf = await explainQueryThenFetch(s, stmt);
    const withTop = (body: unknown) => {
      const b = body as Record<string, unknown> & { notes?: string[] };
      // The subquery folds come first: they say which statement the plan below is of.
      const seeds = s.randomSeeds.map((seed) => `generateRandom() without a seed: every engine draws the rows of seed ${seed}`);
      const lead = [...s.folds, ...seeds];
      const notes = lead.length ? { notes: [...lead, ...(b.notes ?? [])] } : {};
      return { ...b, ...notes, ...(top ? { topCount: top } : {}), ...(qtf ? { queryThenFetch: qtf } : {}) };
    };
    const general = (st: SelectStatement, fastRefusal?: ScatterError) =>
      explainGeneral(s, { req, stmt: st, ...(fastRefusal ? { fastRefusal } : {}) }, explainPlan);
    const body = await onChosenPath<unknown>(s, stmt, {
      fast: async (fallBack) => {
        const planning = await planFastPath(s, stmt, req.sql, fallBack);
        return 'answered' in planning ? planning.answered : { path: 'fast', ...(explainPlan(planning.plan) as Record<string, unknown>) };
      },
      general,
    });
    return { status: 200, body: withTop(body) };
  } catch (e) {
    return errorResult(e, deps);
  }
}
