// A JOIN with an unaliased subquery or table function is ClickHouse's 206 unless
// joined_subquery_requires_alias = 0: the check refuses exactly what chdb (in this process) refuses so.
import { describe, expect, it } from 'vitest';
import { useChdbCode } from '../../support/chdb-code.js';
import { refuseUnaliasedJoinTables } from '../../../shared/core/plan/join-alias.js';
import { parseSelect } from '../../../shared/core/sql/index.js';

const engineCode = useChdbCode('join-alias');

const SQL = [
  'SELECT * FROM (SELECT 1 AS x) JOIN (SELECT 1 AS x) AS b USING x',
  'SELECT * FROM (SELECT 1 AS x) AS a JOIN (SELECT 1 AS x) USING x',
  'SELECT * FROM (SELECT 1 AS x) AS a JOIN numbers(2) USING number',
  'SELECT * FROM (SELECT 1 AS x) AS a, (SELECT 2 AS y)',
  'SELECT * FROM (SELECT 1 AS x) AS a JOIN (SELECT 1 AS x) AS b USING x',
  'SELECT * FROM (SELECT 1 AS x) AS a JOIN (SELECT 1 AS x) USING x SETTINGS joined_subquery_requires_alias = 0',
  "SELECT * FROM (SELECT 1 AS x) AS a JOIN (SELECT 1 AS x) USING x SETTINGS joined_subquery_requires_alias = 'false'",
  'SELECT * FROM (SELECT 1 AS x) AS a JOIN (SELECT 1 AS x) USING x SETTINGS joined_subquery_requires_alias = 1',
  // At any depth: inside a FROM subquery, inside an IN subquery.
  'SELECT count() FROM (SELECT * FROM (SELECT 1 AS x) AS a JOIN (SELECT 1 AS x) USING x) AS s',
  'SELECT 1 WHERE 1 IN (SELECT x FROM (SELECT 1 AS x) AS a JOIN (SELECT 1 AS x) USING x)',
  // A PASTE JOIN's sides are not checked; the joins around it are.
  'SELECT * FROM (SELECT 1 AS x) PASTE JOIN (SELECT 2 AS y)',
  'SELECT * FROM numbers(2) PASTE JOIN numbers(3)',
  'SELECT * FROM (SELECT 1 AS x) PASTE JOIN (SELECT 2 AS y) CROSS JOIN (SELECT 3 AS z) AS c',
  'SELECT * FROM (SELECT 1 AS x) PASTE JOIN (SELECT 2 AS y) CROSS JOIN (SELECT 3 AS z)',
  'SELECT * FROM (SELECT 1 AS x) AS a CROSS JOIN (SELECT 2 AS y) PASTE JOIN (SELECT 3 AS z)',
  'SELECT * FROM (SELECT 1 AS x) CROSS JOIN (SELECT 2 AS y) AS b PASTE JOIN (SELECT 3 AS z)',
  // No JOIN, no alias needed; ARRAY JOIN is no JOIN of tables.
  'SELECT * FROM (SELECT 1 AS x)',
  'SELECT * FROM (SELECT [1] AS x) ARRAY JOIN x',
];

describe('a JOIN table without an alias', () => {
  for (const sql of SQL)
    it(sql, async () => {
      const want = await engineCode(sql);
      let got: any;
      try {
        refuseUnaliasedJoinTables(parseSelect(sql), {});
      } catch (e) {
        got = e;
      }
      if (want === 206) {
        expect(got?.code, sql).toBe('QUERY_ERROR');
        expect(got.details).toEqual({ clickhouse: { code: 206, name: 'ALIAS_REQUIRED' } });
        expect(got.position?.line).toBe(1);
      } else expect(got, `${sql}: chdb says ${want}`).toBeUndefined();
    });
  it('the request settings count, the SETTINGS clause over them', () => {
    const sql = 'SELECT * FROM (SELECT 1 AS x) AS a JOIN (SELECT 1 AS x) USING x';
    expect(() => refuseUnaliasedJoinTables(parseSelect(sql), { joined_subquery_requires_alias: 0 })).not.toThrow();
    expect(() => refuseUnaliasedJoinTables(parseSelect(`${sql} SETTINGS joined_subquery_requires_alias = 1`), { joined_subquery_requires_alias: 0 })).toThrow();
  });
});
