// argMin(a, v) / argMax(a, v): each shard sends (argMin, min(v), count(v)); the merge keeps the
// pair with the best v. Deterministic whatever the arrival order: v compares in the total order of
// values.ts totalCompare (-0 below +0), a NaN v never beats a number (as min/max), and ties on v
// break on the smaller a. When no shard had a row, every shard sent the engine's empty value: the
// smallest of those. (A single node returns one of the tied a's, unspecified which; so does each
// shard for its own rows.)
import type { Expr, FunctionCall } from '../../sql/ast.js';
import type { AggregateImpl } from './family.js';
import { aggCall, andCond } from './family.js';
import { fn } from '../ast-build.js';
import { defaultOf, isNaNValue, totalCompare, type Value } from '../values.js';
import { orderKey } from '../order-key.js';

export function argMinMaxFamily(kind: 'argMin' | 'argMax', call: FunctionCall, args: Expr[], cond: Expr | undefined): AggregateImpl {
  if (args.length !== 2) throw new Error(`${kind} takes two arguments`);
  const sign = kind === 'argMin' ? 1 : -1;
  const by = kind === 'argMin' ? 'min' : 'max';
  return {
    call,
    // ClickHouse skips rows whose argument (or value) is NULL, so the companion min/max and count
    // look at the same rows: those with a non-NULL argument.
    shardExprs: [
      aggCall(kind, args, cond),
      aggCall(by, [args[1]!], andCond(fn('isNotNull', [args[0]!]), cond)),
      aggCall('count', [args[1]!], andCond(fn('isNotNull', [args[0]!]), cond)),
    ],
    describe: `${kind}: the argument of the best ${by} over shards`,
    newState() {
      let best: { a: Value; v: Value } | undefined;
      let empty: Value | undefined;
      let seenType = 'Nothing';
      return {
        add(vals: Value[], types: string[]) {
          seenType = types[0] ?? seenType;
          const n = vals[2];
          const a = vals[0] ?? null;
          if (n === null || n === undefined || BigInt(n as bigint) === 0n) {
            if (empty === undefined || totalCompare(a, empty) < 0) empty = a;
            return;
          }
          // v in ClickHouse's order (order-key.ts: Enum by number, IPs by bytes).
          const v = orderKey(vals[1] ?? null, types[1] ?? 'String');
          if (!best) {
            best = { a, v };
            return;
          }
          const vNaN = isNaNValue(v);
          const bestNaN = isNaNValue(best.v);
          // NaN loses to every number; between two NaNs (or two equal v) the smaller a wins.
          const c = vNaN !== bestNaN ? (vNaN ? 1 : -1) : vNaN ? 0 : sign * totalCompare(v, best.v);
          if (c < 0 || (c === 0 && totalCompare(a, best.a) < 0)) best = { a, v };
        },
        finalize(types) {
          const t = types?.[0] ?? seenType;
          return { value: best ? best.a : (empty ?? defaultOf(t)), type: t };
        },
      };
    },
  };
}
