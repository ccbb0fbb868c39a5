// The coordinator's evaluator: ClickHouse result types and values for the documented functions,
// NULL and NaN semantics, and ORDER BY comparison (NULLS LAST by default in both directions).
import { describe, expect, test } from 'vitest';
import { parseExpression } from '../../../shared/core/sql/index.js';
import { compareForSort, evaluate, supertype, type Typed } from '../../../shared/core/partials/evaluator.js';
import { canon } from '../../../shared/core/partials/ast-build.js';
import { ScatterError } from '../../../shared/core/errors.js';

function ev(sql: string, env: Record<string, Typed> = {}): Typed {
  const bound = new Map(Object.entries(env).map(([k, v]) => [canon(parseExpression(k)), v]));
  return evaluate(parseExpression(sql), (e) => bound.get(canon(e)));
}

describe('types follow ClickHouse', () => {
  test.each([
    ['1 + 1', 'UInt16', 2n],
    ['255 + 1', 'UInt16', 256n],
    ['1 - 2', 'Int16', -1n],
    ['4294967296 * 2', 'UInt64', 8589934592n],
    ['7 / 2', 'Float64', 3.5],
    ['intDiv(7, 2)', 'UInt8', 3n],
    ['7 % 3', 'UInt8', 1n],
    ['-(3)', 'Int16', -3n],
    ['1 < 2', 'UInt8', 1n],
    ["if(1 > 2, 'a', 'b')", 'String', 'b'],
    ['round(2.5)', 'Float64', 2],
    ['round(3.5)', 'Float64', 4],
    ['round(1.23456, 2)', 'Float64', 1.23],
    ['floor(-1.5)', 'Float64', -2],
    ['ceil(1.2)', 'Float64', 2],
    ['abs(-5)', 'UInt8', 5n],
    ['least(3, 1.5)', 'Float64', 1.5],
    ['greatest(3, 200)', 'UInt8', 200n],
  ])('%s -> %s', (sql, type, value) => {
    const r = ev(sql);
    expect(r.t).toBe(type);
    expect(r.v).toEqual(value);
  });

  test('aggregate values: count() * 2 is UInt64, sum(x) / count() is Float64, max - min is signed', () => {
    const env = { 'count()': { v: 10n, t: 'UInt64' }, 'sum(x)': { v: -25n, t: 'Int64' }, 'max(v)': { v: 5n, t: 'Int32' }, 'min(v)': { v: -7n, t: 'Int32' } };
    expect(ev('count() * 2', env)).toEqual({ v: 20n, t: 'UInt64' });
    expect(ev('sum(x) / count()', env)).toEqual({ v: -2.5, t: 'Float64' });
    expect(ev('max(v) - min(v)', env)).toEqual({ v: 12n, t: 'Int64' });
  });

  test('UInt64 arithmetic wraps like ClickHouse', () => {
    const env = { x: { v: 18446744073709551615n, t: 'UInt64' } };
    expect(ev('x + 1', env)).toEqual({ v: 0n, t: 'UInt64' });
  });

  test('supertype of branches', () => {
    expect(supertype(['UInt8', 'Int8'])).toBe('Int16');
    expect(supertype(['UInt64', 'Float32'])).toBe('Float64');
    expect(supertype(['Nullable(Nothing)', 'String'])).toBe('Nullable(String)');
  });
});

describe('NULL semantics', () => {
  const env = { n: { v: null, t: 'Nullable(Int64)' }, k: { v: 3n, t: 'Nullable(Int64)' } };
  test('arithmetic and comparison propagate NULL', () => {
    expect(ev('n + 1', env).v).toBeNull();
    expect(ev('n + 1', env).t).toBe('Nullable(Int64)');
    expect(ev('n > 1', env).v).toBeNull();
  });
  test('three-valued AND/OR, isNull, ifNull, coalesce', () => {
    expect(ev('n > 1 AND 0', env).v).toBe(0n);
    expect(ev('n > 1 OR 1', env).v).toBe(1n);
    expect(ev('n > 1 AND 1', env).v).toBeNull();
    expect(ev('isNull(n)', env).v).toBe(1n);
    expect(ev('ifNull(n, 5)', env)).toEqual({ v: 5n, t: 'Int64' });
    expect(ev('coalesce(n, k, 1)', env).v).toBe(3n);
  });
  test('IN', () => {
    expect(ev('k IN (1, 2, 3)', env).v).toBe(1n);
    expect(ev('k NOT IN (1, 2, 3)', env).v).toBe(0n);
  });
});

test('functions outside the documented set are refused, not guessed', () => {
  expect(() => ev("reverse('A')")).toThrow(ScatterError);
  expect(() => ev('1 / 0')).not.toThrow();
  expect(ev('1 / 0').v).toBe(Infinity);
  expect(() => ev('intDiv(1, 0)')).toThrow(/Division by zero/);
});

describe('ORDER BY comparison', () => {
  const sorted = (vals: (number | null)[], s: Parameters<typeof compareForSort>[2]) => [...vals].sort((a, b) => compareForSort(a, b, s));
  test('default: values, then NaN, then NULL, in both directions', () => {
    expect(sorted([null, 2, NaN, 1], { direction: 'ASC' })).toEqual([1, 2, NaN, null]);
    expect(sorted([null, 2, NaN, 1], { direction: 'DESC' })).toEqual([2, 1, NaN, null]);
  });
  test('NULLS FIRST: NULL, NaN, then values', () => {
    expect(sorted([2, null, NaN, 1], { direction: 'ASC', nulls: 'FIRST' })).toEqual([null, NaN, 1, 2]);
    expect(sorted([2, null, NaN, 1], { direction: 'DESC', nulls: 'FIRST' })).toEqual([null, NaN, 2, 1]);
  });
});

describe('the function tables', () => {
  test("names of Object's own members are functions like any other: unknown ones refused, toString evaluated", () => {
    for (const name of ['constructor', 'hasOwnProperty', 'valueOf', '__proto__']) {
      expect(() => ev(`${name}(1)`), name).toThrow(ScatterError);
    }
    expect(ev('toString(42)')).toEqual({ v: '42', t: 'String' });
  });
});
