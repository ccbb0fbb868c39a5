// ClickHouse values on the coordinator: JSON in (read exactly: shared/core/protocol/exact-json.ts), exact
// arithmetic inside (every integer type and Decimal as a bigint, floats as numbers, strings with
// bytes that are not UTF-8 as surrogate escapes), and ClickHouse's ordering (NaN after numbers, NULL
// last by default, strings by bytes). Out, the API's JSON (docs/architecture.md#the-value-model):
// ClickHouse's conventions, with every value a JSON number would lose written as a string: (U)Int64
// and wider, Decimals, nan/inf/-inf and -0; invalid UTF-8 as U+FFFD, as ClickHouse's JSON writes it.
import { displayString, hasEscapedBytes, stringBytes } from '../surrogate-escape.js';
import { BoundedCache } from '../bounded-cache.js';
import { ScatterError } from '../errors.js';
import type { ColumnMeta } from '../clickhouse/port.js';
import { INTEGER_TYPE, unwrapType } from '../clickhouse/type-wrappers.js';

export type Value = null | bigint | number | string | boolean | Value[];

export function stripNullable(t: string): string {
  return unwrapType(t).inner;
}
export function isNullable(t: string): boolean {
  return /^Nullable\(/.test(t) || /^LowCardinality\(Nullable\(/.test(t);
}
export function nullable(t: string): string {
  return isNullable(t) || t === 'Nothing' || /^Nullable/.test(t) ? t : `Nullable(${t})`;
}

/** Per-type caches: a query spells what types it likes (Decimal(38, s), Enum, DateTime('tz')), so each is bounded. */
export const TYPE_CACHE_SIZE = 1000;

const intInfoCache = new BoundedCache<string, { signed: boolean; bits: number } | null>(TYPE_CACHE_SIZE);
export function intInfo(t: string): { signed: boolean; bits: number } | undefined {
  let r = intInfoCache.get(t);
  if (r === undefined) {
    const m = INTEGER_TYPE.exec(stripNullable(t));
    r = m ? { signed: m[1] !== 'U', bits: Number(m[2]) } : null;
    intInfoCache.set(t, r);
  }
  return r ?? undefined;
}
export function isIntType(t: string): boolean {
  return intInfo(t) !== undefined;
}
export function isFloatType(t: string): boolean {
  return /^(Float32|Float64|BFloat16)$/.test(stripNullable(t));
}
export function isNumericType(t: string): boolean {
  return isIntType(t) || isFloatType(t);
}
export function isArrayType(t: string): string | undefined {
  const m = /^Array\((.*)\)$/.exec(stripNullable(t));
  return m ? m[1] : undefined;
}

/** Scale S of Decimal(P, S) / Decimal32(S) / Decimal64(S) / Decimal128(S) / Decimal256(S). */
export function decimalScale(t: string): number | undefined {
  const b = stripNullable(t);
  const m = /^Decimal\(\s*\d+\s*,\s*(\d+)\s*\)$/.exec(b) ?? /^Decimal(?:32|64|128|256)\(\s*(\d+)\s*\)$/.exec(b);
  return m ? Number(m[1]) : undefined;
}

/**
 * Decimal text or JSON number -> integer scaled by 10^scale. Exact for text, and for a number too
 * when it came through the exact reader (its shortest spelling is then ClickHouse's own digits).
 */
export function parseDecimal(v: unknown, scale: number): bigint {
  let txt = typeof v === 'number' ? String(v) : String(v).trim();
  const neg = txt.startsWith('-');
  if (neg || txt.startsWith('+')) txt = txt.slice(1);
  let exp = 0;
  const e = txt.search(/[eE]/);
  if (e >= 0) {
    exp = Number(txt.slice(e + 1));
    txt = txt.slice(0, e);
  }
  const [ip = '', fp = ''] = txt.split('.');
  // digits * 10^(exp - fp.length), rescaled to 10^-scale (truncating extra digits, as ClickHouse's reader).
  const digits = BigInt((ip || '0') + fp);
  const shift = scale + exp - fp.length;
  const n = shift >= 0 ? digits * 10n ** BigInt(shift) : digits / 10n ** BigInt(-shift);
  return neg ? -n : n;
}

/** Scaled integer -> decimal text without trailing zeros (ClickHouse's JSON spelling). */
export function formatDecimal(v: bigint, scale: number): string {
  const neg = v < 0n;
  const a = (neg ? -v : v).toString().padStart(scale + 1, '0');
  const ip = a.slice(0, a.length - scale);
  const fp = a.slice(a.length - scale).replace(/0+$/, '');
  return `${neg ? '-' : ''}${ip}${fp ? `.${fp}` : ''}`;
}

const parsers = new BoundedCache<string, (v: unknown) => Value>(TYPE_CACHE_SIZE);
const printers = new BoundedCache<string, (v: Value) => unknown>(TYPE_CACHE_SIZE);

/**
 * A shard's value of a type the fast path has no value for (a JSON object). `answer`: the answer's columns, where the
 * merger that met it knows them (a row query's), so the general path knows which to carry as states without asking.
 */
export class UnmergeableValue extends ScatterError {
  constructor(
    readonly type: string,
    readonly answer?: readonly ColumnMeta[],
  ) {
    super(
      'UNSUPPORTED',
      `a value of type ${type} cannot be merged by the fast path (its merge has no value for an object); ch_scatter_path = 'general' merges in an engine`,
    );
  }
}

/** Parse one JSON value of ClickHouse type `t` into the coordinator representation. */
export function fromJson(v: unknown, t: string): Value {
  return parserFor(t)(v);
}

/** A parser for one column type, built once per type text (the hot path of merging). */
export function parserFor(t: string): (v: unknown) => Value {
  let p = parsers.get(t);
  if (!p) {
    const base = stripNullable(t);
    const nul = isNullable(t);
    if (isIntType(base) && decimalScale(base) === undefined) {
      p = (v) =>
        v === null || v === undefined ? null : typeof v === 'string' ? BigInt(v) : typeof v === 'number' ? BigInt(Math.trunc(v)) : fromJsonSlow(v, t);
    } else if (base === 'String' && nul) {
      p = (v) => (v === null || v === undefined ? null : typeof v === 'string' ? v : fromJsonSlow(v, t));
    } else if (base === 'String') {
      p = (v) => (typeof v === 'string' ? v : fromJsonSlow(v, t));
    } else if (isFloatType(base)) {
      p = (v) => (typeof v === 'number' ? v : fromJsonSlow(v, t));
    } else {
      p = (v) => fromJsonSlow(v, t);
    }
    parsers.set(t, p);
  }
  return p;
}

function fromJsonSlow(v: unknown, t: string): Value {
  if (v === null || v === undefined) {
    // ClickHouse writes NaN/Inf as null in JSON; for a non-Nullable float column it was NaN.
    return isFloatType(t) && !isNullable(t) ? NaN : null;
  }
  const base = stripNullable(t);
  const scale = decimalScale(base);
  if (scale !== undefined) return parseDecimal(v, scale); // Decimals: exact scaled bigints
  if (isIntType(base)) {
    if (typeof v === 'bigint') return v;
    if (typeof v === 'number') return BigInt(Math.trunc(v));
    if (typeof v === 'boolean') return v ? 1n : 0n;
    return BigInt(String(v));
  }
  if (isFloatType(base)) {
    if (typeof v === 'number') return v;
    // A pre-merged float sum from a sub-coordinator: the terms of its exact sum (tree-premerge.ts).
    if (Array.isArray(v)) return v.map((x) => fromJsonSlow(x ?? 'nan', base));
    const s = String(v).toLowerCase();
    if (s === 'nan' || s === '-nan') return NaN;
    if (s === 'inf' || s === '+inf') return Infinity;
    if (s === '-inf') return -Infinity;
    return Number(s);
  }
  if (base === 'Bool') return v === true || v === 1 || v === 'true';
  const el = isArrayType(base);
  if (el !== undefined && Array.isArray(v)) return v.map((x) => fromJson(x, el));
  const tup = tupleTypes(base);
  if (tup && Array.isArray(v)) return v.map((x, i) => fromJson(x, tup[i] ?? 'String'));
  // Named tuples: ClickHouse writes them as objects (output_format_json_named_tuples_as_objects).
  if (tup && typeof v === 'object') {
    const names = tupleNames(base);
    return names.map((n, i) => fromJson((v as Record<string, unknown>)[n], tup[i] ?? 'String'));
  }
  // Maps: a JSON object; kept as [key text, value] pairs in ClickHouse's order.
  const map = mapTypes(base);
  if (map && typeof v === 'object' && !Array.isArray(v)) return Object.entries(v as object).map(([k, x]) => [k, fromJson(x, map[1])]);
  if (Array.isArray(v)) return v.map((x) => fromJson(x, 'String'));
  // An object of a type the merge has no value for (JSON, Dynamic, Variant of one): refused, never
  // merged as the text "[object Object]".
  if (typeof v === 'object') throw new UnmergeableValue(t);
  return typeof v === 'string' ? v : typeof v === 'number' ? v : String(v);
}

/** Key and value types of `Map(K, V)`. */
export function mapTypes(t: string): [string, string] | undefined {
  const m = /^Map\((.*)\)$/.exec(t);
  if (!m) return undefined;
  const parts = splitTop(m[1]!);
  return parts.length === 2 ? [parts[0]!, parts[1]!] : undefined;
}

/** Element names of a named `Tuple(a A, b B)`, else []. */
export function tupleNames(t: string): string[] {
  const m = /^Tuple\((.*)\)$/.exec(t);
  if (!m) return [];
  const parts = splitTop(m[1]!);
  const named = parts.map((x) => /^([A-Za-z_][A-Za-z0-9_]*) [A-Z]/.exec(x)?.[1]);
  return named.every((x) => x !== undefined) ? (named as string[]) : [];
}

function splitTop(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  let quote = false;
  for (const ch of s) {
    if (ch === "'") quote = !quote;
    if (!quote && ch === '(') depth++;
    if (!quote && ch === ')') depth--;
    if (!quote && ch === ',' && depth === 0) {
      out.push(cur.trim());
      cur = '';
      continue;
    }
    cur += ch;
  }
  if (cur.trim()) out.push(cur.trim());
  return out;
}

/** Element types of `Tuple(A, B, ...)` (named elements `name T` are accepted too). */
export function tupleTypes(t: string): string[] | undefined {
  const m = /^Tuple\((.*)\)$/.exec(t);
  if (!m) return undefined;
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of m[1]!) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      out.push(cur.trim());
      cur = '';
      continue;
    }
    cur += ch;
  }
  if (cur.trim()) out.push(cur.trim());
  return out.map((x) => (/^[A-Za-z_][A-Za-z0-9_]* [A-Z]/.test(x) ? x.slice(x.indexOf(' ') + 1) : x));
}

