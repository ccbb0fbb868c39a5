// The shard's deadline on a real clickhouse-server 18.16: when the deadline passes before the
// server's own max_execution_time would fire, the shard KILLs the server query. Proven with
// system.processes (gone right after the deadline) and system.query_log (ended by a cancel,
// code 394, not by the server's timeout 159).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpAccess } from '../../shared/adapters/clickhouse/http.js';
import type { ClickHouseAccess } from '../../shared/core/clickhouse/port.js';
import { executeShardRequest } from '../../shared/core/shard/execute.js';
import type { ShardFailure, ShardRequest, ShardSuccess } from '../../shared/core/protocol/shard-wire.js';
import { ADMIN, chRows, useChServers } from '../support/ch-servers.js';

const servers = useChServers({ n: 1, portBase: 19210 });
let ch: ClickHouseAccess;
const now = () => Date.now();

beforeAll(() => {
  // Admin requests (exec, insert) are served here too: the admin user, not the read-only shard user.
  ch = createHttpAccess({ url: servers.current.urls[0]!, ...ADMIN });
});
afterAll(async () => {
  await ch?.close();
});

const req = (over: Partial<ShardRequest>): ShardRequest => ({
  type: 'query',
  queryId: 'q',
  shard: 0,
  replica: 0,
  sql: 'SELECT 1 AS one',
  deadline: Date.now() + 5000,
  settings: { log_queries: 1 },
  external: [],
  attempt: 'primary',
  ...over,
});

describe('shard execution on clickhouse-server 18.16', () => {
  it('answers a query with 64-bit strings and statistics', async () => {
    const r = (await executeShardRequest(req({ sql: 'SELECT count() AS c, sum(number) AS s FROM numbers(1000)' }), ch, { now })) as ShardSuccess;
    expect(r.ok).toBe(true);
    expect(r.rows).toEqual([{ c: '1000', s: '499500' }]);
    expect(r.statistics.rowsRead).toBe(1000);
  });

  it('refuses writes (readonly=2) even if the request tries readonly=0', async () => {
    await ch.exec('CREATE TABLE w (a UInt8) ENGINE = Memory');
    const r = (await executeShardRequest(req({ sql: 'INSERT INTO w SELECT 1', settings: { readonly: 0 } }), ch, { now })) as ShardFailure;
    expect(r.ok).toBe(false);
    expect(r.error.kind).toBe('error');
    const r2 = (await executeShardRequest(req({ sql: 'SELECT 1 AS one', settings: { readonly: 0, max_execution_time: 0 } }), ch, { now })) as ShardSuccess;
    expect(r2.ok).toBe(true); // request settings for enforced names are overridden, not honoured
    expect(await chRows(servers.current.urls[0]!, 'SELECT count() AS c FROM w')).toEqual([{ c: '0' }]);
  });

  it('KILLs the server query at the deadline (processes + query_log prove it stopped)', async () => {
    const url = servers.current.urls[0]!;
    let chQueryId = '';
    const t0 = Date.now();
    // deadline in 1.2 s -> max_execution_time = 2 s: only the shard's KILL can stop it at 1.2 s.
    const r = (await executeShardRequest(req({ queryId: 'q-kill', sql: 'SELECT count() AS c FROM system.numbers', deadline: t0 + 1200 }), ch, {
      now,
      onEvent: (e) => {
        if (e.event === 'start') chQueryId = e.chQueryId;
      },
    })) as ShardFailure;
    const answeredAfter = Date.now() - t0;
    expect(r.ok).toBe(false);
    expect(r.error.kind).toBe('timeout');
    expect(answeredAfter).toBeGreaterThanOrEqual(1190);
    expect(answeredAfter).toBeLessThan(1500);
    expect(chQueryId).toMatch(/^q-kill-/);
    const running = async () => Number((await chRows<{ c: string }>(url, `SELECT count() AS c FROM system.processes WHERE query_id = '${chQueryId}'`))[0]!.c);
    await expect.poll(running, { timeout: 600, interval: 25 }).toBe(0);
    const stoppedBy = Date.now() - t0;
    expect(stoppedBy).toBeLessThan(1900); // before the server's own 2 s limit could have fired
    // The log entry is written as the killed query unwinds, which may be just after it leaves
    // system.processes: flush and look again for a moment.
    let log: { t: string; exception: string; ms: string }[] = [];
    const t2 = Date.now();
    do {
      await ch.exec('SYSTEM FLUSH LOGS');
      log = await chRows<{ t: string; exception: string; ms: string }>(
        url,
        `SELECT toString(type) AS t, exception, query_duration_ms AS ms FROM system.query_log WHERE query_id = '${chQueryId}' AND exception != ''`,
      );
    } while (log.length === 0 && Date.now() - t2 < 3000);
    expect(log).toHaveLength(1);
    expect(log[0]!.exception).toMatch(/Code: 394/);
    expect(Number(log[0]!.ms)).toBeLessThan(1900);
  });

  it('refuses SQL whose own SETTINGS clause would override the enforced limits', async () => {
    for (const sql of [
      'SELECT count() FROM system.numbers SETTINGS max_execution_time = 1000',
      "SELECT count() FROM system.numbers SETTINGS max_threads = 1, timeout_overflow_mode = 'break'",
      'SELECT 1 settings readonly=0',
    ]) {
      const r = (await executeShardRequest(req({ sql }), ch, { now })) as ShardFailure;
      expect(r.error.code).toBe('BAD_REQUEST');
    }
    // A column that happens to share a name is not a setting.
    const ok = (await executeShardRequest(req({ sql: 'SELECT 1 AS readonly WHERE readonly = 1' }), ch, { now })) as ShardSuccess;
    expect(ok.rows).toEqual([{ readonly: 1 }]);
  });

  it('reports a replica that is down as unavailable', async () => {
    const dead = createHttpAccess({ url: 'http://127.0.0.1:19298' });
    const r = (await executeShardRequest(req({}), dead, { now })) as ShardFailure;
    expect(r.error.kind).toBe('unavailable');
    await dead.close();
  });
});

