// An alias that names a column its own definition reads (`concat(sensor, 'x') AS sensor`), used in
// WHERE, ORDER BY or a GLOBAL IN set: the fast path sends its SELECT list as written beside clauses
// whose aliases it has substituted, so a shard would read the column as the alias a second time (an
// empty answer, complete). It refuses them; the automatic choice answers on the general path. Three
// chdb shards against one chdb engine holding every row.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_TABLE } from '../../../local/demo.js';
import { runQuery } from '../../../shared/core/scatter/run-query.js';
import { createTableColumns } from '../../../shared/core/scatter/table-columns.js';
import { demoRunDeps, startDemoChdb, type DemoChdb } from '../../support/demo-chdb.js';
import { JSON_SETTINGS, expectSameAnswer } from './cases.js';

process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
const D = DEMO_TABLE;
let demo: DemoChdb;

beforeAll(async () => {
  demo = await startDemoChdb({ rows: 3000, oracleUnderDistName: true });
}, 120_000);
afterAll(async () => {
  await demo?.cluster.stop();
});

const ask = (sql: string, settings: Record<string, string> = {}) =>
  runQuery({ sql, settings }, demoRunDeps(demo, 'q-alias-reread', { tableColumns: createTableColumns() }));

describe('an alias naming a column its definition reads', () => {
  for (const sql of [
    `SELECT concat(sensor, 'x') AS sensor FROM ${D} WHERE sensor = 's-1x'`,
    `SELECT toString(status) AS status, ts, sensor FROM ${D} WHERE status = '500' ORDER BY ts, sensor LIMIT 3`,
    `SELECT concat(sensor, 'x') AS sensor, ts FROM ${D} ORDER BY sensor, ts LIMIT 3`,
    `SELECT count() FROM ${D} WHERE concat(sensor, 'x') GLOBAL IN (SELECT concat(sensor, 'x') AS sensor FROM ${D} WHERE sensor = 's-1x')`,
  ])
    it(sql, async () => {
      const r = await demo.cluster.oracle!.queryRaw(sql, { format: 'JSON', settings: JSON_SETTINGS });
      const want = JSON.parse(r.bytes.toString('utf8'));
      expect(want.data.length, 'the reference answers rows').toBeGreaterThan(0);
      expect(JSON.stringify(want.data)).not.toContain('"count()":"0"');
      const auto = await ask(sql);
      expect(auto.status, JSON.stringify(auto.body).slice(0, 300)).toBe(200);
      expect((auto.body as { partial: boolean }).partial).toBe(false);
      expectSameAnswer(auto.body as never, want, { name: sql, sql } as never);
      const general = await ask(sql, { ch_scatter_path: 'general' });
      expectSameAnswer(general.body as never, want, { name: sql, sql } as never);
    });

  it('the fast path refuses the query rather than answer what the shards would read', async () => {
    const r = await ask(`SELECT concat(sensor, 'x') AS sensor FROM ${D} WHERE sensor = 's-1x'`, { ch_scatter_path: 'fast' });
    expect(r.status).toBe(400);
    expect((r.body as { error: { code: string; message: string } }).error).toMatchObject({
      code: 'UNSUPPORTED',
      message: expect.stringMatching(/the alias sensor names a column/),
    });
  });

  it('an alias of the column itself is answered on the fast path', async () => {
    const sql = `SELECT sensor AS sensor, ts FROM ${D} WHERE sensor = 's-1' ORDER BY ts LIMIT 3`;
    const r = await ask(sql, { ch_scatter_path: 'fast' });
    expect(r.status).toBe(200);
    const want = JSON.parse((await demo.cluster.oracle!.queryRaw(sql, { format: 'JSON', settings: JSON_SETTINGS })).bytes.toString('utf8'));
    expectSameAnswer(r.body as never, want, { name: sql, sql } as never);
  });
});