/**
 * A value in ClickHouse JSON conventions (output_format_json_quote_64bit_integers=1). Strings as the
 * JSON API answers them (U+FFFD for bytes that are not UTF-8), or with `exactStrings` as they are.
 */
export function toJson(v: Value, t: string, exactStrings = false): unknown {
  if (exactStrings) return toJsonSlow(v, t, true);
  let p = printers.get(t);
  if (!p) {
    const base = stripNullable(t);
    const info = intInfo(base);
    if (info && decimalScale(base) === undefined) {
      p = info.bits <= 32 ? (x) => (typeof x === 'bigint' ? Number(x) : toJsonSlow(x, t)) : (x) => (typeof x === 'bigint' ? x.toString() : toJsonSlow(x, t));
    } else if (base === 'String') {
      p = (x) => (typeof x === 'string' ? displayString(x) : toJsonSlow(x, t));
    } else if (isFloatType(base)) {
      p = (x) => (typeof x === 'number' && Number.isFinite(x) && !Object.is(x, -0) ? x : toJsonSlow(x, t));
    } else p = (x) => toJsonSlow(x, t);
    printers.set(t, p);
  }
  return p(v);
}

function toJsonSlow(v: Value, t: string, exactStrings = false): unknown {
  if (v === null) return null;
  const base = stripNullable(t);
  const scale = decimalScale(base);
  // Decimals as their exact digits (output_format_json_quote_decimals): a JSON number would be a double.
  if (scale !== undefined && typeof v === 'bigint') return formatDecimal(v, scale);
  if (typeof v === 'bigint') {
    const info = intInfo(base);
    if (info && info.bits <= 32) return Number(v);
    if (!info && isFloatType(base)) return Number(v);
    return v.toString();
  }
  if (typeof v === 'number') {
    // ClickHouse's spellings with output_format_json_quote_denormals; -0 as text too, since
    // JSON.stringify writes it as 0.
    if (Number.isNaN(v)) return 'nan';
    if (!Number.isFinite(v)) return v > 0 ? 'inf' : '-inf';
    if (Object.is(v, -0)) return '-0';
    const info = intInfo(base);
    if (info && info.bits > 32) return String(v);
    return v;
  }
  if (typeof v === 'string') return exactStrings ? v : displayString(v);
  if (Array.isArray(v)) {
    const map = mapTypes(base);
    if (map) {
      const o: Record<string, unknown> = {};
      for (const kv of v) if (Array.isArray(kv)) o[exactStrings ? String(kv[0]) : displayString(String(kv[0]))] = toJson(kv[1] ?? null, map[1], exactStrings);
      return o;
    }
    const el = isArrayType(base);
    const tup = tupleTypes(base);
    const names = tup ? tupleNames(base) : [];
    if (names.length && names.length === v.length) return Object.fromEntries(names.map((n, i) => [n, toJson(v[i]!, tup![i]!, exactStrings)]));
    return v.map((x, i) => toJson(x, el ?? tup?.[i] ?? 'String', exactStrings));
  }
  return v;
}

