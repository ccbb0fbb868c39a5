// Comparing two answers as ClickHouse gives them: the same column names and types (from `meta`), and
// the same values, exactly. A value is read through its column's type, so two spellings of one value
// are equal (a Decimal as "1.5000" from 18.16 and "1.5" from ClickHouse 26; an Int64 as a string or a
// safe JS number) while any real difference is not (a Decimal that went through a double and lost
// digits, nan against NULL, -0 against 0, Float32 0.1 against Float64 0.1).
// Floats compare exactly unless the query states a relative tolerance (see corpus.ts: only where the
// float result depends on summation order, which differs between one node and any split into shards).
import type { ColumnMeta } from '../../shared/core/clickhouse/port.js';

export interface Answer {
  meta: ColumnMeta[];
  rows: Record<string, unknown>[];
  /** The WITH TOTALS row, where ClickHouse's JSON puts it (`totals`). */
  totals?: Record<string, unknown>;
  /** extremes = 1: the min and max rows, where ClickHouse's JSON puts them (`extremes`). */
  extremes?: { min: Record<string, unknown>; max: Record<string, unknown> };
  /** True when some shard did not answer: never acceptable to the oracle. */
  partial?: boolean;
  /** What the answer says may have cut it (the JSON API's `truncated`). */
  truncated?: string[];
  /** The shards the answer lacks (the JSON API's `shards.missing`). */
  missing?: unknown[];
}

export interface CompareOptions {
  /** Rows in the same order (the query has a total ORDER BY); otherwise compared as a multiset. */
  ordered: boolean;
  /** Relative tolerance for every float (Float32/Float64, also inside arrays and tuples). */
  floatTolerance?: number;
}

/** A ClickHouse type, parsed far enough to read values: name and arguments. */
export interface TypeNode {
  name: string;
  args: TypeNode[];
  /** Element names of a named Tuple. */
  names?: string[];
  /** The raw text of a non-type argument (Decimal precision, a time zone). */
  raw?: string;
}

/** Split a type's arguments at top-level commas. */
function splitArgs(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let quote = false;
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const ch = s[i]!;
    if (quote) {
      if (ch === '\\') i++;
      else if (ch === "'") quote = false;
    } else if (ch === "'") quote = true;
    else if (ch === '(') depth++;
    else if (ch === ')') depth--;
    else if (ch === ',' && depth === 0) {
      out.push(s.slice(start, i).trim());
      start = i + 1;
    }
  }
  out.push(s.slice(start).trim());
  return out.filter((x) => x !== '');
}

export function parseType(text: string): TypeNode {
  const t = text.trim();
  const open = t.indexOf('(');
  if (open < 0 || !t.endsWith(')')) return { name: t, args: [], raw: t };
  const name = t.slice(0, open);
  const inner = splitArgs(t.slice(open + 1, -1));
  if (name === 'Tuple') {
    // Named tuple elements: `a UInt8`; an unnamed element is a type by itself.
    const named = inner.map((a) => /^([A-Za-z_][A-Za-z0-9_]*)\s+(.+)$/.exec(a));
    const allNamed = named.every((m) => m !== null && !/^[A-Z]/.test(m[1]!));
    if (allNamed) return { name, args: named.map((m) => parseType(m![2]!)), names: named.map((m) => m![1]!) };
  }
  return { name, args: inner.map((a) => (/^[A-Z]/.test(a) ? parseType(a) : { name: '', args: [], raw: a })) };
}

const FLOATS = new Set(['Float32', 'Float64', 'BFloat16']);
const INTS = /^U?Int(8|16|32|64|128|256)$/;

/** A float as a number (nan, inf, -inf included); undefined when the value is no float at all. */
function floatOf(v: unknown): number | undefined {
  if (typeof v === 'number') return v;
  if (typeof v !== 'string') return undefined;
  const s = v.toLowerCase();
  if (s === 'nan' || s === '-nan' || s === '+nan') return Number.NaN;
  if (s === 'inf' || s === '+inf' || s === 'infinity') return Number.POSITIVE_INFINITY;
  if (s === '-inf' || s === '-infinity') return Number.NEGATIVE_INFINITY;
  return /^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(v) ? Number(v) : undefined;
}

