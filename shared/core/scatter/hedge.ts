// Hedged requests (Dean & Barroso, "The Tail at Scale"): when a shard has taken
// longer than its recent p95, send the same request to another replica; the first answer wins and
// the loser is aborted. The state lives in the warm container (module scope of the coordinator),
// so the windows learn across queries:
//  - a rolling latency window per shard, fed with the WINNING attempt's own latency (a replica
//    that always straggles does not drag the shard's p95 up and switch hedging off);
//  - a token bucket credited maxExtraPercent/100 per shard request and charged 1 per hedge, so
//    hedges never exceed that share of shard requests, even under overload (unbounded hedges
//    would add load exactly when shards are slow).
// A shard with one replica is never hedged: there is nowhere else to send it.

export const DEFAULT_WINDOW_SIZE = 128;
/** Below this many samples a shard's own p95 is noise; fall back to the all-shards window. */
export const MIN_SAMPLES = 8;
/** With no history at all (cold container): hedge after this long. */
export const COLD_START_HEDGE_DELAY_MS = 250;
/** Never hedge sooner than this: scheduling jitter on a fast shard is not a straggler. */
export const MIN_HEDGE_DELAY_MS = 2;
/**
 * Never hedge before this many times the shard's median either. Why: when stragglers are rare (1% of
 * requests), a p95 trigger lands inside the NORMAL latency spread and fires on ~5% of healthy requests;
 * at wide fan-out those false hedges drain the token bucket in bursts and the real straggler of the
 * query goes unhedged (docs/benchmarks.md#3-hedged-requests-under-stragglers-hedging: without it, p99
 * at 64 shards stays near a straggler's latency). A request at twice the median is a straggler, not
 * jitter.
 */
export const MEDIAN_HEDGE_FACTOR = 2;

/** A replica that failed is not picked as primary for this long (it is still a retry/hedge target). */
export const SUSPECT_MS = 5_000;

export class LatencyWindow {
  private readonly buf: number[] = [];
  /**
   * The same samples kept sorted, updated on each record (a binary search and one splice of at most
   * `size` numbers): the hedge delay reads two quantiles per shard call, and sorting a copy of the
   * window for each was most of a hedged call's bookkeeping.
   */
  private readonly sorted: number[] = [];
  private next = 0;
  constructor(readonly size = DEFAULT_WINDOW_SIZE) {}
  record(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) return;
    if (this.buf.length < this.size) this.buf.push(ms);
    else {
      this.sorted.splice(lowerBound(this.sorted, this.buf[this.next]!), 1);
      this.buf[this.next] = ms;
      this.next = (this.next + 1) % this.size;
    }
    this.sorted.splice(lowerBound(this.sorted, ms), 0, ms);
  }
  get count(): number {
    return this.buf.length;
  }
  /** Nearest-rank quantile of the window, undefined when empty. */
  quantile(q: number): number | undefined {
    const s = this.sorted;
    if (s.length === 0) return undefined;
    const rank = Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1));
    return s[rank];
  }
}