/** Wrap an integer to the width of type `t` (ClickHouse integer arithmetic wraps). */
export function wrapInt(v: bigint, t: string): bigint {
  const info = intInfo(t);
  if (!info) return v;
  return info.signed ? BigInt.asIntN(info.bits, v) : BigInt.asUintN(info.bits, v);
}

const enc = new TextEncoder();
/** Compare strings as ClickHouse does: by UTF-8 bytes (differs from UTF-16 order above U+FFFF). */
export function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  // Fast path: UTF-16 order equals UTF-8 byte order when no surrogates are involved.
  if (!/[\uD800-\uDFFF]/.test(a) && !/[\uD800-\uDFFF]/.test(b)) return a < b ? -1 : 1;
  // Bytes that are not UTF-8 travel as surrogate escapes: compare the bytes they stand for.
  const x = hasEscapedBytes(a) ? stringBytes(a) : enc.encode(a);
  const y = hasEscapedBytes(b) ? stringBytes(b) : enc.encode(b);
  const n = Math.min(x.length, y.length);
  for (let i = 0; i < n; i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return x.length - y.length;
}

/** Total order of non-null values (NaN sorts after every number here; callers place it). */
export function compareValues(a: Value, b: Value): number {
  if (a === null || b === null) return a === b ? 0 : a === null ? 1 : -1;
  if (typeof a === 'bigint' && typeof b === 'bigint') return a < b ? -1 : a > b ? 1 : 0;
  if ((typeof a === 'number' || typeof a === 'bigint') && (typeof b === 'number' || typeof b === 'bigint')) {
    const an = typeof a === 'number' && Number.isNaN(a);
    const bn = typeof b === 'number' && Number.isNaN(b);
    if (an || bn) return an === bn ? 0 : an ? 1 : -1;
    if (typeof a === 'bigint' && typeof b === 'number') return -compareMixed(b, a);
    if (typeof a === 'number' && typeof b === 'bigint') return compareMixed(a, b);
    return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
  }
  if (typeof a === 'string' && typeof b === 'string') return compareStrings(a, b);
  if (typeof a === 'boolean' && typeof b === 'boolean') return a === b ? 0 : a ? 1 : -1;
  if (Array.isArray(a) && Array.isArray(b)) {
    const n = Math.min(a.length, b.length);
    for (let i = 0; i < n; i++) {
      const c = compareValues(a[i]!, b[i]!);
      if (c) return c;
    }
    return a.length - b.length;
  }
  return compareStrings(String(a), String(b));
}

