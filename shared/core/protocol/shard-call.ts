// What a shard call's result says on the wire: why a shard is missing from an answer, and the
// hedge settings a sub-coordinator is handed. Declared here, under the runtime that produces them
// (shared/core/scatter/call-shard.ts), so the wire formats need nothing from it.

/**
 * Why a shard is missing from an answer (`shards.missing[].reason`, docs/api.md#post-query); 'cancelled':
 * the query stopped before the deadline (another shard's error, the client gone) while it was asked.
 */
export type MissingReason = 'timeout' | 'error' | 'unavailable' | 'throttled' | 'cancelled';

export interface HedgeSettings {
  enabled: boolean;
  afterQuantile: number;
  maxExtraPercent: number;
}
