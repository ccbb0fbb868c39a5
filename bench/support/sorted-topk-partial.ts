// A scatter-gather partial (the merge bench's subject), as a coordinator holds it: count, sum, min, max
// and the top k of (score, key), best first. Merging two partials is one linear merge of two sorted
// lists (no heap rebuilt from 2k items, as the Rust reference in bench/merge.ts does): O(k), and ties
// on score break on the unique key, so arrival order cannot change the result. Scores and keys are
// doubles in typed arrays (exact for |x| < 2^53, which the bench's data respects); count/sum likewise.
export interface SortedTopkPartial {
  count: number;
  sum: number;
  min: number;
  max: number;
  /** Top entries, best first: score descending, then key descending (tuple order). */
  scores: Float64Array;
  keys: Float64Array;
  len: number;
}

export function emptySortedTopkPartial(k: number): SortedTopkPartial {
  return { count: 0, sum: 0, min: Infinity, max: -Infinity, scores: new Float64Array(k), keys: new Float64Array(k), len: 0 };
}

/** Build a partial from rows (score, key), keeping the best k. */
export function sortedTopkPartialOf(rows: [number, number][], k: number): SortedTopkPartial {
  const p = emptySortedTopkPartial(k);
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
export function mergeSortedTopkPartials(acc: SortedTopkPartial, b: SortedTopkPartial, scratch: SortedTopkPartial): SortedTopkPartial {
  scratch.count = acc.count + b.count;
  scratch.sum = acc.sum + b.sum;
  scratch.min = Math.min(acc.min, b.min);
  scratch.max = Math.max(acc.max, b.max);
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
export function foldSortedTopkPartials(parts: SortedTopkPartial[], k: number): SortedTopkPartial {
  let acc = emptySortedTopkPartial(k);
  let spare = emptySortedTopkPartial(k);
  for (const p of parts) {
    const out = mergeSortedTopkPartials(acc, p, spare);
    spare = acc;
    acc = out;
  }
  return acc;
}
