// Window functions, the WINDOW clause, EXTRACT(unit FROM x) and the other SQL-standard keyword forms
// (SUBSTRING ... FROM ... FOR, POSITION ... IN, TRIM ... FROM, DATE/TIMESTAMP literals): each query parses, prints back to
// SQL that parses to the same tree, names its columns as ClickHouse does (the JSON meta names of
// chdb), and the printed SQL returns what the original returns.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { columnName, qualifiersOf } from '../../../shared/core/sql/names.js';
import { printSelect } from '../../../shared/core/sql/print.js';
import { parseSelect } from '../../../shared/core/sql/parse.js';
import { equalStatement } from '../../../shared/core/sql/visit.js';
import { openEngine, type SqlTestEngine } from './chdb-session.js';

let engine: SqlTestEngine;
beforeAll(() => {
  engine = openEngine('window');
});
afterAll(() => engine?.close());

// db.t: a UInt32, b Int64, s String, f Float64, n Nullable(UInt8), d Date, dt DateTime, k UInt64 (50 rows).
const QUERIES = [
  'SELECT k, sum(a) OVER (PARTITION BY a % 2 ORDER BY k ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) FROM db.t ORDER BY k',
  'SELECT k, rank() OVER w, dense_rank() OVER w FROM db.t WINDOW w AS (ORDER BY a) ORDER BY k',
  'SELECT k, lagInFrame(k, 1) OVER (ORDER BY k DESC) FROM db.t ORDER BY k',
  'SELECT k, sum(k) OVER (ORDER BY k RANGE BETWEEN 1 PRECEDING AND 2 FOLLOWING) FROM db.t ORDER BY k',
  'SELECT k, count() OVER () FROM db.t ORDER BY k',
  'SELECT k, avg(k) over (partition by a, 1 order by k desc nulls first rows 2 preceding) FROM db.t ORDER BY k',
  'SELECT k, sum(k) OVER (w ORDER BY k) FROM db.t WINDOW w AS (PARTITION BY a) ORDER BY k',
  'SELECT k, row_number() OVER (PARTITION BY s ORDER BY k ASC, b DESC) AS rn FROM db.t ORDER BY k',
  'SELECT k, sum(k) OVER (ORDER BY k ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) FROM db.t ORDER BY k',
  "SELECT k, leadInFrame(s, 2, 'none') OVER (PARTITION BY a ORDER BY k ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) FROM db.t ORDER BY k",
  'SELECT a, sum(count()) OVER (ORDER BY a) FROM db.t GROUP BY a ORDER BY a',
  'SELECT a, count() * 2 - rank() OVER (ORDER BY count() DESC, a) FROM db.t GROUP BY a ORDER BY a',
  'SELECT k, max(f) OVER (PARTITION BY n ORDER BY k RANGE UNBOUNDED PRECEDING) FROM db.t ORDER BY k',
  'SELECT EXTRACT(MINUTE FROM dt), extract(day from d), EXTRACT(WEEK FROM d), EXTRACT(YEAR FROM dt), EXTRACT(QUARTER FROM d) FROM db.t ORDER BY k LIMIT 5',
  'SELECT EXTRACT(HOUR FROM dt) AS h, EXTRACT(MONTH FROM d), EXTRACT(SECOND FROM dt) FROM db.t ORDER BY k LIMIT 5',
  "SELECT extract(s, '[0-9]+') FROM db.t ORDER BY k LIMIT 3",
  // Ordered by every column: a subtotal's default key (0, '') ties with a real one, and rows tied on
  // every column are the same row, so the order compared is total.
  'SELECT a, s, count() FROM db.t GROUP BY GROUPING SETS ((a), (s, a), ()) ORDER BY a, s, count()',
  'SELECT a, count() FROM db.t GROUP BY GROUPING SETS (a, ()) ORDER BY a, count()',
  "SELECT SUBSTRING(s FROM 2 FOR 2), substring(s FROM 3), POSITION('-' IN s), position(s, '1'), TRIM(BOTH 's' FROM s), TRIM(LEADING 's' FROM s) AS l, trim(TRAILING '1' FROM s) FROM db.t ORDER BY k LIMIT 3",
  "SELECT DATE '2024-01-02', TIMESTAMP '2024-01-02 03:04:05', DATE '2024-01-02' + 1 AS next, count() FROM db.t WHERE d >= DATE '2024-01-10'",
];

describe('window functions and EXTRACT: ClickHouse names and results', () => {
  for (const sql of QUERIES) {
    it(sql, () => {
      const ast = parseSelect(sql);
      const printed = printSelect(ast);
      expect(equalStatement(parseSelect(printed), ast, { strict: true })).toBe(true);
      expect(printSelect(parseSelect(printed))).toBe(printed);
      const theirs = engine.json(`${sql} FORMAT JSON`);
      if (ast.kind !== 'select') throw new Error('expected a SELECT');
      const q = qualifiersOf(ast);
      expect(ast.columns.map((c) => columnName(c, { qualifiers: q }))).toEqual(theirs.meta.map((m) => m.name));
      expect(engine.json(`${printed} FORMAT JSON`).data).toEqual(theirs.data);
    });
  }
});
