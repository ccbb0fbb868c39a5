// LowCardinality as its plain type, for clients below revision 54405: NativeWriter sends them the
// column through recursiveRemoveLowCardinality, and neither engine here can be asked to (both keep
// LowCardinality under low_cardinality_allow_in_native_format=0). Each chunk's dictionary is read and
// every key replaced by its value's bytes; LowCardinality(Nullable(T)) becomes Nullable(T), key 0 being
// NULL. Dictionaries of other than String, FixedString and fixed-width values are refused (48).
import {
  elementType,
  fixedWidth,
  HAS_ADDITIONAL_KEYS,
  NEED_GLOBAL_DICTIONARY,
  type NativeCursor,
  parseType,
  refused,
  skipData,
  skipPrefix,
} from './native-columns.js';
import { ChHttpError } from './exception.js';

/** The type without LowCardinality anywhere, printed as ClickHouse prints types. */
export function plainType(type: string): string {
  const n = parseType(type);
  if (n.name === 'LowCardinality') return plainType(n.args[0]!);
  if (!['Array', 'Nullable', 'Tuple', 'Map'].includes(n.name) || n.args.length === 0) return type;
  const args = n.args.map((a) => {
    const t = elementType(a);
    return t === a ? plainType(a) : `${a.slice(0, a.length - t.length)}${plainType(t)}`;
  });
  return `${n.name}(${args.join(', ')})`;
}

const hasLowCardinality = (type: string) => type.includes('LowCardinality(');

/** The serialization prefix of `type` without LowCardinality's own (its keys' version). */
export function plainPrefix(c: NativeCursor, type: string, out: Buffer[]): void {
  if (!hasLowCardinality(type)) {
    const at = c.pos;
    skipPrefix(c, type);
    out.push(c.buf.subarray(at, c.pos));
    return;
  }
  const n = parseType(type);
  if (n.name === 'LowCardinality') {
    c.skip(8);
    return;
  }
  const parts = n.name === 'Array' || n.name === 'Nullable' ? [n.args[0]!] : n.args.map(elementType);
  for (const t of parts) plainPrefix(c, t, out);
}

/** Each of `rows` values of a dictionary's type, as its bytes. */
function values(c: NativeCursor, type: string, rows: number): Buffer[] {
  const n = parseType(type);
  const w = fixedWidth(n);
  const out: Buffer[] = [];
  if (w !== undefined && Number.isFinite(w)) {
    for (let i = 0; i < rows; i++) {
      const at = c.pos;
      c.skip(w);
      out.push(c.buf.subarray(at, c.pos));
    }
    return out;
  }
  if (n.name !== 'String') throw refused(`LowCardinality(${type})`);
  for (let i = 0; i < rows; i++) {
    const at = c.pos;
    c.skip(c.varUInt());
    out.push(c.buf.subarray(at, c.pos));
  }
  return out;
}

function readKey(c: NativeCursor, width: number): number {
  c.need(width);
  const b = c.buf;
  const p = c.pos;
  c.pos += width;
  if (width === 1) return b[p]!;
  if (width === 2) return b.readUInt16LE(p);
  if (width === 4) return b.readUInt32LE(p);
  return Number(b.readBigUInt64LE(p));
}

/** `rows` values of `type` (after its prefix) with every LowCardinality written as its plain type. */
export function plainData(c: NativeCursor, type: string, rows: number, out: Buffer[]): void {
  if (!hasLowCardinality(type)) {
    const at = c.pos;
    skipData(c, type, rows);
    out.push(c.buf.subarray(at, c.pos));
    return;
  }
  const n = parseType(type);
  switch (n.name) {
    case 'Array':
    case 'Map': {
      const at = c.pos;
      let total = 0;
      for (let i = 0; i < rows; i++) total = Number(c.u64());
      out.push(c.buf.subarray(at, c.pos));
      for (const t of n.name === 'Array' ? [n.args[0]!] : n.args) plainData(c, t, total, out);
      return;
    }
    case 'Tuple':
      for (const e of n.args) plainData(c, elementType(e), rows, out);
      return;
    case 'LowCardinality':
      break;
    default:
      throw refused(type);
  }
  const inner = parseType(n.args[0]!);
  const nullable = inner.name === 'Nullable';
  const dictType = nullable ? inner.args[0]! : n.args[0]!;
  const nulls: number[] = [];
  const data: Buffer[] = [];
  let dict: Buffer[] = [];
  for (let done = 0; done < rows; ) {
    const flags = c.u64();
    if (flags & NEED_GLOBAL_DICTIONARY) throw refused(type);
    if (flags & HAS_ADDITIONAL_KEYS) dict = values(c, dictType, Number(c.u64()));
    const keys = Number(c.u64());
    if (keys <= 0) throw new ChHttpError(33, `Cannot read all data: an empty LowCardinality chunk at byte ${c.pos}`);
    const width = 1 << Number(flags & 0xffn);
    for (let i = 0; i < keys; i++) {
      const k = readKey(c, width);
      const v = dict[k];
      if (!v) throw new ChHttpError(33, `Cannot read all data: a LowCardinality key ${k} past its dictionary of ${dict.length}`);
      nulls.push(nullable && k === 0 ? 1 : 0);
      data.push(v);
    }
    done += keys;
  }
  if (nullable) out.push(Buffer.from(nulls));
  out.push(...data);
}
