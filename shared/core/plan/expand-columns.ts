// What needs a table's columns, spelled out as ClickHouse expands it before planning: `*` and `t.*`
// where the plan must name each column (an aggregating query, `*` beside other columns, a JOIN),
// `COLUMNS('regexp')`, `* EXCEPT (...)`, `* REPLACE (expr AS name)` and `GROUP BY ALL`. The
// columns are a distributed table's ordinary ones, in its DDL's order (what `SELECT *` returns:
// no MATERIALIZED, ALIAS or EPHEMERAL column), read from a shard (shared/core/scatter/table-columns.ts).
import type { Asterisk, ColumnRef, Expr, SelectQuery, SelectStatement, TableExpr } from '../sql/ast.js';
import { outputNames } from '../sql/names.js';
import { mapClausesShared, rewriteExpr, walkExpr } from '../sql/visit.js';
import type { Topology } from '../config/schema.js';
import type { TableColumn } from '../clickhouse/describe-columns.js';
import { errorAt } from './position.js';
import { hasAggregate } from './two-stage/cut-common.js';
import { lookupTable, refName } from './tables.js';
import { type JoinSource, resolveColumns } from './join-columns.js';

/** The ordinary columns of a distributed table (`db.table`), or undefined when they are not known. */
export type ColumnsOf = (distributed: string) => readonly TableColumn[] | undefined;

/** The columns of the request's external data, by table name (plan/external-tables.ts marks where they are read). */
export type ExternalColumns = ReadonlyMap<string, readonly { name: string }[]>;
const NO_EXTERNAL: ExternalColumns = new Map();

/** The distributed tables whose columns the statement needs spelled out (empty: none). */
export function tablesNeedingColumns(stmt: SelectStatement, topo: Topology): string[] {
  const out = new Set<string>();
  forEachSelect(stmt, (q) => {
    if (!needsExpansion(q) && !resolvesJoin(q)) return;
    for (const t of tablesOf(q)) {
      // A `SELECT * FROM t` subquery has t's columns.
      const inner = t.kind === 'subqueryTable' ? starOnly(t.query) : undefined;
      const from = inner?.from?.table ?? t;
      const b = from.kind === 'table' ? lookupTable(topo, refName(from)) : undefined;
      if (b) out.add(b.distributed);
    }
  });
  return [...out];
}

/** The statement with every expansion spelled out where the columns are known; the rest is left as written. */
export function expandColumns(stmt: SelectStatement, topo: Topology, columnsOf: ColumnsOf, external: ExternalColumns = NO_EXTERNAL): SelectStatement {
  if (stmt.kind === 'union') return { ...stmt, selects: stmt.selects.map((q) => expandSelect(q, topo, columnsOf, external)) };
  return expandSelect(stmt, topo, columnsOf, external);
}

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
const isModified = (c: Expr) => c.kind === 'asterisk' && (c.regexp !== undefined || c.except !== undefined || c.replace !== undefined);

/** A JOIN whose column references are spelled one way once its tables' columns are known (join-columns.ts). */
const resolvesJoin = (q: SelectQuery): boolean => (q.from?.joins.length ?? 0) > 0 && !q.from?.arrayJoin;

/** A `*` the plan cannot carry as it is, or a modifier only the columns can resolve. */
function needsExpansion(q: SelectQuery): boolean {
  if (q.columns.some(isModified)) return true;
  if (!q.columns.some((c) => c.kind === 'asterisk')) return false;
  const aggregating = q.groupBy !== undefined || q.groupingSets !== undefined || q.columns.some(hasAggregate);
  return aggregating || q.columns.length > 1 || (q.from?.joins.length ?? 0) > 0;
}

