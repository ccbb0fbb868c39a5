// The exact top count's TPUT pre-pass (docs/architecture.md#exact-top-count-tput): rounds 1 and 2
// run here, under the query's one deadline, and narrow the query to its candidate groups; the
// caller then runs that narrowed query (round 3) through the normal path, fast or general, which
// is exact for it. Whenever the bounds cannot be trusted or would not pay (a shard missing from
// round 1 or 2, a key type that does not print back as a literal, a score type that may be
// negative, too many candidates) the caller runs the query unchanged: every group, as before.
import { isScatterError } from '../../errors.js';
import { afterRound1, candidatesAfterRound2, round2Pays, type ScoredGroup } from '../../plan/tput/bounds.js';
import { exactMethodOf, type TopCountSetting } from '../../plan/tput/method.js';
import { KEY_ALIAS, SCORE_ALIAS, literalKeyType, round1Query, round2Query, round3Query } from '../../plan/tput/rounds.js';
import { MAX_TPUT_GROUPS, tputEligibility, type TputShape } from '../../plan/tput/shape.js';
import type { ColumnMeta } from '../../clickhouse/port.js';
import type { SelectQuery, SelectStatement } from '../../sql/ast.js';
import { printExpr, printSelect } from '../../sql/print.js';
import type { ShardOutcome } from '../call-shard.js';
import type { ShardStat } from '../run-query.js';
import { shardStatOf } from '../timeline-stats.js';
import { planRound, runRound, type RoundContext, type RoundResult, type ShardRows } from './run-round.js';
import { describeTopCount, type TopCountInfo, type TopCountRound } from '../../plan/tput/describe.js';

export interface PrepassInput {
  ctx: RoundContext;
  stmt: SelectStatement;
  /** 'exact' lets round 1 decide whether round 2 pays (round2Pays); 'tput' always runs it. */
  setting: TopCountSetting;
  productMode: 'deny' | 'local' | 'global';
  /** The query's one absolute deadline. */
  deadlineAt: number;
  /** The query's start (statistics offsets). */
  startedAt: number;
}

export interface Prepass {
  info: TopCountInfo;
  /** Round 3: the query narrowed to the candidates; absent: run the query unchanged (every group). */
  statement?: SelectQuery;
  /** Rounds 1 and 2 per shard, as statistics rows (`leaf`: the round). */
  stats: ShardStat[];
  rowsRead: number;
  bytesRead: number;
}

/**
 * Rounds 1 and 2 for a top-count query, or undefined when the statement is no top count over groups
 * that span shards (nothing to say about it).
 */
