// The deadline covers the coordinator's own work too: merging each partial and the finalize run on
// this thread after the shards answered, and a heavy partial (uniqExact sets, quantileExact values)
// can take longer to merge than the time left. From measured throughput (this process's recent
// merges and finalizes, per unit of partial: one value, an array element counting as one), the
// gather stops waiting for shards when the time left would only cover the finalize of what is
// merged, and a partial that arrives too late for its merge plus that finalize is not merged: the
// answer goes out at the deadline with what is merged, partial, each such shard listed with why
// (docs/operations.md#the-deadline-and-the-merge).

/** Units of merge work in a shard's partial rows: one per value, plus one per array element. */
export function partialUnits(rows: readonly Record<string, unknown>[]): number {
  let n = 0;
  for (const r of rows) {
    for (const k in r) {
      const v = r[k];
      n += Array.isArray(v) ? v.length + 1 : 1;
    }
  }
  return n;
}

/** Milliseconds per unit, an exponentially weighted mean of measured runs (weight of a new run). */
class Rate {
  constructor(
    private msPerUnit: number,
    private readonly weight = 0.3,
  ) {}
  /** A run of `units` that took `ms`; runs too small to time are ignored. */
  record(units: number, ms: number): void {
    if (units < 2000 || ms <= 0) return;
    const r = ms / units;
    // A slower run counts fully at once (a loaded machine must not overrun); a faster one slowly.
    this.msPerUnit = r > this.msPerUnit ? r : this.msPerUnit + this.weight * (r - this.msPerUnit);
  }
  estimate(units: number): number {
    return units * this.msPerUnit;
  }
  get value(): number {
    return this.msPerUnit;
  }
}

/**
 * Priors measured on the 2-core development machine (uniqExact + quantileExact partials of the
 * demo table, docs/operations.md#the-deadline-and-the-merge), rounded up: a cold process starts
 * cautious and learns its own speed from its first merges.
 */
const PRIOR_MERGE_MS_PER_UNIT = 0.001;
const PRIOR_FINALIZE_MS_PER_UNIT = 0.003;

export class MergeBudget {
  private merged = 0;
  constructor(
    private readonly rates: { merge: Rate; finalize: Rate },
    readonly deadlineAt: number,
  ) {}

  /** Units merged so far in this query. */
  get mergedUnits(): number {
    return this.merged;
  }

  /** The instant past which waiting for more partials would push the finalize past the deadline. */
  cutoff(): number {
    // Serializing the answer is not budgeted: it is small next to a heavy finalize, and the
    // answer may be late by that much (docs/operations.md#the-deadline-and-the-merge).
    return this.deadlineAt - this.rates.finalize.estimate(this.merged);
  }

  /** Whether a partial of `units` arriving at `now` can be merged and finalized by the deadline. */
  fits(units: number, now: number): boolean {
    const merge = this.rates.merge.estimate(units);
    const finalize = this.rates.finalize.estimate(this.merged + units);
    return now + merge + finalize <= this.deadlineAt;
  }

  /** Why a partial was not merged (the shard's `missing` message). */
  describeDrop(units: number, now: number): string {
    const merge = Math.round(this.rates.merge.estimate(units));
    const finalize = Math.round(this.rates.finalize.estimate(this.merged + units));
    return (
      `answered ${Math.max(0, Math.round(this.deadlineAt - now))} ms before the deadline, too late to merge its ${units} values ` +
      `(about ${merge} ms) and finalize (about ${finalize} ms) by then; left out`
    );
  }

  recordMerge(units: number, ms: number): void {
    this.merged += units;
    this.rates.merge.record(units, ms);
  }

  recordFinalize(ms: number): void {
    this.rates.finalize.record(this.merged, ms);
  }
}

/** One set of rates per process: every query learns from the ones before it. */
const processRates = { merge: new Rate(PRIOR_MERGE_MS_PER_UNIT), finalize: new Rate(PRIOR_FINALIZE_MS_PER_UNIT) };

export function mergeBudget(deadlineAt: number): MergeBudget {
  return new MergeBudget(processRates, deadlineAt);
}

/** The process's current estimates (for statistics and tests). */
export function mergeRates(): { mergeMsPerUnit: number; finalizeMsPerUnit: number } {
  return { mergeMsPerUnit: processRates.merge.value, finalizeMsPerUnit: processRates.finalize.value };
}