function expandSelect(q0: SelectQuery, topo: Topology, columnsOf: ColumnsOf, external: ExternalColumns): SelectQuery {
  // Subqueries first: each is a scope of its own.
  const sub = (s: SelectStatement) => expandColumns(s, topo, columnsOf, external);
  let q = mapClausesShared(q0, (e) => rewriteExpr(e, (x) => (x.kind === 'subquery' ? { ...x, query: sub(x.query) } : undefined)));
  if (q.from) {
    const inTable = (t: TableExpr): TableExpr => (t.kind === 'subqueryTable' ? { ...t, query: sub(t.query) } : t);
    q = { ...q, from: { ...q.from, table: inTable(q.from.table), joins: q.from.joins.map((j) => ({ ...j, table: inTable(j.table) })) } };
  }
  let columns = q.columns;
  const sources = needsExpansion(q) || resolvesJoin(q) ? sourcesOf(q, topo, columnsOf, external) : undefined;
  if (needsExpansion(q)) {
    if (!sources) return q;
    // Qualified, so no alias of the list captures them: resolveColumns spells and names them as ClickHouse does.
    const qualified = !q.from?.arrayJoin || sources.length > 1;
    columns = q.columns.flatMap((c) => (c.kind === 'asterisk' ? expandAsterisk(c, sources, qualified) : [c]));
  }
  q = resolveColumns(columns === q.columns ? q : { ...q, columns }, sources);
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

/** Each table's columns in FROM order, or undefined when one is not known (the planner then refuses as before). */
function sourcesOf(q: SelectQuery, topo: Topology, columnsOf: ColumnsOf, external: ExternalColumns): Source[] | undefined {
  // A USING join merges its key columns: their place and name in `*` are not spelled out here.
  if (q.from?.joins.some((j) => j.using !== undefined)) return undefined;
  const out: Source[] = [];
  for (const t of tablesOf(q)) {
    if (t.kind === 'subqueryTable') {
      // A subquery's columns are its output names, when it lists them, or its one table's (`SELECT * FROM t`).
      const s = t.query;
      if (t.alias === undefined || s.kind !== 'select') return undefined;
      const star = starOnly(s);
      const inner = star?.from?.table;
      const columns = inner?.kind === 'tableFunction' ? constantColumns(inner) : star ? sourcesOf(star, topo, columnsOf, external)?.[0]?.columns : undefined;
      if (!columns && s.columns.some((c) => c.kind === 'asterisk')) return undefined;
      out.push({ qualifier: t.alias, names: [t.alias], columns: columns ?? outputNames(s).map((name) => ({ name })) });
      continue;
    }
    if (t.kind === 'tableFunction') {
      // Qualified only by an alias here: ClickHouse's name for an unaliased one is not spelled out.
      const columns = constantColumns(t);
      if (!columns || t.alias === undefined) return undefined;
      out.push({ qualifier: t.alias, names: [t.alias], columns });
      continue;
    }
    if (t.kind !== 'table') return undefined;
    const ext = t.external ? external.get(t.table) : undefined;
    if (ext) {
      out.push({ qualifier: t.alias ?? t.table, names: [t.alias ?? t.table], columns: ext });
      continue;
    }
    const b = lookupTable(topo, refName(t));
    const columns = b && columnsOf(b.distributed);
    if (!b || !columns) return undefined;
    const names = t.alias !== undefined ? [t.alias] : [t.table, `${t.database ?? 'default'}.${t.table}`];
    out.push({ qualifier: t.alias ?? t.table, names, columns });
  }
  return out.length ? out : undefined;
}

/** The one column of a constant table function (constant-tables.ts), by function. */
const CONSTANT_COLUMNS: Record<string, string> = { numbers: 'number', numbers_mt: 'number', zeros: 'zero', zeros_mt: 'zero' };

/** A constant table function's columns: the one of numbers() and zeros(), or those values('name Type, ...', ...) declares. */
function constantColumns(t: TableExpr & { kind: 'tableFunction' }): { name: string }[] | undefined {
  const one = CONSTANT_COLUMNS[t.name.toLowerCase()];
  if (one) return [{ name: one }];
  const structure = t.name.toLowerCase() === 'values' && t.args.length > 1 ? t.args[0] : undefined;
  if (structure?.kind !== 'literal' || structure.type !== 'string') return undefined;
  // Split at the commas outside parentheses (`Decimal(10, 2)`); each part is `name Type`.
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  const text = structure.value;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '(') depth++;
    else if (ch === ')') depth--;
    else if (ch === ',' && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  const names = parts.map((p) => /^\s*([A-Za-z_][A-Za-z0-9_]*)\s+\S/.exec(p)?.[1]);
  return names.every((n): n is string => n !== undefined) ? names.map((name) => ({ name })) : undefined;
}

/** `SELECT * FROM <one table>`: the subquery whose columns are its table's. */
function starOnly(s: SelectStatement): SelectQuery | undefined {
  if (s.kind !== 'select' || s.columns.length !== 1 || s.from === undefined || s.from.joins.length || s.from.arrayJoin) return undefined;
  const c = s.columns[0]!;
  return c.kind === 'asterisk' && !c.table && !isModified(c) ? s : undefined;
}

function expandAsterisk(a: Asterisk, sources: Source[], qualified: boolean): Expr[] {
  const qualifier = a.table?.join('.');
  const from = qualifier === undefined ? sources : sources.filter((s) => s.names.includes(qualifier));
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
  const replace = new Map((a.replace ?? []).map((r) => [r.name, r.expr]));
  const out: Expr[] = [];
  for (const s of from)
    for (const c of s.columns) {
      if (except.has(c.name) || (re && !re.test(c.name))) continue;
      const by = replace.get(c.name);
      if (by) out.push({ ...by, alias: c.name } as Expr);
      else if (!qualified) out.push(ref([c.name], a));
      else out.push(ref([s.qualifier, c.name], a));
    }
  // ClickHouse: a matcher that matches nothing leaves an empty SELECT list, which it refuses.
  if (!out.length) throw errorAt('QUERY_ERROR', 'the column matcher matches no column of the table (ClickHouse: empty list of columns in SELECT query)', a);
  return out;
}

/** What reached a planner unexpanded (the columns were not known): refused, never planned as something else. */
export function refuseUnexpanded(q: SelectQuery): void {
  const at = q.columns.find(isModified);
  if (at) throw errorAt('UNSUPPORTED', "COLUMNS(), * EXCEPT and * REPLACE here: the plan does not know the table's columns", at);
  if (q.groupByAll) throw errorAt('UNSUPPORTED', "GROUP BY ALL with *: the plan does not know the table's columns", q);
}

const ref = (parts: string[], at: Asterisk): ColumnRef => (at.pos ? { kind: 'column', parts, pos: at.pos } : { kind: 'column', parts });
