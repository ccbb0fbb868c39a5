// ClickHouse errors reach the client in the class core/clickhouse/error-codes.ts gives them: the
// query's own faults (FINAL/SAMPLE where the table cannot, column counts, types) are 400 QUERY_ERROR,
// limits the query hit (max_memory_usage, max_rows_to_group_by, TOO_SLOW) 400 LIMIT_EXCEEDED, both
// naming ClickHouse's code and never retried on another replica; a replica's own trouble is retried
// and, when no replica answers, 502; the deadline is a timeout. Real shard function code over a real
// embedded engine (chdb, this process; both shards read the same rows), the real planner and runtime.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createEmbeddedAccess } from '../../../adapters/clickhouse/embedded.js';
import type { ClickHouseAccess } from '../../../core/clickhouse/port.js';
import { CLICKHOUSE_ERROR_CODES } from '../../../core/clickhouse/error-codes.js';
import { createShardHandler } from '../../../functions/shard/shard-function.js';
import { DEMO_DDL, DEMO_LOCAL, demoSelect } from '../../../local/demo.js';
import { parseTopology } from '../../../core/config/load.js';
import { planQuery, explainPlan } from '../../../core/plan/index.js';
import { runQuery, type PlanFn, type RunDeps } from '../../../core/scatter/run-query.js';
import { createHedgeState } from '../../../core/scatter/hedge.js';
import type { ShardInvoker } from '../../../core/scatter/invoker.js';
import type { ShardRequest } from '../../../core/protocol/shard-wire.js';

