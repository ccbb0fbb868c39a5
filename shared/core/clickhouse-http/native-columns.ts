// Where one column's data ends in ClickHouse's Native format (default serialization, as an engine
// writes it for revision 0): the walk over each type's streams that the revision framing needs to
// find the next column's header. Types whose bytes cannot be walked without decoding them (aggregate
// states, Dynamic, Variant, JSON, Object) are refused with 48 rather than guessed at.
import { ChHttpError } from './exception.js';
import { splitTopLevel } from '../clickhouse/split-list.js';

export interface TypeNode {
  name: string;
  args: string[];
}

/** A type's arguments, trimmed (none for `()`). */
function splitArgs(s: string): string[] {
  const parts = (splitTopLevel(s) ?? [s]).map((p) => p.trim());
  return parts.length === 1 && parts[0] === '' ? [] : parts;
}

export function parseType(t: string): TypeNode {
  const s = t.trim();
  const open = s.indexOf('(');
  if (open < 0 || !s.endsWith(')')) return { name: s, args: [] };
  return { name: s.slice(0, open), args: splitArgs(s.slice(open + 1, -1)) };
}

/** A tuple element without its name (`a UInt8` -> `UInt8`). */
export function elementType(e: string): string {
  const m = /^(?:[A-Za-z_][A-Za-z0-9_]*|`(?:[^`\\]|\\.)*`)\s+(\S.*)$/s.exec(e);
  return m ? m[1]! : e;
}

const FIXED: Record<string, number> = {
  UInt8: 1,
  Int8: 1,
  Bool: 1,
  Enum8: 1,
  Nothing: 1,
  UInt16: 2,
  Int16: 2,
  Enum16: 2,
  Date: 2,
  BFloat16: 2,
  UInt32: 4,
  Int32: 4,
  Float32: 4,
  Date32: 4,
  DateTime: 4,
  IPv4: 4,
  Decimal32: 4,
  Time: 4,
  UInt64: 8,
  Int64: 8,
  Float64: 8,
  DateTime64: 8,
  Decimal64: 8,
  Time64: 8,
  UInt128: 16,
  Int128: 16,
  UUID: 16,
  IPv6: 16,
  Decimal128: 16,
  UInt256: 32,
  Int256: 32,
  Decimal256: 32,
};

export function fixedWidth(n: TypeNode): number | undefined {
  if (n.name.startsWith('Interval')) return 8;
  if (n.name === 'Decimal') {
    const p = Number(n.args[0]);
    return p <= 9 ? 4 : p <= 18 ? 8 : p <= 38 ? 16 : 32;
  }
  if (n.name === 'FixedString') return Number(n.args[0]);
  return FIXED[n.name];
}

/** Flags of a LowCardinality chunk's index type (SerializationLowCardinality). */
export const NEED_GLOBAL_DICTIONARY = 1n << 8n;
export const HAS_ADDITIONAL_KEYS = 1n << 9n;

/** A cursor over one Native answer; running past the end is an error, never a wrong offset. */
export class NativeCursor {
  pos = 0;
  constructor(readonly buf: Buffer) {}
  need(n: number): void {
    if (n < 0 || this.pos + n > this.buf.length) throw new ChHttpError(33, `Cannot read all data: Native block cut short at byte ${this.pos}`);
  }
  skip(n: number): void {
    this.need(n);
    this.pos += n;
  }
  varUInt(): number {
    let v = 0;
    let mul = 1;
    for (let i = 0; i < 10; i++) {
      this.need(1);
      const b = this.buf[this.pos++]!;
      v += (b & 0x7f) * mul;
      if ((b & 0x80) === 0) return v;
      mul *= 128;
    }
    throw new ChHttpError(33, 'Cannot read a VarUInt from the Native answer');
  }
  u64(): bigint {
    this.need(8);
    const v = this.buf.readBigUInt64LE(this.pos);
    this.pos += 8;
    return v;
  }
  string(): string {
    const n = this.varUInt();
    this.need(n);
    const s = this.buf.toString('utf8', this.pos, this.pos + n);
    this.pos += n;
    return s;
  }
}

export const refused = (t: string) =>
  new ChHttpError(48, `Native with client_protocol_version for a column of type ${t} is not implemented: ask for client_protocol_version=0 or another format`);

/** The serialization state prefix every stream of `type` writes before the column's data. */
export function skipPrefix(c: NativeCursor, type: string): void {
  const n = parseType(type);
  switch (n.name) {
    case 'LowCardinality':
      c.skip(8); // the keys' serialization version
      return;
    case 'Nullable':
    case 'Array':
    case 'SimpleAggregateFunction':
      skipPrefix(c, n.args[n.args.length - 1]!);
      return;
    case 'Tuple':
    case 'Map':
      for (const e of n.args) skipPrefix(c, elementType(e));
      return;
    case 'Nested':
      for (const e of n.args) skipPrefix(c, elementType(e));
      return;
  }
}

/** Past `rows` values of `type` (after its prefix). */
export function skipData(c: NativeCursor, type: string, rows: number): void {
  const n = parseType(type);
  const w = fixedWidth(n);
  if (w !== undefined && Number.isFinite(w)) {
    c.skip(w * rows);
    return;
  }
  switch (n.name) {
    case 'String':
      for (let i = 0; i < rows; i++) c.skip(c.varUInt());
      return;
    case 'Nullable':
      c.skip(rows);
      skipData(c, n.args[0]!, rows);
      return;
    case 'SimpleAggregateFunction':
      skipData(c, n.args[n.args.length - 1]!, rows);
      return;
    case 'Array':
    case 'Map':
    case 'Nested': {
      let total = 0;
      for (let i = 0; i < rows; i++) total = Number(c.u64());
      const elements = n.name === 'Array' ? [n.args[0]!] : n.args.map(elementType);
      for (const e of elements) skipData(c, e, total);
      return;
    }
    case 'Tuple':
      for (const e of n.args) skipData(c, elementType(e), rows);
      return;
    case 'LowCardinality': {
      const inner = parseType(n.args[0]!);
      const dictType = inner.name === 'Nullable' ? inner.args[0]! : n.args[0]!;
      for (let done = 0; done < rows; ) {
        const flags = c.u64();
        if (flags & NEED_GLOBAL_DICTIONARY) throw refused(type);
        if (flags & HAS_ADDITIONAL_KEYS) skipData(c, dictType, Number(c.u64()));
        const keys = Number(c.u64());
        if (keys <= 0) throw new ChHttpError(33, `Cannot read all data: an empty LowCardinality chunk at byte ${c.pos}`);
        c.skip(keys * (1 << Number(flags & 0xffn)));
        done += keys;
      }
      return;
    }
  }
  throw refused(type);
}
