// The general path's planner: any SELECT a Distributed table answers becomes leaves (what every
// shard computes, each read by the final stage as a temporary table `_stage<i>`) and one final
// SELECT over them that a ClickHouse engine runs (docs/architecture.md#two-stage-execution).
//   ctes.ts (WITH name AS (subquery) inlined) -> per SELECT: over a distributed table, cut it
//   (aliases.ts, cut-aggregate.ts, cut-rows.ts); over a subquery, plan the subquery and run the outer SELECT in
//   the final stage; UNION branches one by one. Subqueries inside a distributed SELECT: local IN
//   (local-in.ts), GLOBAL IN (shipped by the ordinary GLOBAL machinery), or refused.
import type { Expr, Pos, SelectQuery, SelectStatement, SettingItem, TableExpr } from '../../sql/ast.js';
import { outputNames } from '../../sql/names.js';
import { printSelect } from '../../sql/print.js';
import { equalExpr, mapClausesShared, rewriteExpr, walkExpr, walkStatement, fromTables } from '../../sql/visit.js';
import type { Topology } from '../../config/schema.js';
import { errorAt } from '../position.js';
import { lookupTable, refName, resolveTable, splitName, type BoundTable } from '../tables.js';
import type { StageLeaf, TwoStageOptions, TwoStagePlan } from './types.js';
import { inlineCtes } from './ctes.js';
import { expandAliases, stripAliases } from './aliases.js';
import { cutAggregating } from './cut-aggregate.js';
import { isAggregating } from './cut-common.js';
import { cutRows } from './cut-rows.js';
import { cutUnmerged } from './cut-unmerged.js';
import type { GroupByNoMerge } from '../settings.js';
import type { MainOf } from './local-in.js';
import { leafSubqueries } from './leaf-subqueries.js';
import { isInFamily } from '../analyze.js';
import { distributedTables } from './reads.js';
import { readsTable, recursiveCtes } from '../recursive-ctes.js';
import { refuseUnexpanded } from '../expand-columns.js';
import { checkReach, FINAL_STAGE_REACH } from '../reach-check.js';
import { isConstantTable } from '../constant-tables.js';
import { stageNamesFor, type StageNames } from './stage-names.js';

export type { TwoStageOptions } from './types.js';

interface Ctx {
  topo: Topology;
  mode: 'deny' | 'local' | 'global';
  noMerge: GroupByNoMerge;
  leaves: StageLeaf[];
  notes: string[];
  /** The stage columns' names, none of them a name the query uses. */
  stage: StageNames;
  /** The recursive CTEs in scope: a SELECT that reads one runs in the final stage, which evaluates it. */
  recursive: ReadonlySet<string>;
  /** The statement's own SELECT (not a subquery's): its columns are the answer's. */
  top?: SelectQuery;
  /** Set when the top SELECT's final stage names a column other than the client's name (see distinctNames). */
  answerNames?: string[];
}

const unsupported = (what: string, node?: { pos?: Pos }) => errorAt('UNSUPPORTED', `${what} is not supported`, node);

export function planTwoStage(stmt: SelectStatement, topo: Topology, opts: TwoStageOptions = {}): TwoStagePlan {
  const ctx: Ctx = {
    topo,
    mode: opts.distributedProductMode ?? 'deny',
    noMerge: opts.groupByNoMerge ?? 0,
    leaves: [],
    notes: [],
    stage: stageNamesFor(stmt),
    recursive: new Set(),
  };
  const top: SelectStatement = { ...stmt };
  delete top.format;
  delete top.settings;
  if (top.kind === 'union') top.selects = top.selects.map((q, i) => (i === top.selects.length - 1 ? { ...q, settings: undefined, format: undefined } : q));
  refuseTableFunctions(top);
  // The outer clause was taken off above (it applies to the whole query): any left is a subquery's.
  refuseNestedSettings(top);
  const inlined = inlineCtes(top);
  if (inlined.kind === 'select') ctx.top = inlined;
  const final = planStatement(inlined, ctx);
  // A subquery that reads no distributed table stays in the final stage as written: it may read only what the stage may.
  checkReach(final, opts.external?.size ? { ...FINAL_STAGE_REACH, external: opts.external } : FINAL_STAGE_REACH);
  if (ctx.leaves.length === 0) throw errorAt('UNSUPPORTED', 'a query that reads no distributed table; name one of the configured tables', stmt);
  const finalSql = printSelect(final);
  ctx.notes.push(`final stage: one ClickHouse engine runs ${finalSql.length > 300 ? finalSql.slice(0, 297) + '...' : finalSql}`);
  return { leaves: ctx.leaves, finalSql, notes: ctx.notes, ...(ctx.answerNames ? { answerNames: ctx.answerNames } : {}) };
}

