// The raw-output primitive on chdb: the engine's own bytes in any format, and stage tables (any
// type, aggregate states included) that live for one query.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createEmbeddedAccess } from '../../../shared/adapters/clickhouse/embedded.js';
import { ClickHouseError, type ClickHouseAccess } from '../../../shared/core/clickhouse/port.js';
import { expectStatesMergeLikeOneQuery } from '../../support/raw-checks.js';

let dir: string;
let ch: ClickHouseAccess;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'raw-embedded-'));
  ch = await createEmbeddedAccess({ path: dir });
  await ch.exec('CREATE TABLE t (k UInt64, s String, v Int32) ENGINE = MergeTree ORDER BY k');
  await ch.exec("INSERT INTO t SELECT number, concat('s-', toString(number % 10)), toInt32(number % 7) - 3 FROM numbers(10000)");
});

afterAll(async () => {
  await ch?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('raw answers on chdb', () => {
  it('returns binary formats byte for byte (not through a JS string)', async () => {
    const r = await ch.queryRaw("SELECT toUInt8(200) AS b, unhex('FF00FE') AS s", { format: 'RowBinary' });
    expect([...r.bytes]).toEqual([200, 3, 0xff, 0x00, 0xfe]);
  });

  it('aggregate states from two halves merge in a stage table like one query over all rows', async () => {
    await expectStatesMergeLikeOneQuery(ch);
  });

  it('drops stage tables after the query: the name is free again and unknown outside it', async () => {
    const t = { name: '_stage9', columns: [{ name: 'x', type: 'UInt8' }], data: Buffer.from('1\n2\n') };
    const a = await ch.queryRaw('SELECT sum(x) FROM _stage9', { format: 'TabSeparated', tables: [t] });
    const b = await ch.queryRaw('SELECT sum(x) FROM _stage9', { format: 'TabSeparated', tables: [{ ...t, data: Buffer.from('5\n') }] });
    expect([a.bytes.toString(), b.bytes.toString()]).toEqual(['3\n', '5\n']);
    const e = await ch.queryRaw('SELECT * FROM _stage9', { format: 'TabSeparated' }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ClickHouseError);
    expect((e as ClickHouseError).chCode).toBe(60);
  });

  it("reports the rows and bytes the engine read, in any format, as FORMAT JSON's statistics give them", async () => {
    const queries = [
      'SELECT k FROM t WHERE v < 0',
      'SELECT sum(number) FROM numbers(100000)',
      'SELECT s, count() FROM t GROUP BY s',
      'SELECT k FROM t WHERE k IN (SELECT number FROM numbers(5))',
      'SELECT 1',
    ];
    for (const sql of queries) {
      const want = (await ch.query(sql)).statistics;
      for (const format of ['TabSeparated', 'RowBinary', 'JSONEachRow']) {
        const got = (await ch.queryRaw(sql, { format })).statistics;
        expect({ sql, format, rowsRead: got.rowsRead, bytesRead: got.bytesRead }).toEqual({ sql, format, rowsRead: want.rowsRead, bytesRead: want.bytesRead });
      }
    }
    // Not the result's rows: 10000 rows read for 3 or 4 thousand kept.
    expect((await ch.queryRaw('SELECT k FROM t WHERE v < 0', { format: 'TabSeparated' })).statistics.rowsRead).toBe(10000);
  });

  it('refuses a format name that is not an identifier before it reaches the engine', async () => {
    await expect(ch.queryRaw('SELECT 1', { format: 'JSON; DROP TABLE t' })).rejects.toThrow(/invalid output format name/);
  });
});

describe('stage tables of every kind of column on chdb', () => {
  it('creates a LowCardinality(UInt8) stage column (a CASE over a LowCardinality key)', async () => {
    const t = { name: '_stage1', columns: [{ name: 'x', type: 'LowCardinality(UInt8)' }], data: Buffer.from('1\n2\n2\n') };
    const r = await ch.queryRaw('SELECT x, count() FROM _stage1 GROUP BY x ORDER BY x', { format: 'TabSeparated', tables: [t] });
    expect(r.bytes.toString()).toBe('1\t1\n2\t2\n');
  });
});

describe('kept stages on chdb', () => {
  it('has no sessions: no keepRaw, and a kept table or session is refused rather than read as a fresh empty table', async () => {
    expect(ch.keepRaw).toBeUndefined();
    const t = { name: '_stage2', columns: [{ name: 'x', type: 'UInt8' }], data: Buffer.from('1\n'), kept: true };
    await expect(ch.queryRaw('SELECT sum(x) FROM _stage2', { format: 'TabSeparated', tables: [t] })).rejects.toThrow(/no sessions/);
    await expect(ch.queryRaw('SELECT 1', { format: 'TabSeparated', session: 'chs-00000000-0000-4000-8000-000000000000' })).rejects.toThrow(/no sessions/);
  });
});

describe('RowBinary stage rows on chdb (a leaf of one row per shard)', () => {
  it("two shards' RowBinary state rows, inserted through format(), merge like one query (past the parser's default size limit)", async () => {
    // groupArray states of 40k values each: a literal over 256 KiB, the default max_query_size.
    const half = (from: number) => `SELECT groupArrayState(number) AS g, uniqState(number) AS u FROM numbers(${from}, 40000)`;
    const rows = Buffer.concat([(await ch.queryRaw(half(0), { format: 'RowBinary' })).bytes, (await ch.queryRaw(half(40000), { format: 'RowBinary' })).bytes]);
    expect(rows.length * 4).toBeGreaterThan(256 * 1024);
    const columns = [
      { name: 'g', type: 'AggregateFunction(groupArray, UInt64)' },
      { name: 'u', type: 'AggregateFunction(uniq, UInt64)' },
    ];
    const r = await ch.queryRaw('SELECT length(groupArrayMerge(g)), arraySum(groupArrayMerge(g)), uniqMerge(u) FROM _stage3', {
      format: 'TabSeparated',
      tables: [{ name: '_stage3', columns, data: rows, format: 'RowBinary' }],
    });
    const one = await ch.queryRaw('SELECT count(), sum(number), uniq(number) FROM numbers(80000)', { format: 'TabSeparated' });
    expect(r.bytes.toString()).toBe(one.bytes.toString());
    // The engine's parser limit is back to its default for every other query.
    const limit = await ch.queryRaw("SELECT value FROM system.settings WHERE name = 'max_query_size'", { format: 'TabSeparated' });
    expect(limit.bytes.toString()).toBe('262144\n');
  });
});
