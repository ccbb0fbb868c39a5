// DISTINCT ON is LIMIT 1 BY in every SELECT of a statement, as ClickHouse's parser rewrites it: the top
// level, a UNION's selects, a set, a scalar subquery, a subquery in FROM or JOIN, a CTE.
import { describe, expect, it } from 'vitest';
import { distinctOnAsLimitBy } from '../../../shared/core/plan/distinct-on.js';
import { parseSelect } from '../../../shared/core/sql/parse.js';
import { printSelect } from '../../../shared/core/sql/print.js';

const rewritten = (sql: string) => printSelect(distinctOnAsLimitBy(parseSelect(sql)));

describe('DISTINCT ON as LIMIT 1 BY', () => {
  it('at the top and in each select of a UNION', () => {
    expect(rewritten('SELECT DISTINCT ON (a) a, b FROM t ORDER BY a, b')).toBe('SELECT a, b FROM t ORDER BY a, b LIMIT 1 BY a');
    expect(rewritten('SELECT DISTINCT ON (a) a FROM t UNION ALL SELECT DISTINCT ON (b, c) b FROM u')).toBe(
      'SELECT a FROM t LIMIT 1 BY a UNION ALL SELECT b FROM u LIMIT 1 BY b, c',
    );
  });

  it('at any depth: a set, a scalar subquery, FROM, JOIN and a CTE', () => {
    const out = rewritten(
      'WITH w AS (SELECT DISTINCT ON (k) k FROM t) SELECT (SELECT DISTINCT ON (x) x FROM t), a FROM (SELECT DISTINCT ON (a) a FROM t) AS s ' +
        'JOIN (SELECT DISTINCT ON (a) a FROM t) AS r USING a WHERE a IN (SELECT DISTINCT ON (n % 3) n FROM t ORDER BY n % 3, n DESC)',
    );
    expect(out).not.toMatch(/DISTINCT/);
    expect(out.match(/LIMIT 1 BY/g)).toHaveLength(5);
    expect(out).toContain('LIMIT 1 BY n % 3');
  });

  it('a statement without it is left as it is', () => {
    const q = parseSelect('SELECT DISTINCT a FROM t WHERE a IN (SELECT b FROM u)');
    expect(printSelect(distinctOnAsLimitBy(q))).toBe(printSelect(q));
  });
});
