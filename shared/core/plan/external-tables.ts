// A client's external data (ClickHouse's temporary tables sent with the query, by name): where the
// statement reads one of the declared names, unqualified, in FROM, JOIN or on the right of IN, the
// table is marked, so the planners treat it as a table every engine holds alike (constant-tables.ts)
// and the reach check lets exactly these names through. `x IN name` becomes `x IN (SELECT * FROM
// name)`, the same set, keeping ClickHouse's column name for it.
import type { Expr, SelectQuery, SelectStatement, TableExpr } from '../sql/ast.js';
import { IN_OPERATOR_NAMES } from '../sql/in-operators.js';
import { formatForName } from '../sql/names.js';
import { mapClausesShared, mapFromTables, rewriteExpr } from '../sql/visit.js';

export function markExternal(stmt: SelectStatement, names: ReadonlySet<string>): SelectStatement {
  if (names.size === 0) return stmt;
  return stmt.kind === 'union' ? { ...stmt, selects: stmt.selects.map((q) => markSelect(q, names)) } : markSelect(stmt, names);
}

function selectAll(table: string): SelectQuery {
  return {
    kind: 'select',
    distinct: false,
    columns: [{ kind: 'asterisk' }],
    from: { table: { kind: 'table', table, external: true }, joins: [] },
    withTotals: false,
  };
}

function markSelect(q: SelectQuery, outer: ReadonlySet<string>): SelectQuery {
  // A WITH name AS (subquery) of the same name hides the external table in its scope, as in ClickHouse.
  const ctes = (q.with ?? []).filter((w) => w.cte).map((w) => w.name);
  const names = ctes.some((n) => outer.has(n)) ? new Set([...outer].filter((n) => !ctes.includes(n))) : outer;
  const table = (t: TableExpr): TableExpr => {
    if (t.kind === 'subqueryTable') return { ...t, query: markExternal(t.query, names) };
    return t.kind === 'table' && t.database === undefined && names.has(t.table) ? { ...t, external: true } : t;
  };
  const out = mapClausesShared(q, (root, clause) => {
    let inRewritten = false;
    const marked = rewriteExpr(root, function fn(x): Expr | undefined {
      if (x.kind === 'subquery') return { ...x, query: markExternal(x.query, names) };
      const rhs = x.kind === 'function' && IN_OPERATOR_NAMES.has(x.name) && x.args.length === 2 ? x.args[1]! : undefined;
      if (x.kind !== 'function' || rhs?.kind !== 'column' || rhs.parts.length !== 1 || !names.has(rhs.parts[0]!)) return undefined;
      const set: Expr = { kind: 'subquery', query: selectAll(rhs.parts[0]!), ...(rhs.pos ? { pos: rhs.pos } : {}) };
      inRewritten = true;
      return { ...x, nameAs: formatForName(x), args: [rewriteExpr(x.args[0]!, fn), set] };
    });
    // The engine names a column from its text: a SELECT item with a rewritten IN keeps the name ClickHouse gives it as written.
    return inRewritten && clause === 'columns' && root.alias === undefined ? { ...marked, alias: formatForName(root) } : marked;
  });
  return mapFromTables(out, table);
}
