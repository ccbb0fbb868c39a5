// The streaming front door in `ch-scatter sim`: the assembly synthesized with the `streaming` deploy
// option (real esbuild bundles) serves its Function URL in RESPONSE_STREAM mode, and a row export
// larger than a Lambda payload per shard streams through it: the door's function reads both shard
// functions (their streaming handler) with InvokeWithResponseStream, every row arrives once; the
// JSON API's POST /query on the same URL streams the rows with the completeness fields after them.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { App } from 'aws-cdk-lib';
import { createChScatter } from '../../cdk/create.js';
import { startSim, type Sim } from '../../local/sim/index.js';
import { ADMIN, chHttp, useChServers } from '../support/ch-servers.js';

const servers = useChServers({ n: 2, portBase: 20440 });
const dir = mkdtempSync(join(tmpdir(), 'ch-scatter-sim-door-'));
/** ~9 MB of TabSeparated per shard: more than one Lambda payload (6 MB) carries. */
const ROWS_PER_SHARD = 100_000;
const PAD = 'x'.repeat(80);
let sim: Sim;

beforeAll(async () => {
  const urls = servers.current.urls;
  for (const [i, url] of urls.entries()) {
    await chHttp(url, 'CREATE TABLE default.rows (id UInt64, s String) ENGINE = MergeTree() ORDER BY id');
    await chHttp(url, `INSERT INTO default.rows SELECT number * 2 + ${i}, '${PAD}' FROM system.numbers LIMIT ${ROWS_PER_SHARD}`);
  }
  const configFile = join(dir, 'topology.json');
  writeFileSync(
    configFile,
    JSON.stringify({
      cluster: 'scatter',
      shards: urls.map((url) => ({ replicas: [{ url }] })),
      tables: { 'default.rows_dist': { local: 'default.rows', shardingKey: { column: 'id', type: 'UInt64', function: 'identity' } } },
      // Roomy for cold starts of three functions on a loaded 2-core machine (the API path's limit is below 30 s).
      query: { timeoutMs: 20_000, hedge: { enabled: false } },
    }),
  );
  const outdir = join(dir, 'cdk.out');
  const app = new App({ outdir, context: { config: configFile, nag: false, streaming: { timeoutS: 60 } } });
  createChScatter(app, {});
  app.synth();
  sim = await startSim({ cdkOut: outdir, log: () => undefined, secretValue: () => JSON.stringify(ADMIN) });
}, 240_000);

afterAll(async () => {
  await sim?.stop();
  rmSync(dir, { recursive: true, force: true });
}, 60_000);

function exportRows(base: string, sql: string): Promise<{ status: number; body: Buffer; chunks: number }> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${base}/`, { method: 'POST' }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, body: Buffer.concat(parts), chunks: parts.length }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(sql);
  });
}

describe('the streaming door in ch-scatter sim', () => {
  it('serves the Function URL, the shard functions run their streaming handler', () => {
    const urls = Object.keys(sim.functionUrls);
    expect(urls).toHaveLength(1);
    const shards = sim.assembly.functions.filter((f) => f.environment.CH_SCATTER_SHARD !== undefined);
    expect(shards.map((f) => f.handler)).toEqual(['index.streamingHandler', 'index.streamingHandler']);
  });

  it('a row export over 6 MB per shard streams through it, every row once', async () => {
    const base = Object.values(sim.functionUrls)[0]!;
    const r = await exportRows(base, 'SELECT id, s FROM default.rows_dist FORMAT TabSeparated');
    expect(r.status, r.body.subarray(0, 300).toString()).toBe(200);
    expect(r.body.length).toBeGreaterThan(2 * 6 * 1024 * 1024);
    const lines = r.body.toString('utf8').split('\n');
    expect(lines.pop()).toBe('');
    expect(lines).toHaveLength(2 * ROWS_PER_SHARD);
    const ids = lines.map((l) => Number(l.split('\t')[0]));
    expect(new Set(ids).size).toBe(2 * ROWS_PER_SHARD);
    expect(ids.reduce((a, b) => a + b, 0)).toBe(((2 * ROWS_PER_SHARD - 1) * 2 * ROWS_PER_SHARD) / 2);
    expect(r.chunks).toBeGreaterThan(1);
  }, 120_000);

  it("the JSON API's POST /query streams the same rows, the completeness fields after them", async () => {
    const base = Object.values(sim.functionUrls)[0]!;
    const r = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = http.request(`${base}/query`, { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
        const parts: Buffer[] = [];
        res.on('data', (c: Buffer) => parts.push(c));
        res.on('end', () => resolve({ status: res.statusCode!, text: Buffer.concat(parts).toString('utf8') }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(JSON.stringify({ sql: 'SELECT id FROM default.rows_dist' }));
    });
    expect(r.status, r.text.slice(0, 300)).toBe(200);
    const doc = JSON.parse(r.text);
    expect(doc.meta).toEqual([{ name: 'id', type: 'UInt64' }]);
    expect(doc.rows).toBe(2 * ROWS_PER_SHARD);
    expect(new Set((doc.data as { id: string }[]).map((row) => row.id)).size).toBe(2 * ROWS_PER_SHARD);
    expect(doc.partial).toBe(false);
    expect(r.text.lastIndexOf('"partial"')).toBeGreaterThan(r.text.lastIndexOf('"id"'));
  }, 120_000);
});
