// A SELECT over distributed tables through the ClickHouse interface: always the general
// (two-stage) path, because its final stage runs on a shard's ClickHouse engine and renders the
// answer in the requested format, so the bytes are ClickHouse's own for every format and type.
// The request's one deadline (max_execution_time, capped like the JSON API's timeoutMs), its
// parameters bound before planning (so they prune shards), its settings through the planner's
// allowlist, and skip_unavailable_shards deciding whether a missing shard fails the query.
import type { Topology } from '../config/schema.js';
import { parseSelect } from '../sql/parse.js';
import type { SelectStatement } from '../sql/ast.js';
import { bindParams } from '../plan/bind-params.js';
import type { PlanFn } from '../scatter/run-query.js';
import { queryBudget } from '../scatter/query-budget.js';
import { completeSubqueryRunner } from '../scatter/complete-subquery.js';
import type { HedgeState } from '../scatter/hedge.js';
import type { ShardInvoker } from '../scatter/invoker.js';
import type { ShardOutcome } from '../scatter/call-shard.js';
import { clauseSettings, productModeOf, refuseForAnyPath, runGeneralQuery, type TwoStagePlanner } from '../scatter/two-stage/index.js';
import type { DistributedSelect } from './types.js';
import { requestedTopCount } from '../plan/tput/method.js';
import type { TopCountMemory } from '../scatter/tput/memory.js';
import { topCountPrepass } from '../scatter/tput/prepass.js';

export interface GeneralSelectDeps {
  topo: Topology;
  invoker: ShardInvoker;
  hedgeState: HedgeState;
  /** What TPUT's pre-pass remembers between queries; absent: nothing past the request. */
  topCountMemory?: TopCountMemory;
  planQuery: PlanFn;
  planTwoStage: TwoStagePlanner;
  /** context.getRemainingTimeInMillis() at arrival, when in Lambda. */
  lambdaRemainingMs?: number;
  behindApiGateway?: boolean;
  onShard?: (o: ShardOutcome) => void;
  now?: () => number;
}

export function generalSelect(deps: GeneralSelectDeps): DistributedSelect {
  return async (req) => {
    const now = deps.now ?? Date.now;
    const t0 = req.arrivedAt ?? now();
    const { topo } = deps;
    const stmt: SelectStatement = bindParams(parseSelect(req.sql), req.params);
    // What no path may run (file(), getSetting(), LIMITs that are not integers...), on the whole
    // statement: the final stage runs its outer expressions on a shard's engine.
    refuseForAnyPath(stmt, deps.topo);
    const { deadline, hedge, limiter } = queryBudget(topo, deps, { timeoutMs: req.timeoutMs }, t0);
    const settings = { ...req.settings, ...clauseSettings(stmt) };
    // GLOBAL IN / JOIN right-hand sides run once, under the same deadline, as on the JSON API.
    const runSubquery = completeSubqueryRunner(
      {
        topo,
        invoker: deps.invoker,
        queryId: req.queryId,
        deadlineAt: deadline.at,
        now,
        hedge,
        state: deps.hedgeState,
        limiter,
        ...(deps.onShard ? { onShard: deps.onShard } : {}),
      },
      (sub, self) => deps.planQuery(sub, topo, { settings, runSubquery: self, distributedProductMode: productModeOf(settings, topo) }),
      { missingInDetails: true },
    );
    const productMode = productModeOf(settings, topo);
    // An exact top count: TPUT's one-round pre-pass narrows the statement to its candidate groups first
    // (shared/core/scatter/tput/; unchanged when the query is not eligible or a round cannot be trusted).
    const pre = await topCountPrepass({
      ctx: {
        topo,
        invoker: deps.invoker,
        queryId: req.queryId,
        now,
        hedge,
        hedgeState: deps.hedgeState,
        limiter,
        planOptions: { settings, distributedProductMode: productMode },
        ...(deps.onShard ? { onShard: deps.onShard } : {}),
      },
      stmt,
      setting: requestedTopCount(settings, stmt, topo),
      productMode,
      deadlineAt: deadline.at,
      startedAt: t0,
      ...(deps.topCountMemory ? { memory: deps.topCountMemory } : {}),
    });
    const plan = deps.planTwoStage(pre?.statement ?? stmt, topo, { distributedProductMode: productMode });
    const r = await runGeneralQuery(
      { topo, invoker: deps.invoker, hedgeState: deps.hedgeState, queryId: req.queryId, now, ...(deps.onShard ? { onShard: deps.onShard } : {}) },
      plan,
      {
        deadline,
        startedAt: t0,
        format: req.format,
        formatSettings: req.formatSettings,
        settings,
        requireComplete: req.requireComplete,
        hedge,
        distributedProductMode: productMode,
        runSubquery,
        limiter,
      },
    );
    return {
      bytes: r.bytes ?? Buffer.alloc(0),
      rowsRead: r.statistics.rowsRead + (pre?.rowsRead ?? 0),
      bytesRead: r.statistics.bytesRead + (pre?.bytesRead ?? 0),
      missing: r.missing.map((m) => ({ shard: m.shard, reason: m.reason, ...(m.message ? { message: m.message } : {}) })),
    };
  };
}
