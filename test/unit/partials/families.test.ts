// Each aggregate family's merge and finalize on hand-made partial rows: empty shards never win,
// integer sums wrap like ClickHouse, states are independent of arrival order (fast-check), the
// sketches meet their stated error on synthetic data, and the limits hold.
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { ScatterError } from '../../../shared/core/errors.js';
import type { FamilyContext } from '../../../shared/core/partials/families/family.js';
import { resolveAggregate } from '../../../shared/core/partials/families/index.js';
import { HLL_M, HLL_RSE, hllEstimate } from '../../../shared/core/partials/families/hll.js';
import { DDSKETCH_ALPHA, sketchQuantiles } from '../../../shared/core/partials/families/quantile.js';
import { parseExpression, printExpr } from '../../../shared/core/sql/index.js';
import type { FunctionCall } from '../../../shared/core/sql/ast.js';
import type { Value } from '../../../shared/core/partials/values.js';

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

  // Every family, on partials as shards send them: empty shards (count 0 with the engine's empty
  // value, or a stray value), NULL partials, NaN, -0 and +0, and ties between shards. Folding them
  // in any order must give the same final value (compared with Object.is, so -0 and +0 differ) and
  // the same error bound. The message names the aggregate that failed.
  const num = fc.oneof(
    fc.constantFrom(0, -0, NaN, Infinity, -Infinity, 1, -1),
    fc.double({ min: -1e6, max: 1e6, noNaN: true }),
    fc.integer({ min: -3, max: 3 }),
  );
  const int = fc.bigInt({ min: -3n, max: 3n });
  const str = fc.constantFrom('', 'a', 'b', 'é', '😀');
  const cnt = fc.constantFrom(0n, 0n, 1n, 2n, 5n);
  const orNull = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: null, freq: 5 });
  // One shard's partial columns for each aggregate, with their shard column types.
  const FAMILIES: { sql: string; part: fc.Arbitrary<Value[]>; types: string[] }[] = [
    { sql: 'count()', part: fc.tuple(cnt), types: ['UInt64'] },
    { sql: 'sum(x)', part: fc.tuple(orNull(num)), types: ['Nullable(Float64)'] },
    { sql: 'sum(x)', part: fc.tuple(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n })), types: ['Int64'] },
    { sql: 'avg(x)', part: fc.tuple(num, cnt), types: ['Float64', 'UInt64'] },
    { sql: 'avg(x)', part: fc.tuple(orNull(int), cnt), types: ['Nullable(Int64)', 'UInt64'] },
    { sql: 'min(x)', part: fc.tuple(num, cnt), types: ['Float64', 'UInt64'] },
    { sql: 'max(x)', part: fc.tuple(num, cnt), types: ['Float64', 'UInt64'] },
    { sql: 'min(x)', part: fc.tuple(orNull(str), cnt), types: ['Nullable(String)', 'UInt64'] },
    { sql: 'max(x)', part: fc.tuple(orNull(int), cnt), types: ['Nullable(Int32)', 'UInt64'] },
    { sql: 'any(x)', part: fc.tuple(orNull(num), cnt), types: ['Nullable(Float64)', 'UInt64'] },
    { sql: 'any(x)', part: fc.tuple(str, cnt), types: ['String', 'UInt64'] },
    { sql: 'argMin(a, v)', part: fc.tuple(str, num, cnt), types: ['String', 'Float64', 'UInt64'] },
    { sql: 'argMax(a, v)', part: fc.tuple(orNull(int), int, cnt), types: ['Nullable(Int32)', 'Int32', 'UInt64'] },
    { sql: 'argMax(a, v)', part: fc.tuple(num, num, cnt), types: ['Float64', 'Float64', 'UInt64'] },
    { sql: 'uniqExact(x)', part: fc.tuple(fc.array(fc.oneof(int, fc.constant(0n)), { maxLength: 5 })), types: ['Array(Int32)'] },
    {
      sql: 'uniq(x)',
      part: fc.tuple(
        fc.array(fc.tuple(fc.constantFrom(0n, 1n, 7n), fc.constantFrom(1n, 2n, 9n))).map((ps) => [ps.map((p) => p[0]), ps.map((p) => p[1])] as Value),
      ),
      types: ['Tuple(Array(UInt16), Array(UInt8))'],
    },
    {
      sql: 'quantile(0.5)(x)',
      // sumMap: bucket keys and their counts, of equal length.
      part: fc.tuple(
        fc.array(fc.tuple(fc.constantFrom(1n, 2n, 40n), fc.constantFrom(1n, 3n))).map((ps) => [ps.map((p) => p[0]), ps.map((p) => p[1])] as Value),
        fc.constant([[], []] as Value),
        cnt,
      ),
      types: ['Tuple(Array(Int32), Array(UInt64))', 'Tuple(Array(Int32), Array(UInt64))', 'UInt64'],
    },
    { sql: 'quantileExact(0.5)(x)', part: fc.tuple(fc.array(num, { maxLength: 4 }), num), types: ['Array(Float64)', 'Float64'] },
    { sql: 'quantilesExact(0, 0.5, 1)(x)', part: fc.tuple(fc.array(str, { maxLength: 4 }), str), types: ['Array(String)', 'String'] },
    {
      sql: 'topK(2)(x)',
      part: fc.tuple(
        fc.array(fc.tuple(fc.oneof(num, fc.constant(-0)), fc.bigInt({ min: 1n, max: 4n })) as fc.Arbitrary<Value>, { maxLength: 4 }),
        fc.constantFrom(2n, 10n),
      ),
      types: ['Array(Tuple(Float64, UInt64))', 'UInt64'],
    },
  ];
  // Same shards, different order: Object.is semantics inside arrays too (NaN equals NaN, -0 is not +0).
  const same = (a: unknown, b: unknown): boolean =>
    Array.isArray(a) && Array.isArray(b) ? a.length === b.length && a.every((x, i) => same(x, b[i])) : Object.is(a, b);
  const fmt = (v: unknown) =>
    JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? `${x}n` : Object.is(x, -0) ? '-0' : typeof x === 'number' && !Number.isFinite(x) ? String(x) : x));

  test.each(FAMILIES.map((f, i) => [`${f.sql} ${f.types.join(',')}`, i] as const))('any arrival order gives the same state: %s', (_name, i) => {
    const { sql, part, types } = FAMILIES[i]!;
    // A shard number may repeat (tree sub-coordinators and tests do that); order is a permutation.
    const shards = fc.array(fc.record({ shard: fc.integer({ min: 0, max: 5 }), vals: part }), { minLength: 1, maxLength: 7 });
    fc.assert(
      fc.property(shards, fc.func(fc.integer()), (parts, f) => {
        const order = parts.map((_p, k) => k).sort((x, y) => f(x) - f(y) || x - y);
        const fold = (idx: number[]) => {
          const st = agg(sql).newState();
          for (const k of idx) st.add(parts[k]!.vals, types, parts[k]!.shard);
          return { final: st.finalize(types), bound: st.errorBound?.() };
        };
        const a = fold(parts.map((_p, k) => k));
        const b = fold(order);
        const c = fold(parts.map((_p, k) => parts.length - 1 - k));
        for (const other of [b, c]) {
          expect(same(other.final.value, a.final.value), `${sql}: ${fmt(other.final.value)} vs ${fmt(a.final.value)} from ${fmt(parts)}`).toBe(true);
          expect(other.final.type, `${sql}: result type`).toBe(a.final.type);
          expect(other.bound, `${sql}: error bound`).toEqual(a.bound);
        }
      }),
      { numRuns: 150 },
    );
  });

  test('the tie rules, written down in shared/core/partials/README.md', () => {
    const two = (sql: string, types: string[], p: [number, Value[]][]) => {
      const st = agg(sql).newState();
      for (const [shard, vals] of p) st.add(vals, types, shard);
      return st.finalize(types).value;
    };
    // any: the lowest shard with a value; no value anywhere: the smallest empty value.
    expect(
      two(
        'any(x)',
        ['Int32', 'UInt64'],
        [
          [3, [7n, 1n]],
          [1, [9n, 2n]],
          [0, [-1n, 0n]],
        ],
      ),
    ).toBe(9n);
    expect(
      two(
        'any(x)',
        ['Int32', 'UInt64'],
        [
          [0, [0n, 0n]],
          [1, [-1n, 0n]],
        ],
      ),
    ).toBe(-1n);
    // min keeps -0, max keeps +0; a NaN never beats a number.
    expect(
      Object.is(
        two(
          'min(x)',
          ['Float64', 'UInt64'],
          [
            [0, [0, 1n]],
            [1, [-0, 1n]],
          ],
        ),
        -0,
      ),
    ).toBe(true);
    expect(
      Object.is(
        two(
          'max(x)',
          ['Float64', 'UInt64'],
          [
            [0, [-0, 1n]],
            [1, [0, 1n]],
          ],
        ),
        0,
      ),
    ).toBe(true);
    expect(
      two(
        'max(x)',
        ['Float64', 'UInt64'],
        [
          [0, [NaN, 1n]],
          [1, [-5, 1n]],
        ],
      ),
    ).toBe(-5);
    // argMin/argMax: best v; equal v: the smaller a; a NaN v never beats a number.
    expect(
      two(
        'argMax(a, v)',
        ['String', 'Int32', 'UInt64'],
        [
          [0, ['b', 5n, 1n]],
          [1, ['a', 5n, 1n]],
        ],
      ),
    ).toBe('a');
    expect(
      two(
        'argMax(a, v)',
        ['String', 'Float64', 'UInt64'],
        [
          [0, ['nan', NaN, 1n]],
          [1, ['one', 1, 1n]],
        ],
      ),
    ).toBe('one');
    // topK: equal counts, smaller value first.
    expect(
      two(
        'topK(1)(x)',
        ['Array(Tuple(String, UInt64))', 'UInt64'],
        [
          [0, [[['b', 2n]], 1n]],
          [1, [[['a', 2n]], 1n]],
        ],
      ),
    ).toEqual(['a']);
  });

  test("quantileExact under transfer_overflow_mode 'break' keeps the same sample in any order", () => {
    const ctx: FamilyContext = { ...CTX, maxRowsToTransfer: 3, transferOverflowMode: 'break' };
    const fold = (order: number[]) => {
      const st = agg('quantilesExact(0, 1)(x)', ctx).newState();
      const parts: Value[][] = [[[5n, 6n]], [[1n, 9n]], [[3n]]];
      for (const k of order) st.add(parts[k]!, ['Array(Int32)', 'Int32'], k);
      return { v: st.finalize(undefined).value, why: st.truncated?.() };
    };
    // The first three values in (shard, position) order: 5, 6 (shard 0) and 1 (shard 1).
    for (const order of [
      [0, 1, 2],
      [2, 1, 0],
      [1, 2, 0],
    ])
      expect(fold(order)).toEqual({ v: [1n, 6n], why: expect.stringMatching(/quantilesExact: values cut/) });
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
