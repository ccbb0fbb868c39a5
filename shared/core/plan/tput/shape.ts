// Which top-count queries the TPUT pre-pass may answer (docs/architecture.md#exact-top-count-tput).
// TPUT (Cao & Wang, 2004) finds the top k groups by a score that is non-negative and additive
// across shards, in two rounds (shared/core/plan/tput/one-round.ts), exactly. Everything here is conservative: a query that is not
// plainly of the shape below keeps the every-group plan, which is exact for any shape.
//
//   SELECT ... FROM <one distributed table> [PREWHERE ...] [WHERE ...]
//   GROUP BY <keys, none of them the sharding key>
//   ORDER BY <score> DESC [, ...] LIMIT n [OFFSET m]
//
// where <score> is count(), count(x), countIf(...), or sum/sumIf (kept only when the shards say
// its type is an unsigned integer: checked at run time, from round 1's column types).
import type { Topology } from '../../config/schema.js';
import type { Expr, SelectQuery, SelectStatement } from '../../sql/ast.js';
import { aggregateName } from '../../sql/aggregate-names.js';
import { walkExpr, walkStatement } from '../../sql/visit.js';
import { analyze, isInFamily } from '../analyze.js';
import type { SettingValue } from '../../clickhouse/port.js';
import { truncatingModes } from '../../clickhouse/overflow-modes.js';
import { clauseValues } from '../settings.js';

/** Above this many groups (k, or candidates) TPUT stops paying: every group is moved instead. */
export const MAX_TPUT_GROUPS = 10_000;

/** What the rounds need to know about an eligible query. */
export interface TputShape {
  query: SelectQuery;
  /** The group keys with SELECT aliases resolved (what the shards group by and the IN list names). */
  keys: Expr[];
  /** The score aggregate call (alias resolved). */
  score: Expr;
  /** n + m: how many of the best groups the answer needs. */
  k: number;
  /** 'count' (always non-negative) or 'sum' (non-negative only over an unsigned type: checked in round 1). */
  scoreFamily: 'count' | 'sum';
}

/**
 * ok: TPUT may answer it. Otherwise `topCount` says whether it is a top count over groups that
 * span shards at all (then every group answers it, and /explain says why not TPUT).
 */
export type TputEligibility = { ok: true; shape: TputShape } | { ok: false; reason: string; topCount: boolean };

// Functions whose value can change between the rounds (time, randomness, block layout): the rounds
// must see the same rows as round 2, or the candidates would be another query's.
const NOT_REPEATABLE =
  /^(rand|generateuuid|now|today|yesterday|rownumberin|blocknumber|blocksize|running|neighbor|randomstring|randomprintable|randomfixedstring|fuzzbits|uptime|currentdatabase)/i;

const COUNT_FAMILY = new Set(['count', 'countIf']);
const SUM_FAMILY = new Set(['sum', 'sumIf']);

const no = (reason: string, topCount = true): TputEligibility => ({ ok: false, reason, topCount });
const notTopCount = (reason: string): TputEligibility => no(reason, false);

/**
 * Whether the TPUT pre-pass may answer this statement, and if not, why (for /explain).
 * `requestSettings`: the request's settings (the SQL's SETTINGS clause is read here, over them).
 */