process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
const T = 'analytics.sensor_events_dist';
let dir: string;
let ch: ClickHouseAccess;
const sent: ShardRequest[] = [];

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'error-classes-'));
  ch = await createEmbeddedAccess({ path: dir });
  for (const ddl of DEMO_DDL) await ch.exec(ddl);
  await ch.exec(`INSERT INTO ${DEMO_LOCAL} ${demoSelect(20_000)}`);
}, 60_000);
afterAll(async () => {
  await ch?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Two shards of two replicas each over the same engine; `edit` may change a shard request's SQL on its way. */
function deps(edit?: (p: ShardRequest) => ShardRequest): RunDeps {
  const topo = parseTopology({
    cluster: 'c',
    shards: [0, 1].map(() => ({ replicas: [{ url: 'http://a:8123' }, { url: 'http://b:8123' }] })),
    tables: { [T]: { local: DEMO_LOCAL, shardingKey: { column: 'sensor', type: 'String', function: 'xxHash64' } } },
    query: { hedge: { enabled: false } },
  });
  const fns = [0, 1].map((shard) => createShardHandler({ shard, getAccess: async () => ch }));
  const invoker: ShardInvoker = {
    invoke: async (shard, payload) => {
      const p = edit ? edit(payload) : payload;
      sent.push(p);
      return fns[shard]!(p);
    },
  };
  return { topo, invoker, planQuery: planQuery as PlanFn, explainPlan, hedgeState: createHedgeState(), queryId: 'q' };
}

type ErrBody = { error: { code: string; message: string }; clickhouse?: { code: number; name: string }; shards?: { failed: number } };

async function expectClass(body: Record<string, unknown>, code: 'QUERY_ERROR' | 'LIMIT_EXCEEDED', ch: number, name: string, d = deps()) {
  sent.length = 0;
  const r = await runQuery(body, d);
  const b = r.body as ErrBody;
  expect(r.status, JSON.stringify(b)).toBe(400);
  expect(b.error.code).toBe(code);
  expect(b.clickhouse).toEqual({ code: ch, name });
  expect(b.error.message).toContain(`ClickHouse error ${ch} ${name}`);
  // The same on every replica: each shard is asked once, no retry on its other replica.
  expect(sent.filter((p) => p.shard === 0)).toHaveLength(1);
  expect(sent.filter((p) => p.shard === 1)).toHaveLength(1);
}

describe('user errors: 400 QUERY_ERROR naming the ClickHouse code', () => {
  it('FINAL on a table without it (181)', () => expectClass({ sql: `SELECT count() AS c FROM ${T} FINAL` }, 'QUERY_ERROR', 181, 'ILLEGAL_FINAL'));
  it('SAMPLE on a table without a sampling key (141)', () =>
    expectClass({ sql: `SELECT count() AS c FROM ${T} SAMPLE 0.1` }, 'QUERY_ERROR', 141, 'SAMPLING_NOT_SUPPORTED'));
  it('a column-count mismatch in IN (20)', () =>
    expectClass({ sql: `SELECT count() AS c FROM ${T} WHERE status IN (SELECT 1, 2)` }, 'QUERY_ERROR', 20, 'NUMBER_OF_COLUMNS_DOESNT_MATCH'));
  it('an illegal argument type (43)', () => expectClass({ sql: `SELECT sum(sensor) AS c FROM ${T}` }, 'QUERY_ERROR', 43, 'ILLEGAL_TYPE_OF_ARGUMENT'));
  it('throwIf (395)', () => expectClass({ sql: `SELECT throwIf(status = 500) AS c FROM ${T}` }, 'QUERY_ERROR', 395, 'FUNCTION_THROW_IF_VALUE_IS_NON_ZERO'));
});

describe('limits the query hit: 400 LIMIT_EXCEEDED naming the ClickHouse code', () => {
  it('max_memory_usage: 1 (241)', () =>
    expectClass(
      { sql: `SELECT site, count() AS c FROM ${T} GROUP BY site`, settings: { max_memory_usage: 1 } },
      'LIMIT_EXCEEDED',
      241,
      'MEMORY_LIMIT_EXCEEDED',
    ));
  it('max_rows_to_group_by with the throw mode (158)', () =>
    expectClass(
      { sql: `SELECT sensor, count() AS c FROM ${T} GROUP BY sensor`, settings: { max_rows_to_group_by: 10 } },
      'LIMIT_EXCEEDED',
      158,
      'TOO_MANY_ROWS',
    ));
  it('max_rows_to_read (158) and max_bytes_to_read (307)', async () => {
    await expectClass({ sql: `SELECT count() AS c FROM ${T} WHERE value > 1`, settings: { max_rows_to_read: 10 } }, 'LIMIT_EXCEEDED', 158, 'TOO_MANY_ROWS');
    await expectClass({ sql: `SELECT count() AS c FROM ${T} WHERE value > 1`, settings: { max_bytes_to_read: 10 } }, 'LIMIT_EXCEEDED', 307, 'TOO_MANY_BYTES');
  });
  it('TOO_SLOW (160): the engine judged the query too slow, not a late shard (was 504 TIMEOUT)', () =>
    expectClass(
      { sql: `SELECT count() AS c FROM ${T}` },
      'LIMIT_EXCEEDED',
      160,
      'TOO_SLOW',
      deps((p) => ({
        ...p,
        // A scan the engine can measure (a one-block table is done before its first speed check).
        sql: 'SELECT count() AS c FROM numbers(100000000) WHERE number % 7 = 1 SETTINGS min_execution_speed = 100000000000, timeout_before_checking_execution_speed = 0',
      })),
    ));
});

describe("the replica's trouble is not the user's", () => {
  it('a shard-local table missing on the first replica: retried on the second, complete answer', async () => {
    sent.length = 0;
    const r = await runQuery(
      { sql: `SELECT count() AS c FROM ${T}` },
      deps((p) => (p.replica === 0 ? { ...p, sql: p.sql.replace(DEMO_LOCAL, 'analytics.no_such_table') } : p)),
    );
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect((r.body as { partial: boolean }).partial).toBe(false);
    expect(sent.some((p) => p.replica === 1)).toBe(true);
  });

  it('missing on every replica: 502 SHARD_ERROR (code 60 is the shard setup, not the query)', async () => {
    const r = await runQuery(
      { sql: `SELECT count() AS c FROM ${T}` },
      deps((p) => ({ ...p, sql: p.sql.replace(DEMO_LOCAL, 'analytics.no_such_table') })),
    );
    expect(r.status).toBe(502);
    expect((r.body as ErrBody).error.code).toBe('SHARD_ERROR');
  });

  it('the deadline (159 TIMEOUT_EXCEEDED) is a timeout: 504 with requireComplete', async () => {
    const r = await runQuery(
      { sql: `SELECT count() AS c FROM ${T}`, requireComplete: true, timeoutMs: 1200 },
      deps((p) => ({ ...p, sql: 'SELECT count() AS c FROM numbers(100000000000) WHERE sleepEachRow(0) = 0' })),
    );
    expect(r.status, JSON.stringify(r.body)).toBe(504);
    expect((r.body as ErrBody).error.code).toBe('INCOMPLETE_RESULT');
    expect(r.body).toMatchObject({ shards: { timedOut: 2, failed: 0 } });
  });
});

describe('the code table', () => {
  it('names every code as ClickHouse itself does (system.errors)', async () => {
    const codes = [...CLICKHOUSE_ERROR_CODES.keys()];
    const rows = (
      await ch.query(`SELECT DISTINCT code, name FROM system.errors WHERE code IN (${codes.join(', ')}) SETTINGS system_events_show_zero_values = 1`)
    ).rows as { code: number; name: string }[];
    const engine = new Map(rows.map((r) => [Number(r.code), r.name]));
    for (const [code, e] of CLICKHOUSE_ERROR_CODES) expect(`${code} ${engine.get(code)}`).toBe(`${code} ${e.name}`);
  });
});
