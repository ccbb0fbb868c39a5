// Errors: SYNTAX_ERROR with the position of the offending token and a message naming what was
// expected and found; NOT_READ_ONLY for anything but one SELECT; UNSUPPORTED naming the construct;
// TOO_LARGE and depth guards that never overflow the stack.
import { describe, expect, it } from 'vitest';
import { ScatterError } from '../../../shared/core/errors.js';
import { parseSelect } from '../../../shared/core/sql/parse.js';

function failure(sql: string, opts?: Parameters<typeof parseSelect>[1]): ScatterError {
  try {
    parseSelect(sql, opts);
  } catch (e) {
    expect(e).toBeInstanceOf(ScatterError);
    return e as ScatterError;
  }
  throw new Error(`expected ${sql} to fail`);
}

describe('SYNTAX_ERROR positions and messages', () => {
  const cases: [string, number, number, RegExp][] = [
    ['SELECT a FROM', 1, 14, /expected a table, table function or subquery, found end of query/],
    ['SELECT a FROM t WHERE', 1, 22, /expected an expression, found end of query/],
    ['SELECT a,, b FROM t', 1, 10, /expected an expression, found ','/],
    ['SELECT (a + 1 FROM t', 1, 15, /expected ',' or '\)', found 'FROM'/],
    ['SELECT a FROM t\nWHERE a = = 1', 2, 11, /found '='/],
    ['SELECT a\nFROM t\n  GROUP a', 3, 9, /expected BY, found 'a'/],
    ['SELECT f(a FROM t', 1, 12, /expected ',' or '\)', found 'FROM'/],
    ["SELECT 'abc FROM t", 1, 8, /Unterminated string literal/],
    ['SELECT `abc FROM t', 1, 8, /Unterminated quoted identifier/],
    ['SELECT a /* never closed', 1, 10, /Unterminated comment/],
    ['SELECT a FROM t LIMIT', 1, 22, /expected an expression, found end of query/],
    ['SELECT a FROM t ORDER BY a NULLS MIDDLE', 1, 34, /expected FIRST or LAST, found 'MIDDLE'/],
    ['SELECT a FROM t JOIN u', 1, 23, /expected ON or USING, found end of query/],
    ['SELECT a FROM t ANY JOIN', 1, 25, /a table, table function or subquery/],
    ['SELECT CASE END', 1, 13, /expected WHEN, found 'END'/],
    ['SELECT CAST(a) FROM t', 1, 14, /expected AS or ',', found '\)'/],
    ['SELECT INTERVAL 1 FORTNIGHT', 1, 19, /expected an interval unit/],
    ['SELECT a ? b FROM t', 1, 14, /expected ':' of the \?: operator, found 'FROM'/],
    ['SELECT 1abc', 1, 9, /Unexpected character after number/],
    ['SELECT a FROM t WHERE a = 1 garbage', 1, 29, /expected end of query, found 'garbage'/],
    ['SELECT a FROM t SETTINGS max_threads 2', 1, 38, /expected '=' after the setting name/],
    ['SELECT a FROM t FORMAT', 1, 23, /expected a format name, found end of query/],
    ['SELECT a ! b', 1, 10, /Unexpected character: found '!'/],
    ['', 1, 1, /expected SELECT, found end of query/],
    ['   \n  -- only a comment', 2, 20, /expected SELECT/],
    ['SELEC a', 1, 1, /expected SELECT, found 'SELEC'/],
    ['SELECT a FROM t UNION SELECT', 1, 29, /expected an expression/],
    // ClickHouse 26 has no map literal in a query either: `{` starts a query parameter (62 there too).
    ["SELECT {'k': 'v'}", 1, 8, /Malformed query parameter: expected \{name:Type\}/],
  ];
  for (const [sql, line, column, msg] of cases) {
    it(JSON.stringify(sql), () => {
      const e = failure(sql);
      expect(e.code).toBe('SYNTAX_ERROR');
      expect(e.status).toBe(400);
      expect(e.position).toEqual({ line, column });
      expect(e.message).toMatch(msg);
      expect(e.message).toContain(`line ${line}, column ${column}`);
      expect(e.toBody().error.position).toEqual({ line, column });
    });
  }
});

