// The SQL of TPUT's rounds, as statements over the distributed table (the ordinary planner then
// renames, prunes and skips per shard like any query):
//   the pre-pass: SELECT keys, score ... GROUP BY keys, wrapped per shard by one-round.ts
//   round 2 (the query over the candidates): the query itself, with `AND (keys) IN (the candidates)`
//   added to its WHERE
// Round 2 is exact because the added condition is on the group keys only: every candidate group
// keeps all of its rows on every shard, so its aggregates (all of them, not only the score) are
// complete, and the query's own ORDER BY / LIMIT picks the answer among the candidates.
import type { ColumnMeta } from '../../clickhouse/port.js';
import { cloneAst, type Expr, type SelectQuery } from '../../sql/ast.js';
import { fn } from '../../partials/ast-build.js';
import { literalFor } from '../../partials/cursor.js';
import type { TputShape } from './shape.js';

export const KEY_ALIAS = (i: number) => `_tput_k${i}`;
export const SCORE_ALIAS = '_tput_s';

/** Each shard's groups and local scores: `SELECT keys AS _tput_k<i>, score AS _tput_s ... GROUP BY keys`. */
export function roundBase(shape: TputShape): SelectQuery {
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
 * Round 2: the query restricted to the candidate groups. `candidates` holds each group's key values
 * as the shards wrote them (ClickHouse JSON conventions), `types` the keys' column types.
 */
export function candidatesQuery(shape: TputShape, candidates: readonly unknown[][], types: readonly ColumnMeta[]): SelectQuery {
  if (candidates.length === 0) throw new Error('the query over the candidates needs at least one candidate');
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
