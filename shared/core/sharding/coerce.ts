// Turning a JSON row value (or a SQL literal's value) into the canonical KeyValue of a
// sharding-key type, refusing anything ClickHouse would store differently from what we would
// hash. Canonical forms: integers -> bigint, Date -> days (number), DateTime -> seconds
// (number), UUID -> lowercase 8-4-4-4-12 text, String/FixedString -> the string itself.
import { ScatterError } from '../errors.js';
import type { KeyValue } from './types.js';
import { keyTypeInfo, type KeyTypeInfo } from './types-info.js';
import { BoundedCache } from '../bounded-cache.js';

const MAX_DAYS = 65535; // Date is UInt16 days since 1970-01-01 (last day 2149-06-06)
const MAX_SECONDS = 4294967295; // DateTime is UInt32 seconds
const UUID_RE = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATETIME_RE = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2}):(\d{2}))?$/;
const utf8 = new TextEncoder();

function bad(type: string, v: unknown, why: string): ScatterError {
  const shown =
    typeof v === 'string'
      ? JSON.stringify(v.length > 80 ? v.slice(0, 80) + '...' : v)
      : typeof v === 'bigint'
        ? `${v}`
        : v instanceof Uint8Array
          ? `0x${Buffer.from(v.subarray(0, 40)).toString('hex')}${v.length > 40 ? '...' : ''}`
          : (JSON.stringify(v) ?? String(v));
  return new ScatterError('TYPE_MISMATCH', `${shown} is not a valid ${type}: ${why}`);
}

/** The canonical KeyValue for `v` as a value of ClickHouse type `type`; TYPE_MISMATCH otherwise. */
export function coerceKeyValue(v: unknown, type: string): KeyValue {
  return coerceWith(v, type, keyTypeInfo(type));
}

export function coerceWith(v: unknown, type: string, info: KeyTypeInfo): KeyValue {
  if (v === null || v === undefined) throw bad(type, v, 'the sharding key cannot be null or missing');
  switch (info.kind) {
    case 'string':
      if (typeof v !== 'string' && !(v instanceof Uint8Array)) throw bad(type, v, 'expected a string');
      return v;
    case 'fixedString': {
      if (typeof v !== 'string' && !(v instanceof Uint8Array)) throw bad(type, v, 'expected a string');
      const len = typeof v === 'string' ? utf8.encode(v).length : v.length;
      if (len > info.n) throw bad(type, v, `${len} bytes do not fit in ${info.n}`);
      return v;
    }
    case 'int':
      return coerceInt(v, type, info.bits, info.signed);
    case 'date':
      return coerceDate(v, type);
    case 'dateTime':
      return coerceDateTime(v, type, info.tz);
    case 'uuid':
      if (typeof v !== 'string' || !UUID_RE.test(v)) throw bad(type, v, 'expected 8-4-4-4-12 hexadecimal text');
      return v.toLowerCase();
  }
}

export function intRange(bits: number, signed: boolean): [bigint, bigint] {
  const b = BigInt(bits);
  return signed ? [-(1n << (b - 1n)), (1n << (b - 1n)) - 1n] : [0n, (1n << b) - 1n];
}

function coerceInt(v: unknown, type: string, bits: number, signed: boolean): bigint {
  let n: bigint;
  if (typeof v === 'bigint') n = v;
  else if (typeof v === 'number') {
    if (!Number.isInteger(v)) throw bad(type, v, 'not an integer');
    // JSON.parse already rounded anything beyond 2^53; hashing the rounded value would place
    // the row by a number that is not the one ClickHouse stores.
    if (!Number.isSafeInteger(v)) throw bad(type, v, 'beyond 2^53 a JSON number loses precision; quote it as a string');
    n = BigInt(v);
  } else if (typeof v === 'string') {
    if (!/^-?\d+$/.test(v)) throw bad(type, v, 'not an integer');
    n = BigInt(v);
  } else throw bad(type, v, 'expected an integer');
  const [lo, hi] = intRange(bits, signed);
  if (n < lo || n > hi) throw bad(type, v, `out of range ${lo}..${hi}`);
  return n;
}

