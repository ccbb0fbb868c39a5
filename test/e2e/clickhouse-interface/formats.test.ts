// Answers to SELECTs over a distributed table through the ClickHouse interface, byte for byte as
// ClickHouse renders the same result: chdb holding every row under the distributed name is the
// reference. The corpus covers every common type (wide integers, floats with nan and inf, Decimal,
// strings with escapes, FixedString, dates and times with time zones, UUID, IPv4/IPv6, Enum, Bool,
// Nullable, LowCardinality, Array, Tuple, Map) in every format clients read. Only what differs from
// run to run is blanked: JSON's `statistics`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, ClickHouseError, type ClickHouseClient } from '@clickhouse/client';
import { AUTH_HEADER, startHarness, raw, normalize, type Harness } from './support.js';

let h: Harness;
let client: ClickHouseClient;

const TYPES_DDL = (name: string) => `CREATE TABLE ${name} (
  k String, i8 Int8, u64 UInt64, i128 Int128, u256 UInt256, f32 Float32, f64 Float64, d Decimal(38, 10),
  s String, fs FixedString(4), dt Date, d32 Date32, tm DateTime('Asia/Tokyo'), t64 DateTime64(3, 'UTC'),
  id UUID, ip4 IPv4, ip6 IPv6, e Enum8('a' = 1, 'b' = 2), b Bool, n Nullable(Int32), lc LowCardinality(String),
  arr Array(Nullable(String)), tup Tuple(Int32, String), m Map(String, UInt64)
) ENGINE = MergeTree ORDER BY k`;

const ROWS = `SELECT
  concat('k-', leftPad(toString(number), 3, '0')) AS k,
  toInt8(number - 60) AS i8,
  18446744073709551615 - number AS u64,
  toInt128(number) * toInt128('-170141183460469231731687303715884105') AS i128,
  toUInt256(number) * toUInt256('1000000000000000000000000000000000000000') AS u256,
  multiIf(number % 7 = 0, nan, number % 7 = 1, inf, number % 7 = 2, -inf, number / 3) AS f32,
  multiIf(number % 5 = 0, nan, number % 5 = 1, -inf, number * 1.000001) AS f64,
  toDecimal128(number, 10) / 7 AS d,
  concat('a\\tb\\n', toString(number), '\\'"\\\\', char(0), 'é') AS s,
  toFixedString(toString(number % 100), 4) AS fs,
  toDate('2024-01-01') + number AS dt,
  toDate32('1960-01-01') + number AS d32,
  toDateTime('2024-03-10 01:30:00', 'Asia/Tokyo') + number * 3601 AS tm,
  toDateTime64('2024-03-10 01:30:00.123', 3, 'UTC') + number AS t64,
  toUUID(concat('00000000-0000-0000-0000-', leftPad(toString(number), 12, '0'))) AS id,
  toIPv4(number * 16777216 + 1) AS ip4,
  toIPv6(concat('2001:db8::', hex(number))) AS ip6,
  CAST(if(number % 2 = 0, 'a', 'b') AS Enum8('a' = 1, 'b' = 2)) AS e,
  number % 3 = 0 AS b,
  if(number % 4 = 0, NULL, toInt32(number) - 20) AS n,
  toLowCardinality(concat('lc-', toString(number % 3))) AS lc,
  [toString(number), NULL, ''] AS arr,
  (toInt32(number), concat('t', toString(number))) AS tup,
  map('x', number, 'y', number * 2) AS m
FROM numbers(40)`;

const COLUMNS = 'k, i8, u64, i128, u256, f32, f64, d, s, fs, dt, d32, tm, t64, id, ip4, ip6, e, b, n, lc, arr, tup, m';

beforeAll(async () => {
  h = await startHarness({
    tables: { 'analytics.types_dist': { local: 'analytics.types', shardingKey: { column: 'k', type: 'String', function: 'xxHash64' } } },
  });
  client = createClient({ url: h.stack.url, ...h.auth, request_timeout: 30_000 });
  await h.oracle.exec(TYPES_DDL('analytics.types_src'));
  await h.oracle.exec(`INSERT INTO analytics.types_src SELECT ${COLUMNS} FROM (${ROWS})`);
  const exec = async (sql: string) => {
    const r = await fetch(`${h.stack.url}/admin/exec`, { method: 'POST', headers: AUTH_HEADER, body: JSON.stringify({ sql }) });
    expect(r.status, await r.clone().text()).toBe(200);
  };
  await exec(TYPES_DDL('analytics.types'));
  // The same rows, routed to the shards by the key (the oracle's JSONEachRow through the router).
  // nan and inf as strings: ClickHouse's JSON writes them as null by default, which would read back as 0.
  // Both sides load the rows from the same JSONEachRow text, so both store them alike (a NULL's
  // hidden nested value, which Native writes as it is, is the type's default on both).
  const lines = (
    await h.oracle.queryRaw(`SELECT ${COLUMNS} FROM analytics.types_src`, { format: 'JSONEachRow', settings: { output_format_json_quote_denormals: 1 } })
  ).bytes;
  await h.oracle.exec(TYPES_DDL('analytics.types_dist'));
  await h.oracle.insert('analytics.types_dist', [], { jsonEachRow: lines.toString('utf8') });
  const ins = await fetch(`${h.stack.url}/admin/insert?table=analytics.types_dist`, { method: 'POST', headers: AUTH_HEADER, body: lines });
  expect(ins.status, await ins.clone().text()).toBe(200);
}, 240_000);

