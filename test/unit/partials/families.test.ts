// Each aggregate family's merge and finalize on hand-made partial rows: empty shards never win,
// integer sums wrap like ClickHouse, states are independent of arrival order (fast-check), the
// sketches meet their stated error on synthetic data, and the limits hold.
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { ScatterError } from '../../../core/errors.js';
import type { FamilyContext } from '../../../core/partials/families/family.js';
import { resolveAggregate } from '../../../core/partials/families/index.js';
import { HLL_M, HLL_RSE, hllEstimate } from '../../../core/partials/families/hll.js';
import { DDSKETCH_ALPHA, sketchQuantiles } from '../../../core/partials/families/quantile.js';
import { parseExpression, printExpr } from '../../../core/sql/index.js';
import type { FunctionCall } from '../../../core/sql/ast.js';
import type { Value } from '../../../core/partials/values.js';

const CTX: FamilyContext = { maxRowsToTransfer: 1000, shardSizeFactor: 1.5, shardSizeAdd: 10, hllEncoding: 'maxMap' };
const agg = (sql: string, ctx = CTX) => resolveAggregate(parseExpression(sql) as FunctionCall, ctx);

function run(sql: string, parts: { shard: number; vals: Value[]; types: string[] }[]) {
  const st = agg(sql).newState();
  for (const p of parts) st.add(p.vals, p.types, p.shard);
  return st.finalize(parts[0]?.types);
}

describe('exact families', () => {
  test('shard SQL of each family', () => {
    expect(agg('avg(x)').shardExprs.map(printExpr)).toEqual(['sum(x)', 'count(x)']);
    expect(agg('minIf(x, y > 1)').shardExprs.map(printExpr)).toEqual(['minIf(x, y > 1)', 'countIf(y > 1)']);
    expect(agg('argMax(a, b)').shardExprs.map(printExpr)).toEqual(['argMax(a, b)', 'maxIf(b, isNotNull(a))', 'countIf(b, isNotNull(a))']);
    expect(agg('count(DISTINCT a, b)').shardExprs.map(printExpr)).toEqual(['groupUniqArray(tuple(a, b))']);
  });

  test("min/max: an empty shard's default (0) never wins", () => {
    const t = ['Int32', 'UInt64'];
    expect(
      run('min(x)', [
        { shard: 0, vals: [0n, 0n], types: t },
        { shard: 1, vals: [5n, 3n], types: t },
      ]),
    ).toEqual({ value: 5n, type: 'Int32' });
    expect(
      run('max(x)', [
        { shard: 0, vals: [0n, 0n], types: t },
        { shard: 1, vals: [-5n, 3n], types: t },
      ]),
    ).toEqual({ value: -5n, type: 'Int32' });
    // every shard empty: the engine's own empty value
    expect(run('max(x)', [{ shard: 0, vals: [0n, 0n], types: t }])).toEqual({ value: 0n, type: 'Int32' });
  });

  test('sum wraps at 64 bits like ClickHouse', () => {
    const t = ['Int64'];
    const r = run('sum(x)', [
      { shard: 0, vals: [2n ** 62n], types: t },
      { shard: 1, vals: [2n ** 62n], types: t },
    ]);
    expect(r.value).toBe(-(2n ** 63n));
  });

  test('avg of nothing is nan (NULL when Nullable)', () => {
    expect(Number.isNaN(run('avg(x)', [{ shard: 0, vals: [0n, 0n], types: ['Int64', 'UInt64'] }]).value as number)).toBe(true);
    expect(run('avg(x)', [{ shard: 0, vals: [null, 0n], types: ['Nullable(Int64)', 'UInt64'] }]).value).toBeNull();
  });

  test('uniqExact over the transfer limit is TRANSFER_LIMIT', () => {
    const st = agg('uniqExact(x)', { ...CTX, maxRowsToTransfer: 3 }).newState();
    st.add([[1n, 2n, 3n]], ['Array(Int32)'], 0);
    expect(() => st.add([[4n]], ['Array(Int32)'], 1)).toThrow(ScatterError);
  });

  test('unsupported aggregates name the function and its position', () => {
    try {
      resolveAggregate(parseExpression('  stddevPop(x)') as FunctionCall, CTX);
      throw new Error('no error');
    } catch (e) {
      expect(e).toBeInstanceOf(ScatterError);
      expect((e as ScatterError).code).toBe('UNSUPPORTED');
      expect((e as ScatterError).message).toMatch(/stddevPop/);
      expect((e as ScatterError).position).toEqual({ line: 1, column: 3 });
    }
  });

  test('any arrival order gives the same state (sum of floats, min, argMin, any, uniqExact, topK)', () => {
    const parts = fc.array(fc.tuple(fc.integer({ min: -1000, max: 1000 }), fc.integer({ min: 0, max: 20 }), fc.double({ min: -1e6, max: 1e6, noNaN: true })), {
      minLength: 1,
      maxLength: 8,
    });
    fc.assert(
      fc.property(parts, fc.func(fc.integer()), (ps, f) => {
        const rows = ps.map(([a, b, c], shard) => ({ shard, a, b, c }));
        const perm = [...rows].sort((x, y) => f(x.shard) - f(y.shard) || x.shard - y.shard);
        for (const [sql, mk] of [
          ['sum(z)', (r: (typeof rows)[0]) => ({ vals: [r.c] as Value[], types: ['Float64'] })],
          ['min(x)', (r: (typeof rows)[0]) => ({ vals: [BigInt(r.a), BigInt(r.b)] as Value[], types: ['Int32', 'UInt64'] })],
          ['argMin(x, y)', (r: (typeof rows)[0]) => ({ vals: [BigInt(r.b), BigInt(r.a), 1n] as Value[], types: ['Int32', 'Int32', 'UInt64'] })],
          ['any(x)', (r: (typeof rows)[0]) => ({ vals: [BigInt(r.a), BigInt(r.b)] as Value[], types: ['Int32', 'UInt64'] })],
          ['uniqExact(x)', (r: (typeof rows)[0]) => ({ vals: [[BigInt(r.a % 7), BigInt(r.b)]] as Value[], types: ['Array(Int32)'] })],
          [
            'topK(2)(x)',
            (r: (typeof rows)[0]) => ({
              vals: [
                [
                  [BigInt(r.b % 5), BigInt(r.b + 1)],
                  [BigInt((r.a % 3) + 10), 1n],
                ],
                40n,
              ] as Value[],
              types: ['Array(Tuple(Int32, UInt64))', 'UInt64'],
            }),
          ],
        ] as const) {
          const s1 = agg(sql).newState();
          const s2 = agg(sql).newState();
          for (const r of rows) {
            const p = mk(r);
            s1.add(p.vals, p.types, r.shard);
          }
          for (const r of perm) {
            const p = mk(r);
            s2.add(p.vals, p.types, r.shard);
          }
          expect(s2.finalize(undefined)).toEqual(s1.finalize(undefined));
          expect(s2.errorBound?.()).toEqual(s1.errorBound?.());
        }
      }),
      { numRuns: 200 },
    );
  });
});

