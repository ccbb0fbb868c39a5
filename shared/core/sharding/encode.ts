// The bytes ClickHouse feeds to xxHash64 for one value of a column type (docs/api.md#4-placement),
// checked against chdb's xxHash64(CAST(value AS type)) in test/integration/sharding.
import type { KeyValue } from './types.js';
import { keyTypeInfo, type KeyTypeInfo } from './types-info.js';
import { coerceWith } from './coerce.js';

const utf8 = new TextEncoder();

/** Little-endian two's complement of `n` in `bytes` bytes. */
export function leBytes(n: bigint, bytes: number): Uint8Array {
  const out = new Uint8Array(bytes);
  let v = BigInt.asUintN(bytes * 8, n);
  for (let i = 0; i < bytes; i++) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
}

/** Key bytes of an already-coerced value. */
export function encodeCanonical(v: KeyValue, info: KeyTypeInfo): Uint8Array {
  switch (info.kind) {
    case 'string':
      return v instanceof Uint8Array ? v : utf8.encode(v as string);
    case 'fixedString': {
      // FixedString(N) always holds N bytes: shorter values are padded with zero bytes.
      const out = new Uint8Array(info.n);
      out.set(v instanceof Uint8Array ? v : utf8.encode(v as string));
      return out;
    }
    case 'int':
      return leBytes(v as bigint, info.bits / 8);
    case 'date':
      return leBytes(BigInt(v as number), 2);
    case 'dateTime':
      return leBytes(BigInt(v as number), 4);
    case 'uuid': {
      // ClickHouse stores a UUID as two UInt64 halves, each little-endian: the first 8 bytes of
      // the text reversed, then the last 8 reversed (measured: xxHash64(toUUID(..)) on chdb).
      const hex = (v as string).replace(/-/g, '');
      const out = new Uint8Array(16);
      for (let i = 0; i < 8; i++) {
        out[7 - i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
        out[15 - i] = parseInt(hex.slice(16 + 2 * i, 18 + 2 * i), 16);
      }
      return out;
    }
  }
}

/** The bytes ClickHouse hashes for `value` as a column of `type`. Throws TYPE_MISMATCH. */
export function encodeKey(value: KeyValue, type: string): Uint8Array {
  const info = keyTypeInfo(type);
  return encodeCanonical(coerceWith(value, type, info), info);
}
