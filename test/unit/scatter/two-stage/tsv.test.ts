import { describe, expect, it } from 'vitest';
import { countRows, inexactInTsv, rowBoundary, sameColumns, splitTsvAnswer, unescapeTsv } from '../../../../shared/core/scatter/two-stage/tsv.js';

describe('TabSeparatedWithNamesAndTypes answers', () => {
  it('splits header and body; types keep their commas and spaces; rows are counted by newline', () => {
    const bytes = Buffer.concat([
      Buffer.from('k\ta\\tb\nString\tAggregateFunction(quantiles(0.5, 0.9), Float64)\n'),
      Buffer.from([0x78, 0x09, 0x00, 0xff, 0x5c, 0x6e, 0x0a]), // x <TAB> \0 \xff "\n" escaped, then the row end
      Buffer.from('y\t\\0\n'),
    ]);
    const a = splitTsvAnswer(bytes);
    expect(a.columns).toEqual([
      { name: 'k', type: 'String' },
      { name: 'a\tb', type: 'AggregateFunction(quantiles(0.5, 0.9), Float64)' },
    ]);
    expect(a.rows).toBe(2);
    expect(a.body.equals(bytes.subarray(bytes.indexOf(0x0a, bytes.indexOf(0x0a) + 1) + 1))).toBe(true);
  });

  it('an empty result keeps its header (ClickHouse writes it for zero rows)', () => {
    const a = splitTsvAnswer(Buffer.from('k\tc\nString\tUInt64\n'));
    expect(a.rows).toBe(0);
    expect(a.body.length).toBe(0);
    expect(a.columns.map((c) => c.type)).toEqual(['String', 'UInt64']);
  });

  it('with a RowBinary body (one row per shard): the bytes after the header are that row, or none, whatever bytes they hold', () => {
    const row = Buffer.from([0x0a, 0x00, 0x09, 0xff]); // newline and tab bytes inside a binary state
    const a = splitTsvAnswer(Buffer.concat([Buffer.from('u\nAggregateFunction(uniq, UInt32)\n'), row]), 'RowBinary');
    expect(a.rows).toBe(1);
    expect(a.body.equals(row)).toBe(true);
    expect(splitTsvAnswer(Buffer.from('u\nAggregateFunction(uniq, UInt32)\n'), 'RowBinary').rows).toBe(0);
  });

  it('refuses answers without a header, with a header of unequal length, or cut inside a row', () => {
    expect(() => splitTsvAnswer(Buffer.from('k\n'))).toThrow(/two header lines/);
    expect(() => splitTsvAnswer(Buffer.from('k\tc\nString\n'))).toThrow(/2 names but 1 types/);
    expect(() => splitTsvAnswer(Buffer.from('k\nString\nabc'))).toThrow(/truncated/);
  });

  it('unescapes ClickHouse TSV escapes and leaves the rest', () => {
    expect(unescapeTsv("a\\tb\\nc\\\\d\\'e\\0f\\x")).toBe("a\tb\nc\\d'e\0fx");
    expect(unescapeTsv('plain')).toBe('plain');
  });

  it('counts rows and finds row boundaries', () => {
    const b = Buffer.from('a\nbb\nccc\n');
    expect(countRows(b)).toBe(3);
    expect(rowBoundary(b, 2)).toBe(5);
    expect(rowBoundary(b, 9)).toBe(b.length);
  });

  it('compares headers by names and types in order', () => {
    const a = [
      { name: 'k', type: 'String' },
      { name: 'c', type: 'UInt64' },
    ];
    expect(sameColumns(a, [...a])).toBe(true);
    expect(sameColumns(a, [a[0]!, { name: 'c', type: 'UInt32' }])).toBe(false);
    expect(sameColumns(a, [a[1]!, a[0]!])).toBe(false);
  });
});

describe('inexactInTsv: the types TabSeparated writes without what they hold', () => {
  const col = (type: string) => ({ name: 'c', type });
  it.each([
    ['JSON', true],
    ['Dynamic', true],
    ['Nullable(Variant(String, UInt64))', true],
    ['Array(JSON(a UInt32))', true],
    ["Object('json')", true],
    ['SimpleAggregateFunction(any, Dynamic)', true],
    ['Tuple(a Dynamic, b UInt8)', true],
    ['AggregateFunction(any, Dynamic)', false],
    ['Tuple(AggregateFunction(any, JSON), UInt8)', false],
    ['AggregateFunction(groupArray, Variant(String, UInt8))', false],
    ['String', false],
    ['Map(String, Array(Nullable(Int64)))', false],
    ['LowCardinality(String)', false],
  ] as const)('%s: %s', (type, inexact) => {
    expect(inexactInTsv([col('UInt8'), col(type)])?.type).toBe(inexact ? type : undefined);
  });
});
