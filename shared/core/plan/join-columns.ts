// Column references resolved as ClickHouse's analyzer resolves them, once the tables' columns are
// known (expand-columns.ts): each reference to one table's column is spelled one way, so `b.label`
// and `label` are the same expression to the planner (one stage column, one GROUP BY key). ClickHouse
// names a column `b.site` (inside expressions too) where another table of the JOIN has a site (over
// one JOIN the left table's columns never: single_join_prefer_left_table), or where an alias of the
// SELECT is called site; else by its name (`upper(label)`).
import type { ColumnRef, Expr, SelectQuery } from '../sql/ast.js';
import { qualifiersOf } from '../sql/names.js';
import { errorAt } from './position.js';
import { stripAliases } from './two-stage/aliases.js';
import { type Clause, equalExpr, exprsOfSelect, mapClausesShared, rewriteExpr, walkExpr, fromTables } from '../sql/visit.js';

const RESOLVED = new Set<Clause>(['distinctOn', 'columns', 'prewhere', 'where', 'groupBy', 'having', 'window', 'qualify', 'orderBy', 'limitBy']);

export interface JoinSource {
  /** How its columns are qualified over a JOIN: the alias, else the table's name (none: an unaliased subquery, alone or over ARRAY JOIN). */
  qualifier?: string;
  /** Every name it may be called by (`b`, or `t` and `db.t`). */
  names: string[];
  /** An aliased table's own name (`t` of `db.t AS b`): `t.c` and `db.t.c` still reach it, and ClickHouse names them `t.c`. */
  table?: string;
  columns: readonly { name: string }[];
  /** An unaliased subquery: its qualifier is only the plan's (expand-columns.ts gives it one), and ClickHouse names its columns unqualified. */
  anonymous?: boolean;
}

/** What decides whether ClickHouse names a JOIN's column with its table's qualifier. */
export interface JoinNaming {
  sources: readonly JoinSource[];
  /** One JOIN (two tables): the left table's columns are never qualified, as ClickHouse's single_join_prefer_left_table has it. */
  single: boolean;
  /** The names the SELECT's aliases give. */
  aliases: ReadonlySet<string>;
}

const holds = (s: JoinSource, c: string) => s.columns.some((x) => x.name === c);

/** Whether ClickHouse names column c of s as `qualifier.c`: another table has a c (past the single JOIN's left table), or an alias is c. */
export function namedQualified({ sources, single, aliases }: JoinNaming, s: JoinSource, c: string): boolean {
  if (s.anonymous || s.qualifier === undefined) return false;
  if (aliases.has(c)) return true;
  if (single && s === sources[0]) return false;
  return sources.some((o) => o !== s && holds(o, c));
}

export function joinNaming(q: SelectQuery, sources: readonly JoinSource[]): JoinNaming {
  const aliases = new Set<string>();
  for (const { expr } of exprsOfSelect(q))
    walkExpr(expr, (e) => {
      if (e.alias !== undefined) aliases.add(e.alias);
    });
  return { sources, single: (q.from?.joins.length ?? 0) === 1, aliases };
}

/**
 * The query with each column reference spelled one way and named as ClickHouse names it. Without the
 * tables' columns, only what needs none: `t.c` in the SELECT list, where an alias of the list is c.
 * As written with ARRAY JOIN (its names are columns of their own).
 */
