// One request's pipeline, built once whatever interface asked (POST /query, /explain, scheduled
// runs, the ClickHouse interface): the statement parsed with its parameters bound, the budget (one
// deadline, the hedge policy, one in-flight cap), the GLOBAL subquery runner, the TPUT pre-pass and
// the path choice. The paths are strategies run under it: the fast path (fast-path.ts) and the
// general path (two-stage/), each judged by the one completeness verdict (completeness.ts).
import type { SettingValue } from '../clickhouse/port.js';
import type { ScatterError } from '../errors.js';
import { errorAt } from '../plan/position.js';
import { bindParams } from '../plan/bind-params.js';
import { foldSubqueries } from '../plan/fold-subquery.js';
import { distinctOnAsLimitBy } from '../plan/distinct-on.js';
import { propagateWith } from '../plan/global-with.js';
import { settlePositions } from '../plan/positional.js';
import { settleSetOperators } from '../plan/set-op-modes.js';
import { withResultFilter, withTableFilters } from '../plan/table-filters.js';
import { requestedTopCount } from '../plan/tput/method.js';
import type { PlanOptions, SubqueryRunner } from '../plan/types.js';
import type { SelectStatement } from '../sql/ast.js';
import { parseSelect } from '../sql/parse.js';
import { numberSubqueries } from '../sql/subquery-numbers.js';
import type { GatherInput } from './gather.js';
import { clearLedger, globalSubqueryRunner, pinLedger, type SubqueryLedger, type SubqueryPolicy } from './global-subquery.js';
import { foldExists } from '../plan/exists-fold.js';
import { refuseUnaliasedJoinTables } from '../plan/join-alias.js';
import { refuseAmbiguousPaste, refusePasteOverDistributed } from '../plan/paste-join.js';
import { queryBudget, type QueryBudget } from './query-budget.js';
import type { RunDeps } from './query-types.js';
import { topCountPrepass, type Prepass } from './tput/prepass.js';
import { fastPathRefused, requestedPath, type QueryPath } from './two-stage/path.js';
import { clauseSettings, noMergeOf } from './plan-inputs.js';
import { executionLimitMs } from '../plan/settings.js';
import { generalSubquery } from './two-stage/general-subquery.js';

/** What a session runs with: the coordinator's ports and state, and the request's arrival. */
export type SessionDeps = Pick<
  RunDeps,
  | 'topo'
  | 'invoker'
  | 'hedgeState'
  | 'queryId'
  | 'planQuery'
  | 'planTwoStage'
  | 'topCountMemory'
  | 'now'
  | 'arrivedAt'
  | 'lambdaRemainingMs'
  | 'behindApiGateway'
  | 'onShard'
  | 'statistics'
  | 'tableColumns'
  | 'cursorKey'
  | 'exchange'
>;

/** Where the planner is asked: the main query (fast path), a GLOBAL subquery, or TPUT's round. */
export type PlanUse = 'query' | 'subquery' | 'prepass';

/** How an interface asks: its budget inputs, its planner options, and what it accepts. */
export interface SessionRequest {
  timeoutMs?: number | undefined;
  hedge?: boolean | undefined;
  /** The request's settings, where ch_scatter_path is read (the SQL's SETTINGS clause wins). */
  settings?: Record<string, SettingValue> | undefined;
  /** The path this interface always takes; absent: the request chooses (requestedPath). */
  path?: QueryPath;
  /** A cursor continues a row query on the fast path: no TPUT pre-pass. */
  cursor?: string | undefined;
  /** The settings a top count's method is read from, and the distributed_product_mode asked for. */
  topCountSettings: Record<string, SettingValue> | undefined;
  productMode: 'deny' | 'local' | 'global';
  planOptions(use: PlanUse, runSubquery: SubqueryRunner): PlanOptions;
  subqueries: SubqueryPolicy;
}

export interface QuerySession extends QueryBudget {
  deps: SessionDeps;
  now: () => number;
  /** The request's arrival: the deadline and every statistics offset count from here. */
  startedAt: number;
  /** Undefined when the SQL does not parse: the planner then reports the error with its position. Subqueries folded. */
  statement: SelectStatement | undefined;
  /** For /explain: which subqueries in FROM were folded into their outer SELECT (fold-subquery.ts), or why not. */
  folds: string[];
  path: QueryPath;
  request: SessionRequest;
  runSubquery: SubqueryRunner;
  subqueries: SubqueryLedger;
  /** What every fan-out of this request takes (a plan aside). */
  fanout: Omit<GatherInput, 'plan'>;
}

