// ExactFloatSum: O(1) per-group float accumulator whose result is the exact sum rounded once, so
// it is the same double for every arrival order (the merge's order-independence) and never worse
// than sequential addition.
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { ExactFloatSum } from '../../../shared/core/partials/families/exact-float-sum.js';

const sumOf = (xs: number[]) => {
  const s = new ExactFloatSum();
  for (const x of xs) s.add(x);
  return s.value();
};

describe('ExactFloatSum', () => {
  test('exact where sequential addition is not', () => {
    expect(sumOf([1e16, 1, -1e16])).toBe(1); // sequential: 0
    expect(sumOf([0.1, 0.2, 0.3])).toBe(0.6); // sequential: 0.6000000000000001
    expect(sumOf([2 ** 53, 1, 1])).toBe(2 ** 53 + 2); // sequential: 2^53 (each +1 rounds away)
    expect(sumOf([1e308, 1e308, -1e308])).toBe(1e308);
    expect(sumOf([5e-324, 5e-324])).toBe(1e-323);
    expect(sumOf([-2.5, -0.5])).toBe(-3);
    expect(sumOf([])).toBe(0);
    expect(Object.is(sumOf([-0, -0]), 0)).toBe(true); // ClickHouse's sum starts at +0
  });
  test('infinities and NaN as IEEE addition', () => {
    expect(sumOf([1, Infinity])).toBe(Infinity);
    expect(sumOf([-Infinity, 1e308])).toBe(-Infinity);
    expect(sumOf([Infinity, -Infinity])).toBeNaN();
    expect(sumOf([1, NaN])).toBeNaN();
  });
  test('rounds to nearest, ties to even, after wide cancellation', () => {
    // 1 + 2^-53 is a tie between 1 and 1 + 2^-52: even is 1; a tiny extra term breaks the tie upward.
    expect(sumOf([1, 2 ** -53])).toBe(1);
    expect(sumOf([1, 2 ** -53, 2 ** -200])).toBe(1 + 2 ** -52);
    expect(sumOf([1e300, 1, -1e300, 2 ** -1074])).toBe(1);
  });
  test('property: the correctly rounded exact sum, whatever the order and split', () => {
    // Values n * 2^-20 with |n| < 2^45: the exact sum is (sum of n) * 2^-20, computable in BigInt.
    fc.assert(
      fc.property(fc.array(fc.bigInt({ min: -(2n ** 45n), max: 2n ** 45n }), { maxLength: 40 }), fc.integer({ min: 0, max: 1000 }), (ns, seed) => {
        const xs = ns.map((n) => Number(n) * 2 ** -20);
        const exact = Number(ns.reduce((a, b) => a + b, 0n)) * 2 ** -20;
        const shuffled = [...xs].sort((a, b) => ((a * 7919 + seed) % 13) - ((b * 7919 + seed) % 13));
        const half = seed % (xs.length + 1);
        const a = new ExactFloatSum();
        const b = new ExactFloatSum();
        for (const x of shuffled.slice(0, half)) a.add(x);
        for (const x of shuffled.slice(half)) b.add(x);
        b.addSum(a);
        return Object.is(sumOf(xs), exact) || (exact === 0 && sumOf(xs) === 0) ? b.value() === sumOf(xs) : false;
      }),
      { numRuns: 300 },
    );
  });
  test('property: any order of arbitrary doubles gives the same bits', () => {
    fc.assert(
      fc.property(fc.array(fc.double({ noNaN: true, noDefaultInfinity: true }), { maxLength: 30 }), (xs) => {
        const fwd = sumOf(xs);
        const rev = sumOf([...xs].reverse());
        const sorted = sumOf([...xs].sort((p, q) => p - q));
        return Object.is(fwd, rev) && Object.is(fwd, sorted);
      }),
      { numRuns: 300 },
    );
  });
  test('property: terms() carry the exact sum (adding them elsewhere gives the same bits)', () => {
    fc.assert(
      fc.property(fc.array(fc.double({ noNaN: true, noDefaultInfinity: true }), { maxLength: 30 }), fc.array(fc.double(), { maxLength: 5 }), (xs, more) => {
        const a = new ExactFloatSum();
        for (const x of xs) a.add(x);
        const terms = a.terms();
        expect(terms.length, `terms of ${xs.length} values`).toBeGreaterThan(0);
        // Carried terms plus more values equal all the values added in one accumulator.
        const viaTerms = new ExactFloatSum();
        for (const t of terms) viaTerms.add(t);
        for (const x of more) viaTerms.add(x);
        const direct = new ExactFloatSum();
        for (const x of [...xs, ...more]) direct.add(x);
        expect(Object.is(viaTerms.value(), direct.value()), `${viaTerms.value()} vs ${direct.value()}`).toBe(true);
      }),
      { numRuns: 300 },
    );
    const s = new ExactFloatSum();
    for (const x of [1e300, 1, 2 ** -1074]) s.add(x);
    expect(s.terms().length).toBeGreaterThan(1); // a wide span needs several 53-bit terms
    s.add(-Infinity);
    expect(s.terms()).toEqual([-Infinity]);
    // Finite here but beyond every double: finite terms that bring it back when more is added.
    const huge = new ExactFloatSum();
    for (const x of [Number.MAX_VALUE, Number.MAX_VALUE, Number.MAX_VALUE]) huge.add(x);
    expect(huge.value()).toBe(Infinity);
    expect(huge.terms().every(Number.isFinite)).toBe(true);
    const back = new ExactFloatSum();
    for (const t of [...huge.terms(), -Number.MAX_VALUE, -Number.MAX_VALUE]) back.add(t);
    expect(back.value()).toBe(Number.MAX_VALUE);
  });
});
