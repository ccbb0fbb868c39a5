// The binary formats' names: RowBinaryWithNames' leading count and length-prefixed names (then the
// types, in the WithNamesAndTypes one), and Native's name and type before each column of every block,
// walked past the data with the interface's one column walk (native-columns.ts).
import { NativeCursor, skipData, skipPrefix } from './native-columns.js';
import type { Span } from './json-spans.js';
import { copyAlike, notRenamed, type Renamer, type Renaming } from './renaming.js';

/** A length-prefixed string's whole span (its length too: a copied name brings its own). */
function stringSpan(c: NativeCursor): Span & { text: string } {
  const start = c.pos;
  const text = c.string();
  return { start, end: c.pos, text };
}

/** Reads with `read`, a cut or malformed answer being refused (never a wrong offset). */
function guarded<T>(names: string[], read: () => T): T {
  try {
    return read();
  } catch {
    throw notRenamed(names);
  }
}

const rowBinary =
  (typed: boolean): Renamer =>
  (bytes, names) =>
    guarded(names, () => {
      const c = new NativeCursor(bytes);
      const n = c.varUInt();
      const spans = Array.from({ length: n }, () => stringSpan(c));
      const r: Renaming = { replace: [] };
      copyAlike(bytes, spans, names, r.replace);
      if (typed) r.types = Array.from({ length: n }, () => c.string());
      return r;
    });

/** Native: per block, a column count and row count, then each column's name, type and data. */
const native: Renamer = (bytes, names) =>
  guarded(names, () => {
    const c = new NativeCursor(bytes);
    const r: Renaming = { replace: [] };
    while (c.pos < bytes.length) {
      const columns = c.varUInt();
      const rows = c.varUInt();
      const spans: Span[] = [];
      const types: string[] = [];
      for (let i = 0; i < columns; i++) {
        spans.push(stringSpan(c));
        const type = c.string();
        types.push(type);
        if (rows > 0) {
          skipPrefix(c, type);
          skipData(c, type, rows);
        }
      }
      copyAlike(bytes, spans, names, r.replace);
      r.types = types;
    }
    return r;
  });

/** BSON's value sizes after the element's name, by type (strings, documents and binaries say theirs). */
const BSON_FIXED: ReadonlyMap<number, number> = new Map([
  [0x01, 8],
  [0x07, 12],
  [0x08, 1],
  [0x09, 8],
  [0x0a, 0],
  [0x10, 4],
  [0x11, 8],
  [0x12, 8],
  [0x13, 16],
  [0xff, 0],
  [0x7f, 0],
]);

/** BSONEachRow: a document per row, each column an element named by a NUL-ended name; a renamed row's length is written again. */
const bsonEachRow: Renamer = (bytes, names) =>
  guarded(names, () => {
    const r: Renaming = { replace: [] };
    for (let at = 0; at < bytes.length; ) {
      const length = bytes.readInt32LE(at);
      const end = at + length;
      if (length < 5 || end > bytes.length || bytes[end - 1] !== 0) throw notRenamed(names);
      const spans: Span[] = [];
      for (let i = at + 4; i < end - 1; ) {
        const type = bytes[i++]!;
        const nul = bytes.indexOf(0, i);
        if (nul < 0 || nul >= end) throw notRenamed(names);
        spans.push({ start: i, end: nul });
        i = nul + 1;
        const fixed = BSON_FIXED.get(type);
        if (fixed !== undefined) i += fixed;
        else if (type === 0x02) i += 4 + bytes.readInt32LE(i);
        else if (type === 0x03 || type === 0x04) i += bytes.readInt32LE(i);
        else if (type === 0x05) i += 5 + bytes.readInt32LE(i);
        else throw notRenamed(names);
        if (i > end - 1) throw notRenamed(names);
      }
      const row: Renaming['replace'] = [];
      copyAlike(bytes, spans, names, row);
      const grown = row.reduce((n, x) => n + x.bytes.length - (x.at.end - x.at.start), 0);
      if (grown !== 0) {
        const len = Buffer.alloc(4);
        len.writeInt32LE(length + grown);
        row.push({ at: { start: at, end: at + 4 }, bytes: len });
      }
      r.replace.push(...row);
      at = end;
    }
    return r;
  });

/**
 * ODBCDriver2: a count of header rows (names, types), each a field count and Int32-length-prefixed fields led by
 * its label ("name", "type"), then the values.
 */
const odbcDriver2: Renamer = (bytes, names) =>
  guarded(names, () => {
    const field = (at: number): Span => {
      const n = bytes.readInt32LE(at);
      if (n < 0 || at + 4 + n > bytes.length) throw notRenamed(names);
      return { start: at, end: at + 4 + n };
    };
    const r: Renaming = { replace: [] };
    const rows = bytes.readInt32LE(0);
    let at = 4;
    for (let row = 0; row < rows; row++) {
      const count = bytes.readInt32LE(at);
      at += 4;
      const fields: Span[] = [];
      for (let i = 0; i < count; i++) {
        fields.push(field(at));
        at = fields[i]!.end;
      }
      const label = fields[0] && bytes.toString('latin1', fields[0].start + 4, fields[0].end);
      if (label === 'name') copyAlike(bytes, fields.slice(1), names, r.replace);
      else if (label === 'type') r.types = fields.slice(1).map((f) => bytes.toString('utf8', f.start + 4, f.end));
    }
    return r;
  });

export const BINARY_RENAMERS: Record<string, Renamer> = {
  RowBinaryWithNames: rowBinary(false),
  RowBinaryWithNamesAndTypes: rowBinary(true),
  Native: native,
  BSONEachRow: bsonEachRow,
  ODBCDriver2: odbcDriver2,
};
