// any(x): some value of the group. Deterministic here whatever the arrival order: the value from
// the lowest-numbered shard that had one (a shard that answers twice: the smaller value in the
// total order of values.ts totalCompare). When no shard had a value, every shard sent the
// engine's empty value (0, '' or NULL): the smallest of those. Single-node ClickHouse picks the
// first row it reads, which is unspecified; each shard's own any() is that same engine choice.
import type { Expr, FunctionCall } from '../../sql/ast.js';
import type { AggregateImpl } from './family.js';
import { aggCall } from './family.js';
import { defaultOf, totalCompare, type Value } from '../values.js';

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
          const v = vals[0] ?? null;
          if (n === null || n === undefined || BigInt(n as bigint) === 0n || v === null) {
            if (empty === undefined || totalCompare(v, empty) < 0) empty = v;
            return;
          }
          if (!best || shard < best.shard || (shard === best.shard && totalCompare(v, best.v) < 0)) best = { shard, v };
        },
        finalize(types) {
          const t = types?.[0] ?? seenType;
          return { value: best ? best.v : (empty ?? defaultOf(t)), type: t };
        },
      };
    },
  };
}
