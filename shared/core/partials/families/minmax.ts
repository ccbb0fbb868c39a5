// min/max (and -If): each shard sends its min/max plus how many rows it aggregated, so an empty
// shard's default (0, '' or NULL) never wins. The result keeps the column's type.
// The count is count() (countIf(cond)), not count(x): for a non-Nullable x they are equal, and for
// a Nullable x whose rows are all NULL the engine's min/max is NULL, which the merge already treats
// as "no value". count() is shared with the query's other count() columns, and count(x) is not
// free on 18.16 (docs/benchmarks.md#the-machine-and-the-run).
import type { Expr, FunctionCall } from '../../sql/ast.js';
import type { AggregateImpl } from './family.js';
import { aggCall } from './family.js';
import { defaultOf, isNaNValue, totalCompare, type Value } from '../values.js';
import { orderKey } from '../order-key.js';

export function minMaxFamily(kind: 'min' | 'max', call: FunctionCall, args: Expr[], cond: Expr | undefined): AggregateImpl {
  if (args.length !== 1) throw new Error(`${kind} takes one argument`);
  const sign = kind === 'min' ? 1 : -1;
  const value = aggCall(kind, args, cond);
  return {
    call,
    shardExprs: [value, aggCall('count', [], cond)],
    orderExpr: value,
    describe: `${kind}: ${kind} of non-empty shard ${kind}s`,
    newState() {
      let has = false;
      let best: Value = null;
      let bestKey: Value = null; // best in ClickHouse's order (order-key.ts: Enum by number, IPs by bytes)
      let empty: Value | undefined;
      let seenType = 'Nothing';
      return {
        add(vals: Value[], types: string[]) {
          seenType = types[0] ?? seenType;
          const n = vals[1];
          const v = vals[0] ?? null;
          if (n === null || n === undefined || BigInt(n as bigint) === 0n || v === null) {
            // Empty shards all send the engine default; keep the smallest so arrival order cannot matter.
            if (empty === undefined || totalCompare(v, empty) < 0) empty = v;
            return;
          }
          // NaN compares false against everything in ClickHouse's min/max: a NaN never replaces a number.
          // Values equal as numbers but not identical (-0 and +0) are ordered by totalCompare, so
          // the winner does not depend on which arrived first: min keeps -0, max keeps +0.
          const key = orderKey(v, seenType);
          if (!has || (isNaNValue(best) && !isNaNValue(v)) || (!isNaNValue(v) && sign * totalCompare(key, bestKey) < 0)) {
            best = v;
            bestKey = key;
            has = true;
          }
        },
        finalize(types) {
          const t = types?.[0] ?? seenType;
          return { value: has ? best : (empty ?? defaultOf(t)), type: t };
        },
      };
    },
  };
}
