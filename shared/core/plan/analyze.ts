// Analysis: which configured Distributed table the query reads, what it may not do, and how a
// plain IN/JOIN against another Distributed table is treated (distributed_product_mode, as in
// ClickHouse: 'deny' refuses because the answer would be wrong; 'global' materializes the right side on the
// coordinator; 'local' reads the right side's shard-local table on each shard).
// Works on a clone: the caller's statement is never changed.
import { refuseUnexpanded } from './expand-columns.js';
import { recursiveCtes } from './recursive-ctes.js';
import {
  cloneAst,
  type ColumnRef,
  type Expr,
  type FunctionCall,
  type JoinClause,
  type SelectQuery,
  type SelectStatement,
  type TableExpr,
  type TableRef,
} from '../sql/ast.js';
import { exprsOfSelect, mapClausesShared, rewriteExpr, SKIP, walkExpr, fromTables } from '../sql/visit.js';
import type { Topology } from '../config/schema.js';
import type { ResolvedTable } from './types.js';
import { errorAt } from './position.js';
import { refuseDangerousFunctions } from './refused-functions.js';
import { refuseWindowFunctions } from './window-check.js';
import { resolveTable, splitName, type BoundTable } from './tables.js';
import type { TableNaming } from './key-ref.js';
import { isColumnOfMain } from './key-ref.js';
import { lookupTable } from './tables.js';
import { expressionNames, inTableRef, resolveInTable } from './in-table.js';
import { isConstantTable } from './constant-tables.js';
import { distributedTables } from './two-stage/reads.js';

export interface MainTable extends BoundTable {
  naming: TableNaming; // how the query names it (for qualified column references)
}

export interface Analysis {
  query: SelectQuery;
  main: MainTable;
  tables: ResolvedTable[];
  keyColumn: string;
  keyType: string;
  /** An alias in the query hides the key column name: no skipping or pruning can be trusted. */
  keyShadowed: boolean;
}

const IN_FAMILY: Record<string, { global: string; plain: string; op: string; globalOp: string }> = {
  in: { global: 'globalIn', plain: 'in', op: 'IN', globalOp: 'GLOBAL IN' },
  notIn: { global: 'globalNotIn', plain: 'notIn', op: 'NOT IN', globalOp: 'GLOBAL NOT IN' },
  globalIn: { global: 'globalIn', plain: 'in', op: 'IN', globalOp: 'GLOBAL IN' },
  globalNotIn: { global: 'globalNotIn', plain: 'notIn', op: 'NOT IN', globalOp: 'GLOBAL NOT IN' },
};
export const isGlobalInName = (n: string): boolean => n === 'globalIn' || n === 'globalNotIn';
export const isInFamily = (n: string): boolean => n in IN_FAMILY;

function makePlain(f: FunctionCall): void {
  const fam = IN_FAMILY[f.name]!;
  f.name = fam.plain;
  if (f.operator) f.operator = fam.op;
}
function makeGlobal(f: FunctionCall): void {
  const fam = IN_FAMILY[f.name]!;
  f.name = fam.global;
  if (f.operator) f.operator = fam.globalOp;
}

const unsupported = (what: string, node?: { pos?: import('../sql/ast.js').Pos }) => errorAt('UNSUPPORTED', `${what} is not supported`, node);

function checkSelectShape(q: SelectQuery, top: boolean, onShard = false): void {
  refuseUnexpanded(q);
  if (q.distinctOn) throw unsupported('SELECT DISTINCT ON', q.distinctOn[0] ?? q);
  // A set each shard's engine runs itself rolls up, groups by sets and fills its own rows there, as a
  // Distributed table's shards do.
  if (!onShard) {
    if (q.groupByModifier) throw unsupported(`GROUP BY ... WITH ${q.groupByModifier}`, q.groupBy?.[0] ?? q);
    if (q.groupingSets) throw unsupported('GROUP BY GROUPING SETS', q.groupingSets.flat()[0] ?? q);
    for (const o of q.orderBy ?? []) if (o.withFill) throw unsupported('ORDER BY ... WITH FILL', o.expr);
  }
  // A subquery's recursive CTE travels with it (the two-stage plan writes one so), and its engine evaluates it.
  const own = top ? [] : recursiveCtes(q);
  for (const w of q.with ?? []) if (w.cte && !own.includes(w)) throw unsupported(`WITH ${w.name} AS (subquery) (a common table expression)`, w.expr);
  if (top && q.from?.table.kind === 'subqueryTable') throw unsupported('a subquery in FROM (read the distributed table directly)', q.from.table);
}

