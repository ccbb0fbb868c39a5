// What needs a table's columns, spelled out as ClickHouse expands it before planning: `*` and `t.*`
// where the plan must name each column (an aggregating query, `*` beside other columns, a JOIN),
// `COLUMNS('regexp')`, `COLUMNS(a, b)`, `EXCEPT` / `REPLACE` (STRICT or not) and `APPLY` chains, `GROUP BY ALL` and `ORDER BY ALL`. The
// columns are a distributed table's ordinary ones, in its DDL's order (what `SELECT *` returns:
// no MATERIALIZED, ALIAS or EPHEMERAL column), read from a shard (shared/core/scatter/table-columns.ts);
// a subquery's or a WITH name's are its SELECT list's output names. Aliases that lead round need them too (alias-cycles.ts).
import type { Asterisk, ColumnRef, ColumnTransformer, Expr, FunctionCall, LambdaExpr, SelectQuery, SelectStatement, TableExpr } from '../sql/ast.js';
import { cloneAst } from '../sql/ast.js';
import { outputNames, qualifiersOf } from '../sql/names.js';
import { printExpr, quoteIdent } from '../sql/print.js';
import { exprsOfSelect, forEachSelect, mapExpr, mapNestedStatements, walkExpr, fromTables } from '../sql/visit.js';
import type { Topology } from '../config/schema.js';
import type { TableColumn } from '../clickhouse/describe-columns.js';
import { errorAt } from './position.js';
import { refusalOf } from './refused-functions.js';
import { CONSTANT_TABLE_FUNCTIONS, checkConstantTable, constantTableColumns, isSystemOne } from './constant-tables.js';
import { isFileFormat, isFileSetting } from '../clickhouse/file-names.js';
import { hasAggregate } from './two-stage/cut-common.js';
import { lookupTable, refName } from './tables.js';
import { type JoinSource, namedQualified, resolveColumns } from './join-columns.js';
import { spellOrderByAll } from './order-by-all.js';
import { hasAliasCycle, withCycleColumns } from './alias-cycles.js';

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
  // Every WITH name of the statement (a name defined twice: both read), for a `FROM name` whose `*` feeds the expansion.
  const ctes = new Map<string, SelectStatement[]>();
  forEachSelect(stmt, (q) => {
    for (const [name, s] of cteScope(q, new Map())) ctes.set(name, [...(ctes.get(name) ?? []), s]);
  });
  const seen = new Set<SelectQuery>();
  // A subquery or WITH name whose `*` feeds the expansion is read through to its own tables.
  const through = (s: SelectStatement) => {
    for (const q of s.kind === 'union' ? s.selects : [s]) if (!seen.has(q) && q.columns.some((c) => c.kind === 'asterisk')) add(q);
  };
  const add = (q: SelectQuery) => {
    seen.add(q);
    for (const t of fromTables(q)) {
      const b = t.kind === 'table' ? lookupTable(topo, refName(t)) : undefined;
      if (b) out.add(b.distributed);
      if (t.kind === 'subqueryTable') through(t.query);
      if (t.kind === 'table' && t.database === undefined) for (const s of ctes.get(t.table) ?? []) through(s);
    }
  };
  forEachSelect(stmt, (q) => {
    if (needsExpansion(q) || resolvesJoin(q) || hasAliasCycle(q)) add(q);
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
      for (const t of fromTables(q)) {
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
      for (const t of fromTables(q)) if (t.kind === 'tableFunction') for (const a of t.args) check(a);
    }
  };
  visit(stmt, new Set());
  return known;
}

/** The statement with every expansion spelled out where the columns are known; the rest is left as written. */
export function expandColumns(
  stmt: SelectStatement,
  topo: Topology,
  columnsOf: ColumnsOf,
  external: ExternalColumns = NO_EXTERNAL,
  orderByAll = true,
  ctes: Ctes = new Map(),
): SelectStatement {
  const one = (q: SelectQuery) =>
    withCycleColumns(spellOrderByAllOnce(expandSelect(q, topo, columnsOf, external, orderByAll, ctes), orderByAll), topo, columnsOf, external);
  if (stmt.kind === 'union') return { ...stmt, selects: stmt.selects.map(one) };
  return one(stmt);
}

