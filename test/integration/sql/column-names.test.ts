// columnName() must equal the name ClickHouse itself gives each result column: every expression
// of this corpus runs on chdb (ClickHouse 26.x) and the JSON meta name is compared.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { columnName, qualifiersOf } from '../../../shared/core/sql/names.js';
import { normalize } from '../../../shared/core/partials/analyze.js';
import { splitQuery } from '../../../shared/core/partials/index.js';
import { printSelect } from '../../../shared/core/sql/print.js';
import { numberSubqueries } from '../../../shared/core/sql/subquery-numbers.js';
import { parseSelect } from '../../../shared/core/sql/parse.js';
import type { SelectQuery } from '../../../shared/core/sql/ast.js';
import { openEngine, type SqlTestEngine } from './chdb-session.js';

let engine: SqlTestEngine;
beforeAll(() => {
  engine = openEngine('names');
});
afterAll(() => engine?.close());

// Expressions over db.t's columns: a UInt32, b Int64, s String, f Float64, arr Array(UInt8),
// t Tuple(UInt8, String), n Nullable(UInt8), d Date, dt DateTime, k UInt64.
const CORPUS = [
  'a',
  'db.t.a',
  't.a',
  'sum(t.a)',
  't.t.1',
  '`a`',
  '"s"',
  'count()',
  'avgWeighted(100., .1)',
  'count() FILTER (WHERE a > 1)',
  "sum(b) FILTER (WHERE s = 'x')",
  'quantile(0.5)(f) FILTER (WHERE a > 0)',
  'f * .5E-1',
  'count(*)',
  'COUNT()',
  'Sum(a)',
  'count(DISTINCT a)',
  'sum(DISTINCT b)',
  'sum(a)',
  'avg(f)',
  'min(s)',
  'max(dt)',
  'uniq(s)',
  'uniqExact(a)',
  'any(s)',
  'countIf(a > 1)',
  'sumIf(b, a = 2)',
  "avgIf(f, s LIKE 's-%')",
  'quantile(0.9)(f)',
  'quantiles(0.5, 0.9)(f)',
  'topK(3)(s)',
  'quantileDistinct(0.5)(a)',
  'quantile(0.5)(DISTINCT a)',
  'sumMap([a], [b])',
  'groupArray(2)(s)',
  'argMax(s, a)',
  'a + b',
  'a - b - a',
  'a * 2 + 1',
  '(a + 1) * 2',
  'a / 3',
  'a % 3',
  'a MOD 3',
  'a DIV 2',
  '-a',
  '-5',
  '- 5',
  '-(5)',
  'a - -5',
  'a = 1',
  'a == 1',
  'a != 1',
  'a <> 1',
  'a < 1',
  'a <= 1',
  'a > 1',
  'a >= 1',
  "s LIKE 's%'",
  "s NOT LIKE 's%'",
  "s ILIKE 'S%'",
  "s NOT ILIKE 'S%'",
  'a IN (1, 2)',
  'a IN (1)',
  'a NOT IN (1, 2)',
  'a IN tuple(1, 2)',
  "(a, s) IN ((1, 's-1'), (2, 's-2'))",
  'a BETWEEN 1 AND 3',
  'a NOT BETWEEN 1 AND 3',
  'n IS NULL',
  'n IS NOT NULL',
  'a = 1 OR a = 2 OR a = 3',
  "a = 1 AND b > 0 AND s != ''",
  'NOT a = 1',
  'a = 1 OR a = 2 AND b > 0',
  "s || '-' || s",
  'arr[1]',
  't.1',
  't.2',
  "a > 1 ? s : 'no'",
  "CASE WHEN a = 1 THEN 'one' WHEN a = 2 THEN 'two' ELSE 'many' END",
  'CASE WHEN a = 1 THEN 1 END',
  "CASE a WHEN 1 THEN 'one' ELSE 'other' END",
  'CAST(a AS String)',
  "CAST(a, 'String')",
  'a::String',
  '1::Int8',
  'CAST(1 AS Int8)',
  'CAST(n AS Nullable(UInt16))',
  'INTERVAL 1 DAY',
  'dt + INTERVAL 2 HOUR',
  'd - INTERVAL 1 week',
  'arrayMap(x -> x + 1, arr)',
  'arrayMap((x, y) -> x + y, arr, arr)',
  'arrayFilter(x -> x > 0, arr)',
  '[1, 2]',
  '[]',
  '[a, a]',
  '(1, 2)',
  'tuple(1, 2)',
  'tuple(1)',
  '(a, s)',
  "'abc'",
  "'it''s'",
  "'a\\\\b'",
  "'a\\nb'",
  "'tab\\tx'",
  "'\\0'",
  "x'4142'",
  "'ü'",
  '1',
  '0',
  '1.5',
  '1.50',
  '1e3',
  '1E+3',
  '1e-3',
  '1e-7',
  '1e20',
  '1e30',
  '0.1',
  '1.',
  '1.0',
  '100.',
  '0x1F',
  '0b101',
  '-0x10',
  '-0',
  '-0.0',
  'inf',
  '-inf',
  'nan',
  '18446744073709551615',
  '-9223372036854775808',
  '-9223372036854775809',
  '123456789012345678901234',
  'NULL',
  'true',
  'false',
  'TRUE',
  'sum(a AS x)',
  'plus(a AS y, 1)',
  '(a + 1 AS z) * 2',
  'a AS alias1',
  'a + b AS alias2',
  'toString(a)',
  'toStartOfHour(dt)',
  'toDate(dt)',
  'if(a > 1, 1, 0)',
  'multiIf(a = 1, 1, 2)',
  'ifNull(n, 0)',
  'coalesce(n, 0)',
  'xxHash64(s)',
  'length(arr)',
  "concat(s, 'x')",
  'substring(s, 1, 2)',
  'lower(s)',
  'round(f, 2)',
  'toUInt64(a) * 1000',
  'intDiv(a, 2)',
  'a * (b + 1)',
  'sum(a) / count()',
  'divide(sum(a), count())',
  'round(avg(f), 1)',
  'uniqCombined(s)',
  'quantileTDigest(0.99)(f)',
  'anyLast(s)',
  'groupUniqArray(s)',
  'max(a) - min(a)',
  'countIf(n IS NULL)',
  'sum(if(a > 3, 1, 0))',
  'toYYYYMM(d)',
  // Float literals spelled in ways ClickHouse normalizes, inside the constructs that carry them.
  'quantile(0.90)(f)',
  'quantiles(0.50, 0.90, 0.990)(f)',
  'quantileTDigest(1e-1)(f)',
  '0.90',
  '-0.0 + f',
  '1.5e-10',
  'f * 1.10',
  'sum(f * 1.10)',
  'round(sum(f * 1.10), 2)',
  'avg(f) + 0.10',
  'countIf(f > 0.90)',
  'if(a > 1, 0.50, 1e3)',
  'sum(-0.0 + f)',
  'max(f) - min(f) * 2.50',
  "concat('\\n', s, '\\'', '\\\\')",
  "concat(s, 'a\\tb', '\\0')",
  "countIf(s = 'it\\'s')",
  'plus(multiply(a, 2), 1)',
  'toString(toUInt64(round(f, 1)))',
  'arrayMap(x -> (x * 1.50), arr)',
  'arraySum(arrayMap(x -> x + 0.10, arr))',
  'a IN (1, 2, 3)',
  'a NOT IN (0.50, 1)',
  "s IN ('s-1', 'it\\'s')",
  '(a, 1.0)',
  '[1.10, 2]',
  'tuple(a, (b, 0.90))',
  'CAST(f AS Decimal(10, 2))',
  'CAST(0.90 AS Float32)',
  '0.90::Float32',
  'sum(a) AS total',
  'sum(a AS x) + 1',
  '[true, 2]',
  '[[1], [2.5]]',
  '[1, NULL, -2.5]',
  '[0x10, 1e3]',
  'has([1, 2.5], a)',
  '[a, 1.5]',
  '[(1, 2.5), (2, 3)]',
  'a IN [1, 2.5]',
  'sum(t.a) + max(db.t.b)',
  'CASE a WHEN 1 THEN 0.90 ELSE 1e3 END',
  "max(CASE s WHEN 's-1' THEN f END)",
];

