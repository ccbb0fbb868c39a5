// What a sharding-key type text means for encoding: which family it belongs to and its width.
// One parser, so coercion, encoding and identity agree on every type spelling.
import { ScatterError } from '../errors.js';
import { BoundedCache } from '../bounded-cache.js';

export type KeyTypeInfo =
  | { kind: 'string' }
  | { kind: 'fixedString'; n: number }
  | { kind: 'int'; bits: 8 | 16 | 32 | 64; signed: boolean }
  | { kind: 'date' }
  | { kind: 'dateTime'; tz?: string }
  | { kind: 'uuid' };

// Key types come from the topology and from literals' casts: bounded like every cache.
const cache = new BoundedCache<string, KeyTypeInfo>(1000);

export function keyTypeInfo(type: string): KeyTypeInfo {
  const hit = cache.get(type);
  if (hit) return hit;
  const info = parseType(type.trim());
  cache.set(type, info);
  return info;
}

function parseType(t: string): KeyTypeInfo {
  if (t === 'String') return { kind: 'string' };
  if (t === 'Date') return { kind: 'date' };
  if (t === 'DateTime') return { kind: 'dateTime' };
  if (t === 'UUID') return { kind: 'uuid' };
  const int = /^(U?)Int(8|16|32|64)$/.exec(t);
  if (int) return { kind: 'int', bits: Number(int[2]) as 8 | 16 | 32 | 64, signed: int[1] !== 'U' };
  const fs = /^FixedString\((\d+)\)$/.exec(t);
  if (fs && Number(fs[1]) > 0) return { kind: 'fixedString', n: Number(fs[1]) };
  const dt = /^DateTime\('([^']*)'\)$/.exec(t);
  if (dt) return { kind: 'dateTime', tz: dt[1] || undefined };
  if (/^Nullable\(/.test(t)) {
    throw new ScatterError('TYPE_MISMATCH', `Nullable sharding keys are refused: ClickHouse hashes a Nullable value differently (${t})`);
  }
  throw new ScatterError('TYPE_MISMATCH', `unsupported sharding key type ${t}`);
}
