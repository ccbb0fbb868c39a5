// The router without engines: batches follow the placement, bad rows carry line numbers, big
// integers survive parsing, and the write report never hides a failed or half-written shard.
// (Real-engine routing parity: test/server/router.test.ts.)
import { describe, expect, it } from 'vitest';
import { parseTopology } from '../../../shared/core/config/load.js';
import type { ClickHouseAccess } from '../../../shared/core/clickhouse/port.js';
import { createPlacement } from '../../../shared/core/sharding/index.js';
import { insertRows, quoteBigIntegers, routeRows, writeRouted, type Row } from '../../../shared/core/router/index.js';

const topo = parseTopology({
  cluster: 'c',
  shards: [
    { weight: 1, replicas: [{ url: 'http://a:8123' }, { url: 'http://a2:8123' }] },
    { weight: 2, internalReplication: true, replicas: [{ url: 'http://b:8123' }, { url: 'http://b2:8123' }] },
  ],
  tables: {
    events_dist: { local: 'events', shardingKey: { column: 'sensor', type: 'String', function: 'xxHash64' } },
    'db.ids_dist': { local: 'db.ids', shardingKey: { column: 'id', type: 'UInt64', function: 'identity' } },
  },
});

/** In-memory access: records inserts; `fail` makes every insert throw. */
function fakeAccess(log: { target: string; table: string; rows: Row[] }[], target: string, fail = false): ClickHouseAccess {
  const no = async () => {
    throw new Error('not used');
  };
  return {
    describe: target,
    query: no,
    queryRaw: no,
    exec: no,
    cancel: no,
    ping: async () => true,
    close: async () => undefined,
    async insert(table, rows) {
      if (fail) throw new Error(`connection refused by ${target}`);
      log.push({ target, table, rows });
    },
  };
}

describe('quoteBigIntegers', () => {
  it('quotes only unsafe integer literals outside strings', () => {
    expect(quoteBigIntegers('{"a":18446744073709551615,"b":"99999999999999999999","c":1.5e300,"d":-9223372036854775808,"e":12}')).toBe(
      '{"a":"18446744073709551615","b":"99999999999999999999","c":1.5e300,"d":"-9223372036854775808","e":12}',
    );
    expect(quoteBigIntegers('{"s":"x\\"12345678901234567890"}')).toBe('{"s":"x\\"12345678901234567890"}');
  });
});

describe('routeRows', () => {
  it('puts each row on the shard its key hashes to, with line numbers', async () => {
    const p = await createPlacement(topo.shards, topo.tables['default.events_dist']!.shardingKey);
    const lines = Array.from({ length: 200 }, (_, i) => JSON.stringify({ sensor: `s-${i}`, v: i }));
    const r = routeRows(lines.join('\n') + '\n', 'events_dist', topo, p);
    expect(r.local).toBe('default.events');
    expect(r.total).toBe(200);
    expect(r.bad).toEqual([]);
    for (const [shard, batch] of r.batches.entries())
      batch.forEach((row, j) => {
        expect(p.shardOf(row.sensor as string)).toBe(shard);
        expect(r.lines[shard]![j]).toBe((row.v as number) + 1);
      });
    expect(r.batches[0]!.length + r.batches[1]!.length).toBe(200);
  });

  it('reports bad rows with their line numbers and reasons', async () => {
    const p = await createPlacement(topo.shards, topo.tables['db.ids_dist']!.shardingKey);
    const input = [
      '{"id": 1}',
      '',
      '{"id": -4}',
      'not json',
      '{"other": 3}',
      '[1,2]',
      '{"id": 2.5}',
      '{"id": null}',
      '{"id": "18446744073709551615"}',
      '{"id": 18446744073709551615}',
    ].join('\r\n');
    const r = routeRows(input, 'db.ids_dist', topo, p);
    expect(r.bad.map((b) => [b.line, b.reason])).toEqual([
      [3, 'type_mismatch'],
      [4, 'bad_json'],
      [5, 'missing_key'],
      [6, 'bad_json'],
      [7, 'type_mismatch'],
      [8, 'type_mismatch'],
    ]);
    expect(r.bad[0]!.message).toMatch(/column "id".*out of range/);
    expect(r.total).toBe(9);
    // The unquoted 2^64-1 kept its exact value (quoted on the way in), so it sits with the quoted one.
    const big = r.batches.flat().filter((row) => row.id === '18446744073709551615');
    expect(big.length).toBe(2);
  });

  it('row objects: a null or array element is a bad row, not a crash', async () => {
    const p = await createPlacement(topo.shards, topo.tables['db.ids_dist']!.shardingKey);
    const r = routeRows([{ id: 1 }, null, [1]] as unknown as Row[], 'db.ids_dist', topo, p);
    expect(r.bad.map((b) => [b.line, b.reason])).toEqual([
      [2, 'bad_json'],
      [3, 'bad_json'],
    ]);
    expect(r.batches.flat()).toEqual([{ id: 1 }]);
  });

  it('refuses an unknown table and a placement for another key', async () => {
    const p = await createPlacement(topo.shards, topo.tables['db.ids_dist']!.shardingKey);
    expect(() => routeRows('', 'nope', topo, p)).toThrow(/unknown table default.nope/);
    expect(() => routeRows('', 'events_dist', topo, p)).toThrow(/placement is for/);
  });
});

