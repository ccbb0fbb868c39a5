// Query-then-fetch's `auto` choice, pure: the row-width estimate from a table's column types and
// measured String widths, and the choice that flips from one round to two just over the threshold.
import { describe, expect, it } from 'vitest';
import { normalize } from '../../../shared/core/partials/analyze.js';
import { chooseRounds, queryThenFetchRowBytes, requestedQueryThenFetch } from '../../../shared/core/plan/query-then-fetch.js';
import { estimateRowBytes, fixedWidth, isStringLike, type TableWidths } from '../../../shared/core/plan/row-width.js';
import type { SelectQuery } from '../../../shared/core/sql/ast.js';
import { parseSelect } from '../../../shared/core/sql/parse.js';

const TABLE: TableWidths = {
  columns: [
    { name: 'id', type: 'UInt64' },
    { name: 'score', type: 'Float64' },
    { name: 'day', type: 'Date' },
    { name: 'ts', type: "DateTime('UTC')" },
    { name: 'flag', type: 'Nullable(UInt8)' },
    { name: 'code', type: 'FixedString(3)' },
    { name: 'body', type: 'String' },
    { name: 'tag', type: 'LowCardinality(Nullable(String))' },
    { name: 'tags', type: 'Array(String)' },
  ],
  measured: new Map([
    ['body', 612.4],
    ['tag', 3],
  ]),
};

const estimate = (sql: string, table: TableWidths = TABLE) => estimateRowBytes(normalize(parseSelect(sql) as SelectQuery), table);

describe('the row-width estimate', () => {
  it.each([
    // Beyond the sort keys: score and id are keys here, body is not.
    ['SELECT id, score, body FROM t ORDER BY score DESC, id LIMIT 10', 612],
    ['SELECT id, score, day, ts, flag, code FROM t ORDER BY score LIMIT 5', 8 + 2 + 4 + 2 + 3],
    // A sort key named by its alias is still the key; an expression counts the columns it reads.
    ['SELECT id, substring(body, 1, 10) AS b, tag FROM t ORDER BY b LIMIT 5', 8 + 3],
    ['SELECT concat(tag, toString(id)) AS x FROM t ORDER BY id LIMIT 5', 3 + 8],
    // A prefix of a literal length is at most that long; a column read twice travels twice.
    ['SELECT id, substring(body, 1, 10) AS b FROM t ORDER BY id LIMIT 5', 10],
    ['SELECT id, left(body, 1000) FROM t ORDER BY id LIMIT 5', 612],
    ['SELECT id, substringUTF8(body, 1, 100) FROM t ORDER BY id LIMIT 5', 400],
    ['SELECT id, concat(body, body) FROM t ORDER BY id LIMIT 5', 1225],
    ['SELECT id, length(body) FROM t ORDER BY id LIMIT 5', 612],
    ['SELECT id, score FROM t ORDER BY id LIMIT 5', 8],
    ['SELECT id FROM t ORDER BY id LIMIT 5', 0],
  ])('%s: %d bytes', (sql, bytes) => {
    expect(estimate(sql)).toEqual({ bytes });
  });

  it('is unknown where a column has no fixed or measured width', () => {
    expect(estimate('SELECT id, tags FROM t ORDER BY id LIMIT 5')).toEqual({ unknown: 'no width known for tags (Array(String))' });
    expect(estimate('SELECT * FROM t ORDER BY id LIMIT 5')).toMatchObject({ unknown: expect.stringContaining('tags') });
    // An empty table measured nothing: its String column is unknown, not zero.
    expect(estimate('SELECT id, body FROM t ORDER BY id LIMIT 5', { ...TABLE, measured: new Map() })).toMatchObject({
      unknown: expect.stringContaining('body'),
    });
    // A name that is no column of the table (a lambda parameter) counts as nothing.
    expect(estimate('SELECT id, arrayMap(x -> x + 1, [1, 2]) AS a FROM t ORDER BY id LIMIT 5')).toEqual({ bytes: 0 });
  });

  it('knows the fixed widths of the types it sizes, and which are measured', () => {
    expect(
      ['UInt8', 'Int256', 'Float32', 'Decimal(20, 2)', 'Decimal64(4)', 'UUID', 'IPv6', "Enum8('a' = 1)", 'DateTime64(3)', 'LowCardinality(UInt16)'].map(
        fixedWidth,
      ),
    ).toEqual([1, 32, 4, 16, 8, 16, 16, 1, 8, 2]);
    expect(['String', 'Array(UInt8)', 'Map(String, UInt8)'].map(fixedWidth)).toEqual([undefined, undefined, undefined]);
    expect(['String', 'Nullable(String)', 'LowCardinality(String)', 'LowCardinality(Nullable(String))'].every(isStringLike)).toBe(true);
    expect(['FixedString(4)', 'Array(String)', 'UInt8'].some(isStringLike)).toBe(false);
  });
});

describe('the choice', () => {
  it('flips to two rounds just over the threshold', () => {
    expect(chooseRounds({ bytes: 499 }, 500).twoRounds).toBe(false);
    expect(chooseRounds({ bytes: 500 }, 500)).toMatchObject({
      twoRounds: false,
      info: { applied: false, mode: 'auto', rowBytes: 500, thresholdBytes: 500, reason: expect.stringContaining('not over 500') },
    });
    expect(chooseRounds({ bytes: 501 }, 500)).toEqual({ twoRounds: true, info: { applied: false, mode: 'auto', rowBytes: 501, thresholdBytes: 500 } });
    expect(chooseRounds({ bytes: 1 }, 0).twoRounds).toBe(true);
    expect(chooseRounds({ unknown: 'no width known for tags (Array(String))' }, 0)).toMatchObject({
      twoRounds: false,
      info: { reason: expect.stringContaining('tags') },
    });
  });

  it('reads the mode and the threshold from the SETTINGS clause over the request', () => {
    const stmt = parseSelect('SELECT id FROM t ORDER BY id LIMIT 5 SETTINGS ch_scatter_query_then_fetch_row_bytes = 20');
    expect(requestedQueryThenFetch(undefined, stmt)).toBe('auto');
    expect(requestedQueryThenFetch({ ch_scatter_query_then_fetch: 1 }, stmt)).toBe('on');
    expect(requestedQueryThenFetch({ ch_scatter_query_then_fetch: 'false' }, stmt)).toBe('off');
    expect(() => requestedQueryThenFetch({ ch_scatter_query_then_fetch: 'sometimes' }, stmt)).toThrow(/'auto', 1 or 0/);
    expect(queryThenFetchRowBytes({ ch_scatter_query_then_fetch_row_bytes: 7 }, stmt, 500)).toBe(20);
    expect(queryThenFetchRowBytes({ ch_scatter_query_then_fetch_row_bytes: 7 }, undefined, 500)).toBe(7);
    expect(queryThenFetchRowBytes(undefined, undefined, 500)).toBe(500);
    expect(() => queryThenFetchRowBytes({ ch_scatter_query_then_fetch_row_bytes: '1.5' }, undefined, 500)).toThrow(/non-negative integer/);
  });
});
