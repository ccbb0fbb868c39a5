// Before a SELECT is split between the stages, every alias is replaced by what it names, as
// ClickHouse 26's analyzer resolves them (aliases are visible in every clause, and win over columns of
// the same name): `WITH expr AS x` items, `expr AS x` anywhere in the query, and positional GROUP BY /
// ORDER BY / LIMIT BY (`GROUP BY 1` is the first column, ClickHouse 26's default). The result has no
// aliases left (except ARRAY JOIN's, which name new columns), so the stages can alias freely. Aliases
// that lead round to themselves are read in the analyzer's order (aliasResolver).
import { cloneAst, type ColumnRef, type Expr, type SelectQuery, type TableExpr } from '../../sql/ast.js';
import { equalExpr, exprsOfSelect, mapExpr, mapSelectExprs, walkExpr, fromTables } from '../../sql/visit.js';
import { errorAt } from '../position.js';
import { columnName, outputNames } from '../../sql/names.js';
import { constantTableColumns } from '../constant-tables.js';

/** The query with aliases and WITH expressions inlined; CTE items (`name AS (SELECT ...)`) are kept. */
export function expandAliases(q: SelectQuery): SelectQuery {
  const defs = new Map<string, Expr>();
  const arrayJoinNames = new Set((q.from?.arrayJoin?.exprs ?? []).map((e) => e.alias).filter((a): a is string => a !== undefined));
  for (const w of q.with ?? []) if (!w.cte && !defs.has(w.name)) defs.set(w.name, w.expr);
  const withNames = new Set(defs.keys());
  for (const { clause, expr } of exprsOfSelect(q)) {
    // INTERPOLATE names output columns and is read over the rows before, as written (the final stage keeps it).
    if (clause === 'with' || clause === 'arrayJoin' || clause === 'interpolate') continue;
    walkExpr(expr, (e) => {
      if (e.alias !== undefined && !arrayJoinNames.has(e.alias)) {
        const before = defs.get(e.alias);
        if (before === undefined) defs.set(e.alias, e);
        else if (!withNames.has(e.alias)) refuseSecondMeaning(e.alias, before, e);
      }
      return e.kind !== 'lambda';
    });
  }
  const columns = fromColumns(q);
  const resolve = aliasResolver(defs, arrayJoinNames, columns);

  // mapSelectExprs maps the SELECT list first, as the analyzer resolves it first. A position or ORDER
  // BY ALL names the item itself, as the item read (`items`), whatever its alias now reads.
  const items = new Map<string, Expr>();
  const out = mapSelectExprs(q, (e, clause) => {
    if (clause === 'arrayJoin' || clause === 'interpolate') return e;
    const item = e.kind === 'column' && e.selectItem && e.parts.length === 1 ? items.get(e.parts[0]!) : undefined;
    if (item) return cloneAst(item);
    const r = stripAliases(resolve(e));
    if (clause === 'columns' && e.alias !== undefined && !items.has(e.alias)) items.set(e.alias, r);
    return r;
  });
  const cte = (q.with ?? []).filter((w) => w.cte);
  if (cte.length) out.with = cte;
  else delete out.with;

  // Positional arguments refer to the SELECT list (ClickHouse 26: enable_positional_arguments = 1).
  const positional = (e: Expr): Expr => {
    if (e.kind !== 'literal' || e.type !== 'integer' || !/^\d+$/.test(e.value)) return e;
    const n = Number(e.value);
    const col = out.columns[n - 1];
    return n >= 1 && col && col.kind !== 'asterisk' ? col : e;
  };
  if (out.groupBy) out.groupBy = out.groupBy.map(positional);
  if (out.groupingSets) out.groupingSets = out.groupingSets.map((g) => g.map(positional));
  if (out.orderBy) out.orderBy = out.orderBy.map((o) => ({ ...o, expr: positional(o.expr) }));
  if (out.limitBy) out.limitBy = { ...out.limitBy, by: out.limitBy.by.map(positional) };
  return out;
}

const NONE: ReadonlySet<string> = new Set();

/**
 * The names FROM gives, where the plan knows them all: a table's columns where alias-cycles.ts put them on its node, a
 * constant table function's, a subquery's output names; over a JOIN, those of every table; ARRAY JOIN's names.
 */
function fromColumns(q: SelectQuery): ReadonlySet<string> | undefined {
  const from = q.from;
  if (!from) return undefined;
  const out = new Set<string>();
  for (const t of fromTables(q)) {
    const names = tableNames(t);
    if (!names) return undefined;
    for (const n of names) out.add(n);
  }
  // An array joined under its own name is a column already; another expression is named by its alias, or by its text.
  for (const e of from.arrayJoin?.exprs ?? []) out.add(columnName(e));
  return out;
}

