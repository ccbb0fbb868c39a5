// The exact top count's TPUT pre-pass (docs/architecture.md#exact-top-count-tput): one round (one
// scan per shard, shared/core/plan/tput/one-round.ts) runs here, under the query's one deadline, and
// narrows the query to its candidate groups; the caller then runs that narrowed query (round 2)
// through the normal path, fast or general, which is exact for it. Whenever the bounds cannot be
// trusted or would not pay (a shard missing from the round, a key type that does not print back as a literal, a score type that may be
// negative, too many candidates) the caller runs the query unchanged: every group, as before.
import { isScatterError } from '../../errors.js';
import { candidatesAfterOneRound, oneRoundPays, type ScoredGroup } from '../../plan/tput/bounds.js';
import { oneRoundInner, oneRoundRowCap, oneRoundSql } from '../../plan/tput/one-round.js';
import type { QueryPlan } from '../../plan/types.js';
import { exactMethodOf, type TopCountSetting } from '../../plan/tput/method.js';
import { KEY_ALIAS, SCORE_ALIAS, literalKeyType, candidatesQuery } from '../../plan/tput/rounds.js';
import { MAX_TPUT_GROUPS, tputEligibility, type TputShape } from '../../plan/tput/shape.js';
import type { ColumnMeta } from '../../clickhouse/port.js';
import type { SelectQuery, SelectStatement } from '../../sql/ast.js';
import { printExpr, printSelect } from '../../sql/print.js';
import type { ShardOutcome } from '../call-shard.js';
import type { ShardStat } from '../query-types.js';
import { readTotals, shardStatOf } from '../timeline-stats.js';
import { createTopCountMemory, type TopCountMemory } from './memory.js';
import { planRound, runRound, type RoundContext, type RoundResult, type ShardRows } from './run-round.js';
import { describeTopCount, type TopCountInfo, type TopCountRound } from '../../plan/tput/describe.js';

export interface PrepassInput {
  ctx: RoundContext;
  stmt: SelectStatement;
  /** 'exact' lets the round's answer decide whether the query over the candidates pays (oneRoundPays); 'tput' runs it whenever it can. */
  setting: TopCountSetting;
  productMode: 'deny' | 'local' | 'global';
  /** The query's one absolute deadline. */
  deadlineAt: number;
  /** The query's start (statistics offsets). */
  startedAt: number;
  /** What earlier queries' rounds found (memory.ts); absent: nothing is remembered past this query. */
  memory?: TopCountMemory;
}

export interface Prepass {
  info: TopCountInfo;
  /** Round 2: the query narrowed to the candidates; absent: run the query unchanged (every group). */
  statement?: SelectQuery;
  /** The pre-pass round per shard, as statistics rows (`leaf`: the round). */
  stats: ShardStat[];
  rowsRead: number;
  bytesRead: number;
}

/**
 * The pre-pass for a top-count query, or undefined when the statement is no top count over groups
 * that span shards (nothing to say about it).
 */
