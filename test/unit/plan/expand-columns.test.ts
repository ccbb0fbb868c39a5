// Spelling out `*`, COLUMNS('re'), * EXCEPT / REPLACE and GROUP BY ALL from a table's columns, as
// ClickHouse expands them (the answers are checked on chdb in test/integration/two-stage/columns-chdb.test.ts);
// the syntax round-trips through the printer.
import { describe, expect, it } from 'vitest';
import { parseTopology } from '../../../shared/core/config/load.js';
import { expandColumns, tablesNeedingColumns } from '../../../shared/core/plan/expand-columns.js';
import { parseSelect, printSelect } from '../../../shared/core/sql/index.js';
import { outputNames } from '../../../shared/core/sql/names.js';
import { refuseUnaliasedJoinTables } from '../../../shared/core/plan/join-alias.js';

const topo = parseTopology({
  cluster: 'c',
  shards: [{ replicas: [{ embedded: '/nonexistent/0' }] }],
  tables: {
    'db.dist': { local: 'db.local', shardingKey: { column: 'k', type: 'String', function: 'xxHash64' } },
    'db.other': { local: 'db.other_local', shardingKey: { column: 'k', type: 'String', function: 'xxHash64' } },
  },
});
const COLUMNS = {
  'db.dist': ['k', 'site', 'value', 'status'].map((name) => ({ name, type: 'String' })),
  'db.other': ['k', 'label'].map((name) => ({ name, type: 'String' })),
};
const expand = (sql: string) => printSelect(expandColumns(parseSelect(sql), topo, (t) => COLUMNS[t as keyof typeof COLUMNS]));

describe('the syntax', () => {
  for (const sql of [
    'SELECT * EXCEPT (a, b) FROM t',
    'SELECT * EXCEPT (a) REPLACE (x + 1 AS x) FROM t',
    'SELECT t.* REPLACE (x * 2 AS x) FROM t',
    "SELECT COLUMNS('^v') EXCEPT (vx), count() FROM t GROUP BY ALL WITH TOTALS",
  ])
    it(sql, () => {
      const printed = printSelect(parseSelect(sql));
      expect(printed).toBe(sql);
      expect(printSelect(parseSelect(printed))).toBe(printed);
    });
  it('the short forms read as ClickHouse reads them', () => {
    expect(printSelect(parseSelect('SELECT * EXCEPT a REPLACE x + 1 AS x FROM t'))).toBe('SELECT * EXCEPT (a) REPLACE (x + 1 AS x) FROM t');
  });
});

