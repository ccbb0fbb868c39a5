import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ShardRequest } from '../../../shared/core/protocol/shard-wire.js';
import { runExplain, runQuery, type RunDeps } from '../../../shared/core/scatter/run-query.js';
import { DEMO_LOCAL, DEMO_TABLE } from '../../../local/demo.js';
import type { EmbeddedCluster } from '../../support/embedded-cluster.js';
import { demoRunDeps, startDemoChdb, type DemoChdb } from '../../support/demo-chdb.js';
import { JSON_SETTINGS, expectSameAnswer } from './cases.js';

process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
const ROWS = 20_000;
const D = DEMO_TABLE;
let demo: DemoChdb;
let cluster: EmbeddedCluster;

beforeAll(async () => {
  demo = await startDemoChdb({ rows: ROWS });
  cluster = demo.cluster;
}, 120_000);
afterAll(async () => {
  await cluster?.stop();
});

function deps(): RunDeps & { sent: ShardRequest[] } {
  return demoRunDeps(demo, 'q-fold');
}

type Row = Record<string, unknown>;
async function reference(sql: string): Promise<{ meta: unknown; data: Row[]; totals?: Row } | { error: string }> {
  try {
    const r = await cluster.oracle!.queryRaw(sql.replaceAll(D, DEMO_LOCAL), { format: 'JSON', settings: JSON_SETTINGS });
    const doc = JSON.parse(r.bytes.toString('utf8'));
    return { meta: doc.meta, data: doc.data, ...(doc.totals ? { totals: doc.totals } : {}) };
  } catch (e) {
    return { error: String(e) };
  }
}

/** The query through POST /query and /explain; the answer must be the reference's, and whether it folded is returned. */
async function check(sql: string, unordered = false): Promise<{ folded: boolean; path: string; sent: ShardRequest[] }> {
  const d = deps();
  const want = await reference(sql);
  const r = await runQuery({ sql }, d);
  if ('error' in want) {
    // ClickHouse refuses it: so must we, never with an answer.
    expect(r.status, `${sql}: ${JSON.stringify(r.body).slice(0, 300)} where ClickHouse says ${want.error}`).not.toBe(200);
  } else {
    expect(r.status, `${sql}: ${JSON.stringify(r.body).slice(0, 400)}`).toBe(200);
    const b = r.body as Record<string, any>;
    expect(b.partial).toBe(false);
    if (want.data.length) expectSameAnswer(b, want, { name: sql, sql, unordered } as never);
    else expect([b.meta, b.data], sql).toEqual([want.meta, []]);
  }
  const e = await runExplain({ sql }, deps());
  const notes: string[] = (e.body as { notes?: string[] }).notes ?? [];
  return { folded: notes.some((n) => n.includes(' folded into the outer SELECT')), path: (e.body as { path?: string }).path ?? '', sent: d.sent };
}

// Superset wraps a virtual dataset's SQL as `FROM (<sql>) AS virtual_table` and groups by its
// ClickHouse time grains (superset/db_engine_specs/clickhouse.py), labelled `__timestamp` or with
// the column's own name.
const GRAINS = [
  'toStartOfMinute(toDateTime(ts))',
  'toDateTime(intDiv(toUInt32(toDateTime(ts)), 300)*300)',
  'toStartOfHour(toDateTime(ts))',
  'toStartOfDay(toDateTime(ts))',
  'toMonday(toDateTime(ts))',
  'toStartOfMonth(toDateTime(ts))',
];

const FOLDED: { sql: string; unordered?: boolean; fast?: boolean; rows?: boolean }[] = [
  { sql: `SELECT site, count() FROM (SELECT * FROM ${D}) GROUP BY site ORDER BY site`, fast: true },
  { sql: `SELECT a, count() FROM (SELECT site AS a, value FROM ${D} WHERE value > 10) WHERE a != 'ams' GROUP BY a ORDER BY a`, fast: true },
  { sql: `SELECT a + 1, count(), sum(v) FROM (SELECT status AS a, value AS v FROM ${D}) GROUP BY a + 1 ORDER BY a + 1` },
  { sql: `SELECT s, uniqExact(sensor), quantileExact(0.5)(value) FROM (SELECT site AS s, sensor, value FROM ${D} WHERE status = 200) GROUP BY s ORDER BY s` },
  { sql: `SELECT count() FROM (SELECT * FROM ${D} WHERE sensor IN ('s-1', 's-2'))`, fast: true },
  { sql: `SELECT s, count() FROM (SELECT site AS s FROM (SELECT * FROM ${D} WHERE status = 500)) GROUP BY s ORDER BY s` },
  { sql: `SELECT * FROM (SELECT site AS s, value FROM ${D} WHERE value > 99) WHERE s = 'ams' ORDER BY value, s LIMIT 5`, rows: true },
  // The outer name `sensor` is the inner `site`; the moved filter's own sensor column must stay the table's.
  { sql: `SELECT site AS sensor, count() AS c FROM (SELECT * FROM ${D} WHERE sensor IN ('s-7', 's-8')) GROUP BY site ORDER BY sensor` },
  { sql: `SELECT a, sensor, count() FROM (SELECT site AS sensor, metric AS a FROM ${D} WHERE status = 500) GROUP BY a, sensor ORDER BY a, sensor` },
  { sql: `SELECT virtual_table.site AS site, max(virtual_table.value) AS m FROM (SELECT * FROM ${D}) AS virtual_table GROUP BY site ORDER BY site` },
  { sql: `SELECT m, count() FROM (SELECT metric AS m, value FROM ${D} PREWHERE status = 200 WHERE value < 50) GROUP BY m WITH TOTALS ORDER BY m` },
  ...GRAINS.map((g) => ({
    sql:
      `SELECT ${g} AS __timestamp, site AS site, count(*) AS count, avg(value) AS avg_value FROM (SELECT * FROM ${D}) AS virtual_table ` +
      `WHERE ts >= toDateTime('2026-01-01 00:00:00') AND ts < toDateTime('2026-01-01 12:00:00') GROUP BY ${g}, site ORDER BY count DESC, __timestamp, site LIMIT 10000`,
  })),
];

