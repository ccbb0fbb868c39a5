// The router on a real engine (chdb): row values reach ClickHouse as the client wrote them (decimals
// past a double's precision, tiny floats), a batch that fails on one shard after others committed
// is reported with the shards and input lines, and re-sending the same input after the failure does
// not duplicate the committed shards' rows (insert_deduplication_token per shard batch).
// Each "shard" is its own table in one engine (one chdb directory per process).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createEmbeddedAccess } from '../../../shared/adapters/clickhouse/embedded.js';
import type { ClickHouseAccess } from '../../../shared/core/clickhouse/port.js';
import { parseTopology } from '../../../shared/core/config/load.js';
import { insertRows } from '../../../shared/core/router/index.js';

let dir: string;
let ch: ClickHouseAccess;
const SHARDS = 3;
const down = new Set<number>();

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'router-values-'));
  ch = await createEmbeddedAccess({ path: dir });
  await ch.exec('CREATE DATABASE IF NOT EXISTS db');
  for (let s = 0; s < SHARDS; s++) {
    await ch.exec(
      `CREATE TABLE db.v_${s} (id UInt64, d38 Decimal(38, 10), d18 Decimal(18, 4), f Float64, v UInt32) ENGINE = MergeTree ORDER BY id SETTINGS non_replicated_deduplication_window = 1000`,
    );
  }
}, 60_000);
afterAll(async () => {
  await ch?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const topo = parseTopology({
  cluster: 'c',
  shards: Array.from({ length: SHARDS }, () => ({ replicas: [{ url: 'http://x:8123' }] })),
  tables: { 'db.v_dist': { local: 'db.v', shardingKey: { column: 'id', type: 'UInt64', function: 'identity' } } },
});

/** Shard s writes into db.v_<s>; a shard in `down` refuses like an unreachable server. */
const getAccess = (s: number): ClickHouseAccess => ({
  ...ch,
  // The router's column check reads system.columns for db.v: shard s's table is db.v_<s>.
  query: (sql, o) => ch.query(sql.replace("table = 'v'", `table = 'v_${s}'`), o),
  insert: async (table, rows, o) => {
    if (down.has(s)) throw new Error(`connect ECONNREFUSED (shard ${s} is down)`);
    return ch.insert(`${table}_${s}`, rows, o);
  },
});

const count = async (s: number) => Number((await ch.query(`SELECT count() AS c FROM db.v_${s}`)).rows[0]!.c);

describe('router values on chdb', () => {
  it('writes decimals and floats exactly as sent (JSON.parse would round them)', async () => {
    const lines = [
      '{"id": 0, "d38": 1234567890123456789.0123456789, "d18": 12345678901234.5678, "f": 0.0000000001, "v": 1}',
      '{"id": 1, "d38": -0.0000000001, "d18": 99999999999999.9999, "f": 1.7976931348623157e308, "v": 2}',
      '{"id": 2, "d38": "9999999999999999999999999999.9999999999", "d18": 0.0001, "f": -0, "v": 3}',
    ].join('\n');
    const r = await insertRows(lines, 'db.v_dist', topo, getAccess);
    expect(r.ok, JSON.stringify(r)).toBe(true);
    const got = [];
    for (let s = 0; s < SHARDS; s++)
      got.push(...(await ch.query(`SELECT toString(id) AS id, toString(d38) AS d38, toString(d18) AS d18, toString(f) AS f FROM db.v_${s}`)).rows);
    got.sort((a, b) => Number(a.id) - Number(b.id));
    expect(got).toEqual([
      { id: '0', d38: '1234567890123456789.0123456789', d18: '12345678901234.5678', f: '1e-10' },
      { id: '1', d38: '-0.0000000001', d18: '99999999999999.9999', f: '1.7976931348623157e308' },
      { id: '2', d38: '9999999999999999999999999999.9999999999', d18: '0.0001', f: '-0' },
    ]);
  });

  it('a shard down after others committed: the report names the shards and the input lines; a retry does not duplicate', async () => {
    for (let s = 0; s < SHARDS; s++) await ch.exec(`TRUNCATE TABLE db.v_${s}`);
    const input = Array.from({ length: 30 }, (_, i) => `{"id": ${i}, "d38": ${i}.5, "d18": 1.25, "f": 0.5, "v": ${i}}`).join('\n');
    down.add(1);
    const first = await insertRows(input, 'db.v_dist', topo, getAccess);
    expect(first.ok).toBe(false);
    expect(first.write!.committedShards).toEqual([0, 2]);
    expect(first.write!.failedShards).toEqual([1]);
    // identity key, 3 shards of weight 1: id % 3 == 1 lives on shard 1; line = id + 1
    expect(first.write!.failedLines).toEqual(Array.from({ length: 10 }, (_, k) => 3 * k + 2));
    expect(first.write!.shards[1]!.failedLines).toEqual(first.write!.failedLines);
    expect([await count(0), await count(1), await count(2)]).toEqual([10, 0, 10]);

    down.delete(1);
    const retry = await insertRows(input, 'db.v_dist', topo, getAccess);
    expect(retry.ok).toBe(true);
    expect(retry.write!.shards[0]!.dedupToken).toBe(first.write!.shards[0]!.dedupToken);
    // shards 0 and 2 dropped the repeated batch (same token); shard 1 got its rows once
    expect([await count(0), await count(1), await count(2)]).toEqual([10, 10, 10]);
  });

  it('--skip-bad-rows writes the good rows and reports the bad ones', async () => {
    for (let s = 0; s < SHARDS; s++) await ch.exec(`TRUNCATE TABLE db.v_${s}`);
    const input = ['{"id": 1, "d38": 1, "d18": 1, "f": 1, "v": 1}', '{"id": "x"}', 'not json', '{"id": 2, "d38": 1, "d18": 1, "f": 1, "v": 2}'].join('\n');
    const refused = await insertRows(input, 'db.v_dist', topo, getAccess);
    expect(refused.ok).toBe(false);
    expect(refused.write).toBeUndefined();
    const skipped = await insertRows(input, 'db.v_dist', topo, getAccess, { skipBadRows: true });
    expect(skipped.bad.map((b) => b.line)).toEqual([2, 3]);
    expect(skipped.inserted).toBe(2);
    expect((await count(0)) + (await count(1)) + (await count(2))).toBe(2);
  });
});

describe('rows checked against the column types before any shard commits', () => {
  const columnsAccess = getAccess;

  // The last field: whether ClickHouse (chdb) refuses the line too. Where it does not, it would store
  // something else than was sent (an out-of-range integer wraps; an unknown field is dropped, which
  // 18.16 refuses): the router refuses those as well.
  it.each([
    ['{"id": 4, "d38": 1, "d18": 1, "f": 1, "v": "abc"}', 'column "v": "abc" is not an integer (UInt32)', true],
    ['{"id": 4, "d38": 1, "d18": 1, "f": 1, "v": -1}', 'column "v": -1 is out of range for UInt32', true],
    ['{"id": 4, "d38": 1, "d18": 1, "f": 1, "v": 4294967296}', 'column "v": 4294967296 is out of range for UInt32', false],
    ['{"id": 4, "d38": "12x", "d18": 1, "f": 1, "v": 1}', 'column "d38": "12x" is not a decimal number (Decimal(38, 10))', true],
    ['{"id": 4, "d38": 1, "d18": 1, "f": "fast", "v": 1}', 'column "f": "fast" is not a number (Float64)', true],
    ['{"id": 4, "d38": 1, "d18": 1, "f": 1, "v": 1, "nope": 2}', 'unknown column "nope"', false],
  ] as const)('%s: refused whole, with its line, nothing written', async (bad, message, chRefuses) => {
    for (let s = 0; s < SHARDS; s++) await ch.exec(`TRUNCATE TABLE db.v_${s}`);
    const good = (id: number) => `{"id": ${id}, "d38": 1.5, "d18": 2.5, "f": 0.5, "v": 7}`;
    const input = [good(0), good(1), good(2), bad, good(5)].join('\n');
    const r = await insertRows(input, 'db.v_dist', topo, columnsAccess);
    expect(r.ok).toBe(false);
    expect(r.write).toBeUndefined();
    expect(r.bad).toEqual([{ line: 4, reason: 'type_mismatch', message }]);
    expect((await count(0)) + (await count(1)) + (await count(2))).toBe(0);
    // ClickHouse itself refuses the same line (what the check stands in for): straight into one table.
    if (chRefuses) await expect(ch.insert('db.v_0', [], { jsonEachRow: bad })).rejects.toThrow(/Code: \d+/);
  });

  it('values ClickHouse accepts pass the check', async () => {
    for (let s = 0; s < SHARDS; s++) await ch.exec(`TRUNCATE TABLE db.v_${s}`);
    const input = [
      '{"id": 0, "d38": "1.5", "d18": -2, "f": "nan", "v": "42"}',
      '{"id": 1, "d38": 1e3, "d18": "0.0001", "f": "-inf", "v": 4294967295}',
      '{"id": 2, "d38": null, "d18": 1, "f": 1.5e-300, "v": 0}',
    ].join('\n');
    const r = await insertRows(input, 'db.v_dist', topo, columnsAccess);
    expect(r.bad).toEqual([]);
    expect(r.ok).toBe(true);
    expect((await count(0)) + (await count(1)) + (await count(2))).toBe(3);
  });
});
