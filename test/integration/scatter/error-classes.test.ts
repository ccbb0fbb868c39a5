// ClickHouse errors reach the client in the class shared/core/clickhouse/error-codes.ts gives them: the
// query's own faults (FINAL/SAMPLE where the table cannot, column counts, types) are 400 QUERY_ERROR,
// limits the query hit (max_memory_usage, max_rows_to_group_by, TOO_SLOW) 400 LIMIT_EXCEEDED, both
// naming ClickHouse's code and never retried on another replica; a replica's own trouble is retried
// and, when no replica answers, 502; the deadline is a timeout. Real shard function code over a real
// embedded engine (chdb, this process; both shards read the same rows), the real planner and runtime.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oneEngineDeps } from '../../support/one-engine-deps.js';
import { describeQuerySizeLimits } from '../../support/query-size-limits.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createEmbeddedAccess } from '../../../shared/adapters/clickhouse/embedded.js';
import type { ClickHouseAccess } from '../../../shared/core/clickhouse/port.js';
import { CLICKHOUSE_ERROR_CODES } from '../../../shared/core/clickhouse/error-codes.js';
import { DEMO_DDL, DEMO_LOCAL, demoSelect } from '../../../local/demo.js';
import { runQuery, type RunDeps } from '../../../shared/core/scatter/run-query.js';
import { planTwoStage } from '../../../shared/core/plan/two-stage/plan.js';
import { generalSelect } from '../../../shared/core/clickhouse-http/distributed.js';
import { handleClickHouseHttp } from '../../../shared/core/clickhouse-http/handle.js';
import type { ShardRequest } from '../../../shared/core/protocol/shard-wire.js';

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
const deps = (edit?: (p: ShardRequest) => ShardRequest, query: Record<string, unknown> = {}): RunDeps =>
  oneEngineDeps(
    { cluster: 'c', table: T, local: DEMO_LOCAL, shardingKey: { column: 'sensor', type: 'String', function: 'xxHash64' } },
    () => ch,
    sent,
    edit,
    query,
  );

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

