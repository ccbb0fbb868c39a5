// Two items that swap names (`status AS site, site AS status`: each item is the column of its own name),
// asked through POST /query and the ClickHouse interface on three chdb shards, against one chdb engine
// holding every row. The fast path, whose alias substitution reads such a cycle otherwise, leaves every
// cycle to the general path.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runQuery } from '../../../shared/core/scatter/run-query.js';
import { createTableColumns } from '../../../shared/core/scatter/table-columns.js';
import { DEMO_LOCAL, DEMO_TABLE } from '../../../local/demo.js';
import { demoRunDeps, startDemoChdb, type DemoChdb } from '../../support/demo-chdb.js';
import { JSON_SETTINGS, expectSameAnswer } from './cases.js';

process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
const D = DEMO_TABLE;
const SWAP = 'status AS site, site AS status';
let demo: DemoChdb;

beforeAll(async () => {
  demo = await startDemoChdb({ rows: 3000 });
}, 120_000);
afterAll(async () => {
  await demo?.cluster.stop();
});

const ask = (sql: string, settings: Record<string, string> = {}) =>
  runQuery({ sql, settings }, demoRunDeps(demo, 'q-alias-swap', { tableColumns: createTableColumns() }));

async function reference(sql: string): Promise<{ meta: unknown; data: Record<string, unknown>[] }> {
  const r = await demo.cluster.oracle!.queryRaw(sql.replaceAll(D, DEMO_LOCAL), { format: 'JSON', settings: JSON_SETTINGS });
  return JSON.parse(r.bytes.toString('utf8'));
}

describe('an alias swap', () => {
  it('the fast path refuses every cycle, which it would read otherwise than ClickHouse (the automatic choice answers on the general path)', async () => {
    for (const sql of [`SELECT ${SWAP} FROM ${D} ORDER BY ts LIMIT 7`, `SELECT ${SWAP}, count() AS n FROM ${D} GROUP BY site, status`]) {
      const r = await ask(sql, { ch_scatter_path: 'fast' });
      expect(r.status, sql).toBe(400);
      expect((r.body as { error: { code: string; message: string } }).error).toMatchObject({
        code: 'UNSUPPORTED',
        message: expect.stringMatching(/a cycle of aliases \(site -> status -> site\)/),
      });
    }
    // Its keys substituted, the fast path answered site with the column status here.
    const grouped = `SELECT ${SWAP}, count() AS n FROM ${D} GROUP BY site, status`;
    const r = await ask(grouped);
    expect(r.status, JSON.stringify(r.body).slice(0, 300)).toBe(200);
    expectSameAnswer(r.body as never, (await reference(grouped)) as never, { name: grouped, sql: grouped, unordered: true } as never);
  });
});
