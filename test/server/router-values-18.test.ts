// The router's value pass-through, type check and retry report against 18.16 servers: decimals and
// a float 18.16 refuses in exponent form (`1e-10`, what JSON.parse + JSON.stringify makes of
// `0.0000000001`) reach the shards as sent; a type error is refused before any shard commits; and
// 18.16, which predates insert_deduplication_token, gets the batch without it, said so in the report.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseTopology } from '../../shared/core/config/load.js';
import { createHttpAccess } from '../../shared/adapters/clickhouse/http.js';
import type { ClickHouseAccess } from '../../shared/core/clickhouse/port.js';
import { insertRows } from '../../shared/core/router/index.js';
import { insertBytes } from '../../shared/core/router/insert-data.js';
import { nativeInsert } from '../../shared/core/clickhouse-http/insert-native.js';
import { ADMIN, chHttp, chRows, useChServers } from '../support/ch-servers.js';

const servers = useChServers({ n: 2, portBase: 19320 });
const accesses: ClickHouseAccess[] = [];

beforeAll(async () => {
  for (const url of servers.current.urls) {
    await chHttp(url, 'CREATE TABLE default.dv (id UInt64, d18 Decimal(18, 4), d38 Decimal(38, 10), f Float64, v UInt32) ENGINE = MergeTree() ORDER BY id');
    // The router's shard accesses write: the admin user (18.16 cannot grant the shard user one table's writes).
    accesses.push(createHttpAccess({ url, ...ADMIN }));
  }
}, 60_000);
afterAll(async () => {
  await Promise.all(accesses.map((a) => a.close()));
});

const topo = () =>
  parseTopology({
    cluster: 'scatter',
    shards: servers.current.urls.map((url) => ({ replicas: [{ url }] })),
    tables: { 'default.dv_dist': { local: 'default.dv', shardingKey: { column: 'id', type: 'UInt64', function: 'identity' } } },
  });

async function all(): Promise<Record<string, string>[]> {
  const out: Record<string, string>[] = [];
  for (const url of servers.current.urls)
    out.push(
      ...(await chRows<Record<string, string>>(url, 'SELECT toString(id) AS id, toString(d18) AS d18, toString(d38) AS d38, toString(f) AS f FROM default.dv')),
    );
  return out.filter((r) => r.id !== '100').sort((a, b) => Number(a.id) - Number(b.id));
}

