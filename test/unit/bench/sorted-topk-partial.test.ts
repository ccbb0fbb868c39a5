// The merge bench's sorted top-k partial: folding any split of the rows, in any order, equals the
// partial of all rows (count, sum, min, max, and the top k by (score, key) — ties broken by the unique
// key).
import fc from 'fast-check';
import { expect, test } from 'vitest';
import { foldSortedTopkPartials, sortedTopkPartialOf } from '../../../bench/support/sorted-topk-partial.js';

const view = (p: ReturnType<typeof sortedTopkPartialOf>) => ({
  count: p.count,
  sum: p.sum,
  min: p.min,
  max: p.max,
  top: Array.from({ length: p.len }, (_, i) => [p.scores[i], p.keys[i]]),
});

test('any split and any order fold to the partial of all rows', () => {
  fc.assert(
    fc.property(
      fc.uniqueArray(fc.tuple(fc.integer({ min: -50, max: 50 }), fc.integer({ min: 0, max: 100000 })), { selector: (r) => r[1], maxLength: 200 }),
      fc.integer({ min: 1, max: 12 }),
      fc.integer({ min: 1, max: 30 }),
      fc.func(fc.integer()),
      (rows, shards, k, f) => {
        const parts = Array.from({ length: shards }, (_, s) =>
          sortedTopkPartialOf(
            rows.filter((_r, i) => Math.abs(f(i)) % shards === s),
            k,
          ),
        );
        const shuffled = [...parts].sort((a, b) => f(a.count * 31 + a.len) - f(b.count * 31 + b.len));
        const whole = view(sortedTopkPartialOf(rows, k));
        expect(view(foldSortedTopkPartials(parts, k))).toEqual(whole);
        expect(view(foldSortedTopkPartials(shuffled, k))).toEqual(whole);
      },
    ),
    { numRuns: 300 },
  );
});
