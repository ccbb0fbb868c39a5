// Pure checks of the placement module: slots, coercion errors, encodings with values measured
// on ClickHouse (a server and chdb), and slot selection. Engine parity lives in
// test/integration/sharding (chdb) and test/server/placement (18.16).
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ScatterError } from '../../../shared/core/errors.js';
import { buildSlots, coerceKeyValue, createPlacement, encodeKey, identityValue } from '../../../shared/core/sharding/index.js';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

describe('buildSlots', () => {
  it('repeats each shard index weight times in order', () => {
    expect(buildSlots([{ weight: 1 }, { weight: 2 }, { weight: 1 }])).toEqual([0, 1, 1, 2]);
  });
  it('refuses zero or fractional weights', () => {
    expect(() => buildSlots([{ weight: 0 }])).toThrow(/weight/);
    expect(() => buildSlots([{ weight: 1.5 }])).toThrow(/weight/);
    expect(() => buildSlots([])).toThrow();
  });
});

describe('encodeKey', () => {
  it("integers at declared width, little-endian two's complement", () => {
    expect(hex(encodeKey(42n, 'UInt32'))).toBe('2a000000');
    expect(hex(encodeKey(42, 'UInt64'))).toBe('2a00000000000000');
    expect(hex(encodeKey(-1, 'Int16'))).toBe('ffff');
    expect(hex(encodeKey('-2', 'Int64'))).toBe('feffffffffffffff');
    expect(hex(encodeKey(255, 'UInt8'))).toBe('ff');
  });
  it('Date as UInt16 days, DateTime as UInt32 seconds (UTC text)', () => {
    expect(hex(encodeKey('1970-01-03', 'Date'))).toBe('0200');
    expect(hex(encodeKey('1970-01-01 00:01:00', 'DateTime'))).toBe('3c000000');
    expect(hex(encodeKey(60, 'DateTime'))).toBe('3c000000');
  });
  it('FixedString zero-padded, UUID as two little-endian halves', () => {
    expect(hex(encodeKey('ab', 'FixedString(4)'))).toBe('61620000');
    expect(hex(encodeKey('00112233-4455-6677-8899-AABBCCDDEEFF', 'UUID'))).toBe('7766554433221100ffeeddccbbaa9988');
  });
  it('DateTime with a zone reads the text as wall-clock time there', () => {
    // 2020-07-01 12:00:00 in Berlin (CEST, UTC+2) is 10:00:00 UTC.
    expect(coerceKeyValue('2020-07-01 12:00:00', "DateTime('Europe/Berlin')")).toBe(Date.UTC(2020, 6, 1, 10) / 1000);
    expect(coerceKeyValue('2020-01-01 12:00:00', "DateTime('Europe/Berlin')")).toBe(Date.UTC(2020, 0, 1, 11) / 1000);
  });
});

describe('coerceKeyValue refuses with TYPE_MISMATCH', () => {
  const cases: [unknown, string, RegExp][] = [
    [256, 'UInt8', /out of range/],
    [-1, 'UInt64', /out of range/],
    ['18446744073709551616', 'UInt64', /out of range/],
    [1.5, 'Int32', /not an integer/],
    ['12a', 'Int32', /not an integer/],
    [2 ** 60, 'UInt64', /quote it as a string/],
    [null, 'String', /null or missing/],
    [undefined, 'Int32', /null or missing/],
    [42, 'String', /expected a string/],
    ['2020-02-30', 'Date', /no such date/],
    ['2020/01/01', 'Date', /YYYY-MM-DD/],
    ['2150-01-01', 'Date', /outside/],
    ['2020-01-01 24:00:00', 'DateTime', /time of day/],
    [-5, 'DateTime', /outside/],
    ['abcd', 'UUID', /8-4-4-4-12/],
    ['hello', 'FixedString(3)', /do not fit/],
    [true, 'Int8', /expected an integer/],
  ];
  it.each(cases)('%j as %s', (v, type, re) => {
    let err: unknown;
    try {
      coerceKeyValue(v, type);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ScatterError);
    expect((err as ScatterError).code).toBe('TYPE_MISMATCH');
    expect((err as ScatterError).message).toMatch(re);
  });
  it('refuses Nullable and unknown types', () => {
    expect(() => coerceKeyValue('x', 'Nullable(String)')).toThrow(/Nullable/);
    expect(() => coerceKeyValue(1, 'Float64')).toThrow(/unsupported/);
  });
  it('accepts every in-range integer written as number, bigint or string', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(1n << 31n), max: (1n << 31n) - 1n }), (n) => {
        expect(coerceKeyValue(n, 'Int32')).toBe(n);
        expect(coerceKeyValue(String(n), 'Int32')).toBe(n);
        expect(coerceKeyValue(Number(n), 'Int32')).toBe(n);
      }),
    );
  });
});

describe('createPlacement', () => {
  it('hashes like ClickHouse (values measured on ClickHouse)', async () => {
    const s = await createPlacement([{ weight: 1 }], { column: 's', type: 'String', function: 'xxHash64' });
    expect(s.hash('foo')).toBe(3728699739546630719n);
    const u = await createPlacement([{ weight: 1 }], { column: 'u', type: 'UInt32', function: 'xxHash64' });
    expect(u.hash(3)).toBe(13361037350151369407n);
    const id = await createPlacement([{ weight: 1 }], { column: 'u', type: 'UUID', function: 'xxHash64' });
    expect(id.hash('00112233-4455-6677-8899-aabbccddeeff')).toBe(13757471242398998433n);
  });
  it('identity takes the unsigned value; signed keys up to 32 bits wrap at 2^32', async () => {
    expect(identityValue(-1, 'Int32')).toBe(2n ** 32n - 1n);
    expect(identityValue(-1, 'Int8')).toBe(2n ** 32n - 1n);
    expect(identityValue(-1, 'Int64')).toBe(2n ** 64n - 1n);
    expect(identityValue('18446744073709551615', 'UInt64')).toBe(2n ** 64n - 1n);
    const p = await createPlacement([{ weight: 1 }, { weight: 2 }, { weight: 1 }], { column: 'k', type: 'UInt64', function: 'identity' });
    expect([0, 1, 2, 3, 4, 5].map((k) => p.shardOf(k))).toEqual([0, 1, 1, 2, 0, 1]);
  });
  it('slot share follows the weights over many keys', async () => {
    const p = await createPlacement([{ weight: 1 }, { weight: 3 }], { column: 's', type: 'String', function: 'xxHash64' });
    const counts = [0, 0];
    for (let i = 0; i < 20000; i++) counts[p.shardOf(`k-${i}`)]!++;
    expect(counts[1]! / 20000).toBeGreaterThan(0.72);
    expect(counts[1]! / 20000).toBeLessThan(0.78);
  });
  it('refuses identity over a non-integer column', async () => {
    await expect(createPlacement([{ weight: 1 }], { column: 's', type: 'String', function: 'identity' })).rejects.toThrow(/integer/);
  });
});
