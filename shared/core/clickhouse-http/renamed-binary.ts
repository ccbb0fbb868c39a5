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

export const BINARY_RENAMERS: Record<string, Renamer> = {
  RowBinaryWithNames: rowBinary(false),
  RowBinaryWithNamesAndTypes: rowBinary(true),
  Native: native,
};
