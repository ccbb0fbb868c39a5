// The same error classes against Debian's clickhouse-server 18.16 over HTTP (its error text form:
// `Code: N, e.displayText() = ...`): FINAL and SAMPLE where the table cannot, a column-count
// mismatch, max_memory_usage, TOO_SLOW are 400s naming ClickHouse's code, not 502/504, and not
// retried on another replica. Real shard function code, HTTP adapter, planner and runtime.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oneEngineDeps } from '../support/one-engine-deps.js';
import { describeQuerySizeLimits } from '../support/query-size-limits.js';
import { createHttpAccess } from '../../shared/adapters/clickhouse/http.js';
import type { ClickHouseAccess } from '../../shared/core/clickhouse/port.js';
import { runQuery, type RunDeps } from '../../shared/core/scatter/run-query.js';
import { planTwoStage } from '../../shared/core/plan/two-stage/plan.js';
import type { ShardRequest } from '../../shared/core/protocol/shard-wire.js';
import { chHttp, useChServers } from '../support/ch-servers.js';

process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
const servers = useChServers({ n: 1, portBase: 19300 });
const T = 'default.ev_dist';
let access: ClickHouseAccess;
const sent: ShardRequest[] = [];

beforeAll(async () => {
  const url = servers.current.urls[0]!;
  await chHttp(url, 'CREATE TABLE default.ev (id UInt64, n Int32, s String) ENGINE = MergeTree() ORDER BY id');
  await chHttp(url, 'INSERT INTO default.ev SELECT number, toInt32(number % 100), toString(number) FROM system.numbers LIMIT 200000');
  access = createHttpAccess({ url });
}, 60_000);
afterAll(async () => {
  await access?.close();
});

/** Two shards of two replicas, all the one server; `edit` may change a shard request on its way. */
const deps18 = (edit?: (p: ShardRequest) => ShardRequest, query: Record<string, unknown> = {}): RunDeps =>
  oneEngineDeps(
    { cluster: 'scatter', table: T, local: 'default.ev', shardingKey: { column: 'id', type: 'UInt64', function: 'identity' } },
    () => access,
    sent,
    edit,
    query,
  );

type ErrBody = { error: { code: string; message: string }; clickhouse?: { code: number; name: string } };

async function expectClass(body: Record<string, unknown>, code: string, ch: number, d = deps18()) {
  sent.length = 0;
  const r = await runQuery(body, d);
  const b = r.body as ErrBody;
  expect(r.status, JSON.stringify(b)).toBe(400);
  expect(b.error.code).toBe(code);
  expect(b.clickhouse?.code).toBe(ch);
  expect(b.error.message).toContain(`ClickHouse error ${ch} `);
  expect(b.error.message).toContain('DB::Exception'); // ClickHouse's own words, 18.16's form
  expect(sent).toHaveLength(2); // one request per shard: no replica retry
}

describe('18.16: user errors are 400 QUERY_ERROR with the code', () => {
  it('FINAL (181)', () => expectClass({ sql: `SELECT count() AS c FROM ${T} FINAL` }, 'QUERY_ERROR', 181));
  it('SAMPLE (141)', () => expectClass({ sql: `SELECT count() AS c FROM ${T} SAMPLE 0.1` }, 'QUERY_ERROR', 141));
  it('column count in IN (20)', () => expectClass({ sql: `SELECT count() AS c FROM ${T} WHERE n IN (SELECT 1, 2)` }, 'QUERY_ERROR', 20));
  it('unknown identifier (47)', () => expectClass({ sql: `SELECT count() AS c FROM ${T} WHERE nope = 1` }, 'QUERY_ERROR', 47));
});

describe('18.16: limits are 400 LIMIT_EXCEEDED with the code', () => {
  it('max_memory_usage: 1 (241)', () =>
    expectClass({ sql: `SELECT s, count() AS c FROM ${T} GROUP BY s`, settings: { max_memory_usage: 1 } }, 'LIMIT_EXCEEDED', 241));
  it('max_rows_to_read (158)', () =>
    expectClass({ sql: `SELECT count() AS c FROM ${T} WHERE n > 1`, settings: { max_rows_to_read: 10 } }, 'LIMIT_EXCEEDED', 158));
  it('TOO_SLOW (160), which 18.16 raises from its speed check', () =>
    expectClass(
      { sql: `SELECT count() AS c FROM ${T}` },
      'LIMIT_EXCEEDED',
      160,
      deps18((p) => ({
        ...p,
        sql: 'SELECT count() AS c FROM system.numbers_mt WHERE number % 7 = 1 AND number < 1000000000 SETTINGS min_execution_speed = 100000000000, timeout_before_checking_execution_speed = 0',
      })),
    ));
});

describe("18.16: 'break' is applied on every shard and the final stage, the answer labelled truncated", () => {
  for (const [mode, limit, local, sql] of [
    ['read_overflow_mode', 'max_rows_to_read = 1000', 'SELECT count() FROM default.ev WHERE n > -1', `SELECT count() AS c FROM ${T} WHERE n > -1`],
    [
      'group_by_overflow_mode',
      'max_rows_to_group_by = 10',
      'SELECT count() FROM (SELECT s FROM default.ev GROUP BY s)',
      `SELECT count() AS c FROM (SELECT s FROM ${T} GROUP BY s)`,
    ],
    [
      'distinct_overflow_mode',
      'max_rows_in_distinct = 10',
      'SELECT count() FROM (SELECT DISTINCT s FROM default.ev)',
      `SELECT count() AS c FROM (SELECT DISTINCT s FROM ${T})`,
    ],
  ] as const) {
    it(mode, async () => {
      const url = servers.current.urls[0]!;
      const n = async (extra: string) => Number((await chHttp(url, `${local} SETTINGS max_block_size = 100, max_threads = 1${extra}`)).trim());
      expect(await n(`, ${limit}, ${mode} = 'break'`)).toBeLessThan(await n(''));
      const general = (): RunDeps => ({ ...deps18(), planTwoStage });
      const whole = Number(((await runQuery({ sql }, general())).body as { data: { c: string }[] }).data[0]!.c);
      sent.length = 0;
      const r = await runQuery({ sql: `${sql} SETTINGS ${limit}, ${mode} = 'break', max_block_size = 100, max_threads = 1` }, general());
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      const b = r.body as { data: { c: string }[]; partial: boolean; truncated: string[] };
      expect(Number(b.data[0]!.c)).toBeLessThan(whole);
      expect([b.partial, b.truncated.length]).toEqual([true, 1]);
      expect(b.truncated[0]).toContain(`${mode} = 'break' at ${limit}`);
      const [limitName, limitValue] = limit.split(' = ') as [string, string];
      for (const p of sent) expect([p.settings?.[mode], String(p.settings?.[limitName])]).toEqual(['break', limitValue]);
      // 'throw' stays a 400 LIMIT_EXCEEDED with 18.16's code.
      const thrown = await runQuery({ sql: `${sql} SETTINGS ${limit}, ${mode} = 'throw', max_block_size = 100` }, general());
      expect(thrown.status, JSON.stringify(thrown.body)).toBe(400);
      expect((thrown.body as ErrBody).error.code).toBe('LIMIT_EXCEEDED');
    });
  }
});

describeQuerySizeLimits(T, 'n', deps18, sent);
