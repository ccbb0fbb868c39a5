// Non-ASCII outside quotes: our lexer accepts and refuses exactly what ClickHouse's does (chdb,
// EXPLAIN AST = parse only). ClickHouse refuses Cyrillic, smart quotes, emoji and full-width
// operators as "Unrecognized token" (a SYNTAX_ERROR here, at the same column), but reads ‘text’
// as a string and “name” as a quoted identifier. Before, our lexer took any non-ASCII character
// as an identifier, so these reached the shards and came back as QUERY_ERROR.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Session } from 'chdb';
import { parseSelect } from '../../../shared/core/sql/parse.js';
import { printSelect } from '../../../shared/core/sql/print.js';
import { ScatterError } from '../../../shared/core/errors.js';

let dir: string;
let session: Session;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'h10-unicode-'));
  session = new Session(dir);
});
afterAll(() => {
  session?.cleanup?.();
  rmSync(dir, { recursive: true, force: true });
});

/** ClickHouse's verdict: undefined when it parses, else the 1-based position of the failure. */
function clickhouse(sql: string): number | undefined {
  try {
    session.query(`EXPLAIN AST ${sql}`, 'CSV');
    return undefined;
  } catch (e) {
    const m = /failed at position (\d+)/.exec(String((e as Error).message));
    expect(m, String((e as Error).message)).not.toBeNull();
    return Number(m![1]) - 'EXPLAIN AST '.length;
  }
}

const CASES = [
  'SELECT count() FROM t WHERE s = ’a’',
  'SELECT 😀 FROM t',
  'SELECT сумма FROM t',
  'SELECT 1 AS aб FROM t',
  "SELECT count() FROM t WHERE s ＝ 'a'",
  'ＳＥＬＥＣＴ 1 FROM t',
  'SELECT ‘a’ AS x FROM t',
  'SELECT “a” FROM t',
  "SELECT ‘a' FROM t",
  'SELECT `сумма` FROM t',
  "SELECT '😀' AS e FROM t",
  // Unicode blanks ClickHouse skips like spaces, and one it does not (U+1680), and bidi/zero-width marks.
  ...[0x85, 0xa0, 0x1680, 0x180e, 0x2000, 0x2007, 0x200b, 0x200d, 0x200e, 0x2028, 0x202e, 0x202f, 0x205f, 0x2060, 0x3000].map(
    (cp) => `SELECT count() FROM t WHERE s =${String.fromCodePoint(cp)}1`,
  ),
];

describe('non-ASCII outside quotes, as ClickHouse lexes it', () => {
  it('the one deliberate difference: a byte-order mark (U+FEFF), which ClickHouse skips, is a SYNTAX_ERROR here', () => {
    const sql = '\uFEFFSELECT count() FROM t';
    expect(clickhouse(sql)).toBeUndefined();
    expect(() => parseSelect(sql)).toThrow(expect.objectContaining({ code: 'SYNTAX_ERROR', position: { line: 1, column: 1 } }));
  });

  for (const sql of CASES) {
    it(JSON.stringify(sql), () => {
      const at = clickhouse(sql);
      let ours: ScatterError | undefined;
      try {
        const printed = printSelect(parseSelect(sql));
        expect(clickhouse(printed), `printed: ${printed}`).toBeUndefined(); // what we accept, ClickHouse reads back
      } catch (e) {
        if (!(e instanceof ScatterError)) throw e;
        ours = e;
      }
      if (at === undefined) expect(ours, ours?.message).toBeUndefined();
      else {
        expect(ours?.code).toBe('SYNTAX_ERROR');
        expect(ours?.position).toEqual({ line: 1, column: at });
      }
    });
  }
});
