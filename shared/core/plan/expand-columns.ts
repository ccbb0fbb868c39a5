// What needs a table's columns, spelled out as ClickHouse expands it before planning: `*` and `t.*`
// where the plan must name each column (an aggregating query, `*` beside other columns, a JOIN),
// `COLUMNS('regexp')`, `* EXCEPT (...)`, `* REPLACE (expr AS name)`, `* APPLY(f)` chains, `GROUP BY ALL` and `ORDER BY ALL`. The
// columns are a distributed table's ordinary ones, in its DDL's order (what `SELECT *` returns:
// no MATERIALIZED, ALIAS or EPHEMERAL column), read from a shard (shared/core/scatter/table-columns.ts).
import type { Asterisk, ColumnRef, ColumnTransformer, Expr, FunctionCall, LambdaExpr, SelectQuery, SelectStatement, TableExpr } from '../sql/ast.js';
import { cloneAst } from '../sql/ast.js';
import { columnName, outputNames } from '../sql/names.js';
import { exprsOfSelect, mapClausesShared, mapExpr, rewriteExpr, walkExpr } from '../sql/visit.js';
import type { Topology } from '../config/schema.js';
import type { TableColumn } from '../clickhouse/describe-columns.js';
import { errorAt } from './position.js';
import { refusalOf } from './refused-functions.js';
import { splitTopLevel } from '../clickhouse/split-list.js';
import { CONSTANT_TABLE_FUNCTIONS, checkConstantTable } from './constant-tables.js';
import { isFileFormat, isFileSetting } from '../clickhouse/file-names.js';
import { hasAggregate } from './two-stage/cut-common.js';
import { lookupTable, refName } from './tables.js';
import { type JoinSource, resolveColumns } from './join-columns.js';
import { spellOrderByAll } from './order-by-all.js';

/** The ordinary columns of a distributed table (`db.table`), or undefined when they are not known. */
export type ColumnsOf = (distributed: string) => readonly TableColumn[] | undefined;

/** The columns of the request's external data, by table name (plan/external-tables.ts marks where they are read). */
export type ExternalColumns = ReadonlyMap<string, readonly { name: string }[]>;
const NO_EXTERNAL: ExternalColumns = new Map();

/** The distributed tables whose columns the statement needs spelled out (empty: none). */
export function tablesNeedingColumns(stmt: SelectStatement, topo: Topology): string[] {
  // No shard is asked anything for a statement the planner will refuse for the tables it names.
  if (!plannable(stmt, topo)) return [];
  const out = new Set<string>();
  // A subquery whose `*` feeds the expansion is read through to its own tables.
  const add = (q: SelectQuery) => {
    for (const t of tablesOf(q)) {
      const b = t.kind === 'table' ? lookupTable(topo, refName(t)) : undefined;
      if (b) out.add(b.distributed);
      if (t.kind === 'subqueryTable')
        for (const s of t.query.kind === 'union' ? t.query.selects : [t.query]) if (s.columns.some((c) => c.kind === 'asterisk')) add(s);
    }
  };
  forEachSelect(stmt, (q) => {
    if (needsExpansion(q) || resolvesJoin(q)) add(q);
  });
  return [...out];
}

/**
 * Whether every table the statement names, at any depth, is a configured one, a WITH name, the request's
 * external data, system.one or a constant table within its cap, and it calls no refused function and names no
 * file: else the planner refuses it as it stands (the one reach check, on the SQL it would send).
 */
function plannable(stmt: SelectStatement, topo: Topology): boolean {
  let known = true;
  const visit = (s: SelectStatement, outer: ReadonlySet<string>) => {
    for (const q of s.kind === 'union' ? s.selects : [s]) {
      const bound = new Set([...outer, ...(q.with ?? []).filter((w) => w.cte).map((w) => w.name)]);
      if (q.format !== undefined && isFileFormat(q.format)) known = false;
      if ((q.settings ?? []).some((x) => isFileSetting(x.name))) known = false;
      for (const t of tablesOf(q)) {
        if (t.kind === 'subqueryTable') visit(t.query, bound);
        else if (t.kind === 'tableFunction') {
          if (!CONSTANT_TABLE_FUNCTIONS.has(t.name.toLowerCase())) known = false;
          else
            try {
              checkConstantTable(t, q);
            } catch {
              known = false;
            }
        } else if (t.kind === 'table' && !t.external && !(t.database === undefined && bound.has(t.table)))
          if (!isSystemOne(t) && !lookupTable(topo, refName(t))) known = false;
      }
      const check = (expr: Expr) =>
        walkExpr(expr, (x) => {
          if (x.kind === 'subquery') visit(x.query, bound);
          else if (x.kind === 'function' && refusalOf(x.name)) known = false;
        });
      for (const { expr } of exprsOfSelect(q)) check(expr);
      // A constant table function's arguments are SQL too (exprsOfSelect leaves them out).
      for (const t of tablesOf(q)) if (t.kind === 'tableFunction') for (const a of t.args) check(a);
    }
  };
  visit(stmt, new Set());
  return known;
}

