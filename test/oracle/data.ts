// The oracle's rows: deterministic (one seeded PRNG per table), generated here and loaded as
// TabSeparated text, which both chdb and 18.16 read for every type used (18.16's JSONEachRow
// refuses quoted Decimals). What the rows hold on purpose:
// - NULLs in every Nullable column; ties in low-cardinality columns (page, qty, site, country);
// - nan, inf, -inf and -0 in events.odd; Decimal(18, 4) and Decimal(38, 10) sums;
// - DateTime in three time zones, all in months without a daylight-saving change (so a local time
//   is never ambiguous), written as Unix seconds;
// - events.duration is a multiple of 1/16 and events.ratio a Float32, so their sums are exact in
//   Float64 in any order; sensor value (round(x, 3)) is not, so float summation order shows there;
// - users that have no events and events whose user has no row;
// - the sensor table's sensors all live off shard 3 (placement decided by shared/core/sharding).
import type { Placement } from '../../shared/core/sharding/index.js';
import { type Column, EMPTY_SENSOR_SHARD, EVENTS, type OracleTable, SENSORS, USERS } from './schema.js';

export type Value = string | number | null | Value[];
export type Row = Record<string, Value>;

export const SIZES = { events: 8000, users: 1500, sensors: 6000 } as const;

/** mulberry32: small, fast, and the same sequence everywhere. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pick = <T>(r: () => number, xs: readonly T[], skew = 1): T => xs[Math.floor(r() ** skew * xs.length)]!;
const int = (r: () => number, lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1));
const digits = (r: () => number, n: number) => Array.from({ length: n }, () => int(r, 0, 9)).join('');
const dateOf = (sec: number) => new Date(sec * 1000).toISOString().slice(0, 10);

/** 2024-04-01 .. 2024-08-31 UTC: no daylight-saving change in Berlin, Tokyo or New York. */
const EVENTS_FROM = Date.UTC(2024, 3, 1) / 1000;
const EVENTS_SPAN = 153 * 86400;
/** 2023-05-01 .. 2023-09-30 UTC, for users.last_seen in New York time. */
const USERS_FROM = Date.UTC(2023, 4, 1) / 1000;

