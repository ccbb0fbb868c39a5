// The local stack keeps statistics per coordinator and its router inserts refresh them: rows written
// through /admin/insert and through the ClickHouse interface's INSERT are seen by the next query's
// statistics pruning at once, never pruned away on stale ranges. Two embedded (chdb) shards.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseTopology } from '../../../shared/core/config/load.js';
import { startLocalStack, type LocalStack } from '../../../local/stack.js';

let dir: string;
let stack: LocalStack;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stack-statistics-'));
  const topo = parseTopology({
    cluster: 'c',
    shards: [0, 1].map((i) => ({ replicas: [{ embedded: path.join(dir, `s${i}`) }] })),
    tables: { 'db.t_dist': { local: 'db.t', shardingKey: { column: 'k', type: 'UInt64', function: 'identity' }, statistics: ['n'], insert: true } },
    query: { statisticsTtlMs: 600_000 },
  });
  stack = await startLocalStack({ topo, logLevel: 'SILENT' });
  for (const sql of ['CREATE DATABASE IF NOT EXISTS db', 'CREATE TABLE db.t (k UInt64, n Int32) ENGINE = MergeTree ORDER BY k']) {
    const r = await fetch(`${stack.url}/admin/exec`, { method: 'POST', body: JSON.stringify({ sql }) });
    expect(r.status, await r.clone().text()).toBe(200);
  }
}, 120_000);
afterAll(async () => {
  await stack?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

const count = async (where: string) => {
  const r = await fetch(`${stack.url}/query`, { method: 'POST', body: JSON.stringify({ sql: `SELECT count() AS c FROM db.t_dist WHERE ${where}` }) });
  const b = (await r.json()) as { data: { c: string }[]; shards: { skipped: number } };
  return { c: Number(b.data[0]!.c), skipped: b.shards.skipped };
};

describe('local stack statistics', () => {
  it('router inserts (/admin/insert, INSERT on the ClickHouse interface) refresh the statistics the next query prunes by', async () => {
    // Shard 0 (even k) holds n < 100, shard 1 (odd k) n >= 1000.
    const rows = Array.from({ length: 20 }, (_, k) => JSON.stringify({ k, n: k % 2 ? 1000 + k : k })).join('\n');
    expect((await fetch(`${stack.url}/admin/insert?table=db.t_dist`, { method: 'POST', body: rows })).status).toBe(200);
    await expect.poll(() => count('n >= 1000'), { timeout: 10_000 }).toEqual({ c: 10, skipped: 1 });
    // An even key with a large n: shard 0's range grows; the next query must ask it.
    expect((await fetch(`${stack.url}/admin/insert?table=db.t_dist`, { method: 'POST', body: JSON.stringify({ k: 100, n: 5000 }) })).status).toBe(200);
    expect((await count('n >= 1000')).c).toBe(11);
    await expect.poll(() => count('n >= 1000'), { timeout: 10_000 }).toEqual({ c: 11, skipped: 0 });
    // Through the ClickHouse interface's INSERT (the router too).
    await expect.poll(() => count('n >= 6000'), { timeout: 10_000 }).toEqual({ c: 0, skipped: 1 });
    const ins = await fetch(`${stack.url}/?query=${encodeURIComponent('INSERT INTO db.t_dist FORMAT JSONEachRow')}`, {
      method: 'POST',
      body: JSON.stringify({ k: 102, n: 7000 }),
    });
    expect(ins.status, await ins.clone().text()).toBe(200);
    expect((await count('n >= 6000')).c).toBe(1);
  }, 60_000);
});
