// Cutting a Native block into rows (insert-native.ts), against chdb: for random rows of nested
// types and a random subset of them, the block rebuilt from the subset is read by ClickHouse as
// exactly those rows, and each row's key is its value's bytes. The blocks are ClickHouse's own
// (FORMAT Native, the serialization an insert carries).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nativeKeyOf, readNativeBlocks, selectRows } from '../../../shared/core/clickhouse-http/insert-native.js';
import { spawnEngine, type EngineProcess } from '../../support/engine-process/engine-process.js';

let dir: string;
let engine: EngineProcess;
const COLUMNS =
  "k String, lk LowCardinality(String), n UInt32, i Int64, ns Nullable(String), lns LowCardinality(Nullable(String)), a Array(Nullable(String)), aa Array(Array(UInt8)), t Tuple(String, UInt16), m Map(String, UInt64), d Decimal(18, 3), f FixedString(3), ts DateTime('UTC')";

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'insert-native-'));
  engine = await spawnEngine({ path: dir });
}, 60_000);
afterAll(async () => {
  await engine?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const text = fc.string({ unit: 'grapheme', maxLength: 6 });
const row = fc.record({
  k: text,
  lk: fc.constantFrom('a', 'b', 'é', ''),
  n: fc.nat({ max: 2 ** 32 - 1 }),
  i: fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map(String),
  ns: fc.option(text, { nil: null }),
  lns: fc.option(fc.constantFrom('x', 'y', 'zz'), { nil: null }),
  a: fc.array(fc.option(text, { nil: null }), { maxLength: 3 }),
  aa: fc.array(fc.array(fc.nat({ max: 255 }), { maxLength: 2 }), { maxLength: 2 }),
  t: fc.tuple(text, fc.nat({ max: 65535 })),
  m: fc.dictionary(fc.constantFrom('p', 'q', 'r'), fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }).map(String), { maxKeys: 2 }),
  d: fc.integer({ min: -999_999, max: 999_999 }).map((x) => (x / 1000).toFixed(3)),
  f: fc.constantFrom('abc', 'xy\u0000', 'zzz'),
  ts: fc.integer({ min: 0, max: 2 ** 31 }),
});

const hexLiteral = (b: Buffer) => `'${[...b].map((x) => `\\x${x.toString(16).padStart(2, '0')}`).join('')}'`;
const jsonLines = (b: Buffer) => b.toString('utf8').trim().split('\n').filter(Boolean);

describe('a Native block cut into rows', () => {
  it('the block of any subset of rows is read by ClickHouse as those rows; the key is its bytes', async () => {
    let table = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(row, { minLength: 1, maxLength: 12 }), fc.func(fc.boolean()), async (rows, keep) => {
        const t = `default.n${table++}`;
        await engine.exec(`CREATE TABLE ${t} (pos UInt32, ${COLUMNS}) ENGINE = MergeTree ORDER BY pos`);
        await engine.insert(
          t,
          rows.map((r, pos) => ({ pos, ...r })),
        );
        const block = (await engine.queryRaw(`SELECT * EXCEPT pos FROM ${t} ORDER BY pos`, { format: 'Native' })).bytes;
        const all = jsonLines((await engine.queryRaw(`SELECT * EXCEPT pos FROM ${t} ORDER BY pos`, { format: 'JSONEachRow' })).bytes);
        const [b] = readNativeBlocks(block);
        expect(b!.rows).toBe(rows.length);
        const subset = rows.map((_, i) => i).filter((i) => keep(i));
        const cut = selectRows(b!, subset);
        if (subset.length > 0) {
          await engine.exec(`SET max_query_size = ${cut.length * 4 + 4096}`);
          const back = jsonLines((await engine.queryRaw(`SELECT * FROM format(Native, ${hexLiteral(cut)})`, { format: 'JSONEachRow' })).bytes);
          expect(back).toEqual(subset.map((i) => all[i]));
        }
        const key = nativeKeyOf(b!, 'k', 'String')!;
        const lkey = nativeKeyOf(b!, 'lk', 'String')!;
        rows.forEach((r, i) => {
          expect(Buffer.from(key(i) as Uint8Array).toString('utf8')).toBe(r.k);
          expect(Buffer.from(lkey(i) as Uint8Array).toString('utf8')).toBe(r.lk);
        });
        expect(nativeKeyOf(b!, 'i', 'Int64')!(0)).toBe(BigInt(rows[0]!.i));
        await engine.exec(`DROP TABLE ${t}`);
      }),
      { numRuns: 25 },
    );
  });
});