/** A table function anywhere (FROM, JOIN, a subquery at any depth) other than a constant one reads something other than the configured tables. */
function refuseTableFunctions(s: SelectStatement): void {
  for (const q of s.kind === 'union' ? s.selects : [s]) {
    for (const w of q.with ?? []) if (w.expr.kind === 'subquery') refuseTableFunctions(w.expr.query);
    for (const t of fromTables(q)) {
      if (t.kind === 'tableFunction' && !isConstantTable(t)) throw unsupported(`table function ${t.name}()`, t);
      if (t.kind === 'subqueryTable') refuseTableFunctions(t.query);
    }
  }
  walkStatement(s, (e) => {
    if (e.kind === 'subquery') refuseTableFunctions(e.query);
  });
}

/**
 * ClickHouse applies a subquery's SETTINGS clause to that subquery alone; the cut into two stages has
 * no place to apply it there, so it is refused rather than dropped (the outer clause and the
 * request's settings apply to the whole query).
 */
function refuseNestedSettings(s: SelectStatement): void {
  const refuse = (items: SettingItem[] | undefined) => {
    if (items?.length)
      throw errorAt(
        'UNSUPPORTED',
        `a SETTINGS clause inside a subquery (${items[0]!.name}) is not supported on the general path: set it on the outer query or in the request's settings`,
        items[0]!.value,
      );
  };
  refuse(s.settings);
  for (const q of s.kind === 'union' ? s.selects : [s]) {
    refuse(q.settings);
    for (const w of q.with ?? []) if (w.expr.kind === 'subquery') refuseNestedSettings(w.expr.query);
    for (const t of fromTables(q)) if (t.kind === 'subqueryTable') refuseNestedSettings(t.query);
  }
  walkStatement(s, (e) => {
    if (e.kind === 'subquery') refuseNestedSettings(e.query);
  });
}

function planStatement(s: SelectStatement, ctx: Ctx): SelectStatement {
  if (s.kind === 'union') {
    ctx.notes.push(`${[...new Set(s.ops)].join(', ')}: each branch is planned on its own; the final stage runs the set operation`);
    return { ...s, selects: s.selects.map((q) => planSelect(q, ctx)) };
  }
  return planSelect(s, ctx);
}

function planSelect(q: SelectQuery, outer: Ctx): SelectQuery {
  refuseUnexpanded(q);
  if (q.distinctOn) throw unsupported('SELECT DISTINCT ON', q.distinctOn[0] ?? q);
  const own = recursiveCtes(q).map((w) => w.name);
  const ctx = own.length ? { ...outer, recursive: new Set([...outer.recursive, ...own]) } : outer;
  const t = q.from?.table;
  // Reading a recursive CTE, the SELECT runs where the CTE is evaluated: the distributed tables it reads come whole from the shards.
  const recursive = ctx.recursive.size > 0 && readsTable(q, ctx.recursive);
  if (recursive && own.length) ctx.notes.push(`WITH RECURSIVE ${own.join(', ')}: evaluated by the final stage`);
  if (t?.kind === 'table' && !isConstantTable(t) && !recursive) {
    const bound = lookupTable(ctx.topo, refName(t)) ?? resolveTable(ctx.topo, t);
    return planDistributed(q, t, bound, ctx);
  }
  if (t?.kind === 'tableFunction' && !isConstantTable(t)) throw unsupported(`table function ${t.name}()`, t);
  // Over a subquery, a constant table (computed where it runs) or no table: the inner statements are planned; this SELECT runs in the final stage.
  const out = planFinalSubqueries(q === ctx.top ? planAliasNames(q, ctx) : q, ctx);
  if (out.from) {
    out.from = {
      ...out.from,
      table: planFinalTable(isAggregating(q) ? withoutTotals(out.from.table) : out.from.table, ctx),
      joins: out.from.joins.map((j) => ({ ...j, table: planFinalTable(j.table, ctx) })),
    };
  }
  return out;
}

