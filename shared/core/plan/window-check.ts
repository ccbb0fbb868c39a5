// The fast path merges partial aggregates in TypeScript and has no window-function evaluator: a
// window function (or a WINDOW or QUALIFY clause) anywhere in the statement is refused here, naming where,
// so the caller can route the query to the two-stage path (docs/architecture.md#two-stage-execution).
import type { SelectStatement } from '../sql/ast.js';
import { walkStatement } from '../sql/visit.js';
import { errorAt } from './position.js';

export function refuseWindowFunctions(stmt: SelectStatement): void {
  walkStatement(
    stmt,
    (e) => {
      if (e.kind === 'function' && e.over) throw errorAt('UNSUPPORTED', `Window functions (OVER) are not supported on the fast path: ${e.name}(...) OVER`, e);
      return undefined;
    },
    { subqueries: true },
  );
  const selects = stmt.kind === 'union' ? stmt.selects : [stmt];
  for (const q of selects) {
    if (q.window?.length) throw errorAt('UNSUPPORTED', `WINDOW clause (window ${q.window[0]!.name}) is not supported on the fast path`, q);
    if (q.qualify) throw errorAt('UNSUPPORTED', 'QUALIFY is not supported on the fast path', q.qualify);
  }
}
