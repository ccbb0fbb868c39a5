import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ShardRequest } from '../../../shared/core/protocol/shard-wire.js';
import { runQuery, type RunDeps } from '../../../shared/core/scatter/run-query.js';
import { createTableColumns, type TableColumns } from '../../../shared/core/scatter/table-columns.js';
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
  for (const e of [...cluster.shards, cluster.oracle!]) await e.exec(`ALTER TABLE ${DEMO_LOCAL} ADD COLUMN doubled Float64 MATERIALIZED value * 2`);
}, 120_000);
afterAll(async () => {
  await cluster?.stop();
});

const columns: TableColumns = createTableColumns();

function deps(): RunDeps & { sent: ShardRequest[] } {
  return demoRunDeps(demo, 'q-columns', { tableColumns: columns });
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

async function expectAnswered(sql: string, unordered = false, settings?: Record<string, string>): Promise<Record<string, any>> {
  const want = await reference(sql);
  if ('error' in want) throw new Error(`the reference refuses ${sql}: ${want.error}`);
  const r = await runQuery({ sql, ...(settings ? { settings } : {}) }, deps());
  expect(r.status, `${sql}: ${JSON.stringify(r.body).slice(0, 400)}`).toBe(200);
  const b = r.body as Record<string, any>;
  expect(b.partial).toBe(false);
  expectSameAnswer(b, want, { name: sql, sql, unordered } as never);
  return b;
}

const QUERIES = [
  `SELECT * EXCEPT (ts, value, sensor), count() AS c FROM ${D} GROUP BY ALL ORDER BY site, metric, status`,
  `SELECT COLUMNS('^s'), count() FROM ${D} WHERE status = 500 GROUP BY ALL ORDER BY 1, 2, 3`,
  `SELECT * REPLACE (value + 1 AS value, upper(site) AS site) FROM ${D} WHERE sensor = 's-1' ORDER BY ts LIMIT 5`,
  `SELECT *, value * 2 AS v2 FROM ${D} WHERE sensor = 's-3' ORDER BY ts LIMIT 3`,
  `SELECT site, count() AS c FROM ${D} GROUP BY ALL ORDER BY site`,
  `SELECT count() AS c, * FROM ${D} WHERE sensor = 's-5' GROUP BY ALL ORDER BY ts`,
  `SELECT max(value) AS m, COLUMNS('^(site|metric)$') FROM ${D} GROUP BY ALL ORDER BY site, metric`,
  `SELECT * FROM ${D} AS a GLOBAL JOIN (SELECT sensor, ts, status FROM ${D} WHERE status = 500) AS b ON a.sensor = b.sensor AND a.ts = b.ts ORDER BY a.ts LIMIT 4`,
  `SELECT site, c FROM (SELECT *, count() AS c FROM ${D} WHERE sensor = 's-9' GROUP BY ALL) ORDER BY ts LIMIT 3`,
  // Column transformer chains: APPLY wraps each column in order, a later EXCEPT / REPLACE matches the names before it.
  `SELECT * APPLY(max) FROM ${D}`,
  `SELECT * EXCEPT (ts, sensor, site, metric) APPLY sum FROM ${D}`,
  `SELECT COLUMNS('^(value|status)$') APPLY(quantileExact(0.9)) FROM ${D}`,
  `SELECT * EXCEPT (ts, sensor, site, metric) REPLACE (value * 10 AS value) APPLY(x -> round(x / 3)) APPLY(sum) FROM ${D}`,
  `SELECT site, COLUMNS('^(status)$') APPLY(avg) APPLY(toString) FROM ${D} GROUP BY site ORDER BY site`,
  `SELECT * APPLY(toString) EXCEPT (value) APPLY(length) REPLACE (1 AS status) FROM ${D} WHERE sensor = 's-2' ORDER BY ts LIMIT 3`,
  `SELECT a.* EXCEPT (ts) APPLY(uniqExact) FROM ${D} AS a WHERE status = 500`,
  // A USING join's `*`: each key once, first; a later table's column whose name an earlier one has is `b.name`.
  `SELECT * FROM ${D} AS a GLOBAL JOIN (SELECT sensor, ts, status, value * 2 AS value FROM ${D} WHERE status = 500) AS b USING (sensor, ts) ORDER BY ts, sensor LIMIT 4`,
  `SELECT a.*, b.* FROM ${D} AS a GLOBAL LEFT JOIN (SELECT * FROM ${D} WHERE status = 500) AS b USING sensor WHERE a.sensor = 's-2' ORDER BY a.ts, b.ts LIMIT 4`,
  // STRICT steps whose names all match, the list form COLUMNS(a, b), t.COLUMNS(...), EXCEPT ('regexp').
  `SELECT * EXCEPT STRICT (ts, value) FROM ${D} WHERE sensor = 's-1' ORDER BY ts LIMIT 3`,
  `SELECT * REPLACE STRICT (value * 2 AS value) EXCEPT STRICT (ts) FROM ${D} WHERE sensor = 's-1' ORDER BY ts LIMIT 3`,
  `SELECT COLUMNS(site, status) APPLY(uniqExact) FROM ${D}`,
  `SELECT t.COLUMNS(sensor, value), COLUMNS(t.ts) FROM ${D} AS t WHERE status = 500 ORDER BY ts, sensor LIMIT 5`,
  `SELECT t.COLUMNS('^s') EXCEPT STRICT (status) FROM ${D} AS t WHERE value > 99 ORDER BY sensor LIMIT 5`,
  `SELECT COLUMNS(metric, site), count() AS c FROM ${D} GROUP BY ALL ORDER BY site, metric`,
  `SELECT * EXCEPT ('^(ts|sensor)$') FROM ${D} WHERE status = 500 ORDER BY site, metric, value LIMIT 5`,
  // A step matches a column only while no step before changed it: the REPLACE'd value stays, as ClickHouse keeps it.
  `SELECT * REPLACE (value + 1 AS value) EXCEPT (value) FROM ${D} WHERE sensor = 's-4' ORDER BY ts LIMIT 3`,
  `SELECT * REPLACE (value * 2 AS value) REPLACE (7 AS status, 1 AS value) FROM ${D} WHERE sensor = 's-4' ORDER BY ts LIMIT 3`,
  `SELECT COLUMNS(value, status) APPLY(x -> x) EXCEPT (value) APPLY(max) FROM ${D}`,
  // A REPLACE's names are the table's columns, not the aliases the other replacements give.
  `SELECT * REPLACE (status AS value, 7 AS status) FROM ${D} WHERE sensor = 's-4' ORDER BY ts LIMIT 3`,
  `SELECT * REPLACE (status AS value) REPLACE (7 AS status, 1 AS value) FROM ${D} WHERE sensor = 's-4' ORDER BY ts LIMIT 3`,
  `SELECT * EXCEPT (ts, sensor, site, metric) REPLACE (status + 1 AS value, value AS status) APPLY(sum) FROM ${D}`,
  `SELECT a.* REPLACE (arrayMap(value -> value + 1, [status]) AS value, 1 AS status) FROM ${D} AS a WHERE sensor = 's-4' ORDER BY ts LIMIT 3`,
  // A WITH name's columns: its SELECT list's names, its own `*` read through to the table.
  `WITH y AS (SELECT site, count() FROM ${D} GROUP BY site) SELECT * FROM y ORDER BY ALL`,
  `WITH y AS (SELECT * FROM ${D} WHERE sensor = 's-2') SELECT * FROM y ORDER BY ALL LIMIT 3`,
];

describe("the table's columns, spelled out as ClickHouse spells them", () => {
  for (const sql of QUERIES) it(sql, () => expectAnswered(sql));

  // Over a JOIN each table's columns, the later of two equal names qualified (`b.sensor`), on the
  // general path too, whose leaves must name every column.
  for (const path of ['fast', 'general'])
    it(`* over a JOIN on the ${path} path`, () =>
      expectAnswered(
        `SELECT * FROM ${D} AS a GLOBAL JOIN (SELECT sensor, ts, status FROM ${D} WHERE status = 500) AS b ON a.sensor = b.sensor AND a.ts = b.ts ORDER BY a.ts LIMIT 4`,
        false,
        { ch_scatter_path: path },
      ));
  it('* with an aggregate over a JOIN, GROUP BY ALL', () =>
    expectAnswered(
      `SELECT b.*, count() AS c FROM ${D} AS a GLOBAL JOIN (SELECT site, metric FROM ${D} WHERE status = 500 GROUP BY site, metric) AS b ON a.site = b.site AND a.metric = b.metric GROUP BY ALL ORDER BY b.site, b.metric`,
    ));

  it('a REPLACE naming one column twice is 43, as ClickHouse refuses it', async () => {
    const sql = `SELECT * EXCEPT (ts, sensor, site, metric) REPLACE (value + 1 AS value, value + 2 AS value) APPLY(sum) FROM ${D}`;
    expect(JSON.stringify(await reference(sql))).toMatch(/Code: 43.*same replacement value more than once/);
    const r = await runQuery({ sql }, deps());
    expect(r.status).toBe(400);
    expect((r.body as Record<string, any>).clickhouse).toEqual({ code: 43, name: 'ILLEGAL_TYPE_OF_ARGUMENT' });
  });

  it('* with an aggregate over a USING join, GROUP BY ALL', () =>
    expectAnswered(
      `SELECT *, count() AS c FROM (SELECT site, metric FROM ${D} GROUP BY site, metric) AS a GLOBAL JOIN (SELECT * FROM ${D} WHERE status = 500 ORDER BY ts, sensor LIMIT 20) AS b USING (site) GROUP BY ALL`,
      true,
    ));
  // ClickHouse's codes and texts for what the columns refuse.
  for (const [sql, code, text, column] of [
    [`SELECT * EXCEPT STRICT (ts, nope) FROM ${D}`, 36, 'Strict EXCEPT column transformer EXCEPT (ts, nope) expects following column(s) : nope', 8],
    [`SELECT * EXCEPT STRICT nope FROM ${D}`, 36, 'Strict EXCEPT column transformer EXCEPT nope expects following column(s) : nope', 8],
    [
      `SELECT * APPLY(max) REPLACE STRICT (1 AS value) FROM ${D}`,
      36,
      'Strict REPLACE column transformer REPLACE (1 AS value) expects following column(s) : value',
      8,
    ],
    [
      `SELECT * REPLACE (value + 1 AS value) EXCEPT STRICT (value) FROM ${D}`,
      36,
      'Strict EXCEPT column transformer EXCEPT value expects following column(s) : value',
      8,
    ],
    // Placed at the name the table does not have.
    [`SELECT COLUMNS(site, nope) FROM ${D}`, 47, "Unknown identifier 'nope' inside COLUMNS matcher", 22],
    [`SELECT COLUMNS(site) EXCEPT STRICT (site) FROM ${D}`, 51, 'Empty list of columns in projection', 8],
  ] as const)
    it(`${sql}: ${code}, as ClickHouse refuses it`, async () => {
      const want = await reference(sql);
      expect('error' in want && want.error).toContain(`Code: ${code}. DB::Exception: ${text}`);
      const r = await runQuery({ sql }, deps());
      expect(r.status).toBe(400);
      const b = r.body as Record<string, any>;
      expect(b.clickhouse?.code).toBe(code);
      expect(b.error.message).toMatch(new RegExp(`^${text.replace(/[()*.]/g, '\\$&')}`));
      expect(b.error.position).toEqual({ line: 1, column });
    });

  it('a column matcher that matches nothing is refused as ClickHouse refuses it', async () => {
    expect('error' in (await reference(`SELECT COLUMNS('^nothing') FROM ${D}`))).toBe(true);
    const r = await runQuery({ sql: `SELECT COLUMNS('^nothing'), count() FROM ${D} GROUP BY ALL` }, deps());
    expect(r.status).toBe(400);
  });

  it('a column dropped after its table was cached: the shard says 47, the columns are read again, the query answers', async () => {
    const sql = `SELECT * EXCEPT (ts, sensor, value), count() AS c FROM ${D} GROUP BY ALL ORDER BY site, metric`;
    await expectAnswered(sql, true);
    const before = columns.entries.get(D);
    expect(before).toBeDefined();
    for (const e of [...cluster.shards, cluster.oracle!]) await e.exec(`ALTER TABLE ${DEMO_LOCAL} DROP COLUMN status`);
    try {
      const b = await expectAnswered(sql, true);
      expect(b.meta.map((m: { name: string }) => m.name)).toEqual(['site', 'metric', 'c']);
      expect(columns.entries.get(D)).not.toBe(before);
    } finally {
      for (const e of [...cluster.shards, cluster.oracle!]) await e.exec(`ALTER TABLE ${DEMO_LOCAL} ADD COLUMN status UInt16 DEFAULT 200 AFTER value`);
      columns.entries.delete(D);
    }
  });
});
