// The Native walk the revision framing needs, over ClickHouse's own bytes: random nested types
// (fast-check), random values from chdb's generateRandom, written as Native by chdb. The walk must
// end exactly at each column's end (the framed answer is the engine's bytes plus exactly the framing),
// and a cut answer is an error, never a shorter answer.
import fc from 'fast-check';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Session } from 'chdb';
import { nativeForRevision } from '../../../shared/core/clickhouse-http/native-revision.js';
import { plainType } from '../../../shared/core/clickhouse-http/native-plain.js';
import { NativeCursor, skipData, skipPrefix } from '../../../shared/core/clickhouse-http/native-columns.js';
import { ChHttpError } from '../../../shared/core/clickhouse-http/exception.js';

const dir = mkdtempSync(join(tmpdir(), 'native-walk-'));
const session = new Session(dir);
afterAll(() => rmSync(dir, { recursive: true, force: true }));
/** The engine's bytes (the async API: the sync one answers text, which would mangle binary). */
const nativeOf = async (sql: string) => Buffer.from((await session.queryAsync(sql, { format: 'Native' })).bytes());

const scalar = fc.constantFrom(
  'UInt8',
  'Int16',
  'UInt32',
  'Int64',
  'UInt128',
  'Int256',
  'Float32',
  'Float64',
  'Decimal(9, 2)',
  'Decimal(18, 4)',
  'Decimal(38, 10)',
  'Decimal(76, 5)',
  'String',
  'FixedString(5)',
  'Date',
  'Date32',
  "DateTime('Asia/Tokyo')",
  "DateTime64(3, 'UTC')",
  'UUID',
  'IPv4',
  'IPv6',
  "Enum8('a, b' = 1, 'c(' = 2)",
  "Enum16('x' = 300)",
  'Bool',
);
const lowCardinalityable = fc.constantFrom('String', 'FixedString(3)', 'UInt32', 'Date', 'Float64');

const typeArb: fc.Arbitrary<string> = fc.letrec<{ t: string }>((tie) => ({
  t: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalar,
    lowCardinalityable.map((t) => `LowCardinality(${t})`),
    lowCardinalityable.map((t) => `LowCardinality(Nullable(${t}))`),
    scalar.map((t) => `Nullable(${t})`),
    tie('t').map((t) => `Array(${t})`),
    fc.array(tie('t'), { minLength: 1, maxLength: 3 }).map((ts) => `Tuple(${ts.join(', ')})`),
    fc.array(tie('t'), { minLength: 1, maxLength: 3 }).map((ts) => `Tuple(${ts.map((t, i) => `e${i} ${t}`).join(', ')})`),
    fc.tuple(fc.constantFrom('String', 'UInt64', 'LowCardinality(String)'), tie('t')).map(([k, v]) => `Map(${k}, ${v})`),
  ),
})).t;

describe('the Native walk over ClickHouse bytes', () => {
  it('ends exactly at each column and block; the framing adds exactly BlockInfo and one byte per column', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(typeArb, { minLength: 1, maxLength: 4 }),
        fc.integer({ min: 0, max: 300 }),
        fc.integer({ min: 1, max: 1e6 }),
        async (types, rows, seed) => {
          const structure = types.map((t, i) => `c${i} ${t}`).join(', ');
          const native = await nativeOf(
            `SELECT * FROM generateRandom('${structure.replace(/'/g, "\\'")}', ${seed}, 8, 3) LIMIT ${rows} SETTINGS max_block_size = 97, allow_suspicious_low_cardinality_types = 1`,
          );
          let blocks = 0;
          let columns = 0;
          const c = new NativeCursor(native);
          while (c.pos < native.length) {
            blocks++;
            const n = c.varUInt();
            const r = c.varUInt();
            for (let i = 0; i < n; i++) {
              columns++;
              c.string();
              const t = c.string();
              if (r > 0) {
                skipPrefix(c, t);
                skipData(c, t, r);
              }
            }
          }
          expect(c.pos).toBe(native.length);
          expect(nativeForRevision(native, 54460).length).toBe(native.length + blocks * 8 + columns);
          expect(nativeForRevision(native, 54480).length).toBe(native.length + blocks * 10 + columns);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('below 54405 a LowCardinality column is written exactly as ClickHouse writes its CAST to the plain type', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(typeArb, { minLength: 1, maxLength: 3 }),
        fc.integer({ min: 1, max: 200 }),
        fc.integer({ min: 1, max: 1e6 }),
        async (types, rows, seed) => {
          const structure = types.map((t, i) => `c${i} ${t}`).join(', ');
          const pairs = types.map((t, i) => `c${i}, CAST(c${i} AS ${plainType(t)}) AS p${i}`).join(', ');
          const native = await nativeOf(
            `SELECT ${pairs} FROM generateRandom('${structure.replace(/'/g, "\\'")}', ${seed}, 8, 3) LIMIT ${rows} SETTINGS max_block_size = 97, allow_suspicious_low_cardinality_types = 1`,
          );
          const framed = nativeForRevision(native, 54404);
          const c = new NativeCursor(framed);
          while (c.pos < framed.length) {
            c.skip(8);
            const n = c.varUInt();
            const r = c.varUInt();
            const cols: { type: string; bytes: string }[] = [];
            for (let i = 0; i < n; i++) {
              c.string();
              const type = c.string();
              const at = c.pos;
              skipPrefix(c, type);
              skipData(c, type, r);
              cols.push({ type, bytes: framed.subarray(at, c.pos).toString('hex') });
            }
            for (let i = 0; i < n; i += 2) expect(cols[i]).toEqual(cols[i + 1]);
          }
        },
      ),
      { numRuns: 80 },
    );
  });

  it('a cut answer is 33, never a shorter answer', async () => {
    const native = await nativeOf('SELECT number AS n, toString(number) AS s, [toLowCardinality(toString(number))] AS a FROM numbers(50)');
    for (let cut = 1; cut < native.length; cut += 7) {
      try {
        nativeForRevision(native.subarray(0, cut), 54460);
        expect.unreachable(`cut at ${cut} was framed`);
      } catch (e) {
        expect(e).toBeInstanceOf(ChHttpError);
        expect((e as ChHttpError).chCode).toBe(33);
      }
    }
  });
});
