// The SQL of TPUT's three rounds, as statements over the distributed table (the ordinary planner
// then renames, prunes and skips per shard like any query):
//   round 1: SELECT keys, score ... GROUP BY keys ORDER BY score DESC LIMIT k
//   round 2: SELECT keys, score ... GROUP BY keys HAVING score >= T LIMIT MAX_TPUT_GROUPS + 1
//   round 3: the query itself, with `AND (keys) IN (the candidates)` added to its WHERE
// Round 3 is exact because the added condition is on the group keys only: every candidate group
// keeps all of its rows on every shard, so its aggregates (all of them, not only the score) are
// complete, and the query's own ORDER BY / LIMIT picks the answer among the candidates.
import type { ColumnMeta } from '../../clickhouse/port.js';
import { cloneAst, type Expr, type SelectQuery } from '../../sql/ast.js';
import { col, fn, int } from '../../partials/ast-build.js';
import { literalFor } from '../../partials/cursor.js';
import { MAX_TPUT_GROUPS, type TputShape } from './shape.js';

export const KEY_ALIAS = (i: number) => `_tput_k${i}`;
export const SCORE_ALIAS = '_tput_s';

function roundBase(shape: TputShape): SelectQuery {
  const q = shape.query;
  const bare = (e: Expr): Expr => ({ ...cloneAst(e), alias: undefined }) as Expr;
  const r: SelectQuery = {
    kind: 'select',
    distinct: false,
    columns: [...shape.keys.map((k, i) => ({ ...bare(k), alias: KEY_ALIAS(i) }) as Expr), { ...bare(shape.score), alias: SCORE_ALIAS } as Expr],
    groupBy: shape.keys.map(bare),
    withTotals: false,
  };
  if (q.from) r.from = q.from;
  if (q.prewhere) r.prewhere = q.prewhere;
  if (q.where) r.where = q.where;
  if (q.settings) r.settings = q.settings;
  return r;
}

/** Round 1: each shard's k best groups by the score. */
export function round1Query(shape: TputShape): SelectQuery {
  return { ...roundBase(shape), orderBy: [{ expr: col(SCORE_ALIAS), direction: 'DESC' }], limit: { limit: int(shape.k) } };
}

/**
 * Round 2: every group whose local score is at least `threshold` (an integer: the scores are
 * integers, so `>= T` and `>= ceil(T)` select the same groups). `threshold` undefined prints a
 * `{threshold:UInt64}` placeholder (for /explain). One row over MAX_TPUT_GROUPS tells the runtime
 * the round is too big to pay off.
 */
export function round2Query(shape: TputShape, threshold?: bigint): SelectQuery {
  const t: Expr = threshold === undefined ? { kind: 'param', name: 'threshold', type: 'UInt64' } : int(threshold);
  const having = { ...fn('greaterOrEquals', [{ ...cloneAst(shape.score), alias: undefined } as Expr, t]), operator: '>=' };
  return { ...roundBase(shape), having, limit: { limit: int(MAX_TPUT_GROUPS + 1) } };
}

/** Key column types whose values print back as literals that select exactly the same groups. */
export function literalKeyType(type: string): boolean {
  const base = unwrapLowCardinality(type);
  return /^U?Int(8|16|32|64)$/.test(base) || base === 'String' || base === 'Date' || /^DateTime(\('[^'\\]+'\))?$/.test(base);
}

export function unwrapLowCardinality(type: string): string {
  const m = /^LowCardinality\((.*)\)$/.exec(type);
  return m ? m[1]! : type;
}

/**
 * Round 3: the query restricted to the candidate groups. `candidates` holds each group's key values
 * as the shards wrote them (ClickHouse JSON conventions), `types` the keys' column types.
 */
export function round3Query(shape: TputShape, candidates: readonly unknown[][], types: readonly ColumnMeta[]): SelectQuery {
  if (candidates.length === 0) throw new Error('round 3 needs at least one candidate');
  const single = shape.keys.length === 1;
  const literal = (values: unknown[]): Expr => {
    const items = values.map((v, i) => literalFor(v, unwrapLowCardinality(types[i]!.type)));
    return single ? items[0]! : { kind: 'tuple', items };
  };
  const lits = candidates.map(literal);
  // One candidate is written twice: `k IN (v, v)` reads as a set on every version, where a lone
  // `(v)` would be a parenthesized value (and `((a, b))` a tuple, not a set of one tuple).
  if (lits.length === 1) lits.push(lits[0]!);
  const left: Expr = single ? cloneAst(shape.keys[0]!) : { kind: 'tuple', items: shape.keys.map((k) => cloneAst(k)) };
  const restrict: Expr = { ...fn('in', [{ ...left, alias: undefined } as Expr, { kind: 'tuple', items: lits }]), operator: 'IN' };
  const q = shape.query;
  const where = q.where ? ({ ...fn('and', [q.where, restrict]), operator: 'AND' } as Expr) : restrict;
  return { ...q, where };
}
