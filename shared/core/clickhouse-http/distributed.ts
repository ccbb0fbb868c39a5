// A SELECT over distributed tables through the ClickHouse interface, a thin adapter over the
// request's session (shared/core/scatter/query-session.ts): always the general
// (two-stage) path, because its final stage runs on a shard's ClickHouse engine and renders the
// answer in the requested format, so the bytes are ClickHouse's own for every format and type.
// The request's one deadline (max_execution_time, capped like the JSON API's timeoutMs), its
// parameters bound before planning (so they prune shards), its settings through the planner's
// allowlist, and skip_unavailable_shards deciding whether a missing shard fails the query.
import type { Topology } from '../config/schema.js';
import type { PlanFn } from '../scatter/query-types.js';
import { boundStatement, openQuerySession, prepassOf, withExistsFolded } from '../scatter/query-session.js';
import { runGeneralInSession } from '../scatter/two-stage/general-request.js';
import type { HedgeState } from '../scatter/hedge.js';
import type { ShardInvoker } from '../scatter/invoker.js';
import type { ShardOutcome } from '../scatter/call-shard.js';
import { clauseSettings, productModeOf, refuseForAnyPath, twoStageOptionsOf, type TwoStagePlanner } from '../scatter/two-stage/index.js';
import type { DistributedSelect } from './types.js';
import type { TopCountMemory } from '../scatter/tput/memory.js';
import type { StatisticsCache } from '../scatter/table-statistics.js';
import type { ExchangeCleaner } from '../shard/exchange.js';
import { forgetOnUnknownColumn, withTableColumns, type TableColumns } from '../scatter/table-columns.js';
import { olderEngineSyntaxError } from '../scatter/query-errors.js';
import { seedRandomTables } from '../plan/random-seeds.js';
import { markExternal } from '../plan/external-tables.js';
import { renamesFormat, typedSibling, withAnswerNamesIn, withoutTypedHeader } from './renamed-format.js';
import { notRenamed } from './renaming.js';
import { engineEvaluation, namesAlikeOnEngine } from '../plan/two-stage/engine-names.js';
import type { SelectStatement } from '../sql/ast.js';

/** Why a ClickHouse 26 final stage does not name them itself WITH TOTALS: it evaluates the answer once per side there, which these would change. */
const TOTALS_WHY =
  ' (a ClickHouse 26 engine writes them itself, but not WITH TOTALS in a format that writes totals where the final query calls a function whose value differs between evaluations, such as rand(), or joins under a join_use_nulls or join_algorithm the query sets: it evaluates the answer once for each group of distinct names there, under join settings of its own)';
const hasTotals = (s: SelectStatement) => s.kind === 'select' && s.withTotals;

export interface GeneralSelectDeps {
  topo: Topology;
  tableColumns?: TableColumns;
  invoker: ShardInvoker;
  hedgeState: HedgeState;
  /** What TPUT's pre-pass remembers between queries; absent: nothing past the request. */
  topCountMemory?: TopCountMemory;
  planQuery: PlanFn;
  planTwoStage: TwoStagePlanner;
  /** Per-shard table statistics (pruning, the answer's coverage). */
  statistics?: StatisticsCache;
  /** Deletes a query's exchange objects when it ends. */
  exchange?: ExchangeCleaner;
  /** context.getRemainingTimeInMillis() at arrival, when in Lambda. */
  lambdaRemainingMs?: number;
  behindApiGateway?: boolean;
  onShard?: (o: ShardOutcome) => void;
  now?: () => number;
}

