// The general (two-stage) path's runtime: a TwoStagePlan in, an answer out.
//   1. each leaf is planned per shard by the ordinary pipeline (renames, prunes, skips, GLOBAL
//      sets shipped), with a pass-through split: the shards run the leaf as written;
//   2. stage one fans out under the query's one deadline, less the final stage's reserve
//      (stage-one.ts), checking headers and transfer limits as answers arrive;
//   3. the final stage runs on one shard's engine over the leaves' rows (final-stage.ts), under
//      the same deadline; its bytes are the answer (any FORMAT, for the ClickHouse HTTP
//      interface) or, parsed, the JSON API's meta/data/totals.
// Missing shards keep the fast path's semantics: partial with the missing shards listed, or
// INCOMPLETE_RESULT (504) when completeness is required.
import { InexactStage, carryAsStates, finalizeCarried, type Carried } from './state-carrier.js';
import { checkEngineOptions } from '../../plan/file-access.js';
import type { ColumnMeta, ExternalTable, SettingValue } from '../../clickhouse/port.js';
import type { Topology } from '../../config/schema.js';
import { ScatterError } from '../../errors.js';
import { planQueryWith } from '../../plan/build.js';
import { tokenize } from '../../sql/lexer.js';
import { asksExtremes } from '../../plan/settings.js';
import { isComputedFormatSetting } from '../../plan/setting-fate.js';
import { truncatingModes, truncationNote } from '../../clickhouse/overflow-modes.js';
import type { StageLeaf, TwoStagePlan } from '../../plan/two-stage/types.js';
import type { PlanOptions, QueryPlan, SubqueryRunner } from '../../plan/types.js';
import type { StatisticsSource } from '../../plan/statistics.js';
import type { HedgeSettings, ShardOutcome } from '../call-shard.js';
import type { Deadline } from '../deadline.js';
import { createLimiter, type Limiter } from '../fanout.js';
import type { MissingShard } from '../gather.js';
import type { HedgeState } from '../hedge.js';
import type { ShardInvoker } from '../invoker.js';
import type { ExchangeCleaner } from '../../shard/exchange.js';
import { passThroughSplitter } from '../plan-inputs.js';
import type { SubqueryLedger } from '../global-subquery.js';
import type { FinalStageStat, ShardsSummary, ShardStat, Stages, TableCoverage } from '../query-types.js';
import {
  offsetMs,
  readTotals,
  roundToTenth,
  shardStatOf,
  skippedStats,
  subqueryStats,
  abandonedStats,
  type CoordinatorSpan,
  type SkippedShardStat,
} from '../timeline-stats.js';
import { JSON_FINAL_FORMAT, JSON_FINAL_SETTINGS, parseFinalJson, withAnswerNames, type FinalJson } from './final-output.js';
import { ExchangeLost, initiatorOrder, runFinalStage, type FinalStageInput } from './final-stage.js';
import { bothStagesOnOneShard, oneShardSql } from './one-shard.js';
import { checkStageOne, summarizeStageOne } from './stage-one-verdict.js';
import { finalOnKeeper, keeperOf } from './kept-stage.js';
import {
  exchangedBy,
  joinParts,
  runStageOne,
  type KeptPart,
  type LeafAnswer,
  type LeafOutcome,
  type PlannedLeaf,
  type StageOneInput,
  type StageOneResult,
} from './stage-one.js';
import { releaseExchanged, releaseKept } from '../shard-cancel.js';
import { missingOf } from '../gather.js';
import { coverageOfPlans, judgeLateness, lateBy } from '../completeness.js';
import { defaultInlineBytes, StageBudget, transferLimits } from './transfer-limits.js';
import { base64Length, wireRows } from './wire.js';
import { type EngineNaming, engineNamedSql, engineNamingSettings } from '../../plan/two-stage/engine-names.js';

/**
 * Of the query's budget, what stage one leaves to the final stage: 10 % of the budget, at least
 * 100 ms and at most 1 s, never more than half. A shard that has not answered by then is missing
 * (partial), so a partial answer is still merged and returned before the deadline.
 */
export function finalStageReserveMs(budgetMs: number): number {
  return Math.min(budgetMs / 2, Math.max(100, Math.min(1000, budgetMs * 0.1)));
}

