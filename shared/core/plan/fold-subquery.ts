// Subquery folding: `SELECT site, count() FROM (SELECT * FROM dist WHERE ...) AS virtual_table GROUP BY site`
// (a BI tool's virtual dataset) becomes `SELECT site, count() FROM dist WHERE ... GROUP BY site`, so
// the shards aggregate instead of shipping every row to the final stage. Only a subquery that
// projects, renames and filters one distributed table folds, where the result is the same rows:
// both SELECTs' aliases are resolved first (as ClickHouse resolves them, aliases.ts), the outer
// columns replaced by what the inner SELECT computes, the filters joined with AND (as ClickHouse's
// own predicate push-down joins them), and each output column keeps the name it had.
import type { ColumnRef, Expr, SelectQuery, SelectStatement, TableExpr } from '../sql/ast.js';
import { columnName, outputNames, qualifiersOf } from '../sql/names.js';
import { exprsOfSelect, mapEverySelect, mapExpr, mapSelectExprs, walkExpr } from '../sql/visit.js';
import type { Topology } from '../config/schema.js';
import { expandAliases } from './two-stage/aliases.js';
import { isAggregateCall } from './two-stage/aggregates.js';
import { hasAggregate } from './two-stage/cut-common.js';
import { lookupTable, refName } from './tables.js';
import { isRowSensitive } from './row-sensitive.js';

export interface Folded {
  statement: SelectStatement;
  /** For /explain: each subquery folded, or why it was not. */
  notes: string[];
}

/** Every SELECT of the statement whose FROM is a foldable subquery, folded (innermost first). */
export function foldSubqueries(stmt: SelectStatement, topo: Topology): Folded {
  const notes: string[] = [];
  return { statement: foldStatement(stmt, topo, notes), notes };
}

// Subqueries first, at any depth: an inner virtual dataset folds before its outer one.
const foldStatement = (s: SelectStatement, topo: Topology, notes: string[]): SelectStatement => mapEverySelect(s, (q) => foldSelect(q, topo, notes));

function foldSelect(q: SelectQuery, topo: Topology, notes: string[]): SelectQuery {
  const t = q.from?.table;
  if (t?.kind !== 'subqueryTable') return q;
  const inner = t.query;
  const dist = inner.kind === 'select' && inner.from?.table.kind === 'table' ? lookupTable(topo, refName(inner.from.table)) : undefined;
  if (!dist) return q;
  const why = notFoldable(q, inner as SelectQuery);
  const folded = why === undefined ? fold(q, inner as SelectQuery, t.alias) : undefined;
  if (!folded) {
    notes.push(`subquery over ${dist.distributed} not folded (${why ?? 'its names cannot be kept apart in one SELECT'}): its rows travel to the final stage`);
    return q;
  }
  notes.push(`subquery over ${dist.distributed} folded into the outer SELECT (it only projects and filters): the shards run the outer query`);
  return folded;
}

