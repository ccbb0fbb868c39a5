// Native as ClickHouse's HTTP interface writes it for the revision a client names in
// `client_protocol_version` (NativeWriter): from revision 1 each block starts with its BlockInfo, from
// 54454 each column's type is followed by the custom-serialization byte, below 54337 DateTime drops
// its time zone, below 54405 LowCardinality is sent as its plain type. The engines cannot be asked
// for this: the revision is not a setting (chdb and 18.16 both answer 115 for it; ClickHouse's HTTP
// handler sets it on the query's context), so the engine writes revision 0 and this adds the framing.
import { ChHttpError } from './exception.js';
import { NativeCursor, skipData, skipPrefix } from './native-columns.js';
import { plainData, plainPrefix, plainType } from './native-plain.js';

/** ClickHouse's protocol revisions that change Native's bytes (src/Core/ProtocolDefines.h). */
export const REVISION = {
  timeZoneInDateTime: 54337,
  lowCardinality: 54405,
  customSerialization: 54454,
  outOfOrderBuckets: 54480,
} as const;

/** revision() as the interface answers it: clickhouse-go's own revision, whose framing (BlockInfo, the custom-serialization byte) this writes. */
export const HANDSHAKE_REVISION = 54460;

/** The revision asked for: absent, empty or 0 is 0; anything else must be a whole number (else 27, as ClickHouse's parse). */
export function clientRevision(v: string | null | undefined): number {
  if (v === null || v === undefined || v.trim() === '') return 0;
  if (!/^\d{1,15}$/.test(v.trim())) throw new ChHttpError(27, `Cannot parse input: expected an unsigned number for client_protocol_version, got '${v}'`);
  return Number(v.trim());
}

/** BlockInfo as BlockInfo::write writes a result block's defaults: is_overflows=false, bucket_num=-1, no out-of-order buckets. */
function blockInfo(revision: number): Buffer {
  const base = [0x01, 0x00, 0x02, 0xff, 0xff, 0xff, 0xff];
  return Buffer.from(revision >= REVISION.outOfOrderBuckets ? [...base, 0x03, 0x00, 0x00] : [...base, 0x00]);
}

/** ClickHouse's VarUInt (LEB128): Native's row counts and string lengths. */
export function varUInt(n: number): Buffer {
  const out: number[] = [];
  do {
    let b = n % 128;
    n = Math.floor(n / 128);
    if (n > 0) b |= 0x80;
    out.push(b);
  } while (n > 0);
  return Buffer.from(out);
}

function stringBinary(s: string): Buffer {
  const b = Buffer.from(s, 'utf8');
  return Buffer.concat([varUInt(b.length), b]);
}

/** `native` (an engine's revision-0 Native answer) in the framing of `revision`. */
export function nativeForRevision(native: Buffer, revision: number): Buffer {
  if (revision <= 0 || native.length === 0) return native;
  const c = new NativeCursor(native);
  const out: Buffer[] = [];
  const info = blockInfo(revision);
  while (c.pos < native.length) {
    out.push(info);
    const start = c.pos;
    const columns = c.varUInt();
    const rows = c.varUInt();
    out.push(native.subarray(start, c.pos));
    for (let i = 0; i < columns; i++) {
      const nameAt = c.pos;
      c.string();
      out.push(native.subarray(nameAt, c.pos));
      const type = c.string();
      // Below 54405 NativeWriter sends LowCardinality as its plain type (native-plain.ts).
      const plain = revision < REVISION.lowCardinality && type.includes('LowCardinality(');
      const sent = plain ? plainType(type) : type;
      out.push(stringBinary(revision < REVISION.timeZoneInDateTime && sent.startsWith('DateTime(') ? 'DateTime' : sent));
      if (revision >= REVISION.customSerialization) out.push(Buffer.of(0));
      if (rows > 0 && plain) {
        plainPrefix(c, type, out);
        plainData(c, type, rows, out);
      } else if (rows > 0) {
        const dataAt = c.pos;
        skipPrefix(c, type);
        skipData(c, type, rows);
        out.push(native.subarray(dataAt, c.pos));
      }
    }
  }
  return Buffer.concat(out);
}
