// End to end under failure, through the coordinator's default query invoker (the lean SigV4-signed
// node:http client; results.test.ts runs the SDK one) and the local stack with embedded shards:
// a slow shard, a shard error, a crashed shard process, a throttled invoke, a malformed shard
// response, and hedging a straggling replica, all in one stack of seven shards. Data goes only to
// the replicas that can answer (faults apply to admin requests too).
//
// Timing margin: a partial answer must arrive by the deadline + 500 ms (the coordinator aborts
// every outstanding invoke AT the deadline; the rest is merge, finalize, HTTP on 2 shared cores).
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalStack, type LocalStack } from '../../local/stack.js';
import type { EngineProcess } from '../support/engine-process/engine-process.js';
import { createPlacement } from '../../shared/core/sharding/index.js';
import { DEMO_DDL, DEMO_LOCAL, demoInsertFor } from '../../local/demo.js';
import { createLambdaInvoker, shardFunctionNames } from '../../shared/adapters/aws/lambda-invoker.js';
import { createAdminAccess } from '../../shared/core/scatter/shard-admin-access.js';
import { e2eTopology, post, startOracle, tempDir, type ShardSpec } from './support.js';

const ROWS = 30_000;
const DIST = 'analytics.sensor_events_dist';
const MARGIN_MS = 500;
const SLOW = { delayMs: 6000, delayProbability: 1 };
const HEDGE = { hedge: { enabled: true, afterQuantile: 0.95, maxExtraPercent: 100 } };
// weights 1,2,1,1,1,1,1 -> slots [0,1,1,2,3,4,5,6]
const SLOTS = [0, 1, 1, 2, 3, 4, 5, 6];
const HEALTHY: ShardSpec[] = [{ weight: 1, replicas: [{}, {}] }, { weight: 2, replicas: [{}] }, ...Array.from({ length: 5 }, () => ({ replicas: [{}] }))];
const FAULTY: ShardSpec[] = [
  { weight: 1, replicas: [{ fault: SLOW }, {}] }, // shard 0: a straggling replica and a healthy one
  { weight: 2, replicas: [{}] },
  { replicas: [{ fault: SLOW }] }, // shard 2: slow, nowhere to hedge
  { replicas: [{ fault: { error: 'boom' } }] }, // shard 3: errors
  { replicas: [{ fault: { crash: true } }] }, // shard 4: the process dies mid-invoke
  { replicas: [{}] }, // shard 5: its function answers garbage (wrapFunctions below)
  { replicas: [{}] }, // shard 6: reserved concurrency 1 and a 0.6 s stall (wrapFunctions below)
];

let dir: string;
let oracle: EngineProcess;
let sensorsOn: Map<number, string[]>;

/** The oracle's answer restricted to the rows of some shards (by the placement rule). */
async function oracleFor(shards: number[], select: string): Promise<Record<string, unknown>[]> {
  const idx = SLOTS.flatMap((s, k) => (shards.includes(s) ? [k] : []));
  return (await oracle.query(select.replace('{T}', `(SELECT * FROM ${DEMO_LOCAL} WHERE xxHash64(sensor) % ${SLOTS.length} IN (${idx.join(', ')}))`))).rows;
}

beforeAll(async () => {
  dir = tempDir('faults');
  oracle = await startOracle(dir, ROWS);
  const topo = e2eTopology(dir, HEALTHY);
  const placement = await createPlacement(topo.shards, topo.tables[DIST]!.shardingKey);
  sensorsOn = new Map();
  for (let i = 0; i < 200; i++) {
    const s = `s-${i}`;
    const shard = placement.shardOf(s);
    sensorsOn.set(shard, [...(sensorsOn.get(shard) ?? []), s]);
  }
});

