// Seed 003's partial, as the coordinator holds it: count, sum, min, max and the top k of
// (score, key), best first. Merging two partials is one linear merge of two sorted lists (no heap
// rebuilt from 2k items, as the seed's Rust does): O(k), and ties on score break on the unique key,
// so arrival order cannot change the result. Scores and keys are doubles in typed arrays (exact
// for |x| < 2^53, which the bench's and the seed's data respect); count/sum likewise.
export interface SeedPartial {
  count: number;
  sum: number;
  min: number;
  max: number;
  /** Top entries, best first: score descending, then key descending (the seed's tuple order). */
  scores: Float64Array;
  keys: Float64Array;
  len: number;
}

export function emptySeedPartial(k: number): SeedPartial {
  return { count: 0, sum: 0, min: Infinity, max: -Infinity, scores: new Float64Array(k), keys: new Float64Array(k), len: 0 };
}

/** Build a partial from rows (score, key), keeping the best k. */
export function seedPartialOf(rows: [number, number][], k: number): SeedPartial {
  const p = emptySeedPartial(k);
  for (const [s] of rows) {
    p.count++;
    p.sum += s;
    if (s < p.min) p.min = s;
    if (s > p.max) p.max = s;
  }
  const top = [...rows].sort((a, b) => b[0] - a[0] || b[1] - a[1]).slice(0, k);
  top.forEach(([s, key], i) => {
    p.scores[i] = s;
    p.keys[i] = key;
  });
  p.len = top.length;
  return p;
}

/**
 * Fold `b` into `acc` (mutating acc). `scratch` is a second partial of the same k used as the
 * output buffer; the two are swapped, so steady-state merges allocate nothing. Returns the new acc.
 */
export function mergeSeedPartial(acc: SeedPartial, b: SeedPartial, scratch: SeedPartial): SeedPartial {
  scratch.count = acc.count + b.count;
  scratch.sum = acc.sum + b.sum;
  scratch.min = acc.min < b.min ? acc.min : b.min;
  scratch.max = acc.max > b.max ? acc.max : b.max;
  const k = scratch.scores.length;
  const as = acc.scores,
    ak = acc.keys,
    bs = b.scores,
    bk = b.keys;
  const os = scratch.scores,
    ok = scratch.keys;
  const an = acc.len,
    bn = b.len;
  let i = 0,
    j = 0,
    n = 0;
  while (n < k && (i < an || j < bn)) {
    let takeA: boolean;
    if (j >= bn) takeA = true;
    else if (i >= an) takeA = false;
    else takeA = as[i]! > bs[j]! || (as[i] === bs[j] && ak[i]! >= bk[j]!);
    if (takeA) {
      os[n] = as[i]!;
      ok[n] = ak[i]!;
      i++;
    } else {
      os[n] = bs[j]!;
      ok[n] = bk[j]!;
      j++;
    }
    n++;
  }
  scratch.len = n;
  return scratch;
}

/** Fold many partials; the result does not depend on their order. */
export function foldSeedPartials(parts: SeedPartial[], k: number): SeedPartial {
  let acc = emptySeedPartial(k);
  let spare = emptySeedPartial(k);
  for (const p of parts) {
    const out = mergeSeedPartial(acc, p, spare);
    spare = acc;
    acc = out;
  }
  return acc;
}
