// The HTTP adapter against a real Debian clickhouse-server 18.16: results and statistics,
// settings, error codes (including an error in the middle of a streamed body), external tables
// over multipart/form-data, inserts, KILL-based cancel, abort, and connection refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpAccess } from '../../shared/adapters/clickhouse/http.js';
import { createAccess } from '../../shared/adapters/clickhouse/factory.js';
import { encodedOnce } from '../../shared/core/scatter/gather.js';
import { ClickHouseError, type ClickHouseAccess, type ExternalTable } from '../../shared/core/clickhouse/port.js';
import { ADMIN, chRows, useChServers } from '../support/ch-servers.js';

const servers = useChServers({ n: 1, portBase: 19200 });
let ch: ClickHouseAccess;

beforeAll(async () => {
  // The adapter's writes (exec, insert) are tested too: the admin user, not the read-only shard user.
  ch = await createAccess({ url: servers.current.urls[0]! }, ADMIN);
  await ch.exec('CREATE TABLE t (k UInt64, s String, v Int32) ENGINE = MergeTree ORDER BY k');
  await ch.exec("INSERT INTO t SELECT number, concat('s-', toString(number % 10)), toInt32(number % 7) - 3 FROM numbers(100000)");
});
afterAll(async () => {
  await ch?.close();
});

const errorOf = async (p: Promise<unknown>): Promise<ClickHouseError> => {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(ClickHouseError);
  return e as ClickHouseError;
};