describe('a kept stage on clickhouse-server 18.16 (the final stage shard keeps its own rows)', () => {
  const FORMAT = 'TabSeparatedWithNamesAndTypes';
  const stateSql = 'SELECT number % 3 AS k, uniqState(number) AS u FROM numbers(1000) GROUP BY k';
  const header = (r: ShardSuccess) => Buffer.from(r.raw!, 'base64').toString('utf8');

  it('keeps the rows in a session and answers with the header and the row count', async () => {
    const r = (await executeShardRequest(req({ sql: stateSql, format: FORMAT, keep: { table: '_stage0', until: Date.now() + 5000 } }), ch, {
      now,
    })) as ShardSuccess;
    expect(r.ok).toBe(true);
    expect(header(r)).toBe('k\tu\nUInt8\tAggregateFunction(uniq, UInt64)\n');
    expect(r.kept).toEqual({ session: expect.stringMatching(/^chs-/), rows: 3 });
    // The final stage in that session: the kept rows plus shipped ones (another "shard"'s, here the
    // same query's TabSeparated), merged where they were kept.
    const shipped = await ch.queryRaw(stateSql, { format: 'TabSeparated' });
    const fin = (await executeShardRequest(
      req({
        sql: 'SELECT k, uniqMerge(u) AS n, count() AS parts FROM _stage0 GROUP BY k ORDER BY k',
        format: 'TabSeparated',
        session: r.kept!.session,
        tables: [
          {
            name: '_stage0',
            columns: [
              { name: 'k', type: 'UInt8' },
              { name: 'u', type: 'AggregateFunction(uniq, UInt64)' },
            ],
            tsvBase64: shipped.bytes.toString('base64'),
            kept: true,
          },
        ],
      }),
      ch,
      { now },
    )) as ShardSuccess;
    expect(fin.ok).toBe(true);
    expect(header(fin)).toBe('0\t334\t2\n1\t333\t2\n2\t333\t2\n');
  });

  it('a session that is gone is KEPT_LOST (unavailable), never a query error', async () => {
    const r = (await executeShardRequest(
      req({
        sql: 'SELECT count() FROM _stage0',
        format: 'TabSeparated',
        session: 'chs-00000000-0000-4000-8000-000000000000',
        tables: [{ name: '_stage0', columns: [{ name: 'k', type: 'UInt8' }], tsvBase64: '', kept: true }],
      }),
      ch,
      { now },
    )) as ShardFailure;
    expect(r.ok).toBe(false);
    expect(r.error).toEqual(expect.objectContaining({ kind: 'unavailable', code: 'KEPT_LOST' }));
    expect(r.error.chCode).toBeUndefined();
  });

  it('with shipped external data it answers as without keep (18.16 does not read external data in CREATE ... AS SELECT)', async () => {
    const r = (await executeShardRequest(
      req({
        sql: 'SELECT count() AS c FROM numbers(10) WHERE number IN _data_1',
        format: FORMAT,
        keep: { table: '_stage0', until: Date.now() + 5000 },
        external: [{ name: '_data_1', columns: [{ name: 'c1', type: 'UInt64' }], rows: [{ c1: 3 }, { c1: 4 }] }],
      }),
      ch,
      { now },
    )) as ShardSuccess;
    expect(r.ok).toBe(true);
    expect(r.kept).toBeUndefined();
    expect(header(r)).toBe('c\nUInt64\n2\n');
  });

  it('a server that refuses to keep (two columns of one name: a SELECT allows it, a table does not) gets the query as without keep', async () => {
    const r = (await executeShardRequest(
      req({ sql: 'SELECT number, number FROM numbers(2)', format: FORMAT, keep: { table: '_stage0', until: Date.now() + 5000 } }),
      ch,
      { now },
    )) as ShardSuccess;
    expect(r.ok).toBe(true);
    expect(r.kept).toBeUndefined();
    expect(header(r)).toBe('number\tnumber\nUInt64\tUInt64\n0\t0\n1\t1\n');
    // A query error is still the query's, from the query itself.
    const bad = (await executeShardRequest(
      req({ sql: 'SELECT no_such_column FROM numbers(2)', format: FORMAT, keep: { table: '_stage0', until: Date.now() + 5000 } }),
      ch,
      { now },
    )) as ShardFailure;
    expect(bad.ok).toBe(false);
    expect(bad.error.chCode).toBe(47);
  });

  it('a keep with a malformed table name or session id is refused before ClickHouse', async () => {
    const bad = [
      req({ format: FORMAT, keep: { table: 'x; DROP TABLE y', until: Date.now() + 5000 } }),
      req({ format: 'TabSeparated', session: 'chs-1&readonly=0' }),
    ];
    for (const b of bad) {
      const r = (await executeShardRequest(b, ch, { now })) as ShardFailure;
      expect(r.error.code).toBe('BAD_REQUEST');
    }
  });
});