export function generalSelect(deps: GeneralSelectDeps): DistributedSelect {
  return async (req) => {
    const { topo } = deps;
    // A syntax error is thrown here, never undefined; the request's external data marked where it is
    // read; `*` and its kin spelled out where the plan needs the columns.
    const external = req.external ?? [];
    const names = new Set(external.map((t) => t.name));
    const expanded = await withTableColumns(
      // generateRandom() without a seed: one drawn here, so every engine draws the same rows.
      markExternal(seedRandomTables(boundStatement(req.sql, req.params)!).statement, names),
      deps,
      new Map(external.map((t) => [t.name, t.columns])),
      req.settings,
    );
    const stmt = expanded.statement;
    // What no path may run (file(), getSetting(), LIMITs that are not integers...), on the whole
    // statement: the final stage runs its outer expressions on a shard's engine.
    refuseForAnyPath(stmt, topo);
    const settings = { ...req.settings, ...clauseSettings(stmt) };
    const productMode = productModeOf(settings, topo);
    const opened = openQuerySession({ ...deps, queryId: req.queryId, ...(req.arrivedAt !== undefined ? { arrivedAt: req.arrivedAt } : {}) }, stmt, {
      timeoutMs: req.timeoutMs,
      settings,
      path: 'general',
      topCountSettings: settings,
      productMode,
      // GLOBAL IN / JOIN right-hand sides and TPUT's round are planned with the request's settings.
      planOptions: (use, run) => ({
        settings,
        distributedProductMode: productMode,
        ...(use === 'prepass' ? {} : { runSubquery: run }),
        ...(external.length ? { external } : {}),
      }),
      subqueries: { partial: false, missingInDetails: true },
    });
    const s = await withExistsFolded(opened);
    const pre = await prepassOf(s);
    const plan = deps.planTwoStage(pre?.statement ?? s.statement!, topo, { ...twoStageOptionsOf(settings, topo), external: names });
    // Two different columns of one name: written by the final stage's engine where it can (every format is then its
    // own bytes), else given back in the bytes of the formats whose layout of names is known, and refused before any
    // shard runs in the others.
    const evaluation =
      plan.answerNames && namesAlikeOnEngine(req.engineVersion) ? engineEvaluation(req.format, hasTotals(stmt), plan.finalSql, settings) : undefined;
    const byEngine = plan.answerNames && evaluation ? { names: plan.answerNames, evaluation } : undefined;
    const answerNames = byEngine ? undefined : plan.answerNames;
    if (answerNames && !renamesFormat(req.format))
      throw notRenamed(answerNames, req.format, undefined, hasTotals(stmt) && namesAlikeOnEngine(req.engineVersion) ? TOTALS_WHY : '');
    // A format without types is asked with a header of names and types, cut off once they pass ClickHouse's check.
    const sibling = answerNames ? typedSibling(req.format, answerNames, namesAlikeOnEngine(req.engineVersion)) : undefined;
    // A shard's unknown column for a statement spelled from cached columns: the next query reads them again.
    const r = await runGeneralInSession(s, plan, {
      format: sibling ?? req.format,
      formatSettings: req.formatSettings,
      settings,
      requireComplete: req.requireComplete,
      distributedProductMode: productMode,
      ...(req.signal ? { signal: req.signal } : {}),
      ...(external.length ? { external } : {}),
      ...(byEngine ? { engineNames: byEngine } : {}),
    }).catch((e: unknown) => {
      forgetOnUnknownColumn(e, expanded, deps.tableColumns);
      throw olderEngineSyntaxError(e, stmt);
    });
    return {
      bytes:
        answerNames && r.bytes
          ? sibling
            ? withoutTypedHeader(r.bytes, sibling, answerNames, req.formatSettings)
            : withAnswerNamesIn(r.bytes, req.format, answerNames, req.formatSettings)
          : (r.bytes ?? Buffer.alloc(0)),
      rowsRead: r.statistics.rowsRead + (pre?.rowsRead ?? 0),
      bytesRead: r.statistics.bytesRead + (pre?.bytesRead ?? 0),
      missing: r.missing.map((m) => ({ shard: m.shard, reason: m.reason, ...(m.message ? { message: m.message } : {}) })),
      skipped: r.statistics.skipped,
      ...(r.coverage ? { coverage: r.coverage } : {}),
      ...(r.truncated ? { truncated: r.truncated } : {}),
    };
  };
}
