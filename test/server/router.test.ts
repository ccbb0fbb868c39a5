// The router against real 18.16 servers: rows written straight to shard-local tables by
// shared/core/router (and by `ch-scatter insert --config`) must sit on exactly the servers where a
// Distributed table on the same cluster puts the same rows; a down shard is reported, not hidden.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseTopology } from '../../shared/core/config/load.js';
import { createHttpAccess } from '../../shared/adapters/clickhouse/http.js';
import type { ClickHouseAccess } from '../../shared/core/clickhouse/port.js';
import { insertRows } from '../../shared/core/router/index.js';
import { ADMIN, chHttp, chRows, useChServers } from '../support/ch-servers.js';
import { fcSeed } from '../support/fc-seed.js';

const PORT_BASE = 19110;
const DOWN_PORT = 19119; // nothing listens here: a shard that is down
const servers = useChServers({ n: 3, portBase: PORT_BASE, weights: [1, 2, 1] });
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
let tmp: string;
const accesses: ClickHouseAccess[] = [];

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'h1-router-'));
  for (const url of servers.current.urls) {
    for (const t of ['ev', 'ev_ref', 'ev_cli']) {
      await chHttp(url, `CREATE TABLE default.${t} (id UInt64, n Int32, s String) ENGINE = MergeTree() ORDER BY tuple()`);
    }
  }
  await chHttp(servers.current.urls[0]!, 'CREATE TABLE default.ev_ref_dist AS default.ev_ref ENGINE = Distributed(scatter, default, ev_ref, id)');
  await chHttp(servers.current.urls[0]!, 'CREATE TABLE default.n_ref_dist AS default.ev_ref ENGINE = Distributed(scatter, default, ev_ref, n)');
});
afterAll(async () => {
  await Promise.all(accesses.map((a) => a.close()));
  rmSync(tmp, { recursive: true, force: true });
});

function topology(urls: string[], key: { column: string; type: string }, local = 'default.ev') {
  return {
    cluster: 'scatter',
    shards: urls.map((url, i) => ({ weight: [1, 2, 1][i]!, replicas: [{ url }] })),
    tables: { 'default.ev_dist': { local, shardingKey: { ...key, function: 'identity' } } },
  };
}

const sample = (seed: number) =>
  fc.sample(fc.record({ id: fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }), n: fc.integer(), s: fc.string({ maxLength: 12 }) }), {
    numRuns: 1500,
    seed: fcSeed() + seed,
  });

/** Sorted ids per server in `table`. */
async function idsPerServer(table: string, col = 'id'): Promise<string[][]> {
  const out: string[][] = [];
  for (const url of servers.current.urls) {
    const rows = await chRows<{ k: string }>(url, `SELECT toString(${col}) AS k FROM default.${table} ORDER BY ${col}`);
    out.push(rows.map((r) => r.k));
  }
  return out;
}

async function viaDistributed(dist: string, lines: string): Promise<void> {
  await chHttp(servers.current.urls[0]!, `INSERT INTO default.${dist} FORMAT JSONEachRow\n${lines}`, { insert_distributed_sync: 1 });
}

describe('router writes where the Distributed engine would', () => {
  for (const key of [
    { column: 'id', type: 'UInt64' },
    { column: 'n', type: 'Int32' },
  ]) {
    it(`identity on ${key.type} (${key.column})`, async () => {
      const rows = sample(key.column === 'id' ? 11 : 12);
      // 64-bit ids as unquoted JSON numbers: the router must keep them exact.
      const lines = rows.map((r) => `{"id":${r.id},"n":${r.n},"s":${JSON.stringify(r.s)}}`).join('\n') + '\n';
      for (const url of servers.current.urls) await chHttp(url, 'TRUNCATE TABLE default.ev').catch(() => chHttp(url, 'ALTER TABLE default.ev DELETE WHERE 1'));
      for (const url of servers.current.urls) await chHttp(url, 'TRUNCATE TABLE default.ev_ref').catch(() => undefined);
      const topo = parseTopology(topology(servers.current.urls, key));
      const result = await insertRows(lines, 'ev_dist', topo, (s) => {
        const a = createHttpAccess({ url: servers.current.urls[s]!, ...ADMIN });
        accesses.push(a);
        return a;
      });
      expect(result.bad).toEqual([]);
      expect(result.ok).toBe(true);
      expect(result.inserted).toBe(rows.length);
      await viaDistributed(key.column === 'id' ? 'ev_ref_dist' : 'n_ref_dist', lines);
      const ours = await idsPerServer('ev', key.column);
      const theirs = await idsPerServer('ev_ref', key.column);
      expect(ours.map((x) => x.length)).toEqual(result.perShard);
      expect(ours).toEqual(theirs);
      expect(ours.flat().length).toBe(rows.length);
      // Exact 64-bit values arrived (none rounded by JSON parsing).
      if (key.column === 'id') expect(new Set(ours.flat())).toEqual(new Set(rows.map((r) => String(r.id))));
    });
  }
});