export async function topCountPrepass(input: PrepassInput): Promise<Prepass | undefined> {
  const { ctx, stmt } = input;
  const memory = input.memory ?? createTopCountMemory();
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
  const record = (n: 1, r: RoundResult) => {
    let rows = 0;
    let bytes = 0;
    for (const a of r.answers.values()) {
      rows += a.rows.length;
      bytes += a.bytes;
    }
    rounds.push({ round: n, sql: r.sql, shards: r.outcomes.length, rows, bytes, elapsedMs: Math.round((r.endedAt - r.startedAt) * 10) / 10 });
    for (const o of r.outcomes) out.stats.push({ ...shardStatOf(o, input.startedAt), leaf: `tput round ${n}` });
    const read = readTotals(r.outcomes);
    out.rowsRead += read.rowsRead;
    out.bytesRead += read.bytesRead;
    out.info = { ...out.info, rounds };
  };
  // The pre-pass waits at most half of the time left, so the query over the candidates keeps the other half.
  const roundDeadline = () => {
    const now = ctx.now();
    return now + Math.max(0, input.deadlineAt - now) / 2;
  };

  // Types the pre-pass found unfit before (a float key, a signed sum): no scan for a round that cannot help.
  const typeKey = typeCacheKey(shape);
  const known = memory.unfitTypes.get(typeKey);
  if (known) return fallBack(`${known} (seen by an earlier query's round 1)`);

  // The pre-pass, one scan per shard: every group from the shard's own threshold ceil(s_j / m) up.
  const setting = input.setting === 'exact' ? 'exact' : 'tput';
  const rowCap = oneRoundRowCap(shape.k, setting);
  const inner = oneRoundInner(shape);
  let plan: QueryPlan;
  try {
    plan = await planRound(ctx, inner);
  } catch (e) {
    if (isScatterError(e)) return fallBack(`the pre-pass could not be planned: ${e.message}`);
    throw e;
  }
  const m = plan.shards.filter((s) => !s.skipped).length;
  const wrap = (sql: string) => oneRoundSql(sql, shape.keys.length, shape.k, m, rowCap);
  // The same query found the round not paying moments ago (a dashboard refreshing over a uniform
  // key): straight to every group, without the scan, until the verdict ages out.
  const roundText = wrap(printSelect(inner));
  const recent = setting === 'exact' ? memory.notPaying.get(roundText) : undefined;
  if (recent !== undefined && ctx.now() - recent < NOT_PAYING_TTL_MS) {
    return fallBack(
      `the pre-pass of the same query ${Math.round((ctx.now() - recent) / 1000)} s ago: the shards disagreed on their best groups, every group is cheaper`,
    );
  }
  const r1 = await runRound(ctx, inner, plan, roundDeadline(), undefined, wrap);
  record(1, r1);
  const lost1 = missingFrom(r1);
  if (lost1) return fallBack(`round 1: ${lost1}; bounds from the other shards cannot be trusted`);
  const types = checkTypes(shape, r1.answers);
  if (typeof types === 'string') {
    memory.unfitTypes.set(typeKey, types);
    return fallBack(types);
  }
  for (const [shard, a] of r1.answers) {
    if (a.rows.length <= rowCap) continue;
    if (setting === 'exact') {
      memory.notPaying.set(roundText, ctx.now());
      return fallBack(
        `round 1: shard ${shard} holds over ${rowCap} groups from its threshold up (the shards' scores are flat there), ` +
          "so every group in one round is cheaper (ch_scatter_top_count = 'tput' goes on up to " +
          `${MAX_TPUT_GROUPS})`,
      );
    }
    return fallBack(`round 1: shard ${shard} holds over ${rowCap} groups from its threshold up`);
  }
  const values = new Map<string, unknown[]>();
  const cands = candidatesAfterOneRound(shape.k, m, scored(shape, r1.answers, values));
  out.info = {
    ...out.info,
    tau: cands.tau.toString(),
    thresholds: cands.shards.map((t) => ({ shard: t.shard, complete: t.complete, kth: t.kth.toString(), threshold: t.threshold.toString() })),
    groupsSeen: cands.seen,
    candidates: cands.keys.length,
  };
  if (setting === 'exact' && !oneRoundPays(shape.k, cands)) {
    memory.notPaying.set(roundText, ctx.now());
    return fallBack(
      `round 1: the shards disagree on their best groups (${cands.keys.length} of ${cands.seen} groups seen stay candidates), ` +
        "so every group in one round is cheaper (ch_scatter_top_count = 'tput' runs the query over the candidates anyway)",
    );
  }

  // No group at all: the answer is empty whatever runs; the query runs as it is (it moves nothing).
  if (cands.keys.length === 0) return out;
  const cap = Math.min(MAX_TPUT_GROUPS, ctx.topo.query.maxInListValues);
  if (cands.keys.length > cap) return fallBack(`${cands.keys.length} candidate groups, over ${cap}`);
  const overCandidates = candidatesQuery(
    shape,
    cands.keys.map((k) => values.get(k)!),
    types,
  );
  // The candidates travel as literals in the shard SQL: keep well inside ClickHouse's max_query_size.
  const candidatesSql = printSelect(overCandidates);
  const bytes = Buffer.byteLength(candidatesSql);
  if (bytes > ctx.topo.query.maxShardQueryBytes / 2) return fallBack(`the candidate list would make a ${bytes}-byte query`);
  out.statement = overCandidates;
  out.info = { ...out.info, candidatesSql, round3Sql: candidatesSql };
  return out;
}

function typeCacheKey(shape: TputShape): string {
  const from = shape.query.from!.table;
  const table = from.kind === 'table' ? `${from.database ?? ''}.${from.table}` : '';
  return [table, ...shape.keys.map(printExpr), printExpr(shape.score)].join('\u0000');
}

/** After this long, a pre-pass remembered as not paying is tried again. */
export const NOT_PAYING_TTL_MS = 60_000;

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
