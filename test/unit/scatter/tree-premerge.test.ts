// PremergeMerger must be a lawful re-aggregation: pre-merging any grouping of shard partials and
// then pre-merging those answers again gives the same rows as pre-merging every shard at once
// (what makes a two-level tree equal to one), in any arrival order. Values are checked against a
// direct computation over the rows, including 64-bit wrap-around, NULL partials and byte-order
// string minima.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { PremergeMerger, type PremergeSpec } from '../../../shared/core/scatter/tree-premerge.js';
import { ExactFloatSum } from '../../../shared/core/partials/families/exact-float-sum.js';

const spec: PremergeSpec = {
  keys: ['__k0'],
  aggs: [
    { col: '__a0', op: 'sum' }, // count(): UInt64 as a JSON string
    { col: '__a1', op: 'sum' }, // sum(Int64)
    { col: '__a2', op: 'min' }, // min(String)
    { col: '__a3', op: 'max' }, // max(Nullable(Int32))
  ],
};
const meta = [
  { name: '__k0', type: 'UInt32' },
  { name: '__a0', type: 'UInt64' },
  { name: '__a1', type: 'Int64' },
  { name: '__a2', type: 'String' },
  { name: '__a3', type: 'Nullable(Int32)' },
];

const row = fc.record({
  __k0: fc.integer({ min: 0, max: 5 }),
  __a0: fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }).map(String),
  __a1: fc.bigInt({ min: -(1n << 63n), max: (1n << 63n) - 1n }).map(String),
  __a2: fc.string({ unit: 'binary', maxLength: 4 }),
  __a3: fc.option(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), { nil: null }),
});
const shardsArb = fc.array(fc.array(row, { maxLength: 6 }), { minLength: 1, maxLength: 8 });

function premerge(parts: { shard: number; rows: Record<string, unknown>[] }[]) {
  const m = new PremergeMerger(spec);
  for (const p of parts) m.add(p.shard, p.rows, meta);
  return m;
}
const sortRows = (rows: Record<string, unknown>[]) => [...rows].sort((a, b) => Number(a.__k0) - Number(b.__k0));

function expected(shards: Record<string, unknown>[][]) {
  const by = new Map<number, Record<string, unknown>[]>();
  for (const rows of shards) for (const r of rows) by.set(r.__k0 as number, [...(by.get(r.__k0 as number) ?? []), r]);
  return [...by.entries()].map(([k, rs]) => {
    const nn = rs.map((r) => r.__a3).filter((x): x is number => x !== null);
    return {
      __k0: k,
      __a0: BigInt.asUintN(
        64,
        rs.reduce((a, r) => a + BigInt(r.__a0 as string), 0n),
      ).toString(),
      __a1: BigInt.asIntN(
        64,
        rs.reduce((a, r) => a + BigInt(r.__a1 as string), 0n),
      ).toString(),
      __a2: rs.map((r) => r.__a2 as string).reduce((a, b) => (Buffer.compare(Buffer.from(b), Buffer.from(a)) < 0 ? b : a)),
      __a3: nn.length ? Math.max(...nn) : null,
    };
  });
}

describe('PremergeMerger', () => {
  it('equals the direct aggregate, and a two-level pre-merge equals a one-level one, in any order', () => {
    fc.assert(
      fc.property(shardsArb, fc.integer({ min: 1, max: 4 }), fc.integer(), (shards, fanout, seed) => {
        const parts = shards.map((rows, shard) => ({ shard, rows }));
        const flat = premerge(parts).parts();
        expect(flat).toHaveLength(1);
        expect(sortRows(flat[0]!.rows), 'count() / sum(Int64) / min(String) / max(Nullable(Int32)): pre-merge vs direct').toEqual(sortRows(expected(shards)));
        // Two levels: subtrees of `fanout` shards, answers merged in a shuffled order.
        const subs = [];
        for (let i = 0; i < parts.length; i += fanout) subs.push(...premerge(parts.slice(i, i + fanout)).parts());
        const order = subs
          .map((s, i) => ({ s, k: (Math.imul(i + 1, seed | 1) >>> 0) % 97 }))
          .sort((a, b) => a.k - b.k)
          .map((x) => x.s);
        const two = premerge(order).parts();
        expect(sortRows(two[0]!.rows), `count() / sum(Int64) / min(String) / max(Nullable(Int32)): two levels of ${fanout} vs one`).toEqual(
          sortRows(flat[0]!.rows),
        );
        expect(two[0]!.shard).toBe(0);
      }),
      { numRuns: 300 },
    );
  });
  it('falls back to relaying when a state column type cannot be pre-merged (Decimal sum)', () => {
    const m = new PremergeMerger({ keys: [], aggs: [{ col: '__a0', op: 'sum' }] });
    m.add(3, [{ __a0: '1.50' }], [{ name: '__a0', type: 'Decimal(10, 2)' }]);
    m.add(1, [{ __a0: '2.25' }], [{ name: '__a0', type: 'Decimal(10, 2)' }]);
    expect(m.mode).toBe('relayed');
    expect(m.parts().map((p) => [p.shard, p.rows])).toEqual([
      [3, [{ __a0: '1.50' }]],
      [1, [{ __a0: '2.25' }]],
    ]);
  });
  it('float sums: the terms of the exact sum, whatever the arrival order; inf and nan as strings', () => {
    const spec1: PremergeSpec = { keys: [], aggs: [{ col: '__a0', op: 'sum' }] };
    const run = (vals: unknown[], order: number[], type = 'Float64') => {
      const m = new PremergeMerger(spec1);
      for (const i of order) m.add(i, [{ __a0: vals[i] }], [{ name: '__a0', type }]);
      return m.parts()[0]!.rows[0]!.__a0;
    };
    // What the root adds: the same exact sum as adding every shard's value there.
    const rootSum = (wire: unknown) => {
      const s = new ExactFloatSum();
      for (const x of [wire].flat()) s.add(typeof x === 'string' ? { inf: Infinity, '-inf': -Infinity, nan: NaN }[x]! : (x as number));
      return s.value();
    };
    const vals = [0.1, 1e16, -1e16, 0.2, 3.3];
    const exact = new ExactFloatSum();
    for (const v of vals) exact.add(v);
    for (const order of [
      [0, 1, 2, 3, 4],
      [4, 2, 0, 3, 1],
    ]) {
      expect(run(vals, order)).toEqual(run(vals, [0, 1, 2, 3, 4]));
      expect(rootSum(run(vals, order))).toBe(exact.value());
    }
    expect(exact.value()).toBe(3.5999999999999996); // the exact sum rounded once; plain addition in shard order gives 3.5
    // Non-finite shard sums arrive as ClickHouse writes them with output_format_json_quote_denormals.
    expect(run(['inf', 1.5], [0, 1])).toBe('inf');
    expect(run(['-inf', 1.5, 'inf'], [2, 0, 1])).toBe('nan');
    expect(run([1, '-nan'], [0, 1])).toBe('nan');
    // NULL partials of a Nullable sum are skipped; all NULL stays NULL.
    expect(run([null, 2.5], [1, 0], 'Nullable(Float64)')).toBe(2.5);
    expect(run([null, null], [1, 0], 'Nullable(Float64)')).toBeNull();
    expect(run([null, 'inf'], [1, 0], 'Nullable(Float64)')).toBe('inf');
    // A pre-merged answer merged again (a deeper tree): terms in, terms out.
    expect(rootSum(run([[1e16, 0.1], -1e16], [1, 0]))).toBe(0.1);
  });
});
