// Two unaliased subqueries of a PASTE JOIN that name a column alike are ClickHouse's 36 under
// joined_subquery_requires_alias = 1: the check refuses exactly what chdb (in this process) refuses so.
import { describe, expect, it } from 'vitest';
import { useChdbCode } from '../../support/chdb-code.js';
import { refuseAmbiguousPaste } from '../../../shared/core/plan/paste-join.js';
import { parseSelect } from '../../../shared/core/sql/index.js';

const engineCode = useChdbCode('paste-join');

const X = '(SELECT number AS x FROM numbers(2))';
const SQL = [
  `SELECT * FROM ${X} PASTE JOIN ${X}`,
  `SELECT x FROM ${X} PASTE JOIN ${X}`,
  `SELECT count() FROM ${X} PASTE JOIN ${X}`,
  'SELECT * FROM (SELECT 1 AS x, 2 AS y) PASTE JOIN (SELECT 3 AS z, 4 AS y)',
  `SELECT * FROM ${X} GLOBAL PASTE JOIN ${X}`,
  `SELECT count() FROM (SELECT * FROM ${X} PASTE JOIN ${X}) AS s`,
  `SELECT 1 WHERE 1 IN (SELECT x FROM ${X} PASTE JOIN (SELECT 2 AS x))`,
  // Answered: an alias on either side, the setting at 0, no name in common, table functions, a later join.
  `SELECT * FROM ${X} AS a PASTE JOIN ${X}`,
  `SELECT * FROM ${X} PASTE JOIN ${X} AS b`,
  `SELECT * FROM ${X} PASTE JOIN ${X} SETTINGS joined_subquery_requires_alias = 0`,
  'SELECT * FROM (SELECT 1 AS x) PASTE JOIN (SELECT 2 AS y)',
  'SELECT * FROM numbers(2) PASTE JOIN numbers(2)',
  `SELECT * FROM ${X} AS a PASTE JOIN ${X} PASTE JOIN ${X}`,
  `SELECT * FROM ${X} PASTE JOIN (SELECT number AS y FROM numbers(2)) PASTE JOIN ${X}`,
];

const refusedByEngine: string[] = [];

describe('a PASTE JOIN of two unaliased subqueries naming a column alike', () => {
  for (const sql of SQL)
    it(sql, async () => {
      const want = await engineCode(sql);
      if (want === 36) refusedByEngine.push(sql);
      let got: any;
      try {
        refuseAmbiguousPaste(parseSelect(sql), {});
      } catch (e) {
        got = e;
      }
      if (want === 36) {
        expect(got?.code, sql).toBe('QUERY_ERROR');
        expect(got.details).toEqual({ clickhouse: { code: 36, name: 'BAD_ARGUMENTS' } });
        expect(got.message).toMatch(/^Name of columns and aliases should be unique for this query/);
        expect(got.position).toEqual({ line: 1, column: sql.indexOf(sql.includes('GLOBAL PASTE') ? 'GLOBAL PASTE' : 'PASTE JOIN') + 1 });
      } else expect(got, `${sql}: chdb says ${want}`).toBeUndefined();
    });
  it('the engine refuses the first seven and answers the rest (the cases test both ways)', () => {
    expect(refusedByEngine).toEqual(SQL.slice(0, 7));
  });
  it('the request settings count, the SETTINGS clause over them', () => {
    const sql = `SELECT * FROM ${X} PASTE JOIN ${X}`;
    expect(() => refuseAmbiguousPaste(parseSelect(sql), { joined_subquery_requires_alias: 0 })).not.toThrow();
    expect(() => refuseAmbiguousPaste(parseSelect(`${sql} SETTINGS joined_subquery_requires_alias = 1`), { joined_subquery_requires_alias: 0 })).toThrow();
  });
});
