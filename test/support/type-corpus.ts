// The type round-trip corpus: one table with a column of every ClickHouse type the fast path
// carries, holding edge values (min/max, nan, ±inf, -0, NULL, empty arrays, strings that are not
// UTF-8), split over two shard tables. Each query runs through the real planner, runtime and shard
// function over those two tables, and once on the table holding every row; every answer labelled
// complete must equal the one-table answer, value for value (`canonical` below compares values,
// not spellings: 18.16 writes Decimal(9,4) 1.5 as 1.5000, the API as "1.5").
//
// Used by test/integration/scatter/type-corpus.test.ts (chdb) and test/server/type-corpus-18.test.ts
// (18.16, with the types it has).
import { decimalScale, formatDecimal, isArrayType, mapTypes, parseDecimal, stripNullable, tupleTypes } from '../../shared/core/partials/values.js';
import { displayString } from '../../shared/core/surrogate-escape.js';
import type { ClickHouseAccess, ColumnMeta } from '../../shared/core/clickhouse/port.js';
import { runQuery, type RunDeps } from '../../shared/core/scatter/run-query.js';

export type Engine = 'chdb' | '18.16';

export interface CorpusColumn {
  name: string;
  type: string;
  /** SQL expressions for the values rows cycle through. */
  values: string[];
  /** Engines that have the type (default both). */
  only?: Engine;
  /** The column is a number a sum/avg applies to. */
  summable?: boolean;
  /** ORDER BY / min / max apply (not Map). */
  orderable?: boolean;
}

const f32 = (x: string) => `toFloat32(${x})`;
const NON_UTF8 = ["unhex('FF')", "unhex('FE')", "unhex('FFFE41')", "unhex('C3')", "unhex('41C3A9FF')", "unhex('EDA080')", "unhex('E282')"];

