// Pure text helpers of the adapters: external-table substitution (never inside strings or
// comments, aliases kept), the SETTINGS clause, and error-code parsing of every server form.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { assignedSettings, settingsClause, substituteTables, trimStatement } from '../../../shared/core/clickhouse/sql-text.js';
import { quoteStringLiteral as quoteString } from '../../../shared/core/sql/quote.js';
import { serverError } from '../../../shared/adapters/clickhouse/errors.js';
import { parseClickHouseCode } from '../../../shared/core/clickhouse/error-codes.js';
import type { ExternalTable } from '../../../shared/core/clickhouse/port.js';

const ext: ExternalTable = { name: '_data_x1', columns: [{ name: 'k', type: 'UInt64' }], rows: [] };
const sub = (sql: string) => substituteTables(sql, [ext], () => '(SUB)');

describe('substituteTables', () => {
  it('replaces table references in IN, FROM and JOIN positions', () => {
    expect(sub('SELECT a FROM t WHERE a GLOBAL IN _data_x1')).toBe('SELECT a FROM t WHERE a GLOBAL IN (SUB)');
    expect(sub('SELECT a FROM t WHERE a IN `_data_x1`')).toBe('SELECT a FROM t WHERE a IN (SUB)');
    expect(sub('SELECT * FROM _data_x1')).toBe('SELECT * FROM (SUB) AS `_data_x1`');
    expect(sub('SELECT * FROM _data_x1 WHERE 1')).toBe('SELECT * FROM (SUB) AS `_data_x1` WHERE 1');
    expect(sub('SELECT * FROM t JOIN _data_x1 AS d ON t.k = d.k')).toBe('SELECT * FROM t JOIN (SUB) AS d ON t.k = d.k');
    expect(sub('SELECT * FROM t JOIN _data_x1 d USING k')).toBe('SELECT * FROM t JOIN (SUB) d USING k');
    expect(sub('SELECT _data_x1.k FROM t JOIN _data_x1 ON t.k = _data_x1.k')).toBe('SELECT _data_x1.k FROM t JOIN (SUB) AS `_data_x1` ON t.k = _data_x1.k');
  });

  it('leaves strings, comments, qualified names and lookalikes alone', () => {
    const same = [
      "SELECT '_data_x1' AS s",
      'SELECT 1 -- _data_x1\n',
      'SELECT 1 /* _data_x1 */',
      'SELECT * FROM db._data_x1',
      'SELECT _data_x1(1)',
      'SELECT * FROM _data_x12',
      "SELECT 'it\\'s _data_x1' AS s",
    ];
    for (const s of same) expect(sub(s)).toBe(s);
  });

  it('never changes SQL that does not mention the name (property)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (s) => {
        fc.pre(!s.includes('_data_x1'));
        expect(sub(s)).toBe(s);
      }),
    );
  });
});

describe('settings clause', () => {
  it('renders values and starts on a new line (a trailing comment cannot swallow it)', () => {
    expect(settingsClause({ max_threads: 2, readonly: 2, timeout_overflow_mode: 'throw', use_uncompressed_cache: true })).toBe(
      "\nSETTINGS max_threads = 2, readonly = 2, timeout_overflow_mode = 'throw', use_uncompressed_cache = 1",
    );
    expect(settingsClause({})).toBe('');
    expect(trimStatement('SELECT 1;  \n ;')).toBe('SELECT 1');
  });

  it('refuses names that would inject SQL', () => {
    expect(() => settingsClause({ 'a = 1, readonly': 0 })).toThrow(/invalid setting name/);
    expect(() => settingsClause({ x: Number.NaN })).toThrow();
  });

  it('quotes strings so that quotes and backslashes cannot escape', () => {
    expect(quoteString("a'b\\c")).toBe("'a\\'b\\\\c'");
  });
});

describe('assignedSettings', () => {
  it('finds enforced names assigned after SETTINGS, not columns or strings', () => {
    const names = ['readonly', 'max_execution_time'];
    expect(assignedSettings('SELECT 1 SETTINGS max_threads = 1, max_execution_time=5', names)).toEqual(['max_execution_time']);
    expect(assignedSettings('SELECT readonly FROM t WHERE readonly = 1', names)).toEqual([]);
    expect(assignedSettings("SELECT 'SETTINGS readonly = 0'", names)).toEqual([]);
    expect(assignedSettings('SELECT 1 /* SETTINGS */ settings `readonly` = 0', names)).toEqual(['readonly']);
  });
});

describe('error codes', () => {
  it('parses 18.16, newer server and chdb forms', () => {
    expect(parseClickHouseCode("Code: 60, e.displayText() = DB::Exception: Table default.x doesn't exist., e.what() = DB::Exception")).toBe(60);
    expect(parseClickHouseCode('Code: 62. DB::Exception: Syntax error: failed at position 1')).toBe(62);
    expect(parseClickHouseCode('no code here')).toBeUndefined();
    const e = serverError('Code: 159, e.displayText() = DB::Exception: Timeout exceeded, e.what() = DB::Exception');
    expect([e.kind, e.chCode, e.message]).toEqual(['timeout', 159, 'Code: 159, e.displayText() = DB::Exception: Timeout exceeded']);
    expect(serverError('Code: 394. DB::Exception: Query was cancelled').kind).toBe('aborted');
  });
});