describe('combinations ClickHouse refuses while parsing are refused here too', () => {
  const cases: [string, RegExp][] = [
    ['SELECT a FROM t ANTI INNER JOIN u USING a', /LEFT or RIGHT with ANTI JOIN/],
    ['SELECT a FROM t SEMI JOIN u USING a', /LEFT or RIGHT with SEMI JOIN/],
    ['SELECT DISTINCT ON (a) a FROM t LIMIT 1 BY a', /no LIMIT BY with DISTINCT ON/],
    ['SELECT DISTINCT ON (a) a FROM t ORDER BY a LIMIT 1 WITH TIES', /no WITH TIES with DISTINCT ON/],
    ['SELECT quantile(0.5)() FROM t', /expected an expression, found '\)'/],
    // PASTE JOIN takes no strictness, no OUTER, no ON or USING, and no other kind before it.
    ['SELECT a FROM t ANY PASTE JOIN u', /^You must not specify ANY or ALL for PASTE JOIN \(line 1, column 17\)$/],
    ['SELECT a FROM t GLOBAL SEMI PASTE JOIN u', /^You must not specify ANY or ALL for PASTE JOIN \(line 1, column 17\)$/],
    ['SELECT a FROM t PASTE ALL JOIN u', /^You must not specify ANY or ALL for PASTE JOIN/],
    ['SELECT a FROM t PASTE OUTER JOIN u', /expected JOIN, found 'OUTER'/],
    ['SELECT a FROM t LEFT PASTE JOIN u', /expected JOIN, found 'PASTE'/],
    ['SELECT a FROM t PASTE JOIN u ON a = b', /found 'ON'/],
    ['SELECT a FROM t PASTE JOIN u USING a', /found 'USING'/],
  ];
  for (const [sql, msg] of cases) {
    it(sql, () => {
      const e = failure(sql);
      expect(e.code).toBe('SYNTAX_ERROR');
      expect(e.message).toMatch(msg);
      expect(e.position).toBeDefined();
    });
  }
  // ClickHouse's codes where its parser builds the query first and refuses it after.
  for (const [sql, code, msg, column] of [
    ['SELECT a FROM t LIMIT 1 WITH TIES', 476, /^Can not use WITH TIES without ORDER BY \(line 1, column 25\)$/, 25],
    ['SELECT TOP 1 WITH TIES a FROM t', 476, /^Can not use WITH TIES without ORDER BY/, 14],
    ['SELECT TOP 2 a FROM t ORDER BY a LIMIT 3', 406, /^Can not use TOP and LIMIT together \(line 1, column 8\)$/, 8],
  ] as const)
    it(`${sql}: ${code}`, () => {
      const e = failure(sql);
      expect(e.code).toBe('QUERY_ERROR');
      expect(e.message).toMatch(msg);
      expect(e.details?.clickhouse).toMatchObject({ code });
      expect(e.position).toEqual({ line: 1, column });
    });
  it('their allowed forms parse', () => {
    for (const sql of ['SELECT a FROM t LEFT ANTI JOIN u USING a', 'SELECT a FROM t ORDER BY a LIMIT 1 WITH TIES', 'SELECT DISTINCT ON (a) a FROM t LIMIT 1']) {
      expect(() => parseSelect(sql)).not.toThrow();
    }
  });
});

describe('NOT_READ_ONLY', () => {
  const writes = [
    'INSERT INTO t VALUES (1)',
    'insert into t select 1',
    'ALTER TABLE t DELETE WHERE 1',
    'DROP TABLE t',
    'CREATE TABLE x (a UInt8) ENGINE = Memory',
    'SYSTEM FLUSH LOGS',
    "KILL QUERY WHERE query_id = 'x'",
    'SET max_threads = 1',
    'OPTIMIZE TABLE t FINAL',
    'TRUNCATE TABLE t',
    'RENAME TABLE a TO b',
    'GRANT SELECT ON *.* TO u',
    'SHOW TABLES',
    'DESCRIBE TABLE t',
    'EXPLAIN SELECT 1',
    '  /* hidden */ DELETE FROM t WHERE 1',
    'SELECT 1; DROP TABLE t',
    'SELECT 1; SELECT 2',
    "SELECT 1 INTO OUTFILE 'x.csv'",
  ];
  for (const sql of writes) {
    it(sql, () => {
      const e = failure(sql);
      expect(e.code).toBe('NOT_READ_ONLY');
      expect(e.position).toBeDefined();
    });
  }
  it('one trailing semicolon is fine', () => {
    expect(parseSelect('SELECT 1;').kind).toBe('select');
    expect(parseSelect('SELECT 1 ;  -- done\n').kind).toBe('select');
  });
  it('the second statement is located', () => {
    expect(failure('SELECT 1;\n  DROP TABLE t').position).toEqual({ line: 2, column: 3 });
  });
});

describe('UNSUPPORTED names the construct', () => {
  const cases: [string, RegExp][] = [
    ['SELECT sum(a) OVER (PARTITION BY b GROUPS 1 PRECEDING) FROM t', /GROUPS window frames/],
    ['SELECT a FROM t ARRAY JOIN x ARRAY JOIN y', /More than one ARRAY JOIN/],
  ];
  for (const [sql, msg] of cases) {
    it(sql, () => {
      const e = failure(sql);
      expect(e.code).toBe('UNSUPPORTED');
      expect(e.message).toMatch(msg);
      expect(e.position?.line).toBe(1);
    });
  }
});

