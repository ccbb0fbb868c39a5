// The chdb adapter against the real embedded engine: results, meta, read statistics, settings,
// error codes, external tables, the one-directory guard, and queue cancellation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createEmbeddedAccess } from '../../../shared/adapters/clickhouse/embedded.js';
import { encodedOnce } from '../../../shared/core/scatter/gather.js';
import { ClickHouseError, type ClickHouseAccess, type ExternalTable } from '../../../shared/core/clickhouse/port.js';

let dir: string;
let ch: ClickHouseAccess;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'h5-embedded-'));
  ch = await createEmbeddedAccess({ path: dir });
  await ch.exec('CREATE TABLE t (k UInt64, s String, v Int32) ENGINE = MergeTree ORDER BY k');
  await ch.exec("INSERT INTO t SELECT number, concat('s-', toString(number % 10)), toInt32(number % 7) - 3 FROM numbers(100000)");
});

afterAll(async () => {
  await ch?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('embedded access (chdb)', () => {
  it('returns meta, rows with 64-bit integers as strings, and read statistics', async () => {
    const r = await ch.query('SELECT s, count() AS c, sum(v) AS sv FROM t GROUP BY s ORDER BY s LIMIT 3');
    expect(r.meta).toEqual([
      { name: 's', type: 'String' },
      { name: 'c', type: 'UInt64' },
      { name: 'sv', type: 'Int64' },
    ]);
    expect(r.rows[0]).toEqual({ s: 's-0', c: '10000', sv: expect.any(String) });
    expect(r.statistics.rowsRead).toBe(100000);
    expect(r.statistics.bytesRead).toBeGreaterThan(100000);
    expect(r.statistics.elapsedMs).toBeGreaterThan(0);
  });

  it('inserts JSON rows, taking 64-bit values as strings or bigints', async () => {
    await ch.exec('CREATE TABLE ins (a UInt64, b String) ENGINE = Memory');
    await ch.insert('ins', [
      { a: '18446744073709551615', b: 'it\'s \\ "q"' },
      { a: 5n, b: 'x' },
    ]);
    const r = await ch.query('SELECT a, b FROM ins ORDER BY a');
    expect(r.rows).toEqual([
      { a: '5', b: 'x' },
      { a: '18446744073709551615', b: 'it\'s \\ "q"' },
    ]);
  });

  it('applies settings as a SETTINGS clause (max_execution_time throws a timeout)', async () => {
    const err = await ch
      .query('SELECT count() FROM numbers(100000000000)', { settings: { max_execution_time: 1, timeout_overflow_mode: 'throw' } })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ClickHouseError);
    expect((err as ClickHouseError).chCode).toBe(159);
    expect((err as ClickHouseError).kind).toBe('timeout');
  });

  it('refuses writes under readonly=2', async () => {
    const err = await ch.exec("INSERT INTO t SELECT 1, 'x', 1", { settings: { readonly: 2 } }).catch((e: unknown) => e);
    expect((err as ClickHouseError).chCode).toBe(164);
  });

  it('stops at an absolute deadline to the millisecond, counting time spent queued', async () => {
    const t0 = Date.now();
    const e = (await ch.query('SELECT count() FROM numbers(100000000000)', { deadline: t0 + 300 }).catch((x: unknown) => x)) as ClickHouseError;
    expect([e.kind, e.chCode]).toEqual(['timeout', 159]);
    expect(Date.now() - t0).toBeLessThan(800); // a whole-second max_execution_time would take >= 1000
    const blocker = ch.query('SELECT count() FROM numbers(100000000000)', { deadline: Date.now() + 400 }).catch(() => undefined);
    const queued = (await ch.query('SELECT 1', { deadline: Date.now() + 100 }).catch((x: unknown) => x)) as ClickHouseError;
    expect(queued.kind).toBe('timeout');
    expect(queued.chCode).toBeUndefined(); // refused before running, not stopped by the engine
    await blocker;
  });

  it('parses error codes into ClickHouseError', async () => {
    const e1 = (await ch.query('SELECT * FROM no_such_table').catch((e: unknown) => e)) as ClickHouseError;
    expect(e1).toBeInstanceOf(ClickHouseError);
    expect(e1.chCode).toBe(60);
    expect(e1.kind).toBe('server');
    const e2 = (await ch.query('SELEC 1').catch((e: unknown) => e)) as ClickHouseError;
    expect(e2.chCode).toBe(62);
  });

  it('makes external tables readable under their name for one query (IN, JOIN, empty, tricky strings)', async () => {
    const keys: ExternalTable = {
      name: '_data_abc123',
      columns: [
        { name: 'k', type: 'UInt64' },
        { name: 'label', type: 'String' },
      ],
      rows: [
        { k: '3', label: 'o\'neil \\ "x"' },
        { k: '10', label: 'ten' },
        { k: '999999999', label: 'none' },
      ],
    };
    const ks: ExternalTable = { name: '_data_keys', columns: [{ name: 'k', type: 'UInt64' }], rows: [{ k: '3' }, { k: 10 }, { k: '999999999' }] };
    const r1 = await ch.query('SELECT k FROM t WHERE k GLOBAL IN _data_keys ORDER BY k', { external: [ks] });
    expect(r1.rows).toEqual([{ k: '3' }, { k: '10' }]);
    const r2 = await ch.query('SELECT t.k AS k, _data_abc123.label AS label FROM t INNER JOIN _data_abc123 ON t.k = _data_abc123.k ORDER BY k', {
      external: [keys],
    });
    expect(r2.rows).toEqual([
      { k: '3', label: 'o\'neil \\ "x"' },
      { k: '10', label: 'ten' },
    ]);
    const r3 = await ch.query("SELECT count() AS c FROM t AS x GLOBAL ANY LEFT JOIN _data_abc123 AS d USING (k) WHERE d.label = 'ten'", {
      external: [keys],
    });
    expect(r3.rows).toEqual([{ c: '1' }]);
    const empty: ExternalTable = { name: '_data_empty', columns: [{ name: 'k', type: 'UInt64' }], rows: [] };
    const r4 = await ch.query("SELECT count() AS c FROM t WHERE k IN _data_empty AND s != '_data_empty'", { external: [empty] });
    expect(r4.rows).toEqual([{ c: '0' }]);
    // Pre-encoded (the coordinator's encodedOnce): the text is inlined, `rows` ignored.
    const pre = encodedOnce(keys);
    expect(pre.rows).toEqual([]);
    expect(
      (await ch.query('SELECT t.k AS k, _data_abc123.label AS label FROM t INNER JOIN _data_abc123 ON t.k = _data_abc123.k ORDER BY k', { external: [pre] }))
        .rows,
    ).toEqual(r2.rows);
    expect((await ch.query('SELECT count() AS c FROM t WHERE k IN _data_empty', { external: [encodedOnce(empty)] })).rows).toEqual([{ c: '0' }]);
  });

  it("does not leak a failed query's output into the next result", async () => {
    await ch.query('SELECT throwIf(number = 5) AS x FROM numbers(10)').catch(() => undefined);
    expect((await ch.query('SELECT 7 AS seven')).rows).toEqual([{ seven: 7 }]);
  });

  it('guards against a second data directory in one process', async () => {
    const other = fs.mkdtempSync(path.join(os.tmpdir(), 'h5-other-'));
    const err = await createEmbeddedAccess({ path: other }).catch((e: unknown) => e);
    expect(String((err as Error).message)).toMatch(/one data directory per process/);
    const raced = await Promise.allSettled([createEmbeddedAccess({ path: other }), createEmbeddedAccess({ path: dir })]);
    expect(raced[0].status).toBe('rejected');
    if (raced[1].status === 'fulfilled') await raced[1].value.close();
    // The same directory again shares the session.
    const again = await createEmbeddedAccess({ path: dir });
    expect((await again.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    await again.close();
    expect((await ch.query('SELECT 2 AS two')).rows).toEqual([{ two: 2 }]);
  });

  it('cancels a query still waiting for the engine, and honours an aborted signal', async () => {
    const slow = ch.query('SELECT sleep(0.5) AS z', { queryId: 'slow-1' });
    const queued = ch.query('SELECT 1 AS one', { queryId: 'queued-1' });
    await ch.cancel('queued-1');
    const qe = (await queued.catch((e: unknown) => e)) as ClickHouseError;
    expect(qe.kind).toBe('aborted');
    expect((await slow).rows).toEqual([{ z: 0 }]);
    const ac = new AbortController();
    ac.abort();
    const ae = (await ch.query('SELECT 1', { signal: ac.signal }).catch((e: unknown) => e)) as ClickHouseError;
    expect(ae.kind).toBe('aborted');
    expect(await ch.ping()).toBe(true);
  });
});

describe('quoting against the real engine (fast-check)', () => {
  it('NUL and other control characters survive in shipped external data (chdb ends query text at a raw NUL)', async () => {
    const values = ['a\0b', '\0', 'x\x01\x1f\x7fy', "it's\\\n"];
    const t: ExternalTable = { name: '_data_nul', columns: [{ name: 'v', type: 'String' }], rows: values.map((v) => ({ v })) };
    const r = await ch.query('SELECT v FROM _data_nul', { external: [t] });
    expect(r.rows).toEqual(values.map((v) => ({ v })));
  });

  it('any string survives as a literal and as shipped external data', async () => {
    const { default: fc } = await import('fast-check');
    const { quoteStringLiteral: quoteString } = await import('../../../shared/core/sql/quote.js');
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: 'binary', maxLength: 40 }), async (s) => {
        const lit = await ch.query(`SELECT ${quoteString(s)} AS v`);
        expect(lit.rows).toEqual([{ v: s }]);
        const t: ExternalTable = { name: '_data_q', columns: [{ name: 'v', type: 'String' }], rows: [{ v: s }] };
        const r = await ch.query('SELECT v FROM _data_q', { external: [t] });
        expect(r.rows).toEqual([{ v: s }]);
      }),
      { numRuns: 150 },
    );
  });
});
