// quantile / quantiles / median / quantileTDigest (and -If): a DDSketch (Masson et al., VLDB 2019)
// computed in the shard's SQL as bucket counts, merged by summing buckets, read at finalize.
// Bucket of v > 0: k = ceil(log(v) / log(gamma)), gamma = (1 + a) / (1 - a); v < 0 uses -v in a
// second map; zeros are counted apart. Every bucket's representative 2 * gamma^k / (gamma + 1) is
// within relative error a of every value in the bucket. ClickHouse's quantile interpolates
// linearly between the two values at rank q * (n - 1); we do the same between the two bucket
// representatives, so the answer is within a * max(|lower|, |upper|) of ClickHouse's exact answer.
//
// Why not @datadog/sketches-js: the buckets are built by ClickHouse, not by accept(); the library
// would only contribute the key -> value mapping and a rank walk (a few lines here), and its rank
// walk returns a single bucket value where ClickHouse interpolates.
import type { Expr, FunctionCall } from '../../sql/ast.js';
import type { AggregateImpl } from './family.js';
import { fn, int, float } from '../ast-build.js';
import type { Value } from '../values.js';

export const DDSKETCH_ALPHA = 0.01;
const GAMMA = (1 + DDSKETCH_ALPHA) / (1 - DDSKETCH_ALPHA);
const LOG_GAMMA = Math.log(GAMMA);

function levelOf(e: Expr, name: string): number {
  const v = e.kind === 'literal' ? Number(e.value) : NaN;
  if (!(v >= 0 && v <= 1)) throw new Error(`${name}: level must be a number in [0, 1]`);
  return v;
}

function bucketMap(x: Expr, positive: boolean, cond: Expr | undefined): Expr {
  const f = fn('toFloat64', [x]);
  const mag = positive ? f : fn('negate', [f]);
  let c: Expr = fn('and', [fn(positive ? 'greater' : 'less', [f, int(0)]), fn('isFinite', [f])]);
  if (cond) c = fn('and', [c, cond]);
  c = fn('ifNull', [c, int(0)]);
  // log() sees 1 for rows outside the condition, so toInt32 never meets inf or nan.
  const key = fn('toInt32', [fn('ceil', [fn('divide', [fn('log', [fn('if', [c, mag, int(1)])]), float(LOG_GAMMA)])])]);
  return fn('sumMapIf', [{ kind: 'array', items: [key] }, { kind: 'array', items: [fn('toUInt64', [int(1)])] }, c]);
}

export function quantileFamily(call: FunctionCall, args: Expr[], cond: Expr | undefined): AggregateImpl {
  const base = call.name.replace(/If$/, '');
  if (args.length !== 1) throw new Error(`${base} takes one argument`);
  let levels: number[];
  const params = call.params ?? [];
  if (base === 'median') levels = [0.5];
  else if (base === 'quantiles') {
    if (params.length === 0) throw new Error('quantiles needs levels');
    levels = params.map((p) => levelOf(p, base));
  } else levels = params.length ? [levelOf(params[0]!, base)] : [0.5];
  const many = base === 'quantiles';
  const f32 = base === 'quantileTDigest';
  const x = args[0]!;
  let zc: Expr = fn('equals', [fn('toFloat64', [x]), int(0)]);
  if (cond) zc = fn('and', [zc, cond]);
  return {
    call,
    shardExprs: [bucketMap(x, true, cond), bucketMap(x, false, cond), fn('countIf', [fn('ifNull', [zc, int(0)])])],
    approximate: { method: 'ddsketch', relativeError: DDSKETCH_ALPHA },
    describe: `${base}: DDSketch (relative error ${DDSKETCH_ALPHA}) buckets summed over shards`,
    newState() {
      const pos = new Map<number, bigint>();
      const neg = new Map<number, bigint>();
      let zeros = 0n;
      const addMap = (m: Map<number, bigint>, v: Value | undefined) => {
        if (!Array.isArray(v) || v.length !== 2) return;
        const ks = v[0] as Value[];
        const cs = v[1] as Value[];
        for (let i = 0; i < ks.length; i++) m.set(Number(ks[i]), (m.get(Number(ks[i])) ?? 0n) + BigInt(cs[i] as bigint));
      };
      return {
        add(vals: Value[]) {
          addMap(pos, vals[0]);
          addMap(neg, vals[1]);
          if (vals[2] !== null && vals[2] !== undefined) zeros += BigInt(vals[2] as bigint);
        },
        finalize() {
          const out = sketchQuantiles(pos, neg, zeros, levels).map((v) => (f32 ? Math.fround(v) : v));
          const t = f32 ? 'Float32' : 'Float64';
          return many ? { value: out, type: `Array(${t})` } : { value: out[0]!, type: t };
        },
      };
    },
  };
}

/** Quantiles of a DDSketch with ClickHouse's linear interpolation at rank q * (n - 1). */
export function sketchQuantiles(pos: Map<number, bigint>, neg: Map<number, bigint>, zeros: bigint, levels: number[]): number[] {
  // Buckets in ascending value order: negatives (largest magnitude first), zero, positives.
  const buckets: { v: number; c: bigint }[] = [];
  for (const k of [...neg.keys()].sort((a, b) => b - a)) buckets.push({ v: -rep(k), c: neg.get(k)! });
  if (zeros > 0n) buckets.push({ v: 0, c: zeros });
  for (const k of [...pos.keys()].sort((a, b) => a - b)) buckets.push({ v: rep(k), c: pos.get(k)! });
  let n = 0n;
  for (const b of buckets) n += b.c;
  if (n === 0n) return levels.map(() => NaN);
  const at = (rank: bigint): number => {
    let cum = 0n;
    for (const b of buckets) {
      cum += b.c;
      if (cum > rank) return b.v;
    }
    return buckets[buckets.length - 1]!.v;
  };
  return levels.map((q) => {
    const r = q * Number(n - 1n);
    const lo = Math.floor(r);
    const frac = r - lo;
    const a = at(BigInt(lo));
    if (frac === 0) return a;
    const b = at(BigInt(lo + 1));
    return a + (b - a) * frac;
  });
}

function rep(k: number): number {
  return (2 * GAMMA ** k) / (GAMMA + 1);
}
