// ClickHouse (26.x analyzer) names an unaliased subquery `_subquery_N`, N counting every subquery of the
// statement (scalar, IN, FROM and JOIN; aliased ones too) in the order the analyzer resolves them,
// each before the subqueries inside it: per SELECT, its FROM and JOIN tables, then the SELECT list
// left to right, then PREWHERE, WHERE, GROUP BY, HAVING, ORDER BY and LIMIT BY; a WITH expression
// where it is first used (approximated here: after the clauses). Measured on chdb:
// test/integration/sql/column-names.test.ts.
import type { Expr, SelectQuery, SelectStatement, TableExpr } from './ast.js';
import { childrenOf } from './visit.js';

/** Sets `ordinal` on every SubqueryExpr of `stmt` (in place; call on a statement of one's own). */
export function numberSubqueries(stmt: SelectStatement): void {
  let n = 0;
  const statement = (s: SelectStatement) => {
    for (const q of s.kind === 'union' ? s.selects : [s]) select(q);
  };
  const expr = (root: Expr) => {
    const stack: Expr[] = [root];
    while (stack.length) {
      const e = stack.pop()!;
      if (e.kind === 'subquery') {
        e.ordinal = ++n;
        statement(e.query);
        continue;
      }
      // ClickHouse's analyzer counts two for an EXISTS subquery (measured: `EXISTS (SELECT 1), (SELECT 3)` names the second `_subquery_3`).
      if (e.kind === 'function' && e.name === 'exists' && e.args[0]?.kind === 'subquery') n++;
      const kids = childrenOf(e);
      for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i]!);
    }
  };
  const table = (t: TableExpr) => {
    if (t.kind === 'subqueryTable') {
      n++;
      statement(t.query);
    } else if (t.kind === 'tableFunction') for (const a of t.args) expr(a);
  };
  const select = (q: SelectQuery) => {
    // A parenthesized chain is not a subquery to ClickHouse: its SELECTs number on.
    if (q.parenthesized && q.from?.table.kind === 'subqueryTable') return statement(q.from.table.query);
    if (q.from) {
      table(q.from.table);
      for (const j of q.from.joins) table(j.table);
      for (const e of q.from.arrayJoin?.exprs ?? []) expr(e);
      for (const j of q.from.joins) for (const e of j.on ? [j.on] : (j.using ?? [])) expr(e);
    }
    for (const c of q.columns) expr(c);
    for (const e of [q.prewhere, q.where]) if (e) expr(e);
    for (const e of q.groupBy ?? []) expr(e);
    for (const set of q.groupingSets ?? []) for (const e of set) expr(e);
    if (q.having) expr(q.having);
    for (const o of q.orderBy ?? []) expr(o.expr);
    for (const e of q.limitBy?.by ?? []) expr(e);
    for (const w of q.with ?? []) if (!w.cte) expr(w.expr);
  };
  statement(stmt);
}
