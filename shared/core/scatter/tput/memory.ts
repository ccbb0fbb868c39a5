// What the TPUT pre-pass remembers between queries, for the coordinator's lifetime: held by its
// caller and passed in (as HedgeState is), so nothing outlives the object that owns it.
import { BoundedCache } from '../../bounded-cache.js';

export interface TopCountMemory {
  /**
   * Key and score expressions (per table) whose types round 1 found unfit, and why, so later
   * queries skip the round. Only negatives are kept, and round 1 checks the types every time it
   * runs: a stale entry can only cost TPUT's saving (the query runs over every group, exactly),
   * never a wrong answer.
   */
  unfitTypes: BoundedCache<string, string>;
  /**
   * Pre-pass statements (their SQL text) whose shards disagreed on their best groups, and when. A
   * performance hint only: the query it skips TPUT for is answered exactly over every group; after
   * NOT_PAYING_TTL_MS round 1 looks again (the data may have changed).
   */
  notPaying: BoundedCache<string, number>;
}

/** Entries each memory holds: keyed by SQL text, which users vary. */
export const TOP_COUNT_MEMORY_SIZE = 1000;

export function createTopCountMemory(): TopCountMemory {
  return { unfitTypes: new BoundedCache(TOP_COUNT_MEMORY_SIZE), notPaying: new BoundedCache(TOP_COUNT_MEMORY_SIZE) };
}
