// Reach through every position, on chdb shards (a local stack: API server -> coordinator ->
// Invoke endpoint -> shard host processes): each read a client must never make (an unconfigured
// table, a shard-local table named directly, system tables, refused functions), at every
// SQL-bearing position, on every route, is refused with its code and a position, and no shard
// function receives any request while it is answered. Reads of the configured table keep working.
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../e2e/support.js';
import { DIST, LOCAL, reachCases } from './reach-corpus.js';
import { runCorpus, startReachStack, type ReachStack } from './reach-stack.js';

const ROWS_PER_SHARD = 50;
let dir: string;
let s: ReachStack;

beforeAll(async () => {
  dir = tempDir('reach');
  s = await startReachStack(
    [{ replicas: [{ embedded: 'shard-0' }] }, { replicas: [{ embedded: 'shard-1' }] }],
    dir,
    `INSERT INTO ${LOCAL} SELECT concat('s-', toString(number)), concat('site-', toString(number % 3)), number FROM numbers(${ROWS_PER_SHARD})`,
  );
}, 180_000);

afterAll(async () => {
  await s?.stack.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe('reach corpus on chdb', () => {
  it('every forbidden read at every position on every route is refused before any shard is asked', async () => {
    const cases = reachCases();
    expect(cases.length).toBeGreaterThan(1500);
    const problems = await runCorpus(s, cases);
    expect(problems.slice(0, 20), `${problems.length} of ${cases.length} cases`).toEqual([]);
  }, 600_000);

  it('a subquery over the configured table keeps working in the final stage, on both APIs', async () => {
    const sql = `SELECT count() AS c, (SELECT count() FROM ${DIST}) AS t FROM ${DIST}`;
    const r = await fetch(`${s.stack.url}/query`, { method: 'POST', body: JSON.stringify({ sql, settings: { ch_scatter_path: 'general' } }) });
    const body = (await r.json()) as { data: Record<string, unknown>[] };
    expect(r.status, JSON.stringify(body)).toBe(200);
    expect(body.data).toEqual([{ c: String(2 * ROWS_PER_SHARD), t: String(2 * ROWS_PER_SHARD) }]);
    const before = s.payloads.length;
    const ch = await fetch(`${s.stack.url}/`, { method: 'POST', body: `${sql} FORMAT TSV` });
    expect(await ch.text()).toBe(`${2 * ROWS_PER_SHARD}\t${2 * ROWS_PER_SHARD}\n`);
    // The recorder sees the shards' requests: the corpus's zero is a measurement, not a blind spot.
    expect(s.payloads.length).toBeGreaterThan(before);
  });

  it('the catalog engine answers a scalar subquery inside a FROM subquery from its own view: the configured tables only', async () => {
    const r = await fetch(`${s.stack.url}/`, { method: 'POST', body: 'SELECT * FROM (SELECT (SELECT groupArray(name) FROM system.tables) AS t) FORMAT TSV' });
    const text = await r.text();
    expect(r.status, text).toBe(200);
    expect(text).toBe("['sensor_events_dist']\n");
    expect(text).not.toContain('secret_unconfigured');
  });
});