export interface GeneralDeps {
  topo: Topology;
  invoker: ShardInvoker;
  hedgeState: HedgeState;
  queryId: string;
  now?: () => number;
  onShard?: (o: ShardOutcome) => void;
  /** Deletes the query's exchange objects when it ends (absent: the bucket's expiry does). */
  exchange?: ExchangeCleaner;
}

export interface GeneralOptions {
  /** The query's one deadline (computeDeadline). */
  deadline: Deadline;
  /** When the query started (for statistics offsets); defaults to now. */
  startedAt?: number;
  /**
   * A ClickHouse output format for the answer's bytes (the ClickHouse HTTP interface passes them
   * through). Absent: the JSON API's meta/data, parsed from ClickHouse's JSON.
   */
  format?: string;
  /** Output settings for `format` (e.g. format_csv_delimiter); sent to the final stage only. */
  formatSettings?: Record<string, SettingValue>;
  /** Request settings plus the SQL's SETTINGS clause (allow-listed by the planner, as on the fast path). */
  settings?: Record<string, SettingValue>;
  requireComplete: boolean;
  hedge: HedgeSettings;
  distributedProductMode?: 'deny' | 'local' | 'global';
  runSubquery?: SubqueryRunner;
  /** What the request's GLOBAL subqueries left (missing shards, cuts): the answer is partial with them too. */
  subqueries?: SubqueryLedger;
  /** One in-flight cap for the whole request (shared with GLOBAL subqueries). */
  limiter?: Limiter;
  signal?: AbortSignal;
  /** Time already spent before (parsing, choosing the path): the 'plan' span starts here. */
  planStartedAt?: number;
  /** Per-shard table statistics (pruning the leaves, the answer's coverage). */
  statistics?: StatisticsSource;
  /** The least share of each table's rows the answering shards must hold (default: the topology's). */
  requireCoverage?: number | undefined;
  /** The request's external data (parsed): shipped with every leaf that reads it and to the final stage. */
  external?: readonly ExternalTable[];
  /** The answer's column names, alike ones among them, for the final stage's engine to write itself (engine-names.ts). */
  engineNames?: EngineNaming;
}

export interface GeneralStatistics {
  elapsedMs: number;
  rowsRead: number;
  bytesRead: number;
  deadlineMs: number;
  deadlineLimitedBy: Deadline['limitedBy'];
  shards: (ShardStat & { leaf: string })[];
  deadlineAtMs: number;
  /** The final stage answered this long after the deadline (the answer is partial then). */
  lateMs?: number;
  /** When stage one stopped waiting (the final stage's reserve before the deadline). */
  stageOneDeadlineAtMs: number;
  skipped: SkippedShardStat[];
  coordinator: CoordinatorSpan[];
  /** The shard requests of the query's subqueries (query-types.ts). */
  subqueries?: ShardStat[];
  /** The shard requests of runs the answer does not use (query-types.ts). */
  abandoned?: ShardStat[];
  finalStage: FinalStageStat;
}

export interface GeneralResult {
  path: 'general';
  /** The final stage's bytes, when a format was asked for. */
  bytes?: Buffer;
  /** The JSON API's shape, when no format was asked for. */
  meta?: ColumnMeta[];
  data?: Record<string, unknown>[];
  totals?: Record<string, unknown>;
  extremes?: FinalJson['extremes'];
  rows?: number;
  partial: boolean;
  missing: MissingShard[];
  /** GLOBAL IN / JOIN data cut by transferOverflowMode 'break'; a truncating overflow mode asked for. */
  truncated?: string[];
  shards: ShardsSummary;
  statistics: GeneralStatistics;
  /** The share of each table's rows the answering shards hold: on every partial answer, and wherever statistics are known. */
  coverage?: TableCoverage[];
  /** Every shard request stage one made (for a caller's accounting, as a GLOBAL subquery's): not part of an answer. */
  outcomes: ShardOutcome[];
}

/** Plan every leaf per shard (the ordinary pipeline, pass-through split). */
export async function planLeaves(plan: TwoStagePlan, topo: Topology, opts: PlanOptions): Promise<PlannedLeaf[]> {
  if (plan.leaves.length === 0) throw new ScatterError('INTERNAL', 'two-stage plan without leaves');
  return Promise.all(
    plan.leaves.map(async (leaf) => ({
      name: leaf.name,
      plan: await planQueryWith(leaf.query, topo, leafOptions(leaf, opts), passThroughSplitter),
      ...(leaf.oneRowPerShard ? { oneRowPerShard: true } : {}),
    })),
  );
}