export const CORPUS: CorpusColumn[] = [
  { name: 'i8', type: 'Int8', values: ['-128', '127', '0', '-1', '5'], summable: true },
  { name: 'u8', type: 'UInt8', values: ['0', '255', '1', '7'], summable: true },
  { name: 'i16', type: 'Int16', values: ['-32768', '32767', '0', '12'], summable: true },
  { name: 'u16', type: 'UInt16', values: ['0', '65535', '3'], summable: true },
  { name: 'i32', type: 'Int32', values: ['-2147483648', '2147483647', '0', '-5'], summable: true },
  { name: 'u32', type: 'UInt32', values: ['0', '4294967295', '9'], summable: true },
  { name: 'i64', type: 'Int64', values: ['-9223372036854775808', '9223372036854775807', '0', '-1', '9007199254740993'], summable: true },
  { name: 'u64', type: 'UInt64', values: ['18446744073709551615', '0', '9007199254740993'], summable: true },
  {
    name: 'i128',
    type: 'Int128',
    values: ["toInt128('-170141183460469231731687303715884105728')", "toInt128('170141183460469231731687303715884105727')", '0', '-7'],
    only: 'chdb',
    summable: true,
  },
  { name: 'u128', type: 'UInt128', values: ["toUInt128('340282366920938463463374607431768211455')", '0', '12'], only: 'chdb', summable: true },
  {
    name: 'i256',
    type: 'Int256',
    values: [
      "toInt256('-57896044618658097711785492504343953926634992332820282019728792003956564819968')",
      "toInt256('57896044618658097711785492504343953926634992332820282019728792003956564819967')",
      '1',
    ],
    only: 'chdb',
    summable: true,
  },
  {
    name: 'u256',
    type: 'UInt256',
    values: ["toUInt256('115792089237316195423570985008687907853269984665640564039457584007913129639935')", '0', '3'],
    only: 'chdb',
    summable: true,
  },
  {
    name: 'f32',
    type: 'Float32',
    values: [f32('0.1'), f32('-0.'), f32('nan'), f32('inf'), f32('-inf'), f32('3.4028235e38'), f32('-1.17549435e-38'), f32('1e-45'), f32('0'), f32('2.5')],
    summable: true,
  },
  {
    name: 'f64',
    type: 'Float64',
    values: ['0.1', '-0.', 'nan', 'inf', '-inf', '1.7976931348623157e308', '5e-324', '0', '0.30000000000000004', '-2.5', '1e21'],
    summable: true,
  },
  {
    name: 'd32',
    type: 'Decimal(9, 4)',
    values: ["toDecimal32('-99999.9999', 4)", "toDecimal32('99999.9999', 4)", "toDecimal32('0', 4)", "toDecimal32('1.5', 4)"],
    summable: true,
  },
  {
    name: 'd64',
    type: 'Decimal(18, 8)',
    values: ["toDecimal64('-9999999999.99999999', 8)", "toDecimal64('1234567890.12345678', 8)", "toDecimal64('0.00000001', 8)"],
    summable: true,
  },
  {
    name: 'd38',
    type: 'Decimal(38, 10)',
    values: [
      "toDecimal128('1234567890123456789.0123456789', 10)",
      "toDecimal128('-999999999999999999999.9999999999', 10)",
      "toDecimal128('0.0000000001', 10)",
      "toDecimal128('998806085424817.139993', 10)",
    ],
    summable: true,
  },
  {
    name: 'd128',
    type: 'Decimal(38, 20)',
    values: ["toDecimal128('-99999999999999.99999999999999999999', 20)", "toDecimal128('0.00000000000000000001', 20)", "toDecimal128('3', 20)"],
    summable: true,
  },
  {
    name: 'd256',
    type: 'Decimal(76, 40)',
    values: [
      "toDecimal256('-123456789012345678901234567890.1234567890123456789012345678901234567891', 40)",
      "toDecimal256('1e-40', 40)",
      "toDecimal256('7', 40)",
    ],
    only: 'chdb',
    summable: true,
  },
  { name: 'dt32', type: 'Date32', values: ["toDate32('1900-01-01')", "toDate32('2299-12-31')", "toDate32('1970-01-01')"], only: 'chdb' },
  { name: 'd', type: 'Date', values: ["toDate('1970-01-01')", "toDate('2105-12-31')", "toDate('2021-03-14')"] },
  {
    name: 'dt64',
    type: "DateTime64(9, 'Asia/Kolkata')",
    values: [
      "toDateTime64('1900-01-01 05:30:00.000000001', 9, 'Asia/Kolkata')",
      "toDateTime64('2262-04-12 05:17:16.854775807', 9, 'Asia/Kolkata')",
      "toDateTime64('1970-01-01 05:30:00.123456789', 9, 'Asia/Kolkata')",
    ],
    only: 'chdb',
  },
  { name: 'dtz', type: "DateTime('America/New_York')", values: ["toDateTime(0, 'America/New_York')", "toDateTime('2021-03-14 03:00:00', 'America/New_York')"] },
  {
    name: 'uuid',
    type: 'UUID',
    values: [
      "toUUID('00000000-0000-0000-0000-000000000000')",
      "toUUID('ffffffff-ffff-ffff-ffff-ffffffffffff')",
      "toUUID('61f0c404-5cb3-11e7-907b-a6006ad3dba0')",
    ],
  },
  { name: 'ip4', type: 'IPv4', values: ["toIPv4('0.0.0.0')", "toIPv4('255.255.255.255')", "toIPv4('10.0.0.1')"], only: 'chdb' },
  {
    name: 'ip6',
    type: 'IPv6',
    values: ["toIPv6('::')", "toIPv6('ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff')", "toIPv6('::ffff:10.0.0.1')", "toIPv6('2001:db8::1')"],
    only: 'chdb',
  },
  { name: 'e8', type: "Enum8('a' = 1, 'b c' = 2, 'z' = -128)", values: ["'a'", "'b c'", "'z'"] },
  { name: 'lc', type: 'LowCardinality(String)', values: ["'x'", "''", "'é'"] },
  { name: 'lcn', type: 'LowCardinality(Nullable(String))', values: ['NULL', "'q'"], only: 'chdb' },
  { name: 'ns', type: 'Nullable(String)', values: ['NULL', "''", "'null'", "'NULL'"] },
  { name: 'nf', type: 'Nullable(Float64)', values: ['NULL', 'nan', 'inf', '0', '-0.', '-inf', '1.5'], summable: true },
  { name: 'ni', type: 'Nullable(Int64)', values: ['NULL', '-9223372036854775808', '0', '5'], summable: true },
  { name: 'nd', type: 'Nullable(Decimal(18, 6))', values: ['NULL', "toDecimal64('123456789012.345678', 6)", "toDecimal64('-0.000001', 6)"], summable: true },
  { name: 'arr', type: 'Array(Nullable(Int32))', values: ['[]', '[NULL]', '[1, NULL, -2]', '[2147483647]'] },
  { name: 'arrf', type: 'Array(Float64)', values: ['[]', '[nan, inf]', '[-0.]', '[1.5, -inf]'] },
  { name: 'arrs', type: 'Array(String)', values: ['[]', `[${NON_UTF8[0]}, 'a']`, "['', 'é']"] },
  { name: 'tup', type: 'Tuple(Int64, String, Float64)', values: ["(1, 'a', nan)", "(-9223372036854775808, '', -0.)", "(0, 'z', inf)"] },
  { name: 'ntup', type: 'Tuple(a UInt8, b String)', values: ["(1, 'x')", "(0, '')"], only: 'chdb' },
  { name: 'mp', type: 'Map(String, UInt64)', values: ['map()', "map('a', 1, 'b', 18446744073709551615)", "map('', 0)"], only: 'chdb', orderable: false },
  { name: 's', type: 'String', values: ["''", "'plain'", ...NON_UTF8, "'é'", "unhex('F09F9880')", "'quo''te'", "'line\\nbreak'"] },
  { name: 'fs', type: 'FixedString(3)', values: ["'abc'", "''", "unhex('FF0001')", "'é'"] },
  { name: 'b', type: 'Bool', values: ['true', 'false'], only: 'chdb' },
];

