// Placement parity with a real Distributed table: rows inserted through Distributed tables on
// three Debian clickhouse-server 18.16 instances (insert_distributed_sync=1) must land on exactly
// the shard our placement picks, for every row. 18.16 has no xxHash64, so the xxHash64 case
// shards on a UInt64 column whose value chdb computed as xxHash64(s); we check that
// placement.shardOf(s) names the server the row landed on.
import { beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Session } from 'chdb';
import { createPlacement, type KeyValue } from '../../shared/core/sharding/index.js';
import { chHttp, chRows, useChServers } from '../support/ch-servers.js';
import { fcSeed } from '../support/fc-seed.js';

const WEIGHTS = [1, 2, 1];
// Slot count 7 tells a 32-bit from a 64-bit wrap of negative keys apart (2^32 mod 7 != 2^64 mod 7).
const ODD = [1, 2, 4];
const servers = useChServers({ n: 3, portBase: 19100, weights: WEIGHTS, extraClusters: { odd: ODD } });
const N = 2000;

const tsv = (s: string) => s.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n');

/** Create `local` on every server and `dist` over it on server 0; insert rows; return each server's keys. */
async function roundTrip(opts: { cluster: string; columns: string; key: string; rows: string[][]; keyCol: string }): Promise<string[][]> {
  const { urls } = servers.current;
  const local = `t_${Math.random().toString(36).slice(2, 10)}`;
  for (const url of urls) {
    await chHttp(url, `CREATE TABLE default.${local} (${opts.columns}) ENGINE = MergeTree() ORDER BY tuple()`);
  }
  await chHttp(urls[0]!, `CREATE TABLE default.${local}_dist AS default.${local} ENGINE = Distributed(${opts.cluster}, default, ${local}, ${opts.key})`);
  const body = opts.rows.map((r) => r.map(tsv).join('\t')).join('\n') + '\n';
  await chHttp(urls[0]!, `INSERT INTO default.${local}_dist FORMAT TabSeparated\n${body}`, { insert_distributed_sync: 1 });
  const perServer: string[][] = [];
  for (const url of urls) {
    const rows = await chRows<{ k: string }>(url, `SELECT toString(${opts.keyCol}) AS k FROM default.${local}`);
    perServer.push(rows.map((r) => r.k));
  }
  expect(perServer.flat().length).toBe(opts.rows.length);
  return perServer;
}

/** For every stored row: the server it is on vs the shard our placement picks for its key. */
function misplaced(perServer: string[][], shardOf: (k: string) => number): { key: string; on: number; ours: number }[] {
  const out: { key: string; on: number; ours: number }[] = [];
  for (const [on, keys] of perServer.entries())
    keys.forEach((key) => {
      const ours = shardOf(key);
      if (ours !== on) out.push({ key, on, ours });
    });
  return out;
}

function intSample(bits: number, signed: boolean, seed: number): bigint[] {
  const b = BigInt(bits);
  const [min, max] = signed ? [-(1n << (b - 1n)), (1n << (b - 1n)) - 1n] : [0n, (1n << b) - 1n];
  const small = fc.bigInt({ min: signed ? -1000n : 0n, max: 1000n });
  return fc.sample(fc.oneof(fc.bigInt({ min, max }), small), { numRuns: N, seed: fcSeed() + seed });
}

describe('placement equals the 18.16 Distributed engine, row for row', () => {
  const cases: { name: string; type: string; cluster: string; weights: number[]; seed: number }[] = [
    { name: 'identity UInt64, weights 1,2,1', type: 'UInt64', cluster: 'scatter', weights: WEIGHTS, seed: 1 },
    { name: 'identity Int32 with negatives, weights 1,2,1', type: 'Int32', cluster: 'scatter', weights: WEIGHTS, seed: 2 },
    { name: 'identity UInt64, weights 1,2,4', type: 'UInt64', cluster: 'odd', weights: ODD, seed: 3 },
    { name: 'identity Int64 with negatives, weights 1,2,4', type: 'Int64', cluster: 'odd', weights: ODD, seed: 4 },
    { name: 'identity Int32 with negatives, weights 1,2,4', type: 'Int32', cluster: 'odd', weights: ODD, seed: 5 },
    { name: 'identity Int16 with negatives, weights 1,2,4', type: 'Int16', cluster: 'odd', weights: ODD, seed: 6 },
    { name: 'identity Int8 with negatives, weights 1,2,4', type: 'Int8', cluster: 'odd', weights: ODD, seed: 7 },
    { name: 'identity UInt32, weights 1,2,4', type: 'UInt32', cluster: 'odd', weights: ODD, seed: 8 },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const bits = Number(/\d+/.exec(c.type)![0]);
      const keys = intSample(bits, c.type.startsWith('Int'), c.seed);
      if (c.type.startsWith('Int')) expect(keys.some((k) => k < 0n)).toBe(true);
      const perServer = await roundTrip({ cluster: c.cluster, columns: `k ${c.type}`, key: 'k', keyCol: 'k', rows: keys.map((k) => [String(k)]) });
      const p = await createPlacement(
        c.weights.map((weight) => ({ weight })),
        { column: 'k', type: c.type, function: 'identity' },
      );
      expect(misplaced(perServer, (k) => p.shardOf(k))).toEqual([]);
      // Every server received rows: the check is not vacuous.
      for (const keysOn of perServer) expect(keysOn.length).toBeGreaterThan(0);
    });
  }

  describe('xxHash64 of a String key (hash precomputed by chdb into a UInt64 column)', () => {
    let rows: string[][] = [];
    beforeAll(() => {
      const strings = fc.sample(fc.string({ unit: 'grapheme', maxLength: 24 }), { numRuns: N });
      const dir = mkdtempSync(join(tmpdir(), 'h1-placement-chdb-'));
      const session = new Session(dir);
      try {
        const lit = (s: string) =>
          `'${s
            .replace(/\\/g, '\\\\')
            .replace(/'/g, "\\'")
            // biome-ignore lint/suspicious/noControlCharactersInRegex: matches control characters on purpose, to escape them
            .replace(/[\x00-\x1f]/g, (ch) => '\\x' + ch.charCodeAt(0).toString(16).padStart(2, '0'))}'`;
        const out = session.query(
          `SELECT t.1 AS i, toString(xxHash64(t.2)) AS h FROM (SELECT arrayJoin([${strings.map((s, i) => `(${i}, ${lit(s)})`).join(',')}]) AS t) ORDER BY i`,
          'JSONEachRow',
        ) as string;
        const hashes = out
          .trim()
          .split('\n')
          .map((l) => (JSON.parse(l) as { h: string }).h);
        rows = strings.map((s, i) => [s, hashes[i]!]);
      } finally {
        session.close?.();
        rmSync(dir, { recursive: true, force: true });
      }
    });
    for (const [cluster, weights] of [
      ['scatter', WEIGHTS],
      ['odd', ODD],
    ] as const) {
      it(`weights ${weights.join(',')}`, async () => {
        const perServer = await roundTrip({ cluster, columns: 's String, h UInt64', key: 'h', keyCol: 's', rows });
        const p = await createPlacement(
          weights.map((weight) => ({ weight })),
          { column: 's', type: 'String', function: 'xxHash64' },
        );
        expect(misplaced(perServer, (s: KeyValue) => p.shardOf(s))).toEqual([]);
        for (const keysOn of perServer) expect(keysOn.length).toBeGreaterThan(0);
      });
    }
  });
});