/** The first index of sorted `xs` whose value is >= x. */
function lowerBound(xs: readonly number[], x: number): number {
  let lo = 0;
  let hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (xs[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** How many queries' worth of hedge credit a bucket may bank at the widest fan-out it has seen. */
export const FANOUT_BANK_QUERIES = 4;

export class TokenBucket {
  private tokens = 0;
  private credited = 0;
  private spent = 0;
  private cap: number;
  /** ratio = maxExtraPercent / 100. Tokens start at 0: a hedge is always paid for by earlier requests. */
  constructor(
    readonly ratio: number,
    capacity?: number,
  ) {
    this.cap = capacity ?? Math.max(1, ratio * 100);
  }
  get capacity(): number {
    return this.cap;
  }
  /**
   * Let the bucket bank FANOUT_BANK_QUERIES queries' worth of credit at this fan-out. Why: a
   * 64-shard query at 5% earns 3.2 tokens, and a fixed capacity of 5 cannot absorb a query with
   * more stragglers than usual, so its last straggler goes unhedged and sets p99. The long-run
   * bound is unchanged: every token is still earned by an earlier request (hedges <= ratio x requests).
   */
  fitFanout(fanout: number): void {
    this.cap = Math.max(this.cap, this.ratio * fanout * FANOUT_BANK_QUERIES);
  }
  /** One shard request was sent: earn `ratio` of a hedge. */
  credit(): void {
    this.credited++;
    this.tokens = Math.min(this.capacity, this.tokens + this.ratio);
  }
  /** Spend one hedge if the budget allows. */
  take(): boolean {
    if (this.tokens + 1e-9 < 1) return false;
    this.tokens -= 1;
    this.spent++;
    return true;
  }
  get available(): number {
    return this.tokens;
  }
  get stats(): { requests: number; hedges: number } {
    return { requests: this.credited, hedges: this.spent };
  }
}

export interface HedgeState {
  shard(shard: number): LatencyWindow;
  readonly all: LatencyWindow;
  bucket(maxExtraPercent: number): TokenBucket;
  /**
   * Round-robin primary replica, so every replica keeps serving (and keeps its latency known),
   * skipping a replica that failed within the last SUSPECT_MS while another one has not.
   */
  nextReplica(shard: number, replicas: number): number;
  /** Outcome of one attempt against a replica (feeds the skip-recently-failed rule). */
  replicaResult(shard: number, replica: number, ok: boolean): void;
  /** Whether a replica has not failed within the last SUSPECT_MS (a pinned page reads it only then). */
  healthy(shard: number, replica: number): boolean;
  /** Delay after which a request to `shard` gets hedged: max(quantile, MEDIAN_HEDGE_FACTOR x median, MIN_HEDGE_DELAY_MS). */
  hedgeDelayMs(shard: number, quantile: number): number;
}

export function createHedgeState(
  opts: { windowSize?: number; minSamples?: number; coldStartDelayMs?: number; now?: () => number; medianFactor?: number } = {},
): HedgeState {
  const now = opts.now ?? Date.now;
  const failedAt = new Map<string, number>(); // "shard/replica" -> last failure time
  const windows = new Map<number, LatencyWindow>();
  const all = new LatencyWindow(opts.windowSize ?? DEFAULT_WINDOW_SIZE);
  const buckets = new Map<number, TokenBucket>();
  const nextPrimaryByShard = new Map<number, number>();
  const minSamples = opts.minSamples ?? MIN_SAMPLES;
  const cold = opts.coldStartDelayMs ?? COLD_START_HEDGE_DELAY_MS;
  const medianFactor = opts.medianFactor ?? MEDIAN_HEDGE_FACTOR;
  const win = (s: number) => {
    let latencies = windows.get(s);
    if (!latencies) {
      latencies = new LatencyWindow(opts.windowSize ?? DEFAULT_WINDOW_SIZE);
      windows.set(s, latencies);
    }
    return latencies;
  };
  return {
    shard: win,
    all,
    bucket(pct: number) {
      // One bucket per configured percentage: a config change in a warm container starts a fresh budget.
      let bucket = buckets.get(pct);
      if (!bucket) {
        bucket = new TokenBucket(pct / 100);
        buckets.set(pct, bucket);
      }
      return bucket;
    },
    nextReplica(shard, replicas) {
      const i = nextPrimaryByShard.get(shard) ?? 0;
      nextPrimaryByShard.set(shard, i + 1);
      if (failedAt.size === 0) return i % replicas; // no replica failed lately: plain round-robin
      const t = now();
      for (let k = 0; k < replicas; k++) {
        const r = (i + k) % replicas;
        const f = failedAt.get(`${shard}/${r}`);
        if (f === undefined || t - f > SUSPECT_MS) return r;
      }
      return i % replicas; // every replica failed recently: plain round-robin
    },
    healthy(shard, replica) {
      const f = failedAt.get(`${shard}/${replica}`);
      return f === undefined || now() - f > SUSPECT_MS;
    },
    replicaResult(shard, replica, ok) {
      if (ok) {
        if (failedAt.size > 0) failedAt.delete(`${shard}/${replica}`);
      } else failedAt.set(`${shard}/${replica}`, now());
    },
    hedgeDelayMs(shard, quantile) {
      const own = win(shard);
      const latencies = own.count >= minSamples ? own : all.count >= minSamples ? all : undefined;
      if (!latencies) return Math.max(MIN_HEDGE_DELAY_MS, cold);
      const triggerMs = latencies.quantile(quantile) ?? cold;
      const median = latencies.quantile(0.5) ?? 0;
      return Math.max(MIN_HEDGE_DELAY_MS, triggerMs, medianFactor * median);
    },
  };
}