describe('writeRouted', () => {
  it('writes every replica, or one replica with internalReplication, and reports per shard', async () => {
    const log: { target: string; table: string; rows: Row[] }[] = [];
    const rep = await writeRouted([[{ a: 1 }], [{ a: 2 }, { a: 3 }]], (s, r) => fakeAccess(log, `${s}/${r}`), topo.shards, 'db.t');
    expect(rep.ok).toBe(true);
    expect(rep.committedRows).toBe(3);
    expect(log.map((l) => l.target).sort()).toEqual(['0/0', '0/1', '1/0']);
    expect(rep.shards.map((s) => s.status)).toEqual(['committed', 'committed']);
  });

  it('says partial when some replicas failed, fails over with internalReplication, empty shards are empty', async () => {
    const log: { target: string; table: string; rows: Row[] }[] = [];
    const down = new Set(['0/1', '1/0']);
    const rep = await writeRouted([[{ a: 1 }], [{ a: 2 }]], (s, r) => fakeAccess(log, `${s}/${r}`, down.has(`${s}/${r}`)), topo.shards, 'db.t');
    expect(rep.shards[0]!.status).toBe('partial');
    expect(rep.shards[0]!.replicas.find((r) => !r.ok)!.error).toMatch(/connection refused by 0\/1/);
    expect(rep.shards[1]!.status).toBe('committed');
    expect(rep.shards[1]!.replicas.map((r) => r.ok)).toEqual([false, true]);
    expect(rep.ok).toBe(false);
    expect(rep.failedRows).toBe(1);
    const rep2 = await writeRouted([[], [{ a: 1 }]], () => fakeAccess(log, 'x', true), topo.shards, 'db.t');
    expect(rep2.shards.map((s) => s.status)).toEqual(['empty', 'failed']);
  });
});

describe('insertRows', () => {
  it('writes nothing when a row is bad, unless told to skip bad rows', async () => {
    const log: { target: string; table: string; rows: Row[] }[] = [];
    const input = '{"id": 1}\n{"id": "x"}\n{"id": 2}\n';
    const columns = [{ name: 'id', type: 'UInt64' }];
    const r1 = await insertRows(input, 'db.ids_dist', topo, (s, r) => fakeAccess(log, `${s}/${r}`), { columns });
    expect(r1.ok).toBe(false);
    expect(r1.inserted).toBe(0);
    expect(r1.bad.map((b) => b.line)).toEqual([2]);
    expect(log).toEqual([]);
    const r2 = await insertRows(input, 'db.ids_dist', topo, (s, r) => fakeAccess(log, `${s}/${r}`), { skipBadRows: true, columns });
    expect(r2.inserted).toBe(2);
    expect(r2.perShard.reduce((a, b) => a + b, 0)).toBe(2);
    expect(log.every((l) => l.table === 'db.ids')).toBe(true);
  });

  it('refuses the insert when the columns cannot be read (nothing is guessed, nothing written)', async () => {
    const log: { target: string; table: string; rows: Row[] }[] = [];
    await expect(insertRows('{"id": 1}', 'db.ids_dist', topo, (s, r) => fakeAccess(log, `${s}/${r}`))).rejects.toMatchObject({ code: 'SHARD_ERROR' });
    expect(log).toEqual([]);
  });
});
