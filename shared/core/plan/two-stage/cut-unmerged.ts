// A SELECT over a distributed table under distributed_group_by_no_merge, cut where ClickHouse's
// Distributed engine cuts it: the shards' answers are not merged.
//  - 1: each shard runs the whole query (aggregation, HAVING, DISTINCT, ORDER BY, LIMIT BY, LIMIT);
//    the final stage only concatenates the shards' rows.
//  - 2: the same on the shards (LIMIT as limit + offset), then the final stage sorts the union by
//    ORDER BY and applies LIMIT/OFFSET; DISTINCT and LIMIT BY stay per shard, as in ClickHouse.
// Input: a query whose aliases are expanded (aliases.ts); `names` are its output column names.
import type { Expr, InterpolateItem, OrderItem, SelectQuery } from '../../sql/ast.js';
import { equalExpr, mapExpr } from '../../sql/visit.js';
import type { GroupByNoMerge } from '../settings.js';
import { errorAt } from '../position.js';
import { col, finalExprs, hasWindow, type CutSelect } from './cut-common.js';
import type { StageNames } from './stage-names.js';

export function cutUnmerged(q: SelectQuery, names: string[], from: string, mode: Exclude<GroupByNoMerge, 0>, stage: StageNames): CutSelect {
  const setting = `distributed_group_by_no_merge = ${mode}`;
  if (q.withTotals)
    throw errorAt(
      'UNSUPPORTED',
      `WITH TOTALS under ${setting} is not supported: every shard answers a totals row, and a Distributed table keeps whichever arrives first`,
      q,
    );
  if (mode === 2) refuseAfterAggregation(q);
  const star = q.columns.find((c) => c.kind === 'asterisk');
  if (star && q.columns.length !== 1) throw errorAt('UNSUPPORTED', `SELECT * together with other columns under ${setting} (list the columns)`, star);

  const leafCols: Expr[] = star ? [star] : [...q.columns];
  const final: SelectQuery = {
    kind: 'select',
    distinct: false,
    columns: star ? [{ kind: 'asterisk' }] : names.map((n, i) => ({ ...col(stage.value(i)), alias: n })),
    from: { table: { kind: 'table', table: from }, joins: [] },
    withTotals: false,
  };
  const notes = [`${setting}: each shard runs the whole query`];
  if (mode === 2 && q.orderBy) {
    // The final stage sorts by the shards' columns: an ORDER BY expression that is no output column travels as one more.
    const at = (e: Expr): Expr => {
      if (star) return unqualified(e);
      let i = leafCols.findIndex((x) => equalExpr(x, e));
      if (i < 0) {
        if (q.distinct) throw errorAt('UNSUPPORTED', `SELECT DISTINCT ordered by an expression it does not select, under ${setting}`, e);
        i = leafCols.push(e) - 1;
      }
      return col(stage.value(i));
    };
    final.orderBy = q.orderBy.map((o): OrderItem => ({ ...o, expr: at(o.expr) }));
  }
  if (mode === 2 && q.limit) final.limit = q.limit;
  const leaf: SelectQuery = { ...q, columns: star ? leafCols : leafCols.map((e, i) => ({ ...e, alias: stage.value(i) })) };
  // Each shard fills its own rows (mode 1): INTERPOLATE names the output columns, which the leaf names by the stage's names.
  if (q.interpolate && !star) leaf.interpolate = q.interpolate.map((x) => interpolatedAs(x, names, stage));
  if (mode === 2 && q.limit) {
    const pushed = limitPlusOffset(q);
    leaf.limit = { limit: pushed, ...(q.limit.withTies ? { withTies: true } : {}) };
  }
  notes.push(
    mode === 1
      ? 'final stage: the shards’ rows, concatenated (nothing merged, sorted or limited again)'
      : `final stage: the shards’ rows${final.orderBy ? ', sorted by ORDER BY' : ''}${final.limit ? ', LIMIT/OFFSET' : ''} (DISTINCT, LIMIT BY and aggregation stay per shard)`,
  );
  return { leaf, final, notes };
}

/** What ClickHouse's initiator refuses or cannot redo after the shards' aggregation (mode 2). */
function refuseAfterAggregation(q: SelectQuery): void {
  const windowed = finalExprs(q).find(hasWindow);
  if (windowed)
    throw errorAt('UNSUPPORTED', 'Window functions does not support processing from WithMergeableStateAfterAggregation', windowed, {
      clickhouse: { code: 48, name: 'NOT_IMPLEMENTED' },
    });
  const fill = q.orderBy?.find((o) => o.withFill);
  if (fill) throw errorAt('UNSUPPORTED', 'ORDER BY ... WITH FILL under distributed_group_by_no_merge = 2 is not supported', fill.expr);
}

/** LIMIT n OFFSET m as one literal n + m (at most 2^64 - 1, what OFFSET alone stands for), what each shard keeps. */
function limitPlusOffset(q: SelectQuery): Expr {
  const { limit, offset } = q.limit!;
  const int = (e: Expr | undefined): bigint => {
    if (e === undefined) return 0n;
    if (e.kind !== 'literal' || e.type !== 'integer' || !/^\d+$/.test(e.value))
      throw errorAt('UNSUPPORTED', 'LIMIT and OFFSET must be non-negative integer literals', e);
    return BigInt(e.value);
  };
  const sum = int(limit) + int(offset);
  const max = 2n ** 64n - 1n;
  return { kind: 'literal', type: 'integer', value: String(sum > max ? max : sum) };
}

/** `SELECT *` is read back whole: the final stage names the shards' columns without qualifiers. */
function unqualified(e: Expr): Expr {
  return mapExpr(e, (x) => (x.kind === 'column' && x.parts.length > 1 ? col(x.parts[x.parts.length - 1]!) : undefined));
}

/** An INTERPOLATE item over the leaf's columns: each output name read as the `_c<i>` the leaf gives it. */
function interpolatedAs(x: InterpolateItem, names: string[], stage: StageNames): InterpolateItem {
  const at = (name: string) => {
    const i = names.indexOf(name);
    return i < 0 ? name : stage.value(i);
  };
  const item: InterpolateItem = { name: at(x.name) };
  if (x.expr) item.expr = mapExpr(x.expr, (e) => (e.kind === 'column' && e.parts.length === 1 ? col(at(e.parts[0]!)) : undefined));
  return item;
}
