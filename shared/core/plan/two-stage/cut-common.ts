// What both cuts of a SELECT share (cut-aggregate.ts, cut-rows.ts): the result type, what an
// expression holds (window calls, aggregates, reads of the row), the final stage's clauses and the
// leaf's base, and the /explain line for what the final stage runs.
import type { ColumnRef, Expr, OrderItem, SelectQuery } from '../../sql/ast.js';
import { exprsOfSelect, walkExpr } from '../../sql/visit.js';
import { mapWindow } from '../../sql/window.js';
import { isAggregateCall } from './aggregates.js';

export interface CutSelect {
  leaf: SelectQuery;
  final: SelectQuery;
  notes: string[];
}

export const col = (name: string): ColumnRef => ({ kind: 'column', parts: [name] });

export function hasWindow(e: Expr): boolean {
  let found = false;
  walkExpr(e, (x) => {
    if (x.kind === 'function' && x.over) found = true;
    return !found;
  });
  return found;
}

export function hasFinalOnly(e: Expr, finalOnly: (e: Expr) => boolean): boolean {
  let found = false;
  walkExpr(e, (x) => {
    if (x.kind === 'subquery' && finalOnly(x)) found = true;
    return !found;
  });
  return found;
}

export function hasAggregate(e: Expr): boolean {
  let found = false;
  walkExpr(e, (x) => {
    if (x.kind === 'function' && isAggregateCall(x)) found = true;
    return !found && x.kind !== 'lambda';
  });
  return found;
}

/**
 * Does `e` read the row (a column, `*`, or a subquery the shard can run)? A subquery over a
 * distributed table (`finalOnly`) is not the row's: it is planned for the final stage, as a constant.
 */
export function hasColumn(e: Expr, finalOnly: (e: Expr) => boolean = () => false): boolean {
  let found = false;
  walkExpr(e, (x) => {
    if (x.kind === 'column' || x.kind === 'asterisk' || (x.kind === 'subquery' && !finalOnly(x))) found = true;
    return !found;
  });
  return found;
}

/** The expressions that the final stage evaluates (everything after WHERE). */
export function finalExprs(q: SelectQuery): Expr[] {
  return exprsOfSelect(q)
    .filter(
      (x) =>
        x.clause === 'columns' || x.clause === 'having' || x.clause === 'orderBy' || x.clause === 'limitBy' || x.clause === 'window' || x.clause === 'qualify',
    )
    .map((x) => x.expr);
}

export function isAggregating(q: SelectQuery): boolean {
  return q.groupBy !== undefined || q.groupingSets !== undefined || finalExprs(q).some(hasAggregate);
}

/** Replace, in the final stage's clauses, each expression with `fn(expr)`. */
export function mapFinal(q: SelectQuery, fn: (e: Expr) => Expr, from: string, names: string[]): SelectQuery {
  const out: SelectQuery = {
    kind: 'select',
    distinct: q.distinct,
    columns: q.columns.map((c, i) => ({ ...fn(c), alias: names[i]! })),
    from: { table: { kind: 'table', table: from }, joins: [] },
    withTotals: q.withTotals,
  };
  if (q.having) out.having = fn(q.having);
  if (q.window) out.window = q.window.map((w) => ({ name: w.name, spec: mapWindow(w.spec, fn, true) }));
  if (q.qualify) out.qualify = fn(q.qualify);
  if (q.orderBy) out.orderBy = q.orderBy.map((o): OrderItem => ({ ...o, expr: fn(o.expr) }));
  // INTERPOLATE names the output columns, which the final stage's SELECT names as the query does.
  if (q.interpolate) out.interpolate = q.interpolate;
  if (q.limitBy) out.limitBy = { ...q.limitBy, by: q.limitBy.by.map(fn) };
  if (q.limit) out.limit = q.limit;
  return out;
}

/** An ORDER BY item without WITH FILL: only the final stage fills (a shard's fill would add rows the merge keeps). */
export function unfilled({ withFill: _fill, fillFrom: _from, fillTo: _to, fillStep: _step, fillStaleness: _staleness, ...o }: OrderItem): OrderItem {
  return o;
}

export function leafBase(q: SelectQuery, columns: Expr[]): SelectQuery {
  const leaf: SelectQuery = { kind: 'select', distinct: false, columns, withTotals: false };
  if (q.from) leaf.from = q.from;
  if (q.prewhere) leaf.prewhere = q.prewhere;
  if (q.where) leaf.where = q.where;
  if (q.pos) leaf.pos = q.pos;
  return leaf;
}

/** `merge`: how the final stage combines the shards' aggregates (cut-aggregate.ts names it). */
export function finalSteps(q: SelectQuery, merge = '-Merge of the states'): string {
  const steps: string[] = [];
  if (isAggregating(q)) steps.push(merge + (q.groupBy || q.groupingSets ? ' grouped by the keys' : ''));
  if (q.groupByModifier) steps.push(`WITH ${q.groupByModifier}`);
  if (q.groupingSets) steps.push('GROUPING SETS');
  if (q.withTotals) steps.push('WITH TOTALS');
  if (q.having) steps.push('HAVING');
  if (finalExprs(q).some(hasWindow)) steps.push('window functions');
  if (q.qualify) steps.push('QUALIFY');
  if (q.distinct) steps.push('DISTINCT');
  if (q.orderBy) steps.push('ORDER BY');
  if (q.limitBy) steps.push('LIMIT BY');
  if (q.limit) steps.push('LIMIT/OFFSET');
  steps.push('the output expressions');
  return steps.join(', ');
}
