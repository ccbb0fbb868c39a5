// Superset's virtual datasets through the local stack's ClickHouse interface: Superset wraps the
// dataset's SQL as `FROM (<sql>) AS virtual_table` and groups by its ClickHouse time grains
// (superset/db_engine_specs/clickhouse.py). The subquery folds into the outer query, so the shards
// aggregate, and the bytes are ClickHouse's own for the same statement (chdb holding every row).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTH_HEADER, normalize, raw, ROWS_SQL, startHarness, type Harness } from './support.js';

let h: Harness;
const T = 'analytics.events_dist';

beforeAll(async () => {
  h = await startHarness();
  await h.oracle.exec(ROWS_SQL(T));
  // The same rows through the router, so each shard holds the keys it owns.
  const lines = (await h.oracle.queryRaw(`SELECT * FROM ${T}`, { format: 'JSONEachRow' })).bytes;
  const ins = await fetch(`${h.stack.url}/admin/insert?table=${T}`, { method: 'POST', headers: AUTH_HEADER, body: lines });
  expect(ins.status, await ins.clone().text()).toBe(200);
}, 120_000);
afterAll(async () => {
  await h?.stop();
});

const range = "ts >= toDateTime('2024-01-02 00:00:00', 'UTC') AND ts < toDateTime('2024-01-08 00:00:00', 'UTC')";
const SHAPES = [
  // A table chart over the dataset `SELECT * FROM events_dist`.
  `SELECT k AS k, count(*) AS count FROM (SELECT * FROM ${T}) AS virtual_table GROUP BY k ORDER BY count DESC, k LIMIT 10000`,
  // Time series at the day, hour and 5-minute grains, with the chart's time range.
  ...['toStartOfDay(toDateTime(ts))', 'toStartOfHour(toDateTime(ts))', 'toDateTime(intDiv(toUInt32(toDateTime(ts)), 300)*300)'].map(
    (g) =>
      `SELECT ${g} AS __timestamp, count(*) AS count, sum(x) AS \`SUM(x)\` FROM (SELECT k, v, x, ts FROM ${T} WHERE v % 2 = 0) AS virtual_table ` +
      `WHERE ${range} GROUP BY ${g} ORDER BY count DESC, __timestamp LIMIT 10000`,
  ),
  // A dataset that renames and filters, with the chart's own filter on the new name.
  `SELECT key AS key, max(x) AS \`MAX(x)\`, uniqExact(v) AS \`COUNT_DISTINCT(v)\` FROM (SELECT k AS key, x, v FROM ${T} WHERE x > 10) AS virtual_table WHERE key NOT IN ('k-3') GROUP BY key ORDER BY key LIMIT 10000`,
];

// Raw records: the shards sort and limit, so the final stage counts the rows they kept in
// rows_before_limit_at_least, as it does for the same query over the table itself.
const ROWS = `SELECT k AS k, v AS v FROM (SELECT * FROM ${T}) AS virtual_table WHERE v > 150 ORDER BY v DESC LIMIT 10`;
const DIRECT = `SELECT k AS k, v AS v FROM ${T} WHERE v > 150 ORDER BY v DESC LIMIT 10`;
const beforeLimit = (b: Buffer) => normalize('JSONCompact', b).replace(/"rows_before_limit_at_least": \d+/, '"rows_before_limit_at_least": 0');

describe("Superset's virtual-dataset shapes: folded, and ClickHouse's bytes", () => {
  for (const sql of SHAPES) {
    it(sql, async () => {
      const mine = await raw(h.stack.url, { query: { default_format: 'JSONCompact' }, body: sql, auth: h.auth });
      expect(mine.status, mine.body.toString()).toBe(200);
      const theirs = await h.oracle.queryRaw(sql, { format: 'JSONCompact' });
      expect(normalize('JSONCompact', mine.body)).toBe(normalize('JSONCompact', theirs.bytes));
      expect(JSON.parse(mine.body.toString()).rows).toBeGreaterThan(0);
      // /explain says the subquery was folded: the shards run the outer query.
      const e = await fetch(`${h.stack.url}/explain`, { method: 'POST', headers: AUTH_HEADER, body: JSON.stringify({ sql }) });
      const body = (await e.json()) as { notes?: string[] };
      expect(e.status, JSON.stringify(body)).toBe(200);
      expect(body.notes?.[0], JSON.stringify(body)).toMatch(/folded into the outer SELECT/);
    });
  }

  it(ROWS, async () => {
    const ask = (sql: string) => raw(h.stack.url, { query: { default_format: 'JSONCompact' }, body: sql, auth: h.auth });
    const [mine, direct] = [await ask(ROWS), await ask(DIRECT)];
    expect(mine.status, mine.body.toString()).toBe(200);
    expect(normalize('JSONCompact', mine.body)).toBe(normalize('JSONCompact', direct.body));
    expect(beforeLimit(mine.body)).toBe(beforeLimit((await h.oracle.queryRaw(ROWS, { format: 'JSONCompact' })).bytes));
    expect(JSON.parse(mine.body.toString()).rows).toBe(10);
  });
});

// The table's columns, read from a shard by the stack's coordinator, spell out what ClickHouse expands.
describe("the table's columns through the ClickHouse interface", () => {
  for (const sql of [
    `SELECT * EXCEPT (v, x, ts, tags), count() AS c FROM ${T} GROUP BY ALL ORDER BY k`,
    `SELECT COLUMNS('^(k|v)$') REPLACE (v % 3 AS v), count() AS c FROM ${T} GROUP BY ALL ORDER BY k, v`,
    `SELECT *, toString(v) AS s FROM ${T} WHERE k = 'k-3' ORDER BY v LIMIT 3`,
  ]) {
    it(sql, async () => {
      const mine = await raw(h.stack.url, { query: { default_format: 'JSONCompact' }, body: sql, auth: h.auth });
      expect(mine.status, mine.body.toString()).toBe(200);
      const theirs = await h.oracle.queryRaw(sql, { format: 'JSONCompact' });
      // (the row query's shards limit their rows: rows_before_limit_at_least counts what they kept, as above)
      expect(beforeLimit(mine.body)).toBe(beforeLimit(theirs.bytes));
      expect(JSON.parse(mine.body.toString()).rows).toBeGreaterThan(0);
    });
  }
});