/** ORDER BY ALL over a list without `*` (spelled out above where the columns were known; else left for the planner to refuse). */
const spellOrderByAllOnce = (q: SelectQuery, on: boolean): SelectQuery =>
  q.orderByAll && (!on || !q.columns.some((c) => c.kind === 'asterisk')) ? spellOrderByAll(q, on) : q;

const isModified = (c: Expr) => c.kind === 'asterisk' && (c.regexp !== undefined || c.list !== undefined || c.transformers !== undefined);

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

function expandSelect(q0: SelectQuery, topo: Topology, columnsOf: ColumnsOf, external: ExternalColumns, orderByAll: boolean, outer: Ctes): SelectQuery {
  const ctes = cteScope(q0, outer);
  // Subqueries first: each is a scope of its own.
  const sub = (s: SelectStatement) => expandColumns(s, topo, columnsOf, external, orderByAll, ctes);
  let q = mapNestedStatements(q0, sub);
  let columns = q.columns;
  const wanted = needsExpansion(q) || resolvesJoin(q);
  const aliased = wanted ? planAliases(q) : q;
  const found = wanted ? sourcesOf(aliased, topo, columnsOf, external, ctes) : undefined;
  if (found) q = aliased;
  if (needsExpansion(q)) {
    if (!found) return q;
    const qualified = !q.from?.arrayJoin || found.tables.length > 1;
    const single = (q.from?.joins.length ?? 0) === 1;
    columns = q.columns.flatMap((c) => (c.kind === 'asterisk' ? expandAsterisk(c, found, qualified, single) : [c]));
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
      .map((c): Expr => (c.alias !== undefined && captured(c) ? { kind: 'column', parts: [c.alias], selectItem: true } : ({ ...c, alias: undefined } as Expr)));
    if (keys.length) out.groupBy = keys;
  }
  return out;
}

type Source = JoinSource;

/** The WITH names in scope (`name AS (SELECT ...)`), each its statement: a `FROM name` reads its columns. */
type Ctes = ReadonlyMap<string, SelectStatement>;

/** The scope without one name: a WITH name's own SELECT does not read it as itself (a recursive one's first SELECT names its columns). */
function outside(ctes: Ctes, name: string): Ctes {
  const out = new Map(ctes);
  out.delete(name);
  return out;
}

/** The outer scope's WITH names with q's own over them. */
function cteScope(q: SelectQuery, outer: Ctes): Ctes {
  const own = (q.with ?? []).filter((w) => w.cte && w.expr.kind === 'subquery');
  if (!own.length) return outer;
  const out = new Map(outer);
  for (const w of own) if (w.expr.kind === 'subquery') out.set(w.name, w.expr.query);
  return out;
}

/** One column of an unqualified `*`: a USING join's merged key (spelled bare), or a table's column. */
type StarColumn = { key: string } | { source: Source; name: string };
const starName = (x: StarColumn) => ('key' in x ? x.key : x.name);

interface Sources {
  tables: Source[];
  /** The key columns of the USING joins: `t.*` names them as ClickHouse does. */
  using: string[];
  /** What `*` holds, in ClickHouse's order. */
  star: StarColumn[];
}

/**
 * Each table's columns in FROM order, or undefined when one is not known (the planner then refuses as before).
 * An unaliased subquery of a JOIN is read through the alias `planAliases` gave it, and named as ClickHouse names it.
 */
