// `WITH name AS (SELECT ...)`: a common table expression is its query, written where the name is
// used (FROM, JOIN, `x IN name`), at any depth below its definition, as ClickHouse expands it.
// A use of the name inside a subquery that defines its own CTE of that name sees the inner one.
// A recursive one (`WITH RECURSIVE r AS (... FROM r ...)`) has no query to write in its place: it stays
// defined where a SELECT reads it as its FROM table, and elsewhere is written as the statement
// `WITH RECURSIVE r AS (...) SELECT * FROM r`, so whatever engine reads it evaluates it.
import type { Expr, Pos, SelectQuery, SelectStatement, TableExpr, WithItem } from '../../sql/ast.js';
import { cloneAst } from '../../sql/ast.js';
import { mapClausesShared, rewriteExpr, walkStatement } from '../../sql/visit.js';
import { isRowSensitive } from '../row-sensitive.js';
import { errorAt } from '../position.js';
import { recursiveCtes } from '../recursive-ctes.js';

type Ctes = ReadonlyMap<string, SelectStatement>;

export function inlineCtes(stmt: SelectStatement, outer: Ctes = new Map()): SelectStatement {
  if (stmt.kind === 'union') return { ...stmt, selects: stmt.selects.map((q) => inlineSelect(q, outer)) };
  return inlineSelect(stmt, outer);
}

/** `WITH RECURSIVE name AS (body) SELECT * FROM name`: a recursive CTE as a statement of its own. */
function recursiveStatement(w: WithItem, body: SelectStatement, pos: Pos | undefined): SelectQuery {
  const from: TableExpr = { kind: 'table', table: w.name, ...(pos ? { pos } : {}) };
  return {
    kind: 'select',
    withRecursive: true,
    with: [{ ...w, expr: { ...w.expr, kind: 'subquery', query: body } as Expr }],
    distinct: false,
    columns: [{ kind: 'asterisk' }],
    from: { table: from, joins: [] },
    withTotals: false,
    ...(pos ? { pos } : {}),
  };
}

/**
 * A MATERIALIZED CTE is evaluated once; written where it is read it is evaluated at each reading, which
 * gives the same rows unless a function of it can give others (rand(), rowNumberInBlock(), ...).
 */
function refuseReevaluated(body: SelectStatement, name: string): void {
  walkStatement(
    body,
    (x) => {
      if (x.kind === 'function' && isRowSensitive(x.name))
        throw errorAt('UNSUPPORTED', `${x.name}() in the MATERIALIZED CTE ${name}: it would be evaluated at each reading, not once`, x);
    },
    { subqueries: true },
  );
}

function inlineSelect(q: SelectQuery, outer: Ctes): SelectQuery {
  const ctes = new Map(outer);
  const recursive = new Set(recursiveCtes(q));
  const kept: WithItem[] = [];
  const main = q.from?.table;
  for (const w of q.with ?? []) {
    if (!(w.cte && w.expr.kind === 'subquery')) continue;
    if (recursive.has(w)) {
      // Its body reads itself, never an outer CTE of the same name.
      const scope = new Map(ctes);
      scope.delete(w.name);
      const body = inlineCtes(w.expr.query, scope);
      if (main?.kind === 'table' && main.database === undefined && main.table === w.name) kept.push({ ...w, expr: { ...w.expr, query: body } });
      ctes.set(w.name, recursiveStatement(w, body, w.expr.pos));
      continue;
    }
    if (w.materialized) refuseReevaluated(w.expr.query, w.name);
    // A CTE may use the ones defined before it.
    ctes.set(w.name, inlineCtes(w.expr.query, ctes));
  }
  // The FROM table of this SELECT that names a CTE kept here is read as it is, not written out.
  const keptNames = new Set(kept.map((w) => w.name));
  const out = mapClausesShared(q, (e) =>
    rewriteExpr(e, (x): Expr | undefined => {
      if (x.kind === 'subquery') return { ...x, query: inlineCtes(x.query, ctes) };
      if (x.kind === 'function' && x.args.length === 2 && /^(global)?(not)?in$/i.test(x.name)) {
        const rhs = x.args[1]!;
        if (rhs.kind === 'column' && rhs.parts.length === 1 && ctes.has(rhs.parts[0]!)) {
          const query = cloneAst(ctes.get(rhs.parts[0]!)!);
          return {
            ...x,
            args: [
              rewriteExpr(x.args[0]!, (y) => (y.kind === 'subquery' ? { ...y, query: inlineCtes(y.query, ctes) } : undefined)),
              { kind: 'subquery', query, ...(rhs.pos ? { pos: rhs.pos } : {}) },
            ],
          };
        }
      }
      return undefined;
    }),
  );
  const rest = [...kept, ...(q.with ?? []).filter((w) => !w.cte)];
  if (rest.length) out.with = rest;
  else delete out.with;
  if (!kept.length) delete out.withRecursive;
  if (q.from) {
    const table = (t: TableExpr, isMain = false): TableExpr => {
      if (t.kind === 'subqueryTable') return { ...t, query: inlineCtes(t.query, ctes) };
      if (isMain && t.kind === 'table' && t.database === undefined && keptNames.has(t.table)) return t;
      if (t.kind === 'table' && t.database === undefined && ctes.has(t.table)) {
        return { kind: 'subqueryTable', query: cloneAst(ctes.get(t.table)!), alias: t.alias ?? t.table, ...(t.pos ? { pos: t.pos } : {}) };
      }
      return t;
    };
    out.from = { ...out.from!, table: table(out.from!.table, true), joins: out.from!.joins.map((j) => ({ ...j, table: table(j.table) })) };
  }
  return out;
}