/**
 * A total order for deterministic tie-breaking in merges: compareValues, refined so that two
 * values compare equal only when they are the same value (-0 sorts before +0, element-wise in
 * arrays, and values of different JavaScript types that compareValues calls equal, such as 1n and
 * 1, by type). NaNs compare equal to each other (JavaScript cannot tell their payloads apart).
 */
export function totalCompare(a: Value, b: Value): number {
  if (Array.isArray(a) && Array.isArray(b)) {
    const n = Math.min(a.length, b.length);
    for (let i = 0; i < n; i++) {
      const c = totalCompare(a[i]!, b[i]!);
      if (c) return c;
    }
    return a.length - b.length;
  }
  const c = compareValues(a, b);
  if (c !== 0) return c;
  if (typeof a === 'number' && typeof b === 'number') return Object.is(a, -0) === Object.is(b, -0) ? 0 : Object.is(a, -0) ? -1 : 1;
  if (typeof a !== typeof b || Array.isArray(a) !== Array.isArray(b)) return typeRank(a) - typeRank(b);
  return 0;
}
function typeRank(v: Value): number {
  if (v === null) return 5;
  if (Array.isArray(v)) return 4;
  return typeof v === 'bigint' ? 0 : typeof v === 'number' ? 1 : typeof v === 'boolean' ? 2 : 3;
}

