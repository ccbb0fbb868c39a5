// The fast path merges partial aggregates in TypeScript and has no window-function evaluator: a
// window function (or a WINDOW or QUALIFY clause) anywhere in the statement is refused here, naming where,
// so the caller can route the query to the two-stage path (docs/architecture.md#two-stage-execution).
// A subquery the coordinator runs apart (`apart`: a GLOBAL IN set, a GLOBAL JOIN's right side) is planned
// by itself, on whichever path answers it, and one each shard runs itself (a local or table-less IN set) by the
// shard's engine, so a window function there refuses nothing here.
import type { Expr, SelectStatement } from '../sql/ast.js';
import { exprsOfSelect, walkExpr, walkStatement, fromTables } from '../sql/visit.js';
import { errorAt } from './position.js';

export function refuseWindowFunctions(stmt: SelectStatement, apart: ReadonlySet<SelectStatement> = new Set()): void {
  const visit = (e: Expr): boolean | undefined => {
    if (e.kind === 'function' && e.over) throw errorAt('UNSUPPORTED', `Window functions (OVER) are not supported on the fast path: ${e.name}(...) OVER`, e);
    return !(e.kind === 'subquery' && apart.has(e.query));
  };
  const selects = stmt.kind === 'union' ? stmt.selects : [stmt];
  for (const q of selects) {
    for (const { expr } of exprsOfSelect(q)) walkExpr(expr, visit, { subqueries: true });
    for (const t of fromTables(q)) if (t.kind === 'subqueryTable' && !apart.has(t.query)) walkStatement(t.query, visit, { subqueries: true });
  }
  if (stmt.kind === 'union') for (const s of stmt.settings ?? []) walkExpr(s.value, visit, { subqueries: true });
  for (const q of selects) {
    if (q.window?.length) throw errorAt('UNSUPPORTED', `WINDOW clause (window ${q.window[0]!.name}) is not supported on the fast path`, q);
    if (q.qualify) throw errorAt('UNSUPPORTED', 'QUALIFY is not supported on the fast path', q.qualify);
  }
}