const isSystemOne = (t: { database?: string; table: string }) => t.database?.toLowerCase() === 'system' && t.table.toLowerCase() === 'one';

/** The statement with every expansion spelled out where the columns are known; the rest is left as written. */
export function expandColumns(
  stmt: SelectStatement,
  topo: Topology,
  columnsOf: ColumnsOf,
  external: ExternalColumns = NO_EXTERNAL,
  orderByAll = true,
): SelectStatement {
  const one = (q: SelectQuery) => spellOrderByAllOnce(expandSelect(q, topo, columnsOf, external, orderByAll), orderByAll);
  if (stmt.kind === 'union') return { ...stmt, selects: stmt.selects.map(one) };
  return one(stmt);
}

/** ORDER BY ALL over a list without `*` (spelled out above where the columns were known; else left for the planner to refuse). */
const spellOrderByAllOnce = (q: SelectQuery, on: boolean): SelectQuery =>
  q.orderByAll && (!on || !q.columns.some((c) => c.kind === 'asterisk')) ? spellOrderByAll(q, on) : q;

function forEachSelect(s: SelectStatement, fn: (q: SelectQuery) => void): void {
  for (const q of s.kind === 'union' ? s.selects : [s]) {
    fn(q);
    for (const t of tablesOf(q)) if (t.kind === 'subqueryTable') forEachSelect(t.query, fn);
    for (const w of q.with ?? []) if (w.expr.kind === 'subquery') forEachSelect(w.expr.query, fn);
    walkExprs(q, (e) => {
      if (e.kind === 'subquery') forEachSelect(e.query, fn);
    });
  }
}

function walkExprs(q: SelectQuery, fn: (e: Expr) => void): void {
  const all = [...q.columns, ...(q.where ? [q.where] : []), ...(q.prewhere ? [q.prewhere] : []), ...(q.having ? [q.having] : [])];
  for (const e of all) walkExpr(e, (x) => void fn(x));
}

const tablesOf = (q: SelectQuery): TableExpr[] => (q.from ? [q.from.table, ...q.from.joins.map((j) => j.table)] : []);
const isModified = (c: Expr) =>
  c.kind === 'asterisk' && (c.regexp !== undefined || c.except !== undefined || c.replace !== undefined || c.transformers !== undefined);

/** A JOIN whose column references are spelled one way once its tables' columns are known (join-columns.ts). */
const resolvesJoin = (q: SelectQuery): boolean => (q.from?.joins.length ?? 0) > 0 && !q.from?.arrayJoin;

/** A `*` the plan cannot carry as it is, or a modifier only the columns can resolve. */
function needsExpansion(q: SelectQuery): boolean {
  if (q.columns.some(isModified)) return true;
  if (!q.columns.some((c) => c.kind === 'asterisk')) return false;
  if (q.orderByAll) return true;
  const aggregating = q.groupBy !== undefined || q.groupingSets !== undefined || q.columns.some(hasAggregate);
  return aggregating || q.columns.length > 1 || (q.from?.joins.length ?? 0) > 0;
}