function tableNames(t: TableExpr): readonly string[] | undefined {
  if (t.kind === 'table') return t.columns;
  if (t.kind === 'tableFunction') return constantTableColumns(t)?.map((c) => c.name);
  const selects = t.query.kind === 'union' ? t.query.selects : [t.query];
  const names = outputNames(selects[0]!);
  return names.includes('*') ? undefined : names;
}

/**
 * Reads each expression of the query as ClickHouse 26's analyzer does, in the order it is given them:
 * - an expression with an alias is read as written, its alias "being resolved" meanwhile;
 * - a name met while its own alias is being resolved is the table's column of that name;
 * - any other alias is read once, where a reference first meets it, and every later reference reads
 *   that same reading (so `status + 0 AS f, status AS site, site AS status` is 5, 5, 5: `f` read
 *   both aliases over the column `status` first);
 * - an alias that is another name alone (`x AS y`) and cannot be read that way (the name is being
 *   resolved and is no column) is left unread, and the reference reads its own name's column; from
 *   then on that name is the column wherever it is read (the analyzer keeps what a lookup found in the
 *   table), unless the same expression met it being resolved before.
 * `columns` are the table's, where the plan knows them (every table in FROM, a JOIN's included): without them,
 * every name is taken for a column, so a cycle through a name that is none is the engine's 47 where
 * ClickHouse reads the alias's own name instead.
 */
function aliasResolver(defs: ReadonlyMap<string, Expr>, arrayJoinNames: ReadonlySet<string>, columns: ReadonlySet<string> | undefined) {
  const read = new Map<string, Expr>();
  const pinned = new Set<string>();
  let skipped = new Set<string>();
  const column = (name: string, at: Expr): ColumnRef => ({ kind: 'column', parts: [name], ...(at.pos ? { pos: at.pos } : {}) });

  /** What `name` reads: a lambda's parameter, an alias, the table's column; undefined where none. */
  const byName = (name: string, at: Expr, resolving: readonly string[], params: ReadonlySet<string>): Expr | undefined => {
    if (params.has(name) || pinned.has(name)) return column(name, at);
    const aliased = defs.has(name) ? byAlias(name, resolving) : undefined;
    if (aliased) return aliased;
    if (defs.has(name) && !resolving.includes(name) && !skipped.has(name) && (!columns || columns.has(name))) pinned.add(name);
    // Columns unknown, the name is taken for one: where it is none, the engine refuses it (47), never another answer.
    return !columns || columns.has(name) ? column(name, at) : undefined;
  };

  const byAlias = (name: string, resolving: readonly string[]): Expr | undefined => {
    if (resolving.includes(name)) {
      skipped.add(name);
      return undefined;
    }
    const done = read.get(name);
    if (done) return cloneAst(done);
    const def = defs.get(name)!;
    const inner = [...resolving, name];
    let r: Expr | undefined;
    if (def.kind === 'column' && def.parts.length === 1) {
      r = byName(def.parts[0]!, def, inner, NONE);
      if (!r) return undefined; // left unread: a later reference tries again
    } else r = expr({ ...def, alias: undefined } as Expr, inner, NONE);
    read.set(name, r);
    return cloneAst(r);
  };

  const expr = (e: Expr, resolving: readonly string[], params: ReadonlySet<string>): Expr =>
    mapExpr(e, (x) => {
      if (x.alias !== undefined && !arrayJoinNames.has(x.alias)) return expr({ ...x, alias: undefined } as Expr, [...resolving, x.alias], params);
      // A name nothing reads is the engine's to refuse (47): written as the column it names.
      if (x.kind === 'column' && x.parts.length === 1) return byName(x.parts[0]!, x, resolving, params) ?? column(x.parts[0]!, x);
      if (x.kind === 'lambda') return { ...x, params: [...x.params], body: expr(x.body, resolving, new Set([...params, ...x.params])) };
      return undefined;
    });

  return (e: Expr): Expr => {
    skipped = new Set();
    return expr(e, [], NONE);
  };
}

/**
 * ClickHouse refuses one alias given to two different expressions (179). Columns are compared by
 * name alone (`b.x` and `x` may be one column), so only what surely differs is refused.
 */
function refuseSecondMeaning(alias: string, a: Expr, b: Expr): void {
  const byName = (e: Expr) => mapExpr(stripAliases(e), (x) => (x.kind === 'column' ? { kind: 'column', parts: [x.parts[x.parts.length - 1]!] } : undefined));
  if (equalExpr(byName(a), byName(b))) return;
  throw errorAt('QUERY_ERROR', `Multiple expressions for alias ${alias}`, b, { clickhouse: { code: 179, name: 'MULTIPLE_EXPRESSIONS_FOR_ALIAS' } });
}

/** A copy of `e` with no alias on any node (subqueries keep theirs: they are their own scope). */
export function stripAliases(e: Expr): Expr {
  const copy = mapExpr(e, () => undefined);
  walkExpr(copy, (x) => {
    delete x.alias;
    return undefined;
  });
  return copy;
}