describe('a RowBinary answer with its header from DESCRIBE on clickhouse-server 18.16', () => {
  const sql = "SELECT uniqState(number) AS `a\tb`, any(toDateTime(number, 'Europe/Berlin')) AS `t'q`, count() AS c FROM numbers(10)";

  it("is the TabSeparatedWithNamesAndTypes header byte for byte, then the engine's RowBinary row", async () => {
    const tsv = (await ch.queryRaw(sql, { format: 'TabSeparatedWithNamesAndTypes' })).bytes;
    const header = tsv.subarray(0, tsv.indexOf(0x0a, tsv.indexOf(0x0a) + 1) + 1);
    expect(header.toString()).toBe("a\\tb\tt\\'q\tc\nAggregateFunction(uniq, UInt64)\tDateTime(\\'Europe/Berlin\\')\tUInt64\n");
    const r = (await executeShardRequest(req({ sql, format: 'RowBinary', describe: true }), ch, { now })) as ShardSuccess;
    expect(r.ok).toBe(true);
    const raw = Buffer.from(r.raw!, 'base64');
    expect(raw.subarray(0, header.length).equals(header)).toBe(true);
    const row = (await ch.queryRaw(sql, { format: 'RowBinary' })).bytes;
    expect(raw.subarray(header.length).equals(row)).toBe(true);
  });

  it('RowBinary rows of two shards go into a stage table and merge like one query', async () => {
    const half = (from: number) => `SELECT uniqState(number) AS u, sumState(number) AS s FROM numbers(${from}, 500)`;
    const rows = Buffer.concat([(await ch.queryRaw(half(0), { format: 'RowBinary' })).bytes, (await ch.queryRaw(half(500), { format: 'RowBinary' })).bytes]);
    const r = await ch.queryRaw('SELECT uniqMerge(u), sumMerge(s) FROM _stage0', {
      format: 'TabSeparated',
      settings: { readonly: 2 },
      tables: [
        {
          name: '_stage0',
          columns: [
            { name: 'u', type: 'AggregateFunction(uniq, UInt64)' },
            { name: 's', type: 'AggregateFunction(sum, UInt64)' },
          ],
          data: rows,
          format: 'RowBinary',
        },
      ],
    });
    expect(r.bytes.toString()).toBe((await ch.queryRaw('SELECT uniq(number), sum(number) FROM numbers(1000)', { format: 'TabSeparated' })).bytes.toString());
  });
});
