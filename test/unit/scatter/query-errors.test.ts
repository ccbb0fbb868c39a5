// An engine's errors in the user's terms: an 18.16 engine's syntax error (62) for WITH RECURSIVE or PASTE JOIN,
// which it predates, named at the user's construct without the rewritten SQL the engine quotes; other errors as they are.
import { describe, expect, it } from 'vitest';
import { ScatterError } from '../../../shared/core/errors.js';
import { atUserPosition, olderEngineSyntaxError } from '../../../shared/core/scatter/query-errors.js';
import { parseSelect } from '../../../shared/core/sql/parse.js';

const engine62 = () =>
  new ScatterError(
    'QUERY_ERROR',
    'ClickHouse rejected the query in the final stage (shard 0) (ClickHouse error 62 SYNTAX_ERROR): Code: 62, e.displayText() = DB::Exception: Syntax error: failed at position 16: r AS (SELECT min(_a0) AS n FROM _stage0 ...',
    { details: { clickhouse: { code: 62, name: 'SYNTAX_ERROR' } } },
  );

describe('WITH RECURSIVE on an engine without it', () => {
  for (const sql of [
    'WITH RECURSIVE r AS (SELECT 1 AS n UNION ALL SELECT n + 1 FROM r WHERE n < 3) SELECT n FROM r',
    'SELECT count() FROM d WHERE x IN (\n  WITH RECURSIVE r AS (SELECT 1 AS n UNION ALL SELECT n + 1 FROM r WHERE n < 3) SELECT n FROM r)',
  ])
    it(sql, () => {
      const stmt = parseSelect(sql);
      for (const mapped of [atUserPosition(engine62(), stmt), olderEngineSyntaxError(engine62(), stmt)] as ScatterError[]) {
        expect(mapped.code).toBe('QUERY_ERROR');
        expect(mapped.message).not.toMatch(/_stage|_a0/);
        expect(mapped.message).toMatch(/does not parse WITH RECURSIVE/);
        expect(mapped.position).toEqual(sql.startsWith('WITH') ? { line: 1, column: 1 } : { line: 2, column: 3 });
        expect(mapped.details).toEqual({ clickhouse: { code: 62, name: 'SYNTAX_ERROR' } });
      }
    });
  it('another error, or a 62 for a statement without WITH RECURSIVE, is left as it is', () => {
    const plain = parseSelect('SELECT 1 FROM d');
    const e = engine62();
    expect(olderEngineSyntaxError(e, plain)).toBe(e);
    const other = new ScatterError('QUERY_ERROR', 'Code: 43 ...', { details: { clickhouse: { code: 43, name: 'ILLEGAL_TYPE_OF_ARGUMENT' } } });
    expect(olderEngineSyntaxError(other, parseSelect('WITH RECURSIVE r AS (SELECT 1) SELECT * FROM r'))).toBe(other);
  });
});

describe('PASTE JOIN on an engine without it', () => {
  for (const [sql, at] of [
    ['SELECT * FROM (SELECT a FROM d ORDER BY a) AS x PASTE JOIN (SELECT b FROM d ORDER BY b) AS y', { line: 1, column: 49 }],
    ['SELECT count() FROM d WHERE a IN (SELECT z FROM (SELECT a AS z FROM d) AS x\n  GLOBAL PASTE JOIN (SELECT 1 AS w) AS y)', { line: 2, column: 3 }],
  ] as const)
    it(sql, () => {
      const stmt = parseSelect(sql);
      for (const mapped of [atUserPosition(engine62(), stmt), olderEngineSyntaxError(engine62(), stmt)] as ScatterError[]) {
        expect(mapped.message).toMatch(/^Syntax error: the engine that runs this query does not parse PASTE JOIN/);
        expect(mapped.message).not.toMatch(/_stage|_a0/);
        expect(mapped.position).toEqual(at);
        expect(mapped.details).toEqual({ clickhouse: { code: 62, name: 'SYNTAX_ERROR' } });
      }
    });
});
