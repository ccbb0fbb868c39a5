// An aggregating SELECT, cut where ClickHouse's Distributed engine cuts it: the shards group by the
// keys (`expr AS _k<i>`) and compute aggregate STATES (`fState(...) AS _a<i>`; names from stage-names.ts); the final stage groups
// again by the keys, merges (`fMerge(_a<i>)`) and runs everything else: expressions, HAVING, window
// functions, ORDER BY, LIMIT BY, LIMIT, DISTINCT, ROLLUP/CUBE, TOTALS. count, sum and min/max travel
// as plain values instead, combined by sum/min/max in the final stage (plain-partials.ts).
// Input: a query whose aliases are expanded (aliases.ts); `names` are its output column names.
import type { Expr, FunctionCall, SelectQuery } from '../../sql/ast.js';
import { printExpr } from '../../sql/print.js';
import { equalExpr, mapExpr, walkExpr } from '../../sql/visit.js';
import { errorAt } from '../position.js';
import { isAggregateCall, stageNames, stateBase } from './aggregates.js';
import { plainPartial } from './plain-partials.js';
import { col, finalExprs, finalSteps, hasAggregate, leafBase, mapFinal, type CutSelect } from './cut-common.js';
import type { StageNames } from './stage-names.js';

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

export function cutAggregating(q: SelectQuery, names: string[], from: string, stage: StageNames): CutSelect {
  for (const c of q.columns) if (c.kind === 'asterisk') throw errorAt('UNSUPPORTED', 'SELECT * in an aggregating query', c);
  const keys: Expr[] = [];
  // With GROUPING SETS the shards group by every key of every set; the final stage forms the sets.
  for (const k of q.groupBy ?? q.groupingSets?.flat() ?? []) if (!keys.some((x) => equalExpr(x, k))) keys.push(k);
  const keyIndex = (k: Expr) => keys.findIndex((x) => equalExpr(x, k));
  // A constant key stays the constant in the final stage (totals, subtotal and grouping-set rows
  // show it, not the type's default), and no ROLLUP or CUBE rolls it up: ClickHouse drops constant
  // keys from the grouping. A set left with constant keys only groups by one of them, so that no
  // input rows still means no group.
  const constant = keys.map(isConstantKey);
  const groupRefs = (set: Expr[]): Expr[] => {
    const idx = set.map(keyIndex);
    const kept = idx.filter((i) => !constant[i]);
    return (kept.length > 0 ? kept : idx.slice(0, 1)).map((i) => col(stage.key(i)));
  };
  const states: { sql: string; call: FunctionCall; plain: boolean }[] = [];
  // The leaf's column for a shard-side call, shared by identical calls.
  const partialColumn = (call: FunctionCall, plain: boolean): string => {
    const sql = printExpr(call);
    let i = states.findIndex((s) => s.sql === sql);
    if (i < 0) i = states.push({ sql, call, plain }) - 1;
    return stage.state(i);
  };
  let emptyIsNotNeutral = false;

  const stateRef = (f: FunctionCall): Expr => {
    const plain = plainPartial(f);
    if (plain) {
      emptyIsNotNeutral ||= plain.emptyIsNotNeutral;
      return { kind: 'function', name: plain.final, args: [col(partialColumn({ kind: 'function', name: plain.shard, args: f.args }, true))] };
    }
    const { state: stateName, merge: mergeName } = stageNames(stateBase(f));
    const state: FunctionCall = { kind: 'function', name: stateName, args: f.args };
    if (f.params) state.params = f.params;
    const merge: FunctionCall = { kind: 'function', name: mergeName, args: [col(partialColumn(state, false))] };
    if (f.params) merge.params = f.params;
    return merge;
  };
  // Pre-order: a whole key expression first, then aggregate calls; lambda parameters shadow keys.
  const rewrite = (e: Expr, scope: ReadonlySet<string>): Expr =>
    mapExpr(e, (x) => {
      if (x.kind === 'lambda') return { ...x, params: [...x.params], body: rewrite(x.body, new Set([...scope, ...x.params])) };
      if (x.kind === 'column' && x.parts.length === 1 && scope.has(x.parts[0]!)) return undefined;
      const k = keyIndex(x);
      if (k >= 0 && constant[k]) return x;
      if (k >= 0 && (scope.size === 0 || !mentions(x, scope))) return col(stage.key(k));
      if (x.kind === 'function' && isAggregateCall(x)) {
        if (finalExprsHaveAggregate(x)) throw errorAt('QUERY_ERROR', `Aggregate function ${x.name} is found inside another aggregate function`, x);
        return stateRef(x);
      }
      return undefined;
    });
  const none = new Set<string>();
  const final = mapFinal(q, (e) => rewrite(e, none), from, names);
  if (q.groupingSets) final.groupingSets = q.groupingSets.map((g) => (g.length > 0 ? groupRefs(g) : []));
  else if (keys.length) final.groupBy = groupRefs(keys);
  // ROLLUP or CUBE over constant keys only: one group, as ClickHouse answers it.
  if (q.groupByModifier && (q.groupingSets || constant.some((c) => !c))) final.groupByModifier = q.groupByModifier;
  for (const e of finalExprs(final)) refuseLooseColumns(e, stage.isKeyOrState);

  const leafCols: Expr[] = [...keys.map((k, i) => ({ ...k, alias: stage.key(i) })), ...states.map((s, i) => ({ ...s.call, alias: stage.state(i) }))];
  const leaf = leafBase(q, leafCols);
  if (keys.length) leaf.groupBy = keys.map((_k, i) => col(stage.key(i)));
  // Without group keys every shard answers one row, even one that saw no rows: there min/max would
  // be the type's default, so such shards answer nothing (the final stage over no rows answers as
  // ClickHouse over no rows).
  else if (emptyIsNotNeutral) leaf.having = SAW_ROWS;
  const listed = (plain: boolean) =>
    states
      .map((s, i) => ({ s, i }))
      .filter(({ s }) => s.plain === plain)
      .map(({ s, i }) => `${s.sql} AS ${stage.state(i)}`)
      .join(', ');
  const notes: string[] = [];
  if (states.some((s) => !s.plain)) notes.push(`aggregates travel as states: ${listed(false)}; the final stage merges them (-Merge)`);
  if (states.some((s) => s.plain)) {
    notes.push(
      `aggregates travel as plain values: ${listed(true)}; the final stage combines them with sum (count, sum) or min/max` +
        (leaf.having ? '; without group keys a shard that saw no rows answers none (HAVING count() > 0): its min/max would be the default value' : ''),
    );
  }
  if (!states.length) notes.push('no aggregate function: the shards return their distinct group keys');
  if (keys.length)
    notes.push(`the shards group by ${keys.map((k, i) => `${printExpr(k)} AS ${stage.key(i)}`).join(', ')}; the final stage groups again by the keys`);
  const merges = [states.some((s) => !s.plain) && '-Merge of the states', states.some((s) => s.plain) && 'sum/min/max of the plain values'];
  notes.push(`final stage: ${finalSteps(q, merges.filter(Boolean).join(' and ') || undefined)}`);
  return { leaf, final, notes };
}