/** number vs bigint without losing precision of large integers. */
function compareMixed(a: number, b: bigint): number {
  if (a === Infinity) return 1;
  if (a === -Infinity) return -1;
  const t = Math.trunc(a);
  const bt = BigInt(t);
  if (bt < b) return -1;
  if (bt > b) return 1;
  return a > t ? 1 : a < t ? -1 : 0;
}

export function isNaNValue(v: Value): boolean {
  return typeof v === 'number' && Number.isNaN(v);
}

/** A stable text key for grouping/deduplication (bigints and numbers kept distinct from strings). */
export function valueKey(v: Value): string {
  // Fast paths for scalars (the common group key); arrays fall back to JSON.
  switch (typeof v) {
    case 'string':
      return `s${v}`;
    case 'bigint':
      return `b${v}`;
    case 'number':
      // -0 and +0 are two keys, as in ClickHouse's GROUP BY and uniqExact (they hash by bits).
      return v === 0 && Object.is(v, -0) ? 'n-0' : `n${v}`;
    case 'boolean':
      return v ? 'T' : 'F';
    default:
      if (v === null) return 'N';
  }
  return `j${valueKeyJson(v)}`;
}
function valueKeyJson(v: Value): string {
  return JSON.stringify(v, (_k, x) =>
    typeof x === 'bigint' ? `${x}n` : typeof x === 'number' && (!Number.isFinite(x) || Object.is(x, -0)) ? `#${Object.is(x, -0) ? '-0' : x}` : x,
  );
}

export function toNumber(v: Value): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint') return Number(v);
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'string') return Number(v);
  return NaN;
}

/** The default value ClickHouse gives a non-Nullable type (what an empty aggregate returns). */
export function defaultOf(t: string): Value {
  if (isNullable(t)) return null;
  const base = stripNullable(t);
  if (isIntType(base) || decimalScale(base) !== undefined) return 0n;
  if (isFloatType(base)) return 0;
  if (base === 'Date' || base === 'Date32') return '1970-01-01';
  if (/^DateTime64/.test(base)) return '1970-01-01 00:00:00.000';
  if (/^DateTime/.test(base)) return '1970-01-01 00:00:00';
  if (isArrayType(base) !== undefined) return [];
  if (base === 'UUID') return '00000000-0000-0000-0000-000000000000';
  return '';
}
