// Spellings the planner writes as other forms, over the distributed table, compared with one chdb holding
// every row: `x op ANY|SOME|ALL (subquery)` (rewritten as ClickHouse's parser does, so the IN forms follow
// distributed_product_mode like any IN) and `WITH t AS MATERIALIZED (...)` (written where it is read).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runQuery, type RunDeps } from '../../../shared/core/scatter/run-query.js';
import { DEMO_LOCAL, DEMO_TABLE } from '../../../local/demo.js';
import { demoRunDeps, startDemoChdb, type DemoChdb } from '../../support/demo-chdb.js';
import { JSON_SETTINGS, expectSameAnswer } from './cases.js';

process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
const D = DEMO_TABLE;
let demo: DemoChdb;

beforeAll(async () => {
  demo = await startDemoChdb({ rows: 20_000 });
}, 120_000);
afterAll(async () => {
  await demo?.cluster.stop();
});

const deps = (): RunDeps => demoRunDeps(demo, 'q-rewritten');

async function expectAnswered(sql: string, settings?: Record<string, string>, params?: { values: Record<string, string>; written: string }): Promise<void> {
  const r0 = await demo.cluster.oracle!.queryRaw((params?.written ?? sql).replaceAll(D, DEMO_LOCAL), { format: 'JSON', settings: JSON_SETTINGS });
  const doc = JSON.parse(r0.bytes.toString('utf8'));
  const r = await runQuery({ sql, ...(settings ? { settings } : {}), ...(params ? { params: params.values } : {}) }, deps());
  expect(r.status, `${sql}: ${JSON.stringify(r.body).slice(0, 400)}`).toBe(200);
  const b = r.body as Record<string, any>;
  expect(b.partial).toBe(false);
  expectSameAnswer(b, { meta: doc.meta, data: doc.data }, { name: sql, sql, unordered: !sql.includes('ORDER BY') } as never);
}

// Unaliased on purpose: ClickHouse names them after the rewritten call (`greater(value, _subquery_1)`).
const SCALAR_FORMS = [
  `SELECT count() FROM ${D} WHERE value > ALL (SELECT value FROM ${D} WHERE site = 'ams' AND status = 500)`,
  `SELECT count() FROM ${D} WHERE value < ANY (SELECT value FROM ${D} WHERE status = 500)`,
  `SELECT site, count() FROM ${D} WHERE value >= SOME (SELECT value FROM ${D} WHERE sensor = 's-7') GROUP BY site ORDER BY site`,
  `SELECT sensor, value <= ALL (SELECT value FROM ${D} WHERE sensor = 's-3'), value > ANY (SELECT 50) FROM ${D} WHERE sensor = 's-3' ORDER BY ts LIMIT 5`,
  `SELECT count() FROM ${D} WHERE status != ANY (SELECT 500 UNION ALL SELECT 500)`,
];

// = ANY is IN and != ALL NOT IN (= ALL and != ANY over the single value): over the distributed table they
// are plain INs. status is not the sharding key, so each shard's part of the subquery would differ.
const IN_FORMS = [
  `SELECT count() FROM ${D} WHERE status = ANY (SELECT status FROM ${D} WHERE value > 99)`,
  `SELECT count() FROM ${D} WHERE status = ALL (SELECT status FROM ${D} WHERE value > 1000)`,
  `SELECT count() FROM ${D} WHERE status != ANY (SELECT status FROM ${D} WHERE sensor = 's-7' AND status = 500)`,
  `SELECT site, count() FROM ${D} WHERE sensor = ANY (SELECT sensor FROM ${D} WHERE status = 500) GROUP BY site ORDER BY site`,
  `SELECT count() FROM ${D} WHERE sensor <> ALL (SELECT sensor FROM ${D} WHERE value > 99)`,
];

describe('x op ANY / SOME / ALL (subquery), as ClickHouse rewrites and answers it', () => {
  for (const sql of SCALAR_FORMS) it(sql, () => expectAnswered(sql));
  for (const sql of IN_FORMS) it(`distributed_product_mode = 'global': ${sql}`, () => expectAnswered(sql, { distributed_product_mode: 'global' }));
  it('= ANY over a constant subquery is a local IN: answered without the mode', () =>
    expectAnswered(`SELECT count() FROM ${D} WHERE status = ANY (SELECT 500)`));
  it("= ANY over the distributed table is a plain IN: refused under 'deny' as ClickHouse's Distributed table refuses it", async () => {
    const r = await runQuery({ sql: IN_FORMS[0]! }, deps()); // the position is the comparison's, where IN would stand
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ error: { code: 'UNSUPPORTED', message: /distributed_product_mode = 'deny'/, position: { line: 1, column: 63 } } });
  });
  it("a subquery of two columns is the engine's 42 (the fold takes one)", async () => {
    const r = await runQuery({ sql: `SELECT count() FROM ${D} WHERE value > ANY (SELECT 1, 2)` }, deps());
    expect(r.status).toBe(400);
    expect(JSON.stringify(r.body)).toMatch(/requires single argument/);
  });
});

const MATERIALIZED_CTES = [
  `WITH a AS MATERIALIZED (SELECT sensor, value FROM ${D} WHERE status = 500) SELECT count(), sum(value) FROM a`,
  `WITH a AS MATERIALIZED (SELECT site, count() AS c FROM ${D} GROUP BY site) SELECT * FROM a ORDER BY site`,
  `WITH a AS MATERIALIZED (SELECT sensor FROM ${D} WHERE status = 500), b AS (SELECT sensor FROM a WHERE sensor != 's-1') SELECT site, count() FROM ${D} WHERE sensor GLOBAL IN b GROUP BY site ORDER BY site`,
];

describe('WITH name AS MATERIALIZED (subquery): written where it is read, as a plain CTE is', () => {
  for (const sql of MATERIALIZED_CTES) it(sql, () => expectAnswered(sql));
  it('refused when a function of it would give other rows at each reading', async () => {
    const r = await runQuery({ sql: `WITH a AS MATERIALIZED (SELECT sensor, rand() AS r FROM ${D}) SELECT count() FROM a AS x JOIN a AS y USING r` }, deps());
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ error: { code: 'UNSUPPORTED', message: /^rand\(\) in the MATERIALIZED CTE a/, position: { line: 1, column: 40 } } });
  });
});

describe('FROM {name:Identifier}: the table the request names, bound before planning', () => {
  const [db, table] = D.split('.') as [string, string];
  it('answers as the table written out, in FROM and in a GLOBAL IN subquery', () =>
    expectAnswered(
      `SELECT site, count() FROM ${db}.{t:Identifier} WHERE status = {s:UInt16} AND sensor GLOBAL IN (SELECT sensor FROM ${db}.{t:Identifier} WHERE value > 90) GROUP BY site ORDER BY site`,
      undefined,
      {
        values: { t: table, s: '500' },
        written: `SELECT site, count() FROM ${D} WHERE status = 500 AND sensor GLOBAL IN (SELECT sensor FROM ${D} WHERE value > 90) GROUP BY site ORDER BY site`,
      },
    ));
  it('a value naming a table that is not configured is UNKNOWN_TABLE at the parameter', async () => {
    const r = await runQuery({ sql: `SELECT count() FROM ${db}.{t:Identifier}`, params: { t: 'sensor_events' } }, deps());
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ error: { code: 'UNKNOWN_TABLE', position: { line: 1, column: 21 } } });
  });
});