describe("overflow modes that truncate ('break', group_by's 'any') are applied on every shard and labelled truncated; 'throw' is a 400 LIMIT_EXCEEDED", () => {
  const L = DEMO_LOCAL;
  // The general path answers them: its final stage is an engine that applies them where ClickHouse's initiator does.
  const general = (): RunDeps => ({ ...deps(), planTwoStage });
  // [setting, the limit it governs, a query over the distributed table counting what it answers, the same over the local table]
  const cases: [string, string, string, string][] = [
    ['read_overflow_mode', 'max_rows_to_read = 1000', `SELECT count() AS c FROM ${T} WHERE value > -1`, `SELECT count() AS c FROM ${L} WHERE value > -1`],
    [
      'group_by_overflow_mode',
      'max_rows_to_group_by = 10',
      `SELECT count() AS c FROM (SELECT sensor FROM ${T} GROUP BY sensor)`,
      `SELECT count() AS c FROM (SELECT sensor FROM ${L} GROUP BY sensor)`,
    ],
    [
      'distinct_overflow_mode',
      'max_rows_in_distinct = 10',
      `SELECT count() AS c FROM (SELECT DISTINCT sensor FROM ${T})`,
      `SELECT count() AS c FROM (SELECT DISTINCT sensor FROM ${L})`,
    ],
  ];

  for (const [mode, limit, sql, local] of cases) {
    it(`${mode}: 'break' cuts on each shard as on one engine, and the answer says truncated (never partial: false)`, async () => {
      const count = async (extra: string) => Number((await ch.query(`${local} SETTINGS max_block_size = 100, max_threads = 1${extra}`)).rows[0]!.c);
      const full = await count('');
      const cut = await count(`, ${limit}, ${mode} = 'break'`);
      expect(cut, `${mode}: ClickHouse itself truncates`).toBeLessThan(full);

      const [limitName, limitValue] = limit.split(' = ') as [string, string];
      const whole = Number(((await runQuery({ sql }, general())).body as { data: { c: string }[] }).data[0]!.c);
      for (const body of [
        { sql, settings: { [limitName]: Number(limitValue), [mode]: 'break', max_block_size: 100, max_threads: 1 } },
        { sql: `${sql} SETTINGS ${limit}, ${mode} = 'break', max_block_size = 100, max_threads = 1` },
      ]) {
        sent.length = 0;
        const r = await runQuery(body, general());
        expect(r.status, JSON.stringify(r.body)).toBe(200);
        const b = r.body as { data: { c: string }[]; partial: boolean; truncated: string[]; path: string };
        // Each shard stops at the limit: the answer holds less than the same query's without it.
        expect(Number(b.data[0]!.c)).toBeLessThan(whole);
        expect(b.partial).toBe(true);
        expect(b.truncated).toEqual([expect.stringContaining(`${mode} = 'break' at ${limitName} = ${limitValue}: each shard and the final stage`)]);
        expect(b.path).toBe('general');
        // The setting and its limit reach every shard's request.
        const leaves = sent.filter((p) => !p.tables);
        expect(leaves.length).toBeGreaterThanOrEqual(2);
        for (const p of leaves) expect([p.settings?.[mode], String(p.settings?.[limitName])]).toEqual(['break', limitValue]);
      }
      // With completeness required it can never be known complete: refused before any shard is asked.
      sent.length = 0;
      const strict = await runQuery({ sql, requireComplete: true, settings: { [limitName]: Number(limitValue), [mode]: 'break' } }, general());
      expect(strict.status, JSON.stringify(strict.body)).toBe(504);
      expect((strict.body as ErrBody).error.code).toBe('INCOMPLETE_RESULT');
      expect((strict.body as ErrBody).error.message).toContain(`${mode} = 'break' may cut the answer`);
      expect(sent).toHaveLength(0);
      // Forced onto the fast path (whose TypeScript merge applies no limit): refused, naming the setting.
      const fast = await runQuery({ sql, settings: { [limitName]: Number(limitValue), [mode]: 'break', ch_scatter_path: 'fast' } }, general());
      expect(fast.status).toBe(400);
      expect((fast.body as ErrBody).error.message).toContain(`${mode} = 'break' on the fast path`);
      const thrown = await runQuery({ sql, settings: { [limitName]: Number(limitValue), [mode]: 'throw', max_block_size: 100 } }, general());
      expect(thrown.status, JSON.stringify(thrown.body)).toBe(400);
      expect((thrown.body as ErrBody).error.code).toBe('LIMIT_EXCEEDED');
    });
  }

  it('sort, set and join: answered on the general path, each shard asked with the mode and its limit, labelled truncated', async () => {
    for (const [mode, limitName, sql] of [
      ['sort_overflow_mode', 'max_rows_to_sort', `SELECT sensor FROM ${T} ORDER BY sensor LIMIT 5`],
      ['set_overflow_mode', 'max_rows_in_set', `SELECT count() AS c FROM ${T} WHERE site IN (SELECT arrayJoin(['ams', 'fra', 'iad', 'sfo', 'syd']))`],
      ['join_overflow_mode', 'max_rows_in_join', `SELECT count() AS c FROM ${T} AS a JOIN (SELECT arrayJoin([200, 500]) AS status) AS b USING status`],
    ] as const) {
      sent.length = 0;
      const r = await runQuery({ sql, settings: { [limitName]: 2, [mode]: 'break' } }, general());
      expect(r.status, `${mode}: ${JSON.stringify(r.body).slice(0, 300)}`).toBe(200);
      const b = r.body as { partial: boolean; truncated: string[] };
      expect([b.partial, b.truncated]).toEqual([true, [expect.stringContaining(`${mode} = 'break' at ${limitName} = 2`)]]);
      expect(sent.length).toBeGreaterThanOrEqual(2);
      for (const p of sent) expect([p.settings?.[mode], p.settings?.[limitName]], mode).toEqual(['break', 2]);
    }
  });

  it("group_by_overflow_mode 'any' is answered on the general path, labelled truncated; the final stage applies it to the merged groups", async () => {
    const r = await runQuery(
      {
        sql: `SELECT sensor, count() AS c FROM ${T} GROUP BY sensor`,
        settings: { max_rows_to_group_by: 10, group_by_overflow_mode: 'any', max_block_size: 100, max_threads: 1 },
      },
      general(),
    );
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const b = r.body as { rows: number; partial: boolean; truncated: string[] };
    const groups = Number((await ch.query(`SELECT uniqExact(sensor) AS u FROM ${L}`)).rows[0]!.u);
    expect(b.rows).toBeLessThan(groups);
    expect(b.partial).toBe(true);
    expect(b.truncated[0]).toContain("group_by_overflow_mode = 'any' at max_rows_to_group_by = 10: each shard and the final stage stop creating groups");
  });

  it('the ClickHouse interface answers the rows as ClickHouse does (its shape, whatever skip_unavailable_shards says), with X-Ch-Scatter-Truncated', async () => {
    const d = general();
    const select = generalSelect({ ...d, planTwoStage });
    const chQuery = (sql: string) =>
      handleClickHouseHttp(
        { method: 'POST', path: '/', query: new URLSearchParams(), headers: {}, body: Buffer.from(sql) },
        {
          topo: d.topo,
          raw: async () => {
            throw new Error('no catalog here');
          },
          select,
        },
      );
    const q = `SELECT sensor, count() AS c FROM ${T} GROUP BY sensor ORDER BY sensor SETTINGS max_rows_to_group_by = 10, group_by_overflow_mode = 'any', max_block_size = 100, max_threads = 1`;
    const r = await chQuery(`${q} FORMAT JSONCompact`);
    expect(r.status, r.body.toString().slice(0, 300)).toBe(200);
    const got = JSON.parse(r.body.toString()) as { meta: unknown; data: unknown[][] };
    const one = JSON.parse((await ch.queryRaw(q.replace(T, L), { format: 'JSONCompact' })).bytes.toString()) as { meta: unknown; data: unknown[][] };
    // The same columns, names and types as one engine's answer under the same mode; fewer groups than the table holds.
    expect(got.meta).toEqual(one.meta);
    const groups = Number((await ch.query(`SELECT uniqExact(sensor) AS u FROM ${L}`)).rows[0]!.u);
    expect(got.data.length).toBeGreaterThan(0);
    expect(got.data.length).toBeLessThan(groups);
    expect(JSON.parse(r.headers['x-ch-scatter-truncated']!)).toEqual([expect.stringContaining("group_by_overflow_mode = 'any' at max_rows_to_group_by = 10")]);
    expect(r.headers['x-ch-scatter-partial']).toBeUndefined();
  });

  it('a SETTINGS clause inside a subquery passes the same rules (it would reach the shard in its SQL)', async () => {
    for (const [sql, msg] of [
      [
        `SELECT count() AS c FROM ${T} WHERE status IN (SELECT arrayJoin([200, 500]) SETTINGS read_overflow_mode = 'break')`,
        "read_overflow_mode = 'break' on the fast path",
      ],
      [`SELECT count() AS c FROM ${T} WHERE status IN (SELECT arrayJoin([200, 500]) SETTINGS readonly = 0)`, 'setting readonly is set by'],
      [`SELECT count() AS c FROM ${T} WHERE status IN (SELECT arrayJoin([200, 500]) SETTINGS max_rows_to_transfer = 5)`, 'applies to the whole query'],
    ] as const) {
      sent.length = 0;
      const r = await runQuery({ sql }, deps());
      expect(r.status, sql).toBe(400);
      expect((r.body as ErrBody).error.message).toContain(msg);
      expect(sent).toHaveLength(0);
    }
    const ok = await runQuery({ sql: `SELECT count() AS c FROM ${T} WHERE status IN (SELECT arrayJoin([200, 500]) SETTINGS max_threads = 1)` }, deps());
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
  });
});

describeQuerySizeLimits(T, 'status', deps, sent);
