// End to end, healthy stack: HTTP -> API server -> the coordinator handler -> the real
// @aws-sdk/client-lambda -> the local Invoke endpoint -> shard host processes (embedded chdb) ->
// merge -> response. Every answer is compared with a single-node oracle holding all the rows.
// This file runs the coordinator's query fan-out through the SDK invoker (CH_SCATTER_INVOKER=sdk);
// faults.test.ts and tree.test.ts run the default, the lean signed HTTP invoker.
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalStack, type LocalStack } from '../../local/stack.js';
import type { EngineProcess } from '../support/engine-process/engine-process.js';
import { e2eTopology, expectSameRows, post, startOracle, tempDir } from './support.js';

const ROWS = 50_000;
const DIST = 'analytics.sensor_events_dist';
const LOCAL = 'analytics.sensor_events';
let dir: string;
let stack: LocalStack;
let oracle: EngineProcess;

beforeAll(async () => {
  dir = tempDir('results');
  const topo = e2eTopology(
    dir,
    [
      { weight: 1, replicas: [{}, {}] },
      { weight: 2, replicas: [{}] },
      { weight: 1, replicas: [{}] },
    ],
    {},
    {
      tables: { 'analytics.rollups_dist': { local: 'analytics.rollups', shardingKey: { column: 'site', type: 'String' } } },
      schedules: [
        {
          name: 'site-rollup',
          schedule: 'rate(1 hour)',
          sql: `SELECT site, count() AS c FROM ${DIST} GROUP BY site`,
          destination: { table: 'analytics.rollups_dist' },
        },
      ],
    },
  );
  [stack, oracle] = await Promise.all([startLocalStack({ topo, demo: true, demoRows: ROWS, logLevel: 'SILENT', invoker: 'sdk' }), startOracle(dir, ROWS)]);
});

afterAll(async () => {
  await Promise.all([stack?.stop(), oracle?.close()]);
  fs.rmSync(dir, { recursive: true, force: true });
});

const QUERIES = [
  `SELECT count() AS c FROM ${DIST}`,
  `SELECT site, count() AS c, sum(status) AS s, min(value) AS mn, max(value) AS mx FROM ${DIST} GROUP BY site ORDER BY site`,
  `SELECT metric, avg(value) AS a, uniqExact(sensor) AS u FROM ${DIST} GROUP BY metric ORDER BY metric`,
  `SELECT sensor, count() AS c FROM ${DIST} WHERE sensor IN ('s-1', 's-42', 's-999') GROUP BY sensor ORDER BY sensor`,
  `SELECT sensor, count() AS errors FROM ${DIST} WHERE status = 500 GROUP BY sensor ORDER BY errors DESC, sensor LIMIT 5`,
  `SELECT count() AS c FROM ${DIST} WHERE sensor GLOBAL IN (SELECT sensor FROM ${DIST} WHERE status = 500 AND site = 'ams')`,
];