export async function topCountPrepass(input: PrepassInput): Promise<Prepass | undefined> {
  const { ctx, stmt } = input;
  const eligibility = tputEligibility(stmt, ctx.topo, input.productMode, ctx.planOptions.settings);
  if (!eligibility.ok && !eligibility.topCount) return undefined;
  const method = exactMethodOf(input.setting);
  const base = describeTopCount(method, eligibility, ctx.topo);
  const out: Prepass = { info: base, stats: [], rowsRead: 0, bytesRead: 0 };
  if (method !== 'tput' || !eligibility.ok) return out;
  const shape = eligibility.shape;

  const fallBack = (reason: string): Prepass => {
    out.info = { ...out.info, method: 'every_group', description: 'exact, every group (TPUT fell back)', fellBack: reason };
    return out;
  };
  const rounds: TopCountRound[] = [];
  const record = (n: 1 | 2, r: RoundResult) => {
    let rows = 0;
    let bytes = 0;
    for (const a of r.answers.values()) {
      rows += a.rows.length;
      bytes += a.bytes;
    }
    rounds.push({ round: n, sql: r.sql, shards: r.outcomes.length, rows, bytes, elapsedMs: Math.round((r.endedAt - r.startedAt) * 10) / 10 });
    for (const o of r.outcomes) {
      out.stats.push({ ...shardStatOf(o, input.startedAt), leaf: `tput round ${n}` });
      out.rowsRead += o.response?.statistics.rowsRead ?? 0;
      out.bytesRead += o.response?.statistics.bytesRead ?? 0;
    }
    out.info = { ...out.info, rounds };
  };
  // Each round waits at most half of the time left, so round 3 keeps at least a quarter of it.
  const roundDeadline = () => {
    const now = ctx.now();
    return now + Math.max(0, input.deadlineAt - now) / 2;
  };

  // Types round 1 found unfit before (a float key, a signed sum): no scan for a round that cannot help.
  const typeKey = typeCacheKey(shape);
  const known = unfitTypes.get(typeKey);
  if (known) return fallBack(`${known} (seen by an earlier query's round 1)`);

  // Round 1: each shard's k best groups.
  const q1 = round1Query(shape);
  // The same query found round 2 not paying moments ago (a dashboard refreshing over a uniform key):
  // straight to every group, without round 1's scan, until the verdict ages out.
  const q1Text = printSelect(q1);
  const recent = input.setting === 'exact' ? notPaying.get(q1Text) : undefined;
  if (recent !== undefined && ctx.now() - recent < NOT_PAYING_TTL_MS) {
    return fallBack(
      `round 1 of the same query ${Math.round((ctx.now() - recent) / 1000)} s ago: the shards disagreed on their best groups, every group is cheaper`,
    );
  }
  let r1: RoundResult;
  try {
    r1 = await runRound(ctx, q1, await planRound(ctx, q1), roundDeadline());
  } catch (e) {
    if (isScatterError(e)) return fallBack(`round 1 could not be planned: ${e.message}`);
    throw e;
  }
  record(1, r1);
  const lost1 = missingFrom(r1);
  if (lost1) return fallBack(`round 1: ${lost1}; bounds from the other shards cannot be trusted`);
  const types = checkTypes(shape, r1.answers);
  if (typeof types === 'string') {
    rememberUnfit(typeKey, types);
    return fallBack(types);
  }
  const values = new Map<string, unknown[]>();
  const round1 = scored(shape, r1.answers, values);
  const verdict = afterRound1(shape.k, round1);
  out.info = { ...out.info, tau1: verdict.tau1.toString(), threshold: verdict.threshold.toString() };
  if (input.setting === 'exact' && !round2Pays(verdict)) {
    remember(notPaying, q1Text, ctx.now());
    return fallBack(
      `round 1: the shards disagree on their best groups (threshold ${verdict.threshold} is under half of a shard's ${shape.k}-th score ` +
        `${verdict.minLocalKth}), so round 2 would return most groups; every group in one round is cheaper (ch_scatter_top_count = 'tput' runs round 2 anyway)`,
    );
  }

  // Round 2: the shards that may hold more, every group from the threshold up.
  const round2 = new Map<number, ScoredGroup[]>();
  if (verdict.incomplete.length > 0) {
    const q2 = round2Query(shape, verdict.threshold);
    let r2: RoundResult;
    try {
      r2 = await runRound(ctx, q2, await planRound(ctx, q2), roundDeadline(), new Set(verdict.incomplete));
    } catch (e) {
      if (isScatterError(e)) return fallBack(`round 2 could not be planned: ${e.message}`);
      throw e;
    }
    record(2, r2);
    const lost2 = missingFrom(r2);
    if (lost2) return fallBack(`round 2: ${lost2}; bounds from the other shards cannot be trusted`);
    for (const [shard, a] of r2.answers) {
      if (a.rows.length > MAX_TPUT_GROUPS)
        return fallBack(`round 2: shard ${shard} holds over ${MAX_TPUT_GROUPS} groups above the threshold ${verdict.threshold}`);
    }
    const t2 = checkTypes(shape, r2.answers);
    if (typeof t2 === 'string') return fallBack(t2);
    for (const [s, rows] of scored(shape, r2.answers, values)) round2.set(s, rows);
  }

  const cands = candidatesAfterRound2(shape.k, round1, verdict, round2);
  out.info = { ...out.info, tau2: cands.tau2.toString(), groupsSeen: cands.seen, candidates: cands.keys.length };
  // No group at all: the answer is empty whatever runs; the query runs as it is (it moves nothing).
  if (cands.keys.length === 0) return out;
  const cap = Math.min(MAX_TPUT_GROUPS, ctx.topo.query.maxInListValues);
  if (cands.keys.length > cap) return fallBack(`${cands.keys.length} candidate groups, over ${cap}`);
  const q3 = round3Query(
    shape,
    cands.keys.map((k) => values.get(k)!),
    types,
  );
  // The candidates travel as literals in the shard SQL: keep well inside ClickHouse's max_query_size.
  const bytes = Buffer.byteLength(printSelect(q3));
  if (bytes > ctx.topo.query.maxShardQueryBytes / 2) return fallBack(`the candidate list would make a ${bytes}-byte query`);
  out.statement = q3;
  out.info = { ...out.info, round3Sql: printSelect(q3) };
  return out;
}

