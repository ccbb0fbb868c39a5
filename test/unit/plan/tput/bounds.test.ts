// TPUT's arithmetic against brute force: for any scores on any number of shards, any k, and any
// choice among tied groups at a shard's k-th place, every group whose total reaches the k-th best
// total is a candidate (so round 3 over the candidates is exact, ties at the boundary included).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { afterRound1, candidatesAfterRound2, kthLargest, round2Pays, type ScoredGroup } from '../../../../core/plan/tput/bounds.js';

/** Shards' local scores: shard -> group -> score (>= 0; 0 kept, as countIf gives it). */
const scoresArb = fc
  .record({
    shards: fc.integer({ min: 1, max: 5 }),
    groups: fc.integer({ min: 0, max: 30 }),
    k: fc.integer({ min: 1, max: 12 }),
    skew: fc.boolean(),
  })
  .chain(({ shards, groups, k, skew }) =>
    fc.record({
      k: fc.constant(k),
      local: fc.array(fc.array(fc.option(fc.integer({ min: 0, max: skew ? 200 : 6 }), { nil: undefined }), { minLength: groups, maxLength: groups }), {
        minLength: shards,
        maxLength: shards,
      }),
      tieSeed: fc.integer(),
    }),
  );

function simulate(k: number, local: (number | undefined)[][], tieSeed: number) {
  let seed = tieSeed;
  const rnd = () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed;
  };
  const rows = (s: number) =>
    local[s]!.flatMap((v, g) => (v === undefined ? [] : [{ key: `g${g}`, score: BigInt(v), tie: rnd() }])).sort((a, b) =>
      a.score === b.score ? a.tie - b.tie : a.score < b.score ? 1 : -1,
    );
  const strip = (xs: { key: string; score: bigint }[]): ScoredGroup[] => xs.map(({ key, score }) => ({ key, score }));
  const round1 = new Map(local.map((_, s) => [s, strip(rows(s).slice(0, k))]));
  const verdict = afterRound1(k, round1);
  const round2 = new Map(verdict.incomplete.map((s) => [s, strip(rows(s).filter((r) => r.score >= verdict.threshold))]));
  return { verdict, cands: candidatesAfterRound2(k, round1, verdict, round2), round2 };
}

describe('TPUT bounds', () => {
  it('every group of the true top k (boundary ties included) is a candidate', () => {
    fc.assert(
      fc.property(scoresArb, ({ k, local, tieSeed }) => {
        const totals = new Map<string, bigint>();
        for (const row of local)
          row.forEach((v, g) => {
            if (v !== undefined) totals.set(`g${g}`, (totals.get(`g${g}`) ?? 0n) + BigInt(v));
          });
        const kth = kthLargest([...totals.values()], k);
        const { cands, verdict, round2 } = simulate(k, local, tieSeed);
        const set = new Set(cands.keys);
        for (const [g, t] of totals) if (totals.size <= k || t >= kth) expect(set.has(g), `${g} total ${t} kth ${kth}`).toBe(true);
        // Only groups that exist, and tau2 never above the true k-th total.
        for (const g of cands.keys) expect(totals.has(g)).toBe(true);
        if (totals.size >= k) expect(cands.tau2 <= kth).toBe(true);
        // Round 2 never asks a shard that returned fewer than k rows in round 1.
        for (const s of round2.keys()) expect(local[s]!.filter((v) => v !== undefined).length).toBeGreaterThanOrEqual(k);
        expect(verdict.threshold >= 0n).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it('prunes a skewed distribution to a few candidates', () => {
    // 3 shards, 1000 groups: group g scores ~ 1000 / (g + 1) on every shard.
    const local = [0, 1, 2].map((s) => Array.from({ length: 1000 }, (_, g) => Math.floor(1000 / (g + 1)) + ((g + s) % 3)));
    const { cands, verdict } = simulate(10, local, 1);
    expect(verdict.incomplete).toEqual([0, 1, 2]);
    expect(cands.keys.length).toBeGreaterThanOrEqual(10);
    expect(cands.keys.length).toBeLessThan(40);
  });

  it('fewer groups than k: every group is a candidate, no round 2', () => {
    const { cands, verdict } = simulate(5, [[3, 1], [undefined, 2], []], 7);
    expect(verdict.incomplete).toEqual([]);
    expect(cands.keys).toEqual(['g0', 'g1']);
  });

  it('integer threshold: ceil(tau1 / incomplete shards)', () => {
    const r1 = new Map<number, ScoredGroup[]>([
      [0, [{ key: 'a', score: 7n }]],
      [1, [{ key: 'b', score: 4n }]],
    ]);
    // k = 1: both shards returned k rows; tau1 = 7; T = ceil(7 / 2) = 4.
    expect(afterRound1(1, r1)).toEqual({ incomplete: [0, 1], tau1: 7n, threshold: 4n, minLocalKth: 4n });
  });

  it('round 2 pays when the shards agree on their best groups, not when they disagree', () => {
    const agree = [0, 1, 2].map((s) => Array.from({ length: 100 }, (_, g) => Math.floor(1000 / (g + 1)) + s));
    expect(round2Pays(simulate(10, agree, 1).verdict)).toBe(true);
    // Each shard's best groups are other groups: tau1 is one shard's k-th score, T a third of it.
    const disjoint = [0, 1, 2].map((s) => Array.from({ length: 90 }, (_, g) => (g % 3 === s ? 50 + (g % 7) : 10 + (g % 5))));
    expect(round2Pays(simulate(10, disjoint, 1).verdict)).toBe(false);
  });
});