export const ROWS = 60;

export function corpusColumns(engine: Engine): CorpusColumn[] {
  return CORPUS.filter((c) => c.only === undefined || c.only === engine);
}

export function corpusDdl(table: string, engine: Engine): string {
  const cols = corpusColumns(engine).map((c) => `${c.name} ${c.type}`);
  return `CREATE TABLE ${table} (id UInt64, ${cols.join(', ')}) ENGINE = MergeTree() ORDER BY id`;
}

/** Rows as one INSERT ... VALUES with expressions; row i takes each column's value (i + column) mod n. */
export function corpusInsert(table: string, engine: Engine): string {
  const cols = corpusColumns(engine);
  const rows = Array.from(
    { length: ROWS },
    (_, i) => `(${i}, ${cols.map((c, ci) => c.values[(i * (ci % 3 === 0 ? 1 : 7) + ci) % c.values.length]).join(', ')})`,
  );
  return `INSERT INTO ${table} (id, ${cols.map((c) => c.name).join(', ')}) VALUES ${rows.join(', ')}`;
}

/** 18.16's parser has no denormal float literal: read it from text. */
const old = (v: string) => (v === '5e-324' ? "toFloat64('5e-324')" : v);

/** The same rows as one INSERT ... SELECT per row (18.16's VALUES cannot convert every expression). */
export function corpusInsertSelects(table: string, engine: Engine): string[] {
  const cols = corpusColumns(engine);
  return Array.from(
    { length: ROWS },
    (_, i) =>
      `INSERT INTO ${table} (id, ${cols.map((c) => c.name).join(', ')}) SELECT ${i}, ${cols.map((c, ci) => old(c.values[(i * (ci % 3 === 0 ? 1 : 7) + ci) % c.values.length]!)).join(', ')}`,
  );
}

export interface CorpusQuery {
  sql: string;
  ordered: boolean;
  /** Page through the answer with cursors of this many rows. */
  pageRows?: number;
}

/**
 * The queries per column. On 18.16 three are left out, each for the engine's sake, not ours:
 * groupArray over Decimal128 crashes the 18.16 server (the fast path refuses groupArray anyway);
 * 18.16's uniqExact counts every NaN row as a distinct value and is Nullable(UInt64) over a
 * Nullable column, and its avg(Decimal) is a Decimal, where current ClickHouse counts NaN once,
 * answers UInt64 and Float64: ch-scatter follows current ClickHouse.
 */