export function resolveColumns(query: SelectQuery, sources: readonly JoinSource[] | undefined): SelectQuery {
  if (!query.from || query.from.arrayJoin) return query;
  if (!sources) return nameQualified(oneSpelling(byTableQualifier(query, false)));
  const q = byTableQualifier(query, true);
  // A name an alias of this SELECT gives wins over a column of that name: such a column keeps its qualifier.
  const naming = joinNaming(q, sources);
  const { aliases, single } = naming;
  // A USING key written qualified (`a.k`) is that table's column, not the join's merged one (they differ in a
  // RIGHT or FULL JOIN): left as written, named as ClickHouse names it (`k`, or `a.k` from the left of a RIGHT JOIN).
  const keys = new Set(query.from.joins.flatMap((j) => (j.using ?? []).flatMap((k) => (k.kind === 'column' && k.parts.length === 1 ? [k.parts[0]!] : []))));
  const kind = single ? query.from.joins[0]!.type : undefined;
  // The merged key is the left table's own in an INNER or LEFT JOIN: there `a.k` is spelled `k`, one column.
  const leftKeyed = kind === 'INNER' || kind === 'LEFT';
  const holders = (c: string) => sources.filter((s) => holds(s, c));
  const target = (parts: string[]): { s: JoinSource; c: string } | undefined => {
    if (parts.length === 1) {
      const s = holders(parts[0]!)[0];
      return s && { s, c: parts[0]! };
    }
    const [qual, c] = parts.length === 2 ? [parts[0]!, parts[1]!] : parts.length === 3 ? [`${parts[0]}.${parts[1]}`, parts[2]!] : [];
    // The plan's own alias of an unaliased subquery is its qualifier, though no name of the query.
    const s = qual === undefined ? undefined : sources.find((x) => x.names.includes(qual) || qual === x.table || (x.anonymous && x.qualifier === qual));
    return s && c !== undefined && holds(s, c) ? { s, c } : undefined;
  };
  const spell = (written: ColumnRef, scope: ReadonlySet<string>, own: ReadonlySet<string>): ColumnRef | undefined => {
    // A bare name defining its own alias (`site AS site`), or inside the expression that does (`toString(site) AS
    // site`), reads the column: that alias is being resolved there, as ClickHouse's analyzer reads it.
    const selfNamed = written.parts.length === 1 && (written.alias === written.parts[0] || own.has(written.parts[0]!));
    if (written.parts.length === 1 && ((aliases.has(written.parts[0]!) && !selfNamed) || scope.has(written.parts[0]!) || keys.has(written.parts[0]!)))
      return undefined;
    const t = target(written.parts);
    if (!t) return undefined;
    // An aliased table reached by its own name is read by its alias and named by the name written.
    const byTable = written.parts.length === 2 && written.parts[0] === t.s.table;
    const x: ColumnRef = byTable ? { ...written, parts: [t.s.qualifier!, t.c] } : written;
    const shown = byTable ? t.s.table : t.s.qualifier;
    const named = namedQualified(naming, t.s, t.c);
    if (x.parts.length > 1 && keys.has(t.c)) {
      // A key `t.*` gave keeps the name it gave.
      if (x.nameAs !== undefined) return byTable ? x : undefined;
      if (named || (kind === 'RIGHT' && t.s === sources[0])) return { ...x, nameAs: `${shown}.${t.c}` };
      if (leftKeyed && t.s === sources[0])
        return { kind: 'column', parts: [t.c], ...(x.pos ? { pos: x.pos } : {}), ...(x.alias !== undefined ? { alias: x.alias } : {}) };
      return { ...x, nameAs: t.c };
    }
    // A bare name is the left table's over one JOIN, and over more only a name one table has (else ClickHouse's 207).
    const hs = holders(t.c);
    const reaches = single ? hs[0] === t.s : hs.length === 1;
    if (x.parts.length === 1 && !reaches) return undefined;
    const bare = reaches && !aliases.has(t.c);
    if (!bare && t.s.qualifier === undefined) return undefined;
    const out: ColumnRef = { kind: 'column', parts: bare ? [t.c] : [t.s.qualifier!, t.c] };
    if (named) out.nameAs = `${shown}.${t.c}`;
    else if (!bare) out.nameAs = t.c;
    if (x.pos) out.pos = x.pos;
    if (x.alias !== undefined) out.alias = x.alias;
    return out;
  };
  // `own`: the aliases of the expressions around, being resolved while their insides are read.
  const resolve = (e: Expr, scope: ReadonlySet<string>, own: ReadonlySet<string>): Expr =>
    rewriteExpr(e, (x) => {
      if (x.kind === 'subquery') return x;
      if (x.kind === 'column') return spell(x, scope, own) ?? x;
      if (x.kind === 'lambda') return { ...x, body: resolve(x.body, new Set([...scope, ...x.params]), own) };
      if (x.alias !== undefined && !own.has(x.alias)) return resolve(x, scope, new Set([...own, x.alias]));
      return undefined;
    });
  const none = new Set<string>();
  // ON and USING keep their spelling: there a bare name of both tables is ambiguous.
  const out = mapClausesShared(q, (e, clause) => (RESOLVED.has(clause) ? resolve(e, none, none) : e));
  refuseTwoMeanings(out);
  return out;
}

