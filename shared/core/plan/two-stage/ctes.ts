// `WITH name AS (SELECT ...)`: a common table expression is its query, written where the name is
// used (FROM, JOIN, `x IN name`), at any depth below its definition, as ClickHouse expands it.
// A use of the name inside a subquery that defines its own CTE of that name sees the inner one.
import type { Expr, SelectQuery, SelectStatement, TableExpr } from '../../sql/ast.js';
import { cloneAst } from '../../sql/ast.js';
import { mapClausesShared, rewriteExpr } from '../../sql/visit.js';

type Ctes = ReadonlyMap<string, SelectStatement>;

export function inlineCtes(stmt: SelectStatement, outer: Ctes = new Map()): SelectStatement {
  if (stmt.kind === 'union') return { ...stmt, selects: stmt.selects.map((q) => inlineSelect(q, outer)) };
  return inlineSelect(stmt, outer);
}

function inlineSelect(q: SelectQuery, outer: Ctes): SelectQuery {
  const ctes = new Map(outer);
  for (const w of q.with ?? []) {
    // A CTE may use the ones defined before it.
    if (w.cte && w.expr.kind === 'subquery') ctes.set(w.name, inlineCtes(w.expr.query, ctes));
  }
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
  const rest = (q.with ?? []).filter((w) => !w.cte);
  if (rest.length) out.with = rest;
  else delete out.with;
  if (q.from) {
    const table = (t: TableExpr): TableExpr => {
      if (t.kind === 'subqueryTable') return { ...t, query: inlineCtes(t.query, ctes) };
      if (t.kind === 'table' && t.database === undefined && ctes.has(t.table)) {
        return { kind: 'subqueryTable', query: cloneAst(ctes.get(t.table)!), alias: t.alias ?? t.table, ...(t.pos ? { pos: t.pos } : {}) };
      }
      return t;
    };
    out.from = { ...out.from!, table: table(out.from!.table), joins: out.from!.joins.map((j) => ({ ...j, table: table(j.table) })) };
  }
  return out;
}
