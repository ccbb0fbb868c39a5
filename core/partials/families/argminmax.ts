// argMin(a, v) / argMax(a, v): each shard sends (argMin, min(v), count(v)); the merge keeps the
// pair with the best v. Ties on v break on the smaller a, so the merge is order-independent
// (a single node returns one of the tied a's, unspecified which).
import type { Expr, FunctionCall } from '../../sql/ast.js';
import type { AggregateImpl } from './family.js';
import { aggCall, andCond } from './family.js';
import { fn } from '../ast-build.js';
import { compareValues, defaultOf, type Value } from '../values.js';

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
          if (n === null || n === undefined || BigInt(n as bigint) === 0n) {
            if (empty === undefined) empty = vals[0] ?? null;
            return;
          }
          const a = vals[0] ?? null;
          const v = vals[1] ?? null;
          if (!best) {
            best = { a, v };
            return;
          }
          const c = sign * compareValues(v, best.v);
          if (c < 0 || (c === 0 && compareValues(a, best.a) < 0)) best = { a, v };
        },
        finalize(types) {
          const t = types?.[0] ?? seenType;
          return { value: best ? best.a : (empty ?? defaultOf(t)), type: t };
        },
      };
    },
  };
}