/** Expressions that aggregate: run without LIMIT (which would not change their one row anyway). */
const aggregates =
  /\b(count|sum|avg|min|max|uniq|any|quantile|topK|groupArray|argMax|anyLast|groupUniqArray|uniqCombined|quantiles|quantileTDigest|quantileDistinct|sumMap|countIf|sumIf|avgIf|uniqExact)\b|COUNT|Sum\(/;

describe('columnName matches ClickHouse (chdb) for every corpus expression', () => {
  it('corpus is large enough', () => expect(CORPUS.length).toBeGreaterThanOrEqual(60));
  it('corpus has no duplicates', () => expect(new Set(CORPUS).size).toBe(CORPUS.length));
  it('names an aliased table qualifier away, keeps unknown qualifiers', () => {
    const q = parseSelect('SELECT x.a, x.t.1, plus(x.a, 1) FROM db.t AS x') as SelectQuery;
    const names = engine.json('SELECT x.a, x.t.1, plus(x.a, 1) FROM db.t AS x LIMIT 1 FORMAT JSON').meta.map((m) => m.name);
    expect(q.columns.map((c) => columnName(c, { qualifiers: qualifiersOf(q) }))).toEqual(names);
    expect(columnName(q.columns[0]!)).toBe('x.a');
  });
  it('names GROUPING in any case grouping(...), as ClickHouse spells it', () => {
    const sql = 'SELECT GROUPING(a), Grouping(a, a % 2), grouping(a % 2) FROM db.t GROUP BY a, a % 2';
    const q = parseSelect(sql) as SelectQuery;
    const names = engine.json(`${sql} LIMIT 1 FORMAT JSON`).meta.map((m) => m.name);
    expect(q.columns.map((c) => columnName(c))).toEqual(names);
    expect(names[0]).toBe('grouping(a)');
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

// ClickHouse numbers subqueries (_subquery_N) in the order its analyzer resolves them: every one of
// these statements' column names, as numberSubqueries and columnName give them, against chdb's.
describe('subquery numbers in column names match ClickHouse (chdb)', () => {
  const STATEMENTS = [
    'SELECT (SELECT 1), (SELECT 2) AS x, (SELECT 3), 1 < (SELECT 4) FROM db.t',
    'SELECT a IN (SELECT 1), (SELECT 2) FROM db.t',
    'SELECT (SELECT 1) FROM db.t WHERE a < (SELECT 5)',
    'SELECT (SELECT (SELECT 1)), (SELECT 7) FROM db.t',
    'SELECT sum(a IN (SELECT 0)), (SELECT 2) FROM db.t',
    'SELECT (SELECT 1) FROM (SELECT a FROM db.t WHERE a < (SELECT 3))',
    'SELECT (SELECT 1) + (SELECT 1) FROM db.t',
    'SELECT a < (SELECT 1) FROM db.t',
    'SELECT (SELECT max(a) FROM db.t) - a, (SELECT 2) FROM db.t AS x JOIN (SELECT a FROM db.t) AS y ON x.a = y.a',
  ];
  for (const sql of STATEMENTS) {
    it(sql, () => {
      const q = parseSelect(sql) as SelectQuery;
      numberSubqueries(q);
      const theirs = engine.json(`${sql} LIMIT 1 FORMAT JSON`).meta.map((m) => m.name);
      expect(q.columns.map((c) => columnName(c, { qualifiers: qualifiersOf(q) }))).toEqual(theirs);
    });
  }
});

// The names the product answers with come from the partials' normalize() (`outName`, which calls
// columnName): checked here on the same corpus, and for aggregate queries through the whole split,
// shard query on chdb, merge and finalize.
describe('the result names ch-scatter answers with match ClickHouse (chdb)', () => {
  const theirName = (expr: string): string => engine.json(`SELECT ${expr} FROM db.t${aggregates.test(expr) ? '' : ' LIMIT 1'} FORMAT JSON`).meta[0]!.name;
  for (const expr of CORPUS) {
    it(expr, () => {
      const q = parseSelect(`SELECT ${expr} FROM db.t`) as SelectQuery;
      expect(normalize(q).columns[0]!.outName).toBe(theirName(expr));
    });
  }

  const MERGED = [
    'quantile(0.90)(f)',
    'quantiles(0.50, 0.90)(f)',
    'round(sum(f * 1.10), 2)',
    'avg(f) + 0.10',
    'countIf(f > 0.90)',
    "countIf(s = 'it\\'s')",
    'sum(a AS x)',
    'sum(t.a) + max(db.t.b)',
    "max(CASE s WHEN 's-1' THEN f END)",
    'count(DISTINCT a)',
    'uniq(s)',
    'sum(a) / count()',
  ];
  for (const expr of MERGED) {
    it(`split, merged and finalized: ${expr}`, () => {
      const sql = `SELECT ${expr}, count() FROM db.t`;
      const split = splitQuery(parseSelect(sql) as SelectQuery, { shardCount: 1, shardSizeFactor: 1.5, shardSizeAdd: 10, maxRowsToTransfer: 100_000 });
      const merger = split.createMerger();
      const shard = engine.json(`${printSelect(split.shardQuery)} FORMAT JSON`);
      merger.add(0, shard.data, shard.meta);
      expect(merger.finalize().meta.map((m) => m.name)).toEqual(engine.json(`${sql} FORMAT JSON`).meta.map((m) => m.name));
    });
  }
});

// A JSON column's values are objects in ClickHouse's JSON, which the split's merge has no value for: it
// refuses them, rather than merge the text "[object Object]" as a key or a value.
describe('a JSON column through the split on chdb', () => {
  beforeAll(() => {
    engine.session.query('CREATE TABLE db.jv (id UInt8, j JSON) ENGINE = MergeTree ORDER BY id', 'CSV');
    engine.session.query(`INSERT INTO db.jv VALUES (1, '{"a":1,"b":{"c":2}}'), (2, '{"a":"x"}'), (3, '{"a":1,"b":{"c":2}}')`, 'CSV');
  });
  for (const sql of ['SELECT id, j FROM db.jv ORDER BY id', 'SELECT j, count() AS n FROM db.jv GROUP BY j ORDER BY n DESC']) {
    it(sql, () => {
      const split = splitQuery(parseSelect(sql) as SelectQuery, { shardCount: 1, shardSizeFactor: 1.5, shardSizeAdd: 10, maxRowsToTransfer: 100_000 });
      const merger = split.createMerger();
      const shard = engine.json(`${printSelect(split.shardQuery)} FORMAT JSON`);
      // The engine's own answer holds the objects.
      expect(JSON.stringify(engine.json(`${sql} FORMAT JSON`).data)).toContain('{"a":"x"}');
      expect(() => {
        merger.add(0, shard.data, shard.meta);
        merger.finalize();
      }).toThrow(/a value of type JSON cannot be merged by the fast path/);
    });
  }
});

// A JSON column's typed path (`j.a.:Int64`) and sub-object (`j.^b`): the printed SQL reads on chdb
// as the text as written does, with the same names and rows, and the split answers with them too.
describe("a JSON column's typed path and sub-object on chdb", () => {
  beforeAll(() => {
    engine.session.query('CREATE TABLE db.jt (id UInt8, j JSON) ENGINE = MergeTree ORDER BY id', 'CSV');
    engine.session.query(`INSERT INTO db.jt VALUES (1, '{"a":1,"b":{"c":2}}'), (2, '{"a":"x","b":{"d":3}}'), (3, '{"a":5}')`, 'CSV');
  });
  const SQL = 'SELECT j.a.:Int64, j.^b FROM db.jt ORDER BY id';
  it('printed, it gives the names and rows of the text as written', () => {
    const q = parseSelect(SQL) as SelectQuery;
    const printed = printSelect(q);
    expect(printed).toBe(SQL);
    const theirs = engine.json(`${SQL} FORMAT JSON`);
    const ours = engine.json(`${printed} FORMAT JSON`);
    expect(ours.meta).toEqual(theirs.meta);
    expect(ours.data).toEqual(theirs.data);
    expect(theirs.meta.map((m) => m.name)).toEqual(['j.a.:`Int64`', 'j.^`b`']);
    expect(theirs.data).toHaveLength(3);
    expect(q.columns.map((c) => columnName(c, { qualifiers: qualifiersOf(q) }))).toEqual(theirs.meta.map((m) => m.name));
    expect(normalize(q).columns.map((c) => c.outName)).toEqual(theirs.meta.map((m) => m.name));
  });
  it('split, merged and finalized, it answers with the same names and rows', () => {
    const sql = 'SELECT j.a.:Int64, count() FROM db.jt GROUP BY j.a.:Int64 ORDER BY j.a.:Int64';
    const split = splitQuery(parseSelect(sql) as SelectQuery, { shardCount: 1, shardSizeFactor: 1.5, shardSizeAdd: 10, maxRowsToTransfer: 100_000 });
    const merger = split.createMerger();
    const shard = engine.json(`${printSelect(split.shardQuery)} FORMAT JSON`);
    merger.add(0, shard.data, shard.meta);
    const merged = merger.finalize();
    const theirs = engine.json(`${sql} FORMAT JSON`);
    expect(merged.meta.map((m) => m.name)).toEqual(theirs.meta.map((m) => m.name));
    expect(merged.data.map((r) => Object.values(r).map(String))).toEqual(theirs.data.map((r) => Object.values(r).map(String)));
  });
});
