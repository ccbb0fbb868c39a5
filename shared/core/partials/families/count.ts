// count(), count(x), countIf(...): each shard's count, summed. UInt64 like ClickHouse.
import type { Expr, FunctionCall } from '../../sql/ast.js';
import type { AggregateImpl } from './family.js';
import { aggCall } from './family.js';
import type { Value } from '../values.js';

export function countFamily(call: FunctionCall, args: Expr[], cond: Expr | undefined): AggregateImpl {
  const shard = aggCall('count', args.slice(0, 1), cond);
  return {
    call,
    shardExprs: [shard],
    countLike: true,
    orderExpr: shard,
    describe: 'count: sum of shard counts',
    newState() {
      let n = 0n;
      return {
        add(vals: Value[]) {
          const v = vals[0];
          if (v !== null && v !== undefined) n += BigInt(v as bigint);
        },
        finalize: () => ({ value: n, type: 'UInt64' }),
      };
    },
  };
}