afterAll(async () => {
  await client?.close();
  await h?.stop();
});

const FORMATS = [
  'JSON',
  'JSONCompact',
  'JSONEachRow',
  'JSONCompactEachRow',
  'JSONStringsEachRow',
  'TabSeparated',
  'TSV',
  'TabSeparatedWithNames',
  'TabSeparatedWithNamesAndTypes',
  'CSV',
  'CSVWithNames',
  'CSVWithNamesAndTypes',
  'RowBinaryWithNamesAndTypes',
  'Native',
];

const QUERIES = [
  `SELECT ${COLUMNS} FROM analytics.types_dist ORDER BY k`,
  'SELECT e, b, count() AS c, sum(u64) AS su, sum(i128) AS si, max(u256) AS mu, avg(d) AS ad, min(tm) AS mt, max(t64) AS m64, uniqExact(s) AS us, arraySort(groupArray(i8)) AS gi FROM analytics.types_dist GROUP BY e, b ORDER BY e, b',
  'SELECT lc, countIf(isNaN(f64)) AS nans, sum(n) AS sn, max(fs) AS f, max(ip4) AS ip, min(ip6) AS ip6, min(id) AS u FROM analytics.types_dist GROUP BY lc WITH TOTALS ORDER BY lc',
];

describe('formats: ClickHouse bytes for the same result', () => {
  for (const [qi, sql] of QUERIES.entries()) {
    it.each(FORMATS)(`query ${qi + 1} in %s`, async (format) => {
      const mine = await raw(h.stack.url, { query: { default_format: format }, body: sql, auth: h.auth });
      expect(mine.status, mine.body.toString()).toBe(200);
      const theirs = await h.oracle.queryRaw(sql, { format });
      const [a, b] = [normalize(format, mine.body), normalize(format, theirs.bytes)];
      if (a !== b && !/Binary|Native/.test(format)) {
        const la = a.split('\n');
        const lb = b.split('\n');
        const i = la.findIndex((l, j) => l !== lb[j]);
        expect(la[i], `first differing line ${i}`).toBe(lb[i]);
      }
      if (a !== b && process.env.DUMP_DIFF) {
        const fs = await import('node:fs');
        fs.writeFileSync(`/tmp/chif-${qi}-${format}.mine`, mine.body);
        fs.writeFileSync(`/tmp/chif-${qi}-${format}.theirs`, theirs.bytes);
      }
      expect(a).toBe(b);
      expect(mine.headers.get('x-clickhouse-format')).toBe(format);
    });
  }

  it('FORMAT in the SQL wins over default_format and the header', async () => {
    const r = await raw(h.stack.url, {
      query: { default_format: 'JSON' },
      headers: { 'x-clickhouse-format': 'CSV' },
      body: 'SELECT count() FROM analytics.types_dist FORMAT TSV',
      auth: h.auth,
    });
    expect(r.body.toString()).toBe('40\n');
  });

  it('the official client reads JSON, JSONEachRow and a stream of rows', async () => {
    const rs = await client.query({ query: 'SELECT k, u64 FROM analytics.types_dist ORDER BY k LIMIT 2', format: 'JSON' });
    const doc = (await rs.json()) as { data: unknown[]; rows: number };
    expect(doc.rows).toBe(2);
    const want = (await h.oracle.queryRaw('SELECT k, u64 FROM analytics.types_dist ORDER BY k LIMIT 2', { format: 'JSONEachRow' })).bytes.toString();
    const each = await client.query({ query: 'SELECT k, u64 FROM analytics.types_dist ORDER BY k LIMIT 2', format: 'JSONEachRow' });
    expect(await each.text()).toBe(want);
  });

  it('the database parameter names the table; the unknown table is 60', async () => {
    const c = createClient({ url: h.stack.url, ...h.auth, database: 'analytics' });
    try {
      const rs = await c.query({ query: 'SELECT count() AS c FROM types_dist', format: 'JSONEachRow' });
      expect((await rs.json<{ c: string | number }>()).map((r) => Number(r.c))).toEqual([40]);
      const err = await c.query({ query: 'SELECT count() FROM nope_dist' }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ClickHouseError);
      expect((err as ClickHouseError).code).toBe('60');
    } finally {
      await c.close();
    }
  });
});