/** The canonical text of a float: nan, inf, -inf, -0 and the shortest round-trip digits. */
function floatText(x: number): string {
  if (Number.isNaN(x)) return 'nan';
  if (x === Number.POSITIVE_INFINITY) return 'inf';
  if (x === Number.NEGATIVE_INFINITY) return '-inf';
  if (Object.is(x, -0)) return '-0';
  return String(x);
}

/** A Decimal without insignificant zeros: "-1.5000" -> "-1.5", "2.0" -> "2", "-0.00" -> "0". */
function decimalText(v: unknown, scale: number): string {
  let s: string;
  if (typeof v === 'number') s = v.toFixed(Math.min(scale, 100));
  else if (typeof v === 'string') s = v;
  else return `!decimal:${JSON.stringify(v)}`;
  const m = /^([-+]?)(\d*)(?:\.(\d*))?$/.exec(s.trim());
  if (!m) return `!decimal:${s}`;
  const intPart = m[2]!.replace(/^0+(?=\d)/, '') || '0';
  const frac = (m[3] ?? '').replace(/0+$/, '');
  const body = frac ? `${intPart}.${frac}` : intPart;
  return body === '0' ? '0' : `${m[1] === '-' ? '-' : ''}${body}`;
}

/**
 * A value read through its type, as one string. Floats come back as numbers for tolerance checks
 * through `floats` when given (in traversal order), and as a placeholder in the text.
 */
export function canonical(v: unknown, type: TypeNode, floats?: number[]): string {
  const n = type.name;
  if (n === 'Nullable') return v === null ? 'NULL' : canonical(v, type.args[0]!, floats);
  if (n === 'LowCardinality' || n === 'SimpleAggregateFunction') return canonical(v, type.args[type.args.length - 1]!, floats);
  if (v === null) return n === 'Nothing' ? 'NULL' : `!null-in-${n}`;
  if (FLOATS.has(n)) {
    const x = floatOf(v);
    if (x === undefined) return `!float:${JSON.stringify(v)}`;
    if (floats && Number.isFinite(x)) {
      floats.push(x);
      return '~f';
    }
    return floatText(x);
  }
  if (INTS.test(n)) {
    if (typeof v === 'number' && !Number.isSafeInteger(v)) return `!unsafe-int:${v}`;
    if (typeof v === 'number' || (typeof v === 'string' && /^-?\d+$/.test(v))) return BigInt(v).toString();
    return `!int:${JSON.stringify(v)}`;
  }
  if (n.startsWith('Decimal')) {
    const scale = n === 'Decimal' ? Number(type.args[1]?.raw ?? 0) : Number(type.args[0]?.raw ?? 0);
    return decimalText(v, scale);
  }
  if (n === 'Bool') return typeof v === 'boolean' ? String(v) : `!bool:${JSON.stringify(v)}`;
  if (n === 'Array') {
    if (!Array.isArray(v)) return `!array:${JSON.stringify(v)}`;
    return `[${v.map((x) => canonical(x, type.args[0]!, floats)).join(',')}]`;
  }
  if (n === 'Tuple') {
    const items = Array.isArray(v)
      ? v
      : v !== null && typeof v === 'object' && type.names
        ? type.names.map((k) => (v as Record<string, unknown>)[k])
        : undefined;
    if (!items || items.length !== type.args.length) return `!tuple:${JSON.stringify(v)}`;
    return `(${items.map((x, i) => canonical(x, type.args[i]!, floats)).join(',')})`;
  }
  if (n === 'Map') {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return `!map:${JSON.stringify(v)}`;
    return `{${Object.entries(v as Record<string, unknown>)
      .map(([k, x]) => `${JSON.stringify(k)}:${canonical(x, type.args[1]!, floats)}`)
      .join(',')}}`;
  }
  // String, FixedString, Date, Date32, DateTime, DateTime64, UUID, Enum, IPv4/6: ClickHouse's own text.
  return typeof v === 'string' ? JSON.stringify(v) : `!${n}:${JSON.stringify(v)}`;
}

interface CanonRow {
  text: string;
  floats: number[];
  index: number;
}

