// ClickHouse's `WITH expr AS name` is visible inside the query's subqueries too
// (enable_global_with_statement = 1, its default): `WITH (SELECT ... WHERE TraceId = trace_id) AS x,
// 'abc' AS trace_id SELECT ...`. Subqueries that run on their own (a scalar or GLOBAL subquery runs once,
// a FROM subquery on the shards) must carry the names they use, so every plain WITH item (one holding
// no subquery) is copied into each nested SELECT that reads the name and does not define it itself.
import type { Expr, SelectQuery, SelectStatement, TableExpr, WithItem } from '../sql/ast.js';
import { exprsOfSelect, walkExpr, walkStatement } from '../sql/visit.js';

const holdsSubquery = (e: Expr): boolean => {
  let found = false;
  walkExpr(e, (x) => {
    if (x.kind === 'subquery') found = true;
    return !found;
  });
  return found;
};

function nested(q: SelectQuery): SelectStatement[] {
  const out: SelectStatement[] = [];
  const table = (t: TableExpr) => {
    if (t.kind === 'subqueryTable') out.push(t.query);
  };
  if (q.from) {
    table(q.from.table);
    for (const j of q.from.joins) table(j.table);
  }
  for (const { expr } of exprsOfSelect(q))
    walkExpr(expr, (x) => {
      if (x.kind === 'subquery') out.push(x.query);
      return x.kind !== 'subquery';
    });
  for (const w of q.with ?? []) if (w.cte && w.expr.kind === 'subquery') out.push(w.expr.query);
  return out;
}

/** The single-part names a statement reads, at any depth. */
function namesRead(stmt: SelectStatement): Set<string> {
  const out = new Set<string>();
  walkStatement(
    stmt,
    (x) => {
      if (x.kind === 'column' && x.parts.length === 1) out.add(x.parts[0]!);
    },
    { subqueries: true },
  );
  return out;
}

function propagate(stmt: SelectStatement, inherited: readonly WithItem[]): void {
  const read = inherited.length ? namesRead(stmt) : new Set<string>();
  for (const q of stmt.kind === 'union' ? stmt.selects : [stmt]) {
    const own = new Set((q.with ?? []).map((w) => w.name));
    // Only the names the subquery reads: an unused item could name columns its scope does not have.
    const carried = inherited.filter((w) => !own.has(w.name) && read.has(w.name));
    if (carried.length) q.with = [...carried, ...(q.with ?? [])];
    const scope = (q.with ?? []).filter((w) => !w.cte && !holdsSubquery(w.expr));
    for (const s of nested(q)) propagate(s, scope);
  }
}

/** In place (on the request's own statement): every nested SELECT gets the plain WITH items in its scope. */
export function propagateWith(stmt: SelectStatement): void {
  propagate(stmt, []);
}
