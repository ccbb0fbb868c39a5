// executeShardRequest against a real embedded engine (chdb, in this test process): validation,
// deadlines, read-only enforcement, settings the request cannot override, external tables,
// admin gating, oversized results. A fast-check property: no payload shape crashes it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createEmbeddedAccess } from '../../../shared/adapters/clickhouse/embedded.js';
import type { ClickHouseAccess } from '../../../shared/core/clickhouse/port.js';
import { executeShardRequest } from '../../../shared/core/shard/execute.js';
import type { ShardFailure, ShardRequest, ShardSuccess } from '../../../shared/core/protocol/shard-wire.js';

let dir: string;
let ch: ClickHouseAccess;
const now = () => Date.now();

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'h5-shard-exec-'));
  ch = await createEmbeddedAccess({ path: dir });
  await ch.exec('CREATE TABLE ev (sensor String, v UInt64) ENGINE = MergeTree ORDER BY sensor');
  await ch.exec("INSERT INTO ev SELECT concat('s-', toString(number % 5)), number FROM numbers(1000)");
});
afterAll(async () => {
  await ch?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const req = (over: Partial<ShardRequest> = {}): ShardRequest => ({
  type: 'query',
  queryId: 'q-1',
  shard: 2,
  replica: 1,
  sql: 'SELECT sensor, count() AS c, sum(v) AS s FROM ev GROUP BY sensor ORDER BY sensor',
  deadline: Date.now() + 5000,
  settings: {},
  external: [],
  attempt: 'primary',
  ...over,
});

describe('executeShardRequest', () => {
  it('answers with rows, meta and statistics', async () => {
    const r = (await executeShardRequest(req(), ch, { now })) as ShardSuccess;
    expect(r.ok).toBe(true);
    expect([r.shard, r.replica]).toEqual([2, 1]);
    expect(r.meta.map((m) => m.type)).toEqual(['String', 'UInt64', 'UInt64']);
    expect(r.rows[0]).toEqual({ sensor: 's-0', c: '200', s: String(Array.from({ length: 200 }, (_, i) => i * 5).reduce((a, b) => a + b)) });
    expect(r.statistics.rowsRead).toBe(1000);
    expect(r.statistics.elapsedMs).toBeGreaterThanOrEqual(0);
  });

  it('reads shipped external tables', async () => {
    const r = (await executeShardRequest(
      req({
        sql: 'SELECT sensor, count() AS c FROM ev WHERE sensor GLOBAL IN _data_ab12 GROUP BY sensor ORDER BY sensor',
        external: [{ name: '_data_ab12', columns: [{ name: 'sensor', type: 'String' }], rows: [{ sensor: 's-1' }, { sensor: 's-3' }] }],
      }),
      ch,
      { now },
    )) as ShardSuccess;
    expect(r.rows).toEqual([
      { sensor: 's-1', c: '200' },
      { sensor: 's-3', c: '200' },
    ]);
  });

  it('refuses malformed requests with a typed failure', async () => {
    const bad = [
      null,
      42,
      'x',
      {},
      { ...req(), sql: '' },
      { ...req(), deadline: 'soon' },
      { ...req(), settings: { 'max threads': 1 } },
      { ...req(), type: 'drop' },
      { ...req(), external: [{ name: 'x; DROP', columns: [], rows: [] }] },
    ];
    for (const b of bad) {
      const r = (await executeShardRequest(b, ch, { now })) as ShardFailure;
      expect(r.ok).toBe(false);
      expect(r.error.kind).toBe('error');
      expect(r.error.code).toBe('BAD_REQUEST');
    }
    const r = (await executeShardRequest({ ...req(), sql: 7 }, ch, { now })) as ShardFailure;
    expect([r.shard, r.replica]).toEqual([2, 1]);
  });

  it('never crashes, whatever the payload (fast-check)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.anything(), async (payload) => {
        const r = await executeShardRequest(payload, ch, { now });
        expect(r.ok).toBe(false);
        expect(['error', 'timeout']).toContain((r as ShardFailure).error.kind);
      }),
      { numRuns: 200 },
    );
  });

  it('refuses a request whose deadline has passed without running it', async () => {
    let called = false;
    const spy: ClickHouseAccess = {
      ...ch,
      query: async (...a) => {
        called = true;
        return ch.query(...a);
      },
    };
    const r = (await executeShardRequest(req({ deadline: Date.now() - 10 }), spy, { now })) as ShardFailure;
    expect(r.error.kind).toBe('timeout');
    expect(called).toBe(false);
  });

  it('stops at the deadline with kind timeout (never a truncated success)', async () => {
    const t0 = Date.now();
    const r = (await executeShardRequest(req({ sql: 'SELECT count() AS c FROM numbers(100000000000)', deadline: Date.now() + 400 }), ch, {
      now,
    })) as ShardFailure;
    expect(r.ok).toBe(false);
    expect(r.error.kind).toBe('timeout');
    expect(Date.now() - t0).toBeLessThan(1500);
  });

  it('runs reads only: writes are refused even when the request asks for readonly=0', async () => {
    const r = (await executeShardRequest(
      req({ sql: "INSERT INTO ev SELECT 'evil', 1", settings: { readonly: 0, max_execution_time: 0, timeout_overflow_mode: 'break' } }),
      ch,
      { now },
    )) as ShardFailure;
    expect(r.ok).toBe(false);
    expect(r.error.kind).toBe('error');
    expect(r.error.chCode).toBe(164);
    const count = await ch.query("SELECT count() AS c FROM ev WHERE sensor = 'evil'");
    expect(count.rows).toEqual([{ c: '0' }]);
    // break would truncate; the shard forces throw, so an overrun is an error, not a short result.
    const r2 = (await executeShardRequest(
      req({ sql: 'SELECT count() AS c FROM numbers(100000000000)', deadline: Date.now() + 900, settings: { timeout_overflow_mode: 'break' } }),
      ch,
      { now },
    )) as ShardFailure;
    expect(r2.ok).toBe(false);
    expect(r2.error.kind).toBe('timeout');
  });

  it("runs the truncating overflow modes the coordinator labels (read, group_by, set, ...); refuses any other mode that is not 'throw'", async () => {
    for (const settings of [{ read_overflow_mode: 'break' }, { group_by_overflow_mode: 'any' }, { set_overflow_mode: 'break' }] as Record<string, string>[]) {
      const ok = (await executeShardRequest(req({ settings }), ch, { now })) as ShardSuccess;
      expect(ok.ok, JSON.stringify(settings)).toBe(true);
    }
    const cases: Record<string, string>[] = [{ read_overflow_mode_leaf: 'break' }, { result_overflow_mode: 'break' }];
    for (const settings of cases) {
      const r = (await executeShardRequest(req({ settings }), ch, { now })) as ShardFailure;
      expect(r.ok, JSON.stringify(settings)).toBe(false);
      expect(r.error).toMatchObject({ kind: 'error', code: 'BAD_REQUEST' });
      expect(r.error.message).toMatch(/would truncate the partial silently/);
    }
    const ok = (await executeShardRequest(req({ settings: { read_overflow_mode: 'throw' } }), ch, { now })) as ShardSuccess;
    expect(ok.ok).toBe(true);
  });

  it('passes ClickHouse errors with their code', async () => {
    const r = (await executeShardRequest(req({ sql: 'SELECT * FROM nope' }), ch, { now })) as ShardFailure;
    expect(r.error).toMatchObject({ kind: 'error', chCode: 60, code: 'SHARD_ERROR' });
  });

  it('serves admin exec/insert only when allowed', async () => {
    const admin = { type: 'exec', queryId: 'a1', shard: 0, replica: 0, sql: 'CREATE TABLE adm (a UInt8) ENGINE = Memory', deadline: Date.now() + 5000 };
    const refused = (await executeShardRequest(admin, ch, { now })) as ShardFailure;
    expect(refused.error.code).toBe('NOT_READ_ONLY');
    expect((await executeShardRequest(admin, ch, { now, allowAdmin: true })).ok).toBe(true);
    const ins = { type: 'insert', queryId: 'a2', shard: 0, replica: 0, table: 'adm', rows: [{ a: 1 }, { a: 2 }], deadline: Date.now() + 5000 };
    const r = (await executeShardRequest(ins, ch, { now, allowAdmin: true })) as ShardSuccess;
    expect(r.rows).toEqual([{ inserted: '2' }]);
    expect((await ch.query('SELECT sum(a) AS s FROM adm')).rows).toEqual([{ s: '3' }]);
  });

  it('refuses an oversized result instead of sending it', async () => {
    const r = (await executeShardRequest(req({ sql: "SELECT number, repeat('x', 100) AS pad FROM numbers(20000)" }), ch, {
      now,
      maxResponseBytes: 100_000,
    })) as ShardFailure;
    expect(r.error.code).toBe('TOO_LARGE');
  });

  it('reports an outside cancel as kind cancelled', async () => {
    const ac = new AbortController();
    const p = executeShardRequest(req({ sql: 'SELECT count() AS c FROM numbers(100000000000)', deadline: Date.now() + 3000 }), ch, { now, signal: ac.signal });
    setTimeout(() => ac.abort(), 100);
    const r = (await p) as ShardFailure;
    expect(r.error.kind).toBe('cancelled');
  });
});
