// INSERT ... FORMAT Native (clickhouse-connect's client.insert): blocks of columns, not lines, so a
// row is not one run of bytes. Each block is read into its columns' streams (the walk of
// native-columns.ts), and a shard's block is rebuilt from its rows' own bytes: every value is the
// client's bytes, a LowCardinality column keeps the client's dictionary and takes its rows' indexes.
// The sharding key's value comes from its column's bytes, the bytes ClickHouse stores and hashes.
// Only the default serialization an insert carries (no BlockInfo, no custom-serialization byte) is
// read; a type this cannot cut is 48, never guessed at.
import type { ShardingKey } from '../config/schema.js';
import type { ByteInsert, ByteRow } from '../router/insert-data.js';
import type { KeyValue } from '../sharding/types.js';
import { ChHttpError } from './exception.js';
import { varUInt } from './native-revision.js';
import { elementType, fixedWidth, HAS_ADDITIONAL_KEYS, NativeCursor, NEED_GLOBAL_DICTIONARY, parseType, skipPrefix } from './native-columns.js';

/** A column's data, able to write the data of chosen rows (in that order) as Native writes it. */
interface Stream {
  select(rows: readonly number[], out: Buffer[]): void;
  /** The stored bytes of row r's value (fixed width, String, a LowCardinality of those), for the sharding key. */
  value?(r: number): Buffer;
}

const refusedType = (t: string) =>
  new ChHttpError(48, `INSERT ... FORMAT Native with a column of type ${t} is not supported; send it as JSONEachRow, CSV or TabSeparated`);

function u64le(n: number): Buffer {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(BigInt(n));
  return b;
}

/** Per-row slices of `rows` values of `type` (after its prefix), read from the cursor. */
function readStream(c: NativeCursor, type: string, rows: number): Stream {
  const n = parseType(type);
  const w = fixedWidth(n);
  if (w !== undefined && Number.isFinite(w)) {
    const start = c.pos;
    c.skip(w * rows);
    const buf = c.buf;
    const value = (r: number) => buf.subarray(start + r * w, start + (r + 1) * w);
    return {
      select: (sel, out) => {
        for (const r of sel) out.push(value(r));
      },
      value,
    };
  }
  switch (n.name) {
    case 'String': {
      const bounds: number[] = [c.pos];
      for (let i = 0; i < rows; i++) {
        c.skip(c.varUInt());
        bounds.push(c.pos);
      }
      const buf = c.buf;
      return {
        select: (sel, out) => {
          for (const r of sel) out.push(buf.subarray(bounds[r]!, bounds[r + 1]!));
        },
        value: (r) => {
          const k = new NativeCursor(buf.subarray(bounds[r]!, bounds[r + 1]!));
          const n = k.varUInt();
          return k.buf.subarray(k.pos, k.pos + n);
        },
      };
    }
    case 'Nullable': {
      const map = c.buf.subarray(c.pos, c.pos + rows);
      c.skip(rows);
      const inner = readStream(c, n.args[0]!, rows);
      return {
        select: (sel, out) => {
          out.push(Buffer.from(sel.map((r) => map[r]!)));
          inner.select(sel, out);
        },
      };
    }
    case 'Array':
    case 'Map': {
      const ends: number[] = [];
      for (let i = 0; i < rows; i++) ends.push(Number(c.u64()));
      const elements = n.name === 'Array' ? [n.args[0]!] : n.args.map(elementType);
      const total = ends[rows - 1] ?? 0;
      const inner = elements.map((e) => readStream(c, e, total));
      return {
        select: (sel, out) => {
          const items: number[] = [];
          let end = 0;
          for (const r of sel) {
            const from = r === 0 ? 0 : ends[r - 1]!;
            for (let i = from; i < ends[r]!; i++) items.push(i);
            end += ends[r]! - from;
            out.push(u64le(end));
          }
          for (const s of inner) s.select(items, out);
        },
      };
    }
    case 'Tuple': {
      const inner = n.args.map((e) => readStream(c, elementType(e), rows));
      return {
        select: (sel, out) => {
          for (const s of inner) s.select(sel, out);
        },
      };
    }
    case 'LowCardinality': {
      // One chunk with its own keys (what an insert sends): the dictionary is kept whole, the
      // indexes are the chosen rows'.
      if (rows === 0) return { select: () => undefined };
      const flags = c.u64();
      const inner = parseType(n.args[0]!);
      const dictType = inner.name === 'Nullable' ? inner.args[0]! : n.args[0]!;
      if (flags & NEED_GLOBAL_DICTIONARY || !(flags & HAS_ADDITIONAL_KEYS)) throw refusedType(type);
      const dictStart = c.pos - 8;
      const dict = readStream(c, dictType, Number(c.u64()));
      const head = c.buf.subarray(dictStart, c.pos);
      if (Number(c.u64()) !== rows) throw refusedType(`${type} in several chunks`);
      const width = 1 << Number(flags & 0xffn);
      const start = c.pos;
      c.skip(rows * width);
      const buf = c.buf;
      const index = (r: number) => buf.readUIntLE(start + r * width, width);
      return {
        select: (sel, out) => {
          if (sel.length === 0) return;
          out.push(head, u64le(sel.length));
          for (const r of sel) out.push(buf.subarray(start + r * width, start + (r + 1) * width));
        },
        // A Nullable dictionary's key 0 is NULL, which no sharding key is.
        ...(dict.value && inner.name !== 'Nullable' ? { value: (r: number) => dict.value!(index(r)) } : {}),
      };
    }
  }
  throw refusedType(type);
}

