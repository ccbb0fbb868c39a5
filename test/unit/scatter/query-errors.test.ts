// An engine's errors in the user's terms: an 18.16 engine's syntax error (62) for WITH RECURSIVE or PASTE JOIN,
// which it predates, named at the user's construct without the rewritten SQL the engine quotes; other errors as they are.
import { describe, expect, it } from 'vitest';
import { ScatterError } from '../../../shared/core/errors.js';
import { atUserPosition, clientShardMessage, olderEngineSyntaxError } from '../../../shared/core/scatter/query-errors.js';
import { withoutQueryText } from '../../../shared/core/clickhouse/error-codes.js';
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
  it('another error is left as it is', () => {
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

// Any other syntax error of an engine on the rewrite (ILIKE, OVER, GROUPING SETS on 18.16): the engine's code and hint, the
// word it failed at, never the text or offset it quotes (the rewrite's); placed at the user's call of that word, else at the statement.
describe('another engine syntax error on the rewrite', () => {
  const shard62 = (text: string) =>
    new ScatterError('QUERY_ERROR', `ClickHouse rejected the query on shard 0 (ClickHouse error 62 SYNTAX_ERROR): ${clientShardMessage(text)}`, {
      details: { clickhouse: { code: 62, name: 'SYNTAX_ERROR' } },
    });
  const cases: [string, string, string, { line: number; column: number }][] = [
    [
      "SELECT id FROM d\n  WHERE site ILIKE 'A%'",
      "replica 0 (primary): Code: 62, e.displayText() = DB::Exception: Syntax error: failed at position 45 (line 1, col 45): ILIKE 'A%' ORDER BY _c0 LIMIT 2\nFORMAT TabSeparatedWithNamesAndTypes. Expected one of: AS, UNION ALL, alias",
      'Syntax error: failed at ILIKE. Expected one of: AS, UNION ALL, alias',
      { line: 2, column: 14 },
    ],
    [
      'SELECT id, count() OVER () FROM d',
      'Code: 62, e.displayText() = DB::Exception: Syntax error: failed at position 32 (line 1, col 32): () AS `count() OVER ()` FROM _stage0 ORDER BY _c0 LIMIT 2\nFORMAT JSON. Expected one of: PREWHERE, FROM',
      'Syntax error: failed in the query as rewritten for the engine. Expected one of: PREWHERE, FROM',
      { line: 1, column: 1 },
    ],
    [
      "SELECT 1 FROM d WHERE a ILIKE 'x. Expected y'",
      "Code: 62. DB::Exception: Syntax error: failed at position 30 (ILIKE) (line 2, col 3): ILIKE 'x. Expected y' AND _c0 FORMAT JSON. Expected one of: token, Dot. (SYNTAX_ERROR)",
      'Syntax error: failed at ILIKE. Expected one of: token, Dot. (SYNTAX_ERROR)',
      { line: 1, column: 25 },
    ],
    [
      'SELECT (1 FROM d',
      'Code: 62. DB::Exception: Syntax error: failed at position 8 ((): (_c0 FORMAT JSON. Unmatched parentheses: (. (SYNTAX_ERROR)',
      'Syntax error: failed in the query as rewritten for the engine. Unmatched parentheses: (. (SYNTAX_ERROR)',
      { line: 1, column: 1 },
    ],
  ];
  for (const [sql, engine, said, at] of cases)
    it(sql, () => {
      const stmt = parseSelect(sql.replace('(1 FROM', '1 FROM'));
      for (const mapped of [atUserPosition(shard62(engine), stmt), olderEngineSyntaxError(shard62(engine), stmt)] as ScatterError[]) {
        expect(mapped.message).toContain(said);
        expect(mapped.message).not.toMatch(/_stage|_c0|position \d|col \d|FORMAT/);
        expect(mapped.position).toEqual(at);
        expect(mapped.message).toMatch(new RegExp(`\\(line ${at.line}, column ${at.column}\\)$`));
        expect(mapped.details).toEqual({ clickhouse: { code: 62, name: 'SYNTAX_ERROR' } });
      }
    });
  it('a message without a syntax error is left as it is', () => {
    expect(withoutQueryText('Code: 43. DB::Exception: Illegal type. (ILLEGAL_TYPE_OF_ARGUMENT)')).toBe(
      'Code: 43. DB::Exception: Illegal type. (ILLEGAL_TYPE_OF_ARGUMENT)',
    );
  });
});
