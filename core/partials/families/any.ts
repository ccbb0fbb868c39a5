// any(x): some value of the group. Deterministic here: the value from the lowest-numbered shard
// that had one, so arrival order cannot change the answer (single-node ClickHouse picks the first
// row it reads, which is equally unspecified).
import type { Expr, FunctionCall } from '../../sql/ast.js';
import type { AggregateImpl } from './family.js';
import { aggCall } from './family.js';
import { defaultOf, type Value } from '../values.js';

export function anyFamily(call: FunctionCall, args: Expr[], cond: Expr | undefined): AggregateImpl {
  if (args.length !== 1) throw new Error('any takes one argument');
  return {
    call,
    shardExprs: [aggCall('any', args, cond), aggCall('count', args, cond)],
    describe: 'any: value of the lowest shard that has one',
    newState() {
      let best: { shard: number; v: Value } | undefined;
      let empty: Value | undefined;
      let seenType = 'Nothing';
      return {
        add(vals: Value[], types: string[], shard: number) {
          seenType = types[0] ?? seenType;
          const n = vals[1];
          if (n === null || n === undefined || BigInt(n as bigint) === 0n || vals[0] === null) {
            if (empty === undefined) empty = vals[0] ?? null;
            return;
          }
          if (!best || shard < best.shard) best = { shard, v: vals[0]! };
        },
        finalize(types) {
          const t = types?.[0] ?? seenType;
          return { value: best ? best.v : (empty ?? defaultOf(t)), type: t };
        },
      };
    },
  };
}
