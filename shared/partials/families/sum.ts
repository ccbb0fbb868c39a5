// sum(x) / sumIf(x, c): shard sums added. Integers add as bigints wrapped to the result width
// (Int64/UInt64, as ClickHouse wraps); floats as doubles (order of additions may differ from a
// single node in the last bits; float partials are added in shard order at finalize, so arrival
// order never changes the result). NULL partials (no non-NULL value on that shard) are skipped.
import type { Expr, FunctionCall } from '../../sql/ast.js';
import type { AggregateImpl } from './family.js';
import { aggCall } from './family.js';
import { defaultOf, isIntType, wrapInt, type Value } from '../values.js';

export function sumFamily(call: FunctionCall, args: Expr[], cond: Expr | undefined): AggregateImpl {
  if (args.length !== 1) throw new Error('sum takes one argument');
  const shard = aggCall('sum', args, cond);
  return {
    call,
    shardExprs: [shard],
    describe: 'sum: sum of shard sums',
    newState() {
      let acc: bigint | null = null;
      const floats: [number, number][] = [];
      let seenType = 'Int64';
      return {
        add(vals: Value[], types: string[], shard: number) {
          const v = vals[0];
          seenType = types[0] ?? seenType;
          if (v === null || v === undefined) return;
          if (typeof v === 'bigint') acc = wrapInt((acc ?? 0n) + v, seenType);
          else floats.push([shard, Number(v)]);
        },
        finalize(types) {
          const t = types?.[0] ?? seenType;
          const value = floats.length ? sumInShardOrder(floats) : acc ?? defaultOf(t);
          return { value: isIntType(t) && typeof value === 'number' ? BigInt(value) : value, type: t };
        },
      };
    },
  };
}

/** Add float partials in shard order: the same bits whatever order they arrived in. */
export function sumInShardOrder(parts: [number, number][]): number {
  return [...parts].sort((a, b) => a[0] - b[0]).reduce((s, p) => s + p[1], 0);
}