/** Every table a statement reads (FROM/JOIN at any depth, and subqueries in expressions), resolved. */
export function tablesRead(
  stmt: SelectStatement,
  topo: Topology,
  defined: ReadonlySet<string> = expressionNames(stmt),
  ctes: ReadonlySet<string> = new Set(),
  onShard = false,
): { ref: TableRef; bound: BoundTable }[] {
  const out: { ref: TableRef; bound: BoundTable }[] = [];
  const selects = stmt.kind === 'union' ? stmt.selects : [stmt];
  for (const q of selects) {
    checkSelectShape(q, false, onShard);
    const own = recursiveCtes(q);
    const scope = own.length ? new Set([...ctes, ...own.map((w) => w.name)]) : ctes;
    for (const t of fromTables(q)) collectTable(t, topo, out, defined, scope, onShard);
    for (const { expr } of exprsOfSelect(q)) {
      walkExpr(expr, (e) => {
        if (e.kind === 'param') throw unsupported(`query parameter {${e.name}:${e.type}}`, e);
        if (e.kind === 'subquery') out.push(...tablesRead(e.query, topo, defined, scope, onShard));
        if (e.kind === 'function' && isInFamily(e.name) && e.args.length === 2) {
          const ref = inTableRef(e.args[1]!, defined);
          if (ref) out.push({ ref, bound: resolveInTable(topo, ref) });
        }
        return undefined;
      });
    }
  }
  return out;
}

function collectTable(
  t: TableExpr,
  topo: Topology,
  out: { ref: TableRef; bound: BoundTable }[],
  defined: ReadonlySet<string>,
  ctes: ReadonlySet<string>,
  onShard = false,
): void {
  // A constant table reads no configured table: the shards compute it from the SQL (its size: the reach check).
  if (isConstantTable(t)) return;
  if (t.kind === 'table' && t.database === undefined && ctes.has(t.table)) return; // a recursive CTE in scope
  if (t.kind === 'tableFunction') throw unsupported(`table function ${t.name}()`, t);
  if (t.kind === 'subqueryTable') out.push(...tablesRead(t.query, topo, defined, ctes, onShard));
  else out.push({ ref: t, bound: resolveTable(topo, t) });
}

/** distributed_product_mode = 'local': every table the statement reads becomes its shard-local table. */
function localizeStatement(stmt: SelectStatement, topo: Topology): void {
  const selects = stmt.kind === 'union' ? stmt.selects : [stmt];
  for (const q of selects) {
    for (const t of fromTables(q)) localizeTable(t, topo);
    for (const { expr } of exprsOfSelect(q)) {
      walkExpr(expr, (e) => {
        if (e.kind === 'subquery') localizeStatement(e.query, topo);
        else if (e.kind === 'function' && isInFamily(e.name)) localizeInTable(e, topo);
        return undefined;
      });
    }
  }
}

function localizeTable(t: TableExpr, topo: Topology): void {
  if (t.kind === 'subqueryTable') {
    localizeStatement(t.query, topo);
    return;
  }
  if (t.kind !== 'table') return;
  const bound = resolveTable(topo, t);
  const local = splitName(bound.local);
  // Keep `dist.col` references working: the local table is aliased with the name the query used.
  if (!t.alias) t.alias = t.table;
  t.database = local.database;
  t.table = local.table;
}

function localizeInTable(f: FunctionCall, topo: Topology): void {
  const rhs = f.args[1];
  if (rhs?.kind !== 'column' || rhs.parts.length > 2) return;
  const bound = lookupTable(topo, rhs.parts.join('.'));
  if (bound) {
    const l = splitName(bound.local);
    rhs.parts = [l.database, l.table];
  }
}

export type ProductMode = 'deny' | 'local' | 'global';

/**
 * The subqueries the coordinator runs apart, once, before the shards (globals.ts): a GLOBAL IN set and a GLOBAL
 * JOIN's right side over a distributed table (a plain one too under 'global'), and a scalar over one (whatever the
 * mode, as ClickHouse's initiator computes it first). Each is planned by itself, on the path that answers it (a
 * window function or ROLLUP there goes general): no refusal of this statement's path.
 */
function runApart(stmt: SelectStatement, topo: Topology, mode: ProductMode): Set<SelectStatement> {
  const out = new Set<SelectStatement>();
  if (stmt.kind !== 'select') return out;
  const shipped = (sub: SelectStatement, global: boolean) => {
    if ((global || mode === 'global') && distributedTables(sub, topo).length) out.add(sub);
  };
  for (const { expr } of exprsOfSelect(stmt))
    walkExpr(expr, (e, parent) => {
      if (e.kind !== 'subquery') return;
      const set = parent?.kind === 'function' && isInFamily(parent.name) && parent.args[1] === e;
      shipped(e.query, set ? isGlobalInName(parent.name) : true);
    });
  for (const j of stmt.from?.joins ?? []) if (j.table.kind === 'subqueryTable') shipped(j.table.query, !!j.global);
  return out;
}