/**
 * The statement with its `{name:Type}` parameters bound (shared/core/plan/bind-params.ts), so both paths,
 * the general path's final stage included, see constants. A syntax error is thrown with its position,
 * or, `deferSyntaxError`, left to the planner to report (undefined).
 */
export function boundStatement(sql: string, params: Parameters<typeof bindParams>[1], deferSyntaxError = false): SelectStatement | undefined {
  let stmt: SelectStatement;
  try {
    stmt = parseSelect(sql);
  } catch (e) {
    if (deferSyntaxError) return undefined;
    throw e;
  }
  return bindParams(stmt, params);
}

export function openQuerySession(deps: SessionDeps, written: SelectStatement | undefined, request: SessionRequest): QuerySession {
  // Rewritten once, for every path, interface and engine: DISTINCT ON as LIMIT 1 BY, positions and
  // bare set operators' modes settled, subqueries numbered as ClickHouse numbers the query as written,
  // WITH names carried into the subqueries that see them, additional_table_filters applied to the
  // tables they name and additional_result_filter to the result; then the projection-and-filter
  // subqueries in FROM folded.
  let settled = written && settleSetOperators(settlePositions(distinctOnAsLimitBy(written), request.settings), request.settings);
  if (settled) {
    refuseUnaliasedJoinTables(settled, request.settings);
    refusePasteOverDistributed(settled, deps.topo, request.productMode);
    refuseAmbiguousPaste(settled, request.settings);
    numberSubqueries(settled);
    propagateWith(settled);
    // After the numbering: the subqueries the filters add are not the client's (ClickHouse numbers what was written).
    settled = withResultFilter(withTableFilters(settled, request.settings, deps.topo), request.settings);
  }
  // Unmerged (distributed_group_by_no_merge), an outer SELECT's LIMIT or ORDER BY applies once over
  // every shard's answer; folded into its subquery it would run on each shard instead.
  const unmerged = settled !== undefined && unmergedRequest(request, settled);
  const folded = settled && !unmerged ? foldSubqueries(settled, deps.topo) : undefined;
  const statement = unmerged ? settled : folded?.statement;
  const now = deps.now ?? Date.now;
  // The deadline counts from the request's arrival: time spent before this point is the client's too.
  const startedAt = deps.arrivedAt ?? now();
  const budget = queryBudget(deps.topo, deps, { ...request, timeoutMs: timeoutOf(deps, request, settled) }, startedAt);
  const path = request.path ?? requestedPath(request.settings, statement);
  const fanout: Omit<GatherInput, 'plan'> = {
    topo: deps.topo,
    invoker: deps.invoker,
    queryId: deps.queryId,
    deadlineAt: budget.deadline.at,
    now,
    hedge: budget.hedge,
    state: deps.hedgeState,
    limiter: budget.limiter,
    ...(deps.onShard ? { onShard: deps.onShard } : {}),
  };
  // GLOBAL IN / JOIN right-hand sides run once, through this same runtime and deadline.
  // What the fast path refuses runs on the general path, so the fast path refuses what only its sketches
  // would answer: a shipped value has no `approximate` label. Unmerged, ClickHouse's initiator runs such a
  // subquery unmerged too: the general path's unmerged cut, never the fast path's merge.
  const noMerge = unmerged ? noMergeOf(askedSettings(request, settled)) : 0;
  // The outer SETTINGS clause holds for its subqueries too, as in ClickHouse (the fast path's subquery SQL
  // carries its own clause; the general path's final stage would not see the outer one).
  const outer = settled ? clauseSettings(settled) : {};
  const general = generalSubquery(
    deps,
    budget,
    startedAt,
    (self) => {
      const o = request.planOptions('subquery', self);
      return ownRun({ ...o, settings: { ...o.settings, ...outer } });
    },
    noMerge,
  );
  const { run, ledger } = globalSubqueryRunner(
    fanout,
    (stmt, self) =>
      unmerged
        ? Promise.reject(unmergedSubquery(stmt))
        : deps.planQuery(stmt, deps.topo, {
            ...ownRun(request.planOptions('subquery', self)),
            ...(deps.planTwoStage ? { exactTopCount: 'general' as const } : {}),
          }),
    request.subqueries,
    general,
  );
  return { ...budget, deps, now, startedAt, statement, folds: folded?.notes ?? [], path, request, runSubquery: run, subqueries: ledger, fanout };
}

/**
 * The session with each EXISTS over a distributed table run once and folded into its constant, as
 * ClickHouse's analyzer folds it (shared/core/plan/exists-fold.ts), before either path plans; what
 * those runs left in the ledger (missing shards) stays when a path plans the query anew.
 */