describe('spelled out', () => {
  const cases: [string, string][] = [
    ['SELECT *, count() FROM db.dist GROUP BY ALL', 'SELECT k, site, value, status, count() FROM db.dist GROUP BY k, site, value, status'],
    ["SELECT COLUMNS('^s'), max(value) FROM db.dist GROUP BY ALL", 'SELECT site, status, max(value) FROM db.dist GROUP BY site, status'],
    ['SELECT * EXCEPT (value, k) FROM db.dist', 'SELECT site, status FROM db.dist'],
    // A REPLACE's expression reads the table's column, qualified so no alias of the list captures it.
    ['SELECT * REPLACE (upper(site) AS site) FROM db.dist', 'SELECT k, upper(dist.site) AS site, value, status FROM db.dist'],
    ['SELECT site, count() FROM db.dist GROUP BY ALL', 'SELECT site, count() FROM db.dist GROUP BY site'],
    // A replaced column groups by its expression over the table's column, which no alias captures.
    [
      "SELECT COLUMNS('^(k|value)$') REPLACE (value % 3 AS value), count() FROM db.dist GROUP BY ALL",
      'SELECT k, dist.value % 3 AS value, count() FROM db.dist GROUP BY k, dist.value % 3',
    ],
    // Over a JOIN: each table's columns, spelled one way (join-columns.ts): bare for the first table that
    // has the name, qualified for a later one that shares it.
    [
      'SELECT * FROM db.dist AS a GLOBAL JOIN db.other AS b ON a.k = b.k',
      'SELECT k, site, value, status, b.k, label FROM db.dist AS a GLOBAL INNER JOIN db.other AS b ON a.k = b.k',
    ],
    [
      'SELECT b.*, count() FROM db.dist AS a GLOBAL JOIN db.other AS b ON a.k = b.k GROUP BY ALL',
      'SELECT b.k, label, count() FROM db.dist AS a GLOBAL INNER JOIN db.other AS b ON a.k = b.k GROUP BY b.k, label',
    ],
    // The qualified and the bare name of one column are one expression; an alias's name keeps the column qualified.
    [
      'SELECT b.label, label, a.site, upper(b.k) AS site FROM db.dist AS a GLOBAL JOIN db.other AS b ON a.k = b.k WHERE site = 1',
      'SELECT label, label, a.site, upper(b.k) AS site FROM db.dist AS a GLOBAL INNER JOIN db.other AS b ON a.k = b.k WHERE site = 1',
    ],
    // values() declares its columns (commas inside a type's parentheses are not separators).
    [
      "SELECT v.*, a.site FROM db.dist AS a JOIN (SELECT * FROM values('k UInt8, d Decimal(10, 2)', (1, 2.5))) AS v ON a.k = v.k",
      "SELECT v.k, d, site FROM db.dist AS a INNER JOIN (SELECT * FROM values('k UInt8, d Decimal(10, 2)', (1, 2.5))) AS v ON a.k = v.k",
    ],
    // `a.*` keeps its names where only a later table shares them, as ClickHouse names them.
    [
      'SELECT a.* FROM db.dist AS a GLOBAL JOIN db.other AS b ON a.k = b.k',
      'SELECT k, site, value, status FROM db.dist AS a GLOBAL INNER JOIN db.other AS b ON a.k = b.k',
    ],
    // A USING join: the keys once, first and unqualified, then each table's other columns.
    [
      'SELECT * FROM db.dist AS a GLOBAL JOIN db.other AS b USING k',
      'SELECT k, site, value, status, label FROM db.dist AS a GLOBAL INNER JOIN db.other AS b USING (k)',
    ],
    // A USING key written qualified stays that table's column: in a RIGHT or FULL JOIN it is not the merged key.
    ['SELECT b.* FROM db.dist AS a GLOBAL JOIN db.other AS b USING k', 'SELECT b.k, label FROM db.dist AS a GLOBAL INNER JOIN db.other AS b USING (k)'],
    [
      'SELECT a.*, k, count() FROM db.dist AS a GLOBAL RIGHT JOIN db.other AS b USING k GROUP BY ALL',
      'SELECT a.k, site, value, status, k, count() FROM db.dist AS a GLOBAL RIGHT JOIN db.other AS b USING (k) GROUP BY a.k, site, value, status, k',
    ],
    // A subquery's own `*` is read through to its table; an unaliased one's columns stay unqualified.
    [
      'SELECT * FROM db.dist GLOBAL JOIN (SELECT * FROM db.other) USING k',
      'SELECT k, site, value, status, label FROM db.dist GLOBAL INNER JOIN (SELECT * FROM db.other) AS _joined_subquery_1 USING (k)',
    ],
    [
      'SELECT * FROM db.dist GLOBAL JOIN (SELECT * FROM (SELECT * FROM db.other) AS x JOIN (SELECT k FROM db.dist) AS y USING k) USING k',
      'SELECT k, site, value, status, label FROM db.dist GLOBAL INNER JOIN (SELECT k, label FROM (SELECT * FROM db.other) AS x INNER JOIN (SELECT k FROM db.dist) AS y USING (k)) AS _joined_subquery_1 USING (k)',
    ],
    // An unaliased subquery's column that the other table has too: read through an alias of the plan's, named as ClickHouse names it.
    [
      'SELECT * FROM db.dist GLOBAL JOIN (SELECT k, site FROM db.dist) USING k',
      'SELECT k, site, value, status, _joined_subquery_1.site FROM db.dist GLOBAL INNER JOIN (SELECT k, site FROM db.dist) AS _joined_subquery_1 USING (k)',
    ],
    // A USING join among three tables: the key once, first; every other column qualified where another table has it.
    [
      'SELECT * FROM db.dist AS a GLOBAL JOIN db.other AS b USING k GLOBAL JOIN db.other AS c USING k',
      'SELECT k, site, value, status, b.label, c.label FROM db.dist AS a GLOBAL INNER JOIN db.other AS b USING (k) GLOBAL INNER JOIN db.other AS c USING (k)',
    ],
  ];
  for (const [sql, want] of cases) it(sql, () => expect(expand(sql)).toBe(want));

  // ClickHouse names a later table's column that an earlier table has too by its qualifier, inside expressions too.
  it('names over a JOIN', () => {
    const q = expandColumns(
      parseSelect('SELECT *, upper(b.k), upper(label) FROM db.dist AS a GLOBAL JOIN db.other AS b ON a.k = b.k'),
      topo,
      (t) => COLUMNS[t as keyof typeof COLUMNS],
    );
    expect(q.kind === 'select' && outputNames(q)).toEqual(['k', 'site', 'value', 'status', 'b.k', 'label', 'upper(b.k)', 'upper(label)']);
  });

  // Over a USING join (checked on chdb): `a.*` names a's key k, `b.*` names b's b.k.
  it('names over a USING join', () => {
    const q = expandColumns(
      parseSelect('SELECT a.*, b.* FROM db.dist AS a GLOBAL FULL JOIN db.other AS b USING k'),
      topo,
      (t) => COLUMNS[t as keyof typeof COLUMNS],
    );
    expect(q.kind === 'select' && outputNames(q)).toEqual(['k', 'site', 'value', 'status', 'b.k', 'label']);
  });

  // A written `a.k` of a USING key stays a's column, named `a.k` (checked on chdb: in a RIGHT JOIN a.k is 0 where k is not).
  it('a USING key written qualified is left as written', () => {
    const sql = 'SELECT a.k, k, b.k, site FROM db.dist AS a GLOBAL RIGHT JOIN db.other AS b USING k';
    const q = expandColumns(parseSelect(sql), topo, (t) => COLUMNS[t as keyof typeof COLUMNS]);
    expect(printSelect(q)).toBe('SELECT a.k, k, b.k, site FROM db.dist AS a GLOBAL RIGHT JOIN db.other AS b USING (k)');
    expect(q.kind === 'select' && outputNames(q)).toEqual(['a.k', 'k', 'b.k', 'site']);
  });

  // Checked on chdb: in an INNER or LEFT JOIN `a.k` is the merged key (one column, named k); in a FULL JOIN named k, a's own.
  it("the left table's USING key: the merged key in an INNER or LEFT JOIN, named k but a's in a FULL JOIN", () => {
    const of = (sql: string) => expandColumns(parseSelect(sql), topo, (t) => COLUMNS[t as keyof typeof COLUMNS]);
    const inner = of('SELECT a.k, upper(a.k), b.k FROM db.dist AS a GLOBAL LEFT JOIN db.other AS b USING k');
    expect(printSelect(inner)).toBe('SELECT k, upper(k), b.k FROM db.dist AS a GLOBAL LEFT JOIN db.other AS b USING (k)');
    const full = of('SELECT a.k, upper(a.k) FROM db.dist AS a GLOBAL FULL JOIN db.other AS b USING k');
    expect(printSelect(full)).toBe('SELECT a.k, upper(a.k) FROM db.dist AS a GLOBAL FULL JOIN db.other AS b USING (k)');
    expect(full.kind === 'select' && outputNames(full)).toEqual(['k', 'upper(k)']);
  });

  // Checked on chdb: past one JOIN every table's column is qualified where another table has it, and a bare name of two tables is left to the engine (207).
  it('names over three tables', () => {
    const q = expandColumns(
      parseSelect('SELECT a.*, c.label, site, label FROM db.dist AS a GLOBAL JOIN db.other AS b ON a.k = b.k GLOBAL JOIN db.other AS c ON a.k = c.k'),
      topo,
      (t) => COLUMNS[t as keyof typeof COLUMNS],
    );
    expect(printSelect(q)).toBe(
      'SELECT a.k, site, value, status, c.label, site, label FROM db.dist AS a GLOBAL INNER JOIN db.other AS b ON a.k = b.k GLOBAL INNER JOIN db.other AS c ON a.k = c.k',
    );
    expect(q.kind === 'select' && outputNames(q)).toEqual(['a.k', 'site', 'value', 'status', 'c.label', 'site', 'label']);
  });

  // Checked on chdb: an aliased table's column written by the table's name is read by the alias and named as written.
  it("an aliased table's column qualified by the table's name", () => {
    const q = expandColumns(
      parseSelect('SELECT db.other.label, other.k FROM db.dist AS a GLOBAL JOIN db.other AS b ON a.k = b.k'),
      topo,
      (t) => COLUMNS[t as keyof typeof COLUMNS],
    );
    expect(printSelect(q)).toBe('SELECT label, b.k FROM db.dist AS a GLOBAL INNER JOIN db.other AS b ON a.k = b.k');
    expect(q.kind === 'select' && outputNames(q)).toEqual(['label', 'other.k']);
  });

  // Checked on chdb: a WITH name's columns are its SELECT list's names, so a.k is qualified where a CTE joined has a k.
  it('names over JOINs of WITH names', () => {
    const q = expandColumns(
      parseSelect(
        'WITH b AS (SELECT k FROM db.other), c AS (SELECT k FROM db.other) SELECT a.k, site, b.k, c.k FROM db.dist AS a LEFT JOIN b ON a.k = b.k LEFT JOIN c ON a.k = c.k',
      ),
      topo,
      (t) => COLUMNS[t as keyof typeof COLUMNS],
    );
    expect(q.kind === 'select' && outputNames(q)).toEqual(['a.k', 'site', 'b.k', 'c.k']);
  });

  // Checked on chdb: `*` over a WITH name is its SELECT list, ORDER BY ALL with it; from a subquery, the outer query's WITH names are in scope.
  it('* and ORDER BY ALL over a WITH name', () => {
    const cte = 'WITH y AS (SELECT site, count() FROM db.dist GROUP BY site)';
    const q = expandColumns(parseSelect(`${cte} SELECT * FROM y ORDER BY ALL`), topo, (t) => COLUMNS[t as keyof typeof COLUMNS]);
    expect(printSelect(q)).toBe(`${cte} SELECT site, \`count()\` FROM y ORDER BY site, \`count()\``);
    expect(q.kind === 'select' && outputNames(q)).toEqual(['site', 'count()']);
    const inner = expandColumns(parseSelect(`${cte} SELECT * FROM (SELECT * FROM y ORDER BY ALL)`), topo, (t) => COLUMNS[t as keyof typeof COLUMNS]);
    expect(printSelect(inner)).toBe(`${cte} SELECT * FROM (SELECT site, \`count()\` FROM y ORDER BY site, \`count()\`)`);
  });

  // A JOIN's unaliased subquery keeps ClickHouse's 206 (the plan's alias is not the query's).
  it("an unaliased JOIN subquery's plan alias is marked as the plan's", () => {
    const q = expandColumns(
      parseSelect('SELECT *, 1 FROM db.dist GLOBAL JOIN (SELECT k, site FROM db.dist) USING k'),
      topo,
      (t) => COLUMNS[t as keyof typeof COLUMNS],
    );
    const t = q.kind === 'select' ? q.from?.joins[0]?.table : undefined;
    expect(t?.kind === 'subqueryTable' && t.planAlias).toBe(true);
    expect(() => refuseUnaliasedJoinTables(q, undefined)).toThrow(/no alias for the subquery/);
    expect(q.kind === 'select' && outputNames(q)).toEqual(['k', 'site', 'value', 'status', 'site', '1']);
  });

  it('a plain SELECT * is left to the planner, which carries it whole', () => {
    expect(tablesNeedingColumns(parseSelect('SELECT * FROM db.dist WHERE k = 1'), topo)).toEqual([]);
    expect(tablesNeedingColumns(parseSelect('SELECT *, 1 FROM db.dist'), topo)).toEqual(['db.dist']);
  });
  it('a matcher that matches nothing, a bad regexp, an unknown t.*: errors with a position', () => {
    for (const sql of ["SELECT COLUMNS('^zzz') FROM db.dist", "SELECT COLUMNS('(') FROM db.dist", 'SELECT x.*, 1 FROM db.dist']) {
      expect(() => expand(sql), sql).toThrow(expect.objectContaining({ code: 'QUERY_ERROR', position: expect.objectContaining({ line: 1 }) }));
    }
  });
  it("the tables a subquery's `*` reads are the ones whose columns are asked for", () => {
    expect(tablesNeedingColumns(parseSelect('SELECT * FROM (SELECT * FROM db.other) AS o GLOBAL JOIN db.dist AS d USING k'), topo).sort()).toEqual([
      'db.dist',
      'db.other',
    ]);
  });
  it('left as written where the names cannot be told apart or ClickHouse names them its own way', () => {
    for (const sql of [
      // A key an inner USING join merged, which a later table has too: a bare name could not mean the merged column.
      'SELECT * FROM db.dist AS a GLOBAL JOIN db.other AS b USING k GLOBAL JOIN db.dist AS c USING site',
    ])
      expect(expand(sql), sql).toContain('SELECT *');
  });
  it('unknown columns: left as written, and refused by the planners', () => {
    expect(printSelect(expandColumns(parseSelect('SELECT * EXCEPT (k) FROM db.dist'), topo, () => undefined))).toBe('SELECT * EXCEPT (k) FROM db.dist');
  });
});