/** An aggregation over a subquery reads only its rows: ClickHouse drops the subquery's totals, so it need not compute them. */
function withoutTotals(t: TableExpr): TableExpr {
  return t.kind === 'subqueryTable' && t.query.kind === 'select' && t.query.withTotals ? { ...t, query: { ...t.query, withTotals: false } } : t;
}

/** A FROM/JOIN table of a final-stage SELECT: a subquery is planned; a distributed table is read whole (`SELECT *`). */
function planFinalTable(t: TableExpr, ctx: Ctx): TableExpr {
  if (t.kind === 'subqueryTable') return { ...t, query: planStatement(t.query, ctx) };
  if (isConstantTable(t)) return t; // computed by the final stage itself
  if (t.kind === 'table' && t.database === undefined && ctx.recursive.has(t.table)) return t; // evaluated by the final stage
  if (t.kind === 'tableFunction') throw unsupported(`table function ${t.name}()`, t);
  const bound = resolveTable(ctx.topo, t);
  const d = splitName(bound.distributed);
  const all: SelectQuery = {
    kind: 'select',
    distinct: false,
    columns: [{ kind: 'asterisk' }],
    from: { table: { ...t, alias: undefined }, joins: [] },
    withTotals: false,
  };
  if (t.pos) all.pos = t.pos;
  ctx.notes.push(`${bound.distributed} joined in the final stage: its rows are read whole from the shards`);
  return { kind: 'subqueryTable', query: planSelect(all, ctx), alias: t.alias ?? d.table, ...(t.pos ? { pos: t.pos } : {}) };
}

/**
 * Subqueries in the expressions of a final-stage SELECT: those that read a distributed table are
 * planned too. `x IN db.table` reads the table as a set, as ClickHouse does (`SELECT *` of it: one
 * column, or a tuple of all), so it becomes that subquery; an output column it changed keeps the
 * name ClickHouse gives the expression as written (`in(x, db.table)`).
 */
function planFinalSubqueries(q: SelectQuery, ctx: Ctx): SelectQuery {
  const names = outputNames(q);
  const rewrite = (x: Expr): Expr | undefined => {
    if (x.kind === 'function' && isInFamily(x.name) && x.args[1]?.kind === 'column') {
      const b = lookupTable(ctx.topo, x.args[1].parts.join('.'));
      if (b) {
        const set: Expr = { kind: 'subquery', query: planSelect(tableAsSet(x.args[1]), ctx) };
        return { ...x, args: [rewriteExpr(x.args[0]!, rewrite), set, ...x.args.slice(2)] };
      }
    }
    if (x.kind !== 'subquery') return undefined;
    return distributedTables(x.query, ctx.topo).length ? { ...x, query: planStatement(x.query, ctx) } : x;
  };
  const out = mapClausesShared(q, (e) => rewriteExpr(e, rewrite));
  if (out.columns !== q.columns) out.columns = out.columns.map((c, i) => (c === q.columns[i] || c.alias ? c : { ...c, alias: names[i]! }));
  return out;
}

/** `SELECT * FROM db.table`: what ClickHouse reads when a table names an IN's set. */
function tableAsSet(name: Expr & { kind: 'column' }): SelectQuery {
  const table: TableExpr = { kind: 'table', table: name.parts[name.parts.length - 1]! };
  if (name.parts.length === 2) table.database = name.parts[0]!;
  if (name.pos) table.pos = name.pos;
  return { kind: 'select', distinct: false, columns: [{ kind: 'asterisk' }], from: { table, joins: [] }, withTotals: false };
}

/**
 * Two different columns ClickHouse names alike (an unaliased JOIN subquery's `status` beside another table's,
 * `a.k` beside a LEFT or FULL USING join's merged `k`): the final stage names its columns by alias, and one
 * alias cannot name two expressions (ClickHouse's 179 there). In the answer's own SELECT the later one gets a
 * stage name and the runtime gives the answer the client's names back; in a subquery it is refused.
 */