/**
 * Key and score expressions (per table) whose types round 1 found unfit, so later queries skip the
 * round. Only negatives are kept, and round 1 checks the types every time it runs: a stale entry can
 * only cost TPUT's saving (the query runs over every group, exactly), never a wrong answer.
 */
const unfitTypes = new Map<string, string>();
const UNFIT_TYPES_MAX = 1000;

function typeCacheKey(shape: TputShape): string {
  const from = shape.query.from!.table;
  const table = from.kind === 'table' ? `${from.database ?? ''}.${from.table}` : '';
  return [table, ...shape.keys.map(printExpr), printExpr(shape.score)].join('\u0000');
}

function rememberUnfit(key: string, reason: string): void {
  remember(unfitTypes, key, reason);
}

/**
 * Round-1 statements (their SQL text) whose shards disagreed on their best groups, and when. A
 * performance hint only: the query it skips TPUT for is answered exactly over every group; after
 * NOT_PAYING_TTL_MS round 1 looks again (the data may have changed).
 */
const notPaying = new Map<string, number>();
export const NOT_PAYING_TTL_MS = 60_000;

/** Forget both memories (unfit types, round 2 not paying): tests that reload data between queries. */
export function forgetTopCountMemory(): void {
  unfitTypes.clear();
  notPaying.clear();
}

function remember<V>(m: Map<string, V>, key: string, value: V): void {
  m.delete(key);
  if (m.size >= UNFIT_TYPES_MAX) m.delete(m.keys().next().value!);
  m.set(key, value);
}

/** The first shard a round asked that did not answer, described; undefined when all answered. */
function missingFrom(r: RoundResult): string | undefined {
  const bad = r.outcomes.find((o: ShardOutcome) => o.status !== 'ok');
  if (!bad) return undefined;
  return `shard ${bad.shard} did not answer (${bad.status}${bad.message ? `: ${bad.message.slice(0, 200)}` : ''})`;
}

/** The key columns' types, when every one prints back as a literal and the score cannot be negative; else why not. */
function checkTypes(shape: TputShape, answers: ReadonlyMap<number, ShardRows>): ColumnMeta[] | string {
  let types: ColumnMeta[] | undefined;
  for (const a of answers.values()) {
    const keys = shape.keys.map((_, i) => a.meta.find((m) => m.name === KEY_ALIAS(i)));
    const score = a.meta.find((m) => m.name === SCORE_ALIAS);
    if (keys.some((m) => !m) || !score) return 'a round answer lacks its columns';
    if (!/^UInt(8|16|32|64)$/.test(score.type)) return `the score's type ${score.type} may be negative or fractional`;
    const odd = keys.find((m) => !literalKeyType(m!.type));
    if (odd) return `the group key type ${odd.type} does not print back as a literal exactly`;
    if (types?.some((t, i) => t.type !== keys[i]!.type)) return 'the shards disagree on the group key types';
    types ??= keys as ColumnMeta[];
  }
  return types ?? shape.keys.map((_, i) => ({ name: KEY_ALIAS(i), type: 'String' }));
}

/** Each shard's rows as scored groups; each group's key values are kept in `values`. */
function scored(shape: TputShape, answers: ReadonlyMap<number, ShardRows>, values: Map<string, unknown[]>): Map<number, ScoredGroup[]> {
  const out = new Map<number, ScoredGroup[]>();
  for (const [shard, a] of answers) {
    out.set(
      shard,
      a.rows.map((row) => {
        const vals = shape.keys.map((_, i) => row[KEY_ALIAS(i)]);
        const key = JSON.stringify(vals);
        if (!values.has(key)) values.set(key, vals);
        return { key, score: BigInt(String(row[SCORE_ALIAS])) };
      }),
    );
  }
  return out;
}
