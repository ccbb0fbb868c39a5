// Literal -> sharding-key value, the intent of ClickHouse's 01756 test: conversion to the key's
// declared type first; out-of-range values live nowhere; unconvertible ones are TYPE_MISMATCH.
import { describe, expect, it } from 'vitest';
import { keyLiteral, NOWHERE, UNEVALUATED, UNKNOWN } from '../../../shared/core/plan/key-literal.js';
import type { Expr } from '../../../shared/core/sql/ast.js';

const pos = { line: 2, column: 7, offset: 12 };
const int = (v: string): Expr => ({ kind: 'literal', type: 'integer', value: v, pos });
const str = (v: string): Expr => ({ kind: 'literal', type: 'string', value: v, pos });
const flt = (v: string): Expr => ({ kind: 'literal', type: 'float', value: v, pos });
const neg = (e: Expr): Expr => ({ kind: 'function', name: 'negate', args: [e], operator: '-' });

function mismatch(f: () => unknown): { code: string; position?: unknown } {
  try {
    f();
  } catch (e) {
    return e as { code: string; position?: unknown };
  }
  throw new Error('expected TYPE_MISMATCH');
}

describe('keyLiteral', () => {
  it('unsigned boundaries: 0 and max fit, one past is nowhere, negatives are nowhere', () => {
    expect(keyLiteral(int('0'), 'UInt8', 'k')).toBe(0n);
    expect(keyLiteral(int('255'), 'UInt8', 'k')).toBe(255n);
    expect(keyLiteral(int('256'), 'UInt8', 'k')).toBe(NOWHERE);
    expect(keyLiteral(neg(int('1')), 'UInt8', 'k')).toBe(NOWHERE);
    expect(keyLiteral(int('18446744073709551615'), 'UInt64', 'k')).toBe(18446744073709551615n);
    expect(keyLiteral(int('18446744073709551616'), 'UInt64', 'k')).toBe(NOWHERE);
    expect(keyLiteral(int('0xFF'), 'UInt8', 'k')).toBe(255n);
  });

  it('signed boundaries', () => {
    expect(keyLiteral(neg(int('128')), 'Int8', 'k')).toBe(-128n);
    expect(keyLiteral(int('-129'), 'Int8', 'k')).toBe(NOWHERE);
    expect(keyLiteral(int('127'), 'Int8', 'k')).toBe(127n);
    expect(keyLiteral(int('128'), 'Int8', 'k')).toBe(NOWHERE);
    expect(keyLiteral(neg(int('9223372036854775808')), 'Int64', 'k')).toBe(-9223372036854775808n);
    expect(keyLiteral(int('9223372036854775808'), 'Int64', 'k')).toBe(NOWHERE);
  });

  it('type conversion: strings parse as integers, whole floats convert, fractions match nothing', () => {
    expect(keyLiteral(str('255'), 'UInt8', 'k')).toBe(255n);
    expect(keyLiteral(flt('1e3'), 'UInt16', 'k')).toBe(1000n);
    expect(keyLiteral(flt('1.5'), 'UInt16', 'k')).toBe(NOWHERE);
    const e = mismatch(() => keyLiteral(str('255foo'), 'UInt8', 'k'));
    expect(e.code).toBe('TYPE_MISMATCH');
    expect(e.position).toEqual({ line: 2, column: 7 });
  });

  it('a number compared to a String key is TYPE_MISMATCH; NULL and expressions are unknown', () => {
    expect(mismatch(() => keyLiteral(int('0'), 'String', 'sensor')).code).toBe('TYPE_MISMATCH');
    expect(keyLiteral({ kind: 'literal', type: 'null', value: '' }, 'String', 's')).toBe(UNKNOWN);
    // A constant call: folded by ClickHouse's analyzer against `=` and in a set (ClickHouse's 01072 and 01756), by one engine here.
    expect(keyLiteral({ kind: 'function', name: 'toUInt8', args: [int('0')] }, 'UInt8', 's')).toBe(UNEVALUATED);
    expect(keyLiteral({ kind: 'function', name: 'toUInt8', args: [int('0')] }, 'UInt8', 's', true)).toBe(UNEVALUATED);
    expect(keyLiteral({ kind: 'function', name: 'rand', args: [] }, 'UInt8', 's')).toBe(UNKNOWN);
    expect(keyLiteral({ kind: 'function', name: 'toUInt8', args: [{ kind: 'column', parts: ['v'] }] }, 'UInt8', 's')).toBe(UNKNOWN);
    expect(keyLiteral(str('a'), 'String', 's')).toBe('a');
  });

  it('an IN element for a String key: an integer is its decimal text, a float is not narrowed', () => {
    expect(keyLiteral(int('0'), 'String', 's', true)).toBe('0');
    expect(keyLiteral(neg(int('3')), 'String', 's', true)).toBe('-3');
    expect(keyLiteral(int('0x10'), 'String', 's', true)).toBe('16');
    expect(keyLiteral(int('18446744073709551615'), 'String', 's', true)).toBe('18446744073709551615');
    expect(keyLiteral(int('18446744073709551616'), 'String', 's', true)).toBe(UNKNOWN);
    expect(keyLiteral({ kind: 'literal', type: 'bool', value: 'true' }, 'String', 's', true)).toBe('1');
    expect(keyLiteral(flt('2.0'), 'String', 's', true)).toBe(UNKNOWN);
    expect(keyLiteral(str('a'), 'String', 's', true)).toBe('a');
  });

  it('dates convert through the router coercion', () => {
    expect(keyLiteral(str('1970-01-02'), 'Date', 'd')).toBe(1);
    expect(mismatch(() => keyLiteral(str('2024-13-01'), 'Date', 'd')).code).toBe('TYPE_MISMATCH');
    expect(keyLiteral(str('1970-01-01 00:01:00'), 'DateTime', 'd')).toBe(60);
  });
});