function canonRows(a: Answer, types: TypeNode[], tolerant: boolean, rows = a.rows): CanonRow[] {
  return rows.map((row, index) => {
    const floats: number[] = [];
    const text = a.meta.map((m, i) => canonical(row[m.name], types[i]!, tolerant ? floats : undefined)).join('\t');
    return { text, floats, index };
  });
}

const floatsClose = (a: number[], b: number[], rel: number) =>
  a.length === b.length && a.every((x, i) => x === b[i] || Math.abs(x - b[i]!) <= rel * Math.max(Math.abs(x), Math.abs(b[i]!)));

const show = (a: Answer, i: number) => JSON.stringify(a.rows[i]);

/** Undefined when `got` equals `want` under `opts`, else the first difference, in words. */
export function compareAnswers(got: Answer, want: Answer, opts: CompareOptions): string | undefined {
  if (got.partial) return 'the answer is partial';
  const gm = got.meta.map((m) => `${m.name} ${m.type}`).join(', ');
  const wm = want.meta.map((m) => `${m.name} ${m.type}`).join(', ');
  if (gm !== wm) return `columns differ: got (${gm}), want (${wm})`;
  if (got.rows.length !== want.rows.length) return `row count differs: got ${got.rows.length}, want ${want.rows.length}`;
  const types = want.meta.map((m) => parseType(m.type));
  const tolerant = opts.floatTolerance !== undefined;
  let g = canonRows(got, types, tolerant);
  let w = canonRows(want, types, tolerant);
  if (!opts.ordered) {
    const byText = (x: CanonRow, y: CanonRow) => (x.text < y.text ? -1 : x.text > y.text ? 1 : 0);
    g = [...g].sort(byText);
    w = [...w].sort(byText);
  }
  for (let i = 0; i < w.length; i++) {
    const a = g[i]!;
    const b = w[i]!;
    if (a.text !== b.text) return `row ${i} differs: got ${show(got, a.index)}, want ${show(want, b.index)}`;
    if (tolerant && !floatsClose(a.floats, b.floats, opts.floatTolerance!))
      return `row ${i} floats differ beyond ${opts.floatTolerance}: got ${show(got, a.index)}, want ${show(want, b.index)}`;
  }
  if ((got.totals === undefined) !== (want.totals === undefined))
    return `totals: got ${JSON.stringify(got.totals ?? null)}, want ${JSON.stringify(want.totals ?? null)}`;
  if (want.totals !== undefined) {
    const [a] = canonRows(got, types, tolerant, [got.totals!]);
    const [b] = canonRows(want, types, tolerant, [want.totals]);
    if (a!.text !== b!.text || (tolerant && !floatsClose(a!.floats, b!.floats, opts.floatTolerance!)))
      return `totals differ: got ${JSON.stringify(got.totals)}, want ${JSON.stringify(want.totals)}`;
  }
  if ((got.extremes === undefined) !== (want.extremes === undefined))
    return `extremes: got ${JSON.stringify(got.extremes ?? null)}, want ${JSON.stringify(want.extremes ?? null)}`;
  if (want.extremes !== undefined) {
    const [a, b] = canonRows(got, types, tolerant, [got.extremes!.min, got.extremes!.max]);
    const [c, d] = canonRows(want, types, tolerant, [want.extremes.min, want.extremes.max]);
    if (a!.text !== c!.text || b!.text !== d!.text) return `extremes differ: got ${JSON.stringify(got.extremes)}, want ${JSON.stringify(want.extremes)}`;
  }
  return undefined;
}

/** The answer under other column names, in order (rows, totals and extremes keyed by them too). */
export function renamed(a: Answer, names: readonly string[]): Answer {
  if (names.length !== a.meta.length) throw new Error(`${names.length} names for ${a.meta.length} columns`);
  const row = (r: Record<string, unknown>) => Object.fromEntries(a.meta.map((m, i) => [names[i]!, r[m.name]]));
  const out: Answer = { ...a, meta: a.meta.map((m, i) => ({ ...m, name: names[i]! })), rows: a.rows.map(row) };
  if (a.totals) out.totals = row(a.totals);
  if (a.extremes) out.extremes = { min: row(a.extremes.min), max: row(a.extremes.max) };
  return out;
}
