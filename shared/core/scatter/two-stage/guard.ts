// What no path may run, checked on the whole statement before the general path plans it. The fast
// path refuses these as UNSUPPORTED too, but for another reason than "cannot merge it": a query
// that calls file() or getSetting(), or carries an unbound parameter or a LIMIT that is not a
// non-negative integer, must never reach the general path's final stage, which runs the outer
// query's expressions on a shard's engine. The leaves go through the ordinary per-shard pipeline
// as well (tables, table functions, settings); this covers the rest of the statement, subqueries
// in FROM included.
import type { Expr, SelectQuery, SelectStatement } from '../../sql/ast.js';
import { forEachSelect, walkStatement } from '../../sql/visit.js';
import type { Topology } from '../../config/schema.js';
import { errorAt } from '../../plan/position.js';
import { refuseDangerousFunctions } from '../../plan/refused-functions.js';
import { refuseHugeInLists } from '../../plan/in-list-cap.js';
import { limitValues } from '../../plan/limit-check.js';
import { checkNestedSettings } from '../../plan/nested-settings.js';

export function refuseForAnyPath(stmt: SelectStatement, topo: Topology): void {
  refuseDangerousFunctions(stmt);
  refuseHugeInLists(stmt, topo.query.maxInListValues);
  // A subquery's SETTINGS clause passes the fast path's rules too (a file-naming setting never does).
  checkNestedSettings(stmt, topo.query);
  walkStatement(
    stmt,
    (e) => {
      if (e.kind === 'param') throw errorAt('UNSUPPORTED', `query parameter {${e.name}:${e.type}} is not supported`, e);
    },
    { subqueries: true },
  );
  forEachSelect(stmt, checkLimits);
}

/** LIMIT, OFFSET and LIMIT BY: non-negative integer literals (what every engine here takes). */
function checkLimits(q: SelectQuery): void {
  for (const [what, e] of limitValues(q)) {
    if (e && !nonNegativeInteger(e)) throw errorAt('UNSUPPORTED', `${what} must be a non-negative integer literal`, e);
  }
}

function nonNegativeInteger(e: Expr): boolean {
  return e.kind === 'literal' && e.type === 'integer' && !e.value.trim().startsWith('-');
}
