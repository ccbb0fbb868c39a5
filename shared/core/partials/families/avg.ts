// avg(x) = sum / count, carried as two partial columns and divided at finalize (a mean
// does not merge; its sum and count do). Float64 (Nullable when x is); empty: nan / NULL.
import type { Expr, FunctionCall } from '../../sql/ast.js';
import type { AggregateImpl } from './family.js';
import { aggCall } from './family.js';
import { decimalScale, isNullable, wrapInt, type Value } from '../values.js';
import { addFloatPartial, type ExactFloatSum } from './exact-float-sum.js';

export function avgFamily(call: FunctionCall, args: Expr[], cond: Expr | undefined): AggregateImpl {
  if (args.length !== 1) throw new Error('avg takes one argument');
  return {
    call,
    shardExprs: [aggCall('sum', args, cond), aggCall('count', args, cond)],
    describe: 'avg: sum of shard sums / sum of shard counts',
    newState() {
      let s = 0n;
      let floats: ExactFloatSum | undefined;
      let n = 0n;
      let sumType = 'Int64';
      return {
        add(vals: Value[], types: string[]) {
          sumType = types[0] ?? sumType;
          const v = vals[0];
          const c = vals[1];
          if (c !== null && c !== undefined) n += BigInt(c as bigint);
          if (v === null || v === undefined) return;
          if (typeof v === 'bigint') s = wrapInt(s + v, sumType);
          else floats = addFloatPartial(floats, v);
        },
        finalize(types) {
          const t = types?.[0] ?? sumType;
          const nullableOut = isNullable(t);
          if (n === 0n) return { value: nullableOut ? null : NaN, type: nullableOut ? 'Nullable(Float64)' : 'Float64' };
          // A Decimal sum arrives scaled by 10^S.
          const scale = decimalScale(t) ?? 0;
          return { value: (floats ? floats.value() : Number(s) / 10 ** scale) / Number(n), type: nullableOut ? 'Nullable(Float64)' : 'Float64' };
        },
      };
    },
  };
}
