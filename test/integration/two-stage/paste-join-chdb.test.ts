// PASTE JOIN over the distributed table, as ClickHouse's Distributed table treats it, on three chdb
// shards: a PASTE JOIN of subqueries is pasted on the initiator (compared with one chdb holding every
// row), and one whose left table is the distributed table is refused with the 62 its shards answer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClickHouseError } from '../../../shared/core/clickhouse/port.js';
import { generalSelect } from '../../../shared/core/clickhouse-http/distributed.js';
import { handleClickHouseHttp } from '../../../shared/core/clickhouse-http/handle.js';
import { runExplain, runQuery, type RunDeps } from '../../../shared/core/scatter/run-query.js';
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

const deps = (): RunDeps => demoRunDeps(demo, 'q-paste');

async function expectAnswered(sql: string): Promise<void> {
  const r0 = await demo.cluster.oracle!.queryRaw(sql.replaceAll(D, DEMO_LOCAL), { format: 'JSON', settings: JSON_SETTINGS });
  const doc = JSON.parse(r0.bytes.toString('utf8'));
  const r = await runQuery({ sql }, deps());
  expect(r.status, `${sql}: ${JSON.stringify(r.body).slice(0, 400)}`).toBe(200);
  const b = r.body as Record<string, any>;
  expect(b.partial).toBe(false);
  expectSameAnswer(b, { meta: doc.meta, data: doc.data }, { name: sql, sql } as never);
}

/** The ClickHouse interface's answer (the general path, rendered by the final stage's engine). */
async function throughInterface(sql: string, format = 'JSON'): Promise<{ status: number; text: string; code?: string }> {
  const raw = (q: string, o: { format: string; settings?: Record<string, unknown> }) =>
    demo.cluster.shards[0]!.queryRaw(q, { format: o.format, settings: { readonly: 2, ...(o.settings as object) } as never });
  const d = demoRunDeps(demo, 'q-paste-iface');
  const r = await handleClickHouseHttp(
    { method: 'POST', path: '/', query: new URLSearchParams({ default_format: format, ...JSON_SETTINGS } as never), headers: {}, body: Buffer.from(sql) },
    { topo: demo.topo, raw, select: generalSelect({ ...d, planTwoStage: d.planTwoStage! }) },
  );
  const code = Object.entries(r.headers).find(([k]) => k.toLowerCase() === 'x-clickhouse-exception-code')?.[1];
  return { status: r.status, text: r.body.toString('utf8'), ...(code !== undefined ? { code: String(code) } : {}) };
}

// ts is unique per row, so each side's order is total and the paste is one answer.
const ON_THE_INITIATOR = [
  `SELECT * FROM (SELECT sensor, ts FROM ${D} WHERE site = 'ams' ORDER BY ts LIMIT 50) AS a PASTE JOIN (SELECT value FROM ${D} WHERE site = 'fra' ORDER BY ts DESC LIMIT 50) AS b`,
  `SELECT a.sensor, b.sensor, b.value FROM (SELECT sensor FROM ${D} ORDER BY ts LIMIT 30) AS a PASTE JOIN (SELECT sensor, value FROM ${D} ORDER BY value DESC, ts LIMIT 20) AS b`,
  `SELECT count(), sum(value), max(sensor) FROM (SELECT sensor FROM ${D} ORDER BY ts) AS a PASTE JOIN (SELECT value FROM ${D} ORDER BY ts DESC) AS b`,
  `SELECT site, count() AS c, round(sum(v), 3) AS s FROM (SELECT site FROM ${D} ORDER BY ts) AS a GLOBAL PASTE JOIN (SELECT value AS v FROM ${D} ORDER BY ts DESC) AS b GROUP BY site ORDER BY site`,
  `SELECT * FROM (SELECT site, count() AS c FROM ${D} GROUP BY site ORDER BY site) AS a PASTE JOIN (SELECT number AS n FROM numbers(5)) AS b`,
  // In a GLOBAL IN's subquery and a scalar subquery: run once, pasted where the initiator pastes them.
  `SELECT site, count() FROM ${D} WHERE (sensor, site) GLOBAL IN (SELECT s, t FROM (SELECT sensor AS s FROM ${D} ORDER BY ts LIMIT 40) AS a PASTE JOIN (SELECT site AS t FROM ${D} ORDER BY ts DESC LIMIT 40) AS b) GROUP BY site ORDER BY site`,
  `SELECT count() FROM ${D} WHERE value > (SELECT max(v) FROM (SELECT sensor FROM ${D} ORDER BY ts LIMIT 100) AS a PASTE JOIN (SELECT value AS v FROM ${D} WHERE site = 'ams' ORDER BY ts LIMIT 10) AS b)`,
  // Unaliased sides, as ClickHouse allows them in a PASTE JOIN.
  `SELECT * FROM (SELECT sensor FROM ${D} ORDER BY ts LIMIT 7) PASTE JOIN (SELECT value FROM ${D} ORDER BY ts DESC LIMIT 7)`,
];