export function eventRows(n = SIZES.events, seed = 15001): Row[] {
  const r = rng(seed);
  const rows: Row[] = [];
  for (let i = 0; i < n; i++) {
    const ts = EVENTS_FROM + int(r, 0, EVENTS_SPAN - 1);
    const u = r();
    const oddKind = r();
    const cents = int(r, -2_000_000, 20_000_000);
    rows.push({
      event_id: String(1_000_000_000_000n + BigInt(i) * 7919n),
      // Skewed: low user ids have many events; 1501..1800 have no row in users.
      user_id: 1 + Math.floor(u * u * 1800),
      ts,
      ts_ms: `${ts}.${String(int(r, 0, 999)).padStart(3, '0')}`,
      day: dateOf(ts),
      event: pick(r, ['view', 'view', 'view', 'click', 'click', 'cart', 'buy']),
      page: `/p/${int(r, 0, 29)}`,
      duration: int(r, -160, 800_000) / 16,
      odd: oddKind < 0.01 ? 'nan' : oddKind < 0.015 ? 'inf' : oddKind < 0.02 ? '-inf' : oddKind < 0.03 ? '-0' : int(r, -4000, 4000) / 4,
      ratio: r() < 0.25 ? null : Math.fround(int(r, 0, 1000) / 1000),
      amount: `${cents < 0 ? '-' : ''}${Math.floor(Math.abs(cents) / 10000)}.${String(Math.abs(cents) % 10000).padStart(4, '0')}`,
      total: `${r() < 0.1 ? '-' : ''}${int(r, 1, 9)}${digits(r, int(r, 0, 16))}.${digits(r, 10)}`,
      qty: r() < 0.03 ? -int(r, 1, 3) : int(r, 1, 10),
      score: r() < 0.2 ? null : String(BigInt(int(r, -1_000_000, 1_000_000)) * 1_000_000_007n),
      tag: r() < 0.3 ? null : pick(r, ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h']),
      tags: Array.from({ length: int(r, 0, 3) }, () => pick(r, ['red', 'green', 'blue', 'new', 'sale'])),
      nums: Array.from({ length: int(r, 0, 4) }, () => int(r, 0, 100)),
      flag: r() < 0.3 ? 1 : 0,
    });
  }
  return rows;
}

export function userRows(n = SIZES.users, seed = 15002): Row[] {
  const r = rng(seed);
  const rows: Row[] = [];
  for (let id = 1; id <= n; id++) {
    const cents = int(r, -50_000, 5_000_000);
    rows.push({
      user_id: id,
      name: `user-${String(id).padStart(4, '0')}`,
      country: pick(r, ['de', 'us', 'jp', 'fr', 'br', 'in'], 1.6),
      signup: dateOf(Date.UTC(2023, 0, 1) / 1000 + int(r, 0, 364) * 86400),
      plan: r() < 0.4 ? null : pick(r, ['free', 'pro', 'team']),
      age: r() < 0.15 ? null : int(r, 16, 80),
      credit: `${cents < 0 ? '-' : ''}${Math.floor(Math.abs(cents) / 100)}.${String(Math.abs(cents) % 100).padStart(2, '0')}`,
      last_seen: USERS_FROM + int(r, 0, 152 * 86400),
    });
  }
  return rows;
}

/** The sensors the sensor table uses: the first `count` demo names that do not live on the empty shard. */
export function sensorNames(placement: Placement, count = 60): string[] {
  const out: string[] = [];
  for (let i = 0; out.length < count; i++) {
    const s = `s-${i}`;
    if (placement.shardOf(s) !== EMPTY_SENSOR_SHARD) out.push(s);
  }
  return out;
}

export function sensorRows(sensors: readonly string[], n = SIZES.sensors, seed = 15003): Row[] {
  const r = rng(seed);
  const from = Date.UTC(2026, 0, 1) / 1000;
  const rows: Row[] = [];
  for (let i = 0; i < n; i++) {
    rows.push({
      ts: from + i * 3 + int(r, 0, 2),
      sensor: pick(r, sensors, 1.8),
      site: pick(r, ['ams', 'fra', 'iad', 'sfo', 'syd']),
      metric: pick(r, ['temp', 'humidity', 'pressure']),
      value: Math.round((int(r, 0, 99_999) / 100 + Math.sin(i)) * 1000) / 1000,
      status: r() < 0.02 ? 500 : r() < 0.05 ? 404 : 200,
    });
  }
  return rows;
}

export interface OracleData {
  rows: Map<OracleTable, Row[]>;
}

export function generateData(sensorPlacement: Placement): OracleData {
  return {
    rows: new Map<OracleTable, Row[]>([
      [EVENTS, eventRows()],
      [USERS, userRows()],
      [SENSORS, sensorRows(sensorNames(sensorPlacement))],
    ]),
  };
}

const tsvString = (s: string) => s.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n');
const quotedInArray = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

function tsvValue(v: Value, inArray = false): string {
  if (v === null) return inArray ? 'NULL' : '\\N';
  if (Array.isArray(v)) return `[${v.map((x) => tsvValue(x, true)).join(',')}]`;
  if (typeof v === 'number') return String(v);
  return inArray ? quotedInArray(v) : tsvString(v);
}

/** Rows as TabSeparated lines (columns in `columns` order); DateTimes are Unix seconds. */
export function toTsv(rows: readonly Row[], columns: readonly Column[]): string {
  let out = '';
  for (const row of rows) out += `${columns.map((c) => tsvValue(row[c.name] ?? null, false)).join('\t')}\n`;
  return out;
}
