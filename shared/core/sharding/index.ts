// Placement parity with ClickHouse's Distributed engine: key coercion, key bytes, xxHash64,
// weighted slots. See docs/api.md#4-placement and docs/parity.md.
export type { KeyValue, Placement } from './types.js';
export { buildSlots, slotOf } from './slots.js';
export { coerceKeyValue, intRange } from './coerce.js';
export { encodeKey, leBytes } from './encode.js';
export { createPlacement, createPlacementWith, identityValue } from './placement.js';
export { loadHasher, type Hasher } from './hasher.js';
export { keyTypeInfo, type KeyTypeInfo } from './types-info.js';
export { checkParity, assertParityAtStartup, expectedShardingExpr, type ParityReport, type ParityOptions } from './parity.js';
export { distributedArgs, normalizeExpr, unquoteName } from './ddl-args.js';
