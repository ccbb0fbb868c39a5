// A constant expression on the other side of the sharding key (`key = toInt32(xxHash32(0))`):
// ClickHouse evaluates it before it picks shards, so force_optimize_skip_unused_shards does not refuse
// it. The planner has no evaluator for such calls: it sends the query to every shard, whose filter
// keeps exactly the rows ClickHouse's chosen shard would.
import type { Expr } from '../sql/ast.js';
import { aggregateName } from '../sql/aggregate-names.js';
import { walkExpr } from '../sql/visit.js';
import { ROW_SENSITIVE } from './row-sensitive.js';

/** No column, subquery, parameter, lambda, aggregate, window or per-row/random function: one value per query. */
export function isConstantOperand(e: Expr): boolean {
  let constant = true;
  walkExpr(e, (x) => {
    if (x.kind === 'column' || x.kind === 'asterisk' || x.kind === 'subquery' || x.kind === 'param' || x.kind === 'lambda') constant = false;
    else if (x.kind === 'function') {
      const name = x.name.toLowerCase();
      if (x.over !== undefined || ROW_SENSITIVE.has(name) || aggregateName(x.name) !== undefined) constant = false;
    }
    return constant;
  });
  return constant;
}
