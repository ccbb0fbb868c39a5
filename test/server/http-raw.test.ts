// The raw-output primitive on a real clickhouse-server 18.16: the server's own bytes, stage tables
// as TEMPORARY tables in a private session under readonly=2 (external-data parameters cannot spell
// types with commas there), and errors as ClickHouseError with the server's code.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccess } from '../../shared/adapters/clickhouse/factory.js';
import { ClickHouseError, type ClickHouseAccess } from '../../shared/core/clickhouse/port.js';
import { chHttp, useChServers } from '../support/ch-servers.js';
import { expectStatesMergeLikeOneQuery } from '../support/raw-checks.js';

const servers = useChServers({ n: 1, portBase: 19680 });
let ch: ClickHouseAccess;

beforeAll(async () => {
  ch = await createAccess({ url: servers.current.urls[0]! });
  await chHttp(servers.current.urls[0]!, 'CREATE TABLE t (k UInt64, s String, v Int32) ENGINE = MergeTree ORDER BY k');
  await chHttp(servers.current.urls[0]!, "INSERT INTO t SELECT number, concat('s-', toString(number % 10)), toInt32(number % 7) - 3 FROM numbers(10000)");
});
afterAll(async () => {
  await ch?.close();
});

describe('raw answers on clickhouse-server 18.16', () => {
  it('returns binary formats byte for byte', async () => {
    const r = await ch.queryRaw("SELECT toUInt8(200) AS b, unhex('FF00FE') AS s", { format: 'RowBinary' });
    expect([...r.bytes]).toEqual([200, 3, 0xff, 0x00, 0xfe]);
  });

  it('aggregate states from two halves merge in a stage table like one query over all rows, under readonly=2', async () => {
    await expectStatesMergeLikeOneQuery(ch, { readonly: 2 });
  });

  it('reads shipped external tables (a GLOBAL set, a scalar) in the SELECT, with and without stage tables', async () => {
    const set = { name: '_data_1', columns: [{ name: 'c1', type: 'UInt64' }], rows: [{ c1: 3 }, { c1: 5 }, { c1: 9999 }] };
    const scalar = { name: '_data_2', columns: [{ name: 'c1', type: 'Int32' }], rows: [{ c1: 2 }] };
    // v = k % 7 - 3: k 3 and 9999 have v = 0 (under the scalar 2), k 5 has v = 2.
    const sql = 'SELECT count() AS c, sum(v) AS s FROM t WHERE k IN _data_1 AND v < (SELECT * FROM _data_2)';
    const plain = await ch.queryRaw(sql, { format: 'TabSeparated', external: [set, scalar], settings: { readonly: 2 } });
    expect(plain.bytes.toString()).toBe('2\t0\n');
    const stage = { name: '_stage0', columns: [{ name: 'x', type: 'UInt8' }], data: Buffer.from('7\n') };
    const withStage = await ch.queryRaw(`${sql} AND toUInt8(7) IN (SELECT x FROM _stage0)`, {
      format: 'TabSeparated',
      external: [set, scalar],
      tables: [stage],
      settings: { readonly: 2 },
    });
    expect(withStage.bytes.toString()).toBe('2\t0\n');
  });

  it('readonly=2 still refuses a persistent table in the same statement slot (code 164)', async () => {
    const t = { name: '_stage0', columns: [{ name: 'x', type: 'UInt8' }], data: Buffer.from('1\n') };
    const e = await ch
      .queryRaw('CREATE TABLE default.zz (a UInt8) ENGINE = Memory', { format: 'TabSeparated', tables: [t], settings: { readonly: 2 } })
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ClickHouseError);
    expect((e as ClickHouseError).chCode).toBe(164);
  });

  it('an error found after the first block is an error, not bytes (wait_end_of_query)', async () => {
    const e = await ch
      .queryRaw('SELECT number, throwIf(number = 200000) FROM numbers(300000)', { format: 'TabSeparated', settings: { max_block_size: 1000 } })
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ClickHouseError);
    expect((e as ClickHouseError).chCode).toBe(395);
  });
});

describe('kept stages on clickhouse-server 18.16', () => {
  it('keeps a LowCardinality key and aggregate states where they were computed, for the final stage to add to', async () => {
    const sql = 'SELECT toLowCardinality(s) AS k, sumState(v) AS sv FROM t GROUP BY k';
    const kept = await ch.keepRaw!(sql, { table: '_stage0', sessionTimeoutS: 10, settings: { readonly: 2 } });
    expect(kept.header.toString()).toBe('k\tsv\nLowCardinality(String)\tAggregateFunction(sum, Int32)\n');
    expect(kept.rows).toBe(10);
    const shipped = await ch.queryRaw(sql, { format: 'TabSeparated' });
    const columns = [
      { name: 'k', type: 'LowCardinality(String)' },
      { name: 'sv', type: 'AggregateFunction(sum, Int32)' },
    ];
    const r = await ch.queryRaw('SELECT sumMerge(sv) AS s, count() AS n FROM _stage0', {
      format: 'TabSeparated',
      session: kept.session,
      tables: [{ name: '_stage0', columns, data: shipped.bytes, kept: true }],
      settings: { readonly: 2 },
    });
    const total = (await ch.query('SELECT sum(v) AS s FROM t')).rows[0]!.s;
    expect(r.bytes.toString()).toBe(`${2 * Number(total)}\t20\n`);
    // The final stage drops the table after answering (not awaited): the session loses it.
    const again = () => ch.queryRaw('SELECT count() FROM _stage0', { format: 'TabSeparated', session: kept.session }).catch((x: unknown) => x);
    await expect.poll(async () => ((await again()) as ClickHouseError).chCode, { timeout: 3000, interval: 50 }).toBe(60);
    expect(await again()).toBeInstanceOf(ClickHouseError);
  });

  it('a session that is gone is ClickHouse error 372, not a new empty session', async () => {
    const e = await ch.queryRaw('SELECT 1', { format: 'TabSeparated', session: 'chs-00000000-0000-4000-8000-000000000000' }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ClickHouseError);
    expect((e as ClickHouseError).chCode).toBe(372);
  });
});