describe('router on 18.16', () => {
  it('what re-serializing would have sent is stored differently by 18.16 (why lines pass through as sent)', async () => {
    const url = servers.current.urls[0]!;
    // JSON.parse + JSON.stringify of the line below gives d38 1234567890123456800 and d18 12345678901234.568.
    await chHttp(url, 'INSERT INTO default.dv FORMAT JSONEachRow {"id": 100, "d18": 12345678901234.568, "d38": 1234567890123456800, "f": 1e-10, "v": 1}');
    const [row] = await chRows<Record<string, string>>(
      url,
      'SELECT toString(d18) AS d18, toString(d38) AS d38, toString(f) AS f FROM default.dv WHERE id = 100',
    );
    expect(row).not.toEqual({ d18: '12345678901234.5678', d38: '1234567890123456789.0123456789', f: '1e-10' });
    await chHttp(url, 'ALTER TABLE default.dv DELETE WHERE id = 100');
    await chHttp(url, 'OPTIMIZE TABLE default.dv FINAL');
  });

  it('writes decimals and floats exactly as sent; the dedup token is reported as unsupported', async () => {
    const lines = [
      '{"id": 0, "d18": 12345678901234.5678, "d38": 1234567890123456789.0123456789, "f": 0.0000000001, "v": 1}',
      '{"id": 1, "d18": -0.0001, "d38": 0.0000000001, "f": 0.5, "v": 2}',
    ].join('\n');
    const r = await insertRows(lines, 'default.dv_dist', topo(), (s) => accesses[s]!);
    expect(r.ok, JSON.stringify(r.write?.shards)).toBe(true);
    expect(await all()).toEqual([
      { id: '0', d18: '12345678901234.5678', d38: '1234567890123456789.0123456789', f: '1e-10' },
      { id: '1', d18: '-0.0001', d38: '0.0000000001', f: '0.5' },
    ]);
    for (const s of r.write!.shards) expect(s.replicas[0]).toMatchObject({ ok: true, deduplicated: false });
  });

  // INSERT ... FORMAT Native: the blocks 18.16 itself writes, cut into each shard's rows and checked in a
  // temporary Memory copy by 18.16 before any shard commits.
  it('Native blocks: each row on its shard with its bytes; a block 18.16 refuses writes nothing', async () => {
    const url = servers.current.urls[0]!;
    const sql =
      'SELECT toUInt64(number + 200) AS id, toDecimal64(number / 3, 4) AS d18, toDecimal128(number, 10) AS d38, number / 7 AS f, toUInt32(number) AS v FROM system.numbers LIMIT 40';
    const native = Buffer.from(
      await (await fetch(`${url}/?user=${ADMIN.username}&password=${ADMIN.password}`, { method: 'POST', body: `${sql} FORMAT Native` })).arrayBuffer(),
    );
    const want = await chRows<Record<string, string>>(
      url,
      `SELECT toString(id) AS id, toString(d18) AS d18, toString(d38) AS d38, toString(f) AS f FROM (${sql})`,
    );
    const key = topo().tables['default.dv_dist']!.shardingKey;
    const types = new Map(
      (await chRows<{ name: string; type: string }>(url, "SELECT name, type FROM system.columns WHERE database = 'default' AND table = 'dv'")).map((c) => [
        c.name,
        c.type,
      ]),
    );
    const r = await insertBytes(nativeInsert(native, undefined, key, types), 'default.dv_dist', topo(), (s) => accesses[s]!);
    expect(r.ok, JSON.stringify(r.write?.shards)).toBe(true);
    expect(r.perShard).toEqual([20, 20]);
    const stored = (await all()).filter((x) => Number(x.id) >= 200);
    expect(stored).toEqual(want);
    for (const [i, u] of servers.current.urls.entries()) {
      const ids = (await chRows<{ i: string }>(u, 'SELECT toString(id) AS i FROM default.dv WHERE id >= 200')).map((x) => Number(x.i));
      expect(ids.every((id) => id % 2 === i)).toBe(true);
    }
    // A column in another type than the table's (String text for UInt32): refused before any shard is asked.
    const bad = Buffer.concat([
      Buffer.from([2, 1, 2]),
      Buffer.from('id'),
      Buffer.from([6]),
      Buffer.from('UInt64'),
      Buffer.alloc(8),
      Buffer.from([1]),
      Buffer.from('v'),
      Buffer.from([6]),
      Buffer.from('String'),
      Buffer.from([3]),
      Buffer.from('abc'),
    ]);
    const before = (await all()).length;
    // (18.16's check in a Memory copy takes it: only the MergeTree insert says 368, so the types are checked first.)
    expect(() => nativeInsert(bad, undefined, key, types)).toThrow(/column v is sent as String, the table's is UInt32/);
    expect((await all()).length).toBe(before);
  });

  it('a non-key type error is refused before any shard commits, with its line', async () => {
    const before = (await all()).length;
    const lines = ['{"id": 10, "d18": 1, "d38": 1, "f": 1, "v": 5}', '{"id": 11, "d18": 1, "d38": 1, "f": 1, "v": "abc"}'].join('\n');
    const r = await insertRows(lines, 'default.dv_dist', topo(), (s) => accesses[s]!);
    expect(r.ok).toBe(false);
    expect(r.bad).toEqual([{ line: 2, reason: 'type_mismatch', message: 'column "v": "abc" is not an integer (UInt32)' }]);
    expect((await all()).length).toBe(before);
  });
});