function runCli(args: string[], stdin: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((res, rej) => {
    // The CLI's writes: the admin user (the shard user is read-only), as an operator would pass it.
    const env = { ...process.env, CLICKHOUSE_USER: ADMIN.username, CLICKHOUSE_PASSWORD: ADMIN.password };
    const child = spawn(process.execPath, [join(ROOT, 'bin/ch-scatter.mjs'), ...args], { cwd: ROOT, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', rej);
    child.on('close', (code) => res({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

describe('ch-scatter insert --config', () => {
  it('writes one batch per shard and prints per-shard counts', async () => {
    const rows = sample(13).slice(0, 400);
    const lines = rows.map((r) => JSON.stringify({ id: String(r.id), n: r.n, s: r.s })).join('\n') + '\n';
    const cfg = join(tmp, 'ok.json');
    writeFileSync(cfg, JSON.stringify(topology(servers.current.urls, { column: 'id', type: 'UInt64' }, 'default.ev_cli')));
    const r = await runCli(['insert', '--config', cfg, '--table', 'ev_dist'], lines);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const counts = (await idsPerServer('ev_cli')).map((x) => x.length);
    for (const [i, n] of counts.entries()) expect(r.stdout).toContain(n === 0 ? `shard ${i}: 0 rows` : `shard ${i}: ${n} rows committed`);
    expect(r.stdout).toMatch(/inserted 400 of 400 rows; committed shards: 0, 1, 2; failed shards: none/);
  });

  it('bad rows: nothing written, every bad line listed, exit 1', async () => {
    const before = (await idsPerServer('ev_cli')).flat().length;
    const cfg = join(tmp, 'ok.json');
    const r = await runCli(['insert', '--config', cfg, '--table', 'ev_dist'], '{"id":1}\n{"id":-1}\n{"n":3}\n{"id":"abc"}\n');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/line 2: column "id".*out of range/);
    expect(r.stderr).toMatch(/line 3: missing sharding key column "id"/);
    expect(r.stderr).toMatch(/line 4: column "id".*not an integer/);
    expect(r.stderr).toMatch(/nothing written/);
    expect((await idsPerServer('ev_cli')).flat().length).toBe(before);
  });

  it('a down shard is reported as failed while the others commit', async () => {
    const urls = [...servers.current.urls];
    urls[1] = `http://127.0.0.1:${DOWN_PORT}`;
    const cfg = join(tmp, 'down.json');
    writeFileSync(cfg, JSON.stringify(topology(urls, { column: 'id', type: 'UInt64' }, 'default.ev_cli')));
    // ids 0..7 with slots [0,1,1,2]: ids 1,2,5,6 belong to the down shard 1.
    const lines = Array.from({ length: 8 }, (_, i) => JSON.stringify({ id: 1000 + i * 1, n: i, s: 'x' })).join('\n');
    const before = await idsPerServer('ev_cli');
    const r = await runCli(['insert', '--config', cfg, '--table', 'ev_dist'], lines);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/shard 1: 4 rows FAILED/);
    expect(r.stderr).toMatch(/committed shards: 0, 2; failed shards: 1/);
    const after = await idsPerServer('ev_cli');
    expect(after[0]!.length - before[0]!.length).toBe(2);
    expect(after[2]!.length - before[2]!.length).toBe(2);
  });

  it('refuses embedded shards with a pointer to ch-scatter dev', async () => {
    const cfg = join(tmp, 'emb.json');
    writeFileSync(
      cfg,
      JSON.stringify({
        ...topology(servers.current.urls.slice(0, 1), { column: 'id', type: 'UInt64' }),
        shards: [{ replicas: [{ embedded: join(tmp, 'x') }] }],
      }),
    );
    const r = await runCli(['insert', '--config', cfg, '--table', 'ev_dist'], '{"id":1}\n');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/embedded shards are reachable only through a running `ch-scatter dev`/);
  });
});