function distinctNames(q: SelectQuery, names: string[], ctx: Ctx, top: boolean): string[] {
  const out = [...names];
  names.forEach((name, i) => {
    const j = names.indexOf(name);
    const [a, b] = [q.columns[j], q.columns[i]];
    if (j >= i || !a || !b || equalExpr(stripAliases(a), stripAliases(b))) return;
    if (!top) throw unsupported(`two different columns both named ${name} in a subquery (the general path's final stage names each column by one alias)`, b);
    out[i] = ctx.stage.renamed(i, name);
    ctx.notes.push(`final stage: ${out[i]} is answered as ${name}, a second column of that name`);
  });
  if (out.some((n, i) => n !== names[i])) ctx.answerNames = names;
  return out;
}

/**
 * A column read through the plan's alias of an unaliased JOIN subquery (expand-columns.ts), which the final stage's
 * engine would name by it (`_joined_subquery_2.k` where ClickHouse says `k`): it is aliased by ClickHouse's name, or
 * where an earlier column has that name by a stage name the runtime gives the client's name back, as for distinctNames.
 */
function planAliasNames(q: SelectQuery, ctx: Ctx): SelectQuery {
  const tables = fromTables(q);
  const quals = new Set(tables.flatMap((t) => (t.kind === 'subqueryTable' && t.planAlias && t.alias !== undefined ? [t.alias] : [])));
  const reads = (c: Expr) => {
    let hit = false;
    walkExpr(c, (x) => {
      if (x.kind === 'column' && x.parts.length > 1 && quals.has(x.parts[0]!)) hit = true;
      return x.kind !== 'subquery';
    });
    return hit;
  };
  if (!quals.size || !q.columns.some((c) => c.alias === undefined && reads(c))) return q;
  const names = outputNames(q);
  // The first column of a name takes that name as its alias; a later one of the same name a stage name
  // (the ClickHouse interface copies the earlier one's name over it, as for distinctNames).
  const columns = q.columns.map((c, i) => {
    if (c.alias !== undefined || !reads(c)) return c;
    return { ...c, alias: names.indexOf(names[i]!) === i ? names[i]! : ctx.stage.renamed(i, names[i]!) };
  });
  if (columns.some((c, i) => c.alias !== undefined && c.alias !== names[i])) ctx.answerNames = names;
  return { ...q, columns };
}

function planDistributed(q: SelectQuery, t: TableExpr & { kind: 'table' }, bound: BoundTable, ctx: Ctx): SelectQuery {
  const d = splitName(bound.distributed);
  const main: MainOf = { bound, naming: { database: d.database, table: d.table, ...(t.alias ? { alias: t.alias } : {}) } };
  const expanded = expandAliases(q);
  const names = distinctNames(expanded, outputNames(q), ctx, q === ctx.top);
  const leafName = `_stage${ctx.leaves.length}`;
  // Reserve the leaf's slot now: subqueries planned below may add leaves of their own.
  const slot = ctx.leaves.push({ name: leafName, query: expanded }) - 1;
  const finalOnly = (e: Expr) => e.kind === 'subquery' && distributedTables(e.query, ctx.topo).length > 0;
  const cut = ctx.noMerge
    ? cutUnmerged(expanded, names, leafName, ctx.noMerge, ctx.stage)
    : isAggregating(expanded)
      ? cutAggregating(expanded, names, leafName, ctx.stage)
      : cutRows(expanded, names, leafName, ctx.stage, finalOnly);
  const shard = leafSubqueries(cut.leaf, main, { topo: ctx.topo, mode: ctx.mode, note: (n) => ctx.notes.push(`${leafName}: ${n}`) });
  const leaf: StageLeaf = { name: leafName, query: shard.query };
  if (shard.local) leaf.distributedProductMode = 'local';
  // Unmerged, a shard's answer is the whole query's: HAVING, LIMIT or arrayJoin may make it any number of rows.
  if (!ctx.noMerge && isAggregating(expanded) && !shard.query.groupBy?.length && !shard.query.groupingSets?.length) leaf.oneRowPerShard = true;
  ctx.leaves[slot] = leaf;
  ctx.notes.push(`${leafName}: each shard runs ${printSelect(shard.query)}`);
  for (const n of cut.notes) ctx.notes.push(`${leafName}: ${n}`);
  return planFinalSubqueries(cut.final, ctx);
}