/** `count() > 0`: the leaf's HAVING when a shard that saw no rows must answer none. */
const SAW_ROWS: Expr = {
  kind: 'function',
  name: 'greater',
  operator: '>',
  args: [
    { kind: 'function', name: 'count', args: [] },
    { kind: 'literal', type: 'integer', value: '0' },
  ],
};

// An aggregate call's arguments may not hold another aggregate (ClickHouse refuses it too).
function finalExprsHaveAggregate(f: FunctionCall): boolean {
  return [...f.args, ...(f.params ?? [])].some(hasAggregate);
}

// Functions whose value differs between calls or rows although no column is read.
const VOLATILE =
  /^(rand|random|generateuuid|generateulid|generatesnowflake|canonicalrand|fuzzbits|rownumber|blocknumber|blocksize|neighbor|runningdifference|runningaccumulate|nowinblock)/i;

/** A key that reads no column and calls nothing volatile: the same value on every row of every shard. */
function isConstantKey(k: Expr): boolean {
  let constant = true;
  walkExpr(k, (x) => {
    if (x.kind === 'column' || x.kind === 'subquery' || x.kind === 'lambda' || x.kind === 'param' || x.kind === 'asterisk') constant = false;
    else if (x.kind === 'function' && (isAggregateCall(x) || x.over || VOLATILE.test(x.name))) constant = false;
    return constant;
  });
  return constant;
}

function mentions(e: Expr, names: ReadonlySet<string>): boolean {
  let found = false;
  walkExpr(e, (x) => {
    if (x.kind === 'column' && x.parts.length === 1 && names.has(x.parts[0]!)) found = true;
    return !found;
  });
  return found;
}
