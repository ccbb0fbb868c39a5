// An oversized shard partial is a 413 TOO_LARGE naming the shard, never a partial 200 or a 504;
// a GLOBAL IN right side is bounded by maxRowsToTransfer (LIMIT max+1 on the shards, TRANSFER_LIMIT
// 413). Real shard function code over a real embedded engine (chdb, this process; both "shards"
// read the same demo rows, which is all these error paths need), the real planner and runtime.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createEmbeddedAccess } from '../../../shared/adapters/clickhouse/embedded.js';
import type { ClickHouseAccess } from '../../../shared/core/clickhouse/port.js';
import { createShardHandler } from '../../../functions/shard/shard-function.js';
import { DEMO_DDL, DEMO_LOCAL, demoSelect } from '../../../local/demo.js';
import { parseTopology } from '../../../shared/core/config/load.js';
import { planQuery, explainPlan } from '../../../shared/core/plan/index.js';
import { runExplain, runQuery, type PlanFn, type RunDeps } from '../../../shared/core/scatter/run-query.js';
import { createHedgeState } from '../../../shared/core/scatter/hedge.js';
import { InvokeError, type ShardInvoker } from '../../../shared/core/scatter/invoker.js';
import type { ShardRequest } from '../../../shared/core/protocol/shard-wire.js';

process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
const T = 'analytics.sensor_events_dist';
let dir: string;
let ch: ClickHouseAccess;
const sent: ShardRequest[] = [];

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'h10-too-large-'));
  ch = await createEmbeddedAccess({ path: dir });
  for (const ddl of DEMO_DDL) await ch.exec(ddl);
  await ch.exec(`INSERT INTO ${DEMO_LOCAL} ${demoSelect(20_000)}`);
}, 60_000);
afterAll(async () => {
  await ch?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Shard 0's function may return at most `limit0` bytes (Lambda's 6 MB, scaled down); shard 1 the default. */
function deps(limit0: number, query: Record<string, unknown> = {}, invokerOver?: (shard: number) => Promise<never> | undefined): RunDeps {
  const topo = parseTopology({
    cluster: 'c',
    shards: [{ replicas: [{ url: 'http://s0a:8123' }, { url: 'http://s0b:8123' }] }, { replicas: [{ url: 'http://s1:8123' }] }],
    tables: { [T]: { local: DEMO_LOCAL, shardingKey: { column: 'sensor', type: 'String', function: 'xxHash64' } } },
    query: { hedge: { enabled: false }, ...query },
  });
  const fns = [limit0, undefined].map((max, shard) => createShardHandler({ shard, getAccess: async () => ch, ...(max ? { maxResponseBytes: max } : {}) }));
  const invoker: ShardInvoker = {
    invoke: async (shard, payload) => {
      sent.push(payload);
      const over = invokerOver?.(shard);
      if (over) return over;
      return fns[shard]!(payload);
    },
  };
  return { topo, invoker, planQuery: planQuery as PlanFn, explainPlan, hedgeState: createHedgeState(), queryId: 'q' };
}

type ErrBody = { error: { code: string; message: string }; shards?: unknown };

describe('oversized shard partials', () => {
  it('a shard over the response limit -> 413 TOO_LARGE naming it, not a partial answer; no retry on its other replica', async () => {
    sent.length = 0;
    const r = await runQuery({ sql: `SELECT sensor, ts, value FROM ${T}` }, deps(50_000));
    expect(r.status).toBe(413);
    const b = r.body as ErrBody;
    expect(b.error.code).toBe('TOO_LARGE');
    expect(b.error.message).toMatch(/from shard 0 is larger than a shard function may return/);
    expect(b.error.message).toMatch(/exceeds the 50000-byte response limit/);
    expect(b.shards).toMatchObject({ total: 2, succeeded: 1, failed: 1 });
    expect(sent.filter((p) => p.shard === 0)).toHaveLength(1); // replica 1 holds the same rows: not asked
  });

  it('requireComplete does not turn it into 504 INCOMPLETE_RESULT', async () => {
    const r = await runQuery({ sql: `SELECT sensor, ts, value FROM ${T}`, requireComplete: true }, deps(50_000));
    expect(r.status).toBe(413);
    expect((r.body as ErrBody).error.code).toBe('TOO_LARGE');
  });

  it("Lambda's own Function.ResponseSizeTooLarge is the same 413", async () => {
    const d = deps(0, {}, (shard) =>
      shard === 1
        ? Promise.reject(
            new InvokeError('unhandled', 'Response payload size exceeded maximum allowed payload size (6291556 bytes).', 'Function.ResponseSizeTooLarge'),
          )
        : undefined,
    );
    const r = await runQuery({ sql: `SELECT count() AS c FROM ${T}` }, d);
    expect(r.status).toBe(413);
    expect((r.body as ErrBody).error.message).toMatch(/from shard 1 .*Response payload size exceeded/);
  });

  it('a small enough answer still succeeds (the limit is per shard partial)', async () => {
    const r = await runQuery({ sql: `SELECT site, count() AS c FROM ${T} GROUP BY site ORDER BY site` }, deps(50_000));
    expect(r.status).toBe(200);
    expect((r.body as { data: Array<{ c: string }> }).data.reduce((a, x) => a + Number(x.c), 0)).toBe(2 * 20_000);
  });
});

describe('GLOBAL IN right sides', () => {
  const sql = `SELECT count() AS c FROM ${T} WHERE ts GLOBAL IN (SELECT ts FROM ${T} WHERE status = 200)`;

  it('a subquery partial over the response limit: /explain and /query answer 413 TOO_LARGE naming the shard (was 504)', async () => {
    for (const run of [runExplain, runQuery]) {
      const r = await run({ sql }, deps(50_000));
      expect(r.status).toBe(413);
      expect((r.body as ErrBody).error.message).toMatch(/GLOBAL subquery's partial result from shard 0/);
    }
  });

  it('over maxRowsToTransfer -> 413 TRANSFER_LIMIT, and no shard ships more than max+1 rows of it', async () => {
    sent.length = 0;
    const r = await runQuery({ sql }, deps(0, { maxRowsToTransfer: 1000 }));
    expect(r.status).toBe(413);
    expect((r.body as ErrBody).error.code).toBe('TRANSFER_LIMIT');
    const sub = sent.filter((p) => p.sql.includes('SELECT DISTINCT ts'));
    expect(sub.length).toBeGreaterThan(0);
    for (const p of sub) expect(p.sql).toMatch(/LIMIT 1001$/);
  });

  it('under the limit the answer is exact (against the engine itself)', async () => {
    const small = `SELECT count() AS c FROM ${T} WHERE ts GLOBAL IN (SELECT ts FROM ${T} WHERE status = 500)`;
    const r = await runQuery({ sql: small }, deps(0, { maxRowsToTransfer: 1000 }));
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const want = (await ch.query(`SELECT count() AS c FROM ${DEMO_LOCAL} WHERE ts IN (SELECT ts FROM ${DEMO_LOCAL} WHERE status = 500)`)).rows[0]!.c;
    expect((r.body as { data: Array<{ c: string }> }).data[0]!.c).toBe(String(2 * Number(want)));
  });
});