function expandSelect(q0: SelectQuery, topo: Topology, columnsOf: ColumnsOf, external: ExternalColumns, orderByAll: boolean): SelectQuery {
  // Subqueries first: each is a scope of its own.
  const sub = (s: SelectStatement) => expandColumns(s, topo, columnsOf, external, orderByAll);
  let q = mapClausesShared(q0, (e) => rewriteExpr(e, (x) => (x.kind === 'subquery' ? { ...x, query: sub(x.query) } : undefined)));
  if (q.from) {
    const inTable = (t: TableExpr): TableExpr => (t.kind === 'subqueryTable' ? { ...t, query: sub(t.query) } : t);
    q = { ...q, from: { ...q.from, table: inTable(q.from.table), joins: q.from.joins.map((j) => ({ ...j, table: inTable(j.table) })) } };
  }
  let columns = q.columns;
  const found = needsExpansion(q) || resolvesJoin(q) ? sourcesOf(q, topo, columnsOf, external) : undefined;
  if (needsExpansion(q)) {
    if (!found) return q;
    const qualified = !q.from?.arrayJoin || found.tables.length > 1;
    columns = q.columns.flatMap((c) => (c.kind === 'asterisk' ? expandAsterisk(c, found, qualified) : [c]));
  }
  q = resolveColumns(columns === q.columns ? q : { ...q, columns }, found?.tables);
  columns = q.columns;
  // GROUP BY ALL needs the columns only when the SELECT list has a `*` to spell out first.
  if (q.groupByAll && columns.some((c) => c.kind === 'asterisk')) return q;
  if (columns === q.columns && !q.groupByAll) return q;
  const out: SelectQuery = { ...q, columns };
  if (q.groupByAll) {
    delete out.groupByAll;
    // ClickHouse groups by every SELECT expression that holds no aggregate.
    // A key that reads a column an alias of the list names (`v % 3 AS v`) is written as its alias, the
    // same node: written out, the alias would capture its column and group by `(v % 3) % 3`.
    const aliases = new Set(columns.map((c) => c.alias).filter((a): a is string => a !== undefined));
    const captured = (c: Expr) => {
      let hit = false;
      walkExpr(c, (x) => {
        if (x.kind === 'column' && x.parts.length === 1 && aliases.has(x.parts[0]!)) hit = true;
      });
      return hit;
    };
    const keys = columns
      .filter((c) => !hasAggregate(c))
      .map((c): Expr => (c.alias !== undefined && captured(c) ? { kind: 'column', parts: [c.alias] } : ({ ...c, alias: undefined } as Expr)));
    if (keys.length) out.groupBy = keys;
  }
  return out;
}

type Source = JoinSource;

interface Sources {
  tables: Source[];
  /** The key columns of a USING join: `*` holds each once, first, unqualified. */
  using: string[];
}

/** Each table's columns in FROM order, or undefined when one is not known (the planner then refuses as before). */
function sourcesOf(q: SelectQuery, topo: Topology, columnsOf: ColumnsOf, external: ExternalColumns): Sources | undefined {
  const joins = q.from?.joins ?? [];
  const usingJoin = joins.find((j) => j.using !== undefined);
  // A USING join is spelled out over two tables only: past that ClickHouse's names of the merged keys are its own.
  if (usingJoin && joins.length > 1) return undefined;
  const using: string[] = [];
  for (const k of usingJoin?.using ?? []) {
    if (k.kind !== 'column' || k.parts.length !== 1 || k.alias !== undefined) return undefined;
    using.push(k.parts[0]!);
  }
  const tables: Source[] = [];
  for (const t of tablesOf(q)) {
    if (t.kind === 'subqueryTable') {
      // A subquery's columns are its output names (its own `*` read through to its tables).
      const names = outputColumnsOf(t.query, topo, columnsOf, external);
      // Over an ON join its columns are qualified, so it needs a name.
      if (!names || (t.alias === undefined && !usingJoin)) return undefined;
      const columns = names.map((name) => ({ name }));
      tables.push(t.alias !== undefined ? { qualifier: t.alias, names: [t.alias], columns } : { names: [], columns });
      continue;
    }
    if (t.kind === 'tableFunction') {
      // Qualified only by an alias here: ClickHouse's name for an unaliased one is not spelled out.
      const columns = constantColumns(t);
      if (!columns || t.alias === undefined) return undefined;
      tables.push({ qualifier: t.alias, names: [t.alias], columns });
      continue;
    }
    if (t.kind !== 'table') return undefined;
    const ext = t.external ? external.get(t.table) : undefined;
    if (ext) {
      tables.push({ qualifier: t.alias ?? t.table, names: [t.alias ?? t.table], columns: ext });
      continue;
    }
    const b = lookupTable(topo, refName(t));
    const columns = b && columnsOf(b.distributed);
    if (!b || !columns) return undefined;
    const names = t.alias !== undefined ? [t.alias] : [t.table, `${t.database ?? 'default'}.${t.table}`];
    tables.push({ qualifier: t.alias ?? t.table, names, columns });
  }
  if (!tables.length) return undefined;
  // An unaliased subquery's column that another table has too could not be told apart.
  for (const s of tables)
    if (s.qualifier === undefined && s.columns.some((c) => !using.includes(c.name) && tables.some((o) => o !== s && o.columns.some((x) => x.name === c.name))))
      return undefined;
  return { tables, using };
}