describe('ORDER BY ALL', () => {
  it('reads as ClickHouse reads it and prints back', () => {
    for (const sql of ['SELECT a, b FROM t ORDER BY ALL', 'SELECT a FROM t ORDER BY ALL DESC NULLS FIRST LIMIT 3', 'SELECT a FROM t ORDER BY ALL NULLS LAST']) {
      expect(printSelect(parseSelect(sql)), sql).toBe(sql);
      const q = parseSelect(sql);
      expect(q.kind === 'select' && q.orderByAll !== undefined && q.orderBy === undefined, sql).toBe(true);
    }
    // With another element, or quoted, ALL is a column's name.
    for (const sql of ['SELECT a FROM t ORDER BY ALL, a', 'SELECT a FROM t ORDER BY `ALL` DESC', 'SELECT a FROM t ORDER BY ALL + 1']) {
      const q = parseSelect(sql);
      expect(q.kind === 'select' && q.orderByAll, sql).toBeUndefined();
    }
    // ClickHouse's parser takes no COLLATE or WITH FILL after it (62).
    for (const sql of ["SELECT a FROM t ORDER BY ALL COLLATE 'en'", 'SELECT a FROM t ORDER BY ALL WITH FILL'])
      expect(() => parseSelect(sql), sql).toThrow(expect.objectContaining({ code: 'SYNTAX_ERROR' }));
  });
  const cases: [string, string][] = [
    ['SELECT site, value AS v FROM db.dist ORDER BY ALL', 'SELECT site, value AS v FROM db.dist ORDER BY site, v'],
    ['SELECT * FROM db.dist ORDER BY ALL DESC', 'SELECT k, site, value, status FROM db.dist ORDER BY k DESC, site DESC, value DESC, status DESC'],
    [
      'SELECT site, count() FROM db.dist GROUP BY ALL ORDER BY ALL NULLS FIRST',
      'SELECT site, count() FROM db.dist GROUP BY site ORDER BY site NULLS FIRST, count() NULLS FIRST',
    ],
    ['SELECT k FROM (SELECT k FROM db.dist ORDER BY ALL) ORDER BY ALL', 'SELECT k FROM (SELECT k FROM db.dist ORDER BY k) ORDER BY k'],
  ];
  for (const [sql, want] of cases) it(sql, () => expect(expand(sql)).toBe(want));
  it('tablesNeedingColumns asks for the columns of a `*` it orders by', () => {
    expect(tablesNeedingColumns(parseSelect('SELECT * FROM db.dist ORDER BY ALL'), topo)).toEqual(['db.dist']);
  });
  it("tablesNeedingColumns reads a WITH name's `*` through to its tables, and only where its `*` feeds one", () => {
    const sql = 'WITH y AS (SELECT * FROM db.dist), z AS (SELECT k FROM db.other) SELECT * FROM y JOIN z ON y.k = z.k ORDER BY ALL';
    expect(tablesNeedingColumns(parseSelect(sql), topo)).toEqual(['db.dist']);
    expect(
      printSelect(expandColumns(parseSelect('WITH y AS (SELECT * FROM db.dist) SELECT *, 1 FROM y'), topo, (t) => COLUMNS[t as keyof typeof COLUMNS])),
    ).toBe('WITH y AS (SELECT * FROM db.dist) SELECT k, site, value, status, 1 FROM y');
  });
  it("a SELECT column named `all` is ClickHouse's 183; with enable_order_by_all = 0, ALL is that column", () => {
    for (const sql of ['SELECT site AS all FROM db.dist ORDER BY ALL', 'SELECT k, `all` FROM db.dist ORDER BY ALL'])
      expect(() => expand(sql), sql).toThrow(
        expect.objectContaining({
          code: 'QUERY_ERROR',
          details: { clickhouse: { code: 183, name: 'UNEXPECTED_EXPRESSION' } },
          position: { line: 1, column: expect.any(Number) },
        }),
      );
    const off = printSelect(expandColumns(parseSelect('SELECT site AS all FROM db.dist ORDER BY ALL DESC'), topo, () => undefined, undefined, false));
    expect(off).toBe('SELECT site AS `all` FROM db.dist ORDER BY `all` DESC');
  });
  it('over an unknown `*`: left for the planners to refuse', () => {
    expect(printSelect(expandColumns(parseSelect('SELECT * FROM db.dist ORDER BY ALL'), topo, () => undefined))).toBe('SELECT * FROM db.dist ORDER BY ALL');
  });
});