describe('local stack, healthy: answers equal the single-node oracle', () => {
  for (const sql of QUERIES) {
    it(sql.slice(0, 90), async () => {
      const r = await post(`${stack.url}/query`, { sql });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body.partial).toBe(false);
      expect(r.body.shards.missing).toEqual([]);
      const want = await oracle.query(sql.replaceAll(DIST, LOCAL).replaceAll('GLOBAL IN', 'IN'));
      expect(r.body.meta.map((m: { name: string }) => m.name)).toEqual(want.meta.map((m) => m.name));
      expectSameRows(r.body.data, want.rows, sql.slice(0, 40));
      expect(r.body.rows).toBe(want.rows.length);
    });
  }

  it('reports skipped shards and per-shard statistics, one query id throughout', async () => {
    const r = await post(`${stack.url}/query`, { sql: `SELECT count() AS c FROM ${DIST} WHERE sensor = 's-7'` });
    expect(r.status).toBe(200);
    expect(r.body.shards).toMatchObject({ total: 3, queried: 1, skipped: 2, succeeded: 1 });
    expect(r.body.statistics.shards).toHaveLength(1);
    expect(r.body.statistics.rowsRead).toBeGreaterThan(0);
    const all = await post(`${stack.url}/query`, { sql: `SELECT count() AS c FROM ${DIST}` });
    expect(all.body.data).toEqual([{ c: String(ROWS) }]);
  });

  it('cursor pagination walks a sorted result page by page, equal to the oracle', async () => {
    const sql = `SELECT sensor, ts, value FROM ${DIST} WHERE status = 500 ORDER BY value DESC, sensor, ts LIMIT 7`;
    const want = await oracle.query(sql.replace(DIST, LOCAL).replace('LIMIT 7', 'LIMIT 21'));
    const pages: Record<string, unknown>[] = [];
    let cursor: string | undefined;
    for (let i = 0; i < 3; i++) {
      const r = await post(`${stack.url}/query`, cursor ? { sql, cursor } : { sql });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body.rows).toBe(7);
      pages.push(...r.body.data);
      cursor = r.body.cursor;
      expect(typeof cursor).toBe('string');
    }
    expect(pages).toEqual(want.rows);
  });

  it("transfer_overflow_mode 'break' keeps what fits and labels the answer partial; 'throw' is 413; requireComplete is 504", async () => {
    const sql = `SELECT sensor, count() AS c FROM ${DIST} GROUP BY sensor ORDER BY sensor`;
    const cut = await post(`${stack.url}/query`, { sql, settings: { max_rows_to_transfer: 100, transfer_overflow_mode: 'break' } });
    expect(cut.status, JSON.stringify(cut.body).slice(0, 300)).toBe(200);
    expect(cut.body.partial).toBe(true);
    expect(cut.body.truncated.length).toBeGreaterThan(0);
    expect(cut.body.rows).toBeLessThanOrEqual(100);
    expect(cut.body.shards.missing).toEqual([]); // every shard answered: the cut is what makes it partial
    const thrown = await post(`${stack.url}/query`, { sql, settings: { max_rows_to_transfer: 100 } });
    expect(thrown.status).toBe(413);
    expect(thrown.body.error.code).toBe('TRANSFER_LIMIT');
    const strict = await post(`${stack.url}/query`, { sql, requireComplete: true, settings: { max_rows_to_transfer: 100, transfer_overflow_mode: 'break' } });
    expect(strict.status).toBe(504);
    expect(strict.body.error.code).toBe('INCOMPLETE_RESULT');
  });

  it('/explain, /health and the error shapes', async () => {
    const ex = await post(`${stack.url}/explain`, { sql: `SELECT count() FROM ${DIST} WHERE sensor = 's-7'` });
    expect(ex.status).toBe(200);
    expect(ex.body.shards.filter((s: { skipped: boolean }) => s.skipped)).toHaveLength(2);
    const h = await fetch(`${stack.url}/health`);
    expect(h.status).toBe(200);
    expect(((await h.json()) as { shards: unknown[] }).shards).toHaveLength(3);
    const syntax = await post(`${stack.url}/query`, { sql: 'SELEC 1' });
    expect(syntax.status).toBe(400);
    expect(syntax.body.error.code).toBe('SYNTAX_ERROR');
    const ro = await post(`${stack.url}/query`, { sql: `INSERT INTO ${DIST} VALUES (1)` });
    expect(ro.status).toBe(400);
    const unknown = await post(`${stack.url}/query`, { sql: `SELECT nope FROM ${DIST}` });
    expect(unknown.status, JSON.stringify(unknown.body)).toBe(400);
    expect(unknown.body.error.code).toBe('QUERY_ERROR');
    const bad = await post(`${stack.url}/query`, '{"sql": 1}');
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).not.toMatch(/at .*\.ts:\d+/);
  });

  it('a scheduled run inserts its rows, run time and partial flag through the router', async () => {
    const ddl = await post(`${stack.url}/admin/exec`, {
      sql: 'CREATE TABLE analytics.rollups (site String, c UInt64, _run_time DateTime, _partial UInt8) ENGINE = MergeTree ORDER BY site',
    });
    expect(ddl.status, JSON.stringify(ddl.body)).toBe(200);
    const before = Math.floor(Date.now() / 1000) - 1;
    const run = await post(`${stack.url}/admin/schedule?name=site-rollup`, {});
    expect(run.status, JSON.stringify(run.body)).toBe(200);
    expect(run.body).toMatchObject({ name: 'site-rollup', destination: 'analytics.rollups_dist', rows: 5, partial: false });
    const got = await post(`${stack.url}/query`, {
      sql: 'SELECT site, c, _partial, toUnixTimestamp(_run_time) AS t FROM analytics.rollups_dist ORDER BY site',
    });
    expect(got.status, JSON.stringify(got.body)).toBe(200);
    const want = await oracle.query(`SELECT site, count() AS c FROM ${LOCAL} GROUP BY site ORDER BY site`);
    expect(got.body.data.map((r: Record<string, unknown>) => ({ site: r.site, c: r.c }))).toEqual(want.rows);
    for (const r of got.body.data) {
      expect(r._partial).toBe(0);
      expect(Number(r.t)).toBeGreaterThanOrEqual(before);
    }
    const missing = await post(`${stack.url}/admin/schedule?name=nope`, {});
    expect(missing.status).toBe(500);
    expect(missing.body.error.message).toMatch(/no schedule named/);
  });

  it('admin routes: exec on every replica, insert through the router', async () => {
    const ex = await post(`${stack.url}/admin/exec`, {
      sql: 'CREATE TABLE IF NOT EXISTS analytics.e2e_ins (sensor String, v UInt64) ENGINE = MergeTree ORDER BY sensor',
    });
    expect(ex.status, JSON.stringify(ex.body)).toBe(200);
    expect(ex.body.replicas).toHaveLength(4);
    // route rows addressed to the demo's distributed table: count grows by exactly the rows sent
    const lines = Array.from({ length: 100 }, (_, i) =>
      JSON.stringify({ ts: '2026-02-01 00:00:00', sensor: `ins-${i}`, site: 'ams', metric: 'temp', value: i, status: 200 }),
    ).join('\n');
    const res = await fetch(`${stack.url}/admin/insert?table=${DIST}`, { method: 'POST', body: lines });
    const body = (await res.json()) as { inserted: number; perShard: number[] };
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(body.inserted).toBe(100);
    expect(body.perShard.reduce((a, b) => a + b, 0)).toBe(100);
    const c = await post(`${stack.url}/query`, { sql: `SELECT count() AS c FROM ${DIST} WHERE sensor LIKE 'ins-%'` });
    expect(c.body.data).toEqual([{ c: '100' }]);
    // each row is on the shard the placement says: a pruned query for one sensor finds it
    const one = await post(`${stack.url}/query`, { sql: `SELECT count() AS c FROM ${DIST} WHERE sensor = 'ins-7'` });
    expect(one.body.data).toEqual([{ c: '1' }]);
    expect(one.body.shards.skipped).toBe(2);
  });

  it('ch-scatter query --url prints a table and the shard summary', async () => {
    const out = await runCli(['query', '--url', stack.url, `SELECT site, count() AS c FROM ${DIST} WHERE sensor != 'x' GROUP BY site ORDER BY site`]);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toMatch(/site\s+│\s+c/);
    expect(out.stdout).toMatch(/ams\s+│/);
    expect(out.stdout).toMatch(/shards: 3 total, 3 queried, 0 skipped, 3 succeeded/);
  });
});

function runCli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [path.resolve('bin/ch-scatter.mjs'), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d) => (stdout += d));
    p.stderr.on('data', (d) => (stderr += d));
    p.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}