function sourcesOf(q: SelectQuery, topo: Topology, columnsOf: ColumnsOf, external: ExternalColumns, ctes: Ctes): Sources | undefined {
  const joins = q.from?.joins ?? [];
  const tables: Source[] = [];
  for (const t of fromTables(q)) {
    if (t.kind === 'subqueryTable') {
      // A subquery's columns are its output names (its own `*` read through to its tables).
      const names = outputColumnsOf(t.query, topo, columnsOf, external, ctes);
      if (!names) return undefined;
      const columns = names.map((name) => ({ name }));
      if (t.alias === undefined) tables.push({ names: [], columns });
      else if (t.planAlias) tables.push({ qualifier: t.alias, names: [], columns, anonymous: true });
      else tables.push({ qualifier: t.alias, names: [t.alias], columns });
      continue;
    }
    if (t.kind === 'tableFunction') {
      // Qualified only by an alias here: ClickHouse's name for an unaliased one is not spelled out.
      const columns = constantTableColumns(t);
      if (!columns || t.alias === undefined) return undefined;
      tables.push({ qualifier: t.alias, names: [t.alias], columns });
      continue;
    }
    if (t.kind !== 'table') return undefined;
    const ext = t.external ? external.get(t.table) : undefined;
    // A WITH name's columns are its SELECT list's output names.
    const cte = !t.external && t.database === undefined ? ctes.get(t.table) : undefined;
    const own = ext ?? (cte && outputColumnsOf(cte, topo, columnsOf, external, outside(ctes, t.table))?.map((name) => ({ name })));
    if (own) {
      tables.push({ qualifier: t.alias ?? t.table, names: [t.alias ?? t.table], columns: own });
      continue;
    }
    if (cte) return undefined;
    const b = lookupTable(topo, refName(t));
    const columns = b && columnsOf(b.distributed);
    if (!b || !columns) return undefined;
    if (t.alias !== undefined) tables.push({ qualifier: t.alias, names: [t.alias], columns, ...(t.alias !== t.table ? { table: t.table } : {}) });
    else tables.push({ qualifier: t.table, names: [t.table, `${t.database ?? 'default'}.${t.table}`], columns });
  }
  if (!tables.length) return undefined;
  // Over a JOIN every column must be reachable by a qualifier.
  if (joins.length && tables.some((s) => s.qualifier === undefined)) return undefined;
  // ClickHouse's analyzer, join by join from the left: a USING join's keys once, first, then the left
  // side's other columns, then the right side's (a key's name drops every column of that name).
  let star: StarColumn[] = tables[0]!.columns.map((c) => ({ source: tables[0]!, name: c.name }));
  const using: string[] = [];
  for (const [i, j] of joins.entries()) {
    const right: StarColumn[] = tables[i + 1]!.columns.map((c) => ({ source: tables[i + 1]!, name: c.name }));
    const keys: string[] = [];
    for (const k of j.using ?? []) {
      if (k.kind !== 'column' || k.parts.length !== 1 || k.alias !== undefined) return undefined;
      keys.push(k.parts[0]!);
    }
    star = [...keys.map((key) => ({ key })), ...[...star, ...right].filter((x) => !keys.includes(starName(x)))];
    using.push(...keys);
  }
  // A key spelled bare must mean the merged column: no other column of `*` may share its name.
  for (const k of using) if (star.filter((x) => starName(x) === k).length > 1) return undefined;
  return { tables, using, star };
}

/** Every unaliased subquery of a JOIN given an alias of the plan's (marked so: ClickHouse's 206 still applies), so its columns can be qualified. */
function planAliases(q: SelectQuery): SelectQuery {
  const from = q.from;
  if (!from?.joins.length) return q;
  const taken = qualifiersOf(q);
  let n = 0;
  const fresh = () => {
    let name: string;
    do name = `_joined_subquery_${++n}`;
    while (taken.has(name));
    return name;
  };
  const named = (t: TableExpr): TableExpr => (t.kind === 'subqueryTable' && t.alias === undefined ? { ...t, alias: fresh(), planAlias: true } : t);
  const table = named(from.table);
  const joins = from.joins.map((j) => {
    const t = named(j.table);
    return t === j.table ? j : { ...j, table: t };
  });
  return table === from.table && joins.every((j, i) => j === from.joins[i]) ? q : { ...q, from: { ...from, table, joins } };
}

/** The output column names of a statement (its first SELECT's), `*` spelled out; undefined when a table's columns are not known. */
function outputColumnsOf(s: SelectStatement, topo: Topology, columnsOf: ColumnsOf, external: ExternalColumns, ctes: Ctes): string[] | undefined {
  const q = s.kind === 'union' ? s.selects[0]! : s;
  if (!q.columns.some((c) => c.kind === 'asterisk')) return outputNames(q);
  // `SELECT * FROM numbers(3)`: a constant table function's columns, alias or not.
  const only = starOnly(q)?.from?.table;
  if (only?.kind === 'tableFunction') return constantTableColumns(only)?.map((c) => c.name);
  const aliased = planAliases(q);
  const found = sourcesOf(aliased, topo, columnsOf, external, cteScope(q, ctes));
  if (!found) return undefined;
  const expanded = q.columns.flatMap((c) => (c.kind === 'asterisk' ? expandAsterisk(c, found, true, (q.from?.joins.length ?? 0) === 1) : [c]));
  return outputNames(resolveColumns({ ...aliased, columns: expanded }, found.tables));
}

