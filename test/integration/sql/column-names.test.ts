// columnName() must equal the name ClickHouse itself gives each result column: every expression
// of this corpus runs on chdb (ClickHouse 26.x) and the JSON meta name is compared.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { columnName, qualifiersOf } from '../../../core/sql/names.js';
import { parseSelect } from '../../../core/sql/parse.js';
import type { SelectQuery } from '../../../core/sql/ast.js';
import { openEngine, type SqlTestEngine } from './chdb-session.js';

let engine: SqlTestEngine;
beforeAll(() => {
  engine = openEngine('names');
});
afterAll(() => engine?.close());

// Expressions over db.t's columns: a UInt32, b Int64, s String, f Float64, arr Array(UInt8),
// t Tuple(UInt8, String), n Nullable(UInt8), d Date, dt DateTime, k UInt64.
const CORPUS = [
  'a', 'db.t.a', 't.a', 'sum(t.a)', 't.t.1', '`a`', '"s"', 'count()', 'count(*)', 'COUNT()', 'Sum(a)', 'count(DISTINCT a)', 'sum(DISTINCT b)',
  'sum(a)', 'avg(f)', 'min(s)', 'max(dt)', 'uniq(s)', 'uniqExact(a)', 'any(s)', 'countIf(a > 1)', 'sumIf(b, a = 2)',
  'avgIf(f, s LIKE \'s-%\')', 'quantile(0.9)(f)', 'quantiles(0.5, 0.9)(f)', 'topK(3)(s)', 'quantileDistinct(0.5)(a)',
  'quantile(0.5)(DISTINCT a)', 'sumMap([a], [b])', 'groupArray(2)(s)', 'argMax(s, a)',
  'a + b', 'a - b - a', 'a * 2 + 1', '(a + 1) * 2', 'a / 3', 'a % 3', 'a MOD 3', 'a DIV 2', '-a', '-5', '- 5', '-(5)',
  'a - -5', 'a = 1', 'a == 1', 'a != 1', 'a <> 1', 'a < 1', 'a <= 1', 'a > 1', 'a >= 1', "s LIKE 's%'",
  "s NOT LIKE 's%'", "s ILIKE 'S%'", "s NOT ILIKE 'S%'", 'a IN (1, 2)', 'a IN (1)', 'a NOT IN (1, 2)',
  'a IN tuple(1, 2)', '(a, s) IN ((1, \'s-1\'), (2, \'s-2\'))', 'a BETWEEN 1 AND 3', 'a NOT BETWEEN 1 AND 3',
  'n IS NULL', 'n IS NOT NULL', 'a = 1 OR a = 2 OR a = 3', 'a = 1 AND b > 0 AND s != \'\'', 'NOT a = 1',
  'a = 1 OR a = 2 AND b > 0', "s || '-' || s", 'arr[1]', 't.1', 't.2', 'a > 1 ? s : \'no\'',
  'CASE WHEN a = 1 THEN \'one\' WHEN a = 2 THEN \'two\' ELSE \'many\' END', 'CASE WHEN a = 1 THEN 1 END',
  'CASE a WHEN 1 THEN \'one\' ELSE \'other\' END', 'CAST(a AS String)', "CAST(a, 'String')", 'a::String',
  '1::Int8', 'CAST(1 AS Int8)', 'CAST(n AS Nullable(UInt16))', 'INTERVAL 1 DAY', 'dt + INTERVAL 2 HOUR',
  'd - INTERVAL 1 week', 'arrayMap(x -> x + 1, arr)', 'arrayMap((x, y) -> x + y, arr, arr)', 'arrayFilter(x -> x > 0, arr)',
  '[1, 2]', '[]', '[a, a]', '(1, 2)', 'tuple(1, 2)', 'tuple(1)', '(a, s)', "'abc'", "'it''s'", "'a\\\\b'", "'a\\nb'",
  "'tab\\tx'", "'\\0'", "x'4142'", "'ü'", '1', '0', '1.5', '1.50', '1e3', '1E+3', '1e-3', '1e-7', '1e20', '1e30', '0.1',
  '1.', '1.0', '100.', '0x1F', '0b101', '-0x10', '-0', '-0.0', 'inf', '-inf', 'nan', '18446744073709551615',
  '-9223372036854775808', '-9223372036854775809', '123456789012345678901234', 'NULL', 'true', 'false', 'TRUE',
  'sum(a AS x)', 'plus(a AS y, 1)', '(a + 1 AS z) * 2', 'a AS alias1', 'a + b AS alias2', 'toString(a)',
  'toStartOfHour(dt)', 'toDate(dt)', 'if(a > 1, 1, 0)', 'multiIf(a = 1, 1, 2)', 'ifNull(n, 0)', 'coalesce(n, 0)',
  'xxHash64(s)', 'length(arr)', 'concat(s, \'x\')', 'substring(s, 1, 2)', 'lower(s)', 'round(f, 2)',
  'toUInt64(a) * 1000', 'intDiv(a, 2)', 'a * (b + 1)', 'sum(a) / count()', 'divide(sum(a), count())',
  'round(avg(f), 1)', 'uniqCombined(s)', 'quantileTDigest(0.99)(f)', 'anyLast(s)', 'groupUniqArray(s)',
  'max(a) - min(a)', 'countIf(n IS NULL)', 'sum(if(a > 3, 1, 0))', 'toYYYYMM(d)',
];

describe('columnName matches ClickHouse (chdb) for every corpus expression', () => {
  it('corpus is large enough', () => expect(CORPUS.length).toBeGreaterThanOrEqual(60));
  const aggregates = /\b(count|sum|avg|min|max|uniq|any|quantile|topK|groupArray|argMax|anyLast|groupUniqArray|uniqCombined|quantiles|quantileTDigest|quantileDistinct|sumMap|countIf|sumIf|avgIf|uniqExact)\b|COUNT|Sum\(/;
  it('names an aliased table qualifier away, keeps unknown qualifiers', () => {
    const q = parseSelect('SELECT x.a, x.t.1, plus(x.a, 1) FROM db.t AS x') as SelectQuery;
    const names = engine.json('SELECT x.a, x.t.1, plus(x.a, 1) FROM db.t AS x LIMIT 1 FORMAT JSON').meta.map((m) => m.name);
    expect(q.columns.map((c) => columnName(c, { qualifiers: qualifiersOf(q) }))).toEqual(names);
    expect(columnName(q.columns[0]!)).toBe('x.a');
  });
  for (const expr of CORPUS) {
    it(expr, () => {
      const sql = `SELECT ${expr} FROM db.t`;
      const q = parseSelect(sql) as SelectQuery;
      const ours = columnName(q.columns[0]!, { qualifiers: qualifiersOf(q) });
      const theirs = engine.json(`${sql}${aggregates.test(expr) ? '' : ' LIMIT 1'} FORMAT JSON`).meta[0]!.name;
      expect(ours).toBe(theirs);
    });
  }
});
