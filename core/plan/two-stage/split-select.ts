// One SELECT over a distributed table, cut where ClickHouse's Distributed engine cuts it:
// - aggregating: the shards group by the keys (`expr AS _k<i>`) and compute aggregate STATES
//   (`fState(...) AS _a<i>`); the final stage groups again by `_k<i>`, merges (`fMerge(_a<i>)`) and
//   runs everything else: expressions, HAVING, window functions, ORDER BY, LIMIT BY, LIMIT,
//   DISTINCT, ROLLUP/CUBE, TOTALS.
// - not aggregating: the shards compute the rows (`expr AS _c<i>`), with ORDER BY and LIMIT
//   (limit + offset) pushed down when no window function needs all rows; the final stage re-sorts
//   and applies window functions, DISTINCT, LIMIT BY, LIMIT/OFFSET.
// Input: a query whose aliases are expanded (aliases.ts); `names` are its output column names.
import type { ColumnRef, Expr, FunctionCall, OrderItem, SelectQuery } from '../../sql/ast.js';
import { printExpr } from '../../sql/print.js';
import { equalExpr, exprsOfSelect, mapExpr, walkExpr } from '../../sql/visit.js';
import { mapWindow } from '../../sql/window.js';
import { errorAt } from '../position.js';
import { isAggregateCall, stateBase } from './aggregates.js';

export interface SplitSelect {
  leaf: SelectQuery;
  final: SelectQuery;
  notes: string[];
}

const col = (name: string): ColumnRef => ({ kind: 'column', parts: [name] });

function hasWindow(e: Expr): boolean {
  let found = false;
  walkExpr(e, (x) => {
    if (x.kind === 'function' && x.over) found = true;
    return !found;
  });
  return found;
}

function hasFinalOnly(e: Expr, finalOnly: (e: Expr) => boolean): boolean {
  let found = false;
  walkExpr(e, (x) => {
    if (x.kind === 'subquery' && finalOnly(x)) found = true;
    return !found;
  });
  return found;
}

