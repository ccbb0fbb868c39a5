// Rows checked against the local table's column types before any shard is written: a type error
// in one row (`"v": "abc"` for a UInt32 column) would otherwise fail only the batch of the shard
// that row lands on, after the other shards committed theirs. The check is on the parsed JSON value
// and is deliberately no stricter than ClickHouse's JSONEachRow input: what it cannot judge (maps,
// tuples, JSON, time formats) it leaves to the server.
import type { ColumnMeta } from '../clickhouse/port.js';
import type { BadRow, Row } from './route.js';

const INT = /^(U?)Int(8|16|32|64|128|256)$/;

function unwrap(t: string, name: string): string | undefined {
  const m = new RegExp(`^${name}\\((.*)\\)$`).exec(t);
  return m ? m[1]!.trim() : undefined;
}

function intRange(unsigned: boolean, bits: number): [bigint, bigint] {
  const b = BigInt(bits);
  return unsigned ? [0n, (1n << b) - 1n] : [-(1n << (b - 1n)), (1n << (b - 1n)) - 1n];
}

/** Why `v` cannot be a value of type `t`, or undefined when it can (or when the check cannot tell). */
export function valueProblem(t: string, v: unknown): string | undefined {
  const inner = unwrap(t, 'LowCardinality');
  if (inner) return valueProblem(inner, v);
  const nullable = unwrap(t, 'Nullable');
  if (nullable) return v === null ? undefined : valueProblem(nullable, v);
  if (v === null) return undefined; // ClickHouse reads null as the type's default (input_format_null_as_default)
  const int = INT.exec(t);
  if (int) {
    if (typeof v === 'boolean' && t === 'UInt8') return undefined;
    const text = typeof v === 'number' ? (Number.isInteger(v) ? String(v) : undefined) : typeof v === 'string' ? v.trim() : undefined;
    if (text === undefined || !/^-?\d+$/.test(text)) return `${JSON.stringify(v)} is not an integer (${t})`;
    const [lo, hi] = intRange(int[1] === 'U', Number(int[2]));
    const n = BigInt(text);
    return n < lo || n > hi ? `${text} is out of range for ${t}` : undefined;
  }
  if (t === 'Bool') return typeof v === 'boolean' || v === 0 || v === 1 || v === 'true' || v === 'false' ? undefined : `${JSON.stringify(v)} is not a Bool`;
  if (t === 'Float32' || t === 'Float64') {
    if (typeof v === 'number') return undefined;
    if (typeof v === 'string' && (/^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/.test(v) || /^[-+]?(nan|inf|infinity)$/i.test(v.trim()))) return undefined;
    return `${JSON.stringify(v)} is not a number (${t})`;
  }
  if (/^Decimal(32|64|128|256)?\(/.test(t)) {
    if (typeof v === 'number') return undefined;
    if (typeof v === 'string' && /^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/.test(v)) return undefined;
    return `${JSON.stringify(v)} is not a decimal number (${t})`;
  }
  if (t === 'String' || t.startsWith('FixedString(')) return typeof v === 'object' ? `${JSON.stringify(v)} is not a string (${t})` : undefined;
  if (/^(Date|Date32|DateTime|DateTime64)(\(|$)/.test(t))
    return typeof v === 'string' || typeof v === 'number' ? undefined : `${JSON.stringify(v)} is not a date or time (${t})`;
  if (t === 'UUID' || t === 'IPv4' || t === 'IPv6')
    return typeof v === 'string' || (t === 'IPv4' && typeof v === 'number') ? undefined : `${JSON.stringify(v)} is not a ${t}`;
  const arr = unwrap(t, 'Array');
  if (arr) {
    if (!Array.isArray(v)) return `${JSON.stringify(v)} is not an array (${t})`;
    for (const x of v) {
      const p = valueProblem(arr, x);
      if (p) return `an element: ${p}`;
    }
  }
  return undefined;
}

/** The rows' problems against `columns`, as bad rows with their input line numbers. */
export function checkRows(rows: readonly Row[], lines: readonly number[], columns: readonly ColumnMeta[]): BadRow[] {
  const types = new Map(columns.map((c) => [c.name, c.type]));
  const bad: BadRow[] = [];
  rows.forEach((row, i) => {
    for (const [k, v] of Object.entries(row)) {
      const t = types.get(k);
      const why = t === undefined ? `unknown column "${k}"` : valueProblem(t, v);
      if (why) {
        bad.push({ line: lines[i] ?? i + 1, reason: 'type_mismatch', message: t === undefined ? why : `column "${k}": ${why}` });
        return;
      }
    }
  });
  return bad;
}