describe('HTTP access (clickhouse-server 18.16)', () => {
  it('returns meta, rows (64-bit as strings) and read statistics', async () => {
    const r = await ch.query('SELECT s, count() AS c, sum(v) AS sv FROM t GROUP BY s ORDER BY s LIMIT 2');
    expect(r.meta).toEqual([
      { name: 's', type: 'String' },
      { name: 'c', type: 'UInt64' },
      { name: 'sv', type: 'Int64' },
    ]);
    expect(r.rows[0]).toEqual({ s: 's-0', c: '10000', sv: expect.any(String) });
    expect(r.statistics.rowsRead).toBe(100000);
    expect(r.statistics.bytesRead).toBeGreaterThan(100000);
    expect(r.statistics.elapsedMs).toBeGreaterThan(0);
    expect(ch.describe).not.toMatch(/password/);
  });

  it('passes settings and a query id', async () => {
    const e = await errorOf(ch.query('SELECT k FROM t', { settings: { max_result_rows: 10, result_overflow_mode: 'throw' } }));
    expect(e.chCode).toBe(396);
    const e2 = await errorOf(ch.exec("INSERT INTO t SELECT 1, 'x', 1", { settings: { readonly: 2 } }));
    expect(e2.chCode).toBe(164);
    await ch.query('SELECT 42 AS answer', { queryId: 'h5-http-qid-1', settings: { log_queries: 1 } });
    // 18.16 writes query_log from a background thread: SYSTEM FLUSH LOGS can return before the
    // entry of a query that has just answered is queued. Ask again for a bounded time (5 s).
    const logged = async () => {
      await ch.exec('SYSTEM FLUSH LOGS');
      const seen = await chRows(servers.current.urls[0]!, "SELECT count() AS c FROM system.query_log WHERE query_id = 'h5-http-qid-1'");
      return Number(seen[0]!.c);
    };
    await expect.poll(logged, { timeout: 5000, interval: 200 }).toBeGreaterThan(0);
  });

  it('parses error codes, also from an error in the middle of a 200 body', async () => {
    const e1 = await errorOf(ch.query('SELECT * FROM no_such_table'));
    expect([e1.chCode, e1.kind]).toEqual([60, 'server']);
    expect(e1.message).toMatch(/^Code: 60, e\.displayText\(\) = DB::Exception: Table default\.no_such_table doesn't exist/);
    expect((await errorOf(ch.query('SELEC 1'))).chCode).toBe(62);
    const e3 = await errorOf(ch.query('SELECT number, throwIf(number = 200000) AS x FROM system.numbers', { settings: { max_block_size: 1000 } }));
    expect(e3.chCode).toBe(395);
  });

  it('maps max_execution_time overruns to kind timeout', async () => {
    const e = await errorOf(ch.query('SELECT count() FROM system.numbers', { settings: { max_execution_time: 1, timeout_overflow_mode: 'throw' } }));
    expect([e.chCode, e.kind]).toEqual([159, 'timeout']);
  });

  it('ships external tables as multipart form data (IN, JOIN, empty, long SQL)', async () => {
    const keys: ExternalTable = { name: '_data_k1', columns: [{ name: 'k', type: 'UInt64' }], rows: [{ k: '3' }, { k: 10 }, { k: '18446744073709551615' }] };
    const labels: ExternalTable = {
      name: '_data_l1',
      columns: [
        { name: 'k', type: 'UInt64' },
        { name: 'label', type: 'String' },
      ],
      rows: [
        { k: '3', label: 'o\'neil \\ "x" \n tab\t' },
        { k: '10', label: 'ten' },
      ],
    };
    const r1 = await ch.query('SELECT k FROM t WHERE k GLOBAL IN _data_k1 ORDER BY k', { external: [keys] });
    expect(r1.rows).toEqual([{ k: '3' }, { k: '10' }]);
    const r2 = await ch.query('SELECT k, label FROM t ANY INNER JOIN _data_l1 USING (k) ORDER BY k', { external: [labels] });
    expect(r2.rows).toEqual([
      { k: '3', label: 'o\'neil \\ "x" \n tab\t' },
      { k: '10', label: 'ten' },
    ]);
    const empty: ExternalTable = { name: '_data_e', columns: [{ name: 'k', type: 'UInt64' }], rows: [] };
    const r3 = await ch.query('SELECT count() AS c FROM t WHERE k IN _data_e', { external: [empty] });
    expect(r3.rows).toEqual([{ c: '0' }]);
    const longList = Array.from({ length: 5000 }, (_, i) => String(i * 7)).join(', ');
    const r4 = await ch.query(`SELECT count() AS c FROM t WHERE k IN (${longList}) AND k IN _data_k1`, { external: [keys] });
    expect(r4.rows).toEqual([{ c: '0' }]);
    const e = await errorOf(ch.query('SELECT nope FROM _data_k1', { external: [keys] }));
    expect(e.chCode).toBe(47);
    // Pre-encoded (the coordinator's encodedOnce): the text is shipped, `rows` ignored.
    const pre = encodedOnce(labels);
    expect(pre.rows).toEqual([]);
    expect((await ch.query('SELECT k, label FROM t ANY INNER JOIN _data_l1 USING (k) ORDER BY k', { external: [pre] })).rows).toEqual(r2.rows);
    const preEmpty = encodedOnce(empty);
    expect((await ch.query('SELECT count() AS c FROM t WHERE k IN _data_e', { external: [preEmpty] })).rows).toEqual([{ c: '0' }]);
  });

  it('inserts JSON rows with BigInt and string 64-bit values', async () => {
    await ch.exec('CREATE TABLE ins (a UInt64, b String) ENGINE = Memory');
    await ch.insert('ins', [
      { a: 18446744073709551615n, b: 'x' },
      { a: '5', b: 'y' },
    ]);
    expect((await ch.query('SELECT a, b FROM ins ORDER BY a')).rows).toEqual([
      { a: '5', b: 'y' },
      { a: '18446744073709551615', b: 'x' },
    ]);
  });

  it('cancel(queryId) KILLs the server query; aborting alone leaves it running', async () => {
    const url = servers.current.urls[0]!;
    const running = async (id: string) =>
      Number((await chRows<{ c: string }>(url, `SELECT count() AS c FROM system.processes WHERE query_id = '${id}'`))[0]!.c);
    const elapsedS = async (id: string) => (await chRows<{ e: number }>(url, `SELECT elapsed AS e FROM system.processes WHERE query_id = '${id}'`))[0]?.e ?? -1;
    const ac = new AbortController();
    const p = errorOf(ch.query('SELECT count() FROM system.numbers', { queryId: 'h5-kill-1', signal: ac.signal }));
    await expect.poll(() => running('h5-kill-1'), { timeout: 5000, interval: 25 }).toBe(1);
    ac.abort();
    const abortedAt = await elapsedS('h5-kill-1');
    expect((await p).kind).toBe('aborted');
    // Still running on the server: it goes on well past the abort (-1 would be a query gone).
    await expect.poll(() => elapsedS('h5-kill-1'), { timeout: 5000, interval: 25 }).toBeGreaterThan(abortedAt + 0.3);
    await ch.cancel('h5-kill-1');
    await expect.poll(() => running('h5-kill-1'), { timeout: 5000, interval: 50 }).toBe(0);

    const p2 = errorOf(ch.query('SELECT count() FROM system.numbers', { queryId: 'h5-kill-2' }));
    await expect.poll(() => running('h5-kill-2'), { timeout: 5000, interval: 25 }).toBe(1);
    await ch.cancel('h5-kill-2');
    const e2 = await p2;
    expect(e2.chCode).toBe(394);
    expect(e2.kind).toBe('aborted');
  });

  it('ships any string intact as external data (fast-check)', async () => {
    const { default: fc } = await import('fast-check');
    await fc.assert(
      fc.asyncProperty(fc.array(fc.string({ unit: 'binary', maxLength: 30 }), { minLength: 1, maxLength: 5 }), async (vals) => {
        const t: ExternalTable = {
          name: '_data_p',
          columns: [
            { name: 'i', type: 'UInt32' },
            { name: 'v', type: 'String' },
          ],
          rows: vals.map((v, i) => ({ i, v })),
        };
        const r = await ch.query('SELECT i, v FROM _data_p ORDER BY i', { external: [t] });
        expect(r.rows.map((x) => x.v)).toEqual(vals);
      }),
      { numRuns: 60 },
    );
  });

  it('answers on fresh sockets after the process was busy past the server keep-alive timeout', async () => {
    // Six idle pooled sockets, then the event loop blocked past 18.16's keep_alive_timeout (3 s):
    // the server closed them all unseen, and every one of them fails on reuse.
    const pooled = await Promise.all([1, 2, 3, 4, 5, 6].map((i) => ch.query(`SELECT ${i} AS x`)));
    expect(pooled.map((r) => r.rows[0]!.x)).toEqual([1, 2, 3, 4, 5, 6]);
    const until = Date.now() + 3_600;
    while (Date.now() < until) {} // busy on purpose: no timer or socket event runs meanwhile
    const after = await Promise.all([7, 8].map((i) => ch.query(`SELECT ${i} AS x`)));
    expect(after.map((r) => r.rows[0]!.x)).toEqual([7, 8]);
  });

  it('reports connection refused as kind connection', async () => {
    const dead = createHttpAccess({ url: 'http://127.0.0.1:19299' });
    const e = await errorOf(dead.query('SELECT 1'));
    expect(e.kind).toBe('connection');
    expect(await dead.ping()).toBe(false);
    expect(await ch.ping()).toBe(true);
    await dead.close();
  });
});
