// additional_table_filters = {'table': 'filter', ...}: ClickHouse filters the rows it reads from each
// table a key names (its alias, its name, or `db.table`) before anything else of the query sees them.
// Over a distributed table that filter reaches the shards with the query, so here, before either path
// plans, each such table in FROM or JOIN, at any depth, gets it: first in the WHERE of a SELECT that
// reads the table alone, else as `(SELECT * FROM table WHERE filter) AS name` (a JOIN's table, a name
// of the SELECT that would capture the filter's column). The filter's text is then SQL of the
// statement like any other (the reach check, the refused functions).
import type { SettingValue } from '../clickhouse/port.js';
import type { Topology } from '../config/schema.js';
import type { Expr, SelectQuery, SelectStatement, SettingItem, TableExpr, TableRef } from '../sql/ast.js';
import { cloneAst } from '../sql/ast.js';
import { parseExpression, parseSelect } from '../sql/parse.js';
import { forEachStatement, walkExpr, mapFromTables } from '../sql/visit.js';
import { errorAt } from './position.js';
import { lookupTable, refName } from './tables.js';

export const TABLE_FILTERS_SETTING = 'additional_table_filters';
/** additional_result_filter = 'filter': ClickHouse filters the query's result rows by their column names. */
export const RESULT_FILTER_SETTING = 'additional_result_filter';

/** The map a setting value spells (a `{...}` literal in SETTINGS, or its text from the request), as key -> filter text. */
export function tableFiltersOf(value: Expr | SettingValue): Map<string, string> {
  const expr = typeof value === 'object' ? value : mapFromText(String(value));
  const out = new Map<string, string>();
  const isMap = expr.kind === 'function' && expr.name === 'map' && expr.args.length % 2 === 0;
  const args = isMap ? expr.args : [];
  if (!isMap || !args.every((a) => a.kind === 'literal' && a.type === 'string'))
    throw errorAt('BAD_REQUEST', `setting ${TABLE_FILTERS_SETTING} takes a map of string keys and values: {'table': 'filter', ...}`, expr);
  for (let i = 0; i < args.length; i += 2) out.set((args[i] as { value: string }).value, (args[i + 1] as { value: string }).value);
  return out;
}

function mapFromText(text: string): Expr {
  const stmt = parseSelect(`SELECT 1 SETTINGS ${TABLE_FILTERS_SETTING} = ${text}`);
  return (stmt as SelectQuery).settings![0]!.value;
}

/** The filters the statement's SETTINGS clause or, without one, the request asks for; undefined when none. */
function requestedFilters(stmt: SelectStatement, request: Record<string, SettingValue> | undefined): Map<string, Expr> | undefined {
  const item: SettingItem | undefined = stmt.settings?.find((s) => s.name === TABLE_FILTERS_SETTING);
  const asked = item ? tableFiltersOf(item.value) : request?.[TABLE_FILTERS_SETTING] !== undefined ? tableFiltersOf(request[TABLE_FILTERS_SETTING]) : undefined;
  if (!asked?.size) return undefined;
  const out = new Map<string, Expr>();
  for (const [key, text] of asked) {
    try {
      out.set(key, parseExpression(text));
    } catch (e) {
      throw errorAt('SYNTAX_ERROR', `${TABLE_FILTERS_SETTING} for '${key}': ${(e as Error).message}`, item?.value);
    }
  }
  return out;
}

