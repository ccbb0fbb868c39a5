// The aggregates whose first-stage answer travels as a plain value instead of a state: the shards
// compute `f(args) AS _a<i>` and the final stage combines the partials with an ordinary aggregate,
// which ClickHouse answers faster than `fState` (a state column is materialized and serialized per
// row: measured on 18.16 over 1M rows, count/sum/avg/max as plain aggregates 6.4-6.6 ms, as -State
// 7.8-8.4 ms). Only where the final answer is provably ClickHouse's, whatever the argument's type
// (types are unknown at plan time):
// - count(...), countIf(...): UInt64 partials, `sum` gives UInt64, 0 over no rows;
// - sum(x), sumIf(x, c): sum's result type is a fixed point of sum (Int* -> Int64, UInt* -> UInt64,
//   Float* -> Float64, Decimal(P, S) -> Decimal(38, S), Nullable(T) -> Nullable of those), integers
//   and decimals add exactly (wrapping alike), and a shard without contributing rows answers the
//   neutral 0, or NULL for a Nullable argument, which sum skips (all NULL: NULL, as ClickHouse);
// - min(x), max(x): the same type back, but a shard with no rows answers the type's default
//   (0, '') rather than nothing. With group keys an empty shard answers no row; without them the
//   leaf keeps only shards that saw rows (`HAVING count() > 0`), and min/max over zero partials is
//   the default (NULL for Nullable), as ClickHouse answers over no rows.
// Everything else travels as a state: count(DISTINCT)/f(DISTINCT), parametric calls, other
// combinators (a plain minIf would need the count of rows passing its condition), and avg, whose
// result type depends on the version for Decimal (18.16: Decimal(38, S); ClickHouse 26: Float64).
import type { FunctionCall } from '../../sql/ast.js';
import { aggregateName } from '../../sql/aggregate-names.js';

export interface PlainPartial {
  /** What the shards compute (canonical name, the call's arguments). */
  shard: string;
  /** The ordinary aggregate the final stage runs over the partials. */
  final: 'sum' | 'min' | 'max';
  /** A shard that saw no rows answers a value that is not neutral (min/max without group keys). */
  emptyIsNotNeutral: boolean;
}

const PLAIN: Record<string, Omit<PlainPartial, 'shard'>> = {
  count: { final: 'sum', emptyIsNotNeutral: false },
  countIf: { final: 'sum', emptyIsNotNeutral: false },
  sum: { final: 'sum', emptyIsNotNeutral: false },
  sumIf: { final: 'sum', emptyIsNotNeutral: false },
  min: { final: 'min', emptyIsNotNeutral: true },
  max: { final: 'max', emptyIsNotNeutral: true },
};

/** How `f` travels as a plain partial, or undefined when it must travel as a state. */
export function plainPartial(f: FunctionCall): PlainPartial | undefined {
  if (f.distinct || f.params || f.over) return undefined;
  const name = aggregateName(f.name);
  const how = name !== undefined && Object.hasOwn(PLAIN, name) ? PLAIN[name] : undefined;
  return how && { shard: name!, ...how };
}
