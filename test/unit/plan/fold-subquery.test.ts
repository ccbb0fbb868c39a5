// The fold rewrite alone: which subqueries fold, what the folded SELECT says, and why the others
// stay (their answers are checked against chdb in test/integration/two-stage/fold-chdb.test.ts).
import { describe, expect, it } from 'vitest';
import { parseTopology } from '../../../shared/core/config/load.js';
import { foldSubqueries } from '../../../shared/core/plan/fold-subquery.js';
import { parseSelect, printSelect } from '../../../shared/core/sql/index.js';

const topo = parseTopology({
  cluster: 'c',
  shards: [{ replicas: [{ embedded: '/nonexistent/0' }] }],
  tables: { 'db.dist': { local: 'db.local', shardingKey: { column: 'k', type: 'String', function: 'xxHash64' } } },
});
const fold = (sql: string) => {
  const f = foldSubqueries(parseSelect(sql), topo);
  return { sql: printSelect(f.statement), notes: f.notes };
};

describe('folded', () => {
  const cases: [string, string][] = [
    ['SELECT site, count() FROM (SELECT * FROM db.dist) GROUP BY site', 'SELECT site, count() FROM db.dist GROUP BY site'],
    [
      "SELECT a, count() FROM (SELECT x AS a, y FROM db.dist WHERE y > 0) WHERE a != '' GROUP BY a",
      "SELECT x AS a, count() FROM db.dist WHERE y > 0 AND x != '' GROUP BY x",
    ],
    // The output keeps the name ClickHouse gives the outer column.
    ['SELECT a + 1 FROM (SELECT x AS a FROM db.dist)', 'SELECT x + 1 AS `plus(a, 1)` FROM db.dist'],
    ['SELECT * FROM (SELECT x AS a, y FROM db.dist) AS v WHERE v.a = 1', 'SELECT x AS a, y FROM db.dist WHERE x = 1'],
    ['SELECT v.* FROM (SELECT * FROM db.dist) AS v', 'SELECT * FROM db.dist'],
    // Nested virtual datasets fold from the inside out.
    ['SELECT b FROM (SELECT a AS b FROM (SELECT x AS a FROM db.dist WHERE z = 1) WHERE a > 2)', 'SELECT x AS b FROM db.dist WHERE z = 1 AND x > 2'],
    // An output alias that names a column the moved filter reads: the column is qualified, which no alias captures.
    ['SELECT x AS k, count() FROM (SELECT * FROM db.dist WHERE k = 1) GROUP BY x', 'SELECT x AS k, count() FROM db.dist AS dist WHERE dist.k = 1 GROUP BY x'],
    ['SELECT a, count() FROM (SELECT x AS a FROM db.dist PREWHERE y = 1) GROUP BY a', 'SELECT x AS a, count() FROM db.dist PREWHERE y = 1 GROUP BY x'],
    // In a JOIN's table or an IN subquery too.
    [
      'SELECT count() FROM db.dist WHERE k GLOBAL IN (SELECT a FROM (SELECT k AS a FROM db.dist WHERE y = 2))',
      'SELECT count() FROM db.dist WHERE k GLOBAL IN (SELECT k AS a FROM db.dist WHERE y = 2)',
    ],
    [
      'SELECT arrayMap(i -> i + a, [1]) FROM (SELECT x AS a FROM db.dist)',
      'SELECT arrayMap(i -> i + x, [1]) AS `arrayMap(lambda(tuple(i), plus(i, a)), [1])` FROM db.dist',
    ],
  ];
  for (const [sql, want] of cases) {
    it(sql, () => {
      const f = fold(sql);
      expect(f.sql).toBe(want);
      expect(f.notes.every((n) => n.includes('folded into the outer SELECT'))).toBe(true);
    });
  }
});

