// The placement rule (docs/api.md#4-placement), pinned here so the router, the planner's IN
// pruning and the parity check all ask one object where a value lives.
import type { ShardingKey } from '../config/schema.js';

/**
 * A sharding-key value as JavaScript holds it, before encoding:
 * - String / FixedString(N): string (UTF-8 encoded), or the stored bytes themselves (an insert's
 *   value as ClickHouse will store it, which need not be UTF-8); FixedString zero-padded to N bytes
 * - (U)Int8..64: bigint, or a number that is a safe integer, or a decimal string
 * - Date: 'YYYY-MM-DD' or a number of days since 1970-01-01
 * - DateTime: 'YYYY-MM-DD hh:mm:ss' (UTC) or a number of seconds since the epoch
 * - UUID: the canonical 8-4-4-4-12 hex text
 */
export type KeyValue = string | number | bigint | Uint8Array;

export interface Placement {
  readonly key: ShardingKey;
  /** Each shard index repeated `weight` times, in config order (0-based shard indexes). */
  readonly slots: readonly number[];
  /** h: the unsigned 64-bit sharding value (xxHash64 seed 0 of the key bytes, or the integer). */
  hash(value: KeyValue): bigint;
  /** 0-based index of the shard that holds rows with this key value. */
  shardOf(value: KeyValue): number;
}