export async function withExistsFolded<S extends QuerySession>(s: S): Promise<S> {
  if (!s.statement) return s;
  const statement = await foldExists(s.statement, s.deps.topo, s.runSubquery);
  if (statement === s.statement) return s;
  pinLedger(s.subqueries);
  return { ...s, statement };
}

/**
 * An exact top count: TPUT's pre-pass round narrows the statement to its candidate groups (the narrowed
 * query then runs on the path below); undefined when the statement is no top count over groups that
 * span shards (shared/core/scatter/tput/).
 */
export function prepassOf(s: QuerySession): Promise<Prepass | undefined> {
  const { deps, statement } = s;
  // Unmerged, each shard's own top groups are the answer: no pre-pass narrows them.
  if (!statement || s.request.cursor || unmergedRequest(s.request, statement)) return Promise.resolve(undefined);
  return topCountPrepass({
    ctx: {
      topo: deps.topo,
      invoker: deps.invoker,
      queryId: deps.queryId,
      now: s.now,
      hedge: s.hedge,
      hedgeState: deps.hedgeState,
      limiter: s.limiter,
      planOptions: ownRun(s.request.planOptions('prepass', s.runSubquery)),
      ...(deps.onShard ? { onShard: deps.onShard } : {}),
    },
    stmt: statement,
    setting: requestedTopCount(s.request.topCountSettings, statement, deps.topo),
    productMode: s.request.productMode,
    deadlineAt: s.deadline.at,
    startedAt: s.startedAt,
    ...(deps.topCountMemory ? { memory: deps.topCountMemory } : {}),
  });
}

/**
 * The options of a statement run on its own before the answer (a GLOBAL subquery, TPUT's round):
 * without `extremes`, which shapes the answer the client sees, not the rows these runs hand on.
 */
function ownRun(opts: PlanOptions): PlanOptions {
  if (opts.settings?.extremes === undefined) return opts;
  const { extremes: _e, ...settings } = opts.settings;
  return { ...opts, settings };
}

/** Every setting the request asks for, of either interface, with the SQL's SETTINGS clause over them. */
function askedSettings(request: SessionRequest, stmt: SelectStatement | undefined): Record<string, SettingValue> {
  return { ...request.topCountSettings, ...request.settings, ...(stmt ? clauseSettings(stmt) : {}) };
}

/**
 * The request's time budget: its own (timeoutMs, the interface's URL max_execution_time) or the
 * configured one, lowered by a max_execution_time in its settings or SETTINGS clause, never raised.
 */
function timeoutOf(deps: SessionDeps, request: SessionRequest, stmt: SelectStatement | undefined): number | undefined {
  const asked = executionLimitMs(askedSettings(request, stmt));
  return asked === undefined ? request.timeoutMs : Math.min(request.timeoutMs ?? deps.topo.query.timeoutMs, asked);
}

/** distributed_group_by_no_merge asked for, in the request's settings (either interface's) or the SQL's SETTINGS clause. */
function unmergedRequest(request: SessionRequest, stmt: SelectStatement): boolean {
  return noMergeOf(askedSettings(request, stmt)) !== 0;
}

function unmergedSubquery(stmt: SelectStatement): ScatterError {
  return errorAt(
    'UNSUPPORTED',
    'a subquery over a distributed table that runs once before the shards (GLOBAL IN or JOIN, a scalar subquery) under distributed_group_by_no_merge runs unmerged, on the general path, which this deployment lacks',
    stmt.kind === 'union' ? stmt.selects[0] : stmt,
  );
}

/** The two paths a request may take; `fallBack` hands a fast-path refusal to the general path when allowed. */
export interface PathStrategies<T> {
  fast(fallBack: (e: unknown) => Promise<T> | undefined): Promise<T>;
  general(stmt: SelectStatement, fastRefusal?: ScatterError): Promise<T>;
}

/**
 * The path choice: the fast path answers what it covers; what it refuses as UNSUPPORTED, while
 * planning, merging or finalizing, the general path answers under the same deadline (when this
 * deployment has it and ch_scatter_path leaves the choice); ch_scatter_path forces either.
 */
export function onChosenPath<T>(s: QuerySession, stmt: SelectStatement | undefined, ways: PathStrategies<T>): Promise<T> {
  if (s.path === 'general' && stmt) return ways.general(stmt);
  return ways.fast((e) => {
    if (!(s.path === 'auto' && stmt && fastPathRefused(e) && s.deps.planTwoStage)) return undefined;
    // The general path plans the query anew, its GLOBAL subqueries included: what the fast path's left is not its.
    clearLedger(s.subqueries);
    return ways.general(stmt, e);
  });
}
