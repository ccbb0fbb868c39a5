// sum(x) / sumIf(x, c): shard sums added. Integers add as bigints wrapped to the result width
// (Int64/UInt64, as ClickHouse wraps); float partials are summed exactly and rounded once
// (ExactFloatSum: O(1) state per group, the same bits whatever the arrival order; may differ from
// a single node's sequential addition in the last bits). NULL partials (no non-NULL value on
// that shard) are skipped.
import type { Expr, FunctionCall } from '../../sql/ast.js';
import type { AggregateImpl } from './family.js';
import { aggCall } from './family.js';
import { defaultOf, isIntType, wrapInt, type Value } from '../values.js';
import { addFloatPartial, type ExactFloatSum } from './exact-float-sum.js';

export function sumFamily(call: FunctionCall, args: Expr[], cond: Expr | undefined): AggregateImpl {
  if (args.length !== 1) throw new Error('sum takes one argument');
  const shard = aggCall('sum', args, cond);
  return {
    call,
    shardExprs: [shard],
    describe: 'sum: sum of shard sums',
    newState() {
      let acc: bigint | null = null;
      let floats: ExactFloatSum | undefined;
      let seenType = 'Int64';
      return {
        add(vals: Value[], types: string[]) {
          const v = vals[0];
          seenType = types[0] ?? seenType;
          if (v === null || v === undefined) return;
          if (typeof v === 'bigint') acc = wrapInt((acc ?? 0n) + v, seenType);
          else floats = addFloatPartial(floats, v);
        },
        finalize(types) {
          const t = types?.[0] ?? seenType;
          const value = floats ? floats.value() : (acc ?? defaultOf(t));
          return { value: isIntType(t) && typeof value === 'number' ? BigInt(value) : value, type: t };
        },
      };
    },
  };
}
