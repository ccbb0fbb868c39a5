// The fault matrix entries not already proven elsewhere (docs/operations.md lists each fault with
// its test): a shard answer larger than Lambda's 6 MB response limit (413 TOO_LARGE: the same
// query would be too large again, so it is the user's to change, not a partial answer), and a
// shard answer that is well-formed JSON claiming success but with the wrong shape. One local stack of three embedded
// shards behind the coordinator's default query invoker and the local Invoke endpoint (which applies
// Lambda's payload limit).
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalStack, type LocalStack } from '../../local/stack.js';
import { tempDir } from '../e2e/support.js';
import { DIST, preloadShards, reliabilityTopology, sensorsByShard } from './support.js';

const ROWS = 15_000; // 3 rows per sensor
let dir: string;
let stack: LocalStack;
let on: string[][];

beforeAll(async () => {
  dir = tempDir('matrix');
  const topo = reliabilityTopology(dir, [{ replicas: [{}] }, { replicas: [{}] }, { replicas: [{}] }]);
  await preloadShards(topo, ROWS);
  ({ on } = await sensorsByShard(topo));
  stack = await startLocalStack({
    topo,
    logLevel: 'SILENT',
    wrapFunctions: (fns) => ({
      ...fns,
      // shard 0 answers a real result padded past 6 MB (a shard that returned raw rows)
      'ch-scatter-shard-0': async (p) => {
        const r = (await fns['ch-scatter-shard-0']!(p)) as { ok: boolean; rows?: unknown[] };
        if (!r.ok) return r;
        return { ...r, rows: [...(r.rows ?? []), ...Array.from({ length: 70_000 }, (_, i) => ({ pad: `${i}-${'x'.repeat(90)}` }))] };
      },
      // shard 1 claims success in a shape that is not a shard response
      'ch-scatter-shard-1': async (p) => ({ ok: true, shard: (p as { shard: number }).shard, replica: 0, meta: 'c UInt64', rows: 42, statistics: null }),
    }),
  });
  await fetch(`${stack.url}/health`);
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

async function post(body: unknown) {
  const r = await fetch(`${stack.url}/query`, { method: 'POST', body: JSON.stringify(body) });
  return { status: r.status, body: (await r.json()) as any };
}
const inList = (shard: number) =>
  on[shard]!.slice(0, 4)
    .map((s) => `'${s}'`)
    .join(', ');

describe('fault matrix: oversized and malformed shard answers', () => {
  it('a shard answer over 6 MB: 413 TOO_LARGE naming the shard (deterministic: not retried, never a partial answer)', async () => {
    const r = await post({ sql: `SELECT count() AS c FROM ${DIST}`, timeoutMs: 10_000 });
    expect(r.status, JSON.stringify(r.body)).toBe(413);
    expect(r.body.error.code).toBe('TOO_LARGE');
    expect(r.body.error.message).toMatch(/shard 0/);
    expect(r.body.error.message).toMatch(/6 MB/);
    expect(r.body.data).toBeUndefined(); // no rows that could pass for an answer
    expect(r.body.shards.missing).toContainEqual(expect.objectContaining({ shard: 0, reason: 'error' }));
    // the same alone, and with requireComplete: still the 413 that tells the user what to change
    for (const extra of [{}, { requireComplete: true }]) {
      const alone = await post({ sql: `SELECT count() AS c FROM ${DIST} WHERE sensor IN (${inList(0)})`, timeoutMs: 10_000, ...extra });
      expect(alone.status).toBe(413);
      expect(alone.body.error.code).toBe('TOO_LARGE');
    }
  });

  it('a shard answer claiming success in the wrong shape: missing with reason error (malformed), never merged', async () => {
    const r = await post({ sql: `SELECT count() AS c FROM ${DIST} WHERE sensor IN (${inList(1)}, ${inList(2)})`, timeoutMs: 10_000 });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.partial).toBe(true);
    expect(r.body.shards.missing).toEqual([expect.objectContaining({ shard: 1, reason: 'error', message: expect.stringMatching(/malformed/) })]);
    expect(r.body.data).toEqual([{ c: '12' }]); // the four sensors of shard 2, three rows each
    const strict = await post({
      sql: `SELECT count() AS c FROM ${DIST} WHERE sensor IN (${inList(1)}, ${inList(2)})`,
      timeoutMs: 10_000,
      requireComplete: true,
    });
    expect(strict.status).toBe(504);
    expect(strict.body.error.code).toBe('INCOMPLETE_RESULT');
  });
});