/** The client's format settings a function computed by a leaf reads (toJSONString on the shards), sent with the leaf's query. */
function withComputedFormatSettings(leaves: PlannedLeaf[], formatSettings: Record<string, SettingValue> | undefined): PlannedLeaf[] {
  const computed = Object.entries(formatSettings ?? {}).filter(([name]) => isComputedFormatSetting(name));
  if (!computed.length) return leaves;
  return leaves.map((l) => ({ ...l, plan: { ...l.plan, settings: { ...l.plan.settings, ...Object.fromEntries(computed) } } }));
}

/**
 * A leaf the planner marked 'local' (a local IN: both sides sharded alike) reads each shard's own
 * tables whatever the request's distributed_product_mode says; the others take the request's mode.
 * distributed_group_by_no_merge is the plan's (it cut the query unmerged): the leaves run as planned.
 */
function leafOptions(leaf: StageLeaf, opts: PlanOptions): PlanOptions {
  const { distributed_group_by_no_merge: _n, ...rest } = opts.settings ?? {};
  if (leaf.distributedProductMode !== 'local') return opts.settings ? { ...opts, settings: rest } : opts;
  const { prefer_global_in_and_join: _g, distributed_product_mode: _m, ...settings } = rest;
  return { ...opts, settings, distributedProductMode: 'local' };
}