describe('not folded', () => {
  const cases: [string, string][] = [
    ['SELECT count() FROM (SELECT * FROM db.dist LIMIT 10)', 'LIMIT'],
    ['SELECT count() FROM (SELECT x FROM db.dist LIMIT 1 BY y)', 'LIMIT BY'],
    ['SELECT count() FROM (SELECT DISTINCT x FROM db.dist)', 'DISTINCT'],
    ['SELECT c FROM (SELECT x, count() AS c FROM db.dist GROUP BY x)', 'GROUP BY'],
    ['SELECT c FROM (SELECT sum(y) AS c FROM db.dist)', 'the aggregate sum()'],
    ['SELECT r FROM (SELECT rank() OVER (ORDER BY x) AS r FROM db.dist)', 'a window function'],
    ['SELECT a FROM (SELECT arrayJoin(arr) AS a FROM db.dist)', 'arrayJoin()'],
    ['SELECT a FROM (SELECT a FROM db.dist ARRAY JOIN arr AS a)', 'ARRAY JOIN'],
    ['SELECT r FROM (SELECT runningDifference(x) AS r FROM db.dist) WHERE r > 0', 'runningDifference()'],
    ['SELECT r FROM (SELECT rowNumberInBlock() AS r FROM db.dist)', 'rowNumberInBlock()'],
    ['SELECT r FROM (SELECT rand() AS r FROM db.dist) WHERE r > 5', 'rand()'],
    ['SELECT count() FROM (SELECT * FROM db.dist SAMPLE 1 / 2)', 'SAMPLE'],
    ['SELECT count() FROM (SELECT * FROM db.dist FINAL)', 'FINAL'],
    ['SELECT count() FROM (SELECT * FROM db.dist AS a JOIN db.dist AS b USING k)', 'JOIN'],
    ['SELECT count() FROM (SELECT * FROM db.dist) AS v JOIN db.dist AS w ON v.k = w.k', 'JOIN'],
    ['SELECT count() FROM (SELECT * FROM db.dist ORDER BY x)', 'ORDER BY'],
    ['SELECT count() FROM (SELECT * FROM db.dist) PREWHERE x = 1', 'PREWHERE over a subquery'],
    ['SELECT count() FROM (SELECT *, x AS y FROM db.dist)', '* with other columns'],
    ['SELECT *, x + 1 FROM (SELECT * FROM db.dist)', 'its * under an outer * beside other columns'],
    ['SELECT status FROM (SELECT site AS status, status AS site FROM db.dist)', 'an alias names a column'],
    ['SELECT a FROM (SELECT x AS a, y AS x FROM db.dist WHERE x > 1)', 'an alias names a column'],
    // `y > ANY (SELECT x FROM db.dist)` reads min(*) of the subquery: of x alone, not of every column.
    ['SELECT min(*) FROM (SELECT x FROM db.dist WHERE y = 1)', 'a * as an argument'],
  ];
  for (const [sql, reason] of cases) {
    it(`${sql}: ${reason}`, () => {
      const f = fold(sql);
      expect(f.sql).toBe(printSelect(parseSelect(sql)));
      expect(
        f.notes.some((n) => n.includes('not folded') && n.includes(reason)),
        f.notes.join('; '),
      ).toBe(true);
    });
  }

  // Left as written, for the unfolded path to report as ClickHouse would.
  const unresolved = [
    // `z` is no column of the subquery (ClickHouse: unknown identifier), though the table has one.
    'SELECT z FROM (SELECT x FROM db.dist)',
    // A qualifier that is not the subquery's.
    'SELECT other.x FROM (SELECT x FROM db.dist) AS v',
    // A lambda parameter named like a column the subquery's expression reads.
    'SELECT arrayMap(x -> x + a, [1]) FROM (SELECT x AS a FROM db.dist)',
    // The output alias k would capture the filter's column k, and the table's own qualified names forbid a table alias.
    'SELECT x AS k FROM (SELECT * FROM db.dist WHERE k = 1 AND dist.y = 2)',
  ];
  for (const sql of unresolved) {
    it(`kept: ${sql}`, () => {
      const f = fold(sql);
      expect(f.sql).toBe(printSelect(parseSelect(sql)));
      expect(f.notes.some((n) => n.includes('not folded'))).toBe(true);
    });
  }

  it('a subquery over no distributed table is left alone without a note', () => {
    expect(fold('SELECT a FROM (SELECT 1 AS a)').notes).toEqual([]);
  });
});