/**
 * `db.t.c` spelled `t.c` (or by t's alias), in every clause, ON included: ClickHouse resolves both,
 * and the shards read another table, or a subquery, under the name or alias alone. With the tables'
 * columns known, a resolved clause keeps `t.c` for `spell` to read by the alias and name as written.
 */
function byTableQualifier(q: SelectQuery, spelled: boolean): SelectQuery {
  const byDbName = new Map<string, { alias: string; table: string }>();
  for (const t of fromTables(q)) if (t.kind === 'table') byDbName.set(`${t.database ?? 'default'}.${t.table}`, { alias: t.alias ?? t.table, table: t.table });
  const fn =
    (byTable: boolean) =>
    (x: Expr): Expr | undefined => {
      if (x.kind === 'subquery') return x;
      if (x.kind !== 'column' || x.parts.length < 3) return undefined;
      const t = byDbName.get(`${x.parts[0]}.${x.parts[1]}`);
      return t === undefined ? undefined : { ...x, parts: [byTable ? t.table : t.alias, ...x.parts.slice(2)] };
    };
  return mapClausesShared(q, (e, clause) => rewriteExpr(e, fn(spelled && RESOLVED.has(clause))));
}

/** ClickHouse refuses one alias given to two different expressions (179); resolved, equal columns are spelled alike. */
function refuseTwoMeanings(q: SelectQuery): void {
  const seen = new Map<string, Expr>();
  for (const { clause, expr } of exprsOfSelect(q)) {
    if (!RESOLVED.has(clause)) continue;
    walkExpr(expr, (e) => {
      if (e.alias === undefined) return e.kind !== 'lambda';
      const before = seen.get(e.alias);
      if (before === undefined) seen.set(e.alias, e);
      else if (!equalExpr(stripAliases(before), stripAliases(e)))
        throw errorAt('QUERY_ERROR', `Multiple expressions for alias ${e.alias}`, e, { clickhouse: { code: 179, name: 'MULTIPLE_EXPRESSIONS_FOR_ALIAS' } });
      return e.kind !== 'lambda';
    });
  }
}

/**
 * One table and no JOIN: `a.c` (or `db.t.c`) is spelled `c` where no alias, WITH name or lambda parameter takes
 * that name, so `a.status` and `status` are one expression to the planner (one stage column), as ClickHouse
 * resolves them (and names them: `status`).
 */
function oneSpelling(q: SelectQuery): SelectQuery {
  if (!q.from || q.from.joins.length) return q;
  const quals = qualifiersOf(q);
  const taken = new Set<string>(quals);
  for (const w of q.with ?? []) taken.add(w.name);
  for (const { expr } of exprsOfSelect(q))
    walkExpr(expr, (e) => {
      if (e.alias !== undefined) taken.add(e.alias);
    });
  const strip = (e: Expr, scope: ReadonlySet<string>): Expr =>
    rewriteExpr(e, (x) => {
      if (x.kind === 'subquery') return x;
      if (x.kind === 'lambda') return { ...x, body: strip(x.body, new Set([...scope, ...x.params])) };
      if (x.kind !== 'column' || (x.parts.length !== 2 && x.parts.length !== 3)) return undefined;
      const c = x.parts[x.parts.length - 1]!;
      if (!quals.has(x.parts.slice(0, -1).join('.')) || taken.has(c) || scope.has(c)) return undefined;
      const { nameAs: _n, ...bare } = x;
      return { ...bare, parts: [c] };
    });
  const none = new Set<string>();
  return mapClausesShared(q, (e, clause) => (RESOLVED.has(clause) ? strip(e, none) : e));
}

function nameQualified(q: SelectQuery): SelectQuery {
  const aliases = new Set(q.columns.map((c) => c.alias).filter((a): a is string => a !== undefined));
  if (!aliases.size) return q;
  const quals = qualifiersOf(q);
  const named = (e: Expr): Expr =>
    rewriteExpr(e, (x) => {
      if (x.kind === 'subquery') return x;
      if (x.kind !== 'column' || x.parts.length < 2 || x.parts.length > 3 || !aliases.has(x.parts[x.parts.length - 1]!)) return undefined;
      // `db.t.c` is named as `t.c`: by the table's name.
      const qual = x.parts.slice(0, -1).join('.');
      return quals.has(qual) ? { ...x, nameAs: x.parts.slice(-2).join('.') } : undefined;
    });
  const columns = q.columns.map(named);
  return columns.every((c, i) => c === q.columns[i]) ? q : { ...q, columns };
}