export async function runGeneralQuery(deps: GeneralDeps, plan: TwoStagePlan, opts: GeneralOptions): Promise<GeneralResult> {
  const now = deps.now ?? Date.now;
  const t0 = opts.startedAt ?? now();
  const planStart = opts.planStartedAt ?? t0;
  const { topo } = deps;
  const { deadline } = opts;
  // The final stage's format and format settings go to an engine beside its text: none may name a file.
  checkEngineOptions({ format: opts.format, settings: opts.formatSettings, where: 'the final stage' });
  const limiter = opts.limiter ?? createLimiter(topo.query.maxConcurrency);
  const planOpts: PlanOptions = {};
  if (opts.settings) planOpts.settings = opts.settings;
  const productMode = opts.distributedProductMode ?? topo.query.distributedProductMode;
  if (productMode) planOpts.distributedProductMode = productMode;
  if (opts.runSubquery) planOpts.runSubquery = opts.runSubquery;
  if (opts.statistics) planOpts.statistics = opts.statistics;
  if (opts.external?.length) planOpts.external = opts.external;
  const leaves = withComputedFormatSettings(await planLeaves(plan, topo, planOpts), opts.formatSettings);
  // The final stage gets the external data its own text names (HAVING k IN ids), as the leaves ship it: after the transfer limits.
  const clientNames = new Set((opts.external ?? []).map((t) => t.name));
  const finalNames = clientNames.size ? new Set(tokenize(plan.finalSql).map((t) => t.text)) : clientNames;
  const finalExternal = leaves[0]!.plan.external.filter((t) => clientNames.has(t.name) && finalNames.has(t.name));
  const planned = now();
  const forward = leaves[0]!.plan.settings;
  const { maxRows, maxBytes } = transferSettings(leaves[0]!.plan, topo, opts.settings);
  const limits = transferLimits(maxRows, maxBytes, Buffer.byteLength(plan.finalSql), undefined, topo.query.maxFinalStageBytes);
  // The final SQL, reading a leaf's JSON, Dynamic or Variant columns as states where stage one asked for them so,
  // and answering alike names as the engine's own where asked.
  const naming = opts.engineNames;
  const named = (sql: string) => (naming ? engineNamedSql(sql, naming.names, naming.evaluation) : sql);
  let finalSql = named(plan.finalSql);
  const carried: Carried = new Map();
  const asked = Math.max(...leaves.map((l) => l.plan.shards.filter((s) => !s.skipped).length));
  const exchangeInlineBytes = topo.query.exchangeInlineBytes ?? defaultInlineBytes(asked * leaves.length, limits);
  const stageOneAt = deadline.at - finalStageReserveMs(deadline.budgetMs);

  const format = opts.format ?? JSON_FINAL_FORMAT;
  const settings: Record<string, SettingValue> = { ...forward, ...(opts.format ? (opts.formatSettings ?? {}) : JSON_FINAL_SETTINGS) };
  // extremes: min and max over the whole answer, by the engine that renders it (never the shards), read
  // in one stream: 18.16 takes them from one stream of several (a stage table of several blocks).
  if (asksExtremes(opts.settings)) Object.assign(settings, { extremes: 1, max_threads: 1 });
  if (naming) Object.assign(settings, engineNamingSettings(naming.evaluation));
  const stageInput: Omit<StageOneInput, 'leaves' | 'keep'> = {
    topo,
    invoker: deps.invoker,
    queryId: deps.queryId,
    deadlineAt: stageOneAt,
    now,
    hedge: opts.hedge,
    state: deps.hedgeState,
    limiter,
    budget: new StageBudget(limits),
    exchangeInlineBytes,
    ...(deps.exchange ? { exchange: deps.exchange } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
    ...(deps.onShard ? { onShard: deps.onShard } : {}),
  };
  const sub = opts.subqueries;
  // The leaves' own missing shards: a GLOBAL subquery's are another table's.
  const coverageOf = (one: StageOneResult) =>
    coverageOfPlans(
      leaves.map((l) => l.plan),
      one.missing.map((m) => m.shard),
    );
  const required = opts.requireCoverage ?? topo.query.requireCoverage;
  const check = (one: StageOneResult) =>
    checkStageOne(
      one,
      one.outcomes.map((o) => o.outcome),
      topo.shards.length,
      opts.requireComplete,
      deadline,
      sub,
      {
        tables: coverageOf(one),
        required,
      },
    );

  /** Stage one on every shard, then the final stage on one (the initiator keeping its own rows, kept-stage.ts). */
  const twoStages = async (): Promise<Stages> => {
    const keeper = keeperOf(leaves, deps.queryId, opts.settings);
    const one = await runStageOne({ ...stageInput, leaves, ...(keeper !== undefined ? { keep: { shard: keeper, until: deadline.at } } : {}) });
    const kept = one.leaves.length === 1 ? one.leaves[0]!.kept : undefined;
    // The exchange's objects are deleted when the query ends, however it ends (the refetch of a
    // kept part may add one: read at the end).
    try {
      if (!kept) return await finalStages(one);
      // The final stage on the keeper reads and drops the kept rows; any other end drops them here.
      let read = false;
      try {
        const stages = await finalStages(one, kept);
        read = stages.kept !== undefined;
        return stages;
      } finally {
        if (!read) releaseKept(deps.invoker, deps.queryId, kept, leaves[0]!.name, now);
      }
    } finally {
      releaseExchanged(deps.exchange, deps.queryId, exchangedBy(one.outcomes));
    }
  };
  /** Two stages; a leaf whose answer has values TabSeparated cannot carry exactly is asked again for them as states. */
  const twoStagesCarrying = async (): Promise<Stages> => {
    for (;;) {
      try {
        return await twoStages();
      } catch (e) {
        if (!(e instanceof InexactStage)) throw e;
        const li = leaves.findIndex((l) => l.name === e.leaf);
        if (li < 0 || carried.has(e.leaf)) throw inexactRefusal(e);
        const names = e.columns.map((c) => c.name);
        const wrapped = new Set(e.inexact);
        carried.set(e.leaf, { names, wrapped });
        leaves[li] = carryAsStates(leaves[li]!, names, wrapped);
        finalSql = named(finalizeCarried(plan.finalSql, carried));
        // The first answers' rows are no input of the final stage: the limits count the second.
        stageInput.budget = new StageBudget(limits);
      }
    }
  };
  /**
   * The final stage; when its function cannot read a shard's answer from the exchange (the object
   * is gone, cut, or the store is down), that shard is missing and the final stage runs again
   * without it (or the query is 504 with requireComplete): never an answer short of rows but complete.
   */
  const finalStages = async (one: StageOneResult, kept?: KeptPart): Promise<Stages> => {
    check(one);
    for (;;) {
      try {
        return await finalStageOver(one, kept);
      } catch (e) {
        if (!(e instanceof ExchangeLost) || !dropLost(one, e.outcome)) throw e;
        check(one);
      }
    }
  };
  const finalStageOver = async (one: StageOneResult, kept?: KeptPart): Promise<Stages> => {
    const finalInput = (answers: LeafAnswer[], candidates: number[]): FinalStageInput => ({
      tables: answers.map((l) => ({
        name: l.name,
        columns: l.columns!,
        ...wireRows(l.body, l.format),
        ...(l.kept ? { kept: true } : {}),
        ...(l.objects.length > 0 ? { objects: l.objects } : {}),
      })),
      sql: finalSql,
      format,
      settings,
      ...(finalExternal.length ? { external: finalExternal } : {}),
      candidates,
      topo,
      invoker: deps.invoker,
      queryId: deps.queryId,
      deadlineAt: deadline.at,
      now,
      limiter,
      state: deps.hedgeState,
      ...(opts.signal ? { signal: opts.signal } : {}),
    });
    const finalStart = now();
    const { fin: keptFin, lost: lostKept } = kept
      ? await finalOnKeeper({ one, kept, leaf: leaves[0]!, finalInput, stageInput, deadline, now, check })
      : { fin: undefined, lost: undefined };
    const answered = one.outcomes.filter((o) => o.outcome.status === 'ok').map((o) => o.outcome.shard);
    const fin = keptFin ?? (await runFinalStage(finalInput(one.leaves, initiatorOrder(deps.queryId, answered))));
    if (lostKept) fin.attempts.unshift(lostKept);
    const requestBytes = one.leaves.reduce((n, l) => n + base64Length(l.body.length), 0) + Buffer.byteLength(finalSql);
    const exchangedBytes = one.leaves.reduce((n, l) => n + l.objects.reduce((m, o) => m + o.bytes, 0), 0);
    return { one, fin, finalStart, requestBytes, exchangedBytes, ...(kept && !lostKept ? { kept: { shard: kept.shard, rows: kept.rows } } : {}) };
  };

  // F evaluated per side would read the shard's table once per side, which may change between the reads.
  const oneShard = naming?.evaluation === 'perSide' ? undefined : oneShardSql(leaves, plan.finalSql);
  const fused = oneShard && { ...oneShard, sql: named(oneShard.sql) };
  const {
    one,
    fin,
    finalStart,
    requestBytes,
    exchangedBytes,
    kept,
    oneShard: ranOnOneShard,
  } = fused
    ? await bothStagesOnOneShard(fused, {
        format,
        settings,
        topo,
        invoker: deps.invoker,
        queryId: deps.queryId,
        deadline,
        now,
        hedge: opts.hedge,
        state: deps.hedgeState,
        limiter,
        requireComplete: opts.requireComplete,
        ...(sub ? { subqueries: sub } : {}),
        ...(opts.signal ? { signal: opts.signal } : {}),
        ...(deps.onShard ? { onShard: deps.onShard } : {}),
      })
    : await twoStagesCarrying();
  const outcomes = one.outcomes.map((o) => o.outcome);
  const shards = summarizeStageOne(topo.shards.length, one, sub);
  const finalEnd = now();

  const last = fin.attempts[fin.attempts.length - 1]!;
  const finalStage: FinalStageStat = {
    shard: fin.shard,
    replica: fin.replica,
    startMs: offsetMs(finalStart, t0),
    endMs: offsetMs(finalEnd, t0),
    elapsedMs: roundToTenth(last.elapsedMs),
    failedOver: fin.attempts.slice(0, -1).map((a) => ({ shard: a.shard, status: a.status, ...(a.message ? { message: a.message } : {}) })),
    inputRows: stageInput.budget.rows,
    inputBytes: stageInput.budget.bytes,
    requestBytes,
    ...(exchangedBytes ? { exchangedBytes } : {}),
    ...(kept ? { kept } : {}),
    ...(ranOnOneShard ? { oneShard: true } : {}),
  };
  // The final stage's shard answered after the deadline: it is the part that did not come in time.
  const late = lateBy(deadline, finalEnd);
  judgeLateness(late, opts.requireComplete, shards);
  const lateFinal: MissingShard[] =
    late > 0 ? [{ shard: fin.shard, reason: 'timeout', message: `the final stage answered ${late} ms after the deadline` }] : [];
  const missing = [...one.missing, ...(sub?.missing ?? []), ...lateFinal];
  // A truncating overflow mode, applied by the shards and the final stage alike: never complete.
  const truncated = [...(sub?.truncated ?? []), ...truncatingModes(forward).map(truncationNote)];
  const partial = missing.length > 0 || truncated.length > 0;
  const statistics: GeneralStatistics = {
    elapsedMs: roundToTenth(now() - t0),
    // What the subqueries read counts too, as on the fast path: the query's price.
    ...readTotals([...outcomes, ...(sub?.outcomes ?? []), ...(sub?.abandoned ?? [])]),
    deadlineMs: deadline.budgetMs,
    deadlineLimitedBy: deadline.limitedBy,
    shards: one.outcomes.map((lo) => shardStat(lo, t0)),
    deadlineAtMs: offsetMs(deadline.at, t0),
    ...(late > 0 ? { lateMs: late } : {}),
    stageOneDeadlineAtMs: offsetMs(stageOneAt, t0),
    skipped: skippedStats(one.skipped),
    coordinator: [
      { name: 'plan', startMs: offsetMs(planStart, t0), endMs: offsetMs(planned, t0) },
      { name: 'finalize', startMs: offsetMs(finalStart, t0), endMs: offsetMs(finalEnd, t0) },
    ],
    ...subqueryStats(sub?.outcomes ?? [], t0),
    ...abandonedStats(sub?.abandoned ?? [], t0),
    finalStage,
  };
  const coverage = coverageOf(one);
  const known = leaves.some((l) => l.plan.statistics);
  const result: GeneralResult = { path: 'general', partial, missing, shards, statistics, outcomes, ...(partial || known ? { coverage } : {}) };
  if (truncated.length > 0) result.truncated = [...truncated];
  if (opts.format) {
    // The engine's bytes, under its own naming of alike columns (engine-names.ts) or the plan's stage aliases, whose names the ClickHouse interface gives back (renamed-format.ts).
    result.bytes = fin.bytes;
    return result;
  }
  const parsed = parseFinalJson(fin.bytes);
  const json = plan.answerNames ? withAnswerNames(parsed, plan.answerNames) : parsed;
  result.meta = json.meta;
  result.data = json.data;
  result.rows = json.data.length;
  if (json.totals) result.totals = json.totals;
  if (json.extremes) result.extremes = json.extremes;
  return result;
}

/** A leaf still inexact once asked for states (a type the wrapping misses): refused, never answered with changed types. */
function inexactRefusal(e: InexactStage): ScatterError {
  return new ScatterError(
    'UNSUPPORTED',
    `a value of type ${e.inexact.join(', ')} cannot travel exactly from the shards to the general path's final stage ` +
      `(TabSeparated writes it without its type); select a typed path (j.a.:Int64) or a CAST, or aggregate it on the shards`,
  );
}

/**
 * Leave out of `one` (in place) the parts whose exchange object the final stage could not read (its
 * message names each key), their shards missing with that reason. False when none is named.
 */
function dropLost(one: StageOneResult, lost: ShardOutcome): boolean {
  const message = lost.message ?? '';
  const gone = new Set<number>();
  one.leaves = one.leaves.map((leaf) => {
    const keep = leaf.parts.filter((p) => !(p.ref && message.includes(p.ref.key)));
    if (keep.length === leaf.parts.length) return leaf;
    for (const p of leaf.parts) if (!keep.includes(p)) gone.add(p.shard);
    return { ...leaf, ...joinParts(keep), rows: leaf.rows - leaf.parts.filter((p) => !keep.includes(p)).reduce((n, p) => n + p.rows, 0) };
  });
  if (gone.size === 0) return false;
  one.outcomes = one.outcomes.map((o) =>
    gone.has(o.outcome.shard) && o.outcome.status === 'ok'
      ? {
          ...o,
          outcome: { ...o.outcome, status: 'unavailable', message: `its stage-one answer in the exchange could not be read by the final stage: ${message}` },
        }
      : o,
  );
  one.missing = missingOf(one.outcomes.map((o) => o.outcome));
  return true;
}

/** maxRowsToTransfer / maxBytesToTransfer as the request tightened them (settings.ts rules: never above the config). */
function transferSettings(_leaf: QueryPlan, topo: Topology, settings: Record<string, SettingValue> | undefined): { maxRows: number; maxBytes: number } {
  const tighter = (config: number, asked: unknown): number => {
    const n = Number(asked);
    if (asked === undefined || !Number.isInteger(n) || n < 0) return config;
    return config === 0 ? n : n === 0 ? config : Math.min(config, n);
  };
  return {
    maxRows: tighter(topo.query.maxRowsToTransfer, settings?.max_rows_to_transfer),
    maxBytes: tighter(topo.query.maxBytesToTransfer, settings?.max_bytes_to_transfer),
  };
}

function shardStat({ leaf, outcome: o }: LeafOutcome, t0: number): ShardStat & { leaf: string } {
  return { leaf, ...shardStatOf(o, t0) };
}