export function corpusQueries(c: CorpusColumn, dist: string, engine: Engine = 'chdb'): CorpusQuery[] {
  const q = (sql: string, ordered = false): CorpusQuery => ({ sql, ordered });
  const old = engine === '18.16';
  const decimal = c.type.includes('Decimal');
  const nanFloat = /Float/.test(c.type) && c.values.some((v) => v.includes('nan'));
  const out: CorpusQuery[] = [
    q(`SELECT DISTINCT ${c.name} FROM ${dist}`),
    q(`SELECT ${c.name}, count() AS n FROM ${dist} GROUP BY ${c.name}`),
    q(`SELECT id, any(${c.name}) AS a FROM ${dist} GROUP BY id`),
    q(`SELECT argMin(${c.name}, id) AS lo, argMax(${c.name}, id) AS hi FROM ${dist}`),
  ];
  if (!(old && (nanFloat || c.type.startsWith('Nullable')))) out.push(q(`SELECT uniqExact(${c.name}) AS u FROM ${dist}`));
  if (!(old && decimal)) out.push(q(`SELECT groupArray(${c.name}) AS g FROM ${dist}`));
  if (c.orderable !== false) {
    out.push(q(`SELECT min(${c.name}) AS lo, max(${c.name}) AS hi FROM ${dist}`));
    out.push(q(`SELECT id, ${c.name} FROM ${dist} ORDER BY ${c.name}, id LIMIT 9`, true));
    out.push(q(`SELECT id, ${c.name} FROM ${dist} ORDER BY ${c.name} DESC, id LIMIT 9`, true));
    out.push({ sql: `SELECT id, ${c.name} FROM ${dist} ORDER BY ${c.name}, id`, ordered: true, pageRows: 7 });
  }
  if (c.summable) out.push(q(`SELECT sum(${c.name}) AS s${old && decimal ? '' : `, avg(${c.name}) AS m`} FROM ${dist}`));
  return out;
}

/**
 * Per value a column cycles through (its first row, as corpusInsert places them): rows whose value
 * equals, as text, a scalar subquery's value read back on the shards, that scalar run on the general
 * path (groupArray, which the fast path refuses) and on the fast path (a row).
 */
export function scalarValueQueries(c: CorpusColumn, ci: number, dist: string, engine: Engine = 'chdb'): string[] {
  // groupArray over a Decimal crashes the 18.16 server (corpusQueries leaves it out too).
  const general = !(engine === '18.16' && c.type.includes('Decimal'));
  const first = new Map<number, number>();
  for (let i = 0; i < ROWS; i++) {
    const v = (i * (ci % 3 === 0 ? 1 : 7) + ci) % c.values.length;
    if (!first.has(v)) first.set(v, i);
  }
  return [...first.values()].flatMap((id) => {
    // `id + 0`: the tests' shard tables hold rows by id % 3, not where the key would place them.
    const row = `id + 0 = ${id}`;
    return [...(general ? [`SELECT groupArray(${c.name})[1] FROM ${dist} WHERE ${row}`] : []), `SELECT ${c.name} FROM ${dist} WHERE ${row}`].map(
      (scalar) => `SELECT id, hex(toString(${c.name})) AS h FROM ${dist} WHERE hex(toString(${c.name})) = hex(toString((${scalar})))`,
    );
  });
}

/** A value as comparable text, by its ClickHouse type: the same value gives the same text. */
export function canonical(v: unknown, t: string): string {
  if (v === null || v === undefined) return 'NULL';
  const base = stripNullable(t);
  const el = isArrayType(base);
  if (el !== undefined && Array.isArray(v)) return `[${v.map((x) => canonical(x, el)).join(',')}]`;
  const map = mapTypes(base);
  if (map && typeof v === 'object') return `{${Object.entries(v as object).map(([k, x]) => `${displayString(k)}:${canonical(x, map[1])}`)}}`;
  const tup = tupleTypes(base);
  if (tup && typeof v === 'object') return `(${Object.values(v as object).map((x, i) => canonical(x, tup[i] ?? 'String'))})`;
  const scale = decimalScale(base);
  if (scale !== undefined) return formatDecimal(parseDecimal(v, scale), scale);
  if (/^(Float32|Float64)$/.test(base)) {
    if (typeof v === 'number') return Object.is(v, -0) ? '-0' : String(v);
    const s = String(v).toLowerCase();
    if (['nan', '-nan', 'inf', '-inf', '-0'].includes(s)) return s === '-nan' ? 'nan' : s;
    return String(Number(s));
  }
  if (typeof v === 'string') return displayString(v);
  return String(v);
}

export function canonicalRows(meta: ColumnMeta[], data: Record<string, unknown>[], ordered: boolean): string[] {
  const rows = data.map((r) => meta.map((m) => canonical(r[m.name], m.type)).join(' | '));
  return ordered ? rows : [...rows].sort();
}