/** `SELECT * FROM <one table>`: the subquery whose columns are its table's. */
function starOnly(s: SelectStatement): SelectQuery | undefined {
  if (s.kind !== 'select' || s.columns.length !== 1 || s.from === undefined || s.from.joins.length || s.from.arrayJoin) return undefined;
  const c = s.columns[0]!;
  return c.kind === 'asterisk' && !c.table && !isModified(c) ? s : undefined;
}

/** A column as a matcher found it: `name` is its own name while no transformer has changed it (what EXCEPT / REPLACE match). */
interface Matched {
  expr: Expr;
  name?: string;
}

/** `qualified`: each column as `t.c`, so no alias of the list captures it; resolveColumns spells and names them as ClickHouse does. */
function expandAsterisk(a: Asterisk, { tables, using, star }: Sources, qualified: boolean, single: boolean): Expr[] {
  const qualifier = a.table?.join('.');
  const from = qualifier === undefined ? tables : tables.filter((s) => s.names.includes(qualifier));
  if (!from.length) throw errorAt('QUERY_ERROR', `${qualifier}.* names no table of this SELECT`, a);
  let re: RegExp | undefined;
  if (a.regexp !== undefined) re = matcherRegexp(a.regexp, a);
  const out: Matched[] = [];
  // ClickHouse's analyzer: `*` over a USING join holds each key once, first, as the join's merged column.
  const merged = qualifier === undefined ? using : [];
  // Named here for a later EXCEPT / REPLACE of the chain (resolveColumns names it the same).
  const naming = { sources: tables, single, aliases: new Set<string>() };
  const column = (s: Source, c: string): Expr => {
    if (!qualified || s.qualifier === undefined) return ref([c], a);
    const named = namedQualified(naming, s, c);
    // `a.*` names a's USING key k by the rule of any column (`k` from the left of one JOIN), which stays a's (in a RIGHT or FULL JOIN not the merged key).
    if (named || using.includes(c) || s.anonymous) return { ...ref([s.qualifier, c], a), nameAs: named ? `${s.qualifier}.${c}` : c };
    return ref([s.qualifier, c], a);
  };
  const keep = (name: string) => !re || re.test(name);
  if (a.list) {
    // `COLUMNS(a, t.b)`: each a column of the tables in scope, in the list's order.
    for (const c of a.list) {
      const name = c.parts[c.parts.length - 1]!;
      if (c.parts.length === 1 && merged.includes(name)) {
        out.push({ expr: ref([name], a), name });
        continue;
      }
      const within = c.parts.length > 1 ? from.filter((s) => s.names.includes(c.parts.slice(0, -1).join('.'))) : from;
      const s = within.find((t) => t.columns.some((x) => x.name === name));
      if (!s)
        throw errorAt('QUERY_ERROR', `Unknown identifier '${c.parts.join('.')}' inside COLUMNS matcher`, c, {
          clickhouse: { code: 47, name: 'UNKNOWN_IDENTIFIER' },
        });
      out.push({ expr: column(s, name), name });
    }
  } else if (qualifier === undefined) {
    for (const x of star) {
      const name = 'key' in x ? x.key : x.name;
      if (keep(name)) out.push({ expr: 'key' in x ? ref([x.key], a) : column(x.source, x.name), name });
    }
  } else {
    for (const s of from) for (const c of s.columns) if (keep(c.name)) out.push({ expr: column(s, c.name), name: c.name });
  }
  const transformed = transform(out, a.transformers ?? [], a, qualified ? (e) => tableColumns(e, tables, merged) : (e) => e);
  // ClickHouse: a matcher that matches nothing leaves an empty SELECT list, which it refuses.
  if (!transformed.length)
    throw errorAt('QUERY_ERROR', 'Empty list of columns in projection: the column matcher and its transformers leave no column', a, {
      clickhouse: { code: 51, name: 'EMPTY_LIST_OF_COLUMNS_QUERIED' },
    });
  return transformed;
}

