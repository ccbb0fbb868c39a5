// topK(n)(x) (and topKIf): heavy hitters with Elasticsearch's error bounds. Each shard counts
// its values exactly (sumMap) and sends the shard_size = ceil(n * factor) + add most frequent
// with their counts, plus how many distinct values it had. The coordinator sums the counts and
// keeps the n largest (ties: smaller value first). A shard that cut its list may have left out up
// to its smallest sent count of any value, so the error bound of the group is the sum of those
// smallest counts over the shards that cut (doc_count_error_upper_bound); 0 when none cut.
//
// Shard SQL ('hashed' encoding, the default, portable to 18.16 whose sumMap takes numeric keys
// only): counts are kept per cityHash64 of the value (sumMap over UInt64), the distinct values
// themselves in groupUniqArray; the top shard_size (hash, count) pairs are then matched back to
// their values on the shard: the values whose hash is among the top hashes, sorted by hash, zip
// with the pairs sorted by hash. Shard memory: the distinct values plus 16 B per distinct value,
// no raw rows. A 64-bit hash collision between two distinct values of one group (~d^2 / 2^65 for
// d distinct values) would make the two arrays differ in length: the shard query then fails
// loudly ("Arrays passed to arrayMap must have equal size"), never a silently wrong count.
// 'sumMap' encoding: sumMap over the values themselves (newer servers, or numbers on 18.16).
import type { Expr, FunctionCall } from '../../sql/ast.js';
import type { AggregateImpl, FamilyContext } from './family.js';
import { fn, int, lambda, col } from '../ast-build.js';
import { totalCompare, valueKey, type Value } from '../values.js';

export function shardSize(n: number, ctx: Pick<FamilyContext, 'shardSizeFactor' | 'shardSizeAdd'>): number {
  return Math.ceil(n * ctx.shardSizeFactor) + ctx.shardSizeAdd;
}

export function topKFamily(call: FunctionCall, args: Expr[], cond: Expr | undefined, ctx: FamilyContext): AggregateImpl {
  if (args.length !== 1) throw new Error('topK takes one argument');
  const p = call.params?.[0];
  const n = p === undefined ? 10 : p.kind === 'literal' && p.type === 'integer' ? Number(p.value) : NaN;
  if (!(n >= 1 && n <= 1_000_000)) throw new Error('topK(n): n must be a positive integer literal');
  const s = shardSize(n, ctx);
  const x = args[0]!;
  let c: Expr = fn('isNotNull', [x]);
  if (cond) c = fn('ifNull', [fn('and', [c, cond]), int(0)]);
  const one = { kind: 'array' as const, items: [fn('toUInt64', [int(1)])] };
  const bare = fn('assumeNotNull', [x]);
  const hashed = (ctx.topkEncoding ?? 'hashed') === 'hashed';
  const map = fn('sumMapIf', [{ kind: 'array', items: [hashed ? fn('cityHash64', [bare]) : bare] }, one, c]);
  const pairs = fn('arrayMap', [lambda(['v', 'c'], fn('tuple', [col('v'), col('c')])), fn('tupleElement', [map, int(1)]), fn('tupleElement', [map, int(2)])]);
  let top = fn('arraySlice', [fn('arrayReverseSort', [lambda(['p'], fn('tupleElement', [col('p'), int(2)])), pairs]), int(1), int(s)]);
  if (hashed) {
    // (hash, count) pairs sorted by hash, zipped with the values carrying those hashes sorted by hash.
    const byHash = fn('arraySort', [lambda(['p'], fn('tupleElement', [col('p'), int(1)])), top]);
    const hashes = fn('arrayMap', [lambda(['p'], fn('tupleElement', [col('p'), int(1)])), top]);
    const values = fn('arraySort', [
      lambda(['v'], fn('cityHash64', [col('v')])),
      fn('arrayFilter', [lambda(['v'], fn('has', [hashes, fn('cityHash64', [col('v')])])), fn('groupUniqArrayIf', [bare, c])]),
    ]);
    top = fn('arrayMap', [lambda(['v', 'p'], fn('tuple', [col('v'), fn('tupleElement', [col('p'), int(2)])])), values, byHash]);
  }
  const distinct = fn('length', [fn('tupleElement', [map, int(1)])]);
  return {
    call,
    shardExprs: [top, distinct],
    approximate: { method: 'topk-shard-size' },
    describe: `topK(${n}): each shard's ${s} most frequent values with counts, summed; error bound from cut lists`,
    newState() {
      const counts = new Map<string, { v: Value; c: bigint }>();
      let bound = 0n;
      let elemType = 'String';
      return {
        add(vals: Value[], types: string[]) {
          const m = /^Array\(Tuple\((.*), UInt64\)\)$/.exec(types[0] ?? '');
          if (m) elemType = m[1]!;
          const list = vals[0];
          if (!Array.isArray(list)) return;
          let smallest: bigint | undefined;
          for (const pair of list) {
            const [v, cnt] = pair as [Value, Value];
            const k = valueKey(v);
            const e = counts.get(k);
            const c = BigInt(cnt as bigint);
            if (e) {
              e.c += c;
              // One key for values that are equal but not identical (-0 and +0): keep the smaller.
              if (totalCompare(v, e.v) < 0) e.v = v;
            } else counts.set(k, { v, c });
            if (smallest === undefined || c < smallest) smallest = c;
          }
          const distinctCount = BigInt((vals[1] ?? 0) as bigint);
          if (smallest !== undefined && distinctCount > BigInt(list.length)) bound += smallest;
        },
        finalize() {
          const all = [...counts.values()].sort((a, b) => (a.c === b.c ? totalCompare(a.v, b.v) : a.c > b.c ? -1 : 1));
          return { value: all.slice(0, n).map((e) => e.v), type: `Array(${elemType})` };
        },
        errorBound: () => bound,
      };
    },
  };
}