export function tputEligibility(
  stmt: SelectStatement,
  topo: Topology,
  productMode: 'deny' | 'local' | 'global',
  requestSettings: Record<string, SettingValue> = {},
): TputEligibility {
  if (stmt.kind !== 'select') return notTopCount('a UNION');
  const q = stmt;
  if (!q.groupBy || q.groupBy.length === 0) return notTopCount('no GROUP BY');
  if (!q.orderBy || q.orderBy.length === 0 || !q.limit) return notTopCount('no ORDER BY ... LIMIT');
  if (q.orderBy[0]!.direction !== 'DESC') return notTopCount('the first ORDER BY item is not DESC');
  // Every alias of the SELECT list, nested ones too (ClickHouse's aliases are global to the query).
  const aliases = new Map<string, Expr>();
  for (const c of q.columns)
    walkExpr(c, (x) => {
      if (x.alias) aliases.set(x.alias, x);
      return undefined;
    });
  const resolve = (e: Expr): Expr => {
    if (e.kind === 'column' && e.parts.length === 1 && !e.alias) {
      const a = aliases.get(e.parts[0]!);
      if (a) return { ...a, alias: undefined } as Expr;
    }
    return e;
  };

  const score = resolve(q.orderBy[0]!.expr);
  if (score.kind !== 'function' || score.over) return notTopCount('the first ORDER BY item is not an aggregate');
  const agg = aggregateName(score.name);
  const scoreFamily = agg && COUNT_FAMILY.has(agg) ? 'count' : agg && SUM_FAMILY.has(agg) ? 'sum' : undefined;
  if (!scoreFamily) return notTopCount(`the score ${score.name}() is not additive and non-negative across shards (count, countIf, sum, sumIf)`);
  if (score.params?.length || score.distinct) return no('count(DISTINCT ...) or a parametric score');
  if (q.orderBy[0]!.collate) return no('COLLATE on the score');
  if (score.args.some(hasAggregate)) return no('an aggregate inside the score');

  let keyColumn: string;
  try {
    keyColumn = analyze(q, topo, productMode).keyColumn;
  } catch {
    return no('the planner refuses it (its own error follows)');
  }
  const keys: Expr[] = [];
  for (const g of q.groupBy) {
    if (g.kind === 'literal') return no('GROUP BY a position or a constant');
    const key = resolve(g);
    if (hasAggregate(key)) return no('an aggregate in GROUP BY');
    if (key !== g && mentionsAlias(key, aliases)) return no('a GROUP BY expression over another alias');
    if (key.kind === 'column' && key.parts[key.parts.length - 1] === keyColumn)
      return notTopCount(`GROUP BY includes the sharding key ${keyColumn}: each group lives on one shard, already exact`);
    keys.push(key);
  }
  if (q.with?.length) return no('a WITH clause');
  if (q.distinct || q.distinctOn) return no('DISTINCT');
  if (q.groupingSets || q.groupByModifier || q.withTotals) return no('GROUPING SETS, ROLLUP, CUBE or WITH TOTALS');
  if (q.having) return no('HAVING (it filters on merged values)');
  if (q.window?.length) return no('a WINDOW clause');
  if (q.qualify) return no('QUALIFY');
  if (q.limitBy) return no('LIMIT BY');
  // A shard that may silently stop grouping or reading would look complete with fewer groups than it holds.
  const [cut] = truncatingModes({ ...requestSettings, ...clauseValues(q.settings) });
  if (cut) return no(`${cut.setting} = '${cut.mode}' (a shard may answer with part of its groups)`);
  if (q.limit.withTies) return no('LIMIT ... WITH TIES');
  const from = q.from;
  if (from?.table.kind !== 'table' || from.joins.length > 0 || from.arrayJoin)
    return no('not a single distributed table (JOIN, ARRAY JOIN or a subquery in FROM)');
  const n = literalInt(q.limit.limit);
  const m = q.limit.offset === undefined ? 0 : literalInt(q.limit.offset);
  if (n === undefined || m === undefined) return no('LIMIT or OFFSET is not an integer literal');
  const k = n + m;
  if (k < 1 || k > MAX_TPUT_GROUPS) return no(`LIMIT + OFFSET of ${k} (TPUT is for 1 to ${MAX_TPUT_GROUPS} groups)`);
  if (q.orderBy.some((o) => o.withFill)) return no('WITH FILL');

  // Nothing that changes what a group is or how many rows it has: subqueries (they would run in
  // every round), window functions, arrayJoin, IN against a table, parameters not bound.
  let odd: string | undefined;
  walkStatement(q, (e) => {
    if (odd) return false;
    if (e.kind === 'subquery') odd = 'a subquery';
    else if (e.kind === 'param') odd = 'an unbound query parameter';
    else if (e.kind === 'function' && e.over) odd = 'a window function';
    else if (e.kind === 'function' && e.name.toLowerCase() === 'arrayjoin') odd = 'arrayJoin';
    else if (e.kind === 'function' && NOT_REPEATABLE.test(e.name)) odd = `${e.name}(), which need not give the same rows in each round`;
    else if (e.kind === 'function' && isInFamily(e.name) && e.args[1]?.kind === 'column') odd = 'IN a table';
    return undefined;
  });
  if (odd) return no(odd);

  // WHERE/PREWHERE naming a SELECT alias: the rounds' SELECT lists do not define them.
  for (const w of [q.where, q.prewhere]) if (w && mentionsAlias(w, aliases)) return no('WHERE or PREWHERE uses a SELECT alias');
  return { ok: true, shape: { query: q, keys, score, k, scoreFamily } };
}

function literalInt(e: Expr): number | undefined {
  if (e.kind !== 'literal' || e.type !== 'integer' || !/^\d+$/.test(e.value)) return undefined;
  const v = Number(e.value);
  return Number.isSafeInteger(v) ? v : undefined;
}

function hasAggregate(e: Expr): boolean {
  let found = false;
  walkExpr(e, (x) => {
    if (found) return false;
    if (x.kind === 'function' && aggregateName(x.name) !== undefined) found = true;
    return undefined;
  });
  return found;
}

function mentionsAlias(e: Expr, aliases: Map<string, Expr>): boolean {
  let found = false;
  walkExpr(e, (x) => {
    if (found) return false;
    if (x.kind === 'column' && x.parts.length === 1 && aliases.has(x.parts[0]!)) {
      // `user AS user` names the column itself.
      const a = aliases.get(x.parts[0]!)!;
      if (!(a.kind === 'column' && a.parts.length === 1 && a.parts[0] === x.parts[0])) found = true;
    }
    return undefined;
  });
  return found;
}
