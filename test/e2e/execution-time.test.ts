// max_execution_time and timeout_overflow_mode in a query's settings, on a local stack of two
// embedded shards, one of them slow: max_execution_time lowers the one deadline (never raises it
// past the request's or the configured one); 'break' answers what arrived by then, labelled
// partial with the late shard missing; 'throw' fails the query instead (504).
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalStack, type LocalStack } from '../../local/stack.js';
import { DEMO_DDL, demoInsertFor } from '../../local/demo.js';
import { createLambdaInvoker, shardFunctionNames } from '../../shared/adapters/aws/lambda-invoker.js';
import { createAdminAccess } from '../../shared/core/scatter/shard-admin-access.js';
import { createPlacement } from '../../shared/core/sharding/index.js';
import { e2eTopology, post, tempDir, type ShardSpec } from './support.js';

const ROWS = 2_000;
const DIST = 'analytics.sensor_events_dist';
const SHARDS: ShardSpec[] = [{ replicas: [{}] }, { replicas: [{ fault: { delayMs: 4000 } }] }];
const SQL = `SELECT count() AS c FROM ${DIST}`;

let dir: string;
let stack: LocalStack;
let shard0Rows: number;
/** A sensor the fast shard holds: a query pruned to it needs no slow shard. */
let onShard0: string;

beforeAll(async () => {
  dir = tempDir('exectime');
  const topo = e2eTopology(dir, SHARDS, { timeoutMs: 10_000 });
  stack = await startLocalStack({ invoker: 'http', topo, logLevel: 'SILENT' });
  // Rows only on the fast shard (faults hit admin requests too).
  const placement = await createPlacement(topo.shards, topo.tables[DIST]!.shardingKey);
  onShard0 = Array.from({ length: 50 }, (_, i) => `s-${i}`).find((s) => placement.shardOf(s) === 0)!;
  const invoker = createLambdaInvoker(SHARDS.length, { endpoint: stack.invokeUrl, functionNames: shardFunctionNames(SHARDS.length, {}) });
  const a = createAdminAccess({ invoker, shard: 0, replica: 0 });
  for (const ddl of DEMO_DDL) await a.exec(ddl);
  await a.exec(demoInsertFor(topo, 0, ROWS));
  shard0Rows = Number((await a.query(`SELECT count() AS c FROM analytics.sensor_events`)).rows[0]!.c);
  invoker.close();
  await fetch(`${stack.url}/health`);
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe('max_execution_time and timeout_overflow_mode', () => {
  it("'break': at max_execution_time the answer is what arrived, partial, the slow shard missing", async () => {
    for (const body of [
      { sql: `${SQL} SETTINGS max_execution_time = 1, timeout_overflow_mode = 'break'` },
      { sql: SQL, settings: { max_execution_time: 1, timeout_overflow_mode: 'break' } },
    ]) {
      const r = await post(`${stack.url}/query`, body);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body.statistics.deadlineMs).toBe(1000);
      expect(r.ms).toBeLessThan(2500);
      expect(r.body.partial).toBe(true);
      expect(r.body.shards.missing.map((m: { shard: number; reason: string }) => [m.shard, m.reason])).toEqual([[1, 'timeout']]);
      expect(r.body.data).toEqual([{ c: String(shard0Rows) }]);
    }
  });

  it('the general path at the same deadline is partial too, never complete', async () => {
    // 3 s leaves the final stage 300 ms after stage one stops waiting (1.2 s left it 120 ms, which a
    // loaded machine's final stage overran), and the slow shard (4 s) still misses the deadline.
    const r = await post(`${stack.url}/query`, { sql: `${SQL} SETTINGS max_execution_time = 3, ch_scatter_path = 'general'` });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect([r.body.path, r.body.partial, r.body.statistics.deadlineMs]).toEqual(['general', true, 3000]);
    expect(r.body.shards.missing.map((m: { shard: number }) => m.shard)).toEqual([1]);
  });

  it("'throw': a shard missing at the deadline fails the query (504), as ClickHouse throws at its timeout", async () => {
    const r = await post(`${stack.url}/query`, { sql: `${SQL} SETTINGS max_execution_time = 1, timeout_overflow_mode = 'throw'` });
    expect([r.status, r.body.error?.code]).toEqual([504, 'INCOMPLETE_RESULT']);
  });

  it('lowers the deadline, never raises it: the request timeoutMs and the configured one stay ceilings', async () => {
    const raised = await post(`${stack.url}/query`, { sql: `${SQL} SETTINGS max_execution_time = 5`, timeoutMs: 800 });
    expect(raised.body.statistics.deadlineMs).toBe(800);
    const fast = await post(`${stack.url}/query`, { sql: `${SQL} WHERE sensor = '${onShard0}' SETTINGS max_execution_time = 60` });
    expect(fast.status, JSON.stringify(fast.body)).toBe(200);
    expect(fast.body.statistics.deadlineMs).toBe(10_000);
    const unlimited = await post(`${stack.url}/query`, { sql: `${SQL} WHERE sensor = '${onShard0}' SETTINGS max_execution_time = 0` });
    expect(unlimited.body.statistics.deadlineMs).toBe(10_000);
  });

  it('refuses values ClickHouse would not read, with the position', async () => {
    const r = await post(`${stack.url}/query`, { sql: `${SQL} SETTINGS timeout_overflow_mode = 'any'` });
    expect([r.status, r.body.error?.code, r.body.error?.position]).toEqual([400, 'BAD_REQUEST', { line: 1, column: 88 }]);
    const n = await post(`${stack.url}/query`, { sql: SQL, settings: { max_execution_time: -1 } });
    expect([n.status, n.body.error?.code]).toEqual([400, 'BAD_REQUEST']);
  });
});