describe('a PASTE JOIN of subqueries is pasted on the initiator, as ClickHouse pastes it', () => {
  for (const sql of ON_THE_INITIATOR) it(sql, () => expectAnswered(sql));

  it('two unaliased sides naming a column alike: 36, as one node refuses it', async () => {
    const sql = `SELECT * FROM (SELECT sensor FROM ${D} ORDER BY ts LIMIT 3) PASTE JOIN (SELECT sensor FROM ${D} ORDER BY ts DESC LIMIT 3)`;
    const one = await demo.cluster.oracle!.queryRaw(sql.replaceAll(D, DEMO_LOCAL), { format: 'JSON' }).catch((e: unknown) => e);
    expect(one).toMatchObject({ chCode: 36 });
    const r = await runQuery({ sql }, deps());
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({
      error: { code: 'QUERY_ERROR', message: /^Name of columns and aliases should be unique/, position: { line: 1, column: sql.indexOf('PASTE') + 1 } },
      clickhouse: { code: 36, name: 'BAD_ARGUMENTS' },
    });
  });

  it('through the ClickHouse interface: the same rows, as the engine renders them', async () => {
    const sql = ON_THE_INITIATOR[0]!;
    const want = await demo.cluster.oracle!.queryRaw(sql.replaceAll(D, DEMO_LOCAL), { format: 'TSVWithNames' });
    const got = await throughInterface(sql, 'TSVWithNames');
    expect(got.status, got.text.slice(0, 300)).toBe(200);
    expect(got.text).toBe(want.bytes.toString('utf8'));
  });
});

describe('a PASTE JOIN whose left table is the distributed table is refused as its shards refuse it', () => {
  const REFUSED = [
    `SELECT * FROM ${D} PASTE JOIN (SELECT 1 AS x) AS c`,
    `SELECT sensor, x FROM ${D} AS t GLOBAL PASTE JOIN (SELECT sensor AS x FROM ${D} LIMIT 3) AS g`,
    `SELECT count() FROM (SELECT * FROM ${D} PASTE JOIN (SELECT 1 AS x) AS c)`,
    `SELECT count() FROM ${D} WHERE sensor GLOBAL IN (SELECT sensor FROM ${D} PASTE JOIN (SELECT 1 AS x) AS c)`,
  ];
  for (const sql of REFUSED) {
    it(sql, async () => {
      // At the join as written: GLOBAL, where it leads.
      const column = (sql.includes('GLOBAL PASTE') ? sql.indexOf('GLOBAL PASTE') : sql.indexOf('PASTE JOIN')) + 1;
      const r = await runQuery({ sql }, deps());
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({
        error: { code: 'SYNTAX_ERROR', message: /^You must not specify ANY or ALL for PASTE JOIN: a Distributed table sends/, position: { line: 1, column } },
      });
    });
  }

  it('/explain refuses it the same way, and asks no shard', async () => {
    const d = demoRunDeps(demo, 'q-paste-explain');
    const r = await runExplain({ sql: REFUSED[0]! }, d);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ error: { code: 'SYNTAX_ERROR', position: { line: 1, column: 44 } } });
    expect(d.sent).toEqual([]);
  });

  it("a right side over the distributed table without GLOBAL: under 'deny' refused as any such JOIN, before the shards (288 there); under 'global' 62", async () => {
    const sql = `SELECT * FROM ${D} PASTE JOIN (SELECT sensor AS x FROM ${D}) AS c`;
    const denied = await runQuery({ sql }, deps());
    expect(denied.status).toBe(400);
    expect(denied.body).toMatchObject({ error: { code: 'UNSUPPORTED', message: /distributed_product_mode = 'deny'/ } });
    const shipped = await runQuery({ sql, settings: { distributed_product_mode: 'global' } }, deps());
    expect(shipped.status).toBe(400);
    expect(shipped.body).toMatchObject({
      error: { code: 'SYNTAX_ERROR', message: /^You must not specify ANY or ALL for PASTE JOIN/, position: { line: 1, column: 44 } },
    });
  });

  it("through the ClickHouse interface: ClickHouse's 62 and its text, at the user's PASTE JOIN", async () => {
    const got = await throughInterface(REFUSED[0]!);
    expect(got.status).toBe(400);
    expect(got.code).toBe('62');
    expect(got.text).toMatch(/^Code: 62\. DB::Exception: You must not specify ANY or ALL for PASTE JOIN: .*\(line 1, column 44\)\. \(SYNTAX_ERROR\)/);
  });

  it("is what the engine does: the shard text prints ALL PASTE JOIN, and the engine's parser refuses that with 62", async () => {
    // When chdb prints PASTE JOIN without ALL (ClickHouse fixed the printer after 26.7), a Distributed
    // table answers with each shard's paste, and the refusal above should become that answer.
    const printed = await demo.cluster.oracle!.queryRaw(`EXPLAIN SYNTAX SELECT * FROM ${DEMO_LOCAL} PASTE JOIN (SELECT 1 AS x) AS c`, { format: 'TSVRaw' });
    expect(printed.bytes.toString('utf8')).toContain('ALL PASTE JOIN');
    const err = await demo.cluster
      .oracle!.queryRaw(`SELECT * FROM ${DEMO_LOCAL} ALL PASTE JOIN (SELECT 1 AS x) AS c`, { format: 'JSON' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ClickHouseError);
    expect(err).toMatchObject({ chCode: 62, message: expect.stringContaining('You must not specify ANY or ALL for PASTE JOIN') });
  });
});