afterAll(async () => {
  await oracle?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('faults from the config', () => {
  let stack: LocalStack;
  beforeAll(async () => {
    stack = await startLocalStack({
      invoker: 'http',
      topo: e2eTopology(dir, FAULTY, HEDGE),
      logLevel: 'SILENT',
      shardConcurrency: { 'ch-scatter-shard-6': 1 }, // a second concurrent invoke of shard 6 gets 429
      wrapFunctions: (fns) => ({
        ...fns,
        'ch-scatter-shard-5': async () => ({ rows: 'definitely not a shard response' }),
        'ch-scatter-shard-6': async (payload) => {
          await new Promise((r) => setTimeout(r, 600));
          return fns['ch-scatter-shard-6']!(payload);
        },
      }),
    });
    // Data only where a replica can answer (faults hit admin requests too): shard 0's healthy
    // replica and shards 1 and 6. The others never contribute rows.
    const invoker = createLambdaInvoker(FAULTY.length, { endpoint: stack.invokeUrl, functionNames: shardFunctionNames(FAULTY.length, {}) });
    const topo = e2eTopology(dir, FAULTY);
    await Promise.all(
      [
        [0, 1],
        [1, 0],
        [6, 0],
      ].map(async ([shard, replica]) => {
        const a = createAdminAccess({ invoker, shard: shard!, replica: replica! });
        for (const ddl of DEMO_DDL) await a.exec(ddl);
        await a.exec(demoInsertFor(topo, shard!, ROWS));
      }),
    );
    invoker.close();
    // The coordinator's cold start (module loading, wasm) happens before any deadline starts, as
    // in Lambda; warm it so the timing assertions measure the deadline, not the cold start.
    await fetch(`${stack.url}/health`);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('answers by the deadline with partial: true and every missing shard with its reason', async () => {
    const timeoutMs = 1500;
    const r = await post(`${stack.url}/query`, { sql: `SELECT site, count() AS c FROM ${DIST} GROUP BY site ORDER BY site`, timeoutMs });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.ms).toBeLessThan(timeoutMs + MARGIN_MS);
    expect(r.body.partial).toBe(true);
    const reasons = Object.fromEntries(r.body.shards.missing.map((m: { shard: number; reason: string }) => [m.shard, m.reason]));
    expect(reasons).toEqual({ 2: 'timeout', 3: 'error', 4: 'unavailable', 5: 'error' });
    expect(r.body.shards.missing.find((m: { shard: number }) => m.shard === 5).message).toMatch(/malformed/);
    expect(r.body.shards).toMatchObject({ total: 7, queried: 7, succeeded: 3, failed: 3, timedOut: 1 });
    expect(r.body.statistics.elapsedMs).toBeLessThan(timeoutMs + 100);
    // what did arrive is exactly the rows of shards 0, 1 and 6 (shard 0 via its healthy replica)
    expect(r.body.data).toEqual(await oracleFor([0, 1, 6], 'SELECT site, count() AS c FROM {T} GROUP BY site ORDER BY site'));
  });

  it('requireComplete turns the same query into 504 INCOMPLETE_RESULT, with shards in the body', async () => {
    const r = await post(`${stack.url}/query`, { sql: `SELECT count() AS c FROM ${DIST}`, timeoutMs: 1000, requireComplete: true });
    expect(r.status).toBe(504);
    expect(r.ms).toBeLessThan(1000 + MARGIN_MS);
    expect(r.body.error.code).toBe('INCOMPLETE_RESULT');
    // (shard 6 stalls 0.6 s: on a busy machine it may miss this 1 s deadline too)
    expect(r.body.shards.missing.map((m: { shard: number }) => m.shard)).toEqual(expect.arrayContaining([2, 3, 4, 5]));
    expect(r.body.shards.missing.map((m: { shard: number }) => m.shard)).not.toContain(0);
  });

  it('hedging to the healthy replica turns a straggler into a complete answer', async () => {
    const mine = sensorsOn.get(0)!.slice(0, 20);
    const sql = `SELECT count() AS c, sum(value) AS s FROM ${DIST} WHERE sensor IN (${mine.map((s) => `'${s}'`).join(', ')})`;
    const want = await oracleFor([0], `SELECT count() AS c, sum(value) AS s FROM {T} WHERE sensor IN (${mine.map((s) => `'${s}'`).join(', ')})`);
    let hedged = 0;
    for (let i = 0; i < 2; i++) {
      // round-robin primaries: one of the two runs starts on the straggler
      const r = await post(`${stack.url}/query`, { sql, timeoutMs: 3000 });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body.partial).toBe(false);
      expect(r.body.shards).toMatchObject({ queried: 1, skipped: 6, succeeded: 1 });
      expect(r.body.data[0].c).toBe(want[0]!.c);
      expect(Math.abs(r.body.data[0].s - (want[0]!.s as number))).toBeLessThan(1e-6);
      expect(r.ms).toBeLessThan(2500); // far below the 6 s straggler
      hedged += r.body.shards.hedged;
      if (r.body.shards.hedged) expect(r.body.statistics.shards[0]).toMatchObject({ shard: 0, replica: 1, hedged: true, status: 'ok' });
    }
    expect(hedged).toBe(1);
  });

  it('without hedging the straggler is a timeout', async () => {
    const mine = sensorsOn.get(0)!.slice(0, 5);
    const sql = `SELECT count() AS c FROM ${DIST} WHERE sensor IN (${mine.map((s) => `'${s}'`).join(', ')})`;
    const statuses: number[] = [];
    for (let i = 0; i < 2; i++) statuses.push((await post(`${stack.url}/query`, { sql, timeoutMs: 800, hedge: false })).status);
    // one run hits the healthy replica (200), the other waits for the straggler: no shard answered -> 504 TIMEOUT
    expect(statuses.sort()).toEqual([200, 504]);
  });

  it('a busy function answers 429 -> throttled; the holder of the slot still completes', async () => {
    const on6 = sensorsOn.get(6)!.slice(0, 3);
    const holder = post(`${stack.url}/query`, {
      sql: `SELECT count() AS c FROM ${DIST} WHERE sensor IN (${on6.map((s) => `'${s}'`).join(', ')})`,
      timeoutMs: 4000,
    });
    await new Promise((r) => setTimeout(r, 150));
    const r = await post(`${stack.url}/query`, { sql: `SELECT count() AS c FROM ${DIST}`, timeoutMs: 1500 });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const reasons = Object.fromEntries(r.body.shards.missing.map((m: { shard: number; reason: string }) => [m.shard, m.reason]));
    // Shard 4 crashes on every invoke and its host restarts after each crash; on a loaded machine the
    // restart can outlast this deadline, which is then honestly a timeout. The crash itself is pinned
    // by the test above; this one is about the 429.
    const { 4: crashed, ...rest } = reasons;
    expect(['unavailable', 'timeout']).toContain(crashed);
    expect(rest).toEqual({ 2: 'timeout', 3: 'error', 5: 'error', 6: 'throttled' });
    expect(r.body.partial).toBe(true);
    expect(r.body.data).toEqual(await oracleFor([0, 1], 'SELECT count() AS c FROM {T}'));
    const h = await holder;
    expect(h.status).toBe(200);
    expect(h.body.partial).toBe(false);
    expect(h.body.data).toEqual(await oracleFor([6], `SELECT count() AS c FROM {T} WHERE sensor IN (${on6.map((s) => `'${s}'`).join(', ')})`));
  });
});
