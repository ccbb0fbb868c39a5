// The value model's pieces, without an engine (the engines are in the type corpus tests):
// the exact JSON reader, surrogate-escaped bytes, the API's spellings, group keys and orders.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { quoteInexactNumbers } from '../../../shared/core/protocol/exact-json.js';
import { decodeEscaped, displayString, stringBytes } from '../../../shared/core/surrogate-escape.js';
import { compareStrings, fromJson, parseDecimal, toJson, valueKey, formatDecimal } from '../../../shared/core/partials/values.js';
import { orderKey } from '../../../shared/core/partials/order-key.js';
import { quoteStringLiteral } from '../../../shared/core/sql/quote.js';
import { tokenize } from '../../../shared/core/sql/lexer.js';

describe('quoteInexactNumbers', () => {
  it('keeps a number a double cannot spell back as its own text, and leaves the rest alone', () => {
    const text = '{"d": 1234567890123456789.0123456789, "f": 0.1, "i": 7, "e": 1e21, "x": 1E21, "s": "9.99999999999999999 in a string", "m": -0}';
    const o = JSON.parse(quoteInexactNumbers(text));
    expect(o).toEqual({ d: '1234567890123456789.0123456789', f: 0.1, i: 7, e: '1e21', x: '1E21', s: '9.99999999999999999 in a string', m: '-0' });
  });
  it('any decimal text survives exactly (property)', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 40n), max: 10n ** 40n }), fc.integer({ min: 0, max: 30 }), (v, scale) => {
        const txt = formatDecimal(v, scale);
        const row = JSON.parse(quoteInexactNumbers(`{"d": ${txt}}`)) as { d: unknown };
        expect(parseDecimal(row.d, scale)).toBe(v);
      }),
    );
  });
});

describe('bytes that are not UTF-8', () => {
  it('decode to surrogate escapes and back to the same bytes (property)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 24 }), (b) => {
        expect(Buffer.from(stringBytes(decodeEscaped(b))).equals(Buffer.from(b))).toBe(true);
      }),
    );
  });
  it('valid UTF-8 decodes as itself', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (s) => {
        expect(decodeEscaped(Buffer.from(s, 'utf8'))).toBe(s);
      }),
    );
  });
  it('are answered as one U+FFFD per run, as ClickHouse JSON writes them', () => {
    expect(displayString(decodeEscaped(Buffer.from('FFFE41', 'hex')))).toBe('\uFFFDA');
    expect(displayString(decodeEscaped(Buffer.from('41C3A9FF', 'hex')))).toBe('Aé\uFFFD');
    expect(displayString(decodeEscaped(Buffer.from('EDA080', 'hex')))).toBe('\uFFFD');
  });
  it('order by their bytes, stay distinct group keys, and print back into SQL as the same bytes', () => {
    const ff = decodeEscaped(Buffer.from('FF', 'hex'));
    const fe = decodeEscaped(Buffer.from('FE', 'hex'));
    const emoji = '\u{1F600}'; // F0 9F 98 80: its first byte is below FE
    expect(compareStrings(fe, ff)).toBeLessThan(0);
    expect(compareStrings(emoji, fe)).toBeLessThan(0);
    expect(valueKey(ff)).not.toBe(valueKey(fe));
    expect(quoteStringLiteral(ff)).toBe("'\\xFF'");
    expect(tokenize(`SELECT ${quoteStringLiteral(ff)}`)[1]!.text).toBe(ff);
  });
});

describe("the API's spellings", () => {
  it('Decimals as exact text, non-finite floats and -0 as strings, wide integers as strings', () => {
    expect(toJson(fromJson('998806085424817.139993', 'Decimal(38, 10)'), 'Decimal(38, 10)')).toBe('998806085424817.139993');
    expect(toJson(NaN, 'Float64')).toBe('nan');
    expect(toJson(Infinity, 'Float32')).toBe('inf');
    expect(toJson(-Infinity, 'Nullable(Float64)')).toBe('-inf');
    expect(toJson(-0, 'Float64')).toBe('-0');
    expect(toJson(0, 'Float64')).toBe(0);
    expect(toJson(fromJson('-170141183460469231731687303715884105728', 'Int128'), 'Int128')).toBe('-170141183460469231731687303715884105728');
    expect(toJson(fromJson({ a: '18446744073709551615' }, 'Map(String, UInt64)'), 'Map(String, UInt64)')).toEqual({ a: '18446744073709551615' });
    expect(toJson(fromJson({ a: 1, b: 'x' }, 'Tuple(a UInt8, b String)'), 'Tuple(a UInt8, b String)')).toEqual({ a: 1, b: 'x' });
  });
  it('Decimal numbers that came through the exact reader parse exactly, exponents included', () => {
    expect(parseDecimal(0.1, 10)).toBe(1000000000n);
    expect(parseDecimal('1e-10', 10)).toBe(1n);
    expect(parseDecimal(1e21, 2)).toBe(10n ** 23n);
  });
});

describe('group keys and ClickHouse order', () => {
  it('-0 and +0 are two group keys (as ClickHouse hashes them), NaN one', () => {
    expect(valueKey(-0)).not.toBe(valueKey(0));
    expect(valueKey([-0])).not.toBe(valueKey([0]));
    expect(valueKey(NaN)).toBe(valueKey(Number.NaN));
  });
  it('Enum by its number, IPv4 as a number, IPv6 by its bytes', () => {
    const e = "Enum8('a' = 1, 'b c' = 2, 'z' = -128)";
    expect(orderKey('z', e)).toBe(-128n);
    expect(orderKey('b c', e)).toBe(2n);
    expect((orderKey('9.0.0.0', 'IPv4') as bigint) < (orderKey('10.0.0.0', 'IPv4') as bigint)).toBe(true);
    expect(orderKey('::ffff:10.0.0.1', 'IPv6')).toBe('00000000000000000000ffff0a000001');
    expect(orderKey('2001:db8::1', 'Nullable(IPv6)')).toBe('20010db8000000000000000000000001');
    expect(orderKey('x', 'String')).toBe('x');
  });
});