/** The output column names of a statement (its first SELECT's), `*` spelled out; undefined when a table's columns are not known. */
function outputColumnsOf(s: SelectStatement, topo: Topology, columnsOf: ColumnsOf, external: ExternalColumns): string[] | undefined {
  const q = s.kind === 'union' ? s.selects[0]! : s;
  if (!q.columns.some((c) => c.kind === 'asterisk')) return outputNames(q);
  // `SELECT * FROM numbers(3)`: a constant table function's columns, alias or not.
  const only = starOnly(q)?.from?.table;
  if (only?.kind === 'tableFunction') return constantColumns(only)?.map((c) => c.name);
  const found = sourcesOf(q, topo, columnsOf, external);
  if (!found) return undefined;
  const expanded = q.columns.flatMap((c) => (c.kind === 'asterisk' ? expandAsterisk(c, found, true) : [c]));
  return outputNames(resolveColumns({ ...q, columns: expanded }, found.tables));
}

/** The one column of a constant table function (constant-tables.ts), by function. */
const CONSTANT_COLUMNS: Record<string, string> = { numbers: 'number', numbers_mt: 'number', zeros: 'zero', zeros_mt: 'zero' };

/** A constant table function's columns: the one of numbers() and zeros(), or those values('name Type, ...', ...) declares. */
function constantColumns(t: TableExpr & { kind: 'tableFunction' }): { name: string }[] | undefined {
  const one = CONSTANT_COLUMNS[t.name.toLowerCase()];
  if (one) return [{ name: one }];
  const structure = t.name.toLowerCase() === 'values' && t.args.length > 1 ? t.args[0] : undefined;
  if (structure?.kind !== 'literal' || structure.type !== 'string') return undefined;
  // Each top-level part is `name Type` (`Decimal(10, 2)` keeps its comma).
  const parts = splitTopLevel(structure.value);
  if (!parts) return undefined;
  const names = parts.map((p) => /^\s*([A-Za-z_][A-Za-z0-9_]*)\s+\S/.exec(p)?.[1]);
  return names.every((n): n is string => n !== undefined) ? names.map((name) => ({ name })) : undefined;
}

/** `SELECT * FROM <one table>`: the subquery whose columns are its table's. */
function starOnly(s: SelectStatement): SelectQuery | undefined {
  if (s.kind !== 'select' || s.columns.length !== 1 || s.from === undefined || s.from.joins.length || s.from.arrayJoin) return undefined;
  const c = s.columns[0]!;
  return c.kind === 'asterisk' && !c.table && !isModified(c) ? s : undefined;
}

/** `qualified`: each column as `t.c`, so no alias of the list captures it; resolveColumns spells and names them as ClickHouse does. */
function expandAsterisk(a: Asterisk, { tables, using }: Sources, qualified: boolean): Expr[] {
  const qualifier = a.table?.join('.');
  const from = qualifier === undefined ? tables : tables.filter((s) => s.names.includes(qualifier));
  if (!from.length) throw errorAt('QUERY_ERROR', `${qualifier}.* names no table of this SELECT`, a);
  let re: RegExp | undefined;
  if (a.regexp !== undefined) {
    try {
      re = new RegExp(a.regexp, 'u');
    } catch (e) {
      throw errorAt('QUERY_ERROR', `COLUMNS('${a.regexp}'): ${(e as Error).message}`, a);
    }
  }
  const except = new Set(a.except ?? []);
  const replace = replacements(a.replace ?? [], a);
  const out: Expr[] = [];
  const push = (name: string, column: () => Expr) => {
    if (except.has(name) || (re && !re.test(name))) return;
    const by = replace.get(name);
    out.push(by ? ({ ...by, alias: name } as Expr) : column());
  };
  // ClickHouse's analyzer: `*` over a USING join holds each key once, first, as the join's merged column.
  const merged = qualifier === undefined ? using : [];
  for (const k of merged) push(k, () => ref([k], a));
  for (const s of from)
    for (const c of s.columns) {
      if (merged.includes(c.name)) continue;
      push(c.name, () => {
        if (!qualified || s.qualifier === undefined) return ref([c.name], a);
        // Named here for a later EXCEPT / REPLACE of the chain (resolveColumns names it the same):
        // ClickHouse names a column with its qualifier where an earlier table of the JOIN has that name too.
        const shared = qualifier !== undefined && tables.slice(0, tables.indexOf(s)).some((o) => o.columns.some((x) => x.name === c.name));
        if (shared) return { ...ref([s.qualifier, c.name], a), nameAs: `${s.qualifier}.${c.name}` };
        // `a.*` names a's USING key k, which stays `a.k` (in a RIGHT or FULL JOIN not the merged key).
        return using.includes(c.name) ? { ...ref([s.qualifier, c.name], a), nameAs: c.name } : ref([s.qualifier, c.name], a);
      });
    }
  const transformed = a.transformers ? transform(out, a.transformers, a) : out;
  // ClickHouse: a matcher that matches nothing leaves an empty SELECT list, which it refuses.
  if (!transformed.length)
    throw errorAt('QUERY_ERROR', 'the column matcher matches no column of the table (ClickHouse: empty list of columns in SELECT query)', a);
  return transformed;
}