describe('guards', () => {
  it('TOO_LARGE above the input cap', () => {
    const e = failure(`SELECT ${'1'.repeat(100)}`, { maxLength: 50 });
    expect(e.code).toBe('TOO_LARGE');
    expect(e.status).toBe(413);
    expect(failure('SELECT ' + ' '.repeat(1 << 20)).code).toBe('TOO_LARGE');
  });

  it('deep parentheses fail with a position, not a stack overflow', () => {
    for (const n of [250, 5_000, 100_000]) {
      const e = failure(`SELECT ${'('.repeat(n)}1${')'.repeat(n)}`);
      expect(e.code).toBe('SYNTAX_ERROR');
      expect(e.message).toMatch(/nested too deeply/);
      expect(e.position?.line).toBe(1);
    }
  });

  it('deep function nesting, subqueries, arrays and NOT chains are capped too', () => {
    const inputs = [
      `SELECT ${'f('.repeat(300)}1${')'.repeat(300)}`,
      `SELECT * FROM ${'(SELECT * FROM '.repeat(300)}t${')'.repeat(300)}`,
      `SELECT ${'['.repeat(300)}1${']'.repeat(300)}`,
      `SELECT ${'NOT '.repeat(300)}1`,
      `SELECT ${'- '.repeat(300)}a`,
      `SELECT ${'CASE WHEN '.repeat(300)}`,
    ];
    for (const sql of inputs) expect(failure(sql).message).toMatch(/nested too deeply/);
  });

  it('a reasonable depth still parses', () => {
    expect(() => parseSelect(`SELECT ${'('.repeat(40)}1${')'.repeat(40)}`)).not.toThrow();
  });

  it('long left-associative chains are capped (UNSUPPORTED), long OR chains are flat and fine', () => {
    const plus = failure(`SELECT ${Array.from({ length: 5000 }, () => 'a').join(' + ')}`);
    expect(plus.code).toBe('UNSUPPORTED');
    const ors = parseSelect(`SELECT 1 FROM t WHERE ${Array.from({ length: 20_000 }, (_, i) => `k = ${i}`).join(' OR ')}`);
    expect(ors.kind === 'select' && ors.where?.kind === 'function' && ors.where.args.length).toBe(20_000);
  });
});

describe('messages stay short', () => {
  it('a huge token is clipped in the message', () => {
    const e = failure(`SELECT a FROM t WHERE ${'x'.repeat(100_000)} ${'y'.repeat(100_000)}`);
    expect(e.code).toBe('SYNTAX_ERROR');
    expect(e.message.length).toBeLessThan(200);
  });
});

describe('keyword forms ClickHouse refuses at parse time', () => {
  for (const sql of ['SELECT TRIM(LEADING FROM s) FROM t', 'SELECT SUBSTRING(s FOR 2) FROM t']) {
    it(sql, () => {
      const e = failure(sql);
      expect(['SYNTAX_ERROR', 'UNSUPPORTED']).toContain(e.code);
      expect(e.position?.line).toBe(1);
    });
  }
  // ClickHouse's SUBSTRING reads FROM or ',' first: `SUBSTRING(s FOR n)` fails (62) at the token after FOR.
  it('SUBSTRING(s FOR n) is a syntax error at n, as ClickHouse places it', () => {
    const e = failure('SELECT substring(b FOR 2) FROM t');
    expect(e.code).toBe('SYNTAX_ERROR');
    expect(e.position).toEqual({ line: 1, column: 24 });
  });
  // ClickHouse: "APPLY column transformer can only accept lambda with one argument" (62).
  it('an APPLY lambda of two parameters is a syntax error', () => {
    const e = failure('SELECT * APPLY((x, y) -> x) FROM t');
    expect(e.code).toBe('SYNTAX_ERROR');
    expect(e.message).toMatch(/^APPLY column transformer can only accept lambda with one argument \(line 1, column 15\)/);
    expect(e.position).toEqual({ line: 1, column: 15 });
  });
});

describe('window frames ClickHouse refuses at parse time', () => {
  for (const sql of [
    'SELECT sum(a) OVER (ROWS BETWEEN UNBOUNDED FOLLOWING AND CURRENT ROW) FROM t',
    'SELECT sum(a) OVER (ROWS BETWEEN CURRENT ROW AND UNBOUNDED PRECEDING) FROM t',
    'SELECT sum(a) OVER (RANGE UNBOUNDED FOLLOWING) FROM t',
  ]) {
    it(sql, () => {
      const e = failure(sql);
      expect(e.code).toBe('SYNTAX_ERROR');
      expect(e.message).toMatch(/frame (start|end) other than UNBOUNDED/);
      expect(e.position?.line).toBe(1);
    });
  }
});
