// The one completeness verdict and the one shard summary, for both paths: the fast path judges its
// gathered partials before finalizing, the general path its stage one before the final stage. A
// ClickHouse user error on a shard is the query's (400), an answer over the response limit is 413,
// missing shards are partial or, with requireComplete, 504, and when no shard answered there is no
// answer to call partial (504 when all timed out, else 502).
import { ScatterError } from '../errors.js';
import type { TableStatistics } from '../plan/statistics.js';
import type { TruncatingMode } from '../clickhouse/overflow-modes.js';
import type { QueryPlan } from '../plan/types.js';
import type { ShardOutcome } from './call-shard.js';
import type { Deadline } from './deadline.js';
import type { MissingShard } from './gather.js';
import { isQueryFailure, queryFailureError } from './query-errors.js';
import type { ShardsSummary, TableCoverage } from './query-types.js';
import { tooLargeError } from './too-large.js';

/**
 * The shards' summary. A shard asked several times (one request per leaf of the general path) is
 * ok when every request answered, otherwise it counts as its first failure; hedges count per request.
 */
export function summarizeShards(total: number, skipped: number, outcomes: readonly ShardOutcome[], missing: MissingShard[]): ShardsSummary {
  const byShard = new Map<number, ShardOutcome>();
  for (const o of outcomes) {
    const prev = byShard.get(o.shard);
    if (!prev || (prev.status === 'ok' && o.status !== 'ok')) byShard.set(o.shard, o);
  }
  const per = [...byShard.values()];
  return {
    total,
    queried: per.length,
    skipped,
    succeeded: per.filter((o) => o.status === 'ok').length,
    failed: per.filter((o) => o.status !== 'ok' && o.status !== 'timeout').length,
    timedOut: per.filter((o) => o.status === 'timeout').length,
    hedged: outcomes.filter((o) => o.hedged).length,
    missing,
  };
}

/** The coverage of one table, for the shards asked and those of them that did not answer. */
export function coverageOf(table: string, stats: TableStatistics | undefined, asked: readonly number[], missing: readonly number[]): TableCoverage {
  if (!stats) return { table, unknown: `no statistics are configured for ${table} (tables.<name>.statistics)` };
  const lost = new Set(missing);
  let answered = 0n;
  let all = 0n;
  for (const s of asked) {
    const rows = stats.shards[s]?.rows;
    if (rows === undefined) return { table, unknown: `shard ${s}'s row count is unknown (its statistics failed or were not read in time)` };
    all += rows;
    if (!lost.has(s)) answered += rows;
  }
  // Four decimals, rounded down: a share under the floor never prints as the floor.
  const share = all === 0n ? 1 : Number((answered * 10_000n) / all) / 10_000;
  return { table, share, rowsAnswered: String(answered), rowsAsked: String(all) };
}

/** The coverage of each table the plans read (the first plan of a table decides which shards were asked). */
export function coverageOfPlans(plans: readonly QueryPlan[], missing: readonly number[]): TableCoverage[] {
  const seen = new Map<string, TableCoverage>();
  for (const p of plans) {
    const table = p.tables[0]?.distributed;
    if (!table || seen.has(table)) continue;
    const asked = p.shards.filter((s) => !s.skipped).map((s) => s.shard);
    seen.set(table, coverageOf(table, p.statistics, asked, missing));
  }
  return [...seen.values()];
}

/** requireCoverage: refused with 504 INCOMPLETE_RESULT naming the share when the shards that answered hold less (or an unknown share). */
export function judgeCoverage(coverage: readonly TableCoverage[], required: number | undefined, partial: boolean, shards: ShardsSummary): void {
  if (required === undefined || !partial) return;
  for (const c of coverage) {
    if (c.share === undefined) {
      throw new ScatterError('INCOMPLETE_RESULT', `the share of ${c.table}'s rows answered is unknown (${c.unknown}); requireCoverage is ${required}`, {
        details: { shards, coverage },
      });
    }
    if (c.share < required) {
      throw new ScatterError(
        'INCOMPLETE_RESULT',
        `the shards that answered hold ${formatShare(c.share)} of ${c.table}'s rows (${c.rowsAnswered} of ${c.rowsAsked}), under requireCoverage ${required}`,
        { details: { shards, coverage } },
      );
    }
  }
}

export function formatShare(share: number): string {
  return `${(share * 100).toFixed(2)}%`;
}

