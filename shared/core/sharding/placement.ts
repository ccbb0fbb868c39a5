// Placement: which shard holds a key value, bit for bit as ClickHouse's Distributed engine
// decides it (docs/api.md#4-placement). The router, the planner's IN pruning and the parity tests
// all go through createPlacement so there is one formula in the codebase.
import type { ShardingKey } from '../config/schema.js';
import { ScatterError } from '../errors.js';
import type { KeyValue, Placement } from './types.js';
import { keyTypeInfo } from './types-info.js';
import { coerceWith } from './coerce.js';
import { encodeCanonical } from './encode.js';
import { buildSlots } from './slots.js';
import { loadHasher, type Hasher } from './hasher.js';

/**
 * The value the Distributed engine takes modulo the slot count for an `identity` key.
 * ClickHouse (createBlockSelector) casts the column value to an unsigned integer of at least
 * 32 bits: UInt32 for (U)Int8/16/32, UInt64 for (U)Int64. So Int32 -1 becomes 2^32-1 and
 * Int64 -1 becomes 2^64-1 (verified against 18.16 in test/server/placement).
 */
export function identityValue(value: KeyValue, type: string): bigint {
  const info = keyTypeInfo(type);
  if (info.kind !== 'int') throw new ScatterError('TYPE_MISMATCH', `"identity" needs an integer column, not ${type}`);
  const n = coerceWith(value, type, info) as bigint;
  return BigInt.asUintN(info.bits === 64 ? 64 : 32, n);
}

function makeHash(key: ShardingKey, hasher: Hasher): (v: KeyValue) => bigint {
  const info = keyTypeInfo(key.type);
  if (key.function === 'identity') {
    if (info.kind !== 'int') throw new ScatterError('CONFIG_INVALID', `"identity" needs an integer column, not ${key.type}`);
    return (v) => identityValue(v, key.type);
  }
  if (key.function !== 'xxHash64') throw new ScatterError('CONFIG_INVALID', `unsupported sharding function ${String(key.function)}`);
  if (info.kind === 'string') {
    // Fast path: xxhash-wasm encodes UTF-8 itself; stored bytes are hashed as they are.
    return (v) => {
      const c = coerceWith(v, key.type, info);
      return c instanceof Uint8Array ? hasher.h64Raw(c) : hasher.h64(c as string);
    };
  }
  if (info.kind === 'int' || info.kind === 'date' || info.kind === 'dateTime') {
    // Fixed-width little-endian values through one scratch buffer (hashing is synchronous, so
    // reuse is safe); this is the hot path of IN-list pruning and routing on integer keys.
    const width = info.kind === 'int' ? info.bits / 8 : info.kind === 'date' ? 2 : 4;
    const buf = new Uint8Array(width);
    const view = new DataView(buf.buffer);
    return (v) => {
      const c = coerceWith(v, key.type, info);
      if (width === 8) view.setBigUint64(0, BigInt.asUintN(64, c as bigint), true);
      else {
        const n = Number(c);
        if (width === 4) view.setUint32(0, n >>> 0, true);
        else if (width === 2) view.setUint16(0, n & 0xffff, true);
        else view.setUint8(0, n & 0xff);
      }
      return hasher.h64Raw(buf);
    };
  }
  return (v) => hasher.h64Raw(encodeCanonical(coerceWith(v, key.type, info), info));
}

/** A Placement over `shards` (config order) for `key`. Loads xxhash-wasm once per process. */
export async function createPlacement(shards: ReadonlyArray<{ weight: number }>, key: ShardingKey): Promise<Placement> {
  const hasher = await loadHasher();
  return createPlacementWith(hasher, shards, key);
}

/** Synchronous variant for callers that already hold the hasher. */
export function createPlacementWith(hasher: Hasher, shards: ReadonlyArray<{ weight: number }>, key: ShardingKey): Placement {
  const slots = buildSlots(shards);
  const hash = makeHash(key, hasher);
  const n = BigInt(slots.length);
  let shardOf = (v: KeyValue) => slots[Number(hash(v) % n)]!;
  const info = keyTypeInfo(key.type);
  if (key.function === 'identity' && info.kind === 'int' && info.bits <= 32) {
    // Values up to 32 bits fit a double exactly, so the slot needs no BigInt at all.
    const wrap = 2 ** 32;
    shardOf = (v) => {
      const c = Number(coerceWith(v, key.type, info));
      return slots[(c < 0 ? c + wrap : c) % slots.length]!;
    };
  }
  return { key, slots, hash, shardOf };
}