/** The name ClickHouse gives a spelled-out column: its alias, else its own (a column's last part where qualified by a JOIN's `*`). */
const nameOf = (e: Expr): string => e.alias ?? columnName(e);

/**
 * The chain after the first EXCEPT / REPLACE, step by step as ClickHouse applies it: APPLY wraps each
 * column (its name is then the call's, `sum(plus(a, 1))`: an alias REPLACE gave is dropped), and a
 * later EXCEPT / REPLACE matches the names the steps before gave (`EXCEPT a` after `APPLY(sum)` matches none).
 */
function transform(columns: Expr[], steps: ColumnTransformer[], at: Asterisk): Expr[] {
  let out = columns;
  for (const step of steps) {
    if (step.kind === 'except') {
      const names = new Set(step.names);
      out = out.filter((c) => !names.has(nameOf(c)));
    } else if (step.kind === 'replace') {
      const by = replacements(step.items, at);
      out = out.map((c) => {
        const name = nameOf(c);
        const r = by.get(name);
        return r ? ({ ...cloneAst(r), alias: name } as Expr) : c;
      });
    } else out = out.map((c) => applied(step.fn, c, at));
  }
  return out;
}

/** A REPLACE's expressions by name; a name twice is ClickHouse's 43. */
function replacements(items: { name: string; expr: Expr }[], at: Asterisk): Map<string, Expr> {
  const by = new Map<string, Expr>();
  for (const r of items) {
    if (by.has(r.name))
      throw errorAt('QUERY_ERROR', `Expressions in column transformer replace should not contain same replacement ${r.name} more than once`, at, {
        clickhouse: { code: 43, name: 'ILLEGAL_TYPE_OF_ARGUMENT' },
      });
    by.set(r.name, r.expr);
  }
  return by;
}

function withoutAlias(e: Expr): Expr {
  if (e.alias === undefined) return e;
  const { alias: _alias, ...bare } = e;
  return bare as Expr;
}

/**
 * `fn` applied to one column: the call with the column as its argument (a REPLACE's alias dropped:
 * `sum(plus(a, 1))`), or the lambda's body with its parameter bound to the column as it is, alias
 * kept, as ClickHouse names it (`round(divide(a, 3))` over `a * 10 AS a`).
 */
function applied(fn: FunctionCall | LambdaExpr, column: Expr, at: Asterisk): Expr {
  if (fn.kind === 'function') {
    const call: FunctionCall = { kind: 'function', name: fn.name, args: [withoutAlias(column)], ...(at.pos ? { pos: at.pos } : {}) };
    if (fn.params) call.params = fn.params.map((p) => cloneAst(p));
    return call;
  }
  const param = fn.params[0]!;
  return mapExpr(fn.body, (e) => (e.kind === 'column' && e.parts.length === 1 && e.parts[0] === param ? cloneAst(column) : undefined));
}

/** What reached a planner unexpanded (the columns were not known): refused, never planned as something else. */
export function refuseUnexpanded(q: SelectQuery): void {
  const at = q.columns.find(isModified);
  if (at) throw errorAt('UNSUPPORTED', "COLUMNS(), * EXCEPT, * REPLACE and * APPLY here: the plan does not know the table's columns", at);
  if (q.groupByAll) throw errorAt('UNSUPPORTED', "GROUP BY ALL with *: the plan does not know the table's columns", q);
  if (q.orderByAll) throw errorAt('UNSUPPORTED', "ORDER BY ALL with *: the plan does not know the table's columns", q);
}

const ref = (parts: string[], at: Asterisk): ColumnRef => (at.pos ? { kind: 'column', parts, pos: at.pos } : { kind: 'column', parts });