/**
 * The subqueries each shard runs itself: an IN set, a JOIN's right side or a scalar subquery that reads no distributed table, and under
 * distributed_product_mode = 'local' a plain one over a distributed table, localized to its own rows. Its engine
 * evaluates a window function or ROLLUP there, as a Distributed table's shards do.
 */
function runOnEachShard(stmt: SelectStatement, topo: Topology, mode: ProductMode): Set<SelectStatement> {
  const out = new Set<SelectStatement>();
  if (stmt.kind !== 'select') return out;
  const onShard = (sub: SelectStatement, global: boolean) => {
    const reads = distributedTables(sub, topo).length > 0;
    if (!reads || (mode === 'local' && !global)) out.add(sub);
  };
  for (const { expr } of exprsOfSelect(stmt))
    walkExpr(expr, (e) => {
      if (e.kind === 'function' && isInFamily(e.name) && e.args[1]?.kind === 'subquery') onShard(e.args[1].query, isGlobalInName(e.name));
      // A scalar subquery that reads no table is the same on every shard: each evaluates it (over a table, it runs apart).
      else if (e.kind === 'subquery' && distributedTables(e.query, topo).length === 0) out.add(e.query);
    });
  for (const j of stmt.from?.joins ?? []) if (j.table.kind === 'subqueryTable') onShard(j.table.query, !!j.global);
  return out;
}

/** The configured tables a subquery run apart reads: its shape is for its own planning to judge. */
const readApart = (sub: SelectStatement, topo: Topology): BoundTable[] => distributedTables(sub, topo).map((d) => lookupTable(topo, d)!);

function denyMessage(what: string, table: string): string {
  return (
    `${what} reads the distributed table ${table}: each shard would see only its own part of it, so the answer ` +
    `would be wrong (distributed_product_mode = 'deny'). Write GLOBAL IN / GLOBAL JOIN to ship its rows from the ` +
    `coordinator, or set distributed_product_mode to 'global' or 'local'`
  );
}