interface NativeColumn {
  name: string;
  type: string;
  /** The column's name, type and serialization prefix, as sent. */
  head: Buffer;
  data: Stream;
}

export interface NativeBlock {
  rows: number;
  columns: NativeColumn[];
}

/** The blocks of an INSERT's Native data, each column read into its streams. */
export function readNativeBlocks(data: Buffer): NativeBlock[] {
  const c = new NativeCursor(data);
  const blocks: NativeBlock[] = [];
  while (c.pos < data.length) {
    const count = c.varUInt();
    const rows = c.varUInt();
    const columns: NativeColumn[] = [];
    for (let i = 0; i < count; i++) {
      const start = c.pos;
      const name = c.string();
      const type = c.string();
      skipPrefix(c, type);
      const head = data.subarray(start, c.pos);
      columns.push({ name, type, head, data: readStream(c, type, rows) });
    }
    blocks.push({ rows, columns });
  }
  return blocks;
}

/** One block of the chosen rows of `b` (in that order), each value the client's bytes. */
export function selectRows(b: NativeBlock, rows: readonly number[]): Buffer {
  const out: Buffer[] = [varUInt(b.columns.length), varUInt(rows.length)];
  for (const col of b.columns) {
    out.push(col.head);
    col.data.select(rows, out);
  }
  return Buffer.concat(out);
}

/**
 * The sharding key's value in row r of a block, as the placement takes it: its stored bytes for a
 * string type, the number for an integer, Date or DateTime, the text for a UUID. The key column
 * must hold the key's type (or a LowCardinality of it, which stores the same bytes): a column
 * ClickHouse converts would hash other bytes.
 */
export function nativeKeyOf(b: NativeBlock, key: string, keyType: string): ((r: number) => KeyValue) | undefined {
  const col = b.columns.find((c) => c.name === key);
  if (!col) return undefined;
  const value = col.data.value;
  if ((col.type !== keyType && col.type !== `LowCardinality(${keyType})`) || !value)
    throw new ChHttpError(48, `INSERT ... FORMAT Native: the sharding key column ${key} is sent as ${col.type}; send it as the key's type ${keyType}`);
  const bytes = (r: number) => value(r);
  const t = parseType(keyType);
  if (t.name === 'String' || t.name === 'FixedString') return (r) => bytes(r);
  if (t.name === 'UUID')
    return (r) => {
      const b = bytes(r);
      const hex = Buffer.concat([Buffer.from(b.subarray(0, 8)).reverse(), Buffer.from(b.subarray(8)).reverse()]).toString('hex');
      return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
    };
  const signed = t.name.startsWith('Int');
  return (r) => {
    const b = bytes(r);
    let v = 0n;
    for (let i = b.length - 1; i >= 0; i--) v = (v << 8n) | BigInt(b[i]!);
    if (signed && b.length > 0 && b[b.length - 1]! & 0x80) v -= 1n << BigInt(b.length * 8);
    return t.name === 'Date' || t.name === 'DateTime' ? Number(v) : v;
  };
}

/**
 * An INSERT's Native data as the router takes it: a row per row of every block (its key, its
 * number), the body as sent for ClickHouse's check, and a shard's body rebuilt from its rows. The
 * columns are the statement's, else the first block's (Native names each column). A column sent
 * in another type than the table's (`tableTypes`, by name) is refused: converting it is the
 * engine's, and not every engine's check converts (18.16's Memory copy takes a String column for a
 * UInt32 one, and only the real table refuses it).
 */
export function nativeInsert(data: Buffer, columns: readonly string[] | undefined, key: ShardingKey, tableTypes: ReadonlyMap<string, string>): ByteInsert {
  const blocks = readNativeBlocks(data);
  for (const b of blocks)
    for (const c of b.columns) {
      const want = tableTypes.get(c.name);
      if (want !== undefined && want !== c.type)
        throw new ChHttpError(48, `INSERT ... FORMAT Native: column ${c.name} is sent as ${c.type}, the table's is ${want}; send the table's types`);
    }
  const rows: ByteRow[] = [];
  const at: [number, number][] = [];
  const empty = new Uint8Array(0);
  blocks.forEach((b, bi) => {
    const keyOf = nativeKeyOf(b, key.column, key.type);
    for (let r = 0; r < b.rows; r++) {
      rows.push({ bytes: empty, line: rows.length + 1, key: keyOf?.(r) });
      at.push([bi, r]);
    }
  });
  const of = (chosen: readonly number[]) => {
    const perBlock = blocks.map(() => [] as number[]);
    for (const i of chosen) perBlock[at[i]![0]]!.push(at[i]![1]);
    return Buffer.concat(perBlock.flatMap((sel, bi) => (sel.length > 0 ? [selectRows(blocks[bi]!, sel)] : [])));
  };
  const names = columns ?? blocks[0]?.columns.map((c) => c.name);
  return { format: 'Native', ...(names ? { columns: names } : {}), rows, blocks: { whole: data, of } };
}