function civilDays(y: number, m: number, d: number, type: string, v: unknown): number {
  if (m < 1 || m > 12 || d < 1 || d > 31) throw bad(type, v, 'no such date');
  const ms = Date.UTC(y, m - 1, d);
  const back = new Date(ms);
  if (back.getUTCFullYear() !== y || back.getUTCMonth() !== m - 1 || back.getUTCDate() !== d) throw bad(type, v, 'no such date');
  return ms / 86_400_000;
}

function coerceDate(v: unknown, type: string): number {
  let days: number;
  if (typeof v === 'number' || typeof v === 'bigint') {
    days = Number(v);
    if (!Number.isInteger(days)) throw bad(type, v, 'not a whole number of days');
  } else if (typeof v === 'string') {
    const m = DATE_RE.exec(v);
    if (!m) throw bad(type, v, "expected 'YYYY-MM-DD'");
    days = civilDays(Number(m[1]), Number(m[2]), Number(m[3]), type, v);
  } else throw bad(type, v, "expected 'YYYY-MM-DD' or a number of days");
  if (days < 0 || days > MAX_DAYS) throw bad(type, v, 'outside 1970-01-01..2149-06-06');
  return days;
}

function coerceDateTime(v: unknown, type: string, tz: string | undefined): number {
  let secs: number;
  if (typeof v === 'number' || typeof v === 'bigint') {
    secs = Number(v);
    if (!Number.isInteger(secs)) throw bad(type, v, 'not a whole number of seconds');
  } else if (typeof v === 'string') {
    const m = DATETIME_RE.exec(v);
    if (!m) throw bad(type, v, "expected 'YYYY-MM-DD hh:mm:ss'");
    const days = civilDays(Number(m[1]), Number(m[2]), Number(m[3]), type, v);
    const [hh, mi, ss] = [Number(m[4] ?? 0), Number(m[5] ?? 0), Number(m[6] ?? 0)];
    if (hh > 23 || mi > 59 || ss > 59) throw bad(type, v, 'no such time of day');
    const wall = days * 86_400 + hh * 3600 + mi * 60 + ss;
    secs = tz && tz !== 'UTC' ? wallClockToEpoch(wall, tz, type) : wall;
  } else throw bad(type, v, "expected 'YYYY-MM-DD hh:mm:ss' or a number of seconds");
  if (secs < 0 || secs > MAX_SECONDS) throw bad(type, v, 'outside the UInt32 seconds range (1970-01-01 00:00:00..2106-02-07 06:28:15 UTC)');
  return secs;
}

// DateTime('Zone') text is wall-clock time in that zone. Find the epoch second whose local
// time in `tz` is `wall` (seconds as if UTC); two passes settle DST offsets.
const formatters = new BoundedCache<string, Intl.DateTimeFormat>(1000);
function offsetSeconds(epoch: number, tz: string, type: string): number {
  let f = formatters.get(tz);
  if (!f) {
    try {
      f = new Intl.DateTimeFormat('en-US', {
        timeZone: tz,
        hourCycle: 'h23',
        year: 'numeric',
        month: '2-digit',
        day: '2-digit',
        hour: '2-digit',
        minute: '2-digit',
        second: '2-digit',
      });
    } catch {
      throw new ScatterError('TYPE_MISMATCH', `unknown time zone in ${type}`);
    }
    formatters.set(tz, f);
  }
  const p: Record<string, number> = {};
  for (const part of f.formatToParts(new Date(epoch * 1000))) if (part.type !== 'literal') p[part.type] = Number(part.value);
  const local = Date.UTC(p.year!, p.month! - 1, p.day!, p.hour!, p.minute!, p.second!) / 1000;
  return local - epoch;
}

function wallClockToEpoch(wall: number, tz: string, type: string): number {
  let epoch = wall - offsetSeconds(wall, tz, type);
  epoch = wall - offsetSeconds(epoch, tz, type);
  return epoch;
}