/** Why the pair cannot fold, or undefined. */
function notFoldable(outer: SelectQuery, inner: SelectQuery): string | undefined {
  const from = inner.from!;
  const table = from.table as TableExpr & { kind: 'table' };
  const checks: [boolean, string][] = [
    [outer.from!.joins.length > 0, 'the outer SELECT has a JOIN'],
    [outer.from!.arrayJoin !== undefined, 'the outer SELECT has ARRAY JOIN'],
    [outer.prewhere !== undefined, 'PREWHERE over a subquery'],
    // INTERPOLATE reads the output columns of the row before, not what they are computed from.
    [outer.interpolate !== undefined, 'INTERPOLATE over a subquery'],
    [from.joins.length > 0, 'it has a JOIN'],
    [from.arrayJoin !== undefined, 'it has ARRAY JOIN'],
    [table.final === true, 'FINAL'],
    [table.sample !== undefined, 'SAMPLE'],
    [inner.distinct || inner.distinctOn !== undefined, 'DISTINCT'],
    [inner.groupBy !== undefined || inner.groupingSets !== undefined || inner.having !== undefined || inner.withTotals, 'GROUP BY'],
    [inner.limit !== undefined, 'LIMIT'],
    [inner.limitBy !== undefined, 'LIMIT BY'],
    [inner.orderBy !== undefined, 'ORDER BY'],
    [inner.window !== undefined, 'a WINDOW clause'],
    [inner.qualify !== undefined, 'QUALIFY'],
    [inner.settings !== undefined || inner.format !== undefined, 'its own SETTINGS'],
    [(inner.with ?? []).some((w) => w.cte), 'a WITH subquery'],
  ];
  for (const [hit, reason] of checks) if (hit) return reason;
  // `min(*)` (as `x > ANY (subquery)` is rewritten) takes the subquery's columns: folded, it would take the table's.
  for (const { expr } of exprsOfSelect(outer)) {
    let starArg = false;
    walkExpr(expr, (x) => {
      if (x.kind === 'function' && x.args.some((a) => a.kind === 'asterisk')) starArg = true;
      return !starArg;
    });
    if (starArg) return 'a * as an argument';
  }
  const stars = inner.columns.filter((c) => c.kind === 'asterisk');
  if (stars.length && inner.columns.length > 1) return '* with other columns';
  // The outer `*` would then need the table's columns, which were spelled out (or not) before the fold.
  const outerStar = outer.columns.some((c) => c.kind === 'asterisk');
  if (stars.length && outerStar && (outer.columns.length > 1 || outer.groupBy !== undefined || outer.columns.some(hasAggregate)))
    return 'its * under an outer * beside other columns';
  // An alias that names a column another expression reads (`site AS status, status AS site`): ClickHouse
  // resolves such chains and cycles its own way, which the fold does not try to reproduce.
  const aliases = new Set(inner.columns.map((c) => c.alias).filter((a): a is string => a !== undefined));
  for (const { clause, expr } of exprsOfSelect(inner)) {
    const own = clause === 'columns' ? expr.alias : undefined;
    let crossed = false;
    walkExpr(expr, (x) => {
      if (x.kind === 'column' && x.parts.length === 1 && aliases.has(x.parts[0]!) && x.parts[0] !== own) crossed = true;
    });
    if (crossed) return 'an alias names a column another of its expressions reads';
  }
  for (const { expr } of exprsOfSelect(inner)) {
    let reason: string | undefined;
    walkExpr(expr, (x) => {
      if (x.kind !== 'function') return reason === undefined;
      if (x.over) reason = 'a window function';
      else if (isAggregateCall(x)) reason = `the aggregate ${x.name}()`;
      else if (isRowSensitive(x.name)) reason = `${x.name}(), whose value depends on the rows around it`;
      return reason === undefined;
    });
    if (reason) return reason;
  }
  return undefined;
}

/** The folded SELECT, or undefined when a name the outer query uses cannot be kept apart from another. */
function fold(outer: SelectQuery, inner: SelectQuery, subAlias: string | undefined): SelectQuery | undefined {
  const innerStar = inner.columns[0]?.kind === 'asterisk';
  const innerNames = innerStar ? [] : outputNames(inner);
  if (new Set(innerNames).size !== innerNames.length) return undefined;
  const innerExpanded = expandAliases(inner);
  const defs = new Map(innerNames.map((n, i) => [n, innerExpanded.columns[i]!]));

  // The outer `*` is the subquery's columns, in order, under their names.
  const ownStar = (c: Expr) => c.kind === 'asterisk' && (!c.table || (c.table.length === 1 && c.table[0] === subAlias));
  if (outer.columns.some((c) => c.kind === 'asterisk' && !ownStar(c))) return undefined;
  const starred: SelectQuery = innerStar
    ? { ...outer, columns: outer.columns.map((c): Expr => (ownStar(c) ? { kind: 'asterisk' } : c)) }
    : { ...outer, columns: outer.columns.flatMap((c) => (ownStar(c) ? innerNames.map((n): Expr => ({ kind: 'column', parts: [n] })) : [c])) };
  const names = outputNames(starred);
  if (names.includes('*') && !innerStar) return undefined;
  const outerExpanded = expandAliases(starred);
  if ((outerExpanded.with ?? []).length) return undefined;

  // Each column of the subquery the outer query names becomes what the subquery computes.
  let unresolved = false;
  const free = (e: Expr): Set<string> => {
    const out = new Set<string>();
    walkExpr(e, (x) => {
      if (x.kind === 'column') out.add(x.parts[0]!);
    });
    return out;
  };
  const substitute = (e: Expr, scope: ReadonlySet<string>): Expr =>
    mapExpr(e, (x) => {
      if (x.kind === 'lambda') return { ...x, params: [...x.params], body: substitute(x.body, new Set([...scope, ...x.params])) };
      if (x.kind !== 'column') return undefined;
      if (x.parts.length === 1 && scope.has(x.parts[0]!)) return undefined;
      const name = x.parts.length === 1 ? x.parts[0]! : x.parts.length === 2 && x.parts[0] === subAlias ? x.parts[1]! : undefined;
      if (name !== undefined && innerStar) return { kind: 'column', parts: [name] };
      const def = name === undefined ? undefined : defs.get(name);
      if (!def) {
        unresolved = true;
        return undefined;
      }
      // A lambda parameter of the outer query must not capture a column of the subquery's expression.
      for (const n of free(def)) if (scope.has(n)) unresolved = true;
      return mapExpr(def, () => undefined);
    });
  const none = new Set<string>();
  const body = mapSelectExprs(outerExpanded, (e) => substitute(e, none));
  if (unresolved) return undefined;

  const table = inner.from!.table;
  const folded: SelectQuery = { ...body, from: { table, joins: [] } };
  if (innerExpanded.prewhere) folded.prewhere = innerExpanded.prewhere;
  const where = [innerExpanded.where, body.where].filter((w): w is Expr => w !== undefined);
  if (where.length === 2) folded.where = { kind: 'function', name: 'and', args: where, operator: 'AND' };
  else if (where.length === 1) folded.where = where[0]!;
  else delete folded.where;
  return keepNames(folded, names);
}

