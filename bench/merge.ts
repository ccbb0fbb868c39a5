// Merge cost of a scatter-gather top-k partial (count, sum, min, max, top-k of (score, key)): one
// merge at k = 10 and k = 100, and folding 64 partials. The reference column is a Rust
// implementation of the same partial that keeps its top k in a binary heap, measured once on this
// machine (`ref` below; results in docs/benchmarks.md#planner-and-merge-plan-merge). Ours is a linear
// merge of two sorted lists into a reused buffer (bench/support/sorted-topk-partial.ts).
import {
  emptySortedTopkPartial,
  foldSortedTopkPartials,
  mergeSortedTopkPartials,
  sortedTopkPartialOf,
  type SortedTopkPartial,
} from './support/sorted-topk-partial.js';

function partials(count: number, k: number, seed: number): SortedTopkPartial[] {
  let x = seed >>> 0;
  const next = () => {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    return x;
  };
  return Array.from({ length: count }, (_, p) => {
    const rows: [number, number][] = [];
    for (let i = 0; i < 1000; i++) rows.push([(next() % 100_003) - 50_000, p * 1000 + i]);
    return sortedTopkPartialOf(rows, k);
  });
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

/** ns per merge of one partial into a running accumulator. */
function timeMerge(k: number, quick: boolean): number {
  const parts = partials(64, k, 7);
  let acc = foldSortedTopkPartials(parts.slice(0, 8), k);
  let spare = emptySortedTopkPartial(k);
  const iters = quick ? 50_000 : 400_000;
  const runs: number[] = [];
  for (let r = 0; r < (quick ? 3 : 7); r++) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < iters; i++) {
      const out = mergeSortedTopkPartials(acc, parts[i & 63]!, spare);
      spare = acc;
      acc = out;
    }
    runs.push(Number(process.hrtime.bigint() - t0) / iters);
  }
  if (acc.count <= 0) throw new Error('unreachable');
  return median(runs);
}

/** us to fold 64 partials from empty. */
function timeFold(k: number, quick: boolean): number {
  const parts = partials(64, k, 11);
  const iters = quick ? 500 : 4000;
  const runs: number[] = [];
  let sink = 0;
  for (let r = 0; r < (quick ? 3 : 7); r++) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < iters; i++) sink += foldSortedTopkPartials(parts, k).len;
    runs.push(Number(process.hrtime.bigint() - t0) / iters / 1000);
  }
  if (sink <= 0) throw new Error('unreachable');
  return median(runs);
}

export async function run(opts: { quick: boolean }): Promise<{ table: string; json: Record<string, unknown> }> {
  // Warm up the JIT on both sizes before measuring.
  timeMerge(10, true);
  timeMerge(100, true);
  const json = {
    merge_ns_k10: Math.round(timeMerge(10, opts.quick)),
    merge_ns_k100: Math.round(timeMerge(100, opts.quick)),
    fold64_us_k10: Math.round(timeFold(10, opts.quick) * 10) / 10,
    fold64_us_k100: Math.round(timeFold(100, opts.quick) * 10) / 10,
  };
  const ref = { merge_ns_k10: '266 ns', merge_ns_k100: '4.6 us', fold64_us_k10: '17 us', fold64_us_k100: '300 us' };
  const table = [
    '| measure | ours | Rust binary heap (reference) |',
    '|---|---|---|',
    `| merge one partial, k = 10 | ${json.merge_ns_k10} ns | ${ref.merge_ns_k10} |`,
    `| merge one partial, k = 100 | ${json.merge_ns_k100} ns | ${ref.merge_ns_k100} |`,
    `| fold 64 partials, k = 10 | ${json.fold64_us_k10} us | ${ref.fold64_us_k10} |`,
    `| fold 64 partials, k = 100 | ${json.fold64_us_k100} us | ${ref.fold64_us_k100} |`,
  ].join('\n');
  return { table, json };
}