export function analyze(stmt: SelectStatement, topo: Topology, mode: ProductMode): Analysis {
  if (stmt.kind === 'union') throw unsupported(stmt.ops[0]!, stmt.selects[1] ?? stmt);
  refuseDangerousFunctions(stmt);
  const apart = runApart(stmt, topo, mode);
  const onShard = runOnEachShard(stmt, topo, mode);
  refuseWindowFunctions(stmt, new Set([...apart, ...onShard]));
  checkSelectShape(stmt, true);
  if (!stmt.from) throw errorAt('UNSUPPORTED', 'a query without FROM reads no distributed table; name one of the configured tables', stmt);
  const from = stmt.from.table;
  if (from.kind === 'tableFunction') throw unsupported(`table function ${from.name}()`, from);
  if (from.kind !== 'table') throw unsupported('a subquery in FROM', from);
  const bound = resolveTable(topo, from);
  const dist = splitName(bound.distributed);
  const main: MainTable = { ...bound, naming: { database: dist.database, table: dist.table, ...(from.alias ? { alias: from.alias } : {}) } };
  const tables = new Map<string, ResolvedTable>([[bound.distributed, { distributed: bound.distributed, local: bound.local }]]);
  const note = (b: BoundTable) => tables.set(b.distributed, { distributed: b.distributed, local: b.local });
  const defined = expressionNames(stmt);

  // The caller's statement is never mutated: changed nodes are copies, untouched subtrees are
  // shared (a full clone of a 1,000-value IN list would cost more than the whole plan budget).
  // IN-family calls decide GLOBAL/local/deny; other subqueries must not read a distributed table.
  const fn = (e: Expr): Expr | typeof SKIP | undefined => {
    if (e.kind === 'param') throw unsupported(`query parameter {${e.name}:${e.type}}`, e);
    if (e.kind === 'subquery') {
      // Validates its shape; one over a distributed table runs once on the coordinator, as ClickHouse's
      // initiator runs scalar subqueries, and its value ships to every shard (globals.ts), its shape its own.
      if (!apart.has(e.query)) tablesRead(e.query, topo, defined, undefined, onShard.has(e.query));
      return SKIP;
    }
    if (e.kind !== 'function' || !isInFamily(e.name) || e.args.length !== 2) return undefined;
    const rhs = e.args[1]!;
    let reads: BoundTable[] = [];
    if (rhs.kind === 'subquery')
      reads = apart.has(rhs.query) ? readApart(rhs.query, topo) : tablesRead(rhs.query, topo, defined, undefined, onShard.has(rhs.query)).map((r) => r.bound);
    else {
      const ref = inTableRef(rhs, defined);
      if (ref) reads = [resolveInTable(topo, ref)];
    }
    reads.forEach(note);
    const lhs = rewriteExpr(e.args[0]!, fn);
    const f: FunctionCall = { ...e, args: [lhs, rhs.kind === 'subquery' || rhs.kind === 'column' ? rhs : rewriteExpr(rhs, fn)] };
    if (reads.length === 0) {
      // A literal set or a table-less subquery: GLOBAL changes nothing; the shard evaluates it itself.
      if (isGlobalInName(f.name)) makePlain(f);
    } else if (!isGlobalInName(f.name)) {
      if (mode === 'deny') throw errorAt('UNSUPPORTED', denyMessage(`${f.name === 'in' ? 'IN' : 'NOT IN'} with a right side that`, reads[0]!.distributed), e);
      if (mode === 'global') makeGlobal(f);
      else if (rhs.kind === 'subquery') {
        const copy = { ...rhs, query: cloneAst(rhs.query) };
        localizeStatement(copy.query, topo);
        f.args[1] = copy;
      } else {
        f.args[1] = { ...(rhs as ColumnRef), parts: [...(rhs as ColumnRef).parts] };
        localizeInTable(f, topo);
      }
    }
    const same = f.name === e.name && f.args[0] === e.args[0] && f.args[1] === e.args[1];
    return same ? e : f;
  };
  const q = mapClausesShared(stmt, (root) => rewriteExpr(root, fn));

  // JOINs: the right side is either table-less (run on the shard), shipped (GLOBAL), or localized.
  if (q.from) q.from.joins = q.from.joins.map((j) => analyzeJoin(j, topo, mode, note, defined, apart, onShard));

  const key = bound.config.shardingKey;
  return {
    query: q,
    main,
    tables: [...tables.values()],
    keyColumn: key.column,
    keyType: key.type,
    keyShadowed: columnIsShadowed(q, key.column, main.naming),
  };
}

function analyzeJoin(
  j: JoinClause,
  topo: Topology,
  mode: ProductMode,
  note: (b: BoundTable) => void,
  defined: ReadonlySet<string>,
  apart: ReadonlySet<SelectStatement>,
  onShard: ReadonlySet<SelectStatement>,
): JoinClause {
  const t = j.table;
  if (t.kind === 'tableFunction' && !isConstantTable(t)) throw unsupported(`table function ${t.name}()`, t);
  const reads =
    t.kind === 'tableFunction' || isConstantTable(t)
      ? []
      : t.kind === 'table'
        ? [resolveTable(topo, t)]
        : apart.has(t.query)
          ? readApart(t.query, topo)
          : tablesRead(t.query, topo, defined, undefined, onShard.has(t.query)).map((r) => r.bound);
  reads.forEach(note);
  // Nothing to ship: every shard computes the same table-less right side.
  if (reads.length === 0) return { ...j, global: false };
  if (j.global) return j;
  if (mode === 'deny') throw errorAt('UNSUPPORTED', denyMessage('JOIN with a right side that', reads[0]!.distributed), j.pos ? j : t);
  if (mode === 'global') return { ...j, global: true };
  const copy = cloneAst(t);
  localizeTable(copy, topo);
  return { ...j, table: copy };
}

/** `SELECT lower(sensor) AS sensor ... WHERE sensor = 'a'`: the WHERE compares the alias, not the column. */
export function columnIsShadowed(q: SelectQuery, key: string, naming: TableNaming): boolean {
  let shadowed = false;
  for (const w of q.with ?? []) if (w.name === key && !isColumnOfMain(w.expr, key, naming)) shadowed = true;
  // A lambda parameter named like the key shadows it only inside the lambda; pruning never enters lambdas.
  // (rewriteExpr as a visitor: no per-node allocation over long IN lists.)
  const visit = (e: Expr): typeof SKIP | undefined => {
    if (e.kind === 'literal') return SKIP;
    if (e.alias === key && !isColumnOfMain({ ...e, alias: undefined } as Expr, key, naming)) shadowed = true;
    return undefined;
  };
  mapClausesShared(q, (root) => rewriteExpr(root, visit));
  return shadowed;
}