export interface CorpusOutcome {
  sql: string;
  status: 'equal' | 'unsupported' | 'both-refused' | 'MISMATCH';
  detail?: string;
}

/** One query through ch-scatter and on the one-table reference; never 'MISMATCH' when all is well. */
export async function compareOne(
  cq: CorpusQuery,
  deps: () => RunDeps,
  reference: (sql: string) => Promise<{ meta: ColumnMeta[]; rows: Record<string, unknown>[] }>,
): Promise<CorpusOutcome> {
  const { sql, ordered } = cq;
  let ref: { meta: ColumnMeta[]; rows: Record<string, unknown>[] } | undefined;
  let refError = '';
  try {
    ref = await reference(sql);
  } catch (e) {
    refError = String((e as Error).message).slice(0, 200);
  }
  let meta: ColumnMeta[] = [];
  let data: Record<string, unknown>[] = [];
  if (cq.pageRows) {
    let cursor: string | undefined;
    for (let page = 0; page < 100; page++) {
      const r = await runQuery({ sql: `${sql} LIMIT ${cq.pageRows}`, ...(cursor ? { cursor } : {}) }, deps());
      const b = r.body as {
        meta: ColumnMeta[];
        data: Record<string, unknown>[];
        partial?: boolean;
        cursor?: string;
        error?: { code: string; message: string };
      };
      if (r.status !== 200) return outcomeOfRefusal(sql, r.status, b.error, ref, refError);
      if (b.partial) return { sql, status: 'MISMATCH', detail: 'partial without faults' };
      meta = b.meta;
      data.push(...b.data);
      cursor = b.cursor;
      if (!cursor) break;
    }
  } else {
    const r = await runQuery({ sql }, deps());
    const b = r.body as { meta: ColumnMeta[]; data: Record<string, unknown>[]; partial?: boolean; error?: { code: string; message: string } };
    if (r.status !== 200) return outcomeOfRefusal(sql, r.status, b.error, ref, refError);
    if (b.partial) return { sql, status: 'MISMATCH', detail: 'partial without faults' };
    meta = b.meta;
    data = b.data;
  }
  if (!ref) return { sql, status: 'MISMATCH', detail: `complete answer where ClickHouse refuses: ${refError}` };
  const want = canonicalRows(ref.meta, ref.rows, ordered);
  const got = canonicalRows(meta, data, ordered);
  const wantMeta = ref.meta.map((m) => `${m.name}:${m.type}`).join(',');
  const gotMeta = meta.map((m) => `${m.name}:${m.type}`).join(',');
  if (wantMeta !== gotMeta) return { sql, status: 'MISMATCH', detail: `meta ${gotMeta} != ${wantMeta}` };
  if (JSON.stringify(want) !== JSON.stringify(got)) {
    let i = 0;
    while (i < want.length && want[i] === got[i]) i++;
    const at = (xs: string[]) => JSON.stringify(xs.slice(Math.max(0, i - 2), i + 6));
    return { sql, status: 'MISMATCH', detail: `${got.length} rows, ${want.length} wanted; from row ${i}: got ${at(got)}\nwant ${at(want)}` };
  }
  return { sql, status: 'equal' };
}

function outcomeOfRefusal(sql: string, status: number, error: { code: string; message: string } | undefined, ref: unknown, refError: string): CorpusOutcome {
  // A refusal is never a wrong answer, but it must be a client error that says why.
  if (status >= 500) return { sql, status: 'MISMATCH', detail: `${status} ${error?.code}: ${error?.message}` };
  if (!ref) return { sql, status: 'both-refused', detail: refError };
  return { sql, status: 'unsupported', detail: `${error?.code}: ${error?.message?.slice(0, 160)}` };
}

/** The reference: the same SQL on the table holding every row, in the API's JSON settings. */
export function referenceOn(access: () => ClickHouseAccess, dist: string, all: string, engine: Engine) {
  return async (sql: string) => {
    const settings: Record<string, number> = { output_format_json_quote_denormals: 1 };
    if (engine === 'chdb') settings.output_format_json_quote_decimals = 1;
    const r = await access().query(sql.split(dist).join(all), { settings });
    return { meta: r.meta, rows: r.rows };
  };
}