function hasAggregate(e: Expr): boolean {
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
function hasColumn(e: Expr, finalOnly: (e: Expr) => boolean = () => false): boolean {
  let found = false;
  walkExpr(e, (x) => {
    if (x.kind === 'column' || x.kind === 'asterisk' || (x.kind === 'subquery' && !finalOnly(x))) found = true;
    return !found;
  });
  return found;
}

/** The expressions that the final stage evaluates (everything after WHERE). */
function finalExprs(q: SelectQuery): Expr[] {
  return exprsOfSelect(q)
    .filter((x) => x.clause === 'columns' || x.clause === 'having' || x.clause === 'orderBy' || x.clause === 'limitBy' || x.clause === 'window')
    .map((x) => x.expr);
}

export function isAggregating(q: SelectQuery): boolean {
  return q.groupBy !== undefined || finalExprs(q).some(hasAggregate);
}

/** Replace, in the final stage's clauses, each expression with `fn(expr)`. */
function mapFinal(q: SelectQuery, fn: (e: Expr) => Expr, from: string, names: string[]): SelectQuery {
  const out: SelectQuery = {
    kind: 'select',
    distinct: q.distinct,
    columns: q.columns.map((c, i) => ({ ...fn(c), alias: names[i]! })),
    from: { table: { kind: 'table', table: from }, joins: [] },
    withTotals: q.withTotals,
  };
  if (q.having) out.having = fn(q.having);
  if (q.window) out.window = q.window.map((w) => ({ name: w.name, spec: mapWindow(w.spec, fn, true) }));
  if (q.orderBy) out.orderBy = q.orderBy.map((o): OrderItem => ({ ...o, expr: fn(o.expr) }));
  if (q.limitBy) out.limitBy = { ...q.limitBy, by: q.limitBy.by.map(fn) };
  if (q.limit) out.limit = q.limit;
  return out;
}

function leafBase(q: SelectQuery, columns: Expr[]): SelectQuery {
  const leaf: SelectQuery = { kind: 'select', distinct: false, columns, withTotals: false };
  if (q.from) leaf.from = q.from;
  if (q.prewhere) leaf.prewhere = q.prewhere;
  if (q.where) leaf.where = q.where;
  if (q.pos) leaf.pos = q.pos;
  return leaf;
}

/** Column references left in the final stage that are neither keys, states, nor lambda parameters. */
function refuseLooseColumns(e: Expr, allowed: (name: string) => boolean, scope: ReadonlySet<string> = new Set()): void {
  walkExpr(e, (x) => {
    if (x.kind === 'lambda') {
      refuseLooseColumns(x.body, allowed, new Set([...scope, ...x.params]));
      return false;
    }
    if (x.kind === 'column' && !(x.parts.length === 1 && (allowed(x.parts[0]!) || scope.has(x.parts[0]!)))) {
      throw errorAt('QUERY_ERROR', `Column ${x.parts.join('.')} is not under an aggregate function and not in GROUP BY keys`, x);
    }
    return undefined;
  });
}

export function splitAggregating(q: SelectQuery, names: string[], from: string): SplitSelect {
  for (const c of q.columns) if (c.kind === 'asterisk') throw errorAt('UNSUPPORTED', 'SELECT * in an aggregating query', c);
  const keys: Expr[] = [];
  for (const k of q.groupBy ?? []) if (!keys.some((x) => equalExpr(x, k))) keys.push(k);
  const states: { sql: string; call: FunctionCall }[] = [];

  const stateRef = (f: FunctionCall): Expr => {
    const base = stateBase(f);
    const state: FunctionCall = { kind: 'function', name: `${base}State`, args: f.args };
    if (f.params) state.params = f.params;
    const sql = printExpr(state);
    let i = states.findIndex((s) => s.sql === sql);
    if (i < 0) i = states.push({ sql, call: state }) - 1;
    const merge: FunctionCall = { kind: 'function', name: `${base}Merge`, args: [col(`_a${i}`)] };
    if (f.params) merge.params = f.params;
    return merge;
  };
  // Pre-order: a whole key expression first, then aggregate calls; lambda parameters shadow keys.
  const rewrite = (e: Expr, scope: ReadonlySet<string>): Expr =>
    mapExpr(e, (x) => {
      if (x.kind === 'lambda') return { ...x, params: [...x.params], body: rewrite(x.body, new Set([...scope, ...x.params])) };
      if (x.kind === 'column' && x.parts.length === 1 && scope.has(x.parts[0]!)) return undefined;
      const k = keys.findIndex((key) => equalExpr(key, x));
      if (k >= 0 && (scope.size === 0 || !mentions(x, scope))) return col(`_k${k}`);
      if (x.kind === 'function' && isAggregateCall(x)) {
        if (finalExprsHaveAggregate(x)) throw errorAt('QUERY_ERROR', `Aggregate function ${x.name} is found inside another aggregate function`, x);
        return stateRef(x);
      }
      return undefined;
    });
  const none = new Set<string>();
  const final = mapFinal(q, (e) => rewrite(e, none), from, names);
  if (keys.length) final.groupBy = keys.map((_k, i) => col(`_k${i}`));
  if (q.groupByModifier) final.groupByModifier = q.groupByModifier;
  const allowed = (n: string) => /^_[ka]\d+$/.test(n);
  for (const e of finalExprs(final)) refuseLooseColumns(e, allowed);

  const leafCols: Expr[] = [...keys.map((k, i) => ({ ...k, alias: `_k${i}` })), ...states.map((s, i) => ({ ...s.call, alias: `_a${i}` }))];
  const leaf = leafBase(q, leafCols);
  if (keys.length) leaf.groupBy = keys.map((_k, i) => col(`_k${i}`));
  const notes = [
    states.length
      ? `aggregates travel as states: ${states.map((s, i) => `${s.sql} AS _a${i}`).join(', ')}; the final stage merges them (-Merge)`
      : 'no aggregate function: the shards return their distinct group keys',
  ];
  if (keys.length) notes.push(`the shards group by ${keys.map((k, i) => `${printExpr(k)} AS _k${i}`).join(', ')}; the final stage groups again by the keys`);
  notes.push(`final stage: ${finalSteps(q)}`);
  return { leaf, final, notes };
}

// An aggregate call's arguments may not hold another aggregate (ClickHouse refuses it too).
function finalExprsHaveAggregate(f: FunctionCall): boolean {
  return [...f.args, ...(f.params ?? [])].some(hasAggregate);
}

function mentions(e: Expr, names: ReadonlySet<string>): boolean {
  let found = false;
  walkExpr(e, (x) => {
    if (x.kind === 'column' && x.parts.length === 1 && names.has(x.parts[0]!)) found = true;
    return !found;
  });
  return found;
}

function finalSteps(q: SelectQuery): string {
  const steps: string[] = [];
  if (isAggregating(q)) steps.push('-Merge of the states' + (q.groupBy ? ' grouped by the keys' : ''));
  if (q.groupByModifier) steps.push(`WITH ${q.groupByModifier}`);
  if (q.withTotals) steps.push('WITH TOTALS');
  if (q.having) steps.push('HAVING');
  if (finalExprs(q).some(hasWindow)) steps.push('window functions');
  if (q.distinct) steps.push('DISTINCT');
  if (q.orderBy) steps.push('ORDER BY');
  if (q.limitBy) steps.push('LIMIT BY');
  if (q.limit) steps.push('LIMIT/OFFSET');
  steps.push('the output expressions');
  return steps.join(', ');
}

/** limit + offset as one integer literal, when both are integer literals. */
function pushedLimit(q: SelectQuery): Expr | undefined {
  const l = q.limit;
  if (!l) return undefined;
  const int = (e: Expr | undefined): bigint | undefined =>
    e === undefined ? 0n : e.kind === 'literal' && e.type === 'integer' && /^\d+$/.test(e.value) ? BigInt(e.value) : undefined;
  const a = int(l.limit);
  const b = int(l.offset);
  if (a === undefined || b === undefined) return undefined;
  return { kind: 'literal', type: 'integer', value: String(a + b) };
}

export function splitRows(q: SelectQuery, names: string[], from: string, finalOnly: (e: Expr) => boolean = () => false): SplitSelect {
  const readsRow = (e: Expr) => hasColumn(e, finalOnly);
  const windowed = finalExprs(q).some(hasWindow);
  const star = q.columns.some((c) => c.kind === 'asterisk');
  if (star) return splitStar(q, from, windowed);
  const leafCols: Expr[] = [];
  const leafCol = (e: Expr): Expr => {
    let i = leafCols.findIndex((x) => equalExpr(x, e));
    if (i < 0) i = leafCols.push(e) - 1;
    return col(`_c${i}`);
  };
  // A window-free expression that reads a column is computed on the shards; constants stay in the
  // final stage (a window function's offset must stay a constant there).
  const rewrite = (e: Expr): Expr =>
    mapExpr(e, (x) => {
      if (x.kind === 'subquery') return finalOnly(x) ? x : readsRow(x) ? leafCol(x) : undefined;
      if (x.kind === 'lambda') return hasWindow(x) ? undefined : readsRow(x) ? leafCol(x) : undefined;
      // Only the row-reading parts go to the shards: `value / (SELECT count() FROM t)` keeps the division here.
      if (!hasWindow(x) && !hasFinalOnly(x, finalOnly)) return readsRow(x) ? leafCol(x) : undefined;
      return undefined;
    });
  // Output columns first, in order, so the shards' DISTINCT (when pushed down) sees exactly them.
  const outputs = q.columns.map((c) => rewrite(c));
  const outputCount = leafCols.length;
  const final = mapFinal(q, rewrite, from, names);
  final.columns = outputs.map((e, i) => ({ ...e, alias: names[i]! }));
  if (leafCols.length === 0) leafCols.push({ kind: 'literal', type: 'integer', value: '1' });
  const leaf = leafBase(
    q,
    leafCols.map((e, i) => ({ ...e, alias: `_c${i}` })),
  );
  const notes: string[] = [];
  if (!windowed) pushDown(q, final, leaf, leafCols.length === outputCount, notes);
  else notes.push('window functions need every row: the shards return all matching rows, unsorted');
  notes.push(`final stage: ${finalSteps(q)}`);
  return { leaf, final, notes };
}

/** ORDER BY + LIMIT (limit + offset) and DISTINCT / LIMIT BY run on the shards too, as ClickHouse does. */
function pushDown(q: SelectQuery, final: SelectQuery, leaf: SelectQuery, onlyOutputs: boolean, notes: string[]): void {
  const distinctOk = !q.distinct || onlyOutputs;
  if (q.distinct && distinctOk) {
    leaf.distinct = true;
    notes.push('DISTINCT runs on the shards and again in the final stage');
  }
  if (!distinctOk) return;
  // An ORDER BY / LIMIT BY over a final-stage subquery (a scalar over a distributed table) cannot run on the shards.
  const finalOnly = (e: Expr) => hasFinalOnly(e, (x) => x.kind === 'subquery');
  if ((final.orderBy ?? []).some((o) => finalOnly(o.expr)) || (final.limitBy?.by ?? []).some(finalOnly)) return;
  // WITH FILL adds rows: only the final stage may fill.
  if (final.orderBy) leaf.orderBy = final.orderBy.map(({ withFill: _fill, ...o }) => o);
  if (final.limitBy) {
    const n = pushedLimitBy(q);
    if (!n) return;
    leaf.limitBy = { limit: n, by: final.limitBy.by };
  }
  const lim = pushedLimit(q);
  if (lim) {
    leaf.limit = { limit: lim, ...(q.limit?.withTies ? { withTies: true } : {}) };
    notes.push(
      `${q.orderBy ? 'ORDER BY and ' : ''}LIMIT ${printExpr(lim)} (limit + offset) run on each shard; the final stage ${q.orderBy ? 're-sorts and ' : ''}applies LIMIT/OFFSET`,
    );
  }
}

function pushedLimitBy(q: SelectQuery): Expr | undefined {
  const lb = q.limitBy!;
  return pushedLimit({ ...q, limit: { limit: lb.limit, ...(lb.offset ? { offset: lb.offset } : {}) } });
}

/** `SELECT * ...` without aggregates: the shards return whole rows; the final stage re-evaluates the rest over them. */
function splitStar(q: SelectQuery, from: string, windowed: boolean): SplitSelect {
  const c0 = q.columns.find((c) => c.kind === 'asterisk')!;
  if (q.columns.length !== 1) throw errorAt('UNSUPPORTED', 'SELECT * together with other columns in the two-stage path (list the columns)', c0);
  if (q.from?.joins.length || q.from?.arrayJoin)
    throw errorAt('UNSUPPORTED', 'SELECT * over a JOIN or ARRAY JOIN in the two-stage path (list the columns)', c0);
  // The final stage reads one table: drop qualifiers (`e.ts` is `ts` there).
  const unqualify = (e: Expr): Expr =>
    mapExpr(e, (x) =>
      x.kind === 'column' && x.parts.length > 1 ? col(x.parts[x.parts.length - 1]!) : x.kind === 'asterisk' ? { kind: 'asterisk' } : undefined,
    );
  const final = mapFinal(q, unqualify, from, []);
  final.columns = [{ kind: 'asterisk' }];
  const leaf = leafBase(q, [{ kind: 'asterisk' }]);
  const notes: string[] = [];
  if (!windowed) pushDown(q, final, leaf, true, notes);
  if (leaf.orderBy) leaf.orderBy = q.orderBy!.map(({ withFill: _fill, ...o }) => o);
  if (leaf.limitBy) leaf.limitBy = { ...leaf.limitBy, by: q.limitBy!.by };
  notes.push(`final stage: ${finalSteps(q)}`);
  return { leaf, final, notes };
}