const NOT_FOLDED = [
  `SELECT count() FROM (SELECT * FROM ${D} ORDER BY ts LIMIT 10)`,
  `SELECT site, count() FROM (SELECT DISTINCT site, sensor FROM ${D}) GROUP BY site ORDER BY site`,
  `SELECT c, count() FROM (SELECT sensor, count() AS c FROM ${D} GROUP BY sensor) GROUP BY c ORDER BY c`,
  `SELECT count() FROM (SELECT sensor FROM ${D} LIMIT 1 BY site)`,
  `SELECT x, count() FROM (SELECT arrayJoin([1, 2]) AS x, site FROM ${D}) GROUP BY x ORDER BY x`,
  `SELECT count() FROM (SELECT rowNumberInBlock() AS r FROM ${D}) WHERE r < 10`,
  `SELECT count() FROM (SELECT * FROM ${D} ORDER BY ts)`,
  `SELECT status, count() FROM (SELECT site AS status, ts, status AS site FROM ${D}) GROUP BY status ORDER BY status`,
];

// ClickHouse refuses these (215: the label that names a column makes the GROUP BY key another
// expression): so must the fold, never with an answer.
const REFUSED = [
  `SELECT toStartOfHour(toDateTime(ts)) AS ts, count(*) AS count FROM (SELECT ts, site FROM ${D} WHERE site != 'syd') AS virtual_table ` +
    'GROUP BY toStartOfHour(toDateTime(ts)) ORDER BY ts LIMIT 10000',
];

describe('subquery folding on chdb shards = one engine holding every row', () => {
  for (const c of FOLDED) {
    it(`folds: ${c.sql}`, { timeout: 30_000 }, async () => {
      const r = await check(c.sql, c.unordered);
      expect(r.folded, c.sql).toBe(true);
      // The shards ran the outer query: each aggregated (a row query's shards filter and limit).
      const stageOne = r.sent.filter((p) => !p.tables);
      const aggregating = /count\(|max\(|uniq|quantile|sum\(|avg\(/i;
      if (!c.rows)
        expect(
          stageOne.every((p) => aggregating.test(p.sql)),
          stageOne.map((p) => p.sql).join('\n'),
        ).toBe(true);
      if (c.fast) expect(r.path).toBe('fast');
    });
  }
  for (const sql of NOT_FOLDED) {
    it(`not folded, still exact: ${sql}`, { timeout: 30_000 }, async () => {
      const r = await check(sql, true);
      expect(r.folded, sql).toBe(false);
    });
  }

  for (const sql of REFUSED) {
    it(`refused as ClickHouse refuses it: ${sql}`, async () => {
      expect('error' in (await reference(sql))).toBe(true);
      await check(sql);
    });
  }

  it('a fast-check property: random projections, renames and filters inside, random groupings outside', async () => {
    const COLS = ['ts', 'sensor', 'site', 'metric', 'value', 'status'];
    const NAMES = ['a', 'b', 'site', 'sensor', 'value', 'status'];
    const FILTERS = ['value > 50', "site != 'iad'", 'status = 200', "metric = 'temp'", 'value < 20 OR status = 500'];
    const inner = fc
      .record({
        cols: fc.uniqueArray(fc.constantFrom(...COLS), { minLength: 1, maxLength: 4 }),
        renames: fc.array(fc.option(fc.constantFrom(...NAMES), { nil: undefined }), { minLength: 4, maxLength: 4 }),
        filter: fc.option(fc.constantFrom(...FILTERS), { nil: undefined }),
        star: fc.boolean(),
      })
      .map(({ cols, renames, filter, star }) => {
        const names = cols.map((c, i) => renames[i] ?? c);
        const list = cols.map((c, i) => (renames[i] && renames[i] !== c ? `${c} AS ${renames[i]}` : c)).join(', ');
        return { names: star ? COLS : names, sql: `SELECT ${star ? '*' : list} FROM ${D}${filter ? ` WHERE ${filter}` : ''}` };
      })
      .filter((i) => new Set(i.names).size === i.names.length);
    const shape = inner.chain((i) =>
      fc.record({
        inner: fc.constant(i),
        key: fc.constantFrom(...i.names),
        agg: fc.constantFrom('count()', ...i.names.map((n) => `uniqExact(${n})`), ...i.names.map((n) => `max(${n})`)),
        outerFilter: fc.option(fc.constantFrom(...i.names.map((n) => `${n} != ''`), ...i.names.map((n) => `length(toString(${n})) > 3`)), { nil: undefined }),
        alias: fc.boolean(),
      }),
    );
    let folded = 0;
    await fc.assert(
      fc.asyncProperty(shape, async (s) => {
        const k = s.alias ? `${s.key} AS k` : s.key;
        const sql =
          `SELECT ${k}, ${s.agg} FROM (${s.inner.sql}) AS virtual_table` +
          `${s.outerFilter ? ` WHERE ${s.outerFilter}` : ''} GROUP BY ${s.key} ORDER BY ${s.key}`;
        const r = await check(sql);
        if (r.folded) folded++;
      }),
      { numRuns: 25 },
    );
    // Most shapes fold: the property exercised the fold, not only its refusals.
    expect(folded).toBeGreaterThan(10);
  }, 300_000);
});
