// The arithmetic of TPUT (Cao & Wang, "Efficient top-K query calculation in distributed
// networks", 2004), with no I/O: what round 1's answers imply (the threshold for round 2), and
// what rounds 1 and 2 together imply (the candidate groups for round 3). Pure, so the property
// tests can drive it with any split of the rows and any arrival order.
//
// Scores are non-negative integers that add up across shards (count, or a sum of unsigned values).
// Round 1: each shard's k best groups. A shard that returned fewer than k rows returned every group
// it has ("complete": a group it did not name has 0 there). tau1 = the k-th best partial sum.
// Round 2: each incomplete shard returns every group whose local score is >= T = ceil(tau1 / I),
// I = the number of incomplete shards. After it, a shard's score for a group it did not report is
// at most T - 1, so:
//   lower(g) = the sum of the scores reported for g (rounds 1 and 2: the same value when both report it)
//   upper(g) = lower(g) + (T - 1) for each incomplete shard that reported nothing for g
//   tau2     = the k-th largest lower bound (<= the k-th largest true score)
//   candidates = { g : upper(g) >= tau2 }   (>=: a group tied with the k-th score stays)
// A group no shard named in round 2 has a score <= I * (T - 1) < tau1 <= tau2, so it cannot be in
// the answer. Every group of the true top k (ties at the boundary included, whatever the other
// ORDER BY keys say) has a score >= the k-th true score >= tau2, hence upper >= tau2: a candidate.

/** One group as a shard reported it: its key (a stable text of the key values), and its local score. */
export interface ScoredGroup {
  key: string;
  score: bigint;
}

export interface Round1Verdict {
  /** Shards whose round-1 answer had k rows: they may hold more groups (asked again in round 2). */
  incomplete: number[];
  /** The k-th best partial sum (0 when fewer than k groups were seen). */
  tau1: bigint;
  /** Round 2's threshold: ceil(tau1 / incomplete.length) (0 when no shard is incomplete). */
  threshold: bigint;
  /** The smallest k-th local score among the incomplete shards (0 when none is incomplete). */
  minLocalKth: bigint;
}

/** Round 1: which shards to ask again, and from which local score up. */
export function afterRound1(k: number, round1: ReadonlyMap<number, readonly ScoredGroup[]>): Round1Verdict {
  const incomplete = [...round1.entries()]
    .filter(([, rows]) => rows.length >= k)
    .map(([s]) => s)
    .sort((a, b) => a - b);
  const sums = partialSums([round1]);
  const tau1 = kthLargest([...sums.values()], k);
  const threshold = incomplete.length === 0 ? 0n : ceilDiv(tau1, BigInt(incomplete.length));
  let minLocalKth: bigint | undefined;
  for (const s of incomplete) {
    for (const r of round1.get(s)!) if (minLocalKth === undefined || r.score < minLocalKth) minLocalKth = r.score;
  }
  return { incomplete, tau1, threshold, minLocalKth: minLocalKth ?? 0n };
}

/**
 * Whether round 2 is likely to pay: when the shards agree on their best groups, tau1 is about
 * I times a shard's k-th local score, so T is about that score and round 2 returns little more than
 * round 1. When they disagree (a uniform key), tau1 is about one shard's k-th score, T about 1/I of
 * it, and round 2 returns most groups: then every group in one round is cheaper (measured:
 * docs/benchmarks.md#exact-top-count-tput-vs-every-group). The cut: T under half the smallest
 * k-th local score among the shards asked again.
 */
export function round2Pays(v: Round1Verdict): boolean {
  return v.incomplete.length === 0 || 2n * v.threshold >= v.minLocalKth;
}

export interface Candidates {
  /** The candidate groups' keys, sorted (a stable SQL text whatever the arrival order). */
  keys: string[];
  tau2: bigint;
  /** How many distinct groups rounds 1 and 2 named. */
  seen: number;
}

/**
 * Rounds 1 and 2: the groups that may be in the top k. `round2` holds the answers of the shards
 * `verdict.incomplete` names (every group there with a local score >= verdict.threshold).
 */
export function candidatesAfterRound2(
  k: number,
  round1: ReadonlyMap<number, readonly ScoredGroup[]>,
  verdict: Round1Verdict,
  round2: ReadonlyMap<number, readonly ScoredGroup[]>,
): Candidates {
  // Per group: the shards that reported it (with the score) in either round.
  const known = new Map<string, Map<number, bigint>>();
  for (const round of [round1, round2]) {
    for (const [shard, rows] of round) {
      for (const r of rows) {
        let m = known.get(r.key);
        if (!m) {
          m = new Map();
          known.set(r.key, m);
        }
        m.set(shard, r.score);
      }
    }
  }
  const slack = verdict.threshold > 0n ? verdict.threshold - 1n : 0n;
  const lower = new Map<string, bigint>();
  const upper = new Map<string, bigint>();
  for (const [key, byShard] of known) {
    let lo = 0n;
    for (const v of byShard.values()) lo += v;
    let hi = lo;
    for (const s of verdict.incomplete) if (!byShard.has(s)) hi += slack;
    lower.set(key, lo);
    upper.set(key, hi);
  }
  const tau2 = kthLargest([...lower.values()], k);
  // A group named by no shard is below tau2 (see the header); said here so a broken premise shows.
  if (verdict.threshold > 0n && BigInt(verdict.incomplete.length) * slack >= tau2 && known.size >= k) {
    throw new Error(`TPUT invariant broken: an unseen group may reach ${BigInt(verdict.incomplete.length) * slack} >= tau2 ${tau2}`);
  }
  const keys = [...upper.entries()]
    .filter(([, hi]) => hi >= tau2)
    .map(([key]) => key)
    .sort();
  return { keys, tau2, seen: known.size };
}

/** Per group, the sum of the scores the given rounds reported (a shard's score counted once). */
function partialSums(rounds: ReadonlyMap<number, readonly ScoredGroup[]>[]): Map<string, bigint> {
  const perShard = new Map<string, Map<number, bigint>>();
  for (const round of rounds)
    for (const [shard, rows] of round)
      for (const r of rows) {
        let m = perShard.get(r.key);
        if (!m) {
          m = new Map();
          perShard.set(r.key, m);
        }
        m.set(shard, r.score);
      }
  const out = new Map<string, bigint>();
  for (const [key, m] of perShard) {
    let s = 0n;
    for (const v of m.values()) s += v;
    out.set(key, s);
  }
  return out;
}

/** The k-th largest value (1-based), or 0 when there are fewer than k. */
export function kthLargest(values: bigint[], k: number): bigint {
  if (values.length < k) return 0n;
  const sorted = [...values].sort((a, b) => (a < b ? 1 : a > b ? -1 : 0));
  return sorted[k - 1]!;
}

function ceilDiv(a: bigint, b: bigint): bigint {
  return (a + b - 1n) / b;
}