/** Shards of one request (the query, or one leaf) none of which answered. */
export interface Unanswered {
  /** The general path's leaf; absent on the fast path. */
  leaf?: string;
  lost: readonly { shard: number; timedOut: boolean; message?: string }[];
}

export interface ShardsVerdictInput {
  /** Every outcome a ClickHouse user error may come from (GLOBAL subqueries' included). */
  outcomes: readonly ShardOutcome[];
  /** The outcomes whose answers must fit a shard function's response. */
  answers: readonly ShardOutcome[];
  /** The fast path's partial is a query's; the general path's stage one answers under its transfer limit. */
  tooLarge: 'query' | 'stage one';
  shards: ShardsSummary;
  missing: readonly MissingShard[];
  requireComplete: boolean;
  deadline: Deadline;
  unanswered?: Unanswered;
  /** The share of each table's rows the answering shards hold: in a refusal's details too. */
  coverage?: readonly TableCoverage[];
}

/** Throws the client error the shards' outcomes make of the query; returns when its answer may be built. */
export function judgeShards(v: ShardsVerdictInput): void {
  const details = { shards: v.shards, ...(v.coverage ? { coverage: v.coverage } : {}) };
  const bad = v.outcomes.find(isQueryFailure);
  if (bad) throw queryFailureError(bad, details);
  const big = tooLargeError(v.answers, 'query', details);
  if (big && v.tooLarge === 'query') throw big;
  // A shard's stage-one rows over what a shard function may return: the transfer limit of the general path.
  if (big) throw new ScatterError('TRANSFER_LIMIT', big.message.replace("the query's partial result", "the general path's stage-one answer"), { details });
  if (v.missing.length > 0 && v.requireComplete) {
    throw new ScatterError(
      'INCOMPLETE_RESULT',
      `${v.missing.length} shard(s) did not answer: ${v.missing.map((m) => `shard ${m.shard} ${m.reason}`).join(', ')}`,
      {
        details,
      },
    );
  }
  if (!v.unanswered) return;
  const { leaf, lost } = v.unanswered;
  if (lost.every((l) => l.timedOut)) {
    const what = leaf ? ` ${leaf}` : '';
    const reserve = leaf ? " (less the final stage's reserve)" : '';
    throw new ScatterError('TIMEOUT', `no shard answered${what} within ${v.deadline.budgetMs} ms${reserve}`, { details });
  }
  const first = lost.find((l) => !l.timedOut) ?? lost[0];
  throw new ScatterError(
    'SHARD_ERROR',
    `all ${lost.length} queried shard(s) failed${leaf ? ` for ${leaf}` : ''}${first ? `; shard ${first.shard}: ${first.message}` : ''}`,
    { details },
  );
}

/** transferOverflowMode 'break' cut something: the answer is partial, refused when completeness is required. */
export function judgeTruncation(truncated: readonly string[], requireComplete: boolean, shards: ShardsSummary): void {
  if (truncated.length > 0 && requireComplete) {
    throw new ScatterError('INCOMPLETE_RESULT', `data was truncated (transferOverflowMode 'break'): ${truncated.join('; ')}`, { details: { shards } });
  }
}

/**
 * A truncating overflow mode asked for with completeness required: no answer under it can be known
 * complete (no engine says whether it stopped at a limit), so it is refused before any shard is asked.
 */
export function judgeTruncatingModes(modes: readonly TruncatingMode[], requireComplete: boolean): void {
  if (modes.length === 0 || !requireComplete) return;
  throw new ScatterError(
    'INCOMPLETE_RESULT',
    `completeness is required, but ${modes.map((m) => `${m.setting} = '${m.mode}'`).join(', ')} may cut the answer at a limit, and no engine says whether it did; ` +
      "no shard was asked. Use 'throw' (the query fails at the limit) or do not require completeness",
  );
}

/**
 * How many ms after the deadline the answer was ready (0: in time). A late answer is never complete:
 * ClickHouse fails a query past max_execution_time with 159 TIMEOUT_EXCEEDED (timeout_overflow_mode
 * 'throw'), and `partial: false` promises every needed part answered in time.
 */
export function lateBy(deadline: Deadline, now: number): number {
  return Math.max(0, Math.ceil(now - deadline.at));
}

/** A late answer is partial; refused as 504 TIMEOUT when completeness is required, as ClickHouse would. */
export function judgeLateness(late: number, requireComplete: boolean, shards: ShardsSummary): void {
  if (late > 0 && requireComplete) {
    throw new ScatterError('TIMEOUT', `the answer was ready ${late} ms after the query's deadline`, { details: { shards } });
  }
}
