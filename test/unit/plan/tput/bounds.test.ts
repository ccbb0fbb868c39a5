// TPUT's one-round arithmetic against brute force: for any scores on any number of shards, any k,
// and any choice among tied groups at a shard's k-th place, each shard returning every group from
// ceil(its k-th score / shards) up (all of them when it has fewer than k), every group whose total
// reaches the k-th best total is a candidate (so the query over the candidates is exact, ties at
// the boundary included), and every group no shard returned is below tau.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { candidatesAfterOneRound, kthLargest, oneRoundPays, shardThresholds, type ScoredGroup } from '../../../../shared/core/plan/tput/bounds.js';

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

/**
 * What each shard's one-round SQL returns, computed the way it is written: the k-th largest of the
 * shard's scores (ties resolved in any order, the returned rows come in any order), then every
 * group with score >= ceil(kth / m), or all when fewer than k.
 */
function oneRound(k: number, local: (number | undefined)[][], tieSeed: number) {
  let seed = tieSeed;
  const rnd = () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed;
  };
  const m = local.length;
  const answers = new Map<number, ScoredGroup[]>();
  local.forEach((row, s) => {
    const groups = row.flatMap((v, g) => (v === undefined ? [] : [{ key: `g${g}`, score: BigInt(v), order: rnd() }]));
    const sorted = groups.map((x) => x.score).sort((a, b) => (a < b ? 1 : a > b ? -1 : 0));
    const kept = sorted.length < k ? groups : groups.filter((x) => x.score * BigInt(m) >= sorted[k - 1]!);
    answers.set(
      s,
      kept.sort((a, b) => a.order - b.order).map(({ key, score }) => ({ key, score })),
    );
  });
  return { m, answers, cands: candidatesAfterOneRound(k, m, answers) };
}

function totalsOf(local: (number | undefined)[][]): Map<string, bigint> {
  const totals = new Map<string, bigint>();
  for (const row of local)
    row.forEach((v, g) => {
      if (v !== undefined) totals.set(`g${g}`, (totals.get(`g${g}`) ?? 0n) + BigInt(v));
    });
  return totals;
}

describe('TPUT bounds, one round', () => {
  it('every group of the true top k (boundary ties included) is a candidate; unseen groups are below tau', () => {
    fc.assert(
      fc.property(scoresArb, ({ k, local, tieSeed }) => {
        const totals = totalsOf(local);
        const kth = kthLargest([...totals.values()], k);
        const { m, answers, cands } = oneRound(k, local, tieSeed);
        const set = new Set(cands.keys);
        for (const [g, t] of totals) if (totals.size <= k || t >= kth) expect(set.has(g), `${g} total ${t} kth ${kth}`).toBe(true);
        // Only groups that exist, and tau never above the true k-th total.
        for (const g of cands.keys) expect(totals.has(g)).toBe(true);
        if (totals.size >= k) expect(cands.tau <= kth).toBe(true);
        // Per shard: complete iff fewer than k groups; the k-th score read back is the shard's own.
        for (const t of cands.shards) {
          const own = local[t.shard]!.filter((v): v is number => v !== undefined).map(BigInt);
          expect(t.complete).toBe(own.length < k);
          if (!t.complete) {
            expect(t.kth).toBe(kthLargest(own, k));
            expect(t.threshold).toBe((t.kth + BigInt(m) - 1n) / BigInt(m));
          }
        }
        // The pruning guarantee, by brute force: a group no shard returned has a true total below
        // tau, and below the k-th true total: it cannot be in the answer.
        const returned = new Set([...answers.values()].flatMap((rows) => rows.map((r) => r.key)));
        for (const [g, t] of totals) {
          if (returned.has(g)) continue;
          expect(t < cands.tau, `${g} unseen with total ${t}, tau ${cands.tau}`).toBe(true);
          expect(t < kth).toBe(true);
        }
        // Each candidate's upper bound holds: its true total never exceeds what the bounds allow.
        const slack = new Map(cands.shards.filter((t) => !t.complete).map((t) => [t.shard, t.threshold > 0n ? t.threshold - 1n : 0n]));
        for (const [g, t] of totals) {
          let upper = 0n;
          for (const [s, rows] of answers) {
            const r = rows.find((x) => x.key === g);
            upper += r ? r.score : (slack.get(s) ?? 0n);
          }
          expect(t <= upper, `${g}: total ${t} over its upper bound ${upper}`).toBe(true);
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('prunes a skewed distribution to a few candidates', () => {
    // 3 shards, 1000 groups: group g scores ~ 1000 / (g + 1) on every shard.
    const local = [0, 1, 2].map((s) => Array.from({ length: 1000 }, (_, g) => Math.floor(1000 / (g + 1)) + ((g + s) % 3)));
    const { cands } = oneRound(10, local, 1);
    expect(cands.shards.every((t) => !t.complete)).toBe(true);
    expect(cands.keys.length).toBeGreaterThanOrEqual(10);
    expect(cands.keys.length).toBeLessThan(40);
    expect(oneRoundPays(10, cands)).toBe(true);
  });

  it('fewer groups than k: every shard is complete, every group is a candidate', () => {
    const { cands } = oneRound(5, [[3, 1], [undefined, 2], []], 7);
    expect(cands.shards.map((t) => t.complete)).toEqual([true, true, true]);
    expect(cands.keys).toEqual(['g0', 'g1']);
  });

  it('integer thresholds: ceil(the shard k-th score / shards asked)', () => {
    const answers = new Map<number, ScoredGroup[]>([
      [0, [{ key: 'a', score: 7n }]],
      [1, [{ key: 'b', score: 4n }]],
    ]);
    expect(shardThresholds(1, 2, answers)).toEqual([
      { shard: 0, complete: false, kth: 7n, threshold: 4n },
      { shard: 1, complete: false, kth: 4n, threshold: 2n },
    ]);
    // k = 1: tau = 7; b's upper = 4 + (4 - 1) = 7 >= 7: both stay.
    expect(candidatesAfterOneRound(1, 2, answers)).toMatchObject({ keys: ['a', 'b'], tau: 7n, seen: 2 });
  });

  it('the round pays when the shards agree on their best groups, not when they disagree', () => {
    const agree = [0, 1, 2].map((s) => Array.from({ length: 100 }, (_, g) => Math.floor(1000 / (g + 1)) + s));
    expect(oneRoundPays(10, oneRound(10, agree, 1).cands)).toBe(true);
    // Each shard's best groups are other groups: tau is about one shard's k-th score, the
    // thresholds a third of it, and most groups stay candidates.
    const disjoint = [0, 1, 2].map((s) => Array.from({ length: 90 }, (_, g) => (g % 3 === s ? 50 + (g % 7) : 10 + (g % 5))));
    const d = oneRound(10, disjoint, 1).cands;
    expect(oneRoundPays(10, d)).toBe(false);
  });
});