describe('HyperLogLog', () => {
  // Registers filled in JS the way the shard SQL fills them (uniform 64-bit hashes).
  function registersFor(n: number, seed: number): Uint8Array {
    const regs = new Uint8Array(HLL_M);
    let x = BigInt(seed) | 1n;
    for (let i = 0; i < n; i++) {
      x ^= x << 13n;
      x &= (1n << 64n) - 1n;
      x ^= x >> 7n;
      x ^= x << 17n;
      x &= (1n << 64n) - 1n;
      const j = Number(x & 4095n);
      const w = x >> 12n;
      let rho = 1;
      if (w === 0n) rho = 53;
      else {
        let t = w;
        while ((t & 1n) === 0n) {
          rho++;
          t >>= 1n;
        }
      }
      if (rho > regs[j]!) regs[j] = rho;
    }
    return regs;
  }
  test.each([0, 1, 10, 1000, 5000, 20000, 100000])('estimate of %i distinct within 4 sigma', (n) => {
    const est = hllEstimate(registersFor(n, 12345 + n));
    expect(Math.abs(est - n)).toBeLessThanOrEqual(4 * HLL_RSE * n + 0.5);
  });
  test('merging by register max equals the registers of the union', () => {
    const a = registersFor(3000, 1);
    const b = registersFor(3000, 2);
    const st = agg('uniq(x)').newState();
    const enc = (r: Uint8Array): Value[] => {
      const ks: Value[] = [];
      const vs: Value[] = [];
      r.forEach((v, i) => {
        if (v) {
          ks.push(BigInt(i));
          vs.push(BigInt(v));
        }
      });
      return [[ks, vs]];
    };
    st.add(enc(a), ['Tuple(Array(UInt16), Array(UInt8))'], 0);
    st.add(enc(b), ['Tuple(Array(UInt16), Array(UInt8))'], 1);
    const union = a.map((v, i) => Math.max(v, b[i]!));
    expect(st.finalize(undefined).value).toBe(BigInt(Math.round(hllEstimate(union))));
    expect(agg('uniq(x)').approximate).toEqual({ method: 'hll', relativeStdError: HLL_RSE });
  });
});

describe('DDSketch quantiles', () => {
  test('within alpha of the interpolated exact quantile, for positive, negative and zero values', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: -1e6, max: 1e6, noNaN: true }), { minLength: 1, maxLength: 300 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (xs, q) => {
          const gamma = (1 + DDSKETCH_ALPHA) / (1 - DDSKETCH_ALPHA);
          const pos = new Map<number, bigint>();
          const neg = new Map<number, bigint>();
          let zeros = 0n;
          for (const x of xs) {
            if (x === 0) {
              zeros++;
              continue;
            }
            const m = x > 0 ? pos : neg;
            const k = Math.ceil(Math.log(Math.abs(x)) / Math.log(gamma));
            m.set(k, (m.get(k) ?? 0n) + 1n);
          }
          const [got] = sketchQuantiles(pos, neg, zeros, [q]);
          const s = [...xs].sort((a, b) => a - b);
          const r = q * (s.length - 1);
          const lo = s[Math.floor(r)]!;
          const hi = s[Math.ceil(r)]!;
          const slack = 1e-9 * Math.max(Math.abs(lo), Math.abs(hi), 1);
          expect(got!).toBeGreaterThanOrEqual(Math.min(lo, hi) - DDSKETCH_ALPHA * Math.abs(lo) - slack);
          expect(got!).toBeLessThanOrEqual(Math.max(lo, hi) + DDSKETCH_ALPHA * Math.abs(hi) + slack);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('topK error bound (doc_count_error_upper_bound)', () => {
  test('sums the smallest count of every shard that cut its list', () => {
    const st = agg('topK(1)(x)').newState();
    const t = ['Array(Tuple(String, UInt64))', 'UInt64'];
    st.add(
      [
        [
          ['a', 10n],
          ['b', 6n],
        ],
        5n,
      ],
      t,
      0,
    ); // cut: 5 distinct, sent 2
    st.add(
      [
        [
          ['b', 9n],
          ['c', 4n],
        ],
        2n,
      ],
      t,
      1,
    ); // not cut
    expect(st.finalize(undefined)).toEqual({ value: ['b'], type: 'Array(String)' });
    expect(st.errorBound!()).toBe(6n);
  });
});
