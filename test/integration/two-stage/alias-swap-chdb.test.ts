// Two items that swap names (`status AS site, site AS status`: each item is the column of its own name),
// and references into such cycles, asked through POST /query and the ClickHouse interface on three chdb
// shards, against one chdb engine holding every row. A position or ORDER BY ALL names the items
// themselves, so they are answered as ClickHouse answers them; the fast path, whose alias substitution reads such a cycle otherwise, leaves
// every cycle to the general path.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generalSelect } from '../../../shared/core/clickhouse-http/distributed.js';
import { handleClickHouseHttp } from '../../../shared/core/clickhouse-http/handle.js';
import { runExplain, runQuery } from '../../../shared/core/scatter/run-query.js';
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

/** The ClickHouse interface's answer (the general path, rendered by the final stage's engine). */
async function throughInterface(sql: string, format: string): Promise<{ status: number; text: string }> {
  const raw = (q: string, o: { format: string; settings?: Record<string, unknown> }) =>
    demo.cluster.shards[0]!.queryRaw(q, { format: o.format, settings: { readonly: 2, ...(o.settings as object) } as never });
  const d = demoRunDeps(demo, 'q-alias-swap-iface', { tableColumns: createTableColumns() });
  const r = await handleClickHouseHttp(
    { method: 'POST', path: '/', query: new URLSearchParams({ default_format: format }), headers: {}, body: Buffer.from(sql) },
    { topo: demo.topo, raw, select: generalSelect({ ...d, planTwoStage: d.planTwoStage! }) },
  );
  return { status: r.status, text: r.body.toString('utf8') };
}

// Rows that tie on every sort key are equal in every column here, so each answer is one answer.
const ITEMS = [
  `SELECT ${SWAP} FROM ${D} ORDER BY ALL LIMIT 7`,
  `SELECT ${SWAP} FROM ${D} ORDER BY ALL DESC LIMIT 7`,
  `SELECT ${SWAP} FROM ${D} ORDER BY ALL DESC NULLS FIRST LIMIT 7`,
  `SELECT ${SWAP} FROM ${D} ORDER BY 2 DESC, 1 LIMIT 7`,
  `SELECT ${SWAP} FROM ${D} ORDER BY 1 LIMIT 2 BY 1`,
  `SELECT ${SWAP}, count() AS n FROM ${D} GROUP BY ALL ORDER BY ALL`,
  `SELECT ${SWAP}, count() AS n FROM ${D} GROUP BY site, status ORDER BY ALL DESC`,
  `SELECT ${SWAP}, count() AS n FROM ${D} GROUP BY 2, 1 ORDER BY 3 DESC, 1, 2`,
  `SELECT ${SWAP}, ts FROM ${D} ORDER BY 3 DESC, 1 LIMIT 5`,
  `SELECT ${SWAP}, count() AS n FROM ${D} GROUP BY ALL ORDER BY 2 WITH FILL STEP 100, 1`,
  // x is no column: where the other item is x alone, both read the column status (ClickHouse 26).
  `SELECT status AS x, x AS status, ts FROM ${D} ORDER BY ts, sensor LIMIT 5`,
  `SELECT x AS status, status AS x, count() AS n FROM ${D} GROUP BY 1 ORDER BY 1`,
  `SELECT toString(status) AS x, x AS status, count() AS n FROM ${D} GROUP BY ALL ORDER BY ALL`,
  `SELECT concat(site, '!') AS x, x AS site FROM ${D} ORDER BY ALL DESC LIMIT 5`,
  // Outside the list, a name of the swap reads its item's definition over the columns (site: the column status).
  `SELECT ${SWAP} FROM ${D} WHERE site = 500 ORDER BY ts, sensor LIMIT 5`,
  `SELECT ${SWAP} FROM ${D} ORDER BY site DESC, status LIMIT 5`,
  `SELECT ${SWAP}, count() AS n FROM ${D} GROUP BY ALL HAVING site = 500 ORDER BY ALL`,
  // References into the cycle, read in the list's order: an item before the swap that reads status reads
  // both its names over the column status; a later reference reads an alias as its first reading did; a ring.
  `SELECT status + 0 AS f, ${SWAP} FROM ${D} WHERE site = 500 ORDER BY ts, sensor LIMIT 5`,
  `SELECT ${SWAP}, toTypeName(site) AS t, ts FROM ${D} ORDER BY ts, sensor LIMIT 5`,
  `SELECT sensor AS status, site AS sensor, status AS site, ts FROM ${D} ORDER BY ts, status LIMIT 5`,
];

describe('an alias swap, its items named by position or ORDER BY ALL', () => {
  for (const sql of ITEMS)
    it(sql, async () => {
      const want = await reference(sql);
      for (const settings of [{}, { ch_scatter_path: 'general' }] as Record<string, string>[]) {
        const r = await ask(sql, settings);
        expect(r.status, JSON.stringify(r.body).slice(0, 300)).toBe(200);
        expect((r.body as { partial: boolean }).partial).toBe(false);
        expectSameAnswer(r.body as never, want as never, { name: `${sql} ${JSON.stringify(settings)}`, sql } as never);
      }
    });

  it('the fast path refuses every cycle, which it would read otherwise than ClickHouse (the automatic choice answers on the general path)', async () => {
    for (const sql of [ITEMS[0]!, `SELECT ${SWAP}, count() AS n FROM ${D} GROUP BY site, status`]) {
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

  it('/explain shows the general path reading the items as the columns of their names', async () => {
    const r = await runExplain({ sql: ITEMS[0]! }, demoRunDeps(demo, 'q-alias-swap-explain', { tableColumns: createTableColumns() }));
    expect(r.status, JSON.stringify(r.body).slice(0, 300)).toBe(200);
    expect(JSON.stringify(r.body)).toContain('SELECT site AS _c0, status AS _c1 FROM analytics.sensor_events ORDER BY _c0, _c1 LIMIT 7');
  });

  it('a swap whose name is no column, the other item more than that name: 47, as ClickHouse answers it', async () => {
    const sql = `SELECT status + 1 AS x, toString(x) AS status FROM ${D}`;
    expect(await reference(sql).catch((e: unknown) => e)).toMatchObject({ chCode: 47 });
    const r = await ask(sql);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ clickhouse: { code: 47, name: 'UNKNOWN_IDENTIFIER' } });
  });

  it('through the ClickHouse interface: the same bytes as one node', async () => {
    for (const sql of [ITEMS[1]!, ITEMS[5]!, ITEMS[12]!]) {
      const want = await demo.cluster.oracle!.queryRaw(sql.replaceAll(D, DEMO_LOCAL), { format: 'TSVWithNames' });
      const got = await throughInterface(sql, 'TSVWithNames');
      expect(got.status, got.text.slice(0, 300)).toBe(200);
      expect(got.text).toBe(want.bytes.toString('utf8'));
    }
  });
});