/** The statement with every distributed table a filter's key names read through that filter (in place on its FROM clauses). */
export function withTableFilters(stmt: SelectStatement, request: Record<string, SettingValue> | undefined, topo: Topology): SelectStatement {
  const filters = requestedFilters(stmt, request);
  if (!filters) return stmt;
  // The SELECTs made here read the table itself: they are not filtered again.
  const seen = new Set<SelectQuery>();
  const filterOf = (t: TableRef): Expr | undefined => {
    const bound = lookupTable(topo, refName(t));
    if (!bound) return undefined;
    const keys = [t.alias, t.table, refName(t), bound.distributed];
    return keys.map((k) => (k === undefined ? undefined : filters.get(k))).find((f) => f !== undefined);
  };
  const filtered = (t: TableExpr): TableExpr => {
    const filter = t.kind === 'table' ? filterOf(t) : undefined;
    if (t.kind !== 'table' || !filter) return t;
    const { alias, pos, ...read } = t as TableRef;
    const inner: SelectQuery = {
      kind: 'select',
      distinct: false,
      withTotals: false,
      columns: [{ kind: 'asterisk' }],
      from: { table: { ...read }, joins: [] },
      where: cloneAst(filter),
    };
    seen.add(inner);
    return { kind: 'subqueryTable', query: inner, alias: alias ?? t.table, ...(pos ? { pos } : {}) };
  };
  forEachStatement(stmt, (s) => {
    for (const q of s.kind === 'union' ? s.selects : [s]) {
      if (!q.from || seen.has(q)) continue;
      seen.add(q);
      // One table read by itself: the filter goes first in its WHERE, unless a name of the SELECT
      // would capture a column the filter reads; else the table is read through the filter.
      const own = q.from.table.kind === 'table' && q.from.joins.length === 0 && !q.from.arrayJoin ? filterOf(q.from.table) : undefined;
      if (own && !captures(q, own)) q.where = q.where ? { kind: 'function', name: 'and', args: [cloneAst(own), q.where], operator: 'AND' } : cloneAst(own);
      else q.from = mapFromTables(q, filtered).from;
    }
  });
  return stmt;
}

/** Does an alias of the SELECT (its list or WITH) name a column the filter reads? */
function captures(q: SelectQuery, filter: Expr): boolean {
  const names = new Set<string>();
  for (const c of q.columns) if (c.alias !== undefined) names.add(c.alias);
  for (const w of q.with ?? []) names.add(w.name);
  let hit = false;
  walkExpr(filter, (e) => {
    if (e.kind === 'column' && names.has(e.parts[0]!)) hit = true;
    return !hit;
  });
  return hit;
}

/** The result filter's expression, from a setting value (the text); a filter that does not parse is a syntax error. */
export function resultFilterOf(value: Expr | SettingValue): Expr | undefined {
  const text = typeof value === 'object' ? (value.kind === 'literal' && value.type === 'string' ? value.value : undefined) : String(value);
  if (text === undefined) throw errorAt('BAD_REQUEST', `setting ${RESULT_FILTER_SETTING} takes a string: the filter`, value as Expr);
  if (text.trim() === '') return undefined;
  try {
    return parseExpression(text);
  } catch (e) {
    throw errorAt('SYNTAX_ERROR', `${RESULT_FILTER_SETTING}: ${(e as Error).message}`, typeof value === 'object' ? value : undefined);
  }
}

/**
 * The statement with additional_result_filter applied where ClickHouse applies it, to the rows of its
 * result: `SELECT * FROM (statement) WHERE filter`, the filter reading the result's column names
 * (the session's fold takes it into the statement where that keeps its meaning).
 */
export function withResultFilter(stmt: SelectStatement, request: Record<string, SettingValue> | undefined): SelectStatement {
  const item = stmt.settings?.find((s) => s.name === RESULT_FILTER_SETTING);
  const asked = item ? item.value : request?.[RESULT_FILTER_SETTING];
  const filter = asked === undefined ? undefined : resultFilterOf(asked);
  if (!filter) return stmt;
  const inner: SelectStatement = { ...stmt };
  delete inner.settings;
  delete inner.format;
  const out: SelectQuery = {
    kind: 'select',
    distinct: false,
    withTotals: false,
    columns: [{ kind: 'asterisk' }],
    from: { table: { kind: 'subqueryTable', query: inner }, joins: [] },
    where: filter,
  };
  if (stmt.settings) out.settings = stmt.settings;
  if (stmt.format !== undefined) out.format = stmt.format;
  return out;
}
