// LIMIT / OFFSET / LIMIT BY must be non-negative. WHY a planner check: recent ClickHouse reads a
// negative LIMIT as "the last n rows" and 18.16 refuses it, while the merge step would treat -1
// as a plain number and answer with no rows at all: a wrong answer with status 200. Refuse it with
// the position of the value instead, before any shard is asked.
import type { Expr, SelectQuery, SelectStatement } from '../sql/ast.js';
import { errorAt } from './position.js';

function isNegative(e: Expr | undefined): boolean {
  if (!e) return false;
  if (e.kind === 'literal') return (e.type === 'integer' || e.type === 'float') && e.value.trim().startsWith('-');
  return e.kind === 'function' && e.name === 'negate';
}

/** A SELECT's LIMIT, OFFSET and LIMIT BY values, each with its name for messages. */
export function limitValues(q: SelectQuery): [string, Expr | undefined][] {
  return [
    ['LIMIT', q.limit?.limit],
    ['OFFSET', q.limit?.offset],
    ['LIMIT BY', q.limitBy?.limit],
    ['LIMIT BY offset', q.limitBy?.offset],
  ];
}

export function refuseNegativeLimits(stmt: SelectStatement): void {
  const selects = stmt.kind === 'union' ? stmt.selects : [stmt];
  for (const q of selects) {
    for (const [what, e] of limitValues(q)) {
      if (isNegative(e)) throw errorAt('UNSUPPORTED', `a negative ${what} is not supported (ch-scatter and ClickHouse 18.16 take only non-negative limits)`, e);
    }
  }
}
