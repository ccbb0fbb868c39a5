import { describe, expect, it } from 'vitest';
import { INTEGER_TYPE, unwrapType } from '../../../shared/core/clickhouse/type-wrappers.js';

describe('unwrapType', () => {
  it('reads through Nullable and LowCardinality at any depth, saying whether NULL is allowed', () => {
    expect(unwrapType('UInt64')).toEqual({ inner: 'UInt64', nullable: false });
    expect(unwrapType(' Nullable(Int32) ')).toEqual({ inner: 'Int32', nullable: true });
    expect(unwrapType('LowCardinality(Nullable( String ))')).toEqual({ inner: 'String', nullable: true });
    expect(unwrapType('LowCardinality (String)')).toEqual({ inner: 'String', nullable: false });
  });

  it('leaves other wrappers and a wrapper inside another type alone', () => {
    expect(unwrapType('Array(Nullable(UInt8))')).toEqual({ inner: 'Array(Nullable(UInt8))', nullable: false });
    expect(unwrapType('Tuple(Nullable(UInt8), Nullable(String))').inner).toBe('Tuple(Nullable(UInt8), Nullable(String))');
  });
});

describe('INTEGER_TYPE', () => {
  it("matches ClickHouse's integer types only, with their sign and width", () => {
    expect(INTEGER_TYPE.exec('UInt256')?.slice(1)).toEqual(['U', '256']);
    expect(INTEGER_TYPE.exec('Int8')?.slice(1)).toEqual(['', '8']);
    for (const t of ['Int', 'UInt12', 'Float64', 'Decimal(9, 2)', 'Nullable(Int8)']) expect(INTEGER_TYPE.test(t)).toBe(false);
  });
});
