// The arithmetic of TPUT (Cao & Wang, "Efficient top-K query calculation in distributed
// networks", 2004) in its one-round form, with no I/O: what the shards' answers imply (the
// candidate groups for the query over the candidates). Pure, so the property tests can drive it
// with any split of the rows and any arrival order.
//
// Scores are non-negative integers that add up across shards (count, or a sum of unsigned values).
// m = the shards asked. Shard j computes its own k-th best local score s_j and returns every group
// whose local score is >= T_j = ceil(s_j / m); a shard with fewer than k groups returns them all
// ("complete": a group it did not name has 0 there). The coordinator reads s_j back as the k-th best
// score the shard returned (its top k are all returned, since their scores are >= s_j >= T_j), and
// a shard that returned fewer than k rows is complete. Then:
//   lower(g) = the sum of the scores reported for g
//   upper(g) = lower(g) + (T_j - 1) for each incomplete shard j that did not report g
//   tau      = the k-th largest lower bound (<= the k-th largest true score)
//   candidates = { g : upper(g) >= tau }   (>=: a group tied with the k-th score stays)
// Why it is exact: each incomplete shard's top k groups are all reported, each with lower >= s_j,
// so at least k groups have lower >= s_j: tau >= max_j s_j. A group reported nowhere has
// upper <= sum_j (T_j - 1) < sum_j s_j / m <= max_j s_j <= tau, so it is pruned, rightly. Every group
// of the true top k (ties at the boundary included, whatever the other ORDER BY keys say) has
// upper >= its true score >= the k-th true score >= tau: a candidate.

/** One group as a shard reported it: its key (a stable text of the key values), and its local score. */
export interface ScoredGroup {
  key: string;
  score: bigint;
}

/** What one shard's answer says about the groups it did not report. */
export interface ShardThreshold {
  shard: number;
  /** Fewer than k rows: the shard returned every group it holds. */
  complete: boolean;
  /** Its k-th best local score s_j (0 when complete). */
  kth: bigint;
  /** ceil(s_j / m): a group it did not report scores at most this minus one there (0 when complete). */
  threshold: bigint;
}

export interface Candidates {
  /** The candidate groups' keys, sorted (a stable SQL text whatever the arrival order). */
  keys: string[];
  /** The k-th largest lower bound (0 when fewer than k groups were seen). */
  tau: bigint;
  /** How many distinct groups the shards named. */
  seen: number;
  /** Per shard asked, in shard order. */
  shards: ShardThreshold[];
}

/** Per shard: complete or not, its k-th local score, its threshold ceil(s_j / m). */
export function shardThresholds(k: number, m: number, answers: ReadonlyMap<number, readonly ScoredGroup[]>): ShardThreshold[] {
  return [...answers.entries()]
    .sort(([a], [b]) => a - b)
    .map(([shard, rows]) => {
      if (rows.length < k) return { shard, complete: true, kth: 0n, threshold: 0n };
      const kth = kthLargest(
        rows.map((r) => r.score),
        k,
      );
      return { shard, complete: false, kth, threshold: ceilDiv(kth, BigInt(m)) };
    });
}

/**
 * The groups that may be in the top k, from every asked shard's answer (`m` = the shards asked:
 * the divisor each shard used).
 */
export function candidatesAfterOneRound(k: number, m: number, answers: ReadonlyMap<number, readonly ScoredGroup[]>): Candidates {
  const shards = shardThresholds(k, m, answers);
  const known = new Map<string, Map<number, bigint>>();
  for (const [shard, rows] of answers) {
    for (const r of rows) {
      let byShard = known.get(r.key);
      if (!byShard) {
        byShard = new Map();
        known.set(r.key, byShard);
      }
      byShard.set(shard, r.score);
    }
  }
  const incomplete = shards.filter((s) => !s.complete);
  // A shard whose k-th score is 0 returned every group (every score is >= 0): no slack there.
  const slackOf = (s: ShardThreshold) => (s.threshold > 0n ? s.threshold - 1n : 0n);
  const lower = new Map<string, bigint>();
  const upper = new Map<string, bigint>();
  for (const [key, byShard] of known) {
    let lo = 0n;
    for (const v of byShard.values()) lo += v;
    let hi = lo;
    for (const s of incomplete) if (!byShard.has(s.shard)) hi += slackOf(s);
    lower.set(key, lo);
    upper.set(key, hi);
  }
  const tau = kthLargest([...lower.values()], k);
  // A group named by no shard is below tau (see the header); said here so a broken premise shows.
  // (tau = 0 means every k-th score is 0: each shard returned every group, none is unseen.)
  const unseen = incomplete.reduce((a, s) => a + slackOf(s), 0n);
  if (tau > 0n && unseen >= tau) throw new Error(`TPUT invariant broken: an unseen group may reach ${unseen} >= tau ${tau}`);
  const keys = [...upper.entries()]
    .filter(([, hi]) => hi >= tau)
    .map(([key]) => key)
    .sort();
  return { keys, tau, seen: known.size, shards };
}

/**
 * Whether the round pruned enough for the query over the candidates to pay, compared with every
 * group: at most 4k candidates, or at most half the groups seen. When the shards disagree on their
 * best groups (each holds its own), tau is about one shard's k-th score while the thresholds are a
 * 1/m of theirs, so most groups stay candidates and every group in one round is cheaper
 * (docs/architecture.md#exact-top-count-tput).
 */
export function oneRoundPays(k: number, c: Candidates): boolean {
  return c.keys.length <= 4 * k || 2 * c.keys.length <= c.seen;
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