/**
 * Each output column under its old name. A name given as an alias would capture every other
 * reference to a column of that name (aliases win over columns in ClickHouse): those references are
 * qualified with the table's alias, which no alias can capture.
 */
function keepNames(q: SelectQuery, names: string[]): SelectQuery | undefined {
  const aliased = (s: SelectQuery) => {
    const quals = qualifiersOf(s);
    return s.columns.map((c, i) => (names[i] === '*' || columnName(c, { qualifiers: quals }) === names[i] ? undefined : names[i]!));
  };
  let aliases = aliased(q);
  const taken = new Set(aliases.filter((a): a is string => a !== undefined));
  if (taken.size === 0) return q;
  // A name two different columns would carry cannot be one alias.
  const byName = new Map<string, Expr>();
  for (const [i, c] of q.columns.entries()) {
    const n = names[i]!;
    const before = byName.get(n);
    if (before && columnName(before) !== columnName(c)) return undefined;
    byName.set(n, c);
  }
  const clashes = (s: SelectQuery, own: (string | undefined)[]) => {
    let hit = false;
    for (const { clause, expr } of exprsOfSelect(s)) {
      const self = clause === 'columns' ? own[s.columns.indexOf(expr)] : undefined;
      walkExpr(expr, (x) => {
        if (x.kind === 'column' && x.parts.length === 1 && taken.has(x.parts[0]!) && x.parts[0] !== self) hit = true;
        return !hit;
      });
    }
    return hit;
  };
  let out = q;
  if (clashes(q, aliases)) {
    const t = q.from!.table as TableExpr & { kind: 'table' };
    let qualified = false;
    for (const { expr } of exprsOfSelect(q))
      walkExpr(expr, (x) => {
        if (x.kind === 'column' && x.parts.length > 1) qualified = true;
      });
    // Qualified names of the table (`db.t.x`) would stop resolving once the table has an alias.
    if (t.alias === undefined && qualified) return undefined;
    const alias = t.alias ?? t.table;
    const qualify = (e: Expr, self: string | undefined) =>
      mapExpr(e, (x): ColumnRef | undefined =>
        x.kind === 'column' && x.parts.length === 1 && taken.has(x.parts[0]!) && x.parts[0] !== self ? { ...x, parts: [alias, x.parts[0]!] } : undefined,
      );
    out = mapSelectExprs(q, (e, clause) => qualify(e, clause === 'columns' ? aliases[q.columns.indexOf(e)] : undefined));
    out.from = { ...out.from!, table: { ...t, alias } };
    aliases = aliased(out);
    if (clashes(out, aliases)) return undefined;
  }
  return { ...out, columns: out.columns.map((c, i) => (aliases[i] === undefined ? c : { ...c, alias: aliases[i] })) };
}
