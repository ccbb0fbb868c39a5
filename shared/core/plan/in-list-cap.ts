// A hard cap on the values of one IN list. WHY: the request body cap (1 MiB) still admits ~150k
// short values, and every IN list is hashed, pruned per shard and printed into up to N shard
// queries; beyond a point that is memory and CPU on the coordinator for what is really a join.
// A list over the cap is 413 TOO_LARGE at its position (docs/api.md#post-query),
// with the way out: ship the values as a table (GLOBAL IN a subquery) or raise query.maxInListValues.
import type { Expr, SelectStatement } from '../sql/ast.js';
import { walkStatement } from '../sql/visit.js';
import { IN_OPERATOR_NAMES as IN_NAMES } from '../sql/in-operators.js';
import { errorAt } from './position.js';

function listSize(e: Expr): number | undefined {
  if (e.kind === 'tuple' || e.kind === 'array') return e.items.length;
  if (e.kind === 'function' && (e.name === 'tuple' || e.name === 'array') && !e.params) return e.args.length;
  return undefined;
}

export function refuseHugeInLists(stmt: SelectStatement, maxValues: number): void {
  walkStatement(
    stmt,
    (e, parent) => {
      // A list under an IN: counted here, its items need no visit.
      if (parent?.kind === 'function' && IN_NAMES.has(parent.name) && parent.args[1] === e) {
        const n = listSize(e);
        if (n !== undefined) {
          if (n > maxValues) {
            throw errorAt(
              'TOO_LARGE',
              `IN list of ${n} values is over the limit of ${maxValues} (query.maxInListValues); ship large sets as a table instead (GLOBAL IN a subquery)`,
              e.pos ? e : parent,
            );
          }
          return false;
        }
      }
      return undefined;
    },
    { subqueries: true },
  );
}