function matcherRegexp(source: string, at: Asterisk): RegExp {
  try {
    return new RegExp(source, 'u');
  } catch (e) {
    throw errorAt('QUERY_ERROR', `COLUMNS('${source}'): ${(e as Error).message}`, at);
  }
}

/**
 * The chain, step by step as ClickHouse's analyzer applies it to each column: EXCEPT leaves out and
 * REPLACE computes instead the columns it names, matching a column only while no step before changed
 * it (after `APPLY(f)` or a REPLACE, no name matches: `* REPLACE (a + 1 AS a) EXCEPT (a)` keeps a);
 * APPLY wraps each column. A STRICT step whose names do not all match is ClickHouse's 36.
 */
/**
 * A REPLACE's expression as ClickHouse resolves it, in the matcher's scope: its names are the tables'
 * columns, never an alias of the SELECT list, so each one a single table has is qualified (named as
 * written). Written out bare, `status` in `REPLACE (status AS value, 7 AS status)` would read the alias.
 */
function tableColumns(e: Expr, tables: readonly Source[], merged: readonly string[], bound: ReadonlySet<string> = new Set()): Expr {
  return mapExpr(e, (x) => {
    if (x.kind === 'lambda') return { ...x, params: [...x.params], body: tableColumns(x.body, tables, merged, new Set([...bound, ...x.params])) };
    if (x.kind !== 'column' || x.parts.length !== 1) return undefined;
    const name = x.parts[0]!;
    if (bound.has(name) || merged.includes(name)) return undefined;
    const owners = tables.filter((t) => t.columns.some((c) => c.name === name));
    const q = owners.length === 1 ? owners[0]!.qualifier : undefined;
    return q === undefined ? undefined : { ...x, parts: [q, name], nameAs: x.nameAs ?? name };
  });
}

function transform(columns: Matched[], steps: ColumnTransformer[], at: Asterisk, inScope: (e: Expr) => Expr): Expr[] {
  let out = columns;
  for (const step of steps) {
    if (step.kind === 'except') {
      const names = new Set(step.names);
      const re = step.pattern !== undefined ? matcherRegexp(step.pattern, at) : undefined;
      const used = new Set<string>();
      out = out.filter((c) => {
        if (c.name === undefined || !(re ? re.test(c.name) : names.has(c.name))) return true;
        used.add(c.name);
        return false;
      });
      if (step.strict && !re)
        checkStrict('EXCEPT', step.names, used, step.names.length === 1 ? quoteIdent(step.names[0]!) : `(${step.names.map(quoteIdent).join(', ')})`, at);
    } else if (step.kind === 'replace') {
      const by = replacements(step.items, at);
      const used = new Set<string>();
      out = out.map((c) => {
        const r = c.name === undefined ? undefined : by.get(c.name);
        if (!r) return c;
        used.add(c.name!);
        return { expr: { ...inScope(cloneAst(r)), alias: c.name } as Expr };
      });
      const names = step.items.map((r) => r.name);
      if (step.strict) checkStrict('REPLACE', names, used, `(${step.items.map((r) => `${printExpr(r.expr)} AS ${quoteIdent(r.name)}`).join(', ')})`, at);
    } else out = out.map((c) => ({ expr: applied(step.fn, c.expr, at) }));
  }
  return out.map((c) => c.expr);
}

/** ClickHouse's check of a STRICT EXCEPT / REPLACE: each name it lists matched a column (36, the names that did not). */
function checkStrict(word: 'EXCEPT' | 'REPLACE', names: string[], used: ReadonlySet<string>, spelled: string, at: Asterisk): void {
  if (names.length === used.size) return;
  const missing = names.filter((n) => !used.has(n));
  throw errorAt('QUERY_ERROR', `Strict ${word} column transformer ${word} ${spelled} expects following column(s) : ${missing.join(', ')}`, at, {
    clickhouse: { code: 36, name: 'BAD_ARGUMENTS' },
  });
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
