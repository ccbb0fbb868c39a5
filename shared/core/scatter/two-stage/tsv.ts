// A shard's stage-one answer as ClickHouse writes it in TabSeparatedWithNamesAndTypes: a line of
// column names, a line of types, then one line per row. Values (aggregate states included) are
// escaped so that a row never contains a raw tab or newline, which is what lets the coordinator
// count rows by counting newlines and concatenate the shards' bodies without looking inside them.
// Everything stays a Buffer: states are binary and the text is not UTF-8 in general.
import type { ColumnMeta, StageFormat } from '../../clickhouse/port.js';

export interface TsvAnswer {
  columns: ColumnMeta[];
  /** The rows after the two header lines, byte for byte (TabSeparated, each row ending in \n). */
  body: Buffer;
  rows: number;
}

const NL = 0x0a;

/**
 * Split one TabSeparatedWithNamesAndTypes answer into its header and body. Throws on a malformed
 * header. With `body` RowBinary (the header from DESCRIBE, then the rows of a leaf that has one
 * row per shard), the body has no delimiter to count: it is that one row, or none.
 */
export function splitTsvAnswer(bytes: Buffer, body: StageFormat = 'TabSeparated'): TsvAnswer {
  const first = bytes.indexOf(NL);
  const second = first < 0 ? -1 : bytes.indexOf(NL, first + 1);
  if (first < 0 || second < 0) throw new Error(`not TabSeparatedWithNamesAndTypes: ${bytes.length} bytes without the two header lines`);
  const names = bytes.subarray(0, first).toString('utf8').split('\t').map(unescapeTsv);
  const types = bytes
    .subarray(first + 1, second)
    .toString('utf8')
    .split('\t')
    .map(unescapeTsv);
  if (names.length !== types.length) throw new Error(`TabSeparatedWithNamesAndTypes header has ${names.length} names but ${types.length} types`);
  const columns = names.map((name, i) => ({ name, type: types[i]! }));
  const rows = bytes.subarray(second + 1);
  if (body === 'RowBinary') return { columns, body: rows, rows: rows.length > 0 ? 1 : 0 };
  if (rows.length > 0 && rows[rows.length - 1] !== NL) throw new Error('TabSeparated body does not end with a newline (truncated answer?)');
  return { columns, body: rows, rows: countRows(rows) };
}

/** Rows in a TabSeparated body: one newline each (values escape theirs). */
export function countRows(body: Buffer): number {
  let n = 0;
  let at = body.indexOf(NL);
  while (at >= 0) {
    n++;
    at = body.indexOf(NL, at + 1);
  }
  return n;
}

/** The byte offset after the first `rows` rows of a body (for a cut at a row boundary). */
export function rowBoundary(body: Buffer, rows: number): number {
  let at = -1;
  for (let i = 0; i < rows; i++) {
    at = body.indexOf(NL, at + 1);
    if (at < 0) return body.length;
  }
  return at + 1;
}

const ESCAPES: Record<string, string> = { t: '\t', n: '\n', r: '\r', b: '\b', f: '\f', '0': '\0', '\\': '\\', "'": "'" };

/** ClickHouse's TabSeparated escaping, undone (for header names: a column alias may hold anything). */
export function unescapeTsv(s: string): string {
  if (!s.includes('\\')) return s;
  return s.replace(/\\(.)/gs, (_m, c: string) => ESCAPES[c] ?? c);
}

/** Two headers describe the same table: same names and types, in the same order. */
export function sameColumns(a: readonly ColumnMeta[], b: readonly ColumnMeta[]): boolean {
  return a.length === b.length && a.every((c, i) => c.name === b[i]!.name && c.type === b[i]!.type);
}

/**
 * The first of these columns whose values TabSeparated cannot carry exactly, or undefined. A Dynamic
 * or Variant value is written as its text without its type, and read back by inference (the String
 * "1" returns as the Int64 1); so are a JSON column's paths (a Float64 1.0 returns as an Int64).
 * An aggregate state holding such a type travels as the engine's bytes and is exact.
 */
export function inexactInTsv(cols: readonly ColumnMeta[]): ColumnMeta | undefined {
  return cols.find((c) => /\b(JSON|Dynamic|Variant|Object)\b/.test(withoutStates(c.type)));
}

/** A type's text with every AggregateFunction(...) argument list cut out. */
function withoutStates(type: string): string {
  let out = '';
  let i = 0;
  for (let at = type.indexOf('AggregateFunction('); at >= 0; at = type.indexOf('AggregateFunction(', i)) {
    const simple = type.slice(Math.max(0, at - 6), at) === 'Simple';
    let depth = 0;
    let end = at + 'AggregateFunction'.length;
    for (; end < type.length; end++) {
      if (type[end] === '(') depth++;
      else if (type[end] === ')' && --depth === 0) break;
    }
    // A SimpleAggregateFunction's value is the plain value: its text is what travels.
    out += simple ? type.slice(i, end + 1) : type.slice(i, at);
    i = end + 1;
  }
  return out + type.slice(i);
}

export function describeColumns(cols: readonly ColumnMeta[]): string {
  return cols.map((c) => `${c.name} ${c.type}`).join(', ');
}
